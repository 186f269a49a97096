//! The Auto-SPT pipeline (`equimorph autospt`) as one resumable job: design → implement →
//! select → attack with the selected set, and one report of what each stage produced and
//! cost.
//!
//! Each stage is a library job: [`DesignJob`] and [`ImplementJob`] (step 1 and 2, into
//! `designs.jsonl` and `candidates/`), [`SelectJob`] (into `selection/`, recorded with the
//! settings `select` records for the same arguments, so that either resumes the other's
//! directory) and [`AttackJob`] (Algorithm 1's beam, into `attack/`, recorded as `attack`
//! would). `autospt.json` ([`State`]) says which stages are done: a rerun skips them and
//! resumes the one in progress. A stage reads its inputs, and opens the detector and the
//! oracle, only when it runs, so a stage's counters are its own; the transform runtime is
//! made once, by the first stage that needs it. A stage that does not finish is an
//! [`AutosptError`] that says so.

use super::attack::{record_attack, AttackError, AttackJob, SearchRequest};
use super::exit::ExitStatus;
use super::interrupt::{stop_point, InterruptedBeforeStart};
use super::llm::{cost, DesignJob, DesignSettings, ImplementJob, ImplementSettings, LlmJobError};
use super::select::{Candidates, SelectError, SelectJob, SelectSettings};
use super::settings::{
    load_dataset, DetectorSettings, LoadDatasetError, OracleSettings, RunInputs, SandboxSettings,
    SettingsError,
};
use super::{Notices, Printout, Progress};
use crate::detector::DetectorError;
use crate::llm::{ImplementStatus, LlmClient, LlmStats};
use crate::report::calibration::ThresholdSpec;
use crate::run::{JobKind, RunDir, RunDirError, RunSettings};
use crate::search::{OracleOrder, SearchConfig, Strategy};
use crate::task::{LoadOptions, TaskFormat};
use crate::transform::{default_transforms_dir, LoadError, TransformRuntime, TransformSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

/// What an attack stopped before its first task has done.
const NOTHING_ATTACKED: &str = "no task was attacked";

/// Why the pipeline stopped before its report.
#[derive(Debug, Error)]
pub enum AutosptError {
    /// `--count 0` or `--samples 0`.
    #[error("--count and --samples must be at least 1")]
    ZeroCount,
    /// The output directory could not be created.
    #[error("cannot create {}", path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `autospt.json` could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `autospt.json` is not what this job writes.
    #[error("{} is not an autospt state file", path.display())]
    State {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// `autospt.json` or `autospt.md` could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The state could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Step 1 or 2 stopped with an error.
    #[error(transparent)]
    Llm(#[from] LlmJobError),
    /// Step 1 made fewer designs than asked for (the budget ran out, or the replies kept
    /// being refused).
    #[error("step 1 stopped with {made} of {count} designs (see above); rerun to continue")]
    DesignShort {
        /// Designs made.
        made: usize,
        /// Designs asked for.
        count: usize,
    },
    /// Some requests of step 2 failed.
    #[error("step 2: {0} requests failed (see above); rerun to retry them")]
    ImplementFailed(usize),
    /// No reply of step 2 held a program.
    #[error("step 2: no reply held a Python program")]
    NoProgram,
    /// The selection stopped with an error.
    #[error(transparent)]
    Select(SelectError),
    /// The selection ended without finishing (its own lines say why).
    #[error("step 3 (select) did not finish; rerun to resume it")]
    SelectUnfinished {
        /// The status `select` would have exited with.
        status: ExitStatus,
    },
    /// No candidate won, and the built-in library was not asked for.
    #[error("no candidate was selected, so there is nothing to attack with (try --with-builtin)")]
    NothingSelected,
    /// The task file holds no task with tests.
    #[error(
        "{} holds no task with tests{}",
        path.display(),
        if *untested == 0 {
            String::new()
        } else {
            format!(
                " ({untested} without: a CodeNet benchmark subset takes its tests from \
                 --codenet-root; `augment --unverified` uses tasks without tests)"
            )
        }
    )]
    NoTestedTask {
        /// The task file.
        path: PathBuf,
        /// Its tasks without tests.
        untested: usize,
    },
    /// The attack's transforms could not be loaded.
    #[error(transparent)]
    Transforms(#[from] LoadError),
    /// The attack's transform set is empty.
    #[error("no transforms selected")]
    NoTransforms,
    /// The attack stopped with an error.
    #[error(transparent)]
    Attack(AttackError),
    /// The attack ended without finishing (its own lines say why).
    #[error("step 4 (attack) failed")]
    AttackFailed {
        /// The status `attack` would have exited with.
        status: ExitStatus,
    },
    /// A task file could not be loaded.
    #[error(transparent)]
    Tasks(#[from] LoadDatasetError),
    /// The transform runtime or the oracle could not start.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The detector could not be opened.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// A stage's run directory could not be opened.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The SIGINT/SIGTERM handler could not be installed.
    #[error(transparent)]
    Signals(std::io::Error),
    /// SIGINT or SIGTERM before a stage's first task.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
}

impl AutosptError {
    /// The exit status this error calls for: 130 when a stage was interrupted (before its
    /// first task or during its tasks), else 2.
    pub fn status(&self) -> ExitStatus {
        match self {
            AutosptError::Interrupted(_)
            | AutosptError::SelectUnfinished {
                status: ExitStatus::Interrupted,
            }
            | AutosptError::AttackFailed {
                status: ExitStatus::Interrupted,
            } => ExitStatus::Interrupted,
            _ => ExitStatus::Error,
        }
    }
}

impl From<SelectError> for AutosptError {
    fn from(e: SelectError) -> Self {
        match e {
            SelectError::Interrupted(i) => AutosptError::Interrupted(i),
            e => AutosptError::Select(e),
        }
    }
}

impl From<AttackError> for AutosptError {
    fn from(e: AttackError) -> Self {
        match e {
            AttackError::Interrupted(i) => AutosptError::Interrupted(i),
            e => AutosptError::Attack(e),
        }
    }
}

/// The stages, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Step 1: designs.
    Design,
    /// Step 2: implementations.
    Implement,
    /// Step 3: best-of-N selection.
    Select,
    /// Step 4: the attack with the selected set.
    Attack,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 4] = [
        Stage::Design,
        Stage::Implement,
        Stage::Select,
        Stage::Attack,
    ];

    /// Its key in `autospt.json` and its name in the lines and the report.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Design => "1-design",
            Stage::Implement => "2-implement",
            Stage::Select => "3-select",
            Stage::Attack => "4-attack",
        }
    }
}

/// What one stage produced and cost: a line of the final report.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StageRecord {
    /// Whether the stage is done (a rerun skips it).
    pub done: bool,
    /// What it produced, in words.
    pub produced: String,
    /// Seconds it took, in the run that did it.
    pub seconds: f64,
    /// What the language model cost in it.
    pub llm: LlmStats,
}

/// `autospt.json`: the stages done so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Each stage's record, by its name.
    pub stages: BTreeMap<String, StageRecord>,
}

impl State {
    /// The state in `path` (empty when there is none).
    pub fn load(path: &Path) -> Result<State, AutosptError> {
        match std::fs::read_to_string(path) {
            Ok(t) => serde_json::from_str(&t).map_err(|source| AutosptError::State {
                path: path.to_path_buf(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(source) => Err(AutosptError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Writes the state to `path`.
    pub fn save(&self, path: &Path) -> Result<(), AutosptError> {
        write(path, serde_json::to_string_pretty(self)?)
    }

    /// Whether `stage` is done.
    pub fn done(&self, stage: Stage) -> bool {
        self.stages.get(stage.name()).is_some_and(|s| s.done)
    }
}

/// Writes `text` to `path`.
fn write(path: &Path, text: String) -> Result<(), AutosptError> {
    std::fs::write(path, text).map_err(|source| AutosptError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// What the client did between `before` and `after`.
fn delta(after: LlmStats, before: LlmStats) -> LlmStats {
    let mut d = after;
    d.requests = d.requests.saturating_sub(before.requests);
    d.retries = d.retries.saturating_sub(before.retries);
    d.cache_hits = d.cache_hits.saturating_sub(before.cache_hits);
    d.failures = d.failures.saturating_sub(before.failures);
    let (u, b) = (&mut d.usage, before.usage);
    u.prompt_tokens = u.prompt_tokens.saturating_sub(b.prompt_tokens);
    u.completion_tokens = u.completion_tokens.saturating_sub(b.completion_tokens);
    u.total_tokens = u.total_tokens.saturating_sub(b.total_tokens);
    d
}

/// `autospt.md`: one row per stage done, the totals, and where the files are (under `out`).
pub fn render(state: &State, out: &Path) -> String {
    let mut o = String::from("# equimorph Auto-SPT run\n\n");
    o.push_str(
        "| stage | produced | LLM requests (retries, cache hits) | tokens in / out | time |\n",
    );
    o.push_str("|---|---|---|---|---|\n");
    let mut total = LlmStats::default();
    let mut seconds = 0.0;
    for stage in Stage::ALL {
        let Some(s) = state.stages.get(stage.name()) else {
            continue;
        };
        o.push_str(&format!(
            "| {} | {} | {} ({}, {}) | {} / {} | {:.1} s |\n",
            stage.name(),
            s.produced.replace('|', "\\|"),
            s.llm.requests,
            s.llm.retries,
            s.llm.cache_hits,
            s.llm.usage.prompt_tokens,
            s.llm.usage.completion_tokens,
            s.seconds
        ));
        total.requests += s.llm.requests;
        total.cache_hits += s.llm.cache_hits;
        total.usage.prompt_tokens += s.llm.usage.prompt_tokens;
        total.usage.completion_tokens += s.llm.usage.completion_tokens;
        seconds += s.seconds;
    }
    o.push_str(&format!(
        "\nIn all: {} LLM requests ({} answers from the cache), {} / {} tokens, {:.1} s \
         (times are those of the run that did each stage).\n\n",
        total.requests,
        total.cache_hits,
        total.usage.prompt_tokens,
        total.usage.completion_tokens,
        seconds
    ));
    o.push_str(&format!(
        "Files: `{0}/designs.jsonl`, `{0}/candidates/`, `{0}/selection/selection.md`, \
         `{0}/attack/report.md`.\n",
        out.display()
    ));
    o
}

/// What the pipeline is asked to do.
#[derive(Debug, Clone)]
pub struct AutosptSettings {
    /// Programs to attack (and to show the model in step 1).
    pub tasks: PathBuf,
    /// Validation programs for the selection.
    pub validation: PathBuf,
    /// Format of both task files (default: guessed from each path).
    pub format: Option<TaskFormat>,
    /// K: transformations to design.
    pub count: usize,
    /// N: implementations per transformation.
    pub samples: u32,
    /// Attack with the selected transforms plus the built-in library.
    pub with_builtin: bool,
    /// Step 1 temperature.
    pub design_temperature: f32,
    /// Step 2 temperature.
    pub implement_temperature: f32,
    /// Step 1 prompt template (default: the built-in one).
    pub design_prompt: Option<PathBuf>,
    /// Step 2 prompt template (default: the built-in one).
    pub implement_prompt: Option<PathBuf>,
    /// Use at most this many validation tasks in the selection (a seeded sample).
    pub limit: Option<usize>,
    /// Only candidates with at most this share of broken or invalid outputs may win.
    pub max_broken: Option<f64>,
    /// Beam width of the attack.
    pub beam: usize,
    /// Iterations of the attack.
    pub iterations: usize,
    /// Run seed (program samples, selection and attack).
    pub seed: u64,
}

impl AutosptSettings {
    /// Checks what must hold before any stage runs.
    pub fn check(&self) -> Result<(), AutosptError> {
        if self.count == 0 || self.samples == 0 {
            return Err(AutosptError::ZeroCount);
        }
        Ok(())
    }

    /// The attack's search: Algorithm 1's beam, with `attack`'s other defaults (a width or
    /// a number of iterations of 0 is refused when the attack starts, as it always was).
    fn search(&self) -> Result<SearchConfig, SettingsError> {
        SearchRequest {
            strategy: Strategy::Beam,
            beam: Some(self.beam),
            iterations: Some(self.iterations),
            queries_per_iteration: None,
            patience: None,
            extend: None,
            apply: Default::default(),
            seed: self.seed,
            oracle_order: OracleOrder::Lazy,
            max_queries: None,
            max_oracle: None,
            time_per_task: None,
            stop_below: None,
            max_growth: None,
            window: true,
        }
        .config()
    }
}

/// An autospt output directory, created, with the stages its earlier runs did.
#[derive(Debug)]
pub struct AutosptDir {
    out: PathBuf,
    state: State,
}

impl AutosptDir {
    /// Creates `out` if needed and reads its `autospt.json`.
    pub fn open(out: &Path) -> Result<Self, AutosptError> {
        std::fs::create_dir_all(out).map_err(|source| AutosptError::Create {
            path: out.to_path_buf(),
            source,
        })?;
        let state = State::load(&out.join("autospt.json"))?;
        Ok(AutosptDir {
            out: out.to_path_buf(),
            state,
        })
    }

    /// The stages done so far.
    pub fn state(&self) -> &State {
        &self.state
    }
}

/// The pipeline, made of resolved parts.
pub struct AutosptJob<'a> {
    /// What it is asked to do.
    pub settings: &'a AutosptSettings,
    /// The language model of steps 1 and 2.
    pub client: &'a LlmClient,
    /// The detector of the selection and the attack.
    pub detector: &'a DetectorSettings,
    /// The limits transforms run under.
    pub sandbox: &'a SandboxSettings,
    /// The oracle of the selection and the attack (each starts its own, so that its counters
    /// are its own).
    pub oracle: &'a OracleSettings,
}

/// How the pipeline ended: every stage done, and its report written.
#[derive(Debug, Clone)]
pub struct AutosptOutcome {
    /// `autospt.json`'s content.
    pub state: State,
    /// `autospt.md`.
    pub report: PathBuf,
}

impl AutosptOutcome {
    /// The exit status the outcome calls for (every stage finished).
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// Where the report is.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        p.out(format!("report: {}", self.report.display()));
        p
    }
}

/// How the pipeline reports while it runs.
pub struct Reporting<'r> {
    /// The SIGINT/SIGTERM flag, taken when the selection starts: the LLM stages before it
    /// do not check it, so until then a signal stops the process at once.
    pub interrupts: &'r dyn Fn() -> std::io::Result<Arc<AtomicBool>>,
    /// Progress lines and warnings.
    pub notices: &'r dyn Notices,
    /// The selection's and the attack's progress.
    pub progress: &'r dyn Progress,
    /// Lines said as the stages go (each stage's start and end, the selection's and the
    /// attack's closing lines).
    pub say: &'r dyn Fn(&Printout),
}

/// One stdout line.
fn line(text: String) -> Printout {
    let mut p = Printout::new();
    p.out(text);
    p
}

/// The transform runtime, made the first time a stage needs it.
struct Runtime<'s> {
    settings: &'s SandboxSettings,
    made: Option<TransformRuntime>,
}

impl Runtime<'_> {
    fn get(&mut self) -> Result<&TransformRuntime, AutosptError> {
        let made = match self.made.take() {
            Some(r) => r,
            None => self.settings.runtime()?,
        };
        Ok(self.made.insert(made))
    }
}

impl AutosptJob<'_> {
    /// Runs the stages `dir` does not hold as done, saving the state after each, then writes
    /// `autospt.md`.
    pub fn run(&self, dir: AutosptDir, r: &Reporting<'_>) -> Result<AutosptOutcome, AutosptError> {
        let AutosptDir { out, mut state } = dir;
        let state_path = out.join("autospt.json");
        let mut runtime = Runtime {
            settings: self.sandbox,
            made: None,
        };
        for stage in Stage::ALL {
            let name = stage.name();
            if state.done(stage) {
                (r.say)(&line(format!(
                    "autospt: stage {name} already done, skipped"
                )));
                continue;
            }
            (r.say)(&line(format!("autospt: stage {name}")));
            let (before, start) = (self.client.stats(), Instant::now());
            let produced = match stage {
                Stage::Design => self.design(&out, r)?,
                Stage::Implement => self.implement(&out, r)?,
                Stage::Select => self.select(&out, &mut runtime, r)?,
                Stage::Attack => self.attack(&out, &mut runtime, r)?,
            };
            let record = StageRecord {
                done: true,
                produced,
                seconds: start.elapsed().as_secs_f64(),
                llm: delta(self.client.stats(), before),
            };
            (r.say)(&line(format!(
                "autospt: {name}: {} ({})",
                record.produced,
                cost(&record.llm)
            )));
            state.stages.insert(name.to_string(), record);
            state.save(&state_path)?;
        }
        let report = out.join("autospt.md");
        write(&report, render(&state, &out))?;
        Ok(AutosptOutcome { state, report })
    }

    /// Step 1, into `designs.jsonl`.
    fn design(&self, out: &Path, r: &Reporting<'_>) -> Result<String, AutosptError> {
        let s = self.settings;
        let settings = DesignSettings {
            tasks: s.tasks.clone(),
            format: s.format,
            count: s.count,
            out: out.join("designs.jsonl"),
            temperature: s.design_temperature,
            seed: s.seed,
            prompt: s.design_prompt.clone(),
        };
        let job = DesignJob {
            settings: &settings,
            client: self.client,
        };
        let outcome = job.run(r.notices)?;
        if !outcome.complete {
            return Err(AutosptError::DesignShort {
                made: outcome.designs.len(),
                count: s.count,
            });
        }
        Ok(outcome.produced())
    }

    /// Step 2, into `candidates/`.
    fn implement(&self, out: &Path, r: &Reporting<'_>) -> Result<String, AutosptError> {
        let s = self.settings;
        let settings = ImplementSettings {
            designs: out.join("designs.jsonl"),
            samples: s.samples,
            out: out.join("candidates"),
            temperature: s.implement_temperature,
            prompt: s.implement_prompt.clone(),
        };
        let job = ImplementJob {
            settings: &settings,
            client: self.client,
        };
        let outcome = job.run(r.notices)?;
        let failed = outcome.count(ImplementStatus::Error);
        if failed > 0 {
            return Err(AutosptError::ImplementFailed(failed));
        }
        let written = outcome.count(ImplementStatus::Written);
        if written == 0 {
            return Err(AutosptError::NoProgram);
        }
        Ok(format!(
            "{written} candidate scripts, {} replies not Python",
            outcome.count(ImplementStatus::NotPython)
        ))
    }

    /// Step 3: `candidates/` judged on the validation tasks, into `selection/`, as `select`
    /// would with the same arguments.
    fn select(
        &self,
        out: &Path,
        runtime: &mut Runtime<'_>,
        r: &Reporting<'_>,
    ) -> Result<String, AutosptError> {
        let s = self.settings;
        let stop = (r.interrupts)().map_err(AutosptError::Signals)?;
        let (candidates, selection) = (out.join("candidates"), out.join("selection"));
        let settings = SelectSettings {
            candidates: candidates.clone(),
            tasks_label: s.validation.display().to_string(),
            seed: s.seed,
            limit: s.limit,
            max_broken: s.max_broken,
            shard: None,
            window: true,
        };
        settings.check()?;
        let files = crate::select::discover(&candidates).map_err(SelectError::Files)?;
        let filters = LoadOptions::default();
        let mut set = load_dataset(&s.validation, s.format, "--format", &filters, r.notices)?;
        settings.sample(&mut set)?;
        let candidates = Candidates::load(files, runtime.get()?, r.notices);
        let mut run_settings = RunInputs {
            tasks: &s.validation,
            filters: &filters,
            detector: Some(self.detector),
            transforms: None,
            oracle: self.oracle,
        }
        .record()?;
        settings.record(&mut run_settings);
        let (run_dir, opened) = RunDir::open(&selection, JobKind::Select, run_settings, false)?;
        let detector = self.detector.open()?;
        let oracle = self.oracle.start(r.notices)?;
        let job = SelectJob {
            settings: &settings,
            tasks: &set,
            candidates: &candidates,
            detector: detector.as_ref(),
            oracle: &oracle,
        };
        let outcome = job.run(&run_dir, opened, &stop, r.notices, r.progress)?;
        (r.say)(&outcome.printout(&selection));
        let status = outcome.status();
        if status != ExitStatus::Ok {
            return Err(AutosptError::SelectUnfinished { status });
        }
        let winners: Vec<String> = outcome
            .scores
            .iter()
            .filter(|c| c.selected)
            .map(|c| format!("{}/{} (R = {:.4})", c.group, c.file, c.reward))
            .collect();
        Ok(format!(
            "{} candidates judged, {} selected: {}",
            outcome.scores.len(),
            winners.len(),
            winners.join(", ")
        ))
    }

    /// Step 4: the tasks attacked with the winners (and the built-in library with
    /// `with_builtin`), into `attack/`, as `attack --search beam` would.
    fn attack(
        &self,
        out: &Path,
        runtime: &mut Runtime<'_>,
        r: &Reporting<'_>,
    ) -> Result<String, AutosptError> {
        let s = self.settings;
        let selected = out.join("selection").join("selected");
        let has_winner = std::fs::read_dir(&selected)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        let mut spec = Vec::new();
        if has_winner {
            spec.push(selected.display().to_string());
        }
        if s.with_builtin {
            spec.push(default_transforms_dir().display().to_string());
        }
        if spec.is_empty() {
            return Err(AutosptError::NothingSelected);
        }
        let stop = (r.interrupts)().map_err(AutosptError::Signals)?;
        let search = s.search()?;
        let filters = LoadOptions::default();
        let set = load_dataset(&s.tasks, s.format, "--format", &filters, r.notices)?;
        if set.tasks.is_empty() {
            return Err(AutosptError::NoTestedTask {
                path: s.tasks.clone(),
                untested: set.untested.len(),
            });
        }
        let spec = spec.join(",");
        let transforms = TransformSet::load_spec(runtime.get()?, &spec, &default_transforms_dir())?;
        if transforms.is_empty() {
            return Err(AutosptError::NoTransforms);
        }
        stop_point(&stop, "loading the transforms", NOTHING_ATTACKED)?;
        let threshold = ThresholdSpec::Auto { rate: 0.95 };
        let run_settings = self.attack_settings(&filters, &transforms, &search, threshold)?;
        let dir = out.join("attack");
        let (run_dir, opened) = RunDir::open(&dir, JobKind::Attack, run_settings, false)?;
        let detector = self.detector.open()?;
        let oracle = self.oracle.start(r.notices)?;
        stop_point(&stop, "starting the sandbox", NOTHING_ATTACKED)?;
        let job = AttackJob {
            scorer: None,
            tasks: &set,
            tasks_label: s.tasks.display().to_string(),
            transforms: &transforms,
            detector: detector.as_ref(),
            oracle: &oracle,
            symbolic: None,
            symbolic_rounds: 2,
            search,
            threshold,
            shard: None,
            keep_verified: false,
            tasks_in_flight: None,
            reference_clones: None,
        };
        let outcome = job.run(&run_dir, opened, &stop, r.notices, r.progress)?;
        (r.say)(&outcome.printout(&run_dir));
        let status = outcome.status();
        if status != ExitStatus::Ok {
            return Err(AutosptError::AttackFailed { status });
        }
        let summary = &outcome.summary;
        Ok(format!(
            "{} tasks attacked with {} transforms: worst-case distance L = {:.4} ± {:.4}",
            summary.attacked,
            summary.run.transforms.len(),
            summary.mean_distance,
            summary.std_distance
        ))
    }

    /// The attack's run settings: those `attack` records for the same run.
    fn attack_settings(
        &self,
        filters: &LoadOptions,
        transforms: &TransformSet,
        search: &SearchConfig,
        threshold: ThresholdSpec,
    ) -> Result<RunSettings, AutosptError> {
        let mut settings = RunInputs {
            tasks: &self.settings.tasks,
            filters,
            detector: Some(self.detector),
            transforms: Some(transforms),
            oracle: self.oracle,
        }
        .record()?;
        record_attack(&mut settings, search, threshold, false, None);
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_lists_the_stages_done_and_their_totals() {
        let mut state = State::default();
        let mut llm = LlmStats {
            requests: 8,
            retries: 3,
            cache_hits: 1,
            ..LlmStats::default()
        };
        llm.usage.prompt_tokens = 100;
        llm.usage.completion_tokens = 20;
        state.stages.insert(
            "1-design".into(),
            StageRecord {
                done: true,
                produced: "2 designs: a|b".into(),
                seconds: 1.5,
                llm,
            },
        );
        assert!(state.done(Stage::Design) && !state.done(Stage::Attack));
        let md = render(&state, Path::new("run"));
        assert!(
            md.contains("| 1-design | 2 designs: a\\|b | 8 (3, 1) | 100 / 20 | 1.5 s |"),
            "{md}"
        );
        assert!(
            md.contains("In all: 8 LLM requests (1 answers from the cache)"),
            "{md}"
        );
        assert!(md.contains("`run/designs.jsonl`"), "{md}");
        assert_eq!(delta(llm, llm), LlmStats::default());
    }

    #[test]
    fn a_state_file_round_trips_and_a_damaged_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("autospt.json");
        assert!(State::load(&path).unwrap().stages.is_empty());
        let mut state = State::default();
        state
            .stages
            .insert("3-select".into(), StageRecord::default());
        state.save(&path).unwrap();
        assert_eq!(State::load(&path).unwrap().stages.len(), 1);
        std::fs::write(&path, "{").unwrap();
        let e = State::load(&path).unwrap_err().to_string();
        assert!(
            e.ends_with("autospt.json is not an autospt state file"),
            "{e}"
        );
    }
}
