//! TCP with Adaptive Pacing, TCP-AP (ElRakabawy, Klemm & Lindemann,
//! MobiHoc 2005).
//!
//! The sender keeps NewReno's window and recovery and, in addition, spaces
//! its data segments so that a segment leaves only when the previous one is
//! out of interference range, i.e. about four hops further on:
//!
//! - **4-hop propagation delay (FHD).** Each Karn-valid RTT sample gives a
//!   sample `t = RTT/2 × min(h, 4)/h` for a path of `h` hops (the hop count
//!   comes across layers from [`crate::transport::tcp::TcpSender::set_path_hops`]),
//!   smoothed by the EWMA `FHD ← α·FHD + (1 − α)·t`, α = 0.7.
//! - **Contention.** The coefficient of variation `cov = σ/μ` of the last
//!   N = 50 RTT samples (sample standard deviation).
//! - **Rate.** `R = 1 / (FHD × (1 + 2·cov))`: the gap between two data
//!   segments is `FHD × (1 + 2·cov)`.
//!
//! Interpretations:
//! - The paper measures the 4-hop delay on the forward path; a sender sees
//!   only RTTs, so we take the one-way delay as RTT/2 (data and ACK hops
//!   weighted alike) and scale it to four of the `h` hops. For `h ≤ 4` the
//!   whole path is one interference region and the gap is the one-way delay.
//! - Before the hop count is known it is assumed ≤ 4 (gap = RTT/2 smoothed).
//! - Before the first RTT sample there is no pacing (the window alone
//!   limits the first flight).
//! - Pacing applies to every data segment, new or retransmitted.
//!
//! A consequence of the formula, not of the interpretations: a few very long
//! samples (segments held for seconds while a route is repaired) raise both
//! the FHD and the coefficient of variation, so the gap grows to seconds;
//! samples then come one per gap, and the 50-sample history keeps the
//! outliers for 50 of them. Over the OLSR chain of `tests/integration/olsr.rs`, where
//! such outages happen, one 60 s run gets anywhere from 34 to 145 kbit/s.
//! (An ACK that fills a hole is not such a sample: the sender takes none
//! from an ACK covering retransmitted data.)

use std::collections::VecDeque;

use super::{CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

#[derive(Debug, Clone)]
pub struct TcpAp {
    pub history: usize,
    pub alpha: f64,
    rtts: VecDeque<f64>,
    fhd: Option<f64>,
}

impl TcpAp {
    pub fn new(history: u32, alpha: f64) -> Self {
        Self {
            history: history.max(1) as usize,
            alpha,
            rtts: VecDeque::new(),
            fhd: None,
        }
    }

    /// Smoothed 4-hop propagation delay, ns.
    pub fn fhd(&self) -> Option<f64> {
        self.fhd
    }

    /// Coefficient of variation of the RTT history.
    pub fn cov(&self) -> f64 {
        let n = self.rtts.len();
        if n < 2 {
            return 0.0;
        }
        let mean = self.rtts.iter().sum::<f64>() / n as f64;
        if mean <= 0.0 {
            return 0.0;
        }
        let var = self.rtts.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        var.sqrt() / mean
    }
}

impl CongestionControl for TcpAp {
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, _now: SimTime, rtt: SimTime) {
        let rtt = rtt as f64;
        if self.rtts.len() == self.history {
            self.rtts.pop_front();
        }
        self.rtts.push_back(rtt);
        let h = st.path_hops.unwrap_or(1).max(1) as f64;
        let sample = rtt / 2.0 * h.min(4.0) / h;
        self.fhd = Some(match self.fhd {
            None => sample,
            Some(old) => self.alpha * old + (1.0 - self.alpha) * sample,
        });
    }

    fn pacing_interval(&self, _st: &CcState) -> Option<SimTime> {
        self.fhd
            .map(|f| (f * (1.0 + 2.0 * self.cov())).round() as SimTime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::transport::tcp::cc::test_state;

    #[test]
    fn constant_rtt_paces_at_the_scaled_one_way_delay() {
        let mut ap = TcpAp::new(50, 0.7);
        let mut st = test_state();
        st.path_hops = Some(8);
        assert_eq!(ap.pacing_interval(&st), None);
        for _ in 0..10 {
            ap.on_rtt_sample(&mut st, 0, 160 * NS_PER_MS);
        }
        // 160/2 × 4/8 = 40 ms, cov 0.
        assert_eq!(ap.pacing_interval(&st), Some(40 * NS_PER_MS));
    }

    #[test]
    fn ewma_weight_and_cov_widen_the_gap() {
        let mut ap = TcpAp::new(50, 0.7);
        let mut st = test_state();
        st.path_hops = Some(2);
        ap.on_rtt_sample(&mut st, 0, 100 * NS_PER_MS); // FHD 50
        ap.on_rtt_sample(&mut st, 0, 200 * NS_PER_MS); // 0.7×50 + 0.3×100 = 65
        assert!((ap.fhd().unwrap() - 65.0 * NS_PER_MS as f64).abs() < 1.0);
        // cov of {100, 200}: σ = 70.71, μ = 150 → 0.4714
        let cov = ap.cov();
        assert!((cov - 0.471_404_5).abs() < 1e-6, "{cov}");
        let gap = ap.pacing_interval(&st).unwrap() as f64;
        assert!((gap - 65e6 * (1.0 + 2.0 * cov)).abs() < 2.0);
    }

    #[test]
    fn history_keeps_the_last_n_samples() {
        let mut ap = TcpAp::new(3, 0.7);
        let mut st = test_state();
        for r in [1000, 1, 1, 1] {
            ap.on_rtt_sample(&mut st, 0, r * NS_PER_MS);
        }
        assert_eq!(ap.cov(), 0.0);
    }
}
