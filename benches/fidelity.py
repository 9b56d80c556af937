"""Cross-check manetsim against ns-2.35 on chain6: every TCP variant x routing.

Usage: python benches/fidelity.py [--seeds N] [--out FILE] [--routing aodv dsr dsdv aomdv]
                                  [--jobs N]

Runs `manetsim.ns2.crosscheck` (manetsim and `ns` on the same exported
scenario, same seeds) for the reference scenario chain6 (6 static nodes 200 m
apart, FTP 512 B, 360 s, one-way TCP agents) with Tahoe, Reno, NewReno, SACK and
Vegas over AODV (ns-2 constants: `[routing.aodv] preset = "ns2"`), DSR and DSDV
(and AOMDV with `--routing aomdv`, with ns-2.35's HELLO link detection),
with manetsim's `[mac] arp`, `frames`, `backoff_draw`, `backoff_count` and `tie_rule` set to
"ns2" and `ll_delay_s` to 25 us (unless `--arp off` or `--mac standard`), and
the flow's `ssthresh_rule` to "ns2" with ns-2.35's limited transmit (unless `--tcp standard`),
and prints a Markdown table: throughput, delay and retransmissions of both, with
ratios, and whether the ordering of the variants by delay agrees: by the means,
and pair by pair where a simulator's 95 % intervals of the two variants' delays
do not overlap (with two seeds or more).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from manetsim import bench, ns2, study

VARIANTS = ("tahoe", "reno", "newreno", "sack", "vegas")
ROUTING = ("aodv", "dsr", "dsdv")
# Also offered, not run by default: AOMDV with ns-2.35's HELLO link detection.
CHOICES = (*ROUTING, "aomdv")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--routing", nargs="+", default=list(ROUTING), choices=CHOICES)
    parser.add_argument("--jobs", type=int, default=1, help="seeds run side by side")
    ns2.add_model_arguments(parser)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs: expected at least 1, got {args.jobs}")
    scenario = bench.reference_path("chain6")
    lines = [
        f"chain6, seeds 1-{args.seeds}, means; ratio = manetsim / ns-2.35.",
        "",
        "| routing | variant | throughput kbit/s (manetsim / ns-2) | ratio "
        "| delay ms (manetsim / ns-2) | ratio | retransmissions (manetsim / ns-2) |",
        "|---|---|---|---|---|---|---|",
    ]
    started = time.perf_counter()
    wall = {"manetsim": 0.0, "ns2": 0.0}
    cpu = {"manetsim": 0.0, "ns2": 0.0}
    orderings = []
    for routing in args.routing:
        delays = {}
        spreads = {}
        for variant in VARIANTS:
            overrides = {
                "routing.protocol": routing,
                "flows.0.tcp.variant": variant,
                **ns2.mac_overrides(args.arp, args.mac),
            }
            overrides.update(ns2.routing_overrides(routing))
            overrides.update(ns2.tcp_overrides(scenario, overrides, args.tcp))
            seeds = range(1, args.seeds + 1)
            ours, theirs = ns2.crosscheck(scenario, seeds, overrides, jobs=args.jobs)
            for seed, why in ours.left_out:
                print(f"left out: seed {seed}: {why}", file=sys.stderr)
            wall["manetsim"] += sum(ours.wall_s)
            wall["ns2"] += sum(theirs.wall_s)
            cpu["manetsim"] += sum(ours.cpu_s)
            cpu["ns2"] += sum(theirs.cpu_s)
            m = {k: (a, b, r) for k, a, b, r in ns2.summarize_sides(ours, theirs)}
            thr, delay, retx = (
                m["flow0.throughput_kbps"],
                m["flow0.delay_ms"],
                m["flow0.retransmissions"],
            )
            delays[variant] = (delay[0], delay[1])
            key = "flow0.delay_ms"
            spreads[variant] = (
                study.mean_ci([s[key] for s in ours.per_seed]),
                study.mean_ci([s.get(key, math.nan) for s in theirs.per_seed]),
            )
            lines.append(
                f"| {routing} | {variant} | {thr[0]:.1f} / {thr[1]:.1f} | {_r(thr[2])} "
                f"| {delay[0]:.1f} / {delay[1]:.1f} | {_r(delay[2])} "
                f"| {retx[0]:.0f} / {retx[1]:.0f} |"
            )
            print(lines[-1], file=sys.stderr)
        ours_order = sorted(VARIANTS, key=lambda v: delays[v][0])
        ns2_order = sorted(VARIANTS, key=lambda v: delays[v][1])
        orderings.append(
            f"- {routing}: by delay, manetsim {' < '.join(ours_order)}; "
            f"ns-2.35 {' < '.join(ns2_order)}; lowest-delay variant "
            f"{'agrees' if ours_order[0] == ns2_order[0] else 'differs'}"
        )
        if args.seeds >= 2:
            orderings.append(f"  - {_separated_pairs(spreads)}")
    lines += ["", *orderings, ""]
    lines.append(
        f"Wall time of the whole comparison: {time.perf_counter() - started:.0f} s "
        f"(manetsim processes {wall['manetsim']:.1f} s, ns-2.35 processes "
        f"{wall['ns2']:.1f} s: {wall['ns2'] / wall['manetsim']:.1f}x; CPU "
        f"{cpu['manetsim']:.1f} s and {cpu['ns2']:.1f} s: "
        f"{cpu['ns2'] / cpu['manetsim']:.1f}x; {args.jobs} seed(s) at a time)."
    )
    text = "\n".join(lines) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


def _separated_pairs(spreads: dict[str, tuple[tuple[float, float, int], ...]]) -> str:
    """Pairs of variants whose delays a simulator tells apart (95 % intervals
    that do not overlap), and whether the other orders them the same way."""
    names = ("manetsim", "ns-2.35")
    parts = []
    for side in (0, 1):
        other = 1 - side
        told = agree = 0
        differ = []
        for i, a in enumerate(VARIANTS):
            for b in VARIANTS[i + 1 :]:
                (ma, ha, _), (mb, hb, _) = spreads[a][side], spreads[b][side]
                if math.isnan(ha) or math.isnan(hb) or abs(ma - mb) <= ha + hb:
                    continue
                told += 1
                if (ma < mb) == (spreads[a][other][0] < spreads[b][other][0]):
                    agree += 1
                else:
                    low, high = (a, b) if ma < mb else (b, a)
                    differ.append(f"{low} < {high}")
        unlike = f" (not: {', '.join(differ)})" if differ else ""
        parts.append(
            f"{names[side]} tells {told} of {len(VARIANTS) * (len(VARIANTS) - 1) // 2} "
            "pairs apart by delay, "
            f"{names[other]} orders {agree} of them the same way{unlike}"
        )
    return "; ".join(parts)


def _r(ratio: float) -> str:
    return "-" if math.isnan(ratio) else f"{ratio:.2f}"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
