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

/// The kind of build that `flags` (cargo's `CARGO_ENCODED_RUSTFLAGS`: one flag
/// per `\x1f`-separated field, `-C x=y` possibly as two fields) give.
fn build_kind(flags: &str, profile: &str) -> String {
    let fields: Vec<&str> = flags.split('\x1f').collect();
    let mut codegen = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let field = fields[i];
        if field == "-C" || field == "--codegen" {
            if let Some(next) = fields.get(i + 1) {
                codegen.push(*next);
            }
            i += 2;
            continue;
        }
        if let Some(rest) = field.strip_prefix("-C") {
            codegen.push(rest);
        } else if let Some(rest) = field.strip_prefix("--codegen=") {
            codegen.push(rest);
        }
        i += 1;
    }
    if codegen.iter().any(|c| c.starts_with("profile-use=")) {
        "pgo".to_string()
    } else if codegen.iter().any(|c| c.starts_with("profile-generate")) {
        "instrumented".to_string()
    } else {
        profile.to_string()
    }
}
