//! ## What it does
//! Puts a single-statement body of `if`, `else`, `for`, range-`for`, `while` or `do` in
//! braces, or takes the braces off a body block that holds a single statement. It also
//! rewrites C programs.
//!
//! ## Why it preserves semantics
//! A compound statement holding one statement runs that statement; the only thing the braces
//! add is a scope, which matters only for a declaration (never unwrapped) and for the
//! dangling `else`: an `if` without `else` taken out of its braces could capture a following
//! `else`, so an `if` is never unwrapped. A body that is not a block is already a scope of its
//! own (the standard treats it as if it were in braces), so wrapping it changes nothing.
//!
//! ## Example
//! ```cpp
//! for (int i = 0; i < n; i++) s += a[i];
//! ```
//! becomes
//! ```cpp
//! for (int i = 0; i < n; i++) { s += a[i]; }
//! ```
//!
//! ## Not applied when
//! - the single statement is a declaration, an `if`, or a labelled statement, or the block
//!   holds a comment (unwrapping);
//! - the body uses a macro or lies in code a preprocessor conditional guards; `else if`
//!   chains are left as they are.

use sdk::cpp::{in_conditional, statements, CppParsed};
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-braces",
    description: "Adds or removes the braces of single-statement C++ if, else and loop bodies",
    category: "layout",
    languages: "cpp c",
    rewrite: rewrite,
}

/// The bodies of control statements: (body, whether it may be rewritten at all).
fn bodies<'t>(p: &'t CppParsed) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for n in p.nodes() {
        let body = match n.kind() {
            "if_statement" => n.child_by_field_name("consequence"),
            "else_clause" => n.named_child(0).filter(|b| b.kind() != "if_statement"),
            "for_statement" | "for_range_loop" | "while_statement" | "do_statement" => {
                n.child_by_field_name("body")
            }
            _ => None,
        };
        if let Some(b) = body {
            if !in_conditional(b) && !p.uses_macro(b) {
                out.push(b);
            }
        }
    }
    out
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for b in bodies(p) {
        if b.kind() == "compound_statement" {
            let inner = statements(b);
            let [only] = inner.as_slice() else { continue };
            let has_comment = named_children(b).iter().any(|c| c.kind() == "comment");
            let keeps_scope = matches!(
                only.kind(),
                "declaration"
                    | "if_statement"
                    | "labeled_statement"
                    | "type_definition"
                    | "alias_declaration"
                    | "using_declaration"
            );
            if has_comment || keeps_scope || p.text(*only).contains('\n') {
                continue;
            }
            sites.push((b.byte_range(), p.text(*only).to_string()));
        } else if b.kind() != "labeled_statement" {
            sites.push((b.byte_range(), format!("{{ {} }}", p.text(b))));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, text) = &sites[i];
        if edits.overlaps(range) {
            continue;
        }
        edits.replace(range.clone(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn scoped_and_dangling_bodies_are_not_unwrapped() {
        let src = "int main() { int a = 1, b = 0; if (a) { if (b) { a = 2; } } else { a = 3; } if (a) { int a = 2; } return a; }\n";
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(
                    out.contains("{ if (b)"),
                    "seed {seed}: dangling else:\n{out}"
                );
                assert!(
                    out.contains("{ int a = 2; }"),
                    "seed {seed}: scope lost:\n{out}"
                );
            }
        }
    }
}
