// The build-kind rule of build.rs, kept in its own file so that
// tests/build_kind.rs can test it (a build script has no tests of its own).

/// The kind of build that `flags` (cargo's `CARGO_ENCODED_RUSTFLAGS`: one flag
/// per `\x1f`-separated field, `-C x=y` possibly as two fields) give.
pub fn build_kind(flags: &str, profile: &str) -> String {
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
