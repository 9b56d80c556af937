//! TCP-New Veno (seed 001: Fig. 9 additive increase, Fig. 10 multiplicative
//! decrease, equations (1)–(2) for Dq and ΔDq).
//!
//! `Dq_n = (R_n − R_{n−1}) − (S_n − S_{n−1})` where `R_n` is when the n-th
//! new ACK arrived and `S_n` when the segment it acknowledges was sent;
//! `ΔDq_n = Dq_n − Dq_{n−1}`. N is Veno's backlog ([`super::veno::backlog`])
//! against β = 3.
//!
//! Interpretations (everything the paper leaves open):
//! 1. **Which segment an ACK measures.** `S_n` is the send time of the
//!    highest segment the ACK covers (with delayed ACKs, the second of the
//!    pair). An ACK that covers a retransmitted segment has no unambiguous
//!    send time (Karn), so it yields no Dq and restarts the pair.
//! 2. **Per-RTT increments.** Fig. 9's `cwnd + 1`, `+ 1/2`, `+ 1/4`, `+ 0`
//!    are per RTT, as the text says ("by one after each round-trip time");
//!    they are applied per ACK as `k/cwnd` with the Dq and ΔDq of that ACK.
//! 3. **Slow start.** Fig. 9 has no ssthresh test; like Veno's Fig. 2 we
//!    apply it only when cwnd ≥ ssthresh, and slow start below is Reno's.
//! 4. **Dq = 0.** Times are integer nanoseconds, so an exactly equal
//!    spacing is rare; a tolerance (`dq_tolerance`, default 0 = exact, as
//!    printed) treats |Dq| ≤ tolerance as 0 and |ΔDq| ≤ tolerance as 0.
//! 5. **Before two ACKs exist** Dq and ΔDq are taken as 0 (stable).
//! 6. **Fig. 10 when N < β.** The figure's only branch is N ≥ β; for N < β
//!    it says nothing. We read the whole "else" literally: unless N ≥ β and
//!    Dq > 0, the loss is not congestive and *all parameters are kept*
//!    (cwnd and ssthresh unchanged); the segment is still fast-retransmitted
//!    and the Reno recovery runs with the unchanged cwnd. (We do *not*
//!    inherit Veno's ×4/5 for N < β.)
//! 7. **Congestion loss** (N ≥ β and Dq > 0): ssthresh = cwnd/2 (minimum 2),
//!    cwnd = ssthresh, "like TCP-Reno".
//! 8. **RTO**: ssthresh = max(FlightSize/2, 2), cwnd = 1, as Reno; the Dq
//!    pair restarts.
//! 9. Recovery procedure: Reno (New Veno modifies Veno, which modifies Reno).

use super::veno::backlog;
use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

#[derive(Debug, Clone)]
pub struct NewVeno {
    pub beta: f64,
    /// |Dq| or |ΔDq| at or below this counts as 0 (ns).
    pub dq_tolerance: i64,
    last: Option<(SimTime, SimTime)>,
    dq: Option<i64>,
    ddq: Option<i64>,
}

impl Default for NewVeno {
    fn default() -> Self {
        Self {
            beta: 3.0,
            dq_tolerance: 0,
            last: None,
            dq: None,
            ddq: None,
        }
    }
}

/// The phase of Fig. 9 (for tests and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// N < β.
    NotBacklogged,
    /// N ≥ β, Dq < 0.
    HighlyAggressive,
    /// N ≥ β, Dq = 0.
    Aggressive,
    /// N ≥ β, Dq > 0.
    Conservative,
}

impl NewVeno {
    fn sign(&self, v: Option<i64>) -> i64 {
        match v {
            Some(x) if x > self.dq_tolerance => 1,
            Some(x) if x < -self.dq_tolerance => -1,
            _ => 0,
        }
    }

    /// Dq of the latest ACK, ns.
    pub fn dq(&self) -> Option<i64> {
        self.dq
    }

    /// ΔDq of the latest ACK, ns.
    pub fn delta_dq(&self) -> Option<i64> {
        self.ddq
    }

    /// Fig. 9's phase for the current state.
    pub fn phase(&self, st: &CcState) -> Phase {
        if backlog(st).unwrap_or(0.0) < self.beta {
            return Phase::NotBacklogged;
        }
        match self.sign(self.dq) {
            -1 => Phase::HighlyAggressive,
            0 => Phase::Aggressive,
            _ => Phase::Conservative,
        }
    }

    /// Fig. 9's increment per RTT, segments.
    pub fn increment_per_rtt(&self, st: &CcState) -> f64 {
        let ddq = self.sign(self.ddq);
        match self.phase(st) {
            Phase::NotBacklogged | Phase::HighlyAggressive => 1.0,
            Phase::Aggressive => {
                if ddq <= 0 {
                    1.0
                } else {
                    0.5
                }
            }
            Phase::Conservative => {
                if ddq <= 0 {
                    0.25
                } else {
                    0.0
                }
            }
        }
    }

    fn measure(&mut self, now: SimTime, sent_at: Option<SimTime>) {
        let Some(sent) = sent_at else {
            self.last = None;
            return;
        };
        if let Some((r0, s0)) = self.last {
            let dq = (now as i64 - r0 as i64) - (sent as i64 - s0 as i64);
            self.ddq = self.dq.map(|old| dq - old);
            self.dq = Some(dq);
        }
        self.last = Some((now, sent));
    }
}

impl CongestionControl for NewVeno {
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.measure(ev.now, ev.sent_at);
        if !st.in_ca() {
            st.cwnd += 1.0;
        } else {
            st.cwnd += self.increment_per_rtt(st) / st.cwnd;
        }
        st.clamp();
    }

    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        let congestive = backlog(st).unwrap_or(0.0) >= self.beta && self.sign(self.dq) > 0;
        if congestive {
            st.ssthresh = (st.cwnd / 2.0).max(2.0);
            st.cwnd = st.ssthresh;
        }
        // else: "keep all parameters" (interpretation 6).
    }

    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        st.cwnd = 1.0;
        self.last = None;
        self.dq = None;
        self.ddq = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    fn backlogged() -> CcState {
        let mut st = crate::transport::tcp::cc::test_state();
        st.cwnd = 10.0;
        st.ssthresh = 5.0;
        st.min_rtt = Some(100 * NS_PER_MS);
        st.srtt = Some(200 * NS_PER_MS); // N = 5 ≥ 3
        st
    }

    fn ack(nv: &mut NewVeno, st: &mut CcState, r_ms: u64, s_ms: u64) {
        let ev = AckEvent {
            now: r_ms * NS_PER_MS,
            acked_bytes: 1000,
            ack: 0,
            rtt: Some((r_ms - s_ms) * NS_PER_MS),
            sent_at: Some(s_ms * NS_PER_MS),
            snd_max: 0,
            snd_nxt: 0,
            app_limited: false,
        };
        nv.on_ack(st, &ev);
    }

    #[test]
    fn dq_and_delta_dq_follow_equations_1_and_2() {
        let mut nv = NewVeno::default();
        let mut st = backlogged();
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 112, 10); // Dq = 12 − 10 = 2 ms
        assert_eq!(nv.dq(), Some(2 * NS_PER_MS as i64));
        assert_eq!(nv.delta_dq(), None);
        ack(&mut nv, &mut st, 127, 20); // Dq = 15 − 10 = 5, ΔDq = 3
        assert_eq!(nv.dq(), Some(5 * NS_PER_MS as i64));
        assert_eq!(nv.delta_dq(), Some(3 * NS_PER_MS as i64));
    }

    #[test]
    fn holds_cwnd_when_dq_and_delta_dq_positive() {
        let mut nv = NewVeno::default();
        let mut st = backlogged();
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 112, 10);
        let before = st.cwnd;
        ack(&mut nv, &mut st, 127, 20); // Dq > 0, ΔDq > 0: conservative, hold
        assert_eq!(nv.phase(&st), Phase::Conservative);
        assert_eq!(st.cwnd, before);
    }

    #[test]
    fn fig_9_phases_set_the_increment() {
        let mut nv = NewVeno::default();
        let mut st = backlogged();
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 115, 10); // Dq = +5
        let before = st.cwnd;
        ack(&mut nv, &mut st, 128, 20); // Dq = +3, ΔDq = −2: +1/4 per RTT
        assert!((st.cwnd - (before + 0.25 / before)).abs() < 1e-12);
        let before = st.cwnd;
        ack(&mut nv, &mut st, 136, 30); // Dq = −2: highly aggressive, +1
        assert_eq!(nv.phase(&st), Phase::HighlyAggressive);
        assert!((st.cwnd - (before + 1.0 / before)).abs() < 1e-12);
        let before = st.cwnd;
        ack(&mut nv, &mut st, 146, 40); // Dq = 0, ΔDq = +2: aggressive, +1/2
        assert_eq!(nv.phase(&st), Phase::Aggressive);
        assert!((st.cwnd - (before + 0.5 / before)).abs() < 1e-12);
        let before = st.cwnd;
        ack(&mut nv, &mut st, 156, 50); // Dq = 0, ΔDq = 0: +1
        assert!((st.cwnd - (before + 1.0 / before)).abs() < 1e-12);
        // Not backlogged: +1 whatever Dq says.
        st.srtt = Some(100 * NS_PER_MS);
        assert_eq!(nv.phase(&st), Phase::NotBacklogged);
    }

    #[test]
    fn fig_10_halves_only_for_backlog_and_positive_dq() {
        let mut nv = NewVeno::default();
        let mut st = backlogged();
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 112, 10); // Dq > 0
        st.cwnd = 12.0;
        nv.on_loss(&mut st, 0);
        assert_eq!((st.cwnd, st.ssthresh), (6.0, 6.0));

        let mut nv = NewVeno::default();
        let mut st = backlogged();
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 108, 10); // Dq < 0: keep all parameters
        st.cwnd = 12.0;
        nv.on_loss(&mut st, 0);
        assert_eq!((st.cwnd, st.ssthresh), (12.0, 5.0));

        let mut nv = NewVeno::default();
        let mut st = backlogged();
        st.srtt = Some(100 * NS_PER_MS); // N = 0 < β
        ack(&mut nv, &mut st, 100, 0);
        ack(&mut nv, &mut st, 112, 10);
        st.cwnd = 12.0;
        nv.on_loss(&mut st, 0);
        assert_eq!((st.cwnd, st.ssthresh), (12.0, 5.0));
    }
}
