//! Mobility inside the simulation: the channel sees nodes where their
//! trajectories put them, and trajectories depend only on the mobility config.

use crate::common::*;
use manetsim_core::scenario::MobilityModel;

/// Node 1 starts 100 m from node 0, leaves at 5 s at 50 m/s for (3000, 0),
/// and comes back at 70 s. Node 0 sends 4 packets/s to node 1 throughout.
fn away_and_back(seed: u64) -> manetsim_core::RunResult {
    let mut s = base(140.0, seed);
    place(&mut s, vec![[0.0, 0.0], [100.0, 0.0]]);
    s.area.width_m = 3100.0;
    s.area.height_m = 100.0;
    script(
        &mut s,
        &[(1, 5.0, [3000.0, 0.0], 50.0), (1, 70.0, [100.0, 0.0], 50.0)],
    );
    s.flows.push(cbr(0, 1, 512, 4.0 * 512.0 * 8.0, 1.0, 140.0));
    run_checked(&s)
}

#[test]
fn a_node_that_leaves_range_is_lost_and_found_again_when_it_returns() {
    let r = away_and_back(1);
    let f = &r.flows[0];
    // In range from 1 s until 8 s (250 m at 50 m/s after 5 s) and again from
    // 125 s (70 s + 2750 m / 50 m/s) to 140 s: about 28 + 60 packets.
    println!(
        "sent {}, received {}, drops {:?}",
        f.sent, f.received, r.drops
    );
    assert!((75..=100).contains(&f.received), "received {}", f.received);
    assert!(r.drops["retry_limit"] > 0);
    assert!(r.mac.link_failures > 0);
    // The mobility series sees the link go down and come back up.
    let ts = &r.timeseries.mobility;
    assert_eq!(ts.t_s.len(), 141);
    assert_eq!(ts.links_down.iter().sum::<u64>(), 1);
    assert_eq!(ts.links_up.iter().sum::<u64>(), 1);
    assert_eq!(r.mobility.link_changes, 2);
    // Node 1 moves at 50 m/s during [5, 63) and [70, 128): mean speed over
    // the two nodes at those samples is 25 m/s.
    assert_eq!(ts.mean_speed_mps[10], 25.0);
    assert_eq!(ts.mean_speed_mps[65], 0.0);
}

#[test]
fn trajectories_do_not_depend_on_traffic() {
    let mut s = base(60.0, 9);
    s.nodes.count = 30;
    s.area.width_m = 1000.0;
    s.area.height_m = 1000.0;
    s.nodes.placement = manetsim_core::scenario::Placement::Uniform;
    s.mobility.model = MobilityModel::RandomWaypoint;
    s.mobility.min_speed_mps = 1.0;
    s.mobility.max_speed_mps = 20.0;
    s.mobility.pause_s = 2.0;
    let quiet = run_checked(&s);
    s.flows.push(cbr(0, 7, 512, 200_000.0, 1.0, 60.0));
    s.flows.push(cbr(3, 12, 1000, 500_000.0, 2.0, 60.0));
    let busy = run_checked(&s);
    assert!(busy.mac.frames_sent > 0);
    assert_eq!(quiet.timeseries.mobility, busy.timeseries.mobility);
    assert!(quiet.mobility.link_changes > 0, "nodes do move");
}
