//! JSON Schemas of the files equimorph reads and writes, generated from the Rust types that read
//! and write them (`equimorph schema`, and the committed copies under `docs/reference/schemas/`).

use schemars::{schema_for, JsonSchema, Schema};
use serde::Serialize;

/// `run.json` of an attack run: the job that owns the directory and the settings that define
/// the run (compared on resume), with the attack's own record beside them.
#[derive(Serialize, JsonSchema)]
#[allow(dead_code)] // Only its schema is used.
struct AttackRunJson {
    /// The job that owns the directory (`attack`).
    kind: crate::run::JobKind,
    /// The settings that define the run, as users read them: a rerun with other values is
    /// refused, naming each difference.
    settings: crate::run::RunSettings,
    #[serde(flatten)]
    run: crate::report::RunInfo,
}

/// One documented file format.
pub struct FileSchema {
    /// Short name (`equimorph schema NAME`, and the file `docs/reference/schemas/NAME.json`).
    pub name: &'static str,
    /// The file it describes, in words.
    pub file: &'static str,
    /// Whether the file holds one JSON value per line (JSONL) rather than one JSON document.
    pub per_line: bool,
    /// The schema (draft 2020-12).
    pub schema: Schema,
}

/// Every documented file format, in a fixed order.
pub fn all() -> Vec<FileSchema> {
    vec![
        FileSchema {
            name: "task",
            file: "a line of a task file (equimorph's JSONL task format)",
            per_line: true,
            schema: schema_for!(crate::task::Task),
        },
        FileSchema {
            name: "run",
            file: "run.json of an attack run (its settings)",
            per_line: false,
            schema: schema_for!(AttackRunJson),
        },
        FileSchema {
            name: "results",
            file: "a line of results.jsonl (one attacked, skipped or failed task)",
            per_line: true,
            schema: schema_for!(crate::report::results::ResultLine),
        },
        FileSchema {
            name: "summary",
            file: "summary.json of an attack run (the aggregates)",
            per_line: false,
            schema: schema_for!(crate::report::Summary),
        },
        FileSchema {
            name: "variants",
            file: "a line of variants.jsonl (one program an augment run made)",
            per_line: true,
            schema: schema_for!(crate::augment::VariantLine),
        },
    ]
}

/// No schema has this name.
#[derive(Debug, thiserror::Error)]
#[error("no schema called {name:?}; there are: {known}")]
pub struct UnknownSchema {
    /// The name asked for.
    pub name: String,
    /// The names there are, comma-separated.
    pub known: String,
}

/// What `equimorph schema [NAME]` prints: the list of schemas, or the one called `name`.
pub fn printout(name: Option<&str>) -> Result<crate::job::Printout, UnknownSchema> {
    let all = all();
    let mut p = crate::job::Printout::new();
    let Some(name) = name else {
        for s in &all {
            let kind = if s.per_line { "per line" } else { "document" };
            p.out(format!("{:<9} {kind:<9} {}", s.name, s.file));
        }
        return Ok(p);
    };
    match all.iter().find(|s| s.name == name) {
        Some(found) => {
            p.out(render(found).trim_end());
            Ok(p)
        }
        None => Err(UnknownSchema {
            name: name.to_string(),
            known: all.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// The schema called `name`, pretty-printed with a trailing newline.
pub fn render(schema: &FileSchema) -> String {
    let mut text = serde_json::to_string_pretty(&schema.schema).unwrap_or_default();
    text.push('\n');
    text
}
