//! # call-indirection
//!
//! ## What it does
//! Routes calls through an indirection whose lookup is provably the same (Auto-SPT's "dynamic
//! dispatch"):
//! - a method call `obj.name(args)` becomes `getattr(obj, "name")(args)`;
//! - a call of a builtin `len(x)` goes through a module-level alias bound once at the top of the
//!   module: `size_of = len` … `size_of(x)`.
//!
//! ## Why it preserves semantics
//! `getattr(obj, "name")` performs exactly the attribute lookup `obj.name` performs (the same
//! `__getattribute__`/`__getattr__` path, the same bound method), and the object and the
//! arguments are evaluated in the same order. A builtin that the program never rebinds (no
//! assignment, import, `def`, parameter or `global` of that name anywhere) is the same object
//! whether reached through its own name or through an alias bound to it before any code runs.
//!
//! ## Example
//! ```python
//! parts = line.split(",")
//! n = len(parts)
//! ```
//! becomes
//! ```python
//! parts = getattr(line, "split")(",")
//! n = len(parts)
//! ```
//!
//! ## Not applied when
//! - the attribute is private (`obj.__name`: name mangling applies to attributes, not to strings),
//!   or the call is in a self-documenting f-string field;
//! - `getattr` (or the builtin) is rebound anywhere, or the program inspects its namespace or
//!   frames (the alias is a new module name);
//! - for aliases: the builtin is `super` (zero-argument `super()` only works when the compiler
//!   sees that name in the method), or the module has no statement to put the alias before.

use sdk::effects::{is_docstring, statements};
use sdk::names::FreshNames;
use sdk::parse::Parsed;
use sdk::pyast::{binds_anywhere, in_debug_fstring, is_builtin_ref};
use sdk::scope::ScopeInfo;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "call-indirection",
    description: "Call methods through getattr and builtins through a module-level alias",
    category: "expression",
    rewrite: rewrite,
);

/// Where module-level definitions may go: before the first statement that is not a docstring
/// or a `from __future__` import.
fn definitions_point(parsed: &Parsed) -> Option<usize> {
    statements(parsed.root())
        .into_iter()
        .find(|s| !is_docstring(*s) && s.kind() != "future_import_statement")
        .map(|s| s.start_byte())
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let calls: Vec<Node<'_>> = parsed
        .nodes_of_kind("call")
        .into_iter()
        .filter(|c| !in_debug_fstring(parsed, *c))
        .collect();
    let mut sites: Vec<(Node<'_>, bool)> = Vec::new(); // (function node, is_method)
    let getattr_ok = !binds_anywhere(&info, "getattr");
    for c in &calls {
        let Some(f) = c.child_by_field_name("function") else {
            continue;
        };
        match f.kind() {
            "attribute" if getattr_ok => {
                let Some(attr) = f.child_by_field_name("attribute") else {
                    continue;
                };
                let name = parsed.text(attr);
                let private = name.starts_with("__") && !name.ends_with("__");
                if !private && !parsed.text(f).contains('\n') {
                    sites.push((f, true));
                }
            }
            "identifier" if !info.any_dynamic() => {
                let name = parsed.text(f);
                // Zero-argument `super()` needs the compiler to see its name.
                if name != "super"
                    && is_builtin_ref(&info, f)
                    && !binds_anywhere(&info, name)
                    && sdk::names::BUILTINS.contains(&name)
                {
                    sites.push((f, false));
                }
            }
            _ => {}
        }
    }
    let Some(i) = rng.site(sites.len()) else {
        return edits;
    };
    let (f, is_method) = sites[i];
    if is_method {
        let (Some(obj), Some(attr)) = (
            f.child_by_field_name("object"),
            f.child_by_field_name("attribute"),
        ) else {
            return edits;
        };
        edits.replace(
            f.byte_range(),
            format!("getattr({}, \"{}\")", parsed.text(obj), parsed.text(attr)),
        );
    } else {
        let Some(at) = definitions_point(parsed) else {
            return edits;
        };
        let name = parsed.text(f);
        let mut fresh = FreshNames::new(parsed);
        let alias = fresh.fresh(rng, Some(&format!("{name}_fn")));
        edits.insert(at, format!("{alias} = {name}\n"));
        // Every call of that builtin goes through the alias.
        for (g, m) in &sites {
            if !m && parsed.text(*g) == name {
                edits.replace(g.byte_range(), alias.clone());
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
    fn declines_private_attributes_and_rebound_names() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class K:\n    def m(self):\n        return self.__hidden()\n",
                "getattr = None\nx.y()\n",
                "len = lambda v: 0\nprint_it = 1\nlen([1])\n",
                "def f(x):\n    return f\"{x.upper()=}\"\n",
            ],
            8,
        );
    }
}
