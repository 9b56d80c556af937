//! `[radio] error_model = "awgn"` in the world: the frames a node receives
//! for itself (unicast to it, or broadcast) that its MAC would decode are
//! lost with the probability that some bit is in error
//! ([`crate::phy::ErrorModel`]), drawn from the node's own stream, the
//! frames the MAC captured during the reception counted as interference.

use crate::engine::{Rng, SimTime, Stream};
use crate::mac::{Frame, MacParams, Phy};
use crate::phy::ErrorModel;
use crate::scenario::Scenario;

pub(crate) struct BitErrors {
    model: ErrorModel,
    phy: Phy,
    rngs: Vec<Rng>,
    /// Frames lost to bit errors, at each node.
    pub lost: Vec<u64>,
}

impl BitErrors {
    /// The bit errors of `s`, if it asks for them.
    pub fn from_scenario(s: &Scenario, mac: MacParams) -> Option<Box<Self>> {
        let model = ErrorModel::from_scenario(&s.radio)?;
        let n = s.nodes.count as usize;
        Some(Box::new(Self {
            model,
            phy: mac.phy,
            rngs: (0..n)
                .map(|i| Rng::new(s.seed, Stream::BitErrors, i as u64))
                .collect(),
            lost: vec![0; n],
        }))
    }

    /// Whether node `n` loses `frame`, sent at `rate`, received with `power_w` from
    /// `start_ns` to `end_ns` while the frames of `interference` (start,
    /// end, power) overlapped it, to bit errors. A frame sure to get
    /// through takes no draw. Only a frame `for_n` (addressed to `n` or
    /// broadcast) counts in `mac.bit_errors`; one `n` overhears is lost
    /// alike.
    #[allow(clippy::too_many_arguments)]
    pub fn lose(
        &mut self,
        n: u32,
        frame: &Frame,
        rate: u64,
        power_w: f64,
        (start_ns, end_ns): (SimTime, SimTime),
        interference: &[(SimTime, SimTime, f64)],
        for_n: bool,
    ) -> bool {
        let p = self.model.frame_success_with(
            self.phy,
            rate,
            frame.bytes,
            power_w,
            start_ns,
            end_ns,
            interference,
        );
        if p >= 1.0 {
            return false;
        }
        let lost = self.rngs[n as usize].uniform() >= p;
        self.lost[n as usize] += u64::from(lost && for_n);
        lost
    }
}
