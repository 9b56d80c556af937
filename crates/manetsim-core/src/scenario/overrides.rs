//! `--set key.path=value` overrides, applied to the parsed TOML before the
//! scenario is deserialized, so an override is checked exactly like the same
//! key written in the file.

use toml::{Table, Value};

use super::error::ScenarioError;
use super::path::{fmt_path, parse_path, Seg};

/// One override, ready to apply.
#[derive(Debug, Clone)]
pub(crate) struct Override {
    /// The path, parsed.
    pub path: Vec<Seg>,
    /// The value as typed on the command line.
    pub raw: String,
    /// The value parsed as TOML, or the raw text as a string when it is not TOML.
    pub value: Value,
    /// `--set KEY=VALUE` as the user wrote it (errors name it as their source).
    pub source: String,
}

impl Override {
    /// Checks the key path and parses the value.
    pub(crate) fn new(key: &str, raw: &str) -> Result<Self, ScenarioError> {
        let source = format!("--set {key}={raw}");
        let path = parse_path(key).map_err(|m| ScenarioError::new(&source, None, None, m))?;
        Ok(Self {
            path,
            raw: raw.to_string(),
            value: parse_value(raw),
            source,
        })
    }

    /// The same override with its value taken as a plain string: used when the
    /// TOML reading of the value has the wrong type (`mac.standard=802.11`).
    pub(crate) fn as_string(&self) -> Option<Self> {
        if self.value.is_str() {
            return None;
        }
        Some(Self {
            value: Value::String(self.raw.trim().to_string()),
            ..self.clone()
        })
    }
}

/// Splits `key.path=value` (as given to `--set`) at the first `=`.
pub fn parse_override(arg: &str) -> Result<(String, String), ScenarioError> {
    let source = format!("--set {arg}");
    let Some((key, value)) = arg.split_once('=') else {
        return Err(ScenarioError::new(
            source,
            None,
            None,
            "expected KEY=VALUE, e.g. `routing.protocol=static` or `flows.0.tcp.variant=vegas`",
        ));
    };
    let key = key.trim();
    parse_path(key).map_err(|m| ScenarioError::new(&source, None, None, m))?;
    Ok((key.to_string(), value.trim().to_string()))
}

/// A value from the command line: TOML if it parses as one value (`10`,
/// `2.5`, `true`, `[1, 2]`, `"quoted"`), otherwise the text itself as a string.
pub(crate) fn parse_value(raw: &str) -> Value {
    let raw = raw.trim();
    let doc = format!("v = {raw}");
    match doc.parse::<Table>() {
        Ok(mut table) if table.len() == 1 => match table.remove("v") {
            Some(v) => v,
            None => Value::String(raw.to_string()),
        },
        _ => Value::String(raw.to_string()),
    }
}

/// Sets `ov.path` in `root` to `ov.value`, creating missing tables on the way.
/// An index past the end of an array is an error; so is stepping into a value
/// that is not a table or an array.
pub(crate) fn apply(root: &mut Table, ov: &Override) -> Result<(), ScenarioError> {
    let fail = |msg: String| ScenarioError::new(&ov.source, Some(fmt_path(&ov.path)), None, msg);
    let Some((last, parents)) = ov.path.split_last() else {
        return Err(fail("the key is empty".to_string()));
    };
    // Work on a copy so a failed override leaves `root` untouched.
    let mut work = Value::Table(root.clone());
    let mut node = &mut work;
    let mut walked: Vec<Seg> = Vec::new();
    for (i, seg) in parents.iter().enumerate() {
        let next_is_index = matches!(ov.path.get(i + 1), Some(Seg::Index(_)));
        node = step(node, seg, next_is_index, &walked).map_err(fail)?;
        walked.push(seg.clone());
    }
    set(node, last, ov.value.clone(), &walked).map_err(fail)?;
    if let Value::Table(t) = work {
        *root = t;
    }
    Ok(())
}

/// Descends one segment, creating a missing table when `seg` is a key.
fn step<'v>(
    node: &'v mut Value,
    seg: &Seg,
    next_is_index: bool,
    walked: &[Seg],
) -> Result<&'v mut Value, String> {
    match node {
        Value::Table(t) => {
            let key = seg_key(seg);
            if !t.contains_key(&key) {
                if next_is_index {
                    let mut p = walked.to_vec();
                    p.push(Seg::Key(key));
                    return Err(format!(
                        "`{}` is not set, so it has no entries to index; give the whole array instead, e.g. `--set {}=[...]`",
                        fmt_path(&p),
                        fmt_path(&p)
                    ));
                }
                t.insert(key.clone(), Value::Table(Table::new()));
            }
            t.get_mut(&key)
                .ok_or_else(|| format!("cannot create `{key}`"))
        }
        Value::Array(a) => {
            let len = a.len();
            let i = array_index(seg, walked, len)?;
            a.get_mut(i).ok_or_else(|| past_end(walked, i, len))
        }
        other => Err(not_a_container(walked, other)),
    }
}

/// Sets the last segment.
fn set(node: &mut Value, seg: &Seg, value: Value, walked: &[Seg]) -> Result<(), String> {
    match node {
        Value::Table(t) => {
            t.insert(seg_key(seg), value);
            Ok(())
        }
        Value::Array(a) => {
            let len = a.len();
            let i = array_index(seg, walked, len)?;
            match a.get_mut(i) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None => Err(past_end(walked, i, len)),
            }
        }
        other => Err(not_a_container(walked, other)),
    }
}

fn seg_key(seg: &Seg) -> String {
    match seg {
        Seg::Key(k) => k.clone(),
        Seg::Index(i) => i.to_string(),
    }
}

fn array_index(seg: &Seg, walked: &[Seg], len: usize) -> Result<usize, String> {
    match seg {
        Seg::Index(i) => Ok(*i),
        Seg::Key(k) => Err(format!(
            "`{}` is an array ({len} entries); index it with a number, e.g. `{}.0`, not `{k}`",
            fmt_path(walked),
            fmt_path(walked)
        )),
    }
}

fn past_end(walked: &[Seg], i: usize, len: usize) -> String {
    format!(
        "index {i} is past the end of `{}`, which has {len} entr{}",
        fmt_path(walked),
        if len == 1 { "y" } else { "ies" }
    )
}

fn not_a_container(walked: &[Seg], v: &Value) -> String {
    let kind = v.type_str();
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!(
        "`{}` is {article} {kind}, not a table or an array",
        fmt_path(walked)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        text.parse().expect("test TOML parses")
    }

    fn apply_one(t: &mut Table, arg: &str) -> Result<(), ScenarioError> {
        let (k, v) = parse_override(arg)?;
        apply(t, &Override::new(&k, &v)?)
    }

    #[test]
    fn parse_override_splits_at_first_equals() {
        assert_eq!(
            parse_override("name=a=b").unwrap(),
            ("name".to_string(), "a=b".to_string())
        );
        assert_eq!(
            parse_override(" nodes.count = 10 ").unwrap(),
            ("nodes.count".to_string(), "10".to_string())
        );
        let e = parse_override("nodes.count").unwrap_err();
        assert_eq!(e.file, "--set nodes.count");
        assert!(e.message.contains("KEY=VALUE"));
        assert!(parse_override("=3").is_err());
        assert!(parse_override("a..b=3").is_err());
    }

    #[test]
    fn values_are_toml_or_else_strings() {
        assert_eq!(parse_value("10"), Value::Integer(10));
        assert_eq!(parse_value("2.5"), Value::Float(2.5));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(
            parse_value("[1,2]"),
            Value::Array(vec![Value::Integer(1), Value::Integer(2)])
        );
        assert_eq!(parse_value("dsr"), Value::String("dsr".into()));
        assert_eq!(parse_value("\"dsr\""), Value::String("dsr".into()));
        assert_eq!(parse_value(""), Value::String(String::new()));
        // Two values smuggled through a newline stay one string.
        assert_eq!(parse_value("1\nx = 2"), Value::String("1\nx = 2".into()));
        // Typed values can fall back to their text.
        let ov = Override::new("mac.standard", "802.11").unwrap();
        assert_eq!(ov.value, Value::Float(802.11));
        assert_eq!(
            ov.as_string().unwrap().value,
            Value::String("802.11".into())
        );
        assert!(Override::new("name", "x").unwrap().as_string().is_none());
    }

    #[test]
    fn sets_existing_and_creates_missing_tables() {
        let mut t = table("[nodes]\ncount = 2\n[[flows]]\nsrc = 0\ndst = 1\n");
        apply_one(&mut t, "nodes.count=10").unwrap();
        apply_one(&mut t, "routing.protocol=dsr").unwrap();
        apply_one(&mut t, "flows.0.tcp.variant=vegas").unwrap();
        apply_one(&mut t, "flows[0].dst=1").unwrap();
        let want = table(
            "[nodes]\ncount = 10\n[routing]\nprotocol = \"dsr\"\n\
             [[flows]]\nsrc = 0\ndst = 1\n[flows.tcp]\nvariant = \"vegas\"\n",
        );
        assert_eq!(t, want);
    }

    #[test]
    fn replaces_array_elements_and_whole_arrays() {
        let mut t = table("[nodes]\npositions = [[0.0, 0.0], [1.0, 1.0]]\n");
        apply_one(&mut t, "nodes.positions.1=[5.0, 6.0]").unwrap();
        apply_one(&mut t, "nodes.positions.0.1=7.0").unwrap();
        assert_eq!(t, table("[nodes]\npositions = [[0.0, 7.0], [5.0, 6.0]]\n"));
        apply_one(&mut t, "flows=[{src = 0, dst = 1}]").unwrap();
        assert!(t.get("flows").is_some_and(Value::is_array));
    }

    #[test]
    fn index_past_end_is_an_error() {
        let mut t = table("[[flows]]\nsrc = 0\ndst = 1\n");
        let e = apply_one(&mut t, "flows.1.dst=2").unwrap_err();
        assert_eq!(e.file, "--set flows.1.dst=2");
        assert_eq!(e.key.as_deref(), Some("flows[1].dst"));
        assert!(
            e.message.contains("index 1 is past the end of `flows`"),
            "{e}"
        );
        let e = apply_one(&mut t, "flows.3=1").unwrap_err();
        assert!(e.message.contains("index 3 is past the end"), "{e}");
        // No flows at all: indexing is still an error, not a silent creation.
        let mut t = table("");
        let e = apply_one(&mut t, "flows.0.dst=2").unwrap_err();
        assert!(e.message.contains("`flows` is not set"), "{e}");
        // The table is left intact after a failed override.
        let mut t = table("name = \"x\"\n[[flows]]\nsrc = 0\ndst = 1\n");
        assert!(apply_one(&mut t, "flows.5.dst=2").is_err());
        assert_eq!(t, table("name = \"x\"\n[[flows]]\nsrc = 0\ndst = 1\n"));
    }

    #[test]
    fn stepping_into_a_scalar_or_naming_an_array_is_an_error() {
        let mut t = table("[nodes]\ncount = 2\n[[flows]]\nsrc = 0\ndst = 1\n");
        let e = apply_one(&mut t, "nodes.count.x=1").unwrap_err();
        assert!(
            e.message
                .contains("`nodes.count` is an integer, not a table"),
            "{e}"
        );
        let e = apply_one(&mut t, "flows.tcp.variant=vegas").unwrap_err();
        assert!(e.message.contains("`flows` is an array"), "{e}");
    }
}
