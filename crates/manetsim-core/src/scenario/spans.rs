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
            newlines: Newlines::new(text),
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

struct Walker {
    newlines: Newlines,
    lines: HashMap<String, usize>,
}

impl Walker {
    fn record(&mut self, path: &[Seg], offset: Option<usize>) {
        if let Some(offset) = offset {
            self.lines
                .entry(fmt_path(path))
                .or_insert_with(|| self.newlines.line_at(offset));
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
    Newlines::new(text).line_at(offset)
}

/// Where a text's line breaks are, to find the line of many offsets in
/// O(log lines) each (a scenario of 10,000 nodes has tens of thousands of
/// keys: counting from the start for each took a quarter of a second).
struct Newlines {
    at: Vec<usize>,
    len: usize,
}

impl Newlines {
    fn new(text: &str) -> Self {
        Self {
            at: text
                .bytes()
                .enumerate()
                .filter_map(|(i, b)| (b == b'\n').then_some(i))
                .collect(),
            len: text.len(),
        }
    }

    /// The 1-based line of byte `offset` (clamped to the text's end).
    fn line_at(&self, offset: usize) -> usize {
        let end = offset.min(self.len);
        1 + self.at.partition_point(|&i| i < end)
    }
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

    #[test]
    fn line_at_counts_the_breaks_before_the_offset() {
        let text = "x = 1\n\n[a]\ny = 2\nz";
        for offset in 0..=text.len() + 2 {
            let end = offset.min(text.len());
            let counted = 1 + text[..end].matches('\n').count();
            assert_eq!(line_at(text, offset), counted, "offset {offset}");
        }
    }
}
