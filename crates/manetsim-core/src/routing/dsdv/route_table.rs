//! The DSDV route table: one entry per destination with its sequence number,
//! metric, next hop and the bookkeeping of the settling time and of what is
//! still to be advertised. [`RouteTable::learn`] applies one advertised
//! route, with the decision rules of the paper as ns-2.35 implements them.

use super::DsdvConfig;
use crate::engine::SimTime;
use crate::net::NodeId;
use crate::wire::dsdv::{Entry, INFINITY};
use std::collections::BTreeMap;

/// How far in the future ns-2 puts the advertising time of an unreachable
/// entry ("check back next week").
pub const NEVER_ADVERTISE: SimTime = 604_800 * crate::engine::NS_PER_S;

/// One destination.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub dst: NodeId,
    pub next_hop: NodeId,
    /// Hops, or [`INFINITY`] when the destination is unreachable.
    pub metric: u8,
    /// The destination's sequence number: even while it is reachable, odd
    /// (the last even one + 1) after a neighbour declared the link broken.
    pub seqno: u32,
    /// The route may not be advertised before this time (settling time).
    pub advertise_ok_at: SimTime,
    /// A new sequence number is still to be advertised.
    pub advert_seqnum: bool,
    /// A new metric is still to be advertised (cleared by full dumps only,
    /// as in ns-2).
    pub advert_metric: bool,
    /// The metric of the last advertisement that listed the route.
    pub last_advertised_metric: u8,
    /// When the route was last changed by an update.
    pub changed_at: SimTime,
    /// When the current sequence number was first heard.
    pub new_seqnum_at: SimTime,
    /// Weighted average settling time: how long after a new sequence number
    /// first arrives the best route for it arrives.
    pub wst: SimTime,
    /// For a neighbour: when it is declared lost unless heard from again.
    pub timeout_at: Option<SimTime>,
    /// When a triggered update for this route is due.
    pub trigger_at: Option<SimTime>,
}

impl Route {
    /// An entry with every field zero, as ns-2 `bzero`s a new one.
    fn blank(dst: NodeId) -> Self {
        Self {
            dst,
            next_hop: dst,
            metric: 0,
            seqno: 0,
            advertise_ok_at: 0,
            advert_seqnum: false,
            advert_metric: false,
            last_advertised_metric: 0,
            changed_at: 0,
            new_seqnum_at: 0,
            wst: 0,
            timeout_at: None,
            trigger_at: None,
        }
    }

    pub fn is_reachable(&self) -> bool {
        self.metric < INFINITY
    }

    /// Listed in the next incremental update.
    pub fn wants_advertising(&self, now: SimTime) -> bool {
        (self.advert_seqnum || self.advert_metric) && self.advertise_ok_at <= now
    }
}

/// What [`RouteTable::learn`] did with an advertised route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learned {
    /// The route was installed (new destination, newer sequence number or
    /// a shorter route with the same sequence number).
    Installed,
    /// Nothing changed (a longer or older route).
    Ignored,
    /// The neighbour advertised an older, broken route while ours works:
    /// ours is to be advertised at once.
    Educate,
    /// A neighbour says this node is unreachable.
    SelfBroken,
}

#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    routes: BTreeMap<NodeId, Route>,
}

impl RouteTable {
    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst)
    }

    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.routes.get_mut(&dst)
    }

    pub fn len(&self) -> usize {
        self.routes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// Every entry, by destination.
    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        self.routes.values()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Route> {
        self.routes.values_mut()
    }

    /// A working route to `dst`.
    pub fn reachable(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst).filter(|r| r.is_reachable())
    }

    /// (Re)installs this node's own entry, metric 0, with sequence number
    /// `seqno`; it can always be advertised.
    pub fn set_own(&mut self, me: NodeId, seqno: u32, now: SimTime) {
        let mut r = Route::blank(me);
        r.seqno = seqno;
        r.advert_seqnum = true;
        r.advert_metric = true;
        r.changed_at = now;
        r.new_seqnum_at = now;
        self.routes.insert(me, r);
    }

    /// An unreachable entry for a destination data is waiting for: unreachable,
    /// sequence number 0, never advertised (ns-2's `forwardPacket`).
    pub fn add_unreachable_entry(&mut self, dst: NodeId, now: SimTime, cfg: &DsdvConfig) {
        self.routes.entry(dst).or_insert_with(|| {
            let mut r = Route::blank(dst);
            r.metric = INFINITY;
            r.advertise_ok_at = now + NEVER_ADVERTISE;
            r.changed_at = now;
            r.new_seqnum_at = now;
            r.wst = cfg.initial_settling_time;
            r
        });
    }

    /// Applies route `e` advertised by neighbour `from`. A change that must
    /// be passed on gets a triggered update at its advertising time.
    pub fn learn(
        &mut self,
        me: NodeId,
        from: NodeId,
        e: Entry,
        now: SimTime,
        cfg: &DsdvConfig,
    ) -> Learned {
        let old = self.routes.get(&e.dst).cloned();
        let mut r = old.clone().unwrap_or_else(|| Route::blank(e.dst));
        r.next_hop = from;
        r.metric = if e.metric >= INFINITY {
            INFINITY
        } else {
            (e.metric + 1).min(INFINITY)
        };
        r.seqno = e.seqno;
        r.changed_at = now;
        if e.dst == me {
            return if r.metric == INFINITY {
                Learned::SelfBroken
            } else {
                Learned::Ignored
            };
        }
        match &old {
            Some(o) if o.seqno != r.seqno => {
                // A new sequence number ends the measurement over the old one.
                let settle = o.changed_at.saturating_sub(o.new_seqnum_at) as f64;
                let a = cfg.settling_alpha;
                r.wst = (a * o.wst as f64 + (1.0 - a) * settle).round() as SimTime;
                r.new_seqnum_at = now;
            }
            Some(_) => {}
            None => {
                r.wst = cfg.initial_settling_time;
                r.new_seqnum_at = now;
            }
        }
        r.advertise_ok_at = if r.is_reachable() && old.as_ref().is_none_or(|o| o.is_reachable()) {
            now + 2 * r.wst
        } else {
            now
        };

        let mut trigger = false;
        let learned = match &old {
            None => {
                if r.is_reachable() {
                    r.advert_metric = true;
                    trigger = true;
                }
                Learned::Installed
            }
            Some(o) if o.seqno == r.seqno => {
                if r.metric < o.metric {
                    r.advert_metric = r.metric != o.last_advertised_metric;
                    trigger = r.advert_metric;
                    Learned::Installed
                } else {
                    Learned::Ignored
                }
            }
            Some(o) if o.seqno < r.seqno => {
                // A fresher sequence number is believed whatever its metric;
                // like ns-2 (TRIGGER_UPDATE_ON_FRESH_SEQNUM undefined) it
                // waits for the next update rather than triggering one.
                r.advert_seqnum = true;
                r.advert_metric = r.metric != o.last_advertised_metric;
                Learned::Installed
            }
            Some(o) => {
                if !r.is_reachable() && o.is_reachable() {
                    let mine = self.routes.get_mut(&e.dst).expect("old route exists");
                    mine.advertise_ok_at = now;
                    mine.advert_metric = true;
                    mine.trigger_at = Some(now);
                    return Learned::Educate;
                }
                Learned::Ignored
            }
        };
        if learned == Learned::Installed {
            if trigger {
                r.trigger_at = Some(r.advertise_ok_at);
            }
            self.routes.insert(e.dst, r);
        }
        learned
    }

    /// Neighbour `from` was heard: it times out `hold` from now. A sender
    /// not yet in the table gets a one-hop unreachable entry (sequence number 0,
    /// never advertised) to carry the timeout, as in ns-2.
    pub fn heard(&mut self, from: NodeId, now: SimTime, hold: SimTime, cfg: &DsdvConfig) {
        let r = self.routes.entry(from).or_insert_with(|| {
            let mut r = Route::blank(from);
            r.metric = 1;
            r.advertise_ok_at = now + NEVER_ADVERTISE;
            r.changed_at = now;
            r.new_seqnum_at = now;
            r.wst = cfg.initial_settling_time;
            r
        });
        r.timeout_at = Some(now + hold);
    }

    /// The link to `nb` is broken: every working route through it becomes
    /// unreachable with the next (odd) sequence number, to be advertised at
    /// once. Returns the destinations affected.
    pub fn break_link(&mut self, nb: NodeId, now: SimTime) -> Vec<NodeId> {
        if let Some(r) = self.routes.get_mut(&nb) {
            r.timeout_at = None;
        }
        let mut broken = Vec::new();
        for r in self.routes.values_mut() {
            if r.next_hop == nb && r.is_reachable() {
                r.metric = INFINITY;
                r.advertise_ok_at = now;
                r.advert_metric = true;
                r.advert_seqnum = true;
                r.seqno = r.seqno.wrapping_add(1);
                r.trigger_at = Some(now);
                broken.push(r.dst);
            }
        }
        broken
    }

    /// The earliest neighbour timeout, with its neighbour.
    pub fn next_timeout(&self) -> Option<(SimTime, NodeId)> {
        self.routes
            .values()
            .filter_map(|r| r.timeout_at.map(|t| (t, r.dst)))
            .min()
    }

    /// The earliest triggered update, with its route.
    pub fn next_trigger(&self) -> Option<(SimTime, NodeId)> {
        self.routes
            .values()
            .filter_map(|r| r.trigger_at.map(|t| (t, r.dst)))
            .min()
    }
}
