//! The physical layer: propagation models, radio thresholds and the spatial
//! index the channel uses to find receivers.
//!
//! Reception follows ns-2's `WirelessPhy`: a frame arriving below the
//! carrier-sense threshold is not seen at all; between the carrier-sense and
//! receive thresholds it keeps the medium busy and is received in error; at or
//! above the receive threshold it can be decoded unless another frame overlaps
//! it (see `mac::dcf` for collision and capture), and with `[radio]
//! error_model = "awgn"` unless its bits are in error ([`ErrorModel`]).

mod error;
mod fading;
mod grid;
mod propagation;

pub use error::{
    erfc, q, CodeRate, ErrorModel, Modulation, BOLTZMANN_J_PER_K, DSSS_BANDWIDTH_HZ,
    NOISE_TEMPERATURE_K, OFDM_BANDWIDTH_HZ,
};
pub use fading::{gamma_q, Jakes, Nakagami};
pub use grid::SpatialGrid;
pub use propagation::{
    propagation_delay_ns, propagation_remainder_ns, Propagation, RadioParams, SPEED_OF_LIGHT_MPS,
};

/// A 2-D position in metres.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pos {
    pub x: f64,
    pub y: f64,
}

impl Pos {
    pub fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    pub fn distance(&self, other: &Pos) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }
}
