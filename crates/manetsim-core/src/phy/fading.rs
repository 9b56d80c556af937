//! Nakagami-m fading: each frame's power at each receiver is the mean power
//! (the propagation model's, times its shadowing draw) times a draw of
//! `Gamma(m, 1/m)`, whose mean is 1. `m = 1` is Rayleigh fading (the power
//! exponential); a larger `m` fades less, a smaller (down to 1/2) more.
//!
//! As in ns-3's `NakagamiPropagationLossModel`, `m` may depend on the
//! distance between sender and receiver: `m0` below `distance1_m`, `m1`
//! below `distance2_m`, `m2` beyond. Each draw is independent: a frame's
//! fade holds for the whole frame (block fading) and is drawn afresh for
//! the next frame and for every other receiver.
//!
//! With a Doppler frequency ([`Jakes`], `[radio] fading_doppler_hz`),
//! Rayleigh fading is correlated in time instead: each link's gain is a sum
//! of sinusoids that drifts at up to the Doppler frequency, so that frames
//! close together fade alike.

use crate::engine::{Rng, Stream};
use crate::scenario;
use std::f64::consts::PI;

/// The fading of every link, by distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nakagami {
    /// `m` below `distances_m[0]`, below `distances_m[1]`, and beyond.
    pub m: [f64; 3],
    pub distances_m: [f64; 2],
}

impl Nakagami {
    /// Rayleigh fading: `m = 1` at every distance.
    pub const RAYLEIGH: Self = Self {
        m: [1.0; 3],
        distances_m: [0.0; 2],
    };

    /// The fading `[radio]` asks for, if any.
    pub fn from_scenario(r: &scenario::Radio) -> Option<Self> {
        match r.fading {
            scenario::Fading::None => None,
            scenario::Fading::Rayleigh => Some(Self::RAYLEIGH),
            scenario::Fading::Nakagami => Some(Self {
                m: [r.nakagami_m0, r.nakagami_m1, r.nakagami_m2],
                distances_m: [r.nakagami_distance1_m, r.nakagami_distance2_m],
            }),
        }
    }

    /// `m` for a link `d` metres long.
    #[inline]
    pub fn m_at(&self, d: f64) -> f64 {
        if d < self.distances_m[0] {
            self.m[0]
        } else if d < self.distances_m[1] {
            self.m[1]
        } else {
            self.m[2]
        }
    }

    /// The factor one frame's power is multiplied by, on a link `d` metres
    /// long: a `Gamma(m, 1/m)` draw.
    #[inline]
    pub fn draw(&self, d: f64, rng: &mut Rng) -> f64 {
        let m = self.m_at(d);
        rng.gamma(m) / m
    }

    /// The factor above the mean that a frame's power exceeds with
    /// probability `tail` on the link that fades most (the least `m`): what
    /// the search for listeners must allow for.
    pub fn boost(&self, tail: f64) -> f64 {
        let m = self.m.iter().copied().fold(f64::INFINITY, f64::min);
        // P(X > x) for X ~ Gamma(m, 1/m) is Q(m, m x); it falls with x.
        let (mut lo, mut hi) = (1.0, 2.0);
        while gamma_q(m, m * hi) > tail {
            hi *= 2.0;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if gamma_q(m, m * mid) > tail {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// Time-correlated Rayleigh fading by a sum of sinusoids: Clarke's model
/// (an isotropic scattering around a receiver moving at the speed the
/// Doppler frequency gives) as Zheng and Xiao simulate it ("Simulation
/// models with correct statistical properties for Rayleigh fading
/// channels", IEEE Trans. Commun. 51(6), 2003), the model ns-3's
/// `JakesPropagationLossModel` follows. A link's complex gain is
///
/// `X(t) = 2/√M Σₙ (cos ψₙ + j sin ψₙ) cos(ω_d t cos αₙ + φ)`,
/// `αₙ = (2πn − π + θ) / (4M)`, n = 1..M,
///
/// with `ω_d = 2π f_d`, and θ, φ and each ψₙ uniform on [−π, π); the
/// frame's power is multiplied by `|X(t)|² / 2`, whose mean is 1 and whose
/// distribution is close to the exponential (Rayleigh amplitudes). Two
/// samples τ apart are correlated as `J₀(ω_d τ)²` in power.
///
/// The angles of each link come from the run's seed and the two nodes,
/// whichever sends (the channel is reciprocal), so the gain is a function
/// of the link and the time alone: nothing is stored, and a run is the
/// same whatever order frames are computed in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jakes {
    pub doppler_hz: f64,
    seed: u64,
}

impl Jakes {
    /// The number of sinusoids M (ns-3's default `NumberOfOscillators`).
    pub const OSCILLATORS: u32 = 20;

    /// The time-correlated fading `[radio]` asks for, if any: Rayleigh
    /// fading with `fading_doppler_hz > 0`, its links drawn from `seed`.
    pub fn from_scenario(r: &scenario::Radio, seed: u64) -> Option<Self> {
        (r.fading == scenario::Fading::Rayleigh && r.fading_doppler_hz > 0.0).then_some(Self {
            doppler_hz: r.fading_doppler_hz,
            seed,
        })
    }

    /// The factor a frame's power on the link between nodes `a` and `b`
    /// is multiplied by at time `t_s` (the same either way).
    pub fn gain(&self, a: u32, b: u32, t_s: f64) -> f64 {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let mut rng = Rng::new(
            self.seed,
            Stream::Fading,
            (u64::from(lo) << 32) | u64::from(hi),
        );
        let mut angle = || PI * (2.0 * rng.uniform() - 1.0);
        let (theta, phi) = (angle(), angle());
        let m = f64::from(Self::OSCILLATORS);
        let w_t = 2.0 * PI * self.doppler_hz * t_s;
        let (mut re, mut im) = (0.0, 0.0);
        for n in 1..=Self::OSCILLATORS {
            let alpha = (2.0 * PI * f64::from(n) - PI + theta) / (4.0 * m);
            let wave = (w_t * alpha.cos() + phi).cos();
            let (sin_psi, cos_psi) = angle().sin_cos();
            re += cos_psi * wave;
            im += sin_psi * wave;
        }
        // |X|² / 2 with X's factor 2/√M: (4/M)(re² + im²) / 2.
        2.0 * (re * re + im * im) / m
    }
}

/// `ln Γ(x)` for `x > 0`: Stirling's series, after shifting `x` above 10 by
/// the recurrence `Γ(x + 1) = x Γ(x)` (error below 1e-13 there).
pub fn ln_gamma(x: f64) -> f64 {
    let mut shift = 0.0;
    let mut x = x;
    while x < 10.0 {
        shift -= x.ln();
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    // 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷) + 1/(1188x⁹).
    let series = inv
        * (1.0 / 12.0
            - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 * (1.0 / 1680.0 - inv2 / 1188.0))));
    shift + (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + series
}

/// The regularised upper incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)`
/// for `a > 0`, `x ≥ 0`: the probability that a `Gamma(a, 1)` draw exceeds
/// `x`. Below `x = a + 1` from the power series of the lower function,
/// above from its continued fraction (Legendre's), evaluated by Lentz's
/// method; both to about 1e-14.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        // P(a, x) = x^a e^-x / Γ(a) × Σ x^n / (a (a+1) … (a+n)).
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - front * sum).max(0.0)
    } else {
        // Q(a, x) = x^a e^-x / Γ(a) × 1 / (x + 1 − a − 1(1−a)/(x + 3 − a − …)).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        front * h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stream;
    use crate::phy::erfc;

    #[test]
    fn ln_gamma_matches_factorials_and_the_half() {
        let mut f = 1.0f64;
        for n in 1..30 {
            // Γ(n) = (n − 1)!
            let got = ln_gamma(n as f64);
            assert!((got - f.ln()).abs() < 1e-12 * f.ln().max(1.0), "Γ({n})");
            f *= n as f64;
        }
        let half = ln_gamma(0.5);
        assert!((half - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
        // Γ(1.5) = √π / 2.
        let got = ln_gamma(1.5);
        assert!((got - (std::f64::consts::PI.sqrt() / 2.0).ln()).abs() < 1e-13);
    }

    #[test]
    fn gamma_q_matches_closed_forms() {
        for i in 0..400 {
            let x = i as f64 * 0.1;
            // a = 1: e^-x. a = 2: (1 + x) e^-x. a = 3: (1 + x + x²/2) e^-x.
            let e = (-x).exp();
            for (a, want) in [
                (1.0, e),
                (2.0, (1.0 + x) * e),
                (3.0, (1.0 + x + x * x / 2.0) * e),
                // a = 1/2: erfc(√x).
                (0.5, erfc(x.sqrt())),
            ] {
                let got = gamma_q(a, x);
                assert!(
                    (got - want).abs() <= 1e-12 + 1e-9 * want,
                    "Q({a}, {x}) = {got}, expected {want}"
                );
            }
        }
    }

    /// The draws follow Gamma(m, 1/m): mean 1, variance 1/m, and their
    /// distribution within 1 % of the CDF everywhere (Kolmogorov–Smirnov;
    /// at 40,000 draws the 1 % critical value is 0.0082).
    #[test]
    fn draws_follow_the_gamma_distribution() {
        for m in [0.5, 0.75, 1.0, 1.5, 3.0, 7.25] {
            let f = Nakagami {
                m: [m; 3],
                distances_m: [80.0, 200.0],
            };
            let mut rng = Rng::new(3, Stream::Test, 0);
            let n = 40_000;
            let mut x: Vec<f64> = (0..n).map(|_| f.draw(100.0, &mut rng)).collect();
            let mean = x.iter().sum::<f64>() / n as f64;
            let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
            assert!((mean - 1.0).abs() < 0.02, "m {m}: mean {mean}");
            assert!((var * m - 1.0).abs() < 0.06, "m {m}: variance {var}");
            x.sort_by(f64::total_cmp);
            let ks = x
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let cdf = 1.0 - gamma_q(m, m * v);
                    (cdf - i as f64 / n as f64)
                        .abs()
                        .max((cdf - (i + 1) as f64 / n as f64).abs())
                })
                .fold(0.0, f64::max);
            assert!(ks < 0.0082, "m {m}: KS distance {ks}");
        }
    }

    #[test]
    fn m_follows_the_distance_as_in_ns3() {
        let f = Nakagami {
            m: [1.5, 0.75, 2.0],
            distances_m: [80.0, 200.0],
        };
        assert_eq!(f.m_at(0.0), 1.5);
        assert_eq!(f.m_at(79.99), 1.5);
        assert_eq!(f.m_at(80.0), 0.75);
        assert_eq!(f.m_at(199.9), 0.75);
        assert_eq!(f.m_at(200.0), 2.0);
        assert_eq!(f.m_at(5000.0), 2.0);
    }

    #[test]
    fn the_boost_is_the_tail_quantile_of_the_most_fading_link() {
        // Rayleigh: P(X > x) = e^-x, so the 3e-5 quantile is −ln 3e-5.
        let rayleigh = Nakagami {
            m: [1.0; 3],
            distances_m: [0.0; 2],
        };
        let b = rayleigh.boost(3e-5);
        assert!((b - (-(3e-5f64).ln())).abs() < 1e-9, "{b}");
        // ns-3's defaults: the least m, 0.75, sets it.
        let ns3 = Nakagami {
            m: [1.5, 0.75, 0.75],
            distances_m: [80.0, 200.0],
        };
        let b = ns3.boost(3e-5);
        assert!((gamma_q(0.75, 0.75 * b) - 3e-5).abs() < 1e-12);
        assert!(b > rayleigh.boost(3e-5));
    }

    /// Bessel's `J₀(x)` from its power series, for the tests (|x| < 10).
    fn bessel_j0(x: f64) -> f64 {
        let q = x * x / 4.0;
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..60 {
            term *= -q / (k as f64 * k as f64);
            sum += term;
        }
        sum
    }

    fn jakes(doppler_hz: f64, seed: u64) -> Jakes {
        Jakes { doppler_hz, seed }
    }

    #[test]
    fn bessel_j0_matches_its_tabled_values() {
        assert_eq!(bessel_j0(0.0), 1.0);
        assert!((bessel_j0(1.0) - 0.765_197_686_557_966_6).abs() < 1e-12);
        assert!(bessel_j0(2.404_825_557_695_773).abs() < 1e-12);
        assert!((bessel_j0(5.0) + 0.177_596_771_314_338_3).abs() < 1e-12);
    }

    #[test]
    fn a_links_gain_is_the_same_either_way_and_in_every_run() {
        let j = jakes(10.0, 7);
        for t in [0.0, 0.013, 1.5, 200.0] {
            assert_eq!(j.gain(3, 9, t), j.gain(9, 3, t));
            assert_eq!(j.gain(3, 9, t), jakes(10.0, 7).gain(3, 9, t));
        }
        // Other links, and other seeds, fade otherwise.
        assert_ne!(j.gain(3, 9, 0.5), j.gain(3, 10, 0.5));
        assert_ne!(j.gain(3, 9, 0.5), jakes(10.0, 8).gain(3, 9, 0.5));
    }

    /// Over many links the power is exponential with mean 1 (Rayleigh), as
    /// the independent draws of `fading = "rayleigh"` are.
    #[test]
    fn over_many_links_the_power_is_exponential() {
        let j = jakes(10.0, 1);
        let n = 40_000u32;
        let gains: Vec<f64> = (0..n).map(|i| j.gain(i, n + i, 3.7)).collect();
        let mean = gains.iter().sum::<f64>() / f64::from(n);
        assert!((mean - 1.0).abs() < 0.02, "{mean}");
        for x in [0.1, 0.5, 1.0, 2.0, 3.0] {
            let above = gains.iter().filter(|&&g| g > x).count() as f64 / f64::from(n);
            assert!((above - (-x).exp()).abs() < 0.01, "P(> {x}) = {above}");
        }
    }

    /// The correlation in power of two samples at ω_d t = `w_t` and
    /// `w_t + w_tau` that the sum of M sinusoids gives, its expectation over ψ taken exactly
    /// and over θ and φ on a grid: with `a`, `b` the sinusoids' values at
    /// the two times, E|A|²|B|² = Σa² Σb² + (Σab)² − Σa²b², whose last
    /// term, O(1/M) beside the others, is where a finite M departs from
    /// Clarke's `J₀²`.
    fn sum_of_sinusoids_correlation(w_t: f64, w_tau: f64) -> f64 {
        let m = Jakes::OSCILLATORS as usize;
        let grid = 240;
        let (mut g, mut g2, mut gg) = (0.0, 0.0, 0.0);
        for i in 0..grid {
            let theta = -PI + 2.0 * PI * (i as f64 + 0.5) / grid as f64;
            for k in 0..grid {
                let phi = -PI + 2.0 * PI * (k as f64 + 0.5) / grid as f64;
                let (mut aa, mut bb, mut ab, mut a4, mut a2b2) = (0.0, 0.0, 0.0, 0.0, 0.0);
                for n in 1..=m {
                    let alpha = (2.0 * PI * n as f64 - PI + theta) / (4.0 * m as f64);
                    let a = (w_t * alpha.cos() + phi).cos();
                    let b = ((w_t + w_tau) * alpha.cos() + phi).cos();
                    aa += a * a;
                    bb += b * b;
                    ab += a * b;
                    a4 += a.powi(4);
                    a2b2 += a * a * b * b;
                }
                let scale = 4.0 / (m * m) as f64;
                g += 2.0 / m as f64 * aa;
                g2 += scale * (2.0 * aa * aa - a4);
                gg += scale * (aa * bb + ab * ab - a2b2);
            }
        }
        let cells = (grid * grid) as f64;
        let (g, g2, gg) = (g / cells, g2 / cells, gg / cells);
        (gg - g * g) / (g2 - g * g)
    }

    /// Two samples of a link τ apart are correlated in power as the model
    /// says, over many links: within sampling error of the sum of 20
    /// sinusoids' own correlation, and within 0.05 of Clarke's
    /// `J₀(2π f_d τ)²` (the square of the complex gain's correlation, the
    /// gain being Gaussian), which the finite sum undershoots by 0.01-0.04.
    #[test]
    fn power_is_correlated_in_time_as_clarkes_model_says() {
        let j = jakes(10.0, 2);
        let n = 20_000u32;
        for w_tau in [0.25, 0.5, 1.0, 1.5, 2.405, 3.5, 5.0] {
            let tau = w_tau / (2.0 * PI * j.doppler_hz);
            let pairs: Vec<(f64, f64)> = (0..n)
                .map(|i| (j.gain(i, n + i, 1.0), j.gain(i, n + i, 1.0 + tau)))
                .collect();
            let k = f64::from(n);
            let (ma, mb) = pairs
                .iter()
                .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / k, b + y / k));
            let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
            for &(x, y) in &pairs {
                cov += (x - ma) * (y - mb);
                va += (x - ma) * (x - ma);
                vb += (y - mb) * (y - mb);
            }
            let rho = cov / (va * vb).sqrt();
            let model = sum_of_sinusoids_correlation(2.0 * PI * j.doppler_hz, w_tau);
            let clarke = bessel_j0(w_tau).powi(2);
            println!("ω τ = {w_tau}: {rho:.4}, the sum {model:.4}, Clarke {clarke:.4}");
            assert!(
                (rho - model).abs() < 0.02,
                "ω τ = {w_tau}: {rho} against the sum's {model}"
            );
            assert!(
                (rho - clarke).abs() < 0.05,
                "ω τ = {w_tau}: {rho} against Clarke's {clarke}"
            );
        }
    }

    /// How often a link's power falls through a level ρ² of its mean, and
    /// for how long it stays below: Rice's level-crossing rate
    /// `√(2π) f_d ρ e^(−ρ²)` and the mean fade `(e^(ρ²) − 1) / (ρ f_d √(2π))`.
    #[test]
    fn fades_cross_and_last_as_rices_formulas_say() {
        let j = jakes(5.0, 3);
        let (links, steps) = (400u32, 4_000u32);
        let dt = 1.0 / (100.0 * j.doppler_hz);
        for level in [0.1, 0.5] {
            let (mut crossings, mut below) = (0u32, 0u32);
            for l in 0..links {
                let mut was_below = j.gain(l, links + l, 0.0) < level;
                for step in 1..=steps {
                    let now_below = j.gain(l, links + l, f64::from(step) * dt) < level;
                    if now_below && !was_below {
                        crossings += 1;
                    }
                    below += u32::from(now_below);
                    was_below = now_below;
                }
            }
            let time = f64::from(links * steps) * dt;
            let rate = f64::from(crossings) / time;
            let rho = f64::sqrt(level);
            let want_rate = (2.0 * PI).sqrt() * j.doppler_hz * rho * (-level).exp();
            assert!(
                (rate / want_rate - 1.0).abs() < 0.05,
                "{level}: {rate} against {want_rate}"
            );
            let fade = f64::from(below) * dt / f64::from(crossings);
            let want_fade = (level.exp() - 1.0) / (rho * j.doppler_hz * (2.0 * PI).sqrt());
            assert!(
                (fade / want_fade - 1.0).abs() < 0.05,
                "{level}: {fade} against {want_fade}"
            );
        }
    }
}
