//! The world: wires a scenario into nodes (PHY + MAC + queue + routing),
//! traffic sources and the channel, then runs the event loop.
//!
//! The world owns the event queue and dispatches events to the protocol state
//! machines, which answer with actions; the world applies them (schedules
//! timers, puts frames on the channel, forwards packets, keeps the ledger).
//!
//! Receptions mostly do not go through the queue. A frame's start at a
//! receiver only freezes what its MAC would do next, and most frames a node
//! hears are ones it only overhears (not addressed to it, or too weak to
//! decode), whose end changes nothing but its receive state, NAV and
//! counters. Each node keeps a list of these starts and ends, and its MAC is
//! handed them, in order and at their own times, just before the node's next
//! event (see `LazyRx`): the end of a frame it decodes for itself is one, and
//! a node with a backoff also gets a `Sync` event after each overheard end
//! (where the backoff may resume), unless its next act is a timer of its own
//! that overheard frames can only delay (a backoff counting down, or one that
//! resumes as the NAV expires: [`Dcf::acts_on_overheard_end`]). That
//! `Sync` comes as late as the MAC's soonest act allows: a frame's end
//! leaves the medium reserved for the NAV it sets at the least (EIFS after
//! a failure, else its duration field: [`Dcf::least_nav_after`]), and a
//! paused backoff then waits DIFS and its remaining slots
//! ([`Dcf::overheard_end_slack`]). If another frame has started by then,
//! the one event finds the backoff paused again, where a `Sync` at the end
//! would have armed a timer that fires for nothing; the frames of an
//! RTS/CTS exchange, all under one NAV, are handed over together. A MAC
//! without a backoff (waiting for a response, a SIFS or its own
//! transmission's end) needs no `Sync`: an overheard end cannot make it act. The MAC sees the
//! same calls at the same simulated times, in the same order, as it would
//! with one event per start and end; `tests.rs` checks that both ways give
//! identical results.
//!
//! At one instant, the queue hands out reception ends first, then every
//! other event in the order it was scheduled, then reception starts
//! ([`Class`]): a frame is over at its last nanosecond, and a frame that
//! starts arriving as a backoff expires is not sensed by it (two stations
//! whose backoffs end in the same slot both transmit). With `[mac]
//! tie_rule = "ns2"`, events after the ends go by where they fall within
//! the nanosecond first ([`Phase`]: each reception keeps what rounding its
//! propagation delay took away, and what it sets off inherits that), as
//! ns-2.35's clock of doubles orders them.
//!
//! Promiscuous overhearing: a node whose routing agent asks for it
//! ([`RoutingProtocol::wants_promiscuous`], e.g. DSR for its gratuitous
//! route replies) gets a promiscuous MAC, which hands decoded data frames
//! (and, if [`RoutingProtocol::overhears_control`], unicast control
//! frames) for other nodes up as `MacAction::Overheard`; the world passes them to
//! the agent's `on_overheard`. Such frames ([`Frame::tappable`], strong
//! enough to decode) stay events at a promiscuous node, never lazy
//! receptions, since their end may make the agent act at that very time.
//! Without a promiscuous agent nothing changes.
//!
//! A MAC failure: the routing agent hears of it at once and takes the
//! packets queued for the lost neighbour out (`RoutingAction::Reroute`),
//! but what it sends in reaction (a route error, salvaged packets) is
//! queued only after the MAC has taken its next packet, as in ns-2.35,
//! whose agents schedule those sends as events after the failure's. A
//! route error thus never overtakes the packet the queue was about to
//! hand over, even from a band of the queue that is served first.

mod bit_errors;
mod build;
mod floods;
#[cfg(any(test, feature = "parallel-probe"))]
pub mod parallel;
mod sctp;
mod tcp;
mod tfrc;
mod wired;

use crate::app::Cbr;
use crate::energy::Battery;
use crate::engine::{
    from_secs, phase_of, phase_of_remainder, place, prefetch, prefetch_raw, seq_of, tie_key_at,
    to_secs, Class, EventQueue, Phase, Place, Rng, SimTime, TieKey, TimerSlot, NS_PER_S,
    PHASE_NEUTRAL,
};
use crate::loss::LossModel;
use crate::mac::{
    least_nav_after, Dcf, Enqueued, Frame, MacAction, MacParams, MacTimer, PriQueue, TxOutcome,
};
use crate::metrics::result::{
    EnergyResult, EnergySeries, FlowResult, HopSeries, Ledger, MacResult, MessageCount,
    MobilityResult, MobilitySeries, NodeResult, RoutingResult, RunResult, SctpSeries, TcpSeries,
    TfrcSeries, TimeSeries,
};
use crate::metrics::{DropReason, FlowStats, PacketLedger};
use crate::mobility::{self, Mobility};
use crate::net::arp::{self, ArpTable, Resolved};
use crate::net::{
    NodeId, Packet, PacketKind, RoutingAction, RoutingCtx, RoutingProtocol, BROADCAST, DEFAULT_TTL,
    IP_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::phy::{propagation_delay_ns, propagation_remainder_ns, Pos, RadioParams, SpatialGrid};
use crate::routing::Router;
use crate::scenario::{AppKind, LossWhere, OnOffDistribution, Scenario};
use crate::trace::ns2::MacFields;
use crate::trace::pcap::{self, DataHeader};
use crate::trace::{Layer, Ns2Trace, PcapTrace};
use floods::{FloodLog, Known};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A run that failed after the scenario was accepted.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot set up the scenario: {0}")]
    Setup(String),
    /// The trace file could not be written.
    #[error("cannot write the ns-2 trace {0}: {1}")]
    Trace(String, String),
    /// A packet capture could not be written.
    #[error("cannot write the packet capture {0}: {1}")]
    Pcap(String, String),
}

/// Runs one scenario to completion and reports its results. With
/// `[output] ns2_trace`, the trace goes to `<name>.tr` in the current
/// directory, and with `[output] pcap` the captures to `<name>-N.pcap`
/// (see [`run_with`]).
pub fn run(scenario: &Scenario) -> Result<RunResult, SimError> {
    run_with(scenario, &Outputs::default())
}

/// [`run`], with `[output] ns2_trace`'s trace written to `trace_path`
/// (when the scenario asks for a trace; `None`: `<name>.tr` in the current
/// directory). The trace appears under its name only once the run is
/// complete.
pub fn run_traced(scenario: &Scenario, trace_path: Option<&Path>) -> Result<RunResult, SimError> {
    run_with(
        scenario,
        &Outputs {
            ns2_trace: trace_path,
            pcap_prefix: None,
        },
    )
}

/// Where the files `[output]` asks for go. `None` puts each in the current
/// directory, named after the scenario.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outputs<'a> {
    /// The ns-2 trace (default `<name>.tr`).
    pub ns2_trace: Option<&'a Path>,
    /// The captures' prefix: node `N`'s is `PREFIX-N.pcap` (default
    /// `<name>`).
    pub pcap_prefix: Option<&'a Path>,
}

/// `<name><suffix>` in the current directory, for a scenario whose name is
/// a plain file name.
fn named_after(scenario: &Scenario, suffix: &str, what: &str) -> Result<PathBuf, String> {
    let name = &scenario.name;
    let plain = !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0']);
    if plain {
        Ok(PathBuf::from(format!("{name}{suffix}")))
    } else {
        Err(format!(
            "the scenario's name is the {what}'s file name in the current directory: \
             no path separators, and not hidden"
        ))
    }
}

/// [`run`], writing the files `[output]` asks for where `outputs` says.
/// Each appears under its name only once the run is complete.
pub fn run_with(scenario: &Scenario, outputs: &Outputs) -> Result<RunResult, SimError> {
    let mut world = build::build(scenario)?;
    if scenario.output.ns2_trace {
        let path = match outputs.ns2_trace {
            Some(p) => p.to_path_buf(),
            None => named_after(scenario, ".tr", "trace")
                .map_err(|why| SimError::Trace(format!("{}.tr", scenario.name), why))?,
        };
        let mss = world
            .tcp
            .iter()
            .map(|t| t.as_ref().map_or(0, |t| t.mss as u64))
            .collect();
        let mut trace = Ns2Trace::create(&path, scenario.routing.protocol, mss)
            .map_err(|e| SimError::Trace(path.display().to_string(), e.to_string()))?;
        trace.set_udp_names(scenario.flows.iter().map(|f| match &f.onoff {
            Some(o) if f.app == AppKind::Onoff => match o.distribution {
                OnOffDistribution::Exponential => "exp",
                OnOffDistribution::Pareto => "pareto",
            },
            _ => "cbr",
        }));
        trace.set_mac(build::mac_params(scenario));
        if let Some(g) = &scenario.gateway {
            trace.set_gateway(world.gateway_view(g));
        }
        world.trace = Some(Box::new(trace));
    }
    if scenario.output.pcap {
        let prefix = match outputs.pcap_prefix {
            Some(p) => p.to_path_buf(),
            None => named_after(scenario, "", "capture")
                .map_err(|why| SimError::Pcap(format!("{}-0.pcap", scenario.name), why))?,
        };
        let nodes = world.nodes.len() as u32;
        let mut encoder = pcap::Encoder::new(scenario.routing.protocol);
        if scenario.output.pcap_radiotap {
            // A standard a run does not support is refused before this.
            let standard = crate::mac::MacStandard::parse(&scenario.mac.standard)
                .unwrap_or(crate::mac::MacStandard::Dsss);
            let mut radiotap = pcap::Radiotap::new(scenario.radio.frequency_hz, standard);
            if scenario.radio.error_model == crate::scenario::ErrorModelKind::Awgn {
                radiotap = radiotap.with_noise(scenario.radio.noise_figure_db);
            }
            encoder = encoder.with_radiotap(radiotap);
        }
        let mut hosts = 0;
        if let Some(g) = &scenario.gateway {
            hosts = g.hosts;
            encoder = encoder.with_gateway(world.gateway_view(g));
        }
        let pcap = PcapTrace::create(&prefix, nodes, hosts, encoder).map_err(|e| {
            SimError::Pcap(
                pcap::capture_path(&prefix, 0).display().to_string(),
                e.to_string(),
            )
        });
        match pcap {
            Ok(p) => world.pcap = Some(Box::new(p)),
            Err(e) => {
                if let Some(t) = world.trace.take() {
                    t.abandon();
                }
                return Err(e);
            }
        }
    }
    if world.bit_errors.is_some() {
        // Every reception an event of its own, so that frames a node
        // overhears can be lost to bit errors too (`before_rx_end`).
        world.overhear_lazily = false;
    }
    if world.trace.is_some() || world.pcap.is_some() {
        // Every reception an event of its own, so that lines and records
        // come in order.
        world.overhear_lazily = false;
        // The RTS, CTS and ACK each MAC accepts are reported too, and the
        // frames lost to collisions, refused, and the duplicates.
        for node in &mut world.nodes {
            node.mac.report_to_trace(true);
        }
    }
    let started = std::time::Instant::now();
    world.run();
    let wall_s = started.elapsed().as_secs_f64();
    let pcap = world.pcap.take();
    if let Some(trace) = world.trace.take() {
        let path = trace.dest().to_path_buf();
        if let Err(e) = trace.finish() {
            if let Some(p) = pcap {
                p.abandon();
            }
            return Err(SimError::Trace(path.display().to_string(), e.to_string()));
        }
    }
    if let Some(p) = pcap {
        let first = p
            .first()
            .map(|f| f.display().to_string())
            .unwrap_or_default();
        p.finish()
            .map_err(|e| SimError::Pcap(first, e.to_string()))?;
    }
    let mut result = world.result(scenario, wall_s);
    let range_m = world.receive_range_m();
    // The world's memory is given back before the mobility metrics take theirs.
    drop(world);
    let (summary, series) = mobility_series(scenario, range_m)?;
    result.mobility = summary;
    result.timeseries.mobility = series;
    Ok(result)
}

/// The scenario's node movements as an ns-2 movement file (`$node_(i) set
/// X_ …` and `$ns_ at t "$node_(i) setdest x y speed"` lines) that makes ns-2
/// move the nodes exactly as manetsim does, up to `duration_s`.
pub fn movements_as_ns2(s: &Scenario) -> Result<String, SimError> {
    let placed = build::placement(s)?;
    let mut m = Mobility::from_scenario(s, &placed).map_err(|e| SimError::Setup(e.to_string()))?;
    Ok(m.write_ns2(from_secs(s.duration_s)))
}

/// Mobility metrics sampled every second (static scenarios: once, at 0),
/// from a fresh copy of the trajectories (identical: same seed and streams).
fn mobility_series(
    s: &Scenario,
    range_m: f64,
) -> Result<(MobilityResult, MobilitySeries), SimError> {
    let placed = build::placement(s)?;
    let mut m = Mobility::from_scenario(s, &placed).map_err(|e| SimError::Setup(e.to_string()))?;
    let end = from_secs(s.duration_s);
    let step = MOBILITY_SAMPLE_NS;
    let times: Vec<SimTime> = if m.is_static() {
        vec![0]
    } else {
        (0..=end / step).map(|k| k * step).collect()
    };
    let samples = mobility::metrics::series(&mut m, &times, range_m);
    let mut out = MobilitySeries::default();
    for x in &samples {
        out.t_s.push(to_secs(x.t));
        out.mean_speed_mps.push(x.average_speed_mps);
        out.mean_degree.push(x.average_degree);
        out.links_up.push(x.links_up as u64);
        out.links_down.push(x.links_down as u64);
    }
    let n = samples.len().max(1) as f64;
    let summary = MobilityResult {
        model: serde_json::to_value(s.mobility.model)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        mean_speed_mps: out.mean_speed_mps.iter().sum::<f64>() / n,
        mean_degree: out.mean_degree.iter().sum::<f64>() / n,
        link_changes: out.links_up.iter().sum::<u64>() + out.links_down.iter().sum::<u64>(),
        sample_interval_s: to_secs(step),
    };
    Ok((summary, out))
}

/// Interval of the mobility time series.
const MOBILITY_SAMPLE_NS: SimTime = NS_PER_S;

/// One engine event. Kept small: it is copied through the heap.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    Mac {
        node: u32,
        timer: MacTimer,
        gen: u32,
    },
    /// (Eager receptions only.) The received power is kept aside, in
    /// `World::eager_power_w`, so that every event fits in 16 bytes.
    RxStart {
        node: u32,
        tx: u32,
        power: u32,
    },
    RxEnd {
        node: u32,
        tx: u32,
    },
    App {
        flow: u32,
    },
    Routing {
        node: u32,
        gen: u32,
    },
    EnergySample,
    /// Node `node` has overheard receptions due now (see [`LazyRx`]).
    Sync {
        node: u32,
    },
    /// A TCP or TFRC timer of flow `flow` (its sender's or receiver's).
    Transport {
        flow: u32,
        receiver: bool,
        gen: u32,
    },
    /// A packet crossing the link layer reaches routing or the interface
    /// queue ([`Parked`], in `World::parked`).
    Link {
        slot: u32,
    },
    /// A gateway's link to host `host` (see [`wired`]): towards the gateway
    /// (`up`) or the host; the packet being sent left (`arrived` false), or
    /// the first propagating one arrived.
    Wire {
        link: u32,
        up: bool,
        arrived: bool,
    },
}

/// Re-arms a TCP or TFRC timer of flow `flow` for `wanted` (cancels it for
/// `None`), unless it is already set for then.
fn rearm_transport(
    q: &mut EventQueue<Event>,
    slot: &mut TimerSlot,
    wanted: Option<SimTime>,
    flow: u32,
    receiver: bool,
) {
    if wanted == slot.deadline() {
        return;
    }
    match wanted {
        Some(at) => {
            let gen = slot.arm(at);
            q.schedule_far(
                at,
                Event::Transport {
                    flow,
                    receiver,
                    gen,
                },
            );
        }
        None => slot.cancel(),
    }
}

/// A packet inside the link layer for `[mac] ll_delay_s` (ns-2.35's `LL`
/// schedules every packet `delay_` later, up to routing and down to the
/// interface queue).
#[derive(Debug)]
enum Parked {
    /// Handed up by node `node`'s MAC, from neighbour `from`.
    Up {
        node: u32,
        from: NodeId,
        packet: Packet,
        /// The frame's MAC header, for the trace's `r RTR` line.
        mac: MacFields,
    },
    /// Sent by node `node`'s routing agent to `next_hop`.
    Down {
        node: u32,
        packet: Packet,
        next_hop: NodeId,
    },
}

/// A frame on the air, shared by all its receivers until the last one is done.
struct OnAir {
    frame: Frame,
    airtime_ns: SimTime,
    pending: u32,
    /// The transmission's unique number, by which MACs tell receptions apart
    /// (the slot in `World::air` is reused, this number is not).
    serial: u32,
}

/// A reception waiting in its node's list: the whole of a frame the node
/// only overhears (not addressed to it, or too weak to decode), or the start
/// of any other (`start_only`).
///
/// An overheard frame only changes the node's receive state, NAV and
/// counters, and any start only freezes what the MAC would do next, so
/// instead of events in the queue they are handed to the MAC, in order and
/// with their own times, when the node next needs its MAC: at any event of
/// the node, which first replays every start and end that its event would
/// have followed. A node whose MAC has a backoff also gets a `Sync` event
/// after each overheard end, where the backoff may resume (as late as its
/// soonest act allows: [`Dcf::least_nav_after`] and
/// [`Dcf::overheard_end_slack`]), unless it waits for a timer of its own
/// ([`Dcf::acts_on_overheard_end`]).
///
/// Each reception carries the sequence number its events would have had, so
/// the MAC sees the same calls, at the same times and in the same order, as
/// with one event per start and end (the queue's [`Class`] orders a start
/// after, and an end before, everything else at the same instant).
#[derive(Debug, Clone, Copy)]
struct LazyRx {
    start: SimTime,
    end: SimTime,
    duration_ns: SimTime,
    power_w: f64,
    /// The sequence number of its start event (its end event shares it).
    seq: u64,
    serial: u32,
    ra: NodeId,
    /// Where within their nanoseconds its start and end fall (`[mac]
    /// tie_rule`; see [`Phase`]).
    phase: Phase,
    started: bool,
    /// Only the start waits here: the end is an `RxEnd` event, as the MAC
    /// acts on frames it decodes for itself (and on any frame for a
    /// promiscuous MAC or an injected loss model).
    start_only: bool,
}

impl LazyRx {
    fn start_key(&self) -> (SimTime, TieKey) {
        (self.start, tie_key_at(Class::RxStart, self.phase, self.seq))
    }

    fn end_key(&self) -> (SimTime, TieKey) {
        (self.end, tie_key_at(Class::RxEnd, self.phase, self.seq))
    }

    /// When a paused backoff must hear this frame's end at the latest: past
    /// the least NAV it sets ([`least_nav_after`] with the run's
    /// [`Dcf::nav_rule`]) and the MAC's [`Dcf::overheard_end_slack`].
    fn sync_instant(
        &self,
        (eifs_ns, rx_threshold_w): (SimTime, f64),
        slack_ns: SimTime,
    ) -> Instant {
        let (end, key) = self.end_key();
        let nav_ns = least_nav_after(eifs_ns, rx_threshold_w, self.power_w, self.duration_ns);
        (end + nav_ns + slack_ns, key)
    }
}

/// An [`Instant`] as one number, in the same order (compared in one step).
#[inline]
fn flat((time, key): Instant) -> Place {
    place(time, key)
}

/// The [`Instant`] of a [`flat`] number.
#[inline]
fn unflat(x: Place) -> Instant {
    ((x >> 64) as SimTime, x as TieKey)
}

/// A place in the simulation's total order: a time and a tie key.
type Instant = (SimTime, TieKey);

/// After every event (the end of a run).
const LAST: Instant = (SimTime::MAX, TieKey::MAX);

/// A passive node's overheard list is replayed up to the present as it
/// grows (a passive node's replay has no side effects, so any time will do)
/// once it is this long, or as soon as its newest frame has ended: then the
/// list is (nearly always) all due, and the replay empties it while its
/// entries are still in cache (lists that wait for 32 entries cost more memory traffic
/// than the replays they batch save).
const OVERHEARD_COMPACT_LEN: usize = 32;

pub(crate) struct Node {
    mac: Dcf,
    ifq: PriQueue,
    router: Router,
    /// The node's routing stream and the slot of its one routing timer.
    routing_rng: Rng,
    routing_timer: TimerSlot,
    /// The receiver already accepted the data frame our MAC is retrying, so
    /// a retry-limit failure of it is not a packet loss.
    handed_over: bool,
    forwarded: u64,
    queue_drops: u64,
    /// The node's ARP table, with `[mac] arp` on.
    arp: Option<Box<ArpTable>>,
    lazy: Lazy,
}

/// What `transmit` reads and writes at every receiver, in one cache line,
/// so that a reception that waits in the list touches nothing else of the
/// node (not its MAC: `passive` and `waits` mirror the MAC's state).
#[repr(C, align(64))]
struct Lazy {
    /// Receptions not yet handed to the MAC (see [`LazyRx`]).
    overheard: Vec<LazyRx>,
    /// Where the pending `Sync` event stands, or [`LAST`].
    sync_at: Instant,
    /// [`Dcf::is_passive`] and [`Dcf::acts_on_overheard_end`], as of the
    /// end of the node's last event (`World::finish_mac`). Between its
    /// events its MAC changes only by replays of a passive MAC, which stays
    /// passive.
    passive: bool,
    hears_ends: bool,
    /// [`Dcf::overheard_end_slack`], as of the same moment: the `Sync` for
    /// an overheard end is due that long after the least NAV it sets.
    slack_ns: SimTime,
}

impl Lazy {
    pub(crate) fn new() -> Self {
        Self {
            overheard: Vec::new(),
            sync_at: LAST,
            passive: true,
            hears_ends: false,
            slack_ns: 0,
        }
    }
}

impl Node {
    /// Refreshes the mirror of the MAC's state in [`Lazy`].
    fn note_mac(&mut self) {
        self.lazy.passive = self.mac.is_passive();
        self.lazy.hears_ends = self.mac.acts_on_overheard_end();
        self.lazy.slack_ns = self.mac.overheard_end_slack();
    }

    /// Hands the MAC every overheard start and end that comes before `upto`
    /// (or is it), in order; returns how many it handed over, with the MAC
    /// timers that fired among them.
    fn replay_overheard(
        &mut self,
        upto: Instant,
        due: &mut Vec<(u128, u32)>,
        out: &mut Vec<MacAction>,
    ) -> u64 {
        due.clear();
        let up = flat(upto);
        for (i, e) in self.lazy.overheard.iter().enumerate() {
            if !e.started {
                let k = flat(e.start_key());
                if k <= up {
                    due.push((k, i as u32));
                }
            }
            if !e.start_only {
                let k = flat(e.end_key());
                if k <= up {
                    due.push((k, i as u32));
                }
            }
        }
        if due.is_empty() {
            return 0;
        }
        // Nearly sorted already (starts in transmission order): insertion sort.
        for k in 1..due.len() {
            let x = due[k];
            let mut j = k;
            while j > 0 && due[j - 1].0 > x.0 {
                due[j] = due[j - 1];
                j -= 1;
            }
            due[j] = x;
        }
        let count = due.len() as u64;
        // A MAC with a backoff may arm its timer while it hears these frames
        // (the backoff resumes, or will as the NAV expires), never one due
        // before `upto`: overheard frames only delay a backoff's end, and
        // one that resumes ends DIFS and its slots later, past the node's
        // next event (checked below).
        let mark = out.len();
        let mut armed = false;
        let mut k = 0;
        while k < due.len() {
            let (at, i) = due[k];
            let (t, key) = unflat(at);
            let e = self.lazy.overheard[i as usize];
            // What the MAC sets off here falls where the reception does
            // within its nanosecond, not where the replaying event does.
            self.mac.set_phase(e.phase);
            if key == tie_key_at(Class::RxStart, e.phase, e.seq) {
                // Heard whole with nothing in between (the common case)
                // and nothing armed: the MAC may take both in one step.
                let whole = !armed
                    && due.get(k + 1).is_some_and(|d| d.1 == i)
                    && self
                        .mac
                        .overhear_whole(t, e.power_w, e.end, e.ra, e.duration_ns);
                if !whole {
                    self.mac.on_rx_start(t, e.serial, e.power_w, e.end, out);
                }
                self.lazy.overheard[i as usize].started = true;
                if whole {
                    k += 2;
                    continue;
                }
            } else {
                self.mac
                    .on_rx_end_overheard(t, e.serial, e.ra, e.duration_ns, out);
            }
            armed |= out.len() > mark;
            k += 1;
        }
        if armed {
            // What was re-armed or cancelled since must not be scheduled.
            let mac = &self.mac;
            out.retain(|a| match *a {
                MacAction::SetTimer { timer, gen, .. } => mac.timer_is_live(timer, gen),
                _ => true,
            });
            debug_assert!(
                out[mark..].iter().all(|a| match *a {
                    MacAction::SetTimer { at, phase, .. } =>
                        at > upto.0
                            || (at == upto.0 && upto.1 < tie_key_at(Class::RxStart, phase, 0)),
                    _ => true,
                }),
                "a timer armed during a replay is due within it"
            );
        }
        self.lazy.overheard.retain(|e| {
            if e.start_only {
                !e.started
            } else {
                flat(e.end_key()) > up
            }
        });
        count
    }

    /// [`Self::replay_overheard`] up to `upto` for a passive MAC whose list
    /// holds one frame, heard whole before `upto`: the common case when
    /// the next frame reaches it (frames come one after another), handed
    /// over in one step, with no sort. Returns the starts and ends handed
    /// over (0 if the frame is not so, or the MAC cannot take it whole:
    /// the list is then left as it was).
    fn replay_lone(&mut self, upto: Instant) -> u64 {
        debug_assert!(self.mac.is_passive() && self.lazy.overheard.len() == 1);
        let e = self.lazy.overheard[0];
        if e.started || e.start_only || flat(e.end_key()) > flat(upto) {
            return 0;
        }
        self.mac.set_phase(e.phase);
        if !self
            .mac
            .overhear_whole(e.start, e.power_w, e.end, e.ra, e.duration_ns)
        {
            return 0;
        }
        self.lazy.overheard.clear();
        2
    }

    /// When the MAC must next hear its overheard frames: a MAC with a
    /// backoff must hear an end in time to resume at it
    /// ([`LazyRx::sync_instant`]), while a start only freezes what the MAC
    /// would do next, so it is handed over at the node's next event (which
    /// always replays first) or with the next end. Of the frames whose
    /// start the MAC has been handed, only the one it is receiving can
    /// matter at its end (see [`Dcf::receiving`]); any frame still to start
    /// may.
    fn next_sync(&self) -> Option<Instant> {
        let current = self.mac.receiving();
        let rule = self.mac.nav_rule();
        self.lazy
            .overheard
            .iter()
            .filter(|e| !e.start_only && (!e.started || current == Some(e.serial)))
            .map(|e| e.sync_instant(rule, self.lazy.slack_ns))
            .min()
    }
}

/// Received powers waiting in the queue with their `Event::RxStart`, by slot.
#[derive(Default)]
struct PowerSlots {
    slots: Vec<f64>,
    free: Vec<u32>,
}

impl PowerSlots {
    fn put(&mut self, power_w: f64) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = power_w;
                i
            }
            None => {
                self.slots.push(power_w);
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, slot: u32) -> f64 {
        self.free.push(slot);
        self.slots[slot as usize]
    }
}

pub(crate) struct World {
    q: EventQueue<Event>,
    end: SimTime,
    nodes: Vec<Node>,
    /// A gateway's wired links to Internet hosts (`[gateway]`).
    wired: Option<wired::Wired>,
    pos: Vec<Pos>,
    grid: SpatialGrid,
    radio: RadioParams,
    /// Per-receiver shadowing streams (empty unless the model is shadowing).
    shadow_rng: Vec<Rng>,
    air: Vec<Option<OnAir>>,
    air_free: Vec<u32>,
    next_serial: u32,
    /// Whether overheard frames at passive nodes go to their `overheard`
    /// lists (always, except in the test that compares both ways, and with
    /// a trace, whose lines must come in time order).
    overhear_lazily: bool,
    /// [`parallel::probe`]'s counts, when it runs the world.
    #[cfg(any(test, feature = "parallel-probe"))]
    parallel: Option<Box<parallel::Probe>>,
    /// The ns-2 trace being written (`[output] ns2_trace`).
    trace: Option<Box<Ns2Trace>>,
    /// The nodes' packet captures being written (`[output] pcap`).
    pcap: Option<Box<PcapTrace>>,
    /// Receptions that went to an `overheard` list (for that test).
    lazy_receptions: u64,
    /// Of those, decodable copies of floods their node had seen (for that
    /// test: see `transmit`).
    seen_floods: u64,
    /// Which agents were handed which floods, when the world tracks them
    /// (see `floods`).
    floods: Option<FloodLog>,
    /// The received powers of eager `Event::RxStart`s.
    eager_power_w: PowerSlots,
    /// `[mac] tie_rule = "ns2"`: receptions keep the sub-nanosecond part
    /// of their propagation delays (see [`Phase`]).
    phased: bool,
    /// `[mac] response_rate = "standard"`: a MAC is told the rate of each
    /// data frame it receives, to answer at the rate that goes with it.
    response_rates: bool,
    /// Whether anything acts on a frame as it ends at a receiver, before
    /// the MAC: a loss model, bit errors or response rates
    /// ([`World::before_rx_end`]), or a capture with radiotap headers.
    rx_end_hooks: bool,
    /// The power of the frame a node has just decoded, for a capture's
    /// radiotap header.
    rx_signal_w: Option<f64>,
    /// `[mac] ll_delay_s`: how long a packet takes through the link layer,
    /// each way.
    ll_delay_ns: SimTime,
    /// Packets inside the link layer, by slot (see [`Parked`]).
    parked: Vec<Option<Parked>>,
    parked_free: Vec<u32>,
    /// Some node's MAC is promiscuous (its routing agent overhears data).
    promiscuous: bool,
    /// Some promiscuous MAC also hands up control packets.
    tap_control: bool,
    /// Scratch for `Node::replay_overheard`: [`flat`] instants and list indices.
    due: Vec<(u128, u32)>,
    /// Scratch for `transmit`: the nodes that may hear the frame.
    listeners: Vec<u32>,
    /// While a routing agent reacts to a MAC failure, what it sends waits
    /// in `held` (see `on_mac_done`).
    holding: bool,
    held: Vec<(u32, RoutingAction)>,
    /// The next hop a failure being handed to a routing agent was for: the
    /// trace's `RTR CBK` line shows it, as ns-2.35's does.
    failed_next_hop: NodeId,
    /// The packet (uid) the MAC gave up on last, its data frame's duration
    /// field and its next hop: a routing agent's drop of it (`RTR CBK`, or
    /// `NRTE` when DSR cannot salvage it) shows the frame's MAC header, as
    /// ns-2.35's does (the packets taken from the queue with it show none).
    failed_frame: (u64, SimTime, NodeId, u32),
    /// The packet the next packet routing originates or creates is made
    /// from ([`RoutingAction::MadeFrom`]), for the ns-2 trace.
    made_from: Option<u64>,
    /// `transmit`'s listeners that hear the current frame.
    heard: Vec<Heard>,
    /// `transmit`'s listeners that the current frame reaches too weak to
    /// sense but not to interfere (`[radio] interference_threshold_w`).
    faint: Vec<Heard>,
    /// Whether `transmit` prefetches its listeners' state: only in networks
    /// too large for the nodes' state to stay in cache ([`PREFETCH_MIN_NODES`]).
    prefetch_listeners: bool,
    flows: Vec<Cbr>,
    flow_stats: Vec<FlowStats>,
    ledger: PacketLedger,
    next_uid: u64,
    events: u64,
    out: Vec<MacAction>,
    routing_name: &'static str,
    warnings: Vec<String>,
    /// Trajectories; positions are computed from them on demand.
    mobility: Mobility,
    moving: bool,
    /// `pos` (and the grid) are refreshed from `mobility` lazily: when a
    /// transmission happens at or after `grid_valid_until`.
    grid_refresh_ns: SimTime,
    grid_valid_until: SimTime,
    /// Interference range + GRID_MARGIN_M (+ 1 m of slack): see `transmit`.
    prefilter_m: f64,
    /// Squared [`RadioParams::sense_cutoff_m`]: receivers farther away are
    /// skipped without computing their power.
    sense_cutoff_m2: f64,
    routing_out: Vec<RoutingAction>,
    routing_stats: RoutingStats,
    /// ARP requests and replies sent.
    arp_sent: (u64, u64),
    hop_series: HopSeries,
    /// Injected loss models (`[[loss]]`).
    losses: Vec<LossModel>,
    /// Bit errors (`[radio] error_model`), if the scenario has them.
    bit_errors: Option<Box<bit_errors::BitErrors>>,
    /// Nodes whose battery ran out during the current transmission.
    emptied: Vec<u32>,
    /// TCP endpoints per flow (`None` for UDP flows).
    tcp: Vec<Option<tcp::TcpFlow>>,
    tcp_series: TcpSeries,
    /// TFRC endpoints per flow (`None` for other transports).
    tfrc: Vec<Option<tfrc::TfrcFlow>>,
    tfrc_series: TfrcSeries,
    /// SCTP associations per flow (`None` for other transports).
    sctp: Vec<Option<sctp::SctpFlow>>,
    sctp_series: SctpSeries,
    /// One battery per node, or none without `[energy]`.
    batteries: Vec<Battery>,
    energy_series: EnergySeries,
}

/// Interval of the energy time series (and of idle-drain checks).
const ENERGY_SAMPLE_NS: SimTime = NS_PER_S;

/// Routing-control transmissions, per message type.
#[derive(Debug, Default)]
pub(crate) struct RoutingStats {
    packets: u64,
    bytes: u64,
    originated: u64,
    forwarded: u64,
    /// Per message: packets, bytes, and of the packets those forwarded.
    by_message: BTreeMap<&'static str, (u64, u64, u64)>,
}

impl RoutingStats {
    /// One routing packet of `size_bytes` handed to the MAC, of type
    /// `message`, which the node `forwarded` or originated.
    fn count(&mut self, message: &'static str, size_bytes: u32, forwarded: bool) {
        self.packets += 1;
        self.bytes += size_bytes as u64;
        if forwarded {
            self.forwarded += 1;
        } else {
            self.originated += 1;
        }
        let e = self.by_message.entry(message).or_default();
        e.0 += 1;
        e.1 += size_bytes as u64;
        e.2 += u64::from(forwarded);
    }
}

/// Fading correlated in time ([`RadioParams::jakes`]) over the listeners
/// the physics collected down to the thresholds over the largest gain
/// counted ([`RadioParams::collect_cs_w`]): each power times its link's
/// gain now, kept in `heard` when it reaches carrier sense, in `faint`
/// when it reaches the interference floor, dropped otherwise. Those of
/// `heard` come first, then those lifted from `faint`, each in the grid's
/// order.
#[cold]
#[inline(never)]
fn fade_in_time(
    jakes: &crate::phy::Jakes,
    radio: &RadioParams,
    (n, now): (NodeId, SimTime),
    heard: &mut Vec<Heard>,
    faint: &mut Vec<Heard>,
) {
    let now_s = to_secs(now);
    let mut all: Vec<Heard> = heard.drain(..).chain(faint.drain(..)).collect();
    for h in &mut all {
        h.power_w *= jakes.gain(n, h.r, now_s);
    }
    for h in all {
        if h.power_w >= radio.cs_threshold_w {
            heard.push(h);
        } else if h.power_w >= radio.interference_floor_w {
            faint.push(h);
        }
    }
}

/// A listener within carrier-sense range of a frame: its distance (for
/// the propagation delay) and the power it receives.
#[derive(Debug, Clone, Copy)]
struct Heard {
    r: u32,
    d: f64,
    power_w: f64,
}

/// From this many nodes on, `transmit` prefetches its listeners' state.
/// Below, the state of every node stays in cache between frames and the
/// prefetches only cost: rwp50 7 % slower with them, rwp1000 the same,
/// the first 11 s of rwp10000 8–9 % faster (42.95 s → 39.40 s).
pub(crate) const PREFETCH_MIN_NODES: usize = 4096;

/// How far a node may move before it is re-filed in the spatial grid.
pub(crate) const GRID_MARGIN_M: f64 = 50.0;

impl World {
    fn run(&mut self) {
        for n in 0..self.nodes.len() as u32 {
            self.with_router(0, n, |r, now, ctx| r.start(now, ctx));
        }
        while let Some(t) = self.q.peek_time() {
            if t > self.end {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            if self.prefetch_listeners {
                self.prefetch_events(&ev);
            }
            #[cfg(any(test, feature = "parallel-probe"))]
            if self.parallel.is_some() {
                self.probe_event(now, ev);
            }
            match ev {
                Event::Mac { node, timer, gen } => self.on_mac_timer(now, node, timer, gen),
                Event::RxStart { node, tx, power } => {
                    let power_w = self.eager_power_w.take(power);
                    self.on_rx_start(now, node, tx, power_w)
                }
                Event::RxEnd { node, tx } => self.on_rx_end(now, node, tx),
                Event::App { flow } => {
                    self.events += 1;
                    self.on_app(now, flow);
                }
                Event::EnergySample => self.on_energy_sample(now),
                Event::Sync { node } => {
                    if self.nodes[node as usize].lazy.sync_at == (now, self.q.key()) {
                        self.nodes[node as usize].lazy.sync_at = LAST;
                        let mut out = std::mem::take(&mut self.out);
                        self.sync(now, node, &mut out);
                        self.finish_mac(now, node, out);
                    }
                }
                Event::Transport {
                    flow,
                    receiver,
                    gen,
                } => {
                    if self.tfrc[flow as usize].is_some() {
                        self.on_tfrc_timer(now, flow, receiver, gen)
                    } else if self.sctp[flow as usize].is_some() {
                        self.on_sctp_timer(now, flow, receiver, gen)
                    } else {
                        self.on_tcp_timer(now, flow, receiver, gen)
                    }
                }
                Event::Link { slot } => self.on_link(now, slot),
                Event::Wire { link, up, arrived } => self.on_wire(now, link, up, arrived),
                Event::Routing { node, gen } => {
                    if self.nodes[node as usize].routing_timer.fire(gen) {
                        self.events += 1;
                        self.with_router(now, node, |r, now, ctx| r.on_timeout(now, ctx));
                    }
                }
            }
        }
        // Overheard frames still pending when the run ends reach the MAC's
        // counters; what they would make the MAC do is past the end.
        let mut out = std::mem::take(&mut self.out);
        for n in 0..self.nodes.len() as u32 {
            self.sync(self.end, n, &mut out);
            out.clear();
        }
        self.out = out;
        self.trace_left_in_queues();
    }

    /// Hands an event to [`parallel::probe`]'s counts: it belongs to the
    /// half its node is in (an event of no node to the left), and the
    /// nearest pair across the boundary is sampled when due. The time the
    /// probe takes here is not counted as the events'.
    #[cfg(any(test, feature = "parallel-probe"))]
    fn probe_event(&mut self, now: SimTime, ev: Event) {
        let node = match ev {
            Event::Mac { node, .. }
            | Event::RxStart { node, .. }
            | Event::RxEnd { node, .. }
            | Event::Sync { node }
            | Event::Routing { node, .. } => Some(node),
            Event::App { flow }
            | Event::Transport {
                flow,
                receiver: false,
                ..
            } => Some(self.flows[flow as usize].src),
            Event::Transport {
                flow,
                receiver: true,
                ..
            } => Some(self.flows[flow as usize].dst),
            Event::EnergySample | Event::Link { .. } | Event::Wire { .. } => None,
        };
        // A host behind the gateway is in no half.
        let node = node.filter(|&n| (n as usize) < self.nodes.len());
        let Some(mut probe) = self.parallel.take() else {
            return;
        };
        probe.handled();
        let x_m = node.map(|n| self.mobility.position(n, now).x);
        probe.event(now, x_m.is_some_and(|x| probe.right_of_boundary(x)));
        if probe.sample_due(now) {
            let n = self.nodes.len() as u32;
            probe.sample(now, (0..n).map(|i| self.mobility.position(i, now)));
        }
        probe.handling();
        self.parallel = Some(probe);
    }

    /// In a large network, where a node's state is seldom in cache when
    /// its event comes: starts loading what the next event in the queue
    /// will read of its node (its [`Lazy`] line, the MAC's receiver lines,
    /// and the lines of the MAC's timers and held frames, which
    /// [`Node::note_mac`] reads at the end of every event of the node),
    /// while `ev`, just popped, is handled; and, for `ev`, its
    /// overheard list, whose place its [`Lazy`] line (loaded one event
    /// ago) gives. Hints only: nothing the simulation computes depends on
    /// them.
    #[inline]
    fn prefetch_events(&self, ev: &Event) {
        let node_of = |e: &Event| match *e {
            Event::Mac { node, .. }
            | Event::RxEnd { node, .. }
            | Event::RxStart { node, .. }
            | Event::Sync { node } => Some(node),
            _ => None,
        };
        if let Some(next) = self.q.peek().and_then(node_of) {
            let node = &self.nodes[next as usize];
            prefetch(&node.lazy);
            node.mac.prefetch_receiver();
            node.mac.prefetch_holds();
        }
        if let Some(n) = node_of(ev) {
            let list = &self.nodes[n as usize].lazy.overheard;
            if !list.is_empty() {
                prefetch_raw(list.as_ptr());
            }
        }
    }

    /// Brings node `n`'s MAC up to the present (the event being handled,
    /// or the end of `now` when that is not the queue's time) with its
    /// overheard frames; their actions (possible only once the MAC is busy)
    /// go to `out`.
    fn sync(&mut self, now: SimTime, n: u32, out: &mut Vec<MacAction>) {
        let node = &mut self.nodes[n as usize];
        let present = now == self.q.now();
        if !node.lazy.overheard.is_empty() {
            let upto = if present {
                (now, self.q.key())
            } else {
                (now, TieKey::MAX)
            };
            self.events += node.replay_overheard(upto, &mut self.due, out);
        }
        // What the MAC does next falls in the present.
        node.mac.set_phase(if present {
            self.q.phase()
        } else {
            PHASE_NEUTRAL
        });
    }

    /// A MAC with a backoff must hear the ends of its pending overheard frames
    /// in time to act on them: schedules a `Sync` event for the next one, at
    /// the soonest the MAC could act after it (the least NAV the frame sets,
    /// then the slack: [`Dcf::least_nav_after`], [`Dcf::overheard_end_slack`]).
    fn schedule_sync(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        if node.lazy.overheard.is_empty() || !node.lazy.hears_ends {
            return;
        }
        if let Some(at) = node.next_sync() {
            if at < node.lazy.sync_at {
                node.lazy.sync_at = at;
                self.q.schedule_keyed(at.0, at.1, Event::Sync { node: n });
            }
        }
    }

    fn on_mac_timer(&mut self, now: SimTime, n: u32, timer: MacTimer, gen: u32) {
        if !self.nodes[n as usize].mac.timer_is_live(timer, gen) {
            // Cancelled or re-armed since: nothing happens at this node now.
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        self.sync(now, n, &mut out);
        if self.nodes[n as usize]
            .mac
            .on_timer(now, timer, gen, &mut out)
        {
            self.events += 1;
        }
        self.finish_mac(now, n, out);
    }

    fn on_rx_start(&mut self, now: SimTime, n: u32, tx: u32, power_w: f64) {
        self.events += 1;
        let (airtime, serial) = self.air[tx as usize]
            .as_ref()
            .map_or((0, 0), |a| (a.airtime_ns, a.serial));
        let end = now + airtime;
        // The end shares the start's sequence number and phase (see `LazyRx`).
        let key = self.q.key();
        self.q.schedule_keyed(
            end,
            tie_key_at(Class::RxEnd, phase_of(key), seq_of(key)),
            Event::RxEnd { node: n, tx },
        );
        let mut out = std::mem::take(&mut self.out);
        self.sync(now, n, &mut out);
        self.nodes[n as usize]
            .mac
            .on_rx_start(now, serial, power_w, end, &mut out);
        self.finish_mac(now, n, out);
    }

    fn on_rx_end(&mut self, now: SimTime, n: u32, tx: u32) {
        self.events += 1;
        let mut out = std::mem::take(&mut self.out);
        self.sync(now, n, &mut out);
        if self.rx_end_hooks {
            self.before_rx_end(now, n, tx);
        }
        let slot = self.air[tx as usize].as_mut().expect("frame on the air");
        let serial = slot.serial;
        self.nodes[n as usize]
            .mac
            .on_rx_end(now, serial, &slot.frame, &mut out);
        slot.pending -= 1;
        if slot.pending == 0 {
            self.air[tx as usize] = None;
            self.air_free.push(tx);
        }
        self.finish_mac(now, n, out);
        if self.rx_end_hooks {
            self.rx_signal_w = None;
        }
    }

    /// What acts on frame `tx` as it ends at node `n`, before its MAC:
    /// loss models placed before the MAC, bit errors, the rate a MAC
    /// answering at IEEE 802.11's response rates is told, and the power a
    /// capture's radiotap header shows.
    #[inline(never)]
    fn before_rx_end(&mut self, now: SimTime, n: u32, tx: u32) {
        let slot = self.air[tx as usize].as_ref().expect("frame on the air");
        let serial = slot.serial;
        if !self.losses.is_empty() && (slot.frame.ra == n || slot.frame.ra == BROADCAST) {
            let packet = slot.frame.packet.as_ref();
            for l in &mut self.losses {
                if l.node == n
                    && l.placement == LossWhere::BeforeMac
                    && l.applies_to(packet)
                    && l.lose()
                {
                    self.nodes[n as usize].mac.corrupt_reception(serial);
                }
            }
        }
        if self.response_rates
            && slot.frame.ra == n
            && slot.frame.kind == crate::mac::FrameKind::Data
        {
            let rate = self.nodes[slot.frame.ta as usize].mac.rate_of(&slot.frame);
            self.nodes[n as usize].mac.receiving_at(rate);
        }
        if let Some(errors) = self.bit_errors.as_mut() {
            // Every frame decoded, for this node or overheard: an overheard
            // frame in error sets EIFS, not its NAV (receptions are events
            // of their own under bit errors, none overheard lazily).
            let for_n = slot.frame.ra == n || slot.frame.ra == BROADCAST;
            // The sender's rate for this frame: rate control changes it
            // only once the frame's ACK or its timeout comes, later.
            let rate = self.nodes[slot.frame.ta as usize].mac.rate_of(&slot.frame);
            let mac = &mut self.nodes[n as usize].mac;
            if let Some(power_w) = mac.intact_reception(serial) {
                let on_air = (now - slot.airtime_ns, now);
                let interference = mac.interference();
                if errors.lose(n, &slot.frame, rate, power_w, on_air, interference, for_n) {
                    mac.corrupt_reception(serial);
                }
            }
        }
        if self.pcap.is_some() {
            self.rx_signal_w = self.nodes[n as usize].mac.intact_reception(serial);
        }
    }

    /// Applies the MAC's actions, then feeds it the next queued packet.
    fn finish_mac(&mut self, now: SimTime, n: u32, mut out: Vec<MacAction>) {
        for a in out.drain(..) {
            match a {
                MacAction::SetTimer {
                    timer,
                    at,
                    gen,
                    phase,
                } => {
                    self.q.schedule_at_phase(
                        at,
                        phase,
                        Event::Mac {
                            node: n,
                            timer,
                            gen,
                        },
                    );
                }
                MacAction::Transmit { frame, airtime_ns } => {
                    self.transmit(now, n, frame, airtime_ns);
                }
                MacAction::DeliverUp {
                    packet,
                    from,
                    seq,
                    ra,
                    duration_ns,
                    retry,
                } => {
                    let mac = MacFields::received(ra, from, packet.is_arp(), duration_ns);
                    if let Some(t) = &mut self.trace {
                        t.mac_received('r', now, n, "---", &packet, mac);
                    }
                    if self.pcap.is_some() {
                        let h = DataHeader {
                            ta: from,
                            ra,
                            duration_ns,
                            seq,
                            retry,
                        };
                        self.capture_received_data(now, n, &h, &packet);
                    }
                    let sender = &mut self.nodes[from as usize];
                    if sender.mac.pending_seq() == Some((seq, n)) {
                        sender.handed_over = true;
                    }
                    if self.ll_delay_ns > 0 {
                        self.park(
                            now,
                            Parked::Up {
                                node: n,
                                from,
                                packet,
                                mac,
                            },
                        );
                    } else {
                        self.receive(now, n, from, packet, mac);
                    }
                }
                MacAction::Overheard { packet, from } if !packet.is_arp() => {
                    self.with_router(now, n, |r, now, ctx| {
                        r.on_overheard(now, from, &packet, ctx)
                    });
                }
                MacAction::Done {
                    packet,
                    next_hop,
                    outcome,
                } => self.on_mac_done(now, n, packet, next_hop, outcome),
                MacAction::Overheard { .. } => {}
                MacAction::Accepted { frame } => {
                    if let Some(t) = &mut self.trace {
                        t.frame_received(now, n, &frame);
                    }
                    if self.pcap.is_some() {
                        self.capture_received(now, n, &frame);
                    }
                }
                MacAction::Collided { tx_id } => {
                    if let Some(t) = &mut self.trace {
                        // The frame is still on the air: its end at this
                        // node, which frees its slot, has not been handled.
                        let lost = self.air.iter().flatten().find(|a| a.serial == tx_id);
                        debug_assert!(lost.is_some(), "a collided frame is on the air");
                        if let Some(a) = lost {
                            t.frame_collided(now, n, &a.frame);
                        }
                    }
                }
                MacAction::Refused { frame, why } => {
                    if let Some(t) = &mut self.trace {
                        t.frame_refused(now, n, &frame, why);
                    }
                    if self.pcap.is_some() {
                        self.capture_received(now, n, &frame);
                    }
                }
                MacAction::Duplicate { frame } => {
                    if let Some(t) = &mut self.trace {
                        t.frame_duplicate(now, n, &frame);
                    }
                    if self.pcap.is_some() {
                        self.capture_received(now, n, &frame);
                    }
                }
            }
        }
        self.out = out;
        self.pump(now, n);
        self.nodes[n as usize].note_mac();
        self.schedule_sync(n);
    }

    /// Adds `frame`, which node `n` decoded at `now`, to its capture.
    #[cold]
    #[inline(never)]
    fn capture_received(&mut self, now: SimTime, n: u32, frame: &Frame) {
        let rate = self.nodes[frame.ta as usize].mac.rate_of(frame);
        if let Some(p) = &mut self.pcap {
            p.received(now, n, frame, rate, self.rx_signal_w);
        }
    }

    /// Adds the data frame with header `h` carrying `packet`, which node
    /// `n` decoded at `now`, to its capture.
    #[cold]
    #[inline(never)]
    fn capture_received_data(&mut self, now: SimTime, n: u32, h: &DataHeader, packet: &Packet) {
        let rate = self.nodes[h.ta as usize].mac.data_rate_to(h.ra);
        if let Some(p) = &mut self.pcap {
            p.received_data(now, n, h, packet, rate, self.rx_signal_w);
        }
    }

    /// Adds `frame`, which node `n` puts on the air at `now`, to its capture.
    #[cold]
    #[inline(never)]
    fn capture_sent(&mut self, now: SimTime, n: u32, frame: &Frame) {
        let rate = self.nodes[n as usize].mac.rate_of(frame);
        if let Some(p) = &mut self.pcap {
            p.sent(now, n, frame, rate);
        }
    }

    /// Hands the next queued packet to an idle MAC.
    fn pump(&mut self, now: SimTime, n: u32) {
        let node = &mut self.nodes[n as usize];
        if node.mac.ready_for_packet() {
            if let Some((packet, next_hop)) = node.ifq.dequeue() {
                node.handed_over = false;
                let mut out = std::mem::take(&mut self.out);
                self.sync(now, n, &mut out);
                let node = &mut self.nodes[n as usize];
                node.mac.send(now, packet, next_hop, &mut out);
                self.finish_mac(now, n, out);
            }
        }
    }

    fn on_mac_done(
        &mut self,
        now: SimTime,
        n: u32,
        packet: Packet,
        next_hop: NodeId,
        outcome: TxOutcome,
    ) {
        if let (TxOutcome::Failed(gave_up), Some(t)) = (outcome, &mut self.trace) {
            t.mac_gave_up(now, n, &packet, next_hop, gave_up);
            self.failed_frame = (packet.uid, gave_up.duration_ns, next_hop, n);
        }
        if let (TxOutcome::Acked | TxOutcome::Broadcast, Some(t)) = (outcome, &mut self.trace) {
            t.packet_left(n, packet.uid);
        }
        match outcome {
            TxOutcome::Acked => {}
            TxOutcome::Broadcast => self.ledger.deliver(),
            TxOutcome::Failed(_) if packet.is_arp() => {
                // Lost, unless the requester took it and only the ACKs failed;
                // the trace's `MAC RET` line above is its drop.
                if !self.nodes[n as usize].handed_over {
                    self.ledger.drop(DropReason::RetryLimit);
                }
                // The MAC takes its next packet now, as after an agent's
                // reaction to a failure.
                self.pump(now, n);
            }
            TxOutcome::Failed(_) if !self.nodes[n as usize].router.hears_failure(&packet) => {
                // The agent sets no failure callback on this packet (the
                // AODV `ns2` preset's control packets, as ns-2.35's): the
                // MAC's `RET` line above is its drop, and routing hears of
                // no break, even when only the ACKs were lost.
                if !self.nodes[n as usize].handed_over {
                    self.ledger.drop(DropReason::RetryLimit);
                }
            }
            TxOutcome::Failed(_) => {
                // If the neighbour accepted the frame (only ACKs were lost) the
                // packet lives on there; routing still hears of the break.
                let mut packet = (!self.nodes[n as usize].handed_over).then_some(packet);
                // Under base-station forwarding a DSDV agent with MAC
                // feedback breaks the link, then routes a packet for a host
                // again as ns-2.35's `lost_link` does: on, or dropped.
                let again = packet.take_if(|p| self.reroutes_towards_base_station(n, p));
                // The agent takes the packets queued for the lost neighbour
                // out at once, but what it sends (a route error, salvaged
                // packets) reaches the queue only after the MAC has taken
                // its next packet, as in ns-2.35, where the agents' sends
                // are events scheduled after the failure's.
                debug_assert!(self.held.is_empty(), "failures do not nest");
                self.holding = true;
                self.failed_next_hop = next_hop;
                self.with_router(now, n, |r, now, ctx| {
                    r.on_link_failure(now, next_hop, packet, ctx)
                });
                if let Some(p) = again {
                    self.route_again_towards_base_station(now, n, p);
                }
                self.holding = false;
                let mut held = std::mem::take(&mut self.held);
                for (node, action) in held.drain(..) {
                    self.apply_routing(now, node, action);
                }
                self.held = held;
            }
        }
    }

    /// Routes `packet`, for a host, again at node `n` after its link
    /// failed (see [`Self::reroutes_towards_base_station`]): on by the
    /// route left to the base station, or dropped (`no_route`).
    fn route_again_towards_base_station(&mut self, now: SimTime, n: u32, packet: Packet) {
        if self.relay_drops_for_base_station(now, n, &packet) {
            self.drop_packet(now, n, DropReason::NoRoute, &packet);
        } else {
            self.with_router(now, n, |r, now, ctx| r.route_output(now, packet, ctx));
        }
    }

    /// Calls node `n`'s routing agent, applies its actions, re-arms its
    /// timer and feeds the MAC.
    fn with_router(
        &mut self,
        now: SimTime,
        n: u32,
        f: impl FnOnce(&mut Router, SimTime, &mut RoutingCtx),
    ) {
        if self.is_dead(n) {
            // A dead node's agent runs, but nothing it sends leaves the node.
            let mut out = std::mem::take(&mut self.routing_out);
            let node = &mut self.nodes[n as usize];
            let mut ctx = RoutingCtx {
                me: n,
                rng: &mut node.routing_rng,
                out: &mut out,
                tracing: false,
            };
            f(&mut node.router, now, &mut ctx);
            for action in out.drain(..) {
                match action {
                    RoutingAction::Send { packet, .. } | RoutingAction::Resend { packet, .. } => {
                        self.drop_packet(now, n, DropReason::EnergyDepleted, &packet)
                    }
                    RoutingAction::Drop { reason, packet } => {
                        self.drop_packet(now, n, reason, &packet)
                    }
                    RoutingAction::DropSalvaged { packet, reason } => {
                        self.drop_packet_as(now, n, reason, &packet, Some("SAL"))
                    }
                    RoutingAction::DropForLostNeighbour { packet, .. } => {
                        self.drop_packet(now, n, DropReason::NoRoute, &packet)
                    }
                    RoutingAction::Originate { .. }
                    | RoutingAction::Create { .. }
                    | RoutingAction::Reroute { .. }
                    | RoutingAction::Note(_)
                    | RoutingAction::MadeFrom { .. }
                    | RoutingAction::Expired(_) => {}
                }
            }
            self.routing_out = out;
            return;
        }
        let mut out = std::mem::take(&mut self.routing_out);
        {
            let node = &mut self.nodes[n as usize];
            let mut ctx = RoutingCtx {
                me: n,
                rng: &mut node.routing_rng,
                out: &mut out,
                tracing: self.trace.is_some(),
            };
            f(&mut node.router, now, &mut ctx);
        }
        for action in out.drain(..) {
            self.apply_routing(now, n, action);
        }
        self.routing_out = out;
        let node = &mut self.nodes[n as usize];
        let wanted = node.router.poll_timeout().map(|t| t.max(now));
        if wanted != node.routing_timer.deadline() {
            match wanted {
                Some(at) => {
                    let gen = node.routing_timer.arm(at);
                    self.q.schedule_far(at, Event::Routing { node: n, gen });
                }
                None => node.routing_timer.cancel(),
            }
        }
        self.pump(now, n);
    }

    fn apply_routing(&mut self, now: SimTime, n: u32, action: RoutingAction) {
        if self.holding
            && matches!(
                action,
                RoutingAction::Send { .. }
                    | RoutingAction::Originate { .. }
                    | RoutingAction::Resend { .. }
                    | RoutingAction::Create { .. }
                    | RoutingAction::MadeFrom { .. }
            )
        {
            self.held.push((n, action));
            return;
        }
        match action {
            RoutingAction::Send { packet, next_hop } => self.enqueue(now, n, packet, next_hop),
            RoutingAction::Originate {
                mut packet,
                next_hop,
                message,
                forwarded,
                keep_uid,
            } => {
                self.create(now, &mut packet, keep_uid);
                self.inherit_header(n, packet.uid);
                self.routing_stats
                    .count(message, packet.size_bytes, forwarded);
                self.enqueue(now, n, packet, next_hop);
            }
            RoutingAction::Resend {
                packet,
                next_hop,
                message,
                forwarded,
            } => {
                self.routing_stats
                    .count(message, packet.size_bytes, forwarded);
                self.enqueue(now, n, packet, next_hop);
            }
            RoutingAction::Create {
                mut packet,
                keep_uid,
            } => {
                self.create(now, &mut packet, keep_uid);
                self.inherit_header(n, packet.uid);
                self.with_router(now, n, |r, now, ctx| r.route_output(now, packet, ctx));
            }
            RoutingAction::MadeFrom { uid } => self.made_from = Some(uid),
            RoutingAction::Drop { reason, packet } => self.drop_packet(now, n, reason, &packet),
            RoutingAction::DropSalvaged { packet, reason } => {
                self.drop_packet_as(now, n, reason, &packet, Some("SAL"))
            }
            RoutingAction::DropForLostNeighbour { packet, next_hop } => {
                self.ledger.drop(DropReason::NoRoute);
                if let Some(t) = &mut self.trace {
                    // Taken from the queue: the header the link layer gave
                    // it (with the duration it arrived with).
                    let kept = t.received_mac(n, packet.uid);
                    let mac = if kept == MacFields::default() {
                        MacFields {
                            duration_us: 0,
                            ra: next_hop,
                            ta: n,
                            ether_type: 0x800,
                        }
                    } else {
                        kept
                    };
                    t.packet('D', now, n, Layer::Router, "HELO", &packet, mac, next_hop);
                }
            }
            RoutingAction::Note(line) => {
                if let Some(t) = &mut self.trace {
                    t.note(&line);
                }
            }
            RoutingAction::Expired(packet) => {
                if let Some(t) = &mut self.trace {
                    let mac = t.received_mac(n, packet.uid);
                    t.packet('D', now, n, Layer::Router, "TTL", &packet, mac, BROADCAST);
                }
            }
            RoutingAction::Reroute { next_hop } => {
                let node = &mut self.nodes[n as usize];
                let control = node.router.reroutes_control();
                let taken = node.ifq.take_for(next_hop, control);
                for packet in taken {
                    self.with_router(now, n, |r, now, ctx| {
                        r.on_reroute(now, packet, next_hop, ctx)
                    });
                }
            }
        }
    }

    /// Hands a packet from routing down for `next_hop`: through ARP, when
    /// it runs, to the interface queue.
    /// Hands a packet from routing to the link layer, which queues it
    /// `[mac] ll_delay_s` later.
    fn enqueue(&mut self, now: SimTime, n: u32, packet: Packet, next_hop: NodeId) {
        if let Some(t) = &mut self.trace {
            // ns-2's `f`: a router sending what another node originated.
            // A packet keeps the MAC header it arrived with, as does a
            // request a relay sends on under its own address (AODV's and
            // AOMDV's, which keep the uid: ns-2 sends the same packet).
            let op = if packet.src == n { 's' } else { 'f' };
            let mac = t.received_mac(n, packet.uid);
            t.packet(op, now, n, Layer::Router, "---", &packet, mac, next_hop);
            t.handed_down(n, &packet, mac, next_hop);
        }
        if self.ll_delay_ns > 0 {
            self.park(
                now,
                Parked::Down {
                    node: n,
                    packet,
                    next_hop,
                },
            );
        } else {
            self.link_down(now, n, packet, next_hop);
        }
    }

    /// Holds a packet in the link layer until `[mac] ll_delay_s` from now.
    fn park(&mut self, now: SimTime, p: Parked) {
        let slot = match self.parked_free.pop() {
            Some(slot) => {
                self.parked[slot as usize] = Some(p);
                slot
            }
            None => {
                self.parked.push(Some(p));
                (self.parked.len() - 1) as u32
            }
        };
        self.q
            .schedule(now + self.ll_delay_ns, Event::Link { slot });
    }

    /// A packet leaves the link layer: up to routing, or down to the queue.
    ///
    /// Not counted in `events`: the hand-off belongs to the reception or
    /// the routing decision that caused it (and a decoded copy of a flood
    /// the agent has seen may skip it, see `transmit`).
    fn on_link(&mut self, now: SimTime, slot: u32) {
        let p = self.parked[slot as usize].take().expect("a parked packet");
        self.parked_free.push(slot);
        match p {
            Parked::Up {
                node,
                from,
                packet,
                mac,
            } => {
                if self.is_dead(node) {
                    self.drop_received(now, node, DropReason::EnergyDepleted, &packet);
                } else {
                    self.receive(now, node, from, packet, mac);
                }
            }
            Parked::Down {
                node,
                packet,
                next_hop,
            } => {
                self.link_down(now, node, packet, next_hop);
                // As after a routing agent's actions: an idle MAC takes it.
                self.pump(now, node);
            }
        }
    }

    /// Resolves the next hop's address (with ARP on) and queues the packet.
    fn link_down(&mut self, now: SimTime, n: u32, packet: Packet, next_hop: NodeId) {
        if self.is_dead(n) {
            self.drop_packet(now, n, DropReason::EnergyDepleted, &packet);
            return;
        }
        let packet = match &mut self.nodes[n as usize].arp {
            Some(table) => match table.resolve(packet, next_hop) {
                Resolved::Send(p) => p,
                Resolved::Request { dropped } => {
                    if let Some(p) = dropped {
                        self.drop_queued(now, n, DropReason::Arp, &p, next_hop);
                    }
                    self.send_arp(now, n, arp::request(n, next_hop), BROADCAST);
                    return;
                }
                Resolved::Failed(failed) => {
                    // As a failed transmission: routing hears of each it
                    // asked to (ns-2's failure callback); ARP drops the rest.
                    for p in failed {
                        if self.nodes[n as usize].router.hears_failure(&p) {
                            self.failed_next_hop = next_hop;
                            // As after the MAC's failure: under base-station
                            // forwarding, DSDV's `lost_link` breaks the link,
                            // then routes a packet for a host again.
                            let mut p = Some(p);
                            let again = p.take_if(|p| self.reroutes_towards_base_station(n, p));
                            self.with_router(now, n, |r, now, ctx| {
                                r.on_link_failure(now, next_hop, p, ctx)
                            });
                            if let Some(p) = again {
                                self.route_again_towards_base_station(now, n, p);
                            }
                        } else {
                            self.drop_queued(now, n, DropReason::Arp, &p, next_hop);
                        }
                    }
                    return;
                }
            },
            None => packet,
        };
        self.queue(now, n, packet, next_hop);
    }

    /// Gives a packet created at `now` its place in the ledger and, unless
    /// it `keep_uid`s (a packet that goes on as the same one), the next uid.
    fn create(&mut self, now: SimTime, packet: &mut Packet, keep_uid: bool) {
        if !keep_uid {
            packet.uid = self.next_uid;
            self.next_uid += 1;
        }
        packet.created_at = now;
        self.ledger.create();
    }

    /// With an ns-2 trace, packet `uid`, just made at node `n` from the
    /// packet routing named ([`RoutingAction::MadeFrom`]), takes the MAC
    /// header that packet had last: the frame the MAC gave up on, or the
    /// one it arrived in.
    fn inherit_header(&mut self, n: u32, uid: u64) {
        let Some(from) = self.made_from.take() else {
            return;
        };
        if let Some(t) = &mut self.trace {
            let (failed_uid, duration_ns, hop, at) = self.failed_frame;
            let mac = if (failed_uid, at) == (from, n) {
                MacFields {
                    duration_us: duration_ns / 1_000,
                    ra: hop,
                    ta: n,
                    ether_type: 0x800,
                }
            } else {
                t.peek_mac(n, from)
            };
            t.keep_header(n, uid, mac);
        }
    }

    /// Originates an ARP message and queues it.
    fn send_arp(&mut self, now: SimTime, n: u32, mut packet: Packet, next_hop: NodeId) {
        self.create(now, &mut packet, false);
        if next_hop == BROADCAST {
            self.arp_sent.0 += 1;
        } else {
            self.arp_sent.1 += 1;
        }
        self.queue(now, n, packet, next_hop);
    }

    /// An ARP message reached node `n`: it learns the sender, sends what
    /// it held for it, and answers a request for its own address.
    fn arp_input(&mut self, now: SimTime, n: u32, packet: Packet) {
        let PacketKind::Arp { target, reply } = packet.kind else {
            return;
        };
        if packet.dst != BROADCAST {
            self.ledger.deliver();
        }
        let Some(table) = &mut self.nodes[n as usize].arp else {
            return;
        };
        if let Some(held) = table.learn(packet.src) {
            self.queue(now, n, held, packet.src);
        }
        if !reply && target == n {
            self.send_arp(now, n, arp::reply(n, packet.src), packet.src);
        }
        self.pump(now, n);
    }

    /// Puts a packet in node `n`'s interface queue.
    fn queue(&mut self, now: SimTime, n: u32, packet: Packet, next_hop: NodeId) {
        let node = &mut self.nodes[n as usize];
        match node.ifq.enqueue(packet, next_hop) {
            Enqueued::Accepted => {}
            Enqueued::Dropped(p, hop) => {
                node.queue_drops += 1;
                self.drop_queued(now, n, DropReason::QueueFull, &p, hop);
            }
        }
    }

    /// Counts a packet dropped at node `n`'s interface queue, or by its ARP,
    /// and traces it there ([`Ns2Trace::queue_dropped`]).
    fn drop_queued(
        &mut self,
        now: SimTime,
        n: u32,
        reason: DropReason,
        packet: &Packet,
        next_hop: NodeId,
    ) {
        self.ledger.drop(reason);
        if let Some(t) = &mut self.trace {
            let resolved = reason != DropReason::Arp;
            t.queue_dropped(now, n, Some(reason), packet, next_hop, resolved);
        }
    }

    /// Traces what the run leaves in each wireless node's interface queue
    /// and held by its ARP, as ns-2.35's scripts reset every mobile node at
    /// the stop time: node by node, the queue in the order it would serve
    /// it, then ARP's held packets ([`ArpTable::held_packets`]), each a
    /// `D … IFQ END` line, then those its routing agent holds for a route
    /// ([`RoutingProtocol::waiting_packets`]), each a `D … RTR END` line.
    /// They stay in flight in the results.
    fn trace_left_in_queues(&mut self) {
        let Some(t) = &mut self.trace else {
            return;
        };
        for (n, node) in self.nodes.iter().enumerate() {
            let n = n as NodeId;
            if self.wired.as_ref().is_some_and(|w| w.is_host(n)) {
                continue;
            }
            for (p, hop) in node.ifq.iter() {
                t.queue_dropped(self.end, n, None, p, *hop, true);
            }
            for (p, hop) in node.arp.iter().flat_map(|a| a.held_packets()) {
                t.queue_dropped(self.end, n, None, p, hop, false);
            }
            for p in node.router.waiting_packets() {
                t.router_dropped_at_end(self.end, n, p);
            }
        }
    }

    /// A packet received at node `n` is lost there. A unicast packet is
    /// dropped ([`Self::drop_packet`]); a broadcast's copy is only traced:
    /// the broadcast was counted, once, as delivered when its transmission
    /// ended, and its other receivers may take their copies.
    fn drop_received(&mut self, now: SimTime, n: u32, reason: DropReason, packet: &Packet) {
        if packet.dst != BROADCAST {
            self.drop_packet(now, n, reason, packet);
        } else if let Some(t) = &mut self.trace {
            let (layer, code) = t.drop_code(reason);
            t.packet('D', now, n, layer, code, packet, MacFields::default(), 0);
        }
    }

    /// Counts a dropped packet, and traces it at the layer that dropped it
    /// (a packet dropped after a MAC failure with the failure's next hop).
    fn drop_packet(&mut self, now: SimTime, n: u32, reason: DropReason, packet: &Packet) {
        self.drop_packet_as(now, n, reason, packet, None);
    }

    /// [`Self::drop_packet`], traced with ns-2's reason `code` in place of
    /// the one `reason` has (at the same layer).
    fn drop_packet_as(
        &mut self,
        now: SimTime,
        n: u32,
        reason: DropReason,
        packet: &Packet,
        code: Option<&'static str>,
    ) {
        self.ledger.drop(reason);
        if let Some(t) = &mut self.trace {
            let (layer, own_code) = t.drop_code(reason);
            let code = code.unwrap_or(own_code);
            // ns-2.35's packet keeps the MAC header it last had: the failed
            // frame's after a MAC failure (without a duration for the
            // packets that were still queued), the one it arrived with
            // for a packet routing drops on its way (with the next hop it
            // arrived for, this node).
            let (failed_uid, duration_ns, failed_hop, failed_at) = self.failed_frame;
            let (mac, next_hop) = match reason {
                DropReason::RetryLimit => {
                    let mac = MacFields {
                        duration_us: if failed_uid == packet.uid {
                            duration_ns / 1_000
                        } else {
                            0
                        },
                        ra: self.failed_next_hop,
                        ta: n,
                        ether_type: 0x800,
                    };
                    (mac, self.failed_next_hop)
                }
                _ if layer == Layer::Router && (failed_uid, failed_at) == (packet.uid, n) => {
                    let mac = MacFields {
                        duration_us: duration_ns / 1_000,
                        ra: failed_hop,
                        ta: n,
                        ether_type: 0x800,
                    };
                    (mac, failed_hop)
                }
                _ if layer == Layer::Router => t.router_mac(n, packet.uid),
                _ => (MacFields::default(), 0),
            };
            t.packet('D', now, n, layer, code, packet, mac, next_hop);
        }
    }

    /// Puts a frame on the channel: every node within interference range
    /// (found through the grid) gets a reception after the propagation delay.
    fn transmit(&mut self, now: SimTime, n: u32, frame: Frame, airtime_ns: SimTime) {
        let id = match self.air_free.pop() {
            Some(id) => id,
            None => {
                self.air.push(None);
                (self.air.len() - 1) as u32
            }
        };
        if self.moving && now >= self.grid_valid_until {
            self.refresh_grid(now);
        }
        let moving = self.moving;
        let src = if moving {
            self.mobility.position(n, now)
        } else {
            self.pos[n as usize]
        };
        let mut pending = 0;
        if let Some(b) = self.batteries.get_mut(n as usize) {
            if b.charge_tx(now, airtime_ns) {
                // The battery cannot finish this frame: it never leaves.
                self.air_free.push(id);
                self.power_off(now, n);
                return;
            }
        }
        if let Some(t) = &mut self.trace {
            t.frame(now, n, &frame);
        }
        if self.pcap.is_some() {
            self.capture_sent(now, n, &frame);
        }
        let mut emptied = std::mem::take(&mut self.emptied);
        let serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1);
        let mut replayed = 0;
        let far_m2 = self.prefilter_m * self.prefilter_m;
        let cutoff_m2 = self.sense_cutoff_m2;
        let lazy = self.overhear_lazily;
        let phased = self.phased;
        let no_losses = self.losses.is_empty();
        let tappable = self.promiscuous && frame.tappable(self.tap_control);
        // A flooded control packet (an AODV RREQ) that a receiver has seen
        // before is dropped unread by its agent: decoding it changes only
        // the MAC (as any overheard frame does), so it may be overheard
        // lazily too. The flood log says which receivers have (`floods`);
        // only for a flood it has retired are their agents asked.
        let flood = match &self.floods {
            Some(log) if lazy && frame.ra == BROADCAST => frame
                .packet
                .as_ref()
                .filter(|p| p.is_control())
                .and_then(|p| self.nodes[n as usize].router.flood_id(p))
                .map(|id| (id, log.known(id))),
            _ => None,
        };
        let mut lazy_count = 0;
        let mut seen_floods = 0;
        let nav_rule = self.nodes[n as usize].mac.nav_rule();
        // The NAV the frame sets where it is decoded for another node.
        let nav_ns = self.nodes[n as usize].mac.nav_of(&frame);
        // Where the simulation stands: a passive node's list may be replayed
        // up to here.
        let here = if now == self.q.now() {
            (now, self.q.key())
        } else {
            (now, TieKey::MAX)
        };
        let (pos, radio, q, shadow, mobility, batteries, nodes, due, out, eager_power_w) = (
            &self.pos,
            &self.radio,
            &mut self.q,
            &mut self.shadow_rng,
            &mut self.mobility,
            &mut self.batteries,
            &mut self.nodes,
            &mut self.due,
            &mut self.out,
            &mut self.eager_power_w,
        );
        // `pos` lags by at most GRID_MARGIN_M: a node that was farther than
        // the interference range plus that margin cannot hear us, and its
        // exact position is not needed (only without shadowing, whose draws
        // must not be skipped).
        let prune = moving && shadow.is_empty();
        let near = |r: u32| {
            r != n
                && (!prune || {
                    let stale = pos[r as usize];
                    let (dx, dy) = (stale.x - src.x, stale.y - src.y);
                    dx * dx + dy * dy <= far_m2
                })
        };
        // First the physics: who hears the frame and how strongly, in the
        // grid's order (positions, distances and powers need no node's
        // state, so the CPU overlaps one listener's divisions and square
        // roots with the next's); then what each listener does with it.
        let heard = &mut self.heard;
        heard.clear();
        let faint = &mut self.faint;
        faint.clear();
        macro_rules! physics {
            ($r:expr) => {{
                let r: u32 = $r;
                'physics: {
                    if batteries.get(r as usize).is_some_and(|b| b.is_depleted()) {
                        break 'physics;
                    }
                    let at = if moving {
                        mobility.position(r, now)
                    } else {
                        pos[r as usize]
                    };
                    // As `Pos::distance`, with the square kept for the cutoff.
                    let d2 = (src.x - at.x).powi(2) + (src.y - at.y).powi(2);
                    if d2 > cutoff_m2 {
                        break 'physics;
                    }
                    // The power from the square (no root on its path); the
                    // distance for the delay alongside.
                    let d = d2.sqrt();
                    let power_w = match shadow.get_mut(r as usize) {
                        Some(rng) => radio.rx_power_w(d, rng),
                        None => radio.mean_rx_power_sq_w(d2),
                    };
                    if power_w >= radio.collect_cs_w {
                        heard.push(Heard { r, d, power_w });
                    } else if power_w >= radio.collect_floor_w {
                        faint.push(Heard { r, d, power_w });
                    }
                }
            }};
        }
        // In a large network the listeners are found first, in the grid's
        // order, and their state is loaded ahead of its use (`prefetch`),
        // many nodes at once, where one node after another would wait for
        // each in turn (see `PREFETCH_MIN_NODES`).
        if self.prefetch_listeners {
            let listeners = &mut self.listeners;
            listeners.clear();
            self.grid.for_each_near(src, |r| {
                if near(r) {
                    mobility.prefetch(r);
                    prefetch(&nodes[r as usize].lazy);
                    listeners.push(r);
                }
            });
            // The physics reads the positions loaded above, while the
            // nodes' states arrive.
            for &r in listeners.iter() {
                physics!(r);
            }
            // Then the lists of those who hear the frame (reading where
            // each list is waits only for the loads started above).
            for h in heard.iter() {
                let node = &nodes[h.r as usize];
                let list = &node.lazy.overheard;
                if list.capacity() > 0 {
                    prefetch_raw(list.as_ptr());
                }
                if node.lazy.passive && !list.is_empty() {
                    // It will be handed what it has heard (`replay_lone`).
                    node.mac.prefetch_receiver();
                }
            }
        } else {
            self.grid.for_each_near(src, |r| {
                if near(r) {
                    physics!(r);
                }
            });
        }
        if let Some(jakes) = radio.jakes {
            fade_in_time(&jakes, radio, (n, now), heard, faint);
        }
        // Then what each listener does with the frame.
        for &Heard { r, d, power_w } in heard.iter() {
            let delay = propagation_delay_ns(d);
            let phase = if phased {
                phase_of_remainder(propagation_remainder_ns(d, delay))
            } else {
                PHASE_NEUTRAL
            };
            let node = &mut nodes[r as usize];
            // Below the receive threshold a frame is only sensed, never
            // decoded, even when it is addressed to this node (but an
            // injected loss model draws for every addressed frame, so
            // with one those stay events).
            let only_sensed = (frame.ra != r && frame.ra != BROADCAST)
                || (power_w < radio.rx_threshold_w && no_losses);
            // A promiscuous MAC may hand a decodable data frame up.
            let tapped = tappable && power_w >= radio.rx_threshold_w && node.mac.is_promiscuous();
            let only_sensed = (only_sensed && !tapped)
                || flood.as_ref().is_some_and(|(id, known)| {
                    let end = now + delay + airtime_ns;
                    let known = match known {
                        _ if id.0 == r => Some(true),
                        Known::Never => Some(false),
                        Known::Record(rec) => rec.seen(r, end),
                        Known::Retired => None,
                    };
                    let seen = known.unwrap_or_else(|| node.router.has_seen(*id, end));
                    debug_assert_eq!(seen, node.router.has_seen(*id, end), "flood log");
                    seen_floods += u64::from(seen);
                    seen
                });
            // The sequence number of this reception's start event,
            // whether or not it goes through the queue.
            let seq = q.reserve_seq();
            if lazy {
                // The start only freezes what the MAC would do next: it
                // waits in the list for the node's next event. So does
                // the end of a frame the MAC cannot act on; any other
                // end is an event.
                let rx = LazyRx {
                    start: now + delay,
                    end: now + delay + airtime_ns,
                    duration_ns: nav_ns,
                    power_w,
                    seq,
                    serial,
                    ra: frame.ra,
                    phase,
                    started: false,
                    start_only: !only_sensed,
                };
                debug_assert_eq!(
                    (node.lazy.passive, node.lazy.hears_ends, node.lazy.slack_ns),
                    (
                        node.mac.is_passive(),
                        node.mac.acts_on_overheard_end(),
                        node.mac.overheard_end_slack()
                    ),
                    "node {r}'s mirror of its MAC"
                );
                let passive = node.lazy.passive;
                if passive && node.lazy.overheard.len() == 1 {
                    replayed += node.replay_lone(here);
                } else if passive
                    && (node.lazy.overheard.len() >= OVERHEARD_COMPACT_LEN
                        || node
                            .lazy
                            .overheard
                            .last()
                            .is_some_and(|l| !l.start_only && flat(l.end_key()) <= flat(here)))
                {
                    debug_assert!(out.is_empty());
                    replayed += node.replay_overheard(here, due, out);
                    debug_assert!(out.is_empty(), "a passive MAC acts on nothing overheard");
                }
                if !only_sensed {
                    q.schedule_keyed(
                        rx.end,
                        tie_key_at(Class::RxEnd, phase, seq),
                        Event::RxEnd { node: r, tx: id },
                    );
                    pending += 1;
                } else {
                    lazy_count += 1;
                    if node.lazy.hears_ends {
                        // A MAC with a backoff hears the end in time (see `LazyRx`).
                        let at = rx.sync_instant(nav_rule, node.lazy.slack_ns);
                        if at < node.lazy.sync_at {
                            node.lazy.sync_at = at;
                            q.schedule_keyed(at.0, at.1, Event::Sync { node: r });
                        }
                    }
                }
                node.lazy.overheard.push(rx);
            } else {
                q.schedule_keyed(
                    now + delay,
                    tie_key_at(Class::RxStart, phase, seq),
                    Event::RxStart {
                        node: r,
                        tx: id,
                        power: eager_power_w.put(power_w),
                    },
                );
                pending += 1;
            }
            if let Some(b) = batteries.get_mut(r as usize) {
                if b.charge_rx(now + delay, now + delay + airtime_ns) {
                    emptied.push(r);
                }
            }
        }
        if let Some(errors) = self.bit_errors.as_mut() {
            errors.on_air(airtime_ns);
            for &Heard { r, d, power_w } in faint.iter() {
                let start = now + propagation_delay_ns(d);
                errors.faint_frame(now, r, (start, start + airtime_ns), power_w);
            }
        }
        self.events += replayed;
        self.lazy_receptions += lazy_count;
        self.seen_floods += seen_floods;
        for dead in emptied.drain(..) {
            self.power_off(now, dead);
        }
        self.emptied = emptied;
        if pending > 0 {
            self.air[id as usize] = Some(OnAir {
                frame,
                airtime_ns,
                pending,
                serial,
            });
        } else {
            self.air_free.push(id);
        }
    }

    fn is_dead(&self, n: u32) -> bool {
        self.batteries
            .get(n as usize)
            .is_some_and(|b| b.is_depleted())
    }

    /// Node `n`'s battery is empty: its radio goes off for good and the
    /// packets it holds are dropped (`energy_depleted`).
    fn power_off(&mut self, now: SimTime, n: u32) {
        // The counters still hear what reached the radio before; actions
        // are moot, the radio goes off.
        let mut out = std::mem::take(&mut self.out);
        self.sync(now, n, &mut out);
        out.clear();
        self.out = out;
        let node = &mut self.nodes[n as usize];
        let held = node.mac.power_off();
        node.note_mac();
        let mut dropped = Vec::with_capacity(node.ifq.len() + 1);
        while let Some((p, _)) = node.ifq.dequeue() {
            dropped.push(p);
        }
        if let Some(p) = held.filter(|_| !node.handed_over) {
            dropped.push(p);
        }
        for p in &dropped {
            self.drop_packet(now, n, DropReason::EnergyDepleted, p);
        }
    }

    /// Samples every battery, and catches nodes drained while idle.
    fn on_energy_sample(&mut self, now: SimTime) {
        for n in 0..self.batteries.len() {
            if self.batteries[n].check(now) {
                self.power_off(now, n as u32);
            }
            self.energy_series.t_s.push(to_secs(now));
            self.energy_series.node.push(n as u32);
            self.energy_series
                .remaining_j
                .push(self.batteries[n].remaining_j(now));
        }
        if now + ENERGY_SAMPLE_NS <= self.end {
            self.q
                .schedule_far(now + ENERGY_SAMPLE_NS, Event::EnergySample);
        }
    }

    /// Re-files every node in the spatial grid at its position at `now`.
    fn refresh_grid(&mut self, now: SimTime) {
        for (i, p) in self.pos.iter_mut().enumerate() {
            *p = self.mobility.position(i as u32, now);
            self.grid.update(i as u32, *p);
        }
        self.grid_valid_until = now.saturating_add(self.grid_refresh_ns);
    }

    /// A packet arrived at node `n` from neighbour `from`, in a frame with
    /// MAC header `mac` (for the trace).
    fn receive(&mut self, now: SimTime, n: u32, from: NodeId, mut packet: Packet, mac: MacFields) {
        if packet.is_arp() {
            // An ARP message passes the same point above the MAC (ns-2.35's
            // link layer takes it from there): an `after_mac` loss model
            // of "all" packets loses it too.
            if !self.losses.is_empty() && self.lost_after_mac(n, &packet) {
                self.drop_received(now, n, DropReason::LossModel, &packet);
                return;
            }
            self.arp_input(now, n, packet);
            return;
        }
        packet.hops += 1;
        packet.visit(n);
        if !self.losses.is_empty() && self.lost_after_mac(n, &packet) {
            self.drop_received(now, n, DropReason::LossModel, &packet);
            return;
        }
        if let Some(t) = &mut self.trace {
            t.routing_received(now, n, &packet, mac);
        }
        if packet.is_control() {
            if let Some(log) = &mut self.floods {
                if let Some(id) = self.nodes[n as usize].router.flood_id(&packet) {
                    log.handed(id, n, now);
                }
            }
            // Control packets are hop-by-hop: the agent consumes this one.
            // A broadcast was already counted delivered when its
            // transmission ended (TxOutcome::Broadcast), once.
            if packet.dst != BROADCAST {
                self.ledger.deliver();
            }
            self.with_router(now, n, |r, now, ctx| r.on_control(now, from, packet, ctx));
        } else if packet.dst == n || packet.dst == BROADCAST {
            self.with_router(now, n, |r, now, _| r.on_delivered(now, from, &packet));
            // The agent gets the datagram its source sent: the routing
            // header (DSR's) comes off, with the bytes it counted.
            if packet.body.is_some() {
                packet.size_bytes -= self.nodes[n as usize].router.header_bytes(&packet);
                packet.body = None;
            }
            if let Some(host) = self.tunnelled_to(n, &packet) {
                self.detunnel(now, n, host, packet);
                return;
            }
            self.deliver_local(now, packet, mac);
        } else {
            if packet.src == n && self.nodes[n as usize].router.drops_returning_packets() {
                // Its own packet, back: a routing loop. Counted as a packet
                // routing could not send on (`no_route`), traced as
                // ns-2.35's `LOOP`.
                self.drop_packet_as(now, n, DropReason::NoRoute, &packet, Some("LOOP"));
                return;
            }
            packet.ttl = packet.ttl.saturating_sub(1);
            if packet.ttl == 0 {
                self.drop_packet(now, n, DropReason::Ttl, &packet);
                return;
            }
            if self.relay_drops_for_base_station(now, n, &packet) {
                self.drop_packet(now, n, DropReason::NoRoute, &packet);
                return;
            }
            self.nodes[n as usize].forwarded += 1;
            self.with_router(now, n, |r, now, ctx| r.route_output(now, packet, ctx));
        }
    }

    /// Whether an `after_mac` loss model at `n` drops this arriving packet.
    fn lost_after_mac(&mut self, n: u32, packet: &Packet) -> bool {
        let mut lost = false;
        for l in &mut self.losses {
            if l.node == n && l.placement == LossWhere::AfterMac && l.applies_to(Some(packet)) {
                lost |= l.lose();
            }
        }
        lost
    }

    /// Hands a packet to its transport agent; `mac`: the header of the
    /// frame it arrived in, which ns-2's `r … AGT` line shows.
    fn deliver_local(&mut self, now: SimTime, packet: Packet, mac: MacFields) {
        if let Some(t) = &mut self.trace {
            let n = packet.dst;
            t.agent_received(now, n, &packet, mac);
        }
        let packet = self.as_sent(packet);
        // A one-way SYN carries no data: the flow's counts leave it out.
        let data = packet.payload_bytes > 0;
        if let (PacketKind::Data { flow, seq }, true) = (packet.kind, data) {
            if packet.dst != self.flows[flow as usize].dst {
                // A TCP data segment cannot go backwards; guard anyway.
                self.ledger.deliver();
                return;
            }
            let stats = &mut self.flow_stats[flow as usize];
            // The datagram as its source sent it (`receive` took off the
            // routing header, DSR's, which is routing overhead, but not the
            // old header ns-2.35's DSR may still count).
            let fresh = stats.on_receive(
                now,
                seq,
                packet.created_at,
                packet.size_bytes - u32::from(packet.stale_header_bytes),
                packet.payload_bytes,
                packet.hops,
            );
            if fresh {
                stats.on_route(packet.path);
                self.hop_series.flow.push(flow);
                self.hop_series.t_s.push(to_secs(now));
                self.hop_series.hops.push(packet.hops);
            }
        }
        self.ledger.deliver();
        let tcp_flow = match packet.kind {
            PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }
                if packet.tcp().is_some() =>
            {
                Some(flow)
            }
            _ => None,
        };
        if let Some(flow) = tcp_flow {
            self.on_tcp_delivered(now, flow, &packet);
        }
        if let (Some(header), PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) =
            (packet.tfrc(), packet.kind)
        {
            self.on_tfrc_delivered(now, flow, header);
        }
        if let (Some(chunk), PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) =
            (packet.sctp(), packet.kind)
        {
            self.on_sctp_delivered(now, flow, chunk);
        }
    }

    fn on_app(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        let seq = flow.next_seq;
        flow.next_seq += 1;
        let (src, dst, payload) = (flow.src, flow.dst, flow.payload_bytes);
        if let Some(next) = flow.next_after(now) {
            self.q.schedule_far(next, Event::App { flow: f });
        }
        if self.tcp[f as usize].is_some() {
            self.on_tcp_app(now, f, payload);
            return;
        }
        if self.tfrc[f as usize].is_some() {
            self.on_tfrc_app(now, f);
            return;
        }
        if self.sctp[f as usize].is_some() {
            self.on_sctp_app(now, f);
            return;
        }
        let mut packet = Packet {
            uid: 0,
            kind: PacketKind::Data { flow: f, seq },
            src,
            dst,
            ttl: DEFAULT_TTL,
            size_bytes: payload + UDP_HEADER_BYTES + IP_HEADER_BYTES,
            payload_bytes: payload,
            created_at: now,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: None,
        };
        packet.visit(src);
        self.create(now, &mut packet, false);
        if let Some(t) = &mut self.trace {
            t.agent_sent(now, src, &packet);
        }
        self.flow_stats[f as usize].on_send(now, payload);
        self.route_from(now, src, packet);
    }

    /// Packets still held somewhere when the run ends.
    fn in_flight(&self) -> u64 {
        self.wired.as_ref().map_or(0, |w| w.in_flight())
            + self
                .nodes
                .iter()
                .map(|n| {
                    let in_mac = n.mac.pending_packet().is_some() && !n.handed_over;
                    let held = n.arp.as_ref().map_or(0, |t| t.held() as u64);
                    n.ifq.len() as u64 + in_mac as u64 + n.router.buffered() + held
                })
                .sum::<u64>()
            + self
                .parked
                .iter()
                .flatten()
                .filter(|p| match p {
                    // A broadcast's copy on its way up is not a packet:
                    // the broadcast was delivered when its transmission
                    // ended.
                    Parked::Up { packet, .. } => packet.dst != BROADCAST,
                    Parked::Down { .. } => true,
                })
                .count() as u64
    }

    fn energy_result(&self) -> EnergyResult {
        if self.batteries.is_empty() {
            return EnergyResult::default();
        }
        let consumed: Vec<f64> = self
            .batteries
            .iter()
            .map(|b| b.consumed_j(self.end))
            .collect();
        let total: f64 = consumed.iter().sum();
        let throughput: f64 = self.flow_stats.iter().map(|f| f.throughput_kbps()).sum();
        EnergyResult {
            remaining_j: self
                .batteries
                .iter()
                .map(|b| b.remaining_j(self.end))
                .collect(),
            depleted_at_s: self
                .batteries
                .iter()
                .map(|b| b.depleted_at.map(to_secs))
                .collect(),
            efficiency_kbps_per_j: if total > 0.0 { throughput / total } else { 0.0 },
            consumed_j: consumed,
        }
    }

    fn receive_range_m(&self) -> f64 {
        self.radio.range_for_threshold_m(self.radio.rx_threshold_w)
    }

    fn result(&self, s: &Scenario, wall_s: f64) -> RunResult {
        let initial = self.mobility.initial_positions();
        let flows = self
            .flow_stats
            .iter()
            .zip(&self.flows)
            .enumerate()
            .map(|(i, (st, f))| FlowResult {
                id: i as u32,
                src: f.src,
                dst: f.dst,
                transport: if self.tcp[i].is_some() {
                    "tcp"
                } else if self.tfrc[i].is_some() {
                    "tfrc"
                } else if self.sctp[i].is_some() {
                    "sctp"
                } else {
                    "udp"
                }
                .into(),
                variant: self.tcp[i].as_ref().map(|t| t.variant.to_string()),
                sent: st.sent,
                received: st.received,
                throughput_kbps: st.throughput_kbps(),
                goodput_kbps: st.goodput_kbps(),
                delay_ms: st.delay_ms(),
                jitter_ms: st.jitter_ms(),
                loss_pct: st.loss_pct(),
                retransmissions: match (&self.tcp[i], &self.sctp[i]) {
                    (Some(t), _) => t.sender.metrics().retransmissions,
                    // DATA packets, as for TCP's segments.
                    (_, Some(a)) => a.sender.metrics().retransmitted_packets,
                    _ => 0,
                },
                sent_bytes: st.sent_payload_bytes,
                received_bytes: st.received_payload_bytes,
                hops_mean: st.hops_mean(),
                route_changes: st.route_changes,
                delivered_in_order_bytes: match (&self.tcp[i], &self.sctp[i]) {
                    (Some(t), _) => t.delivered_bytes,
                    (_, Some(a)) => a.delivered_bytes,
                    _ => st.received_payload_bytes,
                },
                completion_s: match (&self.tcp[i], &self.sctp[i]) {
                    (Some(t), _) => t.completed_at,
                    (_, Some(a)) => a.completed_at,
                    _ => None,
                }
                .map(to_secs),
                delivery_delay_ms: match (&self.tcp[i], &self.sctp[i]) {
                    (Some(t), _) => t.delivery_delay.mean_ns(),
                    (_, Some(a)) => a.receiver.mean_delivery_delay(),
                    _ => None,
                }
                .map(|ns| ns / 1e6),
                timeouts: match (&self.tcp[i], &self.sctp[i]) {
                    (Some(t), _) => t.sender.metrics().timeouts,
                    (_, Some(a)) => a.sender.metrics().timeouts,
                    _ => 0,
                },
                spurious_timeouts: self.tcp[i]
                    .as_ref()
                    .map_or(0, |t| t.sender.metrics().spurious_timeouts),
            })
            .collect();
        let drops: BTreeMap<String, u64> = DropReason::ALL
            .iter()
            .map(|r| (r.name().to_string(), self.ledger.dropped(*r)))
            .collect();
        let mut mac = MacResult {
            arp_requests: self.arp_sent.0,
            arp_replies: self.arp_sent.1,
            bit_errors: self.bit_errors.as_ref().map_or(0, |b| b.lost.iter().sum()),
            ..MacResult::default()
        };
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let m = &n.mac.stats;
            mac.retries += m.retries;
            mac.collisions += m.collisions;
            mac.rts_failures += m.rts_failures;
            mac.ack_failures += m.ack_failures;
            mac.frames_sent += m.frames_sent;
            mac.frames_received += m.frames_received;
            mac.captures += m.captures;
            mac.link_failures += m.link_failures;
            let (to_hosts, from_hosts) = self
                .wired
                .as_ref()
                .and_then(|w| w.gateway_index(i as u32).map(|g| (w, g as usize)))
                .map_or((0, 0), |(w, g)| (w.to_hosts[g], w.from_hosts[g]));
            nodes.push(NodeResult {
                id: i as u32,
                x_m: initial[i].x,
                y_m: initial[i].y,
                mac_retries: m.retries,
                mac_collisions: m.collisions,
                frames_sent: m.frames_sent,
                frames_received: m.frames_received,
                queue_drops: n.queue_drops,
                forwarded: n.forwarded,
                to_hosts,
                from_hosts,
            });
        }
        let in_flight = self.in_flight();
        RunResult {
            version: crate::VERSION.to_string(),
            scenario: s.name.clone(),
            seed: s.seed,
            duration_s: to_secs(self.end),
            events: self.events,
            wall_s,
            events_per_s: if wall_s > 0.0 {
                self.events as f64 / wall_s
            } else {
                0.0
            },
            flows,
            drops,
            routing: RoutingResult {
                protocol: self.routing_name.to_string(),
                packets_sent: self.routing_stats.packets,
                bytes_sent: self.routing_stats.bytes,
                originated: self.routing_stats.originated,
                forwarded: self.routing_stats.forwarded,
                route_discoveries: self
                    .nodes
                    .iter()
                    .map(|n| n.router.route_discoveries())
                    .sum(),
                flow_state: self.nodes.iter().fold(
                    crate::metrics::result::FlowStateCounts::default(),
                    |mut t, n| {
                        let c = n.router.flow_state_counts();
                        t.established += c.established;
                        t.by_flow += c.by_flow;
                        t.forwarded += c.forwarded;
                        t.unknown += c.unknown;
                        t.opened += c.opened;
                        t
                    },
                ),
                by_message: self
                    .routing_stats
                    .by_message
                    .iter()
                    .map(|(k, (p, b, f))| {
                        (
                            k.to_string(),
                            MessageCount {
                                packets: *p,
                                bytes: *b,
                                forwarded: *f,
                            },
                        )
                    })
                    .collect(),
            },
            mac,
            energy: self.energy_result(),
            ledger: Ledger {
                created: self.ledger.created,
                delivered: self.ledger.delivered,
                dropped: self.ledger.dropped_total(),
                in_flight,
                balanced: self.ledger.balances(in_flight),
            },
            nodes,
            mobility: MobilityResult::default(),
            timeseries: TimeSeries {
                hops: self.hop_series.clone(),
                energy: self.energy_series.clone(),
                tcp: self.tcp_series.clone(),
                tfrc: self.tfrc_series.clone(),
                sctp: self.sctp_series.clone(),
                ..TimeSeries::default()
            },
            warnings: self
                .warnings
                .iter()
                .cloned()
                .chain(self.sctp_window_warnings())
                .collect(),
        }
    }
}

#[cfg(test)]
mod onoff_tests;
#[cfg(test)]
mod sctp_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tfrc_tests;
#[cfg(test)]
mod wired_tests;

#[allow(dead_code)]
fn _assert_event_is_small() {
    // The heap copies events around; keep them at 24 bytes or less.
    const _: () = assert!(std::mem::size_of::<Event>() <= 24);
    let _ = MacParams::default;
}
