//! `equimorph dataset`: what a dataset holds once loaded, and its known-broken programs as
//! labelled non-equivalent pairs.

use super::common::{load_dataset, print, LoadOptions, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::dataset::DatasetJob;
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `dataset`.
#[derive(Args)]
pub struct DatasetCommandArgs {
    /// Task file or directory (any format `attack` reads).
    tasks: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: LoadOptions,
    /// Print the counts as JSON (with every problem) instead of text.
    #[arg(long)]
    json: bool,
    /// Write every known-broken program (CodeContests' incorrect_solutions, CodeNet's wrong
    /// answers and runtime errors) beside an accepted solution of its problem, one JSON line
    /// each: {problem, a_id, a, b_id, b, verdict, label: 0}.
    #[arg(long, value_name = "FILE")]
    broken_pairs: Option<PathBuf>,
    /// Problems listed in the text output (the largest first).
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
}

/// Runs `dataset`.
pub fn run(args: DatasetCommandArgs) -> Result<ExitCode> {
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let job = DatasetJob {
        set: &set,
        tasks: args.tasks.display().to_string(),
        broken_pairs: args.broken_pairs,
    };
    let outcome = job.run(&Stderr)?;
    print(&outcome.printout(args.json, args.top));
    Ok(outcome.status().into())
}
