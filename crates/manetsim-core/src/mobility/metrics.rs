//! Mobility metrics over time, as pure functions of sampled positions:
//! average speed, average node degree, and link up/down events between
//! consecutive samples; plus the instantaneous average speed from the
//! trajectories themselves.
//!
//! A link is an unordered pair of nodes at most `range_m` apart (distance
//! only: the caller picks the range, e.g. the 250 m receive range). Pairs are
//! found through a uniform grid of cell `range_m`, so the cost grows with
//! the number of neighbours, not with the square of the number of nodes.

use std::collections::HashMap;

use crate::engine::SimTime;
use crate::phy::Pos;

use super::Mobility;

/// A link that came up or went down between two samples (`a < b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkEvent {
    pub a: u32,
    pub b: u32,
    /// True: the nodes came within range; false: they went out of range.
    pub up: bool,
}

/// One sample of [`series`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MobilitySample {
    pub t: SimTime,
    /// Mean instantaneous speed over all nodes (paused nodes count as 0).
    pub average_speed_mps: f64,
    /// Mean number of neighbours within range.
    pub average_degree: f64,
    /// Links that came up since the previous sample (0 for the first).
    pub links_up: usize,
    /// Links that went down since the previous sample (0 for the first).
    pub links_down: usize,
}

/// The nodes of one set of positions filed in a uniform grid of cell
/// `range_m`, to find each node's neighbours without looking at every pair.
struct PairIndex<'a> {
    positions: &'a [Pos],
    r2: f64,
    cell: f64,
    grid: HashMap<(i64, i64), Vec<u32>>,
}

impl<'a> PairIndex<'a> {
    /// `None` when no pair can exist (under two nodes, or a bad range).
    fn new(positions: &'a [Pos], range_m: f64) -> Option<Self> {
        if positions.len() < 2 || !range_m.is_finite() || range_m < 0.0 {
            return None;
        }
        let cell = if range_m > 0.0 { range_m } else { 1.0 };
        let mut index = Self {
            positions,
            r2: range_m * range_m,
            cell,
            grid: HashMap::new(),
        };
        for (i, p) in positions.iter().enumerate() {
            let k = index.key(p);
            index.grid.entry(k).or_default().push(i as u32);
        }
        Some(index)
    }

    fn key(&self, p: &Pos) -> (i64, i64) {
        (
            (p.x / self.cell).floor() as i64,
            (p.y / self.cell).floor() as i64,
        )
    }

    /// Sets `out` to node `i`'s neighbours numbered above `i`, sorted.
    fn neighbours_above(&self, i: usize, out: &mut Vec<u32>) {
        out.clear();
        let p = &self.positions[i];
        let (cx, cy) = self.key(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(cands) = self.grid.get(&(cx + dx, cy + dy)) else {
                    continue;
                };
                for &j in cands {
                    if (j as usize) <= i {
                        continue;
                    }
                    let q = &self.positions[j as usize];
                    let d2 = (p.x - q.x).powi(2) + (p.y - q.y).powi(2);
                    if d2 <= self.r2 {
                        out.push(j);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

/// Every pair `(a, b)`, `a < b`, at most `range_m` apart, sorted.
pub fn links(positions: &[Pos], range_m: f64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let Some(index) = PairIndex::new(positions, range_m) else {
        return out;
    };
    let mut near = Vec::new();
    for i in 0..positions.len() {
        index.neighbours_above(i, &mut near);
        out.extend(near.iter().map(|&j| (i as u32, j)));
    }
    out
}

/// The mean number of neighbours within `range_m` (0 for no nodes).
pub fn average_degree(positions: &[Pos], range_m: f64) -> f64 {
    if positions.is_empty() {
        return 0.0;
    }
    2.0 * links(positions, range_m).len() as f64 / positions.len() as f64
}

/// The mean speed between two samples `dt_s` apart: mean straight-line
/// displacement / `dt_s` (a lower bound on the mean distance travelled when
/// a node turns between the samples; use [`average_speed_at`] for the exact
/// instantaneous value). 0 for no nodes or `dt_s ≤ 0`.
pub fn average_speed(prev: &[Pos], cur: &[Pos], dt_s: f64) -> f64 {
    let n = prev.len().min(cur.len());
    if n == 0 || dt_s.is_nan() || dt_s <= 0.0 {
        return 0.0;
    }
    let total: f64 = prev.iter().zip(cur).map(|(a, b)| a.distance(b)).sum();
    total / n as f64 / dt_s
}

/// The links that came up and went down from `prev` to `cur` (positions of
/// the same nodes at two sample times), sorted by (a, b).
pub fn link_events(prev: &[Pos], cur: &[Pos], range_m: f64) -> Vec<LinkEvent> {
    diff(&links(prev, range_m), &links(cur, range_m))
}

/// Merges two sorted link lists into up/down events.
fn diff(before: &[(u32, u32)], after: &[(u32, u32)]) -> Vec<LinkEvent> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < after.len() {
        match (before.get(i), after.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(&(a, b)), Some(y)) if (a, b) < *y => {
                out.push(LinkEvent { a, b, up: false });
                i += 1;
            }
            (Some(&(a, b)), None) => {
                out.push(LinkEvent { a, b, up: false });
                i += 1;
            }
            (_, Some(&(a, b))) => {
                out.push(LinkEvent { a, b, up: true });
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// Every node's position at `t`.
pub fn positions_at(m: &mut Mobility, t: SimTime) -> Vec<Pos> {
    (0..m.len() as u32).map(|i| m.position(i, t)).collect()
}

/// The mean instantaneous speed over all nodes at `t`, from the
/// trajectories (paused nodes count as 0).
pub fn average_speed_at(m: &mut Mobility, t: SimTime) -> f64 {
    if m.is_empty() {
        return 0.0;
    }
    let total: f64 = (0..m.len() as u32).map(|i| m.speed_at(i, t)).sum();
    total / m.len() as f64
}

/// Speed, degree and link changes at each of `times` (non-decreasing).
///
/// Only the previous sample's positions are kept, not its link list: each
/// node's neighbour lists, before and now, are rebuilt and compared one
/// node at a time, so memory stays a few bytes per node even when the
/// network holds hundreds of thousands of links.
pub fn series(m: &mut Mobility, times: &[SimTime], range_m: f64) -> Vec<MobilitySample> {
    let mut out = Vec::with_capacity(times.len());
    let mut prev: Option<Vec<Pos>> = None;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for &t in times {
        let pos = positions_at(m, t);
        let now = PairIndex::new(&pos, range_m);
        let was = prev.as_deref().and_then(|p| PairIndex::new(p, range_m));
        let (mut links, mut up, mut down) = (0, 0, 0);
        for i in 0..pos.len() {
            after.clear();
            if let Some(now) = &now {
                now.neighbours_above(i, &mut after);
            }
            links += after.len();
            if prev.is_none() {
                continue;
            }
            before.clear();
            if let Some(was) = &was {
                was.neighbours_above(i, &mut before);
            }
            let (u, d) = count_changes(&before, &after);
            up += u;
            down += d;
        }
        out.push(MobilitySample {
            t,
            average_speed_mps: average_speed_at(m, t),
            average_degree: if pos.is_empty() {
                0.0
            } else {
                2.0 * links as f64 / pos.len() as f64
            },
            links_up: up,
            links_down: down,
        });
        prev = Some(pos);
    }
    out
}

/// How many entries of sorted `after` are not in sorted `before` (links
/// up), and the other way round (links down).
fn count_changes(before: &[u32], after: &[u32]) -> (usize, usize) {
    let (mut i, mut j, mut up, mut down) = (0, 0, 0, 0);
    while i < before.len() && j < after.len() {
        match before[i].cmp(&after[j]) {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                down += 1;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                up += 1;
                j += 1;
            }
        }
    }
    (up + after.len() - j, down + before.len() - i)
}

#[cfg(test)]
mod tests {
    use super::super::{NodeMobility, Trajectory};
    use super::*;
    use crate::engine::NS_PER_S;

    /// O(n²) reference.
    fn brute(ps: &[Pos], r: f64) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..ps.len() {
            for j in i + 1..ps.len() {
                if ps[i].distance(&ps[j]) <= r {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }

    #[test]
    fn links_match_the_brute_force_pairs() {
        let mut rng = crate::engine::Rng::new(1, crate::engine::Stream::Test, 0);
        let ps: Vec<Pos> = (0..400)
            .map(|_| Pos::new(rng.range(0.0, 2000.0), rng.range(0.0, 1000.0)))
            .collect();
        for r in [0.0, 50.0, 250.0, 5000.0] {
            assert_eq!(links(&ps, r), brute(&ps, r), "range {r}");
        }
    }

    #[test]
    fn a_chain_by_hand() {
        let chain: Vec<Pos> = (0..5)
            .map(|i| Pos::new(200.0 * f64::from(i), 0.0))
            .collect();
        assert_eq!(links(&chain, 250.0), vec![(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert!((average_degree(&chain, 250.0) - 1.6).abs() < 1e-12);
        // Node 4 walks away; node 0 comes next to node 2.
        let mut moved = chain.clone();
        moved[4] = Pos::new(1000.0, 0.0);
        moved[0] = Pos::new(400.0, 100.0);
        let ev = link_events(&chain, &moved, 250.0);
        assert_eq!(
            ev,
            vec![
                LinkEvent {
                    a: 0,
                    b: 2,
                    up: true
                },
                LinkEvent {
                    a: 0,
                    b: 3,
                    up: true
                },
                LinkEvent {
                    a: 3,
                    b: 4,
                    up: false
                },
            ]
        );
        let v = average_speed(&chain, &moved, 2.0);
        let expect = ((400f64.powi(2) + 100f64.powi(2)).sqrt() + 200.0) / 5.0 / 2.0;
        assert!((v - expect).abs() < 1e-12);
    }

    #[test]
    fn series_counts_speed_degree_and_changes() {
        let mut a = Trajectory::new(Pos::new(0.0, 0.0));
        a.setdest(0, Pos::new(1000.0, 0.0), 10.0); // leaves node 1 behind
        let b = Trajectory::new(Pos::new(100.0, 0.0));
        let mut m = Mobility::from_nodes(vec![
            NodeMobility::Trajectory(a),
            NodeMobility::Trajectory(b),
        ]);
        let times = [0, 10 * NS_PER_S, 40 * NS_PER_S, 200 * NS_PER_S];
        let s = series(&mut m, &times, 250.0);
        assert_eq!(s[0].average_degree, 1.0);
        assert_eq!(s[0].average_speed_mps, 5.0);
        assert_eq!((s[1].links_up, s[1].links_down), (0, 0));
        assert_eq!((s[2].links_up, s[2].links_down), (0, 1));
        assert_eq!(s[2].average_degree, 0.0);
        assert_eq!(s[3].average_speed_mps, 0.0);
    }

    #[test]
    fn series_agrees_with_link_events_on_random_moves() {
        let mut rng = crate::engine::Rng::new(9, crate::engine::Stream::Test, 0);
        let nodes = (0..80)
            .map(|_| {
                let mut t =
                    Trajectory::new(Pos::new(rng.uniform() * 1000.0, rng.uniform() * 1000.0));
                t.setdest(
                    0,
                    Pos::new(rng.uniform() * 1000.0, rng.uniform() * 1000.0),
                    5.0 + 20.0 * rng.uniform(),
                );
                NodeMobility::Trajectory(t)
            })
            .collect();
        let mut m = Mobility::from_nodes(nodes);
        let times: Vec<SimTime> = (0..30).map(|k| k * NS_PER_S).collect();
        let s = series(&mut m, &times, 180.0);
        for k in 0..times.len() {
            let cur = positions_at(&mut m, times[k]);
            assert_eq!(s[k].average_degree, average_degree(&cur, 180.0));
            if k > 0 {
                let prev = positions_at(&mut m, times[k - 1]);
                let ev = link_events(&prev, &cur, 180.0);
                let up = ev.iter().filter(|e| e.up).count();
                assert_eq!((s[k].links_up, s[k].links_down), (up, ev.len() - up));
            }
        }
        assert!(s.iter().map(|x| x.links_up + x.links_down).sum::<usize>() > 50);
    }
}
