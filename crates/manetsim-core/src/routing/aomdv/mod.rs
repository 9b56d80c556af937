//! AOMDV, Ad hoc On-demand Multipath Distance Vector routing (Marina & Das,
//! "Ad hoc on-demand multipath distance vector routing", Wireless
//! Communications and Mobile Computing 6(7), 2006).
//!
//! AODV's route discovery, extended to find several loop-free,
//! link-disjoint paths per destination in one discovery, so that a broken
//! link is survived by switching to another path instead of flooding again.
//!
//! The agent is split by concern: this file is the agent;
//! [`route_table`] holds each destination's path list and advertised hop
//! count, with the route update rules; [`rreq_cache`] the RREQ duplicate
//! cache with the paths already used to answer each request. The data
//! buffer, the timer queue and the HELLO neighbour set are AODV's
//! ([`crate::routing::aodv::request_queue`], [`crate::routing::timers`],
//! [`crate::routing::aodv::neighbors`]). The messages are in
//! [`crate::wire::aomdv`] (AODV's, with the first-hop and RREQ-id fields
//! ns-2.35 adds), over UDP (8 header bytes).
//!
//! # What is implemented
//!
//! - **Route update rules and advertised hop count** (paper section 3.1,
//!   see [`route_table`]): several paths per destination, kept only while
//!   they are shorter than the hop count this node advertised for the same
//!   sequence number (loop freedom), at most 3 (ns-2's `aomdv_max_paths_`),
//!   at most 1 hop longer than the shortest (ns-2's
//!   `aomdv_prim_alt_path_len_diff_`). Data takes the primary path, the
//!   oldest kept one (ns-2's `path_find`).
//! - **Link-disjoint paths** (paper section 3.2, ns-2's
//!   `AOMDV_LINK_DISJOINT_PATHS`): a RREQ carries its first hop (the
//!   originator's neighbour it went through). A node relays only the first
//!   copy of a RREQ, but every copy that comes through a new neighbour *and*
//!   a new first hop adds a reverse path; a copy sharing either is dropped.
//!   The destination answers every copy that added a reverse path, once per
//!   path; an intermediate node with a fresh route answers each copy with a
//!   forward path not yet advertised for that RREQ; a node relaying a RREP
//!   sends it along a reverse path not yet used for that RREQ
//!   ([`rreq_cache`]). RREQs and RREPs carry the sender's advertised hop
//!   count, not its path's length plus one.
//! - **Sequence numbers** as in ns-2: nodes keep them even; a route that
//!   goes down is made odd, so only a fresher reply brings it back; a
//!   destination answering a RREQ that knows a newer number than its own
//!   takes that number + 1, made even, and gives all copies of one RREQ the
//!   same number (else its later replies would wipe the earlier paths); an
//!   originator adds 2 before each RREQ.
//! - **Link failure** (MAC feedback, the default; HELLO detection as an
//!   option): the paths through the lost neighbour are removed from every
//!   route. Routes that keep a path fail over to it at once: the failed
//!   packet and the interface queue's packets for that neighbour (`Reroute`)
//!   are routed again over the next path (ns-2's packet salvaging). Only
//!   routes left with no path go down, and a RERR (AODV's format, IP TTL 1,
//!   broadcast at once) lists those of them this node told others about
//!   (forwarded data or a RREP for). A received RERR removes the path
//!   through its sender, and is relayed (0-10 ms jitter) for the routes it
//!   left without a path. A relay with no route for a data packet drops it
//!   (`no_route`) and sends a RERR for the destination, at most once a
//!   second per destination; RERRs are limited to 10 a second. Without
//!   [`AomdvConfig::rerr_limits`], as ns-2.35's `rt_resolve` and
//!   `sendError`: a RERR for every such packet, and no limit.
//! - **Route discovery** with ns-2.35's timing: a RREQ to a destination
//!   with no known hop count goes network wide (TTL 30: ns-2 declares
//!   TTL_START 5 but, as in its AODV, a new route entry's last hop count is
//!   infinity, so its first RREQ floods); with a known hop count h, the ring
//!   starts at h + 2 (TTL_INCREMENT) while below TTL_THRESHOLD 7, then goes
//!   network wide. The wait is 2 × TTL × NODE_TRAVERSAL_TIME (30 ms), times
//!   the number of network-wide tries, at most MAX_RREQ_TIMEOUT (ns-2
//!   AOMDV: 1 s); after RREQ_RETRIES (3) network-wide retries the buffered
//!   packets are dropped (`no_route`). ns-2 retries from a 0.5 s purge
//!   tick; this agent retries when the wait ends.
//! - **Buffering**: 64 packets, 30 s each, drop-front (ns-2's
//!   `aomdv_rqueue`), reasons `route_buffer_full`, `route_buffer_timeout`.
//! - **Lifetimes** (ns-2 `aomdv.h`): ACTIVE_ROUTE_TIMEOUT 10 s (a path's
//!   lifetime is extended by each data packet sent over it),
//!   MY_ROUTE_TIMEOUT 10 s, REV_ROUTE_LIFE 6 s, BCAST_ID_SAVE 6 s.
//! - **Jitter**: relayed RREQs and RERRs wait a uniform 0-10 ms (ns-2);
//!   originated RREQs, RREPs and the RERR of a link break go at once.
//! - Control messages are counted as "rreq", "rrep", "rerr" and "hello".
//! - **Data TTL**: a packet this node originates leaves with an IP TTL of
//!   NETWORK_DIAMETER (30), as ns-2.35's AOMDV sets it.
//!
//! # Where this differs from ns-2.35
//!
//! - ns-2.35 compiles AOMDV with **node-disjoint** paths
//!   (`AOMDV_NODE_DISJOINT_PATHS`: each node answers or relays one RREP
//!   per request, over its primary reverse path, and a relayed RREQ or
//!   RREP names the last hop of the relay's primary path as its first
//!   hop); this agent follows the paper's link-disjoint variant by
//!   default, which ns-2 also carries (`#ifdef`'d out), and ns-2's with
//!   [`Disjoint::Node`] (`[routing.aomdv] disjoint = "node"`).
//! - ns-2.35 compiles AOMDV **without** link-layer detection: MAC failures
//!   only drop the packet and links are found broken by HELLO messages.
//!   Here MAC feedback is the default, as for our AODV;
//!   [`LinkDetection::Hello`] (`[routing.aomdv] link_detection = "hello"`)
//!   is ns-2's way, with its rules: a node with a live route says HELLO
//!   every 0.75-1.25 intervals; a HELLO gives its sender a one-hop path for
//!   (1 + ALLOWED_HELLO_LOSS) intervals; a neighbour first heard is kept
//!   ALLOWED_HELLO_LOSS intervals, then 1.5 times that after each HELLO
//!   (no other message refreshes it), and is found lost on a purge tick
//!   every interval from the agent's start, which also adds 2 to the
//!   node's sequence number. What the interface queue holds for a lost
//!   neighbour comes out, control packets too (ns-2.35's `nb_delete`
//!   filters the queue by next hop): data goes over another path if its
//!   route is still up and is dropped otherwise (`no_route`: no RERR, and
//!   at the source no buffering), control packets are dropped.
//! - ns-2 salvages a packet at most 10 times (`AOMDV_MAX_SALVAGE_COUNT`);
//!   here a packet is routed again after each break with no count (every
//!   break removes a path, and the TTL bounds the rest).
//! - After giving up a discovery ns-2 waits MAX_RREQ_TIMEOUT before the
//!   next; here the next packet to that destination starts one at once.
//! - Messages are 28 bytes (RREQ, RREP), not ns-2's 32: the 8-byte
//!   timestamp ns-2 carries for statistics is left out.
//!
//! # Not implemented
//!
//! Local repair (ns-2.35 compiles it only in its link-layer-detection
//! branch, which is off), RREP-ACK, gratuitous RREPs, and scenario keys
//! for the options above other than the link detection, the HELLO
//! interval and the disjointness (`[routing.aomdv]`). The routing statistics have no
//! "route discoveries" counter: adding one would change the routing
//! contract and the run loop shared with the other protocols; the count of
//! originated "rreq" messages is its upper bound.

pub mod route_table;
pub mod rreq_cache;

use crate::engine::{SimTime, NS_PER_MS, NS_PER_S};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, RoutingCtx, RoutingProtocol, BROADCAST, UDP_HEADER_BYTES};
use crate::routing::aodv::neighbors::{self, Neighbors};
use crate::routing::aodv::next_wakeup;
use crate::routing::aodv::rebroadcast::Rebroadcast;
use crate::routing::aodv::request_queue::RequestQueue;
use crate::routing::aodv::rerr_limit::RerrLimit;
pub use crate::routing::aodv::LinkDetection;
use crate::routing::timers::TimerQueue;
use crate::wire::aodv::{self, RerrRepr, RrepRepr, RreqRepr};
use crate::wire::aomdv::{short_hello, AomdvRrep, AomdvRreq, Message};
use route_table::{seq_newer, Limits, Offer, Reject, RouteTable};
use rreq_cache::RreqCache;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Protocol parameters; `Default` is ns-2.35's AOMDV (see the module doc
/// for where detection differs).
#[derive(Debug, Clone, PartialEq)]
pub struct AomdvConfig {
    /// Paths kept per destination (ns-2's `aomdv_max_paths_`: 3).
    pub max_paths: usize,
    /// How many hops an alternate path may exceed the shortest (ns-2's
    /// `aomdv_prim_alt_path_len_diff_`: 1).
    pub max_length_diff: u8,
    /// ACTIVE_ROUTE_TIMEOUT (ns-2: 10 s).
    pub active_route_timeout: SimTime,
    /// MY_ROUTE_TIMEOUT, the lifetime in a destination's RREP (ns-2: 10 s).
    pub my_route_timeout: SimTime,
    /// REV_ROUTE_LIFE (ns-2: 6 s).
    pub reverse_route_life: SimTime,
    /// BCAST_ID_SAVE (ns-2: 6 s).
    pub rreq_id_save: SimTime,
    /// With a tick (> 0), RREQ records are forgotten only at multiples of
    /// it from time 0, each at the first tick at or after its
    /// `rreq_id_save` has passed: ns-2.35's `AOMDVBroadcastTimer` purges
    /// its ids every BCAST_ID_SAVE (6 s), so an id is kept 6 to 12 s. 0:
    /// exactly `rreq_id_save`.
    pub rreq_id_purge_tick: SimTime,
    /// NODE_TRAVERSAL_TIME (ns-2: 30 ms).
    pub node_traversal_time: SimTime,
    /// NETWORK_DIAMETER (ns-2: 30).
    pub net_diameter: u8,
    /// TTL of a first RREQ when no hop count is known (ns-2, in effect: 30).
    pub ttl_start: u8,
    /// TTL_INCREMENT (2).
    pub ttl_increment: u8,
    /// TTL_THRESHOLD (7).
    pub ttl_threshold: u8,
    /// Network-wide RREQs after the first (ns-2: 3).
    pub rreq_retries: u32,
    /// Longest wait for a RREP (ns-2 AOMDV's MAX_RREQ_TIMEOUT: 1 s).
    pub max_rreq_timeout: SimTime,
    /// Packets buffered waiting for routes (ns-2: 64).
    pub queue_len: usize,
    /// How long a packet may wait (ns-2: 30 s).
    pub queue_timeout: SimTime,
    /// Upper bound of the uniform jitter on relayed broadcasts (10 ms).
    pub broadcast_jitter: SimTime,
    pub link_detection: LinkDetection,
    /// Which paths may coexist: link-disjoint (the paper's) or node-disjoint
    /// (ns-2.35's `AOMDV_NODE_DISJOINT_PATHS`).
    pub disjoint: Disjoint,
    /// HELLO_INTERVAL (1 s).
    pub hello_interval: SimTime,
    /// ALLOWED_HELLO_LOSS (ns-2: 3).
    pub allowed_hello_loss: u32,
    /// RERR_RATELIMIT per second (10).
    pub rerr_rate_limit: usize,
    /// A relay with no route for a data packet reports it at most once a
    /// second per destination, within RERR_RATELIMIT. Off, as ns-2.35's
    /// `rt_resolve`: one RERR per packet, and no limit on any RERR.
    pub rerr_limits: bool,
    /// Messages sized as ns-2.35's (`aomdv_packet.h`): no UDP header, a
    /// RREQ and a RREP 4 bytes longer (its timestamp, as it counts it;
    /// carried as 0), a HELLO 24 bytes (no RREQ ID, no first hop): at the
    /// IP layer 52, 52 and 44 bytes, as its traces show, against 56 each.
    pub ns2_message_sizes: bool,
    /// The destination answers RREQ copies as ns-2.35's `recvRequest`
    /// does: every copy its reverse-route filter lets through, with no
    /// once-per-path bookkeeping; besides those that set up or refreshed a
    /// reverse path, one that found no room for a new path, and one that
    /// shares its first hop (the RREQ's) with a kept path no shorter than
    /// itself. Off: each copy that set up or refreshed a reverse path,
    /// once per path.
    pub ns2_target_replies: bool,
}

impl Default for AomdvConfig {
    fn default() -> Self {
        Self {
            max_paths: 3,
            max_length_diff: 1,
            active_route_timeout: 10 * NS_PER_S,
            my_route_timeout: 10 * NS_PER_S,
            reverse_route_life: 6 * NS_PER_S,
            rreq_id_save: 6 * NS_PER_S,
            rreq_id_purge_tick: 0,
            node_traversal_time: 30 * NS_PER_MS,
            net_diameter: 30,
            ttl_start: 30,
            ttl_increment: 2,
            ttl_threshold: 7,
            rreq_retries: 3,
            max_rreq_timeout: NS_PER_S,
            queue_len: 64,
            queue_timeout: 30 * NS_PER_S,
            broadcast_jitter: 10 * NS_PER_MS,
            link_detection: LinkDetection::MacFeedback,
            disjoint: Disjoint::Link,
            ns2_message_sizes: false,
            ns2_target_replies: false,
            hello_interval: NS_PER_S,
            allowed_hello_loss: 3,
            rerr_rate_limit: 10,
            rerr_limits: true,
        }
    }
}

/// How AOMDV keeps its paths to a destination apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Disjoint {
    /// Link-disjoint (Marina & Das): a node answers or relays a RREP for a
    /// request once per unused pair of reverse and forward paths.
    #[default]
    Link,
    /// Node-disjoint, as ns-2.35 compiles AOMDV: a node answers or relays
    /// one RREP per request, over its primary reverse path, and a relayed
    /// RREQ or RREP names as its first hop the last hop of the relay's
    /// primary path.
    Node,
}

impl AomdvConfig {
    fn limits(&self) -> Limits {
        Limits {
            max_paths: self.max_paths,
            max_length_diff: self.max_length_diff,
        }
    }
}

/// A route discovery under way.
#[derive(Debug, Clone, Copy)]
struct Discovery {
    ttl: u8,
    /// Network-wide RREQs sent so far.
    network_wide: u32,
    /// Tells stale timers from the current one.
    generation: u64,
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
}

/// One node's AOMDV agent.
#[derive(Debug, Clone)]
pub struct Aomdv {
    /// Shared by every node's agent (one copy, not one per node).
    cfg: Rc<AomdvConfig>,
    me: NodeId,
    seqno: u32,
    rreq_id: u32,
    routes: RouteTable,
    queue: RequestQueue,
    rreqs: RreqCache,
    neighbors: Neighbors,
    discoveries: BTreeMap<NodeId, Discovery>,
    generation: u64,
    timers: TimerQueue<Timer>,
    /// Recent RERRs (RERR_RATELIMIT).
    rerr_limit: RerrLimit,
    /// Route discoveries started (first RREQs, not retries).
    discoveries_started: u64,
    /// The latest time the agent was called at (for `hop_count`).
    now: SimTime,
    /// When the agent started: HELLO detection purges its neighbours on
    /// ticks HELLO_INTERVAL apart from here.
    started: SimTime,
}

impl Aomdv {
    /// `cfg`: a [`AomdvConfig`], or an `Rc` of one the agents of a network share.
    pub fn new(me: NodeId, cfg: impl Into<Rc<AomdvConfig>>) -> Self {
        let cfg = cfg.into();
        Self {
            queue: RequestQueue::new(cfg.queue_len, cfg.queue_timeout),
            rreqs: RreqCache::with_ticks(cfg.rreq_id_save, cfg.rreq_id_purge_tick),
            cfg,
            me,
            // ns-2 starts sequence numbers at 2 (even: a valid route).
            seqno: 2,
            rreq_id: 0,
            routes: RouteTable::default(),
            neighbors: Neighbors::default(),
            discoveries: BTreeMap::new(),
            generation: 0,
            timers: TimerQueue::default(),
            rerr_limit: RerrLimit::default(),
            discoveries_started: 0,
            now: 0,
            started: 0,
        }
    }

    pub fn config(&self) -> &AomdvConfig {
        &self.cfg
    }

    /// The route table (for tests and inspection).
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// Route discoveries this node started (retries not counted).
    pub fn discoveries_started(&self) -> u64 {
        self.discoveries_started
    }

    /// A control packet carrying `msg`, under a UDP header; or, with
    /// [`AomdvConfig::ns2_message_sizes`], without one, a RREQ or RREP
    /// followed by ns-2.35's timestamp.
    fn control(&self, dst: NodeId, ttl: u8, msg: Vec<u8>) -> Packet {
        if !self.cfg.ns2_message_sizes {
            return Packet::control(self.me, dst, ttl, UDP_HEADER_BYTES, msg);
        }
        let msg = if matches!(msg.first(), Some(&(aodv::TYPE_RREQ | aodv::TYPE_RREP))) {
            aodv::with_stamp(msg, 0)
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

    fn start_discovery(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        if self.discoveries.contains_key(&dst) {
            return;
        }
        self.discoveries_started += 1;
        let last = self.routes.get(dst).map_or(0, |e| e.last_hops);
        let ttl = if last == 0 {
            self.cfg.ttl_start
        } else {
            self.next_ttl(last)
        };
        self.run_discovery(now, dst, ttl, 0, ctx);
    }

    /// ns-2's ring step: +TTL_INCREMENT below the threshold, else network wide.
    fn next_ttl(&self, ttl: u8) -> u8 {
        if ttl < self.cfg.ttl_threshold {
            ttl.saturating_add(self.cfg.ttl_increment)
                .min(self.cfg.net_diameter)
        } else {
            self.cfg.net_diameter
        }
    }

    fn run_discovery(
        &mut self,
        now: SimTime,
        dst: NodeId,
        ttl: u8,
        network_wide: u32,
        ctx: &mut RoutingCtx,
    ) {
        let wide = ttl >= self.cfg.net_diameter;
        let network_wide = network_wide + wide as u32;
        let wait =
            (2 * ttl as SimTime * self.cfg.node_traversal_time * network_wide.max(1) as SimTime)
                .min(self.cfg.max_rreq_timeout);
        self.generation += 1;
        let generation = self.generation;
        self.discoveries.insert(
            dst,
            Discovery {
                ttl,
                network_wide,
                generation,
            },
        );
        self.timers
            .push(now + wait, Timer::Discovery { dst, generation });
        self.send_rreq(now, dst, ttl, ctx);
    }

    fn send_rreq(&mut self, now: SimTime, dst: NodeId, ttl: u8, ctx: &mut RoutingCtx) {
        self.seqno = self.seqno.wrapping_add(2);
        self.rreq_id = self.rreq_id.wrapping_add(1);
        self.rreqs.check_and_insert(self.me, self.rreq_id, now);
        let known = self.routes.get(dst).filter(|e| e.valid_seqno);
        let rq = AomdvRreq {
            base: RreqRepr::request(
                self.rreq_id,
                dst,
                known.map(|e| e.seqno),
                self.me,
                self.seqno,
            ),
            first_hop: self.me,
        };
        let p = self.control(BROADCAST, ttl, rq.to_bytes());
        ctx.originate(p, BROADCAST, "rreq", false);
    }

    fn on_discovery_timeout(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        let Some(d) = self.discoveries.remove(&dst) else {
            return;
        };
        if self.routes.is_up(dst, now) || !self.queue.has_packets_for(dst) {
            return;
        }
        if d.ttl < self.cfg.net_diameter {
            let ttl = self.next_ttl(d.ttl);
            self.run_discovery(now, dst, ttl, d.network_wide, ctx);
        } else if d.network_wide <= self.cfg.rreq_retries {
            self.run_discovery(now, dst, d.ttl, d.network_wide, ctx);
        } else {
            self.queue.drop_for(dst, DropReason::NoRoute, ctx);
        }
    }

    /// A route to `dst` is up: send what waits for it.
    fn route_found(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        if !self.routes.is_up(dst, now) {
            return;
        }
        self.discoveries.remove(&dst);
        for p in self.queue.take_for(dst) {
            self.forward_data(now, p, ctx);
        }
    }

    /// Sends `p` over the primary path, extending it; buffers otherwise.
    fn forward_data(&mut self, now: SimTime, p: Packet, ctx: &mut RoutingCtx) {
        let timeout = self.cfg.active_route_timeout;
        let relayed = p.src != self.me;
        let Some(e) = self.routes.up_mut(p.dst, now) else {
            self.queue.hold(now, p, ctx);
            return;
        };
        if relayed {
            e.report_break = true;
        }
        let path = e.paths.first_mut().expect("an up route has a path");
        path.expire = path.expire.max(now + timeout);
        let h = path.next_hop;
        ctx.send(p, h);
    }

    // ---- Route errors ----------------------------------------------------

    /// Broadcasts RERRs listing `unreachable`, within the rate limit;
    /// relayed ones after the jitter.
    fn send_rerr(
        &mut self,
        now: SimTime,
        unreachable: Vec<(NodeId, u32)>,
        forwarded: bool,
        ctx: &mut RoutingCtx,
    ) {
        for chunk in unreachable.chunks(RerrRepr::MAX_DESTS) {
            if self.cfg.rerr_limits && !self.rerr_limit.admit(now, self.cfg.rerr_rate_limit) {
                return;
            }
            for &(d, _) in chunk {
                self.routes.entry(d, now).last_rerr = Some(now);
            }
            let re = RerrRepr {
                no_delete: false,
                unreachable: chunk.to_vec(),
            };
            let p = self.control(BROADCAST, 1, re.to_bytes());
            if forwarded {
                // ns-2.35's `sendError` builds a new packet.
                self.broadcast_jittered(now, Rebroadcast::new(p, "rerr", false), ctx);
            } else {
                ctx.originate(p, BROADCAST, "rerr", false);
            }
        }
    }

    /// The link to `nb` is gone: remove the paths through it, report the
    /// routes left without one, and take the interface queue's data back to
    /// route it again over the remaining paths.
    fn link_broken(&mut self, now: SimTime, nb: NodeId, ctx: &mut RoutingCtx) {
        let down = self.routes.break_link(nb, now);
        let list: Vec<(NodeId, u32)> = down
            .iter()
            .filter(|d| d.2)
            .map(|&(d, s, _)| (d, s))
            .collect();
        if !list.is_empty() {
            self.send_rerr(now, list, false, ctx);
        }
        ctx.out
            .push(crate::net::RoutingAction::Reroute { next_hop: nb });
    }

    // ---- Received messages -----------------------------------------------

    fn on_rreq(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        rq: AomdvRreq,
        ctx: &mut RoutingCtx,
    ) {
        let ip_ttl = packet.ttl;
        let base = rq.base;
        if base.orig == self.me {
            return;
        }
        let duplicate = self.rreqs.check_and_insert(base.orig, base.rreq_id, now);
        // The originator's neighbours name themselves as the first hop.
        let first_hop = if base.hop_count == 0 {
            self.me
        } else {
            rq.first_hop
        };
        let limits = self.cfg.limits();
        let offer = self.routes.offer(
            base.orig,
            base.orig_seqno,
            base.hop_count,
            from,
            first_hop,
            now + self.cfg.reverse_route_life,
            now,
            limits,
        );
        // The reverse path this copy set up or refreshed, if any.
        let reverse = match offer {
            Offer::Replaced | Offer::Added | Offer::Refreshed => Some((from, first_hop)),
            // Not a new disjoint path, or no room: no reverse path, but a
            // first copy is still relayed (ns-2).
            Offer::Rejected(Reject::NotDisjoint | Reject::Full) => None,
            Offer::Rejected(_) => return,
        };
        self.route_found(now, base.orig, ctx);

        if base.dst == self.me {
            if self.cfg.ns2_target_replies {
                // ns-2.35 answers what its filter let through: a copy with
                // no room for its path, and one whose first hop a kept path
                // no shorter than it ends with, as well.
                let answered = match offer {
                    Offer::Replaced | Offer::Added | Offer::Refreshed => true,
                    Offer::Rejected(Reject::Full) => true,
                    Offer::Rejected(Reject::NotDisjoint) => {
                        self.routes.get(base.orig).is_some_and(|e| {
                            e.paths.iter().any(|p| {
                                p.last_hop == first_hop
                                    && base.hop_count.saturating_add(1) <= p.hops
                            })
                        })
                    }
                    Offer::Rejected(_) => false,
                };
                if !answered {
                    return;
                }
            } else {
                let Some(rev) = reverse else {
                    return;
                };
                let Some(rec) = self.rreqs.get_mut(base.orig, base.rreq_id, now) else {
                    return;
                };
                if rec.reverse_used.contains(&rev) {
                    return; // this path was answered already
                }
                rec.reverse_used.push(rev);
            }
            if !base.unknown_seqno && seq_newer(base.dst_seqno, self.seqno) {
                self.seqno = base.dst_seqno.wrapping_add(1);
            }
            if !self.seqno.is_multiple_of(2) {
                self.seqno = self.seqno.wrapping_add(1);
            }
            let life_ms = (self.cfg.my_route_timeout / NS_PER_MS) as u32;
            let rp = AomdvRrep {
                base: RrepRepr::new(0, self.me, self.seqno, base.orig, life_ms),
                rreq_id: base.rreq_id,
                first_hop: from,
            };
            let p = self.control(base.orig, self.cfg.net_diameter, rp.to_bytes());
            ctx.originate(p, from, "rrep", false);
            return;
        }

        let fresh = !base.dest_only
            && self.routes.get(base.dst).is_some_and(|e| {
                e.is_up(now)
                    && e.valid_seqno
                    && (base.unknown_seqno || !seq_newer(base.dst_seqno, e.seqno))
            });
        if fresh {
            // An intermediate reply: an unused forward path along an unused
            // reverse path.
            if let Some(rev) = reverse {
                self.reply_from_route(now, base, rev, ctx);
            }
            return;
        }
        if duplicate {
            return;
        }
        if ip_ttl <= 1 {
            // ns-2.35 drops it here, as it would have gone on, with a
            // trace line (this node's hop count and sequence number as
            // they stand, nothing fixed for the line).
            ctx.expired(|| {
                let mut out = rq;
                out.base.hop_count = self
                    .routes
                    .get(base.orig)
                    .filter(|e| e.is_up(now))
                    .map_or(base.hop_count.saturating_add(1), |e| e.would_advertise());
                if let Some(e) = self.routes.get(base.dst).filter(|e| e.valid_seqno) {
                    if base.unknown_seqno || seq_newer(e.seqno, base.dst_seqno) {
                        out.base.dst_seqno = e.seqno;
                        out.base.unknown_seqno = false;
                    }
                }
                let mut p = self.control(BROADCAST, 0, out.to_bytes());
                p.uid = packet.uid;
                p
            });
            return;
        }
        // Relay the first copy with this node's advertised hop count.
        let mut out = rq;
        out.first_hop = match self.cfg.disjoint {
            Disjoint::Link => first_hop,
            // The last hop of the primary reverse path (ns-2.35).
            Disjoint::Node => self
                .routes
                .get(base.orig)
                .and_then(|e| e.primary(now))
                .map_or(first_hop, |p| p.last_hop),
        };
        out.base.hop_count = match self.routes.up_mut(base.orig, now) {
            Some(e) => e.advertise(),
            None => base.hop_count.saturating_add(1),
        };
        if let Some(e) = self.routes.get(base.dst).filter(|e| e.valid_seqno) {
            if base.unknown_seqno || seq_newer(e.seqno, base.dst_seqno) {
                out.base.dst_seqno = e.seqno;
                out.base.unknown_seqno = false;
            }
        }
        let mut p = self.control(BROADCAST, ip_ttl - 1, out.to_bytes());
        // The same packet goes on, as ns-2.35's `forward` sends it.
        p.uid = packet.uid;
        self.broadcast_jittered(now, Rebroadcast::new(p, "rreq", true), ctx);
    }

    /// Answers `rq` from this node's route to its destination, over the
    /// reverse path `rev`, with a forward path not yet advertised for it.
    fn reply_from_route(
        &mut self,
        now: SimTime,
        rq: RreqRepr,
        rev: (NodeId, NodeId),
        ctx: &mut RoutingCtx,
    ) {
        let Some(rec) = self.rreqs.get_mut(rq.orig, rq.rreq_id, now) else {
            return;
        };
        let Some(e) = self.routes.up_mut(rq.dst, now) else {
            return;
        };
        let fwd = match self.cfg.disjoint {
            Disjoint::Link => {
                let Some(fwd) = e
                    .paths
                    .iter()
                    .copied()
                    .find(|p| !rec.forward_used.contains(&(p.next_hop, p.last_hop)))
                else {
                    return;
                };
                if !rec.claim(rev, (fwd.next_hop, fwd.last_hop)) {
                    return;
                }
                fwd
            }
            // One answer per request, with the primary path.
            Disjoint::Node => {
                let Some(fwd) = e.primary(now).copied() else {
                    return;
                };
                if std::mem::replace(&mut rec.answered, true) {
                    return;
                }
                fwd
            }
        };
        e.report_break = true;
        let life_ms = (fwd.expire.saturating_sub(now) / NS_PER_MS) as u32;
        let rp = AomdvRrep {
            base: RrepRepr::new(e.advertise(), rq.dst, e.seqno, rq.orig, life_ms),
            rreq_id: rq.rreq_id,
            first_hop: fwd.last_hop,
        };
        let p = self.control(rq.orig, self.cfg.net_diameter, rp.to_bytes());
        ctx.originate(p, rev.0, "rrep", false);
    }

    fn on_rrep(
        &mut self,
        now: SimTime,
        from: NodeId,
        packet: &Packet,
        rp: AomdvRrep,
        ctx: &mut RoutingCtx,
    ) {
        let base = rp.base;
        let limits = self.cfg.limits();
        if packet.dst == BROADCAST && base.dst == from && base.hop_count == 0 {
            // A HELLO: a one-hop path to the neighbour, for the lifetime it
            // carries.
            let until = now + base.lifetime_ms as SimTime * NS_PER_MS;
            if self.cfg.link_detection == LinkDetection::Hello {
                self.hello_heard(now, from);
            }
            let me = self.me;
            self.routes
                .offer(from, base.dst_seqno, 0, from, me, until, now, limits);
            self.route_found(now, from, ctx);
            return;
        }
        if base.dst == self.me {
            return;
        }
        let expire = now + base.lifetime_ms as SimTime * NS_PER_MS;
        let offer = self.routes.offer(
            base.dst,
            base.dst_seqno,
            base.hop_count,
            from,
            rp.first_hop,
            expire,
            now,
            limits,
        );
        if !offer.accepted() {
            return;
        }
        self.route_found(now, base.dst, ctx);
        if packet.dst == self.me || packet.ttl <= 1 {
            return;
        }
        // Relay towards the originator along a reverse path not used yet
        // for this request.
        let Some(rec) = self.rreqs.get_mut(base.orig, rp.rreq_id, now) else {
            return;
        };
        let Some(rev_entry) = self.routes.up_mut(base.orig, now) else {
            return;
        };
        let node = self.cfg.disjoint == Disjoint::Node;
        let rev = if node {
            // One RREP per request, over the primary reverse path.
            if rec.answered {
                return;
            }
            let Some(rev) = rev_entry.paths.iter_mut().find(|p| p.expire > now) else {
                return;
            };
            rec.answered = true;
            rev
        } else {
            let Some(rev) = rev_entry
                .paths
                .iter_mut()
                .find(|p| !rec.reverse_used.contains(&(p.next_hop, p.last_hop)))
            else {
                return;
            };
            if !rec.claim((rev.next_hop, rev.last_hop), (from, rp.first_hop)) {
                return;
            }
            rev
        };
        rev.expire = rev.expire.max(now + self.cfg.active_route_timeout);
        let rev_hop = rev.next_hop;
        let e = self.routes.entry(base.dst, now);
        e.report_break = true;
        let mut out = rp;
        out.base.hop_count = e.advertise();
        if node {
            // The last hop of this node's primary path to the destination.
            if let Some(p) = e.primary(now) {
                out.first_hop = p.last_hop;
            }
        }
        let mut p = self.control(packet.dst, packet.ttl - 1, out.to_bytes());
        // Passed on with the IP source of the node that answered, as
        // ns-2.35's `forwardReply` sends the packet it got (so its trace,
        // and manetsim's ns-2 trace, read `f`); nothing reads it.
        p.src = packet.src;
        p.uid = packet.uid;
        ctx.relay(p, rev_hop, "rrep");
    }

    fn on_rerr(&mut self, now: SimTime, from: NodeId, re: RerrRepr, ctx: &mut RoutingCtx) {
        let mut relay = Vec::new();
        for (d, s) in re.unreachable {
            let Some(e) = self.routes.up_mut(d, now) else {
                continue;
            };
            if seq_newer(e.seqno, s) || !e.remove_path(from) {
                continue;
            }
            if seq_newer(s, e.highest_seqno_heard) {
                e.highest_seqno_heard = s;
            }
            if e.paths.is_empty() {
                e.go_down();
                if std::mem::take(&mut e.report_break) {
                    relay.push((d, e.seqno));
                }
            }
        }
        if !relay.is_empty() {
            self.send_rerr(now, relay, true, ctx);
        }
    }

    /// A HELLO from `from` (ns-2.35's `recvHello`): a new neighbour is
    /// kept ALLOWED_HELLO_LOSS HELLO intervals, a known one 1.5 times as
    /// long, and it is found lost on the first purge tick (every
    /// HELLO_INTERVAL from the agent's start) at or after that.
    fn hello_heard(&mut self, now: SimTime, from: NodeId) {
        let i = self.cfg.hello_interval.max(1);
        let loss = self.cfg.allowed_hello_loss as SimTime;
        let keep = if self.neighbors.contains(from) {
            loss * i * 3 / 2
        } else {
            loss * i
        };
        let expire = now + keep;
        let ticks = (expire - self.started).div_ceil(i);
        self.neighbors.heard(from, self.started + ticks * i);
    }

    /// A HELLO goes only from a node with a live route (ns-2.35); the
    /// next check is 0.75 to 1.25 HELLO intervals later.
    fn hello_tick(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        if self.routes.any_up(now) {
            self.send_hello(ctx);
        }
        let next = neighbors::next_hello_check(now, self.cfg.hello_interval, ctx.rng);
        self.timers.push(next, Timer::Hello);
    }

    fn send_hello(&mut self, ctx: &mut RoutingCtx) {
        // (1 + ALLOWED_HELLO_LOSS) intervals, as ns-2.35.
        let life_ms = ((1 + self.cfg.allowed_hello_loss as SimTime) * self.cfg.hello_interval
            / NS_PER_MS) as u32;
        let rp = AomdvRrep {
            base: RrepRepr::new(0, self.me, self.seqno, self.me, life_ms),
            rreq_id: 0,
            first_hop: self.me,
        };
        let p = if self.cfg.ns2_message_sizes {
            Packet::control(self.me, BROADCAST, 1, 0, short_hello(&rp.base))
        } else {
            self.control(BROADCAST, 1, rp.to_bytes())
        };
        ctx.originate(p, BROADCAST, "hello", false);
    }
}

impl RoutingProtocol for Aomdv {
    fn name(&self) -> &'static str {
        "aomdv"
    }

    fn start(&mut self, now: SimTime, _ctx: &mut RoutingCtx) {
        self.now = now;
        self.started = now;
        if self.cfg.link_detection == LinkDetection::Hello {
            // ns-2.35 checks at once (a node starts with no route, so
            // sends nothing), then every 0.75 to 1.25 intervals.
            self.timers.push(now, Timer::Hello);
        }
    }

    fn route_output(&mut self, now: SimTime, mut packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        if packet.src == self.me && packet.hops == 0 {
            // ns-2.35's AOMDV, as its AODV, gives the packets it
            // originates an IP TTL of NETWORK_DIAMETER (30).
            packet.ttl = self.cfg.net_diameter;
        }
        let dst = packet.dst;
        if self.routes.up_mut(dst, now).is_some() {
            self.forward_data(now, packet, ctx);
        } else if packet.src == self.me {
            self.queue.hold(now, packet, ctx);
            self.start_discovery(now, dst, ctx);
        } else {
            // A relay without a route: tell the upstream nodes, at most
            // once a second per destination (ns-2.35: every time).
            let e = self.routes.entry(dst, now);
            let recent = self.cfg.rerr_limits && e.last_rerr.is_some_and(|t| t + NS_PER_S > now);
            let s = e.seqno;
            if !recent {
                self.send_rerr(now, vec![(dst, s)], false, ctx);
            }
            ctx.drop_packet(packet, DropReason::NoRoute);
        }
    }

    fn on_control(&mut self, now: SimTime, from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        self.now = now;
        let Ok(msg) = Message::parse(packet.body()) else {
            return;
        };
        match msg {
            Message::Rreq(rq) => self.on_rreq(now, from, &packet, rq, ctx),
            Message::Rrep(rp) => self.on_rrep(now, from, &packet, rp, ctx),
            Message::Rerr(re) => self.on_rerr(now, from, re, ctx),
        }
    }

    /// With HELLO detection a lost neighbour's queued packets all come
    /// back, control packets too, as ns-2.35's `nb_delete` takes every
    /// packet for it out of the queue (`PriQueue::filter`).
    fn reroutes_control(&self) -> bool {
        self.cfg.link_detection == LinkDetection::Hello
    }

    /// A packet the interface queue held for a lost neighbour. With HELLO
    /// detection, as ns-2.35's `nb_delete` does with what its filter
    /// returns: data goes over another path of a route still up and is
    /// dropped otherwise (no buffering at the source, no RERR), control
    /// packets are dropped. With MAC feedback it is routed again.
    fn on_reroute(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, ctx: &mut RoutingCtx) {
        self.now = now;
        if self.cfg.link_detection != LinkDetection::Hello {
            self.route_output(now, packet, ctx);
        } else if !packet.is_control() && self.routes.up_mut(packet.dst, now).is_some() {
            self.forward_data(now, packet, ctx);
        } else {
            ctx.drop_for_lost_neighbour(packet, next_hop);
        }
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        self.now = now;
        let packet = match packet {
            Some(p) if p.is_control() || self.cfg.link_detection == LinkDetection::Hello => {
                ctx.drop_packet(p, DropReason::RetryLimit);
                None
            }
            other => other,
        };
        if self.cfg.link_detection == LinkDetection::Hello {
            return;
        }
        self.link_broken(now, next_hop, ctx);
        if let Some(p) = packet {
            // Fail over to the next path (or buffer and discover at the source).
            self.route_output(now, p, ctx);
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
                    if self.discoveries.get(&dst).map(|d| d.generation) == Some(generation) {
                        self.on_discovery_timeout(now, dst, ctx);
                    }
                }
                Timer::Hello => self.hello_tick(now, ctx),
            }
        }
        self.queue.drop_expired(now, ctx);
        for nb in self.neighbors.expire(now) {
            // The set of neighbours changed (ns-2.35's `nb_delete`).
            self.seqno = self.seqno.wrapping_add(2);
            self.link_broken(now, nb, ctx);
        }
    }

    fn buffered(&self) -> u64 {
        self.queue.len() as u64
    }

    fn route_discoveries(&self) -> u64 {
        self.discoveries_started
    }

    fn hop_count(&self, dst: NodeId, now: SimTime) -> Option<u32> {
        self.routes
            .get(dst)
            .and_then(|e| e.primary(now))
            .map(|p| p.hops as u32)
    }
}

#[cfg(test)]
mod tests;
