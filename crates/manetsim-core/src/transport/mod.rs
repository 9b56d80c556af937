//! Transport protocols. [`tcp`] is one TCP (sender and receiver as sans-IO
//! state machines) with pluggable congestion control; [`tfrc`] is TFRC
//! (RFC 5348), built the same way.

pub mod tcp;
pub mod tfrc;
