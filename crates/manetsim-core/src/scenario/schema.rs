//! The scenario schema (format v1): one struct per TOML table.
//!
//! Key names and meanings are the public interface specified in `SCENARIO.md`;
//! never rename one. Keys manetsim adds beyond that page are documented in
//! `docs/scenario.md`. Every key has a default, following ns-2.35 unless the
//! field's doc says otherwise. Units are in the names and are SI.
//!
//! Structural checks (unknown keys, wrong types, unknown enum names) are done by
//! serde here; value checks (ranges, node ids, unsupported features) are done by
//! [`super::validate`].

use serde::{Deserialize, Serialize};

/// A whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free text; defaults to the file's stem when loaded from a file.
    #[serde(default)]
    pub name: String,
    /// Simulated time in seconds.
    #[serde(default = "default_duration_s")]
    pub duration_s: f64,
    /// Master seed; every random stream is derived from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub area: Area,
    #[serde(default)]
    pub nodes: Nodes,
    #[serde(default)]
    pub mobility: Mobility,
    #[serde(default)]
    pub radio: Radio,
    #[serde(default)]
    pub mac: Mac,
    #[serde(default)]
    pub routing: Routing,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<Flow>,
    /// Absent means no energy model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<Energy>,
    /// Absent means no injected loss.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loss: Vec<Loss>,
    /// Added table: an Internet gateway with fixed hosts behind it; absent
    /// means a MANET alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<Gateway>,
    #[serde(default)]
    pub output: Output,
}

/// `[gateway]` (added table): MANET node `node` (or each of the nodes
/// `node` lists) is wired to `hosts` fixed Internet hosts, numbered from
/// `nodes.count`, each over its own duplex point-to-point link. Packets
/// from the MANET to a host travel tunnelled to a gateway (AODV-UU's half
/// tunnelling; or, with `forwarding = "base_station"`, untunnelled as
/// ns-2's base stations take them), the way back as ordinary MANET traffic
/// from a gateway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gateway {
    /// The gateway: a node id, or a list of them (added) for several.
    pub node: GatewayNodes,
    #[serde(default = "default_gateway_hosts")]
    pub hosts: u32,
    /// Each wired link's rate, each way (100 Mbit/s).
    #[serde(default = "default_wired_rate_bps")]
    pub rate_bps: f64,
    /// Each wired link's propagation delay (2 ms).
    #[serde(default = "default_wired_delay_s")]
    pub delay_s: f64,
    /// Drop-tail queue of each link end, packets (50).
    #[serde(default = "default_wired_queue_packets")]
    pub queue_packets: u32,
    /// How a packet for a host crosses the MANET (added; `tunnel`).
    #[serde(default)]
    pub forwarding: GatewayForwarding,
    /// How the nodes find a gateway under AODV-UU (added; `reactive`).
    #[serde(default)]
    pub discovery: GatewayDiscovery,
    /// Between one gateway's advertisements, seconds (added; 5 s, the
    /// ADVERTISEMENT_INTERVAL of Hamidian's AODV-UU extension); only with
    /// `discovery = "proactive"` or `"hybrid"`.
    #[serde(default = "default_advertisement_interval_s")]
    pub advertisement_interval_s: f64,
    /// How many hops an advertisement goes under `discovery = "hybrid"`
    /// (added; 3).
    #[serde(default = "default_advertisement_zone_hops")]
    pub advertisement_zone_hops: u32,
}

/// `gateway.discovery`: how a node finds a gateway under
/// `routing.aodv.preset = "aodv_uu"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GatewayDiscovery {
    /// AODV-UU 0.9's: a source seeks a host by a RREQ, which only gateways
    /// answer.
    #[default]
    Reactive,
    /// The gateways advertise themselves to the whole network every
    /// `advertisement_interval_s`; a source that knows no gateway waits
    /// for an advertisement.
    Proactive,
    /// The gateways' advertisements go `advertisement_zone_hops` hops; a
    /// source that knows no gateway seeks the host as `reactive` does.
    Hybrid,
}

/// `gateway.forwarding`: how a MANET node's packet for a host reaches the
/// gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GatewayForwarding {
    /// AODV-UU's half tunnelling: the source puts the packet in an outer IP
    /// header addressed to the gateway (20 bytes more on every wireless
    /// hop).
    #[default]
    Tunnel,
    /// ns-2's wired-cum-wireless base stations: the packet keeps the host
    /// as its destination and no outer header; every node routes it towards
    /// the gateway, and a DSDV node (source or relay) without a route to
    /// the gateway drops it (`no_route`) instead of holding it (ns-2.35's
    /// `dsdv.cc`).
    BaseStation,
}
/// `gateway.node`: one node id (`node = 3`) or a list (`node = [3, 7]`),
/// written back as it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayNodes(pub Vec<u32>);

impl GatewayNodes {
    /// The gateways' node ids, in the order given.
    pub fn ids(&self) -> &[u32] {
        &self.0
    }
}

impl From<u32> for GatewayNodes {
    fn from(n: u32) -> Self {
        Self(vec![n])
    }
}

impl Serialize for GatewayNodes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => s.serialize_u32(*one),
            many => many.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for GatewayNodes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = GatewayNodes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node id or a list of node ids")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<GatewayNodes, E> {
                u32::try_from(v)
                    .map(GatewayNodes::from)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<GatewayNodes, E> {
                u32::try_from(v)
                    .map(GatewayNodes::from)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<GatewayNodes, A::Error> {
                let mut ids = Vec::new();
                while let Some(id) = seq.next_element::<u32>()? {
                    ids.push(id);
                }
                Ok(GatewayNodes(ids))
            }
        }
        d.deserialize_any(Visitor)
    }
}

fn default_gateway_hosts() -> u32 {
    1
}
fn default_wired_rate_bps() -> f64 {
    100e6
}
fn default_wired_delay_s() -> f64 {
    0.002
}
fn default_wired_queue_packets() -> u32 {
    50
}

pub(crate) fn default_advertisement_interval_s() -> f64 {
    5.0
}

pub(crate) fn default_advertisement_zone_hops() -> u32 {
    3
}

fn default_duration_s() -> f64 {
    100.0
}
fn default_seed() -> u64 {
    1
}

/// `[area]`: the flat topography, origin at (0, 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Area {
    #[serde(default = "default_area_m")]
    pub width_m: f64,
    #[serde(default = "default_area_m")]
    pub height_m: f64,
}
fn default_area_m() -> f64 {
    1000.0
}
impl Default for Area {
    fn default() -> Self {
        Self {
            width_m: default_area_m(),
            height_m: default_area_m(),
        }
    }
}

/// How initial positions are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Node i at (i × spacing_m, 0).
    Chain,
    /// Row-major grid `rows × cols`, `spacing_m` apart, starting at (0, 0).
    Grid,
    /// Uniform random in the area (stream `placement`).
    Uniform,
    /// `positions = [[x, y], …]`, one per node.
    Explicit,
}

/// `[nodes]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nodes {
    #[serde(default = "default_count")]
    pub count: u32,
    #[serde(default = "default_placement")]
    pub placement: Placement,
    #[serde(default = "default_spacing_m")]
    pub spacing_m: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[f64; 2]>>,
}
fn default_count() -> u32 {
    2
}
fn default_placement() -> Placement {
    Placement::Chain
}
fn default_spacing_m() -> f64 {
    200.0
}
impl Default for Nodes {
    fn default() -> Self {
        Self {
            count: default_count(),
            placement: default_placement(),
            spacing_m: default_spacing_m(),
            rows: None,
            cols: None,
            positions: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    Static,
    RandomWaypoint,
    Waypoints,
    Ns2,
    Bonnmotion,
    /// Added: Royer et al.'s random direction, as ns-3 defines it.
    RandomDirection,
    /// Added: a random walk reflected at the edge, ns-3's in its time mode.
    RandomWalk,
    /// Added: Liang and Haas's Gauss-Markov model, stepped as ns-3's.
    GaussMarkov,
    /// Added: Hong et al.'s reference point group mobility.
    Rpgm,
    /// Added: the Manhattan grid, nodes that keep to a city's streets.
    Manhattan,
}

/// `mobility.step_s` when `model = "random_walk"` leaves it out (ns-3's
/// `RandomWalk2dMobilityModel` changes course every second by default).
pub const DEFAULT_WALK_STEP_S: f64 = 1.0;

/// Gauss-Markov's defaults when `model = "gauss_markov"` leaves them out:
/// the memory `α` of Camp, Boleng and Davies's survey (2002), and ns-3's
/// unit deviations of the speed's (m/s) and the direction's (rad) draws.
pub const DEFAULT_GAUSS_MARKOV_ALPHA: f64 = 0.75;
pub const DEFAULT_GAUSS_MARKOV_SPEED_STD_MPS: f64 = 1.0;
pub const DEFAULT_GAUSS_MARKOV_DIRECTION_STD_RAD: f64 = 1.0;

/// Reference point group mobility's defaults when `model = "rpgm"` leaves
/// them out: one group, whose members keep within 100 m of its centre.
pub const DEFAULT_GROUPS: u32 = 1;
pub const DEFAULT_GROUP_RADIUS_M: f64 = 100.0;

/// The Manhattan grid's blocks across the width and across the height when
/// `model = "manhattan"` leaves them out.
pub const DEFAULT_MANHATTAN_BLOCKS: u32 = 5;

/// One scripted move (`[[mobility.moves]]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub node: u32,
    pub at_s: f64,
    pub to: [f64; 2],
    pub speed_mps: f64,
}

/// A node that stays put while the model moves the others
/// (`mobility.fixed`, added).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedNode {
    pub node: u32,
    pub position: [f64; 2],
}

/// `[mobility]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mobility {
    #[serde(default = "default_mobility_model")]
    pub model: MobilityModel,
    #[serde(default)]
    pub min_speed_mps: f64,
    #[serde(default = "default_max_speed_mps")]
    pub max_speed_mps: f64,
    #[serde(default)]
    pub pause_s: f64,
    #[serde(default)]
    pub steady_state: bool,
    /// Added key, `model = "random_walk"` only: how long a node keeps a
    /// direction and speed (resolved to [`DEFAULT_WALK_STEP_S`] there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_s: Option<f64>,
    /// Added key, `model = "random_walk"` only, instead of `step_s`: how
    /// far a node goes on a direction and speed (ns-3's distance mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_m: Option<f64>,
    /// Added keys, `model = "gauss_markov"` only: the memory `α` and the
    /// deviations of the speed's and the direction's normal draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_std_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction_std_rad: Option<f64>,
    /// Added key, `model = "gauss_markov"` only: within this distance of
    /// an edge the mean direction turns away from it (Camp, Boleng and
    /// Davies); absent, nodes are only reflected at the edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_margin_m: Option<f64>,
    /// Added keys, `model = "rpgm"` only: how many groups the nodes are
    /// split into, and how far a member keeps from its group's centre.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_radius_m: Option<f64>,
    /// Added key, `model = "rpgm"` only: the chance that a member joins
    /// another group whose centre comes within `group_radius_m` of it
    /// (BonnMotion's `-c`); absent or 0, members never change groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_change_prob: Option<f64>,
    /// Added keys, `model = "manhattan"` only: how many blocks the streets
    /// cut the area into, across its width and across its height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_x: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_y: Option<u32>,
    /// Added keys, `model = "manhattan"` only (BonnMotion's
    /// `ManhattanGrid`): every `update_m` metres of street a node may
    /// change its speed (`speed_change_prob`) or else pause for up to
    /// `max_pause_s` (`pause_prob`); absent `update_m`, neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_change_prob: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_prob: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pause_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<Move>,
    /// Added key: nodes that stay at a position of their own while the
    /// model (random waypoint or a movement file) moves the others, as a
    /// gateway or an access point does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<FixedNode>,
}
fn default_mobility_model() -> MobilityModel {
    MobilityModel::Static
}
fn default_max_speed_mps() -> f64 {
    20.0
}
impl Default for Mobility {
    fn default() -> Self {
        Self {
            model: default_mobility_model(),
            min_speed_mps: 0.0,
            max_speed_mps: default_max_speed_mps(),
            pause_s: 0.0,
            steady_state: false,
            step_s: None,
            step_m: None,
            alpha: None,
            speed_std_mps: None,
            direction_std_rad: None,
            edge_margin_m: None,
            groups: None,
            group_radius_m: None,
            group_change_prob: None,
            blocks_x: None,
            blocks_y: None,
            update_m: None,
            speed_change_prob: None,
            pause_prob: None,
            max_pause_s: None,
            file: None,
            moves: Vec::new(),
            fixed: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    TwoRayGround,
    FreeSpace,
    Shadowing,
}

/// `[radio]`: ns-2's WaveLAN (Lucent 914 MHz DSSS) defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Radio {
    #[serde(default = "default_propagation")]
    pub propagation: Propagation,
    #[serde(default = "default_tx_power_w")]
    pub tx_power_w: f64,
    #[serde(default = "default_frequency_hz")]
    pub frequency_hz: f64,
    #[serde(default = "default_antenna_height_m")]
    pub antenna_height_m: f64,
    #[serde(default = "default_rx_threshold_w")]
    pub rx_threshold_w: f64,
    #[serde(default = "default_cs_threshold_w")]
    pub cs_threshold_w: f64,
    #[serde(default = "default_capture_threshold_db")]
    pub capture_threshold_db: f64,
    /// Added key: which of two overlapping frames a receiver keeps
    /// ([`CaptureRule`]).
    #[serde(default)]
    pub capture_rule: CaptureRule,
    /// Added key (docs/scenario.md): ns-2 `L_`, system loss factor (≥ 1).
    #[serde(default = "default_system_loss")]
    pub system_loss: f64,
    /// Added key: shadowing path-loss exponent β (ns-2 `pathlossExp_`, 2.0).
    #[serde(default = "default_path_loss_exponent")]
    pub path_loss_exponent: f64,
    /// Added key: shadowing deviation σ in dB (ns-2 `std_db_`, 4.0).
    #[serde(default = "default_shadowing_std_db")]
    pub shadowing_std_db: f64,
    /// Added key: shadowing reference distance d0 (ns-2 `dist0_`, 1.0 m).
    #[serde(default = "default_reference_distance_m")]
    pub reference_distance_m: f64,
    /// Added key: bit errors from the SNR (`"awgn"`, [`crate::phy::ErrorModel`])
    /// or none (`"none"`, ns-2's thresholds alone).
    #[serde(default)]
    pub error_model: ErrorModelKind,
    /// Added key: the receiver's noise figure, dB (`error_model = "awgn"`).
    #[serde(default = "default_noise_figure_db")]
    pub noise_figure_db: f64,
    /// Added key: the power (W) down to which a frame too weak to be sensed
    /// still adds to the interference a bit error model counts
    /// (`error_model = "awgn"`); absent, `cs_threshold_w`: weaker frames
    /// are not on the air at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference_threshold_w: Option<f64>,
    /// Added key: fading of each frame's power at each receiver
    /// ([`crate::phy::Nakagami`]).
    #[serde(default)]
    pub fading: Fading,
    /// Added keys: Nakagami's `m` below `nakagami_distance1_m`, below
    /// `nakagami_distance2_m` and beyond (`fading = "nakagami"`; ns-3's
    /// `NakagamiPropagationLossModel` attributes and defaults).
    #[serde(default = "default_nakagami_m0")]
    pub nakagami_m0: f64,
    #[serde(default = "default_nakagami_m1")]
    pub nakagami_m1: f64,
    #[serde(default = "default_nakagami_m2")]
    pub nakagami_m2: f64,
    #[serde(default = "default_nakagami_distance1_m")]
    pub nakagami_distance1_m: f64,
    #[serde(default = "default_nakagami_distance2_m")]
    pub nakagami_distance2_m: f64,
    /// Added key: with `fading = "rayleigh"`, the Doppler frequency (Hz)
    /// of time-correlated fading ([`crate::phy::Jakes`]); 0, each frame
    /// fades independently.
    #[serde(default)]
    pub fading_doppler_hz: f64,
}

/// `[radio] capture_rule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureRule {
    /// ns-2.35's: a newcomer at least `capture_threshold_db` weaker than
    /// the frame being received is captured, otherwise both are lost; a
    /// frame too weak to decode holds the receiver as any other.
    #[default]
    Ns2,
    /// ns-3's: the receiver keeps the frame it locked onto and every
    /// newcomer is interference, the SINR deciding (with `error_model =
    /// "awgn"`); a frame it cannot decode (too weak, or arriving while it
    /// sent) does not hold it, and a decodable newcomer takes it.
    Sinr,
}

/// `[radio] fading`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fading {
    /// Each frame arrives with the propagation model's power (ns-2.35).
    #[default]
    None,
    /// Rayleigh fading: Nakagami's `m = 1` at every distance.
    Rayleigh,
    /// Nakagami-m fading, `m` by distance (the `nakagami_*` keys).
    Nakagami,
}
fn default_nakagami_m0() -> f64 {
    1.5
}
fn default_nakagami_m1() -> f64 {
    0.75
}
fn default_nakagami_m2() -> f64 {
    0.75
}
fn default_nakagami_distance1_m() -> f64 {
    80.0
}
fn default_nakagami_distance2_m() -> f64 {
    200.0
}

/// `[radio] error_model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorModelKind {
    /// A frame at or above the receive threshold, not lost to an overlap,
    /// is decoded (ns-2.35).
    #[default]
    None,
    /// It is then decoded with the probability that none of its bits is
    /// in error at its SNR, rate and length.
    Awgn,
}
fn default_noise_figure_db() -> f64 {
    7.0
}
fn default_propagation() -> Propagation {
    Propagation::TwoRayGround
}
fn default_tx_power_w() -> f64 {
    0.28183815
}
fn default_frequency_hz() -> f64 {
    914.0e6
}
fn default_antenna_height_m() -> f64 {
    1.5
}
fn default_rx_threshold_w() -> f64 {
    3.652e-10
}
fn default_cs_threshold_w() -> f64 {
    1.559e-11
}
fn default_capture_threshold_db() -> f64 {
    10.0
}
fn default_system_loss() -> f64 {
    1.0
}
fn default_path_loss_exponent() -> f64 {
    2.0
}
fn default_shadowing_std_db() -> f64 {
    4.0
}
fn default_reference_distance_m() -> f64 {
    1.0
}
impl Default for Radio {
    fn default() -> Self {
        Self {
            propagation: default_propagation(),
            tx_power_w: default_tx_power_w(),
            frequency_hz: default_frequency_hz(),
            antenna_height_m: default_antenna_height_m(),
            rx_threshold_w: default_rx_threshold_w(),
            cs_threshold_w: default_cs_threshold_w(),
            capture_threshold_db: default_capture_threshold_db(),
            capture_rule: CaptureRule::Ns2,
            system_loss: default_system_loss(),
            path_loss_exponent: default_path_loss_exponent(),
            shadowing_std_db: default_shadowing_std_db(),
            reference_distance_m: default_reference_distance_m(),
            error_model: ErrorModelKind::None,
            noise_figure_db: default_noise_figure_db(),
            interference_threshold_w: None,
            fading: Fading::None,
            nakagami_m0: default_nakagami_m0(),
            nakagami_m1: default_nakagami_m1(),
            nakagami_m2: default_nakagami_m2(),
            nakagami_distance1_m: default_nakagami_distance1_m(),
            nakagami_distance2_m: default_nakagami_distance2_m(),
            fading_doppler_hz: 0.0,
        }
    }
}

/// `[mac]`: the IEEE 802.11 DCF as ns-2's `Mac/802_11` models it, over the
/// PHY of `standard` (`"802.11"`, `"802.11b"`, `"802.11a"` or `"802.11g"`,
/// see [`crate::mac::MacStandard`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mac {
    #[serde(default = "default_standard")]
    pub standard: String,
    /// Unicast data frames' rate. Not given: 2 Mb/s under `"802.11"` and
    /// `"802.11b"`, 6 Mb/s under `"802.11a"` and `"802.11g"`.
    #[serde(default = "default_data_rate_bps")]
    pub data_rate_bps: u64,
    /// RTS, CTS, ACK and broadcast frames' rate. Not given: 1 Mb/s under
    /// `"802.11"` and `"802.11b"`, 6 Mb/s under `"802.11a"` and `"802.11g"`.
    #[serde(default = "default_basic_rate_bps")]
    pub basic_rate_bps: u64,
    /// The PLCP preamble of HR/DSSS frames under `"802.11b"` and
    /// `"802.11g"`: `long` (192 µs) or `short` (96 µs, for frames at 2 Mb/s
    /// and more), see [`crate::mac::Preamble`].
    #[serde(default)]
    pub preamble: crate::mac::Preamble,
    /// 802.11g's slot: `long` (20 µs) or `short` (9 µs), see
    /// [`crate::mac::SlotTime`].
    #[serde(default)]
    pub slot: crate::mac::SlotTime,
    /// 0 = RTS/CTS before every unicast frame (ns-2 default). Frames whose
    /// MAC payload is at least this long use RTS/CTS.
    #[serde(default)]
    pub rts_threshold_bytes: u32,
    #[serde(default = "default_short_retry_limit")]
    pub short_retry_limit: u32,
    #[serde(default = "default_long_retry_limit")]
    pub long_retry_limit: u32,
    #[serde(default = "default_queue_packets")]
    pub queue_packets: u32,
    /// Address resolution below routing: `off` (every neighbour's address
    /// known) or `ns2` (ns-2.35's ARP, see [`crate::net::arp`]).
    #[serde(default)]
    pub arp: crate::net::arp::ArpModel,
    /// Bytes of a data frame: `standard` (the datagram in a 28-byte header
    /// and FCS), `llc_snap` (and the 8-byte LLC/SNAP header, as ns-3) or
    /// `ns2` (ns-2.35's sizes, see [`crate::mac::FrameSizes`]).
    #[serde(default)]
    pub frames: crate::mac::FrameSizes,
    /// Backoff slots: `standard` (0..=CW) or `ns2` (0..CW, as ns-2.35).
    #[serde(default)]
    pub backoff_draw: crate::mac::BackoffDraw,
    /// How a paused backoff counts the slots that went by: `exact` or
    /// `ns2` (ns-2.35's arithmetic in doubles, see
    /// [`crate::mac::BackoffCount`]).
    #[serde(default)]
    pub backoff_count: crate::mac::BackoffCount,
    /// What comes first when a timer expires in the nanosecond a frame
    /// starts arriving: `timers_first` or `ns2` (the sub-nanosecond part of
    /// the propagation delays decides, see [`crate::mac::TieRule`]).
    #[serde(default)]
    pub tie_rule: crate::mac::TieRule,
    /// Time a packet spends in the link layer, between the MAC and
    /// routing, each way (ns-2.35's `LL` `delay_`, 25 µs; 0 by default).
    #[serde(default)]
    pub ll_delay_s: f64,
    /// When a backoff counts again after a frame received in error: `ns2`
    /// (EIFS, then DIFS, as ns-2.35) or `standard` (after EIFS, as IEEE
    /// 802.11 and ns-3), see [`crate::mac::EifsRule`].
    #[serde(default)]
    pub eifs_rule: crate::mac::EifsRule,
    /// When a node answers an RTS with a CTS: `ns2` (the medium idle, as
    /// ns-2.35) or `standard` (the NAV clear, as IEEE 802.11 and ns-3), see
    /// [`crate::mac::CtsRule`].
    #[serde(default)]
    pub cts_rule: crate::mac::CtsRule,
    /// Whether the NAV an overheard RTS sets ends early unless the
    /// exchange goes on (IEEE 802.11's NAV reset, as ns-3): see
    /// [`crate::mac::MacParams::rts_nav_limit_ns`]. ns-2.35 has none.
    #[serde(default)]
    pub nav_reset: bool,
    /// Which rate unicast data goes at: `constant` (`data_rate_bps`), `arf`
    /// (Auto Rate Fallback up to `data_rate_bps`, see [`crate::mac::Arf`]),
    /// `aarf` (its adaptive variant) or `minstrel`.
    #[serde(default)]
    pub rate_control: RateControlKind,
    /// The propagation delay each way a sender allows for in its CTS and
    /// ACK timeouts, and a receiver of a CTS in its wait for the data
    /// (ns-2.35's `DSSS_MaxPropagationDelay`, 2 µs: 600 m).
    #[serde(default = "default_max_propagation_delay_s")]
    pub max_propagation_delay_s: f64,
    /// The rate of a CTS or ACK: `basic` (`basic_rate_bps`, as ns-2.35)
    /// or `standard` (IEEE 802.11's rule, see [`crate::mac::ResponseRate`]).
    #[serde(default)]
    pub response_rate: crate::mac::ResponseRate,
}

/// ns-2.35's `DSSS_MaxPropagationDelay`.
pub const NS2_MAX_PROPAGATION_DELAY_S: f64 = 2e-6;
fn default_max_propagation_delay_s() -> f64 {
    NS2_MAX_PROPAGATION_DELAY_S
}

/// `[mac] rate_control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateControlKind {
    /// Every unicast data frame at `data_rate_bps`.
    #[default]
    Constant,
    /// Auto Rate Fallback, for each neighbour, over the standard's rates up
    /// to `data_rate_bps`.
    Arf,
    /// Adaptive ARF: as ARF, with the success threshold doubled after each
    /// failed probe (up to 50).
    Aarf,
    /// Minstrel (see [`crate::mac::Minstrel`]), over the standard's rates
    /// up to `data_rate_bps`.
    Minstrel,
}
fn default_standard() -> String {
    "802.11".to_string()
}
fn default_data_rate_bps() -> u64 {
    2_000_000
}
fn default_basic_rate_bps() -> u64 {
    1_000_000
}
fn default_short_retry_limit() -> u32 {
    7
}
fn default_long_retry_limit() -> u32 {
    4
}
fn default_queue_packets() -> u32 {
    50
}
impl Default for Mac {
    fn default() -> Self {
        Self {
            standard: default_standard(),
            data_rate_bps: default_data_rate_bps(),
            basic_rate_bps: default_basic_rate_bps(),
            preamble: Default::default(),
            slot: Default::default(),
            rts_threshold_bytes: 0,
            short_retry_limit: default_short_retry_limit(),
            long_retry_limit: default_long_retry_limit(),
            queue_packets: default_queue_packets(),
            arp: Default::default(),
            frames: Default::default(),
            backoff_draw: Default::default(),
            backoff_count: Default::default(),
            tie_rule: Default::default(),
            ll_delay_s: 0.0,
            eifs_rule: Default::default(),
            cts_rule: Default::default(),
            nav_reset: false,
            rate_control: RateControlKind::Constant,
            max_propagation_delay_s: NS2_MAX_PROPAGATION_DELAY_S,
            response_rate: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest-hop routes computed once from the initial topology.
    Static,
    Aodv,
    Dsr,
    Aomdv,
    Dsdv,
    Olsr,
}

/// `[routing]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    #[serde(default = "default_routing_protocol")]
    pub protocol: RoutingProtocol,
    /// Added table `[routing.aodv]`: AODV's options (only with protocol = "aodv").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aodv: Option<AodvOptions>,
    /// Added table `[routing.aomdv]`: AOMDV's options (only with protocol = "aomdv").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aomdv: Option<AomdvOptions>,
    /// Added table `[routing.dsdv]`: DSDV's options (only with protocol = "dsdv").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsdv: Option<DsdvOptions>,
    /// Added table `[routing.dsr]`: DSR's options (only with protocol = "dsr").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsr: Option<DsrOptions>,
    /// Added table `[routing.olsr]`: OLSR's options (only with protocol = "olsr").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub olsr: Option<OlsrOptions>,
}

/// `[routing.olsr]` (added): RFC 3626's knobs, named as UM-OLSR's ns-2
/// agent names its Tcl variables (`use_mac_`, `hello_ival_`, `tc_ival_`,
/// `willingness_`). Left out, each takes the RFC's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OlsrOptions {
    /// RFC 3626 section 13: a MAC retry-limit failure makes the link lost
    /// at once, and the packet is routed again (UM-OLSR's `use_mac_`; off).
    #[serde(default)]
    pub link_layer_notification: bool,
    /// HELLO_INTERVAL (2 s); NEIGHB_HOLD_TIME is 3 × it, MAXJITTER 1/4 of it.
    #[serde(default = "default_olsr_hello_interval_s")]
    pub hello_interval_s: f64,
    /// TC_INTERVAL (5 s); TOP_HOLD_TIME is 3 × it.
    #[serde(default = "default_olsr_tc_interval_s")]
    pub tc_interval_s: f64,
    /// Every node's willingness to relay, 0 (WILL_NEVER) to 7 (WILL_ALWAYS); 3.
    #[serde(default = "default_olsr_willingness")]
    pub willingness: u8,
}
fn default_olsr_hello_interval_s() -> f64 {
    2.0
}
fn default_olsr_tc_interval_s() -> f64 {
    5.0
}
fn default_olsr_willingness() -> u8 {
    3
}
impl Default for OlsrOptions {
    fn default() -> Self {
        Self {
            link_layer_notification: false,
            hello_interval_s: default_olsr_hello_interval_s(),
            tc_interval_s: default_olsr_tc_interval_s(),
            willingness: default_olsr_willingness(),
        }
    }
}

/// `[routing.dsr]` (added): ns-2.35's `DSRAgent` switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DsrOptions {
    /// How route requests and the send buffer are paced: `rfc` (RFC 4728)
    /// or `ns2` (ns-2.35's `dsragent.cc`).
    #[serde(default)]
    pub preset: DsrPreset,
    /// `dsragent_send_grat_replies`: a node that overhears a data packet
    /// whose source route reaches it later than the next hop tells the
    /// source the shorter route (RFC 4728 section 3.4.3; ns-2: on).
    #[serde(default = "default_true")]
    pub gratuitous_replies: bool,
    /// `dsragent_enable_flowstate`: flow state (RFC 4728 section 3.5) as
    /// ns-2.35 runs it. Left out: on with `preset = "ns2"`, off with `rfc`.
    #[serde(default)]
    pub flow_state: Option<bool>,
}
impl Default for DsrOptions {
    fn default() -> Self {
        Self {
            preset: DsrPreset::Rfc,
            gratuitous_replies: true,
            flow_state: None,
        }
    }
}

/// Which pacing of DSR's route discovery to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DsrPreset {
    /// RFC 4728: a discovery's propagating requests back off 0.5 s, 1 s,
    /// 2 s … and a found route ends it; buffered packets go as soon as a
    /// route is learned.
    #[default]
    Rfc,
    /// ns-2.35: discovery cycles (a non-propagating then a propagating
    /// request) for one target back off 0.5 s · 4ⁿ until a reply is
    /// accepted, the send buffer is checked every 30–60 ms and a reply
    /// releases it 30 ms apart, and a forwarder that cannot salvage from
    /// its cache tries one non-propagating request. The route cache is
    /// ns-2's: a primary of 30 routes and a secondary of 64, learned as
    /// ns-2 learns them, and overheard replies and route errors update it.
    /// The interface queue is ns-2's `CMUPriQueue`.
    Ns2,
}

/// `[routing.aomdv]` (added): how AOMDV notices a broken link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AomdvOptions {
    /// `mac` (the MAC's retry-limit failures, as our AODV) or `hello`
    /// (HELLO messages, lost after ALLOWED_HELLO_LOSS = 3 intervals: the only
    /// way ns-2.35's AOMDV has, which compiles no link-layer detection).
    #[serde(default)]
    pub link_detection: AodvLinkDetection,
    /// HELLO_INTERVAL (ns-2.35: 1 s); only with `link_detection = "hello"`.
    #[serde(default = "default_aomdv_hello_interval_s")]
    pub hello_interval_s: f64,
    /// `link` (the paper's link-disjoint paths) or `node` (node-disjoint,
    /// as ns-2.35 compiles AOMDV).
    #[serde(default)]
    pub disjoint: AomdvDisjoint,
    /// `true`: a relay with no route for a data packet sends a RERR for its
    /// destination at most once a second, and a node at most 10 RERRs a
    /// second (RERR_RATELIMIT, as our AODV); `false`: one RERR for every
    /// such packet and no limit, as ns-2.35's `rt_resolve` and `sendError`.
    #[serde(default = "default_true")]
    pub rerr_rate_limit: bool,
    /// `standard` (messages over UDP, RREQ and RREP 28 bytes and a HELLO
    /// the size of a RREP) or `ns2` (ns-2.35's sizes: no UDP header, RREQ
    /// and RREP 32 bytes, HELLO 24).
    #[serde(default)]
    pub message_sizes: AomdvMessageSizes,
    /// Which RREQ copies the destination answers: `paths` (each that set
    /// up or refreshed a reverse path, once per path) or `ns2` (each that
    /// ns-2.35's `recvRequest` lets through, see
    /// [`crate::routing::aomdv::AomdvConfig::ns2_target_replies`]).
    #[serde(default)]
    pub target_replies: AomdvTargetReplies,
    /// How long a RREQ's id is remembered: `exact` (BCAST_ID_SAVE, 6 s) or
    /// `ns2` (until ns-2.35's purge every 6 s from 0 after that: 6 to 12 s).
    #[serde(default)]
    pub id_purge: AomdvIdPurge,
}

/// How long AOMDV remembers a RREQ's id (`[routing.aomdv] id_purge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AomdvIdPurge {
    /// BCAST_ID_SAVE exactly.
    #[default]
    Exact,
    /// Until the first of ns-2.35's purges, every BCAST_ID_SAVE from 0,
    /// after BCAST_ID_SAVE has passed.
    Ns2,
}

/// Which RREQ copies an AOMDV destination answers (`[routing.aomdv]
/// target_replies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AomdvTargetReplies {
    /// Each copy that set up or refreshed a reverse path, once per path.
    #[default]
    Paths,
    /// ns-2.35's `recvRequest`.
    Ns2,
}

/// How AOMDV's messages are sized (`[routing.aomdv] message_sizes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AomdvMessageSizes {
    /// AODV's layouts with AOMDV's fields, over UDP.
    #[default]
    Standard,
    /// ns-2.35's `aomdv_packet.h` sizes, without a UDP header.
    Ns2,
}

/// Which AOMDV paths may coexist (`[routing.aomdv] disjoint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AomdvDisjoint {
    /// Link-disjoint (Marina & Das 2006).
    #[default]
    Link,
    /// Node-disjoint (ns-2.35's `AOMDV_NODE_DISJOINT_PATHS`).
    Node,
}
fn default_aomdv_hello_interval_s() -> f64 {
    1.0
}
impl Default for AomdvOptions {
    fn default() -> Self {
        Self {
            link_detection: AodvLinkDetection::Mac,
            hello_interval_s: default_aomdv_hello_interval_s(),
            disjoint: AomdvDisjoint::Link,
            rerr_rate_limit: true,
            message_sizes: AomdvMessageSizes::Standard,
            target_replies: AomdvTargetReplies::Paths,
            id_purge: AomdvIdPurge::Exact,
        }
    }
}

/// `[routing.dsdv]` (added): ns-2.35's `Agent/DSDV` knobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DsdvOptions {
    /// `use_mac_`: a MAC retry-limit failure breaks the link at once (ns-2: off;
    /// then a link breaks after `min_update_periods` silent update periods).
    #[serde(default)]
    pub mac_feedback: bool,
    /// `perup_`: mean spacing of full dumps (ns-2: 15 s).
    #[serde(default = "default_dsdv_update_interval_s")]
    pub periodic_update_interval_s: f64,
    /// `min_update_periods_`: update periods a neighbour may stay silent (ns-2: 3).
    #[serde(default = "default_dsdv_min_update_periods")]
    pub min_update_periods: u32,
}
fn default_dsdv_update_interval_s() -> f64 {
    15.0
}
fn default_dsdv_min_update_periods() -> u32 {
    3
}
fn default_routing_protocol() -> RoutingProtocol {
    RoutingProtocol::Aodv
}
impl Default for Routing {
    fn default() -> Self {
        Self {
            protocol: default_routing_protocol(),
            aodv: None,
            aomdv: None,
            dsdv: None,
            dsr: None,
            olsr: None,
        }
    }
}

/// Which set of AODV constants to start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AodvPreset {
    /// RFC 3561's expanding ring search (TTL_START 1, NET_DIAMETER 35,
    /// NODE_TRAVERSAL_TIME 40 ms, RREQ_RETRIES 2) with ns-2.35's timers.
    #[default]
    Rfc,
    /// ns-2.35's `aodv.h` throughout: the first RREQ floods the network,
    /// NET_DIAMETER 30, NODE_TRAVERSAL_TIME 30 ms, RREQ_RETRIES 3.
    Ns2,
    /// AODV-UU's defaults (Uppsala University's implementation, used by
    /// karlssonkassler): HELLO link detection with ALLOWED_HELLO_LOSS 2,
    /// ACTIVE_ROUTE_TIMEOUT 3 s, TTL_START 2, no local repair; with
    /// `link_detection = "mac"` its link-layer-feedback settings
    /// (ACTIVE_ROUTE_TIMEOUT 10 s, TTL_START 1).
    AodvUu,
}

/// How AODV (or AOMDV, `[routing.aomdv]`) notices a broken link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AodvLinkDetection {
    /// The MAC's retry-limit failures (ns-2's default).
    #[default]
    Mac,
    /// Periodic HELLO messages.
    Hello,
}

/// `[routing.aodv]` (added). A key left out takes its preset's value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AodvOptions {
    #[serde(default)]
    pub preset: AodvPreset,
    /// `mac` for every preset but `aodv_uu` (`hello`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_detection: Option<AodvLinkDetection>,
    /// `true` (ns-2) for `rfc` and `ns2`, `false` for `aodv_uu`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_repair: Option<bool>,
    /// 1 s for every preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello_interval_s: Option<f64>,
    /// 10 s (ns-2) for `rfc` and `ns2`; `aodv_uu`: 3 s, or 10 s with MAC feedback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_route_timeout_s: Option<f64>,
    #[serde(default)]
    pub gratuitous_rrep: bool,
    #[serde(default)]
    pub destination_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Udp,
    Tcp,
    Tfrc,
    Sctp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    Cbr,
    Ftp,
    Onoff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    Tahoe,
    Reno,
    Newreno,
    Sack,
    Vegas,
    Westwood,
    Veno,
    Newveno,
    TcpAp,
    /// Added: CUBIC (RFC 9438), as Linux and ns-3's `TcpCubic` run it.
    Cubic,
}

/// `[flows.tcp]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    #[serde(default = "default_tcp_variant")]
    pub variant: TcpVariant,
    #[serde(default = "default_window_packets")]
    pub window_packets: u32,
    #[serde(default)]
    pub delayed_ack: bool,
    #[serde(default = "default_true")]
    pub handshake: bool,
    /// Added key: initial congestion window in segments (ns-2 `windowInit_`, 2).
    #[serde(default = "default_initial_window_packets")]
    pub initial_window_packets: u32,
    /// Added key: lower bound of the retransmission timeout (ns-2 `minrto_`,
    /// 0.2 s; RFC 6298 says 1 s).
    #[serde(default = "default_min_rto_s")]
    pub min_rto_s: f64,
    /// Added keys: Vegas thresholds in segments (ns-2 `v_alpha_` 1,
    /// `v_beta_` 3, `v_gamma_` 1); karlssonkassler uses α = β = 2.
    #[serde(default = "default_vegas_alpha")]
    pub vegas_alpha: f64,
    #[serde(default = "default_vegas_beta")]
    pub vegas_beta: f64,
    #[serde(default = "default_vegas_gamma")]
    pub vegas_gamma: f64,
    /// Added key: how Vegas adjusts its window: `paper` (Brakmo & Peterson)
    /// or `ns2` (ns-2.35's agent, see [`crate::transport::tcp::VegasRule`]).
    #[serde(default)]
    pub vegas_rule: crate::transport::tcp::VegasRule,
    /// Added key: what a loss halves: `flight_size` (RFC 5681) or `ns2`
    /// (ns-2.35's window, see [`crate::transport::tcp::SsthreshRule`]).
    #[serde(default)]
    pub ssthresh_rule: crate::transport::tcp::SsthreshRule,
    /// Added key: RFC 3042 limited transmit (ns-2.35's `singledup_`).
    #[serde(default)]
    pub limited_transmit: bool,
    /// Added key: how a flow without the handshake starts: `window` (its
    /// initial window at once) or `ns2` (ns-2.35's one-way agents' `syn_`
    /// and `delay_growth_`, see [`crate::transport::tcp::StartRule`]).
    #[serde(default)]
    pub start_rule: crate::transport::tcp::StartRule,
    /// Added key: how the SACK variant recovers: `rfc` (RFC 6675) or `ns2`
    /// (ns-2.35's `Sack1`, see [`crate::transport::tcp::SackRule`]).
    #[serde(default)]
    pub sack_rule: crate::transport::tcp::SackRule,
    /// Added key: how Reno's and NewReno's fast recovery deflates the
    /// window and ends: `rfc` (RFC 5681 and RFC 6582) or `ns2` (ns-2.35's,
    /// see [`crate::transport::tcp::RecoveryRule`]).
    #[serde(default)]
    pub recovery_rule: crate::transport::tcp::RecoveryRule,
    /// Added key: how the retransmission timeout is computed: `rfc` (RFC
    /// 6298) or `ns2` (ns-2.35's clock ticks, see
    /// [`crate::transport::tcp::RtoRule`]).
    #[serde(default)]
    pub rto_rule: crate::transport::tcp::RtoRule,
    /// Added key: how slow start ends: `standard` (RFC 5681, at a loss),
    /// `hystart` (hybrid slow start, as Linux's CUBIC) or `hystart++` (RFC
    /// 9406), see [`crate::transport::tcp::SlowStart`].
    #[serde(default)]
    pub slow_start: crate::transport::tcp::SlowStart,
    /// Added key: F-RTO (RFC 5682), detecting spurious timeouts and
    /// undoing their cut of the window.
    #[serde(default)]
    pub frto: bool,
}
fn default_initial_window_packets() -> u32 {
    2
}
fn default_min_rto_s() -> f64 {
    0.2
}
fn default_vegas_alpha() -> f64 {
    1.0
}
fn default_vegas_beta() -> f64 {
    3.0
}
fn default_vegas_gamma() -> f64 {
    1.0
}
fn default_tcp_variant() -> TcpVariant {
    TcpVariant::Newreno
}
fn default_window_packets() -> u32 {
    20
}
fn default_true() -> bool {
    true
}
impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            variant: default_tcp_variant(),
            window_packets: default_window_packets(),
            delayed_ack: false,
            handshake: true,
            initial_window_packets: default_initial_window_packets(),
            min_rto_s: default_min_rto_s(),
            vegas_alpha: default_vegas_alpha(),
            vegas_beta: default_vegas_beta(),
            vegas_gamma: default_vegas_gamma(),
            vegas_rule: Default::default(),
            ssthresh_rule: Default::default(),
            limited_transmit: false,
            start_rule: Default::default(),
            sack_rule: Default::default(),
            recovery_rule: Default::default(),
            rto_rule: Default::default(),
            slow_start: Default::default(),
            frto: false,
        }
    }
}

/// `[flows.tfrc]` (added table): options of a TFRC sender.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfrcFlowConfig {
    /// RFC 5348 section 4.5: space packets at `X_inst = X R_sqmean /
    /// sqrt(R_sample)` (off; ns-2.35's `ca_` is on).
    #[serde(default)]
    pub oscillation_prevention: bool,
    /// The filter constant of the RTT estimate and of `R_sqmean` (RFC 5348:
    /// 0.9; ns-2.35's `df_`: 0.95).
    #[serde(default = "default_rtt_filter")]
    pub rtt_filter: f64,
    /// How a feedback after the first loss sets the rate: `rfc` (RFC 5348
    /// section 4.3) or `ns2` (ns-2.35's gradual increase, see
    /// [`crate::transport::tfrc::IncreaseRule`]).
    #[serde(default)]
    pub increase_rule: crate::transport::tfrc::IncreaseRule,
    /// When the receiver reports and what the sender does without reports:
    /// `rfc` (RFC 5348 sections 6 and 4.4) or `ns2` (ns-2.35's
    /// `Agent/TFRCSink` and `Agent/TFRC`, see
    /// [`crate::transport::tfrc::FeedbackRule`]).
    #[serde(default)]
    pub feedback_rule: crate::transport::tfrc::FeedbackRule,
    /// RFC 5348 section 5.5's history discounting (off; ns-2.35's
    /// `discount_` is on).
    #[serde(default)]
    pub history_discounting: bool,
    /// The equation's `t_RTO`: `rfc` (4 R) or `ns2` (ns-2.35's TCP-style
    /// estimate in 100 ms ticks, see [`crate::transport::tfrc::RtoRule`]).
    #[serde(default)]
    pub rto_rule: crate::transport::tfrc::RtoRule,
    /// When a new rate reaches the packets' spacing: `rfc` (at once, RFC
    /// 5348 section 4.6) or `ns2` (ns-2.35's `nextpkt`, see
    /// [`crate::transport::tfrc::PacingRule`]).
    #[serde(default)]
    pub pacing_rule: crate::transport::tfrc::PacingRule,
    /// How the sender starts: `rfc` (one packet a second until the first
    /// feedback, RFC 5348 section 4.2) or `ns2` (ns-2.35's `InitRate_` of
    /// 300 bytes a second and its RFC 3390 window, see
    /// [`crate::transport::tfrc::StartRule`]).
    #[serde(default)]
    pub start_rule: crate::transport::tfrc::StartRule,
}
fn default_rtt_filter() -> f64 {
    0.9
}
impl Default for TfrcFlowConfig {
    fn default() -> Self {
        Self {
            oscillation_prevention: false,
            rtt_filter: default_rtt_filter(),
            increase_rule: Default::default(),
            feedback_rule: Default::default(),
            history_discounting: false,
            rto_rule: Default::default(),
            pacing_rule: Default::default(),
            start_rule: Default::default(),
        }
    }
}

/// `[flows.sctp]` (added table): how an SCTP association paces its sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SctpFlowConfig {
    /// `Max.Burst` (RFC 4960 §15: 4): packets one sending opportunity sends
    /// at most.
    #[serde(default = "default_max_burst")]
    pub max_burst: u32,
    /// When `max_burst` applies: `rfc` (every sending opportunity) or `ns2`
    /// (ns-2.35's: only after a SACK of a chunk sent again, see
    /// [`crate::transport::sctp::MaxBurstRule`]).
    #[serde(default)]
    pub max_burst_rule: crate::transport::sctp::MaxBurstRule,
    /// RFC 4960 §6.10: bundle DATA chunks that wait into one packet, up to
    /// the MTU (on, as ns-2.35's `Agent/SCTP` does).
    #[serde(default = "default_true")]
    pub bundling: bool,
    /// What a DATA chunk counts in the flight size and `cwnd`: `rfc` (its
    /// user data) or `ns2` (with its 16-byte header, see
    /// [`crate::transport::sctp::ByteRule`]).
    #[serde(default)]
    pub byte_rule: crate::transport::sctp::ByteRule,
    /// When chunks leave: `rfc` (whenever `cwnd` allows, RFC 4960 §6.1)
    /// or `ns2` (ns-2.35's: new data only while a SACK is handled, see
    /// [`crate::transport::sctp::SendRule`]).
    #[serde(default)]
    pub send_rule: crate::transport::sctp::SendRule,
    /// How `cwnd` decays while nothing is sent: `rfc` (RFC 4960 §7.2.1,
    /// halved per idle RTO down to 4 MTU), `ns2` (ns-2.35's, see
    /// [`crate::transport::sctp::IdleRule`]) or `off`.
    #[serde(default)]
    pub idle_rule: crate::transport::sctp::IdleRule,
    /// Outbound streams (RFC 4960 §6.5, at least 1): messages go to them
    /// in turn, and a lost chunk holds back only its own stream's.
    #[serde(default = "default_streams")]
    pub streams: u32,
    /// Send every message unordered (§6.6, the U bit): handed to the
    /// application on arrival.
    #[serde(default)]
    pub unordered: bool,
    /// How the association opens: `rfc` (RFC 4960 §5.1, data with the
    /// COOKIE ACK) or `ns2` (ns-2.35's sizes, and a HEARTBEAT answered
    /// before data, see [`crate::transport::sctp::HandshakeRule`]).
    #[serde(default)]
    pub handshake_rule: crate::transport::sctp::HandshakeRule,
    /// RFC 4960 §8.3's `HB.interval`, seconds: each end sends a HEARTBEAT
    /// when its path was idle for an RTO and this long (give or take half
    /// an RTO); 0 sends none.
    #[serde(default = "default_heartbeat_interval_s")]
    pub heartbeat_interval_s: f64,
    /// How errors count and an unanswered HEARTBEAT is followed: `rfc`
    /// (RFC 4960 §8.1, §8.3: the association fails after 10 in a row) or
    /// `ns2` (ns-2.35's: the only address turns inactive after 6 and the
    /// association never fails; an unanswered HEARTBEAT goes again at
    /// once, see [`crate::transport::sctp::FaultRule`]).
    #[serde(default)]
    pub fault_rule: crate::transport::sctp::FaultRule,
    /// What a full receive window does: `rfc` (RFC 4960 §6.2: the highest
    /// TSN held for reordering makes room for a lower one; every SACK's
    /// gap-ack blocks are trusted alone) or `ns2` (ns-2.35's: any chunk
    /// that does not fit is dropped, the gap-filling one included, and a
    /// SACK without gap-ack blocks leaves earlier gap acks standing, see
    /// [`crate::transport::sctp::WindowRule`]).
    #[serde(default)]
    pub window_rule: crate::transport::sctp::WindowRule,
    /// Which SACKs count miss indications for fast retransmit: `rfc`
    /// (RFC 4960 §7.2.4's HTNA rule, per SACK) or `ns2` (ns-2.35's: the
    /// highest TSN newly acknowledged kept from SACK to SACK, see
    /// [`crate::transport::sctp::MissRule`]).
    #[serde(default)]
    pub miss_rule: crate::transport::sctp::MissRule,
}
fn default_max_burst() -> u32 {
    4
}
fn default_heartbeat_interval_s() -> f64 {
    30.0
}
fn default_streams() -> u32 {
    1
}
impl Default for SctpFlowConfig {
    fn default() -> Self {
        Self {
            max_burst: default_max_burst(),
            max_burst_rule: Default::default(),
            bundling: true,
            byte_rule: Default::default(),
            send_rule: Default::default(),
            idle_rule: Default::default(),
            streams: default_streams(),
            unordered: false,
            handshake_rule: Default::default(),
            heartbeat_interval_s: default_heartbeat_interval_s(),
            fault_rule: Default::default(),
            window_rule: Default::default(),
            miss_rule: Default::default(),
        }
    }
}

/// How an on-off source draws its bursts and idle times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnOffDistribution {
    /// ns-2's `Application/Traffic/Exponential`.
    #[default]
    Exponential,
    /// ns-2's `Application/Traffic/Pareto`.
    Pareto,
}

/// `[flows.onoff]` (added table): an on-off source's bursts, as ns-2's
/// exponential and Pareto traffic generators draw them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    /// Mean burst ("on") time, during which packets leave at `rate_bps`
    /// (ns-2 `burst_time_`, 0.5 s).
    #[serde(default = "default_half_s")]
    pub on_s: f64,
    /// Mean idle ("off") time (ns-2 `idle_time_`, 0.5 s).
    #[serde(default = "default_half_s")]
    pub off_s: f64,
    #[serde(default)]
    pub distribution: OnOffDistribution,
    /// The Pareto distribution's shape (ns-2 `shape_`, 1.5); above 1.
    #[serde(default = "default_pareto_shape")]
    pub shape: f64,
}
fn default_half_s() -> f64 {
    0.5
}
fn default_pareto_shape() -> f64 {
    1.5
}
impl Default for OnOffConfig {
    fn default() -> Self {
        Self {
            on_s: default_half_s(),
            off_s: default_half_s(),
            distribution: OnOffDistribution::default(),
            shape: default_pareto_shape(),
        }
    }
}

/// One `[[flows]]` entry: an application on `src` sending to `dst`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub src: u32,
    pub dst: u32,
    #[serde(default = "default_transport")]
    pub transport: Transport,
    #[serde(default = "default_app")]
    pub app: AppKind,
    #[serde(default)]
    pub start_s: f64,
    /// Defaults to the scenario's `duration_s` (filled in by the loader).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    #[serde(default = "default_packet_size_bytes")]
    pub packet_size_bytes: u32,
    /// CBR/on-off rate of application payload. Default 448 kbit/s (ns-2 CBR
    /// `rate_`) unless `interval_s` is given. Give one of the two, not both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    /// Added key: CBR inter-packet interval, the alternative to `rate_bps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// Added key: the first packet leaves at `start_s + U(0, start_jitter_s)`
    /// (stream `flow_start`, per flow).
    #[serde(default)]
    pub start_jitter_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConfig>,
    /// Added table `[flows.tfrc]`, with TFRC only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tfrc: Option<TfrcFlowConfig>,
    /// Added table `[flows.sctp]`, with SCTP only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sctp: Option<SctpFlowConfig>,
    /// Added table `[flows.onoff]`, with `app = "onoff"` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onoff: Option<OnOffConfig>,
    /// Added key: an FTP flow transfers this many bytes, then stops sending;
    /// absent = an unlimited transfer (ns-2's `$ftp start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes: Option<u64>,
}
fn default_transport() -> Transport {
    Transport::Udp
}
fn default_app() -> AppKind {
    AppKind::Cbr
}
fn default_packet_size_bytes() -> u32 {
    512
}

/// `[energy]`: linear battery per node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Energy {
    #[serde(default = "default_initial_j")]
    pub initial_j: f64,
    #[serde(default = "default_tx_w")]
    pub tx_w: f64,
    #[serde(default = "default_rx_w")]
    pub rx_w: f64,
    #[serde(default)]
    pub idle_w: f64,
    #[serde(default)]
    pub sleep_w: f64,
}
fn default_initial_j() -> f64 {
    100.0
}
fn default_tx_w() -> f64 {
    0.6
}
fn default_rx_w() -> f64 {
    0.3
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModelKind {
    Uniform,
    GilbertElliott,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPackets {
    Data,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossWhere {
    AfterMac,
    BeforeMac,
}

/// One `[[loss]]` entry: a packet-error model at a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Loss {
    pub node: u32,
    #[serde(default = "default_loss_model")]
    pub model: LossModelKind,
    #[serde(default)]
    pub rate: f64,
    #[serde(default = "default_loss_packets")]
    pub packets: LossPackets,
    #[serde(rename = "where", default = "default_loss_where")]
    pub where_: LossWhere,
    /// Added key, Gilbert–Elliott only: the mean length of a loss burst in
    /// packets (≥ 1). With `rate` it fixes the two-state chain: from the bad
    /// state (every packet lost) back to the good one (none lost) with
    /// probability 1 / burst, from good to bad with rate / ((1 − rate) · burst).
    #[serde(default = "default_mean_burst_packets")]
    pub mean_burst_packets: f64,
}
fn default_mean_burst_packets() -> f64 {
    1.0
}
fn default_loss_model() -> LossModelKind {
    LossModelKind::Uniform
}
fn default_loss_packets() -> LossPackets {
    LossPackets::Data
}
fn default_loss_where() -> LossWhere {
    LossWhere::AfterMac
}

/// `[output]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    #[serde(default)]
    pub pcap: bool,
    /// Each node's capture opens every record with a radiotap header (the
    /// frame's rate and the channel), link type 127.
    #[serde(default)]
    pub pcap_radiotap: bool,
    #[serde(default)]
    pub ns2_trace: bool,
}
