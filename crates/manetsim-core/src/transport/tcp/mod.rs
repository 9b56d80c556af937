//! TCP: a sender ([`TcpSender`]) and a receiver ([`TcpReceiver`]) as sans-IO
//! state machines, with congestion control behind one trait
//! ([`cc::CongestionControl`]), one file per variant in `cc/`, dispatched
//! through [`cc::AnyCc`] built from [`CcKind`].
//!
//! Nothing here reads a clock or owns a queue: every entry point takes
//! `now`, segments leave through `poll_transmit`, and timers are deadlines
//! returned by `poll_timeout` (call `on_timeout` when one passes).
//!
//! ## Files
//! - `segment.rs`: what travels ([`TcpSegment`]) and its wire header.
//! - `rtt.rs`: RFC 6298 RTO estimation with Karn's algorithm and backoff.
//! - `sender.rs`: sequence space, windows, retransmission timer and the loss
//!   recovery procedures (Tahoe, Reno, NewReno per RFC 6582, SACK per RFC
//!   6675). Loss *recovery* lives in the sender; each variant chooses which
//!   procedure it uses ([`cc::CongestionControl::recovery`]) and decides the
//!   window values (increase, ssthresh after loss, pacing).
//! - `receiver.rs`: cumulative ACKs, out-of-order buffer, SACK blocks,
//!   delayed ACKs (RFC 1122 / RFC 5681 section 4.2), FIN.
//! - `cc/`: the variants.
//!
//! ## Units
//! Sequence numbers are bytes (64-bit, never wrapping; the wire header
//! truncates to 32 bits). The congestion window is kept in segments as a
//! real number, as ns-2 does (`cwnd_`), so the per-ACK increase `1/cwnd` and
//! Veno's halved increase are exact; [`TcpMetrics::cwnd_bytes`] gives bytes.
//!
//! ## ns-2 differences (all configurable in [`TcpConfig`])
//! - ns-2's `window_` (20) bounds the window: here it caps cwnd growth and is
//!   the receiver's advertised window.
//! - ns-2 counts a 40-byte header (IP + TCP) in every packet; SACK blocks and
//!   timestamps add their option bytes on top (ns-2 does not count them).
//! - ssthresh after a loss is FlightSize/2 (RFC 5681 eq. 4); ns-2 uses
//!   `min(cwnd, window_)/2`, which is the same while the window is full.
//! - RTT samples for the RTO come from one timed segment per RTT (as ns-2
//!   and RFC 6298 without timestamps); variants also get a Karn-valid RTT
//!   sample on every ACK that acknowledges a segment sent once.

pub mod cc;
pub mod receiver;
pub mod rtt;
pub mod segment;
pub mod sender;
pub mod slow_start;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::SimTime;
use crate::engine::{NS_PER_MS, NS_PER_S};

pub use cc::{CcKind, SsthreshRule, VegasRule};
pub use receiver::TcpReceiver;
pub use segment::{TcpFlags, TcpSegment};
pub use sender::TcpSender;
pub use slow_start::SlowStart;

/// Parameters of one TCP connection. `Default` follows ns-2.35's
/// `Agent/TCP` defaults (read from Debian's `ns` 2.35 with
/// `Agent/TCP set <var>`); each field names the ns-2 variable.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    /// Congestion-control variant (ns-2: the agent class).
    pub variant: CcKind,
    /// Payload bytes per segment (ns-2 `packetSize_`, 1000).
    pub mss_bytes: u32,
    /// ns-2 `window_` (20): cap on cwnd and the receiver's window, packets.
    pub window_packets: u32,
    /// ns-2 `windowInit_` (2). RFC 5681 allows 2–4 for common MSS sizes.
    pub initial_window_packets: u32,
    /// ns-2 `minrto_` (0.2 s). RFC 6298 recommends 1 s.
    pub min_rto: SimTime,
    /// ns-2 `rtxcur_init_` (3 s, the pre-RFC 6298 value). RFC 6298: 1 s.
    pub initial_rto: SimTime,
    /// ns-2.35 `maxrto_` (60 s; RFC 6298 allows a maximum of at least 60 s).
    pub max_rto: SimTime,
    /// ns-2 `tcpTick_` (0.01 s): the clock granularity G in RFC 6298.
    pub tick: SimTime,
    /// ns-2 `numdupacks_` (3).
    pub dupack_threshold: u32,
    /// Delayed ACKs at the receiver (ns-2: `Agent/TCPSink/DelAck`; off by
    /// default as ns-2's plain `TCPSink`).
    pub delayed_ack: bool,
    /// ns-2 `Agent/TCPSink/DelAck interval_` (0.1 s). RFC 1122: < 0.5 s.
    pub delayed_ack_timeout: SimTime,
    /// Three-way handshake and FIN (false = no connection set-up). Note
    /// that ns-2.35's one-way agents default to `syn_ true`: they send a
    /// 40-byte SYN-like packet and start data after its ACK, which costs
    /// the same one RTT as `handshake = true` here (without the FIN).
    pub handshake: bool,
    /// Bytes of IP + TCP header counted in every packet (ns-2: 40); TCP
    /// options add to it.
    pub header_bytes: u32,
    /// Carry the RFC 7323 timestamp option on the wire (ns-2
    /// `timestamps_`, false). Timestamps are kept in segments either way.
    pub timestamps: bool,
    /// Largest exponential backoff multiplier of the RTO (ns-2
    /// `maxbackoff_`, 64).
    pub max_backoff: u32,
    /// What a loss halves: RFC 5681's FlightSize, or ns-2.35's window.
    pub ssthresh_rule: SsthreshRule,
    /// RFC 3042 limited transmit: the first and second duplicate ACKs each
    /// let one new segment leave (ns-2.35's `singledup_`, on in its
    /// Tahoe, Reno and NewReno agents; off here unless asked for).
    pub limited_transmit: bool,
    /// How a one-way flow starts: its first window at once, or ns-2.35's
    /// `syn_` and `delay_growth_` (a 40-byte SYN first).
    pub start_rule: StartRule,
    /// How the SACK variant recovers: RFC 6675's, or ns-2.35's `Sack1`.
    pub sack_rule: SackRule,
    /// How Reno's and NewReno's fast recovery deflates the window and
    /// ends: RFC 5681's and RFC 6582's, or ns-2.35's.
    pub recovery_rule: RecoveryRule,
    /// How the retransmission timeout is computed: RFC 6298's arithmetic,
    /// ns-2.35's clock ticks, or ns-3's samples and backoff.
    pub rto_rule: RtoRule,
    /// How slow start ends: at a loss (RFC 5681), or by HyStart or
    /// HyStart++ when the RTT rises.
    pub slow_start: SlowStart,
    /// F-RTO (RFC 5682, its basic algorithm): after a timeout, send new
    /// data on the first ACK, and undo the window's cut if the next ACK
    /// shows the originals arrived.
    pub frto: bool,
    /// ns-2.35's `boot_time_`, in `[0, tick)`: where this agent's clock
    /// ticks fall (used by [`RtoRule::Ns2`] only).
    pub tick_offset: SimTime,
}

/// How the retransmission timeout is computed (`[flows.tcp] rto_rule`).
/// Each rule backs the timeout off by doubling from `min_rto` upwards and
/// ends the backoff on the next valid RTT sample; ns-3's also on every new
/// ACK that restarts the timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRule {
    /// RFC 6298 in real numbers: SRTT and RTTVAR from each sample (the
    /// newest segment the ACK covers, if none of those was resent), RTO =
    /// SRTT + max(G, 4 RTTVAR) clamped to `[min_rto, max_rto]`, and the
    /// backoff at most `max_backoff`.
    #[default]
    Rfc,
    /// ns-2.35's `TcpAgent` with its defaults (`rfc2988_ 1`, `tcpTick_`,
    /// no timestamps), read from its `tcp.cc`:
    /// - the sample is the time since the timed segment left, counted in
    ///   whole ticks of the agent's clock (the tick boundaries it crossed,
    ///   at least one; the clock is offset by `tick_offset`), even when
    ///   the ACK also covers later segments;
    /// - SRTT (in eighths of a tick) and RTTVAR (in quarters) are
    ///   integers, updated as 4.4BSD does; the first sample sets SRTT to
    ///   it and RTTVAR to half of it;
    /// - RTO = ⌊SRTT + 4 RTTVAR⌋ ticks; below `min_rto` the backoff
    ///   multiplies `min_rto`, else the RTO; the result is at most
    ///   `max_rto` and at least two ticks;
    /// - each timeout doubles the backoff while it is below `max_backoff`
    ///   or the backed-off timeout is below `max_rto`; once the backoff
    ///   exceeds 8, SRTT is cleared, so the next sample starts the
    ///   estimate afresh.
    Ns2,
    /// ns-3's `TcpSocketBase` with `RttMeanDeviation` (ns-3.44's
    /// `EstimateRtt`, `NewAck` and `ReTxTimeout`, timestamps off):
    /// - every new ACK gives a sample: the time since the earliest segment
    ///   it newly covers left, unless that segment was resent or left
    ///   before the last timeout (ns-3 empties its history of sends
    ///   then), where the RFC rule times one segment a round trip;
    /// - SRTT and RTTVAR in whole nanoseconds, as Jacobson and Karels's
    ///   integer update (gains 1/8 and 1/4, each step floored); the first
    ///   sample sets SRTT to it and RTTVAR to half of it;
    /// - RTO = max(SRTT + max(1 ms, 4 RTTVAR), `min_rto`), ns-3's clock
    ///   granularity being 1 ms;
    /// - a timeout doubles the RTO up to `max_rto`; the backoff ends at the
    ///   next sample, and also whenever a new ACK restarts the timer, as
    ///   `NewAck` recomputes the RTO from the estimate (RFC 6298 keeps it
    ///   until a valid sample).
    Ns3,
}

/// How Reno's and NewReno's fast recovery deflates the window on a
/// partial ACK and what the ACK that ends it does (`[flows.tcp]
/// recovery_rule`). Both rules count the duplicate ACKs alike, and a
/// NewReno partial ACK leaves the same window (cwnd less the segments it
/// acknowledges, plus one); they differ in the window recovery leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryRule {
    /// RFC 5681 section 3.2 step 6 and RFC 6582 section 3.2 step 3: the
    /// ACK that ends recovery sets cwnd to the value the loss chose
    /// (ssthresh) and nothing more.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TCP/Reno` and `Agent/TCP/Newreno` with their
    /// defaults (`partial_window_deflation_ 1`, read from `tcp-reno.cc`
    /// and `tcp-newreno.cc`): the window is `cwnd_` plus `dupwnd_`, the
    /// duplicate ACKs; a partial ACK for `d` segments takes `d - 1` from
    /// `dupwnd_` while `dupwnd_ > d`, else takes the rest from `cwnd_`
    /// itself (at least 1) and leaves `dupwnd_` at 1. The ACK that ends
    /// recovery drops `dupwnd_`, so cwnd is the halved window less what
    /// partial ACKs took from it, and then opens the window as any new
    /// ACK does (`recv_newack_helper`: one segment in slow start, else
    /// 1/cwnd).
    Ns2,
}

/// How the SACK variant recovers from a loss (`[flows.tcp] sack_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SackRule {
    /// RFC 6675: the scoreboard keeps what every ACK SACKs; a hole is
    /// resent once `IsLost` (DupThresh segments SACKed above it); `pipe`
    /// is counted from the scoreboard; a timeout clears the SACKed bits
    /// and go-back-N skips what later SACKs mark.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TCP/Sack1` with its defaults (read from
    /// `tcp-sack1.cc` and `scoreboard-rq.cc`):
    /// - a new ACK outside fast recovery clears the scoreboard, and a
    ///   duplicate ACK counts towards the fast retransmit only if its
    ///   blocks SACK something new;
    /// - after a timeout duplicate ACKs are ignored until the next new
    ///   ACK, and go-back-N resends SACKed segments too;
    /// - in fast recovery `pipe` is a counter: the segments outstanding
    ///   less DupThresh at the fast retransmit, one less for each ACK and
    ///   another for a partial ACK (`partial_ack_` off), one more for each
    ///   segment sent but the fast retransmit; while `pipe < ⌊cwnd⌋` the
    ///   sender resends, once each and in order, every hole below the
    ///   highest SACKed segment, then sends new data within the peer's
    ///   window;
    /// - an ACK counts 8 bytes per SACK block, as its `Sack1` sink does
    ///   (the RFC 2018 option is 2 bytes more, padded to 4; a pcap capture
    ///   still writes the option).
    Ns2,
}

/// How a flow without the handshake starts (`[flows.tcp] start_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartRule {
    /// Data from sequence number 0, a whole initial window at once.
    #[default]
    Window,
    /// As ns-2.35's one-way agents with their defaults `syn_ true` and
    /// `delay_growth_ true`: the window starts at one segment and the
    /// first packet is a SYN, 40 bytes of header and no data; data follows
    /// when its ACK comes back, with the window at
    /// `initial_window_packets`, or one segment if the SYN timed out
    /// (`bugfix_ss_`, after which ssthresh is 2). Vegas's agent sends no
    /// SYN: its first packet is data, sent alone, and the window becomes
    /// `initial_window_packets` on the first new ACK after that packet's
    /// own (its `recv` checks `last_ack_ == 0` before updating it).
    Ns2,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            variant: CcKind::NewReno,
            mss_bytes: 1000,
            window_packets: 20,
            initial_window_packets: 2,
            min_rto: 200 * NS_PER_MS,
            initial_rto: 3 * NS_PER_S,
            max_rto: 60 * NS_PER_S,
            tick: 10 * NS_PER_MS,
            dupack_threshold: 3,
            delayed_ack: false,
            delayed_ack_timeout: 100 * NS_PER_MS,
            handshake: false,
            header_bytes: 40,
            timestamps: false,
            max_backoff: 64,
            ssthresh_rule: SsthreshRule::FlightSize,
            limited_transmit: false,
            start_rule: StartRule::Window,
            sack_rule: SackRule::Rfc,
            recovery_rule: RecoveryRule::Rfc,
            rto_rule: RtoRule::Rfc,
            slow_start: SlowStart::Standard,
            frto: false,
            tick_offset: 0,
        }
    }
}

impl TcpConfig {
    /// A default configuration for `variant`.
    pub fn with_variant(variant: CcKind) -> Self {
        Self {
            variant,
            ..Self::default()
        }
    }

    /// Size of the IP packet carrying `seg`, counted as ns-2 does:
    /// `header_bytes` (IP + basic TCP header) + TCP option bytes + payload.
    pub fn packet_bytes(&self, seg: &TcpSegment) -> u32 {
        self.header_bytes + (self.wire_len(seg) - crate::wire::tcp::HEADER_LEN as u32) + seg.len
    }

    /// `seg`'s TCP header bytes, options included: with
    /// [`SackRule::Ns2`] its SACK blocks count 8 bytes each, as ns-2.35's
    /// `Sack1` sink counts them.
    pub fn wire_len(&self, seg: &TcpSegment) -> u32 {
        if self.ns2_sack() {
            seg.wire_len_ns2_sack()
        } else {
            seg.wire_len()
        }
    }

    /// Whether a one-way flow's first packet is ns-2.35's SYN (its agents
    /// but Vegas's, with [`StartRule::Ns2`]): it takes sequence number 0
    /// and data starts at 1.
    pub fn one_way_syn(&self) -> bool {
        self.ns2_start() && !matches!(self.variant, CcKind::Vegas { .. })
    }

    /// Whether a flow starts as ns-2.35's one-way agents do
    /// ([`StartRule::Ns2`], without the handshake).
    pub fn ns2_start(&self) -> bool {
        !self.handshake && self.start_rule == StartRule::Ns2
    }

    /// The initial window, segments (ns-2's `initial_window()`).
    pub fn initial_window(&self) -> f64 {
        self.initial_window_packets.max(1) as f64
    }

    /// Whether the receiver sends SACK blocks (the SACK variant).
    pub fn sack(&self) -> bool {
        matches!(self.variant, CcKind::Sack)
    }

    /// Whether the sender recovers as ns-2.35's `Sack1` ([`SackRule::Ns2`]).
    pub fn ns2_sack(&self) -> bool {
        self.sack() && self.sack_rule == SackRule::Ns2
    }
}

/// A snapshot of the sender, for time series.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TcpMetrics {
    pub cwnd_packets: f64,
    pub cwnd_bytes: u64,
    pub ssthresh_packets: f64,
    pub srtt: Option<SimTime>,
    pub rto: SimTime,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub bytes_sent: u64,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Timeouts F-RTO found spurious.
    pub spurious_timeouts: u64,
    pub in_recovery: bool,
    /// The pacing gap (TCP-AP), if pacing.
    pub pacing_interval: Option<SimTime>,
}
