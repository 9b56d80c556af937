//! TCP Reno (RFC 5681 section 3.2): fast retransmit and fast recovery, with
//! recovery left on the first ACK of new data (cwnd deflated to ssthresh).

use super::{CongestionControl, Recovery};

#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
}
