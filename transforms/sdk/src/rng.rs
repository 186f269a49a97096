//! The seeded RNG behind every random choice of a transform.
//!
//! ChaCha8 is a fixed, portable algorithm: the same seed gives the same stream natively and in
//! WebAssembly, on every machine and every version of `rand` that keeps `rand_chacha` 0.9.
//!
//! Choices of *where* to rewrite go through [`Rng::sites`] and [`Rng::site`]. In normal use
//! they are random; a test can force one site instead ([`Rng::forcing_site`]), so that every
//! applicable site of a fixture is rewritten and checked in turn, not only the ones a few
//! seeds happen to draw.

use rand::seq::IndexedRandom;
use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A deterministic random source seeded from a `u64`.
pub struct Rng {
    inner: ChaCha8Rng,
    /// The one site (counted over every `sites`/`site` call) a test wants rewritten.
    forced: Option<usize>,
    /// Candidate sites offered so far.
    offered: usize,
}

impl Rng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng {
            inner: ChaCha8Rng::seed_from_u64(seed),
            forced: None,
            offered: 0,
        }
    }

    /// A generator that chooses exactly the `site`-th candidate site (counting every site
    /// offered to [`Rng::sites`] and [`Rng::site`], in call order) and no other.
    pub fn forcing_site(seed: u64, site: usize) -> Self {
        Rng {
            forced: Some(site),
            ..Rng::new(seed)
        }
    }

    /// How many candidate sites the transform offered so far.
    pub fn sites_offered(&self) -> usize {
        self.offered
    }

    /// A uniform integer in `0..n` (`n` must be > 0; returns 0 when it is not).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.inner.random_range(0..n)
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.inner.random_bool(p.clamp(0.0, 1.0))
    }

    /// One element of `items`, or `None` when it is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.choose(&mut self.inner)
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

    /// The sites (indices into `0..n` candidate sites) to rewrite: a random non-empty subset
    /// (each kept with probability `p`), or only the forced one when a test forces a site.
    pub fn sites(&mut self, n: usize, p: f64) -> Vec<usize> {
        let base = self.offered;
        self.offered += n;
        match self.forced {
            Some(k) if (base..base + n).contains(&k) => vec![k - base],
            Some(_) => Vec::new(),
            None => self.subset(n, p),
        }
    }

    /// One site among `n` candidates, or `None` when there is none (or the forced site is
    /// not among them).
    pub fn site(&mut self, n: usize) -> Option<usize> {
        let base = self.offered;
        self.offered += n;
        match self.forced {
            Some(k) => (base..base + n).contains(&k).then(|| k - base),
            None => (n > 0).then(|| self.below(n)),
        }
    }

    /// One site among `weights.len()` candidates, drawn with probability proportional to its
    /// weight (uniformly when every weight is 0), or `None` when there is none (or the forced
    /// site is not among them). Counts sites like [`Rng::site`].
    pub fn weighted_site(&mut self, weights: &[u64]) -> Option<usize> {
        let n = weights.len();
        let total: u64 = weights.iter().fold(0u64, |t, w| t.saturating_add(*w));
        if self.forced.is_some() || n == 0 || total == 0 {
            return self.site(n);
        }
        self.offered += n;
        let mut draw = self.inner.random_range(0..total);
        for (i, w) in weights.iter().enumerate() {
            if draw < *w {
                return Some(i);
            }
            draw -= w;
        }
        Some(n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn forced_site_is_counted_across_calls() {
        let mut r = Rng::forcing_site(0, 4);
        assert_eq!(r.sites(3, 0.5), Vec::<usize>::new());
        assert_eq!(r.site(2), Some(1));
        assert_eq!(r.sites(5, 0.5), Vec::<usize>::new());
        assert_eq!(r.sites_offered(), 10);
        let mut free = Rng::new(7);
        let s = free.sites(6, 0.5);
        assert!(!s.is_empty() && s.iter().all(|&i| i < 6));
        assert!(free.site(0).is_none());
    }

    #[test]
    fn weighted_sites_follow_their_weights_and_forcing() {
        let mut r = Rng::new(3);
        assert!((0..50).all(|_| r.weighted_site(&[0, 7, 0]) == Some(1)));
        let heavy = (0..400)
            .filter(|_| r.weighted_site(&[1, 99]) == Some(1))
            .count();
        assert!(heavy > 360, "{heavy}");
        assert_eq!(r.weighted_site(&[]), None);
        let mut f = Rng::forcing_site(0, 2);
        assert_eq!(f.weighted_site(&[5, 0]), None);
        assert_eq!(f.weighted_site(&[0, 1, 0]), Some(0));
        assert_eq!(f.sites_offered(), 5);
    }
}
