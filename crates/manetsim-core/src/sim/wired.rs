//! An Internet gateway (`[gateway]`): MANET node `gateway` is wired to
//! fixed hosts, numbered from `nodes.count`, each over its own duplex
//! point-to-point link with a drop-tail queue at either end.
//!
//! A packet from the MANET to a host travels tunnelled to the gateway, as
//! AODV-UU's half tunnelling sends it: its source addresses it to the
//! gateway inside an outer IP header (20 bytes more on every wireless hop),
//! so that routing finds, keeps and repairs a route to the gateway only
//! (AODV-UU first seeks the host, whose request only the gateway answers:
//! [`crate::routing::aodv::InternetGateway`]); the gateway takes the
//! header off and puts the packet on the host's link. The way back needs no tunnel: a packet from a host reaches the
//! gateway over the link and the gateway routes it into the MANET, except that its routing agent takes the packet as its own
//! (a route discovery, a source route), so within the MANET the gateway is
//! the packet's source. Which host a tunnelled packet is for follows from its flow
//! (the flow's end other than the packet's source), so a packet carries no
//! second address.
//!
//! A link sends one packet at a time at `rate_bps` (its IP datagram's
//! bytes), and the packet arrives `delay_s` after its last bit left. Hops
//! over a wire are not counted in a packet's MAC hops.

use std::collections::VecDeque;

use super::{Event, World};
use crate::engine::{from_secs, SimTime};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, PacketKind, RoutingProtocol, BROADCAST, IP_HEADER_BYTES};
use crate::scenario::Gateway;
use crate::trace::ns2::MacFields;

/// One direction of a host's link.
#[derive(Debug, Default)]
struct WireEnd {
    /// Waiting to be sent, the one being sent not included.
    queue: VecDeque<Packet>,
    /// Being sent.
    sending: Option<Packet>,
    /// Sent, propagating; they arrive in this order.
    flight: VecDeque<Packet>,
}

/// The gateway's links.
#[derive(Debug)]
pub(crate) struct Wired {
    pub gateway: NodeId,
    /// The first host's node id (`nodes.count`).
    pub first_host: NodeId,
    rate_bps: f64,
    delay_ns: SimTime,
    queue_packets: usize,
    /// Per host: towards the host (`[0]`) and towards the gateway (`[1]`).
    links: Vec<[WireEnd; 2]>,
}

impl Wired {
    pub fn new(g: &Gateway, first_host: NodeId) -> Self {
        Self {
            gateway: g.node,
            first_host,
            rate_bps: g.rate_bps,
            delay_ns: from_secs(g.delay_s),
            queue_packets: g.queue_packets as usize,
            links: (0..g.hosts).map(|_| Default::default()).collect(),
        }
    }

    pub fn is_host(&self, n: NodeId) -> bool {
        n >= self.first_host && n != BROADCAST
    }

    fn tx_ns(&self, p: &Packet) -> SimTime {
        from_secs(f64::from(p.size_bytes) * 8.0 / self.rate_bps)
    }

    /// Packets queued, being sent or propagating on the links.
    pub fn in_flight(&self) -> u64 {
        self.links
            .iter()
            .flatten()
            .map(|e| (e.queue.len() + e.flight.len() + e.sending.is_some() as usize) as u64)
            .sum()
    }
}

impl World {
    /// A packet leaves node `from` (MANET node or host) for its `dst`:
    /// over a wire, tunnelled to the gateway, or routed in the MANET.
    pub(super) fn route_from(&mut self, now: SimTime, from: NodeId, mut packet: Packet) {
        if let Some(w) = &self.wired {
            let (gateway, first) = (w.gateway, w.first_host);
            if w.is_host(from) {
                self.wire_send(now, from - first, true, packet);
                return;
            }
            if w.is_host(packet.dst) {
                let host = packet.dst;
                if from == gateway {
                    self.wire_send(now, host - first, false, packet);
                    return;
                }
                packet.dst = gateway;
                packet.size_bytes += IP_HEADER_BYTES;
                self.with_router(now, from, |r, now, ctx| {
                    r.route_to_internet(now, packet, host, ctx)
                });
                return;
            }
        }
        self.with_router(now, from, |r, now, ctx| r.route_output(now, packet, ctx));
    }

    /// Where node `n`'s packets enter or leave the MANET: `n` itself, or
    /// for a host the gateway.
    pub(super) fn manet_end(&self, n: NodeId) -> NodeId {
        match &self.wired {
            Some(w) if w.is_host(n) => w.gateway,
            _ => n,
        }
    }

    /// The host a packet delivered to the gateway is for, when it came
    /// tunnelled (see the module's text).
    pub(super) fn tunnelled_to(&self, n: NodeId, packet: &Packet) -> Option<NodeId> {
        let w = self.wired.as_ref()?;
        if n != w.gateway || packet.dst != n {
            return None;
        }
        let (a, b) = match packet.kind {
            PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow } => {
                let f = &self.flows[flow as usize];
                (f.src, f.dst)
            }
            _ => return None,
        };
        // The flow's other end than the packet's source: a control packet
        // may go either way (a SYN or INIT from the sender, an ACK or SACK
        // from the receiver).
        let end = if packet.src == a {
            b
        } else if packet.src == b {
            a
        } else {
            return None;
        };
        w.is_host(end).then_some(end)
    }

    /// The gateway takes a tunnelled packet's outer header off and sends
    /// it to `host`.
    pub(super) fn detunnel(&mut self, now: SimTime, host: NodeId, mut packet: Packet) {
        let first = self.wired.as_ref().expect("a gateway").first_host;
        packet.dst = host;
        packet.size_bytes -= IP_HEADER_BYTES;
        self.wire_send(now, host - first, false, packet);
    }

    /// Queues `packet` at one end of host `h`'s link (`up`: the host's end,
    /// towards the gateway); a full queue drops it.
    fn wire_send(&mut self, now: SimTime, h: u32, up: bool, packet: Packet) {
        let w = self.wired.as_mut().expect("a gateway");
        let at = if up { w.first_host + h } else { w.gateway };
        let end = &mut w.links[h as usize][up as usize];
        if end.queue.len() >= w.queue_packets {
            self.drop_packet(now, at, DropReason::QueueFull, &packet);
            return;
        }
        end.queue.push_back(packet);
        if end.sending.is_none() {
            self.wire_start(now, h, up);
        }
    }

    /// Starts sending the next queued packet, if any.
    fn wire_start(&mut self, now: SimTime, h: u32, up: bool) {
        let w = self.wired.as_mut().expect("a gateway");
        let Some(p) = w.links[h as usize][up as usize].queue.pop_front() else {
            return;
        };
        let done = now + w.tx_ns(&p);
        if up {
            if let Some(pcap) = &mut self.pcap {
                pcap.wired(now, w.first_host + h, &p);
            }
        }
        w.links[h as usize][up as usize].sending = Some(p);
        self.q.schedule_far(
            done,
            Event::Wire {
                host: h,
                up,
                arrived: false,
            },
        );
    }

    /// A wire event: a packet's last bit left (`arrived` false), or it
    /// reached the far end.
    pub(super) fn on_wire(&mut self, now: SimTime, h: u32, up: bool, arrived: bool) {
        self.events += 1;
        let w = self.wired.as_mut().expect("a gateway");
        let end = &mut w.links[h as usize][up as usize];
        if !arrived {
            let p = end.sending.take().expect("a packet being sent");
            end.flight.push_back(p);
            let at = now + w.delay_ns;
            self.q.schedule_far(
                at,
                Event::Wire {
                    host: h,
                    up,
                    arrived: true,
                },
            );
            self.wire_start(now, h, up);
            return;
        }
        let packet = end.flight.pop_front().expect("a packet on the wire");
        let (gateway, first) = (w.gateway, w.first_host);
        if !up {
            if let Some(pcap) = &mut self.pcap {
                pcap.wired(now, first + h, &packet);
            }
        }
        if !up || packet.dst == gateway {
            self.deliver_local(now, packet, MacFields::default());
        } else if self.wired.as_ref().is_some_and(|w| w.is_host(packet.dst)) {
            let to = packet.dst - first;
            self.wire_send(now, to, false, packet);
        } else {
            // Into the MANET: the gateway's routing agent takes the packet
            // as its own (route discovery, source routes), as AODV-UU's
            // gateway takes what arrives on its wired interface; within the
            // MANET the gateway is its source.
            let mut packet = packet;
            packet.src = gateway;
            packet.visit(gateway);
            packet.ttl = packet.ttl.saturating_sub(1);
            if packet.ttl == 0 {
                self.drop_packet(now, gateway, DropReason::Ttl, &packet);
                return;
            }
            self.nodes[gateway as usize].forwarded += 1;
            self.with_router(now, gateway, |r, now, ctx| r.route_output(now, packet, ctx));
        }
    }
}
