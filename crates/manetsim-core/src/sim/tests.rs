//! The world's own tests: overheard frames handed to passive MACs late (see
//! `LazyRx`) must give exactly what one event per reception gives.

use super::*;

/// Runs `text` twice, with overheard frames as events and lazily, and
/// returns both results (wall time zeroed) and the lazy run's count of
/// receptions that skipped the queue.
/// Runs `text` with every reception an event and with lazy receptions,
/// checks that both give the same result and that more than `min_lazy`
/// receptions were lazy, and returns the lazy run's result.
fn lazy_as_eager(text: &str, min_lazy: u64) -> RunResult {
    let (eager, lazy, lazy_count, _) = both_ways_counting_floods(text);
    assert_same(&eager, &lazy);
    assert!(lazy_count > min_lazy, "{lazy_count} lazy receptions");
    lazy
}

/// [`lazy_as_eager`] on a run in which every flow delivers and every
/// packet is accounted for.
fn lazy_as_eager_delivering(text: &str, min_lazy: u64) -> RunResult {
    let lazy = lazy_as_eager(text, min_lazy);
    assert!(
        lazy.flows.iter().all(|f| f.received > 0),
        "{:?}",
        lazy.flows
    );
    assert!(lazy.ledger.balanced, "{:?}", lazy.ledger);
    lazy
}

/// [`MOBILE_AODV`] over `protocol`, with `seed`.
fn mobile(protocol: &str, seed: u64) -> String {
    MOBILE_AODV
        .replace("protocol = \"aodv\"", &format!("protocol = \"{protocol}\""))
        .replace("seed = 3", &format!("seed = {seed}"))
}

/// Both runs of [`lazy_as_eager`], unchecked, with the count of lazy
/// receptions and of those that were copies of floods their node had seen.
fn both_ways_counting_floods(text: &str) -> (RunResult, RunResult, u64, u64) {
    let s = crate::scenario::load_str(text, "test.toml", &[]).expect("valid scenario");
    let mut runs = Vec::new();
    let (mut lazy_count, mut seen_floods) = (0, 0);
    for lazy in [false, true] {
        let mut w = build::build(&s).expect("builds");
        w.overhear_lazily = lazy;
        w.run();
        let mut r = w.result(&s, 0.0);
        r.events_per_s = 0.0;
        if lazy {
            lazy_count = w.lazy_receptions;
            seen_floods = w.seen_floods;
        } else {
            assert_eq!(w.lazy_receptions, 0);
            assert_eq!(w.seen_floods, 0);
        }
        runs.push(r);
    }
    let lazy = runs.pop().unwrap();
    let eager = runs.pop().unwrap();
    (eager, lazy, lazy_count, seen_floods)
}

fn assert_same(eager: &RunResult, lazy: &RunResult) {
    assert_eq!(eager.flows, lazy.flows);
    assert_eq!(eager.mac, lazy.mac);
    assert_eq!(eager.nodes, lazy.nodes);
    assert_eq!(eager.routing, lazy.routing);
    assert_eq!(eager.ledger, lazy.ledger);
    assert_eq!(eager.drops, lazy.drops);
    // Every overheard start and end is counted once either way.
    assert_eq!(eager.events, lazy.events);
}

const MOBILE_AODV: &str = r#"
name = "lazy-mobile"
duration_s = 40.0
seed = 3

[area]
width_m = 1000.0
height_m = 700.0

[nodes]
count = 30

[mobility]
model = "random_waypoint"
min_speed_mps = 1.0
max_speed_mps = 15.0
pause_s = 2.0

[routing]
protocol = "aodv"

[[flows]]
src = 0
dst = 1
transport = "tcp"
app = "ftp"
start_s = 1.0
packet_size_bytes = 512

[flows.tcp]
variant = "newreno"
handshake = false

[[flows]]
src = 2
dst = 3
transport = "udp"
app = "cbr"
start_s = 1.5
packet_size_bytes = 512
rate_bps = 65536

[[flows]]
src = 4
dst = 5
transport = "udp"
app = "cbr"
start_s = 2.0
packet_size_bytes = 512
rate_bps = 65536

[[flows]]
src = 6
dst = 7
transport = "udp"
app = "cbr"
start_s = 2.5
packet_size_bytes = 1000
rate_bps = 200000
"#;

#[test]
fn lazy_overhearing_changes_nothing_in_a_mobile_aodv_run() {
    let (eager, lazy, lazy_count, seen_floods) = both_ways_counting_floods(MOBILE_AODV);
    assert_same(&eager, &lazy);
    // Copies of RREQs their receivers had seen, which the eager run hands
    // to AODV (to be dropped) and the lazy one only to the MAC.
    assert!(seen_floods > 1_000, "{seen_floods} of {lazy_count}");
    // The run must exercise what it checks: contention, failed receptions,
    // and most receptions skipping the queue.
    assert!(lazy.mac.collisions > 100, "{:?}", lazy.mac);
    assert!(lazy.flows.iter().all(|f| f.received > 0));
    assert!(lazy.ledger.balanced);
    assert!(
        lazy_count * 4 > lazy.events,
        "{lazy_count} lazy receptions of {} events",
        lazy.events
    );
}

#[test]
fn lazy_overhearing_changes_nothing_with_rts_cts_in_a_static_grid() {
    let text = r#"
name = "lazy-grid"
duration_s = 30.0
seed = 5

[area]
width_m = 1200.0
height_m = 600.0

[nodes]
count = 21
placement = "grid"
rows = 3
cols = 7
spacing_m = 200.0

[mac]
rts_threshold_bytes = 0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 6
transport = "udp"
app = "cbr"
packet_size_bytes = 512
rate_bps = 400000
start_s = 1.0

[[flows]]
src = 14
dst = 20
transport = "udp"
app = "cbr"
packet_size_bytes = 512
rate_bps = 400000
start_s = 1.1

[[flows]]
src = 7
dst = 13
transport = "udp"
app = "cbr"
packet_size_bytes = 512
rate_bps = 400000
start_s = 1.2
"#;
    let lazy = lazy_as_eager(text, 1000);
    assert!(lazy.mac.collisions > 10, "{:?}", lazy.mac);
    assert!(lazy.mac.rts_failures > 0, "{:?}", lazy.mac);
}

#[test]
fn lazy_overhearing_changes_nothing_with_loss_models_drawing_per_frame() {
    // A loss model before the MAC draws for every frame addressed to its
    // node, decodable or not: those frames must stay in step.
    let mut text = mobile("aodv", 11);
    for node in [1, 3, 5, 9] {
        text.push_str(&format!(
            "\n[[loss]]\nnode = {node}\nmodel = \"uniform\"\nrate = 0.1\npackets = \"all\"\nwhere = \"before_mac\"\n"
        ));
    }
    let lazy = lazy_as_eager(&text, 10_000);
    assert!(
        lazy.drops["loss_model"] == 0,
        "before_mac losses are MAC retries"
    );
    assert!(lazy.mac.retries > 0, "{:?}", lazy.mac);
}

#[test]
fn lazy_overhearing_changes_nothing_with_dsr_overhearing_promiscuously() {
    // DSR's gratuitous replies need every decodable data frame for another
    // node handed to its agent: those receptions stay events, the rest
    // may still be lazy.
    let lazy = lazy_as_eager_delivering(&mobile("dsr", 4), 10_000);
    let grat = lazy
        .routing
        .by_message
        .get("grat_rrep")
        .map_or(0, |m| m.packets);
    assert!(grat > 0, "{:?}", lazy.routing.by_message);
}

#[test]
fn lazy_overhearing_changes_nothing_with_dsr_overhearing_control_too() {
    // DSR's ns2 preset also overhears unicast replies and route errors.
    let text = mobile("dsr", 4) + "\n[routing.dsr]\npreset = \"ns2\"\n";
    lazy_as_eager_delivering(&text, 10_000);
}

#[test]
fn lazy_overhearing_changes_nothing_with_arp() {
    // ARP requests are broadcasts every neighbour learns from, replies
    // unicast frames a promiscuous MAC must not hand to routing.
    for protocol in ["aodv", "dsr"] {
        let text = mobile(protocol, 4)
            + &format!("\n[mac]\narp = \"ns2\"\n\n[routing.{protocol}]\npreset = \"ns2\"\n");
        let lazy = lazy_as_eager_delivering(&text, 10_000);
        assert!(lazy.mac.arp_requests > 50, "{protocol}: {:?}", lazy.mac);
        assert!(lazy.mac.arp_replies > 0, "{protocol}: {:?}", lazy.mac);
    }
}

#[test]
fn only_a_promiscuous_agent_makes_the_macs_promiscuous() {
    let on = mobile("dsr", 3);
    let off = format!("{on}\n[routing.dsr]\ngratuitous_replies = false\n");
    let ns2 = format!("{off}preset = \"ns2\"\n");
    for (text, want, control) in [
        (MOBILE_AODV.to_string(), false, false),
        (on, true, false),
        (off, false, false),
        (ns2, true, true),
    ] {
        let s = crate::scenario::load_str(&text, "test.toml", &[]).expect("valid scenario");
        let w = build::build(&s).expect("builds");
        assert_eq!((w.promiscuous, w.tap_control), (want, control));
        assert!(w.nodes.iter().all(|n| n.mac.is_promiscuous() == want));
    }
}

#[test]
fn lazy_overhearing_changes_nothing_in_a_tcp_chain_with_equal_spacing() {
    // Equal spacing makes frames start and end at the same nanosecond as
    // timers at the receivers: the order at one instant must not depend on
    // whether a reception was an event.
    let text = r#"
name = "lazy-chain"
duration_s = 30.0
seed = 2

[area]
width_m = 1200.0
height_m = 200.0

[nodes]
count = 6
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "aodv"

[[flows]]
src = 0
dst = 5
transport = "tcp"
app = "ftp"
start_s = 1.0
packet_size_bytes = 512

[flows.tcp]
variant = "newreno"
handshake = false
"#;
    let lazy = lazy_as_eager(text, 10_000);
    assert!(lazy.flows[0].received > 500, "{:?}", lazy.flows[0]);
    assert!(lazy.mac.collisions > 10, "{:?}", lazy.mac);
}

#[test]
fn events_stay_compact() {
    // The heap moves whole entries (time, tie key, event): a wider event
    // would slow every pop.
    assert!(std::mem::size_of::<Event>() <= 16);
}

/// Prefetching the listeners' state (large networks only) is a hint to the
/// CPU: the same run gives the same result, event for event, with or without.
#[test]
fn prefetching_listeners_changes_nothing() {
    let s = crate::scenario::load_str(MOBILE_AODV, "test.toml", &[]).expect("valid scenario");
    assert!((s.nodes.count as usize) < PREFETCH_MIN_NODES);
    let mut runs = Vec::new();
    for warm in [false, true] {
        let mut w = build::build(&s).expect("builds");
        assert!(!w.prefetch_listeners);
        w.prefetch_listeners = warm;
        w.run();
        let mut r = w.result(&s, 0.0);
        r.events_per_s = 0.0;
        runs.push(r);
    }
    assert!(runs[0].flows[0].received > 0, "{:?}", runs[0].flows);
    assert_same(&runs[0], &runs[1]);
}

/// A 512-byte data packet from `src` to `dst` with `uid`, as a transport
/// hands it to routing (no routing header yet).
fn data_packet(src: NodeId, dst: NodeId, uid: u64) -> Packet {
    let mut p = Packet::control(src, dst, 32, 8, Vec::new());
    p.kind = PacketKind::Data { flow: 0, seq: 0 };
    p.body = None;
    p.payload_bytes = 512;
    p.size_bytes = 20 + 8 + 512;
    p.uid = uid;
    p
}

#[test]
fn a_packet_back_at_its_source_is_dropped_as_a_routing_loop() {
    // Node 0's own data packet comes back to it from node 1 (a loop of
    // stale routes). A hop-by-hop agent drops it there, counted as
    // `no_route` and traced `LOOP`, as ns-2.35's AODV, AOMDV and DSDV do,
    // before its TTL is touched; a packet of another node goes on.
    for protocol in ["aodv", "aomdv", "dsdv", "olsr", "static"] {
        let text = format!(
            "duration_s = 1.0\n[nodes]\ncount = 3\nplacement = \"chain\"\n\
             spacing_m = 200.0\n[routing]\nprotocol = \"{protocol}\"\n"
        );
        let s = crate::scenario::load_str(&text, "test.toml", &[]).expect("valid scenario");
        let mut w = build::build(&s).expect("builds");
        let mac = MacFields::received(0, 1, false, 0);
        let mut back = data_packet(0, 2, 9);
        back.hops = 3;
        w.receive(0, 0, 1, back, mac);
        assert_eq!(w.ledger.dropped(DropReason::NoRoute), 1, "{protocol}");
        assert_eq!(w.ledger.dropped_total(), 1, "{protocol}");
        assert_eq!(w.nodes[0].forwarded, 0, "{protocol}");
        // Node 1 routes it (with a route or not yet one: what its agent
        // does with it is its own).
        w.receive(
            0,
            1,
            0,
            data_packet(0, 2, 10),
            MacFields::received(1, 0, false, 0),
        );
        assert_eq!(
            w.nodes[1].forwarded, 1,
            "{protocol}: a relay's packet goes on"
        );
    }
    // DSR's packets follow their source routes, which never pass their
    // source twice: ns-2.35's DSR has no such check, and neither has ours.
    let text = "duration_s = 1.0\n[nodes]\ncount = 3\nplacement = \"chain\"\n\
                spacing_m = 200.0\n[routing]\nprotocol = \"dsr\"\n";
    let s = crate::scenario::load_str(text, "test.toml", &[]).expect("valid scenario");
    let w = build::build(&s).expect("builds");
    assert!(!w.nodes[0].router.drops_returning_packets());
}

#[test]
fn what_routing_sends_on_a_mac_failure_queues_after_the_macs_next_packet() {
    // Node 1 of a DSR chain fails to forward a source-routed packet to
    // node 2 while a packet for node 0 waits in its queue. ns-2's agent
    // sends its route error as an event after the MAC has taken that
    // packet, although the error's band of the queue is served first;
    // manetsim does the same.
    let text = r#"
duration_s = 1.0
[nodes]
count = 3
placement = "chain"
spacing_m = 200.0
[routing]
protocol = "dsr"
[routing.dsr]
preset = "ns2"
"#;
    let s = crate::scenario::load_str(text, "test.toml", &[]).expect("valid scenario");
    let mut w = build::build(&s).expect("builds");
    let waiting = data_packet(2, 0, 7);
    assert!(matches!(
        w.nodes[1].ifq.enqueue(waiting, 0),
        Enqueued::Accepted
    ));
    assert!(w.nodes[1].mac.ready_for_packet());
    let failed = crate::routing::dsr::Dsr::with_source_route(data_packet(0, 2, 8), &[1], 0);
    let gave_up = crate::mac::GaveUp {
        duration_ns: 314_000,
        rts_duration_ns: Some(1_222_000),
    };
    w.on_mac_done(0, 1, failed, 2, TxOutcome::Failed(gave_up));
    assert_eq!(
        w.nodes[1].mac.pending_packet().map(|p| p.uid),
        Some(7),
        "the MAC took the packet that was waiting"
    );
    let queued = w.nodes[1].ifq.dequeue().expect("the route error waits");
    assert!(queued.0.is_control());
    assert_eq!(queued.1, 0, "to the source");
    assert_eq!(w.routing_stats.by_message.get("rerr").map(|e| e.0), Some(1));
}

#[test]
fn dsr_like_ns2_reports_a_break_for_the_failed_packet_alone() {
    // Node 1's MAC gives up on a packet from 0 for 2 while its queue holds
    // a relayed packet for 2 from node 3. ns-2.35's `xmitFailed` sends one
    // route error (to 0, for the failed packet) and salvages the queued
    // packet without one; the RFC preset reports the break to 3 as well.
    for (preset, errors) in [("ns2", 1), ("rfc", 2)] {
        let text = format!(
            "duration_s = 1.0\n[nodes]\ncount = 4\nplacement = \"chain\"\n\
             spacing_m = 200.0\n[routing]\nprotocol = \"dsr\"\n\
             [routing.dsr]\npreset = \"{preset}\"\n"
        );
        let s = crate::scenario::load_str(&text, "test.toml", &[]).expect("valid scenario");
        let mut w = build::build(&s).expect("builds");
        let data = |src: NodeId, dst: NodeId, uid: u64| {
            crate::routing::dsr::Dsr::with_source_route(data_packet(src, dst, uid), &[1], 0)
        };
        assert!(matches!(
            w.nodes[1].ifq.enqueue(data(3, 2, 7), 2),
            Enqueued::Accepted
        ));
        let gave_up = crate::mac::GaveUp {
            duration_ns: 314_000,
            rts_duration_ns: Some(1_222_000),
        };
        w.on_mac_done(0, 1, data(0, 2, 8), 2, TxOutcome::Failed(gave_up));
        assert_eq!(
            w.routing_stats.by_message.get("rerr").map(|e| e.0),
            Some(errors),
            "{preset}"
        );
    }
}

/// A 1 s world of three nodes 200 m apart in a chain, over AODV with
/// `preset`, not yet run.
fn aodv_chain3(preset: &str) -> World {
    let text = format!(
        "duration_s = 1.0\n[nodes]\ncount = 3\nplacement = \"chain\"\n\
         spacing_m = 200.0\n[routing]\nprotocol = \"aodv\"\n\
         [routing.aodv]\npreset = \"{preset}\"\n"
    );
    let s = crate::scenario::load_str(&text, "test.toml", &[]).expect("valid scenario");
    build::build(&s).expect("builds")
}

#[test]
fn aodv_like_ns2_drops_every_packet_queued_for_a_lost_neighbour_replies_too() {
    // ns-2.35's AODV empties its queue of what waits for the lost
    // neighbour with `PriQueue::filter`, which matches the next hop alone:
    // a reply goes with the data. The RFC preset takes back data only.
    for (preset, left) in [("ns2", vec![9]), ("rfc", vec![5, 9])] {
        let mut w = aodv_chain3(preset);
        let mut data = Packet::control(0, 2, 32, 8, Vec::new());
        data.kind = PacketKind::Data { flow: 0, seq: 0 };
        data.body = None;
        data.uid = 4;
        let mut reply = Packet::control(1, 2, 32, 8, vec![2; 20]);
        reply.uid = 5;
        let mut other = Packet::control(1, 0, 32, 8, vec![2; 20]);
        other.uid = 9;
        // Queued behind a packet the MAC holds, so none leaves.
        w.nodes[1].mac.send(0, data.clone(), 0, &mut Vec::new());
        for (p, hop) in [(data, 2), (reply, 2), (other, 0)] {
            assert!(matches!(w.nodes[1].ifq.enqueue(p, hop), Enqueued::Accepted));
        }
        w.apply_routing(0, 1, RoutingAction::Reroute { next_hop: 2 });
        let mut kept = Vec::new();
        while let Some((p, _)) = w.nodes[1].ifq.dequeue() {
            kept.push(p.uid);
        }
        // (The RFC agent reports the data it cannot route: a new RERR.)
        kept.retain(|uid| [4, 5, 9].contains(uid));
        kept.sort_unstable();
        assert_eq!(kept, left, "{preset}");
        // ns-2.35 drops them with the failed packet's reason (`RTR CBK`).
        let (no_route, retry_limit) = if preset == "ns2" { (0, 2) } else { (1, 0) };
        assert_eq!(w.ledger.dropped(DropReason::NoRoute), no_route, "{preset}");
        assert_eq!(
            w.ledger.dropped(DropReason::RetryLimit),
            retry_limit,
            "{preset}"
        );
    }
}

#[test]
fn aodv_like_ns2_hears_nothing_of_a_control_packet_its_mac_gave_up_on() {
    // ns-2.35's AODV sets no failure callback on its control packets: a
    // reply the MAC gives up on is dropped there (its `RET` line), and no
    // link breaks, not even when only the ACKs were lost and the neighbour
    // has the reply. The RFC preset hears of every failure.
    for (preset, handed_over, kept, dropped) in [
        ("ns2", false, 1, 1),
        ("ns2", true, 1, 0),
        ("rfc", false, 0, 1),
        ("rfc", true, 0, 0),
    ] {
        // Node 1's MAC is busy with another packet, so none leaves the
        // queue (the world hands the next one to an idle MAC).
        let mut w = aodv_chain3(preset);
        let mut reply = Packet::control(1, 2, 32, 8, vec![2; 20]);
        reply.uid = 5;
        let mut data = Packet::control(0, 2, 32, 8, Vec::new());
        data.kind = PacketKind::Data { flow: 0, seq: 0 };
        data.body = None;
        data.uid = 4;
        let mut busy = data.clone();
        busy.uid = 3;
        w.nodes[1].mac.send(0, busy, 0, &mut Vec::new());
        assert!(matches!(
            w.nodes[1].ifq.enqueue(data, 2),
            Enqueued::Accepted
        ));
        w.nodes[1].handed_over = handed_over;
        let gave_up = crate::mac::GaveUp {
            duration_ns: 314_000,
            rts_duration_ns: Some(1_222_000),
        };
        w.on_mac_done(0, 1, reply, 2, TxOutcome::Failed(gave_up));
        let queued = std::iter::from_fn(|| w.nodes[1].ifq.dequeue())
            .filter(|(p, _)| p.uid == 4)
            .count();
        let label = format!("{preset}, handed over: {handed_over}");
        assert_eq!(queued, kept, "the data for the same neighbour: {label}");
        assert_eq!(w.ledger.dropped(DropReason::RetryLimit), dropped, "{label}");
    }
}

pub(super) const CBR_CHAIN3: &str = r#"
name = "ll-chain"
duration_s = 5.0
seed = 1

[area]
width_m = 600.0
height_m = 100.0

[nodes]
count = 3
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 2
transport = "udp"
app = "cbr"
start_s = 1.0
stop_s = 1.5
rate_bps = 8192
packet_size_bytes = 512
"#;

/// An empty directory `NAME-PID` under the system's temporary directory,
/// for a test's output files (the test removes it when done).
pub(super) fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The scenario `text` with `key=value` overrides.
pub(super) fn scenario_with(text: &str, overrides: &[&str]) -> crate::scenario::Scenario {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|o| {
            let (k, v) = o.split_once('=').expect("key=value");
            (k.to_string(), v.to_string())
        })
        .collect();
    crate::scenario::load_str(text, "test.toml", &overrides).expect("valid scenario")
}

pub(super) fn run_text(text: &str, overrides: &[&str]) -> RunResult {
    let s = scenario_with(text, overrides);
    let mut w = build::build(&s).expect("builds");
    w.run();
    w.result(&s, 0.0)
}

#[test]
fn the_link_layer_delays_a_packet_down_at_the_source_and_up_at_the_destination() {
    // One packet (2 packets/s for 0.5 s) over two hops on an idle chain.
    // It crosses the link layer four times, 25 µs each, but at the relay
    // the way up and down (50 µs) passes while the relay's MAC sends the
    // ACK for it (SIFS + 304 µs), after which it waits DIFS and the same
    // backoff either way: 50 µs added in all, as in ns-2.35.
    let plain = run_text(CBR_CHAIN3, &[]);
    let ll = run_text(CBR_CHAIN3, &["mac.ll_delay_s=25e-6"]);
    assert_eq!((plain.flows[0].received, ll.flows[0].received), (1, 1));
    let added_ms = ll.flows[0].delay_ms - plain.flows[0].delay_ms;
    assert!((added_ms - 0.050).abs() < 1e-9, "{added_ms} ms");
    // Without a relay, both crossings show: 25 µs down and 25 µs up.
    let one_hop = CBR_CHAIN3.replace("dst = 2", "dst = 1");
    let plain = run_text(&one_hop, &[]);
    let ll = run_text(&one_hop, &["mac.ll_delay_s=25e-6"]);
    let added_ms = ll.flows[0].delay_ms - plain.flows[0].delay_ms;
    assert!((added_ms - 0.050).abs() < 1e-9, "{added_ms} ms");
    assert!(ll.ledger.balanced);
}

#[test]
fn packets_inside_the_link_layer_count_as_in_flight_when_the_run_ends() {
    // A TCP chain cut off at many instants: at some, packets are between
    // the MAC and routing or the queue, and the ledger balances at all.
    let text = CBR_CHAIN3
        .replace(
            "transport = \"udp\"\napp = \"cbr\"",
            "transport = \"tcp\"\napp = \"ftp\"",
        )
        .replace("stop_s = 1.5\nrate_bps = 8192\n", "");
    let mut caught = 0;
    for i in 0..400 {
        let end = format!("duration_s={}", 2.0 + f64::from(i) * 53e-6);
        let overrides = [("mac.ll_delay_s", "25e-6"), ("duration_s", &end[11..])]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let s = crate::scenario::load_str(&text, "test.toml", &overrides).expect("valid");
        let mut w = build::build(&s).expect("builds");
        w.run();
        caught += w.parked.iter().flatten().count();
        let r = w.result(&s, 0.0);
        assert!(r.ledger.balanced, "{end}: {:?}", r.ledger);
        assert!(r.flows[0].received > 10, "{end}: {:?}", r.flows[0]);
    }
    assert!(caught > 0, "no run ended with a packet in the link layer");
}

#[test]
fn lazy_overhearing_changes_nothing_with_a_link_layer_delay() {
    for protocol in ["aodv", "dsr"] {
        let text = mobile(protocol, 3)
            + "\n[mac]\nll_delay_s = 25e-6\nframes = \"ns2\"\nbackoff_draw = \"ns2\"\n";
        lazy_as_eager_delivering(&text, 10_000);
    }
}

/// A run with `[output] ns2_trace` gives the same result as one without,
/// and its trace has a line for every packet sent, delivered and dropped.
#[test]
fn a_trace_changes_nothing_and_has_every_packet() {
    let text = r#"
name = "traced"
duration_s = 30.0
seed = 5

[area]
width_m = 900.0
height_m = 600.0

[nodes]
count = 14

[mobility]
model = "random_waypoint"
min_speed_mps = 1.0
max_speed_mps = 15.0
pause_s = 1.0

[mac]
arp = "ns2"
queue_packets = 5

[routing]
protocol = "dsr"

[[flows]]
src = 0
dst = 1
transport = "udp"
app = "cbr"
start_s = 1.0
rate_bps = 400000.0
packet_size_bytes = 512

[[flows]]
src = 2
dst = 3
transport = "tcp"
app = "ftp"
start_s = 2.0
packet_size_bytes = 512

[[loss]]
node = 3
model = "uniform"
rate = 0.05
packets = "data"
where = "after_mac"
"#;
    let dir = std::env::temp_dir().join(format!("manetsim-sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("traced.tr");
    let plain = crate::scenario::load_str(text, "test.toml", &[]).unwrap();
    let traced = crate::scenario::load_str(
        text,
        "test.toml",
        &[("output.ns2_trace".into(), "true".into())],
    )
    .unwrap();
    let mut a = run(&plain).unwrap();
    let mut b = run_traced(&traced, Some(&path)).unwrap();
    for r in [&mut a, &mut b] {
        r.wall_s = 0.0;
        r.events_per_s = 0.0;
    }
    assert_same(&a, &b);
    assert_eq!(a.timeseries, b.timeseries);

    let trace = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut last = 0.0;
    let (mut agt_sent, mut agt_received) = ([0u64; 2], [0u64; 2]);
    let mut drops: BTreeMap<String, u64> = BTreeMap::new();
    let mut macs = 0;
    for line in trace.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let now: f64 = t[1].parse().unwrap();
        assert!(now >= last, "out of order: {line}");
        last = now;
        let flow = || {
            let ip = t
                .iter()
                .position(|x| x.starts_with('[') && x.contains(':'))
                .unwrap();
            t[ip].split(':').nth(1).unwrap().parse::<usize>().unwrap()
        };
        match (t[0], t[3], t[6]) {
            ("s", "AGT", "cbr" | "tcp") => agt_sent[flow()] += 1,
            ("r", "AGT", "cbr" | "tcp") => agt_received[flow()] += 1,
            ("s", "MAC", _) => macs += 1,
            ("D", layer, _) => *drops.entry(format!("{layer}:{}", t[4])).or_default() += 1,
            _ => {}
        }
    }
    for f in 0..2 {
        assert_eq!(agt_sent[f], a.flows[f].sent, "flow {f}");
        // TCP may deliver a segment twice; the result counts it once.
        assert!(agt_received[f] >= a.flows[f].received, "flow {f}");
    }
    assert_eq!(agt_received[0], a.flows[0].received);
    assert_eq!(macs, a.mac.frames_sent);
    for reason in DropReason::ALL {
        let code_of =
            |r| crate::trace::ns2::drop_code_under(crate::scenario::RoutingProtocol::Dsr, r);
        let (layer, code) = code_of(reason);
        let key = format!("{}:{code}", layer.code());
        // DSR's full send buffer and its timeouts share ns-2's code.
        let expected: u64 = DropReason::ALL
            .iter()
            .filter(|r| code_of(**r) == (layer, code))
            .map(|r| a.drops[r.name()])
            .sum();
        assert_eq!(drops.get(&key).copied().unwrap_or(0), expected, "{key}");
    }
    for reason in ["queue_full", "loss_model"] {
        assert!(a.drops[reason] > 0, "{reason}: {:?}", a.drops);
    }
}

/// What DSR's send buffer holds when the run ends is traced as ns-2.35's
/// reset drops it (`Terminate`, `DROP_END_OF_SIMULATION`): a `D … RTR END`
/// line a packet, after the node's queue; they stay in flight in the
/// results. Here node 2 is out of range: node 0's packets all wait.
#[test]
fn dsr_traces_what_its_send_buffer_holds_at_the_end() {
    let text = r#"
name = "buffered"
duration_s = 10.0

[nodes]
count = 3
placement = "chain"
spacing_m = 300.0

[routing]
protocol = "dsr"

[routing.dsr]
preset = "ns2"

[[flows]]
src = 0
dst = 2
transport = "udp"
app = "cbr"
start_s = 1.0
rate_bps = 16384.0
packet_size_bytes = 512
"#;
    let dir = std::env::temp_dir().join(format!("manetsim-sim-end-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("buffered.tr");
    let s = crate::scenario::load_str(
        text,
        "test.toml",
        &[("output.ns2_trace".into(), "true".into())],
    )
    .unwrap();
    let r = run_traced(&s, Some(&path)).unwrap();
    let trace = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // 4 packets a second from 1 s, the last at 9.75 s: none delivered,
    // none dropped (the buffer holds 64 for 30 s).
    assert_eq!((r.flows[0].sent, r.flows[0].received), (36, 0));
    assert_eq!(r.drops.values().sum::<u64>(), 0, "{:?}", r.drops);
    let ends: Vec<Vec<&str>> = trace
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| t[0] == "D" && t[4] == "END")
        .collect();
    assert_eq!(ends.len(), 36);
    for t in &ends {
        assert_eq!(
            (t[1], t[2], t[3], t[6]),
            ("10.000000000", "_0_", "RTR", "cbr")
        );
    }
    // In the order the packets came, as the buffer keeps them.
    let uids: Vec<u64> = ends.iter().map(|t| t[5].parse().unwrap()).collect();
    assert!(uids.windows(2).all(|w| w[0] < w[1]), "{uids:?}");
}

/// Two static nodes in a scenario whose name, were it a file's, would lead
/// out of the current directory; its `[output]` table is left open.
const ESCAPED: &str = r#"
name = "../escaped"
duration_s = 2.0

[nodes]
count = 2
placement = "chain"
spacing_m = 100.0

[routing]
protocol = "static"

[output]
"#;

#[test]
fn a_trace_goes_nowhere_but_where_it_was_asked_and_leaves_nothing_half_written() {
    let text = format!("{ESCAPED}ns2_trace = true\n");
    let s = crate::scenario::load_str(&text, "test.toml", &[]).unwrap();
    // The name would put `NAME.tr` outside the current directory.
    let err = run(&s).unwrap_err();
    assert!(
        matches!(&err, SimError::Trace(path, why) if path == "../escaped.tr" && why.contains("name")),
        "{err}"
    );
    // A folder where the trace should go: refused before the run, and no
    // partial file is left beside it.
    let dir = std::env::temp_dir().join(format!("manetsim-trace-dir-{}", std::process::id()));
    let taken = dir.join("taken.tr");
    std::fs::create_dir_all(&taken).unwrap();
    let err = run_traced(&s, Some(&taken)).unwrap_err();
    assert!(err.to_string().contains("is a folder"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("taken.tr")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The records of a pcap file: each one's time (ns) and frame.
fn pcap_records(bytes: &[u8]) -> Vec<(SimTime, Vec<u8>)> {
    pcap_records_of(bytes, crate::trace::pcap::LINKTYPE_IEEE802_11)
}

/// The records of a pcap file of link type `linktype`.
pub(super) fn pcap_records_of(bytes: &[u8], linktype: u32) -> Vec<(SimTime, Vec<u8>)> {
    assert_eq!(&bytes[..24], &crate::trace::pcap::file_header(linktype));
    let mut out = Vec::new();
    let mut at = 24;
    let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    while at < bytes.len() {
        let t = word(at) as u64 * 1_000_000_000 + word(at + 4) as u64;
        let (incl, orig) = (word(at + 8) as usize, word(at + 12) as usize);
        assert_eq!(incl, orig);
        out.push((t, bytes[at + 16..at + 16 + incl].to_vec()));
        at += 16 + incl;
    }
    assert_eq!(at, bytes.len(), "no record cut short");
    out
}

#[test]
fn radiotap_captures_show_each_frames_rate() {
    // A 3-node 802.11g chain, data at 54 Mb/s (108 units of 500 kb/s),
    // RTS/CTS at 6 (12), ACKs at the standard's response rate, 24 (48).
    let s = scenario_with(
        CBR_CHAIN3,
        &[
            "mac.standard=802.11g",
            "mac.data_rate_bps=54000000",
            "mac.basic_rate_bps=6000000",
            "mac.response_rate=standard",
            "output.pcap=true",
            "output.pcap_radiotap=true",
        ],
    );
    let dir = fresh_dir("manetsim-sim-radiotap");
    let outputs = Outputs {
        ns2_trace: None,
        pcap_prefix: Some(&dir.join("run")),
    };
    let r = run_with(&s, &outputs).unwrap();
    assert_eq!((r.flows[0].sent, r.flows[0].received), (1, 1));
    let mut rates = std::collections::BTreeMap::new();
    for n in 0..3u32 {
        let bytes = std::fs::read(dir.join(format!("run-{n}.pcap"))).unwrap();
        let records = pcap_records_of(&bytes, crate::trace::pcap::LINKTYPE_IEEE802_11_RADIOTAP);
        assert!(!records.is_empty());
        let me = crate::trace::pcap::mac_address(n);
        for (_, f) in &records {
            // The header: the rate, then the channel (the scenario's
            // frequency, OFDM in 2.4 GHz), then for a frame received its
            // power: two-ray ground's at 200 m with ns-2's defaults,
            // 8.9e-10 W, is -60 dBm.
            let len = usize::from(f[2]);
            let wlan = &f[len..];
            let (fc, ra) = (wlan[0], &wlan[4..10]);
            let by_me = match fc {
                0xb4 | 0x08 => wlan[10..16] == me,
                _ => *ra != me,
            };
            if by_me {
                assert_eq!(&f[..8], &[0, 0, 14, 0, 0x0c, 0, 0, 0]);
            } else {
                assert_eq!(&f[..8], &[0, 0, 15, 0, 0x2c, 0, 0, 0]);
                assert_eq!(f[14] as i8, -60);
            }
            assert_eq!(&f[12..14], &[0xc0, 0]);
            let freq = u16::from_le_bytes([f[10], f[11]]);
            assert_eq!(f64::from(freq), (s.radio.frequency_hz / 1e6).round());
            *rates.entry((fc, f[8])).or_insert(0) += 1;
        }
    }
    // RTS 0xb4, CTS 0xc4, data 0x08, ACK 0xd4: each at its own rate.
    let kinds: std::collections::BTreeSet<_> = rates.keys().copied().collect();
    let expected = [(0x08, 108), (0xb4, 12), (0xc4, 12), (0xd4, 48)];
    assert_eq!(kinds, expected.into_iter().collect(), "{rates:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn captures_change_nothing_and_hold_every_frame_each_node_sent_or_was_sent() {
    use crate::trace::pcap::{mac_address, FLOW_PORT_BASE};
    let text = MOBILE_AODV
        .replace("duration_s = 40.0", "duration_s = 12.0")
        .replace("[routing]", "[mac]\narp = \"ns2\"\n\n[routing]");
    let dir = fresh_dir("manetsim-sim-pcap");
    let plain = crate::scenario::load_str(&text, "test.toml", &[]).unwrap();
    let captured = crate::scenario::load_str(
        &text,
        "test.toml",
        &[
            ("output.pcap".into(), "true".into()),
            ("output.ns2_trace".into(), "true".into()),
        ],
    )
    .unwrap();
    let mut a = run(&plain).unwrap();
    let outputs = Outputs {
        ns2_trace: Some(&dir.join("run.tr")),
        pcap_prefix: Some(&dir.join("run")),
    };
    let mut b = run_with(&captured, &outputs).unwrap();
    for r in [&mut a, &mut b] {
        r.wall_s = 0.0;
        r.events_per_s = 0.0;
    }
    assert_same(&a, &b);
    assert_eq!(a.timeseries, b.timeseries);
    assert!(a.ledger.created < 1 << 16, "IP ids are uids' low 16 bits");

    let (mut sent, mut arp, mut to_sink) = (0, 0, std::collections::BTreeSet::new());
    for n in 0..30u32 {
        let path = dir.join(format!("run-{n}.pcap"));
        let records = pcap_records(&std::fs::read(&path).unwrap());
        let me = mac_address(n);
        let mut last = 0;
        for (t, f) in &records {
            assert!(*t >= last, "node {n}: out of order at {t}");
            last = *t;
            let (fc, ra) = (f[0], &f[4..10]);
            let by_me = match fc {
                // RTS and data frames name their transmitter.
                0xb4 | 0x08 => f[10..16] == me,
                // A CTS or ACK only its receiver.
                0xc4 | 0xd4 => *ra != me,
                _ => panic!("node {n}: frame control {fc:#x}"),
            };
            if by_me {
                sent += 1;
                continue;
            }
            assert!(
                *ra == me || *ra == [0xff; 6],
                "node {n} got another's frame"
            );
            if fc == 0x08 && f[30..32] == [0x08, 0x06] {
                arp += 1;
            }
            // Flow 1's datagrams at its sink, node 3: UDP to its port.
            if n == 3 && fc == 0x08 && f[30..32] == [0x08, 0x00] && f[32 + 9] == 17 {
                let ip = &f[32..];
                let port = u16::from_be_bytes([ip[22], ip[23]]);
                if ip[16..20] == [0, 0, 0, 3] && port == FLOW_PORT_BASE + 1 {
                    to_sink.insert(u16::from_be_bytes([ip[4], ip[5]]));
                }
            }
        }
    }
    assert_eq!(sent, a.mac.frames_sent);
    assert!(arp > 0, "ARP requests and replies are captured");
    // Each datagram the sink's MAC decoded, once whatever its retries.
    assert_eq!(to_sink.len() as u64, a.flows[1].received);
    assert!(a.flows[1].received > 100, "{}", a.flows[1].received);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 31, "30 captures and the trace: {names:?}");
    assert!(names.iter().all(|n| !n.ends_with(".partial")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn captures_that_cannot_be_written_stop_the_run_and_leave_no_trace_behind() {
    let text = format!("{ESCAPED}pcap = true\nns2_trace = true\n");
    let s = crate::scenario::load_str(&text, "test.toml", &[]).unwrap();
    let dir = fresh_dir("manetsim-pcap-fail");
    // The name would put `NAME-0.pcap` outside the current directory.
    let trace = dir.join("run.tr");
    let only_trace = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: None,
    };
    let err = run_with(&s, &only_trace).unwrap_err();
    assert!(
        matches!(&err, SimError::Pcap(path, why) if path == "../escaped-0.pcap" && why.contains("name")),
        "{err}"
    );
    // A capture in a folder that does not exist: the trace begun beside
    // it is removed too.
    let missing = dir.join("missing").join("run");
    let outputs = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: Some(&missing),
    };
    let err = run_with(&s, &outputs).unwrap_err();
    assert!(err.to_string().contains("missing/run-0.pcap"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_parallel_probe_counts_every_event_and_changes_no_result() {
    let s = crate::scenario::load_str(MOBILE_AODV, "test.toml", &[]).expect("valid scenario");
    let (probed, report) = parallel::probe(&s).expect("runs");
    let mut w = build::build(&s).expect("builds");
    w.run();
    assert_same(&w.result(&s, 0.0), &probed);
    // The same counts again, to the bit (the times are this run's own).
    let again = parallel::probe(&s).expect("runs").1;
    let counts = |r: &parallel::ParallelReport| {
        let w: Vec<_> = r
            .windows
            .iter()
            .map(|w| (w.windows, w.speedup_bound))
            .collect();
        (r.events, w, r.nearest_across_m.clone())
    };
    assert_eq!(counts(&again), counts(&report));
    assert!(report.events > 100_000, "{}", report.events);
    // Longer windows are fewer, and two halves gain between nothing and 2x.
    let counts: Vec<u64> = report.windows.iter().map(|w| w.windows).collect();
    assert!(counts.windows(2).all(|c| c[0] > c[1]), "{counts:?}");
    assert!(
        report.windows.iter().all(|w| {
            (1.0..=2.0).contains(&w.speedup_bound) && (1.0..=2.0).contains(&w.timed_speedup_bound)
        }),
        "{report}"
    );
    // One sample each simulated second from the first event, at 1 s (the
    // first flow's start); 30 moving nodes in 1000 m x 700 m: a pair
    // across x = 500 m is near.
    assert_eq!(report.nearest_across_m.len(), 39, "{report}");
    assert!(report.nearest_across_m[0] < 100.0, "{report}");
}

#[test]
fn a_flow_started_later_on_a_quiet_network_runs_the_same() {
    // Three static hops of AODV carry nothing before the flow starts, so a
    // flow started 40 s later, in a run 40 s longer, sees the same network:
    // every transport must give the same figures. (TFRC's no-feedback timer
    // once ran from time 0, and halved a late flow at its first packet.)
    let text = r#"
name = "late"
duration_s = 30.0
seed = 1

[nodes]
count = 4
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "aodv"

[[flows]]
src = 0
dst = 3
start_s = 1.0
packet_size_bytes = 1000
"#;
    for (transport, app) in [
        ("tcp", "ftp"),
        ("sctp", "ftp"),
        ("sctp", "cbr"),
        ("tfrc", "ftp"),
        ("tfrc", "cbr"),
        ("tfrc ns2", "ftp"),
        ("udp", "cbr"),
    ] {
        let sets = |start: &str, duration: &str| {
            let name = transport.split(' ').next().unwrap_or(transport);
            let t = format!("flows.0.transport={name}");
            let a = format!("flows.0.app={app}");
            let s = format!("flows.0.start_s={start}");
            let d = format!("duration_s={duration}");
            let mut all = vec![t.as_str(), a.as_str(), s.as_str(), d.as_str()];
            if transport.ends_with("ns2") {
                // ns-2.35's rules count feedback rounds from the start.
                all.extend([
                    "flows.0.tfrc.feedback_rule=ns2",
                    "flows.0.tfrc.increase_rule=ns2",
                    "flows.0.tfrc.pacing_rule=ns2",
                ]);
            }
            run_text(text, &all)
        };
        let (early, late) = (sets("1", "30"), sets("41", "70"));
        let figures = |r: &RunResult| {
            let f = &r.flows[0];
            (
                f.sent,
                f.received,
                f.received_bytes,
                f.retransmissions,
                f.throughput_kbps,
                f.delay_ms,
                f.jitter_ms,
            )
        };
        assert_eq!(figures(&early), figures(&late), "{transport}/{app}");
        assert!(early.flows[0].received > 100, "{transport}/{app}");
    }
}

#[test]
fn the_trace_ends_with_what_the_queues_and_arp_still_hold() {
    // CBR at 2 Mbit/s over two hops fills node 0's 50-packet queue. ns-2.35
    // (the same scenario exported, AODV) writes 1,431 `D … IFQ  ---` lines
    // and, as each node's `reset` empties its queue at the stop time, 50
    // `D 5.000000000 _0_ IFQ  END` lines; the results count those 50 as in
    // flight, not dropped.
    let s = scenario_with(
        CBR_CHAIN3,
        &[
            "routing.protocol=aodv",
            "routing.aodv.preset=ns2",
            "mac.arp=ns2",
            "flows.0.stop_s=5",
            "flows.0.rate_bps=2048000",
            "output.ns2_trace=true",
        ],
    );
    let dir = fresh_dir("manetsim-queue-end");
    let trace = dir.join("run.tr");
    let outputs = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: None,
    };
    let r = run_with(&s, &outputs).unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let count = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
    let full = text.lines().filter(|l| l.contains(" IFQ  --- ")).count();
    assert_eq!(full as u64, r.drops["queue_full"]);
    assert!((1_300..1_600).contains(&full), "{full}");
    let end: Vec<&str> = text.lines().filter(|l| l.contains(" END ")).collect();
    assert_eq!(end.len(), 50);
    assert_eq!(count("D 5.000000000 _0_ IFQ  END "), 50);
    assert!(end
        .iter()
        .all(|l| l.contains(" cbr ") && l.contains(" [0 1 0 800] ")));
    // The last lines: nothing follows them.
    assert!(text.lines().last().unwrap().contains(" END "));
    let f = &r.flows[0];
    let dropped: u64 = r.drops.values().sum();
    assert!(f.received + dropped + 50 <= f.sent, "{f:?} {:?}", r.drops);
}

/// An `after_mac` loss model of every packet loses ARP messages too, as
/// ns-2.35's error model between MAC and link layer does: a sender that
/// loses every packet it receives never hears the ARP reply, so its data
/// never leaves (its requests go unanswered until its packets fail).
#[test]
fn an_after_mac_loss_of_all_packets_loses_arp_replies_too() {
    let text = |rate: f64| {
        format!(
            r#"
name = "arp-loss"
duration_s = 5.0
seed = 3

[area]
width_m = 400.0
height_m = 100.0

[nodes]
count = 2
placement = "chain"
spacing_m = 200.0

[mac]
arp = "ns2"

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 1
transport = "udp"
app = "cbr"
start_s = 1.0
rate_bps = 40000.0
packet_size_bytes = 512

[[loss]]
node = 0
model = "uniform"
rate = {rate}
packets = "all"
where = "after_mac"
"#
        )
    };
    let lossy = run(&crate::scenario::load_str(&text(1.0), "t.toml", &[]).unwrap()).unwrap();
    let clean = run(&crate::scenario::load_str(&text(0.0), "t.toml", &[]).unwrap()).unwrap();
    assert!(clean.flows[0].sent >= 39, "{}", clean.flows[0].sent);
    assert_eq!(clean.flows[0].received, clean.flows[0].sent);
    assert_eq!(lossy.flows[0].received, 0);
    // Node 0 lost every ARP reply node 1 sent, and its data failed.
    assert!(lossy.drops["loss_model"] >= 3, "{:?}", lossy.drops);
    assert!(lossy.drops["arp"] > 0, "{:?}", lossy.drops);
    assert!(lossy.ledger.balanced);
}

/// Two nodes, each sending the other more than the channel carries, one
/// of them moving from `from_m` to `to_m` metres from the other at 5 m/s.
fn pair_moving(from_m: f64, to_m: f64) -> String {
    format!(
        r#"
name = "tie-pair"
duration_s = 30.0
seed = 4

[area]
width_m = 300.0
height_m = 10.0

[nodes]
count = 2
placement = "chain"
spacing_m = {from_m}

[mobility]
model = "waypoints"

[[mobility.moves]]
node = 1
at_s = 0.5
to = [{to_m}, 0.0]
speed_mps = 5.0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 1
transport = "udp"
app = "cbr"
start_s = 1.0
packet_size_bytes = 1000
rate_bps = 1500000

[[flows]]
src = 1
dst = 0
transport = "udp"
app = "cbr"
start_s = 1.0
packet_size_bytes = 1000
rate_bps = 1500000
"#
    )
}

#[test]
fn ns2s_tie_rule_lets_a_frame_from_a_node_coming_closer_arrive_before_a_backoff_ends() {
    // Each node resumes its backoff at the end of the other's frame, one
    // propagation delay after the other began its own: when both draw the
    // same slots, the other's next frame starts arriving in the nanosecond
    // this backoff ends. Timers first, both transmit and the RTS frames
    // collide; with ns-2.35's clock the frame of a node that came closer
    // since arrives a hair earlier, the backoff pauses, and only the
    // receding pair collides.
    let run = |text: &str, rule: &str| {
        let r = run_text(text, &[&format!("mac.tie_rule={rule}")]);
        assert!(r.flows.iter().all(|f| f.received > 1_000), "{:?}", r.flows);
        r
    };
    let closer = pair_moving(200.0, 50.0);
    let (timers, ns2) = (run(&closer, "timers_first"), run(&closer, "ns2"));
    // 288 RTS frames lost to such ties, none.
    assert!(timers.mac.rts_failures > 200, "{:?}", timers.mac);
    assert!(
        ns2.mac.rts_failures * 20 < timers.mac.rts_failures,
        "{:?}",
        ns2.mac
    );
    assert!(
        ns2.flows[0].received + ns2.flows[1].received
            > timers.flows[0].received + timers.flows[1].received
    );
    // Moving apart, every such tie goes the timer's way under both rules.
    let apart = pair_moving(50.0, 200.0);
    let (timers, ns2) = (run(&apart, "timers_first"), run(&apart, "ns2"));
    assert!(timers.mac.rts_failures > 200, "{:?}", timers.mac);
    assert_eq!(timers.mac, ns2.mac);
    assert_eq!(timers.flows, ns2.flows);
}

#[test]
fn lazy_overhearing_changes_nothing_with_ns2s_tie_rule() {
    let text = format!("{MOBILE_AODV}\n[mac]\ntie_rule = \"ns2\"\n");
    let lazy = lazy_as_eager_delivering(&text, 10_000);
    // With the rest of ns-2.35's MAC too (ARP, its frames, its count of
    // slots, its link layer's delay).
    let all = format!(
        "{text}arp = \"ns2\"\nframes = \"ns2\"\nbackoff_draw = \"ns2\"\n\
         backoff_count = \"ns2\"\nll_delay_s = 25e-6\n"
    );
    lazy_as_eager_delivering(&all, 10_000);
    // DSR's promiscuous receptions stay events.
    let dsr = mobile("dsr", 4) + "\n[routing.dsr]\npreset = \"ns2\"\n[mac]\ntie_rule = \"ns2\"\n";
    lazy_as_eager_delivering(&dsr, 10_000);
    // The rule does change the run.
    let (timers, _, _, _) = both_ways_counting_floods(MOBILE_AODV);
    assert_ne!(timers.mac, lazy.mac);
}
