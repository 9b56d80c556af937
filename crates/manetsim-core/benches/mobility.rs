//! Criterion benchmarks of random-waypoint trajectories for 10,000 nodes
//! over 900 s (1–20 m/s, pause 10 s; min 1 m/s avoids the speed decay).
//!
//! - `generate_legs`: build the set and materialise every node's legs up to
//!   900 s (what `write_ns2` or `convert` does);
//! - `query_every_second`: build the set and ask every node's position at
//!   every whole second 0..=900 (9.01 M lookups, legs generated lazily on
//!   the way: what a simulation does);
//! - `ns2_write_and_read`: the setdest text of the whole set, and reading it
//!   back.
//!
//! `cargo bench -p manetsim-core --bench mobility` (add `-- --quick`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use manetsim_core::engine::NS_PER_S;
use manetsim_core::mobility::{ns2, Mobility};
use manetsim_core::Scenario;

const NODES: u32 = 10_000;
const DURATION_S: u64 = 900;

fn scenario() -> Scenario {
    let text = format!(
        r#"name = "rwp10k"
duration_s = {DURATION_S}.0
seed = 1
[area]
width_m = 1000.0
height_m = 1000.0
[nodes]
count = {NODES}
[mobility]
model = "random_waypoint"
min_speed_mps = 1.0
max_speed_mps = 20.0
pause_s = 10.0
[routing]
protocol = "static"
"#
    );
    manetsim_core::scenario::load_str(&text, "rwp10k.toml", &[]).unwrap()
}

fn mobility(c: &mut Criterion) {
    let s = scenario();
    let end = DURATION_S * NS_PER_S;
    let mut g = c.benchmark_group("mobility_rwp_10k_nodes_900s");
    g.sample_size(10);

    g.bench_function("generate_legs", |b| {
        b.iter(|| {
            let mut m = Mobility::from_scenario(&s, &[]).unwrap();
            let mut legs = 0usize;
            for node in 0..NODES {
                legs += m.legs_until(node, end).len();
            }
            legs
        })
    });

    g.throughput(Throughput::Elements(u64::from(NODES) * (DURATION_S + 1)));
    g.bench_function("query_every_second", |b| {
        b.iter(|| {
            let mut m = Mobility::from_scenario(&s, &[]).unwrap();
            let mut sum = 0.0;
            for sec in 0..=DURATION_S {
                let t = sec * NS_PER_S;
                for node in 0..NODES {
                    let p = m.position(node, t);
                    sum += p.x + p.y;
                }
            }
            sum
        })
    });
    g.finish();

    let mut g = c.benchmark_group("mobility_ns2_10k_nodes_900s");
    g.sample_size(10);
    let text = Mobility::from_scenario(&s, &[]).unwrap().write_ns2(end);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("write", |b| {
        b.iter(|| Mobility::from_scenario(&s, &[]).unwrap().write_ns2(end))
    });
    g.bench_function("read", |b| {
        b.iter(|| ns2::parse(&text, "rwp10k.tcl", NODES, &s.area).unwrap())
    });
    g.finish();
}

criterion_group!(benches, mobility);
criterion_main!(benches);
