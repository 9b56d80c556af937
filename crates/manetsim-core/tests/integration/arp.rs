//! ARP (`[mac] arp = "ns2"`) end to end: on a static chain each hop is
//! resolved once, by the request of whichever end first sends a unicast
//! packet, and the opposite direction learns from that request.

use crate::common::*;
use manetsim_core::net::arp::ArpModel;
use manetsim_core::scenario::RoutingProtocol;

const CBR_4PPS_512B: f64 = 4.0 * 512.0 * 8.0;

fn chain6(protocol: RoutingProtocol, arp: ArpModel, seed: u64) -> manetsim_core::RunResult {
    let mut s = base(60.0, seed);
    s.routing.protocol = protocol;
    s.mac.arp = arp;
    chain6_topology(&mut s);
    s.flows.push(cbr(0, 5, 512, CBR_4PPS_512B, 1.0, 60.0));
    run_checked(&s)
}

#[test]
fn each_hop_of_a_chain_is_resolved_once() {
    for protocol in [RoutingProtocol::Dsr, RoutingProtocol::Aodv] {
        for seed in 1..=3 {
            let r = chain6(protocol, ArpModel::Ns2, seed);
            let f = &r.flows[0];
            // The reply travels 5 -> 0 first: each of its five hops asks
            // once, and the node asked learns the asker from the request.
            assert_eq!(
                (r.mac.arp_requests, r.mac.arp_replies),
                (5, 5),
                "{protocol:?} seed {seed}"
            );
            assert_eq!(r.drops["arp"], 0);
            assert_eq!(f.hops_mean, 5.0);
            let d = delivery(&r, 0);
            assert!(d > 0.95, "{protocol:?} seed {seed}: {d:.3} delivered");
        }
    }
}

#[test]
fn resolution_delays_only_the_first_packets() {
    let off = chain6(RoutingProtocol::Dsr, ArpModel::Off, 2);
    let on = chain6(RoutingProtocol::Dsr, ArpModel::Ns2, 2);
    assert_eq!((off.mac.arp_requests, off.mac.arp_replies), (0, 0));
    assert_eq!(off.flows[0].sent, on.flows[0].sent);
    // Five request-reply exchanges (four frames each under RTS/CTS for the
    // reply) add a few milliseconds to the first packet's delay only.
    let (a, b) = (off.flows[0].delay_ms, on.flows[0].delay_ms);
    assert!(
        b >= a && b < a + 5.0,
        "delay {a} ms without ARP, {b} ms with"
    );
}

#[test]
fn a_reply_delivered_without_its_acks_is_counted_once() {
    // A mobile run in which one ARP reply reaches its requester while every
    // ACK for it is lost: the replier's MAC gives up on a delivered frame,
    // which must not count as a drop as well (it did before this test).
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/arp_reply_acks_lost.toml");
    let s = manetsim_core::scenario::load_file(&path, &[]).expect("valid fixture");
    let r = run_checked(&s);
    assert!(r.mac.arp_requests > 500, "{:?}", r.mac);
    assert!(r.drops["arp"] > 0, "{:?}", r.drops);
}
