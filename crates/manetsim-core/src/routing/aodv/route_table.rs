//! The AODV route table (RFC 3561 section 2): one entry per destination,
//! with its sequence number, state, hop count, next hop, lifetime and
//! precursors (the neighbours that route through this node to it, told by
//! RERR when the route breaks). Entries are hashed by destination, for
//! lookups in constant time however many destinations a node knows; the one
//! walk over them ([`RouteTable::break_link`]) sorts what it finds, so its
//! order stays by destination.

use super::PURGE_INTERVAL;
use crate::engine::{IntMap, SimTime};
use crate::net::NodeId;
use std::collections::{BTreeSet, VecDeque};

/// `a` is fresher than `b` (RFC 3561 section 6.1: signed 32-bit rollover).
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteState {
    Valid,
    /// Broken or expired; the sequence number and last hop count are kept
    /// for the next discovery.
    Invalid,
    /// Local repair is under way (packets for it are buffered).
    InRepair,
}

/// One destination's entry. Most entries are reverse routes that a flood
/// left behind and nothing uses again, so what only routes in use need
/// (precursors, the last RERR, discovery latencies) sits apart, allocated
/// on first use: an entry takes 32 bytes, not 96 (a 10,000-node flood
/// leaves one at every node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteEntry {
    pub seqno: u32,
    pub next_hop: NodeId,
    pub expire: SimTime,
    /// Whether `seqno` is known (RFC's "valid destination sequence number" flag).
    pub valid_seqno: bool,
    pub state: RouteState,
    pub hops: u8,
    /// Hop count when the route was last valid (the expanding ring's start).
    pub last_hops: u8,
    /// Hop count when the route last went down, 0 if it never has (ns-2's
    /// `rt_last_hop_count`, INFINITY2 until the first `rt_down`).
    pub downed_hops: u8,
    /// The route expires at the first purge tick after `expire`, not at
    /// `expire` ([`RouteTable::expire_at_purge_tick`]).
    ticked: bool,
    /// A RREQ for the destination has gone out since a RREQ or RREP last
    /// gave the entry a route (ns-2.35's `rt_req_timeout > 0`).
    pub asked: bool,
    more: Option<Box<InUse>>,
}

const _: () = assert!(std::mem::size_of::<RouteEntry>() == 32);

/// What a route entry holds once the route is used.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct InUse {
    /// The neighbours that route through this node to the destination.
    precursors: BTreeSet<NodeId>,
    /// When a RERR about this destination was last sent (to rate-limit
    /// RERRs for data arriving without a route).
    last_rerr: Option<SimTime>,
    /// The latest route discoveries' latency per hop, newest last (at most
    /// [`DISCOVERY_HISTORY`]; ns-2's `rt_disc_latency`).
    discovery_per_hop: VecDeque<SimTime>,
}

/// How many discovery latencies a route entry remembers (ns-2's MAX_HISTORY).
pub const DISCOVERY_HISTORY: usize = 3;

impl RouteEntry {
    fn new(ticked: bool) -> Self {
        Self {
            seqno: 0,
            next_hop: 0,
            expire: 0,
            valid_seqno: false,
            state: RouteState::Invalid,
            hops: 0,
            last_hops: 0,
            downed_hops: 0,
            ticked,
            asked: false,
            more: None,
        }
    }

    fn in_use(&mut self) -> &mut InUse {
        self.more.get_or_insert_with(Box::default)
    }

    /// Whether `n` routes through this node to the destination.
    pub fn has_precursor(&self, n: NodeId) -> bool {
        self.more
            .as_ref()
            .is_some_and(|m| m.precursors.contains(&n))
    }

    /// Whether any neighbour routes through this node to the destination.
    pub fn has_precursors(&self) -> bool {
        self.more.as_ref().is_some_and(|m| !m.precursors.is_empty())
    }

    pub fn add_precursor(&mut self, n: NodeId) {
        self.in_use().precursors.insert(n);
    }

    /// Forgets every precursor (ns-2's `pc_delete()`).
    pub fn clear_precursors(&mut self) {
        if let Some(m) = self.more.as_mut() {
            m.precursors.clear();
        }
    }

    /// When a RERR about this destination was last sent.
    pub fn last_rerr(&self) -> Option<SimTime> {
        self.more.as_ref().and_then(|m| m.last_rerr)
    }

    pub fn set_last_rerr(&mut self, at: SimTime) {
        self.in_use().last_rerr = Some(at);
    }

    /// Remembers that a discovery took `latency` to find a route of `hops` hops.
    pub fn record_discovery(&mut self, latency: SimTime, hops: u8) {
        let history = &mut self.in_use().discovery_per_hop;
        if history.len() == DISCOVERY_HISTORY {
            history.pop_front();
        }
        history.push_back(latency / (hops.max(1) as SimTime));
    }

    /// The mean per-hop discovery latency remembered, if any (ns-2's
    /// `PerHopTime`, which skips zero samples).
    pub fn per_hop_time(&self) -> Option<SimTime> {
        let samples: Vec<SimTime> = self
            .more
            .iter()
            .flat_map(|m| m.discovery_per_hop.iter())
            .copied()
            .filter(|&t| t > 0)
            .collect();
        (!samples.is_empty()).then(|| samples.iter().sum::<SimTime>() / samples.len() as SimTime)
    }

    /// An active route: valid and not expired.
    pub fn is_valid(&self, now: SimTime) -> bool {
        self.state == RouteState::Valid && now < self.deadline()
    }

    /// When the route stops being active: its lifetime's end, or with purge
    /// ticks the first tick after it (ns-2.35's `rt_purge` downs a route
    /// whose `rt_expire < now`, and only at its ticks).
    fn deadline(&self) -> SimTime {
        if self.ticked {
            (self.expire / PURGE_INTERVAL + 1) * PURGE_INTERVAL
        } else {
            self.expire
        }
    }

    /// The lifetime left, zero once expired (the route may still be active
    /// until the next purge tick).
    pub fn remaining(&self, now: SimTime) -> SimTime {
        self.expire.saturating_sub(now)
    }

    /// Extends the route's lifetime to `until`, or with `exact` sets it to
    /// `until` even if that is sooner (ns-2.35's `forward`).
    pub fn extend(&mut self, until: SimTime, exact: bool) {
        self.expire = if exact { until } else { self.expire.max(until) };
    }

    /// Marks the route broken (keeps seqno and remembers the hop count).
    pub fn invalidate(&mut self) {
        if self.state != RouteState::Invalid {
            self.last_hops = self.hops;
            self.downed_hops = self.hops.max(1);
        }
        self.state = RouteState::Invalid;
    }
}

#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    entries: IntMap<NodeId, RouteEntry>,
    expire_at_purge_tick: bool,
    repair_keeps_route: bool,
    exact_lifetimes: bool,
}

impl RouteTable {
    /// A table whose routes expire as ns-2.35's do: an active route whose
    /// lifetime has ended stays active until the next purge tick (every
    /// [`PURGE_INTERVAL`] from time 0), which brings it down and increments
    /// its sequence number (`rt_purge`: `rt_seqno++; rt_down(rt)`). So a
    /// later RREQ for it asks for a fresher route than the one that
    /// expired, and a RREP bringing that old route back is not better.
    /// The tick is applied when the entry is next read ([`Self::settle`]).
    ///
    /// With `repair_keeps_route`, a route in local repair keeps its hop
    /// count as ns-2.35's does: an offer with the same sequence number must
    /// be shorter to replace it (otherwise a route in repair, like a broken
    /// one, takes any offer as fresh as it).
    ///
    /// With `exact_lifetimes`, a route an offer replaces takes the offer's
    /// lifetime, shorter or longer than its own (ns-2.35's `rt_update`);
    /// otherwise it keeps the longer of the two.
    pub fn new(
        expire_at_purge_tick: bool,
        repair_keeps_route: bool,
        exact_lifetimes: bool,
    ) -> Self {
        Self {
            entries: IntMap::default(),
            expire_at_purge_tick,
            repair_keeps_route,
            exact_lifetimes,
        }
    }

    /// Applies a purge tick that has passed since the entry was last
    /// touched: an active route past its deadline goes down with its
    /// sequence number incremented. Without purge ticks, nothing.
    pub fn settle(&mut self, dst: NodeId, now: SimTime) {
        if !self.expire_at_purge_tick {
            return;
        }
        if let Some(e) = self.entries.get_mut(&dst) {
            if e.state == RouteState::Valid && now >= e.deadline() {
                e.seqno = e.seqno.wrapping_add(1);
                e.invalidate();
            }
        }
    }

    pub fn get(&self, dst: NodeId) -> Option<&RouteEntry> {
        self.entries.get(&dst)
    }

    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut RouteEntry> {
        self.entries.get_mut(&dst)
    }

    /// The entry for `dst`, created invalid if absent.
    pub fn entry(&mut self, dst: NodeId) -> &mut RouteEntry {
        let ticked = self.expire_at_purge_tick;
        self.entries
            .entry(dst)
            .or_insert_with(|| RouteEntry::new(ticked))
    }

    /// The active route to `dst`, if any.
    pub fn valid(&self, dst: NodeId, now: SimTime) -> Option<&RouteEntry> {
        self.entries.get(&dst).filter(|e| e.is_valid(now))
    }

    /// Offers a route learned from a RREQ, RREP or HELLO. It replaces the
    /// current one when the current sequence number is unknown, the offered
    /// one is fresher, or it is as fresh and shorter (or the current route is
    /// not active). Returns whether the entry changed.
    #[allow(clippy::too_many_arguments)]
    pub fn offer(
        &mut self,
        dst: NodeId,
        seqno: u32,
        hops: u8,
        next_hop: NodeId,
        expire: SimTime,
        now: SimTime,
    ) -> bool {
        self.settle(dst, now);
        let keeps = self.repair_keeps_route;
        let exact = self.exact_lifetimes;
        let e = self.entry(dst);
        let has_hops = e.is_valid(now) || (keeps && e.state == RouteState::InRepair);
        let better = !e.valid_seqno
            || seq_newer(seqno, e.seqno)
            || (seqno == e.seqno && (!has_hops || hops < e.hops));
        if better {
            e.seqno = seqno;
            e.valid_seqno = true;
            e.state = RouteState::Valid;
            e.hops = hops;
            e.last_hops = hops;
            e.next_hop = next_hop;
            e.asked = false;
            e.expire = e.expire.max(expire);
            if e.expire <= now || exact {
                e.expire = expire;
            }
        }
        better
    }

    /// `n` is no longer a neighbour: out of every precursor list (ns-2's
    /// `pc_delete(id)` on a broken link).
    pub fn remove_precursor_everywhere(&mut self, n: NodeId) {
        for e in self.entries.values_mut() {
            if let Some(m) = e.more.as_mut() {
                m.precursors.remove(&n);
            }
        }
    }

    /// Invalidates every active route through `next_hop` (a broken link),
    /// bumping each destination's sequence number (RFC 3561 section 6.11).
    /// With `repair_keeps_route`, a route in local repair through it goes
    /// too, as ns-2.35's `handle_link_failure` takes every route whose hop
    /// count is kept (its asserts compiled out, as in Debian's build).
    /// Returns (destination, new seqno, had precursors).
    pub fn break_link(&mut self, next_hop: NodeId, now: SimTime) -> Vec<(NodeId, u32, bool)> {
        let keeps = self.repair_keeps_route;
        let mut out = Vec::new();
        for (&d, e) in self.entries.iter_mut() {
            let up = e.is_valid(now) || (keeps && e.state == RouteState::InRepair);
            if up && e.next_hop == next_hop {
                e.seqno = e.seqno.wrapping_add(1);
                e.invalidate();
                out.push((d, e.seqno, e.has_precursors()));
            }
        }
        out.sort_unstable_by_key(|&(d, _, _)| d);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_compare_across_rollover() {
        assert!(seq_newer(2, 1));
        assert!(!seq_newer(1, 1));
        assert!(seq_newer(0, u32::MAX));
        assert!(!seq_newer(u32::MAX, 0));
    }

    #[test]
    fn fresher_or_shorter_routes_replace_older_ones() {
        let mut t = RouteTable::default();
        assert!(t.offer(5, 10, 3, 1, 100, 0));
        assert!(!t.offer(5, 9, 1, 2, 100, 0), "older seqno");
        assert!(!t.offer(5, 10, 4, 2, 100, 0), "same seqno, longer");
        assert!(t.offer(5, 10, 2, 2, 100, 0), "same seqno, shorter");
        assert_eq!(t.valid(5, 0).unwrap().next_hop, 2);
        assert!(t.valid(5, 100).is_none(), "expired");
        let broken = t.break_link(2, 50);
        assert_eq!(broken, vec![(5, 11, false)]);
        assert!(t.valid(5, 50).is_none());
        assert_eq!(t.get(5).unwrap().last_hops, 2);
    }

    #[test]
    fn what_only_used_routes_need_is_kept_apart_until_used() {
        let mut t = RouteTable::default();
        // A reverse route a flood leaves behind.
        assert!(t.offer(5, 10, 3, 1, 100, 0));
        let e = t.get(5).unwrap();
        assert!(e.more.is_none());
        assert!(!e.has_precursors() && !e.has_precursor(2));
        assert_eq!((e.last_rerr(), e.per_hop_time()), (None, None));
        // The route comes into use.
        let e = t.entry(5);
        e.add_precursor(2);
        e.add_precursor(2);
        e.set_last_rerr(40);
        e.record_discovery(90, 3);
        let e = t.get(5).unwrap();
        assert!(e.has_precursors() && e.has_precursor(2) && !e.has_precursor(3));
        assert_eq!((e.last_rerr(), e.per_hop_time()), (Some(40), Some(30)));
        // A broken link reports the precursors; the entry keeps them.
        assert_eq!(t.break_link(1, 50), vec![(5, 11, true)]);
        assert!(t.get(5).unwrap().has_precursor(2));
    }
}
