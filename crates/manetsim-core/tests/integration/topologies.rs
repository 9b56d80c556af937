//! Hidden terminals and multi-hop chains.

use crate::common::*;

/// A and B both 240 m from R and 480 m apart, with carrier sense limited to
/// the 250 m receive range, so A and B cannot hear each other.
fn hidden(rts_cts: bool) -> manetsim_core::RunResult {
    let mut s = base(31.0, 1);
    place(&mut s, vec![[0.0, 0.0], [240.0, 0.0], [480.0, 0.0]]);
    s.area.width_m = 500.0;
    s.radio.cs_threshold_w = s.radio.rx_threshold_w;
    s.mac.rts_threshold_bytes = if rts_cts { 0 } else { 3000 };
    for src in [0, 2] {
        s.flows.push(cbr(src, 1, 1000, 1.0e6, 1.0, 31.0));
    }
    run_checked(&s)
}

#[test]
fn hidden_terminals_collide_without_rts_and_rts_restores_throughput() {
    let basic = hidden(false);
    let rts = hidden(true);
    let (gb, gr) = (
        aggregate_goodput_bps(&basic, 30.0),
        aggregate_goodput_bps(&rts, 30.0),
    );
    println!(
        "basic: {:.3} Mb/s, {} collisions, {} retry drops; rts: {:.3} Mb/s, {} collisions",
        gb / 1e6,
        basic.mac.collisions,
        basic.drops["retry_limit"],
        gr / 1e6,
        rts.mac.collisions
    );
    assert!(
        basic.mac.collisions > 1000,
        "hidden senders collide at the receiver"
    );
    assert!(
        basic.drops["retry_limit"] > 100,
        "frames are lost after all retries"
    );
    assert!(gr > 1.5 * gb, "RTS/CTS restores throughput: {gr} vs {gb}");
    // RTS/CTS recovers most of the collision-free capacity (1.39 Mb/s).
    assert!(gr > 0.75 * 1.39e6, "{gr}");
}

/// Saturated UDP over an `hops`-hop chain, 200 m spacing, static routes.
fn chain(hops: u32, seed: u64) -> manetsim_core::RunResult {
    let mut s = base(61.0, seed);
    s.nodes.count = hops + 1;
    s.area.width_m = 200.0 * hops as f64 + 1.0;
    s.area.height_m = 10.0;
    s.flows.push(cbr(0, hops, 1000, 2.0e6, 1.0, 61.0));
    run_checked(&s)
}

#[test]
fn chain_throughput_falls_with_hop_count() {
    let one = aggregate_goodput_bps(&chain(1, 1), 60.0);
    let mut last = one;
    let mut ratios = Vec::new();
    for hops in [2, 3, 4, 6] {
        let r = chain(hops, 1);
        assert_eq!(r.flows[0].hops_mean, hops as f64);
        assert_eq!(r.flows[0].route_changes, 0, "static routes never change");
        let series = &r.timeseries.hops;
        assert_eq!(series.hops.len() as u64, r.flows[0].received);
        assert!(series.hops.iter().all(|&h| h as u32 == hops));
        assert!(series.t_s.windows(2).all(|w| w[0] <= w[1]));
        let g = aggregate_goodput_bps(&r, 60.0);
        println!(
            "{hops} hops: {:.3} Mb/s = 1/{:.2} of one hop",
            g / 1e6,
            one / g
        );
        assert!(g < last, "{hops} hops: {g} not below {last}");
        last = g;
        ratios.push(one / g);
    }
    // Li et al. (MobiCom 2001): long 802.11 chains settle near 1/4 to 1/7
    // of the one-hop throughput.
    let six = ratios[3];
    assert!((3.5..=8.0).contains(&six), "6-hop ratio 1/{six}");
}

#[test]
fn a_flow_without_a_route_is_reported_loudly() {
    let mut s = base(5.0, 1);
    place(&mut s, vec![[0.0, 0.0], [200.0, 0.0], [900.0, 0.0]]);
    s.flows.push(cbr(0, 2, 512, 10_000.0, 1.0, 5.0));
    let r = run_checked(&s);
    assert_eq!(r.flows[0].received, 0);
    assert_eq!(r.drops["no_route"], r.flows[0].sent);
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0].contains("no route to node 2"),
        "{}",
        r.warnings[0]
    );
}

/// Over nodes that move, a flow without a route at the start may get one:
/// no warning then. Over nodes that never move it never will, whatever the
/// protocol finds.
#[test]
fn a_flow_is_reported_routeless_only_when_no_route_can_appear() {
    use manetsim_core::scenario::RoutingProtocol;
    let scenario = |moves: bool| {
        let mut s = base(20.0, 1);
        s.routing.protocol = RoutingProtocol::Aodv;
        place(&mut s, vec![[0.0, 0.0], [200.0, 0.0], [900.0, 0.0]]);
        s.flows.push(cbr(0, 2, 512, 10_000.0, 1.0, 20.0));
        if moves {
            // Node 2 walks to 400 m (within node 1's range) by 6 s.
            script(&mut s, &[(2, 1.0, [400.0, 0.0], 100.0)]);
        }
        s
    };
    let still = run_checked(&scenario(false));
    assert_eq!(still.flows[0].received, 0);
    assert_eq!(still.warnings.len(), 1, "{:?}", still.warnings);
    assert!(still.warnings[0].contains("no route to node 2"));

    let moving = run_checked(&scenario(true));
    assert!(
        moving.flows[0].received > 0,
        "the route appears once node 2 is near"
    );
    assert!(
        moving.warnings.iter().all(|w| !w.contains("no route")),
        "{:?}",
        moving.warnings
    );
}
