//! `equimorph tests score|grow`: how strong a task set's tests are, and more tests where they
//! are thin.

use super::common::{
    interrupt_flag, load_dataset, progress, stop_point, DatasetArgs, OracleOptions, INTERRUPTED,
    NOTHING_USABLE,
};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use equimorph::adequacy::grow::{grow_task_until, siblings_of, GrowOptions, GrowReport};
use equimorph::adequacy::score::{broken_by_task, score_task, MutantOptions, TaskScore};
use equimorph::adequacy::{ScoreDistribution, BAND_LABELS};
use equimorph::oracle::ValidationStatus;
use equimorph::task::{Task, TaskFormat};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
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
    // Before any work: SIGINT/SIGTERM stop the run cleanly (exit 130) from here on.
    let stop = interrupt_flag()?;
    let options = args.mutants.options()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    stop_point(&stop, "loading the tasks", "no task was scored")?;
    let oracle = args.oracle.oracle()?;
    stop_point(&stop, "starting the sandbox", "no task was scored")?;
    let broken = broken_by_task(&set.tasks, &set.broken);
    let pb = progress(set.tasks.len() as u64, args.quiet || args.json);
    pb.set_message("mutants");
    // `None`: not scored, the run was interrupted first. A task's panic is its own error
    // (caught in `score_task`), never the run's.
    let scores: Vec<Option<TaskScore>> = set
        .tasks
        .par_iter()
        .map(|t| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let b = broken.get(&t.id).map(Vec::as_slice).unwrap_or(&[]);
            let s = score_task(&oracle, t, options, b);
            pb.inc(1);
            Some(s)
        })
        .collect();
    pb.finish_and_clear();
    let pending = scores.iter().filter(|s| s.is_none()).count();
    let done: Vec<&TaskScore> = scores.iter().flatten().collect();
    let values: Vec<f64> = done
        .iter()
        .filter_map(|s| s.adequacy.as_ref().and_then(|a| a.mutation_score))
        .collect();
    let distribution = ScoreDistribution::of(&values);
    let (mutants, killed) = done
        .iter()
        .filter_map(|s| s.adequacy.as_ref())
        .fold((0, 0), |(m, k), a| (m + a.mutants, k + a.killed));
    let (broken_programs, broken_rejected) = done
        .iter()
        .filter_map(|s| s.adequacy.as_ref().and_then(|a| a.broken))
        .fold((0, 0), |(p, r), b| (p + b.programs, r + b.rejected));
    let errors: Vec<&TaskScore> = done.iter().copied().filter(|s| s.error.is_some()).collect();
    if let Some(path) = &args.write {
        // Scored tasks carry their measurement; a task equimorph failed on, or one the
        // interrupted run did not reach, is written as it came.
        let tasks: Vec<Task> = set
            .tasks
            .iter()
            .zip(&scores)
            .map(|(t, s)| match s {
                Some(s) if s.error.is_none() => Task {
                    adequacy: s.adequacy.clone(),
                    ..t.clone()
                },
                _ => t.clone(),
            })
            .chain(set.untested.iter().cloned())
            .collect();
        write_tasks(path, &tasks)?;
    }
    if args.json {
        let out = serde_json::json!({
            "tasks": done,
            "distribution": distribution,
            "mutants": mutants,
            "killed": killed,
            "broken": {"programs": broken_programs, "rejected": broken_rejected},
            "errors": errors.iter().map(|s| &s.id).collect::<Vec<_>>(),
            "complete": pending == 0,
            "pending": pending,
            "lower_bound": true,
            "seed": options.seed,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_scores(&done, &args, distribution.as_ref(), (killed, mutants));
        if broken_programs > 0 {
            println!(
                "known-broken programs: {broken_rejected}/{broken_programs} rejected by the tests ({:.3})",
                broken_rejected as f64 / broken_programs as f64
            );
        }
        print_errors(errors.iter().map(|s| s.id.as_str()));
        if let Some(p) = &args.write {
            println!("tasks with their scores: {}", p.display());
        }
    }
    if pending > 0 {
        eprintln!(
            "interrupted: scored {} of {} task(s){}; rerun the same command to score them all",
            done.len(),
            set.tasks.len(),
            if args.write.is_some() {
                "; the others are written unchanged"
            } else {
                ""
            }
        );
        return Ok(ExitCode::from(INTERRUPTED));
    }
    Ok(if distribution.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOTHING_USABLE)
    })
}

/// The per-task lines and the distribution of `tests score`.
fn print_scores(
    done: &[&TaskScore],
    args: &ScoreArgs,
    distribution: Option<&ScoreDistribution>,
    (killed, mutants): (usize, usize),
) {
    for s in done {
        match &s.adequacy {
            _ if s.error.is_some() => println!(
                "{}: error: {}",
                s.id,
                s.error.as_deref().unwrap_or_default()
            ),
            Some(a) if a.mutation_score.is_none() => {
                println!("{}: mutation score {}", s.id, a.describe_score())
            }
            Some(a) => {
                let mut line = format!(
                    "{}: {} ({}/{} mutants rejected by {} test(s))",
                    s.id,
                    a.describe_score(),
                    a.killed,
                    a.mutants,
                    a.tests
                );
                if let Some(b) = a.broken {
                    line.push_str(&format!(
                        "; {}/{} known-broken programs rejected",
                        b.rejected, b.programs
                    ));
                }
                if a.invalid > 0 {
                    line.push_str(&format!(
                        "; {} mutant(s) left out, not valid programs",
                        a.invalid
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
    match distribution {
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
}

/// The tasks equimorph itself failed on (caught panics), when any.
fn print_errors<'a>(ids: impl Iterator<Item = &'a str>) {
    let ids: Vec<&str> = ids.collect();
    if !ids.is_empty() {
        println!(
            "{} task(s) failed with an internal error of equimorph and are kept unchanged \
             (please report it): {}",
            ids.len(),
            ids.join(", ")
        );
    }
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
    // Before any work: SIGINT/SIGTERM stop the run cleanly (exit 130) from here on.
    let stop = interrupt_flag()?;
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
    stop_point(&stop, "loading the tasks", "no test was grown")?;
    let oracle = args.oracle.oracle()?;
    stop_point(&stop, "starting the sandbox", "no test was grown")?;
    let start = std::time::Instant::now();
    let pb = progress(set.tasks.len() as u64, args.quiet);
    pb.set_message("growing");
    // `None`: not reached (or left half-way) before an interrupt. A task's panic is its own
    // error (caught in `grow_task_until`: the task comes back unchanged), never the run's.
    let grown: Vec<Option<(Task, GrowReport)>> = set
        .tasks
        .par_iter()
        .map(|t| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let siblings = siblings_of(t, &set.tasks);
            let r = grow_task_until(&oracle, t, &siblings, options, &stop);
            pb.inc(1);
            (!r.1.interrupted).then_some(r)
        })
        .collect();
    pb.finish_and_clear();
    let pending = grown.iter().filter(|g| g.is_none()).count();
    let tasks: Vec<Task> = set
        .tasks
        .iter()
        .zip(&grown)
        .map(|(original, g)| g.as_ref().map_or(original, |(t, _)| t).clone())
        .chain(set.untested.iter().cloned())
        .collect();
    write_tasks(&args.out, &tasks)?;
    let reports: Vec<&GrowReport> = grown.iter().flatten().map(|(_, r)| r).collect();
    if let Some(path) = &args.report {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        for r in &reports {
            writeln!(f, "{}", serde_json::to_string(r)?)?;
        }
        f.flush()?;
    }
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut added = 0;
    for r in &reports {
        print_grown(r);
        if let (Some(b), Some(a)) = (
            r.before.as_ref().and_then(|b| b.mutation_score),
            r.after.as_ref().and_then(|a| a.mutation_score),
        ) {
            before.push(b);
            after.push(a);
            added += r.added;
        }
    }
    print_errors(
        reports
            .iter()
            .filter(|r| r.error.is_some())
            .map(|r| r.id.as_str()),
    );
    let interrupted = || -> Result<ExitCode> {
        eprintln!(
            "interrupted: {} of {} task(s) done; the other {pending} are written unchanged to {}",
            reports.len(),
            set.tasks.len(),
            args.out.display()
        );
        Ok(ExitCode::from(INTERRUPTED))
    };
    let (Some(b), Some(a)) = (
        ScoreDistribution::of(&before),
        ScoreDistribution::of(&after),
    ) else {
        if pending > 0 {
            return interrupted();
        }
        println!("no task could be grown: no task's mutation score could be measured");
        return Ok(ExitCode::from(NOTHING_USABLE));
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
    if pending > 0 {
        return interrupted();
    }
    Ok(ExitCode::SUCCESS)
}

/// One task's line of `tests grow`.
fn print_grown(r: &GrowReport) {
    if let Some(e) = &r.error {
        println!("{}: error: {e}", r.id);
        return;
    }
    let (Some(b), Some(a)) = (&r.before, &r.after) else {
        println!(
            "{}: not grown, the original is {}: {}",
            r.id,
            status_name(r.status),
            r.reason.as_deref().unwrap_or("")
        );
        return;
    };
    if b.mutation_score.is_none() {
        println!(
            "{}: mutation score {}; no test grown",
            r.id,
            b.describe_score()
        );
        return;
    }
    let dropped: Vec<String> = r
        .discarded
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    println!(
        "{}: {} → {}, +{} test(s) ({} input(s) tried{}{})",
        r.id,
        b.describe_score(),
        a.describe_score(),
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
