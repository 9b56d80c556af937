//! The RREQ duplicate cache (RFC 3561 section 6.5): (originator, RREQ id)
//! pairs seen in the last `lifetime` (ns-2's BCAST_ID_SAVE, 6 s). Every
//! entry lives equally long, so a FIFO of insertion times expires them in
//! order; a hashed set answers lookups (never iterated).

use crate::engine::{IntSet, SimTime};
use crate::net::NodeId;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct IdCache {
    lifetime: SimTime,
    order: VecDeque<(SimTime, (NodeId, u32))>,
    seen: IntSet<(NodeId, u32)>,
}

impl IdCache {
    pub fn new(lifetime: SimTime) -> Self {
        Self {
            lifetime,
            order: VecDeque::new(),
            seen: IntSet::default(),
        }
    }

    /// Records (orig, id); returns true if it was already there (a duplicate).
    pub fn check_and_insert(&mut self, orig: NodeId, id: u32, now: SimTime) -> bool {
        while let Some(&(exp, key)) = self.order.front() {
            if exp > now {
                break;
            }
            self.order.pop_front();
            self.seen.remove(&key);
        }
        if self.seen.contains(&(orig, id)) {
            return true;
        }
        self.seen.insert((orig, id));
        self.order
            .push_back((now.saturating_add(self.lifetime), (orig, id)));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_recognised_until_they_expire() {
        let mut c = IdCache::new(10);
        assert!(!c.check_and_insert(1, 7, 0));
        assert!(c.check_and_insert(1, 7, 5));
        assert!(!c.check_and_insert(2, 7, 5), "keyed by originator too");
        assert!(!c.check_and_insert(1, 7, 10), "expired");
    }
}
