//! OLSR packets (RFC 3626, sections 3.3, 6.1 and 9.1), carried in UDP to
//! port 698.
//!
//! Addresses are node ids written as 32-bit big-endian IPv4 addresses (node
//! `n` is the address whose 32-bit value is `n`). Every field is in network
//! byte order.
//!
//! [`PacketRepr::parse`] checks a byte string and never panics; a
//! [`PacketRepr`] writes itself with `emit()` into exactly `buffer_len()`
//! bytes. Message types other than HELLO, TC and HNA (MID, anything unknown)
//! parse as [`MessageBody::Other`] with their bytes kept, so a node can
//! forward what it does not understand (RFC 3626 section 3.4).
//!
//! Times (Vtime, Htime) use the RFC's 8-bit mantissa/exponent code (section
//! 18.3): value = C × (1 + a/16) × 2^b seconds with C = 1/16 s, `a` the high
//! nibble and `b` the low one; see [`encode_time`] and [`decode_time`].

use super::{be16, be32, put16, put32};
use super::{emitted, WireError};
use crate::engine::{SimTime, NS_PER_S};
use crate::net::NodeId;

/// OLSR's UDP port.
pub const OLSR_PORT: u16 = 698;

/// Message type codes (RFC 3626 section 18.4).
pub const TYPE_HELLO: u8 = 1;
pub const TYPE_TC: u8 = 2;
pub const TYPE_MID: u8 = 3;
pub const TYPE_HNA: u8 = 4;

/// The scaling constant C of the time code: 1/16 s, in ns.
const TIME_C_NS: SimTime = NS_PER_S / 16;

/// Decodes an 8-bit time code (RFC 3626 section 18.3) into ns.
pub fn decode_time(code: u8) -> SimTime {
    let a = (code >> 4) as SimTime;
    let b = (code & 0x0f) as u32;
    // C × (1 + a/16) × 2^b = C × (16 + a) × 2^b / 16, exact in ns.
    ((TIME_C_NS * (16 + a)) << b) / 16
}

/// Encodes a duration as the smallest time code that is at least `t_ns`
/// (the RFC's rounding up), saturating at the largest code.
pub fn encode_time(t_ns: SimTime) -> u8 {
    if t_ns <= TIME_C_NS {
        return 0;
    }
    if t_ns >= decode_time(0xff) {
        return 0xff;
    }
    // b: the largest integer with t >= C × 2^b.
    let mut b = 0u32;
    while b < 15 && t_ns >= TIME_C_NS << (b + 1) {
        b += 1;
    }
    // a = ceil(16 × (t / (C × 2^b) − 1)).
    let unit = TIME_C_NS << b;
    let mut a = (16 * t_ns).div_ceil(unit).saturating_sub(16);
    if a >= 16 {
        if b == 15 {
            return 0xff;
        }
        a = 0;
        b += 1;
    }
    ((a as u8) << 4) | b as u8
}

/// The link type of a HELLO link code (bits 0–1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LinkType {
    Unspec = 0,
    Asym = 1,
    Sym = 2,
    Lost = 3,
}

/// The neighbour type of a HELLO link code (bits 2–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NeighborType {
    NotNeigh = 0,
    SymNeigh = 1,
    MprNeigh = 2,
}

impl std::fmt::Display for LinkType {
    /// The RFC's names (section 18.5).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LinkType::Unspec => "UNSPEC_LINK",
            LinkType::Asym => "ASYM_LINK",
            LinkType::Sym => "SYM_LINK",
            LinkType::Lost => "LOST_LINK",
        })
    }
}

impl std::fmt::Display for NeighborType {
    /// The RFC's names (section 18.6).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NeighborType::NotNeigh => "NOT_NEIGH",
            NeighborType::SymNeigh => "SYM_NEIGH",
            NeighborType::MprNeigh => "MPR_NEIGH",
        })
    }
}

/// A HELLO link code: the byte as sent, with typed accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkCode(pub u8);

impl LinkCode {
    pub fn new(link: LinkType, neighbor: NeighborType) -> Self {
        Self((neighbor as u8) << 2 | link as u8)
    }

    pub fn link_type(self) -> LinkType {
        match self.0 & 0x03 {
            0 => LinkType::Unspec,
            1 => LinkType::Asym,
            2 => LinkType::Sym,
            _ => LinkType::Lost,
        }
    }

    /// `None` for the reserved neighbour type 3.
    pub fn neighbor_type(self) -> Option<NeighborType> {
        match (self.0 >> 2) & 0x03 {
            0 => Some(NeighborType::NotNeigh),
            1 => Some(NeighborType::SymNeigh),
            2 => Some(NeighborType::MprNeigh),
            _ => None,
        }
    }

    /// RFC 3626 section 6.1.1: codes above 15, and SYM_NEIGH with
    /// LOST_LINK, are invalid and their block is ignored.
    pub fn is_valid(self) -> bool {
        self.0 <= 15
            && self.neighbor_type().is_some()
            && !(self.neighbor_type() == Some(NeighborType::SymNeigh)
                && self.link_type() == LinkType::Lost)
    }
}

/// One link block of a HELLO: a link code and the neighbour interface
/// addresses it applies to.
///
/// ```text
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   Link Code   |   Reserved    |       Link Message Size       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  Neighbor Interface Address                   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                              ...                              :
/// ```
/// Link Message Size counts the block from its Link Code, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkBlock {
    pub code: LinkCode,
    pub addrs: Vec<NodeId>,
}

/// HELLO (RFC 3626 section 6.1): 4 bytes plus the link blocks.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          Reserved             |     Htime     |  Willingness  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   Link blocks ...                                             |
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelloRepr {
    /// Emission interval, time code.
    pub htime: u8,
    pub willingness: u8,
    pub links: Vec<LinkBlock>,
}

impl HelloRepr {
    pub fn buffer_len(&self) -> usize {
        4 + self
            .links
            .iter()
            .map(|l| 4 + 4 * l.addrs.len())
            .sum::<usize>()
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < 4 {
            return Err(WireError::Truncated);
        }
        let mut links = Vec::new();
        let mut at = 4;
        while at < b.len() {
            if b.len() - at < 4 {
                return Err(WireError::Truncated);
            }
            let size = be16(b, at + 2) as usize;
            if size < 4 || !size.is_multiple_of(4) {
                return Err(WireError::Malformed);
            }
            if b.len() - at < size {
                return Err(WireError::Truncated);
            }
            let addrs = (at + 4..at + size).step_by(4).map(|i| be32(b, i)).collect();
            links.push(LinkBlock {
                code: LinkCode(b[at]),
                addrs,
            });
            at += size;
        }
        Ok(Self {
            htime: b[2],
            willingness: b[3],
            links,
        })
    }

    fn emit(&self, b: &mut [u8]) {
        put16(b, 0, 0);
        b[2] = self.htime;
        b[3] = self.willingness;
        let mut at = 4;
        for l in &self.links {
            let size = 4 + 4 * l.addrs.len();
            b[at] = l.code.0;
            b[at + 1] = 0;
            put16(b, at + 2, size as u16);
            for (k, a) in l.addrs.iter().enumerate() {
                put32(b, at + 4 + 4 * k, *a);
            }
            at += size;
        }
    }
}

/// Topology Control (RFC 3626 section 9.1): 4 bytes plus 4 per advertised
/// neighbour.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |              ANSN             |           Reserved            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |               Advertised Neighbor Main Address                |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                              ...                              :
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcRepr {
    /// Advertised Neighbor Sequence Number.
    pub ansn: u16,
    pub advertised: Vec<NodeId>,
}

impl TcRepr {
    pub fn buffer_len(&self) -> usize {
        4 + 4 * self.advertised.len()
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < 4 {
            return Err(WireError::Truncated);
        }
        if !(b.len() - 4).is_multiple_of(4) {
            return Err(WireError::Malformed);
        }
        Ok(Self {
            ansn: be16(b, 0),
            advertised: (4..b.len()).step_by(4).map(|i| be32(b, i)).collect(),
        })
    }

    fn emit(&self, b: &mut [u8]) {
        put16(b, 0, self.ansn);
        put16(b, 2, 0);
        for (k, a) in self.advertised.iter().enumerate() {
            put32(b, 4 + 4 * k, *a);
        }
    }
}

/// Host and Network Association (RFC 3626 section 12.1): 8 bytes per
/// network the originator is a gateway to, its address and its netmask
/// (0.0.0.0/0.0.0.0 for the whole Internet, a default route).
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Network Address                       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                             Netmask                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                              ...                              :
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HnaRepr {
    /// (network address, netmask), as 32-bit values.
    pub networks: Vec<(u32, u32)>,
}

impl HnaRepr {
    pub fn buffer_len(&self) -> usize {
        8 * self.networks.len()
    }

    fn parse(b: &[u8]) -> Result<Self, WireError> {
        if !b.len().is_multiple_of(8) {
            return Err(WireError::Malformed);
        }
        Ok(Self {
            networks: (0..b.len())
                .step_by(8)
                .map(|i| (be32(b, i), be32(b, i + 4)))
                .collect(),
        })
    }

    fn emit(&self, b: &mut [u8]) {
        for (k, &(network, netmask)) in self.networks.iter().enumerate() {
            put32(b, 8 * k, network);
            put32(b, 8 * k + 4, netmask);
        }
    }
}

/// What a message carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageBody {
    Hello(HelloRepr),
    Tc(TcRepr),
    Hna(HnaRepr),
    /// Any other type (MID, unknown), bytes after the message header.
    Other {
        msg_type: u8,
        data: Vec<u8>,
    },
}

impl MessageBody {
    pub fn msg_type(&self) -> u8 {
        match self {
            MessageBody::Hello(_) => TYPE_HELLO,
            MessageBody::Tc(_) => TYPE_TC,
            MessageBody::Hna(_) => TYPE_HNA,
            MessageBody::Other { msg_type, .. } => *msg_type,
        }
    }

    fn buffer_len(&self) -> usize {
        match self {
            MessageBody::Hello(h) => h.buffer_len(),
            MessageBody::Tc(t) => t.buffer_len(),
            MessageBody::Hna(h) => h.buffer_len(),
            MessageBody::Other { data, .. } => data.len(),
        }
    }
}

/// A message: the 12-byte header (RFC 3626 section 3.3.2) and its body.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Message Type |     Vtime     |         Message Size          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      Originator Address                       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Time To Live |   Hop Count   |    Message Sequence Number    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Message Size counts the header too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRepr {
    /// Validity time, time code.
    pub vtime: u8,
    pub originator: NodeId,
    pub ttl: u8,
    pub hop_count: u8,
    pub seq: u16,
    pub body: MessageBody,
}

impl MessageRepr {
    pub const HEADER_LEN: usize = 12;

    pub fn buffer_len(&self) -> usize {
        Self::HEADER_LEN + self.body.buffer_len()
    }

    /// Parses one message at the start of `b`; returns it and its size.
    fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        if b.len() < Self::HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let size = be16(b, 2) as usize;
        if size < Self::HEADER_LEN {
            return Err(WireError::Malformed);
        }
        if b.len() < size {
            return Err(WireError::Truncated);
        }
        let data = &b[Self::HEADER_LEN..size];
        let body = match b[0] {
            TYPE_HELLO => MessageBody::Hello(HelloRepr::parse(data)?),
            TYPE_TC => MessageBody::Tc(TcRepr::parse(data)?),
            TYPE_HNA => MessageBody::Hna(HnaRepr::parse(data)?),
            t => MessageBody::Other {
                msg_type: t,
                data: data.to_vec(),
            },
        };
        let m = Self {
            vtime: b[1],
            originator: be32(b, 4),
            ttl: b[8],
            hop_count: b[9],
            seq: be16(b, 10),
            body,
        };
        Ok((m, size))
    }

    fn emit(&self, b: &mut [u8]) {
        let len = self.buffer_len();
        b[0] = self.body.msg_type();
        b[1] = self.vtime;
        put16(b, 2, len as u16);
        put32(b, 4, self.originator);
        b[8] = self.ttl;
        b[9] = self.hop_count;
        put16(b, 10, self.seq);
        let rest = &mut b[Self::HEADER_LEN..len];
        match &self.body {
            MessageBody::Hello(h) => h.emit(rest),
            MessageBody::Tc(t) => t.emit(rest),
            MessageBody::Hna(h) => h.emit(rest),
            MessageBody::Other { data, .. } => rest.copy_from_slice(data),
        }
    }
}

/// An OLSR packet (RFC 3626 section 3.3): a 4-byte header and messages.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Packet Length         |    Packet Sequence Number     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Messages ...                                                 |
/// ```
/// Packet Length counts the header too; bytes past it are ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketRepr {
    pub seq: u16,
    pub messages: Vec<MessageRepr>,
}

impl PacketRepr {
    pub const HEADER_LEN: usize = 4;

    pub fn buffer_len(&self) -> usize {
        Self::HEADER_LEN
            + self
                .messages
                .iter()
                .map(MessageRepr::buffer_len)
                .sum::<usize>()
    }

    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < Self::HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let len = be16(b, 0) as usize;
        if len < Self::HEADER_LEN {
            return Err(WireError::Malformed);
        }
        if b.len() < len {
            return Err(WireError::Truncated);
        }
        let mut messages = Vec::new();
        let mut at = Self::HEADER_LEN;
        while at < len {
            let (m, size) = MessageRepr::parse(&b[at..len])?;
            messages.push(m);
            at += size;
        }
        Ok(Self {
            seq: be16(b, 2),
            messages,
        })
    }

    /// Writes the packet into `b[..buffer_len()]`.
    pub fn emit(&self, b: &mut [u8]) {
        put16(b, 0, self.buffer_len() as u16);
        put16(b, 2, self.seq);
        let mut at = Self::HEADER_LEN;
        for m in &self.messages {
            let n = m.buffer_len();
            m.emit(&mut b[at..at + n]);
            at += n;
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    fn hello() -> MessageRepr {
        MessageRepr {
            vtime: encode_time(6 * NS_PER_S),
            originator: 7,
            ttl: 1,
            hop_count: 0,
            seq: 0xbeef,
            body: MessageBody::Hello(HelloRepr {
                htime: encode_time(2 * NS_PER_S),
                willingness: 3,
                links: vec![
                    LinkBlock {
                        code: LinkCode::new(LinkType::Sym, NeighborType::MprNeigh),
                        addrs: vec![1, 2],
                    },
                    LinkBlock {
                        code: LinkCode::new(LinkType::Asym, NeighborType::NotNeigh),
                        addrs: vec![0x0a00_0003],
                    },
                ],
            }),
        }
    }

    fn tc() -> MessageRepr {
        MessageRepr {
            vtime: encode_time(15 * NS_PER_S),
            originator: 9,
            ttl: 255,
            hop_count: 0,
            seq: 3,
            body: MessageBody::Tc(TcRepr {
                ansn: 65535,
                advertised: vec![4, 5, 6],
            }),
        }
    }

    fn hna() -> MessageRepr {
        MessageRepr {
            vtime: encode_time(15 * NS_PER_S),
            originator: 5,
            ttl: 255,
            hop_count: 0,
            seq: 12,
            body: MessageBody::Hna(HnaRepr {
                networks: vec![(0, 0), (0x0a01_0000, 0xffff_0000)],
            }),
        }
    }

    #[test]
    fn time_codes_follow_rfc_section_18_3() {
        // The RFC's examples of its defaults: 2 s, 6 s, 5 s, 15 s, 30 s
        // are all exactly representable.
        for s in [2u64, 5, 6, 15, 30] {
            let c = encode_time(s * NS_PER_S);
            assert_eq!(decode_time(c), s * NS_PER_S, "{s} s -> {c:#x}");
        }
        // 6 s = C × (1 + 8/16) × 2^6: a = 8, b = 6.
        assert_eq!(encode_time(6 * NS_PER_S), 0x86);
        // 2 s = C × 2^5: a = 0, b = 5.
        assert_eq!(encode_time(2 * NS_PER_S), 0x05);
        assert_eq!(decode_time(0), NS_PER_S / 16);
        // Rounding is upwards: 0.5 s + 1 ms needs the next code.
        let c = encode_time(500 * NS_PER_MS + NS_PER_MS);
        assert!(decode_time(c) >= 501 * NS_PER_MS);
        assert!(decode_time(c) < 600 * NS_PER_MS);
        assert_eq!(encode_time(u64::MAX / 4), 0xff);
        // Every code decodes to a value that encodes back to itself.
        for c in 0..=255u8 {
            assert_eq!(encode_time(decode_time(c)), c, "{c:#x}");
        }
    }

    #[test]
    fn link_codes_carry_link_and_neighbour_types() {
        let c = LinkCode::new(LinkType::Sym, NeighborType::MprNeigh);
        assert_eq!(c.0, 0b1010);
        assert_eq!(c.link_type(), LinkType::Sym);
        assert_eq!(c.neighbor_type(), Some(NeighborType::MprNeigh));
        assert!(c.is_valid());
        assert!(!LinkCode::new(LinkType::Lost, NeighborType::SymNeigh).is_valid());
        assert!(LinkCode::new(LinkType::Lost, NeighborType::NotNeigh).is_valid());
        assert!(!LinkCode(0b1100).is_valid());
        assert!(!LinkCode(16).is_valid());
        assert_eq!(
            format!("{} {}", c.link_type(), NeighborType::MprNeigh),
            "SYM_LINK MPR_NEIGH"
        );
        assert_eq!(LinkType::Lost.to_string(), "LOST_LINK");
    }

    #[test]
    fn hello_round_trips_with_exact_size() {
        let p = PacketRepr {
            seq: 1,
            messages: vec![hello()],
        };
        let b = p.to_bytes();
        // 4 packet header + 12 message header + 4 HELLO + (4 + 8) + (4 + 4).
        assert_eq!(b.len(), 40);
        assert_eq!(&b[0..4], &[0, 40, 0, 1]);
        assert_eq!(b[4], TYPE_HELLO);
        assert_eq!(&b[6..8], &[0, 36]);
        assert_eq!(b[16 + 2], 0x05);
        assert_eq!(&b[20..24], &[0b1010, 0, 0, 12]);
        assert_eq!(PacketRepr::parse(&b), Ok(p));
    }

    #[test]
    fn tc_round_trips_with_exact_size_and_messages_concatenate() {
        let p = PacketRepr {
            seq: 65535,
            messages: vec![tc(), hello()],
        };
        let b = p.to_bytes();
        assert_eq!(b.len(), 4 + (12 + 4 + 12) + 36);
        assert_eq!(&b[16..18], &[0xff, 0xff], "ANSN");
        assert_eq!(PacketRepr::parse(&b), Ok(p));
        let other = PacketRepr {
            seq: 2,
            messages: vec![MessageRepr {
                body: MessageBody::Other {
                    msg_type: TYPE_MID,
                    data: vec![10, 0, 0, 7],
                },
                ..tc()
            }],
        };
        assert_eq!(PacketRepr::parse(&other.to_bytes()), Ok(other));
    }

    #[test]
    fn hna_round_trips_with_eight_bytes_a_network() {
        let p = PacketRepr {
            seq: 9,
            messages: vec![hna()],
        };
        let b = p.to_bytes();
        assert_eq!(b.len(), 4 + 12 + 16);
        assert_eq!(b[4], TYPE_HNA);
        // The default route, then 10.1.0.0/16.
        assert_eq!(&b[16..24], &[0; 8]);
        assert_eq!(&b[24..32], &[10, 1, 0, 0, 255, 255, 0, 0]);
        assert_eq!(PacketRepr::parse(&b), Ok(p));
        // A body that is not whole pairs.
        let mut m = b.clone();
        m[7] -= 4;
        m[1] -= 4;
        assert_eq!(PacketRepr::parse(&m[..28]), Err(WireError::Malformed));
        let empty = PacketRepr {
            seq: 1,
            messages: vec![MessageRepr {
                body: MessageBody::Hna(HnaRepr { networks: vec![] }),
                ..hna()
            }],
        };
        assert_eq!(PacketRepr::parse(&empty.to_bytes()), Ok(empty));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(PacketRepr::parse(&[]), Err(WireError::Truncated));
        assert_eq!(PacketRepr::parse(&[0, 2, 0, 0]), Err(WireError::Malformed));
        let b = PacketRepr {
            seq: 1,
            messages: vec![hello()],
        }
        .to_bytes();
        for n in 0..b.len() {
            assert_eq!(PacketRepr::parse(&b[..n]), Err(WireError::Truncated), "{n}");
        }
        // A message size below its header.
        let mut m = b.clone();
        m[7] = 4;
        assert_eq!(PacketRepr::parse(&m), Err(WireError::Malformed));
        // A link block size that is not a multiple of 4.
        let mut m = b.clone();
        m[23] = 6;
        assert_eq!(PacketRepr::parse(&m), Err(WireError::Malformed));
    }

    #[test]
    fn fuzz_random_and_truncated_bytes_never_panic() {
        let valid = [
            PacketRepr {
                seq: 1,
                messages: vec![hello()],
            }
            .to_bytes(),
            PacketRepr {
                seq: 2,
                messages: vec![tc(), hello()],
            }
            .to_bytes(),
            PacketRepr {
                seq: 3,
                messages: vec![hna(), tc()],
            }
            .to_bytes(),
        ];
        let mut parsed = 0;
        super::super::fuzz(
            698,
            20_000,
            &valid,
            |rng, _| rng.below(80) as usize,
            |_, i, mut b| {
                if i % 5 == 0 && b.len() >= 2 {
                    // A plausible packet length, so messages get parsed.
                    let n = b.len() as u16;
                    b[..2].copy_from_slice(&n.to_be_bytes());
                }
                parsed += u32::from(round_trips!(PacketRepr, &b));
            },
        );
        assert!(parsed > 100, "only {parsed} inputs parsed");
    }
}
