//! Records how the extension was compiled, for `manetsim._core.build()`:
//! `pgo` when rustc was given a profile to use (`scripts/install_pgo.sh`),
//! `instrumented` when it was told to write one, else cargo's profile
//! (`release` or `debug`). Benchmarks report it beside their times.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".to_string());
    println!(
        "cargo:rustc-env=MANETSIM_BUILD={}",
        build_kind(&flags, &profile)
    );
}

include!("build_kind.rs");
