//! The machine-readable result of one run (`manetsim run FILE --json`).
//!
//! Field names are the public interface in `SCENARIO.md`; fields beyond that
//! page are additions documented in `docs/results.md`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a run reports. Serialises to the JSON object of `SCENARIO.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub version: String,
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Events the engine processed (stale, cancelled timers excluded); each
    /// reception start and end counts once, queued or replayed.
    pub events: u64,
    /// Wall-clock time of the simulation proper (not loading or reporting).
    pub wall_s: f64,
    pub events_per_s: f64,
    pub flows: Vec<FlowResult>,
    /// Packets dropped, by reason (snake_case reason names, see `DropReason`).
    pub drops: BTreeMap<String, u64>,
    pub routing: RoutingResult,
    pub mac: MacResult,
    pub energy: EnergyResult,
    /// The packet-conservation ledger.
    pub ledger: Ledger,
    /// Per-node counters, indexed by node id.
    pub nodes: Vec<NodeResult>,
    /// Node movement summary (see `timeseries.mobility` for the series).
    pub mobility: MobilityResult,
    /// Time series, column-oriented.
    pub timeseries: TimeSeries,
    /// Things to check before trusting the results (e.g. a flow with no
    /// route). The CLI prints them on stderr.
    pub warnings: Vec<String>,
}

/// Movement summary over the samples of `timeseries.mobility`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MobilityResult {
    pub model: String,
    /// Mean over samples of the mean node speed.
    pub mean_speed_mps: f64,
    /// Mean over samples of the mean number of neighbours within receive range.
    pub mean_degree: f64,
    /// Link up plus link down events between consecutive samples.
    pub link_changes: u64,
    pub sample_interval_s: f64,
}

/// Column-oriented time series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    pub mobility: MobilitySeries,
    pub hops: HopSeries,
    /// Empty without `[energy]`.
    pub energy: EnergySeries,
    /// TCP senders' state, one row whenever it changed (empty without TCP).
    pub tcp: TcpSeries,
    /// TFRC senders' state, one row whenever the rate or `p` changed
    /// (empty without TFRC).
    pub tfrc: TfrcSeries,
    /// SCTP senders' state, one row whenever it changed (empty without
    /// SCTP).
    pub sctp: SctpSeries,
}

/// The state of each SCTP association's sending end over time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SctpSeries {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    pub cwnd_bytes: Vec<u32>,
    pub ssthresh_bytes: Vec<u32>,
    /// Bytes of DATA outstanding (sent, not acknowledged, not marked lost).
    pub flight_bytes: Vec<u32>,
    /// `null` before the first RTT measurement.
    pub srtt_ms: Vec<Option<f64>>,
    pub rto_ms: Vec<f64>,
    pub retransmissions: Vec<u64>,
}

/// The state of each TFRC sender over time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TfrcSeries {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    /// The allowed sending rate `X`.
    pub rate_kbps: Vec<f64>,
    /// The sender's RTT estimate (`null` before the first feedback).
    pub rtt_ms: Vec<Option<f64>>,
    /// The loss event rate `p` the receiver last reported.
    pub loss_event_rate: Vec<f64>,
    /// Packets the application handed over that wait for their turn.
    pub queued_packets: Vec<u64>,
}

/// The state of each TCP sender over time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TcpSeries {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    pub cwnd_packets: Vec<f64>,
    /// `null` while ssthresh is still "infinite" (before the first loss).
    pub ssthresh_packets: Vec<Option<f64>>,
    /// `null` before the first RTT sample.
    pub srtt_ms: Vec<Option<f64>>,
    pub rto_ms: Vec<f64>,
    /// Highest sequence number sent (bytes) and cumulatively acknowledged.
    pub seq_sent_bytes: Vec<u64>,
    pub seq_acked_bytes: Vec<u64>,
    pub retransmissions: Vec<u64>,
}

/// One row per delivered data packet: its flow, arrival time and hop count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HopSeries {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    pub hops: Vec<u16>,
}

/// Sampled every `mobility.sample_interval_s` from 0 to the end of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MobilitySeries {
    pub t_s: Vec<f64>,
    pub mean_speed_mps: Vec<f64>,
    pub mean_degree: Vec<f64>,
    /// Links that came up / went down since the previous sample.
    pub links_up: Vec<u64>,
    pub links_down: Vec<u64>,
}

/// Per-flow figures at the application layer (definitions in `SCENARIO.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowResult {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub transport: String,
    /// TCP congestion-control variant; `null` for other transports.
    pub variant: Option<String>,
    pub sent: u64,
    pub received: u64,
    pub throughput_kbps: f64,
    pub goodput_kbps: f64,
    pub delay_ms: f64,
    pub jitter_ms: f64,
    pub loss_pct: f64,
    pub retransmissions: u64,
    /// Added: payload bytes sent and delivered (unique).
    pub sent_bytes: u64,
    pub received_bytes: u64,
    /// Added: mean hop count of delivered packets.
    pub hops_mean: f64,
    /// Added: times a delivered packet took a different route (sequence of
    /// nodes) from the previously delivered one.
    pub route_changes: u64,
    /// Added: TCP, bytes the receiver delivered to the application in
    /// order (each byte once); other transports, `received_bytes`.
    pub delivered_in_order_bytes: u64,
    /// Added: an FTP flow with `transfer_bytes`, the time its last byte
    /// reached the application; `null` otherwise or if it never did.
    pub completion_s: Option<f64>,
    /// Added: TCP and SCTP, the mean time from a data segment's (SCTP: a
    /// message's) first transmission to the delivery of its last byte to
    /// the receiving application (network delay, retransmissions and the
    /// wait behind earlier data: for SCTP, of its stream); `null` for UDP
    /// and TFRC, or before anything is delivered.
    #[serde(default)]
    pub delivery_delay_ms: Option<f64>,
    /// Added: TCP, retransmission timeouts; SCTP, T3-rtx expiries; 0 for
    /// UDP and TFRC.
    #[serde(default)]
    pub timeouts: u64,
    /// Added: TCP with `frto`, the timeouts F-RTO found spurious; else 0.
    #[serde(default)]
    pub spurious_timeouts: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutingResult {
    pub protocol: String,
    /// Routing-control packets sent (each hop's transmission counts once,
    /// counted when the agent hands it to the interface queue), and their IP bytes.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Added: of `packets_sent`, those this node created / relayed for another.
    pub originated: u64,
    pub forwarded: u64,
    /// Added: packets and bytes per message type (e.g. "rreq", "rrep").
    pub by_message: BTreeMap<String, MessageCount>,
    /// Added: route discoveries started, summed over nodes (a first request
    /// for a destination, not its retries; 0 for proactive protocols).
    pub route_discoveries: u64,
    /// Added: DSR's flow state, summed over nodes (all 0 without it).
    #[serde(default)]
    pub flow_state: FlowStateCounts,
}

/// What DSR's flow state did (RFC 4728 section 3.5), summed over nodes;
/// ns-2.35's trace names the same events `SFESTs`, `SFs`, `SFf`, `SFErr`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStateCounts {
    /// Data packets a source sent carrying its route to establish (or
    /// advertise again) a flow.
    pub established: u64,
    /// Data packets a source sent by flow: with the flow header or none.
    pub by_flow: u64,
    /// Packets a relay forwarded by its flow table.
    pub forwarded: u64,
    /// Packets of a flow a relay did not know (salvaged, the source told).
    pub unknown: u64,
    /// Added: flows sources opened (a new flow id each: a first route to a
    /// destination, or a route change). ns-2.35's trace has no line of its
    /// own for it; its `SFESTs` lines name each flow's id.
    #[serde(default)]
    pub opened: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageCount {
    pub packets: u64,
    pub bytes: u64,
    /// Added: of `packets`, those relayed for another node (as `forwarded`
    /// above counts them); the rest this node created.
    #[serde(default)]
    pub forwarded: u64,
}

/// MAC counters summed over all nodes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MacResult {
    /// Retransmission attempts of RTS or DATA frames.
    pub retries: u64,
    /// Receptions destroyed by overlap (no capture) at any receiver.
    pub collisions: u64,
    /// RTS frames that got no CTS in time.
    pub rts_failures: u64,
    /// DATA frames that got no ACK in time.
    pub ack_failures: u64,
    /// Frames put on the air (all types).
    pub frames_sent: u64,
    /// Frames received intact.
    pub frames_received: u64,
    /// Receptions won by the stronger frame (capture).
    pub captures: u64,
    /// Link failures reported up to routing (retry limit reached).
    pub link_failures: u64,
    /// Added: ARP requests (broadcast) and replies sent, with `[mac] arp`.
    pub arp_requests: u64,
    pub arp_replies: u64,
    /// Added: frames for their receiver lost to bit errors, with `[radio]
    /// error_model = "awgn"` (0 without).
    #[serde(default)]
    pub bit_errors: u64,
}

/// Energy per node; the lists are empty when the scenario has no `[energy]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnergyResult {
    pub consumed_j: Vec<f64>,
    pub remaining_j: Vec<f64>,
    /// Added: when each node's battery ran out (`null`: it did not).
    pub depleted_at_s: Vec<Option<f64>>,
    /// Added: energy efficiency η = Σ flow throughput (kbit/s) / Σ consumed
    /// energy (J), as chocheung2006 (eq. 3) defines it; 0 without `[energy]`.
    pub efficiency_kbps_per_j: f64,
}

/// Remaining battery energy of every node, sampled every second.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnergySeries {
    pub t_s: Vec<f64>,
    pub node: Vec<u32>,
    pub remaining_j: Vec<f64>,
}

/// Packet conservation: `created == delivered + dropped + in_flight`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub balanced: bool,
}

/// Per-node counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeResult {
    pub id: u32,
    pub x_m: f64,
    pub y_m: f64,
    pub mac_retries: u64,
    pub mac_collisions: u64,
    pub frames_sent: u64,
    pub frames_received: u64,
    pub queue_drops: u64,
    pub forwarded: u64,
    /// Added: a gateway's packets taken out of the tunnel and sent to the
    /// hosts (0 at other nodes).
    #[serde(default)]
    pub to_hosts: u64,
    /// Added: a gateway's packets from the hosts routed into the MANET (0
    /// at other nodes; also in `forwarded`).
    #[serde(default)]
    pub from_hosts: u64,
}
