//! What goes into an update and when updates go out.
//!
//! - **Full dumps** list every route whose settling time has passed (broken
//!   ones included), after the node has added 2 to its own sequence number.
//!   They go every `periodic_update_interval × U(0.75, 1.0)` (ns-2's
//!   `perup_ * (0.75 + jitter(0.25))`), the first within `startup_jitter`.
//! - **Incremental updates** list the routes with a new sequence number or
//!   metric not yet advertised, once their settling time has passed. A
//!   route asks for one by setting its trigger time; when the trigger fires
//!   less than `min_triggered_interval` after the previous update, it is
//!   moved to that instant and every earlier trigger is cancelled (they are
//!   all served by that one update). When more than a third of the table
//!   (and more than 3 routes) changed, a full dump is sent instead and the
//!   periodic timer restarts.
//!
//! As in ns-2, a triggered update clears the "new sequence number" mark of
//! the routes it lists but not their "new metric" mark: a changed metric is
//! repeated in every incremental update until the next full dump.

use super::route_table::RouteTable;
use super::DsdvConfig;
use crate::engine::{Rng, SimTime};
use crate::net::NodeId;
use crate::wire::dsdv::{Entry, UpdateRepr};

/// The two kinds of update, named as the routing statistics count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    Full,
    Incremental,
}

impl UpdateKind {
    pub fn message(self) -> &'static str {
        match self {
            UpdateKind::Full => "update_full",
            UpdateKind::Incremental => "update_incremental",
        }
    }
}

/// The wait before the next full dump: `interval × U(0.75, 1.0)`.
pub fn periodic_wait(cfg: &DsdvConfig, rng: &mut Rng) -> SimTime {
    let i = cfg.periodic_update_interval;
    i * 3 / 4 + rng.below(i / 4 + 1)
}

/// Builds an update from `table` (ns-2's `makeUpdate`). `full` asks for a
/// full dump; an incremental request becomes one when much of the table has
/// changed. A full dump adds 2 to `*own_seqno` and re-installs this node's
/// entry with it. Returns `None` when there is nothing to advertise.
pub fn make_update(
    table: &mut RouteTable,
    me: NodeId,
    own_seqno: &mut u32,
    full: bool,
    now: SimTime,
) -> Option<(UpdateKind, UpdateRepr)> {
    let size = table.len();
    let changed = table.iter().filter(|r| r.wants_advertising(now)).count();
    let full = full || (changed * 3 > size && changed > 3);
    if full {
        *own_seqno = own_seqno.wrapping_add(2);
        table.set_own(me, *own_seqno, now);
    }
    let mut entries = Vec::new();
    for r in table.iter_mut() {
        let listed = if full {
            r.advertise_ok_at <= now
        } else {
            r.wants_advertising(now)
        };
        if !listed {
            continue;
        }
        entries.push(Entry {
            dst: r.dst,
            seqno: r.seqno,
            metric: r.metric,
        });
        r.last_advertised_metric = r.metric;
        r.advert_seqnum = false;
        if full {
            r.advert_metric = false;
        }
    }
    if entries.is_empty() {
        return None;
    }
    let kind = if full {
        UpdateKind::Full
    } else {
        UpdateKind::Incremental
    };
    Some((kind, UpdateRepr { entries }))
}

/// A trigger that fired too soon after the last update: it moves to
/// `next_possible` and every trigger due before then is cancelled.
pub fn defer_triggers(table: &mut RouteTable, fired: NodeId, next_possible: SimTime) {
    for r in table.iter_mut() {
        if r.dst == fired {
            r.trigger_at = Some(next_possible);
        } else if r.trigger_at.is_some_and(|t| t < next_possible) {
            r.trigger_at = None;
        }
    }
}
