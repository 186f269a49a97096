//! ## What it does
//! Swaps two adjacent statements of a block when one of them is a declaration of a local
//! initialised by an expression that cannot have effects or throw, and the other shares no
//! name with it.
//!
//! ## Why it preserves semantics
//! The declaration `T a = e;` only computes `e` — literals, and primitive-typed locals in
//! scope combined by operators that cannot throw (no calls, no `/` or `%`, no array access,
//! no unboxing) — and stores it in `a`. The other statement (an expression statement or a
//! declaration) mentions neither `a` nor any name `e` reads, so it cannot observe the store or
//! change `e`'s value, and `e` cannot observe anything the other statement does (no fields,
//! no calls). If the other statement throws, `a` is out of scope wherever the exception is
//! handled, so whether it was stored is unobservable. Statements that jump (`return`,
//! `break`, …) are never moved.
//!
//! ## Example
//! ```java
//! int limit = n * 2;
//! System.out.println("start");
//! ```
//! becomes
//! ```java
//! System.out.println("start");
//! int limit = n * 2;
//! ```
//!
//! ## Not applied when
//! The declaration's initialiser may call, throw or read a field; the other statement is not an
//! expression statement or declaration, or mentions a name the declaration writes or reads.

use sdk::java::{is_pure, scope, statements, JavaParsed};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use std::collections::HashSet;
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-stmt-swap",
    description: "Swaps adjacent independent Java statements when one is an effect-free local declaration",
    category: "data-flow",
    rewrite: rewrite,
}

/// The names a pure single-variable declaration writes and reads, when `s` is one.
fn pure_declaration<'t>(
    p: &'t JavaParsed,
    s: Node<'_>,
    primitives: &[&str],
) -> Option<HashSet<&'t str>> {
    if s.kind() != "local_variable_declaration" {
        return None;
    }
    let decls: Vec<_> = named_children(s)
        .into_iter()
        .filter(|d| d.kind() == "variable_declarator")
        .collect();
    if decls.len() != 1 {
        return None;
    }
    let name = decls[0].child_by_field_name("name")?;
    let value = decls[0].child_by_field_name("value")?;
    if !is_pure(p, value, primitives) {
        return None;
    }
    let mut names: HashSet<&str> = idents(p, value);
    names.insert(p.text(name));
    Some(names)
}

fn idents<'t>(p: &'t JavaParsed, n: Node<'_>) -> HashSet<&'t str> {
    descendants(n)
        .into_iter()
        .filter(|d| d.kind() == "identifier")
        .map(|d| &p.source[d.byte_range()])
        .collect()
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let mut sites = Vec::new();
    for block in p.nodes_of_kind("block") {
        let stmts = statements(block);
        for w in stmts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let primitives: Vec<&str> = locals
                .iter()
                .filter(|l| {
                    l.is_primitive()
                        && l.scope.contains(&a.start_byte())
                        && l.decl.start_byte() < a.start_byte()
                })
                .map(|l| l.name.as_str())
                .collect();
            let movable = |n: Node<'_>| {
                matches!(
                    n.kind(),
                    "expression_statement" | "local_variable_declaration"
                )
            };
            if !movable(a) || !movable(b) {
                continue;
            }
            let independent = |decl: Node<'_>, other: Node<'_>| {
                pure_declaration(p, decl, &primitives)
                    .is_some_and(|names| idents(p, other).is_disjoint(&names))
            };
            if independent(a, b) || independent(b, a) {
                sites.push((a, b));
            }
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (a, b) = sites[i];
        if edits.overlaps(&a.byte_range()) || edits.overlaps(&b.byte_range()) {
            continue;
        }
        edits.replace(a.byte_range(), p.text(b).to_string());
        edits.replace(b.byte_range(), p.text(a).to_string());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn dependent_or_effectful_pairs_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { void f(int n) { int a = n + 1; n = 2; } }",
                "class A { int g() { return 1; } void f(int n) { int a = g(); System.out.println(n); } }",
                "class A { void f(int n) { int a = n / 2; System.out.println(n); } }",
                "class A { int fld; void f(int n) { int a = fld; bump(); } void bump() { fld++; } }",
            ],
            16,
        );
    }
}
