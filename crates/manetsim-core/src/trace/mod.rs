//! Trace files a run writes besides its result (`[output]`).
//!
//! - [`ns2`]: ns-2's old wireless trace format (`output.ns2_trace`), so that
//!   the awk scripts and parsers written for ns-2 read manetsim's runs, and
//!   `manetsim crosscheck` can read both simulators with one parser.
//! - [`pcap`]: one capture file per node (`output.pcap`), 802.11 frames
//!   with real bytes, for Wireshark and tcpdump.
//!
//! A trace is written to a temporary file beside its destination and
//! renamed into place when the run ends, so a failed or interrupted run
//! never leaves a half-written trace under the expected name.

pub mod ns2;
pub mod pcap;

pub use ns2::{Layer, Ns2Trace};
pub use pcap::PcapTrace;
