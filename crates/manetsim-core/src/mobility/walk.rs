//! Random direction, random walk and Gauss-Markov, generated lazily per
//! node as random waypoint is ([`super::random_waypoint`]): each node draws
//! from its own stream `Rng::new(seed, Stream::Mobility, node)` and from
//! nothing else, keeps its current leg, course and generator, and replays
//! from its first leg for a query back in time.
//!
//! All three start from a position uniform in the area (draws: x, then y)
//! and move at once. The first two draw each speed uniform in
//! `[min_speed_mps, max_speed_mps)`, never 0, as random waypoint does. The
//! area is `[0, width] × [0, height]`, with directions measured from the x
//! axis towards the y axis.
//!
//! ## Random direction (`model = "random_direction"`)
//!
//! Royer, Melliar-Smith and Moser's model (ICC 2001), as ns-3's
//! `RandomDirection2dMobilityModel` defines it: the node draws a direction
//! uniform in `[0, 2π)` and a speed, and goes straight until it reaches the
//! edge of the area. There it pauses `pause_s`, then draws a direction
//! uniform over the half-turn pointing into the area from the side nearest
//! to it (bottom `[0, π)`, left `[-π/2, π/2)`, top `[π, 2π)`, right
//! `[π/2, 3π/2)`; ties in that order) and a new speed, and so on. A
//! direction that leaves the area at once (from a corner, through the other
//! side) is a leg of length 0: the node pauses again and draws again.
//! Unlike random waypoint's, its nodes do not gather in the middle of the
//! area: they cross it whole.
//!
//! ## Random walk (`model = "random_walk"`)
//!
//! ns-3's `RandomWalk2dMobilityModel` in its time mode: every `step_s` the
//! node draws a direction uniform in `[0, 2π)` and a speed, and keeps them
//! for the step. At the edge of the area it is reflected (the component of
//! its heading across that edge changes sign; both at a corner) and goes
//! on for the rest of the step: each stretch between reflections is a leg.
//! Reflection keeps a uniform distribution of positions uniform, so the
//! nodes stay spread evenly over the area from the start.
//!
//! ## Gauss-Markov (`model = "gauss_markov"`)
//!
//! Liang and Haas's model (INFOCOM 1999) in two dimensions, as Camp, Boleng
//! and Davies's survey (2002) and ns-3's `GaussMarkovMobilityModel` step
//! it: each node has a mean speed, uniform in `[min_speed_mps,
//! max_speed_mps)`, and a mean direction, uniform in `[0, 2π)`, and starts
//! at them. At the start of every `step_s` (the first included) the speed
//! and direction move on as
//!
//! `s ← α·s + (1 − α)·s̄ + √(1 − α²)·σ_s·N`, `θ ← α·θ + (1 − α)·θ̄ +
//! √(1 − α²)·σ_θ·N`
//!
//! (two standard normal draws, the speed's first), and the node goes
//! straight at them for the step, at the speed kept within `[0,
//! max_speed_mps]` (a node whose speed falls to 0 stands for the step).
//! `α` is `alpha`: 1 keeps the first course for ever, 0 draws each step
//! afresh around the means. At the edge the node is reflected as in the
//! random walk, and its direction and mean direction are mirrored with it
//! (across a side wall `θ → π − θ`, across the floor or ceiling `θ → −θ`),
//! so that it does not turn back into the wall.
//!
//! Every leg is built with [`Leg::toward`] (to the point where it ends), so
//! an ns-2 movement file written from the legs reproduces the walk exactly.
//! A leg's end is rounded to the nanosecond; a step of the walk ends with
//! the leg that uses up its time, so steps drift by at most 1 ns each.

use crate::engine::{from_secs, to_secs, Rng, SimTime, Stream};
use crate::phy::Pos;
use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::rc::Rc;

use super::trajectory::Leg;

/// Which of the two models a walk follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkKind {
    RandomDirection,
    RandomWalk,
    GaussMarkov,
}

/// The parameters every node of a run shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkParams {
    pub kind: WalkKind,
    pub width_m: f64,
    pub height_m: f64,
    pub min_speed_mps: f64,
    pub max_speed_mps: f64,
    /// Random direction: the pause at the edge.
    pub pause: SimTime,
    /// Random walk and Gauss-Markov: how long a direction and speed hold
    /// (> 0).
    pub step: SimTime,
    /// Random walk: a new course every this many metres instead of every
    /// `step` (ns-3's distance mode).
    pub step_m: Option<f64>,
    /// Gauss-Markov: within this distance of an edge, each step points
    /// the mean direction away from it (Camp, Boleng and Davies).
    pub edge_margin_m: Option<f64>,
    /// Gauss-Markov: the memory `α` in `[0, 1]`, and the deviations of the
    /// speed's and the direction's normal draws.
    pub alpha: f64,
    pub speed_std_mps: f64,
    pub direction_std_rad: f64,
}

/// The heading and speed the walk's next leg keeps, and when the step
/// they belong to ends (random walk; unused by random direction).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Course {
    /// A unit vector.
    ux: f64,
    uy: f64,
    speed_mps: f64,
    step_end: SimTime,
    /// The last leg used up the step: the next one draws a new course.
    step_done: bool,
    /// Gauss-Markov: the speed and direction as the process has them (the
    /// speed before it is kept within bounds), and their means.
    speed: f64,
    direction: f64,
    mean_speed: f64,
    mean_direction: f64,
}

/// One node's walk. Memory is constant: the current leg, its course and
/// the generator.
#[derive(Debug, Clone)]
pub struct Walk {
    params: Rc<WalkParams>,
    seed: u64,
    node: u32,
    leg: Leg,
    course: Course,
    rng: Rng,
}

impl Walk {
    /// Node `node`'s walk for master seed `seed`.
    pub fn new(params: impl Into<Rc<WalkParams>>, seed: u64, node: u32) -> Self {
        let params = params.into();
        let (leg, course, rng) = first_leg(&params, seed, node);
        Self {
            params,
            seed,
            node,
            leg,
            course,
            rng,
        }
    }

    /// Where the node is at time 0.
    pub fn initial(&self) -> Pos {
        if self.leg.start == 0 {
            self.leg.from
        } else {
            first_leg(&self.params, self.seed, self.node).0.from
        }
    }

    /// An upper bound on the node's speed.
    pub fn max_speed_mps(&self) -> f64 {
        self.params.max_speed_mps
    }

    /// Makes `self.leg` the leg in force at `t` (the last one starting at
    /// or before `t`).
    fn advance_to(&mut self, t: SimTime) {
        if t < self.leg.start {
            (self.leg, self.course, self.rng) = first_leg(&self.params, self.seed, self.node);
        }
        loop {
            let next_start = next_start(&self.params, &self.leg, &self.course);
            if t < next_start || next_start == SimTime::MAX {
                return;
            }
            self.leg = next_leg(
                &self.params,
                &mut self.rng,
                &mut self.course,
                next_start,
                self.leg.to,
            );
        }
    }

    /// The position at `t`; O(1) amortised for non-decreasing `t`, a replay
    /// from the start for an earlier `t`.
    pub fn position(&mut self, t: SimTime) -> Pos {
        self.advance_to(t);
        self.leg.position(t)
    }

    /// The leg the last query used and the times `[from, until)` over which
    /// it gives the position.
    pub(crate) fn leg_in_force(&self) -> (SimTime, SimTime, Leg) {
        (
            self.leg.start,
            next_start(&self.params, &self.leg, &self.course),
            self.leg,
        )
    }

    /// The instantaneous speed at `t`.
    pub fn speed_at(&mut self, t: SimTime) -> f64 {
        self.advance_to(t);
        self.leg.speed_at(t)
    }

    /// Every leg that starts before `until` (replayed; the query cursor is
    /// left alone).
    pub fn legs_until(&self, until: SimTime) -> Vec<Leg> {
        let mut out = Vec::new();
        let (mut leg, mut course, mut rng) = first_leg(&self.params, self.seed, self.node);
        while leg.start < until {
            out.push(leg);
            let next_start = next_start(&self.params, &leg, &course);
            if next_start == SimTime::MAX {
                break;
            }
            leg = next_leg(&self.params, &mut rng, &mut course, next_start, leg.to);
        }
        out
    }
}

/// When the leg after `leg`, drawn on `course`, starts.
fn next_start(p: &WalkParams, leg: &Leg, course: &Course) -> SimTime {
    match p.kind {
        WalkKind::RandomDirection => leg.end.saturating_add(p.pause),
        WalkKind::RandomWalk => leg.end,
        // A node whose speed fell to 0 stands until its step ends.
        WalkKind::GaussMarkov if leg.speed_mps <= 0.0 => leg.end.max(course.step_end),
        WalkKind::GaussMarkov => leg.end,
    }
}

/// Node `node`'s first leg, its course and its generator after them.
fn first_leg(p: &WalkParams, seed: u64, node: u32) -> (Leg, Course, Rng) {
    let mut rng = Rng::new(seed, Stream::Mobility, u64::from(node));
    let x = rng.range(0.0, p.width_m);
    let y = rng.range(0.0, p.height_m);
    let mut course = if p.kind == WalkKind::GaussMarkov {
        let mean_speed = if p.min_speed_mps >= p.max_speed_mps {
            p.max_speed_mps
        } else {
            rng.range(p.min_speed_mps, p.max_speed_mps)
        };
        let mean_direction = rng.range(0.0, TAU);
        let mut course = Course {
            ux: 0.0,
            uy: 0.0,
            speed_mps: 0.0,
            step_end: 0,
            step_done: false,
            speed: mean_speed,
            direction: mean_direction,
            mean_speed,
            mean_direction,
        };
        gauss_markov_step(p, &mut rng, &mut course, 0, Pos::new(x, y));
        course
    } else {
        let angle = rng.range(0.0, TAU);
        draw_course(p, &mut rng, angle, 0)
    };
    let leg = leg_from(p, &mut course, 0, Pos::new(x, y));
    (leg, course, rng)
}

/// Moves a Gauss-Markov course on by one step starting at `start`, from
/// `at`.
fn gauss_markov_step(p: &WalkParams, rng: &mut Rng, c: &mut Course, start: SimTime, at: Pos) {
    if let Some(away) = p.edge_margin_m.and_then(|m| away_from_edges(p, at, m)) {
        // Camp, Boleng and Davies: near an edge the mean direction turns
        // away from it, and stays so. The angle nearest the current
        // direction, so that the linear mix below turns the short way.
        c.mean_direction = away + TAU * ((c.direction - away) / TAU).round();
    }
    let keep = p.alpha;
    let spread = (1.0 - keep * keep).max(0.0).sqrt();
    let ns = rng.normal();
    let nd = rng.normal();
    c.speed = keep * c.speed + (1.0 - keep) * c.mean_speed + spread * p.speed_std_mps * ns;
    c.direction =
        keep * c.direction + (1.0 - keep) * c.mean_direction + spread * p.direction_std_rad * nd;
    c.ux = c.direction.cos();
    c.uy = c.direction.sin();
    c.speed_mps = c.speed.clamp(0.0, p.max_speed_mps);
    c.step_end = start.saturating_add(p.step);
    c.step_done = false;
}

/// A course along `angle` at a speed drawn now, its step starting at
/// `start`.
fn draw_course(p: &WalkParams, rng: &mut Rng, angle: f64, start: SimTime) -> Course {
    let speed_mps = uniform_speed(p, rng);
    // In distance mode the step lasts as long as `step_m` takes at the
    // speed drawn (at least 1 ns, so that time moves on).
    let step = match p.step_m {
        Some(d) if p.kind == WalkKind::RandomWalk => from_secs(d / speed_mps).max(1),
        _ => p.step,
    };
    Course {
        ux: angle.cos(),
        uy: angle.sin(),
        speed_mps,
        step_end: start.saturating_add(step),
        step_done: false,
        speed: speed_mps,
        direction: angle,
        mean_speed: 0.0,
        mean_direction: 0.0,
    }
}

/// A speed uniform in `[min, max)`, never 0 (random waypoint's rule).
fn uniform_speed(p: &WalkParams, rng: &mut Rng) -> f64 {
    super::random_waypoint::speed_between(p.min_speed_mps, p.max_speed_mps, rng)
}

/// The leg that leaves `from` at `start`, after the one that ended there.
fn next_leg(p: &WalkParams, rng: &mut Rng, course: &mut Course, start: SimTime, from: Pos) -> Leg {
    match p.kind {
        WalkKind::RandomDirection => {
            let angle = rng.range(0.0, PI) + inward_offset(p, from);
            *course = draw_course(p, rng, angle, start);
        }
        WalkKind::RandomWalk => {
            if course.step_done || start >= course.step_end {
                let angle = rng.range(0.0, TAU);
                *course = draw_course(p, rng, angle, start);
            }
        }
        WalkKind::GaussMarkov => {
            if course.step_done || start >= course.step_end {
                gauss_markov_step(p, rng, course, start, from);
            }
        }
    }
    leg_from(p, course, start, from)
}

/// The direction away from the edges within `margin` of `at`: straight
/// away from one, diagonally out of a corner (0 rad off the left edge,
/// π/2 off the bottom, 5π/4 out of the top right corner); `None` away from
/// them all, or between two opposite ones.
fn away_from_edges(p: &WalkParams, at: Pos, margin: f64) -> Option<f64> {
    let axis = |v: f64, size: f64| {
        f64::from(u8::from(v < margin)) - f64::from(u8::from(v > size - margin))
    };
    let (dx, dy) = (axis(at.x, p.width_m), axis(at.y, p.height_m));
    (dx != 0.0 || dy != 0.0).then(|| dy.atan2(dx))
}

/// What to add to an angle in `[0, π)` to point it into the area from the
/// side nearest to `at`: bottom, left, top, right (ties in that order).
fn inward_offset(p: &WalkParams, at: Pos) -> f64 {
    let sides = [
        (at.y, 0.0),
        (at.x, -FRAC_PI_2),
        (p.height_m - at.y, PI),
        (p.width_m - at.x, FRAC_PI_2),
    ];
    let mut best = sides[0];
    for side in &sides[1..] {
        if side.0 < best.0 {
            best = *side;
        }
    }
    best.1
}

/// How far from `at` along (`ux`, `uy`) the area ends, in each axis
/// (infinite along an axis the heading does not cross).
fn to_edges(p: &WalkParams, at: Pos, ux: f64, uy: f64) -> (f64, f64) {
    let along = |x: f64, u: f64, size: f64| {
        if u > 0.0 {
            ((size - x) / u).max(0.0)
        } else if u < 0.0 {
            (-x / u).max(0.0)
        } else {
            f64::INFINITY
        }
    };
    (along(at.x, ux, p.width_m), along(at.y, uy, p.height_m))
}

/// The point `d` along (`ux`, `uy`) from `at`, kept inside the area.
fn point_along(p: &WalkParams, at: Pos, ux: f64, uy: f64, d: f64) -> Pos {
    Pos::new(
        (at.x + ux * d).clamp(0.0, p.width_m),
        (at.y + uy * d).clamp(0.0, p.height_m),
    )
}

/// Where the heading (`ux`, `uy`) from `at` meets the edge, `ex` and `ey`
/// along it in each axis ([`to_edges`]): exactly on the side it meets (on
/// both at a corner), whatever the rounding of the product.
fn edge_point(p: &WalkParams, at: Pos, ux: f64, uy: f64, (ex, ey): (f64, f64)) -> Pos {
    let q = point_along(p, at, ux, uy, ex.min(ey));
    let side = |u: f64, size: f64| if u > 0.0 { size } else { 0.0 };
    Pos::new(
        if ex <= ey { side(ux, p.width_m) } else { q.x },
        if ey <= ex { side(uy, p.height_m) } else { q.y },
    )
}

/// The leg from `from` at `start` on `course`: to the edge (random
/// direction), or for the rest of the step unless an edge comes first, which
/// then reflects the course (random walk).
fn leg_from(p: &WalkParams, course: &mut Course, start: SimTime, from: Pos) -> Leg {
    let (ux, uy, v) = (course.ux, course.uy, course.speed_mps);
    let (ex, ey) = to_edges(p, from, ux, uy);
    let edge = ex.min(ey);
    match p.kind {
        WalkKind::RandomDirection => {
            Leg::toward(start, from, edge_point(p, from, ux, uy, (ex, ey)), v)
        }
        WalkKind::RandomWalk | WalkKind::GaussMarkov => {
            if v <= 0.0 {
                // Standing for the step (Gauss-Markov's speed at 0).
                course.step_done = true;
                return Leg::still(start, from);
            }
            let rest = v * to_secs(course.step_end.saturating_sub(start));
            if rest <= edge {
                course.step_done = true;
                Leg::toward(start, from, point_along(p, from, ux, uy, rest), v)
            } else {
                if ex <= ey {
                    course.ux = -ux;
                    course.direction = PI - course.direction;
                    course.mean_direction = PI - course.mean_direction;
                }
                if ey <= ex {
                    course.uy = -uy;
                    course.direction = -course.direction;
                    course.mean_direction = -course.mean_direction;
                }
                Leg::toward(start, from, edge_point(p, from, ux, uy, (ex, ey)), v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{from_secs, NS_PER_S};

    const S: SimTime = NS_PER_S;

    fn params(kind: WalkKind, min: f64, max: f64, pause_s: f64, step_s: f64) -> WalkParams {
        WalkParams {
            kind,
            width_m: 1000.0,
            height_m: 500.0,
            min_speed_mps: min,
            max_speed_mps: max,
            pause: from_secs(pause_s),
            step: from_secs(step_s),
            step_m: None,
            edge_margin_m: None,
            alpha: 0.75,
            speed_std_mps: 1.0,
            direction_std_rad: 1.0,
        }
    }

    fn inside(q: Pos) -> bool {
        (0.0..=1000.0).contains(&q.x) && (0.0..=500.0).contains(&q.y)
    }

    fn on_edge(q: Pos) -> bool {
        q.x == 0.0 || q.x == 1000.0 || q.y == 0.0 || q.y == 500.0
    }

    #[test]
    fn random_direction_goes_to_the_edge_drawn_by_hand() {
        let p = params(WalkKind::RandomDirection, 1.0, 20.0, 3.0, 1.0);
        let mut w = Walk::new(p, 42, 3);
        // Replay the stream by hand: x0, y0, the direction, the speed.
        let mut rng = Rng::new(42, Stream::Mobility, 3);
        let x0 = rng.uniform() * 1000.0;
        let y0 = rng.uniform() * 500.0;
        let a = rng.uniform() * TAU;
        let v = 1.0 + 19.0 * rng.uniform();
        let (ux, uy) = (a.cos(), a.sin());
        let dx = if ux > 0.0 {
            (1000.0 - x0) / ux
        } else {
            -x0 / ux
        };
        let dy = if uy > 0.0 {
            (500.0 - y0) / uy
        } else {
            -y0 / uy
        };
        let d = dx.min(dy);
        let edge = Pos::new(
            (x0 + ux * d).clamp(0.0, 1000.0),
            (y0 + uy * d).clamp(0.0, 500.0),
        );
        assert_eq!(w.initial(), Pos::new(x0, y0));
        let leg = w.legs_until(1)[0];
        assert_eq!((leg.start, leg.from, leg.to), (0, Pos::new(x0, y0), edge));
        assert!(on_edge(leg.to), "{:?}", leg.to);
        let half = w.position(from_secs(0.5 * d / v));
        assert!((half.x - (x0 + ux * d / 2.0)).abs() < 1e-6, "{half:?}");
        assert!((half.y - (y0 + uy * d / 2.0)).abs() < 1e-6, "{half:?}");
        assert!((w.speed_at(from_secs(0.5 * d / v)) - v).abs() < 1e-12);
        // Paused at the edge, then away from it on a new course.
        let end = to_secs(leg.end);
        assert_eq!(w.position(from_secs(end + 2.0)), edge);
        assert_eq!(w.speed_at(from_secs(end + 2.0)), 0.0);
        let second = w.legs_until(leg.end + 3 * S + 1)[1];
        assert_eq!(second.start, leg.end + 3 * S);
        assert_eq!(second.from, edge);
    }

    #[test]
    fn random_direction_turns_into_the_area_from_each_side() {
        // From every side the new direction points inside (or along the
        // edge): a leg that starts on an edge never leaves the area.
        let p = params(WalkKind::RandomDirection, 2.0, 10.0, 0.0, 1.0);
        let mut legs = 0;
        for node in 0..200 {
            let w = Walk::new(p, 7, node);
            let all = w.legs_until(2000 * S);
            for pair in all.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert_eq!(b.from, a.to);
                assert_eq!(b.start, a.end);
                assert!(on_edge(b.to) && on_edge(b.from), "{b:?}");
                let mid = b.position(b.start + (b.end - b.start) / 2);
                assert!(inside(mid), "{mid:?}");
                legs += 1;
            }
        }
        assert!(legs > 2000, "{legs}");
    }

    #[test]
    fn random_direction_spends_its_pauses_at_the_edge() {
        // Where a node stands, it stands on the edge, and for the share of
        // the time its legs leave between them.
        let p = params(WalkKind::RandomDirection, 5.0, 5.0, 20.0, 1.0);
        let end = 20_000 * S;
        let (mut moving, mut stood, mut samples) = (0u64, 0u64, 0u64);
        for node in 0..50 {
            let mut w = Walk::new(p, 11, node);
            let legs = w.legs_until(end);
            moving += legs
                .iter()
                .map(|l| l.end.min(end) - l.start.min(end))
                .sum::<u64>();
            for k in 0..2000u64 {
                let at = k * 10 * S + 1;
                if w.speed_at(at) == 0.0 {
                    stood += 1;
                    assert!(on_edge(w.position(at)));
                }
                samples += 1;
            }
        }
        let share = 1.0 - moving as f64 / (50 * end) as f64;
        let sampled = stood as f64 / samples as f64;
        assert!((sampled - share).abs() < 0.02, "{sampled} vs {share}");
        // 20 s of pause against a mean crossing of a few hundred metres at
        // 5 m/s.
        assert!(share > 0.1 && share < 0.4, "{share}");
    }

    #[test]
    fn random_direction_does_not_gather_nodes_in_the_middle() {
        // The share of nodes in the middle quarter of a square (500 m of
        // 1,000 m each way), 4,000 nodes at 1,000 to 5,000 s: random
        // direction's sits a little under a uniform spread's 0.25 (0.203;
        // its nodes leave an edge at every angle alike, so the shallow ones
        // linger near it), random waypoint's steady state far above it
        // (0.451).
        let p = WalkParams {
            kind: WalkKind::RandomDirection,
            width_m: 1000.0,
            height_m: 1000.0,
            min_speed_mps: 1.0,
            max_speed_mps: 20.0,
            pause: 0,
            step: S,
            step_m: None,
            edge_margin_m: None,
            alpha: 0.75,
            speed_std_mps: 1.0,
            direction_std_rad: 1.0,
        };
        let rwp = crate::mobility::RwpParams {
            width_m: 1000.0,
            height_m: 1000.0,
            min_speed_mps: 1.0,
            max_speed_mps: 20.0,
            pause: 0,
            steady_state: true,
        };
        let middle = |q: Pos| (250.0..750.0).contains(&q.x) && (250.0..750.0).contains(&q.y);
        let (mut direction, mut waypoint, mut n) = (0u32, 0u32, 0u32);
        for node in 0..4000 {
            let mut a = Walk::new(p, 1, node);
            let mut b = crate::mobility::RandomWaypoint::new(rwp, 1, node);
            for k in 1..6u64 {
                let t = k * 1000 * S;
                direction += u32::from(middle(a.position(t)));
                waypoint += u32::from(middle(b.position(t)));
                n += 1;
            }
        }
        let (d, w) = (
            f64::from(direction) / f64::from(n),
            f64::from(waypoint) / f64::from(n),
        );
        assert!((0.18..0.25).contains(&d), "{d}");
        assert!(w > 0.42, "{w}");
    }

    #[test]
    fn random_walk_reflects_at_the_edge_and_keeps_its_step() {
        // Constant speed, 30 s steps over 600 s: a new course every 30 s
        // (to within the nanosecond a leg rounds to), and between two
        // courses only reflections, each off the edge the leg ended on.
        let step = 30 * S;
        let new_step = |t: SimTime| t % step < 1000 || t % step > step - 1000;
        let unit = |l: &Leg| {
            let h = l.heading();
            let n = h.x.hypot(h.y);
            (n > 0.0).then(|| (h.x / n, h.y / n))
        };
        let p = params(WalkKind::RandomWalk, 10.0, 10.0, 0.0, 30.0);
        let mut reflections = 0;
        for node in 0..100 {
            let w = Walk::new(p, 5, node);
            let legs = w.legs_until(600 * S);
            assert_eq!(legs.iter().filter(|l| new_step(l.start)).count(), 20);
            for pair in legs.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert_eq!((b.from, b.start), (a.to, a.end));
                assert!(inside(b.to), "{b:?}");
                if new_step(b.start) {
                    continue;
                }
                assert!(on_edge(a.to), "{a:?}");
                let (Some(ca), Some(cb)) = (unit(&a), unit(&b)) else {
                    continue;
                };
                let same = |x: f64, y: f64| (x - y).abs() < 1e-9;
                let x_flipped = same(ca.0, -cb.0) && same(ca.1, cb.1);
                let y_flipped = same(ca.0, cb.0) && same(ca.1, -cb.1);
                let both = same(ca.0, -cb.0) && same(ca.1, -cb.1);
                assert!(x_flipped || y_flipped || both, "{a:?} {b:?}");
                reflections += 1;
            }
        }
        assert!(reflections > 100, "{reflections}");
    }

    #[test]
    fn random_walk_in_distance_mode_draws_a_new_course_every_step_m() {
        // ns-3's distance mode: 40 m a course whatever its speed (1-20
        // m/s), reflections included. A new course draws a new speed, so
        // the legs of one course are a run of one speed; each full run
        // covers 40 m, in 2 to 40 s.
        let p = WalkParams {
            step_m: Some(40.0),
            ..params(WalkKind::RandomWalk, 1.0, 20.0, 0.0, 1.0)
        };
        let mut steps = 0;
        let mut reflected = 0;
        for node in 0..50 {
            let legs = Walk::new(p, 8, node).legs_until(2000 * S);
            let runs = legs.chunk_by(|a, b| a.speed_mps == b.speed_mps);
            let runs: Vec<&[Leg]> = runs.collect();
            // The last run may be cut short by the end of the list.
            for run in &runs[..runs.len() - 1] {
                let metres: f64 = run.iter().map(|l| l.from.distance(&l.to)).sum();
                assert!((metres - 40.0).abs() < 1e-6, "{metres} m: {run:?}");
                let secs = to_secs(run[run.len() - 1].end - run[0].start);
                assert!((2.0 - 1e-6..=40.0).contains(&secs), "{secs} s");
                reflected += usize::from(run.len() > 1);
                steps += 1;
            }
        }
        assert!(
            steps > 5000 && reflected > 50,
            "{steps} steps, {reflected} reflected"
        );
        // The time mode keeps 1 s steps: runs of 1 s, whatever the speed.
        let legs =
            Walk::new(params(WalkKind::RandomWalk, 1.0, 20.0, 0.0, 1.0), 8, 0).legs_until(100 * S);
        let runs: Vec<&[Leg]> = legs.chunk_by(|a, b| a.speed_mps == b.speed_mps).collect();
        for run in &runs[..runs.len() - 1] {
            let secs = to_secs(run[run.len() - 1].end - run[0].start);
            assert!((secs - 1.0).abs() < 1e-6, "{secs} s");
        }
    }

    #[test]
    fn random_walk_keeps_nodes_spread_evenly() {
        // Reflection keeps the uniform distribution: 3,200 nodes, each
        // where it is after 1,000 s, fall evenly in the 8 × 4 cells (a
        // chi-square test at the 0.1 % level, 31 degrees of freedom).
        let p = params(WalkKind::RandomWalk, 1.0, 20.0, 0.0, 5.0);
        let mut cells = [0u32; 32];
        for node in 0..3200 {
            let q = Walk::new(p, 3, node).position(1000 * S);
            assert!(inside(q), "{q:?}");
            let cx = ((q.x / 125.0) as usize).min(7);
            let cy = ((q.y / 125.0) as usize).min(3);
            cells[cy * 8 + cx] += 1;
        }
        let want = 100.0;
        let chi2: f64 = cells
            .iter()
            .map(|&c| (f64::from(c) - want).powi(2) / want)
            .sum();
        assert!(chi2 < 61.1, "chi2 = {chi2}, cells {cells:?}");
    }

    #[test]
    fn gauss_markov_speed_and_direction_are_ar1_processes() {
        // s ← α s + (1 − α) s̄ + √(1 − α²) σ N is stationary with deviation
        // σ and lag-one correlation α; so is the direction. 40,000 steps.
        for alpha in [0.0, 0.5, 0.9] {
            let p = WalkParams {
                max_speed_mps: 1000.0,
                alpha,
                speed_std_mps: 2.0,
                direction_std_rad: 0.5,
                ..params(WalkKind::GaussMarkov, 20.0, 20.0, 0.0, 1.0)
            };
            let mut c = Course {
                ux: 0.0,
                uy: 0.0,
                speed_mps: 0.0,
                step_end: 0,
                step_done: false,
                speed: 20.0,
                direction: 1.0,
                mean_speed: 20.0,
                mean_direction: 1.0,
            };
            let mut rng = Rng::new(8, Stream::Mobility, 0);
            let (mut speeds, mut directions) = (Vec::new(), Vec::new());
            for k in 0..40_000u64 {
                gauss_markov_step(&p, &mut rng, &mut c, k * S, Pos::new(500.0, 500.0));
                assert_eq!(c.step_end, (k + 1) * S);
                assert_eq!(c.speed_mps, c.speed.clamp(0.0, 1000.0));
                speeds.push(c.speed);
                directions.push(c.direction);
            }
            let stats = |xs: &[f64]| {
                let n = xs.len() as f64;
                let mean = xs.iter().sum::<f64>() / n;
                let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
                let lag = xs
                    .windows(2)
                    .map(|w| (w[0] - mean) * (w[1] - mean))
                    .sum::<f64>()
                    / (n - 1.0);
                (mean, var.sqrt(), lag / var)
            };
            let (mean, sd, rho) = stats(&speeds);
            assert!((mean - 20.0).abs() < 0.15, "α {alpha}: mean {mean}");
            assert!((sd - 2.0).abs() < 0.06, "α {alpha}: sd {sd}");
            assert!((rho - alpha).abs() < 0.03, "α {alpha}: ρ {rho}");
            let (mean, sd, rho) = stats(&directions);
            assert!((mean - 1.0).abs() < 0.04, "α {alpha}: mean {mean}");
            assert!((sd - 0.5).abs() < 0.015, "α {alpha}: sd {sd}");
            assert!((rho - alpha).abs() < 0.03, "α {alpha}: ρ {rho}");
        }
    }

    #[test]
    fn gauss_markov_walks_stay_inside_within_their_speed_bounds() {
        // Means of 1-5 m/s with a deviation of 3 m/s: some steps fall to 0
        // (the node stands until the step ends) and some reach the 5 m/s
        // cap; every leg stays in the area and follows the one before.
        let p = WalkParams {
            speed_std_mps: 3.0,
            ..params(WalkKind::GaussMarkov, 1.0, 5.0, 0.0, 2.0)
        };
        let (mut stood, mut capped) = (0, 0);
        for node in 0..100 {
            let w = Walk::new(p, 6, node);
            let legs = w.legs_until(1000 * S);
            for pair in legs.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert_eq!(b.from, a.to);
                assert!(inside(b.to), "{b:?}");
                assert!((0.0..=5.0).contains(&b.speed_mps), "{b:?}");
                if a.speed_mps == 0.0 {
                    stood += 1;
                    assert_eq!(a.start, a.end);
                    assert_eq!(b.start % (2 * S), 0, "stands for a whole step: {a:?} {b:?}");
                } else {
                    assert_eq!(b.start, a.end);
                }
                capped += usize::from(b.speed_mps == 5.0);
            }
        }
        assert!(stood > 100 && capped > 100, "{stood} {capped}");
        // α = 1 keeps the first course: one speed, one heading but for
        // reflections.
        let p = WalkParams {
            alpha: 1.0,
            ..params(WalkKind::GaussMarkov, 1.0, 5.0, 0.0, 2.0)
        };
        let legs = Walk::new(p, 6, 1).legs_until(1000 * S);
        assert!(legs.iter().all(|l| l.speed_mps == legs[0].speed_mps));
    }

    /// A Gauss-Markov course at 3 m/s along `direction`, its mean
    /// direction 1 rad.
    fn course_at(direction: f64) -> Course {
        Course {
            ux: 0.0,
            uy: 0.0,
            speed_mps: 0.0,
            step_end: 0,
            step_done: false,
            speed: 3.0,
            direction,
            mean_speed: 3.0,
            mean_direction: 1.0,
        }
    }

    #[test]
    fn gauss_markov_near_an_edge_turns_its_mean_direction_away() {
        // Camp, Boleng and Davies's regions, 100 m deep in a 1,000 m
        // square: off the right edge 180°, out of the top right corner
        // 225°, off the bottom 90°, off the left 0°; each as the angle
        // nearest the current direction (from 10° it is 180°, from −10°
        // −180°; from 500°, 90° is 450°).
        let p = WalkParams {
            edge_margin_m: Some(100.0),
            height_m: 1000.0,
            ..params(WalkKind::GaussMarkov, 1.0, 5.0, 0.0, 1.0)
        };
        let deg = |d: f64| d.to_radians();
        for (at, direction, want) in [
            (Pos::new(950.0, 500.0), deg(10.0), 180.0),
            (Pos::new(950.0, 500.0), deg(-10.0), -180.0),
            (Pos::new(950.0, 950.0), 0.0, -135.0),
            (Pos::new(500.0, 20.0), deg(500.0), 450.0),
            (Pos::new(20.0, 500.0), deg(170.0), 0.0),
        ] {
            let mut c = course_at(direction);
            let mut rng = Rng::new(1, Stream::Test, 0);
            gauss_markov_step(&p, &mut rng, &mut c, 0, at);
            assert!(
                (c.mean_direction - deg(want)).abs() < 1e-9,
                "{at:?}: {}",
                c.mean_direction.to_degrees()
            );
        }
        // In the middle, and without a margin, the mean stays.
        for (p, at) in [
            (p, Pos::new(500.0, 500.0)),
            (
                params(WalkKind::GaussMarkov, 1.0, 5.0, 0.0, 1.0),
                Pos::new(950.0, 500.0),
            ),
        ] {
            let mut c = course_at(0.0);
            gauss_markov_step(&p, &mut Rng::new(1, Stream::Test, 0), &mut c, 0, at);
            assert_eq!(c.mean_direction, 1.0);
        }
    }

    #[test]
    fn gauss_markov_steering_keeps_nodes_off_the_edges() {
        // 200 nodes for 1,000 s at 5-15 m/s, α = 0.75: the share of time
        // within 100 m of an edge (36 % of the area), sampled each second,
        // falls when the mean direction turns away within 100 m (36.4 %
        // reflected only, 5.3 % steered).
        let near = |margin: Option<f64>| {
            let p = WalkParams {
                edge_margin_m: margin,
                direction_std_rad: 0.4,
                height_m: 1000.0,
                ..params(WalkKind::GaussMarkov, 5.0, 15.0, 0.0, 1.0)
            };
            let (mut near, mut all) = (0u32, 0u32);
            for node in 0..200 {
                let mut w = Walk::new(p, 9, node);
                for t in 1..=1000 {
                    let q = w.position(t * S);
                    let edge = q.x.min(q.y).min(1000.0 - q.x).min(1000.0 - q.y);
                    near += u32::from(edge < 100.0);
                    all += 1;
                }
            }
            f64::from(near) / f64::from(all)
        };
        let (reflected, steered) = (near(None), near(Some(100.0)));
        assert!(reflected > 0.3, "{reflected}");
        assert!(steered < 0.5 * reflected, "{steered} against {reflected}");
    }

    #[test]
    fn earlier_queries_replay_and_agree_with_the_leg_list() {
        for kind in [
            WalkKind::RandomDirection,
            WalkKind::RandomWalk,
            WalkKind::GaussMarkov,
        ] {
            let p = params(kind, 2.0, 15.0, 3.0, 7.0);
            let mut w = Walk::new(p, 9, 4);
            let legs = w.legs_until(900 * S);
            assert!(legs.len() > 5, "{kind:?}");
            let times: Vec<SimTime> = (0..900).map(|i| i * S + 123_456).collect();
            let forward: Vec<Pos> = times.iter().map(|&t| w.position(t)).collect();
            for (i, &t) in times.iter().enumerate().rev() {
                assert_eq!(w.position(t), forward[i], "{kind:?} t = {}", to_secs(t));
                let leg = legs.iter().rev().find(|l| l.start <= t).unwrap();
                assert_eq!(leg.position(t), forward[i], "{kind:?}");
            }
            assert_eq!(w.initial(), legs[0].from);
        }
    }

    #[test]
    fn from_a_corner_half_the_directions_go_nowhere_and_are_drawn_again() {
        // From a corner half the drawn directions leave the area at once:
        // those legs go nowhere, and the walk draws again.
        let p = params(WalkKind::RandomDirection, 1.0, 2.0, 0.0, 1.0);
        let mut c = draw_course(&p, &mut Rng::new(2, Stream::Mobility, 0), 0.0, 0);
        let mut rng = Rng::new(1, Stream::Mobility, 0);
        let corner = Pos::new(0.0, 0.0);
        let mut nowhere = 0;
        for _ in 0..1000 {
            let leg = next_leg(&p, &mut rng, &mut c, 0, corner);
            if leg.to == corner {
                nowhere += 1;
            } else {
                assert!(leg.to.x >= 0.0 && leg.to.y >= 0.0 && on_edge(leg.to));
            }
        }
        assert!((400..600).contains(&nowhere), "{nowhere}");
    }
}
