//! The event queue: binary min-heaps keyed by (time, class, sequence).
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
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which events go first among those due at the same instant.
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

/// Where an event stands among those at the same instant: its class in the
/// top bits, its sequence number below.
pub type TieKey = u64;

const CLASS_SHIFT: u32 = 62;

/// The tie key of sequence number `seq` in `class`.
pub fn tie_key(class: Class, seq: u64) -> TieKey {
    ((class as u64) << CLASS_SHIFT) | seq
}

/// The sequence number of a tie key.
pub fn seq_of(key: TieKey) -> u64 {
    key & ((1 << CLASS_SHIFT) - 1)
}

struct Entry<E> {
    time: SimTime,
    seq: TieKey,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }

    // The heap's sift asks these: one wide comparison each.
    #[inline]
    fn le(&self, other: &Self) -> bool {
        other.place() <= self.place()
    }

    #[inline]
    fn lt(&self, other: &Self) -> bool {
        other.place() < self.place()
    }
}
impl<E> Entry<E> {
    /// (time, tie key) as one number, compared in one step.
    #[inline]
    fn place(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.seq)
    }
}

impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.place().cmp(&self.place())
    }
}

/// A priority queue of events ordered by (time, class, insertion sequence).
pub struct EventQueue<E> {
    /// Events scheduled with [`Self::schedule`] or [`Self::schedule_keyed`].
    near: BinaryHeap<Entry<E>>,
    /// Events scheduled with [`Self::schedule_far`].
    far: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    /// The tie key of the last popped event.
    key: TieKey,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            near: BinaryHeap::with_capacity(1024),
            far: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: 0,
            key: 0,
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

    /// Schedules `event` at absolute time `time` ([`Class::Normal`]).
    /// Scheduling in the past is a logic error; the event is clamped to
    /// `now` in release builds.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.reserve_seq();
        self.schedule_keyed(time, tie_key(Class::Normal, seq), event);
    }

    /// As [`Self::schedule`], for an event of a kind that is rare and
    /// usually due far ahead (kept apart from the frequent ones: see the
    /// module's documentation). Only speed depends on the choice.
    pub fn schedule_far(&mut self, time: SimTime, event: E) {
        let key = tie_key(Class::Normal, self.reserve_seq());
        let entry = self.entry(time, key, event);
        self.far.push(entry);
    }

    /// Schedules `event` at `time` with the tie key `key` (see [`tie_key`]).
    pub fn schedule_keyed(&mut self, time: SimTime, key: TieKey, event: E) {
        let entry = self.entry(time, key, event);
        self.near.push(entry);
    }

    /// The heap entry of an event scheduled at `time`. Scheduling in the
    /// past is a logic error; the event is clamped to `now` in release builds.
    fn entry(&self, time: SimTime, key: TieKey, event: E) -> Entry<E> {
        debug_assert!(time >= self.now, "event scheduled in the past");
        Entry {
            time: time.max(self.now),
            seq: key,
            event,
        }
    }

    /// Removes and returns the earliest event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let from_far = match (self.near.peek(), self.far.peek()) {
            (Some(a), Some(b)) => b.place() < a.place(),
            (None, far) => far.is_some(),
            (Some(_), None) => false,
        };
        let e = if from_far {
            self.far.pop()
        } else {
            self.near.pop()
        }?;
        self.now = e.time;
        self.key = e.seq;
        Some((e.time, e.event))
    }

    /// The earliest event, without removing it: the one [`Self::pop`]
    /// returns next unless an earlier one is scheduled first.
    #[inline]
    pub fn peek(&self) -> Option<&E> {
        let e = match (self.near.peek(), self.far.peek()) {
            (Some(a), Some(b)) => {
                if b.place() < a.place() {
                    b
                } else {
                    a
                }
            }
            (a, b) => a.or(b)?,
        };
        Some(&e.event)
    }

    /// The time of the earliest event without removing it.
    pub fn peek_time(&self) -> Option<SimTime> {
        match (self.near.peek(), self.far.peek()) {
            (Some(a), Some(b)) => Some(a.time.min(b.time)),
            (a, b) => a.or(b).map(|e| e.time),
        }
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.near.is_empty() && self.far.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(tie_key(Class::RxEnd, u64::MAX >> 2) < tie_key(Class::Normal, 0));
        assert_eq!(seq_of(tie_key(Class::RxStart, early)), early);
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
