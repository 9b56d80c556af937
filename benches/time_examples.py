"""Time `manetsim run` on the example and benchmark scenarios.

Usage: python benches/time_examples.py [SCENARIO.toml ...]

For each scenario it runs the CLI in a fresh process (as a user would) and
prints the process wall time, the simulation's own wall time, the number of
events and events per second. Without arguments it times `examples/*.toml`
and `benches/scenarios/*.toml`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def time_one(path: Path) -> dict[str, float | int | str]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "manetsim", "run", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    process_s = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{path}: {proc.stderr.strip()}")
    r = json.loads(proc.stdout)
    return {
        "scenario": path.name,
        "simulated_s": r["duration_s"],
        "nodes": len(r["nodes"]),
        "events": r["events"],
        "sim_wall_s": r["wall_s"],
        "process_wall_s": process_s,
        "events_per_s": r["events_per_s"],
    }


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(
        [*ROOT.glob("examples/*.toml"), *ROOT.glob("benches/scenarios/*.toml")]
    )
    header = (
        f"{'scenario':34} {'nodes':>5} {'sim s':>7} {'events':>12} "
        f"{'core wall s':>11} {'process s':>9} {'events/s':>12}"
    )
    print(header)
    print("-" * len(header))
    for p in paths:
        row = time_one(p)
        print(
            f"{row['scenario']:34} {row['nodes']:>5} {row['simulated_s']:>7.0f} "
            f"{row['events']:>12,} {row['sim_wall_s']:>11.3f} {row['process_wall_s']:>9.3f} "
            f"{row['events_per_s']:>12,.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
