"""How long AODV's route requests take at each hop, from the traces a crosscheck kept.

Usage: python benches/broadcast_access.py DIR/seed-N

``manetsim crosscheck SCENARIO --keep-traces DIR --mac-trace`` leaves, for
each seed, ns-2.35's trace (``ns2.tr``) and manetsim's in ns-2's format
(``manetsim.tr``), both with the MAC's lines. A route request is known by
its origin and id (ns-2.35 gives AODV's packets no uid of their own), and
this prints, side by side, for every node that relays or originates one:

- the jitter: from the node's first ``r … MAC`` line of the request to its
  ``s … RTR`` line (AODV holds a broadcast up to 10 ms);
- the access: from its ``s … RTR`` line to its ``s … MAC`` line (link layer,
  interface queue, deferral and backoff), for the requests that found
  nothing of the node's own on the air in between (no ``s … MAC`` line of
  any frame, RTS, CTS and ACK included, and none in the 20 ms before),
  with the share that found the medium idle (under 0.7 ms: DIFS and at
  most 31 slots);
- the frame's time on the air: from a node's ``s … MAC`` line of a request
  to the first ``r … MAC`` line of it from that node (the MAC field's
  source), the most common value.

The airtime is what showed that manetsim sent broadcast frames at the data
rate, where ns-2.35 (and IEEE 802.11) send them at the basic rate; the
access, that its floods therefore found the medium idle more often. See
docs/fidelity-record.md, "Broadcast frames at the basic rate".
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from manetsim import ns2

# An AODV request's fields: hop count, id, [dst dst_seqno], [origin origin_seqno].
_REQUEST = re.compile(r"\[0x2 \d+ (\d+) \[\d+ \d+\] \[(\d+) \d+\]\] \(REQUEST\)")
# The MAC field of a MAC line: [duration destination source type], in hex.
_MAC_FIELD = re.compile(r"\[([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)\]")
# A broadcast at most this long after its `s … RTR` line found the medium
# idle: DIFS (50 us), 31 slots of 20 us and the link layer's 25 us, rounded up.
IDLE_ACCESS_S = 0.0007
# No frame of the node's own this long before the request reached its MAC.
QUIET_BEFORE_S = 0.02


@dataclass
class Access:
    """One trace's readings."""

    jitters_s: list[float] = field(default_factory=list)
    access_s: list[float] = field(default_factory=list)
    airtimes_us: Counter[int] = field(default_factory=Counter)

    def idle_share(self) -> float:
        """The share of the access times that found the medium idle."""
        if not self.access_s:
            return float("nan")
        return sum(1 for a in self.access_s if a < IDLE_ACCESS_S) / len(self.access_s)


def read(path: Path) -> Access:
    """Reads every AODV route request's lines in ``path``."""
    out = Access()
    first_rx: dict[tuple[str, str, str], float] = {}
    routed: dict[tuple[str, str, str], tuple[float, int]] = {}
    on_air: dict[tuple[str, str, str], float] = {}
    heard: set[tuple[str, str, str]] = set()
    frames: Counter[str] = Counter()
    last_frame: dict[str, float] = {}
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            t = line.split(maxsplit=7)
            if len(t) < 8 or t[0] not in ("s", "r"):
                continue
            op, node, layer = t[0], t[2].strip("_"), t[3]
            when = float(t[1])
            request = _REQUEST.search(line) if "(REQUEST)" in line else None
            if request is not None:
                key = (request.group(2), request.group(1), node)
                if op == "r" and layer == "MAC":
                    first_rx.setdefault(key, when)
                    mac = _MAC_FIELD.search(line)
                    if mac is not None:
                        sender = str(int(mac.group(3), 16))
                        sent_key = (key[0], key[1], sender)
                        if sent_key in on_air and sent_key not in heard:
                            heard.add(sent_key)
                            us = round(1e6 * (when - on_air[sent_key]))
                            out.airtimes_us[us] += 1
                elif op == "s" and layer == "RTR" and key not in routed:
                    if key in first_rx:
                        out.jitters_s.append(when - first_rx[key])
                    quiet = when - last_frame.get(node, -1.0) >= QUIET_BEFORE_S
                    routed[key] = (when, frames[node] if quiet else -1)
                elif op == "s" and layer == "MAC" and key not in on_air:
                    on_air[key] = when
                    if key in routed:
                        at, count = routed[key]
                        if count == frames[node]:
                            out.access_s.append(when - at)
            if op == "s" and layer == "MAC":
                frames[node] += 1
                last_frame[node] = when
    return out


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * (len(s) - 1)))]


def rows(a: Access) -> list[tuple[str, str]]:
    """The printed rows of one trace: (label, value)."""
    ms = 1000.0
    common = a.airtimes_us.most_common(1)
    return [
        (
            "jitter: first r MAC to s RTR, mean (median), ms",
            f"{ms * statistics.fmean(a.jitters_s):.2f} ({ms * _quantile(a.jitters_s, 0.5):.2f})"
            if a.jitters_s
            else "-",
        ),
        ("access: s RTR to s MAC, nothing else sent, requests", f"{len(a.access_s):,}"),
        (
            "access, mean (median, 90th percentile), ms",
            f"{ms * statistics.fmean(a.access_s):.2f} ({ms * _quantile(a.access_s, 0.5):.2f}, "
            f"{ms * _quantile(a.access_s, 0.9):.2f})"
            if a.access_s
            else "-",
        ),
        ("access, medium found idle (under 0.7 ms)", f"{100 * a.idle_share():.1f} %"),
        (
            "a request's frame on the air, most common, us",
            f"{common[0][0]:,} ({common[0][1]:,} frames)" if common else "-",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed_dir", type=Path, help="DIR/seed-N from --keep-traces --mac-trace")
    args = parser.parse_args(argv)
    try:
        traces = ns2.kept_traces(args.seed_dir)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ours, theirs = (rows(read(p)) for p in traces)
    print(f"{'':<56} {'manetsim':>24} {'ns-2.35':>24}")
    for (label, a), (_, b) in zip(ours, theirs):
        print(f"{label:<56} {a:>24} {b:>24}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
