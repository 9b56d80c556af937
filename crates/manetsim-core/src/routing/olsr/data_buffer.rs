//! Data packets waiting for a route. OLSR is proactive and RFC 3626 says
//! nothing about them; so that a flow starting before the routes converge
//! does not silently die, the agent holds them here (a bounded FIFO, each
//! packet at most a timeout) and retries whenever the routing table
//! changes. Overflow drops the oldest packet (`route_buffer_full`), age
//! drops it (`route_buffer_timeout`).

use crate::engine::SimTime;
use crate::net::Packet;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct DataBuffer {
    items: VecDeque<(SimTime, Packet)>,
    capacity: usize,
    timeout: SimTime,
}

impl DataBuffer {
    pub fn new(capacity: usize, timeout: SimTime) -> Self {
        Self {
            items: VecDeque::new(),
            capacity,
            timeout,
        }
    }

    /// Buffers `p`; returns the packet pushed out when full (`p` itself
    /// when the capacity is 0).
    pub fn push(&mut self, now: SimTime, p: Packet) -> Option<Packet> {
        if self.capacity == 0 {
            return Some(p);
        }
        let out = if self.items.len() >= self.capacity {
            self.items.pop_front().map(|(_, p)| p)
        } else {
            None
        };
        self.items.push_back((now, p));
        out
    }

    /// Takes, oldest first, the packets `routable` accepts.
    pub fn take_if(&mut self, mut routable: impl FnMut(&Packet) -> bool) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut keep = VecDeque::with_capacity(self.items.len());
        for (t, p) in self.items.drain(..) {
            if routable(&p) {
                out.push(p);
            } else {
                keep.push_back((t, p));
            }
        }
        self.items = keep;
        out
    }

    /// Removes the packets that have waited `timeout` by `now`.
    pub fn expire(&mut self, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        while self
            .items
            .front()
            .is_some_and(|(t, _)| t.saturating_add(self.timeout) <= now)
        {
            out.extend(self.items.pop_front().map(|(_, p)| p));
        }
        out
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.items
            .front()
            .map(|(t, _)| t.saturating_add(self.timeout))
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(dst: u32, uid: u64) -> Packet {
        let mut p = Packet::control(0, dst, 1, 8, vec![]);
        p.uid = uid;
        p
    }

    #[test]
    fn overflow_drops_the_oldest_age_drops_and_routable_packets_leave() {
        let mut b = DataBuffer::new(2, 30);
        assert!(b.push(0, pkt(1, 1)).is_none());
        assert!(b.push(5, pkt(2, 2)).is_none());
        assert_eq!(b.push(6, pkt(1, 3)).unwrap().uid, 1);
        assert_eq!(b.next_expiry(), Some(35));
        let taken = b.take_if(|p| p.dst == 1);
        assert_eq!(taken.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![3]);
        assert_eq!(b.expire(34).len(), 0);
        assert_eq!(b.expire(35).len(), 1);
        assert!(b.is_empty());
        assert_eq!(DataBuffer::new(0, 1).push(0, pkt(1, 9)).unwrap().uid, 9);
    }
}
