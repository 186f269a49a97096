//! `equimorph schema`: the JSON Schema of a file equimorph reads or writes.

use anyhow::{bail, Result};
use clap::Args;
use equimorph::schema;
use std::process::ExitCode;

/// Arguments of `schema`.
#[derive(Args)]
pub struct SchemaArgs {
    /// The file format: task, run, results, summary or variants (none: list them).
    name: Option<String>,
}

/// Prints the schema called `name`, or the list of schemas.
pub fn run(args: SchemaArgs) -> Result<ExitCode> {
    let all = schema::all();
    let Some(name) = args.name else {
        for s in &all {
            let kind = if s.per_line { "per line" } else { "document" };
            println!("{:<9} {kind:<9} {}", s.name, s.file);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let Some(found) = all.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = all.iter().map(|s| s.name).collect();
        bail!("no schema called {name:?}; there are: {}", names.join(", "));
    };
    print!("{}", schema::render(found));
    Ok(ExitCode::SUCCESS)
}
