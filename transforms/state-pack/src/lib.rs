//! # state-pack
//!
//! ## What it does
//! Packs several local variables of one function into a single list or dictionary indexed by
//! constants (Auto-SPT's "circular buffer state threading" and "cumulative state mapping with
//! dictionary encoding"): every read and write of `count` becomes `state[1]` (or
//! `state[7]` in a dictionary with random integer keys), and the container is created first
//! thing in the function.
//!
//! ## Why it preserves semantics
//! A subscript is a valid target wherever a plain name is (assignment, tuple unpacking,
//! augmented assignment, `for` targets), and reading `state[k]` returns exactly the object
//! last stored there, just as reading the variable returns the object last bound to it.
//! `state[k] += e` loads, applies `+=` (in place for lists, as `v += e` does) and stores back,
//! like `v += e`. Each packed variable is first bound by a plain assignment among the
//! function's top-level statements, before any other mention of it, so no read can see a slot
//! that was never written (where the name would have raised `UnboundLocalError`). The
//! container's name is new, and the variables are plain locals: no closure, `global`,
//! `nonlocal`, `del`, `locals()` or introspection sees them by name.
//!
//! ## Example
//! ```python
//! def fib(n):
//!     a = 0
//!     b = 1
//!     for _ in range(n):
//!         a, b = b, a + b
//!     return a
//! ```
//! becomes
//! ```python
//! def fib(n):
//!     state = [None, None]
//!     state[0] = 0
//!     state[1] = 1
//!     for _ in range(n):
//!         state[0], state[1] = state[1], state[0] + state[1]
//!     return state[0]
//! ```
//!
//! ## Not applied when
//! - a variable is a parameter, is read by a nested function, lambda or comprehension, is
//!   declared `global`/`nonlocal`, deleted, bound by `with … as`, `except … as`, `import`,
//!   `:=`, a `match` capture, or appears in a self-documenting f-string field;
//! - its first mention is not a plain `name = value` statement at the top of the function body
//!   (it could be read before being bound);
//! - the function uses `locals()`/`vars()`/frames, or fewer than two variables qualify.

use sdk::effects::{is_docstring, statements};
use sdk::names::FreshNames;
use sdk::parse::Parsed;
use sdk::scope::{BindKind, BindingKey, Role, ScopeInfo, ScopeKind};
use sdk::text::{continues_previous_line, line_indent, starts_line};
use sdk::{Edits, Rng};
use std::collections::HashMap;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "state-pack",
    description: "Pack several local variables of a function into one list or dict indexed by constants",
    category: "data-flow",
    rewrite: rewrite,
);

/// Whether the binding occurrence `ident` is a target a subscript can replace.
fn subscriptable_target(ident: Node<'_>) -> bool {
    let Some(parent) = ident.parent() else {
        return false;
    };
    let direct = |p: Node<'_>, child: Node<'_>| {
        matches!(
            p.kind(),
            "assignment" | "augmented_assignment" | "for_statement"
        ) && p.child_by_field_name("left") == Some(child)
    };
    if direct(parent, ident) {
        return true;
    }
    // `a, b = …` / `for i, x in …` (one level of unpacking).
    matches!(parent.kind(), "pattern_list" | "tuple_pattern")
        && parent.parent().is_some_and(|g| direct(g, parent))
}

/// The variables of function body `body` (scope `s`) that may be packed.
fn candidates<'t>(
    info: &ScopeInfo,
    identifiers: &HashMap<usize, Node<'t>>,
    bindings: &[(BindingKey, Vec<usize>)],
    top: &[Node<'t>],
) -> Vec<BindingKey> {
    let node_at = |start: usize| identifiers.get(&start).copied();
    let mut out = Vec::new();
    for (key, occs) in bindings {
        let (key, s) = (key.clone(), key.0);
        if info.ambiguous.contains(&key) || info.escapes(s).contains(&key.1) {
            continue;
        }
        let scope = &info.scopes[s];
        if scope.globals.contains(&key.1) || scope.nonlocals.contains(&key.1) {
            continue;
        }
        let ok = occs.iter().all(|&i| {
            let o = &info.occurrences[i];
            o.scope == s
                && !o.in_debug_fstring
                && match o.role {
                    Role::Load => true,
                    Role::Bind(BindKind::Assign) => {
                        node_at(o.range.start).is_some_and(subscriptable_target)
                    }
                    _ => false,
                }
        });
        if !ok {
            continue;
        }
        // The first mention: `name = value` as a top-level statement, value not reading it.
        let first = &info.occurrences[occs[0]];
        let Some(ident) = node_at(first.range.start) else {
            continue;
        };
        let Some(assign) = ident.parent().filter(|p| p.kind() == "assignment") else {
            continue;
        };
        let Some(stmt) = assign.parent() else {
            continue;
        };
        let first_ok = first.role == Role::Bind(BindKind::Assign)
            && assign.child_by_field_name("left") == Some(ident)
            && stmt.kind() == "expression_statement"
            && top.iter().any(|t| t.id() == stmt.id())
            && assign
                .child_by_field_name("right")
                .is_some_and(|r| r.kind() != "assignment");
        if first_ok {
            out.push(key);
        }
    }
    out
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.has_match {
        return edits;
    }
    let src = parsed.source.as_str();
    let identifiers: HashMap<usize, Node<'_>> = parsed
        .nodes_of_kind("identifier")
        .into_iter()
        .map(|n| (n.start_byte(), n))
        .collect();
    let mut by_scope: HashMap<usize, Vec<(BindingKey, Vec<usize>)>> = HashMap::new();
    for (key, occs) in info.bindings() {
        by_scope.entry(key.0).or_default().push((key, occs));
    }
    let mut sites = Vec::new();
    for (s, scope) in info.scopes.iter().enumerate() {
        if scope.kind != ScopeKind::Function || info.dynamic_within(s) {
            continue;
        }
        let Some(def) = parsed
            .root()
            .descendant_for_byte_range(scope.range.start, scope.range.end)
        else {
            continue;
        };
        let Some(body) = def.child_by_field_name("body") else {
            continue;
        };
        let stmts = statements(body);
        let Some(first) = stmts.first().copied() else {
            continue;
        };
        if !starts_line(src, first.start_byte()) || continues_previous_line(src, first.start_byte())
        {
            continue;
        }
        let Some(bindings) = by_scope.get(&s) else {
            continue;
        };
        let vars = candidates(&info, &identifiers, bindings, &stmts);
        if vars.len() >= 2 {
            sites.push((stmts, vars));
        }
    }
    let mut names = FreshNames::new(parsed);
    for i in rng.sites(sites.len(), 0.5) {
        let (stmts, vars) = &sites[i];
        // A handful of the candidates (two to six), in a random choice.
        let mut pool: Vec<&BindingKey> = vars.iter().collect();
        let want = (2 + rng.below(5)).min(pool.len());
        let mut chosen: Vec<&BindingKey> = Vec::new();
        while chosen.len() < want {
            chosen.push(pool.remove(rng.below(pool.len())));
        }
        let hint = ["state", "regs", "slots", "mem"][rng.below(4)];
        let container = names.fresh(rng, Some(hint));
        let as_dict = rng.chance(0.5);
        let mut keys: Vec<usize> = Vec::new();
        for k in 0..chosen.len() {
            keys.push(if as_dict {
                loop {
                    // Six slots at most among a hundred keys: a free one is always found.
                    let c = rng.below(100);
                    if !keys.contains(&c) {
                        break c;
                    }
                }
            } else {
                k
            });
        }
        for (key, slot) in chosen.iter().zip(&keys) {
            for &o in info.occurrences_of(key) {
                edits.replace(
                    info.occurrences[o].range.clone(),
                    format!("{container}[{slot}]"),
                );
            }
        }
        // The container, first thing in the body (after a docstring).
        let init = if as_dict {
            "{}".to_string()
        } else {
            format!("[{}]", vec!["None"; chosen.len()].join(", "))
        };
        let first = stmts[0];
        let indent = line_indent(src, first.start_byte());
        match stmts.iter().position(|s| !is_docstring(*s)) {
            Some(p) if p > 0 => edits.insert(
                stmts[p - 1].end_byte(),
                format!("\n{indent}{container} = {init}"),
            ),
            _ => edits.insert(
                first.start_byte(),
                format!("{container} = {init}\n{indent}"),
            ),
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_parameters_closures_late_bindings_and_dynamic_functions() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(a, b):\n    a += 1\n    b += 1\n    return a + b\n",
                "def f():\n    a = 1\n    b = 2\n    return lambda: a + b\n",
                "def f(c):\n    if c:\n        a = 1\n        b = 2\n    return a + b\n",
                "def f():\n    a = 1\n    b = 2\n    print(locals())\n    return a + b\n",
                "def f():\n    a = 1\n    b = 2\n    del a\n    return b\n",
                "def f():\n    a = 1\n    b = 2\n    return f\"{a=}{b=}\"\n",
                "a = 1\nb = 2\nprint(a + b)\n",
            ],
            8,
        );
    }
}
