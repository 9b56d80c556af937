//! The MAC layer: IEEE 802.11 DCF as ns-2's `Mac/802_11` models it, and the
//! interface queue in front of it.

mod dcf;
mod frame;
mod ifq;
mod minstrel;
mod params;
mod rate_control;

pub use dcf::{least_nav_after, Dcf, GaveUp, MacAction, MacStats, MacTimer, Refusal, TxOutcome};
pub use frame::{
    Frame, FrameKind, ACK_BYTES, CTS_BYTES, DATA_HEADER_BYTES, LLC_SNAP_BYTES, RTS_BYTES,
};
pub use ifq::{Enqueued, PriQueue};
pub use minstrel::{Minstrel, MINSTREL_UPDATE_NS};
pub use params::{
    BackoffCount, BackoffDraw, CtsRule, EifsRule, FrameSizes, MacParams, MacStandard, Phy,
    Preamble, ResponseRate, SlotTime, TieRule, DSSS_RATES_BPS, NS2_DATA_HEADER_BYTES,
    OFDM_RATES_BPS,
};
pub use rate_control::{
    Arf, RateControl, AARF_MAX_SUCCESS_THRESHOLD, ARF_FAILURE_THRESHOLD, ARF_SUCCESS_THRESHOLD,
    ARF_TIMER_THRESHOLD,
};
