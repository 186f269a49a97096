//! # bool-restructure
//!
//! ## What it does
//! Restructures conditions in boolean contexts (the tests of `if`, `elif`, `while`, `assert`,
//! conditional expressions and comprehension filters):
//! - De Morgan, both ways: `not (a and b)` ↔ `not a or not b`, `not (a or b)` ↔ `not a and not b`;
//! - double negation, both ways: `c` ↔ `not not (c)`;
//! - nesting, both ways: `if a:` holding only `if b: body` ↔ `if (a) and (b): body`.
//!
//! ## Why it preserves semantics
//! A boolean context calls `bool` on the condition once. `not (a and b)` evaluates `a`, stops
//! when it is falsy, otherwise evaluates `b`; `not a or not b` evaluates `a`, stops when `not a`
//! is true (i.e. `a` falsy), otherwise evaluates `b`: the same operands are evaluated in the same
//! order and each truth test happens once, and both forms produce the same bool (likewise for
//! `or`). `not not c` tests `c` once and gives its truth value. An `if` over an `and` tests `a`,
//! and `b` only when `a` held, exactly as the nested `if`s do, and neither form has an `else`.
//! Comparisons are never flipped (`not a < b` is not `a >= b` for NaN or sets).
//!
//! ## Example
//! ```python
//! if not (x and y):
//!     reset()
//! ```
//! becomes
//! ```python
//! if not x or not y:
//!     reset()
//! ```
//!
//! ## Not applied when
//! - the expression is not a whole condition in a boolean context (a value that is stored or
//!   returned keeps its exact form);
//! - for nesting: either `if` has `elif`/`else`, the outer body holds anything besides the inner
//!   `if`, a body sits on its header's line, or a comment sits between them;
//! - the condition holds a comment or lies in a self-documenting f-string field.

use sdk::effects::statements;
use sdk::parse::{descendants, named_children, Parsed};
use sdk::pyast::in_debug_fstring;
use sdk::text::{block_text, indent_unit, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "bool-restructure",
    description: "De Morgan, double negation and if-nesting on conditions in boolean contexts",
    category: "expression",
    rewrite: rewrite,
);

/// The conditions in boolean contexts.
fn conditions<'t>(parsed: &'t Parsed) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for n in parsed.nodes() {
        let c = match n.kind() {
            "if_statement" | "elif_clause" | "while_statement" | "conditional_expression" => {
                if n.kind() == "conditional_expression" {
                    named_children(n).get(1).copied()
                } else {
                    n.child_by_field_name("condition")
                }
            }
            "assert_statement" | "if_clause" => named_children(n).into_iter().next(),
            _ => None,
        };
        if let Some(c) = c {
            if c.kind() != "comment"
                && !descendants(c).iter().any(|d| d.kind() == "comment")
                && !in_debug_fstring(parsed, c)
            {
                out.push(c);
            }
        }
    }
    out
}

/// `text` of `n`, parenthesised unless it is an atom.
fn operand(parsed: &Parsed, n: Node<'_>) -> String {
    let atom = sdk::pyast::is_atom(n);
    let t = parsed.text(n);
    if atom && !t.contains('\n') {
        t.to_string()
    } else {
        format!("({t})")
    }
}

fn unparen(mut n: Node<'_>) -> Node<'_> {
    while n.kind() == "parenthesized_expression" {
        let inner = named_children(n);
        match inner.as_slice() {
            [one] if one.kind() != "comment" => n = *one,
            _ => break,
        }
    }
    n
}

fn not_argument(n: Node<'_>) -> Option<Node<'_>> {
    (n.kind() == "not_operator")
        .then(|| n.child_by_field_name("argument"))
        .flatten()
}

/// The rewrites of one condition (text replacing the condition).
fn condition_rewrites(parsed: &Parsed, c: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    // De Morgan, forward: not (a and b) → not a or not b.
    if let Some(arg) = not_argument(c).map(unparen) {
        if arg.kind() == "boolean_operator" {
            if let (Some(l), Some(op), Some(r)) = (
                arg.child_by_field_name("left"),
                arg.child_by_field_name("operator"),
                arg.child_by_field_name("right"),
            ) {
                let dual = if parsed.text(op) == "and" {
                    "or"
                } else {
                    "and"
                };
                out.push(format!(
                    "not {} {dual} not {}",
                    operand(parsed, l),
                    operand(parsed, r)
                ));
            }
        }
        // Double negation, backward: not not c → c.
        if let Some(inner) = not_argument(arg) {
            out.push(operand(parsed, inner));
        }
    }
    // De Morgan, backward: not a or not b → not (a and b).
    if c.kind() == "boolean_operator" {
        if let (Some(l), Some(op), Some(r)) = (
            c.child_by_field_name("left"),
            c.child_by_field_name("operator"),
            c.child_by_field_name("right"),
        ) {
            if let (Some(a), Some(b)) = (not_argument(l), not_argument(r)) {
                let dual = if parsed.text(op) == "and" {
                    "or"
                } else {
                    "and"
                };
                out.push(format!(
                    "not ({} {dual} {})",
                    operand(parsed, a),
                    operand(parsed, b)
                ));
            }
        }
    }
    // Double negation, forward.
    if not_argument(c).and_then(not_argument).is_none() {
        out.push(format!("not not {}", operand(parsed, c)));
    }
    out
}

/// Nesting rewrites of an `if` statement: (range, text).
fn nesting(
    parsed: &Parsed,
    stmt: Node<'_>,
    unit: &str,
) -> Option<(std::ops::Range<usize>, String)> {
    let src = parsed.source.as_str();
    if stmt.kind() != "if_statement" || stmt.child_by_field_name("alternative").is_some() {
        return None;
    }
    let cond = stmt.child_by_field_name("condition")?;
    let body = stmt.child_by_field_name("consequence")?;
    if !starts_line(src, body.start_byte())
        || descendants(cond).iter().any(|d| d.kind() == "comment")
    {
        return None;
    }
    let indent = line_indent(src, stmt.start_byte()).to_string();
    let inner = statements(body);
    // Merge: the body is exactly one `if` without alternatives.
    if let [only] = inner.as_slice() {
        if only.kind() == "if_statement"
            && only.child_by_field_name("alternative").is_none()
            && !named_children(body).iter().any(|n| n.kind() == "comment")
        {
            let c2 = only.child_by_field_name("condition")?;
            let b2 = only.child_by_field_name("consequence")?;
            if starts_line(src, b2.start_byte())
                && !descendants(c2).iter().any(|d| d.kind() == "comment")
            {
                let text = format!(
                    "if {} and {}:\n{}",
                    operand(parsed, cond),
                    operand(parsed, c2),
                    block_text(parsed, b2, &format!("{indent}{unit}"))
                );
                return Some((stmt.start_byte()..stmt.end_byte(), text));
            }
        }
    }
    // Split: `if a and b:` → nested.
    let c = unparen(cond);
    if c.kind() == "boolean_operator" {
        let op = c.child_by_field_name("operator")?;
        if parsed.text(op) == "and" {
            let (l, r) = (
                c.child_by_field_name("left")?,
                c.child_by_field_name("right")?,
            );
            let text = format!(
                "if {}:\n{indent}{unit}if {}:\n{}",
                operand(parsed, l),
                operand(parsed, r),
                block_text(parsed, body, &format!("{indent}{unit}{unit}"))
            );
            return Some((stmt.start_byte()..stmt.end_byte(), text));
        }
    }
    None
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let unit = indent_unit(parsed);
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for c in conditions(parsed) {
        for text in condition_rewrites(parsed, c) {
            sites.push((c.byte_range(), text));
        }
    }
    for stmt in parsed.nodes_of_kind("if_statement") {
        if let Some(site) = nesting(parsed, stmt, &unit) {
            sites.push(site);
        }
    }
    let Some(i) = rng.site(sites.len()) else {
        return edits;
    };
    let (range, text) = &sites[i];
    edits.replace(range.clone(), text.clone());
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn leaves_values_and_alternatives_alone() {
        sdk::testing::assert_declines(
            apply,
            &[
                "x = not (a and b)\n",
                "def f(a, b):\n    return not a or not b\n",
            ],
            8,
        );
        for seed in 0..16 {
            let out = apply(
                "if a:\n    if b:\n        x()\n    else:\n        y()\n",
                seed,
            )
            .unwrap()
            .unwrap();
            assert!(!out.contains(" and "), "{out}");
        }
    }
}
