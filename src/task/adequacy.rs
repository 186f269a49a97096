//! The record of how strong a task's tests are, as the task carries it (`adequacy` in task
//! JSONL). It is measured by [`crate::adequacy`]; it lives here, below the oracle and the
//! adequacy module, because a task holds it.

use serde::{Deserialize, Serialize};

/// The measured strength of a task's tests, recorded on the task (`adequacy` in task JSONL).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Adequacy {
    /// Tests the score was measured on (a score for another number of tests is stale).
    pub tests: usize,
    /// Of them, tests equimorph grew.
    #[serde(default)]
    pub grown: usize,
    /// Mutants of the original that were run to a verdict.
    pub mutants: usize,
    /// Mutants the tests rejected.
    pub killed: usize,
    /// `killed / mutants`: a lower bound of the tests' true power, since some mutants are
    /// equivalent to the original and no test can reject them. `None` (`null` in JSON) when
    /// no mutant reached a verdict: nothing was measured, and
    /// [`Adequacy::mutation_score_missing`] says why. Never 1 for want of mutants.
    #[serde(default)]
    pub mutation_score: Option<f64>,
    /// Why there is no mutation score, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation_score_missing: Option<String>,
    /// Mutants left out because they are not programs (a Java mutant that does not compile).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid: usize,
    /// The seed that drew the mutants.
    pub seed: u64,
    /// The dataset's known-broken programs of this task's problem that the tests reject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<BrokenShare>,
}

/// How many of a problem's known-broken programs the tests reject.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct BrokenShare {
    /// Known-broken programs checked.
    pub programs: usize,
    /// Of them, rejected by the tests.
    pub rejected: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
