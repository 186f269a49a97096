//! The select job (`equimorph select`, and step 3 of `autospt`): best-of-N selection among
//! candidate implementations of SPTs, from resolved parts to a typed [`SelectOutcome`] from
//! which the exit status follows. The command line parses arguments, loads the tasks, opens the
//! detector, the oracle and the [`RunDir`], calls [`SelectJob::run`] and prints the outcome;
//! `merge` of select shards is [`merge`].
//!
//! In order: the settings checked ([`SelectSettings::check`]), the candidates found and loaded
//! ([`Candidates::load`], a candidate that does not load is a warning and an error of each of
//! its evaluations), the `--limit` sample ([`SelectSettings::sample`]); then, in the run
//! directory, the run record with the tasks it must finish, `pairs.jsonl` resumed by
//! (candidate, task) key, the pipeline over the tasks (interrupts, a task's panic as its
//! error), `state.json` (which tasks were used, left out, finished), the aggregate and
//! `selection.json`, `.md`, `.html` and `selected/`.

use super::exit::ExitStatus;
use super::interrupt::{stop_point, InterruptedBeforeStart};
use super::{Notices, Printout, Progress};
use crate::adequacy::SetAdequacy;
use crate::detector::Detector;
use crate::oracle::Oracle;
use crate::pipeline::{Pipeline, RunEnd, Sink, TaskOutcome};
use crate::report::results::{read_jsonl, write_jsonl, DroppedDuplicate, ResultsError};
use crate::report::shard::Shard;
use crate::run::{digest_setting, Opened, RunDir, RunDirError, RunSettings};
use crate::select::{
    aggregate, dedup, discover, done_keys, write_selected, CandidateFile, CandidateScore,
    Contender, Contest, Outcome, PairLog, PairRecord, SelectionInfo,
};
use crate::task::{LoadReport, Task, TaskSet};
use crate::transform::{LoadedTransform, TransformRuntime};
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use thiserror::Error;

/// The evaluations log of a select run.
const PAIRS: &str = "pairs.jsonl";
/// Which tasks a select run used, left out and finished.
const STATE: &str = "state.json";

/// Why a selection stopped with an error (a task's own failure is never one: it is reported
/// in the outcome, and a rerun retries it).
#[derive(Debug, Error)]
pub enum SelectError {
    /// `--max-broken` outside [0, 1].
    #[error("--max-broken must lie in [0, 1]")]
    MaxBroken,
    /// `--limit 0`.
    #[error("--limit must be at least 1")]
    ZeroLimit,
    /// The task file holds no task.
    #[error("{0} holds no task")]
    NoTask(String),
    /// The candidates directory, the log or `selected/` could not be read or written.
    #[error(transparent)]
    Files(#[from] crate::select::SelectError),
    /// The run directory could not be written.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A shard's log could not be read, or the merged one written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// SIGINT or SIGTERM before the first task.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A shard's `run.json` or `state.json` is not what a select run writes.
    #[error("{path}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The directories given to `merge` are not shards of one run.
    #[error("not shards of one run: {0}")]
    NotShards(String),
    /// `merge` was given no directory.
    #[error("no shard directory given")]
    NoShards,
}

/// What a selection is asked to do, as resolved from the command line.
#[derive(Debug, Clone)]
pub struct SelectSettings {
    /// The candidates directory: one subdirectory per SPT.
    pub candidates: PathBuf,
    /// The task file as the user named it (recorded in `run.json` and the reports).
    pub tasks_label: String,
    /// Run seed: every candidate is applied to a task with the same seed, derived from it.
    pub seed: u64,
    /// Use at most this many tasks (a sample drawn with the seed, kept in file order).
    pub limit: Option<usize>,
    /// The largest share of broken or invalid outputs a winner may have.
    pub max_broken: Option<f64>,
    /// The shard this run covers.
    pub shard: Option<Shard>,
    /// Outputs longer than the detector's window are not scored.
    pub window: bool,
}

impl SelectSettings {
    /// Checks the settings' ranges.
    pub fn check(&self) -> Result<(), SelectError> {
        if self.max_broken.is_some_and(|m| !(0.0..=1.0).contains(&m)) {
            return Err(SelectError::MaxBroken);
        }
        Ok(())
    }

    /// Keeps a `--limit` sample of `set`'s tasks (drawn with the seed, in file order); fails
    /// when no task is left.
    pub fn sample(&self, set: &mut TaskSet) -> Result<(), SelectError> {
        if let Some(limit) = self.limit {
            if limit == 0 {
                return Err(SelectError::ZeroLimit);
            }
            if set.tasks.len() > limit {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
                let indices: Vec<usize> = (0..set.tasks.len()).collect();
                let keep: HashSet<usize> =
                    indices.choose_multiple(&mut rng, limit).copied().collect();
                set.tasks = std::mem::take(&mut set.tasks)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| keep.contains(i))
                    .map(|(_, t)| t)
                    .collect();
            }
        }
        if set.tasks.is_empty() {
            return Err(SelectError::NoTask(self.tasks_label.clone()));
        }
        Ok(())
    }

    /// Records the selection's own settings in the run's (the command adds the tasks,
    /// detector and oracle).
    pub fn record(&self, settings: &mut RunSettings) {
        settings
            .set("candidates", self.candidates.display())
            .set("candidates digest", digest_setting(&self.candidates))
            .set("seed", self.seed)
            .set_opt("limit", self.limit)
            .set_opt("max broken", self.max_broken)
            .set("window", self.window)
            .set_opt("shard", self.shard);
    }
}

/// The candidates of a selection and their loaded transforms.
pub struct Candidates {
    /// Every candidate file, by group and file name.
    pub files: Vec<CandidateFile>,
    /// Each file's transform, or why it did not load.
    pub loaded: Vec<Result<LoadedTransform, String>>,
}

impl Candidates {
    /// Loads every candidate (in parallel); each one that does not load is a warning.
    pub fn load(
        files: Vec<CandidateFile>,
        runtime: &TransformRuntime,
        notices: &dyn Notices,
    ) -> Self {
        let loaded: Vec<Result<LoadedTransform, String>> = files
            .par_iter()
            .map(|c| runtime.load(&c.path).map_err(|e| e.to_string()))
            .collect();
        for (c, l) in files.iter().zip(&loaded) {
            if let Err(e) = l {
                notices.warn(&format!(
                    "candidate {}/{} does not load: {e}",
                    c.group, c.file
                ));
            }
        }
        Candidates { files, loaded }
    }

    /// (group, file, transform name) of every candidate that loads.
    pub fn names(&self) -> Vec<(String, String, String)> {
        self.files
            .iter()
            .zip(&self.loaded)
            .filter_map(|(c, l)| {
                let t = l.as_ref().ok()?;
                Some((c.group.clone(), c.file.clone(), t.name.clone()))
            })
            .collect()
    }

    fn contenders(&self) -> Vec<Contender<'_>> {
        self.files
            .iter()
            .zip(&self.loaded)
            .map(|(c, l)| Contender {
                candidate: c,
                transform: l.as_ref().map_err(Clone::clone),
            })
            .collect()
    }
}

/// `run.json` of a select run: its settings (and the candidates' transform names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectRun {
    /// Always "select".
    pub kind: String,
    /// The candidates directory.
    pub candidates: String,
    /// The task file.
    pub tasks: String,
    /// Run seed.
    pub seed: u64,
    /// --limit.
    pub limit: Option<usize>,
    /// --max-broken.
    pub max_broken: Option<f64>,
    /// The detector.
    pub detector: String,
    /// (group, file, transform name) of every candidate that loads.
    pub names: Vec<(String, String, String)>,
    /// `I/N` of a shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Distinct tasks the run must finish (its sample's, in its shard; a merge sums them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_tasks: Option<usize>,
    /// What the task loader kept and skipped, by reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<LoadReport>,
    /// How strong the tasks' tests are: counts, and recorded mutation scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adequacy: Option<SetAdequacy>,
}

/// `state.json`: how far a select run has come, the tasks it used and those it left out
/// (original not ok). Written whole at the end of every invocation, for every task reached
/// so far (a rerun's verdict on a task replaces the earlier one).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SelectState {
    /// Whether every planned task is finished (`None`: the plan is unknown).
    #[serde(default)]
    complete: Option<bool>,
    /// Planned tasks not finished yet (`None`: the plan is unknown).
    #[serde(default)]
    pending: Option<usize>,
    /// Distinct tasks the run must finish.
    #[serde(default)]
    planned_tasks: Option<usize>,
    /// Tasks evaluated (their original is ok), in task order.
    used: Vec<String>,
    /// Tasks left out (their original is not ok), with why.
    excluded: Vec<(String, String)>,
    /// Used tasks with evaluations that were not stored (the sandbox failed on a check, or the
    /// log could not be written): not finished, a rerun judges them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unfinished: Vec<String>,
}

impl SelectState {
    /// Distinct tasks finished: used and stored whole, or left out.
    fn finished(&self) -> usize {
        let unfinished: HashSet<&str> = self.unfinished.iter().map(String::as_str).collect();
        let used = self
            .used
            .iter()
            .filter(|id| !unfinished.contains(id.as_str()));
        let excluded = self.excluded.iter().map(|(id, _)| id);
        used.chain(excluded).collect::<HashSet<_>>().len()
    }

    /// Sets the plan and the completeness it gives; returns the progress.
    fn plan(&mut self, planned: Option<usize>) -> crate::run::Progress {
        let progress = crate::run::Progress {
            planned,
            finished: self.finished(),
        };
        self.planned_tasks = planned;
        self.complete = progress.complete();
        self.pending = progress.pending();
        progress
    }

    /// Each task's verdict, by id.
    fn verdicts(&self) -> HashMap<String, Verdict> {
        let unfinished: HashSet<&str> = self.unfinished.iter().map(String::as_str).collect();
        let mut v: HashMap<String, Verdict> = self
            .used
            .iter()
            .map(|id| {
                let stored = !unfinished.contains(id.as_str());
                (id.clone(), Verdict::Used { stored })
            })
            .collect();
        for (id, why) in &self.excluded {
            v.insert(id.clone(), Verdict::Excluded(why.clone()));
        }
        v
    }

    /// The state of `tasks` (in their order) by `now`'s verdicts, else `before`'s.
    fn of(
        tasks: &[&Task],
        now: &HashMap<String, Verdict>,
        before: &HashMap<String, Verdict>,
    ) -> Self {
        let mut state = SelectState::default();
        let mut seen = HashSet::new();
        for t in tasks.iter().filter(|t| seen.insert(t.id.as_str())) {
            match now.get(&t.id).or_else(|| before.get(&t.id)) {
                Some(Verdict::Used { stored }) => {
                    state.used.push(t.id.clone());
                    if !stored {
                        state.unfinished.push(t.id.clone());
                    }
                }
                Some(Verdict::Excluded(why)) => state.excluded.push((t.id.clone(), why.clone())),
                Some(Verdict::Failed) | None => {}
            }
        }
        state
    }
}

/// What became of a task.
#[derive(Debug, Clone)]
enum Verdict {
    /// Evaluated; `stored` when every lasting evaluation reached the log.
    Used {
        /// Whether nothing of it is left to judge again.
        stored: bool,
    },
    /// Left out: its original is not ok.
    Excluded(String),
    /// Its evaluation failed: a rerun retries it.
    Failed,
}

/// A selection made of resolved parts.
pub struct SelectJob<'a> {
    /// What the selection is asked to do.
    pub settings: &'a SelectSettings,
    /// The validation tasks (the `--limit` sample).
    pub tasks: &'a TaskSet,
    /// The candidates.
    pub candidates: &'a Candidates,
    /// Scores correct outputs.
    pub detector: &'a dyn Detector,
    /// Judges outputs.
    pub oracle: &'a Oracle,
}

/// How a selection ended.
#[derive(Debug)]
pub struct SelectOutcome {
    /// Whether any task was evaluated (when not, and the run was not interrupted, nothing
    /// was written but the run record and the log).
    pub evaluated: bool,
    /// One score per candidate (winners marked).
    pub scores: Vec<CandidateScore>,
    /// Candidate files.
    pub candidates: usize,
    /// Groups (SPTs).
    pub groups: usize,
    /// Validation tasks used.
    pub used: usize,
    /// Tasks left out (their original is not ok), with why.
    pub excluded: Vec<(String, String)>,
    /// The winners written into `selected/`.
    pub selected: Vec<PathBuf>,
    /// How far the run has come.
    pub progress: crate::run::Progress,
    /// How the pipeline ended (interrupted, broken sandbox).
    pub end: RunEnd,
    /// Evaluations of this invocation that had no verdict because the sandbox failed.
    pub faulted: usize,
    /// Tasks this invocation could not evaluate, with why.
    pub failures: Vec<(String, String)>,
    /// Log lines dropped because their (candidate, task) key already had one (each was a
    /// warning when the log was opened).
    pub dropped: Vec<DroppedDuplicate>,
}

impl SelectOutcome {
    /// The exit status the outcome calls for.
    pub fn status(&self) -> ExitStatus {
        if !self.evaluated && !self.end.interrupted {
            ExitStatus::Negative
        } else if self.end.interrupted {
            ExitStatus::Interrupted
        } else if self.end.broken.is_some() || self.faulted > 0 {
            ExitStatus::Error
        } else if !self.failures.is_empty() {
            ExitStatus::Negative
        } else {
            ExitStatus::Ok
        }
    }

    /// What the selection tells its user at the end: the table of candidates, where the
    /// winners and reports are (in `out`), and why it stopped.
    pub fn printout(&self, out: &Path) -> Printout {
        let mut p = Printout::new();
        if !self.evaluated && !self.end.interrupted {
            p.err(format!(
                "error: nothing was evaluated: no validation task has a working original: {:?}",
                self.excluded
            ));
            return p;
        }
        p.extend(summary_lines(
            self.candidates,
            self.groups,
            &self.scores,
            self.used,
        ));
        if !self.excluded.is_empty() {
            p.out(format!(
                "{} task(s) not used: their original is not ok (see selection.md)",
                self.excluded.len()
            ));
        }
        p.out(format!(
            "selected: {} winner(s) in {}",
            self.selected.len(),
            out.join("selected").display()
        ));
        p.out(format!("report: {}", out.join("selection.md").display()));
        p.out(format!("        {}", out.join("selection.html").display()));
        if let Some(notice) = self.progress.incomplete_notice() {
            p.err(notice);
        }
        self.stop_lines(&mut p);
        p
    }

    /// Why the run stopped short, if it did.
    fn stop_lines(&self, p: &mut Printout) {
        if self.end.interrupted {
            p.err(
                "interrupted: the tables cover the evaluations finished so far; rerun the same \
                 command to resume",
            );
            return;
        }
        if self.end.broken.is_some() || self.faulted > 0 {
            p.err(format!(
                "error: {} evaluation(s) had no verdict because the sandbox failed{}; they \
                 were not stored: rerun the same command to judge them",
                self.faulted,
                if self.end.broken.is_some() {
                    " (it failed on every recent check, so the run stopped early)"
                } else {
                    ""
                }
            ));
            return;
        }
        if !self.failures.is_empty() {
            for (id, why) in &self.failures {
                p.err(format!("error: task {id}: {why}"));
            }
            p.err(format!(
                "{} task(s) could not be evaluated; rerun the same command to retry them",
                self.failures.len()
            ));
        }
    }
}

impl SelectJob<'_> {
    /// Runs the selection into `run_dir` (opened as `opened`), stopping at the next task once
    /// `stop` is set.
    pub fn run(
        &self,
        run_dir: &RunDir,
        opened: Opened,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
    ) -> Result<SelectOutcome, SelectError> {
        let s = self.settings;
        let record = self.record();
        run_dir.write_run_json(&record)?;
        let (mut log, mut records, dropped) = PairLog::open(&run_dir.join(PAIRS))?;
        for d in &dropped {
            notices.warn(&format!(
                "{PAIRS} line {}: candidate {} already has a record (line {}); the duplicate \
                 was dropped",
                d.line, d.key, d.first
            ));
        }
        let before = earlier_verdicts(run_dir, opened);
        let todo: Vec<&Task> = self
            .tasks
            .tasks
            .iter()
            .filter(|t| s.shard.is_none_or(|sh| sh.owns(&t.id)))
            .collect();
        let contest = Contest {
            contenders: self.candidates.contenders(),
            done: done_keys(&records),
            detector: self.detector,
            oracle: self.oracle,
            seed: s.seed,
            window: s.window,
        };
        stop_point(stop, "loading the candidates", "no task was evaluated")?;
        progress.start(todo.len() as u64);
        let mut sink = SelectSink {
            log: &mut log,
            records: Vec::new(),
            verdicts: HashMap::new(),
            failures: Vec::new(),
            progress,
        };
        let end = Pipeline::new(self.oracle, Some(stop))
            .run(&todo, &contest, &mut sink)
            .unwrap_or_else(|never| match never {});
        progress.finish();
        let SelectSink {
            records: now,
            verdicts,
            failures,
            ..
        } = sink;
        // Checks the sandbox failed have no verdict: they are not stored, and the run is not done.
        let faulted = now
            .iter()
            .filter(|r| matches!(&r.outcome, Outcome::Error { kind, .. } if kind == "oracle"))
            .count();
        records.extend(now);
        let mut state = SelectState::of(&todo, &verdicts, &before);
        let progress = state.plan(record.planned_tasks);
        let mut outcome = SelectOutcome {
            evaluated: !state.used.is_empty(),
            scores: Vec::new(),
            candidates: self.candidates.files.len(),
            groups: groups(&self.candidates.files),
            used: state.used.len(),
            excluded: state.excluded.clone(),
            selected: Vec::new(),
            progress,
            end,
            faulted,
            failures,
            dropped,
        };
        if !outcome.evaluated && !outcome.end.interrupted {
            return Ok(outcome);
        }
        write_json(&run_dir.join(STATE), &state)?;
        let (scores, selected) = write_outputs(
            run_dir.path(),
            &record,
            &self.candidates.files,
            &records,
            state,
            progress,
        )?;
        outcome.scores = scores;
        outcome.selected = selected;
        Ok(outcome)
    }

    /// The run's record (`run.json`).
    fn record(&self) -> SelectRun {
        let s = self.settings;
        SelectRun {
            kind: "select".into(),
            candidates: s.candidates.display().to_string(),
            tasks: s.tasks_label.clone(),
            seed: s.seed,
            limit: s.limit,
            max_broken: s.max_broken,
            detector: self.detector.name().to_string(),
            names: self.candidates.names(),
            shard: s.shard.map(|s| s.to_string()),
            planned_tasks: Some(super::planned_tasks(&self.tasks.tasks, s.shard)),
            dataset: Some(self.tasks.report()),
            adequacy: Some(SetAdequacy::of(&self.tasks.tasks)),
        }
    }
}

/// The verdicts of earlier invocations on a resumed run (`state.json`), for the tasks this one
/// does not reach.
fn earlier_verdicts(run_dir: &RunDir, opened: Opened) -> HashMap<String, Verdict> {
    match opened {
        Opened::Resumed => std::fs::read_to_string(run_dir.join(STATE))
            .ok()
            .and_then(|t| serde_json::from_str::<SelectState>(&t).ok())
            .map(|s| s.verdicts())
            .unwrap_or_default(),
        Opened::Fresh | Opened::Replaced => HashMap::new(),
    }
}

/// How many groups `candidates` fall in.
fn groups(candidates: &[CandidateFile]) -> usize {
    candidates
        .iter()
        .map(|c| c.group.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

/// Writes `value` as pretty JSON.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), SelectError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| SelectError::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    std::fs::write(path, text).map_err(|source| SelectError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Aggregates `records` over the used tasks and writes selection.json, .md, .html and
/// selected/ into `out`: the scores and the winners written.
fn write_outputs(
    out: &Path,
    run: &SelectRun,
    candidates: &[CandidateFile],
    records: &[PairRecord],
    state: SelectState,
    progress: crate::run::Progress,
) -> Result<(Vec<CandidateScore>, Vec<PathBuf>), SelectError> {
    let names: BTreeMap<(String, String), String> = run
        .names
        .iter()
        .map(|(g, f, n)| ((g.clone(), f.clone()), n.clone()))
        .collect();
    let scores = aggregate(candidates, &names, records, &state.used, run.max_broken);
    let info = SelectionInfo {
        detector: run.detector.clone(),
        tasks_path: run.tasks.clone(),
        seed: run.seed,
        excluded: state.excluded,
        max_broken: run.max_broken,
        adequacy: run.adequacy.clone(),
        progress,
    };
    let write = |name: &str, text: String| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|source| SelectError::Write { path, source })
    };
    write_json(&out.join("selection.json"), &scores)?;
    write("selection.md", crate::select::markdown(&scores, &info))?;
    write("selection.html", crate::select::html(&scores, &info))?;
    let written = write_selected(&out.join("selected"), candidates, &scores)?;
    Ok((scores, written))
}

/// The table of candidates: counts, then one row per candidate.
fn summary_lines(
    candidates: usize,
    groups: usize,
    scores: &[CandidateScore],
    n: usize,
) -> Printout {
    let mut p = Printout::new();
    let plural = |k: usize, word: &str| format!("{k} {word}{}", if k == 1 { "" } else { "s" });
    p.out(format!(
        "{} in {}, {}",
        plural(candidates, "candidate"),
        plural(groups, "group"),
        plural(n, "validation task")
    ));
    p.out(format!(
        "{:<24} {:<20} {:>8} {:>10} {:>7} {:>7} {:>7} {:>8}",
        "GROUP", "CANDIDATE", "CORRECT", "APPLICABLE", "BROKEN", "INVALID", "ERRORS", "REWARD"
    ));
    for s in scores {
        p.out(format!(
            "{:<24} {:<20} {:>8} {:>10} {:>7} {:>7} {:>7} {:>8.4}{}",
            s.group,
            s.file,
            s.correct,
            s.applicable,
            s.broken,
            s.invalid,
            s.errors.values().sum::<usize>(),
            s.reward,
            if s.selected { "  <- selected" } else { "" }
        ));
    }
    p
}

/// A merge of select shard directories: one selection over all their tasks.
#[derive(Debug)]
pub struct MergedSelection {
    /// The merged run's record (the command writes it as `run.json`, with the settings).
    pub run: SelectRun,
    /// Shard directories merged.
    pub shards: usize,
    /// One score per candidate (winners marked).
    pub scores: Vec<CandidateScore>,
    /// Candidate files.
    pub candidates: usize,
    /// Groups (SPTs).
    pub groups: usize,
    /// Validation tasks used.
    pub used: usize,
    /// The winners written into `selected/`.
    pub selected: Vec<PathBuf>,
    /// How far the merged run has come.
    pub progress: crate::run::Progress,
}

impl MergedSelection {
    /// What the merge tells its user: the table of candidates and where the winners are.
    pub fn printout(&self, out: &Path) -> Printout {
        let mut p = summary_lines(self.candidates, self.groups, &self.scores, self.used);
        p.out(format!(
            "merged {} shard(s); selected: {} winner(s) in {}",
            self.shards,
            self.selected.len(),
            out.join("selected").display()
        ));
        if let Some(notice) = self.progress.incomplete_notice() {
            p.err(notice);
        }
        p
    }
}

/// Reads `name` in `dir` as JSON.
fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<T, SelectError> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).map_err(|source| SelectError::Read {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| SelectError::Json {
        path,
        message: e.to_string(),
    })
}

/// Merges select shard directories into `out`: `pairs.jsonl`, `state.json` and the selection
/// (the caller writes `run.json` from the returned record). The shards must share their
/// settings and hold disjoint tasks; their planned tasks are summed.
pub fn merge(
    out: &Path,
    dirs: &[&Path],
    notices: &dyn Notices,
) -> Result<MergedSelection, SelectError> {
    let mut run: Option<SelectRun> = None;
    let mut planned = Some(0usize);
    let mut state = SelectState::default();
    let mut records = Vec::new();
    for dir in dirs {
        let mut this: SelectRun = read_json(dir, "run.json")?;
        this.shard = None;
        planned = planned.zip(this.planned_tasks.take()).map(|(a, b)| a + b);
        match &run {
            Some(r) if *r != this => {
                return Err(SelectError::NotShards(format!(
                    "{} was run with other settings",
                    dir.display()
                )))
            }
            Some(_) => {}
            None => run = Some(this),
        }
        let s: SelectState = read_json(dir, STATE)?;
        if let Some(id) = s.used.iter().find(|id| state.used.contains(id)) {
            return Err(SelectError::NotShards(format!(
                "task {id} is in two of them"
            )));
        }
        state.used.extend(s.used);
        state.excluded.extend(s.excluded);
        state.unfinished.extend(s.unfinished);
        records.extend(read_jsonl::<PairRecord>(&dir.join(PAIRS))?);
    }
    let mut run = run.ok_or(SelectError::NoShards)?;
    run.planned_tasks = planned;
    let order = task_order(Path::new(&run.tasks), notices);
    let rank = |id: &str| order.get(id).copied().unwrap_or(usize::MAX);
    state.used.sort_by_key(|id| rank(id));
    state.excluded.sort_by_key(|(id, _)| rank(id));
    state.unfinished.sort_by_key(|id| rank(id));
    let mut records = dedup(records);
    records.sort_by_key(|r| rank(&r.task));
    write_jsonl(&out.join(PAIRS), &records)?;
    let progress = state.plan(planned);
    write_json(&out.join(STATE), &state)?;
    let candidates = discover(Path::new(&run.candidates))?;
    let used = state.used.len();
    let (scores, selected) = write_outputs(out, &run, &candidates, &records, state, progress)?;
    Ok(MergedSelection {
        run,
        shards: dirs.len(),
        scores,
        candidates: candidates.len(),
        groups: groups(&candidates),
        used,
        selected,
        progress,
    })
}

/// Each task id's place in the task file, so merged files read like an unsharded run's
/// (empty when the file cannot be read: the merge then keeps the shards' order).
fn task_order(path: &Path, notices: &dyn Notices) -> BTreeMap<String, usize> {
    let options = Default::default();
    let Ok(set) = super::settings::load_dataset(path, None, "--format", &options, notices) else {
        return BTreeMap::new();
    };
    set.tasks
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t.id, i))
        .collect()
}

/// Appends each task's lasting evaluations to the log and keeps each task's verdict.
struct SelectSink<'a> {
    log: &'a mut PairLog,
    records: Vec<PairRecord>,
    verdicts: HashMap<String, Verdict>,
    failures: Vec<(String, String)>,
    progress: &'a dyn Progress,
}

impl Sink<Vec<PairRecord>> for SelectSink<'_> {
    type Error = std::convert::Infallible;

    fn finished(
        &mut self,
        task: &Task,
        outcome: TaskOutcome<Vec<PairRecord>>,
    ) -> Result<(), Self::Error> {
        self.progress.advance("evaluating candidates");
        let verdict = match outcome {
            TaskOutcome::Done(recs) => {
                // A candidate that did not load, or whose check the sandbox failed, is judged
                // again next run.
                let lasting: Vec<_> = recs.iter().filter(|r| !r.is_transient()).cloned().collect();
                let mut stored = !recs
                    .iter()
                    .any(|r| matches!(&r.outcome, Outcome::Error { kind, .. } if kind == "oracle"));
                if let Err(e) = self.log.append(&lasting) {
                    self.failures.push((task.id.clone(), e.to_string()));
                    stored = false;
                }
                self.records.extend(recs);
                Verdict::Used { stored }
            }
            TaskOutcome::Skipped(why) | TaskOutcome::Unverifiable(why) => Verdict::Excluded(why),
            TaskOutcome::Failed(why) => {
                self.failures.push((task.id.clone(), why));
                Verdict::Failed
            }
        };
        self.verdicts.insert(task.id.clone(), verdict);
        Ok(())
    }
}
