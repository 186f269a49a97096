//! # operand-swap
//!
//! ## What it does
//! Swaps the operands of comparisons (`a < b` → `b > a`, `x == 0` → `0 == x`, `a is None` →
//! `None is a`) and of commutative arithmetic with a number literal (`n * 2` → `2 * n`,
//! `i + 1` → `1 + i`, also `&`, `|`, `^`).
//!
//! ## Why it preserves semantics
//! Only operands without side effects are moved: names, numbers, strings without
//! interpolation, `True`/`False`/`None`, and negated numbers. Evaluating them in the other order
//! cannot change what they evaluate to. A comparison is rewritten with its mirrored operator
//! (`<`↔`>`, `<=`↔`>=`; `==`, `!=`, `is`, `is not` are symmetric); Python's reflected-operator
//! protocol makes `b > a` call `a.__lt__` when `b` does not know how, so the result is the same
//! for every builtin type. Arithmetic is swapped only when one operand is a number literal: for
//! numbers `+ * & | ^` are commutative (IEEE-754 addition and multiplication too), sequence
//! repetition `s * 2 == 2 * s`, and other types raise `TypeError` both ways.
//!
//! ## Example
//! `if count >= limit and total * 2 > cap:` becomes `if limit <= count and 2 * total > cap:`
//! (seed-dependent choice of which sites to swap).
//!
//! ## Not applied when
//! - an operand is a call, attribute, subscript or any compound expression;
//! - the comparison is chained (`a < b < c`) or is `in` / `not in`;
//! - the operator is `-`, `/`, `//`, `%`, `**`, `@`, `<<`, `>>`, `and`, `or`;
//! - a comment or line break sits between the operands;
//! - it sits in a self-documenting f-string field (`f"{a*b=}"` prints the expression's text).
//!
//! User classes whose `__lt__` and `__gt__` (or `__eq__` on two different classes) disagree
//! would observe the swap; the oracle checks every candidate.

use sdk::parse::{children, Parsed};
use sdk::pyast::in_debug_fstring;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "operand-swap",
    description: "Swap operands of comparisons and commutative operators (side-effect-free operands)",
    category: "expression",
    rewrite: rewrite,
);

fn is_simple(parsed: &Parsed, n: Node<'_>) -> bool {
    match n.kind() {
        "identifier" | "integer" | "float" | "true" | "false" | "none" => true,
        "string" => !children(n).iter().any(|c| c.kind() == "interpolation"),
        "unary_operator" => {
            n.child_by_field_name("argument")
                .is_some_and(|a| matches!(a.kind(), "integer" | "float"))
                && parsed.text(n).starts_with('-')
        }
        _ => false,
    }
}

fn is_number(parsed: &Parsed, n: Node<'_>) -> bool {
    matches!(n.kind(), "integer" | "float")
        || (n.kind() == "unary_operator" && is_simple(parsed, n))
}

fn mirror(op: &str) -> Option<&'static str> {
    Some(match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        "==" => "==",
        "!=" => "!=",
        "is" => "is",
        "is not" => "is not",
        _ => return None,
    })
}

/// The rewritten text of a swappable comparison or binary operation.
fn swapped(parsed: &Parsed, node: Node<'_>) -> Option<String> {
    let src = parsed.source.as_str();
    let operands: Vec<Node<'_>> = {
        let mut c = node.walk();
        node.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect()
    };
    let [left, right] = operands.as_slice() else {
        return None;
    };
    if !is_simple(parsed, *left) || !is_simple(parsed, *right) {
        return None;
    }
    let between = &src[left.end_byte()..right.start_byte()];
    if between.contains('\n') || between.contains('#') || between.contains('\\') {
        return None;
    }
    let op = between.split_whitespace().collect::<Vec<_>>().join(" ");
    let new_op = match node.kind() {
        "comparison_operator" => mirror(&op)?,
        "binary_operator" => {
            let commutative = matches!(op.as_str(), "+" | "*" | "&" | "|" | "^");
            if !commutative || !(is_number(parsed, *left) || is_number(parsed, *right)) {
                return None;
            }
            match op.as_str() {
                "+" => "+",
                "*" => "*",
                "&" => "&",
                "|" => "|",
                _ => "^",
            }
        }
        _ => return None,
    };
    Some(format!(
        "{} {new_op} {}",
        parsed.text(*right),
        parsed.text(*left)
    ))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<(Node<'_>, String)> = parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "comparison_operator" | "binary_operator"))
        .filter(|n| !in_debug_fstring(parsed, *n))
        .filter_map(|n| swapped(parsed, n).map(|t| (n, t)))
        .collect();
    if sites.is_empty() {
        return edits;
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (node, text) = &sites[i];
        edits.replace(node.byte_range(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn leaves_self_documenting_fstrings_alone() {
        sdk::testing::assert_declines(apply, &["print(f\"{a * 2=}\", f\"{b < 3 = }\")\n"], 16);
    }

    #[test]
    fn leaves_side_effects_and_non_commutative_alone() {
        sdk::testing::assert_declines(
            apply,
            &[
                "x = f() < g()\n",
                "s = 'a' + b\n",
                "y = a - 1\n",
                "z = a < b < c\n",
                "w = 1 in xs\n",
                "v = a.b == c\n",
            ],
            8,
        );
    }
}
