//! The wasmtime engine, per-call limits and loaded transforms.

use super::bindings::{Transform, TransformPre};
use super::cache::{default_cache_dir, load_component};
use super::error::{ApplyError, LoadError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::component::{Linker, ResourceTable};
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
    cache_dir: Option<PathBuf>,
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
        let engine = Engine::new(&config).map_err(|e| LoadError::Engine(e.to_string()))?;
        let mut linker = Linker::new(&engine);
        // Python guests import WASI; they get an empty context (no files, env, args, network).
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| LoadError::Engine(e.to_string()))?;
        let ticker = Arc::new(EpochTicker::start(&engine));
        Ok(TransformRuntime {
            engine,
            linker,
            limits,
            cache_dir,
            _ticker: ticker,
        })
    }

    /// The per-call limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The directory of cached compiled components, if caching is on.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// Loads one component file and asks it for its `info()`.
    pub fn load(&self, path: &Path) -> Result<LoadedTransform, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let invalid = |e: wasmtime::Error| LoadError::Invalid {
            path: path.to_path_buf(),
            message: format!("{e:#}"),
        };
        let component =
            load_component(&self.engine, self.cache_dir.as_deref(), &bytes).map_err(invalid)?;
        let instance_pre = self.linker.instantiate_pre(&component).map_err(invalid)?;
        let pre = TransformPre::new(instance_pre).map_err(invalid)?;
        let mut loaded = LoadedTransform {
            name: String::new(),
            description: String::new(),
            category: String::new(),
            file: path.to_path_buf(),
            pre: Arc::new(pre),
            engine: self.engine.clone(),
            limits: self.limits,
            _ticker: self._ticker.clone(),
        };
        let info = loaded
            .with_instance(|store, t| t.call_info(store))
            .map_err(|e| LoadError::Info {
                path: path.to_path_buf(),
                source: Box::new(e),
            })?;
        if info.name.is_empty()
            || !info
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(LoadError::Invalid {
                path: path.to_path_buf(),
                message: format!("info().name {:?} is not kebab-case", info.name),
            });
        }
        loaded.name = info.name;
        loaded.description = info.description;
        loaded.category = info.category;
        Ok(loaded)
    }
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
    /// The component file it came from.
    pub file: PathBuf,
    pre: Arc<TransformPre<HostState>>,
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
    /// Rewrites `source` with `seed`: `Ok(Some(text))`, `Ok(None)` when not applicable, or the
    /// typed failure of this one call. A fresh instance runs every call.
    pub fn apply(&self, source: &str, seed: u64) -> Result<Option<String>, ApplyError> {
        let out = self.with_instance(|store, t| t.call_apply(store, source, seed))?;
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

    /// The limits every call runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn with_instance<R>(
        &self,
        call: impl FnOnce(&mut Store<HostState>, &Transform) -> wasmtime::Result<R>,
    ) -> Result<R, ApplyError> {
        let state = HostState {
            limiter: TotalMemoryLimiter {
                limit: self.limits.memory_bytes,
                total: 0,
                hit: false,
            },
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        let ticks = (self.limits.wall_time.as_micros() / TICK.as_micros()).max(1) as u64 + 1;
        store.set_epoch_deadline(ticks);
        store.epoch_deadline_trap();
        let result = self
            .pre
            .instantiate(&mut store)
            .and_then(|t| call(&mut store, &t));
        result.map_err(|e| self.classify(&store, e))
    }

    fn classify(&self, store: &Store<HostState>, e: wasmtime::Error) -> ApplyError {
        if store.data().limiter.hit {
            return ApplyError::OutOfMemory {
                limit_bytes: self.limits.memory_bytes,
            };
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
