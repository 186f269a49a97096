//! # index-remap
//!
//! ## What it does
//! Makes a `for` loop over `range(...)` count over a remapped range and recompute the original
//! index at the top of the body: shifted by a constant (`range(a + K, b + K, s)`, then
//! `i = k - K`) or negated (`range(-a, -b, -s)`, then `i = -k`). Literal bounds are folded;
//! other bounds go through the original `range` object's `start`, `stop` and `step`.
//!
//! ## Why it preserves semantics
//! `range(a, b, s)` yields `a + j*s` while it stays on the near side of `b`. Shifting all three
//! bounds by `K` yields `a + j*s + K` under the same test, and negating them yields
//! `-(a + j*s)` under the mirrored test, so after undoing the map the body sees exactly the
//! same integers in the same order, the same number of times. Non-literal bounds are first
//! passed to `range` itself (same evaluation, same `TypeError`/`ValueError`), whose attributes
//! are exact integers, so the arithmetic is exact for any size. The loop variable is assigned
//! only inside the body: after the loop it holds the last index, and after an empty range it
//! is untouched, as before. A body that assigns the loop variable does not affect the counter.
//!
//! ## Example
//! ```python
//! for i in range(len(xs)):
//!     total += xs[i]
//! ```
//! becomes
//! ```python
//! span = range(len(xs))
//! for pos in range(-span.start, -span.stop, -span.step):
//!     i = -pos
//!     total += xs[i]
//! ```
//!
//! ## Not applied when
//! - the loop is `async`, its target is not a plain name, its body sits on the header's line,
//!   or it runs in a class body;
//! - `range` is rebound, or the range has a literal step of zero;
//! - the program inspects its namespace or frames (new names would show).

use sdk::names::FreshNames;
use sdk::parse::{in_class_scope, Parsed};
use sdk::pyast::{
    binds_anywhere, header_colon, int_literal, is_async, literal_range, range_call_args,
};
use sdk::scope::ScopeInfo;
use sdk::text::{line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "index-remap",
    description: "Count a range loop over a shifted or negated range and recompute the index",
    category: "control-flow",
    rewrite: rewrite,
);

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let src = parsed.source.as_str();
    if info.any_dynamic() || binds_anywhere(&info, "range") {
        return edits;
    }
    let loops: Vec<(Node<'_>, Vec<Node<'_>>)> = parsed
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter(|n| !is_async(parsed, *n) && !in_class_scope(*n))
        .filter(|n| {
            n.child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier")
                && n.child_by_field_name("body")
                    .is_some_and(|b| starts_line(src, b.start_byte()))
        })
        .filter_map(|n| {
            let args = range_call_args(parsed, &info, n.child_by_field_name("right")?)?;
            let zero_step = args.len() == 3 && int_literal(parsed, args[2]) == Some(0);
            (!zero_step).then_some((n, args))
        })
        .collect();
    let Some(i) = rng.site(loops.len()) else {
        return edits;
    };
    let (node, args) = &loops[i];
    let (Some(target), Some(iterable), Some(body), Some(colon)) = (
        node.child_by_field_name("left"),
        node.child_by_field_name("right"),
        node.child_by_field_name("body"),
        header_colon(*node, Some("right")),
    ) else {
        return edits;
    };
    let mut fresh = FreshNames::new(parsed);
    let k = fresh.fresh(rng, Some("pos"));
    let target = parsed.text(target);
    let outer = line_indent(src, node.start_byte()).to_string();
    let inner = line_indent(src, body.start_byte()).to_string();
    let negate = rng.chance(0.5);
    let shift = 1 + rng.below(20) as i64;
    let (before, range_text) = match literal_range(parsed, args) {
        Some((a, b, s)) if negate => (String::new(), format!("range({}, {}, {})", -a, -b, -s)),
        Some((a, b, s)) => (
            String::new(),
            if s == 1 {
                format!("range({}, {})", a + shift, b + shift)
            } else {
                format!("range({}, {}, {s})", a + shift, b + shift)
            },
        ),
        None => {
            let r = fresh.fresh(rng, Some("span"));
            let text = if negate {
                format!("range(-{r}.start, -{r}.stop, -{r}.step)")
            } else {
                format!("range({r}.start + {shift}, {r}.stop + {shift}, {r}.step)")
            };
            (format!("{r} = {}\n{outer}", parsed.text(iterable)), text)
        }
    };
    let recompute = if negate {
        format!("{target} = -{k}")
    } else {
        format!("{target} = {k} - {shift}")
    };
    edits.replace(
        node.start_byte()..colon.end_byte(),
        format!("{before}for {k} in {range_text}:"),
    );
    edits.insert(body.start_byte(), format!("{recompute}\n{inner}"));
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_rebound_range_zero_step_and_non_names() {
        sdk::testing::assert_declines(
            apply,
            &[
                "range = lambda *a: [7]\nfor i in range(3):\n    print(i)\n",
                "for i in range(0, 3, 0):\n    print(i)\n",
                "for a[0] in range(3):\n    print(a)\n",
                "for i in range(3): print(i)\n",
            ],
            8,
        );
    }
}
