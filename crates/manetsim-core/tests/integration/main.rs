//! The core's end-to-end tests: whole scenarios run through
//! `manetsim_core::run`, one module a protocol or model.
//!
//! They build as one test binary, not one a file: each binary links the
//! optimised core again, and fifteen links took more of CI than the tests
//! themselves run.

mod common;

mod aodv;
mod aodv_tcp;
mod aomdv;
mod arp;
mod bit_errors;
mod capture;
mod determinism;
mod dsdv;
mod dsr;
mod energy;
mod fading;
mod loss;
mod mobility_files;
mod mobility_sim;
mod olsr;
mod saturation;
mod tcp_sim;
mod topologies;
