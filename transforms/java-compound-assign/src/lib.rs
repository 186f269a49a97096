//! ## What it does
//! Expands a compound assignment to a local, `x op= e;`, into `x = (T) (x op (e));` where `T`
//! is the local's declared type, and contracts `x = x op e;` into `x op= e;`.
//!
//! ## Why it preserves semantics
//! The Java Language Specification defines `x op= e` as `x = (T) ((x) op (e))` with `x`
//! evaluated once: for a local variable (a simple name, no object or index to evaluate twice)
//! the expansion is exact, including the implicit narrowing cast that makes `b += 1` legal for
//! a `byte` and `i += 1.5` legal for an `int` (the trap: `x = x + e` without the cast would not
//! compile, or would convert differently). Integer overflow wraps the same way. For `String`
//! `+=` the cast is the identity. The contraction `x = x op e` → `x op= e` adds the cast
//! `(T)`, which is the identity because `x op e` already had to be assignable to `T` without
//! one; it only applies when `op` is the outermost operator with `x` as its left operand
//! (`x = x - a - b` is `(x - a) - b`, not `x - (a - b)`).
//!
//! ## Example
//! ```java
//! byte b = 10; b += 300;
//! ```
//! becomes
//! ```java
//! byte b = 10; b = (byte) (b + (300));
//! ```
//!
//! ## Not applied when
//! - the target is not a local variable with a declared type (`var`, fields, array elements,
//!   `a[i++] += 1`, whose index must be evaluated once);
//! - the compound assignment is used as a value (only statement-level ones are rewritten).

use sdk::java::{scope, JavaParsed};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-compound-assign",
    description: "Expands Java compound assignments to locals with their implicit cast, and contracts x = x op e",
    category: "expression",
    rewrite: rewrite,
}

const TYPES: &[&str] = &[
    "int", "long", "short", "byte", "char", "double", "float", "boolean", "String",
];

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for st in p.nodes_of_kind("expression_statement") {
        let Some(e) = st.named_child(0) else { continue };
        if e.kind() != "assignment_expression" {
            continue;
        }
        let (Some(left), Some(op), Some(right)) = (
            e.child_by_field_name("left"),
            e.child_by_field_name("operator"),
            e.child_by_field_name("right"),
        ) else {
            continue;
        };
        if left.kind() != "identifier" {
            continue;
        }
        let x = p.text(left);
        let Some(ty) = locals
            .iter()
            .rev()
            .find(|l| l.name == x && l.scope.contains(&e.start_byte()))
            .and_then(|l| l.ty.as_deref())
            .filter(|t| TYPES.contains(t))
        else {
            continue;
        };
        let op = p.text(op);
        if op == "=" {
            // x = x op e  →  x op= e
            let r = right;
            if r.kind() != "binary_expression" {
                continue;
            }
            let (Some(rl), Some(rop), Some(rr)) = (
                r.child_by_field_name("left"),
                r.child_by_field_name("operator"),
                r.child_by_field_name("right"),
            ) else {
                continue;
            };
            let rop = p.text(rop);
            let ok_op = matches!(
                rop,
                "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>" | ">>>"
            );
            if rl.kind() == "identifier" && p.text(rl) == x && ok_op {
                sites.push((e.byte_range(), format!("{x} {rop}= {}", p.text(rr))));
            }
        } else if let Some(bin) = op.strip_suffix('=') {
            let expanded = if ty == "String" {
                format!("{x} = {x} {bin} ({})", p.text(right))
            } else {
                format!("{x} = ({ty}) ({x} {bin} ({}))", p.text(right))
            };
            sites.push((e.byte_range(), expanded));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, text) = &sites[i];
        edits.replace(range.clone(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn array_elements_and_untyped_targets_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { void f(int[] a, int i) { a[i++] += 1; } }",
                "class A { int n; void f() { n += 1; var v = 1; v += 2; } }",
                "class A { void f(int x, int a, int b) { x = x - a - b; } }",
            ],
            8,
        );
    }
}
