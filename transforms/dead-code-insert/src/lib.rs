//! # dead-code-insert
//!
//! ## What it does
//! Inserts a small statement that has no effect before a randomly chosen statement: a branch
//! that can never run (`if False:`, `if 3 > 7:`, a loop over `()`), or a counter loop that runs
//! zero times. All names it uses are fresh.
//!
//! ## Why it preserves semantics
//! The inserted code cannot raise even if reached: it only assigns integer literals and
//! arithmetic on them to fresh names, compares integer literals, and loops over an empty
//! tuple. Its names appear nowhere else, so it cannot make an existing name local (which would
//! turn a global read into `UnboundLocalError`), and it never contains `yield`, `return`,
//! `await`, `global` or `nonlocal`, which would change what the enclosing function is.
//! It is never placed before a docstring (which would change `__doc__`) or a
//! `from __future__` import (which must come first), and only at the start of a line.
//!
//! ## Example
//! ```python
//! def f(x):
//!     return x + 1
//! ```
//! becomes
//! ```python
//! def f(x):
//!     if 2 > 9:
//!         score = 2 * 9
//!     return x + 1
//! ```
//!
//! ## Not applied when
//! - the only candidate positions are in class bodies (fresh names would become attributes);
//! - the scope of the position (or one nested in it) inspects its namespace (`globals()`,
//!   `locals()`, `vars()`, `dir()`, a module's `__dict__`…), or the program reaches frames
//!   (`sys._getframe`, `inspect`), since the zero-trip loop binds a fresh name;
//! - the position is between the `case` clauses of a `match`, or on a line that a backslash
//!   continues.

use sdk::names::FreshNames;
use sdk::parse::{in_class_scope, named_children, Parsed};
use sdk::scope::ScopeInfo;
use sdk::text::{continues_previous_line, indent_unit, line_indent, line_start, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "dead-code-insert",
    description: "Insert a statement that can never run or never has an effect",
    category: "structure",
    rewrite: rewrite,
);

/// Whether `stmt`, the `index`-th named child of its block, is a docstring (the first
/// statement, comments aside, and a string expression).
fn is_docstring(stmt: Node<'_>, earlier_are_comments: bool) -> bool {
    earlier_are_comments
        && stmt.kind() == "expression_statement"
        && named_children(stmt)
            .first()
            .is_some_and(|c| c.kind() == "string" || c.kind() == "concatenated_string")
}

/// Whether code in `block` runs in a class body's scope.
fn block_in_class_scope(block: Node<'_>) -> bool {
    if block.kind() == "module" {
        return false;
    }
    in_class_scope(block)
}

/// Statements before which code may be inserted.
fn positions<'t>(parsed: &'t Parsed) -> Vec<Node<'t>> {
    let src = parsed.source.as_str();
    let all = parsed.nodes();
    let last_future = all
        .iter()
        .filter(|n| n.kind() == "future_import_statement")
        .map(|n| n.end_byte())
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    for block in all
        .iter()
        .filter(|n| matches!(n.kind(), "module" | "block"))
    {
        // Between the `case` clauses of a `match` only another `case` may stand.
        if block_in_class_scope(*block)
            || block
                .parent()
                .is_some_and(|p| p.kind() == "match_statement")
        {
            continue;
        }
        let mut only_comments_so_far = true;
        for stmt in named_children(*block) {
            if stmt.kind() == "comment" {
                continue;
            }
            let first = only_comments_so_far;
            only_comments_so_far = false;
            if stmt.start_byte() >= last_future
                && starts_line(src, stmt.start_byte())
                && !continues_previous_line(src, stmt.start_byte())
                && stmt.kind() != "case_clause"
                && !is_docstring(stmt, first)
            {
                out.push(stmt);
            }
        }
    }
    out
}

fn dead_code(rng: &mut Rng, fresh: &mut FreshNames, unit: &str) -> String {
    let a = fresh.fresh(rng, None);
    let n = rng.below(9) as i64 + 1;
    let m = rng.below(9) as i64 + 1;
    match rng.below(5) {
        0 => format!("if False:\n{unit}{a} = {n}"),
        1 => format!("if {n} > {}:\n{unit}{a} = {n} * {m}", n + m),
        2 => {
            let b = fresh.fresh(rng, None);
            format!("for {a} in ():\n{unit}{b} = {a}")
        }
        3 => format!("{a} = {n}\nwhile {a} < {n}:\n{unit}{a} += {m}"),
        _ => format!("while {n} == {}:\n{unit}{a} = {m}\n{unit}break", n + m),
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let spots: Vec<Node<'_>> = positions(parsed)
        .into_iter()
        .filter(|s| !info.dynamic_within(info.scope_containing(&s.byte_range())))
        .collect();
    if spots.is_empty() {
        return edits;
    }
    let unit = indent_unit(parsed);
    let mut fresh = FreshNames::new(parsed);
    let Some(i) = rng.site(spots.len()) else {
        return edits;
    };
    let spot = spots[i];
    let src = parsed.source.as_str();
    let indent = line_indent(src, spot.start_byte()).to_string();
    let code = dead_code(rng, &mut fresh, &unit);
    let text: String = code.lines().map(|l| format!("{indent}{l}\n")).collect();
    edits.insert(line_start(src, spot.start_byte()), text);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn never_before_docstring_or_future_import() {
        let src = "\"\"\"Module doc.\"\"\"\nfrom __future__ import annotations\n\n\ndef f():\n    \"\"\"Doc.\"\"\"\n    return 1\n";
        for s in 0..32 {
            let out = apply(src, s).unwrap().unwrap();
            assert!(
                out.starts_with("\"\"\"Module doc.\"\"\"\nfrom __future__ import annotations\n"),
                "{out}"
            );
            assert!(out.contains("def f():\n    \"\"\"Doc.\"\"\"\n"), "{out}");
        }
    }

    #[test]
    fn never_between_cases_or_after_a_backslash() {
        let src =
            "match x:\n    case 1:\n        y = 1\n    case _:\n        y = 2\na = 1; \\\nb = 2\n";
        for s in 0..64 {
            let out = apply(src, s).unwrap().unwrap();
            assert!(
                out.contains("    case 1:\n") && out.contains("a = 1; \\\nb = 2\n"),
                "{out}"
            );
            assert!(sdk::Parsed::new(&out).is_ok(), "{out}");
            let in_match = &out[out.find("match x:").unwrap()..out.find("        y = 2").unwrap()];
            let case_level: Vec<&str> = in_match
                .lines()
                .filter(|l| l.starts_with("    ") && !l.starts_with("     "))
                .collect();
            assert!(
                case_level.iter().all(|l| l.starts_with("    case")),
                "{out}"
            );
        }
    }
}
