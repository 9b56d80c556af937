//! The network layer: packets, IP-like forwarding with TTL, and routing.

pub mod arp;
mod packet;
pub mod routing;

pub use packet::{
    NodeId, Packet, PacketKind, TransportHeader, BROADCAST, DEFAULT_TTL, IP_HEADER_BYTES,
    UDP_HEADER_BYTES,
};
pub use routing::{RoutingAction, RoutingCtx, RoutingProtocol};
