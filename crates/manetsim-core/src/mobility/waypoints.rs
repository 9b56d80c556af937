//! Scripted moves (`model = "waypoints"`, `[[mobility.moves]]`).
//!
//! Each move `{node, at_s, to, speed_mps}` is an ns-2 `setdest` issued at
//! `at_s`: the node heads in a straight line for `to` at `speed_mps`, then
//! stays there. Moves may be listed in any order; each node's moves apply in
//! time order. A move that starts before the node's previous move has
//! arrived takes over from wherever the node is at that instant (as a
//! `setdest` does in ns-2). Nodes without moves stay at their placement.

use crate::engine::from_secs;
use crate::phy::Pos;
use crate::scenario::Move;

use super::trajectory::Trajectory;

/// One trajectory per node, starting from `initial` (the placement).
pub fn build(initial: &[Pos], moves: &[Move]) -> Vec<Trajectory> {
    let mut nodes: Vec<Trajectory> = initial.iter().map(|&p| Trajectory::new(p)).collect();
    let mut order: Vec<&Move> = moves
        .iter()
        .filter(|m| (m.node as usize) < nodes.len())
        .collect();
    order.sort_by(|a, b| a.at_s.total_cmp(&b.at_s)); // stable: listing order within a time
    for m in order {
        nodes[m.node as usize].setdest(from_secs(m.at_s), Pos::new(m.to[0], m.to[1]), m.speed_mps);
    }
    nodes
}

/// `(later, earlier)` pairs of move indices where move `later` starts before
/// move `earlier` (same node) has arrived, with the arrival time in seconds.
pub fn takeovers(initial: &[Pos], moves: &[Move]) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    let mut order: Vec<usize> = (0..moves.len())
        .filter(|&i| (moves[i].node as usize) < initial.len())
        .collect();
    order.sort_by(|&a, &b| moves[a].at_s.total_cmp(&moves[b].at_s));
    let mut last: Vec<Option<(usize, Trajectory)>> = vec![None; initial.len()];
    for i in order {
        let m = &moves[i];
        let n = m.node as usize;
        let t = from_secs(m.at_s);
        let mut tr = match last[n].take() {
            Some((prev, tr)) => {
                if let Some(leg) = tr.legs().last() {
                    if t < leg.end {
                        out.push((i, prev, crate::engine::to_secs(leg.end)));
                    }
                }
                tr
            }
            None => Trajectory::new(initial[n]),
        };
        tr.setdest(t, Pos::new(m.to[0], m.to[1]), m.speed_mps);
        last[n] = Some((i, tr));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    fn mv(node: u32, at_s: f64, to: [f64; 2], speed_mps: f64) -> Move {
        Move {
            node,
            at_s,
            to,
            speed_mps,
        }
    }

    #[test]
    fn scripted_positions_by_hand() {
        // Node 1 starts at (200, 0); at 50 s it heads north to (200, 150) at
        // 10 m/s (15 s), and at 250 s comes back at 10 m/s.
        let initial = [Pos::new(0.0, 0.0), Pos::new(200.0, 0.0)];
        let moves = [
            mv(1, 250.0, [200.0, 0.0], 10.0),
            mv(1, 50.0, [200.0, 150.0], 10.0),
        ];
        let mut nodes = build(&initial, &moves);
        let at = |s: f64| from_secs(s);
        assert_eq!(nodes[1].position(at(49.0)), Pos::new(200.0, 0.0));
        assert_eq!(nodes[1].position(at(55.0)), Pos::new(200.0, 50.0));
        assert_eq!(nodes[1].position(at(65.0)), Pos::new(200.0, 150.0));
        assert_eq!(nodes[1].position(at(200.0)), Pos::new(200.0, 150.0));
        assert_eq!(nodes[1].position(at(257.5)), Pos::new(200.0, 75.0));
        assert_eq!(nodes[1].position(at(300.0)), Pos::new(200.0, 0.0));
        assert_eq!(nodes[0].position(at(300.0)), Pos::new(0.0, 0.0));
        assert!(takeovers(&initial, &moves).is_empty());
    }

    #[test]
    fn a_move_before_arrival_takes_over_from_the_current_position() {
        let initial = [Pos::new(0.0, 0.0)];
        let moves = [
            mv(0, 0.0, [100.0, 0.0], 10.0),  // would arrive at 10 s
            mv(0, 5.0, [50.0, 100.0], 10.0), // at (50, 0) at 5 s: 100 m north
        ];
        let mut nodes = build(&initial, &moves);
        assert_eq!(nodes[0].position(5 * NS_PER_S), Pos::new(50.0, 0.0));
        assert_eq!(nodes[0].position(10 * NS_PER_S), Pos::new(50.0, 50.0));
        assert_eq!(nodes[0].position(20 * NS_PER_S), Pos::new(50.0, 100.0));
        assert_eq!(takeovers(&initial, &moves), vec![(1, 0, 10.0)]);
    }
}
