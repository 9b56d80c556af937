//! OLSR, Optimized Link State Routing (RFC 3626), proactive.
//!
//! Split by concern: this file is the agent ([`Olsr`]); [`link_set`] holds
//! link sensing and the neighbour set, [`two_hop`] the 2-hop neighbour set,
//! [`mpr`] the MPR selection heuristic, [`mpr_selectors`] the MPR selector
//! set, [`topology`] the topology set, [`duplicate_set`] the duplicate set,
//! [`routing_table`] the route calculation and [`data_buffer`] the data
//! waiting for a route. The messages are in [`crate::wire::olsr`] in their
//! RFC byte layout, one message per OLSR packet, over UDP (8 header bytes)
//! to port 698 with IP TTL 1, so a HELLO to three neighbours is
//! 20 + 8 + 4 + 12 + 4 + 4 + 12 = 64 bytes on the IP layer.
//!
//! # What it does
//!
//! * **Link sensing and neighbour detection** (sections 6, 7.1.1 and 8.1):
//!   HELLOs every HELLO_INTERVAL (2 s) minus a jitter drawn uniformly from
//!   [0, MAXJITTER] (MAXJITTER = HELLO_INTERVAL / 4 = 0.5 s, the RFC's
//!   jitter for periodic messages), with Vtime NEIGHB_HOLD_TIME (6 s) and the node's
//!   willingness (WILL_DEFAULT unless configured). A HELLO lists every link
//!   in the link set with its link type (SYM, ASYM or LOST) and neighbour
//!   type (MPR, SYM or NOT neighbour). A link becomes symmetric when the
//!   neighbour's HELLO lists this node as SYM or ASYM, and stops being so
//!   when the neighbour lists it LOST or the times run out.
//! * **2-hop neighbours** (section 8.2.1) from the SYM/MPR neighbours listed
//!   by symmetric neighbours; a NOT_NEIGH entry removes the pair.
//! * **MPR selection** by the section 8.3.1 heuristic with willingness,
//!   reachability and degree tie-breaks and the optional redundancy pass
//!   (see [`mpr`]), from the neighbourhood as it is when a HELLO is
//!   built (computed then, and only when the neighbourhood changed).
//! * **MPR selector set** (section 8.4.1) from HELLOs that list this node
//!   as MPR_NEIGH. A HELLO listing this node with another neighbour type
//!   removes the selector at once (the RFC lets it time out; the newer
//!   HELLO is the better information).
//! * **TC messages** (section 9): a node with MPR selectors sends a TC
//!   every TC_INTERVAL (5 s) minus the jitter, advertising its selectors
//!   with an ANSN incremented whenever that set changes, Vtime TOP_HOLD_TIME
//!   (15 s), TTL 255; after the set empties, empty TCs continue for
//!   TOP_HOLD_TIME. When the selector set changes, a TC goes early
//!   (section 9.3 allows it): after the jitter, but no sooner than
//!   [`OlsrConfig::min_tc_gap`] (1 s) after the previous one.
//! * **Default forwarding** (section 3.4): a message is processed and
//!   considered for forwarding only on its first arrival (the duplicate
//!   set, DUP_HOLD_TIME 30 s); it is retransmitted only when the neighbour
//!   it came from is a symmetric neighbour that selected this node as MPR,
//!   and its TTL allows, after a jitter in [0, MAXJITTER] (this agent's
//!   choice for relayed messages; it desynchronises neighbouring MPRs that
//!   relay the same TC, at up to 0.5 s per hop). Unknown message
//!   types are forwarded the same way, unprocessed.
//! * **Topology set** (section 9.5): TCs from non-symmetric neighbours are
//!   discarded; a TC older (by ANSN) than what is held is ignored; a newer
//!   one replaces the originator's advertised links.
//! * **Routing table** (section 10): shortest hop count over symmetric
//!   neighbours, 2-hop neighbours and the topology set, recomputed from
//!   scratch after every change (when first read after it: most nodes of a
//!   large network route nothing between two changes).
//!   [`RoutingProtocol::hop_count`] reads it.
//! * **Link-layer notification** (section 13, optional; off by default,
//!   [`OlsrConfig::link_layer_notification`]). Off, a frame the MAC gives
//!   up on is dropped (`retry_limit`) and a broken link is noticed when
//!   its times run out (NEIGHB_HOLD_TIME after the last HELLO). On, the
//!   link loses its symmetric status at once (L_SYM_time expires,
//!   L_LOST_LINK_time = now + [`OlsrConfig::lost_link_hold`], 0 by
//!   default), routes are recomputed, and the failed packet and the
//!   interface queue's data for that neighbour are routed again (or wait
//!   for a route); the link is symmetric again once the neighbour's next
//!   HELLO lists this node. Off is the default because on a congested
//!   chain most MAC failures are collisions between hidden terminals, not
//!   broken links: with it on, TCP NewReno over a 6-node static chain fell
//!   from 128 to 40 kbit/s (each failure held its packets up to a HELLO
//!   interval, so TCP timed out, and churned the MPR selector sets).
//! * **Data with no route** (not in the RFC; the issue asks that a flow
//!   starting before routes exist must not silently die): held in a FIFO
//!   of 64 packets for at most 30 s (the figures of ns-2's AODV queue) and
//!   sent as soon as the routing table has a route; overflow drops the
//!   oldest (`route_buffer_full`), age drops it (`route_buffer_timeout`).
//!   This applies at every node, relays included.
//!
//! * **HNA** (section 12; [`hna`]), in a network with Internet gateways
//!   ([`Olsr::with_gateways`]): a gateway sends an HNA listing the default
//!   route (0.0.0.0/0) every HNA_INTERVAL (5 s) minus the jitter, the first
//!   one interval after the start, with Vtime HNA_HOLD_TIME (15 s) and TTL
//!   255, flooded by default forwarding; every node keeps the association
//!   set. A packet for a host ([`RoutingProtocol::route_to_internet`]) is
//!   tunnelled to the announcing gateway the routing table counts the
//!   fewest hops to (section 12.6; the lowest address among equals), or
//!   waits, as data with no route does, until one is known.
//!
//! Control statistics: HELLOs are counted as "hello", TCs (originated and
//! forwarded) as "tc", HNAs as "hna".
//!
//! # Not implemented
//!
//! Multiple interfaces and MID messages (one interface per node, so main
//! address = interface address), HNA for networks other than the Internet
//! (received and kept, never routed to: hosts are reached by tunnel),
//! link hysteresis
//! (section 14), TC_REDUNDANCY other than 0 (only MPR selectors are
//! advertised), and piggybacking several messages in one packet (each message
//! travels alone, so control overhead in packets is an upper bound on what
//! an aggregating implementation sends). `[routing.olsr]` sets the HELLO
//! and TC intervals, the willingness and link-layer notification; the
//! other parameters keep the RFC's values.
//! ns-2.35 has no OLSR, so there is no ns-2 behaviour to follow here.

pub mod data_buffer;
pub mod duplicate_set;
mod grouped;
pub mod hna;
pub mod link_set;
pub mod mpr;
pub mod mpr_selectors;
pub mod routing_table;
mod timed_map;
pub mod topology;
pub mod two_hop;

use crate::engine::{SimTime, NS_PER_S};
use crate::metrics::DropReason;
use crate::net::{
    NodeId, Packet, RoutingAction, RoutingCtx, RoutingProtocol, BROADCAST, UDP_HEADER_BYTES,
};
use crate::routing::timers::TimerQueue;
use crate::wire::olsr::{
    decode_time, encode_time, HelloRepr, HnaRepr, LinkBlock, LinkCode, LinkType, MessageBody,
    MessageRepr, NeighborType, PacketRepr, TcRepr,
};
use data_buffer::DataBuffer;
use duplicate_set::DuplicateSet;
use hna::{AssociationSet, INTERNET};
use link_set::{LinkSet, WILL_DEFAULT};
use mpr_selectors::MprSelectorSet;
use routing_table::RoutingTable;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use topology::TopologySet;
use two_hop::TwoHopSet;

/// Protocol parameters; `Default` is RFC 3626's (section 18).
#[derive(Debug, Clone, PartialEq)]
pub struct OlsrConfig {
    /// HELLO_INTERVAL (2 s).
    pub hello_interval: SimTime,
    /// TC_INTERVAL (5 s).
    pub tc_interval: SimTime,
    /// NEIGHB_HOLD_TIME (3 × HELLO_INTERVAL = 6 s), the Vtime of HELLOs.
    pub neighb_hold: SimTime,
    /// TOP_HOLD_TIME (3 × TC_INTERVAL = 15 s), the Vtime of TCs.
    pub top_hold: SimTime,
    /// DUP_HOLD_TIME (30 s).
    pub dup_hold: SimTime,
    /// MAXJITTER (HELLO_INTERVAL / 4 = 0.5 s).
    pub max_jitter: SimTime,
    /// This node's willingness (WILL_DEFAULT = 3).
    pub willingness: u8,
    /// Act on MAC failures (RFC 3626 section 13).
    pub link_layer_notification: bool,
    /// How long a MAC failure holds a link LOST (0: until the next HELLO).
    pub lost_link_hold: SimTime,
    /// Shortest gap between a TC and an early one triggered by a change of
    /// the MPR selector set (1 s).
    pub min_tc_gap: SimTime,
    /// Data packets held waiting for a route (64).
    pub buffer_packets: usize,
    /// How long one may wait (30 s).
    pub buffer_timeout: SimTime,
    /// HNA_INTERVAL (5 s): how often a gateway announces the Internet.
    pub hna_interval: SimTime,
    /// HNA_HOLD_TIME (3 × HNA_INTERVAL = 15 s), the Vtime of HNAs.
    pub hna_hold: SimTime,
}

impl Default for OlsrConfig {
    fn default() -> Self {
        let hello = 2 * NS_PER_S;
        let tc = 5 * NS_PER_S;
        Self {
            hello_interval: hello,
            tc_interval: tc,
            neighb_hold: 3 * hello,
            top_hold: 3 * tc,
            dup_hold: 30 * NS_PER_S,
            max_jitter: hello / 4,
            willingness: WILL_DEFAULT,
            link_layer_notification: false,
            lost_link_hold: 0,
            min_tc_gap: NS_PER_S,
            buffer_packets: 64,
            buffer_timeout: 30 * NS_PER_S,
            hna_interval: tc,
            hna_hold: 3 * tc,
        }
    }
}

#[derive(Debug, Clone)]
enum Timer {
    Hello,
    /// The next TC; stale when `generation` is not the agent's current one.
    Tc {
        generation: u64,
    },
    /// The next HNA (a gateway's).
    Hna,
    /// A message waiting out its forwarding jitter.
    Forward {
        packet: Packet,
        message: &'static str,
    },
}

/// HNA (section 12), in a network with Internet gateways.
#[derive(Debug, Clone)]
struct Hna {
    /// This node is a gateway: it announces the Internet.
    gateway: bool,
    associations: AssociationSet,
    /// Packets for hosts, from this node, waiting for a gateway it has a
    /// route to; `buffer_packets` of them for `buffer_timeout` at most.
    waiting: DataBuffer,
}

/// One node's OLSR agent.
#[derive(Debug, Clone)]
pub struct Olsr {
    /// Shared by every node's agent (one copy, not one per node).
    cfg: Rc<OlsrConfig>,
    me: NodeId,
    links: LinkSet,
    two_hop: TwoHopSet,
    /// The MPR set, computed from `sym` and `pairs` when first read after
    /// they change: only a HELLO reads it, every HELLO_INTERVAL, while the
    /// neighbourhood may change with every HELLO heard.
    mprs: OnceCell<BTreeSet<NodeId>>,
    selectors: MprSelectorSet,
    topology: TopologySet,
    dups: DuplicateSet,
    /// The routing table, computed from `sym`, `pairs` and `topology` when
    /// first read after they change: most nodes of a large network route
    /// nothing between two changes of the topology.
    table: OnceCell<RoutingTable>,
    buffer: DataBuffer,
    timers: TimerQueue<Timer>,
    /// Symmetric neighbours at the last refresh.
    sym: BTreeMap<NodeId, u8>,
    /// The 2-hop pairs at the last refresh: with `sym`, all that the MPR
    /// set is computed from, so a refresh that finds both unchanged (a
    /// HELLO that only renews times) keeps it as it is.
    pairs: Vec<(NodeId, NodeId)>,
    /// The 2-hop, topology and MPR selector sets' generations at the last
    /// refresh.
    pairs_gen: u64,
    topo_gen: u64,
    selectors_gen: u64,
    /// The link set's generation and the time at the last refresh.
    links_gen: u64,
    refreshed_at: SimTime,
    /// The selectors the current ANSN stands for.
    advertised: Vec<NodeId>,
    ansn: u16,
    packet_seq: u16,
    message_seq: u16,
    tc_generation: u64,
    tc_deadline: SimTime,
    last_tc: Option<SimTime>,
    /// Empty TCs are still sent until then (section 9.3).
    tc_hold_until: SimTime,
    /// With Internet gateways ([`Self::with_gateways`]); boxed, as most
    /// networks have none.
    hna: Option<Box<Hna>>,
    now: SimTime,
}

impl Olsr {
    /// `cfg`: a [`OlsrConfig`], or an `Rc` of one the agents of a network share.
    pub fn new(me: NodeId, cfg: impl Into<Rc<OlsrConfig>>) -> Self {
        let cfg = cfg.into();
        Self {
            buffer: DataBuffer::new(cfg.buffer_packets, cfg.buffer_timeout),
            cfg,
            me,
            links: LinkSet::default(),
            two_hop: TwoHopSet::default(),
            mprs: OnceCell::new(),
            selectors: MprSelectorSet::default(),
            topology: TopologySet::default(),
            dups: DuplicateSet::default(),
            table: OnceCell::new(),
            timers: TimerQueue::default(),
            sym: BTreeMap::new(),
            pairs: Vec::new(),
            pairs_gen: 0,
            topo_gen: 0,
            selectors_gen: 0,
            links_gen: 0,
            refreshed_at: 0,
            advertised: Vec::new(),
            ansn: 0,
            packet_seq: 0,
            message_seq: 0,
            tc_generation: 0,
            tc_deadline: SimTime::MAX,
            last_tc: None,
            tc_hold_until: 0,
            hna: None,
            now: 0,
        }
    }

    /// In a network with Internet gateways: this node learns them from
    /// their HNA messages and, when `gateway`, announces the Internet
    /// itself every HNA interval.
    pub fn with_gateways(mut self, gateway: bool) -> Self {
        self.hna = Some(Box::new(Hna {
            gateway,
            associations: AssociationSet::default(),
            waiting: DataBuffer::new(self.cfg.buffer_packets, self.cfg.buffer_timeout),
        }));
        self
    }

    /// The association set (`None` in a network without gateways).
    pub fn associations(&self) -> Option<&AssociationSet> {
        self.hna.as_ref().map(|h| &h.associations)
    }

    /// Section 12.6: the gateway a packet for the Internet goes to, the
    /// nearest announcing one this node has a route to.
    pub fn internet_gateway(&self) -> Option<NodeId> {
        let hna = self.hna.as_ref()?;
        let table = self.table();
        hna.associations
            .best_gateway(INTERNET, |g| table.get(g).map(|r| r.hops))
    }

    pub fn config(&self) -> &OlsrConfig {
        &self.cfg
    }

    pub fn links(&self) -> &LinkSet {
        &self.links
    }

    pub fn two_hop(&self) -> &TwoHopSet {
        &self.two_hop
    }

    pub fn mprs(&self) -> &BTreeSet<NodeId> {
        self.mprs
            .get_or_init(|| mpr::select_mprs(self.me, &self.sym, &self.pairs))
    }

    pub fn selectors(&self) -> &MprSelectorSet {
        &self.selectors
    }

    pub fn topology(&self) -> &TopologySet {
        &self.topology
    }

    pub fn duplicates(&self) -> &DuplicateSet {
        &self.dups
    }

    pub fn table(&self) -> &RoutingTable {
        self.table
            .get_or_init(|| routes_over(self.me, &self.sym, &self.pairs, &self.topology))
    }

    pub fn ansn(&self) -> u16 {
        self.ansn
    }

    fn jitter(&self, ctx: &mut RoutingCtx) -> SimTime {
        ctx.rng.below(self.cfg.max_jitter + 1)
    }

    /// One message in its own packet, broadcast with IP TTL 1.
    fn packet(&mut self, msg: MessageRepr) -> Packet {
        let p = PacketRepr {
            seq: self.packet_seq,
            messages: vec![msg],
        };
        self.packet_seq = self.packet_seq.wrapping_add(1);
        Packet::control(self.me, BROADCAST, 1, UDP_HEADER_BYTES, p.to_bytes())
    }

    fn next_message_seq(&mut self) -> u16 {
        let s = self.message_seq;
        self.message_seq = self.message_seq.wrapping_add(1);
        s
    }

    // ---- Emission -----------------------------------------------------------

    /// Builds the HELLO this node sends now (section 6.2), taking the next
    /// message sequence number.
    pub fn hello(&mut self, now: SimTime) -> MessageRepr {
        let mut blocks: BTreeMap<u8, Vec<NodeId>> = BTreeMap::new();
        let mprs = self.mprs();
        for (nb, l) in self.links.iter() {
            if l.until <= now {
                continue;
            }
            let link = l.link_type(now);
            let neighbor = if mprs.contains(&nb) {
                NeighborType::MprNeigh
            } else if link == LinkType::Sym {
                NeighborType::SymNeigh
            } else {
                NeighborType::NotNeigh
            };
            blocks
                .entry(LinkCode::new(link, neighbor).0)
                .or_default()
                .push(nb);
        }
        MessageRepr {
            vtime: encode_time(self.cfg.neighb_hold),
            originator: self.me,
            ttl: 1,
            hop_count: 0,
            seq: self.next_message_seq(),
            body: MessageBody::Hello(HelloRepr {
                htime: encode_time(self.cfg.hello_interval),
                willingness: self.cfg.willingness,
                links: blocks
                    .into_iter()
                    .map(|(code, addrs)| LinkBlock {
                        code: LinkCode(code),
                        addrs,
                    })
                    .collect(),
            }),
        }
    }

    fn send_hello(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let m = self.hello(now);
        let p = self.packet(m);
        ctx.originate(p, BROADCAST, "hello", false);
        let next = now + self.cfg.hello_interval - self.jitter(ctx);
        self.timers.push(next, Timer::Hello);
    }

    fn schedule_tc(&mut self, at: SimTime) {
        self.tc_generation += 1;
        self.tc_deadline = at;
        self.timers.push(
            at,
            Timer::Tc {
                generation: self.tc_generation,
            },
        );
    }

    fn on_tc_timer(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        if !self.advertised.is_empty() || now < self.tc_hold_until {
            let msg = MessageRepr {
                vtime: encode_time(self.cfg.top_hold),
                originator: self.me,
                ttl: 255,
                hop_count: 0,
                seq: self.next_message_seq(),
                body: MessageBody::Tc(TcRepr {
                    ansn: self.ansn,
                    advertised: self.advertised.clone(),
                }),
            };
            let p = self.packet(msg);
            ctx.originate(p, BROADCAST, "tc", false);
            self.last_tc = Some(now);
        }
        let next = now + self.cfg.tc_interval - self.jitter(ctx);
        self.schedule_tc(next);
    }

    /// A gateway's HNA (section 12.3): the Internet, flooded as a TC is.
    fn send_hna(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let msg = MessageRepr {
            vtime: encode_time(self.cfg.hna_hold),
            originator: self.me,
            ttl: 255,
            hop_count: 0,
            seq: self.next_message_seq(),
            body: MessageBody::Hna(HnaRepr {
                networks: vec![INTERNET],
            }),
        };
        let p = self.packet(msg);
        ctx.originate(p, BROADCAST, "hna", false);
        let next = now + self.cfg.hna_interval - self.jitter(ctx);
        self.timers.push(next, Timer::Hna);
    }

    /// The MPR selector set changed: new ANSN, and an early TC.
    fn selectors_changed(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        // `advertised` holds the selectors as they were at the last call:
        // while no selector came or went since, they are the same.
        if self.selectors.generation() == self.selectors_gen {
            return;
        }
        self.selectors_gen = self.selectors.generation();
        let now_adv = self.selectors.addrs();
        if now_adv == self.advertised {
            return;
        }
        if now_adv.is_empty() {
            self.tc_hold_until = now + self.cfg.top_hold;
        }
        self.advertised = now_adv;
        self.ansn = self.ansn.wrapping_add(1);
        let earliest = self.last_tc.map_or(0, |t| t + self.cfg.min_tc_gap);
        let at = (now + self.jitter(ctx)).max(earliest);
        if at < self.tc_deadline {
            self.schedule_tc(at);
        }
    }

    // ---- Reception ---------------------------------------------------------

    /// HELLO processing (sections 7.1.1, 8.1, 8.2.1, 8.4.1).
    fn on_hello(&mut self, now: SimTime, from: NodeId, vtime: SimTime, h: &HelloRepr) {
        let mut listed = None;
        for b in h.links.iter().filter(|b| b.code.is_valid()) {
            if b.addrs.contains(&self.me) {
                listed = Some(b.code);
                break;
            }
        }
        self.links.on_hello(
            now,
            from,
            vtime,
            listed.map(|c| c.link_type()),
            h.willingness,
            self.cfg.neighb_hold,
        );
        if !self.links.is_sym(from, now) {
            return;
        }
        let me = self.me;
        for b in h.links.iter().filter(|b| b.code.is_valid()) {
            let addrs = b.addrs.iter().copied().filter(|&a| a != me);
            match b.code.neighbor_type() {
                Some(NeighborType::SymNeigh | NeighborType::MprNeigh) => {
                    self.two_hop.insert_all(from, addrs, now + vtime)
                }
                _ => self.two_hop.remove_all(from, addrs),
            }
        }
        match listed.and_then(|c| c.neighbor_type()) {
            Some(NeighborType::MprNeigh) => {
                self.selectors.insert(from, now + vtime);
            }
            Some(_) => {
                self.selectors.remove(from);
            }
            None => {}
        }
    }

    /// One message of a received packet (section 3.4).
    fn on_message(&mut self, now: SimTime, from: NodeId, m: MessageRepr, ctx: &mut RoutingCtx) {
        if m.ttl == 0 || m.originator == self.me {
            return;
        }
        let vtime = decode_time(m.vtime);
        if let MessageBody::Hello(h) = &m.body {
            // HELLOs are never forwarded; one interface: originator = sender.
            if m.originator == from {
                self.on_hello(now, from, vtime, h);
            }
            return;
        }
        if self.dups.get(m.originator, m.seq, now).is_some() {
            return; // processed and considered for forwarding already
        }
        if !self.links.is_sym(from, now) {
            // Sections 3.4 and 9.5: neither processed nor recorded, so a
            // copy from a symmetric neighbour still counts.
            return;
        }
        match &m.body {
            MessageBody::Tc(tc) => {
                self.topology
                    .on_tc(m.originator, tc.ansn, &tc.advertised, now + vtime, now);
            }
            MessageBody::Hna(h) => {
                if let Some(hna) = self.hna.as_deref_mut() {
                    hna.associations
                        .on_hna(m.originator, &h.networks, now + vtime);
                }
            }
            _ => {}
        }
        let forward = self.selectors.contains(from, now) && m.ttl > 1;
        self.dups
            .insert(m.originator, m.seq, forward, now + self.cfg.dup_hold);
        if forward {
            let message = match m.body {
                MessageBody::Tc(_) => "tc",
                MessageBody::Hna(_) => "hna",
                _ => "other",
            };
            let mut out = m;
            out.ttl -= 1;
            out.hop_count = out.hop_count.saturating_add(1);
            let p = self.packet(out);
            let at = now + self.jitter(ctx);
            self.timers.push(at, Timer::Forward { packet: p, message });
        }
    }

    // ---- State upkeep --------------------------------------------------------

    /// Expires the sets, recomputes MPRs and routes, sends what waited for
    /// a route and drops what waited too long.
    fn refresh(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.now = now;
        self.links.expire(now);
        // `sym` holds the symmetric neighbours at the last refresh. With no
        // change of the link set since, and no link time passed in between,
        // every link has the type it had then.
        let untouched = self.links.generation() == self.links_gen
            && self
                .links
                .next_change(self.refreshed_at)
                .is_none_or(|t| t > now);
        self.links_gen = self.links.generation();
        self.refreshed_at = now;
        let (links, sym) = (&self.links, &self.sym);
        let compared = || {
            links
                .sym_neighbors(now)
                .eq(sym.iter().map(|(&n, &w)| (n, w)))
        };
        debug_assert!(!untouched || compared());
        let sym_same = untouched || compared();
        if !sym_same {
            let sym: BTreeMap<NodeId, u8> = self.links.sym_neighbors(now).collect();
            for nb in self.sym.keys() {
                if !sym.contains_key(nb) {
                    // Section 8.5: a neighbour that is no longer symmetric.
                    self.two_hop.remove_neighbor(*nb);
                    self.selectors.remove(*nb);
                }
            }
            self.sym = sym;
        }
        self.two_hop.expire(now);
        self.selectors.expire(now);
        self.topology.expire(now);
        self.dups.expire(now);
        // The MPR set and the routing table are pure functions of `sym`,
        // the 2-hop pairs and the topology links: recomputed only when one
        // of those changed. A set whose keys did not come or go since the
        // last refresh is the same; one whose keys did may still be.
        let pairs_same = self.pairs_gen == self.two_hop.generation()
            || self.two_hop.iter().eq(self.pairs.iter().copied());
        self.pairs_gen = self.two_hop.generation();
        if !pairs_same {
            self.pairs.clear();
            self.pairs.extend(self.two_hop.iter());
        }
        if sym_same && pairs_same {
            debug_assert!(self
                .mprs
                .get()
                .is_none_or(|m| *m == mpr::select_mprs(self.me, &self.sym, &self.pairs)));
        } else {
            self.mprs = OnceCell::new();
        }
        self.selectors_changed(now, ctx);
        let topo_same = self.topo_gen == self.topology.generation();
        self.topo_gen = self.topology.generation();
        if sym_same && pairs_same && topo_same {
            debug_assert!(
                self.table.get().is_none_or(
                    |t| *t == routes_over(self.me, &self.sym, &self.pairs, &self.topology)
                )
            );
        } else {
            // Computed when first read. No packet in the buffer has a
            // route in the table it was computed from (it would have
            // gone), so only a new table can send some.
            self.table = OnceCell::new();
            if !self.buffer.is_empty() {
                let (me, sym, pairs, topo) = (self.me, &self.sym, &self.pairs, &self.topology);
                let t = self.table.get_or_init(|| routes_over(me, sym, pairs, topo));
                for p in self.buffer.take_if(|p| t.get(p.dst).is_some()) {
                    let h = t.get(p.dst).map_or(p.dst, |r| r.next_hop);
                    ctx.send(p, h);
                }
            }
        }
        for p in self.buffer.expire(now) {
            ctx.drop_packet(p, DropReason::RouteBufferTimeout);
        }
        self.refresh_internet(now, ctx);
    }

    /// Expires the association set, sends the packets for hosts that
    /// waited for a gateway once one has a route, and drops those that
    /// waited too long.
    fn refresh_internet(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let Some(hna) = self.hna.as_deref_mut() else {
            return;
        };
        hna.associations.expire(now);
        if !hna.waiting.is_empty() {
            if let Some(g) = self.internet_gateway() {
                let h = self
                    .table()
                    .get(g)
                    .expect("a route to the gateway")
                    .next_hop;
                let hna = self.hna.as_deref_mut().expect("HNA");
                for mut p in hna.waiting.take_if(|_| true) {
                    p.dst = g;
                    ctx.send(p, h);
                }
            }
        }
        let hna = self.hna.as_deref_mut().expect("HNA");
        for p in hna.waiting.expire(now) {
            ctx.drop_packet(p, DropReason::RouteBufferTimeout);
        }
    }
}

/// The routing table over these neighbours, 2-hop pairs and topology set.
fn routes_over(
    me: NodeId,
    sym: &BTreeMap<NodeId, u8>,
    pairs: &[(NodeId, NodeId)],
    topology: &TopologySet,
) -> RoutingTable {
    RoutingTable::compute_with(me, sym, pairs, |last| topology.advertised_by(last))
}

impl RoutingProtocol for Olsr {
    fn name(&self) -> &'static str {
        "olsr"
    }

    fn start(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.now = now;
        let first_hello = now + self.jitter(ctx);
        self.timers.push(first_hello, Timer::Hello);
        let first_tc = now + self.cfg.tc_interval - self.jitter(ctx);
        self.schedule_tc(first_tc);
        if self.hna.as_ref().is_some_and(|h| h.gateway) {
            let first_hna = now + self.cfg.hna_interval - self.jitter(ctx);
            self.timers.push(first_hna, Timer::Hna);
        }
    }

    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        match self.table().get(packet.dst) {
            Some(r) => {
                let h = r.next_hop;
                ctx.send(packet, h);
            }
            None => {
                if let Some(old) = self.buffer.push(now, packet) {
                    ctx.drop_packet(old, DropReason::RouteBufferFull);
                }
            }
        }
    }

    /// Section 12.6: through the nearest gateway that announces the
    /// Internet (the packet's tunnel goes to it); while none is known with
    /// a route, the packet waits as one with no route does.
    fn route_to_internet(
        &mut self,
        now: SimTime,
        mut packet: Packet,
        _host: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        self.now = now;
        if self.hna.is_none() {
            return self.route_output(now, packet, ctx);
        }
        match self.internet_gateway() {
            Some(g) => {
                packet.dst = g;
                self.route_output(now, packet, ctx);
            }
            None => {
                let hna = self.hna.as_deref_mut().expect("HNA");
                if let Some(old) = hna.waiting.push(now, packet) {
                    ctx.drop_packet(old, DropReason::RouteBufferFull);
                }
            }
        }
    }

    fn on_control(&mut self, now: SimTime, from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        let Ok(p) = PacketRepr::parse(packet.body()) else {
            return;
        };
        for m in p.messages {
            self.on_message(now, from, m, ctx);
        }
        self.refresh(now, ctx);
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        self.now = now;
        if !self.cfg.link_layer_notification {
            if let Some(p) = packet {
                ctx.drop_packet(p, DropReason::RetryLimit);
            }
            return;
        }
        self.links.link_lost(now, next_hop, self.cfg.lost_link_hold);
        self.refresh(now, ctx);
        match packet {
            Some(p) if p.is_control() => ctx.drop_packet(p, DropReason::RetryLimit),
            Some(p) => self.route_output(now, p, ctx),
            None => {}
        }
        ctx.out.push(RoutingAction::Reroute { next_hop });
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.timers.next_deadline(),
            self.links.next_change(self.now),
            self.two_hop.next_expiry(),
            self.selectors.next_expiry(),
            self.topology.next_expiry(),
            self.buffer.next_expiry(),
            self.hna.as_ref().and_then(|h| {
                [h.associations.next_expiry(), h.waiting.next_expiry()]
                    .into_iter()
                    .flatten()
                    .min()
            }),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_timeout(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        // Expire first, so a HELLO or TC sent now reflects the sets now.
        self.refresh(now, ctx);
        while let Some((_, t)) = self.timers.pop_due(now) {
            match t {
                Timer::Hello => self.send_hello(now, ctx),
                Timer::Hna => self.send_hna(now, ctx),
                Timer::Tc { generation } => {
                    if generation == self.tc_generation {
                        self.on_tc_timer(now, ctx);
                    }
                }
                Timer::Forward { packet, message } => {
                    ctx.originate(packet, BROADCAST, message, true)
                }
            }
        }
    }

    fn buffered(&self) -> u64 {
        let waiting = self.hna.as_ref().map_or(0, |h| h.waiting.len());
        (self.buffer.len() + waiting) as u64
    }

    fn hop_count(&self, dst: NodeId, _now: SimTime) -> Option<u32> {
        self.table().get(dst).map(|r| r.hops)
    }
}

#[cfg(test)]
mod tests;
