//! Random waypoint with ns-2 `setdest` semantics, generated lazily per node.
//!
//! Each node draws from its own stream `Rng::new(seed, Stream::Mobility,
//! node)` and from nothing else, so its trajectory depends only on (seed,
//! node id, `[area]`, `[mobility]`).
//!
//! ## The walk (setdest version 1, pause first)
//!
//! 1. The initial position is uniform in the area (draws: x, then y).
//! 2. The node pauses `pause_s`, then picks a destination uniform in the area
//!    (x, then y) and a speed uniform in `[min_speed_mps, max_speed_mps)`
//!    (redrawn in the measure-zero case of exactly 0), and moves there in a
//!    straight line.
//! 3. On arrival it pauses `pause_s` again, and so on.
//!
//! ## Steady state (`steady_state = true`)
//!
//! Navidi & Camp, "Stationary distributions for the random waypoint mobility
//! model" (IEEE TMC 2004): the initial state is drawn from the model's
//! stationary distribution, so no warm-up needs discarding. With pause `P`,
//! mean leg length `E[L]` (for two points uniform in the area) and
//! `E[1/V] = ln(vmax/vmin) / (vmax − vmin)`:
//!
//! - the node is initially paused with probability `P / (P + E[L]·E[1/V])`;
//!   then its position is uniform in the area and its remaining pause is
//!   uniform in `[0, P)`;
//! - otherwise it is on a leg whose endpoints are drawn with density
//!   proportional to their distance (rejection sampling), at a point uniform
//!   along it, heading for the second endpoint at a speed with density
//!   proportional to `1/v` on `[vmin, vmax]` (`v = vmin·(vmax/vmin)^U`).
//!
//! This needs `vmin > 0`: with `vmin = 0` the model has no stationary
//! distribution (the mean speed decays towards zero; Yoon, Liu & Noble 2003),
//! and validation refuses the combination.

use crate::engine::{from_secs, Rng, SimTime, Stream};
use crate::phy::Pos;
use std::rc::Rc;

use super::trajectory::Leg;

/// The parameters every node shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RwpParams {
    pub width_m: f64,
    pub height_m: f64,
    pub min_speed_mps: f64,
    pub max_speed_mps: f64,
    pub pause: SimTime,
    pub steady_state: bool,
}

impl RwpParams {
    fn pause_s(&self) -> f64 {
        crate::engine::to_secs(self.pause)
    }
}

/// One node's random-waypoint walk. Memory is constant: the current leg and
/// the generator. A query for an earlier time replays the walk from its
/// first leg, drawn again from the seed (a few draws), so it is not kept.
#[derive(Debug, Clone)]
pub struct RandomWaypoint {
    /// Shared by every node's walk.
    params: Rc<RwpParams>,
    /// The master seed and node the walk is drawn for.
    seed: u64,
    node: u32,
    /// When the first leg starts.
    first_start: SimTime,
    leg: Leg,
    rng: Rng,
}

/// Node `node`'s first leg for master seed `seed`, and its generator after
/// drawing it.
fn first_leg(params: &RwpParams, seed: u64, node: u32) -> (Leg, Rng) {
    let mut rng = Rng::new(seed, Stream::Mobility, u64::from(node));
    let first = first_leg_from(params, &mut rng);
    (first, rng)
}

/// The first leg of a walk drawn from `rng`.
fn first_leg_from(params: &RwpParams, rng: &mut Rng) -> Leg {
    if params.steady_state {
        stationary_first_leg(params, rng)
    } else {
        let initial = uniform_point(params, rng);
        next_leg(params, rng, params.pause, initial)
    }
}

/// Every leg that starts before `until` of the walk drawn from `rng`, which
/// is left after the last draw: the walk of a node's own stream
/// ([`RandomWaypoint::legs_until`]) or of any other (a group's reference
/// point, [`super::group`]).
pub(super) fn legs_drawn(params: &RwpParams, rng: &mut Rng, until: SimTime) -> Vec<Leg> {
    let first = first_leg_from(params, rng);
    legs_after(params, rng, first, until)
}

/// `first` and the legs that follow it, drawn from `rng`, up to those that
/// start before `until`.
fn legs_after(params: &RwpParams, rng: &mut Rng, first: Leg, until: SimTime) -> Vec<Leg> {
    let mut out = Vec::new();
    let mut leg = first;
    while leg.start < until {
        out.push(leg);
        let next_start = leg.end.saturating_add(params.pause);
        if next_start == SimTime::MAX {
            break;
        }
        leg = next_leg(params, rng, next_start, leg.to);
    }
    out
}

impl RandomWaypoint {
    /// Node `node`'s walk for master seed `seed`; `params` may be an `Rc`
    /// the walks of a network share.
    pub fn new(params: impl Into<Rc<RwpParams>>, seed: u64, node: u32) -> Self {
        let params = params.into();
        let (first, rng) = first_leg(&params, seed, node);
        Self {
            params,
            seed,
            node,
            first_start: first.start,
            leg: first,
            rng,
        }
    }

    /// The walk's first leg (drawn again).
    fn first(&self) -> Leg {
        first_leg(&self.params, self.seed, self.node).0
    }

    /// Where the node is at time 0.
    pub fn initial(&self) -> Pos {
        if self.leg.start == self.first_start {
            self.leg.from
        } else {
            self.first().from
        }
    }

    /// An upper bound on the node's speed.
    pub fn max_speed_mps(&self) -> f64 {
        self.params.max_speed_mps
    }

    /// Makes `self.leg` the leg in force at `t` (the last one starting at or
    /// before `t`, or the first one).
    #[inline]
    fn advance_to(&mut self, t: SimTime) {
        if t < self.leg.start && self.leg.start != self.first_start {
            (self.leg, self.rng) = first_leg(&self.params, self.seed, self.node);
        }
        loop {
            let next_start = self.leg.end.saturating_add(self.params.pause);
            if t < next_start || next_start == SimTime::MAX {
                return;
            }
            self.leg = next_leg(&self.params, &mut self.rng, next_start, self.leg.to);
        }
    }

    /// The position at `t`; O(1) amortised for non-decreasing `t`, a replay
    /// from the start for an earlier `t`.
    #[inline]
    pub fn position(&mut self, t: SimTime) -> Pos {
        self.advance_to(t);
        self.leg.position(t)
    }

    /// The leg the last query used and the times `[from, until)` over which
    /// it gives the position: from its start (from 0 for the first leg,
    /// which gives its start point before it) until the next leg starts.
    pub(crate) fn leg_in_force(&self) -> (SimTime, SimTime, Leg) {
        let from = if self.leg.start == self.first_start {
            0
        } else {
            self.leg.start
        };
        let until = self.leg.end.saturating_add(self.params.pause);
        (from, until, self.leg)
    }

    /// The instantaneous speed at `t`.
    pub fn speed_at(&mut self, t: SimTime) -> f64 {
        self.advance_to(t);
        self.leg.speed_at(t)
    }

    /// Every leg that starts before `until` (replayed; the query cursor is
    /// left alone).
    pub fn legs_until(&self, until: SimTime) -> Vec<Leg> {
        let (first, mut rng) = first_leg(&self.params, self.seed, self.node);
        legs_after(&self.params, &mut rng, first, until)
    }
}

fn uniform_point(p: &RwpParams, rng: &mut Rng) -> Pos {
    let x = rng.range(0.0, p.width_m);
    let y = rng.range(0.0, p.height_m);
    Pos::new(x, y)
}

/// A speed uniform in `[min, max)`, never 0 (`max` when `min ≥ max`).
pub(super) fn speed_between(min_mps: f64, max_mps: f64, rng: &mut Rng) -> f64 {
    if min_mps >= max_mps {
        return max_mps;
    }
    loop {
        let v = rng.range(min_mps, max_mps);
        if v > 0.0 {
            return v;
        }
    }
}

fn uniform_speed(p: &RwpParams, rng: &mut Rng) -> f64 {
    speed_between(p.min_speed_mps, p.max_speed_mps, rng)
}

/// The leg that leaves `from` at `start`: destination (x, y), then speed.
fn next_leg(p: &RwpParams, rng: &mut Rng, start: SimTime, from: Pos) -> Leg {
    let target = uniform_point(p, rng);
    let speed = uniform_speed(p, rng);
    Leg::toward(start, from, target, speed)
}

/// Navidi & Camp's stationary initial state, as the first leg. Draw order:
/// paused-or-moving; then (paused) x, y, remaining pause, or (moving) leg
/// endpoints by rejection, the fraction along the leg, the speed.
fn stationary_first_leg(p: &RwpParams, rng: &mut Rng) -> Leg {
    let p_pause = stationary_pause_probability(p);
    if rng.uniform() < p_pause {
        let at = uniform_point(p, rng);
        let remaining = from_secs(rng.uniform() * p.pause_s());
        return next_leg(p, rng, remaining, at);
    }
    let diagonal = p.width_m.hypot(p.height_m);
    let (a, b) = loop {
        let a = uniform_point(p, rng);
        let b = uniform_point(p, rng);
        if rng.uniform() * diagonal < a.distance(&b) {
            break (a, b);
        }
    };
    let r = rng.uniform();
    let here = Pos::new(a.x + (b.x - a.x) * r, a.y + (b.y - a.y) * r);
    let speed = if p.min_speed_mps >= p.max_speed_mps {
        p.max_speed_mps
    } else {
        p.min_speed_mps * (p.max_speed_mps / p.min_speed_mps).powf(rng.uniform())
    };
    Leg::toward(0, here, b, speed)
}

/// `E[1/V]` for a speed uniform in `[vmin, vmax]` (infinite for `vmin = 0`).
pub fn mean_inverse_speed(vmin: f64, vmax: f64) -> f64 {
    if vmin <= 0.0 {
        return f64::INFINITY;
    }
    if (vmax - vmin).abs() <= 1e-12 * vmax {
        return 1.0 / vmin;
    }
    (vmax / vmin).ln() / (vmax - vmin)
}

/// The mean distance between two points uniform in a `w × h` rectangle
/// (the classical closed form; 0.5214·a for a square of side a).
pub fn mean_leg_length(w: f64, h: f64) -> f64 {
    if w <= 0.0 || h <= 0.0 {
        return (w.max(h)).max(0.0) / 3.0;
    }
    let d = w.hypot(h);
    let (w2, h2) = (w * w, h * h);
    (w * w2 / h2 + h * h2 / w2 + d * (3.0 - w2 / h2 - h2 / w2)) / 15.0
        + (h2 / w * (d / h).acosh() + w2 / h * (d / w).acosh()) / 6.0
}

fn stationary_pause_probability(p: &RwpParams) -> f64 {
    let pause = p.pause_s();
    if pause <= 0.0 {
        return 0.0;
    }
    let moving = mean_leg_length(p.width_m, p.height_m)
        * mean_inverse_speed(p.min_speed_mps, p.max_speed_mps);
    pause / (pause + moving)
}

/// The stationary mean speed over all nodes (paused ones count as 0):
/// `E[L] / (P + E[L]·E[1/V])`; with no pause, `(vmax − vmin) / ln(vmax/vmin)`.
/// 0 when `vmin = 0` (the limit the model decays towards).
pub fn stationary_mean_speed(p: &RwpParams) -> f64 {
    let inv = mean_inverse_speed(p.min_speed_mps, p.max_speed_mps);
    if !inv.is_finite() {
        return 0.0;
    }
    let l = mean_leg_length(p.width_m, p.height_m);
    l / (p.pause_s() + l * inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{to_secs, NS_PER_S};

    const S: SimTime = NS_PER_S;

    fn params(steady: bool, min: f64, max: f64, pause_s: f64) -> RwpParams {
        RwpParams {
            width_m: 1000.0,
            height_m: 500.0,
            min_speed_mps: min,
            max_speed_mps: max,
            pause: from_secs(pause_s),
            steady_state: steady,
        }
    }

    #[test]
    fn positions_match_the_drawn_legs_by_hand() {
        let p = params(false, 1.0, 20.0, 10.0);
        let mut n = RandomWaypoint::new(p, 42, 3);
        // Replay the stream by hand: x0, y0, then (x, y, speed) per leg.
        let mut rng = Rng::new(42, Stream::Mobility, 3);
        let x0 = rng.uniform() * 1000.0;
        let y0 = rng.uniform() * 500.0;
        let x1 = rng.uniform() * 1000.0;
        let y1 = rng.uniform() * 500.0;
        let v1 = 1.0 + 19.0 * rng.uniform();
        let d1 = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
        let t1 = 10.0 + d1 / v1; // pause first, then travel
        let x2 = rng.uniform() * 1000.0;
        let y2 = rng.uniform() * 500.0;
        let v2 = 1.0 + 19.0 * rng.uniform();

        assert_eq!(n.initial(), Pos::new(x0, y0));
        assert_eq!(n.position(5 * S), Pos::new(x0, y0)); // pausing
        let half = 10.0 + 0.5 * d1 / v1;
        let mid = n.position(from_secs(half));
        assert!((mid.x - (x0 + x1) / 2.0).abs() < 1e-6, "{mid:?}");
        assert!((mid.y - (y0 + y1) / 2.0).abs() < 1e-6, "{mid:?}");
        // Arrived and pausing for 10 s.
        let arrived = n.position(from_secs(t1 + 5.0));
        assert_eq!(arrived, Pos::new(x1, y1));
        // 1 s into the second leg.
        let p2 = n.position(from_secs(t1 + 11.0));
        let d2 = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt();
        let f = v2 / d2;
        assert!((p2.x - (x1 + (x2 - x1) * f)).abs() < 1e-6, "{p2:?}");
        assert!((p2.y - (y1 + (y2 - y1) * f)).abs() < 1e-6, "{p2:?}");
        assert!((n.speed_at(from_secs(t1 + 11.0)) - v2).abs() < 1e-12);
        assert_eq!(n.speed_at(from_secs(t1 + 1.0)), 0.0);
    }

    #[test]
    fn earlier_queries_replay_and_agree_with_the_leg_list() {
        let p = params(false, 2.0, 15.0, 3.0);
        let mut n = RandomWaypoint::new(p, 9, 0);
        let legs = n.legs_until(600 * S);
        assert!(legs.len() > 5);
        for w in legs.windows(2) {
            assert_eq!(w[1].start, w[0].end + p.pause);
            assert_eq!(w[1].from, w[0].to);
        }
        let times: Vec<SimTime> = (0..600).map(|i| i * S + 123_456).collect();
        let forward: Vec<Pos> = times.iter().map(|&t| n.position(t)).collect();
        for (i, &t) in times.iter().enumerate().rev() {
            assert_eq!(n.position(t), forward[i], "t = {}", to_secs(t));
            let here = match legs.iter().rev().find(|l| l.start <= t) {
                Some(leg) => leg.position(t),
                None => n.initial(), // pausing before the first leg
            };
            assert_eq!(here, forward[i]);
        }
    }

    #[test]
    fn a_walk_far_along_redraws_the_same_first_leg() {
        // The first leg is drawn again, not kept: after a walk has moved
        // on, its start, its replay and its legs are those of a fresh walk.
        for steady in [false, true] {
            let p = params(steady, 1.0, 20.0, 4.0);
            let fresh = RandomWaypoint::new(p, 3, 17);
            let mut n = RandomWaypoint::new(p, 3, 17);
            let late = n.position(900 * S);
            assert_ne!(n.leg.start, n.first_start, "moved on");
            assert_eq!(n.initial(), fresh.initial());
            assert_eq!(n.legs_until(900 * S), fresh.legs_until(900 * S));
            assert_eq!(n.position(0), fresh.clone().position(0));
            assert_eq!(n.leg_in_force().0, 0, "back on the first leg");
            assert_eq!(n.position(900 * S), late);
        }
    }

    #[test]
    fn mean_leg_length_matches_known_values() {
        assert!((mean_leg_length(1.0, 1.0) - 0.521_405_433).abs() < 1e-8);
        // A 2 × 1 rectangle: 0.80477 (a 2·10⁶-sample Monte Carlo gives 0.80465).
        assert!((mean_leg_length(2.0, 1.0) - 0.804_771_8).abs() < 1e-6);
        assert!((mean_leg_length(1.0, 2.0) - mean_leg_length(2.0, 1.0)).abs() < 1e-12);
    }

    #[test]
    fn stationary_mean_speed_formula() {
        let p = params(true, 1.0, 20.0, 0.0);
        let expected = 19.0 / 20f64.ln();
        assert!((stationary_mean_speed(&p) - expected).abs() < 1e-12);
        assert_eq!(stationary_mean_speed(&params(true, 0.0, 20.0, 0.0)), 0.0);
        let constant = params(true, 5.0, 5.0, 0.0);
        assert!((stationary_mean_speed(&constant) - 5.0).abs() < 1e-9);
    }

    #[test]
    fn steady_state_nodes_start_moving_or_paused_and_stay_in_the_area() {
        let p = params(true, 1.0, 10.0, 20.0);
        let mut paused = 0;
        for node in 0..2000 {
            let mut n = RandomWaypoint::new(p, 5, node);
            if n.first().start > 0 {
                paused += 1;
                assert!(n.first().start <= p.pause);
            }
            for t in [0, 7 * S, 300 * S] {
                let q = n.position(t);
                assert!((0.0..=1000.0).contains(&q.x) && (0.0..=500.0).contains(&q.y));
            }
        }
        let expect = stationary_pause_probability(&p) * 2000.0;
        assert!(
            (f64::from(paused) - expect).abs() < 5.0 * expect.sqrt(),
            "{paused} vs {expect}"
        );
    }

    #[test]
    fn min_equal_max_is_a_constant_speed() {
        let p = params(false, 7.0, 7.0, 0.0);
        let n = RandomWaypoint::new(p, 1, 1);
        assert!(n.legs_until(100 * S).iter().all(|l| l.speed_mps == 7.0));
    }
}
