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
/// `two_hop`: (neighbour, node) pairs from the 2-hop set, sorted; pairs
/// whose neighbour is not in `neighbors` are ignored.
///
/// The agent runs this whenever its neighbourhood changes, so it works on
/// indices and bit sets: neighbours by their rank in `neighbors`, the
/// strict 2-hop nodes (N2) by their rank among themselves.
pub fn select_mprs(
    me: NodeId,
    neighbors: &BTreeMap<NodeId, u8>,
    two_hop: &[(NodeId, NodeId)],
) -> BTreeSet<NodeId> {
    let nbs: Vec<(NodeId, u8)> = neighbors.iter().map(|(&n, &w)| (n, w)).collect();
    let rank = |n: NodeId| nbs.binary_search_by_key(&n, |&(a, _)| a).ok();
    // The pairs that count: through a neighbour, to a node that is
    // neither `me` nor a neighbour.
    let strict: Vec<(usize, NodeId)> = two_hop
        .iter()
        .filter(|&&(_, th)| th != me && rank(th).is_none())
        .filter_map(|&(nb, th)| rank(nb).map(|i| (i, th)))
        .collect();
    // D(y) counts every such pair; coverage only those of a neighbour
    // that will forward.
    let mut degree = vec![0usize; nbs.len()];
    for &(i, _) in &strict {
        degree[i] += 1;
    }
    let mut n2: Vec<NodeId> = strict
        .iter()
        .filter(|&&(i, _)| nbs[i].1 != WILL_NEVER)
        .map(|&(_, th)| th)
        .collect();
    n2.sort_unstable();
    n2.dedup();
    let words = n2.len().div_ceil(64).max(1);
    // covers[i * words..][..words]: the N2 nodes neighbour i reaches.
    let mut covers = vec![0u64; nbs.len() * words];
    for &(i, th) in &strict {
        if nbs[i].1 != WILL_NEVER {
            let j = n2.binary_search(&th).expect("in N2");
            covers[i * words + j / 64] |= 1 << (j % 64);
        }
    }
    let cover_of = |i: usize| &covers[i * words..(i + 1) * words];
    // How many chosen MPRs reach each N2 node.
    let mut count = vec![0u32; n2.len()];
    let mut chosen = vec![false; nbs.len()];
    let choose = |i: usize, chosen: &mut Vec<bool>, count: &mut Vec<u32>| {
        if !chosen[i] {
            chosen[i] = true;
            for_each_bit(cover_of(i), |j| count[j] += 1);
        }
    };
    // Step 1: every WILL_ALWAYS neighbour.
    for (i, &(_, w)) in nbs.iter().enumerate() {
        if w == WILL_ALWAYS {
            choose(i, &mut chosen, &mut count);
        }
    }
    // Step 3: the only provider of some N2 node.
    let mut providers = vec![0u32; n2.len()];
    let mut provider = vec![0usize; n2.len()];
    for i in 0..nbs.len() {
        for_each_bit(cover_of(i), |j| {
            providers[j] += 1;
            provider[j] = i;
        });
    }
    for j in 0..n2.len() {
        if providers[j] == 1 {
            choose(provider[j], &mut chosen, &mut count);
        }
    }
    // Step 4: highest willingness, then reachability, then D(y), then the
    // lower address, until every N2 node is reached.
    let mut uncovered = vec![0u64; words];
    for (j, &c) in count.iter().enumerate() {
        if c == 0 {
            uncovered[j / 64] |= 1 << (j % 64);
        }
    }
    while uncovered.iter().any(|&w| w != 0) {
        let mut best: Option<(u8, u32, usize, usize)> = None;
        for i in 0..nbs.len() {
            if chosen[i] {
                continue;
            }
            let reach: u32 = cover_of(i)
                .iter()
                .zip(&uncovered)
                .map(|(a, b)| (a & b).count_ones())
                .sum();
            if reach == 0 {
                continue;
            }
            let key = (nbs[i].1, reach, degree[i]);
            // Strictly better only: on a tie the lower address (seen
            // first) stays.
            if best.is_none_or(|(w, r, d, _)| key > (w, r, d)) {
                best = Some((key.0, key.1, key.2, i));
            }
        }
        let Some((.., i)) = best else {
            break; // cannot happen: every node of N2 has a provider
        };
        choose(i, &mut chosen, &mut count);
        for (u, c) in uncovered.iter_mut().zip(cover_of(i)) {
            *u &= !c;
        }
    }
    // Step 5: drop MPRs whose N2 nodes others reach too, lowest
    // willingness first (then lowest address); never WILL_ALWAYS.
    let mut order: Vec<usize> = (0..nbs.len()).filter(|&i| chosen[i]).collect();
    order.sort_by_key(|&i| (nbs[i].1, nbs[i].0));
    for i in order {
        if nbs[i].1 == WILL_ALWAYS {
            continue;
        }
        let mut needed = false;
        for_each_bit(cover_of(i), |j| needed |= count[j] < 2);
        if !needed {
            chosen[i] = false;
            for_each_bit(cover_of(i), |j| count[j] -= 1);
        }
    }
    (0..nbs.len())
        .filter(|&i| chosen[i])
        .map(|i| nbs[i].0)
        .collect()
}

/// Calls `f` with the index of every bit set in `words`.
fn for_each_bit(words: &[u64], mut f: impl FnMut(usize)) {
    for (k, &w) in words.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            f(k * 64 + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    /// The heuristic as the RFC words it, with maps and sets: the reference
    /// that [`select_mprs`] must match.
    ///
    /// `neighbors`: the symmetric 1-hop neighbours and their willingness.
    /// `two_hop`: (neighbour, node) pairs from the 2-hop set; pairs whose
    /// neighbour is not in `neighbors` are ignored.
    fn by_the_rfc(
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

    #[test]
    fn matches_the_rfc_wording_on_random_neighbourhoods() {
        let mut rng = Rng::from_seed(11);
        let wills = [WILL_NEVER, 1, 3, 3, 3, 6, WILL_ALWAYS];
        for case in 0..2000 {
            let nodes = 3 + rng.below(120) as NodeId;
            let me = rng.below(u64::from(nodes)) as NodeId;
            let neighbors: BTreeMap<NodeId, u8> = (0..rng.below(25))
                .map(|_| rng.below(u64::from(nodes)) as NodeId)
                .filter(|&n| n != me)
                .collect::<Vec<_>>()
                .into_iter()
                .map(|n| (n, wills[rng.below(wills.len() as u64) as usize]))
                .collect();
            let nb: Vec<NodeId> = neighbors.keys().copied().collect();
            let mut two: Vec<(NodeId, NodeId)> = (0..rng.below(300))
                .map(|_| {
                    // Mostly through real neighbours, sometimes not.
                    let via = if nb.is_empty() || rng.below(10) == 0 {
                        rng.below(u64::from(nodes)) as NodeId
                    } else {
                        nb[rng.below(nb.len() as u64) as usize]
                    };
                    (via, rng.below(u64::from(nodes)) as NodeId)
                })
                .collect();
            two.sort_unstable();
            two.dedup();
            assert_eq!(
                select_mprs(me, &neighbors, &two),
                by_the_rfc(me, &neighbors, &two),
                "case {case}"
            );
        }
    }
}
