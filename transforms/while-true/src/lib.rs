//! # while-true
//!
//! ## What it does
//! Converts between `while cond:` and `while True:` with a guarded `break`, both ways:
//! - `while c: body` becomes `while True:` whose first statement is `if not (c): break`; an
//!   `else:` clause moves into that guard, before the `break`;
//! - `while True:` whose first statement is `if c: break` (or `if not c: break`) becomes
//!   `while not (c):` (or `while c:`) without the guard.
//!
//! ## Why it preserves semantics
//! A `while` loop tests its condition (through `bool`, as `not` does) before every iteration,
//! including after `continue`; the guard runs at exactly those moments. The `else:` clause of
//! a `while` runs when the condition turns false and never after a `break`: in the guard it
//! runs when the condition turns false, and a `break` of the body leaves `while True` without
//! reaching the guard. In the other direction the loop has no `else:`, so leaving through the
//! guard's `break` and leaving because the condition failed are the same.
//!
//! ## Example
//! ```python
//! while n > 1:
//!     n //= 2
//! else:
//!     print("done")
//! ```
//! becomes
//! ```python
//! while True:
//!     if not (n > 1):
//!         print("done")
//!         break
//!     n //= 2
//! ```
//!
//! ## Not applied when
//! - the `else:` clause holds a `break` or `continue` of an enclosing loop (inside the loop it
//!   would bind to the new `while True`);
//! - the body sits on the header's line, or a comment sits in the condition;
//! - in the other direction: the `while True:` has an `else:` clause, or its guard has an
//!   `else`/`elif` or more than the `break`, or the guard is the only statement.

use sdk::effects::statements;
use sdk::parse::{descendants, has_own_break_or_continue, Parsed};
use sdk::pyast::header_colon;
use sdk::text::{block_text, indent_unit, line_indent, line_start, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "while-true",
    description: "Convert between `while cond:` and `while True:` with a guarded break",
    category: "control-flow",
    rewrite: rewrite,
);

fn is_true(parsed: &Parsed, n: Node<'_>) -> bool {
    n.kind() == "true" || (n.kind() == "parenthesized_expression" && parsed.text(n) == "(True)")
}

/// The condition of a leading `if c: break` guard with no other clause.
fn guard<'t>(stmt: Node<'t>) -> Option<Node<'t>> {
    if stmt.kind() != "if_statement" || stmt.child_by_field_name("alternative").is_some() {
        return None;
    }
    let body = statements(stmt.child_by_field_name("consequence")?);
    match body.as_slice() {
        [b] if b.kind() == "break_statement" => stmt.child_by_field_name("condition"),
        _ => None,
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let loops: Vec<Node<'_>> = parsed
        .nodes_of_kind("while_statement")
        .into_iter()
        .filter(|w| {
            let (Some(c), Some(b)) = (
                w.child_by_field_name("condition"),
                w.child_by_field_name("body"),
            ) else {
                return false;
            };
            starts_line(src, b.start_byte())
                && !descendants(c).iter().any(|n| n.kind() == "comment")
        })
        .collect();
    let Some(i) = rng.site(loops.len()) else {
        return edits;
    };
    let w = loops[i];
    let (Some(cond), Some(body), Some(colon)) = (
        w.child_by_field_name("condition"),
        w.child_by_field_name("body"),
        header_colon(w, Some("condition")),
    ) else {
        return edits;
    };
    let inner = line_indent(src, body.start_byte()).to_string();
    let unit = indent_unit(parsed);
    let else_clause = w.child_by_field_name("alternative");
    if is_true(parsed, cond) {
        let stmts = statements(body);
        let (Some(first), true, None) = (stmts.first(), stmts.len() > 1, else_clause) else {
            return edits;
        };
        let Some(c) = guard(*first) else { return edits };
        let new_cond = match c.kind() {
            "not_operator" => c
                .child_by_field_name("argument")
                .map(|a| parsed.text(a).to_string())
                .unwrap_or_default(),
            _ => format!("not ({})", parsed.text(c)),
        };
        if new_cond.is_empty() {
            return edits;
        }
        edits.replace(
            w.start_byte()..colon.end_byte(),
            format!("while {new_cond}:"),
        );
        edits.replace(
            line_start(src, first.start_byte())..line_start(src, stmts[1].start_byte()),
            "",
        );
        return edits;
    }
    let mut guard_body = String::new();
    if let Some(e) = else_clause {
        let Some(eb) = e.child_by_field_name("body") else {
            return edits;
        };
        if has_own_break_or_continue(eb) || !starts_line(src, eb.start_byte()) {
            return edits;
        }
        guard_body.push_str(&block_text(parsed, eb, &format!("{inner}{unit}")));
        guard_body.push('\n');
        let from = line_start(src, e.start_byte());
        edits.replace(from.saturating_sub(1)..e.end_byte(), "");
    }
    edits.replace(w.start_byte()..colon.end_byte(), "while True:");
    edits.insert(
        body.start_byte(),
        format!(
            "if not ({}):\n{guard_body}{inner}{unit}break\n{inner}",
            parsed.text(cond)
        ),
    );
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_else_with_outer_break_and_guards_with_else() {
        sdk::testing::assert_declines(
            apply,
            &[
                "for i in range(3):\n    while i:\n        i -= 1\n    else:\n        break\n",
                "while True:\n    if x:\n        break\n    else:\n        x = 1\n    y()\n",
                "while True:\n    if x:\n        break\n",
                "while x: x -= 1\n",
            ],
            8,
        );
    }
}
