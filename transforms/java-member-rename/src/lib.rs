//! ## What it does
//! Renames methods and fields of the program's own classes to fresh names, with every use:
//! unqualified calls and names, `this.`/`ClassName.` accesses, and `ClassName::name` method
//! references.
//!
//! ## Why it preserves semantics
//! Only members that nothing outside the program can reach by name are renamed, as judged by the
//! SDK ([`sdk::java::scope::members`]): never `main`, never a name that appears in a string
//! literal (reflection such as `getMethod("x")`), never a method of a class that extends or
//! implements anything or one marked `@Override` (it may override, and overriding goes by name),
//! never a name declared twice (overloads, a field and a method, members of two classes). A
//! name is also left alone when any use of it could mean something else: a call or field access
//! on another object (`other.size()` may be `List.size`), or a local variable or parameter of
//! the same name anywhere (which would shadow a field). Every remaining occurrence is then the
//! member itself, and the fresh name collides with nothing.
//!
//! ## Example
//! ```java
//! static int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
//! ```
//! becomes
//! ```java
//! static int pivot(int a, int b) { return b == 0 ? a : pivot(b, a % b); }
//! ```
//!
//! ## Not applied when
//! See above; also `serialVersionUID` and every member of an enum, interface or record. A
//! program without a `main` method is a library: its callers are not in view, so only its
//! `private` members are renamed.

use sdk::java::{fresh_names, scope, JavaParsed};
use sdk::{Edits, Rng};
use std::collections::HashSet;
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-member-rename",
    description: "Renames private and static helper methods and fields of a Java program to fresh names",
    category: "naming",
    rewrite: rewrite,
}

/// Every occurrence of member `name` (declaration included), or `None` when one could mean
/// something else.
fn occurrences<'t>(
    p: &'t JavaParsed,
    name: &str,
    kind: &str,
    classes: &HashSet<&str>,
) -> Option<Vec<Node<'t>>> {
    let qualifier_ok = |obj: Option<Node<'_>>| {
        obj.is_none_or(|o| {
            o.kind() == "this" || (o.kind() == "identifier" && classes.contains(p.text(o)))
        })
    };
    let mut out = Vec::new();
    for n in p.nodes() {
        if n.kind() != "identifier" || p.text(n) != name {
            continue;
        }
        let parent = n.parent()?;
        let is = |f: &str| {
            parent
                .child_by_field_name(f)
                .is_some_and(|c| c.id() == n.id())
        };
        match parent.kind() {
            "method_declaration" if is("name") => {
                if kind != "method" {
                    return None;
                }
                out.push(n);
            }
            "variable_declarator" if is("name") => {
                let decl = parent.parent()?;
                if kind != "field" || decl.kind() != "field_declaration" {
                    return None;
                }
                out.push(n);
            }
            "method_invocation" if is("name") => {
                if kind != "method" || !qualifier_ok(parent.child_by_field_name("object")) {
                    return None;
                }
                out.push(n);
            }
            "method_reference" => {
                let first = parent.named_child(0)?;
                if first.id() == n.id() {
                    // `name::…`: a variable or type named like the member.
                    if kind != "field" {
                        return None;
                    }
                    out.push(n);
                } else if kind == "method" && qualifier_ok(Some(first)) {
                    out.push(n);
                } else {
                    return None;
                }
            }
            "field_access" if is("field") => {
                if kind != "field" || !qualifier_ok(parent.child_by_field_name("object")) {
                    return None;
                }
                out.push(n);
            }
            _ => {
                if kind == "field" && scope::is_variable_position(n) {
                    out.push(n);
                } else {
                    // A label, a type, a parameter or anything else spelled the same.
                    return None;
                }
            }
        }
    }
    Some(out)
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let classes: HashSet<&str> = p
        .nodes_of_kind("class_declaration")
        .into_iter()
        .filter_map(|c| c.child_by_field_name("name"))
        .map(|n| p.text(n))
        .collect();
    let local_names: HashSet<String> = scope::locals(p).into_iter().map(|l| l.name).collect();
    // A program without `main` is a library: code outside it (its tests, its callers) reaches
    // every non-private member by name.
    let library = !p.source.contains("static void main");
    let sites: Vec<Vec<Node<'_>>> = scope::members(p, library)
        .into_iter()
        .filter(|m| m.renamable && m.kind != "class" && m.name != "serialVersionUID")
        .filter(|m| !local_names.contains(&m.name))
        .filter(|m| {
            // Only members of classes (not interfaces, enums, records).
            m.decl
                .parent()
                .and_then(|d| {
                    if m.kind == "field" {
                        d.parent()
                    } else {
                        Some(d)
                    }
                })
                .and_then(|d| d.parent())
                .is_some_and(|body| body.kind() == "class_body")
        })
        .filter_map(|m| occurrences(p, &m.name, m.kind, &classes))
        .collect();
    let mut fresh = fresh_names(p);
    for i in rng.sites(sites.len(), 0.5) {
        let name = fresh.fresh(rng, None);
        for n in &sites[i] {
            if !edits.overlaps(&n.byte_range()) {
                edits.replace(n.byte_range(), name.clone());
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn reflection_overloads_and_foreign_calls_block_renaming() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { static int f() { return 1; } static int f(int x) { return x; } }",
                "class A { static int size() { return 1; } public static void main(String[] a) { java.util.List<String> l = null; System.out.println(l.size() + size()); } }",
                "class A { static int f() { return 1; } public static void main(String[] a) throws Exception { System.out.println(A.class.getDeclaredMethod(\"f\")); } }",
                "class A { static int n; public static void main(String[] a) { int n = 2; System.out.println(n); } }",
                "class A extends Thread { void work() { } }",
                "public class Lib { public static int twice(int v) { return 2 * v; } static int half(int v) { return v / 2; } }",
            ],
            16,
        );
    }
}
