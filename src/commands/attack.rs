//! `equimorph attack`: search every task for the least similar equivalent program.

use super::common::{
    interrupt_flag, load_dataset, print, stop_point, Bar, DetectorSettings, LoadOptions,
    OracleSettings, Stderr, TransformOptions, VerifyArgs, WindowArgs,
};
use anyhow::{bail, Result};
use clap::Args;
use equimorph::job::attack::{
    record_attack, scorer_settings, ApplyOrder, AttackJob, SearchRequest,
};
use equimorph::job::settings::RunInputs;
use equimorph::report::calibration::ThresholdSpec;
use equimorph::report::shard::Shard;
use equimorph::run::{JobKind, RunDir, RunSettings};
use equimorph::search::{OracleOrder, SearchConfig, Strategy};
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `attack`.
#[derive(Args)]
pub struct AttackArgs {
    /// Task file or directory.
    pub(super) tasks: PathBuf,
    /// Output directory (results.jsonl, summary.json, report.md, report.html). Rerunning with
    /// the same directory resumes: tasks already there are skipped.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) format: Option<TaskFormat>,
    #[command(flatten)]
    pub(super) dataset: LoadOptions,
    /// guided (the default: a beam that scores only the candidates a bandit over transforms
    /// predicts to pay), beam (Algorithm 1: every candidate scored), greedy (beam 1) or random
    /// (a random walk).
    #[arg(long = "search", value_enum, default_value = "guided")]
    pub(super) strategy: Strategy,
    /// Beam width B (default: 3 for guided, 5 for beam).
    #[arg(long)]
    pub(super) beam: Option<usize>,
    /// Iterations N (default: 10 for beam, greedy and random; 30 for guided, which usually
    /// stops earlier, see --patience). Guided scores at most (transforms + (N − 1) × K)
    /// candidates per task.
    #[arg(long)]
    pub(super) iterations: Option<usize>,
    /// Guided search: candidates the detector scores per iteration after the first, which
    /// scores every transform once (default 10).
    #[arg(long, value_name = "K")]
    pub(super) queries_per_iteration: Option<usize>,
    /// Stop a task once its best M has not improved for this many iterations (default: 8 for
    /// guided, never for the others).
    #[arg(long, value_name = "ITERATIONS")]
    pub(super) patience: Option<usize>,
    /// A task whose best M is still above the threshold after N iterations goes on for up to
    /// this many more (still stopped by --patience on a plateau), so the budget goes to the
    /// tasks not yet won (default: 30 for guided, 0 for the others).
    #[arg(long, value_name = "ITERATIONS")]
    pub(super) extend: Option<usize>,
    /// Guided search: after the first iteration, apply the (beam member, transform) pairs the
    /// bandit expects most of until 3 candidates per query are in hand (ranked), or every
    /// transform to every member (all, as before 2026-11-26).
    #[arg(long, value_enum, default_value = "ranked")]
    pub(super) apply: ApplyOrder,
    /// A cheap scorer that ranks candidates so that only those that could be the new best
    /// reach the detector (multi-fidelity): none, auto (minilm-int8 when the detector is
    /// minilm on the CPU, else none) or a detector spec. Winners, thresholds and reports use
    /// the detector's M only.
    #[arg(long, default_value = "none", value_name = "SPEC|auto|none")]
    pub(super) scorer: String,
    /// Run seed (every transform seed derives from it).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// lazy: oracle in distance order until B pass; all: oracle on every candidate (Algorithm 1 as written).
    #[arg(long, value_enum, default_value = "lazy")]
    pub(super) oracle_order: OracleOrder,
    /// A hard ceiling on detector queries per task: the search never scores more candidates
    /// than this for one task (it stops, or scores only part of an iteration, when it reaches
    /// it).
    #[arg(long, alias = "max-scored", value_name = "N")]
    pub(super) max_queries: Option<usize>,
    /// Stop a task after this many oracle checks.
    #[arg(long)]
    pub(super) max_oracle: Option<usize>,
    /// Stop a task after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub(super) time_per_task: Option<f64>,
    /// Stop a task once its best M falls below this.
    #[arg(long, value_name = "M")]
    pub(super) stop_below: Option<f32>,
    /// An attack succeeds when the best M is below this: a number in [0, 1], or auto[:RATE]
    /// (default auto = auto:0.95): the similarity below which a fraction RATE of seeded pairs
    /// of different tasks' originals (non-clones) fall, measured with the run's detector.
    #[arg(long, default_value = "auto", value_name = "M|auto[:RATE]")]
    pub(super) threshold: ThresholdSpec,
    /// Reject (before scoring) candidates with more than F times the original's tokens.
    #[arg(long, value_name = "F")]
    pub(super) max_growth: Option<f64>,
    #[command(flatten)]
    pub(super) window: WindowArgs,
    /// GPTCloneBench's stand-alone clones (folder or zip): the report says where the winners
    /// fall against its real clones, scored by the same detector ("the median winner scores
    /// below N % of its Type-4 clones").
    #[arg(long, value_name = "DIR|ZIP")]
    pub(super) reference_clones: Option<PathBuf>,
    /// With --verify symbolic, how many times a task's search is redone when its winner is
    /// rejected (each time with the counterexamples found so far as tests).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub(super) symbolic_rounds: usize,
    #[command(flatten)]
    pub(super) verify: VerifyArgs,
    /// Attack only shard I of N (1 ≤ I ≤ N: 1/4 is the first of four; a stable split by task
    /// id); `equimorph merge` combines the shard directories into one run.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<Shard>,
    /// Also write verified.jsonl: every candidate the oracle accepted during the search (not
    /// only the best), with its M and transforms: equivalent programs, hardest first per
    /// iteration, for training data.
    #[arg(long)]
    pub(super) keep_verified: bool,
    /// Start over in --out even if it holds another run (its outputs are removed first).
    #[arg(long)]
    pub(super) force_new: bool,
    /// Tasks searched at once, sharing the detector (with fixed batch shapes their scoring
    /// requests are merged into full batches) while their transforms and oracle runs overlap.
    /// Default: 8 with fixed batch shapes (the CUDA default for fused fp16 graphs; on an H100
    /// 8 scored 3,155 candidates/s against 2,639 with 4), else 1 (on CPU the detector already
    /// uses every core). Results do not depend on it; per-task
    /// seconds then include waiting for the others.
    #[arg(long, value_name = "N")]
    pub(super) tasks_in_flight: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) detector: DetectorSettings,
    #[command(flatten)]
    pub(super) transforms: TransformOptions,
    #[command(flatten)]
    pub(super) oracle: OracleSettings,
}

/// What an attack stopped before its first task has done.
const NOTHING_ATTACKED: &str = "no task was attacked";

/// Runs `attack`.
pub fn run(args: AttackArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading or calibrating stops the run as cleanly as one
    // during the tasks.
    let stop = interrupt_flag()?;
    let search = search_config(&args)?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    if set.tasks.is_empty() {
        if set.untested.is_empty() {
            bail!("{} holds no task with tests", args.tasks.display());
        }
        bail!(
            "{} holds no task with tests ({} without: a CodeNet benchmark subset takes its tests \
             from --codenet-root; `augment --unverified` uses tasks without tests)",
            args.tasks.display(),
            set.untested.len()
        );
    }
    let runtime = args.transforms.runtime()?;
    let transforms = args.transforms.load(&runtime)?;
    stop_point(&stop, "loading the transforms", NOTHING_ATTACKED)?;
    let settings = run_settings(&args, &search, &transforms)?;
    let (run_dir, opened) = RunDir::open(&args.out, JobKind::Attack, settings, args.force_new)?;
    let detector = args.detector.open()?;
    let scorer = match scorer_settings(&args.scorer, &args.detector, args.keep_verified)? {
        Some(s) => Some(s.open()?),
        None => None,
    };
    let oracle = args.oracle.start(&Stderr)?;
    stop_point(&stop, "starting the sandbox", NOTHING_ATTACKED)?;
    let symbolic = args.verify.checker()?;
    let job = AttackJob {
        tasks: &set,
        tasks_label: args.tasks.display().to_string(),
        transforms: &transforms,
        detector: detector.as_ref(),
        scorer: scorer.as_deref(),
        oracle: &oracle,
        symbolic: symbolic.as_ref(),
        symbolic_rounds: args.symbolic_rounds,
        search,
        threshold: args.threshold,
        shard: args.shard,
        keep_verified: args.keep_verified,
        tasks_in_flight: args.tasks_in_flight,
        reference_clones: args.reference_clones.clone(),
    };
    let bar = Bar::new(args.quiet);
    let outcome = job.run(&run_dir, opened, &stop, &Stderr, &bar)?;
    print(&outcome.printout(&run_dir));
    Ok(outcome.status().into())
}

/// The search the arguments ask for, with each strategy's defaults, or why they are wrong.
fn search_config(args: &AttackArgs) -> Result<SearchConfig> {
    let request = SearchRequest {
        strategy: args.strategy,
        beam: args.beam,
        iterations: args.iterations,
        queries_per_iteration: args.queries_per_iteration,
        patience: args.patience,
        extend: args.extend,
        apply: args.apply,
        seed: args.seed,
        oracle_order: args.oracle_order,
        max_queries: args.max_queries,
        max_oracle: args.max_oracle,
        time_per_task: args.time_per_task,
        stop_below: args.stop_below,
        max_growth: args.max_growth,
        window: args.window.enabled(),
    };
    Ok(request.config()?)
}

/// The settings that define the run (`run.json`; a rerun resumes only with the same ones).
fn run_settings(
    args: &AttackArgs,
    search: &SearchConfig,
    transforms: &equimorph::transform::TransformSet,
) -> Result<RunSettings> {
    let mut settings = RunInputs {
        tasks: &args.tasks,
        filters: &args.dataset,
        detector: Some(&args.detector),
        transforms: Some(transforms),
        oracle: &args.oracle,
    }
    .record()?;
    record_attack(
        &mut settings,
        search,
        args.threshold,
        args.keep_verified,
        args.shard,
    );
    let scorer = scorer_settings(&args.scorer, &args.detector, args.keep_verified)?;
    // Recorded only when one ranks: runs made without one resume as they were.
    if let Some(s) = scorer {
        settings.set("scorer", s.spec);
    }
    args.verify.record(&mut settings);
    if args.verify.verify.is_some() {
        settings.set("symbolic rounds", args.symbolic_rounds);
    }
    Ok(settings)
}
