//! `[radio] error_model = "awgn"`: frames lost to bit errors at the rate
//! the model gives for their SNR, hidden by the MAC's retries, and a rate's
//! reach shorter the faster it is.

use crate::common::*;
use manetsim_core::mac::{Phy, ResponseRate};
use manetsim_core::phy::{ErrorModel, RadioParams};
use manetsim_core::scenario::{
    AppKind, ErrorModelKind, OnOffConfig, OnOffDistribution, Propagation, RateControlKind, Scenario,
};

/// Two 802.11a nodes `d_m` apart in free space at 5.18 GHz (channel 36),
/// sending 0.1 W, with thresholds low enough for any frame to be decodable
/// (-110 dBm), node 0 sending 1000-byte UDP
/// datagrams (1,056-byte frames) to node 1 at 100 a second for 60 s with
/// no RTS/CTS, at `rate_bps`.
pub(crate) fn pair(d_m: f64, rate_bps: u64, errors: bool) -> Scenario {
    let mut s = base(61.0, 3);
    place(&mut s, vec![[0.0, 0.0], [d_m, 0.0]]);
    s.area.width_m = d_m + 10.0;
    s.area.height_m = 10.0;
    s.radio.propagation = Propagation::FreeSpace;
    s.radio.frequency_hz = 5.18e9;
    s.radio.tx_power_w = 0.1;
    s.radio.rx_threshold_w = 1e-14;
    s.radio.cs_threshold_w = 1e-14;
    if errors {
        s.radio.error_model = ErrorModelKind::Awgn;
    }
    s.mac.standard = "802.11a".into();
    s.mac.data_rate_bps = rate_bps;
    s.mac.basic_rate_bps = 6_000_000;
    s.mac.rts_threshold_bytes = 3000;
    s.flows.push(cbr(0, 1, 1000, 800_000.0, 1.0, 61.0));
    s
}

/// The distance at which a 1,056-byte frame at `rate_bps` is lost with
/// probability `per`, and the loss of a 14-byte ACK at 6 Mb/s there.
fn distance_for(s: &Scenario, rate_bps: u64, per: f64) -> (f64, f64) {
    let radio = RadioParams::from_scenario(&s.radio);
    let mut model = ErrorModel::new(s.radio.noise_figure_db);
    let mut lost = |d: f64, rate: u64, bytes: u32| {
        1.0 - model.frame_success(Phy::Ofdm, rate, bytes, radio.mean_rx_power_w(d))
    };
    let (mut near, mut far) = (1.0, 5000.0);
    for _ in 0..60 {
        let mid = 0.5 * (near + far);
        if lost(mid, rate_bps, 1056) < per {
            near = mid;
        } else {
            far = mid;
        }
    }
    (near, lost(near, 6_000_000, 14))
}

#[test]
fn frames_are_lost_at_the_rate_the_snr_gives_and_retried() {
    let (d, ack_loss) = distance_for(&pair(1.0, 54_000_000, true), 54_000_000, 0.4);
    assert!(ack_loss < 1e-6, "{ack_loss}");
    let r = run_checked(&pair(d, 54_000_000, true));
    let data_frames = r.nodes[0].frames_sent;
    let measured = r.mac.bit_errors as f64 / data_frames as f64;
    println!(
        "54 Mb/s at {d:.1} m: {} of {data_frames} frames lost ({measured:.4}), delivery {:.4}",
        r.mac.bit_errors,
        delivery(&r, 0)
    );
    // About 10,000 frames: 3 standard deviations of the fraction are 0.015.
    assert!((measured - 0.4).abs() < 0.016, "{measured}");
    // Each packet has 7 tries: 0.4^7 = 0.16 % lost.
    assert!(delivery(&r, 0) > 0.995, "{}", delivery(&r, 0));
    // Every lost frame is retried, but the last of a packet's 7 tries.
    assert_eq!(r.mac.retries + r.mac.link_failures, r.mac.bit_errors);
    // At 6 Mb/s, 12 dB more robust, the same distance loses nothing.
    let slow = run_checked(&pair(d, 6_000_000, true));
    assert_eq!((slow.mac.bit_errors, slow.mac.retries), (0, 0));
    assert_eq!(delivery(&slow, 0), 1.0);
    // Without the model every frame gets through, at any rate.
    let none = run_checked(&pair(d, 54_000_000, false));
    assert_eq!((none.mac.bit_errors, none.mac.retries), (0, 0));
    // The model's draws are the run's: the same again, to the bit.
    let again = run_checked(&pair(d, 54_000_000, true));
    assert_eq!(again.mac.bit_errors, r.mac.bit_errors);
    assert_eq!(again.flows, r.flows);
}

#[test]
fn the_fastest_rate_reaches_least_far() {
    // Where a 54 Mb/s frame is lost 99.9 % of the time the packets give up
    // (7 tries each), while 24 Mb/s still delivers all.
    let (d, _) = distance_for(&pair(1.0, 54_000_000, true), 54_000_000, 0.999);
    let fast = run_checked(&pair(d, 54_000_000, true));
    let medium = run_checked(&pair(d, 24_000_000, true));
    println!(
        "at {d:.1} m: 54 Mb/s delivers {:.3}, 24 Mb/s {:.3}",
        delivery(&fast, 0),
        delivery(&medium, 0)
    );
    assert!(delivery(&fast, 0) < 0.05, "{}", delivery(&fast, 0));
    assert!(fast.mac.link_failures > 0);
    assert_eq!(delivery(&medium, 0), 1.0);
}

/// A sender S 20 m from its receiver R, 30 dB above the noise, and a
/// hidden pair H → X on R's other side, H 80 m from R (12 dB weaker there
/// than S, so R's MAC captures S's frames over H's) and 100 m from S, out
/// of its carrier-sense range. 802.11a at 5.18 GHz in free space,
/// 1000-byte datagrams at 5 Mb/s each way for 10 s, no RTS/CTS.
fn hidden_pair(rate_bps: u64, h_sends: bool) -> Scenario {
    let mut s = base(11.0, 4);
    place(
        &mut s,
        vec![[0.0, 0.0], [20.0, 0.0], [100.0, 0.0], [105.0, 0.0]],
    );
    s.area.width_m = 110.0;
    s.radio.propagation = Propagation::FreeSpace;
    s.radio.frequency_hz = 5.18e9;
    s.radio.tx_power_w = 0.008;
    // -76.8 dBm: R hears H (-75.8) and X (-76.4); S hears neither.
    s.radio.rx_threshold_w = 2.09e-11;
    s.radio.cs_threshold_w = 2.09e-11;
    s.radio.error_model = ErrorModelKind::Awgn;
    s.mac.standard = "802.11a".into();
    s.mac.data_rate_bps = rate_bps;
    s.mac.basic_rate_bps = 6_000_000;
    s.mac.rts_threshold_bytes = 3000;
    s.flows.push(cbr(0, 1, 1000, 5e6, 1.0, 11.0));
    if h_sends {
        s.flows.push(cbr(2, 3, 1000, 5e6, 1.0, 11.0));
    }
    s
}

#[test]
fn a_captured_weaker_frame_is_interference_that_the_fast_rate_cannot_bear() {
    let quiet = run_checked(&hidden_pair(54_000_000, false));
    let noisy = run_checked(&hidden_pair(54_000_000, true));
    let slow = run_checked(&hidden_pair(6_000_000, true));
    println!(
        "54 Mb/s: bit errors {} alone, {} with H (captures {}, collisions {}); \
         6 Mb/s with H: {} (captures {}); S's goodput {:.0} / {:.0} kbit/s",
        quiet.mac.bit_errors,
        noisy.mac.bit_errors,
        noisy.mac.captures,
        noisy.mac.collisions,
        slow.mac.bit_errors,
        slow.mac.captures,
        quiet.flows[0].throughput_kbps,
        noisy.flows[0].throughput_kbps,
    );
    // Alone, 30 dB loses nothing; with H, the 18 dB left while one of its
    // frames overlaps loses most such frames at 54 Mb/s (it needs about
    // 21 dB), none at 6 Mb/s (2.5 dB).
    assert_eq!(quiet.mac.bit_errors, 0);
    assert!(noisy.mac.captures > 100, "{}", noisy.mac.captures);
    assert!(
        noisy.mac.bit_errors * 2 > noisy.mac.captures,
        "{} of {}",
        noisy.mac.bit_errors,
        noisy.mac.captures
    );
    assert!(slow.mac.captures > 100, "{}", slow.mac.captures);
    assert_eq!(slow.mac.bit_errors, 0);
}

/// [`pair`] with node 0 offering 40 Mb/s (more than 802.11a carries) for
/// 10 s, at `rate_bps` or, with `arf`, adapting up to 54 Mb/s.
fn saturated_pair(d_m: f64, rate_bps: u64, arf: bool) -> Scenario {
    let mut s = pair(d_m, rate_bps, true);
    s.duration_s = 11.0;
    s.flows[0].rate_bps = Some(40e6);
    s.flows[0].stop_s = Some(11.0);
    if arf {
        s.mac.rate_control = RateControlKind::Arf;
        s.mac.data_rate_bps = 54_000_000;
    }
    s
}

#[test]
fn arf_finds_the_rate_the_distance_allows() {
    let kbps = |s: &Scenario| run_checked(s).flows[0].throughput_kbps;
    // Near (100 m, 28 dB): every rate gets through; ARF climbs to 54 Mb/s.
    let near_54 = kbps(&saturated_pair(100.0, 54_000_000, false));
    let near_arf = kbps(&saturated_pair(100.0, 54_000_000, true));
    // Far (where 54 Mb/s loses 99.9 % of frames, and 36 Mb/s, 6 dB more
    // robust, almost none): ARF settles at 36 Mb/s, probing 48 now and
    // then, and carries more than a constant 24 Mb/s, less than 36.
    let (far, _) = distance_for(&pair(1.0, 54_000_000, true), 54_000_000, 0.999);
    let far_54 = kbps(&saturated_pair(far, 54_000_000, false));
    let far_24 = kbps(&saturated_pair(far, 24_000_000, false));
    let far_36 = kbps(&saturated_pair(far, 36_000_000, false));
    let far_arf = kbps(&saturated_pair(far, 54_000_000, true));
    println!(
        "near: 54 Mb/s {near_54:.0}, ARF {near_arf:.0} kbit/s; at {far:.1} m: 54 Mb/s \
         {far_54:.0}, 24 Mb/s {far_24:.0}, 36 Mb/s {far_36:.0}, ARF {far_arf:.0} kbit/s"
    );
    assert!(near_arf > 0.95 * near_54, "{near_arf} {near_54}");
    assert!(far_54 < 0.05 * far_24, "{far_54} {far_24}");
    assert!(
        far_24 < far_arf && far_arf < far_36,
        "{far_24} {far_arf} {far_36}"
    );
    // AARF probes 48 Mb/s less and less often as its probes fail, and
    // comes nearer 36 Mb/s's.
    let mut aarf = saturated_pair(far, 54_000_000, true);
    aarf.mac.rate_control = RateControlKind::Aarf;
    let far_aarf = kbps(&aarf);
    println!("AARF {far_aarf:.0} kbit/s");
    assert!(
        far_arf < far_aarf && far_aarf < far_36,
        "{far_arf} {far_aarf} {far_36}"
    );
}

#[test]
fn arf_with_the_standards_response_rates_is_answered_at_the_rate_it_climbs_to() {
    // Near, ARF climbs to 54 Mb/s; its ACKs then come at 24 Mb/s rather
    // than 6, and every exchange is 16 µs shorter.
    let run = |arf: bool, response_rate: ResponseRate| {
        let mut s = saturated_pair(100.0, 54_000_000, arf);
        s.mac.response_rate = response_rate;
        run_checked(&s)
    };
    let basic = run(true, ResponseRate::Basic);
    let standard = run(true, ResponseRate::Standard);
    let constant = run(false, ResponseRate::Standard);
    let kbps = |r: &manetsim_core::RunResult| r.flows[0].throughput_kbps;
    println!(
        "ARF: basic-rate ACKs {:.0}, the standard's {:.0}, a constant 54 Mb/s {:.0} kbit/s",
        kbps(&basic),
        kbps(&standard),
        kbps(&constant)
    );
    let gain = kbps(&standard) / kbps(&basic);
    assert!(gain > 1.04 && gain < 1.06, "{gain}");
    assert!(kbps(&standard) / kbps(&constant) > 0.99);
    // Each rate's ACKs come in time: nothing is retried.
    assert_eq!(standard.mac.ack_failures, 0);
}

#[test]
fn a_receive_range_beyond_what_the_ack_timeout_allows_is_warned_of() {
    // Thresholds at -140 dBm reach kilometres in free space; the MAC's
    // response timeout allows 2 µs of propagation each way (600 m).
    let far = run_checked(&pair(2000.0, 6_000_000, false));
    let warned = |r: &manetsim_core::RunResult| {
        r.warnings
            .iter()
            .any(|w| w.contains("always time out") && w.contains("600 m apart"))
    };
    assert!(warned(&far), "{:?}", far.warnings);
    // There every ACK comes too late: each data frame is sent 7 times
    // (the receiver delivers the first copy and drops the others); the
    // last one's timeout may fall after the run's end.
    assert!(far.nodes[0].frames_sent - far.mac.ack_failures <= 1);
    assert!(far.mac.link_failures > 0);
    // Nodes that cannot be that far apart are not warned about.
    assert!(!warned(&run_checked(&pair(220.0, 6_000_000, false))));
    // The warning names the key and the delay that covers the range
    // (about 14.6 km here: 4.86e-5 s).
    let advice = far.warnings.iter().find(|w| w.contains("always time out"));
    assert!(
        advice.is_some_and(|w| w.contains("mac.max_propagation_delay_s = 4.86e-5 covers")),
        "{advice:?}"
    );
    // A timeout that allows 2 km (6.67 µs) each way: every frame is
    // acknowledged, and nothing is warned of, as the nodes are at most
    // 2,010 m apart.
    let mut allowed = pair(2000.0, 6_000_000, false);
    allowed.mac.max_propagation_delay_s = 7e-6;
    let allowed = run_checked(&allowed);
    assert!(!warned(&allowed), "{:?}", allowed.warnings);
    assert_eq!(
        (allowed.mac.ack_failures, allowed.mac.link_failures),
        (0, 0)
    );
    assert!(delivery(&allowed, 0) > 0.999, "{}", delivery(&allowed, 0));
}

/// [`saturated_pair`] under Minstrel, up to 54 Mb/s.
fn minstrel_pair(d_m: f64) -> Scenario {
    let mut s = saturated_pair(d_m, 54_000_000, false);
    s.mac.rate_control = RateControlKind::Minstrel;
    s
}

#[test]
fn minstrel_finds_the_rate_the_distance_allows() {
    let kbps = |s: &Scenario| run_checked(s).flows[0].throughput_kbps;
    // Near (100 m): every rate gets through; Minstrel settles on 54 Mb/s
    // and pays for its look-around (one frame in ten at another rate).
    let near_54 = kbps(&saturated_pair(100.0, 54_000_000, false));
    let near = run_checked(&minstrel_pair(100.0));
    // Far (54 Mb/s loses 99.9 % of frames, 36 Mb/s almost none).
    let (far, _) = distance_for(&pair(1.0, 54_000_000, true), 54_000_000, 0.999);
    let far_36 = kbps(&saturated_pair(far, 36_000_000, false));
    let far_24 = kbps(&saturated_pair(far, 24_000_000, false));
    let far_arf = kbps(&saturated_pair(far, 54_000_000, true));
    let minstrel = run_checked(&minstrel_pair(far));
    let mut rts = minstrel_pair(far);
    rts.mac.rts_threshold_bytes = 0;
    let with_rts = run_checked(&rts);
    let far_36_rts = {
        let mut s = saturated_pair(far, 36_000_000, false);
        s.mac.rts_threshold_bytes = 0;
        kbps(&s)
    };
    let far_minstrel = minstrel.flows[0].throughput_kbps;
    println!(
        "Minstrel near: {:.0} kbit/s against 54 Mb/s {near_54:.0}; at {far:.1} m: Minstrel \
         {far_minstrel:.0}, 36 Mb/s {far_36:.0}, 24 Mb/s {far_24:.0}, ARF {far_arf:.0} kbit/s \
         (retries {}, bit errors {}); with RTS/CTS: Minstrel {:.0}, 36 Mb/s {far_36_rts:.0}",
        near.flows[0].throughput_kbps,
        minstrel.mac.retries,
        minstrel.mac.bit_errors,
        with_rts.flows[0].throughput_kbps,
    );
    assert!(near.flows[0].throughput_kbps > 0.97 * near_54);
    assert_eq!((near.mac.retries, near.mac.bit_errors), (0, 0));
    // Far: above the next rate down, within 15 % of the best constant rate
    // (what its samples of 48 and 54 Mb/s cost), and no frame given up.
    assert!(far_minstrel > far_24 * 1.1, "{far_minstrel} {far_24}");
    assert!(far_minstrel > 0.85 * far_36, "{far_minstrel} {far_36}");
    assert_eq!(minstrel.mac.link_failures, 0);
    assert!(minstrel.mac.retries > 0);
    // The retry chain runs the same under RTS/CTS.
    let rts_kbps = with_rts.flows[0].throughput_kbps;
    assert!(rts_kbps > 0.85 * far_36_rts, "{rts_kbps} {far_36_rts}");
    assert_eq!(with_rts.mac.link_failures, 0);
    // The samples' draws are the run's: the same again, to the bit.
    let again = run_checked(&minstrel_pair(far));
    assert_eq!(again.flows, minstrel.flows);
}

#[test]
fn minstrel_gives_a_frame_up_when_its_retry_chain_is_used_up() {
    // Beyond every rate's reach (6 Mb/s loses 99.99 %): each frame tries
    // its whole chain, then fails; the MAC's own limit of 7 is not what
    // stops it.
    let (d, _) = distance_for(&pair(1.0, 6_000_000, true), 6_000_000, 0.9999);
    let mut s = minstrel_pair(d);
    s.duration_s = 3.0;
    s.flows[0].stop_s = Some(3.0);
    let r = run_checked(&s);
    let tries_per_failure =
        (r.mac.retries + r.mac.link_failures) as f64 / r.mac.link_failures as f64;
    println!(
        "beyond reach at {d:.1} m: {} link failures, {} retries, {tries_per_failure:.2} tries a frame",
        r.mac.link_failures, r.mac.retries
    );
    // Once the statistics say every rate fails, each has 2 tries and the
    // chain is four stages of 2: 8 tries, a few more in the first 100 ms.
    assert!(r.mac.link_failures > 10);
    assert!(
        (8.0..8.5).contains(&tries_per_failure),
        "{tries_per_failure}"
    );
}

#[test]
fn a_frame_overheard_for_another_node_is_lost_to_bit_errors_too() {
    // Node 0 sends 54 Mb/s frames to node 1, 20 m away; node 2 overhears
    // them from where a 1,056-byte frame at 54 Mb/s is lost half the time,
    // and node 1's 6 Mb/s ACKs from 20 m farther, which it decodes almost
    // always. It decodes the frames the model lets through, and a frame it
    // fails to decode sets EIFS rather than the frame's NAV.
    let (d, _) = distance_for(&pair(1.0, 54_000_000, true), 54_000_000, 0.5);
    let mut s = pair(d, 54_000_000, true);
    place(&mut s, vec![[d, 0.0], [d + 20.0, 0.0], [0.0, 0.0]]);
    s.area.width_m = d + 30.0;
    let r = run_checked(&s);
    let radio = RadioParams::from_scenario(&s.radio);
    let mut model = ErrorModel::new(s.radio.noise_figure_db);
    let data = model.frame_success(Phy::Ofdm, 54_000_000, 1056, radio.mean_rx_power_w(d));
    let ack = model.frame_success(Phy::Ofdm, 6_000_000, 14, radio.mean_rx_power_w(d + 20.0));
    let want = r.nodes[0].frames_sent as f64 * data + r.nodes[1].frames_sent as f64 * ack;
    let got = r.nodes[2].frames_received as f64;
    println!(
        "overheard at {d:.1} m: {got} frames decoded, expected {want:.0} (data {data:.3}, ACK {ack:.4})"
    );
    assert!((data - 0.5).abs() < 0.01, "{data}");
    assert!((got / want - 1.0).abs() < 0.02, "{got} against {want}");
    // What counts in mac.bit_errors is frames for their receiver: node 1,
    // 20 m away, loses none.
    assert_eq!(r.mac.bit_errors, 0);
}

/// A sender S 20 m from its receiver R (802.11a at 5.18 GHz in free
/// space, 8 mW, the thresholds 3 dB below S's power at R), and on R's
/// other side a pair I → J, 2 m apart, out of everyone's carrier-sense
/// range: I's frames reach R 4 dB below S's, J's ACKs 4.5 dB below, both
/// under carrier sense. S sends 1000-byte datagrams, 200 a second, I about
/// 200 a second, each after an exponential idle time; both at 54 Mb/s and
/// with one try each. `floor_w`: `interference_threshold_w`.
fn faint_pair(floor_w: Option<f64>) -> Scenario {
    let mut s = base(101.0, 5);
    let d_ri = 20.0 * 2.5f64.sqrt();
    place(
        &mut s,
        vec![
            [0.0, 0.0],
            [20.0, 0.0],
            [20.0 + d_ri, 0.0],
            [22.0 + d_ri, 0.0],
        ],
    );
    s.area.width_m = 30.0 + d_ri;
    s.area.height_m = 10.0;
    s.radio.propagation = Propagation::FreeSpace;
    s.radio.frequency_hz = 5.18e9;
    s.radio.tx_power_w = 0.008;
    let p_sr = RadioParams::from_scenario(&s.radio).mean_rx_power_w(20.0);
    s.radio.rx_threshold_w = p_sr / 2.0;
    s.radio.cs_threshold_w = p_sr / 2.0;
    s.radio.error_model = ErrorModelKind::Awgn;
    s.radio.interference_threshold_w = floor_w;
    s.mac.standard = "802.11a".into();
    s.mac.data_rate_bps = 54_000_000;
    s.mac.basic_rate_bps = 6_000_000;
    s.mac.rts_threshold_bytes = 3000;
    s.mac.short_retry_limit = 1;
    s.flows.push(cbr(0, 1, 1000, 1.6e6, 1.0, 101.0));
    let mut i = cbr(2, 3, 1000, 8e9, 1.0, 101.0);
    i.app = AppKind::Onoff;
    i.onoff = Some(OnOffConfig {
        on_s: 1e-9,
        off_s: 0.005,
        distribution: OnOffDistribution::Exponential,
        ..Default::default()
    });
    s.flows.push(i);
    s
}

#[test]
fn a_frame_too_weak_to_sense_still_interferes_down_to_the_threshold() {
    let floor_w = faint_pair(None).radio.cs_threshold_w / 1000.0;
    let deaf = run_checked(&faint_pair(None));
    let r = run_checked(&faint_pair(Some(floor_w)));
    // I's frame and J's ACK after SIFS are on the air for 180 + 16 + 44
    // µs, S's frame for 180. 4 dB of SINR spoils 64-QAM at once, but not
    // the BPSK of the preamble's 20 µs, so S's frame is lost when one of
    // I's blocks starts within 240 µs before its 20th µs or before its
    // end: at I's rate λ, with probability λ × 400 µs.
    let lambda = r.nodes[2].frames_sent as f64 / 100.0;
    let expected = lambda * 400e-6;
    let lost = r.flows[0].sent - r.flows[0].received;
    let measured = lost as f64 / r.flows[0].sent as f64;
    println!(
        "I at {lambda:.1} frames/s: S lost {lost} of {} ({measured:.4}), expected {expected:.4}; \
         bit errors {} ({} without faint frames)",
        r.flows[0].sent, r.mac.bit_errors, deaf.mac.bit_errors,
    );
    // Without the key nothing reaches R under carrier sense: no loss. The
    // MAC and I's traffic are the same either way (the faint frames are
    // never sensed).
    assert_eq!(deaf.mac.bit_errors, 0);
    assert_eq!(delivery(&deaf, 0), 1.0);
    assert_eq!(deaf.nodes[2].frames_sent, r.nodes[2].frames_sent);
    assert_eq!(r.mac.captures + r.mac.collisions + r.mac.retries, 0);
    // 20,000 packets: 4 standard deviations of the fraction are 0.0077.
    assert!(
        (measured - expected).abs() < 0.008,
        "{measured} vs {expected}"
    );
}
