//! Per-flow counters, the packet-conservation ledger and the run result.

mod flow;
pub mod json_text;
mod ledger;
pub mod result;

pub use flow::FlowStats;
pub use ledger::{DropReason, PacketLedger};
