//! Re-judging a finished run with stronger tests: every winner of an `attack` run (or variant of
//! an `augment` run) is checked again against the tasks of another task file (typically the
//! output of `equimorph tests grow`), so an old run's claim can be upgraded, or corrected,
//! without redoing the search.

use crate::adequacy::symbolic::{SymbolicChecker, SymbolicVerdict};
use crate::oracle::{Oracle, Reference, ValidationStatus};
use crate::task::{Task, TaskSet};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use thiserror::Error;

/// Why a run cannot be re-judged.
#[derive(Debug, Error)]
pub enum VerifyError {
    /// Neither results.jsonl nor variants.jsonl.
    #[error(
        "{0} holds neither results.jsonl (attack) nor variants.jsonl (augment): nothing to re-judge"
    )]
    NotARun(String),
    /// An attack run's results could not be read.
    #[error(transparent)]
    Results(#[from] crate::report::results::ResultsError),
    /// An augment run's logs could not be read.
    #[error(transparent)]
    Augment(#[from] crate::augment::summary::AugmentOutputError),
}

/// A program a run reported.
#[derive(Debug, Clone, Serialize)]
pub struct Reported {
    /// Its task.
    pub task_id: String,
    /// `winner`, or `variant N`.
    pub label: String,
    /// The program.
    #[serde(skip)]
    pub source: String,
}

/// The programs `dir` reports, and the run's kind (`attack` or `augment`).
pub fn reported(dir: &Path) -> Result<(&'static str, Vec<Reported>), VerifyError> {
    let results = dir.join("results.jsonl");
    if results.is_file() {
        let lines = crate::report::results::read(&results)?;
        let out = lines
            .into_iter()
            .filter_map(|l| {
                let best = l.best?;
                (best != l.original).then(|| Reported {
                    task_id: l.id,
                    label: "winner".into(),
                    source: best,
                })
            })
            .collect();
        return Ok(("attack", out));
    }
    if dir.join("variants.jsonl").is_file() {
        let (_, variants, _) = crate::augment::summary::read_run(dir)?;
        let out = variants
            .into_iter()
            .map(|v| Reported {
                task_id: v.task_id,
                label: format!("variant {}", v.variant),
                source: v.source,
            })
            .collect();
        return Ok(("augment", out));
    }
    Err(VerifyError::NotARun(dir.display().to_string()))
}

/// The new verdict on one reported program.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Behaves like its original on every test of the new task file.
    Passes,
    /// Rejected: the first test it fails.
    Rejected {
        /// 0-based test index.
        test: usize,
        /// Whether that test was grown.
        grown: bool,
        /// The call of a call-level test.
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
    },
    /// Passes the tests but a confirmed symbolic counterexample rejects it.
    RejectedSymbolically {
        /// The counterexample's call.
        call: String,
    },
    /// The new task file has no task with this id.
    NoTask,
    /// The original does not pass the new tests itself (flaky, failing…): no verdict.
    OriginalInvalid {
        /// Why.
        reason: String,
    },
    /// The sandbox failed: no verdict.
    Fault {
        /// What failed.
        reason: String,
    },
}

/// One reported program and its new verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Rejudged {
    /// The program.
    #[serde(flatten)]
    pub program: Reported,
    /// Tests of its task in the new file.
    pub tests: usize,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// What the symbolic check (CrossHair) found, when it was asked for and the program
    /// passed the tests (otherwise it is not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicVerdict>,
}

/// Re-judges `programs` against the tasks of `tasks` (and, with `symbolic`, CrossHair).
pub fn rejudge(
    oracle: &Oracle,
    tasks: &TaskSet,
    programs: Vec<Reported>,
    symbolic: Option<&SymbolicChecker>,
) -> Vec<Rejudged> {
    rejudge_with(oracle, tasks, programs, symbolic, &|| {})
}

/// [`rejudge`], calling `judged` once per program as its verdict is in (for progress).
pub fn rejudge_with(
    oracle: &Oracle,
    tasks: &TaskSet,
    programs: Vec<Reported>,
    symbolic: Option<&SymbolicChecker>,
    judged: &(dyn Fn() + Sync),
) -> Vec<Rejudged> {
    use rayon::prelude::*;
    let by_id: BTreeMap<&str, &Task> = tasks.tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    // One validation per task, shared by its programs.
    let ids: Vec<String> = {
        let mut v: Vec<String> = programs.iter().map(|p| p.task_id.clone()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let references: BTreeMap<&str, Result<Reference, String>> = ids
        .par_iter()
        .filter_map(|id| by_id.get_key_value(id.as_str()).map(|(k, t)| (*k, t)))
        .map(|(id, t)| {
            // A panic while validating is this task's error, never the end of the run.
            let r = match crate::pipeline::catch_task_panic(|| oracle.validate(t)) {
                Err(panic) => Err(panic),
                Ok(v) => match (v.status, v.reference) {
                    (ValidationStatus::Ok, Some(r)) => Ok(r),
                    (s, _) => Err(format!("{s:?}: {}", v.reason.unwrap_or_default())),
                },
            };
            (id, r)
        })
        .collect();
    programs
        .into_par_iter()
        .map(|p| {
            let Some(task) = by_id.get(p.task_id.as_str()) else {
                judged();
                return Rejudged {
                    program: p,
                    tests: 0,
                    verdict: Verdict::NoTask,
                    symbolic: None,
                };
            };
            let tests = task.test_count();
            let (verdict, symbolic) = match references.get(p.task_id.as_str()) {
                Some(Ok(reference)) => crate::pipeline::catch_task_panic(|| {
                    judge(oracle, task, reference, &p.source, symbolic)
                })
                .unwrap_or_else(|reason| (Verdict::Fault { reason }, None)),
                Some(Err(reason)) => (
                    Verdict::OriginalInvalid {
                        reason: reason.clone(),
                    },
                    None,
                ),
                None => (Verdict::NoTask, None),
            };
            judged();
            Rejudged {
                program: p,
                tests,
                verdict,
                symbolic,
            }
        })
        .collect()
}

/// The verdict on `source`, and the symbolic check's when it ran.
fn judge(
    oracle: &Oracle,
    task: &Task,
    reference: &Reference,
    source: &str,
    symbolic: Option<&SymbolicChecker>,
) -> (Verdict, Option<SymbolicVerdict>) {
    match oracle.check(task, reference, source) {
        Err(e) => (
            Verdict::Fault {
                reason: e.to_string(),
            },
            None,
        ),
        Ok(d) if !d.equivalent => {
            let f = d.failure.as_ref();
            (
                Verdict::Rejected {
                    test: f.map_or(0, |f| f.test),
                    grown: f.is_some_and(|f| f.grown),
                    call: f.and_then(|f| f.call.clone()),
                },
                None,
            )
        }
        Ok(_) => {
            let found = symbolic.map(|s| s.check(oracle, task, source));
            let verdict = match &found {
                Some(SymbolicVerdict::Counterexample { test }) => Verdict::RejectedSymbolically {
                    call: test.call.clone().unwrap_or_default(),
                },
                _ => Verdict::Passes,
            };
            (verdict, found)
        }
    }
}

/// Counts of a re-judged run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    /// Programs re-judged.
    pub programs: usize,
    /// Still passing.
    pub passes: usize,
    /// Rejected by a test.
    pub rejected: usize,
    /// Of them, by a grown test.
    pub rejected_by_grown: usize,
    /// Rejected by a symbolic counterexample.
    pub rejected_symbolically: usize,
    /// Without a verdict (no task, invalid original, sandbox fault).
    pub no_verdict: usize,
    /// What the symbolic check did, when it was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicTally>,
}

/// What the symbolic check (CrossHair) did over a re-judged run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SymbolicTally {
    /// Programs CrossHair examined (every outcome below but `not_applicable`).
    pub examined: usize,
    /// Of them, with a confirmed counterexample.
    pub counterexamples: usize,
    /// Of them, with a counterexample the oracle did not confirm.
    pub unconfirmed: usize,
    /// Of them, where CrossHair failed or ran out of time.
    pub failed: usize,
    /// Of them, with no difference found within the budget.
    pub no_difference: usize,
    /// Passing programs CrossHair could not examine, by reason ("the task has no entry
    /// point").
    pub not_applicable: BTreeMap<String, usize>,
    /// Programs it was not run on: rejected by a test first, or without a verdict.
    pub not_run: usize,
}

impl SymbolicTally {
    /// The counts of `judged`, re-judged with a symbolic checker.
    pub fn of(judged: &[Rejudged]) -> SymbolicTally {
        let mut t = SymbolicTally::default();
        for j in judged {
            match &j.symbolic {
                None => t.not_run += 1,
                Some(SymbolicVerdict::NotApplicable { reason }) => {
                    *t.not_applicable.entry(reason.clone()).or_default() += 1;
                }
                Some(v) => {
                    t.examined += 1;
                    match v {
                        SymbolicVerdict::Counterexample { .. } => t.counterexamples += 1,
                        SymbolicVerdict::Unconfirmed { .. } => t.unconfirmed += 1,
                        SymbolicVerdict::Failed { .. } => t.failed += 1,
                        _ => t.no_difference += 1,
                    }
                }
            }
        }
        t
    }
}

impl Tally {
    /// The counts of `judged`, with what the symbolic check did when `symbolic` (it was
    /// asked for).
    pub fn with_symbolic(judged: &[Rejudged], symbolic: bool) -> Tally {
        Tally {
            symbolic: symbolic.then(|| SymbolicTally::of(judged)),
            ..Tally::of(judged)
        }
    }

    /// The counts of `judged`.
    pub fn of(judged: &[Rejudged]) -> Tally {
        let mut t = Tally {
            programs: judged.len(),
            ..Tally::default()
        };
        for j in judged {
            match &j.verdict {
                Verdict::Passes => t.passes += 1,
                Verdict::Rejected { grown, .. } => {
                    t.rejected += 1;
                    t.rejected_by_grown += usize::from(*grown);
                }
                Verdict::RejectedSymbolically { .. } => t.rejected_symbolically += 1,
                _ => t.no_verdict += 1,
            }
        }
        t
    }
}
