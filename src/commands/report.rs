//! `equimorph report`: re-render summary.json, report.md and report.html from results.jsonl.

use anyhow::{bail, Result};
use clap::Args;
use equimorph::report::{write_reports, RunInfo};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `report`.
#[derive(Args)]
pub struct ReportArgs {
    /// An attack's output directory.
    dir: PathBuf,
    /// Success threshold on M (default: the one the attack used).
    #[arg(long)]
    threshold: Option<f32>,
}

/// Runs `report`.
pub fn run(args: ReportArgs) -> Result<ExitCode> {
    let results = args.dir.join("results.jsonl");
    if !results.is_file() {
        bail!(
            "{} has no results.jsonl (run `equimorph attack … --out {}` first)",
            args.dir.display(),
            args.dir.display()
        );
    }
    let mut run: RunInfo = match std::fs::read_to_string(args.dir.join("run.json")) {
        Ok(t) => serde_json::from_str(&t)?,
        Err(_) => RunInfo {
            threshold: 0.5,
            ..RunInfo::default()
        },
    };
    if let Some(t) = args.threshold {
        run.threshold = t;
    }
    let s = write_reports(&args.dir, run)?;
    println!(
        "{} attacked: L = {:.4} ± {:.4}, success rate {:.1} %; wrote summary.json, report.md, report.html in {}",
        s.attacked,
        s.mean_distance,
        s.std_distance,
        s.success_rate * 100.0,
        args.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
