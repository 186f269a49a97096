//! Search for the equivalent program a detector finds least similar (Auto-SPT, Algorithm 1),
//! with a lazy oracle; greedy and random-walk baselines.
//!
//! Beam search: a beam of B programs, starting with the original. Each iteration expands every
//! member with every transform (seeds derived from the run seed, the iteration, the parent and
//! the transform), drops invalid outputs and anything already seen in this search, scores the
//! new candidates in batches, sorts them by M (ties by content hash) and runs the oracle in that
//! order until B candidates pass. Because scoring is cheap next to running tests and the order
//! is fixed, the B selected are exactly those Algorithm 1 would select after checking every
//! candidate (`OracleOrder::All` does that, for the proof), with far fewer oracle calls.

pub mod diversity;

use crate::detector::{tokens_of, Detector, DetectorError};
use crate::oracle::{Oracle, OracleFault, Reference};
use crate::program::{classify, Classified, ProgramHash};
pub use crate::program::{Candidate, Step};
use crate::task::Task;
use crate::transform::LoadedTransform;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};
use thiserror::Error;

/// Which search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Beam search (Algorithm 1).
    Beam,
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
    /// Stop after scoring this many candidates.
    pub max_scored: Option<usize>,
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
}

/// TextAttack-style constraints, applied to every candidate before the detector scores it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    /// A candidate may have at most this many times the original's tokens (the detector's
    /// tokens, or Python tokens for the classic measures).
    pub max_growth: Option<f64>,
    /// Reject candidates longer than the detector's window (it would truncate them, and an
    /// attack could win by pushing code out of sight).
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
            max_scored: None,
            max_oracle: None,
            time_per_task: None,
            stop_below: None,
            constraints: Constraints::default(),
        }
    }
}

/// Counters of one task's search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Transform applications.
    pub generated: u64,
    /// Applications that gave a new, parseable program.
    pub valid: u64,
    /// Valid outputs not seen before in this search.
    pub unique: u64,
    /// Candidates scored by the detector.
    pub scored: u64,
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
}

/// Wall time per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StageSeconds {
    /// Applying transforms (and validity checks).
    pub transform: f64,
    /// Detector scoring.
    pub detector: f64,
    /// Oracle checks.
    pub oracle: f64,
    /// The whole search.
    pub total: f64,
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

/// Why a search failed.
#[derive(Debug, Error)]
pub enum SearchError {
    /// The detector failed.
    #[error("detector: {0}")]
    Detector(#[from] DetectorError),
    /// The sandbox failed on a check: the candidate has no verdict, so the search cannot
    /// honestly go on.
    #[error("oracle: {0}")]
    Oracle(#[from] crate::oracle::OracleFault),
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

/// Makes `n` the answer if it is less similar than the best so far.
fn offer(r: &mut SearchResult, n: &Candidate) {
    if n.similarity < r.best.similarity {
        r.best = n.clone();
    }
}

/// Runs searches for one transform set, detector and oracle.
pub struct Searcher<'a> {
    transforms: &'a [LoadedTransform],
    detector: &'a dyn Detector,
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
            oracle,
            config,
        }
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
            Strategy::Beam | Strategy::Greedy => self.beam(task, reference, verified),
        }?;
        let original = tokens_of(self.detector, &task.source)?.max(1);
        let best = tokens_of(self.detector, &r.best.text)?;
        r.growth = best as f64 / original as f64;
        r.truncated = self.detector.window().is_some_and(|w| best > w);
        Ok(r)
    }

    /// Drops the candidates that break the constraints, counting why.
    fn constrain(
        &self,
        task: &Task,
        nodes: Vec<Candidate>,
        r: &mut SearchResult,
    ) -> Result<Vec<Candidate>, SearchError> {
        let c = self.config.constraints;
        if c.max_growth.is_none() && !c.window {
            return Ok(nodes);
        }
        let t0 = Instant::now();
        let original = tokens_of(self.detector, &task.source)?.max(1) as f64;
        let window = if c.window {
            self.detector.window()
        } else {
            None
        };
        let mut kept = Vec::with_capacity(nodes.len());
        // One call for the lot: a detector with a tokenizer counts them in parallel (and keeps
        // the tokens for scoring).
        let texts: Vec<&str> = nodes.iter().map(|n| n.text.as_str()).collect();
        let counts = self.detector.token_counts(&texts)?;
        for (n, count) in nodes.into_iter().zip(counts) {
            let tokens = match count {
                Some(t) => t,
                None => tokens_of(self.detector, &n.text)?,
            };
            if c.max_growth.is_some_and(|g| tokens as f64 > g * original) {
                r.counts.rejected_growth += 1;
            } else if window.is_some_and(|w| tokens > w) {
                r.counts.rejected_window += 1;
            } else {
                kept.push(n);
            }
        }
        r.seconds.detector += t0.elapsed().as_secs_f64();
        Ok(kept)
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
        };
        (origin, result)
    }

    /// Applies every transform to every member; returns new valid unique candidates in a fixed
    /// order (member, then transform).
    fn expand(
        &self,
        beam: &[Candidate],
        iteration: usize,
        seen: &mut HashSet<ProgramHash>,
        r: &mut SearchResult,
    ) -> Vec<Candidate> {
        let t0 = Instant::now();
        let jobs: Vec<(usize, usize)> = (0..beam.len())
            .flat_map(|m| (0..self.transforms.len()).map(move |t| (m, t)))
            .collect();
        let outputs: Vec<Result<Option<Candidate>, &'static str>> = jobs
            .par_iter()
            .map(|&(m, t)| {
                let parent = &beam[m];
                let tr = &self.transforms[t];
                let seed = derive_seed(self.config.seed, iteration, &parent.hash, &tr.name);
                match tr.apply(&parent.text, seed) {
                    Ok(Some(out)) => match classify(&parent.text, out) {
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
        for &(_, t) in &jobs {
            *r.calls.entry(self.transforms[t].name.clone()).or_default() += 1;
        }
        let mut fresh = Vec::new();
        for (&(_, t), out) in jobs.iter().zip(outputs) {
            let node = match out {
                Ok(Some(node)) => node,
                Ok(None) => continue,
                Err(kind) => {
                    count_error(&mut r.transform_errors, &self.transforms[t].name, kind);
                    continue;
                }
            };
            r.counts.valid += 1;
            if seen.insert(node.hash) {
                fresh.push(node);
            }
        }
        r.counts.unique += fresh.len() as u64;
        r.seconds.transform += t0.elapsed().as_secs_f64();
        fresh
    }

    fn score(
        &self,
        task: &Task,
        nodes: &mut [Candidate],
        r: &mut SearchResult,
    ) -> Result<(), SearchError> {
        let t0 = Instant::now();
        let texts: Vec<&str> = nodes.iter().map(|n| n.text.as_str()).collect();
        let ms = self.detector.score(&task.source, &texts)?;
        for (n, m) in nodes.iter_mut().zip(ms) {
            n.similarity = m;
        }
        r.counts.scored += nodes.len() as u64;
        r.seconds.detector += t0.elapsed().as_secs_f64();
        Ok(())
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
        let check = |n: &Candidate| {
            self.oracle.check(task, reference, &n.text).map(|d| {
                if d.broke_sandbox() {
                    breakers.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
        let (origin, mut r) = self.start(task);
        let mut seen: HashSet<ProgramHash> = HashSet::from([origin.hash]);
        let mut beam = vec![origin];
        for it in 0..self.config.iterations {
            if let Some(reason) = self.budget_exhausted(&r, start) {
                r.stopped = Some(reason);
                break;
            }
            let fresh = self.expand(&beam, it, &mut seen, &mut r);
            let mut fresh = self.constrain(task, fresh, &mut r)?;
            if let Some(max) = self.config.max_scored {
                fresh.truncate(max.saturating_sub(r.counts.scored as usize));
            }
            self.score(task, &mut fresh, &mut r)?;
            if it == 0 {
                for n in &fresh {
                    if let [step] = n.steps.as_slice() {
                        r.single_step.insert(step.name.clone(), n.similarity);
                    }
                }
            }
            fresh.sort_by(|a, b| {
                a.similarity
                    .total_cmp(&b.similarity)
                    .then_with(|| a.hash.cmp(&b.hash))
            });
            let selected = self.select(task, reference, fresh, width, &mut r, verified)?;
            r.iterations = it + 1;
            r.scored_per_iteration.push(r.counts.scored);
            if selected.is_empty() {
                r.best_per_iteration.push(r.best.similarity);
                r.stopped = Some("no equivalent candidate left".into());
                break;
            }
            if let Some(top) = selected.first() {
                offer(&mut r, top);
            }
            r.best_per_iteration.push(r.best.similarity);
            r.beams.push(selected.iter().map(|n| n.hash).collect());
            beam = selected;
            if self
                .config
                .stop_below
                .is_some_and(|t| r.best.similarity < t)
            {
                r.stopped = Some(format!(
                    "best M fell below {}",
                    self.config.stop_below.unwrap_or_default()
                ));
                break;
            }
        }
        r.seconds.total = start.elapsed().as_secs_f64();
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
            .max_scored
            .is_some_and(|m| r.counts.scored as usize >= m)
        {
            return Some("scoring budget reached".into());
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
        for it in 0..self.config.iterations {
            if let Some(reason) = self.budget_exhausted(&r, start) {
                r.stopped = Some(reason);
                break;
            }
            let mut order: Vec<usize> = (0..self.transforms.len()).collect();
            order.shuffle(&mut rng);
            let mut moved = false;
            for t in order {
                let tr = &self.transforms[t];
                let seed = derive_seed(self.config.seed, it, &current.hash, &tr.name);
                let t0 = Instant::now();
                r.counts.generated += 1;
                *r.calls.entry(tr.name.clone()).or_default() += 1;
                let out = match tr.apply(&current.text, seed) {
                    Ok(out) => out.map(|o| classify(&current.text, o)),
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
                let node = vec![node];
                let mut node = self.constrain(task, node, &mut r)?;
                if node.is_empty() {
                    continue;
                }
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
            offer(&mut r, &current);
            r.best_per_iteration.push(r.best.similarity);
            r.beams.push(vec![current.hash]);
            if !moved {
                r.stopped = Some("no transform gave a new equivalent program".into());
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
