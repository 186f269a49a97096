//! `equimorph calibrate`: a detector's ROC AUC and thresholds on labelled pairs.

use super::common::{interrupt_flag, print, Bar, DetectorSettings, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::calibrate::{check_fpr, CalibrateJob, CalibrationPairs};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Labelled pairs: `{"a", "b", "label"}` JSONL (label 1 = clone), CodeXGLUE's
    /// `data.jsonl` together with --pairs, GPTCloneBench's stand-alone clones (the
    /// extracted folder or its zip; AUC is then also reported per clone type), or a task set
    /// with several solutions per problem (CodeNet, CodeContests, task JSONL with `problem`):
    /// two solutions of one problem are a clone, as many seeded pairs of different problems
    /// are non-clones.
    pairs_file: PathBuf,
    /// CodeXGLUE pair file (`idx1<TAB>idx2<TAB>label` lines) indexing PAIRS_FILE.
    #[arg(long, value_name = "FILE")]
    pairs: Option<PathBuf>,
    /// Also report the threshold at this false-positive rate.
    #[arg(long, default_value_t = 0.05, value_name = "RATE")]
    fpr: f64,
    /// Where to write calibration.json and roc.svg.
    #[arg(long, default_value = "out/calibrate")]
    out: PathBuf,
    /// Seed of GPTCloneBench's non-clone pairs (drawn across its files).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    detector: DetectorSettings,
}

/// Runs `calibrate`.
pub fn run(args: CalibrateArgs) -> Result<ExitCode> {
    let stop = interrupt_flag()?;
    let fpr = check_fpr(args.fpr)?;
    let pairs =
        CalibrationPairs::read(&args.pairs_file, args.pairs.as_deref(), args.seed, &Stderr)?;
    let detector = args.detector.open()?;
    let job = CalibrateJob {
        pairs,
        detector: detector.as_ref(),
        fpr,
        out: args.out.clone(),
        stop: &stop,
    };
    let outcome = job.run(&Bar::new(args.quiet))?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
