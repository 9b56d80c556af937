//! Injected packet loss at a chosen node (`[[loss]]` in the scenario).
//!
//! Two models: uniform (each packet lost with probability `rate`) and
//! Gilbert–Elliott in its Gilbert form (a good state that loses nothing and
//! a bad state that loses everything; the chain's stationary loss rate is
//! `rate` and its mean burst is `mean_burst_packets`).
//!
//! Where the loss happens matters with 802.11 (`where`):
//! - `after_mac`: the node loses a packet its MAC has already acknowledged,
//!   so the sender's retries cannot hide it: the loss is end to end;
//! - `before_mac`: the frame is corrupted between PHY and MAC, the receiver
//!   sends no ACK and the sender retries, so little of it survives end to end
//!   (ns-2's `-IncomingErrProc` placement: 5 % became 0.2 %).
//!
//! A model applies to packets arriving at its node: with `packets = "data"`
//! to application data (including TCP data segments, not TCP ACKs), with
//! `"all"` to every packet (`before_mac`: every frame addressed to the node,
//! RTS/CTS/ACK included). Each model draws from its own stream
//! `(seed, Loss, index)`, so it never shifts another consumer's draws.

use crate::engine::{Rng, Stream};
use crate::net::{Packet, PacketKind};
use crate::scenario::{Loss, LossModelKind, LossPackets, LossWhere};

#[derive(Debug, Clone)]
enum Kind {
    Uniform {
        rate: f64,
    },
    Gilbert {
        p_good_bad: f64,
        p_bad_good: f64,
        bad: bool,
    },
}

/// One loss model, at one node.
#[derive(Debug, Clone)]
pub struct LossModel {
    pub node: u32,
    pub placement: LossWhere,
    packets: LossPackets,
    kind: Kind,
    rng: Rng,
    /// Packets this model dropped.
    pub dropped: u64,
}

impl LossModel {
    /// The model of `[[loss]]` entry `index`.
    pub fn from_scenario(l: &Loss, seed: u64, index: usize) -> Self {
        let kind = match l.model {
            LossModelKind::Uniform => Kind::Uniform { rate: l.rate },
            LossModelKind::GilbertElliott => {
                let p_bad_good = 1.0 / l.mean_burst_packets.max(1.0);
                let p_good_bad = if l.rate >= 1.0 {
                    1.0
                } else {
                    (l.rate * p_bad_good / (1.0 - l.rate)).min(1.0)
                };
                Kind::Gilbert {
                    p_good_bad,
                    p_bad_good,
                    bad: false,
                }
            }
        };
        Self {
            node: l.node,
            placement: l.where_,
            packets: l.packets,
            kind,
            rng: Rng::new(seed, Stream::Loss, index as u64),
            dropped: 0,
        }
    }

    /// Whether the model applies to frames carrying `packet` (`None`: a
    /// frame with no packet, i.e. RTS, CTS or ACK).
    pub fn applies_to(&self, packet: Option<&Packet>) -> bool {
        match self.packets {
            LossPackets::All => true,
            LossPackets::Data => matches!(packet.map(|p| p.kind), Some(PacketKind::Data { .. })),
        }
    }

    /// Draws whether the next packet is lost.
    pub fn lose(&mut self) -> bool {
        let lost = match &mut self.kind {
            Kind::Uniform { rate } => self.rng.uniform() < *rate,
            Kind::Gilbert {
                p_good_bad,
                p_bad_good,
                bad,
            } => {
                let lost = *bad;
                let u = self.rng.uniform();
                *bad = if *bad {
                    u >= *p_bad_good
                } else {
                    u < *p_good_bad
                };
                lost
            }
        };
        self.dropped += lost as u64;
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(model: LossModelKind, rate: f64, burst: f64) -> LossModel {
        let l = Loss {
            node: 1,
            model,
            rate,
            packets: LossPackets::Data,
            where_: LossWhere::AfterMac,
            mean_burst_packets: burst,
        };
        LossModel::from_scenario(&l, 1, 0)
    }

    #[test]
    fn uniform_loses_its_rate() {
        let mut m = loss(LossModelKind::Uniform, 0.05, 1.0);
        let n = 200_000;
        let lost = (0..n).filter(|_| m.lose()).count();
        let r = lost as f64 / n as f64;
        assert!((r - 0.05).abs() < 0.003, "{r}");
    }

    #[test]
    fn gilbert_has_its_rate_and_mean_burst() {
        let mut m = loss(LossModelKind::GilbertElliott, 0.1, 5.0);
        let n = 400_000;
        let draws: Vec<bool> = (0..n).map(|_| m.lose()).collect();
        let rate = draws.iter().filter(|&&x| x).count() as f64 / n as f64;
        let bursts = draws.windows(2).filter(|w| w[1] && !w[0]).count() + draws[0] as usize;
        let mean_burst = draws.iter().filter(|&&x| x).count() as f64 / bursts as f64;
        assert!((rate - 0.1).abs() < 0.01, "rate {rate}");
        assert!((mean_burst - 5.0).abs() < 0.25, "burst {mean_burst}");
    }

    #[test]
    fn data_only_models_skip_control_frames() {
        let m = loss(LossModelKind::Uniform, 0.5, 1.0);
        assert!(!m.applies_to(None));
        let p = Packet::control(0, 1, 1, 8, vec![1, 2, 3]);
        assert!(!m.applies_to(Some(&p)));
    }
}
