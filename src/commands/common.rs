//! Options and helpers shared by several subcommands.

use anyhow::Result;
use clap::Args;
use equimorph::train::{Backend, Mode};
use equimorph::transform::{TransformRuntime, TransformSet};
use std::path::{Path, PathBuf};

pub use equimorph::job::settings::{
    DetectorSettings, LlmSettings, OracleSettings, SandboxSettings,
};
pub use equimorph::task::LoadOptions;

/// Where transforms come from and how they are sandboxed.
#[derive(Args, Debug, Clone)]
pub struct TransformOptions {
    /// Comma-separated directories of transforms (.wasm components and .py scripts), single
    /// transform files, and names from the default directory, mixed
    /// (default: $EQUIMORPH_TRANSFORMS or build/transforms).
    #[arg(long, value_name = "DIR|FILE|NAME,...")]
    pub transforms: Option<String>,
    #[command(flatten)]
    pub sandbox: SandboxSettings,
}

impl TransformOptions {
    /// The runtime these options describe.
    pub fn runtime(&self) -> Result<TransformRuntime> {
        Ok(self.sandbox.runtime()?)
    }

    /// Loads the transform set these options name (an empty one is refused).
    pub fn load(&self, runtime: &TransformRuntime) -> Result<TransformSet> {
        let spec = self.transforms.as_deref();
        Ok(equimorph::job::settings::load_transform_set(runtime, spec)?)
    }

    /// The transforms `items` names, in order (see
    /// [`equimorph::job::settings::resolve_steps`]).
    pub fn resolve_steps(
        &self,
        runtime: &TransformRuntime,
        items: &[String],
    ) -> Result<Vec<equimorph::transform::LoadedTransform>> {
        let spec = self.transforms.as_deref();
        Ok(equimorph::job::settings::resolve_steps(
            runtime, spec, items,
        )?)
    }
}

pub use equimorph::job::settings::split_names;

/// Reads a UTF-8 text file, or stdin for `-`, with errors that name the file.
pub fn read_text(path: &Path) -> Result<String> {
    Ok(equimorph::job::settings::read_text(path)?)
}

/// Loads tasks for a command whose format option is called `flag`, with `dataset`'s filters;
/// load problems and the load report on stderr.
pub fn load_dataset(
    path: &Path,
    format: Option<equimorph::task::TaskFormat>,
    flag: &str,
    dataset: &equimorph::task::LoadOptions,
) -> Result<equimorph::task::TaskSet> {
    Ok(equimorph::job::settings::load_dataset(
        path, format, flag, dataset, &Stderr,
    )?)
}

/// A progress bar on stderr, hidden when stderr is not a terminal or `quiet`.
pub fn progress(len: u64, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg} (ETA {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}

pub use equimorph::job::interrupt::{interrupt_flag, stop_point, InterruptedBeforeStart};

/// The command line's [`equimorph::job::Notices`]: progress and warnings on standard error.
pub struct Stderr;

/// Prints what a job tells its user at the end: its standard-output lines, then its
/// standard-error lines.
pub fn print(printout: &equimorph::job::Printout) {
    for line in &printout.out {
        println!("{line}");
    }
    for line in &printout.err {
        eprintln!("{line}");
    }
}

impl equimorph::job::Notices for Stderr {
    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
    fn warn(&self, message: &str) {
        eprintln!("warning: {message}");
    }
}

/// The command line's [`equimorph::job::Progress`]: an indicatif bar, made when the tasks
/// start (hidden with --quiet or when standard error is not a terminal).
pub struct Bar {
    quiet: bool,
    bar: std::sync::Mutex<Option<indicatif::ProgressBar>>,
}

impl Bar {
    /// A bar that shows unless `quiet`.
    pub fn new(quiet: bool) -> Self {
        Bar {
            quiet,
            bar: std::sync::Mutex::new(None),
        }
    }

    fn with(&self, f: impl FnOnce(&mut Option<indicatif::ProgressBar>)) {
        // A poisoned lock only means another thread panicked while drawing: draw anyway.
        let mut guard = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut guard);
    }
}

impl equimorph::job::Progress for Bar {
    fn start(&self, total: u64) {
        // A job with several phases starts a new bar for each.
        self.with(|b| {
            if let Some(old) = b.take() {
                old.finish_and_clear();
            }
            *b = Some(progress(total, self.quiet));
        });
    }
    fn advance(&self, message: &str) {
        self.with(|b| {
            if let Some(b) = b {
                b.inc(1);
                b.set_message(message.to_string());
            }
        });
    }
    fn finish(&self) {
        self.with(|b| {
            if let Some(b) = b.take() {
                b.finish_and_clear();
            }
        });
    }
}

/// How a detector is trained: `train`, and the models `robustness` trains.
#[derive(Args, Debug, Clone)]
pub struct TrainingArgs {
    /// What to train: head (a projection of the frozen encoder's embedding) or full (the
    /// whole encoder fine-tuned).
    #[arg(long, value_enum, default_value = "head")]
    pub mode: Mode,
    /// --mode full: what runs the training steps: torch (PyTorch in equimorph's Python; on a
    /// CUDA GPU when torch sees one, else the CPU) or candle (in Rust, on the CPU); auto is
    /// torch when that Python has it, else candle.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Passes over the training pairs at most.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Pairs per batch: every other pair of the batch is a negative.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// Adam's learning rate (default: 1e-3 for head, 2e-5 for full, sentence-transformers'
    /// fine-tuning rate).
    #[arg(long)]
    pub lr: Option<f32>,
    /// Share of problems held out to stop training (never trained on).
    #[arg(long, default_value_t = 0.2, value_name = "FRACTION")]
    pub valid: f64,
    /// Penalty on the projection's distance from the identity (0 = none).
    #[arg(long, default_value_t = 0.0)]
    pub decay: f32,
    /// Train on the programs' canonical forms (what canon: shows a detector), for a model
    /// used behind canon: (--detector canon:onnx:DIR): it learns what the defence leaves of
    /// each SPT instead of what it already undoes.
    #[arg(long)]
    pub canon_forms: bool,
}

impl TrainingArgs {
    /// The learning rate given, else the mode's default.
    pub fn lr(&self) -> f32 {
        self.lr.unwrap_or(self.mode.default_lr())
    }
}

/// `--hard-share`, for the commands that make `--hard` training variants.
#[derive(clap::Args, Debug, Clone)]
pub struct HardShareArgs {
    /// With --hard: the share of each task's variants the hard search may supply (rounded
    /// up); random compositions make the rest, so training sees both.
    #[arg(long, requires = "hard", default_value_t = 1.0, value_name = "F",
          value_parser = equimorph::augment::parse_share)]
    pub hard_share: f64,
}

/// `--steps`: how many transforms make one variant (`augment`, `robustness`).
#[derive(clap::Args, Clone, Debug)]
pub struct StepsArgs {
    /// Transform steps per variant: MIN..MAX (each variant draws its length), or one number.
    #[arg(long, default_value = "1..3", value_name = "MIN..MAX",
          value_parser = equimorph::augment::parse_steps)]
    pub steps: (usize, usize),
}

/// `--window` / `--no-window`: whether candidates the detector would truncate are scored.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct WindowArgs {
    /// Do not score rewrites longer than the detector's window, which it would truncate (an
    /// attack could otherwise win by pushing code out of the model's sight). On by default;
    /// waived for a task whose original is itself longer than the window.
    #[arg(long, overrides_with = "no_window")]
    pub window: bool,
    /// Score rewrites the detector would truncate too (winners may then be longer than the
    /// model can see).
    #[arg(long, overrides_with = "window")]
    pub no_window: bool,
}

impl WindowArgs {
    /// Whether the window rule is on (the last of the two flags given wins).
    pub fn enabled(&self) -> bool {
        self.window || !self.no_window
    }
}

/// Which extra checks a job's outputs pass before they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyMode {
    /// CrossHair's symbolic differential check on function tasks with annotated parameters.
    Symbolic,
}

/// `--verify symbolic` and its settings.
#[derive(Args, Debug, Clone, Default)]
pub struct VerifyArgs {
    /// symbolic: search (CrossHair diffbehavior, in the sandbox) for an input on which each
    /// reported program and its original differ, for function tasks whose entry point has
    /// annotated parameters; a confirmed counterexample rejects the program and becomes a test
    /// of the task.
    #[arg(long, value_enum, value_name = "MODE")]
    pub verify: Option<VerifyMode>,
    /// Seconds CrossHair may spend per check.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub symbolic_budget: f64,
    /// Python interpreter with crosshair-tool (default: the virtualenv setup installs).
    #[arg(long, value_name = "PATH")]
    pub crosshair_python: Option<PathBuf>,
}

impl VerifyArgs {
    /// The check asked for, if any.
    pub fn settings(&self) -> Option<equimorph::job::settings::SymbolicSettings> {
        self.verify.map(
            |VerifyMode::Symbolic| equimorph::job::settings::SymbolicSettings {
                budget: self.symbolic_budget,
                python: self.crosshair_python.clone(),
            },
        )
    }

    /// Starts the symbolic checker when asked for.
    pub fn checker(&self) -> Result<Option<equimorph::adequacy::symbolic::SymbolicChecker>> {
        Ok(self.settings().map(|s| s.checker()).transpose()?)
    }

    /// Records the setting in a run's settings.
    pub fn record(&self, settings: &mut equimorph::run::RunSettings) {
        if let Some(s) = self.settings() {
            s.record(settings);
        }
    }
}
