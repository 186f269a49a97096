//! Options and helpers shared by several subcommands.

use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::transform::{default_transforms_dir, Limits, TransformRuntime, TransformSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where transforms come from and how they are sandboxed.
#[derive(Args, Debug, Clone)]
pub struct TransformOptions {
    /// Directory of transform components, or a comma-separated list of names from the default
    /// directory (default: $EQUIMORPH_TRANSFORMS or build/transforms).
    #[arg(long, value_name = "DIR|NAMES")]
    pub transforms: Option<String>,
    /// Memory limit of one transform call, in MiB (all linear memories together).
    #[arg(long, default_value_t = 256, value_name = "MIB")]
    pub wasm_memory_mb: usize,
    /// Wall-time limit of one transform call, in milliseconds.
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub wasm_timeout_ms: u64,
    /// Directory for compiled components (default: ~/.cache/equimorph/components).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

impl TransformOptions {
    /// The runtime these options describe.
    pub fn runtime(&self) -> Result<TransformRuntime> {
        let limits = Limits {
            memory_bytes: self.wasm_memory_mb << 20,
            wall_time: Duration::from_millis(self.wasm_timeout_ms),
            ..Limits::default()
        };
        Ok(TransformRuntime::new(limits, self.cache_dir.clone())?)
    }

    /// Loads the transform set these options name.
    pub fn load(&self, runtime: &TransformRuntime) -> Result<TransformSet> {
        match &self.transforms {
            Some(spec) if Path::new(spec).is_dir() => Ok(TransformSet::load_dir(runtime, Path::new(spec))?),
            Some(spec) => {
                let names = split_names(spec);
                if names.is_empty() {
                    bail!("--transforms {spec:?} is neither a directory nor a list of names");
                }
                let all = TransformSet::load_dir(runtime, &default_transforms_dir())?;
                Ok(all.subset(&names)?)
            }
            None => Ok(TransformSet::load_dir(runtime, &default_transforms_dir())?),
        }
    }
}

/// Splits `a,b, c` into names.
pub fn split_names(spec: &str) -> Vec<String> {
    spec.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// Reads a UTF-8 text file, or stdin for `-`, with errors that name the file.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).context("reading standard input")?;
        buf
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!("{} is not valid UTF-8 (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
    })
}
