//! The scenario format: schema, loading, `--set` overrides and validation.
//!
//! Loading goes in four steps, each of which can fail with a one-line
//! [`ScenarioError`] naming the file (or the `--set` override), the line when
//! known, the dotted key and what was expected:
//!
//! 1. **Parse** the TOML (syntax errors, duplicate keys).
//! 2. **Override**: apply each `--set key.path=value` to the parsed table
//!    ([`parse_override`] splits the argument).
//! 3. **Deserialize** into [`Scenario`]: unknown keys, wrong types and unknown
//!    enum names are refused here (every table is `deny_unknown_fields`).
//!    Then fill in the defaults that depend on other keys: an empty `name`
//!    becomes the file stem, a flow's `stop_s` becomes `duration_s`, etc.
//! 4. **Validate** values ([`validate`]): ranges, node ids, consistency, keys
//!    that mean nothing in context, and features not yet supported.
//!
//! [`to_toml_string`] writes a scenario back out (`manetsim show-config`).
//! The user-facing reference is `docs/scenario.md`.

mod error;
mod overrides;
mod path;
mod render;
pub mod schema;
mod spans;
mod support;
mod validate;

use std::path::Path;

use toml::{Table, Value};

pub use error::ScenarioError;
pub use overrides::parse_override;
pub(crate) use render::fmt_float;
pub use render::to_toml_string;
pub use schema::*;
pub use support::not_yet_supported;
pub use validate::{
    validate, MAX_DURATION_S, MAX_MANHATTAN_BLOCKS, MAX_NODES, MAX_PACKET_SIZE_BYTES,
    MIN_WALK_STEP_M,
};

use overrides::Override;
use path::{fmt_path, overlaps, parse_path, Seg};
use spans::{line_at, SpanMap};

/// ns-2's CBR `rate_` (448 kbit/s): a CBR or on-off flow's rate when neither
/// `rate_bps` nor `interval_s` is given.
pub const DEFAULT_CBR_RATE_BPS: f64 = 448_000.0;

/// Reads, overrides, resolves and validates the scenario file at `path`.
/// `overrides` are `(key.path, value)` pairs from [`parse_override`].
pub fn load_file(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::new(
            &file,
            None,
            None,
            format!("cannot read the scenario file: {e}"),
        )
    })?;
    load_str(&text, &file, overrides)
}

/// Like [`load_file`] for a scenario already in memory; `source` names it in
/// errors and gives the default `name` (its file stem).
pub fn load_str(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    let doc = toml_edit::ImDocument::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_at(text, s.start));
        ScenarioError::new(
            source,
            None,
            line,
            format!("TOML syntax error: {}", e.message()),
        )
    })?;
    let spans = SpanMap::new(&doc, text);
    let base: Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map(|s| line_at(text, s.start));
        ScenarioError::new(
            source,
            None,
            line,
            format!("TOML syntax error: {}", e.message()),
        )
    })?;
    let mut ovs = overrides
        .iter()
        .map(|(k, v)| Override::new(k, v))
        .collect::<Result<Vec<_>, _>>()?;

    let (mut scenario, table) = deserialize(&base, &mut ovs, source, &spans)?;
    resolve(&mut scenario, &table, source);
    validate(&scenario, source).map_err(|e| locate(e, &ovs, &spans))?;
    Ok(scenario)
}

/// Applies the overrides and deserializes. An override whose TOML reading has
/// the wrong type is retried as a plain string (`mac.standard=802.11`); if
/// that fails too, the first error is reported.
fn deserialize(
    base: &Table,
    ovs: &mut [Override],
    source: &str,
    spans: &SpanMap,
) -> Result<(Scenario, Table), ScenarioError> {
    let mut retrying: Option<(usize, ScenarioError)> = None;
    loop {
        let mut table = base.clone();
        for ov in ovs.iter() {
            overrides::apply(&mut table, ov)?;
        }
        let err = match serde_path_to_error::deserialize::<_, Scenario>(Value::Table(table.clone()))
        {
            Ok(s) => {
                if let Some((path, message)) = misshapen(&table, &s) {
                    let key = Some(fmt_path(&path));
                    let error = match ovs.iter().rposition(|o| overlaps(&o.path, &path)) {
                        Some(i) => ScenarioError::new(&ovs[i].source, key, None, message),
                        None => ScenarioError::new(source, key, spans.line_of(&path), message),
                    };
                    return Err(error);
                }
                return Ok((s, table));
            }
            Err(err) => err,
        };
        let path = serde_path(err.path());
        let culprit = ovs.iter().rposition(|o| overlaps(&o.path, &path));
        let key = (!path.is_empty()).then(|| fmt_path(&path));
        let message = friendly(err.inner().message());
        let error = match culprit {
            Some(i) => ScenarioError::new(&ovs[i].source, key, None, message),
            None => ScenarioError::new(source, key, spans.line_of(&path), message),
        };
        if let Some((i, first)) = retrying.take() {
            if culprit == Some(i) {
                // A choice's names say more than the first reading's type
                // (`nodes.placement=5`: unknown value `5`, expected one of …).
                let names = error.message.starts_with("unknown value ");
                return Err(if names { error } else { first });
            }
        }
        match culprit.and_then(|i| ovs[i].as_string().map(|alt| (i, alt))) {
            Some((i, alt)) => {
                ovs[i] = alt;
                retrying = Some((i, error));
            }
            None => return Err(error),
        }
    }
}

/// Where the scenario as written has another shape than the one it was
/// read into: serde takes an array for a table (its fields by position,
/// `area = [1200.0, 200.0]`) and a table for a name (`protocol = { aodv =
/// {} }`). Both are refused, as a reader of the file would not expect them
/// to work. Compares what was written with the scenario written back.
fn misshapen(written: &Table, read: &Scenario) -> Option<(Vec<Seg>, String)> {
    let Ok(Value::Table(back)) = Value::try_from(read) else {
        return None;
    };
    let mut path = Vec::new();
    let message = shape_of_table(written, &back, &mut path)?;
    Some((path, message))
}

fn shape_of_table(written: &Table, back: &Table, path: &mut Vec<Seg>) -> Option<String> {
    for (key, w) in written {
        let Some(b) = back.get(key) else { continue };
        path.push(Seg::Key(key.clone()));
        if let Some(m) = shape_of(w, b, path) {
            return Some(m);
        }
        path.pop();
    }
    None
}

fn shape_of(w: &Value, b: &Value, path: &mut Vec<Seg>) -> Option<String> {
    match (w, b) {
        (Value::Array(_), Value::Table(_)) => Some("expected a table, got an array".into()),
        (Value::Table(_), Value::String(_)) => {
            Some("expected one of its names, as a quoted string, got a table".into())
        }
        (Value::Table(w), Value::Table(b)) => shape_of_table(w, b, path),
        (Value::Array(w), Value::Array(b)) => {
            for (i, (w, b)) in w.iter().zip(b).enumerate() {
                path.push(Seg::Index(i));
                if let Some(m) = shape_of(w, b, path) {
                    return Some(m);
                }
                path.pop();
            }
            None
        }
        _ => None,
    }
}

/// serde_path_to_error's path as ours.
fn serde_path(path: &serde_path_to_error::Path) -> Vec<Seg> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|seg| match seg {
            Segment::Map { key } => Some(Seg::Key(key.clone())),
            Segment::Seq { index } => Some(Seg::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// Rewords serde's messages in the scenario's terms (keys, values, numbers).
fn friendly(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        return format!("unknown key {rest}");
    }
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        return format!("unknown value {rest}");
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        return format!("missing required key {rest}");
    }
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            if let Some((got, expected)) = rest.rsplit_once(", expected ") {
                let got = match got {
                    _ if prefix == "invalid length " => format!("an array of length {got}"),
                    "map" => "a table".to_string(),
                    "sequence" => "an array".to_string(),
                    "unit variant" => "another type".to_string(),
                    _ => got.to_string(),
                };
                return format!("expected {}, got {got}", expected_in_words(expected));
            }
        }
    }
    msg.to_string()
}

fn expected_in_words(expected: &str) -> String {
    match expected {
        "u32" => format!("an integer in 0..={}", u32::MAX),
        "u64" => format!("an integer in 0..={}", i64::MAX),
        "f64" => "a number".to_string(),
        "a sequence" => "an array".to_string(),
        "a map" => "a table".to_string(),
        // A choice (an enum) given a number, array or table.
        "string only" => "one of its names, as a quoted string".to_string(),
        // The schema's only fixed-length arrays are [x, y] pairs.
        "fewer elements in array" | "an array of length 2" => "an [x, y] pair".to_string(),
        e if e.starts_with("struct ") => "a table".to_string(),
        e => e.to_string(),
    }
}

/// Fills in the defaults that depend on other keys.
fn resolve(s: &mut Scenario, table: &Table, source: &str) {
    if s.name.is_empty() {
        s.name = Path::new(source)
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default()
            .to_string();
    }
    let count_given = table
        .get("nodes")
        .and_then(Value::as_table)
        .is_some_and(|t| t.contains_key("count"));
    if !count_given {
        let n = &mut s.nodes;
        let derived = match n.placement {
            Placement::Grid => n.rows.zip(n.cols).and_then(|(r, c)| r.checked_mul(c)),
            Placement::Explicit => n
                .positions
                .as_ref()
                .and_then(|p| u32::try_from(p.len()).ok()),
            _ => None,
        };
        if let Some(count) = derived {
            n.count = count;
        }
    }
    let m = &mut s.mobility;
    if m.model == MobilityModel::GaussMarkov
        || (m.model == MobilityModel::RandomWalk && m.step_m.is_none())
    {
        m.step_s.get_or_insert(DEFAULT_WALK_STEP_S);
    }
    if m.model == MobilityModel::GaussMarkov {
        m.alpha.get_or_insert(DEFAULT_GAUSS_MARKOV_ALPHA);
        m.speed_std_mps
            .get_or_insert(DEFAULT_GAUSS_MARKOV_SPEED_STD_MPS);
        m.direction_std_rad
            .get_or_insert(DEFAULT_GAUSS_MARKOV_DIRECTION_STD_RAD);
    }
    if m.model == MobilityModel::Rpgm {
        m.groups.get_or_insert(DEFAULT_GROUPS);
        m.group_radius_m.get_or_insert(DEFAULT_GROUP_RADIUS_M);
        m.group_change_prob.get_or_insert(0.0);
    }
    if m.model == MobilityModel::Manhattan {
        m.blocks_x.get_or_insert(DEFAULT_MANHATTAN_BLOCKS);
        m.blocks_y.get_or_insert(DEFAULT_MANHATTAN_BLOCKS);
        if m.update_m.is_some() {
            m.speed_change_prob.get_or_insert(0.0);
            m.pause_prob.get_or_insert(0.0);
            m.max_pause_s.get_or_insert(0.0);
        }
    }
    if let Some(file) = s.mobility.file.as_mut() {
        *file = resolve_beside(file, source);
    }
    if let Some(standard) = crate::mac::MacStandard::parse(&s.mac.standard) {
        let mac = table.get("mac").and_then(Value::as_table);
        let given = |key: &str| mac.is_some_and(|t| t.contains_key(key));
        let (data, basic) = standard.default_rates_bps();
        if !given("data_rate_bps") {
            // Rate control climbs to the standard's fastest rate unless
            // told less.
            let top = standard.rates_bps().and_then(|r| r.iter().max().copied());
            s.mac.data_rate_bps = match (s.mac.rate_control, top) {
                (RateControlKind::Constant, _) | (_, None) => data,
                (_, Some(top)) => top,
            };
        }
        if !given("basic_rate_bps") {
            s.mac.basic_rate_bps = basic;
        }
    }
    for f in &mut s.flows {
        if f.stop_s.is_none() {
            f.stop_s = Some(s.duration_s);
        }
        let rated_app = matches!(f.app, AppKind::Cbr | AppKind::Onoff);
        if rated_app && f.rate_bps.is_none() && f.interval_s.is_none() {
            f.rate_bps = Some(DEFAULT_CBR_RATE_BPS);
        }
        if f.transport == Transport::Tcp && f.tcp.is_none() {
            f.tcp = Some(TcpConfig::default());
        }
        if f.transport == Transport::Tfrc && f.tfrc.is_none() {
            f.tfrc = Some(TfrcFlowConfig::default());
        }
        if f.transport == Transport::Sctp && f.sctp.is_none() {
            f.sctp = Some(SctpFlowConfig::default());
        }
        if f.app == AppKind::Onoff && f.onoff.is_none() {
            f.onoff = Some(OnOffConfig::default());
        }
    }
}

/// `file` as an absolute path: a relative one is taken relative to the
/// directory of `source` when `source` is a path whose directory exists,
/// else relative to the current directory. `.` components are dropped; the
/// path is not canonicalised (symbolic links stay as written). An empty name
/// is left for validation to refuse.
fn resolve_beside(file: &str, source: &str) -> String {
    let path = Path::new(file);
    if file.trim().is_empty() || path.is_absolute() {
        return file.to_string();
    }
    let base = Path::new(source)
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && d.is_dir())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut joined = base.join(path);
    if !joined.is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            joined = cwd.join(joined);
        }
    }
    joined
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect::<std::path::PathBuf>()
        .display()
        .to_string()
}

/// Points a validation error at the `--set` that set its key, or at its line.
fn locate(mut e: ScenarioError, ovs: &[Override], spans: &SpanMap) -> ScenarioError {
    let Some(path) = e.key.as_deref().and_then(|k| parse_path(k).ok()) else {
        return e;
    };
    match ovs.iter().rev().find(|o| overlaps(&o.path, &path)) {
        Some(ov) => {
            e.file = ov.source.clone();
            e.line = None;
        }
        None => e.line = spans.line_of(&path),
    }
    e
}

#[cfg(test)]
pub(crate) mod tests;
