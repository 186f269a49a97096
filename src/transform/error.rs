//! Typed errors of loading and applying transforms.

use std::path::PathBuf;
use thiserror::Error;

/// Why a transform component could not be loaded.
#[derive(Debug, Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read transform {path}: {error}")]
    Read {
        /// The component file.
        path: PathBuf,
        /// The I/O error (in the message, not a source: a chain would repeat it).
        error: std::io::Error,
    },
    /// The file is not a valid component of the `transform` world.
    #[error("{path} is not a usable transform component: {message}")]
    Invalid {
        /// The component file.
        path: PathBuf,
        /// What wasmtime said.
        message: String,
    },
    /// Its `info()` call failed.
    #[error("{path}: calling info() failed: {source}")]
    Info {
        /// The component file.
        path: PathBuf,
        /// What went wrong.
        source: Box<super::ApplyError>,
    },
    /// Two components report the same name.
    #[error("two transforms are named {name:?}: {first} and {second}")]
    DuplicateName {
        /// The clashing name.
        name: String,
        /// The first file.
        first: PathBuf,
        /// The second file.
        second: PathBuf,
    },
    /// A transform directory could not be listed, or holds no component.
    #[error("transform directory {path}: {message}")]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A requested name is not in the loaded set.
    #[error("unknown transform {name:?}; available: {available}")]
    Unknown {
        /// The requested name.
        name: String,
        /// Comma-separated names that exist.
        available: String,
    },
    /// The script runner component is missing or unusable.
    #[error("{0}")]
    ScriptRunner(String),
    /// The wasmtime engine could not be created.
    #[error("cannot set up the WebAssembly engine: {0}")]
    Engine(String),
}

/// Why one application of a transform failed. None of these affect other calls.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// The guest ran past its wall-time limit and was interrupted.
    #[error("timed out after {millis} ms")]
    Timeout {
        /// The limit, in milliseconds.
        millis: u64,
    },
    /// The guest tried to grow its memory past the limit.
    #[error("exceeded its memory limit of {limit_bytes} bytes")]
    OutOfMemory {
        /// The limit, in bytes.
        limit_bytes: usize,
    },
    /// The guest trapped (panic, stack overflow, out-of-bounds access…).
    #[error("trapped: {0}")]
    Trap(String),
    /// The guest reported that it could not handle the input.
    #[error("guest error: {0}")]
    Guest(String),
    /// The guest returned more text than allowed.
    #[error("output of {bytes} bytes exceeds the limit of {limit} bytes")]
    OutputTooLarge {
        /// Output size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The instance could not be created.
    #[error("instantiation failed: {0}")]
    Instantiate(String),
}

impl ApplyError {
    /// A short stable name of the kind of failure, for counting: `timeout`, `out-of-memory`,
    /// `trap`, `guest-error`, `output-too-large`, `instantiate`.
    pub fn kind(&self) -> &'static str {
        match self {
            ApplyError::Timeout { .. } => "timeout",
            ApplyError::OutOfMemory { .. } => "out-of-memory",
            ApplyError::Trap(_) => "trap",
            ApplyError::Guest(_) => "guest-error",
            ApplyError::OutputTooLarge { .. } => "output-too-large",
            ApplyError::Instantiate(_) => "instantiate",
        }
    }
}
