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
//! Members move together, each within `group_radius_m` of its group's centre
//! unless the edge of the area pushed it in. Every leg is worked out when
//! the run starts (each member's legs as many as its reference point's), so
//! the trajectories are plain [`Trajectory`]s, and `manetsim convert` writes
//! them as any other.

use super::random_waypoint::{legs_drawn, RwpParams};
use super::Trajectory;
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
