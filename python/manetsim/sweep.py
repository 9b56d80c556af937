"""Parameter sweeps: a base scenario x parameter axes x seeds, stored as Parquet.

A sweep file (TOML) names a base scenario, the axes to vary and the seeds::

    [sweep]
    name = "loss-sweep"
    scenario = "chain3.toml"        # relative to this file
    seeds = 5                       # seeds 1..5, or a list: [1, 2, 7]

    [sweep.set]                     # fixed overrides for every run (optional)
    duration_s = 150.0

    [sweep.axes]                    # key path (as for --set) = list of values
    "loss.0.rate" = [0.0, 0.02, 0.05]
    "flows.*.tcp.variant" = ["reno", "veno"]   # `*`: every entry of the list

    [sweep.cases.topology]          # a case axis: labelled variants of the base
    chain = { scenario = "chain.toml" }
    grid = { scenario = "grid.toml", set = { "routing.protocol" = "dsr" } }

Case axes combine: a case that names no ``scenario`` (or no ``traffic``) keeps the
one another case axis chose, so one axis may pick the topology and another the
routing protocol with its options (``set``). A case may also replace the
scenario's flows with generated ones, as ns-2's
``cbrgen`` does (``traffic = { connections = 10, ... }``, see
:func:`generated_flows`). The runs are the cartesian product of the cases, the
axes and the seeds. Each run's key is a hash of (resolved scenario, seed,
manetsim version, the fingerprint of the simulator's sources): the same
point gives the same key on every machine with the same build, and a sweep
re-run after the simulator changed runs again.

Results go to a dataset directory, one Parquet file per finished run and
table: ``runs/KEY.parquet`` (one row: the run's axes, seed and summary
metrics) and ``flows/KEY.parquet`` (one row per flow). Each file is written
atomically and the ``runs`` file last, so a run is finished exactly when its
``runs`` file exists. A sweep that is re-run skips finished keys: one stopped
by Ctrl-C, ``kill -9`` or a crash resumes where it stopped, and nothing
finished is lost or duplicated. :func:`load` reads a dataset back.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from manetsim import _core, _toml
from manetsim.results import _write_atomic
from manetsim.run import scenario_error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    import pandas as pd

__all__ = [
    "Axis",
    "RunSpec",
    "Sweep",
    "SweepSummary",
    "execute",
    "generated_flows",
    "load",
    "load_flows",
    "run_sweep",
    "summarize",
]

RUNS = "runs"
FLOWS = "flows"
_SWEEP_KEYS = {"name", "scenario", "seeds", "set", "axes", "cases"}
MAX_SEEDS = 1_000_000
"""The most seeds a sweep may count (``seeds = N``)."""


def is_plain_file_name(name: str) -> bool:
    """``name`` can name a file in a folder: no path separator, not ``.``,
    ``..`` or hidden, no NUL."""
    return (
        bool(name)
        and name not in (".", "..")
        and not name.startswith(".")
        and not any(c in name for c in "/\\\0")
    )


_CASE_KEYS = {"scenario", "set", "traffic"}
_TRAFFIC_KEYS = {
    "connections",
    "transport",
    "app",
    "packet_size_bytes",
    "rate_bps",
    "start_s",
    "start_spread_s",
    "stop_s",
    "tcp",
    "seed",
}


@dataclass(frozen=True)
class Case:
    """One labelled variant of the base scenario. A case that names no
    scenario (or no traffic) keeps the one chosen by the sweep or by another
    case axis."""

    label: str
    scenario: Path | None
    set: tuple[tuple[str, Any], ...] = ()
    traffic: dict[str, Any] | None = None


@dataclass(frozen=True)
class Axis:
    """A parameter to vary: an override key path and its values, or cases."""

    name: str
    values: tuple[Any, ...]
    key: str | None = None  # None for a case axis (values are Case)


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: what to simulate and where it sits on the axes."""

    key: str
    seed: int
    point: dict[str, Any]
    text: str
    source: str
    overrides: tuple[tuple[str, str], ...]


@dataclass
class Sweep:
    """A parsed sweep definition."""

    name: str
    file: Path
    scenario: Path
    seeds: list[int]
    fixed: list[tuple[str, Any]] = field(default_factory=list)
    axes: list[Axis] = field(default_factory=list)

    @classmethod
    def from_file(cls, path: str | Path) -> Sweep:
        """Reads a sweep file; errors name the file and key."""
        path = Path(path)
        source = str(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise scenario_error(source, f"not valid TOML: {err}") from None
        except UnicodeDecodeError:
            raise scenario_error(source, "not UTF-8 text") from None
        return cls.from_dict(data, path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: Path) -> Sweep:
        """Builds a sweep from the parsed ``[sweep]`` document found in ``path``."""
        source = str(path)
        table = data.get("sweep")
        if not isinstance(table, dict):
            raise scenario_error(source, "missing [sweep] table", "sweep")
        extra = set(data) - {"sweep"}
        if extra:
            key = sorted(extra)[0]
            raise scenario_error(source, f"unknown top-level key `{key}` (expected [sweep])", key)
        return _parse_sweep(table, path, "sweep")

    def runs(self) -> list[RunSpec]:
        """Every run of the sweep, cases x axes x seeds, in a fixed order."""
        texts: dict[Path, str] = {}
        resolved_lengths: dict[Path, dict[str, int]] = {}
        specs = []
        value_lists = [axis.values for axis in self.axes]
        for combo in itertools.product(*value_lists):
            scenario = self.scenario
            pairs: list[tuple[str, Any]] = list(self.fixed)
            traffic = None
            point: dict[str, Any] = {}
            for axis, value in zip(self.axes, combo):
                if axis.key is None:
                    point[axis.name] = value.label
                    if value.scenario is not None:
                        scenario = value.scenario
                    pairs.extend(value.set)
                    if value.traffic is not None:
                        traffic = value.traffic
                else:
                    point[axis.name] = value
            for axis, value in zip(self.axes, combo):
                if axis.key is not None:
                    pairs.append((axis.key, value))
            if scenario not in texts:
                texts[scenario] = _read_scenario(scenario, self.file)
            text = texts[scenario]
            source = str(scenario)
            if traffic is not None:
                text = _with_flows(text, source, generated_flows(traffic, text, source))
            lengths_key = scenario if traffic is None else None
            lengths = resolved_lengths.get(lengths_key) if lengths_key else None
            if lengths is None:
                lengths = _list_lengths(text, source)
                if lengths_key is not None:
                    resolved_lengths[lengths_key] = lengths
            overrides = tuple(
                (key, _value_text(value))
                for raw, value in pairs
                for key in _expand_star(raw, lengths, self.file)
            )
            for seed in self.seeds:
                resolved = _resolve(text, source, overrides, seed, self.file)
                specs.append(
                    RunSpec(
                        key=run_key(resolved),
                        seed=seed,
                        point=dict(point),
                        text=text,
                        source=source,
                        overrides=overrides,
                    )
                )
        return specs


def run_key(resolved_toml: str) -> str:
    """The hash that names a run: (resolved scenario incl. seed, manetsim
    version, the fingerprint of the simulator's sources)."""
    digest = hashlib.sha256()
    digest.update(f"manetsim {_core.__version__}\n".encode())
    digest.update(f"sources {_core.source_hash()}\n".encode())
    digest.update(resolved_toml.encode("utf-8"))
    return digest.hexdigest()[:20]


# -- running -----------------------------------------------------------------------


def execute(text: str, source: str, overrides: Iterable[tuple[str, str]], seed: int) -> str:
    """Runs one scenario; returns the result JSON text (what workers call)."""
    return _core.run(text, source, list(overrides), seed)


def execute_as(
    sources: str, text: str, source: str, overrides: Iterable[tuple[str, str]], seed: int
) -> str:
    """:func:`execute` on a worker that must run the build whose sources'
    fingerprint is ``sources`` (the one that named the run's key); another
    build raises ``RuntimeError`` rather than file results under a key that
    does not describe them."""
    here = _core.source_hash()
    if here != sources:
        raise RuntimeError(
            f"this worker runs manetsim built from sources {here}, the sweep's "
            f"machine {sources}: install the same build on every worker"
        )
    return execute(text, source, overrides, seed)


@dataclass
class SweepSummary:
    """What :func:`run_sweep` did."""

    total: int
    skipped: int
    ran: int
    out: Path
    wall_s: float


Progress = Callable[[int, int], None]


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    workers: int | None = None,
    executor: str = "local",
    scheduler: Any = None,
    progress: Progress | None = None,
) -> SweepSummary:
    """Runs every unfinished run of ``sweep`` and stores it in the dataset ``out``.

    ``executor`` is ``"local"`` (threads; the core releases the GIL, so they
    run in parallel; ``workers`` defaults to the number of cores) or ``"dask"``
    (``scheduler`` is an address or a ``distributed.Client``). ``progress`` is
    called with (finished, total) after each run.
    """
    start = time.perf_counter()
    out = Path(out)
    (out / RUNS).mkdir(parents=True, exist_ok=True)
    (out / FLOWS).mkdir(parents=True, exist_ok=True)
    _remove_partial_files(out)
    specs = sweep.runs()
    seen: set[str] = set()
    unique = []
    for spec in specs:
        if spec.key not in seen:
            seen.add(spec.key)
            unique.append(spec)
    todo = [spec for spec in unique if not (out / RUNS / f"{spec.key}.parquet").exists()]
    skipped = len(unique) - len(todo)
    done = skipped
    if progress is not None:
        progress(done, len(unique))

    def finished(spec: RunSpec, result_json: str) -> None:
        nonlocal done
        _store(out, sweep.name, spec, json.loads(result_json))
        done += 1
        if progress is not None:
            progress(done, len(unique))

    if executor == "local":
        _run_local(todo, workers, finished)
    elif executor == "dask":
        _run_dask(todo, scheduler, finished)
    else:
        raise scenario_error("--executor", f"unknown executor `{executor}` (local | dask)")
    return SweepSummary(
        total=len(unique),
        skipped=skipped,
        ran=len(todo),
        out=out,
        wall_s=time.perf_counter() - start,
    )


def _run_local(
    todo: list[RunSpec], workers: int | None, finished: Callable[[RunSpec, str], None]
) -> None:
    import os

    workers = max(1, workers or os.cpu_count() or 1)
    if workers == 1:
        for spec in todo:
            finished(spec, execute(spec.text, spec.source, spec.overrides, spec.seed))
        return
    pending = iter(todo)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {}
        try:
            for spec in itertools.islice(pending, workers * 2):
                running[pool.submit(_execute_spec, spec)] = spec
            while running:
                complete, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in complete:
                    spec = running.pop(future)
                    finished(spec, future.result())
                    nxt = next(pending, None)
                    if nxt is not None:
                        running[pool.submit(_execute_spec, nxt)] = nxt
        except BaseException:
            for future in running:
                future.cancel()
            raise


def _execute_spec(spec: RunSpec) -> str:
    return execute(spec.text, spec.source, spec.overrides, spec.seed)


def _run_dask(
    todo: list[RunSpec], scheduler: Any, finished: Callable[[RunSpec, str], None]
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise scenario_error(
            "--executor",
            "the dask executor needs dask.distributed: pip install 'manetsim[dask]'",
        ) from None
    if scheduler is None:
        raise scenario_error("--scheduler", "the dask executor needs --scheduler ADDRESS")
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        by_key = {}
        futures = []
        sources = _core.source_hash()
        for spec in todo:
            future = client.submit(
                execute_as, sources, spec.text, spec.source, spec.overrides, spec.seed, pure=False
            )
            by_key[future.key] = spec
            futures.append(future)
        for future in as_completed(futures):
            finished(by_key[future.key], future.result())
    finally:
        if own:
            client.close()


# -- storage -----------------------------------------------------------------------


def _store(out: Path, sweep_name: str, spec: RunSpec, result: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = {"key": spec.key, "sweep": sweep_name, **_point_columns(spec.point)}
    flows = [{**base, "seed": spec.seed, **_flow_columns(flow)} for flow in result["flows"]]
    run_row = {**base, **summarize(result)}
    if flows:
        flow_table = pa.Table.from_pylist(flows)
    else:
        flow_table = pa.table({"key": pa.array([], pa.string())})
    _write_atomic(out / FLOWS / f"{spec.key}.parquet", lambda p: pq.write_table(flow_table, p))
    run_table = pa.Table.from_pylist([run_row])
    _write_atomic(out / RUNS / f"{spec.key}.parquet", lambda p: pq.write_table(run_table, p))


def _point_columns(point: Mapping[str, Any]) -> dict[str, Any]:
    return dict(point)


def _flow_columns(flow: Mapping[str, Any]) -> dict[str, Any]:
    row = {f"flow_{k}" if k == "id" else k: v for k, v in flow.items()}
    row["variant"] = "" if row.get("variant") is None else str(row["variant"])
    return row


SUMMARY_METRICS = (
    "throughput_kbps",
    "goodput_kbps",
    "delay_ms",
    "jitter_ms",
    "sent",
    "received",
    "loss_pct",
    "packet_loss_pct",
    "retransmissions",
    "timeouts",
    "spurious_timeouts",
    "route_changes",
    "routing_packets",
    "routing_bytes",
    "route_discoveries",
    "mac_retries",
    "mac_collisions",
    "dropped",
    "created",
    "energy_consumed_j",
    "efficiency_kbps_per_j",
    "flow0_throughput_kbps",
    "flow0_delay_ms",
    "flow0_jitter_ms",
    "flow0_loss_pct",
    "flow0_cwnd_mean_packets",
    "flows",
    "events",
    "wall_s",
)
"""The numeric columns of :func:`summarize` a study's tables, figures and
findings may name as their ``metric``."""


def summarize(result: Mapping[str, Any]) -> dict[str, Any]:
    """One run's summary row: aggregate flow metrics and run-wide counters.

    ``throughput_kbps`` and ``goodput_kbps`` are sums over flows (aggregate);
    ``delay_ms`` and ``jitter_ms`` are means over delivered packets of all flows;
    ``loss_pct`` is (data sent - received) / sent over all flows;
    ``packet_loss_pct`` is every dropped packet (data, ACK and routing) over
    every packet created, the definition of oozothman2011 (dropped / (highest
    packet id + 1), ns-2 giving every packet a new id).
    ``flow0_*`` are the first flow's own figures (NaN without flows): the
    measured pair of a study whose other flows are background traffic;
    ``flow0_cwnd_mean_packets`` is its TCP congestion window averaged over
    time, from its first recorded value to its last change (NaN unless it is
    a TCP flow).
    """
    flows = result["flows"]
    sent = sum(f["sent"] for f in flows)
    received = sum(f["received"] for f in flows)
    delay_weight = sum(f["received"] for f in flows if f["received"])

    def weighted(name: str) -> float:
        if not delay_weight:
            return float("nan")
        return sum(f[name] * f["received"] for f in flows if f["received"]) / delay_weight

    ledger = result["ledger"]
    energy = result.get("energy") or {}
    routing = result.get("routing") or {}
    mac = result.get("mac") or {}
    consumed = energy.get("consumed_j") or []
    return {
        "seed": result["seed"],
        "scenario": result["scenario"],
        "flows": len(flows),
        "throughput_kbps": sum(f["throughput_kbps"] for f in flows),
        "goodput_kbps": sum(f["goodput_kbps"] for f in flows),
        "delay_ms": weighted("delay_ms"),
        "jitter_ms": weighted("jitter_ms"),
        "sent": sent,
        "received": received,
        "loss_pct": (sent - received) / sent * 100.0 if sent else float("nan"),
        "packet_loss_pct": (
            ledger["dropped"] / ledger["created"] * 100.0 if ledger["created"] else float("nan")
        ),
        "retransmissions": sum(f.get("retransmissions", 0) for f in flows),
        "timeouts": sum(f.get("timeouts", 0) for f in flows),
        "spurious_timeouts": sum(f.get("spurious_timeouts", 0) for f in flows),
        "route_changes": sum(f.get("route_changes", 0) for f in flows),
        "routing_packets": routing.get("packets_sent", 0),
        "routing_bytes": routing.get("bytes_sent", 0),
        "route_discoveries": routing.get("route_discoveries", 0),
        "mac_retries": mac.get("retries", 0),
        "mac_collisions": mac.get("collisions", 0),
        "dropped": ledger["dropped"],
        "created": ledger["created"],
        "balanced": bool(ledger["balanced"]),
        "energy_consumed_j": float(sum(consumed)),
        "efficiency_kbps_per_j": float(energy.get("efficiency_kbps_per_j", 0.0)),
        **{
            f"flow0_{name}": float(flows[0][name]) if flows else float("nan")
            for name in ("throughput_kbps", "delay_ms", "jitter_ms", "loss_pct")
        },
        "flow0_cwnd_mean_packets": _cwnd_mean(result, 0),
        "events": result["events"],
        "wall_s": result["wall_s"],
        "version": result["version"],
    }


def _cwnd_mean(result: Mapping[str, Any], flow: int) -> float:
    """Flow ``flow``'s TCP congestion window averaged over time, from its
    first recorded value to its last change (NaN without a TCP series)."""
    series = (result.get("timeseries") or {}).get("tcp") or {}
    points = [
        (t, w)
        for f, t, w in zip(
            series.get("flow", []), series.get("t_s", []), series.get("cwnd_packets", [])
        )
        if f == flow and w is not None
    ]
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return float(points[0][1]) if points else float("nan")
    area = sum(w * (t1 - t0) for (t0, w), (t1, _) in zip(points, points[1:]))
    return area / (points[-1][0] - points[0][0])


def _remove_partial_files(out: Path) -> None:
    """Deletes temporary files a killed sweep left behind."""
    for folder in (out / RUNS, out / FLOWS):
        for temp in folder.glob(".*.tmp"):
            temp.unlink(missing_ok=True)


def load(out: str | Path) -> pd.DataFrame:
    """The ``runs`` table of a sweep dataset: one row per finished run."""
    return _load_table(Path(out) / RUNS, Path(out))


def load_flows(out: str | Path) -> pd.DataFrame:
    """The ``flows`` table of a sweep dataset: one row per flow of finished runs."""
    out = Path(out)
    finished = {p.stem for p in (out / RUNS).glob("*.parquet")}
    frame = _load_table(out / FLOWS, out)
    if frame.empty:
        return frame
    return frame[frame["key"].isin(finished)].reset_index(drop=True)


def _load_table(folder: Path, out: Path) -> pd.DataFrame:
    import pandas as pd
    import pyarrow.parquet as pq

    if not folder.is_dir():
        raise FileNotFoundError(f"{out}: not a sweep dataset (no {folder.name}/ folder)")
    files = sorted(folder.glob("*.parquet"))
    frames = [pq.read_table(f).to_pandas() for f in files]
    frames = [f for f in frames if len(f.columns) > 1]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


# -- generated traffic ---------------------------------------------------------------


def generated_flows(traffic: Mapping[str, Any], text: str, source: str) -> list[dict[str, Any]]:
    """Flows between random node pairs, as ns-2's ``cbrgen`` draws them.

    ``connections`` flows; for each, a source node drawn uniformly, then a
    destination different from it, a pair used at most once; start times
    uniform in ``[start_s, start_s + start_spread_s)`` (cbrgen: 180 s). The
    draw uses its own generator seeded by ``seed`` (default 1), so the flows do
    not change with the run's seed, as with a cbrgen file reused across runs.
    """
    nodes = int(tomllib.loads(text).get("nodes", {}).get("count", 0))
    count = int(traffic["connections"])
    if nodes < 2 or count > nodes * (nodes - 1):
        raise scenario_error(
            source,
            f"cannot draw {count} distinct connections among {nodes} nodes",
            "traffic.connections",
        )
    rng = random.Random(int(traffic.get("seed", 1)))
    start = float(traffic.get("start_s", 1.0))
    spread = float(traffic.get("start_spread_s", 180.0))
    pairs: set[tuple[int, int]] = set()
    flows = []
    while len(flows) < count:
        src = rng.randrange(nodes)
        dst = rng.randrange(nodes)
        if src == dst or (src, dst) in pairs:
            continue
        pairs.add((src, dst))
        flow: dict[str, Any] = {
            "src": src,
            "dst": dst,
            "transport": traffic.get("transport", "tcp"),
            "app": traffic.get("app", "ftp"),
            "start_s": round(start + rng.random() * spread, 6),
            "packet_size_bytes": int(traffic.get("packet_size_bytes", 512)),
        }
        for optional in ("rate_bps", "stop_s"):
            if optional in traffic:
                flow[optional] = traffic[optional]
        if "tcp" in traffic:
            flow["tcp"] = dict(traffic["tcp"])
        flows.append(flow)
    return flows


def _with_flows(text: str, source: str, flows: list[dict[str, Any]]) -> str:
    data = tomllib.loads(text)
    data["flows"] = flows
    return _toml.dumps(data)


# -- parsing -------------------------------------------------------------------------


def _parse_sweep(table: Mapping[str, Any], path: Path, prefix: str) -> Sweep:
    source = str(path)
    unknown = set(table) - _SWEEP_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise scenario_error(
            source,
            f"unknown key `{key}` in [{prefix}] (expected one of {', '.join(sorted(_SWEEP_KEYS))})",
            f"{prefix}.{key}",
        )
    name = table.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise scenario_error(source, "name must be a non-empty string", f"{prefix}.name")
    if not is_plain_file_name(name):
        raise scenario_error(
            source,
            f"name {name!r} names the results folder (results/NAME): "
            "no path separators, and not . or ..",
            f"{prefix}.name",
        )
    scenario_value = table.get("scenario")
    if not isinstance(scenario_value, str):
        raise scenario_error(
            source, "scenario must name the base scenario file", f"{prefix}.scenario"
        )
    scenario = _resolve_path(scenario_value, path, f"{prefix}.scenario")
    seeds = _parse_seeds(table.get("seeds", 1), source, f"{prefix}.seeds")
    fixed = _flatten_set(table.get("set", {}), source, f"{prefix}.set")
    axes: list[Axis] = []
    cases = table.get("cases", {})
    if not isinstance(cases, dict):
        raise scenario_error(source, "cases must be a table of case axes", f"{prefix}.cases")
    for axis_name, entries in cases.items():
        axes.append(_parse_case_axis(axis_name, entries, path, f"{prefix}.cases.{axis_name}"))
    raw_axes = table.get("axes", {})
    if not isinstance(raw_axes, dict):
        raise scenario_error(source, "axes must be a table: key = [values]", f"{prefix}.axes")
    for key, values in _flatten_axes(raw_axes, source, f"{prefix}.axes"):
        if key == "seed":
            # Each run's seed comes from `seeds`; an axis would be overridden.
            raise scenario_error(
                source,
                "the seed is not an axis: list the seeds in `seeds` (a count or a list)",
                f"{prefix}.axes.seed",
            )
        axes.append(Axis(name=key, values=tuple(values), key=key))
    names = [a.name for a in axes]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise scenario_error(source, f"axis `{sorted(dupes)[0]}` given twice", f"{prefix}.axes")
    return Sweep(name=name, file=path, scenario=scenario, seeds=seeds, fixed=fixed, axes=axes)


def _parse_seeds(value: Any, source: str, key: str) -> list[int]:
    if isinstance(value, bool):
        raise scenario_error(source, "seeds is a count or a list of seeds", key)
    if isinstance(value, int):
        if not 1 <= value <= MAX_SEEDS:
            raise scenario_error(source, f"seeds must be from 1 to {MAX_SEEDS:,}, got {value}", key)
        return list(range(1, value + 1))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
    ):
        if len(set(value)) != len(value):
            raise scenario_error(source, "seeds are listed twice", key)
        return list(value)
    raise scenario_error(source, "seeds is a count or a non-empty list of seeds", key)


def _parse_case_axis(name: str, entries: Any, path: Path, key: str) -> Axis:
    source = str(path)
    if not isinstance(entries, dict) or not entries:
        raise scenario_error(source, "a case axis is a table: label = { scenario = ... }", key)
    cases = []
    for label, entry in entries.items():
        if not isinstance(entry, dict):
            raise scenario_error(source, "a case is a table", f"{key}.{label}")
        unknown = set(entry) - _CASE_KEYS
        if unknown:
            bad = sorted(unknown)[0]
            raise scenario_error(
                source,
                f"unknown key `{bad}` in a case (expected scenario, set, traffic)",
                f"{key}.{label}.{bad}",
            )
        scenario = None
        if "scenario" in entry:
            if not isinstance(entry["scenario"], str):
                raise scenario_error(source, "scenario is a file name", f"{key}.{label}.scenario")
            scenario = _resolve_path(entry["scenario"], path, f"{key}.{label}.scenario")
        traffic = entry.get("traffic")
        if traffic is not None:
            if not isinstance(traffic, dict) or "connections" not in traffic:
                raise scenario_error(
                    source, "traffic needs `connections`", f"{key}.{label}.traffic"
                )
            check_traffic(traffic, source, f"{key}.{label}.traffic")
        cases.append(
            Case(
                label=label,
                scenario=scenario,
                set=tuple(_flatten_set(entry.get("set", {}), source, f"{key}.{label}.set")),
                traffic=traffic,
            )
        )
    return Axis(name=name, values=tuple(cases), key=None)


def check_traffic(traffic: Mapping[str, Any], source: str, key: str) -> None:
    """Refuses a ``traffic`` table's unknown keys and values of the wrong kind.

    What the flows' own rules cover (the transport and app names, the sizes
    and rates a flow accepts) is checked on the scenario each run resolves.
    """
    bad_keys = set(traffic) - _TRAFFIC_KEYS
    if bad_keys:
        bad = sorted(bad_keys)[0]
        raise scenario_error(source, f"unknown traffic key `{bad}`", f"{key}.{bad}")

    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    def is_number(x: Any) -> bool:
        return (is_int(x) or isinstance(x, float)) and math.isfinite(x)

    rules: dict[str, tuple[Any, str]] = {
        "connections": (lambda x: is_int(x) and x >= 1, "an integer ≥ 1"),
        "seed": (lambda x: is_int(x) and x >= 0, "an integer ≥ 0"),
        "packet_size_bytes": (is_int, "an integer"),
        "start_s": (lambda x: is_number(x) and x >= 0, "a number of seconds ≥ 0"),
        "start_spread_s": (lambda x: is_number(x) and x >= 0, "a number of seconds ≥ 0"),
        "stop_s": (is_number, "a number of seconds"),
        "rate_bps": (is_number, "a number of bit/s"),
        "transport": (lambda x: isinstance(x, str), "a string"),
        "app": (lambda x: isinstance(x, str), "a string"),
        "tcp": (lambda x: isinstance(x, dict), "a table of [flows.tcp] keys"),
    }
    for name, (ok, expected) in rules.items():
        if name in traffic and not ok(traffic[name]):
            raise scenario_error(
                source, f"expected {expected}, got {traffic[name]!r}", f"{key}.{name}"
            )


def _flatten_set(value: Any, source: str, key: str) -> list[tuple[str, Any]]:
    if not isinstance(value, dict):
        raise scenario_error(source, "set is a table: key = value", key)
    out: list[tuple[str, Any]] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            if not node and prefix:
                raise scenario_error(source, "an empty table sets nothing", f"{key}.{prefix}")
            for k, v in node.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        else:
            out.append((prefix, node))

    walk("", value)
    return out


def _flatten_axes(value: dict[str, Any], source: str, key: str) -> list[tuple[str, list[Any]]]:
    out: list[tuple[str, list[Any]]] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        elif isinstance(node, list) and node:
            if len({json.dumps(v, sort_keys=True) for v in node}) != len(node):
                raise scenario_error(source, "an axis lists a value twice", f"{key}.{prefix}")
            out.append((prefix, node))
        else:
            raise scenario_error(source, "an axis is a non-empty list of values", f"{key}.{prefix}")

    walk("", value)
    return out


def _resolve_path(value: str, sweep_file: Path, key: str) -> Path:
    path = Path(value)
    if not path.is_absolute():
        path = sweep_file.parent / path
    if not path.is_file():
        raise scenario_error(str(sweep_file), f"scenario file `{value}` not found", key)
    return path


def _read_scenario(path: Path, sweep_file: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise scenario_error(str(path), "not UTF-8 text") from None


def _expand_star(key: str, lengths: Mapping[str, int], sweep_file: Path) -> Iterator[str]:
    if "*" not in key:
        yield key
        return
    head, _, tail = key.partition(".*")
    if head not in lengths:
        raise scenario_error(
            str(sweep_file), f"`{head}` is not a list in the scenario, so `*` has nothing", key
        )
    for i in range(lengths[head]):
        yield from _expand_star(f"{head}.{i}{tail}", lengths, sweep_file)


def _list_lengths(text: str, source: str) -> dict[str, int]:
    data = tomllib.loads(text)
    return {k: len(v) for k, v in data.items() if isinstance(v, list)}


#: The ``[output]`` files a sweep refuses: their key, what they are, and
#: the verb for making one.
_SINGLE_RUN_OUTPUTS = (
    ("ns2_trace", "ns-2 traces", "trace"),
    ("pcap", "packet captures", "capture"),
)


def _resolve(
    text: str, source: str, overrides: Iterable[tuple[str, str]], seed: int, sweep_file: Path
) -> str:
    resolved = _core.load(text, source, [*overrides, ("seed", str(seed))])
    output = tomllib.loads(resolved).get("output", {})
    for key, what, how in _SINGLE_RUN_OUTPUTS:
        if output.get(key, False):
            raise scenario_error(
                str(sweep_file),
                f"a sweep does not write {what} (every run would write the same files); "
                f"set output.{key} = false, and {how} single runs with `manetsim run`",
                f"output.{key}",
            )
    return resolved


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return _toml.format_value(value)


def parse(path: str | Path) -> Sweep:
    """Reads a sweep file."""
    return Sweep.from_file(path)


def from_table(table: Mapping[str, Any], path: Path, prefix: str) -> Sweep:
    """Builds a sweep from a table found in ``path`` at ``prefix`` (studies)."""
    return _parse_sweep(table, path, prefix)
