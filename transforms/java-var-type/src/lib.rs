//! ## What it does
//! Switches a local declaration between an explicit type and `var`:
//! `StringBuilder sb = new StringBuilder();` ↔ `var sb = new StringBuilder();`, and
//! `int n = 0;` ↔ `var n = 0;` when the initialiser's type is exactly the declared one.
//!
//! ## Why it preserves semantics
//! `var` gives the local the static type of its initialiser, so the rewrite only happens when
//! that type is exactly the declared one: a literal of that very type (`int` for `0`, `long`
//! for `0L`, `double` for `1.5`, `char`, `boolean`, `String`), or `new T(…)`/`new T[…]` with
//! `T` spelled as declared. The traps avoided: `long x = 0` would become an `int`, `List<X> l =
//! new ArrayList<>()` would change the static type (and overload resolution), a diamond `new
//! T<>()` with `var` infers `T<Object>`, an enhanced-`for` variable over boxed values would
//! change from `int` to `Integer`, and `var` is not allowed for several declarators, array
//! initialisers or C-style array declarators. A `final` stays `final` (and a constant stays a
//! constant).
//!
//! ## Example
//! ```java
//! Scanner in = new Scanner(System.in);
//! ```
//! becomes
//! ```java
//! var in = new Scanner(System.in);
//! ```
//!
//! ## Not applied when
//! See above; fields and enhanced-`for` variables are never touched.

use sdk::java::JavaParsed;
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-var-type",
    description: "Switches Java local declarations between an explicit type and var where the type is exactly the same",
    category: "naming",
    rewrite: rewrite,
}

/// The exact static type of an initialiser, when it is evident from its syntax.
fn evident_type(p: &JavaParsed, e: Node<'_>) -> Option<String> {
    let t = p.text(e);
    Some(match e.kind() {
        "decimal_integer_literal" | "hex_integer_literal" => if t.ends_with(['l', 'L']) {
            "long"
        } else {
            "int"
        }
        .to_string(),
        "decimal_floating_point_literal" => if t.ends_with(['f', 'F']) {
            "float"
        } else {
            "double"
        }
        .to_string(),
        "true" | "false" => "boolean".into(),
        "character_literal" => "char".into(),
        "string_literal" => "String".into(),
        "object_creation_expression" => {
            let ty = e.child_by_field_name("type")?;
            if e.named_children(&mut e.walk())
                .any(|c| c.kind() == "class_body")
                || p.text(ty).contains("<>")
            {
                return None;
            }
            p.text(ty).to_string()
        }
        "array_creation_expression" => {
            if named_children(e)
                .iter()
                .any(|c| c.kind() == "array_initializer")
            {
                return None;
            }
            let ty = e.child_by_field_name("type")?;
            let dims = named_children(e)
                .iter()
                .filter(|c| matches!(c.kind(), "dimensions_expr" | "dimensions"))
                .map(|c| p.text(*c).matches('[').count())
                .sum::<usize>();
            format!("{}{}", p.text(ty), "[]".repeat(dims))
        }
        _ => return None,
    })
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for d in p.nodes_of_kind("local_variable_declaration") {
        let decls: Vec<_> = named_children(d)
            .into_iter()
            .filter(|c| c.kind() == "variable_declarator")
            .collect();
        let Some(ty) = d.child_by_field_name("type") else {
            continue;
        };
        if decls.len() != 1 || decls[0].child_by_field_name("dimensions").is_some() {
            continue;
        }
        let Some(value) = decls[0].child_by_field_name("value") else {
            continue;
        };
        let Some(evident) = evident_type(p, value) else {
            continue;
        };
        let declared = p.text(ty);
        let compact = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        if declared == "var" {
            sites.push((ty, evident));
        } else if compact(declared) == compact(&evident) {
            sites.push((ty, "var".to_string()));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (ty, text) = &sites[i];
        edits.replace(ty.byte_range(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn type_changing_declarations_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { void f() { long x = 0; double d = 1; java.util.List<Integer> l = new java.util.ArrayList<>(); java.util.ArrayList<Integer> m = new java.util.ArrayList<>(); int[] a = {1}; int b[] = new int[2]; int c = 1, e = 2; Object o = \"s\"; } }",
                "class A { void f(java.util.List<Integer> xs) { for (int x : xs) { } } }",
            ],
            16,
        );
    }
}
