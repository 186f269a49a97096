//! `equimorph design`: Auto-SPT step 1, new SPTs designed by a language model.

use super::common::{print, LlmSettings, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::llm::{DesignJob, DesignSettings};
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `design`.
#[derive(Args)]
pub struct DesignArgs {
    /// Programs to show the model (five are sampled for every request).
    #[arg(long)]
    tasks: PathBuf,
    /// Input format of the tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    /// How many transformations to design.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Output: one {"name", "description", "category"} per line. Designs already in it are
    /// kept and shown to the model, so a rerun continues.
    #[arg(long)]
    out: PathBuf,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.1)]
    temperature: f32,
    /// Seed of the program samples.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Prompt template (default: prompts/design.md); {{programs}} and {{transformations}} are
    /// filled in.
    #[arg(long, value_name = "FILE")]
    prompt: Option<PathBuf>,
    #[command(flatten)]
    llm: LlmSettings,
}

/// Runs `design`.
pub fn run(args: DesignArgs) -> Result<ExitCode> {
    let client = args.llm.client()?;
    let settings = DesignSettings {
        tasks: args.tasks,
        format: args.format,
        count: args.count,
        out: args.out,
        temperature: args.temperature,
        seed: args.seed,
        prompt: args.prompt,
    };
    let job = DesignJob {
        settings: &settings,
        client: &client,
    };
    let outcome = job.run(&Stderr)?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
