//! # stmt-swap
//!
//! ## What it does
//! Swaps two adjacent assignment statements of the same block when neither depends on the
//! other: `lo = 0` / `hi = n - 1` becomes `hi = n - 1` / `lo = 0`.
//!
//! ## Why it preserves semantics
//! Both statements assign plain names (no attributes, subscripts or annotations) from
//! expressions built only of names, literals and operators (no calls, attribute or item
//! access, comprehensions, lambdas, `await`, `yield`, `:=` or f-strings), so neither has an
//! effect other than its own binding. Neither reads or writes a name the other writes, so each
//! computes the same value in either order. An expression with a name or an operator can still
//! raise (an unbound name, `1 // 0`), and then the other statement's binding would be missing
//! or present, so at most one of the two may raise (two that may raise could raise different
//! exceptions in the other order), and the other's writes must be invisible once an exception
//! leaves: plain locals of a function, not `global`/`nonlocal` names, not module names, not
//! names a closure reads, and not inside a `try` or `with` of the function (where the
//! exception could be caught and the name read later).
//!
//! ## Example
//! ```python
//! lo = 0
//! hi = n - 1
//! ```
//! becomes
//! ```python
//! hi = n - 1
//! lo = 0
//! ```
//!
//! ## Not applied when
//! - either statement is not a simple assignment, shares a line (`a = 1; b = 2`), or uses
//!   augmented assignment with anything but a number;
//! - the program inspects its namespace or its frame (`locals()`, `vars()`…) in that scope;
//! - the statements are in a class body (definition order is observable: `Enum` members,
//!   dataclass fields, `__dict__`).
//!
//! Operators are assumed to have no side effects, which holds for every builtin type; a user
//! class whose `__add__` prints would observe the swap (the oracle checks every candidate).

use sdk::effects::{in_try_or_with, may_raise};
use sdk::parse::{any_within, children, named_children, Parsed};
use sdk::scope::{ScopeInfo, ScopeKind};
use sdk::text::{ends_line, starts_line};
use sdk::{Edits, Rng};
use std::collections::HashSet;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "stmt-swap",
    description: "Swap two adjacent independent assignments",
    category: "data-flow",
    rewrite: rewrite,
);

/// Reads and writes of one simple assignment.
struct Effects {
    reads: HashSet<String>,
    writes: HashSet<String>,
}

fn pure_expr(parsed: &Parsed, n: Node<'_>, reads: &mut HashSet<String>) -> bool {
    match n.kind() {
        "identifier" => {
            reads.insert(parsed.text(n).to_string());
            true
        }
        "integer" | "float" | "true" | "false" | "none" | "comment" => true,
        "string" => !children(n).iter().any(|c| c.kind() == "interpolation"),
        "concatenated_string" => named_children(n)
            .into_iter()
            .all(|c| pure_expr(parsed, c, reads)),
        "binary_operator"
        | "unary_operator"
        | "boolean_operator"
        | "not_operator"
        | "comparison_operator"
        | "parenthesized_expression"
        | "tuple"
        | "list"
        | "set"
        | "dictionary"
        | "pair"
        | "expression_list" => named_children(n)
            .into_iter()
            .all(|c| pure_expr(parsed, c, reads)),
        _ => false,
    }
}

fn effects(parsed: &Parsed, stmt: Node<'_>) -> Option<Effects> {
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let kids = named_children(stmt);
    let [assign] = kids.as_slice() else {
        return None;
    };
    let mut reads = HashSet::new();
    let mut writes = HashSet::new();
    match assign.kind() {
        "assignment" => {
            if assign.child_by_field_name("type").is_some() {
                return None;
            }
            let left = assign.child_by_field_name("left")?;
            let right = assign.child_by_field_name("right")?;
            let targets: Vec<Node<'_>> = match left.kind() {
                "identifier" => vec![left],
                "pattern_list" | "tuple_pattern" => named_children(left),
                _ => return None,
            };
            for t in targets {
                if t.kind() != "identifier" {
                    return None;
                }
                writes.insert(parsed.text(t).to_string());
            }
            if !pure_expr(parsed, right, &mut reads) {
                return None;
            }
        }
        "augmented_assignment" => {
            let left = assign.child_by_field_name("left")?;
            let right = assign.child_by_field_name("right")?;
            if left.kind() != "identifier" || !matches!(right.kind(), "integer" | "float") {
                return None;
            }
            let name = parsed.text(left).to_string();
            reads.insert(name.clone());
            writes.insert(name);
        }
        _ => return None,
    }
    Some(Effects { reads, writes })
}

/// Whether the names `stmt` writes can no longer be observed once an exception leaves it.
fn invisible_after_raise(info: &ScopeInfo, stmt: Node<'_>, e: &Effects) -> bool {
    let s = info.scope_containing(&stmt.byte_range());
    let scope = &info.scopes[s];
    if s == 0 || scope.kind != ScopeKind::Function || in_try_or_with(stmt) {
        return false;
    }
    let escapes = info.escapes(s);
    e.writes
        .iter()
        .all(|w| !scope.globals.contains(w) && !scope.nonlocals.contains(w) && !escapes.contains(w))
}

fn own_line(parsed: &Parsed, n: Node<'_>) -> bool {
    let src = parsed.source.as_str();
    starts_line(src, n.start_byte()) && ends_line(src, n.end_byte())
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let mut pairs: Vec<(Node<'_>, Node<'_>)> = Vec::new();
    for block in parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "module" | "block"))
    {
        let stmts: Vec<Node<'_>> = named_children(block)
            .into_iter()
            .filter(|n| n.kind() != "comment")
            .collect();
        if block
            .parent()
            .is_some_and(|p| p.kind() == "class_definition")
        {
            continue;
        }
        for w in stmts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if !own_line(parsed, a) || !own_line(parsed, b) {
                continue;
            }
            let (Some(ea), Some(eb)) = (effects(parsed, a), effects(parsed, b)) else {
                continue;
            };
            let independent = ea.writes.is_disjoint(&eb.writes)
                && ea.writes.is_disjoint(&eb.reads)
                && eb.writes.is_disjoint(&ea.reads);
            let (ra, rb) = (may_raise(parsed, &info, a), may_raise(parsed, &info, b));
            // At most one may raise, and then the other's writes must not be observable.
            let raise_safe = match (ra, rb) {
                (false, false) => true,
                (true, false) => invisible_after_raise(&info, b, &eb),
                (false, true) => invisible_after_raise(&info, a, &ea),
                (true, true) => false,
            };
            if independent && raise_safe {
                pairs.push((a, b));
            }
        }
    }
    if info.any_dynamic() || any_within(parsed.root(), &|n| n.kind() == "ERROR", &|_| false) {
        pairs.clear();
    }
    if pairs.is_empty() {
        return edits;
    }
    let Some(i) = rng.site(pairs.len()) else {
        return edits;
    };
    let (a, b) = pairs[i];
    edits.replace(a.byte_range(), parsed.text(b));
    edits.replace(b.byte_range(), parsed.text(a));
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn keeps_dependent_and_effectful_pairs() {
        sdk::testing::assert_declines(
            apply,
            &[
                "a = 1\nb = a + 1\n",
                "a = b\nb = 2\n",
                "a = f()\nb = 2\n",
                "x.y = 1\nb = 2\n",
                "a = 1; b = 2\n",
                "try:\n    a = 1\n    b = n // 0\nexcept ZeroDivisionError:\n    print(a)\n",
            ],
            8,
        );
    }
}
