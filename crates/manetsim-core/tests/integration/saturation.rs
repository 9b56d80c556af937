//! One-hop saturation throughput against Bianchi's model.

use crate::common::bianchi::{saturation_bps, Dsss};
use crate::common::*;
use std::f64::consts::PI;

/// UDP 8 + IP 20 + MAC header and FCS 28.
const OVERHEAD_BYTES: u32 = 56;
const START_S: f64 = 1.0;
const WINDOW_S: f64 = 40.0;

/// `n` saturated senders on a 50 m circle around receiver 0.
fn saturated(n: u32, rts_cts: bool, seed: u64) -> f64 {
    let mut s = base(START_S + WINDOW_S, seed);
    let mut pos = vec![[100.0, 100.0]];
    for i in 0..n {
        let a = 2.0 * PI * i as f64 / n as f64;
        pos.push([100.0 + 50.0 * a.cos(), 100.0 + 50.0 * a.sin()]);
    }
    place(&mut s, pos);
    s.mac.rts_threshold_bytes = if rts_cts { 0 } else { 3000 };
    for i in 1..=n {
        let mut f = cbr(i, 0, 1000, 2.5e6, START_S, START_S + WINDOW_S);
        f.start_jitter_s = 0.01;
        s.flows.push(f);
    }
    let r = run_checked(&s);
    assert!(r.drops["queue_full"] > 0, "the senders must be saturated");
    aggregate_goodput_bps(&r, WINDOW_S)
}

fn check(n: u32, rts_cts: bool) {
    let model = saturation_bps(n, 1000, OVERHEAD_BYTES, rts_cts, &Dsss::default());
    let sim = saturated(n, rts_cts, 1);
    let err = (sim - model) / model;
    println!(
        "n={n:2} rts={rts_cts}: sim {:.4} Mb/s, Bianchi {:.4} Mb/s, error {:+.2} %",
        sim / 1e6,
        model / 1e6,
        err * 100.0
    );
    assert!(
        err.abs() < 0.03,
        "n={n} rts={rts_cts}: {sim} vs model {model}"
    );
}

#[test]
fn basic_access_matches_bianchi() {
    for n in [1, 2, 5, 10, 20] {
        check(n, false);
    }
}

#[test]
fn rts_cts_matches_bianchi() {
    for n in [1, 2, 5, 10, 20] {
        check(n, true);
    }
}

#[test]
fn single_station_reaches_the_collision_free_maximum() {
    let basic = saturated(1, false, 3);
    let rts = saturated(1, true, 3);
    assert!((basic / 1e6 - 1.57).abs() < 0.03, "{basic}");
    assert!((rts / 1e6 - 1.39).abs() < 0.03, "{rts}");
}
