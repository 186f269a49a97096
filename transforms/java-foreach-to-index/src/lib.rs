//! ## What it does
//! Rewrites an enhanced `for` loop over a local array as an indexed loop, and one over a local
//! collection as an explicit iterator loop:
//! `for (T x : arr) body` → `for (int i = 0; i < arr.length; i++) { T x = arr[i]; body }` and
//! `for (T x : list) body` → `for (var it = list.iterator(); it.hasNext(); ) { T x = it.next(); body }`.
//!
//! ## Why it preserves semantics
//! This is the expansion the Java Language Specification gives for the enhanced `for`. The
//! array or collection is a local variable that the body never assigns, so reading it once or
//! on every iteration is the same. The loop variable is declared afresh in every iteration with
//! its own type and modifiers (`final`, `var`), so unboxing (`int x` over `List<Integer>`),
//! capture by lambdas and definite assignment are unchanged; `continue` still advances the
//! index or iterator because the update sits in the loop header (or `next()` ran first).
//! A collection modified during the loop fails the same way: the iterator is the one the
//! enhanced `for` would have used.
//!
//! ## Example
//! ```java
//! for (int v : values) total += v;
//! ```
//! becomes
//! ```java
//! for (int idx = 0; idx < values.length; idx++) { int v = values[idx]; total += v; }
//! ```
//!
//! ## Not applied when
//! - the iterated expression is not a local variable (a field, a call: it could change or have
//!   effects), or its declared type is neither an array nor a known `java.util` collection;
//! - the body assigns that variable.

use sdk::java::{fresh_names, scope, JavaParsed};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-foreach-to-index",
    description: "Expands a Java enhanced for loop into an indexed loop (arrays) or an iterator loop (collections)",
    category: "control-flow",
    rewrite: rewrite,
}

enum Kind {
    Array,
    Collection,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let sites: Vec<_> = p
        .nodes_of_kind("enhanced_for_statement")
        .into_iter()
        .filter_map(|f| {
            let value = f.child_by_field_name("value")?;
            if value.kind() != "identifier" {
                return None;
            }
            let name = p.text(value);
            let local = locals
                .iter()
                .rev()
                .find(|l| l.name == name && l.scope.contains(&f.start_byte()))?;
            let ty = local.ty.as_deref()?.trim();
            let kind = if ty.ends_with("[]") {
                Kind::Array
            } else if sdk::java::COLLECTIONS.contains(&ty.split('<').next().unwrap_or("").trim()) {
                Kind::Collection
            } else {
                return None;
            };
            let body = f.child_by_field_name("body")?;
            let assigned = sdk::parse::descendants(body).into_iter().any(|n| {
                (n.kind() == "assignment_expression"
                    && n.child_by_field_name("left")
                        .is_some_and(|l| p.text(l) == name))
                    || (n.kind() == "update_expression"
                        && p.text(n).trim_matches(['+', '-']) == name)
            });
            (!assigned).then_some((f, kind))
        })
        .collect();
    let mut fresh = fresh_names(p);
    for i in rng.sites(sites.len(), 0.5) {
        let (f, kind) = &sites[i];
        if edits.overlaps(&f.byte_range()) {
            continue;
        }
        let (Some(value), Some(name), Some(ty), Some(body)) = (
            f.child_by_field_name("value"),
            f.child_by_field_name("name"),
            f.child_by_field_name("type"),
            f.child_by_field_name("body"),
        ) else {
            continue;
        };
        // Modifiers (`final`, annotations) sit before the type.
        let modifiers = p.source[f.start_byte()..ty.start_byte()]
            .split_once('(')
            .map_or("", |(_, m)| m)
            .trim();
        let dims = f
            .child_by_field_name("dimensions")
            .map_or("", |d| p.text(d));
        let decl_ty = format!(
            "{}{}{}",
            if modifiers.is_empty() {
                String::new()
            } else {
                format!("{modifiers} ")
            },
            p.text(ty),
            dims
        );
        let (v, x) = (p.text(value), p.text(name));
        let body_text = p.text(body);
        let (head, first) = match kind {
            Kind::Array => {
                let idx = fresh.fresh(rng, Some("idx"));
                (
                    format!("for (int {idx} = 0; {idx} < {v}.length; {idx}++)"),
                    format!("{decl_ty} {x} = {v}[{idx}];"),
                )
            }
            Kind::Collection => {
                let it = fresh.fresh(rng, Some("iter"));
                (
                    format!("for (var {it} = {v}.iterator(); {it}.hasNext(); )"),
                    format!("{decl_ty} {x} = {it}.next();"),
                )
            }
        };
        edits.replace(f.byte_range(), format!("{head} {{ {first} {body_text} }}"));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn reassigned_or_non_local_sources_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { static int[] f = {1}; void g() { for (int x : f) { } } }",
                "class A { void g(int[] a) { for (int x : a) { a = new int[0]; } } }",
                "class A { void g(Iterable<String> a) { for (String x : make()) { } } java.util.List<String> make() { return null; } }",
            ],
            8,
        );
    }
}
