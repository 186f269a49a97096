//! `equimorph transforms list` and `transforms show`.

use super::common::TransformOptions;
use anyhow::Result;
use clap::{Args, Subcommand};
use equimorph::transform::{LoadedTransform, ScriptHeader, TransformKind};
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
    match cmd {
        TransformsCommand::List(args) => list(args),
        TransformsCommand::Show(args) => show(args),
    }
}

fn list(args: ListArgs) -> Result<ExitCode> {
    let runtime = args.transforms.runtime()?;
    let set = args.transforms.load(&runtime)?;
    if args.json {
        let rows: Vec<serde_json::Value> = set
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name, "kind": t.kind.label(), "category": t.category,
                    "language": t.language.name(),
                    "description": t.description, "file": t.file.display().to_string(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        let w = set.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
        println!(
            "{:<w$}  {:<9}  {:<8}  {:<13}  DESCRIPTION",
            "NAME", "KIND", "LANGUAGE", "CATEGORY"
        );
        for t in set.iter() {
            println!(
                "{:<w$}  {:<9}  {:<8}  {:<13}  {}",
                t.name,
                t.kind.label(),
                t.language.name(),
                t.category,
                t.description
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show(args: ShowArgs) -> Result<ExitCode> {
    let runtime = args.transforms.runtime()?;
    let t = args
        .transforms
        .resolve_steps(&runtime, std::slice::from_ref(&args.name))?
        .remove(0);
    println!(
        "{} ({}, {}, {})",
        t.name,
        t.kind.label(),
        t.language.name(),
        t.category
    );
    println!("{}", t.description);
    println!("file: {}", t.file.display());
    println!();
    println!("{}", documentation(&t));
    Ok(ExitCode::SUCCESS)
}

/// A script's header and docstring; a component's `NAME.md` written beside it by
/// `make transforms` (the crate's ruff-style doc comment).
fn documentation(t: &LoadedTransform) -> String {
    match t.kind {
        TransformKind::Script => {
            let doc = ScriptHeader::parse(t.script().unwrap_or_default()).doc;
            if doc.is_empty() {
                "(the script has no header comments or docstring)".to_string()
            } else {
                doc
            }
        }
        TransformKind::Component => {
            let md = t.file.with_extension("md");
            std::fs::read_to_string(&md)
                .unwrap_or_else(|_| format!("(no documentation: {} does not exist)", md.display()))
        }
    }
}
