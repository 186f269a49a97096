//! `equimorph implement`: Auto-SPT step 2, N candidate implementations of every design.

use super::common::{print, LlmSettings, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::llm::{ImplementJob, ImplementSettings};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `implement`.
#[derive(Args)]
pub struct ImplementArgs {
    /// Designs (`equimorph design`'s output).
    designs: PathBuf,
    /// Implementations per design.
    #[arg(long, default_value_t = 10)]
    samples: u32,
    /// Output directory: <design>/<k>.py (the layout `select` reads) and implement.jsonl (one
    /// record per sample: written, not_python or error).
    #[arg(long)]
    out: PathBuf,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.8)]
    temperature: f32,
    /// Prompt template (default: prompts/implement.md); {{name}} and {{description}} are
    /// filled in.
    #[arg(long, value_name = "FILE")]
    prompt: Option<PathBuf>,
    #[command(flatten)]
    llm: LlmSettings,
}

/// Runs `implement`.
pub fn run(args: ImplementArgs) -> Result<ExitCode> {
    let client = args.llm.client()?;
    let settings = ImplementSettings {
        designs: args.designs,
        samples: args.samples,
        out: args.out,
        temperature: args.temperature,
        prompt: args.prompt,
    };
    let job = ImplementJob {
        settings: &settings,
        client: &client,
    };
    let outcome = job.run(&Stderr)?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
