//! DSDV route advertisements (Perkins & Bhagwat 1994).
//!
//! DSDV has no RFC, so this layout is our own. It is chosen so that a packet
//! has exactly the size ns-2.35 charges for it: ns-2's agent sets the size of
//! an update listing `n` routes to `20 + 12 n` bytes (an IP header and 12
//! bytes per route, no UDP header, no message header), although the bytes it
//! actually writes are one count byte and 9 bytes per route (destination 4,
//! metric 1, sequence number 4). Here an update is carried directly in IP,
//! like ns-2's (no UDP header), and is a list of 12-byte entries:
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    Destination IP Address                     |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                  Destination Sequence Number                  |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |    Metric     |                   Reserved                    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! - The number of entries is the message length / 12; there is no count
//!   field (the IP length gives it). ns-2's count byte is one byte that ns-2
//!   itself does not charge for.
//! - **Metric** is the hop count; [`INFINITY`] (250, ns-2's `BIG`) marks an
//!   unreachable destination. The 3 reserved bytes are sent as zero and
//!   ignored on receipt; they pad the entry to ns-2's 12 bytes (ns-3's DSDV
//!   uses 12-byte entries too: address, 4-byte hop count, sequence number).
//! - Addresses are node ids written as 32-bit big-endian IPv4 addresses, as
//!   in [`super::aodv`].
//!
//! Whether an update is a full dump or an incremental one is not on the
//! wire (in DSDV it is the sender's choice of which routes to list).
//!
//! [`UpdateRepr::parse`] checks a byte string and never panics;
//! [`UpdateRepr::emit`] writes exactly `buffer_len()` bytes.

use super::be32;
use super::{emitted, WireError};
use crate::net::NodeId;

/// Bytes per advertised route (ns-2's accounting).
pub const ENTRY_LEN: usize = 12;
/// The metric of an unreachable destination (ns-2's `BIG`).
pub const INFINITY: u8 = 250;

/// One advertised route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub dst: NodeId,
    pub seqno: u32,
    /// Hops from the sender, or [`INFINITY`].
    pub metric: u8,
}

/// A route advertisement: the routes it lists, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateRepr {
    pub entries: Vec<Entry>,
}

impl UpdateRepr {
    /// Parses an update. Empty input is `Truncated`; a length that is not a
    /// whole number of entries is `Truncated` too (the last entry is cut);
    /// a metric above [`INFINITY`] is `Malformed`.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.is_empty() || !b.len().is_multiple_of(ENTRY_LEN) {
            return Err(WireError::Truncated);
        }
        let entries = b
            .chunks_exact(ENTRY_LEN)
            .map(|e| {
                let metric = e[8];
                if metric > INFINITY {
                    return Err(WireError::Malformed);
                }
                Ok(Entry {
                    dst: be32(e, 0),
                    seqno: be32(e, 4),
                    metric,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { entries })
    }

    pub fn buffer_len(&self) -> usize {
        self.entries.len() * ENTRY_LEN
    }

    /// Writes the update into `b`, which must hold `buffer_len()` bytes.
    pub fn emit(&self, b: &mut [u8]) {
        for (e, out) in self.entries.iter().zip(b.chunks_exact_mut(ENTRY_LEN)) {
            out[0..4].copy_from_slice(&e.dst.to_be_bytes());
            out[4..8].copy_from_slice(&e.seqno.to_be_bytes());
            out[8] = e.metric.min(INFINITY);
            out[9..12].fill(0);
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    fn update() -> UpdateRepr {
        UpdateRepr {
            entries: vec![
                Entry {
                    dst: 3,
                    seqno: 8,
                    metric: 0,
                },
                Entry {
                    dst: 0x0102_0304,
                    seqno: 0xA0B0_C0D1,
                    metric: INFINITY,
                },
            ],
        }
    }

    #[test]
    fn an_update_is_12_bytes_per_route_in_network_order() {
        let b = update().to_bytes();
        assert_eq!(b.len(), 24);
        assert_eq!(&b[..12], &[0, 0, 0, 3, 0, 0, 0, 8, 0, 0, 0, 0]);
        assert_eq!(
            &b[12..],
            &[1, 2, 3, 4, 0xA0, 0xB0, 0xC0, 0xD1, 250, 0, 0, 0]
        );
        assert_eq!(UpdateRepr::parse(&b), Ok(update()));
    }

    #[test]
    fn reserved_bytes_are_ignored() {
        let mut b = update().to_bytes();
        b[9] = 0xFF;
        b[23] = 7;
        assert_eq!(UpdateRepr::parse(&b), Ok(update()));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(UpdateRepr::parse(&[]), Err(WireError::Truncated));
        let b = update().to_bytes();
        for n in 1..b.len() {
            if n != ENTRY_LEN {
                assert_eq!(UpdateRepr::parse(&b[..n]), Err(WireError::Truncated), "{n}");
            }
        }
        let mut m = b.clone();
        m[8] = 251;
        assert_eq!(UpdateRepr::parse(&m), Err(WireError::Malformed));
    }

    #[test]
    fn fuzz_random_and_truncated_bytes_never_panic() {
        let valid = [update().to_bytes()];
        let mut parsed = 0;
        // Random bytes, often a whole number of entries.
        let random_len = |rng: &mut Rng, i| {
            if i % 4 == 0 {
                ENTRY_LEN * rng.below(6) as usize
            } else {
                rng.below(80) as usize
            }
        };
        super::super::fuzz(1994, 20_000, &valid, random_len, |rng, i, mut b| {
            if i % 5 == 0 && b.len() > 8 {
                b[8] = 245 + rng.below(11) as u8;
            }
            if round_trips!(UpdateRepr, &b) {
                parsed += 1;
                // An update fills its bytes exactly.
                assert_eq!(UpdateRepr::parse(&b).map(|u| u.buffer_len()), Ok(b.len()));
            }
        });
        assert!(parsed > 1000, "only {parsed} inputs parsed");
    }
}
