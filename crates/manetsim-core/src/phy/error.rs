//! Bit errors from the signal-to-noise ratio (`[radio] error_model = "awgn"`).
//!
//! With the default `"none"`, a frame at or above the receive threshold is
//! decoded unless another frame overlaps it, as in ns-2.35: every rate
//! reaches equally far. With `"awgn"` a frame that passes those tests is
//! then received with the probability that none of its bits is in error on
//! an additive white Gaussian noise channel, given its received power, its
//! rate's modulation and coding, and its length. So a 54 Mb/s frame fails
//! where a 6 Mb/s one still gets through, and RTS, CTS and ACK frames at the
//! basic rate reach further than the data between them.
//!
//! The model, from textbook theory (each formula below names its source):
//! - **Noise**: thermal noise `k T B` at 290 K over the channel's width
//!   (22 MHz for DSSS and HR/DSSS, 20 MHz for OFDM), times the receiver's
//!   noise figure (`[radio] noise_figure_db`, 7 dB as ns-3's default).
//! - **DSSS** (1 and 2 Mb/s): Eb/N0 = SNR × B / bit rate (the spreading
//!   gain). DBPSK: `Pb = ½ exp(−Eb/N0)`. DQPSK with Gray coding: symbol
//!   error `Ps ≈ 2 Q(√(2 Es/N0) sin(π / (4√2)))` (the standard approximation
//!   for differential M-PSK, e.g. Goldsmith, *Wireless Communications*,
//!   table 6.1), one bit in error per symbol error.
//! - **CCK** (5.5 and 11 Mb/s): the words' 8 chips are built from the
//!   phase equations of IEEE 802.11b, clause 18.4.6.5. Ec/N0 = SNR × B /
//!   chip rate. The two bits of the common phase φ1 are DQPSK over the
//!   symbol's energy (8 Ec). The others (2 at 5.5 Mb/s, 6 at 11) pick one
//!   of the words sharing φ1; their error rate is the union bound over
//!   those words' pairs, each pair's error probability `Q(√(d² Ec / (2 N0)))`
//!   for words `d` apart, weighed by the bits that differ between them.
//!   The distances are computed here from the words, not taken from a
//!   table.
//! - **OFDM** (6-54 Mb/s): each coded bit sees the error rate of its
//!   subcarrier's modulation (BPSK and QPSK: `Q(√(2 Eb/N0))`; Gray-coded
//!   16- and 64-QAM: `(4 / k)(1 − 1/√M) Q(√(3 Es/N0 / (M − 1)))`), with the
//!   signal spread over the 52 occupied subcarriers of 312.5 kHz. The
//!   convolutional code (K = 7, generators 133 and 171 octal, punctured to
//!   2/3 and 3/4 as IEEE 802.11a, clause 17.3.5.6, prescribes) is decoded
//!   with hard decisions; the bit error rate is the union bound
//!   `Σ_d β_d P_d` over error events of output weight `d` (Proakis,
//!   *Digital Communications*, 8.2), with the information-weight spectrum
//!   `β_d` computed here from the generators and the puncturing pattern.
//! - **The frame**: its PLCP header at the header's modulation (48 bits at
//!   1 Mb/s DBPSK after a long preamble, at 2 Mb/s DQPSK after a short one;
//!   OFDM's 24-bit SIGNAL field at BPSK rate 1/2), then its bytes at its
//!   rate, bit errors taken as independent:
//!   `P(success) = (1 − Pb_header)^48 (1 − Pb)^(8 × bytes)`.
//!
//! - **Interference** ([`ErrorModel::frame_success_with`]): which frame a
//!   receiver keeps stays ns-2's capture rule; the weaker frames it
//!   captured during the reception then add their power to the noise for
//!   as long as each overlaps it, and so, with `[radio]
//!   interference_threshold_w`, do the frames too weak to be sensed.
//!
//! The world applies the model to every frame a node decodes, for itself
//! or overheard, at its faded power under `[radio] fading`; a captured
//! frame that outlasts its reception counts for the next one too. What it
//! leaves out: the sum of frames too weak to be sensed as a busy medium
//! (each frame is sensed, or not, on its own power, as in ns-2).

use crate::mac::Phy;

/// Boltzmann's constant (J/K).
pub const BOLTZMANN_J_PER_K: f64 = 1.380_649e-23;
/// The reference temperature of thermal noise (K).
pub const NOISE_TEMPERATURE_K: f64 = 290.0;
/// The width over which DSSS and HR/DSSS receivers see noise.
pub const DSSS_BANDWIDTH_HZ: f64 = 22e6;
/// The width over which OFDM receivers see noise.
pub const OFDM_BANDWIDTH_HZ: f64 = 20e6;
/// DSSS's and HR/DSSS's chip rate.
const CHIP_RATE_HZ: f64 = 11e6;
/// OFDM's occupied subcarriers (48 data, 4 pilots) and their spacing.
const OFDM_SUBCARRIERS: f64 = 52.0;
const OFDM_SUBCARRIER_SPACING_HZ: f64 = 312_500.0;
/// The PLCP header's bits (DSSS, HR/DSSS) and OFDM's SIGNAL field's.
const PLCP_HEADER_BITS: f64 = 48.0;
const OFDM_SIGNAL_BITS: f64 = 24.0;
/// Terms of the convolutional code's union bound, from its free distance.
const SPECTRUM_TERMS: u32 = 12;

/// A convolutional code rate of 802.11a's OFDM PHY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeRate {
    Half,
    TwoThirds,
    ThreeQuarters,
}

impl CodeRate {
    const ALL: [CodeRate; 3] = [CodeRate::Half, CodeRate::TwoThirds, CodeRate::ThreeQuarters];

    /// Which of the mother code's two outputs (generator 133, generator
    /// 171) are sent, for each input bit of the puncturing period.
    fn puncturing(self) -> &'static [(bool, bool)] {
        match self {
            CodeRate::Half => &[(true, true)],
            CodeRate::TwoThirds => &[(true, true), (true, false)],
            CodeRate::ThreeQuarters => &[(true, true), (true, false), (false, true)],
        }
    }
}

/// How a rate's bits go on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modulation {
    /// DSSS at 1 Mb/s.
    Dbpsk,
    /// DSSS at 2 Mb/s.
    Dqpsk,
    /// CCK carrying 4 (5.5 Mb/s) or 8 (11 Mb/s) bits a symbol.
    Cck { bits: u8 },
    /// OFDM with `bits` coded bits per subcarrier (1, 2, 4 or 6).
    Ofdm { bits: u8, code: CodeRate },
}

impl Modulation {
    /// The modulation of `rate_bps` under `phy`, or `None` when the PHY has
    /// no such rate (`"802.11"`'s DSSS runs at any rate, but only its and
    /// HR/DSSS's rates have a modulation).
    pub fn of(phy: Phy, rate_bps: u64) -> Option<Self> {
        let dsss = || match rate_bps {
            1_000_000 => Some(Modulation::Dbpsk),
            2_000_000 => Some(Modulation::Dqpsk),
            5_500_000 => Some(Modulation::Cck { bits: 4 }),
            11_000_000 => Some(Modulation::Cck { bits: 8 }),
            _ => None,
        };
        let ofdm = || {
            let (bits, code) = match rate_bps {
                6_000_000 => (1, CodeRate::Half),
                9_000_000 => (1, CodeRate::ThreeQuarters),
                12_000_000 => (2, CodeRate::Half),
                18_000_000 => (2, CodeRate::ThreeQuarters),
                24_000_000 => (4, CodeRate::Half),
                36_000_000 => (4, CodeRate::ThreeQuarters),
                48_000_000 => (6, CodeRate::TwoThirds),
                54_000_000 => (6, CodeRate::ThreeQuarters),
                _ => return None,
            };
            Some(Modulation::Ofdm { bits, code })
        };
        match phy {
            Phy::Dsss | Phy::HrDsss { .. } => dsss(),
            Phy::Ofdm => ofdm(),
            Phy::Erp { .. } => dsss().or_else(ofdm),
        }
    }

    fn is_ofdm(self) -> bool {
        matches!(self, Modulation::Ofdm { .. })
    }
}

/// The bit error model of one run: the noise, and the spectra of the codes.
#[derive(Debug, Clone)]
pub struct ErrorModel {
    noise_dsss_w: f64,
    noise_ofdm_w: f64,
    /// `(d, β_d)` of the convolutional code at each rate of `CodeRate::ALL`.
    spectra: [Vec<(u32, f64)>; 3],
    /// `ln C(n, k)` for every `n` up to the spectra's largest `d`, as
    /// [`ln_choose`] computes it (so each bound is the same to the bit),
    /// computed once rather than for each bit error rate.
    ln_binomials: Vec<Vec<f64>>,
    /// `(d², weight)` of CCK's union bound, with 4 and 8 bits a symbol.
    cck4: Vec<(f64, f64)>,
    cck8: Vec<(f64, f64)>,
    /// Success probabilities computed before, by (power, rate, bytes):
    /// a static network's links repeat them.
    cache: Vec<Option<(u64, u64, u32, f64)>>,
    /// For each modulation, the SNR above which even the longest frame
    /// (4,095 bytes) loses a bit with probability under 1e-12: a frame
    /// received above it is taken as error-free, with no bound computed.
    clean_snr: Vec<(Modulation, f64)>,
}

/// Every modulation of every PHY.
fn all_modulations() -> impl Iterator<Item = Modulation> {
    crate::mac::DSSS_RATES_BPS
        .iter()
        .chain(crate::mac::OFDM_RATES_BPS.iter())
        .filter_map(|&r| {
            Modulation::of(
                Phy::Erp {
                    short_preamble: false,
                },
                r,
            )
        })
}

const CACHE_SLOTS: usize = 4096;

impl ErrorModel {
    /// The model for a receiver with `noise_figure_db`.
    pub fn new(noise_figure_db: f64) -> Self {
        let f = 10f64.powf(noise_figure_db / 10.0);
        let kt = BOLTZMANN_J_PER_K * NOISE_TEMPERATURE_K;
        let spectra = CodeRate::ALL.map(|c| code_spectrum(c, SPECTRUM_TERMS));
        let max_d = spectra.iter().flatten().map(|&(d, _)| d).max().unwrap_or(0);
        let mut model = Self {
            noise_dsss_w: kt * DSSS_BANDWIDTH_HZ * f,
            noise_ofdm_w: kt * OFDM_BANDWIDTH_HZ * f,
            spectra,
            ln_binomials: (0..=max_d)
                .map(|n| (0..=n).map(|k| ln_choose(n, k)).collect())
                .collect(),
            cck4: cck_spectrum(4),
            cck8: cck_spectrum(8),
            cache: vec![None; CACHE_SLOTS],
            clean_snr: Vec::new(),
        };
        model.clean_snr = all_modulations()
            .map(|m| {
                // Bisection in dB: the bit error rate falls with the SNR.
                let (mut lo, mut hi) = (-20.0f64, 80.0f64);
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    let ber = model.bit_error_rate(m, 10f64.powf(mid / 10.0));
                    if ber * 4095.0 * 8.0 < 1e-12 {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                (m, 10f64.powf(hi / 10.0))
            })
            .collect();
        model
    }

    /// Whether a frame of `m` at `snr` is taken as error-free.
    fn clean(&self, m: Modulation, snr: f64) -> bool {
        self.clean_snr
            .iter()
            .find(|(k, _)| *k == m)
            .is_some_and(|&(_, at)| snr >= at)
    }

    /// The error model a scenario asks for, if any.
    pub fn from_scenario(radio: &crate::scenario::Radio) -> Option<Self> {
        match radio.error_model {
            crate::scenario::ErrorModelKind::None => None,
            crate::scenario::ErrorModelKind::Awgn => Some(Self::new(radio.noise_figure_db)),
        }
    }

    /// The noise power a receiver of `m` sees.
    pub fn noise_w(&self, m: Modulation) -> f64 {
        if m.is_ofdm() {
            self.noise_ofdm_w
        } else {
            self.noise_dsss_w
        }
    }

    /// The bit error rate of `m` at signal-to-noise ratio `snr` (linear,
    /// over the channel's width), at most 1/2.
    pub fn bit_error_rate(&self, m: Modulation, snr: f64) -> f64 {
        let ber = match m {
            Modulation::Dbpsk => {
                let ebn0 = snr * DSSS_BANDWIDTH_HZ / 1e6;
                0.5 * (-ebn0).exp()
            }
            Modulation::Dqpsk => dqpsk_ber(2.0 * snr * DSSS_BANDWIDTH_HZ / 2e6),
            Modulation::Cck { bits } => {
                let ecn0 = snr * DSSS_BANDWIDTH_HZ / CHIP_RATE_HZ;
                let spectrum = if bits == 4 { &self.cck4 } else { &self.cck8 };
                let words: f64 = spectrum
                    .iter()
                    .map(|&(d2, w)| w * q((d2 * ecn0 / 2.0).sqrt()))
                    .sum();
                2.0 / f64::from(bits) * dqpsk_ber(8.0 * ecn0) + words
            }
            Modulation::Ofdm { bits, code } => {
                let esn0 =
                    snr * OFDM_BANDWIDTH_HZ / (OFDM_SUBCARRIERS * OFDM_SUBCARRIER_SPACING_HZ);
                let p = subcarrier_ber(bits, esn0);
                let (ln_p, ln_q) = (p.ln(), (-p).ln_1p());
                let spectrum = &self.spectra[code as usize];
                spectrum
                    .iter()
                    .map(|&(d, beta)| {
                        beta * pairwise(d, ln_p, ln_q, &self.ln_binomials[d as usize])
                    })
                    .sum()
            }
        };
        ber.min(0.5)
    }

    /// The probability that a frame of `bytes` at `rate_bps`, received with
    /// `power_w`, has no bit in error (its PLCP header included). A rate
    /// without a modulation under `phy` (refused when the scenario is
    /// checked) is taken as error-free.
    pub fn frame_success(&mut self, phy: Phy, rate_bps: u64, bytes: u32, power_w: f64) -> f64 {
        let key = (power_w.to_bits(), rate_bps, bytes);
        let slot = (key
            .0
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(key.1 ^ (u64::from(key.2) << 40))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
            >> 52) as usize
            % CACHE_SLOTS;
        if let Some((p, r, b, s)) = self.cache[slot] {
            if (p, r, b) == key {
                return s;
            }
        }
        let s = self.compute_success(phy, rate_bps, bytes, power_w);
        self.cache[slot] = Some((key.0, key.1, key.2, s));
        s
    }

    fn compute_success(&self, phy: Phy, rate_bps: u64, bytes: u32, power_w: f64) -> f64 {
        let Some(m) = Modulation::of(phy, rate_bps) else {
            return 1.0;
        };
        let (header, header_bits) = header_of(phy, m, rate_bps);
        let (header_snr, snr) = (power_w / self.noise_w(header), power_w / self.noise_w(m));
        if self.clean(m, snr) && self.clean(header, header_snr) {
            return 1.0;
        }
        let header_ber = self.bit_error_rate(header, header_snr);
        let ber = self.bit_error_rate(m, snr);
        let log_success =
            header_bits * (-header_ber).ln_1p() + 8.0 * f64::from(bytes) * (-ber).ln_1p();
        log_success.exp()
    }

    /// [`Self::frame_success`] for a frame on the air from `start_ns` to
    /// `end_ns` that weaker frames overlapped (`interference`: each one's
    /// start, end and power): the frame is cut where each begins and ends,
    /// and each piece's bits see the SINR over it, the powers of the
    /// frames overlapping it added to the noise. The PLCP header fills the
    /// frame's first microseconds (its preamble and header, or OFDM's
    /// preamble and SIGNAL), the bytes the rest.
    #[allow(clippy::too_many_arguments)]
    pub fn frame_success_with(
        &mut self,
        phy: Phy,
        rate_bps: u64,
        bytes: u32,
        power_w: f64,
        start_ns: u64,
        end_ns: u64,
        interference: &[(u64, u64, f64)],
    ) -> f64 {
        if interference.is_empty() {
            return self.frame_success(phy, rate_bps, bytes, power_w);
        }
        let Some(m) = Modulation::of(phy, rate_bps) else {
            return 1.0;
        };
        let (header, header_bits) = header_of(phy, m, rate_bps);
        let header_end = (start_ns + plcp_ns(phy, rate_bps)).min(end_ns);
        let mut cuts: Vec<u64> = vec![start_ns, header_end, end_ns];
        for &(a, b, _) in interference {
            cuts.push(a.clamp(start_ns, end_ns));
            cuts.push(b.clamp(start_ns, end_ns));
        }
        cuts.sort_unstable();
        cuts.dedup();
        let payload_bits = 8.0 * f64::from(bytes);
        let overlap = |a: u64, b: u64, lo: u64, hi: u64| b.min(hi).saturating_sub(a.max(lo));
        let mut log_success = 0.0;
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let extra: f64 = interference
                .iter()
                .filter(|&&(s, e, _)| s <= a && e >= b)
                .map(|&(_, _, p)| p)
                .sum();
            let in_header = overlap(a, b, start_ns, header_end);
            if in_header > 0 {
                let sinr = power_w / (self.noise_w(header) + extra);
                let bits = header_bits * in_header as f64 / (header_end - start_ns) as f64;
                log_success += bits * (-self.bit_error_rate(header, sinr)).ln_1p();
            }
            let in_payload = overlap(a, b, header_end, end_ns);
            if in_payload > 0 {
                let sinr = power_w / (self.noise_w(m) + extra);
                let bits = payload_bits * in_payload as f64 / (end_ns - header_end) as f64;
                log_success += bits * (-self.bit_error_rate(m, sinr)).ln_1p();
            }
        }
        log_success.exp()
    }

    /// The least SNR (dB) at which a frame of `bytes` at `rate_bps` is lost
    /// with at most probability `per` (bisection; for tests and the docs).
    pub fn required_snr_db(&self, phy: Phy, rate_bps: u64, bytes: u32, per: f64) -> f64 {
        let m = Modulation::of(phy, rate_bps).expect("a rate of the PHY");
        let noise = self.noise_w(m);
        let (mut lo, mut hi) = (-20.0, 60.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let power = noise * 10f64.powf(mid / 10.0);
            if 1.0 - self.compute_success(phy, rate_bps, bytes, power) <= per {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }
}

/// How long the PLCP (preamble and header; OFDM's preamble and SIGNAL)
/// of a frame at `rate_bps` lasts.
fn plcp_ns(phy: Phy, rate_bps: u64) -> u64 {
    let dsss = |short: bool| {
        if short && rate_bps > 1_000_000 {
            96_000
        } else {
            192_000
        }
    };
    match phy {
        Phy::Dsss => 192_000,
        Phy::HrDsss { short_preamble } => dsss(short_preamble),
        Phy::Ofdm => 20_000,
        Phy::Erp { short_preamble } => {
            if crate::mac::DSSS_RATES_BPS.contains(&rate_bps) {
                dsss(short_preamble)
            } else {
                20_000
            }
        }
    }
}

/// The PLCP header's modulation and bits for a frame of `m` at `rate_bps`.
fn header_of(phy: Phy, m: Modulation, rate_bps: u64) -> (Modulation, f64) {
    if m.is_ofdm() {
        return (
            Modulation::Ofdm {
                bits: 1,
                code: CodeRate::Half,
            },
            OFDM_SIGNAL_BITS,
        );
    }
    let short = match phy {
        Phy::HrDsss { short_preamble } | Phy::Erp { short_preamble } => short_preamble,
        Phy::Dsss | Phy::Ofdm => false,
    };
    if short && rate_bps > 1_000_000 {
        (Modulation::Dqpsk, PLCP_HEADER_BITS)
    } else {
        (Modulation::Dbpsk, PLCP_HEADER_BITS)
    }
}

/// DQPSK's bit error rate at `esn0` (energy per symbol over N0), Gray
/// coded: half the symbol error rate `2 Q(√(2 Es/N0) sin(π / (4√2)))`.
fn dqpsk_ber(esn0: f64) -> f64 {
    let s = (std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2)).sin();
    q((2.0 * esn0).sqrt() * s)
}

/// A coded bit's error rate on a subcarrier carrying `bits` bits a symbol
/// at `esn0` (energy per symbol over N0).
fn subcarrier_ber(bits: u8, esn0: f64) -> f64 {
    match bits {
        // BPSK: Eb = Es. QPSK: two BPSKs in quadrature, Eb = Es / 2.
        1 => q((2.0 * esn0).sqrt()),
        2 => q(esn0.sqrt()),
        _ => {
            let m = f64::from(1u32 << bits);
            let k = f64::from(bits);
            (4.0 / k) * (1.0 - 1.0 / m.sqrt()) * q((3.0 * esn0 / (m - 1.0)).sqrt())
        }
    }
}

/// The probability that hard-decision Viterbi decoding prefers a path `d`
/// coded bits away from the right one, with coded bit error rate `p`
/// (`ln_p` = ln p, `ln_q` = ln(1 − p); `ln_binomials[k]` = ln C(d, k)).
fn pairwise(d: u32, ln_p: f64, ln_q: f64, ln_binomials: &[f64]) -> f64 {
    let mut sum = 0.0;
    let term =
        |k: u32| (ln_binomials[k as usize] + f64::from(k) * ln_p + f64::from(d - k) * ln_q).exp();
    for k in (d / 2 + 1)..=d {
        sum += term(k);
    }
    if d.is_multiple_of(2) {
        sum += 0.5 * term(d / 2);
    }
    sum
}

fn ln_choose(n: u32, k: u32) -> f64 {
    (1..=k)
        .map(|i| (f64::from(n - k + i) / f64::from(i)).ln())
        .sum()
}

/// The information-weight spectrum of 802.11a's convolutional code at
/// `rate`: `(d, β_d)` for the `terms` output weights from the free distance
/// on, where `β_d` is the total number of information bits in error over
/// the error events of output weight `d`, averaged over where in the
/// puncturing period an event starts. Found by following every path that
/// leaves the all-zero state until it returns to it or outweighs the last
/// term (the code is not catastrophic, so every path does one or the other).
pub fn code_spectrum(rate: CodeRate, terms: u32) -> Vec<(u32, f64)> {
    const G0: u32 = 0o133;
    const G1: u32 = 0o171;
    const STATES: usize = 64;
    let pattern = rate.puncturing();
    let period = pattern.len();
    // Generous: the free distance is at most 10.
    let max_d = 10 + 2 * terms as usize;
    let mut total = vec![0.0f64; max_d + 1];
    let parity = |x: u32| x.count_ones() & 1;
    for phase in 0..period {
        // (paths, their information bits in error) by state and weight.
        let mut paths = vec![vec![(0.0f64, 0.0f64); max_d + 1]; STATES];
        let mut step = phase;
        // The first input bit is a one: the path leaves state 0.
        {
            let reg = 1u32 << 6;
            let (a, b) = pattern[step % period];
            let w = (u32::from(a) * parity(reg & G0) + u32::from(b) * parity(reg & G1)) as usize;
            paths[(reg >> 1) as usize][w] = (1.0, 1.0);
            step += 1;
        }
        loop {
            let mut next = vec![vec![(0.0f64, 0.0f64); max_d + 1]; STATES];
            let mut alive = false;
            let (a, b) = pattern[step % period];
            for (state, row) in paths.iter().enumerate() {
                for (w, &(n, info)) in row.iter().enumerate() {
                    if n == 0.0 {
                        continue;
                    }
                    for u in 0..2u32 {
                        let reg = (u << 6) | state as u32;
                        let w2 = w
                            + (u32::from(a) * parity(reg & G0) + u32::from(b) * parity(reg & G1))
                                as usize;
                        if w2 > max_d {
                            continue;
                        }
                        let to = (reg >> 1) as usize;
                        let info2 = info + f64::from(u) * n;
                        if to == 0 {
                            total[w2] += info2;
                        } else {
                            let cell = &mut next[to][w2];
                            cell.0 += n;
                            cell.1 += info2;
                            alive = true;
                        }
                    }
                }
            }
            paths = next;
            step += 1;
            if !alive {
                break;
            }
        }
    }
    let d_free = total
        .iter()
        .position(|&b| b > 0.0)
        .expect("a free distance");
    (d_free..=max_d)
        .take(terms as usize)
        .map(|d| (d as u32, total[d] / period as f64))
        .filter(|&(_, b)| b > 0.0)
        .collect()
}

/// CCK's code words with `bits` bits a symbol (4: 5.5 Mb/s, 8: 11 Mb/s),
/// each with its bits, as IEEE 802.11b's clause 18.4.6.5 builds them: the
/// first two bits pick φ1 (Gray-coded, as DQPSK: 00 → 0, 01 → π/2,
/// 11 → π, 10 → 3π/2); at 11 Mb/s each further pair picks φ2, φ3 and φ4
/// (00 → 0, 01 → π/2, 10 → π, 11 → 3π/2); at 5.5 Mb/s φ2 = d2 π + π/2,
/// φ3 = 0 and φ4 = d3 π. The eight chips are
/// `e^{j(φ1+φ2+φ3+φ4)}, e^{j(φ1+φ3+φ4)}, e^{j(φ1+φ2+φ4)}, −e^{j(φ1+φ4)},
/// e^{j(φ1+φ2+φ3)}, e^{j(φ1+φ3)}, −e^{j(φ1+φ2)}, e^{jφ1}`.
/// Phases are kept in quarter turns, so the chips are exact.
fn cck_words(bits: u8) -> Vec<(u32, [(i32, i32); 8])> {
    let gray = |d: u32| match d {
        0b00 => 0,
        0b01 => 1,
        0b11 => 2,
        _ => 3,
    };
    let words = 1u32 << bits;
    (0..words)
        .map(|v| {
            let phi1 = gray(v >> (bits - 2));
            let (phi2, phi3, phi4) = if bits == 8 {
                ((v >> 4) & 3, (v >> 2) & 3, v & 3)
            } else {
                let d2 = (v >> 1) & 1;
                let d3 = v & 1;
                (2 * d2 + 1, 0, 2 * d3)
            };
            let chip = |quarters: u32, negate: bool| {
                let (re, im) = match quarters % 4 {
                    0 => (1, 0),
                    1 => (0, 1),
                    2 => (-1, 0),
                    _ => (0, -1),
                };
                if negate {
                    (-re, -im)
                } else {
                    (re, im)
                }
            };
            let c = [
                chip(phi1 + phi2 + phi3 + phi4, false),
                chip(phi1 + phi3 + phi4, false),
                chip(phi1 + phi2 + phi4, false),
                chip(phi1 + phi4, true),
                chip(phi1 + phi2 + phi3, false),
                chip(phi1 + phi3, false),
                chip(phi1 + phi2, true),
                chip(phi1, false),
            ];
            (v, c)
        })
        .collect()
}

/// CCK's union bound on the error rate of the bits that pick the word
/// (all but φ1's two, which are detected differentially, as DQPSK over the
/// symbol's 8 chips), as `(d², weight)` pairs: their share of the bit
/// error rate is `Σ weight × Q(√(d² Ec / (2 N0)))`, `d²` the squared
/// distance between two words with the same φ1, in units of a chip's
/// energy, the weight the bits that differ between them summed over all
/// such pairs and divided by the words and their bits.
fn cck_spectrum(bits: u8) -> Vec<(f64, f64)> {
    let words = cck_words(bits);
    let phi1 = |v: u32| v >> (bits - 2);
    let mut by_d2 = std::collections::BTreeMap::<i32, f64>::new();
    for (i, ci) in &words {
        for (j, cj) in &words {
            if i == j || phi1(*i) != phi1(*j) {
                continue;
            }
            let d2: i32 = ci
                .iter()
                .zip(cj.iter())
                .map(|(a, b)| (a.0 - b.0).pow(2) + (a.1 - b.1).pow(2))
                .sum();
            *by_d2.entry(d2).or_default() += f64::from((i ^ j).count_ones());
        }
    }
    let norm = words.len() as f64 * f64::from(bits);
    by_d2
        .into_iter()
        .map(|(d2, w)| (f64::from(d2), w / norm))
        .collect()
}

/// The Gaussian tail `Q(x) = P(N(0, 1) > x)`.
pub fn q(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// The complementary error function, to about 1e-13 relative: below 2 from
/// the series `erf x = 2/√π e^{−x²} Σ 2^n x^{2n+1} / (1·3·…·(2n+1))` (all
/// terms positive), above from the continued fraction
/// `erfc x = e^{−x²}/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …))))`.
pub fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x > 27.0 {
        return 0.0;
    }
    let e = (-x * x).exp() / std::f64::consts::PI.sqrt();
    if x < 2.0 {
        let x2 = 2.0 * x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= x2 / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - 2.0 * e * sum
    } else {
        // Fewer terms as x grows: 60 at 2, about 12 beyond 6.
        let terms = (120.0 / x) as i32 + 6;
        let mut f = x;
        for k in (1..=terms).rev() {
            f = x + f64::from(k) / 2.0 / f;
        }
        e / f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn erfc_matches_known_values() {
        // erfc at 0, 0.5, 1, 2, 3, 5 and 10 (tabulated to 15 digits).
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_1),
            // Just below 2, where the method changes: erfc(2) + 1e-6 × 2/√π e^−4.
            (1.999_999, 0.004_677_755_648_032),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544e-5),
            (5.0, 1.537_459_794_428_035e-12),
            (10.0, 2.088_487_583_762_545e-45),
        ] {
            assert!(close(erfc(x), want, 1e-9), "erfc({x}) = {}", erfc(x));
        }
        assert!(close(erfc(-1.0), 2.0 - 0.157_299_207_050_285_1, 1e-12));
        // Q(1.2816) is the 90th percentile's tail.
        assert!(close(q(1.281_551_565_5), 0.1, 1e-8));
    }

    #[test]
    fn the_rate_half_code_has_the_published_spectrum() {
        // K = 7 (133, 171): free distance 10; β = 36, 211, 1404, 11633 at
        // d = 10, 12, 14, 16, and no odd weights.
        let s = code_spectrum(CodeRate::Half, 8);
        assert_eq!(s[0], (10, 36.0));
        assert_eq!(s[1], (12, 211.0));
        assert_eq!(s[2], (14, 1404.0));
        assert_eq!(s[3], (16, 11633.0));
        assert!(s.iter().all(|&(d, _)| d.is_multiple_of(2)), "{s:?}");
    }

    #[test]
    fn the_punctured_codes_have_the_published_spectra() {
        // Free distance 6 at 2/3 and 5 at 3/4, and the information weights
        // of the first five distances as published for the whole puncturing
        // period (Haccoun and Bégin, IEEE Trans. Commun. 37(11), 1989):
        // 3, 70, 285, 1276, 6160 over 2 bits; 42, 201, 1492, 10469, 62935
        // over 3.
        for (rate, d_free, published, period) in [
            (
                CodeRate::TwoThirds,
                6,
                [3.0, 70.0, 285.0, 1276.0, 6160.0],
                2.0,
            ),
            (
                CodeRate::ThreeQuarters,
                5,
                [42.0, 201.0, 1492.0, 10469.0, 62935.0],
                3.0,
            ),
        ] {
            let s = code_spectrum(rate, 5);
            for (k, (&(d, beta), want)) in s.iter().zip(published).enumerate() {
                assert_eq!(d, d_free + k as u32, "{rate:?}");
                assert!(close(beta * period, want, 1e-12), "{rate:?} d={d}: {beta}");
            }
        }
    }

    #[test]
    fn ofdm_needs_the_snr_the_standard_sensitivities_imply() {
        // IEEE 802.11a's minimum sensitivities (PER ≤ 10 % with 1000-byte
        // frames) assume a 10 dB noise figure and a 5 dB implementation
        // margin: each is kTB (-100.97 dBm over 20 MHz) + 15 dB + the SNR
        // the rate needs. The model's SNRs lie within 1.5 dB of those.
        let m = ErrorModel::new(7.0);
        let sensitivity_dbm = [-82.0, -81.0, -79.0, -77.0, -74.0, -70.0, -66.0, -65.0];
        let ktb_dbm = 10.0 * (BOLTZMANN_J_PER_K * NOISE_TEMPERATURE_K * 20e6 * 1e3).log10();
        let mut last = f64::MIN;
        for (&rate, sens) in crate::mac::OFDM_RATES_BPS.iter().zip(sensitivity_dbm) {
            let snr_db = m.required_snr_db(Phy::Ofdm, rate, 1000, 0.1);
            let implied = sens - ktb_dbm - 15.0;
            assert!(
                (snr_db - implied).abs() <= 1.5,
                "{rate} b/s: {snr_db:.2} dB against {implied:.2}"
            );
            assert!(snr_db > last, "{rate} b/s needs more than the rate below");
            last = snr_db;
        }
    }

    #[test]
    fn dsss_rates_need_more_snr_as_they_rise() {
        // 1 Mb/s -3.1 dB, 2 Mb/s 1.7, 5.5 Mb/s 2.8, 11 Mb/s 4.1 (1024 bytes,
        // PER 8 %, the point 802.11b specifies its sensitivity at).
        let m = ErrorModel::new(7.0);
        let phy = Phy::HrDsss {
            short_preamble: false,
        };
        let need: Vec<f64> = crate::mac::DSSS_RATES_BPS
            .iter()
            .map(|&r| m.required_snr_db(phy, r, 1024, 0.08))
            .collect();
        for (got, want) in need.iter().zip([-3.09, 1.72, 2.77, 4.09]) {
            assert!((got - want).abs() < 0.01, "{need:?}");
        }
        // CCK's words: at 5.5 Mb/s those sharing φ1 lie 4 chips apart
        // (d² = 16 chip energies), at 11 Mb/s as close as d² = 8.
        assert_eq!(cck_spectrum(4), vec![(16.0, 1.0)]);
        assert_eq!(cck_spectrum(8)[0].0, 8.0);
    }

    #[test]
    fn a_frame_fails_more_the_longer_and_faster_it_is() {
        let mut m = ErrorModel::new(7.0);
        let noise = m.noise_w(Modulation::Dbpsk);
        let phy = Phy::HrDsss {
            short_preamble: false,
        };
        // At 1 dB SNR: 1 Mb/s gets through, 11 Mb/s does not; and at 4 dB
        // a longer frame at 11 Mb/s fails more often than a short one.
        let p = noise * 10f64.powf(0.1);
        assert!(m.frame_success(phy, 1_000_000, 1500, p) > 0.999);
        assert!(m.frame_success(phy, 11_000_000, 1500, p) < 0.01);
        let edge = noise * 10f64.powf(0.4);
        let short = m.frame_success(phy, 11_000_000, 100, edge);
        let long = m.frame_success(phy, 11_000_000, 1500, edge);
        assert!(short > long && long > 0.0, "{short} {long}");
        // The cache answers as the computation does.
        assert_eq!(m.frame_success(phy, 11_000_000, 1500, edge), long);
        assert_eq!(m.compute_success(phy, 11_000_000, 1500, edge), long);
    }

    #[test]
    fn cck_words_are_distinct_with_eight_unit_chips() {
        for bits in [4u8, 8] {
            let words = cck_words(bits);
            assert_eq!(words.len(), 1 << bits);
            let mut seen = std::collections::HashSet::new();
            for (_, c) in &words {
                assert!(c.iter().all(|&(re, im)| re * re + im * im == 1));
                assert!(seen.insert(*c), "two values share a word");
            }
            // The union bound's least distance is positive, its weights too.
            let s = cck_spectrum(bits);
            assert!(s[0].0 > 0.0 && s.iter().all(|&(_, w)| w > 0.0));
        }
    }

    #[test]
    fn the_bit_error_rate_falls_with_the_snr_at_every_rate() {
        let m = ErrorModel::new(7.0);
        // Every one of the 12 rates has its modulation.
        let all: Vec<Modulation> = all_modulations().collect();
        assert_eq!(all.len(), 12);
        for mo in all {
            let mut last = 0.5;
            for db in -10..40 {
                let snr = 10f64.powf(f64::from(db) / 10.0);
                let ber = m.bit_error_rate(mo, snr);
                assert!(ber <= last && ber >= 0.0, "{mo:?} at {db} dB: {ber}");
                last = ber;
            }
            assert!(last < 1e-12, "{mo:?}: {last}");
        }
    }

    #[test]
    fn dbpsk_is_the_textbook_formula() {
        // At Eb/N0 = 10 (10 dB): ½ e^−10.
        let m = ErrorModel::new(7.0);
        let ber = m.bit_error_rate(Modulation::Dbpsk, 10.0 / 22.0);
        assert!(close(ber, 0.5 * (-10f64).exp(), 1e-12));
    }

    #[test]
    fn an_overlapping_frame_lowers_the_sinr_for_as_long_as_it_lasts() {
        let mut m = ErrorModel::new(7.0);
        let phy = Phy::Ofdm;
        let bpsk = Modulation::Ofdm {
            bits: 1,
            code: CodeRate::Half,
        };
        let qam64 = Modulation::of(phy, 54_000_000).unwrap();
        let noise = m.noise_w(bpsk);
        // A 1000-byte frame at 54 Mb/s, 30 dB above the noise: 176 µs.
        let p = noise * 1e3;
        let (start, end) = (1_000_000, 1_176_000);
        let clean = m.frame_success(phy, 54_000_000, 1000, p);
        assert!(clean > 0.999_999);
        // No interference: the same as without the pieces.
        assert_eq!(
            m.frame_success_with(phy, 54_000_000, 1000, p, start, end, &[]),
            clean
        );
        // A frame 12 dB weaker over all of it: 18 dB SINR, too little for
        // 54 Mb/s (about 21 dB), plenty for 6 Mb/s (2.5 dB).
        let whole = [(0, 2_000_000, p / 10f64.powf(1.2))];
        let fast = m.frame_success_with(phy, 54_000_000, 1000, p, start, end, &whole);
        let slow = m.frame_success_with(phy, 6_000_000, 1000, p, start, end, &whole);
        assert!(fast < 0.05 && slow > 0.999_999, "{fast} {slow}");
        // Over 15.6 µs of the 156 µs after the header: a tenth of the
        // bytes' bits see 18 dB, the rest and the SIGNAL field 30.
        let tenth = [(start + 100_000, start + 115_600, p / 10f64.powf(1.2))];
        let part = m.frame_success_with(phy, 54_000_000, 1000, p, start, end, &tenth);
        let ln_ok = |mo, snr| (-m.bit_error_rate(mo, snr)).ln_1p();
        let pieces = (800.0 * ln_ok(qam64, 1e3 / (1.0 + 1e3 / 10f64.powf(1.2)))
            + 7200.0 * ln_ok(qam64, 1e3)
            + 24.0 * ln_ok(bpsk, 1e3))
        .exp();
        assert!(close(part, pieces, 1e-9), "{part} {pieces}");
        assert!(fast < part && part < clean);
        // Two at once add up: 15 dB each is 12 dB together.
        let two = [
            (0, 2_000_000, p / 10f64.powf(1.5)),
            (0, 2_000_000, p / 10f64.powf(1.5)),
        ];
        let both = m.frame_success_with(phy, 54_000_000, 1000, p, start, end, &two);
        assert!(close(both, fast, 0.05), "{both} {fast}");
    }

    #[test]
    fn a_frame_far_above_the_noise_is_error_free_and_just_below_is_nearly() {
        let mut m = ErrorModel::new(7.0);
        for (phy, rate) in [
            (Phy::Ofdm, 54_000_000),
            (Phy::Ofdm, 6_000_000),
            (
                Phy::HrDsss {
                    short_preamble: true,
                },
                11_000_000,
            ),
            (Phy::Dsss, 1_000_000),
        ] {
            let mo = Modulation::of(phy, rate).unwrap();
            let at = m.clean_snr.iter().find(|(k, _)| *k == mo).unwrap().1;
            let noise = m.noise_w(mo);
            assert_eq!(m.frame_success(phy, rate, 4095, noise * at * 1.01), 1.0);
            // Just below, the bound is computed: a loss under 1e-11.
            let below = m.frame_success(phy, rate, 4095, noise * at * 0.99);
            assert!(below < 1.0 && below > 1.0 - 1e-11, "{mo:?}: {below}");
        }
    }

    #[test]
    fn noise_is_thermal_noise_over_the_width_and_the_figure() {
        // kT at 290 K is -173.98 dBm/Hz; + 10 log10(20 MHz) + 7 dB = -93.96 dBm.
        let m = ErrorModel::new(7.0);
        let ofdm = Modulation::Ofdm {
            bits: 1,
            code: CodeRate::Half,
        };
        let dbm = 10.0 * (m.noise_w(ofdm) * 1e3).log10();
        assert!((dbm - (-93.965)).abs() < 0.001, "{dbm}");
    }
}
