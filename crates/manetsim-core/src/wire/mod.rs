//! Packet formats in their real byte layouts (per RFC), parsed and emitted
//! here so packet sizes are exact and a pcap writer can emit them unchanged.
//!
//! Each format has two levels (as smoltcp does): checked accessors over a
//! byte buffer, and a high-level `Repr` with `parse()`, `emit()` and
//! `buffer_len()`. Parsing untrusted bytes never panics; it returns
//! [`WireError`].

/// Why bytes could not be parsed as a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("message truncated")]
    Truncated,
    #[error("unknown message type {0}")]
    UnknownType(u8),
    #[error("malformed message")]
    Malformed,
}

pub mod aodv;
pub mod aomdv;
pub mod dsdv;
pub mod dsr;
pub mod olsr;
pub mod tcp;
