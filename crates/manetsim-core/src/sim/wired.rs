//! Internet gateways (`[gateway]`): each gateway node is wired to every
//! fixed host, numbered from `nodes.count`, over a duplex point-to-point
//! link of its own with a drop-tail queue at either end (one gateway: one
//! link per host; the Internet between gateways and hosts is reduced to
//! these links).
//!
//! A packet from the MANET to a host travels tunnelled to a gateway, as
//! AODV-UU's half tunnelling sends it: its source addresses it to the
//! gateway inside an outer IP header (20 bytes more on every wireless hop),
//! so that routing finds, keeps and repairs a route to the gateway only
//! (AODV-UU first seeks the host, whose request only gateways answer:
//! [`crate::routing::aodv::InternetGateway`]); the gateway takes the
//! header off and puts the packet on the host's link. The way back needs no
//! tunnel: a packet from a host reaches a gateway over its link and the
//! gateway routes it into the MANET, except that its routing agent takes
//! the packet as its own (a route discovery, a source route), so within the
//! MANET the gateway is the packet's source. Which host a tunnelled packet
//! is for follows from its flow (the flow's end other than the packet's
//! source), so a packet carries no second address.
//!
//! With several gateways, a node's packet for a host goes to the gateway
//! its routing agent picks (AODV-UU: the one whose reply came, or a
//! shorter one's; OLSR: the nearest one whose HNA it holds), or, under the
//! other protocols, to the gateway its routing table knows the fewest hops
//! to (the first listed when it knows none). A host's packet for a node goes through the gateway that last
//! brought the host a packet from that node, as a gateway that translates
//! addresses would have it, or the first listed before any.
//!
//! A link sends one packet at a time at `rate_bps` (its IP datagram's
//! bytes), and the packet arrives `delay_s` after its last bit left. Hops
//! over a wire are not counted in a packet's MAC hops.

use std::collections::{HashMap, VecDeque};

use super::{Event, World};
use crate::engine::{from_secs, SimTime};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, PacketKind, RoutingProtocol, BROADCAST, IP_HEADER_BYTES};
use crate::routing::Router;
use crate::scenario::{Gateway, GatewayForwarding};
use crate::trace::ns2::MacFields;
use crate::trace::pcap::GatewayView;

/// One direction of a link.
#[derive(Debug, Default)]
struct WireEnd {
    /// Waiting to be sent, the one being sent not included.
    queue: VecDeque<Packet>,
    /// Being sent.
    sending: Option<Packet>,
    /// Sent, propagating; they arrive in this order.
    flight: VecDeque<Packet>,
}

/// The gateways' links.
#[derive(Debug)]
pub(crate) struct Wired {
    /// The gateway nodes, in the order given.
    pub gateways: Vec<NodeId>,
    /// The first host's node id (`nodes.count`).
    pub first_host: NodeId,
    rate_bps: f64,
    delay_ns: SimTime,
    queue_packets: usize,
    /// Whether a packet for a host travels in an outer IP header
    /// (`gateway.forwarding = "tunnel"`), or bare as to ns-2's base
    /// stations (`"base_station"`: the routing still takes it to the
    /// gateway the source picked, and the traces and captures show the
    /// host as its destination).
    tunnel: bool,
    /// ns-2's frame sizes (`[mac] frames = "ns2"`) with base-station
    /// forwarding: a host's packet crosses the MANET without the IP header
    /// that ns-2.35's routing agents add to what their node originates,
    /// 20 bytes shorter than manetsim's datagram, as an ns-2.35 base
    /// station forwards it (its size is put back on delivery).
    pub ns2_bare_from_hosts: bool,
    /// Link `host * gateways + g` joins host `host` (counted from 0) and
    /// gateway `g`: towards the host (`[0]`) and towards the gateway
    /// (`[1]`).
    links: Vec<[WireEnd; 2]>,
    /// The gateway (index) that last brought host `host` (counted from 0)
    /// a packet from MANET node `node`, by (host, node).
    return_via: HashMap<(u32, NodeId), u32>,
    /// Per gateway: packets taken out of the tunnel for the hosts, and
    /// packets from the hosts routed into the MANET.
    pub to_hosts: Vec<u64>,
    pub from_hosts: Vec<u64>,
}

impl Wired {
    pub fn new(g: &Gateway, first_host: NodeId) -> Self {
        let gateways = g.node.ids().to_vec();
        let links = (0..g.hosts as usize * gateways.len())
            .map(|_| Default::default())
            .collect();
        Self {
            to_hosts: vec![0; gateways.len()],
            from_hosts: vec![0; gateways.len()],
            gateways,
            first_host,
            rate_bps: g.rate_bps,
            delay_ns: from_secs(g.delay_s),
            queue_packets: g.queue_packets as usize,
            tunnel: g.forwarding == GatewayForwarding::Tunnel,
            ns2_bare_from_hosts: false,
            links,
            return_via: HashMap::new(),
        }
    }

    pub fn is_host(&self, n: NodeId) -> bool {
        n >= self.first_host && n != BROADCAST
    }

    /// Gateway `n`'s index, if `n` is a gateway.
    pub fn gateway_index(&self, n: NodeId) -> Option<u32> {
        self.gateways.iter().position(|&g| g == n).map(|i| i as u32)
    }

    /// The link between host `h` (counted from 0) and gateway index `g`.
    fn link(&self, h: u32, g: u32) -> u32 {
        h * self.gateways.len() as u32 + g
    }

    /// Host (counted from 0) and gateway index of link `l`.
    fn ends(&self, l: u32) -> (u32, u32) {
        let n = self.gateways.len() as u32;
        (l / n, l % n)
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
    /// What the traces and captures know of gateway `g`.
    pub(super) fn gateway_view(&self, g: &Gateway) -> GatewayView {
        GatewayView {
            nodes: g.node.ids().to_vec(),
            first_host: self.nodes.len() as NodeId,
            flow_ends: self.flows.iter().map(|f| (f.src, f.dst)).collect(),
            tunnel: g.forwarding == GatewayForwarding::Tunnel,
        }
    }

    /// A packet leaves node `from` (MANET node or host) for its `dst`:
    /// over a wire, tunnelled to a gateway, or routed in the MANET.
    pub(super) fn route_from(&mut self, now: SimTime, from: NodeId, mut packet: Packet) {
        if let Some(w) = &self.wired {
            let first = w.first_host;
            if w.is_host(from) {
                let h = from - first;
                // To a gateway itself, over its own link; else through the
                // gateway the destination's packets last came by.
                let g = w
                    .gateway_index(packet.dst)
                    .unwrap_or_else(|| w.return_via.get(&(h, packet.dst)).copied().unwrap_or(0));
                let l = w.link(h, g);
                self.wire_send(now, l, true, packet);
                return;
            }
            if w.is_host(packet.dst) {
                let host = packet.dst;
                if let Some(g) = w.gateway_index(from) {
                    let l = w.link(host - first, g);
                    self.wire_send(now, l, false, packet);
                    return;
                }
                packet.dst = self.gateway_for(now, from);
                if w.tunnel {
                    packet.size_bytes += IP_HEADER_BYTES;
                }
                self.with_router(now, from, |r, now, ctx| {
                    r.route_to_internet(now, packet, host, ctx)
                });
                return;
            }
        }
        self.with_router(now, from, |r, now, ctx| r.route_output(now, packet, ctx));
    }

    /// The gateway MANET node `from` tunnels a host's packets to: the one
    /// its routing agent knows the fewest hops to (an agent that finds
    /// gateways itself, AODV-UU's, may send it to another), the first
    /// listed when it knows none.
    pub(super) fn gateway_for(&self, now: SimTime, from: NodeId) -> NodeId {
        let w = self.wired.as_ref().expect("a gateway");
        if w.gateways.len() == 1 {
            return w.gateways[0];
        }
        let router = &self.nodes[from as usize].router;
        w.gateways
            .iter()
            .filter_map(|&g| router.hop_count(g, now).map(|h| (h, g)))
            .min_by_key(|&(h, _)| h)
            .map_or(w.gateways[0], |(_, g)| g)
    }

    /// `packet` as its source sent it: a host's packet that crossed the
    /// MANET without ns-2's routing IP header gets it back
    /// ([`Wired::ns2_bare_from_hosts`]).
    pub(super) fn as_sent(&self, mut packet: Packet) -> Packet {
        let Some(w) = self.wired.as_ref().filter(|w| w.ns2_bare_from_hosts) else {
            return packet;
        };
        let (PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) = packet.kind else {
            return packet;
        };
        let f = &self.flows[flow as usize];
        // The end it left from: the flow's end other than its destination.
        let from = if packet.dst == f.dst { f.src } else { f.dst };
        if w.is_host(from) && w.gateway_index(packet.src).is_some() {
            packet.size_bytes += IP_HEADER_BYTES;
        }
        packet
    }

    /// Whether `packet` goes to a gateway for a host, untunnelled (base-station
    /// forwarding), through node `n`'s DSDV agent.
    fn dsdv_towards_base_station(&self, n: NodeId, packet: &Packet) -> bool {
        let Some(w) = &self.wired else {
            return false;
        };
        if w.tunnel
            || w.gateway_index(packet.dst).is_none()
            || !matches!(self.nodes[n as usize].router, Router::Dsdv(_))
        {
            return false;
        }
        let (PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) = packet.kind else {
            return false;
        };
        let f = &self.flows[flow as usize];
        let to = if packet.src == f.src { f.dst } else { f.src };
        w.is_host(to)
    }

    /// Whether relay `n`, under DSDV with base-station forwarding, drops
    /// `packet`, for a host through a gateway it knows no route to: ns-2.35's
    /// `forwardPacket` frees a packet for another domain at any node whose
    /// route to its base station is down, as at its source
    /// ([`crate::routing::dsdv::DsdvConfig::drop_internet_without_route`]).
    pub(super) fn relay_drops_for_base_station(
        &self,
        now: SimTime,
        n: NodeId,
        packet: &Packet,
    ) -> bool {
        self.dsdv_towards_base_station(n, packet)
            && self.nodes[n as usize]
                .router
                .hop_count(packet.dst, now)
                .is_none()
    }

    /// Whether node `n`'s DSDV agent, with MAC feedback, routes `packet`
    /// again as ns-2.35's `lost_link` does after a failure towards a base
    /// station: the link breaks first, then the packet goes on by the
    /// route left or is dropped (`no_route`), never held.
    pub(super) fn reroutes_towards_base_station(&self, n: NodeId, packet: &Packet) -> bool {
        match &self.nodes[n as usize].router {
            Router::Dsdv(d) => d.mac_feedback() && self.dsdv_towards_base_station(n, packet),
            _ => false,
        }
    }

    /// Whether node `n` is a fixed host behind the gateways.
    pub(super) fn is_host(&self, n: NodeId) -> bool {
        self.wired.as_ref().is_some_and(|w| w.is_host(n))
    }

    /// The host a packet delivered to gateway `n` is for, when it came
    /// tunnelled (see the module's text).
    pub(super) fn tunnelled_to(&self, n: NodeId, packet: &Packet) -> Option<NodeId> {
        let w = self.wired.as_ref()?;
        if packet.dst != n || w.gateway_index(n).is_none() {
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

    /// Gateway `n` takes a tunnelled packet's outer header off and sends it
    /// to `host`; the host's packets for the packet's source will come back
    /// this way.
    pub(super) fn detunnel(&mut self, now: SimTime, n: NodeId, host: NodeId, mut packet: Packet) {
        let w = self.wired.as_mut().expect("a gateway");
        let g = w.gateway_index(n).expect("a gateway");
        let h = host - w.first_host;
        w.return_via.insert((h, packet.src), g);
        w.to_hosts[g as usize] += 1;
        let l = w.link(h, g);
        packet.dst = host;
        if w.tunnel {
            packet.size_bytes -= IP_HEADER_BYTES;
        }
        self.wire_send(now, l, false, packet);
    }

    /// Queues `packet` at one end of link `l` (`up`: the host's end,
    /// towards the gateway); a full queue drops it.
    fn wire_send(&mut self, now: SimTime, l: u32, up: bool, packet: Packet) {
        let w = self.wired.as_mut().expect("a gateway");
        let (h, g) = w.ends(l);
        let at = if up {
            w.first_host + h
        } else {
            w.gateways[g as usize]
        };
        let end = &mut w.links[l as usize][up as usize];
        if end.queue.len() >= w.queue_packets {
            self.drop_packet(now, at, DropReason::QueueFull, &packet);
            return;
        }
        end.queue.push_back(packet);
        if end.sending.is_none() {
            self.wire_start(now, l, up);
        }
    }

    /// Starts sending the next queued packet, if any.
    fn wire_start(&mut self, now: SimTime, l: u32, up: bool) {
        let w = self.wired.as_mut().expect("a gateway");
        let Some(p) = w.links[l as usize][up as usize].queue.pop_front() else {
            return;
        };
        let done = now + w.tx_ns(&p);
        if up {
            let host = w.first_host + w.ends(l).0;
            if let Some(pcap) = &mut self.pcap {
                pcap.wired(now, host, &p);
            }
        }
        w.links[l as usize][up as usize].sending = Some(p);
        self.q.schedule_far(
            done,
            Event::Wire {
                link: l,
                up,
                arrived: false,
            },
        );
    }

    /// A wire event: a packet's last bit left (`arrived` false), or it
    /// reached the far end.
    pub(super) fn on_wire(&mut self, now: SimTime, l: u32, up: bool, arrived: bool) {
        self.events += 1;
        let w = self.wired.as_mut().expect("a gateway");
        let end = &mut w.links[l as usize][up as usize];
        if !arrived {
            let p = end.sending.take().expect("a packet being sent");
            end.flight.push_back(p);
            let at = now + w.delay_ns;
            self.q.schedule_far(
                at,
                Event::Wire {
                    link: l,
                    up,
                    arrived: true,
                },
            );
            self.wire_start(now, l, up);
            return;
        }
        let packet = end.flight.pop_front().expect("a packet on the wire");
        let (h, g) = w.ends(l);
        let (gateway, first) = (w.gateways[g as usize], w.first_host);
        if !up {
            if let Some(pcap) = &mut self.pcap {
                pcap.wired(now, first + h, &packet);
            }
        }
        if !up || packet.dst == gateway {
            self.deliver_local(now, packet, MacFields::default());
        } else if self.is_host(packet.dst) {
            let to = self
                .wired
                .as_ref()
                .expect("a gateway")
                .link(packet.dst - first, g);
            self.wire_send(now, to, false, packet);
        } else {
            // Into the MANET: the gateway's routing agent takes the packet
            // as its own (route discovery, source routes), as AODV-UU's
            // gateway takes what arrives on its wired interface; within the
            // MANET the gateway is its source.
            let mut packet = packet;
            if self.wired.as_ref().expect("a gateway").ns2_bare_from_hosts {
                packet.size_bytes -= IP_HEADER_BYTES;
            }
            packet.src = gateway;
            packet.visit(gateway);
            packet.ttl = packet.ttl.saturating_sub(1);
            if packet.ttl == 0 {
                self.drop_packet(now, gateway, DropReason::Ttl, &packet);
                return;
            }
            self.nodes[gateway as usize].forwarded += 1;
            self.wired.as_mut().expect("a gateway").from_hosts[g as usize] += 1;
            self.with_router(now, gateway, |r, now, ctx| r.route_output(now, packet, ctx));
        }
    }
}
