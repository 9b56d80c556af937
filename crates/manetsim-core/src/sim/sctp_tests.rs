//! SCTP flows end to end: small scenarios with asserted numbers.

use super::*;

use super::tests::{fresh_dir, scenario_with};

fn run_sctp(text: &str, overrides: &[&str]) -> RunResult {
    run(&scenario_with(text, overrides)).expect("runs")
}

/// Runs `text` with `overrides` writing an ns-2 trace (into a fresh
/// directory `name`, removed after): the result and the trace.
fn run_traced(text: &str, overrides: &[&str], name: &str) -> (RunResult, String) {
    let dir = fresh_dir(name);
    let trace = dir.join("run.tr");
    let mut with_trace = overrides.to_vec();
    with_trace.push("output.ns2_trace=true");
    let outputs = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: None,
    };
    let r = run_with(&scenario_with(text, &with_trace), &outputs).expect("runs");
    let text = std::fs::read_to_string(&trace).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (r, text)
}

/// A 6-node static chain, 5 hops, one CBR flow of 1000-byte messages at
/// 80 kbit/s from end to end over AODV.
const CBR_CHAIN: &str = r#"
name = "sctp-cbr-chain"
duration_s = 60.0
seed = 1

[nodes]
count = 6
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "aodv"

[[flows]]
src = 0
dst = 5
transport = "sctp"
app = "cbr"
start_s = 1.0
packet_size_bytes = 1000
rate_bps = 80000
"#;

/// Two nodes 100 m apart, a bulk SCTP flow of 1000-byte chunks, and data
/// packets lost at the receiver after its MAC acknowledged them.
const LOSSY_HOP: &str = r#"
name = "sctp-lossy-hop"
duration_s = 100.0
seed = 3

[nodes]
count = 2
placement = "chain"
spacing_m = 100.0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 1
transport = "sctp"
app = "ftp"
start_s = 1.0
packet_size_bytes = 1000

[[loss]]
node = 1
model = "uniform"
rate = 0.05
packets = "data"
where = "after_mac"
"#;

#[test]
fn sctp_carries_a_cbr_flow_over_five_hops_as_udp_does() {
    let sctp = run_sctp(CBR_CHAIN, &[]);
    let udp = run_sctp(CBR_CHAIN, &["flows.0.transport=udp"]);
    let (a, u) = (&sctp.flows[0], &udp.flows[0]);
    assert_eq!(a.transport, "sctp");
    // 10 messages a second for 59 s, far below what the chain carries:
    // every one arrives, in order, none sent twice.
    assert_eq!(u.received, 590);
    assert_eq!(a.received, u.received);
    assert_eq!(a.retransmissions, 0);
    assert_eq!(a.delivered_in_order_bytes, 590 * 1000);
    assert!(
        (a.delay_ms - u.delay_ms).abs() < 10.0,
        "{} against {}",
        a.delay_ms,
        u.delay_ms
    );
    assert!(sctp.ledger.balanced);
    assert!(sctp.warnings.is_empty(), "{:?}", sctp.warnings);
    // The sender's series: RTO.Initial until the first measurement, then
    // RTO.Min over this short path. The messages written during the
    // handshake leave in a burst that fills cwnd and grows it; after that
    // cwnd is never fully used, so it stays put.
    let s = &sctp.timeseries.sctp;
    assert!(s.t_s.len() > 100);
    assert_eq!((s.rto_ms[0], s.srtt_ms[0]), (3000.0, None));
    let last = s.t_s.len() - 1;
    assert_eq!(s.rto_ms[last], 1000.0);
    assert!(s.srtt_ms[last].is_some_and(|r| r > 10.0 && r < 200.0));
    let late: Vec<u32> = (0..s.t_s.len())
        .filter(|&i| s.t_s[i] > 5.0)
        .map(|i| s.cwnd_bytes[i])
        .collect();
    assert!(late.windows(2).all(|w| w[0] == w[1]), "{late:?}");
    // SACKs and the handshake flow back: more frames than UDP's.
    assert!(sctp.mac.frames_sent > udp.mac.frames_sent);
}

#[test]
fn every_lost_chunk_is_sent_again_and_delivered_in_order() {
    for (loss, min_kbps, max_kbps) in [(0.05, 800.0, 1200.0), (0.3, 80.0, 300.0)] {
        let r = run_sctp(
            LOSSY_HOP,
            &[&format!("loss.0.rate={loss}"), "flows.0.stop_s=80"],
        );
        let f = &r.flows[0];
        // The data lost is what the model drew.
        assert!(
            (f.loss_pct / 100.0 - loss).abs() < 0.15 * loss,
            "{}",
            f.loss_pct
        );
        // Lost chunks are sent again about once each: the retransmissions
        // equal the packets lost, up to those the run's end cut off.
        let lost = f.sent - f.received;
        assert!(
            f.retransmissions <= lost && f.retransmissions + 30 >= lost,
            "{} retransmissions, {lost} lost",
            f.retransmissions
        );
        // In order: the application got a prefix of whole messages, all but
        // the few held behind a hole when the sender stopped.
        assert_eq!(f.delivered_in_order_bytes % 1000, 0);
        assert!(f.delivered_in_order_bytes <= f.received_bytes);
        assert!(
            f.received_bytes - f.delivered_in_order_bytes <= 20 * 1000,
            "loss {loss}: {} {}",
            f.received_bytes,
            f.delivered_in_order_bytes
        );
        assert!(
            (min_kbps..max_kbps).contains(&f.goodput_kbps),
            "loss {loss}: {}",
            f.goodput_kbps
        );
        // cwnd fell again and again.
        let c = &r.timeseries.sctp.cwnd_bytes;
        let cuts = c.windows(2).filter(|w| w[1] < w[0]).count();
        assert!(cuts > 20, "{cuts}");
        assert!(r.ledger.balanced);
    }
}

#[test]
fn sctp_and_tcp_sharing_two_hops_get_comparable_shares() {
    let text = LOSSY_HOP
        .replace("count = 2", "count = 3")
        .replace("spacing_m = 100.0", "spacing_m = 200.0")
        .replace("protocol = \"static\"", "protocol = \"aodv\"")
        .replace("dst = 1", "dst = 2")
        .split("[[loss]]")
        .next()
        .unwrap()
        .to_string()
        + "\n[[flows]]\nsrc = 0\ndst = 2\ntransport = \"tcp\"\napp = \"ftp\"\nstart_s = 1.0\npacket_size_bytes = 1000\n";
    let r = run_sctp(&text, &[]);
    let (sctp, tcp) = (&r.flows[0], &r.flows[1]);
    assert_eq!(
        (sctp.transport.as_str(), tcp.transport.as_str()),
        ("sctp", "tcp")
    );
    // Neither starves the other. Over seeds 1-20 SCTP took 1.40 to 2.28
    // times TCP's share (2.00 on this one, 1.87 while every NewReno
    // partial ACK restarted the timer).
    let ratio = sctp.throughput_kbps / tcp.throughput_kbps;
    assert!((0.4..2.5).contains(&ratio), "{ratio}");
    assert!(sctp.throughput_kbps + tcp.throughput_kbps > 500.0);
}

#[test]
fn an_unreachable_peer_fails_the_association_after_eight_init_retransmissions() {
    // 1000 m apart: no route. INIT leaves at 1 s and again after 3, 6, 12,
    // 24, 48 and 60 s three times: the ninth expiry, at 334 s, fails it.
    let r = run_sctp(
        CBR_CHAIN,
        &[
            "duration_s=400",
            "nodes.spacing_m=1000",
            "area.width_m=6000",
        ],
    );
    let f = &r.flows[0];
    assert_eq!((f.sent, f.received), (0, 0));
    // The run's own warning about the route comes first.
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("no route"));
    let w = &r.warnings[1];
    assert!(
        w.contains("flow 0: the SCTP association failed at 334.000 s"),
        "{w}"
    );
    assert!(w.contains("Max.Init.Retransmits"), "{w}");
}

#[test]
fn under_ns2s_handshake_an_unanswered_heartbeat_holds_the_data_and_is_reported() {
    // The hop loses 40 % of all packets. Seed 5: the INIT is lost once
    // (T1 doubles to 6 s), the handshake ends at 4.007 s and its HEARTBEAT
    // is lost; 6 s later it goes again, and data follows its answer.
    let r = run_sctp(
        LOSSY_HOP,
        &[
            "seed=5",
            "duration_s=30",
            "loss.0.packets=all",
            "loss.0.rate=0.4",
            "flows.0.sctp.handshake_rule=ns2",
        ],
    );
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert!(
        w.contains("flow 0: the HEARTBEAT that confirms the SCTP path went unanswered at 10.007 s"),
        "{w}"
    );
    let s = &r.timeseries.sctp;
    let first_rtt = s.srtt_ms.iter().position(Option::is_some).unwrap();
    assert!(s.t_s[first_rtt] > 10.007, "{}", s.t_s[first_rtt]);
    assert!(r.flows[0].received > 50, "{:?}", r.flows[0]);
}

#[test]
fn a_trace_and_captures_change_nothing_in_an_sctp_run() {
    let dir = fresh_dir("manetsim-sctp");
    let short = ["duration_s=20", "flows.0.stop_s=20", "loss.0.rate=0.1"];
    let plain = run_sctp(LOSSY_HOP, &short);
    let mut with_outputs = short.to_vec();
    with_outputs.extend(["output.ns2_trace=true", "output.pcap=true"]);
    let s = scenario_with(LOSSY_HOP, &with_outputs);
    let trace = dir.join("run.tr");
    let outputs = Outputs {
        ns2_trace: Some(&trace),
        pcap_prefix: Some(&dir.join("run")),
    };
    let mut traced = run_with(&s, &outputs).unwrap();
    let mut plain = plain;
    for r in [&mut plain, &mut traced] {
        r.wall_s = 0.0;
        r.events_per_s = 0.0;
    }
    assert_eq!(plain.flows, traced.flows);
    assert_eq!(plain.timeseries, traced.timeseries);
    let text = std::fs::read_to_string(&trace).unwrap();
    // Every packet is `sctp`: the DATA the flow counts plus 2 handshake
    // packets from the source.
    let sent = text
        .lines()
        .filter(|l| l.starts_with("s ") && l.contains(" AGT ") && l.contains(" sctp "))
        .filter(|l| l.contains("_0_"))
        .count() as u64;
    assert_eq!(sent, plain.flows[0].sent + 2);
    // The sink's agent receives each DATA chunk the flow counts, at least.
    let data_received = text
        .lines()
        .filter(|l| l.starts_with("r ") && l.contains(" AGT ") && l.contains(" [1 D "))
        .count() as u64;
    assert!(data_received >= plain.flows[0].received);
    assert!(text.contains(" [1 S "), "SACKs are traced");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// FTP over 3 AODV hops with ns-2.35's MAC and AODV: under RFC 4960's
/// rule at most 4 packets leave per SACK; under ns-2.35's the sender fills
/// `cwnd` at once (but for the burst after a SACK of a retransmitted
/// chunk), so more of the window waits in queues and the delay grows.
#[test]
fn ns2s_max_burst_rule_fills_the_window_and_queues_more_over_three_hops() {
    let chain = |rule: &str, seed: u32| {
        run_sctp(
            LOSSY_HOP,
            &[
                "nodes.count=4",
                "nodes.spacing_m=200",
                "routing.protocol=aodv",
                "routing.aodv.preset=ns2",
                "mac.frames=ns2",
                "mac.arp=ns2",
                "mac.backoff_draw=ns2",
                "mac.ll_delay_s=25e-6",
                "loss=[]",
                "flows.0.dst=3",
                &format!("seed={seed}"),
                &format!("flows.0.sctp.max_burst_rule={rule}"),
            ],
        )
    };
    // Measured (seeds 1-4): 243-257 ms under RFC 4960's rule, 360-442 ms
    // under ns-2.35's (ns-2.35 itself: 423 ms over 8 seeds), at 332-358
    // kbit/s under either.
    for seed in [1, 3] {
        let (rfc, ns2) = (chain("rfc", seed), chain("ns2", seed));
        let (r, n) = (&rfc.flows[0], &ns2.flows[0]);
        assert!(
            n.delay_ms > 1.4 * r.delay_ms,
            "seed {seed}: {} against {} ms",
            n.delay_ms,
            r.delay_ms
        );
        let ratio = n.throughput_kbps / r.throughput_kbps;
        assert!((0.9..1.1).contains(&ratio), "seed {seed}: {ratio}");
        for f in [r, n] {
            assert_eq!(f.delivered_in_order_bytes, f.received_bytes);
        }
    }
}

#[test]
fn small_messages_travel_bundled_and_arrive_in_order() {
    // 200-byte messages at 1 Mbit/s over one lossy hop for 20 s: more than
    // one packet per message could carry, so messages wait and packets
    // carry up to six.
    let sets = [
        "flows.0.app=cbr",
        "flows.0.packet_size_bytes=200",
        "flows.0.rate_bps=1000000",
        "flows.0.stop_s=21",
        "loss.0.rate=0.02",
    ];
    let r = run_sctp(LOSSY_HOP, &sets);
    let f = &r.flows[0];
    let offered = 625 * 20;
    let chunks_again = r
        .timeseries
        .sctp
        .retransmissions
        .last()
        .copied()
        .unwrap_or(0);
    let new_chunks = f.sent_bytes / 200 - chunks_again;
    assert!(
        (offered - 500..=offered).contains(&new_chunks),
        "{new_chunks} new chunks"
    );
    // (At most the few hundred still waiting when the sender stopped did
    // not leave: 437 in this run. A fast retransmission carries every
    // marked chunk that fits, and a chunk lost again after it waits for T3
    // rather than a second fast retransmission.) Bundles: over 3 chunks a packet on average, at most 6.
    let chunks = f.sent_bytes / 200;
    assert!(
        f.sent * 3 < chunks && f.sent * 6 >= chunks,
        "{} packets for {chunks} chunks",
        f.sent
    );
    // In order and whole: at least 96 % of the messages reached the
    // application (96.5 %; the rest wait behind holes the stop left, or
    // were never sent).
    assert_eq!(f.delivered_in_order_bytes % 200, 0);
    assert!(
        f.delivered_in_order_bytes >= offered * 200 * 96 / 100,
        "{}",
        f.delivered_in_order_bytes
    );
    assert!(f.retransmissions > 0 && chunks_again >= f.retransmissions);
    assert!(r.ledger.balanced);
    // The ns-2 trace names a bundle by its chunk count and last TSN.
    let mut traced = sets.to_vec();
    traced.extend(["duration_s=3", "flows.0.stop_s=3"]);
    let (_, text) = run_traced(LOSSY_HOP, &traced, "manetsim-bundle");
    let six = text
        .lines()
        .find(|l| l.starts_with("s ") && l.contains(" AGT ") && l.contains(" [6 D "))
        .expect("a traced bundle of six");
    // 6 chunks of 216 bytes and the common header: 1,308 bytes, with IP's
    // 20 the 1,328 ns-2.35 shows.
    assert!(six.contains(" sctp 1328 "), "{six}");
    // Without bundling each message takes a packet of its own.
    let mut one = sets.to_vec();
    one.push("flows.0.sctp.bundling=false");
    let plain = run_sctp(LOSSY_HOP, &one);
    assert_eq!(plain.flows[0].sent, plain.flows[0].sent_bytes / 200);
    assert!(plain.flows[0].delivered_in_order_bytes < f.delivered_in_order_bytes);
}

#[test]
fn streams_spare_messages_the_wait_behind_a_lost_chunk_of_another_stream() {
    // CBR at 400 kbit/s over the lossy hop, well under what it carries, so
    // that congestion control sends about the same packets whatever the
    // streams (the receiver's window differs: it holds back less).
    let cbr = [
        "flows.0.app=cbr",
        "flows.0.rate_bps=400000",
        "flows.0.stop_s=80",
        "loss.0.rate=0.1",
    ];
    let with = |extra: &[&str]| {
        let overrides: Vec<&str> = cbr.iter().chain(extra).copied().collect();
        run_sctp(LOSSY_HOP, &overrides)
    };
    let one = with(&[]);
    let four = with(&["flows.0.sctp.streams=4"]);
    let any = with(&["flows.0.sctp.unordered=true"]);
    let (a, b, c) = (&one.flows[0], &four.flows[0], &any.flows[0]);
    let near = |x: f64, y: f64| (x - y).abs() <= 0.01 * y;
    for f in [b, c] {
        assert!(near(f.received as f64, a.received as f64), "{}", f.received);
        assert!(near(f.retransmissions as f64, a.retransmissions as f64));
        let d = f.delay_ms / a.delay_ms;
        assert!(
            (0.95..1.05).contains(&d),
            "about the same network delay: {d}"
        );
    }
    assert!(a.retransmissions > 200, "{}", a.retransmissions);
    // Every message the receiver got reached the application but those
    // behind a hole the sender's stop left: on one stream, those of the
    // last RTO (1 s, 50 messages) at most; fewer on four.
    let held = |f: &FlowResult| f.received_bytes - f.delivered_in_order_bytes;
    assert!(held(a) <= 60 * 1000, "{}", held(a));
    assert!(held(b) < held(a), "{} {}", held(b), held(a));
    assert_eq!(c.delivered_in_order_bytes, c.received_bytes);
    // Messages of the other streams no longer wait for a lost chunk's
    // retransmission: a quarter as many wait behind each loss.
    let (d1, d4, du) = (
        a.delivery_delay_ms.unwrap(),
        b.delivery_delay_ms.unwrap(),
        c.delivery_delay_ms.unwrap(),
    );
    assert!(d4 < 0.6 * d1 && du < d4, "{d1} {d4} {du}");
    assert!(du > a.delay_ms, "{du}: retransmitted ones count their wait");
    // UDP has no such delay.
    let udp = run_sctp(LOSSY_HOP, &["flows.0.transport=udp", "flows.0.app=cbr"]);
    assert_eq!(udp.flows[0].delivery_delay_ms, None);
}

/// The times of the HEARTBEATs (`H`) or their answers (`B`) node `node`'s
/// agent sent, from an ns-2 trace.
fn agent_sent(trace: &str, node: u32, chunk: char) -> Vec<f64> {
    let (who, what) = (format!(" _{node}_ AGT "), format!(" [1 {chunk} "));
    trace
        .lines()
        .filter(|l| l.starts_with("s ") && l.contains(&who) && l.contains(&what))
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn both_ends_heartbeat_their_idle_path_and_each_heartbeat_is_answered() {
    // One 1000-byte message every 40 s over the clean hop, for 400 s.
    let sets = [
        "duration_s=400",
        "flows.0.app=cbr",
        "flows.0.rate_bps=200",
        "loss=[]",
    ];
    let (r, trace) = run_traced(LOSSY_HOP, &sets, "manetsim-sctp-hb");
    let f = &r.flows[0];
    assert_eq!((f.sent, f.received), (10, 10));
    // The receiver sends no DATA: a HEARTBEAT every period, the first
    // RTO (3 s) + 30 s +- 1.5 s after the association opened (1 s), the
    // second as long again, then every 31 s +- 0.5 s (RTO 1 s).
    let receiver = agent_sent(&trace, 1, 'H');
    assert_eq!(receiver.len(), 12, "{receiver:?}");
    assert!((32.5..35.6).contains(&receiver[0]), "{receiver:?}");
    for w in receiver[1..].windows(2) {
        assert!((30.5..31.5).contains(&(w[1] - w[0])), "{receiver:?}");
    }
    // The sender heartbeats only in periods without a message: fewer.
    let sender = agent_sent(&trace, 0, 'H');
    assert!(!sender.is_empty() && sender.len() < 8, "{sender:?}");
    // Each is answered by the other end.
    assert_eq!(agent_sent(&trace, 0, 'B').len(), receiver.len());
    assert_eq!(agent_sent(&trace, 1, 'B').len(), sender.len());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Turned off, neither end sends one.
    let (_, off) = run_traced(
        LOSSY_HOP,
        &[&sets[..], &["flows.0.sctp.heartbeat_interval_s=0"]].concat(),
        "manetsim-sctp-hb-off",
    );
    assert!(!off.contains(" [1 H "));
}

/// The clean hop for 1,500 s, one 1000-byte message every 40 s, and the
/// receiver out of range from 100 s (`moves`: the receiver's moves), with
/// `extra` overrides.
fn receiver_leaves(moves: &str, extra: &[&str]) -> RunResult {
    let moves = format!("mobility.moves=[{moves}]");
    let mut sets = vec![
        "duration_s=1500",
        "flows.0.app=cbr",
        "flows.0.rate_bps=200",
        "loss=[]",
        "area.width_m=6000",
        "mobility.model=waypoints",
        &moves,
    ];
    sets.extend_from_slice(extra);
    run_sctp(LOSSY_HOP, &sets)
}

/// Node 1 goes 5.4 km away at 100 s.
const LEAVES: &str = "{node = 1, at_s = 100.0, to = [5500.0, 0.0], speed_mps = 5000.0}";

#[test]
fn unanswered_heartbeats_end_the_association_at_both_ends_once_the_peer_is_gone() {
    // The receiver leaves at 100 s, out of range for good. The sender's
    // message every 40 s is never acknowledged again, and neither end's
    // HEARTBEATs are answered.
    let r = receiver_leaves(LEAVES, &[]);
    let at = |w: &str| -> f64 {
        let s = w.split(" at ").nth(1).unwrap();
        s.split(' ').next().unwrap().parse().unwrap()
    };
    let sender = r
        .warnings
        .iter()
        .find(|w| w.contains("the SCTP association failed"))
        .expect("the sender gives up");
    assert!(sender.contains("unanswered HEARTBEATs"), "{sender}");
    let receiver = r
        .warnings
        .iter()
        .find(|w| w.contains("the SCTP receiver gave the association up"))
        .expect("the receiver gives up");
    // Eleven errors each: the sender's T3 expiries (RTO doubling to 60 s)
    // and HEARTBEATs together within about 10 minutes; the receiver's
    // HEARTBEATs alone, one a period of 30 s plus the backed-off RTO.
    let (s, q) = (at(sender), at(receiver));
    assert!((300.0..800.0).contains(&s), "{sender}");
    assert!((700.0..1400.0).contains(&q), "{receiver}");
    assert!(s < q, "{sender} / {receiver}");
    assert!(r.flows[0].received <= 3, "{:?}", r.flows[0]);
}

#[test]
fn under_ns2s_fault_rule_the_association_outlives_a_long_outage() {
    // The receiver leaves at 100 s and comes back at 1,000 s. RFC 4960's
    // association fails meanwhile (the test above); ns-2.35's only turns
    // the address inactive, keeps heartbeating it every RTO (60 s at most),
    // and carries on once an answer comes.
    let moves =
        format!("{LEAVES}, {{node = 1, at_s = 1000.0, to = [100.0, 0.0], speed_mps = 5000.0}}");
    let run_rule =
        |rule: &str| receiver_leaves(&moves, &[&format!("flows.0.sctp.fault_rule={rule}")]);
    let rfc = run_rule("rfc");
    assert!(rfc
        .warnings
        .iter()
        .any(|w| w.contains("association failed")));
    let ns2 = run_rule("ns2");
    assert!(
        !ns2.warnings
            .iter()
            .any(|w| w.contains("failed") || w.contains("gave")),
        "{:?}",
        ns2.warnings
    );
    let inactive = ns2
        .warnings
        .iter()
        .find(|w| w.contains("turned inactive"))
        .expect("the address turned inactive");
    assert!(inactive.contains("fault_rule = \"ns2\""), "{inactive}");
    // One message every 40 s from 1 s: 38. RFC 4960's association
    // delivered 3 before it failed; ns-2.35's delivers every one, those of
    // the outage after the receiver's return (measured: 38).
    let (r, n) = (&rfc.flows[0], &ns2.flows[0]);
    assert_eq!(r.received, 3, "{r:?}");
    assert_eq!(n.received, 38, "{n:?}");
}

#[test]
fn messages_larger_than_a_chunk_cross_five_hops_in_fragments_and_arrive_whole() {
    // 4,000-byte messages, 2.5 a second: each leaves as three DATA chunks
    // (1,452 + 1,452 + 1,096 bytes, RFC 4960 section 6.9), one packet each
    // (two do not fit 1,500 bytes), and reaches the application whole.
    let r = run_sctp(
        CBR_CHAIN,
        &["flows.0.packet_size_bytes=4000", "flows.0.rate_bps=80000"],
    );
    let f = &r.flows[0];
    let messages = f.delivered_in_order_bytes / 4000;
    assert_eq!(f.delivered_in_order_bytes % 4000, 0);
    assert!((146..=148).contains(&messages), "{messages}");
    assert_eq!(f.sent, 3 * messages, "three packets a message");
    assert_eq!(f.received, f.sent);
    assert_eq!(f.retransmissions, 0);
    assert!(r.ledger.balanced);
    // The 1,000-byte run's delay is one packet's; these messages wait for
    // their last fragment.
    let small = run_sctp(CBR_CHAIN, &[]);
    let delivery = f.delivery_delay_ms.unwrap();
    assert!(
        delivery > small.flows[0].delivery_delay_ms.unwrap(),
        "{delivery}"
    );
    // Over a lossy hop, every lost fragment comes again and the
    // application still gets whole messages, in order.
    let r = run_sctp(
        LOSSY_HOP,
        &[
            "loss.0.rate=0.05",
            "flows.0.stop_s=80",
            "flows.0.packet_size_bytes=3000",
        ],
    );
    let f = &r.flows[0];
    assert!(f.retransmissions > 0);
    assert_eq!(f.delivered_in_order_bytes % 3000, 0);
    assert!(
        f.delivered_in_order_bytes > 3000 * 1000,
        "{}",
        f.delivered_in_order_bytes
    );
    assert!(r.ledger.balanced);
}

#[test]
fn a_finite_transfer_delivers_every_byte_over_a_lossy_hop_and_reports_its_completion() {
    // 200,500 bytes in 1,000-byte messages: 200 whole ones and a last one
    // of 500 bytes, over the hop that loses 5 % of the data.
    let (r, trace) = run_traced(LOSSY_HOP, &["flows.0.transfer_bytes=200500"], "sctp-finite");
    let f = &r.flows[0];
    assert_eq!(f.delivered_in_order_bytes, 200_500);
    assert_eq!(f.received_bytes, 200_500, "each byte received once");
    assert!(f.retransmissions > 0);
    // Lost chunks sent again: as many chunks sent as needed, and more.
    assert!(f.sent >= 201, "{}", f.sent);
    let done = f.completion_s.expect("the transfer completed");
    // About 1.1 Mbit/s from 1 s: well within the run.
    assert!((2.0..10.0).contains(&done), "{done}");
    // Then the association shuts down (RFC 4960 section 9.2): SHUTDOWN
    // from node 0, SHUTDOWN ACK from node 1, SHUTDOWN COMPLETE from node 0,
    // traced with a letter of their own, and nothing more is sent.
    let agent_sends: Vec<&str> = trace
        .lines()
        .filter(|l| l.starts_with("s ") && l.contains(" AGT "))
        .collect();
    let shut: Vec<&str> = agent_sends
        .iter()
        .copied()
        .filter(|l| l.contains(" [1 X "))
        .collect();
    assert_eq!(shut.len(), 3, "{shut:?}");
    let from: Vec<&str> = shut.iter().map(|l| l.split(' ').nth(2).unwrap()).collect();
    assert_eq!(from, ["_0_", "_1_", "_0_"]);
    assert_eq!(agent_sends.last(), shut.last());
    // Without a size it sends until the end; CBR has no completion.
    let open = run_sctp(LOSSY_HOP, &["flows.0.stop_s=20"]);
    assert!(open.flows[0].completion_s.is_none());
    assert!(open.flows[0].received_bytes > 1_000_000);
    assert!(r.ledger.balanced);
}
