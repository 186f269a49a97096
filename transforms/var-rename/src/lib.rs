//! # var-rename
//!
//! ## What it does
//! Renames a random non-empty subset of the program's variables (function locals, parameters of
//! nested functions and lambdas, comprehension variables, and module-level variables of
//! stdin/stdout scripts) to fresh names drawn from the identifiers of programs in other
//! domains (`voltage`, `envelope`, `ticket_harbor`): names a programmer could have chosen that
//! say nothing about what this program does (one step moves a detector more than the code
//! words `total` or `count` do; see `sdk::names::FreshNames::foreign`).
//!
//! ## Why it preserves semantics
//! Every occurrence is resolved with Python's scoping rules (see `sdk::scope`): a binding is
//! renamed together with exactly the loads, `global`/`nonlocal` declarations and closure uses
//! that refer to it, across nested functions, lambdas and comprehensions, skipping class bodies
//! as Python does. The new name appears nowhere in the program text (not even inside strings),
//! is no keyword and no builtin, so it can neither capture nor be captured. Attribute names,
//! keyword-argument names, import paths and builtins are never variables and are left alone.
//!
//! ## Example
//! ```python
//! def mean(xs):
//!     total = 0
//!     for x in xs:
//!         total += x
//!     return total / len(xs)
//! ```
//! becomes (seed 1)
//! ```python
//! def mean(xs):
//!     voltage = 0
//!     for envelope in xs:
//!         voltage += envelope
//!     return voltage / len(xs)
//! ```
//!
//! ## Not applied when
//! - the name is a class attribute, a `def`/`class` name or an import (they are part of the
//!   program's interface: `__name__`, attribute access, test code calls them);
//! - the name is a parameter callers can pass by keyword, unless the function is nested (or a
//!   lambda), no call in the program passes that keyword and no call unpacks `**kwargs`;
//! - the name lives at module level and the program is not a stdin/stdout script, or the
//!   program star-imports (appended test code or imported names could refer to it);
//! - its scope (or a nested one) uses `eval`, `exec`, `locals`, `vars`, `globals`, `dir` or
//!   frames, which reach variables through strings; or the program anywhere reaches frames,
//!   code objects or signatures (`sys._getframe(1).f_locals`, `f.__code__.co_varnames`,
//!   `inspect.signature`, `import inspect`), which can observe any scope's names;
//! - a class body reads the name before (or without always) binding it in the class: Python
//!   then reads the module's binding, so the module's name is left alone too;
//! - the name appears in a self-documenting f-string field (`f"{x=}"` prints the name);
//! - the name starts with `__` (dunder or class-private mangling);
//! - the program has a `match` statement (capture patterns are not analysed).

use sdk::names::FreshNames;
use sdk::scope::{BindKind, Role, ScopeInfo, ScopeKind};
use sdk::{Edits, Parsed, Rng};

sdk::declare_transform!(
    name: "var-rename",
    description: "Rename variables to fresh plausible names, scope-aware",
    category: "naming",
    rewrite: rewrite,
);

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.has_match {
        return edits;
    }
    let script = sdk::pyast::reads_stdin(parsed, &info);
    let candidates: Vec<(String, Vec<usize>)> = info
        .bindings()
        .into_iter()
        .filter(|(key, occs)| renameable(&info, key, occs, script))
        .map(|((_, name), occs)| (name, occs))
        .collect();
    if candidates.is_empty() {
        return edits;
    }
    let mut fresh = FreshNames::new(parsed).foreign();
    for i in rng.sites(candidates.len(), 0.5) {
        let (_, occs) = &candidates[i];
        let new_name = fresh.fresh(rng, None);
        for &o in occs {
            edits.replace(info.occurrences[o].range.clone(), new_name.clone());
        }
    }
    edits
}

fn renameable(info: &ScopeInfo, key: &(usize, String), occs: &[usize], script: bool) -> bool {
    let (scope, name) = key;
    if name.starts_with("__") || name == "_" || name == "self" || name == "cls" {
        return false;
    }
    if info.ambiguous.contains(key) {
        return false;
    }
    let kind = info.scopes[*scope].kind;
    let scope_ok = match kind {
        ScopeKind::Class => false,
        ScopeKind::Module => script && !info.any_dynamic() && !info.has_star_import,
        _ => !info.dynamic_within(*scope),
    };
    if !scope_ok {
        return false;
    }
    let nested = matches!(kind, ScopeKind::Lambda)
        || info.scopes[*scope].parent.is_some_and(|p| {
            matches!(info.scopes[p].kind, ScopeKind::Function | ScopeKind::Lambda)
        });
    let mut has_binding = false;
    for &o in occs {
        let occ = &info.occurrences[o];
        if occ.in_debug_fstring {
            return false;
        }
        match occ.role {
            Role::Bind(
                BindKind::Assign
                | BindKind::Comprehension
                | BindKind::Param {
                    keyword_visible: false,
                },
            ) => has_binding = true,
            Role::Bind(BindKind::Param {
                keyword_visible: true,
            }) => {
                if !nested || info.has_kwargs_splat || info.keyword_argument_names.contains(name) {
                    return false;
                }
                has_binding = true;
            }
            Role::Bind(BindKind::Import | BindKind::Def | BindKind::Class) => return false,
            Role::Load | Role::DeclareGlobal | Role::DeclareNonlocal => {}
        }
    }
    has_binding
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn renames_closure_uses_and_nonlocal_together() {
        let src = "def outer():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    inc()\n    return n\n";
        // Find a seed that renames `n`; every occurrence must change together.
        let out = (0..32)
            .filter_map(|s| apply(src, s).ok().flatten())
            .find(|o| !o.contains(" n ") && !o.contains("nonlocal n"))
            .expect("some seed renames n");
        assert!(!out.contains("return n\n"), "{out}");
        assert_eq!(
            sdk::testing::run_python(&format!("{src}print(outer())")).1,
            sdk::testing::run_python(&format!("{out}print(outer())")).1
        );
    }

    #[test]
    fn leaves_attributes_keywords_builtins_and_api_alone() {
        let src = "def f(a, b=2):\n    x = len(a)\n    obj = dict(a=x)\n    return obj['a'] + b\n";
        for s in 0..16 {
            if let Ok(Some(out)) = apply(src, s) {
                assert!(
                    out.starts_with("def f(a, b=2):"),
                    "parameters of a top-level function are API: {out}"
                );
                assert!(out.contains("len(") && out.contains("dict(a="), "{out}");
            }
        }
    }

    #[test]
    fn declines_dynamic_scopes_and_debug_fstrings() {
        assert_eq!(
            apply("def f():\n    x = 1\n    return eval('x')\n", 1),
            Ok(None)
        );
        assert_eq!(
            apply("def f():\n    x = 1\n    print(f'{x=}')\n", 1),
            Ok(None)
        );
        assert_eq!(
            apply("x = 1\nprint(x)\n", 1),
            Ok(None),
            "module names of non-scripts are kept"
        );
    }
}
