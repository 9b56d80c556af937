//! Same scenario and seed → identical results; another seed → different ones.

use crate::common::*;
use manetsim_core::scenario::{ErrorModelKind, Fading, Placement, Propagation, RoutingProtocol};

fn busy_grid(seed: u64) -> manetsim_core::Scenario {
    let mut s = base(20.0, seed);
    s.nodes.count = 25;
    s.nodes.placement = Placement::Grid;
    s.nodes.rows = Some(5);
    s.nodes.cols = Some(5);
    s.nodes.spacing_m = 180.0;
    for (i, (a, b)) in [(0, 24), (4, 20), (2, 22), (10, 14), (7, 17)]
        .into_iter()
        .enumerate()
    {
        let mut f = cbr(a, b, 512, 200_000.0, 1.0 + i as f64 * 0.1, 20.0);
        f.start_jitter_s = 0.5;
        s.flows.push(f);
    }
    s
}

fn fingerprint(r: &manetsim_core::RunResult) -> String {
    let mut r = r.clone();
    r.wall_s = 0.0;
    r.events_per_s = 0.0;
    serde_json::to_string(&r).unwrap()
}

#[test]
fn same_seed_gives_identical_results() {
    let a = run_checked(&busy_grid(7));
    let b = run_checked(&busy_grid(7));
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert!(
        a.mac.collisions > 0,
        "the scenario must exercise contention"
    );
}

#[test]
fn different_seed_gives_different_results() {
    let a = run_checked(&busy_grid(7));
    let b = run_checked(&busy_grid(8));
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn shadowing_is_reproducible_and_the_ledger_balances() {
    let mut s = busy_grid(3);
    s.radio.propagation = Propagation::Shadowing;
    let a = run_checked(&s);
    let b = run_checked(&s);
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn fading_over_shadowing_with_aodv_is_reproducible_and_the_ledger_balances() {
    let mut s = busy_grid(3);
    s.routing.protocol = RoutingProtocol::Aodv;
    s.radio.propagation = Propagation::Shadowing;
    let shadowed = run_checked(&s);
    s.radio.fading = Fading::Nakagami;
    let a = run_checked(&s);
    let b = run_checked(&s);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&shadowed));
    assert!(a.flows.iter().all(|f| f.received > 0), "{:?}", a.flows);
}

#[test]
fn fading_correlated_in_time_with_aodv_and_bit_errors_is_reproducible_and_the_ledger_balances() {
    // Over shadowing, with frames too weak to sense counted under bit
    // errors: listeners lifted over carrier sense, or over the floor, by
    // their link's gain.
    let mut s = busy_grid(3);
    s.routing.protocol = RoutingProtocol::Aodv;
    s.radio.propagation = Propagation::Shadowing;
    s.radio.fading = Fading::Rayleigh;
    let independent = run_checked(&s);
    s.radio.fading_doppler_hz = 5.0;
    s.radio.error_model = ErrorModelKind::Awgn;
    s.radio.interference_threshold_w = Some(s.radio.cs_threshold_w / 100.0);
    let a = run_checked(&s);
    let b = run_checked(&s);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&independent));
    assert!(a.flows.iter().any(|f| f.received > 0), "{:?}", a.flows);
}

#[test]
fn faint_frames_as_interference_with_aodv_are_reproducible_and_the_ledger_balances() {
    // Thresholds 13 dB above the noise (a 635 m range at 11 Mb/s), and
    // every frame down to 1e-14 W (3.4 km) counted as interference.
    let mut s = busy_grid(3);
    s.routing.protocol = RoutingProtocol::Aodv;
    s.radio.error_model = ErrorModelKind::Awgn;
    s.radio.rx_threshold_w = 8.8e-12;
    s.radio.cs_threshold_w = 8.8e-12;
    s.mac.data_rate_bps = 11_000_000;
    let sensed = run_checked(&s);
    s.radio.interference_threshold_w = Some(1e-14);
    let a = run_checked(&s);
    let b = run_checked(&s);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&sensed));
    assert!(
        a.mac.bit_errors > sensed.mac.bit_errors,
        "{} vs {}",
        a.mac.bit_errors,
        sensed.mac.bit_errors
    );
    assert!(a.flows.iter().all(|f| f.received > 0), "{:?}", a.flows);
}

#[test]
fn ledger_balances_under_heavy_loss_and_queue_overflow() {
    // Overloaded flows through a sparse grid: queue drops, retry drops and
    // packets in flight at the end must all be accounted for.
    let mut s = busy_grid(11);
    for f in &mut s.flows {
        f.rate_bps = Some(1.5e6);
    }
    s.duration_s = 10.0;
    for f in &mut s.flows {
        f.stop_s = Some(10.0);
    }
    let r = run_checked(&s);
    assert!(r.drops["queue_full"] > 0);
    assert!(r.ledger.in_flight > 0, "{:?}", r.ledger);
    assert_eq!(
        r.ledger.created,
        r.ledger.delivered + r.ledger.dropped + r.ledger.in_flight
    );
}
