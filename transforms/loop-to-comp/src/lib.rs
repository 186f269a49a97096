//! # loop-to-comp
//!
//! ## What it does
//! Turns a loop whose only job is to fill a fresh container into a comprehension:
//! `acc = []` followed by `for …: [if …:] acc.append(e)` (also nested `for`s, `set()` with
//! `acc.add(e)`, and `{}` with `acc[k] = v`) becomes `acc = [e for … if …]`.
//!
//! ## Why it preserves semantics
//! - The comprehension evaluates the first iterable once in the function, then the clauses in
//!   the same nesting and order, and the element once per innermost iteration, as the loop did;
//!   appending to a list nobody else can see is the same as building the list at once.
//! - The container is a plain local that nothing else reads while the loop runs: its name
//!   appears only as the receiver inside the loop, is not read from a closure or declared
//!   `global`/`nonlocal`, and the loop is not inside a `try`/`with` of the function (where a
//!   caught exception could expose a half-built container).
//! - The loop variables are used nowhere outside the loop, except inside later `for` loops
//!   that bind them again (in their target or body, which only ever see their own value), so
//!   it does not matter that a comprehension keeps them to itself.
//! - For dicts, the key must be a loop variable or a literal, so computing it before the value
//!   (as a comprehension does) is the same as after.
//!
//! ## Example
//! ```python
//! out = []
//! for w in words:
//!     if w:
//!         out.append(w.upper())
//! ```
//! becomes
//! ```python
//! out = [w.upper() for w in words if w]
//! ```
//!
//! ## Not applied when
//! - the loop has `else:`, is `async`, contains anything but nested `for`/`if` (without
//!   `elif`/`else`) around one add, or a comment, `:=`, `yield` or `await`;
//! - it is not in a function, or the function inspects its namespace or frames;
//! - `set` is rebound (for sets).

use sdk::effects::{in_try_or_with, statements};
use sdk::parse::{descendants, is_function_like, named_children, Parsed};
use sdk::pyast::{binds_anywhere, is_async};
use sdk::scope::{ScopeInfo, ScopeKind};
use sdk::text::{paren_if, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "loop-to-comp",
    description: "Turn loops that only fill a fresh list, set or dict into comprehensions",
    category: "control-flow",
    rewrite: rewrite,
);

/// The container a loop fills, from its initialisation.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    List,
    Set,
    Dict,
}

/// The pieces of a matched loop nest: clauses (as text) and the add statement.
struct Nest<'t> {
    clauses: Vec<String>,
    targets: Vec<Node<'t>>,
    add: Node<'t>,
}

fn nest<'t>(parsed: &Parsed, stmt: Node<'t>, out: &mut Nest<'t>) -> Option<()> {
    let text = |n: Node<'_>| paren_if(parsed.text(n), false);
    match stmt.kind() {
        "for_statement" => {
            if is_async(parsed, stmt) || stmt.child_by_field_name("alternative").is_some() {
                return None;
            }
            let left = stmt.child_by_field_name("left")?;
            let names: Vec<Node<'t>> = match left.kind() {
                "identifier" => vec![left],
                "pattern_list" | "tuple_pattern" => named_children(left),
                _ => return None,
            };
            if names.iter().any(|n| n.kind() != "identifier") {
                return None;
            }
            out.targets.extend(names);
            let right = stmt.child_by_field_name("right")?;
            if right.kind() == "expression_list" {
                return None;
            }
            out.clauses
                .push(format!("for {} in {}", parsed.text(left), text(right)));
            let body = statements(stmt.child_by_field_name("body")?);
            let [one] = body.as_slice() else { return None };
            nest(parsed, *one, out)
        }
        "if_statement" => {
            if stmt.child_by_field_name("alternative").is_some() {
                return None;
            }
            out.clauses.push(format!(
                "if {}",
                text(stmt.child_by_field_name("condition")?)
            ));
            let body = statements(stmt.child_by_field_name("consequence")?);
            let [one] = body.as_slice() else { return None };
            nest(parsed, *one, out)
        }
        "expression_statement" => {
            out.add = stmt;
            Some(())
        }
        _ => None,
    }
}

/// The element text of the add statement `acc.append(e)` / `acc.add(e)` / `acc[k] = v`, and
/// the receiver identifier.
fn element<'t>(
    parsed: &Parsed,
    add: Node<'t>,
    kind: Kind,
    acc: &str,
) -> Option<(String, Node<'t>, Option<Node<'t>>)> {
    let e = *named_children(add).first()?;
    let wrap = |t: &str| paren_if(t, false);
    match (kind, e.kind()) {
        (Kind::List | Kind::Set, "call") => {
            let f = e.child_by_field_name("function")?;
            let method = if kind == Kind::List { "append" } else { "add" };
            let (obj, attr) = (
                f.child_by_field_name("object")?,
                f.child_by_field_name("attribute")?,
            );
            let args = e.child_by_field_name("arguments")?;
            let list = named_children(args);
            let [arg] = list.as_slice() else { return None };
            let plain = args.kind() == "argument_list"
                && !matches!(
                    arg.kind(),
                    "keyword_argument" | "list_splat" | "dictionary_splat"
                );
            (f.kind() == "attribute"
                && parsed.text(obj) == acc
                && parsed.text(attr) == method
                && plain)
                .then(|| (wrap(parsed.text(*arg)), obj, None))
        }
        (Kind::Dict, "assignment") => {
            let left = e.child_by_field_name("left")?;
            let right = e.child_by_field_name("right")?;
            if left.kind() != "subscript"
                || e.child_by_field_name("type").is_some()
                || right.kind() == "assignment"
            {
                return None;
            }
            let obj = left.child_by_field_name("value")?;
            let subs = named_children(left);
            let [_, key] = subs.as_slice() else {
                return None;
            };
            (parsed.text(obj) == acc).then(|| {
                // `d[k] = a, b` stores a tuple: inside `{k: v …}` it needs its parentheses.
                let value = match right.kind() {
                    "expression_list" => format!("({})", parsed.text(right)),
                    _ => wrap(parsed.text(right)),
                };
                (format!("{}: {value}", parsed.text(*key)), obj, Some(*key))
            })
        }
        _ => None,
    }
}

/// Whether the occurrence at `range` lies in the target or body of a `for` loop that binds
/// `name` itself: there it can only see that loop's value, never what an earlier loop left.
fn rebound_by_enclosing_for(parsed: &Parsed, range: std::ops::Range<usize>, name: &str) -> bool {
    let mut cur = parsed
        .root()
        .descendant_for_byte_range(range.start, range.end);
    while let Some(n) = cur {
        if is_function_like(n.kind()) {
            return false;
        }
        if n.kind() == "for_statement" {
            let (Some(left), Some(body)) =
                (n.child_by_field_name("left"), n.child_by_field_name("body"))
            else {
                return false;
            };
            let binds = descendants(left)
                .iter()
                .any(|d| d.kind() == "identifier" && parsed.text(*d) == name);
            let within = |r: std::ops::Range<usize>| r.start <= range.start && range.end <= r.end;
            if binds && (within(left.byte_range()) || within(body.byte_range())) {
                return true;
            }
        }
        cur = n.parent();
    }
    false
}

fn candidate(parsed: &Parsed, info: &ScopeInfo, init: Node<'_>, lp: Node<'_>) -> Option<String> {
    let src = parsed.source.as_str();
    let assign = *named_children(init).first()?;
    if init.kind() != "expression_statement"
        || assign.kind() != "assignment"
        || assign.child_by_field_name("type").is_some()
    {
        return None;
    }
    let (left, right) = (
        assign.child_by_field_name("left")?,
        assign.child_by_field_name("right")?,
    );
    if left.kind() != "identifier"
        || lp.kind() != "for_statement"
        || !starts_line(src, lp.start_byte())
    {
        return None;
    }
    let kind = match (right.kind(), parsed.text(right)) {
        ("list", "[]") => Kind::List,
        ("dictionary", "{}") => Kind::Dict,
        ("call", "set()") if !binds_anywhere(info, "set") => Kind::Set,
        _ => return None,
    };
    let acc = parsed.text(left);
    let s = info.scope_containing(&lp.byte_range());
    if info.scopes[s].kind != ScopeKind::Function || info.dynamic_within(s) || in_try_or_with(lp) {
        return None;
    }
    if descendants(lp)
        .iter()
        .any(|n| matches!(n.kind(), "comment" | "named_expression" | "yield" | "await"))
    {
        return None;
    }
    let mut found = Nest {
        clauses: Vec::new(),
        targets: Vec::new(),
        add: lp,
    };
    nest(parsed, lp, &mut found)?;
    let (elem, receiver, key) = element(parsed, found.add, kind, acc)?;
    // The container: a plain local, named inside the loop only as the receiver.
    let acc_key = (s, acc.to_string());
    if info.scopes[s].globals.contains(acc)
        || info.scopes[s].nonlocals.contains(acc)
        || info.escapes(s).contains(acc)
    {
        return None;
    }
    let lp_range = lp.byte_range();
    for j in info.occurrences_in(&lp_range) {
        if info.binding_of(j) == Some(&acc_key)
            && info.occurrences[j].range != receiver.byte_range()
        {
            return None;
        }
    }
    // Loop variables: every use inside the loop.
    let mut target_names = Vec::new();
    for t in &found.targets {
        let name = parsed.text(*t).to_string();
        if name == acc {
            return None;
        }
        let key = (s, name.clone());
        for &j in info.occurrences_of(&key) {
            let occ = &info.occurrences[j];
            let inside = lp_range.start <= occ.range.start && occ.range.end <= lp_range.end;
            if !inside && !rebound_by_enclosing_for(parsed, occ.range.clone(), &name) {
                return None;
            }
        }
        target_names.push(name);
    }
    if let Some(k) = key {
        let ok = matches!(k.kind(), "integer" | "string" | "true" | "false" | "none")
            || (k.kind() == "identifier" && target_names.iter().any(|n| n == parsed.text(k)));
        if !ok {
            return None;
        }
    }
    let (open, close) = match kind {
        Kind::List => ("[", "]"),
        _ => ("{", "}"),
    };
    Some(format!(
        "{acc} = {open}{elem} {}{close}",
        found.clauses.join(" ")
    ))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let mut sites: Vec<(Node<'_>, Node<'_>, String)> = Vec::new();
    for block in parsed.nodes_of_kind("block") {
        let stmts = statements(block);
        for w in stmts.windows(2) {
            if let Some(text) = candidate(parsed, &info, w[0], w[1]) {
                sites.push((w[0], w[1], text));
            }
        }
    }
    let Some(i) = rng.site(sites.len()) else {
        return edits;
    };
    let (init, lp, text) = &sites[i];
    edits.replace(init.start_byte()..lp.end_byte(), text.clone());
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_observed_containers_and_leaking_variables() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(xs):\n    out = []\n    for x in xs:\n        out.append(len(out))\n    return out\n",
                "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out, x\n",
                "def f(xs):\n    out = []\n    try:\n        pass\n    finally:\n        pass\n    for x in xs:\n        out.append(x)\n        print(x)\n    return out\n",
                "def f(xs):\n    out = []\n    try:\n        for x in xs:\n            out.append(1 / x)\n    except ZeroDivisionError:\n        return out\n",
                "out = []\nfor x in range(3):\n    out.append(x)\n",
                "def f(xs):\n    out = {}\n    for x in xs:\n        out[g(x)] = x\n    return out\n",
                "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    else:\n        out = None\n    return out\n",
            ],
            8,
        );
    }
}
