//! Growing a task's tests: new inputs (stdin tasks) or calls (function tasks) are made from the
//! existing ones and kept only when
//! 1. the original runs normally on it (exit 0, within the deadline, output under the cap),
//! 2. deterministically (a second run under another string-hash seed prints the same), and
//! 3. every other accepted solution of the task's problem prints the same, by the task's own
//!    checker (an input they disagree on is most likely outside the problem's constraints),
//! 4. and it rejects a mutant that every test so far lets through: a mutant of the original,
//!    or of another accepted solution of the problem (judged against that solution's own
//!    output), so the grown set covers the problem's behaviour, not only this program's code.
//!
//! A kept test is differential: its `output` is the original's. Growing stops when no new
//! test has raised the mutation score for `patience` rounds, when no mutant survives, or at
//! `max_tests` new tests.
//!
//! A task with no mutant that reached a verdict is not measured: its adequacy records no score
//! and the reason, never 1. A panic while growing one task (a bug of equimorph's) is caught and
//! recorded as that task's error; the task is returned unchanged.

use super::calls::{shows, stated_calls, CallModel, Value};
use super::inputs::InputModel;
use super::mutants::{mutants_of, Mutant};
use super::score::{tally, test_panic_point, verdicts, MutantOptions, Verdict};
use super::{Adequacy, MutantTally};
use crate::oracle::{
    outputs_equal, ExitClass, Oracle, ValidationStatus, REFERENCE_HASH_SEED, SECOND_HASH_SEED,
};
use crate::program::Language;
use crate::task::{Task, TestCase};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How tests are grown.
#[derive(Debug, Clone, Copy)]
pub struct GrowOptions {
    /// The mutants that guide growth (and score it).
    pub mutants: MutantOptions,
    /// Most tests added to one task.
    pub max_tests: usize,
    /// New inputs tried per round.
    pub batch: usize,
    /// Rounds in a row without a new kill before a task stops.
    pub patience: usize,
    /// Longest the original may run on a grown test.
    pub deadline: Duration,
    /// Seed of the input mutations (each task also mixes in its id).
    pub seed: u64,
}

impl Default for GrowOptions {
    fn default() -> Self {
        GrowOptions {
            mutants: MutantOptions::default(),
            max_tests: 10,
            batch: 16,
            patience: 4,
            deadline: Duration::from_secs(2),
            seed: 0,
        }
    }
}

/// Largest output a grown test may have (bytes): a grown test is a small one.
const MAX_GROWN_OUTPUT: usize = 64 << 10;

/// What growing did to one task.
#[derive(Debug, Clone, Serialize)]
pub struct GrowReport {
    /// The task.
    pub id: String,
    /// How its original fared (`ok` = grown).
    pub status: ValidationStatus,
    /// Why nothing was grown, when nothing could be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `stdin` or `call`: what the new tests are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// The tests' adequacy before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Adequacy>,
    /// And after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Adequacy>,
    /// Tests added, those the task's text states included.
    pub added: usize,
    /// Of them, calls with the value the task's text states (docstring examples), kept
    /// whether or not they reject a mutant.
    pub stated: usize,
    /// New inputs tried.
    pub tried: usize,
    /// New inputs dropped, by the rule that dropped them.
    pub discarded: BTreeMap<&'static str, usize>,
    /// Other accepted solutions of the problem that every kept test was checked against.
    pub siblings: usize,
    /// Their mutants that the tests let through, also targets of growth.
    pub sibling_mutants: usize,
    /// Of them, rejected by the grown tests.
    pub sibling_killed: usize,
    /// Set when equimorph itself failed on this task (a caught panic): the task is returned
    /// unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Set when the run was interrupted while this task grew: the task is returned unchanged.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// Why a new input was dropped.
pub const ORIGINAL_FAILS: &str = "the original does not run normally on it";
/// The original ran past the deadline.
pub const TOO_SLOW: &str = "the original runs past the deadline";
/// The original printed too much.
pub const TOO_LARGE: &str = "the original's output is too large";
/// Two runs differ.
pub const NOT_DETERMINISTIC: &str = "the original is not deterministic on it";
/// Accepted solutions disagree.
pub const DISAGREE: &str = "accepted solutions disagree on it";
/// It kills no surviving mutant.
pub const NO_KILL: &str = "it rejects no surviving mutant";
/// The original does not return what the task's text states for this call.
pub const CONTRADICTS: &str = "the original contradicts the value the task's text states";

/// The source of new tests for a task.
enum Maker {
    Stdin(InputModel, Vec<String>),
    Call(CallModel),
}

impl Maker {
    fn of(task: &Task) -> Option<Maker> {
        let inputs: Vec<String> = task
            .tests
            .iter()
            .filter(|t| t.call.is_none())
            .map(|t| t.input.clone())
            .collect();
        if !inputs.is_empty() {
            let model = InputModel::of(inputs.iter().map(String::as_str));
            return Some(Maker::Stdin(model, inputs));
        }
        let entry = task.entry_point.as_deref()?;
        CallModel::of_task(task.test_code.as_deref(), &task.source, entry).map(Maker::Call)
    }

    fn kind(&self) -> &'static str {
        match self {
            Maker::Stdin(..) => "stdin",
            Maker::Call(_) => "call",
        }
    }

    fn make(&self, pool: &[String], rng: &mut ChaCha8Rng) -> Option<TestCase> {
        match self {
            Maker::Stdin(model, _) => {
                if pool.is_empty() {
                    return None;
                }
                let base = pool.get(rand::Rng::random_range(rng, 0..pool.len()))?;
                model.mutate(base, rng).map(|input| TestCase {
                    input,
                    output: None,
                    call: None,
                    grown: true,
                })
            }
            Maker::Call(model) => Some(TestCase {
                input: String::new(),
                output: None,
                call: Some(model.mutate(rng)),
                grown: true,
            }),
        }
    }
}

/// The identity of a test's input, for de-duplication.
fn test_key(t: &TestCase) -> String {
    format!("{}\u{0}{}", t.call.as_deref().unwrap_or(""), t.input)
}

/// A new test that passed the keep rules 1–3, with the original's time on it and each other
/// accepted solution's own output and time.
struct Kept {
    test: TestCase,
    seconds: f64,
    siblings: Vec<(String, f64)>,
}

/// A mutant growth tries to reject: of the task's original (`owner` 0) or of its problem's
/// other accepted solution `owner - 1`. A test that tells a sibling's mutant from that sibling is
/// a test of the problem, valid for every solution (keep rule 3), so the sibling mutants make
/// the grown set reach behaviour the original's own code does not suggest.
struct Target<'a> {
    mutant: &'a Mutant,
    owner: usize,
    /// The language of the program the mutant was made from (siblings may be in another).
    language: Language,
}

/// Applies keep rules 1–3 to `test`.
fn keep(
    oracle: &Oracle,
    task: &Task,
    siblings: &[&Task],
    test: TestCase,
    deadline: Duration,
) -> Result<Kept, &'static str> {
    let first = oracle.run_test(
        task.language,
        &task.source,
        &test,
        deadline,
        REFERENCE_HASH_SEED,
    );
    match first.class {
        ExitClass::Success => {}
        ExitClass::Timeout => return Err(TOO_SLOW),
        _ => return Err(ORIGINAL_FAILS),
    }
    if first.stdout.len() > MAX_GROWN_OUTPUT {
        return Err(TOO_LARGE);
    }
    let second = oracle.run_test(
        task.language,
        &task.source,
        &test,
        deadline,
        SECOND_HASH_SEED,
    );
    if second.class != ExitClass::Success || second.stdout != first.stdout {
        return Err(NOT_DETERMINISTIC);
    }
    let tolerance = oracle.config().float_tolerance;
    let mut outputs = Vec::with_capacity(siblings.len());
    for s in siblings {
        let r = oracle.run_test(s.language, &s.source, &test, deadline, REFERENCE_HASH_SEED);
        if r.class != ExitClass::Success
            || !task.checker.accepts(&first.stdout, &r.stdout, tolerance)
        {
            return Err(DISAGREE);
        }
        outputs.push((r.stdout, r.seconds));
    }
    Ok(Kept {
        test: TestCase {
            output: Some(first.stdout),
            ..test
        },
        seconds: first.seconds,
        siblings: outputs,
    })
}

/// Whether the target mutant behaves differently from its own program on the kept test.
fn kills(oracle: &Oracle, task: &Task, kept: &Kept, target: &Target<'_>) -> bool {
    let (expected, seconds) = match target.owner {
        0 => (kept.test.output.as_deref().unwrap_or(""), kept.seconds),
        i => (kept.siblings[i - 1].0.as_str(), kept.siblings[i - 1].1),
    };
    let timeout = oracle.candidate_timeout(task, seconds);
    let got = oracle.run_test(
        target.language,
        &target.mutant.source,
        &kept.test,
        timeout,
        REFERENCE_HASH_SEED,
    );
    match got.class {
        // A sandbox failure is no evidence either way.
        ExitClass::Crash => false,
        ExitClass::Success => {
            !outputs_equal(expected, &got.stdout, oracle.config().float_tolerance)
        }
        _ => true,
    }
}

/// The tests that passed the keep rules; the others counted by the rule that dropped them.
fn sorted_out(verdicts: Vec<Result<Kept, &'static str>>, report: &mut GrowReport) -> Vec<Kept> {
    let mut kept = Vec::new();
    for v in verdicts {
        match v {
            Ok(k) => kept.push(k),
            Err(why) => *report.discarded.entry(why).or_default() += 1,
        }
    }
    kept
}

/// What growth has so far: the mutants still alive, the own mutants rejected, the tests added
/// (the first `stated` of them from the task's text) and the stdin inputs to mutate.
struct Growth<'m> {
    survivors: Vec<Target<'m>>,
    killed: usize,
    new_tests: Vec<TestCase>,
    pool: Vec<String>,
    stated: usize,
}

/// Adds the kept tests that reject a surviving mutant (or all of them when `max_tests` is
/// `None`: tests the task states), while fewer than `max_tests` were added; returns how many
/// were.
fn admit(
    oracle: &Oracle,
    task: &Task,
    kept: Vec<Kept>,
    max_tests: Option<usize>,
    growth: &mut Growth<'_>,
    report: &mut GrowReport,
) -> usize {
    // Which survivor each kept test rejects, all at once; then a greedy pass in order.
    let survivors = &growth.survivors;
    let kill_sets: Vec<Vec<bool>> = kept
        .par_iter()
        .map(|k| {
            survivors
                .par_iter()
                .map(|m| kills(oracle, task, k, m))
                .collect()
        })
        .collect();
    let mut alive: Vec<bool> = vec![true; survivors.len()];
    let mut added = 0;
    for (k, set) in kept.into_iter().zip(kill_sets) {
        let new_kills = set
            .iter()
            .zip(&alive)
            .filter(|(kill, live)| **kill && **live)
            .count();
        if let Some(max) = max_tests {
            if new_kills == 0 || growth.new_tests.len() - growth.stated >= max {
                *report.discarded.entry(NO_KILL).or_default() += 1;
                continue;
            }
        }
        for ((a, kill), target) in alive.iter_mut().zip(&set).zip(survivors) {
            if *a && *kill {
                if target.owner == 0 {
                    growth.killed += 1;
                } else {
                    report.sibling_killed += 1;
                }
            }
            *a &= !kill;
        }
        added += 1;
        if max_tests.is_none() {
            growth.stated += 1;
        }
        if k.test.call.is_none() {
            growth.pool.push(k.test.input.clone());
        }
        growth.new_tests.push(k.test);
    }
    let survivors = std::mem::take(&mut growth.survivors);
    growth.survivors = survivors
        .into_iter()
        .zip(alive)
        .filter(|(_, a)| *a)
        .map(|(m, _)| m)
        .collect();
    added
}

/// A per-task seed: the run's seed mixed with the task's id.
fn task_seed(seed: u64, id: &str) -> u64 {
    let h = blake3::hash(id.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h.as_bytes()[..8]);
    seed ^ u64::from_le_bytes(b)
}

/// Grows the tests of `task`; `siblings` are the other accepted solutions of its problem.
/// Returns the task with its new tests (and its adequacy recorded) and what happened. A panic
/// while growing (a bug of equimorph's) is caught: the task comes back unchanged, and the
/// report's `status` is `error` with the panic in `error`.
pub fn grow_task(
    oracle: &Oracle,
    task: &Task,
    siblings: &[&Task],
    options: GrowOptions,
) -> (Task, GrowReport) {
    grow_task_until(oracle, task, siblings, options, &AtomicBool::new(false))
}

/// [`grow_task`], stopping between rounds once `stop` is set (SIGINT or SIGTERM): the task then
/// comes back unchanged, with `interrupted` set in the report.
pub fn grow_task_until(
    oracle: &Oracle,
    task: &Task,
    siblings: &[&Task],
    options: GrowOptions,
    stop: &AtomicBool,
) -> (Task, GrowReport) {
    let run =
        crate::pipeline::catch_task_panic(|| grow_inner(oracle, task, siblings, options, stop));
    run.unwrap_or_else(|why| {
        let mut report = empty_report(task, siblings.len());
        report.status = ValidationStatus::Error;
        report.reason = Some(why.clone());
        report.error = Some(why);
        (task.clone(), report)
    })
}

/// The report of a task nothing was done to yet.
fn empty_report(task: &Task, siblings: usize) -> GrowReport {
    GrowReport {
        id: task.id.clone(),
        status: ValidationStatus::Ok,
        reason: None,
        kind: None,
        before: None,
        after: None,
        added: 0,
        stated: 0,
        tried: 0,
        discarded: BTreeMap::new(),
        siblings,
        sibling_mutants: 0,
        sibling_killed: 0,
        error: None,
        interrupted: false,
    }
}

fn grow_inner(
    oracle: &Oracle,
    task: &Task,
    siblings: &[&Task],
    options: GrowOptions,
    stop: &AtomicBool,
) -> (Task, GrowReport) {
    test_panic_point(&task.id);
    let mut report = empty_report(task, siblings.len());
    let validation = oracle.validate(task);
    report.status = validation.status;
    let Some(reference) = validation
        .reference
        .filter(|_| report.status == ValidationStatus::Ok)
    else {
        report.reason = validation.reason;
        return (task.clone(), report);
    };
    let ms = mutants_of(
        task.language,
        &task.source,
        options.mutants.max_mutants,
        options.mutants.seed,
    );
    let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
    let own = verdicts(oracle, task, &reference, &sources);
    let counts: MutantTally = tally(&own);
    let mut survivors: Vec<Target<'_>> = ms
        .iter()
        .zip(&own)
        .filter(|(_, v)| **v == Verdict::Accepted)
        .map(|(m, _)| Target {
            mutant: m,
            owner: 0,
            language: task.language,
        })
        .collect();
    // The other accepted solutions' mutants that the same tests let through.
    let sibling_mutants: Vec<Vec<Mutant>> = siblings
        .par_iter()
        .map(|s| {
            let Some(reference) = oracle.validate(s).reference else {
                return Vec::new();
            };
            let ms = mutants_of(
                s.language,
                &s.source,
                options.mutants.max_mutants,
                options.mutants.seed,
            );
            let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
            let vs = verdicts(oracle, s, &reference, &sources);
            ms.into_iter()
                .zip(vs)
                .filter(|(_, v)| *v == Verdict::Accepted)
                .map(|(m, _)| m)
                .collect()
        })
        .collect();
    for (i, (ms, s)) in sibling_mutants.iter().zip(siblings).enumerate() {
        survivors.extend(ms.iter().map(|m| Target {
            mutant: m,
            owner: i + 1,
            language: s.language,
        }));
    }
    report.sibling_mutants = survivors.iter().filter(|t| t.owner > 0).count();
    report.before = Some(Adequacy::measured(task, &counts, options.mutants.seed));
    if let Some(why) = report
        .before
        .as_ref()
        .and_then(|b| b.mutation_score_missing.clone())
    {
        // Nothing to measure, so nothing to guide growth: the task is kept as it is.
        report.reason = Some(format!("mutation score not measured: {why}"));
    }
    let mut out = task.clone();
    let Some(maker) = Maker::of(task) else {
        report.reason = Some(
            "no test to grow from: neither stdin inputs nor literal calls of the entry point \
             (in the tests or the task's examples)"
                .into(),
        );
        out.adequacy = report.before.clone();
        report.after = report.before.clone();
        return (out, report);
    };
    report.kind = Some(maker.kind());
    let pool: Vec<String> = match &maker {
        Maker::Stdin(_, inputs) => inputs.clone(),
        Maker::Call(_) => Vec::new(),
    };
    let mut seen: HashSet<String> = task.tests.iter().map(test_key).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(task_seed(options.seed, &task.id));
    let mut growth = Growth {
        survivors,
        killed: counts.killed,
        new_tests: Vec::new(),
        pool,
        stated: 0,
    };
    // The calls the task's own text states come first: tests the task gives, kept when the
    // original returns what the text says (and keep rules 1–3 hold), whether or not they
    // reject a mutant, and outside the `max_tests` budget.
    if let (Maker::Call(model), Some(entry)) = (&maker, task.entry_point.as_deref()) {
        let stated: Vec<(TestCase, Value)> = stated_calls(&task.source, entry)
            .into_iter()
            .map(|s| {
                let test = TestCase {
                    input: String::new(),
                    output: None,
                    call: Some(model.render(&s.args)),
                    grown: true,
                };
                (test, s.expected)
            })
            .filter(|(t, _)| seen.insert(test_key(t)))
            .collect();
        report.tried += stated.len();
        let verdicts: Vec<Result<Kept, &'static str>> = stated
            .into_par_iter()
            .map(|(t, expected)| {
                let k = keep(oracle, task, siblings, t, options.deadline)?;
                let printed = k.test.output.as_deref().unwrap_or("");
                if shows(printed, &expected) {
                    Ok(k)
                } else {
                    Err(CONTRADICTS)
                }
            })
            .collect();
        let kept = sorted_out(verdicts, &mut report);
        admit(oracle, task, kept, None, &mut growth, &mut report);
    }
    let mut idle = 0;
    while !growth.survivors.is_empty()
        && growth.new_tests.len() - growth.stated < options.max_tests
        && idle < options.patience
    {
        if stop.load(Ordering::Relaxed) {
            report.interrupted = true;
            report.reason = Some("interrupted: nothing grown (the task is unchanged)".into());
            report.after = report.before.clone();
            return (task.clone(), report);
        }
        let mut batch = Vec::new();
        for _ in 0..options.batch * 4 {
            if batch.len() == options.batch {
                break;
            }
            if let Some(t) = maker.make(&growth.pool, &mut rng) {
                if seen.insert(test_key(&t)) {
                    batch.push(t);
                }
            }
        }
        if batch.is_empty() {
            report.reason = Some("no new input could be made from the existing ones".into());
            break;
        }
        report.tried += batch.len();
        let verdicts: Vec<Result<Kept, &'static str>> = batch
            .into_par_iter()
            .map(|t| keep(oracle, task, siblings, t, options.deadline))
            .collect();
        let kept = sorted_out(verdicts, &mut report);
        let added_now = admit(
            oracle,
            task,
            kept,
            Some(options.max_tests),
            &mut growth,
            &mut report,
        );
        idle = if added_now > 0 { 0 } else { idle + 1 };
    }
    report.added = growth.new_tests.len();
    report.stated = growth.stated;
    let mut tests: Vec<TestCase> = task.tests.to_vec();
    tests.extend(growth.new_tests);
    out.tests = tests.into();
    let after = Adequacy::measured(
        &out,
        &MutantTally {
            killed: growth.killed,
            ..counts
        },
        options.mutants.seed,
    );
    out.adequacy = Some(after.clone());
    report.after = Some(after);
    (out, report)
}

/// The other tasks of `task`'s problem in `tasks`.
pub fn siblings_of<'a>(task: &Task, tasks: &'a [Task]) -> Vec<&'a Task> {
    match task.problem.as_deref() {
        None => Vec::new(),
        Some(p) => tasks
            .iter()
            .filter(|t| t.problem.as_deref() == Some(p) && t.id != task.id)
            .collect(),
    }
}
