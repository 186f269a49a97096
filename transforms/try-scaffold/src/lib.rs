//! # try-scaffold
//!
//! ## What it does
//! Wraps a run of one to three statements in exception-handling scaffolding that can never
//! change what happens: `try:` … `finally: pass`, or `try:` … `except SomeError: raise`
//! (a builtin exception class, a tuple of them, or `BaseException`), sometimes with an
//! `else: pass`.
//!
//! ## Why it preserves semantics
//! A `finally: pass` runs nothing. A handler whose only statement is a bare `raise` re-raises
//! the exception it caught, the same object with the same traceback and context, so callers
//! see exactly what they would have seen; `return`, `break`, `continue` and `yield` inside a
//! `try` keep their meaning (a generator closed while suspended runs the empty `finally`).
//! No name is bound (no `as`), and the wrapped statements keep their order.
//!
//! ## Example
//! ```python
//! total = price * qty
//! ```
//! becomes
//! ```python
//! try:
//!     total = price * qty
//! except (ValueError, ZeroDivisionError):
//!     raise
//! ```
//!
//! ## Not applied when
//! - the statement is a docstring, a `from __future__` import, or a `global`/`nonlocal`
//!   declaration;
//! - it shares its line with another statement or sits on its header's line;
//! - the program rebinds the exception class names it would use.

use sdk::effects::{is_movable_statement, statements};
use sdk::parse::Parsed;
use sdk::pyast::binds_anywhere;
use sdk::scope::ScopeInfo;
use sdk::text::{indent_unit, line_indent, reindent_range};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "try-scaffold",
    description: "Wrap statements in try/finally or re-raising handlers that never change behaviour",
    category: "structure",
    rewrite: rewrite,
);

const EXCEPTIONS: &[&str] = &[
    "BaseException",
    "Exception",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "ZeroDivisionError",
    "ArithmeticError",
    "LookupError",
    "RuntimeError",
    "AttributeError",
];

fn eligible(parsed: &Parsed, stmt: Node<'_>) -> bool {
    is_movable_statement(parsed, stmt)
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let names: Vec<&str> = EXCEPTIONS
        .iter()
        .copied()
        .filter(|n| !binds_anywhere(&info, n))
        .collect();
    let mut runs: Vec<Vec<Node<'_>>> = Vec::new();
    for block in parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "module" | "block"))
    {
        let stmts = statements(block);
        for (i, s) in stmts.iter().enumerate() {
            if !eligible(parsed, *s) {
                continue;
            }
            let run: Vec<Node<'_>> = stmts[i..]
                .iter()
                .take(3)
                .take_while(|t| eligible(parsed, **t))
                .copied()
                .collect();
            runs.push(run);
        }
    }
    let Some(i) = rng.site(runs.len()) else {
        return edits;
    };
    let run = &runs[i];
    let take = 1 + rng.below(run.len());
    let (first, last) = (run[0], run[take - 1]);
    let src = parsed.source.as_str();
    let indent = line_indent(src, first.start_byte()).to_string();
    let unit = indent_unit(parsed);
    let body = reindent_range(
        parsed,
        first.start_byte(),
        last.end_byte(),
        &format!("{indent}{unit}"),
    );
    let handler = match (rng.below(3), names.is_empty()) {
        (0, _) | (_, true) => format!("finally:\n{indent}{unit}pass"),
        (1, false) => format!(
            "except {}:\n{indent}{unit}raise",
            names[rng.below(names.len())]
        ),
        _ => {
            let a = names[rng.below(names.len())];
            let b = names[rng.below(names.len())];
            let caught = if a == b {
                a.to_string()
            } else {
                format!("({a}, {b})")
            };
            let mut h = format!("except {caught}:\n{indent}{unit}raise");
            if rng.chance(0.3) {
                h.push_str(&format!("\n{indent}else:\n{indent}{unit}pass"));
            }
            h
        }
    };
    edits.replace(
        first.start_byte()..last.end_byte(),
        format!("try:\n{body}\n{indent}{handler}"),
    );
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_docstrings_future_imports_and_shared_lines() {
        sdk::testing::assert_declines(
            apply,
            &[
                "\"\"\"Doc.\"\"\"\n",
                "from __future__ import annotations\n",
                "a = 1; b = 2\n",
            ],
            8,
        );
    }

    #[test]
    fn never_wraps_a_global_declaration() {
        for seed in 0..16 {
            if let Ok(Some(out)) = apply("def f():\n    global g\n    g = 1\n", seed) {
                assert!(!out.contains("try:\n        global"), "{out}");
            }
        }
    }
}
