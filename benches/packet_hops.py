"""Where delivered packets spend their time, read from the traces a crosscheck kept.

Usage: python benches/packet_hops.py DIR/seed-N [--kind cbr] [--window-s 25]

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
  lines per relayed request;
- with the MAC's lines in the trace (``--mac-trace``), each link's time
  split at the sender's first ``s … MAC`` line for the packet: before it
  (interface queue, contention, RTS/CTS) and after it (the data frame, its
  retries, and the next node's link layer), with how many frames the sender
  put on the air in between (frames queued ahead: its ``s … MAC`` lines of
  anything but RTS, CTS and ACK) and how long a packet waited that found
  nothing ahead and got its CTS at the first RTS.

With ``--window-s W`` it then prints, for each W seconds of the run by
the time a packet was sent, how many of those sent were delivered and
their mean delay on each side, and which windows hold most of the
difference between the two sides' summed delays (does one episode, a
route-error storm say, make the gap, or every minute a little of it?).

These are the readings behind docs/fidelity-record.md's "Where DSR's packets wait
longer in ns-2.35".
"""

from __future__ import annotations

import argparse
import bisect
import re
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from manetsim import ns2

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
    # With MAC lines, per link with a data frame: the wait before the
    # sender's first `s … MAC` line of the packet, the time after it, the
    # frames the sender sent in between, and its RTS in between.
    mac_waits_s: list[float] = field(default_factory=list)
    mac_after_s: list[float] = field(default_factory=list)
    mac_ahead: list[int] = field(default_factory=list)
    mac_rts: list[int] = field(default_factory=list)
    # Every packet sent: when, and its delay if it was delivered.
    sends: list[tuple[float, float | None]] = field(default_factory=list)

    def clean_waits_s(self) -> list[float]:
        """The waits of links that found no frame ahead and needed one RTS."""
        return [
            w
            for w, n, r in zip(self.mac_waits_s, self.mac_ahead, self.mac_rts)
            if n == 0 and r == 1
        ]


def read(path: Path, kind: str) -> Hops:
    """Follows every delivered packet of ``kind`` through ``path``."""
    sent: dict[str, tuple[float, str]] = {}
    delivered: dict[str, float] = {}
    lines: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    originated: set[tuple[str, str]] = set()
    relayed: dict[tuple[str, str], int] = defaultdict(int)
    # Each node's `s … MAC` lines: frames (not RTS, CTS or ACK) and RTS.
    frames_on_air: dict[str, list[float]] = defaultdict(list)
    rts_on_air: dict[str, list[float]] = defaultdict(list)
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            t = line.split(maxsplit=8)
            if len(t) < 8 or t[0] not in ("s", "r", "f"):
                continue
            op, node, layer, uid, what = t[0], t[2].strip("_"), t[3], t[5], t[6]
            if layer == "MAC" and op == "s":
                if what == "RTS":
                    rts_on_air[node].append(float(t[1]))
                elif what not in ("CTS", "ACK"):
                    frames_on_air[node].append(float(t[1]))
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
            elif layer == "RTR" or (layer == "MAC" and op == "s"):
                lines[uid].append((when, op if layer == "RTR" else "mac", node))
    out = Hops()
    out.requests = len(originated)
    out.requests_relayed = sum(1 for k in originated if relayed.get(k))
    out.request_relay_lines = sum(n for k, n in relayed.items() if k in originated)
    out.sends = sorted(
        (
            (start, delivered[uid] - start if uid in delivered else None)
            for uid, (start, _) in sent.items()
        ),
        key=lambda s: s[0],
    )
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
        on_air: float | None = None
        for when, op, node in trail:
            if op == "mac":
                if last_out is not None and last_out[1] == node and on_air is None:
                    on_air = when
            elif op == "r":
                if last_out is not None and last_out[1] != node:
                    out.links_s.append(when - last_out[0])
                    if on_air is not None:
                        _split(out, last_out, on_air, when, frames_on_air, rts_on_air)
                last_in = (when, node)
            else:
                if op == "f" and last_in is not None and last_in[1] == node:
                    out.held_s += when - last_in[0]
                last_out = (when, node)
                on_air = None
        out.relays.append(len({n for _, op, n in trail if op == "f"}))
        out.relay_lines.append(sum(1 for _, op, _ in trail if op == "f"))
    return out


def _split(
    out: Hops,
    sent: tuple[float, str],
    on_air: float,
    received: float,
    frames_on_air: dict[str, list[float]],
    rts_on_air: dict[str, list[float]],
) -> None:
    """Splits one link (routed at ``sent``, received at ``received``) at
    ``on_air``, its sender's first data frame of the packet."""
    when, node = sent
    out.mac_waits_s.append(on_air - when)
    out.mac_after_s.append(received - on_air)
    frames = frames_on_air[node]
    out.mac_ahead.append(bisect.bisect_left(frames, on_air) - bisect.bisect_right(frames, when))
    rts = rts_on_air[node]
    out.mac_rts.append(bisect.bisect_right(rts, on_air) - bisect.bisect_right(rts, when))


def _quantile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[int(q * (len(ys) - 1))] if ys else float("nan")


def _mean(xs: list[float] | list[int]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def rows(h: Hops) -> list[tuple[str, str]]:
    """The printed rows of one trace: (label, value)."""
    n = len(h.delays_s)
    ms = 1000.0
    out = [
        ("packets delivered", f"{n:,}"),
        ("mean delay, ms", f"{ms * _mean(h.delays_s):.1f}"),
        (
            "of it, at the source before its first s RTR, ms",
            f"{ms * _mean(h.source_waits_s):.1f}",
        ),
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
    out.extend(_mac_rows(h))
    return out


@dataclass
class Window:
    """The packets sent in ``[start_s, start_s + width)``."""

    start_s: float
    sent: int = 0
    delivered: int = 0
    delay_sum_s: float = 0.0

    def mean_delay_ms(self) -> float:
        return 1000.0 * self.delay_sum_s / self.delivered if self.delivered else float("nan")


def windows(h: Hops, width_s: float) -> dict[int, Window]:
    """The packets of ``h`` by the window of ``width_s`` they were sent in."""
    out: dict[int, Window] = {}
    for start, delay in h.sends:
        k = int(start // width_s)
        w = out.setdefault(k, Window(k * width_s))
        w.sent += 1
        if delay is not None:
            w.delivered += 1
            w.delay_sum_s += delay
    return out


def largest_gaps(
    ours: dict[int, Window], theirs: dict[int, Window], n: int = 3
) -> tuple[float, list[tuple[float, float]]]:
    """Where the two sides' summed delays differ: over the run (theirs less
    ours, in seconds), and the ``n`` windows that differ most either way
    (their starts and differences, largest first)."""
    gaps = {
        k: theirs.get(k, Window(0)).delay_sum_s - ours.get(k, Window(0)).delay_sum_s
        for k in set(ours) | set(theirs)
    }
    top = sorted(gaps, key=lambda k: (-abs(gaps[k]), k))[:n]
    starts = {k: (ours.get(k) or theirs[k]).start_s for k in top}
    return sum(gaps.values()), [(starts[k], gaps[k]) for k in top]


def _window_table(ours: Hops, theirs: Hops, width_s: float) -> list[str]:
    """The ``--window-s`` table's lines."""
    a, b = windows(ours, width_s), windows(theirs, width_s)
    lines = [
        f"{'sent from, s':>12} {'manetsim delivered':>20} {'delay, ms':>10} "
        f"{'ns-2.35 delivered':>20} {'delay, ms':>10}"
    ]
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k, Window(k * width_s)), b.get(k, Window(k * width_s))
        lines.append(
            f"{x.start_s:>12g} {f'{x.delivered:,}/{x.sent:,}':>20} {x.mean_delay_ms():>10.0f} "
            f"{f'{y.delivered:,}/{y.sent:,}':>20} {y.mean_delay_ms():>10.0f}"
        )
    total, top = largest_gaps(a, b)
    where = "; ".join(f"from {start:g} s {gap:+,.0f} s" for start, gap in top)
    lines.append(
        f"summed delay, ns-2.35 less manetsim: {total:+,.0f} s; "
        f"the windows that differ most: {where}"
    )
    return lines


def _mac_rows(h: Hops) -> list[tuple[str, str]]:
    """The rows of the MAC's split; dashes without MAC lines."""
    ms = 1000.0
    if not h.mac_waits_s:
        return [(label, "-") for label in _MAC_LABELS]
    clean = h.clean_waits_s()
    values = [
        f"{len(h.mac_waits_s):,}",
        f"{ms * _mean(h.mac_waits_s):.1f} ({ms * _quantile(h.mac_waits_s, 0.5):.2f})",
        f"{ms * _mean(h.mac_after_s):.2f} ({ms * _quantile(h.mac_after_s, 0.5):.2f})",
        f"{_mean(h.mac_ahead):.2f} ({sum(1 for n in h.mac_ahead if n == 0):,} none)",
        f"{len(clean):,}; {ms * _mean(clean):.2f} ({ms * _quantile(clean, 0.5):.2f})",
    ]
    return list(zip(_MAC_LABELS, values))


_MAC_LABELS = (
    "links with the sender's data frame in the MAC's lines",
    "of a link, before the sender's first data frame, mean (median), ms",
    "of a link, from that frame to the next node's r RTR, mean (median), ms",
    "frames the sender sent before it (queued ahead), mean",
    "none ahead and one RTS: links; wait, mean (median), ms",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed_dir", type=Path, help="DIR/seed-N from --keep-traces")
    parser.add_argument("--kind", default="cbr", help="packet kind to follow (default cbr)")
    parser.add_argument(
        "--window-s",
        type=float,
        help="also print delivery and delay by the window (this many seconds) a packet was sent in",
    )
    args = parser.parse_args(argv)
    if args.window_s is not None and not args.window_s > 0:
        parser.error(f"--window-s must be a positive number of seconds, not {args.window_s:g}")
    try:
        traces = ns2.kept_traces(args.seed_dir)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ours, theirs = (read(p, args.kind) for p in traces)
    print(f"{'':<72} {'manetsim':>22} {'ns-2.35':>22}")
    for (label, a), (_, b) in zip(rows(ours), rows(theirs)):
        print(f"{label:<72} {a:>22} {b:>22}")
    if args.window_s is not None:
        print()
        print("\n".join(_window_table(ours, theirs, args.window_s)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
