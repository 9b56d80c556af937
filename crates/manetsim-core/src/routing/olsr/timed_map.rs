//! A map whose entries each hold until a time: the shape of OLSR's 2-hop,
//! topology, MPR selector and duplicate sets.
//!
//! The agent refreshes its state on every control packet it receives, so
//! expiring a set and finding its next expiry must not cost a scan. Beside
//! the map, an index ordered by (until, key) gives the soonest expiry at
//! once, and expiring pops entries from its front. A generation counter
//! says whether the set of keys changed since a caller last looked, so the
//! MPR set and the routing table, which depend on the keys only, are
//! recomputed only when it did.

use crate::engine::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// A value that holds until a time.
pub trait Expiring {
    /// The entry is expired once `now` reaches this time.
    fn until(&self) -> SimTime;
}

impl Expiring for SimTime {
    fn until(&self) -> SimTime {
        *self
    }
}

#[derive(Debug, Clone)]
pub struct TimedMap<K, V> {
    map: BTreeMap<K, V>,
    /// (until, key) of every entry.
    by_time: BTreeSet<(SimTime, K)>,
    /// The first `until` of `by_time`: the agent asks for it after every
    /// event, and most often nothing has changed.
    soonest: Option<SimTime>,
    /// Bumped whenever a key appears or goes.
    generation: u64,
}

impl<K, V> Default for TimedMap<K, V> {
    fn default() -> Self {
        Self {
            map: BTreeMap::new(),
            by_time: BTreeSet::new(),
            soonest: None,
            generation: 0,
        }
    }
}

impl<K: Ord + Copy, V: Expiring> TimedMap<K, V> {
    /// Inserts or replaces; returns the old value.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let until = value.until();
        let old = self.map.insert(key, value);
        match &old {
            Some(o) => {
                if o.until() != until {
                    self.by_time.remove(&(o.until(), key));
                    self.by_time.insert((until, key));
                    self.reindexed();
                }
            }
            None => {
                self.by_time.insert((until, key));
                self.reindexed();
                self.generation += 1;
            }
        }
        old
    }

    fn reindexed(&mut self) {
        self.soonest = self.by_time.first().map(|&(t, _)| t);
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        let old = self.map.remove(key)?;
        self.by_time.remove(&(old.until(), *key));
        self.reindexed();
        self.generation += 1;
        Some(old)
    }

    /// Removes the entries whose time has come (`until <= now`); returns
    /// whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        if self.soonest.is_none_or(|t| t > now) {
            return false;
        }
        let mut any = false;
        while let Some(&(until, key)) = self.by_time.first() {
            if until > now {
                break;
            }
            self.by_time.pop_first();
            self.map.remove(&key);
            any = true;
        }
        self.reindexed();
        if any {
            self.generation += 1;
        }
        any
    }

    /// The soonest time at which an entry expires.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.soonest
    }

    /// Changes whenever a key appears or goes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.map.get(key)
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.map.keys()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_follows_every_change_and_expiry_pops_in_time_order() {
        let mut m: TimedMap<u32, SimTime> = TimedMap::default();
        assert_eq!(m.next_expiry(), None);
        m.insert(1, 30);
        m.insert(2, 10);
        m.insert(3, 20);
        let g = m.generation();
        assert_eq!(m.next_expiry(), Some(10));
        // A new time for a known key: the keys did not change.
        assert_eq!(m.insert(2, 40), Some(10));
        assert_eq!(m.generation(), g);
        assert_eq!(m.next_expiry(), Some(20));
        assert!(!m.expire(19));
        assert_eq!(m.generation(), g);
        assert!(m.expire(20));
        assert!(m.generation() > g);
        assert_eq!(m.keys().copied().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(m.next_expiry(), Some(30));
        m.remove(&1);
        assert_eq!(m.next_expiry(), Some(40));
        assert_eq!(m.remove(&2), Some(40));
        assert_eq!(m.remove(&2), None);
        assert!(m.is_empty());
        assert_eq!(m.next_expiry(), None);
        assert!(!m.expire(SimTime::MAX));
    }

    #[test]
    fn entries_with_the_same_time_all_expire() {
        let mut m: TimedMap<(u32, u32), SimTime> = TimedMap::default();
        for k in 0..5 {
            m.insert((k, k), 7);
        }
        m.insert((9, 9), 8);
        assert!(m.expire(7));
        assert_eq!(m.len(), 1);
        assert_eq!(m.get(&(9, 9)), Some(&8));
    }
}
