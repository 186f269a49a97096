//! `equimorph augment`: K distinct verified variants of every task (training data).

use super::common::{
    interrupt_flag, load_dataset, print, stop_point, Bar, DetectorSettings, HardShareArgs,
    LoadOptions, OracleSettings, Stderr, StepsArgs, TransformOptions, VerifyArgs, WindowArgs,
};
use anyhow::Result;
use clap::Args;
use equimorph::augment::summary::OutputFormat;
use equimorph::augment::AugmentConfig;
use equimorph::job::augment::{refused_below, AugmentJob, AugmentRequest};
use equimorph::job::settings::RunInputs;
use equimorph::report::shard::Shard;
use equimorph::run::{JobKind, RunDir, RunSettings};
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `augment`.
#[derive(Args)]
pub struct AugmentArgs {
    /// Task file or directory.
    pub(super) tasks: PathBuf,
    /// Output directory (variants.jsonl, tasks.jsonl, summary.json, report.md, codexglue/).
    /// Rerunning with the same directory resumes: finished tasks are skipped.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Variants per task (K); fewer when the task allows no more distinct equivalent ones.
    #[arg(long, default_value_t = 10, value_name = "K")]
    pub(super) variants: usize,
    #[command(flatten)]
    pub(super) steps: StepsArgs,
    /// Run seed (every composition derives from it).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Output layout: jsonl (variants.jsonl) or codexglue (also codexglue/data.jsonl and
    /// pairs.txt, CodeXGLUE's clone-detection layout).
    #[arg(long, value_enum, default_value = "jsonl")]
    pub(super) format: OutputFormat,
    /// Negative pairs (programs of two different tasks) per positive pair, for codexglue.
    #[arg(long, default_value_t = 1, value_name = "R")]
    pub(super) negatives: usize,
    /// Also write codexglue/train.txt, valid.txt and test.txt: whole tasks go to one split
    /// (seeded), negatives are drawn within it, so no program leaks across splits.
    #[arg(long, value_name = "TRAIN,VALID,TEST", value_parser = equimorph::augment::codexglue::parse_split)]
    pub(super) split: Option<[f64; 3]>,
    /// Input format of the tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) task_format: Option<TaskFormat>,
    #[command(flatten)]
    pub(super) dataset: LoadOptions,
    /// Score the variants with this detector (distance and clone type in variants.jsonl):
    /// minilm, minilm-int8, onnx:PATH, jaccard, sourcerercc, nicad. Default: no scoring.
    #[arg(long, value_name = "SPEC")]
    pub(super) detector: Option<String>,
    /// With --detector: prefer the variants the detector finds most distant (the beam
    /// search's verified pool), then fill up with random compositions.
    #[arg(long, requires = "detector")]
    pub(super) hard: bool,
    #[command(flatten)]
    pub(super) hard_share: HardShareArgs,
    #[command(flatten)]
    pub(super) window: WindowArgs,
    /// Beam width of the --hard search.
    #[arg(long, default_value_t = 5)]
    pub(super) beam: usize,
    /// Random compositions tried per wanted variant before a task settles for fewer.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub(super) attempts: usize,
    /// Also augment tasks without tests: no variant is checked, and every one is marked
    /// `verified: false`.
    #[arg(long, conflicts_with = "hard")]
    pub(super) unverified: bool,
    /// Refuse tasks whose tests are weaker than this mutation score (0–1): the score the task
    /// file records (`equimorph tests score --write`, `tests grow`), else measured now with
    /// --mutants mutants. A refused task is reported as skipped, with its score.
    #[arg(long, value_name = "X")]
    pub(super) min_mutation_score: Option<f64>,
    /// Mutants per task when --min-mutation-score must measure a score.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub(super) mutants: usize,
    #[command(flatten)]
    pub(super) verify: VerifyArgs,
    /// Augment only shard I of N (a stable split by task id); `equimorph merge` combines
    /// the shard directories into one run.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<Shard>,
    /// cpu, cuda, cuda:N or cuda:N,M,…, for --detector.
    #[arg(long, default_value = "cpu", value_name = "cpu|cuda[:N,…]")]
    pub(super) device: String,
    /// Sequences per inference call, for --detector (default 8 on CPU, 128 on CUDA).
    #[arg(long, value_name = "N")]
    pub(super) batch_size: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Start over in --out even if it holds another run (its outputs are removed first).
    #[arg(long)]
    pub(super) force_new: bool,
    #[command(flatten)]
    pub(super) transforms: TransformOptions,
    #[command(flatten)]
    pub(super) oracle: OracleSettings,
}

/// Runs `augment`.
pub fn run(args: AugmentArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading stops the run as cleanly as one during the tasks.
    let stop = interrupt_flag()?;
    let request = AugmentRequest {
        tasks_path: &args.tasks,
        variants: args.variants,
        format: args.format,
        split: args.split,
        negatives: args.negatives,
        unverified: args.unverified,
        min_mutation_score: args.min_mutation_score.map(|m| (m, args.mutants)),
    };
    request.check_arguments()?;
    let mut set = load_dataset(
        &args.tasks,
        args.task_format,
        "--task-format",
        &args.dataset,
    )?;
    request.check(&set)?;
    let runtime = args.transforms.runtime()?;
    let transforms = args.transforms.load(&runtime)?;
    let detector_args = args.detector.as_ref().map(|spec| DetectorSettings {
        batch_size: args.batch_size,
        ..DetectorSettings::on(spec.clone(), args.device.clone())
    });
    let detector = detector_args
        .as_ref()
        .map(DetectorSettings::open)
        .transpose()?;
    let oracle = args.oracle.start(&Stderr)?;
    stop_point(&stop, "starting the sandbox", "no task was augmented")?;
    let bar = Bar::new(args.quiet);
    let refused = match args.min_mutation_score {
        Some(min) => {
            let (mutants, seed) = (args.mutants, args.seed);
            refused_below(&mut set.tasks, &oracle, min, mutants, seed, &Stderr, &bar)
        }
        None => std::collections::BTreeMap::new(),
    };
    stop_point(&stop, "measuring mutation scores", "no task was augmented")?;
    let symbolic = args.verify.checker()?;
    let config = augment_config(&args);
    let record = request.run_record(&set, &transforms, &config, detector.as_deref(), args.shard);
    let settings = run_settings(
        &args,
        &request,
        &config,
        detector_args.as_ref(),
        &transforms,
    )?;
    let (run_dir, _) = RunDir::open(&args.out, JobKind::Augment, settings, args.force_new)?;
    let job = AugmentJob {
        tasks: &set,
        record,
        transforms: &transforms,
        oracle: &oracle,
        detector: detector.as_deref(),
        symbolic: symbolic.as_ref(),
        config,
        shard: args.shard,
        refused,
    };
    let outcome = job.run(&run_dir, &stop, &Stderr, &bar)?;
    print(&outcome.printout(&args.out, args.variants, args.negatives));
    Ok(outcome.status().into())
}

/// How variants are made.
fn augment_config(args: &AugmentArgs) -> AugmentConfig {
    AugmentConfig {
        variants: args.variants,
        min_steps: args.steps.steps.0,
        max_steps: args.steps.steps.1,
        seed: args.seed,
        hard: args.hard,
        hard_share: args.hard_share.hard_share,
        beam: args.beam.max(1),
        strategy: equimorph::search::Strategy::Beam,
        attempts: args.attempts.max(1),
        verify: !args.unverified,
        window: args.window.enabled(),
    }
}

/// The settings that define the run (`run.json`; a rerun resumes only with the same ones).
fn run_settings(
    args: &AugmentArgs,
    request: &AugmentRequest,
    config: &AugmentConfig,
    detector_args: Option<&DetectorSettings>,
    transforms: &equimorph::transform::TransformSet,
) -> Result<RunSettings> {
    let mut settings = RunInputs {
        tasks: &args.tasks,
        filters: &args.dataset,
        detector: detector_args,
        transforms: Some(transforms),
        oracle: &args.oracle,
    }
    .record()?;
    request.record(&mut settings, config, args.shard);
    args.verify.record(&mut settings);
    Ok(settings)
}
