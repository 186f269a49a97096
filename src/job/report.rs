//! `equimorph report`: re-render an attack run's summary.json, report.md and report.html from
//! its results.jsonl, optionally under a new threshold (fixed, or calibrated with the one
//! non-clone rule on the run's own originals).

use super::interrupt::InterruptedBeforeStart;
use super::settings::DetectorSettings;
use super::threshold::resolve_threshold;
use super::{Notices, Printout};
use crate::detector::DetectorError;
use crate::report::calibration::{CalibrationProgram, Threshold, ThresholdSpec};
use crate::report::compare::{job_of, with_article};
use crate::report::results::{self, ResultsError};
use crate::report::{write_reports, ResultLine, RunInfo, Status, Summary};
use crate::run::RunDirError;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a report was not re-rendered.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The directory holds another job's run.
    #[error(
        "{dir} is {what} run, and `report` re-renders attack runs only; {kind} writes its own \
         summary.json and report.md (rerun `equimorph {kind}` with the same arguments and --out \
         {dir} to finish the run and write them again)",
        dir = .dir.display(),
        what = with_article(.kind)
    )]
    NotAttack {
        /// The run directory.
        dir: PathBuf,
        /// The job that made it.
        kind: String,
    },
    /// No results.jsonl.
    #[error("{} has no results.jsonl (run `equimorph attack … --out {}` first)", .0.display(), .0.display())]
    NoResults(PathBuf),
    /// An auto threshold needs a detector the run does not record.
    #[error(
        "{} does not record the detector's spec (an earlier equimorph made it): pass --detector",
        .0.display()
    )]
    NoDetector(PathBuf),
    /// run.json does not parse.
    #[error("{path}: {source}")]
    RunJson {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// results.jsonl could not be rewritten.
    #[error("cannot {verb} {path}: {source}")]
    Rewrite {
        /// write or replace.
        verb: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory is owned by another process, or its record could not be written.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The results could not be read or the reports written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The detector for an auto threshold.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// Interrupted while calibrating.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
}

/// Re-rendering an attack run.
#[derive(Debug, Clone)]
pub struct ReportJob {
    /// The attack's output directory.
    pub dir: PathBuf,
    /// A new threshold; `None` keeps the run's.
    pub threshold: Option<ThresholdSpec>,
    /// Seed of an auto threshold's pair sample (default: the attack's).
    pub seed: Option<u64>,
    /// Detector for an auto threshold (default: the run's).
    pub detector: Option<String>,
    /// Where that detector runs.
    pub device: String,
}

/// What a re-rendered report says.
#[derive(Debug, Clone)]
pub struct ReportOutcome {
    /// The new summary.
    pub summary: Summary,
    /// The threshold it used and where it came from.
    pub threshold: Threshold,
    /// The run directory.
    pub dir: PathBuf,
}

impl ReportOutcome {
    /// One line of figures and where the files are.
    pub fn printout(&self) -> Printout {
        let s = &self.summary;
        let source = if self.threshold.source.is_empty() {
            "fixed"
        } else {
            &self.threshold.source
        };
        let mut p = Printout::new();
        p.out(format!(
            "{} attacked: L = {:.4} ± {:.4}, success rate {:.1} % (M < {:.4}, {source}); wrote \
             summary.json, report.md, report.html in {}",
            s.attacked,
            s.mean_distance,
            s.std_distance,
            s.success_rate * 100.0,
            self.threshold.value,
            self.dir.display()
        ));
        p
    }
}

impl ReportJob {
    /// Re-renders the reports (rewriting each row's `success` under a new threshold first).
    pub fn run(&self, notices: &dyn Notices) -> Result<ReportOutcome, ReportError> {
        let dir = &self.dir;
        let results_path = dir.join("results.jsonl");
        if let Some(kind) = job_of(dir).filter(|k| k != "attack") {
            return Err(ReportError::NotAttack {
                dir: dir.clone(),
                kind,
            });
        }
        if !results_path.is_file() {
            return Err(ReportError::NoResults(dir.clone()));
        }
        // Reports and results are rewritten here: not while a job owns the directory.
        let _owner = crate::run::lock(dir)?;
        let run_json = dir.join("run.json");
        let mut run: RunInfo = match std::fs::read_to_string(&run_json) {
            Ok(t) => serde_json::from_str(&t).map_err(|source| ReportError::RunJson {
                path: run_json.clone(),
                source,
            })?,
            Err(_) => RunInfo {
                threshold: 0.5,
                threshold_source: "fixed (no run.json: the default)".into(),
                ..RunInfo::default()
            },
        };
        if let Some(spec) = self.threshold {
            let mut lines = results::read(&results_path)?;
            let threshold = self.threshold(spec, &run, &lines, notices)?;
            run.threshold = threshold.value;
            run.threshold_source = threshold.source;
            for l in &mut lines {
                if l.status == Status::Ok {
                    l.success = l.similarity.map(|m| m < run.threshold);
                }
            }
            rewrite_results(&results_path, &lines)?;
            crate::run::update_run_json(dir, &run)?;
        }
        let threshold = Threshold {
            value: run.threshold,
            source: run.threshold_source.clone(),
        };
        let summary = write_reports(dir, run)?;
        Ok(ReportOutcome {
            summary,
            threshold,
            dir: dir.clone(),
        })
    }

    /// The new threshold: fixed, or calibrated on the attacked tasks' originals.
    fn threshold(
        &self,
        spec: ThresholdSpec,
        run: &RunInfo,
        lines: &[ResultLine],
        notices: &dyn Notices,
    ) -> Result<Threshold, ReportError> {
        if let ThresholdSpec::Fixed(value) = spec {
            return Ok(Threshold {
                value,
                source: "fixed".into(),
            });
        }
        let spec_name = match (&self.detector, recorded_detector(&self.dir, run)) {
            (Some(given), _) => given.clone(),
            (None, Some(recorded)) => recorded,
            (None, None) => return Err(ReportError::NoDetector(self.dir.clone())),
        };
        let detector = DetectorSettings::on(spec_name, self.device.clone()).open()?;
        if !run.detector.is_empty() && detector.name() != run.detector {
            notices.warn(&format!(
                "the threshold is calibrated with {}, but the attack used {}",
                detector.name(),
                run.detector
            ));
        }
        // The attacked tasks' originals: those that passed their tests.
        let originals: Vec<CalibrationProgram<'_>> = lines
            .iter()
            .filter(|l| l.status == Status::Ok)
            .map(|l| CalibrationProgram {
                text: &l.original,
                problem: l.problem.as_deref().unwrap_or(&l.id),
            })
            .collect();
        let seed = self.seed.unwrap_or(run.seed);
        Ok(resolve_threshold(
            spec,
            detector.as_ref(),
            &originals,
            seed,
            None,
            notices,
        )?)
    }
}

/// The detector spec the run in `dir` used: from its recorded settings, else (runs made before
/// settings were recorded) its detector's name when that is itself a spec.
fn recorded_detector(dir: &Path, run: &RunInfo) -> Option<String> {
    if let Ok(Some((_, Some(settings)))) = crate::run::recorded(dir) {
        if let Some(spec) = settings.get("detector") {
            return Some(spec.to_string());
        }
    }
    ["minilm", "minilm-int8", "jaccard", "sourcerercc", "nicad"]
        .contains(&run.detector.as_str())
        .then(|| run.detector.clone())
}

/// Replaces `path` with `lines` atomically (a temporary file renamed over it).
fn rewrite_results(path: &Path, lines: &[ResultLine]) -> Result<(), ReportError> {
    let tmp = path.with_extension("jsonl.tmp");
    let mut text = String::new();
    for l in lines {
        text.push_str(&serde_json::to_string(l).unwrap_or_default());
        text.push('\n');
    }
    std::fs::write(&tmp, text).map_err(|source| ReportError::Rewrite {
        verb: "write",
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, path).map_err(|source| ReportError::Rewrite {
        verb: "replace",
        path: path.to_path_buf(),
        source,
    })
}
