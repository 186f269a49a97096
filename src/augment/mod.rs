//! Augmentation: K distinct verified variants of every task, for training robust detectors.
//!
//! A variant is a seeded random composition of MIN..MAX transforms: each step tries the
//! transforms in a random order and keeps the first that gives a new valid program. Variants
//! are deduplicated by content hash and each one is checked by the oracle (A = 1). Attempts
//! are numbered and each one's composition depends only on the run seed, the task and its
//! number, so a run is the same whatever the thread count: the variants are the first K
//! attempts (in number order) that pass. With `hard`, the beam search's accepted pool comes
//! first, most distant first, and random compositions fill what it leaves.

pub mod codexglue;
pub mod summary;

use crate::detector::{CloneType, Detector};
use crate::oracle::{Oracle, Reference};
use crate::program::{classify_as, Candidate, Classified, Language, ProgramHash, Step};
use crate::search::{
    add_errors, count_error, derive_seed, Constraints, OracleOrder, SearchConfig, Searcher,
    StageSeconds, Strategy, TransformErrors,
};
use crate::task::Task;
use crate::transform::LoadedTransform;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::time::Instant;

/// Augmentation settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AugmentConfig {
    /// Variants per task (K).
    pub variants: usize,
    /// Fewest transform steps in a variant.
    pub min_steps: usize,
    /// Most transform steps in a variant.
    pub max_steps: usize,
    /// Run seed.
    pub seed: u64,
    /// Prefer the variants the detector finds most distant (beam search pool).
    pub hard: bool,
    /// With `hard`: the share of each task's variants the hard search may supply (rounded
    /// up); random compositions make the rest, so training sees both kinds.
    #[serde(default = "whole_share")]
    pub hard_share: f64,
    /// Beam width of the `hard` search.
    pub beam: usize,
    /// The `hard` search's strategy: beam in `augment`; `robustness --hard` searches as its
    /// attacks do (guided by default), so training sees the kind of rewrite the attack finds.
    #[serde(default = "beam_strategy")]
    pub strategy: Strategy,
    /// Random compositions tried per wanted variant before a task gives up.
    pub attempts: usize,
    /// Whether variants are checked by the oracle (false: `--unverified`).
    pub verify: bool,
    /// The `hard` search does not score rewrites longer than the detector's window (waived
    /// for originals longer than it).
    #[serde(default)]
    pub window: bool,
}

/// Parses a share in (0, 1] (`--hard-share`).
pub fn parse_share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!(
            "{text:?} is not a share: a number above 0 and at most 1"
        )),
    }
}

/// Parses a variant's transform steps, `MIN..MAX` (each variant draws its length) or one
/// number (`--steps` of `augment` and `robustness`).
pub fn parse_steps(text: &str) -> Result<(usize, usize), String> {
    let (a, b) = text.split_once("..").unwrap_or((text, text));
    let parse = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{text}` is not MIN..MAX (e.g. 1..3) or a number of steps"))
    };
    let (min, max) = (parse(a)?, parse(b)?);
    if min == 0 || min > max {
        return Err(format!("`{text}`: need 1 ≤ MIN ≤ MAX"));
    }
    Ok((min, max))
}

fn whole_share() -> f64 {
    1.0
}

fn beam_strategy() -> Strategy {
    Strategy::Beam
}

impl AugmentConfig {
    /// How many of a task's `k` variants the hard search may supply.
    pub fn hard_variants(&self, k: usize) -> usize {
        if !self.hard {
            return 0;
        }
        let share = self.hard_share.clamp(0.0, 1.0);
        ((k as f64 * share).ceil() as usize).min(k)
    }
}

impl Default for AugmentConfig {
    fn default() -> Self {
        AugmentConfig {
            variants: 10,
            min_steps: 1,
            max_steps: 3,
            seed: 0,
            hard: false,
            hard_share: 1.0,
            beam: 5,
            strategy: Strategy::Beam,
            attempts: 8,
            verify: true,
            window: true,
        }
    }
}

/// Counters of one task's augmentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AugmentCounts {
    /// Random compositions attempted.
    pub attempts: u64,
    /// Attempts that reached fewer than MIN steps (no transform applied any more).
    pub short: u64,
    /// Attempts whose program an earlier attempt (or the original) already had.
    pub duplicates: u64,
    /// Programs the oracle checked.
    pub checked: u64,
    /// Programs the oracle rejected (they behave differently).
    pub broken: u64,
    /// Candidates the `hard` search's oracle accepted (its pool).
    pub pool: u64,
    /// Of the rejected, those that made the sandbox fail (killed their test harness, say)
    /// while the original ran normally.
    #[serde(default)]
    pub sandbox_breakers: u64,
    /// Programs that parse but do not compile (Java): invalid, not counted as broken.
    #[serde(default)]
    pub not_compiling: u64,
}

/// What augmentation made of one task.
#[derive(Debug, Clone)]
pub struct Augmented {
    /// The variants, in order (similarity NaN when no detector scored them).
    pub variants: Vec<Candidate>,
    /// Counters.
    pub counts: AugmentCounts,
    /// Time per stage.
    pub seconds: StageSeconds,
    /// Failed transform applications.
    pub transform_errors: TransformErrors,
    /// What the symbolic check did to the variants (`--verify symbolic`).
    pub symbolic: Option<crate::adequacy::symbolic::SymbolicRecord>,
}

/// One line of `variants.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VariantLine {
    /// The task's id.
    pub task_id: String,
    /// The variant's index within its task (0-based).
    pub variant: usize,
    /// The program.
    pub source: String,
    /// The transforms that made it from the original, with their seeds.
    pub transforms: Vec<Step>,
    /// Whether the oracle checked it against the task's tests (false with `--unverified`).
    pub verified: bool,
    /// L = 1 − M(original, source), when a detector scored it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<f32>,
    /// NiCad-style clone type of the variant against the original, when a detector was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clone_type: Option<String>,
}

impl VariantLine {
    /// The lines of one task's variants.
    pub fn of(task: &Task, a: &Augmented, verified: bool) -> Vec<VariantLine> {
        a.variants
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let scored = !c.similarity.is_nan();
                VariantLine {
                    task_id: task.id.clone(),
                    variant: i,
                    source: c.text.clone(),
                    transforms: c.steps.clone(),
                    verified,
                    distance: scored.then(|| c.distance()),
                    clone_type: scored.then(|| {
                        CloneType::of_as(task.language, &task.source, &c.text)
                            .label()
                            .to_string()
                    }),
                }
            })
            .collect()
    }
}

impl crate::report::results::LogKey for VariantLine {
    fn log_key(&self) -> String {
        format!("{}\u{0}{}", self.task_id, self.variant)
    }
}

impl crate::report::results::LogKey for TaskLine {
    fn log_key(&self) -> String {
        self.id.clone()
    }
}

/// One line of `tasks.jsonl`: a finished task (its variants are in `variants.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskLine {
    /// The task's id.
    pub id: String,
    /// The original program (so a run directory is complete without the task file).
    pub original: String,
    /// The problem it solves, when several tasks solve one (see `Task::problem`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The original's language (`python` when absent).
    #[serde(default, skip_serializing_if = "Language::is_python")]
    pub language: Language,
    /// ok, skipped or error.
    pub status: crate::report::Status,
    /// Why, when not ok.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Variants made.
    #[serde(default)]
    pub variants: usize,
    /// Counters.
    #[serde(default)]
    pub counts: AugmentCounts,
    /// Time per stage (the only fields that vary between identical runs).
    #[serde(default)]
    pub seconds: StageSeconds,
    /// Failed transform applications.
    #[serde(default, skip_serializing_if = "TransformErrors::is_empty")]
    pub transform_errors: TransformErrors,
    /// The task's tests: how many, how many grown, its mutation score when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<crate::adequacy::TestsRecord>,
    /// What the symbolic check did (`--verify symbolic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<crate::adequacy::symbolic::SymbolicRecord>,
}

impl TaskLine {
    /// The line of a task that was not augmented, with why.
    pub fn skipped(task: &Task, reason: String) -> Self {
        TaskLine {
            id: task.id.clone(),
            original: task.source.clone(),
            problem: task.problem.clone(),
            language: task.language,
            status: crate::report::Status::Skipped,
            reason: Some(reason),
            variants: 0,
            counts: Default::default(),
            seconds: Default::default(),
            transform_errors: Default::default(),
            tests: Some(crate::adequacy::TestsRecord::of(task)),
            symbolic: None,
        }
    }
}

/// Makes variants of tasks with one transform set, oracle and (optional) detector.
pub struct Augmenter<'a> {
    transforms: &'a [LoadedTransform],
    oracle: &'a Oracle,
    detector: Option<&'a dyn Detector>,
    config: AugmentConfig,
}

impl<'a> Augmenter<'a> {
    /// An augmenter; `detector` scores the variants (and is required for `hard`).
    pub fn new(
        transforms: &'a [LoadedTransform],
        oracle: &'a Oracle,
        detector: Option<&'a dyn Detector>,
        config: AugmentConfig,
    ) -> Self {
        Augmenter {
            transforms,
            oracle,
            detector,
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &AugmentConfig {
        &self.config
    }

    /// Attempt `attempt`'s composition of `task`: the program and its steps, or `None` when it
    /// stopped short of MIN steps.
    fn compose(
        &self,
        language: Language,
        original: &Candidate,
        attempt: u64,
        errors: &mut TransformErrors,
    ) -> Option<Candidate> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(derive_seed(
            self.config.seed,
            attempt as usize,
            &original.hash,
            "augment",
        ));
        let steps = rng.random_range(self.config.min_steps..=self.config.max_steps);
        let mut current = original.clone();
        // A transform is only offered programs of its language.
        let mut order: Vec<usize> = (0..self.transforms.len())
            .filter(|&t| self.transforms[t].rewrites(language))
            .collect();
        for _ in 0..steps {
            order.shuffle(&mut rng);
            let seed: u64 = rng.random();
            let next = order.iter().find_map(|&t| {
                let tr = &self.transforms[t];
                match tr.apply(&current.text, seed) {
                    Ok(Some(out)) => match classify_as(language, &current.text, out) {
                        Classified::Valid(text) => Some(Candidate::derived(
                            &current,
                            text,
                            Step {
                                name: tr.name.clone(),
                                seed,
                            },
                        )),
                        _ => None,
                    },
                    Ok(None) => None,
                    Err(e) => {
                        count_error(errors, &tr.name, e.kind());
                        None
                    }
                }
            });
            match next {
                Some(c) => current = c,
                None => break,
            }
        }
        (current.steps.len() >= self.config.min_steps.max(1)).then_some(current)
    }

    /// Runs the oracle on `candidates` in parallel; the verdicts in order, each as (equivalent,
    /// made the sandbox fail, does not compile).
    fn check(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        candidates: &[Candidate],
    ) -> Result<Vec<(bool, bool, bool)>, String> {
        match reference {
            Some(r) if self.config.verify => candidates
                .par_iter()
                .map(|c| {
                    self.oracle
                        .check(task, r, &c.text)
                        .map(|d| (d.equivalent, d.broke_sandbox(), d.invalid.is_some()))
                })
                .collect::<Result<_, _>>()
                .map_err(|e| format!("oracle: {e}")),
            _ => Ok(vec![(true, false, false); candidates.len()]),
        }
    }

    /// The `hard` search's accepted pool, most distant first, MIN..MAX steps only.
    fn hard_pool(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        detector: &dyn Detector,
        a: &mut Augmented,
    ) -> Result<Vec<Candidate>, String> {
        let reference = reference.ok_or("--hard needs tasks with tests (the search verifies)")?;
        let guided = self.config.strategy == Strategy::Guided;
        let config = SearchConfig {
            strategy: self.config.strategy,
            beam: self.config.beam.max(1),
            iterations: self.config.max_steps,
            // As an attack's guided search stops: after iterations without a better rewrite.
            patience: guided.then_some(crate::search::DEFAULT_PATIENCE),
            seed: self.config.seed,
            oracle_order: OracleOrder::Lazy,
            constraints: Constraints {
                max_growth: None,
                window: self.config.window,
            },
            ..SearchConfig::default()
        };
        let searcher = Searcher::new(self.transforms, detector, self.oracle, config);
        let mut pool = Vec::new();
        let r = searcher
            .run_with(task, reference, &mut |c| pool.push(c.clone()))
            .map_err(|e| e.to_string())?;
        a.counts.pool = pool.len() as u64;
        a.counts.checked += r.counts.oracle_checked;
        a.counts.broken += r.counts.oracle_checked - r.counts.accepted - r.counts.not_compiling;
        a.counts.not_compiling += r.counts.not_compiling;
        a.counts.sandbox_breakers += r.counts.sandbox_breakers;
        a.seconds.transform += r.seconds.transform;
        a.seconds.detector += r.seconds.detector;
        a.seconds.tokenize += r.seconds.tokenize;
        a.seconds.oracle += r.seconds.oracle;
        add_errors(&mut a.transform_errors, r.transform_errors);
        pool.retain(|c| (self.config.min_steps..=self.config.max_steps).contains(&c.steps.len()));
        pool.sort_by(|x, y| {
            x.similarity
                .total_cmp(&y.similarity)
                .then_with(|| x.hash.cmp(&y.hash))
        });
        Ok(pool)
    }

    /// Makes the variants of `task` (whose original behaves as `reference`; `None` when
    /// unverified).
    pub fn augment(&self, task: &Task, reference: Option<&Reference>) -> Result<Augmented, String> {
        let start = Instant::now();
        let k = self.config.variants;
        let original = Candidate::original(&task.source);
        let mut a = Augmented {
            variants: Vec::with_capacity(k),
            counts: AugmentCounts::default(),
            seconds: StageSeconds::default(),
            transform_errors: TransformErrors::new(),
            symbolic: None,
        };
        let mut seen: HashSet<ProgramHash> = HashSet::from([original.hash]);
        if self.config.hard {
            let detector = self.detector.ok_or("--hard needs a detector")?;
            let hard = self.config.hard_variants(k);
            for c in self.hard_pool(task, reference, detector, &mut a)? {
                if a.variants.len() < hard && seen.insert(c.hash) {
                    a.variants.push(c);
                }
            }
        }
        let budget = (k as u64).saturating_mul(self.config.attempts.max(1) as u64);
        let mut next = 0u64;
        while a.variants.len() < k && next < budget {
            let want = k - a.variants.len();
            let batch = (want as u64).min(budget - next);
            let t0 = Instant::now();
            let made: Vec<(Option<Candidate>, TransformErrors)> = (next..next + batch)
                .into_par_iter()
                .map(|attempt| {
                    let mut errors = TransformErrors::new();
                    (
                        self.compose(task.language, &original, attempt, &mut errors),
                        errors,
                    )
                })
                .collect();
            next += batch;
            a.counts.attempts += batch;
            let mut fresh = Vec::new();
            for (c, errors) in made {
                add_errors(&mut a.transform_errors, errors);
                match c {
                    None => a.counts.short += 1,
                    Some(c) if !seen.insert(c.hash) => a.counts.duplicates += 1,
                    Some(c) => fresh.push(c),
                }
            }
            a.seconds.transform += t0.elapsed().as_secs_f64();
            let t0 = Instant::now();
            let verdicts = self.check(task, reference, &fresh)?;
            if self.config.verify && reference.is_some() {
                a.counts.checked += fresh.len() as u64;
            }
            a.seconds.oracle += t0.elapsed().as_secs_f64();
            for (c, (ok, broke_sandbox, invalid)) in fresh.into_iter().zip(verdicts) {
                if broke_sandbox {
                    a.counts.sandbox_breakers += 1;
                }
                if invalid {
                    a.counts.not_compiling += 1;
                } else if !ok {
                    a.counts.broken += 1;
                } else if a.variants.len() < k {
                    a.variants.push(c);
                }
            }
        }
        if let Some(d) = self.detector {
            // The pool is already scored; random compositions are scored here, in one call.
            let t0 = Instant::now();
            let unscored: Vec<usize> = (0..a.variants.len())
                .filter(|&i| a.variants[i].similarity.is_nan())
                .collect();
            let texts: Vec<&str> = unscored
                .iter()
                .map(|&i| a.variants[i].text.as_str())
                .collect();
            let ms = d
                .score(&task.source, &texts)
                .map_err(|e| format!("detector: {e}"))?;
            for (i, m) in unscored.into_iter().zip(ms) {
                a.variants[i].similarity = m;
            }
            a.seconds.detector += t0.elapsed().as_secs_f64();
        }
        a.seconds.total = start.elapsed().as_secs_f64();
        Ok(a)
    }
}

impl crate::pipeline::Job for Augmenter<'_> {
    type Output = Augmented;

    fn needs_reference(&self) -> bool {
        self.config.verify
    }

    /// Tasks are independent and their variants do not depend on timing; `--hard` searches
    /// run one at a time (each already keeps the cores busy scoring).
    fn parallel_tasks(&self) -> bool {
        !self.config.hard
    }

    fn run(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<Augmented, String> {
        let a = self.augment(task, reference)?;
        for c in &a.variants {
            verified(c);
        }
        Ok(a)
    }
}

// The symbolic check screens an augmentation's variants (the trait lives with the check).
impl crate::adequacy::symbolic::Screened for Augmented {
    fn candidates(&self) -> Vec<&str> {
        self.variants.iter().map(|c| c.text.as_str()).collect()
    }

    fn drop_rejected(&mut self, rejected: &[bool]) -> bool {
        let mut i = 0;
        self.variants.retain(|_| {
            let keep = !rejected.get(i).copied().unwrap_or(false);
            i += 1;
            keep
        });
        true
    }

    fn set_symbolic(&mut self, record: crate::adequacy::symbolic::SymbolicRecord) {
        self.symbolic = Some(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hard_share_caps_the_hard_variants_rounding_up() {
        let hard = |share: f64| AugmentConfig {
            hard: true,
            hard_share: share,
            ..AugmentConfig::default()
        };
        assert_eq!(hard(1.0).hard_variants(3), 3);
        assert_eq!(hard(0.5).hard_variants(3), 2);
        assert_eq!(hard(0.34).hard_variants(3), 2);
        assert_eq!(hard(0.2).hard_variants(3), 1);
        assert_eq!(AugmentConfig::default().hard_variants(3), 0, "not hard");
        assert!(parse_share("0").is_err() && parse_share("1.5").is_err());
        assert!(parse_share("x").is_err());
        assert_eq!(parse_share("0.25"), Ok(0.25));
        // Runs recorded before the share existed read as all hard.
        let old = r#"{"variants":3,"min_steps":1,"max_steps":3,"seed":0,"hard":true,"beam":5,"attempts":8,"verify":true}"#;
        let c: AugmentConfig = serde_json::from_str(old).unwrap();
        assert_eq!(c.hard_share, 1.0);
        assert_eq!(
            c.strategy,
            Strategy::Beam,
            "and their hard search as a beam"
        );
    }
}
