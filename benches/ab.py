"""Compare the core of two revisions: same results, instructions, CPU time.

Usage:
    python benches/ab.py BASE [--head REV] [--scenario SPEC ...] [--runs N]
                         [--no-valgrind]

BASE and ``--head`` are git revisions (``--head`` defaults to the working
tree, uncommitted changes included). Each is built once as the core's
``run_scenario`` example: a revision in its own target folder under
``target/ab/``, from a detached git worktree; the working tree in place, in
its usual target folder. Then,
for every scenario:

- both binaries run it once with ``RUN_SCENARIO_JSON``, and the two results
  are compared byte for byte (the JSON holds no wall-clock field);
- with ``valgrind`` on the PATH (Debian: ``apt-get install -y valgrind``),
  each runs it under ``cachegrind`` and the instructions executed are
  counted: unlike time, the count does not drift with the machine, so a
  change of 1 % shows;
- each runs it ``--runs`` times more, interleaved (base, head, base, ...),
  and the CPU seconds of every run are kept: the minimum and the median
  are printed.

A SPEC is a reference scenario's name (``chain6``, ``rwp50``, ``rwp1000``,
``rwp10000``) or a TOML file, optionally followed by ``key=value`` overrides
after colons: ``rwp1000:duration_s=20``. The default is ``chain6`` and
``rwp50``. The exit status is 1 when any result differs, so that "the same
results" can be checked by a script, and 2 when a build or a run fails.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "python" / "manetsim" / "benchmarks"
EXAMPLE = ("cargo", "build", "--release", "-q", "-p", "manetsim-core", "--example", "run_scenario")

_IR = re.compile(r"I\s+refs:\s+([\d,]+)")


def parse_ir(stderr: str) -> int | None:
    """The instruction count in cachegrind's summary (None when absent)."""
    match = _IR.search(stderr)
    return int(match.group(1).replace(",", "")) if match else None


@dataclass
class Spec:
    """A scenario file with its overrides."""

    path: Path
    overrides: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return ":".join([self.path.stem, *self.overrides])


def parse_spec(text: str) -> Spec:
    """``NAME[:key=value...]`` or ``FILE.toml[:key=value...]`` as a Spec."""
    name, *overrides = text.split(":")
    for item in overrides:
        if "=" not in item or item.startswith("="):
            raise ValueError(f"--scenario {text}: override `{item}` is not key=value")
    path = Path(name)
    if not path.is_file():
        path = REFERENCE / f"{name}.toml"
        if not path.is_file():
            names = ", ".join(sorted(p.stem for p in REFERENCE.glob("*.toml")))
            raise ValueError(f"--scenario {text}: no such file or reference scenario ({names})")
    return Spec(path.resolve(), overrides)


def build(rev: str | None, work: Path) -> Path:
    """Builds ``run_scenario`` at ``rev`` (None: the working tree); its path."""
    label = "worktree" if rev is None else rev.replace("/", "_")
    if rev is None:
        # The working tree's own build, as `cargo build` would make it.
        env = dict(os.environ)
        target = Path(env.get("CARGO_TARGET_DIR", ROOT / "target"))
        source = ROOT
    else:
        target = ROOT / "target" / "ab" / label
        env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
        source = work / label
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(source), rev],
            check=True,
        )
    try:
        subprocess.run(EXAMPLE, cwd=source, env=env, check=True)
    finally:
        if rev is not None:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(source)],
                check=False,
            )
    binary = target / "release" / "examples" / "run_scenario"
    kept = work / f"run_scenario-{label}"
    shutil.copy2(binary, kept)
    return kept


def run(
    binary: Path, spec: Spec, json_to: Path | None = None, valgrind: bool = False
) -> tuple[float, int | None]:
    """Runs one scenario; returns (CPU seconds, instructions or None)."""
    command = [str(binary), str(spec.path), *spec.overrides]
    if valgrind:
        command = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            *command,
        ]
    env = dict(os.environ)
    env.pop("RUN_SCENARIO_JSON", None)
    if json_to is not None:
        env["RUN_SCENARIO_JSON"] = str(json_to)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{binary.name} on {spec.label}: {tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, parse_ir(proc.stderr) if valgrind else None


def count(n: int | None) -> str:
    """An instruction count with thousands separators, or a dash."""
    return "-" if n is None else f"{n:,}"


def change(a: float | None, b: float | None) -> str:
    """``b`` against ``a`` as a signed percentage, or a dash."""
    if a is None or b is None or a == 0:
        return "-"
    return f"{100.0 * (b - a) / a:+.2f} %"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the git revision to compare against")
    parser.add_argument("--head", default=None, help="a git revision (default: the working tree)")
    parser.add_argument("--scenario", action="append", default=None, metavar="SPEC")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    parser.add_argument("--no-valgrind", action="store_true", help="skip instruction counts")
    args = parser.parse_args(argv)
    if args.runs < 0:
        parser.error("--runs must be ≥ 0")
    try:
        specs = [parse_spec(s) for s in (args.scenario or ["chain6", "rwp50"])]
    except ValueError as err:
        parser.error(str(err))
    valgrind = not args.no_valgrind and shutil.which("valgrind") is not None
    if not args.no_valgrind and not valgrind:
        print("valgrind not found (apt-get install -y valgrind): no instruction counts")
    differ = False
    with tempfile.TemporaryDirectory(prefix="manetsim-ab-") as tmp:
        work = Path(tmp)
        try:
            base = build(args.base, work)
            head = build(args.head, work)
        except subprocess.CalledProcessError as err:
            print(f"ab.py: `{' '.join(err.cmd)}` failed (exit {err.returncode})", file=sys.stderr)
            return 2
        print(f"base {args.base}, head {args.head or 'working tree'}")
        print(
            f"{'scenario':28} {'same':>4} {'instructions base':>18} {'head':>16} {'change':>9}"
            f"  {'CPU s base min/med':>18}  {'head min/med':>12}"
        )
        for spec in specs:
            try:
                same, ir_a, ir_b, times = compare(base, head, spec, work, valgrind, args.runs)
            except RuntimeError as err:
                print(f"ab.py: {err}", file=sys.stderr)
                return 2
            differ |= not same
            print(
                f"{spec.label[:28]:28} {'yes' if same else 'NO':>4} "
                f"{count(ir_a):>18} {count(ir_b):>16} "
                f"{change(ir_a, ir_b):>9}  {summary(times[0]):>18}  {summary(times[1]):>12}"
            )
    return 1 if differ else 0


def summary(xs: list[float]) -> str:
    """The least and the median of some CPU times, or a dash."""
    return f"{min(xs):.3f}/{statistics.median(xs):.3f}" if xs else "-"


def compare(
    base: Path, head: Path, spec: Spec, work: Path, valgrind: bool, runs: int
) -> tuple[bool, int | None, int | None, tuple[list[float], list[float]]]:
    """One scenario through both binaries: whether the results are the same
    bytes, the two instruction counts, and the two lists of CPU times."""
    a_json, b_json = work / "a.json", work / "b.json"
    run(base, spec, a_json)
    run(head, spec, b_json)
    same = a_json.read_bytes() == b_json.read_bytes()
    ir_a = run(base, spec, valgrind=True)[1] if valgrind else None
    ir_b = run(head, spec, valgrind=True)[1] if valgrind else None
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        times[0].append(run(base, spec)[0])
        times[1].append(run(head, spec)[0])
    return same, ir_a, ir_b, times


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
