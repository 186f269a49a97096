//! `equimorph select`: best-of-N selection among candidate implementations of SPTs.

use super::common::{
    interrupt_flag, load_dataset, print, Bar, DetectorSettings, LoadOptions, OracleSettings,
    SandboxSettings, Stderr, WindowArgs,
};
use anyhow::Result;
use clap::Args;
use equimorph::job::select::{Candidates, SelectError, SelectJob, SelectSettings};
use equimorph::job::settings::RunInputs;
use equimorph::report::shard::Shard;
use equimorph::run::{JobKind, RunDir, RunSettings};
use equimorph::select::discover;
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `select`.
#[derive(Args)]
pub struct SelectArgs {
    /// Directory with one subdirectory per SPT (a group), each holding candidate
    /// implementations of it: `.py` scripts or `.wasm` components.
    pub(super) candidates: PathBuf,
    /// Validation tasks (their originals are validated first; failing ones are not used).
    #[arg(long)]
    pub(super) tasks: PathBuf,
    /// Output directory: selection.json, selection.md, selection.html, selected/ (the winners,
    /// a transform set for `attack --transforms`), pairs.jsonl (finished evaluations; a rerun
    /// with the same directory skips them).
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Input format of the tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) format: Option<TaskFormat>,
    #[command(flatten)]
    pub(super) dataset: LoadOptions,
    /// Use at most N validation tasks: a sample drawn with --seed, kept in file order.
    #[arg(long, value_name = "N")]
    pub(super) limit: Option<usize>,
    /// Run seed: every candidate is applied to a task with the same seed, derived from this.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Only candidates whose broken + invalid outputs are at most this share of their
    /// applicable outputs may win (default: no limit, the paper's rule: highest reward wins).
    #[arg(long, value_name = "RATE")]
    pub(super) max_broken: Option<f64>,
    /// Evaluate only shard I of N of the tasks (a stable split by task id, after --limit);
    /// `equimorph merge` combines the shard directories into one selection.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<Shard>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Start over in --out even if it holds another run (its outputs are removed first).
    #[arg(long)]
    pub(super) force_new: bool,
    #[command(flatten)]
    pub(super) window: WindowArgs,
    #[command(flatten)]
    pub(super) detector: DetectorSettings,
    #[command(flatten)]
    pub(super) sandbox: SandboxSettings,
    #[command(flatten)]
    pub(super) oracle: OracleSettings,
}

/// Runs `select`.
pub fn run(args: SelectArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading stops the run as cleanly as one during the tasks.
    let stop = interrupt_flag()?;
    let settings = SelectSettings {
        candidates: args.candidates.clone(),
        tasks_label: args.tasks.display().to_string(),
        seed: args.seed,
        limit: args.limit,
        max_broken: args.max_broken,
        shard: args.shard,
        window: args.window.enabled(),
    };
    settings.check()?;
    let files = discover(&args.candidates)?;
    let mut set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    settings.sample(&mut set)?;
    let runtime = args.sandbox.runtime()?;
    let candidates = Candidates::load(files, &runtime, &Stderr);
    let run_settings = run_settings(&args, &settings)?;
    let (run_dir, opened) = RunDir::open(&args.out, JobKind::Select, run_settings, args.force_new)?;
    let detector = args.detector.open()?;
    let oracle = args.oracle.start(&Stderr)?;
    let job = SelectJob {
        settings: &settings,
        tasks: &set,
        candidates: &candidates,
        detector: detector.as_ref(),
        oracle: &oracle,
    };
    let outcome = job
        .run(&run_dir, opened, &stop, &Stderr, &Bar::new(args.quiet))
        .map_err(|e| match e {
            // Exits 130, as every job interrupted before its first task.
            SelectError::Interrupted(i) => anyhow::Error::new(i),
            e => e.into(),
        })?;
    print(&outcome.printout(&args.out));
    Ok(outcome.status().into())
}

/// The settings that define the run (`run.json`; a rerun resumes only with the same ones).
fn run_settings(args: &SelectArgs, select: &SelectSettings) -> Result<RunSettings> {
    let mut settings = RunInputs {
        tasks: &args.tasks,
        filters: &args.dataset,
        detector: Some(&args.detector),
        transforms: None,
        oracle: &args.oracle,
    }
    .record()?;
    select.record(&mut settings);
    Ok(settings)
}
