//! AOMDV messages (Marina & Das 2006), carried in UDP to port 654 like AODV.
//!
//! AOMDV has no RFC. Its RREQ and RREP are AODV's (RFC 3561 sections 5.1
//! and 5.2) with the fields the multipath rules need appended, as ns-2.35's
//! `aomdv_packet.h` adds them: a RREQ carries its **first hop** (the
//! neighbour of the originator it went through), a RREP carries the
//! **RREQ id** it answers and its **first hop** (the neighbour of the
//! destination it went through). A RERR is AODV's RERR byte for byte
//! ([`RerrRepr`]). Addresses are node ids as 32-bit big-endian IPv4
//! addresses, as in [`super::aodv`].
//!
//! Sizes: RREQ 28 bytes, RREP 28 bytes. ns-2.35 counts 32 for both because
//! it also carries an 8-byte timestamp (used only for its discovery-latency
//! statistics); this layout leaves it out.
//!
//! [`Message::parse`] never panics; every `Repr` emits exactly
//! `buffer_len()` bytes.

use super::aodv::{self, RerrRepr, RrepRepr, RreqRepr};
use super::{be32, put32};
use super::{emitted, WireError};
use crate::net::NodeId;

/// AOMDV Route Request: AODV's 24-byte RREQ plus the first hop, 28 bytes.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   Type = 1    |J|R|G|D|U|   Reserved          |   Hop Count   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                            RREQ ID                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    Destination IP Address                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  Destination Sequence Number                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    Originator IP Address                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  Originator Sequence Number                   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      First Hop IP Address                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The originator writes its own address as first hop; its neighbours (who
/// see hop count 0) replace it with theirs, and nobody changes it after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AomdvRreq {
    /// The AODV part (flags, hop count, ids and sequence numbers).
    pub base: RreqRepr,
    pub first_hop: NodeId,
}

impl AomdvRreq {
    pub const LEN: usize = RreqRepr::LEN + 4;

    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < Self::LEN {
            return Err(WireError::Truncated);
        }
        let aodv::Message::Rreq(base) = aodv::Message::parse(&b[..RreqRepr::LEN])? else {
            return Err(WireError::Malformed);
        };
        Ok(Self {
            base,
            first_hop: be32(b, RreqRepr::LEN),
        })
    }

    /// Writes the message into `b[..LEN]`.
    pub fn emit(&self, b: &mut [u8]) {
        self.base.emit(&mut b[..RreqRepr::LEN]);
        put32(b, RreqRepr::LEN, self.first_hop);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(Self::LEN, |b| self.emit(b))
    }
}

/// AOMDV Route Reply: AODV's 20-byte RREP plus the RREQ id it answers and
/// the first hop, 28 bytes. Also a HELLO (destination = sender, hop count 0,
/// IP TTL 1), as in AODV.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   Type = 2    |R|A|    Reserved     |Prefix Sz|   Hop Count   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Destination IP address                    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  Destination Sequence Number                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    Originator IP address                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           Lifetime                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                            RREQ ID                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      First Hop IP Address                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// First Hop is the destination's neighbour on the path the RREP travels
/// (the last hop before the destination, seen from the originator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AomdvRrep {
    pub base: RrepRepr,
    pub rreq_id: u32,
    pub first_hop: NodeId,
}

impl AomdvRrep {
    pub const LEN: usize = RrepRepr::LEN + 8;

    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < SHORT_HELLO_LEN {
            return Err(WireError::Truncated);
        }
        let aodv::Message::Rrep(base) = aodv::Message::parse(&b[..RrepRepr::LEN])? else {
            return Err(WireError::Malformed);
        };
        if b.len() < Self::LEN {
            // A HELLO in ns-2.35's size ([`short_hello`]): no RREQ ID, and
            // its sender as its own first hop.
            return Ok(Self {
                base,
                rreq_id: 0,
                first_hop: base.dst,
            });
        }
        Ok(Self {
            base,
            rreq_id: be32(b, RrepRepr::LEN),
            first_hop: be32(b, RrepRepr::LEN + 4),
        })
    }

    /// Writes the message into `b[..LEN]`.
    pub fn emit(&self, b: &mut [u8]) {
        self.base.emit(&mut b[..RrepRepr::LEN]);
        put32(b, RrepRepr::LEN, self.rreq_id);
        put32(b, RrepRepr::LEN + 4, self.first_hop);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(Self::LEN, |b| self.emit(b))
    }
}

/// The bytes of [`short_hello`].
pub const SHORT_HELLO_LEN: usize = RrepRepr::LEN + 4;

/// A HELLO as ns-2.35's AOMDV sizes it (`hdr_aomdv_reply::size` for a
/// HELLO: 24 bytes): the RREP fields without RREQ ID and first hop, then
/// ns-2.35's timestamp (4 bytes, as it counts it; 0 here). [`Message::parse`]
/// reads it back as a RREP with RREQ ID 0 and its sender as first hop.
pub fn short_hello(base: &RrepRepr) -> Vec<u8> {
    let mut b = vec![0; RrepRepr::LEN];
    base.emit(&mut b);
    aodv::with_stamp(b, 0)
}

/// A parsed AOMDV message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Rreq(AomdvRreq),
    Rrep(AomdvRrep),
    Rerr(RerrRepr),
}

impl Message {
    /// Parses one message (the UDP payload); trailing bytes are ignored.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        let t = *b.first().ok_or(WireError::Truncated)?;
        match t {
            aodv::TYPE_RREQ => AomdvRreq::parse(b).map(Message::Rreq),
            aodv::TYPE_RREP => AomdvRrep::parse(b).map(Message::Rrep),
            aodv::TYPE_RERR => match aodv::Message::parse(b)? {
                aodv::Message::Rerr(r) => Ok(Message::Rerr(r)),
                _ => Err(WireError::Malformed),
            },
            other => Err(WireError::UnknownType(other)),
        }
    }

    pub fn buffer_len(&self) -> usize {
        match self {
            Message::Rreq(r) => r.buffer_len(),
            Message::Rrep(r) => r.buffer_len(),
            Message::Rerr(r) => r.buffer_len(),
        }
    }

    pub fn emit(&self, b: &mut [u8]) {
        match self {
            Message::Rreq(r) => r.emit(b),
            Message::Rrep(r) => r.emit(b),
            Message::Rerr(r) => r.emit(b),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rreq() -> AomdvRreq {
        AomdvRreq {
            base: RreqRepr {
                join: false,
                repair: false,
                gratuitous: false,
                dest_only: false,
                unknown_seqno: true,
                hop_count: 3,
                rreq_id: 0x0102_0304,
                dst: 9,
                dst_seqno: 0,
                orig: 0x0a00_0001,
                orig_seqno: 42,
            },
            first_hop: 0x0a00_0007,
        }
    }

    fn rrep() -> AomdvRrep {
        AomdvRrep {
            base: RrepRepr {
                repair: false,
                ack_required: false,
                prefix_size: 0,
                hop_count: 2,
                dst: 9,
                dst_seqno: 6,
                orig: 1,
                lifetime_ms: 10_000,
            },
            rreq_id: 77,
            first_hop: 8,
        }
    }

    #[test]
    fn rreq_is_aodvs_layout_plus_the_first_hop_in_28_bytes() {
        let r = rreq();
        let b = r.to_bytes();
        assert_eq!(b.len(), 28);
        assert_eq!(&b[..24], &r.base.to_bytes()[..]);
        assert_eq!(&b[24..], &[0x0a, 0, 0, 7]);
        assert_eq!(Message::parse(&b), Ok(Message::Rreq(r)));
    }

    #[test]
    fn rrep_is_aodvs_layout_plus_rreq_id_and_first_hop_in_28_bytes() {
        let r = rrep();
        let b = r.to_bytes();
        assert_eq!(b.len(), 28);
        assert_eq!(&b[..20], &r.base.to_bytes()[..]);
        assert_eq!(&b[20..], &[0, 0, 0, 77, 0, 0, 0, 8]);
        assert_eq!(Message::parse(&b), Ok(Message::Rrep(r)));
    }

    #[test]
    fn rerr_is_aodvs_rerr() {
        let r = RerrRepr {
            no_delete: false,
            unreachable: vec![(4, 5)],
        };
        let b = r.to_bytes();
        assert_eq!(b.len(), 12);
        assert_eq!(Message::parse(&b), Ok(Message::Rerr(r)));
    }

    #[test]
    fn truncated_and_unknown_messages_are_errors() {
        assert_eq!(Message::parse(&[]), Err(WireError::Truncated));
        assert_eq!(Message::parse(&[4, 0]), Err(WireError::UnknownType(4)));
        let rreq = rreq().to_bytes();
        for n in 0..rreq.len() {
            assert_eq!(Message::parse(&rreq[..n]), Err(WireError::Truncated), "{n}");
        }
        // A RREP cut short of ns-2.35's HELLO size.
        let rrep = rrep().to_bytes();
        for n in 0..SHORT_HELLO_LEN {
            assert_eq!(Message::parse(&rrep[..n]), Err(WireError::Truncated), "{n}");
        }
    }

    #[test]
    fn a_hello_in_ns2s_size_is_24_bytes_and_reads_as_a_rrep_from_its_sender() {
        let base = RrepRepr {
            hop_count: 0,
            dst: 3,
            orig: 3,
            lifetime_ms: 2_000,
            ..rrep().base
        };
        let b = short_hello(&base);
        assert_eq!(b.len(), 24);
        assert_eq!(
            Message::parse(&b),
            Ok(Message::Rrep(AomdvRrep {
                base,
                rreq_id: 0,
                first_hop: 3
            }))
        );
    }

    #[test]
    fn fuzz_random_and_truncated_bytes_never_panic() {
        let valid = [
            Message::Rreq(rreq()).to_bytes(),
            Message::Rrep(rrep()).to_bytes(),
            RerrRepr {
                no_delete: true,
                unreachable: vec![(1, 2), (3, 4)],
            }
            .to_bytes(),
        ];
        let mut parsed = 0;
        super::super::fuzz(
            6540,
            20_000,
            &valid,
            |rng, _| rng.below(64) as usize,
            |rng, i, mut b| {
                if i % 5 == 0 && !b.is_empty() {
                    b[0] = 1 + rng.below(3) as u8;
                }
                parsed += u32::from(round_trips!(Message, &b));
            },
        );
        assert!(parsed > 1000, "the fuzz reaches the parsers: {parsed}");
    }
}
