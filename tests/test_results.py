"""manetsim.Result on a hand-made result (no simulation needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from manetsim import Result
from manetsim import results as results_module

from helpers import load_toml

SAMPLE: dict[str, Any] = {
    "version": "0.1.0",
    "scenario": "sample",
    "seed": 7,
    "duration_s": 10.0,
    "events": 1000,
    "wall_s": 0.01,
    "events_per_s": 100000.0,
    "flows": [
        {
            "id": 0,
            "src": 0,
            "dst": 2,
            "transport": "udp",
            "variant": None,
            "sent": 100,
            "received": 98,
            "throughput_kbps": 41.5,
            "goodput_kbps": 40.1,
            "delay_ms": 8.25,
            "jitter_ms": 0.5,
            "loss_pct": 2.0,
            "retransmissions": 0,
            "sent_bytes": 51200,
            "received_bytes": 50176,
            "hops_mean": 2.0,
        },
        {
            "id": 1,
            "src": 2,
            "dst": 0,
            "transport": "tcp",
            "variant": "newreno",
            "sent": 50,
            "received": 50,
            "throughput_kbps": 20.0,
            "goodput_kbps": 19.0,
            "delay_ms": 9.0,
            "jitter_ms": 0.25,
            "loss_pct": 0.0,
            "retransmissions": 3,
            "sent_bytes": 25600,
            "received_bytes": 25600,
            "hops_mean": 2.0,
        },
    ],
    "drops": {"queue_full": 1, "retry_limit": 1},
    "routing": {"protocol": "static", "packets_sent": 0, "bytes_sent": 0},
    "mac": {
        "retries": 4,
        "collisions": 2,
        "rts_failures": 1,
        "ack_failures": 0,
        "frames_sent": 600,
        "frames_received": 590,
        "captures": 0,
        "link_failures": 0,
    },
    "energy": {"consumed_j": [1.0, 2.0, 3.0], "remaining_j": [99.0, 98.0, 97.0]},
    "ledger": {"created": 150, "delivered": 148, "dropped": 2, "in_flight": 0, "balanced": True},
    "nodes": [
        {
            "id": node,
            "x_m": 200.0 * node,
            "y_m": 0.0,
            "mac_retries": 1,
            "mac_collisions": 0,
            "frames_sent": 200,
            "frames_received": 190,
            "queue_drops": 0,
            "forwarded": 10 if node == 1 else 0,
        }
        for node in range(3)
    ],
}
SCENARIO_TOML = 'name = "sample"\nduration_s = 10.0\nseed = 7\n'


@pytest.fixture
def result() -> Result:
    return Result.from_json(json.dumps(SAMPLE), scenario_toml=SCENARIO_TOML)


def test_scalars(result: Result):
    assert result.json == SAMPLE
    assert result.summary == SAMPLE
    assert (result.version, result.scenario, result.seed) == ("0.1.0", "sample", 7)
    assert result.duration_s == 10.0
    assert result.events == 1000
    assert result.wall_s == 0.01
    assert result.events_per_s == 100000.0
    assert result.ledger["balanced"] is True
    assert result.mac["retries"] == 4
    assert result.routing["protocol"] == "static"
    assert "sample" in repr(result)


def test_flows_frame(result: Result):
    flows = result.flows
    assert list(flows["id"]) == [0, 1]
    assert flows["sent"].dtype == "int64"
    assert flows["delay_ms"].dtype == "float64"
    assert flows.loc[1, "variant"] == "newreno"
    assert flows["variant"].isna().tolist() == [True, False]


def test_drops_frame(result: Result):
    drops = result.drops
    assert list(drops.columns) == ["reason", "packets"]
    assert dict(zip(drops["reason"], drops["packets"])) == SAMPLE["drops"]


def test_nodes_frame_carries_energy(result: Result):
    nodes = result.nodes
    assert list(nodes["id"]) == [0, 1, 2]
    assert list(nodes["remaining_j"]) == [99.0, 98.0, 97.0]
    assert nodes.loc[1, "forwarded"] == 10


def test_nodes_without_energy_have_no_energy_columns():
    data = dict(SAMPLE, energy={"consumed_j": [], "remaining_j": []})
    assert "consumed_j" not in Result(data).nodes.columns


def test_tables(result: Result):
    tables = result.tables()
    assert set(tables) == {"flows", "drops", "mac", "nodes", "run", "routing"}
    assert tables["flows"].schema.field("throughput_kbps").type == pa.float64()
    assert tables["mac"].num_rows == 1
    assert tables["mac"].column("rts_failures").to_pylist() == [1]
    run = tables["run"].to_pylist()
    assert run == [
        {
            "version": "0.1.0",
            "scenario": "sample",
            "seed": 7,
            "duration_s": 10.0,
            "events": 1000,
            "wall_s": 0.01,
            "events_per_s": 100000.0,
            "routing_protocol": "static",
            "routing_packets_sent": 0,
            "routing_bytes_sent": 0,
            "ledger_created": 150,
            "ledger_delivered": 148,
            "ledger_dropped": 2,
            "ledger_in_flight": 0,
            "ledger_balanced": True,
        }
    ]


def test_empty_result_still_has_columns():
    data = dict(SAMPLE, flows=[], drops={}, nodes=[])
    tables = Result(data).tables()
    assert tables["flows"].num_rows == 0
    assert "goodput_kbps" in tables["flows"].column_names
    assert tables["drops"].column_names == ["reason", "packets"]


def test_unknown_fields_are_kept():
    flows = [dict(flow, new_metric=1.5) for flow in SAMPLE["flows"]]
    frame = Result(dict(SAMPLE, flows=flows)).flows
    assert list(frame["new_metric"]) == [1.5, 1.5]


@pytest.mark.parametrize(
    "value",
    [
        SAMPLE,
        {},
        [],
        {"a": [], "b": {}, "c": [[], [{}]], "d": None, "e": True, "f": False},
        {'quote"s,:{[': "back\\slash \u00e9 \u2192 \n\t", "": ""},
        [0, -1, 1.5, -2.5e-07, 1e300, 12345678901234567890, float("nan"), float("-inf")],
        "a string alone",
        3.25,
        None,
    ],
)
def test_json_text_is_pythons_indented_json(value: Any):
    assert Result({"v": value}).json_text() == json.dumps({"v": value}, indent=2)


def test_json_text_of_a_run_is_pythons_indented_json(small_chain_file: Path):
    import manetsim

    ran = manetsim.run(small_chain_file)
    assert ran.json["flows"]
    assert ran.json["nodes"]
    assert ran.json_text() == json.dumps(ran.json, indent=2)


def test_write(result: Result, tmp_path: Path):
    out = result.write(tmp_path / "a" / "b")
    names = sorted(path.name for path in out.iterdir())
    assert names == [
        "drops.parquet",
        "flows.parquet",
        "mac.parquet",
        "nodes.parquet",
        "result.json",
        "routing.parquet",
        "run.parquet",
        "scenario.toml",
    ]
    assert pq.read_table(out / "flows.parquet").equals(result.tables()["flows"])
    assert pq.read_table(out / "run.parquet").column("seed").to_pylist() == [7]
    assert (out / "result.json").read_text() == json.dumps(SAMPLE, indent=2) + "\n"
    assert load_toml((out / "scenario.toml").read_text())["seed"] == 7


def test_write_overwrites_previous_results(result: Result, tmp_path: Path):
    result.write(tmp_path)
    changed = Result(dict(SAMPLE, seed=8), SCENARIO_TOML)
    changed.write(tmp_path)
    assert json.loads((tmp_path / "result.json").read_text())["seed"] == 8


def test_failed_write_leaves_no_partial_files(
    result: Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    calls = []
    original = pq.write_table

    def failing_write_table(table: pa.Table, where: str) -> None:
        calls.append(where)
        if len(calls) == 3:
            Path(where).write_bytes(b"PAR1 half a file")
            raise OSError("disk full")
        original(table, where)

    monkeypatch.setattr(pq, "write_table", failing_write_table)
    with pytest.raises(OSError, match="disk full"):
        result.write(tmp_path)
    names = sorted(path.name for path in tmp_path.iterdir())
    # The two files finished before the failure are complete; nothing else is there.
    assert names == ["drops.parquet", "flows.parquet"]
    assert pq.read_table(tmp_path / "flows.parquet").num_rows == 2
    assert all(not where.endswith(".parquet") for where in calls)  # temp names only


def test_write_atomic_removes_temp_on_error(tmp_path: Path):
    def explode(path: str) -> None:
        Path(path).write_text("partial")
        raise RuntimeError("crash")

    with pytest.raises(RuntimeError):
        results_module._write_atomic(tmp_path / "x.json", explode)
    assert list(tmp_path.iterdir()) == []


def test_write_into_a_folder_taken_by_a_folder_writes_nothing(result: Result, tmp_path: Path):
    (tmp_path / "result.json").mkdir()
    with pytest.raises(IsADirectoryError, match=r"result\.json"):
        result.write(tmp_path)
    # No mix of two runs: not one table was written before the refusal.
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_atomic_write_follows_links_and_writes_through_devices(tmp_path: Path):
    real = tmp_path / "real.tcl"
    real.write_text("old")
    link = tmp_path / "link.tcl"
    link.symlink_to(real.name)
    results_module.write_text_atomic(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    # A device is written through, never replaced by a file.
    results_module.write_text_atomic("/dev/null", "anything")
    assert Path("/dev/null").is_char_device()
    # A folder is refused, named as given.
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        results_module.write_text_atomic(tmp_path, "x")
    # Nothing is left beside them.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.tcl", "real.tcl"]


def test_atomic_write_gives_the_umasks_mode_and_keeps_a_replaced_files(tmp_path: Path):
    fresh = tmp_path / "fresh.txt"
    results_module.write_text_atomic(fresh, "x")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~results_module._UMASK
    kept = tmp_path / "kept.txt"
    kept.write_text("x")
    kept.chmod(0o640)
    results_module.write_text_atomic(kept, "y")
    assert kept.stat().st_mode & 0o777 == 0o640
