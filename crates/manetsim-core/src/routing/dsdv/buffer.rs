//! Data packets waiting for a route, as ns-2's DSDV keeps them: a queue per
//! destination of at most `capacity` packets (ns-2's `MAX_QUEUE_LENGTH`,
//! 5); when one is full its oldest packet is dropped. Packets wait without a
//! time limit, until an update brings a route.

use crate::net::{NodeId, Packet};
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone)]
pub struct RouteBuffer {
    queues: BTreeMap<NodeId, VecDeque<Packet>>,
    capacity: usize,
    len: usize,
}

impl RouteBuffer {
    pub fn new(capacity: usize) -> Self {
        Self {
            queues: BTreeMap::new(),
            capacity,
            len: 0,
        }
    }

    /// Packets held, all destinations together.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Holds `p`; returns the packet pushed out when its destination's
    /// queue is full (`p` itself when the capacity is 0).
    pub fn push(&mut self, p: Packet) -> Option<Packet> {
        if self.capacity == 0 {
            return Some(p);
        }
        let q = self.queues.entry(p.dst).or_default();
        q.push_back(p);
        if q.len() > self.capacity {
            q.pop_front()
        } else {
            self.len += 1;
            None
        }
    }

    /// Takes every packet for `dst`, oldest first.
    pub fn take(&mut self, dst: NodeId) -> VecDeque<Packet> {
        let q = self.queues.remove(&dst).unwrap_or_default();
        self.len -= q.len();
        q
    }

    pub fn has(&self, dst: NodeId) -> bool {
        self.queues.get(&dst).is_some_and(|q| !q.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(dst: NodeId, uid: u64) -> Packet {
        let mut p = Packet::control(0, dst, 32, 0, Vec::new());
        p.uid = uid;
        p
    }

    #[test]
    fn each_destination_keeps_its_newest_packets() {
        let mut b = RouteBuffer::new(2);
        assert_eq!(b.push(p(1, 1)), None);
        assert_eq!(b.push(p(1, 2)), None);
        assert_eq!(b.push(p(2, 3)), None);
        assert_eq!(b.push(p(1, 4)).map(|p| p.uid), Some(1));
        assert_eq!(b.len(), 3);
        let q: Vec<u64> = b.take(1).iter().map(|p| p.uid).collect();
        assert_eq!(q, vec![2, 4]);
        assert_eq!(b.len(), 1);
        assert!(b.has(2) && !b.has(1));
    }
}
