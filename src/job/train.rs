//! The training job (`equimorph train`, and the model `robustness` trains): from an
//! `augment` run and resolved settings to a trained model directory and its `train.json`, as
//! a typed [`TrainOutcome`]. The command line parses arguments, calls [`TrainJob::run`] and
//! prints the outcome.
//!
//! In order: the settings checked, the augment run read and split by problem, the base model
//! opened; then `head` embeds every program once with the frozen encoder, trains a projection
//! and writes it beside the base model's graphs, or `full` fine-tunes the encoder and exports
//! it with `models/export.py`; last, `train.json`. SIGINT or SIGTERM stops it at the next
//! batch, before the model's `equimorph.toml` or `train.json` is written.

use super::exit::ExitStatus;
use super::interrupt::{stop_point, InterruptedBeforeStart};
use super::{Notices, Printout, Progress};
use crate::detector::model::{ModelDir, ModelKind};
use crate::detector::onnx::OnnxDetector;
use crate::detector::{DetectorError, DetectorOptions};
use crate::train::{self, head, Backend, EpochLog, Group, Mode, Split, TrainConfig, TrainReport};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use thiserror::Error;

/// What an interrupted training run has done.
const NO_MODEL: &str = "no model was written";

/// Why training stopped with an error.
#[derive(Debug, Error)]
pub enum TrainJobError {
    /// A setting is out of its range.
    #[error("{0}")]
    Usage(&'static str),
    /// `out` already holds a model and replacing it was not asked for.
    #[error("{} already holds a model (--force replaces it)", .0.display())]
    Exists(PathBuf),
    /// The augment run cannot be read, or cannot train anything.
    #[error(transparent)]
    Train(train::TrainError),
    /// The base detector is a classic measure.
    #[error("--detector {0}: training needs a model (minilm, onnx:DIR), not a classic measure")]
    NotAModel(String),
    /// The base model could not be opened or run.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// `head` needs an embedding model.
    #[error(
        "--mode head trains a projection of pooled embeddings, but {} is a {kind:?} model",
        path.display()
    )]
    HeadNeedsEmbedding {
        /// The base model.
        path: PathBuf,
        /// What it is.
        kind: ModelKind,
    },
    /// The base model already carries a projection.
    #[error("{} already has a trained projection: train from its base model instead", .0.display())]
    Projected(PathBuf),
    /// The base model's embeddings are empty.
    #[error("the model gave empty embeddings")]
    EmptyEmbeddings,
    /// `full` needs an embedding model.
    #[error("--mode full fine-tunes embedding models; {} is not one", .0.display())]
    FullNeedsEmbedding(PathBuf),
    /// `full` found no Hugging Face source of the base model.
    #[error(
        "--mode full needs the weights {} was exported from: pass --weights DIR (config.json, \
         model.safetensors, tokenizer.json)",
        dir.display()
    )]
    NoWeights {
        /// The base model directory.
        dir: PathBuf,
        /// Where the weights were looked for.
        places: Vec<PathBuf>,
    },
    /// A file could not be written, or the exporter could not be started.
    #[error("{message}")]
    Io {
        /// What was being done ("cannot write …").
        message: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `train.json` could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The exporter failed.
    #[error("{} could not export the fine-tuned model", .0.display())]
    Export(PathBuf),
    /// SIGINT or SIGTERM before the model was written.
    #[error(transparent)]
    Interrupted(#[from] InterruptedBeforeStart),
}

impl From<train::TrainError> for TrainJobError {
    fn from(e: train::TrainError) -> Self {
        match e {
            train::TrainError::Interrupted => TrainJobError::Interrupted(InterruptedBeforeStart {
                doing: "training".into(),
                done: NO_MODEL.into(),
            }),
            e => TrainJobError::Train(e),
        }
    }
}

/// `message: source` for an I/O error.
fn io(message: String) -> impl FnOnce(std::io::Error) -> TrainJobError {
    move |source| TrainJobError::Io { message, source }
}

/// A training run made of resolved settings.
#[derive(Debug, Clone)]
pub struct TrainJob {
    /// The `augment` output directory trained on.
    pub data: PathBuf,
    /// The model directory written.
    pub out: PathBuf,
    /// What is trained.
    pub mode: Mode,
    /// Epochs, batch, learning rate, validation share, patience, seed, decay.
    pub config: TrainConfig,
    /// Also train on variants the oracle did not verify.
    pub unverified: bool,
    /// The base detector's spec (a model: `minilm`, `onnx:DIR`).
    pub base: String,
    /// How the base model runs (`head` embeds with it).
    pub options: DetectorOptions,
    /// `full`: the base model's Hugging Face source; default: where setup keeps it.
    pub weights: Option<PathBuf>,
    /// Replace a model already in `out`.
    pub force: bool,
}

/// How a training run ended.
#[derive(Debug, Clone)]
pub struct TrainOutcome {
    /// What was trained.
    pub mode: Mode,
    /// `train.json`'s content.
    pub report: TrainReport,
    /// The model directory.
    pub out: PathBuf,
    /// `train.json`.
    pub json: PathBuf,
}

impl TrainOutcome {
    /// The exit status the outcome calls for (a run that ends with a model is done).
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// What training tells its user at the end: each epoch's losses, how the kept epoch
    /// compares with the base model, and where the model is.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        let r = &self.report;
        for e in &r.epochs {
            let valid = match (e.valid_loss, e.valid_margin) {
                (Some(l), Some(m)) => format!(", validation loss {l:.4}, margin {m:.4}"),
                (Some(l), None) => format!(", validation loss {l:.4}"),
                _ => String::new(),
            };
            p.out(format!(
                "epoch {:>3}: train loss {:.4}{valid}",
                e.epoch, e.train_loss
            ));
        }
        match self.mode {
            Mode::Head => {
                let base = r.base_valid_loss.zip(r.base_valid_margin);
                let best = r.epochs.iter().find(|e| e.epoch == r.best_epoch);
                if let (Some((bl, bm)), Some(best)) = (base, best) {
                    p.out(format!(
                        "validation: loss {bl:.4} → {:.4}, clone-vs-non-clone cosine margin \
                         {bm:.4} → {:.4} (epoch {})",
                        best.valid_loss.unwrap_or(bl),
                        best.valid_margin.unwrap_or(bm),
                        r.best_epoch
                    ));
                } else if r.best_epoch == 0 {
                    p.out(
                        "no epoch beat the base model on the validation problems: the \
                         projection is the identity",
                    );
                }
            }
            Mode::Full => {
                p.out(format!(
                    "kept epoch {} (validation loss of the base weights: {}); trained with {} \
                     on {} in {:.0} s",
                    r.best_epoch,
                    r.base_valid_loss.map_or("-".into(), |l| format!("{l:.4}")),
                    r.config.backend.as_str(),
                    r.device.as_deref().unwrap_or("an unrecorded device"),
                    r.seconds
                ));
            }
        }
        // A model trained on canonical forms reads programs as canon: shows them.
        let defence = if self.report.config.canon {
            "canon:"
        } else {
            ""
        };
        p.out(format!(
            "wrote {} (use it with --detector {defence}onnx:{}) and {}",
            self.out.display(),
            self.out.display(),
            self.json.display()
        ));
        p
    }
}

/// What either mode produced, for `train.json`.
struct Fitted {
    programs: BTreeMap<String, usize>,
    epochs: Vec<EpochLog>,
    best_epoch: usize,
    base_valid_loss: Option<f64>,
    base_valid_margin: Option<f64>,
    /// Where the training steps ran.
    device: String,
}

/// Checks the training settings that do not depend on the data.
pub fn check_config(config: &TrainConfig) -> Result<(), TrainJobError> {
    if !(0.0..1.0).contains(&config.valid_fraction) {
        return Err(TrainJobError::Usage("--valid must lie in [0, 1)"));
    }
    if config.epochs == 0 || config.batch < 2 {
        return Err(TrainJobError::Usage(
            "--epochs must be at least 1 and --batch at least 2",
        ));
    }
    Ok(())
}

impl TrainJob {
    /// Trains, stopping at the next batch once `stop` is set.
    pub fn run(
        &self,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
    ) -> Result<TrainOutcome, TrainJobError> {
        check_config(&self.config)?;
        if self.out.join("equimorph.toml").exists() && !self.force {
            return Err(TrainJobError::Exists(self.out.clone()));
        }
        let start = Instant::now();
        let mut groups = train::read_augment_dir(&self.data, self.unverified)?;
        if self.config.canon {
            groups = train::canonical_groups(groups);
        }
        let split = train::split(&groups, self.config.valid_fraction, self.config.seed)?;
        let Some(base_path) = crate::detector::model_path(&self.base) else {
            return Err(TrainJobError::NotAModel(self.base.clone()));
        };
        let base = ModelDir::open(&base_path)?;
        stop_point(stop, "reading the training data", NO_MODEL)?;
        // The report says which backend ran, never `auto`.
        let mut config = self.config.clone();
        if config.canon {
            config.canon_form = Some(crate::detector::canon::FORM_VERSION);
        }
        if self.mode == Mode::Full {
            config.backend = config.backend.resolve(&crate::install::python());
        }
        let fitted = match self.mode {
            Mode::Head => self.head(&base_path, &base, &groups, &split, stop, notices, progress)?,
            Mode::Full => self.full(&base, &groups, &split, &config, stop, progress)?,
        };
        let report = TrainReport {
            mode: self.mode.as_str().into(),
            base: self.base.clone(),
            data: self.data.display().to_string(),
            config,
            split,
            programs: fitted.programs,
            epochs: fitted.epochs,
            best_epoch: fitted.best_epoch,
            base_valid_loss: fitted.base_valid_loss,
            base_valid_margin: fitted.base_valid_margin,
            seconds: start.elapsed().as_secs_f64(),
            device: Some(fitted.device),
        };
        let json = self.out.join("train.json");
        std::fs::write(&json, serde_json::to_string_pretty(&report)?)
            .map_err(io(format!("cannot write {}", json.display())))?;
        Ok(TrainOutcome {
            mode: self.mode,
            report,
            out: self.out.clone(),
            json,
        })
    }

    /// `head`: embeds every program once with the frozen encoder, trains the projection and
    /// writes the model directory.
    #[allow(clippy::too_many_arguments)]
    fn head(
        &self,
        base_path: &Path,
        base: &ModelDir,
        groups: &[Group],
        split: &Split,
        stop: &AtomicBool,
        notices: &dyn Notices,
        progress: &dyn Progress,
    ) -> Result<Fitted, TrainJobError> {
        if base.config.kind != ModelKind::Embedding {
            return Err(TrainJobError::HeadNeedsEmbedding {
                path: base_path.to_path_buf(),
                kind: base.config.kind,
            });
        }
        if base.config.projection.is_some() {
            return Err(TrainJobError::Projected(base_path.to_path_buf()));
        }
        let detector = OnnxDetector::open(base_path, self.options.clone())?;
        let texts: Vec<&str> = groups
            .iter()
            .flat_map(|g| g.texts.iter().map(String::as_str))
            .collect();
        notices.note(&format!(
            "{} problem(s) ({} training, {} validation), {} program(s); embedding them",
            groups.len(),
            split.train.len(),
            split.valid.len(),
            texts.len()
        ));
        progress.start(texts.len() as u64);
        let mut vectors = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(256) {
            if let Err(e) = stop_point(stop, "embedding the training programs", NO_MODEL) {
                progress.finish();
                return Err(e.into());
            }
            vectors.extend(detector.pooled_vectors(chunk)?);
            for _ in chunk {
                progress.advance("");
            }
        }
        progress.finish();
        let d = vectors.first().map_or(0, Vec::len);
        if d == 0 {
            return Err(TrainJobError::EmptyEmbeddings);
        }
        let in_valid: HashSet<&str> = split.valid.iter().map(String::as_str).collect();
        let mut it = vectors.into_iter();
        let (mut train_c, mut valid_c) = (Vec::new(), Vec::new());
        let mut programs = BTreeMap::new();
        for g in groups {
            let c: head::Cluster = it.by_ref().take(g.texts.len()).collect();
            let (dest, key) = if in_valid.contains(g.problem.as_str()) {
                (&mut valid_c, "valid")
            } else {
                (&mut train_c, "train")
            };
            *programs.entry(key.to_string()).or_insert(0usize) += c.len();
            dest.push(c);
        }
        progress.start(self.config.epochs as u64);
        let trained = head::train(d, &train_c, &valid_c, &self.config, stop, |e| {
            progress.advance(&epoch_message(e, true));
        });
        progress.finish();
        let trained = trained?;
        write_model(base, &self.out, &trained.projection)?;
        Ok(Fitted {
            programs,
            epochs: trained.epochs,
            best_epoch: trained.best_epoch,
            base_valid_loss: trained.base.map(|b| b.0),
            base_valid_margin: trained.base.map(|b| b.1),
            device: "cpu".into(),
        })
    }

    /// `full`: fine-tunes the encoder into `out/src` and exports it as a model directory.
    fn full(
        &self,
        base: &ModelDir,
        groups: &[Group],
        split: &Split,
        config: &TrainConfig,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Fitted, TrainJobError> {
        if base.config.kind != ModelKind::Embedding {
            return Err(TrainJobError::FullNeedsEmbedding(base.dir.clone()));
        }
        let weights = self.weights_of(base)?;
        let in_valid: HashSet<&str> = split.valid.iter().map(String::as_str).collect();
        let (mut tr, mut va) = (Vec::new(), Vec::new());
        let mut programs = BTreeMap::new();
        for g in groups {
            let (dest, key) = if in_valid.contains(g.problem.as_str()) {
                (&mut va, "valid")
            } else {
                (&mut tr, "train")
            };
            *programs.entry(key.to_string()).or_insert(0usize) += g.texts.len();
            dest.push(g.texts.clone());
        }
        let src_out = self.out.join("src");
        progress.start(self.config.epochs as u64);
        let each = |e: &EpochLog| progress.advance(&epoch_message(e, false));
        let job = train::full::FineTuning {
            src: &weights,
            max_length: base.config.max_length,
            train: &tr,
            valid: &va,
            cfg: config,
            out_src: &src_out,
        };
        let tuned = match config.backend {
            Backend::Candle | Backend::Auto => train::full::finetune(&job, stop, each),
            Backend::Torch => train::torch::finetune(
                &crate::install::python(),
                &crate::install::layout().torch_train_script(),
                &job,
                stop,
                each,
            ),
        };
        progress.finish();
        let tuned = tuned?;
        export(base, &src_out, &self.out, stop)?;
        Ok(Fitted {
            programs,
            epochs: tuned.epochs,
            best_epoch: tuned.best_epoch,
            base_valid_loss: tuned.base_valid_loss,
            base_valid_margin: tuned.base_valid_margin,
            device: tuned.device,
        })
    }

    /// The base model's Hugging Face source: `weights`, else where setup keeps it
    /// (`<model dir>/../src/<name>`, `<home>/src/<name>/*`).
    fn weights_of(&self, base: &ModelDir) -> Result<PathBuf, TrainJobError> {
        if let Some(w) = &self.weights {
            return Ok(w.clone());
        }
        let name = base
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let home = crate::detector::model::home();
        let places = vec![
            base.dir.join("../src").join(&name),
            home.join("src").join(&name),
        ];
        let mut candidates = vec![places[0].clone()];
        if let Ok(entries) = std::fs::read_dir(&places[1]) {
            candidates.extend(entries.flatten().map(|e| e.path()));
        }
        candidates
            .into_iter()
            .find(|c| c.join("model.safetensors").is_file() && c.join("config.json").is_file())
            .ok_or_else(|| TrainJobError::NoWeights {
                dir: base.dir.clone(),
                places,
            })
    }
}

/// The progress bar's message after an epoch (`head` shows the validation loss too).
fn epoch_message(e: &EpochLog, with_valid: bool) -> String {
    let valid = match e.valid_loss {
        Some(v) if with_valid => format!(", valid {v:.4}"),
        _ => String::new(),
    };
    format!("epoch {}: train loss {:.4}{valid}", e.epoch, e.train_loss)
}

/// Exports the fine-tuned weights in `src_out` into the model directory `out`, with the
/// torch-free exporter that made the base model.
fn export(
    base: &ModelDir,
    src_out: &Path,
    out: &Path,
    stop: &AtomicBool,
) -> Result<(), TrainJobError> {
    let python = crate::install::python();
    let script = crate::install::layout().export_script();
    let name = format!("{}-full", base.config.name);
    let status = std::process::Command::new(&python)
        .arg(&script)
        .arg(src_out)
        .arg(out)
        .args([
            "--kind",
            "embedding",
            "--pooling",
            base.config.pooling.as_str(),
        ])
        .args([
            "--max-length",
            &base.config.max_length.to_string(),
            "--name",
            &name,
        ])
        .status()
        .map_err(io(format!(
            "cannot run {} (made by `{}`)",
            python.display(),
            crate::install::layout().setup_command()
        )))?;
    if !status.success() {
        // The exporter shares the terminal's process group: a SIGINT ended it too.
        stop_point(stop, "exporting the model", NO_MODEL)?;
        return Err(TrainJobError::Export(script));
    }
    Ok(())
}

/// The trained model directory: the base model's graph(s) and tokenizer, the projection, and
/// an `equimorph.toml` naming them.
fn write_model(base: &ModelDir, out: &Path, proj: &head::Projection) -> Result<(), TrainJobError> {
    let create = |dir: &Path| {
        std::fs::create_dir_all(dir).map_err(io(format!("cannot create {}", dir.display())))
    };
    create(out)?;
    let mut config = base.config.clone();
    for file in [
        Some(&config.model),
        Some(&config.tokenizer),
        config.gpu_model.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        let (from, to) = (base.file(file), out.join(file));
        if let Some(parent) = to.parent() {
            create(parent)?;
        }
        if from.is_file() {
            std::fs::copy(&from, &to).map_err(io(format!(
                "cannot copy {} to {}",
                from.display(),
                to.display()
            )))?;
        }
    }
    if config
        .gpu_model
        .as_ref()
        .is_some_and(|g| !out.join(g).is_file())
    {
        config.gpu_model = None;
    }
    let onnx = out.join("projection.onnx");
    std::fs::write(&onnx, crate::detector::projection::encode(&proj.w, proj.d))
        .map_err(io(format!("cannot write {}", onnx.display())))?;
    config.projection = Some("projection.onnx".into());
    config.name = format!("{}-head", config.name);
    let toml = out.join("equimorph.toml");
    std::fs::write(
        &toml,
        format!(
            "# Written by `equimorph train --mode head`: the base model with a trained \
             projection.\n{}",
            config.to_toml()
        ),
    )
    .map_err(io(format!("cannot write {}", toml.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(
        mode: &str,
        epochs: Vec<EpochLog>,
        best: usize,
        base: Option<(f64, f64)>,
    ) -> TrainReport {
        TrainReport {
            mode: mode.into(),
            base: "minilm".into(),
            data: "aug".into(),
            config: TrainConfig {
                backend: Backend::Torch,
                ..TrainConfig::default()
            },
            split: Split::default(),
            programs: BTreeMap::new(),
            epochs,
            best_epoch: best,
            base_valid_loss: base.map(|b| b.0),
            base_valid_margin: base.map(|b| b.1),
            seconds: 1.0,
            device: Some("cuda".into()),
        }
    }

    fn epoch(epoch: usize, loss: f64) -> EpochLog {
        EpochLog {
            epoch,
            train_loss: 2.0,
            valid_loss: Some(loss),
            valid_margin: Some(0.5),
        }
    }

    #[test]
    fn printout_says_each_epoch_the_kept_one_and_where_the_model_is() {
        let outcome = |mode, report| TrainOutcome {
            mode,
            report,
            out: "m".into(),
            json: "m/train.json".into(),
        };
        let head = outcome(
            Mode::Head,
            report(
                "head",
                vec![epoch(1, 0.9), epoch(2, 0.8)],
                2,
                Some((1.0, 0.1)),
            ),
        )
        .printout();
        assert_eq!(head.out.len(), 4, "{head:?}");
        assert_eq!(
            head.out[0],
            "epoch   1: train loss 2.0000, validation loss 0.9000, margin 0.5000"
        );
        assert!(head.out[2].starts_with("validation: loss 1.0000 → 0.8000"));
        assert_eq!(
            head.out[3],
            "wrote m (use it with --detector onnx:m) and m/train.json"
        );
        let identity = outcome(Mode::Head, report("head", vec![], 0, None)).printout();
        assert!(identity.out[0].contains("the projection is the identity"));
        let full = outcome(Mode::Full, report("full", vec![epoch(1, 0.5)], 1, None)).printout();
        assert_eq!(
            full.out[1],
            "kept epoch 1 (validation loss of the base weights: -); trained with torch on cuda \
             in 1 s"
        );
        assert!(full.err.is_empty());
    }

    #[test]
    fn settings_out_of_range_are_refused_before_any_work() {
        let mut c = TrainConfig::default();
        assert!(check_config(&c).is_ok());
        c.valid_fraction = 1.0;
        assert!(check_config(&c)
            .unwrap_err()
            .to_string()
            .contains("--valid"));
        c.valid_fraction = 0.0;
        c.batch = 1;
        assert!(check_config(&c)
            .unwrap_err()
            .to_string()
            .contains("--batch"));
    }
}
