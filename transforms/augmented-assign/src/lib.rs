//! # augmented-assign
//!
//! ## What it does
//! Converts between augmented and expanded assignments, both ways, for a simple name whose
//! type is proved immutable (`int`, `bool`, `float`, `str`, `tuple`): `total += x` ↔
//! `total = total + x`, for every binary operator (`-=`, `*=`, `//=`, `<<=`…).
//!
//! ## Why it preserves semantics
//! For an immutable value `x op= e` cannot update in place: Python evaluates `x`, then `e`,
//! computes `x op e` and binds the result to `x`, which is exactly what `x = x op e` does (in
//! the same order). The right operand is parenthesised when its own operator could bind
//! looser or regroup (`x -= a - b` becomes `x = x - (a - b)`). A list would differ (`xs += ys`
//! extends the list every alias sees, `xs = xs + ys` builds a new one), so unknown and mutable
//! types are left alone; the SDK's type facts prove the type from every binding of the name.
//!
//! ## Example
//! ```python
//! count = 0
//! for ch in text:
//!     count += 1
//! ```
//! becomes
//! ```python
//! count = 0
//! for ch in text:
//!     count = count + 1
//! ```
//!
//! ## Not applied when
//! - the target is an attribute or subscript (`self.n += 1` may go through `__iadd__` of an
//!   attribute's value, and evaluates the object once), or a name whose type is unknown or
//!   mutable (parameters, lists, dicts, sets, module names);
//! - going back: the expanded form's left operand is not exactly the target name
//!   (`x = x * a + b` is `(x * a) + b`);
//! - a comment sits inside the statement.

use sdk::parse::{descendants, Parsed};
use sdk::scope::ScopeInfo;
use sdk::text::paren_if;
use sdk::types::TypeFacts;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "augmented-assign",
    description: "Convert between augmented (x += e) and expanded (x = x + e) assignments of immutable values",
    category: "data-flow",
    rewrite: rewrite,
);

/// Binary operators that have an augmented form.
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@",
];

fn immutable_name(parsed: &Parsed, info: &ScopeInfo, facts: &TypeFacts, n: Node<'_>) -> bool {
    let _ = parsed;
    n.kind() == "identifier" && facts.of_name(info, n).is_some_and(|t| t.is_immutable())
}

fn expand(parsed: &Parsed, info: &ScopeInfo, facts: &TypeFacts, node: Node<'_>) -> Option<String> {
    let l = node.child_by_field_name("left")?;
    let r = node.child_by_field_name("right")?;
    let op = parsed.text(node.child_by_field_name("operator")?);
    let bin = op.strip_suffix('=')?;
    if !OPERATORS.contains(&bin) || !immutable_name(parsed, info, facts, l) {
        return None;
    }
    // `x **= e` → `x = x ** (e)`: `**` is right-associative, so even atoms are fine, but a
    // unary minus (`x ** -e`) also is; keep the rule uniform and parenthesise non-atoms.
    let right = paren_if(parsed.text(r), !sdk::pyast::is_atom(r));
    let name = parsed.text(l);
    Some(format!("{name} = {name} {bin} {right}"))
}

fn contract(
    parsed: &Parsed,
    info: &ScopeInfo,
    facts: &TypeFacts,
    node: Node<'_>,
) -> Option<String> {
    let l = node.child_by_field_name("left")?;
    let value = node.child_by_field_name("right")?;
    if node.child_by_field_name("type").is_some()
        || value.kind() != "binary_operator"
        || !immutable_name(parsed, info, facts, l)
    {
        return None;
    }
    let first = value.child_by_field_name("left")?;
    let r = value.child_by_field_name("right")?;
    let op = parsed.text(value.child_by_field_name("operator")?);
    if first.kind() != "identifier"
        || parsed.text(first) != parsed.text(l)
        || !OPERATORS.contains(&op)
    {
        return None;
    }
    Some(format!("{} {op}= {}", parsed.text(l), parsed.text(r)))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let info = ScopeInfo::analyze(parsed);
    let facts = TypeFacts::analyze(parsed, &info);
    let sites: Vec<(Node<'_>, String)> = parsed
        .nodes()
        .into_iter()
        .filter_map(|n| {
            let text = match n.kind() {
                "augmented_assignment" => expand(parsed, &info, &facts, n),
                "assignment" => contract(parsed, &info, &facts, n),
                _ => None,
            };
            text.map(|t| (n, t))
        })
        .filter(|(n, _)| !descendants(*n).iter().any(|d| d.kind() == "comment"))
        .collect();
    sdk::edit::replace_some(rng, &sites, 0.5)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_mutable_unknown_and_non_name_targets() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(xs, ys):\n    xs += ys\n    return xs\n",
                "def f(ys):\n    xs = []\n    xs += ys\n    xs = xs + ys\n    return xs\n",
                "def f(o):\n    o.n += 1\n    o.m = o.m + 1\n",
                "n = 0\nn += 1\nn = n + 1\n",
                "def f(a, b):\n    x = 0\n    x = x * a + b\n    x = a + x\n    return x\n",
            ],
            8,
        );
    }
}
