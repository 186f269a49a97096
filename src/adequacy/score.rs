//! The mutation score of a task's tests: run each mutant of the original through the oracle
//! (the same sandbox, cache and limits as any candidate) and count the ones it rejects.

use super::equivalent::mutants_to_judge;
use super::mutants::Mutant;
use super::{Adequacy, BrokenShare, MutantTally};
use crate::oracle::{Oracle, Reference, ValidationStatus};
use crate::task::{BrokenProgram, Task};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// How mutants are drawn.
#[derive(Debug, Clone, Copy)]
pub struct MutantOptions {
    /// Most mutants per task (all of them when a program has fewer).
    pub max_mutants: usize,
    /// The seed of the sample.
    pub seed: u64,
}

impl Default for MutantOptions {
    fn default() -> Self {
        MutantOptions {
            max_mutants: 100,
            seed: 0,
        }
    }
}

/// Killed and total mutants of one operator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OperatorCount {
    /// Mutants run.
    pub mutants: usize,
    /// Of them, rejected.
    pub killed: usize,
}

/// The mutation score of one task.
#[derive(Debug, Clone, Serialize)]
pub struct TaskScore {
    /// The task.
    pub id: String,
    /// How its original fared (`ok` = scored).
    pub status: ValidationStatus,
    /// Why it was not scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The measurement (absent when the original is not valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adequacy: Option<Adequacy>,
    /// Per operator.
    pub by_operator: BTreeMap<&'static str, OperatorCount>,
    /// Mutants the tests let through (possibly equivalent to the original).
    pub survivors: Vec<Mutant>,
    /// Mutant checks without a verdict (the sandbox failed).
    pub faults: usize,
    /// Mutants left out because they compile to the original's bytecode
    /// ([`super::equivalent`]).
    pub trivially_equivalent: usize,
    /// Set when equimorph itself failed on this task (a caught panic): the task has no result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the tests say of one candidate (a mutant, a known-broken program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The tests reject it.
    Rejected,
    /// It passes every test.
    Accepted,
    /// It is not a program at all (a Java candidate that does not compile): no test judged
    /// it, so it counts neither way.
    Invalid,
    /// The sandbox gave no verdict.
    NoVerdict,
}

/// Runs `candidates` against the tests of `task` (whose original behaves as `reference`).
pub fn verdicts(
    oracle: &Oracle,
    task: &Task,
    reference: &Reference,
    candidates: &[&str],
) -> Vec<Verdict> {
    candidates
        .par_iter()
        .map(|c| match oracle.check(task, reference, c) {
            Err(_) => Verdict::NoVerdict,
            Ok(d) if d.invalid.is_some() => Verdict::Invalid,
            Ok(d) if d.equivalent => Verdict::Accepted,
            Ok(_) => Verdict::Rejected,
        })
        .collect()
}

/// What became of `mutants` under `verdicts` (in the same order).
pub fn tally(verdicts: &[Verdict]) -> MutantTally {
    let mut t = MutantTally {
        made: verdicts.len(),
        ..MutantTally::default()
    };
    for v in verdicts {
        match v {
            Verdict::Rejected => {
                t.run += 1;
                t.killed += 1;
            }
            Verdict::Accepted => t.run += 1,
            Verdict::Invalid => t.invalid += 1,
            Verdict::NoVerdict => t.faults += 1,
        }
    }
    t
}

/// Test hook: the task whose id is this variable's value panics inside the per-task guard of
/// [`score_task`], [`super::grow::grow_task`] and `validate`'s job, so that tests can check
/// that one task's panic is that task's error and the run goes on. Unset in normal use.
#[doc(hidden)]
pub const PANIC_TASK_VAR: &str = "EQUIMORPH_TEST_PANIC_TASK";

/// Panics when [`PANIC_TASK_VAR`] names `id` (a test hook).
pub(crate) fn test_panic_point(id: &str) {
    if std::env::var_os(PANIC_TASK_VAR).is_some_and(|v| v == id) {
        panic!("{PANIC_TASK_VAR} asked task {id} to panic");
    }
}

/// Measures the tests of `task`: validates its original, runs its mutants and the known-broken
/// programs of its problem (`broken`), and records the result. A panic inside (a bug of
/// equimorph's) is caught and recorded as this task's error (`status` `error`, `error` set):
/// one task never loses a whole run.
pub fn score_task(
    oracle: &Oracle,
    task: &Task,
    options: MutantOptions,
    broken: &[&BrokenProgram],
) -> TaskScore {
    let run = crate::pipeline::catch_task_panic(|| score_task_inner(oracle, task, options, broken));
    run.unwrap_or_else(|why| TaskScore {
        id: task.id.clone(),
        status: ValidationStatus::Error,
        reason: Some(why.clone()),
        adequacy: None,
        by_operator: BTreeMap::new(),
        survivors: Vec::new(),
        faults: 0,
        trivially_equivalent: 0,
        error: Some(why),
    })
}

fn score_task_inner(
    oracle: &Oracle,
    task: &Task,
    options: MutantOptions,
    broken: &[&BrokenProgram],
) -> TaskScore {
    test_panic_point(&task.id);
    let validation = oracle.validate(task);
    let mut out = TaskScore {
        id: task.id.clone(),
        status: validation.status,
        reason: validation.reason.clone(),
        adequacy: None,
        by_operator: BTreeMap::new(),
        survivors: Vec::new(),
        faults: 0,
        trivially_equivalent: 0,
        error: None,
    };
    let Some(reference) = validation
        .reference
        .filter(|_| out.status == ValidationStatus::Ok)
    else {
        return out;
    };
    let (ms, equivalent) = mutants_to_judge(oracle, task.language, &task.source, options);
    out.trivially_equivalent = equivalent;
    let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
    let vs = verdicts(oracle, task, &reference, &sources);
    let counts = tally(&vs);
    out.faults = counts.faults;
    for (m, v) in ms.iter().zip(&vs) {
        if !matches!(v, Verdict::Rejected | Verdict::Accepted) {
            continue;
        }
        let c = out.by_operator.entry(m.operator.name()).or_default();
        c.mutants += 1;
        if *v == Verdict::Rejected {
            c.killed += 1;
        } else {
            out.survivors.push(m.clone());
        }
    }
    let broken_share = (!broken.is_empty()).then(|| {
        let sources: Vec<&str> = broken.iter().map(|b| b.source.as_str()).collect();
        let t = tally(&verdicts(oracle, task, &reference, &sources));
        BrokenShare {
            programs: t.run,
            rejected: t.killed,
        }
    });
    let adequacy = Adequacy {
        broken: broken_share,
        ..Adequacy::measured(task, &counts, options.seed)
    };
    out.reason = adequacy.mutation_score_missing.clone();
    out.adequacy = Some(adequacy);
    out
}

/// For each task, the known-broken programs its score should include: those of its problem,
/// given to the problem's first task only (so each is counted once).
pub fn broken_by_task<'a>(
    tasks: &[Task],
    broken: &'a [BrokenProgram],
) -> BTreeMap<String, Vec<&'a BrokenProgram>> {
    let mut first_of_problem: BTreeMap<&str, &str> = BTreeMap::new();
    for t in tasks {
        if let Some(p) = t.problem.as_deref() {
            first_of_problem.entry(p).or_insert(&t.id);
        }
    }
    let mut out: BTreeMap<String, Vec<&BrokenProgram>> = BTreeMap::new();
    for b in broken {
        if let Some(id) = first_of_problem.get(b.problem.as_str()) {
            out.entry(id.to_string()).or_default().push(b);
        }
    }
    out
}

/// Measures and records the mutation score of every task that has no current one (none
/// recorded, or one measured on another number of tests); `done` is called per task. A task
/// that cannot be measured (its original is not valid, no mutant reached a verdict, equimorph
/// failed on it) gets an adequacy with no score and the reason, for [`below`] to give.
pub fn ensure_scores(
    oracle: &Oracle,
    tasks: &mut [Task],
    options: MutantOptions,
    done: &(dyn Fn() + Sync),
) {
    tasks.par_iter_mut().for_each(|t| {
        if t.mutation_score().is_none() {
            let s = score_task(oracle, t, options, &[]);
            t.adequacy = Some(match s.adequacy {
                Some(a) => a,
                None => Adequacy::unmeasured(t, options.seed, unscored_reason(&s)),
            });
        }
        done();
    });
}

/// Why a task was not scored at all, in words.
fn unscored_reason(s: &TaskScore) -> String {
    if let Some(e) = &s.error {
        return e.clone();
    }
    let status = format!("{:?}", s.status).to_lowercase();
    match &s.reason {
        Some(r) => format!("the original is not valid ({status}: {r})"),
        None => format!("the original is not valid ({status})"),
    }
}

/// The tasks whose recorded mutation score is below `min`, or that have none (it could not be
/// measured), each with the reason in words (`augment --min-mutation-score`).
pub fn below(tasks: &[Task], min: f64) -> BTreeMap<String, String> {
    tasks
        .iter()
        .filter_map(|t| {
            let current = t.adequacy.as_ref().filter(|a| a.tests == t.test_count());
            let why = match (t.mutation_score(), current) {
                (Some(s), _) if s >= min => return None,
                (Some(s), _) => format!(
                    "refused: its tests reject {s:.3} of the original's mutants, below \
                     --min-mutation-score {min}"
                ),
                (None, Some(a)) => format!(
                    "refused: mutation score not measured ({})",
                    a.mutation_score_missing
                        .as_deref()
                        .unwrap_or("no mutant reached a verdict")
                ),
                (None, None) => "refused: mutation score not measured (none recorded for \
                                 its current tests)"
                    .to_string(),
            };
            Some((t.id.clone(), why))
        })
        .collect()
}
