//! # temp-var
//!
//! ## What it does
//! Extracts a sub-expression into a temporary variable assigned just before its statement, or
//! inlines a temporary that is used exactly once by the next statement, both ways:
//! `return total / len(xs)` ↔ `count = total / len(xs)` + `return count`… precisely, only
//! the sub-expression that the statement evaluates first moves.
//!
//! ## Why it preserves semantics
//! Python evaluates a statement's operands left to right. The extracted expression is one
//! that the statement would evaluate unconditionally and before anything with an effect:
//! everything evaluated earlier is a literal, a local variable no other code can rebind, a
//! builtin the program never shadows or a module-level function bound once, so running the
//! expression one statement earlier runs the same code in the same order, exactly once. Parts
//! that run conditionally or repeatedly (right of `and`/`or`, branches of `x if c else y`,
//! later links of a comparison chain, comprehension bodies, `while` conditions) are never
//! extracted. The temporary is a fresh local of the function. Inlining is the exact converse:
//! the temporary must be a function local that nothing else reads or rebinds and that the
//! next statement reads once, at a point it evaluates first.
//!
//! ## Example
//! ```python
//! def mean(xs):
//!     return sum(xs) / len(xs)
//! ```
//! becomes
//! ```python
//! def mean(xs):
//!     total = sum(xs)
//!     return total / len(xs)
//! ```
//!
//! ## Not applied when
//! - the code is at module level or in a class body (a new module or class attribute would
//!   show), or the function uses `locals()`/`vars()`/frames;
//! - the expression contains `yield`, `await`, `:=` or is a bare name or literal;
//! - an earlier-evaluated part is a method or attribute lookup, a global that could be
//!   rebound, or a call (`obj.add(f(x))` keeps `f(x)` in place);
//! - the statement shares its line with another, is an `assert` (skipped under `-O`), an
//!   `elif`/`while` condition, or a temporary read inside a nested function or comprehension.

use sdk::names::FreshNames;
use sdk::parse::{descendants, named_children, Parsed};
use sdk::scope::{BindKind, Role, ScopeInfo, ScopeKind};
use sdk::text::{continues_previous_line, ends_line, line_indent, paren_if, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "temp-var",
    description: "Extract a sub-expression into a temporary variable, or inline a single-use temporary",
    category: "data-flow",
    rewrite: rewrite,
);

/// Expressions worth a temporary.
const EXTRACTABLE: &[&str] = &[
    "call",
    "binary_operator",
    "subscript",
    "list",
    "dictionary",
    "set",
    "list_comprehension",
    "dictionary_comprehension",
    "set_comprehension",
    "comparison_operator",
];

struct Ctx<'a> {
    parsed: &'a Parsed,
    info: ScopeInfo,
}

impl Ctx<'_> {
    /// Whether evaluating `n` earlier or later than some code gives the same value and runs
    /// nothing: a literal, a local that only its own function binds, a never-shadowed builtin
    /// or a module-level function or class bound once.
    fn stable(&self, n: Node<'_>) -> bool {
        match n.kind() {
            "integer" | "float" | "true" | "false" | "none" => true,
            "string" => !descendants(n).iter().any(|c| c.kind() == "interpolation"),
            "identifier" => {
                let info = &self.info;
                let Some(i) = info.occurrence_at(&n.byte_range()) else {
                    return false;
                };
                let Some((s, name)) = info.binding_of(i) else {
                    return !sdk::pyast::binds_anywhere(info, self.parsed.text(n));
                };
                if *s == 0 {
                    let binds: Vec<Role> = info
                        .occurrences_of(&(0, name.clone()))
                        .iter()
                        .map(|&o| info.occurrences[o].role)
                        .filter(|r| *r != Role::Load)
                        .collect();
                    return matches!(
                        binds.as_slice(),
                        [Role::Bind(BindKind::Def | BindKind::Class)]
                    ) && !info.any_dynamic();
                }
                info.is_private_local(i)
            }
            _ => false,
        }
    }

    /// The children of `n` that it evaluates unconditionally, in evaluation order.
    fn evaluated_children<'t>(&self, n: Node<'t>) -> Vec<Node<'t>> {
        let field = |f: &str| n.child_by_field_name(f).into_iter().collect::<Vec<_>>();
        match n.kind() {
            "expression_statement"
            | "return_statement"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "set"
            | "expression_list"
            | "pair"
            | "dictionary"
            | "slice" => named_children(n),
            // CPython evaluates `*args` before keyword arguments written earlier
            // (`f(a=g(), *h())` runs `h` first): calls with unpacking keep their order alone.
            "argument_list" => {
                let args = named_children(n);
                if args
                    .iter()
                    .any(|a| matches!(a.kind(), "list_splat" | "dictionary_splat"))
                {
                    Vec::new()
                } else {
                    args
                }
            }
            "assignment" if n.child_by_field_name("type").is_none() => field("right"),
            // The target is read first; only a plain name is not itself moved or re-read.
            "augmented_assignment" => match n.child_by_field_name("left") {
                Some(l) if l.kind() == "identifier" => [field("left"), field("right")].concat(),
                _ => Vec::new(),
            },
            "call" => [field("function"), field("arguments")].concat(),
            "keyword_argument" => field("value"),
            "binary_operator" => [field("left"), field("right")].concat(),
            "boolean_operator" => field("left"),
            "not_operator" | "unary_operator" => field("argument"),
            "comparison_operator" => named_children(n).into_iter().take(2).collect(),
            "subscript" => {
                let mut v = field("value");
                let mut c = n.walk();
                v.extend(n.children_by_field_name("subscript", &mut c));
                v
            }
            "attribute" => field("object"),
            "conditional_expression" => named_children(n).into_iter().nth(1).into_iter().collect(),
            "if_statement" => field("condition"),
            "for_statement" => field("right"),
            _ => Vec::new(),
        }
    }

    /// Every node of statement `stmt` that is evaluated before anything else with an effect:
    /// reached through unconditionally evaluated children whose earlier siblings are stable.
    fn evaluated_first<'t>(&self, stmt: Node<'t>) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut stack = vec![stmt];
        while let Some(n) = stack.pop() {
            out.push(n);
            for c in self.evaluated_children(n) {
                if c.kind() == "comment" {
                    continue;
                }
                stack.push(c);
                if !self.stable(c) {
                    break;
                }
            }
        }
        out
    }
}

/// The function scope `stmt` runs in, if it is a plain statement of a function body that has
/// its line to itself.
fn function_statement(parsed: &Parsed, info: &ScopeInfo, stmt: Node<'_>) -> Option<usize> {
    let src = parsed.source.as_str();
    let parent = stmt.parent()?;
    if parent.kind() != "block"
        || !starts_line(src, stmt.start_byte())
        || continues_previous_line(src, stmt.start_byte())
    {
        return None;
    }
    let s = info.scope_containing(&stmt.byte_range());
    let scope = &info.scopes[s];
    (scope.kind == ScopeKind::Function && !info.dynamic_within(s)).then_some(s)
}

fn forbidden_inside(n: Node<'_>) -> bool {
    descendants(n).iter().any(|d| {
        matches!(
            d.kind(),
            "yield" | "await" | "named_expression" | "comment" | "list_splat" | "dictionary_splat"
        )
    })
}

/// Extraction sites: (statement, expression).
fn extractions<'t>(ctx: &Ctx<'_>, stmt: Node<'t>) -> Vec<(Node<'t>, Node<'t>)> {
    if !matches!(
        stmt.kind(),
        "expression_statement" | "return_statement" | "if_statement" | "for_statement"
    ) || sdk::effects::is_docstring(stmt)
    {
        return Vec::new();
    }
    let top = named_children(stmt).first().copied();
    ctx.evaluated_first(stmt)
        .into_iter()
        .filter(|e| EXTRACTABLE.contains(&e.kind()))
        .filter(|e| Some(*e) != top || stmt.kind() != "expression_statement")
        .filter(|e| {
            // Not the callee of a call: `t = obj.method` then `t()` would read odd.
            !(e.parent().is_some_and(|p| p.kind() == "call")
                && e.parent().and_then(|p| p.child_by_field_name("function")) == Some(*e))
        })
        .filter(|e| !forbidden_inside(*e) && !sdk::pyast::in_debug_fstring(ctx.parsed, *e))
        .map(|e| (stmt, e))
        .collect()
}

/// Inlining site: `name = value` followed by a statement that reads `name` once, first.
/// Returns (assignment statement, next statement, the read, value).
fn inlining<'t>(ctx: &Ctx<'_>, stmt: Node<'t>) -> Option<(Node<'t>, Node<'t>, Node<'t>, Node<'t>)> {
    let info = &ctx.info;
    let src = ctx.parsed.source.as_str();
    // `case` capture patterns bind names the scope analysis does not see.
    if stmt.kind() != "expression_statement" || info.has_match {
        return None;
    }
    let [assign] = named_children(stmt)[..] else {
        return None;
    };
    if assign.kind() != "assignment" || assign.child_by_field_name("type").is_some() {
        return None;
    }
    let (target, value) = (
        assign.child_by_field_name("left")?,
        assign.child_by_field_name("right")?,
    );
    if target.kind() != "identifier"
        || matches!(
            value.kind(),
            "expression_list" | "assignment" | "yield" | "pattern_list"
        )
        || forbidden_inside(value)
        || !ends_line(src, stmt.end_byte())
    {
        return None;
    }
    let next = stmt.next_named_sibling()?;
    if !src[stmt.end_byte()..next.start_byte()].trim().is_empty()
        || function_statement(ctx.parsed, info, next).is_none()
    {
        return None;
    }
    let i = info.occurrence_at(&target.byte_range())?;
    let key = info.binding_of(i)?.clone();
    let scope = &info.scopes[key.0];
    if scope.kind != ScopeKind::Function
        || info.escapes(key.0).contains(&key.1)
        || scope.globals.contains(&key.1)
        || scope.nonlocals.contains(&key.1)
    {
        return None;
    }
    let [bind, read] = info.occurrences_of(&key)[..] else {
        return None;
    };
    let read_occ = &info.occurrences[read];
    if bind != i
        || read_occ.role != Role::Load
        || read_occ.scope != key.0
        || read_occ.in_debug_fstring
        || !(next.start_byte() <= read_occ.range.start && read_occ.range.end <= next.end_byte())
    {
        return None;
    }
    let read_node = ctx
        .evaluated_first(next)
        .into_iter()
        .find(|n| n.byte_range() == read_occ.range)?;
    // The inlined value must not be the target of a `for` (an identifier there binds).
    if read_node.parent().is_some_and(|p| {
        p.kind() == "keyword_argument" && p.child_by_field_name("name") == Some(read_node)
    }) {
        return None;
    }
    Some((stmt, next, read_node, value))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let ctx = Ctx { parsed, info };
    let src = parsed.source.as_str();
    enum Site<'t> {
        Extract(Node<'t>, Node<'t>),
        Inline(Node<'t>, Node<'t>, Node<'t>, Node<'t>),
    }
    let mut sites = Vec::new();
    for stmt in parsed.nodes() {
        if function_statement(parsed, &ctx.info, stmt).is_none() {
            continue;
        }
        for (s, e) in extractions(&ctx, stmt) {
            sites.push(Site::Extract(s, e));
        }
        if let Some((a, n, r, v)) = inlining(&ctx, stmt) {
            sites.push(Site::Inline(a, n, r, v));
        }
    }
    let mut names = FreshNames::new(parsed);
    for i in rng.sites(sites.len(), 0.3) {
        match sites[i] {
            Site::Extract(stmt, e) => {
                let whole = stmt.start_byte()..stmt.end_byte();
                if edits.overlaps(&whole) {
                    continue;
                }
                let name = names.fresh(rng, None);
                let indent = line_indent(src, stmt.start_byte());
                let before = &src[stmt.start_byte()..e.start_byte()];
                let after = &src[e.end_byte()..stmt.end_byte()];
                edits.replace(
                    whole,
                    format!(
                        "{name} = {}\n{indent}{before}{name}{after}",
                        paren_if(parsed.text(e), false)
                    ),
                );
            }
            Site::Inline(assign, next, read, value) => {
                let whole = assign.start_byte()..next.end_byte();
                if edits.overlaps(&whole) {
                    continue;
                }
                let v = paren_if(parsed.text(value), !sdk::pyast::is_atom(value));
                let before = &src[next.start_byte()..read.start_byte()];
                let after = &src[read.end_byte()..next.end_byte()];
                edits.replace(whole, format!("{before}{v}{after}"));
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
    fn declines_order_traps_module_code_and_multi_use_temporaries() {
        sdk::testing::assert_declines(
            apply,
            &[
                "x = len([1]) + 1\nprint(x)\n",
                "class C:\n    n = len([1]) + 2\n",
                "def f(o, g):\n    o.add(g(1))\n",
                "def f(g, h):\n    return g and h(1)\n",
                "def f(xs):\n    assert len(xs) > 2\n",
                "def f(g):\n    t = g\n    print(t, t)\n",
                "def f(g):\n    t = g(1)\n    print(locals())\n    return t\n",
                "def f(g, xs):\n    while len(xs) > 0:\n        xs.pop()\n",
                "def f(g, h):\n    print(a=g(1), *h(2))\n",
            ],
            8,
        );
    }
}
