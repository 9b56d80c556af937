//! Bianchi's saturation-throughput model of the 802.11 DCF
//! (G. Bianchi, "Performance analysis of the IEEE 802.11 distributed
//! coordination function", IEEE JSAC 18(3), 2000), for n stations in range
//! of each other, each always having a frame to send.
//!
//! τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)),  p = 1 − (1 − τ)^(n−1)
//! S = Ps·Ptr·E[P] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr(1 − Ps)·Tc)
//!
//! One deliberate refinement: after a failed exchange 802.11 stations defer
//! EIFS (= SIFS + ACK + DIFS) rather than DIFS, and the transmitters wait
//! out their response timeout; so Tc is taken to last until an ACK (basic
//! access) or CTS (RTS/CTS) would have ended, plus DIFS. Bianchi's original
//! Tc (frame + DIFS) ignores EIFS and overstates throughput when collisions
//! are frequent.

/// 802.11 DSSS parameters in seconds and bits per second.
#[derive(Debug, Clone, Copy)]
pub struct Dsss {
    pub slot: f64,
    pub sifs: f64,
    pub difs: f64,
    pub plcp: f64,
    pub data_rate: f64,
    pub basic_rate: f64,
    /// W = CWmin + 1.
    pub w: f64,
    /// Maximum backoff stage: CWmax + 1 = 2^m W.
    pub m: i32,
}

impl Default for Dsss {
    fn default() -> Self {
        Self {
            slot: 20e-6,
            sifs: 10e-6,
            difs: 50e-6,
            plcp: 192e-6,
            data_rate: 2e6,
            basic_rate: 1e6,
            w: 32.0,
            m: 5,
        }
    }
}

/// Solves the fixed point for τ (transmission probability per slot).
pub fn tau(n: u32, d: &Dsss) -> f64 {
    let f = |t: f64| {
        let p = 1.0 - (1.0 - t).powi(n as i32 - 1);
        let two_p = 2.0 * p;
        let model =
            2.0 * (1.0 - two_p) / ((1.0 - two_p) * (d.w + 1.0) + p * d.w * (1.0 - two_p.powi(d.m)));
        model - t
    };
    // f is positive at 0 and negative at 1: bisect.
    let (mut lo, mut hi) = (1e-9, 1.0 - 1e-9);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Saturation throughput in bit/s of application payload of `payload_bytes`
/// per frame, carried with `overhead_bytes` of UDP/IP/MAC headers + FCS.
pub fn saturation_bps(
    n: u32,
    payload_bytes: u32,
    overhead_bytes: u32,
    rts_cts: bool,
    d: &Dsss,
) -> f64 {
    let t = tau(n, d);
    let ptr = 1.0 - (1.0 - t).powi(n as i32);
    let ps = n as f64 * t * (1.0 - t).powi(n as i32 - 1) / ptr;
    let data = d.plcp + ((payload_bytes + overhead_bytes) * 8) as f64 / d.data_rate;
    let ctl = |bytes: u32| d.plcp + (bytes * 8) as f64 / d.basic_rate;
    let (ack, rts, cts) = (ctl(14), ctl(20), ctl(14));
    let (ts, tc) = if rts_cts {
        (
            rts + d.sifs + cts + d.sifs + data + d.sifs + ack + d.difs,
            rts + d.sifs + cts + d.difs,
        )
    } else {
        (data + d.sifs + ack + d.difs, data + d.sifs + ack + d.difs)
    };
    let payload_bits = (payload_bytes * 8) as f64;
    ps * ptr * payload_bits / ((1.0 - ptr) * d.slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_station_matches_the_collision_free_cycle() {
        // n = 1: τ = 2/(W+1); S = P / (Ts + σ(1−τ)/τ) = P / (Ts + 15.5 σ).
        let d = Dsss::default();
        let s = saturation_bps(1, 1000, 56, false, &d);
        let ts = 192e-6 + 1056.0 * 8.0 / 2e6 + 10e-6 + 304e-6 + 50e-6;
        let expect = 8000.0 / (ts + 15.5 * 20e-6);
        assert!((s - expect).abs() / expect < 1e-6, "{s} vs {expect}");
        assert!((s - 1.57e6).abs() < 0.01e6);
        let s_rts = saturation_bps(1, 1000, 56, true, &d);
        assert!((s_rts - 1.39e6).abs() < 0.01e6, "{s_rts}");
    }

    #[test]
    fn collision_probability_grows_with_n() {
        let d = Dsss::default();
        let p = |n: u32| 1.0 - (1.0 - tau(n, &d)).powi(n as i32 - 1);
        assert!(p(2) < p(5) && p(5) < p(10) && p(10) < p(20));
        // Bianchi (2000) Fig. 6 region: p ≈ 0.4 for n = 20 with W = 32, m = 5.
        assert!((0.3..0.5).contains(&p(20)), "{}", p(20));
    }
}
