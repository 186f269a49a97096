//! Where an attack's winners fall against real clones: GPTCloneBench's clone pairs scored by
//! the run's own detector (`attack --reference-clones`). A winner that the detector scores
//! below most of the benchmark's Type-4 clones looks, to that detector, less alike its
//! original than programs humans wrote to do the same thing differently.

use super::stats::median;
use crate::detector::{Detector, DetectorError};
use crate::task::gptclonebench::CloneBench;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The file in a run directory that holds the reference scores.
pub const FILE: &str = "reference_clones.json";

/// The detector's M on every clone pair of a reference benchmark, by clone type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceScores {
    /// The benchmark's path, as given.
    pub source: String,
    /// The detector that scored it.
    pub detector: String,
    /// Clone type label → M of each clone pair of that type.
    pub scores: BTreeMap<String, Vec<f32>>,
}

/// Scores `bench`'s clone pairs with `detector` (one call per distinct first function).
pub fn score(
    bench: &CloneBench,
    detector: &dyn Detector,
    source: &str,
) -> Result<ReferenceScores, DetectorError> {
    let clones: Vec<_> = bench.pairs.iter().filter(|p| p.clone).collect();
    let mut by_anchor: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in clones.iter().enumerate() {
        by_anchor.entry(p.a.as_str()).or_default().push(i);
    }
    let mut m = vec![0f32; clones.len()];
    for (anchor, idx) in by_anchor {
        let others: Vec<&str> = idx.iter().map(|&i| clones[i].b.as_str()).collect();
        for (&i, v) in idx.iter().zip(detector.score(anchor, &others)?) {
            m[i] = v;
        }
    }
    let mut scores: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    for (p, v) in clones.iter().zip(m) {
        let label = p.clone_type.map_or("clone", |t| t.label());
        scores.entry(label.to_string()).or_default().push(v);
    }
    Ok(ReferenceScores {
        source: source.to_string(),
        detector: detector.name().to_string(),
        scores,
    })
}

/// One clone type's side of the comparison.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypeComparison {
    /// Clone pairs of this type.
    pub pairs: usize,
    /// Their median M.
    pub median_similarity: f64,
    /// Share of them the detector scores above the median winner.
    pub above_median_winner: f64,
    /// Share of the winners the detector scores below this type's median clone.
    pub winners_below_median: f64,
}

/// The run's winners against the reference clones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReferenceComparison {
    /// The benchmark's path.
    pub source: String,
    /// Median M of the winners (best program vs original) over attacked tasks.
    pub median_winner_similarity: f64,
    /// Clone type label → figures.
    pub by_type: BTreeMap<String, TypeComparison>,
}

/// Compares the winners' similarities `winners` (M of each attacked task's best program)
/// with the reference scores.
pub fn compare(reference: &ReferenceScores, winners: &[f64]) -> ReferenceComparison {
    let median_winner = median(winners.to_vec());
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let by_type = reference
        .scores
        .iter()
        .map(|(label, scores)| {
            let s: Vec<f64> = scores.iter().map(|&x| f64::from(x)).collect();
            let med = median(s.clone());
            (
                label.clone(),
                TypeComparison {
                    pairs: s.len(),
                    median_similarity: med,
                    above_median_winner: share(
                        s.iter().filter(|&&x| x > median_winner).count(),
                        s.len(),
                    ),
                    winners_below_median: share(
                        winners.iter().filter(|&&x| x < med).count(),
                        winners.len(),
                    ),
                },
            )
        })
        .collect();
    ReferenceComparison {
        source: reference.source.clone(),
        median_winner_similarity: median_winner,
        by_type,
    }
}

/// Reads `dir`'s reference scores, if the run has them.
pub fn read(dir: &Path) -> Option<ReferenceScores> {
    let text = std::fs::read_to_string(dir.join(FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_by_hand() {
        let reference = ReferenceScores {
            source: "b".into(),
            detector: "d".into(),
            scores: BTreeMap::from([
                ("Type-4".to_string(), vec![0.2, 0.5, 0.7, 0.9]),
                ("Type-1/2".to_string(), vec![0.95, 0.99]),
            ]),
        };
        // Winners 0.3, 0.4, 0.6: median 0.4.
        let c = compare(&reference, &[0.6, 0.3, 0.4]);
        assert_eq!(c.median_winner_similarity, 0.4);
        let t4 = &c.by_type["Type-4"];
        assert_eq!(t4.pairs, 4);
        assert!((t4.median_similarity - 0.6).abs() < 1e-6);
        assert_eq!(t4.above_median_winner, 0.75);
        // 0.3 and 0.4 lie below Type-4's median 0.6; 0.6 does not.
        assert!((t4.winners_below_median - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(c.by_type["Type-1/2"].above_median_winner, 1.0);
    }
}
