//! The interface queue between the network layer and the MAC. Two
//! disciplines:
//! - a drop-tail FIFO in which routing-control packets jump to the head
//!   (pushing out the tail when full), as ns-2's `Queue/DropTail/PriQueue`
//!   does with `Prefer_Routing_Protocols` on ([`PriQueue::new`]);
//! - ns-2's `CMUPriQueue`, which its DSR runs over ([`PriQueue::cmu`]; facts
//!   from its `queue/dsr-priqueue.cc`): routing control, TCP ACKs and
//!   everything else in three FIFO bands of `limit` packets each, served
//!   in that strict order; a full band drops the arriving packet.

use crate::net::{NodeId, Packet};
use std::collections::VecDeque;

/// Packets with their next hops, in order.
type Band = VecDeque<(Packet, NodeId)>;

#[derive(Debug, Clone)]
pub struct PriQueue {
    /// The whole queue, or with `bands` the band of everything else.
    q: Band,
    limit: usize,
    /// `CMUPriQueue`'s routing-control and TCP-ACK bands.
    bands: Option<Box<[Band; 2]>>,
}

/// The result of an enqueue: accepted, or a packet that had to be dropped
/// (the arriving one, or for a priority arrival the tail of the queue),
/// with its next hop.
#[derive(Debug, PartialEq)]
pub enum Enqueued {
    Accepted,
    Dropped(Packet, NodeId),
}

impl PriQueue {
    pub fn new(limit: usize) -> Self {
        Self {
            q: VecDeque::new(),
            limit: limit.max(1),
            bands: None,
        }
    }

    /// ns-2's `CMUPriQueue`, each band holding `limit` packets (ns-2
    /// ignores `ifqLen` there and holds 50).
    pub fn cmu(limit: usize) -> Self {
        Self {
            bands: Some(Box::default()),
            ..Self::new(limit)
        }
    }

    /// Queues `packet` for `next_hop`.
    pub fn enqueue(&mut self, packet: Packet, next_hop: NodeId) -> Enqueued {
        if let Some(bands) = &mut self.bands {
            let band = if packet.is_control() {
                &mut bands[0]
            } else if is_tcp_ack(&packet) {
                &mut bands[1]
            } else {
                &mut self.q
            };
            if band.len() >= self.limit {
                return Enqueued::Dropped(packet, next_hop);
            }
            band.push_back((packet, next_hop));
            return Enqueued::Accepted;
        }
        if packet.is_control() {
            self.q.push_front((packet, next_hop));
            if self.q.len() > self.limit {
                let (tail, hop) = self.q.pop_back().expect("queue is non-empty");
                return Enqueued::Dropped(tail, hop);
            }
            Enqueued::Accepted
        } else if self.q.len() >= self.limit {
            Enqueued::Dropped(packet, next_hop)
        } else {
            self.q.push_back((packet, next_hop));
            Enqueued::Accepted
        }
    }

    pub fn dequeue(&mut self) -> Option<(Packet, NodeId)> {
        if let Some(bands) = &mut self.bands {
            if let Some(x) = bands[0].pop_front().or_else(|| bands[1].pop_front()) {
                return Some(x);
            }
        }
        self.q.pop_front()
    }

    /// Removes and returns the data packets queued for `next_hop`, in order
    /// (routing control and ARP packets stay).
    pub fn take_data_for(&mut self, next_hop: NodeId) -> Vec<Packet> {
        self.take_for(next_hop, false)
    }

    /// Removes and returns the packets queued for `next_hop`: the data
    /// packets, and with `control` the routing-control packets too, in the
    /// order the queue would serve them (ns-2's `prq_get_nexthop`, called
    /// until it finds none, takes `CMUPriQueue`'s bands in turn). ARP
    /// packets stay.
    pub fn take_for(&mut self, next_hop: NodeId, control: bool) -> Vec<Packet> {
        let mut taken = Vec::new();
        if let Some(bands) = &mut self.bands {
            if control {
                take_from(&mut bands[0], next_hop, true, &mut taken);
            }
            take_from(&mut bands[1], next_hop, control, &mut taken);
        }
        take_from(&mut self.q, next_hop, control, &mut taken);
        taken
    }

    /// The packets queued, with their next hops, in the order the queue
    /// would serve them.
    pub fn iter(&self) -> impl Iterator<Item = &(Packet, NodeId)> {
        let bands = self
            .bands
            .iter()
            .flat_map(|b| b[0].iter().chain(b[1].iter()));
        bands.chain(self.q.iter())
    }

    pub fn len(&self) -> usize {
        self.q.len() + self.bands.as_ref().map_or(0, |b| b[0].len() + b[1].len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Moves the data packets of `q` queued for `next_hop` (with `control`,
/// the routing-control packets too) to `taken`, in order.
fn take_from(q: &mut Band, next_hop: NodeId, control: bool, taken: &mut Vec<Packet>) {
    let mut kept = VecDeque::with_capacity(q.len());
    for (p, h) in q.drain(..) {
        if h == next_hop && (control || !p.is_control()) && !p.is_arp() {
            taken.push(p);
        } else {
            kept.push_back((p, h));
        }
    }
    *q = kept;
}

/// A TCP segment without data, SYN or FIN: what ns-2 types as `PT_ACK`.
fn is_tcp_ack(p: &Packet) -> bool {
    p.tcp()
        .is_some_and(|s| s.len == 0 && !s.flags.syn && !s.flags.fin)
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
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: None,
        }
    }

    #[test]
    fn data_is_fifo_and_tail_dropped_when_full() {
        let mut q = PriQueue::new(2);
        assert_eq!(q.enqueue(pkt(1, false), 1), Enqueued::Accepted);
        assert_eq!(q.enqueue(pkt(2, false), 1), Enqueued::Accepted);
        assert_eq!(
            q.enqueue(pkt(3, false), 1),
            Enqueued::Dropped(pkt(3, false), 1)
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

    fn ack(uid: u64) -> Packet {
        let mut p = pkt(uid, false);
        p.transport =
            crate::net::TransportHeader::tcp(crate::transport::tcp::TcpSegment::default());
        p
    }

    #[test]
    fn cmu_serves_control_then_acks_then_the_rest_each_band_capped() {
        let mut q = PriQueue::cmu(2);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, false), 1);
        assert_eq!(
            q.enqueue(pkt(3, false), 1),
            Enqueued::Dropped(pkt(3, false), 1)
        );
        // Other bands have room of their own; nothing is pushed out.
        assert_eq!(q.enqueue(ack(4), 1), Enqueued::Accepted);
        assert_eq!(q.enqueue(pkt(5, true), 1), Enqueued::Accepted);
        assert_eq!(q.enqueue(pkt(6, true), 1), Enqueued::Accepted);
        assert_eq!(
            q.enqueue(pkt(7, true), 1),
            Enqueued::Dropped(pkt(7, true), 1)
        );
        assert_eq!(q.len(), 5);
        let listed: Vec<u64> = q.iter().map(|(p, _)| p.uid).collect();
        assert_eq!(listed, vec![5, 6, 4, 1, 2]);
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue())
            .map(|(p, _)| p.uid)
            .collect();
        assert_eq!(order, vec![5, 6, 4, 1, 2]);
        assert!(q.is_empty());
    }

    #[test]
    fn cmu_take_data_for_takes_acks_first_and_leaves_control() {
        let mut q = PriQueue::cmu(10);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, true), 1);
        q.enqueue(ack(3), 1);
        q.enqueue(ack(4), 2);
        let taken: Vec<u64> = q.take_data_for(1).iter().map(|p| p.uid).collect();
        assert_eq!(taken, vec![3, 1]);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn take_for_with_control_takes_control_first_as_the_queue_serves_it() {
        let mut q = PriQueue::cmu(10);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, true), 1);
        q.enqueue(ack(3), 1);
        q.enqueue(pkt(4, true), 2);
        q.enqueue(pkt(5, true), 1);
        let taken: Vec<u64> = q.take_for(1, true).iter().map(|p| p.uid).collect();
        assert_eq!(taken, vec![2, 5, 3, 1]);
        assert_eq!(q.len(), 1);
        assert_eq!(q.dequeue().unwrap().0.uid, 4);
        // The drop-tail queue, control jumping ahead as it was queued.
        let mut q = PriQueue::new(10);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, true), 1);
        q.enqueue(pkt(3, true), 2);
        let taken: Vec<u64> = q.take_for(1, true).iter().map(|p| p.uid).collect();
        assert_eq!(taken, vec![2, 1]);
        assert_eq!(q.dequeue().unwrap().0.uid, 3);
    }

    #[test]
    fn control_goes_first_and_pushes_out_the_tail() {
        let mut q = PriQueue::new(2);
        q.enqueue(pkt(1, false), 1);
        q.enqueue(pkt(2, false), 1);
        assert_eq!(
            q.enqueue(pkt(9, true), 1),
            Enqueued::Dropped(pkt(2, false), 1)
        );
        let listed: Vec<u64> = q.iter().map(|(p, _)| p.uid).collect();
        assert_eq!(listed, vec![9, 1]);
        assert_eq!(q.dequeue().unwrap().0.uid, 9);
        assert_eq!(q.dequeue().unwrap().0.uid, 1);
    }
}
