//! Structure an SPT adds that never runs: the canonical form leaves it out, so the wrapped
//! detector reads the program as it was before.
//!
//! Today: `try-scaffold`'s exception scaffolding (a `try:` whose every handler is a no-op:
//! `except E: raise` without `as`, `else: pass`, `finally: pass`). The `try:` header and the
//! handlers are dropped and the body is read one level up.

use tree_sitter::Node;

/// What the canonical form leaves out of a Python program: byte ranges dropped, and byte
/// ranges whose tokens read `shift` columns to the left.
#[derive(Debug, Default)]
pub(super) struct Scaffolds {
    /// Tokens starting in these ranges are left out.
    pub dropped: Vec<std::ops::Range<usize>>,
    /// Tokens starting in a range read this many columns to the left.
    pub shifts: Vec<(std::ops::Range<usize>, usize)>,
}

/// The no-op scaffolds of a Python tree.
pub(super) fn python_scaffolds(root: Node<'_>) -> Scaffolds {
    let mut out = Scaffolds::default();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut cursor));
        if n.kind() != "try_statement" {
            continue;
        }
        let Some(body) = n.child_by_field_name("body") else {
            continue;
        };
        let handlers: Vec<Node<'_>> = n
            .named_children(&mut n.walk())
            .filter(|c| c.id() != body.id())
            .collect();
        if handlers.is_empty() || !handlers.iter().all(|h| is_no_op(*h)) {
            continue;
        }
        let shift = body
            .start_position()
            .column
            .saturating_sub(n.start_position().column);
        if shift == 0 {
            // A body on the header's line: nothing to read one level up.
            continue;
        }
        out.dropped.push(n.start_byte()..body.start_byte());
        out.dropped
            .extend(handlers.iter().map(|h| h.start_byte()..h.end_byte()));
        out.shifts.push((body.start_byte()..body.end_byte(), shift));
    }
    out
}

/// Whether a handler of a `try` can never change what happens.
fn is_no_op(h: Node<'_>) -> bool {
    let only = |kind: &str| {
        h.named_children(&mut h.walk())
            .find(|c| c.kind() == "block")
            .is_some_and(|b| {
                b.named_child_count() == 1
                    && b.named_child(0)
                        .is_some_and(|s| s.kind() == kind && s.named_child_count() == 0)
            })
    };
    match h.kind() {
        "finally_clause" | "else_clause" => only("pass_statement"),
        "except_clause" => {
            !h.named_children(&mut h.walk())
                .any(|c| c.kind() == "as_pattern")
                && only("raise_statement")
        }
        _ => false,
    }
}
