//! ## What it does
//! Renames the program's own helper classes, and methods and fields of its classes, to fresh
//! names drawn from the identifiers of programs in other domains, with every use: unqualified
//! calls and names, `this.`/`ClassName.` accesses, calls on a variable of the declaring class
//! (`in.nextInt()` where `in` is a `FastReader`), `ClassName::name` method references, and, for
//! a class, every type, constructor and `new` that names it. The fast-reader class and its
//! methods, which fill the start of a contest submission, are the typical target.
//!
//! ## Why it preserves semantics
//! Only members that nothing outside the program can reach by name are renamed, as judged by the
//! SDK ([`sdk::java::scope::members`]): never `main` or the class holding it, never a name that
//! appears in a string literal (reflection such as `getMethod("x")`), never a method of a class
//! that extends or implements anything or one marked `@Override` (it may override, and
//! overriding goes by name), never a name declared twice (overloads, a field and a method,
//! members of two classes). A name is also left alone when any use of it could mean something
//! else: a call or field access on an object that is not known to be of the declaring class
//! (`other.size()` may be `List.size`; a variable counts as known only when every variable of
//! that name in the program is declared with exactly that class as its type), or a local
//! variable or parameter of the same name anywhere (which would shadow a field). Every remaining
//! occurrence is then the member itself, and the fresh name collides with nothing. A class's
//! name is observable only through reflection (`X.class`, `getClass()`), which blocks the
//! rename, and through `Throwable.toString()`, which only classes that extend another class
//! reach, so those keep their names (implementing an interface such as `Comparable` is fine).
//!
//! ## Example
//! ```java
//! static class FastReader { int nextInt() { /* ... */ } }
//! static int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
//! // in main: FastReader in = new FastReader(); int n = in.nextInt();
//! ```
//! becomes
//! ```java
//! static class Harbor { int lantern() { /* ... */ } }
//! static int pivot(int a, int b) { return b == 0 ? a : pivot(b, a % b); }
//! // in main: Harbor in = new Harbor(); int n = in.lantern();
//! ```
//!
//! ## Not applied when
//! See above; also `serialVersionUID`, every member of an enum, interface or record, a public
//! top-level class (its file is named after it), a class whose name is also a variable's or a
//! generic type parameter's, and a program that uses a class literal or `getClass`. A program
//! without a `main` method is a library: its callers are not in view, so only its `private`
//! members are renamed.

use sdk::java::{fresh_names, scope, JavaParsed};
use sdk::{Edits, Rng};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-member-rename",
    description: "Renames helper classes, methods and fields of a Java program to fresh names",
    category: "naming",
    rewrite: rewrite,
}

/// What a qualifier (`x` in `x.m()`) can be known to denote.
struct Receivers<'p> {
    /// The names of the program's classes.
    classes: HashSet<&'p str>,
    /// For every variable name (local, parameter or field), the declared types of all the
    /// variables so named, generic arguments stripped; `None` for one without a written type
    /// (`var`, an implicit lambda parameter).
    variables: HashMap<String, Vec<Option<String>>>,
    /// The names of the locals and parameters alone.
    locals: HashSet<String>,
}

impl<'p> Receivers<'p> {
    fn new(p: &'p JavaParsed) -> Self {
        let classes = p
            .nodes_of_kind("class_declaration")
            .into_iter()
            .filter_map(|c| c.child_by_field_name("name"))
            .map(|n| p.text(n))
            .collect();
        let mut variables: HashMap<String, Vec<Option<String>>> = HashMap::new();
        let mut locals = HashSet::new();
        for l in scope::locals(p) {
            locals.insert(l.name.clone());
            let ty = l.ty.as_deref().filter(|t| *t != "var").map(raw_type);
            variables.entry(l.name).or_default().push(ty);
        }
        for f in p.nodes_of_kind("field_declaration") {
            let ty = f.child_by_field_name("type").map(|t| raw_type(p.text(t)));
            let mut cursor = f.walk();
            for d in f.children_by_field_name("declarator", &mut cursor) {
                if let Some(n) = d.child_by_field_name("name") {
                    variables
                        .entry(p.text(n).to_string())
                        .or_default()
                        .push(ty.clone());
                }
            }
        }
        Receivers {
            classes,
            variables,
            locals,
        }
    }

    /// Whether a member of class `owner` reached through `obj` (absent for an unqualified
    /// use) can only be that member: no qualifier, `this`, the name of one of the program's
    /// classes, `new Owner(…)`, or a variable every declaration of which has type `Owner`.
    fn reaches(&self, p: &JavaParsed, obj: Option<Node<'_>>, owner: &str) -> bool {
        let Some(o) = obj else { return true };
        match o.kind() {
            "this" => true,
            "identifier" => {
                let name = p.text(o);
                match self.variables.get(name) {
                    Some(types) => types.iter().all(|t| t.as_deref() == Some(owner)),
                    None => self.classes.contains(name),
                }
            }
            "object_creation_expression" => o
                .child_by_field_name("type")
                .is_some_and(|t| raw_type(p.text(t)) == owner),
            "parenthesized_expression" => self.reaches(p, o.named_child(0), owner),
            _ => false,
        }
    }
}

/// A type's text without generic arguments or whitespace (`Pair<Integer, Long>` → `Pair`);
/// arrays keep their brackets, so `Pair[]` never equals `Pair`.
fn raw_type(ty: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in ty.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}

/// The name of the class whose body declares `decl` (a member's name node).
fn owner_class<'t>(p: &'t JavaParsed, decl: Node<'_>) -> Option<&'t str> {
    let mut n = decl.parent()?;
    loop {
        if n.kind() == "class_body" {
            let class = n.parent()?;
            return (class.kind() == "class_declaration")
                .then(|| class.child_by_field_name("name"))
                .flatten()
                .map(|c| p.text(c));
        }
        n = n.parent()?;
    }
}

/// Every occurrence of member `name` of class `owner` (declaration included), or `None` when
/// one could mean something else.
fn occurrences<'t>(
    p: &'t JavaParsed,
    name: &str,
    kind: &str,
    owner: &str,
    receivers: &Receivers<'_>,
) -> Option<Vec<Node<'t>>> {
    let qualifier_ok = |obj: Option<Node<'_>>| receivers.reaches(p, obj, owner);
    let mut out = Vec::new();
    for n in p.nodes() {
        if n.kind() != "identifier" || p.text(n) != name {
            continue;
        }
        let parent = n.parent()?;
        let is = |f: &str| is_field(parent, f, n);
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

/// Every occurrence of class `name` (its declaration, its constructors, every type that names
/// it, `Name.member` and `Name::new`), or `None` when one could mean something else or the
/// program could observe the class's name.
fn class_occurrences<'t>(
    p: &'t JavaParsed,
    name: &str,
    receivers: &Receivers<'_>,
) -> Option<Vec<Node<'t>>> {
    if receivers.variables.contains_key(name) {
        return None;
    }
    let mut out = Vec::new();
    for n in p.nodes() {
        // A class literal or `getClass()` can print the name; `toString()` of an object that
        // does not override it prints it too, but with an identity hash no test can expect.
        if n.kind() == "class_literal"
            || (n.kind() == "identifier" && matches!(p.text(n), "getClass" | "getSimpleName"))
        {
            return None;
        }
        if !matches!(n.kind(), "identifier" | "type_identifier") || p.text(n) != name {
            continue;
        }
        let parent = n.parent()?;
        let is = |f: &str| is_field(parent, f, n);
        let accepted = match (n.kind(), parent.kind()) {
            (_, "type_parameter") => false,
            ("type_identifier", _) => true,
            (_, "class_declaration" | "constructor_declaration") => is("name"),
            (_, "method_invocation" | "field_access") => is("object"),
            (_, "method_reference") => parent.named_child(0).is_some_and(|c| c.id() == n.id()),
            _ => false,
        };
        if !accepted {
            return None;
        }
        out.push(n);
    }
    Some(out)
}

/// Whether a declaration is marked `public` (a public top-level class must keep its file's
/// name).
fn is_public(p: &JavaParsed, decl: Node<'_>) -> bool {
    let mut cursor = decl.walk();
    let public = decl
        .named_children(&mut cursor)
        .any(|c| c.kind() == "modifiers" && p.text(c).split_whitespace().any(|w| w == "public"));
    public
}

/// Whether `node` is `parent`'s child in field `field`.
fn is_field(parent: Node<'_>, field: &str, node: Node<'_>) -> bool {
    parent
        .child_by_field_name(field)
        .is_some_and(|c| c.id() == node.id())
}

/// `word` with its first letter capitalised, as a class name reads.
fn capitalised(word: &str) -> String {
    let mut cs = word.chars();
    cs.next()
        .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
        .unwrap_or_default()
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let receivers = Receivers::new(p);
    // A program without `main` is a library: code outside it (its tests, its callers) reaches
    // every non-private member by name.
    let library = !p.source.contains("static void main");
    let sites: Vec<(bool, Vec<Node<'_>>)> = scope::members(p, library)
        .into_iter()
        .filter(|m| m.renamable && m.name != "serialVersionUID")
        .filter(|m| {
            // Members of classes only (not interfaces, enums, records); classes that extend
            // nothing, so no `Throwable.toString` prints their name.
            let class = m.decl.parent();
            let declarator = if m.kind == "field" {
                class.and_then(|d| d.parent())
            } else {
                class
            };
            if m.kind == "class" {
                class.is_some_and(|c| {
                    c.child_by_field_name("superclass").is_none()
                        && !(c.parent().is_some_and(|b| b.kind() == "program") && is_public(p, c))
                })
            } else {
                declarator
                    .and_then(|d| d.parent())
                    .is_some_and(|body| body.kind() == "class_body")
            }
        })
        .filter_map(|m| {
            if m.kind == "class" {
                class_occurrences(p, &m.name, &receivers).map(|o| (true, o))
            } else if receivers.locals.contains(&m.name) {
                // A local of the same name would shadow a field, and makes `name.x` ambiguous.
                None
            } else {
                let owner = owner_class(p, m.decl)?;
                occurrences(p, &m.name, m.kind, owner, &receivers).map(|o| (false, o))
            }
        })
        .collect();
    let mut fresh = fresh_names(p).foreign();
    for i in rng.sites(sites.len(), 0.5) {
        let Some((is_class, nodes)) = sites.get(i) else {
            continue;
        };
        let name = if *is_class {
            // The fresh word is free; its capitalised spelling must be free as well.
            (0..16).find_map(|_| {
                let c = capitalised(&fresh.fresh(rng, None));
                fresh.claim(&c).then_some(c)
            })
        } else {
            Some(fresh.fresh(rng, None))
        };
        let Some(name) = name else { continue };
        for n in nodes {
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
                // The class's name is observable.
                "class A { static class R { } public static void main(String[] a) { System.out.println(new R().getClass().getSimpleName()); } }",
            ],
            16,
        );
    }

    #[test]
    fn reader_classes_and_their_methods_are_renamed_through_typed_receivers() {
        let src = "public class Main { static class FastReader { int nextInt() { return 7; } } \
                   static FastReader in = new FastReader(); \
                   public static void main(String[] a) { FastReader local = new FastReader(); \
                   System.out.println(in.nextInt() + local.nextInt() + new FastReader().nextInt()); } }";
        let mut renamed_class = false;
        let mut renamed_method = false;
        for seed in 0..16 {
            let Some(out) = super::apply(src, seed).expect("parses") else {
                continue;
            };
            renamed_class |= !out.contains("FastReader");
            renamed_method |= !out.contains("nextInt");
            // All or nothing: a renamed name leaves no occurrence behind.
            assert!(
                !out.contains("FastReader") || out.matches("FastReader").count() == 6,
                "{out}"
            );
            assert!(
                !out.contains("nextInt") || out.matches("nextInt").count() == 4,
                "{out}"
            );
            assert!(out.contains("public class Main"), "{out}");
        }
        assert!(renamed_class && renamed_method);
        // `r` is a Scanner in one block: `r.next()` there is Scanner's, so `next` keeps its name.
        let mixed = "class A { static class R { int next() { return 1; } } public static void main(String[] a) { \
                     { R r = new R(); System.out.println(r.next()); } \
                     { java.util.Scanner r = new java.util.Scanner(\"x\"); r.next(); } } }";
        for seed in 0..16 {
            if let Some(out) = super::apply(mixed, seed).expect("parses") {
                assert_eq!(out.matches("next()").count(), 3, "{out}");
            }
        }
    }
}
