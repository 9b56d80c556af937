"""The Python API: manetsim.run / validate / load_config and their errors."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import manetsim
from manetsim._toml import dumps

from helpers import FLOW_KEYS, RESULT_KEYS, SMALL_CHAIN, load_toml, scenario, write_toml

# -- the package -----------------------------------------------------------------


def test_public_names():
    for name in manetsim.__all__:
        assert hasattr(manetsim, name)
    assert isinstance(manetsim.__version__, str)
    assert manetsim.__version__.count(".") >= 2


def test_error_classes():
    assert issubclass(manetsim.ScenarioError, ValueError)
    assert issubclass(manetsim.SimulationError, RuntimeError)
    assert manetsim.ScenarioError.__module__ == "manetsim"


# -- validate and load_config (no simulation needed) ------------------------------


def test_validate_accepts_dict_path_and_text(small_chain_file: Path):
    manetsim.validate(SMALL_CHAIN)
    manetsim.validate(small_chain_file)
    manetsim.validate(str(small_chain_file))
    manetsim.validate(small_chain_file.read_text())


def test_scenario_error_is_a_value_error_with_details():
    bad = scenario(SMALL_CHAIN, duration_s=-1.0)
    with pytest.raises(ValueError, match="duration_s") as caught:
        manetsim.validate(bad)
    err = caught.value
    assert isinstance(err, manetsim.ScenarioError)
    assert err.key is not None
    assert "duration_s" in err.key
    assert err.file == "<dict>"
    assert err.message
    assert len(str(err).splitlines()) == 1


def test_scenario_error_names_the_file(tmp_path: Path):
    path = write_toml(tmp_path / "bad.toml", scenario(SMALL_CHAIN, duration_s=-1.0))
    with pytest.raises(manetsim.ScenarioError) as caught:
        manetsim.validate(path)
    assert caught.value.file == str(path)
    assert str(path) in str(caught.value)


def test_unknown_key_is_refused():
    bad = scenario(SMALL_CHAIN, nodes={"count": 3, "colour": "blue"})
    with pytest.raises(manetsim.ScenarioError, match="colour"):
        manetsim.validate(bad)


def test_unknown_override_key_is_refused():
    with pytest.raises(manetsim.ScenarioError, match="bogus"):
        manetsim.validate(SMALL_CHAIN, overrides={"mac.bogus": 1})


def test_bad_override_syntax_is_a_scenario_error():
    with pytest.raises(manetsim.ScenarioError):
        manetsim.validate(SMALL_CHAIN, overrides=["no_equals_sign"])


def test_a_rate_too_low_for_the_clock_sends_once():
    # One packet per 4e303 s: the first, then never again (the run ends).
    result = manetsim.run(SMALL_CHAIN, overrides=[("flows.0.rate_bps", "1e-300")])
    assert result.flows["sent"].tolist() == [1]


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ([("flows.0.rate_bps", "1e300")], "flows[0].rate_bps"),
        ([("flows.0.interval_s", "1e-300")], "flows[0].interval_s"),
        (
            [("routing.protocol", "olsr"), ("routing.olsr.hello_interval_s", "1e-300")],
            "routing.olsr.hello_interval_s",
        ),
    ],
)
def test_periods_shorter_than_the_clock_are_refused(overrides: list[tuple[str, str]], key: str):
    # Each would hold the run at one instant.
    with pytest.raises(manetsim.ScenarioError, match="1 ns") as caught:
        manetsim.run(SMALL_CHAIN, overrides=overrides)
    assert caught.value.key == key


def test_missing_file_is_an_os_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        manetsim.validate(tmp_path / "absent.toml")


def test_load_config_fills_defaults():
    config = manetsim.load_config(SMALL_CHAIN)
    assert config["nodes"]["count"] == 3
    assert config["mac"]["queue_packets"] == 50
    assert config["flows"][0]["rate_bps"] == 64000.0


@pytest.mark.parametrize(
    "overrides",
    [
        {"mac.queue_packets": 10, "flows.0.packet_size_bytes": 256},
        ["mac.queue_packets=10", "flows.0.packet_size_bytes=256"],
        [("mac.queue_packets", 10), ("flows.0.packet_size_bytes", "256")],
    ],
    ids=["mapping", "strings", "pairs"],
)
def test_load_config_applies_overrides(overrides: object):
    config = manetsim.load_config(SMALL_CHAIN, overrides=overrides)
    assert config["mac"]["queue_packets"] == 10
    assert config["flows"][0]["packet_size_bytes"] == 256


def test_load_config_applies_seed():
    assert manetsim.load_config(SMALL_CHAIN, seed=77)["seed"] == 77


def test_dict_and_text_resolve_alike():
    assert manetsim.load_config(SMALL_CHAIN) == manetsim.load_config(dumps(SMALL_CHAIN))


def test_wrong_scenario_type():
    with pytest.raises(TypeError):
        manetsim.validate(42)  # type: ignore[arg-type]


# -- run (needs the simulation core) -----------------------------------------------


def test_run_from_dict():
    result = manetsim.run(SMALL_CHAIN)
    assert isinstance(result, manetsim.Result)
    assert result.json.keys() >= RESULT_KEYS
    assert result.seed == 1
    assert result.duration_s == 5.0
    assert result.events > 0
    assert result.scenario == "small-chain"
    flows = result.flows
    assert len(flows) == 1
    assert set(flows.columns) >= FLOW_KEYS
    assert flows.loc[0, "src"] == 0
    assert flows.loc[0, "dst"] == 2
    assert 0 < flows.loc[0, "received"] <= flows.loc[0, "sent"]


def test_run_from_path_and_text_agree(small_chain_file: Path):
    from_path = manetsim.run(small_chain_file)
    from_text = manetsim.run(small_chain_file.read_text())
    assert from_path.json["flows"] == from_text.json["flows"]


def test_run_seed_and_overrides():
    result = manetsim.run(SMALL_CHAIN, seed=3, overrides={"flows.0.rate_bps": 32000})
    assert result.seed == 3
    resolved = load_toml(result.scenario_toml)
    assert resolved["seed"] == 3
    assert resolved["flows"][0]["rate_bps"] == 32000


def test_run_refuses_a_bad_scenario_before_running():
    with pytest.raises(manetsim.ScenarioError):
        manetsim.run(scenario(SMALL_CHAIN, duration_s=0.0))


def test_result_tables_have_expected_columns():
    tables = manetsim.run(SMALL_CHAIN).tables()
    assert set(tables) == {
        "flows",
        "drops",
        "mac",
        "nodes",
        "run",
        "routing",
        "mobility",
        "hops",
        "energy",
        "tcp",
        "tfrc",
        "sctp",
    }
    assert set(tables["flows"].column_names) >= FLOW_KEYS
    assert tables["drops"].column_names[:2] == ["reason", "packets"]
    assert {"retries", "collisions", "rts_failures", "ack_failures", "link_failures"} <= set(
        tables["mac"].column_names
    )
    assert tables["mac"].num_rows == 1
    assert {"id", "x_m", "y_m"} <= set(tables["nodes"].column_names)
    assert tables["nodes"].num_rows == 3
    run = tables["run"]
    assert run.num_rows == 1
    assert {"version", "scenario", "seed", "duration_s", "events", "wall_s"} <= set(
        run.column_names
    )
    assert run.column("seed").to_pylist() == [1]


def test_write_produces_readable_files(tmp_path: Path):
    result = manetsim.run(SMALL_CHAIN)
    out = result.write(tmp_path / "run1")
    flows = pq.read_table(out / "flows.parquet")
    assert flows.num_rows == 1
    assert pq.read_table(out / "run.parquet").column("scenario").to_pylist() == ["small-chain"]
    assert pq.read_table(out / "nodes.parquet").num_rows == 3
    pq.read_table(out / "drops.parquet")
    assert json.loads((out / "result.json").read_text()) == result.json
    assert load_toml((out / "scenario.toml").read_text())["duration_s"] == 5.0
    assert not [path.name for path in out.iterdir() if path.name.startswith(".")]


def test_runs_in_threads_match_sequential_runs():
    seeds = [1, 2, 3, 4]
    sequential = [manetsim.run(SMALL_CHAIN, seed=seed).json["flows"] for seed in seeds]
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(lambda s: manetsim.run(SMALL_CHAIN, seed=s).json["flows"], seeds))
    assert threaded == sequential


@pytest.mark.parametrize(
    "name",
    [
        "quickstart.toml",
        "single_hop_saturation.toml",
        "internet_gateways.toml",
        "rate_adaptation.toml",
    ],
)
def test_examples_run(name: str):
    from helpers import EXAMPLES

    result = manetsim.run(EXAMPLES / name)
    assert result.ledger["balanced"] is True
    assert result.json["flows"]
    assert all(flow["received"] > 0 for flow in result.json["flows"])


def test_hop_and_routing_tables():
    result = manetsim.run(SMALL_CHAIN)
    hops = result.timeseries("hops")
    assert list(hops.columns) == ["t_s", "flow", "hops"]
    assert len(hops) == result.flows["received"].sum()
    assert (hops["hops"] == 2).all()
    assert list(result.routing_messages.columns) == ["message", "packets", "bytes"]
    assert result.flows["route_changes"].tolist() == [0]
