//! The RREQ duplicate cache (RFC 3561 section 6.5): (originator, RREQ id)
//! pairs seen in the last `lifetime` (ns-2's BCAST_ID_SAVE, 6 s).
//!
//! One open-addressed table (linear probing) holds each pair with its
//! expiry. An expired entry is never removed on its own: it is simply not a
//! duplicate any more, and a new pair may take its slot. When live and
//! expired entries fill half the table, it is rebuilt with the live ones
//! only, and grows if they alone fill a quarter. A lookup so touches one or
//! two cache lines, where a hashed set beside a FIFO of expiries touched
//! four; in a 1,000-node flood every node checks every RREQ.

use crate::engine::SimTime;
use crate::net::NodeId;

/// A slot: `expires == 0` marks an empty one (a pair seen at time 0 expires
/// at `lifetime > 0`).
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    orig: NodeId,
    id: u32,
    expires: SimTime,
}

#[derive(Debug, Clone)]
pub struct IdCache {
    lifetime: SimTime,
    /// With ticks (> 0), an entry is forgotten only at the first multiple
    /// of `tick` at or after `lifetime` has passed ([`IdCache::with_ticks`]).
    tick: SimTime,
    /// A power of two long (or empty before the first insertion).
    slots: Vec<Slot>,
    /// Non-empty slots, live or expired.
    used: usize,
}

const MIN_SLOTS: usize = 16;

/// When a record that expires at `expires` is gone, with purges every
/// `tick` from time 0 (the first at or after `expires`), or at once when
/// `tick` is 0: ns-2.35's `BroadcastTimer` (AODV's and AOMDV's).
pub(crate) fn purged_at(expires: SimTime, tick: SimTime) -> SimTime {
    if tick == 0 {
        expires
    } else {
        expires.div_ceil(tick).saturating_mul(tick)
    }
}

fn hash(orig: NodeId, id: u32) -> usize {
    let key = ((orig as u64) << 32) | id as u64;
    // Fibonacci hashing: the high bits of the product are well mixed.
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize
}

impl IdCache {
    /// A cache whose entries live `lifetime` (at least 1 ns).
    pub fn new(lifetime: SimTime) -> Self {
        Self {
            lifetime: lifetime.max(1),
            tick: 0,
            slots: Vec::new(),
            used: 0,
        }
    }

    /// A cache that forgets only at ticks `tick` apart, from time 0: an
    /// entry recorded at `t` is a duplicate until the first tick at or
    /// after `t + lifetime`, so for `lifetime` to `lifetime + tick`. This is
    /// ns-2.35's `BroadcastTimer`: every BCAST_ID_SAVE it deletes the ids
    /// whose `expire <= now`, and `id_lookup` matches any id still listed.
    pub fn with_ticks(lifetime: SimTime, tick: SimTime) -> Self {
        Self {
            tick,
            ..Self::new(lifetime)
        }
    }

    /// When an entry recorded at `now` stops being a duplicate.
    fn expiry(&self, now: SimTime) -> SimTime {
        purged_at(now.saturating_add(self.lifetime), self.tick)
    }

    /// Records (orig, id); returns true if it was already there and had not
    /// expired (a duplicate). An entry expires `lifetime` after it was
    /// recorded (with ticks, at the first tick from then): it is gone at
    /// exactly that instant.
    pub fn check_and_insert(&mut self, orig: NodeId, id: u32, now: SimTime) -> bool {
        if self.used * 2 >= self.slots.len() {
            self.rebuild(now);
        }
        let mask = self.slots.len() - 1;
        let mut i = hash(orig, id) & mask;
        // The first slot a new entry may take: empty, or expired.
        let mut free = None;
        loop {
            let s = self.slots[i];
            if s.expires == 0 {
                break;
            }
            let live = s.expires > now;
            if s.orig == orig && s.id == id {
                if live {
                    return true;
                }
                // Seen before, but expired: renew in place.
                free = Some(free.unwrap_or(i));
                break;
            }
            if !live && free.is_none() {
                free = Some(i);
            }
            i = (i + 1) & mask;
        }
        let at = match free {
            Some(at) => at,
            None => {
                self.used += 1;
                i
            }
        };
        self.slots[at] = Slot {
            orig,
            id,
            expires: self.expiry(now),
        };
        false
    }

    /// Whether `check_and_insert(orig, id, at)` would find a duplicate,
    /// without recording anything. A pair live at `at` stays so until then,
    /// whatever is inserted meanwhile.
    pub fn is_duplicate(&self, orig: NodeId, id: u32, at: SimTime) -> bool {
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut i = hash(orig, id) & mask;
        loop {
            let s = self.slots[i];
            if s.expires == 0 {
                return false;
            }
            if s.orig == orig && s.id == id {
                // The first match on the probe path is the latest record.
                return s.expires > at;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keeps the live entries only, in a table at least four times their
    /// number (so at most a quarter full).
    fn rebuild(&mut self, now: SimTime) {
        let live: Vec<Slot> = self
            .slots
            .iter()
            .copied()
            .filter(|s| s.expires > now)
            .collect();
        let len = (live.len() * 4).next_power_of_two().max(MIN_SLOTS);
        self.slots = vec![Slot::default(); len];
        self.used = live.len();
        let mask = len - 1;
        for s in live {
            let mut i = hash(s.orig, s.id) & mask;
            while self.slots[i].expires != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IntSet;
    use crate::engine::Rng;
    use crate::engine::Stream;
    use std::collections::VecDeque;

    #[test]
    fn duplicates_are_recognised_until_they_expire() {
        let mut c = IdCache::new(10);
        assert!(!c.check_and_insert(1, 7, 0));
        assert!(c.check_and_insert(1, 7, 5));
        assert!(!c.check_and_insert(2, 7, 5), "keyed by originator too");
        assert!(!c.check_and_insert(1, 7, 10), "expired");
        assert!(c.check_and_insert(1, 7, 19), "renewed at 10");
        assert!(!c.check_and_insert(1, 7, 20));
    }

    #[test]
    fn with_ticks_an_id_is_forgotten_at_the_first_tick_after_its_lifetime() {
        let mut c = IdCache::with_ticks(6, 6);
        assert!(!c.check_and_insert(1, 7, 1));
        assert!(c.check_and_insert(1, 7, 11), "7 s: expired, not yet purged");
        assert!(!c.check_and_insert(1, 7, 12), "purged at the tick at 12");
        assert!(c.check_and_insert(1, 7, 17), "recorded at 12, kept to 18");
        assert!(!c.check_and_insert(1, 7, 18));
        assert!(c.is_duplicate(1, 7, 23));
        assert!(!c.is_duplicate(1, 7, 24));
    }

    /// The plain definition: a FIFO of expiries beside a hashed set; with
    /// a tick, entries leave only at purges every `tick` from 0.
    struct Reference {
        lifetime: SimTime,
        tick: SimTime,
        next_purge: SimTime,
        order: VecDeque<(SimTime, (NodeId, u32))>,
        seen: IntSet<(NodeId, u32)>,
    }

    impl Reference {
        fn purge(&mut self, upto: SimTime) {
            while let Some(&(exp, key)) = self.order.front() {
                if exp > upto {
                    break;
                }
                self.order.pop_front();
                self.seen.remove(&key);
            }
        }

        fn check_and_insert(&mut self, orig: NodeId, id: u32, now: SimTime) -> bool {
            if self.tick == 0 {
                self.purge(now);
            }
            while self.tick > 0 && self.next_purge <= now {
                self.purge(self.next_purge);
                self.next_purge += self.tick;
            }
            if !self.seen.insert((orig, id)) {
                return true;
            }
            self.order.push_back((now + self.lifetime, (orig, id)));
            false
        }
    }

    #[test]
    fn agrees_with_the_plain_definition_through_growth_and_rebuilds() {
        agrees_with_the_plain_definition(0);
    }

    #[test]
    fn with_ticks_agrees_with_purges_every_tick() {
        agrees_with_the_plain_definition(700);
    }

    fn agrees_with_the_plain_definition(tick: SimTime) {
        let mut rng = Rng::new(3, Stream::Mobility, 0);
        let mut cache = IdCache::with_ticks(1_000, tick);
        let mut reference = Reference {
            lifetime: 1_000,
            tick,
            next_purge: 0,
            order: VecDeque::new(),
            seen: IntSet::default(),
        };
        // When an entry the reference expires at `exp` is purged.
        let gone = |exp: SimTime| {
            if tick == 0 {
                exp
            } else {
                exp.div_ceil(tick) * tick
            }
        };
        let mut now = 0;
        let mut duplicates = 0;
        let mut seen_ahead = 0;
        for step in 0..200_000u64 {
            // Bursts of many new pairs, then quiet stretches in which the
            // table empties: both growth and shrinking rebuilds happen.
            now += if step % 20_000 < 15_000 {
                rng.below(3)
            } else {
                rng.below(200)
            };
            let orig = rng.below(40) as NodeId;
            let id = rng.below(300) as u32;
            if step % 10 == 0 {
                // Asked ahead of time: a duplicate then iff recorded now and
                // still live then.
                let later = now + rng.below(1_500);
                let expiry = reference.order.iter().rev().find(|e| e.1 == (orig, id));
                let now_live = expiry.is_some_and(|e| gone(e.0) > now);
                let ahead = cache.is_duplicate(orig, id, later);
                assert_eq!(
                    ahead,
                    now_live && expiry.is_some_and(|e| gone(e.0) > later),
                    "step {step}"
                );
                seen_ahead += ahead as u32;
            }
            let got = cache.check_and_insert(orig, id, now);
            assert_eq!(
                got,
                reference.check_and_insert(orig, id, now),
                "step {step}"
            );
            duplicates += got as u32;
        }
        assert!(seen_ahead > 200, "asked ahead: {seen_ahead} duplicates");
        assert!(
            duplicates > 10_000,
            "the test must exercise duplicates ({duplicates})"
        );
        assert!(cache.slots.len() >= 4 * MIN_SLOTS, "and growth");
    }
}
