//! The scenario format: schema, loading, `--set` overrides and validation.
pub mod schema;
pub use schema::*;

/// A scenario that cannot be run: names the file, the key and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ScenarioError {
    pub file: String,
    pub key: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

pub fn load_file(
    path: &std::path::Path,
    overrides: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: path.display().to_string(),
        key: None,
        line: None,
        message: e.to_string(),
    })?;
    load_str(&text, &path.display().to_string(), overrides)
}

pub fn load_str(
    text: &str,
    source: &str,
    _overrides: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    toml::from_str(text).map_err(|e| ScenarioError {
        file: source.to_string(),
        key: None,
        line: None,
        message: e.to_string(),
    })
}
