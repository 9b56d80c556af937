//! A gateway's wired links to Internet hosts, end to end: small scenarios
//! with asserted numbers.

use super::tests::run_text;

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
