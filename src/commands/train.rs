//! `equimorph train`: a detector trained on an augment run's programs (Auto-SPT RQ3).

use super::common::{progress, DetectorArgs};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use equimorph::detector::model::{ModelDir, ModelKind};
use equimorph::detector::onnx::OnnxDetector;
use equimorph::train::{self, head, TrainConfig, TrainReport};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// What is trained.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum Mode {
    /// The encoder frozen; a linear projection of its pooled embedding (initialised to the
    /// identity) trained contrastively: CPU minutes.
    Head,
    /// The whole encoder (BERT) fine-tuned with the same loss from its safetensors source
    /// (--weights), then exported with models/export.py.
    Full,
}

/// Arguments of `train`.
#[derive(Args)]
pub struct TrainArgs {
    /// An `augment` output directory (tasks.jsonl and variants.jsonl).
    pub(super) data: PathBuf,
    /// Where to write the trained model directory (load it with --detector onnx:DIR).
    #[arg(long)]
    pub(super) out: PathBuf,
    /// What to train.
    #[arg(long, value_enum, default_value = "head")]
    pub(super) mode: Mode,
    /// Passes over the training pairs at most.
    #[arg(long, default_value_t = 30)]
    pub(super) epochs: usize,
    /// Pairs per batch: every other pair of the batch is a negative.
    #[arg(long, default_value_t = 32)]
    pub(super) batch: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3)]
    pub(super) lr: f32,
    /// Share of problems held out to stop training (never trained on).
    #[arg(long, default_value_t = 0.2, value_name = "FRACTION")]
    pub(super) valid: f64,
    /// Epochs without a better validation loss before stopping.
    #[arg(long, default_value_t = 4)]
    pub(super) patience: usize,
    /// Seed of the split, the pairs and their order.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Penalty on the projection's distance from the identity (0 = none).
    #[arg(long, default_value_t = 0.0)]
    pub(super) decay: f32,
    /// Also train on variants the oracle did not verify.
    #[arg(long)]
    pub(super) unverified: bool,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Replace an existing model directory at --out.
    #[arg(long)]
    pub(super) force: bool,
    /// --mode full: the base model's Hugging Face source (config.json, model.safetensors,
    /// tokenizer.json); default: the source setup exported it from, when it is there.
    #[arg(long, value_name = "DIR")]
    pub(super) weights: Option<PathBuf>,
    #[command(flatten)]
    pub(super) detector: DetectorArgs,
}

/// Runs `train`.
pub fn run(args: TrainArgs) -> Result<ExitCode> {
    if !(0.0..1.0).contains(&args.valid) {
        bail!("--valid must lie in [0, 1)");
    }
    if args.epochs == 0 || args.batch < 2 {
        bail!("--epochs must be at least 1 and --batch at least 2");
    }
    if args.out.join("equimorph.toml").exists() && !args.force {
        bail!(
            "{} already holds a model (--force replaces it)",
            args.out.display()
        );
    }
    let start = Instant::now();
    let groups = train::read_augment_dir(&args.data, args.unverified)?;
    let config = TrainConfig {
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        valid_fraction: args.valid,
        patience: args.patience.max(1),
        seed: args.seed,
        decay: args.decay,
        ..TrainConfig::default()
    };
    let split = train::split(&groups, config.valid_fraction, config.seed)?;
    let Some(base_path) = equimorph::detector::model_path(&args.detector.detector) else {
        bail!(
            "--detector {}: training needs a model (minilm, onnx:DIR), not a classic measure",
            args.detector.detector
        );
    };
    let base = ModelDir::open(&base_path)?;
    if args.mode == Mode::Full {
        return full(args, &base, &groups, split, config, start);
    }
    if base.config.kind != ModelKind::Embedding {
        bail!(
            "--mode head trains a projection of pooled embeddings, but {} is a {:?} model",
            base_path.display(),
            base.config.kind
        );
    }
    if base.config.projection.is_some() {
        bail!(
            "{} already has a trained projection: train from its base model instead",
            base_path.display()
        );
    }
    let detector = OnnxDetector::open(&base_path, args.detector.options()?)?;
    // Embed every program once, with the frozen encoder.
    let in_valid: std::collections::HashSet<&str> =
        split.valid.iter().map(String::as_str).collect();
    let texts: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.texts.iter().map(String::as_str))
        .collect();
    eprintln!(
        "{} problem(s) ({} training, {} validation), {} program(s); embedding them",
        groups.len(),
        split.train.len(),
        split.valid.len(),
        texts.len()
    );
    let pb = progress(texts.len() as u64, args.quiet);
    let mut vectors = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(256) {
        vectors.extend(detector.pooled_vectors(chunk)?);
        pb.inc(chunk.len() as u64);
    }
    pb.finish_and_clear();
    let d = vectors.first().map_or(0, Vec::len);
    if d == 0 {
        bail!("the model gave empty embeddings");
    }
    let mut it = vectors.into_iter();
    let (mut train_c, mut valid_c) = (Vec::new(), Vec::new());
    let mut programs = BTreeMap::new();
    for g in &groups {
        let c: head::Cluster = it.by_ref().take(g.texts.len()).collect();
        let (dest, key) = if in_valid.contains(g.problem.as_str()) {
            (&mut valid_c, "valid")
        } else {
            (&mut train_c, "train")
        };
        *programs.entry(key.to_string()).or_insert(0usize) += c.len();
        dest.push(c);
    }
    let pb = progress(config.epochs as u64, args.quiet);
    let trained = head::train(d, &train_c, &valid_c, &config, |e| {
        pb.inc(1);
        pb.set_message(format!(
            "epoch {}: train loss {:.4}{}",
            e.epoch,
            e.train_loss,
            e.valid_loss
                .map(|v| format!(", valid {v:.4}"))
                .unwrap_or_default()
        ));
    });
    pb.finish_and_clear();
    write_model(&base, &args.out, &trained.projection)?;
    let report = TrainReport {
        mode: "head".into(),
        base: args.detector.detector.clone(),
        data: args.data.display().to_string(),
        config,
        split,
        programs,
        epochs: trained.epochs.clone(),
        best_epoch: trained.best_epoch,
        base_valid_loss: trained.base.map(|b| b.0),
        base_valid_margin: trained.base.map(|b| b.1),
        seconds: start.elapsed().as_secs_f64(),
    };
    let json = write_report(&args.out, &report)?;
    if let (Some((bl, bm)), Some(best)) = (
        trained.base,
        trained
            .epochs
            .iter()
            .find(|e| e.epoch == trained.best_epoch),
    ) {
        println!(
            "validation: loss {bl:.4} → {:.4}, clone-vs-non-clone cosine margin {bm:.4} → {:.4} (epoch {})",
            best.valid_loss.unwrap_or(bl),
            best.valid_margin.unwrap_or(bm),
            trained.best_epoch
        );
    } else if trained.best_epoch == 0 {
        println!("no epoch beat the base model on the validation problems: the projection is the identity");
    }
    print_written(&args.out, &json);
    Ok(ExitCode::SUCCESS)
}

/// The trained model directory: the base model's graph(s) and tokenizer, the projection, and
/// an `equimorph.toml` naming them.
fn write_model(base: &ModelDir, out: &Path, proj: &head::Projection) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
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
            std::fs::create_dir_all(parent)?;
        }
        if from.is_file() {
            std::fs::copy(&from, &to)
                .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
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
    std::fs::write(
        &onnx,
        equimorph::detector::projection::encode(&proj.w, proj.d),
    )
    .with_context(|| format!("cannot write {}", onnx.display()))?;
    config.projection = Some("projection.onnx".into());
    config.name = format!("{}-head", config.name);
    let toml = out.join("equimorph.toml");
    std::fs::write(
        &toml,
        format!(
            "# Written by `equimorph train --mode head`: the base model with a trained projection.\n{}",
            config.to_toml()
        ),
    )
    .with_context(|| format!("cannot write {}", toml.display()))?;
    Ok(())
}

/// The base model's Hugging Face source: `--weights`, else where setup keeps it
/// (`<home>/models/src/<name>`, `<home>/src/<name>/*`).
fn weights_of(args: &TrainArgs, base: &ModelDir) -> Result<PathBuf> {
    if let Some(w) = &args.weights {
        return Ok(w.clone());
    }
    let name = base
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let home = equimorph::detector::model::home();
    let mut candidates = vec![base.dir.join("../src").join(&name)];
    if let Ok(entries) = std::fs::read_dir(home.join("src").join(&name)) {
        candidates.extend(entries.flatten().map(|e| e.path()));
    }
    candidates
        .into_iter()
        .find(|c| c.join("model.safetensors").is_file() && c.join("config.json").is_file())
        .with_context(|| {
            format!(
                "--mode full needs the weights {} was exported from: pass --weights DIR (config.json, \
                 model.safetensors, tokenizer.json)",
                base.dir.display()
            )
        })
}

/// `--mode full`: fine-tune the encoder, export it, write train.json.
fn full(
    args: TrainArgs,
    base: &ModelDir,
    groups: &[train::Group],
    split: train::Split,
    config: TrainConfig,
    start: Instant,
) -> Result<ExitCode> {
    if base.config.kind != ModelKind::Embedding {
        bail!(
            "--mode full fine-tunes embedding models; {} is not one",
            base.dir.display()
        );
    }
    let weights = weights_of(&args, base)?;
    let in_valid: std::collections::HashSet<&str> =
        split.valid.iter().map(String::as_str).collect();
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
    let src_out = args.out.join("src");
    let pb = progress(config.epochs as u64, args.quiet);
    let tuned = train::full::finetune(
        &weights,
        base.config.max_length,
        &tr,
        &va,
        &config,
        &src_out,
        |e| {
            pb.inc(1);
            pb.set_message(format!("epoch {}: train loss {:.4}", e.epoch, e.train_loss));
        },
    )?;
    pb.finish_and_clear();
    // The torch-free exporter that made the base model makes this one.
    let python = equimorph::detector::model::home().join("venv/bin/python");
    let export = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/export.py");
    let name = format!("{}-full", base.config.name);
    let status = std::process::Command::new(&python)
        .arg(&export)
        .arg(&src_out)
        .arg(&args.out)
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
        .with_context(|| format!("cannot run {} (made by `make setup`)", python.display()))?;
    if !status.success() {
        bail!("{} could not export the fine-tuned model", export.display());
    }
    let report = TrainReport {
        mode: "full".into(),
        base: args.detector.detector.clone(),
        data: args.data.display().to_string(),
        config,
        split,
        programs,
        epochs: tuned.epochs.clone(),
        best_epoch: tuned.best_epoch,
        base_valid_loss: tuned.base_valid_loss,
        base_valid_margin: None,
        seconds: start.elapsed().as_secs_f64(),
    };
    let json = write_report(&args.out, &report)?;
    println!(
        "kept epoch {} (validation loss of the base weights: {})",
        tuned.best_epoch,
        tuned
            .base_valid_loss
            .map_or("-".into(), |l| format!("{l:.4}"))
    );
    print_written(&args.out, &json);
    Ok(ExitCode::SUCCESS)
}

/// Writes `train.json` into `out` and prints one line per epoch.
fn write_report(out: &Path, report: &TrainReport) -> Result<PathBuf> {
    let json = out.join("train.json");
    std::fs::write(&json, serde_json::to_string_pretty(report)?)
        .with_context(|| format!("cannot write {}", json.display()))?;
    for e in &report.epochs {
        let valid = match (e.valid_loss, e.valid_margin) {
            (Some(l), Some(m)) => format!(", validation loss {l:.4}, margin {m:.4}"),
            (Some(l), None) => format!(", validation loss {l:.4}"),
            _ => String::new(),
        };
        println!(
            "epoch {:>3}: train loss {:.4}{valid}",
            e.epoch, e.train_loss
        );
    }
    Ok(json)
}

/// The last line of a training run: where the model and its record are.
fn print_written(out: &std::path::Path, json: &std::path::Path) {
    println!(
        "wrote {} (use it with --detector onnx:{}) and {}",
        out.display(),
        out.display(),
        json.display()
    );
}
