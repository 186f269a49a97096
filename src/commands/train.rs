//! `equimorph train`: a detector trained on an augment run's programs (Auto-SPT RQ3).

use super::common::{interrupt_flag, print, Bar, DetectorArgs, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::train::{TrainJob, TrainJobError};
use equimorph::train::{Mode, TrainConfig};
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
    let stop = interrupt_flag()?;
    let job = TrainJob {
        config: TrainConfig {
            epochs: args.epochs,
            batch: args.batch,
            lr: args.lr,
            valid_fraction: args.valid,
            patience: args.patience.max(1),
            seed: args.seed,
            decay: args.decay,
            ..TrainConfig::default()
        },
        options: args.detector.settings().options()?,
        base: args.detector.detector,
        data: args.data,
        out: args.out,
        mode: args.mode,
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
