//! The fingerprint by which build.rs names the simulator's sources
//! (`manetsim._core.source_hash()`).

include!("../source_hash.rs");

fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("manetsim-hash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    root
}

#[test]
fn fnv1a64_matches_its_published_values() {
    let basis = 0xcbf2_9ce4_8422_2325;
    assert_eq!(fnv1a64(basis, b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(basis, b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(basis, b"foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn the_hash_follows_content_and_names_not_creation_order() {
    let a = tree("a", &[("x.rs", "fn a() {}"), ("sub/y.rs", "fn b() {}")]);
    let b = tree("b", &[("sub/y.rs", "fn b() {}"), ("x.rs", "fn a() {}")]);
    let h = |root: &PathBuf| source_hash(&[("core", root.clone())]);
    assert_eq!(h(&a), h(&b));
    assert_eq!(h(&a).len(), 16);
    assert_eq!(
        files_under(&a).into_iter().map(|f| f.0).collect::<Vec<_>>(),
        ["sub/y.rs", "x.rs"]
    );
    // One byte changed, a file renamed, or the label: another hash.
    let c = tree("c", &[("x.rs", "fn a() {} "), ("sub/y.rs", "fn b() {}")]);
    let d = tree("d", &[("z.rs", "fn a() {}"), ("sub/y.rs", "fn b() {}")]);
    assert_ne!(h(&a), h(&c));
    assert_ne!(h(&a), h(&d));
    assert_ne!(h(&a), source_hash(&[("py", a.clone())]));
    // A missing root counts as empty.
    let none = std::env::temp_dir().join("manetsim-hash-none-such");
    assert_eq!(source_hash(&[("core", none)]), source_hash(&[]));
    for root in [a, b, c, d] {
        let _ = std::fs::remove_dir_all(root);
    }
}
