"""On-off sources through the Python API, the command line, the ns-2 export
and the animation."""

from __future__ import annotations

from pathlib import Path

import pytest

import manetsim
from manetsim import animate

from helpers import EXAMPLES, assert_clean_error, cli, load_toml

QUICKSTART = EXAMPLES / "quickstart.toml"
ONOFF = {"flows.0.app": "onoff", "routing.protocol": "aodv"}
SHORT = {**ONOFF, "duration_s": 30, "flows.0.stop_s": 30}


def test_an_onoff_source_sends_about_half_of_a_cbr_sources_packets():
    cbr = manetsim.run(QUICKSTART, overrides={k: v for k, v in SHORT.items() if k != "flows.0.app"})
    onoff = manetsim.run(QUICKSTART, overrides=SHORT)
    ratio = onoff.flows.iloc[0]["sent"] / cbr.flows.iloc[0]["sent"]
    # Bursts and idle times of 0.5 s on average (the defaults).
    assert 0.3 < ratio < 0.65, ratio
    assert onoff.flows.iloc[0]["received"] >= 0.99 * onoff.flows.iloc[0]["sent"]
    longer = manetsim.run(QUICKSTART, overrides={**SHORT, "flows.0.onoff.off_s": 2.0})
    assert longer.flows.iloc[0]["sent"] < 0.6 * onoff.flows.iloc[0]["sent"]
    # The scenario echoes the table with its defaults filled in.
    echoed = load_toml(onoff.scenario_toml)["flows"][0]["onoff"]
    assert echoed == {"on_s": 0.5, "off_s": 0.5, "distribution": "exponential", "shape": 1.5}


@pytest.mark.parametrize("distribution", ["exponential", "pareto"])
def test_the_export_writes_ns2s_traffic_generator(tmp_path: Path, distribution: str):
    sets = [
        "--set",
        "routing.protocol=aodv",
        "--set",
        "flows.0.app=onoff",
        "--set",
        f"flows.0.onoff.distribution={distribution}",
        "--set",
        "flows.0.onoff.on_s=0.25",
    ]
    proc = cli("export", "ns2", QUICKSTART, *sets, "-o", tmp_path / "x.tcl")
    assert proc.returncode == 0, proc.stderr
    tcl = (tmp_path / "x.tcl").read_text()
    kind = "Pareto" if distribution == "pareto" else "Exponential"
    assert f"set app_(0) [new Application/Traffic/{kind}]" in tcl
    assert "$app_(0) set burst_time_ 0.25" in tcl
    assert "$app_(0) set idle_time_ 0.5" in tcl
    assert "$app_(0) set rate_ 100000" in tcl
    assert "$app_(0) set packetSize_ 512" in tcl
    assert ("$app_(0) set shape_ 1.5" in tcl) == (distribution == "pareto")
    assert "Application/Traffic/CBR" not in tcl


def test_the_export_writes_onoff_over_tfrc_as_the_application_hands_it(tmp_path: Path):
    # ns-2.35's Agent/TFRC follows its application only with SndrType_ 1.
    sets = ["--set", "flows.0.app=onoff", "--set", "flows.0.transport=tfrc"]
    sets += ["--set", "routing.protocol=aodv"]
    proc = cli("export", "ns2", QUICKSTART, *sets, "-o", tmp_path / "x.tcl")
    assert proc.returncode == 0, proc.stderr
    tcl = (tmp_path / "x.tcl").read_text(encoding="utf-8").splitlines()
    assert "$agent_(0) set SndrType_ 1" in tcl
    assert "set app_(0) [new Application/Traffic/Exponential]" in tcl
    assert "$app_(0) set burst_time_ 0.5" in tcl


@pytest.mark.parametrize(
    ("sets", "key"),
    [
        (("flows.0.onoff.on_s=1",), "flows[0].onoff"),
        (("flows.0.app=onoff", "flows.0.onoff.shape=0.5"), "flows[0].onoff.shape"),
        (("flows.0.app=onoff", "flows.0.onoff.off_s=-1"), "flows[0].onoff.off_s"),
        (("flows.0.app=onoff", "flows.0.interval_s=0.1"), "flows[0].interval_s"),
    ],
)
def test_bad_onoff_settings_are_refused_naming_the_key(sets: tuple[str, ...], key: str):
    args = [a for s in sets for a in ("--set", s)]
    line = assert_clean_error(cli("run", QUICKSTART, *args))
    assert f"key `{key}`" in line


def test_the_animation_counts_onoff_packets_as_deliveries():
    result = manetsim.run(QUICKSTART, overrides=SHORT)
    data = animate.animation_data(QUICKSTART, overrides=SHORT)
    assert len(data["delivered_us"][0]) == result.flows.iloc[0]["received"] > 0


def test_the_parser_counts_exponential_and_pareto_packets_as_data(tmp_path: Path):
    from manetsim import ns2

    # Lines as Debian's ns-2.35 writes them for UDP under its exponential
    # and Pareto generators (the agent's size is the bare payload).
    mac = "[13a 2 1 800] -------"
    trace = tmp_path / "onoff.tr"
    trace.write_text(
        "s 1.357600774 _0_ AGT  --- 0 exp 512 [0 0 0 0] ------- [0:0 2:0 32 0] \n"
        f"r 1.364938774 _2_ AGT  --- 0 exp 532 {mac} [0:0 2:0 30 2] \n"
        "s 1.421600774 _0_ AGT  --- 1 exp 512 [0 0 0 0] ------- [0:0 2:0 32 0] \n"
        "s 2.0 _4_ AGT  --- 2 pareto 512 [0 0 0 0] ------- [4:0 2:1 32 0] \n"
        f"r 2.1 _2_ AGT  --- 2 pareto 532 {mac} [4:0 2:1 30 2] \n"
    )
    stats = ns2.parse_trace(trace)
    exp, pareto = stats.flows[(0, 0)], stats.flows[(4, 0)]
    assert (exp.sent, exp.received) == (2, 1)
    assert (pareto.sent, pareto.received) == (1, 1)
    assert exp.delays_s == pytest.approx([0.007338])
