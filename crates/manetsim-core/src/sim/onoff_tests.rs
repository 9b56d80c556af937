//! On-off sources end to end: small scenarios with asserted numbers.

use super::*;

use super::tests::{fresh_dir, run_text as run_onoff, scenario_with};

/// Three static nodes 200 m apart, an exponential on-off source of
/// 512-byte packets at 64 kbit/s (bursts and idle times of 0.5 s on
/// average: `[flows.onoff]`'s defaults) from one end to the other.
const CHAIN: &str = r#"
name = "onoff-chain"
duration_s = 300.0
seed = 1

[nodes]
count = 3
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "aodv"

[[flows]]
src = 0
dst = 2
app = "onoff"
start_s = 1.0
packet_size_bytes = 512
rate_bps = 64000
"#;

#[test]
fn an_exponential_onoff_flow_sends_half_its_rate_and_all_arrives() {
    let r = run_onoff(CHAIN, &[]);
    let f = &r.flows[0];
    // 299 s at 64 kbit/s for half the time: about 2,336 packets of 512
    // bytes (fewer by the interval each burst's first packet also waits).
    let expected = 299.0 * 64_000.0 * 0.5 / (512.0 * 8.0);
    let ratio = f.sent as f64 / expected;
    assert!((0.85..1.05).contains(&ratio), "{} sent, {ratio}", f.sent);
    // Far below what two hops carry: every packet arrives.
    assert_eq!(f.received, f.sent);
    // Bursts queue nothing: each packet leaves 64 ms after the last.
    assert!(f.delay_ms < 10.0, "{}", f.delay_ms);
    // The same source, seed for seed, as a constant rate it is not.
    let cbr = run_onoff(CHAIN, &["flows.0.app=cbr"]);
    assert!(cbr.flows[0].sent > f.sent * 18 / 10);
}

#[test]
fn the_source_is_the_same_whatever_carries_it() {
    // The application's packets come from the flow's own random stream:
    // over TCP, TFRC or SCTP the application hands over the same number.
    let udp = run_onoff(CHAIN, &["duration_s=60"]);
    let sent = udp.flows[0].sent;
    for transport in ["tcp", "sctp"] {
        let r = run_onoff(
            CHAIN,
            &["duration_s=60", &format!("flows.0.transport={transport}")],
        );
        let f = &r.flows[0];
        assert_eq!(f.transport, transport);
        // Application-limited and lossless: all of it, in order.
        assert_eq!(f.delivered_in_order_bytes, sent * 512, "{transport}");
        assert_eq!(f.retransmissions, 0, "{transport}");
    }
    // Another seed draws other bursts.
    let other = run_onoff(CHAIN, &["duration_s=60", "seed=2"]);
    assert_ne!(other.flows[0].sent, sent);
}

#[test]
fn a_pareto_source_is_burstier_than_an_exponential_one() {
    // Same means; Pareto's heavy tail gives longer idle spells now and then
    // and more variable bursts, measured as the spread of packets per
    // 10-second window.
    let spread = |dist: &str| {
        let s = scenario_with(
            CHAIN,
            &[
                "duration_s=1000",
                &format!("flows.0.onoff.distribution={dist}"),
            ],
        );
        let mut w = build::build(&s).unwrap();
        let flow = &mut w.flows[0];
        let mut per_window = vec![0u32; 100];
        let mut t = flow.first();
        while let Some(now) = t {
            per_window[(now / (10 * NS_PER_S)) as usize] += 1;
            t = flow.next_after(now);
        }
        let n = per_window.len() as f64;
        let mean = per_window.iter().map(|&c| c as f64).sum::<f64>() / n;
        let var = per_window
            .iter()
            .map(|&c| (c as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, var.sqrt())
    };
    let (exp_mean, exp_sd) = spread("exponential");
    let (par_mean, par_sd) = spread("pareto");
    // Both near 78 packets per 10 s.
    for m in [exp_mean, par_mean] {
        assert!((60.0..85.0).contains(&m), "{m}");
    }
    assert!(par_sd > 1.5 * exp_sd, "{par_sd} against {exp_sd}");
}

#[test]
fn the_trace_names_onoff_packets_as_ns2_does() {
    let dir = fresh_dir("manetsim-onoff");
    for (dist, name) in [("exponential", " exp "), ("pareto", " pareto ")] {
        let s = scenario_with(
            CHAIN,
            &[
                "duration_s=10",
                "output.ns2_trace=true",
                &format!("flows.0.onoff.distribution={dist}"),
            ],
        );
        let trace = dir.join(format!("{dist}.tr"));
        let outputs = Outputs {
            ns2_trace: Some(&trace),
            pcap_prefix: None,
        };
        let r = run_with(&s, &outputs).unwrap();
        let text = std::fs::read_to_string(&trace).unwrap();
        let sent = text
            .lines()
            .filter(|l| l.starts_with("s ") && l.contains("AGT") && l.contains(name))
            .count() as u64;
        assert_eq!(sent, r.flows[0].sent, "{dist}");
        assert!(!text.contains(" cbr "), "{dist}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
