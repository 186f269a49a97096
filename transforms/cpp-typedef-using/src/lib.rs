//! ## What it does
//! Writes a type alias the other way: `typedef T N;` ↔ `using N = T;`.
//!
//! ## Why it preserves semantics
//! An alias-declaration has the same semantics as the corresponding typedef-declaration: both
//! introduce `N` as a name of the type `T` in the same scope, from the same point. Only
//! aliases whose type reads the same in both forms are rewritten (a plain type such as
//! `long long`, `pair<int, int>` or `vector<vector<int>>`).
//!
//! ## Example
//! ```cpp
//! typedef long long ll;
//! ```
//! becomes
//! ```cpp
//! using ll = long long;
//! ```
//!
//! ## Not applied when
//! - the typedef declares several names, a pointer, array or function type
//!   (`typedef int A[3];`, `typedef void (*F)(int);`), or defines a struct, union or enum
//!   in place (`typedef struct { … } S;`, which in C++ also gives the struct its name for
//!   linkage);
//! - the alias is a template (`template <class T> using V = vector<T>;`) or its type is a
//!   pointer, array or function type;
//! - it uses a macro or lies in code a preprocessor conditional guards.

use sdk::cpp::{contains_kind, in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-typedef-using",
    description: "Writes C++ type aliases as typedef or using, whichever they are not",
    category: "naming",
    rewrite: rewrite,
}

/// Node kinds that make a type read differently in the two forms.
const DECLARATOR_PARTS: &[&str] = &[
    "abstract_pointer_declarator",
    "abstract_array_declarator",
    "abstract_function_declarator",
    "abstract_reference_declarator",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
];

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for t in p.nodes_of_kind("type_definition") {
        if in_conditional(t) || p.uses_macro(t) {
            continue;
        }
        let mut c = t.walk();
        let declarators: Vec<_> = t.children_by_field_name("declarator", &mut c).collect();
        let (Some(ty), [name]) = (t.child_by_field_name("type"), declarators.as_slice()) else {
            continue;
        };
        if name.kind() != "type_identifier" || contains_kind(ty, DECLARATOR_PARTS) {
            continue;
        }
        // Everything between `typedef` and the name: qualifiers and the type (`const int`).
        let Some(first) = t.child(1) else { continue };
        let type_text = p.source[first.start_byte()..name.start_byte()].trim();
        sites.push((
            t.byte_range(),
            format!("using {} = {type_text};", p.text(*name)),
        ));
    }
    for a in p.nodes_of_kind("alias_declaration") {
        if in_conditional(a) || p.uses_macro(a) {
            continue;
        }
        if a.parent()
            .is_some_and(|x| x.kind() == "template_declaration")
        {
            continue;
        }
        let (Some(name), Some(ty)) = (a.child_by_field_name("name"), a.child_by_field_name("type"))
        else {
            continue;
        };
        if contains_kind(ty, DECLARATOR_PARTS) {
            continue;
        }
        sites.push((
            a.byte_range(),
            format!("typedef {} {};", p.text(ty), p.text(name)),
        ));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, text) = &sites[i];
        edits.replace(range.clone(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn declarator_types_and_templates_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "typedef int A[3];\ntypedef void (*F)(int);\ntypedef struct { int x; } S;\nint main() { A a = {1}; S s{2}; return a[0] + s.x; }\n",
                "#include <vector>\ntemplate <class T> using V = std::vector<T>;\nusing P = int*;\nint main() { V<int> v{1}; int x = 2; P p = &x; return v[0] + *p; }\n",
            ],
            8,
        );
    }
}
