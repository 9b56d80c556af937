use super::*;
use crate::engine::NS_PER_MS;

fn cfg() -> TfrcConfig {
    TfrcConfig::default()
}

fn data(seq: u64, sent_at: SimTime, rtt: SimTime) -> TfrcData {
    TfrcData {
        seq,
        sent_at,
        rtt,
        bytes: 1000,
        round: 0,
        urgent: false,
        t_rto: 0,
    }
}

fn feedback(echo: SimTime, delay: SimTime, x_recv_bps: f64, p: f64) -> TfrcFeedback {
    TfrcFeedback {
        echo,
        delay,
        x_recv_bps,
        p,
    }
}

#[test]
fn the_equation_falls_with_loss_and_tends_to_the_square_root_law() {
    let (s, r) = (1000.0_f64, 0.1_f64);
    // More loss, less rate.
    let mut last = f64::INFINITY;
    for k in (1..=60).rev() {
        let p = 10f64.powf(-(k as f64) / 10.0);
        let x = throughput_bps(s, r, p);
        assert!(x > 0.0 && x < last, "p {p}");
        last = x;
    }
    // At a low loss rate the timeout term vanishes: X = s / (R sqrt(2p/3)).
    let p = 1e-6_f64;
    let simple = s / (r * (2.0 * p / 3.0).sqrt());
    assert!((throughput_bps(s, r, p) / simple - 1.0).abs() < 0.01);
    // At p = 1 the timeout term dominates: 4R × 3 sqrt(3/8) × 33.
    let heavy = s / (r * (2.0f64 / 3.0).sqrt() + 4.0 * r * 3.0 * (3.0f64 / 8.0).sqrt() * 33.0);
    assert!((throughput_bps(s, r, 1.0) - heavy).abs() < 1e-9);
}

#[test]
fn the_equation_inverts() {
    for p in [1e-5, 1e-3, 0.02, 0.3] {
        let x = throughput_bps(1000.0, 0.05, p);
        let back = loss_rate_for(1000.0, 0.05, x);
        assert!((back / p - 1.0).abs() < 1e-6, "{p} -> {back}");
    }
    // A rate the equation cannot reach even at p = 1.
    assert_eq!(loss_rate_for(1000.0, 0.05, 1.0), 1.0);
}

#[test]
fn before_any_feedback_a_sender_sends_one_packet_a_second() {
    let mut s = TfrcSender::new(cfg(), true);
    assert_eq!(s.poll_transmit(0).map(|d| d.seq), Some(0));
    assert_eq!(s.poll_transmit(NS_PER_S / 2), None);
    assert_eq!(s.poll_timeout(), Some(NS_PER_S));
    let d = s.poll_transmit(NS_PER_S).unwrap();
    assert_eq!((d.seq, d.sent_at, d.rtt, d.bytes), (1, NS_PER_S, 0, 1000));
}

#[test]
fn an_application_limited_sender_sends_only_what_it_was_given() {
    let mut s = TfrcSender::new(cfg(), false);
    assert_eq!(s.poll_transmit(0), None);
    assert_eq!(s.poll_timeout(), None, "no timer before the first packet");
    s.write(2);
    assert!(s.poll_transmit(0).is_some());
    assert_eq!(s.queued(), 1);
    assert!(s.poll_transmit(NS_PER_S).is_some());
    assert_eq!(s.poll_transmit(5 * NS_PER_S), None);
}

#[test]
fn the_first_feedback_gives_the_rtt_and_the_initial_rate() {
    let mut s = TfrcSender::new(cfg(), true);
    let d = s.poll_transmit(0).unwrap();
    // Back after 100 ms, 20 of them spent at the receiver.
    s.on_feedback(
        100 * NS_PER_MS,
        &feedback(d.sent_at, 20 * NS_PER_MS, 1000.0, 0.0),
    );
    assert_eq!(s.rtt(), Some(80 * NS_PER_MS));
    // W_init = min(4 s, max(2 s, 4380)) = 4000 bytes a round trip.
    assert!((s.rate_bps() - 4000.0 / 0.08).abs() < 1e-6);
    // The next packet leaves s / X = 20 ms after the last.
    assert_eq!(s.poll_timeout(), Some(20 * NS_PER_MS));
    assert_eq!(
        s.poll_transmit(20 * NS_PER_MS).map(|d| d.rtt),
        Some(80 * NS_PER_MS)
    );
    // The RTT is smoothed with q = 0.9.
    s.on_feedback(
        300 * NS_PER_MS,
        &feedback(100 * NS_PER_MS, 0, 50_000.0, 0.0),
    );
    assert_eq!(s.rtt(), Some(92 * NS_PER_MS));
}

#[test]
fn slow_start_doubles_once_a_round_trip_up_to_twice_the_largest_recent_receive_rate() {
    let ms = NS_PER_MS;
    let mut s = TfrcSender::new(cfg(), true);
    s.poll_transmit(0).unwrap();
    s.on_feedback(100 * ms, &feedback(0, 0, 1000.0, 0.0));
    let x0 = s.rate_bps(); // W_init / R = 4,000 / 0.1 s
    assert_eq!(x0, 40_000.0);
    // Within the round trip: no doubling.
    s.on_feedback(150 * ms, &feedback(50 * ms, 0, 1e9, 0.0));
    assert_eq!(s.rate_bps(), x0);
    s.on_feedback(250 * ms, &feedback(150 * ms, 0, 1e9, 0.0));
    assert_eq!(s.rate_bps(), 2.0 * x0);
    // The receiver got 30,000 B/s, but X_recv_set still holds the 1e9 of
    // 250 ms, less than two round trips old: the rate doubles again.
    s.on_feedback(400 * ms, &feedback(300 * ms, 0, 30_000.0, 0.0));
    assert_eq!(s.rate_bps(), 4.0 * x0);
    // Two round trips later only 30,000 is left: at most 60,000.
    s.on_feedback(650 * ms, &feedback(550 * ms, 0, 30_000.0, 0.0));
    assert_eq!(s.rate_bps(), 60_000.0);
    // But never below the initial rate.
    s.on_feedback(900 * ms, &feedback(800 * ms, 0, 100.0, 0.0));
    assert_eq!(s.rate_bps(), x0);
}

#[test]
fn with_losses_the_rate_follows_the_equation_within_twice_the_receive_rates_of_two_round_trips() {
    let ms = NS_PER_MS;
    let mut s = TfrcSender::new(cfg(), true);
    s.poll_transmit(0).unwrap();
    let r = 0.1;
    let x_calc = throughput_bps(1000.0, r, 0.01);
    // For the first two round trips X_recv_set's infinity keeps X_recv
    // out (section 4.3): the first report, of the 1 packet a second before
    // it, does not hold the rate down.
    s.on_feedback(100 * ms, &feedback(0, 0, 1000.0, 0.01));
    assert!((s.rate_bps() - x_calc).abs() < 1e-6);
    s.on_feedback(200 * ms, &feedback(100 * ms, 0, 5_000.0, 0.01));
    assert!((s.rate_bps() - x_calc).abs() < 1e-6);
    // Then twice the largest X_recv of the last two round trips.
    s.on_feedback(300 * ms, &feedback(200 * ms, 0, 5_000.0, 0.01));
    assert_eq!(s.rate_bps(), 10_000.0);
    // Heavy loss: the equation, under the 10,000 still allowed (the 5,000
    // of 300 ms is in the set) ...
    s.on_feedback(400 * ms, &feedback(300 * ms, 0, 1.0, 0.9));
    assert!((s.rate_bps() - throughput_bps(1000.0, r, 0.9)).abs() < 1e-9);
    // ... and once only X_recv = 1 is left, at least one packet every
    // t_mbi.
    s.on_feedback(600 * ms, &feedback(500 * ms, 0, 1.0, 0.9));
    assert_eq!(s.rate_bps(), 1000.0 / 64.0);
}

#[test]
fn a_data_limited_interval_keeps_the_largest_receive_rate_and_more_loss_cuts_it() {
    let ms = NS_PER_MS;
    let p = 1e-4; // X_calc about 1.2 MB/s: the receive rates limit X.
    let mut s = TfrcSender::new(cfg(), false);
    s.write(1);
    s.poll_transmit(0).unwrap();
    // The application sent less than the rate allowed all along, and p
    // rose (from 0): the set is halved, X_recv cut to 0.85 of itself and
    // recv_limit is the set's largest, not twice it.
    s.on_feedback(100 * ms, &feedback(0, 0, 30_000.0, p));
    assert_eq!(s.rate_bps(), 25_500.0);
    s.write(1);
    let second = s.poll_transmit(150 * ms).unwrap();
    // Data-limited again, p the same: the largest X_recv so far stays in
    // the set, and recv_limit is twice it, whatever the latest report.
    s.on_feedback(250 * ms, &feedback(second.sent_at, 0, 2_000.0, p));
    assert_eq!(s.rate_bps(), 51_000.0);
    // Three packets at once: the rate holds two of them back. Their
    // interval was not data-limited: the set keeps only the last two
    // round trips' X_recv, and the old 25,500 is gone.
    s.write(3);
    let mut last = s.poll_transmit(300 * ms).unwrap();
    while let Some(at) = s.poll_timeout().filter(|_| s.queued() > 0) {
        last = s.poll_transmit(at).unwrap();
    }
    assert!(last.sent_at > 300 * ms);
    s.on_feedback(700 * ms, &feedback(last.sent_at, 0, 2_000.0, p));
    assert_eq!(s.rate_bps(), 4_000.0);
}

#[test]
fn under_ns2s_pacing_a_packet_keeps_its_time_and_slow_start_sends_at_once() {
    let ms = NS_PER_MS;
    let pacer = |rule: PacingRule| {
        let mut s = TfrcSender::new(
            TfrcConfig {
                pacing_rule: rule,
                ..cfg()
            },
            true,
        );
        assert!(s.poll_transmit(0).is_some());
        s
    };
    // The first feedback (R = 100 ms, 40,000 B/s): ns-2.35's sender sends
    // a packet at once, where RFC 5348's times it s / X after the last one
    // (25 ms after it left at 0).
    let (mut ns2, mut rfc) = (pacer(PacingRule::Ns2), pacer(PacingRule::Rfc));
    for s in [&mut ns2, &mut rfc] {
        s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    }
    assert!(ns2.poll_transmit(100 * ms).is_some());
    assert_eq!(rfc.poll_timeout(), Some(25 * ms));
    assert!(rfc.poll_transmit(100 * ms).is_some());
    // A loss (p = 0.1, an RTT sample of 100 ms): out of slow start the
    // packet timed 25 ms after 100 ms keeps its time under ns-2.35's rule;
    // RFC 5348's moves it to s / X_calc after the last packet.
    for s in [&mut ns2, &mut rfc] {
        s.on_feedback(110 * ms, &feedback(10 * ms, 0, 1e9, 0.1));
    }
    let x = throughput_bps(1000.0, 0.1, 0.1);
    let gap = (1e9 * 1000.0 / x) as SimTime;
    assert!(gap > 25 * ms, "{gap}");
    assert!(ns2.poll_transmit(125 * ms).is_some());
    assert!(rfc.poll_transmit(125 * ms).is_none());
    assert_eq!(rfc.poll_timeout(), Some(100 * ms + gap.max(1)));
    // The packet after it is spaced at the new rate on both.
    assert_eq!(ns2.poll_timeout(), Some(125 * ms + gap));
    // The no-feedback timer (2 R) halves the rate and, under ns-2.35's
    // rule, sends a packet at once.
    let expiry = 110 * ms + 200 * ms;
    ns2.on_timeout(expiry);
    assert!(ns2.poll_transmit(expiry).is_some());
}

#[test]
fn under_ns2s_rule_the_rate_climbs_by_at_most_two_packets_a_round_trip() {
    let c = TfrcConfig {
        increase_rule: IncreaseRule::Ns2,
        ..cfg()
    };
    let mut s = TfrcSender::new(c, true);
    let ms = NS_PER_MS;
    // First feedback (R = 100 ms), then a loss: leaving slow start the rate
    // takes X_calc, uncapped by the receive rate.
    s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    s.on_feedback(200 * ms, &feedback(100 * ms, 0, 1000.0, 0.01));
    let x_calc = throughput_bps(1000.0, 0.1, 0.01);
    assert!((s.rate_bps() - x_calc).abs() < 1e-6);
    // p falls: X_calc doubles, but X grows by s / R per round trip since
    // the last change (here 1), within 2 X_recv.
    s.on_feedback(300 * ms, &feedback(200 * ms, 0, 1e9, 0.0025));
    assert!((s.rate_bps() - (x_calc + 1000.0 / 0.1)).abs() < 1e-6);
    // Five round trips later: at most two packets' worth.
    let before = s.rate_bps();
    s.on_feedback(800 * ms, &feedback(700 * ms, 0, 1e9, 0.0025));
    assert!((s.rate_bps() - (before + 2.0 * 1000.0 / 0.1)).abs() < 1e-6);
    // p rises: down to X_calc at once.
    s.on_feedback(900 * ms, &feedback(800 * ms, 0, 1e9, 0.05));
    assert!((s.rate_bps() - throughput_bps(1000.0, 0.1, 0.05)).abs() < 1e-6);
    // Under RFC 5348's rule the same fall of p lifts X to X_calc at once.
    let mut rfc = TfrcSender::new(cfg(), true);
    rfc.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    rfc.on_feedback(200 * ms, &feedback(100 * ms, 0, 1e9, 0.01));
    rfc.on_feedback(300 * ms, &feedback(200 * ms, 0, 1e9, 0.0025));
    assert!((rfc.rate_bps() - throughput_bps(1000.0, 0.1, 0.0025)).abs() < 1e-6);
}

#[test]
fn oscillation_prevention_spaces_packets_by_the_last_rtt_sample() {
    // Section 4.5: X_inst = X R_sqmean / sqrt(R_sample).
    let gap_after = |on: bool, samples_ms: &[u64]| {
        let c = TfrcConfig {
            oscillation_prevention: on,
            rtt_filter: 0.95,
            ..cfg()
        };
        let mut s = TfrcSender::new(c, true);
        let mut now = 0;
        for &r in samples_ms {
            now += 1000 * NS_PER_MS;
            s.on_feedback(now, &feedback(now - r * NS_PER_MS, 0, 1e9, 0.01));
        }
        let x = s.rate_bps();
        let first = s.poll_transmit(now).unwrap();
        (x, s.poll_timeout().unwrap() - first.sent_at)
    };
    // Off: s / X, whatever the samples.
    let (x, gap) = gap_after(false, &[100, 100, 400]);
    assert_eq!(gap, (1000.0 / x * 1e9).round() as SimTime);
    // On: a sample of 400 ms after two of 100 ms. R_sqmean (ns-2.35's
    // df_ 0.95 for q2) = 0.95 (0.95 sqrt(0.1) + 0.05 sqrt(0.1)) + 0.05
    // sqrt(0.4) = 0.332, against sqrt(0.4) = 0.632: packets 1.9 times
    // further apart.
    let (x, gap) = gap_after(true, &[100, 100, 400]);
    let sqmean = 0.95 * 0.1f64.sqrt() + 0.05 * 0.4f64.sqrt();
    let expected = 1000.0 / (x * sqmean / 0.4f64.sqrt());
    assert!((gap as f64 * 1e-9 / expected - 1.0).abs() < 1e-6, "{gap}");
    // A short sample brings them closer.
    let (x, gap) = gap_after(true, &[400, 400, 100]);
    assert!((gap as f64) * 1e-9 < 1000.0 / x * 0.6, "{gap}");
}

#[test]
fn without_feedback_the_rate_halves_and_an_idle_sender_down_to_the_recover_rate() {
    let ms = NS_PER_MS;
    let mut s = TfrcSender::new(cfg(), true);
    s.poll_transmit(0).unwrap();
    // Before any feedback: 2 s, then X / 2.
    assert_eq!(s.poll_timeout(), Some(NS_PER_S), "the next packet first");
    s.on_timeout(NS_PER_S);
    assert_eq!(s.rate_bps(), 1000.0);
    s.on_timeout(2 * NS_PER_S);
    assert_eq!(s.rate_bps(), 500.0);
    // The timer restarts at max(2 s, 2 s / X) = 4 s; nothing sent since,
    // and no RTT to recover to: the idle sender keeps its rate.
    s.on_timeout(6 * NS_PER_S);
    assert_eq!(s.rate_bps(), 500.0);

    // After feedback with losses (X_calc, the set's infinity above it):
    // Update_Limits(X_calc / 2).
    let mut s = TfrcSender::new(cfg(), true);
    s.poll_transmit(0).unwrap();
    s.on_feedback(100 * ms, &feedback(0, 0, 3_000.0, 1e-4));
    let x_calc = s.rate_bps();
    assert!((x_calc - throughput_bps(1000.0, 0.1, 1e-4)).abs() < 1e-6);
    s.poll_transmit(200 * ms).unwrap();
    // max(4 R, 2 s / X) = 400 ms after the feedback.
    assert_eq!(s.nofeedback_at, 500 * ms);
    s.on_timeout(500 * ms);
    assert!((s.rate_bps() / (x_calc / 2.0) - 1.0).abs() < 1e-9);
    // Idle from then on: halved at each expiry (X_calc > 2 X_recv, X_recv
    // halving) while X_recv is at least the recover rate, W_init / R =
    // 40,000 B/s: X_calc / 4, / 8, / 16, and there it stays (X_recv
    // X_calc / 32, about 38,000).
    for _ in 0..6 {
        let at = s.nofeedback_at;
        s.on_timeout(at);
    }
    assert!((s.rate_bps() / (x_calc / 16.0) - 1.0).abs() < 1e-9);
    assert!(x_calc / 32.0 < 40_000.0 && x_calc / 16.0 > 40_000.0);
}

#[test]
fn a_receiver_answers_the_first_packet_then_once_a_round_trip() {
    let mut r = TfrcReceiver::new(cfg());
    r.on_data(10 * NS_PER_MS, &data(0, 0, 0));
    let fb = r.poll_feedback(12 * NS_PER_MS).unwrap();
    assert_eq!((fb.echo, fb.delay, fb.p), (0, 2 * NS_PER_MS, 0.0));
    assert_eq!(r.poll_feedback(12 * NS_PER_MS), None);
    // With the sender's RTT known (50 ms), the timer paces the feedback.
    r.on_data(30 * NS_PER_MS, &data(1, 20 * NS_PER_MS, 50 * NS_PER_MS));
    assert_eq!(r.poll_feedback(30 * NS_PER_MS), None);
    assert_eq!(r.poll_timeout(), Some(80 * NS_PER_MS));
    r.on_data(60 * NS_PER_MS, &data(2, 50 * NS_PER_MS, 50 * NS_PER_MS));
    r.on_timeout(80 * NS_PER_MS);
    let fb = r.poll_feedback(80 * NS_PER_MS).unwrap();
    assert_eq!((fb.echo, fb.delay), (50 * NS_PER_MS, 20 * NS_PER_MS));
    // 2,000 bytes since the feedback at 12 ms.
    assert!((fb.x_recv_bps - 2000.0 / 0.068).abs() < 1e-6);
    // Nothing arrives: the timer sends nothing, and waits for data.
    r.on_timeout(130 * NS_PER_MS);
    assert_eq!(r.poll_feedback(130 * NS_PER_MS), None);
    assert_eq!(r.poll_timeout(), None);
}

/// A receiver fed packets `0..n` sent 10 ms apart (RTT 50 ms), except
/// those in `lost`.
fn fed(n: u64, lost: &[u64]) -> TfrcReceiver {
    let mut r = TfrcReceiver::new(cfg());
    for seq in (0..n).filter(|s| !lost.contains(s)) {
        let sent = seq * 10 * NS_PER_MS;
        r.on_data(sent + 5 * NS_PER_MS, &data(seq, sent, 50 * NS_PER_MS));
        r.poll_feedback(sent + 5 * NS_PER_MS);
    }
    r
}

#[test]
fn a_packet_is_lost_once_three_later_ones_arrived() {
    let mut r = fed(12, &[10]);
    assert_eq!(r.lost, 0, "only one later packet");
    r.on_data(125 * NS_PER_MS, &data(12, 120 * NS_PER_MS, 50 * NS_PER_MS));
    assert_eq!(r.lost, 0);
    r.on_data(135 * NS_PER_MS, &data(13, 130 * NS_PER_MS, 50 * NS_PER_MS));
    assert_eq!(r.lost, 1);
    assert!(r.loss_event_rate() > 0.0);
    // A new loss event raises p: feedback at once.
    let fb = r.poll_feedback(135 * NS_PER_MS).unwrap();
    assert_eq!(fb.p, r.loss_event_rate());
    // The packet arriving late changes nothing.
    r.on_data(140 * NS_PER_MS, &data(10, 100 * NS_PER_MS, 50 * NS_PER_MS));
    assert_eq!((r.lost, r.received), (1, 14));
}

#[test]
fn losses_within_a_round_trip_make_one_loss_event() {
    // 20 and 23 were sent 30 ms apart, within the 50 ms RTT: one event.
    let one = fed(40, &[20, 23]);
    assert_eq!(one.lost, 2);
    assert_eq!(one.intervals().count(), 1);
    // 20 and 30, 100 ms apart: two events, 10 packets between their starts.
    let two = fed(40, &[20, 30]);
    assert_eq!(two.intervals().collect::<Vec<_>>()[0], 10);
    assert_eq!(two.intervals().count(), 2);
}

#[test]
fn the_loss_event_rate_is_the_weighted_mean_of_the_last_eight_intervals() {
    // A loss every 10th packet (each a new event, 100 ms apart): after the
    // synthetic first interval has left the last eight, p = 1/10.
    let lost: Vec<u64> = (1..=12).map(|k| 10 * k).collect();
    let r = fed(125, &lost);
    assert_eq!(r.intervals().take(8).collect::<Vec<_>>(), vec![10; 8]);
    assert!(
        (r.loss_event_rate() - 0.1).abs() < 1e-12,
        "{}",
        r.loss_event_rate()
    );
    // A long open interval counts once it raises the mean: 10 packets ago
    // the last loss, so I_0 = 10 and p stays; 40 packets later it falls.
    let quiet = fed(165, &lost);
    let (i0, w) = (165.0 - 120.0, [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
    let tot0 = i0 + 10.0 * w[1..].iter().sum::<f64>();
    let expected = w.iter().sum::<f64>() / tot0;
    assert!((quiet.loss_event_rate() - expected).abs() < 1e-12);
}

#[test]
fn the_first_loss_interval_comes_from_the_receive_rate() {
    // 100 packets of 1000 bytes in 1 s (10 ms apart): X_recv = 100 kB/s at
    // R = 50 ms; the first interval is 1/p for the p that gives that rate.
    let mut r = TfrcReceiver::new(cfg());
    for seq in (0..104).filter(|s| *s != 100) {
        let sent = seq * 10 * NS_PER_MS;
        r.on_data(sent + 5 * NS_PER_MS, &data(seq, sent, 50 * NS_PER_MS));
    }
    assert_eq!(r.lost, 1);
    let first = r.intervals().next().unwrap();
    // No feedback was sent: 103 packets arrived in the 1.035 s up to the
    // one that revealed the loss.
    let x_recv = 103_000.0 / 1.035;
    let p = loss_rate_for(1000.0, 0.05, x_recv);
    assert!(
        (first as f64 - 1.0 / p).abs() <= 1.0,
        "{first} against {}",
        1.0 / p
    );
}

fn ns2_feedback() -> TfrcConfig {
    TfrcConfig {
        feedback_rule: FeedbackRule::Ns2,
        ..cfg()
    }
}

/// A data packet as ns-2.35's sender marks it.
fn marked(seq: u64, sent_at: SimTime, rtt: SimTime, round: u32, urgent: bool) -> TfrcData {
    TfrcData {
        round,
        urgent,
        ..data(seq, sent_at, rtt)
    }
}

#[test]
fn under_ns2s_rule_the_first_new_packet_a_round_trip_after_a_report_asks_for_the_next() {
    let ms = NS_PER_MS;
    let mut r = TfrcReceiver::new(ns2_feedback());
    // The sender marks its packets urgent until its first report: each is
    // answered.
    r.on_data(10 * ms, &marked(0, 0, 0, 0, true));
    assert!(r.poll_feedback(10 * ms).is_some());
    r.on_data(20 * ms, &marked(1, 10 * ms, 50 * ms, 1, true));
    assert!(r.poll_feedback(20 * ms).is_some());
    // Then (R = 50 ms): 1.5 R is the backup timer, not R.
    assert_eq!(r.poll_timeout(), Some(20 * ms + 75 * ms));
    r.on_data(60 * ms, &marked(2, 50 * ms, 50 * ms, 1, false));
    assert_eq!(r.poll_feedback(60 * ms), None, "40 ms after the report");
    // The first new packet at least R after the report asks for one at
    // once, where RFC 5348's receiver waits for its timer.
    r.on_data(72 * ms, &marked(3, 62 * ms, 50 * ms, 1, false));
    let fb = r.poll_feedback(72 * ms).unwrap();
    assert_eq!((fb.echo, fb.delay), (62 * ms, 0));
    // 52 ms since the last report, at least R: X_recv over those 52 ms.
    assert!((fb.x_recv_bps - 2000.0 / 0.052).abs() < 1e-6);
    let mut rfc = TfrcReceiver::new(cfg());
    rfc.on_data(10 * ms, &data(0, 0, 50 * ms));
    rfc.poll_feedback(10 * ms).unwrap();
    rfc.on_data(72 * ms, &data(1, 62 * ms, 50 * ms));
    assert_eq!(rfc.poll_feedback(72 * ms), None);
    assert_eq!(rfc.poll_timeout(), Some(60 * ms));
}

#[test]
fn under_ns2s_rule_the_backup_timer_runs_on_and_a_close_report_counts_the_last_round_trip() {
    let ms = NS_PER_MS;
    let mut r = TfrcReceiver::new(ns2_feedback());
    r.on_data(10 * ms, &marked(0, 0, 100 * ms, 1, true));
    r.poll_feedback(10 * ms).unwrap();
    assert_eq!(r.poll_timeout(), Some(160 * ms));
    // Nothing arrives. The report left at the instant packet 0 arrived, so
    // ns-2.35's `last_arrival_ >= last_report_sent` still holds: the timer
    // sends one more, with nothing received counted as one packet a second.
    r.on_timeout(160 * ms);
    let again = r.poll_feedback(160 * ms).unwrap();
    assert_eq!((again.echo, again.delay), (0, 150 * ms));
    assert_eq!(again.x_recv_bps, 1000.0);
    assert_eq!(r.poll_timeout(), Some(310 * ms));
    // Then nothing is sent, and the timer runs on.
    r.on_timeout(310 * ms);
    assert_eq!(r.poll_feedback(310 * ms), None);
    assert_eq!(r.poll_timeout(), Some(460 * ms));
    // A new packet at 360 ms, more than R after the last report, asks at
    // once; the next two, less than R after it, do not.
    for (k, at) in [360u64, 380, 400].into_iter().enumerate() {
        r.on_data(
            at * ms,
            &marked(k as u64 + 1, (at - 10) * ms, 100 * ms, 1, false),
        );
        assert_eq!(r.poll_feedback(at * ms).is_some(), at == 360, "{at}");
    }
    // An urgent packet at 430 ms: less than R since that report, so
    // X_recv counts the packets that arrived less than R before it (360,
    // 380, 400 and 430 ms: 4,000 bytes) over R.
    r.on_data(430 * ms, &marked(4, 420 * ms, 100 * ms, 2, true));
    let fb = r.poll_feedback(430 * ms).unwrap();
    assert!(
        (fb.x_recv_bps - 4000.0 / 0.1).abs() < 1e-6,
        "{}",
        fb.x_recv_bps
    );
}

#[test]
fn under_ns2s_rule_one_later_packet_reveals_a_loss_and_reports_its_loss_event() {
    let ms = NS_PER_MS;
    // Packets 10 ms apart, R = 50 ms, the sender's round going up by one
    // every 5 packets (a report a round trip); one report each time the
    // receiver asks.
    let feed = |cfg: TfrcConfig, n: u64, lost: &[u64]| {
        let mut r = TfrcReceiver::new(cfg);
        let mut reports = Vec::new();
        for seq in (0..n).filter(|s| !lost.contains(s)) {
            let sent = seq * 10 * ms;
            let d = marked(seq, sent, 50 * ms, 1 + (seq / 5) as u32, seq == 0);
            r.on_data(sent + 5 * ms, &d);
            if r.poll_feedback(sent + 5 * ms).is_some() {
                reports.push(seq);
            }
        }
        (r, reports)
    };
    let (r, reports) = feed(ns2_feedback(), 12, &[10]);
    assert_eq!(r.lost, 1, "packet 11 revealed it");
    assert!(reports.contains(&11));
    // Each loss event is reported by the packet after its loss; RFC 5348's
    // receiver learns of it two packets later, from the third.
    let lost = [20, 40, 60, 80, 100, 140];
    let (ns2, ns2_reports) = feed(ns2_feedback(), 144, &lost);
    let (rfc, rfc_reports) = feed(cfg(), 144, &lost);
    assert_eq!((ns2.events, rfc.events), (6, 6));
    for l in lost {
        assert!(ns2_reports.contains(&(l + 1)), "{ns2_reports:?}");
        assert!(rfc_reports.contains(&(l + 3)), "{rfc_reports:?}");
    }
}

#[test]
fn under_ns2s_rule_the_open_interval_counts_as_est_loss_wali_does() {
    let ms = NS_PER_MS;
    // Packets 10 ms apart, R = 50 ms, a round every 5 packets; 20 and 40
    // are lost, each the first of a loss event.
    let mut r = TfrcReceiver::new(ns2_feedback());
    let mut base = None;
    for seq in (0..60).filter(|s| ![20, 40].contains(s)) {
        let sent = seq * 10 * ms;
        r.on_data(
            sent + 5 * ms,
            &marked(seq, sent, 50 * ms, 1 + (seq / 5) as u32, seq == 0),
        );
        let reported = r.poll_feedback(sent + 5 * ms).is_some();
        if reported && seq < 20 {
            base = Some(seq);
        }
        if seq == 21 {
            // The report at the first loss passes the synthetic p and
            // leaves the count where the last report before it stopped.
            assert!(reported);
            assert_eq!(r.reported_highest, base);
        }
        if seq == 30 {
            // ns-2.35 counts on from its last report before the loss:
            // packets before the loss, the loss, and those after it.
            let base = base.expect("a report before the loss");
            assert!(base < 19, "{base}");
            assert_eq!(r.open_interval(20), 30 - base);
            let rfc = TfrcReceiver {
                cfg: cfg(),
                ..r.clone()
            };
            assert_eq!(rfc.open_interval(20), 11, "RFC 5348: 20..=30");
        }
    }
    let base = base.unwrap();
    assert_eq!(r.events, 2);
    // The second event closed that count at 40 (the lost packet included),
    // and the open interval counts 41..=59 (the lost packet not).
    assert_eq!(r.intervals().next(), Some(40 - base));
    assert_eq!(r.open_interval(40), 19);
}

#[test]
fn under_ns2s_rule_a_loss_in_the_same_feedback_round_joins_the_loss_event() {
    let ms = NS_PER_MS;
    // Losses 60 ms apart (more than R = 50 ms) but reported in the same
    // sender round: one event under ns-2.35's PreciseLoss_, two otherwise.
    let feed = |cfg: TfrcConfig| {
        let mut r = TfrcReceiver::new(cfg);
        for seq in (0..30).filter(|s| ![10, 16].contains(s)) {
            let sent = seq * 10 * ms;
            r.on_data(sent + 5 * ms, &marked(seq, sent, 50 * ms, 1, false));
        }
        r
    };
    let (ns2, rfc) = (feed(ns2_feedback()), feed(cfg()));
    assert_eq!((ns2.lost, ns2.events), (2, 1));
    assert_eq!((rfc.lost, rfc.events), (2, 2));
}

#[test]
fn under_ns2s_rule_the_sender_halves_after_two_round_trips_and_asks_for_a_report() {
    let ms = NS_PER_MS;
    let c = ns2_feedback();
    let mut s = TfrcSender::new(c, true);
    let d = s.poll_transmit(0).unwrap();
    assert!(d.urgent && d.round == 0, "urgent from the start");
    s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.01));
    let x = s.rate_bps();
    let d = s.poll_transmit(100 * ms).unwrap();
    assert!(!d.urgent && d.round == 1);
    // max(2 R, 2 s / X): 200 ms here, where RFC 5348 waits max(4 R, ...).
    let spacing = (2.0 * 1000.0 / x * 1e9) as SimTime;
    assert_eq!(
        s.poll_timeout().map(|t| t.max(300 * ms)),
        Some((100 * ms + spacing).max(300 * ms))
    );
    s.on_timeout(100 * ms + (200 * ms).max(spacing));
    assert_eq!(s.rate_bps(), x / 2.0);
    let d = s.poll_transmit(10 * NS_PER_S).unwrap();
    assert!(d.urgent && d.round == 2);
    s.on_feedback(10 * NS_PER_S + 100 * ms, &feedback(d.sent_at, 0, 1e9, 0.01));
    assert!(!s.poll_transmit(20 * NS_PER_S).unwrap().urgent);
}

#[test]
fn history_discounting_lets_a_long_quiet_interval_outweigh_the_old_ones() {
    // A loss every 10th packet, then 29 quiet packets: I_0 = 30 is over
    // twice the mean of 10, so the older intervals are discounted by
    // DF = 2 × 10 / 30.
    let lost: Vec<u64> = (1..=12).map(|k| 10 * k).collect();
    let plain = fed(150, &lost);
    let c = TfrcConfig {
        history_discounting: true,
        ..cfg()
    };
    let mut r = TfrcReceiver::new(c);
    for seq in (0..150).filter(|s| !lost.contains(s)) {
        let sent = seq * 10 * NS_PER_MS;
        r.on_data(sent + 5 * NS_PER_MS, &data(seq, sent, 50 * NS_PER_MS));
        r.poll_feedback(sent + 5 * NS_PER_MS);
    }
    let w = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
    let i0 = 150.0 - 120.0;
    let df = 2.0 * 10.0 / i0;
    let expected =
        (w[0] + df * w[1..].iter().sum::<f64>()) / (i0 + df * 10.0 * w[1..].iter().sum::<f64>());
    assert!(
        (r.loss_event_rate() - expected).abs() < 1e-12,
        "{}",
        r.loss_event_rate()
    );
    assert!(r.loss_event_rate() < plain.loss_event_rate());
    // At most by half: 200 quiet packets discount no further than 0.5.
    let mut long = r.clone();
    for seq in 150..400 {
        let sent = seq * 10 * NS_PER_MS;
        long.on_data(sent + 5 * NS_PER_MS, &data(seq, sent, 50 * NS_PER_MS));
    }
    let i0 = 400.0 - 120.0;
    let expected =
        (w[0] + 0.5 * w[1..].iter().sum::<f64>()) / (i0 + 0.5 * 10.0 * w[1..].iter().sum::<f64>());
    assert!((long.loss_event_rate() - expected).abs() < 1e-12);
    // Once the long interval closes, the older ones keep the discount it
    // gave them: I_1 = 280 weighs 1, the 10s 0.5 each.
    long.on_data(
        4015 * NS_PER_MS,
        &data(401, 4010 * NS_PER_MS, 50 * NS_PER_MS),
    );
    long.on_data(
        4025 * NS_PER_MS,
        &data(402, 4020 * NS_PER_MS, 50 * NS_PER_MS),
    );
    long.on_data(
        4035 * NS_PER_MS,
        &data(403, 4030 * NS_PER_MS, 50 * NS_PER_MS),
    );
    assert_eq!(long.intervals().next(), Some(280));
    let closed = [280.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
    let df_i = [1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    let tot1: f64 = (0..8).map(|i| closed[i] * w[i] * df_i[i]).sum();
    let w1: f64 = (0..8).map(|i| w[i] * df_i[i]).sum();
    // I_0 is short: the closed intervals decide.
    assert!(
        (long.loss_event_rate() - w1 / tot1).abs() < 1e-12,
        "{}",
        long.loss_event_rate()
    );
}

#[test]
fn ns2s_timeout_estimate_counts_100_ms_ticks() {
    let mut t = TickRto::default();
    // A first sample of 300 ms: 3 ticks, srtt 3 and rttvar 1.5, so
    // srtt + 4 rttvar = 9 ticks.
    t.sample(0.3);
    assert!((t.rto_s - 0.9).abs() < 1e-12, "{}", t.rto_s);
    // The same again: the deviation shrinks by a quarter of itself, to
    // 1.25 ticks, which the scaled integers keep as 5 / 4: 8 ticks.
    t.sample(0.3);
    assert!((t.rto_s - 0.8).abs() < 1e-12, "{}", t.rto_s);
    // Under half a tick counts as one.
    let mut short = TickRto::default();
    short.sample(0.04);
    assert!((short.rto_s - 0.3).abs() < 1e-12, "{}", short.rto_s);
}

#[test]
fn under_ns2s_rto_rule_the_equation_takes_the_tick_estimate_and_the_receiver_gets_it() {
    let ms = NS_PER_MS;
    let c = TfrcConfig {
        rto_rule: RtoRule::Ns2,
        ..cfg()
    };
    let mut s = TfrcSender::new(c.clone(), true);
    assert_eq!(s.poll_transmit(0).unwrap().t_rto, 0, "no estimate yet");
    s.on_feedback(300 * ms, &feedback(0, 0, 1e9, 0.01));
    let x = throughput_with_rto_bps(1000.0, 0.3, 0.9, 0.01);
    assert!(
        (s.rate_bps() - x).abs() < 1e-6,
        "{} against {x}",
        s.rate_bps()
    );
    // RFC 5348's t_RTO, 4 R = 1.2 s, allows less.
    assert!(throughput_bps(1000.0, 0.3, 0.01) < x);
    assert_eq!(s.poll_transmit(NS_PER_S).unwrap().t_rto, 900 * ms);
    // The receiver's first loss interval inverts the equation with it.
    let mut r = TfrcReceiver::new(c);
    for seq in (0..104).filter(|s| *s != 100) {
        let sent = seq * 10 * ms;
        let d = TfrcData {
            t_rto: 900 * ms,
            ..data(seq, sent, 50 * ms)
        };
        r.on_data(sent + 5 * ms, &d);
    }
    let first = r.intervals().next().unwrap();
    let p = loss_rate_with_rto_for(1000.0, 0.05, 0.9, 103_000.0 / 1.035);
    assert!(
        (first as f64 - 1.0 / p).abs() <= 1.0,
        "{first} against {}",
        1.0 / p
    );
}

#[test]
fn under_ns2s_rule_a_data_limited_sender_keeps_the_initial_rate_without_feedback() {
    let ms = NS_PER_MS;
    // R = 100 ms: the initial rate is 4 packets a round trip, 40,000 B/s.
    let init = 40_000.0;
    // An application-limited sender with nothing queued when the timer
    // expires: halved while above twice the initial rate, then held there.
    let mut s = TfrcSender::new(ns2_feedback(), false);
    s.write(1);
    s.poll_transmit(0).unwrap();
    s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.001));
    let x = s.rate_bps();
    assert!(x > 4.0 * init, "{x}");
    let mut rates = Vec::new();
    for k in 1..=5 {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(s.round, 1 + k);
        rates.push(s.rate_bps());
    }
    let mut expect = x;
    for &r in &rates {
        expect = if expect > 2.0 * init {
            expect / 2.0
        } else {
            expect.min(init)
        };
        assert!((r - expect).abs() < 1e-6, "{rates:?}");
    }
    assert_eq!(*rates.last().unwrap(), init);
    // A bulk sender (never data-limited) halves every time.
    let mut bulk = TfrcSender::new(ns2_feedback(), true);
    bulk.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.001));
    let x = bulk.rate_bps();
    for k in 1..=5 {
        let t = bulk.nofeedback_at;
        bulk.poll_transmit(t);
        bulk.on_timeout(t);
        assert!((bulk.rate_bps() - x / 2f64.powi(k)).abs() < 1e-6);
    }
}

#[test]
fn under_ns2s_rule_a_data_limited_sender_may_climb_to_the_initial_rate() {
    let ms = NS_PER_MS;
    let c = TfrcConfig {
        increase_rule: IncreaseRule::Ns2,
        ..ns2_feedback()
    };
    // A loss while the receiver saw 1,000 B/s: X_calc at p = 0.001 is far
    // above 2 X_recv. A bulk sender climbs by s / R a round trip within
    // max(2 X_recv, s / R) = 10,000 B/s; an application-limited one whose
    // packet waited for the application within the last 1.5 R, within the
    // initial rate, 40,000 B/s.
    let climb = |bulk: bool| {
        let mut s = TfrcSender::new(c.clone(), bulk);
        s.write(1);
        s.poll_transmit(0).unwrap();
        s.on_feedback(100 * ms, &feedback(0, 0, 1000.0, 0.2));
        // The next packet may leave at about 190 ms; the application hands
        // it over at 250 ms.
        assert!(s.next_send < 250 * ms);
        s.write(1);
        s.poll_transmit(250 * ms).unwrap();
        // Two round trips since the last change: up by 2 s / R at most.
        s.on_feedback(300 * ms, &feedback(200 * ms, 0, 1000.0, 0.001));
        s.rate_bps()
    };
    assert!((climb(true) - 10_000.0).abs() < 1e-6, "{}", climb(true));
    let x_loss = throughput_bps(1000.0, 0.1, 0.2);
    assert!(x_loss + 20_000.0 < 40_000.0);
    assert!(
        (climb(false) - (x_loss + 20_000.0)).abs() < 1e-6,
        "{}",
        climb(false)
    );
}

#[test]
fn under_ns2s_rule_slow_start_falls_to_the_receive_rate_once_above_twice_it() {
    let ms = NS_PER_MS;
    let c = TfrcConfig {
        increase_rule: IncreaseRule::Ns2,
        ..cfg()
    };
    let mut s = TfrcSender::new(c.clone(), true);
    // The first two reports keep the initial rate (40,000 B/s at R = 100 ms).
    s.on_feedback(100 * ms, &feedback(0, 0, 1000.0, 0.0));
    assert_eq!(s.rate_bps(), 40_000.0);
    s.on_feedback(150 * ms, &feedback(50 * ms, 0, 1000.0, 0.0));
    assert_eq!(s.rate_bps(), 40_000.0);
    // More than R since the last change and below 2 X_recv: doubles.
    s.on_feedback(300 * ms, &feedback(200 * ms, 0, 1e6, 0.0));
    assert_eq!(s.rate_bps(), 80_000.0);
    // Within R of that change: kept.
    s.on_feedback(350 * ms, &feedback(250 * ms, 0, 1e6, 0.0));
    assert_eq!(s.rate_bps(), 80_000.0);
    // Above twice the receive rate (2 x 30,000): X_recv at once.
    s.on_feedback(380 * ms, &feedback(280 * ms, 0, 30_000.0, 0.0));
    assert_eq!(s.rate_bps(), 30_000.0);
    // An application-limited sender with nothing queued keeps at least the
    // initial rate when twice the receive rate is below it (`idleFix_`).
    let mut app = TfrcSender::new(c, false);
    app.write(1);
    app.poll_transmit(0).unwrap();
    app.on_feedback(100 * ms, &feedback(0, 0, 1000.0, 0.0));
    app.on_feedback(150 * ms, &feedback(50 * ms, 0, 1000.0, 0.0));
    app.on_feedback(300 * ms, &feedback(200 * ms, 0, 1000.0, 0.0));
    assert_eq!(app.rate_bps(), 40_000.0);
}

#[test]
fn under_ns2s_pacing_a_packet_that_waited_leaves_at_once_off_the_timers_ticks() {
    let ms = NS_PER_MS;
    let c = TfrcConfig {
        pacing_rule: PacingRule::Ns2,
        ..ns2_feedback()
    };
    let mut s = TfrcSender::new(c, false);
    s.write(1);
    s.poll_transmit(0).unwrap();
    // The first report: 40,000 B/s (R = 100 ms), a tick at once, then one
    // every 25 ms: 100, 125, 150, 175 ms...
    s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    assert_eq!(s.next_send, 100 * ms);
    assert!(s.data_limited(100 * ms));
    // The application hands a packet over at 160 ms: it leaves at once,
    // and the timer's next tick stays at 175 ms, when the sender is
    // data-limited again.
    s.write(1);
    let d = s.poll_transmit(160 * ms).unwrap();
    assert_eq!(d.sent_at, 160 * ms);
    assert_eq!(s.last_limited, Some(160 * ms));
    assert_eq!(s.next_send, 175 * ms);
    assert!(!s.data_limited(170 * ms));
    assert!(s.data_limited(175 * ms));
    // Under RFC 5348's pacing the next packet is spaced from this one.
    let mut rfc = TfrcSender::new(ns2_feedback(), false);
    rfc.write(1);
    rfc.poll_transmit(0).unwrap();
    rfc.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    rfc.write(1);
    rfc.poll_transmit(160 * ms).unwrap();
    assert_eq!(rfc.next_send, 185 * ms);
}

#[test]
fn under_ns2s_rules_slow_start_spreads_each_increase_over_a_round_trip() {
    let ms = NS_PER_MS;
    let c = TfrcConfig {
        increase_rule: IncreaseRule::Ns2,
        pacing_rule: PacingRule::Ns2,
        ..cfg()
    };
    let mut s = TfrcSender::new(c, true);
    s.poll_transmit(0).unwrap();
    s.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    s.on_feedback(150 * ms, &feedback(50 * ms, 0, 1e9, 0.0));
    assert_eq!(s.rate_bps(), 40_000.0);
    // The third report doubles X to 80,000 B/s; ns-2.35's `slow_increase_`
    // spaces the packets at 45,000, 50,000 ... B/s, 5,000 more each, the
    // 40,000 of the increase spread over the 8 packets of a round trip.
    s.on_feedback(300 * ms, &feedback(200 * ms, 0, 1e9, 0.0));
    assert_eq!(s.rate_bps(), 80_000.0);
    let mut sent = Vec::new();
    let mut t = 300 * ms;
    for _ in 0..10 {
        let d = s.poll_transmit(t).unwrap();
        sent.push(d.sent_at);
        t = s.next_send;
    }
    let gaps: Vec<f64> = sent.windows(2).map(|w| secs(w[1] - w[0]) * 1e3).collect();
    let expect = [
        1e3 / 45.0,
        1e3 / 50.0,
        1e3 / 55.0,
        1e3 / 60.0,
        1e3 / 65.0,
        1e3 / 70.0,
        1e3 / 75.0,
        1e3 / 80.0,
        1e3 / 80.0,
    ];
    for (g, e) in gaps.iter().zip(expect) {
        assert!((g - e).abs() < 1e-3, "{gaps:?}");
    }
    // Under RFC 5348's pacing the new rate spaces the packets at once.
    let mut rfc = TfrcSender::new(
        TfrcConfig {
            increase_rule: IncreaseRule::Ns2,
            ..cfg()
        },
        true,
    );
    rfc.poll_transmit(0).unwrap();
    rfc.on_feedback(100 * ms, &feedback(0, 0, 1e9, 0.0));
    rfc.on_feedback(150 * ms, &feedback(50 * ms, 0, 1e9, 0.0));
    rfc.on_feedback(300 * ms, &feedback(200 * ms, 0, 1e9, 0.0));
    let a = rfc
        .poll_transmit(rfc.next_send.max(300 * ms))
        .unwrap()
        .sent_at;
    let b = rfc.poll_transmit(rfc.next_send).unwrap().sent_at;
    assert_eq!(b - a, 12_500_000);
}

#[test]
fn the_no_feedback_timer_runs_from_the_first_packet_not_from_time_zero() {
    // A flow that starts at 10 s: its first packet, then one a second, and
    // the timer 2 s after the first packet.
    let t0 = 10 * NS_PER_S;
    let mut s = TfrcSender::new(cfg(), true);
    assert_eq!(s.poll_timeout(), Some(0), "the first packet at once");
    assert_eq!(s.poll_transmit(t0).map(|d| d.seq), Some(0));
    assert_eq!(s.poll_timeout(), Some(t0 + NS_PER_S));
    s.on_timeout(t0 + NS_PER_S);
    assert_eq!(s.rate_bps(), 1000.0, "no expiry 1 s after the start");
    s.poll_transmit(t0 + NS_PER_S).unwrap();
    assert_eq!(s.poll_timeout(), Some(t0 + 2 * NS_PER_S));
    s.on_timeout(t0 + 2 * NS_PER_S);
    assert_eq!(s.rate_bps(), 500.0);
    // An application-limited sender under ns-2.35's rules: likewise.
    let mut s = TfrcSender::new(ns2_feedback(), false);
    s.write(1);
    s.poll_transmit(t0).unwrap();
    assert_eq!(s.round, 0);
    assert_eq!(s.poll_timeout(), Some(t0 + 2 * NS_PER_S));
}

#[test]
fn under_ns2s_start_the_first_packets_go_at_300_bytes_a_second() {
    let ns2_start = || TfrcConfig {
        start_rule: StartRule::Ns2,
        pacing_rule: PacingRule::Ns2,
        ..ns2_feedback()
    };
    let t0 = 5 * NS_PER_S;
    let mut s = TfrcSender::new(ns2_start(), true);
    s.poll_transmit(t0).unwrap();
    assert_eq!(s.rate_bps(), 300.0);
    // The next packet s / 300 = 3.333 s later, the timer 2 s / X = 6.667 s.
    let spacing = 3_333_333_333;
    assert_eq!(s.poll_timeout(), Some(t0 + spacing));
    assert_eq!(s.poll_transmit(t0 + spacing).map(|d| d.seq), Some(1));
    assert_eq!(s.poll_timeout(), Some(t0 + 2 * spacing));
    assert_eq!(s.nofeedback_at, t0 + 6_666_666_667);
    // A bulk sender halves at the expiry, sends at once (ns-2.35's
    // `nextpkt`), and the timer runs 2 s / X again: 13.333 s.
    s.on_timeout(t0 + 6_666_666_667);
    assert_eq!(s.rate_bps(), 150.0);
    assert_eq!(s.round, 1);
    assert_eq!(s.poll_timeout(), Some(t0 + 6_666_666_667));
    assert_eq!(s.nofeedback_at, t0 + 6_666_666_667 + 13_333_333_333);

    // A data-limited sender keeps its rate without an RTT: ns-2.35's floor,
    // the initial window over an RTT of 0, is infinite.
    let mut s = TfrcSender::new(ns2_start(), false);
    s.write(1);
    s.poll_transmit(t0).unwrap();
    let t = s.poll_timeout().unwrap();
    assert_eq!(t, t0 + 6_666_666_667);
    s.on_timeout(t);
    assert_eq!(s.rate_bps(), 300.0);
    assert!(s.all_idle);

    // The first report gives the RFC 3390 window by packet size (ns-2.35's
    // `rfc3390`: 4 packets up to 1095 bytes, 3 below 2190, then 2), where
    // RFC 5348 gives min(4 s, max(2 s, 4380)) bytes.
    for (bytes, ns2_packets, rfc_bytes) in [
        (1000, 4.0, 4000.0),
        (1095, 4.0, 4380.0),
        (1200, 3.0, 4380.0),
        (2189, 3.0, 4380.0),
        (2190, 2.0, 4380.0),
        (3000, 2.0, 6000.0),
    ] {
        for (rule, want) in [
            (StartRule::Ns2, ns2_packets * bytes as f64 / 0.1),
            (StartRule::Rfc, rfc_bytes / 0.1),
        ] {
            let mut s = TfrcSender::new(
                TfrcConfig {
                    packet_bytes: bytes,
                    start_rule: rule,
                    ..TfrcConfig::default()
                },
                true,
            );
            s.poll_transmit(0).unwrap();
            s.on_feedback(100 * NS_PER_MS, &feedback(0, 0, 1000.0, 0.0));
            assert!((s.rate_bps() - want).abs() < 1e-6, "{bytes} {rule:?}");
        }
    }
}
