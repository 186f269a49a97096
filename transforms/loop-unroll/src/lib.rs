//! # loop-unroll
//!
//! ## What it does
//! Replaces a `for` loop over `range` with integer-literal arguments and at most four
//! iterations by that many copies of its body, each preceded by the assignment of the loop
//! variable, followed by the `else` block if there is one.
//!
//! ## Why it preserves semantics
//! The iteration values are known from the literals; each copy runs with the loop variable set
//! exactly as `for` would set it, in the same order, and after the last copy the variable holds
//! the last value (an empty range leaves it untouched, and the loop becomes `pass` or its
//! `else` block). Without `break` or `continue` of this loop every iteration runs to its end, and
//! the `else` block always runs, so it follows the copies. Functions defined in the body are
//! closures over the same variable in both forms. Bodies are re-indented line by line, never
//! inside string literals.
//!
//! ## Example
//! ```python
//! for i in range(3):
//!     total += i
//! ```
//! becomes
//! ```python
//! i = 0
//! total += i
//! i = 1
//! total += i
//! i = 2
//! total += i
//! ```
//!
//! ## Not applied when
//! - the body has `break` or `continue` belonging to this loop, or `global`/`nonlocal` (a
//!   repeated declaration after a use is a syntax error);
//! - the range has non-literal arguments, a zero step, or more than four values, or the body
//!   is longer than twelve lines;
//! - `range` is rebound, or the loop is `async for`.

use sdk::parse::{contains_in_same_function, has_own_break_or_continue, Parsed};
use sdk::pyast::{binds_anywhere, is_async, literal_range, range_call_args};
use sdk::scope::ScopeInfo;
use sdk::text::{block_text, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "loop-unroll",
    description: "Unroll short for loops over literal ranges",
    category: "control-flow",
    rewrite: rewrite,
);

/// Most iterations unrolled.
const MAX_ITERATIONS: i64 = 4;
/// Longest body unrolled, in lines.
const MAX_BODY_LINES: usize = 12;

fn values(start: i64, stop: i64, step: i64) -> Option<Vec<i64>> {
    if step == 0 {
        return None;
    }
    let mut out = Vec::new();
    let mut v = start;
    while (step > 0 && v < stop) || (step < 0 && v > stop) {
        out.push(v);
        if out.len() as i64 > MAX_ITERATIONS {
            return None;
        }
        v += step;
    }
    Some(out)
}

fn unrolled(parsed: &Parsed, info: &ScopeInfo, node: Node<'_>) -> Option<String> {
    let src = parsed.source.as_str();
    if is_async(parsed, node) {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let target = parsed.text(node.child_by_field_name("left")?);
    let args = range_call_args(parsed, info, node.child_by_field_name("right")?)?;
    let (start, stop, step) = literal_range(parsed, &args)?;
    let vals = values(start, stop, step)?;
    if has_own_break_or_continue(body)
        || contains_in_same_function(body, &["global_statement", "nonlocal_statement"])
        || parsed.text(body).lines().count() > MAX_BODY_LINES
        || !starts_line(src, node.start_byte())
    {
        return None;
    }
    let indent = line_indent(src, node.start_byte()).to_string();
    let body_text = block_text(parsed, body, &indent);
    let mut parts: Vec<String> = Vec::new();
    for v in &vals {
        parts.push(format!("{indent}{target} = {v}"));
        parts.push(body_text.clone());
    }
    if let Some(alt) = node.child_by_field_name("alternative") {
        parts.push(block_text(
            parsed,
            alt.child_by_field_name("body")?,
            &indent,
        ));
    }
    if parts.is_empty() {
        parts.push(format!("{indent}pass"));
    }
    // The statement starts after its indentation: drop the first line's indent.
    Some(parts.join("\n")[indent.len()..].to_string())
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if binds_anywhere(&info, "range") {
        return edits;
    }
    let loops: Vec<(Node<'_>, String)> = parsed
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter_map(|n| unrolled(parsed, &info, n).map(|t| (n, t)))
        .collect();
    if loops.is_empty() {
        return edits;
    }
    // One loop per application (nested loops would overlap).
    let Some(i) = rng.site(loops.len()) else {
        return edits;
    };
    let (node, text) = &loops[i];
    edits.replace(node.byte_range(), text.clone());
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_break_continue_long_and_global() {
        sdk::testing::assert_declines(
            apply,
            &[
                "for i in range(3):\n    if i:\n        break\n",
                "for i in range(3):\n    continue\n",
                "for i in range(50):\n    print(i)\n",
                "def f():\n    for i in range(2):\n        global g\n        g = i\n",
                "for i in range(n):\n    print(i)\n",
            ],
            4,
        );
    }
}
