//! The event queue: 4-ary min-heaps keyed by (time, class, sequence).
//!
//! The sequence number is assigned at insertion, so events of one class
//! scheduled for the same instant pop in the order they were scheduled.
//! Because the simulation is itself deterministic, that order is too: no
//! pointer, hash or thread order is ever involved.
//!
//! The class orders events of different kinds at the same instant (see
//! [`Class`]); a caller may also give an event a sequence number reserved
//! earlier ([`EventQueue::reserve_seq`]), so that work done without the
//! queue can be put exactly where its event would have been.
//!
//! Events live in one of two heaps, in one total order: the frequent
//! short-lived ones (MAC timers, receptions) in a small heap whose sifts stay
//! short and in cache, the rare long-lived ones (application, routing and
//! transport timers, [`EventQueue::schedule_far`]) in another. A pop takes
//! the earlier of the two tops, so which heap an event is in never changes
//! the order.

use super::SimTime;

/// Which events go first among those due at the same instant (of one
/// [`Phase`]: with `[mac] tie_rule = "ns2"` the phase orders events within
/// a nanosecond before the class does, reception ends apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Class {
    /// Ends of frame receptions: a frame that ends at `t` is over at `t`.
    RxEnd = 0,
    /// Everything else (timers, applications, routing), in scheduling order.
    Normal = 1,
    /// Starts of frame receptions: a frame that starts arriving at `t` is
    /// not yet sensed by a timer expiring at `t` (two stations whose
    /// backoffs end in the same slot both transmit, and collide).
    RxStart = 2,
}

/// Where an event stands among those at the same instant: reception ends
/// first, then by [`Phase`], then other events before reception starts,
/// then by sequence number. Laid out, from the top bit: whether the class
/// is other than [`Class::RxEnd`] (1 bit), the phase (`PHASE_BITS`),
/// whether it is [`Class::RxStart`] (1 bit), the sequence number (the rest,
/// `SEQ_BITS`). With every phase [`PHASE_NEUTRAL`] (as unless `[mac]
/// tie_rule = "ns2"`) the order is ends, everything else, starts.
pub type TieKey = u64;

/// Where within its nanosecond an event falls: the part of a propagation
/// delay that rounding to whole nanoseconds took away, in units of
/// 2^-`PHASE_BITS` ns from -0.5 ns ([`phase_of_remainder`]); an event
/// inherits the phase of the event that scheduled it.
pub type Phase = u16;

/// Bits of a tie key that hold the phase: 1/65,536 ns (15 fs, the time
/// light takes over 4.6 µm).
pub const PHASE_BITS: u32 = 16;

/// Bits of a tie key that hold the sequence number: 7 × 10^13 events.
pub const SEQ_BITS: u32 = 64 - 2 - PHASE_BITS;

/// The phase of an event on the nanosecond.
pub const PHASE_NEUTRAL: Phase = 1 << (PHASE_BITS - 1);

const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// The phase of an instant `remainder_ns` past the nanosecond it was
/// rounded to (-0.5 to 0.5 ns).
pub fn phase_of_remainder(remainder_ns: f64) -> Phase {
    let units = ((remainder_ns + 0.5) * f64::from(1u32 << PHASE_BITS)).floor();
    units.clamp(0.0, f64::from(Phase::MAX)) as Phase
}

/// The tie key of sequence number `seq` in `class`, on the nanosecond.
pub fn tie_key(class: Class, seq: u64) -> TieKey {
    tie_key_at(class, PHASE_NEUTRAL, seq)
}

/// The tie key of sequence number `seq` in `class` at `phase`.
#[inline]
pub fn tie_key_at(class: Class, phase: Phase, seq: u64) -> TieKey {
    debug_assert!(seq < SEQ_MASK, "sequence numbers run out");
    let after_ends = u64::from(class != Class::RxEnd);
    let start = u64::from(class == Class::RxStart);
    (after_ends << 63) | (u64::from(phase) << (SEQ_BITS + 1)) | (start << SEQ_BITS) | seq
}

/// The sequence number of a tie key.
pub fn seq_of(key: TieKey) -> u64 {
    key & SEQ_MASK
}

/// The phase of a tie key.
#[inline]
pub fn phase_of(key: TieKey) -> Phase {
    (key >> (SEQ_BITS + 1)) as Phase
}

/// Where an event stands in the one total order: its time in the high 64
/// bits, its tie key below, compared in one step. No two queued events share
/// one, so any correct heap pops them in the same order.
pub type Place = u128;

/// The [`Place`] of time `time` and tie key `key`.
#[inline]
pub fn place(time: SimTime, key: TieKey) -> Place {
    (Place::from(time) << 64) | Place::from(key)
}

/// A 4-ary min-heap with the places apart from the events, laid out so
/// that the four children of an entry fill one cache line: a sift reads
/// one line of places a level, and a level fewer than a binary heap's
/// every second step.
///
/// Entry `i` (the root is 0, the children of `i` are `4i + 1` to `4i + 4`)
/// sits at `i + 3` in the lines of places, so the children of `i` are
/// exactly line `i + 1`. Places past the last entry are [`Place::MAX`],
/// which no event has (no sequence number sets all of a tie key's low
/// bits), so a sift compares four children always; line 0 begins with three of them.
struct QuadHeap<E> {
    lines: Vec<Line>,
    events: Vec<E>,
}

/// Four places in one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([Place; 4]);

const EMPTY: Line = Line([Place::MAX; 4]);

impl<E: Copy> QuadHeap<E> {
    fn with_capacity(n: usize) -> Self {
        Self {
            lines: vec![EMPTY],
            events: Vec::with_capacity(n),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.events.len()
    }

    #[inline]
    fn at(&self, i: usize) -> Place {
        let s = i + 3;
        self.lines[s / 4].0[s % 4]
    }

    #[inline]
    fn set(&mut self, i: usize, at: Place) {
        let s = i + 3;
        self.lines[s / 4].0[s % 4] = at;
    }

    #[inline]
    fn top_place(&self) -> Option<Place> {
        (!self.events.is_empty()).then(|| self.lines[0].0[3])
    }

    #[inline]
    fn top(&self) -> Option<&E> {
        self.events.first()
    }

    fn push(&mut self, at: Place, event: E) {
        debug_assert!(at < Place::MAX, "the place past the last entry");
        let mut hole = self.events.len();
        // Its line: entry `i` sits at `i + 3`.
        if hole.div_ceil(4) == self.lines.len() {
            self.lines.push(EMPTY);
        }
        self.events.push(event);
        while hole > 0 {
            let parent = (hole - 1) / 4;
            let p = self.at(parent);
            if p <= at {
                break;
            }
            self.set(hole, p);
            self.events[hole] = self.events[parent];
            hole = parent;
        }
        self.set(hole, at);
        self.events[hole] = event;
    }

    fn pop(&mut self) -> Option<(Place, E)> {
        let top = (self.top_place()?, self.events[0]);
        let last = match self.events.pop() {
            Some(e) => e,
            None => unreachable!("the heap has a top"),
        };
        let n = self.events.len();
        let last_at = self.at(n);
        self.set(n, Place::MAX);
        if n == 0 {
            return Some(top);
        }
        // Move the hole at the root down to where the last entry belongs.
        // The hole's place is `slot` of line `line` (the root's: 3 of 0; a
        // child's: its rank among the four of line `hole + 1`).
        let (mut hole, mut line, mut slot) = (0, 0, 3);
        while 4 * hole + 1 < n {
            // Children past the last entry are `Place::MAX`: never least
            // while one is an entry.
            let kids = &self.lines[hole + 1].0;
            let (least, least_at) = least_of_four(kids);
            if least_at >= last_at {
                break;
            }
            self.lines[line].0[slot & 3] = least_at;
            let child = 4 * hole + 1 + least;
            self.events[hole] = self.events[child];
            (hole, line, slot) = (child, hole + 1, least);
        }
        self.lines[line].0[slot & 3] = last_at;
        self.events[hole] = last;
        Some(top)
    }
}

/// The index and place of the least of four children, as a tournament of
/// selects the compiler makes branch-free: which child is least is random,
/// so a branch per comparison would be mispredicted half the time.
#[inline(always)]
fn least_of_four(kids: &[Place; 4]) -> (usize, Place) {
    let pick = |(i, a): (usize, Place), (j, b): (usize, Place)| {
        let right = b < a;
        (if right { j } else { i }, if right { b } else { a })
    };
    let left = pick((0, kids[0]), (1, kids[1]));
    let right = pick((2, kids[2]), (3, kids[3]));
    pick(left, right)
}

/// A priority queue of events ordered by (time, class, insertion sequence).
pub struct EventQueue<E> {
    /// Events scheduled with [`Self::schedule`] or [`Self::schedule_keyed`].
    near: QuadHeap<E>,
    /// Events scheduled with [`Self::schedule_far`].
    far: QuadHeap<E>,
    next_seq: u64,
    now: SimTime,
    /// The tie key of the last popped event.
    key: TieKey,
    /// The phase events scheduled with [`Self::schedule`] and
    /// [`Self::schedule_far`] get: the last popped event's.
    phase: Phase,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            near: QuadHeap::with_capacity(1024),
            far: QuadHeap::with_capacity(1024),
            next_seq: 0,
            now: 0,
            key: 0,
            phase: PHASE_NEUTRAL,
        }
    }

    /// The time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The tie key of the last popped event: with [`Self::now`], where the
    /// simulation stands.
    pub fn key(&self) -> TieKey {
        self.key
    }

    /// Takes the next sequence number, for an event that may be scheduled
    /// later with [`Self::schedule_keyed`] or never be scheduled at all.
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// The phase of the last popped event, which the events it schedules
    /// inherit (see [`Phase`]).
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Schedules `event` at absolute time `time` ([`Class::Normal`], at
    /// [`Self::phase`]). Scheduling in the past is a logic error; the event
    /// is clamped to `now` in release builds.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        self.schedule_at_phase(time, self.phase, event);
    }

    /// As [`Self::schedule`], at phase `phase`.
    pub fn schedule_at_phase(&mut self, time: SimTime, phase: Phase, event: E) {
        let seq = self.reserve_seq();
        self.schedule_keyed(time, tie_key_at(Class::Normal, phase, seq), event);
    }

    /// As [`Self::schedule`], for an event of a kind that is rare and
    /// usually due far ahead (kept apart from the frequent ones: see the
    /// module's documentation). Only speed depends on the choice.
    pub fn schedule_far(&mut self, time: SimTime, event: E) {
        let key = tie_key_at(Class::Normal, self.phase, self.reserve_seq());
        let at = self.place(time, key);
        self.far.push(at, event);
    }

    /// Schedules `event` at `time` with the tie key `key` (see [`tie_key`]).
    pub fn schedule_keyed(&mut self, time: SimTime, key: TieKey, event: E) {
        let at = self.place(time, key);
        self.near.push(at, event);
    }

    /// The place of an event scheduled at `time`. Scheduling in the past is
    /// a logic error; the event is clamped to `now` in release builds.
    fn place(&self, time: SimTime, key: TieKey) -> Place {
        debug_assert!(time >= self.now, "event scheduled in the past");
        place(time.max(self.now), key)
    }

    /// Whether the earliest event is in the far heap.
    #[inline]
    fn far_first(&self) -> bool {
        match (self.near.top_place(), self.far.top_place()) {
            (Some(a), Some(b)) => b < a,
            (None, far) => far.is_some(),
            (Some(_), None) => false,
        }
    }

    /// Removes and returns the earliest event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (at, event) = if self.far_first() {
            self.far.pop()
        } else {
            self.near.pop()
        }?;
        self.now = (at >> 64) as SimTime;
        self.key = at as TieKey;
        self.phase = phase_of(self.key);
        Some((self.now, event))
    }

    /// The earliest event, without removing it: the one [`Self::pop`]
    /// returns next unless an earlier one is scheduled first.
    #[inline]
    pub fn peek(&self) -> Option<&E> {
        if self.far_first() {
            self.far.top()
        } else {
            self.near.top()
        }
    }

    /// The time of the earliest event without removing it.
    pub fn peek_time(&self) -> Option<SimTime> {
        let at = match (self.near.top_place(), self.far.top_place()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some((at >> 64) as SimTime)
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.near.len() == 0 && self.far.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_of_four_finds_the_least_child_in_every_order() {
        let values: [Place; 4] = [7, 3 << 64, 5, u128::MAX];
        let mut seen = 0;
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    for d in 0..4 {
                        let ix = [a, b, c, d];
                        if (1..4).any(|i| ix[..i].contains(&ix[i])) {
                            continue;
                        }
                        let kids = ix.map(|i| values[i]);
                        let least = kids.iter().position(|&k| k == 5).unwrap();
                        assert_eq!(least_of_four(&kids), (least, 5), "{kids:?}");
                        seen += 1;
                    }
                }
            }
        }
        assert_eq!(seen, 24);
    }

    #[test]
    fn a_last_parent_with_fewer_than_four_children_sifts_right() {
        // Every size up to three levels, so that the last parent has one,
        // two, three or four children (the rest of its line `Place::MAX`),
        // filled in rising, falling and interleaved order.
        for n in 1..=21u32 {
            let orders: [Vec<u32>; 3] = [
                (0..n).collect(),
                (0..n).rev().collect(),
                // 23 is prime and above 21: a permutation.
                (0..n).map(|i| (i * 23) % n).collect(),
            ];
            for order in orders {
                let mut h = QuadHeap::with_capacity(4);
                for &v in &order {
                    h.push(Place::from(v) << 64, v);
                }
                let popped: Vec<u32> = std::iter::from_fn(|| h.pop().map(|(_, v)| v)).collect();
                assert_eq!(popped, (0..n).collect::<Vec<_>>(), "{order:?}");
                assert!(h.lines.iter().all(|l| l.0 == [Place::MAX; 4]));
            }
        }
    }

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(20, 'b');
        assert_eq!(q.pop(), Some((10, 'a')));
        assert_eq!(q.now(), 10);
        assert_eq!(q.pop(), Some((20, 'b')));
        assert_eq!(q.pop(), Some((30, 'c')));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.schedule(5, i);
        }
        q.schedule(4, -1);
        assert_eq!(q.pop(), Some((4, -1)));
        for i in 0..100 {
            assert_eq!(q.pop(), Some((5, i)));
        }
    }

    #[test]
    fn classes_order_events_at_the_same_instant() {
        let mut q = EventQueue::new();
        let early = q.reserve_seq();
        q.schedule_keyed(5, tie_key(Class::RxStart, early), "start");
        q.schedule(5, "timer");
        let late = q.reserve_seq();
        q.schedule_keyed(5, tie_key(Class::RxEnd, late), "end");
        q.schedule(4, "before");
        assert_eq!(q.pop(), Some((4, "before")));
        assert_eq!(q.pop(), Some((5, "end")));
        assert_eq!(q.key(), tie_key(Class::RxEnd, late));
        assert_eq!(q.pop(), Some((5, "timer")));
        assert_eq!(q.pop(), Some((5, "start")));
        assert_eq!(q.key(), tie_key(Class::RxStart, early));
        assert!(tie_key(Class::RxEnd, SEQ_MASK - 1) < tie_key(Class::Normal, 0));
        assert_eq!(seq_of(tie_key(Class::RxStart, early)), early);
    }

    #[test]
    fn phases_order_timers_and_starts_within_their_nanosecond() {
        let mut q = EventQueue::new();
        let late = phase_of_remainder(0.2);
        let early = phase_of_remainder(-0.1);
        assert!(early < PHASE_NEUTRAL && PHASE_NEUTRAL < late);
        let s = q.reserve_seq();
        q.schedule_keyed(5, tie_key_at(Class::RxStart, early, s), "early start");
        q.schedule_at_phase(5, late, "late timer");
        let s = q.reserve_seq();
        q.schedule_keyed(5, tie_key_at(Class::RxStart, late, s), "late start");
        let s = q.reserve_seq();
        q.schedule_keyed(5, tie_key_at(Class::RxEnd, late, s), "late end");
        q.schedule(5, "neutral timer");
        assert_eq!(q.pop(), Some((5, "late end")));
        assert_eq!(q.pop(), Some((5, "early start")));
        assert_eq!(q.phase(), early);
        // What an event schedules inherits its phase.
        q.schedule(5, "inherits early");
        assert_eq!(q.pop(), Some((5, "inherits early")));
        assert_eq!(q.pop(), Some((5, "neutral timer")));
        assert_eq!(q.pop(), Some((5, "late timer")));
        assert_eq!(q.pop(), Some((5, "late start")));
        assert_eq!(q.phase(), late);
        assert_eq!(phase_of(tie_key_at(Class::Normal, late, 9)), late);
        assert_eq!(seq_of(tie_key_at(Class::RxStart, late, 9)), 9);
        assert_eq!(phase_of_remainder(-0.5), 0);
        assert_eq!(phase_of_remainder(0.0), PHASE_NEUTRAL);
        assert_eq!(phase_of_remainder(0.5), Phase::MAX);
    }

    #[test]
    fn peek_shows_what_pops_next_from_either_heap() {
        let mut q = EventQueue::new();
        assert_eq!(q.peek(), None);
        q.schedule(7, "near");
        q.schedule_far(5, "far");
        assert_eq!(q.peek(), Some(&"far"));
        assert_eq!(q.pop(), Some((5, "far")));
        assert_eq!(q.peek(), Some(&"near"));
        q.schedule_far(7, "far, later in the tie");
        assert_eq!(q.peek(), Some(&"near"));
        assert_eq!(q.pop(), Some((7, "near")));
        assert_eq!(q.peek(), Some(&"far, later in the tie"));
    }

    #[test]
    fn far_events_pop_in_the_one_order() {
        let mut q = EventQueue::new();
        q.schedule_far(5, "far first");
        q.schedule(5, "near second");
        q.schedule_far(5, "far third");
        let start = q.reserve_seq();
        q.schedule_keyed(5, tie_key(Class::RxStart, start), "start last");
        q.schedule(3, "near early");
        q.schedule_far(9, "far late");
        assert_eq!(q.len(), 6);
        assert_eq!(q.peek_time(), Some(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [
                "near early",
                "far first",
                "near second",
                "far third",
                "start last",
                "far late"
            ]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn two_heaps_pop_as_one() {
        // The same random schedule, once all near and once split at random
        // between the heaps, pops the same sequence.
        let run = |split: bool| {
            let mut q = EventQueue::new();
            let mut rng = crate::engine::Rng::new(11, crate::engine::Stream::Test, 0);
            let mut popped = Vec::new();
            q.schedule(0, 0u32);
            let mut id = 1;
            while let Some((t, e)) = q.pop() {
                popped.push((t, e));
                if popped.len() < 5_000 {
                    for _ in 0..2 {
                        let at = t + rng.below(50);
                        let coin = rng.below(2) == 0;
                        if split && coin {
                            q.schedule_far(at, id);
                        } else {
                            q.schedule(at, id);
                        }
                        id += 1;
                    }
                }
            }
            popped
        };
        let (one, two) = (run(false), run(true));
        assert!(one.len() >= 5_000);
        assert_eq!(one, two);
    }

    #[test]
    fn pops_as_a_sorted_model_does() {
        // Random schedules in all three ways, with clustered times so that
        // ties are common, against a sorted map of (time, tie key).
        let mut q = EventQueue::new();
        let mut model = std::collections::BTreeMap::new();
        let mut rng = crate::engine::Rng::new(5, crate::engine::Stream::Test, 0);
        let mut id = 0u32;
        for round in 0..20_000 {
            for _ in 0..rng.below(4) {
                let at = q.now() + rng.below(8) * 1_000;
                let key = match rng.below(3) {
                    0 => {
                        q.schedule_far(at, id);
                        tie_key_at(Class::Normal, q.phase(), q.next_seq - 1)
                    }
                    1 => {
                        let class = [Class::RxEnd, Class::RxStart][rng.below(2) as usize];
                        let phase = PHASE_NEUTRAL - 2 + rng.below(5) as Phase;
                        let key = tie_key_at(class, phase, q.reserve_seq());
                        q.schedule_keyed(at, key, id);
                        key
                    }
                    _ => {
                        q.schedule(at, id);
                        tie_key_at(Class::Normal, q.phase(), q.next_seq - 1)
                    }
                };
                model.insert((at, key), id);
                id += 1;
            }
            if round % 3 != 0 {
                let want = model.pop_first().map(|((t, _), e)| (t, e));
                assert_eq!(q.peek().copied(), want.map(|(_, e)| e));
                assert_eq!(q.pop(), want);
            }
            assert_eq!(q.len(), model.len());
        }
        while let Some(((t, key), e)) = model.pop_first() {
            assert_eq!(q.pop(), Some((t, e)));
            assert_eq!(q.key(), key);
        }
        assert!(q.is_empty());
    }

    #[test]
    fn interleaved_schedule_and_pop_stay_ordered() {
        let mut q = EventQueue::new();
        let mut rng = crate::engine::Rng::new(7, crate::engine::Stream::Test, 0);
        let mut last = 0;
        q.schedule(0, 0u32);
        let mut popped = 0;
        while let Some((t, _)) = q.pop() {
            assert!(t >= last);
            last = t;
            popped += 1;
            if popped < 10_000 {
                for _ in 0..2 {
                    q.schedule(t + rng.below(1000), 0);
                }
            }
        }
        assert!(popped >= 10_000);
    }
}
