//! `equimorph merge`: combine the directories of a sharded run (attack, augment or select)
//! into one run directory.

use super::common::{print, Stderr};
use anyhow::Result;
use clap::Args;
use equimorph::job::merge::MergeJob;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The merged run's directory (created; it must not hold results yet).
    out: PathBuf,
    /// Shard directories (`attack|augment|select --shard I/N --out DIR`), every shard of the
    /// split exactly once.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Merge even if some shards are missing (never duplicated shards).
    #[arg(long)]
    partial: bool,
}

/// Runs `merge`: the job of the shards (attack, augment or select) decides what is merged.
pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let job = MergeJob {
        out: args.out,
        shards: args.shards,
        partial: args.partial,
    };
    let outcome = job.run(&Stderr)?;
    print(&outcome.printout());
    Ok(outcome.status().into())
}
