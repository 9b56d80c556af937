//! Transport protocols. [`tcp`] is one TCP (sender and receiver as sans-IO
//! state machines) with pluggable congestion control; [`tfrc`] is TFRC
//! (RFC 5348) and [`sctp`] is SCTP (RFC 4960), built the same way.

pub mod sctp;
pub mod tcp;
pub mod tfrc;
