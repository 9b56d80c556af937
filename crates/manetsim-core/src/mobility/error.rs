//! [`MobilityError`]: why trajectories cannot be built, as one line of text.

use std::fmt;

/// A movement file (or a `[mobility]` table) that cannot be turned into
/// trajectories. Names the file, the line when known, what is wrong and what
/// was expected.
///
/// `Display` is always one line: `FILE:LINE: message` (or `FILE: message`
/// when no single line is to blame), e.g.
/// `scen.tcl:12: expected a number for the speed, got "fast" (expected $ns_ at TIME "$node_(N) setdest X Y SPEED")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MobilityError {
    /// The movement file as given (absolute once the scenario loader resolved
    /// it), or `[mobility]` for errors in the scenario's own table.
    pub file: String,
    /// 1-based line in `file`, when one line is to blame.
    pub line: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl MobilityError {
    pub(crate) fn new(file: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            line,
            message: one_line(&message.into()),
        }
    }

    pub(crate) fn at(file: &str, line: usize, message: impl Into<String>) -> Self {
        Self::new(file, Some(line), message)
    }
}

impl fmt::Display for MobilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", one_line(&self.file))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", one_line(&self.message))
    }
}

impl std::error::Error for MobilityError {}

/// Joins the lines of `text` with "; " so an error never spans lines.
fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A token quoted for an error message, cut short when long.
pub(crate) fn quoted(token: &str) -> String {
    const MAX: usize = 40;
    let mut s: String = token.chars().take(MAX).collect();
    if token.chars().count() > MAX {
        s.push('…');
    }
    format!("{s:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_and_without_line() {
        let e = MobilityError::at("m.tcl", 3, "bad\nthing");
        assert_eq!(e.to_string(), "m.tcl:3: bad; thing");
        let e = MobilityError::new("m.tcl", None, "node 2 missing");
        assert_eq!(e.to_string(), "m.tcl: node 2 missing");
    }

    #[test]
    fn long_tokens_are_cut() {
        let q = quoted(&"x".repeat(100));
        assert!(q.chars().count() < 50, "{q}");
        assert_eq!(quoted("ab"), "\"ab\"");
    }
}
