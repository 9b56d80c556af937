//! TCP NewReno (RFC 6582): fast recovery continues across partial ACKs,
//! retransmitting the next hole each time, until everything outstanding at
//! the loss is acknowledged. Window arithmetic is RFC 5681's default.

use super::{CongestionControl, Recovery};

#[derive(Debug, Clone, Copy, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
}
