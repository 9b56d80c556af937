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

use crate::engine::Rng;
use crate::scenario;

/// The fading of every link, by distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nakagami {
    /// `m` below `distances_m[0]`, below `distances_m[1]`, and beyond.
    pub m: [f64; 3],
    pub distances_m: [f64; 2],
}

impl Nakagami {
    /// The fading `[radio]` asks for, if any.
    pub fn from_scenario(r: &scenario::Radio) -> Option<Self> {
        match r.fading {
            scenario::Fading::None => None,
            scenario::Fading::Rayleigh => Some(Self {
                m: [1.0; 3],
                distances_m: [0.0; 2],
            }),
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
}
