"""SCTP associations through the Python API, the command line, captures and
the animation."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import manetsim
from manetsim import animate, plots

from helpers import EXAMPLES, assert_clean_error, cli

QUICKSTART = EXAMPLES / "quickstart.toml"
OVER_SCTP = {"flows.0.transport": "sctp", "routing.protocol": "aodv"}
SHORT = {**OVER_SCTP, "duration_s": 20, "flows.0.stop_s": 20}


def test_a_cbr_flow_over_sctp_delivers_in_order_and_reports_the_senders_state():
    result = manetsim.run(QUICKSTART, overrides=OVER_SCTP)
    flow = result.flows.iloc[0]
    assert flow["transport"] == "sctp"
    # 100 kbit/s of 512-byte messages over 5 hops: all arrive, in order.
    assert flow["received"] >= 0.99 * flow["sent"] > 1400
    assert flow["delivered_in_order_bytes"] == flow["received_bytes"]
    series = result.timeseries("sctp")
    assert list(series.columns) == [
        "t_s",
        "flow",
        "cwnd_bytes",
        "ssthresh_bytes",
        "flight_bytes",
        "srtt_ms",
        "rto_ms",
        "retransmissions",
    ]
    assert series["t_s"].is_monotonic_increasing
    assert series["cwnd_bytes"].iloc[0] == 4380  # RFC 4960's initial cwnd
    assert series["rto_ms"].iloc[0] == 3000.0
    assert result.timeseries("tcp").empty


def test_the_sctp_cwnd_figure_is_drawn_for_sctp_flows(tmp_path: Path):
    result = manetsim.run(QUICKSTART, overrides=SHORT)
    names = [p.name for p in plots.write_figures(result, tmp_path)]
    assert "sctp_cwnd.png" in names
    assert "cwnd.png" not in names
    assert "rate.png" not in names


def test_the_cli_runs_sctp_and_export_refuses_it_naming_the_key(tmp_path: Path):
    sets = ("--set", "flows.0.transport=sctp", "--set", "routing.protocol=aodv")
    proc = cli("run", QUICKSTART, *sets, "--set", "duration_s=10", "--set", "flows.0.stop_s=10")
    assert proc.returncode == 0, proc.stderr
    line = assert_clean_error(cli("export", "ns2", QUICKSTART, *sets, "-o", tmp_path / "x.tcl"))
    assert "flows.0.transport" in line
    assert not (tmp_path / "x.tcl").exists()


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (("flows.0.transport=sctp", "flows.0.packet_size_bytes=1453"), "at most 1452 bytes"),
        (("flows.0.transport=sctp", "flows.0.transfer_bytes=5120"), "SCTP flows send until"),
    ],
)
def test_what_sctp_cannot_do_is_refused_clearly(sets: tuple[str, ...], message: str):
    args = [a for s in sets for a in ("--set", s)]
    line = assert_clean_error(cli("run", QUICKSTART, *args))
    assert message in line


def test_the_animation_counts_sctp_data_as_deliveries():
    result = manetsim.run(QUICKSTART, overrides=SHORT)
    data = animate.animation_data(QUICKSTART, overrides=SHORT)
    # DATA chunks at the sink, not its handshake chunks nor the SACKs.
    assert len(data["delivered_us"][0]) == result.flows.iloc[0]["received"] > 0


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_wireshark_dissects_sctp_with_valid_crc32c(tmp_path: Path):
    manetsim.run(QUICKSTART, overrides={**SHORT, "output.pcap": True}, pcap=tmp_path / "run")
    checks = ["-o", "ip.check_checksum:TRUE", "-o", "sctp.checksum:CRC 32c"]
    sink = str(tmp_path / "run-5.pcap")
    errors = subprocess.run(
        ["tshark", "-r", sink, *checks, "-Y", "_ws.expert.severity >= warning"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert errors == ""
    chunks = subprocess.run(
        ["tshark", "-r", sink, *checks, "-Y", "sctp", "-T", "fields", "-e", "sctp.chunk_type"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    # The sink receives INIT (1), answers INIT ACK (2), receives COOKIE
    # ECHO (10), answers COOKIE ACK (11); then DATA (0) in, SACKs (3) out.
    assert chunks[:4] == ["1", "2", "10", "11"]
    assert chunks.count("0") >= 400
    assert chunks.count("3") >= chunks.count("0") // 3
