//! A gateway's wired links to Internet hosts, end to end: small scenarios
//! with asserted numbers.

use super::tests::{fresh_dir, run_text};

/// Four static nodes 200 m apart, node 3 the gateway, and one host (node
/// 4) behind it over an ADSL-like uplink: 756 kbit/s, 25 ms; then `flow`.
fn chain(flow: &str) -> String {
    format!(
        r#"
name = "gateway-chain"
duration_s = 60.0
seed = 1

[nodes]
count = 4
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "aodv"

[gateway]
node = 3
rate_bps = 756000
delay_s = 0.025

[[flows]]
{flow}
"#
    )
}

/// CBR of 512-byte packets at 4 packets/s from node 0 to the host.
const CBR: &str = "src = 0\ndst = 4\nstart_s = 1.0\npacket_size_bytes = 512\ninterval_s = 0.25";

/// Bulk TCP (NewReno, one-way) of 1460-byte segments from node 0 to the host.
const TCP: &str = "src = 0\ndst = 4\nstart_s = 1.0\npacket_size_bytes = 1460\n\
                   transport = \"tcp\"\napp = \"ftp\"\ntcp = {handshake = false}";

#[test]
fn cbr_reaches_the_host_through_the_tunnel_and_the_wire() {
    let host = run_text(&chain(CBR), &[]);
    let gateway = run_text(&chain(CBR), &["flows.0.dst=3"]);
    let (h, g) = (&host.flows[0], &gateway.flows[0]);
    assert_eq!(h.sent, 236);
    assert_eq!(h.received, h.sent);
    assert_eq!(g.received, g.sent);
    // The same three wireless hops, then the wire: 552 bytes at 756 kbit/s
    // (5.84 ms) and 25 ms; on the air the tunnel's 20 bytes cost 80 us a
    // hop at 2 Mbit/s (0.24 ms).
    let extra_ms = h.delay_ms - g.delay_ms;
    let expected_ms = 552.0 * 8.0 / 756.0 + 25.0 + 3.0 * 0.08;
    assert!(
        (extra_ms - expected_ms).abs() < 0.3,
        "{extra_ms} against {expected_ms}"
    );
    // Hops are the wireless ones.
    assert!((h.hops_mean - 3.0).abs() < 1e-9, "{}", h.hops_mean);
    // Routing finds the gateway only: the same discovery either way.
    assert_eq!(host.routing.packets_sent, gateway.routing.packets_sent);
}

#[test]
fn tcp_fills_the_narrow_uplink_and_delivers_every_byte_in_order() {
    // One wireless hop (about 1.4 Mbit/s for TCP) before the 756 kbit/s
    // wire: the wire is the bottleneck, and 20 segments in flight are
    // more than its bandwidth-delay product, fewer than its queue.
    let r = run_text(&chain(TCP), &["duration_s=100", "flows.0.src=2"]);
    let f = &r.flows[0];
    assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
    assert_eq!(r.drops.get("queue_full").copied().unwrap_or(0), 0);
    // 1500-byte datagrams at 756 kbit/s carry 735.8 kbit/s of payload.
    let wire_kbps = 756.0 * 1460.0 / 1500.0;
    assert!(
        (f.goodput_kbps / wire_kbps - 1.0).abs() < 0.03,
        "{} against {wire_kbps}",
        f.goodput_kbps
    );
}

#[test]
fn a_full_wire_queue_drops_at_the_gateway() {
    // 160 kbit/s into a 64 kbit/s wire: the gateway's end of the link fills
    // its 5 places and drops the rest; every packet is accounted for.
    let r = run_text(
        &chain(CBR),
        &[
            "gateway.rate_bps=64000",
            "gateway.queue_packets=5",
            "flows.0.src=2",
            "flows.0.interval_s=0.025",
        ],
    );
    let f = &r.flows[0];
    let drops = r.drops.get("queue_full").copied().unwrap_or(0);
    assert!(drops > 1000, "{drops}");
    // The wire carries 64 kbit/s of 532-byte datagrams: 15.0 a second.
    let per_s = f.received as f64 / 59.0;
    assert!((per_s - 64_000.0 / (532.0 * 8.0)).abs() < 0.3, "{per_s}");
    // The rest are on their way when the run ends: in the queue, on the
    // wire, or in the MANET.
    assert!(
        f.sent - f.received - drops <= 8,
        "{} {} {drops}",
        f.sent,
        f.received
    );
}

#[test]
fn a_host_sends_into_the_manet_untunnelled() {
    // From the host to node 0: the gateway routes the packets in as its
    // own, over AODV as over DSDV, and they fare as the gateway's own do
    // (DSDV drops those sent before its first updates arrive).
    for routing in ["aodv", "dsdv"] {
        let protocol = format!("routing.protocol={routing}");
        let from_host = run_text(&chain(CBR), &["flows.0.src=4", "flows.0.dst=0", &protocol]);
        let from_gateway = run_text(&chain(CBR), &["flows.0.src=3", "flows.0.dst=0", &protocol]);
        let (h, g) = (&from_host.flows[0], &from_gateway.flows[0]);
        assert_eq!(h.sent, g.sent);
        assert!(
            h.received.abs_diff(g.received) <= 2 && h.received > 140,
            "{routing}: {} against {}",
            h.received,
            g.received
        );
        assert!((h.hops_mean - 3.0).abs() < 1e-9, "{routing}");
        assert_eq!(from_host.nodes[3].forwarded, h.sent, "{routing}");
    }
}

#[test]
fn tcp_over_dsdv_reaches_the_host() {
    let r = run_text(&chain(TCP), &["routing.protocol=dsdv"]);
    let f = &r.flows[0];
    assert!(f.received > 1000, "{}", f.received);
    assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
}

#[test]
fn tcp_from_a_host_delivers_every_byte_in_order() {
    // The host sends, the MANET node acknowledges through the tunnel.
    let r = run_text(&chain(TCP), &["flows.0.src=4", "flows.0.dst=0"]);
    let f = &r.flows[0];
    assert!(f.received > 1000, "{}", f.received);
    assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
}

#[test]
fn captures_show_the_tunnel_on_the_air_and_each_host_s_link() {
    use super::tests::pcap_records_of;
    use super::{run_with, Outputs};
    use crate::trace::pcap::{IP_PROTOCOL_IPIP, LINKTYPE_IEEE802_11, LINKTYPE_RAW};
    let dir = fresh_dir("manetsim-gw-pcap");
    // CBR from node 0 to the host, and from the host to node 1.
    let text = chain(CBR) + "\n[[flows]]\n" + &CBR.replace("src = 0\ndst = 4", "src = 4\ndst = 1");
    let s = crate::scenario::load_str(&text, "g.toml", &[("output.pcap".into(), "true".into())])
        .unwrap();
    let outputs = Outputs {
        ns2_trace: None,
        pcap_prefix: Some(&dir.join("run")),
    };
    let r = run_with(&s, &outputs).unwrap();
    let plain = run_text(&text, &[]);
    assert_eq!(r.flows, plain.flows, "a capture changes nothing");
    let (to_host, from_host) = (&r.flows[0], &r.flows[1]);
    assert!(to_host.received > 200 && from_host.received > 200);

    // The host's link: every datagram it received (flow 0) or sent (flow
    // 1), bare IPv4 with the flow's ends as addresses.
    let host = pcap_records_of(
        &std::fs::read(dir.join("run-4.pcap")).unwrap(),
        LINKTYPE_RAW,
    );
    let (mut got, mut sent, mut last) = (0, 0, 0);
    for (t, ip) in &host {
        assert!(*t >= last);
        last = *t;
        assert_eq!(ip[0], 0x45);
        assert_eq!(usize::from(u16::from_be_bytes([ip[2], ip[3]])), ip.len());
        assert_eq!(ip[9], 17, "UDP");
        match (&ip[12..16], &ip[16..20]) {
            ([0, 0, 0, 0], [0, 0, 0, 4]) => got += 1,
            ([0, 0, 0, 4], [0, 0, 0, 1]) => sent += 1,
            other => panic!("{other:?}"),
        }
        assert_eq!(ip.len(), 20 + 8 + 512);
    }
    assert_eq!(got, to_host.received);
    assert_eq!(sent, from_host.sent);

    // On the air, flow 0's datagrams travel in IP in IP from node 0 to the
    // gateway; flow 1's leave the gateway with the host's address.
    let gateway = pcap_records_of(
        &std::fs::read(dir.join("run-3.pcap")).unwrap(),
        LINKTYPE_IEEE802_11,
    );
    let (mut tunnelled, mut out_of_host) = (0, 0);
    for (_, f) in &gateway {
        if f[0] != 0x08 || f[30..32] != [0x08, 0x00] {
            continue;
        }
        let ip = &f[32..];
        if ip[9] == IP_PROTOCOL_IPIP {
            assert_eq!(
                (&ip[12..16], &ip[16..20]),
                (&[0, 0, 0, 0][..], &[0, 0, 0, 3][..])
            );
            let inner = &ip[20..];
            assert_eq!(
                (&inner[12..16], &inner[16..20]),
                (&[0, 0, 0, 0][..], &[0, 0, 0, 4][..])
            );
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 20 + 8 + 512);
            tunnelled += 1;
        } else if ip[9] == 17 && ip[12..16] == [0, 0, 0, 4] {
            assert_eq!(&ip[16..20], &[0, 0, 0, 1]);
            out_of_host += 1;
        }
    }
    assert!(tunnelled >= to_host.received, "{tunnelled}");
    assert!(out_of_host >= from_host.received, "{out_of_host}");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        (0..5).map(|n| format!("run-{n}.pcap")).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_handshake_crosses_the_tunnel_in_either_direction() {
    // The SYN (and SCTP's INIT) is a control packet from the flow's source:
    // at the gateway it goes on to the host, as the receiver's ACKs come
    // back. It once stopped at the gateway, and such a flow sent nothing.
    let with_syn = TCP.replace("tcp = {handshake = false}", "tcp = {handshake = true}");
    for (flow, sets) in [
        (with_syn.as_str(), vec!["flows.0.src=2"]),
        (with_syn.as_str(), vec!["flows.0.src=4", "flows.0.dst=2"]),
        (
            "src = 2\ndst = 4\nstart_s = 1.0\npacket_size_bytes = 1000\n\
             transport = \"sctp\"\napp = \"ftp\"",
            vec![],
        ),
    ] {
        let r = run_text(&chain(flow), &sets);
        let f = &r.flows[0];
        assert!(f.received > 500, "{flow} {sets:?}: {}", f.received);
        assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
        assert!(r.ledger.balanced);
    }
}

#[test]
fn aodv_uu_seeks_the_host_and_only_the_gateway_answers_with_its_extension() {
    let uu = ["routing.aodv.preset=\"aodv_uu\""];
    let host = run_text(&chain(CBR), &uu);
    let mut to_gw = uu.to_vec();
    to_gw.push("flows.0.dst=3");
    let gateway = run_text(&chain(CBR), &to_gw);
    let (h, g) = (&host.flows[0], &gateway.flows[0]);
    assert_eq!(h.sent, 236);
    assert_eq!(h.received, h.sent);
    assert!(host.ledger.balanced);
    // A reply is 48 bytes at the IP layer (20 + UDP 8 + IP 20); the
    // gateway's reply for the host 6 more (AODV-UU's RREP_INET_DEST_EXT).
    // The first discovery seeks the host: its reply crosses three hops
    // with the extension. A HELLO-detected break later sends node 0 after
    // the gateway itself (the Internet route still up): an ordinary reply.
    let rrep = |r: &crate::metrics::result::RunResult| r.routing.by_message["rrep"].clone();
    let (rh, rg) = (rrep(&host), rrep(&gateway));
    assert_eq!(host.routing.route_discoveries, 2);
    assert_eq!(rh.bytes - 48 * rh.packets, 3 * 6, "{rh:?}");
    assert_eq!(rg.bytes, 48 * rg.packets, "{rg:?}");
    assert_eq!(g.received, g.sent);
}

/// AODV-UU, as karlssonkassler runs it.
const AODV_UU: &str = "protocol = \"aodv\"\n[routing.aodv]\npreset = \"aodv_uu\"\n\
                       link_detection = \"mac\"";

/// Six static nodes 200 m apart with a gateway at each end (nodes 0 and
/// 5) and one host (node 6) wired to both, `routing` (the `[routing]`
/// table's lines); then `flows`.
fn two_gateways(routing: &str, flows: &str) -> String {
    format!(
        r#"
name = "two-gateways"
duration_s = 30.0
seed = 1

[nodes]
count = 6
placement = "chain"
spacing_m = 200.0

[routing]
{routing}

[gateway]
node = [0, 5]

{flows}
"#
    )
}

#[test]
fn with_two_gateways_each_node_goes_through_the_nearer_one() {
    // CBR from node 1 and from node 4 to the host: each reaches the host
    // in one wireless hop, through gateway 0 and gateway 5.
    let cbr = |src: u32| {
        format!(
            "[[flows]]\nsrc = {src}\ndst = 6\nstart_s = 1.0\npacket_size_bytes = 512\n\
             interval_s = 0.25\n"
        )
    };
    let flows = format!("{}\n{}", cbr(1), cbr(4));
    for routing in [AODV_UU, "protocol = \"dsdv\"", "protocol = \"static\""] {
        let r = run_text(&two_gateways(routing, &flows), &[]);
        for f in &r.flows {
            assert!(f.received + 2 >= f.sent, "{routing}: {f:?}");
            assert!(
                (f.hops_mean - 1.0).abs() < 1e-9,
                "{routing}: {}",
                f.hops_mean
            );
        }
        // Each gateway handed its node's packets to the host.
        assert_eq!(r.nodes[0].to_hosts, r.flows[0].received, "{routing}");
        assert_eq!(r.nodes[5].to_hosts, r.flows[1].received, "{routing}");
        assert_eq!(r.nodes[2].to_hosts, 0);
        assert!(r.ledger.balanced);
    }
}

#[test]
fn with_two_gateways_a_host_answers_through_the_gateway_its_peer_used() {
    // TCP from the host to node 4: the first packets enter at gateway 0
    // (the first listed, four hops away); node 4's ACKs leave through
    // gateway 5, its neighbour, and from then on the host's packets enter
    // there too.
    let flow = "[[flows]]\nsrc = 6\ndst = 4\nstart_s = 1.0\npacket_size_bytes = 1000\n\
                transport = \"tcp\"\napp = \"ftp\"\ntcp = {handshake = false}\n";
    let r = run_text(&two_gateways(AODV_UU, flow), &[]);
    let f = &r.flows[0];
    assert!(f.received > 1000, "{}", f.received);
    assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
    assert!(f.hops_mean < 1.01, "{}", f.hops_mean);
    // The host's first packets entered at gateway 0, the rest at 5.
    let (first, second) = (r.nodes[0].from_hosts, r.nodes[5].from_hosts);
    assert!(first >= 1 && second > 100 * first, "{first} {second}");
    // All the host sent, but what was still on the wire at the end.
    assert!(first + second <= f.sent && first + second + 20 >= f.sent);
    assert!(r.ledger.balanced);
}

#[test]
fn a_farther_second_gateway_changes_nothing_for_a_flow_through_the_nearer_one() {
    // Twelve nodes, gateways 11 and 0; TCP-AP (whose pacing reads the hop
    // count to the gateway it tunnels to) from node 3 to the host (node
    // 12) goes through gateway 0, three hops away, DSDV's table knowing
    // both: it runs exactly as with gateway 0 alone.
    let flow = "[[flows]]\nsrc = 3\ndst = 12\nstart_s = 1.0\npacket_size_bytes = 1000\n\
                transport = \"tcp\"\napp = \"ftp\"\n\
                tcp = {handshake = false, variant = \"tcp_ap\"}\n";
    let text = two_gateways("protocol = \"dsdv\"", flow);
    let run = |gateways: &str| {
        let set = format!("gateway.node={gateways}");
        let sets = [
            "nodes.count=12",
            "area.width_m=2200",
            "duration_s=90",
            "flows.0.start_s=40",
            &set,
        ];
        run_text(&text, &sets).flows[0].clone()
    };
    let (both, one) = (run("[11, 0]"), run("0"));
    assert!(both.received > 300, "{}", both.received);
    assert_eq!(both.hops_mean, 3.0);
    assert_eq!(both.received_bytes, one.received_bytes);
    assert_eq!(both.delay_ms, one.delay_ms);
}

#[test]
fn base_station_forwarding_carries_no_tunnel_header() {
    use super::tests::{pcap_records_of, scenario_with};
    use super::{run_with, Outputs};
    use crate::trace::pcap::{IP_PROTOCOL_IPIP, LINKTYPE_IEEE802_11};
    let tunnel = run_text(&chain(CBR), &[]);
    let bare = run_text(&chain(CBR), &["gateway.forwarding=base_station"]);
    let (t, b) = (&tunnel.flows[0], &bare.flows[0]);
    assert_eq!(b.sent, t.sent);
    assert_eq!(b.received, b.sent);
    // The tunnel's 20 bytes cost 80 us on each of the three hops at 2
    // Mbit/s; the routing is the same.
    let saved_ms = t.delay_ms - b.delay_ms;
    assert!((saved_ms - 0.24).abs() < 0.02, "{saved_ms}");
    assert_eq!(bare.routing.packets_sent, tunnel.routing.packets_sent);

    // On the air and in the ns-2 trace the packet goes from node 0 to the
    // host (node 4), in no outer header.
    let dir = fresh_dir("manetsim-gw-bs");
    let s = scenario_with(
        &chain(CBR),
        &[
            "gateway.forwarding=base_station",
            "output.pcap=true",
            "output.ns2_trace=true",
            "duration_s=5",
        ],
    );
    let trace = dir.join("run.tr");
    let outputs = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: Some(&dir.join("run")),
    };
    let r = run_with(&s, &outputs).unwrap();
    assert!(r.flows[0].received > 10);
    let frames = pcap_records_of(
        &std::fs::read(dir.join("run-1.pcap")).unwrap(),
        LINKTYPE_IEEE802_11,
    );
    let mut bare_udp = 0;
    for (_, f) in &frames {
        if f[0] != 0x08 || f[30..32] != [0x08, 0x00] {
            continue;
        }
        let ip = &f[32..];
        assert_ne!(ip[9], IP_PROTOCOL_IPIP);
        if ip[9] == 17 && ip[16..20] == [0, 0, 0, 4] {
            assert_eq!(&ip[12..16], &[0, 0, 0, 0]);
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 8 + 512);
            bare_udp += 1;
        }
    }
    assert!(bare_udp as u64 >= r.flows[0].received, "{bare_udp}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let relayed: Vec<_> = text
        .lines()
        .filter(|l| l.starts_with("f ") && l.contains(" _1_ RTR ") && l.contains(" cbr "))
        .collect();
    assert!(!relayed.is_empty());
    for l in relayed {
        assert!(l.contains(" cbr 540 ") && l.contains("[0:0 4:0 "), "{l}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dsdv_source_with_no_route_to_its_base_station_drops_the_packet() {
    // DSDV learns the route to the gateway, 3 hops away, only after about
    // 25 s (a settling delay per hop): CBR from 1 s finds none. Tunnelled,
    // the source holds 5 packets for the gateway (dropping the older ones);
    // as ns-2.35's base-station forwarding, it drops each one at once.
    let dsdv = ["routing.protocol=dsdv"];
    let tunnel = run_text(&chain(CBR), &dsdv);
    let bare = run_text(
        &chain(CBR),
        &["routing.protocol=dsdv", "gateway.forwarding=base_station"],
    );
    let drops = |r: &super::RunResult, reason: &str| r.drops.get(reason).copied().unwrap_or(0);
    assert_eq!(drops(&tunnel, "no_route"), 0);
    assert!(drops(&tunnel, "route_buffer_full") > 50);
    assert_eq!(drops(&bare, "route_buffer_full"), 0);
    let early = drops(&bare, "no_route");
    assert!(early > 50, "{early}");
    // Every packet is accounted for: the held ones went once the route came.
    let (t, b) = (&tunnel.flows[0], &bare.flows[0]);
    assert_eq!(b.sent, t.sent);
    assert_eq!(b.received + early, b.sent);
    assert_eq!(
        t.received + drops(&tunnel, "route_buffer_full"),
        t.sent,
        "{t:?}"
    );
}

#[test]
fn aodv_uu_refuses_base_station_forwarding() {
    let s = crate::scenario::load_str(
        &chain(CBR),
        "g.toml",
        &[
            ("routing.aodv.preset".into(), "aodv_uu".into()),
            ("gateway.forwarding".into(), "base_station".into()),
        ],
    );
    let err = s.unwrap_err().to_string();
    assert!(err.contains("gateway.forwarding"), "{err}");
}

#[test]
fn with_ns2_frames_a_host_s_packet_crosses_a_base_station_s_manet_without_a_routing_header() {
    // From the host to node 0 over three hops, with ns-2's frame sizes:
    // ns-2.35's routing agents add an IP header to the packets their node
    // originates, not to what a base station forwards from a wired host, so
    // each frame is 20 bytes (80 us at 2 Mbit/s) shorter; the flow counts
    // the same bytes either way.
    let from_host = ["flows.0.src=4", "flows.0.dst=0", "mac.frames=ns2"];
    let tunnel = run_text(&chain(CBR), &from_host);
    let mut bs = from_host.to_vec();
    bs.push("gateway.forwarding=base_station");
    let bare = run_text(&chain(CBR), &bs);
    let (t, b) = (&tunnel.flows[0], &bare.flows[0]);
    assert_eq!((b.sent, b.received), (t.sent, t.received));
    assert_eq!(b.received_bytes, t.received_bytes);
    assert_eq!(b.received_bytes, b.received * 512);
    let saved_ms = t.delay_ms - b.delay_ms;
    assert!((saved_ms - 0.24).abs() < 0.02, "{saved_ms}");
    // With the standard frames a base station forwards the datagram as it is.
    let standard = run_text(&chain(CBR), &bs[..2]);
    let mut standard_bs = bs[..2].to_vec();
    standard_bs.push("gateway.forwarding=base_station");
    let standard_bare = run_text(&chain(CBR), &standard_bs);
    assert_eq!(standard.flows[0].delay_ms, standard_bare.flows[0].delay_ms);
}

/// CBR at 100 packets/s from node 0 to the host from 40 s, and node 2,
/// node 1's next hop towards the gateway, leaving at `at_s` (out of node
/// 1's range 3 s later).
fn relay_leaves(at_s: f64) -> String {
    let cbr = "src = 0\ndst = 4\nstart_s = 40.0\npacket_size_bytes = 512\ninterval_s = 0.01";
    chain(cbr)
        + &format!(
            r#"
[mobility]
model = "waypoints"

[[mobility.moves]]
node = 2
at_s = {at_s:?}
to = [400.0, 1000.0]
speed_mps = 50.0
"#
        )
}

#[test]
fn a_dsdv_relay_with_no_route_to_its_base_station_drops_the_packet() {
    // DSDV with MAC feedback, CBR at 100 packets/s from node 0 to the
    // host from 40 s, when every route is known; at 60 s node 2 leaves.
    // Node 1's MAC gives up on it, so node 1's route to the gateway breaks
    // while node 0 still sends through node 1. ns-2.35's relay frees a
    // packet for another domain it has no route to the base station for;
    // tunnelled, a relay holds it for the gateway as for any destination.
    use super::tests::scenario_with;
    use super::{run_with, Outputs};
    let text = relay_leaves(60.0);
    let common = [
        "routing.protocol=dsdv",
        "routing.dsdv={mac_feedback = true}",
        "duration_s=90",
        "output.ns2_trace=true",
    ];
    let dir = fresh_dir("manetsim-gw-relay");
    let relay_no_route = |forwarding: &str| {
        let mut o = common.to_vec();
        let f = format!("gateway.forwarding={forwarding}");
        o.push(&f);
        let s = scenario_with(&text, &o);
        let trace = dir.join(format!("{forwarding}.tr"));
        let outputs = Outputs {
            ns2_trace: Some(&trace),
            pcap_prefix: None,
        };
        let r = run_with(&s, &outputs).unwrap();
        let text = std::fs::read_to_string(&trace).unwrap();
        let at_relay = text
            .lines()
            .filter(|l| l.starts_with("D ") && l.contains(" _1_ RTR ") && l.contains(" cbr "))
            .filter(|l| l.contains(" NRTE "))
            .count();
        (r, at_relay)
    };
    let (tunnel, tunnel_relay) = relay_no_route("tunnel");
    let (bare, bare_relay) = relay_no_route("base_station");
    assert_eq!(tunnel_relay, 0);
    assert!(bare_relay > 0, "{bare_relay}");
    let drops = |r: &super::RunResult, reason: &str| r.drops.get(reason).copied().unwrap_or(0);
    assert_eq!(drops(&tunnel, "no_route"), 0);
    assert!(drops(&tunnel, "route_buffer_full") > 0);
    assert!(drops(&bare, "no_route") >= bare_relay as u64);
    // Not even the packets the MAC failed on wait at the relay: ns-2.35's
    // `lost_link` breaks the route, then routes the packet again, and finds
    // no way to the base station.
    assert_eq!(drops(&bare, "route_buffer_full"), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dsdv_relay_whose_arp_gives_up_routes_a_host_s_packet_again_and_drops_it() {
    // DSDV with MAC feedback and ns-2's ARP. Node 2, node 1's next hop to
    // the gateway, leaves at 30 s, before node 1 has resolved its address;
    // node 1 still has the route when CBR starts at 40 s. Its ARP requests
    // go unanswered, and the fourth packet fails with the held one. ns-2.35
    // calls the failure callback (`lost_link`) for each: the route breaks,
    // the packet is routed again and, for another domain with no route to
    // the base station, freed. Tunnelled, DSDV holds them for the gateway.
    let text = relay_leaves(30.0);
    let run = |forwarding: &str| {
        let f = format!("gateway.forwarding={forwarding}");
        run_text(
            &text,
            &[
                "routing.protocol=dsdv",
                "routing.dsdv={mac_feedback = true}",
                "mac.arp=ns2",
                "duration_s=50",
                &f,
            ],
        )
    };
    let drops = |r: &super::RunResult, reason: &str| r.drops.get(reason).copied().unwrap_or(0);
    let tunnel = run("tunnel");
    let bare = run("base_station");
    for r in [&tunnel, &bare] {
        assert_eq!(r.flows[0].received, 0);
        // Three requests: the first two held packets make way for newer ones.
        assert_eq!(drops(r, "arp"), 2, "{:?}", r.drops);
    }
    assert_eq!(drops(&tunnel, "no_route"), 0);
    assert!(
        drops(&tunnel, "route_buffer_full") > 0,
        "{:?}",
        tunnel.drops
    );
    // Base-station forwarding holds nothing: the two packets ARP failed on,
    // then every later one, find no route to the base station at node 1.
    assert_eq!(drops(&bare, "route_buffer_full"), 0, "{:?}", bare.drops);
    let f = &bare.flows[0];
    assert_eq!(drops(&bare, "no_route") + 2, f.sent, "{:?}", bare.drops);
}

/// [`chain`]'s CBR under AODV-UU with gateway discovery `discovery` and
/// `more` overrides.
fn advertised_chain(discovery: &str, more: &[&str]) -> crate::metrics::result::RunResult {
    let d = format!("gateway.discovery=\"{discovery}\"");
    let mut set = vec![
        "routing.aodv.preset=\"aodv_uu\"",
        "routing.aodv.link_detection=\"mac\"",
        d.as_str(),
    ];
    set.extend_from_slice(more);
    run_text(&chain(CBR), &set)
}

#[test]
fn proactive_advertisements_reach_every_node_and_no_host_is_sought() {
    let r = advertised_chain("proactive", &[]);
    let f = &r.flows[0];
    assert_eq!(f.sent, 236);
    assert_eq!(f.received, f.sent, "{:?}", r.drops);
    assert!(r.ledger.balanced);
    // Twelve advertisements in 60 s (the first within 5 s, then one every
    // 5 s), each sent by the gateway and passed on by nodes 2, 1 and 0:
    // 54 bytes each (IP 20, UDP 8, the RREP 20 and its 6-byte mark).
    let adv = &r.routing.by_message["gwadv"];
    assert_eq!((adv.packets, adv.forwarded, adv.bytes), (48, 36, 48 * 54));
    // Node 0 learns the gateway from them: no request, for the host or
    // for the gateway, in the whole run.
    assert_eq!(r.routing.route_discoveries, 0);
    assert!(!r.routing.by_message.contains_key("rreq"));
    assert!((f.hops_mean - 3.0).abs() < 1e-9);
    // The same run with reactive discovery seeks the host.
    let reactive = advertised_chain("reactive", &[]);
    assert!(reactive.routing.route_discoveries >= 1);
    assert!(!reactive.routing.by_message.contains_key("gwadv"));
}

#[test]
fn hybrid_advertisements_stop_at_the_zone_and_farther_sources_seek_the_host() {
    for zone in [1u64, 2, 3] {
        let z = format!("gateway.advertisement_zone_hops={zone}");
        let r = advertised_chain("hybrid", &[z.as_str()]);
        let f = &r.flows[0];
        assert_eq!(f.received, f.sent, "zone {zone}: {:?}", r.drops);
        assert!(r.ledger.balanced);
        // The gateway's twelve advertisements go `zone` hops: passed on by
        // the nodes nearer than the zone's edge.
        let adv = &r.routing.by_message["gwadv"];
        assert_eq!((adv.packets, adv.forwarded), (12 * zone, 12 * (zone - 1)));
        // Node 0 is three hops from the gateway. Outside the zone it seeks
        // the host, and the gateway answers naming it (6 bytes more).
        let rrep = &r.routing.by_message["rrep"];
        if zone < 3 {
            assert!(r.routing.route_discoveries >= 1, "zone {zone}");
            assert_eq!(rrep.bytes - 48 * rrep.packets, 3 * 6, "zone {zone}");
        } else {
            // Inside it, at most the search its first packet started
            // before the first advertisement came.
            assert!(r.routing.route_discoveries <= 1, "zone {zone}");
        }
    }
}

#[test]
fn olsr_finds_the_gateway_by_its_hna_messages() {
    let olsr = "routing.protocol=\"olsr\"";
    let r = run_text(&chain(CBR), &[olsr]);
    let f = &r.flows[0];
    assert_eq!(f.sent, 236);
    assert_eq!(f.received, f.sent, "{:?}", r.drops);
    assert!(r.ledger.balanced);
    assert!((f.hops_mean - 3.0).abs() < 1e-9);
    // Twelve HNAs in 60 s (HNA_INTERVAL 5 s), each sent by the gateway
    // and relayed by its MPR, node 2, and node 2's, node 1: 52 bytes each
    // (IP 20, UDP 8, OLSR 4, the message 12, the default route 8).
    let hna = &r.routing.by_message["hna"];
    assert_eq!((hna.packets, hna.forwarded, hna.bytes), (36, 24, 36 * 52));
    // Before the first HNA reached node 0 (near 5 s) its packets waited:
    // more often announced, the gateway is known sooner.
    let often = run_text(&chain(CBR), &[olsr, "gateway.advertisement_interval_s=2.0"]);
    let g = &often.flows[0];
    assert_eq!(g.received, g.sent);
    // Every 2 s less a jitter of up to 0.5 s: 30 to 40 in 60 s, relayed
    // twice each once the MPRs are chosen (not the first few).
    let hna = &often.routing.by_message["hna"];
    let sent = hna.packets - hna.forwarded;
    assert!((30..=40).contains(&sent), "{hna:?}");
    assert!(
        (2 * sent - 6..=2 * sent).contains(&hna.forwarded),
        "{hna:?}"
    );
    assert!(
        g.delay_ms < f.delay_ms,
        "{} against {}",
        g.delay_ms,
        f.delay_ms
    );
    // To the gateway itself no HNA is needed: its packets wait only for
    // the route.
    let to_gateway = run_text(&chain(CBR), &[olsr, "flows.0.dst=3"]);
    assert!(to_gateway.flows[0].delay_ms < f.delay_ms);
}

#[test]
fn under_olsr_a_node_tunnels_to_the_nearest_announcing_gateway() {
    // Gateways at both ends of the chain: node 1 is one hop from node 0,
    // two from node 3; node 2 the other way round.
    let both = ["routing.protocol=\"olsr\"", "gateway.node=[3, 0]"];
    for (src, gateway) in [(1, 0), (2, 3)] {
        let s = format!("flows.0.src={src}");
        let mut set = both.to_vec();
        set.push(&s);
        let r = run_text(&chain(CBR), &set);
        let f = &r.flows[0];
        assert_eq!(f.received, f.sent, "{:?}", r.drops);
        assert!(
            (f.hops_mean - 1.0).abs() < 1e-9,
            "from {src}: {}",
            f.hops_mean
        );
        // Each gateway's HNAs, relayed by nodes 1 and 2.
        let hna = &r.routing.by_message["hna"];
        assert_eq!((hna.packets, hna.forwarded), (72, 48));
        assert_eq!(r.nodes[gateway].to_hosts, f.sent, "from {src}");
        assert_eq!(r.nodes[3 - gateway].to_hosts, 0, "from {src}");
    }
}
