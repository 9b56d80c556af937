//! The MPR selector set (RFC 3626 sections 4.3.4 and 8.4): the neighbours
//! that chose this node as one of their MPRs. A node forwards the floods
//! these neighbours send, and advertises them in its TCs.

use super::timed_map::TimedMap;
use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone, Default)]
pub struct MprSelectorSet {
    /// MS_main_addr → MS_time.
    selectors: TimedMap<NodeId, SimTime>,
}

impl MprSelectorSet {
    /// `nb` selects this node until `until`; returns whether it is new.
    pub fn insert(&mut self, nb: NodeId, until: SimTime) -> bool {
        self.selectors.insert(nb, until).is_none()
    }

    /// Returns whether `nb` was a selector.
    pub fn remove(&mut self, nb: NodeId) -> bool {
        self.selectors.remove(&nb).is_some()
    }

    pub fn contains(&self, nb: NodeId, now: SimTime) -> bool {
        self.selectors.get(&nb).is_some_and(|&t| t > now)
    }

    /// Removes the expired selectors; returns whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        self.selectors.expire(now)
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.selectors.next_expiry()
    }

    /// Changes whenever a selector comes or goes.
    pub fn generation(&self) -> u64 {
        self.selectors.generation()
    }

    /// The selectors' addresses, sorted.
    pub fn addrs(&self) -> Vec<NodeId> {
        self.selectors.keys().copied().collect()
    }

    pub fn len(&self) -> usize {
        self.selectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.selectors.is_empty()
    }
}
