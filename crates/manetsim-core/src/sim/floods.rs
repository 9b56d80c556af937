//! Which nodes' routing agents have been handed a copy of each flood (an
//! AODV RREQ), so that `transmit` can tell, with one lookup per frame and
//! one bit per receiver, which receivers would drop a copy unread.
//!
//! The agent itself knows (its duplicate cache: [`RoutingProtocol::has_seen`]),
//! but asking it touches that agent's state at every receiver of every
//! copy: two cache misses per reception in a 1,000-node broadcast storm.
//! This log holds the same knowledge per flood instead, as a bitset over
//! the nodes.
//!
//! It relies on the agent's promise ([`RoutingProtocol::flood_memory`]):
//! first handed a copy of a flood at `t`, it drops unread every copy that
//! arrives before `t + memory`. A flood's record is made when the first
//! node is handed a copy, at `t0`; every node's first copy comes at or
//! after `t0`, so a node whose bit is set drops any copy arriving before
//! `t0 + memory`. A node whose bit is clear was never handed one, so it has
//! not seen the flood. A record is retired at `t0 + memory` and never made
//! again (a late copy could not be judged from a new `t0`): for a retired
//! flood the world asks the agent.
//!
//! [`RoutingProtocol::has_seen`]: crate::net::RoutingProtocol::has_seen
//! [`RoutingProtocol::flood_memory`]: crate::net::RoutingProtocol::flood_memory

use crate::engine::{IntMap, IntSet, SimTime};
use crate::net::NodeId;
use std::collections::VecDeque;

/// A flood's identity as the routing agent gives it (originator, id).
pub(crate) type FloodId = (NodeId, u32);

fn key((orig, id): FloodId) -> u64 {
    (u64::from(orig) << 32) | u64::from(id)
}

struct Flood {
    t0: SimTime,
    handed: Vec<u64>,
}

/// What the log knows of one flood.
pub(crate) enum Known<'a> {
    /// No node has been handed a copy.
    Never,
    /// Its record: see [`Record::seen`].
    Record(Record<'a>),
    /// Retired: ask the agents.
    Retired,
}

pub(crate) struct Record<'a> {
    until: SimTime,
    handed: &'a [u64],
}

impl Record<'_> {
    /// Whether node `n` surely drops unread a copy arriving at `at` (`Some(true)`),
    /// surely has not seen the flood (`Some(false)`), or may have (`None`:
    /// ask its agent).
    pub fn seen(&self, n: u32, at: SimTime) -> Option<bool> {
        let set = self.handed[n as usize / 64] & (1 << (n % 64)) != 0;
        if !set {
            Some(false)
        } else if at < self.until {
            Some(true)
        } else {
            None
        }
    }
}

pub(crate) struct FloodLog {
    words: usize,
    memory: SimTime,
    live: IntMap<u64, Flood>,
    /// Live floods by `t0`, to retire them in order.
    order: VecDeque<(SimTime, u64)>,
    retired: IntSet<u64>,
}

impl FloodLog {
    /// A log for `nodes` nodes whose agents keep floods for `memory`.
    pub fn new(nodes: usize, memory: SimTime) -> Self {
        Self {
            words: nodes.div_ceil(64),
            memory,
            live: IntMap::default(),
            order: VecDeque::new(),
            retired: IntSet::default(),
        }
    }

    /// Node `n`'s agent is handed a copy of flood `id` at `now`.
    pub fn handed(&mut self, id: FloodId, n: u32, now: SimTime) {
        while let Some(&(t0, k)) = self.order.front() {
            if t0.saturating_add(self.memory) > now {
                break;
            }
            self.order.pop_front();
            self.live.remove(&k);
            self.retired.insert(k);
        }
        let k = key(id);
        if self.retired.contains(&k) {
            return;
        }
        let words = self.words;
        let order = &mut self.order;
        let flood = self.live.entry(k).or_insert_with(|| {
            order.push_back((now, k));
            Flood {
                t0: now,
                handed: vec![0; words],
            }
        });
        flood.handed[n as usize / 64] |= 1 << (n % 64);
    }

    pub fn known(&self, id: FloodId) -> Known<'_> {
        let k = key(id);
        match self.live.get(&k) {
            Some(f) => Known::Record(Record {
                until: f.t0.saturating_add(self.memory),
                handed: &f.handed,
            }),
            None if self.retired.contains(&k) => Known::Retired,
            None => Known::Never,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(log: &FloodLog, id: FloodId, n: u32, at: SimTime) -> Option<bool> {
        match log.known(id) {
            Known::Never => Some(false),
            Known::Record(r) => r.seen(n, at),
            Known::Retired => None,
        }
    }

    #[test]
    fn a_flood_is_known_from_its_first_copy_until_its_memory_runs_out() {
        let mut log = FloodLog::new(130, 100);
        let f = (3, 7);
        assert!(matches!(log.known(f), Known::Never));
        assert_eq!(seen(&log, f, 129, 5), Some(false));
        log.handed(f, 129, 10);
        log.handed(f, 64, 40);
        assert_eq!(seen(&log, f, 129, 50), Some(true));
        // Judged from the first copy anyone got (10), not from node 64's.
        assert_eq!(seen(&log, f, 64, 109), Some(true));
        assert_eq!(seen(&log, f, 64, 110), None);
        assert_eq!(seen(&log, f, 0, 50), Some(false));
        assert_eq!(seen(&log, (3, 8), 129, 50), Some(false), "another id");
        // Retired once its memory has run out; never made again.
        log.handed((1, 1), 0, 110);
        assert!(matches!(log.known(f), Known::Retired));
        log.handed(f, 5, 120);
        assert!(matches!(log.known(f), Known::Retired));
        assert_eq!(seen(&log, (1, 1), 0, 111), Some(true));
    }
}
