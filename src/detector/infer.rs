//! Model directories that other tools exported, read without an `equimorph.toml`: optimum's
//! `optimum-cli export onnx` (feature extraction or sequence classification) and
//! sentence-transformers' ONNX backend. What the model is comes from its graph (inputs and
//! outputs); pooling from sentence-transformers' `1_Pooling/config.json`, normalisation from
//! its `modules.json`; the longest input from `sentence_bert_config.json`,
//! `tokenizer_config.json` or `config.json`. `equimorph models inspect DIR` shows the result
//! and writes the `equimorph.toml` that pins it.

use super::model::{environment, ModelConfig, ModelKind};
use super::DetectorError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Graph inputs equimorph can feed.
pub const KNOWN_INPUTS: [&str; 3] = ["input_ids", "attention_mask", "token_type_ids"];

/// Poolings equimorph computes over per-token states.
pub const POOLINGS: [&str; 3] = ["mean", "cls", "max"];

/// A configuration read from a directory, with how each part was decided.
#[derive(Debug, Clone)]
pub struct Inferred {
    /// The configuration.
    pub config: ModelConfig,
    /// One line per decision ("pooling mean: 1_Pooling/config.json").
    pub notes: Vec<String>,
}

fn bad(path: &Path, message: impl Into<String>) -> DetectorError {
    DetectorError::Model {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The ONNX file of an exported directory.
fn find_graph(dir: &Path) -> Result<String, DetectorError> {
    for name in ["model.onnx", "onnx/model.onnx"] {
        if dir.join(name).is_file() {
            return Ok(name.to_string());
        }
    }
    let mut found = Vec::new();
    for sub in ["", "onnx"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "onnx") {
                let name = e.file_name().to_string_lossy().into_owned();
                found.push(if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                });
            }
        }
    }
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(bad(
            dir,
            "no equimorph.toml and no ONNX graph (model.onnx or onnx/model.onnx): export the model \
             with `optimum-cli export onnx` or sentence-transformers' ONNX backend, or write an \
             equimorph.toml",
        )),
        _ => Err(bad(
            dir,
            format!(
                "no equimorph.toml and several ONNX graphs ({}): name one in an equimorph.toml \
                 (`equimorph models inspect DIR --model FILE` writes it)",
                found.join(", ")
            ),
        )),
    }
}

/// Pooling and normalisation from sentence-transformers' module files.
fn st_pooling(
    dir: &Path,
    notes: &mut Vec<String>,
) -> Result<(Option<String>, bool), DetectorError> {
    let modules = read_json(&dir.join("modules.json"));
    let module_path = |kind: &str| -> Option<String> {
        modules.as_ref()?.as_array()?.iter().find_map(|m| {
            let t = m.get("type")?.as_str()?;
            t.ends_with(kind).then(|| {
                m.get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            })
        })
    };
    let normalize = module_path(".Normalize").is_some();
    if normalize {
        notes.push("normalize: modules.json has a Normalize module".into());
    }
    let pooling_dir = module_path(".Pooling").unwrap_or_else(|| "1_Pooling".into());
    let file = dir.join(&pooling_dir).join("config.json");
    let Some(cfg) = read_json(&file) else {
        return Ok((None, normalize));
    };
    let on = |k: &str| cfg.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mode = if on("pooling_mode_cls_token") {
        "cls"
    } else if on("pooling_mode_mean_tokens") {
        "mean"
    } else if on("pooling_mode_max_tokens") {
        "max"
    } else {
        let named: Vec<&str> = cfg
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, v)| k.starts_with("pooling_mode") && v.as_bool() == Some(true))
                    .map(|(k, _)| k.as_str())
                    .collect()
            })
            .unwrap_or_default();
        return Err(bad(
            &file,
            format!(
                "pooling {named:?} is not one equimorph computes (mean, cls, max): pass \
                 `equimorph models inspect DIR --pooling mean|cls|max` to pin another"
            ),
        ));
    };
    notes.push(format!("pooling {mode}: {pooling_dir}/config.json"));
    Ok((Some(mode.to_string()), normalize))
}

/// The longest input, and where it came from.
fn max_length(dir: &Path, notes: &mut Vec<String>) -> usize {
    let num = |v: Option<&Value>| v.and_then(Value::as_u64).map(|n| n as usize);
    let config = read_json(&dir.join("config.json"));
    // RoBERTa-style models offset positions by the padding id + 1.
    let positions = config.as_ref().and_then(|c| {
        let p = num(c.get("max_position_embeddings"))?;
        let roberta = c
            .get("model_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.contains("roberta"));
        let offset = if roberta {
            num(c.get("pad_token_id")).unwrap_or(1) + 1
        } else {
            0
        };
        Some(p.saturating_sub(offset))
    });
    let candidates = [
        (
            "sentence_bert_config.json max_seq_length",
            read_json(&dir.join("sentence_bert_config.json"))
                .and_then(|c| num(c.get("max_seq_length"))),
        ),
        (
            "tokenizer_config.json model_max_length",
            read_json(&dir.join("tokenizer_config.json"))
                .and_then(|c| num(c.get("model_max_length")))
                .filter(|&n| n <= 100_000),
        ),
        ("config.json max_position_embeddings", positions),
    ];
    for (from, n) in candidates {
        if let Some(n) = n.filter(|&n| n > 0) {
            let n = positions.map_or(n, |p| n.min(p));
            notes.push(format!("max_length {n}: {from}"));
            return n;
        }
    }
    notes.push("max_length 512: nothing in the directory says (the BERT default)".into());
    512
}

/// The clone class of a classifier, from `config.json`'s `id2label`.
fn clone_label(dir: &Path, notes: &mut Vec<String>) -> usize {
    let labels = read_json(&dir.join("config.json"))
        .and_then(|c| c.get("id2label").cloned())
        .and_then(|v| v.as_object().cloned());
    if let Some(labels) = labels {
        for (id, name) in &labels {
            let n = name.as_str().unwrap_or("").to_lowercase();
            let negated = ["not", "non", "no_"].iter().any(|x| n.contains(x));
            if (n.contains("clone") || n.contains("duplicate") || n.contains("similar")) && !negated
            {
                if let Ok(i) = id.parse() {
                    notes.push(format!("clone_label {i}: config.json id2label {name}"));
                    return i;
                }
            }
        }
    }
    notes.push("clone_label 1: the second logit (no label names a clone class)".into());
    1
}

/// Reads `dir` as an exported model directory without an `equimorph.toml`; `pooling`
/// overrides what the directory says.
pub fn infer(dir: &Path, pooling: Option<&str>) -> Result<Inferred, DetectorError> {
    let mut notes = Vec::new();
    let model = find_graph(dir)?;
    notes.push(format!("model {model}"));
    let tokenizer = "tokenizer.json";
    if !dir.join(tokenizer).is_file() {
        return Err(bad(
            dir,
            "no tokenizer.json: export the model with its fast tokenizer (optimum and \
             sentence-transformers write tokenizer.json by default)",
        ));
    }
    let path: PathBuf = dir.join(&model);
    let env = environment()?;
    let build = || -> ort::Result<ort::session::Session> {
        let builder = ort::session::Session::builder(env)?;
        builder.with_intra_threads(1)?.commit_from_file(&path)
    };
    let session = build().map_err(|e| bad(&path, format!("ONNX Runtime cannot load it: {e}")))?;
    let inputs: Vec<String> = session
        .inputs()
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    let outputs: Vec<(String, Option<usize>)> = session
        .outputs()
        .iter()
        .map(|o| {
            (
                o.name().to_string(),
                o.dtype().tensor_shape().map(|s| s.len()),
            )
        })
        .collect();
    let unknown: Vec<&String> = inputs
        .iter()
        .filter(|i| !KNOWN_INPUTS.contains(&i.as_str()))
        .collect();
    if unknown.is_empty() && !inputs.iter().any(|i| i == "input_ids") {
        return Err(bad(
            &path,
            format!("the graph has no input_ids input (inputs: {inputs:?})"),
        ));
    }
    if !unknown.is_empty() {
        return Err(bad(
            &path,
            format!(
                "the graph has inputs {unknown:?} that equimorph cannot feed (it feeds {KNOWN_INPUTS:?}); \
                 export it without them (e.g. without past key values)"
            ),
        ));
    }
    let has = |name: &str, rank: usize| outputs.iter().any(|(n, r)| n == name && *r == Some(rank));
    let output_names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
    let (kind, embedding_output, hidden_output, logits_output) = if has("logits", 2) {
        notes.push("kind cross-encoder: the graph outputs logits (sequence classification)".into());
        (
            ModelKind::CrossEncoder,
            None,
            None,
            Some("logits".to_string()),
        )
    } else if has("sentence_embedding", 2) {
        notes.push(
            "kind embedding: the graph outputs sentence_embedding (pooled in the graph)".into(),
        );
        (
            ModelKind::Embedding,
            Some("sentence_embedding".to_string()),
            None,
            None,
        )
    } else if let Some(h) = ["last_hidden_state", "token_embeddings"]
        .into_iter()
        .find(|n| has(n, 3))
    {
        notes.push(format!(
            "kind embedding: the graph outputs {h} (per-token states, pooled by equimorph)"
        ));
        (ModelKind::Embedding, None, Some(h.to_string()), None)
    } else {
        return Err(bad(
            &path,
            format!(
                "cannot tell what this model is: its outputs are {output_names:?}, but equimorph \
                 looks for logits [batch, labels] (a classifier, e.g. optimum's \
                 text-classification export), sentence_embedding [batch, hidden], or \
                 last_hidden_state / token_embeddings [batch, sequence, hidden] (a feature \
                 extractor); write an equimorph.toml naming the output"
            ),
        ));
    };
    let (st_pool, normalize) = st_pooling(dir, &mut notes)?;
    let pooling = match (pooling, st_pool) {
        (Some(p), _) => {
            if !POOLINGS.contains(&p) {
                return Err(bad(dir, format!("pooling {p:?}: use one of {POOLINGS:?}")));
            }
            notes.push(format!("pooling {p}: given"));
            p.to_string()
        }
        (None, Some(p)) => p,
        (None, None) => {
            if hidden_output.is_some() {
                notes.push(
                    "pooling mean: no 1_Pooling/config.json (optimum's feature extraction; \
                     sentence-transformers models mostly mean-pool)"
                        .into(),
                );
            }
            "mean".into()
        }
    };
    let max_length = max_length(dir, &mut notes);
    let clone_label = if kind == ModelKind::CrossEncoder {
        clone_label(dir, &mut notes)
    } else {
        1
    };
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "model".into());
    let mut ordered: Vec<String> = KNOWN_INPUTS
        .iter()
        .filter(|k| inputs.iter().any(|i| i == *k))
        .map(|s| s.to_string())
        .collect();
    ordered.dedup();
    Ok(Inferred {
        config: ModelConfig {
            name,
            kind,
            model,
            tokenizer: tokenizer.into(),
            pooling,
            normalize,
            max_length,
            inputs: ordered,
            embedding_output,
            hidden_output,
            logits_output,
            gpu_model: None,
            head: None,
            projection: None,
            max_batch: None,
            clone_label,
        },
        notes,
    })
}
