//! A routing agent's timers (AODV, AOMDV, DSDV and OLSR share it): a queue ordered by (deadline, insertion number), so
//! timers due at the same instant fire in the order they were set and runs
//! are deterministic. Cancelling is lazy: a timer carries what it needs to
//! tell whether it is still wanted (e.g. a discovery's generation).

use crate::engine::SimTime;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct TimerQueue<T> {
    q: BTreeMap<(SimTime, u64), T>,
    seq: u64,
}

impl<T> Default for TimerQueue<T> {
    fn default() -> Self {
        Self {
            q: BTreeMap::new(),
            seq: 0,
        }
    }
}

impl<T> TimerQueue<T> {
    pub fn push(&mut self, at: SimTime, t: T) {
        self.q.insert((at, self.seq), t);
        self.seq += 1;
    }

    pub fn next_deadline(&self) -> Option<SimTime> {
        self.q.keys().next().map(|k| k.0)
    }

    /// The earliest timer due at or before `now`.
    pub fn pop_due(&mut self, now: SimTime) -> Option<(SimTime, T)> {
        let (&(at, _), _) = self.q.iter().next()?;
        if at > now {
            return None;
        }
        self.q.pop_first().map(|((at, _), t)| (at, t))
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_fire_by_deadline_then_insertion_order() {
        let mut t = TimerQueue::default();
        t.push(5, 'a');
        t.push(3, 'b');
        t.push(5, 'c');
        assert_eq!(t.next_deadline(), Some(3));
        assert_eq!(t.pop_due(2), None);
        assert_eq!(t.pop_due(5), Some((3, 'b')));
        assert_eq!(t.pop_due(5), Some((5, 'a')));
        assert_eq!(t.pop_due(5), Some((5, 'c')));
        assert!(t.is_empty());
    }
}
