//! AOMDV end to end: the 5-hop chain; fail-over to a second path when a
//! relay walks away, on a two-path ring and on a 3x3 grid, each against
//! AODV in the same scenario, and on the ring with ns-2.35's HELLO link
//! detection; and a 5x5 grid with two crossing flows.
//! Every run's ledger must balance.

use crate::common::*;
use manetsim_core::scenario::{RoutingProtocol, Scenario};
use manetsim_core::RunResult;

const CBR_BPS: f64 = 4.0 * 512.0 * 8.0;

fn scenario(protocol: RoutingProtocol, duration_s: f64, seed: u64) -> Scenario {
    let mut s = base(duration_s, seed);
    s.routing.protocol = protocol;
    s
}

fn chain6(seed: u64) -> RunResult {
    let mut s = scenario(RoutingProtocol::Aomdv, 100.0, seed);
    chain6_topology(&mut s);
    s.flows.push(cbr(0, 5, 512, CBR_BPS, 1.0, 99.0));
    run_checked(&s)
}

#[test]
fn a_six_node_chain_finds_the_five_hop_route_and_delivers_cbr() {
    for seed in 1..=3 {
        let r = chain6(seed);
        let f = &r.flows[0];
        println!(
            "seed {seed}: sent {} received {} delay {:.2} ms routing {} {:?} drops {:?}",
            f.sent, f.received, f.delay_ms, r.routing.packets_sent, r.routing.by_message, r.drops
        );
        assert_eq!(r.routing.protocol, "aomdv");
        assert_eq!(f.hops_mean, 5.0);
        assert!(delivery(&r, 0) > 0.95, "delivery {}", delivery(&r, 0));
        assert!(messages(&r, "rreq") > 0 && messages(&r, "rrep") > 0);
    }
}

/// Two disjoint paths from 0 to 2: 0-1-2 above (2 hops) and 0-3-4-2 below
/// (3 hops); 1 is out of range of 3 and 4. Relay 1 walks away upwards at
/// `leave_s` (never, if None); 0 sends CBR to 2 from 1 s.
fn ring(protocol: RoutingProtocol, leave_s: Option<f64>, seed: u64) -> RunResult {
    run_checked(&ring_scenario(protocol, leave_s, seed))
}

fn ring_scenario(protocol: RoutingProtocol, leave_s: Option<f64>, seed: u64) -> Scenario {
    let mut s = scenario(protocol, 40.0, seed);
    place(
        &mut s,
        vec![
            [0.0, 300.0],
            [200.0, 420.0],
            [400.0, 300.0],
            [130.0, 120.0],
            [270.0, 120.0],
        ],
    );
    s.area.width_m = 400.0;
    s.area.height_m = 3000.0;
    if let Some(at_s) = leave_s {
        script(&mut s, &[(1, at_s, [200.0, 3000.0], 50.0)]);
    }
    s.flows.push(cbr(0, 2, 512, CBR_BPS, 1.0, 39.0));
    s
}

/// The ring over AOMDV with `options`.
fn ring_aomdv(
    options: &manetsim_core::scenario::AomdvOptions,
    leave_s: Option<f64>,
    seed: u64,
) -> RunResult {
    let mut s = ring_scenario(RoutingProtocol::Aomdv, leave_s, seed);
    s.routing.aomdv = Some(options.clone());
    run_checked(&s)
}

fn hops_after(r: &RunResult, t_s: f64) -> Vec<u16> {
    let h = &r.timeseries.hops;
    h.t_s
        .iter()
        .zip(&h.hops)
        .filter(|(t, _)| **t > t_s)
        .map(|(_, h)| *h)
        .collect()
}

#[test]
fn a_relay_walking_away_is_survived_by_fail_over_with_fewer_rreqs_than_aodv() {
    for seed in 1..=3 {
        let still = ring(RoutingProtocol::Aomdv, None, seed);
        let moving = ring(RoutingProtocol::Aomdv, Some(3.0), seed);
        let aodv = ring(RoutingProtocol::Aodv, Some(3.0), seed);
        let f = &moving.flows[0];
        println!(
            "seed {seed}: AOMDV still {:?}\n  AOMDV moving: sent {} received {} routing {:?} drops {:?}\n  AODV moving: received {} routing {:?} drops {:?}",
            still.routing.by_message,
            f.sent,
            f.received,
            moving.routing.by_message,
            moving.drops,
            aodv.flows[0].received,
            aodv.routing.by_message,
            aodv.drops
        );
        assert_eq!(still.flows[0].hops_mean, 2.0, "the short path first");
        assert!(delivery(&still, 0) > 0.97);
        // The break is survived on the lower path without a new discovery:
        // no RREQ beyond the first discovery's, and no RERR (a path was left).
        assert_eq!(messages(&moving, "rreq"), messages(&still, "rreq"));
        assert_eq!(messages(&moving, "rerr"), 0);
        let late = hops_after(&moving, 10.0);
        assert!(late.len() > 100, "{} packets after 10 s", late.len());
        assert!(late.iter().all(|&h| h == 3), "{late:?}");
        assert!(f.route_changes >= 1);
        assert!(
            delivery(&moving, 0) > 0.95,
            "delivery {}",
            delivery(&moving, 0)
        );
        // AODV, in the same scenario, has to discover again.
        assert!(messages(&aodv, "rerr") > 0);
        assert!(
            messages(&moving, "rreq") < messages(&aodv, "rreq"),
            "AOMDV {} RREQs, AODV {}",
            messages(&moving, "rreq"),
            messages(&aodv, "rreq")
        );
    }
}

#[test]
fn with_ns2s_hellos_a_relay_walking_away_is_noticed_by_missed_hellos_then_failed_over() {
    use manetsim_core::scenario::{AodvLinkDetection, AomdvOptions};
    for seed in 1..=3 {
        let options = AomdvOptions {
            link_detection: AodvLinkDetection::Hello,
            ..AomdvOptions::default()
        };
        let run = |leave_s| ring_aomdv(&options, leave_s, seed);
        let still = run(None);
        let moving = run(Some(3.0));
        let f = &moving.flows[0];
        println!(
            "seed {seed}: still {:?} hops {} delivery {:.3}; moving {:?} delivery {:.3} drops {:?}",
            still.routing.by_message,
            still.flows[0].hops_mean,
            delivery(&still, 0),
            moving.routing.by_message,
            delivery(&moving, 0),
            moving.drops
        );
        // Five nodes, each about one HELLO a second once it has a route.
        let hellos = messages(&still, "hello");
        assert!((150..=210).contains(&hellos), "{hellos} HELLOs");
        assert!(delivery(&still, 0) > 0.97);
        // The MAC's failures do not break the link: the packets sent to 1
        // after it left are lost until its HELLOs are missed (4.5 s, then
        // the next whole-second purge tick), and then every packet takes
        // the lower path, found by the first discovery.
        let late = hops_after(&moving, 9.5);
        assert!(late.len() > 100, "{} packets after 9.5 s", late.len());
        assert!(late.iter().all(|&h| h == 3), "{late:?}");
        let lost = f.sent - f.received;
        assert!(lost <= 7 * 4, "{lost} packets lost");
        if still.flows[0].hops_mean < 2.5 {
            // The upper path first: 4 packets a second fail at the MAC from
            // about 3.3 s to the purge tick that finds 1 lost.
            assert!(lost >= 4 * 4, "{lost} packets lost");
            assert_eq!(messages(&moving, "rreq"), messages(&still, "rreq"));
        }
    }
}

#[test]
fn node_disjoint_paths_as_ns2_keeps_them_fail_over_just_as_well_on_the_ring() {
    use manetsim_core::scenario::{AomdvDisjoint, AomdvOptions};
    for seed in 1..=3 {
        let options = AomdvOptions {
            disjoint: AomdvDisjoint::Node,
            ..AomdvOptions::default()
        };
        let run = |leave_s| ring_aomdv(&options, leave_s, seed);
        let still = run(None);
        let moving = run(Some(3.0));
        println!(
            "seed {seed}: still {:?}; moving {:?} delivery {:.3}",
            still.routing.by_message,
            moving.routing.by_message,
            delivery(&moving, 0)
        );
        // The upper and lower paths share no relay: both are kept, and the
        // break is survived on the lower one without a new discovery.
        assert_eq!(still.flows[0].hops_mean, 2.0, "the short path first");
        assert_eq!(messages(&moving, "rreq"), messages(&still, "rreq"));
        let late = hops_after(&moving, 10.0);
        assert!(late.len() > 100, "{} packets after 10 s", late.len());
        assert!(late.iter().all(|&h| h == 3), "{late:?}");
        assert!(delivery(&moving, 0) > 0.95);
    }
}

#[test]
fn a_five_by_five_grid_carries_two_crossing_flows() {
    let mut s = scenario(RoutingProtocol::Aomdv, 60.0, 3);
    grid5x5_topology(&mut s);
    grid5x5_crossing_flows(&mut s, CBR_BPS, 59.0);
    let r = run_checked(&s);
    assert_crossing_flows_delivered(&r);
    for i in 0..2 {
        assert!(
            r.flows[i].hops_mean <= 9.0,
            "flow {i}: at most 1 hop longer"
        );
    }
}

/// A 3x3 grid 200 m apart; 0 sends to the centre 4 over 0-1-4 or 0-3-4
/// (two disjoint 2-hop paths). Relay 1 walks away at 3 s (never, if None).
/// A grid is bipartite, so AOMDV's alternates there have the primary's
/// length, and which of the two is primary is decided by the RREQ jitter.
fn grid3(protocol: RoutingProtocol, leave: bool, seed: u64) -> RunResult {
    let mut s = scenario(protocol, 40.0, seed);
    place(
        &mut s,
        (0..9)
            .map(|i| [200.0 * (i % 3) as f64, 2600.0 + 200.0 * (i / 3) as f64])
            .collect(),
    );
    s.area.width_m = 400.0;
    s.area.height_m = 3000.0;
    if leave {
        script(&mut s, &[(1, 3.0, [200.0, 0.0], 50.0)]);
    }
    s.flows.push(cbr(0, 4, 512, CBR_BPS, 1.0, 39.0));
    run_checked(&s)
}

#[test]
fn on_a_grid_aomdv_never_rediscovers_when_one_of_its_paths_walks_away() {
    let (mut aomdv_rreqs, mut aodv_rreqs, mut failovers, mut aodv_breaks) = (0, 0, 0, 0);
    for seed in 1..=6 {
        let still = grid3(RoutingProtocol::Aomdv, false, seed);
        let moving = grid3(RoutingProtocol::Aomdv, true, seed);
        let aodv = grid3(RoutingProtocol::Aodv, true, seed);
        println!(
            "seed {seed}: AOMDV rreq {} -> {}, rerr {}, route changes {}, delivery {:.3}; AODV rreq {} rerr {} delivery {:.3}",
            messages(&still, "rreq"),
            messages(&moving, "rreq"),
            messages(&moving, "rerr"),
            moving.flows[0].route_changes,
            delivery(&moving, 0),
            messages(&aodv, "rreq"),
            messages(&aodv, "rerr"),
            delivery(&aodv, 0)
        );
        // Whichever path was primary, no new discovery. (Relay 1 may still
        // send a RERR when its own link to 4 breaks first: it has no other
        // path; the source, with two, ignores it and keeps the one left.)
        assert_eq!(messages(&moving, "rreq"), messages(&still, "rreq"));
        assert!(messages(&moving, "rerr") <= 1);
        assert!(delivery(&moving, 0) > 0.95);
        assert_eq!(moving.flows[0].hops_mean, 2.0);
        failovers += (moving.flows[0].route_changes > 0) as u32;
        aodv_breaks += (messages(&aodv, "rerr") > 0) as u32;
        aomdv_rreqs += messages(&moving, "rreq");
        aodv_rreqs += messages(&aodv, "rreq");
    }
    println!("fail-overs {failovers}, AODV breaks {aodv_breaks}");
    assert!(failovers >= 1, "1 was AOMDV's primary relay in some seed");
    assert!(aodv_breaks >= 1);
    assert!(
        aomdv_rreqs < aodv_rreqs,
        "AOMDV {aomdv_rreqs}, AODV {aodv_rreqs}"
    );
}

/// One discovery for one flow on a static chain; fail-over on the ring
/// needs no second one.
#[test]
fn route_discoveries_count_first_requests_only() {
    for seed in 1..=3 {
        assert_eq!(chain6(seed).routing.route_discoveries, 1, "seed {seed}");
        let aomdv = ring(RoutingProtocol::Aomdv, Some(3.0), seed);
        let still = ring(RoutingProtocol::Aomdv, None, seed);
        assert_eq!(
            aomdv.routing.route_discoveries,
            still.routing.route_discoveries
        );
    }
}
