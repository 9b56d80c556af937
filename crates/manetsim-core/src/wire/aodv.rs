//! AODV messages (RFC 3561, section 5), carried in UDP to port 654.
//!
//! Addresses are node ids written as 32-bit big-endian IPv4 addresses (node
//! `n` is the address whose 32-bit value is `n`; `BROADCAST` is
//! 255.255.255.255). Every field is in network byte order.
//!
//! [`Message::parse`] checks a byte string and never panics; a `Repr`
//! ([`RreqRepr`], [`RrepRepr`], [`RerrRepr`]) writes itself with `emit()` into
//! exactly `buffer_len()` bytes. A HELLO is an [`RrepRepr`] whose destination
//! is its sender, sent with IP TTL 1 (RFC 3561 section 6.9); on the wire it is
//! an ordinary RREP.

use super::{be32, put32};
use super::{emitted, WireError};
use crate::net::NodeId;

/// AODV's UDP port.
pub const AODV_PORT: u16 = 654;

/// Message type codes.
pub const TYPE_RREQ: u8 = 1;
pub const TYPE_RREP: u8 = 2;
pub const TYPE_RERR: u8 = 3;
pub const TYPE_RREP_ACK: u8 = 4;

/// Length of the timestamp that ns-2.35's AODV puts in its RREQ and RREP
/// headers (`rq_timestamp`, `rp_timestamp`), which RFC 3561 has not: the
/// time the RREQ was sent, copied into the replies to it. Written after
/// the RFC message (see [`stamp_of`]) only when an agent runs with ns-2's
/// message sizes; its 4 bytes are what makes ns-2.35's RREQ and RREP
/// 4 bytes longer than the RFC's.
pub const STAMP_LEN: usize = 4;

/// The timestamp written after a RREQ or RREP ([`STAMP_LEN`]), in
/// microseconds of simulated time modulo 2^32, or `None` when the message
/// has none (or is of another type, or too short).
pub fn stamp_of(b: &[u8]) -> Option<u32> {
    let at = match *b.first()? {
        TYPE_RREQ => RreqRepr::LEN,
        TYPE_RREP => RrepRepr::LEN,
        _ => return None,
    };
    (b.len() >= at + STAMP_LEN).then(|| be32(b, at))
}

/// `msg` (a RREQ's or RREP's bytes) followed by the timestamp `stamp_us`.
pub fn with_stamp(mut msg: Vec<u8>, stamp_us: u32) -> Vec<u8> {
    msg.extend_from_slice(&stamp_us.to_be_bytes());
    msg
}

/// AODV-UU's extension type for the Internet destination a gateway's reply
/// is for (`RREP_INET_DEST_EXT` in its `defs.h`).
pub const EXT_INET_DEST: u8 = 4;

/// Length of that extension: type, length and an IPv4 address.
pub const INET_EXT_LEN: usize = 6;

/// `msg` (a RREP's bytes) followed by AODV-UU's Internet-destination
/// extension naming `host`: the reply a gateway sends for a host outside
/// the MANET, whose own destination is the gateway (RFC 3561 section 5's
/// extension format: type, length, value).
pub fn with_inet_dest(msg: Vec<u8>, host: NodeId) -> Vec<u8> {
    with_u32_ext(msg, EXT_INET_DEST, host)
}

/// The Internet destination a RREP's extension names
/// ([`with_inet_dest`]), or `None` when the message has no such extension
/// right after the RREP (or is not a RREP).
pub fn inet_dest_of(b: &[u8]) -> Option<NodeId> {
    rrep_u32_ext(b, EXT_INET_DEST)
}

/// `msg` followed by an extension of type `ext` whose value is `value`, 32
/// bits (RFC 3561 section 5's format: type, length 4, value).
fn with_u32_ext(mut msg: Vec<u8>, ext: u8, value: u32) -> Vec<u8> {
    msg.extend_from_slice(&[ext, 4]);
    msg.extend_from_slice(&value.to_be_bytes());
    msg
}

/// The 32-bit value of an extension of type `ext` right after a RREP, or
/// `None` when `b` is not a RREP with one.
fn rrep_u32_ext(b: &[u8], ext: u8) -> Option<u32> {
    if *b.first()? != TYPE_RREP || b.len() < RrepRepr::LEN + 6 {
        return None;
    }
    let at = RrepRepr::LEN;
    (b[at] == ext && b[at + 1] == 4).then(|| be32(b, at + 2))
}

/// manetsim's extension type marking a RREP as a gateway advertisement
/// (the gateway's RREP for itself, flooded: proactive and hybrid gateway
/// discovery, after Hamidian's extension of AODV-UU); the type after
/// AODV-UU's own extensions. Its value is the gateway's advertisement
/// interval in milliseconds (a length of 0 would be malformed to
/// Wireshark's AODV dissector).
pub const EXT_GATEWAY_ADV: u8 = 5;

/// Length of that extension: type, length and a 32-bit interval.
pub const GATEWAY_ADV_EXT_LEN: usize = 6;

/// `msg` (a RREP's bytes) marked as a gateway advertisement
/// ([`EXT_GATEWAY_ADV`]) sent every `interval_ms`.
pub fn with_gateway_adv(msg: Vec<u8>, interval_ms: u32) -> Vec<u8> {
    with_u32_ext(msg, EXT_GATEWAY_ADV, interval_ms)
}

/// The advertisement interval of a RREP marked as a gateway advertisement
/// ([`with_gateway_adv`]) right after the RREP, or `None` when `b` is not
/// one.
pub fn gateway_adv_interval_ms(b: &[u8]) -> Option<u32> {
    rrep_u32_ext(b, EXT_GATEWAY_ADV)
}

/// Whether `b` is a gateway advertisement ([`gateway_adv_interval_ms`]).
pub fn is_gateway_adv(b: &[u8]) -> bool {
    gateway_adv_interval_ms(b).is_some()
}

/// Route Request (RFC 3561 section 5.1), 24 bytes.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     Type      |J|R|G|D|U|   Reserved          |   Hop Count   |
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
/// ```
/// J and R are multicast flags (unused here, kept on parse); G asks an
/// intermediate replier to send a gratuitous RREP to the destination; D says
/// only the destination may reply; U says the destination sequence number is
/// unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RreqRepr {
    pub join: bool,
    pub repair: bool,
    pub gratuitous: bool,
    pub dest_only: bool,
    pub unknown_seqno: bool,
    pub hop_count: u8,
    pub rreq_id: u32,
    pub dst: NodeId,
    pub dst_seqno: u32,
    pub orig: NodeId,
    pub orig_seqno: u32,
}

impl RreqRepr {
    pub const LEN: usize = 24;

    /// The request an originator sends: no flag set but U when it knows no
    /// sequence number for `dst` (`dst_seqno` is `None`), hop count 0.
    pub fn request(
        rreq_id: u32,
        dst: NodeId,
        dst_seqno: Option<u32>,
        orig: NodeId,
        orig_seqno: u32,
    ) -> Self {
        Self {
            join: false,
            repair: false,
            gratuitous: false,
            dest_only: false,
            unknown_seqno: dst_seqno.is_none(),
            hop_count: 0,
            rreq_id,
            dst,
            dst_seqno: dst_seqno.unwrap_or(0),
            orig,
            orig_seqno,
        }
    }

    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < Self::LEN {
            return Err(WireError::Truncated);
        }
        let f = b[1];
        Ok(Self {
            join: f & 0x80 != 0,
            repair: f & 0x40 != 0,
            gratuitous: f & 0x20 != 0,
            dest_only: f & 0x10 != 0,
            unknown_seqno: f & 0x08 != 0,
            hop_count: b[3],
            rreq_id: be32(b, 4),
            dst: be32(b, 8),
            dst_seqno: be32(b, 12),
            orig: be32(b, 16),
            orig_seqno: be32(b, 20),
        })
    }

    /// Writes the message into `b[..LEN]`.
    pub fn emit(&self, b: &mut [u8]) {
        b[0] = TYPE_RREQ;
        b[1] = (self.join as u8) << 7
            | (self.repair as u8) << 6
            | (self.gratuitous as u8) << 5
            | (self.dest_only as u8) << 4
            | (self.unknown_seqno as u8) << 3;
        b[2] = 0;
        b[3] = self.hop_count;
        put32(b, 4, self.rreq_id);
        put32(b, 8, self.dst);
        put32(b, 12, self.dst_seqno);
        put32(b, 16, self.orig);
        put32(b, 20, self.orig_seqno);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(Self::LEN, |b| self.emit(b))
    }
}

/// Route Reply (RFC 3561 section 5.2), 20 bytes; also a HELLO (section 6.9).
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     Type      |R|A|    Reserved     |Prefix Sz|   Hop Count   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Destination IP address                    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  Destination Sequence Number                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    Originator IP address                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           Lifetime                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// R is the multicast repair flag, A asks for a RREP-ACK; Lifetime is in
/// milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RrepRepr {
    pub repair: bool,
    pub ack_required: bool,
    /// 5 bits.
    pub prefix_size: u8,
    pub hop_count: u8,
    pub dst: NodeId,
    pub dst_seqno: u32,
    pub orig: NodeId,
    pub lifetime_ms: u32,
}

impl RrepRepr {
    pub const LEN: usize = 20;

    /// A reply (or HELLO) with no flag set and prefix size 0.
    pub fn new(hop_count: u8, dst: NodeId, dst_seqno: u32, orig: NodeId, lifetime_ms: u32) -> Self {
        Self {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count,
            dst,
            dst_seqno,
            orig,
            lifetime_ms,
        }
    }

    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < Self::LEN {
            return Err(WireError::Truncated);
        }
        Ok(Self {
            repair: b[1] & 0x80 != 0,
            ack_required: b[1] & 0x40 != 0,
            prefix_size: b[2] & 0x1f,
            hop_count: b[3],
            dst: be32(b, 4),
            dst_seqno: be32(b, 8),
            orig: be32(b, 12),
            lifetime_ms: be32(b, 16),
        })
    }

    pub fn emit(&self, b: &mut [u8]) {
        b[0] = TYPE_RREP;
        b[1] = (self.repair as u8) << 7 | (self.ack_required as u8) << 6;
        b[2] = self.prefix_size & 0x1f;
        b[3] = self.hop_count;
        put32(b, 4, self.dst);
        put32(b, 8, self.dst_seqno);
        put32(b, 12, self.orig);
        put32(b, 16, self.lifetime_ms);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(Self::LEN, |b| self.emit(b))
    }
}

/// Route Error (RFC 3561 section 5.3): 4 bytes plus 8 per unreachable
/// destination (at least one).
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     Type      |N|          Reserved           |   DestCount   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            Unreachable Destination IP Address (1)             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Unreachable Destination Sequence Number (1)           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Additional Unreachable Destination IP Addresses (if needed)  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |Additional Unreachable Destination Sequence Numbers (if needed)|
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// N (no delete) is set by a node that is repairing the link locally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RerrRepr {
    pub no_delete: bool,
    /// (destination, its sequence number); 1 to 255 entries.
    pub unreachable: Vec<(NodeId, u32)>,
}

impl RerrRepr {
    pub const HEADER_LEN: usize = 4;
    pub const ENTRY_LEN: usize = 8;
    /// DestCount is one byte.
    pub const MAX_DESTS: usize = 255;

    pub fn buffer_len(&self) -> usize {
        Self::HEADER_LEN + Self::ENTRY_LEN * self.unreachable.len()
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < Self::HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let n = b[3] as usize;
        if n == 0 {
            return Err(WireError::Malformed);
        }
        if b.len() < Self::HEADER_LEN + n * Self::ENTRY_LEN {
            return Err(WireError::Truncated);
        }
        let unreachable = (0..n)
            .map(|i| {
                let at = Self::HEADER_LEN + i * Self::ENTRY_LEN;
                (be32(b, at), be32(b, at + 4))
            })
            .collect();
        Ok(Self {
            no_delete: b[1] & 0x80 != 0,
            unreachable,
        })
    }

    /// Writes the message into `b[..buffer_len()]`. The caller keeps
    /// 1..=255 entries (the agent splits longer lists).
    pub fn emit(&self, b: &mut [u8]) {
        debug_assert!((1..=Self::MAX_DESTS).contains(&self.unreachable.len()));
        b[0] = TYPE_RERR;
        b[1] = (self.no_delete as u8) << 7;
        b[2] = 0;
        b[3] = self.unreachable.len() as u8;
        for (i, &(d, s)) in self.unreachable.iter().enumerate() {
            let at = Self::HEADER_LEN + i * Self::ENTRY_LEN;
            put32(b, at, d);
            put32(b, at + 4, s);
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }
}

/// Route Reply Acknowledgment (RFC 3561 section 5.4), 2 bytes.
///
/// ```text
///  0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     Type      |   Reserved    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
pub const RREP_ACK_LEN: usize = 2;

/// A parsed AODV message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Rreq(RreqRepr),
    Rrep(RrepRepr),
    Rerr(RerrRepr),
    RrepAck,
}

impl Message {
    /// Parses one message (the UDP payload). Trailing bytes (RFC 3561
    /// extensions) are ignored.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        let t = *b.first().ok_or(WireError::Truncated)?;
        match t {
            TYPE_RREQ => RreqRepr::parse(b).map(Message::Rreq),
            TYPE_RREP => RrepRepr::parse(b).map(Message::Rrep),
            TYPE_RERR => RerrRepr::parse(b).map(Message::Rerr),
            TYPE_RREP_ACK if b.len() >= RREP_ACK_LEN => Ok(Message::RrepAck),
            TYPE_RREP_ACK => Err(WireError::Truncated),
            other => Err(WireError::UnknownType(other)),
        }
    }

    pub fn buffer_len(&self) -> usize {
        match self {
            Message::Rreq(r) => r.buffer_len(),
            Message::Rrep(r) => r.buffer_len(),
            Message::Rerr(r) => r.buffer_len(),
            Message::RrepAck => RREP_ACK_LEN,
        }
    }

    pub fn emit(&self, b: &mut [u8]) {
        match self {
            Message::Rreq(r) => r.emit(b),
            Message::Rrep(r) => r.emit(b),
            Message::Rerr(r) => r.emit(b),
            Message::RrepAck => {
                b[0] = TYPE_RREP_ACK;
                b[1] = 0;
            }
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rreq() -> RreqRepr {
        RreqRepr {
            join: false,
            repair: false,
            gratuitous: true,
            dest_only: false,
            unknown_seqno: true,
            hop_count: 3,
            rreq_id: 0xdead_beef,
            dst: 5,
            dst_seqno: 0,
            orig: 0x0a00_0001,
            orig_seqno: 42,
        }
    }

    #[test]
    fn rreq_round_trips_in_24_bytes() {
        let m = Message::Rreq(rreq());
        let b = m.to_bytes();
        assert_eq!(b.len(), 24);
        assert_eq!(b[0], 1);
        assert_eq!(b[1], 0x20 | 0x08, "G and U flags");
        assert_eq!(&b[16..20], &[10, 0, 0, 1], "originator in network order");
        assert_eq!(Message::parse(&b), Ok(m));
    }

    #[test]
    fn a_gateway_reply_names_its_internet_destination_in_6_bytes_more() {
        let rp = RrepRepr::new(0, 3, 7, 0, 3000);
        let b = with_inet_dest(rp.to_bytes(), 0x0a00_0063);
        assert_eq!(b.len(), RrepRepr::LEN + INET_EXT_LEN);
        assert_eq!(&b[20..], &[4, 4, 10, 0, 0, 99]);
        assert_eq!(inet_dest_of(&b), Some(0x0a00_0063));
        assert_eq!(
            Message::parse(&b),
            Ok(Message::Rrep(rp)),
            "extension skipped"
        );
        assert_eq!(inet_dest_of(&rp.to_bytes()), None);
        assert_eq!(inet_dest_of(&b[..24]), None, "truncated");
        let mut other = b.clone();
        other[20] = 2;
        assert_eq!(inet_dest_of(&other), None, "another extension type");
        let rq = with_inet_dest(Message::Rreq(rreq()).to_bytes(), 1);
        assert_eq!(inet_dest_of(&rq), None, "a RREQ has none");
    }

    #[test]
    fn a_gateway_advertisement_is_a_rrep_marked_in_6_bytes_more() {
        let rp = RrepRepr::new(0, 3, 8, 3, 10_000);
        let b = with_gateway_adv(rp.to_bytes(), 5_000);
        assert_eq!(b.len(), RrepRepr::LEN + GATEWAY_ADV_EXT_LEN);
        assert_eq!(&b[20..], &[5, 4, 0, 0, 0x13, 0x88]);
        assert!(is_gateway_adv(&b));
        assert_eq!(gateway_adv_interval_ms(&b), Some(5_000));
        assert_eq!(
            Message::parse(&b),
            Ok(Message::Rrep(rp)),
            "extension skipped"
        );
        assert_eq!(inet_dest_of(&b), None, "not a reply for a host");
        assert!(
            !is_gateway_adv(&rp.to_bytes()),
            "a HELLO or reply is not one"
        );
        assert!(!is_gateway_adv(&b[..25]), "truncated");
        assert!(!is_gateway_adv(&with_inet_dest(rp.to_bytes(), 9)));
        let mut other = b.clone();
        other[21] = 0;
        assert!(!is_gateway_adv(&other), "another length");
        let rq = with_gateway_adv(Message::Rreq(rreq()).to_bytes(), 5_000);
        assert!(!is_gateway_adv(&rq), "a RREQ is not one");
    }

    #[test]
    fn rrep_and_hello_round_trip_in_20_bytes() {
        let r = RrepRepr {
            repair: false,
            ack_required: true,
            prefix_size: 0,
            hop_count: 2,
            dst: 7,
            dst_seqno: 12,
            orig: 1,
            lifetime_ms: 10_000,
        };
        let b = r.to_bytes();
        assert_eq!(b.len(), 20);
        assert_eq!(b[1], 0x40);
        assert_eq!(Message::parse(&b), Ok(Message::Rrep(r)));
        let hello = RrepRepr {
            dst: 3,
            orig: 3,
            hop_count: 0,
            ack_required: false,
            ..r
        };
        assert_eq!(Message::parse(&hello.to_bytes()), Ok(Message::Rrep(hello)));
    }

    #[test]
    fn a_stamp_follows_a_rreq_or_rrep_and_is_read_back() {
        let q = with_stamp(rreq().to_bytes(), 0xdead_beef);
        assert_eq!(q.len(), RreqRepr::LEN + STAMP_LEN);
        assert_eq!(stamp_of(&q), Some(0xdead_beef));
        assert_eq!(
            Message::parse(&q),
            Ok(Message::Rreq(rreq())),
            "still a RREQ"
        );
        let rp = RrepRepr {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 2,
            dst: 9,
            dst_seqno: 4,
            orig: 0,
            lifetime_ms: 1,
        };
        assert_eq!(stamp_of(&with_stamp(rp.to_bytes(), 7)), Some(7));
        // None: no stamp, a short one, or a message that carries none.
        assert_eq!(stamp_of(&rp.to_bytes()), None);
        assert_eq!(
            stamp_of(&with_stamp(rp.to_bytes(), 7)[..RrepRepr::LEN + 3]),
            None
        );
        let re = RerrRepr {
            no_delete: false,
            unreachable: vec![(1, 2), (3, 4)],
        };
        assert_eq!(stamp_of(&re.to_bytes()), None);
        assert_eq!(stamp_of(&[]), None);
    }

    #[test]
    fn rerr_round_trips_with_8_bytes_per_destination() {
        let r = RerrRepr {
            no_delete: true,
            unreachable: vec![(5, 9), (6, 11), (u32::MAX - 1, u32::MAX)],
        };
        let b = r.to_bytes();
        assert_eq!(b.len(), 4 + 3 * 8);
        assert_eq!(b[3], 3);
        assert_eq!(Message::parse(&b), Ok(Message::Rerr(r)));
    }

    #[test]
    fn rrep_ack_round_trips_in_2_bytes() {
        let b = Message::RrepAck.to_bytes();
        assert_eq!(b, vec![4, 0]);
        assert_eq!(Message::parse(&b), Ok(Message::RrepAck));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(Message::parse(&[]), Err(WireError::Truncated));
        assert_eq!(Message::parse(&[9, 0]), Err(WireError::UnknownType(9)));
        assert_eq!(Message::parse(&[3, 0, 0, 0]), Err(WireError::Malformed));
        assert_eq!(
            Message::parse(&[3, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1]),
            Err(WireError::Truncated)
        );
        let b = rreq().to_bytes();
        for n in 0..b.len() {
            assert_eq!(Message::parse(&b[..n]), Err(WireError::Truncated), "{n}");
        }
    }

    #[test]
    fn fuzz_random_and_truncated_bytes_never_panic() {
        let valid = [
            Message::Rreq(rreq()).to_bytes(),
            RerrRepr {
                no_delete: false,
                unreachable: vec![(1, 2), (3, 4)],
            }
            .to_bytes(),
            Message::RrepAck.to_bytes(),
        ];
        let mut parsed = 0;
        super::super::fuzz(
            654,
            20_000,
            &valid,
            |rng, _| rng.below(64) as usize,
            |rng, i, mut b| {
                if i % 7 == 0 && !b.is_empty() {
                    b[0] = 1 + rng.below(4) as u8;
                }
                parsed += u32::from(round_trips!(Message, &b));
            },
        );
        assert!(parsed > 1000, "the fuzz reaches the parsers: {parsed}");
    }
}
