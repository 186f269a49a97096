//! `equimorph autospt`: the whole Auto-SPT pipeline in one resumable command: design →
//! implement → select → attack with the selected set, and one report of what each stage
//! produced and cost.

use super::common::{
    interrupt_flag, print, Bar, DetectorSettings, LlmSettings, OracleSettings, SandboxSettings,
    Stderr,
};
use anyhow::Result;
use clap::Args;
use equimorph::job::autospt::{AutosptDir, AutosptJob, AutosptSettings, Reporting};
use equimorph::job::exit::ExitStatus;
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `autospt`.
#[derive(Args)]
pub struct AutosptArgs {
    /// Programs to attack (and to show the model in step 1).
    #[arg(long)]
    tasks: PathBuf,
    /// Validation programs for best-of-N selection (step 2's reward).
    #[arg(long)]
    validation: PathBuf,
    /// Input format of both task files (default: guessed from each path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    /// K: transformations to design.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// N: implementations per transformation.
    #[arg(long, default_value_t = 10)]
    samples: u32,
    /// Output directory: designs.jsonl, candidates/, selection/, attack/, autospt.md. A rerun
    /// skips the stages already done and resumes the one in progress.
    #[arg(long)]
    out: PathBuf,
    /// Attack with the selected transforms plus the built-in library.
    #[arg(long)]
    with_builtin: bool,
    /// Step 1 temperature.
    #[arg(long, default_value_t = 0.1)]
    design_temperature: f32,
    /// Step 2 temperature.
    #[arg(long, default_value_t = 0.8)]
    implement_temperature: f32,
    /// Step 1 prompt template (default: prompts/design.md).
    #[arg(long, value_name = "FILE")]
    design_prompt: Option<PathBuf>,
    /// Step 2 prompt template (default: prompts/implement.md).
    #[arg(long, value_name = "FILE")]
    implement_prompt: Option<PathBuf>,
    /// Use at most N validation tasks in selection (a seeded sample).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Only candidates with at most this share of broken or invalid outputs may win.
    #[arg(long, value_name = "RATE")]
    max_broken: Option<f64>,
    /// Beam width of the attack.
    #[arg(long, default_value_t = 5)]
    beam: usize,
    /// Iterations of the attack.
    #[arg(long, default_value_t = 10)]
    iterations: usize,
    /// Run seed (program samples, selection and attack).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    llm: LlmSettings,
    #[command(flatten)]
    detector: DetectorSettings,
    #[command(flatten)]
    sandbox: SandboxSettings,
    #[command(flatten)]
    oracle: OracleSettings,
}

/// Runs `autospt`.
pub fn run(args: AutosptArgs) -> Result<ExitCode> {
    let settings = settings(&args);
    settings.check()?;
    let dir = AutosptDir::open(&args.out)?;
    let client = args.llm.client()?;
    let job = AutosptJob {
        settings: &settings,
        client: &client,
        detector: &args.detector,
        sandbox: &args.sandbox,
        oracle: &args.oracle,
    };
    let reporting = Reporting {
        interrupts: &interrupt_flag,
        notices: &Stderr,
        progress: &Bar::new(args.quiet),
        say: &print,
    };
    let outcome = match job.run(dir, &reporting) {
        Ok(outcome) => outcome,
        // An interrupted stage exits 130, as every interrupted job.
        Err(e) if e.status() == ExitStatus::Interrupted => {
            eprintln!("{e}");
            return Ok(e.status().into());
        }
        Err(e) => return Err(e.into()),
    };
    print(&outcome.printout());
    Ok(outcome.status().into())
}

/// The pipeline the arguments ask for.
fn settings(args: &AutosptArgs) -> AutosptSettings {
    AutosptSettings {
        tasks: args.tasks.clone(),
        validation: args.validation.clone(),
        format: args.format,
        count: args.count,
        samples: args.samples,
        with_builtin: args.with_builtin,
        design_temperature: args.design_temperature,
        implement_temperature: args.implement_temperature,
        design_prompt: args.design_prompt.clone(),
        implement_prompt: args.implement_prompt.clone(),
        limit: args.limit,
        max_broken: args.max_broken,
        beam: args.beam,
        iterations: args.iterations,
        seed: args.seed,
    }
}
