//! What AODV and AOMDV share when a node passes a flood on: the message
//! waits a uniform random delay first (RFC 3561 section 6.5 leaves it to the
//! implementation; ns-2.35 draws 0 to 10 ms, `BROADCAST_JITTER`), so that
//! neighbours that heard the same frame do not all send at once.

use crate::engine::{Rng, SimTime};
use crate::net::{Packet, RoutingCtx, BROADCAST};

/// A broadcast of a message another node originated, waiting for its
/// jitter to end. `keep_uid`: the packet keeps the uid of the one it passes
/// on ([`RoutingCtx::relay`], as ns-2.35's `forward`), else it goes as a new
/// packet (as ns-2.35's `sendError` builds one).
#[derive(Debug, Clone)]
pub struct Rebroadcast {
    pub packet: Packet,
    pub message: &'static str,
    pub keep_uid: bool,
}

impl Rebroadcast {
    pub fn new(packet: Packet, message: &'static str, keep_uid: bool) -> Self {
        Self {
            packet,
            message,
            keep_uid,
        }
    }

    /// When a rebroadcast decided at `now` goes: after a uniform
    /// `0..max_jitter` delay, or at once when `max_jitter` is 0 (and then
    /// no random number is drawn).
    pub fn due(now: SimTime, max_jitter: SimTime, rng: &mut Rng) -> SimTime {
        if max_jitter > 0 {
            now + rng.below(max_jitter)
        } else {
            now
        }
    }

    /// Hands the packet to the node, to go to every neighbour.
    pub fn send(self, ctx: &mut RoutingCtx) {
        ctx.pass_on(self.packet, BROADCAST, self.message, self.keep_uid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stream;

    #[test]
    fn no_jitter_draws_nothing_and_jitter_stays_below_its_bound() {
        let mut a = Rng::new(7, Stream::Routing, 1);
        let mut b = Rng::new(7, Stream::Routing, 1);
        assert_eq!(Rebroadcast::due(100, 0, &mut a), 100);
        // Nothing drawn: both streams still give the same next number.
        assert_eq!(a.next_u64(), b.next_u64());
        for _ in 0..1000 {
            let t = Rebroadcast::due(100, 10, &mut a);
            assert!((100..110).contains(&t), "{t}");
        }
    }
}
