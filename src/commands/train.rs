//! `equimorph train`: a detector trained on an augment run's programs (Auto-SPT RQ3).

use super::common::{interrupt_flag, print, Bar, DetectorSettings, Stderr, TrainingArgs};
use anyhow::Result;
use clap::Args;
use equimorph::job::train::{TrainJob, TrainJobError};
use equimorph::train::TrainConfig;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `train`.
#[derive(Args)]
pub struct TrainArgs {
    /// An `augment` output directory (tasks.jsonl and variants.jsonl).
    pub(super) data: PathBuf,
    /// Where to write the trained model directory (load it with --detector onnx:DIR).
    #[arg(long)]
    pub(super) out: PathBuf,
    #[command(flatten)]
    pub(super) training: TrainingArgs,
    /// Epochs without a better validation loss before stopping.
    #[arg(long, default_value_t = 4)]
    pub(super) patience: usize,
    /// Seed of the split, the pairs and their order.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
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
    pub(super) detector: DetectorSettings,
}

/// Runs `train`.
pub fn run(args: TrainArgs) -> Result<ExitCode> {
    let stop = interrupt_flag()?;
    let t = &args.training;
    let job = TrainJob {
        config: TrainConfig {
            epochs: t.epochs,
            batch: t.batch,
            lr: t.lr(),
            valid_fraction: t.valid,
            patience: args.patience.max(1),
            seed: args.seed,
            decay: t.decay,
            backend: t.backend,
            canon: t.canon_forms,
            ..TrainConfig::default()
        },
        options: args.detector.options()?,
        base: args.detector.spec,
        data: args.data,
        out: args.out,
        mode: t.mode,
        unverified: args.unverified,
        weights: args.weights,
        force: args.force,
    };
    let outcome = match job.run(&stop, &Stderr, &Bar::new(args.quiet)) {
        Ok(o) => o,
        // Said as an interruption (exit 130), not as an error.
        Err(TrainJobError::Interrupted(i)) => return Err(i.into()),
        Err(e) => return Err(e.into()),
    };
    print(&outcome.printout());
    Ok(outcome.status().into())
}
