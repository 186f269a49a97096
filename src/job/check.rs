//! `equimorph check`: A(x, x′) for one candidate against its task's original, with the first
//! test on which they differ.
//!
//! An invalid candidate (one that does not parse, or does not compile) gets no verdict: it is
//! an error of the input (exit 2), never "not equivalent" (exit 1). So is a fault of the
//! sandbox that the original shares; one only the candidate causes is a verdict.

use super::exit::ExitStatus;
use super::Printout;
use crate::language::Language;
use crate::oracle::{Decision, Oracle, OracleFault, ValidationStatus};
use crate::program::{validate_as, InvalidProgram};
use crate::task::{Task, TaskSet};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a candidate got no verdict.
#[derive(Debug, Error)]
pub enum CheckError {
    /// No task has the id asked for.
    #[error("no task with id {id:?} in {}", .tasks.display())]
    NoTask {
        /// The id.
        id: String,
        /// The task file.
        tasks: PathBuf,
    },
    /// The candidate does not parse as a program of the task's language.
    #[error(
        "the candidate {} is not a valid {} program ({error}): no verdict",
        .path.display(),
        .language.title()
    )]
    Unparseable {
        /// The candidate's file.
        path: PathBuf,
        /// The task's language.
        language: Language,
        /// The parser's complaint.
        error: InvalidProgram,
    },
    /// The original does not pass its own tests: there is nothing to compare with.
    #[error("the original of {id:?} is {status:?}: {reason}")]
    Original {
        /// The task id.
        id: String,
        /// How the original fared.
        status: ValidationStatus,
        /// Why.
        reason: String,
    },
    /// The sandbox failed on the original's side too.
    #[error(transparent)]
    Fault(#[from] OracleFault),
    /// The candidate does not compile (a Java program), so it is not a program.
    #[error(
        "the candidate {} does not compile, so it is not a program: no verdict\n{}",
        .path.display(),
        .why.trim_end()
    )]
    DoesNotCompile {
        /// The candidate's file.
        path: PathBuf,
        /// The compiler's message.
        why: String,
    },
}

/// The task `id` of `tasks` (loaded from `path`).
pub fn task<'a>(tasks: &'a TaskSet, path: &Path, id: &str) -> Result<&'a Task, CheckError> {
    tasks.get(id).ok_or_else(|| CheckError::NoTask {
        id: id.to_string(),
        tasks: path.to_path_buf(),
    })
}

/// One candidate, valid in its task's language, to check against the task's original.
#[derive(Debug)]
pub struct CheckJob<'a> {
    task: &'a Task,
    path: PathBuf,
    candidate: String,
}

/// The oracle's decision on the candidate.
#[derive(Debug, Clone)]
pub struct CheckOutcome {
    /// The decision (equivalent, or the first failing test).
    pub decision: Decision,
    /// The original's tests.
    pub tests: usize,
}

impl<'a> CheckJob<'a> {
    /// The candidate `text` (read from `path`) for `task`; an error if it does not parse as a
    /// program of the task's language.
    pub fn new(task: &'a Task, path: &Path, text: String) -> Result<Self, CheckError> {
        validate_as(task.language, &text).map_err(|error| CheckError::Unparseable {
            path: path.to_path_buf(),
            language: task.language,
            error,
        })?;
        Ok(CheckJob {
            task,
            path: path.to_path_buf(),
            candidate: text,
        })
    }

    /// Validates the original on its tests, then runs the candidate on them.
    pub fn run(&self, oracle: &Oracle) -> Result<CheckOutcome, CheckError> {
        let validation = oracle.validate(self.task);
        let Some(reference) = validation
            .reference
            .as_ref()
            .filter(|_| validation.status == ValidationStatus::Ok)
        else {
            return Err(CheckError::Original {
                id: self.task.id.clone(),
                status: validation.status,
                reason: validation.reason.unwrap_or_default(),
            });
        };
        // A fault of the sandbox that the original shares is an error, never "not
        // equivalent"; one only the candidate causes (it kills its harness) is a verdict.
        let decision = oracle.check(self.task, reference, &self.candidate)?;
        if let Some(why) = &decision.invalid {
            return Err(CheckError::DoesNotCompile {
                path: self.path.clone(),
                why: why.clone(),
            });
        }
        Ok(CheckOutcome {
            decision,
            tests: reference.runs.len(),
        })
    }
}

impl CheckOutcome {
    /// 0 when equivalent, 1 when not.
    pub fn status(&self) -> ExitStatus {
        if self.decision.equivalent {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// The verdict, and for a candidate that is not equivalent the first failing test (its
    /// call, input, expected and actual output, stderr tail); or the decision as JSON.
    pub fn printout(&self, json: bool) -> Printout {
        let mut p = Printout::new();
        if json {
            p.out(serde_json::to_string_pretty(&self.decision).unwrap_or_default());
            return p;
        }
        if self.decision.equivalent {
            p.out(format!(
                "equivalent: all {} tests behave like the original",
                self.tests
            ));
            return p;
        }
        let Some(f) = &self.decision.failure else {
            return p;
        };
        p.out(match (&f.sandbox_failure, f.left_running) {
            (Some(why), _) => format!("NOT equivalent: test {}: {why}", f.test),
            (None, Some(n)) => format!(
                "NOT equivalent: test {}: the candidate left {n} process(es) running when it \
                 exited; the original left none",
                f.test
            ),
            (None, None) => format!(
                "NOT equivalent: test {}{} differs",
                f.test,
                if f.grown { " (grown)" } else { "" }
            ),
        });
        if let Some(call) = &f.call {
            p.out(format!("--- call ---\n{call}"));
        }
        if !f.input.is_empty() {
            p.out(format!("--- input ---\n{}", f.input.trim_end()));
        }
        p.out(format!(
            "--- expected ({:?}) ---\n{}",
            f.expected_class,
            f.expected.trim_end()
        ))
        .out(format!(
            "--- got ({:?}) ---\n{}",
            f.got_class,
            f.got.trim_end()
        ));
        if !f.stderr_tail.trim().is_empty() {
            p.out(format!(
                "--- stderr (tail) ---\n{}",
                f.stderr_tail.trim_end()
            ));
        }
        p
    }
}
