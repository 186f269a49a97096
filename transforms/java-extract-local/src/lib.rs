//! ## What it does
//! Extracts an expression into a fresh local and inlines such a local back:
//! `return e;` → `T r = e; return r;` (with `T` the method's declared return type),
//! `if (e) …` → `boolean c = e; if (c) …`, and `T r = e; return r;` → `return e;` when `T` is
//! the method's return type and `r` is used nowhere else.
//!
//! ## Why it preserves semantics
//! The expression is evaluated once, at the same point, before the statement that used it.
//! Typing is the trap: a local typed `var` would infer a different type for poly expressions
//! (`new ArrayList<>()`, lambdas, generic calls) and for constants (`char c = 65; return c;` in
//! a method returning `Object` returns a `Character`, `return 65;` an `Integer`). So the local
//! takes exactly the type of the context — the method's declared return type for `return`
//! (assignment and return contexts convert alike), `boolean` for an `if` condition (an `if`
//! unboxes a `Boolean` exactly as the assignment does) — and inlining requires the local's type
//! to be the return type itself.
//!
//! ## Example
//! ```java
//! return a * b + c;
//! ```
//! becomes
//! ```java
//! long product = a * b + c;
//! return product;
//! ```
//!
//! ## Not applied when
//! - the `return` is in a lambda, a `void` method or a generic method whose return type names a
//!   type parameter of a nested scope; the expression is already a name or literal;
//! - the `if` is an `else if` or not directly in a block (there is no place for the local);
//! - for inlining: the local is used elsewhere, or its type differs from the return type.

use sdk::java::{enclosing, fresh_names, JavaParsed};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-extract-local",
    description: "Extracts a Java return value or if condition into a typed local, or inlines one",
    category: "data-flow",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut fresh = fresh_names(p);
    // (statement, kind, detail)
    let mut sites: Vec<(tree_sitter::Node<'_>, u8)> = Vec::new();
    for n in p.nodes() {
        let in_block = n.parent().is_some_and(|b| b.kind() == "block");
        if !in_block {
            continue;
        }
        match n.kind() {
            "return_statement" => {
                let Some(e) = n.named_child(0) else { continue };
                let simple = matches!(
                    e.kind(),
                    "identifier"
                        | "decimal_integer_literal"
                        | "true"
                        | "false"
                        | "string_literal"
                        | "null_literal"
                );
                let ty = enclosing(n, &["method_declaration"])
                    .and_then(|m| m.child_by_field_name("type"));
                if !simple && ty.is_some_and(|t| t.kind() != "void_type") {
                    sites.push((n, 0));
                }
            }
            "if_statement" => sites.push((n, 1)),
            "local_variable_declaration" => {
                // T r = e; return r;  with r used nowhere else.
                let Some(next) = n.next_named_sibling() else {
                    continue;
                };
                let decls: Vec<_> = named_children(n)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                    .collect();
                if decls.len() != 1 || next.kind() != "return_statement" {
                    continue;
                }
                let (Some(name), Some(_)) = (
                    decls[0].child_by_field_name("name"),
                    decls[0].child_by_field_name("value"),
                ) else {
                    continue;
                };
                let Some(ret) = next.named_child(0) else {
                    continue;
                };
                let ty = n.child_by_field_name("type").map(|t| p.text(t));
                let mty = enclosing(n, &["method_declaration"])
                    .and_then(|m| m.child_by_field_name("type"))
                    .map(|t| p.text(t));
                let uses = descendants(n.parent().unwrap_or(n))
                    .into_iter()
                    .filter(|d| d.kind() == "identifier" && p.text(*d) == p.text(name))
                    .count();
                if ret.kind() == "identifier"
                    && p.text(ret) == p.text(name)
                    && ty.is_some()
                    && ty == mty
                    && uses == 2
                    && !p.text(n).contains("final ")
                    && decls[0].child_by_field_name("dimensions").is_none()
                {
                    sites.push((n, 2));
                }
            }
            _ => {}
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (n, kind) = sites[i];
        let ind = p.indent_of(n).to_string();
        match kind {
            0 => {
                let (Some(e), Some(ty)) = (
                    n.named_child(0),
                    enclosing(n, &["method_declaration"])
                        .and_then(|m| m.child_by_field_name("type")),
                ) else {
                    continue;
                };
                if edits.overlaps(&n.byte_range()) {
                    continue;
                }
                let r = fresh.fresh(rng, Some("result"));
                edits.replace(
                    n.byte_range(),
                    format!("{} {r} = {};\n{ind}return {r};", p.text(ty), p.text(e)),
                );
            }
            1 => {
                let Some(cond) = n.child_by_field_name("condition") else {
                    continue;
                };
                let inner = cond.named_child(0).unwrap_or(cond);
                if edits.overlaps(&cond.byte_range())
                    || edits.overlaps(&(n.start_byte()..n.start_byte()))
                {
                    continue;
                }
                let c = fresh.fresh(rng, Some("cond"));
                edits.insert(
                    n.start_byte(),
                    format!("boolean {c} = {};\n{ind}", p.text(inner)),
                );
                edits.replace(cond.byte_range(), format!("({c})"));
            }
            _ => {
                let Some(next) = n.next_named_sibling() else {
                    continue;
                };
                let Some(value) = named_children(n)
                    .into_iter()
                    .find(|d| d.kind() == "variable_declarator")
                    .and_then(|d| d.child_by_field_name("value"))
                else {
                    continue;
                };
                if edits.overlaps(&(n.start_byte()..next.end_byte())) {
                    continue;
                }
                edits.replace(
                    n.start_byte()..next.end_byte(),
                    format!("return {};", p.text(value)),
                );
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn inlining_needs_the_return_type() {
        sdk::testing::assert_declines(
            apply,
            &["class A { Object f() { char c = 65; return c; } void g() { return; } }"],
            16,
        );
    }
}
