//! # annotation-alias
//!
//! ## What it does
//! Names a generic type annotation of a top-level function with a module-level type alias, as
//! programmers do for a signature's recurring types: `def f(xs: List[int]) -> List[int]`
//! becomes `Harbor = List[int]` before the function and `def f(xs: Harbor) -> Harbor`. Every
//! annotation of that function spelled the same way reads the alias.
//!
//! ## Why it preserves semantics
//! Annotations are evaluated when the `def` runs and stored in `__annotations__`, which tests
//! and `typing.get_type_hints` can read. The alias is bound to the value of the same
//! expression, evaluated just before the statement holding the `def`, from names that cannot
//! have changed in between: only builtins and names the module binds once by an import placed
//! before that statement. So each annotation is the same object (or, for a generic alias,
//! an equal one: `List[int] == List[int]`), and `__annotations__` compares equal. The alias
//! name is new to the program (no identifier, keyword, builtin or word in a string), so it
//! shadows nothing; the module gains one name, as with `constant-hoist`.
//!
//! ## Example
//! ```python
//! from typing import List
//!
//! def evens(xs: List[int]) -> List[int]:
//!     return [x for x in xs if x % 2 == 0]
//! ```
//! becomes
//! ```python
//! from typing import List
//!
//! Harbor = List[int]
//! def evens(xs: Harbor) -> Harbor:
//!     return [x for x in xs if x % 2 == 0]
//! ```
//!
//! ## Not applied when
//! - the program has `from __future__ import annotations` (annotations are then kept as
//!   their source text, which the alias would change);
//! - the annotation is not generic (a bare name, a string) or reads a name that is not a
//!   builtin or a module-level import bound once before the function;
//! - the function is not at module level (a method's annotations may read class-body names);
//! - the program lists or reaches module names dynamically (`globals()`, `dir()`, `vars()`,
//!   frames), where a new module name would show;
//! - the statement holding the function shares its first line or continues a line.

use sdk::names::FreshNames;
use sdk::parse::{descendants, Parsed};
use sdk::scope::{BindKind, Resolution, Role, ScopeInfo};
use sdk::text::{continues_previous_line, line_start, starts_line};
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "annotation-alias",
    description: "Name a function's generic type annotations with a module-level type alias",
    category: "naming",
    rewrite: rewrite,
);

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let info = ScopeInfo::analyze(parsed);
    if sdk::pyast::may_list_module_names(parsed, &info) || future_annotations(parsed) {
        return edits;
    }
    let functions: Vec<(Node<'_>, Node<'_>)> = parsed
        .nodes_of_kind("function_definition")
        .into_iter()
        .filter_map(|f| top_level(f).map(|top| (f, top)))
        .filter(|(_, top)| {
            starts_line(src, top.start_byte()) && !continues_previous_line(src, top.start_byte())
        })
        .collect();
    let mut fresh = FreshNames::new(parsed).foreign();
    for (function, top) in functions {
        // The function's annotations that may be named, grouped by spelling.
        let mut groups: BTreeMap<String, Vec<Node<'_>>> = BTreeMap::new();
        for a in annotations(function) {
            if generic(a) && stable(parsed, &info, a, top.start_byte()) {
                groups
                    .entry(parsed.text(a).to_string())
                    .or_default()
                    .push(a);
            }
        }
        let groups: Vec<(String, Vec<Node<'_>>)> = groups.into_iter().collect();
        let mut aliases = String::new();
        for i in rng.sites(groups.len(), 0.5) {
            let (text, nodes) = &groups[i];
            let name = type_name(&mut fresh, rng);
            aliases.push_str(&format!("{name} = {text}\n"));
            for n in nodes {
                edits.replace(n.byte_range(), name.clone());
            }
        }
        if !aliases.is_empty() {
            edits.insert(line_start(src, top.start_byte()), aliases);
        }
    }
    edits
}

/// Whether the program defers its annotations (`from __future__ import annotations`).
fn future_annotations(parsed: &Parsed) -> bool {
    parsed
        .nodes_of_kind("future_import_statement")
        .into_iter()
        .any(|n| parsed.text(n).contains("annotations"))
}

/// The module-level statement that is `function` (or its decorated form), if it is one.
fn top_level(function: Node<'_>) -> Option<Node<'_>> {
    let holder = match function.parent() {
        Some(p) if p.kind() == "decorated_definition" => p,
        _ => function,
    };
    holder
        .parent()
        .is_some_and(|p| p.kind() == "module")
        .then_some(holder)
}

/// The annotation expressions of `function`'s parameters and return (the inside of each `type`
/// node), nested functions and lambdas excluded.
fn annotations(function: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    if let Some(params) = function.child_by_field_name("parameters") {
        let mut cursor = params.walk();
        for p in params.named_children(&mut cursor) {
            if let Some(t) = p.child_by_field_name("type") {
                out.extend(t.named_child(0));
            }
        }
    }
    if let Some(t) = function.child_by_field_name("return_type") {
        out.extend(t.named_child(0));
    }
    out
}

/// Whether the annotation is a generic type (`List[int]`, `dict[str, int]`, `int | None`):
/// worth a name, unlike a bare `int`.
fn generic(annotation: Node<'_>) -> bool {
    matches!(
        annotation.kind(),
        "generic_type" | "subscript" | "binary_operator"
    ) || annotation.kind() == "union_type"
}

/// Whether every name the annotation reads is a builtin or a module-level import bound once,
/// before `before` (so the alias evaluated there has the annotation's value).
fn stable(parsed: &Parsed, info: &ScopeInfo, annotation: Node<'_>, before: usize) -> bool {
    let nodes = descendants(annotation);
    if nodes.iter().any(|n| {
        matches!(
            n.kind(),
            "string" | "call" | "lambda" | "await" | "named_expression" | "ERROR"
        )
    }) {
        return false;
    }
    let range = annotation.byte_range();
    let names: Vec<Node<'_>> = nodes
        .into_iter()
        .filter(|n| n.kind() == "identifier")
        // An attribute's name (`typing.List`'s `List`) is not a variable.
        .filter(|n| {
            n.parent().is_none_or(|p| {
                p.kind() != "attribute"
                    || p.child_by_field_name("attribute").map(|a| a.id()) != Some(n.id())
            })
        })
        .collect();
    !names.is_empty()
        && names.iter().all(|n| {
            let Some(i) = info.occurrence_at(&n.byte_range()) else {
                return false;
            };
            if !range.contains(&info.occurrences[i].range.start) {
                return false;
            }
            match &info.resolutions[i] {
                Resolution::Builtin => true,
                // A module name bound by exactly one import, before `before`, and only read.
                Resolution::Binding(key) => {
                    let mut imports = 0;
                    key.0 == 0
                        && info.occurrences_of(key).iter().all(|&o| {
                            let occ = &info.occurrences[o];
                            match occ.role {
                                Role::Bind(BindKind::Import) => {
                                    imports += 1;
                                    occ.range.end <= before
                                }
                                Role::Load => true,
                                _ => false,
                            }
                        })
                        && imports == 1
                }
            }
        })
        && parsed.text(annotation).lines().count() == 1
}

/// A fresh capitalised name for a type alias (`Harbor`, `TicketHarbor`).
fn type_name(fresh: &mut FreshNames, rng: &mut Rng) -> String {
    for _ in 0..32 {
        let word = fresh.fresh(rng, None);
        let camel: String = word
            .split('_')
            .map(|w| {
                let mut cs = w.chars();
                cs.next()
                    .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                    .unwrap_or_default()
            })
            .collect();
        if !fresh.is_taken(&camel) {
            return fresh.fresh(rng, Some(&camel));
        }
    }
    // Every capitalised form drawn was taken: any fresh name will do.
    fresh.fresh(rng, Some("TypeAlias"))
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_unstable_and_deferred_annotations() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Deferred annotations keep their text.
                "from __future__ import annotations\nfrom typing import List\ndef f(x: List[int]) -> List[int]:\n    return x\n",
                // Bare names and strings are not generic.
                "def f(x: int) -> 'List[int]':\n    return x\n",
                // A name bound after the function, or bound twice.
                "def f(x: List[int]):\n    return x\nfrom typing import List\n",
                "from typing import List\nList = list\ndef f(x: List[int]):\n    return x\n",
                // Methods, and modules that list their names.
                "from typing import List\nclass A:\n    def f(self, x: List[int]):\n        return x\n",
                "from typing import List\ndef f(x: List[int]):\n    return globals()\n",
                // A call in the annotation would run twice.
                "def f(x: make()[int]):\n    return x\n",
            ],
            16,
        );
    }

    #[test]
    fn annotations_compare_equal() {
        let src = "from typing import Dict, List, Optional\n\n@staticmethod\ndef g(a: Dict[str, List[int]], b: Optional[int] = None) -> Dict[str, List[int]]:\n    return a\n\ndef h(x: list[int] | None) -> tuple[int, ...]:\n    return ()\n";
        let show = "print(g.__func__.__annotations__ == {'a': Dict[str, List[int]], 'b': Optional[int], 'return': Dict[str, List[int]]}, h.__annotations__ == {'x': list[int] | None, 'return': tuple[int, ...]})\n";
        let expected = sdk::testing::run_python(&format!("{src}{show}")).1;
        assert!(expected.starts_with("True True"), "{expected}");
        let mut changed = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                changed += 1;
                assert_eq!(
                    sdk::testing::run_python(&format!("{out}{show}")).1,
                    expected,
                    "{out}"
                );
            }
        }
        assert!(changed > 0);
    }
}
