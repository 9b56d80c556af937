//! Deterministic random-number streams.
//!
//! Every consumer draws from its own stream, seeded by
//! `derive_seed(master, purpose, id)`: SplitMix64 finalisers over the three
//! inputs. The function is fixed here (not std's hasher, whose algorithm may
//! change between Rust releases), so a seed gives the same draws on every
//! machine and release. The generator is xoshiro256++ (Blackman & Vigna).

/// What a stream is for. The discriminant is part of the seed derivation:
/// never reorder or renumber existing variants; append new ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Per-node 802.11 backoff draws.
    MacBackoff = 1,
    /// Per-node mobility (trajectories).
    Mobility = 2,
    /// Per-flow application randomness (start jitter).
    FlowStart = 3,
    /// Per-receiver draws of the channel: shadowing, then fading.
    Shadowing = 4,
    /// Initial placement (id 0).
    Placement = 5,
    /// Per-node routing-protocol jitter.
    Routing = 6,
    /// Per-loss-model draws.
    Loss = 7,
    /// Per-flow on-off source draws (burst lengths and idle times).
    OnOff = 8,
    /// Per-flow SCTP heartbeat jitter (id 2f for the sender, 2f + 1 for
    /// the receiver).
    SctpHeartbeat = 9,
    /// Per-flow TCP clock offset (ns-2.35's `boot_time_`), drawn only with
    /// `rto_rule = "ns2"`.
    TcpClock = 10,
    /// Per-node draws of `[radio] error_model`.
    BitErrors = 11,
    /// Per-node draws of `[mac] rate_control = "minstrel"` (its sample
    /// tables).
    RateControl = 12,
    /// Per-link time-correlated fading (`[radio] fading_doppler_hz`): the
    /// angles of each link's sinusoids (id: the two nodes).
    Fading = 13,
    /// Per-group draws of `[mobility] model = "rpgm"`: the walk of each
    /// group's reference point (id: the group).
    GroupMobility = 14,
    /// Tests only.
    Test = 999,
}

#[inline]
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The fixed seed-derivation function.
pub fn derive_seed(master: u64, purpose: Stream, id: u64) -> u64 {
    let a = splitmix64(master);
    let b = splitmix64(a ^ (purpose as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    splitmix64(b ^ id.wrapping_mul(0xA076_1D64_78BD_642F))
}

/// A xoshiro256++ generator.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream for (master seed, purpose, id).
    pub fn new(master: u64, purpose: Stream, id: u64) -> Self {
        Self::from_seed(derive_seed(master, purpose, id))
    }

    /// Expands one 64-bit seed into the 256-bit state with SplitMix64.
    pub fn from_seed(seed: u64) -> Self {
        let mut x = seed;
        let mut s = [0u64; 4];
        for w in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            *w = splitmix64(x.wrapping_sub(0x9E37_79B9_7F4A_7C15));
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Self { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform integer in [0, n); `n` must be > 0. Lemire's method, unbiased.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as u64
    }

    /// Exponential draw with the given mean (inversion).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Pareto draw with the given scale (the smallest value) and shape:
    /// `scale / U^(1/shape)`, whose mean is `scale × shape / (shape − 1)`
    /// for a shape above 1.
    pub fn pareto(&mut self, scale: f64, shape: f64) -> f64 {
        scale / (1.0 - self.uniform()).powf(1.0 / shape)
    }

    /// Standard normal draw (Box–Muller; one value per call, for simplicity).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// A `Gamma(shape, 1)` draw, `shape > 0`: for shape 1 the exponential
    /// (inversion); otherwise Marsaglia and Tsang's squeeze-and-reject
    /// method (ACM TOMS 26(3), 2000), with a shape below 1 raised by one
    /// and the draw multiplied by `U^(1/shape)`, as that paper shows.
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape == 1.0 {
            return self.exponential(1.0);
        }
        if shape < 1.0 {
            let g = self.gamma(shape + 1.0);
            return g * (1.0 - self.uniform()).powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = 1.0 - self.uniform(); // (0, 1]
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::new(1, Stream::MacBackoff, 3);
        let mut b = Rng::new(1, Stream::MacBackoff, 3);
        let mut c = Rng::new(1, Stream::MacBackoff, 4);
        let mut d = Rng::new(1, Stream::Mobility, 3);
        let mut e = Rng::new(2, Stream::MacBackoff, 3);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(va, vb);
        for other in [&mut c, &mut d, &mut e] {
            let v: Vec<u64> = (0..8).map(|_| other.next_u64()).collect();
            assert_ne!(va, v);
        }
    }

    const PINNED_SEED: u64 = 16_795_040_882_451_687_517;

    #[test]
    fn derivation_is_pinned() {
        // The derivation function is part of the reproducibility promise: a
        // change here changes every published result. Pin it.
        assert_eq!(
            derive_seed(1, Stream::MacBackoff, 0),
            derive_seed(1, Stream::MacBackoff, 0)
        );
        let mut r = Rng::new(42, Stream::Test, 0);
        let first = r.next_u64();
        let mut r2 = Rng::from_seed(derive_seed(42, Stream::Test, 0));
        assert_eq!(first, r2.next_u64());
        assert_eq!(derive_seed(0, Stream::Test, 0), PINNED_SEED);
    }

    #[test]
    fn uniform_and_below_are_in_range_and_roughly_uniform() {
        let mut r = Rng::new(9, Stream::Test, 1);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            counts[r.below(10) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn normal_has_unit_variance() {
        let mut r = Rng::new(3, Stream::Test, 2);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.02, "{var}");
    }
}
