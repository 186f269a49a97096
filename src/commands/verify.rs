//! `equimorph verify RUN_DIR --tasks TASKS2`: re-judges a finished run's winners or variants
//! against stronger tests.

use super::common::{load_dataset, print, Bar, LoadOptions, OracleSettings, Stderr, VerifyArgs};
use anyhow::Result;
use clap::Args;
use equimorph::job::verify::VerifyJob;
use equimorph::task::TaskFormat;
use equimorph::verify::reported;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyRunArgs {
    /// A finished `attack` or `augment` run directory.
    run: PathBuf,
    /// The tasks to judge against (typically `equimorph tests grow`'s output); ids must match
    /// the run's.
    #[arg(long, value_name = "TASKS")]
    tasks: PathBuf,
    /// Input format of --tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: LoadOptions,
    #[command(flatten)]
    verify: VerifyArgs,
    /// Print the verdicts as JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleSettings,
}

/// Runs `verify`: exit 0 when every re-judged program still passes, 1 otherwise. Writes
/// `verify.json` in the run directory.
pub fn run(args: VerifyRunArgs) -> Result<ExitCode> {
    let (kind, programs) = reported(&args.run)?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let oracle = args.oracle.start(&Stderr)?;
    let symbolic = args.verify.checker()?;
    let job = VerifyJob {
        run: args.run.clone(),
        kind,
        programs,
        tasks: &set,
        tasks_label: args.tasks.display().to_string(),
        oracle: &oracle,
        symbolic: symbolic.as_ref(),
    };
    let outcome = job.run(&Bar::new(args.quiet || args.json))?;
    print(&outcome.printout(args.json));
    Ok(outcome.status().into())
}
