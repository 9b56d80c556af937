"""Routing messages by role, read from the traces a crosscheck kept.

Usage: python benches/trace_roles.py DIR/seed-N

``manetsim crosscheck SCENARIO --keep-traces DIR`` leaves, for each seed,
ns-2.35's trace (``ns2.tr``), manetsim's trace in ns-2's format
(``manetsim.tr``) and the exported script (``ns2.tcl``, which names the
flows). This reads both traces the same way and prints, side by side, who
sent the routing packets and why:

- AODV: route requests started by a flow's source for its destination and
  by other nodes (local repairs, replies' way back), network wide or in a
  ring; the intermediate replies each network-wide flood drew, by the
  sequence number it asked for (0: never known; odd: the asker's route was
  invalidated; even: its own, as a local repair asks); replies started by
  the destination, by an intermediate node, and passed on; how many replies
  sent or passed on reached their next hop; route errors by cause (sent at
  the instant a data packet was dropped after a MAC or ARP failure, or for
  want of a route, or within 10 ms of receiving one: relayed).
- DSR: replies started by the request's target and by others, and the
  target's by the length of the route they return.

These are the readings behind docs/fidelity.md's "Relayed and originated
messages" (rwp1000) and "Relayed packets by message" (rwp50 over DSR).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from manetsim.ns2 import _ip_field as _ip

_FLOW = re.compile(r"attach-agent \$node_\((\d+)\) \$(agent|sink)_\((\d+)\)")
_REQUEST = re.compile(r"\[0x2 (\d+) (\d+) \[(\d+) (\d+)\] \[(\d+) (\d+)\]\] \(REQUEST\)$")
_REPLY = re.compile(r"\[0x4 (\d+) \[(\d+) (\d+)\] (\S+)\] \(REPLY\)$")
_RELAY_WINDOW_S = 0.0101
"""A route error sent this soon after one was received counts as relayed
(ns-2.35 and manetsim jitter a relayed one by up to 10 ms)."""


def flows_of(tcl: str) -> set[tuple[int, int]]:
    """(source, destination) of each flow an exported ns-2 script sets up."""
    ends: dict[str, dict[str, int]] = defaultdict(dict)
    for node, role, index in _FLOW.findall(tcl):
        ends[index][role] = int(node)
    return {(e["agent"], e["sink"]) for e in ends.values() if len(e) == 2}


@dataclass
class Roles:
    """What :func:`read_trace` counts in one trace."""

    counts: Counter[str] = field(default_factory=Counter)
    # Network-wide floods and the intermediate replies they drew, by the
    # parity of the number asked: kind -> [floods, replies].
    floods: dict[str, list[int]] = field(default_factory=dict)
    # DSR: the target's replies by the number of nodes on the route returned.
    target_routes: Counter[int] = field(default_factory=Counter)


def _addr(token: str) -> int:
    return int(token.lstrip("[").split(":")[0])


def read_trace(path: Path, flows: set[tuple[int, int]]) -> Roles:
    """Counts the routing messages of an ns-2 old-format trace by role."""
    reader = _Reader(flows)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            reader.line(line)
    return reader.finish()


class _Reader:
    """The state :func:`read_trace` keeps while it reads a trace."""

    def __init__(self, flows: set[tuple[int, int]]) -> None:
        self.flows = flows
        self.roles = Roles()
        self.flood_of: dict[tuple[int, int], list[int]] = {}
        self.last_request: dict[int, tuple[float, int, int]] = {}
        self.last_reply_in: dict[int, float] = {}
        self.sent_replies: list[tuple[float, tuple[str, ...]]] = []
        self.replies_in: dict[tuple[str, ...], list[float]] = defaultdict(list)
        self.errors_in: dict[int, list[float]] = defaultdict(list)
        self.errors_out: list[tuple[int, float]] = []
        self.data_drops: dict[tuple[int, float], set[str]] = defaultdict(set)

    def line(self, line: str) -> None:
        tokens = line.split()
        if len(tokens) < 8 or tokens[0] not in ("s", "f", "r", "D"):
            return
        event, layer, kind = tokens[0], tokens[3], tokens[6]
        node = int(tokens[2].strip("_"))
        now = float(tokens[1])
        if event == "D":
            if layer in ("RTR", "MAC") and kind not in _CONTROL:
                self.data_drops[(node, now)].add(tokens[4])
        elif layer == "RTR" and kind == "AODV":
            self.aodv(line.rstrip(), tokens, event, node, now)
        elif layer == "RTR" and kind == "DSR" and event == "s":
            _dsr_line(self.roles, tokens, node)

    def aodv(self, text: str, tokens: list[str], event: str, node: int, now: float) -> None:
        c = self.roles.counts
        ip = _ip(tokens)
        if ip is None:
            return
        if text.endswith("(REQUEST)"):
            m = _REQUEST.search(text)
            if m is None:
                return
            hops, rid, dst, asked, origin = (int(m.group(i)) for i in range(1, 6))
            if event == "r":
                self.last_request[node] = (now, origin, rid)
            elif node == origin and hops == 1:
                who = "a flow source" if (origin, dst) in self.flows else "another node"
                wide = int(tokens[ip + 2]) >= 30
                c[f"aodv.rreq.started by {who}, {'network wide' if wide else 'ring'}"] += 1
                if wide:
                    parity = 0 if asked == 0 else 1 if asked % 2 else 2
                    self.flood_of[(origin, rid)] = [parity, 0]
        elif text.endswith("(REPLY)"):
            m = _REPLY.search(text)
            if m is None:
                return
            key = (tokens[ip], tokens[ip + 1], tokens[ip + 2], m.group(1), m.group(2), m.group(3))
            if event == "r":
                self.last_reply_in[node] = now
                self.replies_in[key].append(now)
                return
            self.sent_replies.append((now, key))
            if event == "f" or self.last_reply_in.get(node) == now:
                c["aodv.rrep.passed on"] += 1
            elif int(m.group(2)) == node:
                c["aodv.rrep.started by the destination"] += 1
            else:
                c["aodv.rrep.started by an intermediate node"] += 1
                asked_by = self.last_request.get(node)
                if asked_by is not None and asked_by[0] == now:
                    flood = self.flood_of.get((asked_by[1], asked_by[2]))
                    if flood is not None:
                        flood[1] += 1
        elif text.endswith("(ERROR)"):
            if event == "r":
                self.errors_in[node].append(now)
            else:
                self.errors_out.append((node, now))

    def finish(self) -> Roles:
        c = self.roles.counts
        for now, key in self.sent_replies:
            got = any(now <= t <= now + 2.0 for t in self.replies_in.get(key, ()))
            c["aodv.rrep.reached its next hop" if got else "aodv.rrep.not seen there"] += 1
        for node, now in self.errors_out:
            # A failure's RERR comes with the failed packet's drop (and,
            # in manetsim's trace, the queued packets' `NRTE` drops).
            drops = self.data_drops.get((node, now), set())
            if drops & {"CBK", "RET"}:
                c["aodv.rerr.at a failure on data"] += 1
            elif "NRTE" in drops:
                c["aodv.rerr.for data with no route"] += 1
            elif any(0 <= now - t <= _RELAY_WINDOW_S for t in self.errors_in.get(node, ())):
                c["aodv.rerr.relayed"] += 1
            else:
                c["aodv.rerr.other"] += 1
        floods: dict[str, list[int]] = {}
        for parity, replies in self.flood_of.values():
            entry = floods.setdefault(("asked 0", "asked odd", "asked even")[parity], [0, 0])
            entry[0] += 1
            entry[1] += replies
        self.roles.floods = dict(sorted(floods.items()))
        return self.roles


_CONTROL = ("AODV", "AOMDV", "DSR", "ARP", "message")


def _dsr_line(roles: Roles, tokens: list[str], node: int) -> None:
    ip = _ip(tokens)
    if ip is None or len(tokens) < ip + 12 or _addr(tokens[ip]) != node:
        return
    if tokens[ip + 7] != "[1":
        return
    returned_to = tokens[ip + 10].rstrip("]").split("->")[-1]
    if returned_to == str(node):
        roles.counts["dsr.rrep.started by the target"] += 1
        roles.target_routes[int(tokens[ip + 9])] += 1
    else:
        roles.counts["dsr.rrep.started by another node"] += 1


def report(seed_dir: Path) -> str:
    """Both traces of one seed, side by side."""
    missing = [n for n in ("ns2.tcl", "ns2.tr", "manetsim.tr") if not (seed_dir / n).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{seed_dir}: no {', '.join(missing)} (keep them with manetsim crosscheck "
            "--keep-traces DIR, then give DIR/seed-N)"
        )
    flows = flows_of((seed_dir / "ns2.tcl").read_text(encoding="utf-8"))
    ours = read_trace(seed_dir / "manetsim.tr", flows)
    theirs = read_trace(seed_dir / "ns2.tr", flows)
    rows = [f"{'':<58} {'manetsim':>10} {'ns-2.35':>10}"]
    for key in sorted(set(ours.counts) | set(theirs.counts)):
        rows.append(f"{key:<58} {ours.counts[key]:>10,} {theirs.counts[key]:>10,}")
    for kind in sorted(set(ours.floods) | set(theirs.floods)):
        a, b = ours.floods.get(kind, [0, 0]), theirs.floods.get(kind, [0, 0])
        label = f"aodv.floods network wide, {kind}: floods / replies each"
        per = [f"{f:,} / {r / f:.1f}" if f else "0" for f, r in (a, b)]
        rows.append(f"{label:<58} {per[0]:>10} {per[1]:>10}")
    for length in sorted(set(ours.target_routes) | set(theirs.target_routes)):
        label = f"dsr.rrep.started by the target, {length - 1} hops"
        rows.append(
            f"{label:<58} {ours.target_routes[length]:>10,} {theirs.target_routes[length]:>10,}"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("seed_dir", type=Path, help="DIR/seed-N from --keep-traces DIR")
    args = parser.parse_args(argv)
    try:
        print(report(args.seed_dir))
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
