//! `--mode full`: the whole encoder fine-tuned with the same in-batch-negatives loss
//! (sentence-transformers' MultipleNegativesRankingLoss over mean-pooled, normalised
//! embeddings), in Rust with candle, from the model's safetensors source (a Hugging Face BERT
//! directory: config.json, model.safetensors, tokenizer.json). The best weights (by
//! validation loss) are saved as safetensors beside a copy of the config and tokenizer, which
//! `models/export.py` turns into a model directory.

use super::head::{batches, pairs, valid_batches};
use super::{EpochLog, TrainConfig, TrainError};
use candle_core::{DType, Device, Tensor};
use candle_nn::{Optimizer, VarBuilder, VarMap};

/// The parts of a Hugging Face BERT `config.json` the encoder needs.
#[derive(Debug, Clone, serde::Deserialize)]
struct Config {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "two")]
    type_vocab_size: usize,
    #[serde(default = "eps")]
    layer_norm_eps: f64,
    #[serde(default = "gelu")]
    hidden_act: String,
}

fn two() -> usize {
    2
}

fn eps() -> f64 {
    1e-12
}

fn gelu() -> String {
    "gelu".into()
}
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

pub(super) fn err(e: impl std::fmt::Display) -> TrainError {
    TrainError::Data(format!("fine-tuning: {e}"))
}

/// Reads a Hugging Face BERT config, filling the fields older or minimal configs leave out.
fn config(src: &Path) -> Result<Config, TrainError> {
    let path = src.join("config.json");
    let text = std::fs::read_to_string(&path).map_err(|e| TrainError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let mut v: serde_json::Value = serde_json::from_str(&text).map_err(|e| TrainError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let model_type = v
        .get("model_type")
        .and_then(|t| t.as_str())
        .unwrap_or("bert")
        .to_string();
    if model_type != "bert" {
        return Err(TrainError::Data(format!(
            "--mode full fine-tunes BERT encoders; {} is {model_type:?}",
            path.display()
        )));
    }
    if let Some(o) = v.as_object_mut() {
        o.entry("hidden_act").or_insert(serde_json::json!("gelu"));
    }
    let c: Config = serde_json::from_value(v).map_err(|e| TrainError::Io {
        path: path.clone(),
        message: format!("not a BERT config: {e}"),
    })?;
    if c.hidden_act != "gelu" {
        return Err(TrainError::Data(format!(
            "{}: hidden_act {:?} (the encoder here computes gelu)",
            path.display(),
            c.hidden_act
        )));
    }
    Ok(c)
}

/// A BERT encoder written with differentiable ops only (candle-transformers' BERT uses a
/// fused layer norm that has no backward pass), with Hugging Face's weight names.
struct Bert {
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    ln: (Tensor, Tensor),
    layers: Vec<Layer>,
    heads: usize,
    eps: f64,
}

struct Layer {
    q: candle_nn::Linear,
    k: candle_nn::Linear,
    v: candle_nn::Linear,
    attn_out: candle_nn::Linear,
    attn_ln: (Tensor, Tensor),
    inter: candle_nn::Linear,
    out: candle_nn::Linear,
    out_ln: (Tensor, Tensor),
}

fn layer_norm(x: &Tensor, (w, b): &(Tensor, Tensor), eps: f64) -> candle_core::Result<Tensor> {
    let mean = x.mean_keepdim(candle_core::D::Minus1)?;
    let centred = x.broadcast_sub(&mean)?;
    let var = centred.sqr()?.mean_keepdim(candle_core::D::Minus1)?;
    let normed = centred.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(w)?.broadcast_add(b)
}

impl Bert {
    fn load(vb: VarBuilder, c: &Config) -> candle_core::Result<Self> {
        let h = c.hidden_size;
        let ln = |vb: VarBuilder| -> candle_core::Result<(Tensor, Tensor)> {
            Ok((vb.get(h, "weight")?, vb.get(h, "bias")?))
        };
        let e = vb.pp("embeddings");
        let mut layers = Vec::new();
        for i in 0..c.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                q: candle_nn::linear(h, h, a.pp("self.query"))?,
                k: candle_nn::linear(h, h, a.pp("self.key"))?,
                v: candle_nn::linear(h, h, a.pp("self.value"))?,
                attn_out: candle_nn::linear(h, h, a.pp("output.dense"))?,
                attn_ln: ln(a.pp("output.LayerNorm"))?,
                inter: candle_nn::linear(h, c.intermediate_size, l.pp("intermediate.dense"))?,
                out: candle_nn::linear(c.intermediate_size, h, l.pp("output.dense"))?,
                out_ln: ln(l.pp("output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            word: e.get((c.vocab_size, h), "word_embeddings.weight")?,
            position: e.get((c.max_position_embeddings, h), "position_embeddings.weight")?,
            token_type: e.get((c.type_vocab_size, h), "token_type_embeddings.weight")?,
            ln: ln(e.pp("LayerNorm"))?,
            layers,
            heads: c.num_attention_heads,
            eps: c.layer_norm_eps,
        })
    }

    /// Per-token states [b, s, h] of `ids` [b, s] with `mask` [b, s] (1 = token).
    fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        use candle_core::Module;
        let (b, s) = ids.dims2()?;
        let h = self.word.dim(1)?;
        let flat = ids.flatten_all()?;
        let words = self.word.index_select(&flat, 0)?.reshape((b, s, h))?;
        let pos = self.position.narrow(0, 0, s)?.unsqueeze(0)?;
        let types = self.token_type.narrow(0, 0, 1)?.unsqueeze(0)?;
        let mut x = layer_norm(
            &words.broadcast_add(&pos)?.broadcast_add(&types)?,
            &self.ln,
            self.eps,
        )?;
        let hd = h / self.heads;
        // Padding gets a large negative score before the softmax.
        let bias = ((mask.ones_like()? - mask)? * -1e4)?.reshape((b, 1, 1, s))?;
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((b, s, self.heads, hd))?
                .transpose(1, 2)?
                .contiguous()
        };
        for l in &self.layers {
            let (q, k, v) = (
                split(l.q.forward(&x)?)?,
                split(l.k.forward(&x)?)?,
                split(l.v.forward(&x)?)?,
            );
            let scores =
                (q.matmul(&k.t()?.contiguous()?)? / (hd as f64).sqrt())?.broadcast_add(&bias)?;
            let probs = candle_nn::ops::softmax(&scores, candle_core::D::Minus1)?;
            let ctx = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b, s, h))?;
            let a = layer_norm(&(l.attn_out.forward(&ctx)? + &x)?, &l.attn_ln, self.eps)?;
            let i = l.inter.forward(&a)?.gelu_erf()?;
            x = layer_norm(&(l.out.forward(&i)? + &a)?, &l.out_ln, self.eps)?;
        }
        Ok(x)
    }
}

struct Encoder {
    model: Bert,
    tokenizer: tokenizers::Tokenizer,
    device: Device,
}

impl Encoder {
    /// Mean-pooled, normalised embeddings of `texts`: [n, hidden].
    fn embed(&self, texts: &[&str]) -> Result<Tensor, TrainError> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(err)?;
        let len = enc
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(1)
            .max(1);
        let (mut ids, mut mask) = (Vec::new(), Vec::new());
        for e in &enc {
            let n = e.get_ids().len();
            ids.extend(e.get_ids().iter().map(|&i| i as i64));
            ids.extend(std::iter::repeat_n(0i64, len - n));
            mask.extend(std::iter::repeat_n(1f32, n));
            mask.extend(std::iter::repeat_n(0f32, len - n));
        }
        let b = texts.len();
        let ids = Tensor::from_vec(ids, (b, len), &self.device).map_err(err)?;
        let mask = Tensor::from_vec(mask, (b, len), &self.device).map_err(err)?;
        let h = self.model.forward(&ids, &mask).map_err(err)?;
        let m = mask.unsqueeze(2).map_err(err)?;
        let summed = h.broadcast_mul(&m).and_then(|x| x.sum(1)).map_err(err)?;
        let counts = m.sum(1).map_err(err)?;
        let mean = summed.broadcast_div(&counts).map_err(err)?;
        let norm = mean
            .sqr()
            .and_then(|x| x.sum_keepdim(1))
            .and_then(|x| x.sqrt())
            .and_then(|x| x.clamp(1e-12, f64::MAX))
            .map_err(err)?;
        mean.broadcast_div(&norm).map_err(err)
    }

    /// The in-batch-negatives loss of one batch of (group, anchor, positive), and its
    /// clone-vs-non-clone cosine margin (mean over the true pairs minus mean over the others).
    fn loss(
        &self,
        groups: &[Vec<String>],
        batch: &[(usize, usize, usize)],
        scale: f32,
    ) -> Result<(Tensor, f64), TrainError> {
        let a: Vec<&str> = batch
            .iter()
            .map(|&(g, i, _)| groups[g][i].as_str())
            .collect();
        let p: Vec<&str> = batch
            .iter()
            .map(|&(g, _, j)| groups[g][j].as_str())
            .collect();
        let (za, zp) = (self.embed(&a)?, self.embed(&p)?);
        let cos = za.matmul(&zp.t().map_err(err)?).map_err(err)?;
        let margin = margin_of(&cos.to_vec2::<f32>().map_err(err)?);
        let logits = (cos * f64::from(scale)).map_err(err)?;
        let target = Tensor::arange(0u32, batch.len() as u32, &self.device).map_err(err)?;
        let loss = candle_nn::loss::cross_entropy(&logits, &target).map_err(err)?;
        Ok((loss, margin))
    }

    /// Mean loss and margin over `batches` (`None` without any).
    fn mean_loss(
        &self,
        groups: &[Vec<String>],
        batches: &[Vec<(usize, usize, usize)>],
        scale: f32,
    ) -> Result<Option<(f64, f64)>, TrainError> {
        if batches.is_empty() {
            return Ok(None);
        }
        let (mut loss, mut margin) = (0f64, 0f64);
        for b in batches {
            let (l, m) = self.loss(groups, b, scale)?;
            loss += f64::from(l.to_scalar::<f32>().map_err(err)?);
            margin += m;
        }
        let n = batches.len() as f64;
        Ok(Some((loss / n, margin / n)))
    }
}

/// Mean cosine of the true pairs (the diagonal) minus the mean of the others.
fn margin_of(cos: &[Vec<f32>]) -> f64 {
    let (mut pos, mut neg, mut n_pos, mut n_neg) = (0f64, 0f64, 0usize, 0usize);
    for (i, row) in cos.iter().enumerate() {
        for (j, &c) in row.iter().enumerate() {
            if i == j {
                pos += f64::from(c);
                n_pos += 1;
            } else {
                neg += f64::from(c);
                n_neg += 1;
            }
        }
    }
    pos / n_pos.max(1) as f64 - if n_neg > 0 { neg / n_neg as f64 } else { 0.0 }
}

/// What fine-tuning produced (the weights are in `out_src`).
pub struct FineTuned {
    /// Per epoch.
    pub epochs: Vec<EpochLog>,
    /// The epoch kept (0 = the base weights).
    pub best_epoch: usize,
    /// Validation loss of the base weights.
    pub base_valid_loss: Option<f64>,
    /// Validation margin of the base weights.
    pub base_valid_margin: Option<f64>,
    /// Where the training steps ran (`cpu`, `cuda:0`).
    pub device: String,
}

/// What a fine-tuning run reads and where it writes (either backend).
pub struct FineTuning<'a> {
    /// The model's Hugging Face source (config.json, model.safetensors, tokenizer.json).
    pub src: &'a Path,
    /// The detector's window: programs are truncated to it.
    pub max_length: usize,
    /// The training problems' programs, one group (clones of each other) per problem.
    pub train: &'a [Vec<String>],
    /// The validation problems' programs: early stopping's measure, never trained on.
    pub valid: &'a [Vec<String>],
    /// Settings.
    pub cfg: &'a TrainConfig,
    /// Where the kept weights, a copy of the config and the tokenizer go.
    pub out_src: &'a Path,
}

/// Fine-tunes the encoder in `job.src` on its training groups, early-stopping on the
/// validation ones; writes the best weights, config and tokenizer to `job.out_src`. Stops
/// with [`TrainError::Interrupted`] at the next batch once `stop` is set.
pub fn finetune(
    job: &FineTuning<'_>,
    stop: &AtomicBool,
    mut each: impl FnMut(&EpochLog),
) -> Result<FineTuned, TrainError> {
    let FineTuning {
        src,
        max_length,
        train,
        valid,
        cfg,
        out_src,
    } = *job;
    let device = Device::Cpu;
    let config = config(src)?;
    let weights = weights_of(src)?;
    let mut varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let model = Bert::load(vb, &config).map_err(err)?;
    varmap.load(&weights).map_err(err)?;
    let enc = Encoder {
        model,
        tokenizer: tokenizer(src, max_length)?,
        device,
    };
    let mut rng = pair_rng(cfg);
    let valid_batches = valid_batches(valid, cfg);
    create_dir(out_src)?;
    let best_path = out_src.join("model.safetensors");
    let save = |varmap: &VarMap| varmap.save(&best_path).map_err(err);
    let base_valid = enc.mean_loss(valid, &valid_batches, cfg.scale)?;
    save(&varmap)?;
    let mut best = (0usize, base_valid.map_or(f64::INFINITY, |v| v.0));
    let mut opt = candle_nn::AdamW::new(
        varmap.all_vars(),
        candle_nn::ParamsAdamW {
            lr: f64::from(cfg.lr),
            weight_decay: f64::from(cfg.decay),
            ..Default::default()
        },
    )
    .map_err(err)?;
    let mut epochs = Vec::new();
    let mut stale = 0;
    for epoch in 1..=cfg.epochs {
        let bs = epoch_batches(train, &mut rng, cfg);
        let mut total = 0f64;
        for b in &bs {
            if stop.load(Ordering::Relaxed) {
                return Err(TrainError::Interrupted);
            }
            let (loss, _) = enc.loss(train, b, cfg.scale)?;
            total += f64::from(loss.to_scalar::<f32>().map_err(err)?);
            opt.backward_step(&loss).map_err(err)?;
        }
        let checked = enc.mean_loss(valid, &valid_batches, cfg.scale)?;
        let valid_loss = checked.map(|v| v.0);
        let log = EpochLog {
            epoch,
            train_loss: if bs.is_empty() {
                0.0
            } else {
                total / bs.len() as f64
            },
            valid_loss,
            valid_margin: checked.map(|v| v.1),
        };
        each(&log);
        epochs.push(log);
        match valid_loss {
            Some(l) if l < best.1 => {
                best = (epoch, l);
                save(&varmap)?;
                stale = 0;
            }
            Some(_) => {
                stale += 1;
                if stale >= cfg.patience {
                    break;
                }
            }
            None => {
                best = (epoch, f64::INFINITY);
                save(&varmap)?;
            }
        }
    }
    copy_sources(src, out_src)?;
    Ok(FineTuned {
        epochs,
        best_epoch: best.0,
        base_valid_loss: base_valid.map(|v| v.0),
        base_valid_margin: base_valid.map(|v| v.1),
        device: "cpu".into(),
    })
}

/// The model's weights file in `src`, or why `--mode full` cannot start without it.
pub(super) fn weights_of(src: &Path) -> Result<std::path::PathBuf, TrainError> {
    let weights = src.join("model.safetensors");
    if !weights.is_file() {
        return Err(TrainError::Data(format!(
            "--mode full needs the model's weights: {} is missing",
            weights.display()
        )));
    }
    Ok(weights)
}

/// The tokenizer of `src`, truncating at the detector's `max_length` and padding nothing
/// (each batch is padded to its longest program).
pub(super) fn tokenizer(
    src: &Path,
    max_length: usize,
) -> Result<tokenizers::Tokenizer, TrainError> {
    let mut tokenizer =
        tokenizers::Tokenizer::from_file(src.join("tokenizer.json")).map_err(err)?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(tokenizers::TruncationParams {
            max_length,
            ..Default::default()
        }))
        .map_err(err)?;
    Ok(tokenizer)
}

/// The generator of the training pairs and their order (both backends draw the same).
pub(super) fn pair_rng(cfg: &TrainConfig) -> rand_chacha::ChaCha8Rng {
    rand_chacha::ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x0000_6675_6c6c)
}

/// One epoch's batches of (group, anchor, positive): a positive per program, shuffled.
pub(super) fn epoch_batches(
    train: &[Vec<String>],
    rng: &mut rand_chacha::ChaCha8Rng,
    cfg: &TrainConfig,
) -> Vec<Vec<(usize, usize, usize)>> {
    let mut p = pairs(train, rng);
    p.shuffle(rng);
    batches(p, cfg.batch.max(2))
}

pub(super) fn create_dir(dir: &Path) -> Result<(), TrainError> {
    std::fs::create_dir_all(dir).map_err(|e| TrainError::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })
}

/// Copies the config and tokenizer beside the kept weights, as the exporter reads them.
pub(super) fn copy_sources(src: &Path, out_src: &Path) -> Result<(), TrainError> {
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(src.join(f), out_src.join(f)).map_err(|e| TrainError::Io {
            path: src.join(f),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradients_reach_a_plain_var() {
        let x = candle_core::Var::new(&[1f32, 2.0], &Device::Cpu).unwrap();
        let loss = (x.as_tensor() * 2.0).unwrap().sum_all().unwrap();
        let grads = loss.backward().unwrap();
        assert!(grads.get(x.as_tensor()).is_some());
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let lin = candle_nn::linear(2, 2, vb.pp("l")).unwrap();
        use candle_core::Module;
        let y = lin
            .forward(&Tensor::new(&[[1f32, 2.0]], &Device::Cpu).unwrap())
            .unwrap();
        let grads = y.sum_all().unwrap().backward().unwrap();
        let with = varmap
            .all_vars()
            .iter()
            .filter(|v| grads.get(v.as_tensor()).is_some())
            .count();
        assert_eq!(with, 2, "candle_nn linear");
    }

    #[test]
    fn gradients_reach_the_encoder_weights() {
        let device = Device::Cpu;
        let config: Config = serde_json::from_value(serde_json::json!({
            "vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 16, "max_position_embeddings": 16
        }))
        .unwrap();
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
        let model = Bert::load(vb, &config).unwrap();
        let ids = Tensor::new(&[[1i64, 2, 3]], &device).unwrap();
        let mask = Tensor::new(&[[1f32, 1.0, 0.0]], &device).unwrap();
        let h = model.forward(&ids, &mask).unwrap();
        let loss = h.sqr().unwrap().sum_all().unwrap();
        let grads = loss.backward().unwrap();
        let vars = varmap.all_vars();
        let with = vars
            .iter()
            .filter(|v| grads.get(v.as_tensor()).is_some())
            .count();
        assert_eq!(
            with,
            vars.len(),
            "{with} of {} vars have gradients",
            vars.len()
        );
    }
}
