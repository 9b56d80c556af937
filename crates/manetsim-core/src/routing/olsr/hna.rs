//! The association set (RFC 3626 section 12.5): which gateways announce,
//! by HNA messages, which networks, and until when; and the gateway a
//! route to a network goes through (section 12.6).
//!
//! A network is (address, netmask) as 32-bit values; the Internet is the
//! default route, 0.0.0.0/0.0.0.0 ([`INTERNET`]). Sets are small (one
//! tuple per gateway and network), so they are kept as a sorted vector.

use crate::engine::SimTime;
use crate::net::NodeId;

/// The whole Internet: the default route's address and netmask.
pub const INTERNET: (u32, u32) = (0, 0);

/// One association tuple: `gateway` reaches `network` until `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Association {
    pub gateway: NodeId,
    pub network: (u32, u32),
    pub until: SimTime,
}

#[derive(Debug, Clone, Default)]
pub struct AssociationSet {
    /// Sorted by (gateway, network), one tuple each.
    tuples: Vec<Association>,
    /// Bumped whenever a tuple appears or goes.
    generation: u64,
}

impl AssociationSet {
    /// An HNA from `gateway` listing `networks`, valid until `until`
    /// (section 12.5): each listed network's tuple is created or renewed;
    /// tuples of networks not listed are kept until they expire.
    pub fn on_hna(&mut self, gateway: NodeId, networks: &[(u32, u32)], until: SimTime) {
        for &network in networks {
            let key = (gateway, network);
            match self
                .tuples
                .binary_search_by_key(&key, |a| (a.gateway, a.network))
            {
                Ok(i) => self.tuples[i].until = until,
                Err(i) => {
                    self.tuples.insert(
                        i,
                        Association {
                            gateway,
                            network,
                            until,
                        },
                    );
                    self.generation += 1;
                }
            }
        }
    }

    /// Removes the tuples whose time has come (`until <= now`).
    pub fn expire(&mut self, now: SimTime) {
        let before = self.tuples.len();
        self.tuples.retain(|a| a.until > now);
        if self.tuples.len() != before {
            self.generation += 1;
        }
    }

    /// The soonest time at which a tuple expires.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.tuples.iter().map(|a| a.until).min()
    }

    /// Changes whenever a tuple appears or goes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The gateways that announce `network`, by address.
    pub fn gateways_to(&self, network: (u32, u32)) -> impl Iterator<Item = NodeId> + '_ {
        self.tuples
            .iter()
            .filter(move |a| a.network == network)
            .map(|a| a.gateway)
    }

    /// Section 12.6: of the gateways announcing `network`, the one
    /// `hops(gateway)` counts the fewest hops to (the lowest address among
    /// equals); gateways it knows no route to are passed over.
    pub fn best_gateway(
        &self,
        network: (u32, u32),
        hops: impl Fn(NodeId) -> Option<u32>,
    ) -> Option<NodeId> {
        self.gateways_to(network)
            .filter_map(|g| hops(g).map(|h| (h, g)))
            .min()
            .map(|(_, g)| g)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Association> + '_ {
        self.tuples.iter()
    }

    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET10: (u32, u32) = (0x0a00_0000, 0xff00_0000);

    #[test]
    fn an_hna_creates_and_renews_and_time_removes() {
        let mut s = AssociationSet::default();
        s.on_hna(7, &[INTERNET, NET10], 15);
        assert_eq!(s.len(), 2);
        let g = s.generation();
        // Renewing moves no generation; a network left out is kept.
        s.on_hna(7, &[INTERNET], 30);
        assert_eq!(s.generation(), g);
        assert_eq!(s.next_expiry(), Some(15));
        s.expire(14);
        assert_eq!(s.len(), 2);
        s.expire(15);
        assert_eq!(s.len(), 1);
        assert_ne!(s.generation(), g);
        assert_eq!(s.gateways_to(NET10).count(), 0);
        assert_eq!(s.gateways_to(INTERNET).collect::<Vec<_>>(), vec![7]);
        s.expire(30);
        assert!(s.is_empty());
        assert_eq!(s.next_expiry(), None);
    }

    #[test]
    fn the_nearest_gateway_with_a_route_wins_and_ties_go_to_the_lowest() {
        let mut s = AssociationSet::default();
        for g in [9, 4, 6] {
            s.on_hna(g, &[INTERNET], 100);
        }
        s.on_hna(2, &[NET10], 100);
        let hops = |g: NodeId| match g {
            9 => Some(2),
            4 => Some(3),
            6 => Some(2),
            2 => Some(1),
            _ => None,
        };
        assert_eq!(s.best_gateway(INTERNET, hops), Some(6));
        assert_eq!(s.best_gateway(INTERNET, |g| (g == 4).then_some(5)), Some(4));
        assert_eq!(s.best_gateway(INTERNET, |_| None), None);
        assert_eq!(s.best_gateway(NET10, hops), Some(2));
        assert_eq!(s.best_gateway((1, 1), hops), None);
    }
}
