//! The contract between the network layer and a routing protocol.
//!
//! A routing protocol is a sans-IO state machine, one per node. The world
//! calls it with `now` and a [`RoutingCtx`]; the protocol answers by pushing
//! [`RoutingAction`]s (send this packet to that neighbour, originate a
//! control message, drop a packet with a reason, re-route what the interface
//! queue holds for a broken neighbour). It owns its timers: after every call
//! the world asks [`RoutingProtocol::poll_timeout`] for the earliest deadline
//! and calls [`RoutingProtocol::on_timeout`] when it comes.
//!
//! Packet ownership: a data packet handed to `route_output` or
//! `on_link_failure` belongs to the protocol until it comes back in a `Send`
//! or `Drop` action; a protocol that buffers packets while it looks for a
//! route keeps them meanwhile (they are counted in flight through
//! [`RoutingProtocol::buffered`]).
//!
//! Control packets are hop-by-hop: each transmission is originated
//! (`Originate`), and a received one is consumed by the agent, which may
//! originate a new one to pass it on (a forwarded RREQ, a RREP on its way back).

use super::{NodeId, Packet};
use crate::engine::{Rng, SimTime};
use crate::metrics::DropReason;

/// What a protocol asks the world to do.
#[derive(Debug, Clone, PartialEq)]
pub enum RoutingAction {
    /// Queue `packet` (data, keeping its uid) for the MAC towards `next_hop`.
    Send { packet: Packet, next_hop: NodeId },
    /// Queue a new control packet towards `next_hop` (`BROADCAST` for a
    /// flood). The world gives it a uid, unless `keep_uid` (a relayed
    /// message that keeps the uid of the packet it passes on, where
    /// ns-2.35's agents forward the packet itself), and counts it in the
    /// ledger and the routing statistics under `message` (e.g. "rreq");
    /// `forwarded` says whether it relays a message another node
    /// originated.
    Originate {
        packet: Packet,
        next_hop: NodeId,
        message: &'static str,
        forwarded: bool,
        keep_uid: bool,
    },
    /// Queue a control packet that has its uid already: one the protocol
    /// was given back (its transmission failed and it is salvaged), or
    /// one it held while it looked for a route (see `Create`). It keeps
    /// its uid and its place in the ledger, and the routing statistics
    /// count one more `message`, forwarded or originated.
    Resend {
        packet: Packet,
        next_hop: NodeId,
        message: &'static str,
        forwarded: bool,
    },
    /// A new control packet this node originates that has no next hop yet
    /// (DSR's route error to a node it has no route to). The world gives it
    /// a uid (unless `keep_uid`: a copy of a packet that keeps its uid, as
    /// ns-2.35's `Packet::copy` does), counts it in the ledger, and hands it
    /// back through [`RoutingProtocol::route_output`], which sends it
    /// (`Resend`, not forwarded: the routing statistics count it when it
    /// leaves), holds it while a route is found, or drops it.
    Create { packet: Packet, keep_uid: bool },
    /// Drop a packet the protocol held or was given.
    Drop { packet: Packet, reason: DropReason },
    /// Drop a packet the interface queue held for `next_hop`, a neighbour
    /// lost to missed HELLOs, that the protocol cannot send another way:
    /// counted as `no_route`; ns-2.35's AOMDV drops such packets in
    /// `nb_delete` with its own reason, `D … RTR HELO` in the trace.
    DropForLostNeighbour { packet: Packet, next_hop: NodeId },
    /// Drop another node's packet that was salvaged as many times as the
    /// protocol allows, counted for `reason` (what brought it back: a MAC
    /// failure, a lost route); ns-2.35's DSR traces it `D … RTR SAL`
    /// (`DROP_RTR_SALVAGE`, its `undeliverablePkt`) whatever the reason.
    DropSalvaged { packet: Packet, reason: DropReason },
    /// The packet this node originates or creates next, with a uid of its
    /// own, is made from packet `uid`, as ns-2.35's DSR turns the packet it
    /// could not deliver into its route error: an ns-2 trace shows it with
    /// the MAC header that packet had last. Pushed only when
    /// [`RoutingCtx::tracing`], right before that packet.
    MadeFrom { uid: u64 },
    /// Take every data packet the interface queue holds for `next_hop` back
    /// (with [`RoutingProtocol::reroutes_control`], the routing-control
    /// packets too) and hand each to [`RoutingProtocol::on_reroute`] (after
    /// a link break).
    Reroute { next_hop: NodeId },
    /// A line of the agent's own for the ns-2 trace, written as it is
    /// (ns-2.35's DSR writes its flow state so: `SFESTs`, `SFs`, `SFf`,
    /// `SFErr`, `SFEr`). Pushed only when [`RoutingCtx::tracing`].
    Note(String),
    /// A request this node would have relayed had its IP TTL not run out,
    /// as it would have left (this node's address, TTL 0, the uid of the
    /// copy received): ns-2.35's AODV and AOMDV drop it with a `D … RTR
    /// TTL` line, which the trace writes. Nothing else counts it (the copy
    /// received was counted with its broadcast). Pushed only when
    /// [`RoutingCtx::tracing`].
    Expired(Packet),
}

/// What the world lends a protocol for one call.
pub struct RoutingCtx<'a> {
    /// This node.
    pub me: NodeId,
    /// The node's routing stream (jitter, random choices).
    pub rng: &'a mut Rng,
    /// Where the protocol pushes its actions.
    pub out: &'a mut Vec<RoutingAction>,
    /// Whether the run writes an ns-2 trace, which takes the agent's
    /// [`RoutingAction::Note`]s.
    pub tracing: bool,
}

impl RoutingCtx<'_> {
    pub fn send(&mut self, packet: Packet, next_hop: NodeId) {
        self.out.push(RoutingAction::Send { packet, next_hop });
    }

    pub fn originate(
        &mut self,
        packet: Packet,
        next_hop: NodeId,
        message: &'static str,
        forwarded: bool,
    ) {
        self.out.push(RoutingAction::Originate {
            packet,
            next_hop,
            message,
            forwarded,
            keep_uid: false,
        });
    }

    /// Passes on a message another node originated: with `keep_uid` as
    /// [`Self::relay`], else as a new packet ([`Self::originate`], counted
    /// as forwarded).
    pub fn pass_on(
        &mut self,
        packet: Packet,
        next_hop: NodeId,
        message: &'static str,
        keep_uid: bool,
    ) {
        if keep_uid {
            self.relay(packet, next_hop, message);
        } else {
            self.originate(packet, next_hop, message, true);
        }
    }

    /// Relays a message another node originated as a new packet of this
    /// node that keeps `packet.uid` (the uid of the packet it came in), as
    /// ns-2.35's agents send on the packet they received.
    pub fn relay(&mut self, packet: Packet, next_hop: NodeId, message: &'static str) {
        self.out.push(RoutingAction::Originate {
            packet,
            next_hop,
            message,
            forwarded: true,
            keep_uid: true,
        });
    }

    pub fn resend(
        &mut self,
        packet: Packet,
        next_hop: NodeId,
        message: &'static str,
        forwarded: bool,
    ) {
        self.out.push(RoutingAction::Resend {
            packet,
            next_hop,
            message,
            forwarded,
        });
    }

    pub fn create(&mut self, packet: Packet) {
        self.out.push(RoutingAction::Create {
            packet,
            keep_uid: false,
        });
    }

    /// [`Self::create`] for a copy of a packet that keeps its uid
    /// (`packet.uid`), as ns-2.35's `Packet::copy` does.
    pub fn create_copy(&mut self, packet: Packet) {
        self.out.push(RoutingAction::Create {
            packet,
            keep_uid: true,
        });
    }

    /// A new control packet this node originates towards `next_hop` that
    /// keeps `packet.uid`: a copy of a packet it received, as ns-2.35's
    /// `Packet::copy` keeps the uid. Counted as originated.
    pub fn originate_copy(&mut self, packet: Packet, next_hop: NodeId, message: &'static str) {
        self.out.push(RoutingAction::Originate {
            packet,
            next_hop,
            message,
            forwarded: false,
            keep_uid: true,
        });
    }

    pub fn drop_packet(&mut self, packet: Packet, reason: DropReason) {
        self.out.push(RoutingAction::Drop { packet, reason });
    }

    /// See [`RoutingAction::MadeFrom`].
    pub fn made_from(&mut self, uid: u64) {
        if self.tracing {
            self.out.push(RoutingAction::MadeFrom { uid });
        }
    }

    /// See [`RoutingAction::DropSalvaged`].
    pub fn drop_salvaged(&mut self, packet: Packet, reason: DropReason) {
        self.out
            .push(RoutingAction::DropSalvaged { packet, reason });
    }

    /// See [`RoutingAction::DropForLostNeighbour`].
    pub fn drop_for_lost_neighbour(&mut self, packet: Packet, next_hop: NodeId) {
        self.out
            .push(RoutingAction::DropForLostNeighbour { packet, next_hop });
    }

    /// A request whose TTL ran out here ([`RoutingAction::Expired`]),
    /// made only when the run writes an ns-2 trace.
    pub fn expired(&mut self, packet: impl FnOnce() -> Packet) {
        if self.tracing {
            self.out.push(RoutingAction::Expired(packet()));
        }
    }

    /// A line for the ns-2 trace, made only when the run writes one.
    pub fn note(&mut self, line: impl FnOnce() -> String) {
        if self.tracing {
            self.out.push(RoutingAction::Note(line()));
        }
    }
}

pub trait RoutingProtocol {
    /// The scenario name of the protocol.
    fn name(&self) -> &'static str;

    /// Called once at time 0 (start periodic messages, etc.).
    fn start(&mut self, _now: SimTime, _ctx: &mut RoutingCtx) {}

    /// A data packet this node originates or must forward (TTL already
    /// decremented), or a control packet it created with
    /// [`RoutingAction::Create`]: send it, buffer it while a route is
    /// found, or drop it.
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingCtx);

    /// A packet this node originates for `host`, a fixed host behind an
    /// Internet gateway, already tunnelled: addressed to the gateway, its
    /// outer header counted. An agent that finds gateways itself (AODV-UU)
    /// may seek the host first; the others route it to the gateway.
    fn route_to_internet(
        &mut self,
        now: SimTime,
        packet: Packet,
        _host: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        self.route_output(now, packet, ctx);
    }

    /// A control packet arrived from neighbour `from`.
    fn on_control(&mut self, _now: SimTime, _from: NodeId, _packet: Packet, _ctx: &mut RoutingCtx) {
    }

    /// Whether the agent wants to hear data frames addressed to other nodes
    /// (promiscuous mode, see [`Self::on_overheard`]). Asked once, when the
    /// world is built; a world none of whose agents wants it runs exactly
    /// as without the feature.
    fn wants_promiscuous(&self) -> bool {
        false
    }

    /// With [`Self::wants_promiscuous`]: whether unicast routing-control
    /// packets for other nodes are overheard too (ns-2's DSR learns from
    /// the route errors and replies it overhears).
    fn overhears_control(&self) -> bool {
        false
    }

    /// Promiscuous mode: the MAC decoded a unicast data packet (or, with
    /// [`Self::overhears_control`], control packet) that neighbour `from`
    /// sent to another node. The packet is only looked
    /// at; it stays the other node's.
    fn on_overheard(
        &mut self,
        _now: SimTime,
        _from: NodeId,
        _packet: &Packet,
        _ctx: &mut RoutingCtx,
    ) {
    }

    /// A data packet reached its destination (this node) from neighbour `from`.
    fn on_delivered(&mut self, _now: SimTime, _from: NodeId, _packet: &Packet) {}

    /// The bytes a data packet's routing header (its `body`, e.g. DSR's
    /// options header) counts in its `size_bytes`: the header's length,
    /// unless the protocol counts its headers otherwise (DSR with ns-2.35's
    /// header sizes).
    fn header_bytes(&self, packet: &Packet) -> u32 {
        packet.body().len() as u32
    }

    /// What DSR's flow state did at this node (zeros for other protocols).
    fn flow_state_counts(&self) -> crate::metrics::result::FlowStateCounts {
        crate::metrics::result::FlowStateCounts::default()
    }

    /// After a [`RoutingAction::Reroute`] for `next_hop`: a packet the
    /// interface queue held for it, handed back. The default routes it
    /// again as [`Self::route_output`] does.
    fn on_reroute(
        &mut self,
        now: SimTime,
        packet: Packet,
        _next_hop: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        self.route_output(now, packet, ctx);
    }

    /// Whether a [`RoutingAction::Reroute`] takes back the agent's control
    /// packets queued for the broken neighbour as well as data (ns-2's DSR
    /// takes every packet for it out of its `CMUPriQueue`). The default:
    /// data only.
    fn reroutes_control(&self) -> bool {
        false
    }

    /// Whether the agent hears of a failure to deliver `packet` to its
    /// next hop ([`Self::on_link_failure`]). ns-2's agents set a failure
    /// callback on some packets only (its AODV on data, in `rt_resolve`);
    /// a packet without one is dropped where it failed: by the MAC after
    /// its retries, and by ARP, when the neighbour never answered, as an
    /// ARP drop. The default: every packet.
    fn hears_failure(&self, _packet: &Packet) -> bool {
        true
    }

    /// Whether a data packet this node originated that comes back to it
    /// from a neighbour is dropped there (a routing loop) rather than
    /// routed again. Hop-by-hop agents drop it, as ns-2.35's AODV, AOMDV
    /// and DSDV do in their `recv` (`DROP_RTR_ROUTE_LOOP`, `LOOP` in the
    /// trace) and as an IP stack drops a packet arriving with one of its
    /// own addresses as source; a source-routed packet (DSR's) never
    /// passes its source again. The default: dropped.
    fn drops_returning_packets(&self) -> bool {
        true
    }

    /// The packets the agent holds while it looks for their routes, in the
    /// order a reset at the end of an ns-2.35 run drops them
    /// (`DROP_END_OF_SIMULATION`, `D … RTR END`): DSR's send buffer, as its
    /// `Terminate` empties it. Only the ns-2 trace asks. The default: none.
    fn waiting_packets(&self) -> Vec<&Packet> {
        Vec::new()
    }

    /// The MAC gave up on a frame to `next_hop` (retry limit): the link is
    /// broken. `packet` is the packet it carried, or `None` when the neighbour
    /// had in fact received it (only the ACKs were lost), so it must not be
    /// resent or dropped. The default drops the packet; protocols repair,
    /// salvage or re-buffer.
    fn on_link_failure(
        &mut self,
        _now: SimTime,
        _next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        if let Some(packet) = packet {
            ctx.drop_packet(packet, DropReason::RetryLimit);
        }
    }

    /// The identity of a flooded control packet (for AODV a RREQ's
    /// originator and id), if this protocol drops a copy it has already
    /// seen on arrival and does nothing else with it ([`Self::has_seen`]).
    /// Asked of the sender's agent once per broadcast frame.
    fn flood_id(&self, _packet: &Packet) -> Option<(NodeId, u32)> {
        None
    }

    /// How long the agent remembers a flood (see [`Self::flood_id`]): first
    /// handed a copy of it through [`Self::on_control`] at `t`, it drops
    /// unread every copy that arrives before `t + flood_memory`, as
    /// [`Self::has_seen`] says. The world relies on it to keep that
    /// knowledge itself (0: the protocol has no floods).
    fn flood_memory(&self) -> SimTime {
        0
    }

    /// Whether a copy of flood `id` (see [`Self::flood_id`]) arriving at
    /// `at` would be dropped on arrival with no effect at all on the agent
    /// (its own flood, or one seen and remembered until after `at`). The
    /// world then hands such a frame to the MAC as an overheard one and
    /// never to the agent. It must hold for any calls made between now and
    /// `at`.
    fn has_seen(&self, _id: (NodeId, u32), _at: SimTime) -> bool {
        false
    }

    /// The earliest deadline of the protocol's timers.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// Handles every timer due at or before `now`.
    fn on_timeout(&mut self, _now: SimTime, _ctx: &mut RoutingCtx) {}

    /// Data packets the protocol holds (waiting for a route), for the ledger.
    fn buffered(&self) -> u64 {
        0
    }

    /// Hops to `dst` on the route in force at `now`, if known (cross-layer
    /// users: TCP-AP).
    fn hop_count(&self, _dst: NodeId, _now: SimTime) -> Option<u32> {
        None
    }

    /// Route discoveries this node has started (a first request for a
    /// destination, not its retries); 0 for proactive protocols.
    fn route_discoveries(&self) -> u64 {
        0
    }
}
