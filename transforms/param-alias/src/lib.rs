//! # param-alias
//!
//! ## What it does
//! Gives parameters a second, local name: the function's first statement (after its
//! docstring) binds fresh names from other domains' words to one or more parameters, and
//! every later use in the body reads the new name. The signature keeps its names, so callers
//! that pass arguments by keyword are unaffected; `var-rename` cannot rename such parameters.
//!
//! ## Why it preserves semantics
//! The new statement only copies references (`ledger = numbers`): no value is created, copied
//! or evaluated, and it runs before anything else in the body, so from then on the new name
//! holds exactly what the parameter would. Every occurrence of the parameter inside the body
//! is resolved with Python's scoping rules (`sdk::scope`) and renamed with it: loads, stores
//! (a rebinding then rebinds the alias, which is all the body reads), `del`, and uses from
//! nested functions, lambdas and comprehensions, including their `nonlocal` declarations. The
//! new name appears nowhere in the program, not even inside strings, and is no keyword or
//! builtin, so nothing can capture it. Default values and annotations are evaluated outside
//! the body and never see the alias.
//!
//! ## Example
//! ```python
//! def below_zero(operations: list[int]) -> bool:
//!     """Whether the balance ever falls below zero."""
//!     balance = 0
//!     for op in operations:
//!         balance += op
//!         if balance < 0:
//!             return True
//!     return False
//! ```
//! becomes
//! ```python
//! def below_zero(operations: list[int]) -> bool:
//!     """Whether the balance ever falls below zero."""
//!     harbor = operations
//!     balance = 0
//!     for op in harbor:
//!         balance += op
//!         if balance < 0:
//!             return True
//!     return False
//! ```
//!
//! ## Not applied when
//! - the function's body shares the `def` line, or its first statement after the docstring
//!   shares a line with another statement or continues a line;
//! - the parameter is `self`, `cls`, `_` or starts with `__`, is never used in the body, or is
//!   used in a self-documenting f-string field (`f"{x=}"` prints the name);
//! - it belongs to a method and the body rebinds it (zero-argument `super()` reads the first
//!   parameter's own slot);
//! - the function (or a scope nested in it) uses `eval`, `exec`, `locals`, `vars`, `dir` or
//!   frames, or the program anywhere reaches frames, code objects or signatures
//!   (`f.__code__.co_varnames`, `inspect`), which can observe a function's local names;
//! - the program has a `match` statement (capture patterns are not analysed).

use sdk::effects::{is_docstring, statements};
use sdk::names::FreshNames;
use sdk::scope::{BindKind, BindingKey, Role, ScopeInfo, ScopeKind};
use sdk::text::{continues_previous_line, line_indent, line_start, starts_line};
use sdk::{Edits, Parsed, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "param-alias",
    description: "Give parameters a local alias from other domains' words; the body uses it",
    category: "naming",
    rewrite: rewrite,
);

/// A function whose body can start with an alias statement, and the parameters it may alias.
struct Site<'t> {
    /// The statement the alias goes before (the first one after the docstring).
    first: Node<'t>,
    /// The parameters, each with the occurrences to rename (every one but the declaration).
    params: Vec<(String, Vec<usize>)>,
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if info.has_match {
        return edits;
    }
    let bindings = info.bindings();
    let sites: Vec<Site<'_>> = parsed
        .nodes_of_kind("function_definition")
        .into_iter()
        .filter_map(|def| site(parsed, &info, &bindings, def))
        .collect();
    let mut fresh = FreshNames::new(parsed).foreign();
    for i in rng.sites(sites.len(), 0.5) {
        let Some(site) = sites.get(i) else {
            continue;
        };
        let chosen = rng.subset(site.params.len(), 0.6);
        let mut names = Vec::new();
        let mut params = Vec::new();
        for k in chosen {
            let Some((param, occs)) = site.params.get(k) else {
                continue;
            };
            let alias = fresh.fresh(rng, None);
            for &o in occs {
                edits.replace(info.occurrences[o].range.clone(), alias.clone());
            }
            names.push(alias);
            params.push(param.clone());
        }
        if names.is_empty() {
            continue;
        }
        let at = site.first.start_byte();
        let indent = line_indent(&parsed.source, at);
        let start = line_start(&parsed.source, at);
        edits.insert(
            start,
            format!("{indent}{} = {}\n", names.join(", "), params.join(", ")),
        );
    }
    edits
}

/// The alias site of `def`, when its body allows one and some parameter qualifies.
fn site<'t>(
    parsed: &'t Parsed,
    info: &ScopeInfo,
    bindings: &std::collections::BTreeMap<BindingKey, Vec<usize>>,
    def: Node<'t>,
) -> Option<Site<'t>> {
    let body = def.child_by_field_name("body")?;
    if body.start_position().row == def.start_position().row {
        return None;
    }
    let stmts: Vec<Node<'t>> = statements(body)
        .into_iter()
        .filter(|s| s.kind() != "comment")
        .collect();
    let first = *stmts.iter().find(|s| !is_docstring(**s))?;
    let src = &parsed.source;
    if !starts_line(src, first.start_byte()) || continues_previous_line(src, first.start_byte()) {
        return None;
    }
    let scope = info.scope_containing(&body.byte_range());
    if scope == 0
        || info.scopes[scope].kind != ScopeKind::Function
        || info.dynamic_within(scope)
        || info.scopes[scope].range != def.byte_range()
    {
        return None;
    }
    // Zero-argument `super()` reads a method's first parameter slot itself, so in a method a
    // parameter the body may rebind (anything but loads of it) keeps its name.
    let method = info.scopes[scope]
        .parent
        .is_some_and(|p| info.scopes[p].kind == ScopeKind::Class);
    let mut params = Vec::new();
    for (key, occs) in bindings.range((scope, String::new())..) {
        if key.0 != scope {
            break;
        }
        if method && !info.is_plain_parameter(key) {
            continue;
        }
        if let Some(uses) = aliasable(info, key, occs) {
            params.push((key.1.clone(), uses));
        }
    }
    (!params.is_empty()).then_some(Site { first, params })
}

/// The occurrences to rename when the binding `key` is a parameter that may be aliased: all
/// but its declaration, of which there must be exactly one, and at least one.
fn aliasable(info: &ScopeInfo, key: &BindingKey, occs: &[usize]) -> Option<Vec<usize>> {
    let name = key.1.as_str();
    if name.starts_with("__") || matches!(name, "_" | "self" | "cls") {
        return None;
    }
    if info.ambiguous.contains(key) {
        return None;
    }
    let mut declarations = 0;
    let mut uses = Vec::new();
    for &o in occs {
        let occ = &info.occurrences[o];
        if occ.in_debug_fstring {
            return None;
        }
        match occ.role {
            Role::Bind(BindKind::Param { .. }) => declarations += 1,
            Role::Bind(BindKind::Import | BindKind::Def | BindKind::Class) => return None,
            _ => uses.push(o),
        }
    }
    (declarations == 1 && !uses.is_empty()).then_some(uses)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn keeps_the_signature_and_declines_introspection() {
        let src = "def f(a, b=2):\n    return a + b\n\nprint(f(b=3, a=1))\n";
        let mut aliased = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                aliased += 1;
                assert!(out.starts_with("def f(a, b=2):\n"), "{out}");
                assert_eq!(
                    sdk::testing::run_python(src).1,
                    sdk::testing::run_python(&out).1,
                    "{out}"
                );
            }
        }
        assert!(aliased > 0, "some seed aliases a parameter");
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(a): return a\n",
                "def f(a):\n    return eval('a')\n",
                "def f(a):\n    print(f'{a=}')\n",
                "import inspect\ndef f(a):\n    return a\n",
                "def f(a):\n    pass\n",
                "def f(self):\n    return self\n",
                "class B:\n    pass\nclass C(B):\n    def m(this):\n        this = 1\n        return super().__init__\n",
            ],
            8,
        );
    }
}
