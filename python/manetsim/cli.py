"""The ``manetsim`` command: run, validate and show scenarios.

stdout carries only what was asked for (tables, one JSON object, TOML or
"FILE: ok"); notices and errors go to stderr. Every error is one line,
``error: <message>``, with exit status 2 for a bad command line or scenario and
1 for a simulation that failed. Set ``MANETSIM_TRACEBACK=1`` to see the Python
traceback of an unexpected error instead.

The command line is parsed with the standard library's argparse, and the
modules a command alone needs (rich's tables, the sweep, study, ns-2 and
benchmark code) are imported by that command: ``manetsim validate`` or
``manetsim run --json`` start in the time Python takes to import manetsim.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NoReturn

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    import tomli as tomllib

from manetsim import _core
from manetsim.results import write_text_atomic
from manetsim.run import MAX_SEED, movements_ns2, override_pairs, resolved_toml
from manetsim.run import run as run_scenario

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.table import Table

    from manetsim import sweep as sweep_mod
    from manetsim.results import Result

__all__ = ["build_parser", "main"]

EXIT_SIMULATION = 1
EXIT_USAGE = 2


# -- the command line ----------------------------------------------------------


class UsageError(Exception):
    """A command line argparse refused; the message names the command."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (not printed with the usage) and
    without prefix matching of long options (``--se`` is not ``--seed``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        commands = [
            name
            for action in self._actions
            if isinstance(action, argparse._SubParsersAction)
            for name in action.choices
        ]
        unknown = re.search(r"invalid choice: '([^']*)'", message)
        if commands and unknown is not None:
            message = f"unknown command '{unknown.group(1)}' (commands: {', '.join(commands)})"
        if message.startswith("argument "):
            # "argument --seed: ..." -> "--seed: ...".
            message = message[len("argument ") :]
        raise UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")


def _whole_number(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at least {least}, got {value}"
            )
        return value

    return parse


def _seconds(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None


def _folder(text: str) -> Path:
    """A folder to write into: it may not exist yet, but may not be a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return path


def _file(text: str) -> Path:
    """A file to write: it may not exist yet, but may not be a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    return path


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _command(
    commands: argparse._SubParsersAction[_Parser],
    name: str,
    handler: Callable[[argparse.Namespace], None],
) -> _Parser:
    """A subcommand whose help is ``handler``'s docstring."""
    doc = inspect.cleandoc(handler.__doc__ or "")
    parser = commands.add_parser(name, help=_first_line(doc), description=doc)
    parser.set_defaults(handler=handler, parser=parser)
    return parser


def _scenario_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE", help="Scenario file (TOML).")


def _set_option(parser: argparse.ArgumentParser, dest: str = "set_") -> None:
    parser.add_argument(
        "--set",
        "-s",
        dest=dest,
        action="append",
        metavar="KEY=VALUE",
        help="Override a scenario key, e.g. --set routing.protocol=static "
        "--set flows.0.rate_bps=50000 (repeatable).",
    )


def _seed_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=_whole_number(0),
        metavar="N",
        help="Master seed (replaces the scenario's `seed`).",
    )


def _out_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--out", "-o", type=_folder, metavar="DIR", help=help_text)


def _output_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--output", "-o", type=_file, metavar="OUT", help=help_text)


def _executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        "-j",
        type=_whole_number(1),
        metavar="N",
        help="Local runs at once (default: every core).",
    )
    parser.add_argument(
        "--executor",
        metavar="local|dask",
        default="local",
        help="Where the runs execute (default: local).",
    )
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address.")


def _group(
    commands: argparse._SubParsersAction[_Parser], name: str, help_text: str
) -> argparse._SubParsersAction[_Parser]:
    """A command with subcommands of its own (``study``, ``export``)."""
    parser = commands.add_parser(name, help=help_text, description=help_text)
    parser.set_defaults(handler=None, parser=parser)
    return parser.add_subparsers(title="commands", metavar="COMMAND")


def build_parser() -> argparse.ArgumentParser:
    """The ``manetsim`` command line."""
    root = _Parser(
        prog="manetsim",
        description="Simulate mobile ad hoc networks from TOML scenario files.",
    )
    root.add_argument(
        "--version",
        action="version",
        version=f"manetsim {_core.__version__} ({_core.build()} build)",
        help="Print the version and exit.",
    )
    root.set_defaults(handler=None, parser=root)
    commands = root.add_subparsers(title="commands", metavar="COMMAND")

    run = _command(commands, "run", run_command)
    _scenario_file(run)
    run.add_argument(
        "--json",
        dest="json_output",
        action="store_true",
        help="Print the result as one JSON object on stdout.",
    )
    _out_option(
        run,
        "Also write Parquet tables, result.json and scenario.toml to DIR "
        "(and trace.tr, with [output] ns2_trace = true; NAME-N.pcap for each "
        "node N and host behind a gateway, with [output] pcap = true).",
    )
    _seed_option(run)
    _set_option(run)

    validate = _command(commands, "validate", validate_command)
    _scenario_file(validate)
    _set_option(validate)

    show = _command(commands, "show-config", show_config_command)
    _scenario_file(show)
    _set_option(show)
    _seed_option(show)

    convert = _command(commands, "convert", convert_command)
    _scenario_file(convert)
    _output_option(convert, "Write the ns-2 movement file here (default, or -: stdout).")
    _seed_option(convert)
    _set_option(convert)

    animate = _command(commands, "animate", animate_command)
    _scenario_file(animate)
    _output_option(animate, "Write the page here (default: NAME.html in the current directory).")
    animate.add_argument(
        "--until-s",
        type=_seconds,
        metavar="S",
        help="Show the first S seconds of the run only (the page is smaller).",
    )
    animate.add_argument(
        "--no-packets",
        action="store_true",
        help="Positions only: do not run the scenario (no frames, drops or deliveries).",
    )
    _seed_option(animate)
    _set_option(animate)

    plot = _command(commands, "plot", plot_command)
    plot.add_argument(
        "source",
        type=Path,
        metavar="SOURCE",
        help="A scenario file (TOML) to run, or a folder written by `manetsim run --out`.",
    )
    _out_option(plot, "Write the figures here (default: the results folder, or NAME-figures).")
    _seed_option(plot)
    _set_option(plot)

    sweep = _command(commands, "sweep", sweep_command)
    sweep.add_argument("file", type=Path, metavar="FILE", help="Sweep file (TOML).")
    _out_option(
        sweep,
        "Dataset directory (default: results/NAME).",
    )
    _executor_options(sweep)

    studies = _group(
        commands, "study", "Re-run a published study: sweeps, tables, figures and findings."
    )
    _command(studies, "list", study_list_command)
    study_run = _command(studies, "run", study_run_command)
    study_run.add_argument(
        "name", metavar="NAME", help="A study name (see `study list`) or folder."
    )
    study_run.add_argument(
        "--seeds",
        type=_whole_number(1),
        metavar="N",
        help="Seeds per point (default: the study's).",
    )
    study_run.add_argument(
        "--quick", action="store_true", help="The reduced version (under a minute)."
    )
    study_run.add_argument(
        "--only", action="append", metavar="SWEEP", help="Run only this sweep (repeatable)."
    )
    _out_option(
        study_run,
        "Where data/ and report/ go (default: results/NAME).",
    )
    _executor_options(study_run)

    exports = _group(commands, "export", "Write a scenario for another simulator.")
    export_ns2 = _command(exports, "ns2", export_ns2_command)
    _scenario_file(export_ns2)
    _output_option(export_ns2, "Write the Tcl script here (default, or -: stdout).")
    export_ns2.add_argument(
        "--trace",
        metavar="FILE",
        default="trace.tr",
        help="Trace file the script writes (default: trace.tr).",
    )
    export_ns2.add_argument(
        "--mac-trace",
        action="store_true",
        help="Trace ns-2's MAC too (every frame, and D … MAC RET for each it "
        "gives up on, as manetsim's trace has them).",
    )
    _seed_option(export_ns2)
    _set_option(export_ns2)

    cross = _command(commands, "crosscheck", crosscheck_command)
    _scenario_file(cross)
    cross.add_argument(
        "--seeds",
        type=_whole_number(1),
        metavar="N",
        default=1,
        help="How many seeds both simulators run: the scenario's seed (1 unless the "
        "file or --set gives another) and the next ones (default: 1).",
    )
    cross.add_argument(
        "--ns",
        dest="ns_command",
        metavar="COMMAND",
        default="ns",
        help="The ns-2 executable (default: ns).",
    )
    cross.add_argument(
        "--ns-timeout-s",
        type=_seconds,
        metavar="SECONDS",
        help="Stop an ns-2 run after this many seconds (default: wait for it).",
    )
    cross.add_argument(
        "--ns-stall-s",
        type=_seconds,
        metavar="SECONDS",
        default=None,
        help="Take an ns-2 run whose trace has not grown for this many seconds for "
        "hung: stop it and leave its seed out of both sides, as a crash "
        "(default: 300; ns-2.35's DSDV can loop for ever).",
    )
    cross.add_argument(
        "--like-ns2",
        action="store_true",
        help="Run manetsim with ns-2.35's models wherever it has one (AODV's or DSR's "
        "ns2 preset, ARP, frame sizes, backoff slots, link layer, one-way TCP without "
        "the handshake, TCP loss response, limited transmit and Vegas rule); --set "
        "still applies after.",
    )
    cross.add_argument(
        "--keep-traces",
        type=_folder,
        metavar="DIR",
        help="Keep each seed's traces in DIR/seed-N: ns2.tcl, ns2.tr and manetsim.tr "
        "(manetsim's trace in ns-2's format), to compare hop by hop.",
    )
    cross.add_argument(
        "--mac-trace",
        action="store_true",
        help="With --keep-traces: ns-2.35's kept trace has its MAC lines too (every "
        "frame, and D … MAC RET for each its MAC gives up on), as manetsim's has; "
        "both traces' MAC lines are counted side by side (mac.* rows).",
    )
    cross.add_argument(
        "--jobs",
        "-j",
        type=_whole_number(1),
        metavar="N",
        default=1,
        help="Run this many seeds side by side (each runs manetsim, then ns-2). The "
        "figures do not change; the speed ratio then comes from each process's CPU "
        "time, which leaves out its waits for a core (shared caches still slow runs "
        "side by side a little).",
    )
    per_flow = cross.add_mutually_exclusive_group()
    per_flow.add_argument(
        "--per-flow",
        dest="per_flow",
        action="store_true",
        default=True,
        help="Print each flow's metrics (the default).",
    )
    per_flow.add_argument(
        "--totals-only",
        dest="per_flow",
        action="store_false",
        help="Print only all flows added together (flows.*).",
    )
    cross.add_argument(
        "--json",
        dest="json_out",
        action="store_true",
        help="Print one JSON object instead of the table: each seed's figures and "
        "times from both simulators (NaN as null), and the means and ratios.",
    )
    _set_option(cross)

    bench = _command(commands, "bench", bench_command)
    bench.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO",
        help="Reference scenarios (chain6, rwp50, rwp1000, rwp10000) or files "
        "(default: chain6 and rwp50).",
    )
    bench.add_argument(
        "--against",
        action="append",
        metavar="ns2|ns3",
        help="Also run ns-2.35 (ns2) or the ns-3 program in benches/ns3 (ns3), in the "
        "same run (repeatable, or ns2,ns3). ns3 builds against $MANETSIM_NS3_PREFIX, "
        "else PyPI's ns3 package (ns-3.44), else Debian's libns3-dev (ns-3.37).",
    )
    bench.add_argument(
        "--repeat",
        type=_whole_number(1),
        metavar="N",
        default=1,
        help="Best of N runs per simulator (default: 1).",
    )
    bench.add_argument(
        "--ns",
        dest="ns_command",
        metavar="COMMAND",
        default="ns",
        help="The ns-2 executable, with --against ns2 (default: ns).",
    )
    bench.add_argument(
        "--ns-stall-s",
        type=_seconds,
        metavar="SECONDS",
        default=None,
        help="With --against ns2: stop an ns-2 run whose clock, once started, has not "
        "moved for this many seconds (or ten times its slowest step so far, or its "
        "set-up's time, if longer), and report it hung in place of its times "
        "(default: 300; ns-2.35's DSDV can loop for ever).",
    )
    bench.add_argument(
        "--json",
        dest="json_output",
        action="store_true",
        help="Print the rows as JSON lines.",
    )
    _set_option(bench, dest="overrides")
    return root


# -- the commands --------------------------------------------------------------


def run_command(args: argparse.Namespace) -> None:
    """Run a scenario and report per-flow, drop and MAC figures.

    With [output] ns2_trace = true it also writes an ns-2 trace: DIR/trace.tr
    with --out, NAME.tr in the current directory without. With [output] pcap =
    true it writes a packet capture per node N, NAME-N.pcap, in DIR with --out
    and in the current directory without.
    """
    file: Path = args.file
    out: Path | None = args.out
    seed: int | None = args.seed
    overrides = override_pairs(args.set_ or [])
    resolved = tomllib.loads(resolved_toml(file, overrides, seed))
    trace: Path | None = None
    if resolved.get("output", {}).get("ns2_trace", False):
        from manetsim import sweep as sweep_mod

        if out is None and not sweep_mod.is_plain_file_name(str(resolved["name"])):
            _fail(
                f"{file}: key `name`: {resolved['name']!r} names the ns-2 trace (NAME.tr in "
                "the current directory): no path separators, and not . or .. (or give --out)",
                EXIT_USAGE,
            )
        trace = out / "trace.tr" if out is not None else Path(f"{resolved['name']}.tr")
        trace.parent.mkdir(parents=True, exist_ok=True)
    pcap: Path | None = None
    # One capture per node, then one per host behind a gateway.
    nodes = int(resolved.get("nodes", {}).get("count", 0)) + int(
        (resolved.get("gateway") or {}).get("hosts", 0)
    )
    if resolved.get("output", {}).get("pcap", False):
        from manetsim import sweep as sweep_mod

        name = str(resolved["name"])
        if not sweep_mod.is_plain_file_name(name):
            _fail(
                f"{file}: key `name`: {name!r} names the packet captures (NAME-N.pcap): "
                "no path separators, and not . or ..",
                EXIT_USAGE,
            )
        pcap = (out if out is not None else Path()) / name
        pcap.parent.mkdir(parents=True, exist_ok=True)
    if sys.stderr.isatty():
        with _stderr().status(f"running {_escape(str(file))}", spinner="dots"):
            result = run_scenario(file, seed, overrides, ns2_trace=trace, pcap=pcap)
    else:
        result = run_scenario(file, seed, overrides, ns2_trace=trace, pcap=pcap)
    for warning in result.warnings:
        _notice(f"warning: {warning}")
    if trace is not None:
        _notice(f"wrote the ns-2 trace to {trace}")
    if pcap is not None:
        _notice(f"wrote {nodes} packet captures, {pcap}-0.pcap to {pcap}-{nodes - 1}.pcap")
    if out is not None:
        result.write(out)
        _notice(f"wrote results to {out}")
    if args.json_output:
        sys.stdout.write(result.json_text() + "\n")
    else:
        _print_report(result, _stdout())


def validate_command(args: argparse.Namespace) -> None:
    """Check a scenario without running it: prints "FILE: ok" or the error."""
    resolved_toml(args.file, override_pairs(args.set_ or []))
    sys.stdout.write(f"{args.file}: ok\n")


def show_config_command(args: argparse.Namespace) -> None:
    """Print the fully resolved scenario (every default filled in) as TOML."""
    sys.stdout.write(resolved_toml(args.file, override_pairs(args.set_ or []), args.seed))


def convert_command(args: argparse.Namespace) -> None:
    """Write the scenario's node movements as an ns-2 movement file.

    Works for every mobility model (random waypoint, scripted waypoints, ns-2 and
    BonnMotion files), so the same motion can be run in ns-2 for comparison.
    """
    text = movements_ns2(args.file, override_pairs(args.set_ or []), args.seed)
    _write_or_print(args.output, text)


def animate_command(args: argparse.Namespace) -> None:
    """Write the run as one self-contained HTML animation.

    The page shows the nodes moving, the links in receive range, every frame
    put on the air (coloured by what it carries), every drop and each flow's
    deliveries, from the run's own ns-2 trace; it plays, pauses, seeks and
    changes speed in any browser, without a network.
    """
    from manetsim.animate import AnimationError, animate

    file: Path = args.file
    overrides = override_pairs(args.set_ or [])
    resolved = tomllib.loads(resolved_toml(file, overrides, args.seed))
    until_s: float | None = args.until_s
    if until_s is not None and not (0 < until_s < math.inf):
        raise UsageError(f"--until-s: expected seconds above 0, got {until_s:g}")
    output: Path | None = args.output
    if output is None:
        from manetsim import sweep as sweep_mod

        name = str(resolved["name"])
        if not sweep_mod.is_plain_file_name(name):
            raise UsageError(
                f"{file}: key `name`: {name!r} names the page (NAME.html in the current "
                "directory): no path separators, and not . or .. (or give --output)"
            )
        output = Path(f"{name}.html")

    def page() -> str:
        try:
            return animate(file, overrides, args.seed, until_s, packets=not args.no_packets)
        except AnimationError as err:
            raise UsageError(f"{file}: {err}") from None

    if sys.stderr.isatty() and not args.no_packets:
        with _stderr().status(f"running {_escape(str(file))}", spinner="dots"):
            html = page()
    else:
        html = page()
    write_text_atomic(output, html)
    _notice(f"wrote {output} ({len(html.encode()) / 1e6:.1f} MB)")


def plot_command(args: argparse.Namespace) -> None:
    """Draw a run's figures as PNG files: delivered data, cwnd, hops, energy, mobility.

    SOURCE is a scenario, run here (--set and --seed apply), or the folder a
    `manetsim run FILE --out DIR` wrote, read without running anything. Only
    the figures the run has data for are written (cwnd needs a TCP flow,
    energy an [energy] table, mobility moving nodes).
    """
    from manetsim.plots import write_figures
    from manetsim.results import Result

    source: Path = args.source
    out: Path | None = args.out
    if source.is_dir():
        if args.set_ or args.seed is not None:
            raise UsageError("--set and --seed apply to a scenario, not to a results folder")
        saved = source / "result.json"
        scenario = source / "scenario.toml"
        if not saved.is_file():
            raise UsageError(
                f"{source}: no result.json (write one with `manetsim run FILE --out DIR`)"
            )
        toml = scenario.read_text(encoding="utf-8") if scenario.is_file() else ""
        try:
            result = Result.from_json(saved.read_text(encoding="utf-8"), scenario_toml=toml)
            missing = {"scenario", "seed", "duration_s", "flows", "timeseries"} - set(result.json)
            if missing:
                raise KeyError(f"no {', '.join(sorted(missing))}")
        except (ValueError, KeyError, TypeError) as err:
            raise UsageError(
                f"{saved}: not a manetsim result ({type(err).__name__}: {err})"
            ) from None
        target = out if out is not None else source
    else:
        overrides = override_pairs(args.set_ or [])
        name = str(tomllib.loads(resolved_toml(source, overrides, args.seed))["name"])
        target = out if out is not None else Path(f"{name}-figures")
        if out is None:
            from manetsim import sweep as sweep_mod

            if not sweep_mod.is_plain_file_name(name):
                raise UsageError(
                    f"{source}: key `name`: {name!r} names the figures' folder "
                    "(NAME-figures): no path separators, and not . or .. (or give --out)"
                )
        if sys.stderr.isatty():
            with _stderr().status(f"running {_escape(str(source))}", spinner="dots"):
                result = run_scenario(source, args.seed, overrides)
        else:
            result = run_scenario(source, args.seed, overrides)
    written = write_figures(result, target)
    _notice(f"wrote {len(written)} figures to {target}: {', '.join(p.name for p in written)}")


def sweep_command(args: argparse.Namespace) -> None:
    """Run a parameter sweep (scenario x axes x seeds) into a Parquet dataset.

    Finished runs are kept: re-running the same command resumes an interrupted
    sweep and skips what is done.
    """
    from manetsim import sweep as sweep_mod

    _check_executor(args.executor)
    definition = sweep_mod.parse(args.file)
    target = args.out if args.out is not None else Path("results") / definition.name
    summary = _run_with_progress(definition, target, args.workers, args.executor, args.scheduler)
    _notice(
        f"{definition.name}: {summary.ran} runs done, {summary.skipped} already finished, "
        f"{summary.total} in all, in {summary.wall_s:.1f} s"
    )
    sys.stdout.write(f"{summary.out}\n")


def _run_with_progress(
    definition: sweep_mod.Sweep,
    target: Path,
    workers: int | None,
    executor: str,
    scheduler: str | None,
) -> sweep_mod.SweepSummary:
    from manetsim import sweep as sweep_mod

    console = _stderr()
    with _progress_bar(console) as bar:
        task = bar.add_task(_escape(definition.name), total=None)

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


def study_list_command(args: argparse.Namespace) -> None:
    """List the studies shipped with manetsim."""
    from manetsim import study as study_mod

    for name in study_mod.available():
        definition = study_mod.Study.load(study_mod.find(name))
        sys.stdout.write(f"{name}\t{definition.title}\n")


def study_run_command(args: argparse.Namespace) -> None:
    """Run a study's sweeps and write its report (tables, figures, findings)."""
    from rich.table import Table

    from manetsim import study as study_mod

    _check_executor(args.executor)
    quick: bool = args.quick
    folder = study_mod.find(args.name)
    definition = study_mod.Study.load(folder, quick=quick, seeds=args.seeds, only=args.only)
    target = (
        args.out
        if args.out is not None
        else Path("results") / (definition.name + ("-quick" if quick else ""))
    )
    console = _stderr()
    start = time.perf_counter()
    with _progress_bar(console) as bar:
        tasks: dict[str, Any] = {}

        def progress(sweep_name: str, done: int, total: int) -> None:
            if sweep_name not in tasks:
                tasks[sweep_name] = bar.add_task(_escape(sweep_name), total=total)
            bar.update(tasks[sweep_name], completed=done, total=total)

        findings = study_mod.run_study(
            definition, target, args.workers, args.executor, args.scheduler, progress=progress
        )
    table = Table(title=f"{definition.title}: findings", title_justify="left")
    table.add_column("the paper says")
    table.add_column("manetsim")
    table.add_column("holds")
    for finding in findings:
        verdict = "n/a" if finding.holds is None else ("yes" if finding.holds else "no")
        table.add_row(_escape(finding.paper), _escape(finding.ours), verdict)
    _stdout().print(table)
    _notice(f"report in {target / 'report'} ({time.perf_counter() - start:.1f} s)")


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


def export_ns2_command(args: argparse.Namespace) -> None:
    """Write an ns-2.35 Tcl script for the same scenario (refuses what ns-2 lacks)."""
    from manetsim import ns2 as ns2_mod

    try:
        script = ns2_mod.export_tcl(
            args.file,
            override_pairs(args.set_ or []),
            args.seed,
            args.trace,
            mac_trace=args.mac_trace,
        )
    except ns2_mod.ExportError as err:
        _fail(f"{args.file}: {err}", EXIT_USAGE)
    _write_or_print(args.output, script)


def crosscheck_command(args: argparse.Namespace) -> None:
    """Run manetsim and ns-2.35 on the same scenario; print both, ratios and speed."""
    from rich.table import Table

    from manetsim import ns2 as ns2_mod

    file: Path = args.file
    seeds: int = args.seeds
    jobs: int = args.jobs
    ns_command: str = args.ns_command
    keep_traces: Path | None = args.keep_traces
    try:
        ns2_mod.check_ns_timeout(args.ns_timeout_s)
    except ValueError as err:
        _fail(f"--ns-timeout-s: {err}", EXIT_USAGE)
    stall_s: float = ns2_mod.NS_STALL_S if args.ns_stall_s is None else args.ns_stall_s
    try:
        ns2_mod.check_ns_timeout(stall_s)
    except ValueError as err:
        _fail(f"--ns-stall-s: {err}", EXIT_USAGE)
    if args.mac_trace and keep_traces is None:
        _fail("--mac-trace: only with --keep-traces DIR (its lines are for reading)", EXIT_USAGE)
    overrides = override_pairs(args.set_ or [])
    if args.like_ns2:
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
            task = bar.add_task(f"{_escape(str(file))}: seeds", total=seeds)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            ours, theirs = ns2_mod.crosscheck(
                file,
                run_seeds,
                overrides,
                ns_command,
                args.ns_timeout_s,
                keep_traces,
                jobs,
                progress=progress,
                mac_trace=args.mac_trace,
                ns_stall_s=stall_s,
            )
    except RuntimeError as err:
        _fail(str(err), EXIT_SIMULATION)
    rows = ns2_mod.summarize_sides(ours, theirs)
    if not args.per_flow:
        rows = [row for row in rows if not ns2_mod.is_per_flow_metric(row[0])]
    notes = ns2_mod.known_differences(file, overrides)
    if args.json_out:
        out = ns2_mod.crosscheck_json(file, seeds, ours, theirs, rows, notes, first)
        print(json.dumps(out))
        return
    compared = len(ours.per_seed)
    spread = compared > 1
    title = f"manetsim vs ns-2.35, mean of {compared} seed(s)"
    if first != 1:
        title += f" ({first} to {first + seeds - 1})"
    if spread:
        title += " ± 95 % confidence interval"
    if ours.left_out:
        title += f"; {len(ours.left_out)} left out"
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
    out.print(f"{_escape(str(file))}:", soft_wrap=True)
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
            f"in the same run ({core:.3f} s of it in manetsim's core, a {_core.build()} build)",
            soft_wrap=True,
        )
    else:
        out.print(
            f"speed: manetsim is {times_faster(cpu_speed)} than ns-2.35 here in CPU time, "
            f"whole process against whole process in the same run ({core:.3f} s of it in "
            f"manetsim's core, a {_core.build()} build); {jobs} seeds ran side by side, so "
            "the wall times include waiting for the machine",
            soft_wrap=True,
        )
    for seed, why in ours.left_out:
        out.print(f"left out: seed {seed}: {why}", markup=False, soft_wrap=True)
    compared_seeds = ns2_mod.compared_seeds(seeds, first, ours.left_out)
    for seed, a, b in ns2_mod.divergent_seeds(ours, theirs, compared_seeds):
        out.print(f"apart: {ns2_mod.divergent_line(seed, a, b)}", markup=False, soft_wrap=True)
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


def bench_command(args: argparse.Namespace) -> None:
    """Time manetsim on reference scenarios: wall, events/s, memory, speed vs ns-2/ns-3."""
    from rich.table import Table

    from manetsim import bench as bench_mod

    names = args.scenarios or ["chain6", "rwp50"]
    from manetsim import ns2 as ns2_mod

    stall_s: float = ns2_mod.NS_STALL_S if args.ns_stall_s is None else args.ns_stall_s
    try:
        ns2_mod.check_ns_timeout(stall_s)
    except ValueError as err:
        _fail(f"--ns-stall-s: {err}", EXIT_USAGE)
    try:
        others = bench_mod.parse_against(args.against)
        console = _stderr()
        with console.status("benchmarking") as shown:

            def status(what: str) -> None:
                if console.is_terminal:
                    shown.update(_escape(what))

            rows = bench_mod.run_bench(
                names,
                others,
                args.repeat,
                args.overrides or None,
                status,
                ns_command=args.ns_command,
                ns_stall_s=stall_s,
            )
    except (ValueError, FileNotFoundError) as err:
        _fail(str(err), EXIT_USAGE)
    except RuntimeError as err:
        _fail(str(err), EXIT_SIMULATION)
    if args.json_output:
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
        if "ns2" in others and row.ns2_wall_s is None:
            cells += ["-"] * 4  # row.ns2_note, below the table, says why
        elif "ns2" in others:
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
    out = _stdout()
    out.print(table)
    for row in rows:
        if row.ns2_note:
            out.print(_escape(row.ns2_note), highlight=False)


# -- the report ----------------------------------------------------------------


def _print_report(result: Result, console: Console) -> None:
    from rich.table import Table

    data = result.json
    console.print(
        f"[bold]{_escape(result.scenario)}[/bold]  manetsim {_escape(result.version)}, "
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
            table.add_row(_escape(reason.replace("_", " ")), f"{count:,}")
        console.print(table)
    else:
        console.print("Drops: none", highlight=False)
    console.print(_mac_table(data.get("mac", {})))
    console.print(_routing_line(data.get("routing", {})), highlight=False)
    gateways = _gateways_line(data.get("nodes", []))
    if gateways:
        console.print(gateways, highlight=False)
    transfers = _transfers_line(data.get("flows", []))
    if transfers:
        console.print(transfers, highlight=False)
    console.print(_ledger_line(data.get("ledger", {})), highlight=False)
    console.print(
        f"{result.events:,} events processed in {result.wall_s:.3f} s wall "
        f"({result.events_per_s:,.0f} events/s)",
        highlight=False,
    )


def _gateways_line(nodes: list[dict[str, Any]]) -> str:
    """Each gateway's packets to and from the hosts, or "" without any."""
    busy = [n for n in nodes if n.get("to_hosts") or n.get("from_hosts")]
    if not busy:
        return ""
    parts = "; ".join(
        f"node {n['id']}: {n.get('to_hosts', 0):,} to hosts, {n.get('from_hosts', 0):,} from"
        for n in busy
    )
    return f"Gateways: {parts}"


def _transfers_line(flows: list[dict[str, Any]]) -> str:
    """When each finite transfer (`transfer_bytes`) that completed had its
    last byte delivered, or "" without any."""
    done = [f for f in flows if f.get("completion_s") is not None]
    if not done:
        return ""
    parts = "; ".join(
        f"flow {f['id']} at {f['completion_s']:.3f} s "
        f"({f.get('delivered_in_order_bytes', 0):,} bytes)"
        for f in done
    )
    return f"Transfers completed: {parts}"


def _routing_line(routing: dict[str, Any]) -> str:
    protocol = _escape(str(routing.get("protocol", "?")))
    packets = routing.get("packets_sent", 0)
    if not packets:
        return f"Routing ({protocol}): no control packets"
    parts = ", ".join(
        f"{_escape(name)} {counts.get('packets', 0):,}"
        for name, counts in sorted(routing.get("by_message", {}).items())
    )
    return (
        f"Routing ({protocol}): {packets:,} control packets, "
        f"{routing.get('bytes_sent', 0):,} bytes ({parts})"
    )


def _flows_table(flows: list[dict[str, Any]]) -> Table:
    from rich.table import Table

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
            _escape(transport),
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
    from rich.table import Table

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


def _escape(text: str) -> str:
    """``text`` printed as it is by rich, whatever brackets it holds."""
    from rich.markup import escape

    return escape(text)


def _write_or_print(output: Path | None, text: str) -> None:
    """`text` to `output` (whole or not at all), or to stdout without one or
    with ``-``, as Unix tools take it."""
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        write_text_atomic(output, text)
        _notice(f"wrote {output}")


def _notice(text: str) -> None:
    """One line on stderr, printed whole: a long path is left to the terminal
    to wrap, not broken in two where it could not be copied."""
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def _stdout() -> Console:
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=120)
    return console


def _stderr() -> Console:
    from rich.console import Console

    # soft_wrap: as in _notice.
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


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Entry point of the ``manetsim`` console script."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and isinstance(getattr(args, "scenarios", None), list):
            # `bench chain6 --against ns2 rwp50`: argparse takes one run of
            # positionals; the scenarios after an option are scenarios too.
            args.scenarios += [arg for arg in extra if not arg.startswith("-")]
            extra = [arg for arg in extra if arg.startswith("-")]
        if extra:
            # Named by the (sub)command that was given them, not by `manetsim`.
            args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
        if args.handler is None:
            # `manetsim`, `manetsim study` or `manetsim export` alone: the help.
            args.parser.print_help(sys.stderr)
            raise SystemExit(EXIT_USAGE)
        args.handler(args)
    except UsageError as err:
        _fail(str(err), EXIT_USAGE)
    except _core.ScenarioError as err:
        _fail(str(err), EXIT_USAGE)
    except _core.SimulationError as err:
        _fail(f"simulation failed: {err}", EXIT_SIMULATION)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not worth a message.
        sys.stderr.close()
        raise SystemExit(EXIT_SIMULATION) from None
    except OSError as err:
        _fail(_describe_os_error(err), EXIT_USAGE)
    except Exception as err:
        if os.environ.get("MANETSIM_TRACEBACK"):
            raise
        _fail(f"internal error ({type(err).__name__}): {err}", EXIT_SIMULATION)
    raise SystemExit(0)


if __name__ == "__main__":
    main()
