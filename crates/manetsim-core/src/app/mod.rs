//! Traffic sources. Today: constant bit rate (CBR), as ns-2's
//! `Application/Traffic/CBR` with `random_ 0`: one packet every
//! `packet_size × 8 / rate` seconds from `start_s` until `stop_s` (exclusive).

use crate::engine::{from_secs, SimTime};
use crate::net::NodeId;

use crate::scenario::{DEFAULT_CBR_RATE_BPS, MAX_DURATION_S};

#[derive(Debug, Clone)]
pub struct Cbr {
    pub src: NodeId,
    pub dst: NodeId,
    pub payload_bytes: u32,
    pub interval_ns: SimTime,
    pub start_ns: SimTime,
    pub stop_ns: SimTime,
    pub next_seq: u64,
}

impl Cbr {
    /// The interval from `rate_bps` or `interval_s` (validated: not both).
    pub fn interval_ns(
        payload_bytes: u32,
        rate_bps: Option<f64>,
        interval_s: Option<f64>,
    ) -> SimTime {
        let s = match (interval_s, rate_bps) {
            (Some(i), _) => i,
            (None, Some(r)) => payload_bytes as f64 * 8.0 / r,
            (None, None) => payload_bytes as f64 * 8.0 / DEFAULT_CBR_RATE_BPS,
        };
        // Longer than the longest run is never again (and leaves room to
        // add it to any time of a run).
        from_secs(s).clamp(1, from_secs(MAX_DURATION_S))
    }

    /// The time of the packet after one sent at `now`, if before `stop`.
    pub fn next_after(&self, now: SimTime) -> Option<SimTime> {
        let t = now + self.interval_ns;
        (t < self.stop_ns).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_from_rate_or_interval() {
        assert_eq!(Cbr::interval_ns(512, Some(100_000.0), None), 40_960_000);
        assert_eq!(Cbr::interval_ns(512, None, Some(0.25)), 250_000_000);
        assert_eq!(Cbr::interval_ns(210, None, None), 3_750_000);
    }

    #[test]
    fn a_rate_too_low_for_the_clock_means_never_again() {
        let never = Cbr::interval_ns(512, Some(1e-300), None);
        assert_eq!(never, 1_000_000_000_000_000_000);
        let cbr = Cbr {
            src: 0,
            dst: 1,
            payload_bytes: 512,
            interval_ns: never,
            start_ns: 0,
            stop_ns: 60_000_000_000,
            next_seq: 0,
        };
        assert_eq!(cbr.next_after(1_000_000_000), None);
    }
}
