//! CUBIC (Ha, Rhee and Xu, 2008; RFC 9438), the default congestion control
//! of Linux, Windows and macOS, and ns-3's `TcpCubic`.
//!
//! - Slow start as RFC 5681 (+1 segment per new ACK) below ssthresh; no
//!   HyStart.
//! - In congestion avoidance the window follows, from the first ACK of the
//!   stage (`epoch_start`), W_cubic(t) = C·(t − K)³ + W_max with C = 0.4
//!   segments/s³ and K = ∛((W_max − cwnd_start) / C) (0 when the stage
//!   starts at or above W_max, which W_max is then set to). Each ACK moves
//!   cwnd by (target − cwnd) / cwnd towards target = W_cubic(t + RTT), kept
//!   within [cwnd, 1.5·cwnd], RTT the smoothed one.
//! - The Reno-friendly estimate W_est starts at cwnd_start and grows by
//!   α·(segments acked)/cwnd per ACK, α = 3(1 − β)/(1 + β) until it reaches
//!   cwnd_prior, the window when ssthresh was last set (RFC 9438 section
//!   4.3), and 1 after; while W_cubic(t) < W_est, cwnd is W_est.
//! - On a loss by duplicate ACKs: fast convergence (W_max = cwnd·(1 + β)/2
//!   when cwnd is below the last W_max, else cwnd), then ssthresh = cwnd =
//!   max(cwnd·β, 2) with β = 0.7 (cwnd without fast recovery's inflation,
//!   as Linux reduces it). Recovery as NewReno.
//! - After a timeout: the same ssthresh, cwnd = 1, and the congestion
//!   avoidance that follows starts its curve at its own start (K = 0, W_max
//!   = cwnd_start). A timeout that F-RTO finds spurious gives W_max and the
//!   stage back ([`Cubic::undo_rto`]).
//! - A flow that the application holds back (everything written sent, and
//!   room in the window for more when an ACK arrives) does not grow its
//!   window, and its stage's clock stops meanwhile (RFC 9438 section 5.8:
//!   t leaves out such periods); bulk transfers always have data to send.

use super::{AckEvent, CcState, CongestionControl, Recovery};
use crate::engine::{to_secs, SimTime};

/// CUBIC's scaling constant C, segments per second cubed.
pub const C: f64 = 0.4;
/// The multiplicative decrease factor β_cubic.
pub const BETA: f64 = 0.7;

/// The Reno-friendly additive increase for [`BETA`], segments per RTT.
fn alpha_aimd() -> f64 {
    3.0 * (1.0 - BETA) / (1.0 + BETA)
}

#[derive(Debug, Clone, Default)]
pub struct Cubic {
    /// cwnd just before the last reduction (after fast convergence);
    /// 0 before the first congestion event.
    w_max: f64,
    /// cwnd when the last reduction set ssthresh (before it); 0 before
    /// the first congestion event.
    cwnd_prior: f64,
    /// The current congestion avoidance stage: when it started, K, W_est.
    epoch: Option<Epoch>,
    /// The next stage starts its curve at its own start (after a timeout).
    restart: bool,
    /// The last ACK's arrival, for the time an application held the
    /// sender back.
    last_ack: Option<SimTime>,
}

#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: SimTime,
    k_s: f64,
    w_est: f64,
}

impl Cubic {
    /// W_max, segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current stage, seconds (None outside one).
    pub fn k_s(&self) -> Option<f64> {
        self.epoch.map(|e| e.k_s)
    }

    /// W_cubic `t_s` seconds into the stage.
    fn w_cubic(&self, k_s: f64, t_s: f64) -> f64 {
        C * (t_s - k_s).powi(3) + self.w_max
    }

    fn start_epoch(&mut self, st: &CcState, now: SimTime) -> Epoch {
        let cwnd_start = st.cwnd;
        if self.restart || self.w_max <= cwnd_start {
            self.w_max = cwnd_start;
            self.restart = false;
        }
        let k_s = ((self.w_max - cwnd_start) / C).cbrt();
        Epoch {
            start: now,
            k_s,
            w_est: cwnd_start,
        }
    }

    /// The reduced window, and W_max by fast convergence.
    fn reduce(&mut self, st: &CcState) -> f64 {
        let cwnd = st.uninflated_cwnd;
        self.cwnd_prior = cwnd;
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.epoch = None;
        (cwnd * BETA).max(2.0)
    }

    /// A spurious timeout: W_max and the congestion-avoidance stage (its
    /// start, K and W_est) as they were before it (`prior`), as RFC 9438
    /// section 4.9 would have a spurious congestion event undone. Only the
    /// timeout changed them: slow start since did not touch them.
    pub fn undo_rto(&mut self, prior: &Cubic) {
        self.w_max = prior.w_max;
        self.cwnd_prior = prior.cwnd_prior;
        self.epoch = prior.epoch;
        self.restart = prior.restart;
    }
}

impl CongestionControl for Cubic {
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ev: &AckEvent) {
        let since = self.last_ack.replace(ev.now);
        if ev.app_limited {
            // No growth, and the stage's curve waits for the sender.
            if let (Some(epoch), Some(last)) = (self.epoch.as_mut(), since) {
                epoch.start += ev.now.saturating_sub(last);
            }
            return;
        }
        if !st.in_ca() {
            st.reno_increase();
            return;
        }
        let mut epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(st, ev.now),
        };
        let t_s = to_secs(ev.now.saturating_sub(epoch.start));
        let segments = ev.acked_bytes as f64 / f64::from(st.mss.max(1));
        let alpha = if epoch.w_est >= self.cwnd_prior {
            1.0
        } else {
            alpha_aimd()
        };
        epoch.w_est += alpha * segments / st.cwnd;
        self.epoch = Some(epoch);
        if self.w_cubic(epoch.k_s, t_s) < epoch.w_est {
            st.cwnd = epoch.w_est;
        } else {
            let rtt_s = to_secs(st.srtt.or(st.last_rtt).unwrap_or(0));
            let target = self
                .w_cubic(epoch.k_s, t_s + rtt_s)
                .clamp(st.cwnd, 1.5 * st.cwnd);
            st.cwnd += (target - st.cwnd) / st.cwnd;
        }
        st.clamp();
    }

    fn on_loss(&mut self, st: &mut CcState, _now: SimTime) {
        let reduced = self.reduce(st);
        st.ssthresh = reduced;
        st.cwnd = reduced;
    }

    fn on_rto(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = self.reduce(st);
        st.cwnd = 1.0;
        self.restart = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{from_secs, NS_PER_MS};
    use crate::transport::tcp::cc::{test_ack, test_state};

    /// ACKs of one segment each, `per_s` a second, from `from_s` for
    /// `for_s` seconds.
    fn acks(c: &mut Cubic, st: &mut CcState, from_s: f64, for_s: f64, per_s: f64) {
        let n = (for_s * per_s) as u64;
        for i in 0..n {
            let now = from_secs(from_s + i as f64 / per_s);
            c.on_ack(st, &test_ack(now, i * 1000, None));
        }
    }

    fn ca_state(cwnd: f64) -> CcState {
        let mut st = test_state();
        st.max_cwnd = 10_000.0;
        st.cwnd = cwnd;
        st.uninflated_cwnd = cwnd;
        st.ssthresh = 2.0;
        st.srtt = Some(100 * NS_PER_MS);
        st
    }

    #[test]
    fn a_loss_keeps_seven_tenths_and_remembers_the_window() {
        let mut c = Cubic::default();
        let mut st = ca_state(100.0);
        c.on_loss(&mut st, 0);
        assert_eq!(c.w_max(), 100.0);
        assert!((st.ssthresh - 70.0).abs() < 1e-12);
        assert!((st.cwnd - 70.0).abs() < 1e-12);
        // A second loss below the last W_max lowers W_max further (fast
        // convergence): 70 × 0.85.
        st.uninflated_cwnd = st.cwnd;
        c.on_loss(&mut st, 0);
        assert!((c.w_max() - 59.5).abs() < 1e-12);
        assert!((st.cwnd - 49.0).abs() < 1e-12);
        // Never below 2 segments.
        let mut st = ca_state(2.0);
        c.on_loss(&mut st, 0);
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn the_window_climbs_back_to_w_max_in_k_seconds_and_then_probes_past_it() {
        // A window of 1,000 segments over 100 ms: 10,000 ACKs a second, as
        // many a round trip as the window holds.
        let mut c = Cubic::default();
        let mut st = ca_state(1000.0);
        c.on_loss(&mut st, 0);
        let per_s = 10_000.0;
        acks(&mut c, &mut st, 1.0, 1.0 / per_s, per_s);
        // K = ∛(1,000 × 0.3 / 0.4) = ∛750 ≈ 9.086 s.
        let k = c.k_s().expect("a stage");
        assert!((k - 750f64.cbrt()).abs() < 1e-9, "{k}");
        // Aiming one round trip ahead, the window keeps to the curve:
        // concave below W_max, flat around K, convex after.
        let mut at = |from: f64, to: f64| {
            acks(&mut c, &mut st, 1.0 + from, to - from, per_s);
            st.cwnd
        };
        let curve = |t: f64| 0.4 * (t - k).powi(3) + 1000.0;
        for (from, to) in [(1e-4, k / 2.0), (k / 2.0, k), (k, k + 3.0)] {
            let cwnd = at(from, to);
            assert!(
                (cwnd - curve(to)).abs() < 1.0,
                "{cwnd} at {to} s against {}",
                curve(to)
            );
        }
    }

    #[test]
    fn with_a_short_rtt_the_reno_friendly_estimate_leads() {
        // A small window far from W_max's curve: W_est grows by α per
        // window of ACKs, faster than the curve's first seconds.
        let mut c = Cubic::default();
        let mut st = ca_state(10.0);
        st.srtt = Some(NS_PER_MS);
        c.on_loss(&mut st, 0);
        assert_eq!(st.cwnd, 7.0);
        let alpha = alpha_aimd();
        assert!((alpha - 0.9 / 1.7).abs() < 1e-12);
        // 7 ACKs (one window) a millisecond for 20 ms: the curve has not
        // moved (K ≈ 1.96 s), W_est has grown by about α × 20.
        acks(&mut c, &mut st, 0.0, 0.020, 7000.0);
        assert!(st.cwnd > 7.0 + alpha * 20.0 * 0.9, "{}", st.cwnd);
        assert!(st.cwnd < 7.0 + alpha * 20.0 * 1.05, "{}", st.cwnd);
    }

    #[test]
    fn the_reno_friendly_estimate_keeps_its_slower_growth_up_to_cwnd_prior() {
        // A loss at 100 segments, then one at 80: fast convergence puts
        // W_max at 68 and cwnd at 56, but the window was 80 when ssthresh
        // was set (cwnd_prior), and W_est grows by α ≈ 0.53 a window of
        // ACKs up to 80 (RFC 9438 section 4.3), not only up to W_max.
        let mut c = Cubic::default();
        let mut st = ca_state(100.0);
        st.srtt = Some(NS_PER_MS);
        c.on_loss(&mut st, 0);
        st.cwnd = 80.0;
        st.uninflated_cwnd = 80.0;
        c.on_loss(&mut st, 0);
        assert!((c.w_max() - 68.0).abs() < 1e-9);
        assert!((st.cwnd - 56.0).abs() < 1e-9);
        // 40 ms of 56 ACKs a millisecond: W_est passes 68 near 23 ms and
        // ends at 74.2; with α = 1 from W_max on it would reach 79.3.
        acks(&mut c, &mut st, 0.0, 0.040, 56_000.0);
        assert!((st.cwnd - 74.215).abs() < 0.01, "{}", st.cwnd);
    }

    #[test]
    fn after_a_timeout_the_curve_starts_from_the_new_stage() {
        let mut c = Cubic::default();
        let mut st = ca_state(50.0);
        c.on_rto(&mut st, 0);
        assert_eq!(st.cwnd, 1.0);
        assert!((st.ssthresh - 35.0).abs() < 1e-12);
        // Slow start to ssthresh: one segment per ACK.
        c.on_ack(&mut st, &test_ack(from_secs(1.0), 0, None));
        assert_eq!(st.cwnd, 2.0);
        st.cwnd = 35.0;
        c.on_ack(&mut st, &test_ack(from_secs(2.0), 1000, None));
        assert_eq!(c.k_s(), Some(0.0));
        assert_eq!(c.w_max(), 35.0);
    }

    #[test]
    fn a_spurious_timeout_gives_back_w_max_and_the_stage() {
        // A loss at 100 segments (W_max 100, cwnd 70), the stage begun at
        // 1 s; a timeout would halve again and restart the curve. Undone
        // from the copy taken before it, the stage and W_max are as they
        // were, and the curve goes on from its old start.
        let mut c = Cubic::default();
        let mut st = ca_state(100.0);
        c.on_loss(&mut st, 0);
        c.on_ack(&mut st, &test_ack(from_secs(1.0), 0, None));
        let k = c.k_s().expect("a stage");
        let before = c.clone();
        st.uninflated_cwnd = st.cwnd;
        c.on_rto(&mut st, from_secs(2.0));
        assert!(c.w_max() < 100.0 && c.k_s().is_none());
        c.undo_rto(&before);
        assert_eq!((c.w_max(), c.k_s()), (100.0, Some(k)));
        st.cwnd = 70.0;
        st.ssthresh = 70.0;
        c.on_ack(&mut st, &test_ack(from_secs(3.0), 1000, None));
        assert_eq!(c.k_s(), Some(k), "no new stage");
    }

    #[test]
    fn an_application_that_holds_the_sender_back_stops_growth_and_the_curve() {
        // Two senders after a loss at 100 segments; one is held back by its
        // application for 5 s in the middle (ACKs still arrive, marked
        // application-limited). Its window does not grow meanwhile, and
        // afterwards it is where the other is 5 s earlier: the curve's
        // clock left the 5 s out (RFC 9438 section 5.8).
        let per_s = 1000.0;
        let run = |held: bool| {
            let mut c = Cubic::default();
            let mut st = ca_state(100.0);
            c.on_loss(&mut st, 0);
            acks(&mut c, &mut st, 0.0, 2.0, per_s);
            let before = st.cwnd;
            if held {
                for i in 0..5000u64 {
                    let mut ev = test_ack(from_secs(2.0 + i as f64 / per_s), 0, None);
                    ev.app_limited = true;
                    c.on_ack(&mut st, &ev);
                }
                assert_eq!(st.cwnd, before, "no growth while held back");
            }
            let from = if held { 7.0 } else { 2.0 };
            acks(&mut c, &mut st, from, 3.0, per_s);
            st.cwnd
        };
        let (free, held) = (run(false), run(true));
        assert!((free - held).abs() < 0.05, "{free} against {held}");
    }

    #[test]
    fn without_a_loss_congestion_avoidance_starts_its_curve_where_it_is() {
        let mut c = Cubic::default();
        let mut st = ca_state(20.0);
        st.ssthresh = 20.0;
        c.on_ack(&mut st, &test_ack(from_secs(1.0), 0, None));
        assert_eq!(c.w_max(), 20.0);
        assert_eq!(c.k_s(), Some(0.0));
        // It grows at least as Reno's 1/cwnd per ACK, capped at 1.5×.
        let before = st.cwnd;
        acks(&mut c, &mut st, 1.0, 2.0, 200.0);
        assert!(st.cwnd > before + 400.0 / 21.0 * 0.5);
        assert!(st.cwnd < 1.5f64.powi(200) * before);
    }
}
