//! Model directories that other tools exported, read without an `equimorph.toml`: optimum's
//! `optimum-cli export onnx` (feature extraction or sequence classification) and
//! sentence-transformers' ONNX backend. What the model is comes from its graph (inputs and
//! outputs); pooling from sentence-transformers' `1_Pooling/config.json`, normalisation from
//! its `modules.json`; the longest input from `sentence_bert_config.json`,
//! `tokenizer_config.json` or `config.json`. `equimorph models inspect DIR` shows the result
//! and writes the `equimorph.toml` that pins it.

use super::model::{environment, ModelConfig, ModelDir, ModelKind};
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
    /// The graph's input names.
    pub graph_inputs: Vec<String>,
    /// The graph's output names.
    pub graph_outputs: Vec<String>,
    /// The most positions the directory's `config.json` allows (`max_position_embeddings`,
    /// less RoBERTa's offset), when it says.
    pub max_positions: Option<usize>,
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

/// The most positions `config.json` allows, when it says.
fn max_positions(dir: &Path) -> Option<usize> {
    let num = |v: Option<&Value>| v.and_then(Value::as_u64).map(|n| n as usize);
    let config = read_json(&dir.join("config.json"));
    // RoBERTa-style models offset positions by the padding id + 1.
    config.as_ref().and_then(|c| {
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
    })
}

/// The longest input, and where it came from.
fn max_length(dir: &Path, notes: &mut Vec<String>) -> usize {
    let num = |v: Option<&Value>| v.and_then(Value::as_u64).map(|n| n as usize);
    let positions = max_positions(dir);
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
    infer_graph(dir, pooling, None)
}

/// [`infer`] on the graph `model` (a file in `dir`) instead of the one found in the
/// directory, when given (the graph an existing `equimorph.toml` names).
pub fn infer_graph(
    dir: &Path,
    pooling: Option<&str>,
    model: Option<&str>,
) -> Result<Inferred, DetectorError> {
    let mut notes = Vec::new();
    let model = match model {
        Some(m) => {
            notes.push(format!("model {m}: equimorph.toml"));
            m.to_string()
        }
        None => {
            let m = find_graph(dir)?;
            notes.push(format!("model {m}"));
            m
        }
    };
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
        graph_inputs: inputs,
        graph_outputs: outputs.into_iter().map(|(n, _)| n).collect(),
        max_positions: max_positions(dir),
    })
}

/// A key of an existing `equimorph.toml` that an inspection changes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The key.
    pub key: String,
    /// Its value in the file (`None`: the file does not set it).
    pub before: Option<String>,
    /// Its value now (`None`: removed).
    pub after: Option<String>,
    /// Why it changes.
    pub reason: String,
}

/// A key of an existing `equimorph.toml` kept although the inspection alone would say
/// otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The key.
    pub key: String,
    /// Its value in the file (kept).
    pub value: String,
    /// What the inspection alone would write (`None`: it would not set the key).
    pub inferred: Option<String>,
}

/// An existing `equimorph.toml` merged with an inspection of its directory.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The merged configuration.
    pub config: ModelConfig,
    /// The keys that change, each with its reason.
    pub changes: Vec<Change>,
    /// The keys kept although the inspection differs.
    pub kept: Vec<Kept>,
}

/// Keys whose value names a file of the directory.
const FILE_KEYS: [&str; 5] = ["model", "tokenizer", "gpu_model", "head", "projection"];

/// Keys naming an output of the graph.
const OUTPUT_KEYS: [&str; 3] = ["embedding_output", "hidden_output", "logits_output"];

fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The inspection's note on `key` ("pooling cls: 1_Pooling/config.json"), as a reason.
fn note_on(found: &Inferred, key: &str) -> String {
    found
        .notes
        .iter()
        .find(|n| n.starts_with(key))
        .cloned()
        .unwrap_or_else(|| format!("the inspection sets {key}"))
}

/// Merges the `equimorph.toml` text `existing` (read from `file`) of the directory `dir` with
/// `found`, an inspection of the same directory (`pooling`: the pooling the user asked for).
/// Every key the file sets is kept unless the inspection has a reason to change it: a file it
/// names is missing, an output or input it names is not in the graph, `max_length` exceeds the
/// positions `config.json` allows, or `pooling` was asked for. Keys the file does not set are
/// added when the inspection's value differs from the default. Keys the inspection cannot
/// know (`gpu_model`, `head`, `projection`, `max_batch`, `name`) are always kept.
pub fn merge(
    dir: &Path,
    file: &Path,
    existing: &str,
    found: &Inferred,
    pooling: Option<&str>,
) -> Result<Merged, DetectorError> {
    let unreadable = |e: &dyn std::fmt::Display| bad(file, e.to_string());
    // Parsed once as the configuration (unknown keys and missing required ones are errors),
    // once as a table (which keys the file sets).
    let old: ModelConfig = toml::from_str(existing).map_err(|e| unreadable(&e))?;
    let mut table: toml::Table = toml::from_str(existing).map_err(|e| unreadable(&e))?;
    let inferred = match toml::Value::try_from(&found.config).map_err(|e| unreadable(&e))? {
        toml::Value::Table(t) => t,
        _ => return Err(bad(file, "the inspection is not a table")),
    };
    let mut changes = Vec::new();
    let mut kept = Vec::new();
    let mut change =
        |table: &mut toml::Table, key: &str, after: Option<toml::Value>, why: String| {
            let before = table.get(key).map(show);
            match &after {
                Some(v) => table.insert(key.to_string(), v.clone()),
                None => table.remove(key),
            };
            changes.push(Change {
                key: key.to_string(),
                before,
                after: after.as_ref().map(show),
                reason: why,
            });
        };
    let keys: Vec<String> = table.keys().cloned().collect();
    for key in &keys {
        let Some(value) = table.get(key).cloned() else {
            continue;
        };
        let new = inferred.get(key.as_str()).cloned();
        let text = value.as_str().unwrap_or_default().to_string();
        let k = key.as_str();
        if FILE_KEYS.contains(&k) && !dir.join(&text).is_file() {
            // model and tokenizer are required: the inspection's file replaces a missing one.
            let after = if matches!(k, "model" | "tokenizer") {
                new.clone()
            } else {
                None
            };
            change(
                &mut table,
                k,
                after,
                format!("{text} is not a file of the directory"),
            );
        } else if OUTPUT_KEYS.contains(&k) && !found.graph_outputs.contains(&text) {
            // A per-token output the graph has replaces a missing one, even where the
            // inspection alone reads the pooled output.
            let hidden = (k == "hidden_output")
                .then(|| {
                    ["last_hidden_state", "token_embeddings"]
                        .into_iter()
                        .find(|h| found.graph_outputs.iter().any(|o| o == h))
                        .map(|h| toml::Value::String(h.to_string()))
                })
                .flatten();
            change(
                &mut table,
                k,
                new.clone().or(hidden),
                format!(
                    "the graph has no output {text:?} (its outputs: {})",
                    found.graph_outputs.join(", ")
                ),
            );
        } else if k == "inputs" {
            let missing: Vec<String> = old
                .inputs
                .iter()
                .filter(|i| !found.graph_inputs.contains(i))
                .cloned()
                .collect();
            if !missing.is_empty() {
                change(
                    &mut table,
                    k,
                    new.clone(),
                    format!(
                        "the graph has no input {} (its inputs: {})",
                        missing.join(", "),
                        found.graph_inputs.join(", ")
                    ),
                );
            }
        } else if k == "pooling" && pooling.is_some_and(|p| p != old.pooling) {
            change(
                &mut table,
                k,
                new.clone(),
                "asked for with --pooling".into(),
            );
        } else if k == "max_length" && found.max_positions.is_some_and(|p| old.max_length > p) {
            let bound = found.max_positions.unwrap_or(old.max_length);
            change(
                &mut table,
                k,
                Some(toml::Value::Integer(bound as i64)),
                format!("config.json allows at most {bound} positions (max_position_embeddings)"),
            );
        }
        // Kept: say so where the inspection alone would write something else.
        if let Some(now) = table.get(k) {
            if new.as_ref() != Some(now) && k != "name" {
                kept.push(Kept {
                    key: k.to_string(),
                    value: show(now),
                    inferred: new.as_ref().map(show),
                });
            }
        }
    }
    // Keys the file does not set.
    let has_output = |t: &toml::Table| OUTPUT_KEYS.iter().any(|k| t.contains_key(*k));
    let outputs_missing = !has_output(&table);
    for (key, value) in &inferred {
        if table.contains_key(key) {
            continue;
        }
        let k = key.as_str();
        let add = if OUTPUT_KEYS.contains(&k) {
            // The file's own outputs stay; the graph's only when none of them is left.
            outputs_missing
        } else {
            match k {
                "pooling" => value.as_str() != Some("mean"),
                "normalize" => value.as_bool() == Some(true),
                "clone_label" => value.as_integer() != Some(1),
                _ => true,
            }
        };
        if add {
            let why = if OUTPUT_KEYS.contains(&k) {
                format!(
                    "the file names no output the graph has; {}",
                    note_on(found, "kind")
                )
            } else {
                note_on(found, k)
            };
            change(&mut table, k, Some(value.clone()), why);
        }
    }
    // The kind follows the outputs when none of the file's was left.
    if outputs_missing && old.kind != found.config.kind && old.kind != ModelKind::Siamese {
        let value = inferred.get("kind").cloned();
        change(&mut table, "kind", value, note_on(found, "kind"));
        kept.retain(|k| k.key != "kind");
    }
    kept.retain(|k| !changes.iter().any(|c| c.key == k.key));
    let config: ModelConfig = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| unreadable(&e))?;
    Ok(Merged {
        config,
        changes,
        kept,
    })
}

impl ModelDir {
    /// Opens `path`: a model directory (reads `equimorph.toml`, or infers the configuration
    /// of an optimum / sentence-transformers export that has none) or a `.toml` file in one.
    pub fn open(path: &Path) -> Result<Self, DetectorError> {
        if path.is_dir() && !path.join("equimorph.toml").is_file() {
            let found = infer(path, None)?;
            return Ok(ModelDir {
                dir: path.to_path_buf(),
                config_file: path.to_path_buf(),
                config: found.config,
                inferred: Some(found.notes),
            });
        }
        let (dir, file) = if path.is_dir() {
            (path.to_path_buf(), path.join("equimorph.toml"))
        } else {
            (
                path.parent().unwrap_or(Path::new(".")).to_path_buf(),
                path.to_path_buf(),
            )
        };
        let text = std::fs::read_to_string(&file).map_err(|e| DetectorError::Model {
            path: file.clone(),
            message: format!("cannot read the model description: {e}"),
        })?;
        let config: ModelConfig = toml::from_str(&text).map_err(|e| DetectorError::Model {
            path: file.clone(),
            message: e.to_string(),
        })?;
        if !POOLINGS.contains(&config.pooling.as_str()) {
            return Err(DetectorError::Model {
                path: file,
                message: format!("pooling {:?}: use one of {:?}", config.pooling, POOLINGS),
            });
        }
        Ok(ModelDir {
            dir,
            config_file: file,
            config,
            inferred: None,
        })
    }
}
