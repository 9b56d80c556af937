//! Per-flow counters, the packet-conservation ledger and the run result.

mod flow;
mod ledger;
pub mod result;

pub use flow::FlowStats;
pub use ledger::{DropReason, PacketLedger};
