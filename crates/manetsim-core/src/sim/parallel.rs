//! How much two cores could gain on a scenario: a measurement, not a
//! parallel engine.
//!
//! A conservative parallel simulator splits the area in two halves, one
//! per core. Both may process the events of a window `[t0, t0 + L)` at the
//! same time, where `t0` is the earliest pending event and `L` the
//! lookahead: the least time in which an event in one half can affect the
//! other. The window ends at a barrier. A window takes as long as its
//! busier half, so the work of the whole run over the sum, across windows,
//! of each window's busier half bounds the speed-up from above (the
//! barriers and the work of frames that cross the boundary are extra). The
//! probe weighs the work two ways: each event alike (a count, the same in
//! every run), and by the time the event loop spent on it in this run
//! (measured from one event to the next, leaving out the probe's own work
//! but for one clock reading).
//!
//! The lookahead of a radio whose carrier sense reacts as a frame arrives
//! (ns-2.35's, and manetsim's) is the propagation delay between the two
//! nearest nodes across the boundary, so the probe also samples that
//! distance once a simulated second.
//!
//! [`probe`] runs a scenario with the probe on. It is built only with the
//! crate's feature `parallel-probe` (and in its tests), so that an ordinary
//! build's event loop does not test for it at each event:
//!
//! ```text
//! cargo run --release -p manetsim-core --features parallel-probe \
//!     --example run_scenario -- --parallel-probe SCENARIO.toml [key=value ...]
//! ```

use super::{build, SimError};
use crate::engine::{SimTime, NS_PER_S};
use crate::metrics::result::RunResult;
use crate::phy::Pos;
use crate::scenario::Scenario;
use std::fmt;
use std::time::Instant;

/// The window lengths the probe measures, ns: from ns-2.35's lookahead
/// (nodes metres apart across the boundary) to 802.11b's clear-channel
/// assessment time (15 µs) and beyond.
pub const LOOKAHEADS_NS: [SimTime; 6] = [10, 100, 1_000, 2_000, 15_000, 50_000];

/// Nodes this far from the boundary or nearer take part in the sample of
/// the nearest pair across it.
const NEAR_BOUNDARY_M: f64 = 200.0;

/// Windows of one lookahead.
#[derive(Debug, Clone, Copy, Default)]
struct Windows {
    lookahead_ns: SimTime,
    /// The current window's end (exclusive), and its events and their
    /// time, ns, in each half.
    end: SimTime,
    left: u64,
    right: u64,
    left_ns: u64,
    right_ns: u64,
    /// Windows closed or open, and the busier halves of those closed, by
    /// count and by time.
    count: u64,
    busier_sum: u64,
    busier_ns_sum: u64,
}

impl Windows {
    fn close(&mut self) {
        self.busier_sum += self.left.max(self.right);
        self.busier_ns_sum += self.left_ns.max(self.right_ns);
        self.left = 0;
        self.right = 0;
        self.left_ns = 0;
        self.right_ns = 0;
    }
}

/// The probe's counts, kept by the event loop.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    boundary_x_m: f64,
    events: u64,
    windows: Vec<Windows>,
    next_sample: SimTime,
    nearest_m: Vec<f64>,
    /// The half of the event being handled, and when its handling began.
    current: Option<(bool, Instant)>,
    total_ns: u64,
}

impl Probe {
    /// A probe with the boundary at `boundary_x_m`.
    pub(crate) fn new(boundary_x_m: f64) -> Self {
        Probe {
            boundary_x_m,
            events: 0,
            windows: LOOKAHEADS_NS
                .iter()
                .map(|&lookahead_ns| Windows {
                    lookahead_ns,
                    ..Windows::default()
                })
                .collect(),
            next_sample: 0,
            nearest_m: Vec::new(),
            current: None,
            total_ns: 0,
        }
    }

    /// The event loop begins handling the event just counted.
    pub(crate) fn handling(&mut self) {
        if let Some((_, began)) = &mut self.current {
            *began = Instant::now();
        }
    }

    /// The event being handled, if any, is over: its time goes to its half
    /// of the windows it was counted in.
    pub(crate) fn handled(&mut self) {
        let Some((right, began)) = self.current.take() else {
            return;
        };
        let ns = began.elapsed().as_nanos() as u64;
        self.total_ns += ns;
        for w in &mut self.windows {
            if right {
                w.right_ns += ns;
            } else {
                w.left_ns += ns;
            }
        }
    }

    /// Whether the nearest pair across the boundary is due to be sampled
    /// at `now` (then [`Self::sample`] must follow).
    pub(crate) fn sample_due(&self, now: SimTime) -> bool {
        now >= self.next_sample
    }

    /// Samples the nearest pair across the boundary among `positions`.
    pub(crate) fn sample(&mut self, now: SimTime, positions: impl Iterator<Item = Pos>) {
        self.next_sample = (now / NS_PER_S + 1) * NS_PER_S;
        let positions: Vec<Pos> = positions.collect();
        // A pair with a node farther from the boundary than `strip_m` is
        // farther apart than `strip_m`: so a pair nearer than the strip
        // is the nearest of all; else the strip widens to what was found.
        let mut strip_m = NEAR_BOUNDARY_M;
        loop {
            let nearest = self.nearest_across(&positions, strip_m);
            if nearest <= strip_m || strip_m == f64::INFINITY {
                if nearest.is_finite() {
                    self.nearest_m.push(nearest);
                }
                return;
            }
            strip_m = nearest;
        }
    }

    /// The nearest pair across the boundary among the nodes within
    /// `strip_m` of it (infinite: none).
    fn nearest_across(&self, positions: &[Pos], strip_m: f64) -> f64 {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for p in positions {
            if (p.x - self.boundary_x_m).abs() <= strip_m {
                if p.x < self.boundary_x_m {
                    left.push(*p);
                } else {
                    right.push(*p);
                }
            }
        }
        left.iter()
            .flat_map(|a| right.iter().map(move |b| a.distance(b)))
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether a node at `x_m` is in the right half.
    pub(crate) fn right_of_boundary(&self, x_m: f64) -> bool {
        x_m >= self.boundary_x_m
    }

    /// One event at `now` (non-decreasing), in the right half or the left;
    /// the one before it is over.
    pub(crate) fn event(&mut self, now: SimTime, right: bool) {
        self.handled();
        self.current = Some((right, Instant::now()));
        self.events += 1;
        for w in &mut self.windows {
            if w.count == 0 || now >= w.end {
                w.close();
                w.end = now + w.lookahead_ns;
                w.count += 1;
            }
            if right {
                w.right += 1;
            } else {
                w.left += 1;
            }
        }
    }

    /// What the counts say.
    pub(crate) fn report(mut self) -> ParallelReport {
        self.handled();
        for w in &mut self.windows {
            w.close();
        }
        self.nearest_m.sort_by(f64::total_cmp);
        ParallelReport {
            events: self.events,
            windows: self
                .windows
                .iter()
                .map(|w| WindowRow {
                    lookahead_ns: w.lookahead_ns,
                    windows: w.count,
                    speedup_bound: ratio(self.events, w.busier_sum),
                    timed_speedup_bound: ratio(self.total_ns, w.busier_ns_sum),
                })
                .collect(),
            nearest_across_m: self.nearest_m,
        }
    }
}

/// One lookahead's windows.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowRow {
    pub lookahead_ns: SimTime,
    pub windows: u64,
    /// The run's events over the sum of each window's busier half.
    pub speedup_bound: f64,
    /// The same with each event weighed by its time in this run.
    pub timed_speedup_bound: f64,
}

/// `whole / busier`; 1 when there was no work.
fn ratio(whole: u64, busier: u64) -> f64 {
    if busier == 0 {
        1.0
    } else {
        whole as f64 / busier as f64
    }
}

/// What [`probe`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ParallelReport {
    /// Events taken from the queue (stale timers included).
    pub events: u64,
    pub windows: Vec<WindowRow>,
    /// The distance between the nearest nodes across the boundary, once a
    /// simulated second, sorted.
    pub nearest_across_m: Vec<f64>,
}

impl fmt::Display for ParallelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "events taken from the queue: {}", self.events)?;
        writeln!(
            f,
            "{:>14} {:>14} {:>18} {:>14} {:>20}",
            "lookahead_ns", "windows", "events_per_window", "speedup_bound", "timed_speedup_bound"
        )?;
        for w in &self.windows {
            writeln!(
                f,
                "{:>14} {:>14} {:>18.2} {:>14.3} {:>20.3}",
                w.lookahead_ns,
                w.windows,
                self.events as f64 / w.windows.max(1) as f64,
                w.speedup_bound,
                w.timed_speedup_bound
            )?;
        }
        let d = &self.nearest_across_m;
        if let (Some(first), Some(last)) = (d.first(), d.last()) {
            writeln!(
                f,
                "nearest nodes across the boundary, m: least {first:.2}, median {:.2}, most {last:.2} ({} samples)",
                d[d.len() / 2],
                d.len()
            )?;
        }
        Ok(())
    }
}

/// Runs `scenario` with the area split at half its width; returns its
/// result, the same as [`crate::run`]'s, and what two cores could gain at
/// most (see the module's documentation).
pub fn probe(scenario: &Scenario) -> Result<(RunResult, ParallelReport), SimError> {
    let mut world = build::build(scenario)?;
    world.parallel = Some(Box::new(Probe::new(scenario.area.width_m / 2.0)));
    let started = std::time::Instant::now();
    world.run();
    let wall_s = started.elapsed().as_secs_f64();
    let report = world.parallel.take().expect("set above").report();
    Ok((world.result(scenario, wall_s), report))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(r: &ParallelReport, lookahead_ns: SimTime) -> &WindowRow {
        r.windows
            .iter()
            .find(|w| w.lookahead_ns == lookahead_ns)
            .unwrap()
    }

    #[test]
    fn events_apart_by_more_than_the_lookahead_fall_in_windows_of_their_own() {
        let mut p = Probe::new(0.0);
        // Left at 0 and 5 ns, right at 5 ns; then left at 200 ns, right at
        // 300 ns and 2,500 ns.
        for (t, right) in [(0, false), (5, false), (5, true), (200, false), (300, true)] {
            p.event(t, right);
        }
        p.event(2_500, true);
        let r = p.report();
        assert_eq!(r.events, 6);
        // 10 ns: {0, 5, 5}, {200}, {300}, {2500}: busier halves 2+1+1+1.
        assert_eq!(row(&r, 10).windows, 4);
        assert_eq!(row(&r, 10).speedup_bound, 6.0 / 5.0);
        // 100 ns: the same windows.
        assert_eq!(row(&r, 100).windows, 4);
        // 1 µs: {0, 5, 5, 200, 300} (3 left, 2 right), {2500}: 3+1.
        assert_eq!(row(&r, 1_000).windows, 2);
        assert_eq!(row(&r, 1_000).speedup_bound, 6.0 / 4.0);
        // 15 µs: one window, 3 against 3.
        assert_eq!(row(&r, 15_000).windows, 1);
        assert_eq!(row(&r, 15_000).speedup_bound, 2.0);
    }

    #[test]
    fn a_window_starts_at_its_first_event_not_on_a_fixed_grid() {
        let mut p = Probe::new(0.0);
        // 10 ns windows from 7 ns: 7 and 16 share one; 17 starts the next.
        p.event(7, false);
        p.event(16, true);
        p.event(17, true);
        let r = p.report();
        assert_eq!(row(&r, 10).windows, 2);
        assert_eq!(row(&r, 10).speedup_bound, 3.0 / 2.0);
    }

    #[test]
    fn the_timed_bound_weighs_each_event_by_its_time() {
        // Two events in one window, one per half: by count, 2x. The left
        // one takes 20 ms, the right one next to nothing: by time, about 1.
        let mut p = Probe::new(0.0);
        p.event(0, false);
        p.handling();
        std::thread::sleep(std::time::Duration::from_millis(20));
        p.event(0, true);
        p.handling();
        let r = p.report();
        for w in &r.windows {
            assert_eq!(w.speedup_bound, 2.0);
            assert!(w.timed_speedup_bound < 1.1, "{r}");
        }
    }

    #[test]
    fn events_all_in_one_half_gain_nothing() {
        let mut p = Probe::new(0.0);
        for t in 0..100 {
            p.event(t, false);
        }
        let r = p.report();
        assert!(r.windows.iter().all(|w| w.speedup_bound == 1.0));
    }

    #[test]
    fn the_nearest_pair_is_sought_across_the_boundary_only() {
        let mut p = Probe::new(100.0);
        let at = |x, y| Pos { x, y };
        // Two left nodes 1 m apart; across, the nearest pair is 3 m apart;
        // a node 500 m away takes no part.
        let nodes = [at(98.0, 0.0), at(99.0, 0.0), at(101.0, 2.0), at(600.0, 0.0)];
        assert!(p.sample_due(0));
        p.sample(0, nodes.into_iter());
        assert!(!p.sample_due(NS_PER_S - 1));
        assert!(p.sample_due(NS_PER_S));
        // No node near the boundary on the right: the strip widens.
        p.sample(
            NS_PER_S,
            [at(99.0, 0.0), at(400.0, 0.0), at(900.0, 0.0)].into_iter(),
        );
        // Inside the strip, the nearest pair is 300 m apart; a left node
        // just outside it is 270 m from a right node inside.
        let far = [
            at(-50.0, 0.0),
            at(250.0, 0.0),
            at(150.0, 1000.0),
            at(-120.0, 1000.0),
        ];
        p.sample(2 * NS_PER_S, far.into_iter());
        // No node on one side at all: no sample.
        p.sample(3 * NS_PER_S, [at(1.0, 0.0)].into_iter());
        let r = p.report();
        let want = [270.0, 8f64.sqrt(), 301.0];
        assert_eq!(r.nearest_across_m.len(), 3, "{:?}", r.nearest_across_m);
        for (got, want) in r.nearest_across_m.iter().zip({
            let mut w = want;
            w.sort_by(f64::total_cmp);
            w
        }) {
            assert!((got - want).abs() < 1e-9, "{got} against {want}");
        }
    }
}
