//! Transport protocols. [`tcp`] is one TCP (sender and receiver as sans-IO
//! state machines) with pluggable congestion control.

pub mod tcp;
