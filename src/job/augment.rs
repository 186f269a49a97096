//! The augment job (`equimorph augment`, and the training data `robustness` makes): from
//! resolved parts to a typed [`AugmentOutcome`] from which the exit status follows. The
//! command line parses arguments, measures mutation scores when asked, opens the
//! [`RunDir`], calls [`AugmentJob::run`] and prints the outcome.
//!
//! In order: the logs resumed by task id (variants of a task that never reached `tasks.jsonl`
//! come from a killed run and are dropped), the tasks refused for their mutation score, the
//! pipeline over the tasks left (interrupts, a task's panic as its error), then the summary,
//! the reports and the CodeXGLUE layout.

use super::exit::ExitStatus;
use super::{Notices, Progress};
use crate::adequacy::symbolic::{Gated, SymbolicChecker, SymbolicGate};
use crate::augment::summary::{finish, read_run, AugmentOutputError, AugmentRun, AugmentSummary};
use crate::augment::{AugmentConfig, Augmented, Augmenter, TaskLine, VariantLine};
use crate::detector::Detector;
use crate::oracle::Oracle;
use crate::pipeline::{Pipeline, RunEnd, Sink, TaskOutcome};
use crate::report::results::{write_jsonl, AppendLog, DroppedDuplicate, ResultsError};
use crate::report::shard::Shard;
use crate::report::Status;
use crate::run::{RunDir, RunDirError};
use crate::task::{Task, TaskSet};
use crate::transform::TransformSet;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use thiserror::Error;

/// Why an augmentation stopped with an error (a task's own failure is never one: it is that
/// task's line in `tasks.jsonl`).
#[derive(Debug, Error)]
pub enum AugmentError {
    /// The run directory could not be written.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A log could not be read or written.
    #[error(transparent)]
    Lines(#[from] ResultsError),
    /// The summary, reports or CodeXGLUE files could not be written.
    #[error(transparent)]
    Output(#[from] AugmentOutputError),
}

/// An augmentation made of resolved parts.
pub struct AugmentJob<'a> {
    /// The tasks.
    pub tasks: &'a TaskSet,
    /// The run's record (`run.json`); its `planned_tasks` is set by [`AugmentJob::run`].
    pub record: AugmentRun,
    /// The transforms composed.
    pub transforms: &'a TransformSet,
    /// The equivalence oracle.
    pub oracle: &'a Oracle,
    /// The detector that scores (and, with `hard`, chooses) variants, if any.
    pub detector: Option<&'a dyn Detector>,
    /// The symbolic check of variants (`--verify symbolic`), if asked for.
    pub symbolic: Option<&'a SymbolicChecker>,
    /// How variants are made.
    pub config: AugmentConfig,
    /// The shard this run covers.
    pub shard: Option<Shard>,
    /// Tasks refused before the run (their mutation score is too low), with why.
    pub refused: BTreeMap<String, String>,
}

/// How an augmentation ended.
#[derive(Debug)]
pub struct AugmentOutcome {
    /// The run's summary (every finished task, this invocation's and earlier ones).
    pub summary: AugmentSummary,
    /// Tasks already finished when this invocation started.
    pub resumed: usize,
    /// Tasks this invocation had to do.
    pub todo: usize,
    /// Variants this invocation made.
    pub made_now: usize,
    /// Seconds this invocation's tasks took.
    pub seconds: f64,
    /// How the pipeline ended (interrupted, broken sandbox).
    pub end: RunEnd,
    /// `tasks.jsonl` lines dropped because their task already had one.
    pub dropped: Vec<DroppedDuplicate>,
}

impl AugmentOutcome {
    /// The exit status the outcome calls for.
    pub fn status(&self) -> ExitStatus {
        super::run_status(&self.end, self.summary.augmented)
    }
}

impl AugmentJob<'_> {
    /// Runs the augmentation into `run_dir`, stopping at the next task once `stop` is set.
    pub fn run(
        &self,
        run_dir: &RunDir,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
    ) -> Result<AugmentOutcome, AugmentError> {
        let owned = |t: &&Task| self.shard.is_none_or(|s| s.owns(&t.id));
        let order = self.tasks.run_order(true);
        let mut record = self.record.clone();
        record.planned_tasks = Some(super::planned_tasks(order.iter().copied(), self.shard));
        run_dir.write_run_json(&record)?;
        // Variants of a task that never reached tasks.jsonl come from a killed run: drop them
        // (the task is done again), so nothing is duplicated.
        let (done, kept, orphans) = read_run(run_dir.path())?;
        let variants_path = run_dir.join("variants.jsonl");
        if orphans > 0 {
            write_jsonl(&variants_path, &kept)?;
        }
        // One line per task and per variant (a log written twice keeps the first of each).
        let (mut variants_log, _, _) = AppendLog::<VariantLine>::open_keyed(&variants_path)?;
        let (mut tasks_log, _, dropped) =
            AppendLog::<TaskLine>::open_keyed(&run_dir.join("tasks.jsonl"))?;
        let done_ids: std::collections::HashSet<&str> =
            done.iter().map(|t| t.id.as_str()).collect();
        let todo: Vec<&Task> = order
            .into_iter()
            .filter(|t| !done_ids.contains(t.id.as_str()))
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
        // Refused tasks are finished at once, with their score as the reason.
        let (refused_now, todo): (Vec<&Task>, Vec<&Task>) = todo
            .into_iter()
            .partition(|t| self.refused.contains_key(&t.id));
        for t in &refused_now {
            let why = self.refused.get(&t.id).cloned().unwrap_or_default();
            let mut line = TaskLine::skipped(t, why);
            line.tests = Some(crate::adequacy::TestsRecord::of(t));
            tasks_log.append(&line)?;
        }
        let list: Vec<_> = self.transforms.iter().cloned().collect();
        let augmenter = Augmenter::new(&list, self.oracle, self.detector, self.config.clone());
        let gate = self.symbolic.map(|c| SymbolicGate::new(c, self.oracle));
        let job = Gated::new(&augmenter, gate.as_ref(), 0);
        progress.start(todo.len() as u64);
        let mut sink = AugmentSink {
            variants: &mut variants_log,
            tasks: &mut tasks_log,
            verify: self.config.verify,
            progress,
            start: Instant::now(),
            made: 0,
        };
        let end = Pipeline::new(self.oracle, Some(stop)).run(&todo, &job, &mut sink)?;
        progress.finish();
        let seconds = sink.start.elapsed().as_secs_f64();
        let made_now = sink.made;
        let (tasks, variants, _) = read_run(run_dir.path())?;
        let summary = finish(run_dir.path(), &record, &tasks, &variants)?;
        Ok(AugmentOutcome {
            summary,
            resumed: done.len(),
            todo: todo.len() + refused_now.len(),
            made_now,
            seconds,
            end,
            dropped,
        })
    }
}

/// Appends each finished task's variants, then its line in `tasks.jsonl` (which commits it).
struct AugmentSink<'a> {
    variants: &'a mut AppendLog<VariantLine>,
    tasks: &'a mut AppendLog<TaskLine>,
    verify: bool,
    progress: &'a dyn Progress,
    start: Instant,
    made: usize,
}

impl Sink<Augmented> for AugmentSink<'_> {
    type Error = ResultsError;

    fn finished(
        &mut self,
        task: &Task,
        outcome: TaskOutcome<Augmented>,
    ) -> Result<(), ResultsError> {
        let mut line = TaskLine::skipped(task, String::new());
        line.status = Status::Ok;
        line.reason = None;
        line.tests = Some(crate::adequacy::TestsRecord::of(task));
        match outcome {
            TaskOutcome::Done(a) => {
                let lines = VariantLine::of(task, &a, self.verify);
                self.variants.append_all(&lines)?;
                self.made += lines.len();
                line.variants = lines.len();
                line.counts = a.counts;
                line.seconds = a.seconds;
                line.transform_errors = a.transform_errors;
                line.symbolic = a.symbolic;
            }
            TaskOutcome::Skipped(why) => {
                line.status = Status::Skipped;
                line.reason = Some(if task.test_count() == 0 {
                    "refused: the task has no tests, so its variants could not be verified \
                     (--unverified augments it anyway)"
                        .into()
                } else {
                    why
                });
            }
            TaskOutcome::Failed(why) | TaskOutcome::Unverifiable(why) => {
                line.status = Status::Error;
                line.reason = Some(why);
            }
        }
        self.tasks.append(&line)?;
        self.progress.advance(&format!(
            "{} variants, {:.2}/s",
            self.made,
            self.made as f64 / self.start.elapsed().as_secs_f64().max(1e-9)
        ));
        Ok(())
    }
}
