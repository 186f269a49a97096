//! Diversity of a transform set (Auto-SPT, Defs. 3.1–3.2), estimated with a bounded beam.
//!
//! - **k-step diameter** `D_k(P, T)`: the largest distance `L = 1 − M` between two programs
//!   reachable from `P` in at most `k` steps of transforms from `T` (the original included: a
//!   transform that does not apply leaves the program as it is). The reachable set is
//!   explored level by level; each level keeps the `beam` programs farthest from `P`, so the
//!   estimate is a lower bound of the true diameter, as in the paper's bounded search.
//! - **diversity** `Δ_k(t; P, T) = D_k(P, T) − D_k(P, T ∖ {t})`: what transform `t` adds to
//!   the set, leave-one-out; `Δ_k(P, T)` is its mean over the transforms of `T`. An identity
//!   transform adds nothing (Δ = 0); a transform that is the set's only way to move adds the
//!   whole diameter.
//!
//! Equivalence is not checked here: SPTs preserve behaviour by construction (the corpus and
//! oracle measure that separately); diversity is about how far apart their outputs look.

use super::derive_seed;
use crate::detector::{Detector, DetectorError};
use crate::program::{classify, Classified, ProgramHash};
use crate::transform::LoadedTransform;
use serde::Serialize;
use std::collections::HashSet;

/// Settings of a diversity estimate.
#[derive(Debug, Clone, Copy)]
pub struct DiversityConfig {
    /// Steps k.
    pub k: usize,
    /// Programs kept per level.
    pub beam: usize,
    /// Seed of every transform application.
    pub seed: u64,
}

/// The programs reachable from `original` in at most `k` steps of `transforms` (bounded).
fn reachable(
    original: &str,
    transforms: &[&LoadedTransform],
    detector: &dyn Detector,
    c: DiversityConfig,
) -> Result<Vec<String>, DetectorError> {
    let mut all = vec![original.to_string()];
    let mut seen: HashSet<ProgramHash> = HashSet::from([ProgramHash::of(original)]);
    let mut level = vec![original.to_string()];
    for step in 0..c.k {
        let mut next = Vec::new();
        for x in &level {
            let hash = ProgramHash::of(x);
            for t in transforms {
                let seed = derive_seed(c.seed, step, &hash, &t.name);
                if let Ok(Some(out)) = t.apply(x, seed) {
                    if let Classified::Valid(text) = classify(x, out) {
                        if seen.insert(ProgramHash::of(&text)) {
                            next.push(text);
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        let refs: Vec<&str> = next.iter().map(String::as_str).collect();
        let ms = detector.score(original, &refs)?;
        let mut order: Vec<usize> = (0..next.len()).collect();
        order.sort_by(|&a, &b| ms[a].total_cmp(&ms[b]).then(a.cmp(&b)));
        level = order
            .into_iter()
            .take(c.beam.max(1))
            .map(|i| next[i].clone())
            .collect();
        all.extend(level.iter().cloned());
    }
    Ok(all)
}

/// `D_k(P, T)`: the largest pairwise distance among the programs reachable from `original`.
pub fn diameter(
    original: &str,
    transforms: &[&LoadedTransform],
    detector: &dyn Detector,
    c: DiversityConfig,
) -> Result<f64, DetectorError> {
    let programs = reachable(original, transforms, detector, c)?;
    let mut best = 0.0f64;
    for (i, x) in programs.iter().enumerate() {
        let others: Vec<&str> = programs[i + 1..].iter().map(String::as_str).collect();
        if others.is_empty() {
            continue;
        }
        for m in detector.score(x, &others)? {
            best = best.max(1.0 - f64::from(m));
        }
    }
    Ok(best)
}

/// The diameter of a set and each member's leave-one-out contribution, for one program.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProgramDiversity {
    /// `D_k(P, T)`.
    pub diameter: f64,
    /// `(t, Δ_k(t; P, T))` in the order of `T`.
    pub contributions: Vec<(String, f64)>,
    /// `Δ_k(P, T)`: the mean contribution.
    pub diversity: f64,
}

/// `D_k` and the leave-one-out `Δ_k` of `transforms` on `original`.
pub fn diversity(
    original: &str,
    transforms: &[&LoadedTransform],
    detector: &dyn Detector,
    c: DiversityConfig,
) -> Result<ProgramDiversity, DetectorError> {
    let d = diameter(original, transforms, detector, c)?;
    let mut contributions = Vec::new();
    for (i, t) in transforms.iter().enumerate() {
        let rest: Vec<&LoadedTransform> = transforms
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, t)| *t)
            .collect();
        contributions.push((t.name.clone(), d - diameter(original, &rest, detector, c)?));
    }
    let diversity = if contributions.is_empty() {
        0.0
    } else {
        contributions.iter().map(|(_, v)| v).sum::<f64>() / contributions.len() as f64
    };
    Ok(ProgramDiversity {
        diameter: d,
        contributions,
        diversity,
    })
}
