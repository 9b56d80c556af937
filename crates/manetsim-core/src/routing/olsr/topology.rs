//! The topology set (RFC 3626 sections 4.4 and 9.5): links (last → dest)
//! advertised in other nodes' TCs, each with the advertiser's ANSN.

use super::timed_map::{Expiring, TimedMap};
use crate::engine::SimTime;
use crate::net::NodeId;

/// Whether sequence number `a` is newer than `b` (RFC 3626 section 19,
/// wrap-around comparison of 16-bit numbers).
pub fn seq_newer(a: u16, b: u16) -> bool {
    (a > b && a - b <= 32768) || (b > a && b - a > 32768)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopologyTuple {
    /// T_seq: the ANSN of the TC that advertised the link.
    pub seq: u16,
    /// T_time.
    pub until: SimTime,
}

#[derive(Debug, Clone, Default)]
pub struct TopologySet {
    /// (T_last_addr, T_dest_addr) → tuple.
    tuples: TimedMap<(NodeId, NodeId), TopologyTuple>,
}

impl Expiring for TopologyTuple {
    fn until(&self) -> SimTime {
        self.until
    }
}

/// What a TC did to the topology set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcOutcome {
    /// Older than what the set holds from that originator: ignored.
    Stale,
    /// Applied; `changed` says whether a link appeared or disappeared.
    Applied { changed: bool },
}

impl TopologySet {
    /// Applies a TC from `last` (its originator) with `ansn`, advertising
    /// `advertised`, valid until `until` (RFC 3626 section 9.5, steps 2–4).
    pub fn on_tc(
        &mut self,
        last: NodeId,
        ansn: u16,
        advertised: &[NodeId],
        until: SimTime,
        now: SimTime,
    ) -> TcOutcome {
        let stale = self
            .tuples
            .range((last, 0)..=(last, NodeId::MAX))
            .any(|(_, t)| t.until > now && seq_newer(t.seq, ansn));
        if stale {
            return TcOutcome::Stale;
        }
        let before: Vec<NodeId> = self.dests_of(last, now);
        // Step 3: links advertised under an older ANSN go (those the TC
        // advertises again are replaced below, so their keys stay).
        let old: Vec<NodeId> = self
            .tuples
            .range((last, 0)..=(last, NodeId::MAX))
            .filter(|&(&(_, d), t)| seq_newer(ansn, t.seq) && !advertised.contains(&d))
            .map(|(&(_, d), _)| d)
            .collect();
        for d in old {
            self.tuples.remove(&(last, d));
        }
        for &d in advertised {
            self.tuples
                .insert((last, d), TopologyTuple { seq: ansn, until });
        }
        let after = self.dests_of(last, now);
        TcOutcome::Applied {
            changed: before != after,
        }
    }

    /// The live destinations `last` advertises, sorted.
    pub fn dests_of(&self, last: NodeId, now: SimTime) -> Vec<NodeId> {
        self.tuples
            .range((last, 0)..=(last, NodeId::MAX))
            .filter(|(_, t)| t.until > now)
            .map(|(&(_, d), _)| d)
            .collect()
    }

    /// Every destination `last` advertises, sorted, live or not yet
    /// expired by [`Self::expire`].
    pub fn advertised_by(&self, last: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.tuples
            .range((last, 0)..=(last, NodeId::MAX))
            .map(|(&(_, d), _)| d)
    }

    /// Removes expired tuples; returns whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        self.tuples.expire(now)
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.tuples.next_expiry()
    }

    /// Changes whenever a link appears or goes.
    pub fn generation(&self) -> u64 {
        self.tuples.generation()
    }

    /// (last, dest) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.tuples.keys().copied()
    }

    pub fn get(&self, last: NodeId, dest: NodeId) -> Option<&TopologyTuple> {
        self.tuples.get(&(last, dest))
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
    use super::*;

    #[test]
    fn ansn_comparison_wraps() {
        assert!(seq_newer(2, 1));
        assert!(!seq_newer(1, 2));
        assert!(!seq_newer(5, 5));
        assert!(seq_newer(0, 65535));
        assert!(!seq_newer(65535, 0));
    }

    #[test]
    fn a_newer_ansn_replaces_the_advertised_set_and_an_older_one_is_ignored() {
        let mut t = TopologySet::default();
        assert_eq!(
            t.on_tc(9, 10, &[1, 2], 100, 0),
            TcOutcome::Applied { changed: true }
        );
        assert_eq!(t.dests_of(9, 0), vec![1, 2]);
        // Same ANSN, same set: refreshed, nothing changed.
        assert_eq!(
            t.on_tc(9, 10, &[1, 2], 150, 1),
            TcOutcome::Applied { changed: false }
        );
        assert_eq!(t.get(9, 1).unwrap().until, 150);
        // Newer ANSN: 1 is withdrawn, 3 appears.
        assert_eq!(
            t.on_tc(9, 11, &[2, 3], 200, 2),
            TcOutcome::Applied { changed: true }
        );
        assert_eq!(t.dests_of(9, 2), vec![2, 3]);
        // A late TC with the old ANSN changes nothing.
        assert_eq!(t.on_tc(9, 10, &[1], 300, 3), TcOutcome::Stale);
        assert_eq!(t.dests_of(9, 3), vec![2, 3]);
        assert_eq!(t.next_expiry(), Some(200));
        assert!(t.expire(200));
        assert!(t.is_empty());
    }

    #[test]
    fn a_newer_tc_with_the_same_links_keeps_the_keys_and_their_generation() {
        let mut t = TopologySet::default();
        t.on_tc(9, 10, &[1, 2], 100, 0);
        t.on_tc(4, 3, &[9], 100, 0);
        let g = t.generation();
        assert_eq!(
            t.on_tc(9, 11, &[1, 2], 200, 1),
            TcOutcome::Applied { changed: false }
        );
        assert_eq!(t.generation(), g, "the same links: routes need not change");
        assert_eq!(
            t.get(9, 2),
            Some(&TopologyTuple {
                seq: 11,
                until: 200
            })
        );
        assert_eq!(t.next_expiry(), Some(100), "4's link still expires first");
        t.on_tc(9, 12, &[2], 300, 2);
        assert_ne!(t.generation(), g);
        assert_eq!(t.advertised_by(9).collect::<Vec<_>>(), vec![2]);
        assert_eq!(t.advertised_by(4).collect::<Vec<_>>(), vec![9]);
        assert_eq!(t.advertised_by(5).count(), 0);
    }
}
