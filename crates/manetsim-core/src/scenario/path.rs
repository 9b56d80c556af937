//! Dotted key paths: `flows[1].tcp.variant`, also written `flows.1.tcp.variant`.

use std::fmt::Write;

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Formats a path the way error messages show it: `flows[1].tcp.variant`.
pub(crate) fn fmt_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// Parses `a.b.0.c`, `a.b[0].c` or `a.b[0][1]`. A segment made only of
/// digits is an index. Err is a description of what is wrong.
pub(crate) fn parse_path(text: &str) -> Result<Vec<Seg>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the key is empty".to_string());
    }
    let mut path = Vec::new();
    for part in text.split('.') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("empty segment in key `{text}`"));
        }
        // Split "name[1][2]" into "name" and the bracketed indices.
        let (name, mut rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if name.is_empty() && path.is_empty() {
            return Err(format!("key `{text}` starts with an index"));
        }
        if !name.is_empty() {
            if let Some(bad) = name.chars().find(|c| !is_key_char(*c)) {
                return Err(format!(
                    "invalid character `{bad}` in key `{text}` (keys are letters, digits, `_` and `-`)"
                ));
            }
            if name.chars().all(|c| c.is_ascii_digit()) {
                path.push(Seg::Index(parse_index(name, text)?));
            } else {
                path.push(Seg::Key(name.to_string()));
            }
        }
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .ok_or_else(|| format!("unclosed `[` in key `{text}`"))?;
            path.push(Seg::Index(parse_index(&rest[1..close], text)?));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(format!("unexpected `{rest}` after `]` in key `{text}`"));
            }
        }
    }
    Ok(path)
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn parse_index(digits: &str, whole: &str) -> Result<usize, String> {
    let digits = digits.trim();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "array index `{digits}` in key `{whole}` is not a non-negative integer"
        ));
    }
    digits
        .parse::<usize>()
        .map_err(|_| format!("array index `{digits}` in key `{whole}` is too large"))
}

/// True when one path is a prefix of the other (or they are equal).
pub(crate) fn overlaps(a: &[Seg], b: &[Seg]) -> bool {
    a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Seg {
        Seg::Key(s.into())
    }

    #[test]
    fn parses_dotted_and_bracketed_indices() {
        let want = vec![k("flows"), Seg::Index(0), k("tcp"), k("variant")];
        assert_eq!(parse_path("flows.0.tcp.variant").unwrap(), want);
        assert_eq!(parse_path("flows[0].tcp.variant").unwrap(), want);
        assert_eq!(
            parse_path("nodes.positions[2][1]").unwrap(),
            vec![k("nodes"), k("positions"), Seg::Index(2), Seg::Index(1)]
        );
        assert_eq!(fmt_path(&want), "flows[0].tcp.variant");
    }

    #[test]
    fn rejects_malformed_paths() {
        for bad in [
            "",
            "a..b",
            ".a",
            "a.",
            "[0]",
            "a[x]",
            "a[1",
            "a[1]b",
            "a b",
            "a[-1]",
            "a.99999999999999999999999",
        ] {
            assert!(parse_path(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn overlap_is_prefix_either_way() {
        let a = parse_path("flows.0").unwrap();
        let b = parse_path("flows.0.tcp.variant").unwrap();
        let c = parse_path("flows.1").unwrap();
        assert!(overlaps(&a, &b) && overlaps(&b, &a));
        assert!(!overlaps(&a, &c));
    }
}
