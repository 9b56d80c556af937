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
- DSR: replies started by the request's target and by others, the
  target's by the length of the route they return, and the replies a node
  sent again (its second, third … router line for the same reply: a failed
  reply salvaged or routed again); route errors started (a node's first
  router line for an error it sends as the IP source), those started at
  the instant its MAC gave up on a frame (with MAC lines), and those sent
  again (of them, at the instant the node's MAC gave up on the error's own
  frame, or on another packet's, when the packets queued for the lost
  neighbour are taken back and routed again); route errors relayed
  (`f … RTR` lines), by distinct (error, node) pairs and the lines a node
  wrote again for an error it had relayed, and the errors relayed 20
  times or more (an error that keeps failing and is
  salvaged, or copies of it travelling side by side).
- Packets dropped for a full interface queue (`D … IFQ IFQ`, or `IFQ ---`
  as ns-2.35's AODV queue writes it), and how many of them the busiest node
  dropped.
- Frames the MAC gave up on, by the packet they carried (`D … MAC RET`),
  and the RTS a node sent again for want of a CTS, by attempt (2 to 7):
  shown only when ns-2.35's trace has its MAC lines (`manetsim crosscheck
  … --keep-traces DIR --mac-trace`).
- Link breaks (AODV): the instants a node dropped a data packet its MAC or
  ARP gave up on (`RTR CBK` in both traces, leaving out the drops a
  received RERR causes in ns-2.35's), by whether the next hop
  was still within the receive range then, placing both with the
  movements of ``ns2.tcl`` (which both simulators follow), and for the
  next hops out of range by how long before they had left it.

These are the readings behind docs/fidelity-record.md's "Relayed and originated
messages" (rwp1000), "Relayed packets by message" (rwp50 over DSR) and the
link breaks under "AODV's relayed route errors, told from ns-2.35's trace".
"""

from __future__ import annotations

import argparse
import math
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


_PLACE = re.compile(r"^\$node_\((\d+)\) set ([XY])_ (\S+)", re.M)
_SETDEST = re.compile(r'^\$ns_ at (\S+) "\$node_\((\d+)\) setdest (\S+) (\S+) (\S+)"', re.M)
RANGE_M = 250.0
"""The receive range of the default radio (two-ray ground, ns-2's RXThresh_)."""


class Movements:
    """Where each node of an exported ns-2 script is at any time: its
    `set X_`/`Y_` place, then each `setdest` (towards a point at a speed,
    from the moment it is given, until it arrives or the next one)."""

    def __init__(self, tcl: str) -> None:
        self.start: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for node, axis, value in _PLACE.findall(tcl):
            self.start[int(node)]["XY".index(axis)] = float(value)
        self.legs: dict[int, list[tuple[float, float, float, float]]] = defaultdict(list)
        for at, node, x, y, speed in _SETDEST.findall(tcl):
            self.legs[int(node)].append((float(at), float(x), float(y), float(speed)))
        for legs in self.legs.values():
            legs.sort()

    def position(self, node: int, t: float) -> tuple[float, float]:
        x, y = self.start[node]
        legs = self.legs.get(node, [])
        for i, (at, tx, ty, speed) in enumerate(legs):
            if at > t:
                break
            until = min(legs[i + 1][0], t) if i + 1 < len(legs) else t
            d = math.hypot(tx - x, ty - y)
            if speed > 0 and d > 0:
                f = min(speed * (until - at), d) / d
                x, y = x + (tx - x) * f, y + (ty - y) * f
        return x, y

    def distance(self, a: int, b: int, t: float) -> float:
        (xa, ya), (xb, yb) = self.position(a, t), self.position(b, t)
        return math.hypot(xa - xb, ya - yb)

    def left_range_s(self, a: int, b: int, t: float, step_s: float = 0.1) -> float:
        """How long before `t` `b` was last within range of `a` (at most 30 s)."""
        back = 0.0
        while back < 30.0 and self.distance(a, b, t - back) > RANGE_M:
            back += step_s
        return back


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


def read_trace(path: Path, flows: set[tuple[int, int]], moves: Movements | None = None) -> Roles:
    """Counts the routing messages of an ns-2 old-format trace by role (and,
    with the script's movements, its link breaks by the next hop's place)."""
    reader = _Reader(flows, moves)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            reader.line(line)
    return reader.finish()


class _Reader:
    """The state :func:`read_trace` keeps while it reads a trace."""

    def __init__(self, flows: set[tuple[int, int]], moves: Movements | None = None) -> None:
        self.flows = flows
        self.moves = moves
        # Link breaks: (node, time, next hop), once per node and instant.
        self.breaks: dict[tuple[int, float], int | None] = {}
        self.roles = Roles()
        self.flood_of: dict[tuple[int, int], list[int]] = {}
        self.last_request: dict[int, tuple[float, int, int]] = {}
        self.last_reply_in: dict[int, float] = {}
        self.sent_replies: list[tuple[float, tuple[str, ...]]] = []
        self.replies_in: dict[tuple[str, ...], list[float]] = defaultdict(list)
        self.errors_in: dict[int, list[float]] = defaultdict(list)
        self.errors_out: list[tuple[int, float]] = []
        self.data_drops: dict[tuple[int, float], set[str]] = defaultdict(set)
        # A node's last RTS: its receiver and attempt.
        self.rts_attempt: dict[int, tuple[str, int]] = {}
        # DSR replies: router lines sending each (node, uid).
        self.reply_sends: Counter[tuple[int, str]] = Counter()
        # DSR route errors a node sends as their IP source: its router lines
        # for each (node, uid).
        self.error_sends: Counter[tuple[int, str]] = Counter()
        # DSR route errors relayed: router lines for each (node, uid).
        self.error_relays: Counter[tuple[int, str]] = Counter()
        # The instant (as traced) each node's MAC last gave up on a frame,
        # and that frame's packet uid.
        self.last_give_up: dict[int, str] = {}
        self.last_give_up_uid: dict[int, str] = {}
        # Packets each node dropped for a full interface queue.
        self.queue_full: Counter[int] = Counter()

    def line(self, line: str) -> None:
        tokens = line.split()
        if len(tokens) < 8 or tokens[0] not in ("s", "f", "r", "D"):
            return
        event, layer, kind = tokens[0], tokens[3], tokens[6]
        node = int(tokens[2].strip("_"))
        now = float(tokens[1])
        if layer == "MAC" and event == "s":
            self.mac_send(tokens, kind, node)
            return
        if event == "D":
            if layer == "MAC" and tokens[4] == "RET" and kind == "RTS":
                self.rts_attempt.pop(node, None)  # the next RTS starts afresh
            elif layer == "MAC" and tokens[4] == "RET":
                self.roles.counts[f"mac.gave up on, {kind}"] += 1
                self.last_give_up[node] = tokens[1]
                self.last_give_up_uid[node] = tokens[5]
            elif layer == "IFQ" and tokens[4] in ("---", "IFQ"):
                self.queue_full[node] += 1
            if layer == "RTR" and kind not in _CONTROL:
                self.data_drops[(node, now)].add(tokens[4])
                if tokens[4] == "CBK":
                    self.data_break(tokens, node, now)
        elif layer == "RTR" and kind == "AODV":
            self.aodv(line.rstrip(), tokens, event, node, now)
        elif layer == "RTR" and kind == "DSR" and event in "sf":
            if event == "s":
                _dsr_line(self.roles, tokens, node)
            ip = _ip(tokens)
            if ip is not None and len(tokens) > ip + 7 and tokens[ip + 7] == "[1":
                self.reply_sends[(node, tokens[5])] += 1
            # A route error, not a request carrying the last one (ns-2's
            # `propagate_last_error`: the request flag at ip + 5 is set).
            error = (
                ip is not None
                and len(tokens) > ip + 11
                and tokens[ip + 11] == "[1"
                and tokens[ip + 5] != "[1"
            )
            if error and event == "s" and _addr(tokens[ip]) == node:
                self.dsr_error(tokens, node)
            elif error and event == "f":
                self.error_relays[(node, tokens[5])] += 1

    def mac_send(self, tokens: list[str], kind: str, node: int) -> None:
        """Counts each RTS by its attempt: the same receiver as the node's
        last RTS, with no data frame sent between (its CTS never came)."""
        if kind == "RTS" and len(tokens) > 9:
            ra = tokens[9]
            last = self.rts_attempt.get(node)
            attempt = last[1] + 1 if last is not None and last[0] == ra else 1
            self.rts_attempt[node] = (ra, attempt)
            if attempt > 1:
                self.roles.counts[f"mac.RTS sent again, attempt {attempt}"] += 1
        elif kind not in ("CTS", "ACK"):
            self.rts_attempt.pop(node, None)

    def dsr_error(self, tokens: list[str], node: int) -> None:
        """A route error this node sends as its source: started (its first
        line for the error), at the instant its MAC gave up on a frame or
        not, or sent again."""
        key = (node, tokens[5])
        self.error_sends[key] += 1
        if self.error_sends[key] > 1:
            self.roles.counts["dsr.rerr.sent again by the same node"] += 1
            if self.last_give_up.get(node) == tokens[1]:
                own = self.last_give_up_uid.get(node) == tokens[5]
                which = "on it" if own else "on another packet"
                self.roles.counts[f"dsr.rerr.sent again at a give-up {which}"] += 1
            return
        self.roles.counts["dsr.rerr.started"] += 1
        if self.last_give_up.get(node) == tokens[1]:
            self.roles.counts["mac.gave up, and a DSR route error started at once"] += 1

    def data_break(self, tokens: list[str], node: int, now: float) -> None:
        """A data packet dropped after its MAC or ARP gave up, with its next
        hop from the line (both traces keep it in the IP field)."""
        if (node, now) in self.breaks:
            return
        ip = _ip(tokens)
        if ip is None or len(tokens) <= ip + 4:
            return
        self.breaks[(node, now)] = int(tokens[ip + 3].rstrip("]"))

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
        again = sum(n - 1 for n in self.reply_sends.values())
        if again:
            c["dsr.rrep.sent again by the same node"] = again
        if self.error_relays:
            relayed = sum(self.error_relays.values())
            c["dsr.rerr.relayed"] = relayed
            c["dsr.rerr.relayed, distinct (error, node) pairs"] = len(self.error_relays)
            if relayed > len(self.error_relays):
                c["dsr.rerr.relayed again by the same node"] = relayed - len(self.error_relays)
            per_error: Counter[str] = Counter()
            for (_, uid), n in self.error_relays.items():
                per_error[uid] += n
            many = sum(1 for n in per_error.values() if n >= _MANY_RELAYS)
            if many:
                c[f"dsr.rerr.errors relayed {_MANY_RELAYS} times or more"] = many
        if self.queue_full:
            c["ifq.full, dropped"] = sum(self.queue_full.values())
            c["ifq.full, dropped by the busiest node"] = max(self.queue_full.values())
        for now, key in self.sent_replies:
            got = any(now <= t <= now + 2.0 for t in self.replies_in.get(key, ()))
            c["aodv.rrep.reached its next hop" if got else "aodv.rrep.not seen there"] += 1
        for node, now in self.errors_out:
            # A failure's RERR comes with the failed packet's drop (and,
            # in manetsim's trace, the queued packets' `NRTE` drops).
            drops = self.data_drops.get((node, now), set())
            if "CBK" in drops:
                c["aodv.rerr.at a failure on data"] += 1
            elif "NRTE" in drops:
                c["aodv.rerr.for data with no route"] += 1
            elif any(0 <= now - t <= _RELAY_WINDOW_S for t in self.errors_in.get(node, ())):
                c["aodv.rerr.relayed"] += 1
            else:
                c["aodv.rerr.other"] += 1
        if self.moves is not None:
            for (node, now), hop in self.breaks.items():
                if any(t == now for t in self.errors_in.get(node, ())):
                    continue  # ns-2.35's `recvError` drops the queue as `CBK`
                c[_break_kind(self.moves, node, hop, now)] += 1
        floods: dict[str, list[int]] = {}
        for parity, replies in self.flood_of.values():
            entry = floods.setdefault(("asked 0", "asked odd", "asked even")[parity], [0, 0])
            entry[0] += 1
            entry[1] += replies
        self.roles.floods = dict(sorted(floods.items()))
        return self.roles


_CONTROL = ("AODV", "AOMDV", "DSR", "ARP", "message")
# A DSR route error relayed this often is counted apart.
_MANY_RELAYS = 20


def _break_kind(moves: Movements, node: int, hop: int | None, now: float) -> str:
    if hop is None:
        return "aodv.link breaks, next hop not told"
    if moves.distance(node, hop, now) <= RANGE_M:
        return "aodv.link breaks, next hop in range"
    gone = moves.left_range_s(node, hop, now)
    since = "under 0.5 s" if gone < 0.5 else "0.5-5 s" if gone < 5 else "5 s or more"
    return f"aodv.link breaks, next hop out of range for {since}"


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
    tcl = (seed_dir / "ns2.tcl").read_text(encoding="utf-8")
    flows = flows_of(tcl)
    # Link breaks are read as AODV's drops (`RTR CBK`); DSR salvages.
    moves = Movements(tcl) if "-adhocRouting AODV " in tcl else None
    ours = read_trace(seed_dir / "manetsim.tr", flows, moves)
    theirs = read_trace(seed_dir / "ns2.tr", flows, moves)
    rows = [f"{'':<58} {'manetsim':>10} {'ns-2.35':>10}"]
    keys = set(ours.counts) | set(theirs.counts)
    if not any(k.startswith("mac.") for k in theirs.counts):
        # ns-2.35's trace has no MAC lines unless exported with --mac-trace.
        keys = {k for k in keys if not k.startswith("mac.")}
    for key in sorted(keys):
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
