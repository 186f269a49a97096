//! `equimorph models`: the detectors available here.

use super::common::print;
use anyhow::Result;
use clap::{Args, Subcommand};
use equimorph::job::models::{detectors, detectors_printout, Inspect};
use std::process::ExitCode;

/// `models` subcommands.
#[derive(Subcommand)]
pub enum ModelsCommand {
    /// The detectors available here: built-in specs and model directories, with kind, window
    /// and devices.
    List(ListArgs),
    /// What equimorph reads from a model directory exported by another tool (optimum,
    /// sentence-transformers' ONNX backend) that has no equimorph.toml, and the equimorph.toml
    /// that pins it (written into the directory).
    Inspect(InspectArgs),
}

/// Arguments of `models inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// The model directory.
    dir: std::path::PathBuf,
    /// Pool per-token states this way instead of what the directory says (mean, cls, max).
    #[arg(long, value_name = "MODE")]
    pooling: Option<String>,
    /// Only print (with an existing equimorph.toml, the result of merging with it); write
    /// nothing.
    #[arg(long)]
    dry_run: bool,
    /// Update an existing equimorph.toml: every key it sets is kept unless the inspection has
    /// a reason to change it (each change is printed with its reason).
    #[arg(long)]
    force: bool,
}

/// Arguments of `models list`.
#[derive(Args)]
pub struct ListArgs {
    /// One JSON object per detector instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `models`.
pub fn run(command: ModelsCommand) -> Result<ExitCode> {
    let printout = match command {
        ModelsCommand::List(args) => detectors_printout(&detectors(), args.json),
        ModelsCommand::Inspect(args) => Inspect {
            dir: args.dir,
            pooling: args.pooling,
            dry_run: args.dry_run,
            force: args.force,
        }
        .run()?,
    };
    print(&printout);
    Ok(ExitCode::SUCCESS)
}
