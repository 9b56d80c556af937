"""Where delivered packets spend their time, read from the traces a crosscheck kept.

Usage: python benches/packet_hops.py DIR/seed-N [--kind cbr]

``manetsim crosscheck SCENARIO --keep-traces DIR`` leaves, for each seed,
ns-2.35's trace (``ns2.tr``) and manetsim's in ns-2's format
(``manetsim.tr``). This follows every delivered packet of one kind (``cbr``
by default) by its id through the routing agents' lines of both traces and
prints, side by side:

- the mean delay, and of it the wait at the source before its first
  ``s … RTR`` line (a route discovery, for DSR its send buffer);
- the time held at relays, per packet: from a relay's ``r … RTR`` to each of
  its ``f … RTR`` lines (salvage waits and failed attempts included);
- a link's time: from an ``s``/``f … RTR`` line to the next node's
  ``r … RTR`` line (interface queue, MAC and air), mean, median, 90th
  percentile;
- distinct relays per packet, and the relay lines per packet (a relay
  forwarding a packet twice counts twice);
- DSR's route requests: originated (an ``s … RTR`` request line at the node
  that is its IP source), how many of them any node relayed, and the relay
  lines per relayed request.

These are the readings behind docs/fidelity.md's "Where DSR's packets wait
longer in ns-2.35".
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

# A DSR request's line: its route length, then `[1 id]`, then the reply part.
_REQUEST = re.compile(r"\[(\d+):\d+ -?\d+:\d+ -?\d+ -?\d+\] \d+ \[1 (\d+)\] \[0 ")


@dataclass
class Hops:
    """One trace's readings."""

    delays_s: list[float] = field(default_factory=list)
    source_waits_s: list[float] = field(default_factory=list)
    held_s: float = 0.0
    links_s: list[float] = field(default_factory=list)
    relays: list[int] = field(default_factory=list)
    relay_lines: list[int] = field(default_factory=list)
    requests: int = 0
    requests_relayed: int = 0
    request_relay_lines: int = 0


def read(path: Path, kind: str) -> Hops:
    """Follows every delivered packet of ``kind`` through ``path``."""
    sent: dict[str, tuple[float, str]] = {}
    delivered: dict[str, float] = {}
    lines: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    originated: set[tuple[str, str]] = set()
    relayed: dict[tuple[str, str], int] = defaultdict(int)
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            t = line.split(maxsplit=8)
            if len(t) < 8 or t[0] not in ("s", "r", "f"):
                continue
            op, node, layer, uid, what = t[0], t[2].strip("_"), t[3], t[5], t[6]
            if what == "DSR" and layer == "RTR" and op in ("s", "f"):
                m = _REQUEST.search(line)
                if m:
                    key = (m.group(1), m.group(2))
                    if op == "s" and m.group(1) == node:
                        originated.add(key)
                    elif op == "f":
                        relayed[key] += 1
                continue
            if what != kind:
                continue
            when = float(t[1])
            if layer == "AGT":
                if op == "s":
                    sent[uid] = (when, node)
                elif op == "r":
                    delivered.setdefault(uid, when)
            elif layer == "RTR":
                lines[uid].append((when, op, node))
    out = Hops()
    out.requests = len(originated)
    out.requests_relayed = sum(1 for k in originated if relayed.get(k))
    out.request_relay_lines = sum(n for k, n in relayed.items() if k in originated)
    for uid, got in delivered.items():
        if uid not in sent:
            continue
        start, source = sent[uid]
        out.delays_s.append(got - start)
        trail = lines.get(uid, [])
        first = next((w for w, op, n in trail if op == "s" and n == source), None)
        if first is not None:
            out.source_waits_s.append(first - start)
        last_in: tuple[float, str] | None = None
        last_out: tuple[float, str] | None = None
        for when, op, node in trail:
            if op == "r":
                if last_out is not None and last_out[1] != node:
                    out.links_s.append(when - last_out[0])
                last_in = (when, node)
            else:
                if op == "f" and last_in is not None and last_in[1] == node:
                    out.held_s += when - last_in[0]
                last_out = (when, node)
        out.relays.append(len({n for _, op, n in trail if op == "f"}))
        out.relay_lines.append(sum(1 for _, op, _ in trail if op == "f"))
    return out


def _quantile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[int(q * (len(ys) - 1))] if ys else float("nan")


def _mean(xs: list[float] | list[int]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def rows(h: Hops) -> list[tuple[str, str]]:
    """The printed rows of one trace: (label, value)."""
    n = len(h.delays_s)
    ms = 1000.0
    return [
        ("packets delivered", f"{n:,}"),
        ("mean delay, ms", f"{ms * _mean(h.delays_s):.1f}"),
        ("of it, at the source before its first s RTR, ms", f"{ms * _mean(h.source_waits_s):.1f}"),
        ("held at relays, per packet, ms", f"{ms * h.held_s / n:.1f}" if n else "nan"),
        (
            "a link, mean (median, 90th percentile), ms",
            f"{ms * _mean(h.links_s):.1f} ({ms * _quantile(h.links_s, 0.5):.1f}, "
            f"{ms * _quantile(h.links_s, 0.9):.1f})",
        ),
        (
            "distinct relays; relay lines, per packet",
            f"{_mean(h.relays):.2f}; {_mean(h.relay_lines):.2f}",
        ),
        (
            "DSR requests originated; relayed at all; relay lines per relayed one",
            f"{h.requests:,}; {h.requests_relayed:,}; "
            + (f"{h.request_relay_lines / h.requests_relayed:.1f}" if h.requests_relayed else "-"),
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed_dir", type=Path, help="DIR/seed-N from --keep-traces")
    parser.add_argument("--kind", default="cbr", help="packet kind to follow (default cbr)")
    args = parser.parse_args(argv)
    traces = [args.seed_dir / "manetsim.tr", args.seed_dir / "ns2.tr"]
    missing = [str(p) for p in traces if not p.is_file()]
    if missing:
        print(f"error: no trace at {', '.join(missing)}", file=sys.stderr)
        return 2
    ours, theirs = (rows(read(p, args.kind)) for p in traces)
    print(f"{'':<72} {'manetsim':>22} {'ns-2.35':>22}")
    for (label, a), (_, b) in zip(ours, theirs):
        print(f"{label:<72} {a:>22} {b:>22}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
