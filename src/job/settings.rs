//! Typed settings that several jobs share, with the rules that resolve them (defaults,
//! validation, what a run records). They are also the command line's option groups (each
//! derives `clap::Args`), so a flag, its default and a rule such as "8 sequences per batch on
//! the CPU" are written once.

use crate::detector::engine::BatchShapes;
use crate::detector::onnx::Precision;
use crate::detector::{
    has_gpu_graph, model_path, parse_devices, Detector, DetectorError, DetectorOptions, Device,
};
use crate::run::RunSettings;

/// A detector as a job names it: its spec, and how and where it runs (the command line's
/// detector options).
#[derive(Debug, Clone, clap::Args)]
pub struct DetectorSettings {
    /// minilm (default), minilm-int8, onnx:PATH (a model directory), jaccard, sourcerercc, nicad;
    /// behind a defence: canon:SPEC (both programs read in a canonical form: names, layout,
    /// literals) or smooth:K:SPEC (the mean over K paired SPT perturbations, K times the queries).
    #[arg(
        id = "detector",
        long = "detector",
        default_value = "minilm",
        value_name = "SPEC"
    )]
    pub spec: String,
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
    pub precision: Precision,
    /// Batch layout: exact (padded to each batch's longest; the default on CPU and for fp32
    /// graphs on CUDA) or fixed (length buckets and full rows, so results do not depend on
    /// what shares a batch and several tasks can share batches; the default for the fused
    /// fp16 graph on CUDA).
    #[arg(
        id = "batch_shapes",
        long = "batch-shapes",
        value_enum,
        value_name = "exact|fixed"
    )]
    pub shapes: Option<BatchShapes>,
}

impl DetectorSettings {
    /// `spec` on `device` with every other setting at its default.
    pub fn on(spec: impl Into<String>, device: impl Into<String>) -> Self {
        DetectorSettings {
            spec: spec.into(),
            device: device.into(),
            threads: None,
            batch_size: None,
            precision: Precision::Auto,
            shapes: None,
        }
    }

    /// The options the detector is built with.
    pub fn options(&self) -> Result<DetectorOptions, DetectorError> {
        let devices = parse_devices(&self.device)
            .map_err(|e| DetectorError::Device(format!("--device {e}")))?;
        let gpu = devices.iter().any(|d| matches!(d, Device::Cuda(_)));
        let mut options = DetectorOptions {
            devices,
            batch_size: 1,
            precision: self.precision,
            shapes: self.shapes,
            ..DetectorOptions::default()
        };
        if let Some(t) = self.threads {
            options.threads = t.max(1);
        }
        // Measured on an H100: fixed-shape batches are fastest at 32 rows (full batches, so
        // little filler), exact ones at 128; on CPU 8 beats 32 and halves peak memory.
        let fixed = options.batch_shapes(has_gpu_graph(&self.spec)) == BatchShapes::Fixed;
        options.batch_size = self
            .batch_size
            .unwrap_or(match (gpu, fixed) {
                (false, _) => 8,
                (true, true) => 32,
                (true, false) => 128,
            })
            .max(1);
        Ok(options)
    }

    /// Records, for a model detector, what changes its scores: the graph (precision) and the
    /// batch layout (a resumed run must score as the first part did).
    pub fn record(&self, settings: &mut RunSettings) -> Result<(), DetectorError> {
        if model_path(&self.spec).is_some() {
            let o = self.options()?;
            let fused = has_gpu_graph(&self.spec);
            // The graph that runs, not the flag: auto means fp16 on CUDA, fp32 on CPU.
            let graph = match self.precision {
                Precision::Fp16 => "fp16",
                Precision::Auto if o.on_gpu() && fused => "fp16",
                _ => "fp32",
            };
            settings.set("precision", graph).set(
                "batch shapes",
                format!("{:?}", o.batch_shapes(fused)).to_lowercase(),
            );
        }
        Ok(())
    }

    /// Builds the detector.
    pub fn open(&self) -> Result<Box<dyn Detector>, DetectorError> {
        crate::detector::open(&self.spec, self.options()?)
    }
}

/// Why a job's settings cannot be used as given.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A value outside its range (the message names the option).
    #[error("{0}")]
    Invalid(&'static str),
    /// The transform runtime could not start.
    #[error(transparent)]
    Transforms(#[from] crate::transform::LoadError),
    /// The oracle could not start.
    #[error(transparent)]
    Oracle(#[from] crate::oracle::OracleError),
}

/// The limits every transform call runs under, and the compiled-component cache (the command
/// line's sandbox options).
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxSettings {
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
    pub cache_dir: Option<std::path::PathBuf>,
}

impl SandboxSettings {
    /// The transform runtime these settings describe.
    pub fn runtime(&self) -> Result<crate::transform::TransformRuntime, SettingsError> {
        use crate::transform::{Limits, TransformRuntime};
        use std::time::Duration;
        if self.wasm_memory_mb == 0 || self.script_memory_mb == 0 || self.max_output_mb == 0 {
            return Err(SettingsError::Invalid(
                "memory and output limits must be at least 1 MiB",
            ));
        }
        let limits = Limits {
            memory_bytes: self.wasm_memory_mb << 20,
            wall_time: Duration::from_millis(self.wasm_timeout_ms.max(1)),
            output_bytes: self.max_output_mb << 20,
        };
        let script_limits = Limits {
            memory_bytes: self.script_memory_mb << 20,
            wall_time: Duration::from_millis(self.script_timeout_ms.max(1)),
            output_bytes: self.max_output_mb << 20,
        };
        Ok(
            TransformRuntime::new(limits, self.cache_dir.clone())?
                .with_script_limits(script_limits),
        )
    }
}

/// How the oracle runs programs: what decides a verdict (interpreter, time limits, memory,
/// tolerance) and what only decides speed (mode, workers, cache). The command line's oracle
/// options.
#[derive(Debug, Clone, clap::Args)]
pub struct OracleSettings {
    /// Python interpreter for the tests (default: /usr/bin/python3, else python3 on PATH).
    #[arg(long, value_name = "PATH")]
    pub python: Option<std::path::PathBuf>,
    /// `java` launcher of a JDK, for Java tasks (default: /usr/bin/java, else java on PATH).
    #[arg(long, value_name = "PATH")]
    pub java: Option<std::path::PathBuf>,
    /// fork: a sandboxed fork server per worker (fast); spawn: a fresh interpreter per test.
    #[arg(
        id = "oracle_mode",
        long = "oracle-mode",
        value_enum,
        default_value = "fork",
        value_name = "ORACLE_MODE"
    )]
    pub mode: crate::oracle::OracleMode,
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
    #[arg(
        id = "oracle_cache_entries",
        long = "oracle-cache-entries",
        default_value_t = 200_000,
        value_name = "N"
    )]
    pub cache_entries: usize,
    /// Most memory the oracle's decisions may hold, in MiB.
    #[arg(
        id = "oracle_cache_mb",
        long = "oracle-cache-mb",
        default_value_t = 64,
        value_name = "MIB"
    )]
    pub cache_mb: usize,
}

impl OracleSettings {
    /// Records what decides a verdict in a run's settings; how many programs run at once and
    /// how they are started do not (a resumed run may change them).
    pub fn record(&self, settings: &mut RunSettings) {
        let python = self
            .python
            .as_ref()
            .map_or("default".into(), |p| p.display().to_string());
        settings
            .set("python", python)
            .set(
                "timeouts",
                format!(
                    "original × {}, {}–{} s",
                    self.timeout_factor, self.timeout_floor, self.timeout_cap
                ),
            )
            .set("memory", format!("{} MiB", self.memory_mb))
            .set_opt("float tolerance", self.float_tolerance);
    }

    /// The oracle's configuration, or which setting is out of range.
    pub fn config(&self) -> Result<crate::oracle::OracleConfig, SettingsError> {
        use std::time::Duration;
        let mut config = crate::oracle::OracleConfig {
            mode: self.mode,
            ..crate::oracle::OracleConfig::default()
        };
        if let Some(p) = &self.python {
            config.python = p.clone();
        }
        if let Some(j) = &self.java {
            config.java = j.clone();
        }
        if let Some(j) = self.jobs {
            if j == 0 {
                return Err(SettingsError::Invalid("--jobs must be at least 1"));
            }
            config.jobs = j;
        }
        if !(self.timeout_floor > 0.0
            && self.timeout_cap >= self.timeout_floor
            && self.timeout_factor > 0.0)
        {
            return Err(SettingsError::Invalid(
                "timeouts must satisfy 0 < --timeout-floor <= --timeout-cap and --timeout-factor > 0",
            ));
        }
        config.timeout_factor = self.timeout_factor;
        config.timeout_floor = Duration::from_secs_f64(self.timeout_floor);
        config.timeout_cap = Duration::from_secs_f64(self.timeout_cap);
        config.limits.address_space = self.memory_mb << 20;
        config.float_tolerance = self.float_tolerance;
        config.cache_entries = self.cache_entries.max(1);
        config.cache_bytes = self.cache_mb << 20;
        Ok(config)
    }

    /// Starts the oracle; the sandbox's warnings (isolation it could not set up) go to
    /// `notices`.
    pub fn start(
        &self,
        notices: &dyn super::Notices,
    ) -> Result<crate::oracle::Oracle, SettingsError> {
        let oracle = crate::oracle::Oracle::new(self.config()?)?;
        for w in &oracle.isolation().warnings {
            notices.warn(&format!("sandbox: {w}"));
        }
        Ok(oracle)
    }
}

/// Records the task file (path and content digest) in a run's settings.
pub fn record_tasks(settings: &mut RunSettings, tasks: &std::path::Path) {
    settings
        .set("tasks", tasks.display())
        .set("tasks digest", crate::run::digest_setting(tasks));
}

/// Records the dataset filters (they decide which tasks a run holds) in a run's settings.
pub fn record_filters(settings: &mut RunSettings, options: &crate::task::LoadOptions) {
    let list = |v: &[String]| (!v.is_empty()).then(|| v.join(","));
    settings
        .set_opt("codenet status", list(&options.statuses))
        .set_opt("codenet language", list(&options.languages))
        .set_opt(
            "codenet root",
            options
                .codenet_root
                .as_ref()
                .map(|p| p.display().to_string()),
        );
}

/// Records the detector (spec and a digest of its model directory) in a run's settings.
pub fn record_detector(settings: &mut RunSettings, spec: &str) {
    let model = model_path(spec).map(|p| {
        // A `.toml` names one model of its directory; the directory holds what it reads.
        let dir = if p.is_file() {
            p.parent().map(std::path::Path::to_path_buf).unwrap_or(p)
        } else {
            p
        };
        crate::run::digest_setting(&dir)
    });
    settings
        .set("detector", spec)
        .set_opt("model digest", model);
}

/// Records the transforms (name and digest of the file each came from) in a run's settings.
pub fn record_transforms<'a>(
    settings: &mut RunSettings,
    transforms: impl IntoIterator<Item = &'a crate::transform::LoadedTransform>,
) {
    let list: Vec<String> = transforms
        .into_iter()
        .map(|t| format!("{}@{}", t.name, crate::run::digest_setting(&t.file)))
        .collect();
    settings.set("transforms", list.join(", "));
}

/// Loads a task file with `options`' filters; each load problem (the first 20) is a warning
/// and what was kept and skipped, by reason, a note. An unrecognised file's error names the
/// command's format option, `flag`.
pub fn load_dataset(
    path: &std::path::Path,
    format: Option<crate::task::TaskFormat>,
    flag: &str,
    options: &crate::task::LoadOptions,
    notices: &dyn super::Notices,
) -> Result<crate::task::TaskSet, LoadDatasetError> {
    use crate::task::TaskError;
    const SHOWN: usize = 20;
    let set = crate::task::load_with(path, format, options).map_err(|e| match e {
        TaskError::UnknownFormat { .. } => LoadDatasetError::Format {
            source: e,
            flag: flag.to_string(),
        },
        e => LoadDatasetError::Task(e),
    })?;
    for p in set.problems.iter().take(SHOWN) {
        notices.warn(&p.to_string());
    }
    if set.problems.len() > SHOWN {
        notices.warn(&format!(
            "… and {} more load problems",
            set.problems.len() - SHOWN
        ));
    }
    notices.note(&format!("{}: {}", path.display(), set.report()));
    Ok(set)
}

/// Why a task file did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadDatasetError {
    /// Its format is not recognised: the message says which option chooses it.
    #[error("{source} (pass {flag} jsonl|humaneval|codecontests|parquet|codenet)")]
    Format {
        /// The loader's error.
        source: crate::task::TaskError,
        /// The command's format option.
        flag: String,
    },
    /// It could not be read or parsed.
    #[error(transparent)]
    Task(#[from] crate::task::TaskError),
}

/// `--verify symbolic`: CrossHair's differential check, and its budget.
#[derive(Debug, Clone)]
pub struct SymbolicSettings {
    /// Seconds CrossHair may spend per check.
    pub budget: f64,
    /// Python with crosshair-tool (default: the virtualenv setup installs).
    pub python: Option<std::path::PathBuf>,
}

impl SymbolicSettings {
    /// Starts the checker.
    pub fn checker(
        &self,
    ) -> Result<crate::adequacy::symbolic::SymbolicChecker, SymbolicSettingsError> {
        use crate::adequacy::symbolic::{default_crosshair_python, SymbolicChecker};
        if !(self.budget > 0.0 && self.budget.is_finite()) {
            return Err(SymbolicSettingsError::Budget);
        }
        let python = self.python.clone().unwrap_or_else(default_crosshair_python);
        let budget = std::time::Duration::from_secs_f64(self.budget);
        Ok(SymbolicChecker::new(python, budget)?)
    }

    /// Records the check in a run's settings (only when asked for: directories of runs
    /// without it resume as before).
    pub fn record(&self, settings: &mut RunSettings) {
        settings.set("verify", format!("symbolic ({} s per check)", self.budget));
    }
}

/// Why the symbolic checker did not start.
#[derive(Debug, thiserror::Error)]
pub enum SymbolicSettingsError {
    /// The budget is not a positive number.
    #[error("--symbolic-budget must be a positive number of seconds")]
    Budget,
    /// CrossHair is missing or does not run.
    #[error(transparent)]
    Checker(#[from] crate::adequacy::symbolic::SymbolicError),
}

/// The transform set a spec names (comma-separated directories, files and names of the
/// default directory), or the whole default directory.
pub fn load_transforms(
    runtime: &crate::transform::TransformRuntime,
    spec: Option<&str>,
) -> Result<crate::transform::TransformSet, crate::transform::LoadError> {
    use crate::transform::{default_transforms_dir, TransformSet};
    match spec {
        Some(spec) => TransformSet::load_spec(runtime, spec, &default_transforms_dir()),
        None => TransformSet::load_dir(runtime, &default_transforms_dir()),
    }
}

/// The transform set a spec names (see [`load_transforms`]), refusing an empty one: a job
/// that applies a set needs at least one transform.
pub fn load_transform_set(
    runtime: &crate::transform::TransformRuntime,
    spec: Option<&str>,
) -> Result<crate::transform::TransformSet, SettingsError> {
    let set = load_transforms(runtime, spec)?;
    if set.is_empty() {
        return Err(SettingsError::Invalid("no transforms selected"));
    }
    Ok(set)
}

/// The transforms `items` names, in order: a file path (`.py` or `.wasm`) is loaded on its
/// own; any other item is a name in the set `spec` describes (loaded only if needed).
pub fn resolve_steps(
    runtime: &crate::transform::TransformRuntime,
    spec: Option<&str>,
    items: &[String],
) -> Result<Vec<crate::transform::LoadedTransform>, ResolveStepError> {
    let is_file = |item: &str| {
        let p = std::path::Path::new(item);
        p.is_file() || item.ends_with(".py") || item.ends_with(".wasm")
    };
    let set = if items.iter().any(|i| !is_file(i)) {
        Some(load_transforms(runtime, spec)?)
    } else {
        None
    };
    items
        .iter()
        .map(|item| match &set {
            _ if is_file(item) => Ok(runtime.load(std::path::Path::new(item))?),
            Some(set) => Ok(set.get(item)?.clone()),
            None => Err(ResolveStepError::Unknown(item.clone())),
        })
        .collect()
}

/// Why a step's transform could not be found or loaded.
#[derive(Debug, thiserror::Error)]
pub enum ResolveStepError {
    /// Neither a file nor a name in the set.
    #[error("unknown transform {0:?}")]
    Unknown(String),
    /// It did not load.
    #[error(transparent)]
    Load(#[from] crate::transform::LoadError),
}

/// What every run records about its inputs in `run.json` (a rerun resumes only with the same
/// ones): the task file and its filters, the detector (or that there is none), the transforms
/// and what decides the oracle's verdicts.
pub struct RunInputs<'a> {
    /// The task file.
    pub tasks: &'a std::path::Path,
    /// Its dataset filters.
    pub filters: &'a crate::task::LoadOptions,
    /// The detector; `None` is recorded as not set.
    pub detector: Option<&'a DetectorSettings>,
    /// The transforms, for jobs that apply a set (`None`: not recorded).
    pub transforms: Option<&'a crate::transform::TransformSet>,
    /// The oracle.
    pub oracle: &'a OracleSettings,
}

impl RunInputs<'_> {
    /// The settings recording these inputs.
    pub fn record(&self) -> Result<RunSettings, DetectorError> {
        let mut settings = RunSettings::new();
        record_tasks(&mut settings, self.tasks);
        record_filters(&mut settings, self.filters);
        match self.detector {
            Some(d) => {
                record_detector(&mut settings, &d.spec);
                d.record(&mut settings)?;
            }
            None => {
                settings.set("detector", crate::run::NOT_SET);
            }
        }
        if let Some(t) = self.transforms {
            record_transforms(&mut settings, t.iter());
        }
        self.oracle.record(&mut settings);
        Ok(settings)
    }
}

/// An OpenAI-compatible endpoint and how to talk to it (the command line's LLM options).
#[derive(Debug, Clone, clap::Args)]
pub struct LlmSettings {
    /// Base URL of an OpenAI-compatible API (…/v1); `/chat/completions` is appended. The key
    /// comes from OPENAI_API_KEY and is sent as a bearer token only.
    #[arg(
        id = "llm_url",
        long = "llm-url",
        env = "OPENAI_BASE_URL",
        value_name = "URL",
        default_value = ""
    )]
    pub url: String,
    /// Model name.
    #[arg(id = "llm_model", long = "llm-model", value_name = "NAME")]
    pub model: String,
    /// Requests in flight at once.
    #[arg(
        id = "llm_concurrency",
        long = "llm-concurrency",
        default_value_t = 4,
        value_name = "N"
    )]
    pub concurrency: usize,
    /// Timeout of one request, in seconds.
    #[arg(
        id = "llm_timeout",
        long = "llm-timeout",
        default_value_t = 120.0,
        value_name = "SECONDS"
    )]
    pub timeout: f64,
    /// Retries of a request on 429, 5xx and network errors (exponential backoff with jitter,
    /// or the server's Retry-After).
    #[arg(
        id = "llm_retries",
        long = "llm-retries",
        default_value_t = 5,
        value_name = "N"
    )]
    pub retries: u32,
    /// Hard budget: at most this many HTTP requests (retries included; cache hits are free).
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Cache of every exchange (default: ~/.cache/equimorph/llm).
    #[arg(id = "llm_cache", long = "llm-cache", value_name = "DIR")]
    pub cache: Option<std::path::PathBuf>,
    /// Use only the cache; a request that is not in it is an error.
    #[arg(long)]
    pub offline: bool,
}

/// Why the LLM client did not start.
#[derive(Debug, thiserror::Error)]
pub enum LlmSettingsError {
    /// The timeout is not a positive number.
    #[error("--llm-timeout must be a positive number of seconds")]
    Timeout,
    /// No cache directory can be found.
    #[error("no HOME: give --llm-cache")]
    NoCache,
    /// The client did not start.
    #[error(transparent)]
    Client(#[from] crate::llm::LlmError),
}

impl LlmSettings {
    /// The client these settings describe.
    pub fn client(&self) -> Result<crate::llm::LlmClient, LlmSettingsError> {
        use crate::llm::{LlmClient, LlmConfig};
        use std::time::Duration;
        if !self.timeout.is_finite() || self.timeout <= 0.0 {
            return Err(LlmSettingsError::Timeout);
        }
        let cache_dir = match &self.cache {
            Some(d) => d.clone(),
            None => crate::install::user_cache_dir()
                .ok_or(LlmSettingsError::NoCache)?
                .join("llm"),
        };
        let api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.trim().is_empty());
        Ok(LlmClient::new(LlmConfig {
            base_url: self.url.clone(),
            model: self.model.clone(),
            api_key,
            timeout: Duration::from_secs_f64(self.timeout),
            retries: self.retries,
            backoff: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            concurrency: self.concurrency.max(1),
            max_requests: self.max_requests,
            cache_dir,
            offline: self.offline,
        })?)
    }
}

/// Reads a UTF-8 text file, or standard input for `-`, with errors that name the file.
pub fn read_text(path: &std::path::Path) -> Result<String, ReadTextError> {
    use std::io::Read;
    let bytes = if path == std::path::Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(ReadTextError::Stdin)?;
        buf
    } else {
        std::fs::read(path).map_err(|source| ReadTextError::Read {
            path: path.to_path_buf(),
            source,
        })?
    };
    String::from_utf8(bytes).map_err(|e| ReadTextError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Why a text file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadTextError {
    /// Standard input failed.
    #[error("reading standard input: {0}")]
    Stdin(std::io::Error),
    /// The file could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not UTF-8.
    #[error("{} is not valid UTF-8 (invalid byte at offset {offset})", .path.display())]
    NotUtf8 {
        /// The file.
        path: std::path::PathBuf,
        /// Where the first invalid byte is.
        offset: usize,
    },
}

/// Splits `a,b, c` into names (empty items dropped).
pub fn split_names(spec: &str) -> Vec<String> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}
