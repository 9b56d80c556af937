"""Mobility through the Python API and the CLI: time series and `convert`."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import manetsim

from helpers import assert_clean_error, cli, write_toml

RWP = {
    "name": "rwp-small",
    "duration_s": 30.0,
    "seed": 4,
    "area": {"width_m": 800.0, "height_m": 600.0},
    "nodes": {"count": 12},
    "mobility": {
        "model": "random_waypoint",
        "min_speed_mps": 1.0,
        "max_speed_mps": 15.0,
        "pause_s": 2.0,
    },
    "routing": {"protocol": "static"},
    "flows": [{"src": 0, "dst": 1, "rate_bps": 20_000, "start_s": 1.0}],
}


# The models that draw the nodes' walks, each with its own keys.
DRAWN = {
    "random_waypoint": RWP["mobility"],
    "random_direction": {
        "model": "random_direction",
        "min_speed_mps": 1.0,
        "max_speed_mps": 15.0,
        "pause_s": 2.0,
    },
    "random_walk": {
        "model": "random_walk",
        "min_speed_mps": 1.0,
        "max_speed_mps": 15.0,
        "step_s": 4.0,
    },
    # ns-3's distance mode: a new course every 20 m.
    "random_walk_by_distance": {
        "model": "random_walk",
        "min_speed_mps": 1.0,
        "max_speed_mps": 15.0,
        "step_m": 20.0,
    },
    "gauss_markov": {
        "model": "gauss_markov",
        "min_speed_mps": 5.0,
        "max_speed_mps": 15.0,
        "alpha": 0.5,
        "speed_std_mps": 2.0,
    },
    # Camp, Boleng and Davies's steering away from the edges.
    "gauss_markov_steered": {
        "model": "gauss_markov",
        "min_speed_mps": 5.0,
        "max_speed_mps": 15.0,
        "edge_margin_m": 80.0,
    },
    "rpgm": {
        "model": "rpgm",
        "min_speed_mps": 1.0,
        "max_speed_mps": 7.5,
        "pause_s": 2.0,
        "groups": 3,
        "group_radius_m": 40.0,
    },
    "manhattan": {
        "model": "manhattan",
        "min_speed_mps": 4.0,
        "max_speed_mps": 15.0,
        "blocks_x": 4,
        "blocks_y": 3,
    },
    # Members that join another group they meet, half the time.
    "rpgm_changing": {
        "model": "rpgm",
        "min_speed_mps": 1.0,
        "max_speed_mps": 7.5,
        "pause_s": 2.0,
        "groups": 3,
        "group_radius_m": 60.0,
        "group_change_prob": 0.5,
    },
    # BonnMotion's changes along the streets: a new speed or a pause.
    "manhattan_stops": {
        "model": "manhattan",
        "min_speed_mps": 4.0,
        "max_speed_mps": 15.0,
        "update_m": 10.0,
        "speed_change_prob": 0.2,
        "pause_prob": 0.1,
        "max_pause_s": 20.0,
    },
}


def test_mobility_time_series_is_a_table(tmp_path: Path):
    result = manetsim.run(RWP)
    series = result.timeseries("mobility")
    assert list(series.columns) == [
        "t_s",
        "mean_speed_mps",
        "mean_degree",
        "links_up",
        "links_down",
    ]
    assert len(series) == 31
    assert series["mean_speed_mps"].between(0.0, 15.0).all()
    assert result.mobility["model"] == "random_waypoint"
    assert result.mobility["link_changes"] == int(
        series["links_up"].sum() + series["links_down"].sum()
    )
    out = result.write(tmp_path / "run")
    table = pq.read_table(out / "mobility.parquet")
    assert table.num_rows == 31


@pytest.mark.parametrize("model", sorted(DRAWN))
def test_convert_writes_a_movement_file_that_reproduces_the_motion(tmp_path: Path, model: str):
    doc = {**RWP, "mobility": DRAWN[model]}
    scenario = write_toml(tmp_path / "rwp.toml", doc)
    moves = tmp_path / "moves.tcl"
    proc = cli("convert", scenario, "-o", moves)
    assert proc.returncode == 0, proc.stderr
    text = moves.read_text()
    assert "setdest" in text
    assert "$node_(11) set X_" in text
    assert not list(tmp_path.glob(".moves.tcl.*")), "no temporary file left behind"

    # The same scenario driven by the written file moves the nodes identically.
    replay = dict(doc)
    replay["mobility"] = {"model": "ns2", "file": "moves.tcl"}
    replay_path = write_toml(tmp_path / "replay.toml", replay)
    original = json.loads(cli("run", scenario, "--json").stdout)
    replayed = json.loads(cli("run", replay_path, "--json").stdout)
    a, b = original["timeseries"]["mobility"], replayed["timeseries"]["mobility"]
    for column in ("mean_degree", "links_up", "links_down"):
        assert a[column] == b[column], column
    for x, y in zip(a["mean_speed_mps"], b["mean_speed_mps"]):
        assert abs(x - y) < 1e-6
    assert original["flows"] == replayed["flows"]


def test_the_added_models_run_with_their_own_keys(tmp_path: Path):
    for model in ("random_direction", "random_walk", "gauss_markov", "rpgm", "manhattan"):
        result = manetsim.run({**RWP, "mobility": DRAWN[model]})
        assert result.mobility["model"] == model
        speeds = result.timeseries("mobility")["mean_speed_mps"]
        assert speeds.between(0.0, 15.0).all()
        assert speeds.iloc[1:].mean() > 3.0, model
    # show-config resolves the walk's step, and names no step elsewhere.
    walk = write_toml(tmp_path / "walk.toml", {**RWP, "mobility": {"model": "random_walk"}})
    shown = cli("show-config", walk)
    assert shown.returncode == 0, shown.stderr
    assert "step_s = 1.0" in shown.stdout
    by_distance = {**RWP, "mobility": DRAWN["random_walk_by_distance"]}
    shown = cli("show-config", write_toml(tmp_path / "metres.toml", by_distance)).stdout
    assert "step_m = 20.0" in shown
    assert "step_s" not in shown
    direction = write_toml(
        tmp_path / "direction.toml", {**RWP, "mobility": DRAWN["random_direction"]}
    )
    assert "step_s" not in cli("show-config", direction).stdout
    gauss = write_toml(tmp_path / "gauss.toml", {**RWP, "mobility": {"model": "gauss_markov"}})
    shown = cli("show-config", gauss).stdout
    for line in ("step_s = 1.0", "alpha = 0.75", "speed_std_mps = 1.0", "direction_std_rad = 1.0"):
        assert line in shown, line
    group = write_toml(tmp_path / "group.toml", {**RWP, "mobility": {"model": "rpgm"}})
    shown = cli("show-config", group).stdout
    assert "groups = 1" in shown
    assert "group_radius_m = 100.0" in shown
    assert "group_change_prob = 0.0" in shown
    assert "groups" not in cli("show-config", walk).stdout
    streets = write_toml(tmp_path / "streets.toml", {**RWP, "mobility": {"model": "manhattan"}})
    shown = cli("show-config", streets).stdout
    assert "blocks_x = 5" in shown
    assert "blocks_y = 5" in shown
    assert "update_m" not in shown
    # With an update distance, the chances and the pause resolve to 0.
    stops = {**RWP, "mobility": {"model": "manhattan", "update_m": 5.0, "pause_prob": 0.1}}
    shown = cli("show-config", write_toml(tmp_path / "stops.toml", stops)).stdout
    for line in (
        "update_m = 5.0",
        "speed_change_prob = 0.0",
        "pause_prob = 0.1",
        "max_pause_s = 0.0",
    ):
        assert line in shown, line


def test_pauses_on_the_streets_slow_the_nodes_down():
    # The same grid with a pause of up to 20 s at a tenth of the places 10 m
    # apart: 10 m take 1.2 s on average at 4-15 m/s, and the pauses add 1 s,
    # so the nodes move about 0.55 of the time: 4.41 m/s against 8.62.
    moving = manetsim.run({**RWP, "duration_s": 300.0, "mobility": DRAWN["manhattan"]})
    stops = {**DRAWN["manhattan"], "update_m": 10.0, "pause_prob": 0.1, "max_pause_s": 20.0}
    stopping = manetsim.run({**RWP, "duration_s": 300.0, "mobility": stops})
    fast = moving.timeseries("mobility")["mean_speed_mps"].iloc[1:].mean()
    slow = stopping.timeseries("mobility")["mean_speed_mps"].iloc[1:].mean()
    assert 0.4 * fast < slow < 0.6 * fast, (slow, fast)


def test_group_members_keep_together_as_their_groups_wander():
    # Three groups of four over 300 s, each member within 40 m of its
    # group's centre: two members of one group stay within 80 m of each
    # other, so their links never break, while the groups meet and part.
    doc = {**RWP, "duration_s": 300.0, "mobility": DRAWN["rpgm"]}
    doc["flows"] = [
        {"src": 0, "dst": 3, "rate_bps": 8_000, "start_s": 1.0},
        {"src": 0, "dst": 11, "rate_bps": 8_000, "start_s": 1.0},
    ]
    doc["routing"] = {"protocol": "aodv"}
    result = manetsim.run(doc)
    flows = result.flows.set_index("dst")
    assert flows.loc[3, "loss_pct"] == 0.0
    hops = result.timeseries("hops")
    assert hops["hops"][hops["flow"] == 0].max() == 1
    assert hops["hops"][hops["flow"] == 1].max() > 1
    assert result.mobility["link_changes"] > 0


def test_convert_to_stdout_and_bad_input(tmp_path: Path):
    scenario = write_toml(tmp_path / "rwp.toml", RWP)
    proc = cli("convert", scenario)
    assert proc.returncode == 0, proc.stderr
    assert "$node_(0) set X_" in proc.stdout
    bad = tmp_path / "broken.tcl"
    bad.write_text("$node_(0) set X_ 10.0\nthis is not ns-2\n")
    doc = dict(RWP)
    doc["mobility"] = {"model": "ns2", "file": "broken.tcl"}
    path = write_toml(tmp_path / "bad.toml", doc)
    proc = cli("run", path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "broken.tcl:2" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_convert_into_a_missing_folder_names_it(tmp_path: Path):
    scenario = write_toml(tmp_path / "rwp.toml", RWP)
    target = tmp_path / "absent" / "moves.tcl"
    line = assert_clean_error(cli("convert", scenario, "-o", target))
    assert str(tmp_path / "absent") in line
    assert ".tmp" not in line
    assert not (tmp_path / "absent").exists()
