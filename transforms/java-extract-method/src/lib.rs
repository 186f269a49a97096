//! ## What it does
//! Moves the body of a braced block inside a `static` method (the body of an `if`, `else`,
//! loop, or a bare block) into a new `private static void` method of the same class, and calls
//! it with the outer locals the block reads as arguments.
//!
//! ## Why it preserves semantics
//! The block runs the same statements, in the same order, with the same values: every outer
//! local it reads is passed by value, and the block never assigns an outer local (which a
//! parameter could not carry back) — objects and arrays are shared by reference, so their
//! mutations are seen as before. The block does not `return`, `break`, `continue` or `yield`
//! out of itself, so control leaves it only by completing or by an exception, which propagates
//! through the call unchanged. The new method copies the enclosing method's `throws` clause,
//! and blocks inside a `try` are declined, so every checked exception the block may throw is
//! declared where javac requires it (the trap: an exception caught by an enclosing `try` would
//! otherwise be "unreported" in the new method). Parameters take the outer locals' declared
//! types, so overloads resolve as before. Fields and static methods are reached from the new
//! `static` method exactly as from the old one.
//!
//! ## Example
//! ```java
//! for (int i = 0; i < n; i++) {
//!     total[0] += i * i;
//! }
//! ```
//! becomes
//! ```java
//! for (int i = 0; i < n; i++) {
//!     accumulate(total, i);
//! }
//! …
//! private static void accumulate(long[] total, int i) {
//!     total[0] += i * i;
//! }
//! ```
//!
//! ## Not applied when
//! - the enclosing method is not `static`, is generic, or is inside a nested or anonymous class;
//! - the block assigns or increments an outer local, jumps out of itself, always throws (the
//!   method could be left without a `return` javac can see), is inside a `try`,
//!   uses `this`/`super`, holds a class body, or reads an outer local whose type is `var` or
//!   inferred (a lambda parameter);
//! - the program holds a text block.

use sdk::java::{
    can_complete_normally, enclosing, fresh_names, has_text_block, jumps_out, scope, shift_lines,
    JavaParsed,
};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-extract-method",
    description: "Extracts a Java block of a static method into a new private static method",
    category: "structure",
    rewrite: rewrite,
}

struct Site<'t> {
    block: Node<'t>,
    method: Node<'t>,
    params: Vec<(String, String)>,
}

fn site<'t>(p: &'t JavaParsed, block: Node<'t>, locals: &[scope::Local<'t>]) -> Option<Site<'t>> {
    let parent = block.parent()?;
    if !matches!(
        parent.kind(),
        "if_statement"
            | "for_statement"
            | "enhanced_for_statement"
            | "while_statement"
            | "do_statement"
            | "block"
    ) || sdk::java::statements(block).is_empty()
    {
        return None;
    }
    let method = enclosing(block, &["method_declaration"])?;
    let modifiers = sdk::parse::named_children(method)
        .into_iter()
        .find(|c| c.kind() == "modifiers")
        .map_or("", |m| p.text(m));
    let class_body = method.parent()?;
    let top_level = class_body.parent().is_some_and(|c| {
        c.kind() == "class_declaration" && c.parent().is_some_and(|r| r.kind() == "program")
    });
    if !modifiers.split_whitespace().any(|w| w == "static")
        || method.child_by_field_name("type_parameters").is_some()
        || !top_level
        || enclosing(block, &["try_statement", "try_with_resources_statement"]).is_some_and(|t| t.start_byte() > method.start_byte())
        || jumps_out(block, true)
        // A block that always throws would leave its method without a `return` javac can see.
        || !can_complete_normally(block, &p.source)
    {
        return None;
    }
    let inside = descendants(block);
    if inside.iter().any(|n| {
        matches!(
            n.kind(),
            "this" | "super" | "yield_statement" | "class_body" | "labeled_statement"
        )
    }) {
        return None;
    }
    // Outer locals: declared before the block, in scope at it.
    let outer: Vec<&scope::Local<'t>> = locals
        .iter()
        .filter(|l| {
            l.decl.start_byte() < block.start_byte()
                && l.scope.contains(&block.start_byte())
                && l.scope.end >= block.end_byte()
        })
        .collect();
    let mut params: Vec<(String, String)> = Vec::new();
    for n in &inside {
        if n.kind() != "identifier" || !scope::is_variable_position(*n) {
            continue;
        }
        let name = p.text(*n);
        let Some(l) = outer.iter().rev().find(|l| l.name == name) else {
            continue;
        };
        // Written inside the block: a parameter could not carry the new value back.
        let written = n.parent().is_some_and(|q| {
            (q.kind() == "assignment_expression"
                && q.child_by_field_name("left")
                    .is_some_and(|x| x.id() == n.id()))
                || q.kind() == "update_expression"
        });
        if written {
            return None;
        }
        let ty = l.ty.as_deref()?;
        if ty == "var" || ty.contains('|') {
            return None;
        }
        let ty = ty.to_string();
        if !params.iter().any(|(n2, _)| n2 == name) {
            params.push((name.to_string(), ty));
        }
    }
    Some(Site {
        block,
        method,
        params,
    })
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_text_block(p) {
        return edits;
    }
    let locals = scope::locals(p);
    let sites: Vec<Site<'_>> = p
        .nodes_of_kind("block")
        .into_iter()
        .filter_map(|b| site(p, b, &locals))
        .collect();
    let mut fresh = fresh_names(p);
    let unit = p.indent_unit();
    for i in rng.sites(sites.len(), 0.4) {
        let s = &sites[i];
        if edits.overlaps(&s.block.byte_range()) {
            continue;
        }
        let name = fresh.fresh(rng, Some("helper"));
        let args: Vec<&str> = s.params.iter().map(|(n, _)| n.as_str()).collect();
        let decl: Vec<String> = s.params.iter().map(|(n, t)| format!("{t} {n}")).collect();
        let throws = sdk::parse::named_children(s.method)
            .into_iter()
            .find(|c| c.kind() == "throws")
            .map_or(String::new(), |t| format!(" {}", p.text(t)));
        let block_ind = p.indent_of(s.block).to_string();
        let method_ind = p.indent_of(s.method).to_string();
        // The block's own text, moved to the new method's indentation.
        let body = shift_lines(p.text(s.block), &block_ind, &method_ind);
        let helper = format!(
            "\n\n{method_ind}private static void {name}({}){throws} {body}",
            decl.join(", ")
        );
        edits.replace(
            s.block.byte_range(),
            format!(
                "{{\n{block_ind}{unit}{name}({});\n{block_ind}}}",
                args.join(", ")
            ),
        );
        edits.insert(s.method.end_byte(), helper);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn assignments_jumps_and_try_blocks_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { static void f(int n) { int t = 0; if (n > 0) { t = n; } } }",
                "class A { static int f(int n) { while (n > 0) { if (n == 3) { break; } n--; } return n; } }",
                "class A { static void f() { try { if (true) { Thread.sleep(1); } } catch (InterruptedException e) { } } }",
                "class A { void f(int n) { if (n > 0) { System.out.println(n); } } }",
            ],
            16,
        );
    }
}
