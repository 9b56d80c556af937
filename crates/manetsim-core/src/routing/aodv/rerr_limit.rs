//! RFC 3561's RERR_RATELIMIT (section 6.11): a node sends at most so many
//! RERR messages per second. AODV and AOMDV keep it alike.

use crate::engine::{SimTime, NS_PER_S};
use std::collections::VecDeque;

/// The send times of the RERRs of the last second.
#[derive(Debug, Clone, Default)]
pub struct RerrLimit {
    sent: VecDeque<SimTime>,
}

impl RerrLimit {
    /// Whether one more RERR may go at `now` with at most `per_second` in
    /// any second; if so, it is counted as sent.
    pub fn admit(&mut self, now: SimTime, per_second: usize) -> bool {
        while self.sent.front().is_some_and(|&t| t + NS_PER_S <= now) {
            self.sent.pop_front();
        }
        if self.sent.len() >= per_second {
            return false;
        }
        self.sent.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_so_many_in_any_second() {
        let mut l = RerrLimit::default();
        assert!(l.admit(0, 2));
        assert!(l.admit(NS_PER_S / 2, 2));
        assert!(!l.admit(NS_PER_S - 1, 2));
        // The first one is a second old: room for one more.
        assert!(l.admit(NS_PER_S, 2));
        assert!(!l.admit(NS_PER_S + 1, 2));
        assert!(!RerrLimit::default().admit(0, 0));
    }
}
