//! ## What it does
//! Renames what a C++ program declares beyond its functions' locals: free and member
//! functions (every overload together), global variables, struct and class names and their
//! members, enumerators and namespaces, to fresh names drawn from the identifiers of programs
//! in other domains. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! Every token that spells the name (a use, a declaration, a member access `p.x` or `p->x`, a
//! qualified `ns::f`, a constructor or destructor) is renamed together, and the new name is two
//! words joined, of no kind in the program and no keyword or common `std` name. So each lookup that
//! found the old name finds the new one, overload sets stay the same sets, and no lookup that
//! found something else can find it. Names are only what the program's own tokens mean:
//! names the standard library calls by name (`begin`, `size`, `swap`, `hash`, `first`,
//! `what`…) or that a program also takes from `std` are never renamed, and a program that can
//! print a name (`__func__`, `typeid`) or hands names to C linkage is left alone. A member
//! access of a name that no member of the program spells reaches a library type's member
//! (`ldiv_t`'s `rem` beside a global `rem`), so it keeps its spelling. A struct tag and a
//! variable of the same spelling (`struct account account;`) are renamed together, which
//! keeps each in its own namespace.
//!
//! ## Example
//! ```cpp
//! struct Edge { int to, w; };
//! long long dist(const Edge& e) { return e.w; }
//! ```
//! becomes
//! ```cpp
//! struct Edge { int harbor_quilt, w; };
//! long long lantern_orbit(const Edge& e) { return e.w; }
//! ```
//!
//! ## Not applied when
//! - the name occurs in a preprocessor directive or in code a preprocessor conditional guards
//!   (a macro body names things by their spelling);
//! - the name is reserved (`_X`, `__x`), `main`, a name the library looks up or a common
//!   `std` name (see above), or is declared without a definition (a library function's
//!   prototype);
//! - the program uses `__func__`, `__FUNCTION__`, `__PRETTY_FUNCTION__`, `typeid` or
//!   `extern "C"`.
//!
//! Local variables and parameters are `cpp-local-rename`'s.

use sdk::cpp::{fresh_names, in_conditional, mentions_any, CppParsed, RESERVED};
use sdk::{Edits, Rng};
use std::collections::{BTreeMap, BTreeSet};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-global-rename",
    description: "Renames C++ functions, globals, types, members, enumerators and namespaces with every use",
    category: "naming",
    languages: "cpp c",
    rewrite: rewrite,
}

/// Names the standard library finds by name in a program's own types (range-for, containers,
/// algorithms, tuples, exceptions), or that the program may also take from `std`.
const LIBRARY_NAMES: &[&str] = &[
    "begin",
    "end",
    "rbegin",
    "rend",
    "cbegin",
    "cend",
    "size",
    "empty",
    "data",
    "swap",
    "hash",
    "first",
    "second",
    "what",
    "get",
    "push_back",
    "emplace_back",
    "pop_back",
    "push",
    "pop",
    "top",
    "front",
    "back",
    "insert",
    "erase",
    "clear",
    "find",
    "count",
    "value_type",
    "iterator",
    "const_iterator",
    "reference",
    "const_reference",
    "pointer",
    "size_type",
    "difference_type",
    "key_type",
    "mapped_type",
    "iterator_category",
    "allocator_type",
    "element_type",
    "result_type",
    "is_transparent",
    "type",
    "value",
    "compare",
    "length",
    "c_str",
    "at",
    "reserve",
    "resize",
    "next",
    "prev",
    "distance",
    "advance",
    "tuple_size",
    "tuple_element",
    "to_string",
    "operator",
];

/// Words that let a program see a name's spelling or give it C linkage.
const NAME_OBSERVERS: &[&str] = &[
    "__func__",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
    "typeid",
    "extern",
];

/// Node kinds that spell a name.
const NAME_KINDS: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "namespace_identifier",
];

/// The last plain name of a declarator (`f`, `S::f`, `*p`, `a[3]`, `x = 1`), if it has one.
fn declared_name<'t>(d: Node<'t>) -> Option<Node<'t>> {
    match d.kind() {
        "identifier" | "field_identifier" | "type_identifier" => Some(d),
        "qualified_identifier" => declared_name(d.child_by_field_name("name")?),
        "function_declarator"
        | "init_declarator"
        | "pointer_declarator"
        | "reference_declarator"
        | "array_declarator" => {
            let inner = d.child_by_field_name("declarator").or_else(|| {
                // A reference declarator has no field name for what it refers to.
                let mut c = d.walk();
                let found = d.named_children(&mut c).last();
                found
            })?;
            declared_name(inner)
        }
        _ => None,
    }
}

/// Whether a declaration sits at namespace scope or in a class body (not among locals).
fn outside_functions(n: Node<'_>) -> bool {
    let mut cur = n.parent();
    while let Some(p) = cur {
        match p.kind() {
            "function_definition" | "lambda_expression" => return false,
            "translation_unit" => return true,
            _ => cur = p.parent(),
        }
    }
    true
}

/// The names the program declares as members (of its structs, unions and classes): every
/// `field_identifier` that is not a use (`p.x`, `p->x`, `.x = 1`, `: x(1)`).
fn member_names(p: &CppParsed) -> BTreeSet<&str> {
    p.nodes_of_kind("field_identifier")
        .into_iter()
        .filter(|n| {
            n.parent().is_none_or(|x| {
                !matches!(
                    x.kind(),
                    "field_expression" | "field_designator" | "field_initializer"
                )
            })
        })
        .map(|n| p.text(n))
        .collect()
}

/// The names the program declares outside its functions' locals, each with whether it has a
/// definition (a function body, a class body, a variable, a member, an enumerator).
fn declared(p: &CppParsed) -> BTreeMap<String, bool> {
    let mut names: BTreeMap<String, bool> = BTreeMap::new();
    let mut note = |n: Node<'_>, defined: bool| {
        let slot = names.entry(p.text(n).to_string()).or_insert(false);
        *slot |= defined;
    };
    for n in p.nodes() {
        match n.kind() {
            "function_definition" => {
                if let Some(name) = n.child_by_field_name("declarator").and_then(declared_name) {
                    note(name, true);
                }
            }
            "declaration" | "field_declaration" if outside_functions(n) => {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    let prototype = d.kind() == "function_declarator";
                    if let Some(name) = declared_name(d) {
                        // A member function declared in its class is defined somewhere the
                        // program shows or it would not link; a free prototype may be libc's.
                        note(name, !prototype || n.kind() == "field_declaration");
                    }
                }
            }
            "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
                if let (Some(name), Some(_)) =
                    (n.child_by_field_name("name"), n.child_by_field_name("body"))
                {
                    if name.kind() == "type_identifier" {
                        note(name, true);
                    }
                }
            }
            "enumerator" | "namespace_definition" => {
                if let Some(name) = n.child_by_field_name("name") {
                    if matches!(name.kind(), "identifier" | "namespace_identifier") {
                        note(name, true);
                    }
                }
            }
            _ => {}
        }
    }
    names
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if mentions_any(p, NAME_OBSERVERS) {
        return edits;
    }
    let blocked = p.blocked_words();
    // Every token of each name, and whether one of them lies in conditional code.
    let mut tokens: BTreeMap<&str, Vec<Node<'_>>> = BTreeMap::new();
    for n in p.nodes() {
        if NAME_KINDS.contains(&n.kind()) {
            tokens.entry(p.text(n)).or_default().push(n);
        }
    }
    let members = member_names(p);
    let sites: Vec<(String, Vec<std::ops::Range<usize>>)> = declared(p)
        .into_iter()
        .filter(|(name, defined)| {
            *defined
                && !name.starts_with('_')
                && !name.contains("__")
                && !RESERVED.contains(&name.as_str())
                && !LIBRARY_NAMES.contains(&name.as_str())
                && !blocked.contains(name)
        })
        .filter_map(|(name, _)| {
            let uses = tokens.get(name.as_str())?;
            if uses.iter().any(|u| in_conditional(*u)) {
                return None;
            }
            // A name no member of the program spells is, after `.` or `->`, a member of a
            // library type (`ldiv_t`'s `rem` beside a global `rem`): that keeps its spelling.
            let member = members.contains(name.as_str());
            let ranges = uses
                .iter()
                .filter(|u| member || u.kind() != "field_identifier")
                .map(|u| u.byte_range())
                .collect();
            Some((name, ranges))
        })
        .collect();
    let mut fresh = fresh_names(p).foreign();
    for i in rng.sites(sites.len(), 0.5) {
        let (_, ranges) = &sites[i];
        // Two words: one word of the vocabulary can be a libc or POSIX global that
        // `bits/stdc++.h` declares (`alarm`, `index`), which a local hides but a global clashes
        // with.
        let name = loop {
            let a = fresh.fresh(rng, None);
            let b = fresh.fresh(rng, None);
            let joined = format!("{a}_{b}");
            if fresh.claim(&joined) {
                break joined;
            }
        };
        for r in ranges {
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
    fn library_members_keep_their_spelling() {
        let src = "#include <stdlib.h>\nlong rem = 0;\nint main(void) { ldiv_t d = ldiv(9, 4); rem = d.rem; return (int)rem; }\n";
        let mut renamed = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                renamed += 1;
                assert!(out.contains(" = d.rem;"), "seed {seed}:\n{out}");
                assert!(!out.contains("long rem"), "seed {seed}:\n{out}");
            }
        }
        assert!(renamed > 0, "the global rem is renamed by some seed");
    }

    #[test]
    fn programs_that_can_see_names_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <bits/stdc++.h>\nusing namespace std;\nint total = 3;\nvoid show() { cout << __func__ << total << \"\\n\"; }\nint main() { show(); }\n",
                "#include <bits/stdc++.h>\nusing namespace std;\nstruct Point { int x; };\nint main() { Point p{1}; cout << typeid(p).name() << p.x << \"\\n\"; }\n",
            ],
            8,
        );
    }

    #[test]
    fn library_called_members_and_macro_names_are_kept() {
        let src = "#include <bits/stdc++.h>\nusing namespace std;\n#define SOLVE() solve(3)\nstruct Bag { int items[3]; int* begin() { return items; } int* end() { return items + 3; } };\nint solve(int v) { return v; }\nint main() { Bag b{{1, 2, 3}}; for (int x : b) cout << x; cout << SOLVE() << \"\\n\"; }\n";
        let mut renamed = 0;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                renamed += 1;
                for kept in ["int* begin()", "int* end()", "int solve(int v)"] {
                    assert!(out.contains(kept), "seed {seed}: {kept} renamed:\n{out}");
                }
            }
        }
        assert!(renamed > 0, "Bag and items are renamed by some seed");
    }
}
