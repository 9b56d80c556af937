//! The Manhattan grid (`model = "manhattan"`, added): nodes that keep to
//! the streets of a city grid, as in Bai, Sadagopan and Helmy's IMPORTANT
//! framework (INFOCOM 2003), Camp, Boleng and Davies's survey (2002) and
//! BonnMotion's `ManhattanGrid`.
//!
//! The area is cut into `blocks_x` × `blocks_y` equal blocks. Its streets
//! are the blocks' edges: `blocks_y + 1` horizontal ones at `y = j · height /
//! blocks_y` and `blocks_x + 1` vertical ones at `x = i · width / blocks_x`,
//! crossing at the intersections. Each node draws from its own stream
//! `Rng::new(seed, Stream::Mobility, node)`:
//!
//! - its start, uniform over the length of all streets (draws: the place
//!   along them, then the way along its street, either way alike);
//! - at each intersection (and for the way to the first one), a speed
//!   uniform in `[min_speed_mps, max_speed_mps)`, never 0, for the block
//!   ahead; then, on arrival, whether to go straight (probability ½), turn
//!   left (¼) or turn right (¼). A way that would leave the grid is not
//!   taken: the others share its probability in proportion (at the edge,
//!   straight ⅔ and the one turn ⅓; at a T facing the edge, either turn ½;
//!   at a corner, the one turn). A node never turns back.
//!
//! With [`StreetUpdates`] (BonnMotion's update distance, speed change and
//! pause), a node also draws every `update_m` metres of street, counted on
//! through the intersections but not drawn at one: with probability
//! `speed_change_prob` it takes a new speed, uniform as above, and with
//! `pause_prob` it stops for a time uniform in `[0, max_pause)` and then
//! takes one. Without them nodes never pause. Every leg is worked out as the
//! run starts, one a block and one more at each change, so the trajectories
//! are plain [`Trajectory`]s.

use super::random_waypoint::speed_between;
use super::{travel_time, Trajectory};
use crate::engine::{Rng, SimTime, Stream};
use crate::phy::Pos;

/// What the model needs besides the seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ManhattanParams {
    pub width_m: f64,
    pub height_m: f64,
    /// Blocks across the width and the height (each ≥ 1).
    pub blocks_x: u32,
    pub blocks_y: u32,
    pub min_speed_mps: f64,
    pub max_speed_mps: f64,
    /// Changes along the streets; `None`, one speed a block and no pause.
    pub updates: Option<StreetUpdates>,
}

/// BonnMotion's `ManhattanGrid` changes between intersections.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreetUpdates {
    /// Metres of street between two draws.
    pub update_m: f64,
    /// The chance of a new speed at a draw.
    pub speed_change_prob: f64,
    /// The chance of a pause (then a new speed) at a draw.
    pub pause_prob: f64,
    /// The longest pause.
    pub max_pause: SimTime,
}

/// The four ways along the streets, counter-clockwise from east.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    East,
    North,
    West,
    South,
}

impl Way {
    const ALL: [Way; 4] = [Way::East, Way::North, Way::West, Way::South];

    fn left(self) -> Way {
        Way::ALL[(self as usize + 1) % 4]
    }

    fn right(self) -> Way {
        Way::ALL[(self as usize + 3) % 4]
    }

    /// The step in intersection indices.
    fn step(self) -> (i64, i64) {
        match self {
            Way::East => (1, 0),
            Way::North => (0, 1),
            Way::West => (-1, 0),
            Way::South => (0, -1),
        }
    }
}

impl ManhattanParams {
    fn block_w(&self) -> f64 {
        self.width_m / f64::from(self.blocks_x)
    }

    fn block_h(&self) -> f64 {
        self.height_m / f64::from(self.blocks_y)
    }

    /// Where intersection `(i, j)` is.
    fn corner(&self, (i, j): (i64, i64)) -> Pos {
        // The last street lies exactly on the edge.
        let x = if i == i64::from(self.blocks_x) {
            self.width_m
        } else {
            i as f64 * self.block_w()
        };
        let y = if j == i64::from(self.blocks_y) {
            self.height_m
        } else {
            j as f64 * self.block_h()
        };
        Pos::new(x, y)
    }

    fn on_grid(&self, (i, j): (i64, i64)) -> bool {
        (0..=i64::from(self.blocks_x)).contains(&i) && (0..=i64::from(self.blocks_y)).contains(&j)
    }
}

/// A start uniform over the streets' length: the place, the way along its
/// street, and the first intersection ahead.
fn start(p: &ManhattanParams, rng: &mut Rng) -> (Pos, Way, (i64, i64)) {
    let across = f64::from(p.blocks_y + 1) * p.width_m;
    let up = f64::from(p.blocks_x + 1) * p.height_m;
    let u = rng.range(0.0, across + up);
    let forward = rng.uniform() < 0.5;
    // The intersection ahead of a place `d` along a street of `blocks`
    // blocks whose `k`-th intersection is at `at(k)`, and whether the way
    // there is up the street; a place on an intersection has it behind.
    let ahead = |d: f64, block: f64, blocks: u32, at: &dyn Fn(i64) -> f64| {
        let below = ((d / block) as i64).min(i64::from(blocks) - 1);
        if !forward && at(below) < d {
            (false, below)
        } else {
            (true, below + 1)
        }
    };
    if u < across {
        let j = ((u / p.width_m) as i64).min(i64::from(p.blocks_y));
        let x = (u - j as f64 * p.width_m).clamp(0.0, p.width_m);
        let (up, i) = ahead(x, p.block_w(), p.blocks_x, &|i| p.corner((i, j)).x);
        let way = if up { Way::East } else { Way::West };
        (Pos::new(x, p.corner((0, j)).y), way, (i, j))
    } else {
        let i = (((u - across) / p.height_m) as i64).min(i64::from(p.blocks_x));
        let y = (u - across - i as f64 * p.height_m).clamp(0.0, p.height_m);
        let (up, j) = ahead(y, p.block_h(), p.blocks_y, &|j| p.corner((i, j)).y);
        let way = if up { Way::North } else { Way::South };
        (Pos::new(p.corner((i, 0)).x, y), way, (i, j))
    }
}

/// The way out of intersection `at` for a node that came in going `way`.
fn turn(p: &ManhattanParams, at: (i64, i64), way: Way, rng: &mut Rng) -> Way {
    let open = |w: Way| {
        let (di, dj) = w.step();
        p.on_grid((at.0 + di, at.1 + dj))
    };
    let choices = [(way, 2.0), (way.left(), 1.0), (way.right(), 1.0)];
    let total: f64 = choices
        .iter()
        .filter(|(w, _)| open(*w))
        .map(|(_, weight)| weight)
        .sum();
    let mut u = rng.uniform() * total;
    let mut last = way;
    for (w, weight) in choices.into_iter().filter(|(w, _)| open(*w)) {
        if u < weight {
            return w;
        }
        u -= weight;
        last = w;
    }
    // Rounding left `u` at the total: the last open way.
    last
}

/// Every node's trajectory, with every leg that starts before `until`.
pub fn build(p: &ManhattanParams, seed: u64, count: u32, until: SimTime) -> Vec<Trajectory> {
    (0..count).map(|node| walk(p, seed, node, until)).collect()
}

/// Closer than this to an intersection, an update point is on it (and no
/// draw is made there).
const ON_CORNER_M: f64 = 1e-9;

fn walk(p: &ManhattanParams, seed: u64, node: u32, until: SimTime) -> Trajectory {
    let mut rng = Rng::new(seed, Stream::Mobility, u64::from(node));
    let (initial, mut way, mut next) = start(p, &mut rng);
    let mut tr = Trajectory::new(initial);
    let (mut t, mut from) = (0, initial);
    // Changes that can happen; with both chances 0 none is drawn, so the
    // walk is the one without them.
    let updates = p
        .updates
        .filter(|u| u.speed_change_prob + u.pause_prob > 0.0);
    // Metres of street to the next draw.
    let mut to_update = updates.map_or(0.0, |u| u.update_m);
    while t < until {
        let target = p.corner(next);
        let mut speed = speed_between(p.min_speed_mps, p.max_speed_mps, &mut rng);
        // The leg under way (its start) and the last place drawn at.
        let (mut leg_t, mut leg_from, mut at) = (t, from, from);
        if let Some(u) = updates {
            loop {
                let left = at.distance(&target);
                if to_update >= left - ON_CORNER_M {
                    to_update -= left;
                    if to_update <= ON_CORNER_M {
                        to_update = u.update_m;
                    }
                    break;
                }
                let f = to_update / left;
                at = Pos::new(at.x + (target.x - at.x) * f, at.y + (target.y - at.y) * f);
                to_update = u.update_m;
                let draw = rng.uniform();
                if draw >= u.speed_change_prob + u.pause_prob {
                    continue;
                }
                tr.setdest(leg_t, at, speed);
                leg_t += travel_time(leg_from.distance(&at), speed);
                leg_from = at;
                if draw >= u.speed_change_prob {
                    leg_t += (rng.uniform() * u.max_pause as f64) as SimTime;
                }
                speed = speed_between(p.min_speed_mps, p.max_speed_mps, &mut rng);
                if leg_t >= until {
                    return tr;
                }
            }
        }
        tr.setdest(leg_t, target, speed);
        t = leg_t + travel_time(leg_from.distance(&target), speed);
        from = target;
        way = turn(p, next, way, &mut rng);
        let (di, dj) = way.step();
        next = (next.0 + di, next.1 + dj);
    }
    tr
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::from_secs;

    fn params(blocks_x: u32, blocks_y: u32) -> ManhattanParams {
        ManhattanParams {
            width_m: 1000.0,
            height_m: 600.0,
            blocks_x,
            blocks_y,
            min_speed_mps: 2.0,
            max_speed_mps: 15.0,
            updates: None,
        }
    }

    fn on_a_street(p: &ManhattanParams, at: Pos) -> bool {
        let near = |v: f64, step: f64| {
            let k = (v / step).round();
            (v - k * step).abs() < 1e-6
        };
        (near(at.x, p.block_w()) || near(at.y, p.block_h()))
            && (0.0..=p.width_m).contains(&at.x)
            && (0.0..=p.height_m).contains(&at.y)
    }

    #[test]
    fn nodes_keep_to_the_streets() {
        let p = params(5, 3);
        let until = from_secs(1200.0);
        for mut tr in build(&p, 3, 30, until) {
            assert!(tr.max_speed_mps() < 15.0);
            for k in 0..=2400 {
                let at = tr.position(from_secs(f64::from(k) * 0.5));
                assert!(on_a_street(&p, at), "{at:?}");
            }
        }
    }

    #[test]
    fn nodes_turn_at_intersections_only_and_never_back() {
        let p = params(4, 4);
        for tr in build(&p, 8, 20, from_secs(2000.0)) {
            let legs = tr.legs();
            for pair in legs.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                // Each leg starts where the one before arrived: a corner.
                assert_eq!(b.from, a.to);
                assert_eq!(b.start, a.end);
                let ha = (a.to.x - a.from.x, a.to.y - a.from.y);
                let hb = (b.to.x - b.from.x, b.to.y - b.from.y);
                // Straight or a quarter turn; never reversed.
                assert!(ha.0 * hb.0 + ha.1 * hb.1 >= 0.0, "{a:?} then {b:?}");
            }
        }
    }

    #[test]
    fn inside_the_grid_a_node_goes_straight_half_the_time() {
        let p = params(6, 6);
        let mut rng = Rng::new(5, Stream::Test, 0);
        let n = 40_000;
        let mut counts = [0usize; 4];
        for _ in 0..n {
            counts[turn(&p, (3, 3), Way::East, &mut rng) as usize] += 1;
        }
        let share = |k: usize| counts[k] as f64 / n as f64;
        assert!((share(Way::East as usize) - 0.5).abs() < 0.01);
        assert!((share(Way::North as usize) - 0.25).abs() < 0.01);
        assert!((share(Way::South as usize) - 0.25).abs() < 0.01);
        assert_eq!(counts[Way::West as usize], 0);
        // On the bottom edge going east: straight 2/3, north 1/3.
        let mut north = 0;
        for _ in 0..n {
            north += usize::from(turn(&p, (3, 0), Way::East, &mut rng) == Way::North);
        }
        assert!((north as f64 / n as f64 - 1.0 / 3.0).abs() < 0.01);
        // Into a corner: the one turn.
        assert_eq!(turn(&p, (6, 6), Way::East, &mut rng), Way::South);
        assert_eq!(turn(&p, (0, 0), Way::South, &mut rng), Way::East);
    }

    #[test]
    fn starts_are_spread_over_the_streets_by_length() {
        // Two horizontal streets of 1,000 m and three vertical of 600 m:
        // 2,000 m of 3,800 m run across.
        let p = params(2, 1);
        let mut rng = Rng::new(1, Stream::Test, 0);
        let n = 40_000;
        let mut across = 0;
        for _ in 0..n {
            let (at, way, next) = start(&p, &mut rng);
            assert!(on_a_street(&p, at));
            let ahead = p.corner(next);
            match way {
                Way::East => assert!(ahead.x > at.x && ahead.y == at.y),
                Way::West => assert!(ahead.x < at.x && ahead.y == at.y),
                Way::North => assert!(ahead.y > at.y && ahead.x == at.x),
                Way::South => assert!(ahead.y < at.y && ahead.x == at.x),
            }
            across += usize::from(matches!(way, Way::East | Way::West));
        }
        let share = across as f64 / n as f64;
        assert!((share - 2000.0 / 3800.0).abs() < 0.01, "{share}");
    }

    #[test]
    fn speed_changes_and_pauses_come_at_their_rates_every_update_distance() {
        // Every 5 m of street, a new speed with probability 0.2, else a
        // pause of up to 10 s with 0.1. Over 40 nodes for 3,000 s the legs
        // show about 0.2 and 0.1 of the draws (the places 5 m apart that are
        // not intersections), pauses of 5 s on average, and the nodes on
        // the streets throughout.
        let updates = StreetUpdates {
            update_m: 5.0,
            speed_change_prob: 0.2,
            pause_prob: 0.1,
            max_pause: from_secs(10.0),
        };
        let p = ManhattanParams {
            updates: Some(updates),
            ..params(5, 3)
        };
        let until = from_secs(3000.0);
        let (mut metres, mut corners, mut changes, mut pauses) = (0.0, 0usize, 0usize, 0usize);
        let mut paused_s = 0.0;
        for mut tr in build(&p, 4, 40, until) {
            let legs = tr.legs().to_vec();
            for pair in legs.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                metres += a.from.distance(&a.to);
                let at_corner = (a.to.x / p.block_w()).fract().abs() < 1e-6
                    && (a.to.y / p.block_h()).fract().abs() < 1e-6;
                if at_corner {
                    corners += 1;
                } else if b.start > a.end {
                    pauses += 1;
                    paused_s += (b.start - a.end) as f64 / 1e9;
                } else {
                    changes += 1;
                }
            }
            for k in 0..=600 {
                let at = tr.position(from_secs(f64::from(k) * 5.0));
                assert!(on_a_street(&p, at), "{at:?}");
            }
        }
        // Draws: every 5 m but on the intersections (blocks of 200 m and
        // 200 m: 1 place in 40).
        let draws = metres / 5.0 - corners as f64 / 40.0;
        let (c, q) = (changes as f64 / draws, pauses as f64 / draws);
        assert!((c - 0.2).abs() < 0.01, "{c}");
        assert!((q - 0.1).abs() < 0.01, "{q}");
        let mean_pause_s = paused_s / pauses as f64;
        assert!((mean_pause_s - 5.0).abs() < 0.25, "{mean_pause_s}");
        // With both chances 0 nothing is drawn: the walks without updates.
        let still = ManhattanParams {
            updates: Some(StreetUpdates {
                speed_change_prob: 0.0,
                pause_prob: 0.0,
                ..updates
            }),
            ..params(5, 3)
        };
        assert_eq!(
            build(&still, 4, 5, until),
            build(&params(5, 3), 4, 5, until)
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_walks() {
        let p = params(3, 3);
        let until = from_secs(300.0);
        assert_eq!(build(&p, 2, 4, until), build(&p, 2, 4, until));
        assert_ne!(build(&p, 2, 4, until), build(&p, 3, 4, until));
        // A node's walk does not depend on how many others there are.
        assert_eq!(build(&p, 2, 4, until)[..2], build(&p, 2, 2, until)[..]);
    }
}
