//! The link set and the neighbour set (RFC 3626 sections 4.2.1, 7 and 8.1).
//!
//! With one interface per node a link is identified by the neighbour's main
//! address, so the two sets share a key: a [`LinkTuple`] holds the link
//! sensing times and the neighbour's willingness. The neighbour is
//! symmetric (N_status = SYM) exactly when its link is symmetric.

use crate::engine::SimTime;
use crate::net::NodeId;
use crate::wire::olsr::LinkType;
use std::cell::OnceCell;
use std::collections::BTreeMap;

/// Willingness to carry traffic for others (RFC 3626 section 18.8).
pub const WILL_NEVER: u8 = 0;
pub const WILL_LOW: u8 = 1;
pub const WILL_DEFAULT: u8 = 3;
pub const WILL_HIGH: u8 = 6;
pub const WILL_ALWAYS: u8 = 7;

/// One link (RFC 3626 section 4.2.1), with the neighbour tuple's
/// willingness. A time is "expired" once it is at or before `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTuple {
    /// L_SYM_time: the link is symmetric until then.
    pub sym_until: SimTime,
    /// L_ASYM_time: the neighbour is heard until then.
    pub asym_until: SimTime,
    /// L_time: the tuple is kept (as LOST once both above expire) until then.
    pub until: SimTime,
    /// L_LOST_LINK_time (RFC 3626 section 13): a link-layer notification
    /// declared the link lost until then.
    pub lost_until: SimTime,
    /// N_willingness, from the neighbour's latest HELLO.
    pub willingness: u8,
}

impl LinkTuple {
    /// The link's type as this node sees it (RFC 3626 section 6.2).
    pub fn link_type(&self, now: SimTime) -> LinkType {
        if self.lost_until > now {
            LinkType::Lost
        } else if self.sym_until > now {
            LinkType::Sym
        } else if self.asym_until > now {
            LinkType::Asym
        } else {
            LinkType::Lost
        }
    }

    pub fn is_sym(&self, now: SimTime) -> bool {
        self.link_type(now) == LinkType::Sym
    }
}

#[derive(Debug, Clone, Default)]
pub struct LinkSet {
    links: BTreeMap<NodeId, LinkTuple>,
    /// Every time of every tuple, built when first needed after a change:
    /// [`Self::next_change`] and [`Self::expire`] are asked after every
    /// event the agent handles, ten times as often as a HELLO changes the
    /// set.
    times: OnceCell<Times>,
    /// Bumped by every change of a tuple.
    generation: u64,
}

#[derive(Debug, Clone, Default)]
struct Times {
    /// Every time of every tuple, sorted.
    sorted: Vec<SimTime>,
    /// The soonest L_time.
    soonest_until: SimTime,
}

impl LinkSet {
    /// Link sensing on a HELLO from `from` (RFC 3626 section 7.1.1).
    /// `listed` is the link type under which the HELLO lists this node
    /// (`None` when it does not); `vtime` the message's validity time;
    /// `hold` NEIGHB_HOLD_TIME.
    pub fn on_hello(
        &mut self,
        now: SimTime,
        from: NodeId,
        vtime: SimTime,
        listed: Option<LinkType>,
        willingness: u8,
        hold: SimTime,
    ) {
        self.changed();
        let l = self.links.entry(from).or_insert(LinkTuple {
            sym_until: 0,
            asym_until: 0,
            until: now + vtime,
            lost_until: 0,
            willingness,
        });
        l.willingness = willingness;
        l.asym_until = now + vtime;
        match listed {
            Some(LinkType::Lost) => l.sym_until = 0,
            Some(LinkType::Sym | LinkType::Asym) => {
                l.sym_until = now + vtime;
                l.until = l.sym_until + hold;
            }
            Some(LinkType::Unspec) | None => {}
        }
        l.until = l.until.max(l.asym_until);
    }

    /// A link-layer notification that the link to `nb` broke (RFC 3626
    /// section 13): the link is LOST until `now + lost_hold`. Returns
    /// whether it was symmetric.
    pub fn link_lost(&mut self, now: SimTime, nb: NodeId, lost_hold: SimTime) -> bool {
        let Some(l) = self.links.get_mut(&nb) else {
            return false;
        };
        let was_sym = l.is_sym(now);
        l.lost_until = now + lost_hold;
        l.sym_until = 0;
        l.until = l.until.max(l.lost_until);
        self.changed();
        was_sym
    }

    pub fn get(&self, nb: NodeId) -> Option<&LinkTuple> {
        self.links.get(&nb)
    }

    pub fn is_sym(&self, nb: NodeId, now: SimTime) -> bool {
        self.links.get(&nb).is_some_and(|l| l.is_sym(now))
    }

    /// Symmetric neighbours and their willingness, by address.
    pub fn sym_neighbors(&self, now: SimTime) -> impl Iterator<Item = (NodeId, u8)> + '_ {
        self.links
            .iter()
            .filter(move |(_, l)| l.is_sym(now))
            .map(|(n, l)| (*n, l.willingness))
    }

    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &LinkTuple)> + '_ {
        self.links.iter().map(|(n, l)| (*n, l))
    }

    /// Removes the tuples whose L_time has passed.
    pub fn expire(&mut self, now: SimTime) {
        // Called on every control packet; a tuple goes far more rarely.
        if self.times().soonest_until <= now {
            self.links.retain(|_, l| l.until > now);
            self.changed();
        }
    }

    fn changed(&mut self) {
        self.times.take();
        self.generation += 1;
    }

    /// Changes whenever a tuple comes, goes or changes; between two changes,
    /// a link's type changes only at one of the times [`Self::next_change`]
    /// gives.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn times(&self) -> &Times {
        self.times.get_or_init(|| {
            let mut sorted: Vec<SimTime> = self
                .links
                .values()
                .flat_map(|l| [l.sym_until, l.asym_until, l.until, l.lost_until])
                .collect();
            sorted.sort_unstable();
            let soonest_until = self.links.values().map(|l| l.until).min();
            Times {
                sorted,
                soonest_until: soonest_until.unwrap_or(SimTime::MAX),
            }
        })
    }

    /// The next instant after `now` at which a link changes type or goes.
    pub fn next_change(&self, now: SimTime) -> Option<SimTime> {
        let times = &self.times().sorted;
        times.get(times.partition_point(|&t| t <= now)).copied()
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

    #[test]
    fn the_next_change_follows_every_hello_loss_and_expiry() {
        let mut s = LinkSet::default();
        assert_eq!(s.next_change(0), None);
        // Heard at 10 with Vtime 6, not listing us: asymmetric until 16.
        s.on_hello(10, 1, 6, None, WILL_DEFAULT, 6);
        assert_eq!(s.next_change(10), Some(16));
        // Listed as SYM at 12: symmetric until 18, kept until 24.
        s.on_hello(12, 1, 6, Some(LinkType::Sym), WILL_DEFAULT, 6);
        assert_eq!(s.next_change(12), Some(18));
        assert_eq!(s.next_change(18), Some(24));
        assert_eq!(s.next_change(24), None);
        // A second neighbour changes sooner.
        s.on_hello(13, 2, 2, None, WILL_DEFAULT, 6);
        assert_eq!(s.next_change(13), Some(15));
        // A link-layer loss of 1 at 14, held 3: LOST until 17.
        let g = s.generation();
        assert!(s.link_lost(14, 1, 3));
        assert_ne!(s.generation(), g);
        assert_eq!(s.next_change(15), Some(17));
        assert_eq!(s.next_change(17), Some(18));
        // 2's tuple goes at 15; 1's at 24. Only a change moves the
        // generation.
        let g = s.generation();
        s.expire(14);
        assert_eq!(s.generation(), g);
        s.expire(15);
        assert_ne!(s.generation(), g);
        assert_eq!(s.len(), 1);
        assert_eq!(s.next_change(17), Some(18));
        s.expire(24);
        assert!(s.is_empty());
        assert_eq!(s.next_change(0), None);
    }
}
