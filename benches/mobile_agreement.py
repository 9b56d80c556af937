"""rwp50 over N seeds in manetsim and ns-2.35: do the 95 % intervals overlap?

Usage: python benches/mobile_agreement.py [--seeds N] [--routing aodv|dsr|dsdv|aomdv] [--jobs N]

Runs `manetsim.ns2.crosscheck` on the reference scenario rwp50 (50 nodes,
random waypoint 0-20 m/s, pause 10 s, AODV with ns-2's constants, 1 TCP NewReno
+ 10 CBR flows, 500 s) for seeds 1..N; both simulators move the nodes along
the same trajectories (the export writes manetsim's movements as setdest
lines). Prints, per metric, each simulator's mean ± 95 % CI across seeds and
whether the intervals overlap (issue 8's agreement criterion), then the
routing packets by message and the drops by reason side by side. ``--routing``
runs the same scenario over DSR (``preset = "ns2"``), DSDV or AOMDV (with
ns-2.35's HELLO link detection, ``[routing.aomdv] link_detection = "hello"``)
instead of AODV;
manetsim runs with ``[mac] arp = "ns2"`` unless ``--arp off``, and with ns-2.35's
frame sizes, backoff slots, count of slots, order of ties within a nanosecond
and link-layer delay (``[mac] frames``, ``backoff_draw``, ``backoff_count`` and
``tie_rule = "ns2"``, ``ll_delay_s = 25e-6``)
unless ``--mac standard``, and its TCP flow with ns-2.35's loss response and limited transmit
(``[flows.tcp] ssthresh_rule = "ns2"``, ``limited_transmit = true``) unless
``--tcp standard``. ``--jobs N`` runs N seeds side by side (the same figures).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys

from manetsim import bench, ns2, stats

CBR_FLOWS = range(1, 11)


def _cbr_mean(per_seed: list[dict[str, float]], metric: str) -> list[float]:
    out = []
    for s in per_seed:
        values = [s[f"flow{i}.{metric}"] for i in CBR_FLOWS]
        values = [v for v in values if not math.isnan(v)]
        out.append(statistics.fmean(values) if values else float("nan"))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--routing", choices=("aodv", "dsr", "dsdv", "aomdv"), default="aodv")
    parser.add_argument("--jobs", type=int, default=1, help="seeds run side by side")
    ns2.add_model_arguments(parser)
    args = parser.parse_args(argv)
    path = bench.reference_path("rwp50")
    overrides = {
        "routing.protocol": args.routing,
        **ns2.mac_overrides(args.arp, args.mac),
    }
    overrides.update(ns2.routing_overrides(args.routing))
    overrides.update(ns2.tcp_overrides(path, overrides, args.tcp))
    if args.jobs < 1:
        parser.error(f"--jobs: expected at least 1, got {args.jobs}")
    seeds = range(1, args.seeds + 1)
    ours, theirs = ns2.crosscheck(path, seeds, overrides, jobs=args.jobs)
    for seed, why in ours.left_out:
        print(f"left out: seed {seed}: {why}", file=sys.stderr)
    rows = [
        (
            "TCP throughput (kbit/s)",
            [s["flow0.throughput_kbps"] for s in ours.per_seed],
            [s["flow0.throughput_kbps"] for s in theirs.per_seed],
        ),
        (
            "TCP delay (ms)",
            [s["flow0.delay_ms"] for s in ours.per_seed],
            [s["flow0.delay_ms"] for s in theirs.per_seed],
        ),
        (
            "CBR delivery ratio (%)",
            [100 - x for x in _cbr_mean(ours.per_seed, "loss_pct")],
            [100 - x for x in _cbr_mean(theirs.per_seed, "loss_pct")],
        ),
        (
            "CBR delay (ms)",
            _cbr_mean(ours.per_seed, "delay_ms"),
            _cbr_mean(theirs.per_seed, "delay_ms"),
        ),
        (
            "CBR throughput (kbit/s)",
            _cbr_mean(ours.per_seed, "throughput_kbps"),
            _cbr_mean(theirs.per_seed, "throughput_kbps"),
        ),
    ]
    print(f"rwp50 over {args.routing}, seeds 1-{args.seeds}: mean ± 95 % CI across seeds")
    print()
    print("| metric | manetsim | ns-2.35 | intervals overlap |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        ma, ha, _ = stats.mean_ci(a)
        mb, hb, _ = stats.mean_ci(b)
        overlap = stats.intervals_overlap((ma, ha), (mb, hb))
        print(
            f"| {name} | {ma:.1f} ± {ha:.1f} | {mb:.1f} ± {hb:.1f} | {'yes' if overlap else 'no'} |"
        )
    print()
    summary = ns2.summarize_sides(ours, theirs)
    told, apart = ns2.overlap_tally(ours, theirs, [row[0] for row in summary])
    print(f"Every metric `manetsim crosscheck` compares: {ns2.overlap_line(told, apart)}.")
    print()
    print("Routing packets by message, drops by reason and DSR flow state, mean per seed:")
    print()
    print("| count | manetsim | ns-2.35 | ratio |")
    print("|---|---|---|---|")
    for key, a, b, ratio in summary:
        if key.startswith(("routing", "drops.", "flow_state.")):
            print(f"| {key} | {a:.0f} | {b:.0f} | {ratio:.2f} |")
    print()
    print(
        f"Processes: manetsim {sum(ours.wall_s):.1f} s, ns-2.35 {sum(theirs.wall_s):.1f} s "
        f"(wall, same run); CPU {sum(ours.cpu_s):.1f} s and {sum(theirs.cpu_s):.1f} s "
        f"({args.jobs} seed(s) at a time)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
