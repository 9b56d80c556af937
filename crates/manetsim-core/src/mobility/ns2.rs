//! ns-2 movement files (the output of `setdest`): reader and writer.
//!
//! ## What is read
//!
//! One statement per line:
//!
//! - `$node_(N) set X_ VALUE`, `… set Y_ VALUE`, `… set Z_ 0`: the initial
//!   position of node N (every node `0..nodes.count` needs X_ and Y_; Z_ is
//!   optional and must be 0, manetsim being 2-D);
//! - `$ns_ at TIME "$node_(N) setdest X Y SPEED"`: at TIME, node N heads for
//!   (X, Y) at SPEED m/s. A `setdest` issued while the node is still moving
//!   redirects it from where it is (ns-2's behaviour); `SPEED = 0` stops it.
//!   Commands for one node at the same time apply in file order;
//! - `$god_ set-dist I J D` and `$ns_ at TIME "$god_ set-dist I J D"`
//!   (setdest's shortest-path hints for ns-2's GOD): accepted and ignored;
//! - blank lines and `#` comments.
//!
//! Anything else is an error naming the file, the line and what was expected.
//! Positions must lie inside the scenario's area and node ids below
//! `nodes.count`.
//!
//! ## What is written
//!
//! [`write()`] emits the same statements: every coordinate and speed in
//! Rust's shortest round-trip decimal form and every time as seconds with 9
//! decimals (whole nanoseconds), so reading the file back gives legs that
//! are bit-identical to the ones written.

use crate::engine::{from_secs, SimTime, NS_PER_S};
use crate::phy::Pos;
use crate::scenario::{fmt_float, Area, MAX_DURATION_S};

use super::error::{quoted, MobilityError};
use super::trajectory::{Leg, Trajectory};

const STATEMENTS: &str = "expected `$node_(N) set X_|Y_|Z_ VALUE`, `$ns_ at TIME \"$node_(N) setdest X Y SPEED\"`, `$god_ set-dist I J D` or a # comment";
const SETDEST: &str = "expected $ns_ at TIME \"$node_(N) setdest X Y SPEED\"";
const SET: &str = "expected $node_(N) set X_|Y_|Z_ VALUE";
const GOD: &str = "expected $god_ set-dist I J D";

/// Reads the ns-2 movement file at `path` for `count` nodes in `area`.
pub fn read(path: &str, count: u32, area: &Area) -> Result<Vec<Trajectory>, MobilityError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        MobilityError::new(
            path,
            None,
            format!("cannot read the ns-2 movement file: {e}"),
        )
    })?;
    parse(&text, path, count, area)
}

/// One `setdest`, kept until every line is read.
struct Command {
    time: SimTime,
    node: u32,
    target: Pos,
    speed_mps: f64,
}

/// Parses ns-2 movement statements; `file` names the text in errors.
pub fn parse(
    text: &str,
    file: &str,
    count: u32,
    area: &Area,
) -> Result<Vec<Trajectory>, MobilityError> {
    let mut p = Parser {
        file,
        count,
        area,
        line: 0,
        xs: vec![None; count as usize],
        ys: vec![None; count as usize],
        zs: vec![None; count as usize],
        commands: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        p.line = i + 1;
        p.statement(raw.trim())?;
    }
    p.finish()
}

struct Parser<'a> {
    file: &'a str,
    count: u32,
    area: &'a Area,
    line: usize,
    /// Initial coordinates with the line that set them.
    xs: Vec<Option<(f64, usize)>>,
    ys: Vec<Option<(f64, usize)>>,
    zs: Vec<Option<(f64, usize)>>,
    commands: Vec<Command>,
}

type Res<T> = Result<T, MobilityError>;

impl Parser<'_> {
    fn err<T>(&self, message: impl Into<String>) -> Res<T> {
        Err(MobilityError::at(self.file, self.line, message))
    }

    fn statement(&mut self, line: &str) -> Res<()> {
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if line.starts_with("$node_(") {
            return self.set(line);
        }
        if let Some(rest) = line.strip_prefix("$ns_") {
            if rest.starts_with(char::is_whitespace) {
                return self.at(rest.trim_start());
            }
        }
        if let Some(rest) = line.strip_prefix("$god_") {
            if rest.starts_with(char::is_whitespace) {
                return self.god(rest);
            }
        }
        let first = line.split_whitespace().next().unwrap_or(line);
        self.err(format!(
            "unknown statement {} ({STATEMENTS})",
            quoted(first)
        ))
    }

    /// `$node_(N)` at the start of `s`: the id and what follows.
    fn node_ref<'s>(&self, s: &'s str, expected: &str) -> Res<(u32, &'s str)> {
        let Some(rest) = s.strip_prefix("$node_(") else {
            let first = s.split_whitespace().next().unwrap_or(s);
            return self.err(format!(
                "expected $node_(N), got {} ({expected})",
                quoted(first)
            ));
        };
        let Some((id, rest)) = rest.split_once(')') else {
            return self.err(format!("$node_( is not closed with `)` ({expected})"));
        };
        let node: u32 = match id.trim().parse() {
            Ok(n) => n,
            Err(_) => {
                return self.err(format!(
                    "expected a node id (an integer ≥ 0) in $node_(…), got {} ({expected})",
                    quoted(id)
                ))
            }
        };
        if node >= self.count {
            return self.err(format!(
                "node {node} does not exist (nodes.count = {}; ids must be 0..={})",
                self.count,
                self.count.saturating_sub(1)
            ));
        }
        Ok((node, rest))
    }

    fn number(&self, token: Option<&str>, what: &str, expected: &str) -> Res<f64> {
        let Some(token) = token else {
            return self.err(format!("missing {what} ({expected})"));
        };
        match token.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => self.err(format!(
                "expected a number for {what}, got {} ({expected})",
                quoted(token)
            )),
        }
    }

    fn no_more(&self, mut tokens: std::str::SplitWhitespace, expected: &str) -> Res<()> {
        match tokens.next() {
            None => Ok(()),
            Some(extra) => self.err(format!(
                "unexpected {} after the statement ({expected})",
                quoted(extra)
            )),
        }
    }

    fn inside(&self, what: &str, v: f64, axis: &str, size: f64, key: &str) -> Res<()> {
        if (0.0..=size).contains(&v) {
            Ok(())
        } else {
            self.err(format!(
                "{what} {} is outside the area ({axis} must be in 0..={}, the scenario's {key})",
                fmt_float(v),
                fmt_float(size)
            ))
        }
    }

    /// `$node_(N) set X_|Y_|Z_ VALUE`
    fn set(&mut self, line: &str) -> Res<()> {
        let (node, rest) = self.node_ref(line, SET)?;
        let mut tokens = rest.split_whitespace();
        match tokens.next() {
            Some("set") => {}
            Some(other) => {
                return self.err(format!(
                    "expected `set` after $node_({node}), got {} ({SET}; setdest must be scheduled with $ns_ at)",
                    quoted(other)
                ))
            }
            None => return self.err(format!("nothing after $node_({node}) ({SET})")),
        }
        let var = match tokens.next() {
            Some(v @ ("X_" | "Y_" | "Z_")) => v,
            Some(other) => {
                return self.err(format!(
                    "expected X_, Y_ or Z_ after `set`, got {} ({SET})",
                    quoted(other)
                ))
            }
            None => return self.err(format!("missing the variable ({SET})")),
        };
        let v = self.number(tokens.next(), "the coordinate", SET)?;
        self.no_more(tokens, SET)?;
        match var {
            "X_" => self.inside("X_", v, "x", self.area.width_m, "area.width_m")?,
            "Y_" => self.inside("Y_", v, "y", self.area.height_m, "area.height_m")?,
            _ if v != 0.0 => {
                return self.err(format!(
                    "Z_ = {v}: manetsim is 2-D (expected $node_({node}) set Z_ 0)"
                ))
            }
            _ => {}
        }
        let line = self.line;
        let slots = match var {
            "X_" => &mut self.xs,
            "Y_" => &mut self.ys,
            _ => &mut self.zs,
        };
        if let Some((_, first)) = slots[node as usize].replace((v, line)) {
            return self.err(format!(
                "$node_({node}) set {var} is given twice (first on line {first}); expected one initial value per node"
            ));
        }
        Ok(())
    }

    /// `at TIME "COMMAND"` (after `$ns_`).
    fn at(&mut self, rest: &str) -> Res<()> {
        let Some(rest) = rest.strip_prefix("at") else {
            let first = rest.split_whitespace().next().unwrap_or(rest);
            return self.err(format!(
                "expected `at` after $ns_, got {} ({SETDEST})",
                quoted(first)
            ));
        };
        if !rest.starts_with(char::is_whitespace) {
            return self.err(format!("expected `at` after $ns_ ({SETDEST})"));
        }
        let rest = rest.trim_start();
        let (time_token, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let time = self.time(time_token)?;
        let rest = rest.trim();
        let inner = match rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(inner) if !rest.is_empty() && rest.len() >= 2 => inner.trim(),
            _ => {
                return self.err(format!(
                    "expected the scheduled command in double quotes, got {} ({SETDEST})",
                    quoted(rest)
                ))
            }
        };
        if let Some(god) = inner.strip_prefix("$god_") {
            if god.starts_with(char::is_whitespace) {
                return self.god(god);
            }
        }
        let (node, rest) = self.node_ref(inner, SETDEST)?;
        let mut tokens = rest.split_whitespace();
        match tokens.next() {
            Some("setdest") => {}
            Some(other) => {
                return self.err(format!(
                    "expected `setdest` in the scheduled command, got {} ({SETDEST})",
                    quoted(other)
                ))
            }
            None => return self.err(format!("nothing after $node_({node}) ({SETDEST})")),
        }
        let x = self.number(tokens.next(), "the destination x", SETDEST)?;
        let y = self.number(tokens.next(), "the destination y", SETDEST)?;
        let speed = self.number(tokens.next(), "the speed", SETDEST)?;
        self.no_more(tokens, SETDEST)?;
        self.inside("destination x", x, "x", self.area.width_m, "area.width_m")?;
        self.inside("destination y", y, "y", self.area.height_m, "area.height_m")?;
        if speed < 0.0 {
            return self.err(format!(
                "speed {speed} is negative (expected a speed ≥ 0 in m/s)"
            ));
        }
        self.commands.push(Command {
            time,
            node,
            target: Pos::new(x, y),
            speed_mps: speed,
        });
        Ok(())
    }

    fn time(&self, token: &str) -> Res<SimTime> {
        parse_seconds(token).or_else(|why| {
            self.err(format!(
                "expected a time in seconds after `at`, got {}: {why} ({SETDEST})",
                quoted(token)
            ))
        })
    }

    /// ` set-dist I J D` (after `$god_`): checked, then ignored.
    fn god(&self, rest: &str) -> Res<()> {
        let mut tokens = rest.split_whitespace();
        if tokens.next() != Some("set-dist") {
            return self.err(format!("only `$god_ set-dist` is accepted ({GOD})"));
        }
        for what in ["I", "J", "D"] {
            match tokens.next().map(str::parse::<u64>) {
                Some(Ok(_)) => {}
                _ => return self.err(format!("expected an integer for {what} ({GOD})")),
            }
        }
        self.no_more(tokens, GOD)
    }

    fn finish(mut self) -> Res<Vec<Trajectory>> {
        let missing: Vec<String> = (0..self.count as usize)
            .filter(|&i| self.xs[i].is_none() || self.ys[i].is_none())
            .map(|i| i.to_string())
            .collect();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
            let more = if missing.len() > 8 { ", …" } else { "" };
            let first = &missing[0];
            return Err(MobilityError::new(
                self.file,
                None,
                format!(
                    "{} of nodes.count = {} nodes have no initial position (node {}{more}); expected `$node_({first}) set X_ …` and `$node_({first}) set Y_ …` for every node",
                    missing.len(),
                    self.count,
                    shown.join(", ")
                ),
            ));
        }
        let mut nodes: Vec<Trajectory> = (0..self.count as usize)
            .map(|i| {
                let x = self.xs[i].map_or(0.0, |v| v.0);
                let y = self.ys[i].map_or(0.0, |v| v.0);
                Trajectory::new(Pos::new(x, y))
            })
            .collect();
        self.commands.sort_by_key(|c| c.time); // stable: file order within a time
        for c in &self.commands {
            nodes[c.node as usize].setdest(c.time, c.target, c.speed_mps);
        }
        Ok(nodes)
    }
}

/// Seconds as written in a movement file, to whole nanoseconds: exact for up
/// to 9 decimals (more are rounded); exponents are read as floating point.
pub fn parse_seconds(token: &str) -> Result<SimTime, String> {
    let max_s = MAX_DURATION_S as u64;
    if token.contains(['e', 'E']) {
        return match token.parse::<f64>() {
            Ok(v) if (0.0..=MAX_DURATION_S).contains(&v) => Ok(from_secs(v)),
            Ok(v) if v.is_finite() && v < 0.0 => Err("times must be ≥ 0".into()),
            Ok(v) if v.is_finite() => Err(format!("times must be ≤ {max_s} s")),
            _ => Err("not a number".into()),
        };
    }
    let unsigned = token.strip_prefix('+').unwrap_or(token);
    if token.starts_with('-') && token.len() > 1 {
        return Err("times must be ≥ 0".into());
    }
    let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err("not a number".into());
    }
    let int = int.trim_start_matches('0');
    if int.len() > 10 {
        return Err(format!("times must be ≤ {max_s} s"));
    }
    let whole: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| "not a number".to_string())?
    };
    if whole > max_s {
        return Err(format!("times must be ≤ {max_s} s"));
    }
    let mut ns: u64 = 0;
    let fb = frac.as_bytes();
    for k in 0..9 {
        ns = ns * 10 + fb.get(k).map_or(0, |b| u64::from(b - b'0'));
    }
    if fb.get(9).is_some_and(|&b| b >= b'5') {
        ns += 1;
    }
    Ok(whole * NS_PER_S + ns)
}

/// Seconds with 9 decimals: exactly `t` nanoseconds.
pub fn fmt_seconds(t: SimTime) -> String {
    format!("{}.{:09}", t / NS_PER_S, t % NS_PER_S)
}

/// An ns-2 movement file: `header` lines (each written as a `#` comment),
/// the initial positions, then every leg as a `setdest` in time order (node
/// order within a time; a node's own legs keep their order).
pub fn write(header: &[String], initial: &[Pos], legs: &[Vec<Leg>]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for h in header {
        for line in h.lines() {
            let _ = writeln!(out, "# {line}");
        }
    }
    for (i, p) in initial.iter().enumerate() {
        let _ = writeln!(out, "$node_({i}) set X_ {}", p.x);
        let _ = writeln!(out, "$node_({i}) set Y_ {}", p.y);
        let _ = writeln!(out, "$node_({i}) set Z_ 0");
    }
    let mut order: Vec<(SimTime, usize, usize)> = legs
        .iter()
        .enumerate()
        .flat_map(|(node, ls)| ls.iter().enumerate().map(move |(k, l)| (l.start, node, k)))
        .collect();
    order.sort_unstable();
    for (t, node, k) in order {
        let l = &legs[node][k];
        let _ = writeln!(
            out,
            "$ns_ at {} \"$node_({node}) setdest {} {} {}\"",
            fmt_seconds(t),
            l.target.x,
            l.target.y,
            l.speed_mps
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area() -> Area {
        Area {
            width_m: 500.0,
            height_m: 500.0,
        }
    }

    #[test]
    fn seconds_are_read_to_the_nanosecond() {
        assert_eq!(parse_seconds("2.000000000000"), Ok(2 * NS_PER_S));
        assert_eq!(parse_seconds("22.824892777573"), Ok(22_824_892_778));
        assert_eq!(parse_seconds("0.5"), Ok(500_000_000));
        assert_eq!(parse_seconds(".5"), Ok(500_000_000));
        assert_eq!(parse_seconds("7"), Ok(7 * NS_PER_S));
        assert_eq!(parse_seconds("1e3"), Ok(1000 * NS_PER_S));
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("abc").is_err());
        assert!(parse_seconds(".").is_err());
        assert!(parse_seconds("1.2.3").is_err());
        assert!(parse_seconds("99999999999999999999").is_err());
        assert_eq!(fmt_seconds(22_824_892_778), "22.824892778");
        for t in [0, 1, 999_999_999, 1_000_000_000, 123_456_789_012] {
            assert_eq!(parse_seconds(&fmt_seconds(t)), Ok(t));
        }
    }

    #[test]
    fn a_small_file_by_hand() {
        let text = "# comment\n\
            $node_(0) set X_ 10.0\n$node_(0) set Y_ 20.0\n$node_(0) set Z_ 0.0\n\
            $node_(1) set X_ 0\n$node_(1) set Y_ 0\n\
            $god_ set-dist 0 1 1\n\
            $ns_ at 1.0 \"$node_(0) setdest 40.0 60.0 10.0\"\n\
            $ns_ at 2.5 \"$god_ set-dist 0 1 2\"\n\
            $ns_ at 3.0 \"$node_(0) setdest 10.0 20.0 0.0\"\n\
            \n";
        let mut nodes = parse(text, "t.tcl", 2, &area()).unwrap();
        // 50 m at 10 m/s from 1 s; stopped at 3 s, 20 m along, at (22, 36).
        assert_eq!(nodes[0].position(0), Pos::new(10.0, 20.0));
        let p = nodes[0].position(2 * NS_PER_S);
        assert!(
            (p.x - 16.0).abs() < 1e-9 && (p.y - 28.0).abs() < 1e-9,
            "{p:?}"
        );
        let p = nodes[0].position(100 * NS_PER_S);
        assert!(
            (p.x - 22.0).abs() < 1e-9 && (p.y - 36.0).abs() < 1e-9,
            "{p:?}"
        );
        assert_eq!(nodes[1].position(50 * NS_PER_S), Pos::new(0.0, 0.0));
    }

    #[test]
    fn writer_output_reads_back_identically() {
        let initial = vec![Pos::new(0.1, 0.2), Pos::new(499.9, 3.0 / 7.0)];
        let mut a = Trajectory::new(initial[0]);
        a.setdest(
            1_234_567_891,
            Pos::new(100.0 / 3.0, 250.5),
            7.123_456_789_012_345,
        );
        a.setdest(2 * NS_PER_S, Pos::new(1.0, 1.0), 2.0); // a redirect
        let b = Trajectory::new(initial[1]);
        let legs = vec![a.legs().to_vec(), b.legs().to_vec()];
        let text = write(&["made by hand".into()], &initial, &legs);
        let back = parse(&text, "w.tcl", 2, &area()).unwrap();
        assert_eq!(back[0], a);
        assert_eq!(back[1], b);
    }
}
