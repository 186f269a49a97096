//! # while-to-for
//!
//! ## What it does
//! Rewrites `while COND:` as `for k in iter(lambda: bool(COND), False):`, and `while True:` as
//! `for k in iter(int, 1):`, keeping the body and any `else` clause.
//!
//! ## Why it preserves semantics
//! `iter(f, sentinel)` calls `f` before every iteration and stops when the result equals the
//! sentinel. `bool(COND)` is evaluated exactly when `while` would evaluate `COND` (before each
//! iteration, and again after `continue`), calls `__bool__` once as `while` does, and equals
//! `False` exactly when `while` would stop. The lambda reads the variables of `COND` through
//! closure cells, so it always sees their current values. `iter(int, 1)` never ends (`int()` is
//! `0`), like `while True`. `for … else` runs `else` when the iterator is exhausted and skips it
//! on `break`: the same rule as `while … else`. The loop variable `k` is a fresh name.
//!
//! ## Example
//! ```python
//! while n > 1:
//!     n //= 2
//! ```
//! becomes
//! ```python
//! for tick in iter(lambda: bool(n > 1), False):
//!     n //= 2
//! ```
//!
//! ## Not applied when
//! - the condition contains `:=`, `yield`, `await`, `super` or a name starting with `__`
//!   (they mean something else inside a lambda);
//! - the loop runs directly in a class body (a lambda cannot see class names);
//! - `iter`, `bool` or `int` are rebound, or the program inspects its namespace.
//!
//! The lambda adds one stack frame while the condition runs: a condition that recurses right
//! at the recursion limit could fail one call earlier.

use sdk::names::FreshNames;
use sdk::parse::{any_within, in_class_scope};
use sdk::pyast::{binds_anywhere, header_colon};
use sdk::scope::ScopeInfo;
use sdk::{Edits, Parsed, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "while-to-for",
    description: "Rewrite while loops as for loops over iter(lambda: cond, False)",
    category: "control-flow",
    rewrite: rewrite,
);

fn condition_ok(parsed: &Parsed, cond: Node<'_>) -> bool {
    !any_within(
        cond,
        &|n| {
            matches!(n.kind(), "named_expression" | "yield" | "await")
                || (n.kind() == "identifier" && {
                    let t = parsed.text(n);
                    t == "super" || t.starts_with("__")
                })
        },
        &|_| false,
    )
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.any_dynamic()
        || ["iter", "bool", "int"]
            .iter()
            .any(|n| binds_anywhere(&info, n))
    {
        return edits;
    }
    let loops: Vec<Node<'_>> = parsed
        .nodes_of_kind("while_statement")
        .into_iter()
        .filter(|n| !in_class_scope(*n))
        .filter(|n| {
            n.child_by_field_name("condition")
                .is_some_and(|c| condition_ok(parsed, c))
        })
        .collect();
    if loops.is_empty() {
        return edits;
    }
    let mut fresh = FreshNames::new(parsed);
    for i in rng.sites(loops.len(), 0.5) {
        let node = loops[i];
        let (Some(cond), Some(colon)) = (
            node.child_by_field_name("condition"),
            header_colon(node, Some("condition")),
        ) else {
            continue;
        };
        let k = fresh.fresh(rng, Some("tick"));
        let cond_text = parsed.text(cond);
        let header = if matches!(cond_text, "True" | "1") {
            format!("for {k} in iter(int, 1):")
        } else {
            format!("for {k} in iter(lambda: bool({cond_text}), False):")
        };
        edits.replace(node.start_byte()..colon.end_byte(), header);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_walrus_conditions() {
        assert_eq!(
            apply(
                "xs = [1, 2]\nwhile (x := xs.pop() if xs else None):\n    print(x)\n",
                3
            ),
            Ok(None)
        );
    }
}
