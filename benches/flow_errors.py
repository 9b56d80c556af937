"""Why DSR relays did not know a flow, read from the traces a crosscheck kept.

Usage: python benches/flow_errors.py DIR [--seeds 1-10]

``manetsim crosscheck SCENARIO --set routing.protocol=dsr --like-ns2
--keep-traces DIR`` leaves, for each seed, ns-2.35's trace (``ns2.tr``) and
manetsim's (``manetsim.tr``). With flow state both write DSR's flow-state
lines (``SFESTs``, ``SFs``, ``SFf``, ``SFErr``, ``SFEr``; manetsim since
``ec6b38a``). This reads both the same way. A relay learns a flow from the
first packet establishing it that it receives on the flow's route (an
``r … RTR`` line of a uid a source's ``SFESTs`` line names, at a node of
the route that line gives, with the TTL the packet has there), with that
line's TTL. A copy of the packet received elsewhere, or on the route with
another TTL, was salvaged without its flow options and teaches nothing:
the TTL falls by one a hop, so a copy that came the route's way has the
TTL plus the node's place on the route of the packet's first reception
on it, and a salvaged copy that comes back onto the route has less. Each
``SFErr`` (a relay that did not know a packet's flow) is then matched with
the packet the relay received at that instant, whose flow its source's
``SFs`` or ``SFESTs`` line names, and sorted by cause:

- a packet with a flow header whose flow the relay never learned;
- a packet without a header (the default flow) at a relay that learned no
  flow of the pair, or had learned a newer flow of it (the default moved
  on: the packet's TTL is not the new flow's), or had learned only older
  ones (it missed the packet's flow), or knew the packet's flow as its
  default but with another TTL;
- an error at no reception (the MAC gave up on a packet of a flow the relay
  did not know), or for a packet no source line names.

It prints the counts side by side, summed over the seeds.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

# The IP header's source, destination and TTL (`[src:port dst:port ttl`).
_IP = re.compile(r"------- \[(\d+):-?\d+ (-?\d+):-?\d+ (\d+) ")

Pair = tuple[str, str]

CAUSES = (
    "header: a flow the relay never learned",
    "header: a flow the relay had learned",
    "default: the relay learned no flow of the pair",
    "default: the relay had learned a newer flow",
    "default: the relay had learned only older flows",
    "default: the relay's default flow, another TTL",
    "default: the relay's default flow, the same TTL",
    "at no reception",
    "a packet no source line names",
)


def _flow_of(field: str) -> tuple[int, bool]:
    """`id(h)` of an `SFESTs` or `SFs` line: the flow and whether the
    packet carried a flow header."""
    flow, _, rest = field.partition("(")
    return int(flow), rest.startswith("1")


def causes(path: Path) -> Counter[str]:
    """The causes of the `SFErr` lines of one trace."""
    sent: dict[str, tuple[Pair, int, bool]] = {}  # uid -> (pair, flow, header)
    establishing: dict[str, dict[str, int]] = {}  # uid -> {node: its place on the route}
    on_route: dict[str, int] = {}  # uid -> TTL + place of its first reception on its route
    learned: dict[tuple[str, str, str], dict[int, int]] = {}  # (node, src, dst) -> {flow: ttl}
    received: dict[str, tuple[str, str, int]] = {}  # node -> (time, uid, ttl)
    out: Counter[str] = Counter()
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if line.startswith(("SFESTs ", "SFs ")):
                t = line.split()
                if len(t) < 8:
                    raise ValueError(f"{path}:{number}: a flow line has too few fields")
                flow, header = _flow_of(t[7])
                sent[t[3]] = ((t[4].lstrip("["), t[6].rstrip("]")), flow, header)
                if t[0] == "SFESTs":
                    # `… to next [src |a b … dst ]`
                    route = [n for n in (f.strip("[|]") for f in t[10:]) if n]
                    establishing[t[3]] = {n: place for place, n in enumerate(route)}
            elif line.startswith("SFErr "):
                t = line.split()
                if len(t) < 8:
                    raise ValueError(f"{path}:{number}: an SFErr line has too few fields")
                out[_cause(t, received, sent, learned)] += 1
            elif line.startswith("r ") and " RTR " in line:
                t = line.split()
                ip = _IP.search(line)
                if ip is None:
                    continue
                node, uid, ttl = t[2].strip("_"), t[5], int(ip.group(3))
                received[node] = (t[1], uid, ttl)
                # Off the flow's route, or on it with less TTL than the
                # route gives: a salvaged copy, its flow options stripped.
                place = establishing.get(uid, {}).get(node)
                if place is not None and on_route.setdefault(uid, ttl + place) == ttl + place:
                    pair, flow, _ = sent[uid]
                    if node != pair[1]:
                        learned.setdefault((node, *pair), {}).setdefault(flow, ttl)
    return out


def _cause(
    t: list[str],
    received: dict[str, tuple[str, str, int]],
    sent: dict[str, tuple[Pair, int, bool]],
    learned: dict[tuple[str, str, str], dict[int, int]],
) -> str:
    node = t[2].strip("_")
    last = received.get(node)
    # `SFErr` has five decimals; the reception nine.
    if last is None or abs(float(last[0]) - float(t[1])) > 5.1e-6:
        return "at no reception"
    _, uid, ttl = last
    if uid not in sent:
        return "a packet no source line names"
    pair, flow, header = sent[uid]
    known = learned.get((node, *pair), {})
    if header:
        return f"header: a flow the relay {'had' if flow in known else 'never'} learned"
    defaults = [f for f in known if f & 1]
    if not defaults:
        return "default: the relay learned no flow of the pair"
    # The newest odd flow, in 16-bit serial arithmetic as ns-2.35 takes it.
    default = defaults[0]
    for f in defaults[1:]:
        if _newer(f, default):
            default = f
    if _newer(default, flow):
        return "default: the relay had learned a newer flow"
    if _newer(flow, default):
        return "default: the relay had learned only older flows"
    same = "the same" if known[flow] == ttl else "another"
    return f"default: the relay's default flow, {same} TTL"


def _newer(a: int, b: int) -> bool:
    """Whether flow id `a` is newer than `b` (16-bit serial arithmetic)."""
    return 0 < (a - b) % 65536 < 32768


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    try:
        seeds = list(range(int(first), int(last or first) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or N-M, got {text!r}") from None
    if not seeds or seeds[0] < 1:
        raise argparse.ArgumentTypeError(f"expected seeds from 1 up, got {text!r}")
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("dir", type=Path, help="DIR from --keep-traces DIR")
    parser.add_argument("--seeds", type=_seeds, default=_seeds("1-10"), help="N or N-M")
    args = parser.parse_args(argv)
    totals = {"manetsim": Counter[str](), "ns2": Counter[str]()}
    for seed in args.seeds:
        for side, total in totals.items():
            path = args.dir / f"seed-{seed}" / f"{side}.tr"
            if not path.is_file():
                print(f"flow_errors: no trace {path}", file=sys.stderr)
                return 2
            try:
                total.update(causes(path))
            except ValueError as e:
                print(f"flow_errors: {e}", file=sys.stderr)
                return 2
    seeds = f"{args.seeds[0]}-{args.seeds[-1]}"
    print(f"unknown-flow errors (SFErr) by cause, seeds {seeds}, summed")
    print(f"{'cause':52s} {'manetsim':>9s} {'ns-2.35':>9s}")
    for cause in CAUSES:
        print(f"{cause:52s} {totals['manetsim'][cause]:9d} {totals['ns2'][cause]:9d}")
    m, n = (sum(t.values()) for t in totals.values())
    print(f"{'all':52s} {m:9d} {n:9d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
