//! # constant-unfold
//!
//! ## What it does
//! Replaces integer literals by small arithmetic expressions with the same value (Auto-SPT's
//! "arithmetic expression decomposition"): `10` becomes `(7 + 3)`, `(13 - 3)` or `(3 * 3 + 1)`.
//! Hexadecimal, octal, binary and underscored literals are unfolded by value.
//!
//! ## Why it preserves semantics
//! Sums, differences and products of integer literals are exact integers in Python, so the
//! expression evaluates to an `int` equal to the literal; CPython even folds it back to the
//! same constant at compile time. The expression is parenthesised, so it binds like the
//! literal did (`2 ** 10`, `-10`, `10 .bit_length()`, `x[10:]` keep their meaning).
//!
//! ## Example
//! ```python
//! return n % 10
//! ```
//! becomes
//! ```python
//! return n % (6 + 4)
//! ```
//!
//! ## Not applied when
//! - the literal is in a `match` pattern (patterns take literals only), an annotation (types
//!   may be read as text or by tools), an f-string's format specification or a self-documenting
//!   f-string field, or a string (docstrings included: they hold no literal nodes);
//! - it is an operand of `is` / `is not` (identity of ints is an implementation detail);
//! - it is `0` or `1`, a float, a complex or larger than 2^40 (kept simple and exact).

use sdk::parse::Parsed;
use sdk::pyast::{int_literal, literal_must_stay};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "constant-unfold",
    description: "Replace integer literals by equal arithmetic expressions",
    category: "expression",
    rewrite: rewrite,
);

fn unfold(v: i64, rng: &mut Rng) -> String {
    let a = 1 + rng.below(9) as i64;
    match rng.below(3) {
        0 => format!("({} + {a})", v - a),
        1 => format!("({} - {a})", v + a),
        _ => {
            let k = 2 + rng.below(4) as i64;
            let (q, r) = (v.div_euclid(k), v.rem_euclid(k));
            if r == 0 {
                format!("({q} * {k})")
            } else {
                format!("({q} * {k} + {r})")
            }
        }
    }
    .replace("+ -", "- ")
    .replace("- -", "+ ")
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<(Node<'_>, i64)> = parsed
        .nodes_of_kind("integer")
        .into_iter()
        .filter_map(|n| int_literal(parsed, n).map(|v| (n, v)))
        .filter(|(_, v)| *v > 1)
        .filter(|(n, _)| !literal_must_stay(parsed, *n))
        .collect();
    for i in rng.sites(sites.len(), 0.3) {
        let (node, v) = sites[i];
        edits.replace(node.byte_range(), unfold(v, rng));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn leaves_patterns_annotations_specs_and_identity_alone() {
        sdk::testing::assert_declines(
            apply,
            &[
                "match x:\n    case 10:\n        pass\n",
                "def f(a: Literal[10]) -> Literal[20]:\n    pass\n",
                "print(f\"{x:10d}\", f\"{x + 10=}\")\n",
                "print(x is 300, 300 is not y)\n",
                "print(0, 1, 1.5, 2j)\n",
            ],
            8,
        );
    }
}
