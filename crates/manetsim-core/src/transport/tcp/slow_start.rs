//! How slow start ends (`[flows.tcp] slow_start`): at the first loss, as
//! RFC 5681 has it, or earlier, when the round-trip time says the path's
//! queue has started to fill.
//!
//! - [`SlowStart::HyStart`]: hybrid slow start (Ha and Rhee, "Taming the
//!   elephants", 2008; Computer Networks 2011), with the constants of
//!   Linux's CUBIC, where it is on by default. Once cwnd reaches 16
//!   segments, on each ACK that gives an RTT sample:
//!   - a round starts when an ACK covers the highest sequence sent when
//!     the last round started;
//!   - *ACK train*: ACKs that come within 2 ms of the last such ACK extend
//!     the round's train; once the train is longer than half the smallest
//!     RTT, slow start ends;
//!   - *delay increase*: once the round has given 8 samples, slow start
//!     ends if the smallest of them exceeds the smallest RTT by more than
//!     an eighth of it, clamped to [4 ms, 16 ms];
//!   - ending slow start sets ssthresh to cwnd. The smallest RTT and the
//!     "found" mark are cleared by a timeout, as Linux's loss state does.
//! - [`SlowStart::HyStartPlusPlus`]: RFC 9406, for the first slow start of
//!   a connection only (its section 4.3's SHOULD; after a loss or a
//!   timeout, slow start is RFC 5681's):
//!   - each round keeps the smallest RTT sample of its ACKs; once a round
//!     has 8 samples and the last round has one, a smallest RTT that rose
//!     by RttThresh = clamp(last round's / 8, 4 ms, 16 ms) or more enters
//!     conservative slow start (CSS), remembering that minimum as its
//!     baseline;
//!   - in CSS the window grows a quarter as fast; a round whose minimum
//!     (8 samples in) falls back below the baseline resumes slow start;
//!     after 5 rounds in CSS, ssthresh = cwnd and congestion avoidance
//!     follows;
//!   - L, the cap on the growth per ACK, is infinite: the sender does not
//!     pace.
//!
//! Both act after the variant has grown the window for the ACK (its slow
//! start is RFC 5681's one segment per ACK, which every variant but Vegas
//! keeps), so one implementation serves them all.

use serde::{Deserialize, Serialize};

use super::cc::{AckEvent, CcState};
use crate::engine::{SimTime, NS_PER_MS};

/// `[flows.tcp] slow_start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SlowStart {
    /// RFC 5681: slow start until a loss or ssthresh.
    #[default]
    #[serde(rename = "standard")]
    Standard,
    /// Hybrid slow start, as Linux's CUBIC.
    #[serde(rename = "hystart")]
    HyStart,
    /// RFC 9406.
    #[serde(rename = "hystart++")]
    HyStartPlusPlus,
}

impl SlowStart {
    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            SlowStart::Standard => "standard",
            SlowStart::HyStart => "hystart",
            SlowStart::HyStartPlusPlus => "hystart++",
        }
    }
}

/// HyStart's lower bound of cwnd, segments (Linux `hystart_low_window`).
pub const HYSTART_LOW_WINDOW: f64 = 16.0;
/// The largest gap between two ACKs of one train (`hystart_ack_delta_us`).
pub const HYSTART_ACK_DELTA: SimTime = 2 * NS_PER_MS;
/// Samples a round takes before its delay is judged (both algorithms).
pub const MIN_SAMPLES: u32 = 8;
/// The bounds of the delay threshold (both algorithms).
pub const DELAY_THRESH_MIN: SimTime = 4 * NS_PER_MS;
pub const DELAY_THRESH_MAX: SimTime = 16 * NS_PER_MS;
/// RFC 9406's CSS_GROWTH_DIVISOR and CSS_ROUNDS.
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;

/// An eighth of `rtt`, clamped to [4 ms, 16 ms].
fn delay_thresh(rtt: SimTime) -> SimTime {
    (rtt / 8).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX)
}

/// The slow-start state of one sender.
#[derive(Debug, Clone)]
pub enum SlowStartState {
    Standard,
    HyStart(HyStart),
    HyStartPlusPlus(HyStartPp),
}

impl SlowStartState {
    pub fn new(kind: SlowStart) -> Self {
        match kind {
            SlowStart::Standard => SlowStartState::Standard,
            SlowStart::HyStart => SlowStartState::HyStart(HyStart::default()),
            SlowStart::HyStartPlusPlus => SlowStartState::HyStartPlusPlus(HyStartPp::default()),
        }
    }

    /// A Karn-valid RTT sample arrived (also in recovery).
    pub fn on_rtt_sample(&mut self, rtt: SimTime) {
        if let SlowStartState::HyStart(h) = self {
            h.delay_min = Some(h.delay_min.map_or(rtt, |d| d.min(rtt)));
        }
    }

    /// A new ACK outside recovery that found the window in slow start
    /// (`cwnd_before` < ssthresh); the variant has already grown cwnd.
    pub fn after_slow_start_ack(&mut self, st: &mut CcState, ev: &AckEvent, cwnd_before: f64) {
        match self {
            SlowStartState::Standard => {}
            SlowStartState::HyStart(h) => h.on_ack(st, ev, cwnd_before),
            SlowStartState::HyStartPlusPlus(h) => h.on_ack(st, ev, cwnd_before),
        }
    }

    /// A fast retransmit cut the window.
    pub fn on_loss(&mut self) {
        if let SlowStartState::HyStartPlusPlus(h) = self {
            h.phase = PpPhase::Done;
        }
    }

    /// The retransmission timer fired.
    pub fn on_rto(&mut self) {
        match self {
            SlowStartState::Standard => {}
            SlowStartState::HyStart(h) => *h = HyStart::default(),
            SlowStartState::HyStartPlusPlus(h) => h.phase = PpPhase::Done,
        }
    }

    /// Whether slow start has ended early, by the RTT (for tests and
    /// traces): HyStart found its exit, or HyStart++ is in or past CSS
    /// without a loss.
    pub fn exited_early(&self) -> bool {
        match self {
            SlowStartState::Standard => false,
            SlowStartState::HyStart(h) => h.found,
            SlowStartState::HyStartPlusPlus(h) => {
                matches!(h.phase, PpPhase::Css { .. } | PpPhase::Exited)
            }
        }
    }
}

/// Hybrid slow start's state.
#[derive(Debug, Clone, Default)]
pub struct HyStart {
    /// The smallest RTT sample since the start or the last timeout.
    delay_min: Option<SimTime>,
    found: bool,
    round: Option<HyRound>,
}

#[derive(Debug, Clone, Copy)]
struct HyRound {
    /// The round ends with the ACK that covers this.
    end_seq: u64,
    start: SimTime,
    /// The last ACK of the train.
    last_ack: SimTime,
    /// The smallest sample of the round so far.
    curr_rtt: Option<SimTime>,
    samples: u32,
}

impl HyStart {
    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent, cwnd_before: f64) {
        let (Some(rtt), Some(delay_min)) = (ev.rtt, self.delay_min) else {
            return;
        };
        if self.found || cwnd_before < HYSTART_LOW_WINDOW {
            return;
        }
        let now = ev.now;
        let round = match self.round {
            Some(r) if ev.ack <= r.end_seq => r,
            _ => HyRound {
                end_seq: ev.snd_max,
                start: now,
                last_ack: now,
                curr_rtt: None,
                samples: 0,
            },
        };
        let mut r = round;
        if now - r.last_ack <= HYSTART_ACK_DELTA {
            r.last_ack = now;
            if now - r.start > delay_min / 2 {
                self.found = true;
            }
        }
        let curr = r.curr_rtt.map_or(rtt, |c| c.min(rtt));
        r.curr_rtt = Some(curr);
        if r.samples < MIN_SAMPLES {
            r.samples += 1;
        } else if curr > delay_min + delay_thresh(delay_min) {
            self.found = true;
        }
        self.round = Some(r);
        if self.found {
            st.ssthresh = st.cwnd;
        }
    }

    pub fn found(&self) -> bool {
        self.found
    }
}

/// HyStart++'s phases.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum PpPhase {
    #[default]
    SlowStart,
    /// Conservative slow start: its baseline and the rounds begun in it.
    Css { baseline: SimTime, rounds: u32 },
    /// CSS ran its rounds out: congestion avoidance.
    Exited,
    /// A loss or timeout came first: RFC 5681 from here on.
    Done,
}

/// RFC 9406's state.
#[derive(Debug, Clone, Default)]
pub struct HyStartPp {
    phase: PpPhase,
    /// windowEnd: the round ends with the ACK that covers it.
    window_end: Option<u64>,
    last_round_min_rtt: Option<SimTime>,
    current_round_min_rtt: Option<SimTime>,
    rtt_sample_count: u32,
}

impl HyStartPp {
    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent, cwnd_before: f64) {
        if matches!(self.phase, PpPhase::Exited | PpPhase::Done) {
            return;
        }
        if let PpPhase::Css { .. } = self.phase {
            st.cwnd = cwnd_before + (st.cwnd - cwnd_before) / CSS_GROWTH_DIVISOR;
        }
        if self.window_end.is_none_or(|end| ev.ack > end) {
            // windowEnd is acknowledged: a new round (RFC 9406 section
            // 4.2).
            self.window_end = Some(ev.snd_max);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
            if let PpPhase::Css { baseline, rounds } = self.phase {
                if rounds + 1 >= CSS_ROUNDS {
                    self.phase = PpPhase::Exited;
                    st.ssthresh = st.cwnd;
                    return;
                }
                self.phase = PpPhase::Css {
                    baseline,
                    rounds: rounds + 1,
                };
            }
        }
        let Some(rtt) = ev.rtt else {
            return;
        };
        let current = self.current_round_min_rtt.map_or(rtt, |c| c.min(rtt));
        self.current_round_min_rtt = Some(current);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < MIN_SAMPLES {
            return;
        }
        match self.phase {
            PpPhase::SlowStart => {
                if let Some(last) = self.last_round_min_rtt {
                    if current >= last + delay_thresh(last) {
                        self.phase = PpPhase::Css {
                            baseline: current,
                            rounds: 0,
                        };
                    }
                }
            }
            PpPhase::Css { baseline, .. } if current < baseline => {
                self.phase = PpPhase::SlowStart;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::test_state;

    const MS: SimTime = NS_PER_MS;

    fn ss_state(cwnd: f64) -> CcState {
        let mut st = test_state();
        st.max_cwnd = 10_000.0;
        st.cwnd = cwnd;
        st.ssthresh = f64::MAX;
        st
    }

    fn ack(now: SimTime, ack: u64, rtt: Option<SimTime>, snd_max: u64) -> AckEvent {
        AckEvent {
            now,
            acked_bytes: 1000,
            ack,
            rtt,
            sent_at: rtt.map(|r| now - r),
            snd_max,
            snd_nxt: snd_max,
            app_limited: false,
        }
    }

    /// One slow-start ACK through `s`: +1 segment as RFC 5681, then the
    /// algorithm. Returns whether the window was still in slow start.
    fn step(s: &mut SlowStartState, st: &mut CcState, ev: &AckEvent) -> bool {
        if st.cwnd >= st.ssthresh {
            return false;
        }
        if let Some(r) = ev.rtt {
            s.on_rtt_sample(r);
        }
        let before = st.cwnd;
        st.cwnd += 1.0;
        s.after_slow_start_ack(st, ev, before);
        true
    }

    /// Rounds of ACKs a flow in slow start gets: round i has `cwnd` ACKs
    /// (the window doubles each round), spaced `gap` apart, each with the
    /// RTT `rtt_of(i)`. Returns (round, cwnd) when slow start ended, or
    /// None after `rounds`.
    fn run(
        s: &mut SlowStartState,
        st: &mut CcState,
        rounds: u32,
        gap: SimTime,
        rtt_of: impl Fn(u32) -> SimTime,
    ) -> Option<(u32, f64)> {
        let mut now = 0;
        let mut seq = 0u64;
        for i in 0..rounds {
            let rtt = rtt_of(i);
            let n = st.cwnd as u64;
            // The window leaves at the round's start; its ACKs come after
            // an RTT, `gap` apart.
            let round_end = seq + n * 1000;
            now += rtt;
            for k in 0..n {
                seq += 1000;
                // Each ACK lets two segments leave, after it: the k-th
                // finds 2k sent beyond the round's window.
                let snd_max = round_end + k * 2000;
                if !step(s, st, &ack(now, seq, Some(rtt), snd_max)) {
                    return Some((i, st.cwnd));
                }
                now += gap;
            }
        }
        None
    }

    #[test]
    fn names_round_trip_through_the_scenario_format() {
        for k in [
            SlowStart::Standard,
            SlowStart::HyStart,
            SlowStart::HyStartPlusPlus,
        ] {
            let text = format!("\"{}\"", k.name());
            let back: SlowStart = serde_json::from_str(&text).unwrap();
            assert_eq!(back, k);
        }
    }

    #[test]
    fn standard_slow_start_ignores_a_rising_rtt() {
        let mut s = SlowStartState::new(SlowStart::Standard);
        let mut st = ss_state(2.0);
        assert_eq!(
            run(&mut s, &mut st, 8, 10 * MS, |i| (20 + 20 * i as u64) * MS),
            None
        );
        assert_eq!(st.cwnd, 512.0);
    }

    #[test]
    fn hystart_ends_slow_start_when_the_round_minimum_rises_by_the_threshold() {
        // 100 ms, and 120 ms from the round where cwnd is 32: 20 ms is over
        // the threshold, 100/8 = 12.5 ms. ACKs 10 ms apart make no train.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 4 { 120 * MS } else { 100 * MS };
        let (round, _) = run(&mut s, &mut st, 10, 10 * MS, rtt).unwrap();
        assert!(s.exited_early());
        // Round 4 starts at cwnd 32; its 9th sample (8 taken first) ends
        // slow start at cwnd 32 + 9 = 41, which ssthresh keeps.
        assert_eq!(round, 4);
        assert_eq!(st.ssthresh, 41.0);
        // 10 ms more (under 12.5 ms) would not have ended it.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 4 { 110 * MS } else { 100 * MS };
        assert_eq!(run(&mut s, &mut st, 8, 10 * MS, rtt), None);
        assert!(!s.exited_early());
    }

    #[test]
    fn hystart_clamps_its_threshold_to_four_and_sixteen_ms() {
        assert_eq!(delay_thresh(8 * MS), 4 * MS);
        assert_eq!(delay_thresh(80 * MS), 10 * MS);
        assert_eq!(delay_thresh(400 * MS), 16 * MS);
        // On a 400 ms path a rise of 20 ms (over 16, under 50) ends it.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 5 { 420 * MS } else { 400 * MS };
        assert!(run(&mut s, &mut st, 10, 10 * MS, rtt).is_some());
    }

    #[test]
    fn hystart_ends_slow_start_on_a_train_of_acks_half_an_rtt_long() {
        // A constant 40 ms RTT, ACKs 1 ms apart: a train. Half the RTT is
        // 20 ms, so the round whose ACKs span more than 20 ms ends it: the
        // round that starts at cwnd 32 (32 ACKs over 31 ms), on its 22nd.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        let (round, cwnd) = run(&mut s, &mut st, 10, MS, |_| 40 * MS).unwrap();
        assert_eq!(round, 4);
        assert_eq!(cwnd, 32.0 + 22.0);
        // ACKs 3 ms apart are no train: nothing ends slow start.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        assert_eq!(run(&mut s, &mut st, 8, 3 * MS, |_| 40 * MS), None);
    }

    #[test]
    fn hystart_waits_for_sixteen_segments_and_a_timeout_clears_it() {
        // The RTT doubles from the second round, but cwnd is below 16
        // until round 3 starts at 16.
        let mut s = SlowStartState::new(SlowStart::HyStart);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 1 { 200 * MS } else { 100 * MS };
        let (round, cwnd) = run(&mut s, &mut st, 10, 10 * MS, rtt).unwrap();
        assert_eq!(round, 3);
        assert_eq!(cwnd, 16.0 + 9.0);
        assert!(s.exited_early());
        s.on_rto();
        assert!(!s.exited_early());
    }

    #[test]
    fn hystart_plus_plus_enters_css_then_congestion_avoidance_after_five_rounds() {
        // The RTT rises by 20 ms (over 100/8) in round 4: CSS from that
        // round's 8th sample, then growth at a quarter for the rest of it
        // and for 4 more rounds, then ssthresh = cwnd.
        let mut s = SlowStartState::new(SlowStart::HyStartPlusPlus);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 4 { 120 * MS } else { 100 * MS };
        let (round, cwnd) = run(&mut s, &mut st, 20, 10 * MS, rtt).unwrap();
        assert!(s.exited_early());
        assert_eq!(st.ssthresh, cwnd);
        assert_eq!(round, 9);
        // Round 4: 32 ACKs, 8 at full growth (40), 24 at a quarter (46);
        // rounds 5-8 grow the window by a quarter of their ACKs each.
        let mut w: f64 = 46.0;
        for _ in 5..9 {
            w += (w as u64) as f64 / 4.0;
        }
        assert!((cwnd - w).abs() < 2.0, "cwnd {cwnd}, expected about {w}");
    }

    #[test]
    fn hystart_plus_plus_resumes_slow_start_when_the_rtt_falls_back() {
        // A bump of one round: CSS in round 4, and round 5's minimum,
        // back at 100 ms, is under the baseline of 120: slow start again.
        let mut s = SlowStartState::new(SlowStart::HyStartPlusPlus);
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i == 4 { 120 * MS } else { 100 * MS };
        assert_eq!(run(&mut s, &mut st, 7, 10 * MS, rtt), None);
        assert!(!s.exited_early());
        // It grew by less than plain slow start's 2^9 = 512 for its
        // quarter-speed stretch, but doubled again after it.
        assert!(st.cwnd < 256.0 && st.cwnd > 150.0, "cwnd {}", st.cwnd);
    }

    #[test]
    fn hystart_plus_plus_is_for_the_first_slow_start_only() {
        let mut s = SlowStartState::new(SlowStart::HyStartPlusPlus);
        s.on_loss();
        let mut st = ss_state(2.0);
        let rtt = |i: u32| if i >= 4 { 200 * MS } else { 100 * MS };
        assert_eq!(run(&mut s, &mut st, 8, 10 * MS, rtt), None);
        assert_eq!(st.cwnd, 512.0);
    }

    #[test]
    fn a_sample_less_ack_grows_the_window_but_is_not_counted() {
        let mut s = SlowStartState::new(SlowStart::HyStartPlusPlus);
        let mut st = ss_state(20.0);
        for k in 0..20u64 {
            let ev = ack(k * MS, (k + 1) * 1000, None, 40_000);
            assert!(step(&mut s, &mut st, &ev));
        }
        assert_eq!(st.cwnd, 40.0);
        let SlowStartState::HyStartPlusPlus(h) = &s else {
            unreachable!()
        };
        assert_eq!(h.rtt_sample_count, 0);
    }
}
