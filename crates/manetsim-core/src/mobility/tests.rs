//! Tests of the [`Mobility`] set built from scenarios: every model, the ns-2
//! round trip, the steady-state mean speed, independence from everything
//! but (seed, node, mobility config), and the warnings.

use super::*;
use crate::engine::{to_secs, NS_PER_S};
use crate::scenario::{load_str, RoutingProtocol};

const S: SimTime = NS_PER_S;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn scenario(mobility: &str, nodes: &str) -> Scenario {
    let text = format!(
        r#"name = "m"
duration_s = 900.0
seed = 11

[area]
width_m = 1500.0
height_m = 300.0

[nodes]
{nodes}

[mobility]
{mobility}

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 1
rate_bps = 8000.0
"#
    );
    load_str(&text, "mem.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Random waypoint, 1–20 m/s, pause 10 s unless `extra` sets `pause_s`.
fn rwp(extra: &str, count: u32) -> Scenario {
    let pause = if extra.contains("pause_s") {
        ""
    } else {
        "pause_s = 10.0\n"
    };
    scenario(
        &format!("model = \"random_waypoint\"\nmin_speed_mps = 1.0\nmax_speed_mps = 20.0\n{pause}{extra}"),
        &format!("count = {count}"),
    )
}

fn chain(n: u32, spacing: f64) -> Vec<Pos> {
    (0..n)
        .map(|i| Pos::new(f64::from(i) * spacing, 0.0))
        .collect()
}

/// Positions of every node at `times`, queried in time order.
fn sample(m: &mut Mobility, times: &[SimTime]) -> Vec<Vec<Pos>> {
    times
        .iter()
        .map(|&t| (0..m.len() as u32).map(|i| m.position(i, t)).collect())
        .collect()
}

fn many_times(until_s: u64) -> Vec<SimTime> {
    // Every 0.37 s plus odd nanoseconds, to land inside legs and pauses.
    (0..until_s * 100 / 37)
        .map(|k| k * 370_000_000 + (k * 7919) % 1000)
        .collect()
}

#[test]
fn static_nodes_stay_at_their_placement() {
    let s = scenario("model = \"static\"", "count = 3\nspacing_m = 200.0");
    let mut m = Mobility::from_scenario(&s, &chain(3, 200.0)).unwrap();
    assert!(m.is_static());
    assert_eq!(m.max_speed_mps(), 0.0);
    assert_eq!(m.position(2, 500 * S), Pos::new(400.0, 0.0));
    assert_eq!(m.initial_positions(), chain(3, 200.0));
    let e = Mobility::from_scenario(&s, &chain(2, 200.0)).unwrap_err();
    assert!(
        e.to_string()
            .contains("2 initial positions for nodes.count = 3"),
        "{e}"
    );
}

#[test]
fn scripted_moves_by_hand() {
    let s = scenario(
        r#"model = "waypoints"
[[mobility.moves]]
node = 2
at_s = 50.0
to = [400.0, 150.0]
speed_mps = 10.0
[[mobility.moves]]
node = 2
at_s = 250.0
to = [400.0, 0.0]
speed_mps = 10.0"#,
        "count = 4\nspacing_m = 200.0",
    );
    let mut m = Mobility::from_scenario(&s, &chain(4, 200.0)).unwrap();
    assert_eq!(m.max_speed_mps(), 10.0);
    assert!(!m.is_static());
    assert_eq!(m.position(2, 10 * S), Pos::new(400.0, 0.0));
    assert_eq!(m.position(2, 57 * S), Pos::new(400.0, 70.0));
    assert_eq!(m.position(2, 100 * S), Pos::new(400.0, 150.0));
    assert_eq!(m.position(2, 255 * S), Pos::new(400.0, 100.0));
    assert_eq!(m.position(2, 300 * S), Pos::new(400.0, 0.0));
    assert_eq!(m.speed_at(2, 255 * S), 10.0);
    assert_eq!(m.position(3, 300 * S), Pos::new(600.0, 0.0));
    assert!(
        scenario_warnings(&s).is_empty(),
        "{:?}",
        scenario_warnings(&s)
    );
}

#[test]
fn random_waypoint_ignores_the_placement_and_draws_its_own_start() {
    let s = rwp("", 5);
    let a = Mobility::from_scenario(&s, &[]).unwrap();
    let b = Mobility::from_scenario(&s, &chain(5, 10.0)).unwrap();
    assert_eq!(a.initial_positions(), b.initial_positions());
    assert_eq!(a.max_speed_mps(), 20.0);
    for p in a.initial_positions() {
        assert!((0.0..=1500.0).contains(&p.x) && (0.0..=300.0).contains(&p.y));
    }
    // Node i's start is the first two draws of its own stream.
    let mut rng = crate::engine::Rng::new(11, crate::engine::Stream::Mobility, 3);
    let x = rng.uniform() * 1500.0;
    let y = rng.uniform() * 300.0;
    assert_eq!(a.initial_positions()[3], Pos::new(x, y));
}

#[test]
fn a_fixed_node_stays_put_while_the_others_wander() {
    let free = rwp("", 5);
    let s = rwp("fixed = [{node = 2, position = [400.0, 150.0]}]", 5);
    let mut m = Mobility::from_scenario(&s, &[]).unwrap();
    let mut other = Mobility::from_scenario(&free, &[]).unwrap();
    let times = many_times(900);
    let (fixed, moving) = (sample(&mut m, &times), sample(&mut other, &times));
    for (at, free_at) in fixed.iter().zip(&moving) {
        assert_eq!(at[2], Pos::new(400.0, 150.0));
        // The others move as they would without it (their own streams).
        for n in [0, 1, 3, 4] {
            assert_eq!(at[n], free_at[n]);
        }
    }
    assert_ne!(moving[0][2], moving[moving.len() - 1][2]);
    // The ns-2 movement file carries it as a node that never moves.
    assert_round_trip(&s, &[]);
}

fn assert_round_trip(s: &Scenario, initial: &[Pos]) {
    let duration = from_secs(s.duration_s);
    let mut m = Mobility::from_scenario(s, initial).unwrap();
    let text = m.write_ns2(duration);
    assert!(text.starts_with("# ns-2 movement file written by manetsim"));
    let back =
        ns2::parse(&text, "written.tcl", s.nodes.count, &s.area).unwrap_or_else(|e| panic!("{e}"));
    let mut again = Mobility::from_nodes(back.into_iter().map(NodeMobility::Trajectory).collect());
    assert_eq!(again.initial_positions(), m.initial_positions());
    for node in 0..m.len() as u32 {
        assert_eq!(
            again.legs_until(node, duration),
            m.legs_until(node, duration),
            "node {node}"
        );
    }
    let times = many_times(900);
    assert_eq!(sample(&mut again, &times), sample(&mut m, &times));
    // And the written file is a fixed point.
    assert_eq!(
        again
            .write_ns2(duration)
            .lines()
            .skip(2)
            .collect::<Vec<_>>(),
        text.lines().skip(2).collect::<Vec<_>>()
    );
}

#[test]
fn ns2_round_trip_of_random_waypoint_is_exact() {
    assert_round_trip(&rwp("", 20), &[]);
    assert_round_trip(&rwp("steady_state = true", 20), &[]);
    assert_round_trip(&rwp("pause_s = 0.0", 10), &[]);
}

/// Three nodes 200 m apart; node 1 is redirected mid-leg (a takeover) and
/// node 0 crawls 1 m (too slow for the run: one warning).
fn scripted_takeover() -> Scenario {
    scenario(
        r#"model = "waypoints"
[[mobility.moves]]
node = 1
at_s = 10.0
to = [1400.0, 250.0]
speed_mps = 3.3
[[mobility.moves]]
node = 1
at_s = 60.123456789
to = [0.0, 299.0]
speed_mps = 17.0
[[mobility.moves]]
node = 0
at_s = 0.5
to = [1.0, 1.0]
speed_mps = 0.25"#,
        "count = 3\nspacing_m = 200.0",
    )
}

#[test]
fn ns2_round_trip_of_scripted_moves_with_a_takeover_is_exact() {
    let s = scripted_takeover();
    assert_eq!(
        scenario_warnings(&s).len(),
        1,
        "{:?}",
        scenario_warnings(&s)
    );
    assert_round_trip(&s, &chain(3, 200.0));
}

#[test]
fn ns2_round_trip_of_a_real_setdest_file_is_exact() {
    let file = fixtures().join("setdest_5n.tcl");
    let area = crate::scenario::Area {
        width_m: 500.0,
        height_m: 500.0,
    };
    let nodes = ns2::read(&file.display().to_string(), 5, &area).unwrap();
    let mut m = Mobility::from_nodes(nodes.into_iter().map(NodeMobility::Trajectory).collect());
    let text = m.write_ns2(60 * S);
    let back = ns2::parse(&text, "w.tcl", 5, &area).unwrap();
    let mut again = Mobility::from_nodes(back.into_iter().map(NodeMobility::Trajectory).collect());
    let times = many_times(60);
    assert_eq!(sample(&mut again, &times), sample(&mut m, &times));
}

/// Mean instantaneous speed over all nodes at `t`.
fn mean_speed(m: &mut Mobility, t: SimTime) -> f64 {
    metrics::average_speed_at(m, t)
}

#[test]
fn steady_state_mean_speed_matches_the_analytical_value() {
    // 20,000 nodes; the standard error of the mean is well under 1 %.
    for (extra, label) in [
        ("pause_s = 0.0\nsteady_state = true", "no pause"),
        ("steady_state = true", "pause 10 s"),
    ] {
        let s = rwp(extra, 20_000);
        let params = rwp_params(&s).unwrap();
        let expected = random_waypoint::stationary_mean_speed(&params);
        let mut m = Mobility::from_scenario(&s, &[]).unwrap();
        for t_s in [0, 150, 600] {
            let got = mean_speed(&mut m, t_s * S);
            let err = (got - expected) / expected;
            eprintln!(
                "steady state, {label}, t = {t_s} s: {got:.4} m/s vs {expected:.4} m/s ({:+.2} %)",
                100.0 * err
            );
            assert!(
                err.abs() < 0.02,
                "{label}, t = {t_s} s: mean speed {got:.4} vs analytical {expected:.4} ({:+.2} %)",
                100.0 * err
            );
        }
    }
    // Without pause the value is (vmax − vmin) / ln(vmax / vmin).
    let p = rwp_params(&rwp("pause_s = 0.0\nsteady_state = true", 2)).unwrap();
    assert!((random_waypoint::stationary_mean_speed(&p) - 19.0 / 20f64.ln()).abs() < 1e-12);
}

#[test]
fn uniform_start_is_not_stationary_but_steady_state_is() {
    // The classic transient: from uniform positions the mean speed starts
    // high (every node moving at the arithmetic-mean speed) and settles down.
    let s = rwp("pause_s = 0.0", 20_000);
    let mut m = Mobility::from_scenario(&s, &[]).unwrap();
    let at0 = mean_speed(&mut m, 0);
    let expected = random_waypoint::stationary_mean_speed(&rwp_params(&s).unwrap());
    assert!(at0 > 1.3 * expected, "{at0} vs {expected}");
}

#[test]
fn trajectories_depend_only_on_seed_node_and_mobility_config() {
    let s = rwp("", 30);
    let times = many_times(900);
    let mut a = Mobility::from_scenario(&s, &[]).unwrap();
    let reference = sample(&mut a, &times);

    let mut b = Mobility::from_scenario(&s, &[]).unwrap();
    assert_eq!(sample(&mut b, &times), reference);

    let mut other = s.clone();
    other.routing.protocol = RoutingProtocol::Aodv;
    other.flows[0].transport = crate::scenario::Transport::Tcp;
    other.flows[0].dst = 7;
    other.flows.push(other.flows[0].clone());
    other.radio.tx_power_w *= 2.0;
    other.mac.queue_packets = 5;
    other.name = "renamed".into();
    let mut c = Mobility::from_scenario(&other, &[]).unwrap();
    assert_eq!(sample(&mut c, &times), reference);

    // More nodes leave the first 30 untouched (each node has its own stream).
    let mut more = Mobility::from_scenario(&rwp("", 50), &[]).unwrap();
    let first30: Vec<Vec<Pos>> = sample(&mut more, &times)
        .into_iter()
        .map(|row| row[..30].to_vec())
        .collect();
    assert_eq!(first30, reference);

    // A different seed moves them differently.
    let mut reseeded = s.clone();
    reseeded.seed = 12;
    let mut d = Mobility::from_scenario(&reseeded, &[]).unwrap();
    assert_ne!(sample(&mut d, &times), reference);
}

#[test]
fn earlier_queries_agree_with_forward_ones() {
    let mut m = Mobility::from_scenario(&rwp("", 8), &[]).unwrap();
    let times = many_times(900);
    let forward = sample(&mut m, &times);
    for (k, &t) in times.iter().enumerate().rev().step_by(7) {
        for node in 0..8 {
            assert_eq!(
                m.position(node, t),
                forward[k][node as usize],
                "t = {}",
                to_secs(t)
            );
        }
    }
}

#[test]
fn positions_stay_inside_the_area_and_speeds_within_bounds() {
    let mut m = Mobility::from_scenario(&rwp("steady_state = true", 50), &[]).unwrap();
    for t in many_times(900) {
        for node in 0..50 {
            let p = m.position(node, t);
            assert!(
                (0.0..=1500.0).contains(&p.x) && (0.0..=300.0).contains(&p.y),
                "{p:?}"
            );
            let v = m.speed_at(node, t);
            assert!(v == 0.0 || (1.0..=20.0).contains(&v), "{v}");
        }
    }
}

#[test]
fn warnings_for_decaying_speed_and_short_runs() {
    let s = scenario(
        "model = \"random_waypoint\"\nmin_speed_mps = 0.0\nmax_speed_mps = 20.0",
        "count = 3",
    );
    let w = scenario_warnings(&s);
    assert!(w.iter().any(|w| w.contains("decays towards zero")), "{w:?}");
    let mut short = rwp("", 3);
    short.duration_s = 100.0;
    let w = scenario_warnings(&short);
    assert!(w.iter().any(|w| w.contains("steady_state = true")), "{w:?}");
    assert!(scenario_warnings(&rwp("steady_state = true", 3)).is_empty());
    let empty = scenario("model = \"waypoints\"", "count = 3");
    assert!(scenario_warnings(&empty)[0].contains("no [[mobility.moves]]"));
}

#[test]
fn file_models_resolve_their_path_beside_the_scenario() {
    let dir = fixtures();
    let text = r#"duration_s = 50.0
[area]
width_m = 500.0
height_m = 500.0
[nodes]
count = 5
[mobility]
model = "ns2"
file = "./setdest_5n.tcl"
[routing]
protocol = "static"
"#;
    let source = dir.join("virtual.toml").display().to_string();
    let s = load_str(text, &source, &[]).unwrap_or_else(|e| panic!("{e}"));
    let file = s.mobility.file.clone().unwrap();
    assert!(std::path::Path::new(&file).is_absolute(), "{file}");
    assert!(!file.contains("/./"), "{file}");
    assert!(file.ends_with("tests/fixtures/setdest_5n.tcl"), "{file}");
    let m = Mobility::from_scenario(&s, &[]).unwrap();
    assert_eq!(
        m.initial_positions()[0],
        Pos::new(360.762714417336, 328.800198596539)
    );
    assert_eq!(m.len(), 5);
    // The resolved path survives show-config.
    let shown = crate::scenario::to_toml_string(&s);
    assert!(shown.contains(&file), "{shown}");
}

fn example(name: &str) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    crate::scenario::load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The positions `[nodes] positions` places the nodes at.
fn placed(s: &Scenario) -> Vec<Pos> {
    let positions = s.nodes.positions.as_ref().expect("[nodes] positions");
    positions.iter().map(|p| Pos::new(p[0], p[1])).collect()
}

/// The scenario's movements from `placed`, which it loads without a warning.
fn without_warnings(s: &Scenario, placed: &[Pos]) -> Mobility {
    let warnings = scenario_warnings(s);
    assert!(warnings.is_empty(), "{warnings:?}");
    Mobility::from_scenario(s, placed).unwrap()
}

/// Hops from `from` to `to` over links of at most `range_m` (BFS).
fn hops(pos: &[Pos], from: usize, to: usize, range_m: f64) -> Option<usize> {
    let mut dist = vec![usize::MAX; pos.len()];
    let mut queue = std::collections::VecDeque::from([from]);
    dist[from] = 0;
    while let Some(a) = queue.pop_front() {
        for b in 0..pos.len() {
            if dist[b] == usize::MAX && pos[a].distance(&pos[b]) <= range_m {
                dist[b] = dist[a] + 1;
                queue.push_back(b);
            }
        }
    }
    (dist[to] != usize::MAX).then_some(dist[to])
}

#[test]
fn the_chain5p1_example_reproduces_the_papers_hop_counts() {
    // karlssonkassler Table 2: hops from the mobile node to the gateway.
    const TABLE_2: [(f64, usize); 31] = [
        (20.3, 2),
        (27.6, 1),
        (38.1, 2),
        (47.7, 3),
        (60.2, 2),
        (66.7, 1),
        (73.6, 2),
        (80.2, 3),
        (105.2, 2),
        (125.7, 1),
        (145.2, 2),
        (165.6, 3),
        (177.7, 2),
        (188.6, 1),
        (197.7, 2),
        (207.8, 3),
        (250.2, 2),
        (290.1, 1),
        (330.6, 2),
        (370.6, 3),
        (404.0, 2),
        (409.4, 1),
        (414.0, 2),
        (419.0, 3),
        (433.1, 2),
        (435.9, 1),
        (439.4, 2),
        (443.1, 3),
        (550.6, 2),
        (683.4, 1),
        (817.3, 2),
    ];
    let s = example("karlssonkassler_chain5p1.toml");
    let placed = placed(&s);
    let mut m = without_warnings(&s, &placed);
    for (t, expected) in TABLE_2 {
        let pos = metrics::positions_at(&mut m, from_secs(t));
        assert_eq!(
            hops(&pos, 5, 2, 250.0),
            Some(expected),
            "t = {t} s, node 5 at {:?}",
            pos[5]
        );
    }
    // Table 1's arrival times.
    for (t, x) in [
        (50.0, 800.0),
        (81.67, 0.0),
        (170.0, 800.0),
        (210.0, 0.0),
        (380.0, 800.0),
        (420.0, 0.0),
    ] {
        let p = m.position(5, from_secs(t));
        assert!((p.x - x).abs() < 1e-6, "t = {t}: {p:?}");
    }
    assert_eq!(m.max_speed_mps(), 60.0);
}

#[test]
fn the_oozothman_examples_move_as_their_comments_say() {
    let s = example("oozothman_chain_mobile.toml");
    let placed = placed(&s);
    let mut m = without_warnings(&s, &placed);
    assert_eq!(m.position(2, 200 * S), Pos::new(575.0, 800.0));
    assert_eq!(m.position(3, 200 * S), Pos::new(725.0, 200.0));
    assert_eq!(m.position(2, 280 * S), placed[2]);
    assert_eq!(m.position(3, 300 * S), placed[3]);
    // The chain is whole before 50 s and after 280 s, broken in between.
    let whole = |m: &mut Mobility, t| hops(&metrics::positions_at(m, t), 0, 5, 200.0);
    assert_eq!(whole(&mut m, 10 * S), Some(5));
    assert_eq!(whole(&mut m, 150 * S), None);
    assert_eq!(whole(&mut m, 300 * S), Some(5));

    let s = example("oozothman_grid_mobile.toml");
    let placed: Vec<Pos> = (0..25)
        .map(|i| Pos::new(f64::from(i % 5) * 150.0, f64::from(i / 5) * 150.0))
        .collect();
    let mut m = without_warnings(&s, &placed);
    assert_eq!(m.position(8, 100 * S), Pos::new(750.0, 150.0));
    assert_eq!(m.position(19, 150 * S), Pos::new(375.0, 450.0));
    for node in [8, 9, 18, 19] {
        assert_eq!(
            m.position(node, 300 * S),
            placed[node as usize],
            "node {node}"
        );
    }
}

/// Every leg's start and end, with a nanosecond either side, and some
/// times inside legs and pauses: where a cached leg could be taken past its
/// span.
fn leg_edges(m: &mut Mobility, until: SimTime) -> Vec<SimTime> {
    let mut times: Vec<SimTime> = many_times(to_secs(until) as u64);
    for node in 0..m.len() as u32 {
        for leg in m.legs_until(node, until) {
            for t in [leg.start, leg.end] {
                times.extend([t.saturating_sub(1), t, t + 1]);
            }
        }
    }
    times.sort_unstable();
    times
}

/// [`Mobility::position`] answers from each node's cached leg; the models
/// answer alone. Both must agree to the bit, forward and going back.
fn assert_cache_agrees(s: &Scenario, initial: &[Pos]) {
    let mut cached = Mobility::from_scenario(s, initial).unwrap();
    let mut alone = cached.nodes.clone();
    let times = leg_edges(&mut cached, 400 * S);
    let mut rng = crate::engine::Rng::new(5, crate::engine::Stream::Mobility, 99);
    for (k, &t) in times.iter().enumerate() {
        // Now and then a query back in time, as a tool might make.
        let t = if k % 97 == 0 {
            times[rng.below(k as u64 + 1) as usize]
        } else {
            t
        };
        for (node, model) in alone.iter_mut().enumerate() {
            let (got, want) = (cached.position(node as u32, t), model.position(t));
            assert_eq!(
                (got.x.to_bits(), got.y.to_bits()),
                (want.x.to_bits(), want.y.to_bits()),
                "node {node}, t = {t} ns"
            );
            // Every model's legs fit the cache: it now holds `t`.
            assert!(
                cached.hot[node].position(t).is_some(),
                "node {node}, t = {t} ns: not cached"
            );
        }
    }
}

#[test]
fn cached_legs_give_the_models_positions_to_the_bit() {
    assert_cache_agrees(&rwp("", 12), &[]);
    assert_cache_agrees(&rwp("pause_s = 0.0", 6), &[]);
    assert_cache_agrees(&rwp("steady_state = true", 6), &[]);
    assert_cache_agrees(&scripted_takeover(), &chain(3, 200.0));
    let still = scenario(r#"model = "static""#, "count = 3\nspacing_m = 200.0");
    assert_cache_agrees(&still, &chain(3, 200.0));
}

/// Reference point group mobility, 1–20 m/s, pause 10 s.
fn rpgm(extra: &str, count: u32) -> Scenario {
    scenario(
        &format!(
            "model = \"rpgm\"\nmin_speed_mps = 1.0\nmax_speed_mps = 20.0\npause_s = 10.0\n{extra}"
        ),
        &format!("count = {count}"),
    )
}

#[test]
fn group_mobility_round_trips_through_ns2_and_its_cache() {
    assert_round_trip(&rpgm("groups = 3\ngroup_radius_m = 50.0", 10), &[]);
    assert_cache_agrees(&rpgm("groups = 2", 7), &[]);
    let changing = "groups = 3\ngroup_radius_m = 80.0\ngroup_change_prob = 0.5";
    assert_round_trip(&rpgm(changing, 10), &[]);
    assert_cache_agrees(&rpgm(changing, 7), &[]);
}

#[test]
fn manhattan_round_trips_through_ns2_and_its_cache() {
    let streets = |extra: &str, count: u32| {
        scenario(
            &format!("model = \"manhattan\"\nmin_speed_mps = 1.0\nmax_speed_mps = 20.0\n{extra}"),
            &format!("count = {count}"),
        )
    };
    assert_round_trip(&streets("blocks_x = 6\nblocks_y = 2", 10), &[]);
    assert_cache_agrees(&streets("", 7), &[]);
    let stops = "update_m = 10.0\nspeed_change_prob = 0.3\npause_prob = 0.2\nmax_pause_s = 20.0";
    assert_round_trip(&streets(stops, 10), &[]);
    assert_cache_agrees(&streets(stops, 7), &[]);
}

#[test]
fn group_members_move_together_and_groups_apart() {
    let s = rpgm("groups = 2\ngroup_radius_m = 40.0", 8);
    let mut m = Mobility::from_scenario(&s, &[]).unwrap();
    assert!(m.max_speed_mps() <= 40.0 + 1e-9);
    let times = many_times(900);
    let at = sample(&mut m, &times);
    let (mut within, mut across) = (0.0_f64, 0.0_f64);
    for p in &at {
        for i in 0..8 {
            assert!((0.0..=1500.0).contains(&p[i].x) && (0.0..=300.0).contains(&p[i].y));
            for j in 0..i {
                let d = p[i].distance(&p[j]);
                if (i < 4) == (j < 4) {
                    within = within.max(d);
                } else {
                    across = across.max(d);
                }
            }
        }
    }
    // Two members of a group are never more than two radii apart; the two
    // groups wander over the 1,500 m strip apart from each other.
    assert!(within <= 80.0 + 1e-3, "{within}");
    assert!(across > 500.0, "{across}");
}
