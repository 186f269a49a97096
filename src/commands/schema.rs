//! `equimorph schema`: the JSON Schema of a file equimorph reads or writes.

use super::common::print;
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `schema`.
#[derive(Args)]
pub struct SchemaArgs {
    /// The file format: task, run, results, summary or variants (none: list them).
    name: Option<String>,
}

/// Prints the schema called `name`, or the list of schemas.
pub fn run(args: SchemaArgs) -> Result<ExitCode> {
    print(&equimorph::schema::printout(args.name.as_deref())?);
    Ok(ExitCode::SUCCESS)
}
