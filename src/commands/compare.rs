//! `equimorph compare`: one table over several attack runs.

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use equimorph::report::compare::{compare, job_of, transform_set_label, with_article};
use equimorph::report::{results, Summary};
use std::path::PathBuf;
use std::process::ExitCode;

/// What names a column.
#[derive(Clone, Copy, ValueEnum)]
enum ColumnBy {
    /// The run directory's name.
    Dir,
    /// The run's transform set.
    Transforms,
}

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// Attack output directories (each with summary.json, or results.jsonl and run.json).
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Label columns by directory name or by transform set.
    #[arg(long, value_enum, default_value = "dir")]
    by: ColumnBy,
    /// A column label per run, in the order of the runs (default: by --by; runs whose
    /// directories share a name are labelled by their paths).
    #[arg(long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Where to write compare.md, compare.csv and compare.html.
    #[arg(long, default_value = "out/compare")]
    out: PathBuf,
}

fn load(dir: &std::path::Path) -> Result<Summary> {
    // Another job's run has a summary of another shape: say which job made it.
    if let Some(kind) = job_of(dir).filter(|k| k != "attack") {
        bail!(
            "{} is {} run; compare takes attack runs (the --out of `equimorph attack`)",
            dir.display(),
            with_article(&kind)
        );
    }
    let path = dir.join("summary.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return serde_json::from_str(&text)
            .with_context(|| format!("{} is not an equimorph summary", path.display()));
    }
    // No summary yet (an interrupted run): summarise its results.
    let results_path = dir.join("results.jsonl");
    if !results_path.is_file() {
        bail!(
            "{} has neither summary.json nor results.jsonl (is it an attack's --out?)",
            dir.display()
        );
    }
    let lines = results::read(&results_path)?;
    let run = std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    Ok(Summary::of(&lines, run))
}

/// Runs `compare`.
pub fn run(args: CompareArgs) -> Result<ExitCode> {
    if !args.labels.is_empty() && args.labels.len() != args.runs.len() {
        bail!(
            "{} --label for {} runs: give one label per run, in the same order",
            args.labels.len(),
            args.runs.len()
        );
    }
    let name_of = |dir: &PathBuf| {
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string())
    };
    let mut runs = Vec::new();
    let mut task_sets = Vec::new();
    for (i, dir) in args.runs.iter().enumerate() {
        let s = load(dir)?;
        let label = match (args.labels.get(i), args.by) {
            (Some(l), _) => l.clone(),
            (None, ColumnBy::Dir) => {
                // Two directories of one name (x/run, y/run) are told apart by their paths.
                let name = name_of(dir);
                if args.runs.iter().filter(|d| name_of(d) == name).count() > 1 {
                    dir.display().to_string()
                } else {
                    name
                }
            }
            (None, ColumnBy::Transforms) => transform_set_label(&s.run.transforms),
        };
        let ids: std::collections::BTreeSet<String> = results::read(&dir.join("results.jsonl"))
            .map(|lines| lines.into_iter().map(|l| l.id).collect())
            .unwrap_or_default();
        task_sets.push((label.clone(), ids));
        runs.push((label, s));
    }
    if let Some((first, ids)) = task_sets.first() {
        for (label, other) in &task_sets[1..] {
            if other != ids {
                let common = ids.intersection(other).count();
                eprintln!(
                    "warning: runs cover different task sets: {first} has {} tasks, {label} has \
                     {} ({common} in common); their cells are not comparable task for task",
                    ids.len(),
                    other.len()
                );
            }
        }
    }
    let c = compare(&runs);
    if c.cells.is_empty() {
        bail!("no run to compare");
    }
    for d in &c.duplicates {
        eprintln!("warning: two runs share the cell {d}; the later one is shown (use --by dir)");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for (name, text) in [
        ("compare.md", c.markdown()),
        ("compare.csv", c.csv()),
        ("compare.html", c.html()),
    ] {
        let p = args.out.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    print!("{}", c.markdown());
    println!(
        "wrote compare.md, compare.csv and compare.html in {}",
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
