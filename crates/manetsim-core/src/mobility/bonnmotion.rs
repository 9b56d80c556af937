//! BonnMotion scenarios: a `.movements` file (plain text or gzip, told apart
//! by its content) with its `.params` file beside it.
//!
//! ## Naming
//!
//! `mobility.file` names either the movements file (`scen1.movements.gz` or
//! `scen1.movements`) or the common stem (`scen1`, then `scen1.movements.gz`
//! is used if it exists, else `scen1.movements`). The parameters are always
//! read from `STEM.params`.
//!
//! ## Format
//!
//! - `.params`: `key=value` lines. `nn` (the number of nodes) must equal
//!   `nodes.count`; the file's area `x` × `y` must fit in the scenario's
//!   area; `J=3D` (or a `z=` without `J`) is refused, manetsim being 2-D.
//!   Other keys are ignored.
//! - `.movements`: one line per node, in node order (lines starting with `#`
//!   and blank lines are skipped): `t1 x1 y1 t2 x2 y2 …`, the node's
//!   waypoints. The node is at the first waypoint from time 0, moves in a
//!   straight line at constant speed from each waypoint to the next, arriving
//!   at its time (to the nanosecond), and stays at the last one. Two
//!   consecutive waypoints at the same place are a pause. Times must not
//!   decrease, and two waypoints at the same time must be at the same place.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::engine::SimTime;
use crate::phy::Pos;
use crate::scenario::{fmt_float, Area};

use super::error::{quoted, MobilityError};
use super::ns2::parse_seconds;
use super::trajectory::Trajectory;

/// The movements and params files `file` stands for.
pub fn resolve(file: &str) -> Result<(PathBuf, PathBuf), MobilityError> {
    let name = file.trim_end();
    for suffix in [".movements.gz", ".movements"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            return Ok((PathBuf::from(name), PathBuf::from(format!("{stem}.params"))));
        }
    }
    let gz = PathBuf::from(format!("{name}.movements.gz"));
    let plain = PathBuf::from(format!("{name}.movements"));
    let movements = if gz.is_file() {
        gz
    } else if plain.is_file() {
        plain
    } else {
        return Err(MobilityError::new(
            file,
            None,
            format!(
                "no BonnMotion movements file: expected {} or {} (mobility.file names the .movements file or the common stem)",
                gz.display(),
                plain.display()
            ),
        ));
    };
    Ok((movements, PathBuf::from(format!("{name}.params"))))
}

/// Reads the BonnMotion scenario `file` (see [`resolve`]) for `count` nodes
/// in `area`.
pub fn read(file: &str, count: u32, area: &Area) -> Result<Vec<Trajectory>, MobilityError> {
    let (movements, params) = resolve(file)?;
    let params_name = params.display().to_string();
    let params_text = std::fs::read_to_string(&params).map_err(|e| {
        MobilityError::new(
            &params_name,
            None,
            format!("cannot read the BonnMotion parameters file that goes with the movements: {e}"),
        )
    })?;
    check_params(&params_text, &params_name, count, area)?;
    let movements_name = movements.display().to_string();
    let text = read_text(&movements)?;
    parse_movements(&text, &movements_name, count, area)
}

/// The text of a movements file, gunzipped when it starts with gzip's magic
/// bytes.
fn read_text(path: &Path) -> Result<String, MobilityError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        MobilityError::new(
            &name,
            None,
            format!("cannot read the BonnMotion movements file: {e}"),
        )
    })?;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(|e| {
                MobilityError::new(
                    &name,
                    None,
                    format!("the file starts like gzip but cannot be decompressed: {e} (expected a gzip-compressed or plain-text .movements file)"),
                )
            })?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        MobilityError::at(
            &name,
            line,
            "not text (expected lines of numbers `t x y t x y …`, plain or gzip-compressed)",
        )
    })
}

/// Checks a `.params` file against the scenario.
pub fn check_params(text: &str, file: &str, count: u32, area: &Area) -> Result<(), MobilityError> {
    let mut nn = None;
    let mut x = None;
    let mut y = None;
    let mut dim = None;
    let mut z = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let Some((key, value)) = l.split_once('=') else {
            return Err(MobilityError::at(
                file,
                line,
                format!("expected key=value, got {}", quoted(l)),
            ));
        };
        let value = value.trim();
        match key.trim() {
            "nn" => nn = Some((value.to_string(), line)),
            "x" => x = Some((value.to_string(), line)),
            "y" => y = Some((value.to_string(), line)),
            "J" => dim = Some((value.to_string(), line)),
            "z" => z = Some(line),
            _ => {}
        }
    }
    let missing = |key: &str, what: &str| {
        MobilityError::new(
            file,
            None,
            format!("no `{key}=` line (expected {what}, as BonnMotion writes it)"),
        )
    };
    let (nn, nn_line) = nn.ok_or_else(|| missing("nn", "the number of nodes"))?;
    let nodes: u64 = nn.parse().map_err(|_| {
        MobilityError::at(
            file,
            nn_line,
            format!(
                "expected an integer number of nodes for nn, got {}",
                quoted(&nn)
            ),
        )
    })?;
    if nodes != u64::from(count) {
        return Err(MobilityError::at(
            file,
            nn_line,
            format!(
                "the BonnMotion scenario has nn={nodes} nodes but nodes.count = {count} (expected equal counts)"
            ),
        ));
    }
    for (key, entry, size, scenario_key) in [
        ("x", &x, area.width_m, "area.width_m"),
        ("y", &y, area.height_m, "area.height_m"),
    ] {
        let (value, line) = entry
            .as_ref()
            .ok_or_else(|| missing(key, "the area's extent in metres"))?;
        let v: f64 = match value.parse() {
            Ok(v) if f64::is_finite(v) && v > 0.0 => v,
            _ => {
                return Err(MobilityError::at(
                    file,
                    *line,
                    format!(
                        "expected a positive number of metres for {key}, got {}",
                        quoted(value)
                    ),
                ))
            }
        };
        if v > size * (1.0 + 1e-9) {
            return Err(MobilityError::at(
                file,
                *line,
                format!(
                    "the BonnMotion area has {key}={} m but the scenario's {scenario_key} = {} (expected the file's area to fit in the scenario's)",
                    fmt_float(v),
                    fmt_float(size)
                ),
            ));
        }
    }
    let three_d = match &dim {
        Some((v, line)) => match v.as_str() {
            "2D" | "2d" => None,
            "3D" | "3d" => Some(*line),
            other => {
                return Err(MobilityError::at(
                    file,
                    *line,
                    format!("expected J=2D, got J={}", quoted(other)),
                ))
            }
        },
        None => z,
    };
    if let Some(line) = three_d {
        return Err(MobilityError::at(
            file,
            line,
            "3-D BonnMotion movements are not supported: manetsim is 2-D (expected J=2D; regenerate with `-J 2D` and no -z)",
        ));
    }
    Ok(())
}

/// Parses `.movements` text: one node per line.
pub fn parse_movements(
    text: &str,
    file: &str,
    count: u32,
    area: &Area,
) -> Result<Vec<Trajectory>, MobilityError> {
    let mut nodes = Vec::with_capacity(count as usize);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if nodes.len() == count as usize {
            return Err(MobilityError::at(
                file,
                line,
                format!(
                    "a waypoint line for node {} but nodes.count = {count} (expected one line per node)",
                    nodes.len()
                ),
            ));
        }
        nodes.push(node_line(l, file, line, nodes.len(), area)?);
    }
    if nodes.len() < count as usize {
        return Err(MobilityError::new(
            file,
            None,
            format!(
                "{} node lines but nodes.count = {count} (expected one line `t x y t x y …` per node)",
                nodes.len()
            ),
        ));
    }
    Ok(nodes)
}

fn node_line(
    l: &str,
    file: &str,
    line: usize,
    node: usize,
    area: &Area,
) -> Result<Trajectory, MobilityError> {
    let err = |m: String| Err(MobilityError::at(file, line, m));
    let tokens: Vec<&str> = l.split_whitespace().collect();
    if !tokens.chunks_exact(3).remainder().is_empty() {
        return err(format!(
            "node {node}: {} numbers is not a whole number of waypoints (expected triples `t x y`)",
            tokens.len()
        ));
    }
    let mut waypoints: Vec<(SimTime, Pos)> = Vec::with_capacity(tokens.len() / 3);
    for (k, w) in tokens.chunks_exact(3).enumerate() {
        let t = match parse_seconds(w[0]) {
            Ok(t) => t,
            Err(why) => {
                return err(format!(
                    "node {node}, waypoint {}: expected a time in seconds, got {}: {why}",
                    k + 1,
                    quoted(w[0])
                ))
            }
        };
        let coord = |token: &str, axis: &str, size: f64, key: &str| {
            match token.parse::<f64>() {
            Ok(v) if v.is_finite() && (0.0..=size).contains(&v) => Ok(v),
            Ok(v) if v.is_finite() => Err(MobilityError::at(
                file,
                line,
                format!(
                    "node {node}, waypoint {}: {axis} = {} is outside the area (expected 0..={}, the scenario's {key})",
                    k + 1,
                    fmt_float(v),
                    fmt_float(size)
                ),
            )),
            _ => Err(MobilityError::at(
                file,
                line,
                format!(
                    "node {node}, waypoint {}: expected a number for {axis}, got {}",
                    k + 1,
                    quoted(token)
                ),
            )),
        }
        };
        let x = coord(w[1], "x", area.width_m, "area.width_m")?;
        let y = coord(w[2], "y", area.height_m, "area.height_m")?;
        let p = Pos::new(x, y);
        if let Some(&(pt, pp)) = waypoints.last() {
            if t < pt {
                return err(format!(
                    "node {node}, waypoint {}: time {} s is before the previous waypoint's (expected non-decreasing times)",
                    k + 1,
                    w[0]
                ));
            }
            if t == pt && p != pp {
                return err(format!(
                    "node {node}, waypoint {}: at {} s the node is already at ({}, {}) and cannot jump to ({x}, {y}) (expected increasing times between different places)",
                    k + 1,
                    w[0],
                    pp.x,
                    pp.y
                ));
            }
        }
        waypoints.push((t, p));
    }
    let Some(&(_, start)) = waypoints.first() else {
        return err(format!("node {node}: no waypoints (expected `t x y …`)"));
    };
    let mut tr = Trajectory::new(start);
    for pair in waypoints.windows(2) {
        let ((t0, p0), (t1, p1)) = (pair[0], pair[1]);
        if p0 == p1 {
            continue; // a pause
        }
        let secs = (t1 - t0) as f64 * 1e-9;
        tr.setdest(t0, p1, p0.distance(&p1) / secs);
    }
    Ok(tr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    fn area() -> Area {
        Area {
            width_m: 1000.0,
            height_m: 1000.0,
        }
    }

    #[test]
    fn waypoints_become_legs_that_arrive_on_time() {
        let text = "0.0 0.0 0.0 10.0 100.0 0.0 15.0 100.0 0.0 20.0 100.0 50.0\n\
                    # a comment\n\
                    0 5 5\n";
        let mut nodes = parse_movements(text, "m.movements", 2, &area()).unwrap();
        let a = &mut nodes[0];
        assert_eq!(a.position(5 * NS_PER_S), Pos::new(50.0, 0.0));
        assert_eq!(a.position(10 * NS_PER_S), Pos::new(100.0, 0.0));
        assert_eq!(a.position(12 * NS_PER_S), Pos::new(100.0, 0.0)); // pause
        let p = a.position(17 * NS_PER_S);
        assert!((p.y - 20.0).abs() < 1e-9, "{p:?}");
        assert_eq!(a.position(99 * NS_PER_S), Pos::new(100.0, 50.0));
        assert_eq!(nodes[1].position(50 * NS_PER_S), Pos::new(5.0, 5.0));
    }

    #[test]
    fn params_are_checked() {
        let ok = "model=RandomWaypoint\nignore=3600.0\nx=1000.0\ny=400.0\nduration=900.0\nnn=2\ncircular=false\nJ=2D\n\n";
        assert_eq!(check_params(ok, "p", 2, &area()), Ok(()));
        let e = check_params(ok, "p", 3, &area()).unwrap_err();
        assert_eq!(e.line, Some(6));
        assert!(e.message.contains("nn=2"), "{e}");
        let e = check_params(&ok.replace("x=1000.0", "x=1600"), "p", 2, &area()).unwrap_err();
        assert!(e.message.contains("x=1600"), "{e}");
        let e = check_params(&ok.replace("J=2D", "J=3D"), "p", 2, &area()).unwrap_err();
        assert!(e.message.contains("2-D"), "{e}");
        let e = check_params("x=1\ny=1\n", "p", 2, &area()).unwrap_err();
        assert!(e.message.contains("nn="), "{e}");
    }
}
