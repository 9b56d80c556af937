//! Records how the extension was compiled, for `manetsim._core.build()`:
//! `pgo` when rustc was given a profile to use (`scripts/install_pgo.sh`),
//! `instrumented` when it was told to write one, else cargo's profile
//! (`release` or `debug`). Benchmarks report it beside their times.
//!
//! Also fingerprints the simulator's sources (both crates' `src`, the
//! core's `Cargo.toml` and the workspace's `Cargo.lock`), for
//! `manetsim._core.source_hash()`: sweeps key their runs by it, so that a
//! sweep re-run after the simulator changed runs again rather than reusing
//! results of another build.

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".to_string());
    println!(
        "cargo:rustc-env=MANETSIM_BUILD={}",
        build_kind(&flags, &profile)
    );
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let roots = [
        ("core", here.join("../manetsim-core/src")),
        ("core", here.join("../manetsim-core/Cargo.toml")),
        ("py", here.join("src")),
        ("lock", here.join("../../Cargo.lock")),
    ];
    for (_, root) in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
    }
    println!(
        "cargo:rustc-env=MANETSIM_SOURCE_HASH={}",
        source_hash(&roots)
    );
}

include!("build_kind.rs");
include!("source_hash.rs");
