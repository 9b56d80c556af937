//! The topology set (RFC 3626 sections 4.4 and 9.5): links (last → dest)
//! advertised in other nodes' TCs, each with the advertiser's ANSN.

use super::grouped::Grouped;
use super::timed_map::Expiring;
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

/// The topology set, kept per originator (T_last_addr, [`Grouped`]): the
/// links of one originator come from its TCs together. At 1,000 nodes every
/// node holds thousands of links.
#[derive(Debug, Clone, Default)]
pub struct TopologySet {
    /// T_last_addr → (T_dest_addr, tuple).
    links: Grouped<TopologyTuple>,
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
            .links
            .members(last)
            .iter()
            .any(|(_, t)| t.until > now && seq_newer(t.seq, ansn));
        if stale {
            return TcOutcome::Stale;
        }
        self.links.update(last, |links| {
            // Whether a live link (`until > now`) went or a link became live.
            let mut changed = false;
            // Step 3: links advertised under an older ANSN go (those the TC
            // advertises again are updated below, so they stay).
            links.retain(|d, t| {
                let keep = !seq_newer(ansn, t.seq) || advertised.contains(&d);
                changed |= !keep && t.until > now;
                keep
            });
            for &d in advertised {
                let old = links.upsert(d, TopologyTuple { seq: ansn, until });
                let was_live = old.is_some_and(|t| t.until > now);
                changed |= was_live != (until > now);
            }
            TcOutcome::Applied { changed }
        })
    }

    /// The live destinations `last` advertises, sorted.
    pub fn dests_of(&self, last: NodeId, now: SimTime) -> Vec<NodeId> {
        self.links
            .members(last)
            .iter()
            .filter(|(_, t)| t.until > now)
            .map(|&(d, _)| d)
            .collect()
    }

    /// Every destination `last` advertises, sorted, live or not yet
    /// expired by [`Self::expire`].
    pub fn advertised_by(&self, last: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.links.members(last).iter().map(|&(d, _)| d)
    }

    /// Removes the links whose time has come (`until <= now`); returns
    /// whether any went.
    pub fn expire(&mut self, now: SimTime) -> bool {
        self.links.expire(now)
    }

    pub fn next_expiry(&self) -> Option<SimTime> {
        self.links.next_expiry()
    }

    /// Changes whenever a link appears or goes.
    pub fn generation(&self) -> u64 {
        self.links.generation()
    }

    /// (last, dest) pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.links.iter()
    }

    pub fn get(&self, last: NodeId, dest: NodeId) -> Option<&TopologyTuple> {
        self.links.get(last, dest)
    }

    pub fn len(&self) -> usize {
        self.links.len()
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

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

    /// RFC 3626 section 9.5 over one map of (last, dest) → tuple, scanned
    /// whole for every question: the reference the set must equal.
    #[derive(Default)]
    struct Reference {
        tuples: BTreeMap<(NodeId, NodeId), TopologyTuple>,
    }

    impl Reference {
        fn on_tc(
            &mut self,
            last: NodeId,
            ansn: u16,
            adv: &[NodeId],
            until: SimTime,
            now: SimTime,
        ) -> bool {
            let mine =
                |t: &BTreeMap<(NodeId, NodeId), TopologyTuple>| -> Vec<(NodeId, TopologyTuple)> {
                    t.iter()
                        .filter(|(k, _)| k.0 == last)
                        .map(|(k, v)| (k.1, *v))
                        .collect()
                };
            if mine(&self.tuples)
                .iter()
                .any(|(_, t)| t.until > now && seq_newer(t.seq, ansn))
            {
                return false;
            }
            for (d, t) in mine(&self.tuples) {
                if seq_newer(ansn, t.seq) && !adv.contains(&d) {
                    self.tuples.remove(&(last, d));
                }
            }
            for &d in adv {
                self.tuples
                    .insert((last, d), TopologyTuple { seq: ansn, until });
            }
            true
        }

        fn expire(&mut self, now: SimTime) {
            self.tuples.retain(|_, t| t.until > now);
        }

        /// The destinations `last` advertises that hold at `now`.
        fn live(&self, last: NodeId, now: SimTime) -> Vec<NodeId> {
            self.tuples
                .iter()
                .filter(|(k, t)| k.0 == last && t.until > now)
                .map(|(k, _)| k.1)
                .collect()
        }

        fn next_expiry(&self) -> Option<SimTime> {
            self.tuples.values().map(|t| t.until).min()
        }
    }

    #[test]
    fn random_tcs_and_expiries_leave_the_set_the_reference_leaves() {
        let mut rng = crate::engine::Rng::new(3, crate::engine::Stream::Test, 0);
        for round in 0..200 {
            let mut set = TopologySet::default();
            let mut reference = Reference::default();
            let mut ansn = [0u16; 8];
            let mut now: SimTime = 0;
            for _ in 0..200 {
                now += (rng.uniform() * 3.0) as SimTime;
                if rng.uniform() < 0.2 {
                    set.expire(now);
                    reference.expire(now);
                } else {
                    let last = (rng.uniform() * 8.0) as NodeId;
                    // Mostly newer ANSNs; some repeated or late ones.
                    let step = (rng.uniform() * 4.0) as u16;
                    let a = ansn[last as usize].wrapping_add(step).wrapping_sub(1);
                    ansn[last as usize] = ansn[last as usize].max(a);
                    let adv: Vec<NodeId> = (0..10)
                        .filter(|_| rng.uniform() < 0.3)
                        .map(|d| d as NodeId)
                        .collect();
                    let until = now + 1 + (rng.uniform() * 20.0) as SimTime;
                    let g = set.generation();
                    let keys: Vec<_> = set.iter().collect();
                    let live_before = reference.live(last, now);
                    let applied = reference.on_tc(last, a, &adv, until, now);
                    let out = set.on_tc(last, a, &adv, until, now);
                    assert_eq!(applied, out != TcOutcome::Stale, "round {round}");
                    if applied {
                        let changed = live_before != reference.live(last, now);
                        assert_eq!(out, TcOutcome::Applied { changed }, "round {round}");
                    }
                    let keys_after: Vec<_> = set.iter().collect();
                    assert_eq!(
                        keys != keys_after,
                        set.generation() != g,
                        "the generation moves exactly when the links do"
                    );
                }
                let expect: Vec<_> = reference.tuples.iter().map(|(k, v)| (*k, *v)).collect();
                let got: Vec<_> = set
                    .iter()
                    .map(|(l, d)| ((l, d), *set.get(l, d).unwrap()))
                    .collect();
                assert_eq!(got, expect, "round {round} at {now}");
                assert_eq!(set.len(), expect.len());
                assert_eq!(set.next_expiry(), reference.next_expiry());
                for last in 0..8 {
                    let adv: Vec<_> = set.advertised_by(last).collect();
                    let refd: Vec<_> = expect
                        .iter()
                        .filter(|((l, _), _)| *l == last)
                        .map(|((_, d), _)| *d)
                        .collect();
                    assert_eq!(adv, refd);
                }
            }
        }
    }
}
