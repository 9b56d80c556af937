//! Routing protocols, one folder per protocol, each a [`RoutingProtocol`]
//! state machine (the contract is in `net::routing`).
//!
//! [`Router`] is the per-node agent: an enum over the protocols, built from
//! the scenario, dispatching statically.

pub mod aodv;
pub mod aomdv;
pub mod dsdv;
pub mod dsr;
pub mod olsr;
mod static_routes;
#[cfg(test)]
mod testkit;
pub mod timers;

pub use aodv::{Aodv, AodvConfig};
pub use static_routes::{StaticRoutes, StaticRouting};

use crate::engine::SimTime;
use crate::net::{NodeId, Packet, RoutingCtx, RoutingProtocol};

/// A node's routing agent.
#[derive(Debug, Clone)]
pub enum Router {
    Static(StaticRouting),
    Aodv(Box<Aodv>),
    Dsr(Box<dsr::Dsr>),
    Dsdv(Box<dsdv::Dsdv>),
    Aomdv(Box<aomdv::Aomdv>),
    Olsr(Box<olsr::Olsr>),
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Router::Static($r) => $e,
            Router::Aodv($r) => $e,
            Router::Dsr($r) => $e,
            Router::Dsdv($r) => $e,
            Router::Aomdv($r) => $e,
            Router::Olsr($r) => $e,
        }
    };
}

impl RoutingProtocol for Router {
    fn name(&self) -> &'static str {
        dispatch!(self, r => r.name())
    }
    fn start(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.start(now, ctx))
    }
    fn route_output(&mut self, now: SimTime, packet: Packet, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.route_output(now, packet, ctx))
    }
    fn route_to_internet(
        &mut self,
        now: SimTime,
        packet: Packet,
        host: NodeId,
        ctx: &mut RoutingCtx,
    ) {
        dispatch!(self, r => r.route_to_internet(now, packet, host, ctx))
    }
    fn on_control(&mut self, now: SimTime, from: NodeId, packet: Packet, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.on_control(now, from, packet, ctx))
    }
    fn wants_promiscuous(&self) -> bool {
        dispatch!(self, r => r.wants_promiscuous())
    }
    fn hears_failure(&self, packet: &Packet) -> bool {
        dispatch!(self, r => r.hears_failure(packet))
    }
    fn waiting_packets(&self) -> Vec<&Packet> {
        dispatch!(self, r => r.waiting_packets())
    }
    fn drops_returning_packets(&self) -> bool {
        dispatch!(self, r => r.drops_returning_packets())
    }
    fn reroutes_control(&self) -> bool {
        dispatch!(self, r => r.reroutes_control())
    }

    fn overhears_control(&self) -> bool {
        dispatch!(self, r => r.overhears_control())
    }
    fn on_overheard(&mut self, now: SimTime, from: NodeId, packet: &Packet, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.on_overheard(now, from, packet, ctx))
    }
    fn on_delivered(&mut self, now: SimTime, from: NodeId, packet: &Packet) {
        dispatch!(self, r => r.on_delivered(now, from, packet))
    }
    fn header_bytes(&self, packet: &Packet) -> u32 {
        dispatch!(self, r => r.header_bytes(packet))
    }
    fn on_reroute(&mut self, now: SimTime, packet: Packet, next_hop: NodeId, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.on_reroute(now, packet, next_hop, ctx))
    }
    fn on_link_failure(
        &mut self,
        now: SimTime,
        next_hop: NodeId,
        packet: Option<Packet>,
        ctx: &mut RoutingCtx,
    ) {
        dispatch!(self, r => r.on_link_failure(now, next_hop, packet, ctx))
    }
    fn flood_id(&self, packet: &Packet) -> Option<(NodeId, u32)> {
        dispatch!(self, r => r.flood_id(packet))
    }
    fn flood_memory(&self) -> SimTime {
        dispatch!(self, r => r.flood_memory())
    }
    fn has_seen(&self, id: (NodeId, u32), at: SimTime) -> bool {
        dispatch!(self, r => r.has_seen(id, at))
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, r => r.poll_timeout())
    }
    fn on_timeout(&mut self, now: SimTime, ctx: &mut RoutingCtx) {
        dispatch!(self, r => r.on_timeout(now, ctx))
    }
    fn buffered(&self) -> u64 {
        dispatch!(self, r => r.buffered())
    }
    fn hop_count(&self, dst: NodeId, now: SimTime) -> Option<u32> {
        dispatch!(self, r => r.hop_count(dst, now))
    }
    fn route_discoveries(&self) -> u64 {
        dispatch!(self, r => r.route_discoveries())
    }
    fn flow_state_counts(&self) -> crate::metrics::result::FlowStateCounts {
        dispatch!(self, r => r.flow_state_counts())
    }
}
