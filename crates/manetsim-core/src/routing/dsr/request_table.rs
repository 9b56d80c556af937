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
    discoveries: BTreeMap<NodeId, Discovery>,
}

/// How many nodes ns-2.35's request table holds (`DSRAgent`'s
/// `request_table(128)`).
pub const NS2_ENTRIES: usize = 128;

/// ns-2.35's request table (`requesttable.cc`): one entry per node, which
/// holds both the last request number this node took from it as an
/// initiator and this node's pacing `P` of discoveries with it as the
/// target. It holds [`NS2_ENTRIES`] nodes; a node not in it takes the next
/// entry round-robin, whoever held it (ns-2's `insert` and `getEntry`
/// create, `get` does not). A node forgotten so reads as new: no request
/// taken from it, its pacing fresh.
#[derive(Debug, Clone)]
pub struct Ns2Table<P> {
    entries: Vec<Ns2Entry<P>>,
    /// Where each node's entry is.
    index: BTreeMap<NodeId, usize>,
    /// The entry the next new node takes.
    next: usize,
}

#[derive(Debug, Clone)]
struct Ns2Entry<P> {
    node: NodeId,
    /// The last request number taken from `node` (0: none).
    taken: u16,
    pacing: P,
}

impl<P> Default for Ns2Table<P> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            index: BTreeMap::new(),
            next: 0,
        }
    }
}

impl<P: Default> Ns2Table<P> {
    /// The entry for `node`, created (and another node's forgotten) if
    /// it has none.
    fn slot(&mut self, node: NodeId) -> usize {
        if let Some(&i) = self.index.get(&node) {
            return i;
        }
        let i = self.next;
        let e = Ns2Entry {
            node,
            taken: 0,
            pacing: P::default(),
        };
        if i < self.entries.len() {
            let old = std::mem::replace(&mut self.entries[i], e);
            self.index.remove(&old.node);
        } else {
            self.entries.push(e);
        }
        self.index.insert(node, i);
        self.next = (i + 1) % NS2_ENTRIES;
        i
    }

    /// The last request number taken from `initiator`, 0 if none (or its
    /// entry was given to another node): ns-2's `get`.
    pub fn taken(&self, initiator: NodeId) -> u16 {
        self.index
            .get(&initiator)
            .map_or(0, |&i| self.entries[i].taken)
    }

    /// Records `id` as the last request number taken from `initiator`,
    /// whether or not it is above the one before: ns-2's `insert`.
    pub fn take(&mut self, initiator: NodeId, id: u16) {
        let i = self.slot(initiator);
        self.entries[i].taken = id;
    }

    /// The pacing of discoveries of `target`, created if the table has no
    /// entry for it: ns-2's `getEntry`.
    pub fn pacing_mut(&mut self, target: NodeId) -> &mut P {
        let i = self.slot(target);
        &mut self.entries[i].pacing
    }

    /// The pacing of discoveries of `target`, if the table holds it.
    pub fn pacing(&self, target: NodeId) -> Option<&P> {
        self.index.get(&target).map(|&i| &self.entries[i].pacing)
    }
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
    fn ns2_table_keeps_the_last_request_number_taken_per_initiator() {
        let mut t = Ns2Table::<u32>::default();
        assert_eq!(t.taken(4), 0, "none taken reads as 0");
        t.take(4, 6);
        assert_eq!((t.taken(4), t.taken(5)), (6, 0));
        // Overwritten, not raised: a lower number taken lowers the bar.
        t.take(4, 3);
        assert_eq!(t.taken(4), 3);
        assert_eq!(t.pacing(4), Some(&0), "the same entry holds the pacing");
        assert_eq!(t.pacing(5), None, "reading creates nothing");
    }

    #[test]
    fn ns2_table_gives_the_next_entry_round_robin_to_a_new_node() {
        let mut t = Ns2Table::<u32>::default();
        t.take(1000, 9);
        *t.pacing_mut(2000) = 7;
        for n in 0..NS2_ENTRIES as NodeId - 2 {
            t.take(n, 1);
        }
        // Full: the nodes first in still hold their entries.
        assert_eq!((t.taken(1000), t.pacing(2000)), (9, Some(&7)));
        // A 129th node takes node 1000's entry, a 130th node 2000's.
        *t.pacing_mut(3000) = 1;
        assert_eq!(t.taken(1000), 0, "forgotten: reads as new");
        assert_eq!(t.pacing(2000), Some(&7));
        t.take(4000, 2);
        assert_eq!(t.pacing(2000), None);
        assert_eq!((t.taken(4000), t.taken(0)), (2, 1));
        // Node 1000 comes back into the next entry, node 0's, afresh.
        assert_eq!(*t.pacing_mut(1000), 0);
        assert_eq!((t.taken(1000), t.taken(0), t.taken(1)), (0, 0, 1));
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
