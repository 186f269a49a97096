//! Clone detectors: M(x, x') ∈ [0, 1], the likelihood that two programs are clones; the
//! search maximises L = 1 − M.
//!
//! - ONNX models through ONNX Runtime ([`onnx`]): embedding (bi-encoder), cross-encoder and
//!   siamese (CodeXGLUE BigCloneBench head), on CPU or CUDA;
//! - classic detectors without a model ([`classic`]): token-multiset Jaccard, SourcererCC-style
//!   overlap, NiCad-style line similarity (which also gives the clone-type tag).

pub mod batcher;
pub mod bench;
pub mod canon;
pub mod classic;
pub mod engine;
pub mod infer;
pub mod lines;
pub mod model;
pub mod onnx;
pub mod projection;
pub mod smooth;

use std::path::PathBuf;
use thiserror::Error;

pub use classic::CloneType;

/// Why a detector could not be built or could not score.
#[derive(Debug, Error)]
pub enum DetectorError {
    /// The detector spec is not understood.
    #[error(
        "unknown detector {0:?}: use minilm, minilm-int8, onnx:PATH, jaccard, sourcerercc or nicad, optionally behind defences: canon:SPEC, smooth:K:SPEC"
    )]
    Spec(String),
    /// ONNX Runtime is missing or does not load.
    #[error("{0}")]
    Runtime(String),
    /// A model file or description is missing or wrong.
    #[error("model {path}: {message}")]
    Model {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The model's inputs/outputs do not match its description.
    #[error("model {path} does not match its description: {message}")]
    Mismatch {
        /// The description file.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// The tokenizer does not load.
    #[error("tokenizer {path} does not load: {message}")]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The requested device cannot be used.
    #[error("{0}")]
    Device(String),
    /// A defence's spec is malformed.
    #[error("{0}")]
    Defence(String),
    /// The SPTs a defence perturbs with do not load.
    #[error("{0}")]
    Transforms(String),
    /// Inference failed.
    #[error("inference failed: {0}")]
    Inference(String),
    /// The detector produced something that is not a score: too few or too many values, NaN or
    /// infinity, a value outside [0, 1], an empty or zero embedding.
    #[error("the detector gave no usable score: {0}")]
    BadScores(String),
}

/// Where models run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    /// ONNX Runtime's CPU execution provider.
    Cpu,
    /// The CUDA execution provider on this GPU.
    Cuda(i32),
}

/// Counters of a detector.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct DetectorStats {
    /// Sequences run through the model.
    pub sequences: u64,
    /// Inference calls.
    pub batches: u64,
    /// Inputs cut to the model's maximum length.
    pub truncated: u64,
    /// Time inside `Session::run` (summed over devices).
    pub inference_seconds: f64,
    /// Rows run only to fill fixed-shape batches.
    pub filler_rows: u64,
    /// Time in the tokenizer (summed over calls; parallel inside a call).
    pub tokenize_seconds: f64,
    /// Time building input tensors and copying outputs.
    pub copy_seconds: f64,
    /// Time callers waited for rows (queueing in a shared batcher included).
    pub scoring_seconds: f64,
}

/// Checks that `scores` holds exactly `expected` finite values in [0, 1]: a fault of the detector
/// must never become a similarity (M = 0 would be a perfect attack).
pub fn check_scores(scores: &[f32], expected: usize) -> Result<(), DetectorError> {
    if scores.len() != expected {
        return Err(DetectorError::BadScores(format!(
            "{} scores for {expected} candidates",
            scores.len()
        )));
    }
    if let Some((i, v)) = scores
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite() || !(0.0..=1.0).contains(*v))
    {
        return Err(DetectorError::BadScores(format!(
            "score {i} of the batch is {v}"
        )));
    }
    Ok(())
}

/// What a detector reads of one text (a hash of its model input): two texts with the same key
/// get the same score against any anchor, so a search scores such a text once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputKey(pub [u8; 32]);

/// A clone detector.
pub trait Detector: Send + Sync {
    /// Display name.
    fn name(&self) -> &str;

    /// Whether M(a, b) = M(b, a) by construction.
    fn symmetric(&self) -> bool;

    /// M(anchor, c) for each candidate (the raw model or measure).
    fn similarities(&self, anchor: &str, candidates: &[&str]) -> Result<Vec<f32>, DetectorError>;

    /// M(anchor, c) for each candidate, where a text identical to the anchor is a clone of it
    /// by definition (M = 1) and is not sent to the model.
    fn score(&self, anchor: &str, candidates: &[&str]) -> Result<Vec<f32>, DetectorError> {
        let others: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|c| *c != anchor)
            .collect();
        let scored = self.similarities(anchor, &others)?;
        check_scores(&scored, others.len())?;
        let mut scored = scored.into_iter();
        candidates
            .iter()
            .map(|c| {
                if *c == anchor {
                    Ok(1.0)
                } else {
                    scored
                        .next()
                        .ok_or_else(|| DetectorError::BadScores("too few scores".into()))
                }
            })
            .collect()
    }

    /// Whether concurrent callers' requests are merged into shared batches (several tasks in
    /// flight then fill the device).
    fn shares_batches(&self) -> bool {
        false
    }

    /// Counters so far.
    fn stats(&self) -> DetectorStats {
        DetectorStats::default()
    }

    /// How many tokens the detector reads from `text` before any truncation; `None` when it
    /// has no tokenizer of its own (the classic measures).
    fn token_count(&self, _text: &str) -> Result<Option<usize>, DetectorError> {
        Ok(None)
    }

    /// [`Detector::token_count`] of each text (a detector with a tokenizer does them at once).
    fn token_counts(&self, texts: &[&str]) -> Result<Vec<Option<usize>>, DetectorError> {
        texts.iter().map(|t| self.token_count(t)).collect()
    }

    /// The most tokens the detector reads (its window); longer texts are truncated.
    fn window(&self) -> Option<usize> {
        None
    }

    /// Each text's [`InputKey`], where the detector can tell that two different texts reach it
    /// as one input (a tokenizer that drops whitespace and case, a window that cuts the
    /// rest); `None` where it cannot, and then every text is scored.
    fn input_keys(&self, texts: &[&str]) -> Result<Vec<Option<InputKey>>, DetectorError> {
        Ok(vec![None; texts.len()])
    }
}

/// Tokens of `text` as `detector` counts them, or the classic tokens of the language `text` is
/// written in (comments aside) for detectors without a tokenizer, so growth limits mean the
/// same for every detector kind.
pub fn tokens_of(detector: &dyn Detector, text: &str) -> Result<usize, DetectorError> {
    Ok(detector
        .token_count(text)?
        .unwrap_or_else(|| classic::token_count(text)))
}

/// A classic detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classic {
    /// Token-multiset Jaccard.
    Jaccard,
    /// SourcererCC-style overlap.
    SourcererCC,
    /// NiCad-style line similarity.
    Nicad,
}

impl Detector for Classic {
    fn name(&self) -> &str {
        match self {
            Classic::Jaccard => "jaccard",
            Classic::SourcererCC => "sourcerercc",
            Classic::Nicad => "nicad",
        }
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn similarities(&self, anchor: &str, candidates: &[&str]) -> Result<Vec<f32>, DetectorError> {
        let f = match self {
            Classic::Jaccard => classic::jaccard_prepared,
            Classic::SourcererCC => classic::sourcerercc_prepared,
            Classic::Nicad => classic::nicad_prepared,
        };
        // The anchor's language (detected once per call) reads every candidate.
        let anchor = classic::Prepared::new(anchor);
        let language = anchor.language();
        Ok(candidates
            .iter()
            .map(|c| f(&anchor, &classic::Prepared::new_as(language, c)))
            .collect())
    }
}

/// Options for building a detector from a spec (what ONNX models are loaded with; the
/// classic detectors take none).
pub type DetectorOptions = onnx::OnnxOptions;

/// Parses a device list: `cpu`, `cuda` (device 0), `cuda:N` or `cuda:N,M,…` (one session per
/// GPU, batches spread over them). A GPU named twice is refused: two sessions on one H100 ran
/// 30× slower than one (451 against 13,641 sequences/s, measured).
pub fn parse_devices(spec: &str) -> Result<Vec<Device>, String> {
    match spec {
        "cpu" => Ok(vec![Device::Cpu]),
        "cuda" => Ok(vec![Device::Cuda(0)]),
        d if d.starts_with("cuda:") => {
            let mut out = Vec::new();
            for part in d[5..].split(',') {
                let id: i32 = part.trim().parse().map_err(|_| {
                    format!("{d:?}: expected cuda:N or cuda:N,M,… with N a GPU index, not {part:?}")
                })?;
                if id < 0 || out.contains(&Device::Cuda(id)) {
                    return Err(format!("{d:?}: GPU {id} is negative or named twice"));
                }
                out.push(Device::Cuda(id));
            }
            Ok(out)
        }
        d => Err(format!("{d:?}: expected cpu, cuda, cuda:N or cuda:N,M,…")),
    }
}

/// The detector behind `spec`'s defences: `spec` without its `canon:` and `smooth:K:`
/// prefixes (the spec itself when it has none).
pub fn inner_spec(spec: &str) -> &str {
    let mut s = spec;
    loop {
        if let Some(rest) = s.strip_prefix("canon:") {
            s = rest;
        } else if let Some((_, rest)) = s
            .strip_prefix("smooth:")
            .and_then(|r| smooth::parse(r).ok())
        {
            s = rest;
        } else {
            return s;
        }
    }
}

/// The spec of `spec` behind the defence `defence` (`canon` or `smooth:K`), checked.
pub fn defended(defence: &str, spec: &str) -> Result<String, DetectorError> {
    let wrapped = format!("{defence}:{spec}");
    match defence.strip_prefix("smooth:") {
        _ if defence == "canon" => Ok(wrapped),
        Some(k) => {
            smooth::parse(&format!("{k}:{spec}"))?;
            Ok(wrapped)
        }
        None => Err(DetectorError::Defence(format!(
            "unknown defence {defence:?}: use canon or smooth:K (K from 1 to {})",
            smooth::MAX_K
        ))),
    }
}

/// The model directory (or `.toml` in one) that `spec` names, behind any defence; `None` for
/// the classic detectors (and for specs that name nothing).
pub fn model_path(spec: &str) -> Option<PathBuf> {
    match inner_spec(spec) {
        "minilm" => Some(model::models_dir().join("minilm")),
        "minilm-int8" => Some(model::models_dir().join("minilm/equimorph-int8.toml")),
        s if s.starts_with("onnx:") && s.len() > 5 => Some(PathBuf::from(&s[5..])),
        _ => None,
    }
}

/// Whether the model that `spec` names has a fused GPU graph (`gpu_model`, present on disk).
pub fn has_gpu_graph(spec: &str) -> bool {
    model_path(spec)
        .and_then(|p| model::ModelDir::open(&p).ok())
        .is_some_and(|m| {
            m.config
                .gpu_model
                .as_ref()
                .is_some_and(|g| m.file(g).is_file())
        })
}

/// Builds the detector named by `spec`: `minilm` (default model), `minilm-int8`, `onnx:PATH`
/// (a model directory or its `.toml`), `jaccard`, `sourcerercc`, `nicad`; `canon:SPEC` reads
/// canonical forms with SPEC ([`canon`]); `smooth:K:SPEC` averages SPEC over K SPT
/// perturbations drawn from the default transform directory ([`smooth`]).
pub fn open(spec: &str, options: DetectorOptions) -> Result<Box<dyn Detector>, DetectorError> {
    if let Some(inner) = spec.strip_prefix("canon:") {
        return Ok(Box::new(canon::CanonDetector::new(open(inner, options)?)));
    }
    if let Some(rest) = spec.strip_prefix("smooth:") {
        let (k, inner) = smooth::parse(rest)?;
        let dir = crate::transform::default_transforms_dir();
        return Ok(Box::new(smooth::SmoothDetector::open(
            open(inner, options)?,
            k,
            &dir,
        )?));
    }
    let onnx_options = options;
    let onnx_at = |path: PathBuf| -> Result<Box<dyn Detector>, DetectorError> {
        if !path.exists() {
            return Err(DetectorError::Model {
                path,
                message: format!(
                    "not found (the default models are installed by `{}`)",
                    crate::install::layout().setup_command()
                ),
            });
        }
        Ok(Box::new(onnx::OnnxDetector::open(
            &path,
            onnx_options.clone(),
        )?))
    };
    if let Some(path) = model_path(spec) {
        return onnx_at(path);
    }
    match spec {
        "jaccard" => Ok(Box::new(Classic::Jaccard)),
        "sourcerercc" => Ok(Box::new(Classic::SourcererCC)),
        "nicad" => Ok(Box::new(Classic::Nicad)),
        s => Err(DetectorError::Spec(s.to_string())),
    }
}
