use super::*;

const MS: SimTime = NS_PER_MS;

/// RFC 4960's defaults, without §8.3's HEARTBEATs on the idle path: the
/// tests of the other sections time their own timers alone; those of §8.3
/// turn them on.
fn cfg() -> SctpConfig {
    SctpConfig {
        heartbeat_interval: 0,
        ..SctpConfig::default()
    }
}

/// RFC 4960's INIT asking for `streams` streams.
fn init(streams: u16) -> SctpChunk {
    SctpChunk::Init {
        streams,
        rule: HandshakeRule::Rfc,
    }
}

/// RFC 4960's INIT ACK granting `streams` streams.
fn init_ack(streams: u16) -> SctpChunk {
    SctpChunk::InitAck {
        streams,
        rule: HandshakeRule::Rfc,
    }
}

/// RFC 4960's COOKIE ECHO.
fn cookie_echo() -> SctpChunk {
    SctpChunk::CookieEcho {
        rule: HandshakeRule::Rfc,
    }
}

/// A sender past its handshake, at `now`.
fn established(bulk: bool, now: SimTime) -> SctpSender {
    established_from(cfg(), bulk, now)
}

/// A sender of configuration `c` past its handshake, at `now`.
fn established_from(c: SctpConfig, bulk: bool, now: SimTime) -> SctpSender {
    let mut s = SctpSender::new(c, bulk);
    s.start(now);
    assert_eq!(s.poll_transmit(now), Some(init(1)));
    s.on_chunk(now, &init_ack(1));
    assert_eq!(s.poll_transmit(now), Some(cookie_echo()));
    s.on_chunk(now, &SctpChunk::CookieAck);
    assert_eq!(s.state(), SctpState::Established);
    s
}

fn drain(s: &mut SctpSender, now: SimTime) -> Vec<u64> {
    let mut tsns = Vec::new();
    while let Some(c) = s.poll_transmit(now) {
        match c {
            SctpChunk::Data(chunks) => tsns.extend(chunks.iter().map(|d| d.tsn)),
            other => panic!("unexpected {other:?}"),
        }
    }
    tsns
}

/// Sends all that cwnd allows, over as many events as Max.Burst needs.
fn fill(s: &mut SctpSender, now: SimTime) -> Vec<u64> {
    let mut all = Vec::new();
    loop {
        s.write(0);
        let sent = drain(s, now);
        if sent.is_empty() {
            return all;
        }
        all.extend(sent);
    }
}

fn sack(cum_next: u64, gaps: &[(u64, u64)]) -> SctpChunk {
    SctpChunk::Sack(SctpSack {
        cum_next,
        a_rwnd: 65_536,
        gaps: gaps.to_vec(),
        dups: vec![],
    })
}

#[test]
fn sizes_follow_the_chunk_layouts() {
    let data = SctpChunk::data(0, 1000);
    assert_eq!(data.wire_len(), 12 + 16 + 1000);
    // User data is padded to a multiple of 4.
    let odd = SctpChunk::data(0, 101);
    assert_eq!(odd.wire_len(), 12 + 16 + 104);
    let s = SctpChunk::Sack(SctpSack {
        cum_next: 3,
        a_rwnd: 1,
        gaps: vec![(5, 6), (9, 9)],
        dups: vec![1],
    });
    assert_eq!(s.wire_len(), 12 + 16 + 3 * 4);
    assert_eq!(init(1).wire_len(), 32);
    assert_eq!(SctpChunk::CookieAck.wire_len(), 16);
    assert_eq!(SctpConfig::max_chunk_bytes(1500), 1452);
    assert_eq!(cfg().initial_cwnd_bytes(), 4380);
    assert_eq!(
        SctpConfig {
            mtu_bytes: 576,
            ..cfg()
        }
        .initial_cwnd_bytes(),
        2304
    );
}

/// Lets the sender's next `n` timers expire from `t0` on, checking that
/// each sends `expected(t)` alone; returns the waits in seconds and the
/// last expiry's time.
fn expiries(
    s: &mut SctpSender,
    t0: SimTime,
    n: usize,
    expected: impl Fn(SimTime) -> SctpChunk,
) -> (Vec<u64>, SimTime) {
    let mut t = t0;
    let mut waits = Vec::new();
    for _ in 0..n {
        let next = s.poll_timeout().unwrap();
        waits.push((next - t) / NS_PER_S);
        t = next;
        s.on_timeout(t);
        assert_eq!(s.poll_transmit(t), Some(expected(t)));
        assert_eq!(s.poll_transmit(t), None, "nothing else, no data");
    }
    (waits, t)
}

#[test]
fn the_handshake_retransmits_with_a_doubling_timer_then_fails() {
    let mut s = SctpSender::new(cfg(), true);
    s.start(0);
    assert_eq!(s.poll_transmit(0), Some(init(1)));
    assert_eq!(s.poll_transmit(0), None, "no data before the handshake");
    let init = init(1);
    let (waits, t) = expiries(&mut s, 0, 8, |_| init.clone());
    assert_eq!(waits, [3, 6, 12, 24, 48, 60, 60, 60]);
    s.on_timeout(s.poll_timeout().unwrap());
    assert_eq!(s.state(), SctpState::Failed);
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.poll_transmit(t), None);
}

#[test]
fn a_lost_cookie_echo_is_sent_again() {
    let mut s = SctpSender::new(cfg(), true);
    s.start(0);
    s.poll_transmit(0);
    s.on_chunk(MS, &init_ack(1));
    assert_eq!(s.poll_transmit(MS), Some(cookie_echo()));
    assert_eq!(s.poll_timeout(), Some(MS + 3 * NS_PER_S));
    s.on_timeout(MS + 3 * NS_PER_S);
    assert_eq!(s.poll_transmit(MS), Some(cookie_echo()));
    // A second INIT ACK changes nothing.
    s.on_chunk(MS, &init_ack(1));
    assert_eq!(s.poll_transmit(MS), None);
}

#[test]
fn the_first_flight_is_max_burst_packets_within_the_initial_cwnd() {
    let mut s = established(true, 0);
    // cwnd 4380 would allow 5 chunks of 1000; Max.Burst stops at 4.
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3]);
    assert_eq!(s.metrics().flight_bytes, 4000);
    assert_eq!(
        s.poll_timeout(),
        Some(3 * NS_PER_S),
        "T3 runs at RTO.Initial"
    );
}

/// A sender past its handshake under ns-2.35's Max.Burst rule.
fn established_ns2(now: SimTime) -> SctpSender {
    let mut s = SctpSender::new(
        SctpConfig {
            max_burst_rule: MaxBurstRule::Ns2,
            ..cfg()
        },
        true,
    );
    s.start(now);
    s.poll_transmit(now);
    s.on_chunk(now, &init_ack(1));
    s.poll_transmit(now);
    s.on_chunk(now, &SctpChunk::CookieAck);
    s
}

#[test]
fn under_ns2_rule_the_first_flight_fills_the_initial_cwnd() {
    let mut s = established_ns2(0);
    // No retransmitted chunk acknowledged yet: no limit, 5 chunks fill
    // 4380 bytes (the fifth overruns it, as §6.1 B allows).
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3, 4]);
}

#[test]
fn under_ns2_rule_a_sack_of_a_retransmitted_chunk_limits_one_burst() {
    let mut s = established_ns2(0);
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3, 4]);
    // TSN 0 lost; three miss indications fast-retransmit it.
    s.on_chunk(10 * MS, &sack(0, &[(1, 1)]));
    s.on_chunk(11 * MS, &sack(0, &[(1, 2)]));
    s.on_chunk(12 * MS, &sack(0, &[(1, 3)]));
    assert_eq!(s.metrics().fast_retransmits, 1);
    let sent = drain(&mut s, 12 * MS);
    assert_eq!(sent[0], 0, "the fast retransmission first: {sent:?}");
    // A SACK acknowledging TSN 0 (sent twice) arms the limit: with a large
    // window open, one burst of 4 leaves, then the opportunity ends.
    s.cwnd = 40_000;
    s.on_chunk(20 * MS, &sack(5, &[]));
    let burst = drain(&mut s, 20 * MS);
    assert_eq!(burst.len(), 4, "{burst:?}");
    // The limit was used up: the next SACK, of chunks sent once, lets the
    // sender fill the window.
    s.on_chunk(21 * MS, &sack(6, &[]));
    let after = drain(&mut s, 21 * MS);
    assert!(after.len() > 4, "{after:?}");
    assert_eq!(
        s.metrics().flight_bytes,
        s.metrics().cwnd_bytes.div_ceil(1000) * 1000
    );
}

#[test]
fn under_ns2_rule_the_limit_waits_for_a_burst_it_cuts_short() {
    let mut s = established_ns2(0);
    drain(&mut s, 0); // 0..=4
    s.on_chunk(10 * MS, &sack(0, &[(1, 1)]));
    s.on_chunk(11 * MS, &sack(0, &[(1, 2)]));
    s.on_chunk(12 * MS, &sack(0, &[(1, 3)]));
    // The fast retransmission, then new data as cwnd (6000 bytes after the
    // cut, TSN 4 outstanding) allows.
    assert_eq!(drain(&mut s, 12 * MS), [0, 5, 6, 7, 8]);
    // TSN 0 acknowledged with 1..=3: the limit applies, but cwnd allows
    // fewer than 4 packets, so it stays armed for the next opportunity.
    s.on_chunk(20 * MS, &sack(4, &[]));
    assert!(s.apply_max_burst);
    assert_eq!(drain(&mut s, 20 * MS), [9]);
    assert!(s.apply_max_burst);
    s.cwnd = 40_000;
    s.on_chunk(21 * MS, &sack(5, &[]));
    assert_eq!(drain(&mut s, 21 * MS).len(), 4);
    assert!(!s.apply_max_burst);
}

#[test]
fn under_ns2_rule_a_chunk_resent_after_a_timeout_does_not_arm_the_limit() {
    // ns-2.35 arms Max.Burst only for a chunk it fast-retransmitted
    // (`eIneligibleForFastRtx`), which a T3 expiry does not set.
    let mut s = established_ns2(0);
    drain(&mut s, 0); // 0..=4
    s.on_timeout(3 * NS_PER_S);
    assert_eq!(drain(&mut s, 3 * NS_PER_S), [0, 1]);
    s.on_chunk(3 * NS_PER_S + 10 * MS, &sack(1, &[]));
    assert!(!s.apply_max_burst);
}

#[test]
fn slow_start_grows_by_at_most_one_mtu_per_sack_while_cwnd_is_full() {
    let mut s = established(true, 0);
    drain(&mut s, 0);
    s.write(0); // a new event: the burst allowance renews
    assert_eq!(drain(&mut s, 0), [4], "one chunk overruns cwnd (rule B)");
    // The SACK acks 2000 bytes with 5000 in flight against 4380: full.
    s.on_chunk(100 * MS, &sack(2, &[]));
    assert_eq!(s.metrics().cwnd_bytes, 4380 + 1500);
    // RTT 100 ms: SRTT 100, RTTVAR 50, RTO max(300 ms, RTO.Min) = 1 s.
    let m = s.metrics();
    assert_eq!(m.srtt, Some(100 * MS));
    assert_eq!(m.rto, NS_PER_S);
    assert_eq!(
        s.poll_timeout(),
        Some(100 * MS + NS_PER_S),
        "R3 restarts T3"
    );
}

#[test]
fn an_application_limited_sender_does_not_grow_cwnd() {
    let mut s = established(false, 0);
    s.write(1);
    assert_eq!(drain(&mut s, 0), [0]);
    assert_eq!(s.waiting(), 0);
    s.on_chunk(50 * MS, &sack(1, &[]));
    assert_eq!(s.metrics().cwnd_bytes, 4380, "cwnd was not fully used");
    // R2: nothing outstanding, no T3; only cwnd's idle decay is timed, one
    // RTO (the initial 3 s) after the packet, and it leaves 4380 as it is.
    assert_eq!(s.poll_timeout(), Some(3 * NS_PER_S));
    s.on_timeout(3 * NS_PER_S);
    assert_eq!(s.metrics().cwnd_bytes, 4380);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn idle_cwnd_halves_per_rto_down_to_four_mtu() {
    // §7.2.1: "When the endpoint does not transmit data on a given
    // transport address, the cwnd ... SHOULD be adjusted to max(cwnd/2,
    // 4*MTU) per RTO."
    let mut s = established(false, 0);
    s.write(1);
    assert_eq!(drain(&mut s, 0), [0]);
    // RTT 50 ms: the RTO falls to RTO.Min (1 s); the decay was timed with
    // the RTO of the moment the packet left (3 s).
    s.on_chunk(50 * MS, &sack(1, &[]));
    assert_eq!(s.metrics().rto, NS_PER_S);
    s.cwnd = 20_000;
    assert_eq!(s.poll_timeout(), Some(3 * NS_PER_S));
    s.on_timeout(3 * NS_PER_S);
    assert_eq!(s.metrics().cwnd_bytes, 10_000);
    assert_eq!(s.poll_timeout(), Some(4 * NS_PER_S), "again after an RTO");
    s.on_timeout(4 * NS_PER_S);
    assert_eq!(s.metrics().cwnd_bytes, 6_000, "max(5000, 4 MTU)");
    assert_eq!(s.poll_timeout(), None, "nothing more to decay");
    // A packet restarts the clock: one RTO after it, not after the last
    // decay.
    s.cwnd = 9_000;
    s.write(1);
    assert_eq!(drain(&mut s, 5 * NS_PER_S), [1]);
    s.on_chunk(5 * NS_PER_S + 50 * MS, &sack(2, &[]));
    assert_eq!(s.poll_timeout(), Some(6 * NS_PER_S));
    s.on_timeout(6 * NS_PER_S - 1);
    assert_eq!(s.metrics().cwnd_bytes, 9_000);
    s.on_timeout(6 * NS_PER_S);
    assert_eq!(s.metrics().cwnd_bytes, 6_000);
    // A sender that keeps sending never decays.
    let mut b = established(true, 0);
    b.cwnd = 20_000;
    let mut now = 0;
    for round in 0..40u64 {
        let sent = fill(&mut b, now);
        now += 100 * MS;
        b.on_timeout(now);
        let last = *sent.last().expect("a bulk sender sends");
        b.on_chunk(now, &sack(last + 1, &[]));
        assert!(b.metrics().cwnd_bytes >= 20_000, "round {round}");
    }
}

#[test]
fn ns2s_idle_rule_raises_a_cwnd_between_two_and_four_of_its_mtus() {
    // ns-2.35's CwndDegradeTimer acts on a cwnd over initialCwnd_ (2) x
    // 1468 bytes and sets max(cwnd/2, 4 x 1468): the initial 4380 becomes
    // 5872. RFC 4960's rule leaves a cwnd of 4 MTU or less alone; `off`
    // times nothing.
    for (rule, after, timed) in [
        (IdleRule::Ns2, 5_872, true),
        (IdleRule::Rfc, 4_380, true),
        (IdleRule::Off, 4_380, false),
    ] {
        let mut s = established_with(
            SctpConfig {
                idle_rule: rule,
                ..cfg()
            },
            0,
        );
        s.write(1);
        assert_eq!(drain(&mut s, 0), [0]);
        s.on_chunk(50 * MS, &sack(1, &[]));
        assert_eq!(s.poll_timeout().is_some(), timed, "{rule:?}");
        s.on_timeout(3 * NS_PER_S);
        assert_eq!(s.metrics().cwnd_bytes, after, "{rule:?}");
        assert_eq!(s.poll_timeout(), None, "{rule:?}");
    }
}

#[test]
fn a_t3_expiry_stops_the_decay_until_the_retransmission() {
    let mut s = established(false, 0);
    s.write(1);
    assert_eq!(drain(&mut s, 0), [0]);
    s.cwnd = 20_000;
    // T3 and the decay fall due together, 3 s after the packet: T3 sets
    // cwnd to 1 MTU, and the decay does not halve it further.
    s.on_timeout(3 * NS_PER_S);
    assert_eq!(s.metrics().cwnd_bytes, 1_500);
    assert_eq!(s.idle_decay, None);
    // The retransmission times it again, with the doubled RTO.
    assert_eq!(drain(&mut s, 3 * NS_PER_S), [0]);
    assert_eq!(s.idle_decay, Some(9 * NS_PER_S));
}

#[test]
fn congestion_avoidance_adds_one_mtu_per_cwnd_of_acked_bytes() {
    let mut s = established(true, 0);
    // Leave slow start: a T3 expiry sets ssthresh to max(cwnd / 2, 4 MTU).
    drain(&mut s, 0);
    s.on_timeout(3 * NS_PER_S);
    let m = s.metrics();
    assert_eq!((m.cwnd_bytes, m.ssthresh_bytes), (1500, 6000));
    assert_eq!(m.rto, 6 * NS_PER_S);
    s.on_chunk(3 * NS_PER_S, &sack(4, &[]));
    // Slow start from 1500 to above ssthresh, fully used each time.
    let mut t = 3 * NS_PER_S;
    let mut next_ack = 4;
    while s.metrics().cwnd_bytes <= s.metrics().ssthresh_bytes {
        t += 100 * MS;
        let sent = fill(&mut s, t);
        next_ack = *sent.last().unwrap() + 1;
        s.on_chunk(t + 50 * MS, &sack(next_ack, &[]));
    }
    let cwnd = s.metrics().cwnd_bytes;
    assert!(cwnd > 6000 && cwnd <= 7500, "{cwnd}");
    // Now each SACK adds to partial_bytes_acked; cwnd grows by one MTU
    // once a cwnd's worth is acked while cwnd was full.
    let mut acked = 0;
    while s.metrics().cwnd_bytes == cwnd {
        t += 100 * MS;
        let sent = fill(&mut s, t);
        assert!(!sent.is_empty());
        let up_to = *sent.last().unwrap() + 1;
        acked += (up_to - next_ack) * 1000;
        next_ack = up_to;
        s.on_chunk(t + 50 * MS, &sack(next_ack, &[]));
    }
    assert_eq!(s.metrics().cwnd_bytes, cwnd + 1500);
    assert!(
        acked >= cwnd as u64 && acked < cwnd as u64 + 5000,
        "{acked}"
    );
}

#[test]
fn three_miss_indications_fast_retransmit_once_and_halve_cwnd_once() {
    let mut s = established(true, 0);
    assert_eq!(fill(&mut s, 0), [0, 1, 2, 3, 4]);
    let cwnd = s.metrics().cwnd_bytes;
    // TSN 0 is lost: SACKs with gap blocks 1..=1, 1..=2, 1..=3.
    s.on_chunk(10 * MS, &sack(0, &[(1, 1)]));
    s.on_chunk(11 * MS, &sack(0, &[(1, 2)]));
    assert_eq!(s.metrics().fast_retransmits, 0);
    s.on_chunk(12 * MS, &sack(0, &[(1, 3)]));
    let m = s.metrics();
    assert_eq!(m.fast_retransmits, 1);
    assert_eq!(m.ssthresh_bytes, (cwnd / 2).max(6000));
    assert_eq!(m.cwnd_bytes, m.ssthresh_bytes);
    // The first packet leaves regardless of cwnd: TSN 0 again.
    let first = s.poll_transmit(12 * MS);
    assert_eq!(first, Some(SctpChunk::data(0, 1000)));
    assert_eq!(s.metrics().retransmissions, 1);
    // More miss reports for TSN 0 do not retransmit it again, nor cut cwnd.
    fill(&mut s, 12 * MS);
    for k in 4..8 {
        s.on_chunk((13 + k) * MS, &sack(0, &[(1, k)]));
        let again = fill(&mut s, (13 + k) * MS);
        assert!(!again.contains(&0), "{again:?}");
    }
    assert_eq!(s.metrics().cwnd_bytes, m.cwnd_bytes);
    assert_eq!(s.metrics().retransmissions, 1);
    // Once the cumulative ack passes the exit point, recovery ends and
    // cwnd may grow again.
    let all = s.next_tsn;
    s.on_chunk(40 * MS, &sack(all, &[]));
    assert_eq!(s.recovery_exit, None);
    assert_eq!(s.metrics().flight_bytes, 0);
}

#[test]
fn misses_count_only_below_the_highest_newly_acked_tsn() {
    let mut s = established(true, 0);
    drain(&mut s, 0); // 0..=3
                      // TSNs 0 and 2 missing; the gap block 3..=3 newly acks TSN 3 only.
    s.on_chunk(MS, &sack(0, &[(1, 1), (3, 3)]));
    // A repeat of the same SACK acks nothing new: no further misses.
    s.on_chunk(2 * MS, &sack(0, &[(1, 1), (3, 3)]));
    s.on_chunk(3 * MS, &sack(0, &[(1, 1), (3, 3)]));
    assert_eq!(s.metrics().fast_retransmits, 0);
    let misses: Vec<u32> = s.out.iter().map(|c| c.misses).collect();
    assert_eq!(misses, [1, 0, 1, 0]);
}

#[test]
fn a_t3_expiry_resends_the_earliest_chunk_with_cwnd_one_mtu() {
    let mut s = established(true, 0);
    drain(&mut s, 0);
    s.on_timeout(3 * NS_PER_S);
    let m = s.metrics();
    assert_eq!((m.cwnd_bytes, m.flight_bytes, m.timeouts), (1500, 0, 1));
    // 1000 in flight is below 1500: the second chunk also leaves (rule B).
    assert_eq!(drain(&mut s, 3 * NS_PER_S), [0, 1]);
    assert_eq!(s.metrics().retransmissions, 2);
    assert_eq!(
        s.poll_timeout(),
        Some(9 * NS_PER_S),
        "R1 with the doubled RTO"
    );
    // Karn: the retransmitted chunk gives no RTT sample.
    s.on_chunk(3 * NS_PER_S + 100 * MS, &sack(2, &[]));
    assert_eq!(s.metrics().srtt, None);
    assert_eq!(s.metrics().rto, 6 * NS_PER_S);
}

#[test]
fn ten_expiries_in_a_row_keep_the_association_eleven_fail_it() {
    let mut s = established(true, 0);
    drain(&mut s, 0);
    for k in 0..10 {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(s.state(), SctpState::Established, "expiry {k}");
        s.write(0);
        assert!(!drain(&mut s, t).is_empty());
    }
    assert_eq!(s.metrics().rto, 60 * NS_PER_S);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(s.state(), SctpState::Failed);
    assert_eq!(s.poll_transmit(t), None);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn new_acknowledged_data_resets_the_error_count() {
    let mut s = established(true, 0);
    drain(&mut s, 0);
    for _ in 0..10 {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        s.write(0);
        drain(&mut s, t);
    }
    let t = s.poll_timeout().unwrap() - MS;
    s.on_chunk(t, &sack(1, &[]));
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(s.state(), SctpState::Established);
}

#[test]
fn the_peer_window_limits_new_data() {
    let mut s = established(true, 0);
    drain(&mut s, 0);
    s.on_chunk(
        MS,
        &SctpChunk::Sack(SctpSack {
            cum_next: 1,
            a_rwnd: 3500,
            gaps: vec![],
            dups: vec![],
        }),
    );
    // 3000 in flight leaves 500 of window: nothing new fits.
    assert_eq!(drain(&mut s, MS), Vec::<u64>::new());
    // With nothing in flight one chunk may probe a closed window.
    s.on_chunk(
        2 * MS,
        &SctpChunk::Sack(SctpSack {
            cum_next: 4,
            a_rwnd: 0,
            gaps: vec![],
            dups: vec![],
        }),
    );
    assert_eq!(drain(&mut s, 2 * MS), [4]);
}

#[test]
fn the_receiver_answers_the_handshake_and_delays_sacks() {
    let mut r = SctpReceiver::new(cfg());
    r.on_chunk(0, &init(1));
    assert_eq!(r.poll_transmit(0), Some(init_ack(1)));
    r.on_chunk(MS, &cookie_echo());
    assert_eq!(r.poll_transmit(MS), Some(SctpChunk::CookieAck));
    let d = |tsn| SctpChunk::data(tsn, 1000);
    // One packet: the SACK waits up to 200 ms.
    r.on_chunk(10 * MS, &d(0));
    assert_eq!(r.poll_transmit(10 * MS), None);
    assert_eq!(r.poll_timeout(), Some(210 * MS));
    r.on_timeout(210 * MS);
    assert_eq!(r.poll_transmit(210 * MS), Some(sack(1, &[])));
    // Every second packet is acknowledged at once.
    r.on_chunk(300 * MS, &d(1));
    assert_eq!(r.poll_transmit(300 * MS), None);
    r.on_chunk(301 * MS, &d(2));
    assert_eq!(r.poll_transmit(301 * MS), Some(sack(3, &[])));
    assert_eq!(r.poll_timeout(), None);
    assert_eq!(r.take_delivered(), 3000);
}

#[test]
fn the_receiver_reports_gaps_and_duplicates_at_once() {
    let mut r = SctpReceiver::new(cfg());
    let d = |tsn| SctpChunk::data(tsn, 1000);
    r.on_chunk(0, &d(0));
    r.on_chunk(0, &d(2));
    r.on_chunk(0, &d(3));
    r.on_chunk(0, &d(5));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(0) else {
        panic!("a SACK");
    };
    assert_eq!(s.cum_next, 1);
    assert_eq!(s.gaps, [(2, 3), (5, 5)]);
    assert_eq!(s.a_rwnd, 65_536 - 3000, "held out of order");
    assert_eq!(r.take_delivered(), 1000, "only in-order data is delivered");
    // A duplicate is reported once, at once.
    r.on_chunk(MS, &d(2));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(MS) else {
        panic!("a SACK");
    };
    assert_eq!(s.dups, [2]);
    // Filling the first gap acks at once and delivers what was held.
    r.on_chunk(2 * MS, &d(1));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(2 * MS) else {
        panic!("a SACK");
    };
    assert_eq!((s.cum_next, s.gaps, s.dups), (4, vec![(5, 5)], vec![]));
    assert_eq!(r.take_delivered(), 3000);
}

/// Packets on a link: (arrival, to the receiver?, chunk).
type Wire = Vec<(SimTime, bool, SctpChunk)>;

/// Moves a link's two ends to their next event (the next arrival, or a
/// timer): hands over the packet arriving then, runs the timers due;
/// returns the time, or `None` when nothing is left to happen.
fn advance(s: &mut SctpSender, r: &mut SctpReceiver, wire: &mut Wire) -> Option<SimTime> {
    let next_wire = wire.iter().map(|w| w.0).min();
    let now = [next_wire, s.poll_timeout(), r.poll_timeout()]
        .into_iter()
        .flatten()
        .min()?;
    if let Some(i) = wire.iter().position(|w| w.0 == now) {
        let (_, to_r, c) = wire.remove(i);
        if to_r {
            r.on_chunk(now, &c);
        } else {
            s.on_chunk(now, &c);
        }
    }
    s.on_timeout(now);
    r.on_timeout(now);
    Some(now)
}

/// Sender and receiver over a link that loses chosen packets each way and
/// delays the rest by `delay`: every byte arrives, in order, and the sender
/// ends with nothing outstanding.
fn run_lossy_link(loss_data: impl Fn(u64) -> bool, loss_sack: impl Fn(u64) -> bool) -> SctpMetrics {
    run_lossy_link_with(cfg(), loss_data, loss_sack)
}

fn run_lossy_link_with(
    c: SctpConfig,
    loss_data: impl Fn(u64) -> bool,
    loss_sack: impl Fn(u64) -> bool,
) -> SctpMetrics {
    run_lossy_link_receiver(c, loss_data, loss_sack).0
}

/// As [`run_lossy_link_with`], also returning the receiver.
fn run_lossy_link_receiver(
    c: SctpConfig,
    loss_data: impl Fn(u64) -> bool,
    loss_sack: impl Fn(u64) -> bool,
) -> (SctpMetrics, SctpReceiver) {
    let delay = 20 * MS;
    let mut s = SctpSender::new(c.clone(), false);
    let mut r = SctpReceiver::new(c.clone());
    s.write(500);
    s.start(0);
    let mut wire: Wire = Vec::new();
    let (mut n_data, mut n_back) = (0u64, 0u64);
    let mut now = 0;
    let mut delivered = 0;
    for _ in 0..200_000 {
        while let Some(c) = s.poll_transmit(now) {
            n_data += 1;
            if !(matches!(c, SctpChunk::Data(_)) && loss_data(n_data)) {
                wire.push((now + delay, true, c));
            }
        }
        while let Some(c) = r.poll_transmit(now) {
            n_back += 1;
            if !loss_sack(n_back) {
                wire.push((now + delay, false, c));
            }
        }
        delivered += r.take_delivered();
        let Some(next) = advance(&mut s, &mut r, &mut wire) else {
            break;
        };
        now = next;
        s.write(0);
    }
    assert_eq!(delivered, 500 * c.chunk_bytes as u64);
    assert_eq!(r.delivered_messages(), 500);
    assert_eq!(r.sack().a_rwnd, c.rwnd_bytes, "nothing held back");
    let m = s.metrics();
    assert_eq!((m.flight_bytes, s.waiting()), (0, 0));
    assert_eq!(m.state, SctpState::Established);
    (m, r)
}

#[test]
fn every_byte_arrives_in_order_over_a_lossy_link() {
    // No loss: no retransmission.
    let m = run_lossy_link(|_| false, |_| false);
    assert_eq!(m.retransmissions, 0);
    // Every 7th DATA packet lost: fast retransmits repair most.
    let m = run_lossy_link(|n| n % 7 == 0, |_| false);
    assert!(m.fast_retransmits > 10, "{m:?}");
    assert!(m.retransmissions >= 70, "{m:?}");
    // Losses both ways, including retransmissions and SACKs.
    let m = run_lossy_link(|n| n % 5 == 0 || n % 13 == 0, |n| n % 3 == 0);
    assert!(m.retransmissions > 100, "{m:?}");
}

/// A sender of `bytes`-byte messages past its handshake.
fn established_with(c: SctpConfig, now: SimTime) -> SctpSender {
    let mut s = SctpSender::new(c, false);
    s.start(now);
    s.poll_transmit(now);
    s.on_chunk(now, &init_ack(1));
    s.poll_transmit(now);
    s.on_chunk(now, &SctpChunk::CookieAck);
    s
}

/// A sender of configuration `c` past its handshake at 0, the peer
/// granting `granted` streams.
fn established_granting(c: SctpConfig, granted: u16) -> SctpSender {
    let mut s = SctpSender::new(c, false);
    s.start(0);
    s.poll_transmit(0);
    s.on_chunk(0, &init_ack(granted));
    s.poll_transmit(0);
    s.on_chunk(0, &SctpChunk::CookieAck);
    s
}

/// The packets a sender sends now: each one's TSNs.
fn packets(s: &mut SctpSender, now: SimTime) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    while let Some(c) = s.poll_transmit(now) {
        match c {
            SctpChunk::Data(chunks) => out.push(chunks.iter().map(|d| d.tsn).collect()),
            other => panic!("unexpected {other:?}"),
        }
    }
    out
}

#[test]
fn waiting_messages_are_bundled_up_to_the_mtu() {
    let c = SctpConfig {
        chunk_bytes: 200,
        ..cfg()
    };
    let mut s = established_with(c.clone(), 0);
    // 15 messages of 200 bytes wait: 6 chunks of 216 bytes fit in 1,468
    // (1,500 less IP's 20 and the common header's 12), so 6, 6 and 3, as
    // ns-2.35 sent them (its trace: 1,328-byte packets of 6 chunks).
    s.write(15);
    let sent = packets(&mut s, 0);
    assert_eq!(
        sent,
        vec![
            (0..6).collect::<Vec<_>>(),
            (6..12).collect(),
            (12..15).collect()
        ]
    );
    let six = SctpChunk::Data((0..6).map(|tsn| SctpData::new(tsn, 200)).collect());
    assert_eq!(20 + six.wire_len(), 1328);
    // Without bundling, one chunk a packet; Max.Burst (4) then stops the
    // sending opportunity after 4 packets.
    let mut one = established_with(
        SctpConfig {
            bundling: false,
            ..c
        },
        0,
    );
    one.write(15);
    assert_eq!(packets(&mut one, 0).len(), 4);
}

#[test]
fn a_bundle_stops_at_cwnd_and_the_burst_counts_packets() {
    // 700-byte messages: two fit in a packet (2 × 716 + 32 = 1,464). cwnd
    // starts at 4,380 bytes: the chunk that reaches it is the last.
    let c = SctpConfig {
        chunk_bytes: 700,
        ..cfg()
    };
    let mut s = established_with(c, 0);
    s.write(20);
    let sent = packets(&mut s, 0);
    // 7 chunks (4,900 bytes: the seventh leaves while 4,200 < 4,380), in
    // 4 packets, within Max.Burst.
    assert_eq!(sent, vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6]]);
}

#[test]
fn a_receiver_takes_every_chunk_of_a_bundle_and_counts_the_packet_once() {
    let mut r = SctpReceiver::new(cfg());
    let bundle = |tsns: std::ops::Range<u64>| {
        SctpChunk::Data(tsns.map(|tsn| SctpData::new(tsn, 200)).collect())
    };
    r.on_chunk(0, &bundle(0..6));
    assert_eq!(r.take_delivered(), 1200);
    // One packet: the SACK waits (delayed, every second packet).
    assert_eq!(r.poll_transmit(0), None);
    assert_eq!(r.poll_timeout(), Some(200 * MS));
    r.on_chunk(MS, &bundle(6..12));
    match r.poll_transmit(MS) {
        Some(SctpChunk::Sack(s)) => assert_eq!((s.cum_next, s.gaps.len()), (12, 0)),
        other => panic!("{other:?}"),
    }
    // A bundle with a gap before it and one chunk seen already: the new
    // ones are held, the old one reported as a duplicate, at once.
    r.on_chunk(2 * MS, &bundle(11..13));
    r.on_chunk(2 * MS, &bundle(14..16));
    match r.poll_transmit(2 * MS) {
        Some(SctpChunk::Sack(s)) => {
            assert_eq!(s.cum_next, 13);
            assert_eq!(s.gaps, vec![(14, 15)]);
            assert_eq!(s.dups, vec![11]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn under_ns2s_byte_rule_a_chunk_weighs_its_header_too_and_cwnd_grows_by_1468() {
    let c = SctpConfig {
        chunk_bytes: 200,
        byte_rule: ByteRule::Ns2,
        ..cfg()
    };
    let mut s = established_with(c, 0);
    s.write(40);
    // 4,380 bytes of cwnd hold 21 chunks of 216 (the 21st leaves at 4,320).
    let sent: usize = packets(&mut s, 0).iter().map(Vec::len).sum();
    assert_eq!(sent, 21);
    assert_eq!(s.metrics().flight_bytes, 21 * 216);
    // A SACK of the first 12 (2,592 bytes counted) while cwnd was full:
    // cwnd grows by at most 1,468, ns-2.35's MTU less IP and common
    // headers, where RFC 4960's rule would allow 1,500.
    s.on_chunk(100 * MS, &sack(12, &[]));
    assert_eq!(s.metrics().cwnd_bytes, 4380 + 1468);
    assert_eq!(s.metrics().flight_bytes, 9 * 216);
}

fn ns2_sends(chunk_bytes: u32) -> SctpConfig {
    SctpConfig {
        chunk_bytes,
        max_burst_rule: MaxBurstRule::Ns2,
        byte_rule: ByteRule::Ns2,
        send_rule: SendRule::Ns2,
        ..cfg()
    }
}

/// A sender under ns-2.35's rules that the application handed `before`
/// messages before the handshake ended; returns it with the packets sent
/// at the COOKIE ACK.
fn ns2_sender(chunk_bytes: u32, before: u64) -> (SctpSender, Vec<Vec<u64>>) {
    let mut s = SctpSender::new(ns2_sends(chunk_bytes), false);
    s.write(before);
    s.start(0);
    assert_eq!(s.poll_transmit(0), Some(init(1)));
    s.on_chunk(0, &init_ack(1));
    assert_eq!(s.poll_transmit(0), Some(cookie_echo()));
    s.on_chunk(0, &SctpChunk::CookieAck);
    let sent = packets(&mut s, 0);
    (s, sent)
}

#[test]
fn under_ns2_sends_new_data_leaves_only_while_a_sack_is_handled() {
    // Messages handed over during the handshake leave at the COOKIE ACK.
    let (mut s, sent) = ns2_sender(200, 3);
    assert_eq!(sent, vec![vec![0, 1, 2]]);
    // Handed over with data outstanding, they wait for the next SACK, which
    // lets them out bundled.
    s.write(5);
    assert!(packets(&mut s, MS).is_empty());
    s.on_chunk(50 * MS, &sack(2, &[]));
    assert_eq!(packets(&mut s, 50 * MS), vec![vec![3, 4, 5, 6, 7]]);
    // The window closes with the SACK: a message handed over later waits.
    s.write(1);
    assert!(packets(&mut s, 51 * MS).is_empty());
    assert_eq!(s.waiting(), 1);
    // Once everything is acknowledged no SACK comes: the message waits for
    // good, with no timer that could release it (ns-2.35's agent stalls so
    // under an application slower than its round trip).
    s.on_chunk(100 * MS, &sack(8, &[]));
    assert_eq!(packets(&mut s, 100 * MS), vec![vec![8]]);
    s.on_chunk(150 * MS, &sack(9, &[]));
    assert!(packets(&mut s, 150 * MS).is_empty());
    s.write(1);
    assert!(packets(&mut s, 200 * MS).is_empty());
    // Only cwnd's idle decay is timed, and it releases nothing.
    let decay = s.poll_timeout().expect("cwnd's decay");
    s.on_timeout(decay);
    assert!(packets(&mut s, decay).is_empty());
    assert_eq!(s.poll_timeout(), None);
    assert_eq!((s.waiting(), s.metrics().flight_bytes), (1, 0));
    // Under RFC 4960's rule the same message leaves at once.
    let mut r = established_with(
        SctpConfig {
            chunk_bytes: 200,
            ..cfg()
        },
        0,
    );
    r.write(1);
    assert_eq!(packets(&mut r, 0), vec![vec![0]]);
}

#[test]
fn under_ns2_sends_cwnd_is_checked_once_per_packet() {
    // 200-byte chunks weigh 216 under ns-2.35's byte rule; six fill a
    // packet (1,296 of 1,468 bytes). A packet starts while the outstanding
    // bytes are under cwnd (4,380): 0, 1,296, 2,592 and 3,888, so four
    // full packets (5,184 bytes) leave.
    let (s, sent) = ns2_sender(200, 100);
    assert_eq!(sent.len(), 4);
    assert!(sent.iter().all(|p| p.len() == 6), "{sent:?}");
    assert_eq!(s.metrics().flight_bytes, 24 * 216);
    // RFC 4960's rule checks each chunk: the one that reaches cwnd is the
    // last (21 chunks: 20 × 216 = 4,320 < 4,380).
    let mut r = SctpSender::new(
        SctpConfig {
            send_rule: SendRule::Rfc,
            ..ns2_sends(200)
        },
        false,
    );
    r.write(100);
    r.start(0);
    r.poll_transmit(0);
    r.on_chunk(0, &init_ack(1));
    r.poll_transmit(0);
    r.on_chunk(0, &SctpChunk::CookieAck);
    let n: usize = packets(&mut r, 0).iter().map(Vec::len).sum();
    assert_eq!(n, 21);
}

#[test]
fn under_ns2_sends_a_timeout_keeps_marked_chunks_outstanding_and_resends_one_packet() {
    let (mut s, sent) = ns2_sender(200, 100);
    assert_eq!(sent.len(), 4); // TSNs 0..24, 5,184 bytes
    let rto = s.poll_timeout().expect("T3 runs");
    s.on_timeout(rto);
    let m = s.metrics();
    // cwnd one MTU less IP and common headers; the marked chunks still
    // count as outstanding, as ns-2.35's `out` shows them.
    assert_eq!((m.cwnd_bytes, m.ssthresh_bytes), (1468, 4 * 1468));
    assert_eq!(m.flight_bytes, 24 * 216);
    // One packet of the earliest marked chunks leaves at the expiry.
    assert_eq!(packets(&mut s, rto), vec![(0..6).collect::<Vec<_>>()]);
    assert_eq!(s.metrics().flight_bytes, 24 * 216);
    // The SACK of that packet (cum ack 6) grows cwnd by its 1,296 bytes to
    // 2,764 (slow start, the flight full). Marked chunks leave in packets
    // while the outstanding bytes other than marked ones are under it: 0,
    // 1,296, 2,592, so all three packets; no new data while any waited.
    s.on_chunk(rto + 50 * MS, &sack(6, &[]));
    assert_eq!(s.metrics().cwnd_bytes, 1468 + 1296);
    assert_eq!(
        packets(&mut s, rto + 50 * MS),
        vec![
            (6..12).collect::<Vec<_>>(),
            (12..18).collect(),
            (18..24).collect()
        ]
    );
    assert_eq!(s.metrics().retransmissions, 24);
    // Every chunk resent and acknowledged: cwnd grows to 4,232 and new data
    // leaves, packets starting at 0, 1,296, 2,592 and 3,888 bytes.
    s.on_chunk(rto + 100 * MS, &sack(24, &[]));
    assert_eq!(s.metrics().cwnd_bytes, 1468 + 1296 + 1468);
    let sent = packets(&mut s, rto + 100 * MS);
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[0], (24..30).collect::<Vec<_>>());
}

#[test]
fn under_ns2_sends_a_fast_retransmit_sends_one_bundled_packet() {
    let (mut s, _) = ns2_sender(200, 100); // TSNs 0..24 outstanding
                                           // TSNs 0 and 1 lost; three SACKs report 2..=4, 2..=5, 2..=6.
    for (k, hi) in [4u64, 5, 6].into_iter().enumerate() {
        s.on_chunk((10 + k as u64) * MS, &sack(0, &[(2, hi)]));
    }
    let m = s.metrics();
    assert_eq!(m.fast_retransmits, 1);
    // cwnd halves to its floor, 4 × 1,468. Both marked chunks leave
    // together, once (they stayed outstanding); with none marked, new data
    // follows while the 19 chunks outstanding (4,104 bytes) and what
    // leaves stay under cwnd, a packet at a time.
    assert_eq!(s.metrics().cwnd_bytes, 4 * 1468);
    assert_eq!(
        packets(&mut s, 12 * MS),
        vec![vec![0, 1], (24..30).collect(), (30..36).collect()]
    );
    assert_eq!(s.metrics().retransmissions, 2);
    assert_eq!(s.metrics().flight_bytes, (24 - 5 + 12) * 216);
}

#[test]
fn under_ns2_sends_the_receiver_acknowledges_the_first_chunk_at_once() {
    let mut r = SctpReceiver::new(ns2_sends(200));
    r.on_chunk(0, &SctpChunk::data(0, 200));
    assert!(matches!(r.poll_transmit(0), Some(SctpChunk::Sack(_))));
    // The next packet waits for a second one or the delay, as RFC 4960's.
    r.on_chunk(MS, &SctpChunk::data(1, 200));
    assert_eq!(r.poll_transmit(MS), None);
    assert_eq!(r.poll_timeout(), Some(201 * MS));
    let mut rfc = SctpReceiver::new(SctpConfig {
        send_rule: SendRule::Rfc,
        ..ns2_sends(200)
    });
    rfc.on_chunk(0, &SctpChunk::data(0, 200));
    assert_eq!(rfc.poll_transmit(0), None);
}

#[test]
fn under_ns2_sends_every_byte_arrives_in_order_over_a_lossy_link() {
    for bytes in [1000, 200] {
        let c = ns2_sends(bytes);
        let m = run_lossy_link_with(c.clone(), |_| false, |_| false);
        assert_eq!(m.retransmissions, 0);
        let m = run_lossy_link_with(c.clone(), |n| n % 7 == 0, |_| false);
        assert!(m.fast_retransmits > 3 && m.retransmissions > 10, "{m:?}");
        let m = run_lossy_link_with(c, |n| n % 5 == 0 || n % 13 == 0, |n| n % 3 == 0);
        assert!(m.retransmissions > 20, "{m:?}");
    }
}

#[test]
fn a_fast_retransmission_carries_the_earliest_marked_chunks_that_fit() {
    // RFC 4960 §7.2.4 3): 200-byte messages, TSNs 0 and 1 lost; the three
    // SACKs reporting 2..=4, 2..=5 and 2..=6 mark both.
    let mut s = established_with(
        SctpConfig {
            chunk_bytes: 200,
            ..cfg()
        },
        0,
    );
    s.write(21);
    assert_eq!(packets(&mut s, 0).len(), 4); // 0..21, cwnd full
    for (k, hi) in [4u64, 5, 6].into_iter().enumerate() {
        s.on_chunk((10 + k as u64) * MS, &sack(0, &[(2, hi)]));
    }
    let sent = packets(&mut s, 12 * MS);
    assert_eq!(sent[0], vec![0, 1], "{sent:?}");
    assert_eq!(s.metrics().retransmissions, 2);
    // Each was fast-retransmitted once: missing again, neither is marked
    // a second time by miss indications.
    for (k, hi) in [7u64, 8, 9].into_iter().enumerate() {
        s.on_chunk((20 + k as u64) * MS, &sack(0, &[(2, hi)]));
    }
    assert_eq!(s.metrics().fast_retransmits, 1);
}

#[test]
fn under_ns2_sends_a_stale_sack_lets_new_data_out_too() {
    let (mut s, _) = ns2_sender(200, 3); // TSNs 0..3 out
    s.on_chunk(50 * MS, &sack(2, &[]));
    assert!(packets(&mut s, 50 * MS).is_empty());
    s.write(2);
    // A SACK older than the cumulative ack point changes nothing else, but
    // ns-2.35's agent handles it as a SACK: what waits leaves.
    s.on_chunk(60 * MS, &sack(1, &[]));
    assert_eq!(packets(&mut s, 60 * MS), vec![vec![3, 4]]);
}

fn streams(n: u16) -> SctpConfig {
    SctpConfig {
        streams: n,
        ..cfg()
    }
}

/// The streams and stream sequence numbers of the chunks sent now.
fn stream_ids(s: &mut SctpSender, now: SimTime) -> Vec<(u64, u16, u64)> {
    let mut out = Vec::new();
    while let Some(c) = s.poll_transmit(now) {
        let SctpChunk::Data(chunks) = c else {
            panic!("unexpected {c:?}");
        };
        out.extend(chunks.iter().map(|d| (d.tsn, d.stream, d.ssn)));
    }
    out
}

#[test]
fn messages_go_to_the_granted_streams_in_turn_each_with_its_own_sequence() {
    let mut s = SctpSender::new(streams(3), false);
    s.start(0);
    assert_eq!(s.poll_transmit(0), Some(init(3)));
    s.on_chunk(0, &init_ack(3));
    s.poll_transmit(0);
    s.on_chunk(0, &SctpChunk::CookieAck);
    s.write(7);
    assert_eq!(
        stream_ids(&mut s, 0)[..4],
        [(0, 0, 0), (1, 1, 0), (2, 2, 0), (3, 0, 1)]
    );
    // A peer that grants fewer streams than asked for gets no more.
    let mut s = established_granting(streams(3), 2);
    s.write(4);
    assert_eq!(
        stream_ids(&mut s, 0),
        [(0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1)]
    );
    // The receiver grants what it is asked for.
    let mut r = SctpReceiver::new(cfg());
    r.on_chunk(0, &init(5));
    assert_eq!(r.poll_transmit(0), Some(init_ack(5)));
}

fn chunk(tsn: u64, stream: u16, ssn: u64, first_sent_at: SimTime) -> SctpChunk {
    SctpChunk::Data(vec![SctpData {
        stream,
        ssn,
        first_sent_at,
        ..SctpData::new(tsn, 1000)
    }])
}

#[test]
fn a_lost_chunk_holds_back_only_its_own_stream() {
    let mut r = SctpReceiver::new(streams(2));
    // TSN 0 (stream 0, SSN 0) is lost; the rest arrive at 10 ms.
    r.on_chunk(10 * MS, &chunk(1, 1, 0, MS));
    r.on_chunk(10 * MS, &chunk(2, 0, 1, 2 * MS));
    r.on_chunk(10 * MS, &chunk(3, 1, 1, 3 * MS));
    assert_eq!(r.take_delivered(), 2000, "stream 1's two messages");
    assert_eq!(r.delivered_messages(), 2);
    let sack = r.sack();
    assert_eq!((sack.cum_next, sack.gaps), (0, vec![(1, 3)]));
    assert_eq!(sack.a_rwnd, 65_536 - 1000, "stream 0's SSN 1 waits");
    // The retransmission (first sent at 0) arrives at 50 ms and lets SSN 1
    // out behind it.
    r.on_chunk(50 * MS, &chunk(0, 0, 0, 0));
    assert_eq!(r.take_delivered(), 2000);
    assert_eq!(r.sack().a_rwnd, 65_536);
    // Delays from first sending: 9, 7, 50 and 48 ms.
    assert_eq!(
        r.mean_delivery_delay(),
        Some((9 + 7 + 50 + 48) as f64 / 4.0 * 1e6)
    );
    // On one stream the same losses hold everything back.
    let mut r = SctpReceiver::new(cfg());
    for tsn in 1..4 {
        r.on_chunk(10 * MS, &chunk(tsn, 0, tsn, tsn * MS));
    }
    assert_eq!(r.take_delivered(), 0);
    r.on_chunk(50 * MS, &chunk(0, 0, 0, 0));
    assert_eq!(r.take_delivered(), 4000);
    assert_eq!(
        r.mean_delivery_delay(),
        Some((50 + 49 + 48 + 47) as f64 / 4.0 * 1e6)
    );
}

#[test]
fn unordered_messages_are_handed_over_on_arrival() {
    let c = SctpConfig {
        unordered: true,
        ..cfg()
    };
    let mut s = established_with(c.clone(), 0);
    s.write(3);
    let sent = stream_ids(&mut s, 0);
    assert_eq!(sent, [(0, 0, 0), (1, 0, 0), (2, 0, 0)], "no SSN");
    let mut r = SctpReceiver::new(c);
    let late = SctpChunk::Data(vec![SctpData {
        unordered: true,
        ssn: 0,
        ..SctpData::new(2, 1000)
    }]);
    r.on_chunk(MS, &late);
    assert_eq!(r.take_delivered(), 1000);
    assert_eq!(r.sack().gaps, [(2, 2)], "still a gap to acknowledge");
}

#[test]
fn streams_deliver_every_byte_and_sooner_over_a_lossy_link() {
    let loss = |n: u64| n.is_multiple_of(7);
    let (_, one) = run_lossy_link_receiver(cfg(), loss, |_| false);
    let (_, four) = run_lossy_link_receiver(streams(4), loss, |_| false);
    let unordered = SctpConfig {
        unordered: true,
        ..cfg()
    };
    let (_, any) = run_lossy_link_receiver(unordered, loss, |_| false);
    let (one, four, any) = (
        one.mean_delivery_delay().unwrap(),
        four.mean_delivery_delay().unwrap(),
        any.mean_delivery_delay().unwrap(),
    );
    assert!(four < one && any < four, "{one} {four} {any}");
    // Both ways lossy, the retransmissions lost too.
    run_lossy_link_with(streams(3), |n| n % 5 == 0 || n % 13 == 0, |n| n % 3 == 0);
}

/// A sender under ns-2.35's handshake rule, not started.
fn ns2_opening_sender(bulk: bool) -> SctpSender {
    SctpSender::new(
        SctpConfig {
            handshake_rule: HandshakeRule::Ns2,
            ..cfg()
        },
        bulk,
    )
}

/// A sender under ns-2.35's handshake rule, through INIT, INIT ACK,
/// COOKIE ECHO and COOKIE ACK (at `now`), with its HEARTBEAT sent.
fn ns2_handshake(bulk: bool, now: SimTime) -> SctpSender {
    let ns2 = HandshakeRule::Ns2;
    let mut s = ns2_opening_sender(bulk);
    s.start(0);
    let init = s.poll_transmit(0).unwrap();
    assert_eq!(
        init,
        SctpChunk::Init {
            streams: 1,
            rule: ns2
        }
    );
    let mut r = SctpReceiver::new(cfg());
    r.on_chunk(0, &init);
    let init_ack = r.poll_transmit(0).unwrap();
    assert_eq!(
        init_ack,
        SctpChunk::InitAck {
            streams: 1,
            rule: ns2
        }
    );
    s.on_chunk(0, &init_ack);
    assert_eq!(
        s.poll_transmit(0),
        Some(SctpChunk::CookieEcho { rule: ns2 })
    );
    s.on_chunk(now, &SctpChunk::CookieAck);
    assert_eq!(s.state(), SctpState::Established);
    assert_eq!(
        s.poll_transmit(now),
        Some(SctpChunk::Heartbeat {
            sent_at: now,
            to_receiver: true
        })
    );
    s
}

#[test]
fn ns2s_handshake_chunks_have_its_sizes() {
    let ns2 = HandshakeRule::Ns2;
    // ns-2.35's trace: 56, 56, 36, 36, 56 and 56 bytes with IP's 20.
    let sizes: Vec<u32> = [
        SctpChunk::Init {
            streams: 1,
            rule: ns2,
        },
        SctpChunk::InitAck {
            streams: 1,
            rule: ns2,
        },
        SctpChunk::CookieEcho { rule: ns2 },
        SctpChunk::CookieAck,
        SctpChunk::Heartbeat {
            sent_at: 0,
            to_receiver: true,
        },
        SctpChunk::HeartbeatAck {
            sent_at: 0,
            to_receiver: false,
        },
    ]
    .iter()
    .map(|c| 20 + c.wire_len())
    .collect();
    assert_eq!(sizes, [56, 56, 36, 36, 56, 56]);
    // RFC 4960's, with manetsim's 32-byte cookie.
    let rfc = HandshakeRule::Rfc;
    assert_eq!(
        SctpChunk::InitAck {
            streams: 1,
            rule: rfc
        }
        .wire_len(),
        68
    );
    assert_eq!(SctpChunk::CookieEcho { rule: rfc }.wire_len(), 48);
    assert!(SctpChunk::Heartbeat {
        sent_at: 0,
        to_receiver: true
    }
    .to_receiver());
    assert!(!SctpChunk::HeartbeatAck {
        sent_at: 0,
        to_receiver: false
    }
    .to_receiver());
}

#[test]
fn under_ns2s_handshake_data_waits_for_the_heartbeat_ack_whose_rtt_sets_the_rto() {
    let t0 = 60 * MS;
    let mut s = ns2_handshake(true, t0);
    assert_eq!(
        s.poll_transmit(t0),
        None,
        "no data before the path is confirmed"
    );
    assert_eq!(s.metrics().srtt, None);
    assert_eq!(
        s.poll_timeout(),
        Some(t0 + 3 * NS_PER_S),
        "the HEARTBEAT's timer"
    );
    // The receiver echoes the send time; 40 ms later the ACK is back.
    let mut r = SctpReceiver::new(cfg());
    r.on_chunk(
        t0 + 20 * MS,
        &SctpChunk::Heartbeat {
            sent_at: t0,
            to_receiver: true,
        },
    );
    let ack = r.poll_transmit(t0 + 20 * MS).unwrap();
    assert_eq!(
        ack,
        SctpChunk::HeartbeatAck {
            sent_at: t0,
            to_receiver: false
        }
    );
    s.on_chunk(t0 + 40 * MS, &ack);
    let m = s.metrics();
    assert_eq!(m.srtt, Some(40 * MS));
    assert_eq!(m.rto, NS_PER_S, "max(RTO.Min, 3 x 40 ms)");
    assert_eq!(m.cwnd_bytes, 4380, "the HEARTBEAT leaves cwnd alone");
    // Data leaves now, as at the COOKIE ACK under RFC 4960's rule.
    assert_eq!(drain(&mut s, t0 + 40 * MS), [0, 1, 2, 3]);
    assert_eq!(
        s.poll_timeout(),
        Some(t0 + 40 * MS + NS_PER_S),
        "T3 at the new RTO"
    );
    // A second ACK (a late answer) is one more RTT sample, nothing else.
    s.on_chunk(t0 + 90 * MS, &ack);
    assert_eq!(s.metrics().srtt, Some((7 * 40 + 90) * MS / 8));
    assert_eq!(s.poll_transmit(t0 + 90 * MS), None);
}

#[test]
fn a_slow_path_s_first_rtt_sets_an_rto_of_three_rtts() {
    let mut s = ns2_handshake(false, 0);
    s.on_chunk(
        500 * MS,
        &SctpChunk::HeartbeatAck {
            sent_at: 0,
            to_receiver: false,
        },
    );
    assert_eq!(s.metrics().rto, 1500 * MS);
    // CBR: nothing waits, nothing leaves.
    assert_eq!(s.poll_transmit(500 * MS), None);
}

#[test]
fn an_unanswered_heartbeat_is_sent_again_with_a_doubling_rto_for_ever() {
    let mut s = ns2_handshake(true, MS);
    let (waits, t) = expiries(&mut s, MS, 12, |t| SctpChunk::Heartbeat {
        sent_at: t,
        to_receiver: true,
    });
    assert_eq!(waits, [3, 6, 12, 24, 48, 60, 60, 60, 60, 60, 60, 60]);
    assert_eq!(s.state(), SctpState::Established, "ns-2.35 never gives up");
    assert_eq!(s.metrics().timeouts, 0, "no T3 expiry");
    assert_eq!(s.metrics().heartbeat_timeouts, 12);
    // The answer to the latest one confirms the path.
    s.on_chunk(
        t + 30 * MS,
        &SctpChunk::HeartbeatAck {
            sent_at: t,
            to_receiver: false,
        },
    );
    assert_eq!(s.metrics().rto, NS_PER_S);
    assert_eq!(drain(&mut s, t + 30 * MS), [0, 1, 2, 3]);
}

#[test]
fn the_heartbeat_runs_at_the_rto_the_t1_expiries_doubled() {
    let ns2 = HandshakeRule::Ns2;
    let mut s = ns2_opening_sender(true);
    s.start(0);
    s.poll_transmit(0);
    // The INIT is lost once: T1 at 3 s, then 6 s.
    s.on_timeout(3 * NS_PER_S);
    assert_eq!(
        s.poll_transmit(3 * NS_PER_S),
        Some(SctpChunk::Init {
            streams: 1,
            rule: ns2
        })
    );
    let t = 3 * NS_PER_S + 50 * MS;
    s.on_chunk(
        t,
        &SctpChunk::InitAck {
            streams: 1,
            rule: ns2,
        },
    );
    s.poll_transmit(t);
    s.on_chunk(t + 50 * MS, &SctpChunk::CookieAck);
    assert_eq!(s.poll_timeout(), Some(t + 50 * MS + 6 * NS_PER_S));
    assert_eq!(s.metrics().rto, 6 * NS_PER_S);
}

#[test]
fn rfc_4960s_handshake_sends_no_heartbeat() {
    let mut s = established(true, 0);
    let sent = drain(&mut s, 0);
    assert_eq!(sent, [0, 1, 2, 3]);
    // A stray HEARTBEAT ACK still gives an RTT sample, and no more.
    s.on_chunk(
        30 * MS,
        &SctpChunk::HeartbeatAck {
            sent_at: 0,
            to_receiver: false,
        },
    );
    assert_eq!(s.metrics().srtt, Some(30 * MS));
}

/// RFC 4960's defaults with §8.3's HEARTBEATs (`HB.interval` 30 s).
fn heartbeating() -> SctpConfig {
    SctpConfig {
        heartbeat_interval: 30 * NS_PER_S,
        ..cfg()
    }
}

fn heartbeat(sent_at: SimTime, to_receiver: bool) -> SctpChunk {
    SctpChunk::Heartbeat {
        sent_at,
        to_receiver,
    }
}

fn heartbeat_ack(sent_at: SimTime, to_receiver: bool) -> SctpChunk {
    SctpChunk::HeartbeatAck {
        sent_at,
        to_receiver,
    }
}

/// Runs a sender's timers up to `until`, answering nothing: the time and
/// chunk of each HEARTBEAT it sends.
fn unanswered(s: &mut SctpSender, until: SimTime) -> Vec<SimTime> {
    let mut sent = Vec::new();
    while let Some(t) = s.poll_timeout().filter(|&t| t <= until) {
        s.on_timeout(t);
        while let Some(c) = s.poll_transmit(t) {
            assert_eq!(c, heartbeat(t, true));
            sent.push(t);
        }
    }
    sent
}

#[test]
fn an_idle_sender_heartbeats_once_a_period_and_the_answer_times_the_path() {
    let t0 = 5 * NS_PER_S;
    let mut s = established_with(heartbeating(), t0);
    // The first period: RTO (the initial 3 s) + 30 s, give or take 1.5 s.
    let end = s.poll_timeout().unwrap();
    assert!((t0 + 31_500 * MS..t0 + 34_500 * MS).contains(&end), "{end}");
    assert_eq!(s.poll_transmit(end - 1), None);
    s.on_timeout(end);
    assert_eq!(s.poll_transmit(end), Some(heartbeat(end, true)));
    assert_eq!(s.metrics().heartbeats_sent, 1);
    // Answered 80 ms later: the first RTT sample, RTO = max(1 s, 3 x 80 ms).
    s.on_chunk(end + 80 * MS, &heartbeat_ack(end, false));
    let m = s.metrics();
    assert_eq!((m.srtt, m.rto), (Some(80 * MS), NS_PER_S));
    // Nothing is due until the next period ends. It started with the
    // HEARTBEAT, at the RTO of then (3 s); the one after it runs at 1 s.
    let next = s.poll_timeout().unwrap();
    assert!(
        (end + 31_500 * MS..end + 34_500 * MS).contains(&next),
        "{next}"
    );
    s.on_timeout(next);
    assert_eq!(s.poll_transmit(next), Some(heartbeat(next, true)));
    s.on_chunk(next + 80 * MS, &heartbeat_ack(next, false));
    let after = s.poll_timeout().unwrap();
    assert!(
        (next + 30_500 * MS..next + 31_500 * MS).contains(&after),
        "{after}"
    );
    assert_eq!(s.metrics().heartbeats_unanswered, 0);
}

#[test]
fn the_jitter_spreads_periods_over_an_rto_around_rto_plus_the_interval() {
    let mut s = established_with(heartbeating(), 0);
    let mut at = 0;
    let mut periods = Vec::new();
    for _ in 0..200 {
        let end = s.poll_timeout().unwrap();
        periods.push(end - at);
        at = end;
        s.on_timeout(end);
        s.poll_transmit(end);
        s.on_chunk(end + 10 * MS, &heartbeat_ack(end, false));
    }
    // From the third on (the first two started before an answer), RTO is
    // 1 s: each period in [30.5, 31.5) s.
    let secs: Vec<f64> = periods[2..].iter().map(|&p| p as f64 / 1e9).collect();
    assert!(secs.iter().all(|p| (30.5..31.5).contains(p)), "{secs:?}");
    let mean = secs.iter().sum::<f64>() / secs.len() as f64;
    assert!((mean - 31.0).abs() < 0.06, "{mean}");
    let (lo, hi) = secs
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    assert!(lo < 30.6 && hi > 31.4, "{lo} {hi}");
}

#[test]
fn a_sender_with_new_data_in_every_period_sends_no_heartbeat() {
    let mut s = established_with(heartbeating(), 0);
    // One message every 20 s, each acknowledged 50 ms later.
    for k in 0..30u64 {
        let t = k * 20 * NS_PER_S;
        while let Some(due) = s.poll_timeout().filter(|&d| d <= t) {
            s.on_timeout(due);
            assert_eq!(s.poll_transmit(due), None, "at {due}");
        }
        s.write(1);
        assert_eq!(drain(&mut s, t), [k]);
        s.on_chunk(t + 50 * MS, &sack(k + 1, &[]));
    }
    assert_eq!(s.metrics().heartbeats_sent, 0);
    // Idle from then on: a HEARTBEAT within two periods.
    let last = 29 * 20 * NS_PER_S;
    assert_eq!(unanswered(&mut s, last + 63 * NS_PER_S).len(), 1);
}

#[test]
fn unanswered_heartbeats_back_off_and_the_eleventh_fails_the_association() {
    let mut s = established_with(heartbeating(), 0);
    let sent = unanswered(&mut s, 3_000 * NS_PER_S);
    // Each went unanswered an RTO later: an error, and the RTO doubles
    // (3, 6, ..., 60 s); the next period is RTO + 30 s +- RTO/2 after it.
    assert_eq!(sent.len(), 11, "{sent:?}");
    assert_eq!(s.state(), SctpState::Failed);
    let m = s.metrics();
    assert_eq!((m.heartbeats_sent, m.heartbeats_unanswered), (11, 11));
    assert_eq!(m.timeouts, 0);
    let rto_s = [3, 6, 12, 24, 48, 60, 60, 60, 60, 60];
    for (k, w) in sent.windows(2).enumerate() {
        let (gap, rto) = (w[1] - w[0], rto_s[k] * NS_PER_S);
        // The period started at the HEARTBEAT, with the RTO doubled an
        // RTO (the one before doubling) later.
        let doubled = (2 * rto).min(60 * NS_PER_S);
        let lo = 30 * NS_PER_S + doubled / 2;
        assert!((lo..lo + doubled).contains(&gap), "{k}: {gap}");
    }
    assert_eq!(s.poll_timeout(), None, "a failed association times nothing");
}

#[test]
fn t3_expiries_and_unanswered_heartbeats_count_together_and_an_answer_clears_them() {
    let mut s = established_with(heartbeating(), 0);
    s.write(1);
    assert_eq!(drain(&mut s, 0), [0]);
    // The chunk and its retransmissions are lost: T3 at 3, 9, 21, 45 and
    // 93 s (RTO 3 s doubling). Retransmissions time no round trip, so the
    // second period is idle and ends with a HEARTBEAT, which goes
    // unanswered too: both count.
    let errors = |m: &SctpMetrics| m.timeouts + m.heartbeats_unanswered;
    while s.metrics().heartbeats_unanswered == 0 {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    let m = s.metrics();
    assert!(m.timeouts >= 4 && errors(&m) <= 8, "{m:?}");
    assert_eq!(s.state(), SctpState::Established);
    // The next HEARTBEAT is answered: the count starts again.
    let sent = loop {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        let mut hb = None;
        while let Some(c) = s.poll_transmit(t) {
            if let SctpChunk::Heartbeat { sent_at, .. } = c {
                hb = Some(sent_at);
            }
        }
        if let Some(h) = hb {
            break h;
        }
    };
    s.on_chunk(sent + 40 * MS, &heartbeat_ack(sent, false));
    assert_eq!(s.metrics().rto, NS_PER_S);
    // Ten more errors are allowed before the eleventh fails it.
    let before = s.metrics();
    while s.state() == SctpState::Established {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    assert_eq!(errors(&s.metrics()) - errors(&before), 11);
}

#[test]
fn the_sender_answers_the_receivers_heartbeat_from_cookie_echoed_on() {
    let mut s = SctpSender::new(heartbeating(), true);
    s.start(0);
    s.poll_transmit(0);
    // Before the INIT ACK, a HEARTBEAT has no association to answer for.
    s.on_chunk(MS, &heartbeat(0, false));
    assert_eq!(s.poll_transmit(MS), None);
    s.on_chunk(2 * MS, &init_ack(1));
    assert_eq!(s.poll_transmit(2 * MS), Some(cookie_echo()));
    s.on_chunk(3 * MS, &heartbeat(MS, false));
    assert_eq!(s.poll_transmit(3 * MS), Some(heartbeat_ack(MS, true)));
    // A HEARTBEAT ACK to the receiver is not one for the sender.
    s.on_chunk(4 * MS, &SctpChunk::CookieAck);
    s.on_chunk(5 * MS, &heartbeat_ack(0, true));
    assert_eq!(s.metrics().srtt, None);
}

/// A receiver past the handshake (COOKIE ECHO at `now`), its answers taken.
fn receiver_established(c: SctpConfig, now: SimTime) -> SctpReceiver {
    let mut r = SctpReceiver::new(c);
    r.on_chunk(now, &init(1));
    r.on_chunk(now, &cookie_echo());
    assert_eq!(r.poll_transmit(now), Some(init_ack(1)));
    assert_eq!(r.poll_transmit(now), Some(SctpChunk::CookieAck));
    r
}

#[test]
fn the_receiver_heartbeats_every_period_since_it_sends_no_data() {
    let mut r = receiver_established(heartbeating(), 0);
    let d = |tsn| SctpChunk::data(tsn, 1000);
    // Data arriving does not make the receiver's own path busy.
    let mut sent = Vec::new();
    let mut tsn = 0;
    let mut t = 0;
    while sent.len() < 4 {
        let due = r.poll_timeout().unwrap();
        if due > t + NS_PER_S {
            t += NS_PER_S;
            r.on_chunk(t, &d(tsn));
            tsn += 1;
            while r.poll_transmit(t).is_some() {}
            continue;
        }
        t = due;
        r.on_timeout(t);
        while let Some(c) = r.poll_transmit(t) {
            if c == heartbeat(t, false) {
                sent.push(t);
                r.on_chunk(t + 20 * MS, &heartbeat_ack(t, true));
            }
        }
    }
    assert!((31_500 * MS..34_500 * MS).contains(&sent[0]), "{sent:?}");
    assert!(
        (31_500 * MS..34_500 * MS).contains(&(sent[1] - sent[0])),
        "{sent:?}"
    );
    for w in sent[1..].windows(2) {
        // RTO 1 s after the first answer (RTT 20 ms).
        assert!(
            (30_500 * MS..31_500 * MS).contains(&(w[1] - w[0])),
            "{sent:?}"
        );
    }
    assert_eq!(r.rto(), NS_PER_S);
    assert_eq!(r.heartbeats(), (4, 0));
    assert!(tsn > 100);
}

#[test]
fn a_receiver_whose_heartbeats_go_unanswered_gives_up_and_answers_nothing() {
    let mut r = receiver_established(heartbeating(), 0);
    while !r.failed() {
        let t = r.poll_timeout().expect("a HEARTBEAT timer");
        r.on_timeout(t);
        while r.poll_transmit(t).is_some() {}
    }
    assert_eq!(r.heartbeats(), (11, 11));
    assert_eq!(r.poll_timeout(), None);
    r.on_chunk(0, &SctpChunk::data(0, 1000));
    r.on_chunk(0, &heartbeat(0, true));
    assert_eq!(r.poll_transmit(0), None);
    assert_eq!(r.take_delivered(), 0);
}

#[test]
fn a_receiver_stops_heartbeating_when_told() {
    let mut r = receiver_established(heartbeating(), 0);
    assert!(r.poll_timeout().is_some());
    r.stop_heartbeats();
    assert_eq!(r.poll_timeout(), None);
    // It still answers the sender's.
    r.on_chunk(MS, &heartbeat(0, true));
    assert_eq!(r.poll_transmit(MS), Some(heartbeat_ack(0, false)));
}

#[test]
fn an_interval_of_zero_sends_no_heartbeats() {
    let s = established_with(cfg(), 0);
    assert_eq!(s.poll_timeout(), None);
    let r = receiver_established(cfg(), 0);
    assert_eq!(r.poll_timeout(), None);
}

fn ns2_faults(c: SctpConfig) -> SctpConfig {
    SctpConfig {
        fault_rule: FaultRule::Ns2,
        ..c
    }
}

#[test]
fn errors_under_ns2s_rule_make_the_address_inactive_at_the_sixth_and_never_fail() {
    let rfc = cfg();
    let mut e = Errors::default();
    let verdicts: Vec<_> = (0..11).map(|_| e.count(&rfc)).collect();
    assert!(verdicts[..10].iter().all(|v| *v == ErrorVerdict::Counted));
    assert_eq!(verdicts[10], ErrorVerdict::Failed);

    let ns2 = ns2_faults(cfg());
    let mut e = Errors::default();
    let verdicts: Vec<_> = (0..100).map(|_| e.count(&ns2)).collect();
    // Path.Max.Retrans 5: the sixth error in a row makes the address
    // inactive; the association's count stops there, at 6 of 10.
    assert_eq!(verdicts[5], ErrorVerdict::PathInactive);
    assert!(verdicts
        .iter()
        .enumerate()
        .all(|(k, v)| k == 5 || *v == ErrorVerdict::Counted));
    assert_eq!(
        (e.assoc, e.path, e.inactive, e.inactivations),
        (6, 100, true, 1)
    );
    // A SACK for chunks that all wait for their retransmission after a T3
    // expiry clears only the association's count.
    e.on_new_ack(false);
    assert_eq!((e.assoc, e.path, e.inactive), (0, 100, true));
    assert_eq!(e.count(&ns2), ErrorVerdict::Counted);
    assert_eq!(
        e.assoc, 0,
        "an inactive address's errors are not the association's"
    );
    // One for a chunk sent since (or never marked) makes it active again.
    e.on_new_ack(true);
    assert_eq!((e.assoc, e.path, e.inactive), (0, 0, false));
    for _ in 0..5 {
        e.count(&ns2);
    }
    e.clear();
    assert_eq!(
        (e.assoc, e.path, e.inactive, e.inactivations),
        (0, 0, false, 1)
    );
}

#[test]
fn ns2s_fault_rule_sends_an_unanswered_heartbeat_again_at_once_and_never_fails() {
    let mut s = established_with(ns2_faults(heartbeating()), 0);
    let sent = unanswered(&mut s, 3_000 * NS_PER_S);
    // The first at the end of the first idle period, then each again an
    // RTO later, the RTO doubling from 3 s to its 60 s ceiling.
    assert!((31_500 * MS..34_500 * MS).contains(&sent[0]), "{sent:?}");
    for (k, w) in sent.windows(2).enumerate() {
        let rto = ((3 * NS_PER_S) << k.min(5)).min(60 * NS_PER_S);
        assert_eq!(w[1] - w[0], rto, "{k}: {sent:?}");
    }
    assert!(sent.len() > 45, "{}", sent.len());
    assert_eq!(s.state(), SctpState::Established);
    assert!(s.path_inactive());
    let m = s.metrics();
    assert_eq!(
        (m.heartbeats_sent, m.path_inactivations),
        (sent.len() as u64, 1)
    );
    // An answer makes the address active again.
    let last = *sent.last().unwrap();
    s.on_chunk(last + 40 * MS, &heartbeat_ack(last, false));
    assert!(!s.path_inactive());
    assert_eq!(s.metrics().rto, NS_PER_S);
}

#[test]
fn ns2s_fault_rule_heartbeats_when_a_t3_expiry_makes_the_address_inactive() {
    // A period of over 1,000 s: no idle period ends in this test.
    let c = ns2_faults(SctpConfig {
        heartbeat_interval: 1_000 * NS_PER_S,
        ..cfg()
    });
    let mut s = established_with(c, 0);
    s.write(3);
    assert_eq!(drain(&mut s, 0), [0, 1, 2]);
    let mut expiries = Vec::new();
    let mut heartbeats = Vec::new();
    while s.metrics().timeouts < 8 {
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        expiries.push(t / NS_PER_S);
        while let Some(c) = s.poll_transmit(t) {
            if let SctpChunk::Heartbeat { sent_at, .. } = c {
                heartbeats.push(sent_at / NS_PER_S);
            }
        }
    }
    // T3 at 3, 9, 21, 45, 93 and 153 s: the sixth makes the address
    // inactive, and a HEARTBEAT leaves with the retransmission; unanswered
    // an RTO (60 s) later, it goes again with the seventh expiry's.
    assert_eq!(expiries[..6], [3, 9, 21, 45, 93, 153]);
    assert_eq!(heartbeats[..2], [153, 213]);
    assert!(s.path_inactive());
    // After the last expiry chunks 0 and 1 went again (one may overrun the
    // cwnd of 1 MTU) and chunk 2 waits: acknowledging it alone leaves the
    // address inactive, chunks 0 and 1 make it active.
    let t = 300 * NS_PER_S;
    s.on_chunk(t, &sack(0, &[(2, 2)]));
    assert!(s.path_inactive());
    s.on_chunk(t, &sack(3, &[]));
    assert!(!s.path_inactive());
    assert_eq!(s.state(), SctpState::Established);
}

#[test]
fn under_the_rfc_rule_the_same_losses_fail_the_association() {
    let c = SctpConfig {
        heartbeat_interval: 1_000 * NS_PER_S,
        ..cfg()
    };
    let mut s = established_with(c, 0);
    s.write(1);
    drain(&mut s, 0);
    while let Some(t) = s.poll_timeout() {
        s.on_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    assert_eq!(s.state(), SctpState::Failed);
    assert_eq!(s.metrics().timeouts, 11);
    assert!(!s.path_inactive());
}

#[test]
fn a_receiver_under_ns2s_fault_rule_keeps_heartbeating_and_never_gives_up() {
    let mut r = receiver_established(ns2_faults(heartbeating()), 0);
    let mut sent = Vec::new();
    while let Some(t) = r.poll_timeout().filter(|&t| t <= 2_000 * NS_PER_S) {
        r.on_timeout(t);
        while let Some(c) = r.poll_transmit(t) {
            assert_eq!(c, heartbeat(t, false));
            sent.push(t);
        }
    }
    assert!(!r.failed());
    for (k, w) in sent.windows(2).enumerate() {
        let rto = ((3 * NS_PER_S) << k.min(5)).min(60 * NS_PER_S);
        assert_eq!(w[1] - w[0], rto, "{k}: {sent:?}");
    }
    assert_eq!(r.heartbeats(), (sent.len() as u64, sent.len() as u64 - 1));
    // It still answers the sender's, and takes data.
    r.on_chunk(MS, &heartbeat(0, true));
    assert_eq!(r.poll_transmit(MS), Some(heartbeat_ack(0, false)));
}

#[test]
fn a_sack_older_than_the_last_takes_back_the_gap_acks_it_lacks() {
    let mut s = established(true, 0);
    let sent = fill(&mut s, 0);
    assert!(sent.len() >= 5, "{sent:?}");
    let flight = |s: &SctpSender| s.metrics().flight_bytes;
    let all = flight(&s);
    // TSNs 2-4 arrive, 0 and 1 not yet: 3,000 bytes fewer outstanding.
    s.on_chunk(100 * MS, &sack(0, &[(2, 4)]));
    assert_eq!(flight(&s), all - 3000);
    // A SACK sent before that one, overtaken on the way (a path can
    // reorder them): it knows only of TSN 2, so 3 and 4 count as
    // outstanding again (§6.2.1 D iv), and against its a_rwnd.
    s.on_chunk(110 * MS, &sack(0, &[(2, 2)]));
    assert_eq!(flight(&s), all - 1000);
    // The next SACK acknowledges them again.
    s.on_chunk(120 * MS, &sack(0, &[(2, 4)]));
    assert_eq!(flight(&s), all - 3000);
    // Without gaps, none is taken back but TSNs 0-4 left the flight.
    s.on_chunk(130 * MS, &sack(5, &[]));
    assert_eq!(flight(&s), all - 5000);
}

#[test]
fn the_receivers_window_counts_held_chunks_as_the_byte_rule_weighs_them() {
    for (rule, held) in [(ByteRule::Rfc, 1000), (ByteRule::Ns2, 1016)] {
        let c = SctpConfig {
            byte_rule: rule,
            ..cfg()
        };
        let mut r = receiver_established(c, 0);
        // TSN 1 and 2 arrive before 0: both held for reordering.
        r.on_chunk(MS, &SctpChunk::data(1, 1000));
        r.on_chunk(MS, &SctpChunk::data(2, 1000));
        assert_eq!(r.sack().a_rwnd, 65_536 - 2 * held, "{rule:?}");
        r.on_chunk(2 * MS, &SctpChunk::data(0, 1000));
        assert_eq!(r.sack().a_rwnd, 65_536, "{rule:?}");
    }
}

#[test]
fn chunks_marked_for_retransmission_give_their_size_back_to_the_peers_window() {
    let mut s = established(true, 0);
    let n = fill(&mut s, 0).len() as u32;
    assert_eq!(s.peer_rwnd(), 65_536 - n * 1000);
    // T3 marks every chunk: §6.2.1 C gives their sizes back to the window,
    // and B takes those it sends again (one packet's worth) once more.
    let t3 = s.poll_timeout().unwrap();
    s.on_timeout(t3);
    let again = drain(&mut s, t3).len() as u32;
    assert!(again >= 1 && again < n, "{again} of {n}");
    assert_eq!(s.metrics().flight_bytes, again * 1000);
    assert_eq!(s.peer_rwnd(), 65_536 - again * 1000);
}

/// A receiver under `rule` with ns-2.35's byte rule (chunks of 1,000 user
/// bytes weigh 1,016), holding TSNs 1-64 above the missing TSN 0: 65,024
/// of its 65,536 bytes, too full for another chunk.
fn receiver_full(rule: WindowRule) -> SctpReceiver {
    let c = SctpConfig {
        byte_rule: ByteRule::Ns2,
        window_rule: rule,
        ..cfg()
    };
    let mut r = receiver_established(c, 0);
    for tsn in 1..=64 {
        r.on_chunk(MS, &SctpChunk::data(tsn, 1000));
    }
    while r.poll_transmit(MS).is_some() {}
    assert_eq!(r.sack().a_rwnd, 65_536 - 64 * 1016);
    assert_eq!(r.window_drops(), WindowDrops::default());
    r
}

#[test]
fn under_ns2s_window_rule_a_full_receiver_drops_the_chunk_that_fills_its_gap() {
    let mut r = receiver_full(WindowRule::Ns2);
    // TSN 0 would deliver all 65 chunks, but 1,016 bytes do not fit in the
    // 512 left: ns-2.35's ProcessDataChunk drops it, and a SACK still
    // answers while the gap is open.
    for k in 1..=3 {
        r.on_chunk(2 * k * MS, &SctpChunk::data(0, 1000));
        let Some(SctpChunk::Sack(s)) = r.poll_transmit(2 * k * MS) else {
            panic!("a SACK");
        };
        assert_eq!((s.cum_next, s.gaps, s.dups), (0, vec![(1, 64)], vec![]));
    }
    // A duplicate is dropped too, unreported; a higher TSN as well.
    r.on_chunk(10 * MS, &SctpChunk::data(5, 1000));
    r.on_chunk(10 * MS, &SctpChunk::data(65, 1000));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(10 * MS) else {
        panic!("a SACK");
    };
    assert_eq!((s.cum_next, s.gaps, s.dups), (0, vec![(1, 64)], vec![]));
    assert_eq!(r.take_delivered(), 0, "the association is stuck");
    let w = r.window_drops();
    assert_eq!((w.dropped, w.gap_fillers, w.reneged), (5, 3, 0));
    assert_eq!(w.first_at, Some(2 * MS));
}

#[test]
fn under_rfc_4960_a_full_receiver_drops_the_highest_held_tsn_for_a_lower_one() {
    let mut r = receiver_full(WindowRule::Rfc);
    // A TSN above all held is dropped (§6.2), and a SACK leaves at once.
    r.on_chunk(2 * MS, &SctpChunk::data(65, 1000));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(2 * MS) else {
        panic!("a SACK");
    };
    assert_eq!((s.cum_next, s.gaps), (0, vec![(1, 64)]));
    // TSN 0 takes TSN 64's room: 0-63 are delivered, 64 must come again.
    r.on_chunk(3 * MS, &SctpChunk::data(0, 1000));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(3 * MS) else {
        panic!("a SACK");
    };
    assert_eq!((s.cum_next, s.gaps, s.a_rwnd), (64, vec![], 65_536));
    assert_eq!(r.take_delivered(), 64 * 1000);
    let w = r.window_drops();
    assert_eq!((w.dropped, w.gap_fillers, w.reneged), (1, 0, 1));
    // A duplicate takes no room and is reported as one.
    let mut r = receiver_full(WindowRule::Rfc);
    r.on_chunk(2 * MS, &SctpChunk::data(7, 1000));
    let Some(SctpChunk::Sack(s)) = r.poll_transmit(2 * MS) else {
        panic!("a SACK");
    };
    assert_eq!((s.gaps, s.dups), (vec![(1, 64)], vec![7]));
    assert_eq!(r.window_drops(), WindowDrops::default());
}

#[test]
fn under_ns2s_window_rule_a_late_sack_without_blocks_leaves_gap_acks_standing() {
    for rule in [WindowRule::Rfc, WindowRule::Ns2] {
        let c = SctpConfig {
            window_rule: rule,
            ..cfg()
        };
        let mut s = established_from(c, true, 0);
        let sent = fill(&mut s, 0);
        assert!(sent.len() >= 5, "{sent:?}");
        let all = s.metrics().flight_bytes;
        // TSNs 1-4 arrive, 0 not yet: the receiver holds 4,000 bytes.
        let mut late = SctpSack {
            cum_next: 0,
            a_rwnd: 65_536 - 4000,
            gaps: vec![(1, 4)],
            dups: vec![],
        };
        s.on_chunk(100 * MS, &SctpChunk::Sack(late.clone()));
        assert_eq!(s.metrics().flight_bytes, all - 4000);
        assert_eq!(s.peer_rwnd(), 65_536 - 4000 - (all - 4000));
        // A SACK from before any of them arrived, overtaken on the way:
        // the same cumulative ack, no blocks, the whole window.
        late.gaps.clear();
        late.a_rwnd = 65_536;
        s.on_chunk(110 * MS, &SctpChunk::Sack(late));
        let (flight, window) = (s.metrics().flight_bytes, s.peer_rwnd());
        match rule {
            // §6.2.1 D iv: TSNs 1-4 are outstanding again.
            WindowRule::Rfc => assert_eq!((flight, window), (all, 65_536 - all)),
            // ns-2.35: they stay acknowledged, and the window opens over
            // the 4,000 bytes the receiver still holds.
            WindowRule::Ns2 => assert_eq!((flight, window), (all - 4000, 65_536 - all + 4000)),
        }
    }
}

/// A bulk sender under `miss_rule`, past its handshake, its first flight
/// (TSNs 0-4) out.
fn sender_with_miss_rule(rule: MissRule) -> SctpSender {
    let c = SctpConfig {
        miss_rule: rule,
        ..cfg()
    };
    let mut s = established_from(c, true, 0);
    assert_eq!(fill(&mut s, 0), [0, 1, 2, 3, 4]);
    s
}

#[test]
fn under_ns2s_miss_rule_a_sack_that_acknowledges_nothing_new_still_counts_misses() {
    for rule in [MissRule::Rfc, MissRule::Ns2] {
        let mut s = sender_with_miss_rule(rule);
        // TSNs 0 and 2 missing; the gap block 3..=3 newly acks TSN 3.
        s.on_chunk(MS, &sack(0, &[(1, 1), (3, 3)]));
        // Two repeats newly acknowledge nothing (the receiver answers a
        // duplicate, or an older SACK arrives late).
        s.on_chunk(2 * MS, &sack(0, &[(1, 1), (3, 3)]));
        s.on_chunk(3 * MS, &sack(0, &[(1, 1), (3, 3)]));
        let misses: Vec<u32> = s.out.iter().map(|c| c.misses).collect();
        match rule {
            // §7.2.4's HTNA: only the first SACK counts.
            MissRule::Rfc => {
                assert_eq!(misses, [1, 0, 1, 0, 0]);
                assert_eq!(s.metrics().fast_retransmits, 0);
            }
            // ns-2.35 keeps TSN 3 as the highest newly acknowledged: each
            // repeat counts again, and the third makes TSNs 0 and 2 fast
            // retransmits (their counts start over, ineligible for more).
            MissRule::Ns2 => {
                assert_eq!(misses, [0, 0, 0, 0, 0]);
                assert_eq!(s.metrics().fast_retransmits, 1);
                assert!(s.out[0].fast_retransmitted && s.out[2].fast_retransmitted);
                assert!(s.out[0].marked && s.out[2].marked);
            }
        }
    }
}

#[test]
fn under_ns2s_miss_rule_a_chunk_marked_by_a_t3_expiry_can_become_a_fast_retransmit() {
    for rule in [MissRule::Rfc, MissRule::Ns2] {
        let mut s = sender_with_miss_rule(rule);
        // T3 marks TSNs 0-4; none is sent again yet.
        let t3 = s.poll_timeout().unwrap();
        s.on_timeout(t3);
        assert!(s.out.iter().all(|c| c.marked));
        // Then TSNs 1, 2 and 3 are reported, TSN 0 missing each time.
        for k in 1..=3 {
            s.on_chunk(t3 + k * MS, &sack(0, &[(1, k)]));
        }
        let (m, c0) = (s.metrics(), &s.out[0]);
        match rule {
            // A chunk marked for retransmission counts no miss.
            MissRule::Rfc => assert_eq!((m.fast_retransmits, c0.misses), (0, 0)),
            // ns-2.35 counts its misses too, and the third makes it a fast
            // retransmit (one packet at once, cwnd cut), once.
            MissRule::Ns2 => {
                assert_eq!(m.fast_retransmits, 1);
                assert!(c0.fast_retransmitted && c0.marked);
                assert_eq!(s.kept_recover, Some(4));
            }
        }
    }
}

#[test]
fn under_ns2s_miss_rule_a_cumulative_ack_sets_the_kept_tsn_and_a_t3_keeps_the_recovery_point() {
    let mut s = sender_with_miss_rule(MissRule::Ns2);
    for k in 1..=3 {
        s.on_chunk(k * MS, &sack(0, &[(1, k)]));
    }
    assert_eq!((s.kept_htna, s.kept_recover), (Some(3), Some(4)));
    // TSN 0 arrives: the cumulative ack newly acknowledges it alone (1-3
    // were gap-acknowledged), so the kept TSN falls to 0, as ns-2.35's
    // SendBufferDequeueUpTo sets it.
    s.on_chunk(5 * MS, &sack(1, &[(2, 3)]));
    assert_eq!(s.kept_htna, Some(0));
    // A T3 expiry ends fast recovery; ns-2.35's uiRecover stays.
    let t3 = s.poll_timeout().unwrap();
    s.on_timeout(t3);
    assert_eq!((s.recovery_exit, s.kept_recover), (None, Some(4)));
}

/// The chunks a sender sends now, whole.
fn data_chunks(s: &mut SctpSender, now: SimTime) -> Vec<SctpData> {
    let mut out = Vec::new();
    while let Some(c) = s.poll_transmit(now) {
        let SctpChunk::Data(chunks) = c else {
            panic!("unexpected {c:?}");
        };
        out.extend(chunks);
    }
    out
}

#[test]
fn a_message_larger_than_a_chunk_leaves_in_fragments_of_one_stream_and_ssn() {
    // 3,000 bytes: 1,452 + 1,452 + 96 (§6.9), each fragment its own TSN,
    // B on the first, E on the last; the next message takes the next
    // stream, as an unfragmented one would.
    let c = SctpConfig {
        chunk_bytes: 3000,
        streams: 2,
        ..cfg()
    };
    let mut s = established_granting(c, 2);
    s.write(2);
    let sent = data_chunks(&mut s, MS);
    let got: Vec<_> = sent
        .iter()
        .map(|d| (d.tsn, d.bytes, d.stream, d.ssn, d.begin, d.end))
        .collect();
    assert_eq!(
        got,
        [
            (0, 1452, 0, 0, true, false),
            (1, 1452, 0, 0, false, false),
            (2, 96, 0, 0, false, true),
            (3, 1452, 1, 0, true, false),
        ],
        "cwnd (4,380 bytes) stops the fourth fragment"
    );
    assert_eq!(s.waiting(), 0, "both messages begun");
    assert!(sent.iter().all(|d| d.first_sent_at == MS));
    // A message that fits one chunk has both bits.
    let mut one = established_with(cfg(), 0);
    one.write(1);
    let d = data_chunks(&mut one, 0)[0];
    assert!(d.begin && d.end);
}

/// Fragment `tsn` of a 3,000-byte message on stream 0, SSN `ssn`.
fn fragment(tsn: u64, bytes: u32, ssn: u64, begin: bool, end: bool) -> SctpChunk {
    SctpChunk::Data(vec![SctpData {
        ssn,
        begin,
        end,
        ..SctpData::new(tsn, bytes)
    }])
}

#[test]
fn the_receiver_hands_a_message_over_once_every_fragment_is_in() {
    let mut r = SctpReceiver::new(cfg());
    let window = r.sack().a_rwnd;
    // The last fragment first, then the first: the middle one is missing.
    r.on_chunk(MS, &fragment(2, 96, 0, false, true));
    r.on_chunk(2 * MS, &fragment(0, 1452, 0, true, false));
    assert_eq!(r.take_delivered(), 0);
    assert_eq!(r.delivered_messages(), 0);
    assert_eq!(r.sack().cum_next, 1);
    assert_eq!(r.sack().gaps, [(2, 2)]);
    assert_eq!(r.sack().a_rwnd, window - 1548, "the fragments held weigh");
    // The middle one completes it.
    r.on_chunk(3 * MS, &fragment(1, 1452, 0, false, false));
    assert_eq!(r.take_delivered(), 3000);
    assert_eq!(r.delivered_messages(), 1);
    assert_eq!(r.sack().a_rwnd, window);
    // A whole message of a later SSN, arrived first, waits for it.
    let mut r = SctpReceiver::new(cfg());
    r.on_chunk(MS, &fragment(3, 1452, 1, true, false));
    r.on_chunk(MS, &fragment(4, 100, 1, false, true));
    r.on_chunk(MS, &fragment(0, 1452, 0, true, false));
    r.on_chunk(MS, &fragment(2, 96, 0, false, true));
    assert_eq!(r.delivered_messages(), 0);
    r.on_chunk(2 * MS, &fragment(1, 1452, 0, false, false));
    assert_eq!(r.take_delivered(), 3000 + 1552);
    assert_eq!(r.delivered_messages(), 2);
    assert_eq!(r.sack().a_rwnd, window);
}

/// 4,000-byte messages: three fragments each (1,452 + 1,452 + 1,096).
fn large(c: SctpConfig) -> SctpConfig {
    SctpConfig {
        chunk_bytes: 4000,
        ..c
    }
}

#[test]
fn fragmented_messages_arrive_whole_over_a_lossy_link() {
    // Every byte and message arrives (the harness checks), on one stream,
    // several, unordered, and both ways lossy.
    let loss = |n: u64| n.is_multiple_of(7);
    let (_, one) = run_lossy_link_receiver(large(cfg()), loss, |_| false);
    run_lossy_link_receiver(large(streams(3)), loss, |_| false);
    let unordered = SctpConfig {
        unordered: true,
        ..cfg()
    };
    run_lossy_link_receiver(large(unordered), loss, |_| false);
    run_lossy_link_with(large(streams(2)), |n| n % 5 == 0, |n| n % 3 == 0);
    assert!(one.mean_delivery_delay().is_some());
}

#[test]
fn a_full_receiver_reneges_a_held_fragment_or_the_whole_message_above_a_gap() {
    let small = SctpConfig {
        rwnd_bytes: 3000,
        ..cfg()
    };
    // Message 0's last two fragments (1,548 bytes) and message 1 whole
    // (1,000 bytes, waiting for message 0): 2,548 held. Message 0's first
    // fragment (1,452) does not fit: message 1, the highest TSN held,
    // leaves with all its chunks, and message 0 is whole.
    let mut r = SctpReceiver::new(small.clone());
    r.on_chunk(MS, &fragment(1, 1452, 0, false, false));
    r.on_chunk(MS, &fragment(2, 96, 0, false, true));
    r.on_chunk(MS, &fragment(3, 1000, 1, true, true));
    assert_eq!(r.sack().a_rwnd, 3000 - 2548);
    r.on_chunk(2 * MS, &fragment(0, 1452, 0, true, false));
    assert_eq!(r.take_delivered(), 3000);
    let sack = r.sack();
    assert_eq!((sack.cum_next, sack.gaps, sack.a_rwnd), (3, vec![], 3000));
    assert_eq!(r.window_drops().reneged, 1);
    // It comes again and is handed over.
    r.on_chunk(3 * MS, &fragment(3, 1000, 1, true, true));
    assert_eq!(r.take_delivered(), 1000);
    // A fragment of a message not yet whole is reneged the same way.
    let mut r = SctpReceiver::new(small);
    r.on_chunk(MS, &fragment(1, 1452, 0, false, false));
    r.on_chunk(MS, &fragment(2, 96, 0, false, true));
    r.on_chunk(MS, &fragment(3, 1452, 1, true, false));
    r.on_chunk(2 * MS, &fragment(0, 1452, 0, true, false));
    assert_eq!(r.take_delivered(), 3000);
    let sack = r.sack();
    assert_eq!((sack.cum_next, sack.gaps), (3, vec![]));
    assert_eq!(r.window_drops().reneged, 1);
}

/// What [`run_transfer`] saw: both ends at the end, every chunk put on
/// the link with its time (lost or not), and the bytes delivered.
struct Transfer {
    s: SctpSender,
    r: SctpReceiver,
    sent: Vec<(SimTime, SctpChunk)>,
    delivered: u64,
}

/// A finite transfer of `bytes` over a 20 ms link that loses the chunks
/// `lose(chunk, n)` picks (`n`: how many of that chunk's kind were sent
/// before it), until nothing is left to do.
fn run_transfer(bytes: u64, mut lose: impl FnMut(&SctpChunk, usize) -> bool) -> Transfer {
    let delay = 20 * MS;
    let mut s = SctpSender::new(cfg(), true).with_transfer_bytes(bytes);
    let mut r = SctpReceiver::new(cfg());
    s.start(0);
    let mut wire: Wire = Vec::new();
    let mut sent: Vec<(SimTime, SctpChunk)> = Vec::new();
    let (mut now, mut delivered) = (0, 0);
    for _ in 0..100_000 {
        let mut out: Vec<(bool, SctpChunk)> = Vec::new();
        while let Some(c) = s.poll_transmit(now) {
            out.push((true, c));
        }
        while let Some(c) = r.poll_transmit(now) {
            out.push((false, c));
        }
        for (to_r, c) in out {
            let kind = std::mem::discriminant(&c);
            let n = sent
                .iter()
                .filter(|(_, x)| std::mem::discriminant(x) == kind)
                .count();
            if !lose(&c, n) {
                wire.push((now + delay, to_r, c.clone()));
            }
            sent.push((now, c));
        }
        delivered += r.take_delivered();
        let Some(next) = advance(&mut s, &mut r, &mut wire) else {
            break;
        };
        now = next;
    }
    Transfer {
        s,
        r,
        sent,
        delivered,
    }
}

/// The shutdown chunks of a run, in order.
fn shutdown_chunks(t: &Transfer) -> Vec<(SimTime, SctpChunk)> {
    t.sent
        .iter()
        .filter(|(_, c)| {
            matches!(
                c,
                SctpChunk::Shutdown | SctpChunk::ShutdownAck | SctpChunk::ShutdownComplete
            )
        })
        .cloned()
        .collect()
}

#[test]
fn a_finite_transfer_ends_with_a_last_short_message_and_a_graceful_shutdown() {
    let t = run_transfer(10_500, |_, _| false);
    assert_eq!(t.delivered, 10_500);
    assert_eq!(t.r.delivered_messages(), 11);
    // Ten messages of 1,000 bytes, the last of 500.
    let data: Vec<u32> = t
        .sent
        .iter()
        .filter_map(|(_, c)| match c {
            SctpChunk::Data(d) => Some(d.iter().map(|d| d.bytes)),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(data.len(), 11);
    assert_eq!(data[10], 500);
    // §9.2: once the last SACK came, SHUTDOWN, SHUTDOWN ACK and SHUTDOWN
    // COMPLETE, one link delay apart; then both ends are closed and idle.
    let last_sack = t
        .sent
        .iter()
        .rev()
        .find(|(_, c)| matches!(c, SctpChunk::Sack(_)))
        .unwrap()
        .0;
    let shut = shutdown_chunks(&t);
    let kinds: Vec<_> = shut.iter().map(|(_, c)| c.clone()).collect();
    assert_eq!(
        kinds,
        [
            SctpChunk::Shutdown,
            SctpChunk::ShutdownAck,
            SctpChunk::ShutdownComplete
        ]
    );
    let times: Vec<_> = shut.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        times,
        [
            last_sack + 20 * MS,
            last_sack + 40 * MS,
            last_sack + 60 * MS
        ]
    );
    assert_eq!(t.s.state(), SctpState::ShutDown);
    assert!(t.r.closed());
    assert_eq!((t.s.poll_timeout(), t.r.poll_timeout()), (None, None));
    assert_eq!(SctpChunk::Shutdown.wire_len(), 12 + 8);
    assert_eq!(SctpChunk::ShutdownAck.wire_len(), 12 + 4);
    assert!(SctpChunk::Shutdown.to_receiver() && !SctpChunk::ShutdownAck.to_receiver());
}

#[test]
fn lost_shutdown_chunks_are_sent_again_by_either_end() {
    // The first SHUTDOWN lost: the sender sends it again at T2 (the RTO).
    let t = run_transfer(5_000, |c, n| matches!(c, SctpChunk::Shutdown) && n == 0);
    let shut = shutdown_chunks(&t);
    assert!(matches!(shut[0].1, SctpChunk::Shutdown));
    assert!(matches!(shut[1].1, SctpChunk::Shutdown));
    let rto = t.s.metrics().rto;
    assert_eq!(shut[1].0 - shut[0].0, rto / 2, "the RTO before it doubled");
    assert_eq!(shut.len(), 4);
    assert_eq!(t.s.state(), SctpState::ShutDown);
    assert!(t.r.closed());
    // The SHUTDOWN COMPLETE lost: the receiver sends SHUTDOWN ACK again,
    // and the closed sender answers it again (§8.4 5).
    let t = run_transfer(5_000, |c, n| {
        matches!(c, SctpChunk::ShutdownComplete) && n == 0
    });
    let kinds: Vec<_> = shutdown_chunks(&t).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        kinds,
        [
            SctpChunk::Shutdown,
            SctpChunk::ShutdownAck,
            SctpChunk::ShutdownComplete,
            SctpChunk::ShutdownAck,
            SctpChunk::ShutdownComplete
        ]
    );
    assert!(t.r.closed());
    assert_eq!(t.delivered, 5_000);
    // Every SHUTDOWN lost: after Association.Max.Retrans (10) more, the
    // sender gives the association up; the receiver never heard of it.
    let t = run_transfer(5_000, |c, _| matches!(c, SctpChunk::Shutdown));
    assert_eq!(shutdown_chunks(&t).len(), 11);
    assert_eq!(t.s.state(), SctpState::Failed);
    assert_eq!(t.s.metrics().shutdown_retransmissions, 11);
    assert!(!t.r.closed());
    assert_eq!(t.delivered, 5_000);
}

#[test]
fn a_sender_without_a_transfer_size_never_shuts_down() {
    let mut s = established(true, 0);
    let sent = fill(&mut s, 0);
    s.on_chunk(MS, &sack(sent.len() as u64, &[]));
    assert_eq!(s.state(), SctpState::Established);
    assert!(!s.transfer_done());
}
