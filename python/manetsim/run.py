"""Running and checking scenarios from Python.

A scenario can be given as

- a path (``str`` or ``pathlib.Path``) to a TOML file; errors then name that file;
- a ``dict`` shaped like the TOML file (``{"nodes": {"count": 6}, "flows": [...]}``);
- TOML text (a ``str`` holding at least one ``=`` or a newline and not naming a file).

Overrides are the Python form of the CLI's ``--set key.path=value``: a mapping
``{"routing.protocol": "static", "flows.0.rate_bps": 50_000}``, or a list of
``"key=value"`` strings or ``(key, value)`` pairs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

from manetsim import _core, _toml
from manetsim.results import Result

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = [
    "Overrides",
    "ScenarioLike",
    "load_config",
    "movements_ns2",
    "resolved_toml",
    "run",
    "validate",
]

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Overrides = Union[Mapping[str, Any], Iterable[Union[str, tuple[str, Any]]], None]

_DICT_SOURCE = "<dict>"
_TEXT_SOURCE = "<string>"


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Overrides = None,
    ns2_trace: str | os.PathLike[str] | None = None,
    pcap: str | os.PathLike[str] | None = None,
) -> Result:
    """Runs one scenario to completion and returns its :class:`Result`.

    ``seed`` replaces the scenario's master seed. The GIL is released while the
    simulation runs, so runs in several threads proceed in parallel.
    ``ns2_trace`` is where a scenario with ``[output] ns2_trace = true``
    writes its ns-2 trace (default: ``NAME.tr`` in the current directory);
    the file appears only once the run is complete. ``pcap`` is the prefix
    of the packet captures a scenario with ``[output] pcap = true`` writes,
    ``PREFIX-N.pcap`` for node ``N``, then one for each host behind a
    gateway (default: ``NAME``, in the current directory); they too appear
    only once the run is complete.

    Raises :class:`manetsim.ScenarioError` (a ``ValueError``) for a scenario that
    cannot be run, :class:`manetsim.SimulationError` (a ``RuntimeError``) for a run
    that failed, and ``OSError`` for a file that cannot be read.
    """
    text, source = scenario_text(scenario)
    pairs = override_pairs(overrides)
    _check_seed(seed)
    resolved = _core.load(text, source, _with_seed(pairs, seed))
    result_json = _core.run(text, source, pairs, seed, ns2_trace, pcap)
    return Result.from_json(result_json, scenario_toml=resolved)


def movements_ns2(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
) -> str:
    """The scenario's node movements as an ns-2 movement file (setdest format).

    Feeding it to ns-2 (``source`` it after creating the nodes) moves the nodes
    exactly as manetsim does, for any mobility model.
    """
    text, source = scenario_text(scenario)
    _check_seed(seed)
    return _core.movements_ns2(text, source, _with_seed(override_pairs(overrides), seed))


def validate(scenario: ScenarioLike, overrides: Overrides = None) -> None:
    """Checks a scenario without running it; raises :class:`manetsim.ScenarioError`."""
    text, source = scenario_text(scenario)
    _core.load(text, source, override_pairs(overrides))


def resolved_toml(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
) -> str:
    """Returns the fully resolved scenario (every default filled in) as TOML text."""
    text, source = scenario_text(scenario)
    _check_seed(seed)
    return _core.load(text, source, _with_seed(override_pairs(overrides), seed))


def load_config(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Returns the fully resolved scenario as a dict (what ``show-config`` prints)."""
    return tomllib.loads(resolved_toml(scenario, overrides, seed))


def scenario_text(scenario: ScenarioLike) -> tuple[str, str]:
    """Returns ``(toml_text, source)`` for any accepted form of scenario."""
    if isinstance(scenario, Mapping):
        return _toml.dumps(scenario), _DICT_SOURCE
    if isinstance(scenario, os.PathLike):
        return _read(Path(scenario)), os.fspath(scenario)
    if isinstance(scenario, str):
        if _is_toml_text(scenario):
            return scenario, _TEXT_SOURCE
        return _read(Path(scenario)), scenario
    raise TypeError(f"a scenario is a path, a dict or TOML text, not {type(scenario).__name__}")


def override_pairs(overrides: Overrides) -> list[tuple[str, str]]:
    """Normalises overrides to the ``(key, value-text)`` pairs the core takes."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(str(key), _value_text(value)) for key, value in overrides.items()]
    if isinstance(overrides, str):
        raise TypeError("overrides must be a mapping or a list of 'key=value' strings")
    pairs = []
    for item in overrides:
        if isinstance(item, str):
            pairs.append(_core.parse_override(item))
        else:
            key, value = item
            pairs.append((str(key), _value_text(value)))
    return pairs


def _is_toml_text(text: str) -> bool:
    if "\n" in text:
        return True
    if Path(text).is_file():
        return False
    return "=" in text


def _read(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        message = f"not UTF-8 text (byte {err.start} cannot be decoded)"
        raise scenario_error(os.fspath(path), message) from None


def scenario_error(
    file: str, message: str, key: str | None = None, line: int | None = None
) -> _core.ScenarioError:
    """Builds a :class:`ScenarioError` like the core's, for errors found in
    Python: ``FILE[:LINE]: key `KEY`: MESSAGE``."""
    where = f"{file}:{line}" if line else file
    err = _core.ScenarioError(f"{where}: key `{key}`: {message}" if key else f"{where}: {message}")
    err.file = file
    err.key = key
    err.line = line
    err.message = message
    return err


def _value_text(value: Any) -> str:
    # Strings pass through as typed on the command line; the core parses them.
    if isinstance(value, str):
        return value
    return _toml.format_value(value)


MAX_SEED = 2**63 - 1
"""The largest master seed (the core keeps seeds as non-negative i64s)."""


def _check_seed(seed: int | None) -> None:
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise scenario_error(
            "--seed", f"a seed is an integer from 0 to {MAX_SEED}, got {seed!r}", "seed"
        )


def _with_seed(pairs: list[tuple[str, str]], seed: int | None) -> list[tuple[str, str]]:
    return pairs if seed is None else [*pairs, ("seed", str(seed))]
