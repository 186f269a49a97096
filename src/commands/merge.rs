//! `equimorph merge`: combine the directories of a sharded run (attack, augment or select)
//! into one run directory.

use super::common::{load_tasks, MergedRunJson};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::report::results::write_jsonl;
use equimorph::report::shard::{check_complete, merge, Shard};
use equimorph::report::write_reports;
use equimorph::run::{JobKind, RunSettings};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The merged run's directory (created; it must not hold results yet).
    out: PathBuf,
    /// Shard directories (`attack|augment|select --shard I/N --out DIR`), every shard of the
    /// split exactly once.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Merge even if some shards are missing (never duplicated shards).
    #[arg(long)]
    partial: bool,
}

/// What a run directory holds, from its `run.json` (`kind`; attack runs have none).
fn kind_of(dir: &Path) -> Result<(String, serde_json::Value)> {
    let path = dir.join("run.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{} is not a run directory", dir.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let kind = v["kind"].as_str().unwrap_or("attack").to_string();
    Ok((kind, v))
}

/// The task file's ids in order, so merged files read like an unsharded run's.
fn task_order(run: &serde_json::Value, key: &str) -> Vec<String> {
    run[key]
        .as_str()
        .and_then(|p| load_tasks(Path::new(p), None).ok())
        .map(|set| {
            set.run_order(true)
                .into_iter()
                .map(|t| t.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `merge`.
pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let dirs: Vec<&Path> = args.shards.iter().map(PathBuf::as_path).collect();
    let runs: Vec<(String, serde_json::Value)> =
        dirs.iter().map(|d| kind_of(d)).collect::<Result<_>>()?;
    let (kind, first) = &runs[0];
    for (d, (k, _)) in dirs.iter().zip(&runs).skip(1) {
        if k != kind {
            bail!(
                "{} is not a {kind} run like {}",
                d.display(),
                dirs[0].display()
            );
        }
    }
    // The merged run is written by this process alone.
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let _owner = equimorph::run::lock(&args.out)?;
    let shards: Vec<(String, Option<Shard>)> = dirs
        .iter()
        .zip(&runs)
        .map(|(d, (_, v))| {
            let shard = v["shard"].as_str().and_then(|s| s.parse().ok());
            (d.display().to_string(), shard)
        })
        .collect();
    check_complete(&shards, args.partial)?;
    if args.partial {
        eprintln!(
            "warning: --partial: merging {} shard directories; the merged run covers only their tasks",
            dirs.len()
        );
    }
    for done in ["results.jsonl", "tasks.jsonl", "pairs.jsonl"] {
        if args.out.join(done).exists() {
            bail!(
                "{} already holds results; merge into a new directory",
                args.out.display()
            );
        }
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // The merged run keeps the shards' settings, without a shard, so it reads like an unsharded
    // run (`report --threshold auto` finds its detector).
    let settings = first.get("settings").and_then(|s| {
        let mut s: RunSettings = serde_json::from_value(s.clone()).ok()?;
        s.set("shard", equimorph::run::NOT_SET);
        Some(s)
    });
    let run_json = MergedRunJson {
        out: &args.out,
        settings: settings.as_ref(),
    };
    match kind.as_str() {
        "augment" => merge_augment(&args, &dirs, &task_order(first, "tasks"), &run_json),
        "select" => super::select::merge(&args.out, &dirs, &run_json),
        _ => merge_attack(&args, &dirs, &task_order(first, "tasks"), &run_json),
    }?;
    Ok(ExitCode::SUCCESS)
}

fn merge_attack(
    args: &MergeArgs,
    dirs: &[&Path],
    order: &[String],
    run_json: &MergedRunJson<'_>,
) -> Result<()> {
    let (run, lines) = merge(dirs, Some(order))?;
    write_jsonl(&args.out.join("results.jsonl"), &lines)?;
    run_json.write(JobKind::Attack, &run)?;
    let s = write_reports(&args.out, run)?;
    println!(
        "merged {} shard(s): {} tasks, {} attacked, L = {:.4} ± {:.4}, success rate {:.1} %; wrote {}",
        dirs.len(),
        s.tasks,
        s.attacked,
        s.mean_distance,
        s.std_distance,
        s.success_rate * 100.0,
        args.out.display()
    );
    Ok(())
}

fn merge_augment(
    args: &MergeArgs,
    dirs: &[&Path],
    order: &[String],
    run_json: &MergedRunJson<'_>,
) -> Result<()> {
    use equimorph::augment::summary::{finish, merge};
    let (run, tasks, variants) = merge(dirs, order)?;
    write_jsonl(&args.out.join("variants.jsonl"), &variants)?;
    write_jsonl(&args.out.join("tasks.jsonl"), &tasks)?;
    run_json.write(JobKind::Augment, &run)?;
    let s = finish(&args.out, &run, &tasks, &variants)?;
    println!(
        "merged {} shard(s): {} tasks, {} augmented, {} variants; wrote {}",
        dirs.len(),
        s.tasks,
        s.augmented,
        s.variants,
        args.out.display()
    );
    Ok(())
}
