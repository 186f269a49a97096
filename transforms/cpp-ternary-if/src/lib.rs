//! ## What it does
//! Rewrites an assignment or `return` of a conditional expression as an `if`/`else`
//! (`x = c ? a : b;` → `if (c) x = a; else x = b;`), and the other way round. It also
//! rewrites C programs.
//!
//! ## Why it preserves semantics
//! Both forms evaluate `c` once, then exactly one of `a` and `b`, and store or return it. The
//! trap is the conditional's common type: `c ? -1 : 1u` is `unsigned`, so `long long x = c ?
//! -1 : 1u` stores 4294967295 where `if (c) x = -1;` stores -1. So only branches whose types
//! are the same are accepted: two integer literals without suffix, two floating literals
//! without suffix, two string literals, or two names that every declaration in the program
//! gives one and the same arithmetic type. The target of an assignment is a plain name. An
//! `if` condition that binds less tightly than `?:` (an assignment, a conditional) is put in
//! parentheses: `if (k = f()) x = 1; else x = 2;` is `x = (k = f()) ? 1 : 2;`.
//!
//! ## Example
//! ```cpp
//! best = a > b ? a : b;
//! ```
//! becomes
//! ```cpp
//! if (a > b) best = a; else best = b;
//! ```
//!
//! ## Not applied when
//! - the branches' types may differ (see above), or the conditional is nested in a larger
//!   expression;
//! - the statement uses a macro or lies in code a preprocessor conditional guards;
//! - (if → conditional) the two branches assign different targets or with another operator,
//!   or are not single statements, or the condition is a comma expression.

use sdk::cpp::{arithmetic_names, in_conditional, CppParsed};
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-ternary-if",
    description: "Rewrites C++ conditional-expression assignments and returns as if/else, and back",
    category: "control-flow",
    languages: "cpp c",
    rewrite: rewrite,
}

/// The type both branches certainly share, by their text: `None` when it may differ.
fn same_type(
    p: &CppParsed,
    arithmetic: &BTreeMap<String, String>,
    a: Node<'_>,
    b: Node<'_>,
) -> bool {
    let class = |n: Node<'_>| -> Option<String> {
        let t = p.text(n);
        match n.kind() {
            "number_literal" if t.chars().all(|c| c.is_ascii_digit()) => Some("int".into()),
            "number_literal"
                if t.chars().all(|c| c.is_ascii_digit() || c == '.') && t.contains('.') =>
            {
                Some("double".into())
            }
            "string_literal" => Some(format!("string{}", t.len())),
            "identifier" => arithmetic.get(t).map(|ty| format!("name:{ty}")),
            _ => None,
        }
    };
    match (class(a), class(b)) {
        // Two string literals of different lengths are arrays of different sizes, but both
        // decay to `const char*` in either form.
        (Some(x), Some(y)) if x.starts_with("string") && y.starts_with("string") => true,
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `x = e;` → (`x`, `e`) for a plain name `x` and a plain `=`.
fn assignment<'t>(p: &CppParsed, n: Node<'t>) -> Option<(String, Node<'t>)> {
    if n.kind() != "expression_statement" {
        return None;
    }
    let e = n.named_child(0)?;
    if e.kind() != "assignment_expression" {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    let op = e.child_by_field_name("operator")?;
    let right = e.child_by_field_name("right")?;
    (p.text(op) == "=" && left.kind() == "identifier").then(|| (p.text(left).to_string(), right))
}

/// `return e;` → `e`.
fn returned(n: Node<'_>) -> Option<Node<'_>> {
    (n.kind() == "return_statement")
        .then(|| n.named_child(0))
        .flatten()
}

/// A branch statement's single statement (a block holding exactly one statement counts).
fn single(n: Node<'_>) -> Option<Node<'_>> {
    if n.kind() == "compound_statement" {
        let mut c = n.walk();
        let kids: Vec<_> = n.named_children(&mut c).collect();
        return match kids.as_slice() {
            [only] if only.kind() != "comment" => Some(*only),
            _ => None,
        };
    }
    Some(n)
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let arithmetic = arithmetic_names(p);
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    // Conditional → if/else.
    for c in p.nodes_of_kind("conditional_expression") {
        let Some(parent) = c.parent() else { continue };
        let (Some(cond), Some(a), Some(b)) = (
            c.child_by_field_name("condition"),
            c.child_by_field_name("consequence"),
            c.child_by_field_name("alternative"),
        ) else {
            continue;
        };
        let Some(stmt) = parent.parent() else {
            continue;
        };
        if in_conditional(c) || p.uses_macro(c) || !same_type(p, &arithmetic, a, b) {
            continue;
        }
        let (ct, at, bt) = (p.text(cond), p.text(a), p.text(b));
        if parent.kind() == "return_statement" {
            sites.push((
                parent.byte_range(),
                format!("if ({ct}) return {at}; else return {bt};"),
            ));
        } else if parent.kind() == "assignment_expression"
            && stmt.kind() == "expression_statement"
            && parent
                .child_by_field_name("right")
                .is_some_and(|r| r.id() == c.id())
        {
            let Some(target) = parent.child_by_field_name("left") else {
                continue;
            };
            let op = parent
                .child_by_field_name("operator")
                .map_or("=", |o| p.text(o));
            if target.kind() != "identifier" || op != "=" {
                continue;
            }
            let x = p.text(target);
            sites.push((
                stmt.byte_range(),
                format!("if ({ct}) {x} = {at}; else {x} = {bt};"),
            ));
        }
    }
    // if/else → conditional.
    for s in p.nodes_of_kind("if_statement") {
        if in_conditional(s) || p.uses_macro(s) {
            continue;
        }
        let Some(clause) = s.child_by_field_name("condition") else {
            continue;
        };
        let Some(value) = clause.child_by_field_name("value") else {
            continue;
        };
        if clause.child_by_field_name("initializer").is_some() || value.kind() == "declaration" {
            continue;
        }
        let (Some(then), Some(other)) = (
            s.child_by_field_name("consequence").and_then(single),
            s.child_by_field_name("alternative")
                .and_then(|e| e.named_child(0))
                .and_then(single),
        ) else {
            continue;
        };
        // An `if` condition may be any expression; as a conditional's condition one that binds
        // less tightly than `?:` needs parentheses: `if (k = f())` is not `x = k = f() ? …`.
        // A comma is left alone (tree-sitter-cpp misreads `(t = f(), t) ? 1 : 2`).
        if value.kind() == "comma_expression" {
            continue;
        }
        let ct = if matches!(
            value.kind(),
            "assignment_expression" | "conditional_expression"
        ) {
            format!("({})", p.text(value))
        } else {
            p.text(value).to_string()
        };
        if let (Some((x, a)), Some((y, b))) = (assignment(p, then), assignment(p, other)) {
            if x == y && same_type(p, &arithmetic, a, b) {
                sites.push((
                    s.byte_range(),
                    format!("{x} = {ct} ? {} : {};", p.text(a), p.text(b)),
                ));
            }
        } else if let (Some(a), Some(b)) = (returned(then), returned(other)) {
            if same_type(p, &arithmetic, a, b) {
                sites.push((
                    s.byte_range(),
                    format!("return {ct} ? {} : {};", p.text(a), p.text(b)),
                ));
            }
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
    fn mixed_branch_types_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &["int main() { int c = 1; long long x = c ? -1 : 1u; unsigned u = 2; int i = 3; x = c ? u : i; return x > 0; }\n"],
            8,
        );
    }

    #[test]
    fn loose_conditions_are_parenthesised() {
        let src = "int f(); int main() { int t = 0, x, y; if (t = f()) x = 1; else x = 2; if (t ? x : 0) y = 1; else y = 2; if (t = 3, t) y = 3; else y = 4; return x + y; }\n";
        let mut rewritten = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                rewritten += 1;
                assert!(sdk::testing::parses_as_cpp(&out), "seed {seed}:\n{out}");
                assert!(!out.contains("x = t = f()"), "seed {seed}:\n{out}");
                assert!(!out.contains("y = t ? x : 0 ?"), "seed {seed}:\n{out}");
                assert!(
                    out.contains("if (t = 3, t) y = 3; else y = 4;"),
                    "seed {seed}:\n{out}"
                );
            }
        }
        assert!(rewritten > 0);
    }
}
