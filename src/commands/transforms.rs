//! `equimorph transforms list`.

use super::common::TransformOptions;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::process::ExitCode;

/// Subcommands of `equimorph transforms`.
#[derive(Subcommand)]
pub enum TransformsCommand {
    /// List the transforms: name, category, description and component file.
    List(ListArgs),
}

/// Arguments of `transforms list`.
#[derive(Args)]
pub struct ListArgs {
    /// Print a JSON array of {name, category, description, file}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Runs `transforms …`.
pub fn run(cmd: TransformsCommand) -> Result<ExitCode> {
    let TransformsCommand::List(args) = cmd;
    let runtime = args.transforms.runtime()?;
    let set = args.transforms.load(&runtime)?;
    if args.json {
        let rows: Vec<serde_json::Value> = set
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name, "category": t.category, "description": t.description,
                    "file": t.file.display().to_string(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        let w = set.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
        println!("{:<w$}  {:<13}  DESCRIPTION", "NAME", "CATEGORY");
        for t in set.iter() {
            println!("{:<w$}  {:<13}  {}", t.name, t.category, t.description);
        }
    }
    Ok(ExitCode::SUCCESS)
}
