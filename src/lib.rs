//! equimorph: searches for semantic-preserving transformations (SPTs) of Python programs that
//! make code-clone detectors believe two equivalent programs are different (Auto-SPT).
//!
//! Pipeline: [`task`] loads programs and tests → [`transform`] rewrites them in wasmtime
//! sandboxes → [`program`] keeps valid unique candidates → [`detector`] scores them →
//! [`oracle`] checks equivalence → [`search`] composes transforms → [`report`] renders results.
//! [`select`] judges competing implementations of one transform (best-of-N).

pub mod detector;
pub mod oracle;
pub mod program;
pub mod report;
pub mod search;
pub mod select;
pub mod task;
pub mod transform;
