"""`benches/ring_searches.py`: route searches by ring, read from kept traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module

ring_searches = bench_module("ring_searches")


def _request(
    op: str, node: int, hops: int, bid: int, src: int, ttl: int, reason: str = "---"
) -> str:
    """A route request of `src`'s search `bid` for node 9, as ns-2.35 traces it."""
    ip = f"[{node}:255 -1:255 {ttl} 0]"
    rq = f"[0x2 {hops} {bid} [9 0] [{src} 4]] (REQUEST)"
    mac = "[0 ffffffff 1 800]"
    return f"{op} 1.000000000 _{node}_ RTR  {reason} 0 AOMDV 52 {mac} ------- {ip} {rq}"


# Node 0's search 1 leaves with TTL 2: nodes 1 and 2 receive it (node 1
# twice), node 2 relays it and node 3, two hops out, drops it with its TTL
# spent. Node 0's search 2 leaves with TTL 30 and reaches node 1 only; a
# relayed request (hop count 1) and a MAC line are not searches.
LINES = [
    _request("s", 0, 0, 1, 0, 2),
    _request("r", 1, 0, 1, 0, 2),
    _request("r", 1, 0, 1, 0, 2),
    _request("r", 2, 0, 1, 0, 2),
    _request("s", 2, 1, 1, 0, 1),
    _request("r", 3, 1, 1, 0, 1),
    _request("D", 3, 2, 1, 0, 0, reason="TTL"),
    _request("s", 0, 0, 2, 0, 30),
    _request("r", 1, 0, 2, 0, 30),
    _request("s", 0, 0, 3, 0, 30).replace(" RTR ", " MAC "),
]


def _trace(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_trace_gives_each_searchs_ring_reach_and_ttl_lines(tmp_path: Path):
    s = ring_searches.read(_trace(tmp_path / "t.tr", LINES))
    assert s.ttl == {(0, 1): 2, (0, 2): 30}
    assert {k: sorted(v) for k, v in s.reach.items()} == {(0, 1): [1, 2, 3], (0, 2): [1]}
    assert dict(s.ttl_lines) == {(0, 1): 1}
    rings = ring_searches.rings([s, s])
    assert (rings[2].lines, rings[2].reach) == ([1, 1], [3, 3])
    assert (rings[30].lines, rings[30].reach) == ([0, 0], [1, 1])


def test_mean_ci_is_the_normal_interval_of_the_mean():
    mean, half = ring_searches.mean_ci([1, 2, 3, 4])
    assert mean == 2.5
    assert half == pytest.approx(1.96 * (5 / 3 / 4) ** 0.5)
    assert ring_searches.mean_ci([7]) == (7.0, 0.0)


def test_main_prints_both_traces_by_ring(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    seed = tmp_path / "seed-1"
    seed.mkdir()
    _trace(seed / "manetsim.tr", LINES)
    _trace(seed / "ns2.tr", LINES[:7])
    assert ring_searches.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "1 seed(s): seed-1"
    assert "| 2 | 1 / 1 | 1 / 1 | 1.00 ± 0.00 / 1.00 ± 0.00 | 3.0 / 3.0 |" in out
    assert "| 30 | 1 / 0 | 0 / 0 | 0.00 ± 0.00 / - | 1.0 / - |" in out
    assert out[-1] == "| all | 2 / 1 | 1 / 1 | | |"


def test_main_names_a_missing_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert ring_searches.main([str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
    (tmp_path / "manetsim.tr").write_text("", encoding="utf-8")
    assert ring_searches.main([str(tmp_path)]) == 2
    assert "ns2.tr" in capsys.readouterr().err
