//! ## What it does
//! Renames local variables and parameters of C++ functions (and lambdas) to fresh names drawn
//! from the identifiers of programs in other domains (`forest`, `player`), resolving every
//! use to its declaration with C++'s block scopes. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! A local name is visible from its point of declaration (just after its declarator) to the
//! end of the block, loop, condition or function that declares it, and an inner declaration
//! of the same name hides it. Each use is resolved to the innermost declaration whose scope
//! holds it, so shadowing (`int i` in two sibling loops, a block that redeclares `x`) and a
//! global used before a same-named local is declared keep their meaning. A fresh name is a
//! word of no kind in the program and no keyword or common `std` name, so it hides nothing
//! (`using namespace std` included). A name tree-sitter reads as a type in an ambiguous
//! declaration (`vector<int> v(n);`, parsed as a function declaration) is a use of the
//! variable when one is in scope, as it is to the compiler. The traps are the preprocessor
//! and qualified names: a
//! macro body names variables by their spelling, so a name that occurs in any directive is
//! never renamed, and `::x` or `S::x` always means a namespace or class member, never a
//! local. Tags live apart from variables: in `struct node *node;` only the variable is
//! renamed, never the `node` of `struct node`.
//!
//! ## Example
//! ```cpp
//! int sum(vector<int>& v) { int s = 0; for (int x : v) s += x; return s; }
//! ```
//! becomes
//! ```cpp
//! int sum(vector<int>& harbor) { int lantern = 0; for (int x : harbor) lantern += x; return lantern; }
//! ```
//!
//! ## Not applied when
//! - the name occurs in a preprocessor directive (a macro body, `#if`), or in the arguments
//!   of a macro that stringifies or pastes them (`#v`, `a##v`), or the function lies in code
//!   a preprocessor conditional guards;
//! - the declaration is `extern` (it names a global, not a new local);
//! - the declaration is of a function, or in a class body (members are not locals), or the
//!   function is a template (a dependent name could be resolved at instantiation).

use sdk::cpp::{fresh_names, in_conditional, CppParsed};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-local-rename",
    description: "Renames C++ local variables and parameters to fresh names, scope-aware",
    category: "naming",
    languages: "cpp c",
    rewrite: rewrite,
}

/// Node kinds whose extent is the scope of the names declared directly in them.
const SCOPES: &[&str] = &[
    "compound_statement",
    "for_statement",
    "for_range_loop",
    "if_statement",
    "while_statement",
    "switch_statement",
    "catch_clause",
    "lambda_expression",
    "function_definition",
];

/// One local declaration: its declarator identifier and the bytes where it is visible.
struct Local<'t> {
    id: Node<'t>,
    visible: std::ops::Range<usize>,
    /// A block-scope `extern int g;`: it names the global `g` (a link-time name), so it and
    /// its uses keep their spelling, but it hides outer locals like any declaration.
    fixed: bool,
}

/// The identifier a declarator declares (`x` in `x`, `x = 1`, `*x`, `&x`, `x[3]`); `None`
/// for a function declarator or anything else.
fn declared(d: Node<'_>) -> Option<Node<'_>> {
    match d.kind() {
        "identifier" => Some(d),
        "init_declarator" | "pointer_declarator" | "reference_declarator" | "array_declarator" => d
            .child_by_field_name("declarator")
            .or_else(|| {
                let last = d.named_child_count().saturating_sub(1);
                u32::try_from(last).ok().and_then(|i| d.named_child(i))
            })
            .and_then(declared),
        _ => None,
    }
}

/// Whether `n` is the tag of `struct n`, `union n` or `enum n`: tags have a namespace of
/// their own (`struct node *node;` declares a variable `node` of type `struct node`).
fn is_tag(n: Node<'_>) -> bool {
    n.parent().is_some_and(|x| {
        matches!(
            x.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        ) && x
            .child_by_field_name("name")
            .is_some_and(|m| m.id() == n.id())
    })
}

/// Whether a declaration says `extern`.
fn is_extern(decl: Node<'_>) -> bool {
    let mut c = decl.walk();
    let found = decl.named_children(&mut c).any(|k| {
        k.kind() == "storage_class_specifier" && k.child(0).is_some_and(|t| t.kind() == "extern")
    });
    found
}

/// The innermost scope node of `n` (exclusive) within the function `f`.
fn scope_of<'t>(n: Node<'t>, f: Node<'t>) -> Node<'t> {
    let mut cur = n.parent();
    while let Some(x) = cur {
        if x.id() == f.id() || SCOPES.contains(&x.kind()) {
            return x;
        }
        cur = x.parent();
    }
    f
}

/// The local declarations of function `f`: parameters (its own and its lambdas'),
/// declarations in its body, range-`for` variables, structured bindings and caught
/// exceptions.
fn locals<'t>(f: Node<'t>) -> Vec<Local<'t>> {
    let mut out = Vec::new();
    let mut add = |id: Node<'t>, scope: Node<'t>, fixed: bool| {
        out.push(Local {
            id,
            visible: id.start_byte()..scope.end_byte(),
            fixed,
        });
    };
    for n in descendants(f) {
        match n.kind() {
            "parameter_declaration" | "optional_parameter_declaration" => {
                // A parameter is visible in its function's (or lambda's) body.
                let owner = n.parent().and_then(|list| list.parent()).and_then(|decl| {
                    let mut cur = Some(decl);
                    while let Some(x) = cur {
                        if matches!(x.kind(), "function_definition" | "lambda_expression") {
                            return Some(x);
                        }
                        if matches!(x.kind(), "parameter_list" | "compound_statement") {
                            return None;
                        }
                        cur = x.parent();
                    }
                    None
                });
                let (Some(owner), Some(d)) = (owner, n.child_by_field_name("declarator")) else {
                    continue;
                };
                if let Some(id) = declared(d) {
                    add(id, owner, false);
                }
            }
            "declaration" => {
                let fixed = is_extern(n);
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if let Some(id) = declared(d) {
                        add(id, scope_of(n, f), fixed);
                    }
                }
            }
            "for_range_loop" => {
                if let Some(d) = n.child_by_field_name("declarator") {
                    if d.kind() == "structured_binding_declarator" {
                        let mut c = d.walk();
                        for id in d
                            .named_children(&mut c)
                            .filter(|x| x.kind() == "identifier")
                        {
                            add(id, n, false);
                        }
                    } else if let Some(id) = declared(d) {
                        add(id, n, false);
                    }
                }
            }
            "structured_binding_declarator"
                if n.parent().is_some_and(|p| p.kind() != "for_range_loop") =>
            {
                let decl = n.parent().and_then(|p| {
                    if p.kind() == "init_declarator" {
                        p.parent()
                    } else {
                        Some(p)
                    }
                });
                let Some(decl) = decl else { continue };
                let mut c = n.walk();
                for id in n
                    .named_children(&mut c)
                    .filter(|x| x.kind() == "identifier")
                {
                    add(id, scope_of(decl, f), false);
                }
            }
            _ => {}
        }
    }
    out
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let blocked = p.blocked_words();
    let spelling = sdk::cpp::spelling_macros(p);
    // Each site: a declaration and every identifier resolved to it.
    let mut sites: Vec<Vec<std::ops::Range<usize>>> = Vec::new();
    for f in p.nodes_of_kind("function_definition") {
        let nested = f
            .parent()
            .is_some_and(|x| matches!(x.kind(), "template_declaration" | "field_declaration_list"))
            || in_conditional(f);
        if nested {
            continue;
        }
        let locals = locals(f);
        if locals.is_empty() {
            continue;
        }
        let mut uses: Vec<Vec<std::ops::Range<usize>>> =
            locals.iter().map(|l| vec![l.id.byte_range()]).collect();
        let declarators: BTreeSet<usize> = locals.iter().map(|l| l.id.id()).collect();
        let mut in_macro_args = vec![false; locals.len()];
        for n in descendants(f) {
            // A type name that a local variable in scope spells is tree-sitter's reading of
            // an ambiguous declaration (`vector<int> v(n);` as a function taking a type `n`),
            // which C++ reads as the variable: it is resolved like any other use.
            let name_like = matches!(n.kind(), "identifier" | "type_identifier");
            if !name_like || declarators.contains(&n.id()) || is_tag(n) {
                continue;
            }
            if n.parent()
                .is_some_and(|x| x.kind() == "qualified_identifier")
            {
                continue;
            }
            let name = p.text(n);
            let at = n.start_byte();
            // The innermost declaration of this name whose scope holds the use.
            let owner = locals
                .iter()
                .enumerate()
                .filter(|(_, l)| p.text(l.id) == name && l.visible.contains(&at))
                .min_by_key(|(_, l)| l.visible.end - l.visible.start);
            if let Some((k, _)) = owner {
                uses[k].push(n.byte_range());
                in_macro_args[k] |= sdk::cpp::in_call_to(p, &spelling, n);
            }
        }
        for ((l, ranges), in_args) in locals.iter().zip(uses).zip(in_macro_args) {
            if !blocked.contains(p.text(l.id)) && !in_args && !l.fixed {
                sites.push(ranges);
            }
        }
    }
    let mut fresh = fresh_names(p).foreign();
    for i in rng.sites(sites.len(), 0.5) {
        let name = fresh.fresh(rng, None);
        if sites[i].iter().any(|r| edits.overlaps(r)) {
            continue;
        }
        for r in &sites[i] {
            edits.replace(r.clone(), name.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn tags_externs_and_stringified_names_are_kept() {
        let src = "#include <stdio.h>\n#define SHOW(v) printf(\"%s=%d\\n\", #v, (v))\nint g = 1;\nstruct node { int v; };\nint main(void) { struct node *node = 0; struct node other = {2}; int shown = 3; SHOW(shown); int g = 5; { extern int g; g++; } node = &other; return node->v + g; }\n";
        let mut renamed = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                renamed += 1;
                assert_eq!(
                    out.matches("struct node ").count(),
                    3,
                    "seed {seed}:\n{out}"
                );
                for kept in ["SHOW(shown)", "extern int g; g++;"] {
                    assert!(out.contains(kept), "seed {seed}: {kept} changed:\n{out}");
                }
            }
        }
        assert!(
            renamed > 0,
            "the node variable and the local g are renamed by some seed"
        );
    }

    #[test]
    fn names_in_macros_and_qualified_names_are_kept() {
        let src = "#include <cstdio>\nint x = 7;\n#define SHOW() printf(\"%d\\n\", total)\nint main() { int total = 3; int x = ::x + 1; SHOW(); printf(\"%d\\n\", x); return 0; }\n";
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(
                    out.contains("int total = 3"),
                    "seed {seed}: macro's name renamed:\n{out}"
                );
                assert!(
                    out.contains("::x + 1"),
                    "seed {seed}: qualified name renamed:\n{out}"
                );
            }
        }
    }
}
