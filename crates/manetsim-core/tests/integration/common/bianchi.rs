//! Bianchi's saturation-throughput model of the 802.11 DCF
//! (G. Bianchi, "Performance analysis of the IEEE 802.11 distributed
//! coordination function", IEEE JSAC 18(3), 2000), for n stations in range
//! of each other, each always having a frame to send.
//!
//! τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)),  p = 1 − (1 − τ)^(n−1)
//! S = Ps·Ptr·E[P] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr(1 − Ps)·Tc)
//!
//! One deliberate refinement: after a failed exchange the transmitters wait
//! out their response timeout and the others defer EIFS (= SIFS + ACK +
//! DIFS), after which the MAC, as ns-2.35's `Mac/802_11` does, waits DIFS
//! more before its backoff counts again (its EIFS is a NAV, and a backoff
//! resumes DIFS after the NAV; IEEE 802.11 counts from the end of EIFS, as
//! the MAC does with `[mac] eifs_rule = "standard"`). So Tc lasts until an
//! ACK (basic access) or CTS (RTS/CTS) would have ended, plus two DIFS (one
//! with the standard's rule). Bianchi's original Tc (frame + DIFS) ignores EIFS and
//! overstates throughput when collisions are frequent. Without the second
//! DIFS, the model was 3.3-5.6 % above the MAC with 5 and 20 stations at
//! 802.11a's and 802.11g's OFDM rates (whose collisions are short beside
//! DIFS), 1.5-2.2 % at 802.11b's 11 Mb/s and 0.4-0.6 % at 802.11's 2 Mb/s;
//! with it, 1.6-2.5 %, 0.6-1.7 % and 0.2-0.4 %.

/// How long a frame is on the air: the standards' formulas, in seconds
/// (written apart from the MAC's integer nanoseconds, to check them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Airtime {
    /// 192 µs of PLCP, then the bits at the rate.
    Dsss,
    /// HR/DSSS with the short preamble: 96 µs of PLCP above 1 Mb/s, the
    /// bits' time rounded up to a whole microsecond.
    HrDsssShort,
    /// OFDM: 20 µs, then 4 µs symbols of rate × 4 µs bits carrying 22
    /// bits of SERVICE and tail beside the frame's; `extension` after it.
    Ofdm { extension: f64 },
}

impl Airtime {
    pub fn of(self, bytes: u32, rate: f64) -> f64 {
        let bits = f64::from(bytes * 8);
        match self {
            Airtime::Dsss => 192e-6 + bits / rate,
            Airtime::HrDsssShort => {
                let plcp = if rate > 1e6 { 96e-6 } else { 192e-6 };
                plcp + (bits / rate * 1e6 - 1e-9).ceil() * 1e-6
            }
            Airtime::Ofdm { extension } => {
                let per_symbol = rate * 4e-6;
                20e-6 + ((bits + 22.0) / per_symbol - 1e-9).ceil() * 4e-6 + extension
            }
        }
    }
}

/// An 802.11 PHY's DCF parameters in seconds and bits per second.
#[derive(Debug, Clone, Copy)]
pub struct Dcf {
    pub slot: f64,
    pub sifs: f64,
    pub difs: f64,
    pub airtime: Airtime,
    pub data_rate: f64,
    pub basic_rate: f64,
    /// W = CWmin + 1.
    pub w: f64,
    /// Maximum backoff stage: CWmax + 1 = 2^m W.
    pub m: i32,
    /// A backoff waits DIFS after EIFS (`[mac] eifs_rule = "ns2"`), not
    /// only EIFS (`"standard"`).
    pub difs_after_eifs: bool,
    /// The rate of the ACK that answers data, when not the basic rate
    /// (`[mac] response_rate = "standard"`); EIFS still counts an ACK at
    /// the basic rate.
    pub ack_rate: Option<f64>,
}

impl Default for Dcf {
    /// `"802.11"`: DSSS at 2 Mb/s, control frames at 1 Mb/s.
    fn default() -> Self {
        Self {
            slot: 20e-6,
            sifs: 10e-6,
            difs: 50e-6,
            airtime: Airtime::Dsss,
            data_rate: 2e6,
            basic_rate: 1e6,
            w: 32.0,
            m: 5,
            difs_after_eifs: true,
            ack_rate: None,
        }
    }
}

impl Dcf {
    /// `"802.11b"` with the short preamble.
    pub fn b_short(data_rate: f64, basic_rate: f64) -> Self {
        Self {
            airtime: Airtime::HrDsssShort,
            data_rate,
            basic_rate,
            ..Self::default()
        }
    }

    /// `"802.11a"`: slot 9 µs, SIFS 16 µs, CWmin 15 (m = 6 to reach 1023).
    pub fn a(data_rate: f64, basic_rate: f64) -> Self {
        Self {
            slot: 9e-6,
            sifs: 16e-6,
            difs: 34e-6,
            airtime: Airtime::Ofdm { extension: 0.0 },
            data_rate,
            basic_rate,
            w: 16.0,
            m: 6,
            difs_after_eifs: true,
            ack_rate: None,
        }
    }

    /// `"802.11g"` at OFDM rates: 802.11b's slot and SIFS, CWmin 15, and a
    /// 6 µs signal extension after each frame.
    pub fn g(data_rate: f64, basic_rate: f64) -> Self {
        Self {
            slot: 20e-6,
            sifs: 10e-6,
            difs: 50e-6,
            airtime: Airtime::Ofdm { extension: 6e-6 },
            ..Self::a(data_rate, basic_rate)
        }
    }
}

/// Solves the fixed point for τ (transmission probability per slot).
pub fn tau(n: u32, d: &Dcf) -> f64 {
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
    d: &Dcf,
) -> f64 {
    let t = tau(n, d);
    let ptr = 1.0 - (1.0 - t).powi(n as i32);
    let ps = n as f64 * t * (1.0 - t).powi(n as i32 - 1) / ptr;
    let data = d.airtime.of(payload_bytes + overhead_bytes, d.data_rate);
    let ctl = |bytes: u32| d.airtime.of(bytes, d.basic_rate);
    let (eifs_ack, rts, cts) = (ctl(14), ctl(20), ctl(14));
    let ack = d.ack_rate.map_or(eifs_ack, |r| d.airtime.of(14, r));
    // The others' wait after a collision: EIFS, and DIFS more as ns-2.35.
    let after = if d.difs_after_eifs { 2.0 } else { 1.0 } * d.difs;
    let (ts, tc) = if rts_cts {
        (
            rts + d.sifs + cts + d.sifs + data + d.sifs + ack + d.difs,
            rts + d.sifs + cts + after,
        )
    } else {
        (
            data + d.sifs + ack + d.difs,
            data + d.sifs + eifs_ack + after,
        )
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
        let d = Dcf::default();
        let s = saturation_bps(1, 1000, 56, false, &d);
        let ts = 192e-6 + 1056.0 * 8.0 / 2e6 + 10e-6 + 304e-6 + 50e-6;
        let expect = 8000.0 / (ts + 15.5 * 20e-6);
        assert!((s - expect).abs() / expect < 1e-6, "{s} vs {expect}");
        assert!((s - 1.57e6).abs() < 0.01e6);
        let s_rts = saturation_bps(1, 1000, 56, true, &d);
        assert!((s_rts - 1.39e6).abs() < 0.01e6, "{s_rts}");
    }

    #[test]
    fn the_airtimes_are_the_standards() {
        // 802.11a: an ACK at 6 Mb/s takes 44 µs, 1528 bytes at 54 Mb/s
        // 57 symbols.
        let a = Airtime::Ofdm { extension: 0.0 };
        assert!((a.of(14, 6e6) - 44e-6).abs() < 1e-12);
        assert!((a.of(1528, 54e6) - 248e-6).abs() < 1e-12);
        // 802.11b, short preamble: 1056 bytes at 11 Mb/s in 864 µs; 1000
        // bytes round up from 727.3 µs.
        let b = Airtime::HrDsssShort;
        assert!((b.of(1056, 11e6) - 864e-6).abs() < 1e-12);
        assert!((b.of(1000, 11e6) - (96e-6 + 728e-6)).abs() < 1e-12);
        assert!((b.of(14, 1e6) - 304e-6).abs() < 1e-12);
    }

    #[test]
    fn collision_probability_grows_with_n() {
        let d = Dcf::default();
        let p = |n: u32| 1.0 - (1.0 - tau(n, &d)).powi(n as i32 - 1);
        assert!(p(2) < p(5) && p(5) < p(10) && p(10) < p(20));
        // Bianchi (2000) Fig. 6 region: p ≈ 0.4 for n = 20 with W = 32, m = 5.
        assert!((0.3..0.5).contains(&p(20)), "{}", p(20));
    }
}
