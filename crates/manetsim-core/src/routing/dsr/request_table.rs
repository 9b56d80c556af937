//! The route request table (RFC 4728 section 4.3): requests seen from
//! other initiators, for duplicate detection by (initiator, identification),
//! and the state of this node's own discoveries per target, with ns-2's
//! back-off between requests.
//!
//! The discoveries kept here follow RFC 4728 (section 3.1.3 and the
//! constants of section 9): a discovery starts with a non-propagating
//! request (TTL 1, the "ring zero" search) answered by neighbours or their
//! caches; if no reply comes within 30 ms (NonpropRequestTimeout) a
//! propagating request follows; later requests for the same target back off
//! exponentially from RequestPeriod = 0.5 s up to MaxRequestPeriod = 10 s.
//! Requests are retried only while packets for the target still wait, and a
//! found route ends the discovery. ns-2.35's own pacing, which keeps its
//! back-off across discoveries, is kept by the agent itself
//! (`RequestPacing::Ns2`).

use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// How many recent identifications are kept per initiator.
pub const IDS_PER_INITIATOR: usize = 16;

/// One target's discovery in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discovery {
    /// Requests sent so far (the first is the non-propagating one).
    pub requests: u32,
    /// When the next request may be sent.
    pub next_at: SimTime,
}

#[derive(Debug, Clone, Default)]
pub struct RequestTable {
    seen: BTreeMap<NodeId, VecDeque<u16>>,
    /// ns-2.35's table: the identification last taken from each initiator.
    newest: BTreeMap<NodeId, u16>,
    discoveries: BTreeMap<NodeId, Discovery>,
}

impl RequestTable {
    /// Records the request (initiator, id); returns false if it was seen
    /// before (a duplicate to drop).
    pub fn first_sighting(&mut self, initiator: NodeId, id: u16) -> bool {
        let ids = self.seen.entry(initiator).or_default();
        if ids.contains(&id) {
            return false;
        }
        if ids.len() >= IDS_PER_INITIATOR {
            ids.pop_front();
        }
        ids.push_back(id);
        true
    }

    /// ns-2.35's test (`ignoreRouteRequestp`): a request is stale unless
    /// its identification is above the last one taken from its initiator
    /// (none taken reads as 0).
    pub fn stale(&self, initiator: NodeId, id: u16) -> bool {
        id <= self.newest.get(&initiator).copied().unwrap_or(0)
    }

    /// Records `id` as the last identification taken from `initiator`,
    /// whether or not it is above the one before (ns-2.35's `insert`).
    pub fn take_newest(&mut self, initiator: NodeId, id: u16) {
        self.newest.insert(initiator, id);
    }

    pub fn discovery(&self, target: NodeId) -> Option<Discovery> {
        self.discoveries.get(&target).copied()
    }

    pub fn set_discovery(&mut self, target: NodeId, d: Discovery) {
        self.discoveries.insert(target, d);
    }

    /// A route to `target` was found, or nothing waits for it any more.
    pub fn end_discovery(&mut self, target: NodeId) {
        self.discoveries.remove(&target);
    }

    /// Targets whose next request is due at `now`, in id order.
    pub fn due(&self, now: SimTime) -> Vec<NodeId> {
        self.discoveries
            .iter()
            .filter(|(_, d)| d.next_at <= now)
            .map(|(&t, _)| t)
            .collect()
    }

    /// The earliest next request.
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.discoveries.values().map(|d| d.next_at).min()
    }
}

/// The wait after the `k`-th propagating request (k = 1, 2, …): ns-2's
/// exponential back-off, `period · 2^(k-1)` capped at `max`.
pub fn backoff(k: u32, period: SimTime, max: SimTime) -> SimTime {
    let shift = k.saturating_sub(1).min(30);
    period.saturating_mul(1 << shift).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_detected_per_initiator() {
        let mut t = RequestTable::default();
        assert!(t.first_sighting(1, 7));
        assert!(!t.first_sighting(1, 7));
        assert!(t.first_sighting(2, 7));
        for id in 100..100 + IDS_PER_INITIATOR as u16 {
            t.first_sighting(1, id);
        }
        assert!(t.first_sighting(1, 7), "forgotten after 16 newer ids");
    }

    #[test]
    fn ns2_rule_ignores_any_request_not_above_the_last_taken() {
        let mut t = RequestTable::default();
        assert!(t.stale(4, 0), "none taken reads as 0");
        assert!(!t.stale(4, 1));
        t.take_newest(4, 6);
        assert!(t.stale(4, 6), "the same request again");
        assert!(t.stale(4, 5), "an earlier request, never seen");
        assert!(!t.stale(4, 7));
        assert!(!t.stale(5, 1), "per initiator");
        // The target overwrites: a lower number taken lowers the bar.
        t.take_newest(4, 3);
        assert!(!t.stale(4, 5));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        assert_eq!(backoff(1, 500, 10_000), 500);
        assert_eq!(backoff(2, 500, 10_000), 1000);
        assert_eq!(backoff(5, 500, 10_000), 8000);
        assert_eq!(backoff(6, 500, 10_000), 10_000);
        assert_eq!(backoff(60, 500, 10_000), 10_000);
    }

    #[test]
    fn due_discoveries_in_target_order() {
        let mut t = RequestTable::default();
        t.set_discovery(
            9,
            Discovery {
                requests: 1,
                next_at: 5,
            },
        );
        t.set_discovery(
            3,
            Discovery {
                requests: 1,
                next_at: 5,
            },
        );
        t.set_discovery(
            4,
            Discovery {
                requests: 1,
                next_at: 8,
            },
        );
        assert_eq!(t.due(5), vec![3, 9]);
        assert_eq!(t.next_deadline(), Some(5));
        t.end_discovery(3);
        t.end_discovery(9);
        assert_eq!(t.next_deadline(), Some(8));
    }
}
