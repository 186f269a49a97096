//! Model directories (`model.onnx`, `tokenizer.json`, `equimorph.toml`) and the ONNX Runtime
//! shared library.

use super::DetectorError;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::OnceLock;

/// What a model is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Bi-encoder: M = max(0, cos(e(x), e(x'))).
    Embedding,
    /// The pair as one sequence: M = softmax(logits)[clone].
    CrossEncoder,
    /// Both encoded, first-token vectors concatenated, dense → tanh → 2-way (CodeXGLUE BCB).
    Siamese,
}

/// `equimorph.toml` of a model directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Display name.
    pub name: String,
    /// What the model is.
    pub kind: ModelKind,
    /// ONNX file, relative to the directory.
    pub model: String,
    /// HF tokenizers file, relative to the directory.
    pub tokenizer: String,
    /// `mean`, `cls` or `max`: how equimorph pools `hidden_output` when the graph has no
    /// pooled output (informational when it has one).
    #[serde(default = "default_pooling")]
    pub pooling: String,
    /// Whether the model's own pipeline normalises its embeddings (cosine similarity does not
    /// depend on it; trained heads do).
    #[serde(default)]
    pub normalize: bool,
    /// Longer inputs are truncated to this many tokens.
    pub max_length: usize,
    /// Graph inputs fed by equimorph (subset of input_ids, attention_mask, token_type_ids).
    pub inputs: Vec<String>,
    /// Output holding pooled embeddings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_output: Option<String>,
    /// Output holding per-token states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_output: Option<String>,
    /// Output holding classification logits (cross-encoder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logits_output: Option<String>,
    /// The same model as a fused fp16 graph (fp32 inputs and outputs) that `--device cuda`
    /// runs by default (`models/export.py --gpu` writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_model: Option<String>,
    /// Separate head graph (siamese).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// A trained projection applied to every pooled embedding (`equimorph train --mode head`
    /// writes it): input `embedding`, output `projected`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<String>,
    /// Largest batch for this model (1 for dynamically quantised int8 models, whose activation
    /// scales span the whole batch: batch 1 keeps their vectors reproducible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_batch: Option<usize>,
    /// Index of the "clone" class in the logits.
    #[serde(default = "default_clone_label")]
    pub clone_label: usize,
}

fn default_pooling() -> String {
    "mean".into()
}

fn default_clone_label() -> usize {
    1
}

impl ModelConfig {
    /// The configuration as `equimorph.toml` text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

/// A model directory with its parsed configuration.
#[derive(Debug, Clone)]
pub struct ModelDir {
    /// The directory.
    pub dir: PathBuf,
    /// The configuration file that was read (the directory itself when it was inferred).
    pub config_file: PathBuf,
    /// Its content.
    pub config: ModelConfig,
    /// How each part was decided, when the directory has no `equimorph.toml`.
    pub inferred: Option<Vec<String>>,
}

// `ModelDir::open` lives in `infer.rs`: opening a directory without `equimorph.toml` infers its
// configuration, and inference reads the configuration types defined here.
impl ModelDir {
    /// Path of a file named by the configuration.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// equimorph's data directory: `$EQUIMORPH_HOME`, else `.equimorph` in the source tree, or the
/// user's cache for an installed binary ([`crate::install::Layout::default_home`]).
pub fn home() -> PathBuf {
    crate::install::home()
}

/// Where the default models live.
pub fn models_dir() -> PathBuf {
    home().join("models")
}

/// The ONNX Runtime version equimorph is built against.
pub const ORT_VERSION: &str = "1.31.1";

/// The runtime library: `$ORT_DYLIB_PATH`, else the one `make setup` (`equimorph setup` when
/// installed) puts in [`home`].
pub fn runtime_library() -> PathBuf {
    std::env::var_os("ORT_DYLIB_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(format!("onnxruntime/libonnxruntime.so.{ORT_VERSION}")))
}

/// The process-wide ONNX Runtime environment (the library can be loaded once per process).
pub fn environment() -> Result<&'static ort::environment::Environment, DetectorError> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    let lib = runtime_library();
    ENV.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!(
                "ONNX Runtime not found at {} (install it with `{}`, or set ORT_DYLIB_PATH to a \
                 libonnxruntime.so {ORT_VERSION})",
                lib.display(),
                crate::install::layout().setup_command()
            ));
        }
        ort::init_from(&lib)
            .map_err(|e| format!("cannot load ONNX Runtime from {}: {e}", lib.display()))?
            .with_name("equimorph")
            .build()
            .map_err(|e| format!("cannot start ONNX Runtime from {}: {e}", lib.display()))
    })
    .as_ref()
    .map_err(|e| DetectorError::Runtime(e.clone()))
}
