"""AODV's and AOMDV's route searches by ring, read from the traces a crosscheck kept.

Usage: python benches/ring_searches.py DIR [DIR ...]

``manetsim crosscheck SCENARIO --keep-traces DIR`` leaves, for each seed,
ns-2.35's trace (``ns2.tr``) and manetsim's in ns-2's format
(``manetsim.tr``). Each DIR is one seed's folder (``DIR/seed-N``) or the
folder holding them. This reads, in both traces, every route request:

- a search is a request its source sent (its ``s … RTR`` line with hop
  count 0), named by its source and broadcast id; its ring is the TTL it
  left with (ns-2.35's expanding ring search, or network-wide);
- its reach is the nodes whose routing agent received a copy (``r … RTR``
  lines), the source left out;
- its TTL lines are the ``D … RTR TTL`` lines of its copies: a node that
  would relay the request but whose TTL ran out.

For each ring it prints, manetsim beside ns-2.35, the searches, the TTL
lines and their mean a search with its 95 % confidence interval (normal
approximation over the searches), and the mean reach. These are the
readings behind docs/fidelity.md's AOMDV TTL lines (2026-12-04).
"""

from __future__ import annotations

import math
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from manetsim import ns2

if TYPE_CHECKING:
    from pathlib import Path

# `[src:port dst:port ttl next]` then the request's
# `[type hops bcast_id [dst dst_seq] [src src_seq]]`.
_REQUEST = re.compile(
    r"------- \[(-?\d+):-?\d+ -?\d+:-?\d+ (\d+) -?\d+\] "
    r"\[0x2 (\d+) (\d+) \[(\d+) \d+\] \[(\d+) \d+\]\] \(REQUEST\)"
)

Search = tuple[int, int]


@dataclass
class Searches:
    """One trace's route searches."""

    ttl: dict[Search, int] = field(default_factory=dict)
    reach: dict[Search, set[int]] = field(default_factory=lambda: defaultdict(set))
    ttl_lines: dict[Search, int] = field(default_factory=lambda: defaultdict(int))


def read(path: Path) -> Searches:
    """The searches of one trace (ns-2's wireless format)."""
    out = Searches()
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if "(REQUEST)" not in line or " RTR " not in line:
                continue
            m = _REQUEST.search(line)
            if m is None:
                continue
            tokens = line.split()
            event, node = tokens[0], int(tokens[2].strip("_"))
            ip_ttl, hops, bid, src = int(m[2]), int(m[3]), int(m[4]), int(m[6])
            key = (src, bid)
            if event == "s" and hops == 0 and node == src:
                out.ttl.setdefault(key, ip_ttl)
            elif event == "r" and node != src:
                out.reach[key].add(node)
            elif event == "D" and tokens[4] == "TTL":
                out.ttl_lines[key] += 1
    return out


@dataclass
class Ring:
    """The searches of one ring, over every trace read."""

    lines: list[int] = field(default_factory=list)
    reach: list[int] = field(default_factory=list)

    def add(self, s: Searches, key: Search) -> None:
        self.lines.append(s.ttl_lines.get(key, 0))
        self.reach.append(len(s.reach.get(key, ())))


def rings(traces: list[Searches]) -> dict[int, Ring]:
    out: dict[int, Ring] = defaultdict(Ring)
    for s in traces:
        for key, ttl in s.ttl.items():
            out[ttl].add(s, key)
    return dict(out)


def mean_ci(values: list[int]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (0 for one value)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _mean_ci_text(values: list[int]) -> str:
    if not values:
        return "-"
    mean, half = mean_ci(values)
    return f"{mean:.2f} ± {half:.2f}"


def table(ours: dict[int, Ring], theirs: dict[int, Ring]) -> list[str]:
    rows = [
        "| TTL | searches (manetsim / ns-2.35) | TTL lines | lines a search | reach a search |",
        "|---|---|---|---|---|",
    ]
    for ttl in sorted(set(ours) | set(theirs)):
        a, b = ours.get(ttl, Ring()), theirs.get(ttl, Ring())
        lines = " / ".join(_mean_ci_text(r.lines) for r in (a, b))
        reach = " / ".join(f"{mean_ci(r.reach)[0]:.1f}" if r.reach else "-" for r in (a, b))
        rows.append(
            f"| {ttl} | {len(a.lines)} / {len(b.lines)} | {sum(a.lines)} / {sum(b.lines)} "
            f"| {lines} | {reach} |"
        )
    total = [sum(len(r.lines) for r in x.values()) for x in (ours, theirs)]
    lines = [sum(sum(r.lines) for r in x.values()) for x in (ours, theirs)]
    rows.append(f"| all | {total[0]} / {total[1]} | {lines[0]} / {lines[1]} | | |")
    return rows


def main(argv: list[str] | None = None) -> int:
    seeds = ns2.kept_seeds_from_argv("ring_searches", __doc__.split("\n\n")[0], argv)
    if seeds is None:
        return 2
    ours = rings([read(m) for _, (m, _) in seeds])
    theirs = rings([read(n) for _, (_, n) in seeds])
    print(f"{len(seeds)} seed(s): {', '.join(d.name for d, _ in seeds)}")
    print("\n".join(table(ours, theirs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
