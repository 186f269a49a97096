//! `equimorph setup`: ONNX Runtime and the default model into place, and what the system lacks.

use super::common::{print, Stderr};
use anyhow::Result;
use clap::Args;
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
    print(&equimorph::job::setup::setup(args.python, &Stderr)?.printout());
    Ok(ExitCode::SUCCESS)
}
