//! The attack job (`equimorph attack`, and the attacks `robustness` and `autospt` run): from
//! resolved parts (tasks, transforms, detector, oracle, search settings) to a typed
//! [`AttackOutcome`] from which the exit status follows. The command line parses arguments,
//! opens the parts and the [`RunDir`], calls [`AttackJob::run`] and prints the outcome.
//!
//! In order: the run's threshold (the one recorded when resuming, else fixed or calibrated
//! with the one non-clone rule), the reference clones' scores, the results log resumed by
//! task id, the run record with the tasks it must finish, the pipeline over the tasks left
//! (interrupts, a task's panic as its error), the counters, the summary and both reports.

use super::exit::ExitStatus;
use super::interrupt::{stop_point, InterruptedBeforeStart};
use super::{Notices, Printout, Progress};
use crate::adequacy::symbolic::{Gated, SymbolicChecker, SymbolicGate};
use crate::detector::{Detector, DetectorStats};
use crate::oracle::{Oracle, OracleStats, ValidationStatus};
use crate::pipeline::{Pipeline, RunEnd, Sink, TaskOutcome};
use crate::program::Candidate;
use crate::report::calibration::{CalibrationProgram, Threshold, ThresholdSpec};
use crate::report::results::{
    read_jsonl, write_jsonl, AppendLog, DroppedDuplicate, ResultsError, ResultsWriter, VerifiedLine,
};
use crate::report::shard::Shard;
use crate::report::summary::{RunInfo, Summary};
use crate::report::{reference, ResultLine, Status};
use crate::run::{Opened, RunDir, RunDirError};
use crate::search::{SearchConfig, SearchResult, Searcher, TransformErrors};
use crate::task::{Task, TaskSet};
use crate::transform::TransformSet;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use thiserror::Error;

/// What an attack stopped before its first task has done.
const NOTHING_ATTACKED: &str = "no task was attacked";

/// Why an attack stopped with an error (a task's own failure is never one: it is that task's
/// result line).
#[derive(Debug, Error)]
pub enum AttackError {
    /// The run directory could not be read or written.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A log could not be read or written before the tasks started.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A result could not be written: the run stops, what was written stays.
    #[error(
        "{source}\nthe {written} result(s) written before this one are intact; make room (or \
         choose another --out) and rerun the same command to resume"
    )]
    Write {
        /// Why.
        source: ResultsError,
        /// Result lines in the log before this one.
        written: usize,
    },
    /// SIGINT or SIGTERM before the first task.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
    /// `--reference-clones` could not be loaded or scored.
    #[error("--reference-clones {path}: {message}")]
    Reference {
        /// The benchmark given.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// An attack made of resolved parts.
pub struct AttackJob<'a> {
    /// The tasks (those with tests).
    pub tasks: &'a TaskSet,
    /// The task file as the user named it (recorded in `run.json`).
    pub tasks_label: String,
    /// The transforms searched.
    pub transforms: &'a TransformSet,
    /// The detector attacked.
    pub detector: &'a dyn Detector,
    /// A cheaper scorer that ranks candidates for the detector (`--scorer`; see
    /// [`Searcher::with_scorer`]).
    pub scorer: Option<&'a dyn Detector>,
    /// The equivalence oracle.
    pub oracle: &'a Oracle,
    /// The symbolic check of winners (`--verify symbolic`), if asked for.
    pub symbolic: Option<&'a SymbolicChecker>,
    /// How many times a task's search is redone when its winner is rejected symbolically.
    pub symbolic_rounds: usize,
    /// The search.
    pub search: SearchConfig,
    /// How success is decided.
    pub threshold: ThresholdSpec,
    /// The shard this run covers.
    pub shard: Option<Shard>,
    /// Also write `verified.jsonl` (every accepted candidate).
    pub keep_verified: bool,
    /// Tasks searched at once (default: 8 when the detector merges batches, else 1).
    pub tasks_in_flight: Option<usize>,
    /// GPTCloneBench clones to compare the winners with.
    pub reference_clones: Option<PathBuf>,
}

/// How an attack ended.
#[derive(Debug)]
pub struct AttackOutcome {
    /// The run's summary (every finished task, this invocation's and earlier ones).
    pub summary: Summary,
    /// The threshold success was judged by.
    pub threshold: Threshold,
    /// Tasks already finished when this invocation started.
    pub resumed: usize,
    /// Tasks this invocation had to do.
    pub todo: usize,
    /// Tasks it finished.
    pub finished_now: usize,
    /// How the pipeline ended (interrupted, broken sandbox).
    pub end: RunEnd,
    /// Log lines dropped because their task already had one.
    pub dropped: Vec<DroppedDuplicate>,
    /// Transforms that failed on more than half of their calls: (name, failures, calls).
    pub failing_transforms: Vec<(String, u64, u64)>,
    /// The oracle's counters of this invocation.
    pub oracle: OracleStats,
    /// The detector's counters of this invocation.
    pub detector: DetectorStats,
}

impl AttackOutcome {
    /// The exit status the outcome calls for.
    pub fn status(&self) -> ExitStatus {
        super::run_status(&self.end, self.summary.attacked)
    }

    /// What the attack tells its user at the end: its figures, where its reports are, and
    /// why it stopped.
    pub fn printout(&self, run_dir: &RunDir) -> Printout {
        let o = self;
        let mut p = Printout::new();
        let (s, t) = (&o.summary, &o.threshold);
        for d in &o.dropped {
            p.err(format!(
                "warning: results.jsonl line {}: task {} already has a result (line {}); the \
             duplicate was dropped",
                d.line, d.key, d.first
            ));
        }
        if s.attacked == 0 {
            // No distance was measured: a mean of nothing is not 0.
            p.out(format!(
                "no task attacked, {} skipped, {} errors; threshold M < {:.4} ({})",
                s.skipped.len(),
                s.errors.len(),
                t.value,
                t.source
            ));
        } else {
            p.out(format!(
                "{} tasks attacked, {} skipped, {} errors; worst-case distance L = {:.4} ± {:.4}; \
             success rate {:.1} % (M < {:.4}, {}); detector time {:.0} %",
                s.attacked,
                s.skipped.len(),
                s.errors.len(),
                s.mean_distance,
                s.std_distance,
                s.success_rate * 100.0,
                t.value,
                t.source,
                s.detector_share * 100.0
            ));
        }
        p.out(format!(
        "oracle: {} program runs, {} checks, {} cache hits; detector: {} sequences, {} truncated \
         to the model's maximum",
        o.oracle.runs,
        o.oracle.checks,
        o.oracle.cache_hits,
        o.detector.sequences,
        o.detector.truncated
    ));
        p.out(format!("report: {}", run_dir.join("report.md").display()));
        p.out(format!("        {}", run_dir.join("report.html").display()));
        if let Some(notice) = s.progress().incomplete_notice() {
            p.err(notice);
        }
        if o.end.interrupted {
            p.err(format!(
            "interrupted: {} of {} tasks done in this run; the summary and reports cover every \
             finished task; rerun the same command to resume",
            o.finished_now, o.todo
        ));
            return p;
        }
        if let Some(reason) = &o.end.broken {
            p.err(format!(
            "error: stopped: the sandbox failed on the last {} checks in a row, so no task can \
             be judged ({reason}); results so far are saved, and a rerun resumes",
            crate::oracle::BROKEN_AFTER
        ));
            return p;
        }
        for (name, failed, calls) in &o.failing_transforms {
            p.err(format!(
            "warning: transform {name} failed on {failed} of its {calls} calls in this run (see \
             \"Transform failures\" in the report)"
        ));
        }
        if s.attacked == 0 {
            p.err(format!(
                "error: no task was attacked ({} skipped, {} errors): see the reasons in {}",
                s.skipped.len(),
                s.errors.len(),
                run_dir.join("report.md").display()
            ));
        }
        p
    }
}

impl AttackJob<'_> {
    /// Runs the attack into `run_dir` (opened as `opened`), stopping at the next task once
    /// `stop` is set.
    pub fn run(
        &self,
        run_dir: &RunDir,
        opened: Opened,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
    ) -> Result<AttackOutcome, AttackError> {
        let detector = self.detector;
        // A resumed run keeps the threshold it recorded (its settings, so its calibration, are
        // the same; a `report --threshold` since then is kept too).
        let recorded: Option<RunInfo> = (opened == Opened::Resumed)
            .then(|| std::fs::read_to_string(run_dir.join("run.json")).ok())
            .flatten()
            .and_then(|t| serde_json::from_str(&t).ok());
        let threshold = match recorded {
            Some(r) => Threshold {
                value: r.threshold,
                source: r.threshold_source,
            },
            None => self.calibrate(stop, notices)?,
        };
        if let Some(path) = &self.reference_clones {
            self.write_reference_scores(path, run_dir, notices)?;
        }
        let (mut writer, done, dropped) =
            ResultsWriter::open_keyed(&run_dir.join("results.jsonl"))?;
        let done_ids = crate::report::results::ids(&done);
        let mut verified_log = if self.keep_verified {
            // Lines of tasks without a result line come from a killed run: that task is redone.
            let path = run_dir.join("verified.jsonl");
            let mut kept: Vec<VerifiedLine> = read_jsonl(&path)?;
            let before = kept.len();
            kept.retain(|l| done_ids.contains(&l.task_id));
            if kept.len() != before {
                write_jsonl(&path, &kept)?;
            }
            Some(AppendLog::<VerifiedLine>::open_keyed(&path)?.0)
        } else {
            None
        };
        let owned = |t: &&Task| self.shard.is_none_or(|s| s.owns(&t.id));
        let planned = super::planned_tasks(&self.tasks.tasks, self.shard);
        let run_info = RunInfo {
            detector: detector.name().to_string(),
            threshold: threshold.value,
            threshold_source: threshold.source.clone(),
            strategy: format!("{:?}", self.search.strategy).to_lowercase(),
            beam: self.search.beam,
            iterations: self.search.iterations,
            seed: self.search.seed,
            constraints: crate::report::constraints_label(
                &self.search.constraints,
                detector.window(),
            ),
            transforms: self.transforms.names(),
            tasks: self.tasks_label.clone(),
            shard: self.shard.map(|s| s.to_string()),
            dataset: Some(self.tasks.report()),
            adequacy: Some(crate::adequacy::SetAdequacy::of(&self.tasks.tasks)),
            planned_tasks: Some(planned),
        };
        run_dir.write_run_json(&run_info)?;
        let todo: Vec<&Task> = self
            .tasks
            .tasks
            .iter()
            .filter(|t| !done_ids.contains(&t.id))
            .filter(owned)
            .collect();
        if !done.is_empty() {
            notices.note(&format!(
                "resuming: {} tasks already in {}, {} to go",
                done.len(),
                run_dir.path().display(),
                todo.len()
            ));
        }
        for warning in self.transforms.uncovered_languages(todo.iter().copied()) {
            notices.note(&warning);
        }
        progress.start(todo.len() as u64);
        let list: Vec<_> = self.transforms.iter().cloned().collect();
        // The extension aims at the run's threshold, known only now.
        let search = SearchConfig {
            success_below: Some(threshold.value),
            ..self.search.clone()
        };
        let searcher = Searcher::new(&list, detector, self.oracle, search).with_scorer(self.scorer);
        let gate = self.symbolic.map(|c| SymbolicGate::new(c, self.oracle));
        let job = Gated::new(&searcher, gate.as_ref(), self.symbolic_rounds);
        let start = Instant::now();
        let mut sink = AttackSink {
            writer: &mut writer,
            verified: verified_log.as_mut(),
            pending: Vec::new(),
            threshold: threshold.value,
            progress,
            start,
            already: done.len(),
            written: 0,
            scored: 0,
            attacked: 0,
            distance_sum: 0.0,
            calls: BTreeMap::new(),
            errors: TransformErrors::new(),
        };
        let in_flight = self
            .tasks_in_flight
            .unwrap_or(if detector.shares_batches() { 8 } else { 1 });
        let end = Pipeline::new(self.oracle, Some(stop))
            .with_in_flight(in_flight)
            .run(&todo, &job, &mut sink)?;
        progress.finish();
        let finished_now = sink.written;
        let failing_transforms = crate::search::mostly_failing(&sink.calls, &sink.errors);
        let (o, d) = (self.oracle.stats(), detector.stats());
        run_dir.write_stats(&serde_json::json!({
            "note": "counters of the last attack invocation on this directory",
            "oracle": o,
            "detector": d,
            "seconds": start.elapsed().as_secs_f64(),
        }))?;
        let summary = crate::report::write_reports(run_dir.path(), run_info)?;
        Ok(AttackOutcome {
            summary,
            threshold,
            resumed: done.len(),
            todo: todo.len(),
            finished_now,
            end,
            dropped,
            failing_transforms,
            oracle: o,
            detector: d,
        })
    }

    /// The run's threshold: fixed, or calibrated on the originals that pass their own tests
    /// (a failing or unparseable one is never attacked, so it says nothing about this run's
    /// pairs).
    fn calibrate(
        &self,
        stop: &AtomicBool,
        notices: &dyn Notices,
    ) -> Result<Threshold, InterruptedBeforeStart> {
        let tasks = &self.tasks.tasks;
        let programs: Vec<CalibrationProgram<'_>> = match self.threshold {
            ThresholdSpec::Fixed(_) => Vec::new(),
            ThresholdSpec::Auto { .. } => {
                notices.note(&format!(
                    "validating {} originals for the threshold calibration…",
                    tasks.len()
                ));
                let ok: Vec<bool> = tasks
                    .par_iter()
                    .map(|t| {
                        !stop.load(Ordering::Relaxed)
                            && crate::pipeline::catch_task_panic(|| self.oracle.validate(t))
                                .is_ok_and(|v| v.status == ValidationStatus::Ok)
                    })
                    .collect();
                stop_point(
                    stop,
                    "validating the originals for the threshold",
                    NOTHING_ATTACKED,
                )?;
                tasks
                    .iter()
                    .zip(ok)
                    .filter(|(_, ok)| *ok)
                    .map(|(t, _)| CalibrationProgram {
                        text: &t.source,
                        problem: t.problem_key(),
                    })
                    .collect()
            }
        };
        super::threshold::resolve_threshold(
            self.threshold,
            self.detector,
            &programs,
            self.search.seed,
            Some(stop),
            notices,
        )
    }

    /// Scores the reference benchmark's clone pairs with the run's detector into the run
    /// directory, unless a resumed run already holds this benchmark's scores by this detector.
    fn write_reference_scores(
        &self,
        path: &std::path::Path,
        run_dir: &RunDir,
        notices: &dyn Notices,
    ) -> Result<(), AttackError> {
        let fail = |message: String| AttackError::Reference {
            path: path.to_path_buf(),
            message,
        };
        let source = path.display().to_string();
        if let Some(r) = reference::read(run_dir.path()) {
            if r.source == source && r.detector == self.detector.name() {
                return Ok(());
            }
        }
        let bench = crate::task::gptclonebench::load(path, self.search.seed)
            .map_err(|e| fail(e.to_string()))?;
        let counts: Vec<String> = bench
            .counts()
            .iter()
            .filter(|(k, _)| k.as_str() != "non-clone")
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        notices.note(&format!(
            "scoring the reference clones ({})",
            counts.join(", ")
        ));
        let scores =
            reference::score(&bench, self.detector, &source).map_err(|e| fail(e.to_string()))?;
        let out = run_dir.join(reference::FILE);
        let text = serde_json::to_string(&scores).map_err(|e| fail(e.to_string()))?;
        std::fs::write(&out, text).map_err(|e| fail(format!("cannot write {}: {e}", out.display())))
    }
}

/// Appends each task's verified candidates (with `keep_verified`) and result line, and keeps
/// the progress figures.
struct AttackSink<'a> {
    writer: &'a mut ResultsWriter,
    verified: Option<&'a mut AppendLog<VerifiedLine>>,
    pending: Vec<VerifiedLine>,
    threshold: f32,
    progress: &'a dyn Progress,
    start: Instant,
    already: usize,
    written: usize,
    scored: u64,
    attacked: usize,
    distance_sum: f64,
    /// Transform applications and failures of this invocation.
    calls: BTreeMap<String, u64>,
    errors: TransformErrors,
}

impl Sink<SearchResult> for AttackSink<'_> {
    type Error = AttackError;

    fn verified(&mut self, task: &Task, candidate: &Candidate) {
        if self.verified.is_some() {
            self.pending.push(VerifiedLine::of(task, candidate));
        }
    }

    fn finished(
        &mut self,
        task: &Task,
        outcome: TaskOutcome<SearchResult>,
    ) -> Result<(), AttackError> {
        let written = self.already + self.written;
        let write = |source| AttackError::Write { source, written };
        // The task's verified candidates first: its result line commits them.
        if let Some(log) = self.verified.as_mut() {
            log.append_all(&self.pending).map_err(write)?;
        }
        self.pending.clear();
        let line = match outcome {
            TaskOutcome::Done(r) => {
                for (name, n) in &r.calls {
                    *self.calls.entry(name.clone()).or_default() += n;
                }
                crate::search::add_errors(&mut self.errors, r.transform_errors.clone());
                self.scored += r.counts.scored;
                self.attacked += 1;
                self.distance_sum += f64::from(r.best.distance());
                ResultLine::attacked(task, r, self.threshold)
            }
            TaskOutcome::Skipped(why) => ResultLine::not_attacked(task, Status::Skipped, why),
            TaskOutcome::Failed(why) | TaskOutcome::Unverifiable(why) => {
                ResultLine::not_attacked(task, Status::Error, why)
            }
        };
        self.writer.append(&line).map_err(write)?;
        self.written += 1;
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let mean = if self.attacked > 0 {
            self.distance_sum / self.attacked as f64
        } else {
            0.0
        };
        self.progress.advance(&format!(
            "mean best L {mean:.3}, {:.0} candidates/s",
            self.scored as f64 / secs
        ));
        Ok(())
    }
}

/// The search an attack is asked for, before each strategy's defaults are applied.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// guided, beam, greedy or random.
    pub strategy: crate::search::Strategy,
    /// Beam width (default: 3 for guided, 5 otherwise; greedy is always 1).
    pub beam: Option<usize>,
    /// Iterations (default: 30 for guided, 10 otherwise).
    pub iterations: Option<usize>,
    /// Guided: candidates scored per iteration after the first.
    pub queries_per_iteration: Option<usize>,
    /// Stop after this many iterations without improvement (default: 8 for guided).
    pub patience: Option<usize>,
    /// Iterations a task not yet below the threshold may add (default: 30 for guided, 0
    /// otherwise).
    pub extend: Option<usize>,
    /// Guided: which (member, transform) pairs are applied after the first iteration.
    pub apply: ApplyOrder,
    /// Run seed.
    pub seed: u64,
    /// Lazy or eager oracle.
    pub oracle_order: crate::search::OracleOrder,
    /// Ceiling on detector queries per task.
    pub max_queries: Option<usize>,
    /// Ceiling on oracle checks per task.
    pub max_oracle: Option<usize>,
    /// Seconds per task.
    pub time_per_task: Option<f64>,
    /// Stop once M falls below this.
    pub stop_below: Option<f32>,
    /// Most tokens a candidate may have, as a multiple of the original's.
    pub max_growth: Option<f64>,
    /// The window rule.
    pub window: bool,
}

impl SearchRequest {
    /// The search with each strategy's defaults, or which setting is out of range.
    pub fn config(&self) -> Result<SearchConfig, super::settings::SettingsError> {
        use super::settings::SettingsError::Invalid;
        use crate::search::{Constraints, Strategy};
        let guided = self.strategy == Strategy::Guided;
        let iterations = self.iterations.unwrap_or(if guided { 30 } else { 10 });
        let beam = match (self.beam, self.strategy) {
            (_, Strategy::Greedy) => 1,
            (Some(b), _) => b,
            (None, Strategy::Guided) => 3,
            (None, _) => 5,
        };
        if beam == 0 || iterations == 0 {
            return Err(Invalid("--beam and --iterations must be at least 1"));
        }
        if self.queries_per_iteration == Some(0) || self.patience == Some(0) {
            return Err(Invalid(
                "--queries-per-iteration and --patience must be at least 1",
            ));
        }
        if self.max_queries == Some(0) {
            return Err(Invalid("--max-queries must be at least 1"));
        }
        if self
            .time_per_task
            .is_some_and(|t| !(t > 0.0 && t.is_finite()))
        {
            return Err(Invalid(
                "--time-per-task must be a positive number of seconds",
            ));
        }
        if self.max_growth.is_some_and(|g| !(g > 0.0 && g.is_finite())) {
            return Err(Invalid(
                "--max-growth must be a positive number (1.5 = at most 50 % more tokens)",
            ));
        }
        Ok(SearchConfig {
            strategy: self.strategy,
            beam,
            iterations,
            seed: self.seed,
            oracle_order: self.oracle_order,
            max_queries: self.max_queries,
            max_oracle: self.max_oracle,
            time_per_task: self.time_per_task.map(std::time::Duration::from_secs_f64),
            stop_below: self.stop_below,
            constraints: Constraints {
                max_growth: self.max_growth,
                window: self.window,
            },
            per_iteration: self.queries_per_iteration,
            patience: self
                .patience
                .or(guided.then_some(crate::search::DEFAULT_PATIENCE)),
            extend: self.extend.unwrap_or(if guided {
                crate::search::DEFAULT_EXTEND
            } else {
                0
            }),
            success_below: None,
            ranked_apply: guided && self.apply == ApplyOrder::Ranked,
        })
    }
}

/// The cheap scorer an attack ranks candidates with (`--scorer`): `none`; a detector spec;
/// or `auto`, the int8 graph of the default model when the detector is that model on the
/// CPU (where it runs 1.7× faster per sequence and ranks like it, Spearman 0.995 on the
/// fixtures' originals and winners), else none. The scorer runs where the detector does.
/// `--keep-verified` records every accepted candidate's M, which only the detector gives.
pub fn scorer_settings(
    requested: &str,
    detector: &super::settings::DetectorSettings,
    keep_verified: bool,
) -> Result<Option<super::settings::DetectorSettings>, super::settings::SettingsError> {
    use super::settings::SettingsError::Invalid;
    let spec = match requested {
        "none" => return Ok(None),
        "auto" => {
            let int8 = crate::detector::model_path("minilm-int8").is_some_and(|p| p.is_file());
            if keep_verified || detector.spec != "minilm" || detector.device != "cpu" || !int8 {
                return Ok(None);
            }
            "minilm-int8"
        }
        spec => {
            if keep_verified {
                return Err(Invalid(
                    "--keep-verified records every accepted candidate's M from the detector: \
                     use it with --scorer none",
                ));
            }
            spec
        }
    };
    let mut settings = detector.clone();
    settings.spec = spec.to_string();
    Ok(Some(settings))
}

/// Which (member, transform) pairs the guided search applies after its first iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ApplyOrder {
    /// The pairs the bandit expects most of, until 3 candidates per query are in hand.
    #[default]
    Ranked,
    /// Every transform to every beam member.
    All,
}

/// Records what an attack's search, threshold and outputs are in a run's settings (a rerun
/// resumes only with the same ones); the tasks, detector, transforms and oracle are recorded
/// by [`super::settings`].
pub fn record_attack(
    settings: &mut crate::run::RunSettings,
    search: &SearchConfig,
    threshold: ThresholdSpec,
    keep_verified: bool,
    shard: Option<Shard>,
) {
    settings
        .set("search", format!("{:?}", search.strategy).to_lowercase())
        .set("beam", search.beam)
        .set("iterations", search.iterations)
        .set("seed", search.seed)
        .set(
            "oracle order",
            format!("{:?}", search.oracle_order).to_lowercase(),
        )
        .set_opt("max queries", search.max_queries)
        .set_opt("queries per iteration", search.per_iteration)
        .set_opt("patience", search.patience)
        .set("extend", search.extend)
        .set("apply", if search.ranked_apply { "ranked" } else { "all" })
        .set_opt("max oracle", search.max_oracle)
        .set_opt(
            "time per task",
            search.time_per_task.map(|t| t.as_secs_f64()),
        )
        .set_opt("stop below", search.stop_below)
        .set("threshold", threshold)
        .set_opt("max growth", search.constraints.max_growth)
        .set("window", search.constraints.window)
        .set("keep verified", keep_verified)
        .set_opt("shard", shard);
}

#[cfg(test)]
mod tests {
    use super::scorer_settings;
    use crate::job::settings::DetectorSettings;

    #[test]
    fn the_scorer_resolves_by_detector_and_refuses_keep_verified() {
        let minilm_gpu = DetectorSettings::on("minilm", "cuda");
        let jaccard = DetectorSettings::on("jaccard", "cpu");
        assert!(scorer_settings("none", &jaccard, false).unwrap().is_none());
        // auto ranks with int8 only for the default model on the CPU.
        assert!(scorer_settings("auto", &jaccard, false).unwrap().is_none());
        assert!(scorer_settings("auto", &minilm_gpu, false)
            .unwrap()
            .is_none());
        let named = scorer_settings("jaccard", &minilm_gpu, false)
            .unwrap()
            .unwrap();
        assert_eq!(
            (named.spec.as_str(), named.device.as_str()),
            ("jaccard", "cuda")
        );
        let err = scorer_settings("jaccard", &jaccard, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--scorer none"), "{err}");
        assert!(scorer_settings("auto", &jaccard, true).unwrap().is_none());
    }
}
