//! TFRC, TCP-Friendly Rate Control (RFC 5348): a sender ([`TfrcSender`])
//! and a receiver ([`TfrcReceiver`]) as sans-IO state machines, as TCP's are.
//!
//! The sender paces packets at its allowed rate `X`; the receiver measures
//! the loss event rate `p` and the receive rate `X_recv` and reports them
//! about once a round-trip time; the sender then sets `X` from the TCP
//! throughput equation (section 3.1), never above twice `X_recv`, or, before
//! the first loss, doubles it once per round-trip time (slow start).
//!
//! Nothing here reads a clock: every entry point takes `now`, packets leave
//! through `poll_transmit` / `poll_feedback`, and timers are deadlines from
//! `poll_timeout` (call `on_timeout` when one passes).
//!
//! What is modelled, by section of RFC 5348:
//! - 3.1: the throughput equation with `b = 1` and `t_RTO = 4 R` (or
//!   ns-2.35's TCP-style estimate, [`RtoRule::Ns2`]);
//! - 4.2: 1 packet a second until the first feedback, then the initial rate
//!   `W_init / R`, `W_init = min(4 s, max(2 s, 4380))` (or ns-2.35's start,
//!   [`StartRule::Ns2`]);
//! - 4.3: the RTT estimate (`q = 0.9`, [`TfrcConfig::rtt_filter`]), the
//!   rate update with `recv_limit` from `X_recv_set` (infinity for the
//!   first two round trips, then twice the largest `X_recv` of the last
//!   two; when the whole interval a feedback covers was data-limited, the
//!   set's largest value is kept, halved with `X_recv` cut to 0.85 of
//!   itself and not doubled when `p` rose) and the floor of one packet per
//!   `t_mbi` (64 s); ns-2.35's increase, [`IncreaseRule::Ns2`], keeps its
//!   own `2 X_recv`;
//! - 4.4: the no-feedback timer (`max(4 R, 2 s / X)`, 2 s after the first
//!   packet before any feedback): `X` halved before any loss, else
//!   `Update_Limits` halves `X_recv` (or `X_calc`, whichever limited the
//!   rate), and an idle sender is not halved below the recover rate,
//!   `W_init / R` (ns-2.35's, with [`FeedbackRule::Ns2`]: `max(2 R, 2 s /
//!   X)`, halving);
//! - 4.5, when [`TfrcConfig::oscillation_prevention`] is on (ns-2.35's
//!   `ca_`): packets spaced at `X_inst = X R_sqmean / sqrt(R_sample)`;
//! - 4.6: packets spaced `s / X` apart;
//! - 5.1–5.4: a packet is lost once [`TfrcConfig::ndupack`] later ones have
//!   arrived; losses within one RTT of a loss event's first (by their
//!   interpolated send times) belong to it; the average loss interval over
//!   the last 8 intervals with weights 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, the
//!   open interval counted when it raises the average;
//! - 5.5, when [`TfrcConfig::history_discounting`] is on (ns-2.35's
//!   `discount_`): an open interval over twice the mean discounts the older
//!   ones by `2 I_mean / I_0`, at most by half, and they keep that discount
//!   once it closes;
//! - 6: feedback on the first packet, once per RTT while data arrives, and
//!   at once when a new loss event raises `p`; 6.3.1: the first loss
//!   interval synthesised from `X_recv` by inverting the equation. ns-2.35's
//!   receiver and its answer to missing feedback are
//!   [`FeedbackRule::Ns2`].
//!
//! Data-limited intervals (section 4.3, step 4): the interval a feedback
//! covers runs from the last packet the previous feedback echoed to the
//! one it echoes; it was data-limited when the rate held none of its
//! packets back (none waited for its time). That is what the term means;
//! RFC 5348's section 8.2 sketches ways a sender can approximate it, which
//! a simulator need not. A bulk (FTP) source is never data-limited. "A new
//! loss event or an increase in p" is read as a higher `p` than the last
//! report's (the receiver reports no loss-event count).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::engine::{SimTime, NS_PER_S};
use crate::transport::tcp::rtt::ns2_tick_update;

#[cfg(test)]
mod tests;

/// Parameters of one TFRC flow.
#[derive(Debug, Clone, PartialEq)]
pub struct TfrcConfig {
    /// `s`: payload bytes per packet (the application's packet size).
    pub packet_bytes: u32,
    /// Bytes of header on every data packet: IP 20, UDP 8 and its three
    /// fields (sequence number, timestamp, RTT: 12), 40 in all.
    pub header_bytes: u32,
    /// `t_mbi`: at least one packet in this long (64 s).
    pub t_mbi: SimTime,
    /// Later packets that make a missing one lost (3).
    pub ndupack: u32,
    /// The no-feedback timer from the first packet until any feedback (2
    /// s; under [`StartRule::Ns2`], `2 s / X` instead).
    pub initial_nofeedback: SimTime,
    /// `q` of the RTT estimate (section 4.3: 0.9), and `q2` of `R_sqmean`
    /// (section 4.5: 0.9); ns-2.35's `df_` is 0.95 for both.
    pub rtt_filter: f64,
    /// Section 4.5's oscillation prevention: packets spaced at `X_inst = X
    /// R_sqmean / sqrt(R_sample)` (off; ns-2.35's `ca_` is on).
    pub oscillation_prevention: bool,
    /// How a feedback after the first loss sets `X` ([`IncreaseRule`]).
    pub increase_rule: IncreaseRule,
    /// When the receiver reports and how the sender answers their absence
    /// ([`FeedbackRule`]).
    pub feedback_rule: FeedbackRule,
    /// Section 5.5's history discounting (off; ns-2.35's `discount_` is on).
    pub history_discounting: bool,
    /// The equation's `t_RTO` ([`RtoRule`]).
    pub rto_rule: RtoRule,
    /// When a new rate takes effect on the packets' spacing
    /// ([`PacingRule`]).
    pub pacing_rule: PacingRule,
    /// The rate before the first feedback and the initial window
    /// ([`StartRule`]).
    pub start_rule: StartRule,
}

/// How a sender starts (`[flows.tfrc] start_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartRule {
    /// RFC 5348 section 4.2: one packet a second until the first feedback,
    /// the no-feedback timer 2 s after the first packet, then `W_init / R`
    /// with `W_init = min(4 s, max(2 s, 4380))` bytes.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TFRC` (`start`, `InitRate_` 300, `rate_init_option_`
    /// 2): 300 bytes a second until the first feedback, the no-feedback
    /// timer `2 s / X` after the first packet and after each expiry, then
    /// `W_init / R` with its RFC 3390 window of 4 packets up to 1095 bytes,
    /// 3 below 2190 and 2 from there (`rfc3390`).
    Ns2,
}

/// ns-2.35's `InitRate_`: bytes a second before the first feedback.
pub const NS2_INIT_RATE_BYTES_PER_S: f64 = 300.0;

/// When a change of rate reaches the spacing of packets (`[flows.tfrc]
/// pacing_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingRule {
    /// RFC 5348 section 4.6: the next packet leaves `s / X` after the last
    /// one at the rate of the moment, so a new rate moves the packet
    /// already timed.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TFRC` (`nextpkt`): a packet's time, once set, stands
    /// (a new rate spaces the packet after it); the first feedback, each
    /// feedback in slow start without loss and each expiry of the
    /// no-feedback timer send a packet at once, and time the next from it.
    Ns2,
}

/// The `t_RTO` of the throughput equation (`[flows.tfrc] rto_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRule {
    /// RFC 5348 section 4.3: `t_RTO = 4 R`.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TFRC` (`tzero_`): TCP's retransmission timeout from
    /// the same RTT samples, kept in 100 ms ticks (`tcp_tick_`) as
    /// `srtt + 4 rttvar` with gains 1/8 and 1/4, no lower bound
    /// (`minrto_ 0`); the sender hands it to the receiver for its first
    /// loss interval.
    Ns2,
}

/// ns-2.35's TCP-style timeout estimate in ticks ([`RtoRule::Ns2`]): the
/// smoothed RTT scaled by 8 and its mean deviation scaled by 4.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TickRto {
    srtt8: i64,
    rttvar4: i64,
    rto_s: f64,
}

/// `tcp_tick_`: 100 ms.
const RTO_TICK_S: f64 = 0.1;

impl TickRto {
    /// A new RTT sample of `sample_s` seconds.
    fn sample(&mut self, sample_s: f64) {
        // TFRC rounds its sample to the nearest tick, where TCP counts the
        // tick boundaries crossed; the smoothing is TCP's.
        let rtt = ((sample_s / RTO_TICK_S + 0.5) as i64).max(1);
        let ticks = ns2_tick_update(&mut self.srtt8, &mut self.rttvar4, rtt);
        self.rto_s = ticks as f64 * RTO_TICK_S;
    }
}

/// When the receiver reports, and what the sender does without reports
/// (`[flows.tfrc] feedback_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackRule {
    /// RFC 5348 section 6: a report on the first packet, once per RTT while
    /// data arrives, and at once when a new loss event raises `p`; a packet
    /// is lost once [`TfrcConfig::ndupack`] later ones arrived; the
    /// no-feedback timer runs `max(4 R, 2 s / X)` (section 4.4).
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TFRCSink` and `Agent/TFRC`: the receiver reports at
    /// the first new packet at least `R` after its last report, at every
    /// new loss event, at every packet the sender marks urgent, and, when
    /// no packet triggered one, `1.5 R` after its last report if data
    /// arrived since. `X_recv` counts the packets of the last `R` when less
    /// than `R` passed since the last report. One later packet makes a
    /// packet lost; a loss starts a new loss event only more than `R` after
    /// the last one began and in a later feedback round (`PreciseLoss_`).
    /// The open loss interval counts the sequence numbers after the loss
    /// event's first (not that one), and after the first loss event those
    /// after the highest the receiver had seen at its last report before it
    /// (`est_loss_WALI` counts from where its previous call stopped, and the
    /// report at the first loss passes the synthetic `p` without calling it).
    /// The sender marks its packets urgent from its start, and from each
    /// expiry of its no-feedback timer (`max(2 R, 2 s / X)`) until the next
    /// report; each report and each expiry begins a new round. The expiry
    /// halves `X`, unless the sender is data-limited (an
    /// application-limited sender with nothing queued once a packet's time
    /// has come) or was at the previous expiry with no packet from the
    /// application since (`all_idle_`): then `X`
    /// halves only above twice the initial rate and falls no lower than it
    /// (`rate_init_option_` 2: the RFC 3390 window of 2-4 packets a `R`).
    /// A report's `X_recv` counts nothing received as one packet a second.
    Ns2,
}

/// How a feedback after the first loss sets the rate (`[flows.tfrc]
/// increase_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IncreaseRule {
    /// RFC 5348 section 4.3: `X = max(min(X_calc, recv_limit), s /
    /// t_mbi)`, at once, up or down, `recv_limit` from `X_recv_set`.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/TFRC` (`increase_rate`, `decrease_rate`): when
    /// `X_calc` is above `X` the rate grows by `s / R` times the round trips
    /// since its last change (at most 2) per feedback, up to `X_calc` and
    /// `max(2 X_recv, s / R)`, or `max(2 X_recv, W_init / R)` while the
    /// sender is data-limited or was less than `1.5 R` ago; otherwise it
    /// falls to `X_calc`, within `max(2 X_recv, s / R)`; leaving slow start
    /// it takes `X_calc` uncapped. In slow start (`slowstart()`, each
    /// report): the first two reports keep at least `W_init / R`; then,
    /// with `2 X_recv` below `W_init / R` while data-limited (`idleFix_`),
    /// `X` stays at least `W_init / R`; else if `X` is below `2 X_recv` and
    /// more than `R` passed since its last change it doubles, up to `2
    /// X_recv` and at least `s / R`; else if `X` is above `2 X_recv` it
    /// falls to `X_recv`.
    Ns2,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        Self {
            packet_bytes: 1000,
            header_bytes: 40,
            t_mbi: 64 * NS_PER_S,
            ndupack: 3,
            initial_nofeedback: 2 * NS_PER_S,
            rtt_filter: 0.9,
            oscillation_prevention: false,
            increase_rule: IncreaseRule::Rfc,
            feedback_rule: FeedbackRule::Rfc,
            history_discounting: false,
            rto_rule: RtoRule::Rfc,
            pacing_rule: PacingRule::Rfc,
            start_rule: StartRule::Rfc,
        }
    }
}

/// What a data packet carries (section 3.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TfrcData {
    /// Sequence number, from 0.
    pub seq: u64,
    /// When the sender sent it.
    pub sent_at: SimTime,
    /// The sender's RTT estimate (0 before it has one).
    pub rtt: SimTime,
    /// Payload bytes.
    pub bytes: u32,
    /// The sender's feedback round: reports received and no-feedback
    /// expiries so far ([`FeedbackRule::Ns2`]).
    pub round: u32,
    /// The sender asks for a report at once ([`FeedbackRule::Ns2`]).
    pub urgent: bool,
    /// The sender's `t_RTO` ([`RtoRule::Ns2`]; 0: the receiver takes 4 R).
    pub t_rto: SimTime,
}

/// What a feedback packet carries (section 3.2.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TfrcFeedback {
    /// `t_recvdata`: the send time of the last data packet received.
    pub echo: SimTime,
    /// `t_delay`: how long after that packet arrived this feedback left.
    pub delay: SimTime,
    /// `X_recv`: bytes per second received since the last feedback.
    pub x_recv_bps: f64,
    /// `p`: the loss event rate.
    pub p: f64,
}

/// What a TFRC packet carries: data, or the receiver's feedback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TfrcHeader {
    Data(TfrcData),
    Feedback(TfrcFeedback),
}

/// Bytes of a feedback packet: IP 20, UDP 8 and its four fields (16).
pub const FEEDBACK_BYTES: u32 = 44;

/// The TCP throughput equation (section 3.1) in bytes per second, for
/// packets of `s` bytes, round-trip time `r_s` and loss event rate `p > 0`,
/// with `b = 1` and `t_RTO = 4 R`.
pub fn throughput_bps(s: f64, r_s: f64, p: f64) -> f64 {
    throughput_with_rto_bps(s, r_s, 4.0 * r_s, p)
}

/// The equation with a `t_RTO` of `t_rto_s` seconds.
pub fn throughput_with_rto_bps(s: f64, r_s: f64, t_rto_s: f64, p: f64) -> f64 {
    s / (r_s * (2.0 * p / 3.0).sqrt()
        + t_rto_s * (3.0 * (3.0 * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p))
}

/// The loss event rate at which [`throughput_bps`] gives `x_bps` (bisection;
/// the equation falls as `p` grows). 1 when even `p = 1` allows more.
pub fn loss_rate_for(s: f64, r_s: f64, x_bps: f64) -> f64 {
    loss_rate_with_rto_for(s, r_s, 4.0 * r_s, x_bps)
}

/// [`loss_rate_for`] with a `t_RTO` of `t_rto_s` seconds.
pub fn loss_rate_with_rto_for(s: f64, r_s: f64, t_rto_s: f64, x_bps: f64) -> f64 {
    let x = |p: f64| throughput_with_rto_bps(s, r_s, t_rto_s, p);
    if x(1.0) >= x_bps {
        return 1.0;
    }
    let (mut lo, mut hi) = (1e-12_f64, 1.0_f64);
    if x(lo) <= x_bps {
        return lo;
    }
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if x(mid) > x_bps {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

fn secs(t: SimTime) -> f64 {
    t as f64 / NS_PER_S as f64
}

fn ns(s: f64) -> SimTime {
    (s * NS_PER_S as f64).round().max(0.0) as SimTime
}

/// The sending side.
#[derive(Debug, Clone)]
pub struct TfrcSender {
    cfg: TfrcConfig,
    /// `X`: the allowed rate, bytes per second.
    x: f64,
    /// The last `X_recv` reported (or lowered by the no-feedback timer).
    x_recv: f64,
    /// `R`, seconds, once a feedback has given a sample.
    r: Option<f64>,
    /// Section 4.5: the latest RTT sample, seconds, and `R_sqmean`, the
    /// filtered square root of the samples.
    r_sample: f64,
    r_sqmean: Option<f64>,
    /// The last `p` reported.
    p: f64,
    /// When `X` last doubled in slow start.
    tld: SimTime,
    /// When a feedback last changed `X` ([`IncreaseRule::Ns2`]).
    last_change: SimTime,
    /// The earliest time the next packet may leave.
    next_send: SimTime,
    /// When the last packet left.
    last_sent: Option<SimTime>,
    nofeedback_at: SimTime,
    /// Whether a packet left since the no-feedback timer was last set.
    sent_since_timer: bool,
    /// Packets the application handed over and not yet sent.
    queued: u64,
    /// An unlimited source (FTP): always a packet to send.
    bulk: bool,
    seq: u64,
    /// Reports received plus no-feedback expiries ([`FeedbackRule::Ns2`]).
    round: u32,
    /// Packets ask for a report at once ([`FeedbackRule::Ns2`]).
    urgent: bool,
    /// When a packet last waited for the application rather than for its
    /// time (ns-2.35's `lastlimited_`).
    last_limited: Option<SimTime>,
    /// Data-limited at every no-feedback expiry since the last report or
    /// new data (ns-2.35's `all_idle_`).
    all_idle: bool,
    /// ns-2.35's `slow_increase_` in slow start: packets are spaced at
    /// `oldrate_`, which climbs by `delta_` a packet from the rate before
    /// the last change to the new one over about a round trip.
    ss_old: f64,
    ss_delta: f64,
    /// ns-2.35's timeout estimate ([`RtoRule::Ns2`]).
    tick_rto: TickRto,
    /// Section 4.3's `X_recv_set`: (when, `X_recv`) pairs, at first one
    /// entry of infinity ([`IncreaseRule::Rfc`] and [`FeedbackRule::Rfc`]).
    x_recv_set: Vec<(SimTime, f64)>,
    /// Send times of the packets the rate held back (they waited for their
    /// time), later than the last one a feedback covered: what tells an
    /// interval that was not data-limited (application-limited sources
    /// only; a bulk source never is).
    rate_limited_sends: VecDeque<SimTime>,
    /// The send time of the last packet the latest feedback covered.
    covered_until: Option<SimTime>,
}

impl TfrcSender {
    /// A sender whose application hands it packets with [`Self::write`], or,
    /// with `bulk`, always has one.
    pub fn new(cfg: TfrcConfig, bulk: bool) -> Self {
        let s = cfg.packet_bytes as f64;
        // Section 4.2: one packet a second until the first feedback
        // (ns-2.35: `InitRate_`).
        let x = match cfg.start_rule {
            StartRule::Rfc => s,
            StartRule::Ns2 => NS2_INIT_RATE_BYTES_PER_S,
        };
        Self {
            // Armed by the first packet.
            nofeedback_at: SimTime::MAX,
            cfg,
            x,
            x_recv: 0.0,
            r: None,
            r_sample: 0.0,
            r_sqmean: None,
            p: 0.0,
            tld: 0,
            last_change: 0,
            next_send: 0,
            last_sent: None,
            sent_since_timer: false,
            queued: 0,
            bulk,
            seq: 0,
            round: 0,
            urgent: true,
            last_limited: None,
            all_idle: false,
            ss_old: x,
            ss_delta: 0.0,
            tick_rto: TickRto::default(),
            x_recv_set: vec![(0, f64::INFINITY)],
            rate_limited_sends: VecDeque::new(),
            covered_until: None,
        }
    }

    /// The application hands over `packets` packets.
    pub fn write(&mut self, packets: u64) {
        self.queued += packets;
    }

    /// `X`, bytes per second.
    pub fn rate_bps(&self) -> f64 {
        self.x
    }

    /// `R`, once known.
    pub fn rtt(&self) -> Option<SimTime> {
        self.r.map(ns)
    }

    /// The `p` the receiver last reported.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }

    /// Packets waiting for their turn.
    pub fn queued(&self) -> u64 {
        self.queued
    }

    fn s(&self) -> f64 {
        self.cfg.packet_bytes as f64
    }

    fn t_mbi_s(&self) -> f64 {
        secs(self.cfg.t_mbi)
    }

    /// The initial rate once `R` is known: `W_init / R` (section 4.2; the
    /// window by [`StartRule`]).
    fn initial_rate(&self, r: f64) -> f64 {
        let s = self.s();
        let w_init = match self.cfg.start_rule {
            StartRule::Rfc => (4.0 * s).min((2.0 * s).max(4380.0)),
            StartRule::Ns2 if self.cfg.packet_bytes <= 1095 => 4.0 * s,
            StartRule::Ns2 if self.cfg.packet_bytes < 2190 => 3.0 * s,
            StartRule::Ns2 => 2.0 * s,
        };
        w_init / r
    }

    /// Section 4.6: the next packet `s / X` after the last one, at the
    /// current `X` (or, with section 4.5's oscillation prevention, at
    /// `X_inst`).
    fn respace(&mut self) {
        if let Some(last) = self.last_sent {
            self.next_send = last + ns(self.s() / self.pacing_rate()).max(1);
        }
    }

    /// The rate the next packet is spaced at: [`Self::x_inst`], or in slow
    /// start under ns-2.35's rules (`slow_increase_`, from the third
    /// report on) `oldrate_`, one `delta_` higher each packet until it
    /// passes `X`.
    fn pacing_rate(&mut self) -> f64 {
        let ns2 =
            self.cfg.pacing_rule == PacingRule::Ns2 && self.cfg.increase_rule == IncreaseRule::Ns2;
        if ns2 && self.round > 2 && self.p == 0.0 && self.ss_old + 1e-7 < self.x {
            self.ss_old += self.ss_delta;
            if self.ss_old > 0.0 {
                return self.ss_old;
            }
        }
        self.x_inst()
    }

    /// The rate packets are spaced at: `X`, or section 4.5's `X_inst = X
    /// R_sqmean / sqrt(R_sample)`, faster while the last RTT sample is
    /// below the usual and slower while it is above.
    fn x_inst(&self) -> f64 {
        match self.r_sqmean {
            Some(sq) if self.cfg.oscillation_prevention && self.r_sample > 0.0 => {
                self.x * sq / self.r_sample.sqrt()
            }
            _ => self.x,
        }
    }

    fn has_data(&self) -> bool {
        self.bulk || self.queued > 0
    }

    /// Data-limited: an application-limited sender with nothing queued
    /// once a packet's time has come (ns-2.35's `datalimited_`, which its
    /// send timer sets when it ticks with nothing to send; under
    /// [`PacingRule::Ns2`] a packet that waited for the application leaves
    /// off the timer's ticks, as there).
    fn data_limited(&self, now: SimTime) -> bool {
        !self.bulk && self.queued == 0 && now >= self.next_send
    }

    /// Data-limited now, or a packet waited for the application less than
    /// `1.5 r` ago (ns-2.35's `datalimited_ || lastlimited_ > now - 1.5
    /// rtt_`).
    fn limited_recently(&self, now: SimTime, r: f64) -> bool {
        self.data_limited(now)
            || self
                .last_limited
                .is_some_and(|t| secs(now.saturating_sub(t)) < 1.5 * r)
    }

    /// The next packet, if one is waiting and its time has come.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TfrcData> {
        if !self.has_data() || now < self.next_send {
            return None;
        }
        let mut waited = false;
        if !self.bulk {
            self.queued -= 1;
            if now > self.next_send && self.seq > 0 {
                // The packet's time had come before the application handed
                // it over (ns-2.35's `advanceby` while `datalimited_`; its
                // first packet starts the sender instead, timing the next
                // from itself).
                self.last_limited = Some(now);
                self.all_idle = false;
                waited = true;
            } else if self.seq > 0 && self.cfg.increase_rule == IncreaseRule::Rfc {
                // It waited for its time: the rate held it back (kept for
                // section 4.3's data-limited intervals, which only RFC
                // 5348's increase reads, and which each report trims).
                self.rate_limited_sends.push_back(now);
            }
        }
        let data = TfrcData {
            seq: self.seq,
            sent_at: now,
            rtt: self.rtt().unwrap_or(0),
            bytes: self.cfg.packet_bytes,
            round: self.round,
            urgent: self.urgent,
            t_rto: match (self.cfg.rto_rule, self.r) {
                (RtoRule::Ns2, Some(_)) => ns(self.tick_rto.rto_s),
                _ => 0,
            },
        };
        if self.nofeedback_at == SimTime::MAX {
            // The first packet starts the no-feedback timer (ns-2.35's
            // `start`), and the age of `X_recv_set`'s infinity.
            self.nofeedback_at = now + self.nofeedback_interval();
            self.x_recv_set = vec![(now, f64::INFINITY)];
        }
        self.seq += 1;
        self.sent_since_timer = true;
        self.last_sent = Some(now);
        if waited && self.cfg.pacing_rule == PacingRule::Ns2 {
            // ns-2.35 sends such a packet at once, outside its send timer,
            // which keeps ticking every `s / X` from its last tick; the next
            // tick that finds nothing to send makes the sender data-limited.
            let spacing = ns(self.s() / self.x_inst()).max(1);
            let ticks = (now - self.next_send) / spacing + 1;
            self.next_send += ticks * spacing;
        } else {
            self.respace();
        }
        Some(data)
    }

    /// The next deadline: a packet's time (when one waits), or the
    /// no-feedback timer (from the first packet on).
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let send = self.has_data().then_some(self.next_send);
        let nofeedback = (self.nofeedback_at != SimTime::MAX).then_some(self.nofeedback_at);
        match (send, nofeedback) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A deadline passed. The no-feedback timer acts here; a packet's time
    /// only lets [`Self::poll_transmit`] give it.
    pub fn on_timeout(&mut self, now: SimTime) {
        if now < self.nofeedback_at {
            return;
        }
        self.round += 1;
        // Section 4.4. An idle sender (nothing sent since the timer was
        // set) keeps its rate.
        if self.cfg.feedback_rule == FeedbackRule::Ns2 {
            // ns-2.35 halves the rate and asks for a report at once; a
            // data-limited sender keeps the RFC 3390 initial rate.
            let limited = self.data_limited(now);
            match self.r {
                Some(r) if limited || self.all_idle => {
                    let init = self.initial_rate(r);
                    if self.x > 2.0 * init {
                        self.x /= 2.0;
                    } else if self.x > init {
                        self.x = init;
                    }
                }
                // Without an RTT ns-2.35's floor, `W_init / 0`, is
                // infinite: a data-limited sender keeps its rate.
                None if limited || self.all_idle => {}
                _ => self.x = (self.x / 2.0).max(self.s() / self.t_mbi_s()),
            }
            self.all_idle |= limited;
            self.urgent = true;
        } else {
            self.rfc_nofeedback(now);
        }
        self.sent_since_timer = false;
        match self.cfg.pacing_rule {
            PacingRule::Rfc => self.respace(),
            // ns-2.35's `reduce_rate_on_no_feedback` ends in `nextpkt`.
            PacingRule::Ns2 => self.next_send = now,
        }
        self.nofeedback_at = now + self.nofeedback_interval();
    }

    /// Section 4.4: the no-feedback timer expired ([`FeedbackRule::Rfc`]).
    /// "Idle" is idle ever since the timer was set; `X_recv` is the
    /// largest of `X_recv_set`, the sender's cached receive rate that
    /// `Update_Limits` halves at each expiry; the recover rate is the
    /// initial rate `W_init / R`. Without an RTT sample (no feedback yet)
    /// an idle sender keeps its rate, as there is no recover rate yet.
    fn rfc_nofeedback(&mut self, now: SimTime) {
        let floor = self.s() / self.t_mbi_s();
        let idle = !self.sent_since_timer;
        let Some(r) = self.r else {
            if !idle {
                self.x = (self.x / 2.0).max(floor);
            }
            return;
        };
        let x_recv = self.x_recv_max();
        let recover = self.initial_rate(r);
        let low = if self.p > 0.0 {
            x_recv < recover
        } else {
            self.x < 2.0 * recover
        };
        if idle && low {
            // Not halved: the rate is already down to what an idle sender
            // may restart at.
        } else if self.p == 0.0 {
            self.x = (self.x / 2.0).max(floor);
        } else {
            let x_calc = self.x_calc(r);
            // 2 X_recv limited the rate: halve X_recv; else X_calc did.
            let timer_limit = if x_calc > 2.0 * x_recv {
                x_recv
            } else {
                x_calc / 2.0
            }
            .max(floor);
            // `Update_Limits`: the set holds half the limit, so that the
            // rate of section 4.3, step 4, is at most the limit itself.
            self.x_recv_set = vec![(now, timer_limit / 2.0)];
            self.x = x_calc.min(timer_limit).max(floor);
        }
    }

    /// The largest `X_recv` in `X_recv_set` (infinity while its first entry
    /// stands).
    fn x_recv_max(&self) -> f64 {
        self.x_recv_set.iter().map(|&(_, x)| x).fold(0.0, f64::max)
    }

    /// Section 4.3, step 4's `recv_limit` for feedback `fb` received at
    /// `now` with RTT `r`, `p_up` when it reports a higher loss event rate
    /// than the last: from `X_recv_set`, which it updates, or, when the
    /// whole interval it covers was data-limited, sets to one value.
    fn rfc_recv_limit(&mut self, now: SimTime, fb: &TfrcFeedback, r: f64, p_up: bool) -> f64 {
        // The interval the feedback covers: the packets sent after the
        // last one the previous feedback covered, up to the one it echoes.
        // It was data-limited if the rate held none of them back.
        let from = self.covered_until.unwrap_or(0);
        while self.rate_limited_sends.front().is_some_and(|&t| t <= from) {
            self.rate_limited_sends.pop_front();
        }
        let data_limited =
            !self.bulk && self.rate_limited_sends.front().is_none_or(|&t| t > fb.echo);
        self.covered_until = Some(fb.echo.max(from));
        if data_limited {
            if p_up {
                for e in &mut self.x_recv_set {
                    e.1 /= 2.0;
                }
                self.x_recv *= 0.85;
                self.maximize_x_recv_set(now);
                self.x_recv_max()
            } else {
                self.maximize_x_recv_set(now);
                2.0 * self.x_recv_max()
            }
        } else {
            // Typical: the set keeps the last two round trips' values.
            let oldest = now.saturating_sub(ns(2.0 * r));
            self.x_recv_set.retain(|&(t, _)| t >= oldest);
            self.x_recv_set.push((now, self.x_recv));
            2.0 * self.x_recv_max()
        }
    }

    /// `Maximize X_recv_set()`: `X_recv` added, the initial infinity
    /// dropped, one entry left, the largest, dated now.
    fn maximize_x_recv_set(&mut self, now: SimTime) {
        let largest = self
            .x_recv_set
            .iter()
            .map(|&(_, x)| x)
            .filter(|x| x.is_finite())
            .fold(self.x_recv, f64::max);
        self.x_recv_set = vec![(now, largest)];
    }

    /// `X_calc`: the equation at `R = r` and the last `p`, with the
    /// [`RtoRule`]'s `t_RTO`.
    fn x_calc(&self, r: f64) -> f64 {
        let t_rto = match self.cfg.rto_rule {
            RtoRule::Rfc => 4.0 * r,
            RtoRule::Ns2 => self.tick_rto.rto_s,
        };
        throughput_with_rto_bps(self.s(), r, t_rto, self.p)
    }

    fn nofeedback_interval(&self) -> SimTime {
        let spacing = 2.0 * self.s() / self.x;
        let rtts = match self.cfg.feedback_rule {
            FeedbackRule::Rfc => 4.0,
            FeedbackRule::Ns2 => 2.0,
        };
        match (self.r, self.cfg.start_rule) {
            (Some(r), _) => ns((rtts * r).max(spacing)),
            (None, StartRule::Rfc) => self.cfg.initial_nofeedback.max(ns(spacing)),
            (None, StartRule::Ns2) => ns(spacing),
        }
    }

    /// A feedback packet arrived (section 4.3).
    pub fn on_feedback(&mut self, now: SimTime, fb: &TfrcFeedback) {
        let sample = secs(now.saturating_sub(fb.echo).saturating_sub(fb.delay)).max(1e-6);
        let first = self.r.is_none();
        self.round += 1;
        self.urgent = false;
        let q = self.cfg.rtt_filter;
        let r = match self.r {
            None => sample,
            Some(r) => q * r + (1.0 - q) * sample,
        };
        self.r = Some(r);
        self.r_sample = sample;
        if self.cfg.rto_rule == RtoRule::Ns2 {
            self.tick_rto.sample(sample);
        }
        self.r_sqmean = Some(match self.r_sqmean {
            None => sample.sqrt(),
            Some(sq) => q * sq + (1.0 - q) * sample.sqrt(),
        });
        self.x_recv = fb.x_recv_bps;
        self.all_idle = false;
        let was_slow_start = self.p == 0.0;
        let p_up = fb.p > self.p;
        self.p = fb.p;
        let (s, floor) = (self.s(), self.s() / self.t_mbi_s());
        // Section 4.3, step 4, from `X_recv_set`; ns-2.35's `2 X_recv`.
        let recv_limit = match self.cfg.increase_rule {
            IncreaseRule::Rfc => self.rfc_recv_limit(now, fb, r, p_up),
            IncreaseRule::Ns2 => 2.0 * self.x_recv,
        };
        if self.p > 0.0 {
            let x_calc = self.x_calc(r);
            self.x = match self.cfg.increase_rule {
                IncreaseRule::Rfc => x_calc.min(recv_limit),
                IncreaseRule::Ns2 if was_slow_start => {
                    self.ss_old = x_calc;
                    x_calc
                }
                IncreaseRule::Ns2 => {
                    if x_calc > self.x {
                        let rounds = (secs(now.saturating_sub(self.last_change)) / r).min(2.0);
                        let least = if self.limited_recently(now, r) {
                            self.initial_rate(r)
                        } else {
                            s / r
                        };
                        (self.x + s / r * rounds)
                            .min(x_calc)
                            .min(recv_limit.max(least))
                    } else {
                        x_calc.min(recv_limit.max(s / r))
                    }
                }
            }
            .max(floor);
            self.last_change = now;
        } else if self.cfg.increase_rule == IncreaseRule::Ns2 {
            self.ns2_slow_start(now, r);
        } else if first || secs(now.saturating_sub(self.tld)) >= r {
            self.x = (2.0 * self.x).min(recv_limit).max(self.initial_rate(r));
            self.tld = now;
        }
        match self.cfg.pacing_rule {
            PacingRule::Rfc => self.respace(),
            // ns-2.35: `nextpkt` at once in slow start; otherwise the packet
            // already timed keeps its time.
            PacingRule::Ns2 if self.p == 0.0 => self.next_send = now,
            PacingRule::Ns2 => {}
        }
        self.sent_since_timer = false;
        self.nofeedback_at = now + self.nofeedback_interval();
    }
}

impl TfrcSender {
    /// ns-2.35's `slowstart()` at a report without loss ([`IncreaseRule::Ns2`]).
    fn ns2_slow_start(&mut self, now: SimTime, r: f64) {
        let s = self.s();
        let init = self.initial_rate(r);
        // `ss_maxrate_`: twice the receive rate, from the second report on.
        let ss_max = if self.round > 1 {
            2.0 * self.x_recv
        } else {
            0.0
        };
        let old = self.x;
        // `delta_`: from the old rate to the new over the packets of a
        // round trip at the new rate.
        let step = |x: f64| (x - old) / (x * r / s);
        if self.round <= 2 {
            self.x = self.x.max(init);
            (self.ss_old, self.ss_delta) = (old, step(self.x));
            self.last_change = now;
        } else if ss_max > 0.0 {
            if self.limited_recently(now, r) && ss_max < init {
                self.x = self.x.max(init);
                (self.ss_old, self.ss_delta) = (old, step(self.x));
                self.last_change = now;
            } else if self.x < ss_max && secs(now.saturating_sub(self.last_change)) > r {
                self.x = (2.0 * self.x).min(ss_max).max(s / r);
                (self.ss_old, self.ss_delta) = (old, step(self.x));
                self.last_change = now;
            } else if self.x > ss_max {
                self.x = ss_max / 2.0;
                (self.ss_old, self.ss_delta) = (self.x, 0.0);
                self.last_change = now;
            }
        } else {
            self.x = s / r;
            (self.ss_old, self.ss_delta) = (old, 0.0);
            self.last_change = now;
        }
    }
}

/// The receiving side.
#[derive(Debug, Clone)]
pub struct TfrcReceiver {
    cfg: TfrcConfig,
    /// Every sequence number below this is received or lost.
    expected: u64,
    /// Packets at or above `expected` received so far: their send times.
    ahead: BTreeMap<u64, SimTime>,
    /// The last packet below `expected` that arrived: sequence, send time.
    behind: Option<(u64, SimTime)>,
    highest: Option<u64>,
    /// Closed loss intervals in packets, the most recent first (`I_1`, …).
    intervals: VecDeque<u64>,
    /// Section 5.5: each closed interval's discount factor `DF_i` (1 without
    /// history discounting).
    discounts: VecDeque<f64>,
    /// The current loss event: its first lost packet and that one's
    /// (interpolated) send time.
    event: Option<(u64, SimTime)>,
    /// The sender's round when the current loss event began
    /// ([`FeedbackRule::Ns2`]).
    event_round: u32,
    /// [`FeedbackRule::Ns2`]: the sequence number after which the open
    /// interval counts (`None`: from 0), ns-2.35's `last_sample - 1`.
    open_after: Option<u64>,
    /// [`FeedbackRule::Ns2`]: the highest sequence number at the last report
    /// that counted the intervals (all but the one sent at the first loss).
    reported_highest: Option<u64>,
    /// [`FeedbackRule::Ns2`]: the report due at the first loss event passes
    /// the synthetic `p` and counts nothing.
    first_loss_report: bool,
    /// The sender's round, from the latest new data packet.
    round: u32,
    /// Arrivals within the last `R`: when, and payload bytes
    /// ([`FeedbackRule::Ns2`]'s `X_recv`).
    recent: VecDeque<(SimTime, u32)>,
    /// The sender's RTT estimate, from the latest data packet.
    rtt: SimTime,
    /// The sender's `t_RTO`, from the latest data packet that had one
    /// ([`RtoRule::Ns2`]; 0: 4 R).
    t_rto: SimTime,
    /// The latest data packet: its send time and arrival.
    last: Option<(SimTime, SimTime)>,
    /// When the latest new packet arrived (ns-2.35's `last_arrival_`).
    last_new_arrival: SimTime,
    bytes_since_feedback: u64,
    last_feedback_at: SimTime,
    /// Send a feedback packet now (first packet, new loss event).
    feedback_due: bool,
    feedback_timer: Option<SimTime>,
    /// `p` as last reported.
    p_reported: f64,
    /// Packets delivered, losses detected and loss events begun
    /// (statistics).
    pub received: u64,
    pub lost: u64,
    pub events: u64,
}

/// Weights of the last 8 loss intervals (section 5.4).
const WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

impl TfrcReceiver {
    pub fn new(cfg: TfrcConfig) -> Self {
        Self {
            cfg,
            expected: 0,
            ahead: BTreeMap::new(),
            behind: None,
            highest: None,
            intervals: VecDeque::with_capacity(WEIGHTS.len() + 1),
            discounts: VecDeque::with_capacity(WEIGHTS.len() + 1),
            event: None,
            event_round: 0,
            open_after: None,
            reported_highest: None,
            first_loss_report: false,
            round: 0,
            recent: VecDeque::new(),
            rtt: 0,
            t_rto: 0,
            last: None,
            last_new_arrival: 0,
            bytes_since_feedback: 0,
            last_feedback_at: 0,
            feedback_due: false,
            feedback_timer: None,
            p_reported: 0.0,
            received: 0,
            lost: 0,
            events: 0,
        }
    }

    /// The loss event rate `p` (section 5.4, with section 5.5's history
    /// discounting when it is on): 0 before any loss.
    pub fn loss_event_rate(&self) -> f64 {
        let Some((start, _)) = self.event else {
            return 0.0;
        };
        let n = self.intervals.len().min(WEIGHTS.len());
        if n == 0 {
            return 0.0;
        }
        let open = self.open_interval(start) as f64;
        let closed = |i: usize| self.intervals[i] as f64;
        if !self.cfg.history_discounting {
            let w_tot: f64 = WEIGHTS[..n].iter().sum();
            // I_0 … I_{n-1} against I_1 … I_n, both with weights w_0 … w_{n-1}.
            let tot0: f64 =
                open * WEIGHTS[0] + (1..n).map(|i| closed(i - 1) * WEIGHTS[i]).sum::<f64>();
            let tot1: f64 = (0..n).map(|i| closed(i) * WEIGHTS[i]).sum();
            return Self::p_of_mean(tot0.max(tot1) / w_tot);
        }
        // Section 5.5: I_1 … I_n with weights w_0 … w_{n-1}, each
        // discounted by its DF_i.
        let df_i = |i: usize| self.discounts.get(i).copied().unwrap_or(1.0);
        let (tot1, w1) = self.discounted_closed();
        // An open interval over twice that mean discounts the older ones
        // (by at most half) while it lasts.
        let df = Self::general_discount(open, tot1 / w1);
        // I_0 … I_{n-1} with weights w_0 … w_{n-1}.
        let w0 = WEIGHTS[0] + (1..n).map(|i| WEIGHTS[i] * df_i(i - 1) * df).sum::<f64>();
        let tot0 = open * WEIGHTS[0]
            + (1..n)
                .map(|i| closed(i - 1) * WEIGHTS[i] * df_i(i - 1) * df)
                .sum::<f64>();
        Self::p_of_mean((tot0 / w0).max(tot1 / w1))
    }

    /// The open loss interval, the current loss event beginning at `start`:
    /// its first packet to the highest received (RFC 5348), or ns-2.35's
    /// count ([`FeedbackRule::Ns2`]).
    fn open_interval(&self, start: u64) -> u64 {
        let highest = self.highest.unwrap_or(start);
        match self.cfg.feedback_rule {
            FeedbackRule::Rfc => (highest + 1).saturating_sub(start),
            FeedbackRule::Ns2 => match self.open_after {
                Some(after) => highest.saturating_sub(after),
                None => highest + 1,
            },
        }
    }

    /// The interval a loss event beginning at `seq` closes, the current one
    /// beginning at `start`: the sequence numbers from `start` up to `seq`,
    /// or ns-2.35's count from after `open_after` to `seq`.
    fn closed_interval(&self, start: u64, seq: u64) -> u64 {
        match self.cfg.feedback_rule {
            FeedbackRule::Rfc => seq - start,
            FeedbackRule::Ns2 => match self.open_after {
                Some(after) => seq.saturating_sub(after),
                None => seq + 1,
            },
        }
    }

    /// Section 5.5: the closed intervals I_1 … I_n weighted by w_0 …
    /// w_{n-1} and each one's DF_i, and the sum of those weights.
    fn discounted_closed(&self) -> (f64, f64) {
        let n = self.intervals.len().min(WEIGHTS.len());
        (0..n).fold((0.0, 0.0), |(t, w), i| {
            let wi = WEIGHTS[i] * self.discounts.get(i).copied().unwrap_or(1.0);
            (t + self.intervals[i] as f64 * wi, w + wi)
        })
    }

    /// Section 5.5's general discount factor: 1 while the open interval is
    /// at most twice the mean `mean` of the closed ones, otherwise `2 mean /
    /// open`, at least 0.5.
    fn general_discount(open: f64, mean: f64) -> f64 {
        if open > 2.0 * mean && open > 0.0 {
            (2.0 * mean / open).max(0.5)
        } else {
            1.0
        }
    }

    fn p_of_mean(mean: f64) -> f64 {
        if mean <= 0.0 {
            0.0
        } else {
            (1.0 / mean).min(1.0)
        }
    }

    /// The closed loss intervals, the most recent first.
    pub fn intervals(&self) -> impl Iterator<Item = u64> + '_ {
        self.intervals.iter().copied()
    }

    /// A data packet arrived.
    pub fn on_data(&mut self, now: SimTime, d: &TfrcData) {
        self.received += 1;
        self.bytes_since_feedback += d.bytes as u64;
        if d.rtt > 0 {
            self.rtt = d.rtt;
        }
        if d.t_rto > 0 {
            self.t_rto = d.t_rto;
        }
        let first_ever = self.last.is_none();
        self.last = Some((d.sent_at, now));
        let new = self.highest.is_none_or(|h| d.seq > h);
        let unseen = d.seq >= self.expected && !self.ahead.contains_key(&d.seq);
        self.highest = Some(self.highest.map_or(d.seq, |h| h.max(d.seq)));
        if d.seq >= self.expected {
            self.ahead.insert(d.seq, d.sent_at);
        }
        if self.cfg.feedback_rule == FeedbackRule::Ns2 {
            if new {
                self.round = d.round;
            }
            if new || unseen {
                self.last_new_arrival = now;
            }
            self.recent.push_back((now, d.bytes));
            while let Some(&(at, _)) = self.recent.front() {
                if at + self.rtt > now {
                    break;
                }
                self.recent.pop_front();
            }
            let events_before = self.events;
            self.detect_losses(now);
            let since_report = now.saturating_sub(self.last_feedback_at);
            if (d.urgent && (new || unseen))
                || self.events > events_before
                || (new && self.rtt > 0 && since_report >= self.rtt)
            {
                self.feedback_due = true;
            }
            return;
        }
        let p_before = self.loss_event_rate();
        self.detect_losses(now);
        if first_ever || self.rtt == 0 {
            // Section 6.3: the first packet, and every one while the
            // sender has no RTT yet, is answered at once.
            self.feedback_due = true;
        } else if self.loss_event_rate() > p_before {
            // Section 6.1: a new loss event that raises p.
            self.feedback_due = true;
        } else if self.feedback_timer.is_none() {
            self.feedback_timer = Some(now + self.rtt);
        }
    }

    fn detect_losses(&mut self, now: SimTime) {
        // ns-2.35's `numPkts_` is 1: the first later packet tells.
        let later = match self.cfg.feedback_rule {
            FeedbackRule::Rfc => self.cfg.ndupack.max(1) as usize,
            FeedbackRule::Ns2 => 1,
        };
        loop {
            match self.ahead.first_key_value() {
                Some((&seq, &sent)) if seq == self.expected => {
                    self.ahead.remove(&seq);
                    self.behind = Some((seq, sent));
                    self.expected += 1;
                }
                Some((&next, &next_sent)) if self.ahead.len() >= later => {
                    let lost = self.expected;
                    // Its send time, between its received neighbours'.
                    let sent = match self.behind {
                        Some((b, b_sent)) if next > b => {
                            let f = (lost - b) as f64 / (next - b) as f64;
                            b_sent + ((next_sent.saturating_sub(b_sent)) as f64 * f) as SimTime
                        }
                        _ => next_sent,
                    };
                    self.on_loss(now, lost, sent);
                    self.expected += 1;
                }
                _ => break,
            }
        }
    }

    fn on_loss(&mut self, _now: SimTime, seq: u64, sent: SimTime) {
        self.lost += 1;
        // ns-2.35 (`PreciseLoss_`): a new loss event also needs a new round.
        let same_round =
            self.cfg.feedback_rule == FeedbackRule::Ns2 && self.round <= self.event_round;
        match self.event {
            Some((_, start)) if sent <= start + self.rtt || same_round => {} // the same loss event
            Some((start_seq, _)) => {
                let closed = self.closed_interval(start_seq, seq);
                if self.cfg.history_discounting {
                    // Section 5.5: the discount in force when the interval
                    // closes stays with the older ones.
                    let (t, w) = self.discounted_closed();
                    let df = Self::general_discount(closed as f64, t / w);
                    self.discounts.iter_mut().for_each(|d| *d *= df);
                }
                self.push_interval(closed);
                self.event = Some((seq, sent));
                self.event_round = self.round;
                self.open_after = Some(seq);
                self.events += 1;
            }
            None => {
                // Section 6.3.1: the first interval is the one the receive
                // rate would give through the equation.
                let first = self.synthetic_first_interval(seq);
                self.push_interval(first);
                self.event = Some((seq, sent));
                self.event_round = self.round;
                // ns-2.35 counts on from its last report's highest packet.
                self.open_after = self.reported_highest;
                self.first_loss_report = true;
                self.events += 1;
            }
        }
    }

    fn push_interval(&mut self, packets: u64) {
        self.intervals.push_front(packets);
        self.intervals.truncate(WEIGHTS.len() + 1);
        self.discounts.push_front(1.0);
        self.discounts.truncate(WEIGHTS.len() + 1);
    }

    fn synthetic_first_interval(&self, seq: u64) -> u64 {
        let r = secs(self.rtt);
        let elapsed = secs(
            self.last
                .map_or(0, |(_, at)| at)
                .saturating_sub(self.last_feedback_at),
        );
        let x_recv = if elapsed > 0.0 {
            self.bytes_since_feedback as f64 / elapsed
        } else {
            0.0
        };
        if r <= 0.0 || x_recv <= 0.0 {
            // No rate to invert: the packets before this loss.
            return seq.max(1);
        }
        let s = self.cfg.packet_bytes as f64;
        let p = if self.t_rto > 0 {
            loss_rate_with_rto_for(s, r, secs(self.t_rto), x_recv)
        } else {
            loss_rate_for(s, r, x_recv)
        };
        (1.0 / p).round().max(1.0) as u64
    }

    /// A feedback packet, when one is due now.
    pub fn poll_feedback(&mut self, now: SimTime) -> Option<TfrcFeedback> {
        if !self.feedback_due {
            return None;
        }
        self.feedback_due = false;
        let (sent, arrived) = self.last?;
        let since = now.saturating_sub(self.last_feedback_at);
        let elapsed = secs(since).max(1e-6);
        let p = self.loss_event_rate();
        let x_recv_bps = match self.cfg.feedback_rule {
            FeedbackRule::Rfc => self.bytes_since_feedback as f64 / elapsed,
            // ns-2.35: since the last report when that is at least R ago,
            // else what arrived in the last R; one packet a second before
            // the receiver knows R.
            // Nothing received in that time counts as one packet a second
            // (`est_thput`'s 1).
            FeedbackRule::Ns2 if self.rtt == 0 => self.cfg.packet_bytes as f64,
            FeedbackRule::Ns2 if since >= self.rtt && self.bytes_since_feedback == 0 => {
                self.cfg.packet_bytes as f64
            }
            FeedbackRule::Ns2 if since >= self.rtt => self.bytes_since_feedback as f64 / elapsed,
            FeedbackRule::Ns2 => match self.recent.iter().map(|&(_, b)| b as u64).sum::<u64>() {
                0 => self.cfg.packet_bytes as f64,
                bytes => bytes as f64 / secs(self.rtt),
            },
        };
        let fb = TfrcFeedback {
            echo: sent,
            delay: now.saturating_sub(arrived),
            x_recv_bps,
            p,
        };
        self.p_reported = p;
        if std::mem::take(&mut self.first_loss_report) {
            // ns-2.35's report at the first loss counts no interval.
        } else {
            self.reported_highest = self.highest;
        }
        self.bytes_since_feedback = 0;
        self.last_feedback_at = now;
        self.feedback_timer = (self.rtt > 0).then(|| now + self.report_interval());
        Some(fb)
    }

    /// How long after a report the timer asks for the next: `R`, or
    /// ns-2.35's `1.5 R`.
    fn report_interval(&self) -> SimTime {
        match self.cfg.feedback_rule {
            FeedbackRule::Rfc => self.rtt,
            FeedbackRule::Ns2 => self.rtt + self.rtt / 2,
        }
    }

    /// The feedback timer's deadline.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.feedback_timer
    }

    /// The feedback timer passed: feedback is due if data arrived since the
    /// last one (section 6.2); otherwise the timer waits for data. ns-2.35's
    /// sink asks `last_arrival_ >= last_report_sent`, so a report sent at
    /// the instant a packet arrived is followed by one more when the timer
    /// passes, whether data came in between or not.
    pub fn on_timeout(&mut self, now: SimTime) {
        match self.feedback_timer {
            Some(at) if now >= at => {
                self.feedback_timer = None;
                let arrived = match self.cfg.feedback_rule {
                    FeedbackRule::Rfc => self.bytes_since_feedback > 0,
                    FeedbackRule::Ns2 => {
                        self.last.is_some() && self.last_new_arrival >= self.last_feedback_at
                    }
                };
                if arrived {
                    self.feedback_due = true;
                } else if self.cfg.feedback_rule == FeedbackRule::Ns2 && self.rtt > 0 {
                    // ns-2.35's timer runs on without data.
                    self.feedback_timer = Some(now + self.report_interval());
                }
            }
            _ => {}
        }
    }
}
