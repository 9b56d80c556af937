"""A small TOML writer for scenario dictionaries.

Python reads TOML (``tomllib``) but cannot write it, and a scenario given as a
dict must reach the core as TOML text. This covers what scenarios use: strings,
integers, floats, booleans, lists (inline arrays), nested dicts (tables) and
lists of dicts (arrays of tables, e.g. ``[[flows]]``). ``None`` values are left
out, so the core applies the key's default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["dumps", "format_value"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def dumps(document: Mapping[str, Any]) -> str:
    """Returns ``document`` as TOML text (tables after the keys they follow)."""
    lines: list[str] = []
    _emit_table(document, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def format_value(value: Any) -> str:
    """Returns one value as a TOML inline value (``"text"``, ``1.5``, ``[1, 2]``...)."""
    return _inline(value, "value")


def _emit_table(table: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    sub_tables: list[tuple[str, Mapping[str, Any]]] = []
    table_arrays: list[tuple[str, Sequence[Mapping[str, Any]]]] = []
    for key, value in table.items():
        if not isinstance(key, str):
            raise TypeError(f"TOML keys must be strings, got {key!r} in {_dotted(path)}")
        if value is None:
            continue
        if isinstance(value, Mapping):
            sub_tables.append((key, value))
        elif _is_table_array(value):
            table_arrays.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_inline(value, _dotted([*path, key]))}")
    for key, sub in sub_tables:
        lines.extend(["", f"[{_dotted([*path, key])}]"])
        _emit_table(sub, [*path, key], lines)
    for key, items in table_arrays:
        for item in items:
            lines.extend(["", f"[[{_dotted([*path, key])}]]"])
            _emit_table(item, [*path, key], lines)


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(isinstance(item, Mapping) for item in value)
    )


def _inline(value: Any, where: str) -> str:
    # bool first: it is a subclass of int.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(item, where) for item in value) + "]"
    if isinstance(value, Mapping):
        items = (f"{_key(k)} = {_inline(v, where)}" for k, v in value.items() if v is not None)
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML (at {where})")


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _dotted(path: list[str]) -> str:
    return ".".join(_key(part) for part in path)
