//! The TCP header (RFC 9293 section 3.1) with the options this simulator
//! uses: MSS (RFC 9293), SACK-permitted and SACK (RFC 2018) and timestamps
//! (RFC 7323).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |          Source Port          |       Destination Port        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                        Sequence Number                        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    Acknowledgment Number                      |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  Data |       |C|E|U|A|P|R|S|F|                               |
//! | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |           Checksum            |         Urgent Pointer        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    Options (0–40 bytes)                       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! Options are emitted 4-byte aligned with NOP padding in the usual layout:
//! `NOP NOP TS(10)`, `NOP NOP SACK(2+8n)`, `MSS(4)`, `NOP NOP SACK-OK(2)`.
//! At most 40 option bytes fit, so with timestamps at most 3 SACK blocks are
//! emitted (4 without). The checksum is left 0: the simulator has no
//! pseudo-header and never corrupts bits. [`TcpRepr::parse`] never panics.

use super::{be16, be32};
use super::{emitted, WireError};

/// Fixed header length without options.
pub const HEADER_LEN: usize = 20;
/// Maximum option bytes (data offset 15 × 4 − 20).
pub const MAX_OPTIONS_LEN: usize = 40;

pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_SYN: u8 = 0x02;
pub const FLAG_RST: u8 = 0x04;
pub const FLAG_PSH: u8 = 0x08;
pub const FLAG_ACK: u8 = 0x10;

const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMP: u8 = 8;

/// A TCP header in high-level form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// `FLAG_*` bits.
    pub flags: u8,
    pub window: u16,
    pub mss: Option<u16>,
    pub sack_permitted: bool,
    /// SACK blocks `[left, right)` (RFC 2018 section 3).
    pub sack: Vec<(u32, u32)>,
    /// `(TSval, TSecr)` (RFC 7323 section 3).
    pub timestamp: Option<(u32, u32)>,
}

impl TcpRepr {
    /// How many SACK blocks fit next to the other options.
    pub fn max_sack_blocks(&self) -> usize {
        let mut room = MAX_OPTIONS_LEN;
        if self.timestamp.is_some() {
            room -= 12;
        }
        if self.mss.is_some() {
            room -= 4;
        }
        if self.sack_permitted {
            room -= 4;
        }
        room.saturating_sub(4) / 8
    }

    fn sack_emitted(&self) -> usize {
        self.sack.len().min(self.max_sack_blocks())
    }

    /// Option bytes, padded to a multiple of 4.
    pub fn options_len(&self) -> usize {
        let mut n = 0;
        if self.timestamp.is_some() {
            n += 12;
        }
        let blocks = self.sack_emitted();
        if blocks > 0 {
            n += 4 + 8 * blocks;
        }
        if self.mss.is_some() {
            n += 4;
        }
        if self.sack_permitted {
            n += 4;
        }
        n
    }

    /// Header length including options.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.options_len()
    }

    /// Writes the header into `buf`, which must be at least `buffer_len()`
    /// bytes long (panics otherwise, like every emit in this module).
    pub fn emit(&self, buf: &mut [u8]) {
        let len = self.buffer_len();
        let b = &mut buf[..len];
        b.fill(0);
        b[0..2].copy_from_slice(&self.src_port.to_be_bytes());
        b[2..4].copy_from_slice(&self.dst_port.to_be_bytes());
        b[4..8].copy_from_slice(&self.seq.to_be_bytes());
        b[8..12].copy_from_slice(&self.ack.to_be_bytes());
        b[12] = ((len / 4) as u8) << 4;
        b[13] = self.flags;
        b[14..16].copy_from_slice(&self.window.to_be_bytes());
        let mut at = HEADER_LEN;
        if let Some((val, ecr)) = self.timestamp {
            b[at] = OPT_NOP;
            b[at + 1] = OPT_NOP;
            b[at + 2] = OPT_TIMESTAMP;
            b[at + 3] = 10;
            b[at + 4..at + 8].copy_from_slice(&val.to_be_bytes());
            b[at + 8..at + 12].copy_from_slice(&ecr.to_be_bytes());
            at += 12;
        }
        let blocks = self.sack_emitted();
        if blocks > 0 {
            b[at] = OPT_NOP;
            b[at + 1] = OPT_NOP;
            b[at + 2] = OPT_SACK;
            b[at + 3] = (2 + 8 * blocks) as u8;
            at += 4;
            for &(l, r) in &self.sack[..blocks] {
                b[at..at + 4].copy_from_slice(&l.to_be_bytes());
                b[at + 4..at + 8].copy_from_slice(&r.to_be_bytes());
                at += 8;
            }
        }
        if let Some(mss) = self.mss {
            b[at] = OPT_MSS;
            b[at + 1] = 4;
            b[at + 2..at + 4].copy_from_slice(&mss.to_be_bytes());
            at += 4;
        }
        if self.sack_permitted {
            b[at] = OPT_NOP;
            b[at + 1] = OPT_NOP;
            b[at + 2] = OPT_SACK_PERMITTED;
            b[at + 3] = 2;
        }
    }

    /// The header as a fresh byte vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        emitted(self.buffer_len(), |b| self.emit(b))
    }

    /// Parses a header (the payload, if any, follows at the returned
    /// header's `buffer_len()`). Unknown options are skipped by their length.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        if b.len() < HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let hlen = (b[12] >> 4) as usize * 4;
        if hlen < HEADER_LEN {
            return Err(WireError::Malformed);
        }
        if b.len() < hlen {
            return Err(WireError::Truncated);
        }
        let mut r = TcpRepr {
            src_port: be16(b, 0),
            dst_port: be16(b, 2),
            seq: be32(b, 4),
            ack: be32(b, 8),
            flags: b[13],
            window: be16(b, 14),
            ..Default::default()
        };
        let opts = &b[HEADER_LEN..hlen];
        let mut i = 0;
        while i < opts.len() {
            let kind = opts[i];
            match kind {
                OPT_EOL => break,
                OPT_NOP => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if i + 1 >= opts.len() {
                return Err(WireError::Malformed);
            }
            let olen = opts[i + 1] as usize;
            if olen < 2 || i + olen > opts.len() {
                return Err(WireError::Malformed);
            }
            let body = &opts[i + 2..i + olen];
            match kind {
                OPT_MSS => {
                    if body.len() != 2 {
                        return Err(WireError::Malformed);
                    }
                    r.mss = Some(be16(body, 0));
                }
                OPT_SACK_PERMITTED => {
                    if !body.is_empty() {
                        return Err(WireError::Malformed);
                    }
                    r.sack_permitted = true;
                }
                OPT_SACK => {
                    if !body.len().is_multiple_of(8) {
                        return Err(WireError::Malformed);
                    }
                    for c in body.chunks_exact(8) {
                        r.sack.push((be32(c, 0), be32(c, 4)));
                    }
                }
                OPT_TIMESTAMP => {
                    if body.len() != 8 {
                        return Err(WireError::Malformed);
                    }
                    r.timestamp = Some((be32(body, 0), be32(body, 4)));
                }
                _ => {}
            }
            i += olen;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Rng, Stream};

    fn full() -> TcpRepr {
        TcpRepr {
            src_port: 1234,
            dst_port: 80,
            seq: 0xDEAD_BEEF,
            ack: 42,
            flags: FLAG_ACK | FLAG_PSH,
            window: 65535,
            mss: None,
            sack_permitted: false,
            sack: vec![(100, 200), (300, 400), (500, 600)],
            timestamp: Some((7, 8)),
        }
    }

    #[test]
    fn plain_header_is_20_bytes_and_round_trips() {
        let r = TcpRepr {
            seq: 1,
            ack: 2,
            flags: FLAG_ACK,
            window: 10,
            ..Default::default()
        };
        assert_eq!(r.buffer_len(), 20);
        let b = r.to_bytes();
        assert_eq!(b[12] >> 4, 5);
        assert_eq!(TcpRepr::parse(&b).unwrap(), r);
    }

    #[test]
    fn sack_and_timestamps_round_trip_in_40_option_bytes() {
        let r = full();
        assert_eq!(r.options_len(), 40);
        assert_eq!(r.buffer_len(), 60);
        let b = r.to_bytes();
        assert_eq!(TcpRepr::parse(&b).unwrap(), r);
    }

    #[test]
    fn syn_options_round_trip() {
        let r = TcpRepr {
            flags: FLAG_SYN,
            mss: Some(1460),
            sack_permitted: true,
            timestamp: Some((1, 0)),
            ..Default::default()
        };
        assert_eq!(r.buffer_len(), 20 + 12 + 4 + 4);
        assert_eq!(TcpRepr::parse(&r.to_bytes()).unwrap(), r);
    }

    #[test]
    fn too_many_sack_blocks_are_cut_to_fit() {
        let mut r = full();
        r.sack.push((700, 800));
        let p = TcpRepr::parse(&r.to_bytes()).unwrap();
        assert_eq!(p.sack.len(), 3);
        r.timestamp = None;
        let p = TcpRepr::parse(&r.to_bytes()).unwrap();
        assert_eq!(p.sack.len(), 4);
    }

    #[test]
    fn truncated_and_malformed_are_errors() {
        let b = full().to_bytes();
        for n in 0..b.len() {
            assert!(TcpRepr::parse(&b[..n]).is_err(), "len {n}");
        }
        let mut bad = b.clone();
        bad[12] = 0x30; // data offset 3 words
        assert_eq!(TcpRepr::parse(&bad), Err(WireError::Malformed));
        let mut bad = b;
        bad[23] = 1; // timestamp option length 1
        assert_eq!(TcpRepr::parse(&bad), Err(WireError::Malformed));
    }

    #[test]
    fn fuzz_random_and_mutated_bytes_never_panic() {
        let mut rng = Rng::new(7, Stream::Test, 61);
        let base = full().to_bytes();
        for _ in 0..20_000 {
            let n = rng.below(70) as usize;
            let mut v: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
            if rng.below(2) == 0 {
                v = base.clone();
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(v.len() as u64) as usize;
                    v[i] = rng.below(256) as u8;
                }
                v.truncate(rng.below(v.len() as u64 + 1) as usize);
            }
            if let Ok(r) = TcpRepr::parse(&v) {
                // Whatever parses re-emits without panicking.
                let _ = r.to_bytes();
            }
        }
    }
}
