//! Timed tuples grouped by the node they were learnt from: the shape of
//! OLSR's 2-hop set (by neighbour) and topology set (by originator).
//!
//! A HELLO or a TC renews all of its sender's tuples at once, so they are
//! stored together, sorted by member, and the expiry index has one entry
//! per group (the soonest of its tuples' times), not one per tuple. A map
//! keyed by (group, member), with an index entry per tuple, cost a tree
//! entry and an index entry per tuple, three tree operations for each
//! address of each message heard, and a tree descent per group in each
//! route computation.

use super::timed_map::Expiring;
use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
pub struct Grouped<T> {
    groups: BTreeMap<NodeId, Group<T>>,
    /// (soonest time of the group's tuples, group).
    by_time: BTreeSet<(SimTime, NodeId)>,
    /// Bumped whenever a (group, member) pair appears or goes.
    generation: u64,
    len: usize,
}

impl<T> Default for Grouped<T> {
    fn default() -> Self {
        Self {
            groups: BTreeMap::new(),
            by_time: BTreeSet::new(),
            generation: 0,
            len: 0,
        }
    }
}

/// One group's tuples, sorted by member, never empty while in the set.
#[derive(Debug, Clone)]
struct Group<T> {
    /// The soonest time of `list`: the group's key in `by_time`.
    soonest: SimTime,
    list: Vec<(NodeId, T)>,
}

/// One group's tuples, open for change inside [`Grouped::update`].
pub struct Members<'a, T> {
    list: &'a mut Vec<(NodeId, T)>,
    keys_changed: bool,
}

impl<T> Members<'_, T> {
    /// Sets `member`'s tuple; returns the one it replaces.
    pub fn upsert(&mut self, member: NodeId, value: T) -> Option<T> {
        match self.list.binary_search_by_key(&member, |&(m, _)| m) {
            Ok(i) => Some(std::mem::replace(&mut self.list[i].1, value)),
            Err(i) => {
                self.list.insert(i, (member, value));
                self.keys_changed = true;
                None
            }
        }
    }

    /// Removes `member`'s tuple; returns it.
    pub fn remove(&mut self, member: NodeId) -> Option<T> {
        let i = self.list.binary_search_by_key(&member, |&(m, _)| m).ok()?;
        self.keys_changed = true;
        Some(self.list.remove(i).1)
    }

    /// Keeps the tuples for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(NodeId, &T) -> bool) {
        let before = self.list.len();
        self.list.retain(|(m, v)| keep(*m, v));
        self.keys_changed |= self.list.len() != before;
    }
}

impl<T: Expiring> Grouped<T> {
    /// Changes `group`'s tuples with `f`, and keeps the index, the count
    /// and the generation in step; returns what `f` returns.
    pub fn update<R>(&mut self, group: NodeId, f: impl FnOnce(&mut Members<'_, T>) -> R) -> R {
        let g = self.groups.entry(group).or_insert(Group {
            soonest: SimTime::MAX,
            list: Vec::new(),
        });
        let old_soonest = (!g.list.is_empty()).then_some(g.soonest);
        let count = g.list.len();
        let mut members = Members {
            list: &mut g.list,
            keys_changed: false,
        };
        let r = f(&mut members);
        if members.keys_changed {
            self.generation += 1;
        }
        self.len = self.len + g.list.len() - count;
        let soonest = g.list.iter().map(|(_, v)| v.until()).min();
        if soonest != old_soonest {
            if let Some(t) = old_soonest {
                self.by_time.remove(&(t, group));
            }
            match soonest {
                Some(t) => {
                    g.soonest = t;
                    self.by_time.insert((t, group));
                }
                None => {
                    self.groups.remove(&group);
                }
            }
        } else if soonest.is_none() {
            self.groups.remove(&group);
        }
        r
    }

    /// Removes every tuple of `group`.
    pub fn remove_group(&mut self, group: NodeId) {
        if let Some(g) = self.groups.remove(&group) {
            self.by_time.remove(&(g.soonest, group));
            self.len -= g.list.len();
            self.generation += 1;
        }
    }

    /// Removes the tuples whose time has come (`until <= now`); returns
    /// whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        let mut any = false;
        while let Some(&(soonest, group)) = self.by_time.first() {
            if soonest > now {
                break;
            }
            self.by_time.pop_first();
            let g = self.groups.get_mut(&group).expect("indexed");
            let count = g.list.len();
            g.list.retain(|(_, v)| v.until() > now);
            self.len -= count - g.list.len();
            any = true;
            match g.list.iter().map(|(_, v)| v.until()).min() {
                Some(t) => {
                    g.soonest = t;
                    self.by_time.insert((t, group));
                }
                None => {
                    self.groups.remove(&group);
                }
            }
        }
        if any {
            self.generation += 1;
        }
        any
    }

    /// The soonest time at which a tuple expires.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.by_time.first().map(|&(t, _)| t)
    }

    /// Changes whenever a (group, member) pair appears or goes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// `group`'s tuples, sorted by member (empty when it has none).
    pub fn members(&self, group: NodeId) -> &[(NodeId, T)] {
        self.groups.get(&group).map_or(&[], |g| &g.list)
    }

    /// `member`'s tuple in `group`.
    pub fn get(&self, group: NodeId, member: NodeId) -> Option<&T> {
        let list = self.members(group);
        list.binary_search_by_key(&member, |&(m, _)| m)
            .ok()
            .map(|i| &list[i].1)
    }

    /// (group, member) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.groups
            .iter()
            .flat_map(|(&g, l)| l.list.iter().map(move |&(m, _)| (g, m)))
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
    use super::*;
    use crate::engine::{Rng, Stream};
    use std::collections::BTreeMap;

    /// Random upserts, removals, retains, group removals and expiries,
    /// against a plain map of (group, member) to expiry time.
    #[test]
    fn agrees_with_a_map_of_pairs() {
        let mut set: Grouped<SimTime> = Grouped::default();
        let mut model: BTreeMap<(NodeId, NodeId), SimTime> = BTreeMap::new();
        let mut rng = Rng::new(11, Stream::Test, 0);
        let mut now: SimTime = 0;
        for _ in 0..20_000 {
            let before: Vec<_> = model.keys().copied().collect();
            let generation = set.generation();
            let group = rng.below(8) as NodeId;
            let member = rng.below(8) as NodeId;
            match rng.below(10) {
                0..=4 => {
                    let until = now + 1 + rng.below(100);
                    let old = set.update(group, |m| m.upsert(member, until));
                    assert_eq!(old, model.insert((group, member), until));
                }
                5 | 6 => {
                    let old = set.update(group, |m| m.remove(member));
                    assert_eq!(old, model.remove(&(group, member)));
                }
                7 => {
                    set.update(group, |m| m.retain(|x, _| x % 2 == 0));
                    model.retain(|&(g, x), _| g != group || x % 2 == 0);
                }
                8 => {
                    set.remove_group(group);
                    model.retain(|&(g, _), _| g != group);
                }
                _ => {
                    now += rng.below(20);
                    let due = model.values().any(|&t| t <= now);
                    assert_eq!(set.expire(now), due);
                    model.retain(|_, &mut t| t > now);
                }
            }
            let pairs: Vec<_> = model.keys().copied().collect();
            assert_eq!(set.iter().collect::<Vec<_>>(), pairs);
            assert_eq!(set.len(), model.len());
            assert_eq!(set.is_empty(), model.is_empty());
            assert_eq!(set.next_expiry(), model.values().min().copied());
            assert_eq!(set.get(group, member), model.get(&(group, member)));
            assert_eq!(
                set.generation() != generation,
                pairs != before,
                "the generation moves exactly when a pair appears or goes"
            );
            let members: Vec<_> = set.members(group).iter().map(|&(m, t)| (m, t)).collect();
            let want: Vec<_> = model
                .range((group, 0)..=(group, NodeId::MAX))
                .map(|(&(_, m), &t)| (m, t))
                .collect();
            assert_eq!(members, want);
        }
    }
}
