//! `equimorph check`: A(x, x') for one candidate, with the first differing test.

use super::common::{load_dataset, print, read_text, OracleSettings, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::check::{task, CheckJob};
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// The task's id.
    #[arg(long)]
    id: String,
    /// The candidate program (`-` for stdin).
    #[arg(long)]
    candidate: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    /// Print the decision as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    oracle: OracleSettings,
}

/// Runs `check`: exit 0 = equivalent, 1 = not equivalent, 2 = error (an invalid candidate
/// included: one that does not parse or compile gets no verdict).
pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let set = load_dataset(&args.tasks, args.format, "--format", &Default::default())?;
    let task = task(&set, &args.tasks, &args.id)?;
    let job = CheckJob::new(task, &args.candidate, read_text(&args.candidate)?)?;
    let outcome = job.run(&args.oracle.start(&Stderr)?)?;
    print(&outcome.printout(args.json));
    Ok(outcome.status().into())
}
