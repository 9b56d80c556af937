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
//! - Loss recovery is Reno's with the default halving (ns-2's Vegas agent
//!   also keeps Reno-style recovery); the paper's finer-grained timeout
//!   checks are not modelled.

use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::SimTime;

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
}

impl Vegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
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
        }
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
        self.round_end = None;
        self.grow_this_round = true;
    }

    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        st.cwnd = 1.0;
        self.round_end = None;
        self.grow_this_round = true;
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
