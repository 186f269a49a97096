//! `equimorph validate`: run every original twice and classify it.

use super::common::{
    interrupt_flag, load_dataset, print, stop_point, Bar, LoadOptions, OracleSettings, Stderr,
};
use anyhow::Result;
use clap::Args;
use equimorph::job::validate::ValidateJob;
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `validate`.
#[derive(Args)]
pub struct ValidateArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: LoadOptions,
    /// Print {"ok": N, "failing": [...], "flaky": [...], "timeout": [...], "isolation": {...},
    /// "limits": {"python": [...], "java": [...]}}.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleSettings,
}

/// Runs `validate`. Exit status 0 when every task's original is ok, 1 when one is not (or
/// there is no task), 130 when interrupted. Load warnings (a problem with no sample test, a
/// malformed line) are notes, not a negative answer.
pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    // Before any work: SIGINT/SIGTERM stop the run cleanly (exit 130) from here on.
    let stop = interrupt_flag()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    stop_point(&stop, "loading the tasks", "no task was validated")?;
    let oracle = args.oracle.start(&Stderr)?;
    stop_point(&stop, "starting the sandbox", "no task was validated")?;
    let job = ValidateJob {
        tasks: &set,
        oracle: &oracle,
    };
    let outcome = job.run(&stop, &Bar::new(args.quiet || args.json));
    print(&outcome.printout(args.json));
    Ok(outcome.status().into())
}
