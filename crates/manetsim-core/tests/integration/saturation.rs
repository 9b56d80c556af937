//! One-hop saturation throughput against Bianchi's model.

use crate::common::bianchi::{saturation_bps, Dcf};
use crate::common::*;
use manetsim_core::mac::{EifsRule, FrameSizes, Preamble, ResponseRate, SlotTime};
use manetsim_core::scenario::Mac;
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
    let model = saturation_bps(n, 1000, OVERHEAD_BYTES, rts_cts, &Dcf::default());
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

/// `n` saturated senders as [`saturated`], with `mac` (its standard,
/// rates, preamble and EIFS rule), for `window_s`: each alone offers more
/// than `model_bps`, the channel's.
fn saturated_under(mac: &Mac, n: u32, rts_cts: bool, model_bps: f64, window_s: f64) -> f64 {
    let mut s = base(START_S + window_s, 1);
    let mut pos = vec![[100.0, 100.0]];
    for i in 0..n {
        let a = 2.0 * PI * i as f64 / n as f64;
        pos.push([100.0 + 50.0 * a.cos(), 100.0 + 50.0 * a.sin()]);
    }
    place(&mut s, pos);
    s.mac = mac.clone();
    s.mac.rts_threshold_bytes = if rts_cts { 0 } else { 3000 };
    for i in 1..=n {
        let mut f = cbr(i, 0, 1000, 1.5 * model_bps, START_S, START_S + window_s);
        f.start_jitter_s = 0.01;
        s.flows.push(f);
    }
    let r = run_checked(&s);
    assert!(r.drops["queue_full"] > 0, "the senders must be saturated");
    aggregate_goodput_bps(&r, window_s)
}

fn check_under(standard: &str, rates: (f64, f64), short: bool, d: &Dcf, window_s: f64) {
    let eifs_rule = if d.difs_after_eifs {
        EifsRule::Ns2
    } else {
        EifsRule::Standard
    };
    let mac = Mac {
        standard: standard.into(),
        data_rate_bps: (rates.0 * 1e6) as u64,
        basic_rate_bps: (rates.1 * 1e6) as u64,
        preamble: if short {
            Preamble::Short
        } else {
            Preamble::Long
        },
        eifs_rule,
        slot: if standard == "802.11g" && d.slot < 10e-6 {
            SlotTime::Short
        } else {
            SlotTime::Long
        },
        response_rate: if d.ack_rate.is_some() {
            ResponseRate::Standard
        } else {
            ResponseRate::Basic
        },
        ..Mac::default()
    };
    let mut worst: f64 = 0.0;
    for rts_cts in [false, true] {
        for n in [1, 5, 20] {
            let model = saturation_bps(n, 1000, OVERHEAD_BYTES, rts_cts, d);
            let sim = saturated_under(&mac, n, rts_cts, model, window_s);
            let err = (sim - model) / model;
            println!(
                "{standard} {rates:?} {eifs_rule:?} n={n:2} rts={rts_cts}: sim {:.3} Mb/s, Bianchi {:.3} Mb/s, \
                 error {:+.2} %",
                sim / 1e6,
                model / 1e6,
                err * 100.0
            );
            if n == 1 {
                // No collisions: the airtimes, SIFS, DIFS and the mean
                // backoff alone.
                assert!(
                    err.abs() < 0.005,
                    "{standard} rts={rts_cts}: {sim} vs {model}"
                );
            }
            worst = worst.max(err.abs());
        }
    }
    assert!(worst < 0.03, "{standard}: worst error {worst}");
}

#[test]
fn ofdm_802_11a_at_54_mbps_matches_bianchi() {
    check_under("802.11a", (54.0, 6.0), false, &Dcf::a(54e6, 6e6), 8.0);
}

#[test]
fn hr_dsss_802_11b_at_11_mbps_with_the_short_preamble_matches_bianchi() {
    check_under("802.11b", (11.0, 2.0), true, &Dcf::b_short(11e6, 2e6), 15.0);
}

#[test]
fn erp_ofdm_802_11g_at_24_mbps_matches_bianchi() {
    check_under("802.11g", (24.0, 6.0), false, &Dcf::g(24e6, 6e6), 8.0);
}

/// An ERP network of 802.11g stations alone takes the 9 µs slot: DIFS is
/// then 28 µs, against 50.
#[test]
fn erp_ofdm_802_11g_at_24_mbps_with_the_short_slot_matches_bianchi() {
    let d = Dcf {
        slot: 9e-6,
        difs: 28e-6,
        ..Dcf::g(24e6, 6e6)
    };
    check_under("802.11g", (24.0, 6.0), false, &d, 8.0);
    // One station: 7.5 slots of 9 µs and a DIFS of 28 µs rather than 7.5
    // of 20 and 50, 104.5 µs less a frame.
    let one = |d: &Dcf| saturation_bps(1, 1000, OVERHEAD_BYTES, false, d);
    let long = Dcf::g(24e6, 6e6);
    let cycle = |d: &Dcf| 8000.0 / one(d);
    assert!(
        (cycle(&long) - cycle(&d) - 104.5e-6).abs() < 1e-9,
        "{}",
        cycle(&long) - cycle(&d)
    );
}

/// With the standard's EIFS the others wait one DIFS less after a
/// collision, and the model's Tc with them; at 802.11a's rates a collision
/// is short beside DIFS, so this is where the rule shows most.
#[test]
fn ofdm_802_11a_with_the_standards_eifs_matches_bianchi() {
    let d = Dcf {
        difs_after_eifs: false,
        ..Dcf::a(54e6, 6e6)
    };
    check_under("802.11a", (54.0, 6.0), false, &d, 8.0);
}

/// With IEEE 802.11's response rates the ACK after a 54 Mb/s frame goes at
/// 24 Mb/s (28 µs against 44 µs at 6 Mb/s); EIFS keeps the 6 Mb/s ACK.
#[test]
fn ofdm_802_11a_with_the_standards_response_rates_matches_bianchi() {
    let d = Dcf {
        ack_rate: Some(24e6),
        ..Dcf::a(54e6, 6e6)
    };
    check_under("802.11a", (54.0, 6.0), false, &d, 8.0);
    // The 16 µs an exchange saves, against the basic rate's ACK: one
    // saturated station sends 4.9 % more, a cycle of 325.5 µs against
    // 341.5 (the 180 µs frame, SIFS, the ACK, DIFS and 7.5 slots).
    let one = |d: &Dcf| saturation_bps(1, 1000, OVERHEAD_BYTES, false, d);
    let gain = one(&d) / one(&Dcf::a(54e6, 6e6));
    assert!((gain - 341.5 / 325.5).abs() < 1e-6, "{gain}");
}

/// With `frames = "llc_snap"` a data frame carries the 8 bytes of LLC/SNAP
/// before the datagram, as ns-3 sends it. At 36 Mb/s (144 bits a symbol) a
/// 1000-byte datagram's frame then takes 60 symbols, not 59: one station's
/// cycle is 4 µs longer, each way within 0.5 % of Bianchi's model with the
/// frame's size. At 54 and 24 Mb/s the two sizes fill the same symbols.
#[test]
fn llc_snap_frames_carry_eight_bytes_more_than_the_standards() {
    let d = Dcf::a(36e6, 6e6);
    let one = |overhead: u32| saturation_bps(1, 1000, overhead, false, &d);
    let cycle = |overhead: u32| 8000.0 / one(overhead);
    assert!((cycle(OVERHEAD_BYTES + 8) - cycle(OVERHEAD_BYTES) - 4e-6).abs() < 1e-9);
    let mut sims = Vec::new();
    for (frames, overhead) in [
        (FrameSizes::Standard, OVERHEAD_BYTES),
        (FrameSizes::LlcSnap, OVERHEAD_BYTES + 8),
    ] {
        let mac = Mac {
            standard: "802.11a".into(),
            data_rate_bps: 36_000_000,
            basic_rate_bps: 6_000_000,
            frames,
            ..Mac::default()
        };
        let model = one(overhead);
        let sim = saturated_under(&mac, 1, false, model, 8.0);
        let err = (sim - model) / model;
        println!(
            "{frames:?}: sim {:.4} Mb/s, Bianchi {:.4} Mb/s, error {:+.3} %",
            sim / 1e6,
            model / 1e6,
            err * 100.0
        );
        assert!(err.abs() < 0.005, "{frames:?}: {sim} vs {model}");
        sims.push(sim);
    }
    assert!(sims[1] < sims[0] * 0.995, "{sims:?}");
}
