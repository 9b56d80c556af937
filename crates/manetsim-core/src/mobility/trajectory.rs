//! Piecewise-linear trajectories: [`Leg`]s and the [`Trajectory`] of a node
//! whose legs are all known up front (scripted moves, ns-2 and BonnMotion
//! files).
//!
//! Every model, random waypoint included, builds its legs with the one
//! constructor [`Leg::toward`], which is ns-2's `setdest`: at `start` the node
//! leaves where it is and heads for `target` in a straight line at
//! `speed_mps`; it arrives after `distance / speed` (rounded to the
//! nanosecond) and stays there until its next leg starts. A leg that starts
//! while the previous one is still under way cuts that one short
//! ([`Leg::cut`]): the node turns from wherever it is at that instant.
//!
//! Positions inside a leg are computed from (`from`, `target`, `speed_mps`,
//! time since `start`) and nothing else, so a leg rebuilt from the same
//! command gives bit-identical positions: this is what makes an ns-2 file
//! written by [`super::Mobility::write_ns2`] reproduce the trajectories
//! exactly when read back.

use crate::engine::{from_secs, SimTime};
use crate::phy::Pos;

/// One straight movement at constant speed.
///
/// The node is at `from` at `start`, moves towards `target` at `speed_mps`,
/// and is at `to` at `end`. `to == target` unless the leg was cut short by
/// the next one (then `end` is the cut time and `to` where the node was).
/// From `end` until the next leg's `start` the node stays at `to`.
/// A leg with `speed_mps == 0` (an ns-2 `setdest … 0`) is a stop:
/// `end == start` and `to == from`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    pub start: SimTime,
    pub end: SimTime,
    pub from: Pos,
    pub to: Pos,
    /// Where the node was heading (the `setdest` destination).
    pub target: Pos,
    pub speed_mps: f64,
    /// Straight-line distance from `from` to `target`, computed once: every
    /// position inside the leg needs it.
    pub span_m: f64,
}

/// Travel time of `distance_m` at `speed_mps`, in whole nanoseconds, at
/// least 1 ns for a positive distance (so time always advances), saturating
/// at `SimTime::MAX` for absurdly slow legs.
pub fn travel_time(distance_m: f64, speed_mps: f64) -> SimTime {
    if !(distance_m > 0.0 && speed_mps > 0.0) {
        return 0;
    }
    from_secs(distance_m / speed_mps).max(1)
}

/// The distance from `from` to `target` as [`Leg::position`] uses it.
fn span(from: Pos, target: Pos) -> f64 {
    let dx = target.x - from.x;
    let dy = target.y - from.y;
    (dx * dx + dy * dy).sqrt()
}

/// Where a leg from `from` along `heading` (its target minus `from`, of
/// length `span_m`) at `speed_mps` is `dt` after its start (uncut). The one
/// place this arithmetic is written: [`Leg::position`] and the mobility
/// cache both call it, so they give the same bits.
#[inline]
pub(crate) fn along(from: Pos, heading: Pos, speed_mps: f64, span_nm: f64, dt: SimTime) -> Pos {
    if span_nm == 0.0 {
        return from;
    }
    // Metres times nanoseconds over nanometres: one division, no split of
    // `dt` into seconds. Through i64 (exact: far below 2^53), as u64 → f64
    // costs a branch on x86-64. Exact whenever the products are (a leg of
    // 150 m at 10 m/s is a third of the way at 5 s, to the bit).
    let frac = (speed_mps * dt as i64 as f64 / span_nm).min(1.0);
    Pos::new(from.x + heading.x * frac, from.y + heading.y * frac)
}

/// A leg's length in nanometres, as [`along`] takes it (0 for a leg going
/// nowhere).
#[inline]
pub(crate) fn span_nm(span_m: f64) -> f64 {
    span_m * 1e9
}

impl Leg {
    /// ns-2's `setdest`: at `start`, from `from`, head for `target` at
    /// `speed_mps` (≥ 0; 0 means stop where you are).
    pub fn toward(start: SimTime, from: Pos, target: Pos, speed_mps: f64) -> Leg {
        let moving = speed_mps > 0.0;
        let end = if moving {
            start.saturating_add(travel_time(from.distance(&target), speed_mps))
        } else {
            start
        };
        Leg {
            start,
            end,
            from,
            to: if moving { target } else { from },
            target,
            speed_mps,
            span_m: span(from, target),
        }
    }

    /// A node standing at `at` from `start` on.
    pub const fn still(start: SimTime, at: Pos) -> Leg {
        Leg {
            start,
            end: start,
            from: at,
            to: at,
            target: at,
            speed_mps: 0.0,
            span_m: 0.0,
        }
    }

    /// The position at `t`: `from` before the leg, `to` after it.
    #[inline]
    pub fn position(&self, t: SimTime) -> Pos {
        if t <= self.start {
            return self.from;
        }
        if t >= self.end {
            return self.to;
        }
        self.along(t - self.start)
    }

    /// The point `dt` after `start` on the way to `target` (uncut).
    #[inline]
    fn along(&self, dt: SimTime) -> Pos {
        let heading = Pos::new(self.target.x - self.from.x, self.target.y - self.from.y);
        along(self.from, heading, self.speed_mps, span_nm(self.span_m), dt)
    }

    /// The way from `from` to `target`, as a vector.
    pub(crate) fn heading(&self) -> Pos {
        Pos::new(self.target.x - self.from.x, self.target.y - self.from.y)
    }

    /// The instantaneous speed at `t` (0 outside `[start, end)`).
    #[inline]
    pub fn speed_at(&self, t: SimTime) -> f64 {
        if t >= self.start && t < self.end {
            self.speed_mps
        } else {
            0.0
        }
    }

    /// Ends the leg at `at` if it is still under way then (a new `setdest`
    /// redirects the node from where it is).
    pub fn cut(&mut self, at: SimTime) {
        if at < self.end {
            let at = at.max(self.start);
            self.to = self.position(at);
            self.end = at;
        }
    }

    /// True when the node actually moves during the leg.
    pub fn moves(&self) -> bool {
        self.end > self.start && self.from != self.to
    }
}

/// A node's whole trajectory when every leg is known up front, with a cursor
/// that makes lookups at non-decreasing times O(1) amortised.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    initial: Pos,
    legs: Vec<Leg>,
    cursor: usize,
    max_speed_mps: f64,
}

impl Trajectory {
    /// A node that starts at `initial` and has no legs yet.
    pub fn new(initial: Pos) -> Self {
        Self {
            initial,
            legs: Vec::new(),
            cursor: 0,
            max_speed_mps: 0.0,
        }
    }

    /// Applies `setdest target speed` at time `t`. Commands must be given in
    /// non-decreasing time order (callers sort them, stably). A command that
    /// arrives while the node is moving cuts the current leg short and the
    /// node heads for the new target from where it is.
    pub fn setdest(&mut self, t: SimTime, target: Pos, speed_mps: f64) {
        let from = match self.legs.last_mut() {
            Some(last) => {
                debug_assert!(t >= last.start, "commands out of order");
                let here = last.position(t);
                last.cut(t);
                here
            }
            None => self.initial,
        };
        let leg = Leg::toward(t, from, target, speed_mps);
        if leg.moves() {
            self.max_speed_mps = self.max_speed_mps.max(speed_mps);
        }
        self.legs.push(leg);
    }

    /// Where the node is before its first leg.
    pub fn initial(&self) -> Pos {
        self.initial
    }

    /// All legs, in start order.
    pub fn legs(&self) -> &[Leg] {
        &self.legs
    }

    /// The fastest speed of any leg that moves (0 for a node that never moves).
    pub fn max_speed_mps(&self) -> f64 {
        self.max_speed_mps
    }

    /// The leg in force at `t` (the last one that started at or before `t`).
    #[inline]
    fn leg_at(&mut self, t: SimTime) -> Option<&Leg> {
        let first = self.legs.first()?;
        if t < first.start {
            return None;
        }
        if self.legs[self.cursor].start > t {
            // An earlier time than the last query: binary search.
            self.cursor = self.legs.partition_point(|l| l.start <= t) - 1;
        } else {
            while self.cursor + 1 < self.legs.len() && self.legs[self.cursor + 1].start <= t {
                self.cursor += 1;
            }
        }
        Some(&self.legs[self.cursor])
    }

    /// The leg that gives the position at `t` (a still one at the initial
    /// position before the first leg) and the times `[from, until)` over
    /// which it does: until the next leg starts.
    pub(crate) fn leg_in_force(&mut self, t: SimTime) -> (SimTime, SimTime, Leg) {
        let first_start = self.legs.first().map_or(SimTime::MAX, |l| l.start);
        if t < first_start {
            return (0, first_start, Leg::still(0, self.initial));
        }
        let leg = *self.leg_at(t).expect("t is past the first leg's start");
        let until = self
            .legs
            .get(self.cursor + 1)
            .map_or(SimTime::MAX, |l| l.start);
        (leg.start, until, leg)
    }

    /// The position at `t`.
    #[inline]
    pub fn position(&mut self, t: SimTime) -> Pos {
        let initial = self.initial;
        self.leg_at(t).map_or(initial, |l| l.position(t))
    }

    /// The instantaneous speed at `t`.
    pub fn speed_at(&mut self, t: SimTime) -> f64 {
        self.leg_at(t).map_or(0.0, |l| l.speed_at(t))
    }

    /// The legs that start before `until`.
    pub fn legs_until(&self, until: SimTime) -> Vec<Leg> {
        let n = self.legs.partition_point(|l| l.start < until);
        self.legs[..n].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    const S: SimTime = NS_PER_S;

    fn close(a: Pos, b: Pos) -> bool {
        (a.x - b.x).abs() < 1e-9 && (a.y - b.y).abs() < 1e-9
    }

    #[test]
    fn a_leg_by_hand() {
        // 3-4-5 triangle: 50 m at 10 m/s takes 5 s.
        let leg = Leg::toward(2 * S, Pos::new(0.0, 0.0), Pos::new(30.0, 40.0), 10.0);
        assert_eq!(leg.end, 7 * S);
        assert_eq!(leg.position(0), Pos::new(0.0, 0.0));
        assert_eq!(leg.position(2 * S), Pos::new(0.0, 0.0));
        assert!(close(leg.position(3 * S), Pos::new(6.0, 8.0)));
        assert!(close(leg.position(4 * S + S / 2), Pos::new(15.0, 20.0)));
        assert_eq!(leg.position(7 * S), Pos::new(30.0, 40.0));
        assert_eq!(leg.position(100 * S), Pos::new(30.0, 40.0));
        assert_eq!(leg.speed_at(3 * S), 10.0);
        assert_eq!(leg.speed_at(7 * S), 0.0);
    }

    #[test]
    fn stops_and_zero_length_legs_do_not_move() {
        let p = Pos::new(5.0, 5.0);
        let stop = Leg::toward(S, p, Pos::new(9.0, 9.0), 0.0);
        assert_eq!((stop.start, stop.end, stop.to), (S, S, p));
        assert!(!stop.moves());
        let still = Leg::toward(S, p, p, 3.0);
        assert_eq!(still.end, S);
        assert_eq!(still.position(10 * S), p);
    }

    #[test]
    fn travel_time_is_at_least_a_nanosecond_and_saturates() {
        assert_eq!(travel_time(1e-12, 20.0), 1);
        assert_eq!(travel_time(0.0, 20.0), 0);
        assert_eq!(travel_time(1e300, 1e-300), SimTime::MAX);
        let leg = Leg::toward(5, Pos::new(0.0, 0.0), Pos::new(1e300, 0.0), 1e-300);
        assert_eq!(leg.end, SimTime::MAX);
    }

    #[test]
    fn a_redirect_turns_from_the_current_position() {
        let mut tr = Trajectory::new(Pos::new(0.0, 0.0));
        tr.setdest(0, Pos::new(100.0, 0.0), 10.0); // arrives at 10 s
        tr.setdest(4 * S, Pos::new(40.0, 30.0), 5.0); // at (40, 0) at 4 s: 30 m north, 6 s
        let legs = tr.legs();
        assert_eq!(legs[0].end, 4 * S);
        assert!(close(legs[0].to, Pos::new(40.0, 0.0)));
        assert_eq!(legs[1].end, 10 * S);
        assert!(close(tr.position(2 * S), Pos::new(20.0, 0.0)));
        assert!(close(tr.position(7 * S), Pos::new(40.0, 15.0)));
        assert!(close(tr.position(60 * S), Pos::new(40.0, 30.0)));
        // Earlier times after later ones are still right.
        assert!(close(tr.position(S), Pos::new(10.0, 0.0)));
        assert_eq!(tr.speed_at(S), 10.0);
        assert_eq!(tr.speed_at(5 * S), 5.0);
        assert_eq!(tr.speed_at(11 * S), 0.0);
        assert_eq!(tr.max_speed_mps(), 10.0);
        assert_eq!(tr.legs_until(4 * S).len(), 1);
        assert_eq!(tr.legs_until(4 * S + 1).len(), 2);
    }

    #[test]
    fn before_the_first_leg_the_node_is_at_its_initial_position() {
        let mut tr = Trajectory::new(Pos::new(1.0, 2.0));
        assert_eq!(tr.position(5 * S), Pos::new(1.0, 2.0));
        tr.setdest(10 * S, Pos::new(1.0, 12.0), 1.0);
        assert_eq!(tr.position(5 * S), Pos::new(1.0, 2.0));
        assert!(close(tr.position(15 * S), Pos::new(1.0, 7.0)));
        assert_eq!(tr.position(9 * S), Pos::new(1.0, 2.0));
    }
}
