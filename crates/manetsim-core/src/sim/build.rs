//! Builds a [`World`] from a validated scenario.

use super::floods::FloodLog;
use super::sctp::SctpFlow;
use super::tcp::TcpFlow;
use super::tfrc::TfrcFlow;
use super::{Event, Node, SimError, World, GRID_MARGIN_M};
use crate::app::{Cbr, OnOff};
use crate::energy::Battery;
use crate::engine::{from_secs, EventQueue, Rng, SimTime, Stream, TimerSlot, NS_PER_S};
use crate::loss::LossModel;
use crate::mac::{Dcf, FrameSizes, MacParams, PriQueue};
use crate::metrics::{FlowStats, PacketLedger};
use crate::mobility::Mobility;
use crate::net::arp::ArpModel;
use crate::net::NodeId;
use crate::net::RoutingProtocol as _;
use crate::phy::{Pos, RadioParams, SpatialGrid};
use crate::routing::aodv::{GatewayAdvertising, InternetGateway, LinkDetection};
use crate::routing::aomdv::{Aomdv, AomdvConfig, Disjoint};
use crate::routing::dsdv::{Dsdv, DsdvConfig};
use crate::routing::dsr::{CacheModel, Dsr, DsrConfig};
use crate::routing::olsr::{Olsr, OlsrConfig};
use crate::routing::{Aodv, AodvConfig, Router, StaticRoutes, StaticRouting};
use crate::scenario::{
    AodvLinkDetection, AodvOptions, AodvPreset, AomdvDisjoint, AomdvIdPurge, AomdvMessageSizes,
    AomdvOptions, AomdvTargetReplies, AppKind, DsdvOptions, DsrOptions, DsrPreset, Gateway,
    GatewayDiscovery, GatewayForwarding, OlsrOptions, Placement, RoutingProtocol, Scenario,
    Transport,
};
use std::rc::Rc;

/// AODV's parameters from `[routing.aodv]` (absent: the RFC preset's defaults).
pub fn aodv_config(options: Option<&AodvOptions>) -> AodvConfig {
    let o = options.cloned().unwrap_or_default();
    let base = match o.preset {
        AodvPreset::Rfc => AodvConfig::default(),
        AodvPreset::Ns2 => AodvConfig::ns2(),
        AodvPreset::AodvUu => AodvConfig::default(),
    };
    let uu = o.preset == AodvPreset::AodvUu;
    let detection = o.link_detection.unwrap_or(if uu {
        AodvLinkDetection::Hello
    } else {
        AodvLinkDetection::Mac
    });
    let mut cfg = AodvConfig {
        link_detection: match detection {
            AodvLinkDetection::Mac => LinkDetection::MacFeedback,
            AodvLinkDetection::Hello => LinkDetection::Hello,
        },
        local_repair: o.local_repair.unwrap_or(!uu),
        gratuitous_rrep: o.gratuitous_rrep,
        destination_only: o.destination_only,
        ..base
    };
    if uu {
        // AODV-UU's params.h: HELLO mode and link-layer-feedback mode differ.
        let hello = detection == AodvLinkDetection::Hello;
        cfg.active_route_timeout = if hello { 3 } else { 10 } * NS_PER_S;
        cfg.ttl_start = if hello { 2 } else { 1 };
        cfg.allowed_hello_loss = 2;
        cfg.my_route_timeout = 2 * cfg.active_route_timeout;
        cfg.gratuitous_for_tcp = true;
    }
    if let Some(x) = o.hello_interval_s {
        cfg.hello_interval = from_secs(x);
    }
    if let Some(x) = o.active_route_timeout_s {
        cfg.active_route_timeout = from_secs(x);
    }
    cfg
}

/// AOMDV's parameters from `[routing.aomdv]` (absent: ns-2.35's constants
/// with MAC feedback).
pub fn aomdv_config(options: Option<&AomdvOptions>) -> AomdvConfig {
    let mut cfg = AomdvConfig::default();
    if let Some(o) = options {
        cfg.link_detection = match o.link_detection {
            AodvLinkDetection::Mac => LinkDetection::MacFeedback,
            AodvLinkDetection::Hello => LinkDetection::Hello,
        };
        cfg.hello_interval = from_secs(o.hello_interval_s);
        cfg.disjoint = match o.disjoint {
            AomdvDisjoint::Link => Disjoint::Link,
            AomdvDisjoint::Node => Disjoint::Node,
        };
        cfg.rerr_limits = o.rerr_rate_limit;
        cfg.ns2_message_sizes = o.message_sizes == AomdvMessageSizes::Ns2;
        cfg.ns2_target_replies = o.target_replies == AomdvTargetReplies::Ns2;
        if o.id_purge == AomdvIdPurge::Ns2 {
            cfg.rreq_id_purge_tick = cfg.rreq_id_save;
        }
    }
    cfg
}

/// DSDV's parameters from `[routing.dsdv]` (absent: ns-2.35's defaults).
pub fn dsdv_config(options: Option<&DsdvOptions>) -> DsdvConfig {
    let mut cfg = DsdvConfig::default();
    if let Some(o) = options {
        cfg.mac_feedback = o.mac_feedback;
        cfg.periodic_update_interval = from_secs(o.periodic_update_interval_s);
        cfg.min_update_periods = o.min_update_periods;
    }
    cfg
}

/// OLSR's parameters from `[routing.olsr]` (absent: RFC 3626's).
pub fn olsr_config(options: Option<&OlsrOptions>) -> OlsrConfig {
    let mut cfg = OlsrConfig::default();
    if let Some(o) = options {
        let hello = from_secs(o.hello_interval_s);
        let tc = from_secs(o.tc_interval_s);
        cfg.link_layer_notification = o.link_layer_notification;
        cfg.willingness = o.willingness;
        // RFC 3626 section 18.3: the hold times and MAXJITTER follow the intervals.
        cfg.hello_interval = hello;
        cfg.neighb_hold = 3 * hello;
        cfg.max_jitter = hello / 4;
        cfg.tc_interval = tc;
        cfg.top_hold = 3 * tc;
    }
    cfg
}

/// DSR's parameters from `[routing.dsr]` (absent: ns-2.35's defaults):
/// the preset's, then the table's own keys.
pub fn dsr_config(options: Option<&DsrOptions>) -> DsrConfig {
    let Some(o) = options else {
        return DsrConfig::default();
    };
    let mut cfg = match o.preset {
        DsrPreset::Rfc => DsrConfig::default(),
        DsrPreset::Ns2 => DsrConfig::ns2(),
    };
    cfg.gratuitous_replies = o.gratuitous_replies;
    if let Some(on) = o.flow_state {
        cfg.flow_state = on;
    }
    cfg
}

/// Initial positions from `[nodes]`.
pub fn placement(s: &Scenario) -> Result<Vec<Pos>, SimError> {
    let n = s.nodes.count as usize;
    let sp = s.nodes.spacing_m;
    Ok(match s.nodes.placement {
        Placement::Chain => (0..n).map(|i| Pos::new(i as f64 * sp, 0.0)).collect(),
        Placement::Grid => {
            let cols = s.nodes.cols.unwrap_or(1).max(1) as usize;
            (0..n)
                .map(|i| Pos::new((i % cols) as f64 * sp, (i / cols) as f64 * sp))
                .collect()
        }
        Placement::Uniform => {
            let mut rng = Rng::new(s.seed, Stream::Placement, 0);
            (0..n)
                .map(|_| {
                    Pos::new(
                        rng.range(0.0, s.area.width_m),
                        rng.range(0.0, s.area.height_m),
                    )
                })
                .collect()
        }
        Placement::Explicit => {
            let ps = s.nodes.positions.as_ref().ok_or_else(|| {
                SimError::Setup("nodes.positions is required for explicit placement".into())
            })?;
            if ps.len() != n {
                return Err(SimError::Setup(format!(
                    "nodes.positions has {} entries for {n} nodes",
                    ps.len()
                )));
            }
            ps.iter().map(|p| Pos::new(p[0], p[1])).collect()
        }
    })
}

/// Directed neighbour lists: `m` is a neighbour of `n` when `n`'s frames
/// reach `m` at or above the receive threshold (mean power).
fn neighbours(pos: &[Pos], grid: &SpatialGrid, radio: &RadioParams) -> Vec<Vec<NodeId>> {
    pos.iter()
        .enumerate()
        .map(|(i, p)| {
            let mut v = Vec::new();
            grid.for_each_near(*p, |j| {
                if j as usize != i
                    && radio.mean_rx_power_w(p.distance(&pos[j as usize])) >= radio.rx_threshold_w
                {
                    v.push(j);
                }
            });
            v.sort_unstable();
            v
        })
        .collect()
}

pub(super) fn build(s: &Scenario) -> Result<World, SimError> {
    let routing = match s.routing.protocol {
        RoutingProtocol::Static => "static",
        RoutingProtocol::Aodv => "aodv",
        RoutingProtocol::Dsr => "dsr",
        RoutingProtocol::Dsdv => "dsdv",
        RoutingProtocol::Aomdv => "aomdv",
        RoutingProtocol::Olsr => "olsr",
    };
    for (i, f) in s.flows.iter().enumerate() {
        let supported = matches!(
            (f.transport, f.app),
            (Transport::Udp, AppKind::Cbr | AppKind::Onoff)
                | (
                    Transport::Tcp | Transport::Tfrc | Transport::Sctp,
                    AppKind::Cbr | AppKind::Ftp | AppKind::Onoff
                )
        );
        if !supported {
            return Err(SimError::Setup(format!(
                "flow {i}: only UDP with CBR or on-off, and TCP, TFRC or SCTP with FTP, CBR or on-off are supported"
            )));
        }
        let endpoints = s.nodes.count + s.gateway.as_ref().map_or(0, |g| g.hosts);
        if f.src >= endpoints || f.dst >= endpoints || f.src == f.dst {
            return Err(SimError::Setup(format!("flow {i}: bad src/dst")));
        }
    }

    let placed = placement(s)?;
    let mobility =
        Mobility::from_scenario(s, &placed).map_err(|e| SimError::Setup(e.to_string()))?;
    let pos = mobility.initial_positions();
    let radio = RadioParams::from_scenario(&s.radio).correlate_fading(&s.radio, s.seed);
    let range = radio.max_interference_range_m();
    let (mut w, mut h) = (s.area.width_m, s.area.height_m);
    for p in &pos {
        w = w.max(p.x);
        h = h.max(p.y);
    }
    // Moving nodes are re-filed in the grid lazily, at most every
    // GRID_MARGIN_M / max speed seconds; cells are widened by the margin so
    // a node is always found while it is within range.
    let margin_m = if mobility.is_static() {
        0.0
    } else {
        GRID_MARGIN_M
    };
    let grid_refresh_ns = if mobility.is_static() || mobility.max_speed_mps() <= 0.0 {
        SimTime::MAX
    } else {
        from_secs(margin_m / mobility.max_speed_mps()).max(1)
    };
    let mut grid = SpatialGrid::new(w, h, range + margin_m);
    for (i, p) in pos.iter().enumerate() {
        grid.insert(i as u32, *p);
    }
    let mac_params = Rc::new(mac_params(s));

    // Routes towards every flow endpoint: TCP's ACKs travel back to the source.
    // Static routing follows them; over nodes that never move they also say
    // which flows can never be delivered, whatever the protocol. (Over moving
    // nodes a routing protocol may find a route later, and the search costs
    // seconds at 10,000 nodes: it is not made.)
    let static_routing = matches!(s.routing.protocol, RoutingProtocol::Static);
    // Where a flow's packets start and end in the MANET: a host's at any
    // gateway.
    let manet_ends = |n: NodeId| -> Vec<NodeId> {
        match &s.gateway {
            Some(g) if n >= s.nodes.count => g.node.ids().to_vec(),
            _ => vec![n],
        }
    };
    let table = (static_routing || mobility.is_static()).then(|| {
        let dests: Vec<NodeId> = s
            .flows
            .iter()
            .flat_map(|f| [manet_ends(f.dst), manet_ends(f.src)])
            .flatten()
            .collect();
        Rc::new(StaticRoutes::compute(
            &neighbours(&pos, &grid, &radio),
            &dests,
        ))
    });
    let mut warnings = crate::mobility::scenario_warnings(s);
    for (i, f) in s.flows.iter().enumerate() {
        let (ends_a, ends_b) = (manet_ends(f.src), manet_ends(f.dst));
        let unrouted = |t: &StaticRoutes| {
            ends_a
                .iter()
                .all(|&a| ends_b.iter().all(|&b| a != b && t.next_hop(a, b).is_none()))
        };
        let (a, b) = (ends_a[0], ends_b[0]);
        if table.as_ref().is_some_and(|t| unrouted(t)) {
            warnings.push(format!(
                "flow {i}: node {a} has no route to node {b} in the initial topology \
                 (receive range {:.0} m); every packet will be dropped as no_route",
                radio.range_for_threshold_m(radio.rx_threshold_w)
            ));
        }
    }
    // The MAC waits for a CTS or ACK only `max_prop_delay_ns` of
    // propagation each way (by default ns-2.35's 2 µs): a neighbour
    // farther than that answers too late, every time.
    let answer_m = mac_params.max_prop_delay_ns as f64 * 1e-9 * crate::phy::SPEED_OF_LIGHT_MPS;
    let rx_range_m = radio.range_for_threshold_m(radio.rx_threshold_w);
    if rx_range_m > answer_m && s.area.width_m.hypot(s.area.height_m) > answer_m {
        // The delay that covers the range, rounded up to 0.1 µs.
        let needed_s = (rx_range_m / crate::phy::SPEED_OF_LIGHT_MPS * 1e7).ceil() / 1e7;
        warnings.push(format!(
            "radio: frames are received up to {rx_range_m:.0} m, but a sender waits for a CTS \
             or ACK only {:.3} µs of propagation each way (mac.max_propagation_delay_s): \
             exchanges between nodes more than {answer_m:.0} m apart always time out; \
             mac.max_propagation_delay_s = {needed_s:e} covers the range",
            mac_params.max_prop_delay_ns as f64 / 1e3
        ));
    }
    let mut aodv_config = aodv_config(s.routing.aodv.as_ref());
    let aodv_uu = s
        .routing
        .aodv
        .as_ref()
        .is_some_and(|o| o.preset == AodvPreset::AodvUu);
    if aodv_uu {
        aodv_config.gateway = s.gateway.as_ref().map(|g| InternetGateway {
            nodes: g.node.ids().to_vec(),
            first_host: s.nodes.count,
            advertising: gateway_advertising(g),
        });
    }
    let dsr_config = dsr_config(s.routing.dsr.as_ref());
    // ns-2's DSR runs over its CMUPriQueue: the ns2 preset does too.
    let cmu_queue =
        s.routing.protocol == RoutingProtocol::Dsr && dsr_config.cache == CacheModel::Ns2;
    let mut dsdv_config = dsdv_config(s.routing.dsdv.as_ref());
    dsdv_config.drop_internet_without_route = s
        .gateway
        .as_ref()
        .is_some_and(|g| g.forwarding == GatewayForwarding::BaseStation);
    // One configuration shared by every node's routing agent, not a copy
    // in each (64-184 bytes a node).
    let aodv_config = Rc::new(aodv_config);
    let aomdv_config = Rc::new(aomdv_config(s.routing.aomdv.as_ref()));
    let dsr_config = Rc::new(dsr_config);
    let dsdv_config = Rc::new(dsdv_config);
    let mut olsr_config = olsr_config(s.routing.olsr.as_ref());
    if let Some(g) = &s.gateway {
        // RFC 3626 section 18.3: HNA_HOLD_TIME is 3 × HNA_INTERVAL.
        olsr_config.hna_interval = from_secs(g.advertisement_interval_s).max(1);
        olsr_config.hna_hold = 3 * olsr_config.hna_interval;
    }
    let olsr_config = Rc::new(olsr_config);
    let queue_packets = s.mac.queue_packets as usize;
    let mut nodes: Vec<Node> = (0..s.nodes.count)
        .map(|i| Node {
            mac: Dcf::new(
                i,
                Rc::clone(&mac_params),
                radio.capture_ratio,
                radio.rx_threshold_w,
                Rng::new(s.seed, Stream::MacBackoff, i as u64),
            ),
            ifq: if cmu_queue {
                PriQueue::cmu(queue_packets)
            } else {
                PriQueue::new(queue_packets)
            },
            router: match s.routing.protocol {
                RoutingProtocol::Dsr => Router::Dsr(Box::new(Dsr::new(i, Rc::clone(&dsr_config)))),
                RoutingProtocol::Dsdv => {
                    Router::Dsdv(Box::new(Dsdv::new(i, Rc::clone(&dsdv_config))))
                }
                RoutingProtocol::Aodv => {
                    Router::Aodv(Box::new(Aodv::new(i, Rc::clone(&aodv_config))))
                }
                RoutingProtocol::Aomdv => {
                    Router::Aomdv(Box::new(Aomdv::new(i, Rc::clone(&aomdv_config))))
                }
                RoutingProtocol::Olsr => {
                    let olsr = Olsr::new(i, Rc::clone(&olsr_config));
                    Router::Olsr(Box::new(match &s.gateway {
                        Some(g) => olsr.with_gateways(g.node.ids().contains(&i)),
                        None => olsr,
                    }))
                }
                RoutingProtocol::Static => Router::Static(StaticRouting::new(
                    i,
                    Rc::clone(table.as_ref().expect("static routing has its table")),
                )),
            },
            routing_rng: Rng::new(s.seed, Stream::Routing, i as u64),
            routing_timer: TimerSlot::default(),
            handed_over: false,
            forwarded: 0,
            queue_drops: 0,
            arp: (s.mac.arp == ArpModel::Ns2).then(Box::default),
            lazy: super::Lazy::new(),
        })
        .collect();
    // Promiscuous MACs only where the routing agent overhears.
    let mut promiscuous = false;
    let mut tap_control = false;
    for node in &mut nodes {
        if node.router.wants_promiscuous() {
            node.mac.set_promiscuous(true);
            promiscuous = true;
            if node.router.overhears_control() {
                node.mac.set_promiscuous_with_control();
                tap_control = true;
            }
        }
    }

    // Floods the world keeps track of (see `floods`): not with loss models,
    // batteries or promiscuous MACs, whose receptions do more.
    let flood_memory = nodes.first().map_or(0, |n| n.router.flood_memory());
    let floods = (flood_memory > 0 && !promiscuous && s.loss.is_empty() && s.energy.is_none())
        .then(|| FloodLog::new(nodes.len(), flood_memory));

    let shadow_rng = if radio.draws() {
        (0..s.nodes.count as u64)
            .map(|i| Rng::new(s.seed, Stream::Shadowing, i))
            .collect()
    } else {
        Vec::new()
    };

    let end = from_secs(s.duration_s);
    let mut q = EventQueue::new();
    if s.energy.is_some() {
        q.schedule_far(0, Event::EnergySample);
    }
    let mut flows = Vec::with_capacity(s.flows.len());
    for (i, f) in s.flows.iter().enumerate() {
        let jitter = if f.start_jitter_s > 0.0 {
            Rng::new(s.seed, Stream::FlowStart, i as u64).range(0.0, f.start_jitter_s)
        } else {
            0.0
        };
        let start_ns = from_secs(f.start_s + jitter);
        let stop_ns = from_secs(f.stop_s.unwrap_or(s.duration_s)).min(end);
        // An FTP source has no interval: its one App event starts it.
        let interval_ns = if f.app == AppKind::Ftp {
            SimTime::MAX / 2
        } else {
            Cbr::interval_ns(f.packet_size_bytes, f.rate_bps, f.interval_s)
        };
        let onoff = f
            .onoff
            .as_ref()
            .filter(|_| f.app == AppKind::Onoff)
            .map(|o| OnOff::new(o, interval_ns, s.seed, i as u64));
        let mut cbr = Cbr {
            src: f.src,
            dst: f.dst,
            payload_bytes: f.packet_size_bytes,
            interval_ns,
            start_ns,
            stop_ns,
            next_seq: 0,
            onoff,
        };
        if let Some(first) = cbr.first() {
            q.schedule_far(first, Event::App { flow: i as u32 });
        }
        flows.push(cbr);
    }

    if s.radio.error_model == crate::scenario::ErrorModelKind::Awgn {
        for node in &mut nodes {
            node.mac.track_interference();
        }
    }
    if s.mac.rate_control != crate::scenario::RateControlKind::Constant {
        // The standard's rates up to `data_rate_bps`, ascending.
        let mut rates: Vec<u64> = crate::mac::MacStandard::parse(&s.mac.standard)
            .and_then(|st| st.rates_bps())
            .unwrap_or(&[])
            .iter()
            .copied()
            .filter(|&r| r <= s.mac.data_rate_bps)
            .collect();
        rates.sort_unstable();
        if !rates.is_empty() {
            use crate::mac::{Arf, Minstrel, RateControl};
            use crate::scenario::RateControlKind;
            for (i, node) in nodes.iter_mut().enumerate() {
                let rc = match s.mac.rate_control {
                    RateControlKind::Aarf => RateControl::Arf(Arf::adaptive(rates.clone())),
                    // One rate leaves Minstrel nothing to choose: as ns-3,
                    // the MAC's retry limit then holds.
                    RateControlKind::Minstrel if rates.len() > 1 => {
                        RateControl::Minstrel(Minstrel::new(
                            rates.clone(),
                            &mac_params,
                            Rng::new(s.seed, Stream::RateControl, i as u64),
                        ))
                    }
                    _ => RateControl::Arf(Arf::new(rates.clone())),
                };
                node.mac.use_rate_control(rc);
            }
        }
    }
    Ok(World {
        q,
        end,
        wired: s.gateway.as_ref().map(|g| {
            let mut w = super::wired::Wired::new(g, s.nodes.count);
            w.ns2_bare_from_hosts = g.forwarding == GatewayForwarding::BaseStation
                && mac_params.frames == FrameSizes::Ns2;
            w
        }),
        nodes,
        pos,
        grid,
        radio,
        shadow_rng,
        air: Vec::new(),
        air_free: Vec::new(),
        next_serial: 0,
        overhear_lazily: true,
        #[cfg(any(test, feature = "parallel-probe"))]
        parallel: None,
        trace: None,
        pcap: None,
        promiscuous,
        tap_control,
        lazy_receptions: 0,
        seen_floods: 0,
        floods,
        eager_power_w: Default::default(),
        phased: s.mac.tie_rule == crate::mac::TieRule::Ns2,
        response_rates: s.mac.response_rate == crate::mac::ResponseRate::Standard,
        rx_end_hooks: !s.loss.is_empty()
            || s.radio.error_model != crate::scenario::ErrorModelKind::None
            || s.mac.response_rate == crate::mac::ResponseRate::Standard
            || (s.output.pcap && s.output.pcap_radiotap),
        rx_signal_w: None,
        ll_delay_ns: from_secs(s.mac.ll_delay_s),
        parked: Vec::new(),
        parked_free: Vec::new(),
        prefilter_m: range + GRID_MARGIN_M + 1.0,
        sense_cutoff_m2: radio.sense_cutoff_m().powi(2),
        due: Vec::new(),
        listeners: Vec::new(),
        holding: false,
        failed_next_hop: 0,
        failed_frame: (u64::MAX, 0, 0, u32::MAX),
        made_from: None,
        held: Vec::new(),
        heard: Vec::new(),
        faint: Vec::new(),
        prefetch_listeners: s.nodes.count as usize >= super::PREFETCH_MIN_NODES,
        flow_stats: vec![FlowStats::default(); flows.len()],
        flows,
        ledger: PacketLedger::default(),
        next_uid: 0,
        events: 0,
        out: Vec::with_capacity(16),
        routing_name: routing,
        warnings,
        moving: !mobility.is_static(),
        mobility,
        grid_refresh_ns,
        grid_valid_until: grid_refresh_ns,
        routing_out: Vec::with_capacity(8),
        routing_stats: Default::default(),
        arp_sent: (0, 0),
        hop_series: Default::default(),
        losses: s
            .loss
            .iter()
            .enumerate()
            .map(|(i, l)| LossModel::from_scenario(l, s.seed, i))
            .collect(),
        bit_errors: super::bit_errors::BitErrors::from_scenario(s, *mac_params),
        emptied: Vec::new(),
        tcp: s
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (f.transport == Transport::Tcp).then(|| TcpFlow::from_scenario(f, s.seed, i))
            })
            .collect(),
        tcp_series: Default::default(),
        tfrc: s
            .flows
            .iter()
            .map(|f| (f.transport == Transport::Tfrc).then(|| TfrcFlow::from_scenario(f)))
            .collect(),
        tfrc_series: Default::default(),
        sctp: s
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (f.transport == Transport::Sctp).then(|| SctpFlow::from_scenario(f, s.seed, i))
            })
            .collect(),
        sctp_series: Default::default(),
        batteries: match &s.energy {
            Some(e) => (0..s.nodes.count).map(|_| Battery::new(e)).collect(),
            None => Vec::new(),
        },
        energy_series: Default::default(),
    })
}

/// The MAC's parameters for scenario `s`.
pub(crate) fn mac_params(s: &Scenario) -> MacParams {
    let mut mac_params = MacParams::from_scenario(&s.mac);
    if s.routing.protocol == RoutingProtocol::Aodv {
        // ns-2.35's AODV adds no IP header to TCP packets (the others do).
        mac_params.ns2_tcp_extra_bytes = 0;
    }
    mac_params
}

/// `[gateway] discovery`'s advertisements, or `None` for reactive discovery.
fn gateway_advertising(g: &Gateway) -> Option<GatewayAdvertising> {
    let interval = from_secs(g.advertisement_interval_s).max(1);
    match g.discovery {
        GatewayDiscovery::Reactive => None,
        GatewayDiscovery::Proactive => Some(GatewayAdvertising {
            interval,
            zone_hops: None,
            reactive_fallback: false,
        }),
        GatewayDiscovery::Hybrid => Some(GatewayAdvertising {
            interval,
            zone_hops: Some(g.advertisement_zone_hops.min(u8::MAX as u32) as u8),
            reactive_fallback: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(preset: AodvPreset, detection: Option<AodvLinkDetection>) -> AodvOptions {
        AodvOptions {
            preset,
            link_detection: detection,
            ..AodvOptions::default()
        }
    }

    #[test]
    fn dsr_presets_give_every_field_of_their_config() {
        assert_eq!(dsr_config(None), DsrConfig::default());
        let ns2 = DsrOptions {
            preset: DsrPreset::Ns2,
            ..DsrOptions::default()
        };
        // The whole preset (a field copied one by one once left ns-2.35's
        // tap rules out of the scenarios).
        assert_eq!(dsr_config(Some(&ns2)), DsrConfig::ns2());
        assert_eq!(
            dsr_config(Some(&DsrOptions::default())),
            DsrConfig::default()
        );
        let off = DsrOptions {
            gratuitous_replies: false,
            flow_state: Some(false),
            ..ns2
        };
        let cfg = dsr_config(Some(&off));
        assert!(!cfg.gratuitous_replies && !cfg.flow_state);
        assert!(cfg.tap_once && cfg.tap_unwraps_errors);
    }

    #[test]
    fn aodv_presets_give_their_constants() {
        let rfc = aodv_config(None);
        assert_eq!(rfc, AodvConfig::default());
        assert_eq!((rfc.ttl_start, rfc.net_diameter), (1, 35));
        let ns2 = aodv_config(Some(&options(AodvPreset::Ns2, None)));
        assert_eq!(ns2, AodvConfig::ns2());
        // AODV-UU's params.h: HELLO mode …
        let uu = aodv_config(Some(&options(AodvPreset::AodvUu, None)));
        assert_eq!(uu.link_detection, LinkDetection::Hello);
        assert_eq!(uu.ttl_start, 2);
        assert_eq!(uu.active_route_timeout, 3 * NS_PER_S);
        assert_eq!(uu.my_route_timeout, 6 * NS_PER_S);
        assert_eq!(uu.allowed_hello_loss, 2);
        assert!(!uu.local_repair);
        assert_eq!((uu.net_diameter, uu.rreq_retries), (35, 2));
        // … and link-layer-feedback mode.
        let llf = aodv_config(Some(&options(
            AodvPreset::AodvUu,
            Some(AodvLinkDetection::Mac),
        )));
        assert_eq!(llf.link_detection, LinkDetection::MacFeedback);
        assert_eq!(llf.ttl_start, 1);
        assert_eq!(llf.active_route_timeout, 10 * NS_PER_S);
        // Explicit keys win over the preset.
        let mut o = options(AodvPreset::AodvUu, None);
        o.local_repair = Some(true);
        o.active_route_timeout_s = Some(5.0);
        o.hello_interval_s = Some(0.5);
        let c = aodv_config(Some(&o));
        assert!(c.local_repair);
        assert_eq!(c.active_route_timeout, 5 * NS_PER_S);
        assert_eq!(c.hello_interval, NS_PER_S / 2);
    }
}
