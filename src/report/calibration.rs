//! Success thresholds tied to the detector.
//!
//! A fixed threshold on M means different things for different detectors: against the
//! default embedding model, two unrelated programs already score M ≈ 0.3, so "M < 0.5" is a
//! bar no attack clears, while a fine-tuned classifier may clear it at once. Two ways to tie
//! the threshold to the detector:
//!
//! - [`auto_threshold`]: score seeded pairs of originals of *different problems* (non-clones:
//!   solutions of one problem are functional clones, so they never form a pair, see
//!   [`NON_CLONE_RULE`]) and take the similarity below which a fraction `rate` of them fall;
//!   an attack succeeds when its best rewrite scores below that, i.e. looks as unrelated as
//!   most unrelated programs. Every job that calibrates (attack, robustness, report) uses it;
//! - [`roc`]: from labelled pairs, the ROC AUC, the F1-optimal threshold and the threshold
//!   at a false-positive rate (`equimorph calibrate`).

use crate::detector::{Detector, DetectorError};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How the success threshold is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ThresholdSpec {
    /// A fixed M.
    Fixed(f32),
    /// Calibrated on non-clone pairs of the run's own tasks: the `rate`-quantile of their M.
    Auto {
        /// Fraction of non-clone pairs that score below the threshold.
        rate: f64,
    },
}

impl FromStr for ThresholdSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rate_of = |r: &str| -> Result<f64, String> {
            let rate: f64 = r
                .parse()
                .map_err(|_| format!("`{r}` is not a number (auto:RATE, RATE in (0, 1))"))?;
            if rate > 0.0 && rate < 1.0 {
                Ok(rate)
            } else {
                Err(format!("RATE must lie in (0, 1), got {rate}"))
            }
        };
        match s.split_once(':') {
            _ if s == "auto" => Ok(ThresholdSpec::Auto { rate: 0.95 }),
            Some(("auto", r)) => Ok(ThresholdSpec::Auto { rate: rate_of(r)? }),
            _ => {
                let m: f32 = s
                    .parse()
                    .map_err(|_| format!("`{s}` is neither a number nor auto[:RATE]"))?;
                if (0.0..=1.0).contains(&m) {
                    Ok(ThresholdSpec::Fixed(m))
                } else {
                    Err(format!("a threshold must lie in [0, 1], got {m}"))
                }
            }
        }
    }
}

impl fmt::Display for ThresholdSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThresholdSpec::Fixed(m) => write!(f, "{m}"),
            ThresholdSpec::Auto { rate } => write!(f, "auto:{rate}"),
        }
    }
}

/// A threshold and how it was set (recorded in `run.json` and the reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// Success = the best rewrite's M is below this.
    pub value: f32,
    /// How it was set, in words (`fixed` or `auto:0.95 over 200 non-clone pairs …`).
    pub source: String,
}

/// What calibrating on non-clone pairs found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NonCloneCalibration {
    /// The threshold: the `rate`-quantile of the non-clone similarities.
    pub threshold: f32,
    /// The fraction asked for.
    pub rate: f64,
    /// Pairs scored.
    pub pairs: usize,
    /// Mean M over those pairs.
    pub mean: f64,
    /// Smallest and largest M over those pairs.
    pub min: f32,
    /// Largest M.
    pub max: f32,
    /// Pairs left out because the detector failed on them.
    #[serde(default)]
    pub failed: usize,
    /// Pairs of distinct originals left out because both solve one problem (clones).
    #[serde(default)]
    pub same_problem: usize,
    /// Distinct problems among the originals.
    #[serde(default)]
    pub problems: usize,
}

/// Which pairs of originals count as non-clones, in words (printed and recorded with every
/// calibrated threshold).
pub const NON_CLONE_RULE: &str =
    "originals of different problems (solutions of one problem are clones and never paired)";

/// A program that takes part in a threshold calibration: its text and the problem it solves
/// (its task id when the task file does not group solutions by problem).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibrationProgram<'a> {
    /// The program.
    pub text: &'a str,
    /// The problem it solves.
    pub problem: &'a str,
}

/// Why a calibration could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// An input file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Fewer than two distinct programs, or no labelled pair of one class.
    #[error("cannot calibrate: {0}")]
    TooFew(String),
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// Asked to stop (SIGINT/SIGTERM) before every pair was scored.
    #[error("interrupted after scoring {scored} of {pairs} calibration pairs")]
    Interrupted {
        /// Pairs scored before the stop.
        scored: usize,
        /// Pairs drawn.
        pairs: usize,
    },
}

/// Two programs and whether they are clones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledPair {
    /// First program.
    pub a: String,
    /// Second program.
    pub b: String,
    /// True for a clone pair.
    pub label: bool,
}

/// A label written as `1`/`0`, `true`/`false` (JSON number, boolean or string).
fn label_of(v: &serde_json::Value) -> Option<bool> {
    match v {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        serde_json::Value::String(s) => match s.trim() {
            "1" | "true" => Some(true),
            "0" | "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn read_text(path: &std::path::Path) -> Result<String, CalibrationError> {
    let bytes = std::fs::read(path).map_err(|source| CalibrationError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads labelled pairs: `{"a", "b", "label"}` JSONL, or, with `pairs`, CodeXGLUE's layout
/// (`path` is `data.jsonl` with `{"idx", "func"}` lines, `pairs` has `idx1 idx2 label` lines).
/// Returns the pairs and one message per line that could not be used (the rest still count).
pub fn read_labelled_pairs(
    path: &std::path::Path,
    pairs: Option<&std::path::Path>,
) -> Result<(Vec<LabelledPair>, Vec<String>), CalibrationError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let json_lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, serde_json::from_str::<serde_json::Value>(l)));
    let Some(pairs) = pairs else {
        for (n, v) in json_lines {
            let pair = v.ok().and_then(|v| {
                Some(LabelledPair {
                    a: v.get("a")?.as_str()?.to_string(),
                    b: v.get("b")?.as_str()?.to_string(),
                    label: label_of(v.get("label")?)?,
                })
            });
            match pair {
                Some(p) => out.push(p),
                None => problems.push(format!(
                    "{}:{n}: not a {{\"a\", \"b\", \"label\"}} object with string programs and a 0/1 label",
                    path.display()
                )),
            }
        }
        return Ok((out, problems));
    };
    let mut funcs = std::collections::HashMap::new();
    for (n, v) in json_lines {
        let entry = v.ok().and_then(|v| {
            let idx = match v.get("idx")? {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((idx, v.get("func")?.as_str()?.to_string()))
        });
        match entry {
            Some((idx, func)) => {
                funcs.insert(idx, func);
            }
            None => problems.push(format!(
                "{}:{n}: not an {{\"idx\", \"func\"}} object",
                path.display()
            )),
        }
    }
    for (n, line) in read_text(pairs)?.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let pair = match fields[..] {
            [i, j, l] => match (funcs.get(i), funcs.get(j), label_of(&serde_json::json!(l))) {
                (Some(a), Some(b), Some(label)) => Ok(LabelledPair {
                    a: a.clone(),
                    b: b.clone(),
                    label,
                }),
                (None, _, _) | (_, None, _) => Err("an idx that data.jsonl does not have"),
                _ => Err("a label that is not 0 or 1"),
            },
            _ => Err("not `idx1<TAB>idx2<TAB>label`"),
        };
        match pair {
            Ok(p) => out.push(p),
            Err(why) => problems.push(format!("{}:{}: {why}", pairs.display(), n + 1)),
        }
    }
    Ok((out, problems))
}

/// The `q`-quantile of `values` (linear interpolation between order statistics).
pub fn quantile(values: &[f32], q: f64) -> Option<f32> {
    if values.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = values.iter().map(|x| f64::from(*x)).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some((v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)) as f32)
}

/// Up to `max_pairs` distinct unordered pairs of indices below `n`, drawn with `seed`.
pub fn sample_pairs(n: usize, max_pairs: usize, seed: u64) -> Vec<(usize, usize)> {
    let problems: Vec<usize> = (0..n).collect();
    sample_non_clone_pairs(&problems, max_pairs, seed).0
}

/// Up to `max_pairs` distinct unordered pairs of indices into `problems` whose problems differ
/// (the non-clone rule), drawn with `seed`; and how many same-problem pairs were left out.
pub fn sample_non_clone_pairs<P: PartialEq>(
    problems: &[P],
    max_pairs: usize,
    seed: u64,
) -> (Vec<(usize, usize)>, usize) {
    let n = problems.len();
    let mut same_problem = 0;
    let mut all: Vec<(usize, usize)> = Vec::new();
    for (i, a) in problems.iter().enumerate() {
        for (j, b) in problems.iter().enumerate().skip(i + 1) {
            if a == b {
                same_problem += 1;
            } else {
                all.push((i, j));
            }
        }
    }
    debug_assert!(all.len() + same_problem == n * n.saturating_sub(1) / 2);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    all.shuffle(&mut rng);
    all.truncate(max_pairs);
    all.sort_unstable();
    (all, same_problem)
}

/// Scores seeded non-clone pairs of distinct `programs` (originals of different problems, see
/// [`NON_CLONE_RULE`]) and returns the similarity below which a fraction `rate` of them fall.
pub fn auto_threshold(
    detector: &dyn Detector,
    programs: &[CalibrationProgram<'_>],
    rate: f64,
    max_pairs: usize,
    seed: u64,
) -> Result<NonCloneCalibration, CalibrationError> {
    auto_threshold_until(detector, programs, rate, max_pairs, seed, None)
}

/// [`auto_threshold`] that gives up with [`CalibrationError::Interrupted`] as soon as `stop`
/// becomes true (checked between the detector's batches).
pub fn auto_threshold_until(
    detector: &dyn Detector,
    programs: &[CalibrationProgram<'_>],
    rate: f64,
    max_pairs: usize,
    seed: u64,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Result<NonCloneCalibration, CalibrationError> {
    // Distinct texts, in the given order (so the sample does not depend on how texts sort).
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<CalibrationProgram<'_>> = programs
        .iter()
        .copied()
        .filter(|p| seen.insert(p.text))
        .collect();
    let problems: Vec<&str> = distinct.iter().map(|p| p.problem).collect();
    let problem_count = problems
        .iter()
        .collect::<std::collections::HashSet<_>>()
        .len();
    if problem_count < 2 {
        return Err(CalibrationError::TooFew(
            "auto thresholds need the originals of at least two different problems".into(),
        ));
    }
    let (pairs, same_problem) = sample_non_clone_pairs(&problems, max_pairs, seed);
    let distinct: Vec<&str> = distinct.iter().map(|p| p.text).collect();
    let mut scores = Vec::with_capacity(pairs.len());
    let (mut failed, mut last_error) = (0, None);
    // One batch per anchor; a batch the detector fails on is left out (and counted).
    let mut i = 0;
    while i < pairs.len() {
        if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(CalibrationError::Interrupted {
                scored: i,
                pairs: pairs.len(),
            });
        }
        let anchor = pairs[i].0;
        let group: Vec<&str> = pairs[i..]
            .iter()
            .take_while(|p| p.0 == anchor)
            .map(|p| distinct[p.1])
            .collect();
        i += group.len();
        match detector.score(distinct[anchor], &group) {
            Ok(s) => scores.extend(s),
            Err(e) => {
                failed += group.len();
                last_error = Some(e);
            }
        }
    }
    if scores.is_empty() {
        if let Some(e) = last_error {
            return Err(e.into());
        }
    }
    let threshold = quantile(&scores, rate).unwrap_or(0.0);
    let mean = scores.iter().map(|s| f64::from(*s)).sum::<f64>() / scores.len() as f64;
    Ok(NonCloneCalibration {
        threshold,
        rate,
        pairs: scores.len(),
        mean,
        min: scores.iter().copied().fold(f32::INFINITY, f32::min),
        max: scores.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        failed,
        same_problem,
        problems: problem_count,
    })
}

/// One point of a ROC curve: predicting "clone" when M ≥ `threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RocPoint {
    /// The threshold.
    pub threshold: f32,
    /// False-positive rate (non-clones called clones).
    pub fpr: f64,
    /// True-positive rate (clones called clones).
    pub tpr: f64,
    /// F1 of the clone class.
    pub f1: f64,
}

/// A detector's quality on labelled pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Roc {
    /// Labelled pairs (clones, non-clones).
    pub positives: usize,
    /// Non-clone pairs.
    pub negatives: usize,
    /// Area under the ROC curve (ties count one half).
    pub auc: f64,
    /// The threshold with the best F1, and that F1.
    pub best_f1: RocPoint,
    /// One point per distinct score, highest threshold first.
    pub curve: Vec<RocPoint>,
}

impl Roc {
    /// The lowest threshold whose false-positive rate is at most `fpr` (so as many clones
    /// as possible are found at that cost).
    pub fn at_fpr(&self, fpr: f64) -> Option<RocPoint> {
        self.curve.iter().rev().find(|p| p.fpr <= fpr).copied()
    }
}

/// ROC statistics of `scores` (M of each pair) against `labels` (true = clone).
pub fn roc(scores: &[f32], labels: &[bool]) -> Result<Roc, CalibrationError> {
    let positives = labels.iter().filter(|l| **l).count();
    let negatives = labels.len() - positives;
    if positives == 0 || negatives == 0 || scores.len() != labels.len() {
        return Err(CalibrationError::TooFew(format!(
            "need clone and non-clone pairs (got {positives} clones, {negatives} non-clones)"
        )));
    }
    // AUC as the Mann–Whitney statistic: P(score of a clone > score of a non-clone).
    let mut wins = 0.0;
    for (s, l) in scores.iter().zip(labels) {
        if !*l {
            continue;
        }
        for (t, m) in scores.iter().zip(labels) {
            if *m {
                continue;
            }
            wins += match s.total_cmp(t) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    let auc = wins / (positives * negatives) as f64;
    let mut thresholds: Vec<f32> = scores.to_vec();
    thresholds.sort_by(|a, b| b.total_cmp(a));
    thresholds.dedup();
    let curve: Vec<RocPoint> = thresholds
        .iter()
        .map(|&t| {
            let tp = scores
                .iter()
                .zip(labels)
                .filter(|(s, l)| **l && **s >= t)
                .count() as f64;
            let fp = scores
                .iter()
                .zip(labels)
                .filter(|(s, l)| !**l && **s >= t)
                .count() as f64;
            let f_n = positives as f64 - tp;
            RocPoint {
                threshold: t,
                fpr: fp / negatives as f64,
                tpr: tp / positives as f64,
                f1: if tp == 0.0 {
                    0.0
                } else {
                    2.0 * tp / (2.0 * tp + fp + f_n)
                },
            }
        })
        .collect();
    let best_f1 = curve
        .iter()
        .copied()
        .fold(None::<RocPoint>, |best, p| match best {
            Some(b) if b.f1 >= p.f1 => Some(b),
            _ => Some(p),
        })
        .ok_or_else(|| CalibrationError::TooFew("no scores".into()))?;
    Ok(Roc {
        positives,
        negatives,
        auc,
        best_f1,
        curve,
    })
}

/// An SVG plot of the ROC curve (self-contained, no scripts).
pub fn roc_svg(roc: &Roc, title: &str) -> String {
    let (w, h, pad) = (360.0, 360.0, 40.0);
    let x = |fpr: f64| pad + fpr * (w - 2.0 * pad);
    let y = |tpr: f64| h - pad - tpr * (h - 2.0 * pad);
    let mut points = vec![format!("{:.1},{:.1}", x(0.0), y(0.0))];
    points.extend(
        roc.curve
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.fpr), y(p.tpr))),
    );
    points.push(format!("{:.1},{:.1}", x(1.0), y(1.0)));
    let escaped = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\
<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y1}\" stroke=\"#bbb\" stroke-dasharray=\"4\"/>\
<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\" points=\"{pts}\"/>\
<text x=\"{pad}\" y=\"24\" font-family=\"sans-serif\" font-size=\"13\">{escaped} (AUC {auc:.3})</text>\
<text x=\"{cx}\" y=\"{yb}\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"middle\">false-positive rate</text>\
<text x=\"12\" y=\"{cy}\" font-family=\"sans-serif\" font-size=\"11\" transform=\"rotate(-90 12 {cy})\" text-anchor=\"middle\">true-positive rate</text>\
</svg>\n",
        x0 = x(0.0),
        y0 = y(0.0),
        x1 = x(1.0),
        y1 = y(1.0),
        pts = points.join(" "),
        auc = roc.auc,
        cx = w / 2.0,
        yb = h - 8.0,
        cy = h / 2.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_specs_parse_and_reject_nonsense() {
        assert_eq!("0.5".parse(), Ok(ThresholdSpec::Fixed(0.5)));
        assert_eq!("auto".parse(), Ok(ThresholdSpec::Auto { rate: 0.95 }));
        assert_eq!("auto:0.9".parse(), Ok(ThresholdSpec::Auto { rate: 0.9 }));
        for bad in ["1.5", "auto:1", "auto:x", "x", "-0.1"] {
            assert!(bad.parse::<ThresholdSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [0.4, 0.1, 0.3, 0.2];
        assert_eq!(quantile(&v, 0.0), Some(0.1));
        assert_eq!(quantile(&v, 1.0), Some(0.4));
        assert!((quantile(&v, 0.5).unwrap() - 0.25).abs() < 1e-6);
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn pair_samples_are_seeded_distinct_and_bounded() {
        let a = sample_pairs(10, 20, 7);
        assert_eq!(a, sample_pairs(10, 20, 7));
        assert_ne!(a, sample_pairs(10, 20, 8));
        assert_eq!(a.len(), 20);
        assert!(a.iter().all(|(i, j)| i < j && *j < 10));
        let mut d = a.clone();
        d.dedup();
        assert_eq!(d.len(), a.len());
        assert_eq!(sample_pairs(3, 100, 0).len(), 3);
    }

    #[test]
    fn non_clone_pairs_never_pair_solutions_of_one_problem() {
        // 3 problems × 3 solutions: 36 pairs, 9 of them within a problem.
        let problems = ["a", "a", "a", "b", "b", "b", "c", "c", "c"];
        let (pairs, same) = sample_non_clone_pairs(&problems, 1000, 1);
        assert_eq!((pairs.len(), same), (27, 9));
        assert!(pairs.iter().all(|&(i, j)| problems[i] != problems[j]));
        // With one problem per program the sample is the plain one.
        assert_eq!(
            sample_non_clone_pairs(&[0, 1, 2, 3, 4], 6, 3).0,
            sample_pairs(5, 6, 3)
        );
    }

    #[test]
    fn roc_matches_a_hand_computed_example() {
        // Clones: 0.9, 0.8, 0.4; non-clones: 0.7, 0.3. Of the 6 (clone, non-clone) pairs the
        // clone wins 5 (0.4 < 0.7 loses): AUC = 5/6.
        let scores = [0.9, 0.8, 0.4, 0.7, 0.3];
        let labels = [true, true, true, false, false];
        let r = roc(&scores, &labels).unwrap();
        assert!((r.auc - 5.0 / 6.0).abs() < 1e-12);
        // At t = 0.8: tp 2, fp 0, fn 1 → F1 = 4/5; at t = 0.4: tp 3, fp 1 → 6/7 (the best).
        assert_eq!(r.best_f1.threshold, 0.4);
        assert!((r.best_f1.f1 - 6.0 / 7.0).abs() < 1e-12);
        assert_eq!(r.at_fpr(0.0).unwrap().threshold, 0.8);
        assert!(roc(&[0.5], &[true]).is_err());
        assert!(roc_svg(&r, "x<y").contains("AUC 0.833"));
    }
}
