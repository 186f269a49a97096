//! ## What it does
//! Merges adjacent declarations of locals of the same type into one
//! (`int a = 1; int b = a + 1;` → `int a = 1, b = a + 1;`) and splits a declaration of several
//! locals into one per local.
//!
//! ## Why it preserves semantics
//! The Java Language Specification defines a declaration of several variables as the
//! declarations one after the other, each initialiser evaluated left to right after the
//! previous variable is in scope — exactly what the separate statements do. Only declarations
//! with the same type text and the same modifiers (`final`, annotations) merge, and never
//! `var` (which allows one variable per declaration) or a variable with its own array brackets
//! (`int a[]`), whose type differs from its neighbours'.
//!
//! ## Example
//! ```java
//! int lo = 0;
//! int hi = n - 1;
//! ```
//! becomes
//! ```java
//! int lo = 0, hi = n - 1;
//! ```
//!
//! ## Not applied when
//! The types or modifiers differ, a declaration is `var`, or a declarator has its own brackets.

use sdk::java::{statements, JavaParsed};
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-decl-merge",
    description: "Merges adjacent Java local declarations of one type, or splits a multi-variable one",
    category: "data-flow",
    rewrite: rewrite,
}

fn declarators(d: Node<'_>) -> Vec<Node<'_>> {
    named_children(d)
        .into_iter()
        .filter(|c| c.kind() == "variable_declarator")
        .collect()
}

/// The text before the first declarator (modifiers and type), when the declaration may merge
/// or split.
fn head<'a>(p: &'a JavaParsed, d: Node<'_>) -> Option<&'a str> {
    if d.kind() != "local_variable_declaration" {
        return None;
    }
    let ty = d.child_by_field_name("type")?;
    let ds = declarators(d);
    if p.text(ty) == "var"
        || ds
            .iter()
            .any(|x| x.child_by_field_name("dimensions").is_some())
    {
        return None;
    }
    Some(p.source[d.start_byte()..ds.first()?.start_byte()].trim_end())
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for block in p.nodes_of_kind("block") {
        let stmts = statements(block);
        for w in stmts.windows(2) {
            let (Some(h1), Some(h2)) = (head(p, w[0]), head(p, w[1])) else {
                continue;
            };
            if h1 != h2 {
                continue;
            }
            let parts: Vec<&str> = declarators(w[0])
                .into_iter()
                .chain(declarators(w[1]))
                .map(|x| p.text(x))
                .collect();
            sites.push((
                w[0].start_byte()..w[1].end_byte(),
                format!("{h1} {};", parts.join(", ")),
            ));
        }
        for s in stmts {
            let Some(h) = head(p, s) else { continue };
            let ds = declarators(s);
            if ds.len() < 2 {
                continue;
            }
            let ind = p.indent_of(s);
            let parts: Vec<String> = ds.iter().map(|x| format!("{h} {};", p.text(*x))).collect();
            sites.push((s.byte_range(), parts.join(&format!("\n{ind}"))));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, text) = &sites[i];
        if !edits.overlaps(range) {
            edits.replace(range.clone(), text.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn different_types_and_var_do_not_merge() {
        sdk::testing::assert_declines(
            apply,
            &["class A { void f() { int a = 1; long b = 2; var c = 3; var d = 4; final int e = 5; int g = 6; int h[] = {1}; int k = 2; } }"],
            16,
        );
    }
}
