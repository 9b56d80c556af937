//! Rate control (`[mac] rate_control`): which rate a unicast data frame
//! goes at (Minstrel in [`super::Minstrel`]).
//!
//! - `constant` (the default): every one at `data_rate_bps`, as ns-2.35 and
//!   ns-3's `ConstantRateWifiManager` send them.
//! - `arf`: Auto Rate Fallback (Kamerman and Monteban, "WaveLAN-II: a
//!   high-performance wireless LAN for the unlicensed band", Bell Labs
//!   Technical Journal, 1997), kept for each neighbour apart. A neighbour
//!   starts at the standard's lowest rate. After 10 acknowledged frames in
//!   a row, or 15 frames since its rate last changed, the next frame tries
//!   the next rate up (up to `data_rate_bps`); if that first frame is not
//!   acknowledged the rate falls back at once, and otherwise two frames in
//!   a row unacknowledged take it one rate down. Frames that go at the
//!   basic rate (RTS, CTS, ACK, broadcast) are not adapted, and an RTS
//!   without its CTS is not counted.
//! - `aarf`: Adaptive ARF (Lacage, Manshaei and Turletti, "IEEE 802.11 rate
//!   adaptation: a practical approach", MSWiM 2004): as ARF, but a probe
//!   that fails doubles the acknowledged frames in a row that the next one
//!   needs (10, 20, 40, at most 50), and a step down after two failures
//!   sets them back to 10; the count of frames since the last change that
//!   also lets a probe go grows with it, 1.5 times as large (15 to 75), so
//!   that it cannot probe sooner than the paper's threshold.

use super::Minstrel;
use crate::engine::SimTime;
use crate::net::NodeId;

/// The rate control of a MAC that adapts its rate.
#[derive(Debug, Clone)]
pub enum RateControl {
    /// ARF or AARF.
    Arf(Arf),
    /// Minstrel.
    Minstrel(Minstrel),
}

impl RateControl {
    /// The rate of the next try of a data frame to `peer`.
    #[inline]
    pub fn rate_bps(&self, peer: NodeId) -> u64 {
        match self {
            Self::Arf(a) => a.rate_bps(peer),
            Self::Minstrel(m) => m.rate_bps(peer),
        }
    }

    /// A try of a data frame to `peer` was acknowledged.
    pub fn acknowledged(&mut self, peer: NodeId, now: SimTime) {
        match self {
            Self::Arf(a) => a.acknowledged(peer),
            Self::Minstrel(m) => m.acknowledged(peer, now),
        }
    }

    /// A try of a data frame to `peer` got no ACK.
    pub fn unacknowledged(&mut self, peer: NodeId, now: SimTime) {
        match self {
            Self::Arf(a) => a.unacknowledged(peer),
            Self::Minstrel(m) => m.unacknowledged(peer, now),
        }
    }

    /// Whether that frame may be tried again: `None` leaves it to the
    /// MAC's retry limit (ARF), Minstrel's retry chain decides.
    pub fn may_retry(&self, peer: NodeId) -> Option<bool> {
        match self {
            Self::Arf(_) => None,
            Self::Minstrel(m) => Some(m.may_retry(peer)),
        }
    }

    /// The data frame to `peer` was given up after its last try.
    pub fn gave_up(&mut self, peer: NodeId, now: SimTime) {
        if let Self::Minstrel(m) = self {
            m.gave_up(peer, now);
        }
    }

    /// The frame to `peer` was given up, its RTS unanswered.
    pub fn rts_gave_up(&mut self, peer: NodeId) {
        if let Self::Minstrel(m) = self {
            m.rts_gave_up(peer);
        }
    }
}

/// Acknowledged frames in a row after which ARF tries the next rate up.
pub const ARF_SUCCESS_THRESHOLD: u32 = 10;
/// Frames since the last change after which ARF tries the next rate up.
pub const ARF_TIMER_THRESHOLD: u32 = 15;
/// Unacknowledged frames in a row that take ARF one rate down.
pub const ARF_FAILURE_THRESHOLD: u32 = 2;
/// AARF's largest success threshold.
pub const AARF_MAX_SUCCESS_THRESHOLD: u32 = 50;

/// ARF's state for one neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Station {
    peer: NodeId,
    /// Index into the rates.
    index: u8,
    successes: u32,
    failures: u32,
    /// Frames since the rate last changed.
    since_change: u32,
    /// The rate has just gone up: the next frame probes it.
    probing: bool,
    /// Acknowledged frames in a row, and frames since the last change,
    /// after which the next frame probes the next rate up.
    success_threshold: u32,
    timer_threshold: u32,
}

/// Auto Rate Fallback over `rates` (ascending), for each neighbour, or
/// its adaptive variant AARF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arf {
    rates: Vec<u64>,
    stations: Vec<Station>,
    adaptive: bool,
}

impl Arf {
    /// ARF over `rates`, which must be ascending and not empty.
    pub fn new(rates: Vec<u64>) -> Self {
        assert!(!rates.is_empty() && rates.windows(2).all(|w| w[0] < w[1]));
        Self {
            rates,
            stations: Vec::new(),
            adaptive: false,
        }
    }

    /// AARF over `rates`.
    pub fn adaptive(rates: Vec<u64>) -> Self {
        Self {
            adaptive: true,
            ..Self::new(rates)
        }
    }

    /// The rate the next data frame to `peer` goes at.
    pub fn rate_bps(&self, peer: NodeId) -> u64 {
        let index = self
            .stations
            .iter()
            .find(|s| s.peer == peer)
            .map_or(0, |s| s.index);
        self.rates[usize::from(index)]
    }

    fn station(&mut self, peer: NodeId) -> &mut Station {
        let at = match self.stations.iter().position(|s| s.peer == peer) {
            Some(at) => at,
            None => {
                self.stations.push(Station {
                    peer,
                    index: 0,
                    successes: 0,
                    failures: 0,
                    since_change: 0,
                    probing: false,
                    success_threshold: ARF_SUCCESS_THRESHOLD,
                    timer_threshold: ARF_TIMER_THRESHOLD,
                });
                self.stations.len() - 1
            }
        };
        &mut self.stations[at]
    }

    /// A data frame to `peer` was acknowledged.
    pub fn acknowledged(&mut self, peer: NodeId) {
        let top = (self.rates.len() - 1) as u8;
        let s = self.station(peer);
        s.successes += 1;
        s.failures = 0;
        s.since_change += 1;
        s.probing = false;
        if (s.successes >= s.success_threshold || s.since_change >= s.timer_threshold)
            && s.index < top
        {
            s.index += 1;
            s.successes = 0;
            s.since_change = 0;
            s.probing = true;
        }
    }

    /// A data frame to `peer` got no ACK in time.
    pub fn unacknowledged(&mut self, peer: NodeId) {
        let adaptive = self.adaptive;
        let s = self.station(peer);
        s.successes = 0;
        s.failures += 1;
        s.since_change += 1;
        if s.probing || s.failures >= ARF_FAILURE_THRESHOLD {
            if adaptive {
                s.success_threshold = if s.probing {
                    (2 * s.success_threshold).min(AARF_MAX_SUCCESS_THRESHOLD)
                } else {
                    ARF_SUCCESS_THRESHOLD
                };
                s.timer_threshold = s.success_threshold * 3 / 2;
            }
            s.index = s.index.saturating_sub(1);
            s.failures = 0;
            s.since_change = 0;
            s.probing = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATES: [u64; 4] = [6_000_000, 12_000_000, 24_000_000, 54_000_000];

    fn arf() -> Arf {
        Arf::new(RATES.to_vec())
    }

    #[test]
    fn ten_acks_in_a_row_try_the_next_rate() {
        let mut a = arf();
        assert_eq!(a.rate_bps(3), 6_000_000);
        for _ in 0..9 {
            a.acknowledged(3);
        }
        assert_eq!(a.rate_bps(3), 6_000_000);
        a.acknowledged(3);
        assert_eq!(a.rate_bps(3), 12_000_000);
        // Each neighbour has its own.
        assert_eq!(a.rate_bps(4), 6_000_000);
    }

    #[test]
    fn a_failed_probe_falls_back_at_once() {
        let mut a = arf();
        for _ in 0..10 {
            a.acknowledged(1);
        }
        assert_eq!(a.rate_bps(1), 12_000_000);
        a.unacknowledged(1);
        assert_eq!(a.rate_bps(1), 6_000_000);
    }

    #[test]
    fn two_failures_in_a_row_step_down_and_one_does_not() {
        let mut a = arf();
        for _ in 0..20 {
            a.acknowledged(1);
        }
        assert_eq!(a.rate_bps(1), 24_000_000);
        a.acknowledged(1); // the probe at 24 Mb/s went through
        a.unacknowledged(1);
        assert_eq!(a.rate_bps(1), 24_000_000);
        a.acknowledged(1);
        a.unacknowledged(1);
        assert_eq!(a.rate_bps(1), 24_000_000, "the ACK between reset the count");
        a.unacknowledged(1);
        assert_eq!(a.rate_bps(1), 12_000_000);
        // At the lowest rate failures change nothing.
        for _ in 0..6 {
            a.unacknowledged(1);
        }
        assert_eq!(a.rate_bps(1), 6_000_000);
    }

    #[test]
    fn fifteen_frames_since_a_change_try_the_next_rate_despite_failures() {
        let mut a = arf();
        for _ in 0..10 {
            a.acknowledged(1);
        }
        a.acknowledged(1); // the probe at 12 Mb/s went through: 1 since
                           // 13 more, one failure among every few successes: 14 since.
        for i in 0..13 {
            if i % 4 == 3 {
                a.unacknowledged(1);
            } else {
                a.acknowledged(1);
            }
        }
        assert_eq!(a.rate_bps(1), 12_000_000);
        a.acknowledged(1); // the 15th since the change
        assert_eq!(a.rate_bps(1), 24_000_000);
    }

    #[test]
    fn aarf_waits_longer_after_each_failed_probe_and_resets_on_a_step_down() {
        let mut a = Arf::adaptive(RATES.to_vec());
        let climb = |a: &mut Arf, n: u32| {
            for _ in 0..n {
                a.acknowledged(1);
            }
        };
        climb(&mut a, 10);
        assert_eq!(a.rate_bps(1), 12_000_000);
        a.unacknowledged(1); // the probe fails: back, and 20 needed now
        assert_eq!(a.rate_bps(1), 6_000_000);
        climb(&mut a, 19);
        assert_eq!(a.rate_bps(1), 6_000_000);
        climb(&mut a, 1);
        assert_eq!(a.rate_bps(1), 12_000_000);
        a.unacknowledged(1); // fails again: 40
        climb(&mut a, 39);
        assert_eq!(a.rate_bps(1), 6_000_000);
        climb(&mut a, 1);
        a.unacknowledged(1); // and again: 50 at most
        climb(&mut a, 49);
        assert_eq!(a.rate_bps(1), 6_000_000);
        climb(&mut a, 1);
        assert_eq!(a.rate_bps(1), 12_000_000);
        // The probe holds; two failures later the rate steps down and the
        // threshold is 10 again.
        climb(&mut a, 1);
        a.unacknowledged(1);
        a.unacknowledged(1);
        assert_eq!(a.rate_bps(1), 6_000_000);
        climb(&mut a, 10);
        assert_eq!(a.rate_bps(1), 12_000_000);
        // ARF itself keeps 10 after a failed probe.
        let mut plain = arf();
        climb(&mut plain, 10);
        plain.unacknowledged(1);
        climb(&mut plain, 10);
        assert_eq!(plain.rate_bps(1), 12_000_000);
    }

    #[test]
    fn the_top_rate_is_kept() {
        let mut a = Arf::new(vec![1_000_000, 2_000_000]);
        for _ in 0..50 {
            a.acknowledged(9);
        }
        assert_eq!(a.rate_bps(9), 2_000_000);
    }
}
