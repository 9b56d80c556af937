//! TCP Tahoe (Jacobson 1988; RFC 5681 without fast recovery): on three
//! duplicate ACKs the sender retransmits, sets ssthresh = max(FlightSize/2,
//! 2) and restarts from cwnd = 1 in slow start (go-back-N), as ns-2's
//! `Agent/TCP`. The sender does the go-back-N; this file only chooses it.

use super::{CongestionControl, Recovery};

#[derive(Debug, Clone, Copy, Default)]
pub struct Tahoe;

impl CongestionControl for Tahoe {
    fn recovery(&self) -> Recovery {
        Recovery::Tahoe
    }
}
