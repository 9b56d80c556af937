//! Movement files: a real `setdest` output, a BonnMotion scenario, and the
//! corpus of malformed files in `tests/fixtures/bad_mobility/`, each of which
//! must be refused with one line naming the file, the line (when one line is
//! to blame) and what was expected.

use std::path::PathBuf;

use manetsim_core::engine::{from_secs, NS_PER_S};
use manetsim_core::mobility::{bonnmotion, ns2, Mobility, MobilityError, NodeMobility};
use manetsim_core::phy::Pos;
use manetsim_core::scenario::Area;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn area(w: f64, h: f64) -> Area {
    Area {
        width_m: w,
        height_m: h,
    }
}

#[test]
fn a_real_setdest_file_is_read_correctly() {
    // tests/fixtures/setdest_5n.tcl: `setdest -v 1 -n 5 -p 2 -M 10 -t 50
    // -x 500 -y 500`, from Debian's ns2 package.
    let file = fixtures().join("setdest_5n.tcl").display().to_string();
    let text = std::fs::read_to_string(&file).unwrap();
    let nodes = ns2::read(&file, 5, &area(500.0, 500.0)).unwrap_or_else(|e| panic!("{e}"));
    let mut m = Mobility::from_nodes(nodes.into_iter().map(NodeMobility::Trajectory).collect());

    assert_eq!(
        m.position(0, 0),
        Pos::new(360.762714417336, 328.800198596539)
    );
    assert_eq!(
        m.position(4, 0),
        Pos::new(325.514505432690, 234.814569433553)
    );
    // Everyone pauses 2 s first (setdest v1).
    assert_eq!(
        m.position(1, 2 * NS_PER_S),
        Pos::new(497.995221541032, 106.733252224633)
    );

    // Node 2: leaves (290.18…, 263.35…) at 2 s for (370.94…, 448.19…) at
    // 9.686057086731 m/s; setdest itself marks its arrival with a
    // `setdest … 0` at 22.824892777573 s.
    let from = Pos::new(290.181896732616, 263.352755288913);
    let to = Pos::new(370.940985427174, 448.191435128408);
    let v = 9.686057086731;
    let d = from.distance(&to);
    let half = 2.0 + d / v / 2.0;
    let p = m.position(2, from_secs(half));
    assert!((p.x - (from.x + to.x) / 2.0).abs() < 1e-6, "{p:?}");
    assert!((p.y - (from.y + to.y) / 2.0).abs() < 1e-6, "{p:?}");
    assert!((2.0 + d / v - 22.824892777573).abs() < 1e-6);
    let p = m.position(2, from_secs(23.0));
    assert!(p.distance(&to) < 1e-6, "{p:?}");

    // Every stop (`setdest X Y 0`) setdest wrote comes when the node has
    // arrived at X Y: our travel times agree with setdest's to 1 µs.
    let mut stops = 0;
    for line in text
        .lines()
        .filter(|l| l.contains("setdest") && l.ends_with(" 0.000000000000\""))
    {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let t = from_secs(tokens[2].parse().unwrap());
        let node: u32 = tokens[3]
            .trim_start_matches("\"$node_(")
            .trim_end_matches(')')
            .parse()
            .unwrap();
        let target = Pos::new(tokens[5].parse().unwrap(), tokens[6].parse().unwrap());
        let legs = m.legs_until(node, t);
        let moving = legs.iter().rev().find(|l| l.speed_mps > 0.0).unwrap();
        assert_eq!(moving.target, target);
        assert!(
            moving.end.abs_diff(t) <= 1_000,
            "node {node}: {} vs {t}",
            moving.end
        );
        assert!(m.position(node, t + NS_PER_S).distance(&target) < 1e-5);
        stops += 1;
    }
    assert!(stops >= 5, "only {stops} stops in the fixture");
    assert!((m.max_speed_mps() - 9.686057086731).abs() < 1e-12);
}

#[test]
fn a_real_setdest_v2_file_is_read_too() {
    let file = fixtures().join("setdest_5n_v2.tcl").display().to_string();
    let nodes = ns2::read(&file, 5, &area(500.0, 500.0)).unwrap_or_else(|e| panic!("{e}"));
    let mut m = Mobility::from_nodes(nodes.into_iter().map(NodeMobility::Trajectory).collect());
    assert_eq!(m.position(0, 0), Pos::new(7.961021772561, 14.388407229630));
    assert!(m.max_speed_mps() > 0.0 && m.max_speed_mps() <= 10.0);
}

#[test]
fn a_bonnmotion_scenario_is_read_by_stem_or_movements_name() {
    for name in ["bonnmotion_3n", "bonnmotion_3n.movements.gz"] {
        let file = fixtures().join(name).display().to_string();
        let nodes =
            bonnmotion::read(&file, 3, &area(500.0, 500.0)).unwrap_or_else(|e| panic!("{e}"));
        let mut m = Mobility::from_nodes(nodes.into_iter().map(NodeMobility::Trajectory).collect());
        // Node 0: (10, 20) at 0 s → (110, 20) at 10 s, then stays.
        assert_eq!(m.position(0, 0), Pos::new(10.0, 20.0));
        assert_eq!(m.position(0, 5 * NS_PER_S), Pos::new(60.0, 20.0));
        assert_eq!(m.position(0, 50 * NS_PER_S), Pos::new(110.0, 20.0));
        assert_eq!(m.position(1, 50 * NS_PER_S), Pos::new(100.0, 100.0));
        // Node 2: (300, 400) → (300, 100) over 50 s.
        let p = m.position(2, 25 * NS_PER_S);
        assert!((p.y - 250.0).abs() < 1e-9, "{p:?}");
        assert_eq!(m.max_speed_mps(), 10.0);
    }
    // Too small an area for the file.
    let file = fixtures().join("bonnmotion_3n").display().to_string();
    let e = bonnmotion::read(&file, 3, &area(400.0, 500.0)).unwrap_err();
    assert!(
        e.to_string()
            .contains("x=500.0 m but the scenario's area.width_m = 400.0"),
        "{e}"
    );
}

/// (file in bad_mobility/, the file the error must name, its line, a fragment).
const BAD: &[(&str, &str, Option<usize>, &str)] = &[
    (
        "ns2_unknown_statement.tcl",
        "ns2_unknown_statement.tcl",
        Some(11),
        "unknown statement \"set\"",
    ),
    (
        "ns2_node_out_of_range.tcl",
        "ns2_node_out_of_range.tcl",
        Some(11),
        "node 7 does not exist (nodes.count = 3",
    ),
    (
        "ns2_bad_number.tcl",
        "ns2_bad_number.tcl",
        Some(5),
        "expected a number for the coordinate, got \"abc\"",
    ),
    (
        "ns2_missing_quotes.tcl",
        "ns2_missing_quotes.tcl",
        Some(11),
        "expected the scheduled command in double quotes",
    ),
    (
        "ns2_negative_time.tcl",
        "ns2_negative_time.tcl",
        Some(11),
        "times must be ≥ 0",
    ),
    (
        "ns2_negative_speed.tcl",
        "ns2_negative_speed.tcl",
        Some(11),
        "speed -3 is negative (expected a speed ≥ 0",
    ),
    (
        "ns2_outside_area.tcl",
        "ns2_outside_area.tcl",
        Some(11),
        "destination x 900.0 is outside the area",
    ),
    (
        "ns2_missing_node.tcl",
        "ns2_missing_node.tcl",
        None,
        "have no initial position (node 2)",
    ),
    (
        "ns2_duplicate_x.tcl",
        "ns2_duplicate_x.tcl",
        Some(11),
        "given twice (first on line 5)",
    ),
    (
        "ns2_nonzero_z.tcl",
        "ns2_nonzero_z.tcl",
        Some(10),
        "manetsim is 2-D (expected $node_(2) set Z_ 0)",
    ),
    (
        "ns2_wrong_variable.tcl",
        "ns2_wrong_variable.tcl",
        Some(11),
        "expected X_, Y_ or Z_ after `set`, got \"W_\"",
    ),
    (
        "ns2_missing_speed.tcl",
        "ns2_missing_speed.tcl",
        Some(11),
        "missing the speed",
    ),
    (
        "ns2_trailing_token.tcl",
        "ns2_trailing_token.tcl",
        Some(3),
        "unexpected \"30.0\"",
    ),
    (
        "ns2_bad_node_id.tcl",
        "ns2_bad_node_id.tcl",
        Some(11),
        "expected a node id",
    ),
    (
        "ns2_scheduled_set.tcl",
        "ns2_scheduled_set.tcl",
        Some(11),
        "expected `setdest` in the scheduled command, got \"set\"",
    ),
    (
        "ns2_god_short.tcl",
        "ns2_god_short.tcl",
        Some(11),
        "expected an integer for D",
    ),
    (
        "ns2_unclosed_node.tcl",
        "ns2_unclosed_node.tcl",
        Some(11),
        "is not closed",
    ),
    (
        "ns2_bad_time.tcl",
        "ns2_bad_time.tcl",
        Some(11),
        "expected a time in seconds after `at`, got \"soon\"",
    ),
    (
        "bm_odd_count",
        "bm_odd_count.movements",
        Some(1),
        "5 numbers is not a whole number of waypoints",
    ),
    (
        "bm_time_backwards",
        "bm_time_backwards.movements",
        Some(1),
        "before the previous waypoint's",
    ),
    (
        "bm_teleport",
        "bm_teleport.movements",
        Some(2),
        "cannot jump",
    ),
    (
        "bm_too_many_lines",
        "bm_too_many_lines.movements",
        Some(4),
        "a waypoint line for node 3 but nodes.count = 3",
    ),
    (
        "bm_too_few_lines.movements",
        "bm_too_few_lines.movements",
        None,
        "2 node lines but nodes.count = 3",
    ),
    (
        "bm_nn_mismatch",
        "bm_nn_mismatch.params",
        Some(7),
        "nn=4 nodes but nodes.count = 3",
    ),
    (
        "bm_area_too_big",
        "bm_area_too_big.params",
        Some(4),
        "x=1600.0 m but the scenario's area.width_m = 500.0",
    ),
    (
        "bm_3d",
        "bm_3d.params",
        Some(9),
        "manetsim is 2-D (expected J=2D",
    ),
    (
        "bm_bad_number.movements.gz",
        "bm_bad_number.movements.gz",
        Some(2),
        "expected a number for x, got \"abc\"",
    ),
    (
        "bm_corrupt_gzip",
        "bm_corrupt_gzip.movements.gz",
        None,
        "cannot be decompressed",
    ),
    (
        "bm_outside_area",
        "bm_outside_area.movements",
        Some(2),
        "y = 700.0 is outside the area",
    ),
    (
        "bm_missing_params",
        "bm_missing_params.params",
        None,
        "cannot read the BonnMotion parameters file",
    ),
    (
        "bm_params_not_key_value",
        "bm_params_not_key_value.params",
        Some(8),
        "expected key=value",
    ),
];

fn read_bad(name: &str) -> Result<(), MobilityError> {
    let path = fixtures()
        .join("bad_mobility")
        .join(name)
        .display()
        .to_string();
    let a = area(500.0, 500.0);
    if name.starts_with("ns2_") {
        ns2::read(&path, 3, &a).map(|_| ())
    } else {
        bonnmotion::read(&path, 3, &a).map(|_| ())
    }
}

#[test]
fn every_malformed_movement_file_is_refused_clearly() {
    assert!(BAD.len() >= 15);
    for &(name, named, line, fragment) in BAD {
        let e = match read_bad(name) {
            Ok(()) => panic!("{name} was accepted"),
            Err(e) => e,
        };
        let shown = e.to_string();
        eprintln!("{shown}");
        assert!(!shown.contains('\n'), "{name}: multi-line error: {shown}");
        assert!(
            e.file.ends_with(named),
            "{name}: error names {} not {named}",
            e.file
        );
        assert_eq!(e.line, line, "{name}: {shown}");
        if let Some(l) = line {
            assert!(shown.contains(&format!("{named}:{l}: ")), "{name}: {shown}");
        }
        assert!(
            shown.contains(fragment),
            "{name}: expected {fragment:?} in: {shown}"
        );
    }
}

#[test]
fn every_file_in_the_corpus_is_in_the_table() {
    let dir = fixtures().join("bad_mobility");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let stem = name
            .trim_end_matches(".gz")
            .trim_end_matches(".movements")
            .trim_end_matches(".params")
            .trim_end_matches(".tcl");
        assert!(
            BAD.iter().any(|(file, ..)| file.starts_with(stem)),
            "{name} is not in the table of expected errors"
        );
    }
}

#[test]
fn mangled_files_never_panic() {
    // Every prefix and a few byte flips of a real file: errors, never panics.
    let text = std::fs::read_to_string(fixtures().join("setdest_5n.tcl")).unwrap();
    let a = area(500.0, 500.0);
    for cut in (0..text.len()).step_by(7) {
        if text.is_char_boundary(cut) {
            let _ = ns2::parse(&text[..cut], "cut.tcl", 5, &a);
            let _ = bonnmotion::parse_movements(&text[..cut], "cut.movements", 5, &a);
        }
    }
    let bytes = text.as_bytes();
    for k in (0..bytes.len()).step_by(13) {
        let mut b = bytes.to_vec();
        b[k] = b"\"$() x_-.e9"[k % 11];
        if let Ok(t) = String::from_utf8(b) {
            let _ = ns2::parse(&t, "flip.tcl", 5, &a);
        }
    }
}
