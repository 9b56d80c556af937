//! Where each key of a scenario file is written: dotted key path → line.

use std::collections::HashMap;

use toml_edit::{Item, TableLike, Value};

use super::path::{fmt_path, Seg};

/// Line numbers of every key, table header, array element and array-of-tables
/// entry in a TOML text, by path (formatted as [`fmt_path`] does).
#[derive(Debug, Default)]
pub(crate) struct SpanMap {
    lines: HashMap<String, usize>,
}

impl SpanMap {
    /// Builds the map from a parsed document and its text.
    pub(crate) fn new(doc: &toml_edit::ImDocument<&str>, text: &str) -> Self {
        let mut walker = Walker {
            text,
            lines: HashMap::new(),
        };
        let mut path = Vec::new();
        walker.table(doc.as_table(), &mut path);
        Self {
            lines: walker.lines,
        }
    }

    /// The line of `path`, or of its nearest written ancestor (below the root).
    pub(crate) fn line_of(&self, path: &[Seg]) -> Option<usize> {
        (1..=path.len())
            .rev()
            .find_map(|n| self.lines.get(&fmt_path(&path[..n])).copied())
    }
}

struct Walker<'t> {
    text: &'t str,
    lines: HashMap<String, usize>,
}

impl Walker<'_> {
    fn record(&mut self, path: &[Seg], offset: Option<usize>) {
        if let Some(offset) = offset {
            self.lines
                .entry(fmt_path(path))
                .or_insert_with(|| line_at(self.text, offset));
        }
    }

    fn table(&mut self, table: &dyn TableLike, path: &mut Vec<Seg>) {
        for (key, item) in table.iter() {
            let key_offset = table
                .get_key_value(key)
                .and_then(|(k, _)| k.span())
                .map(|s| s.start);
            path.push(Seg::Key(key.to_string()));
            self.record(path, key_offset.or_else(|| item.span().map(|s| s.start)));
            self.item(item, path);
            path.pop();
        }
    }

    fn item(&mut self, item: &Item, path: &mut Vec<Seg>) {
        match item {
            Item::None => {}
            Item::Value(v) => self.value(v, path),
            Item::Table(t) => self.table(t, path),
            Item::ArrayOfTables(array) => {
                for (i, t) in array.iter().enumerate() {
                    path.push(Seg::Index(i));
                    self.record(path, t.span().map(|s| s.start));
                    self.table(t, path);
                    path.pop();
                }
            }
        }
    }

    fn value(&mut self, value: &Value, path: &mut Vec<Seg>) {
        match value {
            Value::InlineTable(t) => self.table(t, path),
            Value::Array(array) => {
                for (i, v) in array.iter().enumerate() {
                    path.push(Seg::Index(i));
                    self.record(path, v.span().map(|s| s.start));
                    self.value(v, path);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// 1-based line of byte `offset` in `text` (clamped to the text).
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::path::parse_path;
    use super::*;

    fn map(text: &str) -> SpanMap {
        let doc = toml_edit::ImDocument::parse(text).expect("test TOML parses");
        SpanMap::new(&doc, text)
    }

    fn line(m: &SpanMap, key: &str) -> Option<usize> {
        m.line_of(&parse_path(key).expect("test path parses"))
    }

    #[test]
    fn finds_keys_headers_and_array_entries() {
        let text = "name = \"x\"\n\
                    [nodes]\n\
                    count = 3\n\
                    positions = [[0.0, 0.0],\n  [1.0, 1.0]]\n\
                    [[flows]]\n\
                    src = 0\n\
                    [[flows]]\n\
                    src = 1\n\
                    tcp.variant = \"vegas\"\n\
                    inline = { a = 1 }\n";
        let m = map(text);
        assert_eq!(line(&m, "name"), Some(1));
        assert_eq!(line(&m, "nodes"), Some(2));
        assert_eq!(line(&m, "nodes.count"), Some(3));
        assert_eq!(line(&m, "nodes.positions[1]"), Some(5));
        assert_eq!(line(&m, "flows[1]"), Some(8));
        assert_eq!(line(&m, "flows[1].src"), Some(9));
        assert_eq!(line(&m, "flows[1].tcp.variant"), Some(10));
        assert_eq!(line(&m, "flows[1].inline.a"), Some(11));
        // A key that is not written falls back to its nearest written ancestor.
        assert_eq!(line(&m, "nodes.spacing_m"), Some(2));
        assert_eq!(line(&m, "routing.protocol"), None);
    }

    #[test]
    fn line_at_clamps() {
        assert_eq!(line_at("a\nb\n", 0), 1);
        assert_eq!(line_at("a\nb\n", 2), 2);
        assert_eq!(line_at("a\nb\n", 99), 3);
    }
}
