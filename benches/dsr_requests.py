"""DSR's route requests and the replies relays send from their caches, read from kept traces.

Usage: python benches/dsr_requests.py DIR [DIR ...]

``manetsim crosscheck SCENARIO --set routing.protocol=dsr --keep-traces DIR``
leaves, for each seed, ns-2.35's trace (``ns2.tr``) and manetsim's in
ns-2's format (``manetsim.tr``). Each DIR is one seed's folder
(``DIR/seed-N``) or the folder holding them. This reads, in both traces,
the routing agents' DSR lines:

- a request is named by its initiator and number (``[1 id]``); its
  initiator's ``s`` line starts it; a node takes the first copy it
  receives (its first ``r`` line), whose route record (the trace's hop
  count: the initiator and the relays so far) gives the hop it came over;
- a request is a follow-up when its initiator asked for the same target
  25-130 ms before (ns-2.35 sends a non-propagating request first and a
  propagating one when no reply came within 30 ms; manetsim's ``ns2``
  preset paces them as ns-2.35 does), and the earlier one is its
  forerunner;
- a node answers a request from its cache when, within 2 ms of taking
  it, it sends a reply of its own (``s`` line with the node the IP
  source) to the initiator whose route ends at another node (the
  target's own replies end at the target). Neither simulator delays such
  a reply. The time decides, not the request number, because manetsim's
  replies do not carry it (ns-2.35's do, "for analysis purposes").

It prints, manetsim beside ns-2.35: for each hop, the copies nodes other
than the target took and how many of them they answered from their
caches; and, for the first hop of follow-up requests, whether each
receiver had taken and answered the forerunner too. These are the
readings behind docs/fidelity.md's DSR request lines (2026-12-04).
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from manetsim import ns2

if TYPE_CHECKING:
    from pathlib import Path

# `s|r|f time _node_ RTR reason uid DSR size [mac] ------- [src:port
# dst:port ttl next] h [q id] [r id len a->b] [w n t f->u]`
_LINE = re.compile(
    r"^([srf]) (\S+) _(\d+)_ RTR\s+\S+ \d+ DSR \d+ \[[^\]]*\] ------- "
    r"\[(\d+):\d+ (\d+):\d+ \d+ -?\d+\] (\d+) \[(\d) (\d+)\] \[(\d) \d+ \d+ \d+->(\d+)\]"
)

# A follow-up request comes this long after its forerunner (s).
FOLLOW_UP_S = (0.025, 0.130)
# A cache reply leaves at most this long after the request it answers (s).
ANSWER_S = 0.002
# Hops from this many on are counted together.
MAX_HOP = 6

Request = tuple[int, int]  # (initiator, number)


@dataclass
class Requests:
    """One trace's route requests and cache replies."""

    # (initiator, number) -> (time sent, target)
    sent: dict[Request, tuple[float, int]] = field(default_factory=dict)
    # (node, initiator, number) -> (time, hop, target) of the first copy taken
    taken: dict[tuple[int, int, int], tuple[float, int, int]] = field(default_factory=dict)
    # (node, initiator) -> times of the node's cache replies to the initiator
    cache_replies: dict[tuple[int, int], list[float]] = field(
        default_factory=lambda: defaultdict(list)
    )

    def answered(self, node: int, initiator: int, at: float) -> bool:
        """Whether `node` sent `initiator` a cache reply just after `at`."""
        times = self.cache_replies.get((node, initiator), ())
        return any(0.0 <= t - at < ANSWER_S for t in times)

    def forerunners(self) -> dict[Request, Request]:
        """Each follow-up request's forerunner."""
        by_initiator: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
        for (initiator, number), (t, target) in self.sent.items():
            by_initiator[initiator].append((t, number, target))
        out: dict[Request, Request] = {}
        lo, hi = FOLLOW_UP_S
        for initiator, reqs in by_initiator.items():
            reqs.sort()
            for (t0, n0, g0), (t1, n1, g1) in zip(reqs, reqs[1:]):
                if g0 == g1 and lo <= t1 - t0 <= hi:
                    out[(initiator, n1)] = (initiator, n0)
        return out


def read(path: Path) -> Requests:
    """The requests and cache replies of one trace (ns-2's wireless format)."""
    out = Requests()
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if " RTR " not in line or " DSR " not in line:
                continue
            m = _LINE.match(line)
            if m is None:
                continue
            event, t, node = m[1], float(m[2]), int(m[3])
            src, dst, hop = int(m[4]), int(m[5]), int(m[6])
            if m[7] == "1":
                number = int(m[8])
                if event == "s" and node == src:
                    out.sent.setdefault((src, number), (t, dst))
                elif event == "r" and node != src:
                    out.taken.setdefault((node, src, number), (t, hop, dst))
            elif m[9] == "1" and event == "s" and node == src and int(m[10]) != node:
                out.cache_replies[(node, dst)].append(t)
    return out


@dataclass
class Tally:
    """Over every trace read: copies taken and answered by hop, and the
    first hop of follow-ups by what the receiver did with the forerunner."""

    by_hop: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    first_hop: Counter[tuple[str, bool]] = field(default_factory=Counter)

    def add(self, r: Requests) -> None:
        for (node, initiator, _), (t, hop, target) in r.taken.items():
            if node == target:
                continue
            row = self.by_hop[min(hop, MAX_HOP)]
            row[0] += 1
            row[1] += r.answered(node, initiator, t)
        for (initiator, number), (initiator0, number0) in r.forerunners().items():
            target = r.sent[(initiator, number)][1]
            for (node, i, n), (t, hop, _) in r.taken.items():
                if i != initiator or n != number or hop != 1 or node == target:
                    continue
                before = r.taken.get((node, initiator0, number0))
                if before is None:
                    what = "had not taken it"
                elif r.answered(node, initiator, before[0]):
                    what = "had answered it"
                else:
                    what = "had not answered it"
                self.first_hop[(what, r.answered(node, initiator, t))] += 1


def _share(answered: int, of: int) -> str:
    return f"{answered:,} / {of:,} ({answered / of:.3f})" if of else "-"


def table(ours: Tally, theirs: Tally) -> list[str]:
    rows = [
        "| hop | copies answered from caches: manetsim | ns-2.35 |",
        "|---|---|---|",
    ]
    for hop in sorted(set(ours.by_hop) | set(theirs.by_hop)):
        a, b = ours.by_hop.get(hop, [0, 0]), theirs.by_hop.get(hop, [0, 0])
        name = f"{hop}+" if hop == MAX_HOP else str(hop)
        rows.append(f"| {name} | {_share(a[1], a[0])} | {_share(b[1], b[0])} |")
    rows += [
        "",
        "| follow-up's first hop: the receiver ... its forerunner | "
        "answered the follow-up: manetsim | ns-2.35 |",
        "|---|---|---|",
    ]
    for what in ("had answered it", "had not answered it", "had not taken it"):
        a = [ours.first_hop[(what, x)] for x in (True, False)]
        b = [theirs.first_hop[(what, x)] for x in (True, False)]
        rows.append(f"| {what} | {_share(a[0], sum(a))} | {_share(b[0], sum(b))} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    seeds = ns2.kept_seeds_from_argv("dsr_requests", __doc__.split("\n\n")[0], argv)
    if seeds is None:
        return 2
    ours, theirs = Tally(), Tally()
    sent, follow_ups = [0, 0], [0, 0]
    for _, (m, n) in seeds:
        for k, (r, tally) in enumerate(((read(m), ours), (read(n), theirs))):
            tally.add(r)
            sent[k] += len(r.sent)
            follow_ups[k] += len(r.forerunners())
    print(f"{len(seeds)} seed(s): {', '.join(d.name for d, _ in seeds)}")
    print(f"requests sent: manetsim {sent[0]:,}, ns-2.35 {sent[1]:,}")
    print(f"of them follow-ups: manetsim {follow_ups[0]:,}, ns-2.35 {follow_ups[1]:,}")
    print("\n".join(table(ours, theirs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
