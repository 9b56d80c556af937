//! TCP through the simulated network: every variant delivers every byte in
//! order exactly once, and a one-hop bulk flow approaches the 802.11 ceiling.

use crate::common::*;
use manetsim_core::scenario::{
    AppKind, Flow, Loss, LossModelKind, LossPackets, LossWhere, TcpConfig, TcpVariant, Transport,
};

const VARIANTS: [TcpVariant; 10] = [
    TcpVariant::Tahoe,
    TcpVariant::Reno,
    TcpVariant::Newreno,
    TcpVariant::Sack,
    TcpVariant::Vegas,
    TcpVariant::Westwood,
    TcpVariant::Veno,
    TcpVariant::Newveno,
    TcpVariant::TcpAp,
    TcpVariant::Cubic,
];

fn ftp(src: u32, dst: u32, bytes: u32, variant: TcpVariant, start_s: f64, stop_s: f64) -> Flow {
    let mut f = cbr(src, dst, bytes, 1.0, start_s, stop_s);
    f.transport = Transport::Tcp;
    f.app = AppKind::Ftp;
    f.rate_bps = None;
    f.tcp = Some(TcpConfig {
        variant,
        ..TcpConfig::default()
    });
    f
}

/// Time per TCP segment over one 802.11 hop with RTS/CTS and an ACK per
/// segment: the DATA exchange and the TCP ACK's own exchange, each after DIFS
/// and `backoff_slots` of idle medium.
fn one_hop_bps(mss: u32, backoff_slots: f64) -> f64 {
    let us = |bytes: u32, rate: f64| 192.0 + bytes as f64 * 8.0 / rate;
    let exchange = |ip_bytes: u32| {
        50.0 + backoff_slots * 20.0
            + us(20, 1.0)
            + 10.0
            + us(14, 1.0)
            + 10.0
            + us(ip_bytes + 28, 2.0)
            + 10.0
            + us(14, 1.0)
    };
    let per_segment_us = exchange(mss + 40) + exchange(40);
    mss as f64 * 8.0 / (per_segment_us * 1e-6)
}

#[test]
fn one_hop_bulk_tcp_approaches_the_ceiling() {
    let mut s = base(31.0, 1);
    place(&mut s, vec![[0.0, 0.0], [100.0, 0.0]]);
    s.flows
        .push(ftp(0, 1, 1460, TcpVariant::Newreno, 1.0, 31.0));
    let r = run_checked(&s);
    let goodput = r.flows[0].received_bytes as f64 * 8.0 / 30.0;
    // A full mean backoff (15.5 slots) per exchange gives the textbook 1.23 Mb/s.
    let textbook = one_hop_bps(1460, 15.5);
    assert!((textbook / 1e6 - 1.23).abs() < 0.01, "{textbook}");
    // But after each DATA exchange the TCP sender (next segment) and the TCP
    // receiver (its ACK) contend together, so the idle time is the smaller of
    // two draws: E[min] = Σ_{k=1}^{31} (k/32)² ≈ 10.17 slots.
    let e_min: f64 = (1..32).map(|k| (k as f64 / 32.0).powi(2)).sum();
    let two_contenders = one_hop_bps(1460, e_min);
    // No backoff at all is a hard ceiling.
    let hard = one_hop_bps(1460, 0.0);
    println!(
        "one hop: goodput {:.4} Mb/s; two-contender model {:.4}; textbook {:.4}; hard bound {:.4}",
        goodput / 1e6,
        two_contenders / 1e6,
        textbook / 1e6,
        hard / 1e6
    );
    assert!(goodput < hard);
    assert!(
        (goodput / two_contenders - 1.0).abs() < 0.03,
        "{goodput} vs {two_contenders}"
    );
    assert!(goodput > 0.9 * textbook);
}

fn delivered_in_order(variant: TcpVariant, chain_hops: u32, loss: f64) -> manetsim_core::RunResult {
    let mut s = base(60.0, 3);
    s.nodes.count = chain_hops + 1;
    s.area.width_m = 200.0 * chain_hops as f64 + 1.0;
    s.area.height_m = 10.0;
    s.flows.push(ftp(0, chain_hops, 512, variant, 1.0, 60.0));
    if loss > 0.0 {
        s.loss.push(Loss {
            node: chain_hops,
            model: LossModelKind::Uniform,
            rate: loss,
            packets: LossPackets::Data,
            where_: LossWhere::AfterMac,
            mean_burst_packets: 1.0,
        });
    }
    run_checked(&s)
}

#[test]
fn every_variant_delivers_every_byte_over_a_lossy_hop() {
    for v in VARIANTS {
        let r = delivered_in_order(v, 1, 0.05);
        let f = &r.flows[0];
        println!(
            "{v:?}: {} segments sent, {} received, {} retransmissions, goodput {:.0} kbit/s",
            f.sent, f.received, f.retransmissions, f.goodput_kbps
        );
        assert!(f.received > 1000, "{v:?} delivered only {}", f.received);
        assert!(f.retransmissions > 0, "{v:?}: losses must be repaired");
        assert!(r.drops["loss_model"] > 0);
    }
}

#[test]
fn delivery_delay_counts_the_wait_behind_a_lost_segment() {
    let clean = delivered_in_order(TcpVariant::Newreno, 1, 0.0);
    let lossy = delivered_in_order(TcpVariant::Newreno, 1, 0.05);
    let (c, l) = (&clean.flows[0], &lossy.flows[0]);
    // Without losses each segment reaches the application as it arrives:
    // its delivery delay is its network delay.
    let d = c.delivery_delay_ms.expect("TCP reports it");
    assert!((d / c.delay_ms - 1.0).abs() < 0.01, "{d} {}", c.delay_ms);
    // With 5 % lost, the segments behind a hole wait for its repair.
    let d = l.delivery_delay_ms.expect("TCP reports it");
    println!(
        "one hop: delivery delay {:.1} ms (network {:.1}) clean, {d:.1} ms (network {:.1}) at 5 % loss",
        c.delivery_delay_ms.unwrap_or(0.0),
        c.delay_ms,
        l.delay_ms
    );
    assert!(d > 2.0 * l.delay_ms, "{d} {}", l.delay_ms);
}

#[test]
fn every_variant_runs_over_a_six_node_chain() {
    for v in VARIANTS {
        let r = delivered_in_order(v, 5, 0.0);
        let f = &r.flows[0];
        println!(
            "{v:?}: goodput {:.0} kbit/s, delay {:.0} ms",
            f.goodput_kbps, f.delay_ms
        );
        assert_eq!(f.hops_mean, 5.0);
        assert!(f.goodput_kbps > 50.0, "{v:?}: {}", f.goodput_kbps);
        let ts = &r.timeseries.tcp;
        assert!(!ts.t_s.is_empty());
        assert!(ts.seq_acked_bytes.windows(2).all(|w| w[0] <= w[1]));
    }
}

#[test]
fn ns2s_loss_response_delivers_everything_with_integer_ssthresh() {
    // The same lossy 3-hop chain, Reno, with RFC 5681's halving of the
    // flight and with ns-2.35's (integer ssthresh, limited transmit).
    let run = |seed: u64, ns2: bool| {
        let mut s = base(120.0, seed);
        s.nodes.count = 4;
        s.area.width_m = 601.0;
        s.area.height_m = 10.0;
        let mut f = ftp(0, 3, 512, TcpVariant::Reno, 1.0, 120.0);
        if let Some(t) = f.tcp.as_mut() {
            if ns2 {
                t.ssthresh_rule = manetsim_core::transport::tcp::SsthreshRule::Ns2;
                t.limited_transmit = true;
            }
        }
        s.flows.push(f);
        s.loss.push(Loss {
            node: 3,
            model: LossModelKind::Uniform,
            rate: 0.03,
            packets: LossPackets::Data,
            where_: LossWhere::AfterMac,
            mean_burst_packets: 1.0,
        });
        let r = run_checked(&s);
        let f = &r.flows[0];
        println!(
            "seed {seed} ns2 {ns2}: {} received, {} retransmissions",
            f.received, f.retransmissions
        );
        assert!(f.received > 3000 && f.retransmissions > 50, "{f:?}");
        // What is still out of order at the end waits within one window.
        let held = f.received * 512 - f.delivered_in_order_bytes;
        assert!(held <= 20 * 512, "{held} bytes out of order");
        // The thresholds set by losses (none before the first).
        let ts = &r.timeseries.tcp;
        let set: Vec<f64> = ts.ssthresh_packets.iter().flatten().copied().collect();
        assert!(set.len() > 50, "{}", set.len());
        set
    };
    for seed in 1..=3 {
        let ns2 = run(seed, true);
        assert!(
            ns2.iter().all(|s| s.fract() == 0.0 && *s >= 2.0),
            "seed {seed}: {ns2:?}"
        );
        let rfc = run(seed, false);
        assert!(rfc.iter().any(|s| s.fract() != 0.0), "seed {seed}");
    }
}

#[test]
fn vegas_thresholds_from_the_scenario_take_effect() {
    let run = |alpha: f64, beta: f64| {
        let mut s = base(60.0, 3);
        s.nodes.count = 6;
        s.area.width_m = 1001.0;
        s.area.height_m = 10.0;
        let mut f = ftp(0, 5, 512, TcpVariant::Vegas, 1.0, 60.0);
        if let Some(t) = f.tcp.as_mut() {
            t.vegas_alpha = alpha;
            t.vegas_beta = beta;
        }
        s.flows.push(f);
        let r = run_checked(&s);
        let cw = &r.timeseries.tcp.cwnd_packets;
        cw.iter().sum::<f64>() / cw.len() as f64
    };
    let default = run(1.0, 3.0);
    let karlsson = run(2.0, 2.0);
    let wide = run(6.0, 8.0);
    println!("mean cwnd: α1β3 {default:.2}, α2β2 {karlsson:.2}, α6β8 {wide:.2}");
    assert!(
        wide > default + 1.0,
        "larger thresholds keep a larger window"
    );
}

/// An FTP transfer of exactly `bytes` (the `transfer_bytes` key) over
/// `chain_hops` hops, with `loss` after the MAC at the first relay (or at the
/// receiver on one hop), static routes.
fn transfer(
    variant: TcpVariant,
    chain_hops: u32,
    loss: f64,
    bytes: u64,
) -> manetsim_core::RunResult {
    let mut s = base(120.0, 7);
    s.nodes.count = chain_hops + 1;
    s.area.width_m = 200.0 * chain_hops as f64 + 1.0;
    s.area.height_m = 10.0;
    let mut f = ftp(0, chain_hops, 512, variant, 1.0, 120.0);
    f.transfer_bytes = Some(bytes);
    s.flows.push(f);
    if loss > 0.0 {
        s.loss.push(Loss {
            node: 1,
            model: LossModelKind::Uniform,
            rate: loss,
            packets: LossPackets::Data,
            where_: LossWhere::AfterMac,
            mean_burst_packets: 1.0,
        });
    }
    run_checked(&s)
}

/// Every variant hands the application every byte of a 200,000-byte
/// transfer, in order, exactly once (the receiver counts only in-order
/// advances, so a duplicate or a gap would show as a different count), over
/// a one-hop link losing 5 % of the data and over a 6-node chain; the
/// transfer ends, and no more payload is sent than needed plus repairs.
#[test]
fn every_variant_delivers_a_finite_transfer_exactly_once_in_order() {
    const BYTES: u64 = 200_000;
    for v in VARIANTS {
        for (hops, loss) in [(1, 0.05), (5, 0.0), (5, 0.05)] {
            let r = transfer(v, hops, loss, BYTES);
            let f = &r.flows[0];
            println!(
                "{v:?} {hops} hop(s) loss {loss}: done at {:?} s, {} retransmissions",
                f.completion_s, f.retransmissions
            );
            assert_eq!(f.delivered_in_order_bytes, BYTES, "{v:?} {hops} {loss}");
            assert_eq!(f.received_bytes, BYTES, "{v:?} {hops} {loss}");
            let done = f.completion_s.expect("the transfer completes");
            assert!(done > 1.0 && done < 120.0);
            assert!(f.sent_bytes >= BYTES);
            if loss > 0.0 {
                assert!(r.drops["loss_model"] > 0);
                assert!(f.retransmissions > 0, "{v:?}: losses must be repaired");
            }
        }
    }
}
