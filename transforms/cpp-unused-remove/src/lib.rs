//! ## What it does
//! Deletes what a program declares but never uses: macros (`#define pb push_back` with no
//! `pb` anywhere), type aliases (`typedef long long ll;`, `using pii = pair<int, int>;`),
//! functions never called or named, and global variables of plain types never read or
//! written. Contest templates carry dozens of these. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! A name is unused when the only place its spelling occurs in the program's code (comments
//! and string literals aside, where neither the preprocessor nor the compiler looks) is its
//! own declaration. Nothing can then expand the macro, name the type, call the function or
//! read the variable, so deleting the declaration leaves every other token meaning what it
//! meant. The traps are what acts without being named: a macro defined before an `#include`
//! can configure that header (`NDEBUG`, `_GNU_SOURCE`), a function the library finds by
//! argument-dependent lookup (`swap`, `begin`, `hash`…) or runs on its own (`main`,
//! `__attribute__((constructor))`), and a global whose initialisation runs code (a call, a
//! class type's constructor). These are never deleted.
//!
//! ## Example
//! ```cpp
//! #include <bits/stdc++.h>
//! #define pb push_back
//! typedef long long ll;
//! int main() { int n; std::cin >> n; std::cout << n * 2; }
//! ```
//! becomes
//! ```cpp
//! #include <bits/stdc++.h>
//! int main() { int n; std::cin >> n; std::cout << n * 2; }
//! ```
//!
//! ## Not applied when
//! - the macro is defined before an `#include` or its name starts with `_` or is `NDEBUG`;
//! - the declaration lies in code a preprocessor conditional guards, or declares a `struct`,
//!   `class` or `enum` with a body;
//! - the function is a template, a member, an operator, `main`, a name the library looks up,
//!   or carries attributes; the variable's type is not a plain arithmetic type or a standard
//!   container, or its initialiser calls anything.

use sdk::cpp::{in_conditional, CppParsed};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-unused-remove",
    description: "Deletes C/C++ macros, type aliases, functions and globals that nothing uses",
    category: "structure",
    languages: "cpp c",
    rewrite: rewrite,
}

/// Functions the library calls without the program naming them (argument-dependent lookup,
/// customisation points), never deleted.
const LIBRARY_HOOKS: &[&str] = &[
    "main",
    "swap",
    "begin",
    "end",
    "rbegin",
    "rend",
    "size",
    "data",
    "empty",
    "hash",
    "get",
    "to_string",
    "abs",
    "operator",
];

/// Standard containers and strings whose construction runs no program code.
const PLAIN_TEMPLATES: &[&str] = &[
    "vector",
    "deque",
    "list",
    "set",
    "multiset",
    "map",
    "multimap",
    "unordered_set",
    "unordered_map",
    "queue",
    "stack",
    "priority_queue",
    "pair",
    "array",
    "bitset",
    "string",
];

/// How many times each word occurs in the program's code: the source with comments and
/// string and character literals left out.
fn word_counts(p: &CppParsed) -> BTreeMap<String, usize> {
    let mut code = p.source.as_bytes().to_vec();
    for n in descendants(p.root()) {
        if matches!(
            n.kind(),
            "comment"
                | "string_literal"
                | "raw_string_literal"
                | "char_literal"
                | "system_lib_string"
        ) {
            for b in code.get_mut(n.byte_range()).into_iter().flatten() {
                *b = b' ';
            }
        }
    }
    let code = String::from_utf8_lossy(&code);
    let mut counts = BTreeMap::new();
    for w in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            *counts.entry(w.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// The name a top-level declaration introduces and may be deleted with, by the rules in the
/// crate docs.
fn removable_name<'t>(p: &CppParsed, n: Node<'t>, last_include: usize) -> Option<Node<'t>> {
    match n.kind() {
        "preproc_def" | "preproc_function_def" => {
            let name = n.child_by_field_name("name")?;
            let text = p.text(name);
            (n.start_byte() >= last_include && !text.starts_with('_') && text != "NDEBUG")
                .then_some(name)
        }
        "type_definition" => {
            let ty = n.child_by_field_name("type")?;
            if ty.child_by_field_name("body").is_some() {
                return None;
            }
            let mut c = n.walk();
            let declarators: Vec<Node<'t>> =
                n.children_by_field_name("declarator", &mut c).collect();
            match declarators.as_slice() {
                [d] if d.kind() == "type_identifier" => Some(*d),
                _ => None,
            }
        }
        "alias_declaration" => n.child_by_field_name("name"),
        "function_definition" => {
            let d = n.child_by_field_name("declarator")?;
            let name = d.child_by_field_name("declarator")?;
            let plain = d.kind() == "function_declarator" && name.kind() == "identifier";
            let decorated = descendants(n)
                .into_iter()
                .take_while(|x| x.start_byte() < d.start_byte())
                .any(|x| matches!(x.kind(), "attribute_specifier" | "attribute_declaration"));
            (plain && !decorated && !LIBRARY_HOOKS.contains(&p.text(name))).then_some(name)
        }
        "declaration" => {
            let ty = n.child_by_field_name("type")?;
            let plain_type = match ty.kind() {
                "primitive_type" | "sized_type_specifier" => true,
                "template_type" => ty
                    .child_by_field_name("name")
                    .is_some_and(|t| PLAIN_TEMPLATES.contains(&p.text(t))),
                "type_identifier" => p.text(ty) == "string",
                "qualified_identifier" => PLAIN_TEMPLATES
                    .iter()
                    .any(|t| p.text(ty).starts_with(&format!("std::{t}"))),
                _ => false,
            };
            let mut c = n.walk();
            let declarators: Vec<Node<'t>> =
                n.children_by_field_name("declarator", &mut c).collect();
            let [d] = declarators.as_slice() else {
                return None;
            };
            // A function's prototype is not a variable; an initialiser that calls runs code.
            let calls = descendants(*d).into_iter().any(|x| {
                matches!(
                    x.kind(),
                    "call_expression" | "function_declarator" | "lambda_expression"
                )
            });
            let name = descendants(*d)
                .into_iter()
                .find(|x| x.kind() == "identifier")?;
            (plain_type && !calls).then_some(name)
        }
        _ => None,
    }
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let counts = word_counts(p);
    let root = p.root();
    let mut c = root.walk();
    let top: Vec<Node<'_>> = root.named_children(&mut c).collect();
    let last_include = top
        .iter()
        .filter(|n| n.kind() == "preproc_include")
        .map(|n| n.end_byte())
        .max()
        .unwrap_or(0);
    let sites: Vec<Node<'_>> = top
        .iter()
        .copied()
        .filter(|n| !in_conditional(*n))
        .filter(|n| {
            removable_name(p, *n, last_include)
                .is_some_and(|name| counts.get(p.text(name)) == Some(&1))
        })
        .collect();
    for i in rng.sites(sites.len(), 0.5) {
        let n = sites[i];
        // A directive's node ends after its newline; a declaration's line break stays unless
        // it is removed with it.
        let mut end = n.end_byte();
        if p.source.get(end..end + 1) == Some("\n") {
            end += 1;
        }
        edits.replace(n.start_byte()..end, "");
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn declarations_that_act_unnamed_are_kept() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Configures the header included after it.
                "#define NDEBUG\n#define _GNU_SOURCE\n#include <cassert>\nint main() { assert(1 > 2); return 0; }\n",
                // Found by argument-dependent lookup, or run before main.
                "#include <bits/stdc++.h>\nstruct P { int v; };\nvoid swap(P& a, P& b) { int t = a.v; a.v = b.v; b.v = t; }\n__attribute__((constructor)) void hello() { puts(\"hi\"); }\nint main() { std::vector<P> ps{{2}, {1}}; std::sort(ps.begin(), ps.end(), [](const P& a, const P& b) { return a.v < b.v; }); return ps[0].v; }\n",
                // A global whose initialiser runs code, one of a class type, a struct with a body.
                "#include <bits/stdc++.h>\nint hello() { return puts(\"hi\"); }\nint greeted = hello();\nstruct Loud { Loud() { puts(\"ctor\"); } } loud;\nint main() { return 0; }\n",
            ],
            8,
        );
    }
}
