//! What grown tests are worth on code growth never saw: `tests grow --holdout K` grows on all
//! but K accepted solutions of each problem, then judges the held-out ones.
//!
//! For a held-out solution H of a problem:
//! - the **judging tests** are the tests grown for the problem's other tasks (their union, each
//!   once), with H's own output on them as the expected one; a grown test H does not pass by the
//!   task's checker is a **false alarm** (it would reject a correct program) and judges nothing;
//! - H's mutants that H's own tests let through are the targets;
//! - a target is **shown non-equivalent** when it behaves differently from H on a judging test
//!   or on one of [`JUDGE_INPUTS`] fresh inputs made from H's tests by the same generators with
//!   another seed, kept under the same rules as grown ones (H runs normally and
//!   deterministically on it, every other accepted solution agrees);
//! - the figure is the share of those that the judging tests reject.
//!
//! The fresh inputs only show what the generators can reach: a mutant only an input outside
//! their reach tells apart is counted nowhere, so the share is measured on behaviour the
//! generators can see, not on all of the problem's behaviour.

use super::equivalent::mutants_to_judge;
use super::grow::{differs, keep, test_key, Maker};
use super::score::{verdicts, Verdict};
use crate::oracle::{ExitClass, Oracle, ValidationStatus, REFERENCE_HASH_SEED};
use crate::task::{Task, TestCase};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Fresh inputs made per held-out solution to show which of its mutants are non-equivalent.
pub const JUDGE_INPUTS: usize = 40;

/// Which tasks are held out: the last `k` (in file order) of every problem with more than `k`
/// tasks; a task without a problem, or a problem with `k` tasks or fewer, is grown as usual.
pub fn held_out(tasks: &[Task], k: usize) -> HashSet<usize> {
    let mut by_problem: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, t) in tasks.iter().enumerate() {
        if let Some(p) = t.problem.as_deref() {
            by_problem.entry(p).or_default().push(i);
        }
    }
    by_problem
        .into_values()
        .filter(|ix| k > 0 && ix.len() > k)
        .flat_map(|ix| ix[ix.len() - k..].to_vec())
        .collect()
}

/// How the grown tests judged one held-out solution.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HoldoutReport {
    /// Grown tests of the problem run on it.
    pub grown_tests: usize,
    /// Of them, tests it does not pass (each would reject a correct program).
    pub false_alarms: usize,
    /// Fresh inputs kept to show non-equivalence.
    pub judge_inputs: usize,
    /// Its mutants made.
    pub mutants: usize,
    /// Of them, let through by its own tests.
    pub let_through: usize,
    /// Of those, shown non-equivalent (by a judging test or a fresh input).
    pub shown: usize,
    /// Of those, rejected by the grown tests.
    pub rejected: usize,
    /// Why nothing was judged, when nothing could be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Judges `held` (a held-out accepted solution) by the tests grown for `grown` (the problem's
/// other tasks, after growth); `others` are the problem's other accepted solutions as given.
pub fn judge(
    oracle: &Oracle,
    held: &Task,
    grown: &[&Task],
    others: &[&Task],
    options: &super::grow::GrowOptions,
) -> HoldoutReport {
    let mut report = HoldoutReport::default();
    let validation = oracle.validate(held);
    let Some(reference) = validation
        .reference
        .filter(|_| validation.status == ValidationStatus::Ok)
    else {
        report.reason = Some(format!(
            "the held-out solution does not pass its own tests: {}",
            validation.reason.unwrap_or_default()
        ));
        return report;
    };
    // The problem's grown tests, each once, with the held-out solution's own output.
    let mut seen = HashSet::new();
    let grown_tests: Vec<&TestCase> = grown
        .iter()
        .flat_map(|t| t.tests.iter().filter(|c| c.grown))
        .filter(|c| seen.insert(test_key(c)))
        .collect();
    report.grown_tests = grown_tests.len();
    let deadline = options.deadline;
    let tolerance = oracle.config().float_tolerance;
    let own: Vec<Option<(TestCase, f64)>> = grown_tests
        .par_iter()
        .map(|c| {
            let run = oracle.run_test(
                held.language,
                &held.source,
                c,
                deadline,
                REFERENCE_HASH_SEED,
            );
            let expected = c.output.as_deref().unwrap_or("");
            let passes = run.class == ExitClass::Success
                && held.checker.accepts(expected, &run.stdout, tolerance);
            passes.then(|| {
                let test = TestCase {
                    output: Some(run.stdout),
                    ..(*c).clone()
                };
                (test, run.seconds)
            })
        })
        .collect();
    report.false_alarms = own.iter().filter(|o| o.is_none()).count();
    let judging: Vec<(TestCase, f64)> = own.into_iter().flatten().collect();
    // Fresh inputs from the held-out solution's own tests, under the keep rules.
    let fresh: Vec<(TestCase, f64)> = match Maker::of(held) {
        None => Vec::new(),
        Some(mut maker) => {
            maker.probe_domains(oracle, held, deadline);
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x6a75_6467_6521);
            let pool = maker.inputs();
            let mut candidates = Vec::new();
            for _ in 0..JUDGE_INPUTS * 4 {
                if candidates.len() == JUDGE_INPUTS {
                    break;
                }
                if let Some((t, _)) = maker.make(&pool, &mut rng) {
                    if seen.insert(test_key(&t)) {
                        candidates.push(t);
                    }
                }
            }
            candidates
                .into_par_iter()
                .filter_map(|t| keep(oracle, held, others, t, deadline).ok())
                .map(|k| (k.test, k.seconds))
                .collect()
        }
    };
    report.judge_inputs = fresh.len();
    let (ms, _) = mutants_to_judge(oracle, held.language, &held.source, options.mutants);
    report.mutants = ms.len();
    let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
    let through: Vec<&str> = verdicts(oracle, held, &reference, &sources)
        .into_iter()
        .zip(&sources)
        .filter(|(v, _)| *v == Verdict::Accepted)
        .map(|(_, s)| *s)
        .collect();
    report.let_through = through.len();
    let outcomes: Vec<(bool, bool)> = through
        .par_iter()
        .map(|m| {
            let tells = |(t, seconds): &(TestCase, f64)| {
                let expected = t.output.as_deref().unwrap_or("");
                differs(oracle, held, held.language, m, t, expected, *seconds)
            };
            let rejected = judging.iter().any(tells);
            (rejected || fresh.iter().any(tells), rejected)
        })
        .collect();
    report.shown = outcomes.iter().filter(|o| o.0).count();
    report.rejected = outcomes.iter().filter(|o| o.1).count();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_k_of_each_problem_with_more_are_held_out() {
        let mut tasks = Vec::new();
        for (id, p) in [
            ("a/0", Some("a")),
            ("a/1", Some("a")),
            ("a/2", Some("a")),
            ("b/0", Some("b")),
            ("c", None),
        ] {
            let mut t = Task::new(id, "print(1)\n", Vec::new());
            t.problem = p.map(str::to_string);
            tasks.push(t);
        }
        assert_eq!(held_out(&tasks, 1), HashSet::from([2]));
        assert_eq!(held_out(&tasks, 2), HashSet::from([1, 2]));
        assert!(held_out(&tasks, 3).is_empty());
        assert!(held_out(&tasks, 0).is_empty());
    }
}
