//! `equimorph transforms list` and `transforms show`: what a transform set offers, and one
//! transform's documentation, rendered as a [`Printout`].

use super::Printout;
use crate::transform::{LoadedTransform, ScriptHeader, TransformKind};

/// The transforms of a set, one row each (name, kind, language, category, description), or a
/// JSON array of `{name, kind, category, language, description, file}` when `json`.
pub fn list_printout<'a>(
    transforms: impl IntoIterator<Item = &'a LoadedTransform>,
    json: bool,
) -> Printout {
    let transforms: Vec<&LoadedTransform> = transforms.into_iter().collect();
    let mut p = Printout::new();
    if json {
        let rows: Vec<serde_json::Value> = transforms
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name, "kind": t.kind.label(), "category": t.category,
                    "language": t.language.name(),
                    "languages": t.languages().map(|l| l.name()).collect::<Vec<_>>(),
                    "description": t.description, "file": t.file.display().to_string(),
                })
            })
            .collect();
        p.out(serde_json::to_string_pretty(&rows).unwrap_or_default());
        return p;
    }
    let w = transforms
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    p.out(format!(
        "{:<w$}  {:<9}  {:<8}  {:<13}  DESCRIPTION",
        "NAME", "KIND", "LANGUAGE", "CATEGORY"
    ));
    for t in transforms {
        p.out(format!(
            "{:<w$}  {:<9}  {:<8}  {:<13}  {}",
            t.name,
            t.kind.label(),
            t.languages_label(),
            t.category,
            t.description
        ));
    }
    p
}

/// One transform: its name, kind, language and category, its description, its file and its
/// documentation.
pub fn show_printout(t: &LoadedTransform) -> Printout {
    let mut p = Printout::new();
    p.out(format!(
        "{} ({}, {}, {})",
        t.name,
        t.kind.label(),
        t.languages_label(),
        t.category
    ))
    .out(t.description.clone())
    .out(format!("file: {}", t.file.display()))
    .out("")
    .out(documentation(t));
    p
}

/// A script's header and docstring; a component's `NAME.md` written beside it by
/// `make transforms` (the crate's ruff-style doc comment).
pub fn documentation(t: &LoadedTransform) -> String {
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
