//! The send buffer: data packets waiting for a route (RFC 4728 section
//! 4.2), with ns-2's limits: 64 packets, 30 s each. When it is full the
//! oldest packet is dropped to make room (as ns-2's `stickPacketInSendBuffer`
//! does); a packet still waiting after the timeout is dropped.

use crate::engine::SimTime;
use crate::net::{NodeId, Packet};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct SendBuffer {
    capacity: usize,
    timeout: SimTime,
    /// In arrival order, so the oldest expires first.
    queue: VecDeque<(SimTime, Packet)>,
}

impl SendBuffer {
    pub fn new(capacity: usize, timeout: SimTime) -> Self {
        Self {
            capacity: capacity.max(1),
            timeout,
            queue: VecDeque::new(),
        }
    }

    /// Buffers `p`; returns the packet evicted to make room, if any.
    pub fn push(&mut self, now: SimTime, p: Packet) -> Option<Packet> {
        let evicted = if self.queue.len() >= self.capacity {
            self.queue.pop_front().map(|(_, p)| p)
        } else {
            None
        };
        self.queue.push_back((now, p));
        evicted
    }

    /// Removes and returns the packets that waited `timeout` or longer.
    pub fn expire(&mut self, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        while let Some((t, _)) = self.queue.front() {
            if t.saturating_add(self.timeout) > now {
                break;
            }
            out.push(self.queue.pop_front().expect("front exists").1);
        }
        out
    }

    /// When the oldest packet expires.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.queue
            .front()
            .map(|(t, _)| t.saturating_add(self.timeout))
    }

    /// Removes and returns every packet with the time it was buffered, in
    /// order (for [`Self::restore`]).
    pub fn drain(&mut self) -> Vec<(SimTime, Packet)> {
        self.queue.drain(..).collect()
    }

    /// Puts back packets taken by [`Self::drain`], in their order, ahead of
    /// any buffered since.
    pub fn restore(&mut self, packets: Vec<(SimTime, Packet)>) {
        for item in packets.into_iter().rev() {
            self.queue.push_front(item);
        }
    }

    /// The packets, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter().map(|(_, p)| p)
    }

    /// Whether some packet waits for `dst`.
    pub fn has_dst(&self, dst: NodeId) -> bool {
        self.queue.iter().any(|(_, p)| p.dst == dst)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(dst: NodeId) -> Packet {
        Packet::control(0, dst, 32, 0, Vec::new())
    }

    #[test]
    fn overflow_evicts_the_oldest() {
        let mut b = SendBuffer::new(2, 100);
        assert!(b.push(0, pkt(1)).is_none());
        assert!(b.push(1, pkt(2)).is_none());
        assert_eq!(b.push(2, pkt(3)).map(|p| p.dst), Some(1));
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn packets_expire_in_order_and_go_back_ahead_of_newer_ones() {
        let mut b = SendBuffer::new(64, 100);
        b.push(0, pkt(1));
        b.push(50, pkt(2));
        b.push(60, pkt(1));
        assert_eq!(b.next_expiry(), Some(100));
        assert_eq!(b.expire(99).len(), 0);
        assert_eq!(b.expire(100).len(), 1);
        assert!(b.has_dst(1));
        let taken = b.drain();
        assert_eq!(
            taken.iter().map(|(t, p)| (*t, p.dst)).collect::<Vec<_>>(),
            [(50, 2), (60, 1)]
        );
        assert!(b.is_empty());
        b.push(70, pkt(3));
        b.restore(taken);
        assert_eq!(
            b.drain().iter().map(|(_, p)| p.dst).collect::<Vec<_>>(),
            [2, 1, 3]
        );
    }
}
