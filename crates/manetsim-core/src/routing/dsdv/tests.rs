//! State-machine tests on hand-built updates: each test drives one agent
//! directly and inspects its route table and the actions it pushes.

use super::*;
use crate::net::RoutingAction;
use crate::routing::testkit::{data, Agent};
use crate::wire::dsdv::{Entry, INFINITY};

const S: SimTime = NS_PER_S;
const MS: SimTime = NS_PER_MS;

type Node = Agent<Dsdv>;

impl Node {
    fn new(me: NodeId) -> Self {
        Self::with(me, DsdvConfig::default())
    }

    fn with(me: NodeId, cfg: DsdvConfig) -> Self {
        Agent::wrap(me, Dsdv::new(me, cfg), me as u64 + 7)
    }

    /// An update from `from` listing (dst, seqno, metric) routes.
    fn hear(
        &mut self,
        now: SimTime,
        from: NodeId,
        routes: &[(NodeId, u32, u8)],
    ) -> Vec<RoutingAction> {
        let u = UpdateRepr {
            entries: routes
                .iter()
                .map(|&(dst, seqno, metric)| Entry { dst, seqno, metric })
                .collect(),
        };
        let p = Packet::control(from, BROADCAST, 1, 0, u.to_bytes());
        self.run(|a, ctx| a.on_control(now, from, p, ctx))
    }

    /// Fires every timer due by `now`, each at its deadline, as the world
    /// does.
    fn tick(&mut self, now: SimTime) -> Vec<RoutingAction> {
        let mut all = Vec::new();
        while let Some(at) = self.a.poll_timeout().filter(|&t| t <= now) {
            all.extend(self.run(|a, ctx| a.on_timeout(at, ctx)));
        }
        all
    }

    /// (metric, seqno, next hop) of the route to `dst`.
    fn route(&self, dst: NodeId) -> (u8, u32, NodeId) {
        let r = self.a.routes().get(dst).expect("a route entry");
        (r.metric, r.seqno, r.next_hop)
    }
}

/// The updates originated among `actions`: (message, routes, IP size).
fn updates(actions: &[RoutingAction]) -> Vec<(&'static str, Vec<Entry>, u32)> {
    actions
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Originate {
                packet,
                next_hop,
                message,
                forwarded,
                keep_uid,
            } => {
                assert_eq!(*next_hop, BROADCAST);
                assert!(!forwarded && !keep_uid);
                let u = UpdateRepr::parse(packet.body()).expect("a valid update");
                Some((*message, u.entries, packet.size_bytes))
            }
            _ => None,
        })
        .collect()
}

fn e(dst: NodeId, seqno: u32, metric: u8) -> Entry {
    Entry { dst, seqno, metric }
}

// ---- Route selection -----------------------------------------------------

#[test]
fn a_newer_sequence_number_beats_a_shorter_metric() {
    let mut n = Node::new(0);
    n.hear(S, 1, &[(9, 10, 1)]);
    assert_eq!(n.route(9), (2, 10, 1));
    // Fresher, but 6 hops: believed.
    n.hear(2 * S, 2, &[(9, 12, 5)]);
    assert_eq!(n.route(9), (6, 12, 2));
    // Shorter, but stale: ignored.
    n.hear(3 * S, 3, &[(9, 10, 0)]);
    assert_eq!(n.route(9), (6, 12, 2));
    assert_eq!(n.a.hop_count(9, 3 * S), Some(6));
}

#[test]
fn an_equal_sequence_number_prefers_the_smaller_metric() {
    let mut n = Node::new(0);
    n.hear(S, 1, &[(9, 10, 4)]);
    assert_eq!(n.route(9), (5, 10, 1));
    n.hear(2 * S, 2, &[(9, 10, 2)]);
    assert_eq!(n.route(9), (3, 10, 2));
    // Longer or equal with the same number: ignored.
    n.hear(3 * S, 3, &[(9, 10, 3)]);
    n.hear(4 * S, 1, &[(9, 10, 2)]);
    assert_eq!(n.route(9), (3, 10, 2));
}

#[test]
fn a_route_to_the_node_itself_is_never_learnt() {
    let mut n = Node::new(0);
    n.run(|a, ctx| a.start(0, ctx));
    n.hear(S, 1, &[(0, 100, 1)]);
    assert_eq!(n.route(0), (0, 0, 0));
}

// ---- Broken links ---------------------------------------------------------

#[test]
fn a_silent_neighbour_times_out_after_three_missed_update_periods() {
    let mut n = Node::new(0);
    n.hear(0, 1, &[(1, 4, 0), (9, 10, 1)]);
    n.hear(10 * S, 1, &[(1, 4, 0)]);
    // 45 s after the last update from 1 (3 × 15 s), not before.
    n.tick(55 * S - 1);
    assert_eq!(n.route(1), (1, 4, 1));
    assert_eq!(n.route(9), (2, 10, 1));
    n.tick(55 * S);
    assert_eq!(n.route(1), (INFINITY, 5, 1));
    assert_eq!(n.route(9), (INFINITY, 11, 1));
    assert_eq!(n.a.hop_count(9, 55 * S), None);
}

#[test]
fn a_broken_link_is_advertised_at_once_as_infinite_with_an_odd_seqno() {
    let mut n = Node::new(0);
    n.hear(0, 1, &[(1, 4, 0), (9, 10, 1)]);
    let hold = n.a.config().neighbour_hold();
    assert_eq!(hold, 45 * S);
    // Triggered updates wait out the settling time of the new routes (12 s).
    // Both routes trigger at 12 s: one update then, and (ns-2's per-route
    // triggers) a second one 1 s later repeating the unadvertised metrics.
    let first = updates(&n.tick(hold - 1));
    assert_eq!(first.len(), 2);
    assert!(first.iter().all(|u| u.0 == "update_incremental"));
    assert_eq!(first[0].1, vec![e(1, 4, 1), e(9, 10, 2)]);
    assert_eq!(first[1].1, first[0].1);
    let out = n.tick(hold);
    assert!(updates(&out).is_empty(), "the update waits out its jitter");
    let out = n.tick(hold + 10 * MS);
    let u = updates(&out);
    assert_eq!(u.len(), 1);
    let (message, entries, size) = &u[0];
    assert_eq!(*message, "update_incremental");
    assert_eq!(entries, &vec![e(1, 5, INFINITY), e(9, 11, INFINITY)]);
    assert!(entries.iter().all(|x| x.seqno % 2 == 1));
    assert_eq!(*size, 20 + 12 * 2, "ns-2's 20 + 12 n bytes");
}

#[test]
fn a_broken_route_heard_from_a_neighbour_goes_out_with_the_next_update() {
    // Node 7 reaches 9 through 0; 0 then reports 9 broken (seq 11, ∞).
    let mut n = Node::new(7);
    n.hear(S, 0, &[(0, 4, 0), (9, 10, 1)]);
    assert_eq!(n.route(9), (2, 10, 0));
    let out = n.hear(5 * S, 0, &[(9, 11, INFINITY)]);
    assert_eq!(n.route(9), (INFINITY, 11, 0));
    assert!(out.is_empty());
    // Like ns-2, the fresh number triggers nothing by itself: the news goes
    // with the update already due at 13 s (the settling time of the first
    // routes learnt at 1 s).
    assert!(updates(&n.tick(12 * S)).is_empty());
    let u = updates(&n.tick(13 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert!(u[0].1.contains(&e(9, 11, INFINITY)), "{:?}", u[0].1);
}

#[test]
fn mac_feedback_breaks_the_link_and_buffers_the_packet_when_enabled() {
    let cfg = DsdvConfig {
        mac_feedback: true,
        ..DsdvConfig::default()
    };
    let mut n = Node::with(0, cfg);
    n.hear(0, 1, &[(1, 4, 0), (9, 10, 1)]);
    let out = n.run(|a, ctx| a.on_link_failure(S, 1, Some(data(0, 9, 3)), ctx));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(n.route(9), (INFINITY, 11, 1));
    assert_eq!(n.a.buffered(), 1);

    // ns-2's default: the packet is dropped and the routes stay.
    let mut n = Node::new(0);
    n.hear(0, 1, &[(1, 4, 0), (9, 10, 1)]);
    let out = n.run(|a, ctx| a.on_link_failure(S, 1, Some(data(0, 9, 3)), ctx));
    assert!(matches!(
        out.as_slice(),
        [RoutingAction::Drop {
            reason: DropReason::RetryLimit,
            ..
        }]
    ));
    assert_eq!(n.route(9), (2, 10, 1));
}

#[test]
fn a_neighbour_with_an_older_broken_route_is_educated_at_once() {
    let mut n = Node::new(0);
    n.hear(0, 1, &[(1, 4, 0), (9, 20, 1)]);
    n.tick(12 * S + 10 * MS); // the settling-time update
    let out = n.hear(20 * S, 2, &[(2, 6, 0), (9, 17, INFINITY)]);
    assert!(out.is_empty());
    // Our working route to 9 goes out at once, but no sooner than 1 s
    // after our last update (it was 7.99 s ago).
    let u = updates(&n.tick(20 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert!(u[0].1.contains(&e(9, 20, 2)), "{:?}", u[0].1);
    assert_eq!(n.route(9), (2, 20, 1));
}

#[test]
fn a_node_told_it_is_unreachable_sends_a_full_dump_at_once() {
    let mut n = Node::new(0);
    n.run(|a, ctx| a.start(0, ctx));
    let first = n.a.poll_timeout().expect("the first dump is scheduled");
    assert!(first < 2 * S);
    n.tick(first + 10 * MS);
    let seq = n.a.seqno();
    assert_eq!(seq % 2, 0);
    n.hear(3 * S, 1, &[(0, seq + 1, INFINITY)]);
    assert_eq!(n.a.poll_timeout(), Some(3 * S));
    let u = updates(&n.tick(3 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].0, "update_full");
    assert_eq!(u[0].1[0], e(0, seq + 2, 0));
}

// ---- Settling time and update scheduling ---------------------------------

#[test]
fn settling_time_delays_the_advertisement_of_a_fluctuating_route() {
    let mut n = Node::new(0);
    n.hear(0, 1, &[(9, 10, 3)]);
    let r = n.a.routes().get(9).unwrap().clone();
    assert_eq!(r.wst, 6 * S, "wst0_");
    assert_eq!(r.advertise_ok_at, 12 * S, "2 × wst");
    // Not in a full dump nor in any update before then.
    n.run(|a, ctx| a.full_dump(5 * S, ctx));
    let u = updates(&n.tick(5 * S + 10 * MS));
    assert_eq!(u[0].0, "update_full");
    assert!(!u[0].1.iter().any(|x| x.dst == 9), "{:?}", u[0].1);
    assert!(updates(&n.tick(12 * S - 1)).is_empty());
    let u = updates(&n.tick(12 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].1, vec![e(9, 10, 4)]);

    // Sequence number 12 arrives first over a long path, its best route 3 s
    // later.
    n.hear(20 * S, 2, &[(9, 12, 5)]);
    let r = n.a.routes().get(9).unwrap().clone();
    // wst = 0.875 × 6 + 0.125 × 0 (the route of 10 settled at once).
    assert_eq!(r.wst, 5_250 * MS);
    assert_eq!((r.metric, r.next_hop), (6, 2));
    n.hear(23 * S, 1, &[(9, 12, 2)]);
    let r = n.a.routes().get(9).unwrap().clone();
    assert_eq!((r.metric, r.next_hop), (3, 1));
    assert_eq!(r.advertise_ok_at, 23 * S + 10_500 * MS);
    // A full dump in between leaves the unsettled route out.
    n.run(|a, ctx| a.full_dump(30 * S, ctx));
    let u = updates(&n.tick(30 * S + 10 * MS));
    assert!(!u[0].1.iter().any(|x| x.dst == 9), "{:?}", u[0].1);
    // The next number ends the measurement: 3 s of fluctuation enter the
    // average, wst = 0.875 × 5.25 + 0.125 × 3 = 4.96875 s.
    n.hear(35 * S, 1, &[(9, 14, 2)]);
    let r = n.a.routes().get(9).unwrap().clone();
    assert_eq!(r.wst, 4_968_750 * NS_PER_MS / 1000);
    assert_eq!(r.advertise_ok_at, 35 * S + 9_937_500 * NS_PER_MS / 1000);
}

#[test]
fn triggered_updates_are_at_least_one_second_apart() {
    let cfg = DsdvConfig {
        initial_settling_time: 0,
        ..DsdvConfig::default()
    };
    let mut n = Node::with(0, cfg);
    // A new destination with no settling time triggers at once.
    n.hear(10 * S, 1, &[(1, 4, 0)]);
    let u = updates(&n.tick(10 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].1, vec![e(1, 4, 1)]);
    // Two more 0.2 s and 0.5 s later: both wait for 11 s and share one update.
    n.hear(10_200 * MS, 2, &[(2, 4, 0)]);
    n.tick(10_200 * MS);
    n.hear(10_500 * MS, 3, &[(3, 4, 0)]);
    n.tick(10_500 * MS);
    assert_eq!(n.a.poll_timeout(), Some(11 * S));
    assert!(updates(&n.tick(11 * S - 1)).is_empty());
    let u = updates(&n.tick(11 * S + 10 * MS));
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].0, "update_incremental");
    // Metrics stay marked until a full dump (ns-2): 1 is repeated.
    assert_eq!(u[0].1, vec![e(1, 4, 1), e(2, 4, 1), e(3, 4, 1)]);
    // Route 2's trigger was at 11 s exactly, so it was not cancelled; it
    // fires 1 s later and repeats the marked metrics, as ns-2 does.
    let u = updates(&n.tick(20 * S));
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].1, vec![e(1, 4, 1), e(2, 4, 1), e(3, 4, 1)]);
    assert!(updates(&n.tick(30 * S)).is_empty());
}

#[test]
fn an_update_changing_a_third_of_the_table_becomes_a_full_dump() {
    let cfg = DsdvConfig {
        initial_settling_time: 0,
        ..DsdvConfig::default()
    };
    let mut n = Node::with(0, cfg);
    n.run(|a, ctx| a.start(0, ctx));
    n.tick(2 * S + 10 * MS); // the first full dump
    let seq = n.a.seqno();
    n.hear(3 * S, 1, &[(1, 4, 0), (5, 8, 1), (6, 8, 1), (7, 8, 2)]);
    let u = updates(&n.tick(3 * S + 10 * MS));
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].0, "update_full");
    // The own entry first (node 0), with the next even number.
    assert_eq!(u[0].1[0], e(0, seq + 2, 0));
    assert_eq!(u[0].1.len(), 5);
    assert_eq!(u[0].2, 20 + 12 * 5);
    // The periodic timer restarted: 11.25–15 s later.
    let next = n.a.next_full.unwrap();
    assert!(
        (3 * S + 11_250 * MS..=3 * S + 15 * S).contains(&next),
        "{next}"
    );
}

#[test]
fn full_dumps_come_every_11_25_to_15_seconds_with_even_seqnos() {
    let mut n = Node::new(4);
    n.run(|a, ctx| a.start(0, ctx));
    let mut t = 0;
    let mut times = Vec::new();
    let mut seqs = Vec::new();
    while times.len() < 20 {
        t = n.a.poll_timeout().unwrap();
        for (m, entries, size) in updates(&n.tick(t)) {
            assert_eq!(m, "update_full");
            assert_eq!(entries, vec![e(4, entries[0].seqno, 0)]);
            assert_eq!(size, 32);
            seqs.push(entries[0].seqno);
        }
        if n.a.next_full.is_some_and(|f| f > t) && times.last() != n.a.next_full.as_ref() {
            times.push(n.a.next_full.unwrap());
        }
    }
    assert!(t > 200 * S);
    for w in times.windows(2) {
        let gap = w[1] - w[0];
        assert!((11_250 * MS..=15 * S).contains(&gap), "{gap}");
    }
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 2), "{seqs:?}");
    assert!(seqs.iter().all(|s| s % 2 == 0));
}

// ---- Data ------------------------------------------------------------------

#[test]
fn data_waits_for_a_route_five_packets_per_destination() {
    let mut n = Node::new(0);
    for uid in 1..=5 {
        assert!(n.data(S, data(0, 9, uid)).is_empty());
    }
    let out = n.data(S, data(0, 9, 6));
    match out.as_slice() {
        [RoutingAction::Drop { packet, reason }] => {
            assert_eq!(*reason, DropReason::RouteBufferFull);
            assert_eq!(packet.uid, 1, "the oldest goes");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(n.a.buffered(), 5);
    // The unreachable entry is never advertised.
    assert_eq!(n.route(9).0, INFINITY);
    // An update bringing a route sends them, oldest first.
    let out = n.hear(2 * S, 3, &[(3, 2, 0), (9, 6, 2)]);
    let sent: Vec<(u64, NodeId)> = out
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Send { packet, next_hop } => Some((packet.uid, *next_hop)),
            _ => None,
        })
        .collect();
    assert_eq!(sent, vec![(2, 3), (3, 3), (4, 3), (5, 3), (6, 3)]);
    assert_eq!(n.a.buffered(), 0);
    assert_eq!(n.a.hop_count(9, 2 * S), Some(3));
}
