//! The job layer: what every job (`attack`, `augment`, `select`, `robustness`, `tests`,
//! `validate`…) needs the same way, written once so that a rule holds in all of them.
//!
//! - [`attack`] and [`augment`]: those jobs, from resolved parts to a typed outcome (the model
//!   for the other jobs, which still wire themselves in `src/commands/`);
//! - [`exit`]: the one exit-code table every command follows and documents in its `--help`;
//! - [`interrupt`]: SIGINT/SIGTERM as a flag that jobs check between steps and tasks;
//! - [`threshold`]: the run's success threshold, fixed or calibrated with the one non-clone
//!   rule ([`crate::report::calibration::NON_CLONE_RULE`]).
//!
//! Below it: run directories ([`crate::run`]: one owner per directory, resume keyed by task
//! id, completeness), the per-task [`crate::pipeline`] (a task's panic is that task's error)
//! and the language registry. Commands parse arguments, call the library and print.

pub mod apply;
pub mod attack;
pub mod augment;
pub mod autospt;
pub mod bench;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod dataset;
pub mod diversity;
pub mod exit;
pub mod interrupt;
pub mod llm;
pub mod merge;
pub mod models;
pub mod report;
pub mod robustness;
pub mod score;
pub mod select;
pub mod settings;
pub mod setup;
pub mod tests;
pub mod threshold;
pub mod train;
pub mod transforms;
pub mod validate;
pub mod verify;

/// What a job tells its user when it ends: lines for standard output (its figures, what it
/// wrote) and lines for standard error (warnings, why it stopped). Rendered by the library,
/// so that every front end says the same thing; the command line prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printout {
    /// Lines for standard output.
    pub out: Vec<String>,
    /// Lines for standard error.
    pub err: Vec<String>,
}

impl Printout {
    /// An empty printout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a line (or several, separated by newlines) for standard output.
    pub fn out(&mut self, line: impl Into<String>) -> &mut Self {
        self.out.push(line.into());
        self
    }

    /// Adds a line for standard error (a warning or notice, with its own prefix).
    pub fn err(&mut self, line: impl Into<String>) -> &mut Self {
        self.err.push(line.into());
        self
    }

    /// Appends another printout's lines after this one's.
    pub fn extend(&mut self, other: Printout) -> &mut Self {
        self.out.extend(other.out);
        self.err.extend(other.err);
        self
    }
}

/// What a job tells its user while it runs: progress lines and warnings. The library never
/// prints; the command line implements this by writing to standard error.
pub trait Notices {
    /// A line of progress ("calibrating the threshold on…").
    fn note(&self, message: &str);
    /// A warning: the run goes on, but the user should know.
    fn warn(&self, message: &str);
}

/// How far a job's tasks have come (a progress bar on the command line).
pub trait Progress {
    /// The job is about to run `total` tasks.
    fn start(&self, total: u64);
    /// One more task is finished; `message` holds the running figures.
    fn advance(&self, message: &str);
    /// Every task is finished (or the run stops).
    fn finish(&self);
}

/// No progress shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _total: u64) {}
    fn advance(&self, _message: &str) {}
    fn finish(&self) {}
}

/// Notices that go nowhere (library callers that do not report progress, tests).
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Notices for Silent {
    fn note(&self, _message: &str) {}
    fn warn(&self, _message: &str) {}
}

/// The exit status of a job that ran tasks through the pipeline and produced `produced`
/// usable results in all (this invocation's and earlier ones').
pub fn run_status(end: &crate::pipeline::RunEnd, produced: usize) -> exit::ExitStatus {
    if end.interrupted {
        exit::ExitStatus::Interrupted
    } else if end.broken.is_some() {
        exit::ExitStatus::Error
    } else if produced == 0 {
        exit::ExitStatus::Negative
    } else {
        exit::ExitStatus::Ok
    }
}

/// Distinct task ids among `tasks` that a run of `shard` must finish.
pub fn planned_tasks<'a>(
    tasks: impl IntoIterator<Item = &'a crate::task::Task>,
    shard: Option<crate::report::shard::Shard>,
) -> usize {
    tasks
        .into_iter()
        .filter(|t| shard.is_none_or(|s| s.owns(&t.id)))
        .map(|t| t.id.as_str())
        .collect::<std::collections::HashSet<_>>()
        .len()
}
