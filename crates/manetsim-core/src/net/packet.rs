//! Network-layer packets.
//!
//! A packet carries its real size in bytes (IP header + transport header +
//! payload), because size drives airtime. The struct holds no heap data, so
//! handing a copy to each receiver of a broadcast costs a memcpy.

use crate::engine::SimTime;
use crate::transport::sctp::SctpChunk;
use crate::transport::tcp::TcpSegment;
use crate::transport::tfrc::TfrcHeader;
use std::rc::Rc;

/// A node's id, also its address.
pub type NodeId = u32;

/// The broadcast address.
pub const BROADCAST: NodeId = u32::MAX;

/// IPv4 header without options.
pub const IP_HEADER_BYTES: u32 = 20;
/// UDP header.
pub const UDP_HEADER_BYTES: u32 = 8;
/// Initial TTL: ns-2's `hdr_ip` default of 32.
pub const DEFAULT_TTL: u8 = 32;

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// Application data of flow `flow`, sequence number `seq` (0-based).
    Data { flow: u32, seq: u64 },
    /// A routing-control message.
    Control,
    /// A TCP segment without payload (ACK, SYN, FIN) of flow `flow`.
    TcpAck { flow: u32 },
    /// An ARP request for `target`'s address, or a reply (see
    /// [`crate::net::arp`]); not an IP datagram.
    Arp { target: NodeId, reply: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    /// The packet's id in traces (ns-2's `uid`), given by the world. A
    /// relayed routing message that ns-2.35 forwards as the same packet (a
    /// DSR request, reply or route error, an AODV or AOMDV RREQ or RREP)
    /// keeps the uid of the packet it passes on (`RoutingCtx::relay`).
    pub uid: u64,
    pub kind: PacketKind,
    /// Originator and final destination (`BROADCAST` for floods).
    pub src: NodeId,
    pub dst: NodeId,
    pub ttl: u8,
    /// IP datagram size: IP header + transport header + payload.
    pub size_bytes: u32,
    /// Application payload bytes.
    pub payload_bytes: u32,
    /// When the application created it.
    pub created_at: SimTime,
    /// MAC hops travelled so far.
    pub hops: u16,
    /// Bytes of an earlier routing header that `size_bytes` still counts
    /// though the packet no longer carries it: ns-2.35's DSR counts a
    /// relay's old source route again when it salvages a packet through its
    /// send buffer ([`DsrConfig::ns2_buffered_salvage_sizes`]). They go on
    /// the air and into traces, but are not part of the datagram its source
    /// sent, which the flow's counts take. 0 for every other packet.
    ///
    /// [`DsrConfig::ns2_buffered_salvage_sizes`]: crate::routing::dsr::DsrConfig::ns2_buffered_salvage_sizes
    pub stale_header_bytes: u16,
    /// A fingerprint of the nodes the packet has visited, in order (see
    /// [`Packet::visit`]); two packets of a flow took the same route exactly
    /// when their fingerprints at the destination are equal.
    pub path: u64,
    /// Routing-protocol bytes in their real wire layout, shared between copies:
    /// the whole message for a control packet (e.g. an AODV RREQ, the UDP
    /// payload), or a header carried by a data packet (e.g. DSR's options
    /// header). They are already counted in `size_bytes`: by their length,
    /// or as the protocol counts them (DSR with ns-2.35's header sizes;
    /// [`RoutingProtocol::header_bytes`](crate::net::routing::RoutingProtocol::header_bytes)).
    pub body: Option<Rc<[u8]>>,
    /// The transport header a TCP, TFRC or SCTP packet carries, shared
    /// between copies (its length is counted in `size_bytes`): see
    /// [`Self::tcp`], [`Self::tfrc`] and [`Self::sctp`]. One field for all
    /// keeps the packet small.
    pub transport: Option<Rc<TransportHeader>>,
}

/// A transport protocol's header, as a packet carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportHeader {
    /// A TCP segment (header and options; its payload is `payload_bytes`).
    Tcp(TcpSegment),
    /// TFRC's data or feedback.
    Tfrc(TfrcHeader),
    /// SCTP's one chunk (see [`crate::transport::sctp`]).
    Sctp(SctpChunk),
}

impl TransportHeader {
    /// A shared TCP header.
    pub fn tcp(seg: TcpSegment) -> Option<Rc<Self>> {
        Some(Rc::new(Self::Tcp(seg)))
    }

    /// A shared TFRC header.
    pub fn tfrc(h: TfrcHeader) -> Option<Rc<Self>> {
        Some(Rc::new(Self::Tfrc(h)))
    }

    /// A shared SCTP chunk.
    pub fn sctp(c: SctpChunk) -> Option<Rc<Self>> {
        Some(Rc::new(Self::Sctp(c)))
    }
}

// A packet in flight is copied through queues and the air: it stays within
// 88 bytes on 64-bit targets (`stale_header_bytes` took padding).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Packet>() <= 88);

impl Packet {
    pub fn is_control(&self) -> bool {
        matches!(self.kind, PacketKind::Control)
    }

    pub fn is_arp(&self) -> bool {
        matches!(self.kind, PacketKind::Arp { .. })
    }

    /// A routing-control packet from `src` to `dst` (or `BROADCAST`) carrying
    /// `message` after `transport_header_bytes` (8 for UDP, 0 for a message
    /// carried directly in IP, like DSR). The world assigns `uid` and
    /// `created_at` when the packet is originated.
    pub fn control(
        src: NodeId,
        dst: NodeId,
        ttl: u8,
        transport_header_bytes: u32,
        message: Vec<u8>,
    ) -> Self {
        let size_bytes = IP_HEADER_BYTES + transport_header_bytes + message.len() as u32;
        Self {
            uid: 0,
            kind: PacketKind::Control,
            src,
            dst,
            ttl,
            size_bytes,
            payload_bytes: 0,
            created_at: 0,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: Some(message.into()),
            transport: None,
        }
    }

    /// Records that the packet is at node `n` (the source, then each hop).
    pub fn visit(&mut self, n: NodeId) {
        let mut z = (self.path ^ n as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.path = z ^ (z >> 31);
    }

    /// The TCP segment a TCP packet carries.
    pub fn tcp(&self) -> Option<&TcpSegment> {
        match self.transport.as_deref() {
            Some(TransportHeader::Tcp(seg)) => Some(seg),
            _ => None,
        }
    }

    /// What a TFRC packet carries.
    pub fn tfrc(&self) -> Option<&TfrcHeader> {
        match self.transport.as_deref() {
            Some(TransportHeader::Tfrc(h)) => Some(h),
            _ => None,
        }
    }

    /// The chunk an SCTP packet carries.
    pub fn sctp(&self) -> Option<&SctpChunk> {
        match self.transport.as_deref() {
            Some(TransportHeader::Sctp(c)) => Some(c),
            _ => None,
        }
    }

    /// The routing bytes, or an empty slice.
    pub fn body(&self) -> &[u8] {
        self.body.as_deref().unwrap_or(&[])
    }
}
