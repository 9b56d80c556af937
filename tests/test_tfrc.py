"""TFRC flows through the Python API and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

import manetsim
from manetsim import plots

from helpers import EXAMPLES, assert_clean_error, cli

QUICKSTART = EXAMPLES / "quickstart.toml"
OVER_TFRC = {"flows.0.transport": "tfrc", "routing.protocol": "aodv"}


def test_a_cbr_flow_over_tfrc_delivers_and_reports_the_senders_state():
    result = manetsim.run(QUICKSTART, overrides=OVER_TFRC)
    flow = result.flows.iloc[0]
    assert flow["transport"] == "tfrc"
    assert flow["received"] >= 0.99 * flow["sent"] > 1400
    series = result.timeseries("tfrc")
    assert list(series.columns) == [
        "t_s",
        "flow",
        "rate_kbps",
        "rtt_ms",
        "loss_event_rate",
        "queued_packets",
    ]
    assert series["t_s"].is_monotonic_increasing
    assert series["rate_kbps"].iloc[-1] >= 100.0


def test_the_rate_figure_is_drawn_for_tfrc_flows(tmp_path: Path):
    short = {**OVER_TFRC, "duration_s": 20, "flows.0.stop_s": 20}
    result = manetsim.run(QUICKSTART, overrides=short)
    names = [p.name for p in plots.write_figures(result, tmp_path)]
    assert "rate.png" in names
    assert "cwnd.png" not in names


def test_export_to_ns2_sends_cbr_over_tfrc_as_the_application_hands_it(tmp_path: Path):
    # ns-2.35's TFRC agent sends as a bulk source whatever the CBR's rate
    # unless SndrType_ is 1; the generator stops 1 ns early, the agent on
    # time.
    sets = ("--set", "flows.0.transport=tfrc", "--set", "routing.protocol=aodv")
    out = tmp_path / "x.tcl"
    proc = cli("export", "ns2", QUICKSTART, *sets, "-o", out)
    assert proc.returncode == 0, proc.stderr
    tcl = out.read_text(encoding="utf-8").splitlines()
    assert "$agent_(0) set SndrType_ 1" in tcl
    assert "set app_(0) [new Application/Traffic/CBR]" in tcl
    stops = [line for line in tcl if line.endswith(' stop"')]
    assert stops == ['$ns_ at 59.999999999 "$app_(0) stop"', '$ns_ at 60.0 "$agent_(0) stop"']
    # FTP over TFRC keeps the bulk agent, stopped at the agent.
    ftp = tmp_path / "ftp.tcl"
    bulk = Path(__file__).parents[1] / "benches" / "scenarios" / "tfrc_chain4.toml"
    proc = cli("export", "ns2", bulk, "-o", ftp)
    assert proc.returncode == 0, proc.stderr
    text = ftp.read_text(encoding="utf-8")
    assert "SndrType_" not in text
    assert [line for line in text.splitlines() if line.endswith(' stop"')] == [
        '$ns_ at 100.0 "$agent_(0) stop"'
    ]


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (("flows.0.transport=tfrc", "flows.0.transfer_bytes=5120"), "TFRC flows send until"),
        (("flows.0.transport=udp",), '"tcp", "tfrc" or "sctp"'),
    ],
)
def test_what_tfrc_cannot_do_is_refused_clearly(
    tmp_path: Path, sets: tuple[str, ...], message: str
):
    bulk = tmp_path / "bulk.toml"
    bulk.write_text(
        "\n".join(
            [
                'name = "bulk"',
                "duration_s = 10.0",
                "[nodes]",
                "count = 2",
                'placement = "chain"',
                "[[flows]]",
                "src = 0",
                "dst = 1",
                'transport = "tcp"',
                'app = "ftp"',
                "",
            ]
        ),
        encoding="utf-8",
    )
    args = [a for s in sets for a in ("--set", s)]
    line = assert_clean_error(cli("validate", bulk, *args))
    assert message in line
