//! Options and helpers shared by several subcommands.

use anyhow::Result;
use clap::Args;
use equimorph::train::{Backend, Mode};
use equimorph::transform::{TransformRuntime, TransformSet};
use std::path::{Path, PathBuf};

/// Where transforms come from and how they are sandboxed.
#[derive(Args, Debug, Clone)]
pub struct TransformOptions {
    /// Comma-separated directories of transforms (.wasm components and .py scripts), single
    /// transform files, and names from the default directory, mixed
    /// (default: $EQUIMORPH_TRANSFORMS or build/transforms).
    #[arg(long, value_name = "DIR|FILE|NAME,...")]
    pub transforms: Option<String>,
    #[command(flatten)]
    pub sandbox: SandboxOptions,
}

/// The limits every transform call runs under, and the compiled-component cache.
#[derive(Args, Debug, Clone)]
pub struct SandboxOptions {
    /// Memory limit of one component call, in MiB (all linear memories together).
    #[arg(long, default_value_t = 256, value_name = "MIB")]
    pub wasm_memory_mb: usize,
    /// Wall-time limit of one component call, in milliseconds.
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub wasm_timeout_ms: u64,
    /// Memory limit of one script-transform call, in MiB (CPython's own heap included).
    #[arg(long, default_value_t = 256, value_name = "MIB")]
    pub script_memory_mb: usize,
    /// Wall-time limit of one script-transform call, in milliseconds.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub script_timeout_ms: u64,
    /// Largest output of one transform call, in MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB")]
    pub max_output_mb: usize,
    /// Directory for compiled components (default: ~/.cache/equimorph/components).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

impl SandboxOptions {
    /// The typed settings these options give.
    pub fn settings(&self) -> equimorph::job::settings::SandboxSettings {
        equimorph::job::settings::SandboxSettings {
            wasm_memory_mb: self.wasm_memory_mb,
            wasm_timeout_ms: self.wasm_timeout_ms,
            script_memory_mb: self.script_memory_mb,
            script_timeout_ms: self.script_timeout_ms,
            max_output_mb: self.max_output_mb,
            cache_dir: self.cache_dir.clone(),
        }
    }

    /// The runtime these options describe.
    pub fn runtime(&self) -> Result<TransformRuntime> {
        Ok(self.settings().runtime()?)
    }
}

impl TransformOptions {
    /// The runtime these options describe.
    pub fn runtime(&self) -> Result<TransformRuntime> {
        self.sandbox.runtime()
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

/// How the oracle runs programs.
#[derive(Args, Debug, Clone)]
pub struct OracleOptions {
    /// Python interpreter for the tests (default: /usr/bin/python3, else python3 on PATH).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// `java` launcher of a JDK, for Java tasks (default: /usr/bin/java, else java on PATH).
    #[arg(long, value_name = "PATH")]
    pub java: Option<PathBuf>,
    /// fork: a sandboxed fork server per worker (fast); spawn: a fresh interpreter per test.
    #[arg(long, value_enum, default_value = "fork")]
    pub oracle_mode: equimorph::oracle::OracleMode,
    /// Most test programs running at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// A candidate's timeout is the original's time on the test times this factor...
    #[arg(long, default_value_t = 5.0, value_name = "X")]
    pub timeout_factor: f64,
    /// ...but at least this many seconds...
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS")]
    pub timeout_floor: f64,
    /// ...and at most this many (also the original's own limit).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub timeout_cap: f64,
    /// Address-space limit of a test program, in MiB.
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    pub memory_mb: u64,
    /// Accept float tokens that differ by at most this (absolute or relative).
    #[arg(long, value_name = "TOL")]
    pub float_tolerance: Option<f64>,
    /// Most oracle decisions kept in memory (least recently used ones are dropped).
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    pub oracle_cache_entries: usize,
    /// Most memory the oracle's decisions may hold, in MiB.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub oracle_cache_mb: usize,
}

impl OracleOptions {
    /// The typed settings these options give.
    pub fn settings(&self) -> equimorph::job::settings::OracleSettings {
        equimorph::job::settings::OracleSettings {
            python: self.python.clone(),
            java: self.java.clone(),
            mode: self.oracle_mode,
            jobs: self.jobs,
            timeout_factor: self.timeout_factor,
            timeout_floor: self.timeout_floor,
            timeout_cap: self.timeout_cap,
            memory_mb: self.memory_mb,
            float_tolerance: self.float_tolerance,
            cache_entries: self.oracle_cache_entries,
            cache_mb: self.oracle_cache_mb,
        }
    }

    /// Starts the oracle these options describe (the sandbox's warnings on stderr).
    pub fn oracle(&self) -> Result<equimorph::oracle::Oracle> {
        Ok(self.settings().start(&Stderr)?)
    }
}

/// Which programs of a dataset a command loads (CodeNet's metadata filters and tests).
#[derive(Args, Debug, Clone, Default)]
pub struct DatasetArgs {
    /// CodeNet: submission statuses to keep, as in metadata/pNNNNN.csv (comma-separated or
    /// repeated; default Accepted).
    #[arg(long = "status", value_delimiter = ',', value_name = "STATUS")]
    pub statuses: Vec<String>,
    /// Languages to keep. CodeNet: the metadata's `language` (`Python`, `Java`, `C++`, `C`),
    /// or a prefix of its `original_language` such as "PyPy3" (default: Python 3 and PyPy3;
    /// a C++1000/C++1400 subset loads as C++). CodeContests: `python` (Python 3 solutions,
    /// the default), `java`, `cpp`, or several.
    #[arg(long = "language", value_delimiter = ',', value_name = "LANG")]
    pub languages: Vec<String>,
    /// CodeNet: the full dataset's root, to take tests, metadata and problem clusters from
    /// when the tasks are a benchmark subset such as Project_CodeNet_Python800.
    #[arg(long, value_name = "DIR")]
    pub codenet_root: Option<PathBuf>,
}

impl DatasetArgs {
    /// The loader options these flags describe.
    pub fn options(&self) -> equimorph::task::LoadOptions {
        equimorph::task::LoadOptions {
            statuses: self.statuses.clone(),
            languages: self.languages.clone(),
            codenet_root: self.codenet_root.clone(),
        }
    }
}

/// Loads tasks for a command whose format option is called `flag`, with `dataset`'s filters;
/// load problems and the load report on stderr.
pub fn load_dataset(
    path: &Path,
    format: Option<equimorph::task::TaskFormat>,
    flag: &str,
    dataset: &DatasetArgs,
) -> Result<equimorph::task::TaskSet> {
    let options = dataset.options();
    Ok(equimorph::job::settings::load_dataset(
        path, format, flag, &options, &Stderr,
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

/// Which detector and where it runs.
#[derive(Args, Debug, Clone)]
pub struct DetectorArgs {
    /// minilm (default), minilm-int8, onnx:PATH (a model directory), jaccard, sourcerercc, nicad;
    /// behind a defence: canon:SPEC (both programs read in a canonical form: names, layout,
    /// literals) or smooth:K:SPEC (the mean over K paired SPT perturbations, K times the queries).
    #[arg(long, default_value = "minilm", value_name = "SPEC")]
    pub detector: String,
    /// cpu, or cuda / cuda:N / cuda:N,M,… (the CUDA execution provider of onnxruntime-gpu; with
    /// several GPUs, one session each and batches spread over them).
    #[arg(long, default_value = "cpu", value_name = "cpu|cuda[:N,…]")]
    pub device: String,
    /// ONNX Runtime intra-op threads (default: the core count).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Sequences per inference call (default 8 on CPU, measured faster than 32 there and half
    /// the peak memory; on CUDA 32 with fixed batch shapes, 128 with exact ones).
    #[arg(long, value_name = "N")]
    pub batch_size: Option<usize>,
    /// Which graph runs: auto (the model's fused fp16 graph on CUDA, fp32 on CPU), fp32, fp16.
    #[arg(long, default_value = "auto", value_enum)]
    pub precision: PrecisionArg,
    /// Batch layout: exact (padded to each batch's longest; the default on CPU and for fp32
    /// graphs on CUDA) or fixed (length buckets and full rows, so results do not depend on
    /// what shares a batch and several tasks can share batches; the default for the fused
    /// fp16 graph on CUDA).
    #[arg(long, value_enum, value_name = "exact|fixed")]
    pub batch_shapes: Option<ShapesArg>,
}

/// `--precision`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrecisionArg {
    /// fp16 graph on CUDA when the model has one, fp32 otherwise.
    Auto,
    /// The fp32 graph.
    Fp32,
    /// The fused fp16 graph, on any device.
    Fp16,
}

/// `--batch-shapes`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapesArg {
    /// Padded to each batch's longest.
    Exact,
    /// Length buckets and full rows.
    Fixed,
}

impl From<PrecisionArg> for equimorph::detector::onnx::Precision {
    fn from(p: PrecisionArg) -> Self {
        match p {
            PrecisionArg::Auto => Self::Auto,
            PrecisionArg::Fp32 => Self::Fp32,
            PrecisionArg::Fp16 => Self::Fp16,
        }
    }
}

impl From<ShapesArg> for equimorph::detector::engine::BatchShapes {
    fn from(s: ShapesArg) -> Self {
        match s {
            ShapesArg::Exact => Self::Exact,
            ShapesArg::Fixed => Self::Fixed,
        }
    }
}

impl DetectorArgs {
    /// The typed settings these arguments give.
    pub fn settings(&self) -> equimorph::job::settings::DetectorSettings {
        equimorph::job::settings::DetectorSettings {
            spec: self.detector.clone(),
            device: self.device.clone(),
            threads: self.threads,
            batch_size: self.batch_size,
            precision: self.precision.into(),
            shapes: self.batch_shapes.map(Into::into),
        }
    }

    /// Builds the detector.
    pub fn open(&self) -> Result<Box<dyn equimorph::detector::Detector>> {
        Ok(self.settings().open()?)
    }
}

/// Which language model, and how to talk to it.
#[derive(Args, Debug, Clone)]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API (…/v1); `/chat/completions` is appended. The key
    /// comes from OPENAI_API_KEY and is sent as a bearer token only.
    #[arg(long, env = "OPENAI_BASE_URL", value_name = "URL", default_value = "")]
    pub llm_url: String,
    /// Model name.
    #[arg(long, value_name = "NAME")]
    pub llm_model: String,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub llm_concurrency: usize,
    /// Timeout of one request, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    pub llm_timeout: f64,
    /// Retries of a request on 429, 5xx and network errors (exponential backoff with jitter,
    /// or the server's Retry-After).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub llm_retries: u32,
    /// Hard budget: at most this many HTTP requests (retries included; cache hits are free).
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Cache of every exchange (default: ~/.cache/equimorph/llm).
    #[arg(long, value_name = "DIR")]
    pub llm_cache: Option<PathBuf>,
    /// Use only the cache; a request that is not in it is an error.
    #[arg(long)]
    pub offline: bool,
}

impl LlmArgs {
    /// The client these options describe.
    pub fn client(&self) -> Result<equimorph::llm::LlmClient> {
        let settings = equimorph::job::settings::LlmSettings {
            url: self.llm_url.clone(),
            model: self.llm_model.clone(),
            concurrency: self.llm_concurrency,
            timeout: self.llm_timeout,
            retries: self.llm_retries,
            max_requests: self.max_requests,
            cache: self.llm_cache.clone(),
            offline: self.offline,
        };
        Ok(settings.client()?)
    }
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
