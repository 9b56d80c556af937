//! The DSR route cache: whole routes from this node.
//!
//! Two organisations ([`CacheModel`]):
//! - [`CacheModel::Single`]: one list of routes (64 by default), evicting
//!   the oldest. Lookups return the shortest route containing the
//!   destination (its prefix up to the destination); ties go to the route
//!   added first, so selection is deterministic. An optional timeout expires
//!   routes a fixed time after they were learned.
//! - [`CacheModel::Ns2`]: ns-2.35's "mobicache" (its `mobicache.cc`, read
//!   for its rules): a primary cache of 30 routes for the routes this node
//!   found or was given (replies, its own requests answered), and a
//!   secondary cache of 64 for the routes it saw in use (packets it
//!   forwarded or overheard). Each is an array of slots; a new route
//!   extends in place the first slot holding a prefix of it (or fills the
//!   first empty slot), is ignored if a slot already contains it, and
//!   otherwise replaces slots in round-robin order. A lookup takes the
//!   shortest route from both, the primary winning ties; a route this node
//!   takes for its own packets moves from the secondary to the primary. No
//!   timeout.
//!
//! In both, a link reported broken cuts every route at it.

use crate::engine::SimTime;
use crate::net::NodeId;

#[derive(Debug, Clone)]
struct Entry {
    path: Vec<NodeId>,
    learned_at: SimTime,
}

/// How the cache is organised (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheModel {
    #[default]
    Single,
    Ns2,
}

/// ns-2's primary and secondary cache sizes.
const NS2_PRIMARY_ROUTES: usize = 30;
const NS2_SECONDARY_ROUTES: usize = 64;

#[derive(Debug, Clone)]
pub struct RouteCache {
    me: NodeId,
    capacity: usize,
    timeout: Option<SimTime>,
    entries: Vec<Entry>,
    /// With [`CacheModel::Ns2`]: the primary and the secondary cache
    /// (`entries` stays empty).
    ns2: Option<Box<[Slots; 2]>>,
}

/// One of ns-2's two caches: fixed slots (an empty path is a free slot)
/// and the next slot to evict.
#[derive(Debug, Clone)]
struct Slots {
    paths: Vec<Vec<NodeId>>,
    victim: usize,
}

impl Slots {
    fn new(size: usize) -> Self {
        Self {
            paths: vec![Vec::new(); size],
            victim: 0,
        }
    }

    /// Adds `p` (loop-free, from this node); returns whether a slot changed.
    fn add(&mut self, p: &[NodeId]) -> bool {
        for slot in &mut self.paths {
            let n = slot.iter().zip(p).take_while(|(a, b)| a == b).count();
            if n == slot.len() {
                // The slot is a prefix of the new route (or free): extend it.
                slot.extend_from_slice(&p[n..]);
                return n < p.len();
            }
            if n == p.len() {
                return false; // already contained
            }
        }
        let v = self.victim;
        self.victim = (v + 1) % self.paths.len();
        self.paths[v] = p.to_vec();
        true
    }

    /// The shortest slot reaching `dst`: (slot, position of `dst`); ties
    /// go to the lower slot.
    fn find(&self, dst: NodeId) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, path) in self.paths.iter().enumerate() {
            if let Some(k) = path.iter().position(|&n| n == dst) {
                if k > 0 && best.is_none_or(|b| k < b.1) {
                    best = Some((i, k));
                }
            }
        }
        best
    }

    fn remove_link(&mut self, from: NodeId, to: NodeId) -> bool {
        let mut changed = false;
        for path in &mut self.paths {
            if let Some(k) = path.windows(2).position(|w| w[0] == from && w[1] == to) {
                // Cut at `from`; a route whose first link broke is gone.
                path.truncate(if k == 0 { 0 } else { k + 1 });
                changed = true;
            }
        }
        changed
    }
}

impl RouteCache {
    pub fn new(me: NodeId, capacity: usize, timeout: Option<SimTime>) -> Self {
        Self {
            me,
            capacity: capacity.max(1),
            timeout,
            entries: Vec::new(),
            ns2: None,
        }
    }

    /// ns-2's mobicache ([`CacheModel::Ns2`]).
    pub fn ns2(me: NodeId) -> Self {
        Self {
            ns2: Some(Box::new([
                Slots::new(NS2_PRIMARY_ROUTES),
                Slots::new(NS2_SECONDARY_ROUTES),
            ])),
            ..Self::new(me, 1, None)
        }
    }

    /// `path` from this node, cut at the first repeated node (so no route
    /// loops); `None` if it does not start here or has no link.
    fn clean(&self, path: &[NodeId]) -> Option<Vec<NodeId>> {
        if path.first() != Some(&self.me) {
            return None;
        }
        let mut p: Vec<NodeId> = Vec::with_capacity(path.len());
        for &n in path {
            if p.contains(&n) {
                break;
            }
            p.push(n);
        }
        (p.len() >= 2).then_some(p)
    }

    /// Adds `path`, a route this node found or was given (ns-2's primary
    /// cache). It must start at this node. Returns whether the cache
    /// learned something new.
    pub fn add(&mut self, path: &[NodeId], now: SimTime) -> bool {
        self.add_to(0, path, now)
    }

    /// Adds `path`, a route this node saw in use (ns-2's secondary cache;
    /// the same list as [`Self::add`] in the single model).
    pub fn notice(&mut self, path: &[NodeId], now: SimTime) -> bool {
        self.add_to(1, path, now)
    }

    fn add_to(&mut self, which: usize, path: &[NodeId], now: SimTime) -> bool {
        let Some(p) = self.clean(path) else {
            return false;
        };
        if let Some(caches) = &mut self.ns2 {
            return caches[which].add(&p);
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
        if let Some(caches) = &self.ns2 {
            let [primary, secondary] = &**caches;
            let p = primary.find(dst);
            let s = secondary.find(dst);
            return match (p, s) {
                (Some((i, k)), Some((_, ks))) if k <= ks => Some(&primary.paths[i][..=k]),
                (_, Some((j, ks))) => Some(&secondary.paths[j][..=ks]),
                (Some((i, k)), None) => Some(&primary.paths[i][..=k]),
                (None, None) => None,
            };
        }
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

    /// The route to `dst` this node takes for a packet of its own: as
    /// [`Self::find`], but with [`CacheModel::Ns2`] a route found in the
    /// secondary cache moves (whole) to the primary.
    pub fn find_for_use(&mut self, dst: NodeId, now: SimTime) -> Option<&[NodeId]> {
        if let Some(caches) = &mut self.ns2 {
            let [primary, secondary] = &mut **caches;
            let p = primary.find(dst);
            if let Some((j, ks)) = secondary.find(dst) {
                if p.is_none_or(|(_, k)| ks < k) {
                    let moved = std::mem::take(&mut secondary.paths[j]);
                    primary.add(&moved);
                }
            }
        }
        self.find(dst, now)
    }

    /// Forgets the link `from -> to`: every route using it is cut at `from`.
    /// Returns whether any route changed.
    pub fn remove_link(&mut self, from: NodeId, to: NodeId) -> bool {
        if let Some(caches) = &mut self.ns2 {
            let a = caches[0].remove_link(from, to);
            let b = caches[1].remove_link(from, to);
            return a | b;
        }
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
        match &self.ns2 {
            Some(caches) => caches
                .iter()
                .map(|c| c.paths.iter().filter(|p| !p.is_empty()).count())
                .sum(),
            None => self.entries.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    #[test]
    fn ns2_a_route_extends_its_prefix_in_place_and_a_contained_one_is_ignored() {
        let mut c = RouteCache::ns2(0);
        assert!(c.add(&[0, 1, 2], 0));
        assert!(c.add(&[0, 1, 2, 3], 0), "extends the slot");
        assert!(!c.add(&[0, 1], 0), "already contained");
        assert!(!c.add(&[0, 1, 2, 3], 0), "the same route");
        assert_eq!(c.len(), 1);
        assert!(c.add(&[0, 1, 4], 0), "shares a prefix only: a new slot");
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn ns2_full_caches_evict_round_robin() {
        let mut c = RouteCache::ns2(0);
        for k in 1..=31 {
            c.add(&[0, 100 + k, k], 0);
        }
        // 30 slots: the 31st route replaced the first, the rest stay.
        assert_eq!(c.len(), 30);
        assert_eq!(c.find(1, 0), None);
        assert_eq!(c.find(2, 0), Some(&[0, 102, 2][..]));
        c.add(&[0, 200, 5000], 0);
        assert_eq!(c.find(2, 0), None, "then the second");
        assert_eq!(c.find(31, 0), Some(&[0, 131, 31][..]));
    }

    #[test]
    fn ns2_the_shortest_route_wins_and_the_primary_wins_ties() {
        let mut c = RouteCache::ns2(0);
        c.add(&[0, 1, 2, 9], 0);
        c.notice(&[0, 3, 4, 9], 0);
        assert_eq!(c.find(9, 0), Some(&[0, 1, 2, 9][..]), "tie: primary");
        c.notice(&[0, 5, 9], 0);
        assert_eq!(c.find(9, 0), Some(&[0, 5, 9][..]), "shorter: secondary");
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn ns2_a_route_taken_for_use_moves_whole_to_the_primary() {
        let mut c = RouteCache::ns2(0);
        c.notice(&[0, 5, 9, 7], 0);
        // Fill the primary's free slots but one with unrelated routes.
        for k in 1..30 {
            c.add(&[0, 100 + k], 0);
        }
        assert_eq!(c.find_for_use(9, 0), Some(&[0, 5, 9][..]));
        assert_eq!(c.len(), 30, "moved, not copied");
        // Now in the primary: filling the secondary does not evict it.
        for k in 1..=64 {
            c.notice(&[0, 300 + k], 0);
        }
        assert_eq!(c.find(7, 0), Some(&[0, 5, 9, 7][..]));
    }

    #[test]
    fn ns2_a_broken_link_cuts_routes_in_both_caches() {
        let mut c = RouteCache::ns2(0);
        c.add(&[0, 1, 2, 3], 0);
        c.notice(&[0, 4, 2, 3], 0);
        c.notice(&[0, 2, 3], 0);
        assert!(c.remove_link(2, 3));
        assert_eq!(c.find(3, 0), None);
        assert_eq!(c.find(2, 0), Some(&[0, 2][..]));
        assert!(c.remove_link(0, 2), "a first link: the whole route goes");
        assert_eq!(c.find(2, 0), Some(&[0, 1, 2][..]));
        assert_eq!(c.len(), 2);
    }
}
