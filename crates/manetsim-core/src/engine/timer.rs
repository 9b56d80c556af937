//! Cancellable timers without scanning the queue.
//!
//! A protocol keeps one [`TimerSlot`] per logical timer. Arming returns a
//! generation number that travels inside the scheduled event; cancelling or
//! re-arming bumps the generation, so the old event, when popped, no longer
//! matches and is discarded in O(1).

use super::SimTime;

/// One logical timer: its deadline when armed, and its generation.
///
/// 16 bytes (an `Option<SimTime>` would take 24): the MAC's four fit in
/// one cache line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimerSlot {
    gen: u32,
    armed: bool,
    /// The deadline while armed, else 0.
    at: SimTime,
}

const _: () = assert!(std::mem::size_of::<TimerSlot>() == 16);

impl TimerSlot {
    /// Arms (or re-arms) the timer for `at`; returns the generation the
    /// scheduled event must carry.
    pub fn arm(&mut self, at: SimTime) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.armed = true;
        self.at = at;
        self.gen
    }

    /// Cancels the timer; any event already in the queue becomes stale.
    pub fn cancel(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.disarm();
    }

    fn disarm(&mut self) {
        self.armed = false;
        self.at = 0;
    }

    /// If an event with generation `gen` is the live expiry of this timer,
    /// disarms the timer and returns true; a stale event returns false.
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.armed && self.gen == gen {
            self.disarm();
            true
        } else {
            false
        }
    }

    pub fn is_armed(&self) -> bool {
        self.armed
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.armed.then_some(self.at)
    }

    /// The current generation (what the live event carries).
    pub fn generation(&self) -> u32 {
        self.gen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelled_timer_does_not_fire() {
        let mut t = TimerSlot::default();
        let g = t.arm(100);
        t.cancel();
        assert!(!t.fire(g));
        assert!(!t.is_armed());
    }

    #[test]
    fn rearmed_timer_fires_only_for_latest_generation() {
        let mut t = TimerSlot::default();
        let g1 = t.arm(100);
        let g2 = t.arm(200);
        assert!(!t.fire(g1));
        assert!(t.is_armed());
        assert!(t.fire(g2));
        assert!(!t.is_armed());
        assert!(!t.fire(g2), "a timer fires once");
    }
}
