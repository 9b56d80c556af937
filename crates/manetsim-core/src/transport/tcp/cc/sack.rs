//! TCP SACK: RFC 2018 SACK blocks from the receiver and the RFC 6675
//! conservative loss recovery (scoreboard, `IsLost`, `pipe`, `NextSeg`) in
//! the sender. Window arithmetic is RFC 5681's default: on entering recovery
//! cwnd = ssthresh = max(FlightSize/2, 2) (RFC 6675 section 5 step 4.2).

use super::{CongestionControl, Recovery};

#[derive(Debug, Clone, Copy, Default)]
pub struct Sack;

impl CongestionControl for Sack {
    fn recovery(&self) -> Recovery {
        Recovery::Sack
    }
}
