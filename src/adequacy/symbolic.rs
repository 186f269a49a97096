//! A symbolic differential check of a function task's candidate against its original:
//! CrossHair's `diffbehavior` searches for arguments on which the two entry points differ.
//!
//! CrossHair runs in the oracle's sandbox (bubblewrap or rlimits, no network, a private
//! `/tmp`), started from the virtualenv that `scripts/setup-models.sh` fills, with a time
//! budget. What it reports is never taken on trust: its arguments become a call-level test,
//! and the real oracle must see the original and the candidate differ on it. A confirmed
//! counterexample is a grown test of the task (`output` = the original's).

use crate::oracle::last_line;
use crate::oracle::{
    outputs_equal, ExitClass, Oracle, OracleConfig, OracleError, OracleMode, ResourceLimits,
    REFERENCE_HASH_SEED, SECOND_HASH_SEED,
};
use crate::program::with_tree;
use crate::task::{Task, TestCase};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// Why the symbolic check cannot run at all.
#[derive(Debug, Error)]
pub enum SymbolicError {
    /// The sandbox could not start.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// CrossHair is not importable from that interpreter.
    #[error(
        "CrossHair is not installed for {python} (run scripts/setup-models.sh, or pass \
         --crosshair-python): {detail}"
    )]
    NoCrossHair {
        /// The interpreter tried.
        python: PathBuf,
        /// What it said.
        detail: String,
    },
}

/// The outcome of one symbolic check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum SymbolicVerdict {
    /// The task is not a function task with annotated parameters, or the candidate is the
    /// original.
    NotApplicable {
        /// Why.
        reason: String,
    },
    /// No difference found within the budget (not a proof of equivalence).
    NoCounterexample,
    /// CrossHair reported a difference that the real oracle did not confirm.
    Unconfirmed {
        /// The call CrossHair proposed.
        call: String,
    },
    /// A confirmed counterexample: a test on which the candidate and the original differ.
    Counterexample {
        /// The test (output = the original's).
        test: TestCase,
    },
    /// CrossHair failed or ran out of time without an answer.
    Failed {
        /// What happened.
        reason: String,
    },
}

/// The driver run inside the sandbox: writes both programs as modules in the private `/tmp`
/// and runs `crosshair diffbehavior` on their entry points.
const DRIVER: &str = r#"
import json, os, sys, tempfile
job = json.loads(sys.stdin.read())
work = tempfile.mkdtemp(prefix="equimorph-symbolic-")
for name in ("em_original", "em_candidate"):
    with open(os.path.join(work, name + ".py"), "w") as f:
        f.write(job[name])
sys.path.insert(0, work)
from crosshair.main import main
sys.argv = ["crosshair", "diffbehavior", "em_original." + job["entry"],
            "em_candidate." + job["entry"], "--per_condition_timeout", str(job["budget"]),
            "--exception_equivalence", "SAME_TYPE"]
sys.exit(main())
"#;

/// Runs CrossHair in the sandbox.
pub struct SymbolicChecker {
    sandbox: Oracle,
    budget: Duration,
}

/// The interpreter with CrossHair that setup installs ([`crate::install::python`]).
pub fn default_crosshair_python() -> PathBuf {
    crate::install::python()
}

impl SymbolicChecker {
    /// A checker with CrossHair from `python`, spending about `budget` per check.
    pub fn new(python: PathBuf, budget: Duration) -> Result<Self, SymbolicError> {
        let config = OracleConfig {
            python: python.clone(),
            mode: OracleMode::Spawn,
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            limits: ResourceLimits {
                // The solver needs more room than a test run.
                address_space: 4 << 30,
                cpu_seconds: budget.as_secs().saturating_mul(4).max(30),
                ..ResourceLimits::default()
            },
            ..OracleConfig::default()
        };
        let sandbox = Oracle::new(config)?;
        let probe = sandbox.run(
            "import crosshair.main\nprint('ok')\n",
            "",
            Duration::from_secs(60),
        );
        if probe.stdout.trim() != "ok" {
            return Err(SymbolicError::NoCrossHair {
                python,
                detail: last_line(&probe.stderr_tail),
            });
        }
        Ok(SymbolicChecker { sandbox, budget })
    }

    /// Looks for an input on which `candidate` and the original of `task` differ, and confirms
    /// it with `oracle`.
    pub fn check(&self, oracle: &Oracle, task: &Task, candidate: &str) -> SymbolicVerdict {
        let Some(entry) = task.entry_point.as_deref() else {
            return SymbolicVerdict::NotApplicable {
                reason: "the task has no entry point".into(),
            };
        };
        if candidate == task.source {
            return SymbolicVerdict::NotApplicable {
                reason: "the candidate is the original".into(),
            };
        }
        if !annotated(&task.source, entry) {
            return SymbolicVerdict::NotApplicable {
                reason: format!("{entry} has parameters without type annotations"),
            };
        }
        let job = serde_json::json!({
            "em_original": task.source,
            "em_candidate": candidate,
            "entry": entry,
            "budget": self.budget.as_secs_f64(),
        });
        let timeout = self.budget * 3 + Duration::from_secs(30);
        let r = self.sandbox.run(DRIVER, &job.to_string(), timeout);
        if r.class == ExitClass::Timeout {
            return SymbolicVerdict::Failed {
                reason: format!("CrossHair ran past {timeout:?}"),
            };
        }
        let Some(args) = given(&r.stdout) else {
            return if r.code == Some(0) {
                SymbolicVerdict::NoCounterexample
            } else {
                SymbolicVerdict::Failed {
                    reason: format!(
                        "CrossHair exited with {:?}: {}",
                        r.code,
                        last_line(&r.stderr_tail)
                    ),
                }
            };
        };
        let call = format!("print(repr({entry}({args})))");
        match confirm(oracle, task, candidate, &call) {
            Some(test) => SymbolicVerdict::Counterexample { test },
            None => SymbolicVerdict::Unconfirmed { call },
        }
    }
}

/// The arguments of the first counterexample in CrossHair's report
/// (`Given: (x=10, s='a'),` → `x=10, s='a'`).
fn given(stdout: &str) -> Option<String> {
    let start = stdout.find("Given: (")? + "Given: (".len();
    let rest = &stdout[start..];
    // The arguments end at the last "),\n" before the first result line.
    let end = rest.find("\n  ").map_or(rest.len(), |i| i);
    let args = rest[..end].trim_end().strip_suffix("),")?;
    crate::program::validate(&format!("f({args})\n"))
        .ok()
        .map(|_| args.to_string())
}

/// Whether every parameter of the top-level function `entry` in `source` is annotated.
fn annotated(source: &str, entry: &str) -> bool {
    with_tree(source, |tree| {
        let root = tree.root_node();
        let mut c = root.walk();
        for n in root.named_children(&mut c) {
            let def = match n.kind() {
                "function_definition" => n,
                "decorated_definition" => match n.child_by_field_name("definition") {
                    Some(d) => d,
                    None => continue,
                },
                _ => continue,
            };
            let name = def
                .child_by_field_name("name")
                .map(|x| &source[x.byte_range()]);
            if name != Some(entry) {
                continue;
            }
            let Some(params) = def.child_by_field_name("parameters") else {
                return Ok(false);
            };
            let mut pc = params.walk();
            let all = params.named_children(&mut pc).all(|p| {
                matches!(p.kind(), "typed_parameter" | "typed_default_parameter")
                    || p.kind() == "comment"
            });
            return Ok(all && params.named_child_count() > 0);
        }
        Ok(false)
    })
    .unwrap_or(false)
}

/// The call-level test `call`, when the real oracle confirms that `candidate` differs from the
/// original of `task` on it (and the original behaves deterministically there).
pub fn confirm(oracle: &Oracle, task: &Task, candidate: &str, call: &str) -> Option<TestCase> {
    let test = TestCase {
        input: String::new(),
        output: None,
        call: Some(call.to_string()),
        grown: true,
    };
    let cap = oracle.cap_for(task);
    let first = oracle.run_test(task.language, &task.source, &test, cap, REFERENCE_HASH_SEED);
    let second = oracle.run_test(task.language, &task.source, &test, cap, SECOND_HASH_SEED);
    let stable = first.class == second.class
        && first.stdout == second.stdout
        && !matches!(first.class, ExitClass::Timeout | ExitClass::Crash);
    if !stable {
        return None;
    }
    let got = oracle.run_test(
        task.language,
        candidate,
        &test,
        oracle.candidate_timeout(task, first.seconds),
        REFERENCE_HASH_SEED,
    );
    if got.class == ExitClass::Crash {
        return None;
    }
    let differs = got.class != first.class
        || !outputs_equal(&first.stdout, &got.stdout, oracle.config().float_tolerance);
    if !differs {
        return None;
    }
    Some(TestCase {
        output: Some(first.stdout),
        ..test
    })
}

/// What the symbolic check did for one task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SymbolicRecord {
    /// Candidates checked.
    pub checked: usize,
    /// Of them, rejected on a confirmed counterexample although the tests accepted them.
    pub rejected: usize,
    /// Differences CrossHair reported that the real oracle did not confirm.
    pub unconfirmed: usize,
    /// Checks without an answer (CrossHair failed or ran out of time).
    pub failed: usize,
    /// Why the last check without an answer had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Why the task could not be checked, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applicable: Option<String>,
    /// Whether the reported winner itself still fails the check (every re-search's winner
    /// was rejected too): its success is not to be trusted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub winner_rejected: bool,
    /// The confirmed counterexamples: tests grown on the task during the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counterexamples: Vec<TestCase>,
}

/// The symbolic check applied to a job's outputs, with the oracle that confirms what it finds.
pub struct SymbolicGate<'a> {
    checker: &'a SymbolicChecker,
    oracle: &'a Oracle,
}

impl<'a> SymbolicGate<'a> {
    /// A gate.
    pub fn new(checker: &'a SymbolicChecker, oracle: &'a Oracle) -> Self {
        SymbolicGate { checker, oracle }
    }

    /// Checks `candidates` of `task` one by one; returns which were rejected and adds what
    /// happened (and every confirmed counterexample) to `record`.
    pub fn screen(
        &self,
        task: &Task,
        candidates: &[&str],
        record: &mut SymbolicRecord,
    ) -> Vec<bool> {
        let mut out = Vec::with_capacity(candidates.len());
        for c in candidates {
            let v = self.checker.check(self.oracle, task, c);
            match v {
                SymbolicVerdict::NotApplicable { reason } => {
                    record.not_applicable = Some(reason);
                    out.push(false);
                    continue;
                }
                SymbolicVerdict::NoCounterexample => out.push(false),
                SymbolicVerdict::Unconfirmed { .. } => {
                    record.unconfirmed += 1;
                    out.push(false);
                }
                SymbolicVerdict::Failed { reason } => {
                    record.failed += 1;
                    record.failure = Some(reason);
                    out.push(false);
                }
                SymbolicVerdict::Counterexample { test } => {
                    record.rejected += 1;
                    if !record.counterexamples.contains(&test) {
                        record.counterexamples.push(test);
                    }
                    out.push(true);
                }
            }
            record.checked += 1;
        }
        out
    }

    /// The oracle.
    pub fn oracle(&self) -> &Oracle {
        self.oracle
    }
}

/// `task` with the counterexamples of `record` added to its tests.
pub fn strengthened(task: &Task, record: &SymbolicRecord) -> Task {
    let mut tests = task.tests.to_vec();
    for t in &record.counterexamples {
        if !tests.contains(t) {
            tests.push(t.clone());
        }
    }
    Task {
        tests: tests.into(),
        ..task.clone()
    }
}

/// A job's output that the symbolic check can screen.
pub trait Screened {
    /// The programs to check (a search's winner, an augmentation's variants).
    fn candidates(&self) -> Vec<&str>;
    /// Drops the candidates marked rejected (`rejected` is in [`Screened::candidates`] order);
    /// returns false when the output cannot lose them (a search's only winner).
    fn drop_rejected(&mut self, rejected: &[bool]) -> bool;
    /// Records what the check did.
    fn set_symbolic(&mut self, record: SymbolicRecord);
}

/// A job whose outputs pass the symbolic check before they are reported. When a candidate is
/// rejected, its counterexample becomes a test of the task; an output that cannot drop it (a
/// search's winner) is made again against the stronger tests, up to `rounds` times.
pub struct Gated<'a, J> {
    job: &'a J,
    gate: Option<&'a SymbolicGate<'a>>,
    rounds: usize,
}

impl<'a, J> Gated<'a, J> {
    /// `job`, gated when `gate` is given.
    pub fn new(job: &'a J, gate: Option<&'a SymbolicGate<'a>>, rounds: usize) -> Self {
        Gated { job, gate, rounds }
    }
}

impl<J> crate::pipeline::Job for Gated<'_, J>
where
    J: crate::pipeline::Job,
    J::Output: Screened,
{
    type Output = J::Output;

    fn parallel_tasks(&self) -> bool {
        self.job.parallel_tasks()
    }

    fn needs_reference(&self) -> bool {
        self.job.needs_reference()
    }

    fn run(
        &self,
        task: &Task,
        reference: Option<&crate::oracle::Reference>,
        verified: &mut dyn FnMut(&crate::program::Candidate),
    ) -> Result<J::Output, String> {
        let mut out = self.job.run(task, reference, verified)?;
        let Some(gate) = self.gate else {
            return Ok(out);
        };
        let mut record = SymbolicRecord::default();
        let mut current = task.clone();
        for round in 0..=self.rounds {
            let rejected = gate.screen(&current, &out.candidates(), &mut record);
            if !rejected.contains(&true) {
                break;
            }
            current = strengthened(task, &record);
            if out.drop_rejected(&rejected) {
                // What is left must pass the stronger tests too.
                let reference = gate.oracle().reference(&current);
                let failing: Vec<bool> = out
                    .candidates()
                    .iter()
                    .map(|c| {
                        gate.oracle()
                            .check(&current, &reference, c)
                            .map_or(true, |d| !d.equivalent)
                    })
                    .collect();
                out.drop_rejected(&failing);
                break;
            }
            if round == self.rounds {
                record.winner_rejected = true;
                break;
            }
            let reference = gate.oracle().reference(&current);
            out = self.job.run(&current, Some(&reference), verified)?;
        }
        out.set_symbolic(record);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_crosshair_reports() {
        let out = "Given: (x=10, s='\\x00'),\n   em_original.f : returns 11\n  em_candidate.f : returns 20\n";
        assert_eq!(given(out).as_deref(), Some("x=10, s='\\x00'"));
        assert_eq!(given("nothing\n"), None);
    }

    #[test]
    fn annotations_are_required() {
        assert!(annotated(
            "def f(x: int, y: str = 'a') -> int:\n    return x\n",
            "f"
        ));
        assert!(!annotated("def f(x, y: int):\n    return x\n", "f"));
        assert!(!annotated("def g(x: int):\n    return x\n", "f"));
    }
}
