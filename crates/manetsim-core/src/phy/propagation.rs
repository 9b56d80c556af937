//! Propagation models, as ns-2 defines them (Gt = Gr = 1, omni antennas).
//!
//! - Free space (Friis): `Pr = Pt λ² / ((4π)² d² L)`.
//! - Two-ray ground: Friis up to the crossover distance `dc = 4π ht hr / λ`,
//!   then `Pr = Pt ht² hr² / (d⁴ L)` (ns-2 `TwoRayGround`).
//! - Log-normal shadowing: `Pr(d)[dB] = Pr_friis(d0)[dB] − 10 β log10(d/d0) + X`,
//!   `X ~ N(0, σ²)` in dB, drawn per frame and receiver (ns-2 `Shadowing`).
//!
//! Any of them may be followed by Nakagami-m fading ([`Nakagami`]), also
//! drawn per frame and receiver.
//!
//! With the WaveLAN defaults (0.28183815 W, 914 MHz, 1.5 m antennas),
//! two-ray ground gives a 250 m receive range at RXThresh 3.652e-10 W and a
//! 550 m carrier-sense range at CSThresh 1.559e-11 W.

use super::fading::{Jakes, Nakagami};
use crate::engine::Rng;
use crate::scenario;
use std::f64::consts::PI;

/// The speed of light (m/s), used for wavelength and propagation delay:
/// the physical value. ns-2.35 takes 3 × 10^8 (`SPEED_OF_LIGHT` in its
/// `propagation.h`), so its delays are 0.07 % shorter and its wavelength
/// 0.07 % longer (docs/fidelity.md, "Known differences").
pub const SPEED_OF_LIGHT_MPS: f64 = 299_792_458.0;

/// Propagation delay per metre, in ns.
const NS_PER_M: f64 = 1e9 / SPEED_OF_LIGHT_MPS;

/// The propagation delay over `d_m` metres (≥ 0), rounded to the nearest
/// ns: `d / c` in ns, computed as a product (a transmission computes one
/// per listener; the quotient's latency showed in profiles). Through i64,
/// exact for any delay below 2^63 ns: one instruction, where f64 → u64
/// takes a branch on x86-64 (and `f64::round` is a libm call).
#[inline]
pub fn propagation_delay_ns(d_m: f64) -> u64 {
    (d_m * NS_PER_M + 0.5) as i64 as u64
}

/// What rounding the propagation delay over `d_m` metres to `delay_ns`
/// ([`propagation_delay_ns`]) took away: -0.5 to 0.5 ns.
#[inline]
pub fn propagation_remainder_ns(d_m: f64, delay_ns: u64) -> f64 {
    d_m * NS_PER_M - delay_ns as f64
}

/// How many shadowing standard deviations above the mean a frame may still
/// be heard; bounds the search radius of the spatial index (P ≈ 3e-5).
const SHADOWING_CUTOFF_SIGMAS: f64 = 4.0;

/// The probability of a fade above which a frame may still be heard, the
/// same as [`SHADOWING_CUTOFF_SIGMAS`]'s: bounds the search radius under
/// fading.
const FADING_CUTOFF_TAIL: f64 = 3e-5;

/// Which propagation model, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Propagation {
    FreeSpace,
    TwoRayGround,
    Shadowing {
        path_loss_exponent: f64,
        std_db: f64,
        reference_distance_m: f64,
    },
}

/// Radio parameters shared by every node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadioParams {
    pub model: Propagation,
    pub tx_power_w: f64,
    pub wavelength_m: f64,
    pub antenna_height_m: f64,
    pub system_loss: f64,
    pub rx_threshold_w: f64,
    pub cs_threshold_w: f64,
    /// The weakest frame on the air: `[radio] interference_threshold_w`,
    /// or the carrier-sense threshold. A frame weaker than carrier sense
    /// but not than this only interferes (under a bit error model).
    pub interference_floor_w: f64,
    /// The powers the world's listeners' loop collects a frame's listeners
    /// down to: `cs_threshold_w` and `interference_floor_w`, or, under
    /// fading correlated in time, those over the largest gain counted, so
    /// that every listener a gain may lift over them is collected before
    /// its gain is applied ([`Self::correlate_fading`]).
    pub collect_cs_w: f64,
    pub collect_floor_w: f64,
    /// Capture ratio as a power factor (10 dB → 10.0); 0 under
    /// `capture_rule = "sinr"`, every newcomer captured
    /// ([`crate::mac::Dcf::new`]).
    pub capture_ratio: f64,
    /// Fading after the propagation model, if any.
    pub fading: Option<Nakagami>,
    /// Rayleigh fading correlated in time, if any, in place of `fading`'s
    /// independent draws (which it leaves `None`): set by the world with
    /// the run's seed ([`Self::correlate_fading`]); the world multiplies
    /// each listener's power by the link's gain ([`Jakes::gain`]).
    pub jakes: Option<Jakes>,
    /// The products of the parameters that every listener's power uses,
    /// computed once ([`Self::derive`]) with the operations in the order
    /// the formulas give them, so that each power is the same to the bit.
    derived: Derived,
}

/// See [`RadioParams::derived`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Derived {
    /// `Pt λ λ`, Friis's numerator.
    friis_num: f64,
    /// `λ²`, and the crossover `dc` squared times it: `(4π h²)²`.
    wavelength2: f64,
    crossover2: f64,
    /// `Pt h² h²`, two-ray ground's numerator.
    two_ray_num: f64,
}

impl RadioParams {
    pub fn from_scenario(r: &scenario::Radio) -> Self {
        let model = match r.propagation {
            scenario::Propagation::FreeSpace => Propagation::FreeSpace,
            scenario::Propagation::TwoRayGround => Propagation::TwoRayGround,
            scenario::Propagation::Shadowing => Propagation::Shadowing {
                path_loss_exponent: r.path_loss_exponent,
                std_db: r.shadowing_std_db,
                reference_distance_m: r.reference_distance_m,
            },
        };
        Self {
            model,
            tx_power_w: r.tx_power_w,
            wavelength_m: SPEED_OF_LIGHT_MPS / r.frequency_hz,
            antenna_height_m: r.antenna_height_m,
            system_loss: r.system_loss,
            rx_threshold_w: r.rx_threshold_w,
            cs_threshold_w: r.cs_threshold_w,
            interference_floor_w: r.interference_threshold_w.unwrap_or(r.cs_threshold_w),
            collect_cs_w: r.cs_threshold_w,
            collect_floor_w: r.interference_threshold_w.unwrap_or(r.cs_threshold_w),
            capture_ratio: match r.capture_rule {
                scenario::CaptureRule::Ns2 => 10f64.powf(r.capture_threshold_db / 10.0),
                scenario::CaptureRule::Sinr => 0.0,
            },
            fading: Nakagami::from_scenario(r),
            jakes: None,
            derived: Derived::default(),
        }
        .derive()
    }

    /// With `[radio] fading_doppler_hz`, Rayleigh fading correlated in
    /// time for a run of master seed `seed`: [`Self::jakes`] in place of
    /// [`Self::fading`]'s independent draws.
    pub fn correlate_fading(mut self, r: &scenario::Radio, seed: u64) -> Self {
        self.jakes = Jakes::from_scenario(r, seed);
        if self.jakes.is_some() {
            self.fading = None;
            // The gain the search for listeners allows for, as under
            // independent Rayleigh fading (a gain this large 3e-5 of the
            // time).
            let boost = Nakagami::RAYLEIGH.boost(FADING_CUTOFF_TAIL);
            self.collect_cs_w = self.cs_threshold_w / boost;
            self.collect_floor_w = self.interference_floor_w / boost;
        }
        self
    }

    /// Fills in [`Self::derived`] from the parameters.
    fn derive(mut self) -> Self {
        let (l, h2) = (
            self.wavelength_m,
            self.antenna_height_m * self.antenna_height_m,
        );
        let dc = 4.0 * PI * h2;
        self.derived = Derived {
            friis_num: self.tx_power_w * l * l,
            wavelength2: l * l,
            crossover2: dc * dc,
            two_ray_num: self.tx_power_w * h2 * h2,
        };
        self
    }

    fn friis(&self, d: f64) -> f64 {
        self.friis_sq(d * d)
    }

    /// Friis at the squared distance `d2`.
    fn friis_sq(&self, d2: f64) -> f64 {
        // Pt λ² / ((4π)² d² L), the numerator's products done once.
        self.derived.friis_num / ((4.0 * PI).powi(2) * d2 * self.system_loss)
    }

    /// The crossover distance of two-ray ground.
    pub fn crossover_m(&self) -> f64 {
        4.0 * PI * self.antenna_height_m * self.antenna_height_m / self.wavelength_m
    }

    /// Mean received power at distance `d` (no shadowing draw).
    pub fn mean_rx_power_w(&self, d: f64) -> f64 {
        match self.model {
            Propagation::FreeSpace | Propagation::TwoRayGround => self.mean_rx_power_sq_w(d * d),
            Propagation::Shadowing {
                path_loss_exponent,
                reference_distance_m,
                ..
            } => self.shadowing_mean_w(d, path_loss_exponent, reference_distance_m),
        }
    }

    /// [`Self::mean_rx_power_w`] at the squared distance `d2`, with no
    /// square root for free space and two-ray ground, whose powers fall
    /// with d² and d⁴ (a transmission computes one per listener).
    #[inline]
    pub fn mean_rx_power_sq_w(&self, d2: f64) -> f64 {
        let d2 = d2.max(1e-6);
        match self.model {
            Propagation::FreeSpace => self.friis_sq(d2),
            Propagation::TwoRayGround => {
                // d < dc, squared: dc² = (4π h²)² / λ².
                let k = &self.derived;
                if d2 * k.wavelength2 < k.crossover2 {
                    self.friis_sq(d2)
                } else {
                    // Pt h² h² / (d⁴ L).
                    k.two_ray_num / (d2 * d2 * self.system_loss)
                }
            }
            Propagation::Shadowing {
                path_loss_exponent,
                reference_distance_m,
                ..
            } => self.shadowing_mean_w(d2.sqrt(), path_loss_exponent, reference_distance_m),
        }
    }

    /// The shadowing model's mean power at distance `d`.
    fn shadowing_mean_w(&self, d: f64, path_loss_exponent: f64, reference_distance_m: f64) -> f64 {
        let d = d.max(1e-3);
        let pr0 = self.friis(reference_distance_m);
        if d <= reference_distance_m {
            // ns-2 applies the d0 power inside the reference distance.
            return pr0;
        }
        pr0 * (reference_distance_m / d).powf(path_loss_exponent)
    }

    /// Whether a frame's power at a receiver is drawn ([`Self::rx_power_w`]),
    /// not the mean power alone: under shadowing or fading.
    pub fn draws(&self) -> bool {
        matches!(self.model, Propagation::Shadowing { .. })
            || self.fading.is_some()
            || self.jakes.is_some()
    }

    /// Received power for one frame at distance `d`; draws from `rng` for
    /// the shadowing model (first) and for fading.
    pub fn rx_power_w(&self, d: f64, rng: &mut Rng) -> f64 {
        let shadowed = self.shadowed_w(d, rng);
        match &self.fading {
            Some(f) => shadowed * f.draw(d, rng),
            None => shadowed,
        }
    }

    /// The mean power at distance `d` times the shadowing model's draw
    /// from `rng` (none for the other models).
    fn shadowed_w(&self, d: f64, rng: &mut Rng) -> f64 {
        let mean = self.mean_rx_power_w(d);
        match self.model {
            Propagation::Shadowing { std_db, .. } if std_db > 0.0 => {
                mean * 10f64.powf(std_db * rng.normal() / 10.0)
            }
            _ => mean,
        }
    }

    /// The receive and carrier-sense ranges: the largest distances at which
    /// mean power reaches the receive and carrier-sense thresholds.
    pub fn ranges_m(&self) -> (f64, f64) {
        (
            self.range_for_threshold_m(self.rx_threshold_w),
            self.range_for_threshold_m(self.cs_threshold_w),
        )
    }

    /// The largest distance at which mean power reaches `threshold_w`
    /// (bisection; every model is monotone in distance).
    pub fn range_for_threshold_m(&self, threshold_w: f64) -> f64 {
        let (mut lo, mut hi) = (1e-3, 1.0);
        while self.mean_rx_power_w(hi) >= threshold_w && hi < 1e9 {
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.mean_rx_power_w(mid) >= threshold_w {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// A distance beyond which the mean power is surely below the weakest
    /// frame on the air ([`Self::interference_floor_w`], the carrier-sense
    /// threshold unless weaker frames interfere), so no receiver there
    /// needs its power computed; infinite for shadowing and fading, whose per-frame draws
    /// must not be skipped. Slightly above the exact threshold distance, as
    /// a margin for rounding (the models are monotone in distance).
    pub fn sense_cutoff_m(&self) -> f64 {
        if self.draws() {
            f64::INFINITY
        } else {
            self.range_for_threshold_m(self.interference_floor_w) * (1.0 + 1e-9)
        }
    }

    /// The radius beyond which no frame can reach the weakest power on the
    /// air ([`Self::interference_floor_w`]): the spatial index searches
    /// this far around a sender.
    /// Under shadowing, a frame this many standard deviations above the
    /// mean; under fading, a fade this likely ([`FADING_CUTOFF_TAIL`]); under
    /// both, the two together.
    pub fn max_interference_range_m(&self) -> f64 {
        let shadow = match self.model {
            Propagation::Shadowing { std_db, .. } => {
                10f64.powf(SHADOWING_CUTOFF_SIGMAS * std_db / 10.0)
            }
            _ => 1.0,
        };
        let fade = self
            .fading
            .or(self.jakes.map(|_| Nakagami::RAYLEIGH))
            .map_or(1.0, |f| f.boost(FADING_CUTOFF_TAIL));
        self.range_for_threshold_m(self.interference_floor_w / (shadow * fade))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stream;

    #[test]
    fn power_from_the_squared_distance_is_the_textbook_formula() {
        for model in [
            scenario::Propagation::TwoRayGround,
            scenario::Propagation::FreeSpace,
        ] {
            let p = wavelan(model);
            let dc = p.crossover_m();
            let h2 = p.antenna_height_m * p.antenna_height_m;
            let l = p.wavelength_m;
            for i in 1..20_000 {
                let d = i as f64 * 0.0731;
                let friis = p.tx_power_w * l * l / ((4.0 * PI).powi(2) * d * d * p.system_loss);
                let expect = match model {
                    scenario::Propagation::TwoRayGround if d >= dc => {
                        p.tx_power_w * h2 * h2 / (d.powi(4) * p.system_loss)
                    }
                    _ => friis,
                };
                let got = p.mean_rx_power_sq_w(d * d);
                assert!(
                    ((got - expect) / expect).abs() < 1e-12,
                    "{model:?} at {d} m: {got} vs {expect}"
                );
                assert_eq!(got, p.mean_rx_power_w(d));
            }
        }
    }

    #[test]
    fn propagation_delay_rounds_d_over_c_to_the_nearest_ns() {
        let mut rng = Rng::new(1, Stream::Test, 0);
        for _ in 0..200_000 {
            let d = rng.range(0.0, 20_000.0);
            let exact = d / SPEED_OF_LIGHT_MPS * 1e9;
            assert_eq!(propagation_delay_ns(d), exact.round() as u64, "{d} m");
        }
        assert_eq!(propagation_delay_ns(0.0), 0);
        // 250 m: 833.9 ns.
        assert_eq!(propagation_delay_ns(250.0), 834);
    }

    fn wavelan(model: scenario::Propagation) -> RadioParams {
        let r = scenario::Radio {
            propagation: model,
            ..Default::default()
        };
        RadioParams::from_scenario(&r)
    }

    #[test]
    fn two_ray_ground_gives_ns2_wavelan_ranges() {
        let p = wavelan(scenario::Propagation::TwoRayGround);
        let (rx, cs) = p.ranges_m();
        assert!((rx - 250.0).abs() < 0.5, "rx range {rx}");
        assert!((cs - 550.0).abs() < 1.0, "cs range {cs}");
        // Crossover ≈ 86.2 m at 914 MHz with 1.5 m antennas.
        assert!(
            (p.crossover_m() - 86.20).abs() < 0.01,
            "{}",
            p.crossover_m()
        );
    }

    #[test]
    fn weaker_frames_on_the_air_widen_the_search_by_the_models_law() {
        let r = scenario::Radio::default();
        let base = RadioParams::from_scenario(&r);
        assert_eq!(base.interference_floor_w, base.cs_threshold_w);
        let weak = RadioParams::from_scenario(&scenario::Radio {
            interference_threshold_w: Some(r.cs_threshold_w / 16.0),
            ..r
        });
        // Two-ray ground falls as d⁴ past the crossover: 16 times weaker
        // reaches twice as far.
        for (a, b) in [
            (base.sense_cutoff_m(), weak.sense_cutoff_m()),
            (
                base.max_interference_range_m(),
                weak.max_interference_range_m(),
            ),
        ] {
            assert!((b / a - 2.0).abs() < 1e-6, "{a} m → {b} m");
        }
        // The thresholds of sensing and decoding stay where they were.
        assert_eq!(weak.ranges_m(), base.ranges_m());
    }

    #[test]
    fn two_ray_is_continuous_enough_and_monotone() {
        let p = wavelan(scenario::Propagation::TwoRayGround);
        let mut last = f64::INFINITY;
        for i in 1..2000 {
            let pr = p.mean_rx_power_w(i as f64 * 0.5);
            assert!(pr <= last);
            last = pr;
        }
    }

    #[test]
    fn free_space_falls_with_square_of_distance() {
        let p = wavelan(scenario::Propagation::FreeSpace);
        let ratio = p.mean_rx_power_w(100.0) / p.mean_rx_power_w(200.0);
        assert!((ratio - 4.0).abs() < 1e-9);
        // Friis at 250 m exceeds two-ray there (two-ray falls as d⁴ past crossover).
        let t = wavelan(scenario::Propagation::TwoRayGround);
        assert!(p.mean_rx_power_w(250.0) > t.mean_rx_power_w(250.0));
    }

    #[test]
    fn shadowing_mean_in_db_matches_log_distance_law() {
        let p = wavelan(scenario::Propagation::Shadowing);
        let mut rng = Rng::new(1, Stream::Test, 0);
        let n = 20_000;
        let mean_db: f64 = (0..n)
            .map(|_| 10.0 * p.rx_power_w(100.0, &mut rng).log10())
            .sum::<f64>()
            / n as f64;
        let expect_db = 10.0 * p.mean_rx_power_w(100.0).log10();
        assert!(
            (mean_db - expect_db).abs() < 0.1,
            "{mean_db} vs {expect_db}"
        );
        assert!(p.max_interference_range_m() > p.range_for_threshold_m(p.cs_threshold_w));
    }
}
