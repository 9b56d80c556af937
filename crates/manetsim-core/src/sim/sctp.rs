//! SCTP flows in the world: the association's sending end at the flow's
//! source and its receiving end at the destination, sans-IO state machines
//! from `transport::sctp`; this file moves their chunks through the network
//! and drives their timers, as `sim/tcp.rs` does for TCP.
//!
//! - The association opens when the application starts: INIT, INIT ACK,
//!   COOKIE ECHO, COOKIE ACK, then data (with `handshake_rule = "ns2"`,
//!   a HEARTBEAT and its ACK before the data, as in ns-2.35).
//! - CBR over SCTP (`app = "cbr"`): the application hands the sender one
//!   message of `packet_size_bytes` every interval; messages wait in the
//!   sender while `cwnd` allows no more.
//! - FTP over SCTP (`app = "ftp"`): always a message to send.
//! - Both ends send HEARTBEATs on their idle path (`[flows.sctp]
//!   heartbeat_interval_s`, RFC 4960 §8.3), until the flow's `stop_s`, as
//!   if the association shut down then.
//!
//! Each packet carries one control chunk or DATA chunks (several, bundled,
//! when they wait and fit in the MTU): `IP 20 + SCTP`
//! ([`SctpChunk::wire_len`]). DATA packets are `PacketKind::Data` numbered
//! by their last TSN, so flow statistics count each packet once, as
//! ns-2.35's trace does; the others (handshake, HEARTBEAT, SACK) are the flow's
//! control packets, `PacketKind::TcpAck`. A packet's `created_at` is when it
//! was sent. At `stop_s` the sender stops (nothing more is sent, not even
//! retransmissions); the receiver keeps acknowledging what still arrives.

use super::{rearm_transport, World};
use crate::engine::{from_secs, to_secs, Rng, SimTime, Stream, TimerSlot};
use crate::metrics::result::SctpSeries;
use crate::net::{Packet, PacketKind, TransportHeader, DEFAULT_TTL, IP_HEADER_BYTES};
use crate::scenario::{self, AppKind};
use crate::transport::sctp::{
    SctpChunk, SctpConfig, SctpMetrics, SctpReceiver, SctpSender, SctpState, WindowRule,
};

pub(crate) struct SctpFlow {
    pub sender: SctpSender,
    pub receiver: SctpReceiver,
    pub send_timer: TimerSlot,
    pub recv_timer: TimerSlot,
    pub started: bool,
    /// User bytes the receiver delivered to the application, in order.
    pub delivered_bytes: u64,
    /// FTP with `transfer_bytes`: the size, and when the receiver
    /// delivered its last byte.
    transfer_bytes: Option<u64>,
    pub completed_at: Option<SimTime>,
    /// The last metrics recorded in the time series.
    last: Option<SctpMetrics>,
    /// The receiver's giving up was warned of.
    receiver_failure_warned: bool,
}

impl SctpFlow {
    /// Flow `index`'s ends; `seed` is the scenario's (for the jitter of
    /// their heartbeat periods).
    pub(crate) fn from_scenario(f: &scenario::Flow, seed: u64, index: usize) -> Self {
        let table = f.sctp.clone().unwrap_or_default();
        let cfg = SctpConfig {
            chunk_bytes: f.packet_size_bytes,
            max_burst: table.max_burst,
            max_burst_rule: table.max_burst_rule,
            bundling: table.bundling,
            byte_rule: table.byte_rule,
            send_rule: table.send_rule,
            idle_rule: table.idle_rule,
            // The scenario checked that it fits 16 bits.
            streams: u16::try_from(table.streams).unwrap_or(u16::MAX),
            unordered: table.unordered,
            handshake_rule: table.handshake_rule,
            heartbeat_interval: from_secs(table.heartbeat_interval_s),
            fault_rule: table.fault_rule,
            window_rule: table.window_rule,
            miss_rule: table.miss_rule,
            ..SctpConfig::default()
        };
        let id = 2 * index as u64;
        let mut sender = SctpSender::new(cfg.clone(), f.app == AppKind::Ftp)
            .with_heartbeat_rng(Rng::new(seed, Stream::SctpHeartbeat, id));
        if let Some(bytes) = f.transfer_bytes {
            sender = sender.with_transfer_bytes(bytes);
        }
        Self {
            sender,
            receiver: SctpReceiver::new(cfg).with_heartbeat_rng(Rng::new(
                seed,
                Stream::SctpHeartbeat,
                id + 1,
            )),
            send_timer: TimerSlot::default(),
            recv_timer: TimerSlot::default(),
            started: false,
            delivered_bytes: 0,
            transfer_bytes: f.transfer_bytes,
            completed_at: None,
            last: None,
            receiver_failure_warned: false,
        }
    }
}

impl World {
    fn sctp_flow(&mut self, f: u32) -> &mut SctpFlow {
        self.sctp[f as usize].as_mut().expect("an SCTP flow")
    }

    /// The application of SCTP flow `f` starts, or (CBR) hands over a
    /// message.
    pub(super) fn on_sctp_app(&mut self, now: SimTime, f: u32) {
        let bulk = self.flows[f as usize].interval_ns >= SimTime::MAX / 4;
        let flow = self.sctp_flow(f);
        if !flow.started {
            flow.started = true;
            flow.sender.start(now);
        }
        if !bulk {
            flow.sender.write(1);
        }
        self.pump_sctp_sender(now, f);
    }

    /// An SCTP timer fired.
    pub(super) fn on_sctp_timer(&mut self, now: SimTime, f: u32, receiver: bool, gen: u32) {
        let Some(flow) = self.sctp[f as usize].as_mut() else {
            return;
        };
        if receiver {
            if flow.recv_timer.fire(gen) {
                if now >= self.flows[f as usize].stop_ns {
                    flow.receiver.stop_heartbeats();
                }
                flow.receiver.on_timeout(now);
                self.events += 1;
                self.pump_sctp_receiver(now, f);
            }
        } else if flow.send_timer.fire(gen) {
            flow.sender.on_timeout(now);
            self.events += 1;
            self.pump_sctp_sender(now, f);
        }
    }

    /// An SCTP packet of flow `f` reached its destination node.
    pub(super) fn on_sctp_delivered(&mut self, now: SimTime, f: u32, chunk: &SctpChunk) {
        let stop = self.flows[f as usize].stop_ns;
        let flow = self.sctp_flow(f);
        if chunk.to_receiver() {
            if now >= stop {
                flow.receiver.stop_heartbeats();
            }
            flow.receiver.on_chunk(now, chunk);
            flow.delivered_bytes += flow.receiver.take_delivered();
            if flow.completed_at.is_none()
                && flow
                    .transfer_bytes
                    .is_some_and(|t| flow.delivered_bytes >= t)
            {
                flow.completed_at = Some(now);
            }
            self.pump_sctp_receiver(now, f);
        } else {
            flow.sender.on_chunk(now, chunk);
            self.pump_sctp_sender(now, f);
        }
    }

    fn pump_sctp_sender(&mut self, now: SimTime, f: u32) {
        let (src, dst, stop) = {
            let c = &self.flows[f as usize];
            (c.src, c.dst, c.stop_ns)
        };
        let mut out = Vec::new();
        {
            let flow = self.sctp_flow(f);
            if !flow.started || now >= stop {
                flow.send_timer.cancel();
                return;
            }
            while let Some(c) = flow.sender.poll_transmit(now) {
                out.push(c);
            }
        }
        for c in out {
            self.send_sctp(now, f, src, dst, c);
        }
        self.record_sctp(now, f);
        let flow = self.sctp[f as usize].as_mut().expect("an SCTP flow");
        let wanted = flow.sender.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.send_timer, wanted, f, false);
    }

    fn pump_sctp_receiver(&mut self, now: SimTime, f: u32) {
        let (src, dst) = (self.flows[f as usize].src, self.flows[f as usize].dst);
        let mut out = Vec::new();
        {
            let flow = self.sctp_flow(f);
            while let Some(c) = flow.receiver.poll_transmit(now) {
                out.push(c);
            }
        }
        for c in out {
            self.send_sctp(now, f, dst, src, c);
        }
        let flow = self.sctp[f as usize].as_mut().expect("an SCTP flow");
        if flow.receiver.failed() && !flow.receiver_failure_warned {
            flow.receiver_failure_warned = true;
            self.warnings.push(format!(
                "flow {f}: the SCTP receiver gave the association up at {:.3} s after \
                 Association.Max.Retrans (10) unanswered HEARTBEATs in a row; it acknowledges \
                 nothing more",
                to_secs(now)
            ));
        }
        let wanted = flow.receiver.poll_timeout().map(|t| t.max(now));
        rearm_transport(&mut self.q, &mut flow.recv_timer, wanted, f, true);
    }

    /// One warning per SCTP flow whose receiver's full window turned
    /// chunks away ([`WindowRule`]), for the result.
    pub(super) fn sctp_window_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (f, flow) in self.sctp.iter().enumerate() {
            let Some(flow) = flow else { continue };
            let w = flow.receiver.window_drops();
            let Some(first) = w.first_at else { continue };
            let what = match flow.receiver.window_rule() {
                WindowRule::Rfc => format!(
                    "dropped {} arriving DATA chunks and {} it held for reordering, to make \
                     room for lower TSNs (window_rule = \"rfc\", RFC 4960 section 6.2)",
                    w.dropped, w.reneged
                ),
                WindowRule::Ns2 if w.gap_fillers > 0 => format!(
                    "dropped {} arriving DATA chunks, {} of them the one that would fill the gap \
                     in front of the chunks it held, so from the first of those it delivered \
                     nothing more (window_rule = \"ns2\", as ns-2.35's receiver does)",
                    w.dropped, w.gap_fillers
                ),
                WindowRule::Ns2 => format!(
                    "dropped {} arriving DATA chunks (window_rule = \"ns2\", as ns-2.35's \
                     receiver does)",
                    w.dropped
                ),
            };
            out.push(format!(
                "flow {f}: the SCTP receiver's window was full from {:.3} s: it {what}",
                to_secs(first)
            ));
        }
        out
    }

    /// Wraps a chunk in a packet and hands it to `from`'s routing agent.
    fn send_sctp(&mut self, now: SimTime, f: u32, from: u32, to: u32, chunk: SctpChunk) {
        let (kind, payload) = match &chunk {
            // A bundle is numbered by its last TSN, as ns-2.35's trace
            // names it.
            SctpChunk::Data(chunks) => (
                PacketKind::Data {
                    flow: f,
                    seq: chunks.last().map_or(0, |d| d.tsn),
                },
                chunks.iter().map(|d| d.bytes).sum(),
            ),
            _ => (PacketKind::TcpAck { flow: f }, 0),
        };
        let packet = Packet {
            uid: 0,
            kind,
            src: from,
            dst: to,
            ttl: DEFAULT_TTL,
            size_bytes: IP_HEADER_BYTES + chunk.wire_len(),
            payload_bytes: payload,
            created_at: now,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: TransportHeader::sctp(chunk),
        };
        if payload > 0 {
            self.flow_stats[f as usize].on_send(now, payload);
        }
        self.originate_transport(now, from, packet);
    }

    /// Appends the sender's state to the SCTP time series when it changed;
    /// warns once if the association failed, and once if a HEARTBEAT that
    /// was to confirm the path went unanswered.
    fn record_sctp(&mut self, now: SimTime, f: u32) {
        let flow = self.sctp[f as usize].as_mut().expect("an SCTP flow");
        let m = flow.sender.metrics();
        if flow.last == Some(m) {
            return;
        }
        let failed_now =
            m.state == SctpState::Failed && flow.last.is_none_or(|l| l.state != SctpState::Failed);
        let unconfirmed_now =
            m.heartbeat_timeouts > 0 && flow.last.is_none_or(|l| l.heartbeat_timeouts == 0);
        let inactive_now =
            m.path_inactivations > 0 && flow.last.is_none_or(|l| l.path_inactivations == 0);
        flow.last = Some(m);
        if inactive_now {
            self.warnings.push(format!(
                "flow {f}: the SCTP receiver's address turned inactive at {:.3} s after \
                 Path.Max.Retrans (5) retransmission timeouts and unanswered HEARTBEATs in a row \
                 (fault_rule = \"ns2\": as in ns-2.35, its errors then no longer count toward \
                 the association, which does not fail)",
                to_secs(now)
            ));
        }
        if unconfirmed_now {
            self.warnings.push(format!(
                "flow {f}: the HEARTBEAT that confirms the SCTP path went unanswered at {:.3} s; \
                 no data leaves until one is answered (handshake_rule = \"ns2\": ns-2.35 sends \
                 it again at a doubling RTO and never gives up)",
                to_secs(now)
            ));
        }
        if failed_now {
            let why = if m.shutdown_retransmissions > 0 {
                "its whole transfer was acknowledged: Association.Max.Retrans (10) SHUTDOWNs \
                 sent again went unanswered (RFC 4960 section 9.2)"
            } else if m.timeouts > 0 || m.heartbeats_unanswered > 0 {
                "Association.Max.Retrans (10) retransmission timeouts and unanswered HEARTBEATs in a row"
            } else {
                "Max.Init.Retransmits (8) unanswered INIT or COOKIE ECHO retransmissions"
            };
            self.warnings.push(format!(
                "flow {f}: the SCTP association failed at {:.3} s after {why}; the flow sends nothing more",
                to_secs(now)
            ));
        }
        let s: &mut SctpSeries = &mut self.sctp_series;
        s.flow.push(f);
        s.t_s.push(to_secs(now));
        s.cwnd_bytes.push(m.cwnd_bytes);
        s.ssthresh_bytes.push(m.ssthresh_bytes);
        s.flight_bytes.push(m.flight_bytes);
        s.srtt_ms.push(m.srtt.map(|t| t as f64 / 1e6));
        s.rto_ms.push(m.rto as f64 / 1e6);
        s.retransmissions.push(m.retransmissions);
    }
}
