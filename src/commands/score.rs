//! `equimorph score`: the pairwise similarity matrix M (and L = 1 − M) of text files.

use super::common::{print, read_text, DetectorSettings};
use anyhow::Result;
use clap::Args;
use equimorph::job::score::ScoreJob;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `score`.
#[derive(Args)]
pub struct ScoreArgs {
    /// Files to compare (any text; they need not parse).
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// Print {"files": [...], "similarity": [[...]], "distance": [[...]]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    detector: DetectorSettings,
}

/// Runs `score`.
pub fn run(args: ScoreArgs) -> Result<ExitCode> {
    let names = args.files.iter().map(|f| f.display().to_string()).collect();
    let job = ScoreJob::new(names)?;
    let texts: Vec<String> = args
        .files
        .iter()
        .map(|f| read_text(f))
        .collect::<Result<_>>()?;
    let outcome = job.run(&texts, args.detector.open()?.as_ref())?;
    print(&outcome.printout(args.json));
    Ok(outcome.status().into())
}
