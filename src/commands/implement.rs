//! `equimorph implement`: Auto-SPT step 2, N candidate implementations of every design.

use super::common::{llm_cost, prompt, LlmArgs};
use super::design::read_designs;
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::llm::{ImplementRecord, ImplementStatus, LlmClient, IMPLEMENT_PROMPT};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `implement`.
#[derive(Args)]
pub struct ImplementArgs {
    /// Designs (`equimorph design`'s output).
    pub(super) designs: PathBuf,
    /// Implementations per design.
    #[arg(long, default_value_t = 10)]
    pub(super) samples: u32,
    /// Output directory: <design>/<k>.py (the layout `select` reads) and implement.jsonl (one
    /// record per sample: written, not_python or error).
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.8)]
    pub(super) temperature: f32,
    /// Prompt template (default: prompts/implement.md); {{name}} and {{description}} are
    /// filled in.
    #[arg(long, value_name = "FILE")]
    pub(super) prompt: Option<PathBuf>,
    #[command(flatten)]
    pub(super) llm: LlmArgs,
}

/// Runs `implement`.
pub fn run(args: ImplementArgs) -> Result<ExitCode> {
    let client = args.llm.client()?;
    let records = run_with(&args, &client)?;
    let count = |s| records.iter().filter(|r| r.status == s).count();
    println!(
        "{} candidates written to {}, {} replies not Python, {} failed requests ({})",
        count(ImplementStatus::Written),
        args.out.display(),
        count(ImplementStatus::NotPython),
        count(ImplementStatus::Error),
        llm_cost(&client.stats())
    );
    Ok(if count(ImplementStatus::Error) > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Implements every design of `args.designs` into `args.out` with `client`.
pub fn run_with(args: &ImplementArgs, client: &LlmClient) -> Result<Vec<ImplementRecord>> {
    if args.samples == 0 {
        bail!("--samples must be at least 1");
    }
    let designs = read_designs(&args.designs)?;
    if designs.is_empty() {
        bail!("{} holds no design", args.designs.display());
    }
    let template = prompt(&args.prompt, IMPLEMENT_PROMPT)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let records = equimorph::llm::implement(
        client,
        &template,
        &designs,
        args.samples,
        args.temperature,
        &args.out,
    )
    .with_context(|| format!("writing candidates to {}", args.out.display()))?;
    let mut log = String::new();
    for r in &records {
        log.push_str(&serde_json::to_string(r)?);
        log.push('\n');
        if r.status == ImplementStatus::Error {
            eprintln!(
                "error: {} sample {}: {}",
                r.design,
                r.sample,
                r.message.as_deref().unwrap_or("")
            );
        }
    }
    let path = args.out.join("implement.jsonl");
    std::fs::write(&path, log).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(records)
}
