//! Runs one scenario file through the core and prints its event count and
//! wall time: the harness for profiling the core alone (`valgrind --tool=callgrind`)
//! and for timing it against ns-2.
//!
//! ```text
//! cargo run --release -p manetsim-core --example run_scenario -- SCENARIO.toml [key=value ...]
//! ```
//!
//! Each `key=value` is a `--set` override, e.g. `duration_s=60`. With
//! `--parallel-probe` first (in a build with the feature `parallel-probe`),
//! the run also counts what two cores could gain at most
//! (`manetsim_core::sim::parallel`) and prints it after the summary.

use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let parallel_probe = args.next_if_eq("--parallel-probe").is_some();
    if parallel_probe && !cfg!(feature = "parallel-probe") {
        eprintln!("--parallel-probe: build with `--features parallel-probe`");
        std::process::exit(2);
    }
    let Some(file) = args.next() else {
        eprintln!("usage: run_scenario [--parallel-probe] SCENARIO.toml [key=value ...]");
        std::process::exit(2);
    };
    let overrides: Vec<(String, String)> = args
        .map(|a| match a.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => {
                eprintln!("override {a:?} is not key=value");
                std::process::exit(2);
            }
        })
        .collect();
    let scenario = match manetsim_core::scenario::load_file(Path::new(&file), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let run = run(&scenario, parallel_probe);
    let (result, probe) = match run {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    if let Some(path) = std::env::var_os("RUN_SCENARIO_JSON") {
        // The result without its wall-clock fields, to compare runs exactly.
        let mut v = serde_json::to_value(&result).expect("result serialises");
        if let Some(o) = v.as_object_mut() {
            o.remove("wall_s");
            o.remove("events_per_s");
        }
        std::fs::write(path, serde_json::to_string_pretty(&v).expect("json")).expect("write json");
    }
    let delivered: u64 = result.flows.iter().map(|f| f.received).sum();
    let sent: u64 = result.flows.iter().map(|f| f.sent).sum();
    println!(
        "{}: events {} core_wall_s {:.3} events_per_s {:.0} sent {} received {} routing_pkts {} frames_sent {} ledger_balanced {}",
        result.scenario,
        result.events,
        result.wall_s,
        result.events_per_s,
        sent,
        delivered,
        result.routing.packets_sent,
        result.mac.frames_sent,
        result.ledger.balanced
    );
    if let Some(probe) = probe {
        print!("{probe}");
    }
}

/// Runs `scenario`, with the parallel probe's report when `probe`.
#[cfg(feature = "parallel-probe")]
fn run(
    scenario: &manetsim_core::Scenario,
    probe: bool,
) -> Result<(manetsim_core::RunResult, Option<String>), manetsim_core::SimError> {
    if probe {
        manetsim_core::sim::parallel::probe(scenario).map(|(r, p)| (r, Some(p.to_string())))
    } else {
        manetsim_core::run(scenario).map(|r| (r, None))
    }
}

/// Runs `scenario` (a build without the probe).
#[cfg(not(feature = "parallel-probe"))]
fn run(
    scenario: &manetsim_core::Scenario,
    _probe: bool,
) -> Result<(manetsim_core::RunResult, Option<String>), manetsim_core::SimError> {
    manetsim_core::run(scenario).map(|r| (r, None))
}
