//! The test-adequacy jobs (`equimorph tests score|grow`): from a loaded task set and an oracle
//! to a typed [`ScoreOutcome`] or [`GrowOutcome`] from which the exit status follows. The
//! command line parses arguments, loads the tasks, starts the oracle, calls
//! [`ScoreJob::run`] or [`GrowJob::run`] and prints the outcome.
//!
//! Both run their tasks in parallel, stop taking tasks once interrupted (what was not reached
//! is written unchanged, and the run exits 130), and keep a task's panic as that task's error
//! (caught in [`score_task`] and [`grow_task_until`]).

use super::exit::ExitStatus;
use super::{Printout, Progress};
use crate::adequacy::grow::{
    empty_report, grow_group_until, grow_task_until, growth_leaders, siblings_of, GrowOptions,
    GrowReport,
};
use crate::adequacy::holdout::{held_out, judge, HoldoutReport};
use crate::adequacy::score::{broken_by_task, score_task, MutantOptions, TaskScore};
use crate::adequacy::seed::{seed_problem, untested_problems, ProblemSeeding, SeedOptions};
use crate::adequacy::{ScoreDistribution, BAND_LABELS};
use crate::oracle::{Oracle, ValidationStatus};
use crate::task::{Task, TaskSet};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Why `tests score` or `tests grow` stopped with an error (a task's own failure is never
/// one: it is that task's line).
#[derive(Debug, Error)]
pub enum TestsError {
    /// `--mutants 0`.
    #[error("--mutants must be at least 1")]
    NoMutants,
    /// `--max-tests`, `--batch` or `--patience` is 0.
    #[error("--max-tests, --batch and --patience must be at least 1")]
    NoGrowth,
    /// `--deadline` is not a positive number of seconds.
    #[error("--deadline must be positive")]
    Deadline,
    /// A file could not be created.
    #[error("creating {}", path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The finished task file could not be moved into place.
    #[error("writing {}", path.display())]
    Rename {
        /// The task file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// How many mutants of each task, and their seed, or why not.
pub fn mutant_options(max_mutants: usize, seed: u64) -> Result<MutantOptions, TestsError> {
    if max_mutants == 0 {
        return Err(TestsError::NoMutants);
    }
    Ok(MutantOptions { max_mutants, seed })
}

/// How tests are grown, or why not (`deadline` in seconds; `retire_after` 0: a surviving
/// mutant is never retired).
pub fn grow_options(
    mutants: MutantOptions,
    max_tests: usize,
    coverage_tests: usize,
    batch: usize,
    patience: usize,
    retire_after: usize,
    deadline: f64,
) -> Result<GrowOptions, TestsError> {
    if max_tests == 0 || batch == 0 || patience == 0 {
        return Err(TestsError::NoGrowth);
    }
    if deadline.is_nan() || deadline <= 0.0 {
        return Err(TestsError::Deadline);
    }
    // Also too long a deadline (infinity), which `Duration` cannot hold.
    let deadline = Duration::try_from_secs_f64(deadline).map_err(|_| TestsError::Deadline)?;
    Ok(GrowOptions {
        mutants,
        max_tests,
        coverage_tests,
        large_tests: crate::adequacy::grow::DEFAULT_LARGE_TESTS,
        batch,
        patience,
        retire_after: if retire_after == 0 {
            usize::MAX
        } else {
            retire_after
        },
        deadline,
        seed: mutants.seed,
        share: true,
    })
}

/// `tests score`: the mutation score of each task's tests.
pub struct ScoreJob<'a> {
    /// The tasks.
    pub tasks: &'a TaskSet,
    /// The oracle that runs the mutants.
    pub oracle: &'a Oracle,
    /// How mutants are drawn.
    pub mutants: MutantOptions,
    /// Where to write the tasks with their scores recorded, if anywhere.
    pub write: Option<PathBuf>,
}

/// How `tests score` ended.
#[derive(Debug)]
pub struct ScoreOutcome {
    /// The scores of the tasks reached, in task order.
    pub scores: Vec<TaskScore>,
    /// Tasks with tests.
    pub tasks: usize,
    /// Tasks not reached before an interrupt.
    pub pending: usize,
    /// How the measured scores are spread (`None`: no task could be scored).
    pub distribution: Option<ScoreDistribution>,
    /// Mutants run over all tasks.
    pub mutants: usize,
    /// Of them, rejected.
    pub killed: usize,
    /// Known-broken programs run over all tasks.
    pub broken_programs: usize,
    /// Of them, rejected.
    pub broken_rejected: usize,
    /// The mutants' seed.
    pub seed: u64,
    /// Where the tasks with their scores were written.
    pub written: Option<PathBuf>,
}

impl ScoreJob<'_> {
    /// Scores every task, stopping at the next task once `stop` is set, and writes the task
    /// file when asked to.
    pub fn run(
        &self,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<ScoreOutcome, TestsError> {
        let set = self.tasks;
        let broken = broken_by_task(&set.tasks, &set.broken);
        // `None`: not scored, the run was interrupted first.
        let scores = map_tasks(&set.tasks, stop, progress, "mutants", |t| {
            let b = broken.get(&t.id).map(Vec::as_slice).unwrap_or(&[]);
            Some(score_task(self.oracle, t, self.mutants, b))
        });
        if let Some(path) = &self.write {
            // Scored tasks carry their measurement; a task equimorph failed on, or one the
            // interrupted run did not reach, is written as it came.
            let tasks: Vec<Task> = set
                .tasks
                .iter()
                .zip(&scores)
                .map(|(t, s)| match s {
                    Some(s) if s.error.is_none() => Task {
                        adequacy: s.adequacy.clone(),
                        ..t.clone()
                    },
                    _ => t.clone(),
                })
                .chain(set.untested.iter().cloned())
                .collect();
            write_tasks(path, &tasks)?;
        }
        let pending = scores.iter().filter(|s| s.is_none()).count();
        let done: Vec<TaskScore> = scores.into_iter().flatten().collect();
        let adequacies = || done.iter().filter_map(|s| s.adequacy.as_ref());
        let values: Vec<f64> = adequacies().filter_map(|a| a.mutation_score).collect();
        let (mutants, killed) =
            adequacies().fold((0, 0), |(m, k), a| (m + a.mutants, k + a.killed));
        let (broken_programs, broken_rejected) = adequacies()
            .filter_map(|a| a.broken)
            .fold((0, 0), |(p, r), b| (p + b.programs, r + b.rejected));
        Ok(ScoreOutcome {
            distribution: ScoreDistribution::of(&values),
            scores: done,
            tasks: set.tasks.len(),
            pending,
            mutants,
            killed,
            broken_programs,
            broken_rejected,
            seed: self.mutants.seed,
            written: self.write.clone(),
        })
    }
}

impl ScoreOutcome {
    /// The exit status the outcome calls for: 130 when interrupted, 1 when no task could be
    /// scored.
    pub fn status(&self) -> ExitStatus {
        if self.pending > 0 {
            ExitStatus::Interrupted
        } else if self.distribution.is_some() {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// The tasks equimorph itself failed on.
    fn errors(&self) -> impl Iterator<Item = &str> {
        self.scores
            .iter()
            .filter(|s| s.error.is_some())
            .map(|s| s.id.as_str())
    }

    /// The whole result as JSON (`tests score --json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "tasks": self.scores,
            "distribution": self.distribution,
            "mutants": self.mutants,
            "killed": self.killed,
            "broken": {"programs": self.broken_programs, "rejected": self.broken_rejected},
            "errors": self.errors().collect::<Vec<_>>(),
            "complete": self.pending == 0,
            "pending": self.pending,
            "lower_bound": true,
            "seed": self.seed,
        })
    }

    /// What `tests score` tells its user at the end: the JSON document with `json`, else each
    /// task's line (with its surviving mutants when `survivors`), the distribution and what
    /// was written; and why it stopped.
    pub fn printout(&self, json: bool, survivors: bool) -> Printout {
        let mut p = Printout::new();
        if json {
            p.out(format!("{:#}", self.json()));
        } else {
            for s in &self.scores {
                task_score_lines(&mut p, s, survivors);
            }
            self.totals(&mut p);
            errors_line(&mut p, self.errors());
            if let Some(path) = &self.written {
                p.out(format!("tasks with their scores: {}", path.display()));
            }
        }
        if self.pending > 0 {
            p.err(format!(
                "interrupted: scored {} of {} task(s){}; rerun the same command to score them all",
                self.scores.len(),
                self.tasks,
                if self.written.is_some() {
                    "; the others are written unchanged"
                } else {
                    ""
                }
            ));
        }
        p
    }

    /// The distribution, the mutants over all tasks and the known-broken programs.
    fn totals(&self, p: &mut Printout) {
        match &self.distribution {
            Some(d) => {
                p.out(format!("mutation score: {}", d.describe()));
                p.out(format!(
                    "{}/{} mutants rejected over all tasks ({:.3})",
                    self.killed,
                    self.mutants,
                    self.killed as f64 / self.mutants.max(1) as f64
                ));
                band_lines(p, d);
            }
            None => {
                p.out("no task could be scored");
            }
        }
        if self.broken_programs > 0 {
            p.out(format!(
                "known-broken programs: {}/{} rejected by the tests ({:.3})",
                self.broken_rejected,
                self.broken_programs,
                self.broken_rejected as f64 / self.broken_programs as f64
            ));
        }
    }
}

/// One task's lines of `tests score`.
fn task_score_lines(p: &mut Printout, s: &TaskScore, survivors: bool) {
    let a = match (&s.error, &s.adequacy) {
        (Some(e), _) => {
            p.out(format!("{}: error: {e}", s.id));
            return;
        }
        (None, None) => {
            p.out(format!(
                "{}: not scored, the original is {}: {}",
                s.id,
                status_name(s.status),
                s.reason.as_deref().unwrap_or("")
            ));
            return;
        }
        (None, Some(a)) if a.mutation_score.is_none() => {
            p.out(format!("{}: mutation score {}", s.id, a.describe_score()));
            return;
        }
        (None, Some(a)) => a,
    };
    let mut line = format!(
        "{}: {} ({}/{} mutants rejected by {} test(s))",
        s.id,
        a.describe_score(),
        a.killed,
        a.mutants,
        a.tests
    );
    if s.trivially_equivalent > 0 {
        line.push_str(&format!(
            "; {} trivially equivalent (same bytecode) left out",
            s.trivially_equivalent
        ));
    }
    if let Some(b) = a.broken {
        line.push_str(&format!(
            "; {}/{} known-broken programs rejected",
            b.rejected, b.programs
        ));
    }
    if a.invalid > 0 {
        line.push_str(&format!(
            "; {} mutant(s) left out, not valid programs",
            a.invalid
        ));
    }
    if s.faults > 0 {
        line.push_str(&format!("; {} check(s) without a verdict", s.faults));
    }
    p.out(line);
    if survivors {
        for m in &s.survivors {
            p.out(format!(
                "    survives: line {} {} ({})",
                m.line,
                m.edit,
                m.operator.name()
            ));
        }
    }
}

/// `tests grow`: more tests where a task's are thin.
pub struct GrowJob<'a> {
    /// The tasks.
    pub tasks: &'a TaskSet,
    /// The oracle that runs the originals, their siblings and the mutants.
    pub oracle: &'a Oracle,
    /// How tests are grown.
    pub options: GrowOptions,
    /// Where to write the tasks with their grown tests (every task, grown or not).
    pub out: PathBuf,
    /// Where to write what happened to each task as JSON lines, if anywhere.
    pub report: Option<PathBuf>,
    /// Accepted solutions held out per problem (the last ones in the file; 0: none): not
    /// grown, judged by the tests grown for the others ([`crate::adequacy::holdout`]).
    pub holdout: usize,
    /// First tests for the untested programs of problems with no tested program
    /// ([`crate::adequacy::seed`]): those that agree become tasks and grow; `None`: left
    /// untested.
    pub untested: Option<SeedOptions>,
}

/// How `tests grow` ended.
#[derive(Debug)]
pub struct GrowOutcome {
    /// What happened to each task finished, in task order.
    pub reports: Vec<GrowReport>,
    /// Tasks with tests.
    pub tasks: usize,
    /// Tasks not reached (or left half-way) before an interrupt: written unchanged.
    pub pending: usize,
    /// Seconds the run took.
    pub seconds: f64,
    /// Where the tasks were written.
    pub out: PathBuf,
    /// What seeding did for each problem whose programs had no tests (empty when none had,
    /// or seeding was off).
    pub seeding: Vec<ProblemSeeding>,
}

impl GrowJob<'_> {
    /// Grows every task's tests, stopping once `stop` is set, and writes the task file (and
    /// the per-task report when asked for).
    pub fn run(
        &self,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<GrowOutcome, TestsError> {
        let start = Instant::now();
        let (seeded, seeding) = self.seed_untested(stop, progress);
        let set = seeded.as_ref().unwrap_or(self.tasks);
        let held: HashSet<&str> = held_out(&set.tasks, self.holdout)
            .into_iter()
            .filter_map(|i| set.tasks.get(i).map(|t| t.id.as_str()))
            .collect();
        let leaders = growth_leaders(
            &set.tasks,
            |t| held.contains(t.id.as_str()),
            self.options.share,
        );
        let mut followers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (f, l) in leaders.iter().enumerate() {
            if let Some(l) = l {
                followers.entry(*l).or_default().push(f);
            }
        }
        // `None`: not reached (or left half-way) before an interrupt. A task that shares its
        // leader's growth gets its result from the leader's group.
        let groups: Vec<Option<Vec<(Task, GrowReport)>>> =
            map_indexed(&set.tasks, stop, progress, "growing", |i, t| {
                if held.contains(t.id.as_str()) {
                    let mut report = empty_report(t, 0);
                    report.reason = Some("held out: judged by the problem's grown tests".into());
                    return Some(vec![(t.clone(), report)]);
                }
                if leaders.get(i).copied().flatten().is_some() {
                    return Some(Vec::new());
                }
                let siblings: Vec<&Task> = siblings_of(t, &set.tasks)
                    .into_iter()
                    .filter(|s| !held.contains(s.id.as_str()))
                    .collect();
                let followers: Vec<&Task> = followers
                    .get(&i)
                    .into_iter()
                    .flatten()
                    .filter_map(|&f| set.tasks.get(f))
                    .collect();
                let rs = if followers.is_empty() {
                    vec![grow_task_until(
                        self.oracle,
                        t,
                        &siblings,
                        self.options,
                        stop,
                    )]
                } else {
                    grow_group_until(self.oracle, t, &siblings, &followers, self.options, stop)
                };
                (!rs.iter().any(|r| r.1.interrupted)).then_some(rs)
            });
        let mut grown: Vec<Option<(Task, GrowReport)>> = vec![None; set.tasks.len()];
        for (i, group) in groups.into_iter().enumerate() {
            let Some(group) = group else { continue };
            let members =
                std::iter::once(i).chain(followers.get(&i).into_iter().flatten().copied());
            for (m, r) in members.zip(group) {
                if let Some(slot) = grown.get_mut(m) {
                    *slot = Some(r);
                }
            }
        }
        let pending = grown.iter().filter(|g| g.is_none()).count();
        if pending == 0 && !held.is_empty() {
            self.judge_held_out(set, &held, &mut grown, stop, progress);
        }
        let tasks: Vec<Task> = set
            .tasks
            .iter()
            .zip(&grown)
            .map(|(original, g)| g.as_ref().map_or(original, |(t, _)| t).clone())
            .chain(set.untested.iter().cloned())
            .collect();
        write_tasks(&self.out, &tasks)?;
        let reports: Vec<GrowReport> = grown.into_iter().flatten().map(|(_, r)| r).collect();
        if let Some(path) = &self.report {
            write_lines(path, &reports)?;
        }
        Ok(GrowOutcome {
            reports,
            tasks: set.tasks.len(),
            pending,
            seconds: start.elapsed().as_secs_f64(),
            out: self.out.clone(),
            seeding,
        })
    }

    /// The task set with the untested programs that seeding gave tests moved among the tasks
    /// (`None` when seeding is off or found nothing to do), and what it did per problem.
    fn seed_untested(
        &self,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> (Option<TaskSet>, Vec<ProblemSeeding>) {
        let Some(options) = self.untested else {
            return (None, Vec::new());
        };
        let problems = untested_problems(&self.tasks.tasks, &self.tasks.untested);
        if problems.is_empty() {
            return (None, Vec::new());
        }
        let results: Vec<(Vec<Task>, ProblemSeeding)> =
            reporting(progress, problems.len() as u64, "seeding", |tick| {
                problems
                    .iter()
                    .map(|(problem, programs)| {
                        let r = seed_problem(self.oracle, problem, programs, &options, stop);
                        tick();
                        r
                    })
                    .collect()
            });
        let mut set = self.tasks.clone();
        let mut seeding = Vec::new();
        for (tasks, report) in results {
            set.untested.retain(|u| !tasks.iter().any(|t| t.id == u.id));
            set.tasks.extend(tasks);
            seeding.push(report);
        }
        (Some(set), seeding)
    }
}

impl GrowJob<'_> {
    /// Judges each held-out task by the tests grown for its problem's other tasks, recording
    /// the outcome in its report.
    fn judge_held_out(
        &self,
        set: &TaskSet,
        held: &HashSet<&str>,
        grown: &mut [Option<(Task, GrowReport)>],
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) {
        let targets: Vec<Task> = set
            .tasks
            .iter()
            .filter(|t| held.contains(t.id.as_str()))
            .cloned()
            .collect();
        let after: Vec<&Task> = grown.iter().flatten().map(|(t, _)| t).collect();
        let judged = map_tasks(&targets, stop, progress, "judging held-out", |h| {
            let of_problem: Vec<&Task> = after
                .iter()
                .copied()
                .filter(|t| t.problem == h.problem && !held.contains(t.id.as_str()))
                .collect();
            let others = siblings_of(h, &set.tasks);
            Some((
                h.id.clone(),
                judge(self.oracle, h, &of_problem, &others, &self.options),
            ))
        });
        let judged: HashMap<String, HoldoutReport> = judged.into_iter().flatten().collect();
        for (_, report) in grown.iter_mut().flatten() {
            if let Some(j) = judged.get(&report.id) {
                report.holdout = Some(j.clone());
            }
        }
    }
}

impl GrowOutcome {
    /// The score distributions before and after, over the tasks measured both times, and the
    /// tests added to them.
    fn distributions(&self) -> Option<(ScoreDistribution, ScoreDistribution, usize)> {
        let (mut before, mut after, mut added) = (Vec::new(), Vec::new(), 0);
        for r in &self.reports {
            if let (Some(b), Some(a)) = (
                r.before.as_ref().and_then(|b| b.mutation_score),
                r.after.as_ref().and_then(|a| a.mutation_score),
            ) {
                before.push(b);
                after.push(a);
                added += r.added;
            }
        }
        Some((
            ScoreDistribution::of(&before)?,
            ScoreDistribution::of(&after)?,
            added,
        ))
    }

    /// The exit status the outcome calls for: 130 when interrupted, 1 when no task could be
    /// grown.
    pub fn status(&self) -> ExitStatus {
        if self.pending > 0 {
            ExitStatus::Interrupted
        } else if self.distributions().is_some() {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// What `tests grow` tells its user at the end: each task's line, the scores before and
    /// after, where the tasks are, and why it stopped.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        self.seeding_lines(&mut p);
        for r in &self.reports {
            match &r.holdout {
                Some(h) => holdout_line(&mut p, &r.id, h),
                None => grown_lines(&mut p, r),
            }
        }
        let errors = self.reports.iter().filter(|r| r.error.is_some());
        errors_line(&mut p, errors.map(|r| r.id.as_str()));
        match self.distributions() {
            Some((b, a, added)) => {
                p.out(format!(
                    "{} test(s) grown for {} task(s) in {:.1} s; mutation score mean {:.3} → \
                     {:.3} (median {:.3} → {:.3}; a lower bound)",
                    added, a.tasks, self.seconds, b.mean, a.mean, b.median, a.median
                ));
                band_lines(&mut p, &a);
                p.out(format!("tasks with grown tests: {}", self.out.display()));
            }
            // An interrupted run says only that it was.
            None if self.pending > 0 => {}
            None => {
                p.out("no task could be grown: no task's mutation score could be measured");
            }
        }
        self.holdout_total(&mut p);
        if self.pending > 0 {
            p.err(format!(
                "interrupted: {} of {} task(s) done; the other {} are written unchanged to {}",
                self.reports.len(),
                self.tasks,
                self.pending,
                self.out.display()
            ));
        }
        p
    }
}

impl GrowOutcome {
    /// One line per problem whose untested programs seeding tried, and their total.
    fn seeding_lines(&self, p: &mut Printout) {
        if self.seeding.is_empty() {
            return;
        }
        for s in &self.seeding {
            let disagreeing = if s.disagreeing.is_empty() {
                String::new()
            } else {
                let ids: Vec<String> = s
                    .disagreeing
                    .iter()
                    .map(|(id, n)| format!("{id} ({n})"))
                    .collect();
                format!("; disagree with the majority: {}", ids.join(", "))
            };
            let line = match &s.reason {
                Some(why) if s.seeded.is_empty() => {
                    format!("{}: untested, not seeded: {why}{disagreeing}", s.problem)
                }
                _ => format!(
                    "{}: tests seeded for {} of {} untested program(s): {} of {} drawn \
                     input(s) kept ({} unanimous){disagreeing}",
                    s.problem,
                    s.seeded.len(),
                    s.programs,
                    s.kept,
                    s.tried,
                    s.unanimous
                ),
            };
            p.out(line);
        }
        let seeded: usize = self.seeding.iter().map(|s| s.seeded.len()).sum();
        let programs: usize = self.seeding.iter().map(|s| s.programs).sum();
        p.out(format!(
            "seeding: {seeded} of {programs} untested program(s) in {} problem(s) got tests \
             on which most of their problem's programs agree",
            self.seeding.len()
        ));
    }

    /// The held-out solutions' figures summed, when any was judged.
    fn holdout_total(&self, p: &mut Printout) {
        let judged: Vec<&HoldoutReport> = self
            .reports
            .iter()
            .filter_map(|r| r.holdout.as_ref())
            .filter(|h| h.reason.is_none())
            .collect();
        if judged.is_empty() {
            return;
        }
        let sum = |f: fn(&HoldoutReport) -> usize| judged.iter().map(|h| f(h)).sum::<usize>();
        let (shown, rejected) = (sum(|h| h.shown), sum(|h| h.rejected));
        let share = if shown > 0 {
            format!("{:.3}", rejected as f64 / shown as f64)
        } else {
            "not measured: no mutant shown non-equivalent".into()
        };
        p.out(format!(
            "held out: {} solution(s); of {} mutant(s) their own tests let through, {} shown \
             non-equivalent; the grown tests reject {} ({share}); false alarms: {} of {} \
             (grown test, held-out solution) runs",
            judged.len(),
            sum(|h| h.let_through),
            shown,
            rejected,
            sum(|h| h.false_alarms),
            sum(|h| h.grown_tests),
        ));
    }
}

/// One held-out task's line of `tests grow --holdout`.
fn holdout_line(p: &mut Printout, id: &str, h: &HoldoutReport) {
    if let Some(why) = &h.reason {
        p.out(format!("{id}: held out, not judged: {why}"));
        return;
    }
    p.out(format!(
        "{id}: held out: {} of {} mutant(s) let through by its own tests shown non-equivalent \
         ({} fresh input(s)), {} rejected by the problem's {} grown test(s); false alarms: {}",
        h.shown, h.let_through, h.judge_inputs, h.rejected, h.grown_tests, h.false_alarms
    ));
}

/// One task's lines of `tests grow`.
fn grown_lines(p: &mut Printout, r: &GrowReport) {
    if let Some(e) = &r.error {
        p.out(format!("{}: error: {e}", r.id));
        return;
    }
    let (Some(b), Some(a)) = (&r.before, &r.after) else {
        p.out(format!(
            "{}: not grown, the original is {}: {}",
            r.id,
            status_name(r.status),
            r.reason.as_deref().unwrap_or("")
        ));
        return;
    };
    if b.mutation_score.is_none() {
        p.out(format!(
            "{}: mutation score {}; no test grown",
            r.id,
            b.describe_score()
        ));
        return;
    }
    let dropped: Vec<String> = r
        .discarded
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    let siblings = if r.siblings > 0 {
        format!(
            ", checked against {} other accepted solution(s)",
            r.siblings
        )
    } else {
        String::new()
    };
    let dropped = if dropped.is_empty() {
        String::new()
    } else {
        format!("; dropped: {}", dropped.join(", "))
    };
    let mut stated = if r.stated > 0 {
        format!(", {} from the task's examples", r.stated)
    } else {
        String::new()
    };
    if r.covering > 0 {
        stated.push_str(&format!(", {} for new branches or answers", r.covering));
    }
    if r.large > 0 {
        stated.push_str(&format!(", {} large", r.large));
    }
    p.out(format!(
        "{}: {} → {}, +{} test(s){stated} ({} input(s) tried{siblings}{dropped})",
        r.id,
        b.describe_score(),
        a.describe_score(),
        r.added,
        r.tried,
    ));
    if let Some(why) = &r.reason {
        p.out(format!("    {why}"));
    }
    if !r.domains.is_empty() {
        let found: Vec<String> = r
            .domains
            .iter()
            .map(|d| {
                format!(
                    "token {} of lines of {}: {}..={}",
                    d.token + 1,
                    d.width,
                    d.lo,
                    d.hi
                )
            })
            .collect();
        p.out(format!("    value domains probed: {}", found.join("; ")));
    }
}

/// The tasks equimorph itself failed on (caught panics), when any.
fn errors_line<'a>(p: &mut Printout, ids: impl Iterator<Item = &'a str>) {
    let ids: Vec<&str> = ids.collect();
    if !ids.is_empty() {
        p.out(format!(
            "{} task(s) failed with an internal error of equimorph and are kept unchanged \
             (please report it): {}",
            ids.len(),
            ids.join(", ")
        ));
    }
}

/// One line per band of a score distribution.
fn band_lines(p: &mut Printout, d: &ScoreDistribution) {
    for (label, n) in BAND_LABELS.iter().zip(d.bands) {
        p.out(format!("  {label:>9}: {n}"));
    }
}

/// A validation status in words (`failing`).
fn status_name(s: ValidationStatus) -> String {
    format!("{s:?}").to_lowercase()
}

/// Runs `f` on every task in parallel until `stop` is set, advancing `progress` (with
/// `message`) as each finishes; `None` for a task not reached, or for which `f` gave none.
pub(super) fn map_tasks<'t, T: Send>(
    tasks: &'t [Task],
    stop: &AtomicBool,
    progress: &dyn Progress,
    message: &str,
    f: impl Fn(&'t Task) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    map_indexed(tasks, stop, progress, message, |_, t| f(t))
}

/// [`map_tasks`], with each task's index.
pub(super) fn map_indexed<'t, T: Send>(
    tasks: &'t [Task],
    stop: &AtomicBool,
    progress: &dyn Progress,
    message: &str,
    f: impl Fn(usize, &'t Task) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    reporting(progress, tasks.len() as u64, message, |tick| {
        tasks
            .par_iter()
            .enumerate()
            .map(|(i, t)| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let r = f(i, t);
                tick();
                r
            })
            .collect()
    })
}

/// Runs `work` (of `total` steps, each of which calls the tick it is given, from any thread)
/// while `progress` advances with `message` at each tick. Progress is reported from the
/// calling thread, so `progress` need not be shared between threads.
pub(super) fn reporting<R: Send>(
    progress: &dyn Progress,
    total: u64,
    message: &str,
    work: impl FnOnce(&(dyn Fn() + Sync)) -> R + Send,
) -> R {
    progress.start(total);
    let (done, finished) = mpsc::channel::<()>();
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            // The receiver lives until the sender goes with this closure.
            let tick = move || {
                let _ = done.send(());
            };
            work(&tick)
        });
        // Ends when the worker's sender is dropped, that is when the work is done.
        for () in finished {
            progress.advance(message);
        }
        worker.join()
    });
    progress.finish();
    // A panic outside the per-task guards is a bug of the job itself: it stays a panic.
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Writes tasks as equimorph task JSONL (through a temporary file, so a crash leaves no half
/// file).
fn write_tasks(path: &Path, tasks: &[Task]) -> Result<(), TestsError> {
    let tmp = path.with_extension("jsonl.tmp");
    write_lines(&tmp, tasks)?;
    std::fs::rename(&tmp, path).map_err(|source| TestsError::Rename {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `items` as JSON lines into a new file at `path`.
fn write_lines<T: serde::Serialize>(path: &Path, items: &[T]) -> Result<(), TestsError> {
    let file = std::fs::File::create(path).map_err(|source| TestsError::Create {
        path: path.to_path_buf(),
        source,
    })?;
    let mut f = std::io::BufWriter::new(file);
    for item in items {
        serde_json::to_writer(&mut f, item).map_err(std::io::Error::from)?;
        writeln!(f)?;
    }
    f.flush()?;
    Ok(())
}

#[cfg(test)]
mod unit {
    use super::*;
    use std::sync::Mutex;

    /// Counts what a job reports.
    #[derive(Default)]
    struct Counted(Mutex<(u64, u64, bool)>);

    impl Progress for Counted {
        fn start(&self, total: u64) {
            self.0.lock().unwrap().0 = total;
        }
        fn advance(&self, _message: &str) {
            self.0.lock().unwrap().1 += 1;
        }
        fn finish(&self) {
            self.0.lock().unwrap().2 = true;
        }
    }

    fn tasks(n: usize) -> Vec<Task> {
        (0..n)
            .map(|i| Task::new(format!("t{i}"), "print(1)\n", Vec::new()))
            .collect()
    }

    #[test]
    fn map_tasks_keeps_task_order_and_reports_each_task() {
        let tasks = tasks(40);
        let progress = Counted::default();
        let out = map_tasks(&tasks, &AtomicBool::new(false), &progress, "", |t| {
            Some(t.id.clone())
        });
        let ids: Vec<String> = tasks.iter().map(|t| t.id.clone()).collect();
        assert_eq!(out, ids.into_iter().map(Some).collect::<Vec<_>>());
        assert_eq!(*progress.0.lock().unwrap(), (40, 40, true));
    }

    #[test]
    fn map_tasks_takes_no_task_once_stopped() {
        let tasks = tasks(5);
        let progress = Counted::default();
        let out = map_tasks(&tasks, &AtomicBool::new(true), &progress, "", |_| Some(()));
        assert!(out.iter().all(Option::is_none));
        assert_eq!(*progress.0.lock().unwrap(), (5, 0, true));
    }

    #[test]
    fn options_refuse_what_cannot_run() {
        assert!(matches!(mutant_options(0, 1), Err(TestsError::NoMutants)));
        let m = mutant_options(3, 7).unwrap();
        assert!(matches!(
            grow_options(m, 0, 0, 1, 1, 0, 1.0),
            Err(TestsError::NoGrowth)
        ));
        for d in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                grow_options(m, 1, 0, 1, 1, 0, d),
                Err(TestsError::Deadline)
            ));
        }
        let g = grow_options(m, 2, 5, 3, 4, 0, 0.5).unwrap();
        assert_eq!((g.seed, g.deadline), (7, Duration::from_millis(500)));
        // 0 retires no survivor; N retires after N inputs survived.
        assert_eq!(g.retire_after, usize::MAX);
        let g = grow_options(m, 2, 5, 3, 4, 64, 0.5).unwrap();
        assert_eq!(g.retire_after, 64);
    }
}
