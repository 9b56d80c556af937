//! The unit that travels between sender and receiver.

use crate::engine::SimTime;
use crate::wire::tcp::{TcpRepr, FLAG_ACK, FLAG_FIN, FLAG_SYN};

/// The TCP flags this model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpFlags {
    pub syn: bool,
    pub ack: bool,
    pub fin: bool,
}

/// One TCP segment. The world wraps it in a packet whose size is
/// `20 (IP) + wire_len() + len`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TcpSegment {
    /// First sequence number (byte) of the segment.
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK, SYN or FIN).
    pub len: u32,
    /// Cumulative ACK (next byte expected), meaningful when `flags.ack`.
    pub ack: u64,
    pub flags: TcpFlags,
    /// SACK blocks `[start, end)`, most recent first (RFC 2018), at most 3.
    pub sack: Vec<(u64, u64)>,
    /// Send time of this segment (RFC 7323 TSval, in simulated time).
    pub ts_val: SimTime,
    /// Echo of the TSval of the segment that triggered this ACK.
    pub ts_ecr: SimTime,
    /// A retransmission (statistics only).
    pub retransmission: bool,
    /// Advertised receive window, bytes.
    pub window: u32,
    /// Carry the timestamp option on the wire (counts 12 bytes).
    pub ts_option: bool,
    /// SACK-permitted option (on SYN / SYN-ACK of a SACK connection).
    pub sack_permitted: bool,
}

impl TcpSegment {
    /// Sequence space the segment occupies (payload, plus SYN and FIN).
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.flags.syn as u64 + self.flags.fin as u64
    }

    /// The wire header (ports 0; the world may set them).
    pub fn repr(&self) -> TcpRepr {
        let mut flags = 0;
        if self.flags.syn {
            flags |= FLAG_SYN;
        }
        if self.flags.ack {
            flags |= FLAG_ACK;
        }
        if self.flags.fin {
            flags |= FLAG_FIN;
        }
        TcpRepr {
            src_port: 0,
            dst_port: 0,
            seq: self.seq as u32,
            ack: self.ack as u32,
            flags,
            window: self.window.min(u16::MAX as u32) as u16,
            mss: None,
            sack_permitted: self.sack_permitted,
            sack: self
                .sack
                .iter()
                .map(|&(a, b)| (a as u32, b as u32))
                .collect(),
            // Timestamps in microseconds, truncated to 32 bits.
            timestamp: self
                .ts_option
                .then_some(((self.ts_val / 1000) as u32, (self.ts_ecr / 1000) as u32)),
        }
    }

    /// TCP header bytes as ns-2.35's `Sack1` sink counts them: the header
    /// without the SACK option, and 8 bytes per SACK block (its
    /// `Sacker::append_ack`; the RFC 2018 option is 2 bytes more, padded
    /// to 4).
    pub fn wire_len_ns2_sack(&self) -> u32 {
        let mut repr = self.repr();
        let blocks = repr.sack.len() as u32;
        repr.sack.clear();
        repr.buffer_len() as u32 + 8 * blocks
    }

    /// TCP header bytes including options.
    pub fn wire_len(&self) -> u32 {
        self.repr().buffer_len() as u32
    }

    /// The TCP header in its real byte layout (payload not included).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.repr().to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_len_counts_options() {
        let mut s = TcpSegment {
            flags: TcpFlags {
                ack: true,
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(s.wire_len(), 20);
        s.sack = vec![(1000, 2000)];
        assert_eq!(s.wire_len(), 32);
        assert_eq!(s.wire_len_ns2_sack(), 28);
        s.sack = vec![(1000, 2000), (3000, 4000), (5000, 6000)];
        assert_eq!((s.wire_len(), s.wire_len_ns2_sack()), (48, 44));
        s.sack = vec![(1000, 2000)];
        s.ts_option = true;
        assert_eq!(s.wire_len(), 44);
        assert_eq!(s.wire_len_ns2_sack(), 40);
        let p = TcpRepr::parse(&s.to_bytes()).unwrap();
        assert_eq!(p.sack, vec![(1000, 2000)]);
    }
}
