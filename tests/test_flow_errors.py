"""`benches/flow_errors.py`: why DSR relays did not know a flow."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module

flow_errors = bench_module("flow_errors")


def _r(t: float, node: int, uid: int, ttl: int, src: int = 0, dst: int = 3) -> str:
    """A router-level reception of a CBR packet of `src -> dst`."""
    ip = f"[{src}:0 {dst}:0 {ttl} {node}] [0] 0 0"
    return f"r {t:.9f} _{node}_ RTR  --- {uid} cbr 532 [13a 1 0 800] ------- {ip}"


# Source 0 opens flow 1 along 0-1-2-3 (uid 1, learned by relays 1 and 2),
# then flow 3 along 0-2-3 (uid 4: relay 2 learns it, relay 1 never does).
LINES = [
    "SFESTs 1.000000000 _0_ 1 [0 -> 3] 1(1) to 1 [0 |1 2 3 ]",
    _r(1.01, 1, 1, 32),
    _r(1.02, 2, 1, 31),
    "SFs 2.000000000 _0_ 2 [0 -> 3] 1(0) to 1 ",
    "SFs 2.100000000 _0_ 3 [0 -> 3] 1(1) to 1 ",
    "SFESTs 3.000000000 _0_ 4 [0 -> 3] 3(1) to 2 [0 |2 3 ]",
    _r(3.01, 2, 4, 32),
    # Packet 2, sent on flow 1 without a header, reaches relay 2 after it
    # learned flow 3: the default moved on.
    _r(3.5, 2, 2, 31),
    "SFErr 3.50000 _2_ 0 -> 3 : 0",
    # Packet 5, on flow 3 without a header, reaches relay 1, which only
    # knows flow 1.
    "SFs 4.000000000 _0_ 5 [0 -> 3] 3(0) to 2 ",
    _r(4.01, 1, 5, 32),
    "SFErr 4.01000 _1_ 0 -> 3 : 0",
    # Packet 3 (flow 1, with its header) at node 4, which learned nothing:
    # it reports flow 1 unknown; node 5 reports a flow at no reception.
    _r(4.5, 4, 3, 30),
    "SFErr 4.50000 _4_ 0 -> 3 : 1",
    "SFErr 5.00000 _5_ 0 -> 3 : 0",
]


def _trace(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_unknown_flow_error_is_sorted_by_what_the_relay_had_learned(tmp_path: Path):
    counts = flow_errors.causes(_trace(tmp_path / "t.tr", LINES))
    assert counts == {
        "default: the relay had learned a newer flow": 1,
        "default: the relay had learned only older flows": 1,
        "header: a flow the relay never learned": 1,
        "at no reception": 1,
    }
    assert set(counts) <= set(flow_errors.CAUSES)


def test_a_relay_off_the_route_learns_nothing_from_a_salvaged_packet(tmp_path: Path):
    # Node 7 receives packet 1, salvaged off its route 0-1-2-3: it has no
    # flow of the pair when packet 2 (default flow) reaches it.
    lines = [*LINES[:4], _r(2.5, 7, 1, 30), _r(2.6, 7, 2, 30), "SFErr 2.60000 _7_ 0 -> 3 : 0"]
    counts = flow_errors.causes(_trace(tmp_path / "t.tr", lines))
    assert counts == {"default: the relay learned no flow of the pair": 1}


def test_a_salvaged_copy_back_on_the_route_teaches_the_relay_nothing(tmp_path: Path):
    # Packet 1 reaches relay 2 only as a copy relay 1 salvaged over node 7
    # (TTL 30, where the route 0-1-2-3 brings it with 31): relay 2 has no
    # flow of the pair when packet 2 (default flow) reaches it.
    lines = [
        LINES[0],
        _r(1.01, 1, 1, 32),
        _r(1.02, 7, 1, 31),
        _r(1.03, 2, 1, 30),
        LINES[3],
        _r(2.5, 2, 2, 31),
        "SFErr 2.50000 _2_ 0 -> 3 : 0",
    ]
    counts = flow_errors.causes(_trace(tmp_path / "t.tr", lines))
    assert counts == {"default: the relay learned no flow of the pair": 1}
    # Brought by the route, the same packet teaches it flow 1.
    lines[3] = _r(1.03, 2, 1, 31)
    counts = flow_errors.causes(_trace(tmp_path / "t.tr", lines))
    assert counts == {"default: the relay's default flow, the same TTL": 1}


def test_the_command_prints_both_traces_side_by_side(tmp_path: Path, capsys):
    for side in ("manetsim", "ns2"):
        (tmp_path / "seed-1").mkdir(exist_ok=True)
        _trace(tmp_path / "seed-1" / f"{side}.tr", LINES if side == "ns2" else LINES[:3])
    assert flow_errors.main([str(tmp_path), "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "seeds 1-1" in out
    row = next(line for line in out.splitlines() if line.startswith("at no reception"))
    assert row.split()[-2:] == ["0", "1"]
    assert out.splitlines()[-1].split()[-2:] == ["0", "4"]


def test_bad_input_is_refused_with_the_file_and_line(tmp_path: Path, capsys):
    (tmp_path / "seed-1").mkdir()
    _trace(tmp_path / "seed-1" / "manetsim.tr", ["SFErr 1.0 _2_"])
    _trace(tmp_path / "seed-1" / "ns2.tr", LINES)
    assert flow_errors.main([str(tmp_path), "--seeds", "1"]) == 2
    assert "manetsim.tr:1: an SFErr line has too few fields" in capsys.readouterr().err
    assert flow_errors.main([str(tmp_path), "--seeds", "2"]) == 2
    assert "no trace" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        flow_errors.main([str(tmp_path), "--seeds", "x"])
