"""Benchmarks: manetsim on the reference scenarios, optionally beside ns-2.35.

The reference scenarios ship with the package (``manetsim/benchmarks/``):
``chain6``, ``rwp50``, ``rwp1000`` and ``rwp10000`` (issue 8). Each run is a
fresh process, as a user runs it, and reports the process's wall and CPU time,
the core's own time, events per second, peak memory (maximum resident set
size) and memory per node beyond a two-node run's. With ``against="ns2"`` the
same scenario is exported (tracing off) and run by ``ns`` in the same
benchmark run, and the ratios are of those two measurements. With
``against="ns3"`` the ns-3 program kept in ``benches/ns3/`` (compiled on
demand, see :mod:`manetsim.ns3`) runs the same scenario, movements and flows
in the same benchmark run; ``against=["ns2", "ns3"]`` runs both.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from manetsim import ns3
from manetsim.ns2 import (
    INSTALL_HINT,
    NS_STALL_S,
    RUN_STDOUT,
    _run_timed,
    export_tcl,
    last_clock,
    ns2_failure,
    signal_name,
    with_clock,
)
from manetsim.run import Overrides, load_config, resolved_toml

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["AGAINST", "REFERENCE", "BenchRow", "parse_against", "reference_path", "run_bench"]

BENCH_DIR = Path(__file__).parent / "benchmarks"
REFERENCE = ("chain6", "rwp50", "rwp1000", "rwp10000")
AGAINST = ("ns2", "ns3")

# The child's own peak memory is VmHWM, the high-water mark of its address
# space. Its `ru_maxrss` is not: Linux carries the peak of the process it
# was forked from across `exec`, so every child of this process reported
# at least this process's own size, whatever it used, and two small
# children compared as equal.
_CHILD = """
import json, resource, sys
import manetsim
from manetsim import _core
result = manetsim.run(sys.argv[1])
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak_kib = int(line.split()[1])
except OSError:
    pass
json.dump({
    "events": result.events,
    "build": _core.build(),
    "core_s": result.wall_s,
    "nodes": len(result.json["nodes"]),
    "maxrss_kib": peak_kib,
    "balanced": result.ledger["balanced"],
}, sys.stdout)
"""

_TINY = """
duration_s = 1.0
[nodes]
count = 2
[routing]
protocol = "static"
"""


@dataclass
class BenchRow:
    """One scenario's measurements."""

    scenario: str
    nodes: int
    events: int
    core_s: float
    wall_s: float
    cpu_s: float
    maxrss_mib: float
    bytes_per_node: float
    #: Memory per node of the same scenario without traffic (no packets in
    #: flight), beyond a two-node run's.
    idle_bytes_per_node: float | None = None
    ns2_wall_s: float | None = None
    ns2_cpu_s: float | None = None
    #: Why ns-2 has no figures here: it hung (its clock stood still for
    #: ``ns_stall_s``) or crashed, and was left out.
    ns2_note: str | None = None
    ns3_wall_s: float | None = None
    ns3_cpu_s: float | None = None
    #: The ns-3 version the program was built against (e.g. "3.44").
    ns3_version: str | None = None
    ns3_result: dict[str, Any] | None = None
    #: How manetsim's core was compiled (``manetsim._core.build()``):
    #: ``release`` from ``pip install .``, ``pgo`` from ``scripts/install_pgo.sh``.
    build: str = "release"

    @property
    def events_per_s(self) -> float:
        return self.events / self.core_s if self.core_s > 0 else float("nan")

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["events_per_s"] = self.events_per_s
        if self.ns2_wall_s is not None:
            out["speedup_wall"] = self.ns2_wall_s / self.wall_s
        if self.ns2_cpu_s is not None and self.cpu_s > 0:
            out["speedup_cpu"] = self.ns2_cpu_s / self.cpu_s
        if self.ns3_wall_s is not None:
            out["speedup_ns3_wall"] = self.ns3_wall_s / self.wall_s
        if self.ns3_cpu_s is not None and self.cpu_s > 0:
            out["speedup_ns3_cpu"] = self.ns3_cpu_s / self.cpu_s
        return out


def reference_path(name: str) -> Path:
    """The file of a reference scenario, or ``name`` itself when it is a file."""
    candidate = Path(name)
    if candidate.is_file():
        return candidate
    path = BENCH_DIR / f"{name}.toml"
    if not path.is_file():
        raise FileNotFoundError(
            f"{name}: no such reference scenario (reference: {', '.join(REFERENCE)})"
        )
    return path


def _timed(command: list[str], cwd: str | None = None) -> tuple[str, float, float]:
    """Runs ``command``; returns (stdout, wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{command[0]} failed: {' | '.join(tail)}")
    return proc.stdout, wall, cpu


def _manetsim(path: Path, idle: bool = False) -> tuple[dict[str, Any], float, float]:
    """Runs ``path`` in a child process: its figures, wall and CPU seconds.

    ``idle``: the same nodes, movements, routing and duration, without any
    traffic, written to a file of its own first, so that the child reads no
    more of a scenario than it runs (a thousand flows parsed and dropped
    would count as the nodes' memory).
    """
    if idle:
        config = load_config(path)
        config.pop("flows", None)
        config.pop("traffic", None)
        with tempfile.TemporaryDirectory(prefix="manetsim-idle-") as folder:
            quiet = Path(folder) / path.name
            quiet.write_text(resolved_toml(config), encoding="utf-8")
            return _manetsim(quiet)
    out, wall, cpu = _timed([sys.executable, "-c", _CHILD, str(path)])
    return json.loads(out), wall, cpu


def parse_against(against: str | Sequence[str] | None) -> list[str]:
    """``"ns2"``, ``"ns2,ns3"``, ``["ns2", "ns3"]`` or None as a list of simulators."""
    if against is None:
        return []
    items = [against] if isinstance(against, str) else list(against)
    names: list[str] = []
    for item in items:
        for name in item.split(","):
            name = name.strip().lower()
            if not name:
                continue
            if name not in AGAINST:
                raise ValueError(
                    f"--against {name}: unknown simulator (available: {', '.join(AGAINST)})"
                )
            if name not in names:
                names.append(name)
    return names


#: Simulated seconds between two lines of ns-2's clock (:func:`with_clock`).
NS2_CLOCK_STEP_S = 1.0


def _ns2_timed(
    tcl: Path, folder: Path, ns_command: str, stall_s: float
) -> tuple[float, float] | str:
    """Runs ns-2 on ``tcl``: (wall, CPU seconds), or why it has no times.

    The script prints its clock (:func:`with_clock`); a run whose clock,
    once started, has not moved for ``stall_s`` seconds (or, if longer, ten
    times its slowest step so far, or as long as the set-up before its
    first line) is stopped as hung (ns-2.35's DSDV can
    loop for ever at one instant). A crash is named the same way; any other
    failure is an error.
    """
    done = _run_timed(
        [ns_command, str(tcl)], folder, None, (folder / RUN_STDOUT, stall_s), clock=True
    )
    assert done is not None  # no time limit
    if done.stalled:
        return (
            f"ns-2 hung: its clock stopped at {last_clock(done.stdout)} s and did not "
            f"move for {stall_s:g} s (--ns-stall-s), so it was stopped"
        )
    if done.returncode < 0:
        return f"ns-2 crashed ({signal_name(done.returncode)}) at {last_clock(done.stdout)} s"
    if done.returncode != 0:
        raise RuntimeError(
            f"ns-2 failed (exit status {done.returncode}): {ns2_failure(done.stdout, done.stderr)}"
        )
    return done.wall_s, done.cpu_s


def run_bench(
    names: list[str],
    against: str | Sequence[str] | None = None,
    repeat: int = 1,
    overrides: Overrides = None,
    status: Callable[[str], None] | None = None,
    ns_command: str = "ns",
    ns_stall_s: float = NS_STALL_S,
) -> list[BenchRow]:
    """Benchmarks each scenario (best of ``repeat`` runs for each simulator).

    ``against`` names simulators to run on the same scenarios in the same run:
    ``"ns2"``, ``"ns3"`` or both (a list, or ``"ns2,ns3"``). ``overrides``
    (``--set`` pairs, e.g. ``["duration_s=40"]``) apply to every scenario and
    every simulator: each runs the same resolved scenario. ``status(what)``,
    if given, hears each step as it starts (``"rwp50: ns-2.35"``).
    ``ns_command`` is the ns-2 executable; a run of it whose clock stands
    still for ``ns_stall_s`` seconds is stopped, and its row says so
    (``ns2_note``) in place of ns-2's times.
    """
    others = parse_against(against)

    def step(what: str) -> None:
        if status is not None:
            status(what)

    # Resolve every scenario (with its overrides) before anything is timed,
    # so a bad key fails at once.
    texts = {name: resolved_toml(reference_path(name), overrides) for name in names}
    if "ns2" in others and shutil.which(ns_command) is None:
        raise FileNotFoundError(INSTALL_HINT)
    binary = None
    ns3_version = None
    if "ns3" in others:
        # Refuse what ns-3 cannot run before anything is built or timed.
        for name in names:
            ns3.check_expressible(load_config(texts[name]))
        found = ns3.installation()
        step(f"building the ns-{found.version} program")
        binary = ns3.build(install=found)
        ns3_version = found.version
    with tempfile.TemporaryDirectory(prefix="manetsim-bench-") as folder:
        tiny = Path(folder) / "tiny.toml"
        tiny.write_text(_TINY, encoding="utf-8")
        baseline_kib = _manetsim(tiny)[0]["maxrss_kib"]
        rows = []
        for name in names:
            # Every simulator reads the resolved scenario, under its own name.
            path = Path(folder) / "scenarios" / f"{reference_path(name).stem}.toml"
            path.parent.mkdir(exist_ok=True)
            path.write_text(texts[name], encoding="utf-8")
            best: tuple[dict[str, Any], float, float] | None = None
            step(f"{name}: manetsim")
            for _ in range(repeat):
                measured = _manetsim(path)
                if best is None or measured[1] < best[1]:
                    best = measured
            assert best is not None
            info, wall, cpu = best
            row = BenchRow(
                scenario=path.stem,
                nodes=info["nodes"],
                events=info["events"],
                core_s=info["core_s"],
                wall_s=wall,
                cpu_s=cpu,
                maxrss_mib=info["maxrss_kib"] / 1024,
                bytes_per_node=max(0, info["maxrss_kib"] - baseline_kib) * 1024 / info["nodes"],
                build=info["build"],
            )
            step(f"{name}: manetsim, idle memory")
            idle_kib = _manetsim(path, idle=True)[0]["maxrss_kib"]
            row.idle_bytes_per_node = max(0, idle_kib - baseline_kib) * 1024 / info["nodes"]
            if "ns2" in others:
                step(f"{name}: ns-2.35")
                tcl = Path(folder) / f"{path.stem}.tcl"
                script = with_clock(export_tcl(path, tracing=False), NS2_CLOCK_STEP_S)
                tcl.write_text(script, encoding="utf-8")
                walls: list[tuple[float, float]] = []
                for _ in range(repeat):
                    timed = _ns2_timed(tcl, Path(folder), ns_command, ns_stall_s)
                    if isinstance(timed, str):
                        row.ns2_note = f"{path.stem}: {timed}"
                        break
                    walls.append(timed)
                else:
                    row.ns2_wall_s, row.ns2_cpu_s = min(walls)
            if binary is not None:
                step(f"{name}: ns-{ns3_version}")
                command = ns3.prepare(path, Path(folder), binary)
                runs = [_timed(command, cwd=folder) for _ in range(repeat)]
                out, row.ns3_wall_s, row.ns3_cpu_s = min(runs, key=lambda run: run[1])
                row.ns3_version = ns3_version
                row.ns3_result = ns3.parse_result(out)
            rows.append(row)
        return rows
