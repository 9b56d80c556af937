//! TCP Veno (Fu & Liew, IEEE JSAC 2003), as summarised in seed 001
//! (Fig. 1–3).
//!
//! Backlog `N = (cwnd/BaseRTT − cwnd/RTT) × BaseRTT` (seed 001 Fig. 1) with
//! BaseRTT the minimum RTT sample and RTT the smoothed RTT (the RTO
//! estimator's SRTT; the last sample before the first SRTT exists).
//!
//! Interpretations:
//! - Fig. 2 (additive increase, cwnd ≥ ssthresh): `N < β` → +1 segment per
//!   RTT (1/cwnd per ACK); otherwise +1 every two RTTs (1/(2·cwnd) per ACK).
//!   Below ssthresh: ordinary slow start.
//! - Fig. 3 (multiplicative decrease on three duplicate ACKs): the figure
//!   reads `if (N > β) cwnd/2 else cwnd/0.8`. Dividing by 0.8 would *grow*
//!   the window, so we read it as Veno's published rule `cwnd × 4/5`
//!   (ssthresh = cwnd × 0.8) for a random loss. The text and the Veno paper
//!   call a loss congestive when N ≥ β ("if N < β random, else congestive"),
//!   so the halving applies for `N ≥ β` (the figure's strict `>` differs
//!   only at N = β exactly). Both use cwnd, as the figure does; minimum 2.
//! - Without an RTT sample N is taken as 0 (random loss).
//! - An RTO sets ssthresh = max(FlightSize/2, 2), cwnd = 1 (as Reno).
//! - Recovery procedure: Reno (Veno modifies Reno).

use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

#[derive(Debug, Clone)]
pub struct Veno {
    pub beta: f64,
}

impl Veno {
    pub fn new(beta: f64) -> Self {
        Self { beta }
    }
}

/// Veno / Vegas backlog N in segments, if RTTs are known.
pub fn backlog(st: &CcState) -> Option<f64> {
    let base = st.min_rtt? as f64;
    let rtt = st.srtt.or(st.last_rtt)? as f64;
    if rtt <= 0.0 || base <= 0.0 {
        return None;
    }
    Some(((st.cwnd / base - st.cwnd / rtt) * base).max(0.0))
}

impl CongestionControl for Veno {
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }

    fn on_ack(&mut self, st: &mut CcState, _ev: &AckEvent) {
        if !st.in_ca() {
            st.cwnd += 1.0;
        } else if backlog(st).unwrap_or(0.0) < self.beta {
            st.cwnd += 1.0 / st.cwnd;
        } else {
            st.cwnd += 0.5 / st.cwnd;
        }
        st.clamp();
    }

    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        let n = backlog(st).unwrap_or(0.0);
        st.ssthresh = if n < self.beta {
            st.cwnd * 0.8
        } else {
            st.cwnd / 2.0
        }
        .max(2.0);
        st.cwnd = st.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::transport::tcp::cc::{test_ack, test_state};

    fn state(rtt_ms: u64) -> CcState {
        let mut st = test_state();
        st.cwnd = 10.0;
        st.min_rtt = Some(100 * NS_PER_MS);
        st.srtt = Some(rtt_ms * NS_PER_MS);
        st
    }

    #[test]
    fn backlog_follows_fig_1() {
        // N = 10 × (1 − 100/200) = 5
        assert!((backlog(&state(200)).unwrap() - 5.0).abs() < 1e-9);
        assert!((backlog(&state(100)).unwrap()).abs() < 1e-9);
    }

    #[test]
    fn halves_cwnd_only_when_n_reaches_beta() {
        let mut v = Veno::new(3.0);
        let mut st = state(200); // N = 5 ≥ 3: congestive
        v.on_loss(&mut st, 0);
        assert_eq!(st.cwnd, 5.0);
        assert_eq!(st.ssthresh, 5.0);
        let mut st = state(110); // N ≈ 0.9 < 3: random
        v.on_loss(&mut st, 0);
        assert_eq!(st.cwnd, 8.0);
        assert_eq!(st.ssthresh, 8.0);
        // Exactly N = β (10 × (1 − 100/(1000/7)) = 3): congestive.
        let mut st = state(0);
        st.srtt = Some(1000 * NS_PER_MS / 7);
        let n = backlog(&st).unwrap();
        assert!((n - 3.0).abs() < 1e-6, "{n}");
        st.srtt = Some(1000 * NS_PER_MS / 7 + 1);
        v.on_loss(&mut st, 0);
        assert_eq!(st.cwnd, 5.0);
    }

    #[test]
    fn increase_is_halved_when_backlogged() {
        let mut v = Veno::new(3.0);
        let mut st = state(110);
        v.on_ack(&mut st, &test_ack(0, 1000, None));
        assert!((st.cwnd - 10.1).abs() < 1e-9);
        let mut st = state(200);
        v.on_ack(&mut st, &test_ack(0, 1000, None));
        assert!((st.cwnd - 10.05).abs() < 1e-9);
    }
}
