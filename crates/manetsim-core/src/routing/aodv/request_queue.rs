//! Data packets waiting for a route (ns-2's `aodv_rqueue`): at most 64
//! packets, each kept at most 30 s. When full, the oldest packet is dropped
//! to make room ("drop-front", as ns-2 does).

use crate::engine::SimTime;
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, RoutingCtx};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct RequestQueue {
    items: VecDeque<(SimTime, Packet)>,
    capacity: usize,
    timeout: SimTime,
}

impl RequestQueue {
    pub fn new(capacity: usize, timeout: SimTime) -> Self {
        Self {
            items: VecDeque::new(),
            capacity,
            timeout,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Buffers `p`; returns the packet pushed out when full.
    pub fn enqueue(&mut self, now: SimTime, p: Packet) -> Option<Packet> {
        let dropped = if self.items.len() >= self.capacity {
            self.items.pop_front().map(|(_, p)| p)
        } else {
            None
        };
        if self.capacity > 0 {
            self.items.push_back((now, p));
            dropped
        } else {
            Some(p)
        }
    }

    /// Buffers `p`; the packet pushed out when full is dropped
    /// (`route_buffer_full`).
    pub fn hold(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        if let Some(old) = self.enqueue(now, p) {
            ctx.drop_packet(old, DropReason::RouteBufferFull);
        }
    }

    /// Drops every packet for `dst` with `reason`.
    pub fn drop_for(&mut self, dst: NodeId, reason: DropReason, ctx: &mut RoutingCtx) {
        for p in self.take_for(dst) {
            ctx.drop_packet(p, reason);
        }
    }

    /// Drops the packets that have waited `timeout` by `now`
    /// (`route_buffer_timeout`).
    pub fn drop_expired(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        for p in self.expire(now) {
            ctx.drop_packet(p, DropReason::RouteBufferTimeout);
        }
    }

    /// Takes every packet for `dst`, oldest first.
    pub fn take_for(&mut self, dst: NodeId) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut keep = VecDeque::with_capacity(self.items.len());
        for (t, p) in self.items.drain(..) {
            if p.dst == dst {
                out.push(p);
            } else {
                keep.push_back((t, p));
            }
        }
        self.items = keep;
        out
    }

    /// The destinations of the packets held, each once, oldest first.
    pub fn destinations(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        for (_, p) in &self.items {
            if !out.contains(&p.dst) {
                out.push(p.dst);
            }
        }
        out
    }

    pub fn has_packets_for(&self, dst: NodeId) -> bool {
        self.items.iter().any(|(_, p)| p.dst == dst)
    }

    /// Removes the packets that have waited `timeout` by `now`.
    pub fn expire(&mut self, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        while let Some((t, _)) = self.items.front() {
            if t.saturating_add(self.timeout) > now {
                break;
            }
            out.push(self.items.pop_front().expect("front exists").1);
        }
        out
    }

    /// When the oldest packet times out.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.items
            .front()
            .map(|(t, _)| t.saturating_add(self.timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(dst: NodeId, uid: u64) -> Packet {
        let mut p = Packet::control(0, dst, 1, 8, vec![]);
        p.uid = uid;
        p
    }

    #[test]
    fn full_queue_drops_the_oldest_and_old_packets_time_out() {
        let mut q = RequestQueue::new(2, 30);
        assert!(q.enqueue(0, pkt(1, 1)).is_none());
        assert!(q.enqueue(5, pkt(2, 2)).is_none());
        assert_eq!(q.enqueue(6, pkt(1, 3)).unwrap().uid, 1);
        assert_eq!(q.next_expiry(), Some(35));
        assert_eq!(q.expire(35).len(), 1);
        assert_eq!(q.take_for(1).len(), 1);
        assert!(q.is_empty());
    }
}
