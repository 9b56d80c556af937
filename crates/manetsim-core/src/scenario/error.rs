//! [`ScenarioError`]: why a scenario cannot be run, as one line of text.

use std::fmt;

/// A scenario that cannot be run: names the file, the key and what was expected.
///
/// `Display` is always one line:
/// `FILE[:LINE]: [key `KEY`: ]MESSAGE`, e.g.
/// ``examples/x.toml:12: key `flows[0].dst`: node 9 does not exist (nodes.count = 6)``.
/// When the culprit is a `--set` override, `file` is `--set KEY=VALUE` and
/// `line` is `None`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ScenarioError {
    /// The scenario file (as the caller named it), or `--set KEY=VALUE`.
    pub file: String,
    /// The dotted key path, e.g. `flows[1].tcp.variant`; `None` for syntax errors.
    pub key: Option<String>,
    /// 1-based line in `file`, when known.
    pub line: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ScenarioError {
    /// An error with its message flattened to one line.
    pub(crate) fn new(
        file: impl Into<String>,
        key: Option<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            key,
            line,
            message: one_line(&message.into()),
        }
    }

    /// An error about `key`, with no line (the loader fills it in).
    pub(crate) fn at_key(file: &str, key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(file, Some(key.into()), None, message)
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", one_line(&self.file))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": ")?;
        if let Some(key) = &self.key {
            write!(f, "key `{}`: ", one_line(key))?;
        }
        write!(f, "{}", one_line(&self.message))
    }
}

/// Joins the lines of `text` with "; " so an error never spans lines.
pub(crate) fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_line_and_key() {
        let e = ScenarioError::new(
            "examples/x.toml",
            Some("flows[0].dst".into()),
            Some(12),
            "node 9 does not exist (nodes.count = 6)",
        );
        assert_eq!(
            e.to_string(),
            "examples/x.toml:12: key `flows[0].dst`: node 9 does not exist (nodes.count = 6)"
        );
    }

    #[test]
    fn display_without_line_or_key() {
        let e = ScenarioError::at_key(
            "x.toml",
            "mac.queue_packets",
            "expected an integer ≥ 1, got 0",
        );
        assert_eq!(
            e.to_string(),
            "x.toml: key `mac.queue_packets`: expected an integer ≥ 1, got 0"
        );
        let e = ScenarioError::new("x.toml", None, None, "cannot read");
        assert_eq!(e.to_string(), "x.toml: cannot read");
    }

    #[test]
    fn display_is_one_line_even_for_hand_made_errors() {
        let e = ScenarioError {
            file: "a\nb".into(),
            key: Some("k\n".into()),
            line: None,
            message: "first\nsecond\r\n".into(),
        };
        assert!(!e.to_string().contains('\n'));
        assert!(!e.to_string().contains('\r'));
        assert_eq!(ScenarioError::new("f", None, None, "a\nb").message, "a; b");
    }
}
