//! `smooth:K:SPEC`, a defence by randomised smoothing over SPTs (in the spirit of EnBecome):
//! the score of two programs is the mean of the wrapped detector's scores over K paired
//! perturbations, where perturbation k rewrites both programs with the same seeded SPT.
//!
//! Perturbation k draws, with a generator seeded by k alone, an order of the built-in SPTs of
//! the programs' language and applies the first that rewrites the program into text that
//! parses (the "verified" of a detector that has no tests to run: the oracle is not available
//! at scoring time); a program that no SPT rewrites stands for itself. Drawing by k and not by
//! the text pairs the perturbations: a program and a small rewrite of it usually meet the same
//! SPT in slot k. Perturbations are cached by program hash, so an anchor is perturbed once.
//!
//! The cost is K detector queries per pair (counted in the wrapped detector's statistics) and
//! up to K transform calls per new program.

use super::{Detector, DetectorError, DetectorStats};
use crate::language::Language;
use crate::program::ProgramHash;
use crate::transform::{Limits, LoadedTransform, TransformRuntime, TransformSet};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The most perturbations a spec may ask for.
pub const MAX_K: usize = 64;

/// SPTs tried per slot before the program stands for itself.
const TRIES: usize = 4;

/// Programs whose perturbations are kept.
const CACHED: usize = 4096;

/// Perturbations by (language, program).
type Cache = lru::LruCache<(Language, ProgramHash), Arc<Vec<String>>>;

/// A detector that averages its wrapped detector over K paired SPT perturbations.
pub struct SmoothDetector {
    inner: Box<dyn Detector>,
    k: usize,
    transforms: Vec<LoadedTransform>,
    cache: Mutex<Cache>,
    name: String,
}

/// Reads `K:SPEC` (what follows `smooth:`): K in 1..=[`MAX_K`] and the wrapped spec.
pub fn parse(rest: &str) -> Result<(usize, &str), DetectorError> {
    let bad = || {
        DetectorError::Defence(format!(
            "detector smooth:{rest}: expected smooth:K:SPEC with K from 1 to {MAX_K} and SPEC a detector"
        ))
    };
    let (k, spec) = rest.split_once(':').ok_or_else(bad)?;
    let k: usize = k.parse().map_err(|_| bad())?;
    if !(1..=MAX_K).contains(&k) || spec.is_empty() {
        return Err(bad());
    }
    Ok((k, spec))
}

impl SmoothDetector {
    /// Wraps `inner` with K perturbations drawn from the transforms of `dir` (components and
    /// scripts, as `--transforms` loads a directory).
    pub fn open(inner: Box<dyn Detector>, k: usize, dir: &Path) -> Result<Self, DetectorError> {
        let fail = |e: crate::transform::LoadError| {
            DetectorError::Transforms(format!(
                "smooth: the SPTs of {} do not load: {e}",
                dir.display()
            ))
        };
        let runtime = TransformRuntime::new(Limits::default(), None).map_err(fail)?;
        let set = TransformSet::load_dir(&runtime, dir).map_err(fail)?;
        Ok(Self::new(inner, k, set.iter().cloned().collect()))
    }

    /// Wraps `inner` with K perturbations drawn from `transforms`.
    pub fn new(inner: Box<dyn Detector>, k: usize, transforms: Vec<LoadedTransform>) -> Self {
        let name = format!("smooth:{k}:{}", inner.name());
        let capacity = NonZeroUsize::new(CACHED).unwrap_or(NonZeroUsize::MIN);
        SmoothDetector {
            inner,
            k: k.clamp(1, MAX_K),
            transforms,
            cache: Mutex::new(lru::LruCache::new(capacity)),
            name,
        }
    }

    /// The K perturbations of `text` read as `language` (cached).
    pub fn perturbations(&self, language: Language, text: &str) -> Arc<Vec<String>> {
        let key = (language, ProgramHash::of(text));
        if let Some(hit) = self
            .cache
            .lock()
            .ok()
            .and_then(|mut c| c.get(&key).cloned())
        {
            return hit;
        }
        let mine: Vec<&LoadedTransform> = self
            .transforms
            .iter()
            .filter(|t| t.rewrites(language))
            .collect();
        let made: Vec<String> = (0..self.k)
            .map(|slot| perturb(&mine, language, text, slot as u64))
            .collect();
        let made = Arc::new(made);
        if let Ok(mut c) = self.cache.lock() {
            c.put(key, made.clone());
        }
        made
    }
}

/// Slot `slot`'s perturbation of `text`: the first of a seeded order of `transforms` that
/// rewrites it into text that parses, or `text` itself.
fn perturb(transforms: &[&LoadedTransform], language: Language, text: &str, slot: u64) -> String {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(slot);
    let mut order: Vec<&&LoadedTransform> = transforms.iter().collect();
    order.shuffle(&mut rng);
    order
        .into_iter()
        .take(TRIES)
        .find_map(|t| match t.apply(text, slot) {
            Ok(Some(out)) if out != text && crate::program::validate_as(language, &out).is_ok() => {
                Some(out)
            }
            _ => None,
        })
        .unwrap_or_else(|| text.to_string())
}

impl Detector for SmoothDetector {
    fn name(&self) -> &str {
        &self.name
    }

    fn symmetric(&self) -> bool {
        self.inner.symmetric()
    }

    fn similarities(&self, anchor: &str, candidates: &[&str]) -> Result<Vec<f32>, DetectorError> {
        let language = Language::detect(anchor);
        let anchors = self.perturbations(language, anchor);
        let others: Vec<Arc<Vec<String>>> = candidates
            .par_iter()
            .map(|c| self.perturbations(language, c))
            .collect();
        let mut sums = vec![0f32; candidates.len()];
        for (slot, a) in anchors.iter().enumerate() {
            let column: Vec<&str> = others
                .iter()
                .map(|p| p.get(slot).map_or("", String::as_str))
                .collect();
            let scores = self.inner.score(a, &column)?;
            for (s, v) in sums.iter_mut().zip(scores) {
                *s += v;
            }
        }
        let k = anchors.len().max(1) as f32;
        Ok(sums.into_iter().map(|s| (s / k).clamp(0.0, 1.0)).collect())
    }

    fn shares_batches(&self) -> bool {
        self.inner.shares_batches()
    }

    fn stats(&self) -> DetectorStats {
        self.inner.stats()
    }

    fn token_count(&self, text: &str) -> Result<Option<usize>, DetectorError> {
        self.inner.token_count(text)
    }

    fn token_counts(&self, texts: &[&str]) -> Result<Vec<Option<usize>>, DetectorError> {
        self.inner.token_counts(texts)
    }

    fn window(&self) -> Option<usize> {
        self.inner.window()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_read_and_bad_ones_refused() {
        assert_eq!(parse("8:minilm").ok(), Some((8, "minilm")));
        assert_eq!(parse("2:canon:jaccard").ok(), Some((2, "canon:jaccard")));
        for bad in ["0:minilm", "65:minilm", "x:minilm", "8", "8:"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
