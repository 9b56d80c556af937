//! Test harness for the routing agents' state-machine tests: one agent,
//! driven directly with hand-built packets, its actions collected.

use super::RoutingProtocol;
use crate::engine::{Rng, SimTime, NS_PER_MS};
use crate::net::{NodeId, Packet, PacketKind, RoutingAction, RoutingCtx, DEFAULT_TTL};

/// One agent with its random stream and the actions it pushed.
pub(crate) struct Agent<P> {
    pub me: NodeId,
    pub a: P,
    pub rng: Rng,
    pub out: Vec<RoutingAction>,
    /// Whether the run writes an ns-2 trace ([`RoutingCtx::tracing`]).
    pub tracing: bool,
}

impl<P: RoutingProtocol> Agent<P> {
    /// Agent `a` of node `me`, drawing from `Rng::from_seed(seed)`.
    pub fn wrap(me: NodeId, a: P, seed: u64) -> Self {
        Self {
            me,
            a,
            rng: Rng::from_seed(seed),
            out: Vec::new(),
            tracing: false,
        }
    }

    /// Calls the agent; returns what it pushed.
    pub fn run(&mut self, f: impl FnOnce(&mut P, &mut RoutingCtx)) -> Vec<RoutingAction> {
        let mut ctx = RoutingCtx {
            me: self.me,
            rng: &mut self.rng,
            out: &mut self.out,
            tracing: self.tracing,
        };
        f(&mut self.a, &mut ctx);
        std::mem::take(&mut self.out)
    }

    /// A control packet from neighbour `from`.
    pub fn control(&mut self, now: SimTime, from: NodeId, p: Packet) -> Vec<RoutingAction> {
        self.run(|a, ctx| a.on_control(now, from, p, ctx))
    }

    /// A data packet to route (originated here or forwarded).
    pub fn data(&mut self, now: SimTime, p: Packet) -> Vec<RoutingAction> {
        self.run(|a, ctx| a.route_output(now, p, ctx))
    }

    /// The MAC gave up on neighbour `nb`, with the packet it held.
    pub fn link_failure(
        &mut self,
        now: SimTime,
        nb: NodeId,
        p: Option<Packet>,
    ) -> Vec<RoutingAction> {
        self.run(|a, ctx| a.on_link_failure(now, nb, p, ctx))
    }

    /// One call of the agent's timer handler at `now`.
    pub fn timeout(&mut self, now: SimTime) -> Vec<RoutingAction> {
        self.run(|a, ctx| a.on_timeout(now, ctx))
    }
}

/// The (uid, next hop) of each packet the agent handed down
/// (`RoutingAction::Send`), in order.
pub(crate) fn sent_data(out: &[RoutingAction]) -> Vec<(u64, NodeId)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Send { packet, next_hop } => Some((packet.uid, *next_hop)),
            _ => None,
        })
        .collect()
}

/// A 540-byte data packet of flow 0 (512 bytes of payload) from `src` to
/// `dst`, numbered `uid`. Built from `Packet::control`, so that a test does
/// not depend on every field.
pub(crate) fn data(src: NodeId, dst: NodeId, uid: u64) -> Packet {
    let mut p = Packet::control(src, dst, DEFAULT_TTL, 8, Vec::new());
    p.uid = uid;
    p.kind = PacketKind::Data { flow: 0, seq: uid };
    p.body = None;
    p.size_bytes = 540;
    p.payload_bytes = 512;
    p
}

/// The packets the agent originated (`RoutingAction::Originate`), each as
/// (packet, next hop, message, forwarded), in order.
pub(crate) fn originated_packets(
    out: &[RoutingAction],
) -> Vec<(&Packet, NodeId, &'static str, bool)> {
    out.iter()
        .filter_map(|a| match a {
            RoutingAction::Originate {
                packet,
                next_hop,
                message,
                forwarded,
                ..
            } => Some((packet, *next_hop, *message, *forwarded)),
            _ => None,
        })
        .collect()
}

/// The control messages the agent originated, each as (message, next hop,
/// body read by `parse`, IP TTL).
pub(crate) fn originated_by<M>(
    out: &[RoutingAction],
    parse: impl Fn(&[u8]) -> M,
) -> Vec<(&'static str, NodeId, M, u8)> {
    originated_packets(out)
        .into_iter()
        .map(|(packet, next_hop, message, _)| (message, next_hop, parse(packet.body()), packet.ttl))
        .collect()
}

pub(crate) fn ms(x: u64) -> SimTime {
    x * NS_PER_MS
}
