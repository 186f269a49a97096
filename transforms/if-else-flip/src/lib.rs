//! # if-else-flip
//!
//! ## What it does
//! Negates an `if` condition and swaps its branches. An `elif` chain becomes a nested `if`
//! in the new first branch; an `if` without `else` gets a `pass` branch.
//!
//! ## Why it preserves semantics
//! `if C: A else: B` runs `A` exactly when `bool(C)` is true; `if not (C): B else: A` computes
//! `bool(C)` once (for `not`) and runs the same branch. `if not X` is flipped back to `if X`,
//! which also calls `bool(X)` once. The `elif` conditions are evaluated only when `C` is false
//! in both forms and in the same order. Blocks are re-indented line by line, never inside
//! string literals, so multi-line strings keep their exact value.
//!
//! ## Example
//! ```python
//! if x > 0:
//!     sign = 1
//! elif x < 0:
//!     sign = -1
//! else:
//!     sign = 0
//! ```
//! becomes
//! ```python
//! if not (x > 0):
//!     if x < 0:
//!         sign = -1
//!     else:
//!         sign = 0
//! else:
//!     sign = 1
//! ```
//!
//! ## Not applied when
//! Always applicable to an `if` statement; comments standing between the branches (outside any
//! block) are dropped.

use sdk::parse::{named_children, Parsed};
use sdk::text::{block_text, indent_unit, line_indent};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "if-else-flip",
    description: "Negate an if condition and swap its branches (elif chains nest)",
    category: "control-flow",
    rewrite: rewrite,
);

/// `not C`, simplified when `C` is already a negation; parenthesised unless `C` is atomic.
fn negate(parsed: &Parsed, cond: Node<'_>) -> String {
    if cond.kind() == "not_operator" {
        if let Some(arg) = cond.child_by_field_name("argument") {
            let t = parsed.text(arg);
            return if matches!(arg.kind(), "named_expression") {
                format!("({t})")
            } else {
                t.to_string()
            };
        }
    }
    let t = parsed.text(cond);
    match cond.kind() {
        "identifier"
        | "call"
        | "attribute"
        | "subscript"
        | "parenthesized_expression"
        | "true"
        | "false"
        | "none"
        | "integer" => format!("not {t}"),
        _ => format!("not ({t})"),
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let ifs = parsed.nodes_of_kind("if_statement");
    if ifs.is_empty() {
        return edits;
    }
    let unit = indent_unit(parsed);
    // One `if` per application: flipping nested ones at once would need nested rewrites.
    let Some(i) = rng.site(ifs.len()) else {
        return edits;
    };
    let node = ifs[i];
    if let Some(text) = flip(parsed, node, &unit) {
        edits.replace(node.byte_range(), text);
    }
    edits
}

fn flip(parsed: &Parsed, node: Node<'_>, unit: &str) -> Option<String> {
    let src = parsed.source.as_str();
    let outer = line_indent(src, node.start_byte()).to_string();
    let inner = format!("{outer}{unit}");
    let cond = node.child_by_field_name("condition")?;
    let consequence = node.child_by_field_name("consequence")?;
    let alternatives: Vec<Node<'_>> = named_children(node)
        .into_iter()
        .filter(|c| matches!(c.kind(), "elif_clause" | "else_clause"))
        .collect();

    let first_branch = match alternatives.first() {
        None => format!("{inner}pass"),
        Some(alt) if alt.kind() == "else_clause" => {
            block_text(parsed, alt.child_by_field_name("body")?, &inner)
        }
        Some(_) => {
            // The elif chain, as a nested if one level deeper.
            let deeper = format!("{inner}{unit}");
            let mut parts = Vec::new();
            for (i, alt) in alternatives.iter().enumerate() {
                if alt.kind() == "elif_clause" {
                    let c = parsed.text(alt.child_by_field_name("condition")?);
                    let kw = if i == 0 { "if" } else { "elif" };
                    parts.push(format!("{inner}{kw} {c}:"));
                    parts.push(block_text(
                        parsed,
                        alt.child_by_field_name("consequence")?,
                        &deeper,
                    ));
                } else {
                    parts.push(format!("{inner}else:"));
                    parts.push(block_text(
                        parsed,
                        alt.child_by_field_name("body")?,
                        &deeper,
                    ));
                }
            }
            parts.join("\n")
        }
    };
    let second_branch = block_text(parsed, consequence, &inner);
    Some(format!(
        "if {}:\n{first_branch}\n{outer}else:\n{second_branch}",
        negate(parsed, cond)
    ))
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn double_negation_is_removed() {
        let out = apply("if not ok:\n    a()\nelse:\n    b()\n", 0)
            .unwrap()
            .unwrap();
        assert_eq!(out, "if ok:\n    b()\nelse:\n    a()\n");
    }
}
