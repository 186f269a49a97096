//! Conservative judgements about expressions and statements: whether evaluating one may raise,
//! whether it may have effects, and the block-level facts SPTs need when they move code.
//!
//! "Conservative" means `false` is a proof and `true` is only "cannot tell": an operator may
//! call a user-defined dunder, a name may be unbound, a subscript may fail.

use crate::names::BUILTINS;
use crate::parse::{children, named_children, Parsed};
use crate::scope::{Resolution, ScopeInfo};
use tree_sitter::Node;

/// Literals whose evaluation never raises and never has an effect.
fn is_plain_literal(parsed: &Parsed, n: Node<'_>) -> bool {
    match n.kind() {
        "integer" | "float" | "true" | "false" | "none" | "ellipsis" => true,
        "string" => !children(n).iter().any(|c| c.kind() == "interpolation"),
        "concatenated_string" => named_children(n)
            .into_iter()
            .all(|c| is_plain_literal(parsed, c)),
        "unary_operator" => {
            parsed.text(n).starts_with('-')
                && n.child_by_field_name("argument")
                    .is_some_and(|a| matches!(a.kind(), "integer" | "float"))
        }
        _ => false,
    }
}

/// Whether evaluating the expression or simple statement `node` may raise.
///
/// Never raises: literals, displays (tuple, list, set, dict with literal keys) of things that
/// never raise, reads of parameters in their own function that are never rebound or deleted,
/// reads of builtins the program never binds, and assignments of such values to plain names.
pub fn may_raise(parsed: &Parsed, info: &ScopeInfo, node: Node<'_>) -> bool {
    if is_plain_literal(parsed, node) {
        return false;
    }
    let all_safe = |n: Node<'_>| {
        named_children(n)
            .into_iter()
            .all(|c| c.kind() == "comment" || !may_raise(parsed, info, c))
    };
    match node.kind() {
        "identifier" => {
            let Some(i) = info.occurrence_at(&node.byte_range()) else {
                return true;
            };
            match &info.resolutions[i] {
                Resolution::Builtin => !BUILTINS.contains(&parsed.text(node)),
                Resolution::Binding(key) => {
                    !(info.occurrences[i].scope == key.0 && info.is_plain_parameter(key))
                }
            }
        }
        "parenthesized_expression" | "tuple" | "list" | "expression_list" | "pass_statement" => {
            !all_safe(node)
        }
        // A set or a dict key hashes its element: only literals are sure to be hashable.
        "set" => !named_children(node)
            .into_iter()
            .all(|c| c.kind() == "comment" || is_plain_literal(parsed, c)),
        "dictionary" => !named_children(node).into_iter().all(|p| match p.kind() {
            "comment" => true,
            "pair" => {
                p.child_by_field_name("key")
                    .is_some_and(|k| is_plain_literal(parsed, k))
                    && p.child_by_field_name("value")
                        .is_some_and(|v| !may_raise(parsed, info, v))
            }
            _ => false,
        }),
        "expression_statement" => !all_safe(node),
        "assignment" => {
            let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return true;
            };
            node.child_by_field_name("type").is_some()
                || !plain_targets(left)
                || unpacks(left, right)
                || may_raise(parsed, info, right)
        }
        _ => true,
    }
}

/// Unpacking a value into several targets raises unless both sides have the same length.
fn unpacks(l: Node<'_>, right: Node<'_>) -> bool {
    if l.kind() == "identifier" {
        return false;
    }
    let count = |n: Node<'_>| {
        named_children(n)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .count()
    };
    !(matches!(right.kind(), "expression_list" | "tuple" | "list") && count(l) == count(right))
}

/// Targets that are plain names (or tuples of plain names): binding them never raises.
fn plain_targets(n: Node<'_>) -> bool {
    match n.kind() {
        "identifier" => true,
        "pattern_list" | "tuple_pattern" | "list_pattern" => named_children(n)
            .into_iter()
            .all(|c| c.kind() == "identifier"),
        _ => false,
    }
}

/// Whether evaluating the expression `node` may have an effect (write state, do I/O, run user
/// code): `false` only for literals, names and displays built from them.
pub fn has_effects(parsed: &Parsed, node: Node<'_>) -> bool {
    if is_plain_literal(parsed, node) {
        return false;
    }
    match node.kind() {
        "identifier" | "comment" => false,
        "parenthesized_expression"
        | "tuple"
        | "list"
        | "expression_list"
        | "set"
        | "dictionary"
        | "pair" => named_children(node)
            .into_iter()
            .any(|c| has_effects(parsed, c)),
        _ => true,
    }
}

/// Whether `stmt` is inside a `try` or `with` of its own function (or module), where an
/// exception it raises could be caught and the state it left half-done observed.
pub fn in_try_or_with(stmt: Node<'_>) -> bool {
    let mut cur = stmt.parent();
    while let Some(n) = cur {
        if crate::parse::is_function_like(n.kind()) {
            return false;
        }
        if matches!(n.kind(), "try_statement" | "with_statement") {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// The statements of a block or module, comments left out.
pub fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    named_children(block)
        .into_iter()
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// Whether `stmt` is a docstring: the first statement of its block and a lone string.
pub fn is_docstring(stmt: Node<'_>) -> bool {
    // Only the first non-comment child is looked at (a block can hold thousands).
    let first = stmt.parent().and_then(|b| {
        let mut cursor = b.walk();
        let id = b
            .named_children(&mut cursor)
            .find(|n| n.kind() != "comment")
            .map(|f| f.id());
        id
    }) == Some(stmt.id());
    first
        && stmt.kind() == "expression_statement"
        && named_children(stmt)
            .first()
            .is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string"))
}

/// Whether `stmt` can be moved into a new block (wrapped, dispatched, re-indented) as it is:
/// it has its lines to itself and is not a docstring, a `from __future__` import or a
/// `global`/`nonlocal` declaration.
pub fn is_movable_statement(parsed: &Parsed, stmt: Node<'_>) -> bool {
    let src = parsed.source.as_str();
    crate::text::starts_line(src, stmt.start_byte())
        && crate::text::ends_line(src, stmt.end_byte())
        && !is_docstring(stmt)
        && !matches!(
            stmt.kind(),
            "future_import_statement" | "global_statement" | "nonlocal_statement"
        )
}

/// Whether control can never fall off the end of `stmt`: it is a `return`, `raise`,
/// `continue` or `break`.
pub fn terminates(stmt: Node<'_>) -> bool {
    matches!(
        stmt.kind(),
        "return_statement" | "raise_statement" | "continue_statement" | "break_statement"
    )
}

/// Whether the last statement of `block` terminates (see [`terminates`]).
pub fn block_terminates(block: Node<'_>) -> bool {
    statements(block).last().is_some_and(|s| terminates(*s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Parsed;

    fn analyzed(src: &str) -> (Parsed, ScopeInfo) {
        let p = Parsed::new(src).unwrap();
        let i = ScopeInfo::analyze(&p);
        (p, i)
    }

    fn raises_by_line(src: &str) -> Vec<bool> {
        let (p, info) = analyzed(src);
        let func = p.nodes_of_kind("function_definition")[0];
        let body = func.child_by_field_name("body").unwrap();
        statements(body)
            .into_iter()
            .map(|s| may_raise(&p, &info, s))
            .collect()
    }

    #[test]
    fn may_raise_proves_only_what_it_can() {
        let src = "def f(a, b):\n    x = 1\n    y = a\n    z = a + 1\n    w = (a, 2, 'k')\n    v = {1: a}\n    u = {[]: 1}\n    o = {1, 'a'}\n    e = {1, a}\n    t = q\n    s = len\n    r, m = 1, 2\n    n, k = a\n    pass\n    a.x = 1\n";
        assert_eq!(
            raises_by_line(src),
            vec![
                false, false, true, false, false, true, false, true, true, false, false, true,
                false, true
            ]
        );
        // A parameter that is deleted somewhere may be unbound.
        let src = "def f(a):\n    y = a\n    del a\n";
        assert!(raises_by_line(src)[0]);
    }

    #[test]
    fn effects_and_block_facts() {
        let (p, _) = analyzed("def f(a):\n    '''doc'''\n    x = [a, 1]\n    g(a)\n    return a\n");
        let func = p.nodes_of_kind("function_definition")[0];
        let body = func.child_by_field_name("body").unwrap();
        let s = statements(body);
        assert!(is_docstring(s[0]) && !is_docstring(s[1]));
        let value = |i: usize| named_children(s[i])[0];
        assert!(!has_effects(
            &p,
            value(1).child_by_field_name("right").unwrap()
        ));
        assert!(has_effects(&p, value(2)));
        assert!(terminates(s[3]) && block_terminates(body) && !terminates(s[2]));
    }
}
