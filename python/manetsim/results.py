"""The result of one run, as a dict and as Arrow/pandas tables.

:class:`Result` wraps the JSON object that ``manetsim run --json`` prints (the
format is specified in ``SCENARIO.md``). pyarrow and pandas are imported only
when a table is asked for, so the CLI starts quickly.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from manetsim import _core

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    import pandas as pd
    import pyarrow as pa

__all__ = ["Result"]

# Column types for the known fields; fields the core adds later are still
# carried, with a type inferred by Arrow.
_INT = "int64"
_FLOAT = "float64"
_STR = "string"
_BOOL = "bool"
_FLOW_TYPES = {
    "id": _INT,
    "src": _INT,
    "dst": _INT,
    "transport": _STR,
    "variant": _STR,
    "sent": _INT,
    "received": _INT,
    "throughput_kbps": _FLOAT,
    "goodput_kbps": _FLOAT,
    "delay_ms": _FLOAT,
    "jitter_ms": _FLOAT,
    "loss_pct": _FLOAT,
    "retransmissions": _INT,
    "sent_bytes": _INT,
    "received_bytes": _INT,
    "hops_mean": _FLOAT,
    "route_changes": _INT,
    "delivered_in_order_bytes": _INT,
    "completion_s": _FLOAT,
    "delivery_delay_ms": _FLOAT,
    "timeouts": _INT,
    "spurious_timeouts": _INT,
}
_NODE_TYPES = {
    "id": _INT,
    "x_m": _FLOAT,
    "y_m": _FLOAT,
    "mac_retries": _INT,
    "mac_collisions": _INT,
    "frames_sent": _INT,
    "frames_received": _INT,
    "queue_drops": _INT,
    "forwarded": _INT,
    "to_hosts": _INT,
    "from_hosts": _INT,
    "consumed_j": _FLOAT,
    "remaining_j": _FLOAT,
}
_MAC_TYPES = {
    "retries": _INT,
    "collisions": _INT,
    "rts_failures": _INT,
    "ack_failures": _INT,
    "frames_sent": _INT,
    "frames_received": _INT,
    "captures": _INT,
    "link_failures": _INT,
    "arp_requests": _INT,
    "arp_replies": _INT,
    "bit_errors": _INT,
}
_RUN_TYPES = {
    "version": _STR,
    "scenario": _STR,
    "seed": "uint64",
    "duration_s": _FLOAT,
    "events": _INT,
    "wall_s": _FLOAT,
    "events_per_s": _FLOAT,
    "routing_protocol": _STR,
    "routing_packets_sent": _INT,
    "routing_bytes_sent": _INT,
    "ledger_created": _INT,
    "ledger_delivered": _INT,
    "ledger_dropped": _INT,
    "ledger_in_flight": _INT,
    "ledger_balanced": _BOOL,
}


class Result:
    """One run's results.

    ``result.json`` is the full JSON object; scalars are attributes
    (``result.events``), and ``flows``, ``drops`` and ``nodes`` are pandas
    DataFrames. ``tables()`` gives the same as pyarrow Tables and ``write(dir)``
    saves them as Parquet with the JSON and the resolved scenario.
    """

    def __init__(self, data: Mapping[str, Any], scenario_toml: str = "") -> None:
        self._data: dict[str, Any] = dict(data)
        self._scenario_toml = scenario_toml

    @classmethod
    def from_json(cls, text: str, scenario_toml: str = "") -> Result:
        """Builds a result from the JSON text the core returns."""
        return cls(json.loads(text), scenario_toml)

    def __repr__(self) -> str:
        return (
            f"<manetsim.Result scenario={self.scenario!r} seed={self.seed} "
            f"flows={len(self._data.get('flows', []))} events={self.events}>"
        )

    # -- the dict --------------------------------------------------------------

    @property
    def json(self) -> dict[str, Any]:
        """The result as the JSON object of ``SCENARIO.md``."""
        return self._data

    def json_text(self) -> str:
        """The result as JSON text indented by two spaces, without a final newline.

        The same text as ``json.dumps(result.json, indent=2)``, in about half
        the time: Python's encoder indents in pure Python (0.097 s for
        chain6's 1.8 MB), so this encodes compactly in C (0.037 s) and the
        core indents (0.016 s). ``manetsim run --json`` prints it and
        ``result.json`` holds it.
        """
        return _core.indent_json(json.dumps(self._data, separators=(",", ":")), 2)

    @property
    def summary(self) -> dict[str, Any]:
        """The whole result as a plain dict (the same object as :attr:`json`)."""
        return self._data

    @property
    def scenario_toml(self) -> str:
        """The fully resolved scenario that ran, as TOML text."""
        return self._scenario_toml

    # -- scalars ---------------------------------------------------------------

    @property
    def version(self) -> str:
        return str(self._data["version"])

    @property
    def scenario(self) -> str:
        return str(self._data["scenario"])

    @property
    def seed(self) -> int:
        return int(self._data["seed"])

    @property
    def duration_s(self) -> float:
        return float(self._data["duration_s"])

    @property
    def events(self) -> int:
        return int(self._data["events"])

    @property
    def wall_s(self) -> float:
        return float(self._data["wall_s"])

    @property
    def events_per_s(self) -> float:
        return float(self._data.get("events_per_s", 0.0))

    @property
    def routing(self) -> dict[str, Any]:
        return dict(self._data.get("routing", {}))

    @property
    def mac(self) -> dict[str, Any]:
        return dict(self._data.get("mac", {}))

    @property
    def ledger(self) -> dict[str, Any]:
        return dict(self._data.get("ledger", {}))

    @property
    def warnings(self) -> list[str]:
        """Things to check before trusting the results (also printed by the CLI)."""
        return list(self._data.get("warnings", []))

    @property
    def energy(self) -> dict[str, Any]:
        return dict(self._data.get("energy", {}))

    # -- tables ----------------------------------------------------------------

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (columns as in ``SCENARIO.md``)."""
        return self._flows_table().to_pandas()

    @property
    def drops(self) -> pd.DataFrame:
        """One row per drop reason: ``reason``, ``packets``."""
        return self._drops_table().to_pandas()

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node: position, MAC counters, forwarding and energy."""
        return self._nodes_table().to_pandas()

    def timeseries(self, name: str = "mobility") -> pd.DataFrame:
        """A time series, one row per sample (``t_s`` first).

        ``mobility``: ``mean_speed_mps``, ``mean_degree``, ``links_up`` and
        ``links_down`` (links within receive range that appeared or vanished
        since the previous sample), sampled every ``mobility["sample_interval_s"]``.
        ``hops``: one row per delivered data packet: ``flow``, ``t_s``, ``hops``.
        """
        return self._series_table(name).to_pandas()

    @property
    def mobility(self) -> dict[str, Any]:
        """Movement summary: model, mean speed and degree, link changes."""
        return dict(self._data.get("mobility", {}))

    def tables(self) -> dict[str, pa.Table]:
        """The result as pyarrow Tables: flows, drops, mac, nodes, run (one row),
        routing (per message type) and one per time series (mobility, hops)."""
        tables = {
            "flows": self._flows_table(),
            "drops": self._drops_table(),
            "mac": self._mac_table(),
            "nodes": self._nodes_table(),
            "run": self._run_table(),
        }
        tables["routing"] = self._routing_table()
        for name in self._data.get("timeseries", {}):
            tables[name] = self._series_table(name)
        return tables

    @property
    def routing_messages(self) -> pd.DataFrame:
        """Routing-control transmissions per message type: message, packets, bytes."""
        return self._routing_table().to_pandas()

    def _routing_table(self) -> pa.Table:
        by_message = self._data.get("routing", {}).get("by_message", {})
        rows = [{"message": m, **counts} for m, counts in sorted(by_message.items())]
        return _table(rows, {"message": _STR, "packets": _INT, "bytes": _INT})

    def _series_table(self, name: str) -> pa.Table:
        import pyarrow as pa

        series = self._data.get("timeseries", {})
        if name not in series:
            known = ", ".join(sorted(series)) or "none"
            raise KeyError(f"no time series {name!r} in this result (known: {known})")
        columns = dict(series[name])
        ordered = {"t_s": columns.pop("t_s")} if "t_s" in columns else {}
        ordered.update(columns)
        return pa.table(ordered)

    def _flows_table(self) -> pa.Table:
        return _table(self._data.get("flows", []), _FLOW_TYPES)

    def _drops_table(self) -> pa.Table:
        drops = self._data.get("drops", {})
        rows = [{"reason": reason, "packets": count} for reason, count in drops.items()]
        return _table(rows, {"reason": _STR, "packets": _INT})

    def _mac_table(self) -> pa.Table:
        return _table([self._data.get("mac", {})], _MAC_TYPES)

    def _nodes_table(self) -> pa.Table:
        rows = [dict(node) for node in self._data.get("nodes", [])]
        energy = self._data.get("energy", {})
        for column in ("consumed_j", "remaining_j"):
            values = energy.get(column, [])
            if values and len(values) == len(rows):
                for row, value in zip(rows, values):
                    row[column] = value
        return _table(rows, _NODE_TYPES, keep_missing=False)

    def _run_table(self) -> pa.Table:
        data = self._data
        row = {key: data.get(key) for key in _RUN_TYPES if key in data}
        for section in ("routing", "ledger", "mobility"):
            for key, value in data.get(section, {}).items():
                if not isinstance(value, (dict, list)):
                    row[f"{section}_{key}"] = value
        return _table([row], _RUN_TYPES)

    # -- files -----------------------------------------------------------------

    def write(self, directory: str | os.PathLike[str]) -> Path:
        """Saves the result in ``directory`` (created if needed) and returns its path.

        Files: ``flows.parquet``, ``drops.parquet``, ``mac.parquet``,
        ``nodes.parquet``, ``run.parquet``, ``scenario.toml`` (the resolved
        scenario) and ``result.json``, written last. Each file is written under a
        temporary name in the same directory and renamed into place, so a crash
        never leaves a half-written file behind.
        """
        import pyarrow.parquet as pq

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        tables = self.tables()
        # Every file can be written before any is: no mix of two runs.
        for name in [*(f"{t}.parquet" for t in tables), "scenario.toml", "result.json"]:
            _writable_target(out / name)
        for name, table in tables.items():
            _write_atomic(out / f"{name}.parquet", lambda path, t=table: pq.write_table(t, path))
        _write_atomic(out / "scenario.toml", _text_writer(self._scenario_toml))
        _write_atomic(out / "result.json", _text_writer(self.json_text() + "\n"))
        _sync_directory(out)
        return out


def _table(
    rows: list[dict[str, Any]], types: Mapping[str, str], keep_missing: bool = True
) -> pa.Table:
    """Builds a table with the known columns first (typed), then any others."""
    import pyarrow as pa

    present: dict[str, None] = {}
    for row in rows:
        present.update(dict.fromkeys(row))
    if keep_missing or not rows:
        columns = list(types)
    else:
        columns = [name for name in types if name in present]
    columns += [name for name in present if name not in types]
    arrays = []
    for name in columns:
        values = [row.get(name) for row in rows]
        arrow_type = pa.type_for_alias(types[name]) if name in types else None
        arrays.append(pa.array(values, type=arrow_type))
    return pa.Table.from_arrays(arrays, names=columns)


def write_text_atomic(target: str | os.PathLike[str], text: str) -> None:
    """Writes ``text`` to ``target`` atomically (temporary file, then rename)."""
    _write_atomic(Path(target), _text_writer(text))


def _text_writer(text: str) -> Callable[[str], None]:
    def write(path: str) -> None:
        Path(path).write_text(text, encoding="utf-8")

    return write


def _write_atomic(target: Path, write: Callable[[str], None]) -> None:
    """Writes ``target`` through ``write(temp_path)`` then renames it into place.

    A symbolic link is followed (its target is written, the link stays); a
    device, FIFO or socket (``/dev/stdout``, ``/dev/null``) is written
    through, as no rename can replace it atomically; a folder is refused.
    A new file gets the permissions the umask gives, a replaced one keeps its
    own.
    """
    target = _writable_target(target)
    try:
        st = target.stat()
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    else:
        if not stat.S_ISREG(st.st_mode):
            write(str(target))
            return
        mode = stat.S_IMODE(st.st_mode)
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as err:
        # Named as the user gave it, not as the temporary file beside it.
        raise OSError(err.errno, err.strerror, str(target)) from None
    os.close(fd)
    try:
        write(temp)
        with _opened(temp) as handle:
            os.fsync(handle)
        Path(temp).chmod(mode)
        Path(temp).replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp).unlink()
        raise


def _writable_target(target: Path) -> Path:
    """Where to write ``target``: itself, or the file its symbolic link
    names. Raises, naming it as the user gave it, if it is a folder or its
    folder is missing."""
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(target))
    if target.exists() and not target.is_file():
        return target  # a device, FIFO or socket: written through as named
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if not target.parent.is_dir():
        # Named as the user gave it, not as the temporary file beside it.
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(target.parent))
    return target


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once, at import: setting the umask to read it is not safe while
# other threads create files.
_UMASK = _read_umask()


@contextlib.contextmanager
def _opened(path: str) -> Iterator[int]:
    handle = os.open(path, os.O_RDONLY)
    try:
        yield handle
    finally:
        os.close(handle)


def _sync_directory(directory: Path) -> None:
    """Makes the renames durable (POSIX); a no-op where directories cannot be opened."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
