"""The routes each flow's packets took, read from the traces a crosscheck kept.

Usage: python benches/flow_routes.py DIR/seed-N [--kind cbr] [--flow SRC DST]

``manetsim crosscheck SCENARIO --keep-traces DIR`` leaves, for each seed,
ns-2.35's trace (``ns2.tr``) and manetsim's in ns-2's format
(``manetsim.tr``). This reads, in both, every packet of one kind (``cbr`` by
default) that left its source's routing agent: the nodes of its ``s`` and
``f … RTR`` lines, in order, are the route it took (a node that forwards it
twice in a row, after a failed attempt, counts once). It prints side by
side, for each flow (IP source and destination):

- how many routes its packets took, how many packets took the most used
  one, and that route's hops;
- how often a packet took another route than the flow's packet before it.

and in all: the (flow, route) pairs, the route changes, and the frames of
that kind the MACs gave up on (``D … MAC RET`` lines; ns-2.35 writes them
only with ``--mac-trace``, else the count shows as ``-``).

With ``--flow SRC DST`` it prints each trace's timeline for that flow: the
moment a packet first took each new route, and the route.

These are the readings behind docs/fidelity-record.md's grid50 route changes
(2026-11-30).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from manetsim import ns2

# The IP header's source and destination (`[src:port dst:port ttl next]`).
_IP = re.compile(r"------- \[(\d+):-?\d+ (-?\d+):-?\d+ ")

Flow = tuple[int, int]
Route = tuple[int, ...]


@dataclass
class Routes:
    """One trace's readings."""

    # Per flow, the route of each packet, in the order the packets left
    # their source, with the time each left.
    packets: dict[Flow, list[tuple[float, Route]]] = field(default_factory=dict)
    gave_up: int = 0
    has_mac_lines: bool = False

    def used(self, flow: Flow) -> Counter[Route]:
        return Counter(route for _, route in self.packets.get(flow, []))

    def changes(self, flow: Flow) -> int:
        routes = [route for _, route in self.packets.get(flow, [])]
        return sum(1 for a, b in zip(routes, routes[1:]) if a != b)

    def timeline(self, flow: Flow) -> list[tuple[float, Route]]:
        """Each packet whose route differs from the packet's before it."""
        out: list[tuple[float, Route]] = []
        for t, route in self.packets.get(flow, []):
            if not out or out[-1][1] != route:
                out.append((t, route))
        return out


def read(path: Path, kind: str) -> Routes:
    """The routes of the packets of ``kind`` in the trace at ``path``."""
    lines: dict[int, list[tuple[float, int]]] = defaultdict(list)
    flows: dict[int, Flow] = {}
    r = Routes()
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 7:
                continue
            layer = parts[3]
            if layer == "MAC":
                r.has_mac_lines = True
                # `D t _n_ MAC  RET uid kind ...`: the reason comes before
                # the uid on a drop line.
                if parts[0] == "D" and parts[4] == "RET" and parts[6] == kind:
                    r.gave_up += 1
                continue
            if layer != "RTR" or parts[0] not in ("s", "f") or parts[6] != kind:
                continue
            m = _IP.search(line)
            if m is None:
                continue
            uid = int(parts[5])
            node = int(parts[2].strip("_"))
            hops = lines[uid]
            if not hops or hops[-1][1] != node:
                hops.append((float(parts[1]), node))
            flows.setdefault(uid, (int(m.group(1)), int(m.group(2))))
    by_flow: dict[Flow, list[tuple[float, Route]]] = defaultdict(list)
    for uid, hops in lines.items():
        by_flow[flows[uid]].append((hops[0][0], tuple(node for _, node in hops)))
    for packets in by_flow.values():
        packets.sort()
    r.packets = dict(sorted(by_flow.items()))
    return r


def rows(ours: Routes, theirs: Routes) -> list[tuple[str, str, str]]:
    """(label, manetsim's, ns-2.35's) for each flow, then the totals."""
    out: list[tuple[str, str, str]] = []

    def per_flow(r: Routes, flow: Flow) -> str:
        used = r.used(flow)
        if not used:
            return "-"
        main, n = used.most_common(1)[0]
        return f"{len(used)} routes; {n} on {len(main)} hops; {r.changes(flow)} changes"

    for flow in sorted(set(ours.packets) | set(theirs.packets)):
        label = f"flow {flow[0]} -> {flow[1]}"
        out.append((label, per_flow(ours, flow), per_flow(theirs, flow)))

    def pairs(r: Routes) -> str:
        return str(sum(len(r.used(flow)) for flow in r.packets))

    def changes(r: Routes) -> str:
        return str(sum(r.changes(flow) for flow in r.packets))

    def gave_up(r: Routes) -> str:
        return str(r.gave_up) if r.has_mac_lines else "-"

    out.append(("(flow, route) pairs", pairs(ours), pairs(theirs)))
    out.append(("route changes", changes(ours), changes(theirs)))
    out.append(("frames the MACs gave up on", gave_up(ours), gave_up(theirs)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed_dir", type=Path, help="DIR/seed-N from --keep-traces")
    parser.add_argument("--kind", default="cbr", help="the packets followed (default: cbr)")
    parser.add_argument(
        "--flow", nargs=2, type=int, metavar=("SRC", "DST"), help="print this flow's timeline"
    )
    args = parser.parse_args(argv)
    try:
        traces = ns2.kept_traces(args.seed_dir)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ours, theirs = (read(p, args.kind) for p in traces)
    print(f"{'':<28} {'manetsim':>40} {'ns-2.35':>40}")
    for label, a, b in rows(ours, theirs):
        print(f"{label:<28} {a:>40} {b:>40}")
    if args.flow:
        flow = (args.flow[0], args.flow[1])
        for name, r in (("manetsim", ours), ("ns-2.35", theirs)):
            head = f"{name}, flow {flow[0]} -> {flow[1]}"
            print(f"\n{head}: each new route, from when a packet took it")
            for t, route in r.timeline(flow):
                print(f"  {t:12.6f}  {' '.join(map(str, route))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
