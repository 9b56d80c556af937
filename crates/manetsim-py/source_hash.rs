// The source fingerprint of build.rs, kept in its own file so that
// tests/source_hash.rs can test it (a build script has no tests of its own).

use std::path::{Path, PathBuf};

/// Every regular file under `root` (itself, if a file), sorted by the path
/// relative to `root` with `/` separators, so that the order is the same on
/// every machine.
pub fn files_under(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&p) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if p.is_file() {
            let rel = p.strip_prefix(root).unwrap_or(&p);
            let name: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push((name.join("/"), p));
        }
    }
    out.sort();
    out
}

/// FNV-1a, 64 bits, continued from `state`.
pub fn fnv1a64(state: u64, bytes: &[u8]) -> u64 {
    let mut h = state;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The fingerprint of `(label, root)` pairs: each file's label, relative
/// path, length and bytes, in order; 16 hex digits. Roots that do not
/// exist count as empty.
pub fn source_hash(roots: &[(&str, PathBuf)]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (label, root) in roots {
        for (rel, path) in files_under(root) {
            let bytes = std::fs::read(&path).unwrap_or_default();
            h = fnv1a64(h, label.as_bytes());
            h = fnv1a64(h, b"/");
            h = fnv1a64(h, rel.as_bytes());
            h = fnv1a64(h, &[0]);
            h = fnv1a64(h, &(bytes.len() as u64).to_le_bytes());
            h = fnv1a64(h, &bytes);
        }
    }
    format!("{h:016x}")
}
