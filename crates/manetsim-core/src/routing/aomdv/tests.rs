//! State-machine tests on hand-built packets: each test drives one agent
//! directly and inspects the actions it pushes.

use super::*;
use crate::net::RoutingAction;
use crate::routing::testkit::{data, ms, originated_by, sent_data, Agent};

type Node = Agent<Aomdv>;

impl Node {
    fn new(me: NodeId) -> Self {
        Agent::wrap(me, Aomdv::new(me, AomdvConfig::default()), me as u64 + 1)
    }

    /// The paths to `dst` as (next hop, hops, last hop).
    fn paths(&self, dst: NodeId) -> Vec<(NodeId, u8, NodeId)> {
        self.a
            .routes()
            .get(dst)
            .map(|e| {
                e.paths
                    .iter()
                    .map(|p| (p.next_hop, p.hops, p.last_hop))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn rreq(orig: NodeId, id: u32, dst: NodeId, hops: u8, first_hop: NodeId) -> AomdvRreq {
    AomdvRreq {
        base: RreqRepr {
            hop_count: hops,
            ..RreqRepr::request(id, dst, None, orig, 2)
        },
        first_hop,
    }
}

fn rreq_packet(sender: NodeId, ttl: u8, rq: AomdvRreq) -> Packet {
    Packet::control(sender, BROADCAST, ttl, 8, rq.to_bytes())
}

/// A RREP from `sender` to `orig` about `dst`.
fn rrep_packet(
    sender: NodeId,
    orig: NodeId,
    dst: NodeId,
    seq: u32,
    hops: u8,
    rreq_id: u32,
    first_hop: NodeId,
) -> Packet {
    let rp = AomdvRrep {
        base: RrepRepr::new(hops, dst, seq, orig, 10_000),
        rreq_id,
        first_hop,
    };
    Packet::control(sender, orig, 30, 8, rp.to_bytes())
}

/// The originated control messages: (message, next hop, parsed, IP ttl).
fn originated(out: &[RoutingAction]) -> Vec<(&'static str, NodeId, Message, u8)> {
    originated_by(out, |b| Message::parse(b).unwrap())
}

#[test]
fn a_relayed_rreq_carries_the_first_hop_and_the_advertised_hop_count() {
    // Node 2 hears 0's RREQ directly: it is the first hop.
    let mut n = Node::new(2);
    let out = n.control(0, 0, rreq_packet(0, 30, rreq(0, 1, 9, 0, 0)));
    assert!(out.is_empty(), "held for the jitter");
    let sent = originated(&n.timeout(ms(10)));
    assert_eq!(sent.len(), 1);
    let (msg, to, Message::Rreq(r), ttl) = &sent[0] else {
        panic!("{sent:?}")
    };
    assert_eq!((*msg, *to, *ttl), ("rreq", BROADCAST, 29));
    assert_eq!((r.base.hop_count, r.first_hop), (1, 2));
    assert_eq!(n.paths(0), vec![(0, 1, 2)]);
    assert_eq!(n.a.routes().get(0).unwrap().advertised, Some(1));
}

#[test]
fn a_duplicate_rreq_via_a_new_first_hop_adds_a_reverse_path_and_one_via_the_same_first_hop_is_dropped(
) {
    // Node 5 hears 0's RREQ (to 9) through 3 (first hop 1) and relays it.
    let mut n = Node::new(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1)));
    assert_eq!(originated(&n.timeout(ms(10))).len(), 1);
    assert_eq!(n.paths(0), vec![(3, 3, 1)]);

    // A copy through 4 whose first hop is 2: a second, disjoint reverse
    // path; the copy itself is not relayed.
    let out = n.control(ms(11), 4, rreq_packet(4, 30, rreq(0, 1, 9, 2, 2)));
    assert!(out.is_empty());
    assert_eq!(n.paths(0), vec![(3, 3, 1), (4, 3, 2)]);

    // A copy through 6 sharing first hop 1: not link-disjoint, dropped.
    let out = n.control(ms(12), 6, rreq_packet(6, 30, rreq(0, 1, 9, 2, 1)));
    assert!(out.is_empty());
    assert_eq!(n.paths(0).len(), 2);
    assert!(n.timeout(ms(100)).is_empty(), "no copy is relayed");
}

#[test]
fn the_advertised_hop_count_rule_rejects_a_path_that_could_loop() {
    // Node 5 relays 0's RREQ, advertising 3 hops to 0.
    let mut n = Node::new(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1)));
    let relayed = originated(&n.timeout(ms(10)));
    let Message::Rreq(r) = relayed[0].2 else {
        panic!()
    };
    assert_eq!(r.base.hop_count, 3);
    // A copy from neighbour 7 that advertises 3 hops (4 through 7), with a
    // new first hop: 7 may have heard 5's own broadcast, so 7's path could
    // run through 5. Its hop count is not below 5's advertised one: refused.
    n.control(ms(20), 7, rreq_packet(7, 30, rreq(0, 1, 9, 3, 2)));
    assert_eq!(n.paths(0), vec![(3, 3, 1)]);
    // The same from a neighbour advertising 2 hops is fine.
    n.control(ms(21), 8, rreq_packet(8, 30, rreq(0, 1, 9, 2, 2)));
    assert_eq!(n.paths(0), vec![(3, 3, 1), (8, 3, 2)]);
}

#[test]
fn the_destination_answers_each_disjoint_copy_with_the_same_sequence_number() {
    let mut n = Node::new(9);
    let first = originated(&n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1))));
    let second = originated(&n.control(ms(5), 4, rreq_packet(4, 30, rreq(0, 1, 9, 2, 2))));
    let same_path = originated(&n.control(ms(6), 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1))));
    let shared_first_hop =
        originated(&n.control(ms(7), 6, rreq_packet(6, 30, rreq(0, 1, 9, 2, 2))));
    assert!(same_path.is_empty() && shared_first_hop.is_empty());
    let mut replies = Vec::new();
    for (msg, to, m, _) in first.iter().chain(&second) {
        let Message::Rrep(rp) = m else { panic!() };
        assert_eq!(*msg, "rrep");
        replies.push((
            *to,
            rp.base.hop_count,
            rp.base.dst_seqno,
            rp.rreq_id,
            rp.first_hop,
        ));
    }
    assert_eq!(replies, vec![(3, 0, 2, 1, 3), (4, 0, 2, 1, 4)]);
}

/// Node 0 with two disjoint paths to 9: via 1 (3 hops) and via 2 (3 hops),
/// learnt from two RREPs of one discovery.
fn source_with_two_paths() -> Node {
    source_with_two_paths_using(Aomdv::new(0, AomdvConfig::default()))
}

fn source_with_two_paths_using(a: Aomdv) -> Node {
    let mut n = Agent::wrap(0, a, 1);
    assert!(n.run(|a, ctx| a.start(0, ctx)).is_empty());
    let out = n.data(0, data(0, 9, 1));
    let sent = originated(&out);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, "rreq");
    let Message::Rreq(r) = sent[0].2 else {
        panic!()
    };
    let id = r.base.rreq_id;
    let out = n.control(ms(20), 1, rrep_packet(1, 0, 9, 2, 2, id, 7));
    assert_eq!(sent_data(&out), vec![(1, 1)], "the buffered packet goes");
    let out = n.control(ms(21), 2, rrep_packet(2, 0, 9, 2, 2, id, 8));
    assert!(out.is_empty());
    assert_eq!(n.paths(9), vec![(1, 3, 7), (2, 3, 8)]);
    n
}

#[test]
fn on_a_link_failure_aomdv_switches_to_its_second_path_without_rediscovery() {
    let mut n = source_with_two_paths();
    assert_eq!(n.a.hop_count(9, ms(21)), Some(3));
    assert_eq!(sent_data(&n.data(ms(100), data(0, 9, 2))), vec![(2, 1)]);
    // The MAC gives up on packet 3 to neighbour 1.
    let out = n.link_failure(ms(200), 1, Some(data(0, 9, 3)));
    assert!(
        originated(&out).is_empty(),
        "no RREQ, no RERR (a path is left): {out:?}"
    );
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    assert_eq!(
        sent_data(&out),
        vec![(3, 2)],
        "salvaged over the other path"
    );
    assert_eq!(sent_data(&n.data(ms(300), data(0, 9, 4))), vec![(4, 2)]);
    assert_eq!(n.paths(9), vec![(2, 3, 8)]);
    assert_eq!(n.a.discoveries_started(), 1);
    assert!(n.timeout(ms(5000)).is_empty(), "no discovery timer pending");
}

#[test]
fn a_rerr_is_sent_when_the_last_path_breaks() {
    // Relay 5 forwards data from 0 to 9 over its two paths.
    let mut n = Node::new(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1)));
    n.control(ms(1), 6, rrep_packet(6, 0, 9, 4, 1, 1, 6));
    n.control(ms(2), 7, rrep_packet(7, 0, 9, 4, 1, 1, 7));
    assert_eq!(n.paths(9), vec![(6, 2, 6), (7, 2, 7)]);
    assert_eq!(sent_data(&n.data(ms(10), data(0, 9, 1))), vec![(1, 6)]);

    let out = n.link_failure(ms(20), 6, None);
    assert!(originated(&out).is_empty(), "one path is left");
    assert_eq!(sent_data(&n.data(ms(30), data(0, 9, 2))), vec![(2, 7)]);

    let out = n.link_failure(ms(40), 7, Some(data(0, 9, 3)));
    let sent = originated(&out);
    assert_eq!(sent.len(), 1, "{out:?}");
    let (msg, to, Message::Rerr(re), ttl) = &sent[0] else {
        panic!("{sent:?}")
    };
    assert_eq!((*msg, *to, *ttl), ("rerr", BROADCAST, 1));
    assert_eq!(re.unreachable, vec![(9, 5)], "seqno made odd");
    assert!(out.contains(&RoutingAction::Drop {
        packet: data(0, 9, 3),
        reason: DropReason::NoRoute
    }));
}

#[test]
fn a_rerr_removes_the_senders_path_and_is_relayed_only_when_none_is_left() {
    let mut n = Node::new(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 2, 1)));
    n.control(ms(1), 6, rrep_packet(6, 0, 9, 4, 1, 1, 6));
    n.control(ms(2), 7, rrep_packet(7, 0, 9, 4, 1, 1, 7));
    let rerr = |from: NodeId| {
        let re = RerrRepr {
            no_delete: false,
            unreachable: vec![(9, 5)],
        };
        Packet::control(from, BROADCAST, 1, 8, re.to_bytes())
    };
    assert!(n.control(ms(10), 6, rerr(6)).is_empty());
    assert_eq!(n.paths(9), vec![(7, 2, 7)]);
    n.control(ms(11), 7, rerr(7));
    let sent: Vec<_> = originated(&n.timeout(ms(30)))
        .into_iter()
        .filter(|s| s.0 != "rreq")
        .collect();
    assert_eq!(sent.len(), 1, "relayed after the jitter");
    let Message::Rerr(re) = &sent[0].2 else {
        panic!()
    };
    assert_eq!(re.unreachable, vec![(9, 5)]);
    assert!(!n.a.routes().is_up(9, ms(30)));
}

#[test]
fn a_relay_sends_each_rrep_of_a_request_along_its_own_reverse_path() {
    // Node 5 has two reverse paths to 0 (via 3 and via 4).
    let mut n = Node::new(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 1, 1)));
    n.control(ms(1), 4, rreq_packet(4, 30, rreq(0, 1, 9, 1, 2)));
    assert_eq!(n.paths(0).len(), 2);
    // Three RREPs for 0's request 1: from 6 and 8 (neighbours of 9), and
    // the same as 6's again.
    let a = originated(&n.control(ms(5), 6, rrep_packet(6, 0, 9, 4, 1, 1, 6)));
    let b = originated(&n.control(ms(6), 6, rrep_packet(6, 0, 9, 4, 1, 1, 6)));
    let c = originated(&n.control(ms(7), 8, rrep_packet(8, 0, 9, 4, 1, 1, 8)));
    assert_eq!(a.len(), 1);
    assert_eq!((a[0].0, a[0].1), ("rrep", 3));
    assert!(b.is_empty(), "that forward path was advertised already");
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].0, c[0].1), ("rrep", 4), "the unused reverse path");
    let Message::Rrep(rp) = c[0].2 else { panic!() };
    assert_eq!((rp.base.hop_count, rp.first_hop), (2, 8), "advertised hops");
    assert_eq!(n.paths(9), vec![(6, 2, 6), (8, 2, 8)]);
}

fn node_disjoint(me: NodeId) -> Node {
    let cfg = AomdvConfig {
        disjoint: Disjoint::Node,
        ..AomdvConfig::default()
    };
    Agent::wrap(me, Aomdv::new(me, cfg), me as u64 + 1)
}

#[test]
fn node_disjoint_a_relay_sends_one_rrep_per_request_over_its_primary_path() {
    // As above, ns-2.35's way: two reverse paths to 0 (via 3, then 4).
    let mut n = node_disjoint(5);
    n.control(0, 3, rreq_packet(3, 30, rreq(0, 1, 9, 1, 1)));
    n.control(ms(1), 4, rreq_packet(4, 30, rreq(0, 1, 9, 1, 2)));
    assert_eq!(n.paths(0).len(), 2);
    // The first RREP goes over the primary reverse path (via 3), naming as
    // its first hop the last hop of this node's primary path to 9.
    let a = originated(&n.control(ms(5), 6, rrep_packet(6, 0, 9, 4, 1, 1, 66)));
    assert_eq!(a.len(), 1);
    assert_eq!((a[0].0, a[0].1), ("rrep", 3));
    let Message::Rrep(rp) = a[0].2 else { panic!() };
    assert_eq!((rp.base.hop_count, rp.first_hop), (2, 66));
    // A second RREP for the request adds its path but is not relayed.
    let c = originated(&n.control(ms(7), 8, rrep_packet(8, 0, 9, 4, 1, 1, 8)));
    assert!(c.is_empty(), "one RREP per request: {c:?}");
    assert_eq!(n.paths(9), vec![(6, 2, 66), (8, 2, 8)]);
}

#[test]
fn node_disjoint_an_intermediate_node_answers_one_copy_and_relays_with_its_primary_last_hop() {
    let mut n = node_disjoint(5);
    n.control(0, 6, rrep_packet(6, 5, 9, 4, 1, 0, 6));
    n.control(ms(1), 7, rrep_packet(7, 5, 9, 4, 1, 0, 7));
    assert_eq!(n.paths(9).len(), 2);
    let mut rq = rreq(0, 3, 9, 1, 1);
    rq.base.unknown_seqno = false;
    rq.base.dst_seqno = 4;
    let sent = originated(&n.control(ms(2), 3, rreq_packet(3, 30, rq)));
    assert_eq!(sent.len(), 1);
    let Message::Rrep(rp) = sent[0].2 else {
        panic!()
    };
    assert_eq!(rp.first_hop, 6, "the primary path");
    // A second copy over a new reverse path gets no answer (link-disjoint
    // would give it the path via 7).
    let again = originated(&n.control(ms(3), 4, rreq_packet(4, 30, rreq_with(rq, 2))));
    assert!(again.is_empty(), "{again:?}");
    // A request this node relays names the last hop of its primary path
    // back to the originator, not the copy's first hop.
    let mut m = node_disjoint(5);
    m.control(0, 3, rreq_packet(3, 30, rreq(0, 8, 9, 1, 1)));
    let relayed = originated(&m.timeout(ms(20)));
    let Message::Rreq(out) = relayed[0].2 else {
        panic!()
    };
    assert_eq!(out.first_hop, 1);
    m.control(ms(30), 4, rreq_packet(4, 30, rreq(0, 9, 9, 1, 2)));
    let relayed = originated(&m.timeout(ms(60)));
    let Message::Rreq(out) = relayed[0].2 else {
        panic!()
    };
    assert_eq!(out.first_hop, 1, "the primary reverse path's, not 2");
}

fn rreq_with(mut rq: AomdvRreq, first_hop: NodeId) -> AomdvRreq {
    rq.first_hop = first_hop;
    rq
}

#[test]
fn an_intermediate_node_with_a_fresh_route_replies_instead_of_relaying() {
    let mut n = Node::new(5);
    n.control(0, 6, rrep_packet(6, 5, 9, 4, 1, 0, 6));
    let mut rq = rreq(0, 3, 9, 1, 1);
    rq.base.unknown_seqno = false;
    rq.base.dst_seqno = 4;
    let sent = originated(&n.control(ms(1), 3, rreq_packet(3, 30, rq)));
    assert_eq!(sent.len(), 1);
    let (msg, to, Message::Rrep(rp), _) = &sent[0] else {
        panic!("{sent:?}")
    };
    assert_eq!((*msg, *to), ("rrep", 3));
    assert_eq!(
        (rp.base.dst, rp.base.hop_count, rp.base.dst_seqno),
        (9, 2, 4)
    );
    assert_eq!(rp.first_hop, 6);
    assert!(n.timeout(ms(50)).is_empty(), "not relayed");
    // A request for a fresher number is relayed.
    rq.base.rreq_id = 4;
    rq.base.dst_seqno = 6;
    rq.base.orig_seqno = 4;
    assert!(originated(&n.control(ms(60), 3, rreq_packet(3, 30, rq))).is_empty());
    assert_eq!(originated(&n.timeout(ms(100))).len(), 1);
}

#[test]
fn a_discovery_retries_network_wide_then_drops_the_buffered_data() {
    let mut n = Node::new(0);
    let out = n.data(0, data(0, 9, 1));
    assert_eq!(originated(&out)[0].3, 30, "the first RREQ floods (ns-2)");
    let mut rreqs = 1;
    let mut drops = 0;
    let mut t = 0;
    while let Some(at) = n.a.poll_timeout() {
        assert!(at - t <= NS_PER_S, "waits at most MAX_RREQ_TIMEOUT");
        t = at;
        let out = n.timeout(at);
        rreqs += originated(&out).len();
        drops += out
            .iter()
            .filter(|a| {
                matches!(
                    a,
                    RoutingAction::Drop {
                        reason: DropReason::NoRoute,
                        ..
                    }
                )
            })
            .count();
    }
    assert_eq!(rreqs, 4, "one RREQ and RREQ_RETRIES (3) retries");
    assert_eq!(drops, 1);
    assert_eq!(n.a.buffered(), 0);
}

fn hello_cfg() -> AomdvConfig {
    AomdvConfig {
        link_detection: LinkDetection::Hello,
        ..AomdvConfig::default()
    }
}

/// A HELLO from `from`, carrying ns-2.35's lifetime ((1 + 3) × 1 s).
fn hello(from: NodeId) -> Packet {
    let rp = AomdvRrep {
        base: RrepRepr {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 0,
            dst: from,
            dst_seqno: 2,
            orig: from,
            lifetime_ms: 4000,
        },
        rreq_id: 0,
        first_hop: from,
    };
    Packet::control(from, BROADCAST, 1, 8, rp.to_bytes())
}

#[test]
fn with_hello_detection_a_node_without_a_live_route_stays_silent() {
    let mut n = Agent::wrap(4, Aomdv::new(4, hello_cfg()), 5);
    assert!(n.run(|a, ctx| a.start(0, ctx)).is_empty());
    // Checks at 0 and every 0.75-1.25 s, for 10 s: no route, no HELLO.
    for t in (0..=10_000).step_by(50) {
        assert!(n.timeout(ms(t)).is_empty(), "at {t} ms");
    }
    // A neighbour's HELLO gives a one-hop route: from the next check on,
    // this node says HELLO too, with the lifetime ns-2.35 gives it (4 s).
    n.control(ms(10_010), 5, hello(5));
    let mut sent = Vec::new();
    for t in (10_050..=11_300).step_by(50) {
        sent.extend(originated(&n.timeout(ms(t))));
    }
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (message, next_hop, Message::Rrep(rp), ttl) = &sent[0] else {
        panic!("{sent:?}")
    };
    assert_eq!((*message, *next_hop, *ttl), ("hello", BROADCAST, 1));
    assert_eq!(
        (rp.base.dst, rp.base.hop_count, rp.base.lifetime_ms),
        (4, 0, 4000)
    );
}

#[test]
fn with_hello_detection_a_silent_neighbour_loses_its_paths_and_data_fails_over() {
    let mut n = source_with_two_paths_using(Aomdv::new(0, hello_cfg()));
    // Only HELLOs make neighbours: the RREPs from 1 and 2 did not.
    assert!(!n.a.neighbors.contains(1) && !n.a.neighbors.contains(2));
    // With a route up, the check due since the start sends a HELLO.
    let hellos: Vec<_> = originated(&n.timeout(ms(100)))
        .into_iter()
        .filter(|s| s.0 == "hello")
        .collect();
    assert_eq!(hellos.len(), 1);
    assert_eq!((hellos[0].1, hellos[0].3), (BROADCAST, 1));
    // 1 is heard at 0.5 s (new: kept 3 s) and at 1 s (known: 4.5 s, so
    // until 5.5 s, found lost on the purge tick at 6 s); 2 keeps talking.
    n.control(ms(500), 1, hello(1));
    n.control(ms(500), 2, hello(2));
    n.control(ms(1000), 1, hello(1));
    assert_eq!(
        n.a.hop_count(1, ms(1000)),
        Some(1),
        "a HELLO gives a one-hop path"
    );
    for t in [2000, 4000, 5500] {
        n.control(ms(t), 2, hello(2));
    }
    let seqno = n.a.seqno;
    let out = n.timeout(ms(5999));
    assert!(!out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    assert_eq!(n.paths(9), vec![(1, 3, 7), (2, 3, 8)]);
    let out = n.timeout(ms(6000));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    assert!(
        originated(&out).iter().all(|s| s.0 == "hello"),
        "no RERR: a path to 9 is left"
    );
    assert_eq!(n.a.seqno, seqno + 2, "the set of neighbours changed");
    assert_eq!(n.paths(9), vec![(2, 3, 8)]);
    assert_eq!(sent_data(&n.data(ms(6100), data(0, 9, 5))), vec![(5, 2)]);
    // A MAC failure only drops the packet in this mode.
    let out = n.link_failure(ms(6200), 2, Some(data(0, 9, 6)));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: data(0, 9, 6),
            reason: DropReason::RetryLimit
        }]
    );
}

#[test]
fn with_hello_detection_a_lost_neighbours_queue_is_salvaged_or_dropped_as_ns2_does() {
    // ns-2.35's `nb_delete` empties the queue of what waits for the lost
    // neighbour: data for a route still up goes over its other path, the
    // rest is dropped, control packets included, with no RERR and no
    // buffering at the source.
    let mut n = source_with_two_paths_using(Aomdv::new(0, hello_cfg()));
    assert!(n.a.reroutes_control());
    // 1 is heard once (kept 3 s: lost on the purge tick at 4 s); 2 talks on.
    n.control(ms(500), 1, hello(1));
    for t in [500, 1000, 2000, 3000] {
        n.control(ms(t), 2, hello(2));
    }
    let out = n.timeout(ms(4000));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    assert_eq!(n.paths(9), vec![(2, 3, 8)]);
    let out = n.run(|a, ctx| a.on_reroute(ms(4000), data(0, 9, 5), 1, ctx));
    assert_eq!(sent_data(&out), vec![(5, 2)], "over the path left");
    let reply = rrep_packet(0, 1, 7, 4, 2, 1, 0);
    let out = n.run(|a, ctx| a.on_reroute(ms(4000), reply.clone(), 1, ctx));
    // Dropped for the lost neighbour: `no_route`, ns-2.35's `RTR HELO`.
    assert_eq!(
        out,
        vec![RoutingAction::DropForLostNeighbour {
            packet: reply,
            next_hop: 1
        }]
    );
    // For a destination with no route the source drops it, unbuffered.
    let out = n.run(|a, ctx| a.on_reroute(ms(4000), data(0, 6, 7), 1, ctx));
    assert_eq!(
        out,
        vec![RoutingAction::DropForLostNeighbour {
            packet: data(0, 6, 7),
            next_hop: 1
        }]
    );
    assert_eq!(n.a.buffered(), 0);
    // With MAC feedback only data comes back, and is routed again.
    assert!(!source_with_two_paths().a.reroutes_control());
}

#[test]
fn a_relay_without_a_route_reports_once_a_second_or_as_ns2_every_packet() {
    let rerrs = |cfg: AomdvConfig| {
        let mut n = Agent::wrap(2, Aomdv::new(2, cfg), 3);
        (0..15u64)
            .map(|k| {
                let out = n.data(ms(k * 10), data(0, 9, k + 1));
                assert!(out.iter().any(|a| matches!(
                    a,
                    RoutingAction::Drop {
                        reason: DropReason::NoRoute,
                        ..
                    }
                )));
                originated(&out).iter().filter(|s| s.0 == "rerr").count()
            })
            .sum::<usize>()
    };
    assert_eq!(rerrs(AomdvConfig::default()), 1);
    let ns2 = AomdvConfig {
        rerr_limits: false,
        ..AomdvConfig::default()
    };
    assert_eq!(rerrs(ns2), 15, "one per packet, beyond RERR_RATELIMIT");
}

#[test]
fn data_it_originates_leaves_with_ns2s_ttl_and_relayed_data_keeps_its_own() {
    let ttls = |out: &[RoutingAction]| -> Vec<u8> {
        out.iter()
            .filter_map(|a| match a {
                RoutingAction::Send { packet, .. } if !packet.is_control() => Some(packet.ttl),
                _ => None,
            })
            .collect()
    };
    let mut n = source_with_two_paths();
    // ns-2.35's AOMDV sets NETWORK_DIAMETER on what its node originates.
    assert_eq!(ttls(&n.data(ms(100), data(0, 9, 2))), vec![30]);
    // A packet from another node passes with the TTL it came with.
    let mut relayed = data(4, 9, 3);
    relayed.ttl = 17;
    relayed.hops = 1;
    assert_eq!(ttls(&n.data(ms(110), relayed)), vec![17]);
}

#[test]
fn with_a_trace_a_rreq_whose_ttl_runs_out_is_handed_over_as_it_would_have_gone() {
    let mut n = Node::new(2);
    n.tracing = true;
    let mut p = rreq_packet(1, 1, rreq(0, 1, 9, 0, 1));
    p.uid = 41;
    let out = n.control(0, 1, p);
    let expired: Vec<&Packet> = out
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Expired(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(expired.len(), 1, "{out:?}");
    let e = expired[0];
    assert_eq!((e.src, e.dst, e.ttl, e.uid), (2, BROADCAST, 0, 41));
    let Ok(Message::Rreq(r)) = Message::parse(e.body()) else {
        panic!()
    };
    // One hop more than the sender advertised, for the reverse path made.
    assert_eq!((r.base.orig, r.base.rreq_id, r.base.hop_count), (0, 1, 1));
    // Without a trace, nothing.
    let mut quiet = Node::new(2);
    let out = quiet.control(0, 1, rreq_packet(1, 1, rreq(0, 1, 9, 0, 1)));
    assert!(!out.iter().any(|a| matches!(a, RoutingAction::Expired(_))));
}

#[test]
fn with_ns2_message_sizes_requests_replies_and_hellos_are_ns2s_size() {
    // ns-2.35's `aomdv_packet.h`, at the IP layer: RREQ and RREP 52 bytes,
    // HELLO 44, without a UDP header (manetsim's: 56 each).
    let cfg = AomdvConfig {
        ns2_message_sizes: true,
        ..hello_cfg()
    };
    let sizes = |out: &[RoutingAction]| -> Vec<(&'static str, u32)> {
        crate::routing::testkit::originated_packets(out)
            .into_iter()
            .map(|(p, _, message, _)| (message, p.size_bytes))
            .collect()
    };
    let mut src = Agent::wrap(0, Aomdv::new(0, cfg.clone()), 1);
    assert!(src.run(|a, ctx| a.start(0, ctx)).is_empty());
    assert_eq!(sizes(&src.data(0, data(0, 9, 1))), [("rreq", 52)]);
    // The destination answers a request (read from ns-2's bytes) with a
    // 52-byte RREP.
    let mut dst = Agent::wrap(9, Aomdv::new(9, cfg.clone()), 10);
    assert!(dst.run(|a, ctx| a.start(0, ctx)).is_empty());
    let mut rq = rreq(0, 1, 9, 0, 0).to_bytes();
    rq = crate::wire::aodv::with_stamp(rq, 0);
    let out = dst.control(ms(10), 0, Packet::control(0, BROADCAST, 30, 0, rq));
    assert_eq!(sizes(&out), [("rrep", 52)]);
    // With a live route, the next HELLO check sends a 44-byte HELLO, which
    // a neighbour reads as a one-hop route to its sender.
    let mut hellos = Vec::new();
    for t in (50..=1_300).step_by(50) {
        for a in dst.timeout(ms(t)) {
            if let RoutingAction::Originate { packet, .. } = a {
                hellos.push(packet);
            }
        }
    }
    assert!(!hellos.is_empty());
    assert!(hellos.iter().all(|h| h.size_bytes == 44), "{hellos:?}");
    let mut nb = Agent::wrap(5, Aomdv::new(5, cfg), 6);
    nb.control(ms(1_400), 9, hellos[0].clone());
    assert_eq!(nb.a.hop_count(9, ms(1_400)), Some(1));
    // Standard sizes: 56 each.
    let mut std = Agent::wrap(0, Aomdv::new(0, hello_cfg()), 1);
    assert_eq!(sizes(&std.data(0, data(0, 9, 1))), [("rreq", 56)]);
}

#[test]
fn under_ns2s_rule_the_destination_answers_every_copy_its_filter_lets_through() {
    let cfg = AomdvConfig {
        ns2_target_replies: true,
        ..AomdvConfig::default()
    };
    let mut n = Agent::wrap(9, Aomdv::new(9, cfg), 10);
    // (sender, first hop, hop count) of copies of one RREQ from node 0, and
    // whether ns-2.35's `recvRequest` answers each.
    let copies = [
        (3, 1, 2, true),    // the first: a new route
        (4, 2, 2, true),    // a disjoint path
        (3, 1, 2, true),    // the same path again: refreshed
        (6, 2, 2, true),    // first hop 2's path is no shorter
        (7, 2, 3, false),   // first hop 2's path is shorter
        (3, 5, 2, false),   // next hop 3 taken, no path ends with 5
        (10, 11, 2, true),  // a third disjoint path
        (12, 13, 2, true),  // no room for a fourth: still answered
        (14, 15, 4, false), // two hops longer than the shortest
    ];
    for (i, &(from, first_hop, hops, answered)) in copies.iter().enumerate() {
        let at = ms(i as u64);
        let out = originated(&n.control(
            at,
            from,
            rreq_packet(from, 30, rreq(0, 1, 9, hops, first_hop)),
        ));
        let replies: Vec<NodeId> = out.iter().map(|(_, to, _, _)| *to).collect();
        let expected = if answered { vec![from] } else { vec![] };
        assert_eq!(replies, expected, "copy {i}: {:?}", copies[i]);
    }
    assert_eq!(n.paths(0).len(), 3);
}
