//! The host side of transforms: WebAssembly components and Python scripts, all run in wasmtime
//! sandboxes. A script is executed by one shared CPython component (the script runner); to the
//! rest of equimorph both are a [`LoadedTransform`].
//!
//! One [`TransformRuntime`] owns the `wasmtime::Engine`, the on-disk cache of compiled
//! components and the epoch ticker that enforces wall-time limits. Each
//! [`LoadedTransform::apply`] gets a fresh `Store` and instance (no state survives between
//! calls), a cap on its total linear memory and a deadline; any misbehaviour of the guest is an
//! [`ApplyError`] of that one call.

mod cache;
mod error;
mod runtime;
mod script;
mod set;

pub use error::{ApplyError, LoadError};
pub use runtime::{Limits, LoadedTransform, TransformKind, TransformRuntime};
pub use script::{default_script_runner, ScriptHeader};
pub use set::{default_transforms_dir, TransformSet};

/// Host bindings generated from `transforms/wit/transform.wit` (version 0.2.0: `info` says
/// the transform's language).
mod bindings {
    wasmtime::component::bindgen!({ world: "transform", path: "transforms/wit" });
}

/// Host bindings of version 0.1.0 (`transforms/wit-0.1`), whose `info` has no `language`:
/// components built against it load as Python transforms.
mod bindings_v01 {
    wasmtime::component::bindgen!({ world: "transform", path: "transforms/wit-0.1" });
}

/// Host bindings of the script runner (`transforms/wit/script-runner.wit`).
mod runner_bindings {
    wasmtime::component::bindgen!({ world: "script-runner", path: "transforms/wit" });
}
