//! `equimorph train`: detectors trained on transformed programs to resist them (Auto-SPT RQ3).
//!
//! The training data is an `augment` run: each task's original and its verified variants are
//! one problem's programs (tasks of one problem share it), clones of each other; programs of
//! other problems are the negatives. Problems are split into training and validation sets,
//! so no program of a validation problem is trained on.
//!
//! `--mode head` (the paper's "fine-tune the final layer" of an embedding model): the encoder
//! is frozen, and a linear projection of its pooled embedding, initialised to the identity,
//! is trained with the in-batch-negatives contrastive loss of sentence-transformers'
//! MultipleNegativesRankingLoss (cosine similarities × 20, cross-entropy against the true
//! pair), with Adam, early-stopped on the validation loss. The projection is written as a
//! second ONNX graph beside the encoder: the result is a model directory `onnx:DIR` loads.

pub mod full;
pub mod head;
pub mod torch;

use crate::augment::{TaskLine, VariantLine};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why training could not run.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The data cannot train anything.
    #[error("{0}")]
    Data(String),
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] crate::detector::DetectorError),
    /// Stopped by SIGINT or SIGTERM before training finished (nothing of it is kept).
    #[error("interrupted before training finished")]
    Interrupted,
}

/// What is trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The encoder frozen; a linear projection of its pooled embedding (initialised to the
    /// identity) trained contrastively: CPU minutes.
    Head,
    /// The whole encoder (BERT) fine-tuned with the same loss from its safetensors source
    /// (--weights), then exported with models/export.py.
    Full,
}

impl Mode {
    /// The name `train.json` records (`head`, `full`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Head => "head",
            Mode::Full => "full",
        }
    }

    /// Adam's learning rate when none is given: a fresh projection learns fast; a pretrained
    /// encoder is fine-tuned at sentence-transformers' 2e-5 (1e-3 is far above the rates BERT
    /// fine-tuning uses).
    pub fn default_lr(self) -> f32 {
        match self {
            Mode::Head => 1e-3,
            Mode::Full => 2e-5,
        }
    }
}

/// What runs `--mode full`'s training steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// torch when equimorph's Python has PyTorch (setup installs it), else candle.
    #[default]
    Auto,
    /// In Rust with candle, on the CPU (no Python needed).
    Candle,
    /// PyTorch in equimorph's Python (models/train_torch.py): on a CUDA GPU when torch sees
    /// one, else on the CPU (about 4× candle's speed there).
    Torch,
}

impl Backend {
    /// The name `train.json` records (`auto` only where nothing was fine-tuned).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Candle => "candle",
            Backend::Torch => "torch",
        }
    }

    /// `Auto` made concrete: torch when `python` imports it, else candle.
    pub fn resolve(self, python: &std::path::Path) -> Backend {
        match self {
            Backend::Auto if torch::available(python) => Backend::Torch,
            Backend::Auto => Backend::Candle,
            b => b,
        }
    }
}

/// One problem's programs: clones of each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The problem (a task's `problem`, else its id).
    pub problem: String,
    /// Originals first, then their variants.
    pub texts: Vec<String>,
}

fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, TrainError> {
    let text = std::fs::read_to_string(path).map_err(|e| TrainError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| TrainError::Io {
                path: path.to_path_buf(),
                message: format!("line {}: {e}", i + 1),
            })
        })
        .collect()
}

/// The groups of an `augment` output directory (`tasks.jsonl`, `variants.jsonl`): tasks
/// that were augmented, with their variants (only verified ones unless `unverified`).
pub fn read_augment_dir(dir: &Path, unverified: bool) -> Result<Vec<Group>, TrainError> {
    let tasks: Vec<TaskLine> = read_lines(&dir.join("tasks.jsonl"))?;
    let variants: Vec<VariantLine> = read_lines(&dir.join("variants.jsonl"))?;
    let mut by_task: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for v in &variants {
        if v.verified || unverified {
            by_task
                .entry(v.task_id.as_str())
                .or_default()
                .push(&v.source);
        }
    }
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for t in &tasks {
        let Some(vs) = by_task.get(t.id.as_str()) else {
            continue;
        };
        let problem = t.problem.clone().unwrap_or_else(|| t.id.clone());
        let g = groups.entry(problem.clone()).or_insert_with(|| Group {
            problem,
            texts: Vec::new(),
        });
        g.texts.insert(0, t.original.clone());
        g.texts.extend(vs.iter().map(|s| s.to_string()));
    }
    for g in groups.values_mut() {
        let mut seen = std::collections::HashSet::new();
        g.texts.retain(|t| seen.insert(t.clone()));
    }
    Ok(groups
        .into_values()
        .filter(|g| g.texts.len() >= 2)
        .collect())
}

/// The groups as `canon:` reads their programs: each text in its canonical form (with its
/// docstrings), duplicates dropped (a variant the form undoes is its original again), and
/// groups left with fewer than two programs dropped.
pub fn canonical_groups(groups: Vec<Group>) -> Vec<Group> {
    use rayon::prelude::*;
    groups
        .into_par_iter()
        .map(|g| {
            let mut seen = std::collections::HashSet::new();
            let texts = g
                .texts
                .iter()
                .map(|t| crate::detector::canon::canonical(t))
                .filter(|t| seen.insert(t.clone()))
                .collect();
            Group { texts, ..g }
        })
        .filter(|g| g.texts.len() >= 2)
        .collect()
}

/// Which problems train and which validate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// Training problems.
    pub train: Vec<String>,
    /// Validation problems (early stopping), never trained on.
    pub valid: Vec<String>,
}

/// Splits problems, seeded: `valid_fraction` of them (rounded, at least 2 when the fraction
/// is positive) validate.
pub fn split(groups: &[Group], valid_fraction: f64, seed: u64) -> Result<Split, TrainError> {
    let mut problems: Vec<String> = groups.iter().map(|g| g.problem.clone()).collect();
    problems.sort();
    problems.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let n_valid = if valid_fraction > 0.0 {
        ((problems.len() as f64 * valid_fraction).round() as usize).max(2)
    } else {
        0
    };
    if problems.len() < n_valid + 2 {
        return Err(TrainError::Data(format!(
            "{} problem(s) with two or more programs: too few to train on at least 2 and \
             validate on {n_valid} (augment more tasks, or --valid 0)",
            problems.len()
        )));
    }
    let mut valid: Vec<String> = problems[..n_valid].to_vec();
    let mut train: Vec<String> = problems[n_valid..].to_vec();
    valid.sort();
    train.sort();
    Ok(Split { train, valid })
}

/// Settings of a training run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainConfig {
    /// Passes over the training pairs at most.
    pub epochs: usize,
    /// Pairs per batch (each pair's positive is every other pair's negative).
    pub batch: usize,
    /// Adam's learning rate.
    pub lr: f32,
    /// Similarities are multiplied by this before the softmax (sentence-transformers: 20).
    pub scale: f32,
    /// Share of problems held out for validation.
    pub valid_fraction: f64,
    /// Epochs without a better validation loss before stopping.
    pub patience: usize,
    /// Seed of the split, the pairs and their order.
    pub seed: u64,
    /// Weight of the penalty on the projection's distance from the identity (squared
    /// Frobenius norm of W − I): keeps the trained detector close to the base one where the
    /// training data says nothing.
    #[serde(default)]
    pub decay: f32,
    /// `--mode full`: what runs the training steps (head training always runs in Rust);
    /// reports written before backends existed were trained with candle.
    #[serde(default = "candle")]
    pub backend: Backend,
    /// Every program is read in its canonical form (what `canon:` shows a detector) before
    /// training: a model for use behind `canon:`, trained on what the defence leaves of each
    /// SPT rather than on what it already undoes.
    #[serde(default)]
    pub canon: bool,
    /// With `canon`: the [`FORM_VERSION`](crate::detector::canon::FORM_VERSION) of the forms
    /// trained on (None: not recorded, an older form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canon_form: Option<u32>,
}

fn candle() -> Backend {
    Backend::Candle
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 30,
            batch: 32,
            lr: 1e-3,
            scale: 20.0,
            valid_fraction: 0.2,
            patience: 4,
            seed: 0,
            decay: 0.0,
            backend: Backend::Auto,
            canon: false,
            canon_form: None,
        }
    }
}

/// One epoch's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochLog {
    /// 1-based.
    pub epoch: usize,
    /// Mean training loss.
    pub train_loss: f64,
    /// Mean validation loss (None without a validation split).
    pub valid_loss: Option<f64>,
    /// Validation: mean cosine of clone pairs minus mean cosine of in-batch non-clones.
    pub valid_margin: Option<f64>,
}

/// `train.json`: what was trained, on what, and how it went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainReport {
    /// `head` or `full`.
    pub mode: String,
    /// The base detector.
    pub base: String,
    /// The augment run trained on.
    pub data: String,
    /// Settings.
    pub config: TrainConfig,
    /// The problem split.
    pub split: Split,
    /// Programs per split.
    pub programs: BTreeMap<String, usize>,
    /// Per epoch.
    pub epochs: Vec<EpochLog>,
    /// The epoch whose weights were kept (0 = the untrained identity).
    pub best_epoch: usize,
    /// Validation loss and margin of the identity (the base model) for comparison.
    pub base_valid_loss: Option<f64>,
    /// See `base_valid_loss`.
    pub base_valid_margin: Option<f64>,
    /// Wall seconds, embedding and training.
    pub seconds: f64,
    /// Where the training steps ran (`cpu`, `cuda:0`); absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_groups_drop_what_the_form_undoes_and_keep_what_it_leaves() {
        let original =
            "def total(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n    return acc\n";
        // A renaming and a re-indentation: the same canonical form as the original.
        let renamed = "def total(xs):\n  s = 0\n  for v in xs:\n    s += v\n  return s\n";
        // A for loop as a while loop: the form keeps it, so it stays a training program.
        let looped = "def total(xs):\n    acc = 0\n    i = 0\n    while i < len(xs):\n        acc += xs[i]\n        i += 1\n    return acc\n";
        let group = |texts: &[&str]| Group {
            problem: "p".into(),
            texts: texts.iter().map(|t| t.to_string()).collect(),
        };
        let out = canonical_groups(vec![group(&[original, renamed, looped])]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].texts.len(), 2, "{:#?}", out[0].texts);
        assert_eq!(out[0].texts[0], crate::detector::canon::canonical(original));
        assert!(
            !out[0].texts[0].contains("acc"),
            "names are numbered: {}",
            out[0].texts[0]
        );
        // A group whose every variant the form undoes has nothing left to train on.
        assert!(canonical_groups(vec![group(&[original, renamed])]).is_empty());
    }
}
