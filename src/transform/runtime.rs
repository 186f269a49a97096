//! The wasmtime engine, per-call limits and loaded transforms.

use super::bindings::TransformPre;
use super::bindings_v01::TransformPre as TransformPreV01;
use super::cache::{default_cache_dir, load_component};
use super::error::{ApplyError, LoadError};
use super::runner_bindings::ScriptRunnerPre;
use super::script::{default_script_runner, ScriptHeader};
use crate::program::Language;
use rand::{RngCore, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, ResourceLimiter, Store, Trap};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Granularity of the wall-time limit.
const TICK: Duration = Duration::from_millis(2);

/// Per-call limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Total bytes of linear memory across all of the instance's memories.
    pub memory_bytes: usize,
    /// Wall time of one call.
    pub wall_time: Duration,
    /// Largest output accepted, in bytes.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 256 << 20,
            wall_time: Duration::from_secs(2),
            output_bytes: 16 << 20,
        }
    }
}

impl Limits {
    /// Defaults for script transforms: the same memory as a component (CPython's snapshot runs
    /// a typical AST-based script on a 100-line program in 16 MiB), more time (an interpreter
    /// in WebAssembly is far slower than a compiled Rust guest).
    pub fn script_default() -> Self {
        Limits {
            memory_bytes: 256 << 20,
            wall_time: Duration::from_secs(5),
            output_bytes: 16 << 20,
        }
    }
}

/// What a transform is made of. Search, `apply`, `select` and reports do not depend on it; it is
/// shown by `transforms list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransformKind {
    /// A WebAssembly component of the `transform` world.
    Component,
    /// A Python script run by the script-runner component.
    Script,
}

impl TransformKind {
    /// `component` or `script`.
    pub fn label(self) -> &'static str {
        match self {
            TransformKind::Component => "component",
            TransformKind::Script => "script",
        }
    }
}

/// Store data of one call: the memory accounting and an empty WASI context.
struct HostState {
    limiter: TotalMemoryLimiter,
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// Caps the *sum* of all linear memories (wasmtime's own builder caps each one separately).
struct TotalMemoryLimiter {
    limit: usize,
    total: usize,
    hit: bool,
}

impl ResourceLimiter for TotalMemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let next = self.total.saturating_sub(current).saturating_add(desired);
        if next > self.limit {
            self.hit = true;
            return Ok(false);
        }
        self.total = next;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }
}

/// Increments the engine epoch every [`TICK`] until dropped.
struct EpochTicker {
    stop: Arc<AtomicBool>,
}

impl EpochTicker {
    fn start(engine: &Engine) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (engine, flag) = (engine.clone(), stop.clone());
        std::thread::Builder::new()
            .name("equimorph-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                }
            })
            .ok();
        EpochTicker { stop }
    }
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The engine shared by every transform, with its linker, limits and cache.
pub struct TransformRuntime {
    engine: Engine,
    linker: Linker<HostState>,
    limits: Limits,
    script_limits: Limits,
    cache_dir: Option<PathBuf>,
    runner_path: PathBuf,
    /// The script runner, compiled on first use (seconds the first time, then from the cache).
    runner: OnceLock<Result<Arc<ScriptRunnerPre<HostState>>, String>>,
    _ticker: Arc<EpochTicker>,
}

impl TransformRuntime {
    /// A runtime with `limits`, caching compiled components in `cache_dir` (`None`: the default
    /// cache directory; use [`TransformRuntime::without_cache`] to disable caching).
    pub fn new(limits: Limits, cache_dir: Option<PathBuf>) -> Result<Self, LoadError> {
        Self::build(limits, cache_dir.or_else(default_cache_dir))
    }

    /// A runtime that compiles components in memory every time.
    pub fn without_cache(limits: Limits) -> Result<Self, LoadError> {
        Self::build(limits, None)
    }

    fn build(limits: Limits, cache_dir: Option<PathBuf>) -> Result<Self, LoadError> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        config.wasm_component_model(true);
        config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool_config()));
        config.memory_init_cow(false);
        // The pool reserves address space up front; where that is refused (a `ulimit -v`, say),
        // fall back to allocating every instance on demand.
        let engine = Engine::new(&config).or_else(|_| {
            config.allocation_strategy(wasmtime::InstanceAllocationStrategy::OnDemand);
            Engine::new(&config)
        });
        let engine = engine.map_err(|e| LoadError::Engine(e.to_string()))?;
        let mut linker = Linker::new(&engine);
        // Python guests import WASI; they get an empty context (no files, env, args, network).
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| LoadError::Engine(e.to_string()))?;
        let ticker = Arc::new(EpochTicker::start(&engine));
        Ok(TransformRuntime {
            engine,
            linker,
            limits,
            script_limits: Limits::script_default(),
            cache_dir,
            runner_path: default_script_runner(),
            runner: OnceLock::new(),
            _ticker: ticker,
        })
    }

    /// Sets the per-call limits of script transforms (default: [`Limits::script_default`]).
    pub fn with_script_limits(mut self, limits: Limits) -> Self {
        self.script_limits = limits;
        self
    }

    /// Uses the script-runner component at `path` (default: [`default_script_runner`]).
    pub fn with_script_runner(mut self, path: PathBuf) -> Self {
        self.runner_path = path;
        self.runner = OnceLock::new();
        self
    }

    /// The per-call limits of components.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The per-call limits of scripts.
    pub fn script_limits(&self) -> Limits {
        self.script_limits
    }

    /// The script-runner component file.
    pub fn script_runner_path(&self) -> &Path {
        &self.runner_path
    }

    /// The directory of cached compiled components, if caching is on.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// Loads one transform file: a `.py` script, or else a component asked for its `info()`.
    pub fn load(&self, path: &Path) -> Result<LoadedTransform, LoadError> {
        if path.extension().is_some_and(|e| e == "py") {
            return self.load_script(path);
        }
        let bytes = std::fs::read(path).map_err(|error| LoadError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        if !bytes.starts_with(b"\0asm") {
            return Err(LoadError::Invalid {
                path: path.to_path_buf(),
                message: "not a WebAssembly file (it does not start with the \\0asm header)".into(),
            });
        }
        let invalid = |e: wasmtime::Error| LoadError::Invalid {
            path: path.to_path_buf(),
            message: format!("{e:#}")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        };
        let component =
            load_component(&self.engine, self.cache_dir.as_deref(), &bytes).map_err(invalid)?;
        let instance_pre = self.linker.instantiate_pre(&component).map_err(invalid)?;
        // The current WIT version first; a component whose `info` lacks `language` was built
        // against 0.1.0 and is a Python transform.
        let backend = match TransformPre::new(instance_pre.clone()) {
            Ok(pre) => Backend::Component(Arc::new(pre)),
            Err(current) => match TransformPreV01::new(instance_pre) {
                Ok(pre) => Backend::ComponentV01(Arc::new(pre)),
                Err(_) => return Err(invalid(current)),
            },
        };
        let mut loaded = LoadedTransform {
            name: String::new(),
            description: String::new(),
            category: String::new(),
            language: Language::Python,
            also: Vec::new(),
            file: path.to_path_buf(),
            kind: TransformKind::Component,
            backend: backend.clone(),
            engine: self.engine.clone(),
            limits: self.limits,
            _ticker: self._ticker.clone(),
        };
        let info = loaded
            .with_store(0, |store| match &backend {
                Backend::Component(pre) => {
                    let t = pre.instantiate(&mut *store)?;
                    t.call_info(store)
                        .map(|i| (i.name, i.description, i.category, Some(i.language)))
                }
                Backend::ComponentV01(pre) => {
                    let t = pre.instantiate(&mut *store)?;
                    t.call_info(store)
                        .map(|i| (i.name, i.description, i.category, None))
                }
                Backend::Script { .. } => Err(wasmtime::Error::msg("not a component")),
            })
            .map_err(|e| LoadError::Info {
                path: path.to_path_buf(),
                source: Box::new(e),
            })?;
        let (name, description, category, language) = info;
        check_name(path, &name)?;
        (loaded.language, loaded.also) = parse_languages(path, language.as_deref())?;
        loaded.name = name;
        loaded.description = description;
        loaded.category = category;
        Ok(loaded)
    }

    /// Loads a script transform: its text and header; the runner is compiled on first use.
    pub fn load_script(&self, path: &Path) -> Result<LoadedTransform, LoadError> {
        let bytes = std::fs::read(path).map_err(|error| LoadError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| LoadError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "the script is not valid UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        })?;
        let header = ScriptHeader::parse(&text);
        let name = match &header.name {
            Some(n) => n.clone(),
            None => ScriptHeader::name_from_stem(path),
        };
        check_name(path, &name)?;
        let (language, also) = parse_languages(path, header.language.as_deref())?;
        let runner = self.script_runner()?;
        Ok(LoadedTransform {
            language,
            also,
            description: header
                .description
                .clone()
                .unwrap_or_else(|| format!("script transform {}", path.display())),
            category: header
                .category
                .clone()
                .unwrap_or_else(|| "unspecified".to_string()),
            name,
            file: path.to_path_buf(),
            kind: TransformKind::Script,
            backend: Backend::Script {
                runner,
                script: Arc::from(text),
            },
            engine: self.engine.clone(),
            limits: self.script_limits,
            _ticker: self._ticker.clone(),
        })
    }

    /// The script runner, compiled (or read from the cache) once per runtime.
    fn script_runner(&self) -> Result<Arc<ScriptRunnerPre<HostState>>, LoadError> {
        let runner = self.runner.get_or_init(|| {
            let path = &self.runner_path;
            let bytes = std::fs::read(path).map_err(|e| {
                format!(
                    "cannot read the script runner {}: {e} (build it with `make transforms`, \
                     or point EQUIMORPH_SCRIPT_RUNNER at it)",
                    path.display()
                )
            })?;
            let component: Component =
                load_component(&self.engine, self.cache_dir.as_deref(), &bytes)
                    .map_err(|e| format!("{}: {e:#}", path.display()))?;
            let pre = self
                .linker
                .instantiate_pre(&component)
                .and_then(ScriptRunnerPre::new)
                .map_err(|e| format!("{} is not a script runner: {e:#}", path.display()))?;
            Ok(Arc::new(pre))
        });
        runner.clone().map_err(LoadError::ScriptRunner)
    }
}

/// The languages a transform declares: its main one, then any others it also rewrites
/// (`"cpp c"`: C++ and C, written with spaces or commas). `None`: it says nothing, so Python.
fn parse_languages(
    path: &Path,
    declared: Option<&str>,
) -> Result<(Language, Vec<Language>), LoadError> {
    let Some(declared) = declared else {
        return Ok((Language::Python, Vec::new()));
    };
    let invalid = |message: String| LoadError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut all: Vec<Language> = Vec::new();
    for word in declared
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        let language: Language = word.parse().map_err(invalid)?;
        if !all.contains(&language) {
            all.push(language);
        }
    }
    if all.is_empty() {
        return Err(invalid(format!("no language named in {declared:?}")));
    }
    let main = all.remove(0);
    Ok((main, all))
}

/// Transform names are kebab-case: lower-case ASCII letters, digits and `-`.
fn check_name(path: &Path, name: &str) -> Result<(), LoadError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(LoadError::Invalid {
            path: path.to_path_buf(),
            message: format!("transform name {name:?} is not kebab-case"),
        });
    }
    Ok(())
}

/// How a transform runs.
#[derive(Clone)]
enum Backend {
    /// Its own component (WIT 0.2.0).
    Component(Arc<TransformPre<HostState>>),
    /// Its own component, built against WIT 0.1.0 (a Python transform).
    ComponentV01(Arc<TransformPreV01<HostState>>),
    /// A script text, run by the shared runner component.
    Script {
        runner: Arc<ScriptRunnerPre<HostState>>,
        script: Arc<str>,
    },
}

/// The pooling allocator's settings. Every call gets a fresh instance. Allocated on demand with
/// a copy-on-write memory image, each instance takes a page fault per page its guest writes,
/// and each of those faults flushes the TLB of every core running one of our threads: for the
/// script runner (CPython, a 20 MiB image; ~1,500 faults per call) two threads ran slower than
/// one. Pooled slots stay resident between calls (`linear_memory_keep_resident`) and the image
/// is copied in eagerly (`memory_init_cow(false)` in `build`), so a call takes almost no faults:
/// measured on 2 cores, a script went from 44/s (1 thread) and 27/s (2 threads) to 58/s and
/// 110/s, and Rust components from 640/s to 680–840/s on 2 threads.
///
/// Slots bound how many instances can be alive at once; equimorph applies transforms on rayon's
/// threads (one instance each at a time), so a few per core is ample.
fn pool_config() -> wasmtime::PoolingAllocationConfig {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get()) as u32;
    let instances = cores * 4 + 32;
    let mut pool = wasmtime::PoolingAllocationConfig::new();
    pool.total_component_instances(instances)
        .total_core_instances(instances * 8)
        .total_memories(instances * 2)
        .total_tables(instances * 4)
        .max_tables_per_module(4)
        .table_elements(1 << 17)
        .max_core_instance_size(16 << 20)
        .max_component_instance_size(16 << 20)
        .linear_memory_keep_resident(32 << 20)
        .table_keep_resident(1 << 20)
        .pagemap_scan(wasmtime::Enabled::Auto);
    pool
}

/// A transform ready to apply; cheap to share between threads.
#[derive(Clone)]
pub struct LoadedTransform {
    /// Unique kebab-case name.
    pub name: String,
    /// One line.
    pub description: String,
    /// naming | control-flow | data-flow | expression | structure | layout
    pub category: String,
    /// The main language of the programs it rewrites (what listings and docs name first).
    pub language: Language,
    /// Further languages it also rewrites (C for a C++ transform whose outputs are also C).
    pub also: Vec<Language>,
    /// The file it came from (a component or a script).
    pub file: PathBuf,
    /// Component or script.
    pub kind: TransformKind,
    backend: Backend,
    engine: Engine,
    limits: Limits,
    _ticker: Arc<EpochTicker>,
}

impl std::fmt::Debug for LoadedTransform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedTransform")
            .field("name", &self.name)
            .field("file", &self.file)
            .finish()
    }
}

impl LoadedTransform {
    /// Whether it is offered programs of `language`.
    pub fn rewrites(&self, language: Language) -> bool {
        self.language == language || self.also.contains(&language)
    }

    /// Every language it rewrites, the main one first.
    pub fn languages(&self) -> impl Iterator<Item = Language> + '_ {
        std::iter::once(self.language).chain(self.also.iter().copied())
    }

    /// Its languages' names, comma-separated (`cpp,c`), as listings show them.
    pub fn languages_label(&self) -> String {
        self.languages()
            .map(|l| l.name())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Rewrites `source` with `seed`: `Ok(Some(text))`, `Ok(None)` when not applicable, or the
    /// typed failure of this one call. A fresh instance runs every call.
    pub fn apply(&self, source: &str, seed: u64) -> Result<Option<String>, ApplyError> {
        let out = self.with_store(seed, |store| match &self.backend {
            Backend::Component(pre) => {
                let t = pre.instantiate(&mut *store)?;
                t.call_apply(store, source, seed)
            }
            Backend::ComponentV01(pre) => {
                let t = pre.instantiate(&mut *store)?;
                t.call_apply(store, source, seed)
            }
            Backend::Script { runner, script } => {
                let r = runner.instantiate(&mut *store)?;
                r.call_run(store, script, source, seed)
            }
        })?;
        match out {
            Ok(Some(text)) if text.len() > self.limits.output_bytes => {
                Err(ApplyError::OutputTooLarge {
                    bytes: text.len(),
                    limit: self.limits.output_bytes,
                })
            }
            Ok(v) => Ok(v),
            Err(msg) => Err(ApplyError::Guest(msg)),
        }
    }

    /// The script text, for a script transform.
    pub fn script(&self) -> Option<&str> {
        match &self.backend {
            Backend::Script { script, .. } => Some(script),
            Backend::Component(_) | Backend::ComponentV01(_) => None,
        }
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Runs `call` in a fresh store with this transform's limits. Whatever WASI offers the guest
    /// is empty or deterministic: no files, environment, arguments or network; randomness drawn
    /// from `seed`; clocks frozen.
    fn with_store<R>(
        &self,
        seed: u64,
        call: impl FnOnce(&mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<R, ApplyError> {
        let state = HostState {
            limiter: TotalMemoryLimiter {
                limit: self.limits.memory_bytes,
                total: 0,
                hit: false,
            },
            wasi: deterministic_wasi(seed),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        let ticks = (self.limits.wall_time.as_micros() / TICK.as_micros()).max(1) as u64 + 1;
        store.set_epoch_deadline(ticks);
        store.epoch_deadline_trap();
        let result = call(&mut store);
        result.map_err(|e| self.classify(&store, e))
    }

    fn classify(&self, store: &Store<HostState>, e: wasmtime::Error) -> ApplyError {
        if store.data().limiter.hit {
            return ApplyError::OutOfMemory {
                limit_bytes: self.limits.memory_bytes,
            };
        }
        if let Some(exit) = e.downcast_ref::<wasmtime_wasi::I32Exit>() {
            return ApplyError::Guest(format!("exited the interpreter with status {}", exit.0));
        }
        match e.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => ApplyError::Timeout {
                millis: self.limits.wall_time.as_millis() as u64,
            },
            Some(trap) => ApplyError::Trap(trap.to_string()),
            None => ApplyError::Instantiate(format!("{e:#}")),
        }
    }
}

/// A WASI context with nothing in it but seeded randomness and frozen clocks, so that the same
/// (transform, source, seed) always gives the same bytes.
fn deterministic_wasi(seed: u64) -> WasiCtx {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x6571_7569_6d6f_7270);
    let mut bytes = vec![0u8; 4096];
    rng.fill_bytes(&mut bytes);
    let mut insecure = vec![0u8; 1024];
    rng.fill_bytes(&mut insecure);
    WasiCtx::builder()
        .secure_random(wasmtime_wasi::Deterministic::new(bytes))
        .insecure_random(wasmtime_wasi::Deterministic::new(insecure))
        .insecure_random_seed(u128::from(seed))
        .wall_clock(FrozenClock)
        .monotonic_clock(FrozenClock)
        .build()
}

/// A clock that always reads 2000-01-01T00:00:00Z (wall) and 0 (monotonic).
struct FrozenClock;

impl wasmtime_wasi::HostWallClock for FrozenClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }
    fn now(&self) -> Duration {
        Duration::from_secs(946_684_800)
    }
}

impl wasmtime_wasi::HostMonotonicClock for FrozenClock {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_languages_are_a_main_one_and_others() {
        let path = Path::new("t.wasm");
        let parse = |d: Option<&str>| parse_languages(path, d).map_err(|e| e.to_string());
        assert_eq!(parse(None), Ok((Language::Python, vec![])));
        assert_eq!(parse(Some("java")), Ok((Language::Java, vec![])));
        assert_eq!(parse(Some("cpp c")), Ok((Language::Cpp, vec![Language::C])));
        assert_eq!(
            parse(Some(" cpp, c,cpp ")),
            Ok((Language::Cpp, vec![Language::C]))
        );
        for bad in ["", " , ", "cpp cobol"] {
            let e = parse(Some(bad)).expect_err(bad);
            assert!(e.contains("t.wasm"), "{e}");
        }
    }
}
