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

/// The big-endian `u16` at `b[at..at + 2]`.
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The big-endian `u32` at `b[at..at + 4]`.
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Writes `v` big-endian into `b[at..at + 2]`.
fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes `v` big-endian into `b[at..at + 4]`.
fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// A new buffer of `len` bytes, filled by `emit`: each message's `to_bytes`.
fn emitted(len: usize, emit: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut v = vec![0; len];
    emit(&mut v);
    v
}

pub mod aodv;
pub mod aomdv;
pub mod dsdv;
pub mod dsr;
pub mod olsr;
pub mod tcp;
