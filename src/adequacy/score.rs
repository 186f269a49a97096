//! The mutation score of a task's tests: run each mutant of the original through the oracle
//! (the same sandbox, cache and limits as any candidate) and count the ones it rejects.

use super::mutants::{mutants, Mutant};
use super::{Adequacy, BrokenShare};
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
}

/// Runs `candidates` against the tests of `task` (whose original behaves as `reference`):
/// for each, `Some(true)` = rejected, `Some(false)` = accepted, `None` = no verdict.
pub fn rejected(
    oracle: &Oracle,
    task: &Task,
    reference: &Reference,
    candidates: &[&str],
) -> Vec<Option<bool>> {
    candidates
        .par_iter()
        .map(|c| oracle.check(task, reference, c).ok().map(|d| !d.equivalent))
        .collect()
}

/// Measures the tests of `task`: validates its original, runs its mutants and the known-broken
/// programs of its problem (`broken`), and records the result.
pub fn score_task(
    oracle: &Oracle,
    task: &Task,
    options: MutantOptions,
    broken: &[&BrokenProgram],
) -> TaskScore {
    let validation = oracle.validate(task);
    let mut out = TaskScore {
        id: task.id.clone(),
        status: validation.status,
        reason: validation.reason.clone(),
        adequacy: None,
        by_operator: BTreeMap::new(),
        survivors: Vec::new(),
        faults: 0,
    };
    let Some(reference) = validation
        .reference
        .filter(|_| out.status == ValidationStatus::Ok)
    else {
        return out;
    };
    if task.language != crate::program::Language::Python {
        // Mutants are made from the Python parse tree: a Java program gets none (yet).
        out.reason = Some(format!(
            "mutants are made for Python programs only; this one is {}",
            task.language
        ));
    }
    let ms = if task.language == crate::program::Language::Python {
        mutants(&task.source, options.max_mutants, options.seed)
    } else {
        Vec::new()
    };
    let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
    let verdicts = rejected(oracle, task, &reference, &sources);
    let (mut run, mut killed) = (0, 0);
    for (m, v) in ms.iter().zip(verdicts) {
        let Some(k) = v else {
            out.faults += 1;
            continue;
        };
        run += 1;
        let c = out.by_operator.entry(m.operator.name()).or_default();
        c.mutants += 1;
        if k {
            killed += 1;
            c.killed += 1;
        } else {
            out.survivors.push(m.clone());
        }
    }
    let broken_share = (!broken.is_empty()).then(|| {
        let sources: Vec<&str> = broken.iter().map(|b| b.source.as_str()).collect();
        let v = rejected(oracle, task, &reference, &sources);
        BrokenShare {
            programs: v.iter().flatten().count(),
            rejected: v.iter().flatten().filter(|k| **k).count(),
        }
    });
    out.adequacy = Some(Adequacy {
        broken: broken_share,
        ..Adequacy::measured(task, run, killed, options.seed)
    });
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
/// recorded, or one measured on another number of tests); `done` is called per task.
pub fn ensure_scores(
    oracle: &Oracle,
    tasks: &mut [Task],
    options: MutantOptions,
    done: &(dyn Fn() + Sync),
) {
    tasks.par_iter_mut().for_each(|t| {
        if t.mutation_score().is_none() {
            let s = score_task(oracle, t, options, &[]);
            t.adequacy = s.adequacy;
        }
        done();
    });
}

/// The tasks whose recorded mutation score is below `min` (or that have none: their original
/// could not be scored), each with the reason in words.
pub fn below(tasks: &[Task], min: f64) -> BTreeMap<String, String> {
    tasks
        .iter()
        .filter_map(|t| match t.mutation_score() {
            Some(s) if s >= min => None,
            Some(s) => Some((
                t.id.clone(),
                format!(
                    "refused: its tests reject {:.3} of the original's mutants, below \
                     --min-mutation-score {min}",
                    s
                ),
            )),
            None => Some((
                t.id.clone(),
                "refused: its tests' mutation score could not be measured (the original is \
                 not valid)"
                    .to_string(),
            )),
        })
        .collect()
}
