//! `equimorph setup`: ONNX Runtime and the default model into place, and what the system lacks.

use anyhow::Result;
use clap::Args;
use equimorph::job::setup::{setup, SetupOutcome};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `setup`.
#[derive(Args)]
pub struct SetupArgs {
    /// The Python with equimorph's Python packages (default: the one beside an installed
    /// equimorph, else python3).
    #[arg(long)]
    python: Option<PathBuf>,
}

/// Runs `setup` and prints one line per item.
pub fn run(args: SetupArgs) -> Result<ExitCode> {
    let report = setup(args.python, &|line| eprintln!("{line}"))?;
    println!("home: {} (EQUIMORPH_HOME)", report.home.display());
    for item in &report.items {
        match &item.outcome {
            SetupOutcome::Installed(at) => println!("{:<14} installed: {at}", item.what),
            SetupOutcome::Present(at) => println!("{:<14} present: {at}", item.what),
            SetupOutcome::Missing { cost, install } => {
                println!("{:<14} MISSING: {cost}; install: {install}", item.what)
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
