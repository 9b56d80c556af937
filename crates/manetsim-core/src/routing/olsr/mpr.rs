//! MPR selection: the heuristic of RFC 3626 section 8.3.1.
//!
//! A pure function of the symmetric neighbourhood (with willingness) and
//! the 2-hop set, so it is tested on hand-made neighbourhoods. Where the
//! RFC's tie-breaks (willingness, then reachability, then degree D(y)) still
//! leave a choice, the lowest address wins, so the result is deterministic.
//! The optional redundancy pass (the RFC's step 5) runs too.

use super::link_set::{WILL_ALWAYS, WILL_NEVER};
use crate::net::NodeId;
use std::collections::{BTreeMap, BTreeSet};

/// Selects the MPR set of node `me` (RFC 3626 section 8.3.1).
///
/// `neighbors`: the symmetric 1-hop neighbours and their willingness.
/// `two_hop`: (neighbour, node) pairs from the 2-hop set; pairs whose
/// neighbour is not in `neighbors` are ignored.
pub fn select_mprs(
    me: NodeId,
    neighbors: &BTreeMap<NodeId, u8>,
    two_hop: &[(NodeId, NodeId)],
) -> BTreeSet<NodeId> {
    // Candidates: symmetric neighbours that will forward.
    let will = |n: NodeId| neighbors.get(&n).copied().unwrap_or(WILL_NEVER);
    // Who covers what: candidate → strict 2-hop nodes it reaches.
    let mut covers: BTreeMap<NodeId, BTreeSet<NodeId>> = BTreeMap::new();
    // D(y): y's symmetric neighbours other than `me` and members of N.
    let mut degree: BTreeMap<NodeId, usize> = BTreeMap::new();
    for &(nb, th) in two_hop {
        if !neighbors.contains_key(&nb) || th == me || neighbors.contains_key(&th) {
            continue;
        }
        *degree.entry(nb).or_default() += 1;
        if will(nb) != WILL_NEVER {
            covers.entry(nb).or_default().insert(th);
        }
    }
    // N2: the 2-hop nodes some candidate reaches.
    let mut uncovered: BTreeSet<NodeId> = covers.values().flatten().copied().collect();
    let all_n2 = uncovered.clone();
    let mut mprs: BTreeSet<NodeId> = BTreeSet::new();

    // Step 1: every WILL_ALWAYS neighbour.
    for (&n, &w) in neighbors {
        if w == WILL_ALWAYS {
            mprs.insert(n);
        }
    }
    // Step 3: the only providers of some 2-hop node.
    for &th in &all_n2 {
        let providers: Vec<NodeId> = covers
            .iter()
            .filter(|(_, c)| c.contains(&th))
            .map(|(&n, _)| n)
            .collect();
        if let [only] = providers[..] {
            mprs.insert(only);
        }
    }
    let cover = |mprs: &BTreeSet<NodeId>, uncovered: &mut BTreeSet<NodeId>| {
        for m in mprs {
            if let Some(c) = covers.get(m) {
                for th in c {
                    uncovered.remove(th);
                }
            }
        }
    };
    cover(&mprs, &mut uncovered);

    // Step 4: highest willingness, then reachability, then D(y).
    while !uncovered.is_empty() {
        let best = covers
            .iter()
            .filter(|(n, _)| !mprs.contains(n))
            .map(|(&n, c)| {
                let reach = c.intersection(&uncovered).count();
                (n, reach)
            })
            .filter(|&(_, reach)| reach > 0)
            .max_by(|&(a, ra), &(b, rb)| {
                (will(a), ra, degree.get(&a).copied().unwrap_or(0))
                    .cmp(&(will(b), rb, degree.get(&b).copied().unwrap_or(0)))
                    // Equal on all three: the lower address wins.
                    .then(b.cmp(&a))
            });
        let Some((n, _)) = best else {
            break; // cannot happen: every node of N2 has a provider
        };
        mprs.insert(n);
        cover(&mprs, &mut uncovered);
    }

    // Step 5: drop MPRs whose 2-hop nodes others cover, lowest
    // willingness first (then lowest address); never WILL_ALWAYS.
    let mut order: Vec<NodeId> = mprs.iter().copied().collect();
    order.sort_by_key(|&n| (will(n), n));
    for n in order {
        if will(n) == WILL_ALWAYS {
            continue;
        }
        let mut rest = mprs.clone();
        rest.remove(&n);
        let mut left = all_n2.clone();
        cover(&rest, &mut left);
        if left.is_empty() {
            mprs = rest;
        }
    }
    mprs
}
