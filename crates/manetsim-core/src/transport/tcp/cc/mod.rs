//! Congestion control: one trait with no-op default hooks named after
//! events, shared state in [`CcState`] (owned by the sender), one file per
//! variant, static dispatch through [`AnyCc`].
//!
//! Adding a variant: a new file with a type implementing
//! [`CongestionControl`], a variant in [`CcKind`] and one line in
//! [`AnyCc::new`] plus one in the `dispatch!` list.
//!
//! The defaults of the trait are RFC 5681: slow start (+1 segment per new
//! ACK, as ns-2) below ssthresh, congestion avoidance (+1/cwnd per ACK)
//! above, ssthresh = max(FlightSize/2, 2) on a loss, cwnd = 1 after an RTO.
//! With [`SsthreshRule::Ns2`] a loss halves the window as ns-2.35's
//! `TcpAgent::slowdown()` does instead (see [`CcState::loss_ssthresh`]).

pub mod cubic;
pub mod new_veno;
pub mod newreno;
pub mod reno;
pub mod sack;
pub mod tahoe;
pub mod tcp_ap;
pub mod vegas;
pub mod veno;
pub mod westwood;

use serde::{Deserialize, Serialize};

use crate::engine::SimTime;
pub use vegas::VegasRule;

/// What a loss halves (`[flows.tcp] ssthresh_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 segments), and
    /// fast recovery ends with cwnd = ssthresh.
    #[default]
    FlightSize,
    /// ns-2.35's `slowdown()` (its default `precision_reduce_`): half of
    /// min(cwnd_, window_), where cwnd_ leaves out fast recovery's
    /// inflation; ssthresh is that half's integer part, at least 2, and
    /// fast recovery ends with cwnd at the half itself (7.8 segments give
    /// ssthresh 3 and cwnd 3.9). After a timeout slow start thus stops at
    /// the integer, up to one segment sooner than with `FlightSize`.
    Ns2,
}

/// Which variant, with its parameters. Built from the scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CcKind {
    Tahoe,
    Reno,
    NewReno,
    Sack,
    /// Brakmo & Peterson 1995. Defaults α = 1, β = 3, γ = 1 (ns-2
    /// `v_alpha_`, `v_beta_`, `v_gamma_`); karlssonkassler use α = β = 2.
    Vegas {
        alpha: f64,
        beta: f64,
        gamma: f64,
        rule: VegasRule,
    },
    /// Westwood+ (Mascolo et al.).
    Westwood,
    /// Veno (Fu & Liew 2003), backlog threshold β (3).
    Veno {
        beta: f64,
    },
    /// TCP-New Veno (seed 001, Fig. 9–10).
    NewVeno,
    /// TCP-AP (ElRakabawy, Klemm & Lindemann 2005).
    TcpAp {
        /// RTT history for the coefficient of variation (N = 50).
        history: u32,
        /// EWMA weight of the old 4-hop delay estimate (α = 0.7).
        alpha: f64,
    },
    /// CUBIC (RFC 9438).
    Cubic,
}

impl CcKind {
    pub const VEGAS: CcKind = CcKind::Vegas {
        alpha: 1.0,
        beta: 3.0,
        gamma: 1.0,
        rule: VegasRule::Paper,
    };
    pub const VENO: CcKind = CcKind::Veno { beta: 3.0 };
    pub const TCP_AP: CcKind = CcKind::TcpAp {
        history: 50,
        alpha: 0.7,
    };

    /// The name used in scenarios and results.
    pub fn name(&self) -> &'static str {
        match self {
            CcKind::Tahoe => "tahoe",
            CcKind::Reno => "reno",
            CcKind::NewReno => "newreno",
            CcKind::Sack => "sack",
            CcKind::Vegas { .. } => "vegas",
            CcKind::Westwood => "westwood",
            CcKind::Veno { .. } => "veno",
            CcKind::NewVeno => "newveno",
            CcKind::TcpAp { .. } => "tcp-ap",
            CcKind::Cubic => "cubic",
        }
    }

    /// Every variant with default parameters.
    pub fn all() -> [CcKind; 10] {
        [
            CcKind::Tahoe,
            CcKind::Reno,
            CcKind::NewReno,
            CcKind::Sack,
            CcKind::VEGAS,
            CcKind::Westwood,
            CcKind::VENO,
            CcKind::NewVeno,
            CcKind::TCP_AP,
            CcKind::Cubic,
        ]
    }
}

/// The loss-recovery procedure the sender runs (see `sender.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from cwnd = 1 (no fast recovery).
    Tahoe,
    /// Fast recovery left on the first new ACK (RFC 5681 section 3.2).
    Reno,
    /// Fast recovery left when all data outstanding at its start is acked;
    /// partial ACKs retransmit (RFC 6582).
    NewReno,
    /// SACK scoreboard and pipe (RFC 6675).
    Sack,
}

/// State shared by the sender and the variant (ns-3's "tcb").
#[derive(Debug, Clone)]
pub struct CcState {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
    /// Cap on cwnd (ns-2 `window_`), segments.
    pub max_cwnd: f64,
    pub mss: u32,
    /// Data outstanding (snd_max − snd_una), segments, at the event.
    pub flight: f64,
    /// cwnd without fast recovery's inflation, at the event (what ns-2
    /// keeps in `cwnd_`, apart from its `dupwnd_`).
    pub uninflated_cwnd: f64,
    /// What a loss halves.
    pub ssthresh_rule: SsthreshRule,
    /// Smoothed RTT of the RTO estimator.
    pub srtt: Option<SimTime>,
    /// Smallest RTT sample seen (BaseRTT / RTTmin).
    pub min_rtt: Option<SimTime>,
    /// Most recent Karn-valid RTT sample.
    pub last_rtt: Option<SimTime>,
    /// Hop count of the path, if the world told us (TCP-AP).
    pub path_hops: Option<u32>,
}

impl CcState {
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2 segments).
    pub fn half_flight(&self) -> f64 {
        (self.flight / 2.0).max(2.0)
    }

    /// ns-2.35's halved window: min(cwnd_, window_) / 2, cwnd_ without
    /// fast recovery's inflation.
    fn ns2_half_window(&self) -> f64 {
        self.uninflated_cwnd.min(self.max_cwnd) / 2.0
    }

    /// ssthresh after a loss, by [`Self::ssthresh_rule`]: RFC 5681's
    /// [`Self::half_flight`], or ns-2.35's integer part of the halved
    /// window, at least 2.
    pub fn loss_ssthresh(&self) -> f64 {
        match self.ssthresh_rule {
            SsthreshRule::FlightSize => self.half_flight(),
            SsthreshRule::Ns2 => self.ns2_half_window().floor().max(2.0),
        }
    }

    /// cwnd once a fast retransmit's recovery is over, by
    /// [`Self::ssthresh_rule`]: ssthresh, or ns-2.35's halved window
    /// itself (at least one segment).
    pub fn loss_cwnd(&self) -> f64 {
        match self.ssthresh_rule {
            SsthreshRule::FlightSize => self.loss_ssthresh(),
            SsthreshRule::Ns2 => self.ns2_half_window().max(1.0),
        }
    }

    /// Standard increase: slow start below ssthresh, else 1/cwnd per ACK
    /// (RFC 5681 sections 3.1; ns-2's per-ACK form).
    pub fn reno_increase(&mut self) {
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        self.clamp();
    }

    /// Keep cwnd within [1, max_cwnd].
    pub fn clamp(&mut self) {
        self.cwnd = self.cwnd.clamp(1.0, self.max_cwnd.max(1.0));
    }

    /// Whether cwnd is at or above ssthresh (congestion avoidance).
    pub fn in_ca(&self) -> bool {
        self.cwnd >= self.ssthresh
    }
}

/// A new cumulative ACK outside loss recovery.
#[derive(Debug, Clone, Copy)]
pub struct AckEvent {
    pub now: SimTime,
    /// Bytes newly acknowledged.
    pub acked_bytes: u64,
    /// The cumulative ACK.
    pub ack: u64,
    /// Karn-valid RTT sample (last segment this ACK covers, sent once).
    pub rtt: Option<SimTime>,
    /// When that segment was sent (for New Veno's sending interval).
    pub sent_at: Option<SimTime>,
    /// snd_max when the ACK arrived (marks "one RTT later").
    pub snd_max: u64,
    /// snd_nxt when the ACK arrived, before it lets anything leave (below
    /// snd_max while a timeout's go-back-N resends; ns-2's `t_seqno_`).
    pub snd_nxt: u64,
    /// The application held the sender back: when the ACK arrived,
    /// everything written had been sent and the window had room for
    /// another segment.
    pub app_limited: bool,
}

/// The congestion-control hooks. Every hook has an RFC 5681 default.
pub trait CongestionControl {
    /// Which loss-recovery procedure the sender runs.
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    /// A new ACK outside recovery: grow the window.
    fn on_ack(&mut self, st: &mut CcState, _ev: &AckEvent) {
        st.reno_increase();
    }

    /// A Karn-valid RTT sample arrived (also during recovery).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, _rtt: SimTime) {}

    /// A duplicate ACK arrived.
    fn on_dup_ack(&mut self, _st: &mut CcState, _now: SimTime) {}

    /// Fast retransmit: set ssthresh and the cwnd to use after recovery
    /// (Tahoe then sets cwnd = 1 itself).
    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        st.cwnd = st.loss_cwnd();
    }

    /// A partial ACK during NewReno recovery.
    fn on_partial_ack(&mut self, _st: &mut CcState, _ev: &AckEvent) {}

    /// Recovery is over (cwnd already set to the post-recovery value).
    fn on_exit_recovery(&mut self, _st: &mut CcState, _now: SimTime) {}

    /// The retransmission timer fired.
    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = st.loss_ssthresh();
        st.cwnd = 1.0;
    }

    /// A segment left (`retx` for a retransmission).
    fn on_send(&mut self, _st: &mut CcState, _now: SimTime, _seq: u64, _retx: bool) {}

    /// Minimum gap before the next data segment (pacing), if any.
    fn pacing_interval(&self, _st: &CcState) -> Option<SimTime> {
        None
    }
}

/// Static dispatch over the variants.
#[derive(Debug, Clone)]
pub enum AnyCc {
    Tahoe(tahoe::Tahoe),
    Reno(reno::Reno),
    NewReno(newreno::NewReno),
    Sack(sack::Sack),
    Vegas(vegas::Vegas),
    Westwood(westwood::Westwood),
    Veno(veno::Veno),
    NewVeno(new_veno::NewVeno),
    TcpAp(tcp_ap::TcpAp),
    Cubic(cubic::Cubic),
}

/// `$body` with `$c` bound to the algorithm inside any [`AnyCc`] variant
/// (shared or mutable, as `$value` is).
macro_rules! each_variant {
    ($value:expr, $c:ident => $body:expr) => {
        match $value {
            AnyCc::Tahoe($c) => $body,
            AnyCc::Reno($c) => $body,
            AnyCc::NewReno($c) => $body,
            AnyCc::Sack($c) => $body,
            AnyCc::Vegas($c) => $body,
            AnyCc::Westwood($c) => $body,
            AnyCc::Veno($c) => $body,
            AnyCc::NewVeno($c) => $body,
            AnyCc::TcpAp($c) => $body,
            AnyCc::Cubic($c) => $body,
        }
    };
}

impl AnyCc {
    pub fn new(kind: CcKind) -> Self {
        match kind {
            CcKind::Tahoe => AnyCc::Tahoe(tahoe::Tahoe),
            CcKind::Reno => AnyCc::Reno(reno::Reno),
            CcKind::NewReno => AnyCc::NewReno(newreno::NewReno),
            CcKind::Sack => AnyCc::Sack(sack::Sack),
            CcKind::Vegas {
                alpha,
                beta,
                gamma,
                rule,
            } => AnyCc::Vegas(vegas::Vegas::with_rule(alpha, beta, gamma, rule)),
            CcKind::Westwood => AnyCc::Westwood(westwood::Westwood::default()),
            CcKind::Veno { beta } => AnyCc::Veno(veno::Veno::new(beta)),
            CcKind::NewVeno => AnyCc::NewVeno(new_veno::NewVeno::default()),
            CcKind::TcpAp { history, alpha } => AnyCc::TcpAp(tcp_ap::TcpAp::new(history, alpha)),
            CcKind::Cubic => AnyCc::Cubic(cubic::Cubic::default()),
        }
    }

    /// After a spurious timeout (F-RTO): what the timeout did to the
    /// variant's own state comes back from `prior`, a copy taken before
    /// it. Only CUBIC's timeout changes such state (W_max and its
    /// congestion-avoidance stage); the others' cut is cwnd and ssthresh,
    /// which the sender restores.
    pub fn undo_rto(&mut self, prior: &AnyCc) {
        if let (AnyCc::Cubic(c), AnyCc::Cubic(p)) = (self, prior) {
            c.undo_rto(p);
        }
    }

    fn inner(&self) -> &dyn CongestionControl {
        each_variant!(self, c => c)
    }

    fn inner_mut(&mut self) -> &mut dyn CongestionControl {
        each_variant!(self, c => c)
    }
}

impl CongestionControl for AnyCc {
    fn recovery(&self) -> Recovery {
        self.inner().recovery()
    }
    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.inner_mut().on_ack(st, ev)
    }
    fn on_rtt_sample(&mut self, st: &mut CcState, now: SimTime, rtt: SimTime) {
        self.inner_mut().on_rtt_sample(st, now, rtt)
    }
    fn on_dup_ack(&mut self, st: &mut CcState, now: SimTime) {
        self.inner_mut().on_dup_ack(st, now)
    }
    fn on_loss(&mut self, st: &mut CcState, now: SimTime) {
        self.inner_mut().on_loss(st, now)
    }
    fn on_partial_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        self.inner_mut().on_partial_ack(st, ev)
    }
    fn on_exit_recovery(&mut self, st: &mut CcState, now: SimTime) {
        self.inner_mut().on_exit_recovery(st, now)
    }
    fn on_rto(&mut self, st: &mut CcState, now: SimTime) {
        self.inner_mut().on_rto(st, now)
    }
    fn on_send(&mut self, st: &mut CcState, now: SimTime, seq: u64, retx: bool) {
        self.inner_mut().on_send(st, now, seq, retx)
    }
    fn pacing_interval(&self, st: &CcState) -> Option<SimTime> {
        self.inner().pacing_interval(st)
    }
}

/// A state for unit tests: cwnd 10, ssthresh 5, cap 20, MSS 1000.
#[cfg(test)]
pub(crate) fn test_state() -> CcState {
    CcState {
        cwnd: 10.0,
        ssthresh: 5.0,
        max_cwnd: 20.0,
        mss: 1000,
        flight: 10.0,
        uninflated_cwnd: 10.0,
        ssthresh_rule: SsthreshRule::FlightSize,
        srtt: None,
        min_rtt: None,
        last_rtt: None,
        path_hops: None,
    }
}

/// An ACK event for unit tests.
#[cfg(test)]
pub(crate) fn test_ack(now: SimTime, ack: u64, rtt: Option<SimTime>) -> AckEvent {
    AckEvent {
        now,
        acked_bytes: 1000,
        ack,
        rtt,
        sent_at: rtt.map(|r| now.saturating_sub(r)),
        snd_max: ack + 10_000,
        snd_nxt: ack + 10_000,
        app_limited: false,
    }
}
