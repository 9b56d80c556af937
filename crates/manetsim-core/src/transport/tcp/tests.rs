//! Sender and receiver state-machine tests on hand-made segments, and an
//! end-to-end loop through a lossy pipe for every variant.

use super::cc::{AnyCc, CcKind, CongestionControl};
use super::*;
use crate::engine::{Rng, SimTime, Stream};
use crate::engine::{NS_PER_MS, NS_PER_S};

const MSS: u64 = 1000;

fn cfg(kind: CcKind) -> TcpConfig {
    TcpConfig {
        mss_bytes: MSS as u32,
        ..TcpConfig::with_variant(kind)
    }
}

fn ack(n: u64) -> TcpSegment {
    TcpSegment {
        ack: n,
        flags: TcpFlags {
            ack: true,
            ..Default::default()
        },
        window: 20 * MSS as u32,
        ..Default::default()
    }
}

fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> TcpSegment {
    TcpSegment {
        sack: blocks.to_vec(),
        ..ack(n)
    }
}

fn data(seq: u64, len: u32) -> TcpSegment {
    TcpSegment {
        seq,
        len,
        flags: TcpFlags {
            ack: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn drain(s: &mut TcpSender, now: SimTime) -> Vec<TcpSegment> {
    let mut v = Vec::new();
    while let Some(seg) = s.poll_transmit(now) {
        v.push(seg);
        assert!(v.len() < 1000, "runaway sender");
    }
    v
}

/// A sender with `cwnd` segments in flight (0..cwnd×MSS) and ssthresh high.
fn with_flight(kind: CcKind, cwnd: f64) -> TcpSender {
    let mut s = TcpSender::new(cfg(kind), None);
    s.state_mut().cwnd = cwnd;
    let sent = drain(&mut s, 0);
    assert_eq!(sent.len(), cwnd as usize);
    s
}

fn dupacks(s: &mut TcpSender, now: SimTime, n: u64, k: usize) {
    for _ in 0..k {
        s.on_segment(now, &ack(n));
    }
}

// ---- Sender: windows and slow start --------------------------------------

#[test]
fn sender_initial_window_is_window_init() {
    let mut s = TcpSender::new(cfg(CcKind::NewReno), None);
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 2);
    assert_eq!((segs[0].seq, segs[0].len), (0, 1000));
    assert_eq!(segs[1].seq, 1000);
    assert!(s.poll_timeout().is_some(), "RTO armed");
}

#[test]
fn sender_slow_start_then_window_cap() {
    let mut s = TcpSender::new(cfg(CcKind::Reno), None);
    drain(&mut s, 0);
    let mut acked = 0;
    for i in 1..200 {
        acked += MSS;
        s.on_segment(i * NS_PER_MS, &ack(acked));
        drain(&mut s, i * NS_PER_MS);
    }
    let m = s.metrics();
    assert_eq!(m.cwnd_packets, 20.0, "capped at window_");
    assert!(m.snd_max - m.snd_una <= 20 * MSS);
}

#[test]
fn finite_flow_is_done_when_all_acked() {
    let mut s = TcpSender::new(cfg(CcKind::NewReno), Some(2500));
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 2);
    s.on_segment(NS_PER_MS, &ack(2000));
    let segs = drain(&mut s, NS_PER_MS);
    assert_eq!((segs[0].seq, segs[0].len), (2000, 500));
    assert!(!s.is_done());
    s.on_segment(2 * NS_PER_MS, &ack(2500));
    assert!(s.is_done());
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn app_limited_sender_sends_what_was_written() {
    let mut s = TcpSender::new_app_limited(cfg(CcKind::Reno));
    assert!(drain(&mut s, 0).is_empty());
    s.write(100);
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].len, 100);
}

// ---- Sender: loss recovery per variant -----------------------------------

#[test]
fn tahoe_goes_to_cwnd_1_on_three_dupacks() {
    let mut s = with_flight(CcKind::Tahoe, 10.0);
    dupacks(&mut s, 1, 0, 2);
    assert_eq!(s.metrics().cwnd_packets, 10.0);
    dupacks(&mut s, 1, 0, 1);
    let m = s.metrics();
    assert_eq!(m.cwnd_packets, 1.0);
    assert_eq!(m.ssthresh_packets, 5.0);
    assert_eq!(m.fast_retransmits, 1);
    let segs = drain(&mut s, 1);
    assert_eq!(segs.len(), 1);
    assert!(segs[0].retransmission);
    assert_eq!(segs[0].seq, 0);
    // More dupacks do not trigger a second reduction.
    dupacks(&mut s, 2, 0, 5);
    assert_eq!(s.metrics().fast_retransmits, 1);
}

#[test]
fn reno_leaves_recovery_on_the_first_new_ack() {
    let mut s = with_flight(CcKind::Reno, 10.0);
    dupacks(&mut s, 1, 0, 3);
    let m = s.metrics();
    assert!(m.in_recovery);
    assert_eq!(m.ssthresh_packets, 5.0);
    assert_eq!(m.cwnd_packets, 8.0); // ssthresh + 3
    let segs = drain(&mut s, 1);
    assert_eq!(segs.len(), 1);
    assert_eq!((segs[0].seq, segs[0].retransmission), (0, true));
    dupacks(&mut s, 2, 0, 1);
    assert_eq!(s.metrics().cwnd_packets, 9.0); // inflation
    s.on_segment(3, &ack(2000)); // partial, but Reno leaves anyway
    let m = s.metrics();
    assert!(!m.in_recovery);
    assert_eq!(m.cwnd_packets, 5.0);
}

/// A sender with `cwnd` (fractional) and ⌊cwnd⌋ segments in flight.
fn with_cwnd(c: TcpConfig, cwnd: f64) -> TcpSender {
    let mut s = TcpSender::new(c, None);
    s.state_mut().cwnd = cwnd;
    assert_eq!(drain(&mut s, 0).len(), cwnd as usize);
    s
}

#[test]
fn ns2_ssthresh_rule_halves_the_window_and_keeps_the_integer() {
    let ns2 = |kind| TcpConfig {
        ssthresh_rule: SsthreshRule::Ns2,
        ..cfg(kind)
    };
    // ns-2.35's trace: cwnd_ 7.838 -> 3.919 on a fast retransmit, with
    // ssthresh_ 3; RFC 5681 halves the 7 segments in flight.
    let mut s = with_cwnd(ns2(CcKind::Reno), 7.8);
    dupacks(&mut s, 1, 0, 3);
    let m = s.metrics();
    assert_eq!(m.ssthresh_packets, 3.0);
    assert!((m.cwnd_packets - (3.9 + 3.0)).abs() < 1e-9, "inflated by 3");
    dupacks(&mut s, 1, 0, 2);
    s.on_segment(2, &ack(1000));
    assert!(
        (s.metrics().cwnd_packets - 3.9).abs() < 1e-9,
        "left at the half"
    );
    let mut rfc = with_cwnd(cfg(CcKind::Reno), 7.8);
    dupacks(&mut rfc, 1, 0, 3);
    rfc.on_segment(2, &ack(1000));
    let m = rfc.metrics();
    assert_eq!((m.ssthresh_packets, m.cwnd_packets), (3.5, 3.5));

    // A timeout during recovery halves the window without the inflation
    // (cwnd_ 3.9 there, so ssthresh_ 1, raised to 2).
    let mut s = with_cwnd(ns2(CcKind::NewReno), 7.8);
    dupacks(&mut s, 1, 0, 6);
    assert!(s.metrics().cwnd_packets > 9.0);
    s.on_timeout(s.poll_timeout().unwrap());
    let m = s.metrics();
    assert_eq!((m.ssthresh_packets, m.cwnd_packets), (2.0, 1.0));

    // Above window_ the cap is halved; a timeout outside recovery too.
    let mut s = with_cwnd(ns2(CcKind::Tahoe), 20.0);
    s.state_mut().cwnd = 25.0;
    s.on_timeout(s.poll_timeout().unwrap());
    assert_eq!(s.metrics().ssthresh_packets, 10.0);
    let mut s = with_cwnd(ns2(CcKind::Tahoe), 5.5);
    s.on_timeout(s.poll_timeout().unwrap());
    assert_eq!(s.metrics().ssthresh_packets, 2.0);
    // Slow start after it stops at the integer.
    let mut s = with_cwnd(ns2(CcKind::Reno), 9.9);
    s.on_timeout(s.poll_timeout().unwrap());
    assert_eq!(s.metrics().ssthresh_packets, 4.0);
    let mut acked = 0;
    for i in 1..=3 {
        drain(&mut s, i);
        acked += MSS;
        s.on_segment(i, &ack(acked));
    }
    assert!(
        (s.metrics().cwnd_packets - 4.0).abs() < 1e-9,
        "1 + 3 in slow start"
    );
    s.on_segment(4, &ack(acked + MSS));
    assert!(
        (s.metrics().cwnd_packets - 4.25).abs() < 1e-9,
        "then 1/cwnd"
    );
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_two_dupacks() {
    let lt = |kind| TcpConfig {
        limited_transmit: true,
        ..cfg(kind)
    };
    for kind in [CcKind::Tahoe, CcKind::Reno, CcKind::NewReno] {
        let mut s = with_cwnd(lt(kind), 10.0);
        let mut sent = Vec::new();
        for k in 1..=4u64 {
            s.on_segment(k, &ack(0));
            sent.push(drain(&mut s, k));
        }
        let seqs: Vec<Vec<(u64, bool)>> = sent
            .iter()
            .map(|v| v.iter().map(|g| (g.seq, g.retransmission)).collect())
            .collect();
        assert_eq!(seqs[0], vec![(10_000, false)], "{}", kind.name());
        assert_eq!(seqs[1], vec![(11_000, false)], "{}", kind.name());
        assert_eq!(seqs[2], vec![(0, true)], "{}: fast retransmit", kind.name());
        assert_eq!(s.metrics().fast_retransmits, 1);
        // Without it the first two duplicates send nothing.
        let mut s = with_cwnd(cfg(kind), 10.0);
        s.on_segment(1, &ack(0));
        assert!(drain(&mut s, 1).is_empty());
    }
    // Not beyond window_: at the cap nothing more leaves.
    let mut s = with_cwnd(lt(CcKind::Reno), 20.0);
    s.on_segment(1, &ack(0));
    assert!(drain(&mut s, 1).is_empty());
    // cwnd 9.5: nine in flight, and the first duplicate allows ⌊10.5⌋.
    let mut s = with_cwnd(lt(CcKind::Reno), 9.5);
    s.on_segment(1, &ack(0));
    assert_eq!(drain(&mut s, 1).len(), 1);
    s.on_segment(2, &ack(0));
    assert_eq!(drain(&mut s, 2).len(), 1);
    // Duplicates after a fast retransmit are not a new run: Tahoe's
    // go-back-N (cwnd 1) sends nothing more on them.
    let mut s = with_cwnd(lt(CcKind::Tahoe), 10.0);
    dupacks(&mut s, 1, 0, 3);
    assert_eq!(drain(&mut s, 1).len(), 1, "the fast retransmit");
    for k in 2..6 {
        s.on_segment(k, &ack(0));
        assert!(drain(&mut s, k).is_empty(), "duplicate {}", k + 2);
    }
    // A new ACK withdraws an unused allowance.
    let mut s = with_cwnd(lt(CcKind::Reno), 4.0);
    s.on_segment(1, &ack(0));
    s.on_segment(2, &ack(1000));
    let segs = drain(&mut s, 2);
    assert_eq!(segs.len(), 2, "the window's own two, nothing more");
}

/// Two duplicates, a timeout, then three more: the sent sequence numbers
/// after the timeout, per event (the timeout's own retransmission first).
fn after_a_timeout(kind: CcKind) -> Vec<Vec<(u64, bool)>> {
    let c = TcpConfig {
        limited_transmit: true,
        ..cfg(kind)
    };
    let mut s = with_cwnd(c, 10.0);
    for k in 1..=2 {
        s.on_segment(k, &ack(0));
        assert_eq!(
            drain(&mut s, k).len(),
            1,
            "{}: limited transmit",
            kind.name()
        );
    }
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    let mut out = vec![drain(&mut s, t)];
    for k in 1..=3 {
        s.on_segment(t + k, &ack(0));
        out.push(drain(&mut s, t + k));
    }
    out.iter()
        .map(|v| v.iter().map(|g| (g.seq, g.retransmission)).collect())
        .collect()
}

#[test]
fn a_timeout_starts_a_new_run_of_duplicates_except_under_tahoe() {
    // ns-2.35's Reno and NewReno `timeout()` zero `dupacks_`: the first
    // two duplicates after it each send the next go-back-N segment
    // (`send_one`: at most cwnd 1 + the duplicates outstanding), the
    // third none (the fast retransmit is barred until `recover`).
    for kind in [CcKind::Reno, CcKind::NewReno] {
        assert_eq!(
            after_a_timeout(kind),
            vec![
                vec![(0, true)],
                vec![(1000, true)],
                vec![(2000, true)],
                vec![]
            ],
            "{}",
            kind.name()
        );
    }
    // Its base agent (Tahoe) keeps counting: these are the third to fifth
    // duplicates, and nothing leaves on them.
    assert_eq!(
        after_a_timeout(CcKind::Tahoe),
        vec![vec![(0, true)], vec![], vec![], vec![]]
    );
}

#[test]
fn newreno_stays_in_recovery_after_a_partial_ack() {
    let mut s = with_flight(CcKind::NewReno, 10.0);
    dupacks(&mut s, 1, 0, 3);
    drain(&mut s, 1);
    s.on_segment(2, &ack(2000)); // partial: 2000..3000 also lost
    let m = s.metrics();
    assert!(m.in_recovery);
    let segs = drain(&mut s, 2);
    assert_eq!(segs[0].seq, 2000);
    assert!(segs[0].retransmission);
    s.on_segment(3, &ack(10_000)); // covers `recover`
    let m = s.metrics();
    assert!(!m.in_recovery);
    assert_eq!(m.cwnd_packets, 5.0);
    assert_eq!(m.fast_retransmits, 1);
}

#[test]
fn newreno_restarts_the_timer_on_the_first_partial_ack_only() {
    // RFC 6582 section 3.2 step 3 ("Impatient"), as ns-2.35's
    // `newreno_changes1_ 1`: under either recovery rule.
    for rule in [RecoveryRule::Rfc, RecoveryRule::Ns2] {
        let c = TcpConfig {
            recovery_rule: rule,
            ..cfg(CcKind::NewReno)
        };
        let mut s = with_cwnd(c, 10.0);
        dupacks(&mut s, NS_PER_S, 0, 3);
        drain(&mut s, NS_PER_S);
        let rto = s.poll_timeout().unwrap() - NS_PER_S;
        s.on_segment(2 * NS_PER_S, &ack(2000)); // first partial ACK
        assert_eq!(s.poll_timeout(), Some(2 * NS_PER_S + rto), "{rule:?}");
        drain(&mut s, 2 * NS_PER_S);
        s.on_segment(3 * NS_PER_S, &ack(4000)); // second: the timer runs on
        assert!(s.metrics().in_recovery);
        assert_eq!(s.poll_timeout(), Some(2 * NS_PER_S + rto), "{rule:?}");
        drain(&mut s, 3 * NS_PER_S);
        s.on_segment(4 * NS_PER_S, &ack(10_000)); // ends recovery
        assert!(!s.metrics().in_recovery);
        drain(&mut s, 4 * NS_PER_S);
        assert_eq!(s.poll_timeout(), Some(4 * NS_PER_S + rto), "{rule:?}");
    }
}

#[test]
fn ns2_recovery_rule_deflates_cwnd_itself_and_opens_it_as_recovery_ends() {
    let with = |kind, rule| TcpConfig {
        ssthresh_rule: SsthreshRule::Ns2,
        recovery_rule: rule,
        ..cfg(kind)
    };
    let cwnd = |s: &TcpSender| s.metrics().cwnd_packets;
    // Eight in flight; the fast retransmit halves to cwnd_ 4 (ssthresh
    // 4) with dupwnd_ 3, a fourth duplicate makes dupwnd_ 4.
    let start = |kind, rule| {
        let mut s = with_cwnd(with(kind, rule), 8.0);
        dupacks(&mut s, 1, 0, 4);
        drain(&mut s, 1);
        assert_eq!(cwnd(&s), 8.0);
        s
    };
    // A partial ACK for six segments: both rules leave 8 - 6 + 1 = 3, but
    // ns-2.35 takes the two beyond dupwnd_ from cwnd_ itself (4 -> 2).
    for rule in [RecoveryRule::Rfc, RecoveryRule::Ns2] {
        let mut s = start(CcKind::NewReno, rule);
        s.on_segment(2, &ack(6000));
        assert_eq!(cwnd(&s), 3.0, "{rule:?}");
        drain(&mut s, 2);
        s.on_segment(3, &ack(8000)); // covers `recover`
        assert!(!s.metrics().in_recovery);
        let expect = match rule {
            // ssthresh.
            RecoveryRule::Rfc => 4.0,
            // cwnd_ 2, then slow start below ssthresh_ 4: 3.
            RecoveryRule::Ns2 => 3.0,
        };
        assert_eq!(cwnd(&s), expect, "{rule:?}");
    }
    // A partial ACK for one segment comes out of dupwnd_ alone; the ACK
    // that ends recovery then opens cwnd_ 4 by 1/4 under ns-2.35's rule.
    for rule in [RecoveryRule::Rfc, RecoveryRule::Ns2] {
        let mut s = start(CcKind::NewReno, rule);
        s.on_segment(2, &ack(1000));
        assert_eq!(cwnd(&s), 8.0, "{rule:?}");
        drain(&mut s, 2);
        s.on_segment(3, &ack(8000));
        let expect = if rule == RecoveryRule::Ns2 { 4.25 } else { 4.0 };
        assert_eq!(cwnd(&s), expect, "{rule:?}");
    }
    // Reno leaves on the first new ACK, and opens the window on it alike.
    for rule in [RecoveryRule::Rfc, RecoveryRule::Ns2] {
        let mut s = start(CcKind::Reno, rule);
        s.on_segment(2, &ack(2000));
        assert!(!s.metrics().in_recovery);
        let expect = if rule == RecoveryRule::Ns2 { 4.25 } else { 4.0 };
        assert_eq!(cwnd(&s), expect, "{rule:?}");
    }
}

#[test]
fn sack_retransmits_every_lost_segment_from_the_scoreboard() {
    let mut s = with_flight(CcKind::Sack, 10.0);
    // Segments 0 and 2 lost; 1, 3, 4, 5 arrive.
    s.on_segment(1, &sack_ack(0, &[(1000, 2000)]));
    s.on_segment(1, &sack_ack(0, &[(3000, 4000), (1000, 2000)]));
    s.on_segment(1, &sack_ack(0, &[(3000, 5000), (1000, 2000)]));
    let m = s.metrics();
    assert!(m.in_recovery);
    assert_eq!(m.cwnd_packets, 5.0);
    let segs = drain(&mut s, 1);
    assert_eq!(segs[0].seq, 0);
    s.on_segment(2, &sack_ack(0, &[(3000, 6000), (1000, 2000)]));
    // 2000..3000 now has 3 segments SACKed above it: lost. pipe = 1
    // (retransmitted 0) + 4 (6..9 in flight) = cwnd: nothing may leave yet.
    assert!(drain(&mut s, 2).is_empty());
    s.on_segment(2, &sack_ack(0, &[(3000, 7000), (1000, 2000)]));
    // pipe 4 < 5: rule 1 sends the lost hole before new data.
    let segs = drain(&mut s, 2);
    assert_eq!(segs.len(), 1);
    assert!(
        segs.iter().any(|g| g.seq == 2000 && g.retransmission),
        "{segs:?}"
    );
    s.on_segment(3, &ack(10_000));
    assert!(!s.metrics().in_recovery);
}

#[test]
fn after_a_timeout_sack_blocks_from_before_it_are_ignored() {
    // RFC 2018 section 8: after a retransmit timeout the sender turns its
    // SACKed bits off and ignores that information in choosing what to send
    // again (the receiver may have reneged); ns-2.35's Sack1 clears its
    // scoreboard.
    let mut s = with_flight(CcKind::Sack, 10.0);
    s.on_segment(1, &sack_ack(0, &[(1000, 3000)]));
    assert!(!s.metrics().in_recovery);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    let seqs = |segs: Vec<TcpSegment>| segs.iter().map(|g| g.seq).collect::<Vec<_>>();
    assert_eq!(seqs(drain(&mut s, t)), [0]);
    // cwnd 2: 1000 and 2000 go again, SACKed before the timeout though
    // they were, not 3000 and 4000.
    s.on_segment(t + 1, &ack(1000));
    assert_eq!(seqs(drain(&mut s, t + 1)), [1000, 2000]);
}

/// A SACK sender recovering as ns-2.35's `Sack1`, `cwnd` segments in flight.
fn ns2_sack_flight(cwnd: f64) -> TcpSender {
    let mut s = TcpSender::new(
        TcpConfig {
            sack_rule: SackRule::Ns2,
            ..cfg(CcKind::Sack)
        },
        None,
    );
    s.state_mut().cwnd = cwnd;
    assert_eq!(drain(&mut s, 0).len(), cwnd as usize);
    s
}

fn seqs(segs: Vec<TcpSegment>) -> Vec<u64> {
    segs.iter().map(|g| g.seq).collect()
}

#[test]
fn ns2_sack_counts_only_duplicates_that_sack_something_new() {
    let mut s = ns2_sack_flight(10.0);
    s.on_segment(1, &sack_ack(0, &[(1000, 2000)]));
    s.on_segment(1, &sack_ack(0, &[(1000, 2000)])); // nothing new
    s.on_segment(1, &sack_ack(0, &[(1000, 3000)]));
    s.on_segment(1, &sack_ack(0, &[(1000, 3000)])); // nothing new
    assert!(!s.metrics().in_recovery);
    s.on_segment(1, &sack_ack(0, &[(1000, 4000)]));
    let m = s.metrics();
    assert!(m.in_recovery);
    assert_eq!(m.fast_retransmits, 1);
    // The RFC's rule counts every duplicate: the fourth ACK starts recovery.
    let mut rfc = with_flight(CcKind::Sack, 10.0);
    for blocks in [[(1000, 2000)], [(1000, 2000)], [(1000, 3000)]] {
        rfc.on_segment(1, &sack_ack(0, &blocks));
    }
    assert!(rfc.metrics().in_recovery);
}

#[test]
fn ns2_sack_resends_every_hole_below_the_highest_sack_as_its_pipe_counter_allows() {
    let mut s = ns2_sack_flight(10.0);
    // Segments 0 and 2 lost; 1 and 3.. arrive.
    s.on_segment(1, &sack_ack(0, &[(1000, 2000)]));
    s.on_segment(1, &sack_ack(0, &[(3000, 4000), (1000, 2000)]));
    s.on_segment(1, &sack_ack(0, &[(3000, 5000), (1000, 2000)]));
    // Fast retransmit: cwnd 5, pipe = 10 outstanding - 3 = 7; the
    // retransmission itself is not counted.
    assert_eq!(s.metrics().cwnd_packets, 5.0);
    assert_eq!(seqs(drain(&mut s, 1)), [0]);
    // Each ACK takes one from pipe: 6, then 5: nothing may leave.
    s.on_segment(2, &sack_ack(0, &[(3000, 6000), (1000, 2000)]));
    assert!(drain(&mut s, 2).is_empty());
    s.on_segment(2, &sack_ack(0, &[(3000, 7000), (1000, 2000)]));
    assert!(drain(&mut s, 2).is_empty());
    // pipe 4 < 5: the hole at 2000 (RFC 6675's rule would have resent it
    // two ACKs ago, once three segments above it were SACKed).
    s.on_segment(3, &sack_ack(0, &[(3000, 8000), (1000, 2000)]));
    let segs = drain(&mut s, 3);
    assert_eq!(seqs(segs.clone()), [2000]);
    assert!(segs[0].retransmission);
    // No hole left to resend: new data, within the peer's window.
    s.on_segment(4, &sack_ack(0, &[(3000, 9000), (1000, 2000)]));
    assert_eq!(seqs(drain(&mut s, 4)), [10_000]);
    // A partial ACK takes two from pipe (5 - 2 = 3): two new segments;
    // 2000, resent already, is not resent again.
    s.on_segment(5, &sack_ack(2000, &[(3000, 11_000)]));
    assert!(s.metrics().in_recovery);
    assert_eq!(seqs(drain(&mut s, 5)), [11_000, 12_000]);
    // The ACK of the recovery point ends recovery at cwnd 5.
    s.on_segment(6, &ack(11_000));
    let m = s.metrics();
    assert!(!m.in_recovery);
    assert_eq!(m.cwnd_packets, 5.0);
    assert_eq!(m.retransmissions, 2);
}

#[test]
fn ns2_sack_ignores_duplicates_after_a_timeout_and_goes_back_n_over_sacked_segments() {
    let timed_out = |mut s: TcpSender| {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(seqs(drain(&mut s, t)), [0]);
        // 2000 and 3000 arrived; the ACK SACKs them.
        s.on_segment(t + 1, &sack_ack(0, &[(2000, 4000)]));
        s.on_segment(t + 2, &ack(1000));
        seqs(drain(&mut s, t + 2))
    };
    // ns-2.35's Sack1 ignored that duplicate, and clears its scoreboard on
    // the new ACK: cwnd 2 sends 1000 and 2000 again.
    assert_eq!(timed_out(ns2_sack_flight(10.0)), [1000, 2000]);
    // RFC 6675's sender skips what the SACK marked after the timeout (and
    // 4000 is beyond its window of two from 1000).
    assert_eq!(timed_out(with_flight(CcKind::Sack, 10.0)), [1000]);
}

#[test]
fn rto_backs_off_exponentially_and_karn_ignores_retransmitted_samples() {
    let mut s = TcpSender::new(cfg(CcKind::NewReno), None);
    drain(&mut s, 0);
    let t1 = s.poll_timeout().unwrap();
    assert_eq!(t1, 3 * NS_PER_S);
    s.on_timeout(t1);
    let m = s.metrics();
    assert_eq!((m.timeouts, m.cwnd_packets), (1, 1.0));
    assert_eq!(m.rto, 6 * NS_PER_S);
    let segs = drain(&mut s, t1);
    assert_eq!(segs.len(), 1);
    assert!(segs[0].retransmission);
    let t2 = s.poll_timeout().unwrap();
    assert_eq!(t2, t1 + 6 * NS_PER_S);
    s.on_timeout(t2);
    assert_eq!(s.metrics().rto, 12 * NS_PER_S);
    drain(&mut s, t2);
    // The ACK of a retransmitted segment gives no RTT sample (Karn).
    s.on_segment(t2 + 100 * NS_PER_MS, &ack(1000));
    let m = s.metrics();
    assert_eq!(m.srtt, None);
    assert_eq!(m.rto, 12 * NS_PER_S, "backoff kept until a valid sample");
    assert_eq!(s.poll_timeout(), Some(t2 + 100 * NS_PER_MS + 12 * NS_PER_S));
}

/// A `kind` sender with F-RTO and 10 segments in flight at cwnd 10.
fn frto_sender(kind: CcKind) -> TcpSender {
    let mut s = TcpSender::new(
        TcpConfig {
            frto: true,
            ..cfg(kind)
        },
        None,
    );
    s.state_mut().cwnd = 10.0;
    drain(&mut s, 0);
    s
}

/// [`frto_sender`] with ssthresh 8, after its timer fired: it resent
/// segment 0 alone.
fn frto_after_timeout(kind: CcKind) -> (TcpSender, SimTime) {
    let mut s = frto_sender(kind);
    s.state_mut().ssthresh = 8.0;
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    let resent = drain(&mut s, t);
    assert_eq!(resent.len(), 1);
    assert!(resent[0].retransmission && resent[0].seq == 0);
    assert_eq!(s.metrics().cwnd_packets, 1.0);
    (s, t)
}

#[test]
fn frto_sends_new_data_on_the_first_ack_and_undoes_a_spurious_timeout() {
    // Step 2: the ACK of segment 0 lets two new segments (10 and 11)
    // leave, not segment 1 again. Step 3: the next ACK covers segment 1,
    // sent once before the timeout: spurious. cwnd and ssthresh come back
    // (10 and 8, cwnd then grows by 1/10 in congestion avoidance) and what
    // follows is new data, not go-back-N.
    let (mut s, t) = frto_after_timeout(CcKind::NewReno);
    s.on_segment(t + NS_PER_MS, &ack(MSS));
    let sent = drain(&mut s, t + NS_PER_MS);
    let seqs: Vec<u64> = sent.iter().map(|g| g.seq).collect();
    assert_eq!(seqs, vec![10 * MSS, 11 * MSS]);
    assert!(sent.iter().all(|g| !g.retransmission));
    s.on_segment(t + 2 * NS_PER_MS, &ack(2 * MSS));
    let m = s.metrics();
    assert_eq!(m.spurious_timeouts, 1);
    assert!((m.cwnd_packets - 10.1).abs() < 1e-9, "{}", m.cwnd_packets);
    assert_eq!(m.ssthresh_packets, 8.0);
    assert_eq!(m.snd_nxt, m.snd_max);
    // 12 segments outstanding from 2: the window of 10 is full.
    assert!(drain(&mut s, t + 2 * NS_PER_MS).is_empty());
    s.on_segment(t + 3 * NS_PER_MS, &ack(5 * MSS));
    let sent = drain(&mut s, t + 3 * NS_PER_MS);
    assert!(!sent.is_empty());
    assert!(sent.iter().all(|g| !g.retransmission && g.seq >= 12 * MSS));
}

#[test]
fn frto_goes_back_when_a_duplicate_ack_follows_its_new_data() {
    // Step 3 (a): a duplicate ACK after the two new segments: the timeout
    // was genuine. cwnd at most 3 and go-back-N from segment 1; nothing
    // was undone.
    let (mut s, t) = frto_after_timeout(CcKind::NewReno);
    s.on_segment(t + NS_PER_MS, &ack(MSS));
    assert_eq!(drain(&mut s, t + NS_PER_MS).len(), 2);
    s.on_segment(t + 2 * NS_PER_MS, &ack(MSS));
    let m = s.metrics();
    assert_eq!(m.spurious_timeouts, 0);
    assert!(m.cwnd_packets <= 3.0);
    assert_eq!(m.ssthresh_packets, 5.0, "the timeout's cut stands");
    let sent = drain(&mut s, t + 2 * NS_PER_MS);
    assert_eq!(sent[0].seq, MSS);
    assert!(sent[0].retransmission);
}

#[test]
fn frto_steps_aside_when_the_first_ack_covers_everything_or_is_a_duplicate() {
    // An ACK of all that was outstanding at the timeout: plain recovery
    // (the window grows from 1 by slow start; nothing to undo).
    let (mut s, t) = frto_after_timeout(CcKind::NewReno);
    s.on_segment(t + NS_PER_MS, &ack(10 * MSS));
    assert_eq!(s.metrics().cwnd_packets, 2.0);
    assert_eq!(s.metrics().spurious_timeouts, 0);
    // A duplicate first: go-back-N as without F-RTO.
    let (mut s, t) = frto_after_timeout(CcKind::NewReno);
    s.on_segment(t + NS_PER_MS, &ack(0));
    s.on_segment(t + 2 * NS_PER_MS, &ack(MSS));
    let sent = drain(&mut s, t + 2 * NS_PER_MS);
    assert_eq!(sent[0].seq, MSS);
    assert!(sent[0].retransmission);
    // A second timeout before any ACK (segment 0 resent again, nothing
    // else): F-RTO goes on, and still undoes to the state before the
    // first.
    let (mut s, _) = frto_after_timeout(CcKind::NewReno);
    let t2 = s.poll_timeout().unwrap();
    s.on_timeout(t2);
    drain(&mut s, t2);
    s.on_segment(t2 + NS_PER_MS, &ack(MSS));
    let sent = drain(&mut s, t2 + NS_PER_MS);
    assert_eq!(
        sent.iter().map(|g| g.seq).collect::<Vec<_>>(),
        vec![10 * MSS, 11 * MSS]
    );
    s.on_segment(t2 + 2 * NS_PER_MS, &ack(2 * MSS));
    assert_eq!(s.metrics().spurious_timeouts, 1);
    assert_eq!(s.metrics().ssthresh_packets, 8.0);
    // A timeout within a fast recovery: no F-RTO, go-back-N.
    let mut s = frto_sender(CcKind::NewReno);
    dupacks(&mut s, NS_PER_MS, 0, 3);
    drain(&mut s, NS_PER_MS);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    drain(&mut s, t);
    s.on_segment(t + NS_PER_MS, &ack(MSS));
    let sent = drain(&mut s, t + NS_PER_MS);
    assert!(
        !sent.is_empty() && sent.iter().all(|g| g.retransmission),
        "{sent:?}"
    );
}

#[test]
fn frto_lets_a_loss_after_a_spurious_timeout_be_fast_retransmitted() {
    // Spurious at the ACK of segment 1; segment 2 was lost. Nothing went
    // back N, so three duplicates are a loss again: the timeout's
    // `recover` (segment 10) no longer holds the fast retransmit back.
    let (mut s, t) = frto_after_timeout(CcKind::NewReno);
    s.on_segment(t + NS_PER_MS, &ack(MSS));
    drain(&mut s, t + NS_PER_MS);
    s.on_segment(t + 2 * NS_PER_MS, &ack(2 * MSS));
    assert_eq!(s.metrics().spurious_timeouts, 1);
    dupacks(&mut s, t + 3 * NS_PER_MS, 2 * MSS, 3);
    let m = s.metrics();
    assert!(m.in_recovery);
    assert_eq!(m.fast_retransmits, 1);
    let sent = drain(&mut s, t + 3 * NS_PER_MS);
    assert_eq!((sent[0].seq, sent[0].retransmission), (2 * MSS, true));
}

#[test]
fn frto_gives_cubic_its_w_max_and_stage_back_after_a_spurious_timeout() {
    // CUBIC in congestion avoidance after a loss (W_max 10 at cwnd 10):
    // the timeout would cut W_max by fast convergence and restart the
    // curve; found spurious, both come back.
    let cubic = |s: &TcpSender| match s.cc() {
        AnyCc::Cubic(c) => (c.w_max(), c.k_s()),
        _ => unreachable!(),
    };
    let mut s = frto_sender(CcKind::Cubic);
    dupacks(&mut s, NS_PER_MS, 0, 3);
    drain(&mut s, NS_PER_MS);
    s.on_segment(2 * NS_PER_MS, &ack(10 * MSS));
    let sent = drain(&mut s, 2 * NS_PER_MS);
    assert!(!sent.is_empty());
    s.on_segment(3 * NS_PER_MS, &ack(11 * MSS));
    let before = cubic(&s);
    assert_eq!(before.0, 10.0);
    assert!(before.1.is_some(), "a stage");
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_ne!(cubic(&s), before);
    drain(&mut s, t);
    s.on_segment(t + NS_PER_MS, &ack(12 * MSS));
    drain(&mut s, t + NS_PER_MS);
    s.on_segment(t + 2 * NS_PER_MS, &ack(13 * MSS));
    assert_eq!(s.metrics().spurious_timeouts, 1);
    assert_eq!(cubic(&s), before);
}

#[test]
fn sack_frto_waits_through_duplicates_and_finds_a_sacked_original_spurious() {
    // RFC 5682 section 3. Step 2: a duplicate ACK SACKing segment 1 keeps
    // F-RTO waiting (the basic form would give up); the ACK of segments 0
    // and 1 lets segments 10 and 11 leave. Step 3: a duplicate that SACKs
    // segment 3, sent before the timeout and not since, shows the
    // timeout spurious: the cut is undone with no go-back-N, and as the
    // SACKs go on segment 2, three SACKed above it, is fast retransmitted.
    let (mut s, t) = frto_after_timeout(CcKind::Sack);
    s.on_segment(t + NS_PER_MS, &sack_ack(0, &[(MSS, 2 * MSS)]));
    assert!(drain(&mut s, t + NS_PER_MS).is_empty());
    s.on_segment(t + 2 * NS_PER_MS, &ack(2 * MSS));
    let sent = drain(&mut s, t + 2 * NS_PER_MS);
    assert_eq!(seqs(sent), [10 * MSS, 11 * MSS]);
    s.on_segment(t + 3 * NS_PER_MS, &sack_ack(2 * MSS, &[(3 * MSS, 4 * MSS)]));
    let m = s.metrics();
    assert_eq!(m.spurious_timeouts, 1);
    assert_eq!((m.cwnd_packets, m.ssthresh_packets), (10.0, 8.0));
    assert_eq!(m.snd_nxt, m.snd_max);
    assert!(!m.in_recovery);
    assert!(
        drain(&mut s, t + 3 * NS_PER_MS).is_empty(),
        "10 outstanding"
    );
    s.on_segment(t + 4 * NS_PER_MS, &sack_ack(2 * MSS, &[(3 * MSS, 5 * MSS)]));
    assert!(!s.metrics().in_recovery);
    s.on_segment(t + 5 * NS_PER_MS, &sack_ack(2 * MSS, &[(3 * MSS, 6 * MSS)]));
    assert!(s.metrics().in_recovery);
    let sent = drain(&mut s, t + 5 * NS_PER_MS);
    assert_eq!((sent[0].seq, sent[0].retransmission), (2 * MSS, true));
}

#[test]
fn sack_frto_calls_the_timeout_genuine_when_only_its_new_data_is_sacked() {
    // Step 3 (a): a duplicate that SACKs only segment 10, sent in step 2,
    // or nothing new: the originals are lost. cwnd at most 3, the cut
    // stands, and go-back-N resends from segment 1, skipping segment 3
    // that a SACK marked since the timeout.
    for blocks in [vec![(10 * MSS, 11 * MSS)], vec![]] {
        let (mut s, t) = frto_after_timeout(CcKind::Sack);
        s.on_segment(t + NS_PER_MS, &sack_ack(MSS, &[(3 * MSS, 4 * MSS)]));
        assert_eq!(seqs(drain(&mut s, t + NS_PER_MS)), [10 * MSS, 11 * MSS]);
        let mut all = vec![(3 * MSS, 4 * MSS)];
        all.extend(&blocks);
        s.on_segment(t + 2 * NS_PER_MS, &sack_ack(MSS, &all));
        let m = s.metrics();
        assert_eq!(m.spurious_timeouts, 0, "{blocks:?}");
        assert!(m.cwnd_packets <= 3.0);
        assert_eq!(m.ssthresh_packets, 5.0);
        s.on_segment(t + 3 * NS_PER_MS, &sack_ack(2 * MSS, &all));
        let sent = drain(&mut s, t + 3 * NS_PER_MS);
        assert!(sent.iter().all(|g| g.retransmission), "{blocks:?}");
        assert_eq!(seqs(sent)[..2], [2 * MSS, 4 * MSS], "{blocks:?}");
    }
}

#[test]
fn a_valid_sample_sets_srtt_and_rto() {
    let mut s = TcpSender::new(cfg(CcKind::NewReno), None);
    drain(&mut s, 0);
    s.on_segment(100 * NS_PER_MS, &ack(1000));
    let m = s.metrics();
    assert_eq!(m.srtt, Some(100 * NS_PER_MS));
    assert_eq!(m.rto, 300 * NS_PER_MS);
}

fn newreno_with(rule: RtoRule) -> TcpSender {
    let c = TcpConfig {
        rto_rule: rule,
        ..cfg(CcKind::NewReno)
    };
    TcpSender::new(c, None)
}

#[test]
fn ns2_rto_rule_times_the_timed_segment_in_ticks() {
    // Segment 0 leaves at 0 and is timed; segment 1 leaves at 40 ms; one
    // ACK at 135 ms covers both.
    let run = |rule: RtoRule| {
        let mut s = newreno_with(rule);
        s.state_mut().cwnd = 1.0;
        assert_eq!(drain(&mut s, 0).len(), 1);
        s.state_mut().cwnd = 2.0;
        assert_eq!(drain(&mut s, 40 * NS_PER_MS).len(), 1);
        s.on_segment(135 * NS_PER_MS, &ack(2 * MSS));
        let m = s.metrics();
        (m.srtt, m.rto)
    };
    // RFC 6298 from the newest segment: 95 ms, RTO 95 + 4 × 47.5 ms.
    assert_eq!(run(RtoRule::Rfc), (Some(95 * NS_PER_MS), 285 * NS_PER_MS));
    // ns-2.35 from the timed one: 13 ticks, RTO ⌊(8·26 + 104) / 8⌋ ticks.
    assert_eq!(run(RtoRule::Ns2), (Some(135 * NS_PER_MS), 390 * NS_PER_MS));
}

#[test]
fn ns2_rto_rule_keeps_timing_across_a_hole_resent_in_recovery() {
    // Six segments leave at 0; 0 and 2 are lost. Four duplicates at 100 ms
    // (a fast retransmit ends any timing); new data then leaves and is
    // timed. A partial ACK at 200 ms resends segment 2; the ACK of
    // everything comes at 300 ms.
    let run = |rule: RtoRule| {
        let mut s = newreno_with(rule);
        s.state_mut().cwnd = 6.0;
        assert_eq!(drain(&mut s, 0).len(), 6);
        let t1 = 100 * NS_PER_MS;
        dupacks(&mut s, t1, 0, 4);
        let sent: Vec<(u64, bool)> = drain(&mut s, t1)
            .iter()
            .map(|g| (g.seq / MSS, g.retransmission))
            .collect();
        assert_eq!(sent, [(0, true), (6, false)]);
        let t2 = 200 * NS_PER_MS;
        s.on_segment(t2, &ack(2 * MSS));
        let resent = drain(&mut s, t2);
        assert!(resent
            .first()
            .is_some_and(|g| g.seq == 2 * MSS && g.retransmission));
        s.on_segment(300 * NS_PER_MS, &ack(7 * MSS));
        s.metrics().srtt
    };
    // RFC 6298 with Karn: the resend of segment 2 ended the timing.
    assert_eq!(run(RtoRule::Rfc), None);
    // ns-2.35: segment 6, sent at 100 ms, is timed until its ACK.
    assert_eq!(run(RtoRule::Ns2), Some(200 * NS_PER_MS));
}

#[test]
fn ns3_rto_rule_samples_every_ack_in_integer_nanoseconds() {
    // Four segments leave 10 ms apart; each is acknowledged alone 100 ms
    // later.
    let run = |rule: RtoRule| {
        let mut s = TcpSender::new(
            TcpConfig {
                rto_rule: rule,
                min_rto: 10 * NS_PER_MS,
                ..cfg(CcKind::NewReno)
            },
            None,
        );
        for i in 0..4u64 {
            s.state_mut().cwnd = (i + 1) as f64;
            assert_eq!(drain(&mut s, i * 10 * NS_PER_MS).len(), 1);
        }
        for i in 0..4u64 {
            s.on_segment((100 + i * 10) * NS_PER_MS, &ack((i + 1) * MSS));
        }
        let m = s.metrics();
        (m.srtt, m.rto)
    };
    // RFC 6298 times one segment a round trip: 100 + 4 × 50 ms.
    assert_eq!(run(RtoRule::Rfc), (Some(100 * NS_PER_MS), 300 * NS_PER_MS));
    // ns-3 takes all four samples: RTTVAR 50, 37.5, 28.125, 21.09375 ms,
    // and RTO = 100 ms + 4 × 21.09375 ms.
    assert_eq!(run(RtoRule::Ns3), (Some(100 * NS_PER_MS), 184_375_000));
}

#[test]
fn ns3_rto_rule_ends_the_backoff_at_a_new_ack_and_forgets_sends_before_a_timeout() {
    let run = |rule: RtoRule| {
        let mut s = newreno_with(rule);
        assert_eq!(drain(&mut s, 0).len(), 2);
        let t = s.poll_timeout().unwrap();
        assert_eq!(t, 3 * NS_PER_S);
        s.on_timeout(t);
        assert_eq!(s.metrics().rto, 6 * NS_PER_S);
        assert_eq!(seqs(drain(&mut s, t)), [0]);
        // The resent segment's ACK: no sample (Karn), a new ACK.
        let t1 = t + 100 * NS_PER_MS;
        s.on_segment(t1, &ack(MSS));
        let after_ack = (s.metrics().rto, s.poll_timeout());
        // Segment 1 left before the timeout and was not resent.
        let t2 = t + 150 * NS_PER_MS;
        s.on_segment(t2, &ack(2 * MSS));
        let srtt_old = s.metrics().srtt;
        // A segment first sent after the timeout times the path.
        let sent = drain(&mut s, t2);
        assert!(sent.iter().all(|g| !g.retransmission && g.seq >= 2 * MSS));
        s.on_segment(t2 + 80 * NS_PER_MS, &ack(3 * MSS));
        (after_ack, srtt_old, s.metrics().srtt)
    };
    let t1 = 3 * NS_PER_S + 100 * NS_PER_MS;
    // RFC 6298 (5.7): the doubled RTO stands until a valid sample.
    let (after_ack, _, _) = run(RtoRule::Rfc);
    assert_eq!(after_ack, (6 * NS_PER_S, Some(t1 + 6 * NS_PER_S)));
    // ns-3's `NewAck` computes the RTO afresh: the initial 3 s again.
    let (after_ack, srtt_old, srtt_new) = run(RtoRule::Ns3);
    assert_eq!(after_ack, (3 * NS_PER_S, Some(t1 + 3 * NS_PER_S)));
    // ns-3 emptied its history of sends at the timeout.
    assert_eq!(srtt_old, None);
    assert_eq!(srtt_new, Some(80 * NS_PER_MS));
}

#[test]
fn veno_random_loss_cuts_to_four_fifths_in_the_sender() {
    let mut s = with_flight(CcKind::VENO, 10.0);
    // No RTT known: N = 0 < β, a random loss.
    dupacks(&mut s, 1, 0, 3);
    assert_eq!(s.metrics().ssthresh_packets, 8.0);
}

#[test]
fn tcp_ap_spaces_its_sends_by_its_rate_estimate() {
    let mut s = TcpSender::new(cfg(CcKind::TCP_AP), None);
    s.set_path_hops(8);
    let segs = drain(&mut s, 0); // no estimate yet: window-limited
    assert_eq!(segs.len(), 2);
    // RTT 160 ms, 8 hops: gap = 160/2 × 4/8 = 40 ms.
    let t = 160 * NS_PER_MS;
    s.on_segment(t, &ack(1000));
    assert_eq!(s.metrics().pacing_interval, Some(40 * NS_PER_MS));
    let segs = drain(&mut s, t);
    assert_eq!(segs.len(), 1, "one segment, then wait for the gap");
    assert_eq!(s.poll_timeout(), Some(t + 40 * NS_PER_MS));
    assert!(drain(&mut s, t + 39 * NS_PER_MS).is_empty());
    s.on_timeout(t + 40 * NS_PER_MS);
    assert_eq!(drain(&mut s, t + 40 * NS_PER_MS).len(), 1);
}

#[test]
fn an_ack_filling_a_hole_gives_no_rtt_sample() {
    // TCP-AP paces by its RTT samples. Ten segments leave at 0; the first
    // is lost, the next nine arrive (three duplicate ACKs at 100 ms start a
    // fast retransmit), and the retransmission's ACK, at 3 s, covers all
    // ten. Segment 9 was sent once, but 3 s is the time to repair the hole,
    // not the path's RTT: no sample (Karn, for cumulative ACKs).
    let mut s = with_flight(CcKind::TCP_AP, 10.0);
    s.set_path_hops(2);
    s.on_segment(100 * NS_PER_MS, &ack(0));
    dupacks(&mut s, 100 * NS_PER_MS, 0, 3);
    let resent = drain(&mut s, 100 * NS_PER_MS);
    assert!(resent
        .first()
        .is_some_and(|g| g.retransmission && g.seq == 0));
    assert_eq!(s.metrics().pacing_interval, None, "no sample yet");
    s.on_segment(3 * NS_PER_S, &ack(10 * MSS));
    assert_eq!(s.metrics().pacing_interval, None, "still no sample");
    assert_eq!(s.metrics().srtt, None);
    // A segment sent after the repair gives a sample again: RTT 100 ms on
    // 2 hops, a gap of 50 ms.
    let t = 3 * NS_PER_S;
    let next = drain(&mut s, t);
    assert!(next
        .first()
        .is_some_and(|g| !g.retransmission && g.seq == 10 * MSS));
    s.on_segment(t + 100 * NS_PER_MS, &ack(11 * MSS));
    assert_eq!(s.metrics().pacing_interval, Some(50 * NS_PER_MS));
}

#[test]
fn vegas_in_the_sender_records_diff_and_uses_reno_recovery() {
    let mut s = with_flight(CcKind::VEGAS, 10.0);
    s.state_mut().ssthresh = 2.0; // congestion avoidance
    let mut now = 0;
    let mut acked = 0;
    // RTT grows from 100 ms to 400 ms: Diff ≫ β.
    for i in 0..60u64 {
        now += 20 * NS_PER_MS;
        acked += MSS;
        let _ = i;
        s.on_segment(now, &ack(acked));
        for _ in drain(&mut s, now) {}
    }
    let first = s.metrics().cwnd_packets;
    assert!(first <= 10.0, "cwnd {first}");
    if let cc::AnyCc::Vegas(v) = s.cc() {
        assert!(v.last_diff().is_some());
    } else {
        panic!("not Vegas");
    }
    assert!(s.cc().recovery() == cc::Recovery::Reno);
}

// ---- Handshake ------------------------------------------------------------

#[test]
fn handshake_syn_synack_ack_then_data_and_fin() {
    let mut c = cfg(CcKind::NewReno);
    c.handshake = true;
    let mut s = TcpSender::new(c.clone(), Some(1500));
    let mut r = TcpReceiver::new(&c);
    let syn = drain(&mut s, 0);
    assert_eq!(syn.len(), 1);
    assert!(syn[0].flags.syn && !syn[0].flags.ack);
    r.on_segment(1, &syn[0]);
    let synack = r.poll_transmit(1).unwrap();
    assert!(synack.flags.syn && synack.flags.ack);
    assert_eq!(synack.ack, 1);
    s.on_segment(2, &synack);
    let segs = drain(&mut s, 2);
    assert!(segs[0].flags.ack && segs[0].len == 0, "third segment: ACK");
    assert_eq!((segs[1].seq, segs[1].len), (1, 1000));
    assert_eq!((segs[2].seq, segs[2].len), (1001, 500));
    // The FIN follows the last data at once.
    assert!(segs[3].flags.fin);
    assert_eq!((segs[3].seq, segs[3].len), (1501, 0));
    for g in &segs[..3] {
        r.on_segment(3, g);
    }
    let a = r.poll_transmit(3).unwrap();
    assert_eq!(a.ack, 1501);
    s.on_segment(4, &a);
    assert!(!s.is_done());
    r.on_segment(5, &segs[3]);
    assert_eq!(r.state(), receiver::ReceiverState::CloseWait);
    let a = r.poll_transmit(5).unwrap();
    assert_eq!(a.ack, 1502);
    s.on_segment(6, &a);
    assert!(s.is_done());
    assert_eq!(r.delivered_bytes(), 1500);
}

#[test]
fn lost_syn_is_retransmitted_with_backoff() {
    let mut c = cfg(CcKind::Reno);
    c.handshake = true;
    let mut s = TcpSender::new(c, None);
    drain(&mut s, 0);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    let syn = drain(&mut s, t);
    assert!(syn[0].flags.syn && syn[0].retransmission);
    assert_eq!(s.poll_timeout(), Some(t + 6 * NS_PER_S));
}

// ---- ns-2.35's one-way start (`syn_`, `delay_growth_`) ---------------------

/// Vegas with ns-2.35's defaults (`v_alpha_ 1`, `v_beta_ 3`, `v_gamma_ 1`)
/// under `rule`.
fn ns2_vegas_kind(rule: VegasRule) -> CcKind {
    CcKind::Vegas {
        alpha: 1.0,
        beta: 3.0,
        gamma: 1.0,
        rule,
    }
}

fn ns2_start(kind: CcKind) -> TcpConfig {
    TcpConfig {
        start_rule: StartRule::Ns2,
        ..cfg(kind)
    }
}

#[test]
fn ns2_start_sends_a_bare_syn_then_the_initial_window_after_its_ack() {
    let c = ns2_start(CcKind::NewReno);
    let mut s = TcpSender::new(c.clone(), None);
    let mut r = TcpReceiver::new(&c);
    let syn = drain(&mut s, 0);
    assert_eq!(syn.len(), 1, "the SYN leaves alone");
    assert!(syn[0].flags.syn && !syn[0].flags.ack);
    assert_eq!((syn[0].seq, syn[0].len), (0, 0));
    assert!(!syn[0].sack_permitted);
    assert_eq!(
        c.packet_bytes(&syn[0]),
        40,
        "ns-2.35's tcpip_base_hdr_size_"
    );
    assert_eq!(s.metrics().cwnd_packets, 1.0);
    // The sink acknowledges it as its packet 0: a plain ACK, not a SYN.
    r.on_segment(10 * NS_PER_MS, &syn[0]);
    let a = r.poll_transmit(10 * NS_PER_MS).unwrap();
    assert!(a.flags.ack && !a.flags.syn);
    assert_eq!(a.ack, 1);
    assert_eq!(r.take_delivered(), 0, "a SYN carries no data");
    s.on_segment(20 * NS_PER_MS, &a);
    assert_eq!(s.metrics().srtt, Some(20 * NS_PER_MS), "the SYN is timed");
    assert_eq!(s.metrics().cwnd_packets, 2.0, "windowInit_");
    let segs = drain(&mut s, 20 * NS_PER_MS);
    assert_eq!(segs.len(), 2);
    assert!(segs.iter().all(|g| !g.flags.syn && g.flags.ack));
    assert_eq!((segs[0].seq, segs[0].len), (1, 1000));
    assert_eq!((segs[1].seq, segs[1].len), (1001, 1000));
    // Data numbered from 1 is delivered from its first byte.
    r.on_segment(30 * NS_PER_MS, &segs[0]);
    assert_eq!(r.poll_transmit(30 * NS_PER_MS).unwrap().ack, 1001);
    assert_eq!(r.take_delivered(), 1000);
}

#[test]
fn ns2_start_syn_is_acked_at_once_by_a_delayed_ack_receiver() {
    // ns-2.35's `Agent/TCPSink/DelAck` answers the SYN at once (on the
    // chain fixture: its ACK leaves as the SYN arrives), then delays data's.
    let c = TcpConfig {
        delayed_ack: true,
        ..ns2_start(CcKind::NewReno)
    };
    let mut s = TcpSender::new(c.clone(), None);
    let mut r = TcpReceiver::new(&c);
    let syn = drain(&mut s, 0);
    r.on_segment(5, &syn[0]);
    assert_eq!(r.poll_transmit(5).map(|a| a.ack), Some(1));
    assert_eq!(r.poll_timeout(), None);
    s.on_segment(10, &ack(1));
    let segs = drain(&mut s, 10);
    r.on_segment(15, &segs[0]);
    assert!(
        r.poll_transmit(15).is_none(),
        "the first data segment's ACK waits"
    );
    r.on_segment(16, &segs[1]);
    assert_eq!(r.poll_transmit(16).map(|a| a.ack), Some(2001));
}

#[test]
fn ns2_start_after_a_lost_syn_opens_with_one_segment_and_ssthresh_2() {
    let c = ns2_start(CcKind::Reno);
    let mut s = TcpSender::new(c.clone(), None);
    let mut r = TcpReceiver::new(&c);
    drain(&mut s, 0);
    let t = s.poll_timeout().unwrap();
    assert_eq!(t, 3 * NS_PER_S, "rtxcur_init_");
    s.on_timeout(t);
    let syn = drain(&mut s, t);
    assert_eq!(syn.len(), 1);
    assert!(syn[0].flags.syn && syn[0].retransmission);
    assert_eq!(s.poll_timeout(), Some(t + 6 * NS_PER_S), "backed off");
    // A duplicate SYN is acknowledged again.
    r.on_segment(t + 1, &syn[0]);
    r.on_segment(t + 2, &syn[0]);
    assert_eq!(r.poll_transmit(t + 2).unwrap().ack, 1);
    s.on_segment(t + 3, &ack(1));
    let m = s.metrics();
    assert_eq!((m.cwnd_packets, m.ssthresh_packets), (1.0, 2.0));
    assert_eq!(m.srtt, None, "Karn: a retransmitted SYN is not timed");
    assert_eq!(drain(&mut s, t + 3).len(), 1);
}

#[test]
fn ns2_start_without_the_handshake_only() {
    // With the handshake the ns-2 rule is not used (the scenario refuses it).
    let mut c = ns2_start(CcKind::NewReno);
    c.handshake = true;
    assert!(!c.one_way_syn());
    let mut s = TcpSender::new(c, None);
    let syn = drain(&mut s, 0);
    assert!(syn[0].flags.syn);
    s.on_segment(1, &ack(1));
    assert!(
        drain(&mut s, 1).is_empty(),
        "a plain ACK does not answer a SYN"
    );
}

/// ns-2.35's Vegas agent with its one-way start and 512-byte packets.
fn ns2_vegas_512() -> TcpSender {
    let vegas = ns2_vegas_kind(VegasRule::Ns2);
    let c = TcpConfig {
        mss_bytes: 512,
        ..ns2_start(vegas)
    };
    assert!(!c.one_way_syn(), "ns-2.35's Vegas sends no SYN");
    TcpSender::new(c, None)
}

/// An ACK of `ack` bytes at `t`; the packets (of 512 bytes) it sends.
fn ack_512(s: &mut TcpSender, t: SimTime, ack: u64) -> Vec<u64> {
    s.on_segment(
        t,
        &TcpSegment {
            ack,
            ..self::ack(0)
        },
    );
    drain(s, t).iter().map(|g| g.seq / 512).collect()
}

#[test]
fn ns2_start_for_vegas_sends_data_alone_and_opens_on_the_ack_after_its_own() {
    // ns-2.35's Vegas agent on the 3-node chain fixture (`manetsim export
    // ns2`, `syn_ true`, 512-byte packets): packet 0 alone at 1.0 s, its ACK
    // at 1.0271 s sends packet 1 alone, and the ACK of packet 1 at 1.0385 s
    // (the window set to windowInit_ 2 first, then Vegas's rule adds one)
    // sends packets 2, 3 and 4.
    let mut s = ns2_vegas_512();
    let t0 = NS_PER_S;
    let sent: Vec<(u64, u32)> = drain(&mut s, t0).iter().map(|g| (g.seq, g.len)).collect();
    assert_eq!(
        sent,
        [(0, 512)],
        "delay_growth_: a window of one, data first"
    );
    assert_eq!(ack_512(&mut s, t0 + 27_064_400, 512), [1]);
    assert_eq!(ack_512(&mut s, t0 + 38_460_400, 1024), [2, 3, 4]);
}

#[test]
fn ns2_vegas_counts_a_round_s_last_ack_in_the_next_round() {
    // ns-2.35's Vegas `recv` closes a round before it adds the ACK's own
    // RTT sample (`v_sumRTT_`), and the packet sent at `vegastime()` 0
    // gives none (`sendTime != 0.`). Packet 0 leaves at 1 s; its ACK at
    // +27 ms closes round 1 with no samples (RTT 27 ms, BaseRTT 27 ms) and
    // sends packet 1; its ACK, 11 ms later, closes round 2 (one segment:
    // BaseRTT 11 ms), opens the window and sends packets 2-4, then adds
    // packet 1's 11 ms. Packet 2's ACK 50 ms later closes round 3 with
    // that sample alone: 3 outstanding, 3 sent, Diff 0, where counting its
    // own 50 ms would give 3 − 3 × 11/50 = 2.34.
    let mut s = ns2_vegas_512();
    let diff = |s: &TcpSender| match s.cc() {
        cc::AnyCc::Vegas(v) => v.last_diff(),
        _ => unreachable!(),
    };
    let t0 = NS_PER_S;
    assert_eq!(drain(&mut s, t0).len(), 1);
    let t1 = t0 + 27 * NS_PER_MS;
    assert_eq!(ack_512(&mut s, t1, 512), [1]);
    assert_eq!(diff(&s), Some(0.0));
    let t2 = t1 + 11 * NS_PER_MS;
    assert_eq!(ack_512(&mut s, t2, 1024), [2, 3, 4]);
    ack_512(&mut s, t2 + 50 * NS_PER_MS, 1536);
    assert_eq!(diff(&s), Some(0.0));
}

#[test]
fn ns2_vegas_restarts_at_two_segments_after_a_timeout() {
    // ns-2.35's Vegas agent on chain6 over DSDV (seed 1, `manetsim
    // crosscheck --keep-traces`): packet 0 alone at 1 s, no route yet; at
    // 4 s its timeout sends packets 0 and 1 (`cwnd_ = v_slowstart_`), and
    // again at 10, 22 and 46 s. Brakmo and Peterson's rule restarts at one.
    for (rule, expect) in [(VegasRule::Ns2, vec![0, 1]), (VegasRule::Paper, vec![0])] {
        let vegas = ns2_vegas_kind(rule);
        let c = TcpConfig {
            mss_bytes: 512,
            ssthresh_rule: SsthreshRule::Ns2,
            ..ns2_start(vegas)
        };
        let mut s = TcpSender::new(c, None);
        assert_eq!(drain(&mut s, NS_PER_S).len(), 1);
        let t = s.poll_timeout().unwrap();
        assert_eq!(t, 4 * NS_PER_S);
        s.on_timeout(t);
        let sent: Vec<u64> = drain(&mut s, t).iter().map(|g| g.seq / 512).collect();
        assert_eq!(sent, expect, "{rule:?}");
        assert_eq!(s.metrics().ssthresh_packets, 2.0, "{rule:?}");
    }
}

/// A Vegas sender under ns-2.35's rule with eight segments sent at 0 s and
/// each ACKed 10 ms apart from 100 ms up to `upto` bytes, the window
/// sending new segments as it goes: the fine-grained estimator is primed.
fn ns2_vegas_acked(upto: u64) -> (TcpSender, SimTime) {
    let vegas = ns2_vegas_kind(VegasRule::Ns2);
    let c = TcpConfig {
        ssthresh_rule: SsthreshRule::Ns2,
        ..cfg(vegas)
    };
    let mut s = with_cwnd(c, 8.0);
    let mut now = 90 * NS_PER_MS;
    for k in 1..=upto / MSS {
        now += 10 * NS_PER_MS;
        s.on_segment(now, &ack(k * MSS));
        drain(&mut s, now);
    }
    (s, now)
}

#[test]
fn ns2_vegas_cuts_a_quarter_at_the_third_duplicate_and_deflates_on_the_next_ack() {
    let (mut s, t) = ns2_vegas_acked(8 * MSS);
    let w = s.metrics().cwnd_packets.floor();
    assert!(w > 3.0, "{w}");
    // Segment 8 (sent at 100 ms) is lost: two duplicates do nothing.
    dupacks(&mut s, t + NS_PER_MS, 8 * MSS, 2);
    assert!(drain(&mut s, t + NS_PER_MS).is_empty());
    dupacks(&mut s, t + 2 * NS_PER_MS, 8 * MSS, 1);
    let segs = drain(&mut s, t + 2 * NS_PER_MS);
    assert_eq!((segs[0].seq, segs[0].retransmission), (8 * MSS, true));
    let cut = w - (w as u64 >> 2) as f64;
    assert_eq!(
        s.metrics().cwnd_packets,
        cut + 3.0,
        "w - w/4, inflated by 3"
    );
    assert_eq!(s.metrics().fast_retransmits, 1);
    dupacks(&mut s, t + 3 * NS_PER_MS, 8 * MSS, 1);
    assert_eq!(s.metrics().cwnd_packets, cut + 4.0);
    s.on_segment(t + 50 * NS_PER_MS, &ack(9 * MSS));
    let m = s.metrics();
    assert!(m.cwnd_packets <= cut + 1.0, "{} from {cut}", m.cwnd_packets);
    assert_eq!(m.ssthresh_packets, 2.0);
}

#[test]
fn ns2_vegas_resends_at_the_first_duplicate_once_the_fine_grained_timer_ran_out() {
    let (mut s, t) = ns2_vegas_acked(8 * MSS);
    // Just before the coarse timeout, segment 8 (sent at 100 ms) has
    // outlived `v_timeout_` (about 0.15 s): the first duplicate resends.
    let late = s.poll_timeout().unwrap() - NS_PER_MS;
    assert!(late - 100 * NS_PER_MS > 200 * NS_PER_MS);
    dupacks(&mut s, late, 8 * MSS, 1);
    let segs = drain(&mut s, late);
    assert_eq!((segs[0].seq, segs[0].retransmission), (8 * MSS, true));
    assert_eq!(s.metrics().fast_retransmits, 1);
    // The same segment lost again: resent at once, but the window is not
    // cut again, for it was cut the moment the segment was last sent.
    let w = s.metrics().cwnd_packets;
    // The retransmission backed the coarse timer off and restarted it.
    let later = s.poll_timeout().unwrap() - NS_PER_MS;
    assert!(later - late > 2 * (late - t));
    dupacks(&mut s, later, 8 * MSS, 1);
    let segs = drain(&mut s, later);
    assert_eq!((segs[0].seq, segs[0].retransmission), (8 * MSS, true));
    assert_eq!(s.metrics().fast_retransmits, 2);
    assert_eq!(s.metrics().cwnd_packets, w);
    // Under Brakmo and Peterson's rule the same duplicate does nothing.
    let mut paper = with_cwnd(cfg(CcKind::VEGAS), 8.0);
    dupacks(&mut paper, late, 0, 1);
    assert!(drain(&mut paper, late).is_empty());
}

// ---- Receiver ---------------------------------------------------------------

#[test]
fn receiver_dupacks_out_of_order_data_and_delivers_once() {
    let mut r = TcpReceiver::new(&cfg(CcKind::Reno));
    r.on_segment(0, &data(0, 1000));
    assert_eq!(r.poll_transmit(0).unwrap().ack, 1000);
    r.on_segment(1, &data(2000, 1000));
    let a = r.poll_transmit(1).unwrap();
    assert_eq!(a.ack, 1000, "duplicate ACK");
    assert!(a.sack.is_empty());
    assert_eq!(r.take_delivered(), 1000);
    r.on_segment(2, &data(1000, 1000));
    assert_eq!(r.poll_transmit(2).unwrap().ack, 3000);
    r.on_segment(3, &data(1000, 1000)); // duplicate
    assert_eq!(r.poll_transmit(3).unwrap().ack, 3000);
    assert_eq!(r.take_delivered(), 2000);
    assert_eq!(r.take_delivered(), 0);
    assert_eq!(r.delivered_bytes(), 3000);
}

#[test]
fn receiver_sends_sack_blocks_most_recent_first() {
    let mut r = TcpReceiver::new(&cfg(CcKind::Sack));
    r.on_segment(0, &data(0, 1000));
    r.poll_transmit(0);
    r.on_segment(1, &data(2000, 1000));
    assert_eq!(r.poll_transmit(1).unwrap().sack, vec![(2000, 3000)]);
    r.on_segment(2, &data(4000, 1000));
    assert_eq!(
        r.poll_transmit(2).unwrap().sack,
        vec![(4000, 5000), (2000, 3000)]
    );
    r.on_segment(3, &data(3000, 1000)); // joins the two blocks
    let a = r.poll_transmit(3).unwrap();
    assert_eq!(a.ack, 1000);
    assert_eq!(a.sack, vec![(2000, 5000)]);
    r.on_segment(4, &data(1000, 1000));
    let a = r.poll_transmit(4).unwrap();
    assert_eq!(a.ack, 5000);
    assert!(a.sack.is_empty());
}

#[test]
fn delayed_ack_every_second_segment_or_after_the_timeout() {
    let mut c = cfg(CcKind::Reno);
    c.delayed_ack = true;
    let mut r = TcpReceiver::new(&c);
    r.on_segment(0, &data(0, 1000));
    assert!(r.poll_transmit(0).is_none());
    assert_eq!(r.poll_timeout(), Some(100 * NS_PER_MS));
    r.on_segment(10, &data(1000, 1000));
    assert_eq!(r.poll_transmit(10).unwrap().ack, 2000);
    assert_eq!(r.poll_timeout(), None);
    r.on_segment(20, &data(2000, 1000));
    assert!(r.poll_transmit(20).is_none());
    r.on_timeout(20 + 100 * NS_PER_MS);
    assert_eq!(r.poll_transmit(20 + 100 * NS_PER_MS).unwrap().ack, 3000);
    // Out of order: at once.
    r.on_segment(30, &data(4000, 1000));
    assert_eq!(r.poll_transmit(30).unwrap().ack, 3000);
}

// ---- End to end through a lossy pipe ---------------------------------------

struct Outcome {
    delivered: u64,
    done: bool,
    retransmissions: u64,
    end_time: SimTime,
    spurious_timeouts: u64,
}

/// Sender and receiver joined by a pipe: 1 ms per data segment on the
/// forward link, 10 ms propagation each way, each segment (both ways)
/// dropped with probability `loss`.
fn run_pipe(c: &TcpConfig, total: u64, loss: f64, seed: u64) -> Outcome {
    run_pipe_jitter(c, total, loss, seed, 0)
}

/// As [`run_pipe`], each segment also delayed by a uniform `[0, jitter)`
/// extra, so segments and ACKs get reordered.
fn run_pipe_jitter(c: &TcpConfig, total: u64, loss: f64, seed: u64, jitter: SimTime) -> Outcome {
    run_pipe_full(c, total, loss, seed, jitter, usize::MAX, None)
}

/// As [`run_pipe_jitter`], the forward link's queue holding at most
/// `queue` segments (waiting or on the link): a segment that finds it
/// full is dropped. With `hold = Some((from, until))` the forward path
/// holds the segments that reach it in `[from, until)` and delivers them
/// after `until`, in order, none lost (a route that breaks and is found
/// again while the packets wait, as AODV's do).
/// The forward path holds every segment that would cross it in
/// `[from, until)` until `until`, then delivers them in order; of the
/// segments that cross it from `from` on, it loses the `lose`-th (from
/// 0).
#[derive(Clone, Copy)]
struct Hold {
    from: SimTime,
    until: SimTime,
    lose: Option<usize>,
}

fn run_pipe_full(
    c: &TcpConfig,
    total: u64,
    loss: f64,
    seed: u64,
    jitter: SimTime,
    queue: usize,
    hold: Option<Hold>,
) -> Outcome {
    let mut rng = Rng::new(1, Stream::Test, seed);
    let mut s = TcpSender::new(c.clone(), Some(total));
    s.set_path_hops(1);
    let mut r = TcpReceiver::new(c);
    // (time, id, to_receiver, segment)
    let mut q: Vec<(SimTime, u64, bool, TcpSegment)> = Vec::new();
    let mut id = 0u64;
    let mut link_free: SimTime = 0;
    let mut now = 0;
    let mut delivered = 0;
    let prop = 10 * NS_PER_MS;
    let mut held = 0;
    for _ in 0..2_000_000 {
        while let Some(seg) = s.poll_transmit(now) {
            let queued = link_free.saturating_sub(now).div_ceil(NS_PER_MS);
            if queued as usize >= queue {
                continue;
            }
            link_free = link_free.max(now) + NS_PER_MS;
            let mut lost = false;
            if let Some(h) = hold {
                if (h.from..h.until).contains(&link_free) {
                    link_free = h.until + (link_free - h.from) / 1000;
                }
                if link_free >= h.from {
                    lost = h.lose == Some(held);
                    held += 1;
                }
            }
            if rng.uniform() >= loss && !lost {
                id += 1;
                let extra = if jitter > 0 { rng.below(jitter) } else { 0 };
                q.push((link_free + prop + extra, id, true, seg));
            }
        }
        while let Some(a) = r.poll_transmit(now) {
            if rng.uniform() >= loss {
                id += 1;
                let extra = if jitter > 0 { rng.below(jitter) } else { 0 };
                q.push((now + prop + extra, id, false, a));
            }
        }
        let got = r.take_delivered();
        delivered += got;
        assert!(delivered <= total, "delivered more than sent");
        assert_eq!(delivered, r.delivered_bytes());
        if s.is_done() {
            break;
        }
        let next_q = q.iter().map(|e| (e.0, e.1)).min();
        let mut next = next_q.map(|e| e.0);
        for t in [s.poll_timeout(), r.poll_timeout()].into_iter().flatten() {
            next = Some(next.map_or(t, |n: SimTime| n.min(t)));
        }
        let Some(t) = next else { break };
        assert!(t >= now, "time went backwards");
        now = t;
        if let Some((_, nid)) = next_q.filter(|e| e.0 == now) {
            let i = q.iter().position(|e| e.1 == nid).unwrap();
            let (_, _, to_r, seg) = q.swap_remove(i);
            if to_r {
                r.on_segment(now, &seg);
            } else {
                s.on_segment(now, &seg);
            }
            continue;
        }
        if s.poll_timeout().is_some_and(|d| d <= now) {
            s.on_timeout(now);
        }
        if r.poll_timeout().is_some_and(|d| d <= now) {
            r.on_timeout(now);
        }
    }
    delivered += r.take_delivered();
    Outcome {
        delivered,
        done: s.is_done(),
        retransmissions: s.metrics().retransmissions,
        end_time: now,
        spurious_timeouts: s.metrics().spurious_timeouts,
    }
}

#[test]
fn every_variant_delivers_every_byte_once_over_a_lossy_pipe() {
    let total = 300_000;
    for (k, kind) in CcKind::all().into_iter().enumerate() {
        let modes = [(false, false), (true, true), (false, true), (true, false)];
        for (j, (handshake, delack)) in modes.into_iter().enumerate() {
            for seed in 0..4u64 {
                let mut c = cfg(kind);
                c.handshake = handshake;
                c.delayed_ack = delack;
                let o = run_pipe(&c, total, 0.05, (k * 100 + j * 10) as u64 + seed);
                let what = format!("{} hs={handshake} delack={delack} seed={seed}", kind.name());
                assert!(o.done, "{what}: not done");
                assert_eq!(o.delivered, total, "{what}");
                assert!(o.retransmissions > 0, "{what}: loss never hit");
                assert!(o.end_time < 2000 * NS_PER_S, "{what}");
            }
        }
    }
}

#[test]
fn every_variant_delivers_every_byte_with_ns2s_halving_limited_transmit_start_and_rto() {
    for (k, kind) in CcKind::all().into_iter().enumerate() {
        for seed in 0..3u64 {
            let mut c = cfg(kind);
            c.ssthresh_rule = SsthreshRule::Ns2;
            c.limited_transmit = true;
            c.start_rule = StartRule::Ns2;
            c.sack_rule = SackRule::Ns2;
            c.recovery_rule = RecoveryRule::Ns2;
            c.rto_rule = RtoRule::Ns2;
            c.tick_offset = seed * 3 * NS_PER_MS;
            c.delayed_ack = seed == 1;
            let o = run_pipe(&c, 200_000, 0.05, 3000 + (k as u64) * 10 + seed);
            assert!(o.done, "{} seed {seed}", kind.name());
            assert_eq!(o.delivered, 200_000, "{} seed {seed}", kind.name());
            assert!(o.retransmissions > 0, "{} seed {seed}", kind.name());
        }
    }
}

#[test]
fn every_variant_delivers_every_byte_under_ns3s_rto_rule() {
    // 5 % and 20 % loss: ns-3's timer, its backoff dropped at each new
    // ACK, still gets every byte through, once and in order.
    for (k, kind) in CcKind::all().into_iter().enumerate() {
        for (seed, loss) in [(0u64, 0.05), (1, 0.05), (2, 0.2)] {
            let mut c = cfg(kind);
            c.rto_rule = RtoRule::Ns3;
            c.delayed_ack = seed == 1;
            let o = run_pipe(&c, 100_000, loss, 5000 + (k as u64) * 10 + seed);
            let what = format!("{} seed {seed}", kind.name());
            assert!(o.done, "{what}: not done");
            assert_eq!(o.delivered, 100_000, "{what}");
            assert!(o.retransmissions > 0, "{what}: loss never hit");
        }
    }
}

#[test]
fn every_variant_survives_heavy_loss() {
    for (k, kind) in CcKind::all().into_iter().enumerate() {
        for seed in 0..3u64 {
            let mut c = cfg(kind);
            c.delayed_ack = seed == 1;
            let o = run_pipe(&c, 100_000, 0.2, 1000 + (k as u64) * 10 + seed);
            assert!(o.done, "{} seed {seed}", kind.name());
            assert_eq!(o.delivered, 100_000, "{} seed {seed}", kind.name());
        }
    }
}

#[test]
fn every_variant_survives_reordering_and_loss() {
    for (k, kind) in CcKind::all().into_iter().enumerate() {
        for seed in 0..3u64 {
            let mut c = cfg(kind);
            c.handshake = seed == 2;
            c.delayed_ack = seed == 1;
            let o = run_pipe_jitter(
                &c,
                150_000,
                0.05,
                2000 + (k as u64) * 10 + seed,
                15 * NS_PER_MS,
            );
            assert!(o.done, "{} seed {seed}", kind.name());
            assert_eq!(o.delivered, 150_000, "{} seed {seed}", kind.name());
        }
    }
}

#[test]
fn ns2_sack_survives_heavy_loss_and_reordering() {
    for seed in 0..6u64 {
        let mut c = cfg(CcKind::Sack);
        c.sack_rule = SackRule::Ns2;
        c.ssthresh_rule = SsthreshRule::Ns2;
        c.limited_transmit = seed % 2 == 0;
        c.delayed_ack = seed == 1;
        let (loss, jitter) = if seed < 3 {
            (0.2, 0)
        } else {
            (0.05, 15 * NS_PER_MS)
        };
        let o = run_pipe_jitter(&c, 150_000, loss, 4000 + seed, jitter);
        assert!(o.done, "seed {seed}");
        assert_eq!(o.delivered, 150_000, "seed {seed}");
        assert!(o.retransmissions > 0, "seed {seed}");
    }
}

#[test]
fn hystart_and_hystart_plus_plus_leave_slow_start_before_the_queue_overflows() {
    // 1 ms a segment and 21 ms of round trip: a window of 21 segments
    // fills the link. With a queue of 250, standard slow start overshoots
    // it and loses over 200 segments. HyStart's ACK trains end slow
    // start near 40 segments; HyStart++ sees the round's smallest RTT rise
    // once the queue stands (near 64 segments, where the link no longer
    // idles between rounds), and its five rounds of conservative growth
    // stay within the queue. With a queue of 60, HyStart++'s conservative
    // rounds overflow it too, and only HyStart loses nothing.
    let total = 2_000_000;
    let run = |kind: CcKind, slow_start: SlowStart, queue: usize| {
        let mut c = cfg(kind);
        c.window_packets = 1000;
        c.slow_start = slow_start;
        run_pipe_full(&c, total, 0.0, 7, 0, queue, None)
    };
    for kind in [
        CcKind::NewReno,
        CcKind::Cubic,
        CcKind::Sack,
        CcKind::Westwood,
    ] {
        let standard = run(kind, SlowStart::Standard, 250);
        let what = kind.name();
        assert!(standard.done, "{what}");
        assert!(
            standard.retransmissions > 200,
            "{what}: {}",
            standard.retransmissions
        );
        for (ss, queue) in [
            (SlowStart::HyStart, 250),
            (SlowStart::HyStartPlusPlus, 250),
            (SlowStart::HyStart, 60),
        ] {
            let o = run(kind, ss, queue);
            let what = format!("{what} {} queue {queue}", ss.name());
            assert!(o.done, "{what}");
            assert_eq!(o.delivered, total, "{what}");
            assert_eq!(o.retransmissions, 0, "{what}");
            // Within 4 % of the link's 2 s: the window left slow start
            // above what the path holds.
            assert!(o.end_time < 2_080 * NS_PER_MS, "{what}: {} ns", o.end_time);
        }
        let pp = run(kind, SlowStart::HyStartPlusPlus, 60);
        assert!(pp.done && pp.delivered == total, "{what}");
        assert!(pp.retransmissions > 0, "{what}: {}", pp.retransmissions);
    }
}

/// `total` bytes of a `kind` sender (window 20, F-RTO or not) through the
/// pipe whose path holds everything from 0.5 s for `hold_ms`, losing the
/// `lose`-th segment that crosses it from then on.
fn held_pipe(kind: CcKind, frto: bool, total: u64, hold_ms: u64, lose: Option<usize>) -> Outcome {
    let c = TcpConfig {
        frto,
        window_packets: 20,
        ..cfg(kind)
    };
    let hold = Hold {
        from: 500 * NS_PER_MS,
        until: (500 + hold_ms) * NS_PER_MS,
        lose,
    };
    run_pipe_full(&c, total, 0.0, 3, 0, usize::MAX, Some(hold))
}

#[test]
fn frto_finds_the_timeout_a_held_path_causes_spurious_and_resends_less() {
    // The forward path holds every segment from t = 0.5 s for 0.35 s (one
    // timeout, at an RTO of 0.2 s) or 1.5 s (three), then delivers them,
    // in order, none lost: the timer fires while the originals wait.
    // Without F-RTO go-back-N resends the window, which arrives twice;
    // with it the first ACK after the hold lets new data leave and the
    // next ACK, for an original, undoes the cut.
    let total = 1_000_000;
    let kinds = [
        CcKind::Reno,
        CcKind::NewReno,
        CcKind::Cubic,
        CcKind::Westwood,
        CcKind::Sack,
    ];
    for (kind, hold_ms) in kinds.into_iter().flat_map(|k| [(k, 350), (k, 1500)]) {
        let run = |frto: bool| held_pipe(kind, frto, total, hold_ms, None);
        let (plain, frto) = (run(false), run(true));
        let what = format!("{} held {hold_ms} ms", kind.name());
        for o in [&plain, &frto] {
            assert!(o.done, "{what}");
            assert_eq!(o.delivered, total, "{what}");
        }
        assert_eq!(plain.spurious_timeouts, 0, "{what}");
        assert!(frto.spurious_timeouts >= 1, "{what}");
        assert!(
            plain.retransmissions >= 10,
            "{what}: {}",
            plain.retransmissions
        );
        assert!(
            frto.retransmissions * 5 <= plain.retransmissions,
            "{what}: {} against {}",
            frto.retransmissions,
            plain.retransmissions
        );
        assert!(frto.end_time < plain.end_time, "{what}");
    }
}

#[test]
fn lossless_pipe_has_no_retransmissions_and_fills_the_link() {
    for kind in CcKind::all() {
        let c = cfg(kind);
        let o = run_pipe(&c, 200_000, 0.0, 99);
        assert!(o.done, "{}", kind.name());
        assert_eq!(o.delivered, 200_000);
        assert_eq!(o.retransmissions, 0, "{}", kind.name());
        if kind != CcKind::TCP_AP {
            // 200 segments at 1 ms each plus ramp-up: well under a second.
            assert!(o.end_time < NS_PER_S, "{}: {}", kind.name(), o.end_time);
        }
    }
}

#[test]
fn config_defaults_are_ns2_and_packet_size_counts_40_bytes() {
    let c = TcpConfig::default();
    assert_eq!(c.window_packets, 20);
    assert_eq!(c.initial_window_packets, 2);
    assert_eq!(c.mss_bytes, 1000);
    assert_eq!(c.min_rto, 200 * NS_PER_MS);
    assert_eq!(c.max_rto, 60 * NS_PER_S);
    assert_eq!(c.initial_rto, 3 * NS_PER_S);
    assert_eq!(c.tick, 10 * NS_PER_MS);
    assert_eq!(c.dupack_threshold, 3);
    assert_eq!(c.delayed_ack_timeout, 100 * NS_PER_MS);
    let mut seg = data(0, 512);
    assert_eq!(c.packet_bytes(&seg), 552);
    seg.sack = vec![(1, 2)];
    assert_eq!(c.packet_bytes(&seg), 564);
}

#[test]
fn sack_frto_finds_a_held_window_with_one_loss_spurious_where_the_basic_form_cannot() {
    // The path holds the window for 0.35 s (one timeout) and loses the
    // second segment held. When it lets go, the first ACK lets F-RTO's
    // two new segments leave; the rest of the originals then arrive above
    // the hole. The basic form sees a duplicate ACK and goes back (3
    // segments resent, as without F-RTO); the SACK-enhanced one sees the
    // duplicate SACK an original, finds the timeout spurious, undoes the
    // cut and fast-retransmits the hole alone (2 resent), 26 ms sooner.
    // Lose the sixth instead, and both forms see a new ACK first.
    let total = 1_000_000;
    let run = |kind: CcKind, frto: bool, lose: usize| {
        let o = held_pipe(kind, frto, total, 350, Some(lose));
        assert!(
            o.done && o.delivered == total,
            "{} {frto} {lose}",
            kind.name()
        );
        o
    };
    let basic = run(CcKind::NewReno, true, 1);
    let sack = run(CcKind::Sack, true, 1);
    let plain = run(CcKind::Sack, false, 1);
    assert_eq!(basic.spurious_timeouts, 0);
    assert_eq!(sack.spurious_timeouts, 1);
    assert_eq!(
        (
            plain.retransmissions,
            basic.retransmissions,
            sack.retransmissions
        ),
        (3, 3, 2)
    );
    assert!(sack.end_time + 20 * NS_PER_MS < basic.end_time.min(plain.end_time));
    for kind in [CcKind::NewReno, CcKind::Sack] {
        let (plain, frto) = (run(kind, false, 5), run(kind, true, 5));
        assert_eq!(frto.spurious_timeouts, 1, "{}", kind.name());
        assert!(
            frto.retransmissions * 5 <= plain.retransmissions,
            "{}",
            kind.name()
        );
    }
}
