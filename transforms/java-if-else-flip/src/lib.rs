//! ## What it does
//! Swaps the branches of an `if`/`else` and negates its condition:
//! `if (c) A else B` becomes `if (!(c)) { B } else { A }` (a condition that is already a
//! negation `!(x)` or `!x` loses it instead).
//!
//! ## Why it preserves semantics
//! The condition is evaluated once, exactly as before, and exactly one branch runs; `!` on a
//! `boolean` (or an unboxed `Boolean`) is total. Branches that are not blocks are wrapped in
//! braces, so a nested `if` without `else` can never capture the `else` (the dangling-else
//! trap). Reachability and definite assignment of an `if`/`else` are symmetric in its branches.
//!
//! ## Example
//! ```java
//! if (x > 0) sign = 1; else sign = -1;
//! ```
//! becomes
//! ```java
//! if (!(x > 0)) { sign = -1; } else { sign = 1; }
//! ```
//!
//! ## Not applied when
//! The `if` has no `else`.

use sdk::java::JavaParsed;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-if-else-flip",
    description: "Negates a Java if condition and swaps the then and else branches",
    category: "control-flow",
    rewrite: rewrite,
}

fn branch(p: &JavaParsed, n: Node<'_>) -> String {
    if n.kind() == "block" {
        p.text(n).to_string()
    } else {
        format!("{{ {} }}", p.text(n))
    }
}

/// `!(c)`, or `x` when `c` is `(!x)` with `x` a name, call, field or parenthesised expression.
fn negate(p: &JavaParsed, cond: Node<'_>) -> String {
    let inner = cond.named_child(0).unwrap_or(cond);
    if inner.kind() == "unary_expression"
        && inner
            .child_by_field_name("operator")
            .is_some_and(|o| p.text(o) == "!")
    {
        if let Some(operand) = inner.child_by_field_name("operand") {
            if matches!(
                operand.kind(),
                "parenthesized_expression" | "identifier" | "method_invocation" | "field_access"
            ) {
                let t = p.text(operand);
                return if t.starts_with('(') {
                    t.to_string()
                } else {
                    format!("({t})")
                };
            }
        }
    }
    format!("(!{})", p.text(cond))
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let ifs: Vec<_> = p
        .nodes_of_kind("if_statement")
        .into_iter()
        .filter(|n| n.child_by_field_name("alternative").is_some())
        .collect();
    for i in rng.sites(ifs.len(), 0.5) {
        let n = ifs[i];
        if edits.overlaps(&n.byte_range()) {
            continue;
        }
        let (Some(cond), Some(cons), Some(alt)) = (
            n.child_by_field_name("condition"),
            n.child_by_field_name("consequence"),
            n.child_by_field_name("alternative"),
        ) else {
            continue;
        };
        let text = format!(
            "if {} {} else {}",
            negate(p, cond),
            branch(p, alt),
            branch(p, cons)
        );
        edits.replace(n.byte_range(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);
}
