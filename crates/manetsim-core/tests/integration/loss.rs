//! Injected loss: where it sits relative to the 802.11 MAC decides whether
//! retries hide it.

use crate::common::*;
use manetsim_core::scenario::{Loss, LossModelKind, LossPackets, LossWhere};

/// A 0 → 1 → 2 chain, CBR 512 B at `pps` packets/s to the end of the run,
/// with a loss model at relay 1 on `packets`.
fn lossy_chain(
    duration_s: f64,
    seed: u64,
    pps: f64,
    model: LossModelKind,
    rate: f64,
    packets: LossPackets,
    placement: LossWhere,
) -> manetsim_core::scenario::Scenario {
    let mut s = base(duration_s, seed);
    s.nodes.count = 3;
    s.area.width_m = 500.0;
    s.area.height_m = 10.0;
    s.flows
        .push(cbr(0, 2, 512, pps * 512.0 * 8.0, 1.0, duration_s));
    s.loss.push(Loss {
        node: 1,
        model,
        rate,
        packets,
        where_: placement,
        mean_burst_packets: 1.0,
    });
    s
}

/// 0 → 1 → 2 chain, CBR 512 B at 20 packets/s for 100 s; loss at relay 1.
fn chain_with_loss(
    model: LossModelKind,
    rate: f64,
    burst: f64,
    placement: LossWhere,
) -> manetsim_core::RunResult {
    let mut s = lossy_chain(101.0, 5, 20.0, model, rate, LossPackets::Data, placement);
    s.loss[0].mean_burst_packets = burst;
    run_checked(&s)
}

#[test]
fn loss_after_the_mac_is_end_to_end() {
    let r = chain_with_loss(LossModelKind::Uniform, 0.05, 1.0, LossWhere::AfterMac);
    let f = &r.flows[0];
    println!(
        "after_mac: loss {:.2} %, loss_model drops {}",
        f.loss_pct, r.drops["loss_model"]
    );
    assert!((3.5..6.5).contains(&f.loss_pct), "{}", f.loss_pct);
    assert_eq!(
        r.drops["loss_model"] + r.ledger.in_flight,
        f.sent - f.received
    );
}

#[test]
fn loss_before_the_mac_is_hidden_by_retries() {
    let r = chain_with_loss(LossModelKind::Uniform, 0.05, 1.0, LossWhere::BeforeMac);
    let f = &r.flows[0];
    println!(
        "before_mac: loss {:.3} %, retries {}",
        f.loss_pct, r.mac.retries
    );
    assert!(f.loss_pct < 0.5, "{}", f.loss_pct);
    assert_eq!(r.drops["loss_model"], 0);
    // About 5 % of the ~2000 DATA frames at node 1 are retried.
    assert!(r.mac.retries > 50, "{}", r.mac.retries);
}

#[test]
fn gilbert_elliott_loses_its_rate() {
    let r = chain_with_loss(
        LossModelKind::GilbertElliott,
        0.10,
        4.0,
        LossWhere::AfterMac,
    );
    let f = &r.flows[0];
    println!("gilbert: loss {:.2} %", f.loss_pct);
    assert!((6.0..14.0).contains(&f.loss_pct), "{}", f.loss_pct);
}

#[test]
fn a_lost_copy_of_a_broadcast_is_not_a_dropped_packet() {
    // Loss after the MAC on every packet at relay 1 of an AODV chain: some
    // copies of the RREQs reach it and are lost. A broadcast counts once,
    // delivered when its transmission ends, so the ledger still balances
    // and `loss_model` counts only unicast packets.
    let mut s = lossy_chain(
        60.0,
        3,
        4.0,
        LossModelKind::Uniform,
        0.3,
        LossPackets::All,
        LossWhere::AfterMac,
    );
    s.routing.protocol = manetsim_core::scenario::RoutingProtocol::Aodv;
    let r = run_checked(&s);
    let f = &r.flows[0];
    println!("drops {:?} routing {:?}", r.drops, r.routing.by_message);
    assert!(r.drops["loss_model"] > 0);
    assert!(f.received > 0);
}
