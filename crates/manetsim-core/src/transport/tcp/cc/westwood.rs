//! TCP Westwood+ (Mascolo, Grieco et al., "Performance evaluation and
//! comparison of Westwood+, New Reno, and Vegas TCP congestion control",
//! CCR 2004).
//!
//! - The bandwidth estimate (BWE) is sampled once per RTT, as Westwood+
//!   does (not per ACK as the original Westwood): bytes acknowledged during
//!   the last RTT divided by its duration, then smoothed with the EWMA
//!   `BWE ← 0.9·BWE + 0.1·sample`. Duplicate ACKs count one segment each as
//!   delivered; partial ACKs count their bytes.
//! - On three duplicate ACKs: ssthresh = max(BWE × RTTmin / MSS, 2) and
//!   cwnd = min(cwnd, ssthresh). After an RTO: the same ssthresh, cwnd = 1.
//! - Increase as Reno; recovery procedure NewReno.

use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

#[derive(Debug, Clone, Default)]
pub struct Westwood {
    /// Bytes per second.
    bwe: f64,
    acked_in_round: u64,
    round_start: Option<SimTime>,
}

impl Westwood {
    /// The bandwidth estimate, bytes per second.
    pub fn bwe(&self) -> f64 {
        self.bwe
    }

    fn count(&mut self, st: &CcState, now: SimTime, bytes: u64) {
        self.acked_in_round += bytes;
        let start = *self.round_start.get_or_insert(now);
        let round = st.srtt.or(st.last_rtt);
        if let Some(rtt) = round {
            let elapsed = now.saturating_sub(start);
            if elapsed >= rtt && elapsed > 0 {
                let sample = self.acked_in_round as f64 / (elapsed as f64 / 1e9);
                self.bwe = if self.bwe == 0.0 {
                    sample
                } else {
                    0.9 * self.bwe + 0.1 * sample
                };
                self.acked_in_round = 0;
                self.round_start = Some(now);
            }
        }
    }

    fn ssthresh(&self, st: &CcState) -> Option<f64> {
        let min_rtt = st.min_rtt?;
        if self.bwe <= 0.0 {
            return None;
        }
        Some((self.bwe * (min_rtt as f64 / 1e9) / st.mss as f64).max(2.0))
    }
}

impl CongestionControl for Westwood {
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.count(st, ev.now, ev.acked_bytes);
        st.reno_increase();
    }

    fn on_partial_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.count(st, ev.now, ev.acked_bytes);
    }

    fn on_dup_ack(&mut self, st: &mut CcState, now: SimTime) {
        let mss = st.mss as u64;
        self.count(st, now, mss);
    }

    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        match self.ssthresh(st) {
            Some(s) => {
                st.ssthresh = s;
                st.cwnd = st.cwnd.min(s);
            }
            None => {
                st.ssthresh = st.loss_ssthresh();
                st.cwnd = st.loss_cwnd();
            }
        }
    }

    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = self.ssthresh(st).unwrap_or_else(|| st.loss_ssthresh());
        st.cwnd = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::transport::tcp::cc::{test_ack, test_state};

    #[test]
    fn ssthresh_after_loss_is_bwe_times_min_rtt() {
        let mut w = Westwood::default();
        let mut st = test_state();
        st.cwnd = 20.0;
        st.srtt = Some(100 * NS_PER_MS);
        st.min_rtt = Some(50 * NS_PER_MS);
        // 10 ACKs of 1000 bytes every 10 ms: 100 kB/s.
        for i in 0..=40u64 {
            w.on_ack(&mut st, &test_ack(i * 10 * NS_PER_MS, i * 1000, None));
        }
        // The first round counts the ACK at its start: 110 kB/s, then 100.
        assert!((100_000.0..111_000.0).contains(&w.bwe()), "bwe {}", w.bwe());
        st.cwnd = 20.0;
        w.on_loss(&mut st, 0);
        // ≈ 100 kB/s × 50 ms / 1000 B ≈ 5 segments.
        let expect = w.bwe() * 0.05 / 1000.0;
        assert!((st.ssthresh - expect).abs() < 1e-9, "{}", st.ssthresh);
        assert!((5.0..5.6).contains(&st.ssthresh));
        assert_eq!(st.cwnd, st.ssthresh);
        w.on_rto(&mut st, 0);
        assert!((st.ssthresh - expect).abs() < 1e-9);
        assert_eq!(st.cwnd, 1.0);
    }

    #[test]
    fn without_an_estimate_falls_back_to_half_flight() {
        let mut w = Westwood::default();
        let mut st = test_state();
        w.on_loss(&mut st, 0);
        assert_eq!(st.ssthresh, 5.0);
    }
}
