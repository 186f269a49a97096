//! `equimorph report`: re-render summary.json, report.md and report.html from results.jsonl.

use super::common::{print, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::report::ReportJob;
use equimorph::report::calibration::ThresholdSpec;
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
    let job = ReportJob {
        dir: args.dir,
        threshold: args.threshold,
        seed: args.seed,
        detector: args.detector,
        device: args.device,
    };
    print(&job.run(&Stderr)?.printout());
    Ok(ExitCode::SUCCESS)
}
