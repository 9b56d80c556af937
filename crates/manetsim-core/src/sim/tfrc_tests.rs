//! TFRC flows end to end: small scenarios with asserted numbers.

use super::*;
use crate::transport::tfrc::throughput_bps;

use super::tests::{fresh_dir, scenario_with};

/// The whole run of `text` with `key=value` overrides, as `run` gives it.
fn run_tfrc(text: &str, overrides: &[&str]) -> RunResult {
    run(&scenario_with(text, overrides)).expect("runs")
}

/// A 6-node static chain, 5 hops, one CBR flow of 512-byte packets at
/// 100 kbit/s from end to end over AODV.
const CBR_CHAIN: &str = r#"
name = "tfrc-cbr-chain"
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
transport = "tfrc"
app = "cbr"
start_s = 1.0
packet_size_bytes = 512
rate_bps = 100000
"#;

/// Two nodes 100 m apart, a bulk TFRC flow of 1000-byte packets, and data
/// packets lost at the receiver after its MAC acknowledged them.
const LOSSY_HOP: &str = r#"
name = "tfrc-lossy-hop"
duration_s = 200.0
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
transport = "tfrc"
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
fn tfrc_carries_a_cbr_flow_over_five_hops_as_udp_does() {
    let tfrc = run_tfrc(CBR_CHAIN, &[]);
    let udp = run_tfrc(CBR_CHAIN, &["flows.0.transport=udp"]);
    let (t, u) = (&tfrc.flows[0], &udp.flows[0]);
    assert_eq!(t.transport, "tfrc");
    // 24.4 packets a second for 59 s; the application's rate is far below
    // what the chain carries, so TFRC delivers them as UDP does.
    assert!(u.received >= 1430, "{}", u.received);
    assert!(
        t.received as f64 >= 0.99 * u.received as f64,
        "{} / {}",
        t.received,
        u.received
    );
    assert!(
        t.delay_ms < u.delay_ms + 20.0,
        "{} against {}",
        t.delay_ms,
        u.delay_ms
    );
    assert!(tfrc.ledger.balanced);
    // The sender's rate series: slow start from 1 packet a second, then
    // about twice the receive rate; nothing waits at the end.
    let s = &tfrc.timeseries.tfrc;
    assert!(s.t_s.len() > 10);
    assert_eq!(s.rate_kbps[0], 512.0 * 8.0 / 1000.0);
    let last = s.t_s.len() - 1;
    assert!(s.rate_kbps[last] >= 100.0, "{}", s.rate_kbps[last]);
    assert!(s.queued_packets[last] <= 1);
    // Feedback flows back: more frames than UDP's, the same routing.
    assert!(tfrc.mac.frames_sent > udp.mac.frames_sent);
}

/// The sender's loss event rate, averaged over its samples after 50 s.
fn late_loss_event_rate(r: &RunResult) -> f64 {
    let s = &r.timeseries.tfrc;
    let late: Vec<usize> = (0..s.t_s.len()).filter(|&i| s.t_s[i] > 50.0).collect();
    late.iter().map(|&i| s.loss_event_rate[i]).sum::<f64>() / late.len() as f64
}

/// Every rate the sender took with losses reported is at most the
/// throughput equation's at its p and RTT (section 4.3), for 1000-byte
/// packets.
fn assert_rates_obey_the_equation(r: &RunResult) {
    let s = &r.timeseries.tfrc;
    for i in 0..s.t_s.len() {
        let (p, rtt) = (s.loss_event_rate[i], s.rtt_ms[i]);
        if let (true, Some(rtt)) = (p > 0.0, rtt) {
            let eq_kbps = throughput_bps(1000.0, rtt / 1000.0, p) * 8.0 / 1000.0;
            assert!(s.rate_kbps[i] <= eq_kbps * 1.000_001, "at {}", s.t_s[i]);
        }
    }
}

#[test]
fn the_loss_event_rate_measures_random_loss_and_the_rate_obeys_the_equation() {
    for (loss, p_low, p_high) in [(0.01, 0.005, 0.011), (0.2, 0.15, 0.22)] {
        let r = run_tfrc(LOSSY_HOP, &[&format!("loss.0.rate={loss}")]);
        let f = &r.flows[0];
        // The data lost is what the model drew.
        assert!(
            (f.loss_pct / 100.0 - loss).abs() < 0.2 * loss,
            "{}",
            f.loss_pct
        );
        // p, averaged over the samples after the first 50 s: at most the
        // loss rate (losses within one RTT make one event), and near it.
        let p_mean = late_loss_event_rate(&r);
        assert!(p_low < p_mean && p_mean < p_high, "loss {loss}: p {p_mean}");
        assert_rates_obey_the_equation(&r);
        assert!(r.ledger.balanced);
    }
    // 1 % loss: the hop's capacity (about 1.4 Mbit/s of 1000-byte packets
    // with RTS/CTS) is below the equation's rate, and TFRC fills it; 20 %:
    // far less.
    let light = run_tfrc(LOSSY_HOP, &["loss.0.rate=0.01"]);
    let heavy = run_tfrc(LOSSY_HOP, &["loss.0.rate=0.2"]);
    assert!(light.flows[0].throughput_kbps > 1200.0);
    assert!(heavy.flows[0].throughput_kbps < 0.5 * light.flows[0].throughput_kbps);
}

#[test]
fn ns2s_feedback_loop_and_history_discounting_measure_the_same_loss() {
    let ns2 = [
        "flows.0.tfrc.feedback_rule=ns2",
        "flows.0.tfrc.history_discounting=true",
        "flows.0.tfrc.increase_rule=ns2",
    ];
    for (loss, p_low, p_high) in [
        (0.01, 0.007, 0.011),
        // With ns-2.35's t_RTO the sender slows to about 730 kbit/s, each
        // loss its own event: p came out 0.052, and 0.057 once the sink
        // sent ns-2.35's extra timer reports (the mean of 1/I over the
        // reports sits above 1/mean I).
        (0.05, 0.035, 0.06),
        (0.2, 0.12, 0.22),
    ] {
        let rate = format!("loss.0.rate={loss}");
        let with = |extra: &[&str]| {
            let mut sets = vec![rate.as_str()];
            sets.extend_from_slice(extra);
            run_tfrc(LOSSY_HOP, &sets)
        };
        let (r, rfc) = (with(&ns2), with(&[]));
        let p_mean = late_loss_event_rate(&r);
        assert!(p_low < p_mean && p_mean < p_high, "loss {loss}: p {p_mean}");
        assert_rates_obey_the_equation(&r);
        assert!(r.ledger.balanced);
        // Where the hop's capacity decides (1 % and 5 %), both loops fill it
        // alike.
        if loss < 0.1 {
            let ratio = r.flows[0].throughput_kbps / rfc.flows[0].throughput_kbps;
            assert!((0.97..1.05).contains(&ratio), "loss {loss}: {ratio}");
        }
        // With ns-2.35's t_RTO too (at least 300 ms here, one tick of
        // srtt and four of half a tick, against 4 R of a few tens of ms):
        // the same p, and no more throughput than with 4 R.
        let mut all = ns2.to_vec();
        all.push("flows.0.tfrc.rto_rule=ns2");
        let tick = with(&all);
        let p_tick = late_loss_event_rate(&tick);
        assert!(p_low < p_tick && p_tick < p_high, "loss {loss}: p {p_tick}");
        assert!(tick.flows[0].throughput_kbps <= r.flows[0].throughput_kbps * 1.02);
        assert!(tick.ledger.balanced);
    }
}

#[test]
fn without_any_report_a_late_flow_halves_from_its_own_start() {
    // Every data packet lost: no report ever comes back. The flow starts at
    // 10 s; the no-feedback timer runs from its first packet.
    let series = |extra: &[&str]| {
        let mut sets = vec!["loss.0.rate=1.0", "flows.0.start_s=10", "duration_s=40"];
        sets.extend_from_slice(extra);
        let r = run_tfrc(LOSSY_HOP, &sets);
        let s = &r.timeseries.tfrc;
        s.t_s
            .iter()
            .copied()
            .zip(s.rate_kbps.iter().copied())
            .collect::<Vec<_>>()
    };
    // RFC 5348: one packet a second (8 kbit/s), halved 2 s after the first
    // packet, then every max(2 s, 2 s / X): 12, 16, 24 s.
    let rfc = series(&[]);
    let want = [(10.0, 8.0), (12.0, 4.0), (16.0, 2.0), (24.0, 1.0)];
    assert_eq!(rfc.len(), want.len(), "{rfc:?}");
    for ((t, x), (wt, wx)) in rfc.iter().zip(want) {
        assert!((t - wt).abs() < 1e-6 && (x - wx).abs() < 1e-9, "{rfc:?}");
    }
    // ns-2.35: 300 bytes a second (2.4 kbit/s), halved 2 s / X = 6.667 s
    // after the first packet, then 13.333 s later.
    let ns2 = series(&[
        "flows.0.tfrc.start_rule=ns2",
        "flows.0.tfrc.feedback_rule=ns2",
        "flows.0.tfrc.pacing_rule=ns2",
    ]);
    let want = [(10.0, 2.4), (10.0 + 20.0 / 3.0, 1.2), (30.0, 0.6)];
    assert_eq!(ns2.len(), want.len(), "{ns2:?}");
    for ((t, x), (wt, wx)) in ns2.iter().zip(want) {
        assert!((t - wt).abs() < 1e-6 && (x - wx).abs() < 1e-9, "{ns2:?}");
    }
}

#[test]
fn tfrc_and_tcp_sharing_two_hops_get_comparable_shares() {
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
    let r = run_tfrc(&text, &[]);
    let (tfrc, tcp) = (&r.flows[0], &r.flows[1]);
    assert_eq!(
        (tfrc.transport.as_str(), tcp.transport.as_str()),
        ("tfrc", "tcp")
    );
    let ratio = tfrc.throughput_kbps / tcp.throughput_kbps;
    // "Reasonably fair" (RFC 5348): within a factor of two here.
    assert!((0.5..2.0).contains(&ratio), "{ratio}");
    assert!(tfrc.throughput_kbps + tcp.throughput_kbps > 500.0);
}

#[test]
fn a_trace_and_captures_change_nothing_in_a_tfrc_run() {
    let dir = fresh_dir("manetsim-tfrc");
    let plain = run_tfrc(CBR_CHAIN, &["duration_s=20", "flows.0.stop_s=20"]);
    let s = scenario_with(
        CBR_CHAIN,
        &[
            "duration_s=20",
            "flows.0.stop_s=20",
            "output.ns2_trace=true",
            "output.pcap=true",
        ],
    );
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
    let sent = text
        .lines()
        .filter(|l| l.starts_with("s ") && l.contains(" AGT ") && l.contains(" tcpFriend "))
        .count() as u64;
    assert_eq!(sent, plain.flows[0].sent);
    assert!(text.contains(" tcpFriendCtl "));
    std::fs::remove_dir_all(&dir).unwrap();
}
