//! # redundant-parens
//!
//! ## What it does
//! Adds or removes parentheses that change nothing: `return a + b` ↔ `return (a + b)`,
//! `if x > 0:` ↔ `if (x > 0):`, `total = (price * qty)`, `f((x))` → `f(x)`.
//!
//! ## Why it preserves semantics
//! Parentheses around a whole expression only group; they create no tuple (there is no comma)
//! and the grouped expression is the entire value of its slot, so no operator precedence
//! changes. Python compiles `(e)` and `e` to the same code. Going back, parentheses are
//! removed only where the slot takes any expression without them and the inner expression
//! needs no brackets to span lines; a space is kept where the bracket separated a keyword
//! from a name (`return(x)` → `return x`).
//!
//! ## Example
//! ```python
//! if n % 2 == 0:
//!     return n // 2
//! ```
//! becomes
//! ```python
//! if (n % 2 == 0):
//!     return (n // 2)
//! ```
//!
//! ## Not applied when
//! - the slot is an assignment target, a slice, a decorator, an annotation, a `match` pattern,
//!   a `with` item, an f-string field or a keyword argument's name;
//! - the expression is a bare tuple or a generator expression as a call's only argument (the
//!   parentheses would change or duplicate meaning), or a bare `yield`;
//! - removing: the inner expression is a `:=`, `lambda`, `yield`, tuple or spans lines.

use sdk::parse::{named_children, Parsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "redundant-parens",
    description: "Add or remove parentheses around whole expressions",
    category: "layout",
    rewrite: rewrite,
);

/// Whether `n` is the whole expression of a slot that takes any expression.
fn whole_slot(n: Node<'_>) -> bool {
    let Some(p) = n.parent() else {
        return false;
    };
    let field = |f: &str| p.child_by_field_name(f) == Some(n);
    match p.kind() {
        "assignment" | "augmented_assignment" => field("right"),
        "return_statement" => true,
        "if_statement" | "while_statement" | "elif_clause" => field("condition"),
        "for_statement" => field("right"),
        "argument_list" => {
            // Not a lone generator expression (`f(x for x in y)`).
            n.kind() != "generator_expression"
        }
        "keyword_argument" => field("value"),
        _ => false,
    }
}

/// Kinds that may be wrapped.
fn wrappable(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "identifier"
            | "call"
            | "binary_operator"
            | "comparison_operator"
            | "boolean_operator"
            | "not_operator"
            | "unary_operator"
            | "attribute"
            | "subscript"
            | "integer"
            | "float"
            | "string"
            | "true"
            | "false"
            | "none"
            | "conditional_expression"
            | "list"
            | "dictionary"
    )
}

/// Kinds that may be unwrapped.
fn unwrappable(inner: Node<'_>) -> bool {
    wrappable(inner) && inner.kind() != "conditional_expression"
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    enum Site<'t> {
        Wrap(Node<'t>),
        Unwrap(Node<'t>, Node<'t>),
    }
    let mut sites = Vec::new();
    for n in parsed.nodes() {
        if !whole_slot(n) || parsed.in_string(&n.byte_range()) {
            continue;
        }
        if wrappable(n) {
            sites.push(Site::Wrap(n));
        } else if n.kind() == "parenthesized_expression" {
            let inner = named_children(n);
            if let [only] = inner[..] {
                if unwrappable(only) && !parsed.text(n).contains('\n') {
                    sites.push(Site::Unwrap(n, only));
                }
            }
        }
    }
    for i in rng.sites(sites.len(), 0.3) {
        match sites[i] {
            Site::Wrap(n) => {
                if !edits.overlaps(&n.byte_range()) {
                    edits.replace(n.byte_range(), format!("({})", parsed.text(n)));
                }
            }
            Site::Unwrap(n, inner) => {
                if edits.overlaps(&n.byte_range()) {
                    continue;
                }
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                let before = if word(src[..n.start_byte()].chars().last()) {
                    " "
                } else {
                    ""
                };
                let after = if word(src[n.end_byte()..].chars().next()) {
                    " "
                } else {
                    ""
                };
                edits.replace(
                    n.byte_range(),
                    format!("{before}{}{after}", parsed.text(inner)),
                );
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_targets_tuples_generators_and_walrus() {
        sdk::testing::assert_declines(
            apply,
            &[
                "a, b = c, d\n",
                "print(x for x in y)\n",
                "x = (y := 1)\n",
                "f = (lambda: 1)\n",
                "x = (yield)\n",
                "f\"{(a + b)}\"\n",
            ],
            8,
        );
    }
}
