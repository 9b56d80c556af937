//! # manetsim-core
//!
//! A discrete-event simulator of mobile ad hoc networks (MANETs), written for
//! people who study transport protocols over MANET routing. This crate is the
//! whole simulator and knows nothing of Python; `manetsim-py` binds it.
//!
//! ## A tour of the layers, bottom up
//!
//! - [`engine`]: simulated time (`u64` nanoseconds), the event queue with a
//!   total order (time; then reception ends, other events, reception starts;
//!   then insertion sequence), cancellable timers by
//!   generation counter, and RNG streams derived from (master seed, purpose, id).
//! - [`phy`]: propagation models (two-ray ground with the free-space
//!   crossover, free space, log-normal shadowing), radio thresholds, and the
//!   channel, which finds receivers through a uniform spatial grid.
//! - [`mac`]: IEEE 802.11 DCF as ns-2's `Mac/802_11` models it (DIFS, SIFS,
//!   EIFS, backoff that freezes while the medium is busy, NAV, RTS/CTS, ACK,
//!   retry limits, link-failure feedback) and the priority interface queue.
//! - [`net`]: packets, IP-like forwarding with TTL, and the
//!   [`net::RoutingProtocol`] trait; the first implementation is static
//!   shortest-path routing from the initial topology.
//! - [`app`]: traffic sources (CBR over UDP).
//! - [`scenario`]: the TOML scenario schema, its validation and `--set` overrides.
//! - [`metrics`]: per-flow counters, the packet ledger and the [`RunResult`].
//! - [`sim`]: the world that wires a scenario into nodes and runs it.
//!
//! Protocols are state machines: they take `now` as an argument and return
//! actions; they never read a clock or own the queue, so each can be tested
//! alone with hand-made events.
//!
//! ## Running a scenario
//!
//! ```no_run
//! let scenario = manetsim_core::scenario::load_file(
//!     std::path::Path::new("examples/quickstart.toml"), &[]).unwrap();
//! let result = manetsim_core::run(&scenario).unwrap();
//! println!("{}", serde_json::to_string_pretty(&result).unwrap());
//! ```

pub mod app;
pub mod energy;
pub mod engine;
pub mod loss;
pub mod mac;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod phy;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod trace;
pub mod transport;
pub mod wire;

pub use metrics::result::RunResult;
pub use scenario::{Scenario, ScenarioError};
pub use sim::{movements_as_ns2, run, run_traced, run_with, Outputs, SimError};

/// The manetsim version, recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
