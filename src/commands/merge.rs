//! `equimorph merge`: combine the directories of a sharded run into one run directory.

use super::common::load_tasks;
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::report::shard::merge;
use equimorph::report::write_reports;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The merged run's directory (created; it must not hold results yet).
    out: PathBuf,
    /// Shard directories (`attack --shard I/N --out DIR`).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
}

/// Runs `merge`.
pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let results_path = args.out.join("results.jsonl");
    if results_path.exists() {
        bail!(
            "{} already holds results; merge into a new directory",
            args.out.display()
        );
    }
    let dirs: Vec<&std::path::Path> = args.shards.iter().map(PathBuf::as_path).collect();
    // The task file's order, so the merged results read like an unsharded run's.
    let first_run: Option<equimorph::report::RunInfo> =
        std::fs::read_to_string(args.shards[0].join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
    let order: Option<Vec<String>> = first_run
        .and_then(|r| load_tasks(std::path::Path::new(&r.tasks), None).ok())
        .map(|set| set.tasks.into_iter().map(|t| t.id).collect());
    let (run, lines) = merge(&dirs, order.as_deref())?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut text = String::new();
    for l in &lines {
        text.push_str(&serde_json::to_string(l)?);
        text.push('\n');
    }
    std::fs::write(&results_path, text)
        .with_context(|| format!("cannot write {}", results_path.display()))?;
    let run_json = args.out.join("run.json");
    std::fs::write(&run_json, serde_json::to_string_pretty(&run)?)
        .with_context(|| format!("cannot write {}", run_json.display()))?;
    let s = write_reports(&args.out, run)?;
    println!(
        "merged {} shard(s): {} tasks, {} attacked, L = {:.4} ± {:.4}, success rate {:.1} %; wrote {}",
        args.shards.len(),
        s.tasks,
        s.attacked,
        s.mean_distance,
        s.std_distance,
        s.success_rate * 100.0,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
