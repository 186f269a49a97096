//! # cond-expr
//!
//! ## What it does
//! Converts between conditional expressions and `if`/`else` statements, both ways:
//! - `x = a if c else b` becomes an `if c:` / `else:` pair of assignments, `return a if c else b`
//!   a pair of returns, and `f(a if c else b, …)` as a statement computes its first argument in a
//!   fresh variable first;
//! - an `if c:` / `else:` whose branches each assign the same plain name (or each return)
//!   becomes one conditional expression.
//!
//! ## Why it preserves semantics
//! Python evaluates `a if c else b` by testing `c` once and then evaluating exactly one of `a`
//! and `b`; the statement form does the same. An assignment evaluates its value before its
//! target, so evaluating the value inside each branch keeps the order. For a call argument,
//! the function must be a name that the program never rebinds (a builtin or a module-level
//! `def`), so looking it up cannot run code or fail differently before the argument is
//! computed. Parts that span lines or bind looser than the conditional are parenthesised.
//!
//! ## Example
//! ```python
//! sign = "neg" if n < 0 else "pos"
//! ```
//! becomes
//! ```python
//! if n < 0:
//!     sign = "neg"
//! else:
//!     sign = "pos"
//! ```
//!
//! ## Not applied when
//! - a comment sits inside the statement, or the value is a `yield`;
//! - the two branches assign different targets, a target that is not a plain name, use
//!   annotated or augmented assignment, or hold more than one statement, or the `if` has `elif`;
//! - for call arguments: the call is not a whole statement, the conditional is not its first
//!   argument, the function is rebound or an attribute, or the statement runs in a class body
//!   or a scope that inspects its namespace (the fresh variable would show).

use sdk::effects::statements;
use sdk::names::FreshNames;
use sdk::parse::{alternatives, descendants, in_class_scope, named_children, Parsed};
use sdk::pyast::binds_anywhere;
use sdk::scope::{Resolution, ScopeInfo};
use sdk::text::{indent_unit, line_indent, paren_if, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "cond-expr",
    description: "Convert between conditional expressions and if/else statements",
    category: "control-flow",
    rewrite: rewrite,
);

/// The three parts of `a if c else b` (parentheses around it are looked through).
fn parts<'t>(mut node: Node<'t>) -> Option<[Node<'t>; 3]> {
    while node.kind() == "parenthesized_expression" {
        let inner = named_children(node);
        let [one] = inner.as_slice() else {
            return None;
        };
        node = *one;
    }
    if node.kind() != "conditional_expression" {
        return None;
    }
    let kids = named_children(node);
    match kids.as_slice() {
        [a, c, b] => Some([*a, *c, *b]),
        _ => None,
    }
}

fn has_comment(node: Node<'_>) -> bool {
    descendants(node).iter().any(|n| n.kind() == "comment")
}

fn loose(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "conditional_expression" | "lambda" | "named_expression" | "expression_list" | "yield"
    )
}

/// Text of a part, parenthesised where needed.
fn part(parsed: &Parsed, n: Node<'_>) -> String {
    paren_if(parsed.text(n), loose(n))
}

/// One candidate rewrite: the range to replace and a function of the rng giving the text.
struct Site<'t> {
    node: Node<'t>,
    kind: SiteKind<'t>,
}

enum SiteKind<'t> {
    /// `target = a if c else b` (target text, parts).
    Assign(&'t str, [Node<'t>; 3]),
    /// `return a if c else b`.
    Return([Node<'t>; 3]),
    /// `f(a if c else b, rest…)`: the call's text before and after the argument.
    Argument(Node<'t>, [Node<'t>; 3]),
    /// `if c: x = a` / `else: x = b` (or returns) → one statement.
    Fold {
        target: Option<&'t str>,
        c: Node<'t>,
        a: Node<'t>,
        b: Node<'t>,
    },
}

fn single_value<'t>(parsed: &Parsed, stmt: Node<'t>) -> Option<(Option<String>, Node<'t>)> {
    match stmt.kind() {
        "return_statement" => {
            let v = named_children(stmt).into_iter().next()?;
            Some((None, v))
        }
        "expression_statement" => {
            let kids = named_children(stmt);
            let [assign] = kids.as_slice() else {
                return None;
            };
            if assign.kind() != "assignment" || assign.child_by_field_name("type").is_some() {
                return None;
            }
            let left = assign.child_by_field_name("left")?;
            let right = assign.child_by_field_name("right")?;
            if left.kind() != "identifier" || matches!(right.kind(), "assignment" | "yield") {
                return None;
            }
            Some((Some(parsed.text(left).to_string()), right))
        }
        _ => None,
    }
}

fn sites<'t>(parsed: &'t Parsed, info: &ScopeInfo) -> Vec<Site<'t>> {
    let src = parsed.source.as_str();
    let mut out = Vec::new();
    for stmt in parsed.nodes() {
        if !starts_line(src, stmt.start_byte()) || has_comment(stmt) {
            continue;
        }
        match stmt.kind() {
            "return_statement" => {
                if let Some(p) = named_children(stmt).into_iter().next().and_then(parts) {
                    out.push(Site {
                        node: stmt,
                        kind: SiteKind::Return(p),
                    });
                }
            }
            "expression_statement" => {
                let kids = named_children(stmt);
                let [e] = kids.as_slice() else { continue };
                if e.kind() == "assignment" && e.child_by_field_name("type").is_none() {
                    let (Some(l), Some(r)) = (
                        e.child_by_field_name("left"),
                        e.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    if r.kind() == "assignment" {
                        continue;
                    }
                    if let Some(p) = parts(r) {
                        out.push(Site {
                            node: stmt,
                            kind: SiteKind::Assign(parsed.text(l), p),
                        });
                    }
                } else if e.kind() == "call"
                    && !in_class_scope(stmt)
                    && stable_function(parsed, info, *e)
                {
                    let first = e
                        .child_by_field_name("arguments")
                        .and_then(|a| named_children(a).into_iter().next());
                    if let Some(p) = first.and_then(parts) {
                        if let Some(arg) = first {
                            out.push(Site {
                                node: stmt,
                                kind: SiteKind::Argument(arg, p),
                            });
                        }
                    }
                }
            }
            "if_statement" => {
                let Some(cons) = stmt.child_by_field_name("consequence") else {
                    continue;
                };
                let alts = alternatives(stmt);
                let [alt] = alts.as_slice() else { continue };
                if alt.kind() != "else_clause" {
                    continue;
                }
                let Some(alt_body) = alt.child_by_field_name("body") else {
                    continue;
                };
                let (ca, cb) = (statements(cons), statements(alt_body));
                let ([sa], [sb]) = (ca.as_slice(), cb.as_slice()) else {
                    continue;
                };
                let (Some((ta, va)), Some((tb, vb)), Some(c)) = (
                    single_value(parsed, *sa),
                    single_value(parsed, *sb),
                    stmt.child_by_field_name("condition"),
                ) else {
                    continue;
                };
                if ta != tb || sa.kind() != sb.kind() {
                    continue;
                }
                let target = ta.map(|_| sa).and_then(|s| {
                    named_children(*s)
                        .first()
                        .and_then(|a| a.child_by_field_name("left"))
                        .map(|l| parsed.text(l))
                });
                out.push(Site {
                    node: stmt,
                    kind: SiteKind::Fold {
                        target,
                        c,
                        a: va,
                        b: vb,
                    },
                });
            }
            _ => {}
        }
    }
    out
}

/// Whether the call's function is a name whose lookup cannot run code or change: a builtin
/// the program never rebinds, or a module-level `def` bound once.
fn stable_function(parsed: &Parsed, info: &ScopeInfo, call: Node<'_>) -> bool {
    let Some(f) = call.child_by_field_name("function") else {
        return false;
    };
    if f.kind() != "identifier" {
        return false;
    }
    let Some(i) = info.occurrence_at(&f.byte_range()) else {
        return false;
    };
    match &info.resolutions[i] {
        Resolution::Builtin => !binds_anywhere(info, parsed.text(f)),
        Resolution::Binding(key) => {
            let binds: Vec<_> = info
                .occurrences_of(key)
                .iter()
                .map(|&j| info.occurrences[j].role)
                .filter(|r| *r != sdk::scope::Role::Load)
                .collect();
            key.0 == 0 && binds == [sdk::scope::Role::Bind(sdk::scope::BindKind::Def)]
        }
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let src = parsed.source.as_str();
    let all = sites(parsed, &info);
    let Some(i) = rng.site(all.len()) else {
        return edits;
    };
    let site = &all[i];
    let unit = indent_unit(parsed);
    let indent = line_indent(src, site.node.start_byte()).to_string();
    let branches = |c: Node<'_>, a: String, b: String| {
        // Structural line breaks carry the indentation; source fragments are copied verbatim
        // (their own line breaks are inside brackets or strings, whose content must not change).
        format!(
            "if {}:\n{indent}{unit}{a}\n{indent}else:\n{indent}{unit}{b}",
            paren_if(parsed.text(c), false)
        )
    };
    let text = match &site.kind {
        SiteKind::Assign(t, [a, c, b]) => {
            let t = paren_if(t, false);
            branches(
                *c,
                format!("{t} = {}", part(parsed, *a)),
                format!("{t} = {}", part(parsed, *b)),
            )
        }
        SiteKind::Return([a, c, b]) => branches(
            *c,
            format!("return {}", part(parsed, *a)),
            format!("return {}", part(parsed, *b)),
        ),
        SiteKind::Argument(arg, [a, c, b]) => {
            let scope = info.scope_containing(&site.node.byte_range());
            if info.dynamic_within(scope) {
                return edits;
            }
            let mut fresh = FreshNames::new(parsed);
            let v = fresh.fresh(rng, Some("chosen"));
            let stmt = parsed.text(site.node);
            let rel =
                arg.start_byte() - site.node.start_byte()..arg.end_byte() - site.node.start_byte();
            format!(
                "{}\n{indent}{}{v}{}",
                branches(
                    *c,
                    format!("{v} = {}", part(parsed, *a)),
                    format!("{v} = {}", part(parsed, *b))
                ),
                &stmt[..rel.start],
                &stmt[rel.end..]
            )
        }
        SiteKind::Fold { target, c, a, b } => {
            let value = format!(
                "{} if {} else {}",
                part(parsed, *a),
                part(parsed, *c),
                part(parsed, *b)
            );
            match target {
                Some(t) => format!("{t} = {value}"),
                None => format!("return {value}"),
            }
        }
    };
    edits.replace(site.node.byte_range(), text);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_rebound_functions_comments_and_mixed_branches() {
        sdk::testing::assert_declines(
            apply,
            &[
                "print = len\nprint(1 if x else 2)\n",
                "x = (1  # one\n     if c else 2)\n",
                "if c:\n    x = 1\nelse:\n    y = 2\n",
                "if c:\n    x = 1\nelif d:\n    x = 2\nelse:\n    x = 3\n",
                "if c:\n    x.a = 1\nelse:\n    x.a = 2\n",
                "obj.f(1 if c else 2)\n",
            ],
            8,
        );
    }
}
