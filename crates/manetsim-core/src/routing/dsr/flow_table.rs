//! DSR flow state (RFC 4728 section 3.5), with ns-2.35's rules.
//!
//! A source that sends along a route opens a *flow*: a 16-bit id it picks,
//! unique for it. The flow's first packets carry the whole source route and
//! the id; every node they pass keeps an entry (next hop, its own place on
//! the route, the TTL it saw) and later packets carry only the 4-byte flow
//! header, which relays forward by their entry. ns-2.35 only makes odd ids
//! and takes the newest odd flow between a source and a destination as
//! their *default flow*, whose packets may carry no DSR header at all.
//!
//! The table follows ns-2's `FlowTable`: entries are never removed (ns-2's
//! clean-up returns at once; its table holds 3,000 entries), the newest
//! flow of a pair becomes its default, and a dead link expires only the
//! flows this node itself originated.

use crate::engine::SimTime;
use crate::net::NodeId;
use std::collections::BTreeMap;

/// One flow a node knows of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowEntry {
    /// Until when the flow lives (refreshed whenever it carries a packet).
    pub timeout: SimTime,
    /// Set when a link of this node's own flow broke: the flow is over.
    pub dead: bool,
    /// This node's index on `route` (0 at the source).
    pub hop_count: u8,
    /// The TTL the flow's packets have when they reach this node; a packet
    /// without a header whose TTL differs is not on the default flow.
    pub expected_ttl: u8,
    /// The whole route, source first, destination last.
    pub route: Vec<NodeId>,
    pub next_hop: NodeId,
    /// At the source: packets that advertised the route (establishing
    /// packets) since it was opened or last reported unknown.
    pub count: u32,
    /// At the source: when the route was last advertised.
    pub last_adv: SimTime,
    /// At the source: whether its packets may go without a header when the
    /// flow is the default one.
    pub allow_default: bool,
    /// Creation order, to find the newest flow along a route.
    seq: u64,
}

impl FlowEntry {
    /// An entry for a flow along `route` at this node's place `hop_count`.
    pub fn new(route: Vec<NodeId>, hop_count: u8, expected_ttl: u8, timeout: SimTime) -> Self {
        let next_hop = route[hop_count as usize + 1];
        Self {
            timeout,
            dead: false,
            hop_count,
            expected_ttl,
            route,
            next_hop,
            count: 0,
            last_adv: 0,
            allow_default: false,
            seq: 0,
        }
    }

    /// Whether the flow still lives at `now`.
    pub fn alive(&self, now: SimTime) -> bool {
        !self.dead && self.timeout >= now
    }
}

/// A node's flows, keyed by (source, destination, flow id).
#[derive(Debug, Clone, Default)]
pub struct FlowTable {
    entries: BTreeMap<(NodeId, NodeId, u16), FlowEntry>,
    /// The default flow of each (source, destination) pair.
    defaults: BTreeMap<(NodeId, NodeId), u16>,
    /// The next id this node gives a flow it opens.
    counter: u16,
    seq: u64,
}

impl FlowTable {
    /// A fresh odd id for a flow this node opens (ns-2 opens every flow
    /// as a possible default flow, and those have odd ids).
    pub fn next_id(&mut self) -> u16 {
        if self.counter & 1 == 0 {
            self.counter = self.counter.wrapping_add(1);
        }
        let id = self.counter;
        self.counter = self.counter.wrapping_add(1);
        id
    }

    /// Adds `entry` for flow `id` of `src -> dst` unless it is known; an
    /// odd id newer than the pair's default flow becomes the default.
    /// Returns whether it was added.
    pub fn create(&mut self, src: NodeId, dst: NodeId, id: u16, mut entry: FlowEntry) -> bool {
        if self.entries.contains_key(&(src, dst, id)) {
            return false;
        }
        self.seq += 1;
        entry.seq = self.seq;
        self.entries.insert((src, dst, id), entry);
        if id & 1 == 1 {
            let d = self.defaults.entry((src, dst)).or_insert(id);
            // Newer in 16-bit serial arithmetic.
            if (id.wrapping_sub(*d) as i16) > 0 {
                *d = id;
            }
        }
        true
    }

    pub fn get(&self, src: NodeId, dst: NodeId, id: u16) -> Option<&FlowEntry> {
        self.entries.get(&(src, dst, id))
    }

    pub fn get_mut(&mut self, src: NodeId, dst: NodeId, id: u16) -> Option<&mut FlowEntry> {
        self.entries.get_mut(&(src, dst, id))
    }

    /// The default flow of `src -> dst`, if one was ever opened or learned.
    pub fn default_flow(&self, src: NodeId, dst: NodeId) -> Option<u16> {
        self.defaults.get(&(src, dst)).copied()
    }

    /// The newest flow of `src -> dst` along exactly `route`.
    pub fn find_route(&self, src: NodeId, dst: NodeId, route: &[NodeId]) -> Option<u16> {
        self.entries
            .range((src, dst, 0)..=(src, dst, u16::MAX))
            .filter(|(_, e)| e.route == route)
            .max_by_key(|(_, e)| e.seq)
            .map(|(k, _)| k.2)
    }

    /// The link `from -> to` is broken: the live flows `me` originated over
    /// it are over (ns-2 leaves other nodes' flows alone).
    pub fn notice_dead_link(&mut self, me: NodeId, from: NodeId, to: NodeId, now: SimTime) {
        for ((src, _, _), e) in self
            .entries
            .range_mut((me, 0, 0)..=(me, NodeId::MAX, u16::MAX))
        {
            debug_assert_eq!(*src, me);
            if e.alive(now) && e.route.windows(2).any(|w| w[0] == from && w[1] == to) {
                e.dead = true;
            }
        }
    }

    /// Flows known (for tests and memory accounting).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_odd_and_count_up() {
        let mut t = FlowTable::default();
        assert_eq!(
            (0..4).map(|_| t.next_id()).collect::<Vec<_>>(),
            [1, 3, 5, 7]
        );
    }

    #[test]
    fn the_newest_odd_flow_is_the_default() {
        let mut t = FlowTable::default();
        assert_eq!(t.default_flow(0, 5), None);
        let e = || FlowEntry::new(vec![0, 1, 5], 0, 32, 60);
        assert!(t.create(0, 5, 3, e()));
        assert!(t.create(0, 5, 1, e()));
        assert_eq!(
            t.default_flow(0, 5),
            Some(3),
            "an older id does not take over"
        );
        assert!(t.create(0, 5, 4, e()));
        assert_eq!(t.default_flow(0, 5), Some(3), "an even id is never default");
        assert!(t.create(0, 5, 7, e()));
        assert_eq!(t.default_flow(0, 5), Some(7));
        assert!(!t.create(0, 5, 7, e()), "a known flow is not re-created");
        // Serial arithmetic across the wrap.
        let mut w = FlowTable::default();
        w.create(2, 3, 65_533, e());
        w.create(2, 3, 1, e());
        assert_eq!(w.default_flow(2, 3), Some(1));
    }

    #[test]
    fn find_route_takes_the_newest_flow_along_the_route() {
        let mut t = FlowTable::default();
        t.create(0, 5, 9, FlowEntry::new(vec![0, 1, 5], 0, 32, 60));
        t.create(0, 5, 3, FlowEntry::new(vec![0, 1, 5], 0, 32, 60));
        t.create(0, 5, 5, FlowEntry::new(vec![0, 2, 5], 0, 32, 60));
        assert_eq!(t.find_route(0, 5, &[0, 1, 5]), Some(3), "created last");
        assert_eq!(t.find_route(0, 5, &[0, 2, 5]), Some(5));
        assert_eq!(t.find_route(0, 5, &[0, 5]), None);
        assert_eq!(t.find_route(1, 5, &[0, 1, 5]), None);
    }

    #[test]
    fn a_dead_link_ends_only_this_nodes_live_flows_over_it() {
        let mut t = FlowTable::default();
        t.create(0, 5, 1, FlowEntry::new(vec![0, 1, 2, 5], 0, 32, 60));
        t.create(0, 5, 3, FlowEntry::new(vec![0, 3, 5], 0, 32, 60));
        t.create(7, 5, 1, FlowEntry::new(vec![7, 0, 1, 2, 5], 1, 31, 60));
        t.notice_dead_link(0, 1, 2, 10);
        assert!(!t.get(0, 5, 1).unwrap().alive(10));
        assert!(t.get(0, 5, 3).unwrap().alive(10), "not over the link");
        assert!(t.get(7, 5, 1).unwrap().alive(10), "another source's flow");
        // The reverse direction is another link.
        t.notice_dead_link(0, 5, 3, 10);
        assert!(t.get(0, 5, 3).unwrap().alive(10));
        assert!(!t.get(0, 5, 3).unwrap().alive(61), "and time ends a flow");
    }

    #[test]
    fn an_entry_knows_its_next_hop_from_its_place() {
        let e = FlowEntry::new(vec![4, 6, 8, 9], 1, 30, 5);
        assert_eq!(e.next_hop, 8);
        assert_eq!(e.hop_count, 1);
    }
}
