//! The calibrate job (`equimorph calibrate`): a detector's ROC AUC and thresholds on labelled
//! pairs, from the pairs ([`CalibrationPairs::read`]) and an opened detector to a typed
//! [`CalibrateOutcome`]. The command line parses arguments, reads the pairs, opens the
//! detector, calls [`CalibrateJob::run`] and prints the outcome.
//!
//! Scoring takes one detector call per distinct first program and may run for minutes on a
//! large benchmark: it reports its progress, pair by pair.

use super::exit::ExitStatus;
use super::{Notices, Printout, Progress};
use crate::detector::{Detector, DetectorError};
use crate::report::calibration::{
    read_labelled_pairs, roc, roc_svg, CalibrationError, LabelledPair, Roc,
};
use crate::task::TaskError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Load problems shown one by one (the others are counted).
const SHOWN: usize = 10;

/// Why `calibrate` stopped with an error.
#[derive(Debug, Error)]
pub enum CalibrateError {
    /// SIGINT or SIGTERM while the pairs were scored (nothing is written).
    #[error("{0}")]
    Interrupted(#[source] super::interrupt::InterruptedBeforeStart),
    /// `--fpr` outside [0, 1].
    #[error("--fpr must lie in [0, 1]")]
    Fpr,
    /// The labelled pairs could not be read (the message holds its I/O cause: said once).
    #[error("{0}")]
    Pairs(CalibrationError),
    /// GPTCloneBench could not be read.
    #[error(transparent)]
    Bench(#[from] TaskError),
    /// No pair could be used.
    #[error("no usable labelled pair in {}", .0.display())]
    NoPairs(PathBuf),
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// The ROC curve could not be drawn (one class has no pair).
    #[error(transparent)]
    Roc(CalibrationError),
    /// The output directory could not be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// `--fpr`, when it is a rate.
pub fn check_fpr(fpr: f64) -> Result<f64, CalibrateError> {
    if (0.0..=1.0).contains(&fpr) {
        Ok(fpr)
    } else {
        Err(CalibrateError::Fpr)
    }
}

/// The labelled pairs a calibration scores.
#[derive(Debug, Clone, Default)]
pub struct CalibrationPairs {
    /// The pairs.
    pub pairs: Vec<LabelledPair>,
    /// Each pair's clone type (GPTCloneBench's; `None` for non-clones and other inputs).
    pub types: Vec<Option<String>>,
    /// Lines or files of the input that were left out.
    pub skipped: usize,
}

impl CalibrationPairs {
    /// Reads `path`: GPTCloneBench's stand-alone clones (a folder or its zip; non-clone pairs
    /// drawn with `seed`), CodeXGLUE's `data.jsonl` with the pair file `index`, or
    /// `{"a", "b", "label"}` JSONL. What was left out goes to `notices`; no usable pair is an
    /// error.
    pub fn read(
        path: &Path,
        index: Option<&Path>,
        seed: u64,
        notices: &dyn Notices,
    ) -> Result<Self, CalibrateError> {
        // A file or folder of tasks (not labelled pairs, whose keys no task format has); asked
        // only once GPTCloneBench is ruled out, so its zip is never read as lines.
        let task_format = || match index {
            Some(_) => None,
            None => crate::task::detect_format(path).ok(),
        };
        let read = if crate::task::gptclonebench::is_clone_bench(path) {
            Self::read_clone_bench(path, seed, notices)?
        } else if let Some(format) = task_format() {
            Self::read_task_set(path, format, seed, notices)?
        } else {
            let (pairs, problems) =
                read_labelled_pairs(path, index).map_err(CalibrateError::Pairs)?;
            for p in problems.iter().take(SHOWN) {
                notices.warn(&format!("skipped {p}"));
            }
            if problems.len() > SHOWN {
                notices.warn(&format!(
                    "… and {} more unusable lines",
                    problems.len() - SHOWN
                ));
            }
            CalibrationPairs {
                pairs,
                types: Vec::new(),
                skipped: problems.len(),
            }
        };
        if read.pairs.is_empty() {
            return Err(CalibrateError::NoPairs(path.to_path_buf()));
        }
        Ok(read)
    }

    /// The clean pairs of a task set with several solutions per problem, as the robustness
    /// job draws them ([`crate::robustness::clean_pairs`]): every two tasks of one problem are
    /// a clone (independent solutions), and as many seeded pairs of tasks of different
    /// problems are non-clones.
    fn read_task_set(
        path: &Path,
        format: crate::task::TaskFormat,
        seed: u64,
        notices: &dyn Notices,
    ) -> Result<Self, CalibrateError> {
        let set = crate::task::load(path, Some(format))?;
        let tasks: Vec<&crate::task::Task> = set.tasks.iter().chain(&set.untested).collect();
        let drawn = crate::robustness::clean_pairs(&tasks, seed);
        let problems: BTreeSet<&str> = tasks.iter().map(|t| t.problem_key()).collect();
        let clones = drawn.iter().filter(|(_, _, clone)| *clone).count();
        if clones == 0 {
            notices.warn(&format!(
                "{}: {} tasks of {} problems, and no problem has two solutions: a task set \
                 gives clone pairs only where one problem has several",
                path.display(),
                tasks.len(),
                problems.len()
            ));
        } else {
            notices.note(&format!(
                "{}: {} tasks of {} problems: {clones} clone pairs (two solutions of one \
                 problem) and {} non-clone pairs (seed {seed})",
                path.display(),
                tasks.len(),
                problems.len(),
                drawn.len() - clones
            ));
        }
        let pairs = drawn
            .into_iter()
            .filter_map(|(a, b, clone)| {
                Some(LabelledPair {
                    a: tasks.get(a)?.source.clone(),
                    b: tasks.get(b)?.source.clone(),
                    label: clone,
                })
            })
            .collect();
        Ok(CalibrationPairs {
            pairs,
            types: Vec::new(),
            skipped: set.problems.len(),
        })
    }

    /// GPTCloneBench's pairs and their clone types.
    fn read_clone_bench(
        path: &Path,
        seed: u64,
        notices: &dyn Notices,
    ) -> Result<Self, CalibrateError> {
        let bench = crate::task::gptclonebench::load(path, seed)?;
        for p in bench.problems.iter().take(SHOWN) {
            notices.warn(&p.to_string());
        }
        let words = |m: &BTreeMap<String, usize>| -> Vec<String> {
            m.iter().map(|(k, n)| format!("{n} {k}")).collect()
        };
        let skipped = words(&bench.skipped);
        notices.note(&format!(
            "{}: GPTCloneBench pairs: {}{}",
            path.display(),
            words(&bench.counts()).join(", "),
            if skipped.is_empty() {
                String::new()
            } else {
                format!("; skipped: {}", skipped.join(", "))
            }
        ));
        let types = bench
            .pairs
            .iter()
            .map(|p| p.clone_type.map(|t| t.label().to_string()))
            .collect();
        Ok(CalibrationPairs {
            skipped: bench.skipped.values().sum::<usize>() + bench.problems.len(),
            types,
            pairs: bench
                .pairs
                .into_iter()
                .map(|p| LabelledPair {
                    a: p.a,
                    b: p.b,
                    label: p.clone,
                })
                .collect(),
        })
    }
}

/// `calibrate`: a detector scored on labelled pairs.
pub struct CalibrateJob<'a> {
    /// The pairs.
    pub pairs: CalibrationPairs,
    /// The detector.
    pub detector: &'a dyn Detector,
    /// The false-positive rate whose threshold is reported too (see [`check_fpr`]).
    pub fpr: f64,
    /// Where `calibration.json` and `roc.svg` go.
    pub out: PathBuf,
    /// Set by SIGINT/SIGTERM: scoring stops at the next program.
    pub stop: &'a std::sync::atomic::AtomicBool,
}

/// How `calibrate` ended.
#[derive(Debug)]
pub struct CalibrateOutcome {
    /// The detector's name.
    pub detector: String,
    /// Pairs scored.
    pub pairs: usize,
    /// The ROC over every pair.
    pub roc: Roc,
    /// Per clone type: that type's clones against every non-clone pair, or why it cannot be
    /// measured.
    pub by_type: BTreeMap<String, Result<Roc, String>>,
    /// The false-positive rate asked for.
    pub fpr: f64,
    /// `calibration.json`.
    pub json_path: PathBuf,
    /// `roc.svg`.
    pub svg_path: PathBuf,
}

impl CalibrateJob<'_> {
    /// Scores every pair, computes the ROC curves and writes `calibration.json` and `roc.svg`.
    pub fn run(&self, progress: &dyn Progress) -> Result<CalibrateOutcome, CalibrateError> {
        let pairs = &self.pairs.pairs;
        let scores = self.scores(progress)?;
        let labels: Vec<bool> = pairs.iter().map(|p| p.label).collect();
        let r = roc(&scores, &labels).map_err(CalibrateError::Roc)?;
        std::fs::create_dir_all(&self.out).map_err(|source| CalibrateError::CreateDir {
            path: self.out.clone(),
            source,
        })?;
        // A type that cannot be measured is said so, with why, and the others still are.
        let types = &self.pairs.types;
        let mut by_type = BTreeMap::new();
        let names: BTreeSet<&str> = types.iter().filter_map(|t| t.as_deref()).collect();
        for name in names {
            let of_type = |i: usize| types.get(i).and_then(|t| t.as_deref()) == Some(name);
            let (s, l): (Vec<f32>, Vec<bool>) = pairs
                .iter()
                .zip(&scores)
                .enumerate()
                .filter(|(i, (p, _))| !p.label || of_type(*i))
                .map(|(_, (p, s))| (*s, p.label))
                .unzip();
            by_type.insert(name.to_string(), roc(&s, &l).map_err(|e| e.to_string()));
        }
        let outcome = CalibrateOutcome {
            detector: self.detector.name().to_string(),
            pairs: pairs.len(),
            roc: r,
            by_type,
            fpr: self.fpr,
            json_path: self.out.join("calibration.json"),
            svg_path: self.out.join("roc.svg"),
        };
        let json = outcome.json(self.pairs.skipped);
        write(&outcome.json_path, &format!("{json:#}"))?;
        write(&outcome.svg_path, &roc_svg(&outcome.roc, &outcome.detector))?;
        Ok(outcome)
    }

    /// Each pair's score, with one detector call per distinct first program.
    fn scores(&self, progress: &dyn Progress) -> Result<Vec<f32>, CalibrateError> {
        let pairs = &self.pairs.pairs;
        let mut by_anchor: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, p) in pairs.iter().enumerate() {
            by_anchor.entry(p.a.as_str()).or_default().push(i);
        }
        let mut scores = vec![0f32; pairs.len()];
        progress.start(pairs.len() as u64);
        for (scored, (anchor, idx)) in by_anchor.iter().enumerate() {
            let done = format!(
                "{scored} of {} programs scored; nothing was written",
                by_anchor.len()
            );
            if let Err(e) = super::interrupt::stop_point(self.stop, "scoring the pairs", &done) {
                progress.finish();
                return Err(CalibrateError::Interrupted(e));
            }
            let others: Vec<&str> = idx.iter().map(|&i| pairs[i].b.as_str()).collect();
            let s = match self.detector.score(anchor, &others) {
                Ok(s) => s,
                Err(e) => {
                    progress.finish();
                    return Err(e.into());
                }
            };
            for (&i, v) in idx.iter().zip(s) {
                scores[i] = v;
                progress.advance("pairs scored");
            }
        }
        progress.finish();
        Ok(scores)
    }
}

/// Writes `text` to `path`.
fn write(path: &Path, text: &str) -> Result<(), CalibrateError> {
    std::fs::write(path, text).map_err(|source| CalibrateError::Write {
        path: path.to_path_buf(),
        source,
    })
}

impl CalibrateOutcome {
    /// Always 0: a calibration that ran has its answer.
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// `calibration.json` (`skipped`: input lines or files left out).
    pub fn json(&self, skipped: usize) -> serde_json::Value {
        let (r, fpr) = (&self.roc, self.fpr);
        let at = r.at_fpr(fpr);
        let by_type: BTreeMap<&String, serde_json::Value> = self
            .by_type
            .iter()
            .map(|(k, r)| {
                let v = match r {
                    Ok(r) => type_json(r, fpr),
                    Err(why) => serde_json::json!({ "not_measured": why }),
                };
                (k, v)
            })
            .collect();
        serde_json::json!({
            "detector": self.detector,
            "pairs": self.pairs,
            "skipped_lines": skipped,
            "by_clone_type": by_type,
            "positives": r.positives,
            "negatives": r.negatives,
            "auc": r.auc,
            "f1_optimal": r.best_f1,
            "fpr": fpr,
            "at_fpr": at,
            "at_fpr_missing": at.is_none().then(|| no_threshold_at(r, fpr)),
            "curve": r.curve,
        })
    }

    /// What `calibrate` tells its user at the end: the AUC, the thresholds (per clone type
    /// too) and what it wrote.
    pub fn printout(&self) -> Printout {
        let (r, fpr) = (&self.roc, self.fpr);
        let mut p = Printout::new();
        p.out(format!(
            "{}: {} pairs ({} clones, {} non-clones), ROC AUC {:.4}",
            self.detector, self.pairs, r.positives, r.negatives, r.auc
        ));
        p.out(format!(
            "F1-optimal threshold: M >= {:.4} is a clone (F1 {:.4}, TPR {:.3}, FPR {:.3})",
            r.best_f1.threshold, r.best_f1.f1, r.best_f1.tpr, r.best_f1.fpr
        ));
        for (name, r) in &self.by_type {
            let r = match r {
                Ok(r) => r,
                Err(why) => {
                    p.out(format!("  {name}: not measured: {why}"));
                    continue;
                }
            };
            p.out(format!(
                "  {name}: {} clones vs {} non-clones, ROC AUC {:.4}, F1-optimal threshold \
                 {:.4}, at FPR <= {fpr}: {}",
                r.positives,
                r.negatives,
                r.auc,
                r.best_f1.threshold,
                r.at_fpr(fpr).map_or_else(
                    || format!("none ({})", no_threshold_at(r, fpr)),
                    |p| format!("{:.4}", p.threshold)
                )
            ));
        }
        p.out(match r.at_fpr(fpr) {
            Some(t) => format!(
                "threshold at FPR <= {fpr}: {:.4} (TPR {:.3}, FPR {:.3}); use it with \
                 --threshold {:.4}",
                t.threshold, t.tpr, t.fpr, t.threshold
            ),
            None => format!(
                "no threshold keeps the false-positive rate at or below {fpr}: {}",
                no_threshold_at(r, fpr)
            ),
        });
        p.out(format!(
            "wrote {} and {}",
            self.json_path.display(),
            self.svg_path.display()
        ));
        p
    }
}

/// One clone type's figures in `calibration.json`.
fn type_json(r: &Roc, fpr: f64) -> serde_json::Value {
    let at = r.at_fpr(fpr);
    serde_json::json!({
        "positives": r.positives,
        "negatives": r.negatives,
        "auc": r.auc,
        "f1_optimal": r.best_f1,
        "at_fpr": at,
        "at_fpr_missing": at.is_none().then(|| no_threshold_at(r, fpr)),
    })
}

/// Why `r` has no threshold at false-positive rate `fpr`: even the strictest threshold (the
/// highest score) counts too many non-clone pairs as clones.
fn no_threshold_at(r: &Roc, fpr: f64) -> String {
    let Some(p) = r.curve.first() else {
        return "the ROC curve is empty".into();
    };
    let one = 1.0 / r.negatives.max(1) as f64;
    format!(
        "non-clone pairs score as high as any clone: even the strictest threshold, M >= {:.4}, \
         counts {} of the {} non-clone pairs as clones (FPR {:.3}){}",
        p.threshold,
        (p.fpr * r.negatives as f64).round(),
        r.negatives,
        p.fpr,
        if fpr > 0.0 && one > fpr {
            format!(
                "; {} non-clone pairs are too few to measure an FPR of {fpr} (one pair is \
                 already {one:.3})",
                r.negatives
            )
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fpr_is_a_rate() {
        assert!(check_fpr(0.05).is_ok());
        for bad in [-0.1, 1.5, f64::NAN] {
            assert!(matches!(check_fpr(bad), Err(CalibrateError::Fpr)));
        }
    }

    #[test]
    fn a_task_set_gives_its_solutions_as_clones_and_other_problems_as_non_clones() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/adequacy/stdin.jsonl");
        let read = CalibrationPairs::read(&path, None, 3, &super::super::Silent).unwrap();
        let set = crate::task::load(&path, None).unwrap();
        let problem_of = |source: &str| {
            set.tasks
                .iter()
                .find(|t| t.source == source)
                .map(|t| t.problem_key().to_string())
                .unwrap()
        };
        let clones = read.pairs.iter().filter(|p| p.label).count();
        assert!(clones > 0);
        assert_eq!(read.pairs.len(), 2 * clones);
        for p in &read.pairs {
            assert_eq!(p.label, problem_of(&p.a) == problem_of(&p.b));
        }
        // Seeded: the same pairs again, other ones with another seed.
        let again = CalibrationPairs::read(&path, None, 3, &super::super::Silent).unwrap();
        assert_eq!(again.pairs, read.pairs);
        let other = CalibrationPairs::read(&path, None, 4, &super::super::Silent).unwrap();
        assert_ne!(other.pairs, read.pairs);
    }

    #[test]
    fn a_missing_pairs_file_is_said_once() {
        let e = CalibrationPairs::read(
            Path::new("/no/such/pairs.jsonl"),
            None,
            0,
            &super::super::Silent,
        )
        .unwrap_err();
        // No source: the message already holds the I/O cause.
        assert!(std::error::Error::source(&e).is_none());
        assert!(e.to_string().contains("/no/such/pairs.jsonl"), "{e}");
    }
}
