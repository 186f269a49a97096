//! ## What it does
//! Swaps the operands of a comparison, turning the operator around (`a < b` → `b > a`,
//! `a == b` → `b == a`), and of `+` or `*` between numbers (`n * 2` → `2 * n`).
//!
//! ## Why it preserves semantics
//! For built-in types `a < b` and `b > a` are the same comparison, `==` and `!=` are
//! symmetric, and integer and floating-point `+` and `*` are commutative (the usual
//! arithmetic conversions do not depend on the order). The operands are evaluated in an
//! unspecified order in C++ anyway, so only operands with no side effect are swapped (no
//! call, assignment, `++`/`--`), and only plain names of arithmetic type and number literals
//! for `+` and `*` (`std::string`'s `+` is not commutative).
//!
//! ## Example
//! ```cpp
//! if (cnt >= k) ans = 2 * best;
//! ```
//! becomes
//! ```cpp
//! if (k <= cnt) ans = best * 2;
//! ```
//!
//! ## Not applied when
//! - an operand may have a side effect or uses a macro, or the expression lies in a
//!   directive or in code a preprocessor conditional guards;
//! - the operator is a stream's `<<` or `>>`, or `+`/`*` over anything but arithmetic names
//!   and numbers.

use sdk::cpp::{arithmetic_names, in_conditional, is_pure, CppParsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-operand-swap",
    description: "Swaps the operands of C++ comparisons and of arithmetic + and *",
    category: "expression",
    rewrite: rewrite,
}

fn turned(op: &str) -> Option<&'static str> {
    Some(match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        "==" => "==",
        "!=" => "!=",
        _ => return None,
    })
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let arithmetic = arithmetic_names(p);
    let numeric = |n: Node<'_>| match n.kind() {
        "number_literal" => true,
        "identifier" => arithmetic.contains_key(p.text(n)),
        _ => false,
    };
    let mut sites = Vec::new();
    for b in p.nodes_of_kind("binary_expression") {
        let (Some(l), Some(op), Some(r)) = (
            b.child_by_field_name("left"),
            b.child_by_field_name("operator"),
            b.child_by_field_name("right"),
        ) else {
            continue;
        };
        if in_conditional(b) || !is_pure(p, l) || !is_pure(p, r) {
            continue;
        }
        let new_op = match p.text(op) {
            "+" | "*" if numeric(l) && numeric(r) => p.text(op),
            o => match turned(o) {
                Some(t) => t,
                None => continue,
            },
        };
        sites.push((b, l, r, new_op));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (b, l, r, op) = sites[i];
        if edits.overlaps(&b.byte_range()) {
            continue;
        }
        edits.replace(b.byte_range(), format!("{} {op} {}", p.text(r), p.text(l)));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn effects_strings_and_streams_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <bits/stdc++.h>\nusing namespace std;\nint f() { static int c = 0; return ++c; }\nint main() { string a = \"x\", b = \"y\"; string c = a + b; int k = f() - f(); cout << c << k << endl; }\n",
            ],
            8,
        );
    }
}
