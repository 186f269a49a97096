//! `equimorph transforms list` and `transforms show`.

use super::common::{print, TransformOptions};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use equimorph::job::transforms::{list_printout, show_printout};
use std::process::ExitCode;

/// Subcommands of `equimorph transforms`.
#[derive(Subcommand)]
pub enum TransformsCommand {
    /// List the transforms: name, kind, category, description and file.
    List(ListArgs),
    /// Print one transform's documentation (a Rust SPT's doc, a script's header).
    Show(ShowArgs),
}

/// Arguments of `transforms list`.
#[derive(Args)]
pub struct ListArgs {
    /// Print a JSON array of {name, kind, category, description, file}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Arguments of `transforms show`.
#[derive(Args)]
pub struct ShowArgs {
    /// A transform name from the set, or the path of a `.py` or `.wasm` transform.
    name: String,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Runs `transforms …`.
pub fn run(cmd: TransformsCommand) -> Result<ExitCode> {
    let printout = match cmd {
        TransformsCommand::List(args) => {
            let runtime = args.transforms.runtime()?;
            list_printout(args.transforms.load(&runtime)?.iter(), args.json)
        }
        TransformsCommand::Show(args) => {
            let runtime = args.transforms.runtime()?;
            let steps = args.transforms.resolve_steps(&runtime, &[args.name])?;
            // One transform per name asked for.
            let t = steps.first().context("no transform resolved")?;
            show_printout(t)
        }
    };
    print(&printout);
    Ok(ExitCode::SUCCESS)
}
