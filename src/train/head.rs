//! Training a linear projection of frozen embeddings with in-batch negatives.
//!
//! For a batch of B (anchor, positive) pairs from B different problems, with z = W·e / |W·e|:
//! s_ij = scale · z_anchor_i · z_positive_j, loss = mean_i (logsumexp_j s_ij − s_ii): every
//! other pair's positive is a negative. Gradients are written out by hand (the model is one
//! matrix), Adam updates W, and all arithmetic is sequential f32, so a seed gives the same
//! weights on any machine with the same embeddings.

use super::{EpochLog, TrainConfig, TrainError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, Ordering};

/// The embeddings of one problem's programs.
pub type Cluster = Vec<Vec<f32>>;

/// A square projection, row-major: `project(e)_k = Σ_i e_i · w[i·d + k]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// Width.
    pub d: usize,
    /// d × d weights.
    pub w: Vec<f32>,
}

impl Projection {
    /// The identity: the base model's own embeddings.
    pub fn identity(d: usize) -> Self {
        let mut w = vec![0f32; d * d];
        for i in 0..d {
            w[i * d + i] = 1.0;
        }
        Projection { d, w }
    }

    /// e · W.
    pub fn apply(&self, e: &[f32]) -> Vec<f32> {
        let d = self.d;
        let mut out = vec![0f32; d];
        for (i, &x) in e.iter().enumerate().take(d) {
            if x != 0.0 {
                let row = &self.w[i * d..(i + 1) * d];
                for (o, &w) in out.iter_mut().zip(row) {
                    *o += x * w;
                }
            }
        }
        out
    }
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// (anchor, positive) index pairs: every program of a cluster with a random other program of
/// it, as (cluster, member, member).
pub(crate) fn pairs<T>(clusters: &[Vec<T>], rng: &mut impl Rng) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (c, members) in clusters.iter().enumerate() {
        let n = members.len();
        if n < 2 {
            continue;
        }
        for a in 0..n {
            let mut p = rng.random_range(0..n - 1);
            if p >= a {
                p += 1;
            }
            out.push((c, a, p));
        }
    }
    out
}

/// The validation batches of a run: fixed by the seed alone, so every epoch (and both training
/// modes) are judged on the same pairs.
pub(crate) fn valid_batches<T>(
    valid: &[Vec<T>],
    cfg: &TrainConfig,
) -> Vec<Vec<(usize, usize, usize)>> {
    let mut vr = rand_chacha::ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x0076_616c_6964);
    let mut p = pairs(valid, &mut vr);
    p.shuffle(&mut vr);
    batches(p, cfg.batch.max(2))
}

/// Cuts shuffled pairs into batches in which no cluster appears twice (its positive would be
/// a false negative); pairs that do not fit wait for a later batch.
pub(crate) fn batches(
    mut pending: Vec<(usize, usize, usize)>,
    size: usize,
) -> Vec<Vec<(usize, usize, usize)>> {
    let mut out = Vec::new();
    while !pending.is_empty() {
        let mut batch = Vec::new();
        let mut used = std::collections::HashSet::new();
        let mut rest = Vec::new();
        for p in pending {
            if batch.len() < size && used.insert(p.0) {
                batch.push(p);
            } else {
                rest.push(p);
            }
        }
        if batch.len() >= 2 {
            out.push(batch);
        } else if !rest.is_empty() && batch.len() < 2 {
            // One cluster left: no negatives for it.
            break;
        }
        pending = rest;
    }
    out
}

/// Loss, margin and (optionally) the gradient of one batch.
struct Step {
    loss: f64,
    margin: f64,
    grad: Option<Vec<f32>>,
}

fn step(
    proj: &Projection,
    clusters: &[Cluster],
    batch: &[(usize, usize, usize)],
    scale: f32,
    with_grad: bool,
) -> Step {
    let d = proj.d;
    let b = batch.len();
    let embed = |(c, m): (usize, usize)| -> (&[f32], Vec<f32>, f32) {
        let e = clusters[c][m].as_slice();
        let u = proj.apply(e);
        let n = norm(&u);
        (e, u, n)
    };
    let anchors: Vec<_> = batch.iter().map(|&(c, a, _)| embed((c, a))).collect();
    let positives: Vec<_> = batch.iter().map(|&(c, _, p)| embed((c, p))).collect();
    let za: Vec<Vec<f32>> = anchors
        .iter()
        .map(|(_, u, n)| u.iter().map(|x| x / n).collect())
        .collect();
    let zp: Vec<Vec<f32>> = positives
        .iter()
        .map(|(_, u, n)| u.iter().map(|x| x / n).collect())
        .collect();
    let mut cos = vec![0f32; b * b];
    for i in 0..b {
        for j in 0..b {
            cos[i * b + j] = dot(&za[i], &zp[j]);
        }
    }
    let mut loss = 0f64;
    let mut g = vec![0f32; b * b];
    let (mut pos, mut neg, mut n_neg) = (0f64, 0f64, 0usize);
    for i in 0..b {
        let row: Vec<f32> = (0..b).map(|j| cos[i * b + j] * scale).collect();
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f32> = row.iter().map(|s| (s - max).exp()).collect();
        let sum: f32 = exps.iter().sum();
        loss += f64::from(max + sum.ln() - row[i]);
        for j in 0..b {
            // d loss_mean / d cos_ij.
            let p = exps[j] / sum;
            g[i * b + j] = (p - if i == j { 1.0 } else { 0.0 }) * scale / b as f32;
            if i == j {
                pos += f64::from(cos[i * b + j]);
            } else {
                neg += f64::from(cos[i * b + j]);
                n_neg += 1;
            }
        }
    }
    let margin = pos / b as f64 - if n_neg > 0 { neg / n_neg as f64 } else { 0.0 };
    let grad = with_grad.then(|| {
        let mut grad = vec![0f32; d * d];
        // dz for anchors and positives, then through the normalisation to u, then to W.
        let mut add = |e: &[f32], z: &[f32], n: f32, dz: &[f32]| {
            let zdz = dot(z, dz);
            let du: Vec<f32> = dz.iter().zip(z).map(|(g, z)| (g - z * zdz) / n).collect();
            for (i, &x) in e.iter().enumerate().take(d) {
                if x != 0.0 {
                    for (k, &u) in du.iter().enumerate() {
                        grad[i * d + k] += x * u;
                    }
                }
            }
        };
        for i in 0..b {
            let mut dza = vec![0f32; d];
            for j in 0..b {
                let gij = g[i * b + j];
                for (o, z) in dza.iter_mut().zip(&zp[j]) {
                    *o += gij * z;
                }
            }
            add(anchors[i].0, &za[i], anchors[i].2, &dza);
        }
        for j in 0..b {
            let mut dzp = vec![0f32; d];
            for i in 0..b {
                let gij = g[i * b + j];
                for (o, z) in dzp.iter_mut().zip(&za[i]) {
                    *o += gij * z;
                }
            }
            add(positives[j].0, &zp[j], positives[j].2, &dzp);
        }
        grad
    });
    Step {
        loss: loss / b as f64,
        margin,
        grad,
    }
}

/// Mean loss and margin of `proj` on fixed validation batches.
pub fn evaluate(
    proj: &Projection,
    clusters: &[Cluster],
    batches: &[Vec<(usize, usize, usize)>],
    scale: f32,
) -> Option<(f64, f64)> {
    if batches.is_empty() {
        return None;
    }
    let (mut loss, mut margin) = (0f64, 0f64);
    for b in batches {
        let s = step(proj, clusters, b, scale, false);
        loss += s.loss;
        margin += s.margin;
    }
    let n = batches.len() as f64;
    Some((loss / n, margin / n))
}

/// What training produced.
pub struct Trained {
    /// The best projection (by validation loss; the last without validation).
    pub projection: Projection,
    /// Per epoch.
    pub epochs: Vec<EpochLog>,
    /// The epoch kept (0 = identity).
    pub best_epoch: usize,
    /// Validation loss and margin of the identity.
    pub base: Option<(f64, f64)>,
}

/// Trains a projection of width `d` on `train` clusters, early-stopping on `valid`; `each`
/// sees every epoch's figures as they come. Stops with [`TrainError::Interrupted`] at the
/// next batch once `stop` is set.
pub fn train(
    d: usize,
    train: &[Cluster],
    valid: &[Cluster],
    cfg: &TrainConfig,
    stop: &AtomicBool,
    mut each: impl FnMut(&EpochLog),
) -> Result<Trained, TrainError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x0074_7261_696e);
    let valid_batches = valid_batches(valid, cfg);
    let mut proj = Projection::identity(d);
    let base = evaluate(&proj, valid, &valid_batches, cfg.scale);
    let mut best = (proj.clone(), 0usize, base.map_or(f64::INFINITY, |b| b.0));
    let (mut m, mut v) = (vec![0f32; d * d], vec![0f32; d * d]);
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut t = 0i32;
    let mut epochs = Vec::new();
    let mut stale = 0usize;
    for epoch in 1..=cfg.epochs {
        let mut p = pairs(train, &mut rng);
        p.shuffle(&mut rng);
        let mut total = 0f64;
        let bs = batches(p, cfg.batch.max(2));
        for b in &bs {
            if stop.load(Ordering::Relaxed) {
                return Err(TrainError::Interrupted);
            }
            let s = step(&proj, train, b, cfg.scale, true);
            total += s.loss;
            let Some(grad) = s.grad else { continue };
            t += 1;
            let (c1, c2) = (1.0 - beta1.powi(t), 1.0 - beta2.powi(t));
            for k in 0..grad.len() {
                let identity = if k / d == k % d { 1.0 } else { 0.0 };
                let g = grad[k] + 2.0 * cfg.decay * (proj.w[k] - identity);
                m[k] = beta1 * m[k] + (1.0 - beta1) * g;
                v[k] = beta2 * v[k] + (1.0 - beta2) * g * g;
                proj.w[k] -= cfg.lr * (m[k] / c1) / ((v[k] / c2).sqrt() + eps);
            }
        }
        let valid_eval = evaluate(&proj, valid, &valid_batches, cfg.scale);
        let log = EpochLog {
            epoch,
            train_loss: if bs.is_empty() {
                0.0
            } else {
                total / bs.len() as f64
            },
            valid_loss: valid_eval.map(|v| v.0),
            valid_margin: valid_eval.map(|v| v.1),
        };
        each(&log);
        epochs.push(log);
        match valid_eval {
            Some((loss, _)) if loss < best.2 => {
                best = (proj.clone(), epoch, loss);
                stale = 0;
            }
            Some(_) => {
                stale += 1;
                if stale >= cfg.patience {
                    break;
                }
            }
            None => best = (proj.clone(), epoch, f64::INFINITY),
        }
    }
    Ok(Trained {
        projection: best.0,
        epochs,
        best_epoch: best.1,
        base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_written_gradient_matches_finite_differences() {
        let clusters: Vec<Cluster> = vec![
            vec![vec![1.0, 0.2, -0.3], vec![0.8, 0.1, 0.4]],
            vec![vec![-0.5, 1.0, 0.2], vec![0.3, 0.9, -0.1]],
            vec![vec![0.1, -0.4, 1.0], vec![0.2, 0.3, 0.7]],
        ];
        let batch = vec![(0, 0, 1), (1, 1, 0), (2, 0, 1)];
        let mut proj = Projection::identity(3);
        proj.w[1] = 0.3;
        proj.w[5] = -0.2;
        let g = step(&proj, &clusters, &batch, 5.0, true).grad.unwrap();
        for (k, &analytic) in g.iter().enumerate() {
            let h = 1e-3;
            let mut plus = proj.clone();
            plus.w[k] += h;
            let mut minus = proj.clone();
            minus.w[k] -= h;
            let numeric = (step(&plus, &clusters, &batch, 5.0, false).loss
                - step(&minus, &clusters, &batch, 5.0, false).loss)
                / (2.0 * f64::from(h));
            assert!(
                (numeric - f64::from(analytic)).abs() < 2e-3,
                "w[{k}]: numeric {numeric}, analytic {analytic}"
            );
        }
    }

    #[test]
    fn batches_never_hold_one_cluster_twice() {
        let p = vec![(0, 0, 1), (0, 1, 0), (1, 0, 1), (2, 0, 1), (1, 1, 0)];
        for b in batches(p, 8) {
            let mut seen = std::collections::HashSet::new();
            assert!(b.iter().all(|x| seen.insert(x.0)), "{b:?}");
        }
    }
}
