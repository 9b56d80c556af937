//! State-machine tests on hand-built packets: each test drives one or two
//! agents directly and inspects the actions they push.

use super::*;
use crate::engine::Rng;
use crate::net::{RoutingAction, DEFAULT_TTL};
use crate::routing::testkit::{data, ms, originated_by, originated_packets, sent_data, Agent};

type Node = Agent<Aodv>;

impl Node {
    fn new(me: NodeId) -> Self {
        Self::with(me, AodvConfig::default())
    }

    fn with(me: NodeId, cfg: AodvConfig) -> Self {
        Agent::wrap(me, Aodv::new(me, cfg), me as u64 + 1)
    }
}

fn rreq(orig: NodeId, id: u32, dst: NodeId, dst_seqno: Option<u32>, hops: u8) -> RreqRepr {
    RreqRepr {
        hop_count: hops,
        ..RreqRepr::request(id, dst, dst_seqno, orig, 1)
    }
}

fn rreq_packet(sender: NodeId, ttl: u8, rq: RreqRepr) -> Packet {
    Packet::control(sender, BROADCAST, ttl, 8, rq.to_bytes())
}

fn rrep_packet(sender: NodeId, to: NodeId, dst: NodeId, seq: u32, hops: u8) -> Packet {
    let rp = RrepRepr::new(hops, dst, seq, to, 10_000);
    Packet::control(sender, to, 30, 8, rp.to_bytes())
}

/// A RREP as [`rrep_packet`]'s with lifetime `lifetime_ms`.
fn rrep_living(sender: NodeId, to: NodeId, dst: NodeId, seq: u32, lifetime_ms: u32) -> Packet {
    let rp = RrepRepr::new(1, dst, seq, to, lifetime_ms);
    Packet::control(sender, to, 30, 8, rp.to_bytes())
}

/// A RERR broadcast by `sender` listing `unreachable` (destination, seqno).
fn rerr_packet(sender: NodeId, unreachable: Vec<(NodeId, u32)>) -> Packet {
    let re = RerrRepr {
        no_delete: false,
        unreachable,
    };
    Packet::control(sender, BROADCAST, 1, 8, re.to_bytes())
}

/// The originated control messages: (message, next hop, parsed, IP ttl).
fn originated(out: &[RoutingAction]) -> Vec<(&'static str, NodeId, Message, u8)> {
    originated_by(out, |b| Message::parse(b).unwrap())
}

/// The destinations (and numbers) each RERR in `out` reports.
fn rerrs_sent(out: &[RoutingAction]) -> Vec<Vec<(NodeId, u32)>> {
    originated(out)
        .into_iter()
        .filter_map(|(_, _, m, _)| match m {
            Message::Rerr(re) => Some(re.unreachable),
            _ => None,
        })
        .collect()
}

#[test]
fn a_relayed_rreq_goes_out_after_jitter_with_one_more_hop_and_one_less_ttl() {
    let mut n = Node::new(2);
    let out = n.control(0, 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 1)));
    assert!(out.is_empty(), "held for the jitter: {out:?}");
    let at = n.a.poll_timeout().unwrap();
    assert!(at <= ms(10));
    let sent = originated(&n.timeout(at));
    assert_eq!(sent.len(), 1);
    let (msg, to, m, ttl) = &sent[0];
    assert_eq!((*msg, *to, *ttl), ("rreq", BROADCAST, 4));
    let Message::Rreq(r) = m else { panic!() };
    assert_eq!(r.hop_count, 2);
    // The reverse route to the originator goes through the sender.
    assert_eq!(n.a.routes().valid(0, at).unwrap().next_hop, 1);
    assert_eq!(n.a.hop_count(0, at), Some(2));
}

#[test]
fn a_duplicate_rreq_is_dropped() {
    let mut n = Node::new(2);
    n.control(0, 1, rreq_packet(1, 5, rreq(0, 7, 9, None, 1)));
    let first = n.timeout(ms(20));
    assert_eq!(originated(&first).len(), 1);
    // The same (originator, id) again, from another neighbour.
    let out = n.control(ms(30), 3, rreq_packet(3, 5, rreq(0, 7, 9, None, 1)));
    assert!(out.is_empty());
    assert!(n.timeout(ms(100)).is_empty(), "nothing relayed");
    // A new id from the same originator is relayed.
    n.control(ms(200), 1, rreq_packet(1, 5, rreq(0, 8, 9, None, 1)));
    assert_eq!(originated(&n.timeout(ms(300))).len(), 1);
}

#[test]
fn a_seen_rreq_is_known_ahead_as_one_the_agent_drops_unread() {
    let mut n = Node::new(2);
    let copy = rreq_packet(3, 5, rreq(0, 7, 9, None, 1));
    let id = n.a.flood_id(&copy).expect("a RREQ is a flood");
    assert_eq!(id, (0, 7));
    assert!(!n.a.has_seen(id, ms(30)), "not heard yet");
    n.control(0, 1, rreq_packet(1, 5, rreq(0, 7, 9, None, 1)));
    assert!(n.a.has_seen(id, ms(30)));
    // Remembered for rreq_id_save after it was heard, not a nanosecond more.
    let save = AodvConfig::default().rreq_id_save;
    assert!(n.a.has_seen(id, save - 1));
    assert!(!n.a.has_seen(id, save));
    assert!(!n.a.has_seen((0, 8), ms(30)), "another id");
    // Its own RREQs come back to a node and are dropped too.
    assert!(n.a.has_seen((2, 1), ms(30)));
    // A RREP is no flood; with HELLOs on, every packet heard counts.
    assert_eq!(n.a.flood_id(&rrep_packet(3, 2, 9, 10, 1)), None);
    let hello = Node::with(
        2,
        AodvConfig {
            link_detection: LinkDetection::Hello,
            ..AodvConfig::default()
        },
    );
    assert_eq!(hello.a.flood_id(&copy), None);
}

#[test]
fn a_rreq_with_ttl_one_is_not_relayed() {
    let mut n = Node::new(2);
    let out = n.control(0, 1, rreq_packet(1, 1, rreq(0, 1, 9, None, 0)));
    assert!(out.is_empty(), "nothing, not even a trace line: {out:?}");
    assert!(n.timeout(ms(50)).is_empty());
}

#[test]
fn with_a_trace_a_rreq_whose_ttl_runs_out_is_handed_over_as_it_would_have_gone() {
    // ns-2.35 drops it with a `D … RTR TTL` line: this node's address, TTL
    // 0, one hop more, the uid of the copy received.
    let mut n = Node::new(2);
    n.tracing = true;
    let mut p = rreq_packet(1, 1, rreq(0, 1, 9, None, 0));
    p.uid = 41;
    let out = n.control(0, 1, p);
    let [RoutingAction::Expired(e)] = out.as_slice() else {
        panic!("{out:?}")
    };
    assert_eq!((e.src, e.dst, e.ttl, e.uid), (2, BROADCAST, 0, 41));
    let Ok(Message::Rreq(r)) = Message::parse(e.body()) else {
        panic!()
    };
    assert_eq!((r.orig, r.rreq_id, r.dst, r.hop_count), (0, 1, 9, 1));
    assert!(n.timeout(ms(50)).is_empty(), "and it is not relayed");
    // A request with TTL left is relayed, with no such line.
    let out = n.control(ms(60), 1, rreq_packet(1, 2, rreq(0, 2, 9, None, 0)));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(originated(&n.timeout(ms(80))).len(), 1);
}

#[test]
fn the_destination_replies_with_a_fresh_sequence_number() {
    let mut n = Node::new(9);
    let out = n.control(0, 4, rreq_packet(4, 3, rreq(0, 1, 9, Some(6), 2)));
    let sent = originated(&out);
    assert_eq!(sent.len(), 1);
    let (msg, to, Message::Rrep(rp), _) = &sent[0] else {
        panic!("{sent:?}")
    };
    assert_eq!((*msg, *to), ("rrep", 4));
    assert_eq!((rp.dst, rp.orig, rp.hop_count), (9, 0, 0));
    assert_eq!(rp.dst_seqno, 7, "max(own, requested) + 1");
}

#[test]
fn ns2_own_sequence_numbers_are_even_and_go_up_by_two() {
    // ns-2.35's AODV: seqno starts at 2; += 2 before each RREQ; a reply as
    // the destination takes the next even number above max(own, asked);
    // nb_delete (a link the MAC found broken) adds 2.
    let orig_seqno = |out: &[RoutingAction]| match originated(out)[0].2 {
        Message::Rreq(r) => r.orig_seqno,
        ref m => panic!("{m:?}"),
    };
    let mut n = Node::with(0, AodvConfig::ns2());
    assert_eq!(orig_seqno(&n.data(0, data(0, 9, 1))), 4);
    assert_eq!(orig_seqno(&n.data(0, data(0, 8, 2))), 6);
    let reply_seqno = |n: &mut Node, at: SimTime, id: u32, asked: u32| {
        let out = n.control(at, 4, rreq_packet(4, 3, rreq(5, id, 0, Some(asked), 2)));
        match originated(&out)[0].2 {
            Message::Rrep(rp) => rp.dst_seqno,
            ref m => panic!("{m:?}"),
        }
    };
    assert_eq!(reply_seqno(&mut n, ms(10), 1, 2), 8, "above its own 6");
    assert_eq!(
        reply_seqno(&mut n, ms(20), 2, 11),
        12,
        "above the odd 11 asked"
    );
    assert_eq!(reply_seqno(&mut n, ms(30), 3, 13), 14);
    // A link the MAC found broken: + 2 (to 16), then + 2 for the RREQ.
    let mut s = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    s.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(data(0, 9, 2)), ctx));
    assert_eq!(orig_seqno(&s.data(ms(1100), data(0, 9, 3))), 8);
    // The RFC's: from 0, one by one.
    let mut rfc = Node::new(0);
    assert_eq!(orig_seqno(&rfc.data(0, data(0, 9, 1))), 1);
}

#[test]
fn an_intermediate_node_replies_only_with_a_fresh_enough_route() {
    let mut n = Node::new(2);
    // Node 2 learns a route to 9 (seqno 10, 2 hops) from a RREP via 3.
    n.control(0, 3, rrep_packet(3, 2, 9, 10, 1));
    assert_eq!(n.a.hop_count(9, 0), Some(2));
    // Judged at the time asked, not at the agent's last call.
    assert_eq!(n.a.hop_count(9, 3_600 * NS_PER_S), None);

    // The originator knows seqno 11: node 2's route is stale; it relays.
    let out = n.control(ms(1), 1, rreq_packet(1, 5, rreq(0, 1, 9, Some(11), 0)));
    assert!(originated(&out).is_empty());
    let relayed = originated(&n.timeout(ms(20)));
    assert_eq!(relayed.len(), 1);
    assert_eq!(relayed[0].0, "rreq");
    let Message::Rreq(r) = relayed[0].2 else {
        panic!()
    };
    assert_eq!(r.dst_seqno, 11, "the larger known seqno is carried on");

    // Seqno 10 is fresh enough: node 2 answers and does not relay.
    let out = n.control(ms(30), 1, rreq_packet(1, 5, rreq(0, 2, 9, Some(10), 0)));
    let sent = originated(&out);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (msg, to, Message::Rrep(rp), _) = &sent[0] else {
        panic!()
    };
    assert_eq!((*msg, *to), ("rrep", 1));
    assert_eq!((rp.dst, rp.dst_seqno, rp.hop_count, rp.orig), (9, 10, 2, 0));
    assert!(n.timeout(ms(100)).is_empty(), "the RREQ is not relayed");
    // Precursors: the requester's side on the forward route and vice versa.
    assert!(n.a.routes().get(9).unwrap().has_precursor(1));
    assert!(n.a.routes().get(0).unwrap().has_precursor(3));
}

#[test]
fn an_unknown_sequence_number_lets_any_valid_route_reply_and_d_flag_forbids_it() {
    let mut n = Node::new(2);
    n.control(0, 3, rrep_packet(3, 2, 9, 10, 0));
    let out = n.control(ms(1), 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 0)));
    assert_eq!(originated(&out)[0].0, "rrep");
    let mut rq = rreq(0, 2, 9, None, 0);
    rq.dest_only = true;
    let out = n.control(ms(2), 1, rreq_packet(1, 5, rq));
    assert!(originated(&out).is_empty());
    assert_eq!(originated(&n.timeout(ms(50)))[0].0, "rreq");
}

/// AODV-UU's gateway support: node 9 is the gateway, hosts from 20.
fn with_gateway(me: NodeId) -> Node {
    let cfg = AodvConfig {
        gateway: Some(InternetGateway {
            nodes: vec![9],
            first_host: 20,
            advertising: None,
        }),
        active_route_timeout: 3 * NS_PER_S,
        ..AodvConfig::default()
    };
    Node::with(me, cfg)
}

/// A packet from `src` for host `host`, tunnelled as the world hands it
/// over: addressed to gateway 9, 20 bytes longer.
fn to_host(n: &mut Node, now: SimTime, src: NodeId, host: NodeId, uid: u64) -> Vec<RoutingAction> {
    let mut p = data(src, 9, uid);
    p.size_bytes += IP_HEADER_BYTES;
    n.run(|a, ctx| a.route_to_internet(now, p, host, ctx))
}

/// Gateway `gw`'s reply (as neighbour `sender` passes it on) for host
/// `host`, `hops` from `gw`, to originator `orig`.
fn inet_rrep(sender: NodeId, orig: NodeId, gw: NodeId, seq: u32, hops: u8, host: NodeId) -> Packet {
    let rp = RrepRepr::new(hops, gw, seq, orig, 3_000);
    Packet::control(sender, orig, 30, 8, with_inet_dest(rp.to_bytes(), host))
}

/// The RREQs in `out`.
fn rreqs(out: &[RoutingAction]) -> Vec<RreqRepr> {
    originated(out)
        .into_iter()
        .filter_map(|(_, _, m, _)| match m {
            Message::Rreq(rq) => Some(rq),
            _ => None,
        })
        .collect()
}

/// The (destination, D flag) of each RREQ in `out`.
fn requests(out: &[RoutingAction]) -> Vec<(NodeId, bool)> {
    rreqs(out).iter().map(|rq| (rq.dst, rq.dest_only)).collect()
}

/// The (destination, size, next hop) of each packet handed down.
fn sent_to(out: &[RoutingAction]) -> Vec<(NodeId, u32, NodeId)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Send { packet, next_hop } => {
                Some((packet.dst, packet.size_bytes, *next_hop))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_source_seeks_a_host_by_its_address_and_tunnels_once_the_gateway_answers() {
    let mut n = with_gateway(0);
    let out = to_host(&mut n, 0, 0, 20, 1);
    assert_eq!(
        requests(&out),
        [(20, false)],
        "a RREQ for the host, no D flag"
    );
    assert!(sent_to(&out).is_empty());
    assert_eq!(n.a.buffered(), 1);
    // The gateway's reply, two hops away through node 5.
    let out = n.control(ms(20), 5, inet_rrep(5, 0, 9, 7, 1, 20));
    assert_eq!(
        sent_to(&out),
        [(9, 560, 5)],
        "tunnelled to the gateway again"
    );
    assert_eq!(n.a.buffered(), 0);
    assert_eq!(n.a.routes().valid(9, ms(20)).map(|e| e.hops), Some(2));
    // The next packet goes at once, no RREQ.
    let out = to_host(&mut n, ms(30), 0, 20, 2);
    assert!(requests(&out).is_empty());
    assert_eq!(sent_to(&out), [(9, 560, 5)]);
    // A node the gateway is not seeks a MANET node as usual.
    assert_eq!(requests(&n.data(ms(40), data(0, 7, 3))), [(7, false)]);
}

#[test]
fn only_the_gateway_answers_for_a_host_and_its_reply_names_it() {
    let rq = rreq(0, 1, 20, None, 1);
    let mut gw = with_gateway(9);
    let out = gw.control(0, 5, rreq_packet(5, 30, rq));
    let sent = originated_packets(&out);
    assert_eq!(sent.len(), 1);
    let (p, to, msg, _) = sent[0];
    assert_eq!((to, msg, p.dst), (5, "rrep", 0));
    let Ok(Message::Rrep(rp)) = Message::parse(p.body()) else {
        panic!()
    };
    assert_eq!((rp.dst, rp.hop_count, rp.orig), (9, 0, 0));
    assert_eq!(rp.lifetime_ms, 3_000, "ACTIVE_ROUTE_TIMEOUT");
    assert_eq!(inet_dest_of(p.body()), Some(20));
    assert_eq!(p.body().len(), RrepRepr::LEN + 6);
    assert_eq!(gw.a.poll_timeout(), None, "the request goes no further");
    // Each reply carries a new sequence number.
    let out = gw.control(ms(5), 5, rreq_packet(5, 30, rreq(0, 2, 20, None, 1)));
    let Ok(Message::Rrep(again)) = Message::parse(originated_packets(&out)[0].0.body()) else {
        panic!()
    };
    assert!(seq_newer(again.dst_seqno, rp.dst_seqno));
    // Another node relays it, holding no route to a host.
    let mut relay = with_gateway(4);
    assert!(relay.control(0, 5, rreq_packet(5, 30, rq)).is_empty());
    let at = relay.a.poll_timeout().unwrap();
    assert_eq!(requests(&relay.timeout(at)), [(20, false)]);
}

#[test]
fn a_relay_passes_the_gateway_reply_on_with_its_extension() {
    let mut relay = with_gateway(5);
    relay.control(0, 0, rreq_packet(0, 30, rreq(0, 1, 20, None, 0)));
    let out = relay.control(ms(10), 9, inet_rrep(9, 0, 9, 4, 0, 20));
    let sent = originated_packets(&out);
    assert_eq!(sent.len(), 1);
    let (p, to, _, _) = sent[0];
    assert_eq!((to, p.dst), (0, 0));
    let Ok(Message::Rrep(rp)) = Message::parse(p.body()) else {
        panic!()
    };
    assert_eq!((rp.dst, rp.hop_count), (9, 1));
    assert_eq!(inet_dest_of(p.body()), Some(20));
    assert_eq!(relay.a.routes().valid(9, ms(10)).map(|e| e.hops), Some(1));
}

#[test]
fn an_internet_route_lives_while_used_and_the_host_is_sought_again_once_it_expired() {
    let mut n = with_gateway(0);
    to_host(&mut n, 0, 0, 20, 1);
    n.control(0, 5, inet_rrep(5, 0, 9, 7, 1, 20));
    // Used every 2 s, it outlives its first 3 s.
    for (k, t) in [2, 4, 6].into_iter().enumerate() {
        let out = to_host(&mut n, t * NS_PER_S, 0, 20, 2 + k as u64);
        assert!(requests(&out).is_empty(), "at {t} s");
    }
    // 3 s unused, it is down: the host is sought again, the ring starting
    // from the route's 2 hops.
    let out = to_host(&mut n, 9 * NS_PER_S + 1, 0, 20, 9);
    let sent = originated(&out);
    assert_eq!(requests(&out), [(20, false)]);
    assert_eq!(sent[0].3, 4, "TTL = 2 hops + TTL_INCREMENT");
}

/// The RREQs (destination, D flag) a packet for host 20 starts once the
/// link to `via` broke, the gateway's reply having come through it from
/// `hops` hops beyond.
fn requests_after_a_break(via: NodeId, hops: u8) -> Vec<(NodeId, bool)> {
    let mut n = with_gateway(0);
    to_host(&mut n, 0, 0, 20, 1);
    n.control(0, via, inet_rrep(via, 0, 9, 7, hops, 20));
    n.link_failure(ms(100), via, None);
    requests(&to_host(&mut n, ms(200), 0, 20, 2))
}

#[test]
fn a_lost_route_to_the_gateway_is_sought_as_any_unless_the_gateway_was_the_neighbour_lost() {
    // Through node 5: the Internet route lives, the gateway is sought
    // (intermediate replies allowed).
    assert_eq!(requests_after_a_break(5, 1), [(9, false)]);
    // The gateway itself a neighbour: the Internet route went down with
    // the link, and the host is sought again.
    assert_eq!(requests_after_a_break(9, 0), [(20, false)]);
}

#[test]
fn a_later_gateway_reply_replaces_the_internet_route_only_when_shorter() {
    let mut n = with_gateway(0);
    to_host(&mut n, 0, 0, 20, 1);
    n.control(0, 5, inet_rrep(5, 0, 9, 7, 2, 20));
    // Another gateway, further: kept out.
    n.control(ms(1), 6, inet_rrep(6, 0, 8, 7, 4, 20));
    assert_eq!(sent_to(&to_host(&mut n, ms(2), 0, 20, 2)), [(9, 560, 5)]);
    // Nearer: taken.
    n.control(ms(3), 8, inet_rrep(8, 0, 8, 8, 0, 20));
    assert_eq!(sent_to(&to_host(&mut n, ms(4), 0, 20, 3)), [(8, 560, 8)]);
}

#[test]
fn without_a_gateway_a_tunnelled_packet_is_routed_to_the_gateway() {
    let mut n = Node::new(0);
    let out = to_host(&mut n, 0, 0, 20, 1);
    assert_eq!(requests(&out), [(9, false)]);
}

#[test]
fn gratuitous_flag_also_tells_the_destination() {
    let mut n = Node::new(2);
    n.control(0, 3, rrep_packet(3, 2, 9, 10, 0));
    let mut rq = rreq(0, 1, 9, None, 0);
    rq.gratuitous = true;
    let sent = originated(&n.control(ms(1), 1, rreq_packet(1, 5, rq)));
    assert_eq!(sent.len(), 2);
    let (_, to, Message::Rrep(g), _) = &sent[1] else {
        panic!()
    };
    assert_eq!((*to, g.dst, g.orig), (3, 0, 9));
}

#[test]
fn expanding_ring_retries_with_growing_ttl_then_gives_up() {
    let mut n = Node::new(0);
    let out = n.data(0, data(0, 9, 1));
    assert_eq!(n.a.buffered(), 1);
    let mut ttls = vec![originated(&out)[0].3];
    let mut now = 0;
    let mut waits = Vec::new();
    while let Some(at) = n.a.poll_timeout() {
        waits.push(at - now);
        now = at;
        let out = n.timeout(now);
        for (m, _, _, ttl) in originated(&out) {
            assert_eq!(m, "rreq");
            ttls.push(ttl);
        }
        if out.iter().any(|a| matches!(a, RoutingAction::Drop { .. })) {
            assert!(matches!(
                out.last(),
                Some(RoutingAction::Drop {
                    reason: DropReason::NoRoute,
                    ..
                })
            ));
            break;
        }
    }
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35, 35]);
    // RING_TRAVERSAL_TIME = 2 * 40 ms * (TTL + 2); then NET_TRAVERSAL_TIME
    // 2.8 s doubling, capped at 10 s.
    assert_eq!(
        waits,
        vec![
            ms(240),
            ms(400),
            ms(560),
            ms(720),
            ms(2800),
            ms(5600),
            ms(10_000)
        ]
    );
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn ns2_preset_floods_a_new_destination_at_once_then_rings_from_the_known_hop_count() {
    let mut n = Node::with(0, AodvConfig::ns2());
    let out = n.data(0, data(0, 9, 1));
    assert_eq!(originated(&out)[0].3, 30);
    let at = n.a.poll_timeout().unwrap();
    assert_eq!(at, ms(1800), "NET_TRAVERSAL_TIME = 2 * 30 ms * 30");
    n.control(ms(100), 1, rrep_packet(1, 0, 9, 3, 1));
    n.run(|a, ctx| a.on_link_failure(ms(200), 1, Some(data(0, 9, 2)), ctx));
    let out = n.data(ms(210), data(0, 9, 3));
    let rreqs: Vec<u8> = originated(&out)
        .iter()
        .filter(|s| s.0 == "rreq")
        .map(|s| s.3)
        .collect();
    assert_eq!(rreqs, vec![4], "last hop count 2 + TTL_INCREMENT");
}

/// Node 0 with an ns-2 configuration finds a 5-hop route to 9 in `latency`.
fn ns2_source_with_route(cfg: AodvConfig, latency: SimTime) -> Node {
    let mut n = Node::with(0, cfg);
    n.data(0, data(0, 9, 1));
    n.control(latency, 1, rrep_packet(1, 0, 9, 3, 4));
    assert_eq!(n.a.hop_count(9, latency), Some(5));
    n
}

#[test]
fn ns2_waits_twice_the_ttl_times_the_measured_per_hop_discovery_latency() {
    let cfg = AodvConfig {
        retry_when_prompted: false,
        ..AodvConfig::ns2()
    };
    // 50 ms for 5 hops: 10 ms per hop (ns-2's PerHopTime).
    let mut n = ns2_source_with_route(cfg, ms(50));
    assert_eq!(n.a.routes().get(9).unwrap().per_hop_time(), Some(ms(10)));
    n.run(|a, ctx| a.on_link_failure(ms(1000), 1, None, ctx));
    let out = n.data(ms(1000), data(0, 9, 2));
    assert_eq!(originated(&out)[0].3, 7, "the ring: 5 hops + 2");
    // 2 * TTL 7 * 10 ms, not RING_TRAVERSAL_TIME's 2 * 30 ms * (7 + 2).
    assert_eq!(n.a.poll_timeout(), Some(ms(1140)));
    let out = n.timeout(ms(1140));
    assert_eq!(originated(&out)[0].3, 30);
    // The first network-wide RREQ: 2 * 30 * 10 ms; the second waits twice that.
    assert_eq!(n.a.poll_timeout(), Some(ms(1140 + 600)));
    n.timeout(ms(1740));
    // (The first discovery's stale timer, at 1.8 s, sends nothing.)
    assert!(originated(&n.timeout(ms(1800))).is_empty());
    assert_eq!(n.a.poll_timeout(), Some(ms(1740 + 1200)));
    // Without a measurement, NODE_TRAVERSAL_TIME stands in.
    let mut fresh = Node::with(0, AodvConfig::ns2());
    fresh.data(0, data(0, 8, 1));
    assert_eq!(fresh.a.poll_timeout(), Some(ms(1800)));
}

#[test]
fn per_hop_latency_is_the_mean_of_the_last_three_discoveries() {
    let mut e = route_table::RouteTable::default();
    let r = e.entry(9);
    assert_eq!(r.per_hop_time(), None);
    for (latency, hops) in [(ms(100), 5), (ms(40), 4), (ms(30), 3), (ms(60), 2)] {
        r.record_discovery(latency, hops);
    }
    // 20 ms dropped out; (10 + 10 + 30) / 3.
    assert_eq!(r.per_hop_time(), Some(ms(50) / 3));
}

/// The timestamps (`stamp_of`) of the control messages in `out`.
fn stamps(out: &[RoutingAction]) -> Vec<Option<u32>> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Originate { packet, .. } => Some(stamp_of(packet.body())),
            _ => None,
        })
        .collect()
}

#[test]
fn ns2_rreqs_and_rreps_carry_the_rreq_send_time() {
    // ns-2.35's rq_timestamp: the source stamps its RREQ, relays keep the
    // stamp, and the destination's and intermediate nodes' replies, and
    // the relays of those replies, copy it.
    let ns2 = AodvConfig::ns2;
    let mut src = Node::with(0, ns2());
    let out = src.data(ms(250), data(0, 9, 1));
    assert_eq!(stamps(&out), [Some(250_000)]);
    let rreq = |out: &[RoutingAction]| match &out[0] {
        RoutingAction::Originate { packet, .. } => packet.clone(),
        other => panic!("{other:?}"),
    };
    let sent = rreq(&out);
    // The same 48 bytes at the IP layer as before the stamp was carried.
    assert_eq!(sent.size_bytes, 48);
    let mut relay = Node::with(2, ns2());
    relay.control(ms(251), 0, sent.clone());
    let at = relay.a.poll_timeout().unwrap();
    let relayed = relay.timeout(at);
    assert_eq!(stamps(&relayed), [Some(250_000)]);
    let mut dst = Node::with(9, ns2());
    let reply = dst.control(ms(260), 2, rreq(&relayed));
    assert_eq!(stamps(&reply), [Some(250_000)]);
    assert_eq!(rreq(&reply).size_bytes, 44);
    // The relay forwards the reply with its stamp.
    let back = relay.control(ms(270), 9, rreq(&reply));
    assert_eq!(stamps(&back), [Some(250_000)]);
    // A node with a fresh route answers in the destination's place.
    let mut mid = Node::with(3, ns2());
    mid.control(ms(200), 4, rrep_packet(4, 3, 9, 10, 1));
    let answer = mid.control(ms(252), 0, sent);
    assert_eq!(stamps(&answer), [Some(250_000)]);
    // The RFC preset carries no stamp.
    let mut rfc = Node::new(0);
    assert_eq!(stamps(&rfc.data(ms(250), data(0, 9, 1))), [None]);
}

#[test]
fn ns2_times_a_discovery_from_the_rreq_the_reply_answers() {
    // ns-2.35's recvReply: (now - rp_timestamp) / hops, for every reply that
    // updates the originator's route. A reply to the first RREQ that
    // arrives after the second was sent is timed from the first.
    let cfg = AodvConfig {
        retry_when_prompted: false,
        ..AodvConfig::ns2()
    };
    let mut n = Node::with(0, cfg);
    n.data(0, data(0, 9, 1));
    let retry = n.a.poll_timeout().unwrap();
    assert_eq!(stamps(&n.timeout(retry)), [Some((retry / 1_000) as u32)]);
    let rp = RrepRepr {
        repair: false,
        ack_required: false,
        prefix_size: 0,
        hop_count: 4,
        dst: 9,
        dst_seqno: 3,
        orig: 0,
        lifetime_ms: 10_000,
    };
    let reply = |stamp_us: u32| Packet::control(1, 0, 30, 0, with_stamp(rp.to_bytes(), stamp_us));
    let at = retry + ms(10);
    n.control(at, 1, reply(0));
    // 5 hops, timed from 0 (not from the retry, which would read 2 ms).
    assert_eq!(n.a.routes().get(9).unwrap().per_hop_time(), Some(at / 5));
    // A later, shorter route from the same flood is timed too (ns-2 times
    // every reply that updates the route, the discovery over or not).
    let later = at + ms(40);
    let shorter = RrepRepr { hop_count: 1, ..rp };
    n.control(
        later,
        1,
        Packet::control(1, 0, 30, 0, with_stamp(shorter.to_bytes(), 0)),
    );
    assert_eq!(
        n.a.routes().get(9).unwrap().per_hop_time(),
        Some((at / 5 + later / 2) / 2)
    );
}

#[test]
fn ns2_retries_only_when_prompted_by_data_or_the_purge_tick() {
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    n.run(|a, ctx| a.on_link_failure(ms(1000), 1, None, ctx));
    n.data(ms(1000), data(0, 9, 2));
    // The wait (140 ms) ends: nothing goes until a prompt.
    let out = n.timeout(ms(1140));
    assert!(originated(&out).is_empty());
    assert_eq!(n.a.poll_timeout(), Some(ms(1500)), "the next 0.5 s tick");
    // Data before the wait ended sends nothing; data after it sends the RREQ.
    let mut early = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    early.run(|a, ctx| a.on_link_failure(ms(1000), 1, None, ctx));
    early.data(ms(1000), data(0, 9, 2));
    assert!(originated(&early.data(ms(1100), data(0, 9, 3))).is_empty());
    early.timeout(ms(1140));
    let out = early.data(ms(1200), data(0, 9, 4));
    assert_eq!(originated(&out)[0].3, 30);
    // The tick armed at 1140 ms still fires, and finds nothing due.
    assert_eq!(early.a.poll_timeout(), Some(ms(1500)));
    assert!(originated(&early.timeout(ms(1500))).is_empty());
    assert_eq!(early.a.poll_timeout(), Some(ms(1200 + 600)));
    // Otherwise the purge tick sends it.
    let out = n.timeout(ms(1500));
    assert_eq!(originated(&out)[0].3, 30);
    assert!(originated(&n.timeout(ms(1800))).is_empty(), "a stale timer");
    assert_eq!(n.a.poll_timeout(), Some(ms(1500 + 600)));
}

#[test]
fn ns2_holds_off_for_max_rreq_timeout_after_a_discovery_gives_up() {
    let mut n = Node::with(0, AodvConfig::ns2());
    n.data(0, data(0, 9, 1));
    let mut rreqs = vec![0];
    let mut gave_up = None;
    while gave_up.is_none() {
        let now = n.a.poll_timeout().unwrap();
        let out = n.timeout(now);
        for (m, _, _, ttl) in originated(&out) {
            assert_eq!((m, ttl), ("rreq", 30));
            rreqs.push(now / NS_PER_MS);
        }
        if out.iter().any(|a| {
            matches!(
                a,
                RoutingAction::Drop {
                    reason: DropReason::NoRoute,
                    ..
                }
            )
        }) {
            gave_up = Some(now);
        }
    }
    // 1 + RREQ_RETRIES network-wide RREQs, each at the 0.5 s tick after its
    // wait of 1.8 s times the RREQs sent; the tick after the last wait gives up.
    assert_eq!(rreqs, vec![0, 2000, 6000, 11_500]);
    assert_eq!(gave_up, Some(ms(19_000)));
    // For MAX_RREQ_TIMEOUT (10 s) packets wait and prompt no RREQ.
    assert!(originated(&n.data(ms(20_000), data(0, 9, 2))).is_empty());
    assert!(originated(&n.data(ms(28_900), data(0, 9, 3))).is_empty());
    assert_eq!(n.a.buffered(), 2);
    // Then a new discovery starts, network wide.
    let mut next = None;
    while next.is_none() {
        let now = n.a.poll_timeout().unwrap();
        next = originated(&n.timeout(now)).first().map(|s| (now, s.0, s.3));
    }
    assert_eq!(next, Some((ms(29_000), "rreq", 30)));
    assert_eq!(n.a.route_discoveries(), 2);
    // The RFC has no hold: the next packet starts a discovery at once.
    let mut rfc = Node::new(0);
    rfc.data(0, data(0, 9, 1));
    while let Some(now) = rfc.a.poll_timeout() {
        rfc.timeout(now);
    }
    assert_eq!(rfc.a.buffered(), 0);
    let out = rfc.data(ms(30_000), data(0, 9, 2));
    assert_eq!(originated(&out)[0].0, "rreq");
}

#[test]
fn ns2_drops_the_packet_the_mac_failed_to_deliver() {
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(data(0, 9, 2)), ctx));
    assert!(out.contains(&RoutingAction::Drop {
        packet: data(0, 9, 2),
        reason: DropReason::RetryLimit
    }));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    let names: Vec<_> = originated(&out).iter().map(|s| s.0).collect();
    assert_eq!(names, vec!["rerr"], "no RREQ until more data comes");
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn ns2_control_packets_carry_no_failure_callback() {
    // ns-2.35's rt_resolve sets xmit_failure_ on data only: a RREP that ARP
    // cannot deliver is dropped there (an ARP drop), routing never hears.
    let rrep = rrep_packet(3, 0, 9, 4, 1);
    let ns2 = Node::with(2, AodvConfig::ns2());
    assert!(!ns2.a.hears_failure(&rrep));
    assert!(ns2.a.hears_failure(&data(0, 9, 1)));
    let rfc = Node::new(2);
    assert!(rfc.a.hears_failure(&rrep) && rfc.a.hears_failure(&data(0, 9, 1)));
}

#[test]
fn ns2_a_failed_control_packet_or_unknown_destination_breaks_no_link() {
    // ns-2's rt_ll_failed drops such a packet and does nothing else: no
    // RERR, the route and the queue stay.
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let rrep = rrep_packet(0, 1, 7, 3, 0);
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(rrep.clone()), ctx));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: rrep.clone(),
            reason: DropReason::RetryLimit
        }]
    );
    assert_eq!(n.a.hop_count(9, ms(1000)), Some(5), "the route stays up");
    let stray = data(0, 8, 3);
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(stray.clone()), ctx));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: stray,
            reason: DropReason::RetryLimit
        }]
    );
    assert_eq!(n.a.hop_count(9, ms(1000)), Some(5));
    // Without the ns-2 rule the failed reply breaks the link as any does.
    let cfg = AodvConfig {
        link_failure_from_data_only: false,
        ..AodvConfig::ns2()
    };
    let mut n = ns2_source_with_route(cfg, ms(50));
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(rrep), ctx));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    assert_eq!(n.a.hop_count(9, ms(1000)), None);
}

#[test]
fn ns2_a_failed_tfrc_packet_breaks_no_link_where_a_failed_udp_packet_does() {
    use crate::net::TransportHeader;
    use crate::transport::tfrc::{TfrcData, TfrcHeader};
    // ns-2.35's rt_ll_failed breaks links only for its data packet types,
    // which leave TFRC's out (see `on_link_failure`).
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let mut tfrc = data(0, 9, 3);
    tfrc.transport = TransportHeader::tfrc(TfrcHeader::Data(TfrcData {
        seq: 3,
        sent_at: ms(900),
        rtt: ms(40),
        bytes: 512,
        round: 0,
        urgent: false,
        t_rto: 0,
    }));
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(tfrc.clone()), ctx));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: tfrc,
            reason: DropReason::RetryLimit
        }]
    );
    assert_eq!(n.a.hop_count(9, ms(1000)), Some(5), "the route stays up");
    // The same packet without TFRC's header breaks the link.
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(data(0, 9, 3)), ctx));
    assert!(
        out.contains(&RoutingAction::Reroute { next_hop: 1 }),
        "{out:?}"
    );
    assert_eq!(n.a.hop_count(9, ms(1000)), None);
}

#[test]
fn ns2_a_failed_sctp_packet_breaks_the_link_as_a_tcp_packet_does() {
    use crate::net::TransportHeader;
    use crate::transport::sctp::SctpChunk;
    // ns-2.35's data packet types include PT_SCTP (unlike TFRC's).
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let mut sctp = data(0, 9, 3);
    sctp.transport = TransportHeader::sctp(SctpChunk::data(3, 512));
    let out = n.run(|a, ctx| a.on_link_failure(ms(1000), 1, Some(sctp), ctx));
    assert!(
        out.contains(&RoutingAction::Reroute { next_hop: 1 }),
        "{out:?}"
    );
    assert_eq!(n.a.hop_count(9, ms(1000)), None);
}

#[test]
fn a_rerr_takes_back_the_queued_data_for_its_sender_only_when_it_breaks_a_route() {
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let rerr = |d: NodeId, seq: u32| rerr_packet(1, vec![(d, seq)]);
    assert!(
        n.control(ms(100), 1, rerr(7, 9)).is_empty(),
        "no route to 7"
    );
    assert_eq!(n.a.hop_count(9, ms(100)), Some(5));
    let out = n.control(ms(100), 1, rerr(9, 4));
    assert_eq!(out, vec![RoutingAction::Reroute { next_hop: 1 }]);
    assert_eq!(n.a.hop_count(9, ms(100)), None);
    let mut rfc = Node::with(
        0,
        AodvConfig {
            rerr_takes_back_queue: false,
            ..AodvConfig::default()
        },
    );
    rfc.data(0, data(0, 9, 1));
    rfc.control(ms(10), 1, rrep_packet(1, 0, 9, 3, 4));
    assert!(rfc.control(ms(100), 1, rerr(9, 4)).is_empty());
    assert_eq!(rfc.a.hop_count(9, ms(100)), None);
}

#[test]
fn buffered_data_is_sent_when_the_rrep_arrives() {
    let mut n = Node::new(0);
    n.data(0, data(0, 9, 1));
    let out = n.data(ms(1), data(0, 9, 2));
    assert!(originated(&out).is_empty(), "one discovery at a time");
    assert_eq!(n.a.buffered(), 2);
    let out = n.control(ms(50), 1, rrep_packet(1, 0, 9, 3, 2));
    assert_eq!(
        sent_data(&out),
        vec![(1, 1), (2, 1)],
        "in order, via the replier"
    );
    assert_eq!(n.a.buffered(), 0);
    assert_eq!(n.a.hop_count(9, ms(50)), Some(3));
    assert!(
        originated(&out).is_empty(),
        "the originator does not forward the RREP"
    );
    // The discovery is over: no more RREQs.
    let later = n.timeout(ms(5000));
    assert!(originated(&later).is_empty());
}

#[test]
fn ns2_releases_waiting_packets_ten_ms_apart() {
    // ns-2.35 sends what waited for a route ARP_DELAY (10 ms) apart, the
    // first at once, each to the next hop the route had when it was found;
    // until then they are still held (the ledger's `buffered`).
    let mut n = Node::with(0, AodvConfig::ns2());
    for uid in 1..=3 {
        n.data(ms(uid), data(0, 9, uid));
    }
    let out = n.control(ms(50), 1, rrep_packet(1, 0, 9, 3, 2));
    assert_eq!(sent_data(&out), vec![(1, 1)]);
    assert_eq!(n.a.buffered(), 2);
    assert_eq!(n.a.poll_timeout(), Some(ms(60)));
    assert!(sent_data(&n.timeout(ms(59))).is_empty());
    assert_eq!(sent_data(&n.timeout(ms(60))), vec![(2, 1)]);
    assert_eq!(n.a.buffered(), 1);
    // A break in between does not hold the last one back (ns-2 has
    // scheduled it already).
    n.run(|a, ctx| a.on_link_failure(ms(65), 1, None, ctx));
    assert_eq!(sent_data(&n.timeout(ms(70))), vec![(3, 1)]);
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn a_relay_forwards_the_rrep_along_the_reverse_route() {
    let mut n = Node::new(2);
    n.control(0, 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 1)));
    n.timeout(ms(20));
    let sent = originated(&n.control(ms(40), 3, rrep_packet(3, 0, 9, 4, 1)));
    assert_eq!(sent.len(), 1);
    let (msg, to, Message::Rrep(rp), ttl) = &sent[0] else {
        panic!()
    };
    assert_eq!((*msg, *to, rp.hop_count, *ttl), ("rrep", 1, 2, 29));
    assert_eq!(n.a.routes().valid(9, ms(40)).unwrap().next_hop, 3);
    // An older RREP is not forwarded.
    assert!(originated(&n.control(ms(41), 3, rrep_packet(3, 0, 9, 3, 0))).is_empty());
}

#[test]
fn a_relayed_rreq_and_rrep_keep_the_uid_of_the_packet_they_pass_on() {
    // ns-2.35's `forward` sends on the packet it received, so its trace
    // shows one uid from hop to hop; a RERR it builds anew.
    let uids = |out: &[RoutingAction]| -> Vec<(&'static str, u64, bool)> {
        out.iter()
            .filter_map(|a| match a {
                RoutingAction::Originate {
                    packet,
                    message,
                    keep_uid,
                    ..
                } => Some((*message, packet.uid, *keep_uid)),
                _ => None,
            })
            .collect()
    };
    let mut n = Node::new(2);
    let mut request = rreq_packet(1, 5, rreq(0, 1, 9, None, 1));
    request.uid = 41;
    n.control(0, 1, request);
    assert_eq!(uids(&n.timeout(ms(20))), vec![("rreq", 41, true)]);
    let mut reply = rrep_packet(3, 0, 9, 4, 1);
    reply.uid = 57;
    assert_eq!(uids(&n.control(ms(40), 3, reply)), vec![("rrep", 57, true)]);
    // Its own RREQ is a new packet: the world gives it a uid.
    let mut s = Node::new(0);
    assert_eq!(
        uids(&s.data(ms(50), data(0, 7, 3))),
        vec![("rreq", 0, false)]
    );
}

#[test]
fn ns2_a_relayed_rrep_keeps_the_ip_source_of_the_node_that_answered() {
    for (cfg, src) in [(AodvConfig::default(), 2), (AodvConfig::ns2(), 9)] {
        let mut n = Node::with(2, cfg);
        n.control(0, 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 1)));
        n.timeout(ms(20));
        // Node 9 answered; node 3 passed its reply on, keeping 9 as source.
        let mut reply = rrep_packet(3, 0, 9, 4, 1);
        reply.src = 9;
        let out = n.control(ms(40), 3, reply);
        let sources: Vec<(NodeId, NodeId)> = out
            .iter()
            .filter_map(|a| match a {
                RoutingAction::Originate {
                    packet, next_hop, ..
                } => Some((packet.src, *next_hop)),
                _ => None,
            })
            .collect();
        assert_eq!(sources, vec![(src, 1)]);
    }
}

#[test]
fn reverse_routes_are_extended_by_each_rreq_and_by_forwarding_a_rrep() {
    let s = NS_PER_S;
    for cfg in [AodvConfig::default(), AodvConfig::ns2()] {
        // The RREQ at 0 s leaves a reverse route to 0 living 6 s.
        let mut n = Node::with(2, cfg.clone());
        n.control(0, 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 1)));
        n.timeout(ms(20));
        assert!(n.a.routes().valid(0, 6 * s - 1).is_some());
        // A new RREQ from 0 at 4 s, longer and no fresher, keeps the route
        // through 1 but extends it to 4 + 6 s (RFC 3561 section 6.5).
        n.control(4 * s, 3, rreq_packet(3, 5, rreq(0, 2, 8, None, 3)));
        let e = n.a.routes().valid(0, 10 * s - 1).expect("extended");
        assert_eq!((e.next_hop, e.hops), (1, 2));
        assert!(n.a.routes().valid(0, 10 * s + ms(500)).is_none());
        // Forwarding a RREP towards 0 at 5 s extends it to 5 + 10 s
        // (ACTIVE_ROUTE_TIMEOUT; section 6.7).
        let sent = originated(&n.control(5 * s, 3, rrep_packet(3, 0, 9, 4, 1)));
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert!(n.a.routes().valid(0, 15 * s - 1).is_some());
        assert!(n.a.routes().valid(0, 15 * s + ms(500)).is_none());
    }
}

/// Node 2 relays between 1 (towards originator 0) and 3 (towards 9).
fn relay_with_route() -> Node {
    relay_with_route_cfg(AodvConfig::default())
}

fn relay_with_route_cfg(cfg: AodvConfig) -> Node {
    let mut n = Node::with(2, cfg);
    n.control(0, 1, rreq_packet(1, 5, rreq(0, 1, 9, None, 1)));
    n.timeout(ms(20));
    n.control(ms(40), 3, rrep_packet(3, 0, 9, 4, 1));
    n
}

#[test]
fn a_link_break_sends_a_rerr_that_reaches_the_precursors() {
    let mut n = relay_with_route();
    assert!(n.a.routes().get(9).unwrap().has_precursor(1));
    let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, None, ctx));
    let sent = originated(&out);
    assert_eq!(sent.len(), 1);
    let (msg, to, Message::Rerr(re), ttl) = &sent[0] else {
        panic!()
    };
    assert_eq!((*msg, *to, *ttl), ("rerr", BROADCAST, 1));
    assert_eq!(re.unreachable, vec![(9, 5)], "seqno incremented");
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 3 }));
    assert_eq!(n.a.hop_count(9, ms(100)), None);

    // The precursor, node 1, routes to 9 through 2 and serves 0: it drops the
    // route and passes the RERR on to its own precursors.
    let mut p = Node::new(1);
    p.control(0, 0, rreq_packet(0, 5, rreq(0, 1, 9, None, 0)));
    p.timeout(ms(20));
    p.control(ms(40), 2, rrep_packet(2, 0, 9, 4, 2));
    assert_eq!(p.a.hop_count(9, ms(40)), Some(3));
    let rerr = Packet::control(2, BROADCAST, 1, 8, re.to_bytes());
    let out = p.control(ms(101), 2, rerr.clone());
    assert_eq!(p.a.hop_count(9, ms(101)), None);
    assert_eq!(
        out,
        vec![RoutingAction::Reroute { next_hop: 2 }],
        "the queue's data for 2 comes back; the RERR is relayed after jitter"
    );
    let relayed = originated(&p.timeout(ms(200)));
    assert_eq!(relayed.len(), 1);
    assert_eq!(relayed[0].0, "rerr");

    // A RERR from a node that is not the next hop changes nothing.
    let mut q = relay_with_route();
    q.control(ms(101), 7, rerr);
    assert_eq!(q.a.hop_count(9, ms(101)), Some(2));
}

#[test]
fn a_source_reroutes_and_rediscovers_after_a_break() {
    let mut n = Node::new(0);
    n.data(0, data(0, 9, 1));
    n.control(ms(10), 1, rrep_packet(1, 0, 9, 3, 2));
    let out = n.run(|a, ctx| a.on_link_failure(ms(500), 1, Some(data(0, 9, 2)), ctx));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 1 }));
    let sent = originated(&out);
    let names: Vec<_> = sent.iter().map(|s| s.0).collect();
    assert_eq!(names, vec!["rerr", "rreq"]);
    assert_eq!(sent[1].3, 5, "the ring starts at the last hop count + 2");
    assert_eq!(
        n.a.buffered(),
        1,
        "the failed packet waits for the new route"
    );
}

#[test]
fn a_relay_repairs_locally_a_break_near_the_destination() {
    let mut n = relay_with_route();
    let mut p = data(0, 9, 5);
    p.hops = 3; // more hops behind than the 2 ahead
    let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(p), ctx));
    let names: Vec<_> = originated(&out).iter().map(|s| s.0).collect();
    assert_eq!(names, vec!["rreq"], "no RERR while repairing");
    assert_eq!(n.a.buffered(), 1);
    // No reply: the route goes down, a RERR goes out, the packet is dropped.
    let at = n.a.poll_timeout().unwrap();
    let out = n.timeout(at);
    assert_eq!(originated(&out)[0].0, "rerr");
    assert!(out.iter().any(|a| matches!(
        a,
        RoutingAction::Drop {
            reason: DropReason::NoRoute,
            ..
        }
    )));
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn ns2_a_local_repair_keeps_the_route_until_its_timer_at_twice_the_start_plus_the_wait() {
    // Relay 2 routes to 9 (seqno 4, 2 hops) through 3 and repairs it at 5 s.
    let s = NS_PER_S;
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    let mut p = data(0, 9, 5);
    p.hops = 3;
    let out = n.run(|a, ctx| a.on_link_failure(5 * s, 3, Some(p), ctx));
    let sent = originated(&out);
    let [(_, _, Message::Rreq(rq), ttl)] = sent.as_slice() else {
        panic!("one RREQ, no RERR: {sent:?}")
    };
    // A source's RREQ with the number not incremented, network wide: the
    // route never went down, so ns-2's ring starts from INFINITY2.
    assert_eq!((rq.dst, rq.dst_seqno, *ttl), (9, 4, 30));
    assert_eq!(n.a.buffered(), 1);
    assert_eq!(n.a.hop_count(9, 5 * s), None);
    let state = |n: &Node| n.a.routes().get(9).unwrap().state;
    assert_eq!(state(&n), RouteState::InRepair);

    // In repair, the route still answers a RREQ for seqno 4 (from 7 via 1).
    let out = n.control(
        5 * s + ms(50),
        1,
        rreq_packet(1, 5, rreq(7, 1, 9, Some(4), 1)),
    );
    let sent = originated(&out);
    let [(_, to, Message::Rrep(rp), _)] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert_eq!((*to, rp.dst, rp.dst_seqno, rp.hop_count), (1, 9, 4, 2));
    // Its lifetime: ns-2.35's RREQ zeroed the route's `rt_expire`, so the
    // time left is -5 s, which the unsigned cast wraps to 2^32 - 5 s,
    // sent as the most the field holds.
    assert_eq!(rp.lifetime_ms, u32::MAX);
    // A reply as fresh but longer (back through 1) does not replace it.
    n.control(5 * s + ms(60), 1, rrep_packet(1, 2, 9, 4, 3));
    assert_eq!(state(&n), RouteState::InRepair);

    // The timer fires at 2 x 5 s + the first RREQ's wait (2 x TTL 30 x 30
    // ms): until then no RERR and no drop, only RREQs at purge ticks, each
    // wait longer (x the network-wide RREQs so far).
    let end = 11 * s + ms(800);
    let mut ttls = vec![];
    while let Some(at) = n.a.poll_timeout().filter(|&at| at <= end + ms(100)) {
        assert_eq!(
            state(&n),
            if at <= end {
                RouteState::InRepair
            } else {
                RouteState::Invalid
            },
            "at {at}"
        );
        let out = n.timeout(at);
        assert!(!out.iter().any(|a| matches!(a, RoutingAction::Drop { .. })));
        for (name, _, _, ttl) in originated(&out) {
            assert_eq!(name, "rreq", "at {at}");
            assert_eq!(at % PURGE_INTERVAL, 0, "a retry waits for the tick");
            ttls.push(ttl);
        }
    }
    assert_eq!(ttls, vec![30, 30], "at 7 s and 11 s");
    assert_eq!(state(&n), RouteState::Invalid, "down, its number kept");
    assert_eq!(n.a.routes().get(9).unwrap().seqno, 4);
    assert_eq!(n.a.buffered(), 1, "the packet still waits");
}

#[test]
fn ns2_a_route_already_in_repair_is_repaired_again_without_a_new_rreq() {
    // Relay 2 repairs its route to 9 (2 hops, through 3) at 5 s. A second
    // packet for 9, queued behind the first, fails at 3 too: ns-2.35's
    // `rt_ll_failed` finds the entry's hop count kept and repairs again.
    let s = NS_PER_S;
    let failing = |seq| {
        let mut p = data(0, 9, seq);
        p.hops = 3;
        p
    };
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    n.run(|a, ctx| a.on_link_failure(5 * s, 3, Some(failing(5)), ctx));
    let state = |n: &Node| n.a.routes().get(9).unwrap().state;
    assert_eq!(state(&n), RouteState::InRepair);
    let out = n.run(|a, ctx| a.on_link_failure(5 * s + ms(40), 3, Some(failing(6)), ctx));
    // No RREQ (the first one's wait runs), no RERR, no drop, no queue
    // taken back: the packet waits with the first.
    assert!(originated(&out).is_empty(), "{out:?}");
    assert!(!out.iter().any(|a| matches!(
        a,
        RoutingAction::Drop { .. } | RoutingAction::Reroute { .. }
    )));
    assert_eq!(n.a.buffered(), 2);
    assert_eq!(state(&n), RouteState::InRepair);
    // The second repair's timer is set with the RREQ's deadline (5 s + the
    // wait, 2 x TTL 30 x 30 ms) as its delay: it fires at 5.04 s + 6.8 s,
    // after the first one's (10 s + 1.8 s), which already brings the route
    // down; the second then finds it down and changes nothing.
    let first_end = 11 * s + ms(800);
    let second_end = 11 * s + ms(840);
    while let Some(at) = n.a.poll_timeout().filter(|&at| at <= second_end) {
        n.timeout(at);
        let expect = if at < first_end {
            RouteState::InRepair
        } else {
            RouteState::Invalid
        };
        assert_eq!(state(&n), expect, "at {at}");
    }
    assert_eq!(n.a.buffered(), 2);
    // The RFC preset breaks the link at the second failure instead.
    let mut n = relay_with_route();
    n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(failing(5)), ctx));
    let out = n.run(|a, ctx| a.on_link_failure(ms(140), 3, Some(failing(6)), ctx));
    assert!(
        out.contains(&RoutingAction::Reroute { next_hop: 3 }),
        "{out:?}"
    );
}

#[test]
fn ns2_a_broken_link_takes_down_a_route_in_repair_through_it_too() {
    // Relay 2 repairs its route to 9 through 3; then a packet for 8 (also
    // through 3, 1 hop away) fails near its source: no repair for it, so
    // ns-2.35's `handle_link_failure` downs every route through 3 that
    // keeps a hop count, the one in repair too, and lists both in its RERR.
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    n.control(ms(50), 3, rrep_packet(3, 0, 8, 7, 1));
    let mut p = data(0, 9, 5);
    p.hops = 3;
    n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(p), ctx));
    assert_eq!(n.a.routes().get(9).unwrap().state, RouteState::InRepair);
    let out = n.run(|a, ctx| a.on_link_failure(ms(150), 3, Some(data(0, 8, 6)), ctx));
    assert_eq!(rerrs_sent(&out), vec![vec![(8, 8), (9, 5)]]);
    assert_eq!(n.a.routes().get(9).unwrap().state, RouteState::Invalid);
}

#[test]
fn ns2_a_route_that_went_down_before_is_repaired_with_a_ring() {
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    // 3 reports 9 lost (seqno 5); a RREP through 3 brings it back, 2 hops.
    n.control(ms(50), 3, rerr_packet(3, vec![(9, 5)]));
    assert_eq!(n.a.hop_count(9, ms(50)), None);
    n.control(ms(60), 3, rrep_packet(3, 0, 9, 6, 1));
    assert_eq!(n.a.hop_count(9, ms(60)), Some(2));
    let mut p = data(0, 9, 5);
    p.hops = 3;
    let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(p), ctx));
    let sent = originated(&out);
    let [(_, _, Message::Rreq(rq), ttl)] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert_eq!((rq.dst_seqno, *ttl), (6, 4), "2 hops + TTL_INCREMENT");
}

#[test]
fn a_relay_without_a_route_drops_data_and_reports_it_once() {
    let mut n = Node::new(2);
    let out = n.data(0, data(0, 9, 1));
    assert_eq!(originated(&out)[0].0, "rerr");
    assert!(matches!(
        out.last(),
        Some(RoutingAction::Drop {
            reason: DropReason::NoRoute,
            ..
        })
    ));
    let out = n.data(ms(1), data(0, 9, 2));
    assert!(originated(&out).is_empty(), "rate-limited per destination");
}

#[test]
fn ns2_a_relay_without_a_route_reports_every_packet() {
    // ns-2.35's rt_resolve sends a RERR for each packet it cannot forward,
    // with no RERR_RATELIMIT.
    let mut n = Node::with(2, AodvConfig::ns2());
    for k in 0..12u64 {
        let out = n.data(ms(k), data(0, 9, k + 1));
        let names: Vec<_> = originated(&out).iter().map(|s| s.0).collect();
        assert_eq!(names, vec!["rerr"], "packet {k}");
        assert!(matches!(
            out.last(),
            Some(RoutingAction::Drop {
                reason: DropReason::NoRoute,
                ..
            })
        ));
    }
}

#[test]
fn ns2_drops_what_the_queue_held_for_a_lost_neighbour_even_at_the_source() {
    // The source's packets taken back after a break are dropped, not
    // buffered: ns-2.35 drops them from its interface queue.
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let out = n.run(|a, ctx| a.on_reroute(ms(1000), data(0, 9, 3), 1, ctx));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: data(0, 9, 3),
            // ns-2.35's DROP_RTR_MAC_CALLBACK, as the failed packet's.
            reason: DropReason::RetryLimit
        }]
    );
    assert_eq!(n.a.buffered(), 0);
    // With the RFC preset the source buffers it and rediscovers.
    let mut n = Node::new(0);
    n.data(0, data(0, 9, 1));
    n.control(ms(10), 1, rrep_packet(1, 0, 9, 3, 2));
    n.run(|a, ctx| a.on_link_failure(ms(500), 1, None, ctx));
    let out = n.run(|a, ctx| a.on_reroute(ms(500), data(0, 9, 3), 1, ctx));
    assert!(!out.iter().any(|a| matches!(a, RoutingAction::Drop { .. })));
    assert_eq!(n.a.buffered(), 1);
}

#[test]
fn ns2_drops_the_replies_the_queue_held_for_a_lost_neighbour_too() {
    // ns-2.35's `PriQueue::filter` matches the next hop alone: a RREP
    // queued for the lost neighbour goes with the data.
    let n = Node::with(2, AodvConfig::ns2());
    assert!(n.a.reroutes_control());
    let mut n = ns2_source_with_route(AodvConfig::ns2(), ms(50));
    let reply = rrep_packet(0, 1, 7, 4, 2);
    let out = n.run(|a, ctx| a.on_reroute(ms(1000), reply.clone(), 1, ctx));
    assert_eq!(
        out,
        vec![RoutingAction::Drop {
            packet: reply,
            reason: DropReason::RetryLimit
        }]
    );
    // The RFC preset takes back only data (a queued reply still goes).
    assert!(!Node::new(2).a.reroutes_control());
}

#[test]
fn ns2_a_local_repair_leaves_the_interface_queue_alone() {
    // ns-2.35's local repair returns before it filters the queue: no
    // Reroute, where a break without repair takes the queue back.
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    let mut p = data(0, 9, 5);
    p.hops = 3;
    let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(p), ctx));
    assert!(
        !out.contains(&RoutingAction::Reroute { next_hop: 3 }),
        "{out:?}"
    );
    assert_eq!(n.a.buffered(), 1);
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(data(0, 9, 6)), ctx));
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 3 }));
}

#[test]
fn ns2_a_local_repair_leaves_the_other_routes_through_the_neighbour_up() {
    // Relay 2 routes to 9 and to 8 through 3. A packet for 9 that fails at
    // 3 far from its source starts a local repair of the route to 9.
    let failing = || {
        let mut p = data(0, 9, 5);
        p.hops = 3;
        p
    };
    for (cfg, spared) in [(AodvConfig::ns2(), true), (AodvConfig::default(), false)] {
        let mut n = relay_with_route_cfg(cfg);
        n.control(ms(50), 3, rrep_packet(3, 0, 8, 7, 1));
        assert_eq!(n.a.hop_count(8, ms(50)), Some(2));
        let out = n.run(|a, ctx| a.on_link_failure(ms(100), 3, Some(failing()), ctx));
        let rerrs = rerrs_sent(&out);
        assert_eq!(n.a.buffered(), 1, "the failed packet waits for the repair");
        if spared {
            // ns-2.35: only the route to 9 is in repair; 8 is still reached
            // through 3, and no RERR goes.
            assert!(rerrs.is_empty(), "{rerrs:?}");
            assert_eq!(n.a.hop_count(8, ms(100)), Some(2));
        } else {
            // RFC 3561 6.11: the route to 8 breaks too, and a RERR says so.
            assert_eq!(rerrs, vec![vec![(8, 8)]]);
            assert_eq!(n.a.hop_count(8, ms(100)), None);
        }
        assert_eq!(n.a.hop_count(9, ms(100)), None, "in repair");
    }
}

#[test]
fn ns2_a_route_expires_at_the_purge_tick_with_its_sequence_number_incremented() {
    let s = NS_PER_S;
    for (cfg, ns2) in [(AodvConfig::ns2(), true), (AodvConfig::default(), false)] {
        // Node 2 learns a route to 9 (seqno 10, 2 hops) living 10 s.
        let mut n = Node::with(2, cfg);
        n.control(0, 3, rrep_packet(3, 2, 9, 10, 1));
        assert_eq!(n.a.hop_count(9, 10 * s - 1), Some(2));
        // ns-2.35 downs it at the first purge tick after its lifetime
        // (10.5 s); the RFC agent at the end of its lifetime.
        let hops = n.a.hop_count(9, 10 * s + ms(200));
        assert_eq!(hops, ns2.then_some(2), "ns2 = {ns2}");
        assert_eq!(n.a.hop_count(9, 10 * s + ms(500)), None);
        // A request for seqno 10 after the tick: no reply from the expired
        // route; the relayed request asks for seqno 11 in ns-2.35, whose
        // purge incremented it.
        let t = 10 * s + ms(600);
        let out = n.control(t, 1, rreq_packet(1, 5, rreq(0, 1, 9, Some(10), 0)));
        assert!(originated(&out).is_empty(), "{out:?}");
        let relayed = originated(&n.timeout(t + ms(20)));
        let [(_, _, Message::Rreq(r), _)] = relayed.as_slice() else {
            panic!("{relayed:?}")
        };
        assert_eq!(r.dst_seqno, if ns2 { 11 } else { 10 }, "ns2 = {ns2}");
    }
}

#[test]
fn ns2_a_rrep_that_brings_back_an_expired_route_is_not_forwarded() {
    let s = NS_PER_S;
    for (cfg, ns2) in [(AodvConfig::ns2(), true), (AodvConfig::default(), false)] {
        // Relay 2 forwarded a RREP for 9 (seqno 4) at 40 ms; the route to 9
        // lives until 10.04 s (ns-2.35: the tick at 10.5 s).
        let mut n = relay_with_route_cfg(cfg);
        // 0 asks again at 11 s, with a fresher sequence number of its own.
        let rq = RreqRepr {
            orig_seqno: 3,
            ..rreq(0, 2, 9, Some(4), 1)
        };
        n.control(11 * s, 1, rreq_packet(1, 5, rq));
        n.timeout(11 * s + ms(20));
        assert_eq!(n.a.routes().valid(0, 11 * s + ms(30)).unwrap().next_hop, 1);
        // A RREP with the expired route's own seqno comes back from 3.
        let out = n.control(11 * s + ms(40), 3, rrep_packet(3, 0, 9, 4, 1));
        let sent = originated(&out);
        if ns2 {
            // Seqno 5 since the purge: seqno 4 is older, suppressed.
            assert!(sent.is_empty(), "{sent:?}");
            assert_eq!(n.a.hop_count(9, 11 * s + ms(40)), None);
        } else {
            assert_eq!(sent.len(), 1, "{sent:?}");
            assert_eq!(n.a.hop_count(9, 11 * s + ms(40)), Some(2));
        }
    }
}

#[test]
fn an_intermediate_reply_from_a_route_past_its_lifetime_gives_no_lifetime() {
    // ns-2.35 keeps the route active until the purge tick; a reply from it
    // then carries lifetime 0, not a wrapped-around negative.
    let s = NS_PER_S;
    let mut n = Node::with(2, AodvConfig::ns2());
    n.control(0, 3, rrep_packet(3, 2, 9, 10, 1));
    let out = n.control(
        10 * s + ms(100),
        1,
        rreq_packet(1, 5, rreq(0, 1, 9, Some(10), 0)),
    );
    let sent = originated(&out);
    let [(_, _, Message::Rrep(rp), _)] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert_eq!((rp.dst_seqno, rp.lifetime_ms), (10, 0));
}

#[test]
fn buffered_packets_time_out_and_overflow_drops_the_oldest() {
    let cfg = AodvConfig {
        queue_len: 2,
        rreq_retries: 100,
        ..AodvConfig::default()
    };
    let mut n = Node::with(0, cfg);
    for uid in 1..=3 {
        let out = n.data(0, data(0, 9, uid));
        if uid == 3 {
            assert!(out.iter().any(|a| matches!(
                a,
                RoutingAction::Drop { packet, reason: DropReason::RouteBufferFull } if packet.uid == 1
            )));
        }
    }
    let out = n.timeout(30 * NS_PER_S);
    let timeouts = out
        .iter()
        .filter(|a| {
            matches!(
                a,
                RoutingAction::Drop {
                    reason: DropReason::RouteBufferTimeout,
                    ..
                }
            )
        })
        .count();
    assert_eq!(timeouts, 2);
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn hello_mode_sends_hellos_and_loses_silent_neighbours() {
    let cfg = AodvConfig {
        link_detection: LinkDetection::Hello,
        ..AodvConfig::default()
    };
    let mut n = Node::with(2, cfg.clone());
    n.run(|a, ctx| a.start(0, ctx));
    let at = n.a.poll_timeout().unwrap();
    let sent = originated(&n.timeout(at));
    assert_eq!(sent[0].0, "hello");
    assert_eq!(sent[0].3, 1);
    // A HELLO from 3 makes a 1-hop route that dies when 3 falls silent.
    let hello = RrepRepr {
        repair: false,
        ack_required: false,
        prefix_size: 0,
        hop_count: 0,
        dst: 3,
        dst_seqno: 1,
        orig: 3,
        lifetime_ms: 3000,
    };
    n.control(at, 3, Packet::control(3, BROADCAST, 1, 8, hello.to_bytes()));
    assert_eq!(n.a.hop_count(3, at), Some(1));
    let mut now = at;
    while now < at + 3 * NS_PER_S {
        now = n.a.poll_timeout().unwrap();
        n.timeout(now);
    }
    assert_eq!(n.a.hop_count(3, now), None);
}

#[test]
fn garbage_control_packets_are_ignored() {
    let mut n = Node::new(2);
    let mut rng = Rng::from_seed(5);
    for i in 0..2000 {
        let len = rng.below(40) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        if !b.is_empty() {
            b[0] = 1 + (i % 4) as u8;
        }
        n.control(
            i,
            1 + (i % 3) as NodeId,
            Packet::control(1, BROADCAST, 3, 8, b),
        );
    }
    n.timeout(NS_PER_S);
}

#[test]
fn ns2_precursors_feed_one_rerr_and_forget_lost_neighbours() {
    // Relay 2 forwards 9's RREP to originator 0 (via 1): with RFC 3561
    // both routes get a precursor; with ns-2's lists only the route to 9.
    let rfc = relay_with_route();
    assert!(rfc.a.routes().get(9).unwrap().has_precursor(1));
    assert!(rfc.a.routes().get(0).unwrap().has_precursor(3));
    let mut n = relay_with_route_cfg(AodvConfig::ns2());
    assert!(n.a.routes().get(9).unwrap().has_precursor(1));
    assert!(!n.a.routes().get(0).unwrap().has_precursors());
    // A RERR from 3 about 9 is relayed once and empties 9's list: the
    // route found again (with no new precursor) reports its next break
    // to no one.
    n.control(ms(100), 3, rerr_packet(3, vec![(9, 5)]));
    assert_eq!(originated(&n.timeout(ms(200))).len(), 1, "relayed");
    assert!(!n.a.routes().get(9).unwrap().has_precursors());
    n.control(ms(300), 3, rrep_packet(3, 2, 9, 6, 1));
    assert_eq!(n.a.hop_count(9, ms(300)), Some(2));
    n.control(ms(400), 3, rerr_packet(3, vec![(9, 7)]));
    assert_eq!(n.a.hop_count(9, ms(400)), None);
    assert!(
        originated(&n.timeout(ms(500))).is_empty(),
        "no precursor left"
    );
    // The RFC preset keeps its lists and relays the second RERR too.
    let mut r = relay_with_route();
    for (t, s) in [(100, 5), (400, 7)] {
        if t == 400 {
            r.control(ms(300), 3, rrep_packet(3, 2, 9, 6, 1));
        }
        r.control(ms(t), 3, rerr_packet(3, vec![(9, s)]));
        assert_eq!(originated(&r.timeout(ms(t + 100))).len(), 1, "at {t} ms");
    }
    // A broken link takes the lost neighbour out of every list.
    let mut m = relay_with_route_cfg(AodvConfig::ns2());
    m.run(|a, ctx| a.on_link_failure(ms(100), 1, None, ctx));
    assert!(!m.a.routes().get(9).unwrap().has_precursor(1));
}

#[test]
fn ns2_route_lifetimes_are_set_as_ns2_sets_rt_expire() {
    let s = NS_PER_S;
    for (cfg, ns2) in [(AodvConfig::ns2(), true), (AodvConfig::default(), false)] {
        // Node 2 learns a route to 9 (seqno 10) living 10 s, then at 1 s a
        // fresher one living 2 s: ns-2.35's `rt_update` takes the 2 s.
        let mut n = Node::with(2, cfg.clone());
        n.control(0, 3, rrep_living(3, 2, 9, 10, 10_000));
        n.control(s, 3, rrep_living(3, 2, 9, 12, 2_000));
        let expire = n.a.routes().get(9).unwrap().expire;
        assert_eq!(expire, if ns2 { 3 * s } else { 10 * s }, "ns2 = {ns2}");
        // An intermediate reply at 1.7 s gives the time left: in whole
        // seconds in ns-2.35 (1.3 s -> 1 s).
        let out = n.control(
            s + ms(700),
            1,
            rreq_packet(1, 5, rreq(0, 1, 9, Some(12), 0)),
        );
        let sent = originated(&out);
        let [(_, _, Message::Rrep(rp), _)] = sent.as_slice() else {
            panic!("{sent:?}")
        };
        assert_eq!(rp.lifetime_ms, if ns2 { 1_000 } else { 8_300 });

        // A route offered for 60 s and used for data at 1 s: ns-2.35's
        // `forward` cuts it to now + ACTIVE_ROUTE_TIMEOUT.
        let mut n = Node::with(2, cfg.clone());
        n.control(0, 3, rrep_living(3, 2, 9, 10, 60_000));
        n.data(s, data(0, 9, 1));
        let expire = n.a.routes().get(9).unwrap().expire;
        assert_eq!(expire, if ns2 { 11 * s } else { 60 * s }, "ns2 = {ns2}");
    }
}

#[test]
fn ns2_a_rreq_from_a_destination_asked_for_gives_a_route_for_active_route_timeout() {
    let s = NS_PER_S;
    for (cfg, ns2) in [
        (AodvConfig::ns2(), true),
        (
            AodvConfig {
                ns2_route_lifetimes: false,
                ..AodvConfig::ns2()
            },
            false,
        ),
    ] {
        // Node 0 looks for 9 until it gives up (19 s), its packet dropped.
        let mut n = Node::with(0, cfg);
        n.data(0, data(0, 9, 1));
        while n.a.buffered() > 0 {
            let now = n.a.poll_timeout().unwrap();
            n.timeout(now);
        }
        // A RREQ from 9 at 20 s gives a reverse route: ns-2.35 gives it
        // ACTIVE_ROUTE_TIMEOUT (`rt_req_timeout > 0`), not REV_ROUTE_LIFE.
        n.control(20 * s, 1, rreq_packet(1, 5, rreq(9, 1, 7, None, 1)));
        let valid = n.a.routes().valid(9, 27 * s).is_some();
        assert_eq!(valid, ns2, "ns2 = {ns2}");
        assert!(n.a.routes().valid(9, 31 * s).is_none());
        assert!(!n.a.routes().get(9).unwrap().asked);
    }
}

#[test]
fn ns2_rings_past_the_threshold_from_a_hop_count_below_it() {
    // Node 0's 6-hop route to 9 breaks; its next discovery rings from 6.
    for (cfg, ns2) in [(AodvConfig::ns2(), true), (AodvConfig::default(), false)] {
        let mut n = Node::with(0, cfg);
        n.data(0, data(0, 9, 1));
        n.control(ms(100), 1, rrep_packet(1, 0, 9, 3, 5));
        assert_eq!(n.a.hop_count(9, ms(100)), Some(6));
        n.run(|a, ctx| a.on_link_failure(ms(200), 1, Some(data(0, 9, 2)), ctx));
        let mut ttls = vec![];
        let mut now = ms(210);
        let mut out = n.data(now, data(0, 9, 3));
        while ttls.len() < 2 {
            ttls.extend(
                originated(&out)
                    .iter()
                    .filter(|s| s.0 == "rreq")
                    .map(|s| s.3),
            );
            now = n.a.poll_timeout().unwrap();
            out = n.timeout(now);
        }
        // ns-2.35: 6 is below TTL_THRESHOLD (7), so 6 + 2 = 8, then network
        // wide (30); the RFC: 8 is past the threshold, so network wide (35).
        let expected = if ns2 { vec![8, 30] } else { vec![35, 35] };
        assert_eq!(ttls, expected, "ns2 = {ns2}");
    }
}

#[test]
fn ns2_messages_have_ns2s_sizes_at_the_ip_layer() {
    for (cfg, sizes) in [
        (AodvConfig::ns2(), [48, 44, 104]),
        (AodvConfig::default(), [52, 48, 112]),
    ] {
        let mut n = Node::with(0, cfg);
        // The RREQ a source sends, as the agent builds it.
        let out = n.data(0, data(0, 9, 1));
        let rreq = out
            .iter()
            .find_map(|a| match a {
                RoutingAction::Originate {
                    packet,
                    message: "rreq",
                    ..
                } => Some(packet.size_bytes),
                _ => None,
            })
            .expect("a RREQ");
        let rp = RrepRepr {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 0,
            dst: 9,
            dst_seqno: 4,
            orig: 0,
            lifetime_ms: 10_000,
        };
        let rrep = n.a.control(0, 30, rp.to_bytes(), Some(7)).size_bytes;
        let re = RerrRepr {
            no_delete: false,
            unreachable: (10..20).map(|d| (d, 1)).collect(),
        };
        let rerr = n.a.control(BROADCAST, 1, re.to_bytes(), None).size_bytes;
        assert_eq!([rreq, rrep, rerr], sizes);
    }
}

#[test]
fn ns2_originated_packets_leave_with_net_diameter_as_their_ttl() {
    // ns-2.35's AODV::recv: a packet this node originates gets TTL
    // NETWORK_DIAMETER (30); one it forwards keeps its own (the world
    // takes one off at each relay). The RFC preset leaves the transport's
    // TTL (32).
    for (cfg, ttl) in [
        (AodvConfig::ns2(), 30),
        (AodvConfig::default(), DEFAULT_TTL),
    ] {
        let mut n = Node::with(0, cfg);
        // A route to 9 through 1, from its RREP.
        n.control(0, 1, rrep_packet(1, 0, 9, 4, 1));
        let out = n.data(1, data(0, 9, 7));
        let sent: Vec<u8> = out
            .iter()
            .filter_map(|a| match a {
                RoutingAction::Send {
                    packet,
                    next_hop: 1,
                } => Some(packet.ttl),
                _ => None,
            })
            .collect();
        assert_eq!(sent, [ttl]);
        // Another node's packet, passing through: its TTL is not reset.
        let mut passing = data(5, 9, 8);
        passing.hops = 2;
        passing.ttl = 12;
        let out = n.data(2, passing);
        let sent: Vec<u8> = out
            .iter()
            .filter_map(|a| match a {
                RoutingAction::Send { packet, .. } => Some(packet.ttl),
                _ => None,
            })
            .collect();
        assert_eq!(sent, [12]);
    }
}

#[test]
fn with_aodv_uus_rule_a_tcp_packets_discovery_and_its_retries_carry_the_g_flag() {
    use crate::net::TransportHeader;
    use crate::transport::tcp::TcpSegment;
    let cfg = AodvConfig {
        gratuitous_for_tcp: true,
        ..AodvConfig::default()
    };
    let g_flags = |out: &[RoutingAction]| -> Vec<(NodeId, bool)> {
        rreqs(out)
            .iter()
            .map(|rq| (rq.dst, rq.gratuitous))
            .collect()
    };
    let mut n = Node::with(0, cfg.clone());
    let mut tcp = data(0, 9, 1);
    tcp.transport = TransportHeader::tcp(TcpSegment {
        len: 512,
        ..TcpSegment::default()
    });
    assert_eq!(g_flags(&n.data(0, tcp.clone())), [(9, true)]);
    let retry = n.a.poll_timeout().unwrap();
    assert_eq!(g_flags(&n.timeout(retry)), [(9, true)], "a retry keeps it");
    // UDP: no G flag; nor without the rule.
    assert_eq!(g_flags(&n.data(0, data(0, 7, 2))), [(7, false)]);
    let mut plain = Node::new(0);
    assert_eq!(g_flags(&plain.data(0, tcp)), [(9, false)]);
    // A TCP packet for a host behind the gateway: the host's RREQ too.
    let mut uu = with_gateway(0);
    Rc::make_mut(&mut uu.a.cfg).gratuitous_for_tcp = true;
    let mut to_host = data(0, 9, 3);
    to_host.size_bytes += IP_HEADER_BYTES;
    to_host.transport = TransportHeader::tcp(TcpSegment::default());
    let out = uu.run(|a, ctx| a.route_to_internet(0, to_host, 20, ctx));
    assert_eq!(g_flags(&out), [(20, true)]);
}

/// A RREQ from `orig` (number `orig_seqno`, id `id`) for `dst`, relayed
/// once by `sender`.
fn rreq_numbered(sender: NodeId, orig: NodeId, id: u32, orig_seqno: u32, dst: NodeId) -> Packet {
    let rq = RreqRepr {
        hop_count: 1,
        ..RreqRepr::request(id, dst, None, orig, orig_seqno)
    };
    rreq_packet(sender, 5, rq)
}

/// The next hops of the RREPs in `out`.
fn reply_hops(out: &[RoutingAction]) -> Vec<NodeId> {
    originated(out)
        .into_iter()
        .filter(|(_, _, m, _)| matches!(m, Message::Rrep(_)))
        .map(|(_, to, _, _)| to)
        .collect()
}

/// Node `me` answers a request of node 2 (number 10) from neighbour 3 at 0,
/// lets the reverse route expire, and at 20 s hears an older request of
/// node 2 (number 8, a new id) for itself from neighbour 4: the reverse
/// route stays down. Returns the next hops of the replies to both.
fn answer_a_stale_request(me: NodeId, cfg: AodvConfig) -> (Vec<NodeId>, Vec<NodeId>) {
    let mut n = Node::with(me, cfg);
    let first = reply_hops(&n.control(0, 3, rreq_numbered(3, 2, 1, 10, me)));
    let at = 20 * NS_PER_S;
    let late = reply_hops(&n.control(at, 4, rreq_numbered(4, 2, 2, 8, me)));
    assert!(
        n.a.routes().valid(2, at).is_none(),
        "the older request leaves the reverse route down"
    );
    (first, late)
}

#[test]
fn ns2_a_reply_over_a_reverse_route_that_is_down_goes_to_node_zero() {
    assert_eq!(
        answer_a_stale_request(5, AodvConfig::ns2()),
        (vec![3], vec![0]),
        "ns-2.35's sendReply takes the down route's next hop, 0"
    );
    // RFC 3561 section 6.6: no reverse route, no reply.
    assert_eq!(
        answer_a_stale_request(5, AodvConfig::default()),
        (vec![3], vec![])
    );
    // Node 0 sends none to itself.
    assert_eq!(
        answer_a_stale_request(0, AodvConfig::ns2()),
        (vec![3], vec![])
    );
}

#[test]
fn ns2_remembers_a_rreq_id_until_the_purge_tick_after_bcast_id_save() {
    // Heard at 30 ms: BCAST_ID_SAVE ends at 6.03 s, and ns-2.35's
    // BroadcastTimer, every 6 s from 0, forgets it at 12 s.
    let mut n = Node::with(2, AodvConfig::ns2());
    n.control(ms(30), 1, rreq_packet(1, 5, rreq(0, 7, 9, None, 1)));
    let id = (0, 7);
    assert!(n.a.has_seen(id, 12 * NS_PER_S - 1));
    assert!(!n.a.has_seen(id, 12 * NS_PER_S));
    // A copy at 11 s is still a duplicate, and not relayed.
    n.timeout(ms(100));
    let copy = n.control(11 * NS_PER_S, 3, rreq_packet(3, 5, rreq(0, 7, 9, None, 1)));
    assert!(copy.is_empty());
    assert!(originated(&n.timeout(11 * NS_PER_S + ms(20))).is_empty());
    // Heard exactly at 6 s: forgotten at the tick at 12 s too.
    let mut m = Node::with(2, AodvConfig::ns2());
    m.control(6 * NS_PER_S, 1, rreq_packet(1, 5, rreq(0, 7, 9, None, 1)));
    assert!(m.a.has_seen(id, 12 * NS_PER_S - 1));
    assert!(!m.a.has_seen(id, 12 * NS_PER_S));
}

/// [`with_gateway`]'s node with gateway 9 advertising every 5 s, over the
/// whole network (`zone_hops` `None`, proactive) or within a zone, with
/// a fallback to reactive discovery (hybrid).
fn advertised(me: NodeId, zone_hops: Option<u8>) -> Node {
    let cfg = AodvConfig {
        gateway: Some(InternetGateway {
            nodes: vec![9],
            first_host: 20,
            advertising: Some(GatewayAdvertising {
                interval: 5 * NS_PER_S,
                zone_hops,
                reactive_fallback: zone_hops.is_some(),
            }),
        }),
        active_route_timeout: 3 * NS_PER_S,
        ..AodvConfig::default()
    };
    Node::with(me, cfg)
}

/// Gateway `gw`'s advertisement with sequence number `seq`, as neighbour
/// `sender` broadcasts it, `hops` from `gw`, with IP TTL `ttl`.
fn gwadv_packet(sender: NodeId, gw: NodeId, seq: u32, hops: u8, ttl: u8) -> Packet {
    let rp = RrepRepr::new(hops, gw, seq, gw, 10_000);
    Packet::control(
        sender,
        BROADCAST,
        ttl,
        8,
        with_gateway_adv(rp.to_bytes(), 5_000),
    )
}

#[test]
fn a_gateway_advertises_itself_every_interval_from_a_random_first_time() {
    let mut gw = advertised(9, None);
    assert!(gw.run(|a, ctx| a.start(0, ctx)).is_empty());
    let first = gw.a.poll_timeout().expect("an advertisement is armed");
    assert!(first < 5 * NS_PER_S, "{first}");
    let out = gw.timeout(first);
    let sent = originated_packets(&out);
    assert_eq!(sent.len(), 1);
    let (p, to, msg, _) = sent[0];
    assert_eq!((to, msg, p.dst, p.ttl), (BROADCAST, "gwadv", BROADCAST, 35));
    assert_eq!(gateway_adv_interval_ms(p.body()), Some(5_000));
    let Ok(Message::Rrep(rp)) = Message::parse(p.body()) else {
        panic!()
    };
    assert_eq!((rp.dst, rp.orig, rp.hop_count), (9, 9, 0));
    assert_eq!(rp.lifetime_ms, 10_000, "two intervals");
    assert_eq!(gw.a.poll_timeout(), Some(first + 5 * NS_PER_S));
    let out = gw.timeout(first + 5 * NS_PER_S);
    let Ok(Message::Rrep(next)) = Message::parse(originated_packets(&out)[0].0.body()) else {
        panic!()
    };
    assert!(
        seq_newer(next.dst_seqno, rp.dst_seqno),
        "a new number each time"
    );
    // A hybrid gateway's go as far as its zone; a node that is no gateway
    // advertises nothing, nor does a reactive gateway.
    let mut hybrid = advertised(9, Some(3));
    hybrid.run(|a, ctx| a.start(0, ctx));
    let at = hybrid.a.poll_timeout().unwrap();
    assert_eq!(originated_packets(&hybrid.timeout(at))[0].0.ttl, 3);
    let mut other = advertised(4, None);
    other.run(|a, ctx| a.start(0, ctx));
    assert_eq!(other.a.poll_timeout(), None);
    let mut reactive = with_gateway(9);
    reactive.run(|a, ctx| a.start(0, ctx));
    assert_eq!(reactive.a.poll_timeout(), None);
}

#[test]
fn an_advertisement_gives_the_route_to_the_gateway_and_goes_on_once() {
    let mut n = advertised(2, None);
    let out = n.control(ms(100), 5, gwadv_packet(5, 9, 7, 1, 34));
    assert!(originated(&out).is_empty(), "held for the jitter");
    let e =
        n.a.routes()
            .valid(9, ms(100))
            .expect("a route to the gateway");
    assert_eq!((e.next_hop, e.hops), (5, 2));
    let at = n.a.poll_timeout().unwrap();
    assert!(at <= ms(110));
    let out = n.timeout(at);
    let sent = originated_packets(&out);
    assert_eq!(sent.len(), 1);
    let (p, to, msg, _) = sent[0];
    assert_eq!((to, msg, p.ttl), (BROADCAST, "gwadv", 33));
    assert!(is_gateway_adv(p.body()));
    let Ok(Message::Rrep(rp)) = Message::parse(p.body()) else {
        panic!()
    };
    assert_eq!((rp.dst, rp.dst_seqno, rp.hop_count), (9, 7, 2));
    assert_eq!(gateway_adv_interval_ms(p.body()), Some(5_000), "copied");
    // Another copy of the same advertisement, shorter: the route takes
    // it, but the copy goes no further.
    let out = n.control(ms(120), 9, gwadv_packet(9, 9, 7, 0, 35));
    assert!(originated(&out).is_empty());
    assert_eq!(n.a.routes().valid(9, ms(120)).map(|e| e.hops), Some(1));
    assert!(n.timeout(ms(200)).is_empty(), "nothing passed on");
    // The next advertisement goes on again; at the zone's edge (TTL 1) a
    // new one is taken but not passed on.
    n.control(ms(5100), 5, gwadv_packet(5, 9, 8, 1, 34));
    assert_eq!(originated(&n.timeout(ms(5200))).len(), 1);
    let out = n.control(ms(10_100), 5, gwadv_packet(5, 9, 9, 1, 1));
    assert!(n.a.routes().valid(9, ms(10_100)).is_some());
    assert!(originated(&out).is_empty());
    assert!(originated(&n.timeout(ms(10_200))).is_empty());
    // Its own advertisement coming back is ignored.
    let mut gw = advertised(9, None);
    let out = gw.control(ms(100), 5, gwadv_packet(5, 9, 7, 1, 34));
    assert!(out.is_empty());
    assert_eq!(gw.a.poll_timeout(), None);
}

#[test]
fn a_source_that_heard_an_advertisement_tunnels_at_once_without_a_request() {
    let mut n = advertised(0, None);
    n.control(ms(100), 5, gwadv_packet(5, 9, 7, 1, 34));
    let out = to_host(&mut n, ms(200), 0, 20, 1);
    assert!(requests(&out).is_empty(), "no RREQ for the host");
    assert_eq!(sent_to(&out), [(9, 560, 5)]);
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn a_proactive_source_that_knows_no_gateway_waits_for_an_advertisement() {
    let mut n = advertised(0, None);
    let out = to_host(&mut n, 0, 0, 20, 1);
    assert!(requests(&out).is_empty(), "proactive: no RREQ");
    assert!(sent_to(&out).is_empty());
    assert_eq!(n.a.buffered(), 1);
    // The advertisement sends the waiting packet, tunnelled.
    let out = n.control(ms(500), 5, gwadv_packet(5, 9, 7, 1, 34));
    assert_eq!(sent_to(&out), [(9, 560, 5)]);
    assert_eq!(n.a.buffered(), 0);
}

#[test]
fn a_hybrid_source_outside_the_zone_seeks_the_host_until_an_advertisement_comes() {
    let mut n = advertised(0, Some(3));
    let out = to_host(&mut n, 0, 0, 20, 1);
    assert_eq!(requests(&out), [(20, false)], "reactive outside the zone");
    assert_eq!(n.a.buffered(), 1);
    // An advertisement answers the search before any reply does.
    let out = n.control(ms(20), 5, gwadv_packet(5, 9, 7, 1, 2));
    assert_eq!(sent_to(&out), [(9, 560, 5)]);
    assert_eq!(n.a.buffered(), 0);
    assert!(
        requests(&n.timeout(ms(10_000))).is_empty(),
        "the discovery ended"
    );
}

#[test]
fn a_live_internet_route_moves_only_to_a_gateway_with_fewer_hops() {
    let cfg = |me| {
        let mut n = advertised(me, None);
        let mut c = (*n.a.cfg).clone();
        c.gateway.as_mut().unwrap().nodes = vec![9, 8];
        n.a = Aodv::new(me, c);
        n
    };
    let mut n = cfg(0);
    n.control(ms(100), 5, gwadv_packet(5, 9, 7, 2, 33));
    assert_eq!(sent_to(&to_host(&mut n, ms(150), 0, 20, 1)), [(9, 560, 5)]);
    // Gateway 8 as far away: the route stays with 9.
    n.control(ms(200), 6, gwadv_packet(6, 8, 3, 2, 33));
    assert_eq!(n.a.internet[&20].gateway, 9);
    // Gateway 8 two hops away: the route moves to it.
    n.control(ms(300), 8, gwadv_packet(8, 8, 4, 0, 35));
    assert_eq!(n.a.internet[&20].gateway, 8);
    let out = n.run(|a, ctx| {
        let mut p = data(0, 9, 2);
        p.size_bytes += IP_HEADER_BYTES;
        a.route_to_internet(ms(400), p, 20, ctx)
    });
    assert_eq!(sent_to(&out), [(8, 560, 8)], "tunnelled to gateway 8");
    // A new host takes the nearest gateway known.
    let out = to_host(&mut n, ms(500), 0, 21, 3);
    assert_eq!(n.a.internet[&21].gateway, 8);
    assert_eq!(sent_to(&out)[0].2, 8);
}

#[test]
fn a_source_whose_gateway_is_unreachable_moves_to_another_it_knows() {
    let mut n = advertised(0, None);
    let mut c = (*n.a.cfg).clone();
    c.gateway.as_mut().unwrap().nodes = vec![9, 8];
    n.a = Aodv::new(0, c);
    n.control(ms(100), 5, gwadv_packet(5, 9, 7, 1, 34));
    n.control(ms(110), 6, gwadv_packet(6, 8, 3, 3, 32));
    assert_eq!(sent_to(&to_host(&mut n, ms(150), 0, 20, 1)), [(9, 560, 5)]);
    // The route to gateway 9 breaks; gateway 8 is still known (4 hops).
    n.control(ms(200), 5, rerr_packet(5, vec![(9, 8)]));
    assert!(n.a.routes().valid(9, ms(200)).is_none());
    let out = to_host(&mut n, ms(300), 0, 20, 2);
    assert!(requests(&out).is_empty(), "no search for gateway 9");
    assert_eq!(sent_to(&out), [(8, 560, 6)]);
    assert_eq!(n.a.internet[&20].gateway, 8);
}
