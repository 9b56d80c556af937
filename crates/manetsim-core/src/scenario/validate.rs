//! Value checks on a deserialized scenario: ranges, node ids, consistency
//! between keys, keys that mean nothing in context, and (last) features that
//! are not yet supported ([`super::support`]).
//!
//! Every check names its key; the loader turns the key into a line number.

use serde::Serialize;

use super::error::ScenarioError;
use super::render::fmt_float;
use super::schema::*;
use super::support;
use crate::mac::{MacStandard, Preamble};

/// Largest `nodes.count`.
pub const MAX_NODES: u32 = 1_000_000;
/// Most blocks across either side of a Manhattan grid (its legs, one a
/// block, are all held from the start).
pub const MAX_MANHATTAN_BLOCKS: u32 = 1_000;
/// The shortest `mobility.step_m` a random walk takes, metres.
pub const MIN_WALK_STEP_M: f64 = 1e-3;
/// Largest `duration_s` (time is kept in `u64` nanoseconds).
pub const MAX_DURATION_S: f64 = 1.0e9;
/// Largest `flows.packet_size_bytes`.
pub const MAX_PACKET_SIZE_BYTES: u32 = 65_000;
/// Slack for "fits in the area" comparisons of computed extents.
const FIT_SLACK: f64 = 1e-9;
/// The most `[mac] max_propagation_delay_s` takes: 300 km each way.
const MAX_PROPAGATION_DELAY_S: f64 = 1e-3;

/// Checks every value of `s`; `source` names the file in the error.
///
/// `load_file`/`load_str` call this after filling in defaults; call it
/// yourself on a scenario built or modified in code. A flow's `stop_s` of
/// `None` is read as `duration_s`.
pub fn validate(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let c = Checker { file: source };
    c.top(s)?;
    c.area(&s.area)?;
    c.nodes(&s.nodes, &s.area, s.mobility.model)?;
    c.mobility(s)?;
    c.radio(&s.radio)?;
    c.mac(&s.mac)?;
    c.error_model(&s.radio, &s.mac)?;
    c.routing(&s.routing)?;
    if let Some(g) = &s.gateway {
        c.gateway(g, s)?;
    }
    for (i, f) in s.flows.iter().enumerate() {
        c.flow(i, f, s)?;
    }
    if let Some(e) = &s.energy {
        c.energy(e)?;
    }
    for (i, l) in s.loss.iter().enumerate() {
        c.loss(i, l, s.nodes.count)?;
    }
    if s.output.pcap_radiotap && !s.output.pcap {
        return c.fail(
            "output.pcap_radiotap",
            "radiotap headers go in the packet captures, which output.pcap = true asks for",
        );
    }
    support::check(s, source)
}

/// The TOML spelling of an enum value, e.g. `"two_ray_ground"`.
pub(crate) fn name_of<T: Serialize + std::fmt::Debug>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{v:?}"),
    }
}

/// What places the nodes when `[nodes] placement` does not: `None` when the
/// placement is used (static, waypoints), else a phrase naming the source.
pub(crate) fn initial_positions_from(m: MobilityModel) -> Option<&'static str> {
    match m {
        MobilityModel::Static | MobilityModel::Waypoints => None,
        MobilityModel::RandomWaypoint => {
            Some("the random-waypoint model (uniform in the area, or its steady state)")
        }
        MobilityModel::RandomDirection => Some("the random-direction model (uniform in the area)"),
        MobilityModel::RandomWalk => Some("the random-walk model (uniform in the area)"),
        MobilityModel::GaussMarkov => Some("the Gauss-Markov model (uniform in the area)"),
        MobilityModel::Rpgm => Some("the group model (around each group's reference point)"),
        MobilityModel::Manhattan => Some("the Manhattan model (uniform over its streets)"),
        MobilityModel::Ns2 | MobilityModel::Bonnmotion => Some("the movement file"),
    }
}

struct Checker<'a> {
    file: &'a str,
}

type Res = Result<(), ScenarioError>;

impl Checker<'_> {
    fn routing(&self, r: &Routing) -> Res {
        self.only_with(r, r.dsr.is_some(), RoutingProtocol::Dsr)?;
        self.only_with(r, r.dsdv.is_some(), RoutingProtocol::Dsdv)?;
        self.only_with(r, r.olsr.is_some(), RoutingProtocol::Olsr)?;
        self.only_with(r, r.aodv.is_some(), RoutingProtocol::Aodv)?;
        self.only_with(r, r.aomdv.is_some(), RoutingProtocol::Aomdv)?;
        if let Some(aomdv) = &r.aomdv {
            self.period("routing.aomdv.hello_interval_s", aomdv.hello_interval_s)?;
        }
        if let Some(dsdv) = &r.dsdv {
            self.period(
                "routing.dsdv.periodic_update_interval_s",
                dsdv.periodic_update_interval_s,
            )?;
            self.at_least_one(
                "routing.dsdv.min_update_periods",
                dsdv.min_update_periods.into(),
            )?;
        }
        if let Some(olsr) = &r.olsr {
            self.period("routing.olsr.hello_interval_s", olsr.hello_interval_s)?;
            self.period("routing.olsr.tc_interval_s", olsr.tc_interval_s)?;
            if olsr.willingness > 7 {
                return self.fail(
                    "routing.olsr.willingness",
                    format!(
                        "expected 0 (WILL_NEVER) to 7 (WILL_ALWAYS), got {}",
                        olsr.willingness
                    ),
                );
            }
        }
        if let Some(aodv) = &r.aodv {
            if let Some(x) = aodv.hello_interval_s {
                self.period("routing.aodv.hello_interval_s", x)?;
            }
            if let Some(x) = aodv.active_route_timeout_s {
                self.period("routing.aodv.active_route_timeout_s", x)?;
            }
        }
        Ok(())
    }

    /// A protocol's options table (`[routing.<name>]`, `given`) is refused
    /// under another protocol, where it would be silently ignored.
    fn only_with(&self, r: &Routing, given: bool, protocol: RoutingProtocol) -> Res {
        if !given || r.protocol == protocol {
            return Ok(());
        }
        let name = name_of(&protocol);
        self.fail(
            format!("routing.{name}"),
            format!(
                "[routing.{name}] is only used with protocol = \"{name}\" (this scenario's protocol is \"{}\")",
                name_of(&r.protocol)
            ),
        )
    }

    fn fail(&self, key: impl Into<String>, msg: impl Into<String>) -> Res {
        Err(ScenarioError::at_key(self.file, key, msg))
    }

    fn positive(&self, key: &str, x: f64) -> Res {
        if x.is_finite() && x > 0.0 {
            Ok(())
        } else {
            self.fail(
                key,
                format!("expected a finite number > 0, got {}", fmt_float(x)),
            )
        }
    }

    /// `model = "manhattan"`'s changes every `update_m` metres: a positive
    /// distance, two probabilities that one draw shares (so at most 1
    /// together), a pause within the clock; none of them without
    /// `update_m`.
    fn manhattan_updates(&self, m: &crate::scenario::Mobility) -> Res {
        let draws = [
            ("mobility.speed_change_prob", m.speed_change_prob),
            ("mobility.pause_prob", m.pause_prob),
            ("mobility.max_pause_s", m.max_pause_s),
        ];
        let Some(update_m) = m.update_m else {
            if let Some((key, _)) = draws.iter().find(|(_, v)| v.is_some()) {
                return self.fail(
                    *key,
                    "needs mobility.update_m, the distance between the places where a node \
                     may change its speed or pause"
                        .to_string(),
                );
            }
            return Ok(());
        };
        self.positive("mobility.update_m", update_m)?;
        for (key, p) in &draws[..2] {
            let p = p.unwrap_or(0.0);
            if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                return self.fail(
                    *key,
                    format!("expected a probability in 0..=1, got {}", fmt_float(p)),
                );
            }
        }
        let change = m.speed_change_prob.unwrap_or(0.0);
        let pause = m.pause_prob.unwrap_or(0.0);
        if change + pause > 1.0 {
            return self.fail(
                "mobility.pause_prob",
                format!(
                    "speed_change_prob + pause_prob is at most 1 (one draw every update_m \
                     decides between them), got {} + {}",
                    fmt_float(change),
                    fmt_float(pause)
                ),
            );
        }
        let most = m.max_pause_s.unwrap_or(0.0);
        if !(most.is_finite() && (0.0..=MAX_DURATION_S).contains(&most)) {
            return self.fail(
                "mobility.max_pause_s",
                format!("expected a time from 0 to 1e9 s, got {}", fmt_float(most)),
            );
        }
        Ok(())
    }

    fn non_negative(&self, key: &str, x: f64) -> Res {
        if x.is_finite() && x >= 0.0 {
            Ok(())
        } else {
            self.fail(
                key,
                format!("expected a finite number ≥ 0, got {}", fmt_float(x)),
            )
        }
    }

    /// A period or timeout: at least the clock's 1 ns, at most
    /// [`MAX_DURATION_S`], so that adding it to any time of a run stays
    /// within the clock (a shorter one would hold the run at one instant).
    fn period(&self, key: &str, x: f64) -> Res {
        if x.is_finite() && (1e-9..=MAX_DURATION_S).contains(&x) {
            Ok(())
        } else {
            self.fail(
                key,
                format!(
                    "expected a time from 1e-09 s (the clock's 1 ns) to 1e9 s, got {}",
                    fmt_float(x)
                ),
            )
        }
    }

    /// A delay that may be zero: ≥ 0 and at most [`MAX_DURATION_S`].
    fn delay(&self, key: &str, x: f64) -> Res {
        self.non_negative(key, x)?;
        if x > MAX_DURATION_S {
            return self.fail(key, format!("expected at most 1e9 s, got {}", fmt_float(x)));
        }
        Ok(())
    }

    fn at_least_one(&self, key: &str, n: u64) -> Res {
        if n >= 1 {
            Ok(())
        } else {
            self.fail(key, format!("expected an integer ≥ 1, got {n}"))
        }
    }

    fn fits_toml(&self, key: &str, n: u64) -> Res {
        if i64::try_from(n).is_ok() {
            Ok(())
        } else {
            self.fail(
                key,
                format!(
                    "expected an integer ≤ {} (TOML integers are signed 64-bit), got {n}",
                    i64::MAX
                ),
            )
        }
    }

    fn node_id(&self, key: &str, id: u32, count: u32) -> Res {
        if id < count {
            Ok(())
        } else {
            self.fail(
                key,
                format!("node {id} does not exist (nodes.count = {count})"),
            )
        }
    }

    fn inside(&self, key: &str, what: &str, p: [f64; 2], area: &Area) -> Res {
        let [x, y] = p;
        let ok = x.is_finite()
            && y.is_finite()
            && (0.0..=area.width_m).contains(&x)
            && (0.0..=area.height_m).contains(&y);
        if ok {
            Ok(())
        } else {
            self.fail(
                key,
                format!(
                    "{what} [{}, {}] is outside the area (x in 0..={}, y in 0..={} m)",
                    fmt_float(x),
                    fmt_float(y),
                    fmt_float(area.width_m),
                    fmt_float(area.height_m)
                ),
            )
        }
    }

    fn top(&self, s: &Scenario) -> Res {
        self.positive("duration_s", s.duration_s)?;
        if s.duration_s > MAX_DURATION_S {
            return self.fail(
                "duration_s",
                format!(
                    "expected at most {} s (time is kept in integer nanoseconds), got {}",
                    fmt_float(MAX_DURATION_S),
                    fmt_float(s.duration_s)
                ),
            );
        }
        self.fits_toml("seed", s.seed)
    }

    fn area(&self, a: &Area) -> Res {
        self.positive("area.width_m", a.width_m)?;
        self.positive("area.height_m", a.height_m)
    }

    fn nodes(&self, n: &Nodes, area: &Area, mobility: MobilityModel) -> Res {
        if let Some(source) = initial_positions_from(mobility) {
            return self.unused_placement(n, mobility, source);
        }
        let placement = name_of(&n.placement);
        // Keys that belong to another placement mean nothing here.
        if n.placement != Placement::Grid {
            for (key, given) in [
                ("nodes.rows", n.rows.is_some()),
                ("nodes.cols", n.cols.is_some()),
            ] {
                if given {
                    return self.fail(
                        key,
                        format!(
                            "only used with placement = \"grid\" (placement is \"{placement}\")"
                        ),
                    );
                }
            }
        }
        if n.placement != Placement::Explicit && n.positions.is_some() {
            return self.fail(
                "nodes.positions",
                format!("only used with placement = \"explicit\" (placement is \"{placement}\")"),
            );
        }
        let grid = match (n.placement, n.rows, n.cols) {
            (Placement::Grid, Some(rows), Some(cols)) => {
                self.at_least_one("nodes.rows", rows.into())?;
                self.at_least_one("nodes.cols", cols.into())?;
                Some((rows, cols))
            }
            (Placement::Grid, rows, _) => {
                let key = if rows.is_none() {
                    "nodes.rows"
                } else {
                    "nodes.cols"
                };
                return self.fail(
                    key,
                    "placement = \"grid\" needs both nodes.rows and nodes.cols",
                );
            }
            _ => None,
        };
        if n.placement == Placement::Explicit && n.positions.is_none() {
            return self.fail(
                "nodes.positions",
                "placement = \"explicit\" needs nodes.positions, one [x, y] per node",
            );
        }

        if !(1..=MAX_NODES).contains(&n.count) {
            return self.fail(
                "nodes.count",
                format!("expected an integer in 1..={MAX_NODES}, got {}", n.count),
            );
        }
        self.positive("nodes.spacing_m", n.spacing_m)?;

        if let Some((rows, cols)) = grid {
            let cells = u64::from(rows) * u64::from(cols);
            if cells != u64::from(n.count) {
                return self.fail(
                    "nodes.count",
                    format!(
                        "a grid of rows × cols = {rows} × {cols} = {cells} nodes does not match nodes.count = {} (leave count out to take rows × cols)",
                        n.count
                    ),
                );
            }
            self.extent_fits(
                "area.width_m",
                "columns",
                "x",
                cols,
                n.spacing_m,
                area.width_m,
            )?;
            self.extent_fits(
                "area.height_m",
                "rows",
                "y",
                rows,
                n.spacing_m,
                area.height_m,
            )?;
        }
        if n.placement == Placement::Chain {
            self.extent_fits(
                "area.width_m",
                "nodes",
                "x",
                n.count,
                n.spacing_m,
                area.width_m,
            )?;
        }
        if let (Placement::Explicit, Some(ps)) = (n.placement, &n.positions) {
            if ps.len() != n.count as usize {
                return self.fail(
                    "nodes.positions",
                    format!(
                        "has {} entries but nodes.count = {} (one [x, y] per node; leave count out to take the number of positions)",
                        ps.len(),
                        n.count
                    ),
                );
            }
            for (i, p) in ps.iter().enumerate() {
                self.inside(
                    &format!("nodes.positions[{i}]"),
                    &format!("node {i} position"),
                    *p,
                    area,
                )?;
            }
        }
        Ok(())
    }

    /// With a model that places nodes itself only `nodes.count` means
    /// anything in `[nodes]`: any other key away from its default is refused.
    fn unused_placement(&self, n: &Nodes, mobility: MobilityModel, source: &str) -> Res {
        if !(1..=MAX_NODES).contains(&n.count) {
            return self.fail(
                "nodes.count",
                format!("expected an integer in 1..={MAX_NODES}, got {}", n.count),
            );
        }
        let defaults = Nodes::default();
        let set = [
            ("nodes.placement", n.placement != defaults.placement),
            ("nodes.spacing_m", n.spacing_m != defaults.spacing_m),
            ("nodes.rows", n.rows.is_some()),
            ("nodes.cols", n.cols.is_some()),
            ("nodes.positions", n.positions.is_some()),
        ];
        match set.iter().find(|(_, given)| *given) {
            Some((key, _)) => self.fail(
                *key,
                format!(
                    "not used with mobility.model = \"{}\": initial positions come from {source}, so [nodes] needs only `count` (remove {key})",
                    name_of(&mobility)
                ),
            ),
            None => Ok(()),
        }
    }

    /// `k` items `spacing` apart along one axis must fit in `size`.
    fn extent_fits(
        &self,
        key: &str,
        items: &str,
        axis: &str,
        k: u32,
        spacing: f64,
        size: f64,
    ) -> Res {
        let span = f64::from(k.saturating_sub(1)) * spacing;
        if span <= size * (1.0 + FIT_SLACK) {
            return Ok(());
        }
        let what = if items == "nodes" {
            "a chain of"
        } else {
            "a grid with"
        };
        self.fail(
            key,
            format!(
                "{what} {k} {items} {} m apart spans {} m along {axis}, but {key} = {}; needs {key} ≥ {} (or a smaller nodes.spacing_m)",
                fmt_float(spacing),
                fmt_float(span),
                fmt_float(size),
                fmt_float(span)
            ),
        )
    }

    fn mobility(&self, s: &Scenario) -> Res {
        let m = &s.mobility;
        self.non_negative("mobility.min_speed_mps", m.min_speed_mps)?;
        self.non_negative("mobility.max_speed_mps", m.max_speed_mps)?;
        if m.min_speed_mps > m.max_speed_mps {
            return self.fail(
                "mobility.min_speed_mps",
                format!(
                    "min_speed_mps = {} is above max_speed_mps = {}",
                    fmt_float(m.min_speed_mps),
                    fmt_float(m.max_speed_mps)
                ),
            );
        }
        self.delay("mobility.pause_s", m.pause_s)?;
        if let Some(file) = &m.file {
            if file.trim().is_empty() {
                return self.fail("mobility.file", "expected a file name, got an empty string");
            }
        }
        for (i, mv) in m.moves.iter().enumerate() {
            let key = |k: &str| format!("mobility.moves[{i}].{k}");
            self.node_id(&key("node"), mv.node, s.nodes.count)?;
            self.non_negative(&key("at_s"), mv.at_s)?;
            if mv.at_s >= s.duration_s {
                return self.fail(
                    key("at_s"),
                    format!(
                        "at_s = {} is not before the end of the run (duration_s = {})",
                        fmt_float(mv.at_s),
                        fmt_float(s.duration_s)
                    ),
                );
            }
            self.inside(&key("to"), "destination", mv.to, &s.area)?;
            self.positive(&key("speed_mps"), mv.speed_mps)?;
            if let Some(j) = m.moves[..i]
                .iter()
                .position(|o| o.node == mv.node && o.at_s == mv.at_s)
            {
                return self.fail(
                    key("at_s"),
                    format!(
                        "node {} already has a move at at_s = {} (mobility.moves[{j}]); a node can start one move at a time",
                        mv.node,
                        fmt_float(mv.at_s)
                    ),
                );
            }
        }

        for (i, f) in m.fixed.iter().enumerate() {
            let key = |k: &str| format!("mobility.fixed[{i}].{k}");
            self.node_id(&key("node"), f.node, s.nodes.count)?;
            self.inside(&key("position"), "position", f.position, &s.area)?;
            if let Some(j) = m.fixed[..i].iter().position(|o| o.node == f.node) {
                return self.fail(
                    key("node"),
                    format!("node {} is already fixed (mobility.fixed[{j}])", f.node),
                );
            }
        }

        // Keys of other mobility models mean nothing with this one.
        let model = name_of(&m.model);
        let only_for = |key: &str, wanted: &str| {
            self.fail(
                key,
                format!("only used with mobility.model = {wanted} (model is \"{model}\")"),
            )
        };
        let defaults = Mobility::default();
        let speeds = matches!(
            m.model,
            MobilityModel::RandomWaypoint
                | MobilityModel::RandomDirection
                | MobilityModel::RandomWalk
                | MobilityModel::GaussMarkov
                | MobilityModel::Rpgm
                | MobilityModel::Manhattan
        );
        let speeds_for = "\"random_waypoint\", \"random_direction\", \"random_walk\", \"gauss_markov\", \"rpgm\" or \"manhattan\"";
        let stepped = matches!(
            m.model,
            MobilityModel::RandomWalk | MobilityModel::GaussMarkov
        );
        let gauss = m.model == MobilityModel::GaussMarkov;
        let group = m.model == MobilityModel::Rpgm;
        let streets = m.model == MobilityModel::Manhattan;
        let set = [
            (
                "mobility.min_speed_mps",
                m.min_speed_mps != defaults.min_speed_mps,
                speeds,
                speeds_for,
            ),
            (
                "mobility.max_speed_mps",
                m.max_speed_mps != defaults.max_speed_mps,
                speeds,
                speeds_for,
            ),
            (
                "mobility.pause_s",
                m.pause_s != defaults.pause_s,
                matches!(
                    m.model,
                    MobilityModel::RandomWaypoint
                        | MobilityModel::RandomDirection
                        | MobilityModel::Rpgm
                ),
                "\"random_waypoint\", \"random_direction\" or \"rpgm\"",
            ),
            (
                "mobility.steady_state",
                m.steady_state != defaults.steady_state,
                m.model == MobilityModel::RandomWaypoint,
                "\"random_waypoint\"",
            ),
            (
                "mobility.step_s",
                m.step_s.is_some(),
                stepped,
                "\"random_walk\" or \"gauss_markov\"",
            ),
            (
                "mobility.step_m",
                m.step_m.is_some(),
                m.model == MobilityModel::RandomWalk,
                "\"random_walk\"",
            ),
            (
                "mobility.alpha",
                m.alpha.is_some(),
                gauss,
                "\"gauss_markov\"",
            ),
            (
                "mobility.speed_std_mps",
                m.speed_std_mps.is_some(),
                gauss,
                "\"gauss_markov\"",
            ),
            (
                "mobility.direction_std_rad",
                m.direction_std_rad.is_some(),
                gauss,
                "\"gauss_markov\"",
            ),
            (
                "mobility.edge_margin_m",
                m.edge_margin_m.is_some(),
                gauss,
                "\"gauss_markov\"",
            ),
            ("mobility.groups", m.groups.is_some(), group, "\"rpgm\""),
            (
                "mobility.group_radius_m",
                m.group_radius_m.is_some(),
                group,
                "\"rpgm\"",
            ),
            (
                "mobility.group_change_prob",
                m.group_change_prob.is_some(),
                group,
                "\"rpgm\"",
            ),
            (
                "mobility.blocks_x",
                m.blocks_x.is_some(),
                streets,
                "\"manhattan\"",
            ),
            (
                "mobility.blocks_y",
                m.blocks_y.is_some(),
                streets,
                "\"manhattan\"",
            ),
            (
                "mobility.update_m",
                m.update_m.is_some(),
                streets,
                "\"manhattan\"",
            ),
            (
                "mobility.speed_change_prob",
                m.speed_change_prob.is_some(),
                streets,
                "\"manhattan\"",
            ),
            (
                "mobility.pause_prob",
                m.pause_prob.is_some(),
                streets,
                "\"manhattan\"",
            ),
            (
                "mobility.max_pause_s",
                m.max_pause_s.is_some(),
                streets,
                "\"manhattan\"",
            ),
        ];
        if let Some((key, _, _, wanted)) = set.iter().find(|(_, given, ok, _)| *given && !ok) {
            return only_for(key, wanted);
        }
        if m.file.is_some() && !matches!(m.model, MobilityModel::Ns2 | MobilityModel::Bonnmotion) {
            return only_for("mobility.file", "\"ns2\" or \"bonnmotion\"");
        }
        if !m.moves.is_empty() && m.model != MobilityModel::Waypoints {
            return only_for("mobility.moves", "\"waypoints\"");
        }
        if !m.fixed.is_empty()
            && matches!(m.model, MobilityModel::Static | MobilityModel::Waypoints)
        {
            return only_for(
                "mobility.fixed",
                "\"random_waypoint\", \"random_direction\", \"random_walk\", \"gauss_markov\", \"rpgm\", \"manhattan\", \"ns2\" or \"bonnmotion\" (the placement already fixes nodes)",
            );
        }

        match m.model {
            MobilityModel::RandomWaypoint => {
                self.positive("mobility.max_speed_mps", m.max_speed_mps)?;
                if m.steady_state && m.min_speed_mps == 0.0 {
                    return self.fail(
                        "mobility.steady_state",
                        crate::mobility::STEADY_STATE_NEEDS_MIN_SPEED,
                    );
                }
            }
            MobilityModel::Ns2 | MobilityModel::Bonnmotion => {
                if m.file.is_none() {
                    return self.fail(
                        "mobility.file",
                        format!(
                            "mobility.model = \"{model}\" needs mobility.file, the movement file (relative to the scenario file)"
                        ),
                    );
                }
                // Reads the whole file, so that a malformed one is refused
                // before anything runs.
                if let Err(e) = crate::mobility::check_file(s) {
                    return self.fail("mobility.file", e.to_string());
                }
            }
            MobilityModel::RandomDirection => {
                self.positive("mobility.max_speed_mps", m.max_speed_mps)?;
            }
            MobilityModel::RandomWalk | MobilityModel::GaussMarkov => {
                self.positive("mobility.max_speed_mps", m.max_speed_mps)?;
                match (m.step_m, m.step_s) {
                    (Some(_), Some(_)) => {
                        return self.fail(
                            "mobility.step_m",
                            "give step_s (a new course every step_s seconds) or step_m (every \
                             step_m metres), not both",
                        );
                    }
                    (Some(d), None) => {
                        if !(d.is_finite() && (MIN_WALK_STEP_M..=1e9).contains(&d)) {
                            return self.fail(
                                "mobility.step_m",
                                format!(
                                    "expected a distance from {MIN_WALK_STEP_M} m to 1e9 m, got {}",
                                    fmt_float(d)
                                ),
                            );
                        }
                    }
                    (None, s) => self.period(
                        "mobility.step_s",
                        s.unwrap_or(crate::scenario::DEFAULT_WALK_STEP_S),
                    )?,
                }
                if let Some(alpha) = m.alpha {
                    if !(0.0..=1.0).contains(&alpha) {
                        return self.fail(
                            "mobility.alpha",
                            format!("expected a number from 0 to 1, got {}", fmt_float(alpha)),
                        );
                    }
                }
                if let Some(x) = m.speed_std_mps {
                    self.non_negative("mobility.speed_std_mps", x)?;
                }
                if let Some(x) = m.direction_std_rad {
                    self.non_negative("mobility.direction_std_rad", x)?;
                }
                if let Some(x) = m.edge_margin_m {
                    self.non_negative("mobility.edge_margin_m", x)?;
                }
            }
            MobilityModel::Rpgm => {
                self.positive("mobility.max_speed_mps", m.max_speed_mps)?;
                let groups = m.groups.unwrap_or(crate::scenario::DEFAULT_GROUPS);
                if groups == 0 || groups > s.nodes.count {
                    return self.fail(
                        "mobility.groups",
                        format!(
                            "expected 1 to the node count ({}) groups, got {groups}",
                            s.nodes.count
                        ),
                    );
                }
                if let Some(r) = m.group_radius_m {
                    self.non_negative("mobility.group_radius_m", r)?;
                }
                if let Some(c) = m.group_change_prob {
                    if !(c.is_finite() && (0.0..=1.0).contains(&c)) {
                        return self.fail(
                            "mobility.group_change_prob",
                            format!("expected a probability in 0..=1, got {}", fmt_float(c)),
                        );
                    }
                }
            }
            MobilityModel::Manhattan => {
                self.positive("mobility.max_speed_mps", m.max_speed_mps)?;
                for (key, blocks) in [
                    ("mobility.blocks_x", m.blocks_x),
                    ("mobility.blocks_y", m.blocks_y),
                ] {
                    let blocks = blocks.unwrap_or(crate::scenario::DEFAULT_MANHATTAN_BLOCKS);
                    if !(1..=MAX_MANHATTAN_BLOCKS).contains(&blocks) {
                        return self.fail(
                            key,
                            format!("expected 1 to {MAX_MANHATTAN_BLOCKS} blocks, got {blocks}"),
                        );
                    }
                }
                self.manhattan_updates(m)?;
            }
            MobilityModel::Static | MobilityModel::Waypoints => {}
        }
        if let Some(legs) = crate::mobility::legs_up_front(s) {
            let most = crate::mobility::MAX_LEGS_UP_FRONT;
            if legs.is_nan() || legs > most {
                return self.fail(
                    "mobility.model",
                    format!(
                        "\"{model}\" works out every leg as the run starts, and here that is about {legs:.3e} legs (nodes × duration_s); at most {most:.0e} are held (about 1.6 GB): use fewer nodes, a shorter run or a slower top speed"
                    ),
                );
            }
        }
        Ok(())
    }

    fn radio(&self, r: &Radio) -> Res {
        self.positive("radio.tx_power_w", r.tx_power_w)?;
        self.positive("radio.frequency_hz", r.frequency_hz)?;
        self.positive("radio.antenna_height_m", r.antenna_height_m)?;
        self.positive("radio.rx_threshold_w", r.rx_threshold_w)?;
        self.positive("radio.cs_threshold_w", r.cs_threshold_w)?;
        if r.cs_threshold_w > r.rx_threshold_w {
            return self.fail(
                "radio.cs_threshold_w",
                format!(
                    "cs_threshold_w = {} W is above rx_threshold_w = {} W; carrier sense must reach at least as far as reception (cs_threshold_w ≤ rx_threshold_w)",
                    fmt_float(r.cs_threshold_w),
                    fmt_float(r.rx_threshold_w)
                ),
            );
        }
        if let Some(w) = r.interference_threshold_w {
            self.positive("radio.interference_threshold_w", w)?;
            if w > r.cs_threshold_w {
                return self.fail(
                    "radio.interference_threshold_w",
                    format!(
                        "{} W is above cs_threshold_w = {} W; frames above carrier sense already interfere, the key says how much weaker ones still do (interference_threshold_w ≤ cs_threshold_w)",
                        fmt_float(w),
                        fmt_float(r.cs_threshold_w)
                    ),
                );
            }
            if r.error_model != ErrorModelKind::Awgn {
                return self.fail(
                    "radio.interference_threshold_w",
                    "counts only under radio.error_model = \"awgn\": with \"none\" a frame below carrier sense changes nothing; set error_model = \"awgn\" or remove the key".to_string(),
                );
            }
        }
        self.non_negative("radio.capture_threshold_db", r.capture_threshold_db)?;
        if r.capture_rule == CaptureRule::Sinr && r.error_model != ErrorModelKind::Awgn {
            return self.fail(
                "radio.capture_rule",
                "\"sinr\" leaves overlapping frames to their SINR, which only radio.error_model = \"awgn\" computes; set error_model = \"awgn\" or capture_rule = \"ns2\"".to_string(),
            );
        }
        if !(r.system_loss.is_finite() && r.system_loss >= 1.0) {
            return self.fail(
                "radio.system_loss",
                format!(
                    "expected a finite number ≥ 1 (1 = no loss), got {}",
                    fmt_float(r.system_loss)
                ),
            );
        }
        self.positive("radio.path_loss_exponent", r.path_loss_exponent)?;
        self.non_negative("radio.shadowing_std_db", r.shadowing_std_db)?;
        self.positive("radio.reference_distance_m", r.reference_distance_m)?;
        self.non_negative("radio.noise_figure_db", r.noise_figure_db)?;
        for (key, m) in [
            ("radio.nakagami_m0", r.nakagami_m0),
            ("radio.nakagami_m1", r.nakagami_m1),
            ("radio.nakagami_m2", r.nakagami_m2),
        ] {
            if !(m.is_finite() && m >= 0.5) {
                return self.fail(
                    key,
                    format!(
                        "expected a finite number ≥ 0.5 (Nakagami's m: 1 is Rayleigh fading, 0.5 the deepest), got {}",
                        fmt_float(m)
                    ),
                );
            }
        }
        self.non_negative("radio.fading_doppler_hz", r.fading_doppler_hz)?;
        if r.fading_doppler_hz > 0.0 && r.fading != Fading::Rayleigh {
            return self.fail(
                "radio.fading_doppler_hz",
                format!(
                    "correlates Rayleigh fading in time: it needs radio.fading = \"rayleigh\", not \"{}\" (0 = each frame fades independently)",
                    match r.fading {
                        Fading::None => "none",
                        Fading::Rayleigh => "rayleigh",
                        Fading::Nakagami => "nakagami",
                    }
                ),
            );
        }
        self.non_negative("radio.nakagami_distance1_m", r.nakagami_distance1_m)?;
        self.non_negative("radio.nakagami_distance2_m", r.nakagami_distance2_m)?;
        if r.nakagami_distance2_m < r.nakagami_distance1_m {
            return self.fail(
                "radio.nakagami_distance2_m",
                format!(
                    "{} m is below nakagami_distance1_m = {} m; m1 holds between the two, so distance2 must not be the nearer",
                    fmt_float(r.nakagami_distance2_m),
                    fmt_float(r.nakagami_distance1_m)
                ),
            );
        }
        Ok(())
    }

    /// With `error_model = "awgn"`, each rate must have a modulation: under
    /// `"802.11"`, whose DSSS PHY otherwise runs at any rate, one of the
    /// DSSS and HR/DSSS rates.
    fn error_model(&self, r: &Radio, m: &Mac) -> Res {
        if r.error_model != ErrorModelKind::Awgn || MacStandard::parse(&m.standard).is_none() {
            return Ok(());
        }
        let phy = crate::mac::MacParams::from_scenario(m).phy;
        for (key, rate) in [
            ("mac.data_rate_bps", m.data_rate_bps),
            ("mac.basic_rate_bps", m.basic_rate_bps),
        ] {
            if crate::phy::Modulation::of(phy, rate).is_none() {
                return self.fail(
                    key,
                    format!(
                        "{rate} b/s has no modulation for radio.error_model = \"awgn\" \
                         under standard = \"{}\" (1, 2, 5.5 or 11 Mb/s: DBPSK, DQPSK or CCK)",
                        m.standard
                    ),
                );
            }
        }
        Ok(())
    }

    fn mac(&self, m: &Mac) -> Res {
        self.at_least_one("mac.data_rate_bps", m.data_rate_bps)?;
        self.fits_toml("mac.data_rate_bps", m.data_rate_bps)?;
        self.at_least_one("mac.basic_rate_bps", m.basic_rate_bps)?;
        self.fits_toml("mac.basic_rate_bps", m.basic_rate_bps)?;
        // An unknown standard is named by the check of what is supported.
        if let Some(standard) = MacStandard::parse(&m.standard) {
            if let Some(rates) = standard.rates_bps() {
                for (key, rate) in [
                    ("mac.data_rate_bps", m.data_rate_bps),
                    ("mac.basic_rate_bps", m.basic_rate_bps),
                ] {
                    if !rates.contains(&rate) {
                        let list = rates
                            .iter()
                            .map(|&r| format!("{}", r as f64 / 1e6))
                            .collect::<Vec<_>>()
                            .join(", ");
                        return self.fail(
                            key,
                            format!(
                                "{rate} b/s is not a rate of {} ({list} Mb/s)",
                                standard.name()
                            ),
                        );
                    }
                }
            }
            if m.preamble == Preamble::Short && !standard.has_short_preamble() {
                return self.fail(
                    "mac.preamble",
                    format!(
                        "\"short\" is a preamble of 802.11b's and 802.11g's HR/DSSS frames; \
                         {}'s PHY has one preamble (standard = \"{}\")",
                        standard.name(),
                        standard.name()
                    ),
                );
            }
        }
        if m.slot == crate::mac::SlotTime::Short
            && MacStandard::parse(&m.standard).is_some_and(|s| s != MacStandard::G)
        {
            return self.fail(
                "mac.slot",
                format!(
                    "\"short\" is 802.11g's 9 µs slot, for networks of ERP stations alone; \
                     standard = \"{}\" has one slot (802.11a's is 9 µs already)",
                    m.standard
                ),
            );
        }
        if m.rate_control != RateControlKind::Constant
            && MacStandard::parse(&m.standard).is_some_and(|s| s.rates_bps().is_none())
        {
            let name = match m.rate_control {
                RateControlKind::Arf => "arf",
                RateControlKind::Aarf => "aarf",
                _ => "minstrel",
            };
            return self.fail(
                "mac.rate_control",
                format!(
                    "\"{name}\" adapts over a standard's rates: standard = \"{}\" runs at any \
                     rate and has no list of them (use \"802.11b\", \"802.11a\" or \"802.11g\")",
                    m.standard
                ),
            );
        }
        if m.response_rate == crate::mac::ResponseRate::Standard
            && MacStandard::parse(&m.standard).is_some_and(|s| s.rates_bps().is_none())
        {
            return self.fail(
                "mac.response_rate",
                format!(
                    "\"standard\" picks among a standard's mandatory rates: standard = \"{}\" \
                     runs at any rate and has none (use \"802.11b\", \"802.11a\" or \"802.11g\")",
                    m.standard
                ),
            );
        }
        self.at_least_one("mac.short_retry_limit", m.short_retry_limit.into())?;
        self.at_least_one("mac.long_retry_limit", m.long_retry_limit.into())?;
        self.at_least_one("mac.queue_packets", m.queue_packets.into())?;
        self.delay("mac.max_propagation_delay_s", m.max_propagation_delay_s)?;
        if m.max_propagation_delay_s > MAX_PROPAGATION_DELAY_S {
            return self.fail(
                "mac.max_propagation_delay_s",
                format!(
                    "expected at most 1e-3 s (300 km each way; ns-2.35 allows 2e-6 s, 600 m), \
                     got {}",
                    fmt_float(m.max_propagation_delay_s)
                ),
            );
        }
        self.delay("mac.ll_delay_s", m.ll_delay_s)?;
        if m.ll_delay_s > 1.0 {
            return self.fail(
                "mac.ll_delay_s",
                format!(
                    "expected at most 1 s (ns-2.35's link layer takes 25 µs), got {}",
                    fmt_float(m.ll_delay_s)
                ),
            );
        }
        Ok(())
    }

    fn gateway(&self, g: &Gateway, s: &Scenario) -> Res {
        let ids = g.node.ids();
        if ids.is_empty() {
            return self.fail(
                "gateway.node",
                "expected a node id or a non-empty list of them",
            );
        }
        for (i, &id) in ids.iter().enumerate() {
            self.node_id("gateway.node", id, s.nodes.count)?;
            if ids[..i].contains(&id) {
                return self.fail("gateway.node", format!("node {id} is listed twice"));
            }
        }
        self.at_least_one("gateway.hosts", g.hosts.into())?;
        if u64::from(s.nodes.count) + u64::from(g.hosts) > u64::from(MAX_NODES) {
            return self.fail(
                "gateway.hosts",
                format!(
                    "nodes.count + hosts must be at most {MAX_NODES}, got {} + {}",
                    s.nodes.count, g.hosts
                ),
            );
        }
        self.positive("gateway.rate_bps", g.rate_bps)?;
        self.delay("gateway.delay_s", g.delay_s)?;
        self.at_least_one("gateway.queue_packets", g.queue_packets.into())?;
        let aodv_uu = s.routing.protocol == RoutingProtocol::Aodv
            && s.routing
                .aodv
                .as_ref()
                .is_some_and(|a| a.preset == AodvPreset::AodvUu);
        if g.forwarding == GatewayForwarding::BaseStation && aodv_uu {
            return self.fail(
                "gateway.forwarding",
                "AODV-UU's gateway discovery tunnels every packet for a host \
                 (forwarding = \"base_station\" is ns-2's wired-cum-wireless forwarding): \
                 use forwarding = \"tunnel\" with routing.aodv.preset = \"aodv_uu\"",
            );
        }
        let olsr = s.routing.protocol == RoutingProtocol::Olsr;
        self.gateway_discovery(g, aodv_uu, olsr)
    }

    /// `discovery` and the advertisement keys, which only proactive and
    /// hybrid discovery read (and OLSR, whose gateways announce themselves
    /// by HNA messages every `advertisement_interval_s`): a value away from
    /// its default with another discovery is refused rather than ignored.
    fn gateway_discovery(&self, g: &Gateway, aodv_uu: bool, olsr: bool) -> Res {
        let advertises = g.discovery != GatewayDiscovery::Reactive;
        if advertises && !aodv_uu {
            let others = if olsr {
                "OLSR's gateways always announce themselves, by HNA messages every \
                 gateway.advertisement_interval_s"
            } else {
                "AODV's other presets, DSR, DSDV, AOMDV and static routes know the \
                 gateways without discovery"
            };
            return self.fail(
                "gateway.discovery",
                format!(
                    "\"{}\" is AODV-UU's gateway discovery: set routing.protocol = \"aodv\" \
                     with routing.aodv.preset = \"aodv_uu\" ({others})",
                    name_of(&g.discovery)
                ),
            );
        }
        let interval = g.advertisement_interval_s;
        if !advertises && !olsr && interval != default_advertisement_interval_s() {
            return self.fail(
                "gateway.advertisement_interval_s",
                "only gateway.discovery = \"proactive\" or \"hybrid\" (with AODV-UU) or \
                 routing.protocol = \"olsr\" (HNA messages) advertises gateways",
            );
        }
        self.period("gateway.advertisement_interval_s", interval)?;
        let zone = g.advertisement_zone_hops;
        if g.discovery != GatewayDiscovery::Hybrid && zone != default_advertisement_zone_hops() {
            return self.fail(
                "gateway.advertisement_zone_hops",
                "only gateway.discovery = \"hybrid\" limits how far advertisements go",
            );
        }
        if !(1..=255).contains(&zone) {
            return self.fail(
                "gateway.advertisement_zone_hops",
                format!("expected 1 to 255 hops (an IP TTL), got {zone}"),
            );
        }
        Ok(())
    }

    /// A flow's `src` or `dst`: a MANET node, or an Internet host behind
    /// the gateway.
    fn endpoint(&self, key: &str, id: u32, s: &Scenario) -> Res {
        let count = s.nodes.count;
        match &s.gateway {
            Some(g) if id >= count && id - count >= g.hosts => self.fail(
                key,
                format!(
                    "node {id} does not exist (nodes.count = {count}, and gateway.hosts = {} \
                     numbers the hosts from {count})",
                    g.hosts
                ),
            ),
            Some(_) => Ok(()),
            None => self.node_id(key, id, count),
        }
    }

    /// A `[flows.X]` table of transport X on a flow of another transport.
    fn transport_table(&self, key: &str, transport: Transport, wanted: Transport) -> Res {
        if transport == wanted {
            return Ok(());
        }
        let table = name_of(&wanted);
        self.fail(
            key,
            format!(
                "[flows.{table}] is only used with transport = \"{table}\" (this flow's transport is \"{}\")",
                name_of(&transport)
            ),
        )
    }

    fn flow(&self, i: usize, f: &Flow, s: &Scenario) -> Res {
        let key = |k: &str| format!("flows[{i}].{k}");
        let duration = s.duration_s;
        self.endpoint(&key("src"), f.src, s)?;
        self.endpoint(&key("dst"), f.dst, s)?;
        if f.src == f.dst {
            return self.fail(
                key("dst"),
                format!(
                    "a flow from node {} to itself: src and dst must differ",
                    f.src
                ),
            );
        }
        self.non_negative(&key("start_s"), f.start_s)?;
        if f.start_s >= duration {
            return self.fail(
                key("start_s"),
                format!(
                    "start_s = {} is not before the end of the run (duration_s = {})",
                    fmt_float(f.start_s),
                    fmt_float(duration)
                ),
            );
        }
        let stop = f.stop_s.unwrap_or(duration);
        if !stop.is_finite() {
            return self.fail(
                key("stop_s"),
                format!("expected a finite number, got {}", fmt_float(stop)),
            );
        }
        if stop <= f.start_s {
            return self.fail(
                key("stop_s"),
                format!(
                    "stop_s = {} is not after start_s = {}",
                    fmt_float(stop),
                    fmt_float(f.start_s)
                ),
            );
        }
        if stop > duration {
            return self.fail(
                key("stop_s"),
                format!(
                    "stop_s = {} is after the end of the run (duration_s = {})",
                    fmt_float(stop),
                    fmt_float(duration)
                ),
            );
        }
        if !(1..=MAX_PACKET_SIZE_BYTES).contains(&f.packet_size_bytes) {
            return self.fail(
                key("packet_size_bytes"),
                format!(
                    "expected an integer in 1..={MAX_PACKET_SIZE_BYTES}, got {}",
                    f.packet_size_bytes
                ),
            );
        }
        if let Some(rate) = f.rate_bps {
            self.positive(&key("rate_bps"), rate)?;
        }
        if let Some(interval) = f.interval_s {
            self.period(&key("interval_s"), interval)?;
        }
        if f.rate_bps.is_some() && f.interval_s.is_some() {
            return self.fail(
                key("interval_s"),
                "give rate_bps or interval_s, not both (each sets the sending rate)",
            );
        }
        // Packets leave on whole nanoseconds (as `period` asks of
        // `interval_s`): a rate whose interval is shorter cannot be kept.
        if let Some(rate) = f.rate_bps {
            let spacing_s = f64::from(f.packet_size_bytes) * 8.0 / rate;
            if spacing_s < 1e-9 {
                return self.fail(
                    key("rate_bps"),
                    format!(
                        "gives one packet every {} s, below the simulator's 1 ns resolution",
                        fmt_float(spacing_s)
                    ),
                );
            }
        }
        self.delay(&key("start_jitter_s"), f.start_jitter_s)?;

        let app = name_of(&f.app);
        if f.interval_s.is_some() && f.app != AppKind::Cbr {
            return self.fail(
                key("interval_s"),
                format!("only used with app = \"cbr\" (this flow's app is \"{app}\")"),
            );
        }
        if f.rate_bps.is_some() && !matches!(f.app, AppKind::Cbr | AppKind::Onoff) {
            return self.fail(
                key("rate_bps"),
                format!("only used with app = \"cbr\" or \"onoff\" (this flow's app is \"{app}\")"),
            );
        }
        if let Some(onoff) = &f.onoff {
            if f.app != AppKind::Onoff {
                return self.fail(
                    key("onoff"),
                    format!("[flows.onoff] is only used with app = \"onoff\" (this flow's app is \"{app}\")"),
                );
            }
            self.period(&key("onoff.on_s"), onoff.on_s)?;
            self.delay(&key("onoff.off_s"), onoff.off_s)?;
            if !(onoff.shape > 1.0 && onoff.shape.is_finite()) {
                return self.fail(
                    key("onoff.shape"),
                    format!(
                        "expected a number above 1 (a Pareto shape of 1 or less has no finite mean), got {}",
                        fmt_float(onoff.shape)
                    ),
                );
            }
        }
        if let Some(tfrc) = &f.tfrc {
            self.transport_table(&key("tfrc"), f.transport, Transport::Tfrc)?;
            if !(tfrc.rtt_filter > 0.0 && tfrc.rtt_filter < 1.0) {
                return self.fail(
                    key("tfrc.rtt_filter"),
                    format!(
                        "expected a number between 0 and 1 (exclusive), got {}",
                        fmt_float(tfrc.rtt_filter)
                    ),
                );
            }
        }
        if let Some(sctp) = &f.sctp {
            self.transport_table(&key("sctp"), f.transport, Transport::Sctp)?;
            self.at_least_one(&key("sctp.max_burst"), sctp.max_burst.into())?;
            if !(1..=u32::from(u16::MAX)).contains(&sctp.streams) {
                return self.fail(
                    key("sctp.streams"),
                    format!(
                        "expected an integer from 1 to 65535 (an SCTP stream count is 16 bits), got {}",
                        sctp.streams
                    ),
                );
            }
            self.delay(&key("sctp.heartbeat_interval_s"), sctp.heartbeat_interval_s)?;
        }
        if let Some(tcp) = &f.tcp {
            self.transport_table(&key("tcp"), f.transport, Transport::Tcp)?;
            self.at_least_one(&key("tcp.window_packets"), tcp.window_packets.into())?;
            self.at_least_one(
                &key("tcp.initial_window_packets"),
                tcp.initial_window_packets.into(),
            )?;
            self.period(&key("tcp.min_rto_s"), tcp.min_rto_s)?;
            self.positive(&key("tcp.vegas_alpha"), tcp.vegas_alpha)?;
            self.positive(&key("tcp.vegas_beta"), tcp.vegas_beta)?;
            self.positive(&key("tcp.vegas_gamma"), tcp.vegas_gamma)?;
            if tcp.vegas_alpha > tcp.vegas_beta {
                return self.fail(
                    key("tcp.vegas_alpha"),
                    format!(
                        "Vegas needs vegas_alpha ≤ vegas_beta, got {} > {}",
                        fmt_float(tcp.vegas_alpha),
                        fmt_float(tcp.vegas_beta)
                    ),
                );
            }
            if tcp.variant == TcpVariant::Vegas
                && tcp.slow_start != crate::transport::tcp::SlowStart::Standard
            {
                return self.fail(
                    key("tcp.slow_start"),
                    format!(
                        "slow_start = \"{}\" changes how an RFC 5681 slow start ends; Vegas \
                         ends its own slow start by its delay test (vegas_gamma): use \
                         slow_start = \"standard\" with variant = \"vegas\"",
                        tcp.slow_start.name()
                    ),
                );
            }
            if tcp.frto && tcp.variant == TcpVariant::Vegas {
                return self.fail(
                    key("tcp.frto"),
                    "F-RTO is modelled for the variants that recover as Tahoe, Reno, \
                     NewReno or RFC 6675's SACK do; Vegas's own recovery is not: use \
                     frto = false with variant = \"vegas\""
                        .to_string(),
                );
            }
            if tcp.frto
                && tcp.variant == TcpVariant::Sack
                && tcp.sack_rule == crate::transport::tcp::SackRule::Ns2
            {
                return self.fail(
                    key("tcp.frto"),
                    "F-RTO's SACK-enhanced form works on RFC 6675's scoreboard; ns-2.35's \
                     Sack1 (sack_rule = \"ns2\", which --like-ns2 sets) has no F-RTO: use \
                     sack_rule = \"rfc\" with frto = true"
                        .to_string(),
                );
            }
            if tcp.handshake && tcp.start_rule != crate::transport::tcp::StartRule::Window {
                return self.fail(
                    key("tcp.start_rule"),
                    "start_rule = \"ns2\" is how ns-2.35's one-way agents start, without \
                     the handshake: set handshake = false, or start_rule = \"window\""
                        .to_string(),
                );
            }
        }
        if let Some(bytes) = f.transfer_bytes {
            if matches!(f.transport, Transport::Tfrc) {
                return self.fail(
                    key("transfer_bytes"),
                    "transfer_bytes ends a TCP or SCTP transfer; TFRC flows send until stop_s \
                     (remove transfer_bytes, or use transport = \"tcp\" or \"sctp\")",
                );
            }
            if f.app != AppKind::Ftp {
                return self.fail(
                    key("transfer_bytes"),
                    format!(
                        "transfer_bytes is only used with app = \"ftp\" (this flow's app is \"{}\")",
                        name_of(&f.app)
                    ),
                );
            }
            self.at_least_one(&key("transfer_bytes"), bytes)?;
            self.fits_toml(&key("transfer_bytes"), bytes)?;
        }
        if f.app == AppKind::Ftp
            && !matches!(
                f.transport,
                Transport::Tcp | Transport::Tfrc | Transport::Sctp
            )
        {
            return self.fail(
                key("app"),
                format!(
                    "app = \"ftp\" is a bulk transfer: it needs transport = \"tcp\", \"tfrc\" or \"sctp\" (this flow's transport is \"{}\")",
                    name_of(&f.transport)
                ),
            );
        }
        Ok(())
    }

    fn energy(&self, e: &Energy) -> Res {
        self.positive("energy.initial_j", e.initial_j)?;
        self.non_negative("energy.tx_w", e.tx_w)?;
        self.non_negative("energy.rx_w", e.rx_w)?;
        self.non_negative("energy.idle_w", e.idle_w)?;
        self.non_negative("energy.sleep_w", e.sleep_w)
    }

    fn loss(&self, i: usize, l: &Loss, count: u32) -> Res {
        self.node_id(&format!("loss[{i}].node"), l.node, count)?;
        if !(l.rate.is_finite() && (0.0..=1.0).contains(&l.rate)) {
            return self.fail(
                format!("loss[{i}].rate"),
                format!("expected a probability in 0..=1, got {}", fmt_float(l.rate)),
            );
        }
        // Checked whatever the model, so that a sweep over the models cannot
        // carry a burst length no model would take.
        let burst = l.mean_burst_packets;
        if !(burst.is_finite() && burst >= 1.0) {
            return self.fail(
                format!("loss[{i}].mean_burst_packets"),
                format!("expected a number ≥ 1, got {}", fmt_float(burst)),
            );
        }
        if l.model == LossModelKind::GilbertElliott {
            let max_rate = burst / (burst + 1.0);
            if l.rate > max_rate {
                return self.fail(
                    format!("loss[{i}].rate"),
                    format!(
                        "a Gilbert–Elliott loss rate of {} needs bursts longer than {} packets \
                         (with mean_burst_packets = {} the rate can be at most {})",
                        fmt_float(l.rate),
                        fmt_float(burst),
                        fmt_float(burst),
                        fmt_float(max_rate)
                    ),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::BASE;

    /// BASE, loaded: 4 nodes in a 200 m chain, 1000 × 500 m, 100 s, one CBR flow 0 → 3.
    fn base() -> Scenario {
        crate::scenario::load_str(BASE, "v.toml", &[]).expect("BASE is valid")
    }

    type Edit = fn(&mut Scenario);

    fn refused(edit: Edit, key: &str, fragment: &str) {
        let mut s = base();
        edit(&mut s);
        match validate(&s, "v.toml") {
            Ok(()) => panic!("accepted; expected `{key}`: {fragment}"),
            Err(e) => {
                assert_eq!(e.key.as_deref(), Some(key), "{e}");
                assert!(
                    e.message.contains(fragment),
                    "expected {fragment:?} in: {e}"
                );
                assert_eq!(e.file, "v.toml");
                assert!(!e.to_string().contains('\n'));
            }
        }
    }

    fn accepted(edit: Edit) {
        let mut s = base();
        edit(&mut s);
        if let Err(e) = validate(&s, "v.toml") {
            panic!("refused: {e}");
        }
    }

    fn flow(s: &mut Scenario) -> &mut Flow {
        &mut s.flows[0]
    }

    /// Makes the first flow a TCP flow with the default TCP settings as
    /// `edit` leaves them.
    fn tcp(s: &mut Scenario, edit: impl FnOnce(&mut TcpConfig)) {
        let mut config = TcpConfig::default();
        edit(&mut config);
        flow(s).transport = Transport::Tcp;
        flow(s).tcp = Some(config);
    }

    #[test]
    fn top_level_and_area() {
        refused(
            |s| s.duration_s = 0.0,
            "duration_s",
            "expected a finite number > 0, got 0.0",
        );
        refused(|s| s.duration_s = -5.0, "duration_s", "> 0");
        refused(|s| s.duration_s = f64::NAN, "duration_s", "got nan");
        refused(|s| s.duration_s = f64::INFINITY, "duration_s", "got inf");
        refused(
            |s| s.duration_s = 2e9,
            "duration_s",
            "expected at most 1000000000.0 s",
        );
        refused(|s| s.seed = u64::MAX, "seed", "signed 64-bit");
        refused(|s| s.area.width_m = 0.0, "area.width_m", "> 0");
        refused(|s| s.area.height_m = f64::NAN, "area.height_m", "got nan");
    }

    #[test]
    fn node_count_spacing_and_chain() {
        refused(
            |s| s.nodes.count = 0,
            "nodes.count",
            "expected an integer in 1..=1000000, got 0",
        );
        refused(
            |s| s.nodes.count = MAX_NODES + 1,
            "nodes.count",
            "1..=1000000",
        );
        refused(|s| s.nodes.spacing_m = 0.0, "nodes.spacing_m", "> 0");
        refused(
            |s| s.nodes.count = 7,
            "area.width_m",
            "a chain of 7 nodes 200.0 m apart spans 1200.0 m along x, but area.width_m = 1000.0; needs area.width_m ≥ 1200.0",
        );
        // Exactly filling the width is fine.
        accepted(|s| {
            s.nodes.count = 6;
        });
        refused(
            |s| s.nodes.rows = Some(2),
            "nodes.rows",
            "only used with placement = \"grid\"",
        );
        refused(
            |s| s.nodes.cols = Some(2),
            "nodes.cols",
            "only used with placement = \"grid\"",
        );
        refused(
            |s| s.nodes.positions = Some(vec![[0.0, 0.0]; 4]),
            "nodes.positions",
            "only used with placement = \"explicit\" (placement is \"chain\")",
        );
    }

    fn grid(s: &mut Scenario, rows: u32, cols: u32) {
        s.nodes.placement = Placement::Grid;
        s.nodes.rows = Some(rows);
        s.nodes.cols = Some(cols);
        s.nodes.count = rows * cols;
    }

    #[test]
    fn grid_rules() {
        accepted(|s| grid(s, 2, 2));
        accepted(|s| grid(s, 3, 6)); // 1000 × 400 m: fits exactly in x
        refused(
            |s| {
                grid(s, 2, 2);
                s.nodes.cols = None;
            },
            "nodes.cols",
            "needs both nodes.rows and nodes.cols",
        );
        refused(
            |s| {
                grid(s, 2, 2);
                s.nodes.rows = None;
            },
            "nodes.rows",
            "needs both",
        );
        refused(
            |s| {
                grid(s, 2, 2);
                s.nodes.rows = Some(0);
            },
            "nodes.rows",
            "expected an integer ≥ 1, got 0",
        );
        refused(
            |s| {
                grid(s, 2, 2);
                s.nodes.count = 5;
            },
            "nodes.count",
            "rows × cols = 2 × 2 = 4 nodes does not match nodes.count = 5",
        );
        refused(
            |s| grid(s, 1, 7),
            "area.width_m",
            "a grid with 7 columns 200.0 m apart spans 1200.0 m along x",
        );
        refused(
            |s| grid(s, 4, 1),
            "area.height_m",
            "needs area.height_m ≥ 600.0",
        );
    }

    fn explicit(s: &mut Scenario, ps: Vec<[f64; 2]>) {
        s.nodes.placement = Placement::Explicit;
        s.nodes.count = ps.len() as u32;
        s.nodes.positions = Some(ps);
    }

    #[test]
    fn explicit_rules() {
        accepted(|s| explicit(s, vec![[0.0, 0.0], [1000.0, 500.0], [5.0, 5.0], [9.0, 9.0]]));
        refused(
            |s| {
                explicit(s, vec![[0.0, 0.0]; 4]);
                s.nodes.positions = None;
            },
            "nodes.positions",
            "needs nodes.positions, one [x, y] per node",
        );
        refused(
            |s| {
                explicit(s, vec![[0.0, 0.0]; 4]);
                s.nodes.count = 5;
            },
            "nodes.positions",
            "has 4 entries but nodes.count = 5",
        );
        refused(
            |s| explicit(s, vec![[0.0, 0.0], [0.0, 0.0], [1000.5, 0.0], [0.0, 0.0]]),
            "nodes.positions[2]",
            "node 2 position [1000.5, 0.0] is outside the area (x in 0..=1000.0, y in 0..=500.0 m)",
        );
        refused(
            |s| explicit(s, vec![[0.0, -1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
            "nodes.positions[0]",
            "outside the area",
        );
        refused(
            |s| explicit(s, vec![[0.0, 0.0], [f64::NAN, 0.0], [0.0, 0.0], [0.0, 0.0]]),
            "nodes.positions[1]",
            "[nan, 0.0]",
        );
    }

    #[test]
    fn mobility_rules() {
        refused(
            |s| s.mobility.min_speed_mps = -1.0,
            "mobility.min_speed_mps",
            "≥ 0",
        );
        refused(
            |s| s.mobility.max_speed_mps = f64::NAN,
            "mobility.max_speed_mps",
            "got nan",
        );
        refused(
            |s| s.mobility.min_speed_mps = 25.0,
            "mobility.min_speed_mps",
            "min_speed_mps = 25.0 is above max_speed_mps = 20.0",
        );
        refused(|s| s.mobility.pause_s = -1.0, "mobility.pause_s", "≥ 0");
        // Keys of other models mean nothing with "static".
        refused(
            |s| s.mobility.max_speed_mps = 5.0,
            "mobility.max_speed_mps",
            "only used with mobility.model = \"random_waypoint\", \"random_direction\", \"random_walk\", \"gauss_markov\", \"rpgm\" or \"manhattan\" (model is \"static\")",
        );
        refused(
            |s| s.mobility.steady_state = true,
            "mobility.steady_state",
            "random_waypoint",
        );
        // Each drawn model takes its own keys, and no other's.
        fn drawn(s: &mut Scenario, model: MobilityModel) {
            s.mobility.model = model;
        }
        accepted(|s| {
            drawn(s, MobilityModel::RandomDirection);
            s.mobility.min_speed_mps = 1.0;
            s.mobility.pause_s = 2.0;
        });
        accepted(|s| {
            drawn(s, MobilityModel::RandomWalk);
            s.mobility.step_s = Some(0.5);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.pause_s = 2.0;
            },
            "mobility.pause_s",
            "only used with mobility.model = \"random_waypoint\", \"random_direction\" or \"rpgm\" (model is \"random_walk\")",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomDirection);
                s.mobility.step_s = Some(2.0);
            },
            "mobility.step_s",
            "only used with mobility.model = \"random_walk\"",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomDirection);
                s.mobility.steady_state = true;
            },
            "mobility.steady_state",
            "only used with mobility.model = \"random_waypoint\"",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.step_s = Some(f64::INFINITY);
            },
            "mobility.step_s",
            "from 1e-09 s",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomDirection);
                s.mobility.max_speed_mps = 0.0;
            },
            "mobility.max_speed_mps",
            "> 0",
        );
        accepted(|s| {
            drawn(s, MobilityModel::RandomWalk);
            s.mobility.step_m = Some(25.0);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.step_m = Some(25.0);
                s.mobility.step_s = Some(2.0);
            },
            "mobility.step_m",
            "give step_s (a new course every step_s seconds) or step_m",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.step_m = Some(1e-4);
            },
            "mobility.step_m",
            "expected a distance from 0.001 m to 1e9 m, got 0.0001",
        );
        accepted(|s| {
            drawn(s, MobilityModel::GaussMarkov);
            s.mobility.edge_margin_m = Some(100.0);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::GaussMarkov);
                s.mobility.edge_margin_m = Some(-1.0);
            },
            "mobility.edge_margin_m",
            "expected a finite number ≥ 0, got -1",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.edge_margin_m = Some(100.0);
            },
            "mobility.edge_margin_m",
            "only used with mobility.model = \"gauss_markov\" (model is \"random_walk\")",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::GaussMarkov);
                s.mobility.step_m = Some(25.0);
            },
            "mobility.step_m",
            "only used with mobility.model = \"random_walk\" (model is \"gauss_markov\")",
        );
        accepted(|s| {
            drawn(s, MobilityModel::GaussMarkov);
            s.mobility.alpha = Some(0.0);
            s.mobility.speed_std_mps = Some(0.0);
            s.mobility.direction_std_rad = Some(2.0);
            s.mobility.step_s = Some(3.0);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::GaussMarkov);
                s.mobility.alpha = Some(1.5);
            },
            "mobility.alpha",
            "expected a number from 0 to 1, got 1.5",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::GaussMarkov);
                s.mobility.speed_std_mps = Some(-1.0);
            },
            "mobility.speed_std_mps",
            "≥ 0",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWalk);
                s.mobility.alpha = Some(0.5);
            },
            "mobility.alpha",
            "only used with mobility.model = \"gauss_markov\" (model is \"random_walk\")",
        );
        accepted(|s| {
            drawn(s, MobilityModel::Rpgm);
            s.mobility.pause_s = 5.0;
            s.mobility.groups = Some(s.nodes.count);
            s.mobility.group_radius_m = Some(0.0);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.mobility.groups = Some(s.nodes.count + 1);
            },
            "mobility.groups",
            "expected 1 to the node count",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.mobility.groups = Some(0);
            },
            "mobility.groups",
            "got 0",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.mobility.group_radius_m = Some(f64::NAN);
            },
            "mobility.group_radius_m",
            "≥ 0",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.mobility.step_s = Some(1.0);
            },
            "mobility.step_s",
            "(model is \"rpgm\")",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::RandomWaypoint);
                s.mobility.groups = Some(2);
            },
            "mobility.groups",
            "only used with mobility.model = \"rpgm\" (model is \"random_waypoint\")",
        );
        accepted(|s| {
            drawn(s, MobilityModel::Manhattan);
            s.mobility.blocks_x = Some(1);
            s.mobility.blocks_y = Some(MAX_MANHATTAN_BLOCKS);
        });
        refused(
            |s| {
                drawn(s, MobilityModel::Manhattan);
                s.mobility.blocks_y = Some(0);
            },
            "mobility.blocks_y",
            "expected 1 to 1000 blocks, got 0",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Manhattan);
                s.mobility.pause_s = 1.0;
            },
            "mobility.pause_s",
            "(model is \"manhattan\")",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Manhattan);
                s.nodes.count = 10_000;
                s.duration_s = 100_000.0;
            },
            "mobility.model",
            "\"manhattan\" works out every leg as the run starts, and here that is about",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.nodes.count = 100_000;
                s.duration_s = 1.0e6;
            },
            "mobility.model",
            "at most 2e7 are held",
        );
        refused(
            |s| {
                drawn(s, MobilityModel::Rpgm);
                s.mobility.blocks_x = Some(3);
            },
            "mobility.blocks_x",
            "only used with mobility.model = \"manhattan\" (model is \"rpgm\")",
        );
        refused(
            |s| s.mobility.file = Some("m.tcl".into()),
            "mobility.file",
            "\"ns2\" or \"bonnmotion\"",
        );
        refused(
            |s| s.mobility.file = Some(" ".into()),
            "mobility.file",
            "empty",
        );
        refused(
            |s| s.mobility.moves = vec![a_move()],
            "mobility.moves",
            "only used with mobility.model = \"waypoints\"",
        );
        // Moves are checked whatever the model.
        refused(
            |s| {
                s.mobility.moves = vec![Move {
                    node: 4,
                    ..a_move()
                }]
            },
            "mobility.moves[0].node",
            "node 4 does not exist",
        );
        refused(
            |s| {
                s.mobility.moves = vec![Move {
                    at_s: 100.0,
                    ..a_move()
                }]
            },
            "mobility.moves[0].at_s",
            "not before the end",
        );
        refused(
            |s| {
                s.mobility.moves = vec![Move {
                    at_s: -1.0,
                    ..a_move()
                }]
            },
            "mobility.moves[0].at_s",
            "≥ 0",
        );
        refused(
            |s| {
                s.mobility.moves = vec![Move {
                    to: [0.0, 501.0],
                    ..a_move()
                }]
            },
            "mobility.moves[0].to",
            "outside the area",
        );
        refused(
            |s| {
                s.mobility.moves = vec![Move {
                    speed_mps: 0.0,
                    ..a_move()
                }]
            },
            "mobility.moves[0].speed_mps",
            "> 0",
        );
    }

    #[test]
    fn mobility_model_rules() {
        fn rwp(s: &mut Scenario) {
            s.mobility.model = MobilityModel::RandomWaypoint;
            s.mobility.min_speed_mps = 1.0;
        }
        accepted(rwp);
        accepted(|s| {
            rwp(s);
            s.mobility.steady_state = true;
            s.mobility.pause_s = 5.0;
        });
        refused(
            |s| {
                rwp(s);
                s.mobility.min_speed_mps = 0.0;
                s.mobility.max_speed_mps = 0.0;
            },
            "mobility.max_speed_mps",
            "expected a finite number > 0, got 0.0",
        );
        refused(
            |s| {
                rwp(s);
                s.mobility.min_speed_mps = 0.0;
                s.mobility.steady_state = true;
            },
            "mobility.steady_state",
            "steady_state = true needs min_speed_mps > 0",
        );
        // Random waypoint places the nodes itself: placement keys are refused
        // (the default chain is not checked against the area).
        accepted(|s| {
            rwp(s);
            s.nodes.count = 50;
        });
        refused(
            |s| {
                rwp(s);
                s.nodes.placement = Placement::Uniform;
            },
            "nodes.placement",
            "not used with mobility.model = \"random_waypoint\": initial positions come from the random-waypoint model",
        );
        refused(
            |s| {
                rwp(s);
                s.nodes.spacing_m = 100.0;
            },
            "nodes.spacing_m",
            "[nodes] needs only `count`",
        );
        refused(
            |s| {
                rwp(s);
                s.nodes.count = 0;
            },
            "nodes.count",
            "expected an integer in 1..=",
        );
        refused(
            |s| s.mobility.model = MobilityModel::Ns2,
            "mobility.file",
            "mobility.model = \"ns2\" needs mobility.file",
        );
        refused(
            |s| {
                s.mobility.model = MobilityModel::Bonnmotion;
                s.mobility.file = Some("/nonexistent/scen1".into());
            },
            "mobility.file",
            "no BonnMotion movements file: expected /nonexistent/scen1.movements.gz",
        );
        refused(
            |s| {
                s.mobility.model = MobilityModel::Ns2;
                s.mobility.file = Some("/nonexistent/m.tcl".into());
            },
            "mobility.file",
            "/nonexistent/m.tcl: cannot read the ns-2 movement file",
        );
        refused(
            |s| {
                s.mobility.model = MobilityModel::Ns2;
                s.mobility.file = Some("/nonexistent/m.tcl".into());
                s.nodes.placement = Placement::Grid;
            },
            "nodes.placement",
            "initial positions come from the movement file",
        );
        accepted(|s| {
            s.mobility.model = MobilityModel::Waypoints;
            s.mobility.moves = vec![
                a_move(),
                Move {
                    at_s: 20.0,
                    ..a_move()
                },
            ];
        });
        refused(
            |s| {
                s.mobility.model = MobilityModel::Waypoints;
                s.mobility.moves = vec![
                    a_move(),
                    Move {
                        to: [5.0, 5.0],
                        ..a_move()
                    },
                ];
            },
            "mobility.moves[1].at_s",
            "node 1 already has a move at at_s = 10.0 (mobility.moves[0])",
        );
    }

    fn a_move() -> Move {
        Move {
            node: 1,
            at_s: 10.0,
            to: [100.0, 100.0],
            speed_mps: 5.0,
        }
    }

    #[test]
    fn radio_rules() {
        refused(|s| s.radio.tx_power_w = 0.0, "radio.tx_power_w", "> 0");
        refused(|s| s.radio.frequency_hz = -1.0, "radio.frequency_hz", "> 0");
        refused(
            |s| s.radio.antenna_height_m = f64::INFINITY,
            "radio.antenna_height_m",
            "got inf",
        );
        refused(
            |s| s.radio.rx_threshold_w = 0.0,
            "radio.rx_threshold_w",
            "> 0",
        );
        refused(
            |s| s.radio.cs_threshold_w = f64::NAN,
            "radio.cs_threshold_w",
            "got nan",
        );
        refused(
            |s| s.radio.cs_threshold_w = 1e-9,
            "radio.cs_threshold_w",
            "cs_threshold_w = 1e-9 W is above rx_threshold_w = 3.652e-10 W",
        );
        accepted(|s| s.radio.cs_threshold_w = s.radio.rx_threshold_w);
        refused(
            |s| s.radio.capture_threshold_db = -1.0,
            "radio.capture_threshold_db",
            "≥ 0",
        );
        accepted(|s| s.radio.capture_threshold_db = 0.0);
        refused(
            |s| s.radio.capture_rule = CaptureRule::Sinr,
            "radio.capture_rule",
            "only radio.error_model = \"awgn\" computes",
        );
        accepted(|s| {
            s.radio.capture_rule = CaptureRule::Sinr;
            s.radio.error_model = ErrorModelKind::Awgn;
        });
        refused(
            |s| s.radio.system_loss = 0.5,
            "radio.system_loss",
            "expected a finite number ≥ 1",
        );
        refused(
            |s| s.radio.path_loss_exponent = 0.0,
            "radio.path_loss_exponent",
            "> 0",
        );
        refused(
            |s| s.radio.shadowing_std_db = -0.1,
            "radio.shadowing_std_db",
            "≥ 0",
        );
        refused(
            |s| s.radio.reference_distance_m = 0.0,
            "radio.reference_distance_m",
            "> 0",
        );
        refused(
            |s| s.radio.nakagami_m0 = 0.4,
            "radio.nakagami_m0",
            "≥ 0.5 (Nakagami's m: 1 is Rayleigh fading, 0.5 the deepest), got 0.4",
        );
        refused(
            |s| s.radio.nakagami_m2 = f64::INFINITY,
            "radio.nakagami_m2",
            "got inf",
        );
        accepted(|s| s.radio.nakagami_m1 = 0.5);
        refused(
            |s| s.radio.nakagami_distance1_m = -1.0,
            "radio.nakagami_distance1_m",
            "≥ 0",
        );
        refused(
            |s| s.radio.nakagami_distance2_m = 50.0,
            "radio.nakagami_distance2_m",
            "50.0 m is below nakagami_distance1_m = 80.0 m",
        );
        accepted(|s| {
            s.radio.fading = Fading::Nakagami;
            s.radio.nakagami_distance2_m = 80.0;
        });
        for p in [
            Propagation::TwoRayGround,
            Propagation::FreeSpace,
            Propagation::Shadowing,
        ] {
            let mut s = base();
            s.radio.propagation = p;
            assert_eq!(validate(&s, "v.toml"), Ok(()), "{p:?}");
        }
    }

    #[test]
    fn mac_rules() {
        refused(
            |s| s.mac.data_rate_bps = 0,
            "mac.data_rate_bps",
            "expected an integer ≥ 1, got 0",
        );
        refused(
            |s| s.mac.data_rate_bps = u64::MAX,
            "mac.data_rate_bps",
            "signed 64-bit",
        );
        refused(|s| s.mac.basic_rate_bps = 0, "mac.basic_rate_bps", "≥ 1");
        refused(
            |s| s.mac.short_retry_limit = 0,
            "mac.short_retry_limit",
            "≥ 1",
        );
        refused(
            |s| s.mac.long_retry_limit = 0,
            "mac.long_retry_limit",
            "≥ 1",
        );
        refused(
            |s| s.mac.queue_packets = 0,
            "mac.queue_packets",
            "expected an integer ≥ 1, got 0",
        );
        refused(
            |s| s.mac.ll_delay_s = -25e-6,
            "mac.ll_delay_s",
            "expected a finite number ≥ 0",
        );
        refused(|s| s.mac.ll_delay_s = 5.0, "mac.ll_delay_s", "at most 1 s");
        refused(
            |s| s.mac.max_propagation_delay_s = -2e-6,
            "mac.max_propagation_delay_s",
            "≥ 0",
        );
        refused(
            |s| s.mac.slot = crate::mac::SlotTime::Short,
            "mac.slot",
            "standard = \"802.11\" has one slot",
        );
        refused(
            |s| s.mac.response_rate = crate::mac::ResponseRate::Standard,
            "mac.response_rate",
            "has none (use \"802.11b\"",
        );
        refused(
            |s| s.mac.max_propagation_delay_s = 0.01,
            "mac.max_propagation_delay_s",
            "at most 1e-3 s",
        );
    }

    #[test]
    fn flow_rules() {
        refused(
            |s| flow(s).src = 4,
            "flows[0].src",
            "node 4 does not exist (nodes.count = 4)",
        );
        refused(
            |s| flow(s).dst = 9,
            "flows[0].dst",
            "node 9 does not exist (nodes.count = 4)",
        );
        refused(
            |s| flow(s).dst = 0,
            "flows[0].dst",
            "a flow from node 0 to itself",
        );
        refused(|s| flow(s).start_s = -1.0, "flows[0].start_s", "≥ 0");
        refused(
            |s| flow(s).start_s = 100.0,
            "flows[0].start_s",
            "start_s = 100.0 is not before the end of the run (duration_s = 100.0)",
        );
        refused(
            |s| flow(s).stop_s = Some(f64::NAN),
            "flows[0].stop_s",
            "expected a finite number, got nan",
        );
        refused(
            |s| flow(s).stop_s = Some(1.0),
            "flows[0].stop_s",
            "stop_s = 1.0 is not after start_s = 1.0",
        );
        refused(
            |s| flow(s).stop_s = Some(100.5),
            "flows[0].stop_s",
            "after the end of the run (duration_s = 100.0)",
        );
        // None means duration_s, for scenarios built in code.
        accepted(|s| flow(s).stop_s = None);
        refused(
            |s| flow(s).packet_size_bytes = 0,
            "flows[0].packet_size_bytes",
            "expected an integer in 1..=65000, got 0",
        );
        refused(
            |s| flow(s).packet_size_bytes = 65_001,
            "flows[0].packet_size_bytes",
            "1..=65000",
        );
        accepted(|s| flow(s).packet_size_bytes = 65_000);
        refused(|s| flow(s).rate_bps = Some(0.0), "flows[0].rate_bps", "> 0");
        refused(
            |s| flow(s).rate_bps = Some(1e300),
            "flows[0].rate_bps",
            "below the simulator's 1 ns resolution",
        );
        refused(
            |s| {
                flow(s).rate_bps = None;
                flow(s).interval_s = Some(1e-12);
            },
            "flows[0].interval_s",
            "from 1e-09 s (the clock's 1 ns) to 1e9 s, got 1e-12",
        );
        accepted(|s| flow(s).rate_bps = Some(1e9));
        refused(
            |s| {
                flow(s).rate_bps = None;
                flow(s).interval_s = Some(-0.5);
            },
            "flows[0].interval_s",
            "got -0.5",
        );
        refused(
            |s| flow(s).interval_s = Some(0.5),
            "flows[0].interval_s",
            "give rate_bps or interval_s, not both",
        );
        refused(
            |s| flow(s).start_jitter_s = -1.0,
            "flows[0].start_jitter_s",
            "≥ 0",
        );
        refused(
            |s| {
                flow(s).rate_bps = None;
                flow(s).interval_s = Some(0.5);
                flow(s).app = AppKind::Onoff;
            },
            "flows[0].interval_s",
            "only used with app = \"cbr\" (this flow's app is \"onoff\")",
        );
        refused(
            |s| flow(s).app = AppKind::Ftp,
            "flows[0].rate_bps",
            "only used with app = \"cbr\" or \"onoff\"",
        );
        refused(
            |s| flow(s).tcp = Some(TcpConfig::default()),
            "flows[0].tcp",
            "[flows.tcp] is only used with transport = \"tcp\" (this flow's transport is \"udp\")",
        );
        refused(
            |s| tcp(s, |t| t.window_packets = 0),
            "flows[0].tcp.window_packets",
            "≥ 1",
        );
        refused(
            |s| tcp(s, |t| t.min_rto_s = 0.0),
            "flows[0].tcp.min_rto_s",
            "got 0.0",
        );
        refused(
            |s| tcp(s, |t| t.vegas_alpha = 4.0),
            "flows[0].tcp.vegas_alpha",
            "vegas_alpha ≤ vegas_beta",
        );
    }

    #[test]
    fn energy_and_loss_values() {
        let e = an_energy();
        refused(
            |s| s.energy = Some(an_energy_with(|e| e.initial_j = 0.0)),
            "energy.initial_j",
            "> 0",
        );
        refused(
            |s| s.energy = Some(an_energy_with(|e| e.tx_w = -0.6)),
            "energy.tx_w",
            "≥ 0",
        );
        refused(
            |s| s.energy = Some(an_energy_with(|e| e.rx_w = f64::NAN)),
            "energy.rx_w",
            "got nan",
        );
        refused(
            |s| s.energy = Some(an_energy_with(|e| e.idle_w = -1.0)),
            "energy.idle_w",
            "≥ 0",
        );
        refused(
            |s| s.energy = Some(an_energy_with(|e| e.sleep_w = -1.0)),
            "energy.sleep_w",
            "≥ 0",
        );
        // Valid values are accepted.
        let mut s = base();
        s.energy = Some(e);
        assert_eq!(validate(&s, "v.toml"), Ok(()));

        refused(
            |s| s.loss = vec![a_loss(4, 0.1)],
            "loss[0].node",
            "node 4 does not exist",
        );
        refused(
            |s| s.loss = vec![a_loss(1, 1.5)],
            "loss[0].rate",
            "expected a probability in 0..=1, got 1.5",
        );
        refused(
            |s| s.loss = vec![a_loss(1, f64::NAN)],
            "loss[0].rate",
            "got nan",
        );
        refused(
            |s| s.loss = vec![a_loss(1, 0.0), a_loss(1, -0.1)],
            "loss[1].rate",
            "0..=1",
        );
    }

    fn an_energy_with(edit: impl FnOnce(&mut Energy)) -> Energy {
        let mut e = an_energy();
        edit(&mut e);
        e
    }

    fn an_energy() -> Energy {
        Energy {
            initial_j: 1.0,
            tx_w: 0.6,
            rx_w: 0.3,
            idle_w: 0.0,
            sleep_w: 0.0,
        }
    }

    fn a_gilbert(rate: f64, mean_burst_packets: f64) -> Loss {
        Loss {
            model: LossModelKind::GilbertElliott,
            mean_burst_packets,
            ..a_loss(1, rate)
        }
    }

    fn a_loss(node: u32, rate: f64) -> Loss {
        Loss {
            node,
            model: LossModelKind::Uniform,
            rate,
            packets: LossPackets::Data,
            where_: LossWhere::AfterMac,
            mean_burst_packets: 1.0,
        }
    }

    #[test]
    fn not_yet_supported_features_are_refused() {
        refused(
            |s| s.mac.standard = "802.11n".into(),
            "mac.standard",
            "MAC standard \"802.11n\" is not yet supported; supported: \"802.11\" (DSSS, \
             any rate, as ns-2.35's Mac/802_11), \"802.11b\" (HR/DSSS: 1, 2, 5.5, 11 Mb/s)",
        );
        // A scenario built in code keeps 802.11's rates: under 802.11b they
        // are rates of its own, under 802.11a they are not.
        accepted(|s| s.mac.standard = "802.11b".into());
        refused(
            |s| s.mac.standard = "802.11a".into(),
            "mac.data_rate_bps",
            "2000000 b/s is not a rate of 802.11a",
        );
        accepted(|s| flow(s).transport = Transport::Tfrc);
        accepted(|s| flow(s).transport = Transport::Sctp);
        // Larger messages are fragmented (RFC 4960 section 6.9).
        accepted(|s| {
            flow(s).transport = Transport::Sctp;
            flow(s).packet_size_bytes = 1453;
        });
        // A finite transfer ends an SCTP association as a TCP one.
        accepted(|s| {
            flow(s).transport = Transport::Sctp;
            flow(s).app = AppKind::Ftp;
            flow(s).rate_bps = None;
            flow(s).transfer_bytes = Some(1000);
        });
        refused(
            |s| {
                flow(s).transport = Transport::Tfrc;
                flow(s).app = AppKind::Ftp;
                flow(s).rate_bps = None;
                flow(s).transfer_bytes = Some(1000);
            },
            "flows[0].transfer_bytes",
            "TFRC flows send until stop_s",
        );
        accepted(|s| flow(s).app = AppKind::Onoff);
        refused(
            |s| {
                flow(s).app = AppKind::Ftp;
                flow(s).rate_bps = None;
            },
            "flows[0].app",
            "needs transport = \"tcp\"",
        );
        refused(
            |s| s.loss = vec![a_gilbert(0.8, 2.0)],
            "loss[0].rate",
            "needs bursts longer than 2.0 packets",
        );
        refused(
            |s| s.loss = vec![a_gilbert(0.1, 0.5)],
            "loss[0].mean_burst_packets",
            "expected a number ≥ 1",
        );
        // A burst length is checked with the uniform model too (sweeps carry it
        // from one model to the other).
        refused(
            |s| {
                s.loss = vec![Loss {
                    mean_burst_packets: 0.5,
                    ..a_loss(1, 0.1)
                }]
            },
            "loss[0].mean_burst_packets",
            "expected a number ≥ 1",
        );
        accepted(|s| {
            s.loss = vec![Loss {
                mean_burst_packets: 3.0,
                ..a_loss(1, 0.1)
            }]
        });
        accepted(|s| s.output.pcap = true);
        accepted(|s| s.output.ns2_trace = true);
        refused(
            |s| s.output.pcap_radiotap = true,
            "output.pcap_radiotap",
            "output.pcap = true asks",
        );
        accepted(|s| {
            s.output.pcap = true;
            s.output.pcap_radiotap = true;
        });
        // Value errors come before not-yet-supported ones.
        refused(
            |s| {
                s.mac.standard = "802.11b".into();
                flow(s).dst = 7;
            },
            "flows[0].dst",
            "does not exist",
        );
    }

    #[test]
    fn the_unsupported_list_is_complete_and_readable() {
        let list = not_yet_supported_list();
        // Every application of the format runs.
        assert!(!list.iter().any(|e| e.contains("app")), "{list:?}");
        assert!(!list.iter().any(|e| e.contains("transport")), "{list:?}");
        // Every routing protocol of the format runs.
        assert!(!list.iter().any(|e| e.contains("routing")), "{list:?}");
        assert!(!list.contains(&"[energy]".to_string()));
        assert!(list.contains(
            &"mac.standard other than \"802.11\", \"802.11b\", \"802.11a\", \"802.11g\""
                .to_string()
        ));
        assert!(!list.iter().any(|e| e.contains("static")), "{list:?}");
    }

    fn not_yet_supported_list() -> Vec<String> {
        crate::scenario::not_yet_supported()
    }

    #[test]
    fn enum_names_are_their_toml_spelling() {
        assert_eq!(name_of(&Propagation::TwoRayGround), "two_ray_ground");
        assert_eq!(name_of(&TcpVariant::TcpAp), "tcp_ap");
    }
}
