//! ## What it does
//! Swaps two methods (or constructors) of a class: the order in which a class declares its
//! methods is not part of its behaviour.
//!
//! ## Why it preserves semantics
//! Java resolves methods by name and signature, never by position, and a method may be called
//! before its declaration. What does depend on textual order is initialisation — field
//! initialisers and initialiser blocks run top to bottom — so only method and constructor
//! declarations move; fields, initialiser blocks and nested types stay where they are. Each
//! method moves whole with its annotations and modifiers; comments stay in place.
//!
//! ## Example
//! ```java
//! static int f() { return 1; }
//! public static void main(String[] a) { System.out.println(f()); }
//! ```
//! becomes
//! ```java
//! public static void main(String[] a) { System.out.println(f()); }
//! static int f() { return 1; }
//! ```
//!
//! ## Not applied when
//! The class has fewer than two methods. (Reflection that lists declared methods may see a
//! different order; the JVM does not promise one, and the oracle judges any program that
//! prints it.)

use sdk::java::JavaParsed;
use sdk::parse::named_children;
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-member-reorder",
    description: "Swaps two methods or constructors of a Java class (fields and initialisers stay in order)",
    category: "structure",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for body in p.nodes_of_kind("class_body") {
        let methods: Vec<_> = named_children(body)
            .into_iter()
            .filter(|m| matches!(m.kind(), "method_declaration" | "constructor_declaration"))
            .collect();
        for i in 0..methods.len() {
            for j in i + 1..methods.len() {
                sites.push((methods[i], methods[j]));
            }
        }
    }
    if let Some(k) = rng.site(sites.len()) {
        let (a, b) = sites[k];
        edits.replace(a.byte_range(), p.text(b).to_string());
        edits.replace(b.byte_range(), p.text(a).to_string());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);
}
