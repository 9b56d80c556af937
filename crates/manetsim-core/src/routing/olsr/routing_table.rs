//! Routing table calculation (RFC 3626 section 10): shortest hop-count
//! routes over the symmetric neighbours, the 2-hop set and the topology
//! set, recomputed from scratch whenever one of them changes: a
//! breadth-first search from the 2-hop nodes over what each node
//! advertises, with the RFC's tie-breaks (checked against the RFC's
//! wording, hop count by hop count, in the tests).

use super::link_set::WILL_NEVER;
use crate::net::NodeId;
use std::collections::BTreeMap;

/// A route: the first hop and the distance in hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub next_hop: NodeId,
    pub hops: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoutingTable {
    /// By destination, sorted, one entry each.
    routes: Vec<(NodeId, Route)>,
}

/// A set of node addresses, one bit each.
#[derive(Default)]
struct NodeBits(Vec<u64>);

impl NodeBits {
    /// Adds `n`; returns whether it was new.
    fn insert(&mut self, n: NodeId) -> bool {
        let (w, b) = (n as usize / 64, 1u64 << (n % 64));
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        let new = self.0[w] & b == 0;
        self.0[w] |= b;
        new
    }
}

impl RoutingTable {
    /// RFC 3626 section 10. `neighbors`: symmetric neighbours with their
    /// willingness; `two_hop`: (neighbour, node) pairs, by neighbour; `topology`:
    /// (last, dest) pairs. Ties go to the lowest address (inputs sorted).
    pub fn compute(
        me: NodeId,
        neighbors: &BTreeMap<NodeId, u8>,
        two_hop: &[(NodeId, NodeId)],
        topology: &[(NodeId, NodeId)],
    ) -> Self {
        Self::compute_with(me, neighbors, two_hop, |last| {
            let from = topology.partition_point(|&(l, _)| l < last);
            topology[from..]
                .iter()
                .take_while(move |&&(l, _)| l == last)
                .map(|&(_, d)| d)
        })
    }

    /// [`Self::compute`] with the topology set given as what each node
    /// advertises (`advertised(last)`, sorted).
    pub fn compute_with<I: Iterator<Item = NodeId>>(
        me: NodeId,
        neighbors: &BTreeMap<NodeId, u8>,
        two_hop: &[(NodeId, NodeId)],
        advertised: impl Fn(NodeId) -> I,
    ) -> Self {
        let mut known = NodeBits::default();
        known.insert(me);
        // Step 2: every symmetric neighbour, one hop.
        let mut routes: Vec<(NodeId, Route)> = Vec::with_capacity(neighbors.len());
        for &n in neighbors.keys() {
            known.insert(n);
            routes.push((
                n,
                Route {
                    next_hop: n,
                    hops: 1,
                },
            ));
        }
        // Step 3: 2-hop neighbours through a neighbour that forwards; the
        // pairs come sorted, so the lowest such neighbour wins.
        // Both sorted by neighbour: walked side by side.
        debug_assert!(two_hop.is_sorted_by_key(|&(nb, _)| nb));
        let mut frontier: Vec<(NodeId, NodeId)> = Vec::new();
        let mut nbs = neighbors.iter().peekable();
        for &(nb, th) in two_hop {
            while nbs.next_if(|&(&n, _)| n < nb).is_some() {}
            let forwards = nbs
                .peek()
                .is_some_and(|&(&n, &w)| n == nb && w != WILL_NEVER);
            if forwards && known.insert(th) {
                frontier.push((th, nb));
            }
        }
        // Step 4: extend by the topology set, one hop count at a time: from
        // each node h hops away (the frontier, by address) to the nodes it
        // advertises. A destination goes to the first such link in the
        // set's order, so the lowest last hop wins.
        let mut h = 2;
        let mut next = Vec::new();
        while !frontier.is_empty() {
            frontier.sort_unstable();
            for &(last, via) in &frontier {
                routes.push((
                    last,
                    Route {
                        next_hop: via,
                        hops: h,
                    },
                ));
                for dest in advertised(last) {
                    if known.insert(dest) {
                        next.push((dest, via));
                    }
                }
            }
            std::mem::swap(&mut frontier, &mut next);
            next.clear();
            h += 1;
        }
        routes.sort_unstable_by_key(|&(d, _)| d);
        Self { routes }
    }

    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes
            .binary_search_by_key(&dst, |&(d, _)| d)
            .ok()
            .map(|i| &self.routes[i].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &Route)> + '_ {
        self.routes.iter().map(|(d, r)| (*d, r))
    }

    pub fn len(&self) -> usize {
        self.routes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;
    use std::collections::BTreeSet;

    /// Section 10 as the RFC words it, with maps: the reference that the
    /// table above must match.
    fn by_the_rfc(
        me: NodeId,
        neighbors: &BTreeMap<NodeId, u8>,
        two_hop: &[(NodeId, NodeId)],
        topology: &[(NodeId, NodeId)],
    ) -> Vec<(NodeId, Route)> {
        let mut routes = BTreeMap::new();
        for &n in neighbors.keys() {
            routes.insert(
                n,
                Route {
                    next_hop: n,
                    hops: 1,
                },
            );
        }
        for &(nb, th) in two_hop {
            let forwards = neighbors.get(&nb).is_some_and(|&w| w != WILL_NEVER);
            if th != me && forwards && !routes.contains_key(&th) {
                routes.insert(
                    th,
                    Route {
                        next_hop: nb,
                        hops: 2,
                    },
                );
            }
        }
        for h in 2.. {
            let mut added: BTreeMap<NodeId, Route> = BTreeMap::new();
            for &(last, dest) in topology {
                if dest == me || routes.contains_key(&dest) || added.contains_key(&dest) {
                    continue;
                }
                if let Some(r) = routes.get(&last).filter(|r| r.hops == h) {
                    added.insert(
                        dest,
                        Route {
                            next_hop: r.next_hop,
                            hops: h + 1,
                        },
                    );
                }
            }
            if added.is_empty() {
                break;
            }
            routes.extend(added);
        }
        routes.into_iter().collect()
    }

    #[test]
    fn matches_the_rfc_on_random_topologies() {
        let mut rng = Rng::from_seed(7);
        for case in 0..500 {
            let nodes = 2 + rng.below(150) as NodeId;
            let me = rng.below(u64::from(nodes)) as NodeId;
            let pick = |rng: &mut Rng, k: u64| -> BTreeSet<(NodeId, NodeId)> {
                (0..rng.below(k))
                    .map(|_| {
                        (
                            rng.below(u64::from(nodes)) as NodeId,
                            rng.below(u64::from(nodes)) as NodeId,
                        )
                    })
                    .collect()
            };
            let neighbors: BTreeMap<NodeId, u8> = (0..rng.below(12))
                .map(|_| rng.below(u64::from(nodes)) as NodeId)
                .filter(|&n| n != me)
                .map(|n| (n, if n % 5 == 0 { WILL_NEVER } else { 3 }))
                .collect();
            let two: Vec<_> = pick(&mut rng, 40).into_iter().collect();
            let topo: Vec<_> = pick(&mut rng, 400).into_iter().collect();
            let t = RoutingTable::compute(me, &neighbors, &two, &topo);
            let want = by_the_rfc(me, &neighbors, &two, &topo);
            assert_eq!(t.routes, want, "case {case}");
            for &(d, r) in &want {
                assert_eq!(t.get(d), Some(&r));
            }
        }
    }
}
