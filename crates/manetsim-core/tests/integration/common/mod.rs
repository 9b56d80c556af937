//! Helpers shared by the integration tests: scenario builders and
//! analytical models.

pub mod bianchi;

use manetsim_core::scenario::{Flow, MobilityModel, Move, Placement, RoutingProtocol, Scenario};
use manetsim_core::RunResult;

/// A scenario with every default, static routing and no flows.
pub fn base(duration_s: f64, seed: u64) -> Scenario {
    let mut s: Scenario = toml::from_str("").expect("the empty scenario parses");
    s.name = "test".into();
    s.duration_s = duration_s;
    s.seed = seed;
    s.routing.protocol = RoutingProtocol::Static;
    s
}

/// A UDP CBR flow.
pub fn cbr(src: u32, dst: u32, bytes: u32, rate_bps: f64, start_s: f64, stop_s: f64) -> Flow {
    let mut f: Flow = toml::from_str(&format!("src = {src}\ndst = {dst}")).expect("flow parses");
    f.packet_size_bytes = bytes;
    f.rate_bps = Some(rate_bps);
    f.start_s = start_s;
    f.stop_s = Some(stop_s);
    f
}

/// Explicit placement.
pub fn place(s: &mut Scenario, positions: Vec<[f64; 2]>) {
    s.nodes.count = positions.len() as u32;
    s.nodes.placement = Placement::Explicit;
    s.nodes.positions = Some(positions);
}

/// Packets delivered over packets sent, for flow `i`.
pub fn delivery(r: &RunResult, i: usize) -> f64 {
    r.flows[i].received as f64 / r.flows[i].sent as f64
}

/// Routing packets sent of message type `m` ("rreq", "hello", …).
pub fn messages(r: &RunResult, m: &str) -> u64 {
    r.routing.by_message.get(m).map_or(0, |c| c.packets)
}

/// The 6-node chain the routing tests share: nodes 200 m apart on a line.
pub fn chain6_topology(s: &mut Scenario) {
    place(s, (0..6).map(|i| [200.0 * i as f64, 0.0]).collect());
    s.area.width_m = 1000.0;
    s.area.height_m = 10.0;
}

/// The 5 x 5 grid the routing tests share: nodes 200 m apart, node `i` in
/// column `i % 5` and row `i / 5`.
pub fn grid5x5_topology(s: &mut Scenario) {
    place(
        s,
        (0..25)
            .map(|i| [200.0 * (i % 5) as f64, 200.0 * (i / 5) as f64])
            .collect(),
    );
    s.area.width_m = 800.0;
    s.area.height_m = 800.0;
}

/// The grid's two crossing flows, corner to opposite corner, 8 hops each:
/// 0 to 24 from 1 s and 4 to 20 from 1.5 s, 512-byte CBR at `rate_bps`,
/// until `stop_s`.
pub fn grid5x5_crossing_flows(s: &mut Scenario, rate_bps: f64, stop_s: f64) {
    s.flows.push(cbr(0, 24, 512, rate_bps, 1.0, stop_s));
    s.flows.push(cbr(4, 20, 512, rate_bps, 1.5, stop_s));
}

/// Prints each flow's figures and the routing and drop counts; asserts that
/// both crossing flows deliver over 90 % of their packets over at least
/// the 8 hops of the shortest path.
pub fn assert_crossing_flows_delivered(r: &RunResult) {
    for (i, f) in r.flows.iter().enumerate() {
        println!(
            "flow {i}: sent {} received {} hops {:.2} delay {:.1} ms",
            f.sent, f.received, f.hops_mean, f.delay_ms
        );
    }
    println!("routing {:?} drops {:?}", r.routing.by_message, r.drops);
    for i in 0..2 {
        assert!(delivery(r, i) > 0.9, "flow {i}: {}", delivery(r, i));
        assert!(r.flows[i].hops_mean >= 8.0, "flow {i}: shortest is 8 hops");
    }
}

/// The detour topology the routing tests share: 0 - 1 - 2 in a line 200 m
/// apart, with a detour 0 - 3 - 4 - 2 below; relay 1 walks away at
/// `leave_s` (never, if None) at 20 m/s, far out of range.
pub fn detour_topology(s: &mut Scenario, leave_s: Option<f64>) {
    place(
        s,
        vec![
            [0.0, 300.0],
            [200.0, 300.0],
            [400.0, 300.0],
            [100.0, 100.0],
            [300.0, 100.0],
        ],
    );
    s.area.width_m = 400.0;
    s.area.height_m = 3000.0;
    if let Some(at_s) = leave_s {
        script(s, &[(1, at_s, [200.0, 3000.0], 20.0)]);
    }
}

/// Scripted mobility: each `(node, at_s, to, speed_mps)` sends `node`
/// from where it is at `at_s` straight to `to` at `speed_mps`.
pub fn script(s: &mut Scenario, moves: &[(u32, f64, [f64; 2], f64)]) {
    s.mobility.model = MobilityModel::Waypoints;
    s.mobility.moves = moves
        .iter()
        .map(|&(node, at_s, to, speed_mps)| Move {
            node,
            at_s,
            to,
            speed_mps,
        })
        .collect();
}

/// Runs and checks the invariants every run must keep.
pub fn run_checked(s: &Scenario) -> RunResult {
    let r = manetsim_core::run(s).expect("the run succeeds");
    assert!(
        r.ledger.balanced,
        "the packet ledger must balance: {:?}",
        r.ledger
    );
    r
}

/// Aggregate application goodput (bit/s) over a measurement window.
pub fn aggregate_goodput_bps(r: &RunResult, window_s: f64) -> f64 {
    r.flows
        .iter()
        .map(|f| f.received_bytes as f64 * 8.0)
        .sum::<f64>()
        / window_s
}
