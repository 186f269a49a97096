//! # state-machine
//!
//! ## What it does
//! Turns a run of two to four consecutive statements into a loop over a state variable that
//! dispatches to one piece per state (Auto-SPT's "state machine enumeration with dynamic
//! dispatch"). States are distinct random non-zero integers, the dispatch branches are shuffled,
//! and the last piece sets the state to `0`, which ends the loop.
//!
//! ## Why it preserves semantics
//! The state starts at the first piece's number and each piece ends by naming the next, so the
//! pieces run exactly once each, in their original order; integer `==` tests are exact and
//! side-effect free, so the order of the branches does not matter. A piece that returns or
//! raises leaves the loop as it left the block. Pieces contain no `break` or `continue` of
//! their own (they would now bind to the state loop), so loop control is unchanged.
//!
//! ## Example
//! ```python
//! lo = 0
//! hi = len(xs)
//! ```
//! becomes
//! ```python
//! state = 41
//! while state:
//!     if state == 7:
//!         hi = len(xs)
//!         state = 0
//!     elif state == 41:
//!         lo = 0
//!         state = 7
//! ```
//!
//! ## Not applied when
//! - a statement is a docstring, `global`/`nonlocal`, a `from __future__` import, holds a
//!   `break`/`continue` for an enclosing loop, or shares its line;
//! - the run is in a class body, or the scope inspects its namespace or frames (the state
//!   variable would show).

use sdk::effects::{is_movable_statement, statements};
use sdk::names::FreshNames;
use sdk::parse::{has_own_break_or_continue, in_class_scope, Parsed};
use sdk::scope::ScopeInfo;
use sdk::text::{indent_unit, line_indent, reindent_range};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "state-machine",
    description: "Turn straight-line statements into a state loop with shuffled dispatch",
    category: "control-flow",
    rewrite: rewrite,
);

fn eligible(parsed: &Parsed, stmt: Node<'_>) -> bool {
    is_movable_statement(parsed, stmt) && !controls_outer_loop(stmt)
}

/// Whether `stmt` holds a `break` or `continue` that leaves it for an enclosing loop. A loop's
/// own body binds them to that loop; its `else:` clause does not.
fn controls_outer_loop(stmt: Node<'_>) -> bool {
    match stmt.kind() {
        "for_statement" | "while_statement" => stmt
            .child_by_field_name("alternative")
            .is_some_and(has_own_break_or_continue),
        _ => has_own_break_or_continue(stmt),
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let mut runs: Vec<Vec<Node<'_>>> = Vec::new();
    for block in parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "module" | "block"))
    {
        if block.kind() == "block" && in_class_scope(block.child(0).unwrap_or(block)) {
            continue;
        }
        if block
            .parent()
            .is_some_and(|p| matches!(p.kind(), "class_definition" | "match_statement"))
        {
            continue;
        }
        let scope = info.scope_containing(&block.byte_range());
        if info.dynamic_within(scope) {
            continue;
        }
        let stmts = statements(block);
        for i in 0..stmts.len() {
            let run: Vec<Node<'_>> = stmts[i..]
                .iter()
                .take(4)
                .take_while(|s| eligible(parsed, **s))
                .copied()
                .collect();
            if run.len() >= 2 {
                runs.push(run);
            }
        }
    }
    let Some(i) = rng.site(runs.len()) else {
        return edits;
    };
    let run = &runs[i];
    let take = 2 + rng.below(run.len() - 1);
    let pieces = &run[..take];
    let src = parsed.source.as_str();
    let indent = line_indent(src, pieces[0].start_byte()).to_string();
    let unit = indent_unit(parsed);
    let mut fresh = FreshNames::new(parsed);
    let state = fresh.fresh(rng, Some("state"));
    // Distinct non-zero state numbers.
    let mut numbers: Vec<usize> = Vec::new();
    while numbers.len() < take {
        let n = 1 + rng.below(99);
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    let mut order: Vec<usize> = (0..take).collect();
    for k in (1..order.len()).rev() {
        order.swap(k, rng.below(k + 1));
    }
    let body_indent = format!("{indent}{unit}{unit}");
    let mut text = format!("{state} = {}\n{indent}while {state}:", numbers[0]);
    for (pos, &k) in order.iter().enumerate() {
        let keyword = if pos == 0 { "if" } else { "elif" };
        let next = if k + 1 < take { numbers[k + 1] } else { 0 };
        let piece = reindent_range(
            parsed,
            pieces[k].start_byte(),
            pieces[k].end_byte(),
            &body_indent,
        );
        text.push_str(&format!(
            "\n{indent}{unit}{keyword} {state} == {}:\n{piece}\n{body_indent}{state} = {next}",
            numbers[k]
        ));
    }
    edits.replace(pieces[0].start_byte()..pieces[take - 1].end_byte(), text);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_outer_loop_control_and_class_bodies() {
        sdk::testing::assert_declines(
            apply,
            &[
                "for x in y:\n    a = 1\n    break\n",
                "class K:\n    a = 1\n    b = 2\n",
                "def f():\n    global g\n    g = 1\n",
                "a = 1; b = 2\n",
            ],
            8,
        );
    }
}
