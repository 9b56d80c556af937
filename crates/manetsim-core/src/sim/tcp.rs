//! TCP flows in the world: a sender at the flow's source, a receiver at its
//! destination, both sans-IO state machines from `transport::tcp`; this file
//! moves their segments through the network and drives their timers.
//!
//! - FTP (`app = "ftp"`): an infinite bulk source from `start_s`.
//! - CBR over TCP (`app = "cbr"`): the application writes
//!   `packet_size_bytes` every interval, as zaini2012 does.
//!
//! At `stop_s` the application stops: the sender is no longer polled, so it
//! sends nothing more (new data or retransmissions), like ns-2's `ftp stop`
//! on an agent whose run ends there.
//!
//! Segments travel as packets of `IP 20 + TCP header (options included) +
//! payload` bytes; data segments are `PacketKind::Data` (sequence index =
//! first byte / MSS rounded up, so flow statistics count each segment once,
//! and data after a SYN is numbered from 1 as in ns-2.35), ACK/SYN/FIN
//! segments are `PacketKind::TcpAck`, except a one-way SYN (ns-2.35's
//! `syn_`), which is its packet 0 of no payload, left out of the flow's
//! counts.

use std::collections::VecDeque;

use super::{rearm_transport, World};
use crate::engine::{from_secs, to_secs, Rng, SimTime, Stream, TimerSlot};
use crate::metrics::result::TcpSeries;
use crate::net::{
    Packet, PacketKind, RoutingProtocol, TransportHeader, DEFAULT_TTL, IP_HEADER_BYTES,
};
use crate::scenario::{self, AppKind, TcpVariant};
use crate::transport::tcp::{
    CcKind, RtoRule, TcpConfig, TcpMetrics, TcpReceiver, TcpSegment, TcpSender,
};

pub(crate) struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub send_timer: TimerSlot,
    pub recv_timer: TimerSlot,
    pub mss: u32,
    /// The flow starts with a one-way SYN ([`TcpConfig::one_way_syn`]).
    pub one_way_syn: bool,
    /// SACK blocks count 8 bytes each, as ns-2.35's `Sack1` sink counts
    /// them ([`TcpConfig::wire_len`]).
    pub ns2_sack_bytes: bool,
    pub started: bool,
    pub variant: &'static str,
    /// FTP: the bytes to transfer (`None`: unlimited).
    pub transfer_bytes: Option<u64>,
    /// Bytes the receiver has delivered to the application, in order.
    pub delivered_bytes: u64,
    /// When the receiver delivered the last byte of `transfer_bytes`.
    pub completed_at: Option<SimTime>,
    /// Delivery delay bookkeeping ([`TcpDeliveryDelay`]).
    pub delivery_delay: TcpDeliveryDelay,
    /// The last metrics recorded in the time series.
    last: Option<TcpMetrics>,
}

/// The congestion controller a scenario variant names.
pub(crate) fn cc_kind(v: TcpVariant) -> CcKind {
    match v {
        TcpVariant::Tahoe => CcKind::Tahoe,
        TcpVariant::Reno => CcKind::Reno,
        TcpVariant::Newreno => CcKind::NewReno,
        TcpVariant::Sack => CcKind::Sack,
        TcpVariant::Vegas => CcKind::VEGAS,
        TcpVariant::Westwood => CcKind::Westwood,
        TcpVariant::Veno => CcKind::VENO,
        TcpVariant::Newveno => CcKind::NewVeno,
        TcpVariant::TcpAp => CcKind::TCP_AP,
        TcpVariant::Cubic => CcKind::Cubic,
    }
}

/// The scenario name of a variant (`"tcp_ap"`, …).
pub(crate) fn variant_name(v: TcpVariant) -> &'static str {
    match v {
        TcpVariant::Tahoe => "tahoe",
        TcpVariant::Reno => "reno",
        TcpVariant::Newreno => "newreno",
        TcpVariant::Sack => "sack",
        TcpVariant::Vegas => "vegas",
        TcpVariant::Westwood => "westwood",
        TcpVariant::Veno => "veno",
        TcpVariant::Newveno => "newveno",
        TcpVariant::TcpAp => "tcp_ap",
        TcpVariant::Cubic => "cubic",
    }
}

impl TcpFlow {
    pub(crate) fn from_scenario(f: &scenario::Flow, seed: u64, index: usize) -> Self {
        let t = f.tcp.clone().unwrap_or_default();
        let variant = match cc_kind(t.variant) {
            CcKind::Vegas { .. } => CcKind::Vegas {
                alpha: t.vegas_alpha,
                beta: t.vegas_beta,
                gamma: t.vegas_gamma,
                rule: t.vegas_rule,
            },
            other => other,
        };
        let cfg = TcpConfig {
            variant,
            mss_bytes: f.packet_size_bytes,
            window_packets: t.window_packets,
            initial_window_packets: t.initial_window_packets,
            min_rto: from_secs(t.min_rto_s),
            delayed_ack: t.delayed_ack,
            handshake: t.handshake,
            ssthresh_rule: t.ssthresh_rule,
            limited_transmit: t.limited_transmit,
            start_rule: t.start_rule,
            sack_rule: t.sack_rule,
            recovery_rule: t.recovery_rule,
            rto_rule: t.rto_rule,
            slow_start: t.slow_start,
            frto: t.frto,
            ..TcpConfig::default()
        };
        let cfg = if cfg.rto_rule == RtoRule::Ns2 {
            // ns-2.35's `boot_time_ = Random::uniform(tcp_tick_)`.
            let mut rng = Rng::new(seed, Stream::TcpClock, index as u64);
            let tick_offset =
                ((rng.uniform() * cfg.tick as f64) as SimTime).min(cfg.tick.saturating_sub(1));
            TcpConfig { tick_offset, ..cfg }
        } else {
            cfg
        };
        let receiver = TcpReceiver::new(&cfg);
        let one_way_syn = cfg.one_way_syn();
        let ns2_sack_bytes = cfg.ns2_sack();
        let sender = match f.app {
            AppKind::Cbr | AppKind::Onoff => TcpSender::new_app_limited(cfg),
            _ => TcpSender::new(cfg, f.transfer_bytes),
        };
        Self {
            sender,
            receiver,
            send_timer: TimerSlot::default(),
            recv_timer: TimerSlot::default(),
            mss: f.packet_size_bytes.max(1),
            one_way_syn,
            ns2_sack_bytes,
            started: false,
            variant: variant_name(t.variant),
            transfer_bytes: f.transfer_bytes,
            delivered_bytes: 0,
            completed_at: None,
            delivery_delay: TcpDeliveryDelay::default(),
            last: None,
        }
    }
}

/// The time from each data segment's first transmission to the delivery of
/// its last byte to the application, kept by the simulation beside the
/// sans-IO state machines (no wire field carries it).
#[derive(Debug, Default)]
pub(crate) struct TcpDeliveryDelay {
    /// The sequence number of the first data byte sent.
    data_start: Option<u64>,
    /// The end (offset from `data_start`) of the highest data sent so far.
    sent_end: u64,
    /// Segments that carried new data and are not yet delivered: their end
    /// offset and when they were first sent, in order.
    waiting: VecDeque<(u64, SimTime)>,
    sum_ns: u128,
    count: u64,
}

impl TcpDeliveryDelay {
    /// The sender sends `seg` at `now`: new data starts a wait.
    fn on_sent(&mut self, now: SimTime, seg: &TcpSegment) {
        if seg.len == 0 {
            return;
        }
        let start = *self.data_start.get_or_insert(seg.seq);
        let end = (seg.seq + u64::from(seg.len)).saturating_sub(start);
        if end > self.sent_end {
            self.sent_end = end;
            self.waiting.push_back((end, now));
        }
    }

    /// The receiver has delivered `delivered` bytes in all, by `now`.
    fn on_delivered(&mut self, now: SimTime, delivered: u64) {
        while let Some(&(end, sent)) = self.waiting.front() {
            if end > delivered {
                break;
            }
            self.waiting.pop_front();
            self.sum_ns += u128::from(now.saturating_sub(sent));
            self.count += 1;
        }
    }

    /// The mean delay in nanoseconds; `None` before a segment is delivered.
    pub(crate) fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }
}

impl World {
    /// The application of TCP flow `f` starts, or (CBR) writes a packet.
    pub(super) fn on_tcp_app(&mut self, now: SimTime, f: u32, payload: u32) {
        let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
        if flow.started {
            flow.sender.write(payload as u64);
        } else {
            flow.started = true;
            if self.flows[f as usize].interval_ns < SimTime::MAX / 4 {
                flow.sender.write(payload as u64);
            }
        }
        self.pump_tcp_sender(now, f);
    }

    /// A TCP timer fired.
    pub(super) fn on_tcp_timer(&mut self, now: SimTime, f: u32, receiver: bool, gen: u32) {
        let Some(flow) = self.tcp[f as usize].as_mut() else {
            return;
        };
        if receiver {
            if flow.recv_timer.fire(gen) {
                self.events += 1;
                flow.receiver.on_timeout(now);
                self.pump_tcp_receiver(now, f);
            }
        } else if flow.send_timer.fire(gen) {
            self.events += 1;
            flow.sender.on_timeout(now);
            self.pump_tcp_sender(now, f);
        }
    }

    /// A TCP packet of flow `f` reached its destination node.
    pub(super) fn on_tcp_delivered(&mut self, now: SimTime, f: u32, packet: &Packet) {
        let Some(seg) = packet.tcp() else {
            return;
        };
        let to_receiver = packet.dst == self.flows[f as usize].dst;
        let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
        if to_receiver {
            flow.receiver.on_segment(now, seg);
            flow.delivered_bytes += flow.receiver.take_delivered();
            flow.delivery_delay.on_delivered(now, flow.delivered_bytes);
            if flow.completed_at.is_none()
                && flow
                    .transfer_bytes
                    .is_some_and(|n| flow.delivered_bytes >= n)
            {
                flow.completed_at = Some(now);
            }
            self.pump_tcp_receiver(now, f);
        } else {
            flow.sender.on_segment(now, seg);
            self.pump_tcp_sender(now, f);
        }
    }

    fn pump_tcp_sender(&mut self, now: SimTime, f: u32) {
        let (src, dst, stop) = {
            let c = &self.flows[f as usize];
            (c.src, c.dst, c.stop_ns)
        };
        // TCP-AP's hop count: a host has no routing agent; towards a host,
        // the route is the tunnel's, to the gateway.
        let hops = if !self.is_host(src) {
            let to = if self.is_host(dst) {
                self.gateway_for(now, src)
            } else {
                dst
            };
            self.nodes[src as usize].router.hop_count(to, now)
        } else {
            None
        };
        let mut segments = Vec::new();
        {
            let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
            if !flow.started || now >= stop {
                flow.send_timer.cancel();
                return;
            }
            if let Some(h) = hops {
                flow.sender.set_path_hops(h);
            }
            while let Some(seg) = flow.sender.poll_transmit(now) {
                flow.delivery_delay.on_sent(now, &seg);
                segments.push(seg);
            }
        }
        for seg in segments {
            self.send_segment(now, f, src, dst, seg);
        }
        self.record_tcp(now, f);
        let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
        let wanted = flow.sender.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.send_timer, wanted, f, false);
    }

    fn pump_tcp_receiver(&mut self, now: SimTime, f: u32) {
        let (src, dst) = (self.flows[f as usize].src, self.flows[f as usize].dst);
        let mut segments = Vec::new();
        {
            let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
            while let Some(seg) = flow.receiver.poll_transmit(now) {
                segments.push(seg);
            }
        }
        for seg in segments {
            self.send_segment(now, f, dst, src, seg);
        }
        let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
        let wanted = flow.receiver.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.recv_timer, wanted, f, true);
    }

    /// Wraps a segment in a packet and hands it to `from`'s routing agent.
    fn send_segment(&mut self, now: SimTime, f: u32, from: u32, to: u32, seg: TcpSegment) {
        let (mss, one_way_syn, ns2_sack_bytes) = self.tcp[f as usize]
            .as_ref()
            .map_or((1, false, false), |t| {
                (t.mss as u64, t.one_way_syn, t.ns2_sack_bytes)
            });
        let header = if ns2_sack_bytes {
            seg.wire_len_ns2_sack()
        } else {
            seg.wire_len()
        };
        // A one-way SYN (ns-2.35's `syn_`) is the flow's packet 0, traced
        // as `tcp` as ns-2 traces it; data after any SYN is numbered from 1.
        let kind = if seg.len > 0 || seg.flags.syn && one_way_syn {
            PacketKind::Data {
                flow: f,
                seq: seg.seq.div_ceil(mss),
            }
        } else {
            PacketKind::TcpAck { flow: f }
        };
        let mut packet = Packet {
            uid: 0,
            kind,
            src: from,
            dst: to,
            ttl: DEFAULT_TTL,
            size_bytes: IP_HEADER_BYTES + header + seg.len,
            payload_bytes: seg.len,
            created_at: now,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: TransportHeader::tcp(seg),
        };
        packet.visit(from);
        self.create(now, &mut packet, false);
        if let Some(t) = &mut self.trace {
            t.agent_sent(now, from, &packet);
        }
        if packet.payload_bytes > 0 {
            self.flow_stats[f as usize].on_send(now, packet.payload_bytes);
        }
        self.route_from(now, from, packet);
    }

    /// Appends the sender's state to the TCP time series when it changed.
    fn record_tcp(&mut self, now: SimTime, f: u32) {
        let flow = self.tcp[f as usize].as_mut().expect("a TCP flow");
        let m = flow.sender.metrics();
        let changed = flow.last.is_none_or(|l| {
            l.cwnd_packets != m.cwnd_packets
                || l.ssthresh_packets != m.ssthresh_packets
                || l.snd_una != m.snd_una
                || l.retransmissions != m.retransmissions
                || l.rto != m.rto
        });
        if !changed {
            return;
        }
        flow.last = Some(m);
        let s: &mut TcpSeries = &mut self.tcp_series;
        s.flow.push(f);
        s.t_s.push(to_secs(now));
        s.cwnd_packets.push(m.cwnd_packets);
        s.ssthresh_packets
            .push((m.ssthresh_packets < 1e9).then_some(m.ssthresh_packets));
        s.srtt_ms.push(m.srtt.map(|t| t as f64 / 1e6));
        s.rto_ms.push(m.rto as f64 / 1e6);
        s.seq_sent_bytes.push(m.snd_max);
        s.seq_acked_bytes.push(m.snd_una);
        s.retransmissions.push(m.retransmissions);
    }
}
