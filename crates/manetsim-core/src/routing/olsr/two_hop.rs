//! The 2-hop neighbour set (RFC 3626 sections 4.3.2 and 8.2): which
//! symmetric neighbour reaches which node two hops away, learnt from the
//! neighbours' HELLOs.
//!
//! Kept per neighbour, as the topology set is per originator: a HELLO
//! renews all of its sender's tuples at once, so they are stored together,
//! sorted by 2-hop address, and the expiry index has one entry per
//! neighbour (the soonest of its tuples' times). A map keyed by pair with
//! an index entry per pair cost three tree operations for each address of
//! each HELLO heard.

use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Default)]
pub struct TwoHopSet {
    /// N_neighbor_main_addr → its tuples.
    by_nb: BTreeMap<NodeId, Tuples>,
    /// (soonest N_time of the neighbour's tuples, neighbour).
    by_time: BTreeSet<(SimTime, NodeId)>,
    /// Bumped whenever a pair appears or goes.
    generation: u64,
    len: usize,
}

/// One neighbour's tuples: (N_2hop_addr, N_time), sorted by address, never
/// empty while in the set.
#[derive(Debug, Clone, Default)]
struct Tuples {
    list: Vec<(NodeId, SimTime)>,
    /// The soonest N_time of `list`: the neighbour's key in `by_time`.
    soonest: SimTime,
}

impl Tuples {
    fn soonest(&self) -> SimTime {
        self.list
            .iter()
            .map(|&(_, t)| t)
            .min()
            .unwrap_or(SimTime::MAX)
    }
}

impl TwoHopSet {
    /// Records that `nb` has `two_hop` as a symmetric neighbour until `until`.
    pub fn insert(&mut self, nb: NodeId, two_hop: NodeId, until: SimTime) {
        self.insert_all(nb, [two_hop], until);
    }

    /// Records that `nb` has each of `two_hops` as a symmetric neighbour
    /// until `until`: one HELLO block.
    pub fn insert_all(
        &mut self,
        nb: NodeId,
        two_hops: impl IntoIterator<Item = NodeId>,
        until: SimTime,
    ) {
        let t = self.by_nb.entry(nb).or_default();
        let old_soonest = (!t.list.is_empty()).then_some(t.soonest);
        for a in two_hops {
            match t.list.binary_search_by_key(&a, |&(x, _)| x) {
                Ok(i) => t.list[i].1 = until,
                Err(i) => {
                    t.list.insert(i, (a, until));
                    self.len += 1;
                    self.generation += 1;
                }
            }
        }
        if t.list.is_empty() {
            self.by_nb.remove(&nb);
            return;
        }
        self.reindex(nb, old_soonest);
    }

    /// `nb` no longer lists `two_hop` as a symmetric neighbour.
    pub fn remove(&mut self, nb: NodeId, two_hop: NodeId) {
        self.remove_all(nb, [two_hop]);
    }

    /// `nb` no longer lists any of `two_hops` as a symmetric neighbour.
    pub fn remove_all(&mut self, nb: NodeId, two_hops: impl IntoIterator<Item = NodeId>) {
        let Some(t) = self.by_nb.get_mut(&nb) else {
            return;
        };
        let old_soonest = t.soonest;
        for a in two_hops {
            if let Ok(i) = t.list.binary_search_by_key(&a, |&(x, _)| x) {
                t.list.remove(i);
                self.len -= 1;
                self.generation += 1;
            }
        }
        if t.list.is_empty() {
            self.by_nb.remove(&nb);
            self.by_time.remove(&(old_soonest, nb));
            return;
        }
        self.reindex(nb, Some(old_soonest));
    }

    /// `nb`'s tuples changed, and their soonest time was `old_soonest`
    /// (`None`: `nb` was not indexed): its index entry follows.
    fn reindex(&mut self, nb: NodeId, old_soonest: Option<SimTime>) {
        let t = self.by_nb.get_mut(&nb).expect("non-empty");
        let soonest = t.soonest();
        if old_soonest != Some(soonest) {
            if let Some(s) = old_soonest {
                self.by_time.remove(&(s, nb));
            }
            self.by_time.insert((soonest, nb));
            t.soonest = soonest;
        }
    }

    /// Forgets everything learnt through `nb` (its link went away or is no
    /// longer symmetric).
    pub fn remove_neighbor(&mut self, nb: NodeId) {
        if let Some(t) = self.by_nb.remove(&nb) {
            self.by_time.remove(&(t.soonest, nb));
            self.len -= t.list.len();
            self.generation += 1;
        }
    }

    /// Removes the tuples whose time has come (`N_time <= now`); returns
    /// whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        let mut any = false;
        while let Some(&(soonest, nb)) = self.by_time.first() {
            if soonest > now {
                break;
            }
            self.by_time.pop_first();
            let t = self.by_nb.get_mut(&nb).expect("indexed");
            let count = t.list.len();
            t.list.retain(|&(_, until)| until > now);
            self.len -= count - t.list.len();
            any = true;
            if t.list.is_empty() {
                self.by_nb.remove(&nb);
            } else {
                t.soonest = t.soonest();
                self.by_time.insert((t.soonest, nb));
            }
        }
        if any {
            self.generation += 1;
        }
        any
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.by_time.first().map(|&(t, _)| t)
    }

    /// Changes whenever a pair appears or goes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// (neighbour, 2-hop node) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.by_nb
            .iter()
            .flat_map(|(&nb, t)| t.list.iter().map(move |&(a, _)| (nb, a)))
    }

    /// N_time of the pair, if held.
    pub fn get(&self, nb: NodeId, two_hop: NodeId) -> Option<SimTime> {
        let list = &self.by_nb.get(&nb)?.list;
        list.binary_search_by_key(&two_hop, |&(a, _)| a)
            .ok()
            .map(|i| list[i].1)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::timed_map::TimedMap;
    use super::*;

    #[test]
    fn random_hellos_removals_and_expiries_leave_the_set_a_timed_map_leaves() {
        let mut rng = crate::engine::Rng::new(8, crate::engine::Stream::Test, 2);
        let mut pick = |n: f64| (rng.uniform() * n) as u32;
        for round in 0..200 {
            let mut set = TwoHopSet::default();
            // One tuple per pair, each with its own time: the RFC's shape.
            let mut reference: TimedMap<(NodeId, NodeId), SimTime> = TimedMap::default();
            let mut now: SimTime = 0;
            for _ in 0..300 {
                now += SimTime::from(pick(3.0));
                let keys: Vec<_> = set.iter().collect();
                let g = set.generation();
                let (nb, a) = (pick(6.0), pick(10.0));
                match pick(10.0) {
                    0 => {
                        set.expire(now);
                        reference.expire(now);
                    }
                    1 => {
                        set.remove_neighbor(nb);
                        let gone: Vec<_> = reference
                            .keys()
                            .filter(|&&(n, _)| n == nb)
                            .copied()
                            .collect();
                        for k in gone {
                            reference.remove(&k);
                        }
                    }
                    2 => {
                        set.remove(nb, a);
                        reference.remove(&(nb, a));
                    }
                    3 => {
                        // One block of a HELLO: several addresses, maybe
                        // one twice, maybe none.
                        let addrs: Vec<NodeId> = (0..pick(4.0)).map(|_| pick(10.0)).collect();
                        set.remove_all(nb, addrs.iter().copied());
                        for x in addrs {
                            reference.remove(&(nb, x));
                        }
                    }
                    4 | 5 => {
                        let addrs: Vec<NodeId> = (0..pick(5.0)).map(|_| pick(10.0)).collect();
                        let until = now + 1 + SimTime::from(pick(20.0));
                        set.insert_all(nb, addrs.iter().copied(), until);
                        for x in addrs {
                            reference.insert((nb, x), until);
                        }
                    }
                    _ => {
                        let until = now + 1 + SimTime::from(pick(20.0));
                        set.insert(nb, a, until);
                        reference.insert((nb, a), until);
                    }
                }
                let keys_after: Vec<_> = set.iter().collect();
                assert_eq!(
                    keys != keys_after,
                    set.generation() != g,
                    "round {round}: the generation moves exactly when the pairs do"
                );
                let expect: Vec<_> = reference
                    .keys()
                    .map(|&k| (k, *reference.get(&k).unwrap()))
                    .collect();
                let got: Vec<_> = keys_after
                    .iter()
                    .map(|&(n, a)| ((n, a), set.get(n, a).unwrap()))
                    .collect();
                assert_eq!(got, expect, "round {round} at {now}");
                assert_eq!(set.len(), expect.len());
                assert_eq!(set.is_empty(), expect.is_empty());
                assert_eq!(set.next_expiry(), reference.next_expiry(), "round {round}");
            }
        }
    }
}
