//! The 2-hop neighbour set (RFC 3626 sections 4.3.2 and 8.2): which
//! symmetric neighbour reaches which node two hops away, learnt from the
//! neighbours' HELLOs. Kept per neighbour ([`Grouped`]): a HELLO renews all
//! of its sender's tuples at once.

use super::grouped::Grouped;
use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone, Default)]
pub struct TwoHopSet {
    /// N_neighbor_main_addr → (N_2hop_addr, N_time).
    tuples: Grouped<SimTime>,
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
        self.tuples.update(nb, |m| {
            for a in two_hops {
                m.upsert(a, until);
            }
        });
    }

    /// `nb` no longer lists `two_hop` as a symmetric neighbour.
    pub fn remove(&mut self, nb: NodeId, two_hop: NodeId) {
        self.remove_all(nb, [two_hop]);
    }

    /// `nb` no longer lists any of `two_hops` as a symmetric neighbour.
    pub fn remove_all(&mut self, nb: NodeId, two_hops: impl IntoIterator<Item = NodeId>) {
        if self.tuples.members(nb).is_empty() {
            return;
        }
        self.tuples.update(nb, |m| {
            for a in two_hops {
                m.remove(a);
            }
        });
    }

    /// Forgets everything learnt through `nb` (its link went away or is no
    /// longer symmetric).
    pub fn remove_neighbor(&mut self, nb: NodeId) {
        self.tuples.remove_group(nb);
    }

    /// Removes the tuples whose time has come (`N_time <= now`); returns
    /// whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        self.tuples.expire(now)
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.tuples.next_expiry()
    }

    /// Changes whenever a pair appears or goes.
    pub fn generation(&self) -> u64 {
        self.tuples.generation()
    }

    /// (neighbour, 2-hop node) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.tuples.iter()
    }

    /// N_time of the pair, if held.
    pub fn get(&self, nb: NodeId, two_hop: NodeId) -> Option<SimTime> {
        self.tuples.get(nb, two_hop).copied()
    }

    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
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
