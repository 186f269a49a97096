//! ## What it does
//! Moves the body of a class's `public static void main(String[] args)` into a new instance
//! method, and has `main` create an instance and call it:
//! `public static void main(String[] args) { new Main().solve(args); }`.
//!
//! ## Why it preserves semantics
//! The body runs unchanged with the same `args`; an instance method sees the class's static
//! fields and methods exactly as a static one does, and the body (being from a static method)
//! never used `this`. `return;` in the body still ends the run; exceptions propagate through
//! the extra frame unchanged; the `throws` clause moves along. Creating the instance must do
//! nothing observable, so the class may have no constructor of its own (the implicit one runs
//! no code), no instance field with an initialiser, no instance initialiser block, and no
//! superclass other than `Object`. The new method's name is fresh, so it overloads and
//! overrides nothing.
//!
//! ## Example
//! ```java
//! public static void main(String[] args) { System.out.println(42); }
//! ```
//! becomes
//! ```java
//! public static void main(String[] args) { new Main().solve(args); }
//!
//! void solve(String[] args) { System.out.println(42); }
//! ```
//!
//! ## Not applied when
//! The class is abstract, generic, nested or an enum/record/interface, extends a class, or has
//! constructors, instance initialisers or instance fields with initialisers; the program holds
//! a text block.

use sdk::java::{fresh_names, has_text_block, shift_lines, JavaParsed};
use sdk::parse::named_children;
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-main-object",
    description: "Moves a Java main body into an instance method called on a new object",
    category: "structure",
    rewrite: rewrite,
}

fn modifiers<'a>(p: &'a JavaParsed, n: tree_sitter::Node<'_>) -> &'a str {
    named_children(n)
        .into_iter()
        .find(|c| c.kind() == "modifiers")
        .map_or("", |m| p.text(m))
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_text_block(p) {
        return edits;
    }
    let mut sites = Vec::new();
    for class in p.nodes_of_kind("class_declaration") {
        if class.parent().is_none_or(|r| r.kind() != "program")
            || class.child_by_field_name("superclass").is_some()
            || class.child_by_field_name("type_parameters").is_some()
            || modifiers(p, class).contains("abstract")
        {
            continue;
        }
        let Some(body) = class.child_by_field_name("body") else {
            continue;
        };
        let members = named_children(body);
        let blocked = members.iter().any(|m| match m.kind() {
            "constructor_declaration" | "block" => true,
            "field_declaration" => {
                !modifiers(p, *m).split_whitespace().any(|w| w == "static")
                    && named_children(*m).iter().any(|d| {
                        d.kind() == "variable_declarator"
                            && d.child_by_field_name("value").is_some()
                    })
            }
            _ => false,
        });
        if blocked {
            continue;
        }
        let main = members.iter().copied().find(|m| {
            m.kind() == "method_declaration"
                && m.child_by_field_name("name")
                    .is_some_and(|n| p.text(n) == "main")
                && modifiers(p, *m).split_whitespace().any(|w| w == "static")
                && m.child_by_field_name("type")
                    .is_some_and(|t| p.text(t) == "void")
                && m.child_by_field_name("parameters")
                    .is_some_and(|ps| named_children(ps).len() == 1)
        });
        if let (Some(main), Some(name)) = (main, class.child_by_field_name("name")) {
            sites.push((main, p.text(name).to_string()));
        }
    }
    let mut fresh = fresh_names(p);
    let unit = p.indent_unit();
    if let Some(k) = rng.site(sites.len()) {
        let (main, class) = &sites[k];
        let (Some(params), Some(body)) = (
            main.child_by_field_name("parameters"),
            main.child_by_field_name("body"),
        ) else {
            return edits;
        };
        let Some(param) = named_children(params).into_iter().next() else {
            return edits;
        };
        let arg = if param.kind() == "spread_parameter" {
            named_children(param)
                .into_iter()
                .find(|c| c.kind() == "variable_declarator")
                .and_then(|d| d.child_by_field_name("name"))
        } else {
            param.child_by_field_name("name")
        };
        let Some(arg) = arg else { return edits };
        let hint = ["solve", "run", "execute", "process"][rng.below(4)];
        let method = fresh.fresh(rng, Some(hint));
        let throws = named_children(*main)
            .into_iter()
            .find(|c| c.kind() == "throws")
            .map_or(String::new(), |t| format!(" {}", p.text(t)));
        let ind = p.indent_of(*main).to_string();
        let body_text = shift_lines(p.text(body), &ind, &ind);
        edits.replace(
            body.byte_range(),
            format!(
                "{{\n{ind}{unit}new {class}().{method}({});\n{ind}}}",
                p.text(arg)
            ),
        );
        edits.insert(
            main.end_byte(),
            format!(
                "\n\n{ind}void {method}({}){throws} {body_text}",
                p.text(param)
            ),
        );
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn classes_whose_construction_does_something_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "public class Main { int[] a = new int[3]; public static void main(String[] args) { } }",
                "public class Main { Main() { System.out.println(1); } public static void main(String[] args) { } }",
                "public class Main { { System.out.println(1); } public static void main(String[] args) { } }",
                "public class Main extends Thread { public static void main(String[] args) { } }",
            ],
            8,
        );
    }
}
