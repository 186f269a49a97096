//! The integration tests, in one binary: one link instead of one per file keeps a fresh
//! build small and fast. Tests that need a process of their own (they measure its memory,
//! kill its children or set its environment) are separate `[[test]]` targets in Cargo.toml.

mod common;

mod adequacy;
mod adequacy_jobs;
mod attack;
mod augment;
mod byo_models;
mod calibration;
mod classic_languages;
mod cli;
mod compare;
mod constraints;
mod cpp;
mod defences;
mod detector_pace;
mod detectors;
mod diversity;
mod docs;
mod faults;
mod harness_attacks;
mod interrupts;
mod java;
mod job_engine;
mod job_layer;
mod job_select;
mod llm;
mod loaders;
mod messages;
mod messages_round5;
mod oracle;
mod ray;
mod report_html;
mod robustness;
mod run_dirs;
mod search;
mod select;
mod shards;
mod train;
mod transforms;
