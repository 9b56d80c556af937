//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995).
//!
//! - **BaseRTT** is the minimum of all RTT samples of the connection, as in
//!   the paper ("the minimum of all measured round trip times").
//! - Once per RTT (when the ACK passes the `snd_max` recorded at the
//!   previous adjustment) the window is compared: `Diff = (cwnd/BaseRTT −
//!   cwnd/RTT) × BaseRTT` segments, with RTT the mean of the Karn-valid
//!   samples of that round (interpretation: the paper times one segment per
//!   RTT; the mean over the round uses every ACK).
//! - Congestion avoidance: `Diff < α` → cwnd + 1, `Diff > β` → cwnd − 1,
//!   else unchanged (paper section 3.2).
//! - Slow start: cwnd grows exponentially only every other RTT; when
//!   `Diff > γ` Vegas leaves slow start (ssthresh := cwnd) for the linear
//!   mode (paper section 3.3).
//! - Loss recovery is Reno's with the default halving; the paper's
//!   finer-grained timeout checks are not modelled under this rule.
//!
//! [`VegasRule::Ns2`] (`[flows.tcp] vegas_rule = "ns2"`) adjusts the
//! window as ns-2.35's `Agent/TCP/Vegas` does instead (its
//! `tcp-vegas.cc`), the agent behind the published studies:
//!
//! - a round ends with the ACK of the first segment sent in it; its RTT is
//!   the mean of the samples of the ACKs from the one that closed the
//!   round before to the one before this (each ACK adds its sample after
//!   the round's test), or the round's length without any; the sample is
//!   the segment the ACK acknowledges, if sent once and not as the first
//!   packet (`sendTime != 0.`);
//! - `Diff = (expected − actual) × BaseRTT`, with expected = the segments
//!   outstanding plus one over BaseRTT, actual = the segments sent in the
//!   round over its RTT, **rounded to a whole segment** (so with α = 1 and
//!   β = 3 the window grows below 0.5 and shrinks above 3.5); both count
//!   to snd_nxt (`t_seqno_`), which after a timeout is what go-back-N has
//!   resent so far;
//! - a growing round adds 1/cwnd per ACK (1 in slow start) while the
//!   window is no more than 2 segments ahead of what is outstanding, so
//!   cwnd takes fractional values; a shrinking one takes 1 off at once;
//! - slow start grows every other round and ends, when Diff > γ, with
//!   ssthresh = 2 and cwnd cut by an eighth (at least 2);
//! - a round whose RTT is below BaseRTT, or that sent at most one segment,
//!   sets BaseRTT to it.
//!
//! - a retransmission timeout halves the window into ssthresh and restarts
//!   cwnd at two segments (`v_slowstart_`), where the paper's rule (as
//!   Reno) restarts it at one;
//! - its own loss recovery replaces Reno's: the sender
//!   ([`super::super::TcpSender`], `ns2_vegas_dup_ack` and
//!   `ns2_vegas_new_ack`) keeps a fine-grained timer per segment and resends
//!   on a duplicate ACK once it ran out, or at the third, cutting the
//!   window by a quarter (by half for a segment resent before, to 2 from 3
//!   or less) once per window.

use serde::{Deserialize, Serialize};

use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

/// How Vegas adjusts its window (`[flows.tcp] vegas_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasRule {
    /// Brakmo & Peterson's: Diff from cwnd, thresholds as given, whole
    /// steps once per round.
    #[default]
    Paper,
    /// ns-2.35's `Agent/TCP/Vegas` (see the module's text).
    Ns2,
}

/// ns-2.35's `v_slowstart_`: the window a retransmission timeout leaves.
const NS2_RESTART_WINDOW: f64 = 2.0;

#[derive(Debug, Clone)]
pub struct Vegas {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    base_rtt: Option<SimTime>,
    rtt_sum: u128,
    rtt_count: u64,
    round_end: Option<u64>,
    grow_this_round: bool,
    last_diff: Option<f64>,
    rule: VegasRule,
    /// (ns-2's rule) what each ACK of this round adds to cwnd (`v_incr_`).
    incr: f64,
    /// (ns-2's rule) when the round began (`v_begtime_`).
    round_began: SimTime,
}

impl Vegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
        Self::with_rule(alpha, beta, gamma, VegasRule::Paper)
    }

    pub fn with_rule(alpha: f64, beta: f64, gamma: f64, rule: VegasRule) -> Self {
        Self {
            alpha,
            beta,
            gamma,
            base_rtt: None,
            rtt_sum: 0,
            rtt_count: 0,
            round_end: None,
            grow_this_round: true,
            last_diff: None,
            rule,
            incr: 0.0,
            round_began: 0,
        }
    }

    /// After a loss: the paper's rule starts its rounds and slow start's
    /// every-other-round over; ns-2.35's agent keeps its round going.
    fn restart_rounds(&mut self) {
        self.incr = 0.0;
        if self.rule == VegasRule::Paper {
            self.round_end = None;
            self.grow_this_round = true;
        }
    }

    /// ns-2's `t_seqno_ - last_ack_` at an ACK, in segments.
    fn ns2_outstanding(ev: &AckEvent, mss: u64) -> f64 {
        (ev.snd_nxt.saturating_sub(ev.ack) / mss) as f64 + 1.0
    }

    /// One new ACK under ns-2.35's rule (see the module's text).
    fn on_ack_ns2(&mut self, st: &mut CcState, ev: &AckEvent) {
        let mss = st.mss.max(1) as u64;
        // ns-2 counts in segments: the round ends with the ACK of the
        // first segment sent in it (`seqno >= v_begseq_`).
        let begin = *self.round_end.get_or_insert(0);
        if ev.ack >= begin + mss {
            let rtt = if self.rtt_count > 0 {
                (self.rtt_sum / self.rtt_count as u128) as f64
            } else {
                ev.now.saturating_sub(self.round_began) as f64
            };
            self.rtt_sum = 0;
            self.rtt_count = 0;
            // Segments sent in the round (ns-2's `t_seqno_ - v_begseq_`),
            // and outstanding (`t_seqno_ - last_ack_`, one more than the
            // segments from the ACK to `t_seqno_`), both counted to
            // snd_nxt: after a timeout, to what go-back-N has resent so
            // far, not to the highest segment sent.
            let sent = ev.snd_nxt.saturating_sub(begin) / mss;
            let outstanding = Self::ns2_outstanding(ev, mss);
            if rtt > 0.0 {
                let base = match self.base_rtt {
                    Some(b) if (b as f64) <= rtt && sent > 1 => b as f64,
                    _ => {
                        self.base_rtt = Some(rtt as SimTime);
                        rtt
                    }
                };
                let actual = sent as f64 / rtt;
                let expected = outstanding / base;
                let exact = (expected - actual) * base;
                self.last_diff = Some(exact);
                // ns-2's `int(x + 0.5)`: to the nearest, halves up, and
                // towards zero below -0.5.
                let delta = (exact + 0.5).trunc();
                if st.cwnd < st.ssthresh {
                    self.grow_this_round = !self.grow_this_round;
                    if !self.grow_this_round {
                        self.incr = 0.0;
                    } else if delta > self.gamma {
                        st.ssthresh = 2.0;
                        st.cwnd = (st.cwnd - st.cwnd / 8.0).max(2.0);
                        self.incr = 0.0;
                    } else {
                        self.incr = 1.0;
                    }
                } else if delta > self.beta {
                    st.cwnd = (st.cwnd - 1.0).max(2.0);
                    self.incr = 0.0;
                } else if delta < self.alpha {
                    self.incr = 1.0 / st.cwnd;
                } else {
                    self.incr = 0.0;
                }
            }
            self.round_end = Some(ev.snd_nxt);
            self.round_began = ev.now;
        }
        if self.incr == 1.0 && st.cwnd >= st.ssthresh {
            self.incr = 0.0;
        }
        if self.incr > 0.0 && st.cwnd - Self::ns2_outstanding(ev, mss) <= 2.0 {
            st.cwnd += self.incr;
        }
        st.clamp();
    }

    /// (ns-2's rule) The first round began at `now`, as the first packet
    /// left (`v_begtime_` is 0 on the agent's `vegastime()` clock, which
    /// starts then).
    pub fn begin_round_at(&mut self, now: SimTime) {
        self.round_began = now;
    }

    /// Diff of the last completed round, segments.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    pub fn base_rtt(&self) -> Option<SimTime> {
        self.base_rtt
    }
}

impl CongestionControl for Vegas {
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimTime) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.rtt_sum += rtt as u128;
        self.rtt_count += 1;
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        if self.rule == VegasRule::Ns2 {
            return self.on_ack_ns2(st, ev);
        }
        let slow_start = st.cwnd < st.ssthresh;
        if slow_start && self.grow_this_round {
            st.cwnd += 1.0;
        }
        let round_end = *self.round_end.get_or_insert(ev.snd_max);
        if ev.ack >= round_end {
            if let (Some(base), true) = (self.base_rtt, self.rtt_count > 0) {
                let rtt = (self.rtt_sum / self.rtt_count as u128) as f64;
                let base = base as f64;
                let diff = if rtt > 0.0 {
                    (st.cwnd / base - st.cwnd / rtt) * base
                } else {
                    0.0
                };
                self.last_diff = Some(diff);
                if slow_start {
                    if diff > self.gamma {
                        st.ssthresh = st.cwnd.max(2.0);
                    } else {
                        self.grow_this_round = !self.grow_this_round;
                    }
                } else if diff < self.alpha {
                    st.cwnd += 1.0;
                } else if diff > self.beta {
                    st.cwnd = (st.cwnd - 1.0).max(2.0);
                }
            }
            self.rtt_sum = 0;
            self.rtt_count = 0;
            self.round_end = Some(ev.snd_max);
        }
        st.clamp();
    }

    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        st.cwnd = st.loss_cwnd();
        self.restart_rounds();
    }

    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        // ns-2.35's `timeout()` restarts at `v_slowstart_`, two segments,
        // after `slowdown()` halved the window into ssthresh.
        st.cwnd = match self.rule {
            VegasRule::Paper => 1.0,
            VegasRule::Ns2 => NS2_RESTART_WINDOW,
        };
        self.restart_rounds();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::transport::tcp::cc::{test_ack, test_state};

    /// One round: base 100 ms seen earlier, this round's samples `rtt`.
    fn round(v: &mut Vegas, st: &mut CcState, rtt: SimTime) {
        v.on_rtt_sample(st, 0, rtt);
        let mut ev = test_ack(0, 5000, Some(rtt));
        ev.snd_max = 20_000;
        v.on_ack(st, &ev);
    }

    fn primed() -> (Vegas, CcState) {
        let mut v = Vegas::new(1.0, 3.0, 1.0);
        let mut st = test_state();
        v.on_rtt_sample(&mut st, 0, 100 * NS_PER_MS);
        let mut ev = test_ack(0, 1000, None);
        ev.snd_max = 5000;
        v.on_ack(&mut st, &ev); // opens the first round, ends at 5000
        (v, st)
    }

    #[test]
    fn lowers_cwnd_when_diff_exceeds_beta() {
        let (mut v, mut st) = primed();
        let before = st.cwnd;
        // Round mean (100 + 400)/2 = 250 ms: Diff = 10 × (1 − 100/250) = 6 > β.
        round(&mut v, &mut st, 400 * NS_PER_MS);
        assert!(v.last_diff().unwrap() > 3.0);
        assert!(st.cwnd < before, "{} !< {}", st.cwnd, before);
    }

    #[test]
    fn raises_cwnd_when_diff_below_alpha() {
        let (mut v, mut st) = primed();
        let before = st.cwnd;
        v.rtt_sum = 0;
        v.rtt_count = 0;
        round(&mut v, &mut st, 100 * NS_PER_MS);
        assert!(v.last_diff().unwrap() < 1.0);
        assert_eq!(st.cwnd, before + 1.0);
    }

    #[test]
    fn holds_cwnd_between_alpha_and_beta() {
        let (mut v, mut st) = primed();
        v.rtt_sum = 0;
        v.rtt_count = 0;
        let before = st.cwnd;
        // Diff = cwnd(1 − base/rtt) = 10 × (1 − 100/120) ≈ 1.67.
        round(&mut v, &mut st, 120 * NS_PER_MS);
        assert_eq!(st.cwnd, before);
    }

    #[test]
    fn base_rtt_is_the_minimum_sample() {
        let mut v = Vegas::new(2.0, 2.0, 1.0);
        let mut st = test_state();
        for r in [150, 90, 120] {
            v.on_rtt_sample(&mut st, 0, r * NS_PER_MS);
        }
        assert_eq!(v.base_rtt(), Some(90 * NS_PER_MS));
    }

    /// A Vegas on ns-2.35's rule with BaseRTT 100 ms, cwnd and ssthresh as
    /// given, whose round began when 1000 bytes had been sent.
    fn ns2_primed(cwnd: f64, ssthresh: f64) -> (Vegas, CcState) {
        let mut v = Vegas::with_rule(1.0, 3.0, 1.0, VegasRule::Ns2);
        v.base_rtt = Some(100 * NS_PER_MS);
        v.round_end = Some(1000);
        let mut st = test_state();
        (st.cwnd, st.ssthresh) = (cwnd, ssthresh);
        (v, st)
    }

    /// The ACK that closes the round (it covers the round's first segment,
    /// bytes 1000-2000): the round's samples average `rtt_ms`, it sent
    /// `sent` segments, and `outstanding` is ns-2's `t_seqno_ - last_ack_`
    /// after the ACK (at most `sent`).
    fn ns2_close(v: &mut Vegas, st: &mut CcState, rtt_ms: u64, sent: u64, outstanding: u64) {
        v.on_rtt_sample(st, 0, rtt_ms * NS_PER_MS);
        let snd_nxt = 1000 + sent * 1000;
        let mut ev = test_ack(2 * NS_PER_MS, snd_nxt - (outstanding - 1) * 1000, None);
        (ev.snd_max, ev.snd_nxt) = (snd_nxt, snd_nxt);
        v.on_ack(st, &ev);
    }

    #[test]
    fn ns2_rule_rounds_diff_to_whole_segments() {
        // 3 sent in 125 ms, 3 outstanding: Diff = (3/100 − 3/125) × 100 =
        // 0.6, rounded to 1, not below α: the window holds (the paper's
        // rule, with Diff 0.6 < α, would grow).
        let (mut v, mut st) = ns2_primed(3.0, 2.0);
        ns2_close(&mut v, &mut st, 125, 3, 3);
        assert!((v.last_diff().unwrap() - 0.6).abs() < 1e-9);
        assert_eq!(st.cwnd, 3.0);
        // In 110 ms: Diff ≈ 0.27, rounded to 0 < α: this ACK and each of
        // the round's add 1/cwnd as of the round's start.
        let (mut v, mut st) = ns2_primed(3.0, 2.0);
        ns2_close(&mut v, &mut st, 110, 3, 3);
        assert_eq!(st.cwnd, 3.0 + 1.0 / 3.0);
        for _ in 0..3 {
            let mut ev = test_ack(3 * NS_PER_MS, 2500, None);
            (ev.snd_max, ev.snd_nxt) = (4000, 4000);
            v.on_ack(&mut st, &ev);
        }
        assert!((st.cwnd - (3.0 + 4.0 / 3.0)).abs() < 1e-9, "{}", st.cwnd);
        // ... but not while the window is more than 2 segments ahead of
        // what is outstanding (one segment here).
        let before = st.cwnd;
        let mut ev = test_ack(3 * NS_PER_MS, 4000, None);
        (ev.snd_max, ev.snd_nxt) = (4000, 4000);
        v.on_ack(&mut st, &ev);
        assert_eq!(st.cwnd, before);
        // In 400 ms: Diff = 3 − 0.75 = 2.25, rounded to 2: holds.
        let (mut v, mut st) = ns2_primed(3.0, 2.0);
        ns2_close(&mut v, &mut st, 400, 3, 3);
        assert_eq!(st.cwnd, 3.0);
    }

    #[test]
    fn ns2_rule_counts_to_snd_nxt_not_snd_max() {
        // After a timeout go-back-N has resent one segment of five: ns-2's
        // `t_seqno_` is snd_nxt. The round sent one segment, so its RTT
        // (here 60 ms, above the least sample) becomes BaseRTT; Diff = 0.
        let (mut v, mut st) = ns2_primed(2.0, 2.0);
        v.on_rtt_sample(&mut st, 0, 60 * NS_PER_MS);
        let mut ev = test_ack(2 * NS_PER_MS, 2000, None);
        (ev.snd_max, ev.snd_nxt) = (6000, 2000);
        v.on_ack(&mut st, &ev);
        assert_eq!(v.base_rtt(), Some(60 * NS_PER_MS));
        assert_eq!(v.last_diff(), Some(0.0));
        // The next round ends with the ACK of the segment that was at
        // snd_nxt, here as go-back-N has resent two more (at snd_max it
        // would wait for an ACK of 7000).
        v.on_rtt_sample(&mut st, 0, 90 * NS_PER_MS);
        let mut ev = test_ack(3 * NS_PER_MS, 3000, None);
        (ev.snd_max, ev.snd_nxt) = (6000, 4000);
        v.on_ack(&mut st, &ev);
        // 2 sent in 90 ms, 2 outstanding, BaseRTT 60: 2 − 4/3 = 0.67.
        assert!((v.last_diff().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn ns2_rule_shrinks_by_one_above_beta() {
        // 4 sent in 1 s, 4 outstanding: Diff = (4/100 − 4/1000) × 100 =
        // 3.6, rounded to 4 > β: one segment off at once.
        let (mut v, mut st) = ns2_primed(5.0, 2.0);
        ns2_close(&mut v, &mut st, 1000, 4, 4);
        assert!((v.last_diff().unwrap() - 3.6).abs() < 1e-9);
        assert_eq!(st.cwnd, 4.0);
        // In 500 ms: Diff = 3.2, rounded to 3: holds.
        let (mut v, mut st) = ns2_primed(5.0, 2.0);
        ns2_close(&mut v, &mut st, 500, 4, 4);
        assert!((v.last_diff().unwrap() - 3.2).abs() < 1e-9);
        assert_eq!(st.cwnd, 5.0);
        // A round that sent one segment sets BaseRTT to its RTT, here
        // higher than the least sample.
        let (mut v, mut st) = ns2_primed(5.0, 2.0);
        ns2_close(&mut v, &mut st, 250, 1, 1);
        assert_eq!(v.base_rtt(), Some(250 * NS_PER_MS));
        assert_eq!(v.last_diff(), Some(0.0));
    }

    #[test]
    fn ns2_rule_cuts_an_eighth_when_slow_start_ends() {
        // Slow start grows every other round; after a round without
        // growth, this one meets Diff = (4/100 − 4/300) × 100 = 2.67,
        // rounded to 3 > γ: ssthresh 2 and cwnd 4 − 4/8.
        let (mut v, mut st) = ns2_primed(4.0, 20.0);
        v.grow_this_round = false;
        ns2_close(&mut v, &mut st, 300, 4, 4);
        assert_eq!((st.cwnd, st.ssthresh), (3.5, 2.0));
        // Below γ it grows by one per ACK through the round.
        let (mut v, mut st) = ns2_primed(4.0, 20.0);
        v.grow_this_round = false;
        ns2_close(&mut v, &mut st, 100, 4, 4);
        assert_eq!(st.cwnd, 5.0);
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        let (mut v, mut st) = primed();
        st.cwnd = 4.0;
        st.ssthresh = 100.0;
        v.rtt_sum = 0;
        v.rtt_count = 0;
        round(&mut v, &mut st, 200 * NS_PER_MS);
        assert!(st.cwnd >= st.ssthresh);
    }
}
