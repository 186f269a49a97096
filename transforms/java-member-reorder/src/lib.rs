//! ## What it does
//! Swaps two members of a class — methods, constructors, nested types, fields without an
//! initialiser — or two top-level types of the file: the order in which a class declares them is
//! not part of its behaviour. Moving a fast-reader class from the top of `Main` to its end is
//! the typical effect.
//!
//! ## Why it preserves semantics
//! Java resolves methods, fields and types by name, never by position: a member's scope is the
//! whole class body, and a file's top-level types see each other in any order. A nested or
//! top-level class is initialised on its first active use, not where it is declared. What does
//! depend on textual order is initialisation — field initialisers and initialiser blocks run top
//! to bottom — so the relative order of those never changes: they never swap with each other,
//! and one moves past a member only when no other initialiser lies between them. A field read
//! by an initialiser above it would be an illegal forward reference, which the compiler rejects
//! (the oracle then discards the candidate). Each member moves whole with its annotations and
//! modifiers; comments stay in place.
//!
//! ## Example
//! ```java
//! static class FastReader { /* ... */ }
//! public static void main(String[] a) { /* ... */ }
//! ```
//! becomes
//! ```java
//! public static void main(String[] a) { /* ... */ }
//! static class FastReader { /* ... */ }
//! ```
//!
//! ## Not applied when
//! The class has fewer than two members that may move. Enum constants and record components
//! never move. (Reflection that lists declared members may see a different order; the JVM does
//! not promise one, and the oracle judges any program that prints it.)

use sdk::java::JavaParsed;
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-member-reorder",
    description: "Swaps two members of a Java class or two top-level types (initialisers keep their order)",
    category: "structure",
    rewrite: rewrite,
}

/// Types declared as members or at the top level.
const TYPE_KINDS: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
];

/// Whether a member runs code when its class or instance is initialised: a field with an
/// initialiser, or an initialiser block.
fn initialises(member: Node<'_>) -> bool {
    match member.kind() {
        "static_initializer" | "block" => true,
        "field_declaration" => named_children(member)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
            .any(|d| d.child_by_field_name("value").is_some()),
        _ => false,
    }
}

/// Whether a member takes part in ordering at all (comments and stray tokens do not).
fn is_member(member: Node<'_>) -> bool {
    matches!(
        member.kind(),
        "method_declaration"
            | "constructor_declaration"
            | "field_declaration"
            | "static_initializer"
            | "block"
    ) || TYPE_KINDS.contains(&member.kind())
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for body in p.nodes_of_kind("class_body") {
        let members: Vec<_> = named_children(body)
            .into_iter()
            .filter(|m| is_member(*m))
            .collect();
        for i in 0..members.len() {
            for j in i + 1..members.len() {
                let (a, b) = (members[i], members[j]);
                let movable = match (initialises(a), initialises(b)) {
                    (false, false) => true,
                    (true, true) => false,
                    // One initialiser moves: only past members that do not initialise.
                    _ => !members[i + 1..j].iter().any(|m| initialises(*m)),
                };
                if movable {
                    sites.push((a, b));
                }
            }
        }
    }
    let types: Vec<_> = named_children(p.root())
        .into_iter()
        .filter(|t| TYPE_KINDS.contains(&t.kind()))
        .collect();
    for i in 0..types.len() {
        for j in i + 1..types.len() {
            sites.push((types[i], types[j]));
        }
    }
    // Big moves first: swapping a reader class with `main` changes what a detector's window
    // reads; swapping two one-line getters barely does. A site's weight is the square of the
    // bytes it moves.
    let weights: Vec<u64> = sites
        .iter()
        .map(|(a, b)| {
            let moved = (a.byte_range().len() + b.byte_range().len()) as u64;
            moved.saturating_mul(moved)
        })
        .collect();
    if let Some(k) = rng.weighted_site(&weights) {
        let (a, b) = sites[k];
        edits.replace(a.byte_range(), p.text(b).to_string());
        edits.replace(b.byte_range(), p.text(a).to_string());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::{apply, apply_at_site};
    sdk::java_fixture_tests!(apply);

    /// Every candidate site of `src`, rewritten.
    fn every_site(src: &str) -> Vec<String> {
        let (_, offered) = apply_at_site(src, 0, 0);
        (0..offered)
            .filter_map(|site| apply_at_site(src, 0, site).0.ok().flatten())
            .collect()
    }

    #[test]
    fn initialisers_keep_their_order_at_every_site() {
        let src = include_str!("../fixtures/order.java");
        let inits = ["log = new", "first = init", "second = init", "static {"];
        let outs = every_site(src);
        assert!(outs.len() > 5);
        for out in outs {
            let at: Vec<usize> = inits.iter().map(|i| out.find(i).unwrap()).collect();
            assert!(
                at.windows(2).all(|w| w[0] < w[1]),
                "initialisers reordered:\n{out}"
            );
        }
    }

    #[test]
    fn a_reader_class_and_top_level_types_move() {
        let src = include_str!("../fixtures/reader.java");
        let outs = every_site(src);
        let pos = |out: &str, s: &str| out.find(s).unwrap();
        // main before the reader (the detector's window then reads the program's logic).
        assert!(outs
            .iter()
            .any(|o| pos(o, "public static void main") < pos(o, "static class FastReader")));
        // The top-level helper after `Main`.
        assert!(outs
            .iter()
            .any(|o| pos(o, "public class Main") < pos(o, "class Pair {")));
        // The two initialised fields never swap.
        for o in &outs {
            assert!(pos(o, "STEP = {") < pos(o, "seen = new"), "{o}");
        }
    }
}
