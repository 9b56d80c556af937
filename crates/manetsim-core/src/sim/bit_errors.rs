//! `[radio] error_model = "awgn"` in the world: the frames a node receives
//! for itself (unicast to it, or broadcast) that its MAC would decode are
//! lost with the probability that some bit is in error
//! ([`crate::phy::ErrorModel`]), drawn from the node's own stream, the
//! frames the MAC captured during the reception counted as interference,
//! and with `[radio] interference_threshold_w` the frames too weak to be
//! sensed that overlapped it (kept here, per node, as they arrive: the MAC
//! never sees them).

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
    /// The frames too weak to sense on the air at each node, as `(start,
    /// end, power_w)`, kept while a reception they overlap may still end.
    faint: Vec<Vec<(SimTime, SimTime, f64)>>,
    /// The longest frame sent so far: a reception in progress began at
    /// most this long ago.
    longest_ns: SimTime,
    /// The interference of the reception being decided.
    scratch: Vec<(SimTime, SimTime, f64)>,
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
            faint: vec![Vec::new(); n],
            longest_ns: 0,
            scratch: Vec::new(),
        }))
    }

    /// A frame of `airtime_ns` goes on the air.
    pub fn on_air(&mut self, airtime_ns: SimTime) {
        self.longest_ns = self.longest_ns.max(airtime_ns);
    }

    /// A frame sent at `now` is too weak for node `n` to sense: it is on
    /// the air there from `start_ns` to `end_ns` with `power_w`,
    /// interference for what `n` receives meanwhile. The faint frames at
    /// `n` that ended before any reception still to end there began (none
    /// began more than the longest frame ago) are let go.
    pub fn faint_frame(
        &mut self,
        now: SimTime,
        n: u32,
        (start_ns, end_ns): (SimTime, SimTime),
        power_w: f64,
    ) {
        let list = &mut self.faint[n as usize];
        let before = now.saturating_sub(self.longest_ns);
        list.retain(|&(_, end, _)| end > before);
        list.push((start_ns, end_ns, power_w));
    }

    /// Whether node `n` loses `frame`, sent at `rate`, received with `power_w` from
    /// `start_ns` to `end_ns` while the frames of `interference` (start,
    /// end, power; those its MAC captured) and the faint frames at `n`
    /// overlapped it, to bit errors. A frame sure to get through takes no
    /// draw. Only a frame `for_n` (addressed to `n` or
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
        let overlaps = |&&(a, b, _): &&(SimTime, SimTime, f64)| a < end_ns && b > start_ns;
        let faint = &self.faint[n as usize];
        let interference = if faint.iter().any(|e| overlaps(&e)) {
            self.scratch.clear();
            self.scratch.extend_from_slice(interference);
            self.scratch.extend(faint.iter().filter(overlaps));
            &self.scratch
        } else {
            interference
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::{FrameKind, MacParams};
    use crate::sim::tests::{scenario_with, CBR_CHAIN3};

    /// Node 1's bit errors in [`CBR_CHAIN3`] under awgn with faint frames
    /// down to a tenth of carrier sense, and a 1,000-byte data frame.
    fn errors() -> (Box<BitErrors>, Frame) {
        let s = scenario_with(
            CBR_CHAIN3,
            &[
                "radio.error_model=awgn",
                "radio.interference_threshold_w=1.559e-12",
            ],
        );
        let b = BitErrors::from_scenario(&s, MacParams::from_scenario(&s.mac)).unwrap();
        let mut frame = Frame::control(FrameKind::Data, 0, 1, 0);
        frame.bytes = 1000;
        (b, frame)
    }

    #[test]
    fn a_faint_frame_counts_only_while_it_overlaps_the_reception() {
        let (mut b, frame) = errors();
        // 2 Mb/s, 4 ms on the air, 30 dB above the noise: sure to get
        // through alone, sure to be lost while a frame 10 dB stronger
        // overlaps a millisecond of it (a bookkeeping test: under the
        // thresholds a faint frame is the weaker).
        let power_w = 1000.0 * 4.4e-13;
        let loud_w = 10.0 * power_w;
        let on_air = (10_000_000, 14_000_000);
        b.on_air(4_000_000);
        // Ending as the reception begins, or at another node: no effect.
        b.faint_frame(5_000_000, 1, (6_000_000, 10_000_000), loud_w);
        b.faint_frame(10_000_000, 2, (10_000_000, 14_000_000), loud_w);
        for _ in 0..100 {
            assert!(!b.lose(1, &frame, 2_000_000, power_w, on_air, &[], true));
        }
        assert_eq!(b.lost, vec![0, 0, 0]);
        // Overlapping its last millisecond: lost, and counted.
        b.faint_frame(12_000_000, 1, (13_000_000, 17_000_000), loud_w);
        assert!(b.lose(1, &frame, 2_000_000, power_w, on_air, &[], true));
        assert_eq!(b.lost, vec![0, 1, 0]);
        // A frame the MAC captured, 20 dB down, loses nothing alone; with
        // the faint frame over the same time both count.
        let captured = [(14_000_000, 16_000_000, power_w / 100.0)];
        let later = (14_000_000, 18_000_000);
        assert!(b.lose(1, &frame, 2_000_000, power_w, later, &captured, true));
        let mut alone = errors().0;
        assert!(!alone.lose(1, &frame, 2_000_000, power_w, later, &captured, true));
        assert_eq!(alone.lost, vec![0, 0, 0]);
    }

    #[test]
    fn faint_frames_are_kept_only_while_a_reception_may_overlap_them() {
        let (mut b, _) = errors();
        b.on_air(1_000_000);
        // A 1 ms frame every 2 ms for a second: the list holds the frames
        // that ended less than the longest frame ago.
        for i in 0..500u64 {
            let now = 2_000_000 * i;
            b.faint_frame(now, 1, (now + 500, now + 1_000_500), 1e-12);
            assert!(b.faint[1].len() <= 2, "{}", b.faint[1].len());
        }
        let now = 2_000_000 * 500;
        b.faint_frame(now, 1, (now, now + 1_000_000), 1e-12);
        // The frame that ended 999.5 µs ago is still kept: a reception
        // of the longest frame that began then may still end.
        assert_eq!(b.faint[1].len(), 2);
        assert_eq!(b.faint[1][0].1, now - 2_000_000 + 1_000_500);
    }
}
