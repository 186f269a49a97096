//! Detectors backed by an ONNX model run through ONNX Runtime (`ort`), on CPU or on one or
//! more CUDA devices.
//!
//! Texts are tokenized in parallel (rayon) and each text's tokens are kept in a bounded cache,
//! so a text counted for `--window`/`--max-growth` is not tokenized again when it is scored.
//! Where the tokenizer allows it, a text's tokens are assembled from its lines' cached tokens
//! ([`super::lines`]): a candidate shares most lines with its parent.
//! Only the output a detector kind reads is computed and copied back ([`super::engine`]). On
//! CUDA the model's fused fp16 graph (`gpu_model`) runs unless fp32 is asked for.

use super::batcher::{Batcher, BatcherSettings};
use super::engine::{plan, BatchShapes, Engine, Feed, Pooling, LENGTH_BUCKET};
use super::lines::{LineCounts, LineTokens};
use super::model::{environment, runtime_library, ModelDir, ModelKind, ORT_VERSION};
use super::{Detector, DetectorError, DetectorStats, Device, InputKey};
use crate::program::ProgramHash;
use ndarray::{Array2, Axis};
use ort::session::Session;
use ort::value::Tensor;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

/// Which graph of a model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    /// fp16 graph on CUDA when the model has one, fp32 otherwise.
    #[default]
    Auto,
    /// The fp32 graph.
    Fp32,
    /// The fused fp16 graph, on any device.
    Fp16,
}

/// Options for loading a model.
#[derive(Debug, Clone)]
pub struct OnnxOptions {
    /// Where it runs: the CPU, or one or more CUDA devices (one session each; batches are
    /// spread over them).
    pub devices: Vec<Device>,
    /// Intra-op threads (CPU).
    pub threads: usize,
    /// Sequences per inference call.
    pub batch_size: usize,
    /// Which graph runs.
    pub precision: Precision,
    /// Batch layout; `None`: fixed for the fused fp16 graph on CUDA (fastest there, and
    /// measured to give a sequence the same vector in any batch), exact otherwise (fastest on
    /// CPU; the fp32 graph on CUDA was measured to vary in the last bits with its company
    /// even at fixed shapes, so its requests are never merged).
    pub shapes: Option<BatchShapes>,
    /// How long a scoring request waits for others to share its batches (fixed shapes only).
    pub max_wait: Duration,
    /// Assemble a text's tokens from its lines' cached tokens where the tokenizer allows it
    /// ([`LineTokens`]); the ids are the same either way.
    pub line_tokens: bool,
}

impl Default for OnnxOptions {
    fn default() -> Self {
        OnnxOptions {
            devices: vec![Device::Cpu],
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            batch_size: 8,
            precision: Precision::Auto,
            shapes: None,
            max_wait: Duration::from_millis(2),
            line_tokens: true,
        }
    }
}

impl OnnxOptions {
    /// The batch layout these options give for a model that has (`fused`) or lacks a fused
    /// GPU graph.
    pub fn batch_shapes(&self, fused: bool) -> BatchShapes {
        self.shapes.unwrap_or(
            if self.on_gpu() && fused && self.precision != Precision::Fp32 {
                BatchShapes::Fixed
            } else {
                BatchShapes::Exact
            },
        )
    }

    /// Whether the options name a GPU.
    pub fn on_gpu(&self) -> bool {
        self.devices.iter().any(|d| matches!(d, Device::Cuda(_)))
    }
}

/// Texts whose tokens are kept (a cached sequence is a few KiB).
const FEED_CACHE: usize = 16_384;

/// Tokenizer time and the token caches.
#[derive(Default)]
struct Tokens {
    feeds: Mutex<HashMap<ProgramHash, Arc<Feed>>>,
    counts: Mutex<HashMap<ProgramHash, usize>>,
    nanos: AtomicU64,
    truncated: AtomicU64,
    /// Lines' tokens, where the tokenizer lets a text's tokens be assembled from them.
    lines: Option<LineTokens>,
}

/// An ONNX clone detector (embedding, cross-encoder or siamese).
pub struct OnnxDetector {
    model: ModelDir,
    tokenizer: Tokenizer,
    /// The same tokenizer without truncation (token counts for constraints).
    counter: Tokenizer,
    engine: Arc<Engine>,
    batcher: Option<Batcher>,
    head: Option<Mutex<Session>>,
    /// A trained projection of the pooled embeddings (embedding models).
    projection: Option<Mutex<Session>>,
    options: OnnxOptions,
    graph: String,
    anchors: Mutex<HashMap<ProgramHash, Vec<f32>>>,
    tokens: Tokens,
    scoring_nanos: AtomicU64,
    /// The batch layout in use.
    shapes: BatchShapes,
    /// Row counts a fixed-shape batch may have (checked at open).
    fixed_rows: Vec<usize>,
}

fn session(
    model: &ModelDir,
    file: &str,
    device: Device,
    threads: usize,
) -> Result<Session, DetectorError> {
    let env = environment()?;
    let path = model.file(file);
    if !path.is_file() {
        return Err(DetectorError::Model {
            path,
            message: "model file is missing".into(),
        });
    }
    let build = || -> ort::Result<Session> {
        let builder = Session::builder(env)?;
        let mut builder = match device {
            // No spinning: between calls, ONNX Runtime's idle threads would spin on the cores
            // that apply transforms and run tests. `make run` on 2 cores, side by side: 307 →
            // 259 s wall, transforms 68 → 45 s, oracle 27 → 16 s, the same results. (Back-to-back
            // inference alone, nothing else running, is 5–10 % slower a sequence without it.)
            Device::Cpu => builder
                .with_intra_threads(threads.max(1))?
                .with_intra_op_spinning(false)?,
            // On a GPU the CPU threads only launch kernels: one thread, and no spinning (idle
            // spinning threads would take the cores that tokenize, transform and test).
            // Deterministic kernels: a sequence's vector must not vary from run to run.
            Device::Cuda(id) => builder
                .with_intra_threads(1)?
                .with_intra_op_spinning(false)?
                .with_inter_op_spinning(false)?
                .with_deterministic_compute(true)?
                .with_execution_providers([ort::ep::CUDA::default()
                    .with_device_id(id)
                    .build()
                    .error_on_failure()])?,
        };
        builder.commit_from_file(&path)
    };
    if let Device::Cuda(_) = device {
        use ort::ep::ExecutionProvider;
        if !ort::ep::CUDA::is_available().unwrap_or(false) {
            return Err(DetectorError::Device(format!(
                "the CUDA execution provider is not in {} (the CPU wheel has none): install onnxruntime-gpu=={ORT_VERSION} \
                 and point ORT_DYLIB_PATH at its libonnxruntime.so",
                runtime_library().display()
            )));
        }
    }
    build().map_err(|e| match device {
        Device::Cuda(id) => DetectorError::Device(format!(
            "cannot run {} on CUDA device {id}: {e}",
            path.display()
        )),
        Device::Cpu => DetectorError::Model {
            path: path.clone(),
            message: format!("ONNX Runtime cannot load it: {e}"),
        },
    })
}

fn names(list: &[ort::value::Outlet]) -> Vec<String> {
    list.iter().map(|o| o.name().to_string()).collect()
}

fn tokenizer_error(path: &std::path::Path) -> impl Fn(tokenizers::Error) -> DetectorError + '_ {
    move |e| DetectorError::Tokenizer {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

impl OnnxDetector {
    /// Loads the model directory (or `.toml` file) at `path`.
    pub fn open(path: &std::path::Path, options: OnnxOptions) -> Result<Self, DetectorError> {
        let model = ModelDir::open(path)?;
        let cfg = &model.config;
        let tok_path = model.file(&cfg.tokenizer);
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(tokenizer_error(&tok_path))?;
        tokenizer.with_padding(None);
        // A copy that never truncates, to count what a text would need.
        let mut counter = tokenizer.clone();
        counter
            .with_truncation(None)
            .map_err(tokenizer_error(&tok_path))?;
        let lines = if options.line_tokens {
            LineTokens::for_tokenizer(&counter)
        } else {
            None
        };
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: cfg.max_length,
                ..Default::default()
            }))
            .map_err(tokenizer_error(&tok_path))?;
        let graph = graph_to_run(&model, &options)?;
        if options.devices.is_empty() {
            return Err(DetectorError::Device("no device given".into()));
        }
        let sessions = options
            .devices
            .iter()
            .map(|&d| session(&model, &graph, d, options.threads))
            .collect::<Result<Vec<_>, _>>()?;
        // The graph must have exactly the inputs we feed and the outputs we read.
        let (have_in, have_out) = (names(sessions[0].inputs()), names(sessions[0].outputs()));
        let mut wanted_out: Vec<&String> = [
            &cfg.embedding_output,
            &cfg.hidden_output,
            &cfg.logits_output,
        ]
        .into_iter()
        .flatten()
        .collect();
        match cfg.kind {
            ModelKind::Embedding
                if cfg.embedding_output.is_none() && cfg.hidden_output.is_none() =>
            {
                wanted_out.push(&cfg.model)
            }
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
                    "equimorph.toml names inputs {:?} and outputs {:?}, but {graph} has inputs {:?} and outputs {:?} \
                     (equimorph can feed {:?})",
                    cfg.inputs, wanted_out, have_in, have_out, known
                ),
            });
        }
        let head = match (cfg.kind, &cfg.head) {
            (ModelKind::Siamese, Some(h)) => Some(Mutex::new(session_checked(
                &model,
                h,
                options.devices[0],
                options.threads,
                ("a siamese head", "features", "logits"),
            )?)),
            (ModelKind::Siamese, None) => {
                return Err(DetectorError::Mismatch {
                    path: model.config_file.clone(),
                    message: "a siamese model needs `head = \"head.onnx\"`".into(),
                })
            }
            _ => None,
        };
        // Siamese heads read the first token; an embedding model without a pooled output is
        // pooled here as it declares.
        let pooling = match cfg.kind {
            ModelKind::Siamese => Pooling::First,
            _ => Pooling::named(&cfg.pooling),
        };
        let engine = Arc::new(Engine::new(sessions, cfg.inputs.clone()).with_pooling(pooling));
        let projection = match (cfg.kind, &cfg.projection) {
            (ModelKind::Embedding, Some(p)) => Some(Mutex::new(session_checked(
                &model,
                p,
                options.devices[0],
                options.threads,
                (
                    "a projection",
                    super::projection::INPUT,
                    super::projection::OUTPUT,
                ),
            )?)),
            (_, Some(_)) => {
                return Err(DetectorError::Mismatch {
                    path: model.config_file.clone(),
                    message: "`projection` applies to embedding models only".into(),
                })
            }
            _ => None,
        };
        let shapes = options.batch_shapes(graph != model.config.model);
        let mut det = OnnxDetector {
            model,
            tokenizer,
            counter,
            engine,
            batcher: None,
            head,
            projection,
            options,
            graph,
            anchors: Mutex::new(HashMap::new()),
            tokens: Tokens {
                lines,
                ..Tokens::default()
            },
            scoring_nanos: AtomicU64::new(0),
            shapes,
            fixed_rows: Vec::new(),
        };
        if det.shapes == BatchShapes::Fixed {
            // Requests share batches only where the device gives a sequence the same row in
            // any company, checked here on canaries rather than assumed.
            let batch = batch_rows(&det.options, &det.model);
            let window = det.model.config.max_length;
            let canaries = det.canary_feeds()?;
            let checked =
                det.engine
                    .checked_row_counts(&canaries, batch, window, det.batch_output())?;
            match checked {
                Some(rows) => {
                    det.batcher = Some(Batcher::start(
                        det.engine.clone(),
                        BatcherSettings {
                            batch,
                            smaller_rows: rows.iter().copied().filter(|&r| r < batch).collect(),
                            window,
                            max_wait: det.options.max_wait,
                        },
                    ));
                    det.fixed_rows = rows;
                }
                None => {
                    tracing::warn!(
                        "{}: on this device a sequence's output varies with the other sequences \
                         in its fixed-shape batch; requests are batched alone (exact shapes)",
                        det.graph
                    );
                    det.shapes = BatchShapes::Exact;
                }
            }
        }
        Ok(det)
    }

    /// The graph file that runs (`model` or `gpu_model`).
    pub fn graph(&self) -> &str {
        &self.graph
    }

    /// Forgets every cached tokenization (benchmarks measure the tokenizer each round).
    pub fn clear_token_cache(&self) {
        self.tokens
            .feeds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self.tokens
            .counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        if let Some(lines) = &self.tokens.lines {
            lines.clear();
        }
    }

    /// Lines whose tokens were reused and lines tokenized, or `None` where this detector's
    /// tokenizer tokenizes whole texts.
    pub fn line_counts(&self) -> Option<LineCounts> {
        self.tokens.lines.as_ref().map(LineTokens::counts)
    }

    /// The batch layout in use: the options' layout, or exact where the device failed the
    /// fixed-shape canary check.
    pub fn batch_shapes(&self) -> BatchShapes {
        self.shapes
    }

    /// The engine that runs batches (benchmarks and checks run plans on it directly).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The row counts a fixed-shape batch may have, the full one last (checked on the device
    /// at open); empty with exact shapes.
    pub fn fixed_rows(&self) -> &[usize] {
        &self.fixed_rows
    }

    /// The output batches are run for (the vector, or a cross-encoder's logits).
    fn batch_output(&self) -> &str {
        match self.model.config.kind {
            ModelKind::CrossEncoder => self
                .model
                .config
                .logits_output
                .as_deref()
                .unwrap_or("logits"),
            _ => self.vector_output(),
        }
    }

    /// Canary sequences for the fixed-shape check: three of every length bucket up to the
    /// window, cut at different offsets from a real program's tokens.
    fn canary_feeds(&self) -> Result<Vec<Feed>, DetectorError> {
        let window = self.model.config.max_length.max(1);
        let program = "def total(xs, k=2):\n    s = 0\n    for i, x in enumerate(xs):\n        if i % k == 0:\n            s += x * (i + 1)\n    return s // max(1, len(xs))\n";
        // The program is about 60 tokens: enough copies for the window and the offsets.
        let text = program.repeat(window / 16 + 2);
        let e = self
            .counter
            .encode_fast(text.as_str(), true)
            .map_err(|e| DetectorError::Inference(format!("tokenizer: {e}")))?;
        let (ids, types) = (e.get_ids(), e.get_type_ids());
        let mut out = Vec::new();
        for top in (LENGTH_BUCKET..window + LENGTH_BUCKET).step_by(LENGTH_BUCKET) {
            let top = top.min(window);
            for (offset, shorter) in [(0, 0), (5, 3), (11, 7)] {
                let len = top.saturating_sub(shorter).max(1);
                let range = offset..offset + len;
                if let (Some(i), Some(t)) = (ids.get(range.clone()), types.get(range)) {
                    out.push(Feed {
                        ids: i.to_vec(),
                        types: t.to_vec(),
                        truncated: false,
                    });
                }
            }
        }
        Ok(out)
    }

    fn feed_of(e: &Encoding) -> Feed {
        Feed {
            ids: e.get_ids().to_vec(),
            types: e.get_type_ids().to_vec(),
            truncated: !e.get_overflowing().is_empty(),
        }
    }

    /// Tokenizes `texts` with `tokenizer` (`anchor`: each text as the pair (anchor, text)), one
    /// text per task on rayon's pool: every core can take one. (A separate pool of 4 threads
    /// was measured slower: a whole attack on an H100 scored 1,900–2,400 candidates/s against
    /// 2,800–3,200 this way, where a single thread tokenizes about 2,200 programs/s.)
    fn encode_all(
        &self,
        tokenizer: &Tokenizer,
        texts: &[&str],
        anchor: Option<&str>,
    ) -> Result<Vec<Encoding>, DetectorError> {
        let t0 = Instant::now();
        let out: Result<Vec<Encoding>, _> = texts
            .par_iter()
            .map(|t| match (&self.tokens.lines, anchor) {
                (Some(lines), None) => lines.encode(tokenizer, &self.counter, t, None),
                (Some(lines), Some(a)) => lines.encode(tokenizer, &self.counter, a, Some(t)),
                (None, None) => tokenizer.encode_fast(*t, true),
                (None, Some(a)) => tokenizer.encode_fast((a, *t), true),
            })
            .collect();
        self.tokens
            .nanos
            .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out.map_err(|e| DetectorError::Inference(format!("tokenizer: {e}")))
    }

    /// The model's input for each text, from the cache or tokenized (in parallel) and cached;
    /// truncated inputs are counted in the detector's stats.
    pub fn feeds(&self, texts: &[&str]) -> Result<Vec<Arc<Feed>>, DetectorError> {
        let feeds = self.cached_feeds(texts)?;
        let cut = feeds.iter().filter(|f| f.truncated).count();
        self.tokens
            .truncated
            .fetch_add(cut as u64, Ordering::Relaxed);
        Ok(feeds)
    }

    /// [`Self::feeds`] without counting (the input keys read them before scoring does).
    fn cached_feeds(&self, texts: &[&str]) -> Result<Vec<Arc<Feed>>, DetectorError> {
        let hashes: Vec<ProgramHash> = texts.iter().map(|t| ProgramHash::of(t)).collect();
        let mut out: Vec<Option<Arc<Feed>>> = {
            let cache = self.tokens.feeds.lock().unwrap_or_else(|p| p.into_inner());
            hashes.iter().map(|h| cache.get(h).cloned()).collect()
        };
        let missing = distinct_missing(&hashes, |i| out[i].is_none());
        if !missing.is_empty() {
            let wanted: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let encoded = self.encode_all(&self.tokenizer, &wanted, None)?;
            let mut cache = self.tokens.feeds.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() + missing.len() > FEED_CACHE {
                cache.clear();
            }
            let mut fresh: HashMap<ProgramHash, Arc<Feed>> = HashMap::new();
            for (&i, e) in missing.iter().zip(&encoded) {
                let f = Arc::new(Self::feed_of(e));
                cache.insert(hashes[i], f.clone());
                fresh.insert(hashes[i], f);
            }
            for (slot, h) in out.iter_mut().zip(&hashes) {
                if slot.is_none() {
                    *slot = fresh.get(h).cloned();
                }
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// Rows of `output` for `feeds`: through the shared batcher (fixed shapes) or batched
    /// here (exact shapes).
    fn rows(&self, feeds: Vec<Arc<Feed>>, output: &str) -> Result<Vec<Vec<f32>>, DetectorError> {
        let t0 = Instant::now();
        let rows = match &self.batcher {
            Some(b) => b.rows(feeds, output),
            None => {
                let refs: Vec<&Feed> = feeds.iter().map(|f| f.as_ref()).collect();
                let lengths: Vec<usize> = refs.iter().map(|f| f.len()).collect();
                let batches = plan(
                    &lengths,
                    batch_rows(&self.options, &self.model),
                    BatchShapes::Exact,
                    self.model.config.max_length,
                );
                self.engine.run(&refs, &batches, output)
            }
        };
        self.scoring_nanos
            .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        rows
    }

    /// The vector used for one program (pooled embedding, or first-token state for siamese).
    fn vector_output(&self) -> &str {
        let cfg = &self.model.config;
        match cfg.kind {
            ModelKind::Siamese => cfg.hidden_output.as_deref().unwrap_or("last_hidden_state"),
            _ => cfg
                .embedding_output
                .as_deref()
                .or(cfg.hidden_output.as_deref())
                .unwrap_or("sentence_embedding"),
        }
    }

    /// Vectors of `texts` (uncached). With a shared batcher, a long list is tokenized and
    /// handed over a batch at a time, so tokenizing the next part overlaps the device's work.
    pub fn vectors(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, DetectorError> {
        let rows = self.pooled_vectors(texts)?;
        match &self.projection {
            Some(p) => project(p, rows),
            None => Ok(rows),
        }
    }

    /// Pooled vectors before any trained projection: what `equimorph train --mode head`
    /// learns its projection on.
    pub fn pooled_vectors(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, DetectorError> {
        let output = self.vector_output();
        // Parts of at least 256: each is tokenized in parallel while the device runs the last.
        let part = (batch_rows(&self.options, &self.model) * self.engine.devices()).max(256);
        match &self.batcher {
            Some(b) if texts.len() > part => {
                let t0 = Instant::now();
                let mut pending = Vec::new();
                for chunk in texts.chunks(part) {
                    pending.push(b.submit(self.feeds(chunk)?, output)?);
                }
                let mut rows = Vec::with_capacity(texts.len());
                for p in pending {
                    rows.extend(p.wait()?);
                }
                self.scoring_nanos
                    .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
                Ok(rows)
            }
            _ => {
                let feeds = self.feeds(texts)?;
                self.rows(feeds, output)
            }
        }
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

/// Indices of the texts that `missing` says are not cached, each distinct text once.
fn distinct_missing(hashes: &[ProgramHash], missing: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    (0..hashes.len())
        .filter(|&i| missing(i) && seen.insert(hashes[i]))
        .collect()
}

/// The graph file that `options` run: the fused fp16 graph for `--precision fp16`, and for
/// `auto` on CUDA when the model has one (a named but missing one falls back to fp32, with a
/// warning); the fp32 graph otherwise.
fn graph_to_run(model: &ModelDir, options: &OnnxOptions) -> Result<String, DetectorError> {
    let cfg = &model.config;
    match (options.precision, &cfg.gpu_model) {
        (Precision::Fp16, Some(g)) => Ok(g.clone()),
        (Precision::Fp16, None) => Err(DetectorError::Model {
            path: model.config_file.clone(),
            message: "--precision fp16 needs a fused fp16 graph (`gpu_model` in equimorph.toml; \
                      models/export.py --gpu writes one)"
                .into(),
        }),
        (Precision::Auto, Some(g)) if options.on_gpu() => {
            if model.file(g).is_file() {
                Ok(g.clone())
            } else {
                tracing::warn!(
                    "{}: the fused GPU graph {g} is missing, so the fp32 graph runs \
                     (models/export.py --gpu writes it)",
                    model.config_file.display()
                );
                Ok(cfg.model.clone())
            }
        }
        _ => Ok(cfg.model.clone()),
    }
}

/// Rows per batch: the option, capped by the model's `max_batch`.
fn batch_rows(options: &OnnxOptions, model: &ModelDir) -> usize {
    options
        .batch_size
        .min(model.config.max_batch.unwrap_or(usize::MAX))
        .max(1)
}

/// A session of a second graph (siamese head, trained projection) that must have exactly
/// `input` and at least `output`.
fn session_checked(
    model: &ModelDir,
    file: &str,
    device: Device,
    threads: usize,
    (what, input, output): (&str, &str, &str),
) -> Result<Session, DetectorError> {
    let s = session(model, file, device, threads)?;
    let (i, o) = (names(s.inputs()), names(s.outputs()));
    if i != [input] || !o.iter().any(|n| n == output) {
        return Err(DetectorError::Mismatch {
            path: model.file(file),
            message: format!(
                "{what} needs input `{input}` and output `{output}`; it has inputs {i:?}, outputs {o:?}"
            ),
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
        Ok(self.token_counts(&[text])?.pop().flatten())
    }

    fn token_counts(&self, texts: &[&str]) -> Result<Vec<Option<usize>>, DetectorError> {
        let hashes: Vec<ProgramHash> = texts.iter().map(|t| ProgramHash::of(t)).collect();
        let mut out: Vec<Option<usize>> = {
            let counts = self.tokens.counts.lock().unwrap_or_else(|p| p.into_inner());
            hashes.iter().map(|h| counts.get(h).copied()).collect()
        };
        let missing = distinct_missing(&hashes, |i| out[i].is_none());
        if missing.is_empty() {
            return Ok(out);
        }
        let wanted: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        let encoded = self.encode_all(&self.counter, &wanted, None)?;
        let window = self.model.config.max_length;
        let mut counts = self.tokens.counts.lock().unwrap_or_else(|p| p.into_inner());
        if counts.len() + missing.len() > FEED_CACHE * 4 {
            counts.clear();
        }
        let mut feeds = self.tokens.feeds.lock().unwrap_or_else(|p| p.into_inner());
        if feeds.len() + missing.len() > FEED_CACHE {
            feeds.clear();
        }
        for (&i, e) in missing.iter().zip(&encoded) {
            counts.insert(hashes[i], e.len());
            // A text that fits the window tokenizes the same with truncation: keep its input.
            if e.len() <= window {
                feeds.insert(hashes[i], Arc::new(Self::feed_of(e)));
            }
        }
        for (slot, h) in out.iter_mut().zip(&hashes) {
            if slot.is_none() {
                *slot = counts.get(h).copied();
            }
        }
        Ok(out)
    }

    fn window(&self) -> Option<usize> {
        Some(self.model.config.max_length)
    }

    /// Embedding and siamese models read each text alone: its (truncated) tokens are the key.
    /// A cross-encoder reads the pair, cut to fit together, so it gives no key.
    fn input_keys(&self, texts: &[&str]) -> Result<Vec<Option<InputKey>>, DetectorError> {
        if self.model.config.kind == ModelKind::CrossEncoder {
            return Ok(vec![None; texts.len()]);
        }
        Ok(self
            .cached_feeds(texts)?
            .iter()
            .map(|f| Some(f.key()))
            .collect())
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
                let enc = self.encode_all(&self.tokenizer, candidates, Some(anchor))?;
                let feeds: Vec<Arc<Feed>> =
                    enc.iter().map(|e| Arc::new(Self::feed_of(e))).collect();
                let cut = feeds.iter().filter(|f| f.truncated).count();
                self.tokens
                    .truncated
                    .fetch_add(cut as u64, Ordering::Relaxed);
                let out = self
                    .model
                    .config
                    .logits_output
                    .as_deref()
                    .unwrap_or("logits");
                Ok(self
                    .rows(feeds, out)?
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

    fn shares_batches(&self) -> bool {
        self.batcher.is_some()
    }

    fn stats(&self) -> DetectorStats {
        let c = &self.engine.counters;
        let secs = |n: &AtomicU64| n.load(Ordering::Relaxed) as f64 / 1e9;
        DetectorStats {
            sequences: c.sequences.load(Ordering::Relaxed),
            batches: c.batches.load(Ordering::Relaxed),
            truncated: self.tokens.truncated.load(Ordering::Relaxed),
            inference_seconds: secs(&c.run_nanos),
            filler_rows: c.filler_rows.load(Ordering::Relaxed),
            tokenize_seconds: secs(&self.tokens.nanos),
            copy_seconds: secs(&c.copy_nanos),
            scoring_seconds: secs(&self.scoring_nanos),
        }
    }
}

/// Runs a projection graph over `rows` (all of one width).
fn project(session: &Mutex<Session>, rows: Vec<Vec<f32>>) -> Result<Vec<Vec<f32>>, DetectorError> {
    use super::projection::{INPUT, OUTPUT};
    if rows.is_empty() {
        return Ok(rows);
    }
    let d = rows[0].len();
    if rows.iter().any(|r| r.len() != d) {
        return Err(DetectorError::BadScores(
            "embeddings of different sizes".into(),
        ));
    }
    let flat: Vec<f32> = rows.into_iter().flatten().collect();
    let n = flat.len() / d.max(1);
    let err = |e: ort::Error| DetectorError::Inference(e.to_string());
    let input = ndarray::Array2::from_shape_vec((n, d), flat)
        .map_err(|e| DetectorError::Inference(e.to_string()))?;
    let mut s = session.lock().unwrap_or_else(|p| p.into_inner());
    let out = s
        .run(ort::inputs![INPUT => ort::value::Tensor::from_array(input).map_err(err)?])
        .map_err(err)?;
    let view = out[OUTPUT].try_extract_array::<f32>().map_err(err)?;
    Ok(view
        .axis_iter(ndarray::Axis(0))
        .map(|r| r.iter().copied().collect())
        .collect())
}
