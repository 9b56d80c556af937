//! Neighbours heard recently, for HELLO-based link detection (RFC 3561
//! section 6.9): a neighbour is lost when nothing was heard from it for
//! ALLOWED_HELLO_LOSS * HELLO_INTERVAL.

use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::BTreeMap;

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
}
