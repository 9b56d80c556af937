"""`benches/trace_roles.py`: routing messages by role, read from kept traces.

Checked on the committed ns-2.35 trace and on manetsim's own trace of the
same scenario, whose counts must agree with its results.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import manetsim
from manetsim import ns2

from helpers import bench_module

trace_roles = bench_module("trace_roles")

FIXTURES = Path(__file__).parent / "fixtures"
CHAIN3 = FIXTURES / "ns2_chain3_aodv.toml"


def _seed_dir(tmp_path: Path, preset: str) -> tuple[Path, dict[str, Any]]:
    seed = tmp_path / "seed-1"
    seed.mkdir(parents=True)
    shutil.copy(FIXTURES / "ns2_chain3_aodv.tr", seed / "ns2.tr")
    (seed / "ns2.tcl").write_text(ns2.export_tcl(CHAIN3), encoding="utf-8")
    overrides = {"routing.aodv.preset": preset, "output.ns2_trace": True}
    result = manetsim.run(CHAIN3, overrides=overrides, ns2_trace=seed / "manetsim.tr")
    return seed, result.json


def test_the_flows_come_from_the_exported_script():
    assert trace_roles.flows_of(ns2.export_tcl(CHAIN3)) == {(0, 2), (2, 0)}


def test_ns2s_discovery_on_the_chain_read_by_role(tmp_path: Path):
    seed, _ = _seed_dir(tmp_path, "ns2")
    flows = trace_roles.flows_of((seed / "ns2.tcl").read_text(encoding="utf-8"))
    roles = trace_roles.read_trace(seed / "ns2.tr", flows)
    # Node 0 floods for node 2 (TTL 30: ns-2.35's first request goes network
    # wide), node 1 relays it, node 2 answers and node 1 passes the reply on.
    assert roles.counts == {
        "aodv.rreq.started by a flow source, network wide": 1,
        "aodv.rrep.started by the destination": 1,
        "aodv.rrep.passed on": 1,
        "aodv.rrep.reached its next hop": 2,
    }
    # The flood asked for no number (the destination never reached) and drew
    # no intermediate reply.
    assert roles.floods == {"asked 0": [1, 0]}


def test_manetsims_trace_read_by_role_agrees_with_its_results(tmp_path: Path):
    for preset in ("rfc", "ns2"):
        seed, result = _seed_dir(tmp_path / preset, preset)
        roles = trace_roles.read_trace(seed / "manetsim.tr", {(0, 2), (2, 0)})
        rrep = result["routing"]["by_message"]["rrep"]
        c = roles.counts
        assert c["aodv.rrep.passed on"] == rrep["forwarded"] > 0, preset
        started = c["aodv.rrep.started by the destination"]
        started += c["aodv.rrep.started by an intermediate node"]
        assert started == rrep["packets"] - rrep["forwarded"], preset
        rreq = result["routing"]["by_message"]["rreq"]
        originated = sum(n for k, n in c.items() if k.startswith("aodv.rreq.started"))
        assert originated == rreq["packets"] - rreq["forwarded"], preset
    report = trace_roles.report(seed)
    assert report.splitlines()[0].split() == ["manetsim", "ns-2.35"]


def test_a_directory_without_the_traces_is_refused_with_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    assert trace_roles.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "ns2.tcl, ns2.tr, manetsim.tr" in err
    assert "--keep-traces" in err


def test_link_breaks_are_read_by_where_the_next_hop_was(tmp_path: Path):
    # Node 1 starts 100 m from node 0 and leaves at 100 m/s from 1 s: out of
    # the 250 m range from 2.5 s.
    tcl = (
        "$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n"
        "$node_(1) set X_ 100.0\n$node_(1) set Y_ 0.0\n"
        '$ns_ at 1.0 "$node_(1) setdest 1000.0 0.0 100.0"\n'
    )
    moves = trace_roles.Movements(tcl)
    assert moves.position(1, 2.0) == pytest.approx((200.0, 0.0))
    assert moves.position(1, 20.0) == pytest.approx((1000.0, 0.0))
    ip = "[0:0 9:0 30 1]"
    ns2_lines = (
        # At 2 s node 1 is 200 m away: a collision's break.
        f"D 2.000000000 _0_ RTR  CBK 5 cbr 532 [13a 1 0 800] ------- {ip} [3] 0 0\n"
        # At 4 s it is 400 m away, and left the range 1.5 s before.
        f"D 4.000000000 _0_ RTR  CBK 6 cbr 532 [13a 1 0 800] ------- {ip} [4] 0 0\n"
        # ns-2.35's `recvError` drops the queue for the RERR's sender as `CBK`
        # at the instant it receives the RERR: not a break of its own.
        "r 5.000000000 _0_ RTR  --- 0 AODV 32 [0 ffffffff 1 800] ------- "
        "[1:255 -1:255 1 0] [0x8 1 [9 3] 0.000000] (ERROR)\n"
        f"D 5.000000000 _0_ RTR  CBK 8 cbr 532 [13a 1 0 800] ------- {ip} [5] 0 0\n"
    )
    # manetsim's trace, as ns-2.35's with its MAC's lines on: the MAC gives
    # up (`MAC RET`, a break only once the agent drops the packet: an AODV
    # local repair keeps it, at 3 s), then the agent drops it (`RTR CBK`).
    ours_lines = (
        "D 3.000000000 _0_ MAC  RET 0 RTS 20 [4c6 1 0 0]\n"
        f"D 3.000000000 _0_ MAC  RET 6 cbr 540 [13a 1 0 800] ------- {ip} [3] 2 0\n"
        f"f 3.900000000 _0_ RTR  --- 7 cbr 540 [0 0 0 0] ------- {ip} [4] 2 0\n"
        f"D 4.000000000 _0_ MAC  RET 7 cbr 540 [13a 1 0 800] ------- {ip} [4] 2 0\n"
        f"D 4.000000000 _0_ RTR  CBK 7 cbr 540 [0 0 0 0] ------- {ip} [4] 2 0\n"
    )
    counts = {}
    for name, text in (("ns2", ns2_lines), ("ours", ours_lines)):
        path = tmp_path / f"{name}.tr"
        path.write_text(text, encoding="utf-8")
        counts[name] = dict(trace_roles.read_trace(path, set(), moves).counts)
    assert counts["ns2"] == {
        "aodv.link breaks, next hop in range": 1,
        "aodv.link breaks, next hop out of range for 0.5-5 s": 1,
    }
    assert counts["ours"] == {
        "aodv.link breaks, next hop out of range for 0.5-5 s": 1,
        "mac.gave up on, cbr": 2,
    }


def counts_of(tmp_path: Path, lines: str) -> dict[str, int]:
    """The roles `read_trace` counts in a trace of `lines` (no flows)."""
    path = tmp_path / "t.tr"
    path.write_text(lines, encoding="utf-8")
    return dict(trace_roles.read_trace(path, set()).counts)


def test_frames_given_up_and_replies_sent_again_are_counted(tmp_path: Path):
    ip = "[3:255 0:255 255 1]"
    reply = "7 [0 0] [1 2 4 0->3] [0 0 0 0->0]"
    lines = (
        # Node 2 relays 3's reply to 0 over 1; its MAC gives up (RTS, then
        # the frame), and node 2 sends the reply again on another route.
        f"f 1.000000000 _2_ RTR  --- 9 DSR 60 [0 0 0 0] ------- {ip} {reply}\n"
        "s 1.000100000 _2_ MAC  --- 0 RTS 20 [4c6 1 2 0]\n"
        "s 1.001000000 _2_ MAC  --- 0 RTS 20 [4c6 1 2 0]\n"
        "s 1.002000000 _2_ MAC  --- 0 RTS 20 [4c6 1 2 0]\n"
        "D 1.050000000 _2_ MAC  RET 0 RTS 20 [4c6 1 2 0]\n"
        f"D 1.050000000 _2_ MAC  RET 9 DSR 60 [13a 1 2 800] ------- {ip} {reply}\n"
        f"f 1.050000000 _2_ RTR  --- 9 DSR 60 [0 0 0 0] ------- [3:255 0:255 255 4] {reply}\n"
        "D 2.000000000 _2_ MAC  RET 11 cbr 540 [13a 1 2 800] ------- [2:1 0:1 30 1] [3] 0 0\n"
    )
    assert counts_of(tmp_path, lines) == {
        "mac.RTS sent again, attempt 2": 1,
        "mac.RTS sent again, attempt 3": 1,
        "dsr.rrep.sent again by the same node": 1,
        "mac.gave up on, DSR": 1,
        "mac.gave up on, cbr": 1,
    }


def test_route_errors_started_and_full_queue_drops_are_counted(tmp_path: Path):
    err = "[0 0] [0 0 0 0->0] [1 1 0 2->1]"
    lines = (
        # Node 2's MAC gives up on a frame to 1 and 2 tells 0 at once; the
        # error fails too and 2 sends it again later; 4 starts one of its
        # own with no give-up; 3 only passes one on.
        "D 1.000000000 _2_ MAC  RET 0 RTS 20 [4c6 1 2 0]\n"
        "D 1.000000000 _2_ MAC  RET 11 cbr 540 [13a 1 2 800] ------- [0:1 5:1 30 1] [3] 0 0\n"
        f"s 1.000000000 _2_ RTR  --- 12 DSR 44 [0 0 0 0] ------- [2:255 0:255 255 3] 2 {err}\n"
        f"s 1.500000000 _2_ RTR  --- 12 DSR 44 [0 0 0 0] ------- [2:255 0:255 255 6] 2 {err}\n"
        f"s 2.000000000 _4_ RTR  --- 13 DSR 44 [0 0 0 0] ------- [4:255 0:255 255 3] 2 {err}\n"
        f"f 2.000100000 _3_ RTR  --- 12 DSR 44 [0 0 0 0] ------- [2:255 0:255 254 0] 2 {err}\n"
        # Full queues (both spellings); an ARP drop is no full queue.
        "D 3.000000000 _3_ IFQ  IFQ 20 cbr 540 [0 0 0 0] ------- [0:1 5:1 30 1] [4] 0 0\n"
        "D 3.100000000 _3_ IFQ  --- 21 cbr 540 [0 0 0 0] ------- [0:1 5:1 30 1] [5] 0 0\n"
        "D 3.200000000 _4_ IFQ  IFQ 22 cbr 540 [0 0 0 0] ------- [0:1 5:1 30 1] [6] 0 0\n"
        "D 3.300000000 _4_ IFQ  ARP 23 cbr 540 [0 0 0 0] ------- [0:1 5:1 30 1] [7] 0 0\n"
    )
    assert counts_of(tmp_path, lines) == {
        "mac.gave up on, cbr": 1,
        "dsr.rerr.started": 2,
        "mac.gave up, and a DSR route error started at once": 1,
        "dsr.rerr.sent again by the same node": 1,
        "dsr.rerr.relayed": 1,
        "dsr.rerr.relayed, distinct (error, node) pairs": 1,
        "ifq.full, dropped": 3,
        "ifq.full, dropped by the busiest node": 2,
    }


_ERR = "[0 0] [0 0 0 0->0] [1 1 0 2->1]"


def _error_line(event: str, t: float, node: int, uid: int, ip: str) -> str:
    """A router line of a DSR route error (node 2 tells 0 that 2->1 broke)."""
    return f"{event} {t:.9f} _{node}_ RTR  --- {uid} DSR 44 [0 0 0 0] ------- {ip} 2 {_ERR}\n"


def test_route_errors_sent_again_are_told_by_the_give_up_they_follow(tmp_path: Path):
    def send(t: float, uid: int, hop: int) -> str:
        return _error_line("s", t, 2, uid, f"[2:255 0:255 255 {hop}]")

    lines = (
        # Node 2's error 12 fails on its first hop and goes again at once;
        # error 14 waits in the queue for 3, and goes again when the MAC
        # gives up on a CBR packet for 3; error 15 goes again later.
        send(1.0, 12, 3)
        + send(1.0, 14, 3)
        + send(1.0, 15, 3)
        + "D 1.100000000 _2_ MAC  RET 12 DSR 44 [13a 3 2 800] ------- "
        + f"[2:255 0:255 255 3] 2 {_ERR}\n"
        + send(1.1, 12, 6)
        + "D 1.200000000 _2_ MAC  RET 20 cbr 540 [13a 3 2 800] ------- [2:1 5:1 30 3] [4] 0 0\n"
        + send(1.2, 14, 6)
        + send(2.0, 15, 6)
    )
    assert counts_of(tmp_path, lines) == {
        "dsr.rerr.started": 3,
        "dsr.rerr.sent again by the same node": 3,
        "dsr.rerr.sent again at a give-up on it": 1,
        "dsr.rerr.sent again at a give-up on another packet": 1,
        "mac.gave up on, DSR": 1,
        "mac.gave up on, cbr": 1,
    }


def test_route_errors_relayed_are_counted_by_error_and_node(tmp_path: Path):
    def relay(t: float, node: int, uid: int) -> str:
        return _error_line("f", t, node, uid, "[2:255 0:255 254 0]")

    # Error 12 goes over 3 and 4, and 3 relays it a second time (a copy, or
    # after a salvage); error 13 bounces between 5 and 6, 20 relays in all.
    lines = relay(1.0, 3, 12) + relay(1.1, 4, 12) + relay(1.2, 3, 12)
    lines += "".join(relay(2.0 + k / 100, 5 + k % 2, 13) for k in range(20))
    # A relayed reply is no relayed error.
    reply = "[3:255 0:255 255 1] 7 [0 0] [1 2 4 0->3] [0 0 0 0->0]"
    lines += f"f 3.000000000 _2_ RTR  --- 9 DSR 60 [0 0 0 0] ------- {reply}\n"
    # Nor is a request carrying the last route error, relayed or started.
    request = "[2:255 0:255 32 0] 2 [1 7] [0 7 0 0->0] [1 1 0 2->1]"
    lines += f"f 3.100000000 _3_ RTR  --- 10 DSR 48 [0 0 0 0] ------- {request}\n"
    lines += f"s 3.200000000 _2_ RTR  --- 11 DSR 48 [0 0 0 0] ------- {request}\n"
    assert counts_of(tmp_path, lines) == {
        "dsr.rerr.relayed": 23,
        "dsr.rerr.relayed, distinct (error, node) pairs": 4,
        "dsr.rerr.relayed again by the same node": 19,
        "dsr.rerr.errors relayed 20 times or more": 1,
    }
