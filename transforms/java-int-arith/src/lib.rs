//! ## What it does
//! Rewrites integer arithmetic on `int` and `long` locals and literals into equal forms:
//! `a + b` → `(a - -b)`, `a - b` → `(a + -b)`, `x * 2` → `(x << 1)`, `-x` → `(~x + 1)`, and
//! `x % 2 == 0` → `((x & 1) == 0)` (also with `!=`).
//!
//! ## Why it preserves semantics
//! Java's `int` and `long` arithmetic is two's-complement modulo 2^32 or 2^64, and every
//! identity used holds in that ring, overflow included: negation wraps (`-MIN_VALUE ==
//! MIN_VALUE`, and then `a - MIN_VALUE == a + MIN_VALUE`), `x << 1` is `x * 2` with the same
//! wrap-around, `~x + 1` is `-x`, and `x % 2` is zero exactly when the low bit is (the traps:
//! `x % 2 == 1` is false for negative odd `x`, and `x / 2` is not `x >> 1` for negatives — so
//! neither is rewritten). Operands are names of `int`/`long` locals or integer literals, so they
//! are evaluated once, without effects, and no `+` is a string concatenation; each rewrite is
//! parenthesised.
//!
//! ## Example
//! ```java
//! if (i % 2 == 0) total = total + i;
//! ```
//! becomes
//! ```java
//! if (((i & 1) == 0)) total = (total - -i);
//! ```
//!
//! ## Not applied when
//! An operand is anything but an `int`/`long` local or an integer literal (fields, calls,
//! `char`, floating point), or the literal is the `-2147483648` special case.

use sdk::java::{scope, JavaParsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-int-arith",
    description: "Rewrites Java int/long arithmetic into equal two's-complement forms",
    category: "expression",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let integral = |n: Node<'_>| -> bool {
        match n.kind() {
            "decimal_integer_literal" => p
                .text(n)
                .trim_end_matches(['l', 'L'])
                .parse::<u64>()
                .is_ok_and(|v| v < i32::MAX as u64),
            "identifier" => locals.iter().rev().any(|l| {
                l.name == p.text(n)
                    && l.scope.contains(&n.start_byte())
                    && matches!(l.ty.as_deref(), Some("int") | Some("long"))
            }),
            _ => false,
        }
    };
    let mut sites: Vec<(Node<'_>, String)> = Vec::new();
    for n in p.nodes() {
        match n.kind() {
            "binary_expression" => {
                let (Some(l), Some(op), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("operator"),
                    n.child_by_field_name("right"),
                ) else {
                    continue;
                };
                let (lt, rt) = (p.text(l), p.text(r));
                match p.text(op) {
                    "+" if integral(l) && integral(r) => sites.push((n, format!("({lt} - -{rt})"))),
                    "-" if integral(l) && integral(r) => sites.push((n, format!("({lt} + -{rt})"))),
                    "*" if integral(l) && rt == "2" => sites.push((n, format!("({lt} << 1)"))),
                    "==" | "!=" if rt == "0" && l.kind() == "binary_expression" => {
                        let (Some(x), Some(m), Some(two)) = (
                            l.child_by_field_name("left"),
                            l.child_by_field_name("operator"),
                            l.child_by_field_name("right"),
                        ) else {
                            continue;
                        };
                        if p.text(m) == "%" && p.text(two) == "2" && integral(x) {
                            sites.push((n, format!("(({} & 1) {} 0)", p.text(x), p.text(op))));
                        }
                    }
                    _ => {}
                }
            }
            "unary_expression" => {
                let (Some(op), Some(x)) = (
                    n.child_by_field_name("operator"),
                    n.child_by_field_name("operand"),
                ) else {
                    continue;
                };
                if p.text(op) == "-" && x.kind() == "identifier" && integral(x) {
                    sites.push((n, format!("(~{} + 1)", p.text(x))));
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

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn non_integral_and_unsafe_forms_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &["class A { void f(double d, char c, String s, int x) { double e = d + d; int k = c + 1; String t = s + x; boolean odd = x % 2 == 1; int h = x / 2; } }"],
            16,
        );
    }
}
