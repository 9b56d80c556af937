//! The 2-hop neighbour set (RFC 3626 sections 4.3.2 and 8.2): which
//! symmetric neighbour reaches which node two hops away, learnt from the
//! neighbours' HELLOs.

use super::timed_map::TimedMap;
use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone, Default)]
pub struct TwoHopSet {
    /// (N_neighbor_main_addr, N_2hop_addr) → N_time.
    tuples: TimedMap<(NodeId, NodeId), SimTime>,
}

impl TwoHopSet {
    /// Records that `nb` has `two_hop` as a symmetric neighbour until `until`.
    pub fn insert(&mut self, nb: NodeId, two_hop: NodeId, until: SimTime) {
        self.tuples.insert((nb, two_hop), until);
    }

    /// `nb` no longer lists `two_hop` as a symmetric neighbour.
    pub fn remove(&mut self, nb: NodeId, two_hop: NodeId) {
        self.tuples.remove(&(nb, two_hop));
    }

    /// Forgets everything learnt through `nb` (its link went away or is no
    /// longer symmetric).
    pub fn remove_neighbor(&mut self, nb: NodeId) {
        self.tuples.retain(|&(n, _), _| n != nb);
    }

    pub fn expire(&mut self, now: SimTime) -> bool {
        self.tuples.expire(now)
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.tuples.next_expiry()
    }

    /// Changes whenever a pair appears or goes.
    pub fn generation(&self) -> u64 {
        self.tuples.generation()
    }

    /// (neighbour, 2-hop node) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.tuples.keys().copied()
    }

    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }
}
