//! Dynamic Source Routing (RFC 4728), with ns-2.35's choices where the RFC
//! leaves room.
//!
//! Split by concern: this file is the agent ([`Dsr`]); [`route_cache`] the
//! path cache; [`send_buffer`] the packets waiting for a route;
//! [`request_table`] duplicate requests and per-target discovery back-off.
//! The messages are in [`crate::wire::dsr`] in their RFC byte layout: a data
//! packet carries a DSR options header with a Source Route option in
//! `Packet::body`, counted in `size_bytes` (4 fixed bytes + 4 + 4 per
//! intermediate hop).
//!
//! # What it does
//!
//! * **Route discovery** (RFC 4728 section 3.1). A packet with no cached
//!   route waits in the send buffer (64 packets, 30 s; overflow drops the
//!   oldest as `route_buffer_full`, expiry as `route_buffer_timeout`). The
//!   first request is non-propagating (TTL 1); 30 ms later, if no reply
//!   came, a propagating one (TTL = `max_route_len` = 16, ns-2's
//!   `MAX_SR_LEN`), then again with exponential back-off 0.5 s, 1 s, 2 s …
//!   capped at 10 s while packets still wait (RFC 4728's RequestPeriod and
//!   MaxRequestPeriod, the values of ns-2's `rt_rq_period` and
//!   `rt_rq_max_period`). ns-2.35 paces its requests differently (cycles
//!   backing off fourfold until a reply, a periodic send-buffer check):
//!   [`RequestPacing::Ns2`] follows it. Requests carry a route record; a node appends
//!   itself and rebroadcasts after a uniform jitter of up to 10 ms (ns-2
//!   `RREQ_JITTER`). Duplicates by (initiator, identification) are dropped.
//!   With the `ns2` preset a relayed request also grows by its whole new
//!   header at each hop, as ns-2.35's does
//!   ([`DsrConfig::ns2_request_sizes`]).
//! * **Replies.** The target answers every copy of a request that reaches it
//!   (ns-2 `dsragent_reply_only_to_first_rreq = false`), along the reversed
//!   route record (links are symmetric here, as ns-2 assumes with
//!   `require_bi_routes`). An intermediate node holding a cached route
//!   answers with the record concatenated with its cached route, unless that
//!   would loop, and does not propagate the request (ns-2
//!   `reply_from_cache_on_propagating = true`). ns-2's reply hold-off (a
//!   delay proportional to the route length to avoid reply storms) is not
//!   modelled.
//! * **Caching.** With `preset = "rfc"` (one cache, [`CacheModel::Single`])
//!   every node caches the reversed route record of a request it hears, the
//!   route in a reply it forwards or receives, and the rest of the source
//!   route of data it forwards (ns-2 `snoop_source_routes`); a packet it
//!   only overhears teaches it nothing, except when it shortens the
//!   packet's route (below). With `preset = "ns2"` the cache is ns-2's
//!   primary and secondary ([`CacheModel::Ns2`]) and learns what ns-2's
//!   does, from overheard data, replies and route errors too.
//! * **Automatic route shortening** (RFC 4728 section 3.4.3), on by default
//!   as in ns-2 (`dsragent_send_grat_replies`; scenario key `[routing.dsr]
//!   gratuitous_replies`). The agent asks for promiscuous mode, and the MAC
//!   hands it every unicast data packet it decodes for another node. If the
//!   packet's source route names this node after the packet's next hop, the
//!   hops in between can go: the node sends a gratuitous Route Reply (counted
//!   as "grat_rrep"; the nodes passing it on count "rrep") to the route's
//!   origin (the source, or the node that salvaged the packet) back through
//!   the transmitter it heard, with the route up to that transmitter followed
//!   by itself and the rest, and caches both halves. The origin caches the
//!   shorter route and its next packets take it. At most one reply per
//!   (origin, transmitter) per second (the RFC's Gratuitous Route Reply Table
//!   and GratReplyHoldoff). With ns-2's cache, ns-2.35's rule instead: its
//!   `grat_hold_down_time` of 1 s keyed on the whole overheard route, in a
//!   table of 10 routes with its quirk (`GratHold`). Control packets are
//!   never shortened (ns-2 neither).
//! * **Route maintenance** from MAC feedback (RFC 4728 section 3.3). When the
//!   MAC gives up on a next hop, the link is removed from the cache, a Route
//!   Error (NODE_UNREACHABLE) goes back along the reversed traversed route
//!   to the packet's source, or to the node that salvaged it (RFC 4728
//!   section 8.3.4), one per (that node, broken link) at a time, and every node it
//!   passes removes the link too. The packet is **salvaged**: re-sent on a
//!   cached route from this node, its Source Route rewritten with this node
//!   first and the salvage count incremented, at most 15 times (ns-2
//!   `MAX_SALVAGE_COUNT`); with no cached route it is dropped
//!   (`retry_limit`). Packets the interface queue held for the broken
//!   neighbour are taken back (`Reroute`) and salvaged the same way (a
//!   drop is `no_route`); the `ns2` preset sends no route error for them,
//!   as ns-2.35's `xmitFailed` sends none
//!   ([`DsrConfig::queued_salvaged_without_error`]). At the source a
//!   packet is simply routed again (or buffered and a new discovery
//!   started); in the `ns2` preset, a packet another node salvaged back
//!   through its source first draws a route error to that node, as
//!   ns-2.35's `xmitFailed` does for any packet whose source route starts
//!   elsewhere ([`DsrConfig::returned_packets_tell_salvager`]). The
//!   source keeps the last route
//!   error it received and carries it on its next propagating request (if
//!   sent within 1 s); every node the request reaches removes the link
//!   before it considers replying from its cache, and passes the error on
//!   with the request (ns-2 `propagate_last_error`, `max_err_hold`). With
//!   the `ns2` preset node 0 also takes every error riding on a request
//!   it receives (its own, rebroadcast, included) for one sent to it, and
//!   holds it afresh, as ns-2.35 marks such an error with the tell address
//!   0, which is node 0's ([`DsrConfig::grat_errors_tell_node_zero`]).
//! * **Failed control packets.** With the RFC preset a reply or route
//!   error the MAC fails to deliver is dropped. With ns-2's cache it is
//!   treated as ns-2.35's `xmitFailed` treats any source-routed packet:
//!   the node that sent it along its route gets a route error that nests
//!   the packet's own errors before the new one (at most three; the node
//!   the outer one names passes the rest on), and the packet is salvaged
//!   on a cached route (another node's reply naming the broken link is
//!   dropped instead, ns-2.35's `dont_salvage_bad_replies`; this node's
//!   own goes again as it is). With no cached route it waits in the send
//!   buffer as it is, reply and all, as data does: this node's own while
//!   it discovers a route, another node's for one non-propagating cycle
//!   (ns-2's `undeliverablePkt`, whose bad-reply check is in its salvage
//!   branch alone). The control
//!   packets the interface queue held for the broken neighbour come back
//!   too and are salvaged the same way, without a route error of their
//!   own (ns-2's `xmitFailed` empties its `CMUPriQueue` of every packet
//!   for that neighbour). A salvaged control packet counts as a forwarded
//!   message. Route errors created with no route (unknown-flow errors,
//!   unwrapped nested errors, below) wait in the send buffer too and count
//!   as originated when they leave. With the `ns2` preset a route error,
//!   new or unwrapped, keeps the salvage count of the packet it came from
//!   (carried in its last error's salvage field), so the copies of an
//!   error that keeps failing share one budget of 15 salvages, as
//!   ns-2.35's do (`errors_keep_salvage_count`).
//! * **Flow state** (RFC 4728 section 3.5; `flow_state`, on with the `ns2`
//!   preset as ns-2.35's `dsragent_enable_flowstate` is, [`flow_table`]).
//!   A source sends its own data by flow: a new route opens a flow with an
//!   odd id, whose first three packets, and one every 5 s after, carry the
//!   route with a Timeout (60 s) and a Destination and Flow ID option; the
//!   others carry the 4-byte flow header, or nothing at all on the pair's
//!   default flow (the newest) when the TTL is the one the relays saw.
//!   The source keeps to its default flow's route unless the cache has a
//!   shorter one, and a broken link of one of its flows ends the flow.
//!   A relay keeps an entry per flow from its first packet and forwards
//!   by it; only packets with a route teach caches or prompt gratuitous
//!   replies. A relay that gets a packet of a flow it does not know
//!   salvages it and sends the source an unknown-flow error, after which
//!   the source advertises the route three times again (with the `ns2`
//!   preset, not for an error about its default flow, which ns-2.35's
//!   source fails to find: `default_flow_errors_ignored`). With the `ns2`
//!   preset the relay sends that error under flow state as well, as
//!   ns-2.35 does (`flow_errors_by_flow`): a flow of its own to the
//!   source, advertised by the first three errors, the later ones bare or
//!   with the flow's id, forwarded by flow. A flow packet the
//!   MAC fails is reported along the flow's route and salvaged; one the
//!   queue held for the broken link is only salvaged. An unknown-flow
//!   error with no cached route back to the source waits in the send
//!   buffer while this node discovers one (ns-2's `sendUnknownFlow` hands
//!   it to `handlePktWithoutSR`). Flow packets prompt no route
//!   shortening, as in ns-2.35: its `processFlowARS` notes the hops a
//!   flow packet it overhears could skip, but `handleFlowForwarding`
//!   acts on a note only if the packet's route index (always 0 for a
//!   flow packet, whose header carries no route) exceeds the hops
//!   skipped, so it never sends the reply.
//! * **Not implemented:** acknowledgement-based maintenance (only MAC
//!   feedback).

pub mod flow_table;
mod notes;
pub mod request_table;
pub mod route_cache;
pub mod send_buffer;

use crate::engine::{SimTime, NS_PER_MS, NS_PER_S};
use crate::metrics::result::FlowStateCounts;
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, RoutingAction, RoutingCtx, RoutingProtocol, BROADCAST};
use crate::wire::dsr::{
    DsrOption, DsrRepr, FlowHeader, ERROR_DEFAULT_FLOW_UNKNOWN, ERROR_NODE_UNREACHABLE,
    ERROR_UNKNOWN_FLOW, NEXT_HEADER_TCP, NEXT_HEADER_UDP,
};
use flow_table::{FlowEntry, FlowTable};
use request_table::{backoff, Discovery, Ns2Table, RequestTable};
pub use route_cache::CacheModel;
use route_cache::RouteCache;
use send_buffer::SendBuffer;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The Next Header of a DSR header on data packet `p`: its transport's.
fn next_header(p: &Packet) -> u8 {
    if p.tcp().is_some() {
        NEXT_HEADER_TCP
    } else if p.sctp().is_some() {
        crate::trace::pcap::IP_PROTOCOL_SCTP
    } else {
        NEXT_HEADER_UDP
    }
}

/// TTL of the unicast DSR control packets (replies, errors) a node
/// creates, by default ([`DsrConfig::control_ttl`]).
const CONTROL_TTL: u8 = 64;

/// ns-2.35's TTL of the replies and errors its DSR creates
/// (`returnSrcRouteToRequestor`, `sendRouteError` and the others set 255).
const NS2_CONTROL_TTL: u8 = 255;

/// Route errors one packet may carry, nested (ns-2 `MAX_ROUTE_ERRORS`).
const MAX_NESTED_ERRORS: usize = 3;

/// Lifetime of a flow, refreshed by every packet it carries (ns-2
/// `default_flow_timeout` 60 s, with `dsragent_always_reestablish`).
const FLOW_TIMEOUT_S: u16 = 60;
/// A source advertises a flow's route again after this long (ns-2
/// `min_adv_interval` 5 s).
const FLOW_ADV_INTERVAL: SimTime = 5 * NS_PER_S;
/// A flow's route is advertised while its count is at most this, so by
/// its first three packets (ns-2 `END_TO_END_COUNT` 2).
const FLOW_ADV_COUNT: u32 = 2;

/// DSR parameters; `Default` gives ns-2.35's values.
#[derive(Debug, Clone, PartialEq)]
pub struct DsrConfig {
    /// Send buffer size in packets (ns-2 `SEND_BUF_SIZE` 64).
    pub send_buffer_packets: usize,
    /// How long a packet may wait for a route (ns-2 `SEND_TIMEOUT` 30 s).
    pub send_buffer_timeout: SimTime,
    /// How the route cache is organised: one list of `cache_routes`, or
    /// ns-2's primary and secondary caches ([`CacheModel`]).
    pub cache: CacheModel,
    /// Routes in the single-list cache.
    pub cache_routes: usize,
    /// Lifetime of a cached route; ns-2's path cache has none (`None`).
    pub route_timeout: Option<SimTime>,
    /// Wait for a reply to the non-propagating request before the first
    /// propagating one (ns-2: 30 ms).
    pub nonprop_timeout: SimTime,
    /// First back-off between propagating requests (ns-2 `rt_rq_period` 0.5 s).
    pub request_period: SimTime,
    /// Longest back-off (ns-2 `rt_rq_max_period` 10 s).
    pub request_max_period: SimTime,
    /// Longest route, in nodes, a request may record (ns-2 `MAX_SR_LEN` 16).
    pub max_route_len: usize,
    /// How many times a packet may be salvaged (ns-2 `MAX_SALVAGE_COUNT` 15).
    pub max_salvage: u8,
    /// Upper bound of the uniform jitter before rebroadcasting a request
    /// (ns-2 `RREQ_JITTER` 10 ms).
    pub broadcast_jitter: SimTime,
    /// Intermediate nodes answer requests from their cache.
    pub reply_from_cache: bool,
    /// A source that received a route error carries it on its next
    /// propagating request if that leaves within this time, so nodes clean
    /// their caches before replying (ns-2 `propagate_last_error`,
    /// `max_err_hold` 1 s). `None` turns it off.
    pub propagate_last_error: Option<SimTime>,
    /// Automatic route shortening (RFC 4728 section 3.4.3): overhear data
    /// frames for other nodes and answer a source route that reaches this
    /// node later than its next hop with a gratuitous Route Reply (ns-2
    /// `dsragent_send_grat_replies`, on).
    pub gratuitous_replies: bool,
    /// After a gratuitous reply to a source about packets from a given
    /// transmitter, no other for the same pair within this time (RFC 4728
    /// GratReplyHoldoff; ns-2 `grat_hold_down_time`, both 1 s).
    pub grat_hold_down: SimTime,
    /// How a node paces its route requests (see [`RequestPacing`]).
    pub pacing: RequestPacing,
    /// With [`RequestPacing::Ns2`]: the send buffer is checked every
    /// `buffer_check` plus a uniform draw of up to `buffer_check` (ns-2
    /// `BUFFER_CHECK` 30 ms).
    pub buffer_check: SimTime,
    /// Flow state (RFC 4728 section 3.5) as ns-2.35 runs it
    /// (`dsragent_enable_flowstate`; see [`flow_table`]): a source's data
    /// carries its route only on a flow's first three packets and every
    /// 5 s after, and otherwise a 4-byte flow header or, on the default
    /// flow, no DSR header; relays forward by their flow tables.
    pub flow_state: bool,
    /// A relayed Route Request grows by its whole new header at every
    /// hop, as ns-2.35's does: `handleRouteRequest` adds the node to the
    /// recorded route and `sendOutPacketWithRoute` adds the header's size
    /// to the packet's without taking the old header's off (its
    /// `handleForwarding` takes it off for every other packet). A request
    /// whose route holds n nodes (the initiator first) is 20 + Σ (8 + 4k),
    /// k = 1…n, bytes at its IP layer (488 at 13 nodes) instead of
    /// 20 + 8 + 4n (80), so the far hops of a flood stay on the air longer.
    pub ns2_request_sizes: bool,
    /// DSR headers count in a packet's size as ns-2.35 counts them
    /// ([`DsrRepr::ns2_len`]) instead of by the RFC's layout: a route
    /// reply 9 bytes more for a 3-node route (52 bytes with its IP header,
    /// not 43), a packet that establishes a flow 4 bytes less, the
    /// unknown-flow errors 4 less. The packets carry the RFC's bytes
    /// either way; only their sizes (and so their airtime) change.
    pub ns2_header_sizes: bool,
    /// A relay that salvages another node's data packet through its send
    /// buffer (no cached route) counts the packet's old source route in its
    /// size again, as ns-2.35 does: `undeliverablePkt` takes the old header
    /// off only on the way out from the cache, and `sendOutPacketWithRoute`
    /// adds the new one's on release. The packet goes into the buffer with
    /// its old source route alone (the flow options cleared, as
    /// `undeliverablePkt` clears them), a packet sent by flow with the
    /// flow's route (`xmitFlowFailed` puts it in the header), and on release
    /// keeps those bytes ([`Packet::stale_header_bytes`]) on the air and in
    /// traces, up to its destination, but not in the flow's counts.
    pub ns2_buffered_salvage_sizes: bool,
    /// The identification of this node's first Route Request (ns-2.35
    /// numbers them from 1, `route_request_num`).
    pub first_request_id: u16,
    /// A request is taken as ns-2.35 takes it. A relay takes one only if
    /// its identification is above the last one it took from the same
    /// initiator, as ns-2.35's request table keeps one number per
    /// initiator (`ignoreRouteRequestp`: `get(src) >= rtreq_seq`); an
    /// initiator numbers all its requests in one sequence, whatever their
    /// targets, so a request that arrives after a later one of the same
    /// initiator is ignored, even one never seen before. A request whose
    /// route (the initiator and its relays) already holds
    /// [`DsrConfig::max_route_len`] nodes is ignored without being
    /// recorded, and one with a node less is still passed on, filling it.
    /// The target records the number of every copy it answers
    /// (`handlePacketReceipt` overwrites it) and answers none whose route
    /// is full (`returnSrcRouteToRequestor`). The numbers are kept in
    /// ns-2.35's request table of 128 nodes, which also holds the pacing
    /// of [`RequestPacing::Ns2`] ([`request_table::Ns2Table`]): a node
    /// that deals with more initiators and targets forgets the oldest
    /// round-robin. Otherwise (RFC 4728 section
    /// 4.3) the last [`request_table::IDS_PER_INITIATOR`] identifications
    /// of each initiator are kept and only those are duplicates, and a
    /// relay passes a request on only while its route leaves room for the
    /// relay and the target.
    pub ns2_request_rules: bool,
    /// With ns-2's cache (whose `tap` overhears packets for other nodes):
    /// an overheard packet is looked at once, as ns-2.35's
    /// `DSR_FILTER_TAP` does: a table of [`TAP_SLOTS`] uids, the slot
    /// picked by the uid's low bits, skips a packet whose uid its slot
    /// holds (a retransmission, or the same packet heard again at a later
    /// hop). A node's own packets are not looked at, nor packets sent by
    /// flow state (without a source route), which take no slot; a route
    /// request from another node, received as a broadcast, takes one.
    pub tap_once: bool,
    /// With ns-2's cache: an overheard route error is handled as one
    /// received (ns-2.35's `tap` calls `processBrokenRouteError`), so a
    /// node the outer error names, hearing the packet on its way there,
    /// holds the error for its next request and passes the nested errors
    /// on, and does so again when the packet reaches it: ns-2.35 sends the
    /// inner errors twice.
    pub tap_unwraps_errors: bool,
    /// The inner errors a node passes on keep the uid of the nested error
    /// they came in, as ns-2.35's `processBrokenRouteError` sends a copy
    /// (`Packet::copy`) of it. With [`DsrConfig::tap_once`] this matters:
    /// a node whose tap saw the nested error skips the inner one.
    pub unwrapped_errors_keep_uid: bool,
    /// A route error keeps the salvage count of the packet it comes from,
    /// as ns-2.35's do: `xmitFailed` turns the failed packet itself into
    /// the new error and `processBrokenRouteError` sends a copy of the
    /// error it unwraps, and neither resets the header's count (only
    /// `hdr_sr::init` does). The count rides in the last route error's
    /// salvage field; the Source Route option's own field keeps saying
    /// where the route starts. Otherwise a new or unwrapped error starts
    /// at 0, and each copy of an error that keeps failing may be salvaged
    /// [`DsrConfig::max_salvage`] times afresh.
    pub errors_keep_salvage_count: bool,
    /// The data packets the interface queue held for a broken neighbour
    /// (taken back with [`RoutingAction::Reroute`]) are salvaged without a
    /// route error of their own, as ns-2.35's `xmitFailed` does: it
    /// reports the break for the packet the MAC failed on alone, and hands
    /// each packet `prq_get_nexthop` takes out of the queue to
    /// `undeliverablePkt`, which only salvages. Otherwise each relayed
    /// packet taken back is handled as the failed one is: a route error to
    /// the node its route started at, one per (that node, broken link) at
    /// a time, then the salvage.
    pub queued_salvaged_without_error: bool,
    /// This node's own packet, salvaged by another node along a route back
    /// through this one, that this node's MAC then fails to deliver draws a
    /// route error to that salvager (the first node of its source route)
    /// before it is routed again as this node's own. ns-2.35's `xmitFailed`
    /// tells the source route's first node whoever the packet's IP source
    /// is, unless that node is itself. Otherwise this node's own packets
    /// draw no route error.
    pub returned_packets_tell_salvager: bool,
    /// A Default Flow Unknown error reaching its source changes nothing
    /// there, as in ns-2.35: its `processUnknownFlowError` looks the
    /// default flow up by a flow id it never sets, and its trace shows the
    /// lookup failing every time (each of the 1,877 such errors over
    /// rwp50's 10 seeds over DSR is traced `SFEr … -1 [-1]`), so the
    /// source keeps sending the flow's packets without a header until its
    /// 5-second re-advertisement. Otherwise the default flow's route goes
    /// with its next three packets again, as for an Unknown Flow error.
    pub default_flow_errors_ignored: bool,
    /// With [`DsrConfig::flow_state`]: this node's unknown-flow errors go
    /// under flow state too, as ns-2.35's do. Its `sendUnknownFlow` hands
    /// the error to `handlePktWithoutSR`, and `sendOutPacketWithRoute`
    /// applies flow state to every packet its node originates but
    /// requests, replies and broken-link errors: the relay opens a flow to
    /// the source it tells, the error's first three packets carry the
    /// route, later ones the flow's id or, on the default flow, no more
    /// than the error, and the nodes between forward them by their flow
    /// tables. Otherwise each error carries its source route.
    pub flow_errors_by_flow: bool,
    /// Node 0 holds every route error that rides on a request it receives
    /// as one sent to it, as in ns-2.35. Its `sendOutRtReq` marks the error
    /// it puts on a request with the tell address `GRAT_ROUTE_ERROR`,
    /// which is 0, and `recv` hands any packet it forwards or drops that
    /// carries an error to `processBrokenRouteError` first
    /// (`dsragent_snoop_forwarded_errors`), which holds an error whose tell
    /// address is the node's own. So node 0, hearing its own propagating
    /// request rebroadcast, holds its error again with a fresh time, and a
    /// request it sends within `max_err_hold` carries the error again: a
    /// non-propagating one then makes the neighbour drop the link from its
    /// cache before it looks for a reply there. Other nodes are unaffected.
    pub grat_errors_tell_node_zero: bool,
    /// The IP TTL of the replies and route errors a node creates; a relay
    /// takes one off, as it does a data packet's (ns-2.35's
    /// `handleForwarding` and `handleFlowForwarding` decrement every
    /// packet's), and drops one that comes in with 1 left. 64 by default,
    /// 255 in ns-2.35's agent.
    pub control_ttl: u8,
}

/// The slots of ns-2.35's table of uids its tap has seen (`TAP_CACHE_SIZE`).
pub const TAP_SLOTS: usize = 1024;

/// How a node paces its route requests and releases its send buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestPacing {
    /// RFC 4728 section 3.1.3 and 8.2: a discovery is a non-propagating
    /// request, then propagating ones 30 ms, 0.5 s, 1 s, 2 s … apart
    /// (doubling, capped at 10 s) while packets wait; it ends when a route
    /// is found, and the next discovery starts afresh. Buffered packets go
    /// as soon as any route to their destination is learned; a forwarder
    /// with no cached route for a packet it must salvage drops it.
    #[default]
    Rfc,
    /// ns-2.35's `dsragent.cc`. A discovery cycle is a non-propagating
    /// request and, at the first send-buffer check more than 30 ms later,
    /// one propagating request. Cycles for one target start at least
    /// 0.5 s · 4ⁿ apart (capped at 10 s), n counting the cycles since the
    /// last route reply this node accepted for it: the count survives a
    /// found route and is reset only by a reply addressed to this node.
    /// Originated requests and the target's replies wait a uniform jitter
    /// of up to 10 ms, as forwarded requests do. The send buffer is
    /// checked every 30–60 ms, and a reply releases the buffered packets
    /// that now have a route 30 ms apart. A forwarder that cannot salvage
    /// a packet from its cache buffers it and sends a non-propagating
    /// request (one cycle: the packet is dropped when the next cycle would
    /// start). The last route error also rides on non-propagating requests.
    Ns2,
}

impl Default for DsrConfig {
    fn default() -> Self {
        Self {
            send_buffer_packets: 64,
            send_buffer_timeout: 30 * NS_PER_S,
            cache: CacheModel::Single,
            cache_routes: 64,
            route_timeout: None,
            nonprop_timeout: 30 * NS_PER_MS,
            request_period: 500 * NS_PER_MS,
            request_max_period: 10 * NS_PER_S,
            max_route_len: 16,
            max_salvage: 15,
            broadcast_jitter: 10 * NS_PER_MS,
            reply_from_cache: true,
            propagate_last_error: Some(NS_PER_S),
            gratuitous_replies: true,
            grat_hold_down: NS_PER_S,
            pacing: RequestPacing::Rfc,
            buffer_check: 30 * NS_PER_MS,
            flow_state: false,
            ns2_request_sizes: false,
            ns2_header_sizes: false,
            ns2_buffered_salvage_sizes: false,
            first_request_id: 0,
            ns2_request_rules: false,
            tap_once: false,
            tap_unwraps_errors: false,
            unwrapped_errors_keep_uid: false,
            errors_keep_salvage_count: false,
            queued_salvaged_without_error: false,
            returned_packets_tell_salvager: false,
            default_flow_errors_ignored: false,
            flow_errors_by_flow: false,
            grat_errors_tell_node_zero: false,
            control_ttl: CONTROL_TTL,
        }
    }
}

impl DsrConfig {
    /// ns-2.35's pacing of requests and of the send buffer
    /// ([`RequestPacing::Ns2`]), its route cache ([`CacheModel::Ns2`]), its
    /// flow state, its growing requests
    /// ([`DsrConfig::ns2_request_sizes`]), its header sizes
    /// ([`DsrConfig::ns2_header_sizes`], also of a packet salvaged through
    /// the send buffer: [`DsrConfig::ns2_buffered_salvage_sizes`]), request
    /// numbers and its handling of
    /// requests ([`DsrConfig::ns2_request_rules`]), tap
    /// ([`DsrConfig::tap_once`], [`DsrConfig::tap_unwraps_errors`]) and
    /// uids and salvage counts of its route errors, its salvage of the
    /// queue's packets for a broken link without route errors, and its
    /// route errors for a node's own packets that come back through it
    /// salvaged, and its sources' deafness to Default Flow Unknown errors
    /// ([`DsrConfig::default_flow_errors_ignored`]), and its unknown-flow
    /// errors sent under flow state ([`DsrConfig::flow_errors_by_flow`]),
    /// and node 0's holding of the errors on requests it receives
    /// ([`DsrConfig::grat_errors_tell_node_zero`]), and the TTL of its
    /// replies and errors ([`DsrConfig::control_ttl`]), everything else as
    /// [`Default`].
    pub fn ns2() -> Self {
        Self {
            pacing: RequestPacing::Ns2,
            cache: CacheModel::Ns2,
            flow_state: true,
            ns2_request_sizes: true,
            ns2_header_sizes: true,
            ns2_buffered_salvage_sizes: true,
            first_request_id: 1,
            ns2_request_rules: true,
            tap_once: true,
            tap_unwraps_errors: true,
            unwrapped_errors_keep_uid: true,
            errors_keep_salvage_count: true,
            queued_salvaged_without_error: true,
            returned_packets_tell_salvager: true,
            default_flow_errors_ignored: true,
            flow_errors_by_flow: true,
            grat_errors_tell_node_zero: true,
            control_ttl: NS2_CONTROL_TTL,
            ..Self::default()
        }
    }
}

/// With [`RequestPacing::Ns2`], a node's pacing of its requests for one
/// target (ns-2's request-table entry for it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pacing {
    /// Cycles started since the last accepted reply (ns-2
    /// `rt_reqs_outstanding`, at most 15).
    cycles: u32,
    /// When the last cycle started (`None`: never, so the next may start).
    last_cycle: Option<SimTime>,
    /// The last request was the non-propagating one, sent at this time.
    ring_zero_at: Option<SimTime>,
}

/// ns-2.35's `grat_hold` (`RTREP_HOLDOFF_SIZE` slots).
const NS2_GRAT_SLOTS: usize = 10;

/// ns-2.35's hold-down of gratuitous replies (`sendRouteShortening`): a
/// table of the last 10 overheard routes it replied about, each with a
/// time, replaced round-robin. A route in the table gets a reply only when
/// its time is at least `grat_hold_down` old, and the time becomes now. A
/// route not in the table always gets one: it takes the next slot, and,
/// as ns-2.35's code does, the time set to now is that of the slot after
/// it (the next to be replaced), so the route keeps its slot's old time.
#[derive(Debug, Clone, Default)]
struct GratHold {
    slots: Vec<(Vec<NodeId>, SimTime)>,
    victim: usize,
}

impl GratHold {
    /// Whether a reply about the overheard `route` may go at `now`.
    fn allows(&mut self, route: &[NodeId], now: SimTime, hold: SimTime) -> bool {
        if self.slots.is_empty() {
            self.slots = vec![(Vec::new(), 0); NS2_GRAT_SLOTS];
        }
        if let Some(slot) = self.slots.iter_mut().find(|(r, _)| r == route) {
            if now.saturating_sub(slot.1) < hold {
                return false;
            }
            slot.1 = now;
            return true;
        }
        self.slots[self.victim].0 = route.to_vec();
        self.victim = (self.victim + 1) % NS2_GRAT_SLOTS;
        self.slots[self.victim].1 = now;
        true
    }
}

/// ns-2's cap on `rt_reqs_outstanding`.
const NS2_MAX_CYCLES: u32 = 15;

/// The tell address ns-2.35 gives a route error riding on a request
/// (`GRAT_ROUTE_ERROR`): node 0's ([`DsrConfig::grat_errors_tell_node_zero`]).
const NS2_GRAT_ROUTE_ERROR: NodeId = 0;

/// The link `from -> to` a "node unreachable" route error reports broken.
fn broken_link(o: &DsrOption) -> Option<(NodeId, NodeId)> {
    match o {
        DsrOption::RouteError {
            error_type: ERROR_NODE_UNREACHABLE,
            source,
            type_specific,
            ..
        } => {
            let to: [u8; 4] = type_specific.get(..4)?.try_into().ok()?;
            Some((*source, u32::from_be_bytes(to)))
        }
        _ => None,
    }
}

/// A source route parsed from a data or control packet.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SourceRoute {
    salvage: u8,
    segments_left: u8,
    addresses: Vec<NodeId>,
}

impl SourceRoute {
    /// The route along `path`: its first node sends, its last is the
    /// destination, the nodes between are the hops to visit.
    fn along(path: &[NodeId]) -> Self {
        Self {
            salvage: 0,
            segments_left: (path.len() - 2) as u8,
            addresses: path[1..path.len() - 1].to_vec(),
        }
    }

    /// A packet's route after `me` salvages it (for the `salvage`-th time
    /// before) along its cached `route` (`me` first): `me` is recorded as
    /// the route's first address.
    fn salvaged(me: NodeId, route: &[NodeId], salvage: u8) -> Self {
        let mut addresses = vec![me];
        addresses.extend_from_slice(&route[1..route.len() - 1]);
        Self {
            salvage: salvage + 1,
            segments_left: (addresses.len() - 1) as u8,
            addresses,
        }
    }

    fn of(repr: &DsrRepr) -> Option<Self> {
        match repr.source_route()? {
            DsrOption::SourceRoute {
                salvage,
                segments_left,
                addresses,
                ..
            } => Some(Self {
                salvage: *salvage,
                segments_left: *segments_left,
                addresses: addresses.clone(),
            }),
            _ => None,
        }
    }

    fn option(&self) -> DsrOption {
        DsrOption::SourceRoute {
            first_hop_external: false,
            last_hop_external: false,
            salvage: self.salvage,
            segments_left: self.segments_left,
            addresses: self.addresses.clone(),
        }
    }

    /// Puts this route in place of the Source Route option of `repr`.
    fn replace_in(&self, repr: &mut DsrRepr) {
        for o in &mut repr.options {
            if matches!(o, DsrOption::SourceRoute { .. }) {
                *o = self.option();
            }
        }
    }

    /// If this node is the next one to process the route (as a receiver):
    /// the index of this node in `addresses`.
    fn my_turn(&self, me: NodeId) -> Option<usize> {
        let n = self.addresses.len();
        let sl = self.segments_left as usize;
        let i = n.checked_sub(sl)?;
        (sl > 0 && self.addresses[i] == me).then_some(i)
    }

    /// If this node already processed the route (the packet came back from
    /// its interface queue): its index.
    fn already_processed(&self, me: NodeId) -> Option<usize> {
        let n = self.addresses.len();
        let i = n.checked_sub(self.segments_left as usize + 1)?;
        (self.addresses[i] == me).then_some(i)
    }
}

/// A received Route Request and the route errors that came with it.
struct RequestIn<'a> {
    id: u16,
    target: NodeId,
    record: &'a [NodeId],
    errors: Vec<DsrOption>,
}

/// A packet waiting for its jitter (a rebroadcast request; with ns-2's
/// pacing also an originated request, a target's reply, or a packet
/// released from the send buffer).
#[derive(Debug, Clone)]
struct Delayed {
    packet: Packet,
    next_hop: NodeId,
    out: Out,
}

/// What a packet this agent sends is to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Out {
    /// A data packet (it has its uid).
    Data,
    /// A new control message, given its uid when it leaves.
    New {
        message: &'static str,
        forwarded: bool,
    },
    /// A control packet that has its uid already: it waited in the send
    /// buffer, created there or salvaged.
    Held {
        message: &'static str,
        forwarded: bool,
    },
    /// A relayed request: a new packet that keeps the uid of the one it
    /// passes on (`RoutingCtx::relay`).
    Relay { message: &'static str },
}

impl Out {
    /// Whether the packet is in the ledger already (held by this agent).
    fn is_held(self) -> bool {
        !matches!(self, Out::New { .. } | Out::Relay { .. })
    }

    fn emit(self, packet: Packet, next_hop: NodeId, ctx: &mut RoutingCtx) {
        match self {
            Out::Data => ctx.send(packet, next_hop),
            Out::New { message, forwarded } => ctx.originate(packet, next_hop, message, forwarded),
            Out::Held { message, forwarded } => ctx.resend(packet, next_hop, message, forwarded),
            Out::Relay { message } => ctx.relay(packet, next_hop, message),
        }
    }
}

/// How this node's own packet goes by flow state ([`Dsr::own_flow`]).
struct OwnFlow {
    id: u16,
    next: NodeId,
    /// The flow's whole route, if the packet advertises it.
    establishes: Option<Vec<NodeId>>,
    /// Whether a packet that does not advertise the route needs the flow's
    /// id (ns-2's flow header); without, it is on the default flow.
    header: bool,
}

impl OwnFlow {
    /// The options a packet that advertises the flow's `route` to `dst`
    /// carries: a Timeout, the Destination and Flow ID, the route.
    fn establishing_options(&self, dst: NodeId, route: &[NodeId]) -> Vec<DsrOption> {
        vec![
            DsrOption::Timeout {
                timeout_s: FLOW_TIMEOUT_S,
            },
            DsrOption::DestFlowId {
                flow_id: self.id,
                destination: dst,
            },
            SourceRoute::along(route).option(),
        ]
    }
}

/// Whether a control packet's options are unknown-flow errors and nothing
/// else of substance (a route, a flow's options), the packets
/// ns-2.35 sends under flow state when its node originates them
/// ([`DsrConfig::flow_errors_by_flow`]).
fn flow_errors_only(repr: &DsrRepr) -> bool {
    let mut any = false;
    for o in &repr.options {
        match o {
            DsrOption::RouteError {
                error_type: ERROR_UNKNOWN_FLOW | ERROR_DEFAULT_FLOW_UNKNOWN,
                ..
            } => any = true,
            DsrOption::RouteError { .. }
            | DsrOption::RouteRequest { .. }
            | DsrOption::RouteReply { .. } => return false,
            _ => {}
        }
    }
    any
}

/// The source route packet `p`'s DSR header carries, if any.
fn source_route(p: &Packet) -> Option<SourceRoute> {
    DsrRepr::parse(p.body())
        .ok()
        .as_ref()
        .and_then(SourceRoute::of)
}

/// Adds `old`, header bytes ns-2.35 leaves counted on a packet salvaged
/// through the send buffer ([`DsrConfig::ns2_buffered_salvage_sizes`]), to
/// `p`'s size and its [`Packet::stale_header_bytes`].
fn keep_old_header(p: &mut Packet, old: u32) {
    p.size_bytes += old;
    p.stale_header_bytes = p.stale_header_bytes.saturating_add(old as u16);
}

/// The flow a control packet names in its Destination and Flow ID option.
fn named_flow(repr: &DsrRepr) -> Option<u16> {
    repr.options.iter().find_map(|o| match o {
        DsrOption::DestFlowId { flow_id, .. } => Some(*flow_id),
        _ => None,
    })
}

/// `repr` without its route and its flow's options (Source Route, Timeout,
/// Destination and Flow ID).
fn without_route(mut repr: DsrRepr) -> DsrRepr {
    repr.options.retain(|o| {
        !matches!(
            o,
            DsrOption::SourceRoute { .. }
                | DsrOption::Timeout { .. }
                | DsrOption::DestFlowId { .. }
        )
    });
    repr
}

/// The routing message a DSR control packet counts as: a reply if it
/// carries one, else an error; `None` if it carries neither.
fn control_message(repr: &DsrRepr) -> Option<&'static str> {
    if repr
        .options
        .iter()
        .any(|o| matches!(o, DsrOption::RouteReply { .. }))
    {
        Some("rrep")
    } else if repr
        .options
        .iter()
        .any(|o| matches!(o, DsrOption::RouteError { .. }))
    {
        Some("rerr")
    } else {
        None
    }
}

/// One node's DSR agent.
#[derive(Debug, Clone)]
pub struct Dsr {
    me: NodeId,
    /// Shared by every node's agent (one copy, not one per node).
    cfg: Rc<DsrConfig>,
    cache: RouteCache,
    buffer: SendBuffer,
    requests: RequestTable,
    next_request_id: u16,
    /// Route discoveries started (first requests, not retries).
    discoveries: u64,
    /// Jittered rebroadcasts, keyed by (due time, sequence): a deterministic
    /// timer queue.
    delayed: BTreeMap<(SimTime, u64), Delayed>,
    delayed_seq: u64,
    /// Route errors sent at `now`: (source, unreachable), to send one per
    /// broken link and source.
    errors_now: (SimTime, Vec<(NodeId, NodeId)>),
    /// The last route error received as its destination, and when.
    held_error: Option<(SimTime, DsrOption)>,
    /// The Gratuitous Route Reply Table (RFC 4728 section 4.5): (source,
    /// transmitter of the overheard packet, when the reply went).
    grat_sent: Vec<(NodeId, NodeId, SimTime)>,
    /// With ns-2's cache, ns-2.35's table of gratuitous replies instead.
    grat_hold: GratHold,
    /// ns-2.35's request table, with ns-2's pacing or request rules: per
    /// node, the last request number taken from it and the pacing of
    /// discoveries of it, 128 nodes at most.
    ns2_table: Ns2Table<Pacing>,
    /// With ns-2's pacing: the next send-buffer check.
    buffer_check_at: Option<SimTime>,
    /// ns-2's send-buffer timer runs from the start whether or not the
    /// buffer holds anything: its latest expiry so far (0 before the
    /// first), drawn lazily when a check is wanted.
    buffer_check_last: SimTime,
    /// With `flow_state`: the flows this node opened or relays, and what
    /// it did by them.
    flows: FlowTable,
    flow_counts: FlowStateCounts,
    /// With `tap_once`: the uids the tap has seen, [`TAP_SLOTS`] of them
    /// once it has seen any (empty before).
    tap_seen: Vec<u64>,
}

impl Dsr {
    /// `cfg`: a [`DsrConfig`], or an `Rc` of one the agents of a network share.
    pub fn new(me: NodeId, cfg: impl Into<Rc<DsrConfig>>) -> Self {
        let cfg = cfg.into();
        Self {
            me,
            cache: match cfg.cache {
                CacheModel::Single => RouteCache::new(me, cfg.cache_routes, cfg.route_timeout),
                CacheModel::Ns2 => RouteCache::ns2(me),
            },
            buffer: SendBuffer::new(cfg.send_buffer_packets, cfg.send_buffer_timeout),
            requests: RequestTable::default(),
            next_request_id: cfg.first_request_id,
            discoveries: 0,
            delayed: BTreeMap::new(),
            delayed_seq: 0,
            errors_now: (0, Vec::new()),
            held_error: None,
            grat_sent: Vec::new(),
            grat_hold: GratHold::default(),
            ns2_table: Ns2Table::default(),
            buffer_check_at: None,
            buffer_check_last: 0,
            flows: FlowTable::default(),
            flow_counts: FlowStateCounts::default(),
            tap_seen: Vec::new(),
            cfg,
        }
    }

    fn ns2_pacing(&self) -> bool {
        self.cfg.pacing == RequestPacing::Ns2
    }

    fn ns2_cache(&self) -> bool {
        self.cfg.cache == CacheModel::Ns2
    }

    /// Whether this node sends its control packet with options `repr` by
    /// flow state ([`DsrConfig::flow_errors_by_flow`]).
    fn sends_by_flow(&self, repr: &DsrRepr) -> bool {
        self.cfg.flow_state && self.cfg.flow_errors_by_flow && flow_errors_only(repr)
    }

    /// The shortest cached route to `dst` (this node first).
    pub fn route_to(&self, dst: NodeId, now: SimTime) -> Option<Vec<NodeId>> {
        self.cache.find(dst, now).map(<[NodeId]>::to_vec)
    }

    /// Teaches the cache a route (this node first), e.g. in tests.
    pub fn learn_route(&mut self, path: &[NodeId], now: SimTime) {
        self.cache.add(path, now);
    }

    /// Whether a discovery for `target` is under way (with ns-2's pacing:
    /// whether a cycle was started since the last accepted reply).
    pub fn discovering(&self, target: NodeId) -> bool {
        self.requests.discovery(target).is_some()
            || self.ns2_table.pacing(target).is_some_and(|p| p.cycles > 0)
    }

    // ---------------------------------------------------------------
    // Data packets
    // ---------------------------------------------------------------

    /// The bytes the options header `repr` counts in its packet's size:
    /// its own length (the RFC's layout), or with
    /// [`DsrConfig::ns2_header_sizes`] what ns-2.35 counts for it
    /// ([`DsrRepr::ns2_len`]).
    fn counted(&self, repr: &DsrRepr) -> u32 {
        if self.cfg.ns2_header_sizes {
            repr.ns2_len() as u32
        } else {
            repr.buffer_len() as u32
        }
    }

    /// What a packet's DSR header `body` counts in its size: as
    /// [`Self::counted`] for an options header, its length for a flow
    /// header (4 bytes in both layouts).
    fn counted_body(&self, body: &[u8]) -> u32 {
        if !self.cfg.ns2_header_sizes || FlowHeader::is_flow_state(body) {
            return body.len() as u32;
        }
        DsrRepr::parse(body).map_or(body.len() as u32, |r| self.counted(&r))
    }

    /// A DSR control packet from `src` to `dst` carrying `repr`, its size
    /// counted as [`Self::counted`] says.
    fn control(&self, src: NodeId, dst: NodeId, ttl: u8, repr: &DsrRepr) -> Packet {
        let mut p = Packet::control(src, dst, ttl, 0, Vec::new());
        p.size_bytes += self.counted(repr);
        p.body = Some(Rc::from(repr.to_bytes()));
        p
    }

    /// Control packet `packet` passed on with the header `repr`: its uid,
    /// and the old header bytes a salvage through a send buffer left
    /// counted ([`Packet::stale_header_bytes`]), which ns-2.35 keeps in the
    /// size up to the packet's destination.
    fn passed_on(&self, packet: &Packet, repr: &DsrRepr) -> Packet {
        let mut p = self.control(packet.src, packet.dst, packet.ttl, repr);
        p.uid = packet.uid;
        keep_old_header(&mut p, u32::from(packet.stale_header_bytes));
        p
    }

    /// Removes the DSR header from a data packet (restoring its size).
    fn strip(&self, p: &mut Packet) {
        if let Some(b) = p.body.take() {
            p.size_bytes -= self.counted_body(&b);
        }
    }

    /// A copy of `p` carrying the source route `addresses` (the nodes
    /// between source and destination) with `segments_left` still to go:
    /// a relayed packet for the world's tests.
    #[cfg(test)]
    pub(crate) fn with_source_route(
        mut p: Packet,
        addresses: &[NodeId],
        segments_left: u8,
    ) -> Packet {
        let sr = SourceRoute {
            salvage: 0,
            segments_left,
            addresses: addresses.to_vec(),
        };
        let bytes = DsrRepr {
            next_header: next_header(&p),
            options: vec![sr.option()],
        }
        .to_bytes();
        p.size_bytes += bytes.len() as u32;
        p.body = Some(Rc::from(bytes));
        p
    }

    /// Attaches `sr` as the packet's DSR header, keeping `size_bytes` exact.
    fn attach(&self, p: &mut Packet, sr: &SourceRoute) {
        self.attach_options(p, vec![sr.option()]);
    }

    /// Attaches a DSR options header with `options` to a data packet.
    fn attach_options(&self, p: &mut Packet, options: Vec<DsrOption>) {
        let repr = DsrRepr {
            next_header: next_header(p),
            options,
        };
        self.attach_repr(p, &repr);
    }

    /// Replaces the packet's DSR header by the options header `repr`,
    /// keeping `size_bytes` as [`Self::counted`] counts it.
    fn attach_repr(&self, p: &mut Packet, repr: &DsrRepr) {
        self.strip(p);
        p.size_bytes += self.counted(repr);
        p.body = Some(Rc::from(repr.to_bytes()));
    }

    /// Replaces the packet's DSR header by the flow header `h`.
    fn attach_flow_header(&self, p: &mut Packet, h: &FlowHeader) {
        self.strip(p);
        let bytes = h.to_bytes();
        p.size_bytes += bytes.len() as u32;
        p.body = Some(Rc::from(bytes.as_slice()));
    }

    /// Whether a data packet travels by flow state: with the 4-byte flow
    /// header or, on a default flow, with no DSR header at all.
    fn by_flow(p: &Packet) -> bool {
        !p.is_control() && (p.body.is_none() || FlowHeader::is_flow_state(p.body()))
    }

    /// A data packet this node originates (or must route again as source).
    fn originate_data(&mut self, now: SimTime, mut p: Packet, ctx: &mut RoutingCtx) {
        self.strip(&mut p);
        if let Some(route) = self.cache.find_for_use(p.dst, now) {
            let route = route.to_vec();
            self.send_own(now, p, &route, 0, ctx);
            return;
        }
        self.await_route(now, p, ctx);
    }

    /// This node's own packet, with no cached route, waits in the send
    /// buffer while a route is found (ns-2's `getRouteForPacket`).
    fn await_route(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        let dst = p.dst;
        if self.ns2_pacing() {
            // ns-2: the request (if its pacing allows one) before the packet
            // joins the buffer.
            self.ns2_request(now, dst, true, ctx);
            self.buffer_packet(now, p, ctx);
            return;
        }
        if let Some(old) = self.buffer.push(now, p) {
            ctx.drop_packet(old, DropReason::RouteBufferFull);
        }
        self.start_discovery(now, dst, ctx);
    }

    /// Another node's packet this node salvages, with no cached route:
    /// with ns-2's pacing it waits in the send buffer, and the buffer's
    /// next check asks for a route (one non-propagating cycle at most, or
    /// the packet is dropped there); otherwise it is given back.
    fn await_route_for_other(
        &mut self,
        now: SimTime,
        p: Packet,
        ctx: &mut RoutingCtx,
    ) -> Result<(), Packet> {
        // ns-2's `undeliverablePkt` only puts it in the send buffer
        // (`stickPacketInSendBuffer`); its request waits for the buffer's
        // next check.
        if !self.ns2_pacing() {
            return Err(p);
        }
        self.buffer_packet(now, p, ctx);
        Ok(())
    }

    /// A control packet this node created with no route yet (an
    /// unknown-flow error, [`Self::send_flow_error`], or the inner part of a
    /// nested route error, [`Self::unwrap_nested`]), back from the world
    /// with its uid: sent along a cached route, or held in the send buffer
    /// while one is found (ns-2's `handlePktWithoutSR`).
    fn originate_control(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        match self.cache.find_for_use(p.dst, now).map(<[NodeId]>::to_vec) {
            Some(route) => self.release_control(now, p, &route, 0, ctx),
            None => self.await_route(now, p, ctx),
        }
    }

    /// Sends a control packet this agent held along `route` (this node
    /// first), `delay` from now: this node's own with a new source route
    /// (counted as originated the first time it leaves, as forwarded when
    /// it is salvaged), another node's as a salvage.
    fn release_control(
        &mut self,
        now: SimTime,
        mut p: Packet,
        route: &[NodeId],
        delay: SimTime,
        ctx: &mut RoutingCtx,
    ) {
        let Some(mut repr) = DsrRepr::parse(p.body()).ok() else {
            ctx.drop_packet(p, DropReason::NoRoute);
            return;
        };
        let Some(message) = control_message(&repr) else {
            ctx.drop_packet(p, DropReason::NoRoute);
            return;
        };
        let old = SourceRoute::of(&repr);
        if p.src == self.me && self.sends_by_flow(&repr) {
            let out = Out::Held {
                message,
                forwarded: old.is_some(),
            };
            self.send_own_control(now, p, route, delay, out, ctx);
            return;
        }
        let sr = if p.src == self.me {
            SourceRoute::along(route)
        } else {
            SourceRoute::salvaged(self.me, route, old.as_ref().map_or(0, |sr| sr.salvage))
        };
        // Another node's packet salvaged through the send buffer: ns-2.35
        // adds the new header's size to one that still counts the old, as
        // for data (`release`).
        let stale = match &p.body {
            Some(b) if p.src != self.me && old.is_some() && self.cfg.ns2_buffered_salvage_sizes => {
                self.counted_body(b)
            }
            _ => 0,
        };
        repr.options
            .retain(|o| !matches!(o, DsrOption::SourceRoute { .. }));
        repr.options.push(sr.option());
        self.attach_repr(&mut p, &repr);
        keep_old_header(&mut p, stale);
        let out = Out::Held {
            message,
            forwarded: old.is_some(),
        };
        self.send_later(now, delay, p, route[1], out, ctx);
    }

    /// Puts `p` in the send buffer (dropping the oldest if it is full) and,
    /// with ns-2's pacing, makes sure a check of the buffer is planned.
    fn buffer_packet(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        if let Some(old) = self.buffer.push(now, p) {
            ctx.drop_packet(old, DropReason::RouteBufferFull);
        }
        if self.ns2_pacing() && self.buffer_check_at.is_none() {
            self.plan_buffer_check(now, ctx);
        }
    }

    /// The next check of the send buffer (ns-2's pacing): the next expiry
    /// after `now` of ns-2's `SendBufferTimer`, which runs from time 0 and
    /// re-arms itself `buffer_check` plus a uniform draw of up to as much
    /// again after each expiry, whether or not the buffer holds anything;
    /// the expiries while the buffer was empty are drawn here, lazily.
    fn plan_buffer_check(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let check = self.cfg.buffer_check.max(1);
        let mut t = self.buffer_check_last;
        loop {
            t += check + ctx.rng.below(check);
            if t > now {
                break;
            }
            self.buffer_check_last = t;
        }
        self.buffer_check_at = Some(t);
    }

    /// ns-2's `getRouteForPacket` for a packet to `target` with no cached
    /// route: starts a new cycle (a non-propagating request) if the pacing
    /// allows, else sends the cycle's propagating request if the
    /// non-propagating one went unanswered for `nonprop_timeout` (only for
    /// this node's own packets). Returns false if the packet must be
    /// dropped instead: a packet of another node gets one cycle only.
    fn ns2_request(
        &mut self,
        now: SimTime,
        target: NodeId,
        own: bool,
        ctx: &mut RoutingCtx,
    ) -> bool {
        let (period, max) = (self.cfg.request_period, self.cfg.request_max_period);
        let e = self.ns2_table.pacing_mut(target);
        let wait = period
            .saturating_mul(1u64 << (2 * e.cycles).min(62))
            .min(max);
        if e.last_cycle.is_none_or(|t| t.saturating_add(wait) <= now) {
            if e.cycles < NS2_MAX_CYCLES {
                e.cycles += 1;
            }
            e.last_cycle = Some(now);
            if !own && e.cycles > 1 {
                return false;
            }
            e.ring_zero_at = Some(now);
            self.discoveries += 1;
            self.send_request(now, target, 1, ctx);
        } else if own
            && e.ring_zero_at
                .is_some_and(|t| now > t.saturating_add(self.cfg.nonprop_timeout))
        {
            e.ring_zero_at = None;
            let ttl = self.cfg.max_route_len.min(255) as u8;
            self.send_request(now, target, ttl, ctx);
        }
        true
    }

    /// ns-2's periodic check of the send buffer: every packet that now has
    /// a cached route goes; for each other, [`Self::ns2_request`] in
    /// buffer order (a packet of another node may be dropped there).
    fn ns2_check_buffer(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let waiting = self.buffer.drain();
        let mut keep = Vec::with_capacity(waiting.len());
        for (t, p) in waiting {
            if let Some(route) = self.cache.find_for_use(p.dst, now).map(<[NodeId]>::to_vec) {
                self.release(now, p, &route, 0, ctx);
            } else if self.ns2_request(now, p.dst, p.src == self.me, ctx) {
                keep.push((t, p));
            } else {
                ctx.drop_packet(p, DropReason::NoRoute);
            }
        }
        self.buffer.restore(keep);
        if !self.buffer.is_empty() {
            self.plan_buffer_check(now, ctx);
        }
    }

    /// Sends a buffered packet along `route` (this node first), `delay`
    /// from now: this node's own packet from the start of the route, one of
    /// another node as a salvage.
    fn release(
        &mut self,
        now: SimTime,
        mut p: Packet,
        route: &[NodeId],
        delay: SimTime,
        ctx: &mut RoutingCtx,
    ) {
        if p.is_control() {
            self.release_control(now, p, route, delay, ctx);
            return;
        }
        if p.src == self.me {
            self.strip(&mut p);
            self.send_own(now, p, route, delay, ctx);
            return;
        }
        // A packet buffered by flow carries no route: not salvaged before.
        let salvage = source_route(&p).map_or(0, |sr| sr.salvage);
        // ns-2.35 adds the new header's size to one that still counts the old.
        let stale = match &p.body {
            Some(b) if self.cfg.ns2_buffered_salvage_sizes => self.counted_body(b),
            _ => 0,
        };
        self.attach(&mut p, &SourceRoute::salvaged(self.me, route, salvage));
        keep_old_header(&mut p, stale);
        self.send_later(now, delay, p, route[1], Out::Data, ctx);
    }

    /// Sends this node's own data packet `p` (no DSR header) along `route`
    /// (this node first), `delay` from now: with its source route, or with
    /// flow state by ns-2.35's rules (`sendOutPacketWithRoute`).
    fn send_own(
        &mut self,
        now: SimTime,
        mut p: Packet,
        route: &[NodeId],
        delay: SimTime,
        ctx: &mut RoutingCtx,
    ) {
        if !self.cfg.flow_state {
            self.attach(&mut p, &SourceRoute::along(route));
            self.send_later(now, delay, p, route[1], Out::Data, ctx);
            return;
        }
        let f = self.own_flow(now, &p, route, ctx);
        if let Some(route) = &f.establishes {
            let options = f.establishing_options(p.dst, route);
            self.attach_options(&mut p, options);
        } else if f.header {
            let h = FlowHeader {
                next_header: next_header(&p),
                hop_count: 1,
                flow_id: f.id,
            };
            self.attach_flow_header(&mut p, &h);
        }
        self.send_later(now, delay, p, f.next, Out::Data, ctx);
    }

    /// Sends this node's own control packet `p` (unknown-flow errors)
    /// along `route` (this node first) by flow state
    /// ([`DsrConfig::flow_errors_by_flow`]), `delay` from now, as `out`
    /// says: its errors with the flow's route, Timeout and Destination and
    /// Flow ID options while the flow is advertised; then with the
    /// Destination and Flow ID option alone (ns-2's flow header), or, on
    /// the default flow, with nothing more. Whatever route or flow options
    /// it had are replaced.
    fn send_own_control(
        &mut self,
        now: SimTime,
        mut p: Packet,
        route: &[NodeId],
        delay: SimTime,
        out: Out,
        ctx: &mut RoutingCtx,
    ) {
        let Ok(repr) = DsrRepr::parse(p.body()) else {
            ctx.drop_packet(p, DropReason::NoRoute);
            return;
        };
        let mut repr = without_route(repr);
        let f = self.own_flow(now, &p, route, ctx);
        if let Some(route) = &f.establishes {
            repr.options.extend(f.establishing_options(p.dst, route));
        } else if f.header {
            repr.options.push(DsrOption::DestFlowId {
                flow_id: f.id,
                destination: p.dst,
            });
        }
        self.attach_repr(&mut p, &repr);
        self.send_later(now, delay, p, f.next, out, ctx);
    }

    /// The flow this node's own packet `p` goes by along `route` (this node
    /// first), by ns-2.35's rules (`sendOutPacketWithRoute`): the pair's
    /// default flow's route unless `route` is shorter, a live flow on that
    /// route or a new one, and whether the packet advertises the route
    /// (then counted and traced as establishing) or needs a flow header.
    fn own_flow(
        &mut self,
        now: SimTime,
        p: &Packet,
        route: &[NodeId],
        ctx: &mut RoutingCtx,
    ) -> OwnFlow {
        let (me, dst) = (self.me, p.dst);
        let mut route = route;
        // Keep to the default flow's route unless the cache offers a
        // shorter one (ns-2 `dsragent_prefer_default_flow` and
        // `dsragent_prefer_shorter_over_default`).
        let default = self.flows.default_flow(me, dst);
        let preferred = default
            .and_then(|id| self.flows.get(me, dst, id))
            .filter(|e| e.alive(now) && e.route.len() <= route.len())
            .map(|e| e.route.clone());
        if let Some(r) = &preferred {
            route = r;
        }
        let live = self
            .flows
            .find_route(me, dst, route)
            .filter(|&id| self.flows.get(me, dst, id).is_some_and(|e| e.alive(now)));
        let timeout = now + SimTime::from(FLOW_TIMEOUT_S) * NS_PER_S;
        let (id, establish) = match live {
            Some(id) => {
                let e = self.flows.get_mut(me, dst, id).expect("found above");
                let advertise =
                    e.count <= FLOW_ADV_COUNT || e.last_adv < now.saturating_sub(FLOW_ADV_INTERVAL);
                if advertise {
                    if e.expected_ttl != p.ttl {
                        e.allow_default = false;
                    }
                    e.count += 1;
                    e.last_adv = now;
                }
                (id, advertise)
            }
            None => {
                let id = self.flows.next_id();
                let mut e = FlowEntry::new(route.to_vec(), 0, p.ttl, timeout);
                e.count = 1;
                e.last_adv = now;
                e.allow_default = true;
                self.flows.create(me, dst, id, e);
                self.flow_counts.opened += 1;
                (id, true)
            }
        };
        let default = self.flows.default_flow(me, dst);
        let e = self.flows.get_mut(me, dst, id).expect("just found or made");
        e.timeout = timeout;
        let next = e.next_hop;
        let header =
            establish || default != Some(id) || p.ttl != e.expected_ttl || !e.allow_default;
        let uid = p.uid;
        if establish {
            self.flow_counts.established += 1;
            let route = &e.route;
            ctx.note(|| notes::established(now, me, uid, dst, id, next, route));
        } else {
            self.flow_counts.by_flow += 1;
            ctx.note(|| notes::sent(now, me, uid, dst, id, header, next));
        }
        OwnFlow {
            id,
            next,
            establishes: establish.then(|| e.route.clone()),
            header,
        }
    }

    /// A relay's part for a packet establishing a flow: the flow's entry,
    /// if it is new here, from the packet's route (`sr`, this node at
    /// `index` of its addresses) and TTL.
    fn learn_flow(
        &mut self,
        now: SimTime,
        p: &Packet,
        repr: &DsrRepr,
        sr: &SourceRoute,
        index: usize,
    ) {
        let Some((id, timeout_s)) = repr.establishes() else {
            return;
        };
        if sr.salvage > 0 || self.flows.get(p.src, p.dst, id).is_some() {
            return;
        }
        let mut route = Vec::with_capacity(sr.addresses.len() + 2);
        route.push(p.src);
        route.extend_from_slice(&sr.addresses);
        route.push(p.dst);
        let timeout = now + SimTime::from(timeout_s) * NS_PER_S;
        let hop = (index + 1).min(u8::MAX as usize) as u8;
        let e = FlowEntry::new(route, hop, p.ttl, timeout);
        self.flows.create(p.src, p.dst, id, e);
    }

    /// The flow a relayed packet without a source route belongs to: its
    /// flow header's id, or for a packet without a header the default
    /// flow of its source and destination. `Err` holds the unknown flow
    /// (`None`: no default flow, or a TTL the default flow does not have).
    fn flow_of(&self, p: &Packet) -> Result<u16, Option<u16>> {
        self.flow_named(p, FlowHeader::parse(p.body()).ok().map(|h| h.flow_id))
    }

    /// [`Self::flow_of`] for a packet that names flow `named` (`None`: on
    /// the default flow).
    fn flow_named(&self, p: &Packet, named: Option<u16>) -> Result<u16, Option<u16>> {
        match named {
            Some(id) => match self.flows.get(p.src, p.dst, id) {
                Some(_) => Ok(id),
                None => Err(Some(id)),
            },
            None => {
                let id = self.flows.default_flow(p.src, p.dst).ok_or(None)?;
                match self.flows.get(p.src, p.dst, id) {
                    None => Err(Some(id)),
                    Some(e) if e.expected_ttl != p.ttl => Err(None),
                    Some(_) => Ok(id),
                }
            }
        }
    }

    /// A relay forwards a packet by its flow table (ns-2
    /// `handleFlowForwarding`), or, for a flow it does not know, salvages
    /// it and tells the source (`sendUnknownFlow`).
    fn forward_by_flow(&mut self, now: SimTime, mut p: Packet, ctx: &mut RoutingCtx) {
        let id = match self.flow_of(&p) {
            Ok(id) => id,
            Err(unknown) => {
                self.flow_counts.unknown += 1;
                self.send_flow_error(now, &p, unknown, ctx);
                self.strip(&mut p);
                self.salvage(now, p, 0, DropReason::NoRoute, ctx);
                return;
            }
        };
        let next = self.pass_on_flow(now, &p, id, ctx);
        if let Ok(mut h) = FlowHeader::parse(p.body()) {
            h.hop_count = h.hop_count.saturating_add(1);
            self.attach_flow_header(&mut p, &h);
        }
        ctx.send(p, next);
    }

    /// A relay's bookkeeping for packet `p` it passes on by its known flow
    /// `id`: the flow's lifetime renewed, the packet counted and traced
    /// (`SFf`). Returns the flow's next hop.
    fn pass_on_flow(&mut self, now: SimTime, p: &Packet, id: u16, ctx: &mut RoutingCtx) -> NodeId {
        let e = self
            .flows
            .get_mut(p.src, p.dst, id)
            .expect("the flow is known");
        e.timeout = now + SimTime::from(FLOW_TIMEOUT_S) * NS_PER_S;
        let next = e.next_hop;
        self.flow_counts.forwarded += 1;
        let (me, uid, src, dst) = (self.me, p.uid, p.src, p.dst);
        ctx.note(|| notes::forwarded(now, me, uid, src, dst, id, next));
        next
    }

    /// An unknown-flow Route Error (RFC 4728 section 7.2.3) to the source
    /// of `p`, along a cached route. With none, the error is created
    /// without one and waits in the send buffer while a route is found, as
    /// ns-2.35's `sendUnknownFlow` has `handlePktWithoutSR` do. With
    /// [`DsrConfig::flow_errors_by_flow`] it is always created so, and
    /// goes by flow once it has a route ([`Self::release_control`]).
    fn send_flow_error(
        &mut self,
        now: SimTime,
        p: &Packet,
        unknown: Option<u16>,
        ctx: &mut RoutingCtx,
    ) {
        let tell = p.src;
        let me = self.me;
        ctx.note(|| notes::unknown(now, me, tell, p.dst, unknown));
        let mut type_specific = p.dst.to_be_bytes().to_vec();
        let error_type = match unknown {
            Some(id) => {
                type_specific.extend_from_slice(&id.to_be_bytes());
                ERROR_UNKNOWN_FLOW
            }
            None => ERROR_DEFAULT_FLOW_UNKNOWN,
        };
        let mut options = vec![DsrOption::RouteError {
            error_type,
            salvage: 0,
            source: self.me,
            destination: tell,
            type_specific,
        }];
        if self.cfg.flow_errors_by_flow {
            // Back through `route_output` with its uid, to go by flow
            // ([`Self::release_control`]) or wait for a route.
            let e = self.control(
                self.me,
                tell,
                self.cfg.control_ttl,
                &DsrRepr::control(options),
            );
            ctx.create(e);
            return;
        }
        let route = self.cache.find_for_use(tell, now).map(<[NodeId]>::to_vec);
        if let Some(route) = &route {
            options.push(SourceRoute::along(route).option());
        }
        let e = self.control(
            self.me,
            tell,
            self.cfg.control_ttl,
            &DsrRepr::control(options),
        );
        match route {
            Some(route) => ctx.originate(e, route[1], "rerr", false),
            None => ctx.create(e),
        }
    }

    /// The source hears that a relay does not know one of its flows: the
    /// flow's route goes with its next three packets again (ns-2
    /// `processUnknownFlowError`). For the default flow ns-2 reads an
    /// uninitialised id there and finds nothing
    /// ([`DsrConfig::default_flow_errors_ignored`]); otherwise manetsim
    /// takes the default flow's id.
    fn on_flow_error(&mut self, now: SimTime, o: &DsrOption, ctx: &mut RoutingCtx) {
        let DsrOption::RouteError {
            error_type,
            source: relay,
            type_specific,
            ..
        } = o
        else {
            return;
        };
        let Some(dst) = type_specific
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_be_bytes)
        else {
            return;
        };
        // The flow named (`None`: the default flow) and the one looked up.
        let (named, id) = match *error_type {
            ERROR_UNKNOWN_FLOW => match type_specific.get(4..6) {
                Some(b) => {
                    let id = u16::from_be_bytes([b[0], b[1]]);
                    // ns-2 gives up on a pair with no default flow.
                    let known = self.flows.default_flow(self.me, dst).map(|_| id);
                    (Some(id), known)
                }
                None => return,
            },
            ERROR_DEFAULT_FLOW_UNKNOWN if self.cfg.default_flow_errors_ignored => (None, None),
            ERROR_DEFAULT_FLOW_UNKNOWN => (None, self.flows.default_flow(self.me, dst)),
            _ => return,
        };
        let count = id
            .and_then(|id| self.flows.get_mut(self.me, dst, id))
            .map(|e| {
                e.count = 0;
                e.count
            });
        let (me, relay) = (self.me, *relay);
        ctx.note(|| notes::heard(now, me, relay, dst, named, count));
    }

    /// A link of this node's routes is broken: out of the cache, and the
    /// flows this node opened over it are over.
    fn link_broken(&mut self, from: NodeId, to: NodeId, now: SimTime) {
        self.cache.remove_link(from, to);
        if self.cfg.flow_state {
            self.flows.notice_dead_link(self.me, from, to, now);
        }
    }

    /// Sends `packet` to `next_hop` as `out` says, now (`delay` 0) or
    /// after `delay`.
    fn send_later(
        &mut self,
        now: SimTime,
        delay: SimTime,
        packet: Packet,
        next_hop: NodeId,
        out: Out,
        ctx: &mut RoutingCtx,
    ) {
        if delay == 0 {
            out.emit(packet, next_hop, ctx);
            return;
        }
        self.delayed_seq += 1;
        self.delayed.insert(
            (now + delay, self.delayed_seq),
            Delayed {
                packet,
                next_hop,
                out,
            },
        );
    }

    /// ns-2's `acceptRouteReply`: a reply for this node about `target`
    /// resets its pacing, and the buffered packets that now have a route
    /// go, `nonprop_timeout` (ns-2's `arp_timeout`) apart.
    fn ns2_accept_reply(&mut self, now: SimTime, target: NodeId, ctx: &mut RoutingCtx) {
        // ns-2's `getEntry`: a target the table does not hold takes an
        // entry.
        let e = self.ns2_table.pacing_mut(target);
        e.cycles = 0;
        e.last_cycle = Some(0);
        // Each packet's route is looked up in turn, as ns-2.35's loop over
        // its send buffer does (`findRoute` for use): a lookup may move a
        // route from the secondary cache into the full primary one and push
        // out the route an earlier lookup found for a later packet.
        let waiting = self.buffer.drain();
        let mut keep = Vec::with_capacity(waiting.len());
        let mut delay = 0;
        for (t, p) in waiting {
            match self.cache.find_for_use(p.dst, now).map(<[NodeId]>::to_vec) {
                Some(route) => {
                    self.release(now, p, &route, delay, ctx);
                    delay += self.cfg.nonprop_timeout;
                }
                None => keep.push((t, p)),
            }
        }
        self.buffer.restore(keep);
    }

    /// Sends buffered packets that now have a route; ends the discoveries
    /// they waited for.
    fn flush(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        // With ns-2's pacing the buffer waits for its next check or an
        // accepted reply.
        if self.buffer.is_empty() || self.ns2_pacing() {
            return;
        }
        // Each packet's route is looked up in turn: with ns-2's cache a
        // lookup for use may push out a route found for a later packet.
        let waiting = self.buffer.drain();
        let mut keep = Vec::with_capacity(waiting.len());
        for (t, p) in waiting {
            let Some(route) = self.cache.find_for_use(p.dst, now).map(<[NodeId]>::to_vec) else {
                keep.push((t, p));
                continue;
            };
            self.requests.end_discovery(p.dst);
            if p.is_control() {
                self.release_control(now, p, &route, 0, ctx);
            } else {
                // As `originate_data` with the route just found.
                let mut p = p;
                self.strip(&mut p);
                self.send_own(now, p, &route, 0, ctx);
            }
        }
        self.buffer.restore(keep);
    }

    /// The route packet `p` (source route `sr`) travelled, this node last,
    /// from its source or, once salvaged, from the node that salvaged it
    /// (its first address): the node a route error about it goes to
    /// (RFC 4728 section 8.3.4; ns-2's `tell`). Empty if this node is not
    /// on the route.
    fn travelled(&self, p: &Packet, sr: &SourceRoute) -> Vec<NodeId> {
        let Some(i) = sr.already_processed(self.me) else {
            return Vec::new();
        };
        let mut travelled = Vec::with_capacity(i + 2);
        if sr.salvage == 0 {
            travelled.push(p.src);
        }
        travelled.extend_from_slice(&sr.addresses[..=i]);
        travelled
    }

    /// A control packet (a reply or an error) the MAC failed to deliver to
    /// `broken`. With the RFC's single cache it is dropped. With ns-2's
    /// cache, as ns-2.35's `xmitFailed` does for any source-routed packet,
    /// the node that sent it along its route hears of the break in a route
    /// error that carries the packet's own errors before the new one (at
    /// most three), and the packet is salvaged ([`Self::salvage_control`]).
    fn control_broken(&mut self, now: SimTime, p: Packet, broken: NodeId, ctx: &mut RoutingCtx) {
        let parsed = DsrRepr::parse(p.body())
            .ok()
            .and_then(|r| self.with_route_back(now, &p, r))
            .and_then(|r| SourceRoute::of(&r).map(|sr| (r, sr)));
        let Some((repr, sr)) = parsed.filter(|_| self.ns2_cache()) else {
            ctx.drop_packet(p, DropReason::RetryLimit);
            return;
        };
        let salvage = self.carried_salvage(&repr, sr.salvage);
        if p.src != self.me || self.cfg.returned_packets_tell_salvager {
            let travelled = self.travelled(&p, &sr);
            let nested: Vec<DsrOption> = repr
                .options
                .iter()
                .filter(|o| broken_link(o).is_some())
                .cloned()
                .collect();
            self.send_nested_error(now, broken, salvage, &travelled, nested, p.uid, ctx);
        }
        self.salvage_control(now, p, repr, salvage, broken, ctx);
    }

    /// How many times control packet `repr` counts as salvaged: its
    /// source route's count `route_salvage` or, with
    /// [`DsrConfig::errors_keep_salvage_count`], the count its last route
    /// error carries from the packet it came from, if more.
    fn carried_salvage(&self, repr: &DsrRepr, route_salvage: u8) -> u8 {
        if !self.cfg.errors_keep_salvage_count {
            return route_salvage;
        }
        let carried = repr
            .options
            .iter()
            .rev()
            .find_map(|o| match o {
                DsrOption::RouteError { salvage, .. } if broken_link(o).is_some() => Some(*salvage),
                _ => None,
            })
            .unwrap_or(0);
        route_salvage.max(carried)
    }

    /// ns-2.35's `undeliverablePkt` for a control packet that failed on the
    /// link to `broken`: this node's own packet goes again on a cached
    /// route, another node's is salvaged (this node first in its new
    /// route, the salvage count one up), and only then is a reply whose
    /// route holds that link cut out of it (the packet dropped if nothing
    /// else is left in it; ns-2.35's `dont_salvage_bad_replies` check sits
    /// in its salvage branch alone). With no cached route the packet waits
    /// in the send buffer as it is, as ns-2.35's does: this node's own
    /// while a route is discovered, another node's for one non-propagating
    /// cycle (dropped if the pacing allows none).
    fn salvage_control(
        &mut self,
        now: SimTime,
        mut p: Packet,
        mut repr: DsrRepr,
        salvage: u8,
        broken: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        let me = self.me;
        let own = p.src == me;
        if !own && salvage >= self.cfg.max_salvage {
            ctx.drop_salvaged(p, DropReason::RetryLimit);
            return;
        }
        if !own && self.cfg.ns2_buffered_salvage_sizes {
            // ns-2.35's `undeliverablePkt` clears the flow options of a
            // packet it salvages.
            repr.options
                .retain(|o| !matches!(o, DsrOption::Timeout { .. } | DsrOption::DestFlowId { .. }));
        }
        let route = if own {
            self.cache.find_for_use(p.dst, now)
        } else {
            self.cache.find(p.dst, now)
        };
        let Some(route) = route.map(<[NodeId]>::to_vec) else {
            // ns-2's `undeliverablePkt`: into the send buffer while a route
            // is found (another node's packet with its route, which goes on
            // counting on release: `release_control`).
            self.attach_repr(&mut p, &repr);
            if own {
                self.await_route(now, p, ctx);
            } else if let Err(p) = self.await_route_for_other(now, p, ctx) {
                ctx.drop_packet(p, DropReason::NoRoute);
            }
            return;
        };
        if !own {
            let initiator = p.dst;
            repr.options.retain(|o| match o {
                DsrOption::RouteReply { addresses, .. } => {
                    let mut full = Vec::with_capacity(addresses.len() + 1);
                    full.push(initiator);
                    full.extend_from_slice(addresses);
                    !full
                        .windows(2)
                        .any(|w| (w[0] == me && w[1] == broken) || (w[0] == broken && w[1] == me))
                }
                _ => true,
            });
        }
        let Some(message) = control_message(&repr) else {
            ctx.drop_packet(p, DropReason::RetryLimit);
            return;
        };
        if own && self.sends_by_flow(&repr) {
            // ns-2's `undeliverablePkt` sends this node's own packet out
            // afresh, so under flow state again.
            let out = Out::Held {
                message,
                forwarded: true,
            };
            self.attach_repr(&mut p, &repr);
            self.send_own_control(now, p, &route, 0, out, ctx);
            return;
        }
        let sr = if own {
            SourceRoute::along(&route)
        } else {
            SourceRoute::salvaged(me, &route, salvage)
        };
        sr.replace_in(&mut repr);
        self.attach_repr(&mut p, &repr);
        ctx.resend(p, route[1], message, true);
    }

    /// A packet whose next hop `broken` is unreachable: report the break to
    /// its source and salvage it, or drop it with `reason`.
    fn handle_broken(
        &mut self,
        now: SimTime,
        p: Packet,
        broken: NodeId,
        reason: DropReason,
        ctx: &mut RoutingCtx,
    ) {
        if p.src == self.me {
            if self.cfg.returned_packets_tell_salvager {
                // Salvaged back through this node: its salvager hears of
                // the break (no one does if the route starts here).
                let sr = source_route(&p);
                if let Some(sr) = sr {
                    let travelled = self.travelled(&p, &sr);
                    self.send_error(now, broken, sr.salvage, &travelled, p.uid, ctx);
                }
            }
            self.originate_data(now, p, ctx);
            return;
        }
        if self.cfg.flow_state && Self::by_flow(&p) {
            self.flow_broken(now, p, broken, reason, ctx);
            return;
        }
        let Some(sr) = source_route(&p) else {
            ctx.drop_packet(p, reason);
            return;
        };
        let travelled = self.travelled(&p, &sr);
        self.send_error(now, broken, sr.salvage, &travelled, p.uid, ctx);
        self.salvage(now, p, sr.salvage, reason, ctx);
    }

    /// A relayed flow packet could not reach `broken` (ns-2
    /// `xmitFlowFailed`): its route comes back from the flow's entry, and
    /// it fails as a source-routed packet would, with a route error to the
    /// flow's source and a salvage. A flow this node no longer knows loses
    /// the packet; a default flow it never knew is reported unknown.
    fn flow_broken(
        &mut self,
        now: SimTime,
        mut p: Packet,
        broken: NodeId,
        reason: DropReason,
        ctx: &mut RoutingCtx,
    ) {
        let id = match FlowHeader::parse(p.body()) {
            Ok(h) => Some(h.flow_id),
            Err(_) => self.flows.default_flow(p.src, p.dst),
        };
        let Some(id) = id else {
            // A default flow this relay does not know: counted as ns-2.35's
            // `sendUnknownFlow` traces it (`SFErr`), as for a packet received.
            self.flow_counts.unknown += 1;
            self.send_flow_error(now, &p, None, ctx);
            self.strip(&mut p);
            self.salvage(now, p, 0, reason, ctx);
            return;
        };
        let entry = self
            .flows
            .get(p.src, p.dst, id)
            .filter(|e| e.alive(now))
            .map(|e| (e.route.clone(), e.hop_count as usize));
        match entry {
            Some((route, hop)) => {
                self.send_error(now, broken, 0, &route[..=hop], p.uid, ctx);
                if self.cfg.ns2_buffered_salvage_sizes && route.len() >= 2 {
                    // ns-2.35's `xmitFlowFailed` fills the header with the
                    // flow's route, which a salvage through the send buffer
                    // goes on counting.
                    // As it left this node: the intermediate nodes still to visit.
                    let mut sr = SourceRoute::along(&route);
                    sr.segments_left = (route.len() - 2).saturating_sub(hop) as u8;
                    self.attach(&mut p, &sr);
                } else {
                    self.strip(&mut p);
                }
                self.salvage(now, p, 0, reason, ctx);
            }
            None => ctx.drop_packet(p, reason),
        }
    }

    /// Salvages another node's packet `p`, salvaged `salvage` times
    /// before: re-sent on a cached route from this node, or (with ns-2's
    /// pacing) buffered for one discovery cycle, or dropped with `reason`.
    fn salvage(
        &mut self,
        now: SimTime,
        mut p: Packet,
        salvage: u8,
        reason: DropReason,
        ctx: &mut RoutingCtx,
    ) {
        if salvage >= self.cfg.max_salvage {
            // Before any route is looked up, as ns-2.35's `undeliverablePkt`
            // checks (`DROP_RTR_SALVAGE`).
            ctx.drop_salvaged(p, reason);
            return;
        }
        match self.cache.find(p.dst, now) {
            Some(route) => {
                let salvaged = SourceRoute::salvaged(self.me, route, salvage);
                let next = route[1];
                self.attach(&mut p, &salvaged);
                ctx.send(p, next);
            }
            None if self.ns2_pacing() => {
                // ns-2: into the send buffer, with one non-propagating cycle;
                // its `undeliverablePkt` clears the flow options first.
                if self.cfg.ns2_buffered_salvage_sizes {
                    let sr = source_route(&p);
                    if let Some(sr) = sr {
                        self.attach(&mut p, &sr);
                    }
                }
                if let Err(p) = self.await_route_for_other(now, p, ctx) {
                    ctx.drop_packet(p, DropReason::NoRoute);
                }
            }
            _ => ctx.drop_packet(p, reason),
        }
    }

    // ---------------------------------------------------------------
    // Route discovery
    // ---------------------------------------------------------------

    fn start_discovery(&mut self, now: SimTime, target: NodeId, ctx: &mut RoutingCtx) {
        if self.requests.discovery(target).is_some() {
            return;
        }
        self.discoveries += 1;
        self.send_request(now, target, 1, ctx);
        self.requests.set_discovery(
            target,
            Discovery {
                requests: 1,
                next_at: now + self.cfg.nonprop_timeout,
            },
        );
    }

    fn send_request(&mut self, now: SimTime, target: NodeId, ttl: u8, ctx: &mut RoutingCtx) {
        let id = self.next_request_id;
        self.next_request_id = self.next_request_id.wrapping_add(1);
        self.requests.first_sighting(self.me, id);
        let mut options = Vec::with_capacity(2);
        let ns2 = self.ns2_pacing();
        // The last route error rides on the next propagating request (with
        // ns-2's pacing on a non-propagating one too, and is kept for the
        // propagating one).
        if ttl > 1 || ns2 {
            let held = if ttl > 1 {
                self.held_error.take()
            } else {
                self.held_error.clone()
            };
            if let (Some((at, mut e)), Some(hold)) = (held, self.cfg.propagate_last_error) {
                if now <= at.saturating_add(hold) {
                    if self.cfg.grat_errors_tell_node_zero {
                        // ns-2.35's `sendOutRtReq` writes `GRAT_ROUTE_ERROR`
                        // as the tell address, whoever was told.
                        if let DsrOption::RouteError { destination, .. } = &mut e {
                            *destination = NS2_GRAT_ROUTE_ERROR;
                        }
                    }
                    options.push(e);
                }
            }
        }
        options.push(DsrOption::RouteRequest {
            id,
            target,
            addresses: Vec::new(),
        });
        let p = self.control(self.me, BROADCAST, ttl, &DsrRepr::control(options));
        let jitter = if ns2 { self.jitter(ctx) } else { 0 };
        let out = Out::New {
            message: "rreq",
            forwarded: false,
        };
        self.send_later(now, jitter, p, BROADCAST, out, ctx);
    }

    /// A uniform draw below `broadcast_jitter` (0 without jitter).
    fn jitter(&self, ctx: &mut RoutingCtx) -> SimTime {
        if self.cfg.broadcast_jitter > 0 {
            ctx.rng.below(self.cfg.broadcast_jitter)
        } else {
            0
        }
    }

    fn on_request(&mut self, now: SimTime, packet: &Packet, req: RequestIn, ctx: &mut RoutingCtx) {
        let RequestIn {
            id,
            target,
            record,
            errors,
        } = req;
        let initiator = packet.src;
        if initiator == self.me || record.contains(&self.me) {
            return;
        }
        // The way back to the initiator: this node, the record reversed.
        let mut back = vec![self.me];
        back.extend(record.iter().rev());
        back.push(initiator);
        let ns2_rules = self.cfg.ns2_request_rules;
        // The route so far (the initiator and its relays) holds no room
        // for this node.
        let full = record.len() + 1 >= self.cfg.max_route_len;
        // ns-2 caches the way back only as the target (of a request it
        // answers), or when it replies from its cache (below).
        let learns = !self.ns2_cache() || (target == self.me && !(ns2_rules && full));
        if learns && self.cache.add(&back, now) {
            self.flush(now, ctx);
        }
        if target == self.me {
            if ns2_rules {
                self.ns2_table.take(initiator, id);
                if full {
                    return;
                }
            }
            let mut route = record.to_vec();
            route.push(self.me);
            if self.ns2_pacing() {
                // ns-2 jitters the target's replies as it does requests.
                let delay = self.jitter(ctx);
                let p = self.reply_packet(route, &back);
                let out = Out::New {
                    message: "rrep",
                    forwarded: false,
                };
                self.send_later(now, delay, p, back[1], out, ctx);
            } else {
                self.send_reply(route, &back, ctx);
            }
            return;
        }
        if ns2_rules {
            // A full route: ignored, not recorded.
            if id <= self.ns2_table.taken(initiator) || full {
                return;
            }
            self.ns2_table.take(initiator, id);
        } else if !self.requests.first_sighting(initiator, id) {
            return;
        }
        if self.cfg.reply_from_cache {
            if let Some(cached) = self.cache.find(target, now) {
                let mut full = vec![initiator];
                full.extend_from_slice(record);
                full.extend_from_slice(cached);
                let mut sorted = full.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() == full.len() && full.len() <= self.cfg.max_route_len {
                    self.send_reply(full[1..].to_vec(), &back, ctx);
                    if self.ns2_cache() {
                        self.cache.add(&back, now);
                    }
                    return;
                }
            }
        }
        let room = if ns2_rules {
            // Checked above: this node fills the route at most.
            true
        } else {
            record.len() + 2 < self.cfg.max_route_len
        };
        if packet.ttl <= 1 || !room {
            return;
        }
        let mut rec = record.to_vec();
        rec.push(self.me);
        let mut options = errors;
        options.push(DsrOption::RouteRequest {
            id,
            target,
            addresses: rec,
        });
        let repr = DsrRepr::control(options);
        let header_bytes = self.counted(&repr);
        let mut p = self.control(initiator, BROADCAST, packet.ttl - 1, &repr);
        // The same packet goes on, as in ns-2.35's `handleRouteRequest`.
        p.uid = packet.uid;
        if self.cfg.ns2_request_sizes {
            p.size_bytes = packet.size_bytes + header_bytes;
        }
        let jitter = self.jitter(ctx);
        self.delayed_seq += 1;
        self.delayed.insert(
            (now + jitter, self.delayed_seq),
            Delayed {
                packet: p,
                next_hop: BROADCAST,
                out: Out::Relay { message: "rreq" },
            },
        );
    }

    /// Sends a Route Reply carrying `route` (the nodes after the initiator,
    /// target last) back along `back` (this node first, initiator last).
    fn send_reply(&mut self, route: Vec<NodeId>, back: &[NodeId], ctx: &mut RoutingCtx) {
        self.send_reply_as(route, back, "rrep", ctx);
    }

    /// [`Self::send_reply`], counted as `message`.
    fn send_reply_as(
        &mut self,
        route: Vec<NodeId>,
        back: &[NodeId],
        message: &'static str,
        ctx: &mut RoutingCtx,
    ) {
        let p = self.reply_packet(route, back);
        ctx.originate(p, back[1], message, false);
    }

    /// A Route Reply from this node carrying `route` back along `back`.
    fn reply_packet(&self, route: Vec<NodeId>, back: &[NodeId]) -> Packet {
        let initiator = *back.last().expect("back path ends at the initiator");
        let sr = SourceRoute::along(back);
        let repr = DsrRepr::control(vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: route,
            },
            sr.option(),
        ]);
        self.control(self.me, initiator, self.cfg.control_ttl, &repr)
    }

    fn on_reply(&mut self, now: SimTime, packet: &Packet, route: &[NodeId], ctx: &mut RoutingCtx) {
        let mut full = vec![packet.dst];
        full.extend_from_slice(route);
        // ns-2 caches a reply's route only at the node it answers; a relay
        // notices the reply's own source route as it forwards it.
        let learns = !self.ns2_cache() || packet.dst == self.me;
        if let Some(k) = full.iter().position(|&n| n == self.me).filter(|_| learns) {
            if self.cache.add(&full[k..], now) || packet.dst == self.me {
                self.flush(now, ctx);
            }
        }
        if packet.dst == self.me && self.ns2_pacing() {
            if let Some(&target) = full.last() {
                self.ns2_accept_reply(now, target, ctx);
            }
        }
    }

    // ---------------------------------------------------------------
    // Automatic route shortening
    // ---------------------------------------------------------------

    /// The whole source route of a data packet overheard from `from`, from
    /// its origin (the source, or the node that salvaged it), and the index
    /// in it of the intended receiver (`from` is just before it).
    fn overheard_route(packet: &Packet, from: NodeId) -> Option<(Vec<NodeId>, usize)> {
        let sr = source_route(packet)?;
        let offset = usize::from(sr.salvage == 0);
        let mut path = Vec::with_capacity(sr.addresses.len() + 2);
        if offset == 1 {
            path.push(packet.src);
        }
        path.extend_from_slice(&sr.addresses);
        path.push(packet.dst);
        let next = (sr.addresses.len() + offset).checked_sub(sr.segments_left as usize)?;
        (next > 0 && next < path.len() && path[next - 1] == from).then_some((path, next))
    }

    /// ns-2's `tap` with its path cache: an overheard data packet's route
    /// goes to the secondary cache, from this node on if the route names
    /// it, else as a link from this node to the transmitter and the route
    /// from there.
    fn notice_overheard(&mut self, now: SimTime, from: NodeId, packet: &Packet) {
        if packet.src == self.me {
            return;
        }
        let Some((path, next)) = Self::overheard_route(packet, from) else {
            return;
        };
        match path.iter().position(|&n| n == self.me) {
            Some(c) => {
                self.cache.notice(&path[c..], now);
            }
            None => {
                let mut stub = vec![self.me];
                stub.extend_from_slice(&path[next - 1..]);
                self.cache.notice(&stub, now);
            }
        }
    }

    /// A data packet `from` sent to another node, overheard: if its source
    /// route names this node after the intended next hop, the hops in
    /// between can go. Tells the route's origin (RFC 4728 section 3.4.3).
    fn shorten(&mut self, now: SimTime, from: NodeId, packet: &Packet, ctx: &mut RoutingCtx) {
        let Some((path, next)) = Self::overheard_route(packet, from) else {
            return;
        };
        if path[..=next].contains(&self.me) {
            return;
        }
        let Some(k) = path[next + 1..].iter().position(|&n| n == self.me) else {
            return;
        };
        let mine = next + 1 + k;
        let origin = path[0];
        let hold = self.cfg.grat_hold_down;
        if self.ns2_cache() {
            if !self.grat_hold.allows(&path, now, hold) {
                return;
            }
        } else {
            self.grat_sent
                .retain(|&(_, _, at)| now < at.saturating_add(hold));
            if self
                .grat_sent
                .iter()
                .any(|&(o, t, _)| o == origin && t == from)
            {
                return;
            }
            self.grat_sent.push((origin, from, now));
        }
        // The route: up to the transmitter, then this node and the rest.
        let mut route = path[1..next].to_vec();
        route.extend_from_slice(&path[mine..]);
        // Back to the origin: this node, the transmitter it heard, ... origin.
        let mut back = vec![self.me];
        back.extend(path[..next].iter().rev());
        let mut ahead = vec![self.me];
        ahead.extend_from_slice(&path[mine + 1..]);
        let learned = self.cache.add(&back, now) | self.cache.notice(&ahead, now);
        self.send_reply_as(route, &back, "grat_rrep", ctx);
        if learned {
            self.flush(now, ctx);
        }
    }

    /// ns-2's `tap` of an overheard reply or route error (with its path
    /// cache), in its order: the links a route error reports broken leave
    /// the cache (and, with `tap_unwraps_errors`, an error whose outer
    /// entry names this node is handled as if it had arrived,
    /// [`Self::tapped_error_for_me`]); then a reply's route that names
    /// this node and the packet's source route go to the secondary cache.
    fn tap_control(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        repr: &DsrRepr,
        ctx: &mut RoutingCtx,
    ) {
        for o in &repr.options {
            if let Some((from, to)) = broken_link(o) {
                self.link_broken(from, to, now);
            }
        }
        if self.cfg.tap_unwraps_errors {
            self.tapped_error_for_me(now, packet.uid, repr, ctx);
        }
        for o in &repr.options {
            if let DsrOption::RouteReply { addresses, .. } = o {
                let mut full = vec![packet.dst];
                full.extend_from_slice(addresses);
                if let Some(c) = full.iter().position(|&n| n == self.me) {
                    self.cache.notice(&full[c..], now);
                }
            }
        }
        self.notice_overheard(now, from, packet);
    }

    /// ns-2.35's `processBrokenRouteError` on an overheard packet: when
    /// the last (outer) route error names this node as the one to tell,
    /// the node holds it for its next request and passes the nested
    /// errors on ([`Self::unwrap_nested`]), though the packet is still on
    /// its way here and will be unwrapped again when it arrives.
    fn tapped_error_for_me(
        &mut self,
        now: SimTime,
        uid: u64,
        repr: &DsrRepr,
        ctx: &mut RoutingCtx,
    ) {
        let Some(last) = repr.options.iter().rev().find(|o| broken_link(o).is_some()) else {
            return;
        };
        if !matches!(last, DsrOption::RouteError { destination, .. } if *destination == self.me) {
            return;
        }
        self.held_error = Some((now, last.clone()));
        self.unwrap_nested(now, repr.clone(), uid, ctx);
    }

    /// With `tap_once`: whether the tap has looked at `packet` before
    /// (ns-2.35's `DSR_FILTER_TAP`), recording it if not.
    fn tapped_before(&mut self, packet: &Packet) -> bool {
        if self.tap_seen.is_empty() {
            // No packet has this uid (ns-2.35's table starts at 0, which
            // only its first packet ever made could have).
            self.tap_seen = vec![u64::MAX; TAP_SLOTS];
        }
        let slot = &mut self.tap_seen[(packet.uid as usize) & (TAP_SLOTS - 1)];
        if *slot == packet.uid {
            return true;
        }
        *slot = packet.uid;
        false
    }

    // ---------------------------------------------------------------
    // Route maintenance
    // ---------------------------------------------------------------

    /// Sends a Route Error about `me -> unreachable` to the first node of
    /// `travelled` (the packet's source, or the node that salvaged it),
    /// along `travelled` reversed. `failed` is the uid of the packet that
    /// could not go, which ns-2.35's `xmitFailed` turns into the error (an
    /// ns-2 trace shows the error with that packet's MAC header).
    fn send_error(
        &mut self,
        now: SimTime,
        unreachable: NodeId,
        salvage: u8,
        travelled: &[NodeId],
        failed: u64,
        ctx: &mut RoutingCtx,
    ) {
        self.send_nested_error(
            now,
            unreachable,
            salvage,
            travelled,
            Vec::new(),
            failed,
            ctx,
        );
    }

    /// [`Self::send_error`] carrying `nested`, the route errors of the
    /// packet that failed, before its own: the node it goes to passes them
    /// on in turn (ns-2's nested errors, at most [`MAX_NESTED_ERRORS`]).
    #[allow(clippy::too_many_arguments)]
    fn send_nested_error(
        &mut self,
        now: SimTime,
        unreachable: NodeId,
        salvage: u8,
        travelled: &[NodeId],
        mut nested: Vec<DsrOption>,
        failed: u64,
        ctx: &mut RoutingCtx,
    ) {
        let Some(&tell) = travelled.first() else {
            return;
        };
        if nested.len() >= MAX_NESTED_ERRORS {
            return;
        }
        if tell == self.me {
            return;
        }
        if self.errors_now.0 != now {
            self.errors_now = (now, Vec::new());
        }
        if self.errors_now.1.contains(&(tell, unreachable)) {
            return;
        }
        self.errors_now.1.push((tell, unreachable));
        let back: Vec<NodeId> = travelled.iter().rev().copied().collect();
        let sr = SourceRoute::along(&back);
        nested.push(DsrOption::RouteError {
            error_type: ERROR_NODE_UNREACHABLE,
            salvage: salvage.min(15),
            source: self.me,
            destination: tell,
            type_specific: unreachable.to_be_bytes().to_vec(),
        });
        nested.push(sr.option());
        let p = self.control(
            self.me,
            tell,
            self.cfg.control_ttl,
            &DsrRepr::control(nested),
        );
        ctx.made_from(failed);
        ctx.originate(p, back[1], "rerr", false);
    }

    /// A route error for this node that carries nested errors (ns-2's
    /// `processBrokenRouteError`): the errors but the last go on to the
    /// node the last of them names, along a cached route, or, with none,
    /// created without one to wait for a route in the send buffer (ns-2's
    /// `handlePktWithoutSR`).
    /// `uid` is the nested error's: with `unwrapped_errors_keep_uid` the
    /// inner errors keep it.
    fn unwrap_nested(&mut self, now: SimTime, mut repr: DsrRepr, uid: u64, ctx: &mut RoutingCtx) {
        let errors = repr
            .options
            .iter()
            .filter(|o| broken_link(o).is_some())
            .count();
        if errors < 2 {
            return;
        }
        let Some(last) = repr.options.iter().rposition(|o| broken_link(o).is_some()) else {
            return;
        };
        let route_salvage = SourceRoute::of(&repr).map_or(0, |sr| sr.salvage);
        let carried = self.carried_salvage(&repr, route_salvage);
        repr.options.remove(last);
        if self.cfg.errors_keep_salvage_count {
            // The copy goes on with the received error's count.
            if let Some(DsrOption::RouteError { salvage, .. }) = repr
                .options
                .iter_mut()
                .rev()
                .find(|o| broken_link(o).is_some())
            {
                *salvage = carried;
            }
        }
        let tell = repr
            .options
            .iter()
            .rev()
            .find_map(|o| match o {
                DsrOption::RouteError { destination, .. } if broken_link(o).is_some() => {
                    Some(*destination)
                }
                _ => None,
            })
            .expect("at least one error left");
        if tell == self.me {
            return;
        }
        let Some(route) = self.cache.find_for_use(tell, now).map(<[NodeId]>::to_vec) else {
            // Created without a route; it waits for one in the send buffer.
            repr.options
                .retain(|o| !matches!(o, DsrOption::SourceRoute { .. }));
            let mut p = self.control(self.me, tell, self.cfg.control_ttl, &repr);
            if self.cfg.unwrapped_errors_keep_uid {
                p.uid = uid;
                ctx.create_copy(p);
            } else {
                ctx.create(p);
            }
            return;
        };
        let sr = SourceRoute::along(&route);
        sr.replace_in(&mut repr);
        let mut p = self.control(self.me, tell, self.cfg.control_ttl, &repr);
        if self.cfg.unwrapped_errors_keep_uid {
            p.uid = uid;
            ctx.originate_copy(p, route[1], "rerr");
        } else {
            ctx.originate(p, route[1], "rerr", false);
        }
    }

    /// Passes a unicast control packet on along its source route.
    fn forward_control(
        &mut self,
        now: SimTime,
        packet: &Packet,
        mut repr: DsrRepr,
        message: &'static str,
        ctx: &mut RoutingCtx,
    ) {
        let Some(mut sr) = SourceRoute::of(&repr) else {
            if self.cfg.flow_state {
                self.forward_control_by_flow(now, packet, repr, message, ctx);
            }
            return;
        };
        let Some(i) = sr.my_turn(self.me) else {
            return;
        };
        if self.cfg.flow_state {
            self.learn_flow(now, packet, &repr, &sr, i);
        }
        let next = sr.addresses.get(i + 1).copied().unwrap_or(packet.dst);
        if self.ns2_cache() {
            // ns-2 notices the source route of every packet it forwards.
            let mut rest = vec![self.me];
            rest.extend_from_slice(&sr.addresses[i + 1..]);
            rest.push(packet.dst);
            self.cache.notice(&rest, now);
        }
        sr.segments_left -= 1;
        sr.replace_in(&mut repr);
        // The same packet goes on, as in ns-2.35's `handleForwarding`.
        self.relay_hop(packet, &repr, next, message, ctx);
    }

    /// Relays control packet `packet` one hop on with the header `repr`
    /// ([`Self::passed_on`]), its TTL one less, as a data packet's; one
    /// that came in with 1 left goes no further ([`DsrConfig::control_ttl`]).
    fn relay_hop(
        &self,
        packet: &Packet,
        repr: &DsrRepr,
        next: NodeId,
        message: &'static str,
        ctx: &mut RoutingCtx,
    ) {
        let mut p = self.passed_on(packet, repr);
        if p.ttl <= 1 {
            ctx.expired(|| p);
            return;
        }
        p.ttl -= 1;
        ctx.relay(p, next, message);
    }

    /// A control packet with no route that another node sent by flow (an
    /// unknown-flow error, [`DsrConfig::flow_errors_by_flow`]), passed on
    /// by this relay's flow table as data is ([`Self::forward_by_flow`]).
    /// For a flow this relay does not know it tells the packet's source,
    /// as ns-2.35's `handleForwarding` does for any packet, and salvages
    /// the packet on a cached route; with none the packet is lost (ns-2.35
    /// would hold it for one discovery cycle; neither simulator's rwp50
    /// traces hold such an error about an error).
    fn forward_control_by_flow(
        &mut self,
        now: SimTime,
        packet: &Packet,
        repr: DsrRepr,
        message: &'static str,
        ctx: &mut RoutingCtx,
    ) {
        let id = match self.flow_named(packet, named_flow(&repr)) {
            Ok(id) => id,
            // ns-2.35's `sendUnknownFlow` lets a node's own packet go.
            Err(_) if packet.src == self.me => return,
            Err(unknown) => {
                self.flow_counts.unknown += 1;
                self.send_flow_error(now, packet, unknown, ctx);
                let Some(route) = self.cache.find(packet.dst, now).map(<[NodeId]>::to_vec) else {
                    return;
                };
                let mut repr = without_route(repr);
                repr.options
                    .push(SourceRoute::salvaged(self.me, &route, 0).option());
                let p = self.passed_on(packet, &repr);
                ctx.relay(p, route[1], message);
                return;
            }
        };
        let next = self.pass_on_flow(now, packet, id, ctx);
        self.relay_hop(packet, &repr, next, message, ctx);
    }

    /// `repr`, the options of control packet `p` given back to this node
    /// (its link broke, or the queue was emptied for it), with a source
    /// route: its own, or for a packet that went by flow the flow's, as
    /// ns-2.35's `xmitFlowFailed` fills it in from its flow table (this
    /// node at the flow's hop count), the flow's options taken off.
    /// `None` if it went by flow and this node no longer knows the flow
    /// (another node's: alive), which loses the packet, as in ns-2.35.
    fn with_route_back(&self, now: SimTime, p: &Packet, repr: DsrRepr) -> Option<DsrRepr> {
        if SourceRoute::of(&repr).is_some() || !self.cfg.flow_state || !flow_errors_only(&repr) {
            return Some(repr);
        }
        let id = named_flow(&repr).or_else(|| self.flows.default_flow(p.src, p.dst))?;
        let e = self
            .flows
            .get(p.src, p.dst, id)
            .filter(|e| p.src == self.me || e.alive(now))?;
        let n = e.route.len() - 2;
        let sr = SourceRoute {
            salvage: 0,
            segments_left: (n - usize::from(e.hop_count)) as u8,
            addresses: e.route[1..=n].to_vec(),
        };
        let mut repr = without_route(repr);
        repr.options.push(sr.option());
        Some(repr)
    }
}

impl RoutingProtocol for Dsr {
    fn name(&self) -> &'static str {
        "dsr"
    }

    fn drops_returning_packets(&self) -> bool {
        // Source routes: ns-2.35's DSR has no such check either.
        false
    }

    /// The send buffer, oldest first. ns-2.35's `Terminate` walks its 64
    /// slots in order, a packet in the first one free when it came: the
    /// same order unless a slot was freed under older packets.
    fn waiting_packets(&self) -> Vec<&Packet> {
        self.buffer.iter().collect()
    }

    fn route_output(&mut self, now: SimTime, mut packet: Packet, ctx: &mut RoutingCtx) {
        if Self::by_flow(&packet) {
            if packet.src == self.me {
                self.originate_data(now, packet, ctx);
            } else if self.cfg.flow_state {
                self.forward_by_flow(now, packet, ctx);
            } else {
                ctx.drop_packet(packet, DropReason::NoRoute);
            }
            return;
        }
        let Ok(repr) = DsrRepr::parse(packet.body()) else {
            ctx.drop_packet(packet, DropReason::NoRoute);
            return;
        };
        let Some(mut sr) = SourceRoute::of(&repr) else {
            if packet.is_control() && packet.src == self.me {
                self.originate_control(now, packet, ctx);
            } else {
                ctx.drop_packet(packet, DropReason::NoRoute);
            }
            return;
        };
        let n = sr.addresses.len();
        if packet.src == self.me && sr.segments_left as usize == n && sr.salvage == 0 {
            // Back from the interface queue at the source.
            self.originate_data(now, packet, ctx);
        } else if let Some(i) = sr.my_turn(self.me) {
            let next = sr.addresses.get(i + 1).copied().unwrap_or(packet.dst);
            let mut rest = vec![self.me];
            rest.extend_from_slice(&sr.addresses[i + 1..]);
            rest.push(packet.dst);
            if self.cache.notice(&rest, now) {
                self.flush(now, ctx);
            }
            if self.cfg.flow_state {
                self.learn_flow(now, &packet, &repr, &sr, i);
            }
            sr.segments_left -= 1;
            // Other options (a flow's Timeout and id) stay as they were.
            let mut repr = repr;
            sr.replace_in(&mut repr);
            self.attach_options(&mut packet, repr.options);
            ctx.send(packet, next);
        } else if let Some(i) = sr.already_processed(self.me) {
            // Back from the interface queue after a link break: salvage.
            let broken = sr.addresses.get(i + 1).copied().unwrap_or(packet.dst);
            self.handle_broken(now, packet, broken, DropReason::NoRoute, ctx);
        } else {
            ctx.drop_packet(packet, DropReason::NoRoute);
        }
    }

    fn on_control(&mut self, now: SimTime, _from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        let Ok(repr) = DsrRepr::parse(packet.body()) else {
            return;
        };
        // ns-2.35's MAC hands every data frame it receives to the tap, a
        // broadcast one too: a route request from another node takes its
        // slot in the tap's table (where a data packet's uid may have been)
        // before the agent receives it.
        if self.cfg.tap_once && packet.dst == BROADCAST && packet.src != self.me {
            self.tapped_before(&packet);
        }
        let mut forward: Option<&'static str> = None;
        // Route errors first, so a request carrying one (or a reply) is
        // handled with the broken link already gone from the cache.
        let mut errors = Vec::new();
        // ns-2.35's tell address of an error on a request is node 0's.
        let told_as_node_zero = self.cfg.grat_errors_tell_node_zero
            && self.me == 0
            && repr
                .options
                .iter()
                .any(|o| matches!(o, DsrOption::RouteRequest { .. }));
        for o in &repr.options {
            if let DsrOption::RouteError { .. } = o {
                if let Some((from, to)) = broken_link(o) {
                    self.link_broken(from, to, now);
                    if packet.dst == self.me || told_as_node_zero {
                        self.held_error = Some((now, o.clone()));
                    }
                    errors.push(o.clone());
                } else if packet.dst == self.me && self.cfg.flow_state {
                    self.on_flow_error(now, o, ctx);
                }
                forward = Some("rerr");
            }
        }
        for o in &repr.options {
            match o {
                DsrOption::RouteRequest {
                    id,
                    target,
                    addresses,
                } => {
                    let errors = std::mem::take(&mut errors);
                    let req = RequestIn {
                        id: *id,
                        target: *target,
                        record: addresses,
                        errors,
                    };
                    self.on_request(now, &packet, req, ctx);
                    forward = None;
                }
                DsrOption::RouteReply { addresses, .. } => {
                    self.on_reply(now, &packet, addresses, ctx);
                    forward = Some("rrep");
                }
                _ => {}
            }
        }
        if let Some(message) = forward {
            if packet.dst != self.me {
                self.forward_control(now, &packet, repr, message, ctx);
            } else if message == "rerr" {
                self.unwrap_nested(now, repr, packet.uid, ctx);
            }
        }
    }

    fn header_bytes(&self, packet: &Packet) -> u32 {
        packet.body.as_deref().map_or(0, |b| self.counted_body(b))
    }

    fn wants_promiscuous(&self) -> bool {
        self.cfg.gratuitous_replies || self.ns2_cache()
    }

    fn overhears_control(&self) -> bool {
        self.ns2_cache()
    }

    fn on_overheard(&mut self, now: SimTime, from: NodeId, packet: &Packet, ctx: &mut RoutingCtx) {
        // ns-2.35's `tap` hands a packet without a source route (sent by
        // flow state) to its flow shortening, which never acts (module
        // docs), before its uid table: such a packet takes no slot, and
        // the same packet salvaged later with a source route is new to it.
        if packet.is_control() {
            let Ok(repr) = DsrRepr::parse(packet.body()) else {
                return;
            };
            if self.cfg.tap_once
                && (packet.src == self.me
                    || repr.source_route().is_none()
                    || self.tapped_before(packet))
            {
                return;
            }
            self.tap_control(now, from, packet, &repr, ctx);
            return;
        }
        if self.cfg.tap_once
            && (packet.src == self.me || Self::by_flow(packet) || self.tapped_before(packet))
        {
            return;
        }
        if packet.body.is_none() {
            return;
        }
        if self.ns2_cache() {
            self.notice_overheard(now, from, packet);
        }
        if self.cfg.gratuitous_replies {
            self.shorten(now, from, packet, ctx);
        }
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        self.link_broken(self.me, next_hop, now);
        match packet {
            Some(p) if p.is_control() => self.control_broken(now, p, next_hop, ctx),
            Some(p) => self.handle_broken(now, p, next_hop, DropReason::RetryLimit, ctx),
            None => {}
        }
        ctx.out.push(RoutingAction::Reroute { next_hop });
    }

    fn reroutes_control(&self) -> bool {
        // ns-2's `xmitFailed` takes every packet for the broken neighbour
        // out of the queue; with its cache, manetsim salvages control
        // packets as ns-2 does.
        self.ns2_cache()
    }

    fn on_reroute(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, ctx: &mut RoutingCtx) {
        // A control packet the queue held for a broken link is salvaged
        // without a route error (ns-2's `undeliverablePkt`).
        if packet.is_control() {
            let parsed = DsrRepr::parse(packet.body())
                .ok()
                .and_then(|r| self.with_route_back(now, &packet, r))
                .and_then(|r| SourceRoute::of(&r).map(|sr| (r, sr.salvage)));
            match parsed {
                Some((repr, salvage)) => {
                    self.salvage_control(now, packet, repr, salvage, next_hop, ctx)
                }
                None => ctx.drop_packet(packet, DropReason::NoRoute),
            }
            return;
        }
        // A relayed flow packet the queue held for a broken link is only
        // salvaged (ns-2 `undeliverablePkt`), as it carries no route.
        if self.cfg.flow_state && packet.src != self.me && Self::by_flow(&packet) {
            let mut p = packet;
            self.strip(&mut p);
            self.salvage(now, p, 0, DropReason::NoRoute, ctx);
            return;
        }
        // A source-routed packet this node passed on, with ns-2.35's rule:
        // salvaged alone (`undeliverablePkt`), or, if it is this node's own
        // come back through it, routed again; the failed packet's error is
        // the only one this break sends.
        if self.cfg.queued_salvaged_without_error {
            let passed_on =
                source_route(&packet).filter(|sr| sr.already_processed(self.me).is_some());
            if let Some(sr) = passed_on {
                if packet.src == self.me {
                    self.originate_data(now, packet, ctx);
                } else {
                    self.salvage(now, packet, sr.salvage, DropReason::NoRoute, ctx);
                }
                return;
            }
        }
        self.route_output(now, packet, ctx);
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.buffer.next_expiry(),
            self.requests.next_deadline(),
            self.delayed.keys().next().map(|k| k.0),
            self.buffer_check_at,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_timeout(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        while let Some(entry) = self.delayed.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let d = entry.remove();
            d.out.emit(d.packet, d.next_hop, ctx);
        }
        for p in self.buffer.expire(now) {
            ctx.drop_packet(p, DropReason::RouteBufferTimeout);
        }
        self.cache.expire(now);
        if let Some(t) = self.buffer_check_at.filter(|&t| t <= now) {
            self.buffer_check_at = None;
            self.buffer_check_last = t;
            self.ns2_check_buffer(now, ctx);
        }
        for target in self.requests.due(now) {
            let Some(d) = self.requests.discovery(target) else {
                continue;
            };
            if !self.buffer.has_dst(target) || self.cache.find(target, now).is_some() {
                self.requests.end_discovery(target);
                continue;
            }
            let ttl = self.cfg.max_route_len.min(255) as u8;
            self.send_request(now, target, ttl, ctx);
            self.requests.set_discovery(
                target,
                Discovery {
                    requests: d.requests + 1,
                    next_at: now
                        + backoff(
                            d.requests,
                            self.cfg.request_period,
                            self.cfg.request_max_period,
                        ),
                },
            );
        }
        self.flush(now, ctx);
    }

    fn buffered(&self) -> u64 {
        // Packets released from the buffer but still waiting for their
        // spacing (ns-2's pacing) are held here too.
        let releasing = self.delayed.values().filter(|d| d.out.is_held()).count();
        (self.buffer.len() + releasing) as u64
    }

    fn route_discoveries(&self) -> u64 {
        self.discoveries
    }

    fn flow_state_counts(&self) -> FlowStateCounts {
        self.flow_counts
    }

    fn hop_count(&self, dst: NodeId, now: SimTime) -> Option<u32> {
        self.cache.find(dst, now).map(|r| (r.len() - 1) as u32)
    }
}

#[cfg(test)]
mod tests;
