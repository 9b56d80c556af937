//! The world: wires a scenario into nodes and runs the event loop.
use crate::metrics::result::RunResult;
use crate::scenario::Scenario;

/// A run that failed after the scenario was accepted.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Setup(String),
}

/// Runs one scenario to completion and reports its results.
pub fn run(_scenario: &Scenario) -> Result<RunResult, SimError> {
    Err(SimError::Setup("the simulation core is being written".into()))
}
