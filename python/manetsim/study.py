"""Studies: a published experiment re-run with one command.

A study is a folder (``studies/<name>/``, shipped inside the package) holding
``study.toml``, the scenarios it uses and a README that says what the paper ran,
what we run and every assumption. ``study.toml`` has:

- ``[study]``: ``title``, ``paper``;
- ``[sweeps.NAME]``: one or more sweeps, each shaped like a sweep file's
  ``[sweep]`` table (:mod:`manetsim.sweep`);
- ``[quick]``: the reduced version for CI: ``seeds``, and per sweep
  ``[quick.sweeps.NAME]`` with ``set`` (extra fixed overrides), ``axes``
  (replacement value lists, by axis name), ``cases`` (the labels to keep,
  by case axis name) and ``traffic`` (keys merged into generated traffic);
- ``[[tables]]``: ``name``, ``title``, ``sweep``, ``metric``, ``rows`` and
  ``columns`` (axis names), optional ``where`` (axis = value) and ``scale``;
- ``[[figures]]``: ``name``, ``title``, ``sweep``, ``metric``, ``x``,
  ``series``, optional ``facet``, ``where``, ``xlabel``, ``ylabel``,
  ``x_scale``, ``scale``;
- ``[[findings]]``: the paper's statement (``paper``) and a check on our
  means: ``kind = "order"`` (``by`` axis, ``order`` of values from highest to
  lowest, or ``ascending = true``) or ``kind = "ratio"`` (``by``, ``numerator``,
  ``denominator``, ``at_least``) or ``kind = "bound"`` (every mean of the
  ``by`` groups is ``at_most`` a limit), each restricted by ``where``;
- ``[[timelines]]``: one run's flow over time: ``name``, ``title``,
  ``sweep``, ``where`` (axis = value for every axis of the sweep), optional
  ``seed`` (the sweep's first), ``flow`` (0), ``until_s`` (the run's end) and
  ``bin_s`` (1): its goodput, mean hop count and (TCP) mean congestion
  window per bin (CSV and PNG), and the times its hop count changed
  (Markdown), as a paper's "goodput and hops over time" or "cwnd over time"
  figure gives them.

:func:`run_study` runs the sweeps (resumable, like any sweep) and writes
``report/``: each table as CSV (tidy: axes, mean, 95 % CI, n) and Markdown
(mean ± CI), each figure as PNG with error bars, and ``findings.md``.
"""

from __future__ import annotations

import math
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from manetsim import _core
from manetsim import sweep as sweep_mod
from manetsim.results import write_text_atomic
from manetsim.run import scenario_error
from manetsim.stats import mean_ci

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import pandas as pd

__all__ = ["Finding", "Study", "available", "find", "mean_ci", "run_study"]

STUDIES_DIR = Path(__file__).parent / "studies"


@dataclass
class Study:
    """A parsed study definition."""

    name: str
    folder: Path
    title: str
    paper: str
    sweeps: dict[str, sweep_mod.Sweep]
    tables: list[dict[str, Any]]
    figures: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    timelines: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(
        cls,
        folder: Path,
        quick: bool = False,
        seeds: int | None = None,
        only: list[str] | None = None,
    ) -> Study:
        """Reads ``folder/study.toml``; ``quick`` applies its ``[quick]`` table.

        ``only`` keeps the named sweeps and the tables, figures and findings
        built on them.
        """
        path = folder / "study.toml"
        source = str(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise scenario_error(source, f"not valid TOML: {err}") from None
        head = data.get("study", {})
        raw_sweeps = data.get("sweeps")
        if not isinstance(raw_sweeps, dict) or not raw_sweeps:
            raise scenario_error(source, "a study needs at least one [sweeps.NAME]", "sweeps")
        quick_table = data.get("quick", {}) if quick else {}
        sweeps = {}
        for name, table in raw_sweeps.items():
            table = dict(table)
            table.setdefault("name", name)
            sweep = sweep_mod.from_table(table, path, f"sweeps.{name}")
            if quick:
                _apply_quick(sweep, quick_table, name, source)
            if seeds is not None:
                sweep.seeds = list(range(1, seeds + 1))
            sweeps[name] = sweep
        study = cls(
            name=folder.name,
            folder=folder,
            title=str(head.get("title", folder.name)),
            paper=str(head.get("paper", "")),
            sweeps=sweeps,
            tables=list(data.get("tables", [])),
            figures=list(data.get("figures", [])),
            findings=list(data.get("findings", [])),
            timelines=list(data.get("timelines", [])),
        )
        study.check(source)
        if only:
            unknown = sorted(set(only) - set(sweeps))
            if unknown:
                raise scenario_error(
                    source,
                    f"no sweep named `{unknown[0]}` (sweeps: {', '.join(sweeps)})",
                    "--only",
                )
            first = next(iter(sweeps))
            study.sweeps = {k: v for k, v in sweeps.items() if k in only}
            study.tables = [t for t in study.tables if t.get("sweep", first) in only]
            study.figures = [f for f in study.figures if f.get("sweep", first) in only]
            study.findings = [f for f in study.findings if f.get("sweep", first) in only]
            study.timelines = [t for t in study.timelines if t.get("sweep", first) in only]
        return study

    def check(self, source: str) -> None:
        """Every table, figure and finding is complete before anything runs:
        it names a sweep, axes of that sweep, a metric of a run's summary
        (:data:`manetsim.sweep.SUMMARY_METRICS`) and, for tables and
        figures, a file name in ``report/``."""
        for kind, items in (("tables", self.tables), ("figures", self.figures)):
            required = ("rows",) if kind == "tables" else ("x",)
            for i, item in enumerate(items):
                key = f"{kind}.{i}"
                sweep = self._sweep_of(item, source, key)
                names = {a.name for a in sweep.axes}
                _check_item(item, source, key, names, ("name", "metric", *required))
                name = item["name"]
                if not isinstance(name, str) or not sweep_mod.is_plain_file_name(name):
                    raise scenario_error(
                        source,
                        f"name {name!r} names a file in report/: "
                        "no path separators, and not . or ..",
                        f"{key}.name",
                    )
                fields = ("rows", "columns") if kind == "tables" else ("x", "series", "facet")
                for f in fields:
                    for axis in _as_list(item.get(f)):
                        if axis not in names:
                            raise scenario_error(
                                source, f"`{axis}` is not an axis of sweep {sweep.name}", key
                            )
        for i, item in enumerate(self.findings):
            key = f"findings.{i}"
            sweep = self._sweep_of(item, source, key)
            names = {a.name for a in sweep.axes}
            kind = item.get("kind", "order")
            if kind not in _FINDING_KEYS:
                raise scenario_error(
                    source,
                    f"unknown finding kind `{kind}` (expected one of {', '.join(_FINDING_KEYS)})",
                    f"{key}.kind",
                )
            _check_item(item, source, key, names, ("paper", "metric", "by", *_FINDING_KEYS[kind]))
            if item["by"] not in names:
                raise scenario_error(
                    source, f"`{item['by']}` is not an axis of sweep {sweep.name}", f"{key}.by"
                )
            for limit in ("at_least", "at_most"):
                if limit in item and not _is_number(item[limit]):
                    raise scenario_error(
                        source, f"expected a number, got {item[limit]!r}", f"{key}.{limit}"
                    )

        for i, item in enumerate(self.timelines):
            key = f"timelines.{i}"
            sweep = self._sweep_of(item, source, key)
            names = {a.name for a in sweep.axes}
            _check_item(item, source, key, names, ("name", "where"))
            name = item["name"]
            if not isinstance(name, str) or not sweep_mod.is_plain_file_name(name):
                raise scenario_error(
                    source, f"name {name!r} names a file in report/", f"{key}.name"
                )
            missing = sorted(names - set(item["where"]))
            if missing:
                raise scenario_error(
                    source,
                    f"a timeline is one run: give `{missing[0]}` in where",
                    f"{key}.where",
                )
            for number in ("until_s", "bin_s"):
                if number in item and not (_is_number(item[number]) and item[number] > 0):
                    raise scenario_error(
                        source, f"expected a number > 0, got {item[number]!r}", f"{key}.{number}"
                    )
            for count in ("flow", "seed"):
                if count in item and not (
                    isinstance(item[count], int) and not isinstance(item[count], bool)
                ):
                    raise scenario_error(
                        source, f"expected an integer, got {item[count]!r}", f"{key}.{count}"
                    )

    def _sweep_of(self, item: Mapping[str, Any], source: str, key: str) -> sweep_mod.Sweep:
        name = item.get("sweep", next(iter(self.sweeps)))
        if name not in self.sweeps:
            raise scenario_error(source, f"no sweep named `{name}`", f"{key}.sweep")
        return self.sweeps[name]


# What each kind of finding needs beyond `paper`, `metric` and `by`.
_FINDING_KEYS: dict[str, tuple[str, ...]] = {
    "order": ("order",),
    "ratio": ("numerator", "denominator", "at_least"),
    "bound": ("at_most",),
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_item(
    item: Any, source: str, key: str, axes: set[str], required: tuple[str, ...]
) -> None:
    """A table, figure or finding: a table with the ``required`` keys, a
    metric a run's summary has, and ``where`` on axes of its sweep."""
    if not isinstance(item, dict):
        raise scenario_error(source, "expected a table", key)
    for name in required:
        if name not in item:
            raise scenario_error(source, f"`{name}` is missing", f"{key}.{name}")
    metric = item.get("metric")
    if metric is not None and metric not in sweep_mod.SUMMARY_METRICS:
        raise scenario_error(
            source,
            f"unknown metric `{metric}` (expected one of {', '.join(sweep_mod.SUMMARY_METRICS)})",
            f"{key}.metric",
        )
    where = item.get("where", {})
    if not isinstance(where, dict):
        raise scenario_error(source, "where is a table: axis = value", f"{key}.where")
    for axis in where:
        if axis not in axes:
            raise scenario_error(source, f"`{axis}` is not an axis of this sweep", f"{key}.where")


def _apply_quick(sweep: sweep_mod.Sweep, quick: Mapping[str, Any], name: str, source: str) -> None:
    if "seeds" in quick:
        count = quick["seeds"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise scenario_error(
                source, f"expected a count of seeds ≥ 1, got {count!r}", "quick.seeds"
            )
        sweep.seeds = list(range(1, int(count) + 1))
    table = quick.get("sweeps", {}).get(name, {})
    sweep.fixed.extend(sweep_mod._flatten_set(table.get("set", {}), source, "quick.set"))
    for axis_name, values in table.get("axes", {}).items():
        for i, axis in enumerate(sweep.axes):
            if axis.name == axis_name:
                if axis.key is None:
                    raise scenario_error(
                        source,
                        f"`{axis_name}` is a case axis: choose its cases in "
                        f"quick.sweeps.{name}.cases",
                        f"quick.sweeps.{name}.axes.{axis_name}",
                    )
                sweep.axes[i] = sweep_mod.Axis(axis.name, tuple(values), axis.key)
                break
        else:
            raise scenario_error(source, f"no axis `{axis_name}`", f"quick.sweeps.{name}.axes")
    traffic = table.get("traffic")
    if traffic is not None:
        if not isinstance(traffic, dict):
            raise scenario_error(
                source, "traffic is a table of traffic keys", f"quick.sweeps.{name}.traffic"
            )
        sweep_mod.check_traffic(traffic, source, f"quick.sweeps.{name}.traffic")
        for i, axis in enumerate(sweep.axes):
            if axis.key is None:
                cases = tuple(
                    sweep_mod.Case(c.label, c.scenario, c.set, {**c.traffic, **traffic})
                    if c.traffic is not None
                    else c
                    for c in axis.values
                )
                sweep.axes[i] = sweep_mod.Axis(axis.name, cases, None)
    for axis_name, labels in table.get("cases", {}).items():
        for i, axis in enumerate(sweep.axes):
            if axis.name == axis_name:
                kept = tuple(c for c in axis.values if c.label in labels)
                if not kept:
                    raise scenario_error(
                        source, "no case left", f"quick.sweeps.{name}.cases.{axis_name}"
                    )
                sweep.axes[i] = sweep_mod.Axis(axis.name, kept, None)
                break
        else:
            raise scenario_error(
                source, f"no case axis `{axis_name}`", f"quick.sweeps.{name}.cases"
            )


def available() -> list[str]:
    """The names of the studies shipped with manetsim."""
    return sorted(p.parent.name for p in STUDIES_DIR.glob("*/study.toml"))


def find(name: str) -> Path:
    """The folder of study ``name`` (a shipped study, or a folder path)."""
    candidate = Path(name)
    if (candidate / "study.toml").is_file():
        return candidate
    folder = STUDIES_DIR / name
    if (folder / "study.toml").is_file():
        return folder
    raise scenario_error(
        name, f"no study `{name}` (available: {', '.join(available()) or 'none'})", "study"
    )


@dataclass
class Finding:
    """A paper's statement beside what our means show."""

    paper: str
    ours: str
    holds: bool | None


def run_study(
    study: Study,
    out: Path,
    workers: int | None = None,
    executor: str = "local",
    scheduler: Any = None,
    progress: Any = None,
) -> list[Finding]:
    """Runs the study's sweeps into ``out/data/NAME`` and writes ``out/report``."""
    frames = {}
    for name, sweep in study.sweeps.items():
        target = out / "data" / name
        sweep_mod.run_sweep(
            sweep,
            target,
            workers=workers,
            executor=executor,
            scheduler=scheduler,
            progress=(lambda d, t, n=name: progress(n, d, t)) if progress else None,
        )
        keys = {spec.key for spec in sweep.runs()}
        frame = sweep_mod.load(target)
        frames[name] = frame[frame["key"].isin(keys)].reset_index(drop=True)
    report = out / "report"
    report.mkdir(parents=True, exist_ok=True)
    for table in study.tables:
        _write_table(study, table, frames, report)
    for figure in study.figures:
        _write_figure(study, figure, frames, report)
    for timeline in study.timelines:
        _write_timeline(study, timeline, report)
    findings = [_check_finding(study, f, frames) for f in study.findings]
    write_text_atomic(report / "findings.md", _findings_markdown(study, findings))
    write_text_atomic(report / "README.md", _report_index(study, frames))
    return findings


# -- tables ---------------------------------------------------------------------


def _in_axis_order(frame: pd.DataFrame, sweep: sweep_mod.Sweep, by: list[str]) -> pd.DataFrame:
    """Sorts ``frame`` by the ``by`` axes, each in the order the sweep lists its values."""
    rank_columns = []
    frame = frame.copy()
    for axis in sweep.axes:
        if axis.name in by:
            labels = [v.label if axis.key is None else v for v in axis.values]
            rank = {json_key(v): i for i, v in enumerate(labels)}
            column = f"__rank_{len(rank_columns)}"
            frame[column] = [rank.get(json_key(v), len(rank)) for v in frame[axis.name]]
            rank_columns.append((by.index(axis.name), column))
    ordered = [c for _, c in sorted(rank_columns)]
    if ordered:
        frame = frame.sort_values(ordered, kind="stable").drop(columns=ordered)
    return frame


def _x_positions(values: Iterable[Any], x_scale: float) -> dict[str, float] | None:
    """Where each value of a figure's x axis is drawn, by :func:`json_key`:
    the value as a number, times ``x_scale``; ``None`` when some value is
    not a number (case labels such as "1flow"), which are then drawn evenly
    spaced, in the sweep's order."""
    positions: dict[str, float] = {}
    for v in values:
        try:
            positions[json_key(v)] = float(v) * x_scale
        except (TypeError, ValueError):
            return None
    return positions


def _by_x(group: pd.DataFrame, x: str, positions: Mapping[str, float]) -> pd.DataFrame:
    """``group`` with the plotted x (``__x``, from ``positions``), sorted by
    it: case labels are strings, and "10" < "5"."""
    return group.assign(__x=[positions[json_key(v)] for v in group[x]]).sort_values("__x")


def json_key(value: Any) -> str:
    """A hashable, type-insensitive key for an axis value (1 and 1.0 agree)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _select(frame: pd.DataFrame, where: Mapping[str, Any] | None) -> pd.DataFrame:
    for axis, value in (where or {}).items():
        frame = frame[frame[axis] == value]
    return frame


def _summary(
    frame: pd.DataFrame,
    by: list[str],
    metric: str,
    scale: float = 1.0,
    sweep: sweep_mod.Sweep | None = None,
) -> pd.DataFrame:
    import pandas as pd

    if sweep is not None and by and not frame.empty:
        frame = _in_axis_order(frame, sweep, by)
    rows = []
    for values, group in frame.groupby(by, sort=False) if by else [((), frame)]:
        values = values if isinstance(values, tuple) else (values,)
        mean, ci, n = mean_ci([float(v) * scale for v in group[metric]])
        rows.append({**dict(zip(by, values)), "mean": mean, "ci95": ci, "n": n})
    return pd.DataFrame(rows)


def _write_table(
    study: Study, table: Mapping[str, Any], frames: Mapping[str, pd.DataFrame], report: Path
) -> None:
    frame = _select(frames[table.get("sweep", next(iter(study.sweeps)))], table.get("where"))
    rows = _as_list(table["rows"])
    columns = _as_list(table.get("columns"))
    sweep = study.sweeps[table.get("sweep", next(iter(study.sweeps)))]
    scale = float(table.get("scale", 1.0))
    summary = _summary(frame, rows + columns, table["metric"], scale, sweep)
    name = table["name"]
    write_text_atomic(report / f"{name}.csv", summary.to_csv(index=False))
    write_text_atomic(report / f"{name}.md", _markdown_table(table, summary, rows, columns))


def _cell(mean: float, ci: float) -> str:
    if math.isnan(mean):
        return "-"
    digits = 3 if abs(mean) < 10 else 1
    if math.isnan(ci):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {ci:.{digits}f}"


def _markdown_table(
    table: Mapping[str, Any], summary: pd.DataFrame, rows: list[str], columns: list[str]
) -> str:
    title = table.get("title", table["name"])
    lines = [f"### {title}", ""]
    if summary.empty:
        return "\n".join([*lines, "(no runs)", ""])
    row_keys = list(dict.fromkeys(tuple(r) for r in summary[rows].itertuples(index=False)))
    col_keys = (
        list(dict.fromkeys(tuple(c) for c in summary[columns].itertuples(index=False)))
        if columns
        else [()]
    )
    cells = {}
    for rec in summary.to_dict("records"):
        r = tuple(rec[k] for k in rows)
        c = tuple(rec[k] for k in columns)
        cells[(r, c)] = _cell(rec["mean"], rec["ci95"])
    head = " / ".join(rows)
    col_names = [" / ".join(str(v) for v in c) or table["metric"] for c in col_keys]
    lines.append("| " + " | ".join([head, *col_names]) + " |")
    lines.append("|" + "---|" * (len(col_names) + 1))
    for r in row_keys:
        row_cells = [cells.get((r, c), "-") for c in col_keys]
        lines.append("| " + " | ".join([" / ".join(str(v) for v in r), *row_cells]) + " |")
    n_values = sorted({int(n) for n in summary["n"]})
    lines += ["", f"Mean ± 95 % CI over seeds (n = {', '.join(map(str, n_values))}).", ""]
    return "\n".join(lines)


# -- figures --------------------------------------------------------------------


def _write_figure(
    study: Study, figure: Mapping[str, Any], frames: Mapping[str, pd.DataFrame], report: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = _select(frames[figure.get("sweep", next(iter(study.sweeps)))], figure.get("where"))
    sweep = study.sweeps[figure.get("sweep", next(iter(study.sweeps)))]
    x, series, metric = figure["x"], figure.get("series"), figure["metric"]
    facet = figure.get("facet")
    facets = list(dict.fromkeys(frame[facet])) if facet else [None]
    fig, axes = plt.subplots(
        1, len(facets), figsize=(4.2 * len(facets) + 1.2, 3.6), squeeze=False, sharey=True
    )
    x_scale = float(figure.get("x_scale", 1.0))
    scale = float(figure.get("scale", 1.0))
    positions = _x_positions(frame[x], x_scale)
    labels = None
    if positions is None:
        # In the order the sweep lists them.
        labels = list(dict.fromkeys(_in_axis_order(frame, sweep, [x])[x]))
        positions = {json_key(v): float(i) for i, v in enumerate(labels)}
    for ax, facet_value in zip(axes[0], facets):
        part = frame if facet is None else frame[frame[facet] == facet_value]
        by = [series, x] if series else [x]
        summary = _summary(part, by, metric, scale, sweep)
        for label, group in summary.groupby(series, sort=False) if series else [("", summary)]:
            group = _by_x(group, x, positions)
            ax.errorbar(
                group["__x"],
                group["mean"],
                yerr=group["ci95"].fillna(0.0),
                marker="o",
                capsize=3,
                label=str(label) if series else None,
            )
        ax.set_xlabel(figure.get("xlabel", x))
        if labels is not None:
            ax.set_xticks(range(len(labels)), [str(v) for v in labels])
        if facet is not None:
            ax.set_title(f"{facet_value}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(figure.get("ylabel", metric))
    if series:
        axes[0][-1].legend(fontsize="small")
    fig.suptitle(figure.get("title", figure["name"]))
    _save_png(fig, report / f"{figure['name']}.png")


def _save_png(fig: Any, target: Path) -> None:
    """Writes ``fig`` to ``target`` whole or not at all, and closes it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    temp = target.with_name(f".{target.name}.tmp.png")
    fig.savefig(temp, dpi=110)
    plt.close(fig)
    temp.replace(target)


# -- timelines ------------------------------------------------------------------


def timeline_bins(
    result: Mapping[str, Any], flow: int, until_s: float, bin_s: float, payload_bytes: int
) -> tuple[list[dict[str, float]], list[tuple[float, int]]]:
    """Flow ``flow``'s goodput (kbit/s) and mean hop count per ``bin_s`` up to
    ``until_s``, from the run's per-delivery hop series; and the times its
    hop count changed: ``(t_s, hops)`` at the first delivery with a count
    other than the one before (the first delivery included)."""
    series = (result.get("timeseries") or {}).get("hops") or {}
    points = [
        (t, h)
        for f, t, h in zip(series.get("flow", []), series.get("t_s", []), series.get("hops", []))
        if f == flow and t < until_s
    ]
    count = max(1, math.ceil(until_s / bin_s))
    delivered = [0] * count
    hops_sum = [0] * count
    for t, h in points:
        i = min(int(t // bin_s), count - 1)
        delivered[i] += 1
        hops_sum[i] += h
    bins = [
        {
            "t_s": i * bin_s,
            "goodput_kbps": delivered[i] * payload_bytes * 8 / bin_s / 1000.0,
            "hops_mean": hops_sum[i] / delivered[i] if delivered[i] else float("nan"),
            "delivered": delivered[i],
        }
        for i in range(count)
    ]
    windows = _cwnd_per_bin(result, flow, count, bin_s)
    for b, w in zip(bins, windows):
        b["cwnd_packets"] = w
    changes: list[tuple[float, int]] = []
    for t, h in points:
        if not changes or changes[-1][1] != h:
            changes.append((t, h))
    return bins, changes


def _cwnd_per_bin(result: Mapping[str, Any], flow: int, count: int, bin_s: float) -> list[float]:
    """Flow ``flow``'s TCP window averaged over each bin (a step function of
    its recorded values; NaN before the first, and for a flow without TCP)."""
    series = (result.get("timeseries") or {}).get("tcp") or {}
    columns = (series.get("flow", []), series.get("t_s", []), series.get("cwnd_packets", []))
    steps = [(t, w) for f, t, w in zip(*columns) if f == flow and w is not None]
    out = []
    for i in range(count):
        lo, hi = i * bin_s, (i + 1) * bin_s
        area, covered = 0.0, 0.0
        for k, (t, w) in enumerate(steps):
            end = steps[k + 1][0] if k + 1 < len(steps) else math.inf
            a, b = max(t, lo), min(end, hi)
            if b > a:
                area += w * (b - a)
                covered += b - a
        out.append(area / covered if covered else float("nan"))
    return out


def _write_timeline(study: Study, timeline: Mapping[str, Any], report: Path) -> None:
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    sweep = study.sweeps[timeline.get("sweep", next(iter(study.sweeps)))]
    where = timeline["where"]
    seed = int(timeline.get("seed", sweep.seeds[0]))
    specs = [
        spec
        for spec in sweep.runs()
        if spec.seed == seed
        and all(json_key(spec.point.get(a)) == json_key(v) for a, v in where.items())
    ]
    name = timeline["name"]
    if not specs:
        # A quick study keeps fewer points: say so rather than fail.
        write_text_atomic(
            report / f"{name}.md",
            f"### {timeline.get('title', name)}\n\nNot run: the sweep has no run of seed "
            f"{seed} at {where} (a quick study keeps fewer points).\n",
        )
        return
    result = json.loads(sweep_mod._execute_spec(specs[0]))
    flow = int(timeline.get("flow", 0))
    until_s = float(timeline.get("until_s", result["duration_s"]))
    bin_s = float(timeline.get("bin_s", 1.0))
    size = _flow_payload_bytes(specs[0], flow)
    bins, changes = timeline_bins(result, flow, until_s, bin_s, size)
    write_text_atomic(report / f"{name}.csv", pd.DataFrame(bins).to_csv(index=False))
    lines = [f"### {timeline.get('title', name)}", "", "| time (s) | hops |", "|---|---|"]
    lines += [f"| {t:.1f} | {h} |" for t, h in changes]
    lines += ["", f"Seed {seed}; each time the flow's packets arrived over another hop count."]
    write_text_atomic(report / f"{name}.md", "\n".join(lines) + "\n")
    tcp = any(not math.isnan(b["cwnd_packets"]) for b in bins)
    fig, axes = plt.subplots(
        2 if tcp else 1, 1, figsize=(7.0, 5.6 if tcp else 3.4), sharex=True, squeeze=False
    )
    ax = axes[0][0]
    mid = [b["t_s"] + bin_s / 2 for b in bins]
    ax.plot(mid, [b["goodput_kbps"] for b in bins], color="tab:blue", label="goodput")
    ax.set_ylabel("goodput (kbit/s)")
    ax.grid(alpha=0.3)
    hops_ax = ax.twinx()
    hops_ax.step(mid, [b["hops_mean"] for b in bins], where="mid", color="tab:red")
    hops_ax.set_ylabel("hops", color="tab:red")
    if tcp:
        cwnd_ax = axes[1][0]
        cwnd_ax.plot(mid, [b["cwnd_packets"] for b in bins], color="tab:green")
        cwnd_ax.set_ylabel("cwnd (packets)")
        cwnd_ax.grid(alpha=0.3)
    axes[-1][0].set_xlabel("time (s)")
    fig.suptitle(textwrap.fill(timeline.get("title", name), 90), fontsize="medium")
    _save_png(fig, report / f"{name}.png")


def _flow_payload_bytes(spec: sweep_mod.RunSpec, flow: int) -> int:
    """Flow ``flow``'s packet size in the run ``spec`` (its text and overrides)."""
    resolved = tomllib.loads(_core.load(spec.text, spec.source, list(spec.overrides)))
    return int(resolved["flows"][flow].get("packet_size_bytes", 512))


# -- findings -------------------------------------------------------------------


def _check_finding(
    study: Study, finding: Mapping[str, Any], frames: Mapping[str, pd.DataFrame]
) -> Finding:
    frame = _select(frames[finding.get("sweep", next(iter(study.sweeps)))], finding.get("where"))
    metric = finding["metric"]
    by = finding["by"]
    sweep = study.sweeps[finding.get("sweep", next(iter(study.sweeps)))]
    summary = _summary(frame, [by], metric, 1.0, sweep)
    means = {rec[by]: rec["mean"] for rec in summary.to_dict("records")}
    kind = finding.get("kind", "order")
    if kind == "order":
        order = list(finding["order"])
        values = [means.get(v, float("nan")) for v in order]
        ours = ", ".join(f"{v} {_fmt(m)}" for v, m in zip(order, values))
        if any(math.isnan(m) for m in values):
            return Finding(finding["paper"], ours + " (missing runs)", None)
        pairs = zip(values, values[1:])
        # Ties hold: "Vegas has the lowest loss" is true when both lose nothing.
        if finding.get("ascending", False):
            holds = all(a <= b for a, b in pairs)
        else:
            holds = all(a >= b for a, b in pairs)
        return Finding(finding["paper"], f"{metric}: {ours}", holds)
    if kind == "ratio":
        num = means.get(finding["numerator"], float("nan"))
        den = means.get(finding["denominator"], float("nan"))
        ratio = num / den if den else float("nan")
        ours = (
            f"{metric}: {finding['numerator']} {_fmt(num)} / {finding['denominator']} "
            f"{_fmt(den)} = {_fmt(ratio)}"
        )
        if math.isnan(ratio):
            return Finding(finding["paper"], ours, None)
        return Finding(finding["paper"], ours, ratio >= float(finding["at_least"]))
    if kind == "bound":
        limit = float(finding["at_most"])
        ours = f"{metric}: " + ", ".join(f"{k} {_fmt(m)}" for k, m in means.items())
        if not means or any(math.isnan(m) for m in means.values()):
            return Finding(finding["paper"], ours, None)
        return Finding(finding["paper"], ours, all(m <= limit for m in means.values()))
    raise scenario_error(study.name, f"unknown finding kind `{kind}`", "findings.kind")


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


def _findings_markdown(study: Study, findings: list[Finding]) -> str:
    lines = [f"# {study.title}: the paper's findings beside ours", ""]
    lines += ["| the paper says | manetsim's means | holds |", "|---|---|---|"]
    for f in findings:
        verdict = "n/a" if f.holds is None else ("yes" if f.holds else "no")
        lines.append(f"| {f.paper} | {f.ours} | {verdict} |")
    return "\n".join([*lines, ""])


def _report_index(study: Study, frames: Mapping[str, pd.DataFrame]) -> str:
    lines = [f"# {study.title}", "", study.paper, ""]
    for name, frame in frames.items():
        seeds = sorted({int(s) for s in frame["seed"]}) if not frame.empty else []
        balanced = bool(frame["balanced"].all()) if not frame.empty else True
        lines.append(
            f"- sweep `{name}`: {len(frame)} runs, seeds {seeds}, "
            f"every ledger balanced: {'yes' if balanced else 'NO'}"
        )
    lines.append("")
    for table in study.tables:
        lines.append(f"- table `{table['name']}`: {table.get('title', '')}")
    for figure in study.figures:
        lines.append(f"- figure `{figure['name']}.png`: {figure.get('title', '')}")
    lines += ["- `findings.md`: the paper's findings beside ours", ""]
    lines += [
        f"Made by manetsim {_core.__version__} ({_core.build()} build, sources "
        f"{_core.source_hash()}: runs of other sources are not in these tables).",
        "",
    ]
    return "\n".join(lines)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)
