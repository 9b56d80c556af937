//! AODV end to end: route discovery over several hops, repair after a relay
//! leaves, and a grid with crossing flows. Every run's ledger must balance.

use crate::common::*;
use manetsim_core::scenario::{
    AodvLinkDetection, AodvOptions, AodvPreset, RoutingProtocol, Scenario,
};
use manetsim_core::RunResult;

const CBR_BPS: f64 = 4.0 * 512.0 * 8.0;

fn aodv(duration_s: f64, seed: u64) -> Scenario {
    let mut s = base(duration_s, seed);
    s.routing.protocol = RoutingProtocol::Aodv;
    s
}

fn chain6(seed: u64) -> RunResult {
    let mut s = aodv(100.0, seed);
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
            "seed {seed}: sent {} received {} delay {:.1} ms routing {:?} drops {:?}",
            f.sent, f.received, f.delay_ms, r.routing.by_message, r.drops
        );
        assert_eq!(f.hops_mean, 5.0);
        assert!(delivery(&r, 0) > 0.95, "delivery {}", delivery(&r, 0));
        assert!(messages(&r, "rreq") > 0 && messages(&r, "rrep") > 0);
        assert_eq!(r.routing.protocol, "aodv");
    }
}

/// 0 - 1 - 2 in a line 200 m apart, with a detour 0 - 3 - 4 - 2 below.
/// Relay 1 walks away at `leave_s` (never, if None); 0 sends to 2.
fn detour(leave_s: Option<f64>, seed: u64) -> RunResult {
    let mut s = aodv(60.0, seed);
    detour_topology(&mut s, leave_s);
    s.flows.push(cbr(0, 2, 512, CBR_BPS, 1.0, 59.0));
    run_checked(&s)
}

#[test]
fn a_relay_walking_away_triggers_a_rerr_and_a_rediscovery_over_the_detour() {
    let still = detour(None, 1);
    let r = detour(Some(10.0), 1);
    let f = &r.flows[0];
    println!(
        "still: routing {:?}; moving: sent {} received {} routing {:?} drops {:?}",
        still.routing.by_message, f.sent, f.received, r.routing.by_message, r.drops
    );
    assert_eq!(still.flows[0].hops_mean, 2.0, "the short path first");
    assert!(delivery(&still, 0) > 0.97);
    assert!(messages(&r, "rerr") > 0, "the break is reported");
    assert!(
        messages(&r, "rreq") > messages(&still, "rreq"),
        "a new discovery follows the break"
    );
    // Delivery resumes over the 3-hop detour.
    let hops = &r.timeseries.hops;
    let late: Vec<u16> = hops
        .t_s
        .iter()
        .zip(&hops.hops)
        .filter(|(t, _)| **t > 30.0)
        .map(|(_, h)| *h)
        .collect();
    assert!(late.len() > 100, "{} packets after 30 s", late.len());
    assert!(late.iter().all(|&h| h == 3), "{late:?}");
    assert!(delivery(&r, 0) > 0.9, "delivery {}", delivery(&r, 0));
    assert!(f.route_changes >= 1);
}

#[test]
fn a_five_by_five_grid_carries_two_crossing_flows() {
    let mut s = aodv(60.0, 3);
    grid5x5_topology(&mut s);
    grid5x5_crossing_flows(&mut s, CBR_BPS, 59.0);
    assert_crossing_flows_delivered(&run_checked(&s));
}

/// `[routing.aodv] preset = "ns2"`: the first RREQ floods the network, as
/// ns-2.35 does, so the 6-node chain needs fewer RREQs than the RFC's
/// expanding ring (ns-2.35 itself sends 10 routing packets here, see the
/// README's fidelity table).
#[test]
fn the_ns2_preset_floods_at_once_and_the_rfc_preset_rings() {
    let run = |preset: AodvPreset| {
        let mut s = aodv(100.0, 1);
        place(&mut s, (0..6).map(|i| [200.0 * i as f64, 0.0]).collect());
        s.area.width_m = 1000.0;
        s.area.height_m = 10.0;
        s.routing.aodv = Some(AodvOptions {
            preset,
            ..AodvOptions::default()
        });
        s.flows.push(cbr(0, 5, 512, CBR_BPS, 1.0, 99.0));
        run_checked(&s)
    };
    let rfc = run(AodvPreset::Rfc);
    let ns2 = run(AodvPreset::Ns2);
    println!(
        "rfc {:?}\nns2 {:?}",
        rfc.routing.by_message, ns2.routing.by_message
    );
    // The ring: RREQ TTL 1 and 3 die out before TTL 5 reaches node 5.
    assert!(messages(&rfc, "rreq") > messages(&ns2, "rreq"));
    assert_eq!(ns2.routing.packets_sent, 10);
    assert!(delivery(&rfc, 0) > 0.99 && delivery(&ns2, 0) > 0.99);
    // The flood finds the route sooner: the first packet waits less.
    assert!(ns2.flows[0].delay_ms < rfc.flows[0].delay_ms);
}

#[test]
fn hello_link_detection_sends_hellos_when_asked() {
    let mut s = aodv(30.0, 1);
    place(&mut s, (0..3).map(|i| [200.0 * i as f64, 0.0]).collect());
    s.routing.aodv = Some(AodvOptions {
        link_detection: Some(AodvLinkDetection::Hello),
        hello_interval_s: Some(1.0),
        ..AodvOptions::default()
    });
    s.flows.push(cbr(0, 2, 512, CBR_BPS, 1.0, 29.0));
    let r = run_checked(&s);
    // Three nodes, about one HELLO per second each for 30 s (0.75-1.25 s apart).
    let hellos = messages(&r, "hello");
    assert!((70..=110).contains(&hellos), "{hellos} hellos");
    assert!(delivery(&r, 0) > 0.99);
    s.routing.aodv = None;
    assert_eq!(messages(&run_checked(&s), "hello"), 0);
}

/// `preset = "aodv_uu"`: AODV-UU's HELLO mode (HELLOs every second, a first
/// ring of TTL 2, no local repair); with `link_detection = "mac"` no HELLOs
/// (the constants are checked in `sim::build`).
#[test]
fn the_aodv_uu_preset_sends_hellos_unless_told_to_use_mac_feedback() {
    let run = |detection: Option<AodvLinkDetection>| {
        let mut s = aodv(30.0, 1);
        place(&mut s, (0..6).map(|i| [200.0 * i as f64, 0.0]).collect());
        s.area.width_m = 1000.0;
        s.area.height_m = 10.0;
        s.routing.aodv = Some(AodvOptions {
            preset: AodvPreset::AodvUu,
            link_detection: detection,
            ..AodvOptions::default()
        });
        s.flows.push(cbr(0, 5, 512, CBR_BPS, 1.0, 29.0));
        run_checked(&s)
    };
    let hello = run(None);
    let llf = run(Some(AodvLinkDetection::Mac));
    println!(
        "hello {:?}\nllf {:?}",
        hello.routing.by_message, llf.routing.by_message
    );
    // Six nodes, a HELLO about every second each for 30 s.
    assert!(
        (140..=220).contains(&messages(&hello, "hello")),
        "{:?}",
        hello.routing
    );
    assert_eq!(messages(&llf, "hello"), 0);
    assert!(delivery(&hello, 0) > 0.99 && delivery(&llf, 0) > 0.99);
}

/// One flow on a static chain: one route discovery at the source (its
/// expanding-ring retries are not discoveries); the ns-2 preset's flood too.
#[test]
fn one_flow_on_a_static_chain_is_one_route_discovery() {
    for seed in 1..=3 {
        let r = chain6(seed);
        assert_eq!(r.routing.route_discoveries, 1, "seed {seed}");
        assert!(
            messages(&r, "rreq") > 1,
            "the ring sends more than one RREQ"
        );
    }
}

#[test]
fn copies_of_a_broadcast_in_the_link_layer_at_the_end_are_not_in_flight() {
    // A broadcast counts as delivered when its transmission ends; the copies
    // its receivers' link layers still hold ([mac] ll_delay_s) when the run
    // ends are not packets in flight. Here the source's RREQ, made at
    // 0.2 s, leaves its link layer at 0.7 s, and the run ends at 1 s
    // before the relay's link layer passes its copy up.
    let mut s = aodv(1.0, 1);
    place(&mut s, vec![[0.0, 0.0], [200.0, 0.0], [400.0, 0.0]]);
    s.mac.ll_delay_s = 0.5;
    s.flows.push(cbr(0, 2, 512, CBR_BPS, 0.2, 1.0));
    let r = run_checked(&s);
    // Delivered: the RREQs whose transmission ended (the first at about
    // 0.7 s; the RFC preset's ring sends more). In flight: the four CBR
    // packets waiting at the source for a route (0.2, 0.45, 0.7 and
    // 0.95 s) and the RREQs still in the source's link layer or queue.
    assert!(r.ledger.delivered >= 1, "{:?}", r.ledger);
    let rreqs = messages(&r, "rreq");
    assert_eq!(r.ledger.created, 4 + rreqs, "{:?}", r.ledger);
    assert_eq!(r.ledger.in_flight, 4 + rreqs - r.ledger.delivered);
}

#[test]
fn each_message_counts_the_packets_relayed_for_another_node() {
    let r = chain6(1);
    let by = &r.routing.by_message;
    let relayed: u64 = by.values().map(|m| m.forwarded).sum();
    assert_eq!(relayed, r.routing.forwarded);
    // On the chain each RREP from node 5 crosses 4, 3, 2 and 1 before 0
    // reads it, and node 0's RREQs are relayed by the others.
    let rrep = &by["rrep"];
    assert_eq!(
        rrep.forwarded,
        4 * (rrep.packets - rrep.forwarded),
        "{by:?}"
    );
    assert!(by["rreq"].forwarded > 0, "{by:?}");
}
