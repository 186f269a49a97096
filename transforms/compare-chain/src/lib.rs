//! # compare-chain
//!
//! ## What it does
//! Converts between chained comparisons and conjunctions of two comparisons, both ways:
//! `lo <= x < hi` ↔ `(lo <= x and x < hi)`, for chains of any length, when every operand that
//! would be evaluated twice is a literal or a plain local variable.
//!
//! ## Why it preserves semantics
//! Python defines `a op1 b op2 c` as `a op1 b and b op2 c` with `b` evaluated once: the same
//! comparisons run in the same order, the second only when the first is truthy, and the value
//! is the first falsy comparison result or the last one, exactly as `and` returns it. Reading
//! a literal or a local variable a second time yields the same object and runs no code: a
//! comparison's `__lt__` cannot rebind a function's local (it could rebind a global or an
//! attribute, so those are never duplicated). The conjunction is parenthesised, so it binds the
//! same way wherever the chain stood.
//!
//! ## Example
//! ```python
//! if 0 <= i < len(xs):
//!     return xs[i]
//! ```
//! becomes
//! ```python
//! if (0 <= i and i < len(xs)):
//!     return xs[i]
//! ```
//!
//! ## Not applied when
//! - a middle operand (or, going back, the shared operand) is anything but a literal or a plain
//!   local of a function (a global, attribute, call or subscript could change or run code);
//! - going back: the two comparisons are not joined directly by one `and`, their shared operands
//!   differ in text, or a comment sits inside;
//! - the comparison is in a self-documenting f-string field (`f"{a < b < c=}"`).

use sdk::parse::{descendants, named_children, Parsed};
use sdk::pyast::in_debug_fstring;
use sdk::scope::ScopeInfo;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "compare-chain",
    description: "Convert between chained comparisons and conjunctions of comparisons",
    category: "expression",
    rewrite: rewrite,
);

/// Whether reading `n` twice is the same as reading it once.
fn stable(info: &ScopeInfo, n: Node<'_>) -> bool {
    match n.kind() {
        "integer" | "float" | "true" | "false" | "none" => true,
        "string" => !descendants(n).iter().any(|c| c.kind() == "interpolation"),
        "identifier" => {
            let Some(i) = info.occurrence_at(&n.byte_range()) else {
                return false;
            };
            info.is_private_local(i)
        }
        _ => false,
    }
}

/// Operands and operator texts of a comparison (`a < b <= c` → [a, b, c], ["<", "<="]).
fn chain<'t>(parsed: &Parsed, cmp: Node<'t>) -> Option<(Vec<Node<'t>>, Vec<String>)> {
    let operands: Vec<Node<'t>> = named_children(cmp);
    if operands.iter().any(|o| o.kind() == "comment") || operands.len() < 2 {
        return None;
    }
    let src = parsed.source.as_str();
    let ops: Vec<String> = operands
        .windows(2)
        .map(|w| {
            src[w[0].end_byte()..w[1].start_byte()]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    if ops
        .iter()
        .any(|o| o.is_empty() || o.contains('#') || o.contains('\\'))
    {
        return None;
    }
    Some((operands, ops))
}

fn unfold(parsed: &Parsed, info: &ScopeInfo, cmp: Node<'_>) -> Option<String> {
    let (operands, ops) = chain(parsed, cmp)?;
    if operands.len() < 3
        || !operands[1..operands.len() - 1]
            .iter()
            .all(|o| stable(info, *o))
    {
        return None;
    }
    let parts: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            format!(
                "{} {op} {}",
                parsed.text(operands[i]),
                parsed.text(operands[i + 1])
            )
        })
        .collect();
    Some(format!("({})", parts.join(" and ")))
}

fn fold(parsed: &Parsed, info: &ScopeInfo, and: Node<'_>) -> Option<String> {
    let op = and.child_by_field_name("operator")?;
    if parsed.text(op) != "and" || descendants(and).iter().any(|n| n.kind() == "comment") {
        return None;
    }
    let (l, r) = (
        and.child_by_field_name("left")?,
        and.child_by_field_name("right")?,
    );
    if l.kind() != "comparison_operator" || r.kind() != "comparison_operator" {
        return None;
    }
    let (lo, lops) = chain(parsed, l)?;
    let (ro, rops) = chain(parsed, r)?;
    let (shared_l, shared_r) = (*lo.last()?, ro[0]);
    if parsed.text(shared_l) != parsed.text(shared_r)
        || !stable(info, shared_r)
        || !stable(info, shared_l)
    {
        return None;
    }
    let mut text = parsed.text(lo[0]).to_string();
    for (i, op) in lops.iter().enumerate() {
        text.push_str(&format!(" {op} {}", parsed.text(lo[i + 1])));
    }
    for (i, op) in rops.iter().enumerate() {
        text.push_str(&format!(" {op} {}", parsed.text(ro[i + 1])));
    }
    Some(format!("({text})"))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let info = ScopeInfo::analyze(parsed);
    let sites: Vec<(Node<'_>, String)> = parsed
        .nodes()
        .into_iter()
        .filter(|n| !in_debug_fstring(parsed, *n))
        .filter_map(|n| {
            let text = match n.kind() {
                "comparison_operator" => unfold(parsed, &info, n),
                "boolean_operator" => fold(parsed, &info, n),
                _ => None,
            };
            text.map(|t| (n, t))
        })
        .collect();
    sdk::edit::replace_some(rng, &sites, 0.5)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_unstable_middles_and_debug_fields() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(a, c):\n    return a < g() < c\n",
                "def f(a, o, c):\n    return a < o.x < c\n",
                "lo = 1\nprint(0 < lo < 2)\n",
                "def f(a, b, c):\n    return f\"{a < b < c=}\"\n",
                "def f(a, b, c):\n    return a < b and c < b\n",
            ],
            8,
        );
    }
}
