//! The duplicate set (RFC 3626 section 3.4): the messages already received,
//! by (originator, message sequence number), kept DUP_HOLD_TIME, so each is
//! processed once and retransmitted at most once.
//!
//! With one interface per node, the RFC's D_iface_list always holds that
//! interface once a tuple exists: a message is considered for processing
//! and forwarding on its first arrival only.

use super::timed_map::{Expiring, TimedMap};
use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuplicateTuple {
    /// D_retransmitted.
    pub retransmitted: bool,
    /// D_time.
    pub until: SimTime,
}

impl Expiring for DuplicateTuple {
    fn until(&self) -> SimTime {
        self.until
    }
}

#[derive(Debug, Clone, Default)]
pub struct DuplicateSet {
    tuples: TimedMap<(NodeId, u16), DuplicateTuple>,
}

impl DuplicateSet {
    pub fn get(&self, originator: NodeId, seq: u16, now: SimTime) -> Option<&DuplicateTuple> {
        self.tuples
            .get(&(originator, seq))
            .filter(|t| t.until > now)
    }

    pub fn insert(&mut self, originator: NodeId, seq: u16, retransmitted: bool, until: SimTime) {
        self.tuples.insert(
            (originator, seq),
            DuplicateTuple {
                retransmitted,
                until,
            },
        );
    }

    pub fn expire(&mut self, now: SimTime) {
        self.tuples.expire(now);
    }

    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }
}
