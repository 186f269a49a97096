//! # line-join
//!
//! ## What it does
//! Changes how logical lines map to physical lines, which a token- or line-level detector
//! notices but Python does not: two consecutive simple statements are joined on one line with
//! `;` (`a = 1` / `b = 2` → `a = 1; b = 2`), or a statement is split after a binary operator
//! or `=` with an explicit backslash continuation (`total = a + \` / `    b`).
//!
//! ## Why it preserves semantics
//! `;` separates simple statements exactly like a newline at the same indentation, and a
//! backslash at the end of a line joins it with the next one before tokenising. Both change
//! only where tokens sit, never which tokens there are, so the program compiles to the same
//! code (only line numbers in tracebacks move). The edits are never made inside strings or
//! comments.
//!
//! ## Example
//! ```python
//! lo = 0
//! hi = len(xs) - 1
//! ```
//! becomes
//! ```python
//! lo = 0; hi = len(xs) - \
//!     1
//! ```
//!
//! ## Not applied when
//! - a statement is compound (`if`, `for`, `def`…; they cannot follow `;`), a docstring, a
//!   `from __future__` import, or shares its line or a comment with something else;
//! - the first of two statements is a `return`, `raise`, `break` or `continue` (code after it
//!   on the line would be dead but would still have to compile);
//! - the operator is inside an f-string (a backslash is not allowed there before Python 3.12)
//!   or is already followed by a line break.

use sdk::effects::is_docstring;
use sdk::parse::Parsed;
use sdk::text::{continues_previous_line, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "line-join",
    description: "Join simple statements with ';' or split lines with backslash continuations",
    category: "layout",
    rewrite: rewrite,
);

/// Simple statements that may come first on a joined line.
const FIRST: &[&str] = &[
    "expression_statement",
    "pass_statement",
    "import_statement",
    "import_from_statement",
    "assert_statement",
    "delete_statement",
    "global_statement",
    "nonlocal_statement",
];

/// Simple statements that may come second.
const SECOND: &[&str] = &[
    "return_statement",
    "break_statement",
    "continue_statement",
    "raise_statement",
];

/// `a` and its next sibling `b` can share one line.
fn joinable<'t>(src: &str, a: Node<'t>) -> Option<Node<'t>> {
    let b = a.next_sibling()?;
    let ok = FIRST.contains(&a.kind())
        && (FIRST.contains(&b.kind()) || SECOND.contains(&b.kind()))
        && !is_docstring(a)
        && starts_line(src, b.start_byte())
        && !continues_previous_line(src, b.start_byte())
        && src[a.end_byte()..b.start_byte()].trim().is_empty()
        && src[a.end_byte()..b.start_byte()].contains('\n')
        && line_indent(src, a.start_byte()) == line_indent(src, b.start_byte());
    ok.then_some(b)
}

/// The operator token after which a statement may be split.
fn splittable(parsed: &Parsed, op: Node<'_>) -> bool {
    let src = parsed.source.as_str();
    let Some(parent) = op.parent() else {
        return false;
    };
    let is_operator = match parent.kind() {
        "binary_operator" | "boolean_operator" => {
            parent.child_by_field_name("operator") == Some(op)
        }
        "assignment" | "augmented_assignment" => {
            op.kind() == "=" || parent.child_by_field_name("operator") == Some(op)
        }
        _ => false,
    };
    if !is_operator || parsed.in_string(&op.byte_range()) {
        return false;
    }
    let Some(next) = op.next_sibling() else {
        return false;
    };
    src[op.end_byte()..next.start_byte()]
        .chars()
        .all(|c| c == ' ')
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    enum Site<'t> {
        Join(Node<'t>, Node<'t>),
        Split(Node<'t>),
    }
    let mut sites = Vec::new();
    for n in parsed.nodes() {
        if n.parent()
            .is_some_and(|p| matches!(p.kind(), "module" | "block"))
        {
            if let Some(b) = joinable(src, n) {
                sites.push(Site::Join(n, b));
            }
        } else if !n.is_named() && splittable(parsed, n) {
            sites.push(Site::Split(n));
        }
    }
    for i in rng.sites(sites.len(), 0.3) {
        match sites[i] {
            Site::Join(a, b) => {
                let gap = a.end_byte()..b.start_byte();
                if !edits.overlaps(&gap) && !edits.overlaps(&(gap.start - 1..gap.end + 1)) {
                    edits.replace(gap, "; ");
                }
            }
            Site::Split(op) => {
                let Some(next) = op.next_sibling() else {
                    continue;
                };
                let gap = op.end_byte()..next.start_byte();
                if edits.overlaps(&gap) {
                    continue;
                }
                let indent = line_indent(src, op.start_byte());
                edits.replace(gap, format!(" \\\n{indent}    "));
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
    fn declines_compound_statements_comments_and_fstrings() {
        sdk::testing::assert_declines(
            apply,
            &[
                "if a:\n    pass\nfor x in y:\n    pass\n",
                "f()  # one\ng()\n",
                "def f():\n    \"\"\"Doc.\"\"\"\n    return f\"{a + b}\"\n",
                "print(f())\n",
            ],
            8,
        );
    }
}
