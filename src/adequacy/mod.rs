//! How much a task's tests are worth, and more tests where they are thin.
//!
//! "Equivalent" in equimorph means "behaves like the original on the task's tests", so a
//! verdict is only as strong as the tests. This module measures them (the mutation score:
//! the share of semantic-changing mutants of the original that the tests reject, [`score`]),
//! grows them (new differential tests made by mutating the existing inputs or call arguments
//! and kept only under strict rules, [`grow`]), and looks for counterexamples symbolically
//! ([`symbolic`], CrossHair).

mod annotations;
pub mod calls;
mod cards;
pub mod coverage;
pub mod equivalent;
mod fields;
mod grids;
pub mod grow;
pub mod holdout;
pub mod inputs;
pub mod mutants;
mod numerals;
pub mod score;
pub mod seed;
pub mod symbolic;

pub use crate::task::adequacy::{Adequacy, BrokenShare};
use serde::{Deserialize, Serialize};

/// What became of the mutants of one program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantTally {
    /// Mutants made (after sampling).
    pub made: usize,
    /// Of them, run to a verdict.
    pub run: usize,
    /// Of those, rejected by the tests.
    pub killed: usize,
    /// Not programs at all (a Java mutant that does not compile): left out of the score.
    pub invalid: usize,
    /// Checks the sandbox gave no verdict on: left out of the score.
    pub faults: usize,
}

impl MutantTally {
    /// Why these mutants give no score (`None` when one reached a verdict); `language` is the
    /// program's.
    pub fn missing_reason(&self, language: crate::program::Language) -> Option<String> {
        if self.run > 0 {
            return None;
        }
        Some(if self.made == 0 {
            format!(
                "no mutant: no mutation operator applies to this {} program",
                language.title()
            )
        } else if self.invalid == self.made {
            format!(
                "none of its {} mutant(s) is a valid program (none compiles)",
                self.made
            )
        } else if self.faults == self.made {
            format!(
                "the sandbox gave no verdict on any of its {} mutant(s)",
                self.made
            )
        } else {
            format!(
                "no mutant reached a verdict: of {}, {} not valid programs and {} without a \
                 verdict from the sandbox",
                self.made, self.invalid, self.faults
            )
        })
    }
}

impl Adequacy {
    /// The adequacy of `task`'s tests from what became of its mutants (drawn with `seed`):
    /// `killed / run`, or no score (with the reason) when no mutant reached a verdict.
    pub fn measured(task: &crate::task::Task, tally: &MutantTally, seed: u64) -> Self {
        let missing = tally.missing_reason(task.language);
        Adequacy {
            tests: task.test_count(),
            grown: task.grown_tests(),
            mutants: tally.run,
            killed: tally.killed,
            mutation_score: missing
                .is_none()
                .then(|| tally.killed as f64 / tally.run as f64),
            mutation_score_missing: missing,
            invalid: tally.invalid,
            seed,
            broken: None,
        }
    }

    /// An adequacy that could not be measured at all (the original is not valid, or equimorph
    /// failed on the task), for `task`'s tests, with the reason.
    pub fn unmeasured(task: &crate::task::Task, seed: u64, reason: impl Into<String>) -> Self {
        Adequacy {
            tests: task.test_count(),
            grown: task.grown_tests(),
            mutants: 0,
            killed: 0,
            mutation_score: None,
            mutation_score_missing: Some(reason.into()),
            invalid: 0,
            seed,
            broken: None,
        }
    }

    /// The score in words: `0.750` or `not measured (why)`.
    pub fn describe_score(&self) -> String {
        match self.mutation_score {
            Some(s) => format!("{s:.3}"),
            None => format!(
                "not measured ({})",
                self.mutation_score_missing
                    .as_deref()
                    .unwrap_or("no mutant reached a verdict")
            ),
        }
    }
}

/// How a set of mutation scores is spread, for reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct ScoreDistribution {
    /// Tasks with a score.
    pub tasks: usize,
    /// Mean score.
    pub mean: f64,
    /// Median score.
    pub median: f64,
    /// Lowest score.
    pub min: f64,
    /// Tasks per band: `[0, 0.5)`, `[0.5, 0.75)`, `[0.75, 0.9)`, `[0.9, 1)`, `1`.
    pub bands: [usize; 5],
}

/// The bands' labels, in [`ScoreDistribution::bands`] order.
pub const BAND_LABELS: [&str; 5] = ["< 0.5", "0.5–0.75", "0.75–0.9", "0.9–1", "1"];

impl ScoreDistribution {
    /// The distribution of `scores`; `None` when there are none.
    pub fn of(scores: &[f64]) -> Option<Self> {
        if scores.is_empty() {
            return None;
        }
        let mut sorted = scores.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let mut bands = [0; 5];
        for s in &sorted {
            let b = match *s {
                s if s < 0.5 => 0,
                s if s < 0.75 => 1,
                s if s < 0.9 => 2,
                s if s < 1.0 => 3,
                _ => 4,
            };
            bands[b] += 1;
        }
        Some(ScoreDistribution {
            tasks: n,
            mean: sorted.iter().sum::<f64>() / n as f64,
            median,
            min: sorted[0],
            bands,
        })
    }

    /// One line in words: `mean 0.91, median 0.95, min 0.40 over 12 tasks (< 0.5: 1, …)`.
    pub fn describe(&self) -> String {
        let bands: Vec<String> = BAND_LABELS
            .iter()
            .zip(self.bands)
            .map(|(l, n)| format!("{l}: {n}"))
            .collect();
        format!(
            "mean {:.3}, median {:.3}, min {:.3} over {} task(s) ({}); a lower bound: \
             equivalent mutants count as survivors",
            self.mean,
            self.median,
            self.min,
            self.tasks,
            bands.join(", ")
        )
    }
}

/// What one task's tests are, for run records: their number, how many were grown, and the
/// recorded mutation score when it matches them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct TestsRecord {
    /// Test executions one check needs (test_code counts as one).
    pub tests: usize,
    /// Of them, grown by equimorph.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grown: usize,
    /// The recorded mutation score, when measured on these tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation_score: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl TestsRecord {
    /// The record of `task`.
    pub fn of(task: &crate::task::Task) -> Self {
        TestsRecord {
            tests: task.test_count(),
            grown: task.grown_tests(),
            mutation_score: task.mutation_score(),
        }
    }
}

/// The adequacy of a set of tasks, as runs record it: test counts and the mutation scores'
/// distribution (when any task carries one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct SetAdequacy {
    /// Tasks.
    pub tasks: usize,
    /// Mean tests per task.
    pub mean_tests: f64,
    /// Tasks with a single test.
    pub single_test: usize,
    /// Tasks with grown tests.
    pub with_grown: usize,
    /// The recorded mutation scores, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation_scores: Option<ScoreDistribution>,
}

impl SetAdequacy {
    /// The adequacy of `tasks`.
    pub fn of<'a>(tasks: impl IntoIterator<Item = &'a crate::task::Task>) -> Self {
        let mut s = SetAdequacy::default();
        let mut total = 0usize;
        let mut scores = Vec::new();
        for t in tasks {
            s.tasks += 1;
            total += t.test_count();
            s.single_test += usize::from(t.test_count() == 1);
            s.with_grown += usize::from(t.grown_tests() > 0);
            scores.extend(t.mutation_score());
        }
        s.mean_tests = if s.tasks == 0 {
            0.0
        } else {
            total as f64 / s.tasks as f64
        };
        s.mutation_scores = ScoreDistribution::of(&scores);
        s
    }

    /// One line in words.
    pub fn describe(&self) -> String {
        let mut line = format!(
            "tests: {:.1} per task, {} task(s) with a single test, {} with grown tests",
            self.mean_tests, self.single_test, self.with_grown
        );
        match &self.mutation_scores {
            Some(d) => line.push_str(&format!("; mutation score {}", d.describe())),
            None => line.push_str("; no mutation score recorded (run `equimorph tests score`)"),
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_bands_and_median() {
        let d = ScoreDistribution::of(&[0.2, 0.6, 0.8, 0.95, 1.0, 1.0]).unwrap();
        assert_eq!(d.bands, [1, 1, 1, 1, 2]);
        assert!((d.median - 0.875).abs() < 1e-12);
        assert!((d.min - 0.2).abs() < 1e-12);
        assert!(ScoreDistribution::of(&[]).is_none());
    }
}
