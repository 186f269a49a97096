//! ## What it does
//! Turns a conditional expression into an `if`/`else` and back:
//! `T x = c ? a : b;` ↔ `T x; if (c) { x = a; } else { x = b; }`,
//! `x = c ? a : b;` ↔ `if (c) { x = a; } else { x = b; }` and
//! `return c ? a : b;` ↔ `if (c) { return a; } else { return b; }`.
//!
//! ## Why it preserves semantics
//! The condition and exactly one branch are evaluated, in the same order. The trap is typing:
//! a conditional expression's type comes from both branches (`true ? 1 : 2.0` is the `double`
//! `1.0`; `c ? someLong : 1.0f` is a `float`, which loses precision before widening), while an
//! `if` converts each branch on its own. So the transform only acts where the target's type is
//! `int`, `long`, `boolean` or `String`: every branch that compiles for such a target has a
//! type that converts to it exactly, alone or through the conditional. A `final` local stays
//! definitely assigned exactly once on each path.
//!
//! ## Example
//! ```java
//! int best = a > b ? a : b;
//! ```
//! becomes
//! ```java
//! int best;
//! if (a > b) { best = a; } else { best = b; }
//! ```
//!
//! ## Not applied when
//! - the target's type is anything else (`double`, `Object`, boxed types, generics);
//! - the declaration declares several variables, or the `if` branches are not single
//!   assignments to the same local (or single `return`s);
//! - the `return` is inside a lambda (its type is inferred).

use sdk::java::{scope, JavaParsed};
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-ternary-if",
    description: "Rewrites a Java conditional expression as if/else (and back) where typing allows",
    category: "expression",
    rewrite: rewrite,
}

const SAFE_TYPES: &[&str] = &["int", "long", "boolean", "String"];

fn unparen<'t>(n: Node<'t>) -> Node<'t> {
    if n.kind() == "parenthesized_expression" {
        n.named_child(0).map_or(n, unparen)
    } else {
        n
    }
}

/// The single statement of a branch (a block of one statement, or the statement).
fn only_statement(n: Node<'_>) -> Option<Node<'_>> {
    if n.kind() == "block" {
        let s = sdk::java::statements(n);
        (s.len() == 1 && named_children(n).len() == 1).then(|| s[0])
    } else {
        Some(n)
    }
}

/// `x = e;` as (x, e).
fn assignment<'t>(p: &JavaParsed, stmt: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let e = stmt.named_child(0)?;
    if e.kind() != "assignment_expression"
        || e.child_by_field_name("operator").map(|o| p.text(o)) != Some("=")
    {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    (left.kind() == "identifier").then_some((left, e.child_by_field_name("right")?))
}

fn method_return_type<'t>(p: &'t JavaParsed, n: Node<'_>) -> Option<&'t str> {
    let m = sdk::java::enclosing(n, &["method_declaration"])?;
    m.child_by_field_name("type").map(|t| p.text(t).trim())
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let local_type = |name: &str, at: usize| -> Option<String> {
        locals
            .iter()
            .rev()
            .find(|l| l.name == name && l.scope.contains(&at))
            .and_then(|l| l.ty.clone())
    };
    let mut sites: Vec<(Node<'_>, String)> = Vec::new();
    for n in p.nodes() {
        match n.kind() {
            // T x = c ? a : b;
            "local_variable_declaration" => {
                let decls: Vec<_> = named_children(n)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                    .collect();
                let Some(ty) = n.child_by_field_name("type") else {
                    continue;
                };
                if decls.len() != 1
                    || !SAFE_TYPES.contains(&p.text(ty))
                    || n.parent().is_none_or(|b| b.kind() != "block")
                {
                    continue;
                }
                let d = decls[0];
                let (Some(name), Some(value)) = (
                    d.child_by_field_name("name"),
                    d.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let value = unparen(value);
                if value.kind() != "ternary_expression"
                    || d.child_by_field_name("dimensions").is_some()
                {
                    continue;
                }
                let (c, a, b) = parts(p, value);
                let x = p.text(name);
                let head = &p.source[n.start_byte()..d.start_byte()];
                let ind = p.indent_of(n);
                sites.push((
                    n,
                    format!("{head}{x};\n{ind}if ({c}) {{ {x} = {a}; }} else {{ {x} = {b}; }}"),
                ));
            }
            // x = c ? a : b;  and  return c ? a : b;
            "expression_statement" | "return_statement" => {
                if n.parent().is_none_or(|b| b.kind() != "block") {
                    continue;
                }
                if n.kind() == "expression_statement" {
                    let Some((left, right)) = assignment(p, n) else {
                        continue;
                    };
                    let right = unparen(right);
                    let ty = local_type(p.text(left), n.start_byte());
                    if right.kind() != "ternary_expression"
                        || !ty.is_some_and(|t| SAFE_TYPES.contains(&t.as_str()))
                    {
                        continue;
                    }
                    let (c, a, b) = parts(p, right);
                    let x = p.text(left);
                    sites.push((
                        n,
                        format!("if ({c}) {{ {x} = {a}; }} else {{ {x} = {b}; }}"),
                    ));
                } else {
                    let Some(e) = n.named_child(0).map(unparen) else {
                        continue;
                    };
                    if e.kind() != "ternary_expression"
                        || !method_return_type(p, n).is_some_and(|t| SAFE_TYPES.contains(&t))
                    {
                        continue;
                    }
                    let (c, a, b) = parts(p, e);
                    sites.push((
                        n,
                        format!("if ({c}) {{ return {a}; }} else {{ return {b}; }}"),
                    ));
                }
            }
            // The way back: if (c) x = a; else x = b;  /  if (c) return a; else return b;
            "if_statement" => {
                let (Some(cond), Some(cons), Some(alt)) = (
                    n.child_by_field_name("condition"),
                    n.child_by_field_name("consequence"),
                    n.child_by_field_name("alternative"),
                ) else {
                    continue;
                };
                let (Some(s1), Some(s2)) = (only_statement(cons), only_statement(alt)) else {
                    continue;
                };
                let c = p.text(cond);
                if let (Some((l1, r1)), Some((l2, r2))) = (assignment(p, s1), assignment(p, s2)) {
                    let x = p.text(l1);
                    let ty = local_type(x, n.start_byte());
                    if x == p.text(l2) && ty.is_some_and(|t| SAFE_TYPES.contains(&t.as_str())) {
                        sites.push((
                            n,
                            format!("{x} = {c} ? ({}) : ({});", p.text(r1), p.text(r2)),
                        ));
                    }
                } else if s1.kind() == "return_statement"
                    && s2.kind() == "return_statement"
                    && method_return_type(p, n).is_some_and(|t| SAFE_TYPES.contains(&t))
                {
                    if let (Some(r1), Some(r2)) = (s1.named_child(0), s2.named_child(0)) {
                        sites.push((
                            n,
                            format!("return {c} ? ({}) : ({});", p.text(r1), p.text(r2)),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (n, text) = &sites[i];
        if !edits.overlaps(&n.byte_range()) {
            edits.replace(n.byte_range(), text.clone());
        }
    }
    edits
}

fn parts<'t>(p: &'t JavaParsed, t: Node<'_>) -> (&'t str, &'t str, &'t str) {
    let get = |f: &str| t.child_by_field_name(f).map_or("", |n| p.text(n));
    (get("condition"), get("consequence"), get("alternative"))
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn numeric_promotion_targets_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { Object f(boolean c) { Object o = c ? 1 : 2.0; return o; } }",
                "class A { double f(boolean c, long l) { double d = c ? l : 1.0f; return d; } }",
                "class A { Object f(boolean c) { return c ? 1 : \"s\"; } }",
            ],
            8,
        );
    }
}
