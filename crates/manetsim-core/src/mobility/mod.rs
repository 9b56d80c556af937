//! Node mobility: piecewise-linear trajectories, computed on demand.
//!
//! There are no periodic "move" events. Each node's trajectory is a sequence
//! of straight [`Leg`]s at constant speed, and [`Mobility::position`] works a
//! position out from the leg in force at the asked time (kept per node in a
//! compact cache, with the times over which it holds): O(1) amortised when
//! a node's queries come with non-decreasing times (the simulation's case),
//! still correct, more slowly, for an earlier time.
//!
//! The models (`[mobility] model = …`):
//!
//! - `static`: nodes stay at their placement;
//! - `random_waypoint` ([`random_waypoint`]): ns-2 `setdest` semantics, legs
//!   generated lazily per node from the node's own stream
//!   `Rng::new(seed, Stream::Mobility, node)` and nothing else, so memory
//!   stays small for 10,000 nodes and the routing or transport protocol
//!   never changes how nodes move; optional Navidi–Camp steady state;
//! - `waypoints` ([`waypoints`]): scripted `[[mobility.moves]]`;
//! - `ns2` ([`ns2`]): an ns-2 movement file (setdest output);
//! - `bonnmotion` ([`bonnmotion`]): a BonnMotion `.movements` + `.params`;
//! - `random_direction`, `random_walk` and `gauss_markov` ([`walk`]): Royer
//!   et al.'s random direction, a reflecting random walk and Liang and
//!   Haas's Gauss-Markov model, as ns-3 defines them, generated lazily per
//!   node as random waypoint is;
//! - `rpgm` ([`group`]): Hong et al.'s reference point group mobility,
//!   groups of nodes around reference points that walk as random waypoint
//!   does, every leg worked out as the run starts;
//! - `manhattan` ([`manhattan`]): nodes that keep to the streets of a city
//!   grid, turning at its intersections, every leg worked out as the run
//!   starts.
//!
//! [`Mobility::write_ns2`] writes any of them as an ns-2 movement file that
//! reproduces the same trajectories exactly; [`metrics`] measures speed,
//! node degree and link changes over time.

pub mod bonnmotion;
mod error;
pub mod group;
pub mod manhattan;
pub mod metrics;
pub mod ns2;
pub mod random_waypoint;
mod trajectory;
pub mod walk;
pub mod waypoints;

pub use error::MobilityError;
pub use group::GroupParams;
pub use manhattan::{ManhattanParams, StreetUpdates};
pub use random_waypoint::{RandomWaypoint, RwpParams};
pub use trajectory::{travel_time, Leg, Trajectory};
pub use walk::{Walk, WalkKind, WalkParams};

use crate::engine::{from_secs, to_secs, SimTime};
use crate::phy::Pos;
use crate::scenario::{self, Scenario};
use std::rc::Rc;

/// One node's movement.
pub trait MobilityModel {
    /// The position at `t`.
    fn position(&mut self, t: SimTime) -> Pos;
    /// Every leg that starts before `until`, in order.
    fn legs_until(&mut self, until: SimTime) -> Vec<Leg>;
    /// The position at time 0.
    fn initial_position(&self) -> Pos;
    /// The instantaneous speed at `t` (0 while paused).
    fn speed_at(&mut self, t: SimTime) -> f64;
    /// An upper bound on the speed at any time.
    fn max_speed_mps(&self) -> f64;
}

/// One node's movement, whichever the model (an enum, not a trait object,
/// so dispatch is a match). Not boxed: every node of a run has the same
/// variant, so boxing would only add an allocation and an indirection.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum NodeMobility {
    /// Never moves.
    Static(Pos),
    /// Random waypoint, generated lazily.
    RandomWaypoint(RandomWaypoint),
    /// Random direction or random walk, generated lazily. Boxed, so that
    /// every other model's nodes stay as small as random waypoint's.
    Walk(Box<Walk>),
    /// Every leg known up front (scripted moves, ns-2, BonnMotion).
    Trajectory(Trajectory),
}

impl NodeMobility {
    /// The leg the last query at `t` used, and the times over which it gives
    /// every position (a node that never moves: one still leg, forever).
    fn leg_in_force(&mut self, t: SimTime) -> HotLeg {
        let (from, until, leg) = match self {
            NodeMobility::Static(p) => (0, SimTime::MAX, Leg::still(0, *p)),
            NodeMobility::RandomWaypoint(r) => r.leg_in_force(),
            NodeMobility::Walk(w) => w.leg_in_force(),
            NodeMobility::Trajectory(tr) => tr.leg_in_force(t),
        };
        debug_assert!(from <= t && t < until, "{t} outside [{from}, {until})");
        HotLeg::at(from, until, &leg, t)
    }
}

impl MobilityModel for NodeMobility {
    #[inline]
    fn position(&mut self, t: SimTime) -> Pos {
        match self {
            NodeMobility::Static(p) => *p,
            NodeMobility::RandomWaypoint(r) => r.position(t),
            NodeMobility::Walk(w) => w.position(t),
            NodeMobility::Trajectory(tr) => tr.position(t),
        }
    }

    fn legs_until(&mut self, until: SimTime) -> Vec<Leg> {
        match self {
            NodeMobility::Static(_) => Vec::new(),
            NodeMobility::RandomWaypoint(r) => r.legs_until(until),
            NodeMobility::Walk(w) => w.legs_until(until),
            NodeMobility::Trajectory(tr) => tr.legs_until(until),
        }
    }

    fn initial_position(&self) -> Pos {
        match self {
            NodeMobility::Static(p) => *p,
            NodeMobility::RandomWaypoint(r) => r.initial(),
            NodeMobility::Walk(w) => w.initial(),
            NodeMobility::Trajectory(tr) => tr.initial(),
        }
    }

    fn speed_at(&mut self, t: SimTime) -> f64 {
        match self {
            NodeMobility::Static(_) => 0.0,
            NodeMobility::RandomWaypoint(r) => r.speed_at(t),
            NodeMobility::Walk(w) => w.speed_at(t),
            NodeMobility::Trajectory(tr) => tr.speed_at(t),
        }
    }

    fn max_speed_mps(&self) -> f64 {
        match self {
            NodeMobility::Static(_) => 0.0,
            NodeMobility::RandomWaypoint(r) => r.max_speed_mps(),
            NodeMobility::Walk(w) => w.max_speed_mps(),
            NodeMobility::Trajectory(tr) => tr.max_speed_mps(),
        }
    }
}

/// The part of the leg in force at a node's last query over which one
/// formula gives its position: before the leg starts (standing at its
/// `from`), under way ([`trajectory::along`]), or after it ends (at its
/// `to`). One cache line: `transmit` reads one per receiver.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct HotLeg {
    /// It answers for `t` in `[base, base + len)` (one wrapping subtraction
    /// and one comparison). Under way, `base` is the leg's start + 1.
    base: SimTime,
    len: SimTime,
    /// Where the node stands, or where the leg started.
    origin: Pos,
    /// Under way: [`Leg::heading`].
    heading: Pos,
    speed_mps: f64,
    /// Under way: the leg's [`trajectory::span_nm`] (> 0). Standing: 0.
    span_nm: f64,
}

impl HotLeg {
    /// Answers nothing (an empty span).
    const NONE: HotLeg = HotLeg::standing(0, 0, Pos { x: 0.0, y: 0.0 });

    const fn standing(from: SimTime, until: SimTime, at: Pos) -> HotLeg {
        HotLeg {
            base: from,
            len: until.saturating_sub(from),
            origin: at,
            heading: Pos { x: 0.0, y: 0.0 },
            speed_mps: 0.0,
            span_nm: 0.0,
        }
    }

    /// The part of `leg`, in force over `[from, until)`, that holds `t`.
    fn at(from: SimTime, until: SimTime, leg: &Leg, t: SimTime) -> HotLeg {
        if t <= leg.start {
            HotLeg::standing(from, until.min(leg.start.saturating_add(1)), leg.from)
        } else if t >= leg.end {
            HotLeg::standing(from.max(leg.end), until, leg.to)
        } else if from <= leg.start && leg.span_m != 0.0 {
            let base = leg.start + 1;
            HotLeg {
                base,
                len: until.min(leg.end) - base,
                origin: leg.from,
                heading: leg.heading(),
                speed_mps: leg.speed_mps,
                span_nm: trajectory::span_nm(leg.span_m),
            }
        } else {
            // Not seen in any model (a leg in force from after its start,
            // or going nowhere): answered through the model every time.
            HotLeg::NONE
        }
    }

    /// The position at `t`, if this part holds it: [`Leg::position`]'s
    /// answer, to the bit.
    #[inline]
    fn position(&self, t: SimTime) -> Option<Pos> {
        let dt = t.wrapping_sub(self.base);
        (dt < self.len).then(|| {
            trajectory::along(
                self.origin,
                self.heading,
                self.speed_mps,
                self.span_nm,
                dt + 1,
            )
        })
    }
}

/// Every node's trajectory for one run.
#[derive(Debug, Clone)]
pub struct Mobility {
    nodes: Vec<NodeMobility>,
    /// Each node's leg in force at its last query, with the times over which
    /// it gives every position: most queries are answered from here, in a
    /// compact array, without the model (see [`Mobility::position`]).
    hot: Vec<HotLeg>,
    max_speed_mps: f64,
    /// What the trajectories came from, for file headers.
    origin: String,
}

/// The `file` of errors about the `[mobility]` table itself.
const TABLE: &str = "[mobility]";

impl Mobility {
    /// Builds every node's trajectory from a validated scenario.
    ///
    /// `initial` holds the placement positions (`nodes.placement`), one per
    /// node; it is used by `static` and `waypoints`, and ignored by
    /// `random_waypoint` (whose initial positions come from the mobility
    /// stream) and by `ns2`/`bonnmotion` (whose come from the file). A
    /// relative `mobility.file` is read relative to the current directory:
    /// [`crate::scenario::load_file`] has already made it absolute.
    pub fn from_scenario(s: &Scenario, initial: &[Pos]) -> Result<Self, MobilityError> {
        let m = &s.mobility;
        let count = s.nodes.count;
        let need_initial = || {
            if initial.len() == count as usize {
                Ok(())
            } else {
                Err(MobilityError::new(
                    TABLE,
                    None,
                    format!(
                        "{} initial positions for nodes.count = {count} nodes (expected one per node)",
                        initial.len()
                    ),
                ))
            }
        };
        let origin = format!(
            "scenario \"{}\", seed {}, mobility.model = \"{}\"",
            s.name,
            s.seed,
            scenario_model_name(m.model)
        );
        let mut nodes: Vec<NodeMobility> = match m.model {
            scenario::MobilityModel::Static => {
                need_initial()?;
                initial.iter().map(|&p| NodeMobility::Static(p)).collect()
            }
            scenario::MobilityModel::Waypoints => {
                need_initial()?;
                waypoints::build(initial, &m.moves)
                    .into_iter()
                    .map(NodeMobility::Trajectory)
                    .collect()
            }
            scenario::MobilityModel::RandomWaypoint => {
                let params = Rc::new(rwp_params(s)?);
                (0..count)
                    .map(|i| {
                        NodeMobility::RandomWaypoint(RandomWaypoint::new(
                            Rc::clone(&params),
                            s.seed,
                            i,
                        ))
                    })
                    .collect()
            }
            scenario::MobilityModel::RandomDirection
            | scenario::MobilityModel::RandomWalk
            | scenario::MobilityModel::GaussMarkov => {
                let params = Rc::new(walk_params(s)?);
                (0..count)
                    .map(|i| NodeMobility::Walk(Box::new(Walk::new(Rc::clone(&params), s.seed, i))))
                    .collect()
            }
            // Every leg that starts by the end of the run, as `write_ns2`
            // writes them.
            scenario::MobilityModel::Rpgm => known(group::build(
                &group_params(s)?,
                s.seed,
                count,
                from_secs(s.duration_s).saturating_add(1),
            )),
            scenario::MobilityModel::Manhattan => known(manhattan::build(
                &manhattan_params(s)?,
                s.seed,
                count,
                from_secs(s.duration_s).saturating_add(1),
            )),
            scenario::MobilityModel::Ns2 => known(ns2::read(file_of(s)?, count, &s.area)?),
            scenario::MobilityModel::Bonnmotion => {
                known(bonnmotion::read(file_of(s)?, count, &s.area)?)
            }
        };
        for f in &m.fixed {
            if let Some(n) = nodes.get_mut(f.node as usize) {
                *n = NodeMobility::Static(Pos::new(f.position[0], f.position[1]));
            }
        }
        let max_speed_mps = nodes
            .iter()
            .map(MobilityModel::max_speed_mps)
            .fold(0.0, f64::max);
        Ok(Self {
            hot: vec![HotLeg::NONE; nodes.len()],
            nodes,
            max_speed_mps,
            origin,
        })
    }

    /// A mobility set made of given node models (tests, tools).
    pub fn from_nodes(nodes: Vec<NodeMobility>) -> Self {
        let max_speed_mps = nodes
            .iter()
            .map(MobilityModel::max_speed_mps)
            .fold(0.0, f64::max);
        Self {
            hot: vec![HotLeg::NONE; nodes.len()],
            nodes,
            max_speed_mps,
            origin: "nodes built in code".into(),
        }
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node `node`'s position at `t`. O(1) amortised when one node's queries
    /// come with non-decreasing `t`; correct (slower) for an earlier `t`.
    /// Panics if `node` is out of range.
    #[inline]
    pub fn position(&mut self, node: u32, t: SimTime) -> Pos {
        match self.hot[node as usize].position(t) {
            Some(p) => p,
            None => self.refresh(node, t),
        }
    }

    /// [`Self::position`] through the model, which then says which leg is
    /// in force at `t` and until when.
    #[cold]
    fn refresh(&mut self, node: u32, t: SimTime) -> Pos {
        let model = &mut self.nodes[node as usize];
        let p = model.position(t);
        self.hot[node as usize] = model.leg_in_force(t);
        p
    }

    /// Starts loading what [`Self::position`] reads for `node` (a hint: see
    /// [`crate::engine::prefetch`]).
    #[inline]
    pub fn prefetch(&self, node: u32) {
        if let Some(h) = self.hot.get(node as usize) {
            crate::engine::prefetch(h);
        }
    }

    /// Node `node`'s instantaneous speed at `t`.
    pub fn speed_at(&mut self, node: u32, t: SimTime) -> f64 {
        self.nodes[node as usize].speed_at(t)
    }

    /// Node `node`'s legs that start before `until`.
    pub fn legs_until(&mut self, node: u32, until: SimTime) -> Vec<Leg> {
        self.nodes[node as usize].legs_until(until)
    }

    /// An upper bound on every node's speed at any time (0 for static).
    pub fn max_speed_mps(&self) -> f64 {
        self.max_speed_mps
    }

    /// True when no node ever moves.
    pub fn is_static(&self) -> bool {
        self.max_speed_mps == 0.0
    }

    /// Every node's position at time 0.
    pub fn initial_positions(&self) -> Vec<Pos> {
        self.nodes
            .iter()
            .map(MobilityModel::initial_position)
            .collect()
    }

    /// An ns-2 movement file that reproduces every trajectory exactly up to
    /// `duration`, its end included (legs that start by then: the random
    /// walk's and Gauss-Markov's start on whole steps, and a run's last
    /// sample of its mobility is at `duration`).
    pub fn write_ns2(&mut self, duration: SimTime) -> String {
        let initial = self.initial_positions();
        let legs: Vec<Vec<Leg>> = self
            .nodes
            .iter_mut()
            .map(|n| n.legs_until(duration.saturating_add(1)))
            .collect();
        let header = vec![
            format!("ns-2 movement file written by manetsim {}", crate::VERSION),
            format!(
                "{}; {} nodes; legs starting by {} s",
                self.origin,
                self.nodes.len(),
                to_secs(duration)
            ),
        ];
        ns2::write(&header, &initial, &legs)
    }
}

/// Nodes whose every leg is known up front.
fn known(trajectories: Vec<Trajectory>) -> Vec<NodeMobility> {
    trajectories
        .into_iter()
        .map(NodeMobility::Trajectory)
        .collect()
}

fn scenario_model_name(m: scenario::MobilityModel) -> &'static str {
    match m {
        scenario::MobilityModel::Static => "static",
        scenario::MobilityModel::RandomWaypoint => "random_waypoint",
        scenario::MobilityModel::Waypoints => "waypoints",
        scenario::MobilityModel::Ns2 => "ns2",
        scenario::MobilityModel::Bonnmotion => "bonnmotion",
        scenario::MobilityModel::RandomDirection => "random_direction",
        scenario::MobilityModel::RandomWalk => "random_walk",
        scenario::MobilityModel::GaussMarkov => "gauss_markov",
        scenario::MobilityModel::Rpgm => "rpgm",
        scenario::MobilityModel::Manhattan => "manhattan",
    }
}

fn file_of(s: &Scenario) -> Result<&str, MobilityError> {
    s.mobility.file.as_deref().ok_or_else(|| {
        MobilityError::new(
            TABLE,
            None,
            format!(
                "mobility.model = \"{}\" needs mobility.file (the movement file)",
                scenario_model_name(s.mobility.model)
            ),
        )
    })
}

/// The speeds and pause that every drawn model (`name`) needs: a maximum
/// speed > 0, a minimum from 0 to it, a pause ≥ 0.
fn check_speeds(m: &scenario::Mobility, name: &str) -> Result<(), MobilityError> {
    let bad = |msg: String| Err(MobilityError::new(TABLE, None, msg));
    if !(m.max_speed_mps.is_finite() && m.max_speed_mps > 0.0) {
        return bad(format!(
            "{name} needs max_speed_mps > 0, got {}",
            m.max_speed_mps
        ));
    }
    if !(m.min_speed_mps >= 0.0 && m.min_speed_mps <= m.max_speed_mps) {
        return bad(format!(
            "{name} needs 0 ≤ min_speed_mps ≤ max_speed_mps, got {} and {}",
            m.min_speed_mps, m.max_speed_mps
        ));
    }
    if !(m.pause_s.is_finite() && m.pause_s >= 0.0) {
        return bad(format!("expected pause_s ≥ 0, got {}", m.pause_s));
    }
    Ok(())
}

fn rwp_params(s: &Scenario) -> Result<RwpParams, MobilityError> {
    let m = &s.mobility;
    let bad = |msg: String| Err(MobilityError::new(TABLE, None, msg));
    check_speeds(m, "random waypoint")?;
    if m.steady_state && m.min_speed_mps <= 0.0 {
        return bad(STEADY_STATE_NEEDS_MIN_SPEED.into());
    }
    Ok(rwp_of(s))
}

/// Random waypoint's parameters as the scenario gives them (unchecked).
fn rwp_of(s: &Scenario) -> RwpParams {
    let m = &s.mobility;
    RwpParams {
        width_m: s.area.width_m,
        height_m: s.area.height_m,
        min_speed_mps: m.min_speed_mps,
        max_speed_mps: m.max_speed_mps,
        pause: from_secs(m.pause_s),
        steady_state: m.steady_state,
    }
}

fn walk_params(s: &Scenario) -> Result<WalkParams, MobilityError> {
    let m = &s.mobility;
    let name = scenario_model_name(m.model);
    let bad = |msg: String| Err(MobilityError::new(TABLE, None, msg));
    check_speeds(m, name)?;
    let kind = match m.model {
        scenario::MobilityModel::RandomWalk => WalkKind::RandomWalk,
        scenario::MobilityModel::GaussMarkov => WalkKind::GaussMarkov,
        _ => WalkKind::RandomDirection,
    };
    let step_s = m.step_s.unwrap_or(scenario::DEFAULT_WALK_STEP_S);
    if !(step_s.is_finite() && step_s >= 1e-9) {
        return bad(format!("{name} needs step_s ≥ 1e-9 s, got {step_s}"));
    }
    let step_m = match (kind, m.step_m) {
        (WalkKind::RandomWalk, Some(d)) => {
            if !(d.is_finite() && d >= scenario::MIN_WALK_STEP_M) {
                return bad(format!(
                    "{name} needs step_m ≥ {} m, got {d}",
                    scenario::MIN_WALK_STEP_M
                ));
            }
            Some(d)
        }
        _ => None,
    };
    let alpha = m.alpha.unwrap_or(scenario::DEFAULT_GAUSS_MARKOV_ALPHA);
    let speed_std_mps = m
        .speed_std_mps
        .unwrap_or(scenario::DEFAULT_GAUSS_MARKOV_SPEED_STD_MPS);
    let direction_std_rad = m
        .direction_std_rad
        .unwrap_or(scenario::DEFAULT_GAUSS_MARKOV_DIRECTION_STD_RAD);
    let deviation = |x: f64| x.is_finite() && x >= 0.0;
    if !((0.0..=1.0).contains(&alpha) && deviation(speed_std_mps) && deviation(direction_std_rad)) {
        return bad(format!(
            "{name} needs 0 ≤ alpha ≤ 1 and finite deviations ≥ 0, got {alpha}, {speed_std_mps} and {direction_std_rad}"
        ));
    }
    Ok(WalkParams {
        kind,
        width_m: s.area.width_m,
        height_m: s.area.height_m,
        min_speed_mps: m.min_speed_mps,
        max_speed_mps: m.max_speed_mps,
        pause: from_secs(m.pause_s),
        step: from_secs(step_s),
        step_m,
        edge_margin_m: match (kind, m.edge_margin_m) {
            (WalkKind::GaussMarkov, Some(d)) if d.is_finite() && d >= 0.0 => Some(d),
            (WalkKind::GaussMarkov, Some(d)) => {
                return bad(format!("{name} needs edge_margin_m ≥ 0, got {d}"));
            }
            _ => None,
        },
        alpha,
        speed_std_mps,
        direction_std_rad,
    })
}

/// The most legs, all nodes together, that the models which work every leg
/// out as the run starts (`rpgm`, `manhattan`) may hold: 20 million, about
/// 1.6 GB.
pub const MAX_LEGS_UP_FRONT: f64 = 2.0e7;

/// About how many legs `rpgm` or `manhattan` would work out for `s` as the
/// run starts, erring high (`None` for the other models, whose legs are
/// drawn as the run goes or read from a file):
/// - `manhattan`: a leg a block crossed at `max_speed_mps`, the shorter side
///   of a block, for every node;
/// - `rpgm`: a leg per pause and mean random-waypoint leg (its mean length)
///   at `max_speed_mps`, for every node.
pub fn legs_up_front(s: &Scenario) -> Option<f64> {
    let m = &s.mobility;
    let nodes = f64::from(s.nodes.count);
    let reach_m = s.duration_s * m.max_speed_mps;
    match m.model {
        scenario::MobilityModel::Manhattan => {
            let blocks =
                |n: Option<u32>| f64::from(n.unwrap_or(scenario::DEFAULT_MANHATTAN_BLOCKS));
            let block_m =
                (s.area.width_m / blocks(m.blocks_x)).min(s.area.height_m / blocks(m.blocks_y));
            // A leg more at each speed change, two at each pause.
            let updates = m.update_m.map_or(0.0, |d| {
                reach_m / d
                    * (m.speed_change_prob.unwrap_or(0.0) + 2.0 * m.pause_prob.unwrap_or(0.0))
            });
            Some(nodes * (2.0 + reach_m / block_m + updates))
        }
        scenario::MobilityModel::Rpgm => {
            let leg_s = m.pause_s
                + random_waypoint::mean_leg_length(s.area.width_m, s.area.height_m)
                    / m.max_speed_mps;
            // A leg more for each change of group: at most one a leg for
            // each other group met.
            let groups = f64::from(m.groups.unwrap_or(scenario::DEFAULT_GROUPS));
            let changes = 1.0 + m.group_change_prob.unwrap_or(0.0) * (groups - 1.0).max(0.0);
            Some(nodes * (2.0 + s.duration_s / leg_s) * changes)
        }
        _ => None,
    }
}

fn group_params(s: &Scenario) -> Result<GroupParams, MobilityError> {
    let m = &s.mobility;
    let bad = |msg: String| Err(MobilityError::new(TABLE, None, msg));
    check_speeds(m, "rpgm")?;
    let groups = m.groups.unwrap_or(scenario::DEFAULT_GROUPS);
    if groups == 0 || groups > s.nodes.count {
        return bad(format!(
            "rpgm needs 1 to the node count ({}) groups, got {groups}",
            s.nodes.count
        ));
    }
    let radius_m = m.group_radius_m.unwrap_or(scenario::DEFAULT_GROUP_RADIUS_M);
    if !(radius_m.is_finite() && radius_m >= 0.0) {
        return bad(format!("rpgm needs group_radius_m ≥ 0, got {radius_m}"));
    }
    let change_prob = m.group_change_prob.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&change_prob) {
        return bad(format!(
            "rpgm needs 0 ≤ group_change_prob ≤ 1, got {change_prob}"
        ));
    }
    Ok(GroupParams {
        rwp: RwpParams {
            steady_state: false,
            ..rwp_of(s)
        },
        groups,
        radius_m,
        change_prob,
    })
}

fn manhattan_params(s: &Scenario) -> Result<ManhattanParams, MobilityError> {
    let m = &s.mobility;
    check_speeds(m, "manhattan")?;
    let blocks_x = m.blocks_x.unwrap_or(scenario::DEFAULT_MANHATTAN_BLOCKS);
    let blocks_y = m.blocks_y.unwrap_or(scenario::DEFAULT_MANHATTAN_BLOCKS);
    let most = scenario::MAX_MANHATTAN_BLOCKS;
    if !((1..=most).contains(&blocks_x) && (1..=most).contains(&blocks_y)) {
        return Err(MobilityError::new(
            TABLE,
            None,
            format!("manhattan needs 1 to {most} blocks each way, got {blocks_x} and {blocks_y}"),
        ));
    }
    Ok(ManhattanParams {
        width_m: s.area.width_m,
        height_m: s.area.height_m,
        blocks_x,
        blocks_y,
        min_speed_mps: m.min_speed_mps,
        max_speed_mps: m.max_speed_mps,
        updates: m.update_m.map(|update_m| StreetUpdates {
            update_m,
            speed_change_prob: m.speed_change_prob.unwrap_or(0.0),
            pause_prob: m.pause_prob.unwrap_or(0.0),
            max_pause: from_secs(m.max_pause_s.unwrap_or(0.0)),
        }),
    })
}

/// Why `steady_state = true` needs `min_speed_mps > 0`.
pub(crate) const STEADY_STATE_NEEDS_MIN_SPEED: &str = "steady_state = true needs min_speed_mps > 0: with a minimum speed of 0 random waypoint has no stationary distribution (its mean speed decays towards zero), so there is no steady state to start from (Navidi & Camp 2004)";

/// Reads and checks the movement file of an `ns2` or `bonnmotion` scenario
/// (the validator's check; other models have no file).
pub(crate) fn check_file(s: &Scenario) -> Result<(), MobilityError> {
    match s.mobility.model {
        scenario::MobilityModel::Ns2 | scenario::MobilityModel::Bonnmotion => {
            Mobility::from_scenario(s, &[]).map(|_| ())
        }
        _ => Ok(()),
    }
}

/// Things in a valid scenario's `[mobility]` that are probably not what the
/// user meant, one sentence each (empty when there is nothing to say).
pub fn scenario_warnings(s: &Scenario) -> Vec<String> {
    let m = &s.mobility;
    let mut out = Vec::new();
    match m.model {
        scenario::MobilityModel::RandomWaypoint => {
            if m.min_speed_mps == 0.0 && m.max_speed_mps > 0.0 {
                out.push(format!(
                    "mobility.min_speed_mps = 0 with random waypoint: nodes that draw a speed near 0 take very long to arrive, so the average speed decays towards zero over the run instead of staying near {} m/s (Yoon, Liu & Noble 2003); use min_speed_mps > 0 (e.g. 1.0)",
                    m.max_speed_mps / 2.0
                ));
            }
            if !m.steady_state && m.min_speed_mps > 0.0 {
                let p = rwp_of(s);
                let warmup = random_waypoint::mean_leg_length(p.width_m, p.height_m)
                    * random_waypoint::mean_inverse_speed(p.min_speed_mps, p.max_speed_mps)
                    + m.pause_s;
                if s.duration_s < 3.0 * warmup {
                    out.push(format!(
                        "random waypoint starts from uniform positions, not from its steady state; one leg plus pause takes {warmup:.0} s on average and this run lasts {} s, so the start is not representative: set mobility.steady_state = true, or discard a warm-up",
                        s.duration_s
                    ));
                }
            }
        }
        scenario::MobilityModel::Waypoints => {
            if m.moves.is_empty() {
                out.push(
                    "mobility.model = \"waypoints\" has no [[mobility.moves]]: every node stays at its placement".into(),
                );
            }
            // When the first move of a node arrives depends on where the
            // node starts; uniform placement is drawn by the simulation, so
            // its nodes' takeovers are not reported here.
            let initial = fixed_placement(s).unwrap_or_default();
            for (later, earlier, arrival) in waypoints::takeovers(&initial, &m.moves) {
                out.push(format!(
                    "mobility.moves[{later}] (node {}) starts at {} s, before mobility.moves[{earlier}] arrives (at about {arrival:.3} s): the node turns from where it is then",
                    m.moves[later].node, m.moves[later].at_s
                ));
            }
        }
        _ => {}
    }
    out
}

/// The placement positions when they need no random draw (chain, grid,
/// explicit), as `sim` computes them; `None` for uniform placement.
fn fixed_placement(s: &Scenario) -> Option<Vec<Pos>> {
    let n = s.nodes.count as usize;
    let sp = s.nodes.spacing_m;
    match s.nodes.placement {
        scenario::Placement::Chain => Some((0..n).map(|i| Pos::new(i as f64 * sp, 0.0)).collect()),
        scenario::Placement::Grid => {
            let cols = s.nodes.cols.unwrap_or(1).max(1) as usize;
            Some(
                (0..n)
                    .map(|i| Pos::new((i % cols) as f64 * sp, (i / cols) as f64 * sp))
                    .collect(),
            )
        }
        scenario::Placement::Explicit => s
            .nodes
            .positions
            .as_ref()
            .map(|ps| ps.iter().map(|p| Pos::new(p[0], p[1])).collect()),
        scenario::Placement::Uniform => None,
    }
}

#[cfg(test)]
mod tests;
