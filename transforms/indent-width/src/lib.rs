//! # indent-width
//!
//! ## What it does
//! Re-indents the whole program with another indentation width (2, 3, 4 or 8 spaces instead of
//! the one it uses), a layout change a token-level detector sees and Python does not.
//!
//! ## Why it preserves semantics
//! Python compares the indentation of logical lines only with each other: a block is the run of
//! lines indented deeper than its header, to the same depth. Every line that starts a statement
//! or a clause (`else`, `except`, `case`, decorators…) is indented by a whole number of units,
//! and each becomes the same number of new units, so every comparison keeps its result and the
//! block structure is unchanged. Continuation lines (inside brackets or after a backslash) carry
//! no meaning in their indentation; they move with the statement they continue, keeping their
//! offset from it (so they also stay right of it, which tree-sitter requires). Comment lines
//! carry no meaning either. Lines inside strings are never touched, because their whitespace is
//! part of the string's value.
//!
//! ## Example
//! ```python
//! def f(x):
//!     if x:
//!         return 1
//!     return 2
//! ```
//! becomes
//! ```python
//! def f(x):
//!   if x:
//!     return 1
//!   return 2
//! ```
//!
//! ## Not applied when
//! - a line's indentation holds a tab (widths of tabs depend on the reader);
//! - a statement or clause is indented by something that is not a whole number of the
//!   program's unit (the mapping would not be exact);
//! - the program has no indented block.

use sdk::parse::Parsed;
use sdk::text::indent_unit;
use sdk::{Edits, Rng};
use std::collections::HashSet;

sdk::declare_transform!(
    name: "indent-width",
    description: "Re-indent the whole program with another indentation width",
    category: "layout",
    rewrite: rewrite,
);

/// Rows where a logical line (a statement, a clause, a decorator) begins.
fn logical_rows(parsed: &Parsed) -> HashSet<usize> {
    let mut rows = HashSet::new();
    for n in parsed.nodes() {
        let starts_logical = n.is_named()
            && n.kind() != "comment"
            && (n
                .parent()
                .is_some_and(|p| matches!(p.kind(), "module" | "block"))
                || matches!(
                    n.kind(),
                    "else_clause"
                        | "elif_clause"
                        | "except_clause"
                        | "except_group_clause"
                        | "finally_clause"
                        | "case_clause"
                        | "decorator"
                        | "function_definition"
                        | "class_definition"
                ));
        if starts_logical {
            rows.insert(n.start_position().row);
        }
    }
    rows
}

/// Whether the line starting at `start` holds code (not only a comment).
fn logical_row_start(src: &str, start: usize) -> bool {
    !src[start..]
        .trim_start_matches([' ', '\t'])
        .starts_with('#')
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let unit = indent_unit(parsed);
    if unit.is_empty() || unit.contains('\t') {
        return edits;
    }
    let u = unit.len();
    let in_string: HashSet<usize> = parsed.string_line_starts().iter().copied().collect();
    let logical = logical_rows(parsed);
    // (line start, leading spaces, logical line or comment line?) of every line outside strings.
    let mut lines: Vec<(usize, usize, bool)> = Vec::new();
    let mut offset = 0usize;
    for (row, line) in src.split('\n').enumerate() {
        let start = offset;
        offset += line.len() + 1;
        if in_string.contains(&start) || line.trim().is_empty() {
            continue;
        }
        let lead = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        if lead.contains('\t') {
            return edits;
        }
        let is_logical = logical.contains(&row);
        if is_logical && lead.len() % u != 0 {
            return edits;
        }
        let scaled = is_logical || (line.trim_start().starts_with('#') && lead.len() % u == 0);
        lines.push((start, lead.len(), scaled));
    }
    let widths: Vec<usize> = [2usize, 3, 4, 8].into_iter().filter(|w| *w != u).collect();
    if rng.site(1).is_none() {
        return edits;
    }
    let w = widths[rng.below(widths.len())];
    // Logical lines (and comment lines at a whole depth) are scaled; continuation lines move
    // with the logical line they continue, keeping their offset from it (tree-sitter, unlike
    // Python, rejects a bracket continuation that ends up left of its statement).
    let mut delta: isize = 0;
    for (start, n, scaled) in lines {
        let new = if scaled {
            let new = n / u * w;
            if logical_row_start(src, start) {
                delta = new as isize - n as isize;
            }
            new
        } else {
            (n as isize + delta).max(0) as usize
        };
        if new != n {
            edits.replace(start..start + n, " ".repeat(new));
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn continuation_lines_move_with_their_statement() {
        // Python accepts a bracket continuation left of its statement; tree-sitter does not, and
        // every output must parse for both.
        let src = "def f(b):\n    if b:\n        x = (b[0] +\n             b[1])\n    return x\n";
        for seed in 0..8 {
            let out = apply(src, seed).unwrap().unwrap();
            assert!(sdk::Parsed::new(&out).is_ok(), "{out}");
            let lines: Vec<&str> = out.lines().collect();
            let indent = |l: &str| l.len() - l.trim_start().len();
            assert_eq!(indent(lines[3]) - indent(lines[2]), 5, "{out}");
        }
    }

    #[test]
    fn declines_tabs_and_uneven_statements() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f():\n\treturn 1\n",
                "def f():\n    if x:\n      return 1\n    return 2\n",
                "x = 1\n",
            ],
            8,
        );
    }
}
