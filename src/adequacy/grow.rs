//! Growing a task's tests: new inputs (stdin tasks) or calls (function tasks) are made from the
//! existing ones and kept only when
//! 1. the original runs normally on it (exit 0, within the deadline, output under the cap),
//! 2. deterministically (a second run under another string-hash seed prints the same), and
//! 3. every other accepted solution of the task's problem prints the same, by the task's own
//!    checker (an input they disagree on is most likely outside the problem's constraints),
//! 4. and it rejects a mutant that every test so far lets through: a mutant of the original,
//!    or of another accepted solution of the problem (judged against that solution's own
//!    output), so the grown set covers the problem's behaviour, not only this program's code;
//! 5. or, failing that, it reaches a branch (an arc, [`super::coverage`]) of the original or of
//!    another accepted solution that no test so far reaches, or the original prints an output
//!    no test so far shows, up to `coverage_tests` such tests: mutants only point where
//!    equimorph's operators edit, and a solution growth never saw errs elsewhere, so inputs
//!    that drive the known solutions down new paths, or to new answers, are kept too. Such a
//!    test has no mutant's evidence behind it, so it is taken only when its integers lie in the
//!    range the task's own tests show and its words are theirs, where the problem's
//!    constraints most likely hold.
//! 6. Besides, once growth ends, up to `large_tests` large inputs per stdin task (every count
//!    grown to a few hundred, as a judge's large random tests are; [`InputModel::enlarge`]) are
//!    kept on rules 1–3 alone: a solution growth never saw may split its work in blocks of 128
//!    or keep a buffer that only a large input fills, which no small input and no mutant of the
//!    known solutions points at. They are not mutated further (growth's own inputs stay small).
//!
//! Before growth, the value domains of a stdin task's small columns are probed on the original
//! (`Maker::probe_domains`): a sample's months 1 and 2 say nothing of December, and where
//! the original stops running normally past them (month 13), new inputs draw over all the
//! values before that edge.
//!
//! A kept test is differential: its `output` is the original's. Growing stops when no new
//! test has been kept for `patience` rounds, or when neither a surviving mutant nor coverage
//! budget is left (at most `max_tests` tests for kills and `coverage_tests` for coverage).
//!
//! A task with no mutant that reached a verdict is not measured: its adequacy records no score
//! and the reason, never 1. A panic while growing one task (a bug of equimorph's) is caught and
//! recorded as that task's error; the task is returned unchanged.

use super::calls::{shows, stated_calls, CallModel, Value};
use super::coverage::{arcs_of, Arc};
use super::equivalent::mutants_to_judge;
use super::inputs::{InputModel, LARGE_COUNT};
use super::mutants::Mutant;
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
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How tests are grown.
#[derive(Debug, Clone, Copy)]
pub struct GrowOptions {
    /// The mutants that guide growth (and score it).
    pub mutants: MutantOptions,
    /// Most tests added to one task for the mutants they reject.
    pub max_tests: usize,
    /// Most tests added to one task for the branches they reach alone (rule 5; 0: none).
    pub coverage_tests: usize,
    /// Large inputs added to one stdin task on keep rules 1–3 alone (rule 6; 0: none).
    pub large_tests: usize,
    /// New inputs tried per round.
    pub batch: usize,
    /// Rounds in a row without a new test kept before a task stops.
    pub patience: usize,
    /// Kept inputs a surviving mutant may survive before growth stops running it (it is then
    /// most likely equivalent, or needs an input the generators do not reach; `usize::MAX`:
    /// never). Checking survivors on kept inputs is three quarters of growth's runs; on a
    /// stdin kit, retiring after 64 grew 1.4× faster and rejected 2 % fewer mutants.
    pub retire_after: usize,
    /// Longest the original may run on a grown test.
    pub deadline: Duration,
    /// Seed of the input mutations (each task also mixes in its id).
    pub seed: u64,
    /// Whether accepted solutions of one problem with the same tests share one growth (and
    /// get the same tests); off, each grows on its own (about as many runs per solution).
    pub share: bool,
}

impl Default for GrowOptions {
    fn default() -> Self {
        GrowOptions {
            mutants: MutantOptions::default(),
            max_tests: 10,
            coverage_tests: DEFAULT_COVERAGE_TESTS,
            large_tests: DEFAULT_LARGE_TESTS,
            batch: 16,
            patience: 4,
            retire_after: usize::MAX,
            deadline: Duration::from_secs(2),
            seed: 0,
            share: true,
        }
    }
}

/// Tests kept per task for new coverage alone, by default. A solution that growth never saw
/// errs on paths equimorph's mutants do not point at (a shortest path through the last
/// vertex, labels that take several passes to settle), so more inputs that drive the known
/// solutions somewhere new are worth their run time: on a blind stdin kit, 5 → 10 → 20 such
/// tests rejected 0.743 → 0.784 → 0.811 of the held-out solutions' mutants, with 8.7 → 13.4
/// tests per task at 10 (docs/guides/test-adequacy.md, kit 27).
pub const DEFAULT_COVERAGE_TESTS: usize = 10;

/// Large inputs kept per stdin task by default (rule 6).
pub const DEFAULT_LARGE_TESTS: usize = 2;

/// Large inputs drawn per large test wanted: the first ones at [`LARGE_COUNT`], the rest at a
/// quarter of it, for a task whose original runs past the deadline on the largest.
const LARGE_TRIES: usize = 3;

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
    /// Of them, kept only for the branches they reach (rule 5).
    pub covering: usize,
    /// Of them, large inputs kept on keep rules 1–3 alone (rule 6).
    pub large: usize,
    /// Of them, calls with the value the task's text states (docstring examples), kept
    /// whether or not they reject a mutant.
    pub stated: usize,
    /// The value domains probes of the original found for small columns of its inputs
    /// (months 1 to 12 from a sample of 1 and 2), which new inputs draw over.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<FoundDomain>,
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
    /// Set for a solution whose tests were grown together with this task's (accepted
    /// solutions of one problem with the same tests share one growth): `tried` and `discarded`
    /// are that growth's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grown_with: Option<String>,
    /// Set for a solution held out by `--holdout`: not grown, judged by the problem's grown
    /// tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holdout: Option<super::holdout::HoldoutReport>,
}

/// A value domain a probe of the original found: token `token` of input lines of `width`
/// tokens holds `lo` to `hi`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoundDomain {
    /// Tokens on the lines of the column.
    pub width: usize,
    /// The column's token (from 0).
    pub token: usize,
    /// The lowest value of the domain.
    pub lo: i64,
    /// The highest.
    pub hi: i64,
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
/// It kills no surviving mutant and reaches no new branch (or the budgets are spent).
pub const NO_KILL: &str = "it rejects no surviving mutant and reaches no new branch";
/// The original does not return what the task's text states for this call.
pub const CONTRADICTS: &str = "the original contradicts the value the task's text states";
/// A large input passed the keep rules after `--large-tests` of them had (rule 6).
pub const LARGE_SPARE: &str = "enough large inputs were kept before it";

/// The source of new tests for a task.
pub(super) enum Maker {
    Stdin(Box<InputModel>, Vec<String>),
    Call(CallModel),
}

impl Maker {
    /// The maker of `task`'s new tests: from its stdin inputs, or from the literal calls of
    /// its entry point; `None` when it has neither.
    pub(super) fn of(task: &Task) -> Option<Maker> {
        let inputs: Vec<String> = task
            .tests
            .iter()
            .filter(|t| t.call.is_none())
            .map(|t| t.input.clone())
            .collect();
        if !inputs.is_empty() {
            let model = InputModel::of(inputs.iter().map(String::as_str));
            return Some(Maker::Stdin(Box::new(model), inputs));
        }
        let entry = task.entry_point.as_deref()?;
        CallModel::of_task(task.test_code.as_deref(), &task.source, entry).map(Maker::Call)
    }

    /// Probes the value domains of the stdin model's small columns on `task`'s original
    /// ([`InputModel::domain_probes`]): a value is valid where the original ends normally on
    /// the probe, a timeout is no answer. Returns the domains found. Calls have none.
    pub(super) fn probe_domains(
        &mut self,
        oracle: &Oracle,
        task: &Task,
        deadline: Duration,
    ) -> Vec<FoundDomain> {
        let Maker::Stdin(model, inputs) = self else {
            return Vec::new();
        };
        let probes = model.domain_probes(inputs.iter().map(String::as_str));
        let mut found = Vec::new();
        for probe in probes {
            let ok = |v: i64| {
                let test = TestCase::stdin(probe.input(v), None);
                let run = oracle.run_test(
                    task.language,
                    &task.source,
                    &test,
                    deadline,
                    REFERENCE_HASH_SEED,
                );
                match run.class {
                    ExitClass::Timeout => None,
                    class => Some(super::seed::ends_normally(task, class)),
                }
            };
            if let Some((lo, hi)) = probe.search(ok) {
                let (width, token) = probe.column();
                model.set_domain((width, token), (lo, hi));
                found.push(FoundDomain {
                    width,
                    token,
                    lo,
                    hi,
                });
            }
        }
        found
    }

    /// The stdin inputs new ones are made from (none for calls).
    pub(super) fn inputs(&self) -> Vec<String> {
        match self {
            Maker::Stdin(_, inputs) => inputs.clone(),
            Maker::Call(_) => Vec::new(),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Maker::Stdin(..) => "stdin",
            Maker::Call(_) => "call",
        }
    }

    /// A new test, and whether its integers lie within the range the task's own tests show
    /// (see [`InputModel::within_observed`]).
    pub(super) fn make(&self, pool: &[String], rng: &mut ChaCha8Rng) -> Option<(TestCase, bool)> {
        match self {
            Maker::Stdin(model, _) => {
                if pool.is_empty() {
                    return None;
                }
                let base = pool.get(rand::Rng::random_range(rng, 0..pool.len()))?;
                model.mutate(base, rng).map(|input| {
                    let typical = model.within_observed(&input);
                    let test = TestCase {
                        input,
                        output: None,
                        call: None,
                        grown: true,
                    };
                    (test, typical)
                })
            }
            Maker::Call(model) => {
                let args = model.mutate_args(rng);
                let test = TestCase {
                    input: String::new(),
                    output: None,
                    call: Some(model.render(&args)),
                    grown: true,
                };
                Some((test, model.within_observed(&args)))
            }
        }
    }
}

/// The identity of a test's input, for de-duplication.
pub(super) fn test_key(t: &TestCase) -> String {
    format!("{}\u{0}{}", t.call.as_deref().unwrap_or(""), t.input)
}

/// A new test that passed the keep rules 1–3, with the original's time on it and each other
/// accepted solution's own output and time.
pub(super) struct Kept {
    pub(super) test: TestCase,
    pub(super) seconds: f64,
    siblings: Vec<(String, f64)>,
}

impl Kept {
    /// The test, and each other accepted solution's output on it.
    fn split(self) -> (TestCase, Vec<String>) {
        (
            self.test,
            self.siblings.into_iter().map(|(o, _)| o).collect(),
        )
    }
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
    /// Kept inputs it has run on and survived (see [`GrowOptions::retire_after`]).
    survived: usize,
}

/// Applies keep rules 1–3 to `test`.
pub(super) fn keep(
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
        c if super::seed::ends_normally(task, c) => {}
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
    if second.class != first.class || second.stdout != first.stdout {
        return Err(NOT_DETERMINISTIC);
    }
    let tolerance = oracle.config().float_tolerance;
    let mut outputs = Vec::with_capacity(siblings.len());
    for s in siblings {
        let r = oracle.run_test(s.language, &s.source, &test, deadline, REFERENCE_HASH_SEED);
        if !super::seed::ends_normally(s, r.class)
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
    differs(
        oracle,
        task,
        target.language,
        &target.mutant.source,
        &kept.test,
        expected,
        seconds,
    )
}

/// Whether `program` (of `language`) fails `test` or prints other than `expected`, which its
/// reference printed in `seconds` (the timeout is the oracle's for a candidate of `task`). A
/// sandbox failure is no evidence either way.
pub(super) fn differs(
    oracle: &Oracle,
    task: &Task,
    language: Language,
    program: &str,
    test: &TestCase,
    expected: &str,
    seconds: f64,
) -> bool {
    let timeout = oracle.candidate_timeout(task, seconds);
    let got = oracle.run_test(language, program, test, timeout, REFERENCE_HASH_SEED);
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
/// (the first `stated` of them from the task's text, `covering` of them for coverage alone,
/// `large` of them large inputs),
/// the stdin inputs to mutate, and the arcs the tests reach in each program (the original
/// first, then its siblings; `None` where coverage cannot be read).
struct Growth<'m> {
    survivors: Vec<Target<'m>>,
    killed: usize,
    new_tests: Vec<TestCase>,
    pool: Vec<String>,
    stated: usize,
    covering: usize,
    large: usize,
    covered: Vec<Option<BTreeSet<Arc>>>,
    outputs: HashSet<String>,
    atypical: HashSet<String>,
    /// Per sibling: its mutants rejected, and its own output on each new test.
    sibling_kills: Vec<usize>,
    sibling_outputs: Vec<Vec<String>>,
}

impl Growth<'_> {
    /// Tests added for the mutants they reject (neither stated, covering nor large).
    fn killing(&self) -> usize {
        self.new_tests.len() - self.stated - self.covering - self.large
    }

    /// Records a new test, with the arcs it reaches in each program and each sibling's output.
    /// (Large inputs join the inputs to mutate too, but come after the last mutation.)
    fn push(&mut self, test: TestCase, arcs: Vec<Option<BTreeSet<Arc>>>, outputs: Vec<String>) {
        for (all, o) in self.sibling_outputs.iter_mut().zip(outputs) {
            all.push(o);
        }
        for (covered, new) in self.covered.iter_mut().zip(arcs) {
            if let (Some(c), Some(n)) = (covered.as_mut(), new) {
                c.extend(n);
            }
        }
        if test.call.is_none() {
            self.pool.push(test.input.clone());
        }
        if let Some(o) = &test.output {
            self.outputs.insert(o.trim_end().to_string());
        }
        self.new_tests.push(test);
    }
}

/// The programs coverage is read from: the task's original, then its siblings.
fn programs<'t>(task: &'t Task, siblings: &[&'t Task]) -> Vec<(Language, &'t str)> {
    std::iter::once(task)
        .chain(siblings.iter().copied())
        .map(|t| (t.language, t.source.as_str()))
        .collect()
}

/// The arcs `test` reaches in each of `programs` (see [`arcs_of`]).
fn arcs_in(
    oracle: &Oracle,
    programs: &[(Language, &str)],
    test: &TestCase,
    deadline: Duration,
) -> Vec<Option<BTreeSet<Arc>>> {
    programs
        .par_iter()
        .map(|(language, source)| arcs_of(oracle, *language, source, test, deadline))
        .collect()
}

/// The arcs the task's own tests reach in each of `programs`: where a program's coverage
/// cannot be read on one of them, that program has none (rule 5 then never fires for it).
fn initial_coverage(
    oracle: &Oracle,
    task: &Task,
    programs: &[(Language, &str)],
    deadline: Duration,
) -> Vec<Option<BTreeSet<Arc>>> {
    let mut tests: Vec<TestCase> = task.tests.to_vec();
    if let Some(code) = task.test_code.as_deref().filter(|_| tests.is_empty()) {
        tests.push(TestCase {
            input: String::new(),
            output: None,
            call: Some(code.to_string()),
            grown: false,
        });
    }
    let mut covered: Vec<Option<BTreeSet<Arc>>> = vec![Some(BTreeSet::new()); programs.len()];
    for test in &tests {
        for (c, new) in covered
            .iter_mut()
            .zip(arcs_in(oracle, programs, test, deadline))
        {
            match (c.as_mut(), new) {
                (Some(c), Some(n)) => c.extend(n),
                _ => *c = None,
            }
        }
    }
    covered
}

/// Adds, in order, the `kept` tests within the observed range that reach an arc no test so far
/// reaches in the original or a sibling, or on which the original prints what no test so far
/// shows (rule 5), while fewer than `budget` were added for coverage; the others are counted
/// as [`NO_KILL`]. Returns how many were added.
fn admit_covering(
    oracle: &Oracle,
    programs: &[(Language, &str)],
    kept: Vec<Kept>,
    budget: usize,
    deadline: Duration,
    growth: &mut Growth<'_>,
    report: &mut GrowReport,
) -> usize {
    let mut added = 0;
    for k in kept {
        if growth.covering >= budget || growth.atypical.contains(&test_key(&k.test)) {
            *report.discarded.entry(NO_KILL).or_default() += 1;
            continue;
        }
        let arcs = arcs_in(oracle, programs, &k.test, deadline);
        let (test, outputs) = k.split();
        let printed = test.output.as_deref().unwrap_or("").trim_end();
        let new = !growth.outputs.contains(printed)
            || growth.covered.iter().zip(&arcs).any(|(c, a)| match (c, a) {
                (Some(c), Some(a)) => !a.is_subset(c),
                _ => false,
            });
        if new {
            growth.covering += 1;
            added += 1;
            growth.push(test, arcs, outputs);
        } else {
            *report.discarded.entry(NO_KILL).or_default() += 1;
        }
    }
    added
}

/// Which kept tests [`admit`] takes.
#[derive(Clone, Copy, PartialEq)]
enum Admit {
    /// All: tests the task's text states.
    Stated,
    /// All: large inputs (rule 6).
    Large,
    /// Those that reject a surviving mutant, while fewer than this many were added for kills.
    Killing(usize),
}

/// Adds the kept tests `which` says (every one takes the mutants it rejects); returns how many
/// were added, and the kept tests it did not add, in order.
fn admit(
    oracle: &Oracle,
    task: &Task,
    programs: &[(Language, &str)],
    kept: Vec<Kept>,
    which: Admit,
    options: &GrowOptions,
    growth: &mut Growth<'_>,
) -> (usize, Vec<Kept>) {
    // The greedy pass in order takes a test when it rejects a mutant no test taken before it
    // rejects, so the tests it takes are exactly each survivor's first rejecting test (up to
    // the budget): a survivor only needs running until its first rejection, not on every
    // kept test (a mutant that loops costs a whole timeout per run). A survivor that has
    // survived `retire_after` kept inputs is no longer run at all.
    let survivors = &growth.survivors;
    let first_kill: Vec<Option<usize>> = survivors
        .par_iter()
        .map(|m| {
            if m.survived >= options.retire_after {
                return None;
            }
            kept.iter().position(|k| kills(oracle, task, k, m))
        })
        .collect();
    let firsts: BTreeSet<usize> = first_kill.iter().flatten().copied().collect();
    let taken: BTreeSet<usize> = match which {
        Admit::Stated | Admit::Large => (0..kept.len()).collect(),
        Admit::Killing(max) => firsts
            .into_iter()
            .take(max.saturating_sub(growth.killing()))
            .collect(),
    };
    let mut alive: Vec<bool> = Vec::with_capacity(survivors.len());
    let mut own_killed = 0;
    let mut sibling_kills = vec![0; growth.sibling_kills.len()];
    for (first, target) in first_kill.iter().zip(survivors) {
        let killed = first.is_some_and(|i| taken.contains(&i));
        if killed {
            match target.owner.checked_sub(1) {
                None => own_killed += 1,
                Some(i) => {
                    if let Some(n) = sibling_kills.get_mut(i) {
                        *n += 1;
                    }
                }
            }
        }
        alive.push(!killed);
    }
    growth.killed += own_killed;
    let mut admitted = Vec::new();
    let mut left = Vec::new();
    for (i, k) in kept.into_iter().enumerate() {
        if taken.contains(&i) {
            admitted.push(k.split());
        } else {
            left.push(k);
        }
    }
    let added = admitted.len();
    // The arcs the new tests reach, so that coverage (rule 5) counts only what they leave.
    let arcs: Vec<Vec<Option<BTreeSet<Arc>>>> = admitted
        .par_iter()
        .map(|(t, _)| arcs_in(oracle, programs, t, options.deadline))
        .collect();
    for ((test, outputs), arcs) in admitted.into_iter().zip(arcs) {
        match which {
            Admit::Stated => growth.stated += 1,
            Admit::Large => growth.large += 1,
            Admit::Killing(_) => {}
        }
        growth.push(test, arcs, outputs);
    }
    for (all, new) in growth.sibling_kills.iter_mut().zip(sibling_kills) {
        *all += new;
    }
    let survivors = std::mem::take(&mut growth.survivors);
    let tried = left.len() + added;
    growth.survivors = survivors
        .into_iter()
        .zip(alive)
        .filter(|(_, a)| *a)
        .map(|(mut m, _)| {
            m.survived += tried;
            m
        })
        .collect();
    (added, left)
}

/// Up to [`LARGE_TRIES`] × `wanted` new large inputs (rule 6) made from the task's `inputs`,
/// largest first, none of them `seen` before: the first two thirds at [`LARGE_COUNT`], the
/// rest at a quarter of it. Drawn from a generator of their own, so that the rest of growth
/// draws the same inputs whether or not large ones are asked for.
fn large_inputs(
    model: &InputModel,
    inputs: &[String],
    wanted: usize,
    seen: &mut HashSet<String>,
    id: &str,
    seed: u64,
) -> Vec<TestCase> {
    let mut bases: Vec<&String> = inputs.iter().collect();
    bases.sort_by_key(|b| std::cmp::Reverse(b.len()));
    if bases.is_empty() || wanted == 0 {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(task_seed(seed, id) ^ LARGE_SEED);
    let tries = wanted.saturating_mul(LARGE_TRIES);
    let mut made = Vec::new();
    for i in 0..tries {
        let cap = if i.saturating_mul(3) < tries.saturating_mul(2) {
            LARGE_COUNT
        } else {
            LARGE_COUNT / 4
        };
        let Some(base) = bases.get(i % bases.len()) else {
            continue;
        };
        let Some(input) = model.enlarge(base, cap, &mut rng) else {
            continue;
        };
        let test = TestCase {
            input,
            output: None,
            call: None,
            grown: true,
        };
        if seen.insert(test_key(&test)) {
            made.push(test);
        }
    }
    made
}

/// Mixed into a task's seed for its large inputs' generator.
const LARGE_SEED: u64 = 0x6c61_7267_6569_6e70;

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
    let run = crate::pipeline::catch_task_panic(|| {
        let (out, report, _) = grow_inner(oracle, task, siblings, options, stop);
        (out, report)
    });
    run.unwrap_or_else(|why| failed(task, siblings.len(), why))
}

/// `task` unchanged, with the panic `why` as its error.
fn failed(task: &Task, siblings: usize, why: String) -> (Task, GrowReport) {
    let mut report = empty_report(task, siblings);
    report.status = ValidationStatus::Error;
    report.reason = Some(why.clone());
    report.error = Some(why);
    (task.clone(), report)
}

/// What growing a task gave one of its siblings: the new tests with the sibling's own outputs,
/// its mutants' tally under its own tests, and how many of them the new tests reject.
struct SiblingShare {
    tests: Vec<TestCase>,
    before: MutantTally,
    killed: usize,
}

/// Grows `leader`'s tests once for the `followers` among its `siblings` too: accepted
/// solutions of one problem with the same tests get the same grown tests (each with its own
/// output), made against every solution's mutants, in one growth instead of one per solution.
/// Returns the leader's result, then each follower's in order. A follower that did not
/// validate is grown on its own; a panic leaves every task of the group unchanged, with the
/// panic as its error.
pub fn grow_group_until(
    oracle: &Oracle,
    leader: &Task,
    siblings: &[&Task],
    followers: &[&Task],
    options: GrowOptions,
    stop: &AtomicBool,
) -> Vec<(Task, GrowReport)> {
    let run = crate::pipeline::catch_task_panic(|| {
        let (out, report, mut shares) = grow_inner(oracle, leader, siblings, options, stop);
        let mut results = Vec::with_capacity(1 + followers.len());
        for f in followers {
            let share = siblings
                .iter()
                .position(|s| s.id == f.id)
                .and_then(|i| shares.get_mut(i))
                .and_then(Option::take);
            results.push(match share {
                Some(share) => shared(&report, f, share, options),
                None if report.interrupted => {
                    let mut r = empty_report(f, siblings.len());
                    r.interrupted = true;
                    ((*f).clone(), r)
                }
                None => {
                    let others: Vec<&Task> = std::iter::once(leader)
                        .chain(siblings.iter().copied())
                        .filter(|s| s.id != f.id)
                        .collect();
                    grow_task_until(oracle, f, &others, options, stop)
                }
            });
        }
        results.insert(0, (out, report));
        results
    });
    run.unwrap_or_else(|why| {
        std::iter::once(leader)
            .chain(followers.iter().copied())
            .map(|t| failed(t, siblings.len(), why.clone()))
            .collect()
    })
}

/// `follower` with the tests its leader's growth (`grown`) made, and its report.
fn shared(
    grown: &GrowReport,
    follower: &Task,
    share: SiblingShare,
    options: GrowOptions,
) -> (Task, GrowReport) {
    let seed = options.mutants.seed;
    let mut report = empty_report(follower, grown.siblings);
    report.kind = grown.kind;
    report.grown_with = Some(grown.id.clone());
    let before = Adequacy::measured(follower, &share.before, seed);
    if let Some(why) = before.mutation_score_missing.clone() {
        report.reason = Some(format!("mutation score not measured: {why}"));
    }
    report.before = Some(before);
    let mut out = follower.clone();
    let mut tests = follower.tests.to_vec();
    tests.extend(share.tests);
    out.tests = tests.into();
    let after = Adequacy::measured(
        &out,
        &MutantTally {
            killed: share.before.killed + share.killed,
            ..share.before
        },
        seed,
    );
    out.adequacy = Some(after.clone());
    report.after = Some(after);
    report.added = grown.added;
    report.covering = grown.covering;
    report.large = grown.large;
    report.domains = grown.domains.clone();
    report.stated = grown.stated;
    report.tried = grown.tried;
    report.discarded = grown.discarded.clone();
    (out, report)
}

/// For each of `tasks`, the index of the task whose growth it shares ([`grow_group_until`]):
/// the first earlier task of its problem with the same tests that shares no other's. Tasks
/// `skip` says are left out (held out), and with `share` off no task shares.
pub fn growth_leaders(
    tasks: &[Task],
    skip: impl Fn(&Task) -> bool,
    share: bool,
) -> Vec<Option<usize>> {
    let mut leaders: Vec<Option<usize>> = vec![None; tasks.len()];
    if !share {
        return leaders;
    }
    // (problem, test keys) → the first task with them.
    let mut first: HashMap<(&str, Vec<String>), usize> = HashMap::new();
    for (i, t) in tasks.iter().enumerate() {
        let Some(problem) = t.problem.as_deref() else {
            continue;
        };
        if skip(t) || t.tests.is_empty() {
            continue;
        }
        let keys: Vec<String> = t.tests.iter().map(test_key).collect();
        match first.entry((problem, keys)) {
            Entry::Occupied(e) => {
                if let Some(slot) = leaders.get_mut(i) {
                    *slot = Some(*e.get());
                }
            }
            Entry::Vacant(e) => {
                e.insert(i);
            }
        }
    }
    leaders
}

/// The report of a task nothing was done to yet.
pub fn empty_report(task: &Task, siblings: usize) -> GrowReport {
    GrowReport {
        id: task.id.clone(),
        status: ValidationStatus::Ok,
        reason: None,
        kind: None,
        before: None,
        after: None,
        added: 0,
        covering: 0,
        large: 0,
        stated: 0,
        domains: Vec::new(),
        tried: 0,
        discarded: BTreeMap::new(),
        siblings,
        sibling_mutants: 0,
        sibling_killed: 0,
        error: None,
        interrupted: false,
        grown_with: None,
        holdout: None,
    }
}

fn grow_inner(
    oracle: &Oracle,
    task: &Task,
    siblings: &[&Task],
    options: GrowOptions,
    stop: &AtomicBool,
) -> (Task, GrowReport, Vec<Option<SiblingShare>>) {
    test_panic_point(&task.id);
    let mut report = empty_report(task, siblings.len());
    let validation = oracle.validate(task);
    report.status = validation.status;
    let Some(reference) = validation
        .reference
        .filter(|_| report.status == ValidationStatus::Ok)
    else {
        report.reason = validation.reason;
        return (task.clone(), report, Vec::new());
    };
    let (ms, _) = mutants_to_judge(oracle, task.language, &task.source, options.mutants);
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
            survived: 0,
        })
        .collect();
    // The other accepted solutions' mutants that the same tests let through.
    // With each sibling's tally (`None`: it did not validate, so nothing is shared with it).
    let sibling_mutants: Vec<(Vec<Mutant>, Option<MutantTally>)> = siblings
        .par_iter()
        .map(|s| {
            let validation = oracle.validate(s);
            let Some(reference) = validation
                .reference
                .filter(|_| validation.status == ValidationStatus::Ok)
            else {
                return (Vec::new(), None);
            };
            let (ms, _) = mutants_to_judge(oracle, s.language, &s.source, options.mutants);
            let sources: Vec<&str> = ms.iter().map(|m| m.source.as_str()).collect();
            let vs = verdicts(oracle, s, &reference, &sources);
            let counts = tally(&vs);
            let survivors = ms
                .into_iter()
                .zip(vs)
                .filter(|(_, v)| *v == Verdict::Accepted)
                .map(|(m, _)| m)
                .collect();
            (survivors, Some(counts))
        })
        .collect();
    for (i, ((ms, _), s)) in sibling_mutants.iter().zip(siblings).enumerate() {
        survivors.extend(ms.iter().map(|m| Target {
            mutant: m,
            owner: i + 1,
            language: s.language,
            survived: 0,
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
    let Some(mut maker) = Maker::of(task) else {
        report.reason = Some(
            "no test to grow from: neither stdin inputs nor literal calls of the entry point \
             (in the tests or the task's examples)"
                .into(),
        );
        out.adequacy = report.before.clone();
        report.after = report.before.clone();
        return (out, report, Vec::new());
    };
    report.kind = Some(maker.kind());
    report.domains = maker.probe_domains(oracle, task, options.deadline);
    let pool = maker.inputs();
    let mut seen: HashSet<String> = task.tests.iter().map(test_key).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(task_seed(options.seed, &task.id));
    let programs = programs(task, siblings);
    let covered = if options.coverage_tests > 0 {
        initial_coverage(oracle, task, &programs, options.deadline)
    } else {
        vec![None; programs.len()]
    };
    let mut growth = Growth {
        survivors,
        killed: counts.killed,
        new_tests: Vec::new(),
        pool,
        stated: 0,
        covering: 0,
        large: 0,
        covered,
        outputs: reference
            .runs
            .iter()
            .map(|r| r.stdout.trim_end().to_string())
            .collect(),
        atypical: HashSet::new(),
        sibling_kills: vec![0; siblings.len()],
        sibling_outputs: vec![Vec::new(); siblings.len()],
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
        admit(
            oracle,
            task,
            &programs,
            kept,
            Admit::Stated,
            &options,
            &mut growth,
        );
    }
    let mut idle = 0;
    while idle < options.patience {
        let kills_left = !growth.survivors.is_empty() && growth.killing() < options.max_tests;
        let coverage_left = growth.covering < options.coverage_tests;
        if !kills_left && !coverage_left {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            return interrupted(task, report);
        }
        let mut batch = Vec::new();
        for _ in 0..options.batch * 4 {
            if batch.len() == options.batch {
                break;
            }
            if let Some((t, typical)) = maker.make(&growth.pool, &mut rng) {
                if seen.insert(test_key(&t)) {
                    if !typical {
                        growth.atypical.insert(test_key(&t));
                    }
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
        let mut kept = sorted_out(verdicts, &mut report);
        // Inputs within what the task's tests show go first: where one of them rejects a
        // mutant, the greedy pass takes it over an input that may lie outside the constraints
        // (an edited word that is no valid numeral or time).
        kept.sort_by_key(|k| growth.atypical.contains(&test_key(&k.test)));
        let (killing, left) = admit(
            oracle,
            task,
            &programs,
            kept,
            Admit::Killing(options.max_tests),
            &options,
            &mut growth,
        );
        // Of the inputs left, larger ones first for the coverage budget: where several reach
        // something new, the larger tries more values a solution growth never saw may err on
        // (calls have no input and keep their order).
        let mut left = left;
        left.sort_by_key(|k| std::cmp::Reverse(k.test.input.len()));
        let covering = admit_covering(
            oracle,
            &programs,
            left,
            options.coverage_tests,
            options.deadline,
            &mut growth,
            &mut report,
        );
        idle = if killing + covering > 0 { 0 } else { idle + 1 };
    }
    // Large inputs last: taken first, they reject the known solutions' mutants wholesale and
    // leave growth no survivor to aim its small inputs at (kit 31's coin change: 12 of the
    // held-out solution's 12 mutants rejected → 1).
    if stop.load(Ordering::Relaxed) {
        return interrupted(task, report);
    }
    if let Maker::Stdin(model, inputs) = &maker {
        let made = large_inputs(
            model,
            inputs,
            options.large_tests,
            &mut seen,
            &task.id,
            options.seed,
        );
        report.tried += made.len();
        let verdicts: Vec<Result<Kept, &'static str>> = made
            .into_par_iter()
            .map(|t| keep(oracle, task, siblings, t, options.deadline))
            .collect();
        let mut kept: Vec<Kept> = sorted_out(verdicts, &mut report);
        let spare = kept.len().saturating_sub(options.large_tests);
        kept.truncate(options.large_tests);
        if spare > 0 {
            *report.discarded.entry(LARGE_SPARE).or_default() += spare;
        }
        admit(
            oracle,
            task,
            &programs,
            kept,
            Admit::Large,
            &options,
            &mut growth,
        );
    }
    report.added = growth.new_tests.len();
    report.stated = growth.stated;
    report.covering = growth.covering;
    report.large = growth.large;
    report.sibling_killed = growth.sibling_kills.iter().sum();
    let shares = sibling_mutants
        .iter()
        .zip(growth.sibling_outputs)
        .zip(&growth.sibling_kills)
        .map(|(((_, before), outputs), &killed)| {
            let before = (*before)?;
            let tests = growth
                .new_tests
                .iter()
                .zip(outputs)
                .map(|(t, o)| TestCase {
                    output: Some(o),
                    ..t.clone()
                })
                .collect();
            Some(SiblingShare {
                tests,
                before,
                killed,
            })
        })
        .collect();
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
    (out, report, shares)
}

/// `task` unchanged, its report saying the run was interrupted while it grew.
fn interrupted(
    task: &Task,
    mut report: GrowReport,
) -> (Task, GrowReport, Vec<Option<SiblingShare>>) {
    report.interrupted = true;
    report.reason = Some("interrupted: nothing grown (the task is unchanged)".into());
    report.after = report.before.clone();
    (task.clone(), report, Vec::new())
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
