//! TFRC flows in the world: a sender at the flow's source, a receiver at its
//! destination, both sans-IO state machines from `transport::tfrc`; this
//! file moves their packets through the network and drives their timers, as
//! `sim/tcp.rs` does for TCP.
//!
//! - CBR over TFRC (`app = "cbr"`): the application hands the sender one
//!   packet of `packet_size_bytes` every interval; packets wait in the
//!   sender while its rate allows fewer, as in ns-2's `Agent/TFRC`.
//! - FTP over TFRC (`app = "ftp"`): always a packet to send.
//!
//! Data packets are `PacketKind::Data` of `TfrcConfig::header_bytes` (40)
//! plus their payload, numbered by the sender from 0; a packet's
//! `created_at` is when the sender sent it, so a flow's delay does not count
//! the wait in the sender. Feedback packets are `PacketKind::TcpAck` (the
//! flow's control packets) of [`FEEDBACK_BYTES`]. At `stop_s` the sender
//! stops; the receiver keeps answering what still arrives.

use super::{rearm_transport, World};
use crate::engine::{SimTime, TimerSlot};
use crate::metrics::result::TfrcSeries;
use crate::net::{Packet, PacketKind, TransportHeader, DEFAULT_TTL};
use crate::scenario::{self, AppKind};
use crate::transport::tfrc::{
    TfrcConfig, TfrcData, TfrcFeedback, TfrcHeader, TfrcReceiver, TfrcSender, FEEDBACK_BYTES,
};

pub(crate) struct TfrcFlow {
    pub sender: TfrcSender,
    pub receiver: TfrcReceiver,
    pub send_timer: TimerSlot,
    pub recv_timer: TimerSlot,
    pub header_bytes: u32,
    pub started: bool,
    /// The last rate and loss event rate recorded in the time series.
    last: Option<(f64, f64)>,
}

impl TfrcFlow {
    pub(crate) fn from_scenario(f: &scenario::Flow) -> Self {
        let table = f.tfrc.clone().unwrap_or_default();
        let cfg = TfrcConfig {
            packet_bytes: f.packet_size_bytes,
            rtt_filter: table.rtt_filter,
            oscillation_prevention: table.oscillation_prevention,
            increase_rule: table.increase_rule,
            feedback_rule: table.feedback_rule,
            history_discounting: table.history_discounting,
            rto_rule: table.rto_rule,
            pacing_rule: table.pacing_rule,
            start_rule: table.start_rule,
            ..TfrcConfig::default()
        };
        Self {
            header_bytes: cfg.header_bytes,
            sender: TfrcSender::new(cfg.clone(), f.app == AppKind::Ftp),
            receiver: TfrcReceiver::new(cfg),
            send_timer: TimerSlot::default(),
            recv_timer: TimerSlot::default(),
            started: false,
            last: None,
        }
    }
}

impl World {
    fn tfrc_flow(&mut self, f: u32) -> &mut TfrcFlow {
        self.tfrc[f as usize].as_mut().expect("a TFRC flow")
    }

    /// The application of TFRC flow `f` starts, or (CBR) hands over a packet.
    pub(super) fn on_tfrc_app(&mut self, now: SimTime, f: u32) {
        let bulk = self.flows[f as usize].interval_ns >= SimTime::MAX / 4;
        let flow = self.tfrc_flow(f);
        flow.started = true;
        if !bulk {
            flow.sender.write(1);
        }
        self.pump_tfrc_sender(now, f);
    }

    /// A TFRC timer fired.
    pub(super) fn on_tfrc_timer(&mut self, now: SimTime, f: u32, receiver: bool, gen: u32) {
        let Some(flow) = self.tfrc[f as usize].as_mut() else {
            return;
        };
        if receiver {
            if flow.recv_timer.fire(gen) {
                flow.receiver.on_timeout(now);
                self.events += 1;
                self.pump_tfrc_receiver(now, f);
            }
        } else if flow.send_timer.fire(gen) {
            flow.sender.on_timeout(now);
            self.events += 1;
            self.pump_tfrc_sender(now, f);
        }
    }

    /// A TFRC packet of flow `f` reached its destination node.
    pub(super) fn on_tfrc_delivered(&mut self, now: SimTime, f: u32, header: &TfrcHeader) {
        match header {
            TfrcHeader::Data(d) => {
                self.tfrc_flow(f).receiver.on_data(now, d);
                self.pump_tfrc_receiver(now, f);
            }
            TfrcHeader::Feedback(fb) => {
                self.tfrc_flow(f).sender.on_feedback(now, fb);
                self.pump_tfrc_sender(now, f);
            }
        }
    }

    fn pump_tfrc_sender(&mut self, now: SimTime, f: u32) {
        let stop = self.flows[f as usize].stop_ns;
        let mut out = Vec::new();
        {
            let flow = self.tfrc_flow(f);
            if !flow.started || now >= stop {
                flow.send_timer.cancel();
                return;
            }
            while let Some(d) = flow.sender.poll_transmit(now) {
                out.push(d);
            }
        }
        for d in out {
            self.send_tfrc_data(now, f, d);
        }
        self.record_tfrc(now, f);
        let flow = self.tfrc[f as usize].as_mut().expect("a TFRC flow");
        let wanted = flow.sender.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.send_timer, wanted, f, false);
    }

    fn pump_tfrc_receiver(&mut self, now: SimTime, f: u32) {
        let feedback = self.tfrc_flow(f).receiver.poll_feedback(now);
        if let Some(fb) = feedback {
            self.send_tfrc_feedback(now, f, fb);
        }
        let flow = self.tfrc[f as usize].as_mut().expect("a TFRC flow");
        let wanted = flow.receiver.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.recv_timer, wanted, f, true);
    }

    fn send_tfrc_data(&mut self, now: SimTime, f: u32, d: TfrcData) {
        let (src, dst) = (self.flows[f as usize].src, self.flows[f as usize].dst);
        let header = self.tfrc_flow(f).header_bytes;
        let packet = Packet {
            uid: 0,
            kind: PacketKind::Data {
                flow: f,
                seq: d.seq,
            },
            src,
            dst,
            ttl: DEFAULT_TTL,
            size_bytes: header + d.bytes,
            payload_bytes: d.bytes,
            created_at: now,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: TransportHeader::tfrc(TfrcHeader::Data(d)),
        };
        self.flow_stats[f as usize].on_send(now, d.bytes);
        self.originate_transport(now, src, packet);
    }

    fn send_tfrc_feedback(&mut self, now: SimTime, f: u32, fb: TfrcFeedback) {
        let (src, dst) = (self.flows[f as usize].src, self.flows[f as usize].dst);
        let packet = Packet {
            uid: 0,
            kind: PacketKind::TcpAck { flow: f },
            src: dst,
            dst: src,
            ttl: DEFAULT_TTL,
            size_bytes: FEEDBACK_BYTES,
            payload_bytes: 0,
            created_at: now,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: TransportHeader::tfrc(TfrcHeader::Feedback(fb)),
        };
        self.originate_transport(now, dst, packet);
    }

    /// A transport packet leaves node `from`: numbered, traced, routed.
    pub(super) fn originate_transport(&mut self, now: SimTime, from: u32, mut packet: Packet) {
        packet.visit(from);
        self.create(now, &mut packet, false);
        if let Some(t) = &mut self.trace {
            t.agent_sent(now, from, &packet);
        }
        self.route_from(now, from, packet);
    }

    /// Appends the sender's rate, RTT and loss event rate to the TFRC time
    /// series when the rate or `p` changed.
    fn record_tfrc(&mut self, now: SimTime, f: u32) {
        let flow = self.tfrc_flow(f);
        let (x, p) = (flow.sender.rate_bps(), flow.sender.loss_event_rate());
        if flow.last == Some((x, p)) {
            return;
        }
        flow.last = Some((x, p));
        let rtt = flow.sender.rtt();
        let queued = flow.sender.queued();
        let s: &mut TfrcSeries = &mut self.tfrc_series;
        s.flow.push(f);
        s.t_s.push(crate::engine::to_secs(now));
        s.rate_kbps.push(x * 8.0 / 1000.0);
        s.rtt_ms.push(rtt.map(|t| t as f64 / 1e6));
        s.loss_event_rate.push(p);
        s.queued_packets.push(queued);
    }
}
