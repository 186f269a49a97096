//! On-disk cache of compiled components, keyed by the component's bytes, the wasmtime version
//! and the engine's compilation settings (a serialized artifact is only valid for those).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::component::Component;
use wasmtime::Engine;

/// The pinned wasmtime version (serialized artifacts are tied to it).
pub const WASMTIME_VERSION: &str = "48.0.8";

/// A `Hasher` that feeds BLAKE3, so cache keys are stable across Rust versions.
struct StableHasher(blake3::Hasher);

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        let h = self.0.finalize();
        u64::from_le_bytes(h.as_bytes()[..8].try_into().unwrap_or([0; 8]))
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// The cache file for `bytes` compiled by `engine`.
pub fn cache_path(dir: &Path, engine: &Engine, bytes: &[u8]) -> PathBuf {
    let mut h = StableHasher(blake3::Hasher::new());
    WASMTIME_VERSION.hash(&mut h);
    engine.precompile_compatibility_hash().hash(&mut h);
    h.0.update(bytes);
    let key = h.0.finalize().to_hex();
    dir.join(format!("{}-wasmtime{WASMTIME_VERSION}.cwasm", &key[..32]))
}

/// Loads `bytes` as a component, from the cache when possible; writes the cache otherwise.
/// Cache problems are never fatal: the component is then compiled in memory.
pub fn load_component(
    engine: &Engine,
    cache_dir: Option<&Path>,
    bytes: &[u8],
) -> wasmtime::Result<Component> {
    let Some(dir) = cache_dir else {
        return Component::new(engine, bytes);
    };
    let path = cache_path(dir, engine, bytes);
    if let Ok(artifact) = std::fs::read(&path) {
        // Read into memory rather than mmap the file: another process replacing or truncating
        // the file must not pull code pages out from under us.
        // SAFETY: files in the cache directory are written only by `store` below, from
        // `Component::serialize` of this engine configuration (the key covers it); wasmtime
        // still checks the header and refuses artifacts of another version or configuration.
        if let Ok(c) = unsafe { Component::deserialize(engine, &artifact) } {
            return Ok(c);
        }
        tracing::warn!("ignoring unreadable cached component {}", path.display());
    }
    let component = Component::new(engine, bytes)?;
    if let Err(e) = store(dir, &path, &component) {
        tracing::warn!("cannot write component cache {}: {e}", path.display());
    }
    Ok(component)
}

fn store(dir: &Path, path: &Path, component: &Component) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let bytes = component.serialize().map_err(|e| e.to_string())?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| e.to_string())?;
    std::fs::write(tmp.path(), bytes).map_err(|e| e.to_string())?;
    tmp.persist(path).map_err(|e| e.to_string())?;
    Ok(())
}

/// The default cache directory: `$EQUIMORPH_CACHE/components`, else
/// `$XDG_CACHE_HOME/equimorph/components`, else `~/.cache/equimorph/components`.
pub fn default_cache_dir() -> Option<PathBuf> {
    crate::install::user_cache_dir().map(|d| d.join("components"))
}
