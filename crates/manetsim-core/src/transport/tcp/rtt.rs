//! Retransmission timeout (RFC 6298) with Karn's algorithm and exponential
//! backoff.
//!
//! The caller feeds only Karn-valid samples (segments never retransmitted;
//! RFC 6298 section 3, Karn & Partridge). A timeout doubles the RTO up to
//! `max_backoff` times its base (RFC 6298 (5.5)); the backoff is kept until a
//! valid sample arrives, which recomputes the RTO (section 5, note after
//! (5.7)).

use crate::engine::SimTime;

/// RFC 6298 estimator state.
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
        }
    }

    /// A Karn-valid RTT measurement (RFC 6298 (2.2) and (2.3)).
    pub fn sample(&mut self, r: SimTime) {
        let r = r as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let rto = srtt + (self.tick as f64).max(4.0 * self.rttvar);
        self.base_rto = (rto.round() as SimTime).clamp(self.min_rto, self.max_rto);
        self.backoff = 1;
    }

    /// The retransmission timer fired: double (RFC 6298 (5.5)).
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff * 2).min(self.max_backoff);
    }

    /// The current RTO, backoff included.
    pub fn rto(&self) -> SimTime {
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
        e.sample(100 * NS_PER_MS);
        assert_eq!(e.srtt(), Some(100 * NS_PER_MS));
        // 100 ms + 4 × 50 ms
        assert_eq!(e.rto(), 300 * NS_PER_MS);
    }

    #[test]
    fn min_rto_clamps() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(10 * NS_PER_MS);
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
        e.sample(100 * NS_PER_MS);
        assert_eq!(e.backoff(), 1);
        assert_eq!(e.rto(), 300 * NS_PER_MS);
    }
}
