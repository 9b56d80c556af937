//! Simulated time: `u64` nanoseconds since the start of the run (≈ 584 years).

/// A point in simulated time, or a duration, in nanoseconds.
pub type SimTime = u64;

pub const NS_PER_US: SimTime = 1_000;
pub const NS_PER_MS: SimTime = 1_000_000;
pub const NS_PER_S: SimTime = 1_000_000_000;

/// Converts seconds to nanoseconds, rounding to the nearest nanosecond.
/// Negative and NaN inputs give 0; the scenario validator rejects them first.
pub fn from_secs(s: f64) -> SimTime {
    if s.is_nan() || s <= 0.0 {
        0
    } else {
        (s * NS_PER_S as f64).round() as SimTime
    }
}

/// Converts nanoseconds to seconds (for reporting only).
pub fn to_secs(t: SimTime) -> f64 {
    t as f64 / NS_PER_S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_common_values() {
        assert_eq!(from_secs(1.0), NS_PER_S);
        assert_eq!(from_secs(0.000_020), 20 * NS_PER_US);
        assert_eq!(from_secs(360.0), 360 * NS_PER_S);
        assert_eq!(from_secs(-1.0), 0);
        assert_eq!(from_secs(f64::NAN), 0);
        assert_eq!(to_secs(1_500_000_000), 1.5);
    }
}
