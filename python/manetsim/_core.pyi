# Type stub for the extension module built from crates/manetsim-py (kept by hand).
import os

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot be run; `str(err)` is one line naming the file."""

    file: str
    key: str | None
    line: int | None
    message: str

class SimulationError(RuntimeError):
    """A run that failed after its scenario was accepted."""

def version() -> str: ...
def build() -> str: ...
def source_hash() -> str: ...
def load(text: str, source: str, overrides: list[tuple[str, str]] = ...) -> str: ...
def run(
    text: str,
    source: str,
    overrides: list[tuple[str, str]] = ...,
    seed: int | None = None,
    ns2_trace: str | os.PathLike[str] | None = None,
    pcap: str | os.PathLike[str] | None = None,
) -> str: ...
def parse_override(arg: str) -> tuple[str, str]: ...
def movements_ns2(text: str, source: str, overrides: list[tuple[str, str]] = ...) -> str: ...
def radio_ranges(
    text: str, source: str, overrides: list[tuple[str, str]] = ...
) -> tuple[float, float]: ...
def indent_json(text: str, indent: int = 2) -> str: ...
