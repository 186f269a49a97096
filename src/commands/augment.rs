//! `equimorph augment`: K distinct verified variants of every task (training data).

use super::common::{
    detector_settings, interrupt_flag, load_dataset, measure_scores, stop_point, task_settings,
    transform_settings, Bar, DatasetArgs, DetectorArgs, OracleOptions, PrecisionArg, Stderr,
    TransformOptions, VerifyArgs, WindowArgs,
};
use anyhow::{bail, Result};
use clap::Args;
use equimorph::augment::summary::{AugmentRun, OutputFormat};
use equimorph::augment::AugmentConfig;
use equimorph::job::augment::{AugmentJob, AugmentOutcome};
use equimorph::report::shard::Shard;
use equimorph::run::{JobKind, RunDir, RunSettings, NOT_SET};
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
    /// Transform steps per variant: MIN..MAX (each variant draws its length), or one number.
    #[arg(long, default_value = "1..3", value_name = "MIN..MAX", value_parser = parse_steps)]
    pub(super) steps: (usize, usize),
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
    pub(super) dataset: DatasetArgs,
    /// Score the variants with this detector (distance and clone type in variants.jsonl):
    /// minilm, minilm-int8, onnx:PATH, jaccard, sourcerercc, nicad. Default: no scoring.
    #[arg(long, value_name = "SPEC")]
    pub(super) detector: Option<String>,
    /// With --detector: prefer the variants the detector finds most distant (the beam
    /// search's verified pool), then fill up with random compositions.
    #[arg(long, requires = "detector")]
    pub(super) hard: bool,
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
    pub(super) oracle: OracleOptions,
}

/// Parses `MIN..MAX` (or `N`).
fn parse_steps(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let parse = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}` is not MIN..MAX (e.g. 1..3) or a number of steps"))
    };
    let (min, max) = (parse(a)?, parse(b)?);
    if min == 0 || min > max {
        return Err(format!("`{s}`: need 1 ≤ MIN ≤ MAX"));
    }
    Ok((min, max))
}

/// Runs `augment`.
pub fn run(args: AugmentArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading stops the run as cleanly as one during the tasks.
    let stop = interrupt_flag()?;
    if args.variants == 0 {
        bail!("--variants must be at least 1");
    }
    if args.split.is_some() && args.format != OutputFormat::Codexglue {
        bail!("--split splits the CodeXGLUE pairs: give it with --format codexglue");
    }
    if args
        .min_mutation_score
        .is_some_and(|x| !(0.0..=1.0).contains(&x))
    {
        bail!("--min-mutation-score must be between 0 and 1");
    }
    let mut set = load_dataset(
        &args.tasks,
        args.task_format,
        "--task-format",
        &args.dataset,
    )?;
    if set.tasks.is_empty() && (set.untested.is_empty() || !args.unverified) {
        if set.untested.is_empty() {
            bail!("{} holds no task", args.tasks.display());
        }
        bail!(
            "no task in {} has tests, so no variant could be verified; pass --unverified to \
             augment them anyway (every variant is then marked verified: false)",
            args.tasks.display()
        );
    }
    if let (Some(f), true) = (args.split, args.negatives > 0) {
        // Each split needs programs of two problems for a non-clone pair.
        let problems: std::collections::BTreeSet<&str> = set
            .run_order(args.unverified)
            .into_iter()
            .map(|t| t.problem.as_deref().unwrap_or(&t.id))
            .collect();
        let sizes = equimorph::augment::codexglue::split_sizes(problems.len(), f);
        if sizes.contains(&1) {
            bail!(
                "--split {},{},{} over {} problems gives train / valid / test {} / {} / {} \
                 problems; a split of one problem has clone pairs but no non-clone pair: use \
                 more tasks or other fractions",
                f[0],
                f[1],
                f[2],
                problems.len(),
                sizes[0],
                sizes[1],
                sizes[2]
            );
        }
    }
    let runtime = args.transforms.runtime()?;
    let transforms = args.transforms.load(&runtime)?;
    if transforms.is_empty() {
        bail!("no transforms selected");
    }
    let detector_args = args.detector.as_ref().map(|spec| DetectorArgs {
        detector: spec.clone(),
        device: args.device.clone(),
        threads: None,
        batch_size: args.batch_size,
        precision: PrecisionArg::Auto,
        batch_shapes: None,
    });
    let detector = match &detector_args {
        Some(d) => Some(d.open()?),
        None => None,
    };
    let oracle = args.oracle.oracle()?;
    stop_point(&stop, "starting the sandbox", "no task was augmented")?;
    let refused = match args.min_mutation_score {
        Some(min) => {
            measure_scores(&mut set.tasks, &oracle, args.mutants, args.seed, args.quiet)?;
            equimorph::adequacy::score::below(&set.tasks, min)
        }
        None => std::collections::BTreeMap::new(),
    };
    stop_point(&stop, "measuring mutation scores", "no task was augmented")?;
    let symbolic = args.verify.checker()?;
    let config = AugmentConfig {
        variants: args.variants,
        min_steps: args.steps.0,
        max_steps: args.steps.1,
        seed: args.seed,
        hard: args.hard,
        beam: args.beam.max(1),
        attempts: args.attempts.max(1),
        verify: !args.unverified,
        window: args.window.enabled(),
    };
    let run_info = AugmentRun {
        kind: "augment".into(),
        tasks: args.tasks.display().to_string(),
        transforms: transforms.names(),
        config: config.clone(),
        detector: detector.as_ref().map(|d| d.name().to_string()),
        format: args.format,
        negatives: args.negatives,
        split: args.split,
        shard: args.shard.map(|s| s.to_string()),
        dataset: Some(set.report()),
        adequacy: Some(equimorph::adequacy::SetAdequacy::of(&set.tasks)),
        min_mutation_score: args.min_mutation_score,
        planned_tasks: None,
    };
    let settings = run_settings(&args, &config, detector_args.as_ref(), &transforms)?;
    let (run_dir, _) = RunDir::open(&args.out, JobKind::Augment, settings, args.force_new)?;
    let job = AugmentJob {
        tasks: &set,
        record: run_info,
        transforms: &transforms,
        oracle: &oracle,
        detector: detector.as_deref(),
        symbolic: symbolic.as_ref(),
        config,
        shard: args.shard,
        refused,
    };
    let outcome = job.run(&run_dir, &stop, &Stderr, &Bar::new(args.quiet))?;
    print_outcome(&args, &outcome);
    Ok(outcome.status().into())
}

/// The settings that define the run (`run.json`; a rerun resumes only with the same ones).
fn run_settings(
    args: &AugmentArgs,
    config: &AugmentConfig,
    detector_args: Option<&DetectorArgs>,
    transforms: &equimorph::transform::TransformSet,
) -> Result<RunSettings> {
    let mut settings = RunSettings::new();
    task_settings(&mut settings, &args.tasks);
    args.dataset.record(&mut settings);
    match detector_args {
        Some(d) => {
            detector_settings(&mut settings, &d.detector);
            d.record(&mut settings)?;
        }
        None => {
            settings.set("detector", NOT_SET);
        }
    }
    let list: Vec<_> = transforms.iter().cloned().collect();
    transform_settings(&mut settings, &list);
    args.oracle.record(&mut settings);
    settings
        .set("variants", config.variants)
        .set(
            "steps",
            format!("{}..{}", config.min_steps, config.max_steps),
        )
        .set("seed", config.seed)
        .set("hard", config.hard)
        .set("beam", config.beam)
        .set("window", config.hard && config.window)
        .set("attempts", config.attempts)
        .set("verified", config.verify)
        .set("format", format!("{:?}", args.format).to_lowercase())
        .set("negatives", args.negatives)
        .set_opt(
            "split",
            args.split.map(|s| format!("{},{},{}", s[0], s[1], s[2])),
        )
        .set_opt("shard", args.shard);
    if let Some(min) = args.min_mutation_score {
        settings
            .set("min mutation score", min)
            .set("mutants", args.mutants);
    }
    args.verify.record(&mut settings);
    Ok(settings)
}

/// Prints what an augmentation did: its figures, where its files are, and why it stopped.
fn print_outcome(args: &AugmentArgs, o: &AugmentOutcome) {
    let s = &o.summary;
    for d in &o.dropped {
        eprintln!(
            "warning: tasks.jsonl line {}: task {} is already finished (line {}); the \
             duplicate was dropped",
            d.line, d.key, d.first
        );
    }
    println!(
        "{} tasks augmented, {} skipped, {} errors; {} variants ({} verified), {:.2} per task, \
         {} task(s) below K = {}",
        s.augmented,
        s.skipped.len(),
        s.errors.len(),
        s.variants,
        s.verified,
        s.per_task.map_or(0.0, |p| p.mean),
        s.short_tasks,
        args.variants
    );
    println!(
        "this run: {} variants in {:.1} s ({:.2} variants/s)",
        o.made_now,
        o.seconds,
        o.made_now as f64 / o.seconds.max(1e-9)
    );
    if let Some(d) = s.distance {
        println!("distance L of the variants: {:.4} ± {:.4}", d.mean, d.std);
    }
    println!("variants: {}", args.out.join("variants.jsonl").display());
    if let Some((n, p, neg)) = s.codexglue {
        println!(
            "codexglue: {} ({n} programs, {p} pairs, {neg} negative)",
            args.out.join("codexglue").display()
        );
        if neg == 0 && args.negatives > 0 {
            eprintln!(
                "warning: no negative pair could be drawn: every augmented task solves the same \
                 problem (or sits alone in its split)"
            );
        }
    }
    println!("report: {}", args.out.join("report.md").display());
    println!("        {}", args.out.join("report.html").display());
    for (id, why) in &s.errors {
        eprintln!("error: task {id}: {why}");
    }
    if let Some(notice) = s.progress().incomplete_notice() {
        eprintln!("{notice}");
    }
    if o.end.interrupted {
        eprintln!("interrupted: finished tasks are saved; rerun the same command to resume");
    } else if let Some(reason) = &o.end.broken {
        eprintln!(
            "error: stopped: the sandbox failed on the last {} checks in a row ({reason}); \
             results so far are saved, and a rerun resumes",
            equimorph::oracle::BROKEN_AFTER
        );
    } else if s.augmented == 0 {
        eprintln!(
            "error: no task was augmented ({} skipped, {} errors): see the reasons in {}",
            s.skipped.len(),
            s.errors.len(),
            args.out.join("report.md").display()
        );
    }
}
