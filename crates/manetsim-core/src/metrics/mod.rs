//! Per-flow counters, the packet ledger and the run result.
pub mod result;
