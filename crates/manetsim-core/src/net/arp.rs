//! Address resolution between the network layer and the interface queue,
//! as ns-2.35's `ARPTable` does it (`mac/arp.cc`; facts only, no code):
//!
//! - a unicast packet to a neighbour whose address is not resolved is
//!   held, one per neighbour, and an ARP request is broadcast; a newer
//!   packet for the same neighbour takes the held one's place, and the
//!   held one is dropped;
//! - after [`MAX_REQUESTS`] requests without an answer, the next packet
//!   for that neighbour fails together with the held one (the routing
//!   protocol hears of both as failed transmissions), and the count starts
//!   again;
//! - there are no timers: a held packet waits until an answer or a newer
//!   packet comes, and a resolved address never expires;
//! - every node that receives a request or a reply learns its sender, and
//!   the target of a request answers it.
//!
//! Broadcast packets need no resolution. ARP messages are [`ARP_BYTES`]
//! long and queue like data.

use super::{NodeId, Packet, PacketKind, BROADCAST};
use crate::engine::IntSet;
use serde::{Deserialize, Serialize};

/// An ARP message over 802.11 with IPv4 addresses (RFC 826: hardware and
/// protocol types and lengths, operation, two hardware and two protocol
/// addresses), as ns-2 sizes it.
pub const ARP_BYTES: u32 = 28;

/// Requests for one neighbour before its packets fail (ns-2's
/// `ARP_MAX_REQUEST_COUNT`).
pub const MAX_REQUESTS: u8 = 3;

/// Which address resolution runs below routing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArpModel {
    /// None: every neighbour's address is known.
    #[default]
    Off,
    /// ns-2.35's `ARPTable` (see the module documentation).
    Ns2,
}

/// What to do with a packet handed down for a next hop.
#[derive(Debug, PartialEq)]
pub enum Resolved {
    /// The next hop is resolved (or the packet is a broadcast): queue it.
    Send(Packet),
    /// The packet is held. Broadcast a request for the next hop; a packet
    /// held before for it, if any, is dropped.
    Request { dropped: Option<Packet> },
    /// Too many requests went unanswered: these packets (the one held
    /// before, then the new one) failed to reach the next hop.
    Failed(Vec<Packet>),
}

/// A neighbour whose address is being resolved.
#[derive(Debug, Clone)]
struct Pending {
    neighbour: NodeId,
    requests: u8,
    held: Option<Packet>,
}

/// One node's ARP table.
#[derive(Debug, Clone, Default)]
pub struct ArpTable {
    resolved: IntSet<NodeId>,
    pending: Vec<Pending>,
}

impl ArpTable {
    /// Hands `packet` down for `next_hop`.
    pub fn resolve(&mut self, packet: Packet, next_hop: NodeId) -> Resolved {
        if next_hop == BROADCAST || self.resolved.contains(&next_hop) {
            return Resolved::Send(packet);
        }
        let i = match self.pending.iter().position(|p| p.neighbour == next_hop) {
            Some(i) => i,
            None => {
                self.pending.push(Pending {
                    neighbour: next_hop,
                    requests: 0,
                    held: None,
                });
                self.pending.len() - 1
            }
        };
        let entry = &mut self.pending[i];
        if entry.requests >= MAX_REQUESTS {
            entry.requests = 0;
            let mut failed: Vec<Packet> = entry.held.take().into_iter().collect();
            failed.push(packet);
            return Resolved::Failed(failed);
        }
        entry.requests += 1;
        let dropped = entry.held.replace(packet);
        Resolved::Request { dropped }
    }

    /// An ARP message from `sender` arrived: its address is now known.
    /// Returns the packet held for it, to queue now.
    pub fn learn(&mut self, sender: NodeId) -> Option<Packet> {
        self.resolved.insert(sender);
        let i = self.pending.iter().position(|p| p.neighbour == sender)?;
        // In order: [`Self::held_packets`] lists the rest as ns-2 would.
        self.pending.remove(i).held
    }

    /// The packets held, with the neighbours they wait for, in the order
    /// ns-2.35's `ARPTable` drops them at the end of a run (`Terminate`):
    /// its entries' list, the newest entry first.
    pub fn held_packets(&self) -> impl Iterator<Item = (&Packet, NodeId)> {
        self.pending
            .iter()
            .rev()
            .filter_map(|p| p.held.as_ref().map(|h| (h, p.neighbour)))
    }

    /// Whether `neighbour`'s address is known.
    pub fn knows(&self, neighbour: NodeId) -> bool {
        self.resolved.contains(&neighbour)
    }

    /// Packets held, waiting for an answer.
    pub fn held(&self) -> usize {
        self.pending.iter().filter(|p| p.held.is_some()).count()
    }
}

/// An ARP request from `me` for `target`'s address (broadcast).
pub fn request(me: NodeId, target: NodeId) -> Packet {
    arp_packet(
        me,
        BROADCAST,
        PacketKind::Arp {
            target,
            reply: false,
        },
    )
}

/// `me`'s ARP reply to `requester`.
pub fn reply(me: NodeId, requester: NodeId) -> Packet {
    arp_packet(
        me,
        requester,
        PacketKind::Arp {
            target: requester,
            reply: true,
        },
    )
}

fn arp_packet(src: NodeId, dst: NodeId, kind: PacketKind) -> Packet {
    Packet {
        uid: 0,
        kind,
        src,
        dst,
        ttl: 1,
        size_bytes: ARP_BYTES,
        payload_bytes: 0,
        created_at: 0,
        hops: 0,
        stale_header_bytes: 0,
        path: 0,
        body: None,
        transport: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(uid: u64) -> Packet {
        let mut p = request(0, 0);
        p.kind = PacketKind::Data { flow: 0, seq: uid };
        p.uid = uid;
        p
    }

    fn uids(ps: &[Packet]) -> Vec<u64> {
        ps.iter().map(|p| p.uid).collect()
    }

    #[test]
    fn broadcasts_and_resolved_neighbours_pass() {
        let mut t = ArpTable::default();
        assert_eq!(t.resolve(pkt(1), BROADCAST), Resolved::Send(pkt(1)));
        assert_eq!(t.learn(4), None);
        assert!(t.knows(4));
        assert_eq!(t.resolve(pkt(2), 4), Resolved::Send(pkt(2)));
    }

    #[test]
    fn one_packet_is_held_and_a_newer_one_replaces_it() {
        let mut t = ArpTable::default();
        assert_eq!(t.resolve(pkt(1), 4), Resolved::Request { dropped: None });
        assert_eq!(t.held(), 1);
        assert_eq!(
            t.resolve(pkt(2), 4),
            Resolved::Request {
                dropped: Some(pkt(1))
            }
        );
        // Another neighbour is resolved on its own.
        assert_eq!(t.resolve(pkt(3), 5), Resolved::Request { dropped: None });
        assert_eq!(t.held(), 2);
        // 4 answers: its held packet goes, and 4 stays resolved.
        assert_eq!(t.learn(4).map(|p| p.uid), Some(2));
        assert_eq!(t.held(), 1);
        assert_eq!(t.resolve(pkt(4), 4), Resolved::Send(pkt(4)));
    }

    #[test]
    fn the_fourth_packet_fails_with_the_held_one_and_the_count_restarts() {
        let mut t = ArpTable::default();
        for uid in 1..=3 {
            assert!(matches!(t.resolve(pkt(uid), 4), Resolved::Request { .. }));
        }
        match t.resolve(pkt(4), 4) {
            Resolved::Failed(ps) => assert_eq!(uids(&ps), vec![3, 4]),
            other => panic!("expected a failure, got {other:?}"),
        }
        assert_eq!(t.held(), 0);
        // Three more requests before the next failure, which has no held
        // packet before it if none was.
        for uid in 5..=7 {
            assert!(matches!(t.resolve(pkt(uid), 4), Resolved::Request { .. }));
        }
        match t.resolve(pkt(8), 4) {
            Resolved::Failed(ps) => assert_eq!(uids(&ps), vec![7, 8]),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn held_packets_are_listed_newest_neighbour_first() {
        let mut t = ArpTable::default();
        for (uid, neighbour) in [(1, 4), (2, 5), (3, 6), (4, 7)] {
            t.resolve(pkt(uid), neighbour);
        }
        // 5 answers, and 6's packet failed: neither holds one now; the
        // others keep their places.
        t.learn(5);
        for uid in 5..=6 {
            t.resolve(pkt(uid), 6);
        }
        assert!(matches!(t.resolve(pkt(7), 6), Resolved::Failed(_)));
        t.resolve(pkt(9), 8);
        let listed: Vec<(u64, NodeId)> = t.held_packets().map(|(p, n)| (p.uid, n)).collect();
        assert_eq!(listed, vec![(9, 8), (4, 7), (1, 4)]);
    }

    #[test]
    fn messages_are_sized_and_addressed() {
        let q = request(3, 9);
        assert_eq!((q.src, q.dst, q.size_bytes), (3, BROADCAST, ARP_BYTES));
        assert_eq!(
            q.kind,
            PacketKind::Arp {
                target: 9,
                reply: false
            }
        );
        let r = reply(9, 3);
        assert_eq!((r.src, r.dst, r.size_bytes), (9, 3, ARP_BYTES));
        assert!(r.is_arp() && !r.is_control());
    }
}
