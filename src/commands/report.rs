//! `equimorph report`: re-render summary.json, report.md and report.html from results.jsonl.

use super::common::{resolve_threshold, DetectorArgs, PrecisionArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::report::calibration::{Threshold, ThresholdSpec};
use equimorph::report::compare::{job_of, with_article};
use equimorph::report::{results, write_reports, RunInfo, Status};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `report`.
#[derive(Args)]
pub struct ReportArgs {
    /// An attack's output directory.
    dir: PathBuf,
    /// Success threshold: a number in [0, 1] or auto[:RATE] (calibrated with --detector on
    /// pairs of the run's originals); default: the one the attack used. A new threshold
    /// rewrites each row's `success` flag.
    #[arg(long, value_name = "M|auto[:RATE]")]
    threshold: Option<ThresholdSpec>,
    /// Run seed for an auto threshold's pair sample (default: the attack's).
    #[arg(long)]
    seed: Option<u64>,
    /// Detector for an auto threshold (default: the one the run used, from its run.json).
    #[arg(long, value_name = "SPEC")]
    detector: Option<String>,
    /// cpu, or cuda[:N], for that detector.
    #[arg(long, default_value = "cpu", value_name = "cpu|cuda[:N]")]
    device: String,
}

/// Runs `report`.
pub fn run(args: ReportArgs) -> Result<ExitCode> {
    let results_path = args.dir.join("results.jsonl");
    if let Some(kind) = job_of(&args.dir).filter(|k| k != "attack") {
        bail!(
            "{dir} is {what} run, and `report` re-renders attack runs only; {kind} writes its \
             own summary.json and report.md (rerun `equimorph {kind}` with the same arguments \
             and --out {dir} to finish the run and write them again)",
            dir = args.dir.display(),
            what = with_article(&kind),
        );
    }
    if !results_path.is_file() {
        bail!(
            "{} has no results.jsonl (run `equimorph attack … --out {}` first)",
            args.dir.display(),
            args.dir.display()
        );
    }
    // Reports and results are rewritten here: not while a job owns the directory.
    let _owner = equimorph::run::lock(&args.dir)?;
    let mut run: RunInfo = match std::fs::read_to_string(args.dir.join("run.json")) {
        Ok(t) => serde_json::from_str(&t)?,
        Err(_) => RunInfo {
            threshold: 0.5,
            threshold_source: "fixed (no run.json: the default)".into(),
            ..RunInfo::default()
        },
    };
    if let Some(spec) = args.threshold {
        let mut lines = results::read(&results_path)?;
        let threshold = match spec {
            ThresholdSpec::Fixed(value) => Threshold {
                value,
                source: "fixed".into(),
            },
            ThresholdSpec::Auto { .. } => {
                let detector_spec = match (&args.detector, recorded_detector(&args.dir, &run)) {
                    (Some(given), _) => given.clone(),
                    (None, Some(recorded)) => recorded,
                    (None, None) => bail!(
                        "{} does not record the detector's spec (an earlier equimorph made it): \
                         pass --detector",
                        args.dir.display()
                    ),
                };
                let detector = DetectorArgs {
                    detector: detector_spec,
                    device: args.device.clone(),
                    threads: None,
                    batch_size: None,
                    precision: PrecisionArg::Auto,
                    batch_shapes: None,
                }
                .open()?;
                if !run.detector.is_empty() && detector.name() != run.detector {
                    eprintln!(
                        "warning: the threshold is calibrated with {}, but the attack used {}",
                        detector.name(),
                        run.detector
                    );
                }
                // The attacked tasks' originals: those that passed their tests.
                let originals: Vec<equimorph::report::calibration::CalibrationProgram<'_>> = lines
                    .iter()
                    .filter(|l| l.status == Status::Ok)
                    .map(|l| equimorph::report::calibration::CalibrationProgram {
                        text: &l.original,
                        problem: l.problem.as_deref().unwrap_or(&l.id),
                    })
                    .collect();
                resolve_threshold(
                    spec,
                    detector.as_ref(),
                    &originals,
                    args.seed.unwrap_or(run.seed),
                    None,
                )?
            }
        };
        run.threshold = threshold.value;
        run.threshold_source = threshold.source;
        for l in &mut lines {
            if l.status == Status::Ok {
                l.success = l.similarity.map(|m| m < run.threshold);
            }
        }
        rewrite_results(&results_path, &lines)?;
        equimorph::run::update_run_json(&args.dir, &run)?;
    }
    let s = write_reports(&args.dir, run.clone())?;
    println!(
        "{} attacked: L = {:.4} ± {:.4}, success rate {:.1} % (M < {:.4}, {}); wrote summary.json, report.md, report.html in {}",
        s.attacked,
        s.mean_distance,
        s.std_distance,
        s.success_rate * 100.0,
        run.threshold,
        if run.threshold_source.is_empty() { "fixed" } else { &run.threshold_source },
        args.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The detector spec the run in `dir` used: from its recorded settings, else (runs made before
/// settings were recorded) its detector's name when that is itself a spec.
fn recorded_detector(dir: &std::path::Path, run: &RunInfo) -> Option<String> {
    if let Ok(Some((_, Some(settings)))) = equimorph::run::recorded(dir) {
        if let Some(spec) = settings.get("detector") {
            return Some(spec.to_string());
        }
    }
    ["minilm", "minilm-int8", "jaccard", "sourcerercc", "nicad"]
        .contains(&run.detector.as_str())
        .then(|| run.detector.clone())
}

/// Replaces `path` with `lines` atomically (a temporary file renamed over it).
fn rewrite_results(path: &std::path::Path, lines: &[equimorph::report::ResultLine]) -> Result<()> {
    let tmp = path.with_extension("jsonl.tmp");
    let mut text = String::new();
    for l in lines {
        text.push_str(&serde_json::to_string(l)?);
        text.push('\n');
    }
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
