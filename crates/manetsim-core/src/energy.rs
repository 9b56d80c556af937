//! A linear battery per node (`[energy]`), as ns-2's `EnergyModel` charges it.
//!
//! Each radio state draws constant power for its airtime: transmitting for
//! the duration of every frame the node sends; receiving for every frame it
//! hears above the carrier-sense threshold (overlapping receptions are
//! charged once); idle for the rest of the time. (`sleep_w` is accepted for
//! ns-2 compatibility; manetsim has no sleep scheduling yet, so nodes are
//! never asleep and it draws nothing.) A node whose battery reaches 0 J
//! stops transmitting and receiving for the rest of the run.

use crate::engine::{to_secs, SimTime};
use crate::scenario;

#[derive(Debug, Clone)]
pub struct Battery {
    initial_j: f64,
    tx_w: f64,
    rx_w: f64,
    idle_w: f64,
    tx_ns: SimTime,
    rx_ns: SimTime,
    /// End of the latest reception charged, so overlaps are charged once.
    rx_until: SimTime,
    tx_j: f64,
    rx_j: f64,
    /// When the battery ran out.
    pub depleted_at: Option<SimTime>,
}

impl Battery {
    pub fn new(e: &scenario::Energy) -> Self {
        Self {
            initial_j: e.initial_j,
            tx_w: e.tx_w,
            rx_w: e.rx_w,
            idle_w: e.idle_w,
            tx_ns: 0,
            rx_ns: 0,
            rx_until: 0,
            tx_j: 0.0,
            rx_j: 0.0,
            depleted_at: None,
        }
    }

    fn idle_j(&self, now: SimTime) -> f64 {
        let busy = self.tx_ns + self.rx_ns;
        self.idle_w * to_secs(now.saturating_sub(busy))
    }

    /// Energy consumed up to `now` (frozen once depleted).
    pub fn consumed_j(&self, now: SimTime) -> f64 {
        let now = self.depleted_at.map_or(now, |d| d.min(now));
        (self.tx_j + self.rx_j + self.idle_j(now)).min(self.initial_j)
    }

    pub fn remaining_j(&self, now: SimTime) -> f64 {
        self.initial_j - self.consumed_j(now)
    }

    pub fn is_depleted(&self) -> bool {
        self.depleted_at.is_some()
    }

    /// Charges a transmission of `airtime` starting now; returns true if this
    /// empties the battery.
    pub fn charge_tx(&mut self, now: SimTime, airtime: SimTime) -> bool {
        self.tx_ns += airtime;
        self.tx_j += self.tx_w * to_secs(airtime);
        self.check(now)
    }

    /// Charges a reception over [start, end); returns true if this empties
    /// the battery.
    pub fn charge_rx(&mut self, start: SimTime, end: SimTime) -> bool {
        let from = start.max(self.rx_until);
        if end > from {
            self.rx_ns += end - from;
            self.rx_j += self.rx_w * to_secs(end - from);
            self.rx_until = end;
        }
        self.check(start)
    }

    /// When the battery will run out if the node stays idle from `now`.
    pub fn idle_depletion_time(&self, now: SimTime) -> Option<SimTime> {
        if self.is_depleted() || self.idle_w <= 0.0 {
            return None;
        }
        let left = self.remaining_j(now).max(0.0);
        Some(now + crate::engine::from_secs(left / self.idle_w).max(1))
    }

    /// Marks the battery empty if it is; returns true the first time.
    pub fn check(&mut self, now: SimTime) -> bool {
        if self.depleted_at.is_none() && self.tx_j + self.rx_j + self.idle_j(now) >= self.initial_j
        {
            self.depleted_at = Some(now);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    fn battery(initial_j: f64, idle_w: f64) -> Battery {
        Battery::new(&scenario::Energy {
            initial_j,
            tx_w: 0.6,
            rx_w: 0.3,
            idle_w,
            sleep_w: 0.0,
        })
    }

    #[test]
    fn each_state_is_charged_for_its_airtime() {
        let mut b = battery(100.0, 0.1);
        b.charge_tx(0, 2 * NS_PER_S);
        b.charge_rx(3 * NS_PER_S, 4 * NS_PER_S);
        // tx 1.2 J + rx 0.3 J + idle 0.1 W × (10 − 3) s = 2.2 J.
        assert!((b.consumed_j(10 * NS_PER_S) - 2.2).abs() < 1e-9);
        assert!((b.remaining_j(10 * NS_PER_S) - 97.8).abs() < 1e-9);
    }

    #[test]
    fn overlapping_receptions_are_charged_once() {
        let mut b = battery(100.0, 0.0);
        b.charge_rx(0, 2 * NS_PER_S);
        b.charge_rx(NS_PER_S, 3 * NS_PER_S);
        assert!((b.consumed_j(5 * NS_PER_S) - 0.9).abs() < 1e-9);
    }

    #[test]
    fn depletion_is_reported_once_and_freezes_consumption() {
        let mut b = battery(1.0, 0.0);
        assert!(!b.charge_tx(0, NS_PER_S));
        assert!(b.charge_tx(NS_PER_S, NS_PER_S));
        assert!(!b.charge_tx(2 * NS_PER_S, NS_PER_S));
        assert_eq!(b.depleted_at, Some(NS_PER_S));
        assert_eq!(b.consumed_j(100 * NS_PER_S), 1.0);
    }

    #[test]
    fn idle_drain_predicts_depletion() {
        let b = battery(1.0, 0.5);
        assert_eq!(b.idle_depletion_time(0), Some(2 * NS_PER_S));
    }
}
