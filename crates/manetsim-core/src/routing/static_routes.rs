//! Static routing: shortest-hop routes computed once, by breadth-first
//! search over the links of the initial topology. No control packets; a
//! broken link is never repaired. Useful for MAC and transport studies and as
//! the baseline before a routing protocol.

use crate::engine::SimTime;
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, RoutingCtx, RoutingProtocol};
use std::collections::VecDeque;
use std::rc::Rc;

/// Shortest-hop next-hop tables, one per destination that some flow uses,
/// computed by breadth-first search over the links of the initial topology.
/// Ties between equal-length paths go to the lowest neighbour id.
#[derive(Debug, Clone)]
pub struct StaticRoutes {
    /// `dests[k]` is a destination; `next[k][n]` the next hop from `n` (or `NONE`).
    dests: Vec<NodeId>,
    next: Vec<Vec<NodeId>>,
    hops: Vec<Vec<u32>>,
}

const NONE: NodeId = NodeId::MAX;

impl StaticRoutes {
    /// `neighbours[n]`: nodes that receive `n`'s frames (sorted ascending).
    /// Links are taken as symmetric, as they are with one power and threshold.
    pub fn compute(neighbours: &[Vec<NodeId>], destinations: &[NodeId]) -> Self {
        let n = neighbours.len();
        let mut dests: Vec<NodeId> = destinations.to_vec();
        dests.sort_unstable();
        dests.dedup();
        let mut next = Vec::with_capacity(dests.len());
        let mut hops = Vec::with_capacity(dests.len());
        for &d in &dests {
            let mut nh = vec![NONE; n];
            let mut dist = vec![u32::MAX; n];
            let mut queue = VecDeque::new();
            dist[d as usize] = 0;
            nh[d as usize] = d;
            queue.push_back(d);
            while let Some(u) = queue.pop_front() {
                for &v in &neighbours[u as usize] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        nh[v as usize] = u;
                        queue.push_back(v);
                    }
                }
            }
            next.push(nh);
            hops.push(dist);
        }
        Self { dests, next, hops }
    }

    pub fn next_hop(&self, from: NodeId, dst: NodeId) -> Option<NodeId> {
        let k = self.dests.binary_search(&dst).ok()?;
        let h = self.next[k][from as usize];
        (h != NONE && from != dst).then_some(h)
    }

    /// Hop count of the static route, if any.
    pub fn hop_count(&self, from: NodeId, dst: NodeId) -> Option<u32> {
        let k = self.dests.binary_search(&dst).ok()?;
        let h = self.hops[k][from as usize];
        (h != u32::MAX).then_some(h)
    }
}

/// Node `me`'s static routing agent: a view of the shared tables.
#[derive(Debug, Clone)]
pub struct StaticRouting {
    me: NodeId,
    table: Rc<StaticRoutes>,
}

impl StaticRouting {
    pub fn new(me: NodeId, table: Rc<StaticRoutes>) -> Self {
        Self { me, table }
    }
}

impl RoutingProtocol for StaticRouting {
    fn name(&self) -> &'static str {
        "static"
    }

    fn route_output(&mut self, _now: SimTime, packet: Packet, ctx: &mut RoutingCtx) {
        match self.table.next_hop(ctx.me, packet.dst) {
            Some(h) => ctx.send(packet, h),
            None => ctx.drop_packet(packet, DropReason::NoRoute),
        }
    }

    fn hop_count(&self, dst: NodeId, _now: SimTime) -> Option<u32> {
        self.table.hop_count(self.me, dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Vec<Vec<NodeId>> {
        (0..n)
            .map(|i| {
                let mut v = Vec::new();
                if i > 0 {
                    v.push(i as NodeId - 1);
                }
                if i + 1 < n {
                    v.push(i as NodeId + 1);
                }
                v
            })
            .collect()
    }

    #[test]
    fn chain_routes_step_one_hop_at_a_time() {
        let t = StaticRoutes::compute(&chain(6), &[5, 0]);
        assert_eq!(t.next_hop(0, 5), Some(1));
        assert_eq!(t.next_hop(4, 5), Some(5));
        assert_eq!(t.next_hop(5, 0), Some(4));
        assert_eq!(t.hop_count(0, 5), Some(5));
        assert_eq!(t.next_hop(5, 5), None);
        assert_eq!(t.next_hop(0, 3), None, "3 is not a flow destination");
    }

    #[test]
    fn each_nodes_agent_reports_its_own_hop_count() {
        let t = Rc::new(StaticRoutes::compute(&chain(6), &[5, 0]));
        let at = |me: NodeId, dst: NodeId| StaticRouting::new(me, Rc::clone(&t)).hop_count(dst, 0);
        assert_eq!((at(0, 5), at(3, 5), at(5, 0)), (Some(5), Some(2), Some(5)));
        assert_eq!(at(0, 3), None, "3 is not a flow destination");
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let mut g = chain(3);
        g.push(Vec::new());
        let t = StaticRoutes::compute(&g, &[3]);
        assert_eq!(t.next_hop(0, 3), None);
        assert_eq!(t.hop_count(0, 3), None);
    }

    #[test]
    fn ties_go_to_lowest_id() {
        // 0 - {1, 2} - 3 (diamond).
        let g = vec![vec![1, 2], vec![0, 3], vec![0, 3], vec![1, 2]];
        let t = StaticRoutes::compute(&g, &[3, 0]);
        assert_eq!(t.next_hop(0, 3), Some(1));
        assert_eq!(t.next_hop(3, 0), Some(1));
    }
}
