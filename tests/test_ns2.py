"""ns-2 export, trace parsing and cross-check (ns-2 itself is optional)."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import manetsim
from manetsim import ns2

from helpers import EXAMPLES, REPO, assert_clean_error, cli

FIXTURES = REPO / "tests" / "fixtures"
QUICKSTART = EXAMPLES / "quickstart.toml"


def _export(*args: str) -> str:
    proc = cli("export", "ns2", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _export_chain3(*overrides: str) -> str:
    """The committed 3-node fixture's script, with each `--set` override."""
    return _export(
        str(FIXTURES / "ns2_chain3_aodv.toml"), *(a for o in overrides for a in ("--set", o))
    )


def _refused_chain3(*overrides: str) -> str:
    """The clean error refusing the 3-node fixture with each `--set` override."""
    proc = cli(
        "export",
        "ns2",
        FIXTURES / "ns2_chain3_aodv.toml",
        *(a for o in overrides for a in ("--set", o)),
    )
    return assert_clean_error(proc)


def test_quickstart_exports_to_a_structurally_complete_script():
    tcl = _export(str(QUICKSTART), "--set", "routing.protocol=aodv")
    # The world: six nodes, 802.11 and radio parameters, AODV, a trace.
    assert "set val(nn) 6" in tcl
    assert "set val(stop) 60.0" in tcl
    assert "-adhocRouting AODV" in tcl
    # ns-2's DropTail holds one packet fewer than its limit: 51 holds the
    # scenario's 50.
    assert "-ifqType Queue/DropTail/PriQueue -ifqLen 51" in tcl
    assert "Mac/802_11 set dataRate_ 2000000" in tcl
    assert "Mac/802_11 set basicRate_ 1000000" in tcl
    assert "Mac/802_11 set RTSThreshold_ 0" in tcl
    assert "Phy/WirelessPhy set RXThresh_ 3.652e-10" in tcl
    assert "Phy/WirelessPhy set CSThresh_ 1.559e-11" in tcl
    assert "-propType Propagation/TwoRayGround" in tcl
    assert "$ns_ trace-all $tracefd" in tcl
    assert "-agentTrace ON -routerTrace ON" in tcl
    # Positions: the chain, 200 m apart, from manetsim's trajectories.
    xs = [float(x) for x in re.findall(r"\$node_\(\d+\) set X_ (\S+)", tcl)]
    assert xs == [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
    # The flow: UDP CBR 0 -> 5, 512 B at 100 kbit/s from 1 s to 60 s.
    assert "[new Agent/UDP]" in tcl
    assert "$ns_ attach-agent $node_(0) $agent_(0)" in tcl
    assert "$ns_ attach-agent $node_(5) $sink_(0)" in tcl
    assert "$app_(0) set packetSize_ 512" in tcl
    assert "$app_(0) set rate_ 100000" in tcl
    assert '$ns_ at 1.0 "$app_(0) start"' in tcl
    # 1 ns early: ns-2's generator sums its intervals in floating point.
    assert '$ns_ at 59.999999999 "$app_(0) stop"' in tcl
    assert tcl.rstrip().endswith("$ns_ run")
    # Braces and brackets balance; with tclsh at hand, every command is complete.
    assert tcl.count("{") == tcl.count("}")
    assert tcl.count("[") == tcl.count("]")
    tclsh = shutil.which("tclsh")
    if tclsh is not None:
        check = subprocess.run(
            [tclsh],
            input=f"puts [info complete {{{tcl}}}]\n",
            capture_output=True,
            text=True,
            check=True,
        )
        assert check.stdout.strip() == "1"


@pytest.mark.parametrize(
    ("variant", "agent", "sink"),
    [
        ("tahoe", "Agent/TCP", "Agent/TCPSink"),
        ("reno", "Agent/TCP/Reno", "Agent/TCPSink"),
        ("newreno", "Agent/TCP/Newreno", "Agent/TCPSink"),
        ("sack", "Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
        ("vegas", "Agent/TCP/Vegas", "Agent/TCPSink"),
    ],
)
def test_tcp_variants_map_to_ns2_agents(variant: str, agent: str, sink: str):
    tcl = _export_chain3(f"flows.0.tcp.variant={variant}", "flows.0.tcp.window_packets=32")
    assert f"set agent_(0) [new {agent}]" in tcl
    assert f"set sink_(0) [new {sink}]" in tcl
    assert "$agent_(0) set window_ 32" in tcl
    assert "$agent_(0) set windowInit_ 2" in tcl
    assert "$agent_(0) set minrto_ 0.2" in tcl
    assert ("v_alpha_" in tcl) == (variant == "vegas")
    # ns-2.35's Vegas agent sends packetSize_ bytes with the headers in; the
    # others add 40: the same 512-byte segment on the air either way.
    size = 552 if variant == "vegas" else 512
    assert f"$agent_(0) set packetSize_ {size}" in tcl


def test_loss_after_the_mac_is_spliced_between_mac_and_ll():
    tcl = _export_chain3('loss=[{node = 1, rate = 0.05, packets = "all"}]')
    assert "set em_1 [make_err 0.05]" in tcl
    assert "[$node_(1) set mac_(0)] up-target $em_1" in tcl
    assert "$em_1 target [$node_(1) set ll_(0)]" in tcl


@pytest.mark.parametrize(
    ("variant", "name"), [("westwood", "Westwood+"), ("veno", "Veno"), ("cubic", "CUBIC")]
)
def test_variants_ns2_has_only_in_tcp_linux_are_refused_saying_why(variant: str, name: str):
    line = _refused_chain3(f"flows.0.tcp.variant={variant}")
    assert "key `flows.0.tcp.variant`" in line
    assert f"ns-2.35 has {name} only as a module of Agent/TCP/Linux" in line
    assert f"select_ca {variant}" in line


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        (["routing.protocol=static"], "routing.protocol"),
        (["flows.0.tcp.handshake=true"], "flows.0.tcp.handshake"),
        (["flows.0.tcp.variant=newveno"], "flows.0.tcp.variant"),
        (["flows.0.tcp.variant=tcp_ap"], "flows.0.tcp.variant"),
        (["flows.0.tcp.slow_start=hystart"], "flows.0.tcp.slow_start"),
        (["flows.0.tcp.slow_start=hystart++"], "flows.0.tcp.slow_start"),
        (["flows.0.tcp.frto=true"], "flows.0.tcp.frto"),
        (['loss=[{node = 1, rate = 0.05, packets = "data"}]'], "loss.0.packets"),
        (
            ['loss=[{node = 1, rate = 0.05, packets = "all", model = "gilbert_elliott"}]'],
            "loss.0.model",
        ),
        (["flows.0.transfer_bytes=5000"], "flows.0.transfer_bytes"),
        (["mac.standard=802.11b"], "mac.standard"),
        (["mac.standard=802.11a"], "mac.standard"),
        (['routing.aodv.preset="aodv_uu"'], "routing.aodv.preset"),
        (['routing.aodv.link_detection="hello"'], "routing.aodv.link_detection"),
        (["routing.aodv.local_repair=false"], "routing.aodv.local_repair"),
        (["routing.aodv.active_route_timeout_s=3.0"], "routing.aodv.active_route_timeout_s"),
        (["routing.aodv.gratuitous_rrep=true"], "routing.aodv.gratuitous_rrep"),
        (["routing.aodv.destination_only=true"], "routing.aodv.destination_only"),
        (
            ["routing.protocol=aomdv", "routing.aomdv.hello_interval_s=2.0"],
            "routing.aomdv.hello_interval_s",
        ),
    ],
)
def test_what_ns2_cannot_run_is_refused_naming_the_key(overrides: list[str], key: str):
    args = [arg for o in overrides for arg in ("--set", o)]
    proc = cli("export", "ns2", FIXTURES / "ns2_chain3_aodv.toml", *args)
    line = assert_clean_error(proc)
    assert "ns2_chain3_aodv.toml" in line
    assert f"key `{key}`" in line


@pytest.mark.parametrize(
    ("pace", "rate"),
    [
        ("interval_s = 0.25", "16384"),
        ("interval_s = 0.3", "13653.333333333334"),
        ("rate_bps = 100000.5", "100000.5"),
    ],
)
def test_a_cbr_flow_paced_by_interval_or_fractional_rate_exports_its_rate(
    tmp_path: Path, pace: str, rate: str
):
    # ns-2's CBR sends every packetSize_ x 8 / rate_ seconds: the same gaps as
    # manetsim's interval_s, or its rate_bps to the digit.
    text = QUICKSTART.read_text()
    scenario = tmp_path / "paced.toml"
    scenario.write_text(re.sub(r"(?m)^rate_bps = .*$", pace, text))
    tcl = _export(str(scenario), "--set", "routing.protocol=aodv")
    assert "$app_(0) set packetSize_ 512" in tcl
    assert f"$app_(0) set rate_ {rate}\n" in tcl


def test_cbr_over_vegas_keeps_its_gaps_with_the_headers_in_packetsize():
    # ns-2.35's Vegas agent sends packetSize_ bytes with the headers in (552
    # for a 512-byte segment): the application's rate_ grows to keep the gaps.
    tcl = _export_chain3(
        'flows.0.app="cbr"',
        "flows.0.rate_bps=40960",
        "flows.0.tcp.variant=vegas",
        "flows.0.tcp.limited_transmit=false",
    )
    # 512 B at 40,960 bit/s: every 0.1 s, so 552 B every 0.1 s is 44,160 bit/s.
    assert "$app_(0) set packetSize_ 552" in tcl
    assert "$app_(0) set rate_ 44160\n" in tcl


@pytest.mark.parametrize("variant", ["newreno", "sack", "vegas"])
@pytest.mark.parametrize("start_rule", ["window", "ns2"])
def test_a_finite_transfer_asks_ns2_for_its_packets(variant: str, start_rule: str):
    # Ten 512-byte packets. With syn_ true ns-2.35's agents but Vegas's send a
    # SYN first and raise curseq_ by one for it: producemore 9 sends the SYN
    # and nine data packets (measured), so ten are asked for either way.
    tcl = _export_chain3(
        "flows.0.transfer_bytes=5120",
        f"flows.0.tcp.variant={variant}",
        "flows.0.tcp.limited_transmit=false",
        f"flows.0.tcp.start_rule={start_rule}",
    )
    assert '$ns_ at 1.0 "$app_(0) producemore 10"' in tcl
    assert '"$app_(0) start"' not in tcl
    syn = "true" if start_rule == "ns2" else "false"
    assert f"$agent_(0) set syn_ {syn}\n$agent_(0) set delay_growth_ {syn}\n" in tcl


def test_a_one_packet_transfer_is_exported():
    tcl = _export_chain3("flows.0.transfer_bytes=512", "flows.0.tcp.start_rule=ns2")
    assert '$ns_ at 1.0 "$app_(0) producemore 1"' in tcl


def test_ns2s_tcp_overrides_start_one_way_flows_as_its_agents_do():
    chain = FIXTURES / "ns2_chain3_aodv.toml"
    assert ns2.tcp_overrides(chain)["flows.0.tcp.start_rule"] == "ns2"
    assert ns2.tcp_overrides(chain, tcp="standard")["flows.0.tcp.start_rule"] == "window"
    # A flow with the handshake keeps its start (ns2's rule needs none).
    with_handshake = ns2.tcp_overrides(chain, ["flows.0.tcp.handshake=true"])
    assert "flows.0.tcp.start_rule" not in with_handshake


def test_export_writes_the_file_atomically(tmp_path: Path):
    out = tmp_path / "run.tcl"
    proc = cli("export", "ns2", FIXTURES / "ns2_chain3_aodv.toml", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("# Generated by manetsim")
    assert list(tmp_path.iterdir()) == [out]


def test_export_to_a_dash_prints_the_script(tmp_path: Path):
    # `-o -` is stdout, as Unix tools take it, not a file named "-".
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    proc = cli("export", "ns2", fixture.resolve(), "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Generated by manetsim")
    assert list(tmp_path.iterdir()) == []


def test_export_traces_ns2s_mac_only_when_asked(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    assert "-macTrace OFF" in ns2.export_tcl(fixture)
    out = tmp_path / "run.tcl"
    proc = cli("export", "ns2", fixture, "--mac-trace", "-o", out)
    assert proc.returncode == 0, proc.stderr
    tcl = out.read_text()
    assert "-agentTrace ON -routerTrace ON" in tcl
    assert "-macTrace ON -movementTrace OFF" in tcl
    # A script for timing traces nothing, MAC included.
    untraced = ns2.export_tcl(fixture, tracing=False, mac_trace=True)
    assert "-macTrace OFF" in untraced


def test_the_trace_parser_reads_the_committed_ns2_trace():
    # tests/fixtures/ns2_chain3_aodv.tr: ns-2.35 running the export of
    # ns2_chain3_aodv.toml (TCP NewReno 0 -> 2 and CBR 2 -> 0 over AODV, 2 s).
    # Expected counts from grep: 99 `s ... AGT ... tcp`, 85 `r ... AGT ... tcp`,
    # of which one each is the agent's 40-byte SYN (`syn_ true`), not counted,
    # as manetsim does not count it; 5 / 4 for cbr, 4 router-level AODV sends
    # and forwards.
    stats = ns2.parse_trace(FIXTURES / "ns2_chain3_aodv.tr")
    tcp = stats.flows[(0, 0)]
    cbr = stats.flows[(2, 1)]
    assert (tcp.sent, tcp.received) == (98, 84)
    assert (cbr.sent, cbr.received) == (5, 4)
    assert tcp.received_bytes == 84 * 552
    # The AGT trace shows 276 (ns-2's AODV leaves its 20-byte IP header on,
    # DSR strips it): counted as manetsim does, 256 B + UDP and IP headers.
    assert cbr.received_bytes == 4 * 284
    # The first data packet left when the SYN's ACK came back.
    assert tcp.first_send_s == 1.019317893
    assert cbr.first_send_s == 1.5
    assert tcp.throughput_kbps == pytest.approx(84 * 552 * 8 / (1.985987893 - 1.019317893) / 1000)
    assert tcp.retransmissions == 0
    assert tcp.delay_ms == pytest.approx(107.616, abs=0.001)
    assert cbr.delay_ms == pytest.approx(118.003, abs=0.001)
    assert stats.routing_packets == 4
    assert stats.routing_by_message == {"rreq": 2, "rrep": 2}
    # Node 1 relays node 0's request (with its own IP source: `s`) and
    # passes node 2's reply on (`f`).
    assert stats.routing_forwarded_by_message == {"rreq": 1, "rrep": 1}
    assert stats.lines == 1139
    assert stats.drops == {"IFQ:END": 19}


def test_dsr_and_dsdv_trace_lines_are_told_apart_by_message(tmp_path: Path):
    # ns-2.35's DSR prints its header's flags after the IP field:
    # N [request id] [reply id len from->to] [error n type from->to].
    ip = "[0:255 5:255 32 0]"
    trace = tmp_path / "dsr.tr"
    trace.write_text(
        f"s 1.0 _0_ RTR  --- 1 DSR 32 [0 0 0 0] ------- {ip} 1 [1 6] [0 6 0 0->0] "
        "[0 0 0 0->0]\n"
        f"f 1.1 _1_ RTR  --- 1 DSR 48 [0 0 0 0] ------- {ip} 2 [1 6] [0 6 0 0->0] "
        "[1 1 0 1->2]\n"
        f"s 1.2 _2_ RTR  --- 2 DSR 44 [0 0 0 0] ------- {ip} 3 [0 6] [1 6 3 2->0] "
        "[0 0 0 0->0]\n"
        f"s 1.3 _1_ RTR  --- 3 DSR 44 [0 0 0 0] ------- {ip} 2 [0 0] [0 0 0 0->0] "
        "[1 1 0 1->2]\n"
        "s 1.4 _1_ RTR  --- 4 message 32 [0 0 0 0] ------- [1:255 -1:255 32 0]\n"
        "s 1.5 _1_ RTR  --- 5 DSR 44 [0 0 0 0] ------- [1:255 0:255 32 0] 2\n"
        # An unknown-flow error: ns-2.35 prints none of its flags.
        f"s 1.6 _3_ RTR  --- 6 DSR 44 [0 0 0 0] ------- {ip} 0 [0 0] [0 0 0 0->0] "
        "[0 0 0 0->0]\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.routing_packets == 7
    assert stats.routing_by_message == {"rreq": 2, "rrep": 1, "rerr": 2, "update": 1}
    # DSR's relays keep the source: `f` is a relayed packet.
    assert stats.routing_forwarded_by_message == {"rreq": 1, "rrep": 0, "rerr": 0, "update": 0}


def test_the_parser_counts_tfrc_packets_as_manetsim_does(tmp_path: Path):
    # Debian's ns-2.35 over AODV: Agent/TFRC adds its 32-byte header to a
    # 512-byte packet (544 at the agent), AODV an IP header (564 at the
    # sink); its feedback (`tcpFriendCtl`) is not data. manetsim counts the
    # payload and 40 header bytes, 552.
    fwd, back = "[0:0 3:0 32 0]", "[3:0 0:0 32 0]"
    mac = "[13a 3 2 800] -------"
    trace = tmp_path / "tfrc.tr"
    trace.write_text(
        f"s 1.0 _0_ AGT  --- 0 tcpFriend 544 [0 0 0 0] ------- {fwd} \n"
        f"r 1.05 _3_ AGT  --- 0 tcpFriend 564 {mac} {fwd} \n"
        f"s 1.05 _3_ AGT  --- 1 tcpFriendCtl 40 [0 0 0 0] ------- {back} \n"
        f"s 1.1 _0_ AGT  --- 2 tcpFriend 544 [0 0 0 0] ------- {fwd} \n"
        f"r 1.15 _3_ AGT  --- 2 tcpFriend 564 {mac} {fwd} \n"
    )
    flow = ns2.parse_trace(trace).flows[(0, 0)]
    assert (flow.sent, flow.received) == (2, 2)
    assert flow.received_bytes == 2 * 552
    assert flow.throughput_kbps == pytest.approx(2 * 552 * 8 / 0.15 / 1000)


def test_the_parser_counts_sctp_data_chunks_only(tmp_path: Path):
    # Lines as Debian's ns-2.35 writes them for Agent/SCTP: the handshake
    # (`I`), heartbeats (`H`, `B`), DATA (`D`: chunks, type, TSN, stream,
    # SSN) and SACKs (`S`); TSN 3 is sent twice and delivered twice.
    fwd, back = "[0:0 3:0 32 0]", "[3:0 0:0 32 0]"
    mac = "[13a 3 2 800] -------"
    trace = tmp_path / "sctp.tr"
    trace.write_text(
        f"s 1.0 _0_ AGT  --- 1 sctp 56 [0 0 0 0] ------- {fwd} [1 I -1 65535 65535] 0 0\n"
        f"r 1.1 _3_ AGT  --- 1 sctp 76 {mac} {fwd} [1 I -1 65535 65535] 3 0\n"
        f"s 1.1 _3_ AGT  --- 2 sctp 56 [0 0 0 0] ------- {back} [1 I -1 65535 65535] 0 0\n"
        f"s 1.2 _0_ AGT  --- 3 sctp 56 [0 0 0 0] ------- {fwd} [1 H -1 65535 65535] 0 0\n"
        f"s 1.3 _0_ AGT  --- 4 sctp 1048 [0 0 0 0] ------- {fwd} [1 D 2 0 1] 0 0\n"
        f"s 1.3 _0_ AGT  --- 5 sctp 1048 [0 0 0 0] ------- {fwd} [1 D 3 0 2] 0 0\n"
        f"r 1.4 _3_ AGT  --- 4 sctp 1068 {mac} {fwd} [1 D 2 0 1] 3 0\n"
        f"r 1.5 _3_ AGT  --- 5 sctp 1068 {mac} {fwd} [1 D 3 0 2] 3 0\n"
        f"s 1.5 _3_ AGT  --- 6 sctp 48 [0 0 0 0] ------- {back} [1 S 3 65535 65535] 0 0\n"
        f"s 4.5 _0_ AGT  --- 7 sctp 1048 [0 0 0 0] ------- {fwd} [1 D 3 0 2] 0 0\n"
        f"r 4.6 _3_ AGT  --- 7 sctp 1068 {mac} {fwd} [1 D 3 0 2] 3 0\n"
    )
    stats = ns2.parse_trace(trace)
    flow = stats.flows[(0, 0)]
    assert (flow.sent, flow.received, flow.retransmissions) == (3, 2, 1)
    # The agent's sizes count IP's and SCTP's headers, as manetsim's do.
    assert flow.received_bytes == 2 * 1048
    assert flow.delays_s == pytest.approx([0.1, 0.2])
    assert (3, 0) not in stats.flows, "SACKs are not a flow's data"


def test_a_bundle_of_chunks_sent_again_counts_as_one_retransmission(tmp_path: Path):
    # ns-2.35 names a bundle by its last TSN: TSNs 1-6 left as packet 6,
    # 7-12 as packet 12; TSNs 4-9 sent again leave as packet 9, a TSN that
    # named no packet, but whose chunks were all sent before (as manetsim
    # counts it). Then 13-18 as packet 18, new.
    fwd = "[0:0 3:0 32 0]"
    lines = [
        f"s {t} _0_ AGT  --- {uid} sctp 1328 [0 0 0 0] ------- {fwd} [1 D {tsn} 0 1] 0 0"
        for t, uid, tsn in [(1.0, 1, 6), (1.1, 2, 12), (2.0, 3, 9), (2.1, 4, 18)]
    ]
    trace = tmp_path / "bundles.tr"
    trace.write_text("\n".join(lines) + "\n")
    flow = ns2.parse_trace(trace).flows[(0, 0)]
    assert (flow.sent, flow.retransmissions) == (4, 1)


def test_aodv_route_errors_sent_at_a_drops_instant_are_originated(tmp_path: Path):
    # ns-2.35's AODV originates a route error unjittered, at the instant of the
    # drop that caused it (`RTR CBK` after a failure, `RTR NRTE` with no
    # route); it relays one up to 10 ms after receiving it.
    err = "[0x8 1 [4 3] 0.000000] (ERROR)"
    trace = tmp_path / "aodv.tr"
    trace.write_text(
        "D 5.000000000 _3_ RTR  CBK 7 cbr 532 [0 0 0 0] ------- [0:0 4:0 29 4]\n"
        f"s 5.000000000 _3_ RTR  --- 0 AODV 32 [0 0 0 0] ------- [3:255 -1:255 1 0] {err}\n"
        f"r 5.001000000 _2_ RTR  --- 0 AODV 32 [0 0 3 800] ------- [3:255 -1:255 1 0] {err}\n"
        # Another node's drop at the relayed error's instant does not count.
        "D 5.004200000 _7_ RTR  NRTE 9 cbr 532 [0 0 0 0] ------- [0:0 4:0 29 0]\n"
        f"s 5.004200000 _2_ RTR  --- 0 AODV 32 [0 0 0 0] ------- [2:255 -1:255 1 0] {err}\n"
        f"s 6.000000000 _5_ RTR  --- 0 AODV 32 [0 0 0 0] ------- [5:255 -1:255 1 0] {err}\n"
        "D 6.000000000 _5_ RTR  NRTE 11 cbr 532 [0 0 0 0] ------- [0:0 4:0 29 0]\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.routing_by_message == {"rerr": 3}
    assert stats.routing_forwarded_by_message == {"rerr": 1}


def test_aomdv_lines_are_counted_by_the_type_before_their_closing_pair(tmp_path: Path):
    # ns-2.35's AOMDV lines (as its `ns` writes them): a reply, an error and a
    # HELLO go on after the type with `[a b]`; a request ends with it.
    ip = "[0:255 -1:255 30 0]"
    trace = tmp_path / "aomdv.tr"
    trace.write_text(
        f"s 1.0 _0_ RTR  --- 0 AOMDV 52 [0 0 0 0] ------- {ip} [0x2 0 1 [5 0] [0 4]] "
        "(REQUEST)\n"
        "s 1.001 _1_ RTR  --- 0 AOMDV 52 [0 ffffffff 0 800] ------- [1:255 -1:255 29 0] "
        "[0x2 1 1 [5 0] [0 4]] (REQUEST)\n"
        "s 1.01 _5_ RTR  --- 0 AOMDV 52 [0 0 0 0] ------- [5:255 0:255 30 4] "
        "[0x4 0 [5 2] 10.000000] (REPLY) [1 4]\n"
        "f 1.02 _4_ RTR  --- 0 AOMDV 52 [13a 4 5 800] ------- [5:255 0:255 29 3] "
        "[0x4 1 [5 2] 10.000000] (REPLY) [1 4]\n"
        "s 1.1 _4_ RTR  --- 0 AOMDV 44 [0 0 0 0] ------- [4:255 -1:255 1 0] "
        "[0x1 0 [4 2] 4.000000] (HELLO) [0 0]\n"
        "s 6.0 _1_ RTR  --- 0 AOMDV 32 [0 0 0 0] ------- [1:255 -1:255 1 0] "
        "[0x8 1 [0 0] 0.000000] (ERROR) [0 0]\n"
        "r 6.002 _0_ RTR  --- 0 AOMDV 32 [0 ffffffff 1 800] ------- [1:255 -1:255 1 0] "
        "[0x8 1 [0 0] 0.000000] (ERROR) [0 0]\n"
        "s 6.0071 _0_ RTR  --- 0 AOMDV 32 [0 0 0 0] ------- [0:255 -1:255 1 0] "
        "[0x8 1 [0 0] 0.000000] (ERROR) [0 0]\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.routing_packets == 7
    assert stats.routing_by_message == {"rreq": 2, "rrep": 2, "hello": 1, "rerr": 2}
    # Relayed: a request sent by a node other than its originator (relays
    # send it with their own IP source), a reply passed on (`f`: relays keep
    # the source of the node that answered); HELLOs are never relayed; an
    # error sent at a neighbour-purge tick (a whole second) was originated
    # there, one sent at another instant with no drop beside it relayed.
    relayed = stats.routing_forwarded_by_message
    assert relayed == {"rreq": 1, "rrep": 1, "hello": 0, "rerr": 1}


def test_dsr_flow_state_lines_are_counted_as_manetsim_names_them(tmp_path: Path):
    # ns-2.35's DSR traces each flow-state event on a line of its own.
    trace = tmp_path / "flows.tr"
    trace.write_text(
        "SFESTs 1.0 _0_ 7 [0 -> 5] 1(1) to 1 [0 |1 2 3 4 5 ]\n"
        "SFs 1.1 _0_ 8 [0 -> 5] 1(0) to 1 \n"
        "SFs 1.2 _0_ 9 [0 -> 5] 1(0) to 1 \n"
        "SFf 1.3 _1_ 8 [0 -> 5] 1 to 2\n"
        "SFErr 1.4 _2_ 0 -> 5 : 3\n"
        "SFEr 1.5 _0_ from 2 re 5 : 3 [0]\n"
        "Ssalv 1.6 _2_ salvaging 0 -> 5 --- 9 with [2 4 5]\n"
        # Flow 1 advertised again; node 0's flow 3 and node 4's flow 1 new.
        "SFESTs 6.0 _0_ 20 [0 -> 5] 1(1) to 1 [0 |1 2 3 4 5 ]\n"
        "SFESTs 6.1 _0_ 21 [0 -> 5] 3(1) to 4 [0 |4 5 ]\n"
        "SFESTs 6.2 _4_ 22 [4 -> 0] 1(1) to 0 [4 |0 ]\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.flow_state == {
        "established": 4,
        "by_flow": 2,
        "forwarded": 1,
        "unknown": 1,
        "opened": 3,
    }
    assert stats.routing_packets == 0
    figures = ns2._ns2_figures(stats, "")
    assert figures["flow_state.by_flow"] == 2.0
    ours = ns2._manetsim_figures(
        {
            "routing": {
                "protocol": "dsr",
                "packets_sent": 0,
                "by_message": {},
                "flow_state": {
                    "established": 3,
                    "by_flow": 4,
                    "forwarded": 5,
                    "unknown": 0,
                    "opened": 1,
                },
            },
            "drops": {},
            "flows": [],
        }
    )
    assert ours["flow_state.forwarded"] == 5.0
    assert ours["flow_state.unknown"] == 0.0
    assert ours["flow_state.opened"] == 1.0
    trace.write_text("SFESTs 1.0 _0_ 7 [0 -> 5]\n")
    with pytest.raises(ValueError, match=r"flows.tr:1: an SFESTs line has too few fields"):
        ns2.parse_trace(trace)


def test_crosscheck_compares_messages_and_drops_as_named_alike():
    ours = ns2.Side(
        per_seed=[
            {"routing.rreq": 3.0, "routing.rrep": 5.0, "drops.arp": 1.0},
            {"routing.rreq": 1.0, "routing.rerr": 2.0, "drops.arp": 0.0},
        ]
    )
    theirs = ns2.Side(per_seed=[{"routing.rreq": 4.0, "drops.arp": 2.0}, {}])
    rows = {k: (a, b) for k, a, b, _ in ns2.summarize_sides(ours, theirs)}
    assert rows == {
        "routing.rreq": (2.0, 2.0),
        "routing.rrep": (2.5, 0.0),
        "drops.arp": (0.5, 1.0),
        "routing.rerr": (1.0, 0.0),
    }
    figures = ns2._manetsim_figures(
        {
            "routing": {
                "packets_sent": 9,
                "by_message": {
                    "rrep": {"packets": 4, "bytes": 0, "forwarded": 3},
                    "grat_rrep": {"packets": 2, "bytes": 0, "forwarded": 0},
                    "update_full": {"packets": 1, "bytes": 0},
                    "update_incremental": {"packets": 2, "bytes": 0},
                },
            },
            "drops": {"queue_full": 7, "arp": 3, "route_buffer_full": 1, "route_buffer_timeout": 2},
            "flows": [],
        }
    )
    assert figures == {
        "routing_packets": 9.0,
        "routing.rrep": 6.0,
        "routing.rrep.forwarded": 3.0,
        "routing.update": 3.0,
        "drops.queue_full": 7.0,
        "drops.arp": 3.0,
        "drops.route_buffer": 3.0,
    }


def test_a_full_priqueue_counts_as_a_full_interface_queue(tmp_path: Path):
    # ns-2.35's PriQueue (AODV, AOMDV, DSDV) drops with no reason ("---"),
    # its CMUPriQueue (DSR) with "IFQ"; packets left queued at the end are
    # "END" and no loss of the run.
    trace = tmp_path / "queue.tr"
    ip = "[0 0 0 0] ------- [3:0 5:0 32 5] [0] 0 0"
    trace.write_text(
        f"D 2.0 _3_ IFQ  --- 7 cbr 532 {ip}\n"
        f"D 2.1 _3_ IFQ  --- 8 cbr 532 {ip}\n"
        f"D 2.2 _4_ IFQ  IFQ 9 cbr 532 {ip}\n"
        f"D 30.0 _4_ IFQ  END 10 cbr 532 {ip}\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.drops == {"IFQ:---": 2, "IFQ:IFQ": 1, "IFQ:END": 1}
    assert ns2._ns2_figures(stats, "")["drops.queue_full"] == 3.0


def test_a_packet_aodv_held_past_its_timeout_vanished_and_counts_as_a_route_buffer_drop(
    tmp_path: Path,
):
    # ns-2.35's AODV and AOMDV unlink a packet that waited 30 s for a route
    # and trace nothing (`aodv_rqueue::purge` calls no `drop`). A packet a
    # routing agent took in (`r ... RTR`) and no later line shows, 30 s or
    # more before the trace ends, is counted as that loss; one sent on,
    # dropped or delivered is not, nor one taken in during the last 30 s
    # (still waiting at the end), nor another node's MAC line of it.
    ip = "------- [3:0 5:0 32 0] [0 0] 0 0"
    trace = tmp_path / "vanished.tr"
    trace.write_text(
        # Waits at its source for ever: vanished.
        f"s 1.0 _3_ AGT  --- 7 tcp 552 [0 0 0 0] {ip}\n"
        f"r 1.0 _3_ RTR  --- 7 tcp 552 [0 0 0 0] {ip}\n"
        # Waits at a relay, is sent on later.
        f"r 2.0 _4_ RTR  --- 8 tcp 552 [13a 4 3 800] {ip}\n"
        f"f 9.0 _4_ RTR  --- 8 tcp 552 [13a 4 3 800] {ip}\n"
        # Dropped when the discovery gave up (traced).
        f"r 3.0 _3_ RTR  --- 9 ack 40 [0 0 0 0] {ip}\n"
        f"D 20.0 _3_ RTR  NRTE 9 ack 40 [0 0 0 0] {ip}\n"
        # A relay that never heard it again: only another node's MAC did.
        f"r 4.0 _6_ RTR  --- 10 tcp 552 [13a 6 3 800] {ip}\n"
        f"D 4.5 _2_ MAC  COL 10 tcp 610 [13a 6 3 800] {ip}\n"
        # Taken in 29 s before the end: still waiting.
        f"r 11.0 _3_ RTR  --- 11 tcp 552 [0 0 0 0] {ip}\n"
        # A gateway's packet, on over the wire to a host.
        f"r 6.0 _1_ RTR  --- 13 tcp 552 [13a 1 3 800] {ip}\n"
        "+ 6.001 1 3 tcp 552 ------- 0 0.0.0.0 1.0.0.0 5 13\n"
        # A routing agent's own packet is no flow's data.
        "r 5.0 _3_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [3:255 -1:255 30 0] "
        "[0x2 1 1 [5 0] [3 4]] (REQUEST)\n"
        f"s 40.0 _3_ AGT  --- 12 tcp 552 [0 0 0 0] {ip}\n"
    )
    stats = ns2.parse_trace(trace)
    assert stats.drops["RTR:vanished"] == 2
    assert ns2._ns2_figures(stats, "")["drops.route_buffer"] == 2.0
    # manetsim traces the same loss (`RTR TOUT`): nothing vanishes there.
    kept = tmp_path / "kept.tr"
    kept.write_text(
        f"r 1.0 _3_ RTR  --- 7 tcp 552 [0 0 0 0] {ip}\n"
        f"D 31.0 _3_ RTR  TOUT 7 tcp 552 [0 0 0 0] {ip}\n"
        f"s 40.0 _3_ AGT  --- 12 tcp 552 [0 0 0 0] {ip}\n"
    )
    assert ns2.parse_trace(kept).drops == {"RTR:TOUT": 1}


def test_energy_consumed_is_compared_from_ns2s_own_figures_at_the_end():
    # The export has ns-2.35 print each node's initial and remaining energy
    # when the run ends (`$node energy`); the crosscheck adds up what every
    # node used, as manetsim's result does.
    tcl = _export_chain3("energy.initial_j=50", "energy.tx_w=0.6", "energy.rx_w=0.3")
    assert 'puts "manetsim-energy $i 50.0 [$node_($i) energy]"' in tcl
    assert tcl.index("manetsim-energy") < tcl.index("close $tracefd")
    assert "manetsim-energy" not in _export_chain3()
    stdout = "manetsim-flow 0 0 0\nmanetsim-energy 0 50.0 49.75\nmanetsim-energy 1 50.0 49.5\n"
    empty = ns2.TraceStats(flows={}, routing_packets=0, lines=0, drops={})
    theirs = ns2._ns2_figures(empty, stdout)
    assert theirs["energy.consumed_j"] == pytest.approx(0.75)
    assert "energy.consumed_j" not in ns2._ns2_figures(empty, "manetsim-flow 0 0 0\n")
    result = {"routing": {"packets_sent": 0, "by_message": {}}, "drops": {}, "flows": []}
    assert "energy.consumed_j" not in ns2._manetsim_figures(result)
    # A run without an energy model reports empty lists.
    no_model = {**result, "energy": {"consumed_j": [], "remaining_j": []}}
    assert "energy.consumed_j" not in ns2._manetsim_figures(no_model)
    ours = ns2._manetsim_figures({**result, "energy": {"consumed_j": [0.25, 0.5]}})
    assert ours["energy.consumed_j"] == pytest.approx(0.75)


def test_idle_power_is_a_known_difference_ns2_charges_lazily():
    fixture = str(FIXTURES / "ns2_chain3_aodv.toml")
    like = ns2.like_ns2_overrides(fixture)
    with_energy = {**like, "energy.initial_j": 50.0}
    assert ns2.known_differences(fixture, with_energy) == []
    notes = ns2.known_differences(fixture, {**with_energy, "energy.idle_w": 0.1})
    assert len(notes) == 1
    assert notes[0].startswith("energy.idle_w is 0.1:")
    assert "--set energy.idle_w=0" in notes[0]


def test_crosscheck_adds_every_flow_together_alike_on_both_sides(tmp_path: Path):
    flows = [
        {"sent": 10, "received": 8, "delay_ms": 50.0},
        {"sent": 10, "received": 2, "delay_ms": 200.0},
        {"sent": 5, "received": 0, "delay_ms": 0.0},
    ]
    for flow in flows:
        flow.update({m: 0.0 for m in ns2.METRICS if m != "delay_ms"})
    ours = ns2._manetsim_figures(
        {"routing": {"packets_sent": 0, "by_message": {}}, "drops": {}, "flows": flows}
    )
    assert ours["flows.sent"] == 25.0
    assert ours["flows.received"] == 10.0
    assert ours["flows.delivery_pct"] == 40.0
    # Every received packet weighs the same: (8 x 50 + 2 x 200) / 10.
    assert ours["flows.delay_ms"] == pytest.approx(80.0)

    trace = tmp_path / "two.tr"
    lines = []
    for uid, (src, sent_s, got_s) in enumerate(
        [(0, 1.0, 1.05), (0, 2.0, 2.05), (1, 1.0, 1.2), (1, 2.0, None)]
    ):
        ip = f"[0 0 0 0] ------- [{src}:0 9:0 32 9] [0] 0 0"
        lines.append(f"s {sent_s} _{src}_ AGT  --- {uid} cbr 512 {ip}")
        if got_s is not None:
            lines.append(f"r {got_s} _9_ AGT  --- {uid} cbr 540 {ip}")
    trace.write_text("\n".join(lines) + "\n")
    theirs = ns2._ns2_figures(ns2.parse_trace(trace), "manetsim-flow 0 0 0\nmanetsim-flow 1 1 0\n")
    assert (theirs["flows.sent"], theirs["flows.received"]) == (4.0, 3.0)
    assert theirs["flows.delivery_pct"] == 75.0
    assert theirs["flows.delay_ms"] == pytest.approx((50 + 50 + 200) / 3)
    assert theirs["flow1.delay_ms"] == pytest.approx(200.0)


def test_crosscheck_json_is_strict_and_keeps_the_rows_asked_for():
    ours = ns2.Side(
        per_seed=[{"flows.delay_ms": 5.0, "flow0.delay_ms": 5.0, "flow0.jitter_ms": math.nan}],
        wall_s=[1.0],
        core_s=[0.5],
        cpu_s=[0.9],
    )
    theirs = ns2.Side(
        per_seed=[{"flows.delay_ms": 4.0, "flow0.delay_ms": 4.0}], wall_s=[9.0], cpu_s=[8.0]
    )
    rows = [r for r in ns2.summarize_sides(ours, theirs) if not ns2.is_per_flow_metric(r[0])]
    assert [r[0] for r in rows] == ["flows.delay_ms"]
    assert not ns2.is_per_flow_metric("flows.sent")
    assert ns2.is_per_flow_metric("flow12.loss_pct")
    out = ns2.crosscheck_json("s.toml", 1, ours, theirs, rows, ["a note"])
    assert out["manetsim"]["per_seed"] == [{"flows.delay_ms": 5.0}]
    assert out["ns2"]["cpu_s"] == [8.0]
    assert out["manetsim"]["core_s"] == [0.5]
    assert out["summary"] == [
        {
            "metric": "flows.delay_ms",
            "manetsim": 5.0,
            "ns2": 4.0,
            "ratio": 1.25,
            "manetsim_ci95": None,
            "ns2_ci95": None,
            "overlap": None,
        }
    ]
    everything = ns2.crosscheck_json(
        "s.toml", 1, ours, theirs, ns2.summarize_sides(ours, theirs), []
    )
    # NaN is not JSON: it is written as null.
    assert everything["manetsim"]["per_seed"][0]["flow0.jitter_ms"] is None
    json.loads(json.dumps(everything, allow_nan=False))


def test_crosscheck_gives_95_percent_intervals_across_seeds():
    ours = ns2.Side(per_seed=[{"d": 10.0, "routing.rrep": 3.0}, {"d": 14.0}])
    theirs = ns2.Side(per_seed=[{"d": 20.0, "routing.rrep": 1.0}, {"d": 26.0}])
    # Two seeds: mean 12, half-width t(0.975, 1) * s / sqrt(2) = 12.706 * 2.
    ha, hb, overlap = ns2.intervals(ours, theirs, "d")
    assert ha == pytest.approx(12.706 * 2.0)
    assert hb == pytest.approx(12.706 * 3.0)
    assert overlap is True
    # A count a seed lacks is 0 there: (3 + 0) / 2 = 1.5 ± 12.706 * 1.5.
    assert ns2.seed_values(ours, "routing.rrep") == [3.0, 0.0]
    assert ns2.intervals(ours, theirs, "routing.rrep")[0] == pytest.approx(12.706 * 1.5)
    # Tight intervals apart do not overlap; one seed tells nothing.
    ours = ns2.Side(per_seed=[{"d": 10.0}, {"d": 10.2}, {"d": 9.9}])
    theirs = ns2.Side(per_seed=[{"d": 20.0}, {"d": 20.1}, {"d": 19.8}])
    assert ns2.intervals(ours, theirs, "d")[2] is False
    one = ns2.Side(per_seed=[{"d": 1.0}])
    assert ns2.intervals(one, one, "d")[2] is None
    rows = ns2.summarize_sides(ours, theirs)
    out = ns2.crosscheck_json("s.toml", 3, ours, theirs, rows, [])
    assert out["summary"][0]["overlap"] is False
    assert out["summary"][0]["ns2_ci95"] == pytest.approx(ns2.intervals(ours, theirs, "d")[1])


def test_overlap_tally_counts_the_metrics_both_intervals_tell():
    ours = ns2.Side(per_seed=[{"a": 10.0, "b": 1.0, "c": 5.0}, {"a": 10.2, "b": 3.0}])
    theirs = ns2.Side(per_seed=[{"a": 20.0, "b": 2.0}, {"a": 20.1, "b": 2.5}])
    # "a": tight and apart; "b": overlapping; "c": one seed on one side and
    # none on the other, so no interval: not counted.
    assert ns2.overlap_tally(ours, theirs, ["a", "b", "c"]) == (2, ["a"])
    assert ns2.overlap_line(2, ["a"]) == "95 % intervals overlap for 1 of 2 metrics; apart: a"
    assert ns2.overlap_tally(ours, theirs, ["b"]) == (1, [])
    assert ns2.overlap_line(1, []) == "95 % intervals overlap for 1 of 1 metrics"


def test_a_seed_on_which_one_simulator_received_under_half_is_named():
    # As ns-2.35's SCTP on sctp_chain4's seed 8 (stuck on a full window).
    left_out = [(7, "ns-2 crashed on seed 7 (SIGSEGV)")]
    ours = ns2.Side(
        per_seed=[{"flows.received": 4168.0}, {"flows.received": 4217.0}], left_out=left_out
    )
    theirs = ns2.Side(
        per_seed=[{"flows.received": 4036.0}, {"flows.received": 311.0}], left_out=left_out
    )
    seeds = ns2.compared_seeds(3, 6, left_out)
    assert seeds == [6, 8]
    assert ns2.divergent_seeds(ours, theirs, seeds) == [(8, 4217.0, 311.0)]
    line = ns2.divergent_line(8, 4217.0, 311.0)
    assert line.startswith("seed 8: manetsim's flows received 4,217 packets, ns-2.35's 311")
    # Nothing delivered on either side is not apart; a figure missing is
    # not compared.
    none = ns2.Side(per_seed=[{"flows.received": 0.0}, {}])
    assert ns2.divergent_seeds(none, none, [1, 2]) == []
    out = ns2.crosscheck_json("s.toml", 3, ours, theirs, [], [], first=6)
    assert out["divergent"] == [{"seed": 8, "manetsim_received": 4217.0, "ns2_received": 311.0}]


def test_crosscheck_over_seeds_prints_intervals_and_overlap(tmp_path: Path):
    fake = str(_stand_in_ns(tmp_path))
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    proc = cli("crosscheck", fixture, "--seeds", "2", "--jobs", "2", "--ns", fake, "--totals-only")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "± 95 % confidence interval" in text
    assert "overlap" in text
    # The stand-in leaves the same trace for both seeds: ns-2's side is
    # exact, a half-width of 0.
    assert re.search(r"flows\.sent │ [\d.]+ ± [\d.]+ │ [\d.]+ ± 0 │", text)
    # Below the table, the tally of its overlap column.
    cells = [line.split("│")[-2].strip() for line in proc.stdout.splitlines() if "│" in line]
    yes, no = cells.count("yes"), cells.count("no")
    assert yes + no > 5
    assert f"95 % intervals overlap for {yes} of {yes + no} metrics" in proc.stdout
    one = cli("crosscheck", fixture, "--ns", fake, "--totals-only")
    assert "overlap" not in one.stdout
    assert "±" not in one.stdout


def test_crosscheck_names_a_seed_on_which_ns2_delivered_under_half(tmp_path: Path):
    # On seed 2 the stand-in's trace stops after its first lines, as a run
    # stuck early would: its flow received nothing there.
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    stuck = (
        f"  head -n 3 '{FIXTURES / 'ns2_chain3_aodv.tr'}' > trace.tr\n"
        "  echo 'manetsim-flow 0 0 0'; echo 'NS EXITING...'; exit 0\n"
    )
    fake = str(_stand_in_ns(tmp_path, "stuck-ns", 2, stuck))
    proc = cli("crosscheck", fixture, "--seeds", "2", "--ns", fake, "--totals-only")
    assert proc.returncode == 0, proc.stderr
    apart = [line for line in proc.stdout.splitlines() if line.startswith("apart:")]
    assert len(apart) == 1, proc.stdout
    assert apart[0].startswith("apart: seed 2: manetsim's flows received ")
    assert "ns-2.35's 0, under half the other's; --keep-traces DIR" in apart[0]


def test_crosscheck_runs_its_seeds_from_the_scenarios_seed(tmp_path: Path):
    fake = str(_stand_in_ns(tmp_path))
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    traces = tmp_path / "traces"
    args = ["--ns", fake, "--totals-only", "--keep-traces", traces, "--seeds", "2"]
    proc = cli("crosscheck", fixture, *args, "--json", "--set", "seed=7")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["seeds"] == [7, 8]
    assert sorted(p.name for p in traces.iterdir()) == ["seed-7", "seed-8"]
    # The scripts are the seeds' own: each with its seed in its header.
    assert "seed 7." in (traces / "seed-7" / "ns2.tcl").read_text()
    table = cli("crosscheck", fixture, "--ns", fake, "--totals-only", "--set", "seed=7")
    assert "mean of 1 seed(s) (7 to 7)" in " ".join(table.stdout.split())
    # Seeds past the largest are refused before anything runs.
    top = cli("crosscheck", fixture, "--ns", fake, "--seeds", "2", "--set", f"seed={2**63 - 1}")
    assert "--seeds 2: from seed 9223372036854775807" in assert_clean_error(top)
    # ns-2.35's MAC lines too, for a kept trace only.
    assert "-macTrace OFF" in (traces / "seed-7" / "ns2.tcl").read_text()
    mac = tmp_path / "mac"
    proc = cli("crosscheck", fixture, "--ns", fake, "--keep-traces", mac, "--mac-trace")
    assert proc.returncode == 0, proc.stderr
    assert "-macTrace ON" in (mac / "seed-1" / "ns2.tcl").read_text()
    # Both kept traces' MAC lines are counted side by side.
    cells = [[c.strip() for c in line.split("│")[1:4]] for line in proc.stdout.splitlines()]
    rows = {c[0]: c[1:] for c in cells if c and c[0].startswith("mac.")}
    assert {"mac.rts_sent", "mac.collided.rts", "mac.gave_up.data"} <= rows.keys()
    assert float(rows["mac.rts_sent"][0]) > 0, rows  # manetsim's trace has them
    assert float(rows["mac.rts_sent"][1]) == 0, rows  # the stand-in's fixture has none
    alone = cli("crosscheck", fixture, "--ns", fake, "--mac-trace")
    assert "--mac-trace: only with --keep-traces" in assert_clean_error(alone)


def test_mac_lines_are_counted_by_event_reason_and_frame(tmp_path: Path):
    # Lines as ns-2.35 writes them with -macTrace ON (rwp50 over DSR).
    trace = tmp_path / "mac.tr"
    trace.write_text(
        "\n".join(
            [
                "s 15.490686932 _17_ MAC  --- 0 RTS 44 [4b6 1f 11 0] ",
                "s 15.491364335 _17_ MAC  --- 5550 ack 118 [13a 1f 11 800] ------- "
                "[17:0 31:0 32 31] [1701 0] 0 0",
                "r 15.494370545 _31_ MAC  --- 0 RTS 44 [4b6 1f 11 0] ",
                "r 15.494370545 _17_ MAC  --- 0 CTS 38 [b7c 11 0 0] ",
                "D 4.398559911 _19_ MAC  COL 0 RTS 44 [436 13 8 0] ",
                "D 4.399575692 _44_ MAC  COL 522 DSR 210 [0 ffffffff 2e 800] ------- "
                "[15:255 44:255 32 0] 6 [1 2] [0 2 0 0->0] [0 0 0 0->0]",
                "D 4.407515386 _19_ MAC  COL 0 ARP 86 [0 ffffffff 2c 806] ------- "
                "[REQUEST 44/44 0/34]",
                "D 10.685476662 _31_ MAC  DUP 3047 ack 60 [13a 1f 11 800] ------- "
                "[17:0 31:0 32 31] [1225 0] 1 0",
                "D 6.000000000 _3_ MAC  RET 0 RTS 20 [4c6 4 3 0]",
                "D 6.000000000 _3_ MAC  RET 21 cbr 540 [13a 4 3 800] ------- "
                "[0:1 5:1 32 4] [9] 0 0",
                "D 6.000000000 _3_ RTR  CBK 21 cbr 540 [13a 4 3 800] ------- "
                "[0:1 5:1 32 4] [9] 0 0",
                "D 7.000000000 _3_ MAC  BSY 0 RTS 44 [4b6 3 11 0] ",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    counts = ns2.mac_line_counts(trace)
    assert counts == {
        "mac.rts_sent": 1,
        "mac.rts_received": 1,
        "mac.cts_received": 1,
        "mac.ack_received": 0,
        "mac.collided.rts": 1,
        "mac.collided.cts": 0,
        "mac.collided.ack": 0,
        "mac.collided.data": 2,
        "mac.busy": 1,
        "mac.duplicate": 1,
        "mac.gave_up.rts": 1,
        "mac.gave_up.data": 1,
    }


@pytest.mark.parametrize("jobs", [1, 2])
def test_crosscheck_reports_each_seed_as_it_finishes(tmp_path: Path, jobs: int):
    fake = str(_stand_in_ns(tmp_path))
    calls: list[tuple[int, int]] = []
    ours, _ = ns2.crosscheck(
        FIXTURES / "ns2_chain3_aodv.toml",
        [1, 2, 3],
        ns_command=fake,
        jobs=jobs,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert len(ours.per_seed) == 3


def test_a_truncated_trace_line_is_a_clear_error(tmp_path: Path):
    bad = tmp_path / "bad.tr"
    bad.write_text("s 1.0 _0_ AGT --- 0\n")
    with pytest.raises(ValueError, match=r"bad.tr:1: a trace event has too few fields"):
        ns2.parse_trace(bad)


def test_crosscheck_without_ns2_says_how_to_install_it(tmp_path: Path):
    env_path = str(tmp_path)  # an empty PATH: no `ns` anywhere
    proc = subprocess.run(
        [sys.executable, "-m", "manetsim.cli", "crosscheck", FIXTURES / "ns2_chain3_aodv.toml"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": env_path},
        check=False,
    )
    assert "apt-get install -y ns2" in assert_clean_error(proc)
    # A program the user named that is not there is named, not "install ns-2".
    proc = cli("crosscheck", FIXTURES / "ns2_chain3_aodv.toml", "--ns", "/no/such/ns")
    line = assert_clean_error(proc)
    assert "--ns /no/such/ns: no such program" in line


def test_an_ns_that_fails_silently_is_reported_with_its_exit_status():
    proc = cli("crosscheck", FIXTURES / "ns2_chain3_aodv.toml", "--ns", "false")
    line = assert_clean_error(proc, status=1)
    assert "ns-2 failed on seed 1 (exit status 1): it printed nothing" in line


def test_an_ns2_run_past_its_timeout_is_stopped_with_a_clear_error(tmp_path: Path):
    # A stand-in for an ns-2 that crawls (as ns-2.35's DSDV with use_mac_ 1 does).
    slow = tmp_path / "slow-ns"
    slow.write_text("#!/bin/sh\nexec sleep 60\n")
    slow.chmod(0o755)
    started = time.perf_counter()
    proc = cli(
        "crosscheck",
        FIXTURES / "ns2_chain3_aodv.toml",
        "--ns",
        str(slow),
        "--ns-timeout-s",
        "0.5",
    )
    assert time.perf_counter() - started < 30
    line = assert_clean_error(proc, status=1)
    assert "ns-2 did not finish seed 1 within 0.5 s" in line


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "1e300"])
def test_a_timeout_that_is_not_a_time_is_refused(timeout: str):
    proc = cli("crosscheck", FIXTURES / "ns2_chain3_aodv.toml", "--ns-timeout-s", timeout)
    assert "--ns-timeout-s" in assert_clean_error(proc)
    with pytest.raises(ValueError, match="at most 1e9"):
        ns2.check_ns_timeout(float(timeout))


def test_a_scenario_name_cannot_become_a_tcl_command(tmp_path: Path):
    text = (FIXTURES / "ns2_chain3_aodv.toml").read_text()
    bad = tmp_path / "inj.toml"
    name = "x\\nexec touch pwned\\n# \\\\"
    bad.write_text(
        f'name = "{name}"\n'
        + "\n".join(line for line in text.splitlines() if not line.startswith("name"))
    )
    tcl = _export(str(bad))
    lines = tcl.splitlines()
    assert "# exec touch pwned" in lines
    assert not any(line.startswith("exec") for line in lines)
    # A comment line never ends in a backslash (Tcl would read on into the
    # next line as comment).
    assert not any(line.startswith("#") and line.endswith("\\") for line in lines)
    with pytest.raises(ValueError, match="trace_file"):
        ns2.export_tcl(bad, None, 1, trace_file="x}\nexec ls")


KARLSSON = EXAMPLES / "karlssonkassler_chain5p1.toml"
ONE_WAY = ("--set", "flows.0.tcp.handshake=false")


def _setdests(tcl: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r'setdest (\S+) (\S+) \S+"', tcl)]


def _placed(tcl: str) -> list[tuple[float, float]]:
    xs = re.findall(r"\$node_\(\d+\) set X_ (\S+)", tcl)
    ys = re.findall(r"\$node_\(\d+\) set Y_ (\S+)", tcl)
    return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]


def test_moves_to_the_areas_edge_are_moved_into_ns2s_grid():
    # The mobile node of this example shuttles between (0, 200) and
    # (800, 200), the corners of its 800 m x 200 m area. ns-2.35 stops the
    # script at a setdest that is not strictly inside its flat grid, so the
    # export moves every point 1 m in, in a grid 2 m larger: the distances,
    # all that the radio sees, stay as they were.
    tcl = _export(str(KARLSSON), *ONE_WAY)
    assert "$topo load_flatgrid 802.0 202.0" in tcl
    assert "distances are unchanged" in tcl
    dests = _setdests(tcl)
    assert dests[:2] == [(801.0, 201.0), (1.0, 201.0)]
    assert all(0 < x < 802 and 0 < y < 202 for x, y in dests)
    assert _placed(tcl) == [(1, 1), (201, 1), (401, 1), (601, 1), (801, 1), (1, 201)]
    # The movements themselves, as `manetsim convert` writes them, are the
    # scenario's own.
    moves = cli("convert", str(KARLSSON), *ONE_WAY)
    assert moves.returncode == 0, moves.stderr
    assert _setdests(moves.stdout)[:2] == [(800.0, 200.0), (0.0, 200.0)]


def test_moves_inside_the_area_are_exported_as_they_are():
    rwp = REPO / "python" / "manetsim" / "benchmarks" / "rwp50.toml"
    tcl = _export(str(rwp), "--set", "duration_s=60")
    assert "$topo load_flatgrid 1000.0 1000.0" in tcl
    assert "distances are unchanged" not in tcl
    moves = cli("convert", str(rwp), "--set", "duration_s=60").stdout
    assert _setdests(tcl) == _setdests(moves) != []
    assert _placed(tcl) == _placed(moves)


@pytest.mark.parametrize(
    ("point", "moved"),
    [
        ("500 500", False),
        ("0.5 999.5", False),
        ("0 500", True),
        ("500 0", True),
        ("1000 500", True),
        ("500 1000", True),
    ],
)
def test_only_a_setdest_on_the_grids_edge_moves_the_scenario(point: str, moved: bool):
    moves = (
        "# header\n$node_(0) set X_ 0.25\n$node_(0) set Y_ 7\n$node_(0) set Z_ 0\n"
        f'$ns_ at 1.5 "$node_(0) setdest {point} 3.5"\n'
    )
    out, grid = ns2.inside_ns2_grid(moves, 1000.0, 1000.0)
    if not moved:
        assert (out, grid) == (moves, (1000.0, 1000.0))
        return
    x, y = (float(v) + 1.0 for v in point.split())
    assert grid == (1002.0, 1002.0)
    lines = out.splitlines()
    assert lines[0] == "# header"
    assert lines[1].startswith("# moved 1 m")
    assert lines[2:5] == ["$node_(0) set X_ 1.25", "$node_(0) set Y_ 8", "$node_(0) set Z_ 0"]
    assert _setdests(out) == [(x, y)]
    assert lines[5].startswith('$ns_ at 1.5 "$node_(0) setdest ')
    assert lines[5].endswith(' 3.5"')


def test_an_ns2_failure_is_told_by_what_ns2_said():
    # An error in a scheduled command: ns-2 prints it on stdout, "ns: ...".
    stdout = (
        "manetsim-flow 0 5 0\nns: _o104 setdest 800 200 20: \n    (_o104 cmd line 1)\n"
        '    invoked from within\n"_o104 setdest 800 200 20"\nnum_nodes is set 6\n'
    )
    noise = "INITIALIZE THE LIST xListHead\n"
    assert ns2.ns2_failure(stdout, noise) == "ns: _o104 setdest 800 200 20:"
    # An error while the script is read: stderr, message first, place last.
    stderr = (
        'invalid command name "foo"\n    while executing\n"foo bar"\n    (file "run.tcl" line 2)\n'
    )
    assert (
        ns2.ns2_failure("", noise + stderr)
        == 'invalid command name "foo" | (file "run.tcl" line 2)'
    )
    assert ns2.ns2_failure("a\nb\nc\nd\n", noise) == "b | c | d"
    assert ns2.ns2_failure("", noise) == "it printed nothing"


def test_crosscheck_shows_the_error_ns2_printed(tmp_path: Path):
    fake = tmp_path / "failing-ns"
    fake.write_text(
        "#!/bin/sh\n"
        "echo 'INITIALIZE THE LIST xListHead' >&2\n"
        "echo 'ns: _o104 setdest 800 200 20: '\n"
        "echo '    (_o104 cmd line 1)'\n"
        "exit 1\n"
    )
    fake.chmod(0o755)
    proc = cli("crosscheck", FIXTURES / "ns2_chain3_aodv.toml", "--ns", str(fake))
    line = assert_clean_error(proc, status=1)
    assert "ns-2 failed on seed 1 (exit status 1): ns: _o104 setdest 800 200 20:" in line


def test_a_seed_ns2_crashes_on_is_left_out_of_both_sides_and_named(tmp_path: Path):
    # ns-2.35 can die of SIGSEGV (its AODV, in aodv_rt_entry::pc_delete, on
    # one of six rwp50 seeds with an SCTP flow): the other seeds are still
    # compared, and the crash is named.
    fake = _stand_in_ns(
        tmp_path, "crashing-ns", 2, "  echo 'SORTING LISTS ...DONE!'; kill -SEGV $$\n"
    )
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    proc = cli("crosscheck", fixture, "--seeds", "3", "--jobs", "2", "--ns", fake, "--totals-only")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "mean of 2 seed(s) ± 95 % confidence interval; 1 left out" in text
    assert "left out: seed 2: ns-2 crashed on seed 2 (SIGSEGV); the last it printed:" in text
    out = json.loads(cli("crosscheck", fixture, "--seeds", "3", "--ns", fake, "--json").stdout)
    assert out["seeds"] == [1, 3]
    assert [d["seed"] for d in out["left_out"]] == [2]
    assert len(out["manetsim"]["per_seed"]) == len(out["ns2"]["per_seed"]) == 2
    # A crash on every seed compared is an error.
    only = cli("crosscheck", fixture, "--ns", fake, "--set", "seed=2")
    line = assert_clean_error(only, status=1)
    assert "ns-2 crashed on seed 2 (SIGSEGV)" in line


def test_a_seed_ns2_hangs_on_is_stopped_left_out_and_named(tmp_path: Path):
    # ns-2.35's DSDV can loop for ever in processUpdate (seeds 4 and 7 of
    # rwp50 ran 12 minutes without a trace line): a run whose trace stops
    # growing for --ns-stall-s is stopped and its seed left out.
    fake = _stand_in_ns(
        tmp_path,
        "hanging-ns",
        2,
        "  echo 's 83.152860448 _17_ AGT  --- 7332 ack 40 [0 0 0 0]' > trace.tr\n  exec sleep 60\n",
    )
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    start = time.monotonic()
    ours, theirs = ns2.crosscheck(fixture, [1, 2, 3], None, str(fake), jobs=2, ns_stall_s=1.0)
    assert time.monotonic() - start < 30
    assert len(ours.per_seed) == len(theirs.per_seed) == 2
    [(seed, why)] = theirs.left_out
    assert seed == 2
    assert why == (
        "ns-2 hung on seed 2: its trace stopped at 83.152860448 s and did not grow "
        "for 1 s (--ns-stall-s), so it was stopped"
    )
    proc = cli("crosscheck", fixture, "--seeds", "3", "--ns", fake, "--ns-stall-s", "1")
    assert proc.returncode == 0, proc.stderr
    assert "left out: seed 2: ns-2 hung on seed 2" in " ".join(proc.stdout.split())
    bad = cli("crosscheck", fixture, "--ns", fake, "--ns-stall-s", "0")
    assert "--ns-stall-s" in assert_clean_error(bad)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) is not installed")
def test_ns2_follows_moves_to_the_areas_corners(tmp_path: Path):
    script = tmp_path / "run.tcl"
    proc = cli("export", "ns2", str(KARLSSON), *ONE_WAY, "-o", script)
    assert proc.returncode == 0, proc.stderr
    done = subprocess.run(["ns", script.name], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, ns2.ns2_failure(done.stdout, done.stderr)
    assert "NS EXITING" in done.stdout
    # Before, ns-2 stopped at the first setdest (10 s). The mobile node 5,
    # the flow's sink, now receives data to the end, after all eight moves.
    late = [
        line
        for line in (tmp_path / "trace.tr").read_text(encoding="utf-8").splitlines()
        if line.startswith("r ") and " _5_ AGT " in line and float(line.split()[1]) > 450.0
    ]
    assert len(late) > 100


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) is not installed")
def test_crosscheck_runs_both_simulators_on_the_fixture():
    proc = cli("crosscheck", FIXTURES / "ns2_chain3_aodv.toml", "--seeds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "flow0.throughput_kbps" in proc.stdout
    # A 3-node chain: ns-2.35's whole run may take less than Python's start.
    assert re.search(r"x (faster|slower) than ns-2.35", proc.stdout)
    ours, theirs = ns2.crosscheck(FIXTURES / "ns2_chain3_aodv.toml", [1])
    # Both deliver the CBR flow; TCP moves data in both.
    assert theirs.per_seed[0]["flow1.loss_pct"] <= 25.0
    assert ours.per_seed[0]["flow1.loss_pct"] <= 25.0
    assert ours.per_seed[0]["flow0.throughput_kbps"] > 100.0
    assert theirs.per_seed[0]["flow0.throughput_kbps"] > 100.0


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) is not installed")
def test_crosscheck_prints_totals_only_as_json():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    proc = cli("crosscheck", fixture, "--totals-only", "--json", "--set", "duration_s=20")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    metrics = [row["metric"] for row in out["summary"]]
    assert "flows.delivery_pct" in metrics
    assert "routing_packets" in metrics
    assert not any(ns2.is_per_flow_metric(m) for m in metrics)
    assert out["seeds"] == [1]
    for side in ("manetsim", "ns2"):
        assert len(out[side]["per_seed"]) == 1
        assert out[side]["cpu_s"][0] > 0
        sent = out[side]["per_seed"][0]["flows.sent"]
        assert sent > 0
        assert 0 < out[side]["per_seed"][0]["flows.received"] <= sent


def test_a_speed_ratio_below_one_reads_as_slower():
    from manetsim.cli import times_faster

    assert times_faster(2.94) == "2.9x faster"
    assert times_faster(1.0) == "1.0x faster"
    assert times_faster(0.58) == "1.7x slower"
    assert times_faster(float("inf")) == "infx faster"


def test_crosscheck_keeps_both_traces_for_comparing_hop_by_hop(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    keep = tmp_path / "traces"
    ours, _ = ns2.crosscheck(fixture, [1, 2], None, str(_stand_in_ns(tmp_path)), None, keep)
    for seed in (1, 2):
        kept = keep / f"seed-{seed}"
        assert sorted(p.name for p in kept.iterdir()) == ["manetsim.tr", "ns2.tcl", "ns2.tr"]
        assert "new Simulator" in (kept / "ns2.tcl").read_text(encoding="utf-8")
        # manetsim's trace, read by the same parser, gives its own figures.
        stats = ns2.parse_trace(kept / "manetsim.tr")
        flow = stats.flows[(0, 0)]
        figures = ours.per_seed[seed - 1]
        assert math.isclose(flow.throughput_kbps, figures["flow0.throughput_kbps"], rel_tol=1e-9)
        assert math.isclose(flow.delay_ms, figures["flow0.delay_ms"], rel_tol=1e-9)
    proc = cli(
        "crosscheck",
        fixture,
        "--ns",
        str(_stand_in_ns(tmp_path)),
        "--keep-traces",
        tmp_path / "cli",
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "cli" / "seed-1" / "manetsim.tr").stat().st_size > 0


def test_seeds_side_by_side_give_the_same_figures_in_seed_order(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    fake = str(_stand_in_ns(tmp_path))
    ours_1, theirs_1 = ns2.crosscheck(fixture, [3, 1, 2], None, fake)
    ours_2, theirs_2 = ns2.crosscheck(fixture, [3, 1, 2], None, fake, jobs=2)
    assert ours_2.per_seed == ours_1.per_seed
    assert theirs_2.per_seed == theirs_1.per_seed
    # Seeds differ, so the order is the seeds' order, not the finishing order.
    assert ours_1.per_seed[0] != ours_1.per_seed[1]
    for side in (ours_1, ours_2, theirs_2):
        assert len(side.wall_s) == len(side.cpu_s) == 3
    # Each manetsim process spends CPU time of its own: Python and the core.
    assert all(cpu > 0 for cpu in ours_2.cpu_s)
    assert all(cpu >= core for cpu, core in zip(ours_2.cpu_s, ours_2.core_s))
    with pytest.raises(ValueError, match="jobs"):
        ns2.crosscheck(fixture, [1], None, fake, jobs=0)


def _stand_in_ns(
    tmp_path: Path, name: str = "fake-ns", seed: int | None = None, then: str = ""
) -> Path:
    """An `ns` that 'runs' any script by leaving the committed trace behind;
    on seed `seed`'s script (its comment names the seed) it first runs the
    shell lines `then`."""
    fake = tmp_path / name
    branch = "" if seed is None else f"if grep -q '^# seed {seed},' \"$1\"; then\n{then}fi\n"
    fake.write_text(
        "#!/bin/sh\n"
        f"{branch}"
        f"cp '{FIXTURES / 'ns2_chain3_aodv.tr'}' trace.tr\n"
        "echo 'manetsim-flow 0 0 0'\n"
        "echo 'NS EXITING...'\n"
    )
    fake.chmod(0o755)
    return fake


def _failing_ns(tmp_path: Path, failing_seed: int) -> Path:
    """An `ns` that fails on one seed's script (which seeds ns-2's generator)."""
    return _stand_in_ns(
        tmp_path, "failing-ns", failing_seed, "  echo 'boom: this seed fails' >&2; exit 1\n"
    )


def test_a_seed_that_fails_side_by_side_is_named(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    assert "\n# seed 2, " in ns2.export_tcl(fixture, [], 2)
    fake = _failing_ns(tmp_path, 2)
    with pytest.raises(RuntimeError, match=r"ns-2 failed on seed 2 \(exit status \d+\): boom"):
        ns2.crosscheck(fixture, [1, 2, 3], None, str(fake), jobs=2)
    proc = cli("crosscheck", fixture, "--seeds", "3", "--jobs", "2", "--ns", str(fake))
    assert "seed 2 (exit status 1): boom" in assert_clean_error(proc, status=1)


def test_an_ns2_run_past_its_timeout_is_stopped(tmp_path: Path):
    slow = tmp_path / "slow-ns"
    slow.write_text("#!/bin/sh\nexec sleep 60\n")
    slow.chmod(0o755)
    with pytest.raises(RuntimeError, match=r"did not finish seed 1 within 0\.5 s"):
        ns2.crosscheck(FIXTURES / "ns2_chain3_aodv.toml", [1], None, str(slow), 0.5)


def test_crosscheck_side_by_side_reports_cpu_times(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    fake = str(_stand_in_ns(tmp_path))
    proc = cli("crosscheck", fixture, "--seeds", "2", "--jobs", "2", "--ns", fake)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())  # as the terminal's width wraps it
    assert "CPU time, process (s)" in text
    # The stand-in ns-2 finishes at once: manetsim, starting Python, is slower.
    assert re.search(r"\d\.\dx (faster|slower) than ns-2.35 here in CPU time", text)
    assert "2 seeds ran side by side" in text
    # The speed line is printed whole, not broken at the pipe's 120 columns.
    speed = [line for line in proc.stdout.splitlines() if line.startswith("speed: ")]
    assert len(speed) == 1
    assert speed[0].endswith("waiting for the machine"), speed
    # The speed line names how manetsim's core was compiled.
    assert f"manetsim's core, a {manetsim._core.build()} build" in text
    proc = cli("crosscheck", fixture, "--ns", fake)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert re.search(r"\d\.\dx (faster|slower) than ns-2.35 here in wall time", text)
    assert f"a {manetsim._core.build()} build)" in text
    assert any(
        line.startswith("speed: ") and line.endswith(" build)") for line in proc.stdout.splitlines()
    )
    proc = cli("crosscheck", fixture, "--jobs", "0", "--ns", fake)
    assert "--jobs" in assert_clean_error(proc)


@pytest.mark.parametrize(
    ("routing", "agent", "queue"),
    [
        # DropTail/PriQueue holds limit_ - 1 packets: the scenario's 50.
        # CMUPriQueue holds 50 a band whatever limit_ is (other queues are
        # refused over DSR).
        ("aodv", "AODV", "Queue/DropTail/PriQueue -ifqLen 51"),
        ("dsr", "DSR", "CMUPriQueue -ifqLen 50"),
        ("dsdv", "DSDV", "Queue/DropTail/PriQueue -ifqLen 51"),
        ("aomdv", "AOMDV", "Queue/DropTail/PriQueue -ifqLen 51"),
    ],
)
def test_each_ns2_routing_agent_is_exported(routing: str, agent: str, queue: str):
    tcl = _export(str(FIXTURES / "ns2_chain3_aodv.toml"), "--set", f"routing.protocol={routing}")
    assert f"-adhocRouting {agent} " in tcl
    assert f"-ifqType {queue} " in tcl


@pytest.mark.parametrize(
    "probe", sorted((Path(__file__).parent.parent / "benches" / "scenarios").glob("*.toml"))
)
def test_the_committed_crosscheck_scenarios_export(probe: Path):
    # docs/fidelity-record.md re-runs each with `manetsim crosscheck` (grid50, of
    # static routes, with --set routing.protocol=X).
    static = 'protocol = "static"' in probe.read_text(encoding="utf-8")
    tcl = _export(str(probe), *(["--set", "routing.protocol=aodv"] if static else []))
    assert "$ns_ run" in tcl


def _mrg32k3a_first_uniform(raw_seed: int) -> float:
    """The first uniform of ns-2.35's MRG32k3a after `seed raw_seed`, which
    sets all six words of its state to the seed (L'Ecuyer's recurrence)."""
    m1, m2 = 4294967087, 4294944443
    p1 = (1403580 * raw_seed - 810728 * raw_seed) % m1
    p2 = (527612 * raw_seed - 1370589 * raw_seed) % m2
    return ((p1 - p2) % m1 if p1 > p2 else p1 - p2 + m1) / (m1 + 1)


def test_ns2s_generator_is_seeded_from_a_spread_seed():
    # Measured with Debian's ns-2.35: `$defaultRNG seed 1` then `uniform 0 1`
    # gave 0.0003395769746692744, seed 2 0.00067388219790248303. The
    # recurrence above gives the same (ns-2 rounds it to a multiple of
    # 1/MAXINT first), so first draws grow with small seeds.
    assert _mrg32k3a_first_uniform(1) == pytest.approx(0.0003395769746692744, rel=1e-6)
    assert _mrg32k3a_first_uniform(2) == pytest.approx(0.00067388219790248303, rel=1e-6)
    assert max(_mrg32k3a_first_uniform(s) for s in range(1, 9)) < 0.003
    # Spread, seeds 1-64 give ns-2 first draws over the whole interval.
    raw = [ns2.ns2_raw_seed(s) for s in range(1, 65)]
    assert all(1 <= r <= 2**31 - 2 for r in raw)
    assert len(set(raw)) == 64
    firsts = sorted(_mrg32k3a_first_uniform(r) for r in raw)
    assert firsts[0] < 0.1
    assert firsts[-1] > 0.9
    assert sum(f < 0.5 for f in firsts) in range(20, 45)
    # The same seed, the same script; the shadowing model has its own stream.
    assert ns2.ns2_raw_seed(7) == ns2.ns2_raw_seed(7) != ns2.ns2_raw_seed(7, 1)
    assert ns2.ns2_raw_seed(0) != ns2.ns2_raw_seed(1)
    assert 1 <= ns2.ns2_raw_seed(2**63 - 1) <= 2**31 - 2
    tcl = ns2.export_tcl(FIXTURES / "ns2_chain3_aodv.toml", [], 2)
    assert f"$defaultRNG seed {ns2.ns2_raw_seed(2)}\n" in tcl
    assert "ns-random" not in tcl


@pytest.mark.parametrize("seed", [1, 64, 70])
def test_shadowing_gets_an_instance_seeded_raw(seed: int):
    # Propagation/Shadowing's class seed_ indexes a table of 64 seeds, and
    # ns-2.35 aborts at 64 and over: measured, seed_ 70 exits with status 1.
    probe = Path(__file__).parent.parent / "benches" / "scenarios" / "shadowing_link.toml"
    tcl = _export(str(probe), "--set", f"seed={seed}")
    assert "seed_" not in tcl
    assert "set prop_ [new Propagation/Shadowing]" in tcl
    assert f"$prop_ seed raw {ns2.ns2_raw_seed(seed, 1)}\n" in tcl
    assert "-propInstance $prop_ " in tcl
    assert "-propType" not in tcl
    # The model's parameters are class defaults, set before the instance.
    assert tcl.index("Propagation/Shadowing set pathlossExp_") < tcl.index("set prop_ ")


def test_olsr_is_refused_because_stock_ns2_has_none():
    proc = cli("export", "ns2", FIXTURES / "ns2_chain3_aodv.toml", "--set", "routing.protocol=olsr")
    assert "key `routing.protocol`" in assert_clean_error(proc)


@pytest.mark.parametrize(
    "key",
    [
        # Both are compiled into ns-2.35's DSR, not Tcl variables.
        "routing.dsr.gratuitous_replies",
        "routing.dsr.flow_state",
    ],
)
def test_dsr_switches_ns2_compiles_in_cannot_be_turned_off(key: str):
    err = _refused_chain3("routing.protocol=dsr", 'routing.dsr.preset="ns2"', f"{key}=false")
    assert f"key `{key}`" in err


@pytest.mark.parametrize("queue", [5, 49, 51, 64])
def test_dsr_with_a_queue_ns2s_cmupriqueue_cannot_hold_is_refused(queue: int):
    # ns-2.35's CMUPriQueue holds IFQ_MAXLEN = 50 packets a band, compiled
    # in: measured with `manetsim crosscheck` on a 3-node DSR chain
    # saturated by CBR, ns-2.35 dropped 316 packets for a full queue with
    # -ifqLen 5 and with -ifqLen 10 alike, as manetsim does with a queue of
    # 50 (314), not of 5 (359).
    err = _refused_chain3("routing.protocol=dsr", f"mac.queue_packets={queue}")
    assert "key `mac.queue_packets`" in err
    assert "mac.queue_packets=50" in err
    # The same queue exports over AODV, whose queue honours -ifqLen.
    tcl = _export(str(FIXTURES / "ns2_chain3_aodv.toml"), "--set", f"mac.queue_packets={queue}")
    assert f"-ifqLen {queue + 1} " in tcl


def test_aodv_options_that_ns2_shares_are_exported():
    # ns-2.35's own constants, spelled out: the export accepts them.
    tcl = _export_chain3(
        'routing.aodv.preset="ns2"',
        "routing.aodv.active_route_timeout_s=10.0",
        "routing.aodv.local_repair=true",
    )
    assert "-adhocRouting AODV " in tcl


def test_dsdv_options_become_the_agents_class_variables():
    assert "Agent/DSDV set" not in _export_chain3("routing.protocol=dsdv")
    tcl = _export_chain3(
        "routing.protocol=dsdv",
        "routing.dsdv.mac_feedback=true",
        "routing.dsdv.periodic_update_interval_s=5.0",
        "routing.dsdv.min_update_periods=2",
    )
    lines = tcl.splitlines()
    assert "Agent/DSDV set use_mac_ 1" in lines
    assert "Agent/DSDV set perup_ 5.0" in lines
    assert "Agent/DSDV set min_update_periods_ 2" in lines
    # Class variables take effect only if set before the nodes are made.
    assert lines.index("Agent/DSDV set use_mac_ 1") < lines.index("set ns_ [new Simulator]")


def test_crosscheck_prints_a_long_scenario_path_on_one_line(tmp_path: Path):
    folder = tmp_path / ("a-folder-whose-name-alone-is-longer-than-a-line-" * 3)
    folder.mkdir()
    scenario = folder / "chain3.toml"
    shutil.copy(FIXTURES / "ns2_chain3_aodv.toml", scenario)
    fake = str(_stand_in_ns(tmp_path))
    proc = cli("crosscheck", scenario, "--ns", fake, "--totals-only")
    assert proc.returncode == 0, proc.stderr
    assert len(str(scenario)) > 120
    assert f"{scenario}:" in proc.stdout.splitlines()
    assert "manetsim vs ns-2.35, mean of 1 seed(s)" in proc.stdout


# ns-2.35's frame sizes and backoff slots: like with like at the MAC; and
# its halving of the TCP window and end of fast recovery.
NS2_MAC = [
    "mac.frames=ns2",
    "mac.backoff_draw=ns2",
    "mac.backoff_count=ns2",
    "mac.ll_delay_s=25e-6",
    "flows.0.tcp.ssthresh_rule=ns2",
    "flows.0.tcp.rto_rule=ns2",
    "flows.0.tcp.recovery_rule=ns2",
]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["mac.arp=ns2", *NS2_MAC], ['routing.aodv.preset is "rfc"']),
        (["mac.arp=ns2", "routing.aodv.preset=ns2", *NS2_MAC], []),
        (["mac.arp=ns2", "routing.protocol=dsr", *NS2_MAC], ['routing.dsr.preset is "rfc"']),
        (["mac.arp=ns2", "routing.protocol=dsr", "routing.dsr.preset=ns2", *NS2_MAC], []),
        (["mac.arp=ns2", "routing.protocol=dsdv", *NS2_MAC], []),
        (["routing.protocol=dsdv", *NS2_MAC], ['mac.arp is "off"']),
        (
            [
                "mac.arp=ns2",
                "routing.protocol=dsdv",
                "mac.frames=ns2",
                "mac.backoff_count=ns2",
                "mac.ll_delay_s=25e-6",
            ],
            [
                'mac.backoff_draw is "standard"',
                'flows.0.tcp.ssthresh_rule is "flight_size"',
                'flows.0.tcp.rto_rule is "rfc"',
                'flows.0.tcp.recovery_rule is "rfc"',
            ],
        ),
        (
            ["mac.arp=ns2", "routing.protocol=dsdv", "mac.frames=ns2", "mac.backoff_draw=ns2"],
            [
                'mac.backoff_count is "exact"',
                "mac.ll_delay_s is 0:",
                'flows.0.tcp.ssthresh_rule is "flight_size"',
                'flows.0.tcp.rto_rule is "rfc"',
                'flows.0.tcp.recovery_rule is "rfc"',
            ],
        ),
        (
            ["routing.protocol=aomdv", "mac.arp=ns2", *NS2_MAC],
            [
                'routing.aomdv.link_detection is "mac"',
                'routing.aomdv.disjoint is "link"',
                "routing.aomdv.rerr_rate_limit is true",
                'routing.aomdv.message_sizes is "standard"',
                'routing.aomdv.target_replies is "paths"',
                'routing.aomdv.id_purge is "exact"',
            ],
        ),
        (
            [
                "routing.protocol=aomdv",
                'routing.aomdv.link_detection="hello"',
                'routing.aomdv.disjoint="node"',
                "routing.aomdv.rerr_rate_limit=false",
                'routing.aomdv.message_sizes="ns2"',
                'routing.aomdv.target_replies="ns2"',
                'routing.aomdv.id_purge="ns2"',
                "mac.arp=ns2",
                *NS2_MAC,
            ],
            [],
        ),
        (
            [],
            [
                'routing.aodv.preset is "rfc"',
                'mac.arp is "off"',
                'mac.frames is "standard"',
                'mac.backoff_draw is "standard"',
                'mac.backoff_count is "exact"',
                "mac.ll_delay_s is 0:",
                'flows.0.tcp.ssthresh_rule is "flight_size"',
                'flows.0.tcp.rto_rule is "rfc"',
                'flows.0.tcp.recovery_rule is "rfc"',
            ],
        ),
    ],
)
def test_crosscheck_notes_what_ns2_does_differently(
    tmp_path: Path, overrides: list[str], expected: list[str]
):
    sets = [arg for o in overrides for arg in ("--set", o)]
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    proc = cli("crosscheck", fixture, "--ns", str(_stand_in_ns(tmp_path)), *sets)
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stdout.splitlines() if line.startswith("note: ")]
    assert len(notes) == len(expected), notes
    for note, what in zip(notes, expected):
        assert what in note
        assert re.search(r"=(ns2|25e-6|hello|node|false) compares like with like", note), note


def test_mac_overrides_set_every_mac_difference_crosscheck_notes():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    aodv_ns2 = {"routing.aodv.preset": "ns2", **ns2.tcp_overrides(fixture)}
    assert ns2.known_differences(fixture, {**ns2.mac_overrides(), **aodv_ns2}) == []
    notes = ns2.known_differences(fixture, {**ns2.mac_overrides("off", "standard"), **aodv_ns2})
    assert [n.split(" is ")[0] for n in notes] == [
        "mac.arp",
        "mac.frames",
        "mac.backoff_draw",
        "mac.backoff_count",
        "mac.ll_delay_s",
    ]
    with pytest.raises(ValueError, match="standard or ns2"):
        ns2.mac_overrides(mac="ieee")
    standard_eifs = {**ns2.mac_overrides(), **aodv_ns2, "mac.eifs_rule": "standard"}
    notes = ns2.known_differences(fixture, standard_eifs)
    assert len(notes) == 1, notes
    assert notes[0].startswith('mac.eifs_rule is "standard"'), notes
    assert "--set mac.eifs_rule=ns2 compares like with like" in notes[0]
    standard_cts = {**ns2.mac_overrides(), **aodv_ns2, "mac.cts_rule": "standard"}
    notes = ns2.known_differences(fixture, standard_cts)
    assert len(notes) == 1, notes
    assert notes[0].startswith('mac.cts_rule is "standard"'), notes
    assert "--set mac.cts_rule=ns2 compares like with like" in notes[0]
    nav_reset = {**ns2.mac_overrides(), **aodv_ns2, "mac.nav_reset": "true"}
    notes = ns2.known_differences(fixture, nav_reset)
    assert len(notes) == 1, notes
    assert notes[0].startswith("mac.nav_reset is true"), notes
    assert "--set mac.nav_reset=false compares like with like" in notes[0]


def test_llc_snap_frames_are_noted_with_their_size_against_ns2s():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    aodv_ns2 = {"routing.aodv.preset": "ns2", **ns2.tcp_overrides(fixture)}
    notes = ns2.known_differences(
        fixture, {**ns2.mac_overrides(), **aodv_ns2, "mac.frames": "llc_snap"}
    )
    assert len(notes) == 1, notes
    assert notes[0].startswith('mac.frames is "llc_snap"'), notes
    assert "8 bytes of LLC/SNAP" in notes[0]
    assert "2 bytes less or 18 more" in notes[0]
    assert "--set mac.frames=ns2 compares like with like" in notes[0]


def test_the_tie_rule_is_noted_between_moving_nodes_only():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    aodv_ns2 = {"routing.aodv.preset": "ns2", **ns2.tcp_overrides(fixture)}
    moving = {"mobility.model": "random_waypoint", "mobility.max_speed_mps": 5.0}
    assert ns2.mac_overrides()["mac.tie_rule"] == "ns2"
    assert ns2.known_differences(fixture, {**ns2.mac_overrides(), **aodv_ns2, **moving}) == []
    timers = {**ns2.mac_overrides(), "mac.tie_rule": "timers_first", **aodv_ns2}
    assert ns2.known_differences(fixture, timers) == []
    notes = ns2.known_differences(fixture, {**timers, **moving})
    assert len(notes) == 1, notes
    assert notes[0].startswith('mac.tie_rule is "timers_first"'), notes
    assert "--set mac.tie_rule=ns2 compares like with like" in notes[0]


def test_ns3s_rto_rule_is_noted_as_ns3s():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    like = {**ns2.mac_overrides(), "routing.aodv.preset": "ns2", **ns2.tcp_overrides(fixture)}
    assert ns2.known_differences(fixture, like) == []
    for rule, how in [("rfc", "as RFC 6298 does"), ("ns3", "as ns-3 does")]:
        notes = ns2.known_differences(fixture, {**like, "flows.0.tcp.rto_rule": rule})
        assert len(notes) == 1, notes
        assert notes[0].startswith(f'flows.0.tcp.rto_rule is "{rule}"'), notes
        assert f"the retransmission timeout {how}, ns-2.35 in whole ticks" in notes[0]
        assert "--set flows.0.tcp.rto_rule=ns2 compares like with like" in notes[0]


@pytest.mark.parametrize("variant", ["tahoe", "reno", "newreno", "sack", "vegas"])
def test_tcp_overrides_take_ns2s_loss_response_for_every_tcp_flow(variant: str):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    sets = {"flows.0.tcp.variant": variant}
    # Flow 1 is CBR: left alone. ns-2.35's Vegas agent has no limited
    # transmit, and a window rule of its own.
    # ns-2.35's Sack1 recovers its own way, and its Reno and Newreno end
    # fast recovery their own way.
    rule = {
        "vegas": "vegas_rule",
        "sack": "sack_rule",
        "reno": "recovery_rule",
        "newreno": "recovery_rule",
    }.get(variant)
    own = {f"flows.0.tcp.{rule}": "ns2"} if rule else {}
    assert ns2.tcp_overrides(fixture, sets) == {
        "flows.0.tcp.ssthresh_rule": "ns2",
        "flows.0.tcp.rto_rule": "ns2",
        "flows.0.tcp.limited_transmit": variant != "vegas",
        "flows.0.tcp.start_rule": "ns2",
        **own,
    }
    standard_rule = "paper" if variant == "vegas" else "rfc"
    paper = {f"flows.0.tcp.{rule}": standard_rule} if rule else {}
    assert ns2.tcp_overrides(fixture, sets, "standard") == {
        "flows.0.tcp.ssthresh_rule": "flight_size",
        "flows.0.tcp.rto_rule": "rfc",
        "flows.0.tcp.limited_transmit": False,
        "flows.0.tcp.start_rule": "window",
        **paper,
    }
    both = {**sets, **ns2.tcp_overrides(fixture, sets)}
    assert not [n for n in ns2.known_differences(fixture, both) if "tcp" in n]
    standard = {**sets, **ns2.tcp_overrides(fixture, sets, "standard")}
    noted = [n.split(" is ")[0] for n in ns2.known_differences(fixture, standard) if "tcp" in n]
    assert noted == ["flows.0.tcp.ssthresh_rule", "flows.0.tcp.rto_rule"] + (
        [f"flows.0.tcp.{rule}"] if rule else []
    )
    with pytest.raises(ValueError, match="standard or ns2"):
        ns2.tcp_overrides(fixture, sets, "rfc")


@pytest.mark.parametrize(
    ("sets", "line"),
    [
        ([], "$agent_(0) set singledup_ 0"),
        (["flows.0.tcp.limited_transmit=true"], "$agent_(0) set singledup_ 1"),
        (["flows.0.tcp.variant=vegas"], None),
    ],
)
def test_export_sets_ns2s_limited_transmit_as_the_scenario_says(sets: list[str], line):
    args = [a for s in sets for a in ("--set", s)]
    tcl = _export(str(FIXTURES / "ns2_chain3_aodv.toml"), *args)
    if line is None:
        assert "singledup_" not in tcl
    else:
        assert tcl.count("singledup_") == 1
        assert line in tcl


def test_export_refuses_limited_transmit_for_vegas(tmp_path: Path):
    proc = cli(
        "export",
        "ns2",
        FIXTURES / "ns2_chain3_aodv.toml",
        "-o",
        tmp_path / "run.tcl",
        "--set",
        "flows.0.tcp.variant=vegas",
        "--set",
        "flows.0.tcp.limited_transmit=true",
    )
    assert proc.returncode != 0
    assert "key `flows.0.tcp.limited_transmit`" in proc.stderr
    assert "Vegas" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run.tcl").exists()


def test_crosscheck_like_ns2_takes_every_ns2_model_and_the_callers_set_wins(tmp_path: Path):
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    fake = str(_stand_in_ns(tmp_path))
    proc = cli("crosscheck", fixture, "--ns", fake, "--like-ns2")
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stdout.splitlines() if line.startswith("note: ")] == []
    proc = cli("crosscheck", fixture, "--ns", fake, "--like-ns2", "--set", "mac.arp=off")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stdout.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1
    assert 'mac.arp is "off"' in notes[0]


def test_like_ns2_overrides_follow_the_routing_protocol():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    for routing, preset in (("aodv", True), ("dsr", True), ("dsdv", False), ("aomdv", False)):
        sets = {"routing.protocol": routing}
        like = ns2.like_ns2_overrides(fixture, sets)
        assert (f"routing.{routing}.preset" in like) == preset
        # ns-2.35 compiles AOMDV without link-layer detection (HELLOs only),
        # with node-disjoint paths.
        assert like.get("routing.aomdv.link_detection") == ("hello" if routing == "aomdv" else None)
        assert like.get("routing.aomdv.disjoint") == ("node" if routing == "aomdv" else None)
        assert like.get("routing.aomdv.rerr_rate_limit") == (False if routing == "aomdv" else None)
        assert like.get("routing.aomdv.message_sizes") == ("ns2" if routing == "aomdv" else None)
        assert like.get("routing.aomdv.target_replies") == ("ns2" if routing == "aomdv" else None)
        assert like.get("routing.aomdv.id_purge") == ("ns2" if routing == "aomdv" else None)
        assert like["flows.0.tcp.ssthresh_rule"] == "ns2"
        assert ns2.known_differences(fixture, {**sets, **like}) == []


def test_like_ns2_takes_the_handshake_off_as_ns2s_one_way_agents_have_none():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    with_handshake = ["flows.0.tcp.handshake=true"]
    with pytest.raises(ns2.ExportError, match=r"flows\.0\.tcp\.handshake"):
        ns2.export_tcl(fixture, with_handshake, 1)
    like = ns2.like_ns2_overrides(fixture, with_handshake)
    assert like["flows.0.tcp.handshake"] is False
    # Then the flow starts as ns-2.35's agents do, with a 40-byte SYN.
    assert like["flows.0.tcp.start_rule"] == "ns2"
    # Flow 1 is UDP: nothing of TCP's is set for it.
    assert not [key for key in like if key.startswith("flows.1.")]
    assert "$agent_(0) set syn_ true" in ns2.export_tcl(fixture, [*with_handshake, *like.items()])
    # A flow already without the handshake is left alone.
    assert "flows.0.tcp.handshake" not in ns2.like_ns2_overrides(fixture)


def test_kept_traces_are_found_and_a_missing_one_is_named(tmp_path: Path):
    (tmp_path / "manetsim.tr").write_text("", encoding="utf-8")
    with pytest.raises(FileNotFoundError) as e:
        ns2.kept_traces(tmp_path)
    assert str(tmp_path / "ns2.tr") in str(e.value)
    assert "manetsim.tr" not in str(e.value)
    (tmp_path / "ns2.tr").write_text("", encoding="utf-8")
    assert ns2.kept_traces(tmp_path) == (tmp_path / "manetsim.tr", tmp_path / "ns2.tr")


def test_kept_seeds_are_seed_folders_or_the_folders_holding_them(tmp_path: Path):
    kept = tmp_path / "kept"
    for seed in (10, 2):
        d = kept / f"seed-{seed}"
        d.mkdir(parents=True)
        for name in ("manetsim.tr", "ns2.tr"):
            (d / name).write_text("", encoding="utf-8")
    (kept / "notes").mkdir()
    one = kept / "seed-2"
    expected = [(d, (d / "manetsim.tr", d / "ns2.tr")) for d in (kept / "seed-10", one)]
    assert ns2.kept_seeds([kept]) == expected, "in name order"
    assert ns2.kept_seeds([one]) == [(one, (one / "manetsim.tr", one / "ns2.tr"))]
    with pytest.raises(FileNotFoundError, match="no seed folder in"):
        ns2.kept_seeds([tmp_path / "nothing"])
    (one / "ns2.tr").unlink()
    with pytest.raises(FileNotFoundError, match=r"seed-2/ns2\.tr"):
        ns2.kept_seeds([kept])


def test_a_bulk_tfrc_flow_is_exported_to_ns2s_tfrc_agents_stopped_at_the_agent(tmp_path: Path):
    text = (FIXTURES / "ns2_chain3_aodv.toml").read_text(encoding="utf-8")
    bulk = text.replace('transport = "udp"\napp = "cbr"', 'transport = "tfrc"\napp = "ftp"')
    bulk = bulk.replace("rate_bps = 20480\n", "")
    assert bulk.count("tfrc") == 1
    (tmp_path / "tfrc.toml").write_text(bulk, encoding="utf-8")
    tcl = _export(str(tmp_path / "tfrc.toml"))
    assert "set agent_(1) [new Agent/TFRC]\n$agent_(1) set packetSize_ 256\n" in tcl
    # RFC 5348's spacing and filter unless the flow asks for ns-2.35's.
    assert "$agent_(1) set ca_ 0\n$agent_(1) set df_ 0.9\n" in tcl
    # RFC 5348's one packet a second before the first report (ns-2.35's own
    # InitRate_ is 300 bytes a second).
    assert "$agent_(1) set InitRate_ 256\n" in tcl
    assert "set sink_(1) [new Agent/TFRCSink]" in tcl
    assert "set app_(1) [new Application/FTP]" in tcl
    # FTP's own stop asks Agent/TFRC for `advance 0`, which it does not know.
    assert '"$agent_(1) stop"' in tcl
    assert '"$app_(1) stop"' not in tcl
    # --like-ns2 sets ns-2.35's: oscillation prevention, filters of 0.95 and
    # its gradual increase; the export follows the scenario.
    like = ns2.like_ns2_overrides(tmp_path / "tfrc.toml")
    assert like["flows.1.tfrc.oscillation_prevention"] is True
    assert like["flows.1.tfrc.rtt_filter"] == 0.95
    assert like["flows.1.tfrc.increase_rule"] == "ns2"
    assert like["flows.1.tfrc.feedback_rule"] == "ns2"
    assert like["flows.1.tfrc.history_discounting"] is True
    assert like["flows.1.tfrc.rto_rule"] == "ns2"
    assert like["flows.1.tfrc.pacing_rule"] == "ns2"
    assert like["flows.1.tfrc.start_rule"] == "ns2"
    assert "$agent_(1) set InitRate_ 300\n" in ns2.export_tcl(
        tmp_path / "tfrc.toml", list(like.items()), 1
    )
    notes = [n for n in ns2.known_differences(tmp_path / "tfrc.toml") if "tfrc" in n]
    assert len(notes) == 1
    for key in [
        "oscillation_prevention=true",
        "feedback_rule=ns2",
        "history_discounting=true",
        "rto_rule=ns2",
        "pacing_rule=ns2",
    ]:
        assert f"--set flows.1.tfrc.{key}" in notes[0]
    assert not [n for n in ns2.known_differences(tmp_path / "tfrc.toml", like) if "tfrc" in n]
    # Only the settings still unlike ns-2.35's are named.
    some = {"flows.1.tfrc.feedback_rule": "ns2", "flows.1.tfrc.rtt_filter": 0.95}
    (note,) = [n for n in ns2.known_differences(tmp_path / "tfrc.toml", some) if "tfrc" in n]
    assert "feedback_rule" not in note
    assert "rtt_filter" not in note
    assert "history_discounting=true" in note
    # The sink discounts old loss intervals only when the flow does.
    assert "$sink_(1) set discount_ 0\n" in tcl
    tcl = _export(
        str(tmp_path / "tfrc.toml"),
        "--set",
        "flows.1.tfrc.oscillation_prevention=true",
        "--set",
        "flows.1.tfrc.history_discounting=true",
    )
    assert "$agent_(1) set ca_ 1\n" in tcl
    assert "$sink_(1) set discount_ 1\n" in tcl
    # The initial window is ns-2.35's own (rfc3390: 3 packets from 1096 to
    # 2189 bytes, RFC 5348's 4380 bytes): named only for those sizes.
    for size, named in [(1095, False), (1096, True), (2189, True), (2190, False)]:
        sets = {"flows.1.packet_size_bytes": size, **like}
        del sets["flows.1.tfrc.start_rule"]
        (note,) = [
            n for n in ns2.known_differences(tmp_path / "tfrc.toml", sets) if "tfrc" in n
        ] or [""]
        assert ("start_rule=ns2" in note) is named, size


def test_on_off_over_tfrc_sends_what_the_application_hands_over():
    # ns-2.35's Agent/TFRC follows its application only with SndrType_ 1
    # (with 0 it sends as a bulk source whatever the application's rate).
    sets = ["flows.1.transport=tfrc", "flows.1.app=onoff"]
    tcl = ns2.export_tcl(FIXTURES / "ns2_chain3_aodv.toml", sets, 1).splitlines()
    agent = tcl.index("set agent_(1) [new Agent/TFRC]")
    assert tcl[agent + 2] == "$agent_(1) set SndrType_ 1"
    assert "set app_(1) [new Application/Traffic/Exponential]" in tcl
    assert "SndrType_" not in "".join(tcl[:agent])


def test_equal_figures_summed_in_another_order_overlap():
    from manetsim.stats import intervals_overlap

    # Energy on a deterministic chain: the same joules, added up in another
    # order by each simulator, with no spread over seeds.
    assert intervals_overlap((0.6664319999999994, 0.0), (0.6664319999999861, 0.0))
    assert not intervals_overlap((0.6664, 0.0), (0.6746, 0.0))
    assert not intervals_overlap((80.0, 0.0), (81.0, 0.0))
    assert intervals_overlap((1.0, 0.5), (2.0, 0.5))
    assert intervals_overlap((float("nan"), 0.0), (1.0, 0.0)) is None


GATEWAY_FIXTURE = FIXTURES / "ns2_gateway_dsdv.toml"


def test_a_gateway_over_dsdv_exports_as_ns2s_wired_cum_wireless_nodes():
    tcl = _export(str(GATEWAY_FIXTURE))
    lines = tcl.splitlines()
    # Hierarchical addresses: the MANET in domain 0, the host in domain 1.
    for expected in (
        "$ns_ node-config -addressType hierarchical",
        "AddrParams set domain_num_ 2",
        "AddrParams set cluster_num_ {1 1}",
        "AddrParams set nodes_num_ {3 1}",
        "    set node_($i) [$ns_ node 0.0.$i]",
        '    $ns_ node-config -wiredRouting [expr {$i == 1 ? "ON" : "OFF"}]',
        "        $node_($i) base-station [AddrParams addr2id [$node_(1) node-addr]]",
        "        $ns_ add-node $node_($i) [$node_($i) id]",
        '$ns_ set routingAgent_ ""',
        "    set node_([expr 3 + $h]) [$ns_ node 1.0.$h]",
        "    $ns_ duplex-link $node_([expr 3 + $h]) $node_(1) 756000 0.025 DropTail",
        # ns-2.35's DropTail holds limit - 1 packets.
        "    $ns_ queue-limit $node_([expr 3 + $h]) $node_(1) 51",
        "    $ns_ queue-limit $node_(1) $node_([expr 3 + $h]) 51",
        "$ns_ attach-agent $node_(3) $sink_(0)",
        "$ns_ attach-agent $node_(3) $agent_(1)",
    ):
        assert expected in lines, expected
    # The MANET's nodes come first, then the hosts: their ids stay manetsim's.
    assert lines.index("AddrParams set domain_num_ 2") < lines.index(
        "    set node_($i) [$ns_ node 0.0.$i]"
    )
    assert lines.index("    set node_($i) [$ns_ node 0.0.$i]") < lines.index(
        "    set node_([expr 3 + $h]) [$ns_ node 1.0.$h]"
    )
    assert "-adhocRouting DSDV" in tcl


@pytest.mark.parametrize(
    ("overrides", "key", "words"),
    [
        (["routing.protocol=aodv"], "routing.protocol", "only over DSDV"),
        (["routing.protocol=aomdv"], "routing.protocol", "only over DSDV"),
        (
            ["routing.protocol=dsr", "mac.queue_packets=50"],
            "routing.protocol",
            "BaseStationNode",
        ),
        (["gateway.node=[1, 2]"], "gateway.node", "one base station"),
        (["gateway.hosts=2", "flows.1.dst=4"], "flows.1.dst", "two hosts"),
        (['flows.1.transport="sctp"'], "flows.1.transport", "SACK"),
    ],
)
def test_a_gateway_ns2_cannot_run_alike_is_refused(overrides: list[str], key: str, words: str):
    args = [arg for o in overrides for arg in ("--set", o)]
    line = assert_clean_error(cli("export", "ns2", GATEWAY_FIXTURE, *args))
    assert f"key `{key}`" in line
    assert words in line


def test_like_ns2_forwards_to_the_gateway_as_ns2s_base_stations_do():
    tunnel = ["gateway.forwarding=tunnel"]
    notes = ns2.known_differences(str(GATEWAY_FIXTURE), tunnel)
    assert any(n.startswith('gateway.forwarding is "tunnel"') for n in notes), notes
    overrides = ns2.like_ns2_overrides(str(GATEWAY_FIXTURE), tunnel)
    assert overrides["gateway.forwarding"] == "base_station"
    assert not any("gateway" in n for n in ns2.known_differences(str(GATEWAY_FIXTURE)))
    assert "gateway.forwarding" not in ns2.like_ns2_overrides(str(QUICKSTART))


def test_the_trace_parser_reads_a_committed_wired_cum_wireless_trace():
    # tests/fixtures/ns2_gateway_dsdv.tr: ns-2.35 running the export of
    # ns2_gateway_dsdv.toml (node 1 a base station wired to host 3 at 756
    # kbit/s, 25 ms; TCP NewReno 0 -> host 3.0-3.5 s, CBR host -> 2 every
    # 0.1 s from 3 s, over DSDV). Counts from grep: 65 `s ... _0_ AGT ...
    # tcp` and 65 `r ... 1 3 tcp` (the wired link's arrivals at the host),
    # 10 `+ ... 3 1 cbr` (the host's sends) and 10 `r ... _2_ AGT ... cbr`.
    stats = ns2.parse_trace(FIXTURES / "ns2_gateway_dsdv.tr")
    tcp = stats.flows[(0, 0)]
    # The host's address, 1.0.0 (port 1): 1 << 22 in wireless lines.
    cbr = stats.flows[(4194304, 1)]
    assert (tcp.sent, tcp.received) == (65, 65)
    assert (cbr.sent, cbr.received) == (10, 10)
    # The first TCP packet is 512 bytes at ns-2's agent, the rest 552.
    assert tcp.received_bytes == 512 + 64 * 552
    assert cbr.received_bytes == 10 * (256 + 28)
    assert tcp.first_send_s == 3.0
    assert tcp.last_receive_s == 3.582443
    assert cbr.first_send_s == 3.0
    assert tcp.retransmissions == 0
    assert tcp.delay_ms == pytest.approx(66.427, abs=0.001)
    assert cbr.delay_ms == pytest.approx(33.296, abs=0.001)
    assert stats.routing_by_message == {"update": 3}
    assert stats.drops == {}
    assert stats.lines == 847


def test_a_wired_link_drop_counts_as_a_full_queue(tmp_path: Path):
    trace = tmp_path / "wired.tr"
    trace.write_text(
        "+ 1.0 3 1 cbr 256 ------- 1 1.0.0.1 0.0.2.0 0 4\n"
        "d 1.0 3 1 cbr 256 ------- 1 1.0.0.1 0.0.2.0 0 4\n"
        "- 1.0 3 1 cbr 256 ------- 1 1.0.0.1 0.0.2.0 0 5\n"
        "+ 1.0 1 3 tcp 40 ------- 0 0.0.0.0 1.0.0.0 0 6\n"
    )
    with trace.open("a") as handle:
        # A MANET node's SYN: 40 bytes at its agent, 60 with DSDV's IP
        # header on the wire; neither is data.
        handle.write(
            "s 2.0 _0_ AGT  --- 7 tcp 40 [0 0 0 0] ------- [0:0 4194304:0 32 0] [0 0] 0 0\n"
            "r 2.1 1 3 tcp 60 ------- 0 0.0.0.0 1.0.0.0 0 7\n"
        )
    stats = ns2.parse_trace(trace)
    # The host's send (the SYN-sized TCP packet is not data).
    assert stats.flows[(4194304, 1)].sent == 1
    assert (0, 0) not in stats.flows
    assert stats.drops == {"WIRE:d": 1}
    assert ns2._ns2_figures(stats, "")["drops.queue_full"] == 1.0
    trace.write_text("r 1.0 1 3 tcp 40 ------- 0 0.0.0.0\n")
    with pytest.raises(ValueError, match=r"wired\.tr:1: a wired link's event has too few"):
        ns2.parse_trace(trace)


def test_bit_errors_and_a_longer_response_timeout_are_not_exported():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    with pytest.raises(ns2.ExportError, match=r"radio\.error_model.*RXThresh_"):
        ns2.export_tcl(fixture, ["radio.error_model=awgn"], 1)
    with pytest.raises(ns2.ExportError, match=r"mac\.max_propagation_delay_s.*compiled in"):
        ns2.export_tcl(fixture, ["mac.max_propagation_delay_s=7e-6"], 1)
    # ns-2.35's own value exports.
    assert "Mac/802_11" in ns2.export_tcl(fixture, ["mac.max_propagation_delay_s=2e-6"], 1)


def test_fading_is_not_exported():
    fixture = FIXTURES / "ns2_chain3_aodv.toml"
    for fading in ("rayleigh", "nakagami"):
        with pytest.raises(ns2.ExportError, match=r"radio\.fading.*draw no fading"):
            ns2.export_tcl(fixture, [f"radio.fading={fading}"], 1)
    # The Nakagami keys alone change nothing, and export.
    assert "Mac/802_11" in ns2.export_tcl(fixture, ["radio.nakagami_m0=3"], 1)
