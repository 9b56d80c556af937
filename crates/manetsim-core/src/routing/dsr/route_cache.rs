//! The DSR path cache: whole routes from this node, as ns-2's DSR keeps
//! them (its "mobicache" is a path cache of 30 primary + 34 secondary
//! routes; here one list of 64, evicting the oldest).
//!
//! Every route starts at this node. Lookups return the shortest route
//! containing the destination (its prefix up to the destination); ties go
//! to the route added first, so selection is deterministic. A link reported
//! broken truncates every route at it. An optional timeout expires routes
//! a fixed time after they were learned (ns-2's path cache has none: the
//! default is `None`).

use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone)]
struct Entry {
    path: Vec<NodeId>,
    learned_at: SimTime,
}

#[derive(Debug, Clone)]
pub struct RouteCache {
    me: NodeId,
    capacity: usize,
    timeout: Option<SimTime>,
    entries: Vec<Entry>,
}

impl RouteCache {
    pub fn new(me: NodeId, capacity: usize, timeout: Option<SimTime>) -> Self {
        Self {
            me,
            capacity: capacity.max(1),
            timeout,
            entries: Vec::new(),
        }
    }

    /// Adds `path` (which must start at this node; it is cut at the first
    /// repeated node, so no route loops). Returns whether the cache learned
    /// something new.
    pub fn add(&mut self, path: &[NodeId], now: SimTime) -> bool {
        if path.first() != Some(&self.me) {
            return false;
        }
        let mut p: Vec<NodeId> = Vec::with_capacity(path.len());
        for &n in path {
            if p.contains(&n) {
                break;
            }
            p.push(n);
        }
        if p.len() < 2 {
            return false;
        }
        // Already known (as a route or the prefix of one): refresh it.
        if let Some(e) = self
            .entries
            .iter_mut()
            .find(|e| e.path.len() >= p.len() && e.path[..p.len()] == p[..])
        {
            e.learned_at = e.learned_at.max(now);
            return false;
        }
        // A known route that is a prefix of the new one is subsumed by it.
        self.entries
            .retain(|e| !(e.path.len() < p.len() && p[..e.path.len()] == e.path[..]));
        if self.entries.len() >= self.capacity {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            path: p,
            learned_at: now,
        });
        true
    }

    /// The shortest cached route to `dst` (this node first, `dst` last).
    pub fn find(&self, dst: NodeId, now: SimTime) -> Option<&[NodeId]> {
        let mut best: Option<&[NodeId]> = None;
        for e in &self.entries {
            if self
                .timeout
                .is_some_and(|t| e.learned_at.saturating_add(t) <= now)
            {
                continue;
            }
            if let Some(k) = e.path.iter().position(|&n| n == dst) {
                if k > 0 && best.is_none_or(|b| k + 1 < b.len()) {
                    best = Some(&e.path[..=k]);
                }
            }
        }
        best
    }

    /// Forgets the link `from -> to`: every route using it is cut at `from`.
    /// Returns whether any route changed.
    pub fn remove_link(&mut self, from: NodeId, to: NodeId) -> bool {
        let mut changed = false;
        for e in &mut self.entries {
            if let Some(k) = e.path.windows(2).position(|w| w[0] == from && w[1] == to) {
                e.path.truncate(k + 1);
                changed = true;
            }
        }
        self.entries.retain(|e| e.path.len() >= 2);
        changed
    }

    /// Drops expired routes.
    pub fn expire(&mut self, now: SimTime) {
        if let Some(t) = self.timeout {
            self.entries
                .retain(|e| e.learned_at.saturating_add(t) > now);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_route_wins_and_ties_go_to_the_oldest() {
        let mut c = RouteCache::new(0, 64, None);
        assert!(c.add(&[0, 1, 2, 3, 4], 0));
        assert!(c.add(&[0, 5, 4], 0));
        assert!(c.add(&[0, 6, 4], 0));
        assert_eq!(c.find(4, 0), Some(&[0, 5, 4][..]));
        assert_eq!(c.find(3, 0), Some(&[0, 1, 2, 3][..]));
        assert_eq!(c.find(9, 0), None);
    }

    #[test]
    fn prefixes_and_loops_are_not_stored_twice() {
        let mut c = RouteCache::new(0, 64, None);
        assert!(c.add(&[0, 1, 2], 0));
        assert!(c.add(&[0, 1, 2, 3], 0), "extends the old route");
        assert_eq!(c.len(), 1);
        assert!(!c.add(&[0, 1], 0), "a prefix is already known");
        assert!(c.add(&[0, 7, 8, 7, 9], 0));
        assert_eq!(c.find(8, 0), Some(&[0, 7, 8][..]));
        assert_eq!(c.find(9, 0), None, "cut at the loop");
        assert!(!c.add(&[3, 4], 0), "must start at this node");
    }

    #[test]
    fn a_broken_link_truncates_routes() {
        let mut c = RouteCache::new(0, 64, None);
        c.add(&[0, 1, 2, 3], 0);
        c.add(&[0, 2, 1], 0);
        assert!(c.remove_link(1, 2));
        assert_eq!(c.find(3, 0), None);
        assert_eq!(c.find(1, 0), Some(&[0, 1][..]));
        assert_eq!(c.find(2, 0), Some(&[0, 2][..]), "the other direction stays");
        assert!(c.remove_link(0, 1));
        assert_eq!(c.find(1, 0), Some(&[0, 2, 1][..]));
    }

    #[test]
    fn capacity_evicts_the_oldest_and_timeout_expires() {
        let mut c = RouteCache::new(0, 2, Some(10));
        c.add(&[0, 1], 0);
        c.add(&[0, 2], 5);
        c.add(&[0, 3], 6);
        assert_eq!(c.find(1, 6), None);
        assert!(c.find(2, 14).is_some());
        assert!(c.find(2, 15).is_none(), "expired after 10 ns");
        c.expire(15);
        assert_eq!(c.len(), 1);
    }
}
