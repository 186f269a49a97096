//! The per-task pipeline that `attack`, `augment` and `select` share.
//!
//! A run is a list of tasks. For each one the pipeline validates the original (its tests must
//! pass, deterministically), hands it to the job (a search, a variant generator, a contest of
//! transform implementations), and passes what the job made to a [`Sink`]: every verified
//! candidate, then the task's outcome, always in task order. Tasks are validated (and, for
//! jobs that allow it, run) in small parallel chunks, so results start to arrive at once and a
//! killed run loses at most the tasks in flight. A task that fails is reported to the sink and
//! the run goes on — a panic anywhere in a task's work (transform host, oracle, detector,
//! growth) included: it becomes that task's error. The run stops early only when asked to
//! (SIGINT/SIGTERM) or when the sandbox itself is broken.

use crate::oracle::{Oracle, Reference, ValidationStatus};
use crate::program::Candidate;
use crate::task::Task;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Tasks validated together before their jobs run.
const CHUNK: usize = 16;

/// What a job does with one task.
pub trait Job: Sync {
    /// What the job makes of a task.
    type Output: Send;

    /// Whether tasks may run at once (in chunks; the sink still gets them in order). Jobs whose
    /// per-task timings or budgets must not share the machine (a search) say no.
    fn parallel_tasks(&self) -> bool {
        false
    }

    /// Whether the job needs a validated original (a task whose tests pass). A job that does
    /// not (`augment --unverified`) gets every task whose original parses, and no reference.
    fn needs_reference(&self) -> bool {
        true
    }

    /// Runs the job on `task`, whose original behaves as `reference` (`None` only when
    /// [`Job::needs_reference`] is false). Every verified candidate goes to `verified`.
    fn run(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<Self::Output, String>;
}

/// How one task ended.
#[derive(Debug)]
pub enum TaskOutcome<T> {
    /// The job ran.
    Done(T),
    /// Not run: the original is not usable (failing, flaky, unparseable, no tests…).
    Skipped(String),
    /// Not run: the sandbox failed while running the original, so it has no verdict.
    Unverifiable(String),
    /// The job (or the sandbox, during the job) failed on this task.
    Failed(String),
}

/// Receives what a run makes.
pub trait Sink<T> {
    /// The error that stops a run (a full disk, say).
    type Error;

    /// A candidate of `task` that the oracle accepted (or, for jobs that do not verify, that
    /// the job produced). Called before the task's [`Sink::finished`].
    fn verified(&mut self, _task: &Task, _candidate: &Candidate) {}

    /// `task` is finished.
    fn finished(&mut self, task: &Task, outcome: TaskOutcome<T>) -> Result<(), Self::Error>;
}

/// How a run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunEnd {
    /// Tasks handed to the sink.
    pub finished: usize,
    /// Whether the run stopped because it was asked to.
    pub interrupted: bool,
    /// Set when the run stopped because the sandbox failed on every recent check: the last
    /// task's reason.
    pub broken: Option<String>,
}

/// Runs jobs over tasks with one oracle.
pub struct Pipeline<'a> {
    oracle: &'a Oracle,
    stop: Option<&'a AtomicBool>,
    in_flight: usize,
}

impl<'a> Pipeline<'a> {
    /// A pipeline; when `stop` becomes true the run takes no new task.
    pub fn new(oracle: &'a Oracle, stop: Option<&'a AtomicBool>) -> Self {
        Pipeline {
            oracle,
            stop,
            in_flight: 1,
        }
    }

    /// Lets up to `n` tasks of a job that does not run tasks in parallel
    /// ([`Job::parallel_tasks`]) be in flight at once, each on its own thread: their CPU
    /// work overlaps and a shared detector can merge their batches. The sink still gets every
    /// task in order, as soon as it and all before it are done.
    pub fn with_in_flight(mut self, n: usize) -> Self {
        self.in_flight = n.max(1);
        self
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Runs `job` on every task of `tasks` in order, reporting to `sink`.
    pub fn run<J: Job, S: Sink<J::Output>>(
        &self,
        tasks: &[&Task],
        job: &J,
        sink: &mut S,
    ) -> Result<RunEnd, S::Error> {
        let mut end = RunEnd::default();
        if !job.parallel_tasks() && self.in_flight > 1 {
            return self.run_in_flight(tasks, job, sink, end);
        }
        for chunk in tasks.chunks(CHUNK) {
            if self.stopped() {
                end.interrupted = true;
                return Ok(end);
            }
            if job.parallel_tasks() {
                // Jobs run at once; the sink gets them in order when the chunk is done.
                let processed: Vec<Option<Processed<J::Output>>> = chunk
                    .par_iter()
                    .map(|t| {
                        let v = self.validate_for(job, t)?;
                        (!self.stopped()).then(|| self.process(job, t, v))
                    })
                    .collect();
                for (task, p) in chunk.iter().zip(processed) {
                    if !self.deliver(task, p, sink, &mut end)? {
                        return Ok(end);
                    }
                }
            } else {
                // Originals are validated at once; jobs run one by one, each result delivered
                // as soon as it is made (a killed run keeps every finished task).
                let validations: Vec<_> = chunk
                    .par_iter()
                    .map(|t| self.validate_for(job, t))
                    .collect();
                for (task, v) in chunk.iter().zip(validations) {
                    let p = v
                        .filter(|_| !self.stopped())
                        .map(|v| self.process(job, task, v));
                    if !self.deliver(task, p, sink, &mut end)? {
                        return Ok(end);
                    }
                }
            }
        }
        Ok(end)
    }

    /// [`Pipeline::run`] with up to `in_flight` tasks at once (each validated and run on one
    /// worker thread), delivered in task order.
    fn run_in_flight<J: Job, S: Sink<J::Output>>(
        &self,
        tasks: &[&Task],
        job: &J,
        sink: &mut S,
        mut end: RunEnd,
    ) -> Result<RunEnd, S::Error> {
        let next = AtomicUsize::new(0);
        // Set when delivery stops (interrupt, broken sandbox, sink error): no new task starts.
        let halt = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<(usize, Option<Processed<J::Output>>)>();
        std::thread::scope(|scope| {
            for _ in 0..self.in_flight.min(tasks.len()) {
                let (tx, next, halt) = (tx.clone(), &next, &halt);
                scope.spawn(move || loop {
                    if halt.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(task) = tasks.get(k) else { break };
                    let p = self
                        .validate_for(job, task)
                        .filter(|_| !self.stopped())
                        .map(|v| self.process(job, task, v));
                    if tx.send((k, p)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut ready: BTreeMap<usize, Option<Processed<J::Output>>> = BTreeMap::new();
            let mut want = 0;
            for (k, p) in rx.iter() {
                ready.insert(k, p);
                while let Some(p) = ready.remove(&want) {
                    want += 1;
                    match self.deliver(tasks[want - 1], p, sink, &mut end) {
                        Ok(true) => {}
                        Ok(false) => {
                            halt.store(true, Ordering::Relaxed);
                            return Ok(());
                        }
                        Err(e) => {
                            halt.store(true, Ordering::Relaxed);
                            return Err(e);
                        }
                    }
                }
            }
            Ok(())
        })?;
        Ok(end)
    }

    /// Hands one task's candidates and outcome to the sink (`None`: the run was asked to stop
    /// before the task started). Returns whether the run goes on.
    fn deliver<T, S: Sink<T>>(
        &self,
        task: &Task,
        processed: Option<Processed<T>>,
        sink: &mut S,
        end: &mut RunEnd,
    ) -> Result<bool, S::Error> {
        let Some((outcome, found)) = processed else {
            end.interrupted = true;
            return Ok(false);
        };
        for c in &found {
            sink.verified(task, c);
        }
        let failed = match &outcome {
            TaskOutcome::Failed(why) | TaskOutcome::Unverifiable(why) => Some(why.clone()),
            _ => None,
        };
        sink.finished(task, outcome)?;
        end.finished += 1;
        if self.oracle.broken() {
            end.broken = Some(failed.unwrap_or_default());
            return Ok(false);
        }
        Ok(true)
    }

    /// Validates `task` as `job` needs it, or `None` when the run was asked to stop.
    fn validate_for<J: Job>(&self, job: &J, t: &Task) -> Option<Validated> {
        if self.stopped() {
            None
        } else if !job.needs_reference() {
            // The job does without tests; the original must still parse in its language.
            Some(match crate::program::validate_as(t.language, &t.source) {
                Ok(()) => Validated::Ready(None),
                Err(e) => Validated::Skipped(format!(
                    "original is unparseable: the original does not parse as {}: {e}",
                    t.language.title()
                )),
            })
        } else {
            Some(self.validated(t))
        }
    }

    /// Runs `job` on a validated task: its outcome and the candidates it verified. A panic in
    /// the job is the task's error (its candidates are dropped: the job did not finish).
    fn process<J: Job>(&self, job: &J, task: &Task, v: Validated) -> Processed<J::Output> {
        let mut found = Vec::new();
        let outcome = match v {
            Validated::Skipped(why) => TaskOutcome::Skipped(why),
            Validated::Unverifiable(why) => TaskOutcome::Unverifiable(why),
            Validated::Ready(reference) => {
                let ran = catch_task_panic(|| {
                    job.run(task, reference.as_ref(), &mut |c| found.push(c.clone()))
                });
                match ran {
                    Ok(Ok(o)) => TaskOutcome::Done(o),
                    Ok(Err(why)) => TaskOutcome::Failed(why),
                    Err(panic) => {
                        found.clear();
                        TaskOutcome::Failed(panic)
                    }
                }
            }
        };
        (outcome, found)
    }

    /// The original's reference behaviour, or the outcome that says why there is none.
    fn validated(&self, task: &Task) -> Validated {
        let v = match catch_task_panic(|| self.oracle.validate(task)) {
            Ok(v) => v,
            Err(panic) => {
                return Validated::Unverifiable(format!("validating the original: {panic}"))
            }
        };
        match (v.status, v.reference) {
            (ValidationStatus::Ok, Some(reference)) => Validated::Ready(Some(reference)),
            (status, _) => {
                // The status in lower case; the reason as it is (it quotes program output).
                let word = format!("{status:?}").to_lowercase();
                let why = format!("original is {word}: {}", v.reason.unwrap_or_default());
                if status == ValidationStatus::Error {
                    Validated::Unverifiable(why)
                } else {
                    Validated::Skipped(why)
                }
            }
        }
    }
}

/// A task's outcome and the candidates its job verified.
type Processed<T> = (TaskOutcome<T>, Vec<Candidate>);

/// A validated original: ready (with its reference, if the job needs one), or why not.
enum Validated {
    Ready(Option<Reference>),
    Skipped(String),
    Unverifiable(String),
}

/// Runs `f`, turning a panic into its message ("equimorph panicked: …"), so that one task's
/// bug is that task's error and never the end of a run. Panics are bugs of equimorph (hostile
/// programs and transforms fail in their sandboxes); the default hook has already printed
/// where it happened.
pub fn catch_task_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("a panic without a message");
        format!("equimorph panicked on this task (an internal error, please report it): {message}")
    })
}
