//! State-machine tests on hand-built OLSR packets.

use super::link_set::{WILL_ALWAYS, WILL_DEFAULT, WILL_HIGH, WILL_LOW, WILL_NEVER};
use super::mpr::select_mprs;
use super::routing_table::{Route, RoutingTable};
use super::*;
use crate::engine::{Rng, NS_PER_MS};
use crate::net::{PacketKind, DEFAULT_TTL, IP_HEADER_BYTES};
use std::collections::BTreeMap;

const ME: NodeId = 0;
const S: SimTime = NS_PER_S;

fn agent() -> (Olsr, Rng) {
    (Olsr::new(ME, OlsrConfig::default()), Rng::from_seed(3626))
}

/// Calls `f` with a context and returns the actions it pushed.
fn act(
    o: &mut Olsr,
    rng: &mut Rng,
    f: impl FnOnce(&mut Olsr, &mut RoutingCtx),
) -> Vec<RoutingAction> {
    let mut out = Vec::new();
    let mut ctx = RoutingCtx {
        me: ME,
        rng,
        out: &mut out,
        tracing: false,
    };
    f(o, &mut ctx);
    out
}

fn wrap(from: NodeId, msg: MessageRepr) -> Packet {
    let p = PacketRepr {
        seq: 0,
        messages: vec![msg],
    };
    Packet::control(from, BROADCAST, 1, UDP_HEADER_BYTES, p.to_bytes())
}

/// A HELLO from `from` with willingness `will` and link blocks
/// (link type, neighbour type, addresses).
fn hello(from: NodeId, will: u8, blocks: &[(LinkType, NeighborType, &[NodeId])]) -> Packet {
    wrap(
        from,
        MessageRepr {
            vtime: encode_time(6 * S),
            originator: from,
            ttl: 1,
            hop_count: 0,
            seq: 1,
            body: MessageBody::Hello(HelloRepr {
                htime: encode_time(2 * S),
                willingness: will,
                links: blocks
                    .iter()
                    .map(|(l, n, a)| LinkBlock {
                        code: LinkCode::new(*l, *n),
                        addrs: a.to_vec(),
                    })
                    .collect(),
            }),
        },
    )
}

/// A flooded message (Vtime 15 s, 3 hops come) from `orig`, relayed to
/// us by `sender`.
fn flooded(sender: NodeId, orig: NodeId, seq: u16, ttl: u8, body: MessageBody) -> Packet {
    wrap(
        sender,
        MessageRepr {
            vtime: encode_time(15 * S),
            originator: orig,
            ttl,
            hop_count: 3,
            seq,
            body,
        },
    )
}

fn tc(sender: NodeId, orig: NodeId, seq: u16, ansn: u16, adv: &[NodeId], ttl: u8) -> Packet {
    let advertised = adv.to_vec();
    flooded(
        sender,
        orig,
        seq,
        ttl,
        MessageBody::Tc(TcRepr { ansn, advertised }),
    )
}

fn receive(
    o: &mut Olsr,
    rng: &mut Rng,
    now: SimTime,
    from: NodeId,
    p: Packet,
) -> Vec<RoutingAction> {
    act(o, rng, |o, ctx| o.on_control(now, from, p, ctx))
}

/// Runs every timer due up to `until`; returns the actions.
fn run_until(o: &mut Olsr, rng: &mut Rng, until: SimTime) -> Vec<RoutingAction> {
    let mut all = Vec::new();
    while let Some(t) = o.poll_timeout().filter(|&t| t <= until) {
        all.extend(act(o, rng, |o, ctx| o.on_timeout(t, ctx)));
    }
    all
}

/// Makes `nb` a symmetric neighbour of ME (its HELLO lists ME as SYM),
/// listing `its_neighbors` as its symmetric neighbours.
fn sym_neighbor(
    o: &mut Olsr,
    rng: &mut Rng,
    now: SimTime,
    nb: NodeId,
    will: u8,
    its_neighbors: &[NodeId],
) {
    receive(
        o,
        rng,
        now,
        nb,
        hello(
            nb,
            will,
            &[
                (LinkType::Sym, NeighborType::SymNeigh, &[ME]),
                (LinkType::Sym, NeighborType::SymNeigh, its_neighbors),
            ],
        ),
    );
}

fn originated(actions: &[RoutingAction]) -> Vec<(&'static str, bool, MessageRepr, &Packet)> {
    actions
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Originate {
                packet,
                message,
                forwarded,
                ..
            } => {
                let p = PacketRepr::parse(packet.body()).expect("our packets parse");
                Some((*message, *forwarded, p.messages[0].clone(), packet))
            }
            _ => None,
        })
        .collect()
}

fn hello_blocks(m: &MessageRepr) -> BTreeMap<NodeId, LinkCode> {
    let MessageBody::Hello(h) = &m.body else {
        panic!("not a HELLO: {m:?}")
    };
    h.links
        .iter()
        .flat_map(|b| b.addrs.iter().map(move |&a| (a, b.code)))
        .collect()
}

fn data(dst: NodeId, uid: u64) -> Packet {
    Packet {
        uid,
        kind: PacketKind::Data { flow: 0, seq: uid },
        src: ME,
        dst,
        ttl: DEFAULT_TTL,
        size_bytes: 540,
        payload_bytes: 512,
        created_at: 0,
        hops: 0,
        stale_header_bytes: 0,
        path: 0,
        body: None,
        transport: None,
    }
}

fn will_map(pairs: &[(NodeId, u8)]) -> BTreeMap<NodeId, u8> {
    pairs.iter().copied().collect()
}

// ---- Link sensing: ASYM → SYM → LOST -----------------------------------------

#[test]
fn link_goes_asym_then_sym_then_lost_then_away() {
    let (mut o, mut rng) = agent();
    // 1's HELLO does not list us: we hear 1, 1 may not hear us.
    receive(&mut o, &mut rng, S, 1, hello(1, WILL_DEFAULT, &[]));
    assert_eq!(o.links().get(1).unwrap().link_type(S), LinkType::Asym);
    assert!(
        o.table().get(1).is_none(),
        "no route over an asymmetric link"
    );
    let h = o.hello(S);
    assert_eq!(
        hello_blocks(&h)[&1],
        LinkCode::new(LinkType::Asym, NeighborType::NotNeigh)
    );
    // 1 now lists us as ASYM: it hears us, so the link is symmetric.
    let t = 2 * S;
    receive(
        &mut o,
        &mut rng,
        t,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Asym, NeighborType::NotNeigh, &[ME])],
        ),
    );
    let l = *o.links().get(1).unwrap();
    assert_eq!(l.link_type(t), LinkType::Sym);
    assert_eq!(l.sym_until, t + 6 * S);
    assert_eq!(
        l.until,
        t + 12 * S,
        "L_time = L_SYM_time + NEIGHB_HOLD_TIME"
    );
    assert_eq!(
        o.table().get(1),
        Some(&Route {
            next_hop: 1,
            hops: 1
        })
    );
    assert_eq!(
        hello_blocks(&o.hello(t))[&1],
        LinkCode::new(LinkType::Sym, NeighborType::SymNeigh)
    );
    // Silence: at L_SYM_time (= L_ASYM_time) the link is LOST, still
    // advertised as such; the route goes.
    run_until(&mut o, &mut rng, t + 6 * S);
    assert_eq!(
        o.links().get(1).unwrap().link_type(t + 6 * S),
        LinkType::Lost
    );
    assert!(o.table().get(1).is_none());
    assert_eq!(
        hello_blocks(&o.hello(t + 6 * S))[&1],
        LinkCode::new(LinkType::Lost, NeighborType::NotNeigh)
    );
    // At L_time the tuple goes.
    run_until(&mut o, &mut rng, t + 12 * S);
    assert!(o.links().is_empty());
    assert!(hello_blocks(&o.hello(t + 12 * S)).is_empty());
}

#[test]
fn a_hello_listing_us_as_lost_ends_symmetry_at_once() {
    let (mut o, mut rng) = agent();
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[]);
    assert!(o.links().is_sym(1, S));
    receive(
        &mut o,
        &mut rng,
        2 * S,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Lost, NeighborType::NotNeigh, &[ME])],
        ),
    );
    assert_eq!(o.links().get(1).unwrap().link_type(2 * S), LinkType::Asym);
    assert!(o.table().is_empty());
}

#[test]
fn by_default_a_mac_failure_drops_the_packet_and_leaves_the_link_to_time_out() {
    let (mut o, mut rng) = agent();
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[5]);
    let out = act(&mut o, &mut rng, |o, ctx| {
        o.on_link_failure(2 * S, 1, Some(data(5, 7)), ctx)
    });
    assert!(matches!(
        &out[..],
        [RoutingAction::Drop { packet, reason: DropReason::RetryLimit }] if packet.uid == 7
    ));
    assert!(o.links().is_sym(1, 2 * S));
    assert_eq!(o.hop_count(5, 0), Some(2));
    // Without HELLOs the link goes at L_SYM_time = 1 s + NEIGHB_HOLD_TIME.
    run_until(&mut o, &mut rng, 7 * S);
    assert_eq!(o.hop_count(5, 0), None);
}

#[test]
fn with_link_layer_notification_a_mac_failure_marks_the_link_lost_until_the_next_hello() {
    let cfg = OlsrConfig {
        link_layer_notification: true,
        ..OlsrConfig::default()
    };
    let (mut o, mut rng) = (Olsr::new(ME, cfg), Rng::from_seed(13));
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[5]);
    assert_eq!(o.hop_count(5, 0), Some(2));
    let out = act(&mut o, &mut rng, |o, ctx| {
        o.on_link_failure(2 * S, 1, Some(data(5, 7)), ctx)
    });
    assert!(!o.links().is_sym(1, 2 * S));
    assert_eq!(o.hop_count(5, 0), None);
    assert_eq!(o.buffered(), 1, "the failed packet waits for a route");
    assert_eq!(out, vec![RoutingAction::Reroute { next_hop: 1 }]);
    // 1's next HELLO still lists us: the link and the route come back and
    // the packet leaves.
    let out = receive(
        &mut o,
        &mut rng,
        3 * S,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Sym, NeighborType::SymNeigh, &[ME, 5])],
        ),
    );
    assert!(o.links().is_sym(1, 3 * S));
    assert_eq!(o.buffered(), 0);
    assert!(matches!(&out[..], [RoutingAction::Send { packet, next_hop: 1 }] if packet.uid == 7));
}

// ---- MPR selection (RFC 3626 section 8.3.1) ----------------------------------

#[test]
fn one_neighbour_covering_every_two_hop_node_is_the_only_mpr() {
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT), (3, WILL_DEFAULT)]);
    // 1 reaches 10 and 11; 2 reaches 10, 3 reaches 11: every 2-hop node has
    // two providers, and 1 alone covers both.
    let two = [(1, 10), (1, 11), (2, 10), (3, 11), (2, ME), (1, 2)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([1]));
}

#[test]
fn a_two_hop_node_reachable_through_one_neighbour_forces_it() {
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT), (3, WILL_DEFAULT)]);
    // 1 covers 10, 11, 12; 12 is also behind 2; but 20 only behind 3.
    let two = [(1, 10), (1, 11), (1, 12), (2, 12), (3, 20)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([1, 3]));
}

#[test]
fn will_always_neighbours_are_always_mprs_and_will_never_ones_never() {
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_NEVER), (4, WILL_ALWAYS)]);
    // 4 reaches nothing but is an MPR; 2 alone reaches 30 but never
    // forwards, so 30 is not in N2 and needs no MPR.
    let two = [(1, 10), (2, 10), (2, 30)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([1, 4]));
    // When the WILL_ALWAYS MPR covers 10 too, 1 is redundant (step 5).
    let two = [(1, 10), (4, 10)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([4]));
}

#[test]
fn willingness_beats_reachability() {
    // 1 (LOW) covers 10 and 11; 2 (HIGH) covers 10; 3 (DEFAULT) covers 11.
    let n = will_map(&[(1, WILL_LOW), (2, WILL_HIGH), (3, WILL_DEFAULT)]);
    let two = [(1, 10), (1, 11), (2, 10), (3, 11)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([2, 3]));
}

#[test]
fn equal_willingness_goes_to_reachability_then_degree() {
    // Reachability: 2 covers 10 and 11, 1 and 3 one each.
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT), (3, WILL_DEFAULT)]);
    let two = [(1, 10), (2, 10), (2, 11), (3, 11)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([2]));

    // Degree: 5 is forced (21 only behind it) and covers 20. Then 10 is
    // left, behind 1 and 2, both reaching 1 uncovered node; 2 has the
    // larger degree D (10 and 20) and wins though its address is higher.
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT), (5, WILL_DEFAULT)]);
    let two = [(1, 10), (2, 10), (2, 20), (5, 20), (5, 21)];
    assert_eq!(select_mprs(ME, &n, &two), BTreeSet::from([2, 5]));
}

#[test]
fn neighbours_and_ourselves_are_not_two_hop_nodes() {
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT)]);
    // 1 lists us and 2 (both one hop away): no MPR is needed.
    let two = [(1, ME), (1, 2), (2, 1)];
    assert!(select_mprs(ME, &n, &two).is_empty());
}

/// Neighbour 1's HELLO at `now`: still symmetric with ME and 10, 11 lost.
fn one_drops_eleven(o: &mut Olsr, rng: &mut Rng, now: SimTime) {
    let blocks: &[(LinkType, NeighborType, &[NodeId])] = &[
        (LinkType::Sym, NeighborType::SymNeigh, &[ME, 10]),
        (LinkType::Lost, NeighborType::NotNeigh, &[11]),
    ];
    receive(o, rng, now, 1, hello(1, WILL_DEFAULT, blocks));
}

#[test]
fn the_chosen_mpr_is_advertised_as_mpr_neigh_in_our_hello() {
    let (mut o, mut rng) = agent();
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[10, 11]);
    sym_neighbor(&mut o, &mut rng, S, 2, WILL_DEFAULT, &[10]);
    assert_eq!(o.mprs(), &BTreeSet::from([1]));
    let b = hello_blocks(&o.hello(S));
    assert_eq!(b[&1], LinkCode::new(LinkType::Sym, NeighborType::MprNeigh));
    assert_eq!(b[&2], LinkCode::new(LinkType::Sym, NeighborType::SymNeigh));
    // 2-hop routes follow the 2-hop set.
    assert_eq!(o.hop_count(10, 0), Some(2));
    assert_eq!(o.table().get(11).unwrap().next_hop, 1);
    // 1 stops listing 11 as a neighbour: the pair goes, so does the route.
    one_drops_eleven(&mut o, &mut rng, 2 * S);
    assert_eq!(o.hop_count(11, 0), None);
    assert_eq!(o.two_hop().len(), 2, "(1, 10) and (2, 10)");
}

#[test]
fn each_hello_advertises_the_mprs_of_the_neighbourhood_as_it_is_then() {
    let (mut o, mut rng) = agent();
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[10, 11]);
    sym_neighbor(&mut o, &mut rng, S, 2, WILL_DEFAULT, &[10]);
    let b = hello_blocks(&o.hello(S));
    assert_eq!(b[&1], LinkCode::new(LinkType::Sym, NeighborType::MprNeigh));
    assert_eq!(b[&2], LinkCode::new(LinkType::Sym, NeighborType::SymNeigh));
    // 2 now also reaches 12, which only it covers: the next HELLO names
    // both as MPRs, though nothing read the MPR set in between.
    sym_neighbor(&mut o, &mut rng, 2 * S, 2, WILL_DEFAULT, &[10, 12]);
    let b = hello_blocks(&o.hello(2 * S));
    assert_eq!(b[&1], LinkCode::new(LinkType::Sym, NeighborType::MprNeigh));
    assert_eq!(b[&2], LinkCode::new(LinkType::Sym, NeighborType::MprNeigh));
    // 1 renews its times with the same neighbours: the set stays.
    sym_neighbor(&mut o, &mut rng, 3 * S, 1, WILL_DEFAULT, &[10, 11]);
    assert_eq!(o.mprs(), &BTreeSet::from([1, 2]));
    // 1 stops reaching 11 and 2 reaches 10 too: 1 is no longer needed.
    one_drops_eleven(&mut o, &mut rng, 4 * S);
    let b = hello_blocks(&o.hello(4 * S));
    assert_eq!(b[&1], LinkCode::new(LinkType::Sym, NeighborType::SymNeigh));
    assert_eq!(b[&2], LinkCode::new(LinkType::Sym, NeighborType::MprNeigh));
}

// ---- MPR selectors and TC generation ------------------------------------------

#[test]
fn being_selected_as_mpr_triggers_a_tc_advertising_the_selector() {
    let (mut o, mut rng) = agent();
    act(&mut o, &mut rng, |o, ctx| o.start(0, ctx));
    let t = S;
    receive(
        &mut o,
        &mut rng,
        t,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Sym, NeighborType::MprNeigh, &[ME])],
        ),
    );
    assert!(o.selectors().contains(1, t));
    assert_eq!(o.ansn(), 1);
    // The early TC goes within MAXJITTER; the first HELLO went before it.
    let out = run_until(&mut o, &mut rng, t + 500 * NS_PER_MS);
    let sent = originated(&out);
    let tcs: Vec<_> = sent.iter().filter(|s| s.0 == "tc").collect();
    assert_eq!(tcs.len(), 1, "{sent:?}");
    let (_, forwarded, m, p) = tcs[0];
    assert!(!forwarded);
    assert_eq!((m.ttl, m.hop_count, m.originator), (255, 0, ME));
    assert_eq!(decode_time(m.vtime), 15 * S);
    assert_eq!(
        m.body,
        MessageBody::Tc(TcRepr {
            ansn: 1,
            advertised: vec![1]
        })
    );
    // IP 20 + UDP 8 + OLSR header 4 + message header 12 + TC 4 + 4.
    assert_eq!(p.size_bytes, IP_HEADER_BYTES + 8 + 4 + 12 + 4 + 4);
    // 1 now lists us as a mere symmetric neighbour: no longer a selector,
    // a new ANSN; empty TCs continue for TOP_HOLD_TIME.
    receive(
        &mut o,
        &mut rng,
        3 * S,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Sym, NeighborType::SymNeigh, &[ME])],
        ),
    );
    assert!(o.selectors().is_empty());
    assert_eq!(o.ansn(), 2);
    let out = run_until(&mut o, &mut rng, 3 * S + 15 * S);
    let tcs: Vec<_> = originated(&out)
        .into_iter()
        .filter(|s| s.0 == "tc")
        .map(|s| s.2.body)
        .collect();
    assert!(tcs.len() >= 3, "{tcs:?}");
    assert!(tcs.iter().all(|b| *b
        == MessageBody::Tc(TcRepr {
            ansn: 2,
            advertised: vec![]
        })));
    let out = run_until(&mut o, &mut rng, 40 * S);
    assert!(originated(&out).iter().all(|s| s.0 == "hello"));
}

#[test]
fn hellos_are_periodic_with_jitter_below_maxjitter() {
    let (mut o, mut rng) = agent();
    act(&mut o, &mut rng, |o, ctx| o.start(0, ctx));
    let mut times = Vec::new();
    while let Some(t) = o.poll_timeout().filter(|&t| t <= 100 * S) {
        let out = act(&mut o, &mut rng, |o, ctx| o.on_timeout(t, ctx));
        if originated(&out).iter().any(|s| s.0 == "hello") {
            times.push(t);
        }
    }
    assert!(times[0] <= 500 * NS_PER_MS);
    let gaps: Vec<SimTime> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter()
            .all(|&g| (1500 * NS_PER_MS..=2 * S).contains(&g)),
        "{gaps:?}"
    );
    // Jittered, not constant; the mean gap is 2 s − 0.25 s.
    assert!(gaps.iter().any(|&g| g != gaps[0]));
    let mean = gaps.iter().sum::<SimTime>() as f64 / gaps.len() as f64 / 1e9;
    assert!((mean - 1.75).abs() < 0.1, "mean gap {mean}");
    assert!((51..=60).contains(&times.len()), "{}", times.len());
}

// ---- Forwarding and the duplicate set --------------------------------------------

/// ME with symmetric neighbours 1 (which chose ME as MPR) and 2 (which did not).
fn relay() -> (Olsr, Rng) {
    let (mut o, mut rng) = agent();
    receive(
        &mut o,
        &mut rng,
        S,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[(LinkType::Sym, NeighborType::MprNeigh, &[ME])],
        ),
    );
    sym_neighbor(&mut o, &mut rng, S, 2, WILL_DEFAULT, &[]);
    assert!(o.selectors().contains(1, S) && !o.selectors().contains(2, S));
    (o, rng)
}

fn forwarded_tcs(actions: &[RoutingAction]) -> Vec<MessageRepr> {
    originated(actions)
        .into_iter()
        .filter(|s| s.0 == "tc" && s.1)
        .map(|s| s.2)
        .collect()
}

#[test]
fn tcs_are_forwarded_only_when_they_come_from_an_mpr_selector() {
    let (mut o, mut rng) = relay();
    let t = 2 * S;
    // From 2 (not a selector): processed, not forwarded.
    receive(&mut o, &mut rng, t, 2, tc(2, 9, 100, 4, &[7, 8], 250));
    assert_eq!(o.topology().dests_of(9, t), vec![7, 8]);
    assert!(!o.duplicates().get(9, 100, t).unwrap().retransmitted);
    assert!(forwarded_tcs(&run_until(&mut o, &mut rng, t + S)).is_empty());
    // From 1 (a selector): processed and forwarded within MAXJITTER, TTL
    // down by one, hop count up by one.
    let t = 4 * S;
    receive(&mut o, &mut rng, t, 1, tc(1, 9, 101, 5, &[8], 250));
    assert_eq!(o.topology().dests_of(9, t), vec![8]);
    assert!(o.duplicates().get(9, 101, t).unwrap().retransmitted);
    let fw = forwarded_tcs(&run_until(&mut o, &mut rng, t + 500 * NS_PER_MS));
    assert_eq!(fw.len(), 1);
    assert_eq!(
        (fw[0].ttl, fw[0].hop_count, fw[0].originator, fw[0].seq),
        (249, 4, 9, 101)
    );
    // TTL 1 is not forwarded, even from a selector.
    receive(&mut o, &mut rng, t + S, 1, tc(1, 9, 102, 6, &[8], 1));
    assert!(forwarded_tcs(&run_until(&mut o, &mut rng, t + 2 * S)).is_empty());
    // Our own TC coming back is ignored.
    receive(&mut o, &mut rng, t + 2 * S, 1, tc(1, ME, 1, 1, &[1], 250));
    assert!(forwarded_tcs(&run_until(&mut o, &mut rng, t + 3 * S)).is_empty());
    assert!(o.topology().dests_of(ME, t + 2 * S).is_empty());
}

#[test]
fn a_duplicate_is_neither_processed_nor_forwarded_again() {
    let (mut o, mut rng) = relay();
    let t = 2 * S;
    receive(&mut o, &mut rng, t, 1, tc(1, 9, 100, 4, &[7], 250));
    assert_eq!(forwarded_tcs(&run_until(&mut o, &mut rng, t + S)).len(), 1);
    // The same (originator, sequence number) again, from either neighbour,
    // even with other contents: dropped.
    receive(&mut o, &mut rng, t + S, 1, tc(1, 9, 100, 5, &[3], 250));
    receive(&mut o, &mut rng, t + S, 2, tc(2, 9, 100, 5, &[3], 250));
    assert_eq!(o.topology().dests_of(9, t + S), vec![7]);
    assert!(forwarded_tcs(&run_until(&mut o, &mut rng, t + 2 * S)).is_empty());
    // After DUP_HOLD_TIME the tuple is gone (and the topology tuple too).
    run_until(&mut o, &mut rng, t + 31 * S);
    assert!(o.duplicates().get(9, 100, t + 31 * S).is_none());
}

#[test]
fn a_tc_from_a_non_symmetric_neighbour_is_discarded_and_not_recorded() {
    let (mut o, mut rng) = relay();
    let t = 2 * S;
    receive(&mut o, &mut rng, t, 3, hello(3, WILL_DEFAULT, &[]));
    receive(&mut o, &mut rng, t, 3, tc(3, 9, 100, 4, &[7], 250));
    assert!(o.topology().is_empty());
    assert!(o.duplicates().get(9, 100, t).is_none());
    // The same message from a symmetric selector still counts.
    receive(&mut o, &mut rng, t, 1, tc(1, 9, 100, 4, &[7], 250));
    assert_eq!(o.topology().dests_of(9, t), vec![7]);
}

// ---- Routing table (RFC 3626 section 10) -------------------------------------------

#[test]
fn routing_table_on_a_hand_built_topology() {
    //   ME - 1 - 3 - 5 - 6
    //    \           /
    //     2 - 4 ----+      7 (WILL_NEVER neighbour) - 8
    let n = will_map(&[(1, WILL_DEFAULT), (2, WILL_DEFAULT), (7, WILL_NEVER)]);
    let two = [(1, 3), (1, ME), (2, 4), (7, 8)];
    let topo = [(3, 5), (4, 5), (5, 6), (6, ME), (5, 3), (9, 10)];
    let t = RoutingTable::compute(ME, &n, &two, &topo);
    let r = |next_hop, hops| Some(Route { next_hop, hops });
    assert_eq!(t.get(1).copied(), r(1, 1));
    assert_eq!(
        t.get(7).copied(),
        r(7, 1),
        "a WILL_NEVER neighbour is reachable"
    );
    assert_eq!(t.get(8), None, "but carries nothing");
    assert_eq!(t.get(3).copied(), r(1, 2));
    assert_eq!(t.get(4).copied(), r(2, 2));
    assert_eq!(t.get(5).copied(), r(1, 3), "ties: the lower last hop first");
    assert_eq!(t.get(6).copied(), r(1, 4));
    assert_eq!(t.get(ME), None);
    assert_eq!(
        t.get(10),
        None,
        "9 is unreachable, so is what it advertises"
    );
    assert_eq!(t.len(), 7);
}

#[test]
fn routes_learnt_from_tcs_carry_data_and_hop_counts() {
    let (mut o, mut rng) = relay();
    let t = 2 * S;
    // 1 lists 3 as a symmetric neighbour (a 2-hop route); 3's TC,
    // relayed by 1, advertises 4.
    receive(
        &mut o,
        &mut rng,
        t,
        1,
        hello(
            1,
            WILL_DEFAULT,
            &[
                (LinkType::Sym, NeighborType::MprNeigh, &[ME]),
                (LinkType::Sym, NeighborType::SymNeigh, &[3]),
            ],
        ),
    );
    receive(&mut o, &mut rng, t, 1, tc(1, 3, 7, 1, &[4], 250));
    assert_eq!(o.hop_count(3, 0), Some(2));
    assert_eq!(o.hop_count(4, 0), Some(3));
    let out = act(&mut o, &mut rng, |o, ctx| {
        o.route_output(t, data(4, 1), ctx)
    });
    assert!(matches!(
        &out[..],
        [RoutingAction::Send { next_hop: 1, .. }]
    ));
    // The TC tuple expires after TOP_HOLD_TIME and the route with it
    // (1 and 2 keep their links only if they go on sending HELLOs).
    run_until(&mut o, &mut rng, t + 15 * S);
    assert_eq!(o.hop_count(4, 0), None);
    assert!(o.topology().is_empty());
}

// ---- Data waiting for a route ------------------------------------------------------

#[test]
fn data_without_a_route_waits_and_leaves_when_a_route_appears() {
    let (mut o, mut rng) = agent();
    let out = act(&mut o, &mut rng, |o, ctx| {
        o.route_output(0, data(2, 1), ctx)
    });
    assert!(out.is_empty());
    act(&mut o, &mut rng, |o, ctx| {
        o.route_output(0, data(5, 2), ctx)
    });
    assert_eq!(o.buffered(), 2);
    // 1 becomes symmetric and lists 2: the packet for 2 leaves.
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[2]);
    assert_eq!(o.buffered(), 1);
    // The packet for 5 times out after 30 s.
    let out = run_until(&mut o, &mut rng, 30 * S);
    let drops: Vec<_> = out
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Drop { packet, reason } => Some((packet.uid, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(drops, vec![(2, DropReason::RouteBufferTimeout)]);
    assert_eq!(o.buffered(), 0);
}

#[test]
fn a_full_buffer_drops_the_oldest() {
    let cfg = OlsrConfig {
        buffer_packets: 2,
        ..OlsrConfig::default()
    };
    let mut o = Olsr::new(ME, cfg);
    let mut rng = Rng::from_seed(1);
    let mut out = Vec::new();
    for uid in 0..3 {
        out.extend(act(&mut o, &mut rng, |o, ctx| {
            o.route_output(0, data(9, uid), ctx)
        }));
    }
    assert!(matches!(
        &out[..],
        [RoutingAction::Drop { packet, reason: DropReason::RouteBufferFull }] if packet.uid == 0
    ));
    assert_eq!(o.buffered(), 2);
}

// ---- HNA and Internet gateways (RFC 3626 section 12) --------------------------------

fn hna(sender: NodeId, orig: NodeId, seq: u16, networks: &[(u32, u32)], ttl: u8) -> Packet {
    let networks = networks.to_vec();
    flooded(
        sender,
        orig,
        seq,
        ttl,
        MessageBody::Hna(HnaRepr { networks }),
    )
}

fn sent(actions: &[RoutingAction]) -> Vec<(u64, NodeId, NodeId)> {
    actions
        .iter()
        .filter_map(|a| match a {
            RoutingAction::Send { packet, next_hop } => Some((packet.uid, packet.dst, *next_hop)),
            _ => None,
        })
        .collect()
}

/// A packet for host 100, tunnelled to the gateway the network chose
/// (node 50 here, which is no gateway: OLSR picks its own).
fn to_internet(o: &mut Olsr, rng: &mut Rng, now: SimTime, uid: u64) -> Vec<RoutingAction> {
    act(o, rng, |o, ctx| {
        o.route_to_internet(now, data(50, uid), 100, ctx)
    })
}

#[test]
fn a_gateway_announces_the_internet_every_hna_interval_and_others_do_not() {
    let mut o = Olsr::new(ME, OlsrConfig::default()).with_gateways(true);
    let mut rng = Rng::from_seed(12);
    act(&mut o, &mut rng, |o, ctx| o.start(0, ctx));
    let (mut out, mut times) = (Vec::new(), Vec::new());
    while let Some(t) = o.poll_timeout().filter(|&t| t <= 20 * S) {
        let now = act(&mut o, &mut rng, |o, ctx| o.on_timeout(t, ctx));
        if originated(&now).iter().any(|m| m.0 == "hna") {
            times.push(t);
        }
        out.extend(now);
    }
    // HNA_INTERVAL minus a jitter of at most MAXJITTER: 4 by 20 s.
    let gaps: Vec<SimTime> = std::iter::once(0)
        .chain(times.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| w[1] - w[0])
        .collect();
    assert_eq!(gaps.len(), 4);
    assert!(
        gaps.iter()
            .all(|&g| (4_500 * NS_PER_MS..=5 * S).contains(&g)),
        "{gaps:?}"
    );
    let hnas: Vec<_> = originated(&out)
        .into_iter()
        .filter(|m| m.0 == "hna")
        .collect();
    assert_eq!(hnas.len(), 4);
    for (_, forwarded, m, p) in &hnas {
        assert!(!forwarded);
        assert_eq!((m.ttl, m.hop_count, m.originator), (255, 0, ME));
        assert_eq!(decode_time(m.vtime), 15 * S, "HNA_HOLD_TIME");
        assert_eq!(
            m.body,
            MessageBody::Hna(HnaRepr {
                networks: vec![(0, 0)]
            })
        );
        // IP 20 + UDP 8 + OLSR 4 + message 12 + one network 8.
        assert_eq!(p.size_bytes, 52);
    }
    let mut o = Olsr::new(ME, OlsrConfig::default()).with_gateways(false);
    act(&mut o, &mut rng, |o, ctx| o.start(0, ctx));
    let out = run_until(&mut o, &mut rng, 20 * S);
    assert!(originated(&out).iter().all(|m| m.0 != "hna"));
}

#[test]
fn packets_for_the_internet_wait_for_an_hna_then_go_to_the_nearest_gateway() {
    let mut o = Olsr::new(ME, OlsrConfig::default()).with_gateways(false);
    let mut rng = Rng::from_seed(13);
    // No gateway known: the packet waits, whatever the tunnel's address.
    assert!(to_internet(&mut o, &mut rng, 0, 1).is_empty());
    assert_eq!(o.buffered(), 1);
    // 1 symmetric, listing 2: routes to both, but no announcement yet.
    sym_neighbor(&mut o, &mut rng, S, 1, WILL_DEFAULT, &[2]);
    assert_eq!(o.internet_gateway(), None);
    assert_eq!(o.buffered(), 1);
    // An HNA from a neighbour that is not symmetric is discarded.
    receive(&mut o, &mut rng, S, 3, hello(3, WILL_DEFAULT, &[]));
    receive(&mut o, &mut rng, S, 3, hna(3, 3, 1, &[(0, 0)], 255));
    assert!(o.associations().unwrap().is_empty());
    // 2 announces the Internet, relayed by 1: the packet leaves for 2 by 1.
    let t = 2 * S;
    let out = receive(&mut o, &mut rng, t, 1, hna(1, 2, 7, &[(0, 0)], 254));
    assert_eq!(sent(&out), vec![(1, 2, 1)]);
    assert_eq!(o.buffered(), 0);
    assert_eq!(o.internet_gateway(), Some(2));
    // A network other than the Internet is recorded, not routed to.
    receive(
        &mut o,
        &mut rng,
        t,
        1,
        hna(1, 1, 8, &[(0x0a00_0000, 0xff00_0000)], 255),
    );
    assert_eq!(o.associations().unwrap().len(), 2);
    assert_eq!(o.internet_gateway(), Some(2));
    // 1 announces the Internet too, one hop away: the nearer one wins.
    receive(&mut o, &mut rng, t, 1, hna(1, 1, 9, &[(0, 0)], 255));
    assert_eq!(o.internet_gateway(), Some(1));
    assert_eq!(sent(&to_internet(&mut o, &mut rng, t, 2)), vec![(2, 1, 1)]);
    // Renewed, 1's announcement outlives 2's; once both are past
    // HNA_HOLD_TIME (and no HELLO kept 1), nothing goes to the Internet.
    let t2 = t + 10 * S;
    sym_neighbor(&mut o, &mut rng, t2, 1, WILL_DEFAULT, &[2]);
    receive(&mut o, &mut rng, t2, 1, hna(1, 1, 10, &[(0, 0)], 255));
    run_until(&mut o, &mut rng, t + 15 * S);
    let gateways: Vec<_> = o.associations().unwrap().gateways_to((0, 0)).collect();
    assert_eq!(gateways, vec![1]);
    run_until(&mut o, &mut rng, t2 + 15 * S);
    assert!(o.associations().unwrap().is_empty());
    assert_eq!(o.internet_gateway(), None);
    let now = t2 + 15 * S;
    assert!(to_internet(&mut o, &mut rng, now, 3).is_empty());
    // It waits 30 s at most.
    let out = run_until(&mut o, &mut rng, now + 30 * S);
    assert!(matches!(
        &out[..],
        [RoutingAction::Drop { packet, reason: DropReason::RouteBufferTimeout }] if packet.uid == 3
    ));
}

#[test]
fn hnas_are_forwarded_as_tcs_are_and_counted_apart() {
    let (o, mut rng) = relay();
    let mut o = o.with_gateways(false);
    let t = 2 * S;
    // From 2 (not a selector): recorded, not forwarded.
    let mut out = receive(&mut o, &mut rng, t, 2, hna(2, 9, 100, &[(0, 0)], 250));
    out.extend(run_until(&mut o, &mut rng, t + S));
    assert!(originated(&out).iter().all(|m| m.0 != "hna"));
    assert_eq!(o.associations().unwrap().len(), 1);
    // From 1 (a selector): forwarded within MAXJITTER as "hna".
    let t = 4 * S;
    receive(&mut o, &mut rng, t, 1, hna(1, 8, 101, &[(0, 0)], 250));
    let out = run_until(&mut o, &mut rng, t + 500 * NS_PER_MS);
    let fw: Vec<_> = originated(&out)
        .into_iter()
        .filter(|m| m.0 != "tc")
        .collect();
    assert_eq!(fw.len(), 1);
    let (message, forwarded, m, _) = &fw[0];
    assert_eq!((*message, *forwarded), ("hna", true));
    assert_eq!((m.ttl, m.hop_count, m.originator), (249, 4, 8));
    // A network without gateways ignores HNAs but still relays them.
    let (mut plain, mut rng) = relay();
    receive(&mut plain, &mut rng, t, 1, hna(1, 8, 101, &[(0, 0)], 250));
    let out = run_until(&mut plain, &mut rng, t + S);
    assert_eq!(originated(&out).iter().filter(|m| m.0 == "hna").count(), 1);
    assert!(plain.associations().is_none());
}

// ---- Whole networks over an ideal channel ------------------------------------------

/// Agents on a graph whose every broadcast reaches the graph neighbours
/// 1 ms later, never lost (no MAC, no collisions).
struct IdealNet {
    agents: Vec<Olsr>,
    rngs: Vec<Rng>,
    adj: Vec<Vec<NodeId>>,
    /// (arrival time, order) → (receiver, sender, packet).
    air: BTreeMap<(SimTime, u64), (NodeId, NodeId, Packet)>,
    order: u64,
    sent: BTreeMap<&'static str, u64>,
}

impl IdealNet {
    fn new(adj: Vec<Vec<NodeId>>, seed: u64) -> Self {
        let n = adj.len();
        let mut net = Self {
            agents: (0..n as NodeId)
                .map(|i| Olsr::new(i, OlsrConfig::default()))
                .collect(),
            rngs: (0..n as u64)
                .map(|i| Rng::from_seed(seed * 1000 + i))
                .collect(),
            adj,
            air: BTreeMap::new(),
            order: 0,
            sent: BTreeMap::new(),
        };
        for i in 0..n {
            net.call(i, 0, |o, ctx| o.start(0, ctx));
        }
        net
    }

    fn call(&mut self, i: usize, now: SimTime, f: impl FnOnce(&mut Olsr, &mut RoutingCtx)) {
        let mut out = Vec::new();
        let mut ctx = RoutingCtx {
            me: i as NodeId,
            rng: &mut self.rngs[i],
            out: &mut out,
            tracing: false,
        };
        f(&mut self.agents[i], &mut ctx);
        for a in out {
            match a {
                RoutingAction::Originate {
                    packet, message, ..
                } => {
                    *self.sent.entry(message).or_default() += 1;
                    for &nb in &self.adj[i] {
                        self.order += 1;
                        self.air.insert(
                            (now + NS_PER_MS, self.order),
                            (nb, i as NodeId, packet.clone()),
                        );
                    }
                }
                other => panic!("unexpected action without data: {other:?}"),
            }
        }
    }

    /// Runs until `until`; returns the first time every table holds every
    /// other node at its shortest distance (`dist[i][j]`).
    fn converge(&mut self, until: SimTime, dist: &[Vec<u32>]) -> Option<SimTime> {
        loop {
            let timer = (0..self.agents.len())
                .filter_map(|i| self.agents[i].poll_timeout().map(|t| (t, i)))
                .min();
            let rx = self.air.keys().next().map(|k| k.0);
            let now = match (timer, rx) {
                (Some((t, i)), r) if r.is_none_or(|r| t <= r) => {
                    if t > until {
                        return None;
                    }
                    self.call(i, t, |o, ctx| o.on_timeout(t, ctx));
                    t
                }
                (_, Some(r)) => {
                    if r > until {
                        return None;
                    }
                    let (_, (to, from, p)) = self.air.pop_first().expect("an arrival");
                    self.call(to as usize, r, |o, ctx| o.on_control(r, from, p, ctx));
                    r
                }
                _ => return None,
            };
            let done = self.agents.iter().enumerate().all(|(i, a)| {
                (0..dist.len()).all(|j| j == i || a.hop_count(j as NodeId, 0) == Some(dist[i][j]))
            });
            if done {
                return Some(now);
            }
        }
    }
}

/// Hop distances by breadth-first search.
fn distances(adj: &[Vec<NodeId>]) -> Vec<Vec<u32>> {
    (0..adj.len())
        .map(|s| {
            let mut d = vec![u32::MAX; adj.len()];
            d[s] = 0;
            let mut q = std::collections::VecDeque::from([s]);
            while let Some(u) = q.pop_front() {
                for &v in &adj[u] {
                    if d[v as usize] == u32::MAX {
                        d[v as usize] = d[u] + 1;
                        q.push_back(v as usize);
                    }
                }
            }
            d
        })
        .collect()
}

fn grid_graph(rows: u32, cols: u32) -> Vec<Vec<NodeId>> {
    (0..rows * cols)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            let mut v = Vec::new();
            if r > 0 {
                v.push(i - cols);
            }
            if c > 0 {
                v.push(i - 1);
            }
            if c + 1 < cols {
                v.push(i + 1);
            }
            if r + 1 < rows {
                v.push(i + cols);
            }
            v
        })
        .collect()
}

#[test]
fn every_table_of_a_lossless_chain_and_grid_converges_within_the_derived_bound() {
    // MAXJITTER J, HELLO_INTERVAL H, TC_INTERVAL T. A node's k-th HELLO
    // goes by J + (k − 1)H. Links are symmetric by the second round
    // (J + H); the third (J + 2H) lists symmetric neighbours, so 2-hop sets
    // and MPR choices are final; the fourth (J + 3H) announces the MPRs, so
    // selector sets are final. A TC sent earlier may have died at a relay
    // that did not yet know it was an MPR, and only the originator's own
    // selector changes trigger early TCs; so the last needed TC may be the
    // periodic one, within T, and then floods with ≤ J per hop over the
    // diameter D: J + 3H + T + D·J. (Example of the slow case, chain seed
    // 76: node 1's early TC at 4.7 s is not relayed by 3, whose MPR
    // selection by 2 comes at 5.3 s; node 4 learns 0 from 1's periodic TC
    // at 9.7 s.) Lower bound: a route of 3 hops or more needs a TC, so two
    // HELLOs of one node (H − J apart) before it.
    let bound = |d: u64| 500 * NS_PER_MS + 6 * S + 5 * S + d * 500 * NS_PER_MS;
    for (name, adj, diameter) in [
        ("chain6", grid_graph(1, 6), 5),
        ("grid5x5", grid_graph(5, 5), 8),
    ] {
        let dist = distances(&adj);
        let mut worst = 0;
        for seed in 1..=20 {
            let mut net = IdealNet::new(adj.clone(), seed);
            let t = net
                .converge(60 * S, &dist)
                .unwrap_or_else(|| panic!("{name} seed {seed} never converged"));
            println!(
                "{name} seed {seed}: every route at its shortest by {:.2} s, sent {:?}",
                t as f64 / 1e9,
                net.sent
            );
            assert!(t > 1500 * NS_PER_MS, "{name}: {t}");
            assert!(t <= bound(diameter), "{name} seed {seed}: {t}");
            worst = worst.max(t);
        }
        println!(
            "{name}: worst {:.2} s, bound {:.2} s",
            worst as f64 / 1e9,
            bound(diameter) as f64 / 1e9
        );
    }
}
