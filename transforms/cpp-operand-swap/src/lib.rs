//! ## What it does
//! Swaps the operands of a comparison, turning the operator around (`a < b` → `b > a`,
//! `a == b` → `b == a`), and of `+` or `*` between numbers (`n * 2` → `2 * n`). It also
//! rewrites C programs.
//!
//! ## Why it preserves semantics
//! For built-in types `a < b` and `b > a` are the same comparison, `==` and `!=` are
//! symmetric, and integer and floating-point `+` and `*` are commutative (the usual
//! arithmetic conversions do not depend on the order). The operands are evaluated in an
//! unspecified order in C++ anyway, so only operands with no side effect are swapped (no
//! call, assignment, `++`/`--`), and only plain names of arithmetic type and number literals
//! for `+` and `*` (`std::string`'s `+` is not commutative). A left operand that is a
//! comparison of the same level goes in parentheses on the right: `a < b < c` is
//! `(a < b) < c`, which becomes `c > (a < b)`.
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
//!   directive, in code a preprocessor conditional guards, or in the arguments of a call to
//!   one of the program's macros (which may print them with `#e`);
//! - the operator is a stream's `<<` or `>>`, or `+`/`*` over anything but arithmetic names
//!   and numbers.

use sdk::cpp::{arithmetic_names, in_conditional, is_pure, CppParsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-operand-swap",
    description: "Swaps the operands of C++ comparisons and of arithmetic + and *",
    category: "expression",
    languages: "cpp c",
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

/// The precedence level of a comparison operator: relational above equality.
fn level(op: &str) -> Option<u8> {
    match op {
        "<" | ">" | "<=" | ">=" => Some(2),
        "==" | "!=" => Some(1),
        _ => None,
    }
}

/// The text of the left operand `l` of `op` once it stands on the right: in parentheses when
/// it is itself a comparison of the same level, which associates to the left (`a < b < c` is
/// `(a < b) < c`, so it becomes `c > (a < b)`, not `c > a < b`).
fn moved_right(p: &CppParsed, l: Node<'_>, op: &str) -> String {
    let same_level = l.kind() == "binary_expression"
        && l.child_by_field_name("operator")
            .is_some_and(|o| level(p.text(o)).is_some() && level(p.text(o)) == level(op));
    if same_level {
        format!("({})", p.text(l))
    } else {
        p.text(l).to_string()
    }
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
        if in_conditional(b)
            || sdk::cpp::in_call_to(p, p.macro_names(), b)
            || !is_pure(p, l)
            || !is_pure(p, r)
        {
            continue;
        }
        let new_op = match p.text(op) {
            "+" | "*" if numeric(l) && numeric(r) => p.text(op),
            o => match turned(o) {
                Some(t) => t,
                None => continue,
            },
        };
        let right = moved_right(p, l, p.text(op));
        sites.push((b, r, right, new_op));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (b, r, right, op) = &sites[i];
        if edits.overlaps(&b.byte_range()) {
            continue;
        }
        edits.replace(b.byte_range(), format!("{} {op} {right}", p.text(*r)));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn chained_comparisons_keep_their_grouping_and_macro_arguments_stay() {
        let src = "#include <stdio.h>\n#define SHOW(e) printf(\"%s\\n\", #e)\nint main() { int a = 3, b = 2, c = 1; SHOW(a < b); return a > b > c; }\n";
        let mut swapped = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                swapped += 1;
                assert!(
                    out.contains("SHOW(a < b)"),
                    "seed {seed}: macro argument swapped:\n{out}"
                );
                let kept = ["a > b > c", "b < a > c", "c < (a > b)", "c < (b < a)"];
                assert!(
                    kept.iter().any(|k| out.contains(&format!("return {k};"))),
                    "seed {seed}: grouping lost:\n{out}"
                );
            }
        }
        assert!(swapped > 0, "the chain is swapped by some seed");
    }

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
