//! Minstrel (`[mac] rate_control = "minstrel"`): the rate control of
//! Linux's mac80211 (Derek Smithies and Felix Fietkau; described on the
//! kernel's wireless wiki, "minstrel") as ns-3's `MinstrelWifiManager`
//! models it for 802.11a/b/g, kept for each neighbour apart.
//!
//! - **Statistics.** For each rate, the data frames sent at it and those
//!   acknowledged. Every 100 ms (when a frame's outcome comes after that
//!   long) each rate tried since gets its success probability, smoothed
//!   by an exponentially weighted moving average that keeps 75 % of the
//!   old value, and its throughput: that probability over the airtime of a
//!   1200-byte frame at the rate. The rates of highest and second-highest
//!   throughput and the one of highest probability (among those of 95 %
//!   or more, the fastest) are picked again.
//! - **A retry chain.** A data frame goes first at the best-throughput
//!   rate, for as many tries as fit in 6 ms at it (from 2 to 10: each try
//!   the frame, SIFS and its ACK, each retry also a backoff of half the
//!   doubled contention window), then at the second best, then at the
//!   most probable, then at the lowest rate; the frame is given up when
//!   the chain is used up, not at the MAC's retry limit. A rate whose
//!   probability is below 10 % or above 95 % gets 2 tries.
//! - **Look-around.** One frame in ten samples a rate from a table of
//!   random permutations of the rates, ten columns of them, drawn once per
//!   neighbour from the node's own stream. A sampled rate faster than the
//!   best is tried first, then the best; a slower one is tried second,
//!   after the best, unless it was not sampled in the last 20 updates. A
//!   rate below 10 % or above 95 % is sampled at most 4 times an update.
//!
//! RTS, CTS, ACK and broadcast frames are not adapted. An RTS that gets no
//! CTS counts for nothing but the MAC's own retry limit.

use super::params::MacParams;
use crate::engine::{Rng, SimTime};
use crate::net::NodeId;

/// How often the statistics are brought up to date.
pub const MINSTREL_UPDATE_NS: SimTime = 100_000_000;
/// The share of the old value the moving average keeps.
const EWMA_KEEP: f64 = 0.75;
/// The share of frames that sample another rate, in percent.
const LOOK_AROUND_PERCENT: u64 = 10;
/// Columns of the sample table.
const SAMPLE_COLUMNS: usize = 10;
/// The frame length whose airtime sets a rate's throughput.
const REFERENCE_BYTES: u32 = 1200;
/// The time a rate's tries in the chain may take.
const CHAIN_BUDGET_NS: SimTime = 6_000_000;

/// One rate's figures for one neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct RateStats {
    attempts: u32,
    successes: u32,
    /// Acknowledged frames since the neighbour was first seen.
    success_history: u64,
    /// Smoothed success probability, 0 to 1.
    ewma: f64,
    /// `ewma` over the rate's reference airtime, per ns.
    throughput: f64,
    /// Updates since the rate was last tried.
    skipped: u32,
    /// Samples left until the next update; negative: no limit.
    sample_limit: i32,
    /// Tries in the chain: `budget`, or 2 while the rate is below 10 % or
    /// above 95 %.
    tries: u32,
    /// The tries that fit in the chain's time budget.
    budget: u32,
}

/// Minstrel's state for one neighbour.
#[derive(Debug, Clone, PartialEq)]
struct Station {
    peer: NodeId,
    stats: Vec<RateStats>,
    next_update: SimTime,
    /// Index of the rate the next try goes at.
    tx: usize,
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    /// Failed tries of the frame in hand.
    failures: u32,
    packets: u64,
    sample_packets: u64,
    samples_deferred: u64,
    sampling: bool,
    deferred: bool,
    sample_rate: usize,
    /// `table[row][column]`: rate indices.
    table: Vec<[u8; SAMPLE_COLUMNS]>,
    row: usize,
    column: usize,
}

/// Minstrel over `rates` (ascending), for each neighbour.
#[derive(Debug, Clone)]
pub struct Minstrel {
    rates: Vec<u64>,
    /// Each rate's reference airtime, ns.
    airtime_ns: Vec<SimTime>,
    /// Each rate's tries in the chain, before the statistics say more.
    tries: Vec<u32>,
    stations: Vec<Station>,
    rng: Rng,
}

impl Minstrel {
    /// Minstrel over `rates` (ascending, at least two) with the MAC's
    /// timing `p`, drawing its sample tables from `rng`.
    pub fn new(rates: Vec<u64>, p: &MacParams, rng: Rng) -> Self {
        assert!(rates.len() >= 2 && rates.windows(2).all(|w| w[0] < w[1]));
        let airtime_ns: Vec<SimTime> = rates
            .iter()
            .map(|&r| p.txtime(REFERENCE_BYTES, r))
            .collect();
        let tries = rates
            .iter()
            .zip(&airtime_ns)
            .map(|(&rate, &airtime)| {
                let one = airtime + p.sifs_ns + p.ack_time_after(rate);
                // The time of a frame and `retries` retries, each retry
                // after a backoff of half the doubled window.
                let time = |retries: u32| {
                    let (mut total, mut cw) = (one, p.cw_min);
                    for _ in 0..retries {
                        total += one + u64::from(cw) * p.slot_ns / 2;
                        cw = (2 * cw + 1).min(p.cw_max);
                    }
                    total
                };
                (2..=10)
                    .take_while(|&r| time(r) <= CHAIN_BUDGET_NS)
                    .last()
                    .unwrap_or(1)
            })
            .collect();
        Self {
            rates,
            airtime_ns,
            tries,
            stations: Vec::new(),
            rng,
        }
    }

    /// The rate of the next try of a data frame to `peer`.
    pub fn rate_bps(&self, peer: NodeId) -> u64 {
        let tx = self
            .stations
            .iter()
            .find(|s| s.peer == peer)
            .map_or(0, |s| s.tx);
        self.rates[tx]
    }

    /// The index of `peer`'s station, made on first use.
    fn station_index(&mut self, peer: NodeId, now: SimTime) -> usize {
        match self.stations.iter().position(|s| s.peer == peer) {
            Some(at) => at,
            None => {
                let n = self.rates.len();
                // Each column a random permutation of the rates
                // (Fisher–Yates), the first column drawn first.
                let columns: Vec<Vec<u8>> = (0..SAMPLE_COLUMNS)
                    .map(|_| {
                        let mut order: Vec<u8> = (0..n as u8).collect();
                        for i in (1..n).rev() {
                            let j = self.rng.below(i as u64 + 1) as usize;
                            order.swap(i, j);
                        }
                        order
                    })
                    .collect();
                let table = (0..n)
                    .map(|row| std::array::from_fn(|column| columns[column][row]))
                    .collect();
                let stats = self
                    .tries
                    .iter()
                    .map(|&tries| RateStats {
                        tries,
                        budget: tries,
                        sample_limit: -1,
                        ..RateStats::default()
                    })
                    .collect();
                self.stations.push(Station {
                    peer,
                    stats,
                    next_update: now + MINSTREL_UPDATE_NS,
                    tx: 0,
                    max_tp: 0,
                    max_tp2: 0,
                    max_prob: 0,
                    failures: 0,
                    packets: 0,
                    sample_packets: 0,
                    samples_deferred: 0,
                    sampling: false,
                    deferred: false,
                    sample_rate: 0,
                    table,
                    row: 0,
                    column: 0,
                });
                self.stations.len() - 1
            }
        }
    }

    fn station(&mut self, peer: NodeId, now: SimTime) -> &mut Station {
        let at = self.station_index(peer, now);
        &mut self.stations[at]
    }

    /// A try of a data frame to `peer` was acknowledged: the frame is done.
    pub fn acknowledged(&mut self, peer: NodeId, now: SimTime) {
        let at = self.station_index(peer, now);
        let s = &mut self.stations[at];
        s.stats[s.tx].successes += 1;
        s.stats[s.tx].attempts += 1;
        s.frame_done();
        s.update(now, &self.airtime_ns);
        s.tx = s.next_rate(&self.airtime_ns);
    }

    /// A try of a data frame to `peer` got no ACK: the next try goes at the
    /// chain's next rate.
    pub fn unacknowledged(&mut self, peer: NodeId, now: SimTime) {
        let s = self.station(peer, now);
        s.failures += 1;
        s.stats[s.tx].attempts += 1;
        // Each stage of the chain gets its rate's tries, in turn.
        let chain = s.chain();
        let mut used = 0;
        s.tx = chain[3];
        for &rate in &chain[..3] {
            used += s.stats[rate].tries;
            if s.failures < used {
                s.tx = rate;
                break;
            }
        }
    }

    /// Whether the data frame to `peer` whose try just failed has tries
    /// left in its chain.
    pub fn may_retry(&self, peer: NodeId) -> bool {
        self.stations
            .iter()
            .find(|s| s.peer == peer)
            .is_none_or(|s| {
                let total: u32 = s.chain().iter().map(|&r| s.stats[r].tries).sum();
                s.failures < total
            })
    }

    /// The data frame to `peer` was given up after its last try.
    pub fn gave_up(&mut self, peer: NodeId, now: SimTime) {
        let at = self.station_index(peer, now);
        let s = &mut self.stations[at];
        s.frame_done();
        s.update(now, &self.airtime_ns);
        s.tx = s.next_rate(&self.airtime_ns);
    }

    /// The frame to `peer` was given up because its RTS got no CTS.
    pub fn rts_gave_up(&mut self, peer: NodeId) {
        if let Some(s) = self.stations.iter_mut().find(|s| s.peer == peer) {
            s.failures = 0;
        }
    }
}

impl Station {
    /// The rates of the chain's four stages.
    fn chain(&self) -> [usize; 4] {
        match (self.sampling, self.deferred) {
            (false, _) => [self.max_tp, self.max_tp2, self.max_prob, 0],
            (true, true) => [self.max_tp, self.sample_rate, self.max_prob, 0],
            (true, false) => [self.sample_rate, self.max_tp, self.max_prob, 0],
        }
    }

    /// Counts a frame done, sampled or not.
    fn frame_done(&mut self) {
        self.packets += 1;
        // A deferred sample counts only if the chain got as far as it.
        if self.sampling && (!self.deferred || self.failures >= self.stats[self.max_tp].tries) {
            self.sample_packets += 1;
        }
        self.samples_deferred = self.samples_deferred.saturating_sub(1);
        self.sampling = false;
        self.deferred = false;
        self.failures = 0;
    }

    /// Brings the statistics up to date when an update is due.
    fn update(&mut self, now: SimTime, airtime_ns: &[SimTime]) {
        if now < self.next_update {
            return;
        }
        self.next_update = now + MINSTREL_UPDATE_NS;
        for (r, &airtime) in self.stats.iter_mut().zip(airtime_ns) {
            if r.attempts > 0 {
                r.skipped = 0;
                let p = f64::from(r.successes) / f64::from(r.attempts);
                r.ewma = if r.success_history == 0 {
                    p
                } else {
                    p * (1.0 - EWMA_KEEP) + r.ewma * EWMA_KEEP
                };
                r.throughput = r.ewma / airtime as f64;
            } else {
                r.skipped += 1;
            }
            r.success_history += u64::from(r.successes);
            r.attempts = 0;
            r.successes = 0;
            if (0.10..=0.95).contains(&r.ewma) {
                r.sample_limit = -1;
                r.tries = r.budget;
            } else {
                // Rarely worth trying, or sure to work: few tries, few samples.
                if r.budget > 2 {
                    r.tries = 2;
                }
                r.sample_limit = 4;
            }
        }
        let best = |skip: Option<usize>| {
            let mut best = (0, 0.0);
            for (i, r) in self.stats.iter().enumerate() {
                if Some(i) != skip && r.throughput > best.1 {
                    best = (i, r.throughput);
                }
            }
            best.0
        };
        self.max_tp = best(None);
        self.max_tp2 = best(Some(self.max_tp));
        let (mut max_prob, mut prob) = (0, 0.0);
        for (i, r) in self.stats.iter().enumerate() {
            if (r.ewma >= 0.95 && r.throughput >= self.stats[max_prob].throughput) || r.ewma >= prob
            {
                max_prob = i;
                prob = r.ewma;
            }
        }
        self.max_prob = max_prob;
        self.tx = self.tx.max(self.max_tp);
    }

    /// The rate the next frame starts at, sampling one frame in ten.
    fn next_rate(&mut self, airtime_ns: &[SimTime]) -> usize {
        if self.packets == 0 {
            return 0;
        }
        let n = self.stats.len() as u64;
        let owed = (self.packets * LOOK_AROUND_PERCENT / 100) as i64
            - (self.sample_packets + self.samples_deferred / 2) as i64;
        if owed < 0 {
            return self.max_tp;
        }
        if owed as u64 > 2 * n {
            // Do not let a backlog of samples burst out.
            self.sample_packets += owed as u64 - 2 * n;
        }
        let mut rate = usize::from(self.table[self.row][self.column]);
        self.row += 1;
        if self.row == self.table.len() {
            self.row = 0;
            self.column = (self.column + 1) % SAMPLE_COLUMNS;
        }
        self.sample_rate = rate;
        if airtime_ns[rate] > airtime_ns[self.max_tp] && self.stats[rate].skipped < 20 {
            self.deferred = true;
            self.samples_deferred += 1;
            self.sampling = true;
            rate = self.max_tp;
        } else if self.stats[rate].sample_limit == 0 {
            rate = self.max_tp;
            self.sampling = false;
        } else {
            self.sampling = true;
            if self.stats[rate].sample_limit > 0 {
                self.stats[rate].sample_limit -= 1;
            }
        }
        rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stream;
    use crate::mac::OFDM_RATES_BPS;

    const PEER: NodeId = 1;

    fn ofdm() -> MacParams {
        MacParams::from_scenario(&crate::scenario::Mac {
            standard: "802.11a".into(),
            data_rate_bps: 54_000_000,
            basic_rate_bps: 6_000_000,
            ..Default::default()
        })
    }

    fn minstrel() -> Minstrel {
        let mut rates = OFDM_RATES_BPS.to_vec();
        rates.sort_unstable();
        Minstrel::new(rates, &ofdm(), Rng::new(1, Stream::Test, 0))
    }

    #[test]
    fn each_rate_gets_the_tries_that_fit_in_six_ms() {
        let p = ofdm();
        let m = minstrel();
        for (i, &rate) in m.rates.iter().enumerate() {
            let one = p.txtime(1200, rate) + p.sifs_ns + p.ack_time_after(rate);
            let time = |retries: u32| {
                let mut total = one;
                let mut cw = 15u64;
                for _ in 0..retries {
                    total += one + cw * 9_000 / 2;
                    cw = (2 * cw + 1).min(1023);
                }
                total
            };
            let tries = m.tries[i];
            assert!(
                tries == 10 || time(tries + 1) > 6_000_000,
                "{rate}: {tries}"
            );
            assert!(tries == 1 || time(tries) <= 6_000_000, "{rate}: {tries}");
        }
        println!("tries: {:?}", m.tries);
    }

    #[test]
    fn the_first_frame_goes_at_the_lowest_rate() {
        let mut m = minstrel();
        assert_eq!(m.rate_bps(PEER), 6_000_000);
        m.acknowledged(PEER, 0);
        // No statistics before 100 ms: the best rate known is the lowest,
        // and no sample is owed yet as ten percent of one frame rounds to
        // nothing but none has been taken: the next frame samples the
        // first rate of the sample table, faster, so first in its chain.
        let s = &m.stations[0];
        let sampled = usize::from(s.table[0][0]);
        assert!(s.sampling && !s.deferred && s.sample_rate == sampled);
        assert_eq!(m.rate_bps(PEER), m.rates[sampled]);
        m.acknowledged(PEER, 1);
        // Then one sample is owed for every ten frames.
        for t in 2..9 {
            assert!(!m.stations[0].sampling, "frame {t}");
            assert_eq!(m.rate_bps(PEER), 6_000_000);
            m.acknowledged(PEER, t);
        }
    }

    #[test]
    fn a_failing_frame_walks_the_chain_and_is_given_up_at_its_end() {
        let mut m = minstrel();
        let s = m.station(PEER, 0);
        s.max_tp = 6;
        s.max_tp2 = 5;
        s.max_prob = 3;
        s.tx = 6;
        for (i, t) in [2, 3, 4, 1].into_iter().enumerate() {
            s.stats[[6, 5, 3, 0][i]].tries = t;
        }
        let mut seen = vec![m.rate_bps(PEER)];
        while m.may_retry(PEER) {
            m.unacknowledged(PEER, 1);
            if !m.may_retry(PEER) {
                break;
            }
            seen.push(m.rate_bps(PEER));
        }
        // 48 Mb/s twice, 36 three times, 18 four times, 6 once: ten tries.
        let mb: Vec<u64> = seen.iter().map(|r| r / 1_000_000).collect();
        assert_eq!(mb, [48, 48, 36, 36, 36, 18, 18, 18, 18, 6]);
        assert_eq!(m.stations[0].failures, 10);
        m.gave_up(PEER, 2);
        assert_eq!(m.stations[0].failures, 0);
        assert!(m.may_retry(PEER));
    }

    /// Frames to one neighbour over a channel that delivers a try at each
    /// rate with probability `p[i]`, one try every `step_ns`; returns the
    /// rates of the frames' first tries.
    fn drive(m: &mut Minstrel, p: &[f64], frames: usize, step_ns: SimTime) -> Vec<u64> {
        let mut channel = Rng::new(9, Stream::Test, 1);
        let mut now = 0;
        let mut first = Vec::new();
        for _ in 0..frames {
            first.push(m.rate_bps(PEER));
            loop {
                now += step_ns;
                let i = m.rates.iter().position(|&r| r == m.rate_bps(PEER)).unwrap();
                if channel.uniform() < p[i] {
                    m.acknowledged(PEER, now);
                    break;
                }
                m.unacknowledged(PEER, now);
                if !m.may_retry(PEER) {
                    m.gave_up(PEER, now);
                    break;
                }
            }
        }
        first
    }

    #[test]
    fn it_settles_on_the_rate_of_highest_throughput_and_samples_one_frame_in_ten() {
        // 6-54 Mb/s: 36 Mb/s gets 90 % through (32.4 Mb/s of goodput), 24
        // Mb/s and slower every try, 48 Mb/s 30 % (14.4), 54 Mb/s nothing.
        let p = [1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.3, 0.0];
        let mut m = minstrel();
        let first = drive(&mut m, &p, 40_000, 500_000);
        let s = &m.stations[0];
        assert_eq!(m.rates[s.max_tp], 36_000_000);
        assert_eq!(m.rates[s.max_tp2], 24_000_000);
        // The most probable of the rates of 95 % or more: the fastest.
        assert_eq!(m.rates[s.max_prob], 24_000_000);
        let settled = &first[2_000..];
        let at_best = settled.iter().filter(|&&r| r == 36_000_000).count();
        let share = at_best as f64 / settled.len() as f64;
        println!("frames starting at 36 Mb/s: {share:.3}");
        // One frame in ten samples; a sampled rate slower than the best
        // waits behind it in the chain, so its frame starts at 36 too.
        assert!(share > 0.88 && share < 0.97, "{share}");
        let at_54 = settled.iter().filter(|&&r| r == 54_000_000).count();
        // 54 Mb/s, below 10 %, is sampled at most 4 times an update.
        let updates = (settled.len() as u64 * 500_000).div_ceil(MINSTREL_UPDATE_NS) as usize;
        assert!(at_54 <= 4 * updates * 2, "{at_54} in {updates} updates");
        assert!(at_54 > 0);
    }

    #[test]
    fn it_follows_the_channel_when_it_changes() {
        let mut m = minstrel();
        drive(&mut m, &[1.0; 8], 20_000, 500_000);
        assert_eq!(m.rates[m.stations[0].max_tp], 54_000_000);
        // Then only 12 Mb/s and slower get through.
        let first = drive(
            &mut m,
            &[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            20_000,
            500_000,
        );
        assert_eq!(m.rates[m.stations[0].max_tp], 12_000_000);
        let late = &first[10_000..];
        let share = late.iter().filter(|&&r| r == 12_000_000).count() as f64 / late.len() as f64;
        assert!(share > 0.85, "{share}");
    }

    #[test]
    fn the_sample_table_is_a_permutation_in_every_column() {
        let mut m = minstrel();
        let s = m.station(PEER, 0);
        for column in 0..SAMPLE_COLUMNS {
            let mut rates: Vec<u8> = s.table.iter().map(|row| row[column]).collect();
            rates.sort_unstable();
            assert_eq!(rates, (0..8).collect::<Vec<u8>>());
        }
    }
}
