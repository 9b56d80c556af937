//! The RREQ cache: (originator, RREQ id) pairs seen in the last `lifetime`
//! (ns-2's BCAST_ID_SAVE, 6 s), each with the paths already used to answer
//! that request (ns-2's per-broadcast-id `reverse_path_list` and
//! `forward_path_list`).
//!
//! A path is named by (next hop, last hop). When a node answers a RREQ, or
//! relays a RREP for it, it takes a reverse path (towards the originator)
//! and a forward path (towards the destination) that were not used before
//! for the same request, so the replies of one discovery travel link-disjoint
//! paths and each sets up a distinct forward path at the originator.

use crate::engine::SimTime;
use crate::net::NodeId;
use crate::routing::aodv::id_cache::purged_at;
use std::collections::{BTreeMap, VecDeque};

/// A path's name: (next hop, last hop).
pub type PathId = (NodeId, NodeId);

/// What was done for one RREQ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RreqRecord {
    /// Reverse paths a RREP for this request was sent along.
    pub reverse_used: Vec<PathId>,
    /// Forward paths already advertised in a RREP for this request.
    pub forward_used: Vec<PathId>,
    /// Node-disjoint paths: a RREP was sent or relayed for this request
    /// (ns-2.35's `count`), so no other is.
    pub answered: bool,
}

impl RreqRecord {
    /// Marks `reverse` and `forward` used, if neither was.
    pub fn claim(&mut self, reverse: PathId, forward: PathId) -> bool {
        if self.reverse_used.contains(&reverse) || self.forward_used.contains(&forward) {
            return false;
        }
        self.reverse_used.push(reverse);
        self.forward_used.push(forward);
        true
    }
}

#[derive(Debug, Clone)]
pub struct RreqCache {
    lifetime: SimTime,
    /// With ticks (> 0), a record is forgotten only at the first multiple
    /// of `tick` at or after `lifetime` has passed ([`RreqCache::with_ticks`]).
    tick: SimTime,
    order: VecDeque<(SimTime, (NodeId, u32))>,
    records: BTreeMap<(NodeId, u32), RreqRecord>,
}

impl RreqCache {
    pub fn new(lifetime: SimTime) -> Self {
        Self::with_ticks(lifetime, 0)
    }

    /// A cache that forgets only at ticks `tick` apart, from time 0: a
    /// record made at `t` stays until the first tick at or after `t +
    /// lifetime`, as ns-2.35's `AOMDVBroadcastTimer` deletes the ids past
    /// their BCAST_ID_SAVE every BCAST_ID_SAVE. 0: exactly `lifetime`.
    pub fn with_ticks(lifetime: SimTime, tick: SimTime) -> Self {
        Self {
            lifetime,
            tick,
            order: VecDeque::new(),
            records: BTreeMap::new(),
        }
    }

    fn expire(&mut self, now: SimTime) {
        while let Some(&(exp, key)) = self.order.front() {
            if exp > now {
                break;
            }
            self.order.pop_front();
            self.records.remove(&key);
        }
    }

    /// Records (orig, id); returns true if it was already there (a duplicate).
    pub fn check_and_insert(&mut self, orig: NodeId, id: u32, now: SimTime) -> bool {
        self.expire(now);
        if self.records.contains_key(&(orig, id)) {
            return true;
        }
        self.records.insert((orig, id), RreqRecord::default());
        let until = purged_at(now.saturating_add(self.lifetime), self.tick);
        self.order.push_back((until, (orig, id)));
        false
    }

    pub fn get_mut(&mut self, orig: NodeId, id: u32, now: SimTime) -> Option<&mut RreqRecord> {
        self.expire(now);
        self.records.get_mut(&(orig, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_recognised_until_they_expire() {
        let mut c = RreqCache::new(10);
        assert!(!c.check_and_insert(1, 7, 0));
        assert!(c.check_and_insert(1, 7, 5));
        assert!(!c.check_and_insert(2, 7, 5), "keyed by originator too");
        assert!(c.get_mut(1, 7, 9).is_some());
        assert!(c.get_mut(1, 7, 10).is_none(), "expired");
        assert!(!c.check_and_insert(1, 7, 10));
    }

    #[test]
    fn with_ticks_a_record_stays_until_the_first_tick_after_its_lifetime() {
        let mut c = RreqCache::with_ticks(6, 6);
        assert!(!c.check_and_insert(1, 7, 1));
        assert!(c.check_and_insert(1, 7, 11), "7 s: expired, not yet purged");
        assert!(c.get_mut(1, 7, 11).is_some());
        assert!(c.get_mut(1, 7, 12).is_none(), "purged at the tick at 12");
        assert!(!c.check_and_insert(1, 7, 12));
        assert!(c.check_and_insert(1, 7, 17), "recorded at 12, kept to 18");
        assert!(!c.check_and_insert(1, 7, 18));
    }

    #[test]
    fn each_reverse_and_forward_path_answers_a_request_once() {
        let mut c = RreqCache::new(10);
        c.check_and_insert(1, 7, 0);
        let r = c.get_mut(1, 7, 0).unwrap();
        assert!(r.claim((2, 2), (5, 4)));
        assert!(!r.claim((2, 2), (6, 3)), "reverse path used");
        assert!(!r.claim((3, 3), (5, 4)), "forward path used");
        assert!(r.claim((3, 3), (6, 3)));
        assert_eq!(r.reverse_used.len(), 2);
    }
}
