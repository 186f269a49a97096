//! # for-to-while
//!
//! ## What it does
//! Rewrites `for` loops as `while` loops. Over a `range` with integer-literal arguments it uses
//! a counter; over any other `range` it keeps the range object and walks its `start`, `stop`
//! and `step`; over any other iterable it drives the iterator with `iter()`/`next()`.
//!
//! ## Why it preserves semantics
//! - The iterable (or the `range(...)` call) is evaluated exactly once, before the loop, as in
//!   `for`; a `range` object keeps range's own checks (`TypeError` for floats, `ValueError`
//!   for a zero step) and normalises its arguments.
//! - A hidden counter drives the loop and is advanced *before* the body, so a body that
//!   assigns the loop variable cannot change the number of iterations, and `continue` still
//!   moves to the next item. The comparison follows the sign of the step (`<` for positive,
//!   `>` for negative; chosen at run time when the step is not a literal).
//! - The loop variable is assigned only inside the loop: after the loop it holds the last item,
//!   and after an empty range it is untouched, exactly as with `for`.
//! - `break` and `else` keep their meaning: `while … else` runs `else` when the condition
//!   fails, i.e. when the items run out, and `break` skips it.
//! - For iterables, `next(it, sentinel)` with a fresh `object()` sentinel ends the loop exactly
//!   when `for` would; the item is bound through a helper so the loop variable never sees the
//!   sentinel.
//!
//! ## Example
//! ```python
//! for i in range(10, 0, -3):
//!     if i == 4:
//!         continue
//!     print(i)
//! ```
//! becomes
//! ```python
//! cur = 10
//! while cur > 0:
//!     i = cur
//!     cur += -3
//!     if i == 4:
//!         continue
//!     print(i)
//! ```
//!
//! ## Not applied when
//! - the loop is `async for`, or runs directly in a class body (helper names would become
//!   class attributes), or the program inspects its namespace (`globals()`, `vars()`…);
//! - `range`, `iter`, `next`, `object` are rebound by the program (the rewrite relies on the
//!   builtins);
//! - a literal `range` has step 0 (it raises; the rewrite would not).

use sdk::names::FreshNames;
use sdk::parse::in_class_scope;
use sdk::pyast::{binds_anywhere, header_colon, is_async, literal_range, range_call_args};
use sdk::scope::ScopeInfo;
use sdk::text::{indent_unit, line_indent, starts_line};
use sdk::{Edits, Parsed, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "for-to-while",
    description: "Rewrite for loops (range or any iterable) as equivalent while loops",
    category: "control-flow",
    rewrite: rewrite,
);

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.any_dynamic()
        || ["range", "iter", "next", "object"]
            .iter()
            .any(|n| binds_anywhere(&info, n))
    {
        return edits;
    }
    let loops: Vec<Node<'_>> = parsed
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter(|n| !is_async(parsed, *n) && !in_class_scope(*n))
        .filter(|n| {
            n.child_by_field_name("body").is_some() && n.child_by_field_name("left").is_some()
        })
        .collect();
    if loops.is_empty() {
        return edits;
    }
    let unit = indent_unit(parsed);
    let mut fresh = FreshNames::new(parsed);
    for i in rng.sites(loops.len(), 0.5) {
        convert(parsed, &info, loops[i], &unit, &mut fresh, rng, &mut edits);
    }
    edits
}

fn convert(
    parsed: &Parsed,
    info: &ScopeInfo,
    node: Node<'_>,
    unit: &str,
    fresh: &mut FreshNames,
    rng: &mut Rng,
    edits: &mut Edits,
) -> Option<()> {
    let src = parsed.source.as_str();
    let target = parsed.text(node.child_by_field_name("left")?);
    let iterable = node.child_by_field_name("right")?;
    let body = node.child_by_field_name("body")?;
    let colon = header_colon(node, Some("right"))?;
    let outer = line_indent(src, node.start_byte()).to_string();
    let same_line = !starts_line(src, body.start_byte());
    let inner = if same_line {
        format!("{outer}{unit}")
    } else {
        line_indent(src, body.start_byte()).to_string()
    };

    let mut lines: Vec<String> = Vec::new(); // before the `while` header, at `outer`
    let header: String;
    let mut prologue: Vec<String> = Vec::new(); // first lines of the body, at `inner`
    if let Some(args) = range_call_args(parsed, info, iterable) {
        if let Some((start, stop, step)) = literal_range(parsed, &args) {
            if step == 0 {
                return None;
            }
            let c = fresh.fresh(rng, Some("idx"));
            let cmp = if step > 0 { "<" } else { ">" };
            lines.push(format!("{c} = {start}"));
            header = format!("while {c} {cmp} {stop}:");
            prologue.push(format!("{target} = {c}"));
            prologue.push(if step > 0 {
                format!("{c} += {step}")
            } else {
                format!("{c} -= {}", -step)
            });
        } else {
            let r = fresh.fresh(rng, Some("span"));
            let c = fresh.fresh(rng, Some("idx"));
            lines.push(format!("{r} = {}", parsed.text(iterable)));
            lines.push(format!("{c} = {r}.start"));
            let step_literal = if args.len() == 3 {
                sdk::pyast::int_literal(parsed, args[2])
            } else {
                Some(1)
            };
            header = match step_literal {
                Some(s) if s > 0 => format!("while {c} < {r}.stop:"),
                Some(s) if s < 0 => format!("while {c} > {r}.stop:"),
                _ => format!("while ({c} < {r}.stop) if {r}.step > 0 else ({c} > {r}.stop):"),
            };
            prologue.push(format!("{target} = {c}"));
            prologue.push(format!("{c} += {r}.step"));
        }
    } else {
        let it = fresh.fresh(rng, Some("it"));
        let end = fresh.fresh(rng, Some("done"));
        let item = fresh.fresh(rng, None);
        // A bare tuple (`for x in 1, 2, 3:`) needs its parentheses as a call argument.
        let items = if iterable.kind() == "expression_list" {
            format!("({})", parsed.text(iterable))
        } else {
            parsed.text(iterable).to_string()
        };
        lines.push(format!("{it} = iter({items})"));
        lines.push(format!("{end} = object()"));
        header = format!("while ({item} := next({it}, {end})) is not {end}:");
        prologue.push(format!("{target} = {item}"));
    }
    let mut text = String::new();
    for l in &lines {
        text.push_str(l);
        text.push('\n');
        text.push_str(&outer);
    }
    text.push_str(&header);
    for p in &prologue {
        text.push('\n');
        text.push_str(&inner);
        text.push_str(p);
    }
    let range = node.start_byte()..colon.end_byte();
    if edits.overlaps(&range) {
        return None;
    }
    edits.replace(range, text);
    if same_line {
        edits.replace(colon.end_byte()..body.start_byte(), format!("\n{inner}"));
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_shadowed_range_and_zero_step() {
        for s in 0..4 {
            if let Ok(Some(out)) = apply("for x in 1, 2, 3:\n    print(x)\n", s) {
                assert!(out.contains("iter((1, 2, 3))"), "{out}");
            }
        }
        assert_eq!(
            apply(
                "range = lambda n: [1]\nfor i in range(3):\n    print(i)\n",
                0
            ),
            Ok(None)
        );
        for s in 0..8 {
            if let Ok(Some(out)) = apply("for i in range(1, 5, 0):\n    print(i)\n", s) {
                panic!("zero step must be declined: {out}");
            }
        }
    }
}
