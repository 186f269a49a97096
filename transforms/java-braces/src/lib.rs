//! ## What it does
//! Adds braces around the single statement of an `if`, `else`, `for`, `while` or `do` body, or
//! removes the braces of a body that holds exactly one statement.
//!
//! ## Why it preserves semantics
//! A block holding one statement executes that statement. Two traps are avoided. A declaration
//! may not stand alone as a body (`if (c) int x = 1;` does not compile), so a block whose
//! statement is a declaration (or a local class) keeps its braces. And the dangling `else`: the
//! braces of `if (a) { if (b) x(); } else y();` decide which `if` the `else` belongs to, so the
//! then-body of an `if` that has an `else` keeps its braces when its statement is an `if` or
//! ends in one (a loop whose body is an `if`), and so does such a body nested in that
//! then-branch without braces of its own.
//!
//! ## Example
//! ```java
//! for (int i = 0; i < n; i++) { total += i; }
//! ```
//! becomes
//! ```java
//! for (int i = 0; i < n; i++) total += i;
//! ```
//!
//! ## Not applied when
//! See above; also when a comment sits inside the braces (it would be left dangling).

use sdk::java::{statements, JavaParsed};
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-braces",
    description: "Adds or removes braces around single-statement Java bodies (dangling else and declarations respected)",
    category: "layout",
    rewrite: rewrite,
}

/// Whether `stmt` is an `if` or ends in one that could capture a following `else`.
fn ends_in_if(stmt: Node<'_>) -> bool {
    match stmt.kind() {
        "if_statement" => true,
        "for_statement" | "enhanced_for_statement" | "while_statement" | "labeled_statement" => {
            stmt.child_by_field_name("body")
                .or_else(|| named_children(stmt).last().copied())
                .is_some_and(ends_in_if)
        }
        _ => false,
    }
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites: Vec<(Node<'_>, String)> = Vec::new();
    for n in p.nodes() {
        let bodies: Vec<(Node<'_>, bool)> = match n.kind() {
            "if_statement" => {
                let has_else = n.child_by_field_name("alternative").is_some();
                n.child_by_field_name("consequence")
                    .map(|c| (c, has_else))
                    .into_iter()
                    .chain(
                        n.child_by_field_name("alternative")
                            .filter(|a| a.kind() != "if_statement")
                            .map(|a| (a, false)),
                    )
                    .collect()
            }
            "for_statement" | "enhanced_for_statement" | "while_statement" | "do_statement" => n
                .child_by_field_name("body")
                .map(|b| (b, false))
                .into_iter()
                .collect(),
            _ => continue,
        };
        // Inside an `if` with an else, any body ending in an if must keep its braces too
        // (an enclosing then-branch).
        for (body, then_with_else) in bodies {
            if body.kind() == "block" {
                let stmts = statements(body);
                if stmts.len() != 1 || named_children(body).len() != 1 {
                    continue;
                }
                let s = stmts[0];
                if matches!(
                    s.kind(),
                    "local_variable_declaration"
                        | "local_class_declaration"
                        | "class_declaration"
                        | "record_declaration"
                        | "interface_declaration"
                        | "enum_declaration"
                ) || (then_with_else && ends_in_if(s))
                    || ends_in_if(s) && inside_then_with_else(body)
                {
                    continue;
                }
                sites.push((body, p.text(s).to_string()));
            } else {
                sites.push((body, format!("{{ {} }}", p.text(body))));
            }
        }
    }
    for i in rng.sites(sites.len(), 0.4) {
        let (body, text) = &sites[i];
        if !edits.overlaps(&body.byte_range()) {
            edits.replace(body.byte_range(), text.clone());
        }
    }
    edits
}

/// Whether `node` lies (possibly deep) in the then-branch of an `if` that has an `else`, with
/// no braces in between that would shield it.
fn inside_then_with_else(node: Node<'_>) -> bool {
    let mut cur = node;
    while let Some(parent) = cur.parent() {
        if parent.kind() == "block" && parent.id() != node.id() {
            return false;
        }
        if parent.kind() == "if_statement"
            && parent
                .child_by_field_name("consequence")
                .is_some_and(|c| c.id() == cur.id())
            && parent.child_by_field_name("alternative").is_some()
        {
            return true;
        }
        cur = parent;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn dangling_else_and_declarations_keep_their_braces() {
        let cases = [
            ("class A { void f(boolean a, boolean b) { if (a) { if (b) g(); } else h(); } void g() {} void h() {} }", "} else"),
            ("class A { void f(boolean a) { if (a) { int x = 1; } } }", "{ int x = 1; }"),
            ("class A { void f(boolean a, boolean b) { if (a) { while (b) { if (b) g(); } } else h(); } void g() {} void h() {} }", "} else"),
        ];
        for (src, kept) in cases {
            for seed in 0..32 {
                if let Ok(Some(out)) = apply(src, seed) {
                    assert!(out.contains(kept), "seed {seed} lost `{kept}`:\n{out}");
                }
            }
        }
    }
}
