//! The host side of transforms: WebAssembly components run in wasmtime sandboxes.
//!
//! One [`TransformRuntime`] owns the `wasmtime::Engine`, the on-disk cache of compiled
//! components and the epoch ticker that enforces wall-time limits. Each
//! [`LoadedTransform::apply`] gets a fresh `Store` and instance (no state survives between
//! calls), a cap on its total linear memory and a deadline; any misbehaviour of the guest is an
//! [`ApplyError`] of that one call.

mod cache;
mod error;
mod runtime;
mod set;

pub use error::{ApplyError, LoadError};
pub use runtime::{Limits, LoadedTransform, TransformRuntime};
pub use set::{default_transforms_dir, TransformSet};

/// Host bindings generated from `transforms/wit/transform.wit`.
mod bindings {
    wasmtime::component::bindgen!({ world: "transform", path: "transforms/wit" });
}
