//! Throughput of an [`OnnxDetector`] as equimorph drives it (tokenization included), and
//! agreement between two runs of the same programs (devices, precisions, batch layouts).

use super::engine::Rows;
use super::onnx::OnnxDetector;
use super::{Detector, DetectorError};
use std::time::Instant;

/// What one measured configuration did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Throughput {
    /// Sequences scored (rounds × programs).
    pub sequences: u64,
    /// Tokens in them (after truncation to the window).
    pub tokens: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Sequences per second.
    pub sequences_per_s: f64,
    /// Tokens per second.
    pub tokens_per_s: f64,
    /// Share of wall time in the tokenizer.
    pub tokenize_share: f64,
    /// Share of wall time inside `Session::run` (summed over devices, so it can pass 1 with
    /// several).
    pub run_share: f64,
    /// Share of wall time building inputs and copying outputs.
    pub copy_share: f64,
    /// Rows run only to fill fixed-shape batches, per real sequence.
    pub filler_per_sequence: f64,
}

/// Scores `texts` `rounds` times from `clients` threads at once (each takes every
/// `clients`-th slice of `request` programs, as concurrent tasks would), tokenizing afresh
/// each round. Returns the figures and the vectors of the last round.
pub fn throughput(
    det: &OnnxDetector,
    texts: &[&str],
    rounds: usize,
    clients: usize,
    request: usize,
) -> Result<(Throughput, Vec<Vec<f32>>), DetectorError> {
    let tokens: u64 = det.feeds(texts)?.iter().map(|f| f.len() as u64).sum();
    let before = det.stats();
    let start = Instant::now();
    let mut last = Vec::new();
    for _ in 0..rounds.max(1) {
        det.clear_token_cache();
        last = vectors_from_clients(det, texts, clients.max(1), request.max(1))?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let after = det.stats();
    let sequences = after.sequences - before.sequences;
    let share = |a: f64, b: f64| (a - b) / seconds;
    Ok((
        Throughput {
            sequences,
            tokens: tokens * rounds.max(1) as u64,
            seconds,
            sequences_per_s: sequences as f64 / seconds,
            tokens_per_s: (tokens * rounds.max(1) as u64) as f64 / seconds,
            tokenize_share: share(after.tokenize_seconds, before.tokenize_seconds),
            run_share: share(after.inference_seconds, before.inference_seconds),
            copy_share: share(after.copy_seconds, before.copy_seconds),
            filler_per_sequence: (after.filler_rows - before.filler_rows) as f64
                / sequences.max(1) as f64,
        },
        last,
    ))
}

/// Vectors of `texts` asked for in slices of `request` by `clients` threads at once.
pub fn vectors_from_clients(
    det: &OnnxDetector,
    texts: &[&str],
    clients: usize,
    request: usize,
) -> Result<Vec<Vec<f32>>, DetectorError> {
    if clients <= 1 {
        return det.vectors(texts);
    }
    let slices: Vec<&[&str]> = texts.chunks(request).collect();
    let mut out: Vec<Vec<Vec<f32>>> = vec![Vec::new(); slices.len()];
    std::thread::scope(|scope| -> Result<(), DetectorError> {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let slices = &slices;
                scope.spawn(move || -> Result<Vec<(usize, Rows)>, DetectorError> {
                    let mut mine = Vec::new();
                    for k in (c..slices.len()).step_by(clients) {
                        mine.push((k, det.vectors(slices[k])?));
                    }
                    Ok(mine)
                })
            })
            .collect();
        for h in handles {
            let got = h
                .join()
                .map_err(|_| DetectorError::Inference("a client thread panicked".into()))??;
            for (k, v) in got {
                out[k] = v;
            }
        }
        Ok(())
    })?;
    Ok(out.into_iter().flatten().collect())
}

/// How far two sets of vectors of the same programs are apart.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Agreement {
    /// Programs compared.
    pub programs: usize,
    /// Smallest cosine between a program's two vectors.
    pub min_cosine: f32,
    /// Largest difference of M = max(0, cos) over every pair of the first 40 programs.
    pub max_abs_diff_m: f32,
    /// Whether every vector is bit-identical.
    pub identical: bool,
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb).max(f32::MIN_POSITIVE)
}

/// Compares `a` and `b`, vectors of the same programs in the same order.
pub fn agreement(a: &[Vec<f32>], b: &[Vec<f32>]) -> Agreement {
    let min_cosine = a
        .iter()
        .zip(b)
        .map(|(x, y)| cos(x, y))
        .fold(f32::INFINITY, f32::min);
    let n = a.len().min(b.len()).min(40);
    let mut max_abs_diff_m = 0f32;
    for i in 0..n {
        for j in 0..n {
            let ma = cos(&a[i], &a[j]).clamp(0.0, 1.0);
            let mb = cos(&b[i], &b[j]).clamp(0.0, 1.0);
            max_abs_diff_m = max_abs_diff_m.max((ma - mb).abs());
        }
    }
    Agreement {
        programs: a.len().min(b.len()),
        min_cosine,
        max_abs_diff_m,
        identical: a == b,
    }
}

/// Whether `det` gives each program the same vector when it is scored with all the others
/// and when it is scored in a different company (every other program, reversed order): the
/// property the shared batcher needs.
pub fn composition_independent(det: &OnnxDetector, texts: &[&str]) -> Result<bool, DetectorError> {
    let all = det.vectors(texts)?;
    let odd: Vec<&str> = texts.iter().rev().step_by(2).copied().collect();
    let again = det.vectors(&odd)?;
    let expected: Vec<&Vec<f32>> = all.iter().rev().step_by(2).collect();
    Ok(again.iter().zip(expected).all(|(a, b)| a == b))
}

/// Texts per second of the tokenizer alone: (one call for all texts, on the detector's
/// tokenizer threads; one call per text). Each is timed twice and the faster kept, so neither
/// pays for the first pass's warm-up.
pub fn tokenizer_pace(det: &OnnxDetector, texts: &[&str]) -> Result<(f64, f64), DetectorError> {
    // Distinct texts only: a repeated one would come from the cache.
    let mut seen = std::collections::HashSet::new();
    let texts: Vec<&str> = texts.iter().copied().filter(|t| seen.insert(*t)).collect();
    let texts = &texts[..];
    let mut best = (0f64, 0f64);
    for _ in 0..2 {
        det.clear_token_cache();
        let t = Instant::now();
        det.feeds(texts)?;
        best.0 = best.0.max(texts.len() as f64 / t.elapsed().as_secs_f64());
        det.clear_token_cache();
        let t = Instant::now();
        for text in texts {
            // Uncached every time: a repeated program must be tokenized again, as in bulk.
            det.clear_token_cache();
            det.feeds(&[text])?;
        }
        best.1 = best.1.max(texts.len() as f64 / t.elapsed().as_secs_f64());
    }
    det.clear_token_cache();
    Ok(best)
}

/// A search's stream of texts: each program, then `per_program` candidates that each edit one
/// of its lines (a different line each time), as one transform step does.
pub fn candidate_stream(programs: &[&str], per_program: usize) -> Vec<String> {
    let mut out = Vec::new();
    for p in programs {
        out.push(p.to_string());
        let lines: Vec<&str> = p.lines().collect();
        for k in 0..per_program {
            let edited = (k * 7) % lines.len().max(1);
            let text: Vec<String> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    if i == edited {
                        format!("{l}  # v{k}")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            out.push(text.join("\n") + "\n");
        }
    }
    out
}

/// Texts per second tokenizing `stream` as a search does, an iteration's `batch` texts per
/// call, from empty caches; the faster of two passes.
pub fn stream_pace(
    det: &OnnxDetector,
    stream: &[&str],
    batch: usize,
) -> Result<f64, DetectorError> {
    let mut best = 0f64;
    for _ in 0..2 {
        det.clear_token_cache();
        let t = Instant::now();
        for chunk in stream.chunks(batch.max(1)) {
            det.feeds(chunk)?;
        }
        best = best.max(stream.len() as f64 / t.elapsed().as_secs_f64());
    }
    det.clear_token_cache();
    Ok(best)
}
