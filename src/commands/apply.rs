//! `equimorph apply`: run a sequence of transforms on one program.

use super::common::{read_text, split_names, Stderr, TransformOptions};
use anyhow::Result;
use clap::Args;
use equimorph::job::apply::{ApplyJob, Program, Steps};
use equimorph::language::Language;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `apply`.
#[derive(Args)]
pub struct ApplyArgs {
    /// Transforms to apply, in order (comma-separated; a name may repeat): names from the
    /// transform set, or paths of `.py` scripts and `.wasm` components.
    #[arg(long, value_name = "NAME|FILE[,...]", required = true)]
    transform: String,
    /// Seed of every step, or one seed per step (comma-separated).
    #[arg(long, default_value = "0", value_name = "N[,N...]")]
    seed: String,
    /// The program (its language from its extension: `.py`, `.java`, `.cpp`/`.cc`, `.c`), or
    /// `-` for standard input.
    file: PathBuf,
    /// The program's language, when its file name does not say (`-`, or another extension).
    #[arg(long, value_name = "python|java|cpp|c")]
    language: Option<Language>,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Runs `apply`.
pub fn run(args: ApplyArgs) -> Result<ExitCode> {
    let steps = Steps::new(split_names(&args.transform), &args.seed)?;
    let program = Program::new(&args.file, read_text(&args.file)?, args.language)?;
    let runtime = args.transforms.runtime()?;
    let transforms = args.transforms.resolve_steps(&runtime, &steps.names)?;
    let job = ApplyJob {
        program,
        steps,
        transforms,
    };
    // The program as it is, without a line added.
    print!("{}", job.run(&Stderr)?);
    Ok(ExitCode::SUCCESS)
}
