//! Retransmission timeout with Karn's algorithm and exponential backoff:
//! RFC 6298 in real numbers, ns-2.35's integer clock ticks, or ns-3's
//! integer nanoseconds ([`RtoRule`]).
//!
//! The caller feeds only Karn-valid samples (segments never retransmitted;
//! RFC 6298 section 3, Karn & Partridge). A timeout doubles the RTO up to
//! `max_backoff` times its base (RFC 6298 (5.5)); the backoff is kept until a
//! valid sample arrives, which recomputes the RTO (section 5, note after
//! (5.7)).

use super::RtoRule;
use crate::engine::SimTime;

/// ns-2.35's `t_srtt_` and `t_rttvar_`: the smoothed RTT in eighths of a
/// tick and its mean deviation in quarters (0 SRTT: no estimate yet).
#[derive(Debug, Clone)]
struct TickEstimate {
    tick_offset: SimTime,
    srtt8: i64,
    rttvar4: i64,
}

/// ns-2.35's `rtt_update` in whole ticks, shared by TCP's timeout and
/// TFRC's `t_RTO`: folds a sample of `m` ticks (at least 1) into the
/// smoothed RTT scaled by 8 and its mean deviation scaled by 4 (gains 1/8
/// and 1/4, each kept at least 1; the first sample sets SRTT to it and
/// RTTVAR to half of it) and returns ⌊SRTT + 4 RTTVAR⌋ in ticks.
pub(crate) fn ns2_tick_update(srtt8: &mut i64, rttvar4: &mut i64, m: i64) -> i64 {
    if *srtt8 != 0 {
        let mut delta = m - (*srtt8 >> 3);
        *srtt8 = (*srtt8 + delta).max(1);
        delta = delta.abs() - (*rttvar4 >> 2);
        *rttvar4 = (*rttvar4 + delta).max(1);
    } else {
        *srtt8 = m << 3;
        *rttvar4 = m << 1;
    }
    ((*rttvar4 << 3) + *srtt8) >> 3
}

/// ns-3's `RttMeanDeviation` with its gains of 1/8 and 1/4: SRTT and
/// RTTVAR in whole nanoseconds, and whether a sample came yet.
#[derive(Debug, Clone, Default)]
struct NsEstimate {
    srtt: i64,
    rttvar: i64,
    sampled: bool,
}

impl NsEstimate {
    /// Folds a sample of `m` ns in as Jacobson and Karels's integer update
    /// (their paper's appendix A.2): each gain a right shift, which floors.
    fn update(&mut self, m: i64) {
        if !self.sampled {
            self.sampled = true;
            self.srtt = m;
            self.rttvar = m / 2;
            return;
        }
        let delta = m - self.srtt;
        self.srtt = ((self.srtt << 3) + delta) >> 3;
        self.rttvar = ((self.rttvar << 2) + delta.abs() - self.rttvar) >> 2;
    }
}

/// Estimator state.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    base_rto: SimTime,
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    tick: SimTime,
    max_backoff: u32,
    ticks: Option<TickEstimate>,
    ns3: Option<NsEstimate>,
}

impl RttEstimator {
    pub fn new(
        initial_rto: SimTime,
        min_rto: SimTime,
        max_rto: SimTime,
        tick: SimTime,
        max_backoff: u32,
    ) -> Self {
        Self {
            srtt: None,
            rttvar: 0.0,
            base_rto: initial_rto,
            backoff: 1,
            min_rto,
            max_rto,
            tick,
            max_backoff: max_backoff.max(1),
            ticks: None,
            ns3: None,
        }
    }

    /// The same, computing the RTO by `rule`; `tick_offset` places the
    /// ticks of [`RtoRule::Ns2`]'s clock.
    pub fn with_rule(mut self, rule: RtoRule, tick_offset: SimTime) -> Self {
        self.ticks = (rule == RtoRule::Ns2).then_some(TickEstimate {
            tick_offset,
            srtt8: 0,
            rttvar4: 0,
        });
        self.ns3 = (rule == RtoRule::Ns3).then(NsEstimate::default);
        if self.ns3.is_some() {
            // ns-3's `TcpSocketBase::ClockGranularity`.
            self.tick = crate::engine::NS_PER_MS;
        }
        self
    }

    /// A Karn-valid RTT measurement `r` of a segment sent at `sent_at`
    /// (RFC 6298 (2.2) and (2.3), or ns-2.35's `rtt_update`).
    pub fn sample(&mut self, sent_at: SimTime, r: SimTime) {
        let rf = r as f64;
        match self.srtt {
            None => {
                self.srtt = Some(rf);
                self.rttvar = rf / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - rf).abs();
                self.srtt = Some(0.875 * s + 0.125 * rf);
            }
        }
        self.backoff = 1;
        let tick = self.tick.max(1);
        if let Some(t) = &mut self.ticks {
            // The tick boundaries between the send and now on a clock
            // offset by `tick_offset`: ⌊(r + (sent + offset) mod tick) / tick⌋.
            let off = (sent_at + t.tick_offset) % tick;
            let m = (((r + off) / tick) as i64).max(1);
            let rto_ticks = ns2_tick_update(&mut t.srtt8, &mut t.rttvar4, m);
            self.base_rto = rto_ticks as SimTime * tick;
            return;
        }
        if let Some(n) = &mut self.ns3 {
            n.update(r as i64);
            let rto = n.srtt + (tick as i64).max(4 * n.rttvar);
            self.base_rto = (rto.max(0) as SimTime).clamp(self.min_rto, self.max_rto);
            return;
        }
        let srtt = self.srtt.unwrap_or(rf);
        let rto = srtt + (tick as f64).max(4.0 * self.rttvar);
        self.base_rto = (rto.round() as SimTime).clamp(self.min_rto, self.max_rto);
    }

    /// The retransmission timer fired: double (RFC 6298 (5.5), or ns-2.35's
    /// `rtt_backoff`).
    pub fn on_timeout(&mut self) {
        if self.ns3.is_some() {
            // ns-3's `ReTxTimeout`: min(2 RTO, 60 s), with no cap on the
            // doublings themselves.
            if self.rto() < self.max_rto && self.backoff < 1 << 30 {
                self.backoff *= 2;
            }
            return;
        }
        if self.ticks.is_none() {
            self.backoff = (self.backoff * 2).min(self.max_backoff);
            return;
        }
        if (self.backoff < self.max_backoff || self.rto() < self.max_rto) && self.backoff < 1 << 30
        {
            self.backoff *= 2;
        }
        if self.backoff > 8 {
            if let Some(t) = &mut self.ticks {
                // ns-2.35 moves SRTT into RTTVAR and clears it; the next
                // sample then starts the estimate afresh.
                t.rttvar4 += t.srtt8 >> 3;
                t.srtt8 = 0;
            }
        }
    }

    /// A new ACK restarts the timer: under [`RtoRule::Ns3`] the RTO is
    /// computed afresh from the estimate, which ends any backoff (ns-3's
    /// `NewAck`); the other rules keep it until a valid sample.
    pub fn on_timer_restart(&mut self) {
        if self.ns3.is_some() {
            self.backoff = 1;
        }
    }

    /// The current RTO, backoff included.
    pub fn rto(&self) -> SimTime {
        if self.ticks.is_some() {
            // ns-2.35's `rtt_timeout` with `rfc2988_`.
            let base = self.base_rto.max(self.min_rto);
            let rto = base
                .saturating_mul(self.backoff as SimTime)
                .min(self.max_rto);
            return rto.max(2 * self.tick);
        }
        self.base_rto
            .saturating_mul(self.backoff as SimTime)
            .min(self.max_rto)
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt.map(|s| s.round() as SimTime)
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_S};

    #[test]
    fn ns2_tick_update_smooths_in_scaled_integers() {
        let (mut srtt8, mut rttvar4) = (0, 0);
        // First sample of 5 ticks: SRTT 5 (40/8), RTTVAR 2.5 (10/4);
        // ⌊5 + 4 × 2.5⌋ = 15.
        assert_eq!(ns2_tick_update(&mut srtt8, &mut rttvar4, 5), 15);
        assert_eq!((srtt8, rttvar4), (40, 10));
        // 3 ticks: delta -2, SRTT8 38; |delta| - RTTVAR4/4 = 0, RTTVAR4 10;
        // (80 + 38) / 8 = 14 (14.75 floored).
        assert_eq!(ns2_tick_update(&mut srtt8, &mut rttvar4, 3), 14);
        assert_eq!((srtt8, rttvar4), (38, 10));
    }

    fn est() -> RttEstimator {
        RttEstimator::new(
            3 * NS_PER_S,
            200 * NS_PER_MS,
            60 * NS_PER_S,
            10 * NS_PER_MS,
            64,
        )
    }

    #[test]
    fn first_sample_sets_srtt_and_rttvar() {
        let mut e = est();
        assert_eq!(e.rto(), 3 * NS_PER_S);
        e.sample(0, 100 * NS_PER_MS);
        assert_eq!(e.srtt(), Some(100 * NS_PER_MS));
        // 100 ms + 4 × 50 ms
        assert_eq!(e.rto(), 300 * NS_PER_MS);
    }

    #[test]
    fn min_rto_clamps() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(0, 10 * NS_PER_MS);
        }
        assert_eq!(e.rto(), 200 * NS_PER_MS);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_resets_it() {
        let mut e = est();
        e.on_timeout();
        assert_eq!(e.rto(), 6 * NS_PER_S);
        e.on_timeout();
        assert_eq!(e.rto(), 12 * NS_PER_S);
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), 60 * NS_PER_S); // max_rto
        assert_eq!(e.backoff(), 64);
        e.sample(0, 100 * NS_PER_MS);
        assert_eq!(e.backoff(), 1);
        assert_eq!(e.rto(), 300 * NS_PER_MS);
    }

    #[test]
    fn ns3_rule_updates_in_integer_nanoseconds_and_doubles_to_max_rto() {
        let mut e = est().with_rule(RtoRule::Ns3, 0);
        // First sample: SRTT 101 ms, RTTVAR 50.5 ms; 101 + 202 ms.
        e.sample(0, 101 * NS_PER_MS);
        assert_eq!(e.rto(), 303 * NS_PER_MS);
        // 90 ms: delta −11 ms; SRTT ⌊(8 × 101 − 11) / 8⌋ ms = 99.625 ms;
        // RTTVAR (3 × 50.5 + 11) / 4 = 40.625 ms; RTO 262.125 ms.
        e.sample(0, 90 * NS_PER_MS);
        assert_eq!(e.rto(), 262_125_000);
        // A floor at each shift: 7 ns more than SRTT moves it by none.
        let mut f = est().with_rule(RtoRule::Ns3, 0);
        f.sample(0, 8);
        f.sample(0, 15);
        assert_eq!(f.ns3.as_ref().map(|n| (n.srtt, n.rttvar)), Some((8, 4)));
        // Equal samples: RTTVAR falls by a quarter each, and the 1 ms
        // granularity is the least margin above SRTT.
        let mut g = est().with_rule(RtoRule::Ns3, 0);
        for _ in 0..100 {
            g.sample(0, 300 * NS_PER_MS);
        }
        assert_eq!(g.rto(), 301 * NS_PER_MS);
        // Doubling to 60 s, with no cap on the count.
        let mut seen = Vec::new();
        for _ in 0..9 {
            g.on_timeout();
            seen.push(g.rto() / NS_PER_MS);
        }
        assert_eq!(
            seen,
            [602, 1_204, 2_408, 4_816, 9_632, 19_264, 38_528, 60_000, 60_000]
        );
        // A restarted timer ends the backoff under ns-3's rule only.
        g.on_timer_restart();
        assert_eq!((g.backoff(), g.rto()), (1, 301 * NS_PER_MS));
        let mut rfc = est();
        rfc.on_timeout();
        rfc.on_timer_restart();
        assert_eq!(rfc.rto(), 6 * NS_PER_S);
    }

    fn ns2(tick_offset: SimTime) -> RttEstimator {
        est().with_rule(RtoRule::Ns2, tick_offset)
    }

    const MS: SimTime = NS_PER_MS;

    #[test]
    fn ns2_rule_counts_ticks_and_keeps_scaled_integers() {
        let mut e = ns2(0);
        assert_eq!(e.rto(), 3 * NS_PER_S); // rtxcur_init_
                                           // 95 ms from a send on a tick boundary crosses 9 ticks: SRTT 72/8,
                                           // RTTVAR 18/4, RTO ⌊(8·18 + 72) / 8⌋ = 27 ticks (RFC 6298: 285 ms).
        e.sample(0, 95 * MS);
        assert_eq!(e.rto(), 270 * MS);
        // Sent 5 ms past a tick, 95 ms cross 10: delta 10 − 9 = 1, SRTT
        // 73/8; |1| − ⌊18/4⌋ = −3, RTTVAR 15/4; RTO ⌊(120 + 73) / 8⌋ = 24.
        e.sample(1005 * MS, 95 * MS);
        assert_eq!(e.rto(), 240 * MS);
        // The float SRTT the window rules read is kept as before.
        assert_eq!(e.srtt(), Some(95 * MS));
    }

    #[test]
    fn ns2_rule_offsets_the_clock() {
        // With the ticks 6 ms later, the same 95 ms cross 10 boundaries.
        let mut e = ns2(6 * MS);
        e.sample(0, 95 * MS);
        assert_eq!(e.rto(), 300 * MS); // ⌊(8·20 + 80) / 8⌋ ticks
        let mut e = ns2(6 * MS);
        e.sample(3 * MS, 95 * MS); // (3 + 6 + 95) / 10: still 10
        assert_eq!(e.rto(), 300 * MS);
        let mut e = ns2(6 * MS);
        e.sample(5 * MS, 95 * MS); // (5 + 6) mod 10 = 1: 9 ticks
        assert_eq!(e.rto(), 270 * MS);
    }

    #[test]
    fn ns2_rule_backs_off_to_max_rto_and_starts_afresh_after_eight() {
        let mut e = ns2(0);
        e.sample(0, 3 * MS); // one tick at least: RTO 3 ticks, below min_rto
        assert_eq!(e.rto(), 200 * MS);
        let mut seen = Vec::new();
        for _ in 0..11 {
            e.on_timeout();
            seen.push((e.backoff(), e.rto() / MS));
        }
        // Past 64 the backoff still doubles while the timeout is below
        // max_rto (`rfc2988_`), as 200 ms × 512 is capped at 60 s.
        assert_eq!(
            seen,
            [
                (2, 400),
                (4, 800),
                (8, 1600),
                (16, 3200),
                (32, 6400),
                (64, 12_800),
                (128, 25_600),
                (256, 51_200),
                (512, 60_000),
                (512, 60_000),
                (512, 60_000),
            ]
        );
        // SRTT was cleared at backoff 16: 95 ms start a new estimate (RTO
        // 270 ms) instead of being smoothed into the 1-tick one.
        e.sample(0, 95 * MS);
        assert_eq!((e.backoff(), e.rto()), (1, 270 * MS));
        let mut kept = ns2(0);
        kept.sample(0, 3 * MS);
        for _ in 0..3 {
            kept.on_timeout(); // backoff 8: SRTT kept
        }
        kept.sample(0, 95 * MS);
        // delta 9 − 1 = 8: SRTT 16/8; 8 − ⌊2/4⌋ = 8: RTTVAR 10/4;
        // ⌊(80 + 16) / 8⌋ = 12 ticks, below min_rto.
        assert_eq!((kept.backoff(), kept.rto()), (1, 200 * MS));
    }
}
