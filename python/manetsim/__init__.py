"""manetsim: a fast, reproducible simulator of mobile ad hoc networks.

The simulator is a Rust core (``manetsim._core``); this package is its Python
front: :func:`run` a scenario and get a :class:`Result` with pandas/Arrow
tables, :func:`validate` a scenario, or :func:`load_config` to see it resolved.

>>> import manetsim
>>> result = manetsim.run("examples/quickstart.toml", seed=2)  # doctest: +SKIP
>>> result.flows[["src", "dst", "goodput_kbps", "delay_ms"]]  # doctest: +SKIP
"""

from manetsim._core import ScenarioError, SimulationError
from manetsim._core import __version__ as __version__
from manetsim.results import Result
from manetsim.run import load_config, movements_ns2, run, validate

__all__ = [
    "Result",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "load_config",
    "movements_ns2",
    "run",
    "validate",
]
