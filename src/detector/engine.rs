//! Running tokenized sequences through ONNX Runtime sessions: batch layout, one session per
//! device, only the output that is read fetched back.
//!
//! Two layouts ([`BatchShapes`]):
//! - `Exact`: one caller's sequences sorted by length, cut into batches, each padded to its
//!   longest. Least padding; a sequence's vector depends (in the last bits) on which sequences
//!   share its batch, so it is reproducible only when the same caller asks the same thing.
//! - `Fixed`: every batch has `batch` rows (unused rows repeat the first) and a length that is a
//!   function of the sequence alone (rounded up to [`LENGTH_BUCKET`] tokens). A sequence's
//!   vector is then the same whatever else is in its batch, which is what lets several tasks
//!   share batches ([`super::batcher`]) without changing any result. A batch with few members
//!   may have fewer rows where a canary check on the device showed that row count gives every
//!   sequence the same row ([`Engine::checked_row_counts`]): fewer filler rows.

use super::DetectorError;
use ndarray::{Array2, Axis};
use ort::session::{OutputSelector, RunOptions, Session, SessionInputValue};
use ort::value::Tensor;
use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One output row per sequence.
pub type Rows = Vec<Vec<f32>>;

/// Fixed-shape batches pad sequences to a multiple of this many tokens.
pub const LENGTH_BUCKET: usize = 32;

/// How batches are laid out (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum BatchShapes {
    /// Padded to each batch's longest.
    Exact,
    /// Length buckets, and full rows unless a smaller row count passed the device's check.
    Fixed,
}

/// One tokenized sequence, as fed to the model (the attention mask is all ones: no padding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed {
    /// Token ids.
    pub ids: Vec<u32>,
    /// Token type ids.
    pub types: Vec<u32>,
    /// Whether the tokenizer cut the text to the model's window.
    pub truncated: bool,
}

impl Feed {
    /// Tokens in the sequence.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the sequence has no tokens.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// A hash of what the model reads (ids and token types).
    pub fn key(&self) -> super::InputKey {
        let mut h = blake3::Hasher::new();
        for v in self.ids.iter().chain(&self.types) {
            h.update(&v.to_le_bytes());
        }
        // The split between ids and types.
        h.update(&(self.ids.len() as u64).to_le_bytes());
        super::InputKey(*h.finalize().as_bytes())
    }
}

/// Time and counts spent in the engine.
#[derive(Debug, Default)]
pub struct EngineCounters {
    /// Real sequences run.
    pub sequences: AtomicU64,
    /// Rows run that only fill a fixed-shape batch.
    pub filler_rows: AtomicU64,
    /// Session runs.
    pub batches: AtomicU64,
    /// Nanoseconds inside `Session::run` (summed over devices).
    pub run_nanos: AtomicU64,
    /// Nanoseconds building inputs and copying outputs.
    pub copy_nanos: AtomicU64,
}

/// Sessions of one graph, one per device, and the names it is fed and read by.
pub struct Engine {
    sessions: Vec<Mutex<Session>>,
    inputs: Vec<String>,
    /// Counters.
    pub counters: EngineCounters,
    /// How 3-D outputs become rows.
    pooling: Pooling,
}

/// One batch: indices into the caller's feeds, and its padded shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Which feeds, in row order.
    pub members: Vec<usize>,
    /// Rows of the tensor (≥ members; the rest repeat the first member).
    pub rows: usize,
    /// Tokens per row.
    pub length: usize,
}

/// The padded length of a sequence of `len` tokens in a fixed-shape batch: rounded up to a
/// bucket, but never past `window` (the model's window: a BERT graph has no position beyond it).
pub fn bucket_length(len: usize, window: usize) -> usize {
    (len.max(1).div_ceil(LENGTH_BUCKET) * LENGTH_BUCKET).min(window.max(len).max(1))
}

/// Lays out `lengths` in batches of at most `batch` rows (`window`: the model's window).
pub fn plan(lengths: &[usize], batch: usize, shapes: BatchShapes, window: usize) -> Vec<Batch> {
    let batch = batch.max(1);
    match shapes {
        BatchShapes::Exact => {
            let mut order: Vec<usize> = (0..lengths.len()).collect();
            order.sort_by_key(|&i| (lengths[i], i));
            order
                .chunks(batch)
                .map(|c| Batch {
                    members: c.to_vec(),
                    rows: c.len(),
                    length: c.iter().map(|&i| lengths[i]).max().unwrap_or(1).max(1),
                })
                .collect()
        }
        BatchShapes::Fixed => plan_fixed(lengths, &[batch], window),
    }
}

/// Lays out `lengths` in fixed-shape batches (`window`: the model's window). `row_counts` are
/// the row counts a batch may have, the largest last: each batch takes the smallest that holds
/// its members. Only row counts at which the device gives every sequence the same row as in a
/// full batch may be listed ([`Engine::checked_row_counts`]).
pub fn plan_fixed(lengths: &[usize], row_counts: &[usize], window: usize) -> Vec<Batch> {
    let bucket_length = |l: usize| bucket_length(l, window);
    let batch = row_counts.iter().copied().max().unwrap_or(1).max(1);
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| (bucket_length(lengths[i]), i));
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let length = bucket_length(lengths[order[start]]);
        let mut end = start;
        while end < order.len()
            && end - start < batch
            && bucket_length(lengths[order[end]]) == length
        {
            end += 1;
        }
        // Full unless a smaller row count was checked: rows can vary with the row count
        // (ONNX Runtime splits work by it; on 2 CPU cores a row alone differs from the same
        // row among 8), never with a fixed shape.
        let members = end - start;
        let rows = row_counts
            .iter()
            .copied()
            .filter(|&r| r >= members)
            .min()
            .unwrap_or(batch);
        out.push(Batch {
            members: order[start..end].to_vec(),
            rows,
            length,
        });
        start = end;
    }
    out
}

/// How a 3-D output (per-token states) becomes one row per sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The first token's state (CLS; what siamese heads read).
    First,
    /// The mean over the sequence's own tokens (padding excluded).
    Mean,
    /// The element-wise maximum over the sequence's own tokens.
    Max,
}

impl Pooling {
    /// `mean`, `max`, or anything else (`cls`) as the first token.
    pub fn named(name: &str) -> Self {
        match name {
            "mean" => Pooling::Mean,
            "max" => Pooling::Max,
            _ => Pooling::First,
        }
    }

    /// Pools `states` ([tokens, hidden]) over its first `len` tokens.
    fn pool(self, states: ndarray::ArrayView2<'_, f32>, len: usize) -> Vec<f32> {
        let len = len.clamp(1, states.nrows().max(1));
        let rows = states.slice(ndarray::s![..len, ..]);
        match self {
            Pooling::First => states.row(0).to_vec(),
            Pooling::Mean => rows
                .mean_axis(Axis(0))
                .map(|m| m.to_vec())
                .unwrap_or_default(),
            Pooling::Max => rows
                .fold_axis(Axis(0), f32::NEG_INFINITY, |a, &b| a.max(b))
                .to_vec(),
        }
    }
}

impl Engine {
    /// An engine over `sessions` (at least one), fed `inputs`; 3-D outputs give their first
    /// token's state ([`Engine::with_pooling`] changes that).
    pub fn new(sessions: Vec<Session>, inputs: Vec<String>) -> Self {
        Engine {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            inputs,
            counters: EngineCounters::default(),
            pooling: Pooling::First,
        }
    }

    /// The engine with 3-D outputs pooled by `pooling`.
    pub fn with_pooling(mut self, pooling: Pooling) -> Self {
        self.pooling = pooling;
        self
    }

    /// The row counts below `batch`, among 1, 2, 4, …, at which every canary gets bit for bit
    /// the row of `output` it gets in a full batch of `batch` rows, on every device; `None`
    /// where full batches themselves give a canary different rows in different company (then
    /// no request may share a batch with another). `canaries` should hold sequences of every
    /// length bucket, several per bucket. Meant for a detector being opened, with nothing else
    /// running: the counters are set back to their values before the check.
    pub fn checked_row_counts(
        &self,
        canaries: &[Feed],
        batch: usize,
        window: usize,
        output: &str,
    ) -> Result<Option<Vec<usize>>, DetectorError> {
        let batch = batch.max(1);
        let c = &self.counters;
        let counters = [
            &c.sequences,
            &c.filler_rows,
            &c.batches,
            &c.run_nanos,
            &c.copy_nanos,
        ];
        let before: Vec<u64> = counters.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let mut groups: std::collections::BTreeMap<usize, Vec<&Feed>> = Default::default();
        for f in canaries.iter().filter(|f| !f.is_empty()) {
            groups
                .entry(bucket_length(f.len(), window))
                .or_default()
                .push(f);
        }
        if groups.is_empty() {
            // Nothing to check with: full batches only, as before any check.
            return Ok(Some(vec![batch]));
        }
        let smaller: Vec<usize> = std::iter::successors(Some(1usize), |r| r.checked_mul(2))
            .take_while(|&r| r < batch)
            .collect();
        let mut agree = vec![true; smaller.len()];
        let mut independent = true;
        for device in 0..self.sessions.len() {
            for (&length, group) in &groups {
                let group: Vec<&Feed> = group.iter().copied().take(batch).collect();
                let n = group.len();
                let run = |members: Vec<usize>, rows: usize| {
                    let b = Batch {
                        members,
                        rows,
                        length,
                    };
                    self.run_batch(device, &group, &b, output)
                };
                let reference = run((0..n).collect(), batch)?;
                // The same sequences in reverse order, so each has other neighbours.
                let reversed = run((0..n).rev().collect(), batch)?;
                if reversed.iter().rev().ne(reference.iter()) {
                    independent = false;
                }
                for (ok, &rows) in agree.iter_mut().zip(&smaller) {
                    let members: Vec<usize> = (0..n).rev().take(rows).collect();
                    let got = run(members.clone(), rows)?;
                    if members
                        .iter()
                        .zip(&got)
                        .any(|(&i, row)| reference.get(i) != Some(row))
                    {
                        *ok = false;
                    }
                }
            }
        }
        for (counter, value) in counters.iter().zip(before) {
            counter.store(value, Ordering::Relaxed);
        }
        Ok(independent.then(|| {
            smaller
                .iter()
                .zip(&agree)
                .filter(|(_, &ok)| ok)
                .map(|(&r, _)| r)
                .chain(std::iter::once(batch))
                .collect()
        }))
    }

    /// Devices (sessions) the engine spreads batches over.
    pub fn devices(&self) -> usize {
        self.sessions.len()
    }

    /// Runs `batches` of `feeds` and returns, for every feed, the row of `output` (3-D outputs
    /// pooled by the engine's [`Pooling`]). Batches are spread over the sessions, one thread each.
    pub fn run(
        &self,
        feeds: &[&Feed],
        batches: &[Batch],
        output: &str,
    ) -> Result<Vec<Vec<f32>>, DetectorError> {
        let mut rows: Vec<Vec<f32>> = vec![Vec::new(); feeds.len()];
        if self.sessions.len() == 1 || batches.len() == 1 {
            for b in batches {
                let got = self.run_batch(0, feeds, b, output)?;
                for (&i, row) in b.members.iter().zip(got) {
                    rows[i] = row;
                }
            }
            return Ok(rows);
        }
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<(usize, Result<Rows, DetectorError>)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for device in 0..self.sessions.len() {
                let (next, done) = (&next, &done);
                scope.spawn(move || loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(b) = batches.get(k) else { break };
                    let got = self.run_batch(device, feeds, b, output);
                    let failed = got.is_err();
                    done.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((k, got));
                    if failed {
                        break;
                    }
                });
            }
        });
        for (k, got) in done.into_inner().unwrap_or_else(|p| p.into_inner()) {
            for (&i, row) in batches[k].members.iter().zip(got?) {
                rows[i] = row;
            }
        }
        Ok(rows)
    }

    fn run_batch(
        &self,
        device: usize,
        feeds: &[&Feed],
        b: &Batch,
        output: &str,
    ) -> Result<Vec<Vec<f32>>, DetectorError> {
        let t0 = Instant::now();
        let (n, len) = (b.rows.max(b.members.len()), b.length.max(1));
        let mut tokens = vec![0usize; n];
        let mut ids = Array2::<i64>::zeros((n, len));
        let mut mask = Array2::<i64>::zeros((n, len));
        let mut types = Array2::<i64>::zeros((n, len));
        for r in 0..n {
            // Rows past the members repeat the first: a real sequence, never an empty one.
            let f = feeds[b.members[r.min(b.members.len() - 1)]];
            tokens[r] = f.ids.len().min(len);
            for (c, (&id, &t)) in f.ids.iter().zip(&f.types).take(len).enumerate() {
                ids[[r, c]] = id as i64;
                mask[[r, c]] = 1;
                types[[r, c]] = t as i64;
            }
        }
        let err = |e: ort::Error| DetectorError::Inference(e.to_string());
        let mut inputs: Vec<(Cow<'_, str>, SessionInputValue<'_>)> = Vec::new();
        let (mut ids, mut mask, mut types) = (Some(ids), Some(mask), Some(types));
        for name in &self.inputs {
            let arr = match name.as_str() {
                "input_ids" => ids.take(),
                "attention_mask" => mask.take(),
                _ => types.take(),
            }
            .ok_or_else(|| DetectorError::Inference(format!("input {name} named twice")))?;
            inputs.push((
                Cow::Owned(name.clone()),
                Tensor::from_array(arr).map_err(err)?.into(),
            ));
        }
        // Only the output that is read is computed and copied back (not [B, S, H] states).
        let options = RunOptions::new()
            .map_err(err)?
            .with_outputs(OutputSelector::no_default().with(output));
        let t1 = Instant::now();
        let mut session = self.sessions[device]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let outputs = session.run_with_options(inputs, &options).map_err(err)?;
        let t2 = Instant::now();
        let view = outputs[output].try_extract_array::<f32>().map_err(err)?;
        let mut rows: Vec<Vec<f32>> = match view.ndim() {
            2 => view
                .axis_iter(Axis(0))
                .map(|r| r.iter().copied().collect())
                .collect(),
            3 => view
                .axis_iter(Axis(0))
                .zip(&tokens)
                .map(|(r, &t)| {
                    let states = r.into_dimensionality::<ndarray::Ix2>();
                    states.map(|s| self.pooling.pool(s, t)).unwrap_or_default()
                })
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
        rows.truncate(b.members.len());
        let c = &self.counters;
        c.run_nanos
            .fetch_add((t2 - t1).as_nanos() as u64, Ordering::Relaxed);
        c.copy_nanos.fetch_add(
            ((t1 - t0) + t2.elapsed()).as_nanos() as u64,
            Ordering::Relaxed,
        );
        c.sequences
            .fetch_add(b.members.len() as u64, Ordering::Relaxed);
        c.filler_rows
            .fetch_add((n - b.members.len()) as u64, Ordering::Relaxed);
        c.batches.fetch_add(1, Ordering::Relaxed);
        Ok(rows)
    }
}

/// Shared ownership of an engine (the batcher's thread holds one).
pub type SharedEngine = Arc<Engine>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_counts_only_the_sequences_own_tokens() {
        // The third row is padding: it must not move the mean or the max.
        let states = ndarray::arr2(&[[1.0f32, 2.0], [3.0, -4.0], [100.0, 100.0]]);
        assert_eq!(Pooling::Mean.pool(states.view(), 2), vec![2.0, -1.0]);
        assert_eq!(Pooling::Max.pool(states.view(), 2), vec![3.0, 2.0]);
        assert_eq!(Pooling::First.pool(states.view(), 2), vec![1.0, 2.0]);
        assert_eq!(Pooling::named("cls"), Pooling::First);
    }

    #[test]
    fn exact_plans_sort_by_length_and_cut() {
        let p = plan(&[5, 3, 9, 3], 2, BatchShapes::Exact, 512);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].members, vec![1, 3]);
        assert_eq!((p[0].rows, p[0].length), (2, 3));
        assert_eq!(p[1].members, vec![0, 2]);
        assert_eq!(p[1].length, 9);
    }

    #[test]
    fn checked_smaller_row_counts_cut_filler_and_keep_buckets() {
        // 3 sequences of one bucket take 4 rows, not 8; 9 take a full 8 and then 1.
        let p = plan_fixed(&[5, 6, 7], &[1, 4, 8], 512);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].members.len(), p[0].rows, p[0].length), (3, 4, 32));
        let p = plan_fixed(&[3; 9], &[1, 4, 8], 512);
        let shapes: Vec<(usize, usize)> = p.iter().map(|b| (b.members.len(), b.rows)).collect();
        assert_eq!(shapes, vec![(8, 8), (1, 1)]);
        // Without checked smaller counts every batch is full.
        assert!(plan_fixed(&[5, 6, 7], &[8], 512)
            .iter()
            .all(|b| b.rows == 8));
        assert_eq!(
            plan(&[5, 6, 7], 8, BatchShapes::Fixed, 512),
            plan_fixed(&[5, 6, 7], &[8], 512)
        );
    }

    #[test]
    fn fixed_plans_keep_buckets_apart_and_fill_rows() {
        let p = plan(&[5, 40, 31, 33, 1], 4, BatchShapes::Fixed, 512);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].members, vec![0, 2, 4]);
        assert_eq!((p[0].rows, p[0].length), (4, 32));
        assert_eq!(p[1].members, vec![1, 3]);
        assert_eq!((p[1].rows, p[1].length), (4, 64));
        // A sequence's shape is a function of its own length only.
        assert_eq!(bucket_length(0, 512), 32);
        assert_eq!(bucket_length(32, 512), 32);
        assert_eq!(bucket_length(33, 512), 64);
        // Never past the window.
        assert_eq!(bucket_length(90, 90), 90);
        assert_eq!(bucket_length(70, 100), 96);
    }
}
