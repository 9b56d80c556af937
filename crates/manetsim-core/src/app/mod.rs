//! Traffic sources: constant bit rate (CBR), as ns-2's
//! `Application/Traffic/CBR` with `random_ 0`: one packet every
//! `packet_size × 8 / rate` seconds from `start_s` until `stop_s`
//! (exclusive); and on-off sources ([`OnOff`]), as ns-2's
//! `Application/Traffic/Exponential` and `Application/Traffic/Pareto`.

use crate::engine::{from_secs, Rng, SimTime, Stream};
use crate::net::NodeId;

use crate::scenario::{OnOffConfig, OnOffDistribution, DEFAULT_CBR_RATE_BPS, MAX_DURATION_S};

/// An on-off source's bursts, drawn as ns-2.35's exponential and Pareto
/// traffic generators draw them (`expoo.cc`, `pareto.cc`):
///
/// - a burst is a whole number of packets, `round(X)` and at least 1, where
///   X has the mean `on_s / interval` (the packets the mean burst time
///   holds at `rate_bps`); exponential, or Pareto with scale
///   `mean × (shape − 1) / shape`;
/// - within a burst packets leave one `interval` apart; before each burst,
///   the first one included, the gap is one `interval` plus an idle time
///   drawn with the mean `off_s` (from the same distribution);
/// - so the source starts idle: its first packet leaves at `start_s` +
///   `interval` + an idle time, and its long-run rate is about `rate_bps ×
///   on_s / (on_s + off_s)`.
#[derive(Debug, Clone)]
pub struct OnOff {
    distribution: OnOffDistribution,
    shape: f64,
    /// Mean packets per burst.
    mean_burst_packets: f64,
    /// Mean idle time, seconds.
    mean_off_s: f64,
    /// Packets left in the current burst.
    left: u64,
    rng: Rng,
}

impl OnOff {
    /// Flow `flow`'s source in run `seed`, sending one packet every
    /// `interval_ns` within a burst.
    pub fn new(cfg: &OnOffConfig, interval_ns: SimTime, seed: u64, flow: u64) -> Self {
        let interval_s = interval_ns as f64 * 1e-9;
        Self {
            distribution: cfg.distribution,
            shape: cfg.shape,
            mean_burst_packets: cfg.on_s / interval_s,
            mean_off_s: cfg.off_s,
            left: 0,
            rng: Rng::new(seed, Stream::OnOff, flow),
        }
    }

    fn draw(&mut self, mean: f64) -> f64 {
        match self.distribution {
            OnOffDistribution::Exponential => self.rng.exponential(mean),
            OnOffDistribution::Pareto => {
                let scale = mean * (self.shape - 1.0) / self.shape;
                self.rng.pareto(scale, self.shape)
            }
        }
    }

    /// The gap before the next packet: one interval, plus an idle time
    /// when the last burst is over (a new burst's length is drawn then).
    fn gap_ns(&mut self, interval_ns: SimTime) -> SimTime {
        let mut gap = interval_ns;
        if self.left == 0 {
            let packets = (self.draw(self.mean_burst_packets) + 0.5).min(u64::MAX as f64) as u64;
            self.left = packets.max(1);
            let off_s = self.draw(self.mean_off_s);
            gap = gap.saturating_add(from_secs(off_s.min(MAX_DURATION_S)));
        }
        self.left -= 1;
        gap
    }
}

#[derive(Debug, Clone)]
pub struct Cbr {
    pub src: NodeId,
    pub dst: NodeId,
    pub payload_bytes: u32,
    pub interval_ns: SimTime,
    pub start_ns: SimTime,
    pub stop_ns: SimTime,
    pub next_seq: u64,
    /// An on-off source's bursts; `None` for CBR (and FTP).
    pub onoff: Option<OnOff>,
}

impl Cbr {
    /// The interval from `rate_bps` or `interval_s` (validated: not both).
    pub fn interval_ns(
        payload_bytes: u32,
        rate_bps: Option<f64>,
        interval_s: Option<f64>,
    ) -> SimTime {
        let s = match (interval_s, rate_bps) {
            (Some(i), _) => i,
            (None, Some(r)) => payload_bytes as f64 * 8.0 / r,
            (None, None) => payload_bytes as f64 * 8.0 / DEFAULT_CBR_RATE_BPS,
        };
        // Longer than the longest run is never again (and leaves room to
        // add it to any time of a run).
        from_secs(s).clamp(1, from_secs(MAX_DURATION_S))
    }

    /// The time of the first packet, if before `stop`: `start` for CBR
    /// (and FTP's start); an on-off source begins with an idle time.
    pub fn first(&mut self) -> Option<SimTime> {
        let t = match &mut self.onoff {
            Some(o) => self.start_ns.saturating_add(o.gap_ns(self.interval_ns)),
            None => self.start_ns,
        };
        (t < self.stop_ns).then_some(t)
    }

    /// The time of the packet after one sent at `now`, if before `stop`.
    pub fn next_after(&mut self, now: SimTime) -> Option<SimTime> {
        let gap = match &mut self.onoff {
            Some(o) => o.gap_ns(self.interval_ns),
            None => self.interval_ns,
        };
        let t = now.saturating_add(gap);
        (t < self.stop_ns).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_S};

    #[test]
    fn interval_from_rate_or_interval() {
        assert_eq!(Cbr::interval_ns(512, Some(100_000.0), None), 40_960_000);
        assert_eq!(Cbr::interval_ns(512, None, Some(0.25)), 250_000_000);
        assert_eq!(Cbr::interval_ns(210, None, None), 3_750_000);
    }

    fn onoff_source(cfg: OnOffConfig, interval_ns: SimTime, seed: u64) -> Cbr {
        Cbr {
            src: 0,
            dst: 1,
            payload_bytes: 512,
            interval_ns,
            start_ns: NS_PER_S,
            stop_ns: 100_000 * NS_PER_S,
            next_seq: 0,
            onoff: Some(OnOff::new(&cfg, interval_ns, seed, 0)),
        }
    }

    /// The send times of a source until its stop.
    fn times(src: &mut Cbr) -> Vec<SimTime> {
        let mut out = Vec::new();
        let mut t = src.first();
        while let Some(now) = t {
            out.push(now);
            t = src.next_after(now);
        }
        out
    }

    /// Bursts (packets one interval apart) and the idle gaps between them.
    fn bursts(times: &[SimTime], interval_ns: SimTime) -> (Vec<u64>, Vec<SimTime>) {
        let (mut sizes, mut idles) = (vec![1u64], Vec::new());
        for w in times.windows(2) {
            let gap = w[1] - w[0];
            if gap == interval_ns {
                *sizes.last_mut().unwrap() += 1;
            } else {
                sizes.push(1);
                idles.push(gap - interval_ns);
            }
        }
        (sizes, idles)
    }

    #[test]
    fn an_exponential_onoff_source_has_ns2s_bursts_and_idle_times() {
        // 512 bytes at 64 kbit/s: an interval of 64 ms; bursts of 0.5 s
        // hold 7.8 packets on average, idle times 0.5 s.
        let interval = Cbr::interval_ns(512, Some(64_000.0), None);
        assert_eq!(interval, 64 * NS_PER_MS);
        let mut src = onoff_source(OnOffConfig::default(), interval, 1);
        let t = times(&mut src);
        // The source starts idle: one interval and an idle time.
        assert!(t[0] > NS_PER_S + interval, "{}", t[0]);
        let (sizes, idles) = bursts(&t, interval);
        assert!(sizes.len() > 90_000, "{}", sizes.len());
        assert!(sizes.iter().all(|&n| n >= 1));
        let mean_size = sizes.iter().sum::<u64>() as f64 / sizes.len() as f64;
        // round(X) with X ~ Exp(7.8125), at least 1: its mean is near 7.9.
        assert!((mean_size - 7.9).abs() < 0.15, "{mean_size}");
        let mean_idle_s = idles.iter().sum::<u64>() as f64 / idles.len() as f64 * 1e-9;
        assert!((mean_idle_s - 0.5).abs() < 0.01, "{mean_idle_s}");
        // Long-run rate: about rate × on / (on + off) = 32 kbit/s, a little
        // less, since each burst's first packet waits one more interval.
        let span_s = (t[t.len() - 1] - t[0]) as f64 * 1e-9;
        let rate_bps = (t.len() - 1) as f64 * 512.0 * 8.0 / span_s;
        assert!((29_000.0..32_500.0).contains(&rate_bps), "{rate_bps}");
        // The same seed draws the same source; another seed another.
        assert_eq!(
            times(&mut onoff_source(OnOffConfig::default(), interval, 1)),
            t
        );
        assert_ne!(
            times(&mut onoff_source(OnOffConfig::default(), interval, 2)),
            t
        );
    }

    #[test]
    fn a_pareto_onoff_source_draws_from_its_scale_up() {
        let interval = 64 * NS_PER_MS;
        let cfg = OnOffConfig {
            distribution: OnOffDistribution::Pareto,
            on_s: 1.0,
            off_s: 2.0,
            shape: 1.5,
        };
        let mut src = onoff_source(cfg, interval, 3);
        let (sizes, mut idles) = bursts(&times(&mut src), interval);
        // Idle times: scale 2 × 0.5 / 1.5 = 0.667 s, none shorter; median
        // scale × 2^(1/1.5) = 1.058 s.
        idles.sort_unstable();
        let scale_ns = 2.0 / 3.0 * 1e9;
        assert!(idles[0] as f64 >= scale_ns - 1.0, "{}", idles[0]);
        let median_s = idles[idles.len() / 2] as f64 * 1e-9;
        assert!((median_s - 1.058).abs() < 0.03, "{median_s}");
        // Bursts: scale 15.625 × 1/3 = 5.2 packets: at least round(5.2) = 5.
        // (The last burst may be cut short by the stop.)
        let whole = &sizes[..sizes.len() - 1];
        assert!(whole.iter().all(|&n| n >= 5), "{:?}", whole.iter().min());
    }

    #[test]
    fn an_onoff_source_without_idle_time_is_cbr_after_its_first_interval() {
        let cfg = OnOffConfig {
            off_s: 0.0,
            ..OnOffConfig::default()
        };
        let mut src = onoff_source(cfg, 10 * NS_PER_MS, 1);
        src.stop_ns = 2 * NS_PER_S;
        let t = times(&mut src);
        assert_eq!(t[0], NS_PER_S + 10 * NS_PER_MS);
        assert!(t.windows(2).all(|w| w[1] - w[0] == 10 * NS_PER_MS));
        assert_eq!(t.len(), 99);
    }

    #[test]
    fn a_rate_too_low_for_the_clock_means_never_again() {
        let never = Cbr::interval_ns(512, Some(1e-300), None);
        assert_eq!(never, 1_000_000_000_000_000_000);
        let mut cbr = Cbr {
            src: 0,
            dst: 1,
            payload_bytes: 512,
            interval_ns: never,
            start_ns: 0,
            stop_ns: 60_000_000_000,
            next_seq: 0,
            onoff: None,
        };
        assert_eq!(cbr.next_after(1_000_000_000), None);
    }
}
