//! State-machine tests of the DSR agent on hand-built packets.

use super::*;
use crate::engine::Rng;
use crate::net::PacketKind;
use crate::routing::testkit::originated_packets as originated;

fn run(d: &mut Dsr, f: impl FnOnce(&mut Dsr, &mut RoutingCtx)) -> Vec<RoutingAction> {
    run_traced(d, false, f)
}

/// [`run`], for a run that writes an ns-2 trace when `tracing`.
fn run_traced(
    d: &mut Dsr,
    tracing: bool,
    f: impl FnOnce(&mut Dsr, &mut RoutingCtx),
) -> Vec<RoutingAction> {
    let mut rng = Rng::from_seed(7);
    let mut out = Vec::new();
    let mut ctx = RoutingCtx {
        me: d.me,
        rng: &mut rng,
        out: &mut out,
        tracing,
    };
    f(d, &mut ctx);
    out
}

fn data(src: NodeId, dst: NodeId) -> Packet {
    let mut p = Packet::control(src, dst, 32, 8, Vec::new());
    p.kind = PacketKind::Data { flow: 0, seq: 0 };
    p.body = None;
    p.payload_bytes = 512;
    p.size_bytes = 20 + 8 + 512;
    p
}

/// A data packet as it arrives at a forwarder: header already attached.
fn routed(src: NodeId, dst: NodeId, addrs: &[NodeId], segs: u8, salvage: u8) -> Packet {
    let mut p = data(src, dst);
    let sr = SourceRoute {
        salvage,
        segments_left: segs,
        addresses: addrs.to_vec(),
    };
    let repr = DsrRepr {
        next_header: NEXT_HEADER_UDP,
        options: vec![sr.option()],
    };
    attach_rfc(&mut p, repr.to_bytes());
    p
}

/// Gives data packet `p` the DSR header `bytes`, counted by the RFC's
/// layout.
fn attach_rfc(p: &mut Packet, bytes: Vec<u8>) {
    p.size_bytes += bytes.len() as u32;
    p.body = Some(bytes.into());
}

fn control(src: NodeId, dst: NodeId, ttl: u8, options: Vec<DsrOption>) -> Packet {
    Packet::control(src, dst, ttl, 0, DsrRepr::control(options).to_bytes())
}

fn rreq(init: NodeId, ttl: u8, id: u16, target: NodeId, record: &[NodeId]) -> Packet {
    control(
        init,
        BROADCAST,
        ttl,
        vec![DsrOption::RouteRequest {
            id,
            target,
            addresses: record.to_vec(),
        }],
    )
}

fn sr_opt(addrs: &[NodeId], segs: u8) -> DsrOption {
    DsrOption::SourceRoute {
        first_hop_external: false,
        last_hop_external: false,
        salvage: 0,
        segments_left: segs,
        addresses: addrs.to_vec(),
    }
}

fn parse(p: &Packet) -> DsrRepr {
    DsrRepr::parse(p.body()).expect("valid DSR header")
}

fn sent(out: &[RoutingAction]) -> Vec<(&Packet, NodeId)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Send { packet, next_hop } => Some((packet, *next_hop)),
            _ => None,
        })
        .collect()
}

fn dropped(out: &[RoutingAction]) -> Vec<DropReason> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Drop { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

/// The packets dropped for having been salvaged as often as allowed
/// (`RoutingAction::DropSalvaged`), with the reason each counts under.
fn dropped_salvaged(out: &[RoutingAction]) -> Vec<(u64, DropReason)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::DropSalvaged { packet, reason } => Some((packet.uid, *reason)),
            _ => None,
        })
        .collect()
}

fn dsr(me: NodeId) -> Dsr {
    Dsr::new(me, DsrConfig::default())
}

// ---------------------------------------------------------------------
// Route discovery at the source
// ---------------------------------------------------------------------

#[test]
fn no_route_buffers_and_sends_a_non_propagating_request_first() {
    let mut d = dsr(0);
    let out = run(&mut d, |d, c| d.route_output(0, data(0, 5), c));
    assert_eq!(d.buffered(), 1);
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (p, nh, msg, fwd) = o[0];
    assert_eq!(
        (nh, msg, fwd, p.ttl, p.src, p.dst),
        (BROADCAST, "rreq", false, 1, 0, BROADCAST)
    );
    assert!(matches!(
        parse(p).options[..],
        [DsrOption::RouteRequest { target: 5, ref addresses, .. }] if addresses.is_empty()
    ));
    assert_eq!(
        p.size_bytes,
        20 + 4 + 8,
        "IP + fixed header + empty request"
    );
    // A second packet for the same target does not start another discovery.
    let out = run(&mut d, |d, c| d.route_output(1, data(0, 5), c));
    assert!(originated(&out).is_empty());
    assert_eq!(d.buffered(), 2);
}

#[test]
fn propagating_requests_follow_with_backoff() {
    let mut d = dsr(0);
    run(&mut d, |d, c| d.route_output(0, data(0, 5), c));
    assert_eq!(d.poll_timeout(), Some(30 * NS_PER_MS));
    let out = run(&mut d, |d, c| d.on_timeout(30 * NS_PER_MS, c));
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].0.ttl, 16, "propagating: MAX_SR_LEN");
    let t1 = 30 * NS_PER_MS + 500 * NS_PER_MS;
    assert_eq!(d.poll_timeout(), Some(t1));
    let out = run(&mut d, |d, c| d.on_timeout(t1, c));
    assert_eq!(originated(&out).len(), 1);
    assert_eq!(d.poll_timeout(), Some(t1 + NS_PER_S), "doubled");
}

#[test]
fn buffered_data_is_sent_when_the_reply_arrives() {
    let mut d = dsr(0);
    run(&mut d, |d, c| d.route_output(0, data(0, 3), c));
    // The reply from 3: route [1, 2, 3] after the initiator; its source
    // route (3 -> 2 -> 1 -> 0) is used up when it reaches 0.
    let rrep = control(
        3,
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![1, 2, 3],
            },
            sr_opt(&[2, 1], 0),
        ],
    );
    let out = run(&mut d, |d, c| d.on_control(NS_PER_MS, 1, rrep, c));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    let (p, nh) = s[0];
    assert_eq!(nh, 1);
    assert_eq!(SourceRoute::of(&parse(p)).unwrap().addresses, vec![1, 2]);
    assert_eq!(p.size_bytes, 540 + 4 + 4 + 8, "DSR header counted");
    assert_eq!(d.buffered(), 0);
    assert!(!d.discovering(3));
    assert_eq!(d.hop_count(3, NS_PER_MS), Some(3));
    // Later packets go straight out.
    let out = run(&mut d, |d, c| d.route_output(2 * NS_PER_MS, data(0, 3), c));
    assert_eq!(sent(&out).len(), 1);
}

// ---------------------------------------------------------------------
// Route requests at other nodes
// ---------------------------------------------------------------------

#[test]
fn request_is_rebroadcast_after_jitter_with_the_record_and_duplicates_are_dropped() {
    let mut d = dsr(2);
    let out = run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 5, 9, &[1]), c)
    });
    assert!(originated(&out).is_empty(), "waits for its jitter");
    let at = d.poll_timeout().expect("jitter timer");
    assert!(at <= 10 * NS_PER_MS);
    let out = run(&mut d, |d, c| d.on_timeout(at, c));
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (p, nh, msg, fwd) = o[0];
    assert_eq!(
        (nh, msg, fwd, p.src, p.ttl),
        (BROADCAST, "rreq", true, 0, 15)
    );
    assert!(matches!(
        parse(p).options[..],
        [DsrOption::RouteRequest { id: 5, target: 9, ref addresses }] if addresses == &[1, 2]
    ));
    // The same request again (another copy): dropped.
    let out = run(&mut d, |d, c| {
        d.on_control(at, 3, rreq(0, 16, 5, 9, &[3]), c)
    });
    assert!(out.is_empty());
    assert_eq!(d.poll_timeout(), None);
    // The reverse route to the initiator was learned.
    assert_eq!(d.route_to(0, at), Some(vec![2, 1, 0]));
}

/// The request node `me` relays after hearing `p` (its jitter waited).
fn relayed_request(d: &mut Dsr, p: Packet) -> Packet {
    run(d, |d, c| d.on_control(0, 1, p, c));
    let at = d.poll_timeout().expect("jitter timer");
    let out = run(d, |d, c| d.on_timeout(at, c));
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    o[0].0.clone()
}

#[test]
fn ns2_a_relayed_request_grows_by_its_whole_header_at_each_hop() {
    // ns-2.35's sizes at the IP layer, read in its traces: 32 bytes from
    // the initiator, then 48, 68, 92 … 488 with 13 nodes on its route
    // (the initiator and 12 relays).
    let first = rreq(0, 16, 5, 99, &[]);
    assert_eq!(first.size_bytes, 32);
    let mut p = first.clone();
    let mut sizes = Vec::new();
    for me in 1..=13 {
        p = relayed_request(&mut dsr_ns2(me), p);
        sizes.push(p.size_bytes);
    }
    assert_eq!(
        sizes,
        [48, 68, 92, 120, 152, 188, 228, 272, 320, 372, 428, 488, 552]
    );
    // Its header is the plain one: 8 bytes + 4 per recorded node.
    assert_eq!(p.body().len(), 4 + 8 + 4 * 13);
    // RFC 4728 (the default): the datagram is the header and IP's 20 bytes.
    let mut p = first;
    for me in 1..=3 {
        p = relayed_request(&mut dsr(me), p);
    }
    assert_eq!(p.size_bytes, 20 + 4 + 8 + 4 * 3);
}

#[test]
fn a_relayed_request_reply_or_error_keeps_the_uid_of_the_packet_it_passes_on() {
    // ns-2.35's `handleRouteRequest` and `handleForwarding` send on the
    // packet they received, so its trace shows one uid from hop to hop.
    let kept = |out: &[RoutingAction]| -> Vec<(u64, NodeId, bool)> {
        out.iter()
            .filter_map(|a| match a {
                RoutingAction::Originate {
                    packet,
                    next_hop,
                    keep_uid,
                    ..
                } => Some((packet.uid, *next_hop, *keep_uid)),
                _ => None,
            })
            .collect()
    };
    let mut request = rreq(0, 16, 5, 99, &[1]);
    request.uid = 41;
    let mut d = dsr(2);
    run(&mut d, |d, c| d.on_control(0, 1, request, c));
    let at = d.poll_timeout().expect("jitter timer");
    let out = run(&mut d, |d, c| d.on_timeout(at, c));
    assert_eq!(kept(&out), vec![(41, BROADCAST, true)]);
    // A reply from 3 to 0 along 3-2-1-0, passed on by 1 (a route error
    // goes on by the same code).
    let mut reply = reply_3_to_0();
    reply.uid = 57;
    let mut d = dsr(1);
    let out = run(&mut d, |d, c| d.on_control(0, 2, reply, c));
    assert_eq!(kept(&out), vec![(57, 0, true)]);
}

/// A target's reply leaves with TTL 64, or 255 as ns-2.35's do (its
/// traces show `[3:255 0:255 255 2]` where manetsim wrote 64), and a relay
/// takes one off, as ns-2.35's `handleForwarding` does (`254`, `253` …
/// down the route); one that comes in with 1 left goes no further.
#[test]
fn a_reply_leaves_with_the_control_ttl_and_each_relay_takes_one_off() {
    let ttl_of_reply = |mut d: Dsr| {
        let out = run(&mut d, |d, c| {
            d.on_control(0, 2, rreq(0, 16, 1, 3, &[1, 2]), c)
        });
        let mut ttls: Vec<u8> = originated(&out).iter().map(|o| o.0.ttl).collect();
        // ns-2.35's target jitters its reply.
        while let Some(at) = d.poll_timeout().filter(|&t| t < NS_PER_S) {
            let out = run(&mut d, |d, c| d.on_timeout(at, c));
            ttls.extend(originated(&out).iter().map(|o| o.0.ttl));
        }
        ttls
    };
    assert_eq!(ttl_of_reply(dsr(3)), vec![64]);
    assert_eq!(ttl_of_reply(dsr_ns2(3)), vec![255]);
    let relayed = |ttl: u8| {
        let mut reply = reply_3_to_0();
        reply.ttl = ttl;
        let mut d = dsr(1);
        let out = run(&mut d, |d, c| d.on_control(0, 2, reply, c));
        let ttls: Vec<u8> = originated(&out).iter().map(|o| o.0.ttl).collect();
        ttls
    };
    assert_eq!(relayed(64), vec![63]);
    assert_eq!(relayed(2), vec![1]);
    assert_eq!(relayed(1), Vec::<u8>::new());
}

#[test]
fn non_propagating_request_is_not_rebroadcast() {
    let mut d = dsr(1);
    run(&mut d, |d, c| d.on_control(0, 0, rreq(0, 1, 1, 9, &[]), c));
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn request_already_recording_this_node_is_ignored() {
    let mut d = dsr(2);
    let out = run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 1, 9, &[2, 1]), c)
    });
    assert!(out.is_empty());
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn target_replies_along_the_reversed_record() {
    let mut d = dsr(3);
    let out = run(&mut d, |d, c| {
        d.on_control(0, 2, rreq(0, 16, 1, 3, &[1, 2]), c)
    });
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (p, nh, msg, fwd) = o[0];
    assert_eq!((nh, msg, fwd, p.src, p.dst), (2, "rrep", false, 3, 0));
    let r = parse(p);
    assert_eq!(
        r.options,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![1, 2, 3]
            },
            sr_opt(&[2, 1], 2)
        ]
    );
    assert_eq!(p.size_bytes as usize, 20 + r.buffer_len());
}

#[test]
fn intermediate_node_replies_from_its_cache_with_the_concatenated_route() {
    let mut d = dsr(2);
    d.learn_route(&[2, 4, 5], 0);
    let out = run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 1, 5, &[1]), c)
    });
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (p, nh, msg, _) = o[0];
    assert_eq!((nh, msg, p.src, p.dst), (1, "rrep", 2, 0));
    assert!(matches!(
        parse(p).options[0],
        DsrOption::RouteReply { ref addresses, .. } if addresses == &[1, 2, 4, 5]
    ));
    assert_eq!(
        d.poll_timeout(),
        None,
        "a node that replied does not propagate"
    );
}

#[test]
fn cached_route_that_would_loop_is_not_used_for_a_reply() {
    let mut d = dsr(2);
    d.learn_route(&[2, 1, 5], 0);
    let out = run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 1, 5, &[1]), c)
    });
    assert!(originated(&out).is_empty());
    assert!(d.poll_timeout().is_some(), "propagates instead");
}

/// A reply from 3 for 0 about the route 0-1-2-3, as node 2 sends it on to
/// node 1 (source route 2, 1).
fn reply_3_to_0() -> Packet {
    control(
        3,
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![1, 2, 3],
            },
            sr_opt(&[2, 1], 1),
        ],
    )
}

#[test]
fn reply_is_forwarded_along_its_source_route_and_cached() {
    let mut d = dsr(1);
    let out = run(&mut d, |d, c| d.on_control(0, 2, reply_3_to_0(), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (p, nh, msg, fwd) = o[0];
    assert_eq!((nh, msg, fwd, p.src, p.dst), (0, "rrep", true, 3, 0));
    assert_eq!(SourceRoute::of(&parse(p)).unwrap().segments_left, 0);
    assert_eq!(d.route_to(3, 0), Some(vec![1, 2, 3]));
}

// ---------------------------------------------------------------------
// Forwarding data
// ---------------------------------------------------------------------

#[test]
fn forwarder_decrements_segments_left_and_learns_the_rest_of_the_route() {
    let mut d = dsr(2);
    let p = routed(0, 5, &[1, 2, 3, 4], 3, 0);
    let size = p.size_bytes;
    let out = run(&mut d, |d, c| d.route_output(0, p, c));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1, 3);
    assert_eq!(SourceRoute::of(&parse(s[0].0)).unwrap().segments_left, 2);
    assert_eq!(s[0].0.size_bytes, size, "same header length");
    assert_eq!(d.route_to(5, 0), Some(vec![2, 3, 4, 5]));
    // Last intermediate hop sends to the destination.
    let mut d = dsr(4);
    let out = run(&mut d, |d, c| {
        d.route_output(0, routed(0, 5, &[1, 2, 3, 4], 1, 0), c)
    });
    assert_eq!(sent(&out)[0].1, 5);
}

#[test]
fn packet_not_routed_through_this_node_is_dropped() {
    let mut d = dsr(7);
    let out = run(&mut d, |d, c| {
        d.route_output(0, routed(0, 5, &[1, 2], 2, 0), c)
    });
    assert_eq!(dropped(&out), vec![DropReason::NoRoute]);
}

// ---------------------------------------------------------------------
// Route maintenance
// ---------------------------------------------------------------------

#[test]
fn link_break_salvages_the_packet_on_an_alternate_cached_route() {
    let mut d = dsr(2);
    d.learn_route(&[2, 3, 4, 5], 0);
    d.learn_route(&[2, 7, 5], 0);
    // The packet as it left 2 (segments left already decremented).
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.on_link_failure(10, 3, Some(p), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "one route error");
    let (e, nh, msg, _) = o[0];
    assert_eq!((nh, msg, e.src, e.dst), (1, "rerr", 2, 0));
    let r = parse(e);
    assert!(matches!(
        r.options[0],
        DsrOption::RouteError { source: 2, destination: 0, ref type_specific, .. }
            if type_specific == &3u32.to_be_bytes()
    ));
    assert_eq!(r.options[1], sr_opt(&[1], 1));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1, 7);
    let sr = SourceRoute::of(&parse(s[0].0)).unwrap();
    assert_eq!(
        (sr.salvage, sr.segments_left, sr.addresses),
        (1, 1, vec![2, 7])
    );
    assert_eq!(s[0].0.src, 0, "the IP source is kept");
    assert!(out.contains(&RoutingAction::Reroute { next_hop: 3 }));
    assert_eq!(d.route_to(4, 10), None, "the link 2 -> 3 is gone");
    // The salvaged packet is forwarded by 7 to 5.
    let mut d7 = dsr(7);
    let (p, _) = s[0];
    let out = run(&mut d7, |d, c| d.route_output(11, p.clone(), c));
    assert_eq!(sent(&out)[0].1, 5);
}

#[test]
fn link_break_without_alternate_drops_and_reports() {
    let mut d = dsr(2);
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.on_link_failure(10, 3, Some(p), c));
    assert_eq!(dropped(&out), vec![DropReason::RetryLimit]);
    assert_eq!(originated(&out).len(), 1);
    // Interface-queue packets for the same break come back: salvage fails
    // again, and no second route error goes to the same source.
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.route_output(10, p, c));
    assert_eq!(dropped(&out), vec![DropReason::NoRoute]);
    assert!(originated(&out).is_empty());
}

#[test]
fn a_salvaged_packet_s_break_is_reported_to_the_node_that_salvaged_it() {
    // 2 salvaged 0's packet onto 2-7-8-5; 8 cannot reach 5.
    let mut d = dsr(8);
    let p = routed(0, 5, &[2, 7, 8], 0, 1);
    let out = run(&mut d, |d, c| d.on_link_failure(10, 5, Some(p), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "one route error");
    let (e, nh, msg, _) = o[0];
    // RFC 4728 section 8.3.4: to Address[1], back along 8-7-2.
    assert_eq!((nh, msg, e.src, e.dst), (7, "rerr", 8, 2));
    let r = parse(e);
    assert!(matches!(
        r.options[0],
        DsrOption::RouteError { source: 8, destination: 2, salvage: 1, ref type_specific, .. }
            if type_specific == &5u32.to_be_bytes()
    ));
    assert_eq!(r.options[1], sr_opt(&[7], 1));
    // The salvager's own salvaged packet coming back from its queue: no
    // route error to itself, and none to the source it did not come from.
    let mut d2 = dsr(2);
    let p = routed(0, 5, &[2, 7], 1, 1);
    let out = run(&mut d2, |d, c| d.on_link_failure(10, 7, Some(p), c));
    assert!(originated(&out).is_empty());
    assert_eq!(dropped(&out), vec![DropReason::RetryLimit]);
}

/// ns-2.35's `xmitFailed` turns the packet it could not deliver into the
/// route error, which its trace shows with that packet's MAC header: with
/// a trace, the error is announced as made from the failed packet, just
/// before it is sent; without one nothing is.
#[test]
fn a_route_error_is_made_from_the_packet_that_failed() {
    for tracing in [true, false] {
        let mut d = dsr(2);
        d.learn_route(&[2, 7, 5], 0);
        let mut p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
        p.uid = 41;
        let out = run_traced(&mut d, tracing, |d, c| d.on_link_failure(10, 3, Some(p), c));
        let i = out
            .iter()
            .position(|a| {
                matches!(
                    a,
                    RoutingAction::Originate {
                        message: "rerr",
                        ..
                    }
                )
            })
            .expect("a route error");
        let made = out
            .iter()
            .filter(|a| matches!(a, RoutingAction::MadeFrom { .. }))
            .count();
        if tracing {
            assert_eq!(out[i - 1], RoutingAction::MadeFrom { uid: 41 });
            assert_eq!(made, 1);
        } else {
            assert_eq!(made, 0);
        }
    }
}

/// A packet salvaged 15 times is dropped before a route is looked up, as
/// ns-2.35's `undeliverablePkt` drops it (`D … RTR SAL` in its trace),
/// counted as the MAC failure that brought it back; one salvaged 14
/// times goes on once more.
#[test]
fn salvage_count_is_limited() {
    for cfg in [DsrConfig::default(), DsrConfig::ns2()] {
        let mut d = Dsr::new(2, cfg.clone());
        d.learn_route(&[2, 7, 5], 0);
        let mut p = routed(0, 5, &[2, 3, 4], 1, 15);
        p.uid = 77;
        let out = run(&mut d, |d, c| d.on_link_failure(10, 3, Some(p), c));
        assert_eq!(dropped_salvaged(&out), vec![(77, DropReason::RetryLimit)]);
        assert_eq!(dropped(&out), vec![]);
        assert!(sent(&out).is_empty(), "{out:?}");
        let mut d = Dsr::new(2, cfg);
        d.learn_route(&[2, 7, 5], 0);
        let p = routed(0, 5, &[2, 3, 4], 1, 14);
        let out = run(&mut d, |d, c| d.on_link_failure(10, 3, Some(p), c));
        assert_eq!(dropped_salvaged(&out), vec![]);
        assert_eq!(sent(&out).len(), 1, "{out:?}");
    }
}

#[test]
fn route_error_removes_the_link_and_reaches_the_source() {
    let rerr = |segs| {
        control(
            2,
            0,
            64,
            vec![
                DsrOption::RouteError {
                    error_type: ERROR_NODE_UNREACHABLE,
                    salvage: 0,
                    source: 2,
                    destination: 0,
                    type_specific: 3u32.to_be_bytes().to_vec(),
                },
                sr_opt(&[1], segs),
            ],
        )
    };
    let mut d1 = dsr(1);
    d1.learn_route(&[1, 2, 3, 4], 0);
    let out = run(&mut d1, |d, c| d.on_control(0, 2, rerr(1), c));
    assert_eq!(d1.route_to(3, 0), None);
    assert_eq!(d1.route_to(2, 0), Some(vec![1, 2]));
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    assert_eq!((o[0].1, o[0].2, o[0].3), (0, "rerr", true));
    let mut d0 = dsr(0);
    d0.learn_route(&[0, 1, 2, 3, 4], 0);
    let out = run(&mut d0, |d, c| d.on_control(0, 1, o[0].0.clone(), c));
    assert!(out.is_empty(), "the source consumes it");
    assert_eq!(d0.route_to(4, 0), None);
    assert_eq!(d0.hop_count(2, 0), Some(2));
}

#[test]
fn source_reroutes_its_own_packets_after_a_break() {
    let mut d = dsr(0);
    d.learn_route(&[0, 1, 2], 0);
    d.learn_route(&[0, 3, 4, 2], 0);
    let out = run(&mut d, |d, c| d.route_output(0, data(0, 2), c));
    let (p, nh) = sent(&out)[0];
    assert_eq!(nh, 1);
    let p = p.clone();
    let out = run(&mut d, |d, c| d.on_link_failure(5, 1, Some(p), c));
    let s = sent(&out);
    assert_eq!(s[0].1, 3);
    assert_eq!(
        s[0].0.size_bytes,
        540 + 4 + 4 + 8,
        "header replaced, not stacked"
    );
    assert!(originated(&out).is_empty(), "no route error to itself");
}

// ---------------------------------------------------------------------
// Send buffer
// ---------------------------------------------------------------------

#[test]
fn buffered_packets_time_out_and_overflow_drops_the_oldest() {
    let cfg = DsrConfig {
        send_buffer_packets: 2,
        ..DsrConfig::default()
    };
    let mut d = Dsr::new(0, cfg);
    run(&mut d, |d, c| d.route_output(0, data(0, 5), c));
    run(&mut d, |d, c| d.route_output(1, data(0, 5), c));
    let out = run(&mut d, |d, c| d.route_output(2, data(0, 5), c));
    assert_eq!(dropped(&out), vec![DropReason::RouteBufferFull]);
    let mut drops = Vec::new();
    let mut guard = 0;
    while let Some(t) = d.poll_timeout() {
        let out = run(&mut d, |d, c| d.on_timeout(t, c));
        drops.extend(dropped(&out));
        guard += 1;
        assert!(guard < 100);
    }
    assert_eq!(drops, vec![DropReason::RouteBufferTimeout; 2]);
    assert_eq!(d.buffered(), 0);
    assert!(!d.discovering(5), "discovery ends when nothing waits");
}

fn rerr_opt(from: NodeId, to: NodeId, dst: NodeId) -> DsrOption {
    DsrOption::RouteError {
        error_type: ERROR_NODE_UNREACHABLE,
        salvage: 0,
        source: from,
        destination: dst,
        type_specific: to.to_be_bytes().to_vec(),
    }
}

#[test]
fn source_carries_the_last_route_error_on_its_next_propagating_request() {
    let mut d = dsr(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    let rerr = control(2, 0, 64, vec![rerr_opt(2, 3, 0), sr_opt(&[1], 0)]);
    run(&mut d, |d, c| d.on_control(0, 1, rerr, c));
    assert_eq!(d.route_to(3, 0), None);
    // No route now: buffered; the non-propagating request goes alone.
    let out = run(&mut d, |d, c| d.route_output(NS_PER_MS, data(0, 3), c));
    assert_eq!(parse(originated(&out)[0].0).options.len(), 1);
    let out = run(&mut d, |d, c| d.on_timeout(31 * NS_PER_MS, c));
    let opts = parse(originated(&out)[0].0).options;
    assert_eq!(opts.len(), 2);
    assert_eq!(opts[0], rerr_opt(2, 3, 0));
    assert!(matches!(opts[1], DsrOption::RouteRequest { target: 3, .. }));
    // Only once.
    let t = d.poll_timeout().unwrap();
    let out = run(&mut d, |d, c| d.on_timeout(t, c));
    assert_eq!(parse(originated(&out)[0].0).options.len(), 1);
}

#[test]
fn request_carrying_an_error_cleans_the_cache_before_a_cached_reply() {
    let mut d = dsr(1);
    d.learn_route(&[1, 2, 3], 0);
    let p = control(
        0,
        BROADCAST,
        16,
        vec![
            rerr_opt(2, 3, 0),
            DsrOption::RouteRequest {
                id: 9,
                target: 3,
                addresses: vec![],
            },
        ],
    );
    let out = run(&mut d, |d, c| d.on_control(0, 0, p, c));
    assert!(originated(&out).is_empty(), "no reply from the stale route");
    assert_eq!(d.route_to(3, 0), None);
    let t = d.poll_timeout().expect("rebroadcast");
    let out = run(&mut d, |d, c| d.on_timeout(t, c));
    let opts = parse(originated(&out)[0].0).options;
    assert_eq!(opts[0], rerr_opt(2, 3, 0), "the error travels on");
    assert!(matches!(
        opts[1],
        DsrOption::RouteRequest { ref addresses, .. } if addresses == &[1]
    ));
}

// ---------------------------------------------------------------------
// Automatic route shortening (gratuitous replies)
// ---------------------------------------------------------------------

/// Data from 0 to 4 on the route 0-1-2-3-4, as node 1 sends it to node 2.
fn from_1_to_2() -> Packet {
    routed(0, 4, &[1, 2, 3], 2, 0)
}

fn overhear(d: &mut Dsr, now: SimTime, from: NodeId, p: &Packet) -> Vec<RoutingAction> {
    run(d, |d, c| d.on_overheard(now, from, p, c))
}

#[test]
fn overhearing_a_route_that_reaches_this_node_later_sends_a_gratuitous_reply() {
    let mut d = dsr(3);
    assert!(d.wants_promiscuous());
    let out = overhear(&mut d, 0, 1, &from_1_to_2());
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (p, nh, msg, fwd) = o[0];
    // Back to the source through the transmitter 3 heard.
    assert_eq!((nh, msg, fwd, p.src, p.dst), (1, "grat_rrep", false, 3, 0));
    let repr = parse(p);
    assert!(matches!(
        &repr.options[..],
        [DsrOption::RouteReply { addresses, .. }, DsrOption::SourceRoute { segments_left: 1, addresses: back, .. }]
            if addresses == &vec![1, 3, 4] && back == &vec![1]
    ));
    // It learned both ways from the packet.
    assert_eq!(d.route_to(0, 0), Some(vec![3, 1, 0]));
    assert_eq!(d.route_to(4, 0), Some(vec![3, 4]));
}

#[test]
fn the_destination_overhearing_its_packet_early_shortens_to_itself() {
    let mut d = dsr(4);
    let out = overhear(&mut d, 0, 1, &from_1_to_2());
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    assert!(matches!(
        &parse(o[0].0).options[0],
        DsrOption::RouteReply { addresses, .. } if addresses == &vec![1, 4]
    ));
}

#[test]
fn no_gratuitous_reply_off_the_route_at_the_next_hop_or_upstream() {
    for me in [9, 2, 1, 0] {
        let mut d = dsr(me);
        let out = overhear(&mut d, 0, 1, &from_1_to_2());
        assert!(out.is_empty(), "node {me}: {out:?}");
    }
    // The last hop (3 to 4) leaves nothing to shorten.
    let mut d = dsr(5);
    let last = routed(0, 4, &[1, 2, 3], 0, 0);
    assert!(overhear(&mut d, 0, 3, &last).is_empty());
    // Nor does a control packet.
    let mut d = dsr(3);
    let rrep = control(
        4,
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![1, 2, 3, 4],
            },
            sr_opt(&[3, 2, 1], 1),
        ],
    );
    assert!(overhear(&mut d, 0, 2, &rrep).is_empty());
}

#[test]
fn gratuitous_replies_are_held_down_per_source_and_transmitter() {
    let mut d = dsr(3);
    let p = from_1_to_2();
    assert_eq!(originated(&overhear(&mut d, 0, 1, &p)).len(), 1);
    // More packets of the flow within the hold-down: no more replies.
    assert!(overhear(&mut d, 250 * NS_PER_MS, 1, &p).is_empty());
    assert!(overhear(&mut d, NS_PER_S - 1, 1, &p).is_empty());
    // Another transmitter is another entry: 0 sends to 1 on 0-1-2-3-4.
    let from_0 = routed(0, 4, &[1, 2, 3], 3, 0);
    let out = overhear(&mut d, NS_PER_S - 1, 0, &from_0);
    assert!(matches!(
        &parse(originated(&out)[0].0).options[0],
        DsrOption::RouteReply { addresses, .. } if addresses == &vec![3, 4]
    ));
    // The hold-down over, the source hears again.
    assert_eq!(originated(&overhear(&mut d, NS_PER_S, 1, &p)).len(), 1);
}

#[test]
fn ns2_gratuitous_replies_are_held_down_per_route_with_ns2s_table() {
    let mut d = dsr_ns2(3);
    // Each packet overheard is another (the tap looks at a uid once).
    let mut uid = 100;
    let mut again = |p: &Packet| {
        uid += 1;
        let mut q = p.clone();
        q.uid = uid;
        q
    };
    let p = from_1_to_2();
    let t0 = 5 * NS_PER_S;
    // A new route always gets a reply; its slot keeps the time of the
    // slot before (never set: 0), so the next packet gets one too.
    assert_eq!(originated(&overhear(&mut d, t0, 1, &again(&p))).len(), 1);
    assert_eq!(
        originated(&overhear(&mut d, t0 + 1, 1, &again(&p))).len(),
        1
    );
    // Another route is another entry: the next slot, whose time the first
    // new route set, so its second packet waits until t0 + 1 s.
    let other = routed(0, 4, &[1, 7, 3], 2, 0);
    assert_eq!(
        originated(&overhear(&mut d, t0 + 2, 1, &again(&other))).len(),
        1
    );
    assert!(
        overhear(&mut d, t0 + 3, 1, &again(&other)).is_empty(),
        "slot time t0"
    );
    assert_eq!(
        originated(&overhear(&mut d, t0 + NS_PER_S, 1, &again(&other))).len(),
        1
    );
    // The first route: one a second.
    assert!(overhear(&mut d, t0 + NS_PER_S, 1, &again(&p)).is_empty());
    assert_eq!(
        originated(&overhear(&mut d, t0 + NS_PER_S + 1, 1, &again(&p))).len(),
        1
    );
    // The same route from another transmitter is the same entry (the RFC
    // table would key on the transmitter): 0 sends to 1 on 0-1-2-3-4.
    let from_0 = routed(0, 4, &[1, 2, 3], 3, 0);
    assert!(overhear(&mut d, t0 + NS_PER_S + 2, 0, &again(&from_0)).is_empty());
    let mut g = GratHold::default();
    for i in 0..=NS2_GRAT_SLOTS as u32 {
        assert!(g.allows(&[0, i, 9], 0, NS_PER_S));
    }
    // Eleven routes in ten slots: the first was replaced.
    assert!(g.allows(&[0, 0, 9], 0, NS_PER_S));
    assert!(!g.allows(&[0, 10, 9], 0, NS_PER_S));
}

#[test]
fn a_salvaged_packet_is_shortened_for_the_node_that_salvaged_it() {
    // 1 salvaged 0's packet onto 1-2-3-4-5; 2 sends it on to 3; 4 hears.
    let mut d = dsr(4);
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 1);
    let out = overhear(&mut d, 0, 2, &p);
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    assert_eq!((o[0].1, o[0].0.dst), (2, 1));
    assert!(matches!(
        &parse(o[0].0).options[0],
        DsrOption::RouteReply { addresses, .. } if addresses == &vec![2, 4, 5]
    ));
}

#[test]
fn without_gratuitous_replies_dsr_does_not_overhear() {
    let cfg = DsrConfig {
        gratuitous_replies: false,
        ..DsrConfig::default()
    };
    let mut d = Dsr::new(3, cfg);
    assert!(!d.wants_promiscuous());
    assert!(overhear(&mut d, 0, 1, &from_1_to_2()).is_empty());
}

#[test]
fn the_source_caches_the_shorter_route_and_its_next_packet_uses_it() {
    let mut src = dsr(0);
    src.learn_route(&[0, 1, 2, 3, 4], 0);
    let out = run(&mut src, |d, c| d.route_output(0, data(0, 4), c));
    assert_eq!(sent(&out)[0].1, 1);
    // 3 overhears the packet on its way from 1 to 2.
    let mut n3 = dsr(3);
    let out = overhear(&mut n3, 1000, 1, &from_1_to_2());
    let reply = originated(&out)[0].0.clone();
    // Node 1 passes the reply on; it learns 1-3-4 as well.
    let mut n1 = dsr(1);
    let out = run(&mut n1, |d, c| d.on_control(2000, 3, reply, c));
    let o = originated(&out);
    assert_eq!((o[0].1, o[0].2, o[0].3), (0, "rrep", true));
    assert_eq!(n1.route_to(4, 2000), Some(vec![1, 3, 4]));
    let fwd = o[0].0.clone();
    let out = run(&mut src, |d, c| d.on_control(3000, 1, fwd, c));
    assert!(out.is_empty());
    assert_eq!(src.route_to(4, 3000), Some(vec![0, 1, 3, 4]));
    assert_eq!(src.hop_count(4, 3000), Some(3));
    // The next packet takes the short route.
    let out = run(&mut src, |d, c| d.route_output(4000, data(0, 4), c));
    let s = sent(&out);
    assert_eq!(s[0].1, 1);
    let repr = parse(s[0].0);
    assert!(matches!(
        &repr.options[..],
        [DsrOption::SourceRoute { segments_left: 2, addresses, .. }] if addresses == &vec![1, 3]
    ));
}

// ---------------------------------------------------------------------
// ns-2.35's pacing (`RequestPacing::Ns2`)
// ---------------------------------------------------------------------

fn dsr_ns2(me: NodeId) -> Dsr {
    Dsr::new(me, DsrConfig::ns2())
}

/// Runs every timer of `d` due up to `until`; returns each action with the
/// time of the timer that produced it.
fn advance(d: &mut Dsr, until: SimTime) -> Vec<(SimTime, RoutingAction)> {
    let mut all = Vec::new();
    while let Some(t) = d.poll_timeout().filter(|&t| t <= until) {
        let out = run(d, |d, c| d.on_timeout(t, c));
        all.extend(out.into_iter().map(|a| (t, a)));
    }
    all
}

/// The route requests among `actions`: (time, TTL).
fn requests(actions: &[(SimTime, RoutingAction)]) -> Vec<(SimTime, u8)> {
    actions
        .iter()
        .filter_map(|(t, a)| match a {
            RoutingAction::Originate {
                packet,
                message: "rreq",
                forwarded: false,
                ..
            } => Some((*t, packet.ttl)),
            _ => None,
        })
        .collect()
}

fn reply_to_0(route: &[NodeId]) -> Packet {
    // Route `route` after the initiator 0; its source route is used up.
    let back: Vec<NodeId> = route[..route.len() - 1].iter().rev().copied().collect();
    control(
        *route.last().unwrap(),
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: route.to_vec(),
            },
            sr_opt(&back, 0),
        ],
    )
}

#[test]
fn ns2_cycles_back_off_fourfold_until_a_reply() {
    let mut d = dsr_ns2(0);
    let out = run(&mut d, |d, c| d.route_output(NS_PER_S, data(0, 5), c));
    assert!(
        originated(&out).is_empty(),
        "the request waits for its jitter"
    );
    assert_eq!(d.buffered(), 1);
    let acts = advance(&mut d, 12 * NS_PER_S);
    let reqs = requests(&acts);
    // Cycle 1 at 1 s: ring zero, then one propagating request at the first
    // buffer check more than 30 ms later (checks are 30-60 ms apart).
    assert_eq!(reqs[0].1, 1);
    assert!(reqs[0].0 < NS_PER_S + 10 * NS_PER_MS, "{reqs:?}");
    assert_eq!(reqs[1].1, 16);
    let gap = reqs[1].0 - NS_PER_S;
    assert!(gap > 30 * NS_PER_MS && gap <= 130 * NS_PER_MS, "{reqs:?}");
    // Cycle 2 no sooner than 0.5 s x 4 = 2 s after cycle 1, within a check.
    assert_eq!(reqs[2].1, 1);
    let gap = reqs[2].0 - NS_PER_S;
    assert!(
        (2 * NS_PER_S..2 * NS_PER_S + 70 * NS_PER_MS).contains(&gap),
        "{reqs:?}"
    );
    assert_eq!(reqs[3].1, 16);
    // Cycle 3 waits 0.5 s x 16 = 8 s after cycle 2: past 11 s.
    assert_eq!(reqs[4].1, 1);
    assert!(
        reqs[4].0 >= reqs[2].0 - 10 * NS_PER_MS + 8 * NS_PER_S,
        "{reqs:?}"
    );
    assert_eq!(reqs[5].1, 16);
    assert_eq!(reqs.len(), 6, "{reqs:?}");
    assert_eq!(d.route_discoveries(), 3);
    assert!(d.discovering(5));
}

#[test]
fn ns2_reply_releases_the_buffer_30_ms_apart_and_resets_the_pacing() {
    let mut d = dsr_ns2(0);
    for i in 0..3 {
        run(&mut d, |d, c| d.route_output(NS_PER_S + i, data(0, 3), c));
    }
    advance(&mut d, NS_PER_S + 20 * NS_PER_MS);
    let t = NS_PER_S + 20 * NS_PER_MS;
    let out = run(&mut d, |d, c| d.on_control(t, 1, reply_to_0(&[1, 2, 3]), c));
    // The first goes at once, the others 30 ms apart.
    assert_eq!(sent(&out).len(), 1);
    assert_eq!(d.buffered(), 2, "released but not yet sent count as held");
    let acts = advance(&mut d, t + NS_PER_S);
    let times: Vec<SimTime> = acts
        .iter()
        .filter(|(_, a)| matches!(a, RoutingAction::Send { .. }))
        .map(|(at, _)| *at - t)
        .collect();
    assert_eq!(times, vec![30 * NS_PER_MS, 60 * NS_PER_MS]);
    assert_eq!(d.buffered(), 0);
    assert!(!d.discovering(3), "the reply reset the pacing");
    // The route breaks at once: the next cycle may start immediately
    // (without the reply it would wait 2 s).
    run(&mut d, |d, c| d.on_link_failure(t + NS_PER_S, 1, None, c));
    let at = t + NS_PER_S + 1;
    run(&mut d, |d, c| d.route_output(at, data(0, 3), c));
    let reqs = requests(&advance(&mut d, at + 15 * NS_PER_MS));
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].1, 1);
}

/// The messages among `actions` with their sizes and, for a request, its
/// identification.
fn sized(actions: &[(SimTime, RoutingAction)]) -> Vec<(&'static str, u32, Option<u16>)> {
    actions
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Originate {
                packet, message, ..
            } => {
                let id = parse(packet).options.iter().find_map(|o| match o {
                    DsrOption::RouteRequest { id, .. } => Some(*id),
                    _ => None,
                });
                Some((*message, packet.size_bytes, id))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn ns2_sizes_and_request_ids_as_in_ns2s_trace_of_a_3_node_chain() {
    // ns-2.35's trace of the chain 0 - 1 - 2 (tests/fixtures'
    // ns2_chain3_aodv.toml run over DSR): the first request `DSR 32`,
    // numbered 1; relayed by 1, `DSR 48`; the target's reply along
    // 2 -> 1 -> 0, carrying the route 0 1 2, `DSR 52`. The RFC's layout
    // (and a relayed request that does not grow) gives 32, 36 and 43, and
    // numbers the first request 0.
    for (mut d0, mut d1, mut d2, relayed_bytes, reply_bytes, first_id) in [
        (dsr_ns2(0), dsr_ns2(1), dsr_ns2(2), 48, 52, 1),
        (dsr(0), dsr(1), dsr(2), 36, 43, 0),
    ] {
        let out: Vec<_> = run(&mut d0, |d, c| d.route_output(NS_PER_S, data(0, 2), c))
            .into_iter()
            .map(|a| (NS_PER_S, a))
            .chain(advance(&mut d0, NS_PER_S + 10 * NS_PER_MS))
            .collect();
        assert_eq!(sized(&out), vec![("rreq", 32, Some(first_id))]);
        let at = 2 * NS_PER_S;
        let out: Vec<_> = run(&mut d1, |d, c| {
            d.on_control(at, 0, rreq(0, 32, first_id, 2, &[]), c)
        })
        .into_iter()
        .map(|a| (at, a))
        .chain(advance(&mut d1, at + 20 * NS_PER_MS))
        .collect();
        assert_eq!(sized(&out), vec![("rreq", relayed_bytes, Some(first_id))]);
        let out: Vec<_> = run(&mut d2, |d, c| {
            d.on_control(at, 1, rreq(0, 31, first_id, 2, &[1]), c)
        })
        .into_iter()
        .map(|a| (at, a))
        .chain(advance(&mut d2, at + 20 * NS_PER_MS))
        .collect();
        assert_eq!(sized(&out), vec![("rrep", reply_bytes, None)]);
    }
}

#[test]
fn ns2_forwarder_without_a_cached_route_tries_one_ring_zero_cycle() {
    let mut d = dsr_ns2(2);
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.on_link_failure(NS_PER_S, 3, Some(p), c));
    assert!(dropped(&out).is_empty(), "buffered, not dropped");
    assert_eq!(originated(&out).len(), 1, "the route error to 0");
    assert_eq!(d.buffered(), 1);
    // One non-propagating request; no propagating one for another's packet;
    // when the next cycle would start (2 s later) the packet is dropped.
    let acts = advance(&mut d, 5 * NS_PER_S);
    let reqs = requests(&acts);
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!(reqs[0].1, 1);
    let drops: Vec<(SimTime, DropReason)> = acts
        .iter()
        .filter_map(|(t, a)| match a {
            RoutingAction::Drop { reason, .. } => Some((*t, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(drops.len(), 1);
    assert_eq!(drops[0].1, DropReason::NoRoute);
    assert!((3 * NS_PER_S..3 * NS_PER_S + 70 * NS_PER_MS).contains(&drops[0].0));
    assert_eq!(d.buffered(), 0);
}

#[test]
fn ns2_forwarder_salvages_a_buffered_packet_once_a_route_is_learned() {
    let mut d = dsr_ns2(2);
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    run(&mut d, |d, c| d.on_link_failure(NS_PER_S, 3, Some(p), c));
    // A neighbour's cached reply to 2's request (2 is the initiator here).
    d.learn_route(&[2, 7, 5], NS_PER_S + 5 * NS_PER_MS);
    let acts = advance(&mut d, NS_PER_S + 100 * NS_PER_MS);
    let s: Vec<&Packet> = acts
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Send {
                packet,
                next_hop: 7,
            } => Some(packet),
            _ => None,
        })
        .collect();
    assert_eq!(s.len(), 1, "sent at the next buffer check");
    let sr = SourceRoute::of(&parse(s[0])).unwrap();
    assert_eq!((sr.salvage, sr.addresses), (1, vec![2, 7]));
}

/// The packet relay `d` sends to `next` within 100 ms after `t`.
fn released_to(d: &mut Dsr, t: SimTime, next: NodeId) -> Packet {
    let acts = advance(d, t + 100 * NS_PER_MS);
    let s: Vec<&Packet> = acts
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Send { packet, next_hop } if *next_hop == next => Some(packet),
            _ => None,
        })
        .collect();
    assert_eq!(s.len(), 1, "{acts:?}");
    s[0].clone()
}

#[test]
fn ns2_a_packet_salvaged_through_the_send_buffer_keeps_counting_its_old_route() {
    // Relay 2 loses 3 with 0's packet along 0-1-2-3-4-5 and has no route
    // to 5: the packet waits with its source route, 24 bytes as ns-2.35
    // counts six nodes; released along 2-7-5 it counts the new route's 12
    // on top, as ns-2.35's `sendOutPacketWithRoute` adds them to a size
    // its `undeliverablePkt` never took the old header off.
    let base = data(0, 5).size_bytes;
    for ns2_sizes in [true, false] {
        let mut d = dsr_ns2(2);
        Rc::make_mut(&mut d.cfg).ns2_buffered_salvage_sizes = ns2_sizes;
        let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
        run(&mut d, |d, c| d.on_link_failure(NS_PER_S, 3, Some(p), c));
        d.learn_route(&[2, 7, 5], NS_PER_S + 5 * NS_PER_MS);
        let p = released_to(&mut d, NS_PER_S, 7);
        let stale = if ns2_sizes { 24 } else { 0 };
        assert_eq!(
            (p.size_bytes, p.stale_header_bytes),
            (base + stale + 12, stale as u16),
            "ns2 sizes {ns2_sizes}"
        );
    }
    // Salvaged from the cache, the old header comes off.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.on_link_failure(NS_PER_S, 3, Some(p), c));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(
        (s[0].0.size_bytes, s[0].0.stale_header_bytes),
        (base + 12, 0)
    );
}

#[test]
fn ns2_a_buffered_salvage_counts_the_route_without_flow_options_or_the_flow_s_route() {
    // Relay 1 loses 2 with 0's packet that establishes flow 1 along
    // 0-1-2-3 (its route and the flow's Timeout and id): ns-2.35's
    // `undeliverablePkt` clears the flow options, so 16 bytes of route
    // stay counted, and the release along 1-4-3 adds 12.
    let mut src = dsr_ns2(0);
    src.learn_route(&[0, 1, 2, 3], 0);
    let out = run(&mut src, |s, c| s.route_output(0, data(0, 3), c));
    let mut p = sent(&out)[0].0.clone();
    assert_eq!(p.size_bytes, 540 + 24, "route and flow options");
    p.ttl -= 1;
    let mut d = dsr_ns2(1);
    run(&mut d, |d, c| d.on_link_failure(NS_PER_S, 2, Some(p), c));
    assert_eq!(d.buffered(), 1);
    d.learn_route(&[1, 4, 3], NS_PER_S + 5 * NS_PER_MS);
    let p = released_to(&mut d, NS_PER_S, 4);
    assert_eq!((p.size_bytes, p.stale_header_bytes), (540 + 16 + 12, 16));
    // A packet sent by flow: `xmitFlowFailed` puts the flow's route in its
    // header first (16 bytes for 0-1-2-3), which the release keeps.
    for id in [Some(1), None] {
        let mut d = relay_with_flow();
        run(&mut d, |d, c| {
            d.on_link_failure(NS_PER_S, 2, Some(by_flow(id, 31)), c)
        });
        assert_eq!(d.buffered(), 1, "flow {id:?}");
        d.learn_route(&[1, 4, 3], NS_PER_S + 5 * NS_PER_MS);
        let p = released_to(&mut d, NS_PER_S, 4);
        assert_eq!(
            (p.size_bytes, p.stale_header_bytes),
            (540 + 16 + 12, 16),
            "flow {id:?}"
        );
    }
}

/// ns-2.35's `undeliverablePkt` only puts another node's packet in the
/// send buffer; its `SendBufferTimer`, re-armed every 30-60 ms from time 0
/// whether or not the buffer holds anything, asks for the route at its
/// next expiry: sooner than 30 ms after the failure as often as not.
#[test]
fn ns2_a_salvaged_packet_asks_for_a_route_at_the_buffer_timer_s_next_expiry() {
    let mut waits = Vec::new();
    for k in 0..12u64 {
        let mut d = dsr_ns2(2);
        let t = NS_PER_S + k * 7 * NS_PER_MS;
        let p = routed(0, 5, &[1, 2, 3, 4], 2, 0);
        let at_once = run(&mut d, |d, c| d.on_link_failure(t, 3, Some(p), c));
        assert!(!at_once.iter().any(|a| matches!(
            a,
            RoutingAction::Originate {
                message: "rreq",
                ..
            }
        )));
        let acts = advance(&mut d, t + 100 * NS_PER_MS);
        let r = requests(&acts);
        assert_eq!(r.len(), 1, "one non-propagating request");
        assert_eq!(r[0].1, 1);
        waits.push(r[0].0 - t);
    }
    // The timer's next expiry, plus the broadcast jitter (at most 10 ms).
    assert!(
        waits.iter().all(|&w| w > 0 && w <= 70 * NS_PER_MS),
        "{waits:?}"
    );
    assert!(waits.iter().any(|&w| w < 30 * NS_PER_MS), "{waits:?}");
    // Not at once (the jitter alone is at most 10 ms).
    assert!(
        waits.iter().filter(|&&w| w > 20 * NS_PER_MS).count() >= 4,
        "{waits:?}"
    );
}

/// ns-2.35's `sendOutRtReq` gives the error it puts on a request the tell
/// address `GRAT_ROUTE_ERROR` (0), whoever was told: its traces show
/// `[1 1 0 f->t]` on every such request (1,266 of 1,266 in rwp50's seed
/// 5 over DSR). Without the ns-2 preset the error keeps its own.
#[test]
fn ns2_an_error_riding_on_a_request_tells_node_zero() {
    let tells = |mut d: Dsr| {
        let rerr = control(2, 7, 64, vec![rerr_opt(2, 3, 7), sr_opt(&[1], 0)]);
        run(&mut d, |d, c| d.on_control(NS_PER_S, 1, rerr, c));
        run(&mut d, |d, c| d.route_output(NS_PER_S + 1, data(7, 5), c));
        let acts = advance(&mut d, NS_PER_S + 200 * NS_PER_MS);
        let tells: Vec<NodeId> = acts
            .iter()
            .filter_map(|(_, a)| match a {
                RoutingAction::Originate {
                    packet,
                    message: "rreq",
                    ..
                } => parse(packet).options.iter().find_map(|o| match o {
                    DsrOption::RouteError { destination, .. } => Some(*destination),
                    _ => None,
                }),
                _ => None,
            })
            .collect();
        tells
    };
    assert_eq!(tells(dsr_ns2(7)), vec![0, 0]);
    assert_eq!(tells(dsr(7)), vec![7]);
}

#[test]
fn ns2_last_route_error_rides_on_ring_zero_and_propagating_requests() {
    let mut d = dsr_ns2(0);
    let rerr = control(2, 0, 64, vec![rerr_opt(2, 3, 0), sr_opt(&[1], 0)]);
    run(&mut d, |d, c| d.on_control(NS_PER_S, 1, rerr, c));
    run(&mut d, |d, c| d.route_output(NS_PER_S + 1, data(0, 5), c));
    let acts = advance(&mut d, NS_PER_S + 200 * NS_PER_MS);
    let carried: Vec<(u8, bool)> = acts
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Originate {
                packet,
                message: "rreq",
                ..
            } => Some((
                packet.ttl,
                parse(packet)
                    .options
                    .iter()
                    .any(|o| matches!(o, DsrOption::RouteError { .. })),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(carried, vec![(1, true), (16, true)]);
}

/// ns-2.35 marks an error riding on a request with the tell address 0
/// (`GRAT_ROUTE_ERROR`), node 0's own: node 0, hearing its propagating
/// request rebroadcast with its error, holds the error again, and its
/// next request within a second carries it once more (chain6 over DSR:
/// 533 of ns-2.35's non-propagating requests after a failure at node 0
/// carried an error, 16 of manetsim's before). Other nodes do not hold
/// it, nor node 0 without the rule.
#[test]
fn ns2_node_zero_holds_the_error_on_a_request_it_hears_as_told_to_it() {
    let dead = rerr_opt(1, 2, 0);
    let mut echo = rreq(0, 15, 7, 5, &[0, 1]);
    echo.body = Some(
        DsrRepr::control(vec![
            dead.clone(),
            DsrOption::RouteRequest {
                id: 7,
                target: 5,
                addresses: vec![0, 1],
            },
        ])
        .to_bytes()
        .into(),
    );
    let t = 3 * NS_PER_S;
    let mut d = dsr_ns2(0);
    run(&mut d, |d, c| d.on_control(t, 1, echo.clone(), c));
    assert_eq!(d.held_error, Some((t, dead.clone())));
    // Its next cycle, 0.9 s later, carries the error on both requests (the
    // propagating one at the first check of the send buffer 30 ms on, within
    // 90 ms).
    run(&mut d, |d, c| {
        d.route_output(t + 900 * NS_PER_MS, data(0, 5), c)
    });
    let acts = advance(&mut d, t + 990 * NS_PER_MS);
    let carried: Vec<bool> = acts
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Originate {
                packet,
                message: "rreq",
                ..
            } => Some(parse(packet).options.contains(&dead)),
            _ => None,
        })
        .collect();
    assert_eq!(carried, vec![true, true]);

    let mut other = dsr_ns2(4);
    run(&mut other, |d, c| d.on_control(t, 1, echo.clone(), c));
    assert_eq!(other.held_error, None);
    let mut rule_off = dsr_ns2(0);
    Rc::make_mut(&mut rule_off.cfg).grat_errors_tell_node_zero = false;
    run(&mut rule_off, |d, c| d.on_control(t, 1, echo.clone(), c));
    assert_eq!(rule_off.held_error, None);
}

// ---------------------------------------------------------------------
// ns-2.35's route cache (`CacheModel::Ns2`)
// ---------------------------------------------------------------------

#[test]
fn ns2_a_relay_of_a_request_does_not_learn_the_way_back() {
    let mut d = dsr_ns2(2);
    run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 5, 9, &[1]), c)
    });
    assert_eq!(d.route_to(0, 0), None);
    // The target does (the default cache learns it at every relay, above).
    let mut t = dsr_ns2(9);
    run(&mut t, |d, c| {
        d.on_control(0, 1, rreq(0, 16, 5, 9, &[1]), c)
    });
    assert_eq!(t.route_to(0, 0), Some(vec![9, 1, 0]));
}

/// Whether relay `d` rebroadcasts request `p` (heard from node 1).
fn rebroadcasts(d: &mut Dsr, p: Packet) -> bool {
    let now = 0;
    let out = run(d, |d, c| d.on_control(now, 1, p, c));
    assert!(
        originated(&out).is_empty(),
        "a rebroadcast waits for its jitter"
    );
    let Some(at) = d.poll_timeout() else {
        return false;
    };
    let out = run(d, |d, c| d.on_timeout(at, c));
    originated(&out).iter().any(|o| o.2 == "rreq")
}

#[test]
fn ns2_a_relay_ignores_a_request_older_than_the_last_it_took_from_its_initiator() {
    // Initiator 0 numbers its requests for 8 and for 9 in one sequence;
    // relay 2 hears number 6 (for 9) before number 5 (for 8).
    let mut ns2 = dsr_ns2(2);
    assert!(rebroadcasts(&mut ns2, rreq(0, 16, 6, 9, &[1])));
    assert!(
        !rebroadcasts(&mut ns2, rreq(0, 16, 5, 8, &[1])),
        "ns-2.35 keeps one number per initiator: 5 <= 6 is ignored"
    );
    assert!(rebroadcasts(&mut ns2, rreq(0, 16, 7, 8, &[1])));
    assert!(
        rebroadcasts(&mut ns2, rreq(3, 16, 1, 8, &[1])),
        "per initiator"
    );
    // RFC 4728 keeps the recent numbers: 5 was never seen, so it goes on.
    let mut rfc = dsr(2);
    assert!(rebroadcasts(&mut rfc, rreq(0, 16, 6, 9, &[1])));
    assert!(rebroadcasts(&mut rfc, rreq(0, 16, 5, 8, &[1])));
    assert!(!rebroadcasts(&mut rfc, rreq(0, 16, 5, 8, &[3])), "a copy");
}

#[test]
fn ns2_a_relay_forgets_an_initiator_after_128_other_nodes() {
    // Relay 2's request table holds 128 nodes (ns-2.35's `RequestTable`):
    // once 128 others have come after initiator 0, 0's entry is the next
    // one given away, and 0's number 5, older than the 6 taken, is new.
    let mut d = dsr_ns2(2);
    assert!(rebroadcasts(&mut d, rreq(0, 16, 6, 9, &[1])));
    for n in 0..127 {
        assert!(rebroadcasts(&mut d, rreq(1000 + n, 16, 1, 9, &[1])));
    }
    assert!(
        !rebroadcasts(&mut d, rreq(0, 16, 5, 9, &[1])),
        "0 still held"
    );
    assert!(rebroadcasts(&mut d, rreq(2000, 16, 1, 9, &[1])));
    assert!(rebroadcasts(&mut d, rreq(0, 16, 5, 9, &[1])), "0 forgotten");
}

#[test]
fn ns2_a_node_forgets_its_pacing_of_a_target_after_128_other_nodes() {
    // The same table holds node 2's pacing of its discoveries of 9: the
    // 128th node after 9 takes 9's entry, and the cycle under way is
    // forgotten.
    let mut d = dsr_ns2(2);
    run(&mut d, |d, c| d.route_output(0, data(2, 9), c));
    assert!(d.discovering(9));
    for n in 0..127 {
        run(&mut d, |d, c| {
            d.on_control(0, 1, rreq(1000 + n, 16, 1, 77, &[1]), c)
        });
    }
    assert!(d.discovering(9), "9 still held");
    run(&mut d, |d, c| {
        d.on_control(0, 1, rreq(2000, 16, 1, 77, &[1]), c)
    });
    assert!(!d.discovering(9), "9's entry went to node 2000");
}

#[test]
fn ns2_a_request_with_a_full_route_is_ignored_without_being_recorded() {
    // 16 nodes on the route (the initiator and 15 relays): no room for
    // relay 20, which ignores it, but takes the same request when it
    // comes by a shorter route.
    let mut d = dsr_ns2(20);
    let full: Vec<NodeId> = (1..=15).collect();
    assert!(!rebroadcasts(&mut d, rreq(0, 16, 5, 99, &full)));
    assert!(rebroadcasts(&mut d, rreq(0, 16, 5, 99, &[1])));
    // With 15 nodes it goes on, filling the route; RFC 4728 keeps room
    // for the target too.
    let long: Vec<NodeId> = (1..=14).collect();
    assert!(rebroadcasts(&mut dsr_ns2(20), rreq(0, 16, 5, 99, &long)));
    assert!(!rebroadcasts(&mut dsr(20), rreq(0, 16, 5, 99, &long)));
    let shorter: Vec<NodeId> = (1..=13).collect();
    assert!(rebroadcasts(&mut dsr(20), rreq(0, 16, 5, 99, &shorter)));
}

#[test]
fn ns2_a_target_answers_every_copy_and_takes_its_number() {
    // The target (9) answers both copies of number 6, then, as a relay,
    // ignores number 5 of the same initiator for another target.
    let mut d = dsr_ns2(9);
    for via in [1, 3] {
        run(&mut d, |d, c| {
            d.on_control(0, via, rreq(0, 16, 6, 9, &[via]), c)
        });
    }
    let at = d.poll_timeout().expect("the replies' jitter");
    let mut replies = 0;
    let mut now = at;
    while let Some(t) = d.poll_timeout().filter(|&t| t <= now + 20 * NS_PER_MS) {
        let out = run(&mut d, |d, c| d.on_timeout(t, c));
        replies += originated(&out).iter().filter(|o| o.2 == "rrep").count();
        now = t;
    }
    assert_eq!(replies, 2);
    assert!(!rebroadcasts(&mut d, rreq(0, 16, 5, 8, &[1])));
    // A copy whose route is full gets no answer (the answer's route
    // would be too long), but its number is taken.
    let mut d = dsr_ns2(99);
    let full: Vec<NodeId> = (1..=15).collect();
    let out = run(&mut d, |d, c| {
        d.on_control(0, 15, rreq(0, 16, 6, 99, &full), c)
    });
    assert!(originated(&out).is_empty());
    assert_eq!(d.poll_timeout(), None, "no answer waiting for its jitter");
    assert_eq!(d.route_to(0, 0), None, "nor the way back learned");
    assert!(!rebroadcasts(&mut d, rreq(0, 16, 6, 8, &[1])));
}

#[test]
fn ns2_an_accepted_reply_looks_each_buffered_packet_s_route_up_in_turn() {
    // The primary cache is full (30 routes, the next victim the route to
    // 100) and the route to 200 is in the secondary one. A reply releases
    // the packet for 200 first: its lookup moves that route into the
    // primary cache and pushes out the route to 100, so the packet for 100
    // stays buffered (it once was taken as ready and then found no route).
    let mut d = dsr_ns2(0);
    for i in 0..30 {
        assert!(d.cache.add(&[0, 100 + i], 0));
    }
    assert!(d.cache.notice(&[0, 200], 0));
    d.buffer.push(0, data(0, 200));
    d.buffer.push(0, data(0, 100));
    let out = run(&mut d, |d, c| d.ns2_accept_reply(0, 200, c));
    assert!(dropped(&out).is_empty());
    assert_eq!(d.buffer.len(), 1);
    assert!(d.buffer.has_dst(100));
    assert_eq!(d.route_to(100, 0), None);
    assert_eq!(d.route_to(200, 0), Some(vec![0, 200]));
}

#[test]
fn ns2_a_relay_of_a_reply_learns_its_source_route_not_the_reply() {
    // Reply for 0 from 3 about 0-1-2-3, relayed by 1 (source route 2, 1).
    let mut d = dsr_ns2(1);
    let out = run(&mut d, |d, c| d.on_control(0, 2, reply_3_to_0(), c));
    assert_eq!(originated(&out)[0].1, 0, "passed on to 0");
    assert_eq!(d.route_to(0, 0), Some(vec![1, 0]));
    assert_eq!(d.route_to(3, 0), None, "the reply's route is not cached");
}

#[test]
fn ns2_overhearing_a_route_error_removes_the_broken_link() {
    let mut d = dsr_ns2(7);
    assert!(d.overhears_control() && d.wants_promiscuous());
    assert!(!dsr(7).overhears_control());
    d.learn_route(&[7, 2, 3, 4], 0);
    // 2 tells 0 (through 1) that 2 -> 3 broke; 7 hears 2 send it to 1.
    let rerr = control(2, 0, 64, vec![rerr_opt(2, 3, 0), sr_opt(&[1], 1)]);
    let out = overhear(&mut d, 0, 2, &rerr);
    assert!(out.is_empty(), "only the cache changes");
    assert_eq!(d.route_to(4, 0), None);
    assert_eq!(d.route_to(2, 0), Some(vec![7, 2]));
    // The error's own route (2 -> 1 -> 0) was noticed, through 2.
    assert_eq!(d.route_to(0, 0), Some(vec![7, 2, 1, 0]));
}

#[test]
fn ns2_overhearing_data_off_its_route_learns_a_link_to_the_transmitter() {
    let mut d = dsr_ns2(7);
    Rc::make_mut(&mut d.cfg).gratuitous_replies = false;
    assert!(d.wants_promiscuous(), "the cache overhears on its own");
    let out = overhear(&mut d, 0, 1, &from_1_to_2());
    assert!(out.is_empty());
    assert_eq!(d.route_to(4, 0), Some(vec![7, 1, 2, 3, 4]));
    assert_eq!(d.route_to(0, 0), None, "only onwards from the transmitter");
}

#[test]
fn ns2_a_reply_the_mac_fails_to_deliver_becomes_a_route_error_to_its_source() {
    // Reply from 3 for 0 about 0-1-2-3, at relay 2 on its way to 1. Relay 2
    // has no route to 0: the reply waits in its send buffer as it is, the
    // broken link in it (ns-2.35's bad-reply check is only on the salvage
    // of a packet with a cached route).
    let mut d = dsr_ns2(2);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(reply_3_to_0()), c)
    });
    assert!(dropped(&out).is_empty(), "{out:?}");
    assert_eq!(d.buffered(), 1);
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (p, nh, msg, _) = o[0];
    assert_eq!((nh, msg, p.src, p.dst), (3, "rerr", 2, 3));
    assert_eq!(parse(p).options[0], rerr_opt(2, 1, 3));
    // With a cached route to 0 it would be salvaged, and the check drops it.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(reply_3_to_0()), c)
    });
    assert_eq!(dropped(&out), vec![DropReason::RetryLimit]);
    assert!(resent(&out).is_empty());
    assert_eq!(originated(&out).len(), 1, "the route error still goes");
    // With the single cache (RFC preset) the reply is only dropped.
    let out = run(&mut dsr(2), |d, c| {
        d.on_link_failure(0, 1, Some(reply_3_to_0()), c)
    });
    assert!(originated(&out).is_empty());
}

// ---------------------------------------------------------------------
// Flow state (`flow_state`, on with the ns-2 preset)
// ---------------------------------------------------------------------

/// The DSR header a data packet carries, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Header {
    /// Source route with a flow's Timeout and id: (flow id, route).
    Establishes(u16, Vec<NodeId>),
    /// Source route only.
    Route(Vec<NodeId>),
    /// The 4-byte flow header: (flow id, hop count).
    Flow(u16, u8),
    None,
}

fn header(p: &Packet) -> Header {
    if p.body.is_none() {
        return Header::None;
    }
    if let Ok(h) = FlowHeader::parse(p.body()) {
        return Header::Flow(h.flow_id, h.hop_count);
    }
    let r = parse(p);
    let sr = SourceRoute::of(&r).expect("a source route");
    match r.establishes() {
        Some((id, timeout)) => {
            assert_eq!(timeout, 60);
            Header::Establishes(id, sr.addresses)
        }
        None => Header::Route(sr.addresses),
    }
}

/// Source 0 with the route 0-1-2-3 sends one packet at `now`.
fn send_from_0(d: &mut Dsr, now: SimTime) -> (Header, NodeId, u32) {
    let out = run(d, |d, c| d.route_output(now, data(0, 3), c));
    let s = sent(&out);
    assert_eq!(s.len(), 1, "{out:?}");
    (header(s[0].0), s[0].1, s[0].0.size_bytes)
}

#[test]
fn flow_source_advertises_the_route_three_times_then_sends_bare_packets() {
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    let est = Header::Establishes(1, vec![1, 2]);
    // As ns-2.35 counts it (`DsrConfig::ns2_header_sizes`): 4 fixed +
    // route 3 × 4 + flow timeout 4 + flow header 4 (by the RFC's layout,
    // 4 fixed + Timeout 4 + Destination and Flow ID 8 + route 4 + 2 × 4 = 28).
    assert_eq!(send_from_0(&mut d, 0), (est, 1, 540 + 24));
    assert_eq!(send_from_0(&mut d, 1).0, Header::Establishes(1, vec![1, 2]));
    assert_eq!(send_from_0(&mut d, 2).0, Header::Establishes(1, vec![1, 2]));
    // The default flow: no DSR header at all.
    assert_eq!(send_from_0(&mut d, 3), (Header::None, 1, 540));
    assert_eq!(send_from_0(&mut d, 4).0, Header::None);
    // More than 5 s since the last advertisement: once more.
    let t = 2 + FLOW_ADV_INTERVAL + 1;
    assert_eq!(send_from_0(&mut d, t).0, Header::Establishes(1, vec![1, 2]));
    assert_eq!(send_from_0(&mut d, t + 1).0, Header::None);
    // Without flow state every packet carries its route (4 + 4 + 2 × 4).
    let mut plain = dsr_ns2(0);
    Rc::make_mut(&mut plain.cfg).flow_state = false;
    plain.learn_route(&[0, 1, 2, 3], 0);
    for t in 0..5 {
        assert_eq!(
            send_from_0(&mut plain, t),
            (Header::Route(vec![1, 2]), 1, 556)
        );
    }
}

#[test]
fn a_flow_that_is_not_the_default_goes_with_its_flow_header() {
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    for t in 0..3 {
        send_from_0(&mut d, t);
    }
    // A packet with another TTL cannot go as the default flow, whose
    // relays check the TTL.
    let mut p = data(0, 3);
    p.ttl = 20;
    let out = run(&mut d, |d, c| d.route_output(3, p, c));
    assert_eq!(header(sent(&out)[0].0), Header::Flow(1, 1));
    assert_eq!(sent(&out)[0].0.size_bytes, 540 + 4);
}

#[test]
fn a_broken_link_ends_the_sources_flow_and_the_next_packet_opens_another() {
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    for t in 0..4 {
        send_from_0(&mut d, t);
    }
    // 1 reports 1 -> 2 broken; the cache has another route.
    d.learn_route(&[0, 4, 2, 3], 0);
    let rerr = control(1, 0, 64, vec![rerr_opt(1, 2, 0), sr_opt(&[], 0)]);
    run(&mut d, |d, c| d.on_control(5, 1, rerr, c));
    assert_eq!(
        send_from_0(&mut d, 6),
        (Header::Establishes(3, vec![4, 2]), 4, 564)
    );
    // A link the flow does not use leaves it alone.
    let rerr = control(4, 0, 64, vec![rerr_opt(2, 9, 0), sr_opt(&[], 0)]);
    run(&mut d, |d, c| d.on_control(7, 4, rerr, c));
    assert_eq!(send_from_0(&mut d, 8).0, Header::Establishes(3, vec![4, 2]));
}

#[test]
fn the_source_keeps_to_its_default_flow_unless_the_cache_is_shorter() {
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    for t in 0..4 {
        send_from_0(&mut d, t);
    }
    // A longer route enters the primary cache and becomes the one found
    // for use: the default flow's route is still taken.
    d.cache = RouteCache::ns2(0);
    d.learn_route(&[0, 5, 6, 7, 3], 0);
    assert_eq!(send_from_0(&mut d, 4), (Header::None, 1, 540));
    assert_eq!(d.flow_state_counts().opened, 1);
    // A shorter one wins and opens a flow of its own.
    d.learn_route(&[0, 8, 3], 0);
    assert_eq!(send_from_0(&mut d, 5).0, Header::Establishes(3, vec![8]));
    let c = d.flow_state_counts();
    assert_eq!((c.opened, c.established, c.by_flow), (2, 4, 2));
}

/// Relay 1 of route 0-1-2-3 after it forwarded flow 1's first packet.
fn relay_with_flow() -> Dsr {
    let mut d = dsr_ns2(1);
    let mut src = dsr_ns2(0);
    src.learn_route(&[0, 1, 2, 3], 0);
    let out = run(&mut src, |s, c| s.route_output(0, data(0, 3), c));
    let mut p = sent(&out)[0].0.clone();
    p.ttl -= 1; // as the world does before handing it over
    let out = run(&mut d, |d, c| d.route_output(0, p, c));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1, 2);
    // The options stay: the next relay learns the flow too.
    assert_eq!(
        (header(s[0].0), s[0].0.size_bytes),
        (Header::Establishes(1, vec![1, 2]), 564)
    );
    d
}

/// A packet of flow `id` on its way from 0 to 3 as relay 1 receives it.
fn by_flow(id: Option<u16>, ttl: u8) -> Packet {
    let mut p = data(0, 3);
    p.ttl = ttl;
    if let Some(id) = id {
        let h = FlowHeader {
            next_header: NEXT_HEADER_UDP,
            hop_count: 1,
            flow_id: id,
        };
        attach_rfc(&mut p, h.to_bytes().to_vec());
    }
    p
}

#[test]
fn a_relay_forwards_by_its_flow_table() {
    let mut d = relay_with_flow();
    let out = run(&mut d, |d, c| d.route_output(1, by_flow(None, 31), c));
    let s = sent(&out);
    assert_eq!((header(s[0].0), s[0].1), (Header::None, 2));
    let out = run(&mut d, |d, c| d.route_output(2, by_flow(Some(1), 31), c));
    let s = sent(&out);
    assert_eq!((header(s[0].0), s[0].1), (Header::Flow(1, 2), 2));
    assert_eq!(s[0].0.size_bytes, 544);
    assert!(originated(&out).is_empty());
}

/// The trace lines among `out`.
fn notes(out: &[RoutingAction]) -> Vec<&str> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Note(line) => Some(line.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_traced_run_writes_the_flow_state_lines_ns2_writes() {
    // The source: three packets with the route, then one without a header.
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    let mut lines = Vec::new();
    for t in 0..4u64 {
        let mut p = data(0, 3);
        p.uid = 10 + t;
        let out = run_traced(&mut d, true, |d, c| d.route_output(t * NS_PER_S, p, c));
        lines.extend(notes(&out).iter().map(|l| l.to_string()));
    }
    assert_eq!(
        lines,
        [
            "SFESTs 0.000000000 _0_ 10 [0 -> 3] 1(1) to 1 [0 |1 2 3 ]",
            "SFESTs 1.000000000 _0_ 11 [0 -> 3] 1(1) to 1 [0 |1 2 3 ]",
            "SFESTs 2.000000000 _0_ 12 [0 -> 3] 1(1) to 1 [0 |1 2 3 ]",
            "SFs 3.000000000 _0_ 13 [0 -> 3] 1(0) to 1 ",
        ]
    );
    // It hears of a relay that does not know its default flow: no flow
    // found, as ns-2.35 traces it; of one that does not know flow 1: the
    // count reset.
    let heard = |d: &mut Dsr, error_type: u8, type_specific: Vec<u8>| {
        let err = DsrOption::RouteError {
            error_type,
            salvage: 0,
            source: 2,
            destination: 0,
            type_specific,
        };
        let c = control(2, 0, 64, vec![err, sr_opt(&[1], 0)]);
        let out = run_traced(d, true, |d, ctx| d.on_control(4 * NS_PER_S, 1, c, ctx));
        notes(&out)
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        heard(&mut d, ERROR_DEFAULT_FLOW_UNKNOWN, vec![0, 0, 0, 3]),
        ["SFEr 4.000000000 _0_ from 2 re 3 : -1 [-1]"]
    );
    assert_eq!(
        heard(&mut d, ERROR_UNKNOWN_FLOW, vec![0, 0, 0, 3, 0, 1]),
        ["SFEr 4.000000000 _0_ from 2 re 3 : 1 [0]"]
    );
    // A relay forwards by flow; one without the flow reports it.
    let mut r = relay_with_flow();
    let mut p = by_flow(None, 31);
    p.uid = 13;
    let out = run_traced(&mut r, true, |r, c| r.route_output(5 * NS_PER_S, p, c));
    assert_eq!(notes(&out), ["SFf 5.000000000 _1_ 13 [0 -> 3] 1 to 2"]);
    let mut r = dsr_ns2(1);
    r.learn_route(&[1, 0], 0);
    r.learn_route(&[1, 4, 3], 0);
    let out = run_traced(&mut r, true, |r, c| {
        r.route_output(6 * NS_PER_S, by_flow(Some(5), 31), c)
    });
    assert_eq!(notes(&out), ["SFErr 6.00000 _1_ 0 -> 3 : 5"]);
    // Untraced, no line is made.
    let out = run(&mut r, |r, c| {
        r.route_output(7 * NS_PER_S, by_flow(Some(5), 31), c)
    });
    assert!(notes(&out).is_empty());
}

#[test]
fn a_relay_without_the_flow_salvages_the_packet_and_tells_the_source() {
    // Relay 1 knows no flow, but has routes to 3 and back to 0.
    let mut d = dsr_ns2(1);
    Rc::make_mut(&mut d.cfg).flow_errors_by_flow = false; // errors with their route, to read them
    d.learn_route(&[1, 4, 3], 0);
    d.learn_route(&[1, 0], 0);
    let out = run(&mut d, |d, c| d.route_output(0, by_flow(Some(5), 31), c));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    // Salvaged: this node first, salvage count 1, no flow options.
    let r = parse(s[0].0);
    assert_eq!(r.establishes(), None);
    let sr = SourceRoute::of(&r).unwrap();
    assert_eq!(
        (sr.salvage, sr.addresses.clone(), s[0].1),
        (1, vec![1, 4], 4)
    );
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (1, 0, 0, "rerr"));
    assert_eq!(
        parse(e).options[0],
        DsrOption::RouteError {
            error_type: ERROR_UNKNOWN_FLOW,
            salvage: 0,
            source: 1,
            destination: 0,
            type_specific: vec![0, 0, 0, 3, 0, 5],
        }
    );
    // No default flow known: a default-flow error, without an id.
    let out = run(&mut d, |d, c| d.route_output(1, by_flow(None, 31), c));
    let (e, ..) = originated(&out)[0];
    assert!(matches!(
        &parse(e).options[0],
        DsrOption::RouteError { error_type: ERROR_DEFAULT_FLOW_UNKNOWN, type_specific, .. }
            if type_specific == &[0, 0, 0, 3]
    ));
    // A default-flow packet whose TTL is not the flow's is not on it.
    let mut d = relay_with_flow();
    Rc::make_mut(&mut d.cfg).flow_errors_by_flow = false;
    d.learn_route(&[1, 0], 0);
    let out = run(&mut d, |d, c| d.route_output(1, by_flow(None, 29), c));
    assert_eq!(originated(&out).len(), 1, "{out:?}");
}

/// The control packets created without a route (for the world to give a
/// uid and hand back through `route_output`).
fn created(out: &[RoutingAction]) -> Vec<&Packet> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Create { packet, .. } => Some(packet),
            _ => None,
        })
        .collect()
}

#[test]
fn a_relay_without_a_route_to_the_source_holds_its_unknown_flow_error() {
    // Relay 1 knows no flow and has a route to 3, none back to 0.
    let mut d = dsr_ns2(1);
    d.learn_route(&[1, 4, 3], 0);
    let t = NS_PER_S;
    let out = run(&mut d, |d, c| d.route_output(t, by_flow(Some(5), 31), c));
    assert_eq!(sent(&out).len(), 1, "the packet is salvaged");
    assert!(originated(&out).is_empty(), "{out:?}");
    // The error is created without a source route ...
    let c = created(&out);
    assert_eq!(c.len(), 1, "{out:?}");
    let mut e = c[0].clone();
    assert_eq!((e.src, e.dst), (1, 0));
    let repr = parse(&e);
    assert!(SourceRoute::of(&repr).is_none());
    assert!(matches!(
        &repr.options[0],
        DsrOption::RouteError { error_type: ERROR_UNKNOWN_FLOW, type_specific, .. }
            if type_specific == &[0, 0, 0, 3, 0, 5]
    ));
    // ... and, back from the world with its uid, waits for a route to 0
    // while 1 asks for one (ns-2's `handlePktWithoutSR`).
    e.uid = 42;
    let out = run(&mut d, |d, c| d.route_output(t, e, c));
    assert!(
        dropped(&out).is_empty() && resent(&out).is_empty(),
        "{out:?}"
    );
    assert_eq!(d.buffered(), 1);
    let acts = advance(&mut d, t + 20 * NS_PER_MS);
    assert_eq!(requests(&acts), vec![(requests(&acts)[0].0, 1)]);
    // A reply brings the route: the error leaves with its uid, along it,
    // and counts as an originated route error.
    let at = t + 20 * NS_PER_MS;
    let reply = control(
        0,
        1,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![0],
            },
            sr_opt(&[], 0),
        ],
    );
    let mut out = run(&mut d, |d, c| d.on_control(at, 0, reply, c));
    out.extend(advance(&mut d, at + NS_PER_S).into_iter().map(|(_, a)| a));
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!(
        (p.uid, p.dst, nh, msg, forwarded),
        (42, 0, 0, "rerr", false)
    );
    let repr = parse(p);
    assert_eq!(
        SourceRoute::of(&repr).unwrap().addresses,
        Vec::<NodeId>::new()
    );
    assert_eq!(p.size_bytes, 20 + repr.ns2_len() as u32);
    assert_eq!(d.buffered(), 0);
}

#[test]
fn an_unknown_flow_error_that_finds_no_route_times_out_in_the_buffer() {
    let mut d = dsr_ns2(1);
    d.learn_route(&[1, 4, 3], 0);
    let out = run(&mut d, |d, c| d.route_output(0, by_flow(None, 31), c));
    let mut e = created(&out)[0].clone();
    e.uid = 9;
    run(&mut d, |d, c| d.route_output(0, e, c));
    let acts = advance(&mut d, 31 * NS_PER_S);
    let drops: Vec<(u64, DropReason)> = acts
        .iter()
        .filter_map(|(_, a)| match a {
            RoutingAction::Drop { packet, reason } => Some((packet.uid, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(drops, vec![(9, DropReason::RouteBufferTimeout)]);
    assert!(
        requests(&acts).len() > 1,
        "own packet: propagating requests too"
    );
    assert_eq!(d.buffered(), 0);
}

#[test]
fn an_unknown_flow_error_makes_the_source_advertise_again() {
    let mut d = dsr_ns2(0);
    d.learn_route(&[0, 1, 2, 3], 0);
    for t in 0..4 {
        send_from_0(&mut d, t);
    }
    let err = DsrOption::RouteError {
        error_type: ERROR_UNKNOWN_FLOW,
        salvage: 0,
        source: 2,
        destination: 0,
        type_specific: vec![0, 0, 0, 3, 0, 1],
    };
    let out = run(&mut d, |d, c| {
        d.on_control(4, 1, control(2, 0, 64, vec![err, sr_opt(&[1], 0)]), c)
    });
    assert!(out.is_empty(), "{out:?}");
    for t in 5..8 {
        assert_eq!(send_from_0(&mut d, t).0, Header::Establishes(1, vec![1, 2]));
    }
    assert_eq!(send_from_0(&mut d, 8).0, Header::None);
    assert_eq!(d.route_to(3, 8), Some(vec![0, 1, 2, 3]), "no link removed");
}

#[test]
fn ns2_a_default_flow_unknown_error_changes_nothing_at_the_source() {
    // ns-2.35's `processUnknownFlowError` looks the default flow up by an
    // id it never sets and finds none: the source goes on without a header.
    let err = DsrOption::RouteError {
        error_type: ERROR_DEFAULT_FLOW_UNKNOWN,
        salvage: 0,
        source: 2,
        destination: 0,
        type_specific: vec![0, 0, 0, 3],
    };
    let headers = |cfg: DsrConfig| {
        let mut d = Dsr::new(0, cfg);
        d.learn_route(&[0, 1, 2, 3], 0);
        for t in 0..4 {
            send_from_0(&mut d, t);
        }
        let e = err.clone();
        let out = run(&mut d, |d, c| {
            d.on_control(4, 1, control(2, 0, 64, vec![e, sr_opt(&[1], 0)]), c)
        });
        assert!(out.is_empty(), "{out:?}");
        (5..9).map(|t| send_from_0(&mut d, t).0).collect::<Vec<_>>()
    };
    assert_eq!(headers(DsrConfig::ns2()), vec![Header::None; 4]);
    let est = Header::Establishes(1, vec![1, 2]);
    assert_eq!(
        headers(DsrConfig {
            default_flow_errors_ignored: false,
            ..DsrConfig::ns2()
        }),
        vec![est.clone(), est.clone(), est, Header::None],
        "without the rule the default flow is advertised again"
    );
}

#[test]
fn a_relayed_flow_packet_that_fails_is_reported_along_the_flows_route() {
    let mut d = relay_with_flow();
    d.learn_route(&[1, 4, 3], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(1, 2, Some(by_flow(None, 31)), c)
    });
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (1, 0, 0, "rerr"));
    assert_eq!(parse(e).options[0], rerr_opt(1, 2, 0));
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    let sr = SourceRoute::of(&parse(s[0].0)).unwrap();
    assert_eq!(
        (sr.salvage, sr.addresses.clone(), s[0].1),
        (1, vec![1, 4], 4)
    );
}

#[test]
fn a_failed_default_flow_packet_of_a_flow_the_relay_does_not_know_counts_as_unknown() {
    // Relay 1 knows no flow of 0's, yet its MAC fails on a default-flow
    // packet from 0 (ns-2.35's `xmitFlowFailed` then calls
    // `sendUnknownFlow`, which writes `SFErr`).
    let mut d = dsr_ns2(1);
    Rc::make_mut(&mut d.cfg).flow_errors_by_flow = false; // the error with its route, to read it
    d.learn_route(&[1, 0], 0);
    d.learn_route(&[1, 4, 3], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(1, 2, Some(by_flow(None, 31)), c)
    });
    let (e, ..) = originated(&out)[0];
    assert!(matches!(
        &parse(e).options[0],
        DsrOption::RouteError {
            error_type: ERROR_DEFAULT_FLOW_UNKNOWN,
            ..
        }
    ));
    assert_eq!(sent(&out).len(), 1, "salvaged: {out:?}");
    assert_eq!(d.flow_state_counts().unknown, 1);
    // A relay that knows the flow reports the break, not an unknown flow.
    let mut d = relay_with_flow();
    d.learn_route(&[1, 4, 3], 0);
    run(&mut d, |d, c| {
        d.on_link_failure(1, 2, Some(by_flow(None, 31)), c)
    });
    assert_eq!(d.flow_state_counts().unknown, 0);
}

#[test]
fn queued_flow_packets_for_a_broken_link_are_salvaged_without_an_error() {
    let mut d = relay_with_flow();
    d.learn_route(&[1, 4, 3], 0);
    let out = run(&mut d, |d, c| d.on_reroute(1, by_flow(Some(1), 31), 2, c));
    assert!(originated(&out).is_empty());
    let s = sent(&out);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].1, 4);
    // The source's own queued packet is routed again.
    let mut src = dsr_ns2(0);
    src.learn_route(&[0, 5, 3], 0);
    let out = run(&mut src, |d, c| d.on_reroute(1, by_flow(Some(1), 32), 1, c));
    let s = sent(&out);
    assert_eq!(
        (header(s[0].0), s[0].1),
        (Header::Establishes(1, vec![5]), 5)
    );
}

#[test]
fn ns2_a_relayed_packet_queued_for_a_broken_link_is_salvaged_without_an_error() {
    // 0 -> 1 -> 2 -> 3 -> 4 -> 5: the queue at 2 gives back a relayed
    // packet for 3 after 2 -> 3 broke. ns-2.35's `xmitFailed` hands it to
    // `undeliverablePkt`, which salvages it and reports nothing: the
    // failed packet's error is the break's only one.
    let queued = || routed(0, 5, &[1, 2, 3, 4], 2, 0);
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_reroute(10, queued(), 3, c));
    assert!(originated(&out).is_empty(), "{out:?}");
    let s = sent(&out);
    assert_eq!(s.len(), 1, "{out:?}");
    let sr = SourceRoute::of(&parse(s[0].0)).unwrap();
    assert_eq!(
        (s[0].1, s[0].0.src, sr.salvage, sr.addresses),
        (7, 0, 1, vec![2, 7])
    );
    // With no cached route it waits one cycle in the send buffer.
    let mut d = dsr_ns2(2);
    let out = run(&mut d, |d, c| d.on_reroute(10, queued(), 3, c));
    assert!(originated(&out).is_empty() && sent(&out).is_empty());
    assert_eq!(d.buffered(), 1);
    // A packet salvaged as often as allowed is dropped, still quietly.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let spent = routed(0, 5, &[2, 3, 4], 2, 15);
    let uid = spent.uid;
    let out = run(&mut d, |d, c| d.on_reroute(10, spent, 3, c));
    assert!(originated(&out).is_empty() && sent(&out).is_empty());
    assert_eq!(dropped_salvaged(&out), vec![(uid, DropReason::NoRoute)]);
    // The RFC preset handles it as the failed packet: a route error to
    // the route's first node, then the salvage.
    let mut d = dsr(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_reroute(10, queued(), 3, c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    assert_eq!((o[0].0.dst, o[0].1, o[0].2), (0, 1, "rerr"));
    assert_eq!(sent(&out).len(), 1);
}

/// The `ns2` preset without `returned_packets_tell_salvager`.
fn ns2_without_the_salvager_rule(me: NodeId) -> Dsr {
    let mut cfg = DsrConfig::ns2();
    cfg.returned_packets_tell_salvager = false;
    Dsr::new(me, cfg)
}

/// Route error `o` with a salvage count of 1.
fn salvaged_once(mut o: DsrOption) -> DsrOption {
    if let DsrOption::RouteError { salvage, .. } = &mut o {
        *salvage = 1;
    }
    o
}

#[test]
fn ns2_an_own_packet_salvaged_back_through_its_source_tells_the_salvager() {
    // 2's packet for 5, salvaged by 6 on its route 6 -> 2 -> 3 -> 5 (6
    // first, salvage count 1), back at 2, which forwarded it to 3; the MAC
    // gives up on 3. ns-2.35's `xmitFailed` tells the source route's first
    // node, 6, though the packet is 2's own; then the packet goes again as
    // 2's own.
    let back = || routed(2, 5, &[6, 2, 3], 1, 1);
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 3, Some(back()), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (2, 6, 6, "rerr"));
    // The error keeps the packet's salvage count, as a relay's does.
    assert_eq!(parse(e).options[0], salvaged_once(rerr_opt(2, 3, 6)));
    let s = sent(&out);
    assert_eq!(s.len(), 1, "{out:?}");
    assert_eq!((s[0].0.src, s[0].1), (2, 7));
    assert_eq!(SourceRoute::of(&parse(s[0].0)).unwrap().salvage, 0);
    // A packet whose route starts at 2 tells no one.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let fresh = routed(2, 5, &[3, 4], 2, 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 3, Some(fresh), c));
    assert!(originated(&out).is_empty(), "{out:?}");
    assert_eq!(sent(&out).len(), 1);
    // Taken back from the queue for the broken link, it goes again quietly
    // (ns-2.35's `undeliverablePkt`): only the failed packet is reported.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_reroute(0, back(), 3, c));
    assert!(originated(&out).is_empty(), "{out:?}");
    assert_eq!(sent(&out).len(), 1);
    // Nor does the RFC preset, for any packet of its own.
    let mut d = dsr(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 3, Some(back()), c));
    assert!(originated(&out).is_empty(), "{out:?}");
    assert_eq!(sent(&out).len(), 1);
    // With the rule off, the ns2 preset neither.
    let mut d = ns2_without_the_salvager_rule(2);
    d.learn_route(&[2, 7, 5], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 3, Some(back()), c));
    assert!(originated(&out).is_empty(), "{out:?}");
}

/// [`run_traced`] (traced), then what the world does with each
/// [`RoutingAction::Create`]: a uid (from 1000 on) and the packet back
/// through `route_output` at `now`. The actions of both, Creates left out.
fn run_world(
    d: &mut Dsr,
    now: SimTime,
    f: impl FnOnce(&mut Dsr, &mut RoutingCtx),
) -> Vec<RoutingAction> {
    let mut out = run_traced(d, true, f);
    let mut all = Vec::new();
    let mut uid = 1000;
    while !out.is_empty() {
        let mut next = Vec::new();
        for a in out {
            match a {
                RoutingAction::Create {
                    mut packet,
                    keep_uid,
                } => {
                    if !keep_uid {
                        packet.uid = uid;
                        uid += 1;
                    }
                    next.extend(run_traced(d, true, |d, c| d.route_output(now, packet, c)));
                }
                a => all.push(a),
            }
        }
        out = next;
    }
    all
}

/// An unknown-flow error's options, read: the flow it names (Destination
/// and Flow ID), its source route's addresses, whether it has a Timeout.
fn error_header(p: &Packet) -> (Option<u16>, Option<Vec<NodeId>>, bool) {
    let r = parse(p);
    assert!(flow_errors_only(&r), "{r:?}");
    let timeout = r
        .options
        .iter()
        .any(|o| matches!(o, DsrOption::Timeout { .. }));
    (
        named_flow(&r),
        SourceRoute::of(&r).map(|sr| sr.addresses),
        timeout,
    )
}

/// Relay 1 (routes 1-4-3 and back 1-5-0) gets a packet of 0's flow 5 to
/// 3, which it does not know, at `t`: the actions, the created error
/// already sent on by flow.
fn unknown_flow_at_1(d: &mut Dsr, t: SimTime) -> Vec<RoutingAction> {
    run_world(d, t, |d, c| d.route_output(t, by_flow(Some(5), 31), c))
}

fn relay_1_without_flows() -> Dsr {
    let mut d = dsr_ns2(1);
    d.learn_route(&[1, 4, 3], 0);
    d.learn_route(&[1, 5, 0], 0);
    d
}

#[test]
fn ns2_unknown_flow_errors_go_by_flow_as_ns2s_do() {
    let mut d = relay_1_without_flows();
    let mut errors = Vec::new();
    let mut lines = Vec::new();
    for t in 0..4 {
        let out = unknown_flow_at_1(&mut d, t);
        assert_eq!(sent(&out).len(), 1, "the packet is salvaged: {out:?}");
        assert!(originated(&out).is_empty(), "{out:?}");
        let r = resent(&out);
        assert_eq!(r.len(), 1, "{out:?}");
        let (e, nh, msg, forwarded) = r[0];
        assert_eq!((e.src, e.dst, nh, msg, forwarded), (1, 0, 5, "rerr", false));
        errors.push((error_header(e), e.size_bytes));
        lines.extend(notes(&out).iter().map(|l| l.to_string()));
    }
    // A flow of its own to 0: the route, a Timeout and the flow's id with
    // the first three errors (ns-2.35's sizes: 4 fixed, 4 per hop, 14 for
    // the error, 4 for the timeout, 4 for the flow header, rounded up to
    // 36), then the error alone on the default flow (4 + 14, 20).
    let est = ((Some(1), Some(vec![5]), true), 20 + 36);
    assert_eq!(
        errors,
        vec![
            est.clone(),
            est.clone(),
            est,
            ((None, None, false), 20 + 20)
        ]
    );
    assert_eq!(
        lines,
        [
            "SFErr 0.00000 _1_ 0 -> 3 : 5",
            "SFESTs 0.000000000 _1_ 1000 [1 -> 0] 1(1) to 5 [1 |5 0 ]",
            "SFErr 0.00000 _1_ 0 -> 3 : 5",
            "SFESTs 0.000000001 _1_ 1000 [1 -> 0] 1(1) to 5 [1 |5 0 ]",
            "SFErr 0.00000 _1_ 0 -> 3 : 5",
            "SFESTs 0.000000002 _1_ 1000 [1 -> 0] 1(1) to 5 [1 |5 0 ]",
            "SFErr 0.00000 _1_ 0 -> 3 : 5",
            "SFs 0.000000003 _1_ 1000 [1 -> 0] 1(0) to 5 ",
        ]
    );
    let n = d.flow_state_counts();
    assert_eq!(
        (n.opened, n.established, n.by_flow, n.unknown),
        (1, 3, 1, 4)
    );
    // Without the rule each error carries its route alone.
    let mut d = relay_1_without_flows();
    Rc::make_mut(&mut d.cfg).flow_errors_by_flow = false;
    for t in 0..4 {
        let out = unknown_flow_at_1(&mut d, t);
        let o = originated(&out);
        assert_eq!(o.len(), 1, "{out:?}");
        assert_eq!(error_header(o[0].0), (None, Some(vec![5]), false));
    }
    assert_eq!(d.flow_state_counts().opened, 0);
}

/// Relay 5 after it passed on node 1's first three errors to 0, each
/// advertising 1's flow 1-5-0; and node 1 with its fourth error, bare.
fn relay_5_with_an_error_flow() -> (Dsr, Dsr, Packet) {
    let mut src = relay_1_without_flows();
    let mut d = dsr_ns2(5);
    for t in 0..3 {
        let out = unknown_flow_at_1(&mut src, t);
        let e = resent(&out)[0].0.clone();
        let out = run_traced(&mut d, true, |d, c| d.on_control(t, 1, e.clone(), c));
        let o = originated(&out);
        assert_eq!(o.len(), 1, "{out:?}");
        let (p, nh, msg, forwarded) = o[0];
        assert_eq!(
            (p.src, p.dst, nh, msg, forwarded, p.uid),
            (1, 0, 0, "rerr", true, e.uid)
        );
        assert_eq!(error_header(p), (Some(1), Some(vec![5]), true));
        assert!(notes(&out).is_empty(), "passed on by its route: {out:?}");
    }
    let out = unknown_flow_at_1(&mut src, 3);
    let bare = resent(&out)[0].0.clone();
    (d, src, bare)
}

#[test]
fn a_relay_learns_an_error_flow_from_its_first_packets_and_forwards_the_rest_by_it() {
    let (mut d, _, bare) = relay_5_with_an_error_flow();
    let out = run_traced(&mut d, true, |d, c| d.on_control(3, 1, bare.clone(), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = o[0];
    assert_eq!((p.dst, nh, msg, forwarded), (0, 0, "rerr", true));
    assert_eq!((p.uid, p.size_bytes), (bare.uid, bare.size_bytes));
    assert_eq!(error_header(p), (None, None, false));
    assert_eq!(notes(&out), ["SFf 0.000000003 _5_ 1000 [1 -> 0] 1 to 0"]);
    assert_eq!(d.flow_state_counts().forwarded, 1);
    // A flow it does not know: node 1 hears of it, and the error is
    // salvaged on a cached route (the link to 0 it learned from the
    // routes it passed on).
    d.learn_route(&[5, 1], 0);
    // The bare error from `src`, naming a flow 9 relay 5 never learned.
    let naming_flow_9 = |src: NodeId| {
        let mut r = parse(&bare);
        r.options.push(DsrOption::DestFlowId {
            flow_id: 9,
            destination: 0,
        });
        control(src, 0, bare.ttl, r.options)
    };
    let out = run(&mut d, |d, c| d.on_control(4, 1, naming_flow_9(1), c));
    assert_eq!(d.flow_state_counts().unknown, 1);
    let c = created(&out);
    assert_eq!(c.len(), 1, "{out:?}");
    assert_eq!((c[0].src, c[0].dst), (5, 1));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let sr = SourceRoute::of(&parse(o[0].0)).unwrap();
    assert_eq!((sr.salvage, sr.addresses, o[0].1), (1, vec![5], 0));
    // Its own error come back to it: no error about it (ns-2.35's
    // `sendUnknownFlow` lets a node's own packet go).
    let out = run(&mut d, |d, c| d.on_control(5, 1, naming_flow_9(5), c));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(d.flow_state_counts().unknown, 1);
}

#[test]
fn an_error_sent_by_flow_that_fails_is_reported_along_the_flows_route_or_sent_afresh() {
    let (mut d, mut src, bare) = relay_5_with_an_error_flow();
    // Relay 5's MAC fails on the bare error (ns-2's `xmitFlowFailed`): the
    // route comes from its flow table, node 1 hears of the break, and the
    // error is salvaged.
    d.learn_route(&[5, 6, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(3, 0, Some(bare.clone()), c)
    });
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (5, 1, 1, "rerr"));
    assert_eq!(parse(e).options[0], rerr_opt(5, 0, 1));
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!((p.uid, nh, msg, forwarded), (bare.uid, 6, "rerr", true));
    let sr = SourceRoute::of(&parse(p)).unwrap();
    assert_eq!((sr.salvage, sr.addresses), (1, vec![5, 6]));
    assert_eq!(named_flow(&parse(p)), None, "the flow's options are off");
    // A relay without the flow loses it (ns-2.35's `xmitFlowFailed` returns).
    let mut fresh = dsr_ns2(5);
    fresh.learn_route(&[5, 6, 0], 0);
    let out = run(&mut fresh, |d, c| {
        d.on_link_failure(3, 0, Some(bare.clone()), c)
    });
    assert_eq!(dropped(&out), [DropReason::RetryLimit]);
    // Node 1's own fails on its first link: it goes again, afresh, by a
    // new flow on its other route.
    src.learn_route(&[1, 7, 0], 0);
    let out = run(&mut src, |s, c| {
        s.on_link_failure(3, 5, Some(bare.clone()), c)
    });
    assert!(originated(&out).is_empty(), "no error to itself: {out:?}");
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!((p.uid, nh, msg, forwarded), (bare.uid, 7, "rerr", true));
    assert_eq!(error_header(p), (Some(3), Some(vec![7]), true));
    // And one the queue held for the broken link too.
    let out = run(&mut src, |s, c| s.on_reroute(3, bare.clone(), 5, c));
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    assert_eq!(
        (r[0].1, error_header(r[0].0)),
        (7, (Some(3), Some(vec![7]), true))
    );
}

// ---------------------------------------------------------------------
// ns-2's handling of failed control packets (with its cache)
// ---------------------------------------------------------------------

/// The control packets sent again with their uid: (packet, next hop,
/// message, counted as forwarded).
fn resent(out: &[RoutingAction]) -> Vec<(&Packet, NodeId, &'static str, bool)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Resend {
                packet,
                next_hop,
                message,
                forwarded,
            } => Some((packet, *next_hop, *message, *forwarded)),
            _ => None,
        })
        .collect()
}

/// A route error from 4 to 0 about 4 -> 5, on its way 4-3-2-1-0, at relay 2.
fn rerr_4_to_0() -> Packet {
    control(4, 0, 64, vec![rerr_opt(4, 5, 0), sr_opt(&[3, 2, 1], 1)])
}

#[test]
fn ns2_an_own_route_error_salvaged_back_through_its_source_tells_the_salvager_nested() {
    // 2's route error for 0 (about 2 -> 9), salvaged by 6 along 6 -> 2 ->
    // 1 -> 0, back at 2, which forwarded it to 1; the MAC gives up on 1.
    let back = || {
        let sr = DsrOption::SourceRoute {
            first_hop_external: false,
            last_hop_external: false,
            salvage: 1,
            segments_left: 1,
            addresses: vec![6, 2, 1],
        };
        control(2, 0, 64, vec![rerr_opt(2, 9, 0), sr])
    };
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(back()), c));
    // 6 hears of 2 -> 1 in an error that carries 2's own first.
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (2, 6, 6, "rerr"));
    assert_eq!(
        parse(e).options[..2],
        [rerr_opt(2, 9, 0), salvaged_once(rerr_opt(2, 1, 6))]
    );
    // The error itself goes again on 2's route to 0.
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    assert_eq!((r[0].0.src, r[0].0.dst, r[0].1), (2, 0, 7));
    // With the rule off, no one hears of it.
    let mut d = ns2_without_the_salvager_rule(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(back()), c));
    assert!(originated(&out).is_empty(), "{out:?}");
    assert_eq!(resent(&out).len(), 1);
}

#[test]
fn ns2_a_failed_route_error_is_salvaged_and_reported_nested() {
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(rerr_4_to_0()), c)
    });
    // Salvaged on 2's route to 0: 2 first, salvage count 1, counted as a
    // forwarded route error; nothing dropped.
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!((p.src, p.dst, nh, msg, forwarded), (4, 0, 7, "rerr", true));
    let repr = parse(p);
    assert_eq!(repr.options[0], rerr_opt(4, 5, 0));
    let sr = SourceRoute::of(&repr).unwrap();
    assert_eq!(
        (sr.salvage, sr.segments_left, sr.addresses.clone()),
        (1, 1, vec![2, 7])
    );
    assert_eq!(p.size_bytes, 20 + repr.ns2_len() as u32);
    assert!(dropped(&out).is_empty());
    // 4 hears of 2 -> 1 in an error that carries its own first.
    let o = originated(&out);
    assert_eq!(o.len(), 1);
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (2, 4, 3, "rerr"));
    let opts = parse(e).options;
    assert_eq!(opts[..2], [rerr_opt(4, 5, 0), rerr_opt(2, 1, 4)]);
    // Without a route to salvage on, the error waits in the send buffer
    // (ns-2's `undeliverablePkt`), as another node's data packet does.
    let mut d = dsr_ns2(2);
    let mut held = rerr_4_to_0();
    held.uid = 77;
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(held), c));
    assert!(dropped(&out).is_empty(), "{out:?}");
    assert_eq!(originated(&out).len(), 1);
    assert_eq!(d.buffered(), 1);
    // Once 2 learns a route to 0, the buffer's next check salvages it, with
    // its uid, as a forwarded route error.
    d.learn_route(&[2, 6, 0], 5 * NS_PER_MS);
    let acts = advance(&mut d, 100 * NS_PER_MS);
    let out: Vec<RoutingAction> = acts.into_iter().map(|(_, a)| a).collect();
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!((p.uid, nh, msg, forwarded), (77, 6, "rerr", true));
    let sr = SourceRoute::of(&parse(p)).unwrap();
    assert_eq!((sr.salvage, sr.addresses.clone()), (1, vec![2, 6]));
    assert_eq!(d.buffered(), 0);
    // The RFC preset only drops it.
    let mut rfc = dsr(2);
    rfc.learn_route(&[2, 7, 0], 0);
    let out = run(&mut rfc, |d, c| {
        d.on_link_failure(0, 1, Some(rerr_4_to_0()), c)
    });
    assert_eq!(dropped(&out), vec![DropReason::RetryLimit]);
    assert!(resent(&out).is_empty() && originated(&out).is_empty());
}

/// [`rerr_4_to_0`] with the salvage count `count` in its route error: the
/// count of the packet the error came from.
fn rerr_4_to_0_carrying(count: u8) -> Packet {
    let mut e = rerr_opt(4, 5, 0);
    if let DsrOption::RouteError { salvage, .. } = &mut e {
        *salvage = count;
    }
    control(4, 0, 64, vec![e, sr_opt(&[3, 2, 1], 1)])
}

fn last_error_salvage(p: &Packet) -> u8 {
    parse(p)
        .options
        .iter()
        .rev()
        .find_map(|o| match o {
            DsrOption::RouteError { salvage, .. } => Some(*salvage),
            _ => None,
        })
        .expect("a route error")
}

#[test]
fn ns2_a_route_error_keeps_the_salvage_count_of_the_packet_it_came_from() {
    // ns-2.35 turns the failed packet itself into the route error, its
    // header's salvage count kept: an error about a packet salvaged 14
    // times may be salvaged once more, and the error about the error
    // carries the 14 on.
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(rerr_4_to_0_carrying(14)), c)
    });
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let sr = SourceRoute::of(&parse(r[0].0)).unwrap();
    assert_eq!((sr.salvage, sr.addresses.clone()), (15, vec![2, 7]));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    assert_eq!((o[0].0.src, o[0].0.dst), (2, 4));
    assert_eq!(last_error_salvage(o[0].0), 14);
    // One salvaged 15 times is not salvaged again: dropped, as ns-2.35's
    // `undeliverablePkt` drops it (`DROP_RTR_SALVAGE`).
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(rerr_4_to_0_carrying(15)), c)
    });
    assert!(resent(&out).is_empty(), "{out:?}");
    assert_eq!(dropped(&out), vec![]);
    assert_eq!(dropped_salvaged(&out), vec![(0, DropReason::RetryLimit)]);
    // Without the rule each error starts afresh: salvaged once.
    let mut cfg = DsrConfig::ns2();
    cfg.errors_keep_salvage_count = false;
    let mut d = Dsr::new(2, cfg);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| {
        d.on_link_failure(0, 1, Some(rerr_4_to_0_carrying(15)), c)
    });
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    assert_eq!(SourceRoute::of(&parse(r[0].0)).unwrap().salvage, 1);
    assert_eq!(last_error_salvage(originated(&out)[0].0), 0);
}

#[test]
fn ns2_an_unwrapped_route_error_keeps_the_salvage_count_of_the_error_it_came_in() {
    // ns-2.35's `processBrokenRouteError` sends a copy of the error it
    // unwraps: the copy goes on with the received error's count (here its
    // route's, salvaged 3 times), not from 0.
    let mut sr = sr_opt(&[3], 0);
    if let DsrOption::SourceRoute { salvage, .. } = &mut sr {
        *salvage = 3;
    }
    let nested = control(2, 4, 64, vec![rerr_opt(4, 5, 0), rerr_opt(2, 1, 4), sr]);
    let mut d = dsr_ns2(4);
    d.learn_route(&[4, 8, 0], 0);
    let out = run(&mut d, |d, c| d.on_control(1, 3, nested.clone(), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    assert_eq!((o[0].0.src, o[0].0.dst), (4, 0));
    assert_eq!(last_error_salvage(o[0].0), 3);
    let mut cfg = DsrConfig::ns2();
    cfg.errors_keep_salvage_count = false;
    let mut d = Dsr::new(4, cfg);
    d.learn_route(&[4, 8, 0], 0);
    let out = run(&mut d, |d, c| d.on_control(1, 3, nested.clone(), c));
    assert_eq!(last_error_salvage(originated(&out)[0].0), 0);
}

/// Node 2's own reply to 0 (about 0-5-2), on its way 2-1-0.
fn own_reply_2_to_0() -> Packet {
    own_reply_2_to_0_about(vec![5, 2])
}

/// Node 2's own reply to 0 about the route 0, `route`, on its way 2-1-0.
fn own_reply_2_to_0_about(route: Vec<NodeId>) -> Packet {
    control(
        2,
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: route,
            },
            sr_opt(&[1], 1),
        ],
    )
}

#[test]
fn ns2_a_failed_reply_is_salvaged_unless_its_route_holds_the_broken_link() {
    // 3's reply to 0 about 0-1-2-3 fails at 2 on 2 -> 1: the reply itself
    // names that link, so it is dropped (the existing test above); one
    // that fails on a link it does not name is salvaged.
    let reply = control(
        3,
        0,
        64,
        vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![5, 6, 3],
            },
            sr_opt(&[2, 1], 1),
        ],
    );
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(reply), c));
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    assert_eq!((r[0].1, r[0].2), (7, "rrep"));
    // This node's own reply goes again along its cache, from the start.
    let own = own_reply_2_to_0();
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(own), c));
    assert!(originated(&out).is_empty(), "no error to itself");
    let r = resent(&out);
    let sr = SourceRoute::of(&parse(r[0].0)).unwrap();
    assert_eq!((sr.salvage, sr.addresses.clone(), r[0].1), (0, vec![7], 7));
    // Even when its route holds the broken link: ns-2.35 routes its own
    // packets again without the check.
    let own = own_reply_2_to_0_about(vec![1, 2]);
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(own), c));
    assert!(dropped(&out).is_empty(), "{out:?}");
    let r = resent(&out);
    assert_eq!((r.len(), r[0].1, r[0].2), (1, 7, "rrep"));
    let reply = parse(r[0].0);
    assert!(matches!(
        &reply.options[0],
        DsrOption::RouteReply { addresses, .. } if addresses == &vec![1, 2]
    ));
}

#[test]
fn ns2_overhearing_a_nested_error_meant_for_it_passes_the_inner_error_on_twice() {
    // 2 tells 4, through 3, that 2 -> 1 broke while carrying 4's error for
    // 0. Node 4 overhears 2 send it to 3 (ns-2.35's tap hands it to
    // processBrokenRouteError): 4 passes its own error on to 0 at once,
    // and again when the packet reaches it.
    let mut nested = control(
        2,
        4,
        64,
        vec![rerr_opt(4, 5, 0), rerr_opt(2, 1, 4), sr_opt(&[3], 1)],
    );
    nested.uid = 77;
    let mut d = dsr_ns2(4);
    assert!(d.cfg.tap_unwraps_errors && d.cfg.tap_once);
    d.learn_route(&[4, 8, 0], 0);
    d.learn_route(&[4, 5, 9], 0);
    let out = overhear(&mut d, 1, 2, &nested);
    assert_eq!(d.route_to(9, 1), None, "4 -> 5 gone");
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (4, 0, 8, "rerr"));
    assert_eq!(parse(e).options[0], rerr_opt(4, 5, 0));
    // A copy of the nested error: it keeps its uid, as ns-2.35's
    // Packet::copy does.
    assert_eq!(e.uid, 77);
    assert!(out.iter().any(|a| matches!(
        a,
        RoutingAction::Originate {
            keep_uid: true,
            forwarded: false,
            ..
        }
    )));
    // Heard again (a retransmission): the tap has seen its uid.
    assert!(overhear(&mut d, 2, 2, &nested).is_empty());
    // It arrives: passed on a second time.
    let out = run(&mut d, |d, c| d.on_control(3, 3, nested.clone(), c));
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    assert_eq!((o[0].0.src, o[0].0.dst, o[0].1), (4, 0, 8));
    // Without ns-2.35's tap rule, overhearing it only cleans the cache.
    let mut d = dsr_ns2(4);
    Rc::make_mut(&mut d.cfg).tap_unwraps_errors = false;
    d.learn_route(&[4, 8, 0], 0);
    d.learn_route(&[4, 5, 9], 0);
    assert!(overhear(&mut d, 1, 2, &nested).is_empty());
    assert_eq!(d.route_to(9, 1), None);
    // The broken links leave the cache first, as in ns-2.35's
    // processBrokenRouteError: 4's only route to 0 runs over 2 -> 1, so the
    // inner error waits in the send buffer instead of taking it.
    let mut d = dsr_ns2(4);
    d.learn_route(&[4, 3, 2, 1, 0], 0);
    let out = overhear(&mut d, 1, 2, &nested);
    assert!(originated(&out).is_empty(), "{out:?}");
    let c = created(&out);
    assert_eq!((c.len(), c[0].dst, c[0].uid), (1, 0, 77), "{out:?}");
    // An error whose outer entry names another node is only noticed.
    let mut d = dsr_ns2(6);
    d.learn_route(&[6, 8, 0], 0);
    assert!(overhear(&mut d, 1, 2, &nested).is_empty());
}

#[test]
fn ns2_an_overheard_route_error_for_this_node_is_held_for_its_next_request() {
    // 4 overhears an error for itself (one link, not nested): it holds it
    // for its next request, as one it received (ns-2.35's
    // processBrokenRouteError sets route_error_held from the tap too).
    let mut err = control(2, 4, 64, vec![rerr_opt(2, 1, 4), sr_opt(&[3], 1)]);
    err.uid = 78;
    let mut d = dsr_ns2(4);
    assert!(overhear(&mut d, 1, 2, &err).is_empty());
    assert_eq!(d.held_error, Some((1, rerr_opt(2, 1, 4))));
    let mut d = dsr_ns2(4);
    Rc::make_mut(&mut d.cfg).tap_unwraps_errors = false;
    overhear(&mut d, 1, 2, &err);
    assert_eq!(d.held_error, None);
}

#[test]
fn ns2_the_tap_looks_at_each_packet_once() {
    // 3 overhears 0's packet as 1 sends it to 2 and replies to 0 that 3 is
    // nearer; heard again after the hold-down, the same packet gets no
    // second reply; another packet on the same route does.
    let mut d = dsr_ns2(3);
    let mut p = from_1_to_2();
    p.uid = 5;
    assert_eq!(originated(&overhear(&mut d, 0, 1, &p)).len(), 1);
    assert!(overhear(&mut d, 2 * NS_PER_S, 1, &p).is_empty());
    let mut q = p.clone();
    q.uid = 5 + TAP_SLOTS as u64;
    assert_eq!(originated(&overhear(&mut d, 2 * NS_PER_S, 1, &q)).len(), 1);
    // q took p's slot: p is looked at again.
    assert_eq!(originated(&overhear(&mut d, 4 * NS_PER_S, 1, &p)).len(), 1);
    // Without the rule the same packet is looked at every time.
    let mut d = dsr_ns2(3);
    Rc::make_mut(&mut d.cfg).tap_once = false;
    assert_eq!(originated(&overhear(&mut d, 0, 1, &p)).len(), 1);
    assert_eq!(originated(&overhear(&mut d, 2 * NS_PER_S, 1, &p)).len(), 1);
}

#[test]
fn ns2_the_tap_keeps_no_slot_for_a_packet_sent_by_flow() {
    // 7 overhears 0's packet (uid 5) sent by flow, with the flow header
    // and then with none (the default flow), and later the same packet
    // salvaged by 1 along 1-2-3-4: the salvaged copy is new to the tap,
    // whose table never took the flow packet's uid (ns-2.35's `tap`
    // returns for a packet with no source route before its table).
    let mut d = dsr_ns2(7);
    Rc::make_mut(&mut d.cfg).gratuitous_replies = false;
    let mut flow = by_flow(Some(1), 31);
    flow.uid = 5;
    let mut bare = by_flow(None, 31);
    bare.uid = 5;
    for p in [&flow, &bare] {
        assert!(overhear(&mut d, 0, 0, p).is_empty());
    }
    assert_eq!(d.route_to(4, 0), None);
    let mut salvaged = routed(0, 4, &[1, 2, 3], 2, 1);
    salvaged.uid = 5;
    assert!(overhear(&mut d, NS_PER_S, 1, &salvaged).is_empty());
    assert_eq!(d.route_to(4, 0), Some(vec![7, 1, 2, 3, 4]));
}

#[test]
fn ns2_a_received_route_request_takes_its_slot_in_the_tap_table() {
    // 7 overhears 0's packet (uid 5) from 1, then the same packet from 2,
    // one hop on: the second is skipped as seen. A route request (uid
    // 5 + TAP_SLOTS, the same slot) received in between takes the slot,
    // as ns-2.35's MAC hands broadcast frames to the tap too, and the
    // packet from 2 is looked at again: 7 learns the shorter route.
    for request in [false, true] {
        let mut d = dsr_ns2(7);
        Rc::make_mut(&mut d.cfg).gratuitous_replies = false;
        let mut at_1 = routed(0, 4, &[1, 2, 3], 2, 0);
        at_1.uid = 5;
        assert!(overhear(&mut d, 0, 1, &at_1).is_empty());
        assert_eq!(d.route_to(4, 0), Some(vec![7, 1, 2, 3, 4]));
        if request {
            let mut q = rreq(9, 16, 1, 8, &[9]);
            q.uid = 5 + TAP_SLOTS as u64;
            run(&mut d, |d, c| d.on_control(1, 9, q, c));
        }
        // 7's own request takes no slot.
        let mut own = rreq(7, 16, 2, 8, &[7]);
        own.uid = 5 + 2 * TAP_SLOTS as u64;
        run(&mut d, |d, c| d.on_control(2, 9, own, c));
        let mut at_2 = routed(0, 4, &[1, 2, 3], 1, 0);
        at_2.uid = 5;
        assert!(overhear(&mut d, 3, 2, &at_2).is_empty());
        let want = if request {
            vec![7, 2, 3, 4]
        } else {
            vec![7, 1, 2, 3, 4]
        };
        assert_eq!(d.route_to(4, 3), Some(want), "request {request}");
    }
}

#[test]
fn ns2_a_nested_route_error_is_passed_on_to_the_inner_node() {
    // 2 tells 4 that 2 -> 1 broke while carrying 4's error for 0; 4 then
    // sends 0 its own error along its cache.
    let nested = control(
        2,
        4,
        64,
        vec![rerr_opt(4, 5, 0), rerr_opt(2, 1, 4), sr_opt(&[3], 0)],
    );
    let mut d = dsr_ns2(4);
    d.learn_route(&[4, 8, 0], 0);
    d.learn_route(&[4, 5, 9], 0);
    d.learn_route(&[4, 3, 2, 1, 6], 0);
    let out = run(&mut d, |d, c| d.on_control(1, 3, nested.clone(), c));
    assert_eq!(d.route_to(9, 1), None, "4 -> 5 gone");
    assert_eq!(d.route_to(6, 1), None, "2 -> 1 gone");
    let o = originated(&out);
    assert_eq!(o.len(), 1, "{out:?}");
    let (e, nh, msg, _) = o[0];
    assert_eq!((e.src, e.dst, nh, msg), (4, 0, 8, "rerr"));
    let r = parse(e);
    assert_eq!(r.options[0], rerr_opt(4, 5, 0));
    assert_eq!(
        r.options
            .iter()
            .filter(|o| broken_link(o).is_some())
            .count(),
        1
    );
    // With no route to 0 the inner error is created without one, to wait
    // for a route in the send buffer.
    let mut d = dsr_ns2(4);
    let mut nested = nested;
    nested.uid = 31;
    let out = run(&mut d, |d, c| d.on_control(1, 3, nested.clone(), c));
    assert!(originated(&out).is_empty(), "{out:?}");
    let c = created(&out);
    assert_eq!(c.len(), 1, "{out:?}");
    assert_eq!((c[0].src, c[0].dst, c[0].uid), (4, 0, 31));
    assert!(matches!(
        out[0],
        RoutingAction::Create { keep_uid: true, .. }
    ));
    // The RFC preset makes a new packet.
    let mut d = dsr(4);
    let out = run(&mut d, |d, c| d.on_control(1, 3, nested.clone(), c));
    assert!(matches!(
        out[..],
        [
            RoutingAction::Create {
                keep_uid: false,
                ..
            },
            ..
        ]
    ));
    let r = parse(c[0]);
    assert_eq!(r.options, vec![rerr_opt(4, 5, 0)]);
    assert_eq!(c[0].size_bytes, 20 + r.buffer_len() as u32);
    // At most three errors nest: a packet with three gets no fourth.
    let three = control(
        4,
        0,
        64,
        vec![
            rerr_opt(7, 8, 0),
            rerr_opt(6, 7, 0),
            rerr_opt(4, 5, 0),
            sr_opt(&[3, 2, 1], 1),
        ],
    );
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let out = run(&mut d, |d, c| d.on_link_failure(0, 1, Some(three), c));
    assert!(originated(&out).is_empty());
    assert_eq!(resent(&out).len(), 1);
}

#[test]
fn ns2_a_control_packet_queued_for_a_broken_link_is_salvaged_without_an_error() {
    // The queue gives back what it held for 1 after 2 -> 1 broke: with
    // ns-2's cache control packets come back too (ns-2's
    // `prq_get_nexthop`), and each is salvaged as `undeliverablePkt` does,
    // with no route error of its own.
    assert!(dsr_ns2(2).reroutes_control());
    assert!(!dsr(2).reroutes_control());
    let mut d = dsr_ns2(2);
    d.learn_route(&[2, 7, 0], 0);
    let mut queued = rerr_4_to_0();
    queued.uid = 5;
    let out = run(&mut d, |d, c| d.on_reroute(0, queued, 1, c));
    assert!(originated(&out).is_empty(), "{out:?}");
    let r = resent(&out);
    assert_eq!(r.len(), 1, "{out:?}");
    let (p, nh, msg, forwarded) = r[0];
    assert_eq!((p.uid, nh, msg, forwarded), (5, 7, "rerr", true));
    let sr = SourceRoute::of(&parse(p)).unwrap();
    assert_eq!((sr.salvage, sr.addresses.clone()), (1, vec![2, 7]));
    // This node's own reply with no other route waits for one.
    let own = own_reply_2_to_0();
    let mut d = dsr_ns2(2);
    let out = run(&mut d, |d, c| d.on_reroute(0, own, 1, c));
    assert!(
        dropped(&out).is_empty() && resent(&out).is_empty(),
        "{out:?}"
    );
    assert_eq!(d.buffered(), 1);
}

#[test]
fn ns2_a_reply_salvaged_through_the_send_buffer_keeps_counting_its_old_header() {
    // 3's reply to 0 about 0-5-6-3 fails at relay 2 on 2 -> 1, and 2 has
    // no route to 0: ns-2.35's `undeliverablePkt` buffers it still
    // counting its header (4 fixed, the reply's 5 + 4 × 4 nodes, the
    // route 3-2-1-0's 4 × 3: 40 bytes), its flow options cleared. Released
    // along 2-7-0 (the reply's 21, the salvaged route 2-7-0's 8 and 4:
    // 36), it counts both.
    let reply = |timeout: bool| {
        let mut options = vec![
            DsrOption::RouteReply {
                last_hop_external: false,
                addresses: vec![5, 6, 3],
            },
            sr_opt(&[2, 1], 1),
        ];
        if timeout {
            options.push(DsrOption::Timeout { timeout_s: 10 });
        }
        let mut p = control(3, 0, 64, options);
        p.size_bytes = 20 + parse(&p).ns2_len() as u32;
        p
    };
    for (ns2_sizes, timeout, size, stale) in [
        (true, false, 96, 40),
        (true, true, 96, 40),
        (false, false, 56, 0),
    ] {
        let mut d = dsr_ns2(2);
        Rc::make_mut(&mut d.cfg).ns2_buffered_salvage_sizes = ns2_sizes;
        run(&mut d, |d, c| {
            d.on_link_failure(NS_PER_S, 1, Some(reply(timeout)), c)
        });
        assert_eq!(d.buffered(), 1);
        d.learn_route(&[2, 7, 0], NS_PER_S + 5 * NS_PER_MS);
        let acts = advance(&mut d, NS_PER_S + 100 * NS_PER_MS);
        let out: Vec<RoutingAction> = acts.into_iter().map(|(_, a)| a).collect();
        let r = resent(&out);
        assert_eq!((r.len(), r[0].1, r[0].2), (1, 7, "rrep"), "{out:?}");
        let p = r[0].0;
        let case = format!("ns2 sizes {ns2_sizes}, timeout {timeout}");
        assert_eq!(
            (p.size_bytes, p.stale_header_bytes),
            (size, stale),
            "{case}"
        );
        let repr = parse(p);
        let has_timeout = repr
            .options
            .iter()
            .any(|o| matches!(o, DsrOption::Timeout { .. }));
        assert!(!has_timeout, "{case}");
        // Relay 7 passes it on to 0 with the old bytes still counted, as
        // ns-2.35's `handleForwarding` leaves the size alone.
        let mut at_7 = p.clone();
        at_7.ttl -= 1;
        let mut r7 = dsr_ns2(7);
        let out = run(&mut r7, |d, c| d.on_control(2 * NS_PER_S, 2, at_7, c));
        let o = originated(&out);
        assert_eq!((o.len(), o[0].1, o[0].2), (1, 0, "rrep"), "{case}: {out:?}");
        assert_eq!(
            (o[0].0.size_bytes, o[0].0.stale_header_bytes),
            (size, stale),
            "{case}"
        );
    }
}
