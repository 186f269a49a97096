//! `equimorph robustness`: Auto-SPT RQ3 end to end (per seed: split, augment and train on
//! each training set, attack every detector with every set, clean AUC and F1; one report
//! over the seeds). Every step resumes: a rerun with the same `--out` redoes only what is
//! missing.

use super::common::{
    interrupt_flag, load_dataset, print, Bar, DetectorSettings, HardShareArgs, LoadOptions,
    OracleSettings, Stderr, StepsArgs, TrainingArgs, TransformOptions, WindowArgs,
};
use anyhow::Result;
use clap::Args;
use equimorph::job::robustness::{
    parse_sets, parse_training_sets, AttackSettings, RobustnessJob, RobustnessSettings,
    TrainingSettings,
};
use equimorph::search::Strategy;
use equimorph::task::TaskFormat;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `robustness`.
#[derive(Args)]
pub struct RobustnessArgs {
    /// Task file or directory (any format `attack` reads).
    tasks: PathBuf,
    /// Output directory: seed-<S>/ (split, augment-<set>/, model-<set>/, attacks/) per seed,
    /// and robustness.json, robustness.md/html over the seeds.
    #[arg(long)]
    out: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: LoadOptions,
    /// Share of problems held out for the attacks and the clean AUC.
    #[arg(long, default_value_t = 0.3, value_name = "FRACTION")]
    test: f64,
    /// A transform set to attack with, NAME=SPEC (SPEC as --transforms takes it); repeated.
    /// Default: classic (var-rename, for-to-while, if-else-flip, dead-code-insert) and all
    /// (every built-in SPT).
    #[arg(long = "set", value_name = "NAME=SPEC")]
    sets: Vec<String>,
    /// Train a detector (robust-NAME) on variants made by the set NAME (a --set name);
    /// repeated. Default: one per set, so every set is also attacked by detectors that were
    /// not trained on it (train on classic, attack with all).
    #[arg(long = "train-set", value_name = "NAME")]
    train_sets: Vec<String>,
    /// Train one detector (robust-custom) on variants made by these transforms instead.
    #[arg(long, value_name = "SPEC", conflicts_with = "train_sets")]
    augment_transforms: Option<String>,
    /// Verified variants per training task.
    #[arg(long, default_value_t = 6)]
    variants: usize,
    /// Hard training variants: the least similar rewrites that the attacks' own search
    /// (--search, --beam) finds against the base detector in at most MAX of --steps
    /// iterations, instead of random verified compositions (adversarial training).
    #[arg(long)]
    hard: bool,
    #[command(flatten)]
    hard_share: HardShareArgs,
    #[command(flatten)]
    steps: StepsArgs,
    /// Seed of the split, augmentation, training and attacks (the first seed with --seeds).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Repeat the experiment with this many seeds (SEED, SEED+1, …), each with its own split
    /// and model; the report gives mean ± sd over them.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    seeds: u64,
    #[command(flatten, next_help_heading = "Training")]
    training: TrainingArgs,
    /// GPTCloneBench's stand-alone clones (folder or zip): clean ROC AUC of both detectors on
    /// its labelled pairs too (for data without independent solutions, e.g. HumanEval).
    #[arg(long, value_name = "DIR|ZIP")]
    clean_pairs: Option<PathBuf>,
    /// Also attack each detector behind this defence (repeated): canon (both programs read in
    /// a canonical form) or smooth:K (the mean over K paired SPT perturbations). The attack is
    /// adaptive: it queries the defended detector.
    #[arg(long = "defence", value_name = "canon|smooth:K")]
    defences: Vec<String>,
    /// Attacks: guided, beam, greedy or random.
    #[arg(long = "search", value_enum, default_value = "guided")]
    strategy: Strategy,
    /// Attacks: beam width (default: attack's).
    #[arg(long)]
    beam: Option<usize>,
    /// Attacks: iterations (default: attack's).
    #[arg(long)]
    iterations: Option<usize>,
    /// Attacks: detector queries per task at most.
    #[arg(long)]
    max_queries: Option<usize>,
    /// Attacks: reject candidates with more than F times the original's tokens.
    #[arg(long, value_name = "F")]
    max_growth: Option<f64>,
    #[command(flatten)]
    window: WindowArgs,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Start over in --out: split, augment, train and attack again, replacing what an earlier
    /// run left there (each step's outputs only).
    #[arg(long)]
    force_new: bool,
    #[command(flatten)]
    detector: DetectorSettings,
    #[command(flatten)]
    transforms: TransformOptions,
    #[command(flatten)]
    oracle: OracleSettings,
}

/// Runs `robustness`.
pub fn run(args: RobustnessArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading stops the run as cleanly as one during a step.
    let stop = interrupt_flag()?;
    let settings = settings(&args)?;
    settings.check()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let runtime = args.transforms.runtime()?;
    let load = |spec: Option<String>| {
        let sandbox = args.transforms.sandbox.clone();
        TransformOptions {
            transforms: spec,
            sandbox,
        }
        .load(&runtime)
    };
    // Each distinct spec once: a set trained on is usually also one attacked with.
    let mut loaded = BTreeMap::new();
    for spec in settings
        .sets
        .values()
        .chain(settings.training_sets.values())
    {
        if !loaded.contains_key(spec) {
            loaded.insert(spec.clone(), load(Some(spec.clone()))?);
        }
    }
    let named = |specs: &BTreeMap<String, String>| -> BTreeMap<_, _> {
        specs
            .iter()
            .filter_map(|(name, spec)| Some((name.clone(), loaded.get(spec)?)))
            .collect()
    };
    let job = RobustnessJob {
        training_sets: named(&settings.training_sets),
        sets: named(&settings.sets),
        settings,
        tasks: &set,
        oracle: args.oracle.clone(),
        detector: args.detector.clone(),
    };
    match job.run(&stop, &Stderr, &Bar::new(args.quiet), &print) {
        Ok(outcome) => {
            print(&outcome.printout());
            Ok(outcome.status().into())
        }
        // A step that did not finish, or an interrupt: said as it is, with its status.
        Err(e) if e.said_plainly() => {
            eprintln!("{e}");
            Ok(e.status().into())
        }
        Err(e) => Err(e.into()),
    }
}

/// The experiment the arguments ask for.
fn settings(args: &RobustnessArgs) -> Result<RobustnessSettings> {
    let sets = parse_sets(&args.sets)?;
    Ok(RobustnessSettings {
        out: args.out.clone(),
        test: args.test,
        seeds: (0..args.seeds).map(|k| args.seed.wrapping_add(k)).collect(),
        variants: args.variants,
        hard: args.hard,
        hard_share: args.hard_share.hard_share,
        steps: args.steps.steps,
        base: args.detector.spec.clone(),
        defences: args.defences.clone(),
        training_sets: parse_training_sets(
            &args.train_sets,
            // As before sets were trained on, --transforms alone names the training transforms.
            args.augment_transforms
                .as_deref()
                .or(args.transforms.transforms.as_deref()),
            &sets,
        )?,
        sets,
        training: TrainingSettings {
            mode: args.training.mode,
            backend: args.training.backend,
            epochs: args.training.epochs,
            batch: args.training.batch,
            lr: args.training.lr(),
            valid: args.training.valid,
            decay: args.training.decay,
            canon: args.training.canon_forms,
        },
        attacks: AttackSettings {
            strategy: args.strategy,
            beam: args.beam,
            iterations: args.iterations,
            max_queries: args.max_queries,
            max_growth: args.max_growth,
            window: args.window.enabled(),
        },
        clean_pairs: args.clean_pairs.clone(),
        force_new: args.force_new,
    })
}
