//! The interface queue between the network layer and the MAC: a drop-tail
//! FIFO in which routing-control packets jump to the head, as ns-2's
//! `Queue/DropTail/PriQueue` does with `Prefer_Routing_Protocols` on.

use crate::net::{NodeId, Packet};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct PriQueue {
    q: VecDeque<(Packet, NodeId)>,
    limit: usize,
}

/// The result of an enqueue: accepted, or a packet that had to be dropped
/// (the arriving one, or for a priority arrival the tail of the queue).
#[derive(Debug, PartialEq)]
pub enum Enqueued {
    Accepted,
    Dropped(Packet),
}

impl PriQueue {
    pub fn new(limit: usize) -> Self {
        Self {
            q: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    /// Queues `packet` for `next_hop`.
    pub fn enqueue(&mut self, packet: Packet, next_hop: NodeId) -> Enqueued {
        if packet.is_control() {
            self.q.push_front((packet, next_hop));
            if self.q.len() > self.limit {
                let (tail, _) = self.q.pop_back().expect("queue is non-empty");
                return Enqueued::Dropped(tail);
            }
            Enqueued::Accepted
        } else if self.q.len() >= self.limit {
            Enqueued::Dropped(packet)
        } else {
            self.q.push_back((packet, next_hop));
            Enqueued::Accepted
        }
    }

    pub fn dequeue(&mut self) -> Option<(Packet, NodeId)> {
        self.q.pop_front()
    }

    /// Removes and returns the data packets queued for `next_hop`, in order
    /// (control packets stay: they are re-created by their protocol).
    pub fn take_data_for(&mut self, next_hop: NodeId) -> Vec<Packet> {
        let mut taken = Vec::new();
        let mut kept = VecDeque::with_capacity(self.q.len());
        for (p, h) in self.q.drain(..) {
            if h == next_hop && !p.is_control() {
                taken.push(p);
            } else {
                kept.push_back((p, h));
            }
        }
        self.q = kept;
        taken
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn pkt(uid: u64, control: bool) -> Packet {
        Packet {
            uid,
            kind: if control {
                PacketKind::Control
            } else {
                PacketKind::Data { flow: 0, seq: uid }
            },
            src: 0,
            dst: 1,
            ttl: 32,
            size_bytes: 100,
            payload_bytes: 72,
            created_at: 0,
            hops: 0,
            path: 0,
            body: None,
            tcp: None,
        }
    }

    #[test]
    fn data_is_fifo_and_tail_dropped_when_full() {
        let mut q = PriQueue::new(2);
        assert_eq!(q.enqueue(pkt(1, false), 1), Enqueued::Accepted);
        assert_eq!(q.enqueue(pkt(2, false), 1), Enqueued::Accepted);
        assert_eq!(
            q.enqueue(pkt(3, false), 1),
            Enqueued::Dropped(pkt(3, false))
        );
        assert_eq!(q.dequeue().unwrap().0.uid, 1);
        assert_eq!(q.dequeue().unwrap().0.uid, 2);
        assert!(q.dequeue().is_none());
    }

    #[test]
    fn take_data_for_removes_only_that_neighbours_data() {
        let mut q = PriQueue::new(10);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, false), 2);
        q.enqueue(pkt(3, true), 1);
        q.enqueue(pkt(4, false), 1);
        let taken: Vec<u64> = q.take_data_for(1).iter().map(|p| p.uid).collect();
        assert_eq!(taken, vec![1, 4]);
        assert_eq!(q.len(), 2);
        assert_eq!(q.dequeue().unwrap().0.uid, 3);
        assert_eq!(q.dequeue().unwrap().0.uid, 2);
    }

    #[test]
    fn control_goes_first_and_pushes_out_the_tail() {
        let mut q = PriQueue::new(2);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, false), 1);
        assert_eq!(q.enqueue(pkt(9, true), 1), Enqueued::Dropped(pkt(2, false)));
        assert_eq!(q.dequeue().unwrap().0.uid, 9);
        assert_eq!(q.dequeue().unwrap().0.uid, 1);
    }
}
