//! `equimorph compare`: one table over several attack runs.

use super::common::{print, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::compare::{ColumnBy, CompareJob};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// Attack output directories (each with summary.json, or results.jsonl and run.json).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Label columns by directory name or by transform set.
    #[arg(long, value_enum, default_value = "dir")]
    by: ColumnBy,
    /// A column label per run, in the order of the runs (default: by --by; runs whose
    /// directories share a name are labelled by their paths).
    #[arg(long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Where to write compare.md, compare.csv and compare.html.
    #[arg(long, default_value = "out/compare")]
    out: PathBuf,
}

/// Runs `compare`.
pub fn run(args: CompareArgs) -> Result<ExitCode> {
    let job = CompareJob {
        runs: args.runs,
        by: args.by,
        labels: args.labels,
        out: args.out,
    };
    let outcome = job.run(&Stderr)?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
