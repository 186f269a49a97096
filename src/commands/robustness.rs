//! `equimorph robustness`: Auto-SPT RQ3 end to end (split, augment, train, attack both
//! detectors, clean AUC, one report). Every step resumes: a rerun with the same `--out`
//! redoes only what is missing.

use super::attack::AttackArgs;
use super::augment::AugmentArgs;
use super::common::{
    load_dataset, DatasetArgs, DetectorArgs, OracleOptions, TransformOptions, WindowArgs,
};
use super::train::TrainArgs;
use equimorph::train::Mode;
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::augment::summary::OutputFormat;
use equimorph::report::calibration::{roc, ThresholdSpec};
use equimorph::robustness::{clean_pairs, split_tasks, AttackResult, RobustnessReport, TaskSplit};
use equimorph::search::{OracleOrder, Strategy};
use equimorph::task::{Task, TaskFormat};
use equimorph::transform::default_transforms_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The SPTs most papers start from: renaming, loop exchange, conditional flip, dead code.
const CLASSIC: &str = "var-rename,for-to-while,if-else-flip,dead-code-insert";

/// Arguments of `robustness`.
#[derive(Args)]
pub struct RobustnessArgs {
    /// Task file or directory (any format `attack` reads).
    tasks: PathBuf,
    /// Output directory: model/, augment/, attacks/, robustness.json, robustness.md/html.
    #[arg(long)]
    out: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    /// Share of problems held out for the attacks and the clean AUC.
    #[arg(long, default_value_t = 0.3, value_name = "FRACTION")]
    test: f64,
    /// A transform set to attack with, NAME=SPEC (SPEC as --transforms takes it); repeated.
    /// Default: classic (var-rename, for-to-while, if-else-flip, dead-code-insert) and all
    /// (every built-in SPT).
    #[arg(long = "set", value_name = "NAME=SPEC")]
    sets: Vec<String>,
    /// Transforms that make the training variants (default: every built-in SPT).
    #[arg(long, value_name = "SPEC")]
    augment_transforms: Option<String>,
    /// Verified variants per training task.
    #[arg(long, default_value_t = 6)]
    variants: usize,
    /// Seed of the split, augmentation, training and attacks.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Training: head (a projection of the frozen encoder's embedding) or full (the whole
    /// encoder fine-tuned).
    #[arg(long, value_enum, default_value = "head")]
    mode: Mode,
    /// Training: passes over the pairs at most.
    #[arg(long, default_value_t = 30)]
    epochs: usize,
    /// Training: pairs per batch.
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Training: Adam's learning rate.
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// Training: share of training problems held out to stop early.
    #[arg(long, default_value_t = 0.2)]
    valid: f64,
    /// Training: penalty on the projection's distance from the identity.
    #[arg(long, default_value_t = 0.0)]
    decay: f32,
    /// GPTCloneBench's stand-alone clones (folder or zip): clean ROC AUC of both detectors on
    /// its labelled pairs too (for data without independent solutions, e.g. HumanEval).
    #[arg(long, value_name = "DIR|ZIP")]
    clean_pairs: Option<PathBuf>,
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
    detector: DetectorArgs,
    #[command(flatten)]
    transforms: TransformOptions,
    #[command(flatten)]
    oracle: OracleOptions,
}

fn write_tasks(path: &Path, tasks: &[&Task]) -> Result<()> {
    let mut text = String::new();
    for t in tasks {
        text.push_str(&serde_json::to_string(t)?);
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `None` when a step succeeded; otherwise its exit status (an interrupted step keeps its
/// 130), after saying how to go on.
fn step_failed(code: ExitCode, what: &str, force_new: bool) -> Option<ExitCode> {
    if code == ExitCode::SUCCESS {
        return None;
    }
    eprintln!(
        "robustness: the {what} step did not finish (see above); rerun the same command{} to \
         resume",
        if force_new {
            " without --force-new"
        } else {
            ""
        }
    );
    Some(code)
}

/// Runs `robustness`.
pub fn run(args: RobustnessArgs) -> Result<ExitCode> {
    if !(0.0..1.0).contains(&args.test) || args.test <= 0.0 {
        bail!("--test must lie in (0, 1)");
    }
    let mut sets: BTreeMap<String, String> = BTreeMap::new();
    for s in &args.sets {
        let Some((name, spec)) = s.split_once('=') else {
            bail!("--set {s:?}: expected NAME=SPEC");
        };
        if name.is_empty() || name.contains(['/', ' ']) {
            bail!("--set {s:?}: NAME must be a plain word (it names a directory)");
        }
        sets.insert(name.to_string(), spec.to_string());
    }
    if sets.is_empty() {
        sets.insert("classic".into(), CLASSIC.into());
        sets.insert("all".into(), default_transforms_dir().display().to_string());
    }
    if equimorph::detector::model_path(&args.detector.detector).is_none() {
        bail!("--detector must be a model (minilm, onnx:DIR): a classic measure cannot be trained");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // 1. The split, by problem; kept on disk so that a rerun resumes the same experiment.
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let tasks: Vec<&Task> = set.tasks.iter().collect();
    let split_path = args.out.join("split.json");
    let earlier = if args.force_new {
        None
    } else {
        std::fs::read_to_string(&split_path).ok()
    };
    let split: TaskSplit = match earlier {
        Some(t) => serde_json::from_str(&t)
            .with_context(|| format!("{} is damaged", split_path.display()))?,
        None => {
            let s = split_tasks(&tasks, args.test, args.seed)
                .context("the tasks hold fewer than two problems: nothing to hold out")?;
            std::fs::write(&split_path, serde_json::to_string_pretty(&s)?)?;
            s
        }
    };
    let pick = |ids: &[String]| -> Vec<&Task> {
        let want: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        tasks
            .iter()
            .copied()
            .filter(|t| want.contains(t.id.as_str()))
            .collect()
    };
    let (train_tasks, test_tasks) = (pick(&split.train), pick(&split.test));
    if train_tasks.is_empty() || test_tasks.is_empty() {
        bail!(
            "{} does not match these tasks: pass --force-new to split again and start over",
            split_path.display()
        );
    }
    let (train_file, test_file) = (
        args.out.join("train_tasks.jsonl"),
        args.out.join("test_tasks.jsonl"),
    );
    write_tasks(&train_file, &train_tasks)?;
    write_tasks(&test_file, &test_tasks)?;
    eprintln!(
        "robustness: {} training task(s), {} held-out task(s)",
        train_tasks.len(),
        test_tasks.len()
    );
    // 2. Augment the training tasks.
    let augment_dir = args.out.join("augment");
    eprintln!(
        "robustness: augmenting the training tasks into {}",
        augment_dir.display()
    );
    if let Some(code) = step_failed(
        super::augment::run(AugmentArgs {
            tasks: train_file.clone(),
            out: augment_dir.clone(),
            variants: args.variants,
            steps: (1, 3),
            seed: args.seed,
            format: OutputFormat::Jsonl,
            negatives: 1,
            split: None,
            task_format: Some(TaskFormat::Jsonl),
            dataset: DatasetArgs::default(),
            detector: None,
            hard: false,
            window: Default::default(),
            beam: 5,
            attempts: 8,
            unverified: false,
            min_mutation_score: None,
            mutants: 100,
            verify: Default::default(),
            shard: None,
            device: args.detector.device.clone(),
            batch_size: None,
            quiet: args.quiet,
            force_new: args.force_new,
            transforms: TransformOptions {
                transforms: args
                    .augment_transforms
                    .clone()
                    .or_else(|| args.transforms.transforms.clone()),
                sandbox: args.transforms.sandbox.clone(),
            },
            oracle: args.oracle.clone(),
        })?,
        "augment",
        args.force_new,
    ) {
        return Ok(code);
    }
    // 3. Train.
    let model_dir = args.out.join("model");
    if args.force_new {
        // Trained on the variants the previous run made: train again.
        let old = model_dir.join("train.json");
        if old.is_file() {
            std::fs::remove_file(&old)
                .with_context(|| format!("cannot remove {}", old.display()))?;
        }
    }
    if let Ok(text) = std::fs::read_to_string(model_dir.join("train.json")) {
        // A resumed run keeps its model only if it was trained as this run would train it.
        let old: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let c = &old["config"];
        let mode = match args.mode {
            Mode::Head => "head",
            Mode::Full => "full",
        };
        let same = old["base"] == args.detector.detector.as_str()
            && old["mode"] == mode
            && c["epochs"] == args.epochs
            && c["batch"] == args.batch
            && c["seed"] == args.seed
            && c["lr"]
                .as_f64()
                .is_some_and(|x| (x - f64::from(args.lr)).abs() < 1e-9)
            && c["valid_fraction"].as_f64() == Some(args.valid)
            && c["decay"]
                .as_f64()
                .is_some_and(|x| (x - f64::from(args.decay)).abs() < 1e-9);
        if !same {
            bail!(
                "{} was trained with other settings (see its train.json): pass --force-new to \
                 start over, or choose another --out",
                model_dir.display()
            );
        }
    }
    if !model_dir.join("train.json").is_file() {
        eprintln!("robustness: training into {}", model_dir.display());
        if let Some(code) = step_failed(
            super::train::run(TrainArgs {
                data: augment_dir.clone(),
                out: model_dir.clone(),
                mode: args.mode,
                epochs: args.epochs,
                batch: args.batch,
                lr: args.lr,
                valid: args.valid,
                patience: 4,
                seed: args.seed,
                decay: args.decay,
                unverified: false,
                quiet: args.quiet,
                force: true,
                weights: None,
                detector: args.detector.clone(),
            })?,
            "train",
            args.force_new,
        ) {
            return Ok(code);
        }
    }
    let trained_spec = format!("onnx:{}", model_dir.display());
    let detectors = [
        ("base", args.detector.detector.clone()),
        ("robust", trained_spec),
    ];
    // 4. Attack both detectors with every set, on the held-out tasks.
    let mut results = Vec::new();
    for (label, spec) in &detectors {
        for (name, transforms) in &sets {
            let dir = args.out.join("attacks").join(format!("{label}-{name}"));
            eprintln!(
                "robustness: attacking the {label} detector with {name} into {}",
                dir.display()
            );
            let mut detector = args.detector.clone();
            detector.detector = spec.clone();
            if let Some(code) = step_failed(
                super::attack::run(AttackArgs {
                    dataset: DatasetArgs::default(),
                    reference_clones: None,
                    symbolic_rounds: 2,
                    verify: Default::default(),
                    tasks_in_flight: None,
                    tasks: test_file.clone(),
                    out: dir.clone(),
                    format: Some(TaskFormat::Jsonl),
                    strategy: args.strategy,
                    beam: args.beam,
                    iterations: args.iterations,
                    queries_per_iteration: None,
                    patience: None,
                    seed: args.seed,
                    oracle_order: OracleOrder::Lazy,
                    max_queries: args.max_queries,
                    max_oracle: None,
                    time_per_task: None,
                    stop_below: None,
                    max_growth: args.max_growth,
                    window: args.window.clone(),
                    shard: None,
                    keep_verified: false,
                    threshold: ThresholdSpec::Auto { rate: 0.95 },
                    quiet: args.quiet,
                    force_new: args.force_new,
                    detector,
                    transforms: TransformOptions {
                        transforms: Some(transforms.clone()),
                        sandbox: args.transforms.sandbox.clone(),
                    },
                    oracle: args.oracle.clone(),
                })?,
                "attack",
                args.force_new,
            ) {
                return Ok(code);
            }
            let s: equimorph::report::Summary = serde_json::from_str(
                &std::fs::read_to_string(dir.join("summary.json"))
                    .context("reading summary.json")?,
            )?;
            results.push(AttackResult {
                detector: label.to_string(),
                transform_set: name.clone(),
                mean_distance: s.mean_distance,
                std_distance: s.std_distance,
                success_rate: s.success_rate,
                threshold: s.run.threshold,
                tasks: s.attacked,
                run: dir.display().to_string(),
            });
        }
    }
    // 5. Clean discrimination on pairs that do not come from SPTs.
    let pairs = clean_pairs(&test_tasks, args.seed);
    let clones = pairs.iter().filter(|p| p.2).count();
    let mut clean_auc = BTreeMap::new();
    for (label, spec) in &detectors {
        let auc = if pairs.is_empty() {
            None
        } else {
            let d = equimorph::detector::open(spec, args.detector.options()?)?;
            let mut scores = Vec::with_capacity(pairs.len());
            for &(a, b, _) in &pairs {
                scores.push(d.score(&test_tasks[a].source, &[test_tasks[b].source.as_str()])?[0]);
            }
            let labels: Vec<bool> = pairs.iter().map(|p| p.2).collect();
            Some(roc(&scores, &labels)?.auc)
        };
        clean_auc.insert(label.to_string(), auc);
    }
    let mut clean_auc_gptclonebench = BTreeMap::new();
    if let Some(path) = &args.clean_pairs {
        let bench = equimorph::task::gptclonebench::load(path, args.seed)
            .with_context(|| format!("--clean-pairs {}", path.display()))?;
        let labels: Vec<bool> = bench.pairs.iter().map(|p| p.clone).collect();
        for (label, spec) in &detectors {
            let d = equimorph::detector::open(spec, args.detector.options()?)?;
            let mut scores = Vec::with_capacity(bench.pairs.len());
            for p in &bench.pairs {
                scores.push(d.score(&p.a, &[p.b.as_str()])?[0]);
            }
            clean_auc_gptclonebench.insert(label.to_string(), roc(&scores, &labels)?.auc);
        }
    }
    let training: serde_json::Value = std::fs::read_to_string(model_dir.join("train.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .map(|t| {
            serde_json::json!({
                "epochs": t["epochs"].as_array().map_or(0, Vec::len),
                "best_epoch": t["best_epoch"],
                "base_valid_loss": t["base_valid_loss"],
                "programs": t["programs"],
                "seconds": t["seconds"],
            })
        })
        .unwrap_or_default();
    let report = RobustnessReport {
        split,
        clean_auc,
        clean_pairs: (clones, pairs.len() - clones),
        clean_auc_gptclonebench,
        results,
        base: args.detector.detector.clone(),
        model: model_dir.display().to_string(),
        training,
        transform_sets: sets,
    };
    let write = |name: &str, text: String| -> Result<PathBuf> {
        let p = args.out.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
        Ok(p)
    };
    write("robustness.json", serde_json::to_string_pretty(&report)?)?;
    let md = write("robustness.md", report.markdown())?;
    write("robustness.html", report.html())?;
    for r in &report.results {
        println!(
            "{:<7} {:<12} L = {:.4} ± {:.4}, success {:.1} % (M < {:.4}), {} tasks",
            r.detector,
            r.transform_set,
            r.mean_distance,
            r.std_distance,
            100.0 * r.success_rate,
            r.threshold,
            r.tasks
        );
    }
    for (d, auc) in &report.clean_auc {
        println!(
            "clean ROC AUC {d}: {}",
            auc.map_or(
                "not measured (no two solutions of one held-out problem)".into(),
                |a| format!("{a:.4}")
            )
        );
    }
    for (d, auc) in &report.clean_auc_gptclonebench {
        println!("GPTCloneBench ROC AUC {d}: {auc:.4}");
    }
    println!("report: {}", md.display());
    Ok(ExitCode::SUCCESS)
}
