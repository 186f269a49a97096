//! equimorph: searches for semantic-preserving transformations (SPTs) of Python, Java and C++
//! programs that make code-clone detectors believe two equivalent programs are different (Auto-SPT).
//!
//! Pipeline: [`task`] loads programs and tests → [`transform`] rewrites them in wasmtime
//! sandboxes → [`program`] keeps valid unique candidates → [`detector`] scores them →
//! [`oracle`] checks equivalence → [`search`] composes transforms → [`report`] renders results.
//! [`pipeline`] runs a job (search, [`augment`], [`select`]) over tasks and feeds a sink.
//! [`select`] judges competing implementations of one transform (best-of-N); [`llm`] designs
//! and implements new transforms with a language model (Auto-SPT steps 1–2).

pub mod adequacy;
pub mod augment;
pub mod detector;
pub mod install;
pub mod job;
pub mod language;
pub mod llm;
pub mod oracle;
pub mod pipeline;
pub mod program;
pub mod report;
pub mod robustness;
pub mod run;
pub mod schema;
pub mod search;
pub mod select;
pub mod task;
pub mod train;
pub mod transform;
pub mod verify;
