//! Criterion benchmarks: the event queue alone, and whole runs.
//!
//! `cargo bench -p manetsim-core` (add `-- --quick` for a short run).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use manetsim_core::engine::{EventQueue, Rng, Stream};

fn queue(c: &mut Criterion) {
    const N: u64 = 100_000;
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(N));
    g.bench_function("hold_model_100k", |b| {
        // The classic "hold" model: a steady-state queue of 10k events; each
        // step pops one and schedules one at a random later time.
        b.iter_batched(
            || {
                let mut q = EventQueue::new();
                let mut rng = Rng::new(1, Stream::Test, 0);
                for _ in 0..10_000 {
                    q.schedule(rng.below(1_000_000), 0u64);
                }
                (q, rng)
            },
            |(mut q, mut rng)| {
                for _ in 0..N {
                    let (t, v) = q.pop().unwrap();
                    q.schedule(t + rng.below(1_000_000), v + 1);
                }
                q
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn scenario(c: &mut Criterion) {
    let text = include_str!("../../../benches/scenarios/grid50.toml");
    let mut s: manetsim_core::Scenario = toml::from_str(text).unwrap();
    s.duration_s = 100.0;
    for f in &mut s.flows {
        f.stop_s = Some(100.0);
    }
    let events = manetsim_core::run(&s).unwrap().events;
    let mut g = c.benchmark_group("scenario");
    g.sample_size(10);
    g.throughput(Throughput::Elements(events));
    g.bench_function("grid50_10cbr_100s", |b| {
        b.iter(|| manetsim_core::run(&s).unwrap())
    });
    g.finish();
}

criterion_group!(benches, queue, scenario);
criterion_main!(benches);
