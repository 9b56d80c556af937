//! Neighbours heard recently, for HELLO-based link detection (RFC 3561
//! section 6.9): a neighbour is lost when nothing was heard from it for
//! ALLOWED_HELLO_LOSS * HELLO_INTERVAL.

use crate::engine::{Rng, SimTime};
use crate::net::NodeId;
use std::collections::BTreeMap;

/// When a node checks again whether to say HELLO: 0.75 to 1.25 HELLO
/// intervals after `now`, uniformly (ns-2.35's `HelloTimer`, which AODV and
/// AOMDV share).
pub fn next_hello_check(now: SimTime, interval: SimTime, rng: &mut Rng) -> SimTime {
    now + interval * 3 / 4 + rng.below(interval / 2 + 1)
}

#[derive(Debug, Clone, Default)]
pub struct Neighbors {
    expire: BTreeMap<NodeId, SimTime>,
}

impl Neighbors {
    pub fn heard(&mut self, n: NodeId, until: SimTime) {
        let e = self.expire.entry(n).or_insert(until);
        *e = (*e).max(until);
    }

    pub fn contains(&self, n: NodeId) -> bool {
        self.expire.contains_key(&n)
    }

    /// Removes and returns the neighbours whose time ran out by `now`.
    pub fn expire(&mut self, now: SimTime) -> Vec<NodeId> {
        let lost: Vec<NodeId> = self
            .expire
            .iter()
            .filter(|(_, &t)| t <= now)
            .map(|(&n, _)| n)
            .collect();
        for n in &lost {
            self.expire.remove(n);
        }
        lost
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.expire.values().copied().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_neighbours_expire() {
        let mut n = Neighbors::default();
        n.heard(3, 10);
        n.heard(4, 20);
        n.heard(3, 5);
        assert_eq!(n.next_expiry(), Some(10));
        assert_eq!(n.expire(10), vec![3]);
        assert!(n.contains(4) && !n.contains(3));
    }

    #[test]
    fn hello_checks_come_three_quarters_to_five_quarters_apart() {
        let mut rng = Rng::new(5, crate::engine::Stream::Routing, 2);
        let (mut lo, mut hi) = (SimTime::MAX, 0);
        for _ in 0..2000 {
            let t = next_hello_check(1000, 400, &mut rng);
            lo = lo.min(t);
            hi = hi.max(t);
        }
        assert!(lo >= 1300 && hi <= 1500, "{lo}..{hi}");
        assert!(
            lo < 1310 && hi > 1490,
            "the whole range is drawn: {lo}..{hi}"
        );
    }
}
