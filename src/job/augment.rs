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
use super::{Notices, Printout, Progress};
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
        for warning in self.transforms.uncovered_languages(todo.iter().copied()) {
            notices.note(&warning);
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

/// Why an augmentation was refused before it started (the arguments cannot give a usable run).
#[derive(Debug, Error)]
pub enum AugmentRequestError {
    /// `--variants 0`.
    #[error("--variants must be at least 1")]
    NoVariants,
    /// `--split` without the CodeXGLUE layout.
    #[error("--split splits the CodeXGLUE pairs: give it with --format codexglue")]
    SplitWithoutCodexglue,
    /// A mutation-score floor outside [0, 1].
    #[error("--min-mutation-score must be between 0 and 1")]
    MutationScoreRange,
    /// `--mutants 0`.
    #[error("--mutants must be at least 1")]
    NoMutants,
    /// No task at all.
    #[error("{} holds no task", .0.display())]
    NoTask(std::path::PathBuf),
    /// No task with tests, and unverified variants were not asked for.
    #[error(
        "no task in {} has tests, so no variant could be verified; pass --unverified to augment \
         them anyway (every variant is then marked verified: false)",
        .0.display()
    )]
    NoTestedTask(std::path::PathBuf),
    /// A split would hold one problem, so no non-clone pair.
    #[error(
        "--split {},{},{} over {problems} problems gives train / valid / test {} / {} / {} \
         problems; a split of one problem has clone pairs but no non-clone pair: use more tasks \
         or other fractions",
        .fractions[0], .fractions[1], .fractions[2], .sizes[0], .sizes[1], .sizes[2]
    )]
    LoneProblemSplit {
        /// The fractions asked for.
        fractions: [f64; 3],
        /// Distinct problems among the tasks.
        problems: usize,
        /// Problems per split.
        sizes: [usize; 3],
    },
}

/// What an augmentation is asked to produce, checked before any work.
#[derive(Debug, Clone)]
pub struct AugmentRequest<'a> {
    /// The task file, as named.
    pub tasks_path: &'a std::path::Path,
    /// Variants per task.
    pub variants: usize,
    /// Output layout.
    pub format: crate::augment::summary::OutputFormat,
    /// CodeXGLUE split fractions.
    pub split: Option<[f64; 3]>,
    /// Non-clone pairs per program (CodeXGLUE).
    pub negatives: usize,
    /// Tasks without tests are augmented too.
    pub unverified: bool,
    /// Mutation-score floor, and mutants per task to measure it.
    pub min_mutation_score: Option<(f64, usize)>,
}

impl AugmentRequest<'_> {
    /// The run's record (`run.json`) for `set` augmented with `transforms` by `config`.
    pub fn run_record(
        &self,
        set: &TaskSet,
        transforms: &TransformSet,
        config: &AugmentConfig,
        detector: Option<&dyn Detector>,
        shard: Option<Shard>,
    ) -> AugmentRun {
        AugmentRun {
            kind: "augment".into(),
            tasks: self.tasks_path.display().to_string(),
            transforms: transforms.names(),
            config: config.clone(),
            detector: detector.map(|d| d.name().to_string()),
            format: self.format,
            negatives: self.negatives,
            split: self.split,
            shard: shard.map(|s| s.to_string()),
            dataset: Some(set.report()),
            adequacy: Some(crate::adequacy::SetAdequacy::of(&set.tasks)),
            min_mutation_score: self.min_mutation_score.map(|(min, _)| min),
            planned_tasks: None,
        }
    }

    /// Records what decides the variants and their layout in a run's settings (a rerun resumes
    /// only with the same ones); the tasks, detector, transforms and oracle are recorded by
    /// [`super::settings`].
    pub fn record(
        &self,
        settings: &mut crate::run::RunSettings,
        config: &AugmentConfig,
        shard: Option<Shard>,
    ) {
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
            .set("format", format!("{:?}", self.format).to_lowercase())
            .set("negatives", self.negatives)
            .set_opt(
                "split",
                self.split.map(|s| format!("{},{},{}", s[0], s[1], s[2])),
            )
            .set_opt("shard", shard);
        // Recorded only where it matters, so runs from before it existed still resume.
        if config.hard && config.hard_share < 1.0 {
            settings.set("hard share", config.hard_share);
        }
        if config.hard && config.strategy != crate::search::Strategy::Beam {
            settings.set(
                "hard search",
                format!("{:?}", config.strategy).to_lowercase(),
            );
        }
        if let Some((min, mutants)) = self.min_mutation_score {
            settings
                .set("min mutation score", min)
                .set("mutants", mutants);
        }
    }

    /// Checks the arguments alone (before the tasks are loaded).
    pub fn check_arguments(&self) -> Result<(), AugmentRequestError> {
        use crate::augment::summary::OutputFormat;
        if self.variants == 0 {
            return Err(AugmentRequestError::NoVariants);
        }
        if self.split.is_some() && self.format != OutputFormat::Codexglue {
            return Err(AugmentRequestError::SplitWithoutCodexglue);
        }
        match self.min_mutation_score {
            Some((min, _)) if !(0.0..=1.0).contains(&min) => {
                Err(AugmentRequestError::MutationScoreRange)
            }
            _ => Ok(()),
        }
    }

    /// Checks the request against the loaded tasks.
    pub fn check(&self, set: &TaskSet) -> Result<(), AugmentRequestError> {
        if let Some((_, 0)) = self.min_mutation_score {
            return Err(AugmentRequestError::NoMutants);
        }
        if set.tasks.is_empty() && (set.untested.is_empty() || !self.unverified) {
            let path = self.tasks_path.to_path_buf();
            return Err(if set.untested.is_empty() {
                AugmentRequestError::NoTask(path)
            } else {
                AugmentRequestError::NoTestedTask(path)
            });
        }
        if let (Some(fractions), true) = (self.split, self.negatives > 0) {
            // Each split needs programs of two problems for a non-clone pair.
            let problems: std::collections::BTreeSet<&str> = set
                .run_order(self.unverified)
                .into_iter()
                .map(|t| t.problem.as_deref().unwrap_or(&t.id))
                .collect();
            let sizes = crate::augment::codexglue::split_sizes(problems.len(), fractions);
            if sizes.contains(&1) {
                return Err(AugmentRequestError::LoneProblemSplit {
                    fractions,
                    problems: problems.len(),
                    sizes,
                });
            }
        }
        Ok(())
    }
}

/// Tasks refused for a mutation score below `min`, with why; first measures the score of the
/// tasks that carry none (`mutants` mutants at most each).
pub fn refused_below(
    tasks: &mut [Task],
    oracle: &Oracle,
    min: f64,
    mutants: usize,
    seed: u64,
    notices: &dyn Notices,
    progress: &(dyn Progress + Sync),
) -> BTreeMap<String, String> {
    use crate::adequacy::score::{below, ensure_scores, MutantOptions};
    let missing = tasks
        .iter()
        .filter(|t| t.mutation_score().is_none())
        .count();
    if missing > 0 {
        notices.note(&format!(
            "measuring the mutation score of {missing} task(s) ({mutants} mutants at most each)…"
        ));
        progress.start(tasks.len() as u64);
        let options = MutantOptions {
            max_mutants: mutants,
            seed,
        };
        ensure_scores(oracle, tasks, options, &|| progress.advance(""));
        progress.finish();
    }
    below(tasks, min)
}

impl AugmentOutcome {
    /// What the augmentation tells its user at the end: its figures, where its files are
    /// (under `out`), and why it stopped. `variants` and `negatives` are the run's K and
    /// negatives per program.
    pub fn printout(&self, out: &std::path::Path, variants: usize, negatives: usize) -> Printout {
        let (s, mut p) = (&self.summary, Printout::new());
        for d in &self.dropped {
            p.err(format!(
                "warning: tasks.jsonl line {}: task {} is already finished (line {}); the \
                 duplicate was dropped",
                d.line, d.key, d.first
            ));
        }
        p.out(format!(
            "{} tasks augmented, {} skipped, {} errors; {} variants ({} verified), {:.2} per \
             task, {} task(s) below K = {variants}",
            s.augmented,
            s.skipped.len(),
            s.errors.len(),
            s.variants,
            s.verified,
            s.per_task.map_or(0.0, |p| p.mean),
            s.short_tasks,
        ));
        p.out(format!(
            "this run: {} variants in {:.1} s ({:.2} variants/s)",
            self.made_now,
            self.seconds,
            self.made_now as f64 / self.seconds.max(1e-9)
        ));
        if let Some(d) = s.distance {
            p.out(format!(
                "distance L of the variants: {:.4} ± {:.4}",
                d.mean, d.std
            ));
        }
        p.out(format!(
            "variants: {}",
            out.join("variants.jsonl").display()
        ));
        if let Some((n, pairs, neg)) = s.codexglue {
            p.out(format!(
                "codexglue: {} ({n} programs, {pairs} pairs, {neg} negative)",
                out.join("codexglue").display()
            ));
            if neg == 0 && negatives > 0 {
                p.err(
                    "warning: no negative pair could be drawn: every augmented task solves the \
                     same problem (or sits alone in its split)",
                );
            }
        }
        p.out(format!("report: {}", out.join("report.md").display()));
        p.out(format!("        {}", out.join("report.html").display()));
        for (id, why) in &s.errors {
            p.err(format!("error: task {id}: {why}"));
        }
        if let Some(notice) = s.progress().incomplete_notice() {
            p.err(notice);
        }
        if self.end.interrupted {
            p.err("interrupted: finished tasks are saved; rerun the same command to resume");
        } else if let Some(reason) = &self.end.broken {
            p.err(format!(
                "error: stopped: the sandbox failed on the last {} checks in a row ({reason}); \
                 results so far are saved, and a rerun resumes",
                crate::oracle::BROKEN_AFTER
            ));
        } else if s.augmented == 0 {
            p.err(format!(
                "error: no task was augmented ({} skipped, {} errors): see the reasons in {}",
                s.skipped.len(),
                s.errors.len(),
                out.join("report.md").display()
            ));
        }
        p
    }
}
