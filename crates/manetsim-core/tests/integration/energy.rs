//! The linear battery: each radio state is charged for its airtime.

use crate::common::*;
use manetsim_core::scenario::Energy;

/// Node 0 sends 100 CBR packets of 1000 B to node 1 (50 m away) with RTS/CTS.
fn one_hop(initial_j: f64) -> manetsim_core::RunResult {
    let mut s = base(12.0, 1);
    place(&mut s, vec![[0.0, 0.0], [50.0, 0.0]]);
    s.flows.push(cbr(0, 1, 1000, 80_000.0, 1.0, 11.0));
    s.energy = Some(Energy {
        initial_j,
        tx_w: 0.6,
        rx_w: 0.3,
        idle_w: 0.0,
        sleep_w: 0.0,
    });
    run_checked(&s)
}

#[test]
fn energy_is_tx_and_rx_airtime_times_power() {
    let r = one_hop(100.0);
    assert_eq!(r.flows[0].received, 100);
    assert_eq!(r.mac.retries, 0);
    // Per packet, node 0 sends RTS (352 µs) and DATA (192 + 1056·8/2 = 4416 µs)
    // and hears CTS and ACK (304 µs each); node 1 the other way round.
    let sender = 100.0 * (0.6 * (352e-6 + 4416e-6) + 0.3 * (2.0 * 304e-6));
    let receiver = 100.0 * (0.6 * (2.0 * 304e-6) + 0.3 * (352e-6 + 4416e-6));
    let e = &r.energy;
    assert!(
        (e.consumed_j[0] - sender).abs() < 1e-9,
        "{} vs {sender}",
        e.consumed_j[0]
    );
    assert!(
        (e.consumed_j[1] - receiver).abs() < 1e-9,
        "{} vs {receiver}",
        e.consumed_j[1]
    );
    assert!((e.remaining_j[0] + e.consumed_j[0] - 100.0).abs() < 1e-12);
    assert_eq!(e.depleted_at_s, vec![None, None]);
    let eta = r.flows[0].throughput_kbps / (sender + receiver);
    assert!((e.efficiency_kbps_per_j - eta).abs() < 1e-9);
    // One sample per node per second, 0..=12 s.
    assert_eq!(r.timeseries.energy.t_s.len(), 2 * 13);
}

#[test]
fn an_empty_battery_silences_the_node() {
    // Node 0 spends 0.6 × 4768 µs + 0.3 × 608 µs ≈ 3.04 mJ per packet, so
    // 0.1 J lasts about 33 packets: at 10 packets/s from 1 s, until ≈ 4.3 s.
    let r = one_hop(0.1);
    let f = &r.flows[0];
    let died = r.energy.depleted_at_s[0].expect("node 0 runs out");
    assert!((4.0..4.5).contains(&died), "died at {died}");
    assert!((30..=35).contains(&f.received), "{}", f.received);
    assert!(r.drops["energy_depleted"] >= 60, "{:?}", r.drops);
    assert!((r.energy.remaining_j[0]).abs() < 1e-9);
    assert_eq!(r.energy.depleted_at_s[1], None);
}
