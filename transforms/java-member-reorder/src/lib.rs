//! ## What it does
//! Swaps two members of a class — methods, constructors, nested types, fields without an
//! initialiser — or two top-level types of the file, or moves one of them to the first or the
//! last place of its class (or file), or moves a method together with the methods and types of
//! its class that it names (`main` with the `solve` it calls) to the first place, the others
//! keeping their order: the order in which a class declares them is not part of its behaviour.
//! Moving a fast-reader class from the top of `Main` to its end, or `main` and `solve` above a
//! pasted template, is the typical effect.
//!
//! ## Why it preserves semantics
//! Java resolves methods, fields and types by name, never by position: a member's scope is the
//! whole class body, and a file's top-level types see each other in any order. A nested or
//! top-level class is initialised on its first active use, not where it is declared. What does
//! depend on textual order is initialisation — field initialisers and initialiser blocks run top
//! to bottom — so the relative order of those never changes: they never swap with each other,
//! and one moves past a member only when no other initialiser lies between them. A field read
//! by an initialiser above it would be an illegal forward reference, which the compiler rejects
//! (the oracle then discards the candidate). A move to the first or last place shifts the
//! members it passes along, in their order, so only members that do not initialise are moved
//! that way (one, or a method and what it names) and initialisers keep their order. Each member moves whole
//! with its annotations and modifiers; comments stay in place.
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
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
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

/// One reordering of a list of members (a class body's, or the file's top-level types): slot
/// `k` of `slots` (members in their order) receives the member `order[k]`. A swap exchanges two
/// members; a move takes one member (or a method and what it calls) to the first or the last
/// place, the members it passes each moving along in their order.
struct Site<'t> {
    slots: Vec<Node<'t>>,
    order: Vec<Node<'t>>,
}

impl Site<'_> {
    /// How much the site moves: the square of the bytes that change place (big moves, such as
    /// `main` above a reader class, are what changes a detector's window).
    fn weight(&self) -> u64 {
        let moved: usize = self
            .slots
            .iter()
            .zip(&self.order)
            .filter(|(s, o)| s.id() != o.id())
            .map(|(s, _)| s.byte_range().len())
            .sum();
        (moved as u64).saturating_mul(moved as u64)
    }
}

/// Every swap of two members of `members` that keeps initialisers in their order: two members
/// that do not initialise, or one that does and passes no other initialiser.
fn swaps<'t>(members: &[Node<'t>], sites: &mut Vec<Site<'t>>) {
    for i in 0..members.len() {
        for j in i + 1..members.len() {
            let (a, b) = (members[i], members[j]);
            let movable = match (initialises(a), initialises(b)) {
                (false, false) => true,
                (true, true) => false,
                _ => !members[i + 1..j].iter().any(|m| initialises(*m)),
            };
            if movable {
                sites.push(Site {
                    slots: vec![a, b],
                    order: vec![b, a],
                });
            }
        }
    }
}

/// Every move of one member of `members` to the first or the last place. Only a member that does
/// not initialise moves; the others keep their relative order, so initialisers still run in
/// the same order. A move to a neighbouring place is a swap and already offered.
fn rotations<'t>(members: &[Node<'t>], sites: &mut Vec<Site<'t>>) {
    for (j, m) in members.iter().enumerate() {
        if initialises(*m) {
            continue;
        }
        if j >= 2 {
            let slots = members[..=j].to_vec();
            let order = std::iter::once(*m).chain(members[..j].iter().copied());
            sites.push(Site {
                order: order.collect(),
                slots,
            });
        }
        if j + 2 < members.len() {
            let slots = members[j..].to_vec();
            let order = members[j + 1..].iter().copied().chain(std::iter::once(*m));
            sites.push(Site {
                order: order.collect(),
                slots,
            });
        }
    }
}

/// The name a method or type member declares, if it is one.
fn declared_name<'p>(p: &'p JavaParsed, member: Node<'_>) -> Option<&'p str> {
    let declares = member.kind() == "method_declaration" || TYPE_KINDS.contains(&member.kind());
    declares
        .then(|| member.child_by_field_name("name"))
        .flatten()
        .map(|n| p.text(n))
}

/// Every move of a method together with the methods and types of its list that it names (what
/// it calls or constructs) to the first place, the method first and the others in their order;
/// the rest keep their order. `main` and the `solve` it calls then open the class in one step,
/// which is what a detector that reads only a window of the program sees. Only members that do
/// not initialise move, so initialisers keep their order.
fn gatherings<'t>(p: &JavaParsed, members: &[Node<'t>], sites: &mut Vec<Site<'t>>) {
    let names: Vec<Option<&str>> = members.iter().map(|o| declared_name(p, *o)).collect();
    for (m, own) in members.iter().zip(&names) {
        let (Some(own), "method_declaration") = (own, m.kind()) else {
            continue;
        };
        let spelled: BTreeSet<&str> = descendants(*m)
            .into_iter()
            .filter(|n| matches!(n.kind(), "identifier" | "type_identifier"))
            .map(|n| p.text(n))
            .collect();
        // The method and what it names, by node id.
        let group: BTreeSet<usize> = members
            .iter()
            .zip(&names)
            .filter(|(o, name)| {
                o.id() == m.id()
                    || (!initialises(**o) && name.is_some_and(|n| n != *own && spelled.contains(n)))
            })
            .map(|(o, _)| o.id())
            .collect();
        let Some(last) = members.iter().rposition(|o| group.contains(&o.id())) else {
            continue;
        };
        if group.len() < 2 {
            continue;
        }
        let slots = members[..=last].to_vec();
        let (called, rest): (Vec<Node<'t>>, Vec<Node<'t>>) = slots
            .iter()
            .filter(|o| o.id() != m.id())
            .partition(|o| group.contains(&o.id()));
        let order: Vec<Node<'t>> = std::iter::once(*m).chain(called).chain(rest).collect();
        // Already in that order: nothing moves.
        if slots.iter().zip(&order).all(|(s, o)| s.id() == o.id()) {
            continue;
        }
        sites.push(Site { slots, order });
    }
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for body in p.nodes_of_kind("class_body") {
        let members: Vec<_> = named_children(body)
            .into_iter()
            .filter(|m| is_member(*m))
            .collect();
        swaps(&members, &mut sites);
        rotations(&members, &mut sites);
        gatherings(p, &members, &mut sites);
    }
    let types: Vec<_> = named_children(p.root())
        .into_iter()
        .filter(|t| TYPE_KINDS.contains(&t.kind()))
        .collect();
    swaps(&types, &mut sites);
    rotations(&types, &mut sites);
    let weights: Vec<u64> = sites.iter().map(Site::weight).collect();
    if let Some(site) = rng.weighted_site(&weights).and_then(|k| sites.get(k)) {
        for (slot, member) in site.slots.iter().zip(&site.order) {
            if slot.id() != member.id() {
                edits.replace(slot.byte_range(), p.text(*member).to_string());
            }
        }
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
        // Only a move to the first place puts `main` above the initialised fields.
        assert!(outs
            .iter()
            .any(|o| pos(o, "public static void main") < pos(o, "STEP = {")));
        // One move opens `Main` with `main` and what it names (the reader, then `total`).
        assert!(outs.iter().any(|o| {
            let at: Vec<usize> = [
                "public static void main",
                "static class FastReader",
                "static int total",
                "static int n;",
            ]
            .iter()
            .map(|s| pos(o, s))
            .collect();
            at.windows(2).all(|w| w[0] < w[1])
        }));
        // The two initialised fields never swap.
        for o in &outs {
            assert!(pos(o, "STEP = {") < pos(o, "seen = new"), "{o}");
        }
    }
}
