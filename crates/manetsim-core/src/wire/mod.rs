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

/// A parser's fuzz test: `count` inputs drawn from `seed`, each handed to
/// `check` with its number and the generator. The even ones are random
/// bytes (`random_len` draws their length), the odd ones one of the
/// `valid` messages in turn, cut at a random length with one random byte
/// changed.
#[cfg(test)]
fn fuzz(
    seed: u64,
    count: u64,
    valid: &[Vec<u8>],
    mut random_len: impl FnMut(&mut crate::engine::Rng, u64) -> usize,
    mut check: impl FnMut(&mut crate::engine::Rng, u64, Vec<u8>),
) {
    let mut rng = crate::engine::Rng::from_seed(seed);
    for i in 0..count {
        let b = if i % 2 == 0 {
            let len = random_len(&mut rng, i);
            (0..len).map(|_| rng.below(256) as u8).collect()
        } else {
            let v = &valid[(i / 2 % valid.len() as u64) as usize];
            let mut b = v[..rng.below(v.len() as u64 + 1) as usize].to_vec();
            if !b.is_empty() {
                let k = rng.below(b.len() as u64) as usize;
                b[k] = rng.below(256) as u8;
            }
            b
        };
        check(&mut rng, i, b);
    }
}

/// Whether `$bytes` parse as a `$format`; whatever parses must re-emit into
/// its stated length and parse back to itself.
#[cfg(test)]
macro_rules! round_trips {
    ($format:ty, $bytes:expr) => {
        match <$format>::parse($bytes) {
            Ok(m) => {
                let out = m.to_bytes();
                assert_eq!(out.len(), m.buffer_len());
                assert_eq!(<$format>::parse(&out), Ok(m));
                true
            }
            Err(_) => false,
        }
    };
}

pub mod aodv;
pub mod aomdv;
pub mod dsdv;
pub mod dsr;
pub mod olsr;
pub mod tcp;
