"""`benches/broadcast_access.py`: how long AODV's route requests take at each hop."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module

broadcast_access = bench_module("broadcast_access")


def _request(op: str, t: float, node: int, layer: str, mac_src: int = 0) -> str:
    """A line of the request that node 3 originates with id 5."""
    mac = f"[0 ffffffff {mac_src:x} 800]" if layer == "MAC" else "[0 0 0 0]"
    return (
        f"{op} {t:.9f} _{node}_ {layer}  --- 0 AODV 48 {mac} ------- "
        f"[{node}:255 -1:255 30 0] [0x2 1 5 [9 0] [3 4]] (REQUEST)"
    )


def test_jitter_access_and_airtime_of_a_flooded_request(tmp_path: Path):
    lines = [
        # Node 6 sent a frame 5 ms before its request reached its MAC: not quiet.
        "s 0.995000000 _6_ MAC  --- 0 RTS 44 [1d2 2 6 0] ",
        # Node 3 originates at 1.0 and finds the medium idle (0.4 ms).
        _request("s", 1.0, 3, "RTR"),
        _request("s", 1.0004, 3, "MAC"),
        _request("s", 1.0, 6, "RTR"),
        _request("s", 1.001, 6, "MAC"),
        # Its frame reaches nodes 4 and 5 after 800 us (counted once).
        _request("r", 1.0012, 4, "MAC", mac_src=3),
        _request("r", 1.0013, 5, "MAC", mac_src=3),
        # Node 4 relays after 5 ms of jitter, but sends an RTS before its
        # request goes: its access is not counted.
        _request("s", 1.0062, 4, "RTR"),
        "s 1.007000000 _4_ MAC  --- 0 RTS 44 [1d2 2 4 0] ",
        _request("s", 1.0100, 4, "MAC"),
        _request("r", 1.0108, 7, "MAC", mac_src=4),
        # Node 5 relays after 1.7 ms and waits 12 ms for the medium.
        _request("s", 1.0030, 5, "RTR"),
        _request("s", 1.0150, 5, "MAC"),
        # A second copy node 5 hears changes nothing.
        _request("r", 1.0200, 5, "MAC", mac_src=4),
    ]
    trace = tmp_path / "t.tr"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    a = broadcast_access.read(trace)
    assert a.jitters_s == [pytest.approx(0.005), pytest.approx(0.0017)]
    assert a.access_s == [pytest.approx(0.0004), pytest.approx(0.012)]
    assert a.idle_share() == pytest.approx(0.5)
    assert dict(a.airtimes_us) == {800: 2}
    labels = [label for label, _ in broadcast_access.rows(a)]
    assert len(labels) == 5


def test_main_prints_both_traces_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    seed = tmp_path / "seed-1"
    seed.mkdir()
    for name, air in (("manetsim.tr", 0.00052), ("ns2.tr", 0.000848)):
        lines = [_request("s", 1.0, 3, "RTR"), _request("s", 1.0004, 3, "MAC")]
        lines.append(_request("r", 1.0004 + air, 4, "MAC", mac_src=3))
        (seed / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert broadcast_access.main([str(seed)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("a request's frame"))
    assert "520 (1 frames)" in row
    assert "848 (1 frames)" in row


def test_main_names_a_missing_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert broadcast_access.main([str(tmp_path)]) == 2
    assert "manetsim.tr" in capsys.readouterr().err
