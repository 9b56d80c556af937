//! The rule by which build.rs names the build (`manetsim._core.build()`).

include!("../build_kind.rs");

#[test]
fn no_flags_give_cargos_profile() {
    assert_eq!(build_kind("", "release"), "release");
    assert_eq!(build_kind("", "debug"), "debug");
    assert_eq!(build_kind("-Ctarget-cpu=native", "release"), "release");
}

#[test]
fn a_profile_to_use_gives_pgo_in_every_spelling() {
    assert_eq!(
        build_kind("-Cprofile-use=/tmp/m.profdata", "release"),
        "pgo"
    );
    assert_eq!(
        build_kind("-C\x1fprofile-use=/tmp/m.profdata", "release"),
        "pgo"
    );
    assert_eq!(
        build_kind("--codegen=profile-use=/tmp/m.profdata", "release"),
        "pgo"
    );
    assert_eq!(
        build_kind("-Ctarget-cpu=native\x1f-Cprofile-use=/p", "release"),
        "pgo"
    );
}

#[test]
fn a_profile_to_write_gives_instrumented() {
    assert_eq!(
        build_kind("-Cprofile-generate=/tmp/raw", "release"),
        "instrumented"
    );
    assert_eq!(
        build_kind("-C\x1fprofile-generate", "release"),
        "instrumented"
    );
}

#[test]
fn a_value_that_only_mentions_a_profile_is_not_one() {
    // `-C` takes the next field as its value; a path that happens to contain
    // the words is neither flag.
    assert_eq!(
        build_kind("-Clink-arg=/x/profile-use=y", "release"),
        "release"
    );
    assert_eq!(build_kind("-L\x1f/profile-use=/lib", "release"), "release");
}
