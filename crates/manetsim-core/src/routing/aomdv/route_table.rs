//! The AOMDV route table: per destination, a sequence number, an
//! **advertised hop count** and a list of **paths** (next hop, hop count,
//! last hop, lifetime), primary first.
//!
//! The route update rules (Marina & Das 2006, section 3.1) keep the paths
//! loop-free and link-disjoint:
//!
//! - A fresher sequence number replaces every path, and the advertised hop
//!   count becomes "infinity" again (not yet advertised).
//! - With the same sequence number, a path is accepted only if the
//!   neighbour's advertised hop count is smaller than this node's own
//!   advertised hop count: a node never takes a path at least as long as
//!   what it told others, so no neighbour that routes through it can become
//!   its next hop (loop freedom).
//! - A new path must differ from every kept path in both next hop and last
//!   hop (the node before the destination): together with the per-RREQ
//!   bookkeeping of [`super::rreq_cache`], this keeps the paths
//!   link-disjoint.
//! - At most `max_paths` paths (ns-2: 3), none more than
//!   `max_length_diff` hops (ns-2: 1) longer than the shortest.
//!
//! The advertised hop count is fixed, the first time the node advertises
//! the route (relays a RREQ/RREP or replies), to the longest path it then
//! has. When the last path is lost the route goes down: its sequence number
//! is incremented (made odd, as ns-2 does), so only a fresher route from
//! the destination is accepted afterwards.
//!
//! Paths expire; an expired path is removed on the next access of its
//! entry, which brings the route down when none is left.

use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::BTreeMap;

pub use crate::routing::aodv::route_table::seq_newer;

/// One path to a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Path {
    pub next_hop: NodeId,
    pub hops: u8,
    /// The last node before the destination on this path (ns-2's `lasthop`;
    /// the "first hop" field of the message that advertised it).
    pub last_hop: NodeId,
    pub expire: SimTime,
}

/// Why an offered path was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// An older sequence number.
    Older,
    /// Same sequence number, but the neighbour's advertised hop count is not
    /// below this node's own: taking it could form a loop.
    AdvertisedHops,
    /// Shares its next hop or its last hop with a kept path.
    NotDisjoint,
    /// More than `max_length_diff` hops longer than the shortest path.
    TooLong,
    /// `max_paths` paths are kept already.
    Full,
}

/// What an offer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A fresher sequence number: the path replaced all others.
    Replaced,
    /// A new disjoint path was added.
    Added,
    /// The same path (next hop and last hop) had its lifetime extended.
    Refreshed,
    Rejected(Reject),
}

impl Offer {
    pub fn accepted(self) -> bool {
        !matches!(self, Offer::Rejected(_))
    }
}

/// Path-count limits (ns-2's `aomdv_max_paths_` and
/// `aomdv_prim_alt_path_len_diff_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_paths: usize,
    pub max_length_diff: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteEntry {
    pub seqno: u32,
    /// Whether `seqno` is known.
    pub valid_seqno: bool,
    /// The hop count this node advertised for `seqno`; `None` is infinity
    /// (not advertised since the sequence number changed).
    pub advertised: Option<u8>,
    /// Kept paths; the first is the primary, used for data.
    pub paths: Vec<Path>,
    /// The longest path when the route was last up (the expanding ring's
    /// start); 0 when never known.
    pub last_hops: u8,
    /// The highest sequence number a RERR reported for this destination.
    pub highest_seqno_heard: u32,
    /// This node told others about the route (relayed data, or sent a RREP
    /// for it): its loss must be reported by RERR (ns-2's `rt_error`).
    pub report_break: bool,
    /// When a RERR about this destination was last sent.
    pub last_rerr: Option<SimTime>,
}

impl RouteEntry {
    fn new() -> Self {
        Self {
            seqno: 0,
            valid_seqno: false,
            advertised: None,
            paths: Vec::new(),
            last_hops: 0,
            highest_seqno_heard: 0,
            report_break: false,
            last_rerr: None,
        }
    }

    /// At least one path is alive.
    pub fn is_up(&self, now: SimTime) -> bool {
        self.paths.iter().any(|p| p.expire > now)
    }

    /// The primary path (the first alive one).
    pub fn primary(&self, now: SimTime) -> Option<&Path> {
        self.paths.iter().find(|p| p.expire > now)
    }

    pub fn min_hops(&self) -> Option<u8> {
        self.paths.iter().map(|p| p.hops).min()
    }

    pub fn max_hops(&self) -> Option<u8> {
        self.paths.iter().map(|p| p.hops).max()
    }

    /// The hop count to advertise, fixing it on first use to the longest
    /// kept path.
    pub fn advertise(&mut self) -> u8 {
        if self.advertised.is_none() {
            self.advertised = self.max_hops();
        }
        self.advertised.unwrap_or(u8::MAX)
    }

    /// What [`Self::advertise`] would return, without fixing it.
    pub fn would_advertise(&self) -> u8 {
        self.advertised
            .or_else(|| self.max_hops())
            .unwrap_or(u8::MAX)
    }

    /// Removes the path through `next_hop`; returns whether one was there.
    pub fn remove_path(&mut self, next_hop: NodeId) -> bool {
        let before = self.paths.len();
        self.paths.retain(|p| p.next_hop != next_hop);
        self.paths.len() != before
    }

    /// The route is down (no path left): forget the advertisement and make
    /// the sequence number odd and above what RERRs reported, so only a
    /// fresher route is taken next.
    pub fn go_down(&mut self) {
        self.paths.clear();
        self.advertised = None;
        self.seqno = self.seqno.wrapping_add(1);
        if seq_newer(self.highest_seqno_heard, self.seqno) {
            self.seqno = self.highest_seqno_heard;
        }
        if self.seqno.is_multiple_of(2) {
            self.seqno = self.seqno.wrapping_add(1);
        }
    }

    /// Drops expired paths; the route goes down if that leaves none.
    fn purge(&mut self, now: SimTime) {
        if self.paths.is_empty() {
            return;
        }
        self.paths.retain(|p| p.expire > now);
        if self.paths.is_empty() {
            self.go_down();
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    entries: BTreeMap<NodeId, RouteEntry>,
}

impl RouteTable {
    pub fn get(&self, dst: NodeId) -> Option<&RouteEntry> {
        self.entries.get(&dst)
    }

    /// The entry for `dst` (created, down, if absent), expired paths removed.
    pub fn entry(&mut self, dst: NodeId, now: SimTime) -> &mut RouteEntry {
        let e = self.entries.entry(dst).or_insert_with(RouteEntry::new);
        e.purge(now);
        e
    }

    /// The entry for `dst` if it has a live path, expired paths removed.
    pub fn up_mut(&mut self, dst: NodeId, now: SimTime) -> Option<&mut RouteEntry> {
        let e = self.entries.get_mut(&dst)?;
        e.purge(now);
        (!e.paths.is_empty()).then_some(e)
    }

    pub fn is_up(&self, dst: NodeId, now: SimTime) -> bool {
        self.entries.get(&dst).is_some_and(|e| e.is_up(now))
    }

    /// Some route has a live path (ns-2's `rt_has_active_route`).
    pub fn any_up(&self, now: SimTime) -> bool {
        self.entries.values().any(|e| e.is_up(now))
    }

    /// Offers a path to `dst` through `next_hop`, advertised by it with
    /// `seqno` and hop count `adv_hops` (so `adv_hops + 1` hops from here),
    /// whose last hop before `dst` is `last_hop`. Applies the update rules
    /// of the module doc.
    #[allow(clippy::too_many_arguments)]
    pub fn offer(
        &mut self,
        dst: NodeId,
        seqno: u32,
        adv_hops: u8,
        next_hop: NodeId,
        last_hop: NodeId,
        expire: SimTime,
        now: SimTime,
        limits: Limits,
    ) -> Offer {
        let e = self.entry(dst, now);
        let hops = adv_hops.saturating_add(1);
        let path = Path {
            next_hop,
            hops,
            last_hop,
            expire,
        };
        if !e.valid_seqno || seq_newer(seqno, e.seqno) {
            e.seqno = seqno;
            e.valid_seqno = true;
            e.advertised = None;
            e.paths = vec![path];
            e.last_hops = hops;
            return Offer::Replaced;
        }
        if seqno != e.seqno {
            return Offer::Rejected(Reject::Older);
        }
        if e.advertised.is_some_and(|a| a <= adv_hops) {
            return Offer::Rejected(Reject::AdvertisedHops);
        }
        if let Some(p) = e
            .paths
            .iter_mut()
            .find(|p| p.next_hop == next_hop && p.last_hop == last_hop)
        {
            p.expire = p.expire.max(expire);
            return Offer::Refreshed;
        }
        if e.paths
            .iter()
            .any(|p| p.next_hop == next_hop || p.last_hop == last_hop)
        {
            return Offer::Rejected(Reject::NotDisjoint);
        }
        if e.min_hops()
            .is_some_and(|m| hops > m.saturating_add(limits.max_length_diff))
        {
            return Offer::Rejected(Reject::TooLong);
        }
        if e.paths.len() >= limits.max_paths {
            return Offer::Rejected(Reject::Full);
        }
        e.paths.push(path);
        e.last_hops = e.max_hops().unwrap_or(hops);
        Offer::Added
    }

    /// Removes every path through `next_hop` (a broken link). Returns the
    /// destinations left without a path, each brought down: (destination,
    /// new sequence number, whether the loss must be reported).
    pub fn break_link(&mut self, next_hop: NodeId, now: SimTime) -> Vec<(NodeId, u32, bool)> {
        let mut out = Vec::new();
        for (&d, e) in self.entries.iter_mut() {
            e.purge(now);
            if e.remove_path(next_hop) && e.paths.is_empty() {
                e.go_down();
                out.push((d, e.seqno, e.report_break));
                e.report_break = false;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limits = Limits {
        max_paths: 3,
        max_length_diff: 1,
    };

    #[test]
    fn fresher_sequence_numbers_replace_all_paths() {
        let mut t = RouteTable::default();
        assert_eq!(t.offer(9, 4, 2, 1, 7, 100, 0, L), Offer::Replaced);
        assert_eq!(t.offer(9, 4, 2, 2, 8, 100, 0, L), Offer::Added);
        assert_eq!(t.get(9).unwrap().paths.len(), 2);
        assert_eq!(t.offer(9, 6, 5, 3, 6, 100, 0, L), Offer::Replaced);
        let e = t.get(9).unwrap();
        assert_eq!((e.paths.len(), e.paths[0].hops, e.seqno), (1, 6, 6));
        assert_eq!(
            t.offer(9, 4, 1, 1, 7, 100, 0, L),
            Offer::Rejected(Reject::Older)
        );
    }

    #[test]
    fn paths_must_be_disjoint_short_and_few() {
        let mut t = RouteTable::default();
        t.offer(9, 4, 2, 1, 7, 100, 0, L);
        assert_eq!(t.offer(9, 4, 2, 1, 7, 200, 0, L), Offer::Refreshed);
        assert_eq!(t.get(9).unwrap().paths[0].expire, 200);
        assert_eq!(
            t.offer(9, 4, 2, 1, 8, 100, 0, L),
            Offer::Rejected(Reject::NotDisjoint),
            "same next hop"
        );
        assert_eq!(
            t.offer(9, 4, 2, 2, 7, 100, 0, L),
            Offer::Rejected(Reject::NotDisjoint),
            "same last hop"
        );
        assert_eq!(
            t.offer(9, 4, 4, 2, 8, 100, 0, L),
            Offer::Rejected(Reject::TooLong),
            "5 hops against a 3-hop primary"
        );
        assert_eq!(t.offer(9, 4, 3, 2, 8, 100, 0, L), Offer::Added);
        assert_eq!(t.offer(9, 4, 1, 3, 6, 100, 0, L), Offer::Added);
        assert_eq!(
            t.offer(9, 4, 2, 4, 5, 100, 0, L),
            Offer::Rejected(Reject::Full)
        );
        assert_eq!(t.get(9).unwrap().last_hops, 4);
    }

    #[test]
    fn the_advertised_hop_count_bounds_later_paths() {
        let mut t = RouteTable::default();
        t.offer(9, 4, 1, 1, 7, 100, 0, L);
        t.offer(9, 4, 2, 2, 8, 100, 0, L);
        assert_eq!(t.entry(9, 0).advertise(), 3, "the longest path");
        assert_eq!(
            t.offer(9, 4, 3, 3, 6, 100, 0, L),
            Offer::Rejected(Reject::AdvertisedHops)
        );
        assert_eq!(t.offer(9, 4, 0, 3, 6, 100, 0, L), Offer::Added);
        assert_eq!(t.entry(9, 0).advertise(), 3, "fixed once advertised");
    }

    #[test]
    fn losing_the_last_path_brings_the_route_down_with_an_odd_seqno() {
        let mut t = RouteTable::default();
        t.offer(9, 4, 1, 1, 7, 100, 0, L);
        t.offer(9, 4, 1, 2, 8, 100, 0, L);
        t.entry(9, 0).report_break = true;
        assert!(t.break_link(1, 10).is_empty(), "one path is left");
        assert_eq!(t.get(9).unwrap().primary(10).unwrap().next_hop, 2);
        assert_eq!(t.break_link(2, 10), vec![(9, 5, true)]);
        let e = t.get(9).unwrap();
        assert!(!e.is_up(10) && e.advertised.is_none() && !e.report_break);
        // Expiry does the same.
        t.offer(3, 8, 0, 3, 3, 50, 0, L);
        assert!(t.is_up(3, 49));
        assert!(t.up_mut(3, 50).is_none());
        assert_eq!(t.get(3).unwrap().seqno, 9);
    }
}
