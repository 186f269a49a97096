//! The verify job (`equimorph verify RUN_DIR --tasks TASKS2`): re-judges a finished run's
//! winners or variants against stronger tests, from the run's reported programs, a loaded
//! task set and an oracle to a typed [`VerifyOutcome`] from which the exit status follows.
//! The command line parses arguments, reads the run ([`crate::verify::reported`]), loads the
//! tasks, starts the oracle (and CrossHair), calls [`VerifyJob::run`] and prints the outcome.
//!
//! A panic while judging a program is that program's fault (no verdict), never the end of the
//! run (see [`crate::verify::rejudge`]). The verdicts are written to `verify.json` in the run
//! directory.

use super::exit::ExitStatus;
use super::{Printout, Progress};
use crate::adequacy::symbolic::SymbolicChecker;
use crate::oracle::Oracle;
use crate::task::TaskSet;
use crate::verify::{rejudge_with, Rejudged, Reported, Tally, Verdict};
use std::path::PathBuf;
use thiserror::Error;

/// Why `verify` stopped with an error.
#[derive(Debug, Error)]
pub enum VerifyJobError {
    /// `verify.json` could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// `verify`: a finished run's programs, judged again.
pub struct VerifyJob<'a> {
    /// The run directory.
    pub run: PathBuf,
    /// The run's kind (`attack` or `augment`).
    pub kind: &'static str,
    /// The programs the run reported.
    pub programs: Vec<Reported>,
    /// The tasks to judge against.
    pub tasks: &'a TaskSet,
    /// The task file as the user named it.
    pub tasks_label: String,
    /// The oracle.
    pub oracle: &'a Oracle,
    /// The symbolic check (`--verify symbolic`), if asked for.
    pub symbolic: Option<&'a SymbolicChecker>,
}

/// How `verify` ended.
#[derive(Debug)]
pub struct VerifyOutcome {
    /// The run directory.
    pub run: PathBuf,
    /// The run's kind (`attack` or `augment`).
    pub kind: &'static str,
    /// The task file as the user named it.
    pub tasks_label: String,
    /// The counts.
    pub tally: Tally,
    /// Every program with its new verdict.
    pub judged: Vec<Rejudged>,
    /// Where the verdicts were written (`verify.json`).
    pub written: PathBuf,
}

impl VerifyJob<'_> {
    /// Re-judges every reported program (advancing `progress` as each verdict is in) and
    /// writes `verify.json` in the run directory.
    pub fn run(self, progress: &dyn Progress) -> Result<VerifyOutcome, VerifyJobError> {
        let (oracle, tasks, symbolic) = (self.oracle, self.tasks, self.symbolic);
        let programs = self.programs;
        let total = programs.len() as u64;
        let judged = super::tests::reporting(progress, total, "programs judged", |tick| {
            rejudge_with(oracle, tasks, programs, symbolic, tick)
        });
        let outcome = VerifyOutcome {
            tally: Tally::with_symbolic(&judged, self.symbolic.is_some()),
            judged,
            written: self.run.join("verify.json"),
            run: self.run,
            kind: self.kind,
            tasks_label: self.tasks_label,
        };
        std::fs::write(&outcome.written, format!("{:#}", outcome.json())).map_err(|source| {
            VerifyJobError::Write {
                path: outcome.written.clone(),
                source,
            }
        })?;
        Ok(outcome)
    }
}

impl VerifyOutcome {
    /// The exit status the outcome calls for: 1 when some program was rejected or has no
    /// verdict.
    pub fn status(&self) -> ExitStatus {
        let t = &self.tally;
        if t.rejected + t.rejected_symbolically + t.no_verdict == 0 {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// The verdicts as JSON (`verify.json`, and `verify --json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "run": self.run.display().to_string(),
            "kind": self.kind,
            "tasks": self.tasks_label,
            "tally": self.tally,
            "programs": self.judged,
        })
    }

    /// What `verify` tells its user at the end: the JSON document with `json`, else every
    /// program that no longer passes, the counts and where the verdicts are.
    pub fn printout(&self, json: bool) -> Printout {
        let mut p = Printout::new();
        if json {
            p.out(format!("{:#}", self.json()));
            return p;
        }
        for j in &self.judged {
            if let Some(what) = verdict_words(&j.verdict) {
                p.out(format!(
                    "{} ({}): {what}",
                    j.program.task_id, j.program.label
                ));
            }
        }
        let noun = if self.kind == "attack" {
            "winner(s)"
        } else {
            "variant(s)"
        };
        let t = &self.tally;
        p.out(format!(
            "{} of {} {noun} still pass the tests of {}; {} rejected ({} by a grown test), {} by \
             a symbolic counterexample, {} without a verdict",
            t.passes,
            t.programs,
            self.tasks_label,
            t.rejected,
            t.rejected_by_grown,
            t.rejected_symbolically,
            t.no_verdict
        ));
        if let Some(line) = self.symbolic_line(noun) {
            p.out(line);
        }
        p.out(format!("verdicts: {}", self.written.display()));
        p
    }

    /// What the symbolic check did, when it was asked for.
    fn symbolic_line(&self, noun: &str) -> Option<String> {
        let s = self.tally.symbolic.as_ref()?;
        let mut line = format!(
            "symbolic check: CrossHair examined {} of {} {noun}: {} confirmed \
             counterexample(s), {} unconfirmed, {} failed or out of time, {} with no \
             difference found",
            s.examined,
            self.tally.programs,
            s.counterexamples,
            s.unconfirmed,
            s.failed,
            s.no_difference
        );
        let skipped: usize = s.not_applicable.values().sum();
        if skipped > 0 {
            let reasons: Vec<String> = s
                .not_applicable
                .iter()
                .map(|(r, n)| format!("{n}: {r}"))
                .collect();
            line.push_str(&format!(
                "; {skipped} it could not examine ({})",
                reasons.join("; ")
            ));
        }
        if s.not_run > 0 {
            line.push_str(&format!(
                "; {} not given to it (rejected by a test, or without a verdict)",
                s.not_run
            ));
        }
        Some(line)
    }
}

/// A verdict in words, or `None` for a program that still passes.
fn verdict_words(verdict: &Verdict) -> Option<String> {
    Some(match verdict {
        Verdict::Passes => return None,
        Verdict::Rejected { test, grown, call } => format!(
            "rejected by {} test {test}{}",
            if *grown { "grown" } else { "original" },
            call.as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default()
        ),
        Verdict::RejectedSymbolically { call } => {
            format!("rejected by a symbolic counterexample: {call}")
        }
        Verdict::NoTask => "no task with this id in --tasks".into(),
        Verdict::OriginalInvalid { reason } => {
            format!("no verdict: the original fails the new tests ({reason})")
        }
        Verdict::Fault { reason } => format!("no verdict: {reason}"),
    })
}
