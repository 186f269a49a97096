//! ## What it does
//! Swaps the operands of a comparison (`a < b` → `b > a`, `a == b` → `b == a`) and of `+` or
//! `*` on numbers (`a + b` → `b + a`), when neither operand can have an effect or throw.
//!
//! ## Why it preserves semantics
//! Java evaluates operands left to right, so a swap is only safe when the order is
//! unobservable: each operand is built from literals, `this`, and names of primitive-typed
//! locals in scope, with operators other than `/` and `%` (which throw on an integer zero) —
//! no call, no assignment, no `++`, no array access, no unboxing. `==`, `!=`, `<`/`>` and
//! `<=`/`>=` are mirror images on primitives (NaN compares false both ways). `+` and `*` are
//! commutative on `int`, `long` (wrapping is commutative too), `float` and `double` (IEEE
//! addition and multiplication are commutative); `+` with a string is concatenation and is
//! never swapped: operands must be numeric (no string or character literal, no `boolean`).
//! `&&` and `||` are never swapped (short-circuit order).
//!
//! ## Example
//! ```java
//! if (count < limit && total * 2 > 10) …
//! ```
//! becomes
//! ```java
//! if (limit > count && 2 * total > 10) …
//! ```
//!
//! ## Not applied when
//! An operand may call, assign, throw, unbox, index, or is not known to be primitive (a field,
//! a `var`, a boxed local).

use sdk::java::{is_pure, scope, JavaParsed};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-operand-swap",
    description: "Swaps operands of Java comparisons and numeric + and * where evaluation order is unobservable",
    category: "expression",
    rewrite: rewrite,
}

fn mirrored(op: &str) -> Option<&'static str> {
    Some(match op {
        "==" => "==",
        "!=" => "!=",
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        "+" => "+",
        "*" => "*",
        _ => return None,
    })
}

/// Whether every name in `e` is a numeric (non-boolean, non-char) primitive local and no
/// string or character literal appears (so `+` is arithmetic, not concatenation).
fn numeric(p: &JavaParsed, e: Node<'_>, numeric_locals: &[&str]) -> bool {
    descendants(e).into_iter().all(|n| match n.kind() {
        "identifier" => numeric_locals.contains(&p.text(n)),
        "string_literal" | "character_literal" | "true" | "false" | "this" | "null_literal" => {
            false
        }
        _ => true,
    })
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let mut sites = Vec::new();
    for b in p.nodes_of_kind("binary_expression") {
        let (Some(l), Some(op), Some(r)) = (
            b.child_by_field_name("left"),
            b.child_by_field_name("operator"),
            b.child_by_field_name("right"),
        ) else {
            continue;
        };
        let Some(new_op) = mirrored(p.text(op)) else {
            continue;
        };
        let in_scope: Vec<&scope::Local<'_>> = locals
            .iter()
            .filter(|x| x.scope.contains(&b.start_byte()) && x.is_primitive())
            .collect();
        let primitives: Vec<&str> = in_scope.iter().map(|x| x.name.as_str()).collect();
        if !is_pure(p, l, &primitives) || !is_pure(p, r, &primitives) {
            continue;
        }
        if matches!(new_op, "+" | "*") {
            let nums: Vec<&str> = in_scope
                .iter()
                .filter(|x| !matches!(x.ty.as_deref(), Some("boolean") | Some("char")))
                .map(|x| x.name.as_str())
                .collect();
            if !numeric(p, l, &nums) || !numeric(p, r, &nums) {
                continue;
            }
        }
        sites.push((b, l, new_op, r));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (b, l, op, r) = sites[i];
        if edits.overlaps(&b.byte_range()) {
            continue;
        }
        // Parenthesised, so precedence around and inside cannot change.
        edits.replace(
            b.byte_range(),
            format!("({} {op} {})", p.text(r), p.text(l)),
        );
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn effects_and_strings_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { int n; int g() { return n++; } boolean f(int a) { return g() < a; } }",
                "class A { String f(int a, String s) { return s + a; } }",
                "class A { boolean f(Integer a, int b) { return a == b; } }",
                "class A { boolean f(int a, int b) { return a / b > 1; } }",
            ],
            16,
        );
    }
}
