//! 802.11 frames as they travel over the simulated air.

use crate::engine::SimTime;
use crate::net::{NodeId, Packet, BROADCAST};

/// RTS: frame control, duration, RA, TA, FCS.
pub const RTS_BYTES: u32 = 20;
/// CTS and ACK: frame control, duration, RA, FCS.
pub const CTS_BYTES: u32 = 14;
pub const ACK_BYTES: u32 = 14;
/// Data header (frame control, duration, 3 addresses, sequence control) + FCS.
pub const DATA_HEADER_BYTES: u32 = 28;
/// The LLC/SNAP header (RFC 1042) before an IP datagram or ARP message in
/// a data frame, as stations send it and ns-3 counts it.
pub const LLC_SNAP_BYTES: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Ack,
    Data,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address.
    pub ta: NodeId,
    /// Receiver address (`BROADCAST` for broadcast data).
    pub ra: NodeId,
    /// Duration field: how long the medium stays reserved after this frame.
    pub duration_ns: SimTime,
    /// Sequence number (data frames), for duplicate detection.
    pub seq: u16,
    /// Whether this is a retransmission.
    pub retry: bool,
    /// Frame bytes: MAC header + body + FCS (the PLCP is accounted as time).
    pub bytes: u32,
    /// The packet carried by a data frame.
    pub packet: Option<Packet>,
}

impl Frame {
    pub fn control(kind: FrameKind, ta: NodeId, ra: NodeId, duration_ns: SimTime) -> Self {
        let bytes = match kind {
            FrameKind::Rts => RTS_BYTES,
            FrameKind::Cts => CTS_BYTES,
            FrameKind::Ack => ACK_BYTES,
            FrameKind::Data => DATA_HEADER_BYTES,
        };
        Self {
            kind,
            ta,
            ra,
            duration_ns,
            seq: 0,
            retry: false,
            bytes,
            packet: None,
        }
    }

    /// Whether a promiscuous receiver hands this frame's packet to its
    /// routing agent when it overhears it: a unicast data frame carrying a
    /// data packet, or (with `control`) a routing-control message. The
    /// world and the MAC both decide with this one test (see `sim`).
    pub fn tappable(&self, control: bool) -> bool {
        self.kind == FrameKind::Data
            && self.ra != BROADCAST
            && self
                .packet
                .as_ref()
                .is_some_and(|p| !p.is_arp() && (control || !p.is_control()))
    }
}

/// A control frame (RTS, CTS or ACK) waiting in the MAC to go out: a
/// [`Frame`] without the transmitter (the MAC's own address) and without
/// room for a packet, so a MAC's pending control frames stay small.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Control {
    pub kind: FrameKind,
    pub ra: NodeId,
    pub duration_ns: SimTime,
    pub retry: bool,
}

impl Control {
    pub fn new(kind: FrameKind, ra: NodeId, duration_ns: SimTime) -> Self {
        Self {
            kind,
            ra,
            duration_ns,
            retry: false,
        }
    }

    /// The frame as transmitter `ta` sends it.
    pub fn frame(&self, ta: NodeId) -> Frame {
        let mut f = Frame::control(self.kind, ta, self.ra, self.duration_ns);
        f.retry = self.retry;
        f
    }
}
