//! The TCP receiver: cumulative ACKs, an out-of-order buffer, SACK blocks
//! (RFC 2018), delayed ACKs (RFC 1122 section 4.2.3.2, RFC 5681 section
//! 4.2) and the passive side of the handshake and FIN. A one-way SYN
//! (ns-2.35's `syn_`) is acknowledged as the packet 0 ns-2's sink takes it
//! for: in order, one sequence number long, with no payload, and at once.
//!
//! ACK policy (RFC 5681 section 4.2): an out-of-order segment, a duplicate,
//! a segment that fills (part of) a hole, a SYN or a FIN is acknowledged at
//! once. In-order data is acknowledged at once without delayed ACKs;
//! with them, every second full segment or when `delayed_ack_timeout`
//! (ns-2 DelAck `interval_`, 100 ms) passes.
//!
//! SACK blocks (SACK variant only): the block holding the most recently
//! received segment first, then earlier blocks by recency, at most 3.
//! Data is "delivered" to the application exactly once, in order.

use std::collections::BTreeMap;

use super::segment::{TcpFlags, TcpSegment};
use super::TcpConfig;
use crate::engine::SimTime;

/// Receiver connection state (RFC 9293 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiverState {
    Listen,
    SynReceived,
    Established,
    /// FIN received in order.
    CloseWait,
}

/// The receiving half of a TCP connection.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    handshake: bool,
    /// The flow starts with a one-way SYN ([`TcpConfig::one_way_syn`]).
    one_way_syn: bool,
    sack: bool,
    delayed_ack: bool,
    delayed_ack_timeout: SimTime,
    timestamps: bool,
    window: u32,
    state: ReceiverState,
    /// Our own sequence number (0 = ISS; 1 after the SYN-ACK).
    snd_seq: u64,
    data_start: u64,
    rcv_nxt: u64,
    /// Out-of-order intervals `[start, end)` above `rcv_nxt`, disjoint.
    ooo: BTreeMap<u64, u64>,
    /// Recently received out-of-order segments, most recent first.
    recent: Vec<(u64, u64)>,
    fin_seq: Option<u64>,
    ack_now: bool,
    synack_now: bool,
    unacked_segments: u32,
    delack_deadline: Option<SimTime>,
    ts_recent: SimTime,
    delivered: u64,
    taken: u64,
    acks_sent: u64,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        Self {
            handshake: cfg.handshake,
            one_way_syn: cfg.one_way_syn(),
            sack: cfg.sack(),
            delayed_ack: cfg.delayed_ack,
            delayed_ack_timeout: cfg.delayed_ack_timeout,
            timestamps: cfg.timestamps,
            window: cfg.window_packets.saturating_mul(cfg.mss_bytes),
            state: if cfg.handshake {
                ReceiverState::Listen
            } else {
                ReceiverState::Established
            },
            snd_seq: 0,
            data_start: (cfg.handshake || cfg.one_way_syn()) as u64,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            recent: Vec::new(),
            fin_seq: None,
            ack_now: false,
            synack_now: false,
            unacked_segments: 0,
            delack_deadline: None,
            ts_recent: 0,
            delivered: 0,
            taken: 0,
            acks_sent: 0,
        }
    }

    pub fn state(&self) -> ReceiverState {
        self.state
    }

    /// Next byte expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }

    /// A segment from the sender arrived.
    pub fn on_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        // A one-way SYN is acknowledged as ns-2.35's sink acknowledges its
        // packet 0: like data, one sequence number long, with no payload.
        if seg.flags.syn && !self.one_way_syn {
            if self.handshake && self.state != ReceiverState::Established {
                self.state = ReceiverState::SynReceived;
                self.rcv_nxt = seg.seq + 1;
                self.data_start = seg.seq + 1;
                self.ts_recent = seg.ts_val;
                self.synack_now = true;
            } else if self.handshake {
                // Retransmitted SYN after our SYN-ACK was lost... or late.
                self.synack_now = self.state == ReceiverState::SynReceived;
            }
            return;
        }
        if self.handshake && self.state == ReceiverState::Listen {
            return; // no connection yet
        }
        if self.state == ReceiverState::SynReceived {
            self.state = ReceiverState::Established;
            self.snd_seq = 1;
        }
        let start = seg.seq;
        let end = seg.seq + seg.len as u64 + (seg.flags.fin || seg.flags.syn) as u64;
        if seg.flags.fin {
            self.fin_seq = Some(seg.seq + seg.len as u64);
        }
        if end == start {
            return; // a pure ACK (the handshake's third segment)
        }
        if end <= self.rcv_nxt {
            // Entirely old: a duplicate; ACK at once (RFC 5681 4.2).
            self.ack_now = true;
            return;
        }
        let had_hole = !self.ooo.is_empty();
        if start > self.rcv_nxt {
            self.insert(start, end);
            self.recent.retain(|&(s, e)| !(s >= start && e <= end));
            self.recent.insert(0, (start, end));
            self.recent.truncate(8);
            self.ack_now = true;
            return;
        }
        // In order (possibly overlapping old data).
        self.ts_recent = seg.ts_val;
        self.rcv_nxt = end;
        while let Some((&s, &e)) = self.ooo.iter().next() {
            if s > self.rcv_nxt {
                break;
            }
            self.ooo.remove(&s);
            self.rcv_nxt = self.rcv_nxt.max(e);
        }
        let nxt = self.rcv_nxt;
        self.recent.retain(|&(_, e)| e > nxt);
        self.update_delivered();
        if self.fin_seq.is_some_and(|f| self.rcv_nxt > f) {
            self.state = ReceiverState::CloseWait;
            self.ack_now = true;
        }
        // A one-way SYN is acknowledged at once, as any SYN (ns-2.35's
        // `DelAckSink` does not delay its ACK either).
        if had_hole || !self.delayed_ack || seg.flags.syn {
            self.ack_now = true;
            return;
        }
        self.unacked_segments += 1;
        if self.unacked_segments >= 2 {
            self.ack_now = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delayed_ack_timeout);
        }
    }

    fn insert(&mut self, mut start: u64, mut end: u64) {
        // Merge with any overlapping or adjacent intervals.
        let overlapping: Vec<(u64, u64)> = self
            .ooo
            .range(..=end)
            .filter(|(_, &e)| e >= start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in overlapping {
            self.ooo.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.ooo.insert(start, end);
    }

    fn update_delivered(&mut self) {
        let top = match self.fin_seq {
            Some(f) => self.rcv_nxt.min(f),
            None => self.rcv_nxt,
        };
        self.delivered = top.saturating_sub(self.data_start);
    }

    fn sack_blocks(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(s, _) in &self.recent {
            if let Some((&bs, &be)) = self.ooo.range(..=s).next_back() {
                if be > s && !out.contains(&(bs, be)) {
                    out.push((bs, be));
                    if out.len() == 3 {
                        break;
                    }
                }
            }
        }
        out
    }

    /// An ACK to send now, if one is due.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let _ = now;
        if self.synack_now {
            self.synack_now = false;
            self.acks_sent += 1;
            return Some(TcpSegment {
                seq: 0,
                ack: self.rcv_nxt,
                flags: TcpFlags {
                    syn: true,
                    ack: true,
                    fin: false,
                },
                ts_val: now,
                ts_ecr: self.ts_recent,
                ts_option: self.timestamps,
                sack_permitted: self.sack,
                window: self.window,
                ..Default::default()
            });
        }
        if !self.ack_now {
            return None;
        }
        self.ack_now = false;
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        Some(TcpSegment {
            seq: self.snd_seq,
            ack: self.rcv_nxt,
            flags: TcpFlags {
                ack: true,
                ..Default::default()
            },
            sack: if self.sack {
                self.sack_blocks()
            } else {
                Vec::new()
            },
            ts_val: now,
            ts_ecr: self.ts_recent,
            ts_option: self.timestamps,
            window: self.window,
            ..Default::default()
        })
    }

    /// The delayed-ACK deadline.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|t| t <= now) {
            self.delack_deadline = None;
            self.ack_now = true;
        }
    }

    /// Bytes newly delivered in order since the last call.
    pub fn take_delivered(&mut self) -> u64 {
        let n = self.delivered - self.taken;
        self.taken = self.delivered;
        n
    }

    /// Total bytes delivered in order.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered
    }
}
