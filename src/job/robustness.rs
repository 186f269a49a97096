//! The robustness job (`equimorph robustness`, Auto-SPT RQ3 end to end): from resolved parts
//! (tasks, transform sets, oracle, base detector) to a typed [`RobustnessOutcome`].
//!
//! Once per seed, in `seed-<s>/`: the split by problem (kept in `split.json`, so a rerun
//! resumes the same experiment), the training tasks augmented by each training set
//! ([`AugmentJob`], into `augment-<set>/`), a detector trained on each ([`TrainJob`], into
//! `model-<set>/`, unless a model trained the same way is there), the base and every trained
//! detector attacked with every transform set on the held-out tasks ([`AttackJob`], into
//! `attacks/<detector>-<set>/`), and their clean ROC AUC and F1. Then one report over the
//! seeds (`robustness.json`, `.md`, `.html`: mean ± sd, the train-set × attack-set matrix).
//! Each step's run directory resumes as that job's own command would; a step that does not
//! finish (nothing usable, a broken sandbox, SIGINT) is [`RobustnessError::StepFailed`] with
//! its exit status.

use super::attack::{AttackError, AttackJob};
use super::augment::{AugmentError, AugmentJob};
use super::exit::ExitStatus;
use super::interrupt::{stop_point, InterruptedBeforeStart};
use super::settings::RunInputs;
use super::settings::{DetectorSettings, OracleSettings, SettingsError};
use super::train::{TrainJob, TrainJobError};
use super::{Notices, Printout, Progress};
use crate::augment::summary::OutputFormat;
use crate::augment::AugmentConfig;
use crate::detector::{Detector, DetectorError};
use crate::report::calibration::{roc, CalibrationError, ThresholdSpec};
use crate::robustness::{
    clean_pairs, f1_at, split_tasks, AttackResult, CleanResult, RobustnessReport, SeedReport,
    TaskSplit,
};
use crate::run::{JobKind, RunDir, RunDirError, RunSettings};
use crate::search::{OracleOrder, SearchConfig, Strategy};
use crate::task::{LoadOptions, Task, TaskError, TaskFormat, TaskSet};
use crate::train::{Backend, Mode, TrainConfig};
use crate::transform::TransformSet;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use thiserror::Error;

/// The SPTs most papers start from: renaming, loop exchange, conditional flip, dead code.
pub const CLASSIC: &str = "var-rename,for-to-while,if-else-flip,dead-code-insert";

/// Every detector is judged at its own threshold for 5 % false positives on non-clone pairs
/// of the held-out originals.
const FIVE_PERCENT_FPR: ThresholdSpec = ThresholdSpec::Auto { rate: 0.95 };

/// What a step stopped before its first task has done.
const BEFORE_SAVED: &str = "the steps before it are saved";

/// The steps of the experiment that run a job of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Augmenting the training tasks.
    Augment,
    /// Training the detector.
    Train,
    /// Attacking a detector with a transform set.
    Attack,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Augment => "augment",
            Step::Train => "train",
            Step::Attack => "attack",
        })
    }
}

/// Why the experiment stopped before its report.
#[derive(Debug, Error)]
pub enum RobustnessError {
    /// A setting is out of its range or malformed.
    #[error("{0}")]
    Usage(String),
    /// A file or directory could not be created, read or written.
    #[error("{message}")]
    Io {
        /// What was being done ("cannot write …").
        message: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `split.json` is not what this job writes.
    #[error("{} is damaged", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The tasks cannot be split.
    #[error("the tasks hold fewer than two problems: nothing to hold out")]
    OneProblem,
    /// `split.json` names tasks these are not.
    #[error(
        "{} does not match these tasks: pass --force-new to split again and start over",
        .0.display()
    )]
    SplitMismatch(PathBuf),
    /// A task file the split wrote holds no task with tests.
    #[error("{} holds no task with tests", .0.display())]
    NoTasks(PathBuf),
    /// The model in `model/` was trained another way.
    #[error(
        "{} was trained with other settings (see its train.json): pass --force-new to start \
         over, or choose another --out",
        .0.display()
    )]
    OtherTraining(PathBuf),
    /// `--mode full` found no Hugging Face source of the base model where setup keeps it.
    #[error(
        "--mode full needs the weights {} was exported from (config.json, model.safetensors, \
         tokenizer.json) in {}: robustness looks for them only where setup keeps them",
        dir.display(),
        places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" or ")
    )]
    NoWeights {
        /// The base model directory.
        dir: PathBuf,
        /// Where the weights were looked for.
        places: Vec<PathBuf>,
    },
    /// A step's run directory could not be opened.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A task file the split wrote could not be read back.
    #[error(transparent)]
    Tasks(#[from] TaskError),
    /// The augment step stopped with an error.
    #[error(transparent)]
    Augment(#[from] AugmentError),
    /// The train step stopped with an error.
    #[error(transparent)]
    Train(TrainJobError),
    /// An attack stopped with an error.
    #[error(transparent)]
    Attack(AttackError),
    /// A detector could not be opened or failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// A detector returned no score for a pair.
    #[error("the {0} detector returned no score for a clean pair")]
    NoScore(String),
    /// A step's oracle could not start.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A clean ROC AUC could not be measured.
    #[error(transparent)]
    Calibration(#[from] CalibrationError),
    /// `--clean-pairs` could not be loaded.
    #[error("--clean-pairs {}", path.display())]
    CleanPairs {
        /// The benchmark given.
        path: PathBuf,
        /// Why.
        #[source]
        source: TaskError,
    },
    /// A record could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A step ended without finishing (its own lines say why): its exit status stands.
    #[error(
        "robustness: the {step} step did not finish (see above); rerun the same command{} to \
         resume",
        if *force_new { " without --force-new" } else { "" }
    )]
    StepFailed {
        /// The step.
        step: Step,
        /// Its exit status.
        status: ExitStatus,
        /// Whether this run was asked to start over (a rerun must not, to resume).
        force_new: bool,
    },
    /// SIGINT or SIGTERM between steps, or before a step's first task.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
}

impl RobustnessError {
    /// The exit status the error calls for.
    pub fn status(&self) -> ExitStatus {
        match self {
            RobustnessError::StepFailed { status, .. } => *status,
            RobustnessError::Interrupted(_) => ExitStatus::Interrupted,
            _ => ExitStatus::Error,
        }
    }

    /// Whether the message is said as it is (a step that did not finish, an interrupt)
    /// rather than as an error.
    pub fn said_plainly(&self) -> bool {
        matches!(
            self,
            RobustnessError::StepFailed { .. } | RobustnessError::Interrupted(_)
        )
    }
}

impl From<AttackError> for RobustnessError {
    fn from(e: AttackError) -> Self {
        match e {
            AttackError::Interrupted(i) => RobustnessError::Interrupted(i),
            e => RobustnessError::Attack(e),
        }
    }
}

impl From<TrainJobError> for RobustnessError {
    fn from(e: TrainJobError) -> Self {
        match e {
            TrainJobError::Interrupted(i) => RobustnessError::Interrupted(i),
            // `train`'s advice names --weights, which robustness does not take.
            TrainJobError::NoWeights { dir, places } => RobustnessError::NoWeights { dir, places },
            e => RobustnessError::Train(e),
        }
    }
}

/// `message: source` for an I/O error.
fn io(message: String) -> impl FnOnce(std::io::Error) -> RobustnessError {
    move |source| RobustnessError::Io { message, source }
}

/// The transform sets `--set NAME=SPEC` names, in name order; the default ones (`classic`
/// and `all`, every built-in SPT) when none is given.
pub fn parse_sets(sets: &[String]) -> Result<BTreeMap<String, String>, RobustnessError> {
    let mut out = BTreeMap::new();
    for s in sets {
        let Some((name, spec)) = s.split_once('=') else {
            return Err(RobustnessError::Usage(format!(
                "--set {s:?}: expected NAME=SPEC"
            )));
        };
        if name.is_empty() || name.contains(['/', ' ', '+', ':']) {
            return Err(RobustnessError::Usage(format!(
                "--set {s:?}: NAME must be a plain word (it names a directory and a detector)"
            )));
        }
        out.insert(name.to_string(), spec.to_string());
    }
    if out.is_empty() {
        out.insert("classic".into(), CLASSIC.into());
        out.insert(
            "all".into(),
            crate::transform::default_transforms_dir()
                .display()
                .to_string(),
        );
    }
    Ok(out)
}

/// The sets a detector is trained on, name → spec: the `--train-set` names (each a set of
/// `sets`), or `custom` for `--augment-transforms SPEC`, or every set of `sets` when neither
/// is given (the train-set × attack-set matrix).
pub fn parse_training_sets(
    names: &[String],
    augment: Option<&str>,
    sets: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, RobustnessError> {
    if let Some(spec) = augment {
        if !names.is_empty() {
            return Err(RobustnessError::Usage(
                "--train-set and --augment-transforms exclude each other: name a --set to \
                 train on, or give the training transforms"
                    .into(),
            ));
        }
        return Ok(BTreeMap::from([("custom".to_string(), spec.to_string())]));
    }
    if names.is_empty() {
        return Ok(sets.clone());
    }
    let mut out = BTreeMap::new();
    for n in names {
        let spec = sets.get(n).ok_or_else(|| {
            RobustnessError::Usage(format!(
                "--train-set {n:?} is not a transform set (the sets: {})",
                sets.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })?;
        out.insert(n.clone(), spec.clone());
    }
    Ok(out)
}

/// How the detector is trained.
#[derive(Debug, Clone)]
pub struct TrainingSettings {
    /// Head (a projection) or full (the whole encoder).
    pub mode: Mode,
    /// What runs full training's steps.
    pub backend: Backend,
    /// Passes over the pairs at most.
    pub epochs: usize,
    /// Pairs per batch.
    pub batch: usize,
    /// Adam's learning rate.
    pub lr: f32,
    /// Share of training problems held out to stop early.
    pub valid: f64,
    /// Penalty on the projection's distance from the identity.
    pub decay: f32,
    /// Train on the programs' canonical forms (for the detectors behind `canon`).
    pub canon: bool,
}

impl TrainingSettings {
    /// The training configuration (the seed is the experiment's).
    pub fn config(&self, seed: u64) -> TrainConfig {
        TrainConfig {
            epochs: self.epochs,
            batch: self.batch,
            lr: self.lr,
            valid_fraction: self.valid,
            patience: 4,
            seed,
            decay: self.decay,
            backend: self.backend,
            canon: self.canon,
            ..TrainConfig::default()
        }
    }

    /// Whether the model a `train.json` describes was trained as these settings (with `base`
    /// and `seed`) would train it.
    pub fn made(&self, train_json: &serde_json::Value, base: &str, seed: u64) -> bool {
        let c = &train_json["config"];
        let close = |v: &serde_json::Value, x: f32| {
            v.as_f64().is_some_and(|v| (v - f64::from(x)).abs() < 1e-9)
        };
        train_json["base"] == base
            && train_json["mode"] == self.mode.as_str()
            && c["epochs"] == self.epochs
            && c["batch"] == self.batch
            && c["seed"] == seed
            && close(&c["lr"], self.lr)
            && c["valid_fraction"].as_f64() == Some(self.valid)
            && close(&c["decay"], self.decay)
            && c["canon"].as_bool().unwrap_or(false) == self.canon
            // Forms from an older `canon:` are not the ones the defence now shows the model.
            && (!self.canon || c["canon_form"] == crate::detector::canon::FORM_VERSION)
            // Head training runs in Rust whatever the backend, and `auto` takes either;
            // reports before backends were recorded were trained with candle.
            && (self.mode == Mode::Head
                || self.backend == Backend::Auto
                || c["backend"].as_str().unwrap_or("candle") == self.backend.as_str())
    }
}

/// How the detectors are attacked (the rest as `attack`'s defaults).
#[derive(Debug, Clone)]
pub struct AttackSettings {
    /// Guided, beam, greedy or random.
    pub strategy: Strategy,
    /// Beam width (default: `attack`'s for the strategy).
    pub beam: Option<usize>,
    /// Iterations (default: `attack`'s for the strategy).
    pub iterations: Option<usize>,
    /// Detector queries per task at most.
    pub max_queries: Option<usize>,
    /// Reject candidates with more than this many times the original's tokens.
    pub max_growth: Option<f64>,
    /// Do not score rewrites longer than the detector's window.
    pub window: bool,
}

impl AttackSettings {
    /// The search these settings ask for, with `attack`'s defaults for the strategy, or why
    /// they are wrong.
    pub fn search(&self, seed: u64) -> Result<SearchConfig, RobustnessError> {
        let request = super::attack::SearchRequest {
            strategy: self.strategy,
            beam: self.beam,
            iterations: self.iterations,
            queries_per_iteration: None,
            patience: None,
            extend: None,
            apply: Default::default(),
            seed,
            oracle_order: OracleOrder::Lazy,
            max_queries: self.max_queries,
            max_oracle: None,
            time_per_task: None,
            stop_below: None,
            max_growth: self.max_growth,
            window: self.window,
        };
        request
            .config()
            .map_err(|e| RobustnessError::Usage(e.to_string()))
    }
}

/// What the experiment is asked to do.
#[derive(Debug, Clone)]
pub struct RobustnessSettings {
    /// The output directory.
    pub out: PathBuf,
    /// Share of problems held out for the attacks and the clean AUC.
    pub test: f64,
    /// One repetition of the experiment per seed (split, augmentation, training, attacks).
    pub seeds: Vec<u64>,
    /// Verified variants per training task.
    pub variants: usize,
    /// Training variants are hard ones: the base detector chooses the least similar of the
    /// search's rewrites (`augment --hard`), instead of random verified sequences.
    pub hard: bool,
    /// With `hard`: the share of each task's variants that are hard (rounded up).
    pub hard_share: f64,
    /// Transform steps per training variant, MIN..=MAX (`augment --steps`).
    pub steps: (usize, usize),
    /// The base detector's spec (a model).
    pub base: String,
    /// Defences (`canon`, `smooth:K`) each detector is also attacked behind.
    pub defences: Vec<String>,
    /// Transform set name → its spec, as `--transforms` takes it.
    pub sets: BTreeMap<String, String>,
    /// The sets a detector is trained on, name → spec (see [`parse_training_sets`]).
    pub training_sets: BTreeMap<String, String>,
    /// How the detector is trained.
    pub training: TrainingSettings,
    /// How the detectors are attacked.
    pub attacks: AttackSettings,
    /// GPTCloneBench's clones, for a second clean AUC.
    pub clean_pairs: Option<PathBuf>,
    /// Start every step over.
    pub force_new: bool,
}

impl RobustnessSettings {
    /// Checks the settings before any work: each error is one that a step would otherwise
    /// meet only after the steps before it.
    pub fn check(&self) -> Result<(), RobustnessError> {
        if !(0.0..1.0).contains(&self.test) || self.test <= 0.0 {
            return Err(RobustnessError::Usage("--test must lie in (0, 1)".into()));
        }
        if crate::detector::model_path(&self.base).is_none() {
            return Err(RobustnessError::Usage(
                "--detector must be a model (minilm, onnx:DIR): a classic measure cannot be \
                 trained"
                    .into(),
            ));
        }
        for d in &self.defences {
            crate::detector::defended(d, &self.base)
                .map_err(|e| RobustnessError::Usage(format!("--defence: {e}")))?;
        }
        if self.variants == 0 {
            return Err(RobustnessError::Usage(
                "--variants must be at least 1".into(),
            ));
        }
        let first = *self
            .seeds
            .first()
            .ok_or_else(|| RobustnessError::Usage("--seeds must be at least 1".into()))?;
        if self.training_sets.is_empty() {
            return Err(RobustnessError::Usage(
                "no transform set to train on".into(),
            ));
        }
        super::train::check_config(&self.training.config(first))?;
        self.attacks.search(first)?;
        Ok(())
    }
}

/// The experiment, made of resolved parts.
pub struct RobustnessJob<'a> {
    /// What it is asked to do.
    pub settings: RobustnessSettings,
    /// The tasks (those with tests), split by problem.
    pub tasks: &'a TaskSet,
    /// Each training set of `settings.training_sets`, loaded, by name: the transforms that
    /// make that detector's training variants.
    pub training_sets: BTreeMap<String, &'a TransformSet>,
    /// Each transform set of `settings.sets`, loaded, by name.
    pub sets: BTreeMap<String, &'a TransformSet>,
    /// How the oracle runs programs: each step starts its own (its counters are its own,
    /// and it is stopped when the step ends) and records these settings.
    pub oracle: OracleSettings,
    /// How the detectors run (device, threads, batch size and layout, graph); its spec is
    /// the base detector's, and the trained one runs the same way.
    pub detector: DetectorSettings,
}

/// How the experiment ended: its report, written.
#[derive(Debug, Clone)]
pub struct RobustnessOutcome {
    /// `robustness.json`'s content.
    pub report: RobustnessReport,
    /// `robustness.md`.
    pub markdown: PathBuf,
}

impl RobustnessOutcome {
    /// The exit status the outcome calls for (every step finished).
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// One line per attack (over the seeds), the clean metrics and where the report is.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        let width = |f: fn(&crate::robustness::AttackRow) -> usize| {
            self.report.results.iter().map(f).max().unwrap_or(0)
        };
        let (dw, sw) = (
            width(|r| r.detector.len()),
            width(|r| r.transform_set.len()),
        );
        for r in &self.report.results {
            p.out(format!(
                "{:<dw$} {:<sw$} success {} %, L = {} (M < {}), {} tasks{}",
                r.detector,
                r.transform_set,
                r.success_rate.show(1, 100.0),
                r.mean_distance.show(4, 1.0),
                r.threshold.show(4, 1.0),
                r.tasks.iter().sum::<usize>(),
                if r.held_out_set {
                    " (a set it was not trained on)"
                } else {
                    ""
                }
            ));
        }
        for (d, c) in &self.report.clean {
            let show = |s: &Option<crate::robustness::Spread>| {
                s.as_ref().map_or_else(
                    || "not measured (no two solutions of one held-out problem)".to_string(),
                    |s| s.show(4, 1.0),
                )
            };
            p.out(format!("clean ROC AUC {d}: {}", show(&c.auc)));
            if c.auc.is_some() {
                p.out(format!(
                    "clean F1 {d} (at its 5 % FPR threshold): {}",
                    show(&c.f1)
                ));
            }
            if let Some(a) = &c.auc_gptclonebench {
                p.out(format!("GPTCloneBench ROC AUC {d}: {}", a.show(4, 1.0)));
            }
        }
        p.out(format!("report: {}", self.markdown.display()));
        p
    }
}

/// Where each part of one seed's experiment lives under the output directory.
struct Layout {
    dir: PathBuf,
    split: PathBuf,
    train_tasks: PathBuf,
    test_tasks: PathBuf,
}

impl Layout {
    fn of(out: &Path, seed: u64) -> Self {
        let dir = out.join(format!("seed-{seed}"));
        Layout {
            split: dir.join("split.json"),
            train_tasks: dir.join("train_tasks.jsonl"),
            test_tasks: dir.join("test_tasks.jsonl"),
            dir,
        }
    }

    /// The variants the training set `set` made.
    fn augment(&self, set: &str) -> PathBuf {
        self.dir.join(format!("augment-{set}"))
    }

    /// The detector trained on them.
    fn model(&self, set: &str) -> PathBuf {
        self.dir.join(format!("model-{set}"))
    }

    /// The attack on `label` with `set`.
    fn attack(&self, label: &str, set: &str) -> PathBuf {
        self.dir
            .join("attacks")
            .join(format!("{}-{set}", label.replace(':', "")))
    }
}

/// What every step takes besides its parts.
struct Reporting<'r> {
    stop: &'r AtomicBool,
    notices: &'r dyn Notices,
    progress: &'r dyn Progress,
    step_done: &'r dyn Fn(&Printout),
}

impl RobustnessJob<'_> {
    /// Runs the experiment once per seed, resuming what an earlier run left in the output
    /// directory, and stopping at the next task or batch of a step once `stop` is set. Each
    /// step's closing lines go to `step_done` as it ends (the command line prints them).
    pub fn run(
        &self,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
        step_done: &dyn Fn(&Printout),
    ) -> Result<RobustnessOutcome, RobustnessError> {
        let r = &Reporting {
            stop,
            notices,
            progress,
            step_done,
        };
        let s = &self.settings;
        s.check()?;
        self.oracle.config()?;
        let mut runs = Vec::with_capacity(s.seeds.len());
        for (k, &seed) in s.seeds.iter().enumerate() {
            if s.seeds.len() > 1 {
                r.notices.note(&format!(
                    "robustness: seed {seed} ({} of {})",
                    k + 1,
                    s.seeds.len()
                ));
            }
            runs.push(self.run_seed(seed, r)?);
        }
        let report = RobustnessReport::over(
            runs,
            s.base.clone(),
            s.defences.clone(),
            s.sets.clone(),
            s.training_sets.keys().cloned().collect(),
        );
        write(
            &s.out.join("robustness.json"),
            &serde_json::to_string_pretty(&report)?,
        )?;
        let markdown = s.out.join("robustness.md");
        write(&markdown, &report.markdown())?;
        write(&s.out.join("robustness.html"), &report.html())?;
        Ok(RobustnessOutcome { report, markdown })
    }

    /// One repetition: split, train on each training set, attack every detector with every
    /// set, clean metrics; written to `seed-<s>/robustness.json`.
    fn run_seed(&self, seed: u64, r: &Reporting<'_>) -> Result<SeedReport, RobustnessError> {
        let s = &self.settings;
        let layout = Layout::of(&s.out, seed);
        std::fs::create_dir_all(&layout.dir)
            .map_err(io(format!("cannot create {}", layout.dir.display())))?;
        let (split, test_tasks) = self.split(&layout, seed, r.notices)?;
        let mut models = BTreeMap::new();
        let mut training = BTreeMap::new();
        for (set, transforms) in &self.training_sets {
            self.augment(&layout, set, transforms, seed, r)?;
            self.train(&layout, set, seed, r)?;
            let model = layout.model(set);
            training.insert(set.clone(), training_summary(&model));
            models.insert(set.clone(), model.display().to_string());
        }
        let mut bare = vec![("base".to_string(), s.base.clone())];
        for (set, model) in &models {
            bare.push((format!("robust-{set}"), format!("onnx:{model}")));
        }
        let mut detectors = bare.clone();
        for d in &s.defences {
            for (label, spec) in &bare {
                let spec = crate::detector::defended(d, spec)
                    .map_err(|e| RobustnessError::Usage(format!("--defence: {e}")))?;
                detectors.push((format!("{label}+{d}"), spec));
            }
        }
        let mut results = Vec::new();
        for (label, spec) in &detectors {
            for (name, transforms) in &self.sets {
                results.push(self.attack(&layout, seed, label, spec, name, transforms, r)?);
            }
        }
        let thresholds: BTreeMap<&str, f32> = results
            .iter()
            .map(|a| (a.detector.as_str(), a.threshold))
            .collect();
        let (clean, clean_pairs) =
            self.clean(&test_tasks, seed, &detectors, &thresholds, r.stop)?;
        let clean_auc_gptclonebench = self.clean_auc_gptclonebench(seed, &detectors, r.stop)?;
        let report = SeedReport {
            seed,
            split,
            clean,
            clean_pairs,
            clean_auc_gptclonebench,
            results,
            models,
            training,
        };
        write(
            &layout.dir.join("robustness.json"),
            &serde_json::to_string_pretty(&report)?,
        )?;
        Ok(report)
    }

    /// The split by problem (the one in `split.json` when resuming), and the task files of
    /// both sides; returns the split and the held-out tasks.
    fn split(
        &self,
        layout: &Layout,
        seed: u64,
        notices: &dyn Notices,
    ) -> Result<(TaskSplit, Vec<&Task>), RobustnessError> {
        let s = &self.settings;
        let tasks: Vec<&Task> = self.tasks.tasks.iter().collect();
        let earlier = if s.force_new {
            None
        } else {
            std::fs::read_to_string(&layout.split).ok()
        };
        let split: TaskSplit = match earlier {
            Some(t) => serde_json::from_str(&t).map_err(|source| RobustnessError::Damaged {
                path: layout.split.clone(),
                source,
            })?,
            None => {
                let split = split_tasks(&tasks, s.test, seed).ok_or(RobustnessError::OneProblem)?;
                write(&layout.split, &serde_json::to_string_pretty(&split)?)?;
                split
            }
        };
        let pick = |ids: &[String]| -> Vec<&Task> {
            let want: HashSet<&str> = ids.iter().map(String::as_str).collect();
            tasks
                .iter()
                .copied()
                .filter(|t| want.contains(t.id.as_str()))
                .collect()
        };
        let (train_tasks, test_tasks) = (pick(&split.train), pick(&split.test));
        if train_tasks.is_empty() || test_tasks.is_empty() {
            return Err(RobustnessError::SplitMismatch(layout.split.clone()));
        }
        write_tasks(&layout.train_tasks, &train_tasks)?;
        write_tasks(&layout.test_tasks, &test_tasks)?;
        notices.note(&format!(
            "robustness: {} training task(s), {} held-out task(s)",
            train_tasks.len(),
            test_tasks.len()
        ));
        Ok((split, test_tasks))
    }

    /// Augments the training tasks with the training set `set` into `augment-<set>/`, as
    /// `augment` with its defaults would.
    fn augment(
        &self,
        layout: &Layout,
        set: &str,
        transforms: &TransformSet,
        seed: u64,
        r: &Reporting<'_>,
    ) -> Result<(), RobustnessError> {
        let s = &self.settings;
        let dir = &layout.augment(set);
        r.notices.note(&format!(
            "robustness: augmenting the training tasks with {set} into {}",
            dir.display()
        ));
        let data = load_tasks(&layout.train_tasks, r.notices)?;
        let oracle = self.oracle.start(r.notices)?;
        stop_point(r.stop, "starting the sandbox", "no task was augmented")?;
        // The hard search is the attacks' own (strategy and beam), over at most MAX steps, so
        // training sees the kind of rewrite the attack will look for.
        let search = s.attacks.search(seed)?;
        let config = AugmentConfig {
            variants: s.variants,
            min_steps: s.steps.0,
            max_steps: s.steps.1,
            seed,
            hard: s.hard,
            hard_share: s.hard_share,
            beam: search.beam,
            strategy: search.strategy,
            attempts: 8,
            verify: true,
            window: true,
        };
        // With --hard the base detector chooses each variant (the least similar the search
        // finds), as `augment --hard` does.
        let chooser = s.hard.then(|| self.detector(&s.base));
        let opened = chooser.as_ref().map(DetectorSettings::open).transpose()?;
        let request = Self::augment_request(&layout.train_tasks, &config);
        let record = request.run_record(&data, transforms, &config, opened.as_deref(), None);
        let mut settings = RunInputs {
            tasks: &layout.train_tasks,
            filters: &LoadOptions::default(),
            detector: chooser.as_ref(),
            transforms: Some(transforms),
            oracle: &self.oracle,
        }
        .record()?;
        request.record(&mut settings, &config, None);
        let (run_dir, _) = RunDir::open(dir, JobKind::Augment, settings, s.force_new)?;
        let job = AugmentJob {
            tasks: &data,
            record,
            transforms,
            oracle: &oracle,
            detector: opened.as_deref(),
            symbolic: None,
            config,
            shard: None,
            refused: BTreeMap::new(),
        };
        let outcome = job.run(&run_dir, r.stop, r.notices, r.progress)?;
        (r.step_done)(&outcome.printout(dir, s.variants, 1));
        self.finished(Step::Augment, outcome.status())
    }

    /// Trains a detector on `augment-<set>/` into `model-<set>/`, unless a model trained the
    /// same way is there.
    fn train(
        &self,
        layout: &Layout,
        set: &str,
        seed: u64,
        r: &Reporting<'_>,
    ) -> Result<(), RobustnessError> {
        let s = &self.settings;
        let model = layout.model(set);
        let record = model.join("train.json");
        if s.force_new && record.is_file() {
            // Trained on the variants the previous run made: train again.
            std::fs::remove_file(&record)
                .map_err(io(format!("cannot remove {}", record.display())))?;
        }
        if let Ok(text) = std::fs::read_to_string(&record) {
            // A resumed run keeps its model only if it was trained as this run would train it.
            let old: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            if !s.training.made(&old, &s.base, seed) {
                return Err(RobustnessError::OtherTraining(model));
            }
            return Ok(());
        }
        r.notices.note(&format!(
            "robustness: training on {set} into {}",
            model.display()
        ));
        let job = TrainJob {
            data: layout.augment(set),
            out: model,
            mode: s.training.mode,
            config: s.training.config(seed),
            unverified: false,
            base: s.base.clone(),
            options: self.detector(&s.base).options()?,
            weights: None,
            force: true,
        };
        let outcome = job.run(r.stop, r.notices, r.progress)?;
        (r.step_done)(&outcome.printout());
        self.finished(Step::Train, outcome.status())
    }

    /// Attacks the `label` detector (`spec`) with the set `name` on the held-out tasks, in
    /// `attacks/<label>-<name>/`, as `attack` with its defaults would.
    #[allow(clippy::too_many_arguments)]
    fn attack(
        &self,
        layout: &Layout,
        seed: u64,
        label: &str,
        spec: &str,
        name: &str,
        transforms: &TransformSet,
        r: &Reporting<'_>,
    ) -> Result<AttackResult, RobustnessError> {
        let s = &self.settings;
        let dir = layout.attack(label, name);
        r.notices.note(&format!(
            "robustness: attacking the {label} detector with {name} into {}",
            dir.display()
        ));
        let search = s.attacks.search(seed)?;
        let tasks = load_tasks(&layout.test_tasks, r.notices)?;
        if tasks.tasks.is_empty() {
            return Err(RobustnessError::NoTasks(layout.test_tasks.clone()));
        }
        let doing = format!("starting the {label}-{name} attack");
        stop_point(r.stop, &doing, BEFORE_SAVED)?;
        let detector = self.detector(spec);
        let settings = self.attack_settings(&layout.test_tasks, &detector, transforms, &search)?;
        let (run_dir, opened) = RunDir::open(&dir, JobKind::Attack, settings, s.force_new)?;
        let detector = detector.open()?;
        let oracle = self.oracle.start(r.notices)?;
        stop_point(r.stop, "starting the sandbox", BEFORE_SAVED)?;
        let job = AttackJob {
            scorer: None,
            tasks: &tasks,
            tasks_label: layout.test_tasks.display().to_string(),
            transforms,
            detector: detector.as_ref(),
            oracle: &oracle,
            symbolic: None,
            symbolic_rounds: 2,
            search,
            threshold: FIVE_PERCENT_FPR,
            shard: None,
            keep_verified: false,
            tasks_in_flight: None,
            reference_clones: None,
        };
        let outcome = job.run(&run_dir, opened, r.stop, r.notices, r.progress)?;
        (r.step_done)(&outcome.printout(&run_dir));
        self.finished(Step::Attack, outcome.status())?;
        let summary = &outcome.summary;
        Ok(AttackResult {
            detector: label.to_string(),
            transform_set: name.to_string(),
            mean_distance: summary.mean_distance,
            std_distance: summary.std_distance,
            success_rate: summary.success_rate,
            threshold: summary.run.threshold,
            tasks: summary.attacked,
            median_queries: summary.median_scored,
            seconds: summary.seconds.total,
            run: dir.display().to_string(),
        })
    }

    /// Clean ROC AUC of each detector on independent solutions among the held-out tasks
    /// (none where no problem has two) and its F1 at its attacks' threshold, with the
    /// (clones, non-clones) measured.
    #[allow(clippy::type_complexity)]
    fn clean(
        &self,
        test_tasks: &[&Task],
        seed: u64,
        detectors: &[(String, String)],
        thresholds: &BTreeMap<&str, f32>,
        stop: &AtomicBool,
    ) -> Result<(BTreeMap<String, Option<CleanResult>>, (usize, usize)), RobustnessError> {
        let pairs = clean_pairs(test_tasks, seed);
        let clones = pairs.iter().filter(|p| p.2).count();
        let labels: Vec<bool> = pairs.iter().map(|p| p.2).collect();
        let mut out = BTreeMap::new();
        for (label, spec) in detectors {
            let clean = if pairs.is_empty() {
                None
            } else {
                stop_point(stop, "measuring the clean ROC AUC", BEFORE_SAVED)?;
                let d = self.detector(spec).open()?;
                let mut scores = Vec::with_capacity(pairs.len());
                for &(a, b, _) in &pairs {
                    // Indices into `test_tasks`, as `clean_pairs` made them.
                    scores.push(score(
                        d.as_ref(),
                        label,
                        &test_tasks[a].source,
                        &test_tasks[b].source,
                    )?);
                }
                Some(CleanResult {
                    auc: roc(&scores, &labels)?.auc,
                    f1: thresholds
                        .get(label.as_str())
                        .map(|&t| f1_at(&scores, &labels, t)),
                })
            };
            out.insert(label.clone(), clean);
        }
        Ok((out, (clones, pairs.len() - clones)))
    }

    /// With `--clean-pairs`: each detector's ROC AUC on GPTCloneBench's labelled pairs.
    fn clean_auc_gptclonebench(
        &self,
        seed: u64,
        detectors: &[(String, String)],
        stop: &AtomicBool,
    ) -> Result<BTreeMap<String, f64>, RobustnessError> {
        let mut aucs = BTreeMap::new();
        let Some(path) = &self.settings.clean_pairs else {
            return Ok(aucs);
        };
        let bench = crate::task::gptclonebench::load(path, seed).map_err(|source| {
            RobustnessError::CleanPairs {
                path: path.clone(),
                source,
            }
        })?;
        let labels: Vec<bool> = bench.pairs.iter().map(|p| p.clone).collect();
        for (label, spec) in detectors {
            stop_point(stop, "measuring the GPTCloneBench ROC AUC", BEFORE_SAVED)?;
            let d = self.detector(spec).open()?;
            let mut scores = Vec::with_capacity(bench.pairs.len());
            for p in &bench.pairs {
                scores.push(score(d.as_ref(), label, &p.a, &p.b)?);
            }
            aucs.insert(label.clone(), roc(&scores, &labels)?.auc);
        }
        Ok(aucs)
    }

    /// `Ok` when a step finished, else why the experiment stops there.
    fn finished(&self, step: Step, status: ExitStatus) -> Result<(), RobustnessError> {
        if status == ExitStatus::Ok {
            return Ok(());
        }
        Err(RobustnessError::StepFailed {
            step,
            status,
            force_new: self.settings.force_new,
        })
    }

    /// The detector `spec`, run as the base detector is.
    fn detector(&self, spec: &str) -> DetectorSettings {
        DetectorSettings {
            spec: spec.to_string(),
            ..self.detector.clone()
        }
    }

    /// The augment step as `augment` would record it (its variants as JSONL, verified).
    fn augment_request<'p>(
        tasks: &'p Path,
        config: &AugmentConfig,
    ) -> super::augment::AugmentRequest<'p> {
        super::augment::AugmentRequest {
            tasks_path: tasks,
            variants: config.variants,
            format: OutputFormat::Jsonl,
            split: None,
            negatives: 1,
            unverified: !config.verify,
            min_mutation_score: None,
        }
    }

    /// An attack's run settings: those `attack` records for the same run.
    fn attack_settings(
        &self,
        tasks: &Path,
        detector: &DetectorSettings,
        transforms: &TransformSet,
        search: &SearchConfig,
    ) -> Result<RunSettings, DetectorError> {
        let mut settings = RunInputs {
            tasks,
            filters: &LoadOptions::default(),
            detector: Some(detector),
            transforms: Some(transforms),
            oracle: &self.oracle,
        }
        .record()?;
        super::attack::record_attack(&mut settings, search, FIVE_PERCENT_FPR, false, None);
        Ok(settings)
    }
}

/// Reads back a task file the split wrote, with its load problems and counts as notices.
fn load_tasks(path: &Path, notices: &dyn Notices) -> Result<TaskSet, RobustnessError> {
    let options = LoadOptions::default();
    super::settings::load_dataset(path, Some(TaskFormat::Jsonl), "--format", &options, notices)
        .map_err(|e| match e {
            super::settings::LoadDatasetError::Task(e)
            | super::settings::LoadDatasetError::Format { source: e, .. } => e.into(),
        })
}

fn write_tasks(path: &Path, tasks: &[&Task]) -> Result<(), RobustnessError> {
    let mut text = String::new();
    for t in tasks {
        text.push_str(&serde_json::to_string(t)?);
        text.push('\n');
    }
    write(path, &text)
}

/// Writes `text` to `path`.
fn write(path: &Path, text: &str) -> Result<(), RobustnessError> {
    std::fs::write(path, text).map_err(io(format!("cannot write {}", path.display())))
}

/// `detector`'s similarity of `a` and `b`.
fn score(detector: &dyn Detector, label: &str, a: &str, b: &str) -> Result<f32, RobustnessError> {
    detector
        .score(a, &[b])?
        .first()
        .copied()
        .ok_or_else(|| RobustnessError::NoScore(label.to_string()))
}

/// What `robustness.json` says of training: epochs run, the epoch kept, the base model's
/// validation loss, programs and seconds (null when `train.json` cannot be read).
fn training_summary(model: &Path) -> serde_json::Value {
    std::fs::read_to_string(model.join("train.json"))
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
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn training() -> TrainingSettings {
        TrainingSettings {
            mode: Mode::Head,
            backend: Backend::Candle,
            epochs: 4,
            batch: 32,
            lr: 1e-3,
            valid: 0.3,
            decay: 0.0,
            canon: false,
        }
    }

    fn settings() -> RobustnessSettings {
        RobustnessSettings {
            out: "out".into(),
            test: 0.3,
            seeds: vec![0],
            variants: 3,
            hard: false,
            hard_share: 1.0,
            steps: (1, 3),
            base: "minilm".into(),
            defences: Vec::new(),
            sets: parse_sets(&[]).unwrap(),
            training_sets: parse_training_sets(&[], None, &parse_sets(&[]).unwrap()).unwrap(),
            training: training(),
            attacks: AttackSettings {
                strategy: Strategy::Guided,
                beam: None,
                iterations: None,
                max_queries: None,
                max_growth: None,
                window: true,
            },
            clean_pairs: None,
            force_new: false,
        }
    }

    #[test]
    fn sets_are_named_plainly_and_default_to_classic_and_all() {
        let d = parse_sets(&[]).unwrap();
        assert_eq!(d.keys().collect::<Vec<_>>(), ["all", "classic"]);
        assert_eq!(d["classic"], CLASSIC);
        let one = parse_sets(&["c=var-rename".into()]).unwrap();
        assert_eq!(one.len(), 1);
        for bad in ["nameless", "=x", "a/b=x", "a+b=x", "a:b=x"] {
            assert!(parse_sets(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_are_checked_before_any_step() {
        assert!(settings().check().is_ok());
        let mut s = settings();
        s.test = 1.0;
        assert!(s.check().unwrap_err().to_string().contains("--test"));
        let mut s = settings();
        s.base = "jaccard".into();
        assert!(s
            .check()
            .unwrap_err()
            .to_string()
            .contains("cannot be trained"));
        let mut s = settings();
        s.attacks.beam = Some(0);
        assert!(s.check().unwrap_err().to_string().contains("--beam"));
        let mut s = settings();
        s.seeds.clear();
        assert!(s.check().unwrap_err().to_string().contains("--seeds"));
        let mut s = settings();
        s.training.batch = 1;
        assert!(s.check().unwrap_err().to_string().contains("--batch"));
        // The search takes attack's defaults for the strategy.
        let search = settings().attacks.search(7).unwrap();
        assert_eq!(
            (search.beam, search.iterations, search.patience),
            (3, 30, Some(crate::search::DEFAULT_PATIENCE))
        );
    }

    #[test]
    fn training_sets_are_named_sets_or_custom_and_default_to_every_set() {
        let sets = parse_sets(&[]).unwrap();
        let all = parse_training_sets(&[], None, &sets).unwrap();
        assert_eq!(all, sets);
        let classic = parse_training_sets(&["classic".into()], None, &sets).unwrap();
        assert_eq!(classic.keys().collect::<Vec<_>>(), ["classic"]);
        let custom = parse_training_sets(&[], Some("var-rename"), &sets).unwrap();
        assert_eq!(custom["custom"], "var-rename");
        let e = parse_training_sets(&["nope".into()], None, &sets).unwrap_err();
        assert!(e.to_string().contains("all, classic"), "{e}");
        assert!(parse_training_sets(&["all".into()], Some("x"), &sets).is_err());
    }

    #[test]
    fn a_model_is_kept_only_when_trained_the_same_way() {
        let t = training();
        let json = serde_json::json!({
            "base": "minilm", "mode": "head",
            "config": {"epochs": 4, "batch": 32, "seed": 0, "lr": 0.0010000000474974513,
                       "valid_fraction": 0.3, "decay": 0.0},
        });
        assert!(t.made(&json, "minilm", 0));
        assert!(!t.made(&json, "minilm", 1));
        assert!(!t.made(&json, "onnx:x", 0));
        let mut other = t.clone();
        other.epochs = 5;
        assert!(!other.made(&json, "minilm", 0));
        // Full training: the backend must match, unless auto (or an old report: candle).
        let mut full = json.clone();
        full["mode"] = "full".into();
        let mut asked = t.clone();
        asked.mode = Mode::Full;
        assert!(asked.made(&full, "minilm", 0));
        asked.backend = Backend::Torch;
        assert!(!asked.made(&full, "minilm", 0));
        full["config"]["backend"] = "torch".into();
        assert!(asked.made(&full, "minilm", 0));
        asked.backend = Backend::Auto;
        assert!(asked.made(&full, "minilm", 0));
        // Canonical forms: a model trained on raw programs is not one trained on their forms
        // (a report from before the setting read as raw).
        let mut canon = t.clone();
        canon.canon = true;
        assert!(!canon.made(&json, "minilm", 0));
        let mut on_forms = json.clone();
        on_forms["config"]["canon"] = true.into();
        // ... and one trained on an older canonical form (unrecorded, or another version) is
        // not one trained on today's.
        assert!(!canon.made(&on_forms, "minilm", 0));
        on_forms["config"]["canon_form"] = (crate::detector::canon::FORM_VERSION - 1).into();
        assert!(!canon.made(&on_forms, "minilm", 0));
        on_forms["config"]["canon_form"] = crate::detector::canon::FORM_VERSION.into();
        assert!(canon.made(&on_forms, "minilm", 0));
        assert!(!t.made(&on_forms, "minilm", 0));
    }

    #[test]
    fn a_step_that_did_not_finish_says_how_to_resume_with_its_status() {
        let e = RobustnessError::StepFailed {
            step: Step::Attack,
            status: ExitStatus::Interrupted,
            force_new: true,
        };
        assert_eq!(e.status(), ExitStatus::Interrupted);
        assert!(e.said_plainly());
        assert_eq!(
            e.to_string(),
            "robustness: the attack step did not finish (see above); rerun the same command \
             without --force-new to resume"
        );
        let weights: RobustnessError = TrainJobError::NoWeights {
            dir: "m".into(),
            places: vec!["a".into(), "b".into()],
        }
        .into();
        assert!(!weights.to_string().contains("--weights"), "{weights}");
        assert_eq!(weights.status(), ExitStatus::Error);
    }
}
