//! The seeded RNG behind every random choice of a transform.
//!
//! ChaCha8 is a fixed, portable algorithm: the same seed gives the same stream natively and in
//! WebAssembly, on every machine and every version of `rand` that keeps `rand_chacha` 0.9.

use rand::seq::IndexedRandom;
use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A deterministic random source seeded from a `u64`.
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A uniform integer in `0..n` (`n` must be > 0; returns 0 when it is not).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.0.random_range(0..n)
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.0.random_bool(p.clamp(0.0, 1.0))
    }

    /// One element of `items`, or `None` when it is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.choose(&mut self.0)
    }

    /// A random non-empty subset of `0..n` (each index kept with probability `p`, at least one).
    pub fn subset(&mut self, n: usize, p: f64) -> Vec<usize> {
        if n == 0 {
            return Vec::new();
        }
        let mut out: Vec<usize> = (0..n).filter(|_| self.chance(p)).collect();
        if out.is_empty() {
            out.push(self.below(n));
        }
        out
    }
}
