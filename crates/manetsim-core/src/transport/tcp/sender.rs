//! The TCP sender: sequence space, windows, the retransmission timer and
//! the loss-recovery procedures.
//!
//! - **Windows.** New data may leave while `snd_nxt + len ≤ snd_una + W`,
//!   `W = min(⌊cwnd⌋, window_, peer window) × MSS` (RFC 5681 section 2 and
//!   ns-2's `min(cwnd_, window_)`). SACK recovery uses `pipe` instead.
//! - **RTO** (RFC 6298): armed when data is outstanding, restarted on each
//!   new ACK, stopped when all is acked. On expiry: back off, ssthresh and
//!   cwnd from the variant (`on_rto`), go-back-N from `snd_una`.
//! - **Fast retransmit** on the third duplicate ACK, unless the ACK does not
//!   cover `recover` (the RFC 6582 section 3.2 step 1 guard, also used for
//!   Tahoe and Reno as ns-2's `bug_fix_` does, so the go-back-N duplicates
//!   after a timeout do not trigger a second reduction).
//! - **Recovery procedures** ([`Recovery`]): Tahoe (cwnd = 1, go-back-N),
//!   Reno (RFC 5681 3.2: cwnd = ssthresh + 3, +1 per dupack, leave on the
//!   first new ACK), NewReno (RFC 6582: leave when the ACK reaches
//!   `recover`; a partial ACK retransmits the next hole, deflates cwnd by the
//!   amount acked and adds one segment, and, the first of a recovery only,
//!   restarts the RTO; with [`RecoveryRule::Ns2`](super::RecoveryRule::Ns2)
//!   as ns-2.35's agents deflate and end it), SACK (RFC
//!   6675: scoreboard, IsLost, pipe, NextSeg rules 1 and 2; recovery ends
//!   when the ACK reaches the recovery point; a retransmit timeout clears
//!   the SACKed bits, RFC 2018 section 8), or with
//!   [`SackRule::Ns2`](super::SackRule::Ns2) ns-2.35's `Sack1` (see there).
//! - **Limited transmit** (RFC 3042, `limited_transmit`; ns-2.35's
//!   `singledup_`): the first and second duplicate ACKs since the last new
//!   ACK each let the segment at `snd_nxt` leave if at most ⌊cwnd +
//!   duplicates⌋ segments (and the windows' caps) are then outstanding. A
//!   fast retransmit does not start a new count (ns-2.35 resets
//!   `dupacks_` on a new ACK), nor does a timeout under Tahoe (ns-2.35's
//!   base agent), so Tahoe's go-back-N sends nothing more on the
//!   duplicates that follow; under the other variants a timeout starts a
//!   new count (ns-2.35's Reno, NewReno and Sack1 `timeout()` zero
//!   `dupacks_`), and the first two duplicates after it each let the next
//!   go-back-N segment leave.
//! - **Handshake** (optional): SYN, then data after the SYN-ACK; a finite
//!   flow ends with FIN. Without the handshake (ns-2's one-way agents) data
//!   starts at sequence 0 and no FIN is sent, or, with
//!   [`StartRule::Ns2`](super::StartRule::Ns2), after a one-way SYN and its plain ACK (see there).
//! - **No Nagle**: whatever the application has written is sent at once, up
//!   to one MSS per segment (CBR over TCP sends one segment per write).

use std::collections::VecDeque;

use super::cc::{AckEvent, AnyCc, CcState, CongestionControl, Recovery};
use super::rtt::RttEstimator;
use super::segment::{TcpFlags, TcpSegment};
use super::slow_start::SlowStartState;
use super::{CcKind, RecoveryRule, RtoRule, TcpConfig, TcpMetrics, VegasRule};
use crate::engine::{SimTime, NS_PER_S};

/// Connection state of the sender (RFC 9293 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SenderState {
    Closed,
    SynSent,
    Established,
    /// All data acknowledged (and the FIN, with the handshake).
    Done,
}

/// One transmitted, not yet cumulatively acknowledged segment.
#[derive(Debug, Clone)]
struct Sent {
    seq: u64,
    end: u64,
    fin: bool,
    sent_at: SimTime,
    /// Ever retransmitted (Karn).
    retx: bool,
    /// Retransmitted during the current SACK recovery.
    rec_retx: bool,
    sacked: bool,
    lost: bool,
    /// Times sent (ns-2.35 Vegas's `v_transmits_`).
    transmits: u32,
    /// ns-2.35 Vegas's `vegastime()` at the last send, seconds.
    sent_vt: f64,
}

/// ns-2.35's `Agent/TCP/Vegas` loss recovery (with
/// [`VegasRule::Ns2`](super::VegasRule::Ns2)), read from its
/// `tcp-vegas.cc`. Times are its `vegastime()`: seconds since `firstsent_`,
/// which its `send_much` sets whenever it sends packet 0 (again after a
/// timeout).
#[derive(Debug, Clone, Default)]
struct Ns2VegasLoss {
    /// `firstsent_`, seconds.
    first_sent_s: f64,
    /// An ACK has arrived (`firstrecv_` set).
    started: bool,
    /// `v_sa_` and `v_sd_`: 8 × the smoothed fine-grained RTT and 4 × its
    /// mean deviation, seconds.
    sa_s: f64,
    sd_s: f64,
    /// `v_timeout_`, seconds.
    timeout_s: f64,
    /// `v_newcwnd_`: the window a duplicate ACK's cut chose.
    new_cwnd: f64,
    /// `t_cwnd_changed_`, a `vegastime()`.
    cwnd_changed_vt: f64,
    /// `v_worried_`: ACKs after a fast retransmit that check the next
    /// segment's fine-grained timer.
    worried: u32,
    /// `last_cwnd_action_ == CWND_ACTION_TIMEOUT`.
    after_timeout: bool,
}

impl Ns2VegasLoss {
    fn vt(&self, now: SimTime) -> f64 {
        now as f64 / NS_PER_S as f64 - self.first_sent_s
    }

    /// Whether a segment sent at `sent_vt` has outlived `v_timeout_`
    /// (`vegas_expire`).
    fn expired(&self, now: SimTime, sent_vt: f64) -> bool {
        self.vt(now) - sent_vt >= self.timeout_s
    }
}

#[derive(Debug, Clone, Copy)]
struct InRecovery {
    /// `recover` / RecoveryPoint: snd_max at entry.
    point: u64,
    /// cwnd to use when recovery ends (with
    /// [`RecoveryRule::Ns2`](super::RecoveryRule::Ns2) ns-2.35's `cwnd_`,
    /// which partial ACKs may deflate).
    post_cwnd: f64,
    /// Partial ACKs so far (NewReno): only the first restarts the timer.
    partial_acks: u32,
}

/// The sending half of a TCP connection.
#[derive(Debug, Clone)]
pub struct TcpSender {
    cfg: TcpConfig,
    cc: AnyCc,
    st: CcState,
    rtt: RttEstimator,
    state: SenderState,
    iss: u64,
    /// First data byte.
    data_start: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Data bytes the application has handed over (u64::MAX/4 = infinite).
    written: u64,
    /// The flow ends (FIN with the handshake) when all written data is sent.
    finite: bool,
    sent: VecDeque<Sent>,
    dupacks: u32,
    /// Duplicate ACKs since the last new ACK or, but under Tahoe, the last
    /// timeout, as ns-2.35 counts `dupacks_` (a fast retransmit does not
    /// reset it): limited transmit acts on the first two of a run only.
    dup_run: u32,
    recovery: Option<InRecovery>,
    recover: Option<u64>,
    rto_deadline: Option<SimTime>,
    /// [`RtoRule::Ns3`]: when the last timeout struck. ns-3 empties its
    /// history of sends then, so only segments first sent since time it.
    last_timeout_at: SimTime,
    pacing_next: Option<SimTime>,
    /// A segment to retransmit at once (fast retransmit, partial ACK).
    retransmit_now: Option<u64>,
    /// A first or second duplicate ACK lets one segment beyond the window
    /// leave (limited transmit).
    send_one: bool,
    syn_pending: bool,
    syn_sent_at: Option<(SimTime, bool)>,
    /// The SYN of a one-way flow (ns-2.35's `syn_`) timed out: data starts
    /// with a window of one segment (its `bugfix_ss_`).
    syn_timed_out: bool,
    /// [`StartRule::Ns2`](super::StartRule::Ns2) for Vegas: the window becomes the initial
    /// window on the first new ACK after the first packet's own.
    vegas_delay_growth: bool,
    ack_pending: bool,
    peer_window: u64,
    /// One timed segment per RTT for the RTO (end, sent at).
    timed: Option<(u64, SimTime)>,
    bytes_sent: u64,
    segments_sent: u64,
    retransmissions: u64,
    timeouts: u64,
    fast_retransmits: u64,
    /// [`SackRule::Ns2`](super::SackRule::Ns2): ns-2.35's `pipe_`, a
    /// counter of segments, during fast recovery.
    ns2_pipe: i64,
    /// [`SackRule::Ns2`](super::SackRule::Ns2): after a timeout, duplicate
    /// ACKs are ignored until the next new ACK (ns-2.35's `timeout_`).
    ns2_muted: bool,
    /// [`SackRule::Ns2`](super::SackRule::Ns2): no hole below this is
    /// resent again in this recovery (ns-2.35's scoreboard's `h_seqno_`).
    ns2_resent_to: u64,
    /// Vegas with [`VegasRule::Ns2`](super::VegasRule::Ns2): its agent's
    /// own loss recovery.
    ns2_vegas: Option<Ns2VegasLoss>,
    /// The newest segment the last new ACK covered: (`sent_vt`,
    /// `transmits`).
    last_acked: Option<(f64, u32)>,
    /// How slow start ends (`[flows.tcp] slow_start`).
    slow_start: SlowStartState,
    /// F-RTO after a timeout, while it runs.
    frto: Option<Frto>,
    /// New segments F-RTO's step 2 may still send beyond the window.
    frto_new: u32,
    spurious_timeouts: u64,
}

/// F-RTO's state (RFC 5682 section 2) between a timeout and the two ACKs
/// that follow its retransmission.
#[derive(Debug, Clone)]
struct Frto {
    /// Step 3 (the first ACK came and new data left), else step 2.
    second: bool,
    /// The highest sequence sent when the timer fired.
    recover: u64,
    /// cwnd and ssthresh before the timeout cut them, for the undo.
    prior_cwnd: f64,
    prior_ssthresh: f64,
    /// `recover` before the timeout set it, for the undo.
    prior_recover: Option<u64>,
    /// Timeouts in this F-RTO, each of which resent the first segment.
    timeouts: u32,
    /// The congestion control before the timeout, for the variant's own
    /// undo (CUBIC's W_max and stage).
    prior_cc: Box<AnyCc>,
}

const INFINITE: u64 = u64::MAX / 4;

impl TcpSender {
    /// `total_bytes`: `None` = infinite (FTP), `Some(n)` = n bytes (then FIN
    /// with the handshake). More data can be added with [`Self::write`].
    pub fn new(cfg: TcpConfig, total_bytes: Option<u64>) -> Self {
        let mut s = Self::build(cfg);
        match total_bytes {
            None => s.written = INFINITE,
            Some(n) => {
                s.written = n;
                s.finite = true;
            }
        }
        s
    }

    /// A sender whose data arrives only through [`Self::write`] (CBR over
    /// TCP); it never closes.
    pub fn new_app_limited(cfg: TcpConfig) -> Self {
        Self::build(cfg)
    }

    fn build(cfg: TcpConfig) -> Self {
        // ns-2.35's `delay_growth_` starts the window at one segment.
        let ns2_start = cfg.ns2_start();
        let st = CcState {
            cwnd: if ns2_start { 1.0 } else { cfg.initial_window() },
            ssthresh: f64::MAX,
            max_cwnd: cfg.window_packets.max(1) as f64,
            mss: cfg.mss_bytes.max(1),
            flight: 0.0,
            uninflated_cwnd: cfg.initial_window_packets.max(1) as f64,
            ssthresh_rule: cfg.ssthresh_rule,
            srtt: None,
            min_rtt: None,
            last_rtt: None,
            path_hops: None,
        };
        let rtt = RttEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.tick,
            cfg.max_backoff,
        )
        .with_rule(cfg.rto_rule, cfg.tick_offset);
        let handshake = cfg.handshake;
        let one_way_syn = cfg.one_way_syn();
        let data_start = (handshake || one_way_syn) as u64;
        let vegas_delay_growth = ns2_start && !one_way_syn;
        let ns2_vegas = matches!(
            cfg.variant,
            CcKind::Vegas {
                rule: VegasRule::Ns2,
                ..
            }
        )
        .then(Ns2VegasLoss::default);
        let slow_start = SlowStartState::new(cfg.slow_start);
        Self {
            cc: AnyCc::new(cfg.variant),
            peer_window: cfg.window_packets as u64 * cfg.mss_bytes as u64,
            cfg,
            st,
            rtt,
            state: if handshake || one_way_syn {
                SenderState::Closed
            } else {
                SenderState::Established
            },
            iss: 0,
            data_start,
            snd_una: data_start,
            snd_nxt: data_start,
            snd_max: data_start,
            written: 0,
            finite: false,
            sent: VecDeque::new(),
            dupacks: 0,
            dup_run: 0,
            recovery: None,
            recover: None,
            rto_deadline: None,
            pacing_next: None,
            retransmit_now: None,
            send_one: false,
            syn_pending: handshake || one_way_syn,
            syn_sent_at: None,
            syn_timed_out: false,
            vegas_delay_growth,
            ack_pending: false,
            timed: None,
            bytes_sent: 0,
            segments_sent: 0,
            retransmissions: 0,
            timeouts: 0,
            fast_retransmits: 0,
            ns2_pipe: 0,
            ns2_muted: false,
            ns2_resent_to: 0,
            ns2_vegas,
            last_acked: None,
            last_timeout_at: 0,
            slow_start,
            frto: None,
            frto_new: 0,
            spurious_timeouts: 0,
        }
    }

    /// Application data arrives (ignored for an infinite flow).
    pub fn write(&mut self, bytes: u64) {
        if self.written < INFINITE {
            self.written = self.written.saturating_add(bytes).min(INFINITE - 1);
        }
    }

    /// Cross-layer hop count of the current route (TCP-AP).
    pub fn set_path_hops(&mut self, hops: u32) {
        self.st.path_hops = Some(hops);
    }

    pub fn state(&self) -> SenderState {
        self.state
    }

    /// The variant (for inspection in tests and traces).
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }

    /// All data (and FIN) acknowledged. Never true for infinite or
    /// application-limited flows.
    pub fn is_done(&self) -> bool {
        self.state == SenderState::Done
    }

    fn mss(&self) -> u64 {
        self.st.mss as u64
    }

    /// One past the last data byte available.
    fn data_end(&self) -> u64 {
        self.data_start.saturating_add(self.written)
    }

    /// The sequence number after everything this flow will ever send.
    fn final_seq(&self) -> Option<u64> {
        if !self.finite {
            return None;
        }
        Some(self.data_end() + self.cfg.handshake as u64)
    }

    fn window_bytes(&self) -> u64 {
        let w = self.st.cwnd.min(self.st.max_cwnd).floor().max(1.0) as u64;
        (w * self.mss()).min(self.peer_window.max(self.mss()))
    }

    fn update_flight(&mut self) {
        self.st.flight = (self.snd_max - self.snd_una) as f64 / self.mss() as f64;
        // Reno's and NewReno's recovery inflate cwnd by the duplicate ACKs;
        // partial ACKs may deflate it below where recovery will leave it.
        self.st.uninflated_cwnd = match self.recovery {
            Some(rec) if matches!(self.cc.recovery(), Recovery::Reno | Recovery::NewReno) => {
                self.st.cwnd.min(rec.post_cwnd)
            }
            _ => self.st.cwnd,
        };
    }

    fn base_segment(&self, now: SimTime) -> TcpSegment {
        TcpSegment {
            ts_val: now,
            ts_option: self.cfg.timestamps,
            flags: TcpFlags {
                ack: self.state != SenderState::Closed && self.state != SenderState::SynSent,
                ..Default::default()
            },
            ack: 1, // the receiver's ISS (0) + 1 after its SYN-ACK
            ..Default::default()
        }
    }

    /// The next segment allowed now; call until `None`.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        if self.syn_pending {
            self.syn_pending = false;
            self.state = SenderState::SynSent;
            let retx = self.syn_sent_at.is_some();
            self.syn_sent_at = Some((now, retx));
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            let mut seg = self.base_segment(now);
            seg.seq = self.iss;
            seg.flags = TcpFlags {
                syn: true,
                ..Default::default()
            };
            seg.ack = 0;
            seg.retransmission = retx;
            // ns-2.35's one-way SYN is 40 bytes: no options.
            seg.sack_permitted = self.cfg.sack() && self.cfg.handshake;
            self.segments_sent += 1;
            return Some(seg);
        }
        if self.state != SenderState::Established {
            return None;
        }
        if self.ack_pending {
            self.ack_pending = false;
            let mut seg = self.base_segment(now);
            seg.seq = self.snd_nxt;
            self.segments_sent += 1;
            return Some(seg);
        }
        if let Some(t) = self.pacing_next {
            if now < t {
                return None;
            }
            self.pacing_next = None;
        }
        let seg = match self.next_data(now) {
            Some(seg) => seg,
            None if std::mem::take(&mut self.send_one) => self.limited_transmit(now)?,
            None => return None,
        };
        if let Some(gap) = self.cc.pacing_interval(&self.st) {
            if gap > 0 {
                self.pacing_next = Some(now + gap);
            }
        }
        Some(seg)
    }

    fn next_data(&mut self, now: SimTime) -> Option<TcpSegment> {
        // Fast retransmit / partial ACK: the hole at `seq`, regardless of
        // the window.
        if let Some(seq) = self.retransmit_now.take() {
            if let Some(i) = self.sent.iter().position(|s| s.seq == seq) {
                return Some(self.resend(now, i));
            }
        }
        if self.frto_new > 0 && self.snd_nxt == self.snd_max {
            // F-RTO step 2: up to two new segments, whatever cwnd says,
            // within the peer's window.
            let limit = self.snd_una + self.peer_window.max(self.mss());
            if let Some(seg) = self.send_new_within(now, limit) {
                self.frto_new -= 1;
                return Some(seg);
            }
            self.frto_new = 0;
        }
        if self.recovery.is_some() && self.cc.recovery() == Recovery::Sack {
            if self.cfg.ns2_sack() {
                return self.next_sack_ns2(now);
            }
            return self.next_sack(now);
        }
        // Go-back-N region after a timeout (or Tahoe's fast retransmit).
        // ns-2.35's Sack1 resends SACKed segments there too.
        let skip_sacked = !self.cfg.ns2_sack();
        while self.snd_nxt < self.snd_max {
            let i = self.sent.iter().position(|s| s.seq == self.snd_nxt)?;
            if skip_sacked && self.sent[i].sacked {
                self.snd_nxt = self.sent[i].end;
                continue;
            }
            if self.sent[i].end > self.snd_una + self.window_bytes() {
                return None;
            }
            self.snd_nxt = self.sent[i].end;
            return Some(self.resend(now, i));
        }
        self.send_new(now, false)
    }

    /// RFC 6675 section 5 step (C): rule 1 (lost, not yet retransmitted
    /// hole) before rule 2 (new data), while `cwnd − pipe ≥ 1 MSS`.
    fn next_sack(&mut self, now: SimTime) -> Option<TcpSegment> {
        let pipe: u64 = self
            .sent
            .iter()
            .filter(|s| !s.sacked)
            .map(|s| (!s.lost) as u64 + s.rec_retx as u64)
            .sum();
        if (pipe as f64) + 1.0 > self.st.cwnd {
            return None;
        }
        if let Some(i) = self
            .sent
            .iter()
            .position(|s| !s.sacked && s.lost && !s.rec_retx)
        {
            self.sent[i].rec_retx = true;
            return Some(self.resend(now, i));
        }
        self.send_new(now, true)
    }

    /// ns-2.35's `Sack1` in fast recovery (`send_much` with `fastrecov_`):
    /// while `pipe < ⌊cwnd⌋`, the next hole at or above `ns2_resent_to`
    /// with a SACKed segment above it (`GetNextRetran`), else new data,
    /// each within the peer's window from `snd_una`. The fast retransmit
    /// itself leaves through `retransmit_now`, outside `pipe`.
    fn next_sack_ns2(&mut self, now: SimTime) -> Option<TcpSegment> {
        if self.ns2_pipe >= self.st.cwnd.floor() as i64 {
            return None;
        }
        let limit = self.snd_una + self.peer_window.max(self.mss());
        let from = self.ns2_resent_to.max(self.snd_una);
        let top_sacked = self.sent.iter().rposition(|s| s.sacked);
        let hole = top_sacked.and_then(|top| {
            self.sent
                .iter()
                .take(top)
                .position(|s| s.seq >= from && !s.sacked)
        });
        let seg = if let Some(i) = hole {
            if self.sent[i].end > limit {
                return None;
            }
            self.ns2_resent_to = self.sent[i].end;
            self.resend(now, i)
        } else if self.snd_nxt < self.snd_max {
            // After a timeout, `t_seqno_` may still be below `maxseq_`.
            let i = self.sent.iter().position(|s| s.seq == self.snd_nxt)?;
            if self.sent[i].end > limit {
                return None;
            }
            self.snd_nxt = self.sent[i].end;
            self.resend(now, i)
        } else {
            self.send_new_within(now, limit)?
        };
        self.ns2_pipe += 1;
        Some(seg)
    }

    /// RFC 3042 limited transmit, as ns-2.35's `send_one()`: the segment
    /// at `snd_nxt` may leave if at most cwnd + the duplicate ACKs so far
    /// (and the windows' caps) are then outstanding from `snd_una`.
    fn limited_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let mss = self.mss();
        let w = (self.st.cwnd + self.dup_run as f64)
            .min(self.st.max_cwnd)
            .floor()
            .max(1.0) as u64;
        let limit = self.snd_una + (w * mss).min(self.peer_window.max(mss));
        // In a go-back-N region (after a timeout) the next segment not
        // already SACKed, as `next_data` takes it.
        let skip_sacked = !self.cfg.ns2_sack();
        while self.snd_nxt < self.snd_max {
            let i = self.sent.iter().position(|s| s.seq == self.snd_nxt)?;
            if skip_sacked && self.sent[i].sacked {
                self.snd_nxt = self.sent[i].end;
                continue;
            }
            if self.sent[i].end > limit {
                return None;
            }
            self.snd_nxt = self.sent[i].end;
            return Some(self.resend(now, i));
        }
        self.send_new_within(now, limit)
    }

    fn send_new(&mut self, now: SimTime, ignore_cwnd: bool) -> Option<TcpSegment> {
        let limit = if ignore_cwnd {
            // SACK recovery: pipe already checked; the peer window still binds.
            self.snd_una + self.peer_window.max(self.mss())
        } else {
            self.snd_una + self.window_bytes()
        };
        self.send_new_within(now, limit)
    }

    /// New data (or the FIN), if it ends within `limit`.
    fn send_new_within(&mut self, now: SimTime, limit: u64) -> Option<TcpSegment> {
        debug_assert_eq!(self.snd_nxt, self.snd_max);
        let seq = self.snd_nxt;
        let avail = self.data_end().saturating_sub(seq);
        let (len, fin) = if avail > 0 {
            (avail.min(self.mss()), false)
        } else if self.cfg.handshake && self.finite && Some(seq + 1) == self.final_seq() {
            (0, true)
        } else {
            return None;
        };
        let end = seq + len + fin as u64;
        if end > limit && !(fin && len == 0 && seq <= limit) {
            return None;
        }
        self.sent.push_back(Sent {
            seq,
            end,
            fin,
            sent_at: now,
            retx: false,
            rec_retx: false,
            sacked: false,
            lost: false,
            transmits: 1,
            sent_vt: 0.0,
        });
        self.snd_nxt = end;
        self.snd_max = end;
        if let Some(v) = &mut self.ns2_vegas {
            if seq == self.data_start {
                // `send_much` with `t_seqno_ == 0`.
                v.first_sent_s = now as f64 / NS_PER_S as f64;
                if let AnyCc::Vegas(vegas) = &mut self.cc {
                    // `v_begtime_` is 0 on the `vegastime()` clock: the
                    // first round began as this packet left.
                    vegas.begin_round_at(now);
                }
            }
            if let Some(back) = self.sent.back_mut() {
                back.sent_vt = v.vt(now);
            }
        }
        if self.timed.is_none() {
            self.timed = Some((end, now));
        }
        Some(self.emit(now, seq, len as u32, fin, false))
    }

    fn resend(&mut self, now: SimTime, i: usize) -> TcpSegment {
        let s = &mut self.sent[i];
        s.retx = true;
        s.sent_at = now;
        s.transmits += 1;
        if let Some(v) = &self.ns2_vegas {
            s.sent_vt = v.vt(now);
        }
        let (seq, len, fin) = (s.seq, (s.end - s.seq - s.fin as u64) as u32, s.fin);
        // Karn: a retransmission invalidates the timed segment. ns-2.35
        // ends its timing only on a timeout or a fast retransmit
        // (`reset_rtx_timer`), so the timed segment's ACK may come after
        // holes were resent.
        if self.cfg.rto_rule != RtoRule::Ns2 {
            self.timed = None;
        }
        self.retransmissions += 1;
        self.emit(now, seq, len, fin, true)
    }

    fn emit(&mut self, now: SimTime, seq: u64, len: u32, fin: bool, retx: bool) -> TcpSegment {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.bytes_sent += len as u64;
        self.segments_sent += 1;
        self.update_flight();
        self.cc.on_send(&mut self.st, now, seq, retx);
        let mut seg = self.base_segment(now);
        seg.seq = seq;
        seg.len = len;
        seg.flags.fin = fin;
        seg.retransmission = retx;
        seg
    }

    /// An ACK (or SYN-ACK) arrived.
    pub fn on_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        if self.state == SenderState::SynSent {
            // With the handshake a SYN-ACK answers the SYN; a one-way SYN
            // is answered by a plain ACK (ns-2.35's sink acknowledges its
            // sequence number 0).
            let answer = seg.flags.syn == self.cfg.handshake;
            if answer && seg.flags.ack && seg.ack == self.iss + 1 {
                if let Some((t, false)) = self.syn_sent_at {
                    self.rtt_sample(now, now - t, true);
                }
                self.state = SenderState::Established;
                self.snd_una = self.data_start;
                self.snd_nxt = self.data_start;
                self.snd_max = self.data_start;
                self.rto_deadline = None;
                self.peer_window = seg.window as u64;
                if self.cfg.handshake {
                    self.ack_pending = true;
                } else {
                    // `delay_growth_`: the window opens to
                    // `initial_window()`, which a timed-out SYN made one.
                    self.st.cwnd = if self.syn_timed_out {
                        1.0
                    } else {
                        self.cfg.initial_window()
                    };
                    self.update_flight();
                }
            }
            return;
        }
        if self.state != SenderState::Established || !seg.flags.ack {
            return;
        }
        if seg.flags.syn {
            // A duplicate SYN-ACK: our ACK was lost.
            self.ack_pending = true;
            return;
        }
        if seg.ack > self.snd_max {
            return;
        }
        if let Some(v) = &mut self.ns2_vegas {
            if !v.started {
                // `firstrecv_`: the first ACK's `vegastime()` primes the
                // fine-grained estimator.
                v.started = true;
                let first = v.vt(now);
                v.sa_s = first * 8.0;
                v.sd_s = first;
                v.timeout_s = (v.sa_s / 4.0 + v.sd_s) / 2.0;
            }
        }
        let old_window = self.peer_window;
        self.peer_window = seg.window as u64;
        let ns2_sack = self.cfg.ns2_sack();
        // The first segment this ACK SACKs anew (RFC 6675's scoreboard).
        let mut newly_sacked = None;
        if ns2_sack {
            if self.recovery.is_some() {
                // `--pipe_` for every ACK in fast recovery.
                self.ns2_pipe -= 1;
            }
        } else if self.cc.recovery() == Recovery::Sack {
            newly_sacked = self.update_scoreboard(&seg.sack);
        }
        if seg.ack > self.snd_una {
            if self.ns2_vegas.is_some() {
                return self.ns2_vegas_new_ack(now, seg.ack);
            }
            let step2 = self.frto_before_new_ack(seg.ack);
            self.on_new_ack(now, seg.ack);
            if let Some(f) = step2 {
                self.frto_step2(f);
            }
            if ns2_sack {
                if self.recovery.is_some() {
                    // A partial ACK: `pipe_` falls once more.
                    self.ns2_pipe -= 1;
                    self.mark_sacked(&seg.sack);
                } else {
                    // ns-2.35 clears its scoreboard on a new ACK outside
                    // fast recovery (and as it ends), and listens again
                    // after a timeout.
                    self.clear_scoreboard();
                    self.ns2_muted = false;
                }
            }
        } else if seg.ack == self.snd_una
            && seg.len == 0
            && !seg.flags.fin
            && self.snd_max > self.snd_una
            && seg.window as u64 == old_window
        {
            if self.ns2_vegas.is_some() {
                self.ns2_vegas_dup_ack(now);
            } else if self.frto_dup_ack(newly_sacked) {
                // F-RTO step 3 (a): the timeout was genuine.
            } else if !ns2_sack {
                self.on_dup_ack(now);
            } else if self.recovery.is_some() {
                self.mark_sacked(&seg.sack);
            } else if !self.ns2_muted && self.mark_sacked(&seg.sack).is_some() {
                // Only a duplicate that SACKs something new counts.
                self.on_dup_ack(now);
            }
        }
    }

    /// F-RTO on a new ACK, before the ACK's own work: in step 3 the ACK
    /// shows data sent before the timeout arrived (the timeout was
    /// spurious), and the window's cut is undone; in step 2 an ACK below
    /// `recover` is returned, for [`Self::frto_step2`] once the ACK is
    /// processed; any other ends F-RTO (RTO recovery as RFC 5681's).
    fn frto_before_new_ack(&mut self, ack: u64) -> Option<Frto> {
        let f = self.frto.take()?;
        if !f.second {
            return (ack < f.recover).then_some(f);
        }
        // Step 3 (b): an ACK of data sent before the timeout and not
        // since: spurious.
        self.frto_undo(f);
        None
    }

    /// A spurious timeout: undo the cut (to at least the window and
    /// threshold before it, as Linux does) and go on with new data, no
    /// go-back-N. Nothing was resent but the first segment, so duplicate
    /// ACKs tell of a loss again and the timeout's `recover` no longer
    /// holds the fast retransmit back (RFC 6582's guard is against the
    /// duplicates go-back-N makes) unless the first segment went out
    /// DupThresh times or more, whose copies alone could then make a fast
    /// retransmit. With SACK the scoreboard says again which segments are
    /// lost.
    fn frto_undo(&mut self, f: Frto) {
        self.spurious_timeouts += 1;
        self.frto_new = 0;
        self.cc.undo_rto(&f.prior_cc);
        self.st.cwnd = self.st.cwnd.max(f.prior_cwnd);
        self.st.ssthresh = self.st.ssthresh.max(f.prior_ssthresh);
        self.snd_nxt = self.snd_max;
        if f.timeouts < self.cfg.dupack_threshold {
            self.recover = f.prior_recover;
        }
        for s in &mut self.sent {
            s.lost = false;
        }
        if self.frto_sack() {
            self.mark_lost();
        }
    }

    /// RFC 5682 section 3's SACK-enhanced F-RTO: RFC 6675's SACK sender.
    fn frto_sack(&self) -> bool {
        self.cc.recovery() == Recovery::Sack && !self.cfg.ns2_sack()
    }

    /// F-RTO step 2 (b), after the first new ACK below `recover`: send up
    /// to two new segments instead of going back, if new data can leave;
    /// otherwise RTO recovery goes on as RFC 5681's.
    fn frto_step2(&mut self, f: Frto) {
        let mss = self.mss();
        let avail = self.data_end().saturating_sub(self.snd_max).min(mss);
        let room = self.snd_max + avail <= self.snd_una + self.peer_window.max(mss);
        if avail == 0 || !room {
            return;
        }
        self.snd_nxt = self.snd_max;
        self.frto_new = 2;
        self.frto = Some(Frto { second: true, ..f });
    }

    /// F-RTO on a duplicate ACK, `newly_sacked` the first segment it SACKs
    /// anew. In step 3 the timeout was genuine (cwnd at most 3 segments,
    /// go-back-N from `snd_una`), and the ACK is done with (returns true);
    /// but with SACK (section 3), a duplicate that SACKs a segment below
    /// `recover`, sent before the timeout and not since, shows the timeout
    /// spurious, and the ACK then counts as usual. In step 2 the basic
    /// F-RTO ends and the ACK counts as usual; the SACK-enhanced one waits
    /// on for the new ACK, the scoreboard updated.
    fn frto_dup_ack(&mut self, newly_sacked: Option<u64>) -> bool {
        let Some(f) = self.frto.take() else {
            return false;
        };
        let sack = self.frto_sack();
        if !f.second {
            if sack {
                self.frto = Some(f);
            }
            return false;
        }
        if sack && newly_sacked.is_some_and(|seq| seq < f.recover) {
            self.frto_undo(f);
            return false;
        }
        self.frto_new = 0;
        self.st.cwnd = self.st.cwnd.min(3.0);
        self.snd_nxt = self.snd_una;
        true
    }

    fn rtt_sample(&mut self, now: SimTime, r: SimTime, for_rto: bool) {
        if for_rto {
            self.rtt.sample(now - r, r);
            self.st.srtt = self.rtt.srtt();
        }
        self.st.last_rtt = Some(r);
        self.st.min_rtt = Some(self.st.min_rtt.map_or(r, |m| m.min(r)));
        // ns-2.35's Vegas takes its own sample, after the ACK's round
        // (`ns2_vegas_new_ack`).
        if self.ns2_vegas.is_none() {
            self.cc.on_rtt_sample(&mut self.st, now, r);
        }
        self.slow_start.on_rtt_sample(r);
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64) {
        if self.vegas_delay_growth && self.snd_una > self.data_start {
            // ns-2.35's Vegas resets its window while `last_ack_` is still
            // its first packet's, before anything else this ACK does.
            self.vegas_delay_growth = false;
            if self.snd_una == self.data_start + self.mss() {
                self.st.cwnd = self.cfg.initial_window();
            }
        }
        let acked_bytes = ack - self.snd_una;
        // Before the ACK: all written was sent, with room for more.
        let app_limited = self.data_end() <= self.snd_max && self.st.flight + 1.0 <= self.st.cwnd;
        self.send_one = false;
        self.dup_run = 0;
        // Remove covered segments. The newest gives the sample, unless any
        // of them was retransmitted (Karn, as RFC 6298 section 3 and Linux
        // read it for cumulative ACKs): an ACK that fills a hole left by a
        // lost segment times the recovery, not the path, even for the
        // segments beyond the hole that were sent only once.
        let mut newest: Option<(SimTime, bool)> = None;
        let mut earliest: Option<(SimTime, bool)> = None;
        let mut retx_covered = false;
        while let Some(front) = self.sent.front_mut() {
            if front.end <= ack {
                earliest.get_or_insert((front.sent_at, front.retx));
                retx_covered |= front.retx;
                newest = Some((front.sent_at, retx_covered));
                self.last_acked = Some((front.sent_vt, front.transmits));
                self.sent.pop_front();
            } else {
                if front.seq < ack {
                    front.seq = ack;
                }
                break;
            }
        }
        let (rtt, sent_at) = match newest {
            Some((t, false)) => (Some(now - t), Some(t)),
            _ => (None, None),
        };
        let timed_hit = matches!(self.timed, Some((end, _)) if ack >= end);
        // ns-2.35 times only the timed segment, even when the ACK also
        // covers later ones.
        let timed_only = self.cfg.rto_rule == RtoRule::Ns2;
        let ns3 = self.cfg.rto_rule == RtoRule::Ns3;
        if let Some(r) = rtt {
            let for_rto = timed_hit && !timed_only && !ns3;
            self.rtt_sample(now, r, for_rto);
        }
        if ns3 {
            // ns-3's `EstimateRtt`: the earliest segment the ACK covers,
            // sent once since the last timeout.
            if let Some((t, false)) = earliest {
                if t >= self.last_timeout_at {
                    self.rtt.sample(t, now - t);
                    self.st.srtt = self.rtt.srtt();
                }
            }
        } else if timed_hit && (rtt.is_none() || timed_only) {
            if let Some((_, t)) = self.timed {
                self.rtt.sample(t, now - t);
                self.st.srtt = self.rtt.srtt();
            }
        }
        if timed_hit {
            self.timed = None;
        }
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        self.update_flight();
        let ev = AckEvent {
            now,
            acked_bytes,
            ack,
            rtt,
            sent_at,
            snd_max: self.snd_max,
            snd_nxt: self.snd_nxt,
            app_limited,
        };
        let mode = self.cc.recovery();
        let ns2_recovery = self.cfg.recovery_rule == RecoveryRule::Ns2;
        // RFC 6582 section 3.2 step 3 restarts the timer on the first
        // partial ACK only (ns-2.35's `newreno_changes1_ 1` too).
        let mut keep_timer = false;
        match self.recovery {
            Some(rec) => match mode {
                Recovery::Reno => {
                    self.exit_recovery(now, rec);
                    if ns2_recovery {
                        self.cc.on_ack(&mut self.st, &ev);
                    }
                }
                Recovery::NewReno if ack >= rec.point => {
                    self.exit_recovery(now, rec);
                    if ns2_recovery {
                        self.cc.on_ack(&mut self.st, &ev);
                    }
                }
                Recovery::Sack if ack >= rec.point => self.exit_recovery(now, rec),
                Recovery::NewReno => {
                    // RFC 6582 section 3.2 step 3, partial ACK.
                    self.retransmit_now = Some(ack);
                    let acked_pkts = acked_bytes as f64 / self.mss() as f64;
                    let mut post_cwnd = rec.post_cwnd;
                    if ns2_recovery {
                        // ns-2.35's `partialnewack`: `dupwnd_` first, then
                        // `cwnd_` itself.
                        let dupwnd = self.st.cwnd - rec.post_cwnd;
                        if dupwnd > acked_pkts {
                            self.st.cwnd -= acked_pkts - 1.0;
                        } else {
                            post_cwnd = (rec.post_cwnd - (acked_pkts - dupwnd)).max(1.0);
                            self.st.cwnd = post_cwnd + 1.0;
                        }
                    } else {
                        self.st.cwnd = (self.st.cwnd - acked_pkts + 1.0).max(1.0);
                    }
                    keep_timer = rec.partial_acks > 0;
                    self.recovery = Some(InRecovery {
                        post_cwnd,
                        partial_acks: rec.partial_acks + 1,
                        ..rec
                    });
                    self.cc.on_partial_ack(&mut self.st, &ev);
                }
                Recovery::Sack => {
                    self.cc.on_partial_ack(&mut self.st, &ev);
                }
                Recovery::Tahoe => self.recovery = None,
            },
            None => {
                self.dupacks = 0;
                let before = self.st.cwnd;
                let slow_start = !self.st.in_ca();
                self.cc.on_ack(&mut self.st, &ev);
                if slow_start {
                    self.slow_start
                        .after_slow_start_ack(&mut self.st, &ev, before);
                }
            }
        }
        if self.recovery.is_none() {
            self.dupacks = 0;
        }
        if self.cc.recovery() == Recovery::Sack && !self.cfg.ns2_sack() {
            // RFC 6675's IsLost; ns-2.35's Sack1 has no such test.
            self.mark_lost();
        }
        if self.final_seq().is_some_and(|f| ack >= f) {
            self.state = SenderState::Done;
            self.rto_deadline = None;
        } else if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if !(keep_timer && self.rto_deadline.is_some()) {
            // RFC 6298 (5.3).
            self.rtt.on_timer_restart();
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// A new ACK under ns-2.35's Vegas recovery: a window inflated by
    /// duplicate ACKs falls to the cut's (`v_newcwnd_`, ssthresh 2); the ACK
    /// then acts as any new ACK; the segment it acknowledges, sent once,
    /// gives a fine-grained RTT sample; and for up to two ACKs after a fast
    /// retransmit the next segment is resent at once if its fine-grained
    /// timer has run out (`v_worried_`).
    fn ns2_vegas_new_ack(&mut self, now: SimTime, ack: u64) {
        let threshold = self.cfg.dupack_threshold;
        if let Some(v) = &self.ns2_vegas {
            if self.dupacks > threshold && self.st.cwnd > v.new_cwnd {
                self.st.cwnd = v.new_cwnd;
                self.st.ssthresh = 2.0;
            }
        }
        self.last_acked = None;
        self.on_new_ack(now, ack);
        let front = self.sent.front().map(|f| (f.seq, f.sent_vt));
        let last = self.last_acked.take();
        let Some(v) = &mut self.ns2_vegas else {
            return;
        };
        // `sendTime != 0.`: the packet sent at `vegastime()` 0, the first,
        // gives no sample (`firstrecv_` primed the estimates instead).
        if let Some((sent_vt, 1)) = last.filter(|&(vt, _)| vt != 0.0) {
            let rtt = v.vt(now) - sent_vt;
            if rtt > 0.0 {
                let n = rtt - v.sa_s / 8.0;
                v.sa_s += n;
                v.sd_s += n.abs() - v.sd_s / 4.0;
                v.timeout_s = (v.sa_s / 4.0 + v.sd_s) / 2.0;
                v.timeout_s += v.timeout_s / 16.0;
                // The same sample joins the next round's mean and BaseRTT
                // only now, after this ACK closed its round (`v_sumRTT_`,
                // `v_cntRTT_` and `v_baseRTT_` follow the round's test in
                // `recv`): the ACK that ends a round is counted in the next.
                let r = (rtt * NS_PER_S as f64).round() as SimTime;
                self.cc.on_rtt_sample(&mut self.st, now, r);
            }
        }
        if v.worried > 0 {
            v.worried -= 1;
            // Nothing outstanding reads as a send time of -1 s.
            let expired =
                front.map_or(v.vt(now) + 1.0 >= v.timeout_s, |(_, vt)| v.expired(now, vt));
            if expired {
                self.dupacks = threshold;
                if let Some((seq, _)) = front {
                    self.retransmit_now = Some(seq);
                }
            } else {
                v.worried = 0;
            }
        }
    }

    /// A duplicate ACK under ns-2.35's Vegas recovery. The first
    /// unacknowledged segment is resent when its fine-grained timer has run
    /// out or at the third duplicate, unless a timeout came since `recover`
    /// was set (`bug_fix_`). Each such retransmission lengthens `v_timeout_`
    /// (doubles it if the segment was resent before), backs off the
    /// retransmission timer and restarts it, and, if the window has not
    /// been cut since the segment left, cuts it: to 2 from 3 or less, else
    /// by half for a segment resent before, else by a quarter (whole
    /// segments), inflated by the duplicates so far. Further duplicates
    /// inflate it by one each.
    fn ns2_vegas_dup_ack(&mut self, now: SimTime) {
        self.dupacks += 1;
        let threshold = self.cfg.dupack_threshold;
        let Some(front) = self.sent.front() else {
            return;
        };
        let (seq, transmits, sent_vt) = (front.seq, front.transmits, front.sent_vt);
        let recovered = self.recover.is_none_or(|r| self.snd_una > r);
        let outstanding = (self.snd_max - self.snd_una).div_ceil(self.mss());
        let Some(v) = &mut self.ns2_vegas else {
            return;
        };
        let expired = v.expired(now, sent_vt);
        if !(expired || self.dupacks == threshold) {
            if self.dupacks > threshold {
                self.st.cwnd += 1.0;
            }
            return;
        }
        if !recovered && v.after_timeout {
            // `bug_fix_`: no fast retransmit for what a timeout resent.
            return;
        }
        v.after_timeout = false;
        self.recover = Some(self.snd_max);
        v.worried = (outstanding + 1).min(2) as u32;
        if transmits > 1 {
            v.timeout_s *= 2.0;
        } else {
            v.timeout_s += v.timeout_s / 8.0;
        }
        if v.cwnd_changed_vt < sent_vt {
            let win = self.st.cwnd.min(self.st.max_cwnd).floor().max(0.0) as u64;
            let win = if win <= 3 {
                2
            } else if transmits > 1 {
                win >> 1
            } else {
                win - (win >> 2)
            };
            v.new_cwnd = win as f64;
            self.st.cwnd = v.new_cwnd + self.dupacks as f64;
            v.cwnd_changed_vt = v.vt(now);
        }
        // `reset_rtx_timer(1)`: backed off, restarted.
        self.rtt.on_timeout();
        self.rto_deadline = Some(now + self.rtt.rto());
        self.fast_retransmits += 1;
        self.timed = None;
        self.retransmit_now = Some(seq);
        if transmits == 1 {
            self.dupacks = threshold;
        }
    }

    fn exit_recovery(&mut self, now: SimTime, rec: InRecovery) {
        self.recovery = None;
        self.st.cwnd = rec.post_cwnd;
        self.st.clamp();
        for s in &mut self.sent {
            s.rec_retx = false;
        }
        self.cc.on_exit_recovery(&mut self.st, now);
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        self.dupacks += 1;
        self.dup_run += 1;
        // An allowance is for this duplicate only (ns-2 sends at once).
        self.send_one = false;
        self.cc.on_dup_ack(&mut self.st, now);
        let mode = self.cc.recovery();
        if self.recovery.is_some() {
            if matches!(mode, Recovery::Reno | Recovery::NewReno) {
                // RFC 5681 section 3.2 step 4: inflate.
                self.st.cwnd += 1.0;
            }
            return;
        }
        let lost_front = mode == Recovery::Sack
            && !self.cfg.ns2_sack()
            && self.sent.front().is_some_and(|s| s.lost);
        if self.dupacks < self.cfg.dupack_threshold && !lost_front {
            self.send_one = self.cfg.limited_transmit && self.dup_run < self.cfg.dupack_threshold;
            return;
        }
        if self.dupacks > self.cfg.dupack_threshold && !lost_front {
            return;
        }
        // RFC 6582 section 3.2 step 1 guard.
        if let Some(r) = self.recover {
            if self.snd_una <= r {
                return;
            }
        }
        self.fast_retransmits += 1;
        self.timed = None;
        self.recover = Some(self.snd_max);
        self.slow_start.on_loss();
        self.update_flight();
        match mode {
            Recovery::Tahoe => {
                self.cc.on_loss(&mut self.st, now);
                self.st.cwnd = 1.0;
                self.snd_nxt = self.snd_una;
                self.dupacks = 0;
            }
            Recovery::Reno | Recovery::NewReno => {
                self.cc.on_loss(&mut self.st, now);
                let post = self.st.cwnd;
                self.st.cwnd = post + self.cfg.dupack_threshold as f64;
                self.recovery = Some(InRecovery {
                    point: self.snd_max,
                    post_cwnd: post,
                    partial_acks: 0,
                });
                self.retransmit_now = Some(self.snd_una);
            }
            Recovery::Sack => {
                self.cc.on_loss(&mut self.st, now);
                let post = self.st.cwnd;
                self.recovery = Some(InRecovery {
                    point: self.snd_max,
                    post_cwnd: post,
                    partial_acks: 0,
                });
                if let Some(f) = self.sent.front_mut() {
                    f.lost = true;
                    f.rec_retx = true;
                    // ns-2.35: `MarkRetran(highest_ack_ + 1)`, and `pipe_`
                    // is what is outstanding less DupThresh.
                    self.ns2_resent_to = f.end;
                }
                let outstanding = (self.snd_max - self.snd_una).div_ceil(self.mss()) as i64;
                self.ns2_pipe = outstanding - self.cfg.dupack_threshold as i64;
                self.retransmit_now = Some(self.snd_una);
            }
        }
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// RFC 2018 blocks mark segments SACKed; the first segment newly
    /// marked, if any (whether any was is ns-2.35's `CheckUpdate`).
    fn mark_sacked(&mut self, blocks: &[(u64, u64)]) -> Option<u64> {
        let mut first: Option<u64> = None;
        for &(l, r) in blocks {
            for s in self.sent.iter_mut() {
                if !s.sacked && s.seq >= l && s.end <= r {
                    s.sacked = true;
                    first = Some(first.map_or(s.seq, |f| f.min(s.seq)));
                }
            }
        }
        first
    }

    /// ns-2.35's `ClearScoreBoard`: nothing SACKed, nothing resent.
    fn clear_scoreboard(&mut self) {
        for s in &mut self.sent {
            s.sacked = false;
        }
        self.ns2_resent_to = 0;
    }

    /// RFC 2018 blocks mark segments SACKed; the first segment newly
    /// marked, if any.
    fn update_scoreboard(&mut self, blocks: &[(u64, u64)]) -> Option<u64> {
        let first = self.mark_sacked(blocks);
        self.mark_lost();
        first
    }

    /// RFC 6675 IsLost: more than (DupThresh − 1) × MSS SACKed bytes above.
    fn mark_lost(&mut self) {
        let limit = (self.cfg.dupack_threshold.max(1) as u64 - 1) * self.mss();
        let mut above = 0u64;
        for s in self.sent.iter_mut().rev() {
            if s.sacked {
                above += s.end - s.seq;
            } else if above > limit {
                s.lost = true;
            }
        }
    }

    /// The earliest deadline: RTO or pacing.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.pacing_next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A deadline passed.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.pacing_next.is_some_and(|t| t <= now) {
            self.pacing_next = None;
        }
        let Some(deadline) = self.rto_deadline else {
            return;
        };
        if now < deadline {
            return;
        }
        self.rto_deadline = None;
        self.rtt.on_timeout();
        self.last_timeout_at = now;
        self.timeouts += 1;
        if self.state == SenderState::SynSent {
            self.syn_pending = true;
            if !self.cfg.handshake {
                // ns-2.35's `timeout()` on its one-way SYN: ssthresh
                // halves a window of one (at least 2), cwnd restarts at
                // one, and `bugfix_ss_` makes the initial window one.
                self.st.ssthresh = 2.0;
                self.st.cwnd = 1.0;
                self.syn_timed_out = true;
            }
            return;
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        // F-RTO (RFC 5682 step 1) unless a recovery is under way; a
        // timeout that recurs before any ACK came (only the first segment
        // was resent) keeps it going with the first one's state, as RFC
        // 5682 section 3.2 and Linux allow.
        let frto = match self.frto.take() {
            _ if !self.cfg.frto => None,
            Some(f) if !f.second => Some(Frto {
                timeouts: f.timeouts + 1,
                ..f
            }),
            Some(_) => None,
            None => self
                .recover
                .is_none_or(|r| self.snd_una > r)
                .then_some(Frto {
                    second: false,
                    recover: self.snd_max,
                    prior_cwnd: self.st.cwnd,
                    prior_ssthresh: self.st.ssthresh,
                    prior_recover: self.recover,
                    timeouts: 1,
                    prior_cc: Box::new(self.cc.clone()),
                }),
        };
        self.frto_new = 0;
        // RFC 6298 (5.4)–(5.6) and RFC 5681 eq. (4).
        self.update_flight();
        self.cc.on_rto(&mut self.st, now);
        self.slow_start.on_rto();
        self.frto = frto;
        if let Some(v) = &mut self.ns2_vegas {
            // `timeout()`: the window changed now; go-back-N to packet 0
            // sets `firstsent_` again.
            v.after_timeout = true;
            v.new_cwnd = 0.0;
            v.cwnd_changed_vt = v.vt(now);
            if self.snd_una == self.data_start {
                v.first_sent_s = now as f64 / NS_PER_S as f64;
            }
        }
        self.recovery = None;
        self.dupacks = 0;
        // ns-2.35's Reno, NewReno and Sack1 agents zero `dupacks_` in their
        // `timeout()`, so the first two duplicates after it each let a
        // segment leave again (`send_one`, here in the go-back-N region);
        // its base agent, Tahoe, keeps counting from before.
        if self.cc.recovery() != Recovery::Tahoe {
            self.dup_run = 0;
        }
        self.recover = Some(self.snd_max);
        self.retransmit_now = None;
        self.send_one = false;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.pacing_next = None;
        // RFC 2018 section 8: after a timeout the sender turns its SACKed
        // bits off (the receiver may have reneged) and ignores earlier SACK
        // information in choosing what to send again, as ns-2.35's Sack1
        // clears its scoreboard; SACKs after the timeout mark segments anew.
        for s in &mut self.sent {
            s.rec_retx = false;
            s.lost = true;
            s.sacked = false;
        }
        // ns-2.35's Sack1 also ignores duplicate ACKs until a new ACK.
        self.ns2_resent_to = 0;
        self.ns2_muted = self.cfg.ns2_sack();
    }

    pub fn metrics(&self) -> TcpMetrics {
        TcpMetrics {
            cwnd_packets: self.st.cwnd,
            cwnd_bytes: (self.st.cwnd * self.mss() as f64) as u64,
            ssthresh_packets: self.st.ssthresh,
            srtt: self.rtt.srtt(),
            rto: self.rtt.rto(),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            bytes_sent: self.bytes_sent,
            segments_sent: self.segments_sent,
            retransmissions: self.retransmissions,
            timeouts: self.timeouts,
            fast_retransmits: self.fast_retransmits,
            spurious_timeouts: self.spurious_timeouts,
            in_recovery: self.recovery.is_some(),
            pacing_interval: self.cc.pacing_interval(&self.st),
        }
    }

    /// Mutable access to the shared state (tests).
    #[cfg(test)]
    pub(crate) fn state_mut(&mut self) -> &mut CcState {
        &mut self.st
    }
}
