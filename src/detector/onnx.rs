//! Detectors backed by an ONNX model run through ONNX Runtime (`ort`), CPU or CUDA.

use super::model::{environment, runtime_library, ModelDir, ModelKind, ORT_VERSION};
use super::{Detector, DetectorError, DetectorStats, Device};
use crate::program::ProgramHash;
use ndarray::{Array2, Axis};
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

/// Options for loading a model.
#[derive(Debug, Clone, Copy)]
pub struct OnnxOptions {
    /// CPU or CUDA.
    pub device: Device,
    /// Intra-op threads.
    pub threads: usize,
    /// Sequences per inference call.
    pub batch_size: usize,
}

/// An ONNX clone detector (embedding, cross-encoder or siamese).
pub struct OnnxDetector {
    model: ModelDir,
    tokenizer: Tokenizer,
    /// The same tokenizer without truncation (token counts for constraints).
    counter: Tokenizer,
    session: Mutex<Session>,
    head: Option<Mutex<Session>>,
    options: OnnxOptions,
    anchors: Mutex<HashMap<ProgramHash, Vec<f32>>>,
    sequences: AtomicU64,
    truncated: AtomicU64,
    nanos: AtomicU64,
    batches: AtomicU64,
}

fn session(model: &ModelDir, file: &str, options: &OnnxOptions) -> Result<Session, DetectorError> {
    let env = environment()?;
    let path = model.file(file);
    if !path.is_file() {
        return Err(DetectorError::Model {
            path,
            message: "model file is missing".into(),
        });
    }
    let build = || -> ort::Result<Session> {
        let mut builder = Session::builder(env)?.with_intra_threads(options.threads.max(1))?;
        if let Device::Cuda(id) = options.device {
            builder = builder.with_execution_providers([ort::ep::CUDA::default()
                .with_device_id(id)
                .build()
                .error_on_failure()])?;
        }
        builder.commit_from_file(&path)
    };
    if let Device::Cuda(_) = options.device {
        use ort::ep::ExecutionProvider;
        if !ort::ep::CUDA::is_available().unwrap_or(false) {
            return Err(DetectorError::Device(format!(
                "the CUDA execution provider is not in {} (the CPU wheel has none): install onnxruntime-gpu=={ORT_VERSION} \
                 and point ORT_DYLIB_PATH at its libonnxruntime.so",
                runtime_library().display()
            )));
        }
    }
    build().map_err(|e| match options.device {
        Device::Cuda(_) => {
            DetectorError::Device(format!("cannot run {} on CUDA: {e}", path.display()))
        }
        Device::Cpu => DetectorError::Model {
            path: path.clone(),
            message: format!("ONNX Runtime cannot load it: {e}"),
        },
    })
}

fn names(list: &[ort::value::Outlet]) -> Vec<String> {
    list.iter().map(|o| o.name().to_string()).collect()
}

impl OnnxDetector {
    /// Loads the model directory (or `.toml` file) at `path`.
    pub fn open(path: &std::path::Path, options: OnnxOptions) -> Result<Self, DetectorError> {
        let model = ModelDir::open(path)?;
        let cfg = &model.config;
        let tok_path = model.file(&cfg.tokenizer);
        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| DetectorError::Tokenizer {
                path: tok_path.clone(),
                message: e.to_string(),
            })?;
        tokenizer.with_padding(None);
        // A copy that never truncates, to count what a text would need.
        let mut counter = tokenizer.clone();
        counter
            .with_truncation(None)
            .map_err(|e| DetectorError::Tokenizer {
                path: tok_path.clone(),
                message: e.to_string(),
            })?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: cfg.max_length,
                ..Default::default()
            }))
            .map_err(|e| DetectorError::Tokenizer {
                path: tok_path.clone(),
                message: e.to_string(),
            })?;
        let session = session(&model, &cfg.model, &options)?;
        // The graph must have exactly the inputs we feed and the outputs we read.
        let (have_in, have_out) = (names(session.inputs()), names(session.outputs()));
        let mut wanted_out: Vec<&String> = [
            &cfg.embedding_output,
            &cfg.hidden_output,
            &cfg.logits_output,
        ]
        .into_iter()
        .flatten()
        .collect();
        match cfg.kind {
            ModelKind::Embedding if cfg.embedding_output.is_none() => wanted_out.push(&cfg.model),
            ModelKind::Siamese if cfg.hidden_output.is_none() => wanted_out.push(&cfg.model),
            ModelKind::CrossEncoder if cfg.logits_output.is_none() => wanted_out.push(&cfg.model),
            _ => {}
        }
        let inputs_ok = cfg.inputs.iter().all(|i| have_in.contains(i))
            && have_in.iter().all(|i| cfg.inputs.contains(i));
        let known = ["input_ids", "attention_mask", "token_type_ids"];
        if !inputs_ok
            || !wanted_out.iter().all(|o| have_out.contains(o))
            || !cfg.inputs.iter().all(|i| known.contains(&i.as_str()))
        {
            return Err(DetectorError::Mismatch {
                path: model.config_file.clone(),
                message: format!(
                    "equimorph.toml names inputs {:?} and outputs {:?}, but the model has inputs {:?} and outputs {:?} \
                     (equimorph can feed {:?})",
                    cfg.inputs, wanted_out, have_in, have_out, known
                ),
            });
        }
        let head = match (cfg.kind, &cfg.head) {
            (ModelKind::Siamese, Some(h)) => {
                Some(Mutex::new(session_checked_head(&model, h, &options)?))
            }
            (ModelKind::Siamese, None) => {
                return Err(DetectorError::Mismatch {
                    path: model.config_file.clone(),
                    message: "a siamese model needs `head = \"head.onnx\"`".into(),
                })
            }
            _ => None,
        };
        Ok(OnnxDetector {
            model,
            tokenizer,
            counter,
            session: Mutex::new(session),
            head,
            options,
            anchors: Mutex::new(HashMap::new()),
            sequences: AtomicU64::new(0),
            truncated: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            batches: AtomicU64::new(0),
        })
    }

    fn encode(&self, text: &str) -> Result<Encoding, DetectorError> {
        let e = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| DetectorError::Inference(format!("tokenizer: {e}")))?;
        self.note_truncation(&e);
        Ok(e)
    }

    fn encode_pair(&self, a: &str, b: &str) -> Result<Encoding, DetectorError> {
        let e = self
            .tokenizer
            .encode((a, b), true)
            .map_err(|e| DetectorError::Inference(format!("tokenizer: {e}")))?;
        self.note_truncation(&e);
        Ok(e)
    }

    fn note_truncation(&self, e: &Encoding) {
        if !e.get_overflowing().is_empty() {
            self.truncated.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs the encoder on `encodings` (one batch, padded to its longest) and returns the
    /// rows of `output` (for 3-D outputs, the first token of each sequence).
    fn run_batch(
        &self,
        encodings: &[&Encoding],
        output: &str,
    ) -> Result<Vec<Vec<f32>>, DetectorError> {
        let n = encodings.len();
        let len = encodings.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Array2::<i64>::zeros((n, len));
        let mut mask = Array2::<i64>::zeros((n, len));
        let mut types = Array2::<i64>::zeros((n, len));
        for (r, e) in encodings.iter().enumerate() {
            for (c, ((&id, &m), &t)) in e
                .get_ids()
                .iter()
                .zip(e.get_attention_mask())
                .zip(e.get_type_ids())
                .enumerate()
            {
                ids[[r, c]] = id as i64;
                mask[[r, c]] = m as i64;
                types[[r, c]] = t as i64;
            }
        }
        let err = |e: ort::Error| DetectorError::Inference(e.to_string());
        let mut inputs: Vec<(Cow<'_, str>, SessionInputValue<'_>)> = Vec::new();
        for name in &self.model.config.inputs {
            let arr = match name.as_str() {
                "input_ids" => ids.clone(),
                "attention_mask" => mask.clone(),
                _ => types.clone(),
            };
            inputs.push((
                Cow::Owned(name.clone()),
                Tensor::from_array(arr).map_err(err)?.into(),
            ));
        }
        let start = Instant::now();
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let outputs = session.run(inputs).map_err(err)?;
        let view = outputs[output].try_extract_array::<f32>().map_err(err)?;
        let rows: Vec<Vec<f32>> = match view.ndim() {
            2 => view
                .axis_iter(Axis(0))
                .map(|r| r.iter().copied().collect())
                .collect(),
            3 => view
                .axis_iter(Axis(0))
                .map(|r| r.index_axis(Axis(0), 0).iter().copied().collect())
                .collect(),
            d => {
                return Err(DetectorError::Inference(format!(
                    "output {output} has {d} dimensions"
                )))
            }
        };
        drop(outputs);
        drop(session);
        if rows.len() != n {
            return Err(DetectorError::BadScores(format!(
                "output {output} has {} rows for a batch of {n}",
                rows.len()
            )));
        }
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.sequences.fetch_add(n as u64, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
        Ok(rows)
    }

    /// Rows of `output` for every encoding, batched in length order to limit padding.
    fn run_sorted(
        &self,
        encodings: &[Encoding],
        output: &str,
    ) -> Result<Vec<Vec<f32>>, DetectorError> {
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| (encodings[i].len(), i));
        let mut rows = vec![Vec::new(); encodings.len()];
        let batch = self
            .options
            .batch_size
            .min(self.model.config.max_batch.unwrap_or(usize::MAX))
            .max(1);
        for chunk in order.chunks(batch) {
            let batch: Vec<&Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
            for (&i, row) in chunk.iter().zip(self.run_batch(&batch, output)?) {
                rows[i] = row;
            }
        }
        Ok(rows)
    }

    /// The vector used for one program (pooled embedding, or first-token state for siamese).
    fn vector_output(&self) -> &str {
        let cfg = &self.model.config;
        match cfg.kind {
            ModelKind::Siamese => cfg.hidden_output.as_deref().unwrap_or("last_hidden_state"),
            _ => cfg
                .embedding_output
                .as_deref()
                .unwrap_or("sentence_embedding"),
        }
    }

    /// Vectors of `texts` (uncached).
    pub fn vectors(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, DetectorError> {
        let enc: Vec<Encoding> = texts
            .iter()
            .map(|t| self.encode(t))
            .collect::<Result<_, _>>()?;
        self.run_sorted(&enc, self.vector_output())
    }

    fn anchor_vector(&self, anchor: &str) -> Result<Vec<f32>, DetectorError> {
        let key = ProgramHash::of(anchor);
        if let Some(v) = self
            .anchors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(v.clone());
        }
        let v = self.vectors(&[anchor])?.pop().unwrap_or_default();
        let mut cache = self.anchors.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() > 4096 {
            cache.clear();
        }
        cache.insert(key, v.clone());
        Ok(v)
    }

    fn clone_probability(&self, logits: &[f32]) -> f32 {
        if logits.len() == 1 {
            return 1.0 / (1.0 + (-logits[0]).exp());
        }
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f32 = exps.iter().sum();
        exps.get(self.model.config.clone_label)
            .copied()
            .unwrap_or(0.0)
            / sum
    }
}

fn session_checked_head(
    model: &ModelDir,
    file: &str,
    options: &OnnxOptions,
) -> Result<Session, DetectorError> {
    let s = session(model, file, options)?;
    let (i, o) = (names(s.inputs()), names(s.outputs()));
    if i != ["features"] || !o.contains(&"logits".to_string()) {
        return Err(DetectorError::Mismatch {
            path: model.file(file),
            message: format!("a siamese head needs input `features` and output `logits`; it has inputs {i:?}, outputs {o:?}"),
        });
    }
    Ok(s)
}

/// The cosine of two embeddings. An empty, zero or non-finite embedding, or two of different
/// sizes, has no cosine: that is the model's fault, reported, never a similarity.
fn cosine(a: &[f32], b: &[f32]) -> Result<f32, DetectorError> {
    if a.is_empty() || a.len() != b.len() {
        return Err(DetectorError::BadScores(format!(
            "embeddings of sizes {} and {}",
            a.len(),
            b.len()
        )));
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !(na.is_finite() && nb.is_finite() && dot.is_finite()) {
        return Err(DetectorError::BadScores(
            "an embedding holds NaN or infinite values".into(),
        ));
    }
    if na == 0.0 || nb == 0.0 {
        return Err(DetectorError::BadScores("an embedding is all zeros".into()));
    }
    Ok(dot / (na * nb))
}

impl Detector for OnnxDetector {
    fn name(&self) -> &str {
        &self.model.config.name
    }

    fn token_count(&self, text: &str) -> Result<Option<usize>, DetectorError> {
        let e = self
            .counter
            .encode(text, true)
            .map_err(|e| DetectorError::Inference(format!("tokenizer: {e}")))?;
        Ok(Some(e.len()))
    }

    fn window(&self) -> Option<usize> {
        Some(self.model.config.max_length)
    }

    fn symmetric(&self) -> bool {
        self.model.config.kind == ModelKind::Embedding
    }

    fn similarities(&self, anchor: &str, candidates: &[&str]) -> Result<Vec<f32>, DetectorError> {
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        match self.model.config.kind {
            ModelKind::Embedding => {
                let a = self.anchor_vector(anchor)?;
                let vs = self.vectors(candidates)?;
                if vs.len() != candidates.len() {
                    return Err(DetectorError::BadScores(format!(
                        "{} embeddings for {} candidates",
                        vs.len(),
                        candidates.len()
                    )));
                }
                vs.iter()
                    .map(|v| cosine(&a, v).map(|c| c.clamp(0.0, 1.0)))
                    .collect()
            }
            ModelKind::CrossEncoder => {
                let enc: Vec<Encoding> = candidates
                    .iter()
                    .map(|c| self.encode_pair(anchor, c))
                    .collect::<Result<_, _>>()?;
                let out = self
                    .model
                    .config
                    .logits_output
                    .as_deref()
                    .unwrap_or("logits");
                Ok(self
                    .run_sorted(&enc, out)?
                    .iter()
                    .map(|l| self.clone_probability(l))
                    .collect())
            }
            ModelKind::Siamese => {
                let a = self.anchor_vector(anchor)?;
                let vs = self.vectors(candidates)?;
                let h = a.len();
                let mut features = Array2::<f32>::zeros((vs.len(), 2 * h));
                for (r, v) in vs.iter().enumerate() {
                    if v.len() != h || h == 0 {
                        return Err(DetectorError::BadScores(format!(
                            "embeddings of sizes {h} and {}",
                            v.len()
                        )));
                    }
                    for c in 0..h {
                        features[[r, c]] = a[c];
                        features[[r, h + c]] = v[c];
                    }
                }
                let err = |e: ort::Error| DetectorError::Inference(e.to_string());
                let head = self
                    .head
                    .as_ref()
                    .ok_or_else(|| DetectorError::Inference("no head".into()))?;
                let mut head = head.lock().unwrap_or_else(|p| p.into_inner());
                let outputs = head
                    .run(ort::inputs!["features" => Tensor::from_array(features).map_err(err)?])
                    .map_err(err)?;
                let logits = outputs["logits"].try_extract_array::<f32>().map_err(err)?;
                Ok(logits
                    .axis_iter(Axis(0))
                    .map(|r| self.clone_probability(&r.iter().copied().collect::<Vec<_>>()))
                    .collect())
            }
        }
    }

    fn stats(&self) -> DetectorStats {
        DetectorStats {
            sequences: self.sequences.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
            truncated: self.truncated.load(Ordering::Relaxed),
            inference_seconds: self.nanos.load(Ordering::Relaxed) as f64 / 1e9,
        }
    }
}
