//! Routing table calculation (RFC 3626 section 10): shortest hop-count
//! routes over the symmetric neighbours, the 2-hop set and the topology
//! set, recomputed from scratch whenever one of them changes.

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
    routes: BTreeMap<NodeId, Route>,
}

impl RoutingTable {
    /// RFC 3626 section 10. `neighbors`: symmetric neighbours with their
    /// willingness; `two_hop`: (neighbour, node) pairs; `topology`:
    /// (last, dest) pairs. Ties go to the lowest address (inputs sorted).
    pub fn compute(
        me: NodeId,
        neighbors: &BTreeMap<NodeId, u8>,
        two_hop: &[(NodeId, NodeId)],
        topology: &[(NodeId, NodeId)],
    ) -> Self {
        let mut routes = BTreeMap::new();
        // Step 2: every symmetric neighbour, one hop.
        for &n in neighbors.keys() {
            routes.insert(
                n,
                Route {
                    next_hop: n,
                    hops: 1,
                },
            );
        }
        // Step 3: 2-hop neighbours through a neighbour that forwards.
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
        // Step 4: extend by the topology set, one hop count at a time.
        let mut h = 2;
        loop {
            let mut added = Vec::new();
            for &(last, dest) in topology {
                if dest == me || routes.contains_key(&dest) {
                    continue;
                }
                if let Some(r) = routes.get(&last).filter(|r| r.hops == h) {
                    if !added.iter().any(|&(d, _)| d == dest) {
                        added.push((
                            dest,
                            Route {
                                next_hop: r.next_hop,
                                hops: h + 1,
                            },
                        ));
                    }
                }
            }
            if added.is_empty() {
                break;
            }
            routes.extend(added);
            h += 1;
        }
        Self { routes }
    }

    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst)
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
