//! Measures what `tests grow` is worth on a set of single-sample stdin problems with several
//! accepted solutions each and hidden valid inputs (fixtures/adequacy):
//!
//! - **in-sample**: mutants of each task's original that the sample lets through and that are
//!   shown non-equivalent (they differ from the original on a hidden input): the share the
//!   grown tests reject (growth was guided by these mutants);
//! - **other solutions**: the same for mutants of the problem's other solutions, judged by the
//!   first solution's grown tests with that other solution as the reference;
//! - **held out** (with ALL.jsonl): the same for the solutions in ALL.jsonl that GROWN.jsonl
//!   lacks: growth never ran them, neither for its keep rules nor for its mutants; judged by
//!   the first solution's grown tests, and by every grown task's tests of the problem (as
//!   `tests grow --holdout` judges);
//! - **false alarms**: grown tests on which the task's original or another accepted solution
//!   of its problem (held-out ones included) does not print the expected output (by the task's
//!   checker).
//!
//! Run: `cargo run --release --example adequacy_eval -- GROWN.jsonl HIDDEN.jsonl [ALL.jsonl]`
//! (GROWN.jsonl from `equimorph tests grow fixtures/adequacy/stdin.jsonl --out GROWN.jsonl`).

use equimorph::adequacy::mutants::all_mutants_of;
use equimorph::oracle::{outputs_equal, ExitClass, Oracle, OracleConfig, REFERENCE_HASH_SEED};
use equimorph::program::Language;
use equimorph::task::{Task, TestCase};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(serde::Deserialize)]
struct Hidden {
    problem: String,
    inputs: Vec<String>,
}

/// Whether `program` behaves like `reference` on `test` (stdout and exit class).
/// A Java mutant that does not compile is never the same (and so never let through).
fn same(
    oracle: &Oracle,
    language: Language,
    reference: &str,
    program: &str,
    test: &TestCase,
) -> bool {
    let t = Duration::from_secs(2);
    let a = oracle.run_test(language, reference, test, t, REFERENCE_HASH_SEED);
    let b = oracle.run_test(language, program, test, t, REFERENCE_HASH_SEED);
    a.class == b.class && outputs_equal(&a.stdout, &b.stdout, None)
}

/// Of `reference`'s mutants: (let through by `sample`, of them shown non-equivalent by
/// `hidden`, of them rejected by `grown`).
fn judge(
    oracle: &Oracle,
    language: Language,
    reference: &str,
    sample: &[TestCase],
    hidden: &[TestCase],
    grown: &[TestCase],
    label: Option<&str>,
) -> (usize, usize, usize) {
    let counts: Vec<(usize, usize, usize)> = all_mutants_of(language, reference)
        .par_iter()
        .map(|m| {
            let through = sample
                .iter()
                .all(|t| same(oracle, language, reference, &m.source, t));
            if !through {
                return (0, 0, 0);
            }
            let shown = hidden
                .iter()
                .any(|t| !same(oracle, language, reference, &m.source, t));
            if !shown {
                return (1, 0, 0);
            }
            let caught = grown
                .iter()
                .any(|t| !same(oracle, language, reference, &m.source, t));
            if let (Some(l), false) = (label, caught) {
                eprintln!("survivor: {l} line {} {}", m.line, m.edit);
            }
            (1, 1, usize::from(caught))
        })
        .collect();
    counts
        .iter()
        .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (grown_path, hidden_path, all_path) = match args.as_slice() {
        [_, g, h] => (g, h, None),
        [_, g, h, a] => (g, h, Some(a)),
        _ => return Err("usage: adequacy_eval GROWN.jsonl HIDDEN.jsonl [ALL.jsonl]".into()),
    };
    let read_tasks = |path: &str| -> Result<Vec<Task>, Box<dyn std::error::Error>> {
        Ok(std::fs::read_to_string(path)?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?)
    };
    let tasks = read_tasks(grown_path)?;
    let grown_ids: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let held_out: Vec<Task> = match all_path {
        Some(p) => read_tasks(p)?
            .into_iter()
            .filter(|t| !grown_ids.contains(t.id.as_str()))
            .collect(),
        None => Vec::new(),
    };
    let hidden: BTreeMap<String, Vec<TestCase>> = std::fs::read_to_string(hidden_path)?
        .lines()
        .map(serde_json::from_str::<Hidden>)
        .map(|h| {
            h.map(|h| {
                let tests = h
                    .inputs
                    .into_iter()
                    .map(|i| TestCase::stdin(i, None))
                    .collect();
                (h.problem, tests)
            })
        })
        .collect::<Result<_, _>>()?;
    let oracle = Oracle::new(OracleConfig::default())?;
    // EQUIMORPH_EVAL_SURVIVORS=1 lists the held-out mutants the grown tests let through.
    let survivors = std::env::var_os("EQUIMORPH_EVAL_SURVIVORS").is_some();
    let mut by_problem: BTreeMap<&str, Vec<&Task>> = BTreeMap::new();
    for t in &tasks {
        by_problem
            .entry(t.problem.as_deref().unwrap_or(&t.id))
            .or_default()
            .push(t);
    }
    let split = |t: &Task| -> (Vec<TestCase>, Vec<TestCase>) {
        t.tests.iter().cloned().partition(|c| !c.grown)
    };
    let (mut inside, mut others, mut held) = ((0, 0, 0), (0, 0, 0), (0, 0, 0));
    let mut held_union = (0, 0, 0);
    let (mut alarms, mut grown_checked) = (0, 0);
    for (problem, group) in &by_problem {
        let Some(hidden) = hidden.get(*problem) else {
            continue;
        };
        let unseen: Vec<&Task> = held_out
            .iter()
            .filter(|h| h.problem.as_deref() == Some(*problem))
            .collect();
        for t in group {
            let (sample, grown) = split(t);
            let r = judge(
                &oracle, t.language, &t.source, &sample, hidden, &grown, None,
            );
            inside = (inside.0 + r.0, inside.1 + r.1, inside.2 + r.2);
            // False alarms: every grown test against every accepted solution of the problem.
            for g in &grown {
                for s in group.iter().chain(&unseen) {
                    grown_checked += 1;
                    let run = oracle.run_test(
                        s.language,
                        &s.source,
                        g,
                        Duration::from_secs(2),
                        REFERENCE_HASH_SEED,
                    );
                    let ok = run.class == ExitClass::Success
                        && t.checker
                            .accepts(g.output.as_deref().unwrap_or(""), &run.stdout, None);
                    if !ok {
                        alarms += 1;
                        eprintln!("false alarm: {} rejects {} on {:?}", t.id, s.id, g.input);
                    }
                }
            }
        }
        // The first solution's grown tests judge the other solutions' mutants.
        let (_, grown) = split(group[0]);
        for s in &group[1..] {
            let (sample, _) = split(s);
            let r = judge(
                &oracle, s.language, &s.source, &sample, hidden, &grown, None,
            );
            others = (others.0 + r.0, others.1 + r.1, others.2 + r.2);
        }
        for s in &unseen {
            let (sample, _) = split(s);
            let label = survivors.then_some(s.id.as_str());
            let r = judge(
                &oracle, s.language, &s.source, &sample, hidden, &grown, label,
            );
            held = (held.0 + r.0, held.1 + r.1, held.2 + r.2);
            eprintln!("held out: {} {} of {} rejected", s.id, r.2, r.1);
            // The problem's grown tests, every grown task's (as `tests grow --holdout` judges).
            let mut keys = std::collections::HashSet::new();
            let union: Vec<TestCase> = group
                .iter()
                .flat_map(|t| split(t).1)
                .filter(|c| keys.insert((c.input.clone(), c.call.clone())))
                .collect();
            let r = judge(
                &oracle, s.language, &s.source, &sample, hidden, &union, None,
            );
            held_union = (held_union.0 + r.0, held_union.1 + r.1, held_union.2 + r.2);
        }
    }
    let share = |r: (usize, usize, usize)| r.2 as f64 / r.1.max(1) as f64;
    println!(
        "in-sample: {} mutants let through by the sample, {} shown non-equivalent, {} of them \
         rejected by grown tests ({:.3})",
        inside.0,
        inside.1,
        inside.2,
        share(inside)
    );
    println!(
        "other solutions' mutants, first solution's grown tests: {} let through, {} shown \
         non-equivalent, {} rejected ({:.3})",
        others.0,
        others.1,
        others.2,
        share(others)
    );
    if !held_out.is_empty() {
        println!(
            "held-out solutions' mutants (never run by growth), first solution's grown tests: {} \
             let through, {} shown non-equivalent, {} rejected ({:.3})",
            held.0,
            held.1,
            held.2,
            share(held)
        );
        println!(
            "held-out solutions' mutants, the problem's grown tests (every grown task's): {} \
             let through, {} shown non-equivalent, {} rejected ({:.3})",
            held_union.0,
            held_union.1,
            held_union.2,
            share(held_union)
        );
    }
    println!("false alarms: {alarms} of {grown_checked} (grown test, accepted solution) runs");
    Ok(())
}
