//! A fast hasher for small integer keys (node ids, sequence numbers).
//!
//! `std`'s default SipHash resists hash flooding, which a simulator whose
//! keys come from its own scenario does not need, and costs several times
//! more per lookup. This one folds each word in with a multiply and a
//! rotate (the scheme of Firefox's and rustc's "Fx" hash). It is fixed, not
//! randomly seeded, so a map's contents never depend on the process; no
//! result may depend on iteration order anyway (iterate a `BTreeMap` where
//! order matters).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Odd constant close to 2^64 / φ.
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// See the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct IntHasher {
    hash: u64,
}

impl IntHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IntHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`IntHasher`].
pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
/// A `HashSet` with [`IntHasher`].
pub type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_of_pairs_behaves_like_a_set() {
        let mut s = IntSet::default();
        for a in 0..200u32 {
            for b in 0..50u32 {
                assert!(s.insert((a, b)));
            }
        }
        assert_eq!(s.len(), 10_000);
        assert!(s.contains(&(199, 49)));
        assert!(!s.contains(&(200, 0)));
        assert!(!s.insert((3, 4)), "already there");
        assert!(s.remove(&(3, 4)));
        assert!(!s.contains(&(3, 4)));
    }

    #[test]
    fn nearby_keys_spread_over_the_buckets() {
        // Consecutive ids must not collide in the low bits a table uses.
        let mut low = std::collections::BTreeSet::new();
        for id in 0..1024u32 {
            let mut h = IntHasher::default();
            h.write_u32(id);
            h.write_u32(7);
            low.insert(h.finish() >> 54);
        }
        assert!(low.len() > 500, "{} distinct of 1024", low.len());
    }
}
