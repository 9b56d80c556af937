//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! The agent is split by concern as ns-3 does: this file is the agent;
//! [`route_table`] holds routes with sequence numbers and precursors,
//! [`request_queue`] the data waiting for a route, [`id_cache`] the RREQ
//! duplicate cache, [`neighbors`] the HELLO neighbour set,
//! [`rebroadcast`] the jittered broadcast of another node's message,
//! [`rerr_limit`] RERR_RATELIMIT and [`crate::routing::timers`] the timer
//! queue; AOMDV shares all of them but the route table and the duplicate
//! cache. The messages are in [`crate::wire::aodv`], carried over UDP (8
//! header bytes) to port 654.
//!
//! # Behaviour, and where RFC 3561 leaves room
//!
//! Where the RFC leaves a choice open, the agent does what ns-2.35's
//! `aodv.cc` does, unless noted:
//!
//! - **Link breaks** are learnt from MAC feedback (ns-2's
//!   `AODV_LINK_LAYER_DETECTION`); HELLO messages are a config option
//!   ([`LinkDetection::Hello`]). ns-2 sends HELLOs periodically whether or not
//!   the node has active routes, at an interval drawn from 0.75–1.25 ×
//!   HELLO_INTERVAL; so does this agent in HELLO mode.
//! - **RERR** is broadcast with IP TTL 1 to all neighbours, as ns-2 does,
//!   rather than unicast to a lone precursor. On a link break every active
//!   route through the lost neighbour is listed (ns-2), its sequence number
//!   incremented (RFC 6.11). A received RERR invalidates the routes whose
//!   next hop sent it and is relayed only for the routes that have
//!   precursors (with the ns-2 preset, ns-2.35's lists: a relayed RREP
//!   adds a precursor to the route to its destination only, a broken link
//!   removes the lost neighbour from every list, and a relayed RERR
//!   empties the lists of the routes it reports;
//!   [`AodvConfig::ns2_precursors`]). A RERR that breaks a route also takes back the interface
//!   queue's data for its sender (`Reroute`,
//!   [`AodvConfig::rerr_takes_back_queue`], on in both presets): at the
//!   source it is buffered and a discovery starts at once, at a relay it is
//!   dropped (`no_route`). ns-2's `recvError` drops every packet queued
//!   for that neighbour, RREPs included (`DROP_RTR_MAC_CALLBACK`, its
//!   comment: "not sure whether this is the right thing to do"), and so
//!   does the ns-2 preset
//!   ([`AodvConfig::drop_queue_on_break`]); either way they no longer go to
//!   a neighbour that cannot forward them. A node asked to forward data it
//!   has no route for sends a RERR for that destination (RFC 6.11 case ii)
//!   at most once per second per destination, and RERRs are limited to
//!   RERR_RATELIMIT (10) per second; the ns-2 preset sends one per packet
//!   with no limit, as ns-2.35 does
//!   ([`AodvConfig::rerr_per_unrouted_packet`]).
//! - **Sequence numbers**: a destination answering a RREQ sets its own
//!   number to max(own, requested) + 1 (ns-2); an originator increments its
//!   own before each RREQ (RFC). An intermediate node replies when it has an
//!   active route whose sequence number is at least the requested one (or
//!   the request's U flag says it is unknown) and the D flag is clear; with
//!   the G flag it also sends the gratuitous RREP to the destination. The
//!   originator sets G when [`AodvConfig::gratuitous_rrep`] is on (off, as
//!   ns-2 compiles it out), or, as AODV-UU does, for a discovery a TCP
//!   packet started ([`AodvConfig::gratuitous_for_tcp`]).
//! - **Reverse routes** live REV_ROUTE_LIFE (ns-2: 6 s), extended to it by
//!   every new RREQ from the originator even when the route is kept (RFC
//!   6.5; ns-2.35's `recvRequest`), and to ACTIVE_ROUTE_TIMEOUT by forwarding
//!   a RREP (RFC 6.7; ns-2.35's `forward`); the RREQ duplicate cache keeps entries for
//!   BCAST_ID_SAVE (ns-2: 6 s; with the ns2 preset until ns-2.35's purge
//!   every 6 s after that, so 6 to 12 s: [`AodvConfig::rreq_id_purge_tick`]).
//!   Unlike the RFC (6.5), and like ns-2, no route to the previous hop of a
//!   RREQ is created. A node whose reverse route stays down (the RREQ it
//!   answers carries an older number of its originator than the node has)
//!   sends no reply, or with the ns2 preset sends it to node 0, as ns-2.35
//!   does ([`AodvConfig::ns2_down_reply_to_node_zero`]).
//! - **A RREP that brings no better route** is not forwarded (ns-2's
//!   "suppress reply").
//! - **Route lifetime**: sending or forwarding data over a route extends it
//!   to now + ACTIVE_ROUTE_TIMEOUT (ns-2: 10 s; only the route used, as in
//!   ns-2). MY_ROUTE_TIMEOUT (ns-2: 10 s) is the lifetime in a
//!   destination's RREP. Routes expire lazily (an expired route is not
//!   active); nothing is sent when one expires. With the ns-2 preset a
//!   route stays active until ns-2.35's next 0.5 s purge tick after its
//!   lifetime, which brings it down and increments its sequence number
//!   (`rt_purge`): the next RREQ for it then asks for a fresher route, and
//!   a RREP bringing the expired route back is not forwarded
//!   ([`AodvConfig::expire_at_purge_tick`]; rwp50 over 10 seeds: RREQs 0.98
//!   → 1.00 of ns-2.35's, RREPs 0.79 → 0.81). An intermediate reply from a
//!   route past its lifetime gives lifetime 0. The ns-2 preset also sets
//!   lifetimes as ns-2.35 sets `rt_expire` ([`AodvConfig::ns2_route_lifetimes`]):
//!   an update takes the lifetime offered even if shorter, a use sets now +
//!   ACTIVE_ROUTE_TIMEOUT even if that is shorter, and an intermediate reply
//!   gives whole seconds, wrapped around to about 2^32 s from a route in
//!   local repair (whose lifetime ns-2.35 zeroes when it sends the RREQ).
//! - **Expanding ring search** (RFC 6.4): the first RREQ has TTL_START (or,
//!   when a route was known before, its last hop count + TTL_INCREMENT);
//!   each timeout adds TTL_INCREMENT; past TTL_THRESHOLD the RREQ goes
//!   network wide (NET_DIAMETER), retried RREQ_RETRIES times. The wait is
//!   RING_TRAVERSAL_TIME = 2 × NODE_TRAVERSAL_TIME × (TTL + TIMEOUT_BUFFER),
//!   and NET_TRAVERSAL_TIME doubled for each network-wide retry (RFC's binary
//!   exponential backoff), capped at ns-2's MAX_RREQ_TIMEOUT (10 s), and the
//!   agent retries exactly when the wait ends. The defaults are the RFC's
//!   ring constants (TTL_START 1, TTL_INCREMENT 2, TTL_THRESHOLD 7,
//!   NET_DIAMETER 35, NODE_TRAVERSAL_TIME 40 ms, RREQ_RETRIES 2), as the
//!   issue asks; [`AodvConfig::ns2`] has
//!   ns-2.35's (NETWORK_DIAMETER 30, NODE_TRAVERSAL_TIME 30 ms, RREQ_RETRIES
//!   3) and its effective first TTL. ns-2.35 declares TTL_START 5, but a new
//!   route entry's last hop count is INFINITY2 (255), and the first TTL is
//!   derived from max(last TTL, last hop count), so its first RREQ to a
//!   destination never seen before goes network wide (TTL 30, seen in its
//!   traces); the ring only applies once a hop count is known. The preset
//!   reproduces that with TTL_START = NETWORK_DIAMETER, and grows the ring
//!   as ns-2.35 does: TTL_THRESHOLD bounds the last TTL, so from a 6-hop
//!   route the next TTL is 8, then network wide ([`AodvConfig::ns2_ring`]).
//!   Its messages are ns-2.35's size: no UDP header, a RREQ and a RREP 4
//!   bytes longer than the RFC's ([`AodvConfig::ns2_message_sizes`]), and
//!   a packet a node originates leaves with TTL NETWORK_DIAMETER, 30
//!   ([`AodvConfig::ns2_data_ttl`]); a relay passes a RREP on with the IP
//!   source of the node that answered, not its own
//!   ([`AodvConfig::relayed_rrep_keeps_source`]: only the trace shows it).
//! - **ns-2's RREQ timing** ([`AodvConfig::ns2`] only). ns-2 does not use
//!   RING_TRAVERSAL_TIME: it waits 2 × TTL × PerHopTime, PerHopTime being the
//!   mean per-hop latency of the last three discoveries of that destination
//!   (time from RREQ to RREP at the originator over the RREP's hop count;
//!   NODE_TRAVERSAL_TIME before any), multiplied by the number of
//!   network-wide RREQs sent so far ([`AodvConfig::adaptive_rreq_wait`]).
//!   ns-2 stamps the RREQ's send time in the RREQ and in the replies to it,
//!   and times every reply that updates the originator's route from that
//!   stamp; with ns-2's message sizes the agent carries the stamp in the 4
//!   bytes by which ns-2's RREQ and RREP are longer than the RFC's and does
//!   the same. The RFC formats have no such field, so without them the
//!   agent times a reply from its latest RREQ for the destination, while
//!   the discovery lasts (a RREP to an earlier one reads short). The wait only
//!   rate-limits: ns-2 sends the next RREQ when a data packet for the
//!   destination arrives after it, or at its 0.5 s route-purge tick
//!   (`RouteCacheTimer`, phase 0), so this agent does the same
//!   ([`AodvConfig::retry_when_prompted`]; the RFC allows it, 6.3: the
//!   originator "MAY try again"). On the 6-node TCP chain (`tests/integration/aodv_tcp.rs`)
//!   the RFC wait (2 × 30 ms × (7 + 2) = 540 ms for the usual TTL-7 ring
//!   after a break) was the main cause of TCP stalling longer than in
//!   ns-2: about half the TTL-7 discoveries right after a break get no
//!   RREP (ns-2's too: 42 %), and ns-2, measuring ~8 ms per hop, tries
//!   again after 0.38 s on average instead.
//! - **Buffering**: data waiting for a route is held in a drop-front queue
//!   of 64 packets, 30 s each (ns-2's `aodv_rqueue`); overflow drops the
//!   oldest (`route_buffer_full`), age drops it (`route_buffer_timeout`), and
//!   a discovery that gives up drops the destination's packets (`no_route`).
//!   With the ns-2 preset no new discovery for that destination starts for
//!   MAX_RREQ_TIMEOUT (10 s) after it gives up, ns-2's `sendRequest`
//!   ([`AodvConfig::give_up_hold`]); packets wait in the buffer meanwhile.
//!   Without the hold a CBR source with no route floods the network again
//!   with its next packet: on rwp1000's first 30 s (seed 1) manetsim
//!   originated 1,124 floods against ns-2.35's 930, 1,071 with it.
//! - **Broadcast jitter**: relayed RREQs and relayed RERRs wait a uniform
//!   0–10 ms (ns-2's `0.01 * Random::uniform()`); originated RREQs, and the
//!   RERR sent on a link break, go at once (as in ns-2).
//! - **On a MAC-reported break** the interface queue's data for the lost
//!   neighbour is taken back (`Reroute`) and routed again: at the source it
//!   is buffered and a discovery starts; at a relay with no route it is
//!   dropped (`no_route`). ns-2 drops every queued packet for that
//!   neighbour, RREPs included (`PriQueue::filter` matches the next hop
//!   alone; `DROP_RTR_MAC_CALLBACK`), at a source too, unless a local repair
//!   takes the failed packet (its repair leaves the queue alone); so does
//!   the ns-2 preset ([`AodvConfig::drop_queue_on_break`]; with the
//!   per-packet RERRs above, on chain6 over Reno, 4 seeds, manetsim's lost
//!   segments went from 0.70 to 0.97 of ns-2's, its RERRs from 0.64 to
//!   0.96 and its delay from 1.15 to 1.12). The failed packet itself is
//!   routed again too
//!   by default ([`AodvConfig::reroute_failed_packet`]); the ns-2 preset
//!   drops it (`retry_limit`) as ns-2 does unless a local repair takes it,
//!   so a source starts its discovery with its next packet, not at once. A
//!   control packet that fails is dropped (`retry_limit`); with the ns-2
//!   preset nothing else happens, as for a data packet whose destination
//!   has no route entry (ns-2's `rt_ll_failed`: only such data breaks the
//!   link; [`AodvConfig::link_failure_from_data_only`]).
//! - **Local repair** (ns-2 compiles it in, `AODV_LOCAL_REPAIR`; on by
//!   default here too): a relay whose broken link is closer to the
//!   destination than to the source (the packet's hops so far exceed the
//!   route's remaining hops, ns-2's test) buffers the packet, marks the route
//!   in repair and sends a RREQ with TTL = LOCAL_ADD_TTL plus the last hop
//!   count (RFC 6.12, MIN_REPAIR_TTL being that count). If no RREP comes
//!   within the discovery's wait, the route is brought down, a RERR sent and
//!   its packets dropped (`no_route`); with the ns-2 preset the route only
//!   goes down, as ns-2's repair timer does, and its packets wait while the
//!   node discovers the route as a source would, from the next purge tick
//!   ([`AodvConfig::rerr_after_failed_repair`]). The other routes through the
//!   lost neighbour break and a RERR lists them (RFC 6.11); with the ns-2
//!   preset they stay up and no RERR goes, as ns-2's `rt_ll_failed` repairs
//!   and returns ([`AodvConfig::repair_spares_other_routes`]; rwp1000's
//!   first 30 s, seed 1: 3,762 RERRs without it, 3,287 with it, ns-2.35
//!   2,226). With the ns-2 preset the repair is ns-2.35's own
//!   ([`AodvConfig::ns2_local_repair`]): the route keeps its sequence
//!   number and hop count, its RREQ is a source's (network wide unless the
//!   route went down before), the route answers other nodes' RREQs while
//!   in repair, and it stays in repair until 2t + the wait, t being the
//!   repair's start (ns-2.35 arms its timer with an absolute time as a
//!   delay). On rwp1000's first 30 s (seed 1) that gives 232 repair RREQs,
//!   213 network wide (ns-2.35: 257 and 233; before, 302 and 69), and
//!   1,714 RREPs reaching the node that asked (ns-2.35: 1,735; before,
//!   1,107). On a static chain the test never
//!   holds, in ns-2's traces as here: breaks are reported at the first hops
//!   of each direction (nodes 0 and 1 for data, 3 to 5 for ACKs), where the
//!   hops behind are fewer than the hops ahead.
//!
//! # Not implemented
//!
//! RREP-ACK and blacklists (the message parses; the agent never sets A),
//! multicast (J/R flags), RREQ_RATELIMIT, the AODV-UU behaviour variant,
//! and the scenario keys to choose the options above (the scenario selects
//! AODV with these defaults).

pub mod id_cache;
pub mod neighbors;
pub mod rebroadcast;
pub mod request_queue;
pub mod rerr_limit;
pub mod route_table;

use crate::engine::{SimTime, NS_PER_MS, NS_PER_S};
use crate::metrics::DropReason;
use crate::net::{
    NodeId, Packet, RoutingCtx, RoutingProtocol, BROADCAST, IP_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::routing::timers::TimerQueue;
use crate::wire::aodv::{
    gateway_adv_interval_ms, inet_dest_of, is_gateway_adv, stamp_of, with_gateway_adv,
    with_inet_dest, with_stamp, Message, RerrRepr, RrepRepr, RreqRepr, TYPE_RREP, TYPE_RREQ,
};
use id_cache::IdCache;
use neighbors::Neighbors;
use rebroadcast::Rebroadcast;
use request_queue::RequestQueue;
use rerr_limit::RerrLimit;
use route_table::{seq_newer, RouteState, RouteTable};
use std::collections::BTreeMap;
use std::rc::Rc;

/// How broken links are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDetection {
    /// The MAC's retry-limit failures (ns-2's default).
    MacFeedback,
    /// Periodic HELLO messages; a neighbour silent for ALLOWED_HELLO_LOSS ×
    /// HELLO_INTERVAL is lost. MAC failures then only drop the packet.
    Hello,
}

/// ns-2's `RouteCacheTimer` period: 0.5 s.
pub const PURGE_INTERVAL: SimTime = NS_PER_S / 2;

/// Protocol parameters. `Default` is RFC 3561's expanding ring with ns-2.35's
/// other constants; [`AodvConfig::ns2`] is ns-2.35 throughout.
#[derive(Debug, Clone, PartialEq)]
pub struct AodvConfig {
    /// ACTIVE_ROUTE_TIMEOUT: lifetime a use of a route gives it (ns-2: 10 s; RFC: 3 s).
    pub active_route_timeout: SimTime,
    /// MY_ROUTE_TIMEOUT: lifetime in a destination's own RREP (ns-2: 10 s).
    pub my_route_timeout: SimTime,
    /// REV_ROUTE_LIFE: lifetime of a reverse route set up by a RREQ (ns-2: 6 s).
    pub reverse_route_life: SimTime,
    /// BCAST_ID_SAVE: how long a RREQ id is remembered (ns-2: 6 s).
    pub rreq_id_save: SimTime,
    /// With a tick (> 0), RREQ ids are forgotten only at multiples of it
    /// from time 0, each at the first tick at or after its BCAST_ID_SAVE
    /// has passed: ns-2.35's `BroadcastTimer` purges the list of ids every
    /// BCAST_ID_SAVE (6 s), and `id_lookup` matches any id still listed,
    /// so an id is remembered 6 to 12 s. 0 (RFC 3561 section 6.5's
    /// PATH_DISCOVERY_TIME): exactly `rreq_id_save`.
    pub rreq_id_purge_tick: SimTime,
    /// NODE_TRAVERSAL_TIME (RFC: 40 ms; ns-2: 30 ms).
    pub node_traversal_time: SimTime,
    /// NET_DIAMETER (RFC: 35; ns-2: 30).
    pub net_diameter: u8,
    /// TTL_START (RFC: 1; ns-2 declares 5 but in effect floods at once).
    pub ttl_start: u8,
    /// TTL_INCREMENT (2).
    pub ttl_increment: u8,
    /// TTL_THRESHOLD (7).
    pub ttl_threshold: u8,
    /// TIMEOUT_BUFFER (2).
    pub timeout_buffer: u8,
    /// RREQ_RETRIES: network-wide RREQs after the first (RFC: 2; ns-2: 3).
    pub rreq_retries: u32,
    /// Longest wait for a RREP (ns-2's MAX_RREQ_TIMEOUT: 10 s).
    pub max_rreq_timeout: SimTime,
    /// Packets buffered waiting for routes (ns-2: 64).
    pub queue_len: usize,
    /// How long a packet may wait (ns-2: 30 s).
    pub queue_timeout: SimTime,
    /// Upper bound of the uniform jitter on relayed broadcasts (ns-2: 10 ms).
    pub broadcast_jitter: SimTime,
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL (1 s).
    pub hello_interval: SimTime,
    /// ALLOWED_HELLO_LOSS (ns-2: 3; RFC: 2).
    pub allowed_hello_loss: u32,
    /// Set the G flag in RREQs (ns-2: off).
    pub gratuitous_rrep: bool,
    /// Set the G flag in a RREQ that a TCP packet (data, ACK or SYN)
    /// started, and in its retries, as AODV-UU's `packet_input` does (it
    /// sets `RREQ_GRATUITOUS` for `PT_TCP`): the destination then learns
    /// the route back even from an intermediate reply (off).
    pub gratuitous_for_tcp: bool,
    /// Set the D flag in RREQs: only the destination replies (off).
    pub destination_only: bool,
    /// AODV-UU's Internet gateway support (`CONFIG_GATEWAY`, none): the
    /// sources seek a host by a RREQ for its address, which only the gateway
    /// answers (see [`InternetGateway`]).
    pub gateway: Option<InternetGateway>,
    /// Local repair of a break near the destination (ns-2: on).
    pub local_repair: bool,
    /// LOCAL_ADD_TTL (2).
    pub local_add_ttl: u8,
    /// RERR_RATELIMIT per second (10).
    pub rerr_rate_limit: usize,
    /// A RERR that breaks routes also takes back the interface queue's data
    /// for its sender (ns-2 drops it; see the module notes).
    pub rerr_takes_back_queue: bool,
    /// Wait 2 × TTL × the measured per-hop discovery latency for a RREP
    /// (ns-2's `PerHopTime`), instead of RFC 3561's RING_TRAVERSAL_TIME and
    /// NET_TRAVERSAL_TIME (see the module notes).
    pub adaptive_rreq_wait: bool,
    /// A local repair breaks only the repaired route: the other routes through
    /// the lost neighbour stay up and no RERR reports them, as in ns-2.35's
    /// `rt_ll_failed`, which calls `local_rt_repair` and returns before its
    /// link-failure handling. Off (RFC 3561 section 6.11), they break and a
    /// RERR lists them.
    pub repair_spares_other_routes: bool,
    /// After a discovery gives up (RREQ_RETRIES network-wide RREQs with no
    /// RREP), no new one for that destination starts for this long; packets
    /// for it wait in the buffer meanwhile. ns-2.35's `sendRequest` sets
    /// `rt_req_timeout` to MAX_RREQ_TIMEOUT (10 s) ahead when it gives up;
    /// RFC 3561 has no such hold (0).
    pub give_up_hold: SimTime,
    /// Once a discovery's wait is over, send the next RREQ only when a packet
    /// for the destination arrives or at the next 0.5 s purge tick, as ns-2
    /// does, rather than as soon as the wait ends (see the module notes).
    pub retry_when_prompted: bool,
    /// A data packet the MAC failed to deliver is routed again (buffered at
    /// its source, which rediscovers at once); off (ns-2), it is dropped
    /// (`retry_limit`) unless a local repair takes it.
    pub reroute_failed_packet: bool,
    /// Only a failed data packet with a route entry for its destination
    /// breaks the link, as ns-2's `rt_ll_failed` has it: a failed control
    /// or broadcast packet, a TFRC packet (not one of ns-2.35's data
    /// types), or one for a destination with no entry, is dropped and
    /// nothing else happens. Off, every failure breaks the link.
    pub link_failure_from_data_only: bool,
    /// A local repair that finds no route sends a RERR and drops the
    /// packets it held. Off (ns-2, whose repair timer only brings the route
    /// down), the packets stay and the node discovers the route as a
    /// source does, its next RREQ at the purge tick.
    pub rerr_after_failed_repair: bool,
    /// ns-2.35's precursor lists: a relay forwarding a RREP makes the next
    /// hop towards the originator a precursor of the route to the RREP's
    /// destination only (not also the RREP's sender one of the route back,
    /// as RFC 3561 section 6.7 does); a broken link takes the lost
    /// neighbour out of every list; and a relayed RERR empties the lists of
    /// the routes it reports (`pc_delete`), so each list feeds one RERR.
    pub ns2_precursors: bool,
    /// What the interface queue holds for a neighbour that is lost (a
    /// MAC-reported break, or a RERR from it that breaks routes) is dropped
    /// (`no_route`), data and the agent's unicast replies alike, as
    /// ns-2.35's `rt_ll_failed` and `recvError` drop every packet its
    /// `PriQueue::filter` finds for that next hop (`DROP_RTR_MAC_CALLBACK`),
    /// at a source too; a local repair leaves
    /// the queue as it is (ns-2's repair returns before the queue is
    /// filtered). Off, those packets are routed again: a source buffers
    /// them and rediscovers (see the module notes).
    pub drop_queue_on_break: bool,
    /// A relay asked to forward data it has no route for sends a RERR for
    /// every such packet, as ns-2.35's `rt_resolve` does; off, at most one
    /// a second per destination.
    pub rerr_per_unrouted_packet: bool,
    /// Local repair as ns-2.35's `local_rt_repair` does it. The repaired
    /// route keeps its sequence number and hop count (RFC 3561 section 6.12
    /// increments the number), and its RREQ takes the TTL a source's would
    /// (the larger of the route's hop count and the hop count it last went
    /// down with, + TTL_INCREMENT, network wide from TTL_THRESHOLD (see
    /// [`AodvConfig::ns2_ring`]) or if it never went down), so nodes with the same route can answer it. The
    /// route stays in repair, answering RREQs as an intermediate node,
    /// buffering data for it and going down with a RERR from its next hop,
    /// until a better RREP restores it or the repair timer fires: ns-2.35
    /// arms that timer with the RREQ's deadline as a delay (`schedule(&lrtimer,
    /// ..., rt->rt_req_timeout)`, an absolute time), so a repair started at
    /// time t ends at 2t + the wait. Meanwhile the node retries as a source
    /// does (at the purge tick, giving up after RREQ_RETRIES); when the
    /// timer fires the route goes down, its packets still waiting. Off, a
    /// repair is one RREQ with TTL = hop count + LOCAL_ADD_TTL and the
    /// number incremented, and the route goes down when its wait ends.
    pub ns2_local_repair: bool,
    /// Routes expire as in ns-2.35: a route whose lifetime has ended stays
    /// active until the next 0.5 s purge tick, which brings it down and
    /// increments its sequence number (`rt_purge`), so the next RREQ for it
    /// asks for a fresher route than the one that expired and a RREP
    /// bringing that route back is not forwarded. Off (RFC 3561 section
    /// 6.11 increments the number only on a break), a route is inactive
    /// from the end of its lifetime and keeps its number.
    pub expire_at_purge_tick: bool,
    /// Route lifetimes as ns-2.35 keeps them (`rt_expire`):
    /// - a route a RREQ or RREP replaces takes the lifetime offered, even a
    ///   shorter one (`rt_update`); using a route for data, or forwarding a
    ///   RREP over the reverse route, sets its lifetime to now +
    ///   ACTIVE_ROUTE_TIMEOUT, even a longer one being cut (`forward`);
    /// - a new RREQ sets its reverse route's lifetime to at least now +
    ///   REV_ROUTE_LIFE whatever the route's state, and to now +
    ///   ACTIVE_ROUTE_TIMEOUT when it gives a route to a destination this
    ///   node has sent a RREQ for since it last got one (`rt_req_timeout >
    ///   0`);
    /// - sending a RREQ for a destination without an active route zeroes
    ///   that route's lifetime (`sendRequest`: `rt_expire = 0`), which for a
    ///   route in local repair is kept;
    /// - an intermediate reply carries the route's remaining lifetime cut to
    ///   whole seconds and converted to an unsigned 32-bit number
    ///   (`(u_int32_t) (rt->rt_expire - CURRENT_TIME)`). From a route past its
    ///   lifetime before the purge tick that is 0; from a route in repair,
    ///   whose lifetime is 0, it is minus the time, which wraps around to
    ///   about 2^32 s (x86-64 keeps the low 32 bits of the 64-bit
    ///   conversion). The RFC's field counts milliseconds in 32 bits, so
    ///   such a lifetime is sent as the largest it can carry, 49.7 days:
    ///   the same as ns-2.35's for any run shorter.
    ///
    /// Off, a route keeps the longer of its lifetime and an offer's, and a
    /// reply carries the remaining lifetime to the millisecond.
    pub ns2_route_lifetimes: bool,
    /// The expanding ring as ns-2.35's `sendRequest` grows it: TTL_THRESHOLD
    /// bounds the previous TTL (or hop count), not the next one. From a
    /// last TTL below the threshold the next is that + TTL_INCREMENT, even
    /// past the threshold (from 6, 8); from one at or above it, network
    /// wide. Off, as RFC 3561 section 6.4: a TTL that would pass the
    /// threshold is network wide (from 6, NET_DIAMETER).
    pub ns2_ring: bool,
    /// Messages sized as ns-2.35's: sent with no UDP header, a RREQ 28
    /// bytes and a RREP 24 (its header structs; RFC 3561's are 24 and 20),
    /// a RERR 4 + 8 per destination (as the RFC's). At the IP layer a RREQ
    /// is then 48 bytes, a RREP 44 and a RERR listing 10 destinations 104,
    /// as in ns-2.35's traces; with the RFC's sizes and a UDP header, 52, 48
    /// and 112. The 4 bytes a RREQ and a RREP gain are ns-2.35's
    /// timestamp (`rq_timestamp`, `rp_timestamp`: the RREQ's send time,
    /// copied into the replies), which the agent then carries and times
    /// its discoveries from ([`AodvConfig::adaptive_rreq_wait`]).
    pub ns2_message_sizes: bool,
    /// A packet this node originates (data, and TCP's ACKs) leaves with an
    /// IP TTL of NET_DIAMETER, as ns-2.35's `AODV::recv` sets it
    /// (`ih->ttl_ = NETWORK_DIAMETER`: 30), instead of the TTL the
    /// transport gave it (32): relays then drop it after 30 hops, not 32,
    /// and the TTL field of the ns-2 trace reads as ns-2.35's.
    pub ns2_data_ttl: bool,
    /// The node's own sequence number kept as ns-2.35's AODV keeps it:
    /// even, starting at 2, up by 2 before each RREQ it originates and each
    /// time the MAC's failure breaks a link to a neighbour (`nb_delete`:
    /// "set of neighbors changed"), and, as the destination replies, the
    /// next even number above max(its own, the one asked for). The RFC's
    /// (off) starts at 0 and goes up by 1. Either way numbers only grow, so
    /// which routes count as fresher is the same; the numbers the ns-2
    /// trace shows are ns-2.35's, and a route a node invalidated (its
    /// number plus 1, odd) never ties with one the destination issued.
    pub ns2_seqnos: bool,
    /// When a route is found, the packets that waited for it leave this far
    /// apart (the first at once): ns-2.35's ARP_DELAY (10 ms), "to help
    /// ARP". 0: all at once.
    pub release_spacing: SimTime,
    /// A relay passes a RREP on with the IP source of the node that sent
    /// it first (the destination or the intermediate node that answered),
    /// as ns-2.35's `recvReply` forwards the packet it received; its ns-2
    /// trace then reads `f`, as ns-2.35's does. Off, the relay sends it
    /// with its own address, as a new UDP message (AODV-UU; RFC 3561 does
    /// not say). Nothing else reads a RREP's IP source.
    pub relayed_rrep_keeps_source: bool,
    /// A RREP whose reverse route is down goes to node 0, as ns-2.35's
    /// `sendReply` sends it: it takes the next hop from the route entry
    /// without asking whether the route is up, and `rt_down` sets a down
    /// route's next hop to 0, an address like any other in ns-2. The
    /// reverse route stays down when the RREQ answered carries an older
    /// sequence number of its originator than the node has (a request that
    /// waited in a queue past the duplicate caches' 6 s floods again as
    /// new). Node 0 then relays the reply if it has a route to its
    /// destination, or the MAC gives it up when node 0 is out of range. A
    /// route in local repair keeps its next hop in ns-2.35, and the reply
    /// goes there. Node 0 itself sends no such reply (ns-2.35's would wait
    /// at ARP for an address no node answers for). Off (RFC 3561 section
    /// 6.6: the reply follows the reverse route the request set up), a
    /// node with no active reverse route sends no reply.
    pub ns2_down_reply_to_node_zero: bool,
}

impl Default for AodvConfig {
    fn default() -> Self {
        Self {
            active_route_timeout: 10 * NS_PER_S,
            my_route_timeout: 10 * NS_PER_S,
            reverse_route_life: 6 * NS_PER_S,
            rreq_id_save: 6 * NS_PER_S,
            rreq_id_purge_tick: 0,
            node_traversal_time: 40 * NS_PER_MS,
            net_diameter: 35,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            timeout_buffer: 2,
            rreq_retries: 2,
            max_rreq_timeout: 10 * NS_PER_S,
            queue_len: 64,
            queue_timeout: 30 * NS_PER_S,
            broadcast_jitter: 10 * NS_PER_MS,
            link_detection: LinkDetection::MacFeedback,
            hello_interval: NS_PER_S,
            allowed_hello_loss: 3,
            gratuitous_rrep: false,
            gratuitous_for_tcp: false,
            destination_only: false,
            gateway: None,
            local_repair: true,
            local_add_ttl: 2,
            rerr_rate_limit: 10,
            rerr_takes_back_queue: true,
            adaptive_rreq_wait: false,
            give_up_hold: 0,
            repair_spares_other_routes: false,
            retry_when_prompted: false,
            reroute_failed_packet: true,
            link_failure_from_data_only: false,
            rerr_after_failed_repair: true,
            ns2_precursors: false,
            drop_queue_on_break: false,
            rerr_per_unrouted_packet: false,
            expire_at_purge_tick: false,
            ns2_local_repair: false,
            ns2_route_lifetimes: false,
            ns2_ring: false,
            ns2_message_sizes: false,
            ns2_data_ttl: false,
            ns2_seqnos: false,
            release_spacing: 0,
            relayed_rrep_keeps_source: false,
            ns2_down_reply_to_node_zero: false,
        }
    }
}

impl AodvConfig {
    /// ns-2.35's `aodv.h` constants throughout, with its effective first
    /// TTL (network wide: see the module notes).
    pub fn ns2() -> Self {
        Self {
            node_traversal_time: 30 * NS_PER_MS,
            net_diameter: 30,
            ttl_start: 30,
            rreq_retries: 3,
            adaptive_rreq_wait: true,
            give_up_hold: 10 * NS_PER_S,
            repair_spares_other_routes: true,
            retry_when_prompted: true,
            reroute_failed_packet: false,
            link_failure_from_data_only: true,
            rerr_after_failed_repair: false,
            ns2_precursors: true,
            drop_queue_on_break: true,
            rerr_per_unrouted_packet: true,
            release_spacing: 10 * NS_PER_MS,
            expire_at_purge_tick: true,
            ns2_local_repair: true,
            ns2_route_lifetimes: true,
            ns2_ring: true,
            ns2_message_sizes: true,
            ns2_data_ttl: true,
            ns2_seqnos: true,
            relayed_rrep_keeps_source: true,
            ns2_down_reply_to_node_zero: true,
            rreq_id_purge_tick: 6 * NS_PER_S,
            // ns-2.35's sendError has no RERR_RATELIMIT.
            rerr_rate_limit: usize::MAX,
            ..Self::default()
        }
    }

    fn net_traversal_time(&self) -> SimTime {
        2 * self.node_traversal_time * self.net_diameter as SimTime
    }

    fn ring_traversal_time(&self, ttl: u8) -> SimTime {
        2 * self.node_traversal_time * (ttl as SimTime + self.timeout_buffer as SimTime)
    }
}

/// AODV-UU's Internet gateway support (0.9's `CONFIG_GATEWAY`), as its
/// `aodv_rreq.c`, `aodv_rrep.c` and `packet_input.c` do it:
///
/// - a source with a packet for a fixed host and no Internet route for it
///   buffers the packet and seeks the host with an ordinary RREQ for its
///   address (expanding ring, retries, no D flag);
/// - a gateway, and only a gateway (each of them, with several), answers a
///   RREQ for a host: it increments its sequence number and replies with a
///   RREP for its own address (hop count 0, lifetime ACTIVE_ROUTE_TIMEOUT)
///   that carries the host's address in an extension
///   (`RREP_INET_DEST_EXT`, 6 bytes); it does not relay the RREQ.
///   Relays hold no route to a host, so they relay the RREQ and pass the
///   reply on as any other, learning the route to the gateway;
/// - the source learns the route to the gateway and an Internet route to
///   the host through it, with the reply's hop count and lifetime (a later
///   reply replaces it only when the route is down or the new one shorter);
///   its packets for the host go tunnelled to the gateway, each extending
///   the Internet route to now + ACTIVE_ROUTE_TIMEOUT;
/// - while the Internet route is up, a lost route to the gateway is found
///   by an ordinary discovery for the gateway (intermediate replies
///   allowed); when the Internet route has expired, or the gateway was a
///   neighbour whose link broke (`neighbor_link_break` takes down the
///   routes whose next hop is the lost neighbour, and the Internet route's
///   is the gateway), the host is sought again.
///
/// With [`Self::advertising`] the gateways also advertise themselves
/// ([`GatewayAdvertising`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternetGateway {
    /// The gateway nodes: each answers for every host.
    pub nodes: Vec<NodeId>,
    /// The first fixed host's id; every id from it (but [`BROADCAST`]) is a
    /// host, outside the MANET (AODV-UU's `locality`: `HOST_INET`).
    pub first_host: NodeId,
    /// Proactive or hybrid discovery; `None`: reactive only (AODV-UU 0.9's).
    pub advertising: Option<GatewayAdvertising>,
}

/// Proactive and hybrid gateway discovery, after Hamidian's extension of
/// AODV-UU (ADVERTISEMENT_INTERVAL, and the hybrid scheme's advertisement
/// zone):
///
/// - every `interval`, each gateway increments its sequence number and
///   broadcasts an advertisement: a RREP for itself (hop count 0, lifetime
///   [`Self::lifetime`]) marked by
///   [`EXT_GATEWAY_ADV`](crate::wire::aodv::EXT_GATEWAY_ADV) (with the
///   interval in milliseconds, which relays copy), with IP TTL
///   `zone_hops` (hybrid) or NET_DIAMETER (proactive); its first goes at a
///   uniform random time within the first interval, so that gateways do
///   not advertise in step;
/// - a node that hears one takes the route to the gateway it offers as it
///   takes a reply's (a newer sequence number, or as new and fewer hops)
///   and passes on the first copy of each advertisement (by gateway and
///   sequence number) after the broadcast jitter, while its TTL lasts;
/// - a source with a packet for a host and no Internet route for it takes
///   the gateway it has an active route to with the fewest hops (the first
///   listed among equals) and tunnels the packet there at once. Knowing
///   none, it seeks the host by a RREQ as in reactive discovery
///   (`reactive_fallback`, hybrid) or holds the packet in its request
///   queue until an advertisement comes (proactive);
/// - an advertisement that makes a gateway reachable sends the packets
///   waiting for hosts to it, and moves a live Internet route to it when it
///   offers fewer hops than the route had (as a later reply does);
/// - a live Internet route whose gateway the node has no active route to
///   moves, at its next packet, to the nearest gateway it has one to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatewayAdvertising {
    /// Between one gateway's advertisements.
    pub interval: SimTime,
    /// How many hops an advertisement goes (its IP TTL); `None`: the whole
    /// network (NET_DIAMETER).
    pub zone_hops: Option<u8>,
    /// A source that knows no gateway seeks the host by a RREQ (hybrid);
    /// else it waits for an advertisement (proactive).
    pub reactive_fallback: bool,
}

impl GatewayAdvertising {
    /// The lifetime an advertisement gives the route to its gateway: two
    /// intervals, so that one lost advertisement does not end it.
    pub fn lifetime(&self) -> SimTime {
        2 * self.interval
    }
}

impl InternetGateway {
    fn is_host(&self, n: NodeId) -> bool {
        n >= self.first_host && n != BROADCAST
    }
}

/// A source's route to a fixed host through a gateway (AODV-UU's
/// `RT_INET_DEST` entry, whose next hop is the gateway).
#[derive(Debug, Clone, Copy)]
struct InternetRoute {
    gateway: NodeId,
    /// Wireless hops to the gateway when the reply came.
    hops: u8,
    expire: SimTime,
    /// Taken down by a broken link to the gateway (a neighbour).
    broken: bool,
}

impl InternetRoute {
    fn is_up(&self, now: SimTime) -> bool {
        !self.broken && self.expire > now
    }
}

/// How a discovery seeks: started by a local repair (one try, then the
/// route goes down), and with the G flag.
#[derive(Debug, Clone, Copy)]
struct Seek {
    local_repair: bool,
    gratuitous: bool,
}

/// A route discovery under way.
#[derive(Debug, Clone, Copy)]
struct Discovery {
    ttl: u8,
    /// Network-wide RREQs sent so far.
    network_wide: u32,
    /// Started by a local repair (one try, then the route goes down).
    local_repair: bool,
    /// Its RREQs carry the G flag ([`AodvConfig::gratuitous_for_tcp`]).
    gratuitous: bool,
    /// Tells stale timers from the current one.
    generation: u64,
    /// When the latest RREQ of this discovery went out.
    sent_at: SimTime,
    /// When its wait ends (ns-2.35's `rt_req_timeout`, an absolute time).
    deadline: SimTime,
    /// The wait has ended; with [`AodvConfig::retry_when_prompted`] the next
    /// RREQ goes with the next packet for the destination or purge tick.
    due: bool,
    /// No RREQ is sent: the discovery gave up and holds off for
    /// [`AodvConfig::give_up_hold`]; when that ends, a new one starts if
    /// packets wait.
    held: bool,
}

impl Discovery {
    /// A retry (or a new discovery after a hold) seeks as this one did,
    /// as a source: AODV-UU's seek entry keeps its RREQ's flags.
    fn retry(&self) -> Seek {
        Seek {
            local_repair: false,
            gratuitous: self.gratuitous,
        }
    }
}

#[derive(Debug, Clone)]
enum Timer {
    /// A jittered broadcast of a message another node originated.
    Send(Rebroadcast),
    /// A discovery's wait for a RREP ended.
    Discovery {
        dst: NodeId,
        generation: u64,
    },
    Hello,
    /// ns-2's route-table purge tick (every [`PURGE_INTERVAL`]), armed
    /// only while a discovery is due.
    Purge,
    /// ns-2.35's local-repair timer ([`AodvConfig::ns2_local_repair`]):
    /// the route to `dst` goes down unless it is up again.
    RepairEnd {
        dst: NodeId,
    },
    /// A packet that waited for a route, released
    /// [`AodvConfig::release_spacing`] after the one before it, to the next
    /// hop the route had when it was found.
    Release {
        packet: Packet,
        next_hop: NodeId,
    },
    /// A gateway's next advertisement ([`GatewayAdvertising`]).
    Advertise,
}

/// The lifetime ns-2.35's intermediate reply carries for a route expiring
/// at `expire` ([`AodvConfig::ns2_route_lifetimes`]): the time left cut to
/// whole seconds towards zero, its low 32 bits taken as unsigned (so minus
/// 100 s is 2^32 - 100 s), in milliseconds, at most `u32::MAX`.
fn ns2_reply_lifetime_ms(expire: SimTime, now: SimTime) -> u32 {
    let left_s = (expire as i128 - now as i128) / NS_PER_S as i128;
    let wrapped_s = left_s as u32;
    (wrapped_s as u64 * 1000).min(u32::MAX as u64) as u32
}

/// One node's AODV agent.
#[derive(Debug, Clone)]
pub struct Aodv {
    /// Shared by every node's agent: one copy, not one per node (184 bytes
    /// each, a tenth of an idle node's memory on rwp10000).
    cfg: Rc<AodvConfig>,
    me: NodeId,
    seqno: u32,
    rreq_id: u32,
    routes: RouteTable,
    queue: RequestQueue,
    ids: IdCache,
    neighbors: Neighbors,
    discoveries: BTreeMap<NodeId, Discovery>,
    generation: u64,
    /// Route discoveries started (a first RREQ for a destination, or a local
    /// repair; not the retries).
    discoveries_started: u64,
    /// Packets waiting in a `Timer::Release` (held, for the ledger).
    releasing: u64,
    timers: TimerQueue<Timer>,
    /// Recent RERRs (RERR_RATELIMIT).
    rerr_limit: RerrLimit,
    /// The latest time the agent was called at (for `hop_count`).
    now: SimTime,
    /// When the armed purge tick fires, if one is armed.
    purge_at: Option<SimTime>,
    /// Internet routes by host ([`InternetGateway`]).
    internet: BTreeMap<NodeId, InternetRoute>,
    /// The newest advertisement heard from each gateway, by its sequence
    /// number ([`GatewayAdvertising`]); boxed when first needed, so that a
    /// run without advertisements keeps 8 bytes a node for it, not 24.
    #[allow(clippy::box_collection)] // the box is the point: 8 bytes, not 24
    adverts: Option<Box<BTreeMap<NodeId, u32>>>,
}

impl Aodv {
    /// `cfg` may be an [`AodvConfig`] or an `Rc` of one that the agents of
    /// a network share.
    pub fn new(me: NodeId, cfg: impl Into<Rc<AodvConfig>>) -> Self {
        let cfg = cfg.into();
        let seqno = if cfg.ns2_seqnos { 2 } else { 0 };
        let routes = RouteTable::new(
            cfg.expire_at_purge_tick,
            cfg.ns2_local_repair,
            cfg.ns2_route_lifetimes,
        );
        Self {
            queue: RequestQueue::new(cfg.queue_len, cfg.queue_timeout),
            ids: IdCache::with_ticks(cfg.rreq_id_save, cfg.rreq_id_purge_tick),
            cfg,
            me,
            seqno,
            rreq_id: 0,
            routes,
            neighbors: Neighbors::default(),
            discoveries: BTreeMap::new(),
            generation: 0,
            discoveries_started: 0,
            releasing: 0,
            timers: TimerQueue::default(),
            rerr_limit: RerrLimit::default(),
            now: 0,
            purge_at: None,
            internet: BTreeMap::new(),
            adverts: None,
        }
    }

    pub fn config(&self) -> &AodvConfig {
        &self.cfg
    }

    /// The route table (for tests and inspection).
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// A control packet carrying `msg`. Below the message: a UDP header;
    /// or, with [`AodvConfig::ns2_message_sizes`], no UDP header, and a
    /// RREQ or RREP followed by ns-2.35's timestamp, `stamp_us` (its
    /// RREQ's send time; 0 when there is none).
    fn control(&self, dst: NodeId, ttl: u8, msg: Vec<u8>, stamp_us: Option<u32>) -> Packet {
        if !self.cfg.ns2_message_sizes {
            return Packet::control(self.me, dst, ttl, UDP_HEADER_BYTES, msg);
        }
        let msg = if matches!(msg.first(), Some(&(TYPE_RREQ | TYPE_RREP))) {
            with_stamp(msg, stamp_us.unwrap_or(0))
        } else {
            msg
        };
        Packet::control(self.me, dst, ttl, 0, msg)
    }

    /// Broadcasts a message another node originated after its jitter
    /// (see [`Rebroadcast`]).
    fn broadcast_jittered(&mut self, now: SimTime, r: Rebroadcast, ctx: &mut RoutingCtx) {
        let at = Rebroadcast::due(now, self.cfg.broadcast_jitter, ctx.rng);
        self.timers.push(at, Timer::Send(r));
    }

    // ---- Route discovery -------------------------------------------------

    /// Starts seeking `dst` for a packet this node originates (`tcp`: a TCP
    /// packet, see [`AodvConfig::gratuitous_for_tcp`]), unless it already
    /// seeks it.
    fn start_discovery(&mut self, now: SimTime, dst: NodeId, tcp: bool, ctx: &mut RoutingCtx) {
        if let Some(d) = self.discoveries.get(&dst) {
            if d.due {
                // Prompted by a packet after the wait (ns-2's rt_resolve).
                self.on_discovery_timeout(now, dst, ctx);
            }
            return;
        }
        let last = match self.internet.get(&dst) {
            // AODV-UU starts the ring from a host's Internet route's hop
            // count, as from any route entry's.
            Some(r) => r.hops,
            None => self.routes.get(dst).map_or(0, |e| e.last_hops),
        };
        let ttl = if last == 0 {
            self.ring_ttl(self.cfg.ttl_start)
        } else {
            self.next_ttl(last)
        };
        self.discoveries_started += 1;
        let seek = Seek {
            local_repair: false,
            gratuitous: tcp && self.cfg.gratuitous_for_tcp,
        };
        self.run_discovery(now, dst, ttl, 0, seek, ctx);
    }

    /// The expanding ring's next TTL after `last` (a TTL or hop count; see
    /// [`AodvConfig::ns2_ring`]).
    fn next_ttl(&self, last: u8) -> u8 {
        if !self.cfg.ns2_ring {
            self.ring_ttl(last.saturating_add(self.cfg.ttl_increment))
        } else if last < self.cfg.ttl_threshold {
            last.saturating_add(self.cfg.ttl_increment)
                .min(self.cfg.net_diameter)
        } else {
            self.cfg.net_diameter
        }
    }

    /// TTLs past the threshold become network-wide.
    fn ring_ttl(&self, ttl: u8) -> u8 {
        if ttl > self.cfg.ttl_threshold {
            self.cfg.net_diameter
        } else {
            ttl
        }
    }

    fn run_discovery(
        &mut self,
        now: SimTime,
        dst: NodeId,
        ttl: u8,
        network_wide: u32,
        seek: Seek,
        ctx: &mut RoutingCtx,
    ) -> SimTime {
        let wide = ttl >= self.cfg.net_diameter;
        let network_wide = network_wide + wide as u32;
        let wait = if self.cfg.adaptive_rreq_wait {
            let per_hop = self
                .routes
                .get(dst)
                .and_then(|e| e.per_hop_time())
                .unwrap_or(self.cfg.node_traversal_time);
            2 * ttl as SimTime * per_hop * network_wide.max(1) as SimTime
        } else if wide {
            self.cfg.net_traversal_time() << (network_wide - 1).min(16)
        } else {
            self.cfg.ring_traversal_time(ttl)
        }
        .min(self.cfg.max_rreq_timeout);
        self.generation += 1;
        let generation = self.generation;
        self.discoveries.insert(
            dst,
            Discovery {
                ttl,
                network_wide,
                local_repair: seek.local_repair,
                gratuitous: seek.gratuitous,
                generation,
                sent_at: now,
                deadline: now + wait,
                due: false,
                held: false,
            },
        );
        self.timers
            .push(now + wait, Timer::Discovery { dst, generation });
        self.send_rreq(now, dst, ttl, seek.gratuitous, ctx);
        wait
    }

    fn send_rreq(
        &mut self,
        now: SimTime,
        dst: NodeId,
        ttl: u8,
        gratuitous: bool,
        ctx: &mut RoutingCtx,
    ) {
        self.seqno = self.seqno.wrapping_add(self.seqno_step());
        self.rreq_id = self.rreq_id.wrapping_add(1);
        self.ids.check_and_insert(self.me, self.rreq_id, now);
        self.routes.settle(dst, now);
        if self.cfg.ns2_route_lifetimes {
            let e = self.routes.entry(dst);
            e.asked = true;
            if e.state != RouteState::Valid {
                e.expire = 0;
            }
        }
        let known = self.routes.get(dst).filter(|e| e.valid_seqno);
        let rq = RreqRepr {
            gratuitous: self.cfg.gratuitous_rrep || gratuitous,
            dest_only: self.cfg.destination_only,
            ..RreqRepr::request(
                self.rreq_id,
                dst,
                known.map(|e| e.seqno),
                self.me,
                self.seqno,
            )
        };
        let p = self.control(BROADCAST, ttl, rq.to_bytes(), Some(stamp_us(now)));
        ctx.originate(p, BROADCAST, "rreq", false);
    }

    /// How much the node's own sequence number grows at each RREQ it sends
    /// ([`AodvConfig::ns2_seqnos`]).
    fn seqno_step(&self) -> u32 {
        if self.cfg.ns2_seqnos {
            2
        } else {
            1
        }
    }

    /// Arms the purge tick at the next multiple of [`PURGE_INTERVAL`] (ns-2's
    /// periodic timer starts at time 0), unless an earlier one is armed.
    fn arm_purge(&mut self, now: SimTime) {
        let at = now.div_ceil(PURGE_INTERVAL) * PURGE_INTERVAL;
        if self.purge_at.is_none_or(|t| t > at) {
            self.purge_at = Some(at);
            self.timers.push(at, Timer::Purge);
        }
    }

    fn on_discovery_timeout(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        let Some(d) = self.discoveries.remove(&dst) else {
            return;
        };
        if self.routes.valid(dst, now).is_some() {
            return;
        }
        if d.local_repair {
            // The repair failed: the route goes down.
            let e = self.routes.entry(dst);
            e.invalidate();
            if self.cfg.rerr_after_failed_repair {
                let s = e.seqno;
                self.send_rerr(now, vec![(dst, s)], false, ctx);
                self.queue.drop_for(dst, DropReason::NoRoute, ctx);
            } else if self.queue.has_packets_for(dst) {
                // ns-2: its packets wait; the next RREQ goes at the tick.
                self.discoveries.insert(
                    dst,
                    Discovery {
                        local_repair: false,
                        due: true,
                        ..d
                    },
                );
                self.arm_purge(now);
            }
            return;
        }
        if !self.queue.has_packets_for(dst) {
            return;
        }
        if d.held {
            // The hold is over and packets wait: a new discovery, network
            // wide as ns-2's next `sendRequest` (its last TTL was
            // NETWORK_DIAMETER).
            self.discoveries_started += 1;
            let ttl = self.cfg.net_diameter;
            self.run_discovery(now, dst, ttl, 0, d.retry(), ctx);
            return;
        }
        if d.ttl < self.cfg.net_diameter {
            let ttl = self.next_ttl(d.ttl);
            self.run_discovery(now, dst, ttl, d.network_wide, d.retry(), ctx);
        } else if d.network_wide <= self.cfg.rreq_retries {
            self.run_discovery(now, dst, d.ttl, d.network_wide, d.retry(), ctx);
        } else {
            self.queue.drop_for(dst, DropReason::NoRoute, ctx);
            if self.cfg.give_up_hold > 0 {
                self.generation += 1;
                let generation = self.generation;
                self.discoveries.insert(
                    dst,
                    Discovery {
                        held: true,
                        due: false,
                        generation,
                        ..d
                    },
                );
                self.timers.push(
                    now + self.cfg.give_up_hold,
                    Timer::Discovery { dst, generation },
                );
            }
        }
    }

    /// A route to `dst` has just become valid: send what waits for it.
    fn route_found(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        self.discoveries.remove(&dst);
        let waiting = self.queue.take_for(dst);
        let spacing = self.cfg.release_spacing;
        for (k, p) in waiting.into_iter().enumerate() {
            if k == 0 || spacing == 0 {
                self.forward_data(now, p, ctx);
                continue;
            }
            // As ns-2's `forward(rt, p, delay)`: the route is used (and
            // extended) now, the packet leaves for its next hop later.
            match self.use_route(now, p.dst) {
                Some(next_hop) => {
                    self.releasing += 1;
                    self.timers.push(
                        now + k as SimTime * spacing,
                        Timer::Release {
                            packet: p,
                            next_hop,
                        },
                    );
                }
                None => self.queue.hold(now, p, ctx),
            }
        }
    }

    /// A gateway's reply to this node's request for `host` came: the
    /// Internet route to it is set (see [`InternetGateway`]) and the
    /// packets waiting for the host leave tunnelled to its gateway.
    fn internet_route_found(
        &mut self,
        now: SimTime,
        host: NodeId,
        gateway: NodeId,
        hops: u8,
        expire: SimTime,
        ctx: &mut RoutingCtx,
    ) {
        let new = InternetRoute {
            gateway,
            hops,
            expire,
            broken: false,
        };
        match self.internet.get_mut(&host) {
            Some(r) if r.is_up(now) && hops >= r.hops => {}
            Some(r) => *r = new,
            None => {
                self.internet.insert(host, new);
            }
        }
        let gateway = self.internet[&host].gateway;
        self.discoveries.remove(&host);
        for mut p in self.queue.take_for(host) {
            p.dst = gateway;
            p.size_bytes += IP_HEADER_BYTES;
            self.route_output(now, p, ctx);
        }
    }

    /// Sends `p` over the active route, extending it; buffers otherwise.
    fn forward_data(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        match self.use_route(now, p.dst) {
            Some(h) => ctx.send(p, h),
            None => self.queue.hold(now, p, ctx),
        }
    }

    /// The next hop of the active route to `dst`, extended by a use (to now
    /// + ACTIVE_ROUTE_TIMEOUT), or `None` without one.
    fn use_route(&mut self, now: SimTime, dst: NodeId) -> Option<NodeId> {
        let timeout = self.cfg.active_route_timeout;
        let exact = self.cfg.ns2_route_lifetimes;
        let e = self.routes.get_mut(dst).filter(|e| e.is_valid(now))?;
        e.extend(now + timeout, exact);
        Some(e.next_hop)
    }

    // ---- Route errors ----------------------------------------------------

    /// Broadcasts RERRs listing `unreachable` (split into 255-entry messages),
    /// within the rate limit.
    fn send_rerr(
        &mut self,
        now: SimTime,
        unreachable: Vec<(NodeId, u32)>,
        forwarded: bool,
        ctx: &mut RoutingCtx,
    ) {
        for chunk in unreachable.chunks(RerrRepr::MAX_DESTS) {
            if !self.rerr_limit.admit(now, self.cfg.rerr_rate_limit) {
                return;
            }
            for &(d, _) in chunk {
                self.routes.entry(d).set_last_rerr(now);
            }
            let re = RerrRepr {
                no_delete: false,
                unreachable: chunk.to_vec(),
            };
            let p = self.control(BROADCAST, 1, re.to_bytes(), None);
            if forwarded {
                // ns-2.35's `sendError` builds a new packet.
                self.broadcast_jittered(now, Rebroadcast::new(p, "rerr", false), ctx);
            } else {
                ctx.originate(p, BROADCAST, "rerr", false);
            }
        }
    }

    /// The link to `nb` is gone: invalidate the routes through it (except
    /// `repairing`), send a RERR and take the interface queue's data back.
    fn link_broken(
        &mut self,
        now: SimTime,
        nb: NodeId,
        repairing: Option<NodeId>,
        ctx: &mut RoutingCtx,
    ) {
        if self.cfg.ns2_seqnos && repairing.is_none() {
            // ns-2.35's nb_delete: `seqno += 2; // Set of neighbors changed`.
            self.seqno = self.seqno.wrapping_add(2);
        }
        let broken = self.routes.break_link(nb, now);
        // AODV-UU's `neighbor_link_break` also takes down the Internet
        // routes whose gateway (their next hop) was the lost neighbour.
        for r in self.internet.values_mut() {
            if r.gateway == nb {
                r.broken = true;
            }
        }
        if self.cfg.ns2_precursors {
            self.routes.remove_precursor_everywhere(nb);
        }
        let list: Vec<(NodeId, u32)> = broken
            .iter()
            .filter(|b| Some(b.0) != repairing)
            .map(|&(d, s, _)| (d, s))
            .collect();
        if !list.is_empty() {
            self.send_rerr(now, list, false, ctx);
        }
        if !(self.cfg.drop_queue_on_break && repairing.is_some()) {
            ctx.out
                .push(crate::net::RoutingAction::Reroute { next_hop: nb });
        }
    }

    // ---- Received messages -----------------------------------------------

    fn on_rreq(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        rq: RreqRepr,
        stamp: Option<u32>,
        ctx: &mut RoutingCtx,
    ) {
        let ip_ttl = packet.ttl;
        if rq.orig == self.me {
            return;
        }
        if self.ids.check_and_insert(rq.orig, rq.rreq_id, now) {
            return; // a duplicate
        }
        // Reverse route to the originator.
        let hops = rq.hop_count.saturating_add(1);
        let ns2_life = self.cfg.ns2_route_lifetimes;
        let mut rev_expire = now + self.cfg.reverse_route_life;
        let mut asked = false;
        if ns2_life {
            // ns-2.35 extends the entry's `rt_expire` whatever its state
            // (a down route's is 0).
            self.routes.settle(rq.orig, now);
            if let Some(e) = self.routes.get(rq.orig) {
                asked = e.asked;
                if e.state != RouteState::Invalid {
                    rev_expire = rev_expire.max(e.expire);
                }
            }
        }
        if self
            .routes
            .offer(rq.orig, rq.orig_seqno, hops, from, rev_expire, now)
        {
            if asked {
                self.routes.entry(rq.orig).expire = now + self.cfg.active_route_timeout;
            }
            self.route_found(now, rq.orig, ctx);
        } else if ns2_life {
            self.routes.entry(rq.orig).expire = rev_expire;
        } else if let Some(e) = self.routes.get_mut(rq.orig).filter(|e| e.is_valid(now)) {
            // RFC 3561 section 6.5: whenever a RREQ is received, the
            // reverse route lives at least its minimal lifetime (ns-2.35:
            // `rt0->rt_expire = max(rt0->rt_expire, now + REV_ROUTE_LIFE)`).
            e.extend(rev_expire, false);
        }

        if self
            .cfg
            .gateway
            .as_ref()
            .is_some_and(|g| g.nodes.contains(&self.me) && g.is_host(rq.dst))
        {
            // AODV-UU's gateway answers for a host outside the MANET: a
            // reply for itself, naming the host in an extension; the
            // request goes no further.
            self.seqno = self.seqno.wrapping_add(1).max(1);
            let life_ms = (self.cfg.active_route_timeout / NS_PER_MS) as u32;
            let rp = RrepRepr::new(0, self.me, self.seqno, rq.orig, life_ms);
            self.send_rrep_for(rq.orig, rp, Some(rq.dst), stamp, ctx);
            return;
        }
        if rq.dst == self.me {
            if seq_newer(rq.dst_seqno, self.seqno) && !rq.unknown_seqno {
                self.seqno = rq.dst_seqno;
            }
            self.seqno = self.seqno.wrapping_add(1);
            if self.cfg.ns2_seqnos && self.seqno % 2 == 1 {
                // ns-2.35's recvRequest: `if (seqno%2) seqno++`.
                self.seqno = self.seqno.wrapping_add(1);
            }
            let life_ms = (self.cfg.my_route_timeout / NS_PER_MS) as u32;
            let rp = RrepRepr::new(0, self.me, self.seqno, rq.orig, life_ms);
            self.send_rrep(rq.orig, rp, stamp, ctx);
            return;
        }

        let answers = |e: &&route_table::RouteEntry| {
            e.is_valid(now) || (self.cfg.ns2_local_repair && e.state == RouteState::InRepair)
        };
        let fresh =
            self.routes.get(rq.dst).filter(answers).filter(|e| {
                e.valid_seqno && (rq.unknown_seqno || !seq_newer(rq.dst_seqno, e.seqno))
            });
        if let (Some(fwd), false) = (fresh.cloned(), rq.dest_only) {
            // An intermediate reply from a fresh-enough route.
            let life_ms = if ns2_life {
                ns2_reply_lifetime_ms(fwd.expire, now)
            } else {
                (fwd.remaining(now) / NS_PER_MS) as u32
            };
            let rp = RrepRepr::new(fwd.hops, rq.dst, fwd.seqno, rq.orig, life_ms);
            self.routes.entry(rq.dst).add_precursor(from);
            self.routes.entry(rq.orig).add_precursor(fwd.next_hop);
            self.send_rrep(rq.orig, rp, stamp, ctx);
            if rq.gratuitous {
                let rev = self.routes.entry(rq.orig).clone();
                let life_ms = (rev.expire.saturating_sub(now) / NS_PER_MS) as u32;
                let g = RrepRepr::new(rev.hops, rq.orig, rq.orig_seqno, rq.dst, life_ms);
                self.send_rrep(rq.dst, g, stamp, ctx);
            }
            return;
        }

        // Relay the request.
        if ip_ttl <= 1 {
            // ns-2.35 drops it here, as it would have gone on, with a
            // trace line (the destination's sequence number as this node
            // last had it, unsettled, for the line only).
            ctx.expired(|| {
                let mut out = rq;
                out.hop_count = hops;
                if let Some(e) = self.routes.get(rq.dst).filter(|e| e.valid_seqno) {
                    if rq.unknown_seqno || seq_newer(e.seqno, rq.dst_seqno) {
                        out.dst_seqno = e.seqno;
                        out.unknown_seqno = false;
                    }
                }
                let mut p = self.control(BROADCAST, 0, out.to_bytes(), stamp);
                p.uid = packet.uid;
                p
            });
            return;
        }
        let mut out = rq;
        out.hop_count = hops;
        self.routes.settle(rq.dst, now);
        if let Some(e) = self.routes.get(rq.dst).filter(|e| e.valid_seqno) {
            if rq.unknown_seqno || seq_newer(e.seqno, rq.dst_seqno) {
                out.dst_seqno = e.seqno;
                out.unknown_seqno = false;
            }
        }
        let mut p = self.control(BROADCAST, ip_ttl - 1, out.to_bytes(), stamp);
        // The same packet goes on, as ns-2.35's `forward` sends it.
        p.uid = packet.uid;
        self.broadcast_jittered(now, Rebroadcast::new(p, "rreq", true), ctx);
    }

    /// Unicasts a RREP towards `to` along the route to it.
    /// `stamp` is the timestamp of the RREQ answered (ns-2.35's).
    fn send_rrep(&mut self, to: NodeId, rp: RrepRepr, stamp: Option<u32>, ctx: &mut RoutingCtx) {
        self.send_rrep_for(to, rp, None, stamp, ctx);
    }

    /// [`Self::send_rrep`], with a gateway's extension naming the host
    /// `inet` when there is one ([`InternetGateway`]).
    fn send_rrep_for(
        &mut self,
        to: NodeId,
        rp: RrepRepr,
        inet: Option<NodeId>,
        stamp: Option<u32>,
        ctx: &mut RoutingCtx,
    ) {
        let Some(h) = self.reply_next_hop(to) else {
            return;
        };
        let mut msg = rp.to_bytes();
        if let Some(host) = inet {
            msg = with_inet_dest(msg, host);
        }
        let p = self.control(to, self.cfg.net_diameter, msg, stamp);
        ctx.originate(p, h, "rrep", false);
    }

    /// The next hop of a RREP for `to`: that of an active route to it;
    /// with [`AodvConfig::ns2_down_reply_to_node_zero`], also that of a
    /// route in local repair, and node 0 for a route that is down.
    fn reply_next_hop(&self, to: NodeId) -> Option<NodeId> {
        if let Some(e) = self.routes.valid(to, self.now) {
            return Some(e.next_hop);
        }
        if !self.cfg.ns2_down_reply_to_node_zero {
            return None;
        }
        match self.routes.get(to) {
            Some(e) if e.state == RouteState::InRepair => Some(e.next_hop),
            Some(_) if self.me != 0 => Some(0),
            _ => None,
        }
    }

    fn on_rrep(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        rp: RrepRepr,
        ctx: &mut RoutingCtx,
    ) {
        if self.advertising().is_some() && is_gateway_adv(packet.body()) {
            self.on_advertisement(now, from, packet, rp, ctx);
            return;
        }
        if packet.dst == BROADCAST && rp.dst == from && rp.hop_count == 0 {
            // A HELLO.
            let until = now + self.cfg.allowed_hello_loss as SimTime * self.cfg.hello_interval;
            if self.cfg.link_detection == LinkDetection::Hello {
                self.neighbors.heard(from, until);
            }
            if self.routes.offer(from, rp.dst_seqno, 1, from, until, now) {
                self.route_found(now, from, ctx);
            }
            return;
        }
        let hops = rp.hop_count.saturating_add(1);
        let expire = now + rp.lifetime_ms as SimTime * NS_PER_MS;
        let better = self
            .routes
            .offer(rp.dst, rp.dst_seqno, hops, from, expire, now);
        let inet = self
            .cfg
            .gateway
            .as_ref()
            .and_then(|_| inet_dest_of(packet.body()));
        let stamp = if self.cfg.ns2_message_sizes {
            stamp_of(packet.body())
        } else {
            None
        };
        if better && rp.orig == self.me {
            // ns-2.35's `recvReply` times every reply that updates the
            // originator's route from its RREQ's timestamp; with no
            // timestamp, the agent times from its latest RREQ, while the
            // discovery lasts.
            let latency = match stamp {
                Some(s) => Some(stamp_us(now).wrapping_sub(s) as SimTime * 1_000),
                None => self.discoveries.get(&rp.dst).map(|d| now - d.sent_at),
            };
            if let Some(latency) = latency {
                self.routes.entry(rp.dst).record_discovery(latency, hops);
            }
        }
        if better {
            self.route_found(now, rp.dst, ctx);
            if let (Some(host), true) = (inet, rp.orig == self.me) {
                self.internet_route_found(now, host, rp.dst, hops, expire, ctx);
            }
        }
        if rp.orig == self.me || packet.dst == self.me || !better {
            return;
        }
        if packet.ttl <= 1 {
            return;
        }
        let timeout = self.cfg.active_route_timeout;
        let exact = self.cfg.ns2_route_lifetimes;
        let Some(rev) = self.routes.get_mut(rp.orig).filter(|e| e.is_valid(now)) else {
            return;
        };
        // RFC 3561 section 6.7: the reverse route that forwards a RREP lives
        // at least ACTIVE_ROUTE_TIMEOUT more (ns-2.35's `forward` sets it).
        rev.extend(now + timeout, exact);
        let rev_hop = rev.next_hop;
        self.routes.entry(rp.dst).add_precursor(rev_hop);
        if !self.cfg.ns2_precursors {
            self.routes.entry(rp.orig).add_precursor(from);
        }
        let mut out = rp;
        out.hop_count = hops;
        let mut msg = out.to_bytes();
        if let Some(host) = inet {
            msg = with_inet_dest(msg, host);
        }
        let mut p = self.control(packet.dst, packet.ttl - 1, msg, stamp);
        if self.cfg.relayed_rrep_keeps_source {
            p.src = packet.src;
        }
        p.uid = packet.uid;
        ctx.relay(p, rev_hop, "rrep");
    }

    fn on_rerr(&mut self, now: SimTime, from: NodeId, re: RerrRepr, ctx: &mut RoutingCtx) {
        let mut relay = Vec::new();
        let mut lost_any = false;
        for (d, s) in re.unreachable {
            let Some(e) = self.routes.get_mut(d) else {
                continue;
            };
            let up =
                e.is_valid(now) || (self.cfg.ns2_local_repair && e.state == RouteState::InRepair);
            if up && e.next_hop == from && !seq_newer(e.seqno, s) {
                e.seqno = s;
                e.invalidate();
                lost_any = true;
                if e.has_precursors() {
                    relay.push((d, s));
                    if self.cfg.ns2_precursors {
                        e.clear_precursors();
                    }
                }
            }
        }
        if !relay.is_empty() {
            self.send_rerr(now, relay, true, ctx);
        }
        if lost_any && self.cfg.rerr_takes_back_queue {
            ctx.out
                .push(crate::net::RoutingAction::Reroute { next_hop: from });
        }
    }

    // ---- Gateway advertisements ------------------------------------------

    fn advertising(&self) -> Option<GatewayAdvertising> {
        self.cfg.gateway.as_ref().and_then(|g| g.advertising)
    }

    fn is_gateway(&self) -> bool {
        self.cfg
            .gateway
            .as_ref()
            .is_some_and(|g| g.nodes.contains(&self.me))
    }

    /// A gateway advertises itself and arms its next advertisement.
    fn advertise(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let Some(a) = self.advertising() else {
            return;
        };
        self.seqno = self.seqno.wrapping_add(1).max(1);
        // In whole milliseconds, as a RREP carries it: at least one.
        let life_ms = (a.lifetime() / NS_PER_MS).clamp(1, u32::MAX as SimTime) as u32;
        let rp = RrepRepr::new(0, self.me, self.seqno, self.me, life_ms);
        let ttl = a.zone_hops.unwrap_or(self.cfg.net_diameter);
        let interval_ms = (a.interval / NS_PER_MS).min(u32::MAX as SimTime) as u32;
        let msg = with_gateway_adv(rp.to_bytes(), interval_ms);
        let p = self.control(BROADCAST, ttl, msg, None);
        ctx.originate(p, BROADCAST, "gwadv", false);
        self.timers.push(now + a.interval, Timer::Advertise);
    }

    /// An advertisement of gateway `rp.dst` heard from `from` (see
    /// [`GatewayAdvertising`]).
    fn on_advertisement(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        rp: RrepRepr,
        ctx: &mut RoutingCtx,
    ) {
        let gateway = rp.dst;
        if gateway == self.me {
            return;
        }
        let heard = self.adverts.get_or_insert_default();
        let first = heard
            .get(&gateway)
            .is_none_or(|&s| seq_newer(rp.dst_seqno, s));
        if first {
            heard.insert(gateway, rp.dst_seqno);
        }
        let hops = rp.hop_count.saturating_add(1);
        let expire = now + rp.lifetime_ms as SimTime * NS_PER_MS;
        if self
            .routes
            .offer(gateway, rp.dst_seqno, hops, from, expire, now)
        {
            self.route_found(now, gateway, ctx);
            self.gateway_reachable(now, gateway, hops, ctx);
        }
        if !first {
            return;
        }
        let mut out = rp;
        out.hop_count = hops;
        let interval_ms = gateway_adv_interval_ms(packet.body()).unwrap_or(0);
        let msg = with_gateway_adv(out.to_bytes(), interval_ms);
        if packet.ttl <= 1 {
            // The zone's edge: traced as a TTL drop, as a RREQ's is.
            ctx.expired(|| {
                let mut p = self.control(BROADCAST, 0, msg, None);
                p.uid = packet.uid;
                p
            });
            return;
        }
        let mut p = self.control(BROADCAST, packet.ttl - 1, msg, None);
        p.uid = packet.uid;
        self.broadcast_jittered(now, Rebroadcast::new(p, "gwadv", true), ctx);
    }

    /// `gateway`, `hops` away, has become reachable by an advertisement:
    /// the packets waiting for hosts go to it, and a live Internet route
    /// through another gateway moves to it when it is shorter.
    fn gateway_reachable(&mut self, now: SimTime, gateway: NodeId, hops: u8, ctx: &mut RoutingCtx) {
        let Some(g) = self.cfg.gateway.as_ref() else {
            return;
        };
        let mut hosts: Vec<NodeId> = self.queue.destinations();
        hosts.retain(|&h| g.is_host(h));
        for (&host, r) in &self.internet {
            if r.is_up(now) && r.gateway != gateway && hops < r.hops && !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        let expire = now + self.cfg.active_route_timeout;
        for host in hosts {
            self.internet_route_found(now, host, gateway, hops, expire, ctx);
        }
    }

    /// With advertisements, a live Internet route for `host` whose gateway
    /// this node has no active route to moves to the nearest gateway it has
    /// one to, if any (else the packet seeks its gateway, as without).
    fn leave_unreachable_gateway(&mut self, now: SimTime, host: NodeId) {
        let Some(r) = self.internet.get(&host).filter(|r| r.is_up(now)) else {
            return;
        };
        if self.routes.valid(r.gateway, now).is_some() {
            return;
        }
        if let Some((gateway, hops)) = self.nearest_gateway(now) {
            let r = self.internet.get_mut(&host).expect("looked up above");
            r.gateway = gateway;
            r.hops = hops;
        }
    }

    /// The gateway this node has an active route to with the fewest hops
    /// (the first listed among equals), with its hop count.
    fn nearest_gateway(&self, now: SimTime) -> Option<(NodeId, u8)> {
        let g = self.cfg.gateway.as_ref()?;
        let mut best: Option<(NodeId, u8)> = None;
        for &n in &g.nodes {
            if let Some(e) = self.routes.valid(n, now) {
                if best.is_none_or(|(_, h)| e.hops < h) {
                    best = Some((n, e.hops));
                }
            }
        }
        best
    }

    fn send_hello(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        let life_ms =
            (self.cfg.allowed_hello_loss as SimTime * self.cfg.hello_interval / NS_PER_MS) as u32;
        let rp = RrepRepr::new(0, self.me, self.seqno, self.me, life_ms);
        let p = self.control(BROADCAST, 1, rp.to_bytes(), None);
        ctx.originate(p, BROADCAST, "hello", false);
        let next = neighbors::next_hello_check(now, self.cfg.hello_interval, ctx.rng);
        self.timers.push(next, Timer::Hello);
    }
}

/// When AODV's or AOMDV's agent next has work: the earliest of its timers',
/// its request queue's and its neighbour table's next deadlines.
pub(crate) fn next_wakeup<T>(
    timers: &TimerQueue<T>,
    queue: &RequestQueue,
    neighbors: &Neighbors,
) -> Option<SimTime> {
    [
        timers.next_deadline(),
        queue.next_expiry(),
        neighbors.next_expiry(),
    ]
    .into_iter()
    .flatten()
    .min()
}

impl RoutingProtocol for Aodv {
    fn name(&self) -> &'static str {
        "aodv"
    }

    fn start(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.now = now;
        if self.cfg.link_detection == LinkDetection::Hello {
            let i = self.cfg.hello_interval;
            let first = now + ctx.rng.below(i.max(1));
            self.timers.push(first, Timer::Hello);
        }
        if let Some(a) = self.advertising().filter(|_| self.is_gateway()) {
            let first = now + ctx.rng.below(a.interval.max(1));
            self.timers.push(first, Timer::Advertise);
        }
    }

    fn route_output(&mut self, now: SimTime, mut packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        if self.cfg.ns2_data_ttl && packet.src == self.me && packet.hops == 0 {
            packet.ttl = self.cfg.net_diameter;
        }
        let dst = packet.dst;
        self.routes.settle(dst, now);
        let state = self.routes.get(dst).map(|e| (e.is_valid(now), e.state));
        match state {
            Some((true, _)) => self.forward_data(now, packet, ctx),
            Some((_, RouteState::InRepair)) => self.queue.hold(now, packet, ctx),
            _ if packet.src == self.me => {
                let tcp = packet.tcp().is_some();
                self.queue.hold(now, packet, ctx);
                self.start_discovery(now, dst, tcp, ctx);
            }
            _ => {
                // A relay without a route (RFC 6.11 case ii).
                let recent = !self.cfg.rerr_per_unrouted_packet
                    && self
                        .routes
                        .get(dst)
                        .and_then(|e| e.last_rerr())
                        .is_some_and(|t| t + NS_PER_S > now);
                if !recent {
                    let e = self.routes.entry(dst);
                    let s = e.seqno;
                    self.send_rerr(now, vec![(dst, s)], false, ctx);
                }
                ctx.drop_packet(packet, DropReason::NoRoute);
            }
        }
    }

    fn route_to_internet(
        &mut self,
        now: SimTime,
        mut packet: Packet,
        host: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        if self.cfg.gateway.is_none() || packet.src != self.me {
            self.route_output(now, packet, ctx);
            return;
        }
        self.now = now;
        let timeout = self.cfg.active_route_timeout;
        if self.advertising().is_some() {
            self.leave_unreachable_gateway(now, host);
        }
        if let Some(r) = self.internet.get_mut(&host).filter(|r| r.is_up(now)) {
            // AODV-UU's `packet_input`: the use extends the Internet route,
            // then the packet goes to its gateway, found as any node is.
            r.expire = r.expire.max(now + timeout);
            packet.dst = r.gateway;
            self.route_output(now, packet, ctx);
            return;
        }
        if let Some(a) = self.advertising() {
            if let Some((gateway, hops)) = self.nearest_gateway(now) {
                // A gateway is known (an advertisement, or any route to
                // it): the packet goes there with no discovery.
                let route = InternetRoute {
                    gateway,
                    hops,
                    expire: now + timeout,
                    broken: false,
                };
                self.internet.insert(host, route);
                packet.dst = gateway;
                self.route_output(now, packet, ctx);
                return;
            }
            if !a.reactive_fallback {
                // Proactive: the packet waits for an advertisement.
                packet.dst = host;
                packet.size_bytes -= IP_HEADER_BYTES;
                self.queue.hold(now, packet, ctx);
                return;
            }
        }
        // Buffered for the host, as AODV-UU queues the packet before its
        // tunnel, while the host is sought.
        packet.dst = host;
        packet.size_bytes -= IP_HEADER_BYTES;
        let tcp = packet.tcp().is_some();
        self.queue.hold(now, packet, ctx);
        self.start_discovery(now, host, tcp, ctx);
    }

    fn on_control(&mut self, now: SimTime, from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        let Ok(msg) = Message::parse(packet.body()) else {
            return;
        };
        if self.cfg.link_detection == LinkDetection::Hello {
            let until = now + self.cfg.allowed_hello_loss as SimTime * self.cfg.hello_interval;
            self.neighbors.heard(from, until);
        }
        match msg {
            Message::Rreq(rq) => {
                let stamp = stamp_of(packet.body());
                self.on_rreq(now, from, &packet, rq, stamp, ctx)
            }
            Message::Rrep(rp) => self.on_rrep(now, from, &packet, rp, ctx),
            Message::Rerr(re) => self.on_rerr(now, from, re, ctx),
            Message::RrepAck => {}
        }
    }

    /// A RREQ, unless HELLOs are on (then every packet heard refreshes
    /// the neighbour table).
    fn flood_id(&self, packet: &Packet) -> Option<(NodeId, u32)> {
        if self.cfg.link_detection == LinkDetection::Hello {
            return None;
        }
        match Message::parse(packet.body()) {
            Ok(Message::Rreq(rq)) => Some((rq.orig, rq.rreq_id)),
            _ => None,
        }
    }

    /// The duplicate cache's lifetime: a RREQ is recorded when first heard
    /// and kept that long.
    fn flood_memory(&self) -> SimTime {
        if self.cfg.link_detection == LinkDetection::Hello {
            0
        } else {
            self.cfg.rreq_id_save.max(1)
        }
    }

    /// As `on_rreq` decides before it does anything.
    fn has_seen(&self, (orig, id): (NodeId, u32), at: SimTime) -> bool {
        orig == self.me || self.ids.is_duplicate(orig, id, at)
    }

    /// With [`AodvConfig::drop_queue_on_break`] the queue gives up every
    /// packet for the lost neighbour, the agent's own replies included, as
    /// ns-2.35's `PriQueue::filter` matches on the next hop alone.
    fn reroutes_control(&self) -> bool {
        self.cfg.drop_queue_on_break
    }

    /// A packet taken back from the interface queue after a break: routed
    /// again, or dropped with [`AodvConfig::drop_queue_on_break`].
    fn on_reroute(
        &mut self,
        now: SimTime,
        packet: Packet,
        _next_hop: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        self.now = now;
        if self.cfg.drop_queue_on_break {
            // ns-2.35's `rt_ll_failed` drops what its queue filter takes
            // out with the failed packet's reason, DROP_RTR_MAC_CALLBACK
            // (its trace's `RTR CBK`).
            ctx.drop_packet(packet, DropReason::RetryLimit);
        } else {
            self.route_output(now, packet, ctx);
        }
    }

    /// With [`AodvConfig::link_failure_from_data_only`], control packets
    /// carry no failure callback, as in ns-2.35 (`rt_resolve` sets it on
    /// data only).
    fn hears_failure(&self, packet: &Packet) -> bool {
        !(self.cfg.link_failure_from_data_only && packet.is_control())
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        self.now = now;
        if self.cfg.link_detection == LinkDetection::Hello {
            if let Some(p) = packet {
                ctx.drop_packet(p, DropReason::RetryLimit);
            }
            return;
        }
        // ns-2.35's `rt_ll_failed` breaks the link only for its data packet
        // types, which leave TFRC's out: over the same 3-hop chain its TCP
        // flows lost routes (163 route errors in 2 seeds) and its TFRC flows
        // never did (0 in 6), so a failed TFRC packet is only dropped.
        if self.cfg.link_failure_from_data_only
            && packet.as_ref().is_some_and(|p| {
                p.is_control()
                    || p.tfrc().is_some()
                    || p.dst == BROADCAST
                    || self.routes.get(p.dst).is_none()
            })
        {
            if let Some(p) = packet {
                ctx.drop_packet(p, DropReason::RetryLimit);
            }
            return;
        }
        let packet = match packet {
            Some(p) if p.is_control() => {
                ctx.drop_packet(p, DropReason::RetryLimit);
                None
            }
            other => other,
        };
        // Local repair (ns-2's test: the break is nearer the destination).
        let ns2_repair = self.cfg.ns2_local_repair;
        let repair = packet.as_ref().and_then(|p| {
            if ns2_repair {
                // ns-2.35's `rt_ll_failed` asks only that the destination's
                // entry keep a hop count (up, or already in repair) and
                // that the packet have come further than that: whatever
                // the entry's next hop.
                self.routes.settle(p.dst, now);
                let e = self.routes.get(p.dst)?;
                let kept = e.is_valid(now) || e.state == RouteState::InRepair;
                return (self.cfg.local_repair && kept && p.hops as u32 > e.hops as u32)
                    .then_some(p.dst);
            }
            let e = self.routes.valid(p.dst, now)?;
            (self.cfg.local_repair
                && p.src != self.me
                && e.next_hop == next_hop
                && p.hops as u32 > e.hops as u32)
                .then_some(p.dst)
        });
        // ns-2.35 repairs a route already in repair again: the packet is
        // buffered and another repair timer set, but no RREQ goes out while
        // the pending one's wait runs (`sendRequest`'s `rt_req_timeout`).
        let again = repair.filter(|&dst| {
            ns2_repair
                && self
                    .routes
                    .get(dst)
                    .is_some_and(|e| e.state == RouteState::InRepair)
                && self
                    .discoveries
                    .get(&dst)
                    .is_some_and(|d| !d.due && !d.held)
        });
        if let Some(dst) = again {
            let deadline = self.discoveries[&dst].deadline;
            self.timers
                .push(now.saturating_add(deadline), Timer::RepairEnd { dst });
            if let Some(p) = packet {
                self.route_output(now, p, ctx);
            }
            return;
        }
        match repair {
            Some(_) if self.cfg.repair_spares_other_routes && self.cfg.ns2_local_repair => {}
            Some(dst) if self.cfg.repair_spares_other_routes => {
                let e = self.routes.entry(dst);
                e.seqno = e.seqno.wrapping_add(1);
                e.invalidate();
            }
            _ => self.link_broken(now, next_hop, repair, ctx),
        }
        if let Some(dst) = repair {
            let ns2 = self.cfg.ns2_local_repair;
            let e = self.routes.entry(dst);
            e.state = RouteState::InRepair;
            let ttl = if ns2 {
                // ns-2.35's sendRequest: the ring starts from max(the hop
                // count the route was found with, the hop count it last
                // went down with), the latter INFINITY2 until it first has,
                // so a route never down before is repaired network wide.
                let down = match e.downed_hops {
                    0 => u8::MAX,
                    h => h,
                };
                let last = e.hops.max(1).max(down);
                self.next_ttl(last)
            } else {
                let ttl = e.last_hops.max(1).saturating_add(self.cfg.local_add_ttl);
                ttl.min(self.cfg.net_diameter)
            };
            self.discoveries.remove(&dst);
            self.discoveries_started += 1;
            // ns-2.35 retries a repair as a source does (`local_repair`
            // off), and arms its timer with the RREQ's deadline as a delay.
            // AODV-UU's `rreq_local_repair` sends no G flag.
            let seek = Seek {
                local_repair: !ns2,
                gratuitous: false,
            };
            let wait = self.run_discovery(now, dst, ttl, 0, seek, ctx);
            if ns2 {
                let end = now.saturating_add(now).saturating_add(wait);
                self.timers.push(end, Timer::RepairEnd { dst });
            }
        }
        if let Some(p) = packet {
            if !self.cfg.reroute_failed_packet && repair.is_none() {
                ctx.drop_packet(p, DropReason::RetryLimit);
            } else {
                self.route_output(now, p, ctx);
            }
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        next_wakeup(&self.timers, &self.queue, &self.neighbors)
    }

    fn on_timeout(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.now = now;
        while let Some((_, t)) = self.timers.pop_due(now) {
            match t {
                Timer::Send(r) => r.send(ctx),
                Timer::Discovery { dst, generation } => {
                    let Some(d) = self
                        .discoveries
                        .get_mut(&dst)
                        .filter(|d| d.generation == generation)
                    else {
                        continue;
                    };
                    if self.cfg.retry_when_prompted && !d.local_repair {
                        d.due = true;
                        self.arm_purge(now);
                    } else {
                        self.on_discovery_timeout(now, dst, ctx);
                    }
                }
                Timer::Hello => self.send_hello(now, ctx),
                Timer::Advertise => self.advertise(now, ctx),
                Timer::RepairEnd { dst } => {
                    self.routes.settle(dst, now);
                    if let Some(e) = self.routes.get_mut(dst) {
                        if e.state != RouteState::Valid {
                            e.invalidate();
                        }
                    }
                }
                Timer::Release { packet, next_hop } => {
                    self.releasing -= 1;
                    ctx.send(packet, next_hop);
                }
                Timer::Purge => {
                    self.purge_at = None;
                    let due: Vec<NodeId> = self
                        .discoveries
                        .iter()
                        .filter(|(_, d)| d.due)
                        .map(|(&dst, _)| dst)
                        .collect();
                    for dst in due {
                        self.on_discovery_timeout(now, dst, ctx);
                    }
                }
            }
        }
        self.queue.drop_expired(now, ctx);
        for nb in self.neighbors.expire(now) {
            self.link_broken(now, nb, None, ctx);
        }
    }

    fn buffered(&self) -> u64 {
        self.queue.len() as u64 + self.releasing
    }

    fn route_discoveries(&self) -> u64 {
        self.discoveries_started
    }

    fn hop_count(&self, dst: NodeId, now: SimTime) -> Option<u32> {
        self.routes.valid(dst, now).map(|e| e.hops as u32)
    }
}

#[cfg(test)]
mod tests;

/// `now` in microseconds modulo 2^32: the timestamp of a RREQ sent now, as
/// ns-2.35's AODV stamps it ([`crate::wire::aodv::STAMP_LEN`]).
fn stamp_us(now: SimTime) -> u32 {
    (now / 1_000) as u32
}
