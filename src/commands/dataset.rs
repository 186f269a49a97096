//! `equimorph dataset`: what a dataset holds once loaded, and its known-broken programs as
//! labelled non-equivalent pairs.

use super::common::{load_dataset, DatasetArgs};
use anyhow::{Context, Result};
use clap::Args;
use equimorph::task::TaskFormat;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `dataset`.
#[derive(Args)]
pub struct DatasetCommandArgs {
    /// Task file or directory (any format `attack` reads).
    tasks: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    /// Print the counts as JSON (with every problem) instead of text.
    #[arg(long)]
    json: bool,
    /// Write every known-broken program (CodeContests' incorrect_solutions, CodeNet's wrong
    /// answers and runtime errors) beside an accepted solution of its problem, one JSON line
    /// each: {problem, a_id, a, b_id, b, verdict, label: 0}.
    #[arg(long, value_name = "FILE")]
    broken_pairs: Option<PathBuf>,
    /// Problems listed in the text output (the largest first).
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
}

/// Runs `dataset`.
pub fn run(args: DatasetCommandArgs) -> Result<ExitCode> {
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let per_problem = set.per_problem();
    if let Some(path) = &args.broken_pairs {
        let pairs = set.broken_pairs();
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        for p in &pairs {
            serde_json::to_writer(&mut out, p)?;
            out.write_all(b"\n")?;
        }
        out.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!(
            "wrote {} labelled non-equivalent pair(s) to {} ({} broken program(s) had no \
             accepted solution of their problem here)",
            pairs.len(),
            path.display(),
            set.broken.len() - pairs.len()
        );
    }
    if args.json {
        let json = serde_json::json!({
            "tasks": args.tasks.display().to_string(),
            "report": set.report(),
            "problems": per_problem,
            "warnings": set.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", set.report());
    let mut rows: Vec<_> = per_problem.iter().collect();
    rows.sort_by(|a, b| {
        (b.1.tasks + b.1.untested)
            .cmp(&(a.1.tasks + a.1.untested))
            .then(a.0.cmp(b.0))
    });
    if !rows.is_empty() {
        println!(
            "{:<40} {:>7} {:>9} {:>7}",
            "problem", "tasks", "untested", "broken"
        );
        for (p, c) in rows.iter().take(args.top) {
            println!("{:<40} {:>7} {:>9} {:>7}", p, c.tasks, c.untested, c.broken);
        }
        if rows.len() > args.top {
            println!(
                "… and {} more problems (--top N, or --json for all)",
                rows.len() - args.top
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
