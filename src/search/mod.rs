//! Search for the equivalent program a detector finds least similar (Auto-SPT, Algorithm 1),
//! with a lazy oracle; a query-efficient guided beam (the default); greedy and random-walk
//! baselines.
//!
//! Beam search: a beam of B programs, starting with the original. Each iteration expands every
//! member with every transform (seeds derived from the run seed, the iteration, the parent and
//! the transform), drops invalid outputs and anything already seen in this search, scores the
//! new candidates in batches, sorts them by M (ties by content hash) and runs the oracle in that
//! order until B candidates pass. Because scoring is cheap next to running tests and the order
//! is fixed, the B selected are exactly those Algorithm 1 would select after checking every
//! candidate (`OracleOrder::All` does that, for the proof), with far fewer oracle calls.
//!
//! Guided beam (`Strategy::Guided`): the same loop, but the detector only sees the candidates
//! most likely to pay. The first iteration scores every transform once on the original (each
//! transform's one-step strength); after that every candidate still gets made (transforms are
//! cheap next to the detector) but only the `per_iteration` with the lowest *predicted*
//! similarity are scored, the prediction being the parent's M minus the transform's expected
//! gain (a discounted UCB bandit over the gains the task has shown so far, see [`bandit`]),
//! adjusted by how much larger the candidate's edit is, in tokens, than that transform's usual
//! edit (a slope fitted on the task's own scores).
//! A task stops once its best has not moved for `patience` iterations. Everything is ordered by
//! content, so the same seed gives the same bytes on any number of threads.

pub mod bandit;
pub mod diversity;

use crate::detector::{classic, tokens_of, Detector, DetectorError, InputKey};
use crate::oracle::{Oracle, OracleFault, Reference};
use crate::program::{classify_as, Classified, Language, ProgramHash};
pub use crate::program::{Candidate, Step};
use crate::task::Task;
use crate::transform::LoadedTransform;
use bandit::Bandit;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};
use thiserror::Error;

/// Which search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Beam search (Algorithm 1).
    Beam,
    /// Beam search that scores only the candidates a bandit over transforms predicts to pay
    /// (a fraction of the beam's detector queries).
    Guided,
    /// Beam search with B = 1.
    Greedy,
    /// A random walk of N accepted steps.
    Random,
}

/// When the oracle runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OracleOrder {
    /// In distance order until B pass (default).
    Lazy,
    /// On every candidate, then select (Algorithm 1 as written).
    All,
}

/// With ranked application, how many candidates per query the guided search makes before it
/// picks the ones to score (the edit-size term needs some to choose among).
pub const APPLY_POOL: usize = 3;

/// Candidates the guided search scores per iteration after the first, by default.
pub const DEFAULT_PER_ITERATION: usize = 10;

/// Iterations without a better best after which the guided search stops a task, by default.
/// On 40 held-out HumanEval tasks (MiniLM, 2 cores) 4 stopped the weak tasks on a plateau the
/// search leaves later (HumanEval/70: 0.48 at iteration 11, 0.75 by 30): 8 gave mean L 0.698
/// instead of 0.670 at 282 detector queries per task instead of 230.
pub const DEFAULT_PATIENCE: usize = 8;

/// Iterations the guided search may add, by default, for a task whose best M is not yet below
/// the run's threshold after its N (see [`SearchConfig::extend`]).
pub const DEFAULT_EXTEND: usize = 30;

/// Search settings.
#[derive(Debug, Clone, Serialize)]
pub struct SearchConfig {
    /// The search.
    pub strategy: Strategy,
    /// Beam width B.
    pub beam: usize,
    /// Iterations N.
    pub iterations: usize,
    /// Run seed.
    pub seed: u64,
    /// Lazy or naive oracle.
    pub oracle_order: OracleOrder,
    /// A hard ceiling on detector queries (candidates scored) for one task.
    pub max_queries: Option<usize>,
    /// Stop after this many oracle checks.
    pub max_oracle: Option<usize>,
    /// Stop a task after this long.
    #[serde(skip)]
    pub time_per_task: Option<Duration>,
    /// Stop once the best M falls below this.
    pub stop_below: Option<f32>,
    /// Constraints a candidate must meet before it is scored.
    #[serde(default)]
    pub constraints: Constraints,
    /// Guided search: candidates scored per iteration after the first (default
    /// [`DEFAULT_PER_ITERATION`]).
    pub per_iteration: Option<usize>,
    /// Stop a task once its best M has not improved for this many iterations.
    pub patience: Option<usize>,
    /// Iterations a task may go on for past `iterations` while its best M is not yet below
    /// `success_below` (the patience rule still stops it on a plateau).
    pub extend: usize,
    /// The M a task must fall below to count as a success (the run's threshold), which
    /// `extend` aims at; `None`: no extension.
    pub success_below: Option<f32>,
    /// Guided search: after the first iteration, apply the (member, transform) pairs the
    /// bandit ranks first until [`APPLY_POOL`] candidates per query are in hand, instead of
    /// every transform to every member.
    #[serde(default)]
    pub ranked_apply: bool,
}

/// TextAttack-style constraints, applied to every candidate before the detector scores it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    /// A candidate may have at most this many times the original's tokens (the detector's
    /// tokens, or Python tokens for the classic measures).
    pub max_growth: Option<f64>,
    /// Reject candidates longer than the detector's window (it would truncate them, and an
    /// attack could win by pushing code out of sight). Waived for a task whose original is
    /// itself longer than the window (`SearchResult::window_waived`).
    pub window: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            strategy: Strategy::Beam,
            beam: 5,
            iterations: 10,
            seed: 0,
            oracle_order: OracleOrder::Lazy,
            max_queries: None,
            max_oracle: None,
            time_per_task: None,
            stop_below: None,
            constraints: Constraints::default(),
            per_iteration: None,
            patience: None,
            extend: 0,
            success_below: None,
            ranked_apply: false,
        }
    }
}

/// Counters of one task's search.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Counts {
    /// Transform applications.
    pub generated: u64,
    /// Applications that gave a new, parseable program.
    pub valid: u64,
    /// Valid outputs not seen before in this search.
    pub unique: u64,
    /// Candidates scored by the detector.
    pub scored: u64,
    /// Candidates ranked by the cheap scorer (`attack --scorer`); only those that could be
    /// the new best also reach the detector (`scored`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cheap_scored: u64,
    /// Candidates that took the score of one scored before in this search, without a query:
    /// the detector reads both as one input (see [`crate::detector::InputKey`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reused: u64,
    /// Candidates checked by the oracle (cache hits included).
    pub oracle_checked: u64,
    /// Candidates the oracle accepted.
    pub accepted: u64,
    /// Candidates rejected by `--max-growth` before scoring.
    #[serde(default)]
    pub rejected_growth: u64,
    /// Candidates rejected by `--window` before scoring.
    #[serde(default)]
    pub rejected_window: u64,
    /// Candidates the sandbox could not judge by their output: they made it fail (killed their
    /// test harness, say) while the original ran normally, so they count as not equivalent.
    #[serde(default)]
    pub sandbox_breakers: u64,
    /// Candidates that parse but do not compile (Java): invalid programs, found by the oracle
    /// when it first runs them, never verdicts on behaviour.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_compiling: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Wall time per stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StageSeconds {
    /// Applying transforms (and validity checks).
    pub transform: f64,
    /// Detector scoring, and counting candidates' tokens for the window and growth rules.
    pub detector: f64,
    /// The part of `detector` spent counting tokens for the window and growth rules.
    #[serde(default)]
    pub tokenize: f64,
    /// Oracle checks.
    pub oracle: f64,
    /// The whole search.
    pub total: f64,
    /// Wall seconds since the search began, after each iteration (with `best_per_iteration`:
    /// the anytime curve in time). Empty where summed over tasks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_iteration: Vec<f64>,
}

/// The outcome of one task's search.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The least similar equivalent program found (the original when none was).
    pub best: Candidate,
    /// Iterations run.
    pub iterations: usize,
    /// Counters.
    pub counts: Counts,
    /// Time per stage.
    pub seconds: StageSeconds,
    /// Best M after each iteration.
    pub best_per_iteration: Vec<f32>,
    /// Content hashes of each iteration's selected beam (for the lazy = naive proof).
    #[serde(skip)]
    pub beams: Vec<Vec<ProgramHash>>,
    /// Why the search stopped early, if it did.
    pub stopped: Option<String>,
    /// Failed applications: transform name → kind of failure (see `ApplyError::kind`) → count.
    pub transform_errors: TransformErrors,
    /// Applications per transform (failed ones included).
    #[serde(skip)]
    pub calls: BTreeMap<String, u64>,
    /// Candidates scored so far after each iteration (the x axis of the anytime curve).
    pub scored_per_iteration: Vec<u64>,
    /// M of each transform applied once to the original (first beam iteration), for
    /// per-transform strength.
    pub single_step: BTreeMap<String, f32>,
    /// The best program's tokens divided by the original's.
    pub growth: f64,
    /// Whether the detector truncated the best program (it is longer than the window).
    pub truncated: bool,
    /// The window constraint was asked for but not applied: the original itself is longer
    /// than the detector's window.
    #[serde(default)]
    pub window_waived: bool,
    /// What the symbolic check did to the winner (`--verify symbolic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<crate::adequacy::symbolic::SymbolicRecord>,
    /// Scores this search has had, by what the detector (and the cheap scorer) read.
    #[serde(skip)]
    known: KnownScores,
}

/// The scores one task's search has had from the detector and from the cheap scorer, by
/// [`InputKey`]. Kept per task, so what a candidate takes never depends on other tasks.
#[derive(Debug, Clone, Default)]
struct KnownScores {
    exact: HashMap<InputKey, f32>,
    cheap: HashMap<InputKey, f32>,
}

/// Failed transform applications: transform name → kind of failure → count.
pub type TransformErrors = BTreeMap<String, BTreeMap<String, u64>>;

/// Counts one failure of `transform` of kind `kind`.
pub fn count_error(errors: &mut TransformErrors, transform: &str, kind: &str) {
    *errors
        .entry(transform.to_string())
        .or_default()
        .entry(kind.to_string())
        .or_default() += 1;
}

/// The transforms that failed on more than half of their calls: (name, failures, calls).
pub fn mostly_failing(
    calls: &BTreeMap<String, u64>,
    errors: &TransformErrors,
) -> Vec<(String, u64, u64)> {
    errors
        .iter()
        .filter_map(|(name, kinds)| {
            let failed: u64 = kinds.values().sum();
            let n = calls.get(name).copied().unwrap_or(failed).max(failed);
            (failed * 2 > n).then(|| (name.clone(), failed, n))
        })
        .collect()
}

/// Adds the failure counts of `more` to `errors`.
pub fn add_errors(errors: &mut TransformErrors, more: TransformErrors) {
    for (name, kinds) in more {
        let slot = errors.entry(name).or_default();
        for (kind, n) in kinds {
            *slot.entry(kind).or_default() += n;
        }
    }
}

/// Why a search failed. The message holds the cause's own, so the cause is not also given as
/// a source (an error chain would print it twice).
#[derive(Debug, Error)]
pub enum SearchError {
    /// The detector failed.
    #[error("detector: {0}")]
    Detector(DetectorError),
    /// The sandbox failed on a check: the candidate has no verdict, so the search cannot
    /// honestly go on.
    #[error("oracle: {0}")]
    Oracle(crate::oracle::OracleFault),
}

impl From<DetectorError> for SearchError {
    fn from(e: DetectorError) -> Self {
        SearchError::Detector(e)
    }
}

impl From<crate::oracle::OracleFault> for SearchError {
    fn from(e: crate::oracle::OracleFault) -> Self {
        SearchError::Oracle(e)
    }
}

/// The window a job's `--window` rule applies to rewrites of `original`: none when the rule is
/// off or the detector reads any length, and none (waived) when the original is itself longer
/// than the window, since every rewrite of it would be refused.
pub fn applicable_window(
    detector: &dyn Detector,
    original: &str,
    enabled: bool,
) -> Result<Option<usize>, DetectorError> {
    let Some(w) = detector.window().filter(|_| enabled) else {
        return Ok(None);
    };
    Ok((tokens_of(detector, original)? <= w).then_some(w))
}

/// The seed of applying `transform` to `parent` in `iteration` of a run seeded `seed`.
pub fn derive_seed(seed: u64, iteration: usize, parent: &ProgramHash, transform: &str) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(&seed.to_le_bytes());
    h.update(&(iteration as u64).to_le_bytes());
    h.update(&parent.0);
    h.update(transform.as_bytes());
    let out = h.finalize();
    u64::from_le_bytes(out.as_bytes()[..8].try_into().unwrap_or([0; 8]))
}

/// A candidate and where it came from: the index of its parent in the beam and of the
/// transform that made it, and (guided search only) the size of its edit.
pub(crate) struct Child {
    parent: usize,
    transform: usize,
    node: Candidate,
    edit: f64,
    /// The detector's token count, when a constraint counted it.
    tokens: Option<usize>,
}

/// Sets each child's `edit`: how much further from the original, in its language's tokens (1 −
/// multiset Jaccard similarity), it is than its parent, the size of the edit as a classic
/// measure sees it.
fn set_edit_sizes(original: &classic::Prepared, beam: &[Candidate], children: &mut [Child]) {
    let parents: Vec<f64> = beam
        .par_iter()
        .map(|b| {
            f64::from(classic::jaccard_prepared(
                original,
                &classic::Prepared::new_as(original.language(), &b.text),
            ))
        })
        .collect();
    children.par_iter_mut().for_each(|c| {
        let own = classic::jaccard_prepared(
            original,
            &classic::Prepared::new_as(original.language(), &c.node.text),
        );
        c.edit = parents[c.parent] - f64::from(own);
    });
}

/// How much M a token of free window is worth when the beam is ordered (see [`beam_order`]):
/// about what the strong one-step rewrites of docstring-heavy HumanEval programs buy per
/// token they add (a wrapper class 0.125 for 16 tokens, broken docstring words 0.22 for 58).
const M_PER_FREE_TOKEN: f64 = 0.004;

/// Free tokens beyond this share of the window earn nothing more in [`beam_order`]: a
/// candidate with that much room left is not held back by the window.
const ROOM_THAT_COUNTS: f64 = 0.1;

/// Orders scored candidates (with their token counts) for the beam: by M, lowest first.
/// Where a window binds, only the first place goes by M; the others go by M less what the
/// window left free is worth ([`M_PER_FREE_TOKEN`], up to [`ROOM_THAT_COUNTS`] of the window).
/// A beam of programs that all fill the window can only take rewrites that add nothing; one
/// that keeps room can still take the strong rewrites that add a few tokens (a wrapper class,
/// broken docstring words).
fn beam_order(
    mut scored: Vec<(Candidate, Option<usize>)>,
    window: Option<usize>,
) -> Vec<Candidate> {
    let by_m = |a: &Candidate, b: &Candidate| {
        a.rank_m()
            .total_cmp(&b.rank_m())
            .then_with(|| a.hash.cmp(&b.hash))
    };
    scored.sort_by(|(a, _), (b, _)| by_m(a, b));
    let Some(w) = window else {
        return scored.into_iter().map(|(c, _)| c).collect();
    };
    let counted = (w as f64 * ROOM_THAT_COUNTS).max(1.0);
    let key = |c: &Candidate, t: Option<usize>| {
        let free = t.map_or(0.0, |t| (w.saturating_sub(t) as f64).min(counted));
        f64::from(c.rank_m()) - M_PER_FREE_TOKEN * free
    };
    let mut rest = scored.split_off(scored.len().min(1));
    rest.sort_by(|(a, ta), (b, tb)| key(a, *ta).total_cmp(&key(b, *tb)).then_with(|| by_m(a, b)));
    scored.extend(rest);
    scored.into_iter().map(|(c, _)| c).collect()
}

/// The token limits a task's candidates must meet (see [`Constraints`]).
#[derive(Clone, Copy)]
struct Limits {
    /// The window that applies (see [`applicable_window`]).
    window: Option<usize>,
    /// `--max-growth` times the original's tokens.
    max_tokens: Option<f64>,
}

/// How far above the best's cheap M a selected candidate's cheap M may be and still reach the
/// exact detector: int8 MiniLM differs from fp32 by 0.013 (sd) on the fixtures' originals and
/// winners, and less between siblings, whose errors move together.
pub const CHEAP_MARGIN: f32 = 0.02;

/// Makes `n` the answer if it is less similar than the best so far (never one the detector
/// has not scored: its M is NaN).
fn offer(r: &mut SearchResult, n: &Candidate) {
    if n.similarity < r.best.similarity {
        r.best = n.clone();
    }
}

/// Runs searches for one transform set, detector and oracle.
pub struct Searcher<'a> {
    transforms: &'a [LoadedTransform],
    detector: &'a dyn Detector,
    /// A cheaper detector that ranks candidates after the first iteration (see
    /// [`Searcher::with_scorer`]).
    scorer: Option<&'a dyn Detector>,
    oracle: &'a Oracle,
    config: SearchConfig,
}

impl<'a> Searcher<'a> {
    /// A searcher.
    pub fn new(
        transforms: &'a [LoadedTransform],
        detector: &'a dyn Detector,
        oracle: &'a Oracle,
        config: SearchConfig,
    ) -> Self {
        Searcher {
            transforms,
            detector,
            scorer: None,
            oracle,
            config,
        }
    }

    /// Ranks candidates with `scorer` (multi-fidelity): from the second iteration of the beam
    /// searches on, every candidate is scored by `scorer`, the beam is chosen by its M, and
    /// only an equivalent candidate whose cheap M is within [`CHEAP_MARGIN`] of the best's
    /// reaches the detector, whose M alone decides the best. The first iteration (every
    /// transform's one-step strength) is scored by the detector.
    pub fn with_scorer(mut self, scorer: Option<&'a dyn Detector>) -> Self {
        self.scorer = scorer;
        self
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Searches for `task` (whose original behaves as `reference`).
    pub fn run(&self, task: &Task, reference: &Reference) -> Result<SearchResult, SearchError> {
        self.run_with(task, reference, &mut |_| {})
    }

    /// Searches for `task`, handing every candidate the oracle accepts to `verified` (not
    /// only the best: the accepted pool, in the order they were checked).
    pub fn run_with(
        &self,
        task: &Task,
        reference: &Reference,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<SearchResult, SearchError> {
        let mut r = match self.config.strategy {
            Strategy::Random => self.random_walk(task, reference, verified),
            Strategy::Beam | Strategy::Guided | Strategy::Greedy => {
                self.beam(task, reference, verified)
            }
        }?;
        r.window_waived = self.window_for(task)?.1;
        let original = tokens_of(self.detector, &task.source)?.max(1);
        let best = tokens_of(self.detector, &r.best.text)?;
        r.growth = best as f64 / original as f64;
        r.truncated = self.detector.window().is_some_and(|w| best > w);
        Ok(r)
    }

    /// The window that applies to `task` and whether it was waived (see [`applicable_window`]).
    fn window_for(&self, task: &Task) -> Result<(Option<usize>, bool), SearchError> {
        let window =
            applicable_window(self.detector, &task.source, self.config.constraints.window)?;
        let waived =
            self.config.constraints.window && window.is_none() && self.detector.window().is_some();
        Ok((window, waived))
    }

    /// The token limits of `task`'s candidates, counted once per task.
    fn limits(&self, task: &Task) -> Result<Limits, SearchError> {
        let (window, _) = self.window_for(task)?;
        let max_tokens = match self.config.constraints.max_growth {
            Some(g) => Some(g * tokens_of(self.detector, &task.source)?.max(1) as f64),
            None => None,
        };
        Ok(Limits { window, max_tokens })
    }

    /// Which of `texts` meet `limits`, counting the others' reasons: `None` for one that does
    /// not, else its token count when a limit needed it counted.
    fn constrain(
        &self,
        limits: &Limits,
        texts: &[&str],
        r: &mut SearchResult,
    ) -> Result<Vec<Option<Option<usize>>>, SearchError> {
        let Limits { window, max_tokens } = *limits;
        if max_tokens.is_none() && window.is_none() {
            return Ok(vec![Some(None); texts.len()]);
        }
        let t0 = Instant::now();
        let mut keep = Vec::with_capacity(texts.len());
        // One call for the lot: a detector with a tokenizer counts them in parallel (and keeps
        // the tokens for scoring).
        let counts = self.detector.token_counts(texts)?;
        for (text, count) in texts.iter().zip(counts) {
            let tokens = match count {
                Some(t) => t,
                None => tokens_of(self.detector, text)?,
            };
            if max_tokens.is_some_and(|m| tokens as f64 > m) {
                r.counts.rejected_growth += 1;
                keep.push(None);
            } else if window.is_some_and(|w| tokens > w) {
                r.counts.rejected_window += 1;
                keep.push(None);
            } else {
                keep.push(Some(Some(tokens)));
            }
        }
        let spent = t0.elapsed().as_secs_f64();
        r.seconds.detector += spent;
        r.seconds.tokenize += spent;
        Ok(keep)
    }

    /// Drops the children that break the constraints.
    fn constrain_children(
        &self,
        limits: &Limits,
        children: Vec<Child>,
        r: &mut SearchResult,
    ) -> Result<Vec<Child>, SearchError> {
        let texts: Vec<&str> = children.iter().map(|c| c.node.text.as_str()).collect();
        let keep = self.constrain(limits, &texts, r)?;
        Ok(children
            .into_iter()
            .zip(keep)
            .filter_map(|(c, k)| k.map(|tokens| Child { tokens, ..c }))
            .collect())
    }

    fn start(&self, task: &Task) -> (Candidate, SearchResult) {
        let origin = Candidate::original(&task.source);
        let result = SearchResult {
            best: origin.clone(),
            iterations: 0,
            counts: Counts::default(),
            seconds: StageSeconds::default(),
            best_per_iteration: Vec::new(),
            beams: Vec::new(),
            stopped: None,
            transform_errors: TransformErrors::new(),
            calls: BTreeMap::new(),
            scored_per_iteration: Vec::new(),
            single_step: BTreeMap::new(),
            growth: 1.0,
            truncated: false,
            window_waived: false,
            symbolic: None,
            known: KnownScores::default(),
        };
        (origin, result)
    }

    /// Every (member, transform) pair of `beam` in a fixed order (member, then transform):
    /// a transform is only offered programs of its language.
    fn pairs(&self, language: Language, beam: &[Candidate]) -> Vec<(usize, usize)> {
        (0..beam.len())
            .flat_map(|m| (0..self.transforms.len()).map(move |t| (m, t)))
            .filter(|&(_, t)| self.transforms[t].rewrites(language))
            .collect()
    }

    /// Applies every transform to every member; returns the new valid unique candidates in a
    /// fixed order (member, then transform), each with where it came from.
    fn expand(
        &self,
        language: Language,
        beam: &[Candidate],
        iteration: usize,
        seen: &mut HashSet<ProgramHash>,
        r: &mut SearchResult,
    ) -> Vec<Child> {
        let jobs = self.pairs(language, beam);
        self.apply_pairs(language, &jobs, beam, iteration, seen, r)
    }

    /// Guided search after the first iteration: applies the (member, transform) pairs the
    /// bandit expects most of first (the member's M minus the transform's expected gain), a
    /// part at a time, until [`APPLY_POOL`] × `per_iteration` candidates that meet the
    /// limits are in hand, so most transforms are never applied to most members.
    #[allow(clippy::too_many_arguments)]
    fn expand_ranked(
        &self,
        language: Language,
        beam: &[Candidate],
        iteration: usize,
        bandit: &Bandit,
        want: usize,
        limits: &Limits,
        seen: &mut HashSet<ProgramHash>,
        r: &mut SearchResult,
    ) -> Result<Vec<Child>, SearchError> {
        // Transforms that have never made a new candidate here come last; then by prediction.
        let mut pairs: Vec<(bool, f64, (usize, usize))> = self
            .pairs(language, beam)
            .into_iter()
            .map(|(m, t)| {
                let parent = beam.get(m).map_or(1.0, Candidate::rank_m);
                let predicted = f64::from(parent) - bandit.expected_gain(t);
                (bandit.barren(t), predicted, (m, t))
            })
            .collect();
        pairs.sort_by(|(ba, a, pa), (bb, b, pb)| ba.cmp(bb).then(a.total_cmp(b)).then(pa.cmp(pb)));
        let order: Vec<(usize, usize)> = pairs.into_iter().map(|(_, _, p)| p).collect();
        let mut children = Vec::new();
        for part in order.chunks(want.max(1)) {
            let made = self.apply_pairs(language, part, beam, iteration, seen, r);
            children.extend(self.constrain_children(limits, made, r)?);
            if children.len() >= want {
                break;
            }
        }
        Ok(children)
    }

    /// Applies each (member, transform) pair of `jobs`; returns the new valid unique
    /// candidates in the order of `jobs`, each with where it came from.
    fn apply_pairs(
        &self,
        language: Language,
        jobs: &[(usize, usize)],
        beam: &[Candidate],
        iteration: usize,
        seen: &mut HashSet<ProgramHash>,
        r: &mut SearchResult,
    ) -> Vec<Child> {
        let t0 = Instant::now();
        let outputs: Vec<Result<Option<Candidate>, &'static str>> = jobs
            .par_iter()
            .map(|&(m, t)| {
                let parent = &beam[m];
                let tr = &self.transforms[t];
                let seed = derive_seed(self.config.seed, iteration, &parent.hash, &tr.name);
                match tr.apply(&parent.text, seed) {
                    Ok(Some(out)) => match classify_as(language, &parent.text, out) {
                        Classified::Valid(text) => Ok(Some(Candidate::derived(
                            parent,
                            text,
                            Step {
                                name: tr.name.clone(),
                                seed,
                            },
                        ))),
                        _ => Ok(None),
                    },
                    Ok(None) => Ok(None),
                    Err(e) => Err(e.kind()),
                }
            })
            .collect();
        r.counts.generated += jobs.len() as u64;
        for &(_, t) in jobs {
            *r.calls.entry(self.transforms[t].name.clone()).or_default() += 1;
        }
        let mut fresh = Vec::new();
        for (&(parent, transform), out) in jobs.iter().zip(outputs) {
            let node = match out {
                Ok(Some(node)) => node,
                Ok(None) => continue,
                Err(kind) => {
                    count_error(
                        &mut r.transform_errors,
                        &self.transforms[transform].name,
                        kind,
                    );
                    continue;
                }
            };
            r.counts.valid += 1;
            if seen.insert(node.hash) {
                fresh.push(Child {
                    parent,
                    transform,
                    node,
                    edit: 0.0,
                    tokens: None,
                });
            }
        }
        r.counts.unique += fresh.len() as u64;
        r.seconds.transform += t0.elapsed().as_secs_f64();
        fresh
    }

    /// Sets the detector's M of `nodes`.
    fn score(
        &self,
        task: &Task,
        nodes: &mut [Candidate],
        r: &mut SearchResult,
    ) -> Result<(), SearchError> {
        let mut refs: Vec<&mut Candidate> = nodes.iter_mut().collect();
        self.score_by(None, task, &mut refs, r)
    }

    /// Sets the M of `nodes` by `scorer` (their cheap M, see [`Searcher::with_scorer`]), or
    /// by the detector when `None` (their M), and counts the queries. A node the scorer reads
    /// as it read one scored before in this search (or as the original, M = 1) takes that
    /// score without a query.
    fn score_by(
        &self,
        scorer: Option<&dyn Detector>,
        task: &Task,
        nodes: &mut [&mut Candidate],
        r: &mut SearchResult,
    ) -> Result<(), SearchError> {
        if nodes.is_empty() {
            return Ok(());
        }
        let t0 = Instant::now();
        let detector = scorer.unwrap_or(self.detector);
        let known = match scorer {
            Some(_) => &mut r.known.cheap,
            None => &mut r.known.exact,
        };
        if known.is_empty() {
            // What reads as the original is a clone of it by definition, as `Detector::score` says.
            if let Some(Some(k)) = detector.input_keys(&[task.source.as_str()])?.pop() {
                known.insert(k, 1.0);
            }
        }
        let texts: Vec<&str> = nodes.iter().map(|n| n.text.as_str()).collect();
        let keys = detector.input_keys(&texts)?;
        // Each key not known yet is queried once (its first node); every other node copies.
        let mut asked: HashSet<InputKey> = HashSet::new();
        let query: Vec<usize> = (0..nodes.len())
            .filter(|&i| match keys.get(i).copied().flatten() {
                Some(k) => !known.contains_key(&k) && asked.insert(k),
                None => true,
            })
            .collect();
        let wanted: Vec<&str> = query.iter().map(|&i| texts[i]).collect();
        let ms = detector.score(&task.source, &wanted)?;
        let mut got: Vec<Option<f32>> = vec![None; nodes.len()];
        for (&i, m) in query.iter().zip(ms) {
            got[i] = Some(m);
            if let Some(Some(k)) = keys.get(i) {
                known.insert(*k, m);
            }
        }
        for (i, n) in nodes.iter_mut().enumerate() {
            let m = got[i]
                .or_else(|| {
                    keys.get(i)
                        .copied()
                        .flatten()
                        .and_then(|k| known.get(&k).copied())
                })
                .ok_or_else(|| DetectorError::BadScores("a reused score is missing".into()))?;
            match scorer {
                Some(_) => n.cheap = Some(m),
                None => n.similarity = m,
            }
        }
        match scorer {
            Some(_) => r.counts.cheap_scored += query.len() as u64,
            None => {
                r.counts.scored += query.len() as u64;
                r.counts.reused += (nodes.len() - query.len()) as u64;
            }
        }
        r.seconds.detector += t0.elapsed().as_secs_f64();
        Ok(())
    }

    /// With a cheap scorer: the detector's M of the selected candidates that could be the
    /// new best (cheap M below the best's plus [`CHEAP_MARGIN`]).
    fn score_contenders(
        &self,
        task: &Task,
        best_cheap: f32,
        selected: &mut [Candidate],
        r: &mut SearchResult,
    ) -> Result<(), SearchError> {
        let mut contenders: Vec<&mut Candidate> = selected
            .iter_mut()
            .filter(|n| {
                n.similarity.is_nan() && n.cheap.is_some_and(|c| c < best_cheap + CHEAP_MARGIN)
            })
            .collect();
        self.score_by(None, task, &mut contenders, r)
    }

    fn oracle_budget_left(&self, r: &SearchResult) -> usize {
        self.config.max_oracle.map_or(usize::MAX, |m| {
            m.saturating_sub(r.counts.oracle_checked as usize)
        })
    }

    /// Checks `nodes` (sorted by distance) and returns the first `want` that pass, in order.
    fn select(
        &self,
        task: &Task,
        reference: &Reference,
        nodes: Vec<Candidate>,
        want: usize,
        r: &mut SearchResult,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<Vec<Candidate>, OracleFault> {
        let t0 = Instant::now();
        // A candidate that breaks its sandbox is a verdict (not equivalent), counted apart;
        // only a fault the original shares stops the task.
        let breakers = std::sync::atomic::AtomicU64::new(0);
        let not_compiling = std::sync::atomic::AtomicU64::new(0);
        let check = |n: &Candidate| {
            self.oracle.check(task, reference, &n.text).map(|d| {
                if d.broke_sandbox() {
                    breakers.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                if d.invalid.is_some() {
                    not_compiling.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                d.equivalent
            })
        };
        let mut accepted = Vec::new();
        match self.config.oracle_order {
            OracleOrder::All => {
                let budget = self.oracle_budget_left(r).min(nodes.len());
                let verdicts: Vec<bool> = nodes[..budget]
                    .par_iter()
                    .map(check)
                    .collect::<Result<_, _>>()?;
                r.counts.oracle_checked += budget as u64;
                r.counts.accepted += verdicts.iter().filter(|v| **v).count() as u64;
                for (n, _) in nodes.iter().zip(&verdicts).filter(|(_, ok)| **ok) {
                    verified(n);
                }
                accepted = nodes
                    .into_iter()
                    .zip(verdicts)
                    .filter(|(_, ok)| *ok)
                    .map(|(n, _)| n)
                    .take(want)
                    .collect();
            }
            OracleOrder::Lazy => {
                let mut next = 0;
                while accepted.len() < want && next < nodes.len() {
                    let budget = self.oracle_budget_left(r);
                    if budget == 0 {
                        break;
                    }
                    let k = (want - accepted.len()).min(nodes.len() - next).min(budget);
                    let chunk = &nodes[next..next + k];
                    let verdicts: Vec<bool> =
                        chunk.par_iter().map(check).collect::<Result<_, _>>()?;
                    r.counts.oracle_checked += k as u64;
                    for (n, ok) in chunk.iter().zip(verdicts) {
                        if ok {
                            r.counts.accepted += 1;
                            verified(n);
                            if accepted.len() < want {
                                accepted.push(n.clone());
                            }
                        }
                    }
                    next += k;
                }
            }
        }
        r.counts.sandbox_breakers += breakers.into_inner();
        r.counts.not_compiling += not_compiling.into_inner();
        r.seconds.oracle += t0.elapsed().as_secs_f64();
        Ok(accepted)
    }

    fn beam(
        &self,
        task: &Task,
        reference: &Reference,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<SearchResult, SearchError> {
        let start = Instant::now();
        let width = if self.config.strategy == Strategy::Greedy {
            1
        } else {
            self.config.beam.max(1)
        };
        // Only the guided search ranks before scoring.
        let mut guide = (self.config.strategy == Strategy::Guided).then(|| {
            let per_iteration = self
                .config
                .per_iteration
                .unwrap_or(DEFAULT_PER_ITERATION)
                .max(1);
            (Bandit::new(self.transforms.len()), per_iteration)
        });
        let (origin, mut r) = self.start(task);
        let mut seen: HashSet<ProgramHash> = HashSet::from([origin.hash]);
        let mut beam = vec![origin];
        let mut since_improved = 0;
        let origin_tokens = classic::Prepared::new_as(task.language, &task.source);
        let limits = self.limits(task)?;
        // The best's cheap M, once the cheap scorer ranks (see `with_scorer`).
        let mut best_cheap: Option<f32> = None;
        for it in 0..self.config.iterations + self.config.extend {
            if it >= self.config.iterations
                && self
                    .config
                    .success_below
                    .is_none_or(|t| r.best.similarity < t)
            {
                break;
            }
            if let Some(reason) = self.budget_exhausted(&r, start) {
                r.stopped = Some(reason);
                break;
            }
            let cheap = self.scorer.filter(|_| it > 0);
            if let Some(scorer) = cheap {
                // Gains are measured in one unit: members the detector scored get a cheap M.
                let mut unranked: Vec<&mut Candidate> =
                    beam.iter_mut().filter(|b| b.cheap.is_none()).collect();
                self.score_by(Some(scorer), task, &mut unranked, &mut r)?;
                if best_cheap.is_none() {
                    best_cheap = match beam.iter().find(|b| b.hash == r.best.hash) {
                        Some(b) => b.cheap,
                        None => {
                            let mut best = r.best.clone();
                            self.score_by(Some(scorer), task, &mut [&mut best], &mut r)?;
                            best.cheap
                        }
                    };
                }
            }
            let mut children = match &guide {
                Some((bandit, per_iteration)) if it > 0 && self.config.ranked_apply => {
                    let want = per_iteration * APPLY_POOL;
                    self.expand_ranked(
                        task.language,
                        &beam,
                        it,
                        bandit,
                        want,
                        &limits,
                        &mut seen,
                        &mut r,
                    )?
                }
                _ => {
                    let children = self.expand(task.language, &beam, it, &mut seen, &mut r);
                    self.constrain_children(&limits, children, &mut r)?
                }
            };
            if let Some((bandit, per_iteration)) = &mut guide {
                for c in &children {
                    bandit.made(c.transform);
                }
                set_edit_sizes(&origin_tokens, &beam, &mut children);
                // The first iteration scores every transform once: its one-step strength.
                if it > 0 {
                    let parents: Vec<f32> = beam.iter().map(Candidate::rank_m).collect();
                    children = bandit.most_promising(children, &parents, *per_iteration);
                }
            }
            if let Some(max) = self.config.max_queries {
                let used = r.counts.scored + r.counts.cheap_scored;
                children.truncate(max.saturating_sub(used as usize));
            }
            let mut fresh: Vec<Candidate> = Vec::with_capacity(children.len());
            let mut origins = Vec::with_capacity(children.len());
            for c in children {
                origins.push((c.parent, c.transform, c.edit, c.tokens));
                fresh.push(c.node);
            }
            match cheap {
                Some(scorer) => {
                    let mut all: Vec<&mut Candidate> = fresh.iter_mut().collect();
                    self.score_by(Some(scorer), task, &mut all, &mut r)?;
                }
                None => self.score(task, &mut fresh, &mut r)?,
            }
            if let Some((bandit, _)) = &mut guide {
                bandit.decay();
                for (n, &(parent, transform, edit, _)) in fresh.iter().zip(&origins) {
                    bandit.observe(transform, beam[parent].rank_m() - n.rank_m(), edit);
                }
            }
            if it == 0 {
                for n in &fresh {
                    if let [step] = n.steps.as_slice() {
                        r.single_step.insert(step.name.clone(), n.similarity);
                    }
                }
            }
            let tokens = origins.iter().map(|o| o.3);
            let fresh = beam_order(fresh.into_iter().zip(tokens).collect(), limits.window);
            let mut selected = self.select(task, reference, fresh, width, &mut r, verified)?;
            if cheap.is_some() {
                let bar = best_cheap.unwrap_or(f32::INFINITY);
                self.score_contenders(task, bar, &mut selected, &mut r)?;
            }
            r.iterations = it + 1;
            r.scored_per_iteration.push(r.counts.scored);
            r.seconds.per_iteration.push(start.elapsed().as_secs_f64());
            if selected.is_empty() {
                r.best_per_iteration.push(r.best.similarity);
                r.stopped = Some("no equivalent candidate left".into());
                break;
            }
            let before = r.best.similarity;
            // Not always the first: where a window binds, the beam is not in M order.
            for n in &selected {
                offer(&mut r, n);
            }
            if r.best.similarity < before && cheap.is_some() {
                best_cheap = r.best.cheap;
            }
            r.best_per_iteration.push(r.best.similarity);
            r.beams.push(selected.iter().map(|n| n.hash).collect());
            beam = selected;
            if let Some(t) = self.config.stop_below.filter(|t| r.best.similarity < *t) {
                r.stopped = Some(format!("best M fell below {t}"));
                break;
            }
            since_improved = if r.best.similarity < before {
                0
            } else {
                since_improved + 1
            };
            if let Some(p) = self.config.patience.filter(|p| since_improved >= *p) {
                r.stopped = Some(format!("best M did not improve for {p} iterations"));
                break;
            }
        }
        r.seconds.total = start.elapsed().as_secs_f64();
        // The scores by input key serve this search only.
        r.known = KnownScores::default();
        Ok(r)
    }

    fn budget_exhausted(&self, r: &SearchResult, start: Instant) -> Option<String> {
        if self
            .config
            .time_per_task
            .is_some_and(|t| start.elapsed() >= t)
        {
            return Some("time budget reached".into());
        }
        if self
            .config
            .max_queries
            .is_some_and(|m| r.counts.scored as usize >= m)
        {
            return Some("query budget reached".into());
        }
        if self
            .config
            .max_oracle
            .is_some_and(|m| r.counts.oracle_checked as usize >= m)
        {
            return Some("oracle budget reached".into());
        }
        None
    }

    /// A random walk: each step tries the transforms in a seeded random order and moves to the
    /// first new, valid, equivalent program; N steps.
    fn random_walk(
        &self,
        task: &Task,
        reference: &Reference,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<SearchResult, SearchError> {
        let start = Instant::now();
        let (origin, mut r) = self.start(task);
        let mut seen: HashSet<ProgramHash> = HashSet::from([origin.hash]);
        let mut current = origin;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
            self.config.seed ^ u64::from_le_bytes(current.hash.0[..8].try_into().unwrap_or([0; 8])),
        );
        let limits = self.limits(task)?;
        for it in 0..self.config.iterations {
            if let Some(reason) = self.budget_exhausted(&r, start) {
                r.stopped = Some(reason);
                break;
            }
            let mut order: Vec<usize> = (0..self.transforms.len())
                .filter(|&t| self.transforms[t].rewrites(task.language))
                .collect();
            order.shuffle(&mut rng);
            let mut moved = false;
            for t in order {
                let tr = &self.transforms[t];
                let seed = derive_seed(self.config.seed, it, &current.hash, &tr.name);
                let t0 = Instant::now();
                r.counts.generated += 1;
                *r.calls.entry(tr.name.clone()).or_default() += 1;
                let out = match tr.apply(&current.text, seed) {
                    Ok(out) => out.map(|o| classify_as(task.language, &current.text, o)),
                    Err(e) => {
                        count_error(&mut r.transform_errors, &tr.name, e.kind());
                        None
                    }
                };
                r.seconds.transform += t0.elapsed().as_secs_f64();
                let Some(Classified::Valid(text)) = out else {
                    continue;
                };
                r.counts.valid += 1;
                let node = Candidate::derived(
                    &current,
                    text,
                    Step {
                        name: tr.name.clone(),
                        seed,
                    },
                );
                if !seen.insert(node.hash) {
                    continue;
                }
                r.counts.unique += 1;
                if self.constrain(&limits, &[node.text.as_str()], &mut r)?[0].is_none() {
                    continue;
                }
                if self
                    .config
                    .max_queries
                    .is_some_and(|m| r.counts.scored as usize >= m)
                {
                    break;
                }
                let mut node = vec![node];
                self.score(task, &mut node, &mut r)?;
                if let Some(n) = self
                    .select(task, reference, node, 1, &mut r, verified)?
                    .pop()
                {
                    current = n;
                    moved = true;
                    break;
                }
            }
            r.iterations = it + 1;
            r.scored_per_iteration.push(r.counts.scored);
            r.seconds.per_iteration.push(start.elapsed().as_secs_f64());
            offer(&mut r, &current);
            r.best_per_iteration.push(r.best.similarity);
            r.beams.push(vec![current.hash]);
            if !moved {
                r.stopped = Some(
                    self.budget_exhausted(&r, start)
                        .unwrap_or_else(|| "no transform gave a new equivalent program".into()),
                );
                break;
            }
            if self
                .config
                .stop_below
                .is_some_and(|t| r.best.similarity < t)
            {
                r.stopped = Some("best M fell below the threshold".into());
                break;
            }
        }
        r.seconds.total = start.elapsed().as_secs_f64();
        // The scores by input key serve this search only.
        r.known = KnownScores::default();
        Ok(r)
    }
}

impl crate::pipeline::Job for Searcher<'_> {
    type Output = SearchResult;

    fn run(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<SearchResult, String> {
        let reference = reference.ok_or("the search needs the original's reference behaviour")?;
        self.run_with(task, reference, verified)
            .map_err(|e| e.to_string())
    }
}

// The symbolic check screens a search's winner (the trait lives with the check).
impl crate::adequacy::symbolic::Screened for SearchResult {
    fn candidates(&self) -> Vec<&str> {
        vec![self.best.text.as_str()]
    }

    fn drop_rejected(&mut self, _: &[bool]) -> bool {
        false
    }

    fn set_symbolic(&mut self, record: crate::adequacy::symbolic::SymbolicRecord) {
        self.symbolic = Some(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of `candidates` (text, M, tokens) in the order [`beam_order`] gives them.
    fn order(candidates: &[(&str, f32, usize)], window: Option<usize>) -> Vec<String> {
        let scored = candidates
            .iter()
            .map(|&(text, similarity, tokens)| {
                let mut c = Candidate::original(text);
                c.similarity = similarity;
                (c, Some(tokens))
            })
            .collect();
        beam_order(scored, window)
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn without_a_window_the_beam_takes_the_lowest_m_first() {
        let candidates = [("b", 0.5, 250), ("a", 0.4, 255), ("c", 0.6, 100)];
        assert_eq!(order(&candidates, None), ["a", "b", "c"]);
    }

    #[test]
    fn where_a_window_binds_room_left_buys_a_place_after_the_first() {
        // Window 256: room counts up to 25.6 tokens at 0.004 M each. "a" is first (lowest
        // M); "d" has the most room but only 25.6 of it counts. Keys after "a": b 0.426,
        // c 0.4176, d 0.4976, e 0.50.
        let candidates = [
            ("a", 0.40, 255),
            ("b", 0.45, 250),
            ("c", 0.52, 225),
            ("d", 0.60, 150),
            ("e", 0.50, 256),
        ];
        assert_eq!(order(&candidates, Some(256)), ["a", "c", "b", "d", "e"]);
    }

    #[test]
    fn with_room_to_spare_everywhere_the_order_is_by_m() {
        let candidates = [("c", 0.55, 100), ("a", 0.40, 200), ("b", 0.45, 190)];
        assert_eq!(order(&candidates, Some(256)), ["a", "b", "c"]);
    }
}
