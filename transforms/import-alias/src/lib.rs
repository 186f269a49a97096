//! # import-alias
//!
//! ## What it does
//! Changes how the program names what it imports, choosing one of two moves per import:
//! - **alias**: an imported module or name gets a fresh name from another domain, and the
//!   program reads it through that name (`from typing import List` → `from typing import List
//!   as Harbor`, `List[int]` → `Harbor[int]`; `import re` → `import re as ledger`);
//! - **qualify**: a `from` import of a standard-library module becomes an import of the module,
//!   and each use reads the attribute (`from math import floor, ceil` → `import math as
//!   voltage`, `floor(x)` → `voltage.floor(x)`).
//!
//! ## Why it preserves semantics
//! An import binds a name to an object; `import m as a` binds `a` to the very object `import m`
//! binds to `m`, and `from m import x` binds `x` to the object `m.x` is at that moment. Every
//! occurrence of the binding is found with Python's scoping rules (`sdk::scope`, as
//! `var-rename` does) and reads the new name, which appears nowhere else in the program, so it
//! captures nothing and nothing captures it. Values read through the new name are the same
//! objects, so annotations (`__annotations__`), identity tests and calls see no difference.
//! At module level the original names stay bound to the same objects (`List = Harbor`), since
//! test code appended to the program, or a module importing it, may read them. **qualify**
//! reads `m.x` when the code runs instead of once at import: only done for standard-library
//! modules whose attributes programs do not rebind (`math`, `itertools`, `collections`…),
//! never `sys` or `os`, whose attributes (`sys.stdin`) test harnesses swap, and never when the
//! program assigns to an attribute of the module.
//!
//! ## Example
//! ```python
//! from math import floor
//!
//! def half(n):
//!     return floor(n / 2)
//! ```
//! becomes (qualify)
//! ```python
//! import math as voltage
//! floor = voltage.floor
//!
//! def half(n):
//!     return voltage.floor(n / 2)
//! ```
//!
//! ## Not applied when
//! - the name is bound anywhere else too (assigned, deleted, declared `global`/`nonlocal`, a
//!   second import), or used in a self-documenting f-string field (`f"{m=}"`);
//! - the import is dotted without an alias (`import os.path` binds `os`), relative, a
//!   `__future__` import or a star import, or sits in a class body (its names are attributes);
//! - its scope (or a nested one) reaches names through strings or frames (`eval`, `globals()`,
//!   `vars()`, `inspect`), or the program star-imports or has a `match` statement;
//! - the statement shares its line with another statement (a module-level alias needs a line
//!   of its own after it);
//! - **qualify** only: the module is not one of the listed standard-library modules, or the
//!   program assigns to one of its attributes (`math.pi = 3`).

use sdk::names::FreshNames;
use sdk::parse::{children, named_children, Parsed};
use sdk::scope::{BindKind, Role, ScopeInfo, ScopeKind};
use sdk::text::{ends_line, line_end, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "import-alias",
    description: "Alias imported modules and names, or read `from` imports as module attributes",
    category: "naming",
    rewrite: rewrite,
);

/// Standard-library modules whose attributes are functions, classes and constants that programs
/// do not rebind, so reading `m.x` when the code runs gives what `from m import x` bound.
const QUALIFIABLE: &[&str] = &[
    "bisect",
    "cmath",
    "collections",
    "copy",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "math",
    "operator",
    "re",
    "statistics",
    "string",
    "typing",
];

/// One imported name of an import statement.
struct Item<'t> {
    /// The `dotted_name` or `aliased_import` node.
    node: Node<'t>,
    /// The name imported from the module (`x` of `from m import x as y`), or the module.
    imported: String,
    /// The occurrence that binds the name in the program.
    binding: usize,
    /// Every occurrence of that binding (the binding included).
    occurrences: Vec<usize>,
}

/// An import statement this transform may rewrite.
struct Site<'t> {
    statement: Node<'t>,
    items: Vec<Item<'t>>,
    /// The scope the names are bound in.
    scope: usize,
    /// `from MODULE import …`: the module (single identifier), when it is qualifiable.
    qualify_from: Option<String>,
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.has_match || info.has_star_import {
        return edits;
    }
    let src = parsed.source.as_str();
    let assigned_modules = assigned_attribute_objects(parsed);
    let sites: Vec<Site<'_>> = parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "import_statement" | "import_from_statement"))
        .filter(|n| starts_line(src, n.start_byte()) && ends_line(src, n.end_byte()))
        .filter_map(|n| site(parsed, &info, n, &assigned_modules))
        .collect();
    let mut fresh = FreshNames::new(parsed).foreign();
    for i in rng.sites(sites.len(), 0.5) {
        let site = &sites[i];
        let module_level = info.scopes[site.scope].kind == ScopeKind::Module;
        match &site.qualify_from {
            Some(module) if rng.chance(0.5) => qualify(
                parsed,
                &info,
                site,
                module,
                module_level,
                &mut fresh,
                rng,
                &mut edits,
            ),
            _ => alias(
                parsed,
                &info,
                site,
                module_level,
                &mut fresh,
                rng,
                &mut edits,
            ),
        }
    }
    edits
}

/// The names of objects whose attributes the program assigns or deletes (`math.pi = 3`).
fn assigned_attribute_objects(parsed: &Parsed) -> Vec<String> {
    parsed
        .nodes()
        .into_iter()
        .filter(|n| n.kind() == "attribute")
        .filter(|n| {
            n.parent().is_some_and(|p| {
                matches!(p.kind(), "assignment" | "augmented_assignment")
                    && p.child_by_field_name("left").map(|l| l.id()) == Some(n.id())
                    || p.kind() == "delete_statement"
            })
        })
        .filter_map(|n| n.child_by_field_name("object"))
        .map(|o| parsed.text(o).to_string())
        .collect()
}

/// The statement as a [`Site`], when every name it binds may be renamed.
fn site<'t>(
    parsed: &'t Parsed,
    info: &ScopeInfo,
    statement: Node<'t>,
    assigned_modules: &[String],
) -> Option<Site<'t>> {
    let mut cursor = statement.walk();
    let names: Vec<Node<'t>> = statement
        .children_by_field_name("name", &mut cursor)
        .collect();
    if names.is_empty()
        || children(statement)
            .iter()
            .any(|c| c.kind() == "wildcard_import")
    {
        return None;
    }
    let from = statement.kind() == "import_from_statement";
    let module = match statement.child_by_field_name("module_name") {
        Some(m) if m.kind() == "dotted_name" => Some(parsed.text(m).to_string()),
        Some(_) => return None, // relative import
        None => None,
    };
    let bindings = info.bindings();
    let mut items = Vec::new();
    let mut scope = None;
    for n in names {
        let (imported, ident) = match n.kind() {
            "aliased_import" => (
                parsed.text(n.child_by_field_name("name")?).to_string(),
                n.child_by_field_name("alias")?,
            ),
            // `import a.b` binds `a` to a different object than `import a.b as x` would.
            "dotted_name" if named_children(n).len() == 1 => (parsed.text(n).to_string(), n),
            _ => return None,
        };
        let binding = info.occurrence_at(&ident.byte_range())?;
        let key = info.binding_of(binding)?.clone();
        let occurrences = bindings.get(&key)?.clone();
        if !renameable(info, &key, &occurrences) {
            return None;
        }
        if scope.is_some_and(|s| s != key.0) {
            return None;
        }
        scope = Some(key.0);
        items.push(Item {
            node: n,
            imported,
            binding,
            occurrences,
        });
    }
    let qualify_from = module
        .filter(|m| from && QUALIFIABLE.contains(&m.as_str()))
        .filter(|m| !assigned_modules.iter().any(|a| a == m));
    Some(Site {
        statement,
        items,
        scope: scope?,
        qualify_from,
    })
}

/// Whether the binding `key` may get a new name: bound only by this import, read only as a
/// plain name, in a scope whose names are not reached through strings.
fn renameable(info: &ScopeInfo, key: &(usize, String), occurrences: &[usize]) -> bool {
    let (scope, name) = key;
    if name.starts_with("__") || info.ambiguous.contains(key) {
        return false;
    }
    let scope_ok = match info.scopes[*scope].kind {
        ScopeKind::Class => false,
        ScopeKind::Module => !info.any_dynamic(),
        _ => !info.dynamic_within(*scope),
    };
    let mut imports = 0;
    for &o in occurrences {
        let occ = &info.occurrences[o];
        if occ.in_debug_fstring {
            return false;
        }
        match occ.role {
            Role::Bind(BindKind::Import) => imports += 1,
            Role::Load => {}
            _ => return false,
        }
    }
    scope_ok && imports == 1
}

/// The uses (every occurrence but the binding) of `item`.
fn uses<'a>(item: &'a Item<'_>) -> impl Iterator<Item = usize> + 'a {
    item.occurrences
        .iter()
        .copied()
        .filter(move |&o| o != item.binding)
}

/// Text inserted after the statement: `lines` on their own lines at its indentation.
fn after_statement(parsed: &Parsed, statement: Node<'_>, lines: &[String]) -> (usize, String) {
    let src = parsed.source.as_str();
    let indent = line_indent(src, statement.start_byte());
    // The end of the statement's line, before its line break (after a trailing comment).
    let end = line_end(src, statement.end_byte());
    let end = end
        - [&"\r\n", &"\n"]
            .into_iter()
            .find(|nl| src[..end].ends_with(**nl))
            .map_or(0, |nl| nl.len());
    let newline = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let text: String = lines
        .iter()
        .map(|l| format!("{newline}{indent}{l}"))
        .collect();
    (end, text)
}

/// **alias**: each name of the statement imported under a fresh name, read through it.
fn alias(
    parsed: &Parsed,
    info: &ScopeInfo,
    site: &Site<'_>,
    module_level: bool,
    fresh: &mut FreshNames,
    rng: &mut Rng,
    edits: &mut Edits,
) {
    let mut keep = Vec::new();
    for item in &site.items {
        let name = fresh.fresh(rng, None);
        let old = info.occurrences[item.binding].name.clone();
        edits.replace(
            item.node.byte_range(),
            format!("{} as {name}", item.imported),
        );
        for o in uses(item) {
            edits.replace(info.occurrences[o].range.clone(), name.clone());
        }
        keep.push(format!("{old} = {name}"));
    }
    if module_level {
        let (at, text) = after_statement(parsed, site.statement, &keep);
        edits.insert(at, text);
    }
}

/// **qualify**: `from m import x, y` as `import m as fresh`, each use reading `fresh.x`.
#[allow(clippy::too_many_arguments)]
fn qualify(
    parsed: &Parsed,
    info: &ScopeInfo,
    site: &Site<'_>,
    module: &str,
    module_level: bool,
    fresh: &mut FreshNames,
    rng: &mut Rng,
    edits: &mut Edits,
) {
    let name = fresh.fresh(rng, None);
    let mut keep = Vec::new();
    for item in &site.items {
        let attribute = format!("{name}.{}", item.imported);
        for o in uses(item) {
            edits.replace(info.occurrences[o].range.clone(), attribute.clone());
        }
        keep.push(format!(
            "{} = {attribute}",
            info.occurrences[item.binding].name
        ));
    }
    edits.replace(
        site.statement.byte_range(),
        format!("import {module} as {name}"),
    );
    if module_level {
        let (at, text) = after_statement(parsed, site.statement, &keep);
        edits.insert(at, text);
    }
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_traps() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Rebound, deleted, or declared global elsewhere.
                "import math\nmath = 3\n",
                "def f():\n    import re\n    del re\n",
                "def f():\n    from math import floor\n    floor = int\n    return floor(2.5)\n",
                // Dotted, relative, future and star imports; class bodies.
                "import os.path\nprint(os.path.sep)\n",
                "from . import sibling\n",
                "from __future__ import annotations\n",
                "from math import *\nprint(floor(2.5))\n",
                "class A:\n    import math\n",
                // Names reached through strings.
                "import math\nprint(globals()['math'].pi)\n",
                "def f():\n    import math\n    return eval('math.pi')\n",
                // A self-documenting f-string field prints the name.
                "def f():\n    import math\n    return f'{math=}'\n",
                // Shares its line.
                "import math; print(math.pi)\n",
            ],
            16,
        );
    }

    #[test]
    fn qualify_only_for_listed_modules_whose_attributes_stay() {
        // `sys.stdin` may be swapped by a harness after import: never read as an attribute.
        let sys = "from sys import stdin\n\ndef f():\n    return stdin.readline()\n";
        // The program patches the module: `from` and attribute reads would differ.
        let patched = "from math import pi\nimport math\nmath.pi = 3\n\ndef f():\n    return pi\n";
        for seed in 0..24 {
            for src in [sys, patched] {
                if let Ok(Some(out)) = apply(src, seed) {
                    assert!(!out.contains(".stdin") && !out.contains(".pi\n"), "{out}");
                }
            }
        }
        let ok = "from math import floor, ceil\n\ndef f(x):\n    return floor(x) + ceil(x)\n\nprint(f(2.5), floor(1.5))\n";
        let expected = sdk::testing::run_python(ok).1;
        let mut qualified = false;
        for seed in 0..24 {
            if let Ok(Some(out)) = apply(ok, seed) {
                qualified |= out.contains("import math as ");
                assert_eq!(sdk::testing::run_python(&out).1, expected, "{out}");
            }
        }
        assert!(qualified, "some seed qualifies the math import");
    }

    #[test]
    fn module_names_stay_bound_and_annotations_equal() {
        let src = "from typing import List\n\ndef f(xs: List[int]) -> List[int]:\n    return xs\n";
        let show = "print(List, f.__annotations__ == {'xs': List[int], 'return': List[int]})\n";
        let expected = sdk::testing::run_python(&format!("{src}{show}")).1;
        let mut changed = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                changed += 1;
                assert!(!out.contains("xs: List"), "{out}");
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
