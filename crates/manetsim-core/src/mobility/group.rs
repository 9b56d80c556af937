//! Reference point group mobility (`model = "rpgm"`, added): Hong, Gerla,
//! Pei and Chiang's model (MSWiM 1999), in the form Camp, Boleng and
//! Davies's survey (2002) and BonnMotion's `RPGM` give it.
//!
//! The nodes are split into `groups` groups of consecutive ids, as even as
//! can be (node `i` of `n` is in group `⌊i · groups / n⌋`). Each group has a
//! reference point, its logical centre, that walks as random waypoint does
//! (pause first; `min_speed_mps`, `max_speed_mps`, `pause_s`), drawn from
//! the group's own stream `Rng::new(seed, Stream::GroupMobility, group)`.
//! Each member keeps an offset from the reference point, uniform over the
//! disc of radius `group_radius_m` (draws: `u`, then the angle; the radius is
//! `R·√u`), from its own stream `Rng::new(seed, Stream::Mobility, node)`:
//!
//! - at time 0 the member is at the reference point plus its first offset;
//! - as the reference point sets off on each leg, the member draws a new
//!   offset, and moves in a straight line to where the reference point
//!   arrives plus that offset, arriving when the reference point does; it
//!   pauses while the reference point pauses;
//! - an offset moves towards its new draw by at most `max_speed_mps` times
//!   the leg's duration (it stops short on that line otherwise), so no member
//!   ever goes faster than twice `max_speed_mps` (the spatial grid needs a
//!   bound), and a short leg does not fling the members across the group;
//! - a position outside the area is moved to the nearest point of it.
//!
//! With `group_change_prob` (BonnMotion's `-c`), a member may move to
//! another group: on each of its legs (one for each of its group's moves and
//! pauses), every other group whose centre comes within `group_radius_m` of
//! it, in group order, is taken with that probability if it comes sooner than
//! one taken before; the member then joins the group it meets first, at a
//! time uniform over the first stretch it spends within the radius, keeping
//! its place relative to the new centre as its offset, and follows that
//! group from then on.
//!
//! Members move together, each within `group_radius_m` of its group's centre
//! unless the edge of the area pushed it in. Every leg is worked out when
//! the run starts (each member's legs as many as its reference point's), so
//! the trajectories are plain [`Trajectory`]s, and `manetsim convert` writes
//! them as any other.

use super::random_waypoint::{legs_drawn, RwpParams};
use super::{Leg, Trajectory};
use crate::engine::{to_secs, Rng, SimTime, Stream};
use crate::phy::Pos;
use std::f64::consts::TAU;

/// What the model needs besides the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupParams {
    /// The walk of every reference point (its `steady_state` unused).
    pub rwp: RwpParams,
    /// How many groups the nodes are split into (1 to the node count).
    pub groups: u32,
    /// The greatest distance of a member's offset from its reference point.
    pub radius_m: f64,
    /// The chance that a member joins another group whose centre comes
    /// within `radius_m` of it (0: members never change groups).
    pub change_prob: f64,
}

/// The group of node `node` of `count` split into `groups`.
pub fn group_of(node: u32, count: u32, groups: u32) -> u32 {
    debug_assert!(node < count && (1..=count).contains(&groups));
    u32::try_from(u64::from(node) * u64::from(groups) / u64::from(count))
        .expect("a group below `groups`")
}

/// An offset uniform over the disc of radius `radius_m`.
fn offset_in_disc(radius_m: f64, rng: &mut Rng) -> Pos {
    let r = radius_m * rng.uniform().sqrt();
    let angle = rng.range(0.0, TAU);
    Pos::new(r * angle.cos(), r * angle.sin())
}

/// `at` moved by `by` times `k`.
fn shifted(at: Pos, by: Pos, k: f64) -> Pos {
    Pos::new(at.x + by.x * k, at.y + by.y * k)
}

/// The nearest point of the area to `p`.
fn inside(p: &GroupParams, at: Pos) -> Pos {
    Pos::new(
        at.x.clamp(0.0, p.rwp.width_m),
        at.y.clamp(0.0, p.rwp.height_m),
    )
}

/// Every node's trajectory, with every leg that starts before `until`.
pub fn build(p: &GroupParams, seed: u64, count: u32, until: SimTime) -> Vec<Trajectory> {
    let centres: Vec<_> = (0..p.groups)
        .map(|g| {
            let mut rng = Rng::new(seed, Stream::GroupMobility, u64::from(g));
            legs_drawn(&p.rwp, &mut rng, until)
        })
        .collect();
    (0..count)
        .map(|node| {
            if p.change_prob > 0.0 {
                return member_changing_groups(p, &centres, seed, node, count, until);
            }
            let legs = &centres[group_of(node, count, p.groups) as usize];
            let mut rng = Rng::new(seed, Stream::Mobility, u64::from(node));
            let mut offset = offset_in_disc(p.radius_m, &mut rng);
            let Some(first) = legs.first() else {
                // No leg before `until`: the member stays put. (A walk
                // always has a first leg; an `until` of 0 asks for none.)
                return Trajectory::new(Pos::new(0.0, 0.0));
            };
            let mut tr = Trajectory::new(inside(p, shifted(first.from, offset, 1.0)));
            for leg in legs {
                let drawn = offset_in_disc(p.radius_m, &mut rng);
                let span_s = to_secs(leg.end - leg.start);
                let step = Pos::new(drawn.x - offset.x, drawn.y - offset.y);
                let most_m = p.rwp.max_speed_mps * span_s;
                let length_m = step.x.hypot(step.y);
                offset = if length_m > most_m {
                    shifted(offset, step, most_m / length_m)
                } else {
                    drawn
                };
                let here = tr.position(leg.start);
                let target = inside(p, shifted(leg.to, offset, 1.0));
                let distance_m = here.distance(&target);
                if span_s > 0.0 && distance_m > 0.0 {
                    tr.setdest(leg.start, target, distance_m / span_s);
                }
            }
            tr
        })
        .collect()
}

/// Where a reference point of legs `legs` is at `t`.
fn centre_at(legs: &[Leg], t: SimTime) -> Pos {
    match legs.partition_point(|l| l.start <= t) {
        0 => legs.first().map_or(Pos::new(0.0, 0.0), |l| l.from),
        i => legs[i - 1].position(t),
    }
}

/// The first time after `t` that a reference point of legs `legs` changes
/// course: the end of the leg it is on, else the start of its next leg;
/// `None` after its last.
fn next_change(legs: &[Leg], t: SimTime) -> Option<SimTime> {
    let i = legs.partition_point(|l| l.start <= t);
    match i.checked_sub(1).map(|k| legs[k].end) {
        Some(end) if end > t => Some(end),
        _ => legs.get(i).map(|l| l.start),
    }
}

/// The first stretch of `[t0, t1]` in which a member going straight from
/// `a` (at `t0`) to `b` (at `t1`) is within `radius_m` of the reference
/// point of legs `legs`.
fn within_radius(
    legs: &[Leg],
    radius_m: f64,
    (t0, a): (SimTime, Pos),
    (t1, b): (SimTime, Pos),
) -> Option<(SimTime, SimTime)> {
    // The reference point goes straight between its changes of course.
    let mut times = vec![t0];
    for l in legs.iter().skip(legs.partition_point(|l| l.end <= t0)) {
        if l.start >= t1 {
            break;
        }
        times.extend([l.start, l.end].into_iter().filter(|&x| x > t0 && x < t1));
    }
    times.push(t1);
    let member = |t: SimTime| {
        let f = (t - t0) as f64 / (t1 - t0) as f64;
        Pos::new(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
    };
    let gap = |t: SimTime| {
        let (m, c) = (member(t), centre_at(legs, t));
        Pos::new(m.x - c.x, m.y - c.y)
    };
    let mut enter = None;
    for pair in times.windows(2) {
        let (ta, tb) = (pair[0], pair[1]);
        if tb <= ta {
            continue;
        }
        // |d + e·s| ≤ r for s in [0, 1], d and e the gap's start and change.
        let (d, end) = (gap(ta), gap(tb));
        let e = Pos::new(end.x - d.x, end.y - d.y);
        let qa = e.x * e.x + e.y * e.y;
        let qb = 2.0 * (d.x * e.x + d.y * e.y);
        let qc = d.x * d.x + d.y * d.y - radius_m * radius_m;
        let (s1, s2) = if qa == 0.0 {
            if qc <= 0.0 {
                (0.0, 1.0)
            } else {
                (1.0, 0.0)
            }
        } else {
            let disc = qb * qb - 4.0 * qa * qc;
            if disc < 0.0 {
                (1.0, 0.0)
            } else {
                let root = disc.sqrt();
                ((-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa))
            }
        };
        let (lo, hi) = (s1.max(0.0), s2.min(1.0));
        let at = |s: f64| ta + ((tb - ta) as f64 * s) as SimTime;
        match enter {
            None if lo <= hi => {
                enter = Some(at(lo));
                if hi < 1.0 {
                    return Some((at(lo), at(hi)));
                }
            }
            Some(start) if !(lo <= hi && lo <= 0.0) => return Some((start, ta)),
            Some(start) if hi < 1.0 => return Some((start, at(hi))),
            _ => {}
        }
    }
    enter.map(|start| (start, t1))
}

/// A member's trajectory when it may change groups
/// ([`GroupParams::change_prob`]).
fn member_changing_groups(
    p: &GroupParams,
    centres: &[Vec<Leg>],
    seed: u64,
    node: u32,
    count: u32,
    until: SimTime,
) -> Trajectory {
    let mut rng = Rng::new(seed, Stream::Mobility, u64::from(node));
    let mut group = group_of(node, count, p.groups) as usize;
    let mut offset = offset_in_disc(p.radius_m, &mut rng);
    let Some(first) = centres[group].first() else {
        return Trajectory::new(Pos::new(0.0, 0.0));
    };
    let mut here = inside(p, shifted(first.from, offset, 1.0));
    let mut tr = Trajectory::new(here);
    let mut t: SimTime = 0;
    while t < until {
        let legs = &centres[group];
        let Some(next) = next_change(legs, t) else {
            break;
        };
        let centre_next = centre_at(legs, next);
        if centre_at(legs, t) != centre_next {
            // A new offset as the reference point sets off, as above.
            let drawn = offset_in_disc(p.radius_m, &mut rng);
            let step = Pos::new(drawn.x - offset.x, drawn.y - offset.y);
            let most_m = p.rwp.max_speed_mps * to_secs(next - t);
            let length_m = step.x.hypot(step.y);
            offset = if length_m > most_m {
                shifted(offset, step, most_m / length_m)
            } else {
                drawn
            };
        }
        let target = inside(p, shifted(centre_next, offset, 1.0));
        // The groups met on the way, the first taken.
        let mut taken: Option<(usize, SimTime, SimTime)> = None;
        for (other, other_legs) in centres.iter().enumerate() {
            if other == group {
                continue;
            }
            if let Some((enter, leave)) =
                within_radius(other_legs, p.radius_m, (t, here), (next, target))
            {
                if taken.is_none_or(|(_, e, _)| enter < e) && rng.uniform() < p.change_prob {
                    taken = Some((other, enter, leave));
                }
            }
        }
        let speed = here.distance(&target) / to_secs(next - t);
        if let Some((other, enter, leave)) = taken {
            let at_t = enter + (rng.uniform() * (leave - enter) as f64) as SimTime;
            if at_t > t {
                let f = (at_t - t) as f64 / (next - t) as f64;
                let at = Pos::new(
                    here.x + (target.x - here.x) * f,
                    here.y + (target.y - here.y) * f,
                );
                if speed > 0.0 {
                    tr.setdest(t, at, speed);
                }
                let centre = centre_at(&centres[other], at_t);
                offset = Pos::new(at.x - centre.x, at.y - centre.y);
                group = other;
                (t, here) = (at_t, at);
                continue;
            }
        }
        if speed > 0.0 && here.distance(&target) > 0.0 {
            tr.setdest(t, target, speed);
        }
        (t, here) = (next, target);
    }
    tr
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::from_secs;

    fn params(groups: u32, radius_m: f64) -> GroupParams {
        GroupParams {
            rwp: RwpParams {
                width_m: 1000.0,
                height_m: 800.0,
                min_speed_mps: 1.0,
                max_speed_mps: 10.0,
                pause: from_secs(5.0),
                steady_state: false,
            },
            groups,
            radius_m,
            change_prob: 0.0,
        }
    }

    #[test]
    fn nodes_split_into_consecutive_groups_as_even_as_can_be() {
        let of: Vec<u32> = (0..10).map(|i| group_of(i, 10, 3)).collect();
        assert_eq!(of, [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert!((0..7).all(|i| group_of(i, 7, 1) == 0));
        assert!((0..7).all(|i| group_of(i, 7, 7) == i));
    }

    #[test]
    fn offsets_fill_the_disc_evenly() {
        let mut rng = Rng::new(3, Stream::Test, 0);
        let n = 40_000;
        let (mut inner, mut right) = (0, 0);
        for _ in 0..n {
            let o = offset_in_disc(50.0, &mut rng);
            let r = o.x.hypot(o.y);
            assert!(r <= 50.0);
            inner += usize::from(r < 25.0);
            right += usize::from(o.x > 0.0);
        }
        // A quarter of the area lies within half the radius; half of it
        // to the right.
        let share = |k: usize| k as f64 / n as f64;
        assert!((share(inner) - 0.25).abs() < 0.01, "{}", share(inner));
        assert!((share(right) - 0.5).abs() < 0.01, "{}", share(right));
    }

    /// The reference point of `group`, replayed by hand.
    fn centre_legs(
        p: &GroupParams,
        seed: u64,
        group: u32,
        until: SimTime,
    ) -> Vec<super::super::Leg> {
        let mut rng = Rng::new(seed, Stream::GroupMobility, u64::from(group));
        legs_drawn(&p.rwp, &mut rng, until)
    }

    #[test]
    fn members_stay_within_the_radius_of_their_reference_point() {
        let p = params(3, 40.0);
        let until = from_secs(600.0);
        let mut nodes = build(&p, 9, 12, until);
        let centres: Vec<_> = (0..3).map(|g| centre_legs(&p, 9, g, until)).collect();
        let mut moved = 0.0_f64;
        for node in 0..12u32 {
            let mut centre = Trajectory::new(centres[group_of(node, 12, 3) as usize][0].from);
            for leg in &centres[group_of(node, 12, 3) as usize] {
                centre.setdest(leg.start, leg.target, leg.speed_mps);
            }
            let tr = &mut nodes[node as usize];
            assert!(tr.max_speed_mps() <= 2.0 * p.rwp.max_speed_mps + 1e-9);
            let start = tr.position(0);
            for k in 0..=6000 {
                let t = from_secs(f64::from(k) * 0.1);
                let (at, c) = (tr.position(t), centre.position(t));
                // Rounding each leg's arrival to the nanosecond moves a
                // member by well under a millimetre.
                assert!(at.distance(&c) <= 40.0 + 1e-3, "node {node} at {t}");
                assert!((0.0..=1000.0).contains(&at.x) && (0.0..=800.0).contains(&at.y));
            }
            moved = moved.max(start.distance(&tr.position(until)));
        }
        assert!(moved > 100.0, "the groups went nowhere: {moved} m");
    }

    #[test]
    fn members_arrive_with_their_reference_point_and_pause_with_it() {
        let p = params(1, 30.0);
        let until = from_secs(300.0);
        let centre = centre_legs(&p, 4, 0, until);
        let mut nodes = build(&p, 4, 5, until);
        for tr in &mut nodes {
            for leg in &centre {
                // Still through the reference point's pause.
                let arrived = tr.position(leg.end + 1);
                let later = tr.position(leg.end + p.rwp.pause - 1);
                assert!(arrived.distance(&later) < 1e-6);
                assert!(tr.speed_at(leg.end + p.rwp.pause / 2) == 0.0);
            }
        }
        // Members of one group move apart from each other as they go.
        let d0 = nodes[0].position(0).distance(&nodes[1].position(0));
        let d1 = nodes[0].position(until).distance(&nodes[1].position(until));
        assert!(d0 != d1);
    }

    #[test]
    fn a_short_leg_moves_an_offset_no_faster_than_the_top_speed() {
        // A radius far above what a leg lets the offset move.
        let p = params(2, 400.0);
        let until = from_secs(900.0);
        for tr in build(&p, 11, 8, until) {
            assert!(tr.max_speed_mps() <= 2.0 * p.rwp.max_speed_mps + 1e-9);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_trajectories_and_groups_do_not_share_walks() {
        let p = params(2, 25.0);
        let until = from_secs(200.0);
        assert_eq!(build(&p, 5, 6, until), build(&p, 5, 6, until));
        assert_ne!(build(&p, 5, 6, until), build(&p, 6, 6, until));
        let (a, b) = (centre_legs(&p, 5, 0, until), centre_legs(&p, 5, 1, until));
        assert_ne!(a[0].from, b[0].from);
    }

    /// Every group's reference point as a trajectory.
    fn centre_trajectories(p: &GroupParams, seed: u64, until: SimTime) -> Vec<Trajectory> {
        (0..p.groups)
            .map(|g| {
                let legs = centre_legs(p, seed, g, until);
                let mut centre = Trajectory::new(legs[0].from);
                for leg in &legs {
                    centre.setdest(leg.start, leg.target, leg.speed_mps);
                }
                centre
            })
            .collect()
    }

    #[test]
    fn members_that_change_groups_keep_within_the_radius_of_some_centre() {
        // Four groups of radius 60 m in 1,000 × 800 m for 1,200 s, a member
        // taking every group it meets: each member stays within the radius
        // of some centre throughout, goes at most twice the top speed, and
        // some end up far from the centre they started with.
        let p = GroupParams {
            change_prob: 1.0,
            ..params(4, 60.0)
        };
        let until = from_secs(1200.0);
        let mut centres = centre_trajectories(&p, 21, until);
        let mut strayed = 0;
        for (node, mut tr) in build(&p, 21, 16, until).into_iter().enumerate() {
            assert!(tr.max_speed_mps() <= 2.0 * p.rwp.max_speed_mps + 1e-6);
            let own = group_of(node as u32, 16, 4) as usize;
            let mut away = false;
            for k in 0..=2400 {
                let t = from_secs(f64::from(k) * 0.5);
                let at = tr.position(t);
                let nearest = centres
                    .iter_mut()
                    .map(|c| c.position(t).distance(&at))
                    .fold(f64::INFINITY, f64::min);
                assert!(nearest <= 60.0 + 1e-3, "node {node} at {t}: {nearest} m");
                away |= centres[own].position(t).distance(&at) > 120.0 + 1e-3;
            }
            strayed += usize::from(away);
        }
        assert!(strayed >= 4, "{strayed} of 16 members left their group");
        // A chance of 0 is the model without changes.
        let still = GroupParams {
            change_prob: 0.0,
            ..p
        };
        assert_eq!(
            build(&still, 21, 16, until),
            build(&params(4, 60.0), 21, 16, until)
        );
    }

    #[test]
    fn the_first_stretch_within_the_radius_is_found_on_a_moving_centre() {
        // A centre going east at 10 m/s from (0, 0) for 100 s, and a member
        // going west from (1,000, 30) to (0, 30) over the same 100 s: they
        // pass at 50 s, within 50 m from 48 s to 52 s (the gap closes at
        // 20 m/s, and 40 m of it are within the radius on either side).
        let centre = vec![Leg::toward(
            0,
            Pos::new(0.0, 0.0),
            Pos::new(1000.0, 0.0),
            10.0,
        )];
        let (enter, leave) = within_radius(
            &centre,
            50.0,
            (0, Pos::new(1000.0, 30.0)),
            (from_secs(100.0), Pos::new(0.0, 30.0)),
        )
        .expect("they meet");
        assert!((to_secs(enter) - 48.0).abs() < 1e-6, "{enter}");
        assert!((to_secs(leave) - 52.0).abs() < 1e-6, "{leave}");
        // 60 m apart at closest: never within 50 m.
        let far = within_radius(
            &centre,
            50.0,
            (0, Pos::new(1000.0, 60.0)),
            (from_secs(100.0), Pos::new(0.0, 60.0)),
        );
        assert_eq!(far, None);
        // Within the radius at the start and still at the end.
        let along = within_radius(
            &centre,
            50.0,
            (0, Pos::new(0.0, 10.0)),
            (from_secs(100.0), Pos::new(1000.0, 10.0)),
        );
        assert_eq!(along, Some((0, from_secs(100.0))));
    }

    #[test]
    fn a_radius_of_zero_puts_every_member_on_the_reference_point() {
        let p = params(1, 0.0);
        let until = from_secs(120.0);
        let centre = centre_legs(&p, 2, 0, until);
        for mut tr in build(&p, 2, 3, until) {
            assert_eq!(tr.position(0), centre[0].from);
            for leg in &centre {
                assert!(tr.position(leg.end).distance(&leg.to) < 1e-3);
            }
        }
    }
}
