"""`benches/flow_routes.py`: the routes each flow's packets took."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module

flow_routes = bench_module("flow_routes")


def _line(op: str, t: float, node: int, layer: str, uid: int, kind: str = "cbr") -> str:
    """A line of a packet from node 0 to node 3."""
    mac = "[13a 1 0 800]" if layer == "MAC" else "[0 0 0 0]"
    reason = "RET" if op == "D" else "---"
    ip = "[0:0 3:0 32 1] [0] 0 0"
    return f"{op} {t:.9f} _{node}_ {layer}  {reason} {uid} {kind} 532 {mac} ------- {ip}"


def _trace(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# Packet 1 goes 0 -> 1 -> 2; packet 2 too, though node 1 forwards it twice
# (a failed attempt); packet 3, sent last, goes 0 -> 4 -> 2. Packet 2 leaves
# its source before packet 1 does, though its uid is higher.
LINES = [
    _line("s", 1.0, 0, "AGT", 1),
    _line("s", 1.2, 0, "RTR", 1),
    _line("r", 1.21, 1, "RTR", 1),
    _line("f", 1.22, 1, "RTR", 1),
    _line("f", 1.23, 2, "RTR", 1),
    _line("s", 1.1, 0, "RTR", 2),
    _line("f", 1.11, 1, "RTR", 2),
    _line("D", 1.15, 1, "MAC", 2),
    _line("f", 1.16, 1, "RTR", 2),
    _line("f", 1.17, 2, "RTR", 2),
    _line("s", 2.0, 0, "RTR", 3),
    _line("f", 2.01, 4, "RTR", 3),
    _line("f", 2.02, 2, "RTR", 3),
    # Neither a TCP segment nor an RTS given up on counts.
    _line("s", 2.5, 0, "RTR", 4, kind="tcp"),
    _line("D", 2.6, 0, "MAC", 5, kind="RTS"),
]


def test_routes_changes_and_give_ups_of_one_flow(tmp_path: Path):
    r = flow_routes.read(_trace(tmp_path / "t.tr", LINES), "cbr")
    assert list(r.packets) == [(0, 3)]
    assert r.used((0, 3)) == {(0, 1, 2): 2, (0, 4, 2): 1}
    assert r.changes((0, 3)) == 1
    assert r.timeline((0, 3)) == [
        (pytest.approx(1.1), (0, 1, 2)),
        (pytest.approx(2.0), (0, 4, 2)),
    ]
    assert (r.gave_up, r.has_mac_lines) == (1, True)
    tcp = flow_routes.read(tmp_path / "t.tr", "tcp")
    assert tcp.used((0, 3)) == {(0,): 1}


def test_main_prints_both_traces_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    seed = tmp_path / "seed-1"
    seed.mkdir()
    _trace(seed / "manetsim.tr", LINES)
    # ns-2.35's trace without MAC lines: one route, no give-ups known.
    _trace(seed / "ns2.tr", [line for line in LINES if " MAC " not in line][:5])
    assert flow_routes.main([str(seed), "--flow", "0", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    flow = next(line for line in out if line.startswith("flow 0 -> 3"))
    assert "2 routes; 2 on 3 hops; 1 changes" in flow
    assert flow.rstrip().endswith("1 routes; 1 on 3 hops; 0 changes")
    gave_up = next(line for line in out if line.startswith("frames the MACs gave up on"))
    assert gave_up.split()[-2:] == ["1", "-"]
    assert "      2.000000  0 4 2" in out


def test_main_names_a_missing_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert flow_routes.main([str(tmp_path)]) == 2
    assert "manetsim.tr" in capsys.readouterr().err
