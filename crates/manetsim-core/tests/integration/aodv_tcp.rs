//! TCP over AODV on the 6-node chain compared with ns-2.35 (issue 6's open
//! finding): NewReno FTP from node 0 to node 5, 512-byte segments, one-way
//! agents, 360 s, with the `ns2` AODV preset. Every run's ledger must balance.

use crate::common::*;
use manetsim_core::scenario::Scenario;
use manetsim_core::RunResult;

const CHAIN6_TCP: &str = r#"
name = "chain6-tcp"
duration_s = 360.0
seed = 1
[area]
width_m = 1200.0
height_m = 200.0
[nodes]
count = 6
placement = "chain"
spacing_m = 200.0
[routing]
protocol = "aodv"
[routing.aodv]
preset = "ns2"
[[flows]]
src = 0
dst = 5
transport = "tcp"
app = "ftp"
start_s = 1.0
stop_s = 360.0
packet_size_bytes = 512
[flows.tcp]
variant = "newreno"
handshake = false
"#;

fn chain6_tcp(seed: u64) -> RunResult {
    let mut s: Scenario = toml::from_str(CHAIN6_TCP).expect("the scenario parses");
    s.seed = seed;
    run_checked(&s)
}

/// Gaps longer than 0.5 s between advances of the sender's cumulative ACK,
/// counting a last one up to the end of the run: (how many, their total in
/// seconds).
fn stalls(r: &RunResult) -> (usize, f64) {
    let ts = &r.timeseries.tcp;
    let mut last_t = None::<f64>;
    let mut last_ack = 0u64;
    let (mut n, mut total_s) = (0, 0.0);
    for (&t, &ack) in ts.t_s.iter().zip(&ts.seq_acked_bytes) {
        if ack > last_ack {
            if let Some(l) = last_t {
                if t - l > 0.5 {
                    n += 1;
                    total_s += t - l;
                }
            }
            last_ack = ack;
            last_t = Some(t);
        }
    }
    if let Some(l) = last_t.filter(|&l| r.duration_s - l > 0.5) {
        n += 1;
        total_s += r.duration_s - l;
    }
    (n, total_s)
}

fn routing(r: &RunResult, m: &str) -> u64 {
    r.routing.by_message.get(m).map_or(0, |c| c.packets)
}

/// ns-2.35's numbers for the same scenario (`manetsim export ns2` of this
/// scenario with the ns2 preset, seeds 1-3, mean): throughput 144.0 kbit/s,
/// mean delay 150.6 ms, 1529 RREQ transmissions, and 58.4 s of ACK stalls.
#[test]
fn tcp_over_the_ns2_preset_recovers_from_breaks_about_as_fast_as_ns2() {
    let (mut thr, mut delay, mut rreq, mut stall_s) = (0.0, 0.0, 0.0, 0.0);
    for seed in 1..=3 {
        let r = chain6_tcp(seed);
        let f = &r.flows[0];
        let (n, total_s) = stalls(&r);
        println!(
            "seed {seed}: throughput {:.1} kbit/s delay {:.1} ms loss {:.2} % \
             rreq {} rrep {} rerr {} stalls {n} / {total_s:.1} s drops {:?}",
            f.throughput_kbps,
            f.delay_ms,
            f.loss_pct,
            routing(&r, "rreq"),
            routing(&r, "rrep"),
            routing(&r, "rerr"),
            r.drops,
        );
        assert!(f.received > 10_000, "{} segments", f.received);
        thr += f.throughput_kbps / 3.0;
        delay += f.delay_ms / 3.0;
        rreq += routing(&r, "rreq") as f64 / 3.0;
        stall_s += total_s / 3.0;
    }
    // Before the fix: 125 kbit/s, 196 ms, 1502 RREQs, 98.5 s of stalls.
    assert!((130.0..160.0).contains(&thr), "throughput {thr:.1} kbit/s");
    assert!(delay < 180.0, "delay {delay:.1} ms");
    assert!((1300.0..1760.0).contains(&rreq), "{rreq:.0} RREQs");
    assert!((40.0..80.0).contains(&stall_s), "stalls {stall_s:.1} s");
}
