//! `equimorph tests score|grow`: how strong a task set's tests are, and more tests where they
//! are thin.

use super::common::{
    interrupt_flag, load_dataset, print, stop_point, Bar, LoadOptions, OracleSettings, Stderr,
};
use anyhow::Result;
use clap::{Args, Subcommand};
use equimorph::adequacy::grow::{GrowOptions, DEFAULT_COVERAGE_TESTS, DEFAULT_LARGE_TESTS};
use equimorph::adequacy::score::MutantOptions;
use equimorph::adequacy::seed::SeedOptions;
use equimorph::job::tests::{grow_options, mutant_options, GrowJob, ScoreJob};
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Programs with no test at all (POJ-104) first get inputs most programs of their problem
    /// agree on (`--untested`).
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
        Ok(mutant_options(self.mutants, self.seed)?)
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
    dataset: LoadOptions,
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
    oracle: OracleSettings,
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
    dataset: LoadOptions,
    #[command(flatten)]
    mutants: MutantArgs,
    /// Most tests added to one task for the mutants they reject.
    #[arg(long, default_value_t = 10, value_name = "N")]
    max_tests: usize,
    /// Most tests added to one task only because they reach a branch of the original or of
    /// another accepted solution that no test reached (Python: traced; Java: probes in its source; 0: none).
    #[arg(long, default_value_t = DEFAULT_COVERAGE_TESTS, value_name = "N")]
    coverage_tests: usize,
    /// Large inputs added to each stdin task whatever mutants they reject: every count grown
    /// to a few hundred, as a judge's large tests are, kept where the original runs normally
    /// and deterministically and the other accepted solutions agree (0: none; at most 50).
    #[arg(long, default_value_t = DEFAULT_LARGE_TESTS as u64, value_name = "N",
          value_parser = clap::value_parser!(u64).range(..=50))]
    large_tests: u64,
    /// New inputs tried per round.
    #[arg(long, default_value_t = 16, value_name = "N")]
    batch: usize,
    /// Rounds in a row without a new test kept before a task stops.
    #[arg(long, default_value_t = 4, value_name = "N")]
    patience: usize,
    /// New inputs a mutant may survive before growth stops running it (0: never; 64 grows
    /// about 1.4× faster and rejects a few mutants fewer).
    #[arg(long, default_value_t = 0, value_name = "N")]
    retire_after: usize,
    /// Grow each accepted solution's tests on its own. By default, the solutions of one
    /// problem with the same tests share one growth (against all their mutants) and get the
    /// same new tests: growth was 1.5–1.7× faster on stdin problems with two solutions each.
    #[arg(long)]
    per_solution: bool,
    /// Longest the original may run on a grown test, in seconds.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    deadline: f64,
    /// Also write what happened to each task as JSON lines.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Hold out the last K accepted solutions of every problem with more than K: grow on the
    /// others, then report how many non-equivalent mutants of the held-out ones the grown tests
    /// reject (what the tests are worth on code growth never saw). Held-out tasks are written
    /// unchanged.
    #[arg(long, default_value_t = 0, value_name = "K")]
    holdout: usize,
    /// Programs without tests (POJ-104; problems none of whose programs has tests): up to N
    /// programs per problem run on inputs drawn from what they read (`scanf` conversions,
    /// `cin`, line reads); an input is kept where at least two and more than half of them
    /// print the same, and each program that prints the majority's output on every kept
    /// input becomes a task with those tests, then grows like the others (0: leave them
    /// untested).
    #[arg(long, default_value_t = 8, value_name = "N")]
    untested: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleSettings,
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
    let mutants = args.mutants.options()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    stop_point(&stop, "loading the tasks", "no task was scored")?;
    let oracle = args.oracle.start(&Stderr)?;
    stop_point(&stop, "starting the sandbox", "no task was scored")?;
    let job = ScoreJob {
        tasks: &set,
        oracle: &oracle,
        mutants,
        write: args.write.clone(),
    };
    let outcome = job.run(&stop, &Bar::new(args.quiet || args.json))?;
    print(&outcome.printout(args.json, args.survivors));
    Ok(outcome.status().into())
}

fn grow(args: GrowArgs) -> Result<ExitCode> {
    // Before any work: SIGINT/SIGTERM stop the run cleanly (exit 130) from here on.
    let stop = interrupt_flag()?;
    let mutants = args.mutants.options()?;
    let options = grow_options(
        mutants,
        args.max_tests,
        args.coverage_tests,
        args.batch,
        args.patience,
        args.retire_after,
        args.deadline,
    )?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    stop_point(&stop, "loading the tasks", "no test was grown")?;
    let oracle = args.oracle.start(&Stderr)?;
    stop_point(&stop, "starting the sandbox", "no test was grown")?;
    let job = GrowJob {
        tasks: &set,
        oracle: &oracle,
        options: GrowOptions {
            share: !args.per_solution,
            // At most 50 (checked by the parser).
            large_tests: usize::try_from(args.large_tests).unwrap_or(DEFAULT_LARGE_TESTS),
            ..options
        },
        out: args.out.clone(),
        report: args.report.clone(),
        holdout: args.holdout,
        untested: (args.untested > 0).then(|| SeedOptions {
            programs: args.untested,
            seed: args.mutants.seed,
            deadline: options.deadline,
            ..SeedOptions::default()
        }),
    };
    let outcome = job.run(&stop, &Bar::new(args.quiet))?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
