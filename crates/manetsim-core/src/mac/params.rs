//! 802.11 DSSS timing (IEEE 802.11-1999 Table 15-1 and ns-2's `PHY_MIB`).

use crate::engine::{SimTime, NS_PER_US};
use crate::scenario;

/// Timing and policy parameters of the DCF, all times in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacParams {
    pub slot_ns: SimTime,
    pub sifs_ns: SimTime,
    pub difs_ns: SimTime,
    pub eifs_ns: SimTime,
    /// PLCP preamble + header, always sent at 1 Mb/s: 192 µs (long preamble).
    pub plcp_ns: SimTime,
    /// ns-2's `DSSS_MaxPropagationDelay` (2 µs), added to response timeouts.
    pub max_prop_delay_ns: SimTime,
    pub data_rate_bps: u64,
    pub basic_rate_bps: u64,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Unicast frames whose MSDU is at least this many bytes use RTS/CTS.
    pub rts_threshold_bytes: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
}

impl MacParams {
    pub fn from_scenario(m: &scenario::Mac) -> Self {
        let slot_ns = 20 * NS_PER_US;
        let sifs_ns = 10 * NS_PER_US;
        let difs_ns = sifs_ns + 2 * slot_ns;
        let mut p = Self {
            slot_ns,
            sifs_ns,
            difs_ns,
            eifs_ns: 0,
            plcp_ns: 192 * NS_PER_US,
            max_prop_delay_ns: 2 * NS_PER_US,
            data_rate_bps: m.data_rate_bps,
            basic_rate_bps: m.basic_rate_bps,
            cw_min: 31,
            cw_max: 1023,
            rts_threshold_bytes: m.rts_threshold_bytes,
            short_retry_limit: m.short_retry_limit,
            long_retry_limit: m.long_retry_limit,
        };
        // EIFS = SIFS + DIFS + ACK at the basic rate (ns-2 `getEIFS`).
        p.eifs_ns = sifs_ns + difs_ns + p.ack_time();
        p
    }

    /// Airtime of a frame of `bytes` (MAC header + body + FCS) at `rate_bps`.
    #[inline]
    pub fn txtime(&self, bytes: u32, rate_bps: u64) -> SimTime {
        self.plcp_ns + (bytes as u64 * 8 * 1_000_000_000).div_ceil(rate_bps)
    }

    pub fn rts_time(&self) -> SimTime {
        self.txtime(super::RTS_BYTES, self.basic_rate_bps)
    }
    pub fn cts_time(&self) -> SimTime {
        self.txtime(super::CTS_BYTES, self.basic_rate_bps)
    }
    pub fn ack_time(&self) -> SimTime {
        self.txtime(super::ACK_BYTES, self.basic_rate_bps)
    }
}

impl Default for MacParams {
    fn default() -> Self {
        Self::from_scenario(&scenario::Mac::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsss_timings_match_the_standard() {
        let p = MacParams::default();
        assert_eq!(p.difs_ns, 50_000);
        assert_eq!(p.ack_time(), 304_000);
        assert_eq!(p.cts_time(), 304_000);
        assert_eq!(p.rts_time(), 352_000);
        assert_eq!(p.eifs_ns, 364_000);
        // 1000 B payload + UDP 8 + IP 20 + MAC 28 at 2 Mb/s: 192 + 4224 µs.
        assert_eq!(p.txtime(1056, p.data_rate_bps), 4_416_000);
    }
}
