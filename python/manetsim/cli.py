"""The ``manetsim`` command: run, validate and show scenarios.

stdout carries only what was asked for (tables, one JSON object, TOML or
"FILE: ok"); notices and errors go to stderr. Every error is one line,
``error: <message>``, with exit status 2 for a bad command line or scenario and
1 for a simulation that failed. Set ``MANETSIM_TRACEBACK=1`` to see the Python
traceback of an unexpected error instead.
"""

import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    import tomli as tomllib

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from manetsim import _core
from manetsim import bench as bench_mod
from manetsim import ns2 as ns2_mod
from manetsim import study as study_mod
from manetsim import sweep as sweep_mod
from manetsim.results import Result, write_text_atomic
from manetsim.run import MAX_SEED, movements_ns2, override_pairs, resolved_toml
from manetsim.run import run as run_scenario

__all__ = ["app", "main"]

EXIT_SIMULATION = 1
EXIT_USAGE = 2

app = typer.Typer(
    name="manetsim",
    help="Simulate mobile ad hoc networks from TOML scenario files.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ScenarioFile = Annotated[
    Path,
    typer.Argument(metavar="FILE", help="Scenario file (TOML).", show_default=False),
]
SetOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a scenario key, e.g. --set routing.protocol=static "
        "--set flows.0.rate_bps=50000 (repeatable).",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    Optional[int],
    typer.Option("--workers", "-j", min=1, help="Local runs at once (default: every core)."),
]
ExecutorOption = Annotated[
    str,
    typer.Option("--executor", metavar="local|dask", help="Where the runs execute."),
]
SchedulerOption = Annotated[
    Optional[str],
    typer.Option("--scheduler", metavar="ADDRESS", help="Dask scheduler address."),
]
SeedOption = Annotated[
    Optional[int],
    typer.Option("--seed", min=0, help="Master seed (replaces the scenario's `seed`)."),
]


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"manetsim {_core.__version__} ({_core.build()} build)\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            callback=_version_callback,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Simulate mobile ad hoc networks from TOML scenario files."""


@app.command("run")
def run_command(
    file: ScenarioFile,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the result as one JSON object on stdout.")
    ] = False,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help=(
                "Also write Parquet tables, result.json and scenario.toml to DIR "
                "(and trace.tr, with [output] ns2_trace = true)."
            ),
            file_okay=False,
        ),
    ] = None,
    seed: SeedOption = None,
    set_: SetOption = None,
) -> None:
    """Run a scenario and report per-flow, drop and MAC figures.

    With [output] ns2_trace = true it also writes an ns-2 trace: DIR/trace.tr
    with --out, NAME.tr in the current directory without.
    """
    overrides = override_pairs(set_ or [])
    notices = _stderr()
    resolved = tomllib.loads(resolved_toml(file, overrides, seed))
    trace: Optional[Path] = None
    if resolved.get("output", {}).get("ns2_trace", False):
        if out is None and not sweep_mod.is_plain_file_name(str(resolved["name"])):
            _fail(
                f"{file}: key `name`: {resolved['name']!r} names the ns-2 trace (NAME.tr in "
                "the current directory): no path separators, and not . or .. (or give --out)",
                EXIT_USAGE,
            )
        trace = out / "trace.tr" if out is not None else Path(f"{resolved['name']}.tr")
        trace.parent.mkdir(parents=True, exist_ok=True)
    if notices.is_terminal:
        with notices.status(f"running {escape(str(file))}", spinner="dots"):
            result = run_scenario(file, seed=seed, overrides=overrides, ns2_trace=trace)
    else:
        result = run_scenario(file, seed=seed, overrides=overrides, ns2_trace=trace)
    for warning in result.warnings:
        notices.print(f"warning: {escape(warning)}", highlight=False)
    if trace is not None:
        notices.print(f"wrote the ns-2 trace to {escape(str(trace))}", highlight=False)
    if out is not None:
        result.write(out)
        notices.print(f"wrote results to {escape(str(out))}", highlight=False)
    if json_output:
        sys.stdout.write(result.json_text() + "\n")
    else:
        _print_report(result, _stdout())


@app.command("validate")
def validate_command(file: ScenarioFile, set_: SetOption = None) -> None:
    """Check a scenario without running it: prints "FILE: ok" or the error."""
    resolved_toml(file, override_pairs(set_ or []))
    sys.stdout.write(f"{file}: ok\n")


@app.command("show-config")
def show_config_command(
    file: ScenarioFile,
    set_: SetOption = None,
    seed: SeedOption = None,
) -> None:
    """Print the fully resolved scenario (every default filled in) as TOML."""
    sys.stdout.write(resolved_toml(file, override_pairs(set_ or []), seed))


@app.command("convert")
def convert_command(
    file: ScenarioFile,
    output: Annotated[
        Optional[Path],
        typer.Option(
            "--output",
            "-o",
            metavar="OUT",
            help="Write the ns-2 movement file here (default: stdout).",
            dir_okay=False,
        ),
    ] = None,
    seed: SeedOption = None,
    set_: SetOption = None,
) -> None:
    """Write the scenario's node movements as an ns-2 movement file.

    Works for every mobility model (random waypoint, scripted waypoints, ns-2 and
    BonnMotion files), so the same motion can be run in ns-2 for comparison.
    """
    text = movements_ns2(file, override_pairs(set_ or []), seed)
    if output is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(output, text)
        _stderr().print(f"wrote {escape(str(output))}", highlight=False)


@app.command("sweep")
def sweep_command(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="Sweep file (TOML).", show_default=False),
    ],
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Dataset directory (default: results/NAME).",
            file_okay=False,
        ),
    ] = None,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """Run a parameter sweep (scenario x axes x seeds) into a Parquet dataset.

    Finished runs are kept: re-running the same command resumes an interrupted
    sweep and skips what is done.
    """
    _check_executor(executor)
    definition = sweep_mod.parse(file)
    target = out if out is not None else Path("results") / definition.name
    summary = _run_with_progress(definition, target, workers, executor, scheduler)
    _stderr().print(
        f"{definition.name}: {summary.ran} runs done, {summary.skipped} already finished, "
        f"{summary.total} in all, in {summary.wall_s:.1f} s",
        highlight=False,
    )
    sys.stdout.write(f"{summary.out}\n")


def _run_with_progress(
    definition: "sweep_mod.Sweep",
    target: Path,
    workers: Optional[int],
    executor: str,
    scheduler: Optional[str],
) -> "sweep_mod.SweepSummary":
    console = _stderr()
    with _progress_bar(console) as bar:
        task = bar.add_task(escape(definition.name), total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return sweep_mod.run_sweep(
            definition,
            target,
            workers=workers,
            executor=executor,
            scheduler=scheduler,
            progress=progress,
        )


study_app = typer.Typer(
    help="Re-run a published study: sweeps, tables, figures and findings.",
    no_args_is_help=True,
)
app.add_typer(study_app, name="study")


@study_app.command("list")
def study_list_command() -> None:
    """List the studies shipped with manetsim."""
    for name in study_mod.available():
        definition = study_mod.Study.load(study_mod.find(name))
        sys.stdout.write(f"{name}\t{definition.title}\n")


@study_app.command("run")
def study_run_command(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help="A study name (see `study list`) or folder."),
    ],
    seeds: Annotated[
        Optional[int],
        typer.Option("--seeds", min=1, help="Seeds per point (default: the study's)."),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="The reduced version (under a minute).")
    ] = False,
    only: Annotated[
        Optional[list[str]],
        typer.Option("--only", metavar="SWEEP", help="Run only this sweep (repeatable)."),
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Where data/ and report/ go (default: results/NAME).",
            file_okay=False,
        ),
    ] = None,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """Run a study's sweeps and write its report (tables, figures, findings)."""
    _check_executor(executor)
    folder = study_mod.find(name)
    definition = study_mod.Study.load(folder, quick=quick, seeds=seeds, only=only)
    target = (
        out
        if out is not None
        else Path("results") / (definition.name + ("-quick" if quick else ""))
    )
    console = _stderr()
    start = time.perf_counter()
    with _progress_bar(console) as bar:
        tasks: dict[str, Any] = {}

        def progress(sweep_name: str, done: int, total: int) -> None:
            if sweep_name not in tasks:
                tasks[sweep_name] = bar.add_task(escape(sweep_name), total=total)
            bar.update(tasks[sweep_name], completed=done, total=total)

        findings = study_mod.run_study(
            definition, target, workers, executor, scheduler, progress=progress
        )
    table = Table(title=f"{definition.title}: findings", title_justify="left")
    table.add_column("the paper says")
    table.add_column("manetsim")
    table.add_column("holds")
    for finding in findings:
        verdict = "n/a" if finding.holds is None else ("yes" if finding.holds else "no")
        table.add_row(escape(finding.paper), escape(finding.ours), verdict)
    _stdout().print(table)
    console.print(
        f"report in {escape(str(target / 'report'))} ({time.perf_counter() - start:.1f} s)",
        highlight=False,
    )


def _check_executor(executor: str) -> None:
    if executor not in ("local", "dask"):
        _fail(f"--executor: unknown executor `{executor}` (local | dask)", EXIT_USAGE)


def _progress_bar(console: Console) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )


export_app = typer.Typer(
    help="Write a scenario for another simulator.",
    no_args_is_help=True,
)
app.add_typer(export_app, name="export")


@export_app.command("ns2")
def export_ns2_command(
    file: ScenarioFile,
    output: Annotated[
        Optional[Path],
        typer.Option(
            "--output",
            "-o",
            metavar="OUT",
            help="Write the Tcl script here (default: stdout).",
            dir_okay=False,
        ),
    ] = None,
    trace: Annotated[
        str,
        typer.Option("--trace", metavar="FILE", help="Trace file the script writes."),
    ] = "trace.tr",
    mac_trace: Annotated[
        bool,
        typer.Option(
            "--mac-trace",
            help="Trace ns-2's MAC too (every frame, and D … MAC RET for each it "
            "gives up on, as manetsim's trace has them).",
        ),
    ] = False,
    seed: SeedOption = None,
    set_: SetOption = None,
) -> None:
    """Write an ns-2.35 Tcl script for the same scenario (refuses what ns-2 lacks)."""
    try:
        script = ns2_mod.export_tcl(
            file, override_pairs(set_ or []), seed, trace, mac_trace=mac_trace
        )
    except ns2_mod.ExportError as err:
        _fail(f"{file}: {err}", EXIT_USAGE)
    if output is None:
        sys.stdout.write(script)
    else:
        write_text_atomic(output, script)
        _stderr().print(f"wrote {escape(str(output))}", highlight=False)


@app.command("crosscheck")
def crosscheck_command(
    file: ScenarioFile,
    seeds: Annotated[
        int,
        typer.Option(
            "--seeds",
            min=1,
            help="How many seeds both simulators run: the scenario's seed (1 unless the "
            "file or --set gives another) and the next ones.",
        ),
    ] = 1,
    ns_command: Annotated[
        str, typer.Option("--ns", metavar="COMMAND", help="The ns-2 executable.")
    ] = "ns",
    ns_timeout_s: Annotated[
        Optional[float],
        typer.Option(
            "--ns-timeout-s",
            help="Stop an ns-2 run after this many seconds (default: wait for it).",
        ),
    ] = None,
    like_ns2: Annotated[
        bool,
        typer.Option(
            "--like-ns2",
            help="Run manetsim with ns-2.35's models wherever it has one (AODV's or DSR's "
            "ns2 preset, ARP, frame sizes, backoff slots, link layer, TCP loss response, "
            "limited transmit and Vegas rule); --set still applies after.",
        ),
    ] = False,
    keep_traces: Annotated[
        Optional[Path],
        typer.Option(
            "--keep-traces",
            metavar="DIR",
            help="Keep each seed's traces in DIR/seed-N: ns2.tcl, ns2.tr and manetsim.tr "
            "(manetsim's trace in ns-2's format), to compare hop by hop.",
            file_okay=False,
        ),
    ] = None,
    mac_trace: Annotated[
        bool,
        typer.Option(
            "--mac-trace",
            help="With --keep-traces: ns-2.35's kept trace has its MAC lines too (every "
            "frame, and D … MAC RET for each its MAC gives up on), as manetsim's has; "
            "both traces' MAC lines are counted side by side (mac.* rows).",
        ),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Run this many seeds side by side (each runs manetsim, then ns-2). The "
            "figures do not change; the speed ratio then comes from each process's CPU "
            "time, which leaves out its waits for a core (shared caches still slow runs "
            "side by side a little).",
        ),
    ] = 1,
    per_flow: Annotated[
        bool,
        typer.Option(
            "--per-flow/--totals-only",
            help="Print each flow's metrics, or only all flows added together (flows.*).",
        ),
    ] = True,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object instead of the table: each seed's figures and "
            "times from both simulators (NaN as null), and the means and ratios.",
        ),
    ] = False,
    set_: SetOption = None,
) -> None:
    """Run manetsim and ns-2.35 on the same scenario; print both, ratios and speed."""
    try:
        ns2_mod.check_ns_timeout(ns_timeout_s)
    except ValueError as err:
        _fail(f"--ns-timeout-s: {err}", EXIT_USAGE)
    if mac_trace and keep_traces is None:
        _fail("--mac-trace: only with --keep-traces DIR (its lines are for reading)", EXIT_USAGE)
    overrides = override_pairs(set_ or [])
    if like_ns2:
        # Later pairs win: the caller's --set over ns-2.35's models.
        overrides = override_pairs(ns2_mod.like_ns2_overrides(file, overrides)) + overrides
    try:
        ns2_mod.export_tcl(file, overrides, 1)
    except ns2_mod.ExportError as err:
        _fail(f"{file}: {err}", EXIT_USAGE)
    first = ns2_mod.first_seed(file, overrides)
    if first + seeds - 1 > MAX_SEED:
        _fail(
            f"--seeds {seeds}: from seed {first} the seeds would pass the largest, {MAX_SEED}",
            EXIT_USAGE,
        )
    run_seeds = range(first, first + seeds)
    if shutil.which(ns_command) is None:
        _fail(ns2_mod.missing_ns_message(ns_command), EXIT_USAGE)
    try:
        with _progress_bar(_stderr()) as bar:
            task = bar.add_task(f"{escape(str(file))}: seeds", total=seeds)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            ours, theirs = ns2_mod.crosscheck(
                file,
                run_seeds,
                overrides,
                ns_command,
                ns_timeout_s,
                keep_traces,
                jobs,
                progress=progress,
                mac_trace=mac_trace,
            )
    except RuntimeError as err:
        _fail(str(err), EXIT_SIMULATION)
    rows = ns2_mod.summarize_sides(ours, theirs)
    if not per_flow:
        rows = [row for row in rows if not ns2_mod.is_per_flow_metric(row[0])]
    notes = ns2_mod.known_differences(file, overrides)
    if json_out:
        out = ns2_mod.crosscheck_json(file, seeds, ours, theirs, rows, notes, first)
        print(json.dumps(out))
        return
    spread = seeds > 1
    title = f"manetsim vs ns-2.35, mean of {seeds} seed(s)"
    if first != 1:
        title += f" ({first} to {first + seeds - 1})"
    if spread:
        title += " ± 95 % confidence interval"
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("manetsim", justify="right")
    table.add_column("ns-2.35", justify="right")
    table.add_column("ratio", justify="right")
    if spread:
        table.add_column("overlap", justify="center")
    for metric, a, b, ratio in rows:
        cells = [metric, f"{a:.4g}", f"{b:.4g}", "-" if ratio != ratio else f"{ratio:.3f}"]
        if spread:
            ha, hb, overlap = ns2_mod.intervals(ours, theirs, metric)
            cells[1] += "" if ha != ha else f" ± {_half_width(ha)}"
            cells[2] += "" if hb != hb else f" ± {_half_width(hb)}"
            cells.append("-" if overlap is None else ("yes" if overlap else "no"))
        table.add_row(*cells)
    wall_ours, wall_theirs = sum(ours.wall_s), sum(theirs.wall_s)
    cpu_ours, cpu_theirs = sum(ours.cpu_s), sum(theirs.cpu_s)
    blank = [""] * (2 if spread else 1)
    table.add_row("wall time, process (s)", f"{wall_ours:.3f}", f"{wall_theirs:.3f}", *blank)
    table.add_row("CPU time, process (s)", f"{cpu_ours:.3f}", f"{cpu_theirs:.3f}", *blank)
    out = _stdout()
    # The scenario's path on a line of its own, whole: a table's title
    # breaks anywhere to fit the table's width.
    out.print(f"{escape(str(file))}:", soft_wrap=True)
    out.print(table)
    if spread:
        told, apart = ns2_mod.overlap_tally(ours, theirs, [row[0] for row in rows])
        out.print(ns2_mod.overlap_line(told, apart), soft_wrap=True)
    core = sum(ours.core_s)
    wall_speed = wall_theirs / wall_ours if wall_ours > 0 else float("inf")
    cpu_speed = cpu_theirs / cpu_ours if cpu_ours > 0 else float("nan")
    if jobs == 1:
        out.print(
            f"speed: manetsim is {times_faster(wall_speed)} than ns-2.35 here in wall time "
            f"({times_faster(cpu_speed)} in CPU time), whole process against whole process "
            f"in the same run ({core:.3f} s of it in manetsim's core, a {_core.build()} build)"
        )
    else:
        out.print(
            f"speed: manetsim is {times_faster(cpu_speed)} than ns-2.35 here in CPU time, "
            f"whole process against whole process in the same run ({core:.3f} s of it in "
            f"manetsim's core, a {_core.build()} build); {jobs} seeds ran side by side, so "
            "the wall times include "
            "waiting for the machine"
        )
    for note in notes:
        out.print(f"note: {note}", markup=False, soft_wrap=True)


def _half_width(h: float) -> str:
    """A confidence interval's half-width, to about the precision it has."""
    return f"{h:,.0f}" if h >= 100 else f"{h:.2g}"


def times_faster(speed: float) -> str:
    """A speed ratio (the other's time over ours) in words: "2.9x faster",
    or, below 1, "1.7x slower" (a tiny scenario, where starting Python
    takes longer than ns-2's whole run)."""
    if math.isfinite(speed) and 0 < speed < 1:
        return f"{1 / speed:.1f}x slower"
    return f"{speed:.1f}x faster"


@app.command("bench")
def bench_command(
    scenarios: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="[SCENARIO]...",
            help="Reference scenarios (chain6, rwp50, rwp1000, rwp10000) or files "
            "(default: chain6 and rwp50).",
            show_default=False,
        ),
    ] = None,
    against: Annotated[
        Optional[list[str]],
        typer.Option(
            "--against",
            metavar="ns2|ns3",
            help="Also run ns-2.35 (ns2) or the ns-3 program in benches/ns3 (ns3), in the "
            "same run (repeatable, or ns2,ns3). ns3 builds against $MANETSIM_NS3_PREFIX, "
            "else PyPI's ns3 package (ns-3.44), else Debian's libns3-dev (ns-3.37).",
        ),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Best of N runs per simulator.")
    ] = 1,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the rows as JSON lines.")
    ] = False,
    overrides: SetOption = None,
) -> None:
    """Time manetsim on reference scenarios: wall, events/s, memory, speed vs ns-2/ns-3."""
    names = scenarios or ["chain6", "rwp50"]
    try:
        others = bench_mod.parse_against(against)
        console = _stderr()
        with console.status("benchmarking") as shown:

            def status(what: str) -> None:
                if console.is_terminal:
                    shown.update(escape(what))

            rows = bench_mod.run_bench(names, others, repeat, overrides or None, status)
    except (ValueError, FileNotFoundError) as err:
        _fail(str(err), EXIT_USAGE)
    except RuntimeError as err:
        _fail(str(err), EXIT_SIMULATION)
    if json_output:
        for row in rows:
            sys.stdout.write(json.dumps(row.as_dict()) + "\n")
        return
    build = rows[0].build if rows else _core.build()
    table = Table(title=f"manetsim benchmark ({build} build; whole processes, best of --repeat)")
    for column in ("scenario", "nodes", "events", "core s", "wall s", "events/s", "peak MiB"):
        table.add_column(column, justify="right")
    table.add_column("B/node", justify="right")
    table.add_column("idle B/node", justify="right")
    if "ns2" in others:
        for column in ("ns-2 wall s", "ns-2 CPU s", "speedup wall", "speedup CPU"):
            table.add_column(column, justify="right")
    if "ns3" in others:
        ns3_name = f"ns-{rows[0].ns3_version}" if rows and rows[0].ns3_version else "ns-3"
        for column in ("wall s", "CPU s", "vs wall", "vs CPU"):
            table.add_column(f"{ns3_name} {column}", justify="right")
    for row in rows:
        cells = [
            row.scenario,
            str(row.nodes),
            f"{row.events:,}",
            f"{row.core_s:.2f}",
            f"{row.wall_s:.2f}",
            f"{row.events_per_s / 1e6:.1f} M",
            f"{row.maxrss_mib:.0f}",
            f"{row.bytes_per_node:,.0f}",
            "-" if row.idle_bytes_per_node is None else f"{row.idle_bytes_per_node:,.0f}",
        ]
        d = row.as_dict()
        if "ns2" in others:
            cells += [
                f"{row.ns2_wall_s:.2f}",
                f"{row.ns2_cpu_s:.2f}",
                f"{d['speedup_wall']:.1f}x",
                f"{d.get('speedup_cpu', float('nan')):.1f}x",
            ]
        if "ns3" in others:
            cells += [
                f"{row.ns3_wall_s:.2f}",
                f"{row.ns3_cpu_s:.2f}",
                f"{d['speedup_ns3_wall']:.1f}x",
                f"{d.get('speedup_ns3_cpu', float('nan')):.1f}x",
            ]
        table.add_row(*cells)
    _stdout().print(table)


# -- the report ----------------------------------------------------------------


def _print_report(result: Result, console: Console) -> None:
    data = result.json
    console.print(
        f"[bold]{escape(result.scenario)}[/bold]  manetsim {escape(result.version)}, "
        f"seed {result.seed}, {result.duration_s:g} s simulated",
        highlight=False,
    )
    console.print(_flows_table(data.get("flows", [])))
    drops = {reason: count for reason, count in data.get("drops", {}).items() if count}
    if drops:
        table = Table(title="Drops by reason", title_justify="left")
        table.add_column("reason")
        table.add_column("packets", justify="right")
        for reason, count in drops.items():
            table.add_row(escape(reason.replace("_", " ")), f"{count:,}")
        console.print(table)
    else:
        console.print("Drops: none", highlight=False)
    console.print(_mac_table(data.get("mac", {})))
    console.print(_routing_line(data.get("routing", {})), highlight=False)
    console.print(_ledger_line(data.get("ledger", {})), highlight=False)
    console.print(
        f"{result.events:,} events processed in {result.wall_s:.3f} s wall "
        f"({result.events_per_s:,.0f} events/s)",
        highlight=False,
    )


def _routing_line(routing: dict[str, Any]) -> str:
    protocol = escape(str(routing.get("protocol", "?")))
    packets = routing.get("packets_sent", 0)
    if not packets:
        return f"Routing ({protocol}): no control packets"
    parts = ", ".join(
        f"{escape(name)} {counts.get('packets', 0):,}"
        for name, counts in sorted(routing.get("by_message", {}).items())
    )
    return (
        f"Routing ({protocol}): {packets:,} control packets, "
        f"{routing.get('bytes_sent', 0):,} bytes ({parts})"
    )


def _flows_table(flows: list[dict[str, Any]]) -> Table:
    table = Table(title="Flows", title_justify="left")
    for name in ("id", "src→dst", "transport"):
        table.add_column(name)
    for name in (
        "sent",
        "received",
        "throughput\nkbit/s",
        "goodput\nkbit/s",
        "delay\nms",
        "jitter\nms",
        "loss\n%",
    ):
        table.add_column(name, justify="right")
    for flow in flows:
        transport = flow.get("transport", "?")
        if flow.get("variant"):
            transport = f"{transport}/{flow['variant']}"
        table.add_row(
            str(flow.get("id", "")),
            f"{flow.get('src')}→{flow.get('dst')}",
            escape(transport),
            f"{flow.get('sent', 0):,}",
            f"{flow.get('received', 0):,}",
            f"{flow.get('throughput_kbps', 0.0):.1f}",
            f"{flow.get('goodput_kbps', 0.0):.1f}",
            f"{flow.get('delay_ms', 0.0):.2f}",
            f"{flow.get('jitter_ms', 0.0):.2f}",
            f"{flow.get('loss_pct', 0.0):.2f}",
        )
    return table


def _mac_table(mac: dict[str, Any]) -> Table:
    table = Table(title="MAC (all nodes)", title_justify="left")
    names = {
        "retries": "retries",
        "collisions": "collisions",
        "rts_failures": "RTS failures",
        "ack_failures": "ACK failures",
        "link_failures": "link failures",
    }
    for label in names.values():
        table.add_column(label, justify="right")
    table.add_row(*(f"{mac.get(key, 0):,}" for key in names))
    return table


def _ledger_line(ledger: dict[str, Any]) -> str:
    if not ledger:
        return "Ledger: not reported"
    verdict = "[green]balanced[/green]" if ledger.get("balanced") else "[red]UNBALANCED[/red]"
    return (
        f"Ledger: {ledger.get('created', 0):,} created = {ledger.get('delivered', 0):,} "
        f"delivered + {ledger.get('dropped', 0):,} dropped + "
        f"{ledger.get('in_flight', 0):,} in flight ({verdict})"
    )


def _stdout() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=120)
    return console


def _stderr() -> Console:
    # soft_wrap: a long line (a path, a warning) is printed whole and left to
    # the terminal to wrap, not broken with newlines at 80 columns when
    # stderr is a pipe, where a path split in two cannot be copied.
    return Console(stderr=True, highlight=False, soft_wrap=True)


# -- errors --------------------------------------------------------------------


def _fail(message: str, status: int) -> NoReturn:
    """Prints one ``error:`` line on stderr and exits with ``status``."""
    parts = [part.strip() for part in str(message).splitlines() if part.strip()]
    sys.stdout.flush()
    sys.stderr.write(f"error: {'; '.join(parts) or 'unknown error'}\n")
    sys.stderr.flush()
    raise SystemExit(status)


def _describe_os_error(err: OSError) -> str:
    reason = err.strerror or str(err)
    if err.filename is not None:
        return f"{os.fsdecode(err.filename)}: {reason}"
    return reason


def main(argv: Optional[list[str]] = None) -> NoReturn:
    """Entry point of the ``manetsim`` console script."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=argv, prog_name="manetsim", standalone_mode=False)
    except _core.ScenarioError as err:
        _fail(str(err), EXIT_USAGE)
    except _core.SimulationError as err:
        _fail(f"simulation failed: {err}", EXIT_SIMULATION)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", 130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not worth a message.
        sys.stderr.close()
        raise SystemExit(EXIT_SIMULATION) from None
    except OSError as err:
        _fail(_describe_os_error(err), EXIT_USAGE)
    except Exception as err:
        if _is_usage_error(err):
            if type(err).__name__ == "NoArgsIsHelpError":
                # `manetsim` alone: the help, as click would show it.
                sys.stderr.write(err.format_message() + "\n")
                raise SystemExit(EXIT_USAGE) from None
            _fail(err.format_message(), err.exit_code)
        if os.environ.get("MANETSIM_TRACEBACK"):
            raise
        _fail(f"internal error ({type(err).__name__}): {err}", EXIT_SIMULATION)
    raise SystemExit(status if isinstance(status, int) else 0)


def _is_usage_error(err: Exception) -> bool:
    """Whether ``err`` is a command-line error from typer's click layer.

    Duck-typed: typer re-exports click's exceptions in some versions and vendors
    its own copy of click in others.
    """
    return callable(getattr(err, "format_message", None)) and isinstance(
        getattr(err, "exit_code", None), int
    )


if __name__ == "__main__":
    main()
