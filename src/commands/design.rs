//! `equimorph design`: Auto-SPT step 1, new SPTs designed by a language model.

use super::common::{llm_cost, load_tasks, prompt, LlmArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::llm::{Design, LlmClient, LlmError, DESIGN_PROMPT};
use equimorph::task::TaskFormat;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `design`.
#[derive(Args)]
pub struct DesignArgs {
    /// Programs to show the model (five are sampled for every request).
    #[arg(long)]
    pub(super) tasks: PathBuf,
    /// Input format of the tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) format: Option<TaskFormat>,
    /// How many transformations to design.
    #[arg(long, default_value_t = 10)]
    pub(super) count: usize,
    /// Output: one {"name", "description", "category"} per line. Designs already in it are
    /// kept and shown to the model, so a rerun continues.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.1)]
    pub(super) temperature: f32,
    /// Seed of the program samples.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Prompt template (default: prompts/design.md); {{programs}} and {{transformations}} are
    /// filled in.
    #[arg(long, value_name = "FILE")]
    pub(super) prompt: Option<PathBuf>,
    #[command(flatten)]
    pub(super) llm: LlmArgs,
}

/// Runs `design`.
pub fn run(args: DesignArgs) -> Result<ExitCode> {
    let client = args.llm.client()?;
    let (designs, complete) = run_with(&args, &client)?;
    println!(
        "{} designs in {} ({})",
        designs.len(),
        args.out.display(),
        llm_cost(&client.stats())
    );
    Ok(if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Designs into `args.out` with `client`; returns the designs and whether all `count` exist.
/// Problems are printed on stderr; an endpoint that fails (after its retries) is an error, and
/// leaves no empty `args.out` behind.
pub fn run_with(args: &DesignArgs, client: &LlmClient) -> Result<(Vec<Design>, bool)> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let template = prompt(&args.prompt, DESIGN_PROMPT)?;
    let set = load_tasks(&args.tasks, args.format)?;
    if set.tasks.is_empty() {
        bail!("{} holds no task", args.tasks.display());
    }
    let existing = read_designs(&args.out)?;
    let run = equimorph::llm::design(
        client,
        &template,
        &set.tasks,
        args.count,
        args.seed,
        args.temperature,
        existing,
    );
    // Nothing new and nothing before (the endpoint never answered): no empty file.
    if !run.designs.is_empty() || args.out.exists() {
        write_designs(&args.out, &run.designs)?;
    }
    for r in &run.rejected {
        let excerpt: String = r.reply.chars().take(200).collect();
        eprintln!(
            "design: reply {} retried ({}): {:?}",
            r.attempt, r.reason, excerpt
        );
    }
    if !run.rejected.is_empty() {
        // Whole replies, so a user can see why each was refused.
        let path = args.out.with_extension("rejected.jsonl");
        let lines: String = run
            .rejected
            .iter()
            .map(|r| {
                serde_json::json!({"attempt": r.attempt, "reason": r.reason, "reply": r.reply})
                    .to_string()
                    + "\n"
            })
            .collect();
        std::fs::write(&path, lines).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!(
            "design: {} replies retried; their whole texts are in {}",
            run.rejected.len(),
            path.display()
        );
    }
    if let Some(why) = &run.gave_up {
        eprintln!("design: {why}");
    }
    if let Some(e) = run.error {
        let stopped = format!(
            "design stopped with {} of {} designs",
            run.designs.len(),
            args.count
        );
        // The budget the user set ran out: a short answer (exit 1), not a failure.
        if matches!(e, LlmError::Budget { .. }) {
            eprintln!("error: {stopped}: {e}");
            return Ok((run.designs, false));
        }
        // The endpoint failed: an error, not a short answer.
        return Err(anyhow::Error::new(e).context(format!(
            "{stopped}{}",
            if run.designs.is_empty() {
                String::new()
            } else {
                format!(" (kept in {}; rerun to continue)", args.out.display())
            }
        )));
    }
    let complete = run.designs.len() >= args.count;
    Ok((run.designs, complete))
}

/// The designs of a `designs.jsonl` (none when it does not exist).
pub fn read_designs(path: &Path) -> Result<Vec<Design>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a design line", path.display(), i + 1))
        })
        .collect()
}

fn write_designs(path: &Path, designs: &[Design]) -> Result<()> {
    let mut text = String::new();
    for d in designs {
        text.push_str(&serde_json::to_string(d)?);
        text.push('\n');
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
