//! `equimorph tests score|grow`: how strong a task set's tests are, and more tests where they
//! are thin.

use super::common::{load_dataset, progress, DatasetArgs, OracleOptions};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use equimorph::adequacy::grow::{grow_task, siblings_of, GrowOptions, GrowReport};
use equimorph::adequacy::score::{broken_by_task, score_task, MutantOptions, TaskScore};
use equimorph::adequacy::{ScoreDistribution, BAND_LABELS};
use equimorph::oracle::ValidationStatus;
use equimorph::task::{Task, TaskFormat};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The `tests` subcommands.
#[derive(Subcommand)]
pub enum TestsCommand {
    /// The mutation score of each task's tests: the share of semantic-changing mutants of the
    /// original (flipped operators, off-by-one constants and bounds, negated conditions,
    /// swapped branches, dropped statements…) that the tests reject. A lower bound: some
    /// mutants are equivalent to the original and no test can reject them.
    Score(Box<ScoreArgs>),
    /// More tests where a task has too few: new stdin inputs (or entry-point calls, for
    /// test_code tasks) made from the existing ones, kept only when the original runs on them
    /// normally and deterministically within the deadline, every other accepted solution of
    /// the problem prints the same, and they reject a mutant the tests so far let through.
    Grow(Box<GrowArgs>),
}

/// What both subcommands share.
#[derive(Args)]
pub struct MutantArgs {
    /// Most mutants per task (all of them when a program has fewer).
    #[arg(long, default_value_t = 100, value_name = "N")]
    mutants: usize,
    /// Seed of the mutant sample and of the input mutations.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl MutantArgs {
    fn options(&self) -> Result<MutantOptions> {
        if self.mutants == 0 {
            bail!("--mutants must be at least 1");
        }
        Ok(MutantOptions {
            max_mutants: self.mutants,
            seed: self.seed,
        })
    }
}

/// Arguments of `tests score`.
#[derive(Args)]
pub struct ScoreArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    #[command(flatten)]
    mutants: MutantArgs,
    /// Also write the tasks with their score recorded (`adequacy`) as task JSONL, for
    /// `augment --min-mutation-score` and the run records.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Print each task's surviving mutants.
    #[arg(long)]
    survivors: bool,
    /// Print the whole result as JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// Arguments of `tests grow`.
#[derive(Args)]
pub struct GrowArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// Where to write the tasks with their grown tests (task JSONL; every task of the input,
    /// grown or not, with its adequacy recorded).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    #[command(flatten)]
    mutants: MutantArgs,
    /// Most tests added to one task.
    #[arg(long, default_value_t = 10, value_name = "N")]
    max_tests: usize,
    /// New inputs tried per round.
    #[arg(long, default_value_t = 16, value_name = "N")]
    batch: usize,
    /// Rounds in a row without a rise of the mutation score before a task stops.
    #[arg(long, default_value_t = 4, value_name = "N")]
    patience: usize,
    /// Longest the original may run on a grown test, in seconds.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    deadline: f64,
    /// Also write what happened to each task as JSON lines.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// Runs a `tests` subcommand.
pub fn run(command: TestsCommand) -> Result<ExitCode> {
    match command {
        TestsCommand::Score(a) => score(*a),
        TestsCommand::Grow(a) => grow(*a),
    }
}

fn score(args: ScoreArgs) -> Result<ExitCode> {
    let options = args.mutants.options()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let oracle = args.oracle.oracle()?;
    let broken = broken_by_task(&set.tasks, &set.broken);
    let pb = progress(set.tasks.len() as u64, args.quiet || args.json);
    pb.set_message("mutants");
    let scores: Vec<TaskScore> = set
        .tasks
        .par_iter()
        .map(|t| {
            let b = broken.get(&t.id).map(Vec::as_slice).unwrap_or(&[]);
            let s = score_task(&oracle, t, options, b);
            pb.inc(1);
            s
        })
        .collect();
    pb.finish_and_clear();
    let values: Vec<f64> = scores
        .iter()
        .filter_map(|s| s.adequacy.as_ref())
        .filter(|a| a.mutants > 0)
        .map(|a| a.mutation_score)
        .collect();
    let distribution = ScoreDistribution::of(&values);
    let (mutants, killed) = scores
        .iter()
        .filter_map(|s| s.adequacy.as_ref())
        .fold((0, 0), |(m, k), a| (m + a.mutants, k + a.killed));
    let (broken_programs, broken_rejected) = scores
        .iter()
        .filter_map(|s| s.adequacy.as_ref().and_then(|a| a.broken))
        .fold((0, 0), |(p, r), b| (p + b.programs, r + b.rejected));
    if let Some(path) = &args.write {
        let tasks: Vec<Task> = set
            .tasks
            .iter()
            .zip(&scores)
            .map(|(t, s)| Task {
                adequacy: s.adequacy.clone(),
                ..t.clone()
            })
            .chain(set.untested.iter().cloned())
            .collect();
        write_tasks(path, &tasks)?;
    }
    if args.json {
        let out = serde_json::json!({
            "tasks": scores,
            "distribution": distribution,
            "mutants": mutants,
            "killed": killed,
            "broken": {"programs": broken_programs, "rejected": broken_rejected},
            "lower_bound": true,
            "seed": options.seed,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    for s in &scores {
        match &s.adequacy {
            Some(a) if a.mutants == 0 => match &s.reason {
                Some(why) => println!("{}: no mutant to run ({why})", s.id),
                None => println!("{}: no mutant to run (nothing to measure)", s.id),
            },
            Some(a) => {
                let mut line = format!(
                    "{}: {:.3} ({}/{} mutants rejected by {} test(s))",
                    s.id, a.mutation_score, a.killed, a.mutants, a.tests
                );
                if let Some(b) = a.broken {
                    line.push_str(&format!(
                        "; {}/{} known-broken programs rejected",
                        b.rejected, b.programs
                    ));
                }
                if s.faults > 0 {
                    line.push_str(&format!("; {} check(s) without a verdict", s.faults));
                }
                println!("{line}");
                if args.survivors {
                    for m in &s.survivors {
                        println!(
                            "    survives: line {} {} ({})",
                            m.line,
                            m.edit,
                            m.operator.name()
                        );
                    }
                }
            }
            None => println!(
                "{}: not scored, the original is {}: {}",
                s.id,
                status_name(s.status),
                s.reason.as_deref().unwrap_or("")
            ),
        }
    }
    match &distribution {
        Some(d) => {
            println!("mutation score: {}", d.describe());
            println!(
                "{killed}/{mutants} mutants rejected over all tasks ({:.3})",
                killed as f64 / mutants.max(1) as f64
            );
            print_bands(d);
        }
        None => println!("no task could be scored"),
    }
    if broken_programs > 0 {
        println!(
            "known-broken programs: {broken_rejected}/{broken_programs} rejected by the tests ({:.3})",
            broken_rejected as f64 / broken_programs as f64
        );
    }
    if let Some(p) = &args.write {
        println!("tasks with their scores: {}", p.display());
    }
    Ok(if distribution.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_bands(d: &ScoreDistribution) {
    for (label, n) in BAND_LABELS.iter().zip(d.bands) {
        println!("  {label:>9}: {n}");
    }
}

fn status_name(s: ValidationStatus) -> String {
    format!("{s:?}").to_lowercase()
}

fn grow(args: GrowArgs) -> Result<ExitCode> {
    let mutants = args.mutants.options()?;
    if args.max_tests == 0 || args.batch == 0 || args.patience == 0 {
        bail!("--max-tests, --batch and --patience must be at least 1");
    }
    if args.deadline.is_nan() || args.deadline <= 0.0 {
        bail!("--deadline must be positive");
    }
    let options = GrowOptions {
        mutants,
        max_tests: args.max_tests,
        batch: args.batch,
        patience: args.patience,
        deadline: Duration::from_secs_f64(args.deadline),
        seed: args.mutants.seed,
    };
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let oracle = args.oracle.oracle()?;
    let start = std::time::Instant::now();
    let pb = progress(set.tasks.len() as u64, args.quiet);
    pb.set_message("growing");
    let grown: Vec<(Task, GrowReport)> = set
        .tasks
        .par_iter()
        .map(|t| {
            let siblings = siblings_of(t, &set.tasks);
            let r = grow_task(&oracle, t, &siblings, options);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let tasks: Vec<Task> = grown
        .iter()
        .map(|(t, _)| t.clone())
        .chain(set.untested.iter().cloned())
        .collect();
    write_tasks(&args.out, &tasks)?;
    if let Some(path) = &args.report {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        for (_, r) in &grown {
            writeln!(f, "{}", serde_json::to_string(r)?)?;
        }
        f.flush()?;
    }
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut added = 0;
    for (_, r) in &grown {
        match (&r.before, &r.after) {
            (Some(b), Some(a)) => {
                before.push(b.mutation_score);
                after.push(a.mutation_score);
                added += r.added;
                let dropped: Vec<String> = r
                    .discarded
                    .iter()
                    .map(|(why, n)| format!("{n} {why}"))
                    .collect();
                println!(
                    "{}: {:.3} → {:.3}, +{} test(s) ({} input(s) tried{}{})",
                    r.id,
                    b.mutation_score,
                    a.mutation_score,
                    r.added,
                    r.tried,
                    if r.siblings > 0 {
                        format!(
                            ", checked against {} other accepted solution(s)",
                            r.siblings
                        )
                    } else {
                        String::new()
                    },
                    if dropped.is_empty() {
                        String::new()
                    } else {
                        format!("; dropped: {}", dropped.join(", "))
                    }
                );
                if let Some(why) = &r.reason {
                    println!("    {why}");
                }
            }
            _ => println!(
                "{}: not grown, the original is {}: {}",
                r.id,
                status_name(r.status),
                r.reason.as_deref().unwrap_or("")
            ),
        }
    }
    let (Some(b), Some(a)) = (
        ScoreDistribution::of(&before),
        ScoreDistribution::of(&after),
    ) else {
        println!("no task could be grown");
        return Ok(ExitCode::from(1));
    };
    println!(
        "{} test(s) grown for {} task(s) in {:.1} s; mutation score mean {:.3} → {:.3} \
         (median {:.3} → {:.3}; a lower bound)",
        added,
        a.tasks,
        start.elapsed().as_secs_f64(),
        b.mean,
        a.mean,
        b.median,
        a.median
    );
    print_bands(&a);
    println!("tasks with grown tests: {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes tasks as equimorph task JSONL (through a temporary file, so a crash leaves no half
/// file).
fn write_tasks(path: &Path, tasks: &[Task]) -> Result<()> {
    let tmp = path.with_extension("jsonl.tmp");
    {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?,
        );
        for t in tasks {
            writeln!(f, "{}", serde_json::to_string(t)?)?;
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
