//! # manetsim-py: the PyO3 bindings of manetsim-core
//!
//! Thin on purpose: every function here forwards to `manetsim_core` and
//! converts its answer. There is no simulation or scenario logic in this crate;
//! the Python package (`python/manetsim/`) builds its API on these functions,
//! which it imports as `manetsim._core`.
//!
//! Scenarios cross the boundary as TOML text (plus the name of its source, so
//! errors can name the file) and results come back as the JSON of
//! [`manetsim_core::RunResult`]: the same format `manetsim run --json` prints.
//!
//! Errors are converted once, in [`CoreError`]'s `From` impl:
//! - a scenario that cannot be run → `manetsim.ScenarioError` (a `ValueError`
//!   with the attributes `file`, `key`, `line` and `message`);
//! - a run that failed after the scenario was accepted →
//!   `manetsim.SimulationError` (a `RuntimeError`).

use manetsim_core::scenario;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    manetsim,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run. `str(err)` is one line naming the file; the \
     attributes `file`, `key` (dotted key path or None), `line` (1-based or None) \
     and `message` carry the details."
);
create_exception!(
    manetsim,
    SimulationError,
    PyRuntimeError,
    "A run that failed after its scenario was accepted."
);

/// Every error the core can return to Python.
enum CoreError {
    Scenario(scenario::ScenarioError),
    Simulation(String),
}

impl From<scenario::ScenarioError> for CoreError {
    fn from(err: scenario::ScenarioError) -> Self {
        Self::Scenario(err)
    }
}

impl From<manetsim_core::SimError> for CoreError {
    fn from(err: manetsim_core::SimError) -> Self {
        Self::Simulation(err.to_string())
    }
}

/// The one place where core errors become Python exceptions.
impl From<CoreError> for PyErr {
    fn from(err: CoreError) -> Self {
        match err {
            CoreError::Simulation(message) => SimulationError::new_err(message),
            CoreError::Scenario(err) => Python::with_gil(|py| {
                let py_err = ScenarioError::new_err(err.to_string());
                let value = py_err.value_bound(py);
                let attributes = [
                    ("file", err.file.into_py(py)),
                    ("key", err.key.into_py(py)),
                    ("line", err.line.into_py(py)),
                    ("message", err.message.into_py(py)),
                ];
                for (name, attribute) in attributes {
                    if let Err(setattr_err) = value.setattr(name, attribute) {
                        return setattr_err;
                    }
                }
                py_err
            }),
        }
    }
}

type Overrides = Vec<(String, String)>;

/// The manetsim-core version, recorded in every result.
#[pyfunction]
fn version() -> &'static str {
    manetsim_core::VERSION
}

/// How this extension was compiled: `release`, `debug`, `pgo` (with a
/// profile, `scripts/install_pgo.sh`) or `instrumented` (writing one).
#[pyfunction]
fn build() -> &'static str {
    env!("MANETSIM_BUILD")
}

/// A fingerprint of the simulator's sources (16 hex digits, computed at
/// compile time): builds of the same sources give the same one.
#[pyfunction]
fn source_hash() -> &'static str {
    env!("MANETSIM_SOURCE_HASH")
}

/// Loads and validates a scenario; returns the fully resolved scenario as TOML.
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new()))]
fn load(
    py: Python<'_>,
    text: &str,
    source: &str,
    overrides: Overrides,
) -> Result<String, CoreError> {
    py.allow_threads(|| {
        let scenario = scenario::load_str(text, source, &overrides)?;
        Ok(scenario::to_toml_string(&scenario))
    })
}

/// Loads a scenario and runs it; returns the result as JSON.
///
/// `seed`, when given, is applied as the last override (`seed=N`).
/// `ns2_trace` is where `[output] ns2_trace` writes its trace (default:
/// `NAME.tr` in the current directory), `pcap` the prefix of `[output]
/// pcap`'s captures, `PREFIX-N.pcap` for node `N` (default: `NAME`).
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new(), seed=None, ns2_trace=None, pcap=None))]
fn run(
    py: Python<'_>,
    text: &str,
    source: &str,
    mut overrides: Overrides,
    seed: Option<u64>,
    ns2_trace: Option<std::path::PathBuf>,
    pcap: Option<std::path::PathBuf>,
) -> Result<String, CoreError> {
    if let Some(seed) = seed {
        overrides.push(("seed".to_string(), seed.to_string()));
    }
    py.allow_threads(|| {
        let scenario = scenario::load_str(text, source, &overrides)?;
        let outputs = manetsim_core::Outputs {
            ns2_trace: ns2_trace.as_deref(),
            pcap_prefix: pcap.as_deref(),
        };
        let result = manetsim_core::run_with(&scenario, &outputs)?;
        serde_json::to_string(&result)
            .map_err(|e| CoreError::Simulation(format!("cannot encode the result: {e}")))
    })
}

/// Loads a scenario and returns its node movements as an ns-2 movement file.
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new()))]
fn movements_ns2(
    py: Python<'_>,
    text: &str,
    source: &str,
    overrides: Overrides,
) -> Result<String, CoreError> {
    py.allow_threads(|| {
        let scenario = scenario::load_str(text, source, &overrides)?;
        Ok(manetsim_core::movements_as_ns2(&scenario)?)
    })
}

/// Loads a scenario and returns its receive and carrier-sense ranges in
/// metres (mean received power, as the radio model has it).
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new()))]
fn radio_ranges(
    py: Python<'_>,
    text: &str,
    source: &str,
    overrides: Overrides,
) -> Result<(f64, f64), CoreError> {
    py.allow_threads(|| {
        let scenario = scenario::load_str(text, source, &overrides)?;
        Ok(manetsim_core::phy::RadioParams::from_scenario(&scenario.radio).ranges_m())
    })
}

/// Splits one `--set key.path=value` argument into `(key, value)`.
#[pyfunction]
fn parse_override(arg: &str) -> Result<(String, String), CoreError> {
    Ok(scenario::parse_override(arg)?)
}

/// Lays out compact JSON text as Python's `json.dumps(obj, indent=indent)`
/// would, without Python's slow pure-Python indenting encoder.
#[pyfunction]
#[pyo3(signature = (text, indent=2))]
fn indent_json(py: Python<'_>, text: &str, indent: usize) -> String {
    py.allow_threads(|| manetsim_core::metrics::json_text::indent_json(text, indent))
}

/// The extension module `manetsim._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type_bound::<ScenarioError>())?;
    m.add("SimulationError", py.get_type_bound::<SimulationError>())?;
    m.add("__version__", manetsim_core::VERSION)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(parse_override, m)?)?;
    m.add_function(wrap_pyfunction!(movements_ns2, m)?)?;
    m.add_function(wrap_pyfunction!(radio_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(indent_json, m)?)?;
    Ok(())
}
