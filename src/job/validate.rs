//! The validate job (`equimorph validate`): runs every original twice and classifies it, from
//! a loaded task set and an oracle to a typed [`ValidateOutcome`] from which the exit status
//! follows. The command line parses arguments, loads the tasks, starts the oracle, calls
//! [`ValidateJob::run`] and prints the outcome.
//!
//! Tasks run in parallel; an interrupt stops taking tasks (exit 130), and a task's panic is
//! that task's error (status `error`), never the end of the run.

use super::exit::ExitStatus;
use super::{Printout, Progress};
use crate::adequacy::{SetAdequacy, TestsRecord};
use crate::oracle::{Isolation, Oracle, Validation, ValidationStatus};
use crate::program::Language;
use crate::task::{LoadReport, TaskSet};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// `validate`: do the originals pass their own tests, deterministically.
pub struct ValidateJob<'a> {
    /// The tasks.
    pub tasks: &'a TaskSet,
    /// The oracle that runs them.
    pub oracle: &'a Oracle,
}

/// How `validate` ended.
#[derive(Debug)]
pub struct ValidateOutcome {
    /// The verdicts on the originals reached, in task order.
    pub results: Vec<Validation>,
    /// Tasks with tests.
    pub tasks: usize,
    /// Load warnings (notes on the input, not failures of an original).
    pub load_problems: Vec<String>,
    /// What the load kept and skipped.
    pub dataset: LoadReport,
    /// The tasks' test counts.
    pub adequacy: SetAdequacy,
    /// Each task's tests.
    pub tests: BTreeMap<String, TestsRecord>,
    /// The sandbox in force.
    pub isolation: Isolation,
    /// The limits of each language the tasks are written in (Python's when there is none).
    pub limits: BTreeMap<&'static str, Vec<String>>,
    /// Seconds the run took.
    pub seconds: f64,
}

impl ValidateJob<'_> {
    /// Validates every original, stopping at the next task once `stop` is set.
    pub fn run(&self, stop: &AtomicBool, progress: &dyn Progress) -> ValidateOutcome {
        let set = self.tasks;
        let start = Instant::now();
        let results = super::tests::map_tasks(&set.tasks, stop, progress, "", |t| {
            let v = crate::pipeline::catch_task_panic(|| {
                crate::adequacy::score::test_panic_point(&t.id);
                self.oracle.validate(t)
            });
            Some(v.unwrap_or_else(|why| Validation {
                id: t.id.clone(),
                status: ValidationStatus::Error,
                reason: Some(why),
                reference: None,
            }))
        });
        let mut limits = BTreeMap::new();
        for language in set.tasks.iter().map(|t| t.language) {
            limits
                .entry(language.name())
                .or_insert_with(|| self.oracle.limits_of(language));
        }
        if limits.is_empty() {
            limits.insert(
                Language::Python.name(),
                self.oracle.limits_of(Language::Python),
            );
        }
        ValidateOutcome {
            results: results.into_iter().flatten().collect(),
            tasks: set.tasks.len(),
            load_problems: set.problems.iter().map(|p| p.to_string()).collect(),
            dataset: set.report(),
            adequacy: SetAdequacy::of(&set.tasks),
            tests: set
                .tasks
                .iter()
                .map(|t| (t.id.clone(), TestsRecord::of(t)))
                .collect(),
            isolation: self.oracle.isolation().clone(),
            limits,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

impl ValidateOutcome {
    /// Tasks not reached before an interrupt.
    pub fn pending(&self) -> usize {
        self.tasks - self.results.len()
    }

    /// The verdicts of status `s`.
    fn of(&self, s: ValidationStatus) -> impl Iterator<Item = &Validation> {
        self.results.iter().filter(move |v| v.status == s)
    }

    /// The exit status the outcome calls for: 130 when interrupted; 1, a negative answer,
    /// when some original is not ok (or there was none to check). Load warnings are notes.
    pub fn status(&self) -> ExitStatus {
        let ok = self.of(ValidationStatus::Ok).count();
        if self.pending() > 0 {
            ExitStatus::Interrupted
        } else if ok == self.results.len() && !self.results.is_empty() {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// The whole result as JSON (`validate --json`).
    pub fn json(&self) -> serde_json::Value {
        let list = |s| -> Vec<serde_json::Value> {
            self.of(s)
                .map(|v| serde_json::json!({"id": v.id, "reason": v.reason}))
                .collect()
        };
        serde_json::json!({
            "ok": self.of(ValidationStatus::Ok).count(),
            "failing": list(ValidationStatus::Failing),
            "flaky": list(ValidationStatus::Flaky),
            "timeout": list(ValidationStatus::Timeout),
            "unparseable": list(ValidationStatus::Unparseable),
            "load_problems": self.load_problems,
            "dataset": self.dataset,
            "adequacy": self.adequacy,
            "tests": self.tests,
            "isolation": self.isolation,
            "limits": self.limits,
            "complete": self.pending() == 0,
            "pending": self.pending(),
            "seconds": self.seconds,
        })
    }

    /// What `validate` tells its user at the end: the JSON document with `json`, else the
    /// sandbox, every original that is not ok, the tests and the counts; and why it stopped.
    pub fn printout(&self, json: bool) -> Printout {
        let mut p = Printout::new();
        if json {
            p.out(format!("{:#}", self.json()));
        } else {
            self.text(&mut p);
        }
        if self.pending() > 0 {
            p.err(format!(
                "interrupted: validated {} of {} task(s); rerun the same command to validate \
                 them all",
                self.results.len(),
                self.tasks
            ));
        }
        p
    }

    /// The lines of the text form.
    fn text(&self, p: &mut Printout) {
        let iso = &self.isolation;
        let limits: Vec<String> = self
            .limits
            .iter()
            .map(|(language, l)| format!("{language}: {}", l.join(", ")))
            .collect();
        p.out(format!(
            "sandbox: {} (uid {}, network isolated: {}, read-only filesystem: {}, pid \
             namespace: {}; {})",
            iso.launcher,
            iso.uid.map_or("?".into(), |u| u.to_string()),
            iso.network_isolated,
            iso.filesystem_read_only,
            iso.pid_namespace,
            limits.join("; ")
        ));
        for v in self
            .results
            .iter()
            .filter(|v| v.status != ValidationStatus::Ok)
        {
            p.out(format!(
                "{:<11} {}: {}",
                format!("{:?}", v.status).to_lowercase(),
                v.id,
                v.reason.as_deref().unwrap_or("")
            ));
        }
        p.out(self.adequacy.describe());
        let n = |s| self.of(s).count();
        p.out(format!(
            "{} ok, {} failing, {} flaky, {} timeout, {} unparseable, {} load warning(s) ({} \
             tasks in {:.1}s)",
            n(ValidationStatus::Ok),
            n(ValidationStatus::Failing),
            n(ValidationStatus::Flaky),
            n(ValidationStatus::Timeout),
            n(ValidationStatus::Unparseable),
            self.load_problems.len(),
            self.results.len(),
            self.seconds
        ));
        if !self.load_problems.is_empty() {
            p.out(format!(
                "note: {} load warning(s) above (on stderr): notes on the input, not failures \
                 of an original",
                self.load_problems.len()
            ));
        }
    }
}
