//! The packet-conservation ledger.
//!
//! Every network-layer packet that is created ends in exactly one of three
//! ways: delivered (a unicast packet reached its destination's upper layer;
//! a broadcast packet finished its transmission), dropped with a
//! [`DropReason`], or still in flight when the run ends. The in-flight count
//! is taken independently, by counting the packets held in queues and MACs
//! at the end, so `created == delivered + dropped + in_flight` is a real check.

/// Why a packet was dropped. The snake_case names are the keys of `drops`
/// in the result JSON; append new reasons, never rename one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The interface queue was full.
    QueueFull,
    /// The MAC's retry limit was reached.
    RetryLimit,
    /// Routing had no route.
    NoRoute,
    /// The TTL ran out.
    Ttl,
    /// An injected loss model dropped it.
    LossModel,
    /// The node's battery was empty.
    EnergyDepleted,
    /// A routing protocol's buffer of packets waiting for a route was full.
    RouteBufferFull,
    /// A packet waited for a route longer than the protocol's buffer timeout.
    RouteBufferTimeout,
    /// ARP held a newer packet for the same unresolved neighbour.
    Arp,
}

impl DropReason {
    pub const ALL: [DropReason; 9] = [
        DropReason::QueueFull,
        DropReason::RetryLimit,
        DropReason::NoRoute,
        DropReason::Ttl,
        DropReason::LossModel,
        DropReason::EnergyDepleted,
        DropReason::RouteBufferFull,
        DropReason::RouteBufferTimeout,
        DropReason::Arp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::RetryLimit => "retry_limit",
            DropReason::NoRoute => "no_route",
            DropReason::Ttl => "ttl",
            DropReason::LossModel => "loss_model",
            DropReason::EnergyDepleted => "energy_depleted",
            DropReason::RouteBufferFull => "route_buffer_full",
            DropReason::RouteBufferTimeout => "route_buffer_timeout",
            DropReason::Arp => "arp",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct PacketLedger {
    pub created: u64,
    pub delivered: u64,
    dropped: [u64; DropReason::ALL.len()],
}

impl PacketLedger {
    pub fn create(&mut self) {
        self.created += 1;
    }

    pub fn deliver(&mut self) {
        self.delivered += 1;
    }

    pub fn drop(&mut self, reason: DropReason) {
        self.dropped[reason as usize] += 1;
    }

    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.dropped[reason as usize]
    }

    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// Whether the books balance given the packets counted in flight.
    pub fn balances(&self, in_flight: u64) -> bool {
        self.created == self.delivered + self.dropped_total() + in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_balance_only_when_every_packet_is_accounted_for() {
        let mut l = PacketLedger::default();
        for _ in 0..5 {
            l.create();
        }
        l.deliver();
        l.drop(DropReason::QueueFull);
        l.drop(DropReason::RetryLimit);
        assert!(l.balances(2));
        assert!(!l.balances(1));
        assert_eq!(l.dropped(DropReason::QueueFull), 1);
        assert_eq!(l.dropped_total(), 2);
    }

    #[test]
    fn reason_names_are_unique() {
        let mut names: Vec<_> = DropReason::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DropReason::ALL.len());
    }
}
