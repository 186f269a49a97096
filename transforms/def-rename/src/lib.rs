//! # def-rename
//!
//! ## What it does
//! Renames functions and classes: those defined inside a function always, top-level ones only
//! in stdin/stdout scripts. Every reference moves with the definition: calls, recursion,
//! decorators, closures, base-class lists. Functions get verb-like names (`compute_total`),
//! classes capitalised ones (`Tracker`).
//!
//! ## Why it preserves semantics
//! A `def` or `class` statement binds its name like an assignment; references are resolved
//! with Python's scoping rules (`sdk::scope`), so exactly the loads that see this binding are
//! renamed. The new name appears nowhere in the program (not in strings either), is no keyword
//! or builtin, and the binding is the only one of its name in its scope, so nothing can
//! capture it or be captured. What remains is the object's own `__name__`/`__qualname__`,
//! visible only through those attributes, reprs built from them, pickling, logging or
//! tracebacks: programs that touch any of them are left alone, as are classes whose base or
//! decorator could read their name (an `Enum`'s or a dataclass's repr, an exception's
//! traceback line).
//!
//! ## Example
//! ```python
//! def solve(xs):
//!     def walk(i):
//!         return 0 if i == len(xs) else xs[i] + walk(i + 1)
//!     return walk(0)
//! ```
//! becomes
//! ```python
//! def solve(xs):
//!     def visit_node(i):
//!         return 0 if i == len(xs) else xs[i] + visit_node(i + 1)
//!     return visit_node(0)
//! ```
//!
//! ## Not applied when
//! - the definition is at module level and the program does not read standard input (a test
//!   or an importer calls module-level names), or it is a method (an attribute);
//! - the name is bound more than once in its scope, declared `global`/`nonlocal`, starts with
//!   `__`, or appears inside a string (`getattr(obj, "name")`, `__all__`);
//! - the program mentions `__name__` (other than `__name__ == "__main__"`), `__qualname__`,
//!   `pickle`, `logging` or `traceback`, uses `eval`/`exec`/`globals()`/frames, or has a
//!   `match` statement;
//! - a class has base classes or decorators.

use sdk::names::FreshNames;
use sdk::parse::Parsed;
use sdk::pyast::reads_stdin;
use sdk::scope::{BindKind, BindingKey, Role, ScopeInfo, ScopeKind};
use sdk::{Edits, Rng};
use std::collections::HashMap;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "def-rename",
    description: "Rename nested functions and classes (and top-level ones of stdin/stdout scripts)",
    category: "naming",
    rewrite: rewrite,
);

const VERBS: &[&str] = &[
    "compute", "build", "make", "check", "visit", "walk", "update", "collect", "find", "apply",
    "process", "handle", "scan", "merge", "count", "eval", "load", "emit", "solve", "reduce",
];
const NOUNS: &[&str] = &[
    "total", "node", "item", "part", "step", "value", "entry", "range", "state", "result", "pair",
    "block", "chunk", "level", "path", "score", "edge", "key", "row", "span",
];
const CLASS_NAMES: &[&str] = &[
    "Tracker",
    "Helper",
    "Solver",
    "Builder",
    "Record",
    "Cursor",
    "Holder",
    "Registry",
    "Accumulator",
    "Walker",
    "Table",
    "Frame",
    "Bucket",
    "Ledger",
    "Engine",
    "Visitor",
];

/// Whether the program can observe a definition's own name.
fn observes_names(parsed: &Parsed) -> bool {
    let src = parsed.source.as_str();
    let words = ["__qualname__", "pickle", "logging", "traceback"];
    if words.iter().any(|w| src.contains(w)) {
        return true;
    }
    // `__name__` only as the module's own name in `if __name__ == "__main__":`.
    parsed.nodes_of_kind("identifier").iter().any(|n| {
        parsed.text(*n) == "__name__"
            && !n.parent().is_some_and(|p| {
                p.kind() == "comparison_operator"
                    && parsed.text(p).contains("__main__")
                    && n.prev_sibling().is_none()
            })
    }) || parsed
        .nodes_of_kind("attribute")
        .iter()
        .any(|n| parsed.text(*n).ends_with("__name__"))
}

/// Whether `def_node` (a `function_definition` or `class_definition`) may carry a new name.
fn definition_ok(def_node: Node<'_>) -> bool {
    if def_node.kind() == "function_definition" {
        return true;
    }
    let decorated = def_node
        .parent()
        .is_some_and(|p| p.kind() == "decorated_definition");
    let bases = def_node
        .child_by_field_name("superclasses")
        .is_some_and(|s| s.named_child_count() > 0);
    !decorated && !bases
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.has_match || info.any_dynamic() || info.has_star_import || observes_names(parsed) {
        return edits;
    }
    let script = reads_stdin(parsed, &info);
    let defs: HashMap<usize, Node<'_>> = parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "function_definition" | "class_definition"))
        .filter_map(|n| n.child_by_field_name("name").map(|id| (id.start_byte(), n)))
        .collect();
    let string_words: std::collections::HashSet<&str> = parsed
        .nodes_of_kind("string")
        .iter()
        .flat_map(|s| {
            parsed
                .text(*s)
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut sites: Vec<(BindingKey, bool)> = Vec::new();
    for (key, occs) in info.bindings() {
        let (s, name) = &key;
        let scope_ok = match info.scopes[*s].kind {
            ScopeKind::Function => true,
            ScopeKind::Module => script,
            _ => false,
        };
        if !scope_ok
            || name.starts_with("__")
            || info.ambiguous.contains(&key)
            || string_words.contains(name.as_str())
        {
            continue;
        }
        let mut def_site = None;
        let mut ok = true;
        for &o in &occs {
            let occ = &info.occurrences[o];
            match occ.role {
                Role::Load if !occ.in_debug_fstring => {}
                Role::Bind(BindKind::Def | BindKind::Class) if def_site.is_none() => {
                    def_site = defs.get(&occ.range.start).copied();
                }
                _ => ok = false,
            }
        }
        if let (true, Some(d)) = (ok, def_site) {
            if definition_ok(d) {
                sites.push((key, d.kind() == "class_definition"));
            }
        }
    }
    let mut names = FreshNames::new(parsed);
    for i in rng.sites(sites.len(), 0.6) {
        let (key, is_class) = &sites[i];
        let mut new_name = None;
        for _ in 0..12 {
            let candidate = if *is_class {
                CLASS_NAMES[rng.below(CLASS_NAMES.len())].to_string()
            } else {
                format!(
                    "{}_{}",
                    VERBS[rng.below(VERBS.len())],
                    NOUNS[rng.below(NOUNS.len())]
                )
            };
            if !names.is_taken(&candidate) {
                new_name = Some(names.fresh(rng, Some(&candidate)));
                break;
            }
        }
        let new_name = new_name.unwrap_or_else(|| names.fresh(rng, None));
        for &o in info.occurrences_of(key) {
            edits.replace(info.occurrences[o].range.clone(), new_name.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_api_names_and_observed_names() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(x):\n    return x\n\nclass C:\n    def m(self):\n        return 1\n",
                "def f():\n    def g():\n        return 1\n    return g.__name__\n",
                "def f():\n    def g():\n        return 1\n    return getattr(h, 'g')\n",
                "def f():\n    class E(Exception):\n        pass\n    raise E()\n",
                "def f():\n    def g():\n        return 1\n    g = 2\n    return g\n",
                "import logging\ndef f():\n    def g():\n        return 1\n    return g()\n",
                "n = int(input())\ndef f():\n    return 1\nprint(f.__qualname__)\n",
            ],
            8,
        );
    }
}
