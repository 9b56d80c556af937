"""`benches/dsr_requests.py`: DSR requests and cache replies, read from kept traces."""

from __future__ import annotations

from pathlib import Path

from helpers import bench_module

dsr_requests = bench_module("dsr_requests")


def _line(op: str, t: float, node: int, src: int, dst: int, hops: int, rest: str) -> str:
    """A DSR line of a routing agent, as ns-2.35 traces it."""
    ip = f"[{src}:255 {dst}:255 32 0]"
    return (
        f"{op} {t:.9f} _{node}_ RTR  --- 7 DSR 48 [0 ffffffff 0 800] ------- "
        f"{ip} {hops} {rest} [0 0 0 0->0]"
    )


def _request(op: str, t: float, node: int, initiator: int, number: int, hops: int) -> str:
    """A copy of `initiator`'s request `number` for node 9."""
    return _line(op, t, node, initiator, 9, hops, f"[1 {number}] [0 {number} 0 0->0]")


def _reply(t: float, node: int, to: int, last: int) -> str:
    """A reply `node` originates to `to` whose route ends at `last`."""
    return _line("s", t, node, node, to, 2, f"[0 0] [1 0 3 {to}->{last}]")


# Node 0 asks for node 9 (request 1, non-propagating): node 1 takes it and
# answers from its cache at once; node 2 takes it and does not answer.
# 40 ms later node 0 asks again (request 2): node 1 answers again, node 2
# passes it on (a relay's `f` line is not a request sent), node 3 takes
# it from node 2 (second hop) and answers 5 ms later, too late to count;
# node 4 missed request 1 and answers request 2. Node 1 also sends a reply
# ending at itself (a target's reply, not from its cache).
LINES = [
    _request("s", 1.000, 0, 0, 1, 1),
    _request("r", 1.001, 1, 0, 1, 1),
    _reply(1.001, 1, 0, 9),
    _request("r", 1.001, 2, 0, 1, 1),
    _request("r", 1.002, 1, 0, 1, 1),
    _request("s", 1.040, 0, 0, 2, 1),
    _request("r", 1.041, 1, 0, 2, 1),
    _reply(1.0415, 1, 0, 9),
    _request("r", 1.041, 2, 0, 2, 1),
    _request("r", 1.041, 4, 0, 2, 1),
    _reply(1.041, 4, 0, 9),
    _request("f", 1.045, 2, 0, 2, 2),
    _request("r", 1.046, 3, 0, 2, 2),
    _reply(1.051, 3, 0, 9),
    _reply(1.060, 1, 0, 1),
    _request("s", 2.000, 0, 0, 3, 1),
]


def _trace(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_trace_gives_requests_first_copies_and_cache_replies(tmp_path: Path):
    r = dsr_requests.read(_trace(tmp_path / "t.tr", LINES))
    assert r.sent == {(0, 1): (1.0, 9), (0, 2): (1.04, 9), (0, 3): (2.0, 9)}
    assert r.taken[(1, 0, 1)] == (1.001, 1, 9)
    assert r.taken[(3, 0, 2)] == (1.046, 2, 9)
    assert sorted(r.taken) == [(1, 0, 1), (1, 0, 2), (2, 0, 1), (2, 0, 2), (3, 0, 2), (4, 0, 2)]
    assert {k: len(v) for k, v in r.cache_replies.items()} == {(1, 0): 2, (4, 0): 1, (3, 0): 1}
    # Request 3 comes 0.96 s after request 2: a new discovery.
    assert r.forerunners() == {(0, 2): (0, 1)}


def test_the_tally_counts_answers_by_hop_and_the_first_hop_of_follow_ups(tmp_path: Path):
    r = dsr_requests.read(_trace(tmp_path / "t.tr", LINES))
    t = dsr_requests.Tally()
    t.add(r)
    t.add(r)
    assert dict(t.by_hop) == {1: [10, 6], 2: [2, 0]}
    assert dict(t.first_hop) == {
        ("had answered it", True): 2,
        ("had not answered it", False): 2,
        ("had not taken it", True): 2,
    }
    rows = dsr_requests.table(t, dsr_requests.Tally())
    assert rows[2] == "| 1 | 6 / 10 (0.600) | - |"
    assert "| had answered it | 2 / 2 (1.000) | - |" in rows


def test_without_kept_traces_it_says_so(tmp_path: Path, capsys):
    assert dsr_requests.main([str(tmp_path)]) == 2
    assert "no kept traces" in capsys.readouterr().err
