//! # guard-clause
//!
//! ## What it does
//! Moves code between `else:` branches and early exits, three ways:
//! - split: `if c: …return…` / `else: rest` becomes `if c: …return…` followed by `rest` at the
//!   `if`'s level (an `elif` after a terminating branch becomes a new `if`);
//! - merge: `if c: …return…` followed by the rest of the block becomes `if c: …` / `else: rest`;
//! - inverted merge: the same, with the test negated and the branches exchanged:
//!   `if not (c): rest` / `else: …return…`.
//!
//! ## Why it preserves semantics
//! A branch whose last statement is `return`, `raise`, `break` or `continue` can never fall
//! through, so what follows the `if` runs exactly when the branch did not: the same as an
//! `else:`. The merge takes every remaining statement of the block, so nothing runs after the
//! `if` in either form except what followed the block anyway. `not (c)` tests the same truth
//! value as `if c` (both go through `bool`), once.
//!
//! ## Example
//! ```python
//! def grade(score):
//!     if score >= 90:
//!         return "A"
//!     else:
//!         return "B"
//! ```
//! becomes
//! ```python
//! def grade(score):
//!     if score >= 90:
//!         return "A"
//!     return "B"
//! ```
//!
//! ## Not applied when
//! - the branch does not end in `return`, `raise`, `break` or `continue` (it could fall
//!   through);
//! - a branch or the rest sits on the header's line, or a comment sits on the `else` line;
//! - merging: the `if` already has `elif`/`else`, or it is the last statement of its block.

use sdk::effects::{block_terminates, statements};
use sdk::parse::{alternatives, Parsed};
use sdk::text::{block_text, indent_unit, line_indent, line_start, reindent_range, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "guard-clause",
    description: "Convert between else branches and early-exit guard clauses",
    category: "control-flow",
    rewrite: rewrite,
);

enum Site<'t> {
    /// Remove the `else:` (or turn the first `elif` into `if`).
    Split(Node<'t>, Node<'t>),
    /// Wrap the statements after the `if` (first and last given) into `else:`.
    Merge(Node<'t>, Node<'t>, Node<'t>),
}

fn sites<'t>(parsed: &'t Parsed) -> Vec<Site<'t>> {
    let src = parsed.source.as_str();
    let mut out = Vec::new();
    for stmt in parsed.nodes_of_kind("if_statement") {
        let Some(cons) = stmt.child_by_field_name("consequence") else {
            continue;
        };
        if !starts_line(src, cons.start_byte()) || !block_terminates(cons) {
            continue;
        }
        let alts = alternatives(stmt);
        if let Some(first) = alts.first() {
            let body_ok = first
                .child_by_field_name(if first.kind() == "else_clause" {
                    "body"
                } else {
                    "consequence"
                })
                .is_some_and(|b| starts_line(src, b.start_byte()));
            if body_ok && starts_line(src, first.start_byte()) {
                out.push(Site::Split(stmt, *first));
            }
            continue;
        }
        let Some(block) = stmt.parent() else { continue };
        let stmts = statements(block);
        let Some(pos) = stmts.iter().position(|s| s.id() == stmt.id()) else {
            continue;
        };
        if let (Some(first), Some(last)) = (stmts.get(pos + 1), stmts.last()) {
            if starts_line(src, first.start_byte()) {
                out.push(Site::Merge(stmt, *first, *last));
            }
        }
    }
    out
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let all = sites(parsed);
    let Some(i) = rng.site(all.len()) else {
        return edits;
    };
    let unit = indent_unit(parsed);
    match all[i] {
        Site::Split(stmt, alt) => {
            let indent = line_indent(src, stmt.start_byte()).to_string();
            if alt.kind() == "elif_clause" {
                // `elif` → `if`: the clause already stands at the `if`'s column.
                edits.replace(alt.start_byte()..alt.start_byte() + 4, "if");
            } else {
                let Some(body) = alt.child_by_field_name("body") else {
                    return edits;
                };
                let text = block_text(parsed, body, &indent);
                edits.replace(line_start(src, alt.start_byte())..alt.end_byte(), text);
            }
        }
        Site::Merge(stmt, first, last) => {
            let indent = line_indent(src, stmt.start_byte()).to_string();
            let rest = reindent_range(
                parsed,
                first.start_byte(),
                last.end_byte(),
                &format!("{indent}{unit}"),
            );
            let (Some(cond), Some(cons)) = (
                stmt.child_by_field_name("condition"),
                stmt.child_by_field_name("consequence"),
            ) else {
                return edits;
            };
            if rng.chance(0.5) {
                // Inverted: `if not (c): rest` / `else: branch`.
                let branch = block_text(parsed, cons, &format!("{indent}{unit}"));
                let text = format!(
                    "if not ({}):\n{rest}\n{indent}else:\n{branch}",
                    parsed.text(cond)
                );
                edits.replace(stmt.start_byte()..last.end_byte(), text);
            } else {
                edits.replace(
                    stmt.end_byte()..last.end_byte(),
                    format!("\n{indent}else:\n{rest}"),
                );
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_branches_that_fall_through() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y\n",
                "def f(x):\n    if x:\n        return 1\n",
                "def f(x):\n    if x:\n        print(x)\n    return 2\n",
            ],
            8,
        );
    }
}
