//! `[radio] fading`: each frame's power at each receiver drawn from
//! Nakagami-m (Rayleigh for m = 1), so that a frame is received with the
//! probability that its fade lifts it over the receive threshold.

use crate::common::*;
use manetsim_core::mac::Phy;
use manetsim_core::phy::{gamma_q, ErrorModel, RadioParams};
use manetsim_core::scenario::{Fading, Scenario};
use manetsim_core::RunResult;

/// Two nodes `d_m` apart under ns-2's WaveLAN defaults (two-ray ground,
/// 250 m receive range), node 0 sending 512-byte UDP datagrams to node 1
/// 50 times a second for 100 s with no RTS/CTS and no ARP.
fn pair(d_m: f64) -> Scenario {
    let mut s = base(101.0, 5);
    place(&mut s, vec![[0.0, 0.0], [d_m, 0.0]]);
    s.area.width_m = d_m + 10.0;
    s.area.height_m = 10.0;
    s.mac.rts_threshold_bytes = 3000;
    s.flows.push(cbr(0, 1, 512, 512.0 * 8.0 * 50.0, 1.0, 101.0));
    s
}

/// The probability that a frame `d_m` from its sender, with fading of
/// parameter `m`, arrives at or above the receive threshold.
fn expected(s: &Scenario, d_m: f64, m: f64) -> f64 {
    let radio = RadioParams::from_scenario(&s.radio);
    let needed = radio.rx_threshold_w / radio.mean_rx_power_w(d_m);
    // The fade X ~ Gamma(m, 1/m): P(X ≥ needed) = Q(m, m needed).
    gamma_q(m, m * needed)
}

/// The fractions of node 0's data frames that node 1 decoded, and of node
/// 1's ACKs that node 0 decoded.
fn fractions(r: &RunResult) -> (f64, f64) {
    let (a, b) = (&r.nodes[0], &r.nodes[1]);
    (
        b.frames_received as f64 / a.frames_sent as f64,
        a.frames_received as f64 / b.frames_sent as f64,
    )
}

#[test]
fn rayleigh_fading_receives_a_frame_as_often_as_its_fade_allows() {
    // Where the mean power is twice the threshold, Rayleigh fading lets
    // e^-0.5 = 60.7 % of frames through.
    let d = 250.0 / 2f64.powf(0.25);
    let mut s = pair(d);
    s.radio.fading = Fading::Rayleigh;
    let want = expected(&s, d, 1.0);
    assert!((want - (-0.5f64).exp()).abs() < 1e-3, "{want}");
    let r = run_checked(&s);
    let (data, ack) = fractions(&r);
    println!(
        "Rayleigh at {d:.1} m: data {data:.4}, ACK {ack:.4} (of {} and {}), expected {want:.4}; \
         retries {}, delivery {:.4}",
        r.nodes[0].frames_sent,
        r.nodes[1].frames_sent,
        r.mac.retries,
        delivery(&r, 0)
    );
    // About 8,000 data frames and 5,000 ACKs: 3 standard deviations are
    // 0.016 and 0.021.
    assert!((data - want).abs() < 0.02, "data {data} against {want}");
    assert!((ack - want).abs() < 0.025, "ACK {ack} against {want}");
    // A packet fails only when all 7 tries fail: 0.6^7 ≈ 0.3 %.
    assert!(delivery(&r, 0) > 0.98, "{}", delivery(&r, 0));
    assert!(r.mac.link_failures > 0);
    // Without fading every frame at that distance gets through.
    let calm = run_checked(&pair(d));
    assert_eq!(fractions(&calm), (1.0, 1.0));
    assert_eq!(calm.mac.retries, 0);
    // The draws are the run's: the same again, to the bit.
    let again = run_checked(&s);
    assert_eq!(fractions(&again), (data, ack));
    assert_eq!(again.flows, r.flows);
}

#[test]
fn nakagami_m_is_chosen_by_the_distance() {
    // At the same 210 m, m0 = 3 applies while distance1 is beyond it, and
    // m1 = 0.75 once it is nearer: 81 % of frames, then 57 %.
    let d = 250.0 / 2f64.powf(0.25);
    for (distance1_m, m) in [(250.0, 3.0), (100.0, 0.75)] {
        let mut s = pair(d);
        s.radio.fading = Fading::Nakagami;
        s.radio.nakagami_m0 = 3.0;
        s.radio.nakagami_m1 = 0.75;
        s.radio.nakagami_m2 = 8.0;
        s.radio.nakagami_distance1_m = distance1_m;
        s.radio.nakagami_distance2_m = 300.0;
        let want = expected(&s, d, m);
        let r = run_checked(&s);
        let (data, ack) = fractions(&r);
        println!("m = {m} at {d:.1} m: data {data:.4}, ACK {ack:.4}, expected {want:.4}");
        assert!(
            (data - want).abs() < 0.02,
            "m {m}: data {data} against {want}"
        );
        assert!(
            (ack - want).abs() < 0.025,
            "m {m}: ACK {ack} against {want}"
        );
    }
}

#[test]
fn a_frame_faded_up_is_heard_beyond_the_mean_range() {
    // Rayleigh fading lifts a frame 10 × above its mean 1 time in 22,000;
    // the search for listeners reaches as far as a fade of −ln 3e-5 ≈ 10.4.
    let mut s = pair(100.0);
    s.radio.fading = Fading::Rayleigh;
    let radio = RadioParams::from_scenario(&s.radio);
    let cs_range = radio.range_for_threshold_m(radio.cs_threshold_w);
    let reach = radio.max_interference_range_m();
    let fourth_root = (-(3e-5f64).ln()).powf(0.25);
    assert!(
        (reach / cs_range - fourth_root).abs() < 1e-6,
        "{reach} m against {cs_range} m"
    );
    // A third node 300 m on node 0's other side (mean power 0.48 of the
    // threshold, 510 m from node 1) overhears e^-2.07 = 12.6 % of node 0's
    // frames, where without fading it decodes none.
    let overheard = |fading: Fading| {
        let mut s = pair(210.0);
        s.nodes.positions.as_mut().unwrap().push([-300.0, 0.0]);
        s.nodes.count = 3;
        s.radio.fading = fading;
        let r = run_checked(&s);
        r.nodes[2].frames_received as f64 / r.nodes[0].frames_sent as f64
    };
    let want = expected(&s, 300.0, 1.0);
    let got = overheard(Fading::Rayleigh);
    println!("overheard at 300 m: {got:.4}, expected {want:.4}");
    assert!((want - 0.126).abs() < 0.001, "{want}");
    assert!((got - want).abs() < 0.015, "{got} against {want}");
    assert_eq!(overheard(Fading::None), 0.0);
}

/// [`crate::bit_errors`]'s pair of 802.11a nodes `d_m` apart (free space
/// at 5.18 GHz, thresholds far below the noise, 1000-byte datagrams at 100
/// a second with no RTS/CTS, bit errors from the SNR) at 12 Mb/s for 100
/// s, under Rayleigh fading.
fn ofdm_pair(d_m: f64) -> Scenario {
    let mut s = crate::bit_errors::pair(d_m, 12_000_000, true);
    s.duration_s = 101.0;
    s.seed = 9;
    s.flows[0].stop_s = Some(101.0);
    s.radio.fading = Fading::Rayleigh;
    s
}

/// The probability that a frame of `bytes` at `rate_bps` is decoded, its
/// mean power `mean_w` faded by Rayleigh: the frame's success at each fade
/// `x`, weighed by the fade's density `e^-x` (trapezoids of 1/2000 up to a
/// fade of 40, whose tail is e^-40), counting the threshold too.
fn rayleigh_success(
    model: &mut ErrorModel,
    mean_w: f64,
    rx_threshold_w: f64,
    rate_bps: u64,
    bytes: u32,
) -> f64 {
    let step = 1.0 / 2000.0;
    let f = |model: &mut ErrorModel, x: f64| {
        let power_w = mean_w * x;
        if power_w < rx_threshold_w {
            0.0
        } else {
            (-x).exp() * model.frame_success(Phy::Ofdm, rate_bps, bytes, power_w)
        }
    };
    let n = 80_000;
    let mut sum = 0.5 * (f(model, 0.0) + f(model, n as f64 * step));
    for i in 1..n {
        sum += f(model, i as f64 * step);
    }
    sum * step
}

#[test]
fn bit_errors_under_rayleigh_fading_average_over_the_fade() {
    // Where 12 Mb/s loses 1 % of frames at the mean power (about 8.6 dB),
    // Rayleigh fading loses far more: the fades below the SNR the rate
    // needs. The measured fractions match the average over the fade.
    let probe = ofdm_pair(1.0);
    let radio = RadioParams::from_scenario(&probe.radio);
    let mut model = ErrorModel::new(probe.radio.noise_figure_db);
    let (mut near, mut far) = (1.0, 5000.0);
    for _ in 0..60 {
        let mid = 0.5 * (near + far);
        let lost =
            1.0 - model.frame_success(Phy::Ofdm, 12_000_000, 1056, radio.mean_rx_power_w(mid));
        if lost < 0.01 {
            near = mid;
        } else {
            far = mid;
        }
    }
    let d = near;
    let mean_w = radio.mean_rx_power_w(d);
    let want_data = rayleigh_success(&mut model, mean_w, radio.rx_threshold_w, 12_000_000, 1056);
    let want_ack = rayleigh_success(&mut model, mean_w, radio.rx_threshold_w, 6_000_000, 14);
    let r = run_checked(&ofdm_pair(d));
    let (data, ack) = fractions(&r);
    println!(
        "12 Mb/s at {d:.1} m under Rayleigh fading: data {data:.4} (expected {want_data:.4}), \
         ACK {ack:.4} (expected {want_ack:.4}); {} data frames, bit errors {}, delivery {:.4}",
        r.nodes[0].frames_sent,
        r.mac.bit_errors,
        delivery(&r, 0)
    );
    assert!(want_data < 0.9, "{want_data}");
    assert!(
        (data - want_data).abs() < 0.015,
        "data {data} against {want_data}"
    );
    assert!(
        (ack - want_ack).abs() < 0.02,
        "ACK {ack} against {want_ack}"
    );
}

/// With `fading_doppler_hz`, a link's fade drifts in time (Clarke's model,
/// the sum of sinusoids of `phy::Jakes`), the same both ways. Where the
/// mean power is twice the threshold:
/// - slowly (0.2 and 2 Hz: fades of 0.4-4 s, retries a few ms apart), the
///   ACK that answers a decoded frame microseconds later sees the same
///   fade and gets through (0.9995 and 0.993 of ACKs, against e^-0.5 =
///   0.607 when each frame fades afresh), while a frame sent in a fade is
///   retried in it: more than three times as many packets are given up
///   (732 and 663 link failures against 209);
/// - fast (200 Hz: a fade lasts about 2 ms), frames fade almost
///   independently, as without the key.
#[test]
fn time_correlated_fading_gives_up_whole_fades() {
    let d = 250.0 / 2f64.powf(0.25);
    let mut s = pair(d);
    s.radio.fading = Fading::Rayleigh;
    let iid = run_checked(&s);
    let want = (-0.5f64).exp();
    let mut runs = Vec::new();
    for doppler_hz in [0.2, 2.0, 20.0, 200.0] {
        s.radio.fading_doppler_hz = doppler_hz;
        let r = run_checked(&s);
        let (data, ack) = fractions(&r);
        println!(
            "{doppler_hz} Hz: data {data:.4}, ACK {ack:.4}, retries {}, link failures {}, \
             delivery {:.4}",
            r.mac.retries,
            r.mac.link_failures,
            delivery(&r, 0)
        );
        runs.push((doppler_hz, data, ack, r.mac.link_failures));
    }
    let (iid_data, iid_ack) = fractions(&iid);
    println!(
        "independent: data {iid_data:.4}, ACK {iid_ack:.4}, link failures {}",
        iid.mac.link_failures
    );
    for &(doppler_hz, data, ack, failures) in &runs {
        if doppler_hz <= 2.0 {
            assert!(ack > 0.99, "{doppler_hz} Hz: ACK {ack}");
            assert!(
                failures > 3 * iid.mac.link_failures,
                "{doppler_hz} Hz: {failures}"
            );
        }
        if doppler_hz >= 200.0 {
            assert!((data - want).abs() < 0.02, "{doppler_hz} Hz: data {data}");
            assert!((ack - want).abs() < 0.03, "{doppler_hz} Hz: ACK {ack}");
        }
    }
    // The fades are the run's: the same again, to the bit.
    s.radio.fading_doppler_hz = 2.0;
    assert_eq!(run_checked(&s).flows, run_checked(&s).flows);
}
