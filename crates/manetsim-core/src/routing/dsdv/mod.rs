//! DSDV, Destination-Sequenced Distance-Vector routing (Perkins & Bhagwat,
//! SIGCOMM 1994), with ns-2.35's defaults and behaviour.
//!
//! This file is the agent; [`route_table`] holds the routes and the rules
//! for believing an advertised one, [`advertise`] builds updates and decides
//! when they go, [`buffer`] keeps data waiting for a route. The message
//! layout is in [`crate::wire::dsdv`] (12 bytes per route, carried directly
//! in IP: an update listing `n` routes is `20 + 12 n` bytes, as ns-2 counts
//! it).
//!
//! # Behaviour
//!
//! - **Sequence numbers.** A node's own number is even and grows by 2 with
//!   each full dump it sends. A route learnt with a newer number is believed
//!   whatever its metric; with the same number only a shorter metric
//!   replaces it; an older number is ignored, except that a neighbour
//!   advertising an older *broken* route for a destination we reach gets
//!   our route in an immediate incremental update (ns-2's "educate" rule).
//! - **Broken links.** A neighbour that sends no update for
//!   `min_update_periods × periodic_update_interval` (3 × 15 s) is lost;
//!   every route through it gets metric ∞ ([`crate::wire::dsdv::INFINITY`],
//!   250) and its sequence number + 1 (odd), and an incremental update goes
//!   at once. A node told that it is itself unreachable sends a full dump at
//!   once (the CMU optimisation ns-2 keeps). With
//!   [`DsdvConfig::mac_feedback`] on (ns-2's `use_mac_`), a MAC retry
//!   failure breaks the link the same way and the failed packet is routed
//!   again (buffered); with it off (ns-2's default) the failed packet is
//!   dropped (`retry_limit`) and only missed updates break links.
//! - **Settling time.** For each destination a weighted average settling
//!   time (wst; α = 0.875, initial 6 s) tracks how long after a new sequence
//!   number first arrives its best route arrives. A route whose metric was
//!   learnt from a working route is not advertised until `2 × wst` after it
//!   was learnt: neither in incremental updates nor in full dumps (ns-2
//!   leaves such routes out of full dumps too). Routes that become
//!   unreachable are advertised at once.
//! - **Updates.** Full dumps every 15 s × U(0.75, 1), the first within 2 s
//!   of the start; incremental updates are triggered by a new destination, a
//!   shorter metric or a broken link, at least 1 s apart, and become full
//!   dumps when more than a third of the table changed (see [`advertise`]).
//!   Like ns-2, a newer sequence number alone triggers nothing (its
//!   `TRIGGER_UPDATE_ON_FRESH_SEQNUM` is off): even a broken route heard
//!   from a neighbour waits for the next update this node sends. Each update
//!   leaves after a uniform 0–10 ms jitter.
//! - **Data without a route** (a destination never heard of, or one whose
//!   route is broken) is held in a queue of 5 packets per destination, the
//!   oldest dropped when full (`route_buffer_full`), with no time limit
//!   (ns-2's `MAX_QUEUE_LENGTH`); an update that brings a route sends them.
//!   Relays buffer too, as in ns-2.
//!
//! # Consequences worth knowing (ns-2.35 shows them too)
//!
//! - A new route is passed on one settling delay (2 × 6 s at first) per
//!   hop: a destination `h` hops away is known after about 12 (h − 1) s
//!   plus the start-up jitter (48–50 s on a 6-node chain, 85–97 s across a
//!   5 × 5 grid, in manetsim and in ns-2.35 alike).
//! - Because a fresh sequence number triggers nothing and an unsettled route
//!   is left out of full dumps, a route whose updates always arrive a little
//!   before the relay's own dumps can go unadvertised for a long time, until
//!   the settling time has decayed (each new number multiplies it by 0.875).
//!   On the 6-node chain with CBR both ways, the route from 5 back to 0
//!   converged at 48–145 s over 24 seeds (ns-2.35: 0 → 5 at 48–91 s).
//! - Every route has its own trigger, and a triggered update does not clear
//!   the "new metric" marks, so routes learnt together often produce two
//!   incremental updates 1 s apart with the same content.
//!
//! # Differences from ns-2.35 and not implemented
//!
//! - ns-2 keeps the packet it builds at the trigger or periodic instant and
//!   sends it after the jitter; so does this agent. Its trigger events are
//!   per route, as here; same-instant triggers fire in destination order.
//! - ns-2's randomisation switch (`be_random_`), its wired/base-station
//!   extensions (`diff_subnet`) and the MAC feedback's scenario key are not
//!   modelled: a scenario runs DSDV with [`DsdvConfig::default`] (ns-2's
//!   defaults, MAC feedback off).
//! - Updates are not split when they exceed an MTU (neither are ns-2's).

pub mod advertise;
pub mod buffer;
pub mod route_table;

use crate::engine::{SimTime, NS_PER_MS, NS_PER_S};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, RoutingCtx, RoutingProtocol, BROADCAST};
use crate::routing::timers::TimerQueue;
use crate::wire::dsdv::UpdateRepr;
use advertise::{defer_triggers, make_update, periodic_wait, UpdateKind};
use buffer::RouteBuffer;
use route_table::{Learned, RouteTable};
use std::rc::Rc;

/// Protocol parameters; `Default` is ns-2.35's `Agent/DSDV` defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct DsdvConfig {
    /// `perup_`: mean spacing of full dumps (15 s; each wait is U(0.75, 1) × this).
    pub periodic_update_interval: SimTime,
    /// `min_update_periods_`: update periods a neighbour may stay silent (3).
    pub min_update_periods: u32,
    /// `wst0_`: settling time of a newly heard destination (6 s).
    pub initial_settling_time: SimTime,
    /// `alpha_`: weight of the old settling time in the average (0.875).
    pub settling_alpha: f64,
    /// `DSDV_MIN_TUP_PERIOD`: least spacing of triggered updates (1 s).
    pub min_triggered_interval: SimTime,
    /// `DSDV_STARTUP_JITTER`: the first full dump is within this of start (2 s).
    pub startup_jitter: SimTime,
    /// `DSDV_BROADCAST_JITTER`: each update waits U(0, this) (10 ms).
    pub broadcast_jitter: SimTime,
    /// `use_mac_`: a MAC retry failure breaks the link (ns-2: off).
    pub mac_feedback: bool,
    /// `MAX_QUEUE_LENGTH`: data packets held per destination (5).
    pub queue_per_destination: usize,
    /// ns-2's base-station forwarding (`gateway.forwarding =
    /// "base_station"`): a packet for an Internet host whose source knows
    /// no route to the gateway is dropped (`no_route`), not held, as
    /// ns-2.35's `forwardPacket` frees it ("Route to base_stn not known").
    pub drop_internet_without_route: bool,
}

impl Default for DsdvConfig {
    fn default() -> Self {
        Self {
            periodic_update_interval: 15 * NS_PER_S,
            min_update_periods: 3,
            initial_settling_time: 6 * NS_PER_S,
            settling_alpha: 0.875,
            min_triggered_interval: NS_PER_S,
            startup_jitter: 2 * NS_PER_S,
            broadcast_jitter: 10 * NS_PER_MS,
            mac_feedback: false,
            queue_per_destination: 5,
            drop_internet_without_route: false,
        }
    }
}

impl DsdvConfig {
    /// How long a neighbour may stay silent before it is lost.
    pub fn neighbour_hold(&self) -> SimTime {
        self.min_update_periods as SimTime * self.periodic_update_interval
    }
}

/// An update built and waiting out its broadcast jitter.
#[derive(Debug, Clone)]
struct PendingSend {
    packet: Packet,
    message: &'static str,
}

/// One node's DSDV agent.
#[derive(Debug, Clone)]
pub struct Dsdv {
    /// Shared by every node's agent (one copy, not one per node).
    cfg: Rc<DsdvConfig>,
    me: NodeId,
    /// This node's own sequence number (even).
    seqno: u32,
    routes: RouteTable,
    buffer: RouteBuffer,
    /// When the next full dump is due (`None` before `start`).
    next_full: Option<SimTime>,
    /// When the last update (of either kind) was built.
    last_update_at: Option<SimTime>,
    sends: TimerQueue<PendingSend>,
}

impl Dsdv {
    /// Whether a MAC retry failure breaks the link (ns-2's `use_mac_`).
    pub fn mac_feedback(&self) -> bool {
        self.cfg.mac_feedback
    }

    /// `cfg`: a [`DsdvConfig`], or an `Rc` of one the agents of a network share.
    pub fn new(me: NodeId, cfg: impl Into<Rc<DsdvConfig>>) -> Self {
        let cfg = cfg.into();
        Self {
            buffer: RouteBuffer::new(cfg.queue_per_destination),
            cfg,
            me,
            seqno: 0,
            routes: RouteTable::default(),
            next_full: None,
            last_update_at: None,
            sends: TimerQueue::default(),
        }
    }

    pub fn config(&self) -> &DsdvConfig {
        &self.cfg
    }

    /// The route table (for tests and inspection).
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// This node's own sequence number.
    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    /// Builds an update (full when asked, or when much changed) and sends it
    /// after the broadcast jitter. Returns the kind sent, if any.
    fn send_update(
        &mut self,
        now: SimTime,
        full: bool,
        ctx: &mut RoutingCtx,
    ) -> Option<UpdateKind> {
        let (kind, update) = make_update(&mut self.routes, self.me, &mut self.seqno, full, now)?;
        let packet = Packet::control(self.me, BROADCAST, 1, 0, update.to_bytes());
        let jitter = if self.cfg.broadcast_jitter > 0 {
            ctx.rng.below(self.cfg.broadcast_jitter)
        } else {
            0
        };
        self.sends.push(
            now + jitter,
            PendingSend {
                packet,
                message: kind.message(),
            },
        );
        Some(kind)
    }

    fn full_dump(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.send_update(now, true, ctx);
        self.next_full = Some(now + periodic_wait(&self.cfg, ctx.rng));
        self.last_update_at = Some(now);
    }

    /// The trigger of route `dst` fired.
    fn triggered(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        if let Some(last) = self.last_update_at {
            let next_possible = last + self.cfg.min_triggered_interval;
            if now < next_possible {
                defer_triggers(&mut self.routes, dst, next_possible);
                return;
            }
        }
        if let Some(r) = self.routes.get_mut(dst) {
            r.trigger_at = None;
        }
        if let Some(kind) = self.send_update(now, false, ctx) {
            if kind == UpdateKind::Full {
                self.next_full = Some(now + periodic_wait(&self.cfg, ctx.rng));
            }
            self.last_update_at = Some(now);
        }
    }

    /// The link to neighbour `nb` is gone (missed updates or MAC feedback).
    fn link_broken(&mut self, now: SimTime, nb: NodeId) {
        self.routes.break_link(nb, now);
    }

    /// Sends what waits for `dst` if a route to it now works.
    fn flush(&mut self, now: SimTime, dst: NodeId, ctx: &mut RoutingCtx) {
        if self.routes.reachable(dst).is_some() && self.buffer.has(dst) {
            for p in self.buffer.take(dst) {
                self.route_output(now, p, ctx);
            }
        }
    }

    fn on_update(&mut self, now: SimTime, from: NodeId, update: UpdateRepr, ctx: &mut RoutingCtx) {
        for e in update.entries {
            match self.routes.learn(self.me, from, e, now, &self.cfg) {
                Learned::SelfBroken => {
                    // "You have the last word on yourself": a full dump now.
                    if self.next_full.is_some() {
                        self.next_full = Some(now);
                    }
                }
                Learned::Installed => self.flush(now, e.dst, ctx),
                Learned::Ignored | Learned::Educate => {}
            }
        }
        let hold = self.cfg.neighbour_hold();
        self.routes.heard(from, now, hold, &self.cfg);
    }
}

impl RoutingProtocol for Dsdv {
    fn name(&self) -> &'static str {
        "dsdv"
    }

    fn start(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        self.routes.set_own(self.me, self.seqno, now);
        self.seqno += 2;
        let jitter = ctx.rng.below(self.cfg.startup_jitter.max(1));
        self.next_full = Some(now + jitter);
    }

    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingCtx) {
        if let Some(r) = self.routes.reachable(packet.dst) {
            let h = r.next_hop;
            ctx.send(packet, h);
            return;
        }
        self.routes
            .add_unreachable_entry(packet.dst, now, &self.cfg);
        if let Some(old) = self.buffer.push(packet) {
            ctx.drop_packet(old, DropReason::RouteBufferFull);
        }
    }

    fn route_to_internet(
        &mut self,
        now: SimTime,
        packet: Packet,
        _host: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        if self.cfg.drop_internet_without_route && self.routes.reachable(packet.dst).is_none() {
            ctx.drop_packet(packet, DropReason::NoRoute);
            return;
        }
        self.route_output(now, packet, ctx);
    }

    fn on_control(&mut self, now: SimTime, from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        if from == self.me {
            return;
        }
        if let Ok(update) = UpdateRepr::parse(packet.body()) {
            self.on_update(now, from, update, ctx);
        }
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        let known = self.routes.get(next_hop).is_some();
        if !self.cfg.mac_feedback || !known {
            if let Some(p) = packet {
                ctx.drop_packet(p, DropReason::RetryLimit);
            }
            return;
        }
        self.link_broken(now, next_hop);
        match packet {
            Some(p) if p.is_control() => ctx.drop_packet(p, DropReason::RetryLimit),
            Some(p) => self.route_output(now, p, ctx),
            None => {}
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.next_full,
            self.sends.next_deadline(),
            self.routes.next_trigger().map(|t| t.0),
            self.routes.next_timeout().map(|t| t.0),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_timeout(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        loop {
            // The earliest due event: neighbour timeouts, then full dumps,
            // then triggers, at equal times.
            let timeout = self.routes.next_timeout().filter(|t| t.0 <= now);
            let full = self.next_full.filter(|&t| t <= now);
            let trigger = self.routes.next_trigger().filter(|t| t.0 <= now);
            let earliest = [timeout.map(|t| t.0), full, trigger.map(|t| t.0)]
                .into_iter()
                .flatten()
                .min();
            let Some(at) = earliest else { break };
            if timeout.is_some_and(|t| t.0 == at) {
                let nb = timeout.expect("checked").1;
                self.link_broken(now, nb);
            } else if full == Some(at) {
                self.full_dump(now, ctx);
            } else {
                let dst = trigger.expect("one is due").1;
                self.triggered(now, dst, ctx);
            }
        }
        while let Some((_, s)) = self.sends.pop_due(now) {
            ctx.originate(s.packet, BROADCAST, s.message, false);
        }
    }

    fn buffered(&self) -> u64 {
        self.buffer.len() as u64
    }

    fn hop_count(&self, dst: NodeId, _now: SimTime) -> Option<u32> {
        self.routes.reachable(dst).map(|r| r.metric as u32)
    }
}

#[cfg(test)]
mod tests;
