//! # comp-to-loop
//!
//! ## What it does
//! Rewrites a list, set or dict comprehension, or a generator expression consumed at once by
//! `list`, `tuple`, `set`, `frozenset`, `sorted`, `any`, `all` or `"sep".join`, as explicit
//! nested `for`/`if` statements that build the same container before the statement that used
//! it. The comprehension's own variables get fresh names, so nothing leaks.
//!
//! ## Why it preserves semantics
//! - Only whole values are rewritten (`t = …`, `return …`, a bare expression statement), so
//!   hoisting the loop before the statement moves nothing across other parts of an expression:
//!   an assignment evaluates its value before its target.
//! - The first iterable is evaluated once, in the enclosing scope, as a comprehension does;
//!   inner iterables and conditions run once per outer item, in clause order; a dict
//!   comprehension's key is computed before its value (through a fresh variable, because
//!   `d[k] = v` evaluates `v` first).
//! - Comprehension variables are renamed to fresh names, so the enclosing scope's variables
//!   keep their values; closures made in the element see the loop variable with the same late
//!   binding as the comprehension's cell.
//! - A generator consumed by `list`/`tuple`/`sorted`/`join` is drained before those use its
//!   items (join and sorted materialise a list first anyway); `set`/`frozenset` add each item as
//!   it is produced, as the originals do; `any`/`all` stop at the first decisive item, with the
//!   same truth test.
//!
//! ## Example
//! ```python
//! squares = [x * x for x in values if x % 2]
//! ```
//! becomes
//! ```python
//! acc = []
//! for elem in values:
//!     if elem % 2:
//!         acc.append(elem * elem)
//! squares = acc
//! ```
//!
//! ## Not applied when
//! - the comprehension is part of a larger expression, in a class body (class scopes are
//!   invisible inside comprehensions), asynchronous, or contains `await`;
//! - a consumer or `set` is rebound by the program, or `any`/`all` has several `for` clauses;
//! - the scope inspects its namespace or frames (the fresh names would show);
//! - a comment sits inside the comprehension.

use sdk::names::FreshNames;
use sdk::parse::{descendants, in_class_scope, named_children, Parsed};
use sdk::pyast::{binds_anywhere, is_builtin_ref};
use sdk::scope::{ScopeInfo, ScopeKind};
use sdk::text::{indent_unit, line_indent, paren_if, starts_line};
use sdk::{Edits, Rng};
use std::ops::Range;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "comp-to-loop",
    description: "Rewrite comprehensions and consumed generator expressions as explicit loops",
    category: "control-flow",
    rewrite: rewrite,
);

const COMPREHENSIONS: &[&str] = &[
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

/// How the built value is used.
#[derive(Clone, Copy, PartialEq)]
enum Use {
    /// The comprehension's own container.
    Direct,
    /// `consumer(genexp)`: builtin name or `"sep".join`.
    Consumed,
}

struct Site<'t> {
    stmt: Node<'t>,
    comp: Node<'t>,
    /// The call consuming a generator, if any.
    call: Option<Node<'t>>,
    /// Text of the statement before and after the value.
    prefix: Range<usize>,
    suffix: Range<usize>,
    how: Use,
}

/// The consumer of `call(genexp)`: builtin name or `join` on a string literal.
fn consumer(parsed: &Parsed, info: &ScopeInfo, call: Node<'_>) -> Option<String> {
    let f = call.child_by_field_name("function")?;
    if f.kind() == "identifier" {
        let name = parsed.text(f);
        let known = ["list", "tuple", "set", "frozenset", "sorted", "any", "all"];
        return (known.contains(&name) && is_builtin_ref(info, f) && !binds_anywhere(info, name))
            .then(|| name.to_string());
    }
    if f.kind() == "attribute" {
        let obj = f.child_by_field_name("object")?;
        let attr = f.child_by_field_name("attribute")?;
        if obj.kind() == "string"
            && parsed.text(attr) == "join"
            && !parsed.text(obj).starts_with(['f', 'F'])
        {
            return Some("join".into());
        }
    }
    None
}

fn sites<'t>(parsed: &'t Parsed, info: &ScopeInfo) -> Vec<Site<'t>> {
    let src = parsed.source.as_str();
    let mut out = Vec::new();
    for stmt in parsed.nodes() {
        if !starts_line(src, stmt.start_byte()) || in_class_scope(stmt) {
            continue;
        }
        let value = match stmt.kind() {
            "return_statement" => named_children(stmt).into_iter().next(),
            "expression_statement" => {
                let kids = named_children(stmt);
                match kids.as_slice() {
                    [a] if a.kind() == "assignment" && a.child_by_field_name("type").is_none() => a
                        .child_by_field_name("right")
                        .filter(|r| r.kind() != "assignment"),
                    [e] => Some(*e),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(value) = value else { continue };
        let (comp, call, how) = if COMPREHENSIONS[..3].contains(&value.kind()) {
            (value, None, Use::Direct)
        } else if value.kind() == "call" {
            match value.child_by_field_name("arguments") {
                Some(g)
                    if g.kind() == "generator_expression"
                        && consumer(parsed, info, value).is_some() =>
                {
                    (g, Some(value), Use::Consumed)
                }
                _ => continue,
            }
        } else {
            continue;
        };
        if descendants(comp).iter().any(|n| {
            matches!(n.kind(), "comment" | "await")
                || (n.kind() == "for_in_clause" && parsed.text(*n).starts_with("async"))
        }) {
            continue;
        }
        let whole = call.unwrap_or(comp);
        out.push(Site {
            stmt,
            comp,
            call,
            prefix: stmt.start_byte()..whole.start_byte(),
            suffix: whole.end_byte()..stmt.end_byte(),
            how,
        });
    }
    out
}

/// `range` of the source with the given renames (absolute ranges inside it) applied.
fn renamed(src: &str, range: Range<usize>, renames: &[(Range<usize>, String)]) -> String {
    let mut out = String::new();
    let mut pos = range.start;
    for (r, new) in renames {
        if r.start >= range.start && r.end <= range.end && r.start >= pos {
            out.push_str(&src[pos..r.start]);
            out.push_str(new);
            pos = r.end;
        }
    }
    out.push_str(&src[pos..range.end]);
    paren_if(&out, false)
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
    let scope = info.scope_containing(&site.stmt.byte_range());
    if info.dynamic_within(scope) {
        return edits;
    }
    let Some(comp_scope) = info
        .scopes
        .iter()
        .position(|s| s.kind == ScopeKind::Comprehension && s.range == site.comp.byte_range())
    else {
        return edits;
    };
    let mut fresh = FreshNames::new(parsed);
    // Fresh names for the comprehension's own variables.
    let mut new_names: std::collections::BTreeMap<String, String> = Default::default();
    let mut renames: Vec<(Range<usize>, String)> = Vec::new();
    for j in info.occurrences_in(&site.comp.byte_range()) {
        let occ = &info.occurrences[j];
        if let Some((s, name)) = info.binding_of(j) {
            if *s == comp_scope {
                let new = new_names
                    .entry(name.clone())
                    .or_insert_with(|| fresh.fresh(rng, None))
                    .clone();
                renames.push((occ.range.clone(), new));
            }
        }
    }
    renames.sort_by_key(|r| r.0.start);
    let consumer_name = site.call.and_then(|c| consumer(parsed, &info, c));
    let kind = site.comp.kind();
    if kind == "set_comprehension" && binds_anywhere(&info, "set") {
        return edits;
    }
    let clauses: Vec<Node<'_>> = named_children(site.comp)
        .into_iter()
        .filter(|c| matches!(c.kind(), "for_in_clause" | "if_clause"))
        .collect();
    let fors = clauses
        .iter()
        .filter(|c| c.kind() == "for_in_clause")
        .count();
    let Some(body) = site.comp.child_by_field_name("body") else {
        return edits;
    };
    let unit = indent_unit(parsed);
    let acc = fresh.fresh(rng, Some("acc"));
    let text = |r: Range<usize>| renamed(src, r, &renames);
    let (init, finish): (String, String) = match (kind, consumer_name.as_deref()) {
        ("list_comprehension", _) => ("[]".into(), acc.clone()),
        ("set_comprehension", _) => ("set()".into(), acc.clone()),
        ("dictionary_comprehension", _) => ("{}".into(), acc.clone()),
        (_, Some("set")) => ("set()".into(), acc.clone()),
        (_, Some("frozenset")) => {
            if binds_anywhere(&info, "set") {
                return edits;
            }
            ("set()".into(), format!("frozenset({acc})"))
        }
        (_, Some("any")) => ("False".into(), acc.clone()),
        (_, Some("all")) => ("True".into(), acc.clone()),
        (_, Some("join")) => {
            let Some(f) = site.call.and_then(|c| c.child_by_field_name("function")) else {
                return edits;
            };
            ("[]".into(), format!("{}({acc})", parsed.text(f)))
        }
        (_, Some(name)) => ("[]".into(), format!("{name}({acc})")),
        _ => return edits,
    };
    if matches!(consumer_name.as_deref(), Some("any" | "all")) && fors != 1 {
        return edits;
    }
    let mut lines: Vec<String> = vec![format!("{acc} = {init}")];
    let mut depth = 0usize;
    for c in &clauses {
        let pad = unit.repeat(depth);
        match c.kind() {
            "for_in_clause" => {
                let (Some(l), Some(r)) = (
                    c.child_by_field_name("left"),
                    c.child_by_field_name("right"),
                ) else {
                    return edits;
                };
                let rights: Vec<Node<'_>> = {
                    let mut cur = c.walk();
                    c.children_by_field_name("right", &mut cur).collect()
                };
                if rights.len() != 1 {
                    return edits;
                }
                lines.push(format!(
                    "{pad}for {} in {}:",
                    text(l.byte_range()),
                    text(r.byte_range())
                ));
            }
            _ => {
                let Some(cond) = named_children(*c).into_iter().next() else {
                    return edits;
                };
                lines.push(format!("{pad}if {}:", text(cond.byte_range())));
            }
        }
        depth += 1;
    }
    let pad = unit.repeat(depth);
    if kind == "dictionary_comprehension" {
        let (Some(k), Some(v)) = (
            body.child_by_field_name("key"),
            body.child_by_field_name("value"),
        ) else {
            return edits;
        };
        let key = fresh.fresh(rng, Some("key"));
        lines.push(format!("{pad}{key} = {}", text(k.byte_range())));
        lines.push(format!("{pad}{acc}[{key}] = {}", text(v.byte_range())));
    } else {
        let e = text(body.byte_range());
        match (site.how, consumer_name.as_deref(), kind) {
            (_, _, "set_comprehension") | (Use::Consumed, Some("set" | "frozenset"), _) => {
                lines.push(format!("{pad}{acc}.add({e})"))
            }
            (Use::Consumed, Some("any"), _) => {
                lines.push(format!("{pad}if {e}:"));
                lines.push(format!("{pad}{unit}{acc} = True"));
                lines.push(format!("{pad}{unit}break"));
            }
            (Use::Consumed, Some("all"), _) => {
                lines.push(format!("{pad}if not ({e}):"));
                lines.push(format!("{pad}{unit}{acc} = False"));
                lines.push(format!("{pad}{unit}break"));
            }
            _ => lines.push(format!("{pad}{acc}.append({e})")),
        }
    }
    lines.push(format!(
        "{}{finish}{}",
        &src[site.prefix.clone()],
        &src[site.suffix.clone()]
    ));
    let indent = line_indent(src, site.stmt.start_byte()).to_string();
    // Structural line breaks carry the indentation; fragments keep their own line breaks (inside
    // brackets or strings) verbatim.
    edits.replace(site.stmt.byte_range(), lines.join(&format!("\n{indent}")));
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_class_bodies_subexpressions_and_rebound_consumers() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class K:\n    n = 3\n    xs = [i for i in range(n)]\n",
                "def f(xs):\n    return 1 + len([x for x in xs])\n",
                "list = tuple\ndef f(xs):\n    return list(x for x in xs)\n",
                "def f(xs):\n    return sum(x for x in xs)\n",
                "def f(xs):\n    return any(a < b for a in xs for b in xs)\n",
                "def f(xs):\n    ys = [x for x in xs]\n    return locals()\n",
            ],
            8,
        );
    }
}
