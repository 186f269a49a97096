//! ## What it does
//! Removes helper methods, fields and classes that nothing in the program uses: the `gcd`,
//! `modPow`, `sieve` and debug printers of a pasted contest template, an unused `Pair` class,
//! an unused constant. Members that only call each other (`lcm` calling `gcd`, a recursive
//! helper) go when none of them is reached from the rest of the program; a member is removed
//! with every unused member that refers to it, together with the comments right above it.
//!
//! ## Why it preserves semantics
//! A method that is never called, a class that is never named and a field that is never read or
//! written change nothing when they are gone, provided nothing can reach them without spelling
//! their name. A member counts as unused only when every identifier spelling its name lies
//! inside unused members. What can reach a member without naming it is ruled out:
//! - overriding and interface implementation go by name and are resolved at run time, so no
//!   method of a class that extends or implements anything, of an interface, enum, record or
//!   anonymous class, nor one marked `@Override` or named like a method of `Object`
//!   (`toString`, `equals`, `hashCode`, `clone`, `finalize`) that string concatenation and
//!   collections call implicitly, is removed; nor `main`;
//! - reflection names members in strings, so a name that appears in a string literal is kept,
//!   and a program that uses reflection at all (`getMethod`, `getDeclaredFields`, `.class`,
//!   `getClass`, `Class.forName`) is left alone;
//! - a program without `main` is a library whose callers are not in view: it is left alone;
//! - a field initialiser runs when its class or object is initialised, so a field goes only when
//!   its initialiser can do nothing observable: literals, arithmetic on them and on names (a
//!   division only by a non-zero literal), casts to primitive types, array initialisers, arrays
//!   of literal size, and constants of `Integer`, `Long`, `Math` and their kind. A removed class
//!   was never initialised, since initialisation needs its name.
//! - Java translates `\u` escapes before it parses, so a program with one in a comment (which
//!   can hide code) is left alone, and the program may not use `import static` (an
//!   unqualified name could then mean another class's member).
//!
//! ## Example
//! ```java
//! static long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }
//! static long lcm(long a, long b) { return a / gcd(a, b) * b; }
//! static final int MOD = 1_000_000_007;
//! public static void main(String[] args) { System.out.println(6 * 7); }
//! ```
//! becomes
//! ```java
//! static final int MOD = 1_000_000_007;
//! public static void main(String[] args) { System.out.println(6 * 7); }
//! ```
//!
//! ## Not applied when
//! Nothing is unused; the program has no `main`, uses reflection or static imports, or holds a
//! `\u` escape in a comment.

use sdk::java::{JavaParsed, PRIMITIVE_LITERALS};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use std::ops::Range;
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-dead-member",
    description: "Removes helper methods, fields and classes of a Java program that nothing uses",
    category: "structure",
    rewrite: rewrite,
}

/// Methods of `Object` that the runtime and libraries call without the program naming them.
const OBJECT_METHODS: &[&str] = &["toString", "equals", "hashCode", "clone", "finalize"];

/// Spellings through which a program can list or name its members at run time.
const REFLECTION: &[&str] = &[
    "getMethod",
    "getDeclared",
    "getField",
    "getClasses",
    "getConstructor",
    "forName",
    "getClass",
    ".class",
    "MethodHandles",
];

/// Types declared as members or at the top level.
const TYPE_KINDS: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
];

/// JDK classes whose constants a field initialiser may read (reading them runs no program code).
const CONSTANT_HOLDERS: &[&str] = &[
    "Integer",
    "Long",
    "Short",
    "Byte",
    "Character",
    "Double",
    "Float",
    "Boolean",
    "Math",
];

/// A member that could go: its node and the names it declares.
struct Candidate<'t> {
    node: Node<'t>,
    names: Vec<String>,
}

/// Whether `class` (a class-like node) is a plain class: not an interface, enum, record or
/// anonymous class body, extending and implementing nothing.
fn is_plain_class(class: Node<'_>) -> bool {
    class.kind() == "class_declaration"
        && class.child_by_field_name("superclass").is_none()
        && class.child_by_field_name("interfaces").is_none()
}

/// The text of a declaration's modifiers (annotations included), or "".
fn modifiers<'p>(p: &'p JavaParsed, decl: Node<'_>) -> &'p str {
    named_children(decl)
        .into_iter()
        .find(|c| c.kind() == "modifiers")
        .map_or("", |m| p.text(m))
}

/// Whether evaluating `expr` (a field's initialiser) can do nothing observable: no call, no
/// object creation, no assignment, no division that could throw, no access to a class of the
/// program (which could start its initialisation).
fn is_inert(p: &JavaParsed, expr: Node<'_>) -> bool {
    descendants(expr).into_iter().all(|n| {
        !n.is_named()
            || match n.kind() {
                k if PRIMITIVE_LITERALS.contains(&k) => true,
                "null_literal"
                | "identifier"
                | "parenthesized_expression"
                | "unary_expression"
                | "ternary_expression"
                | "array_initializer"
                | "integral_type"
                | "floating_point_type"
                | "boolean_type"
                | "dimensions"
                | "dimensions_expr" => true,
                // A string joined with a name may call that object's `toString`.
                "string_literal" | "string_fragment" | "escape_sequence" => {
                    !descendants(expr).iter().any(|d| d.kind() == "identifier")
                }
                "binary_expression" => {
                    let op = n.child_by_field_name("operator").map(|o| p.text(o));
                    match op {
                        Some("/" | "%") => n
                            .child_by_field_name("right")
                            .is_some_and(|r| is_nonzero_literal(p, r)),
                        _ => true,
                    }
                }
                "cast_expression" => n
                    .child_by_field_name("type")
                    .is_some_and(|t| matches!(t.kind(), "integral_type" | "floating_point_type")),
                "array_creation_expression" => named_children(n).into_iter().all(|c| {
                    c.kind() != "dimensions_expr"
                        || named_children(c)
                            .into_iter()
                            .all(|d| d.kind() == "decimal_integer_literal")
                }),
                "field_access" => n.child_by_field_name("object").is_some_and(|o| {
                    o.kind() == "identifier" && CONSTANT_HOLDERS.contains(&p.text(o))
                }),
                _ => false,
            }
    })
}

/// Whether `n` is an integer or floating-point literal other than zero.
fn is_nonzero_literal(p: &JavaParsed, n: Node<'_>) -> bool {
    let digits: String = p
        .text(n)
        .chars()
        .filter(|c| c.is_ascii_digit() && *c != '0')
        .collect();
    n.kind() == "decimal_integer_literal" && !digits.is_empty()
}

/// The members the program may lose one by one: methods and fields of plain classes, and
/// classes, interfaces, enums and records that are members or non-public top-level types not
/// holding `main`.
fn candidates<'t>(p: &'t JavaParsed) -> Vec<Candidate<'t>> {
    let mut out = Vec::new();
    for n in p.nodes() {
        let parent = n.parent();
        let owner = parent
            .filter(|b| b.kind() == "class_body")
            .and_then(|b| b.parent());
        let top_level = parent.is_some_and(|r| r.kind() == "program");
        let mods = modifiers(p, n);
        match n.kind() {
            "method_declaration" => {
                let Some(name) = n.child_by_field_name("name") else {
                    continue;
                };
                let name = p.text(name);
                if owner.is_some_and(is_plain_class)
                    && name != "main"
                    && !OBJECT_METHODS.contains(&name)
                    && !mods.contains("@Override")
                {
                    out.push(Candidate {
                        node: n,
                        names: vec![name.to_string()],
                    });
                }
            }
            "field_declaration" if owner.is_some_and(|c| c.kind() == "class_declaration") => {
                let declarators: Vec<Node<'t>> = named_children(n)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                    .collect();
                let inert = declarators.iter().all(|d| {
                    d.child_by_field_name("value")
                        .is_none_or(|v| is_inert(p, v))
                });
                let names: Vec<String> = declarators
                    .iter()
                    .filter_map(|d| d.child_by_field_name("name"))
                    .map(|x| p.text(x).to_string())
                    .collect();
                if inert && !names.is_empty() && names.iter().all(|x| x != "serialVersionUID") {
                    out.push(Candidate { node: n, names });
                }
            }
            kind if TYPE_KINDS.contains(&kind) && (owner.is_some() || top_level) => {
                let Some(name) = n.child_by_field_name("name") else {
                    continue;
                };
                let public_top = top_level && mods.split_whitespace().any(|w| w == "public");
                let holds_main = p.text(n).contains("void main");
                if !public_top && !holds_main {
                    out.push(Candidate {
                        node: n,
                        names: vec![p.text(name).to_string()],
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `inner` lies within `outer`.
fn within(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The range a removed declaration takes away: its own lines when nothing else shares them,
/// with the comments directly above it (unless one holds a `\u` escape).
fn removal_range(p: &JavaParsed, node: Node<'_>) -> Range<usize> {
    let src = p.source.as_bytes();
    let mut start = node.start_byte();
    let mut prev = node.prev_sibling();
    while let Some(c) = prev.filter(|c| matches!(c.kind(), "line_comment" | "block_comment")) {
        let between = &p.source[c.end_byte()..start];
        if between.matches('\n').count() > 1 || !between.trim().is_empty() {
            break;
        }
        start = c.start_byte();
        prev = c.prev_sibling();
    }
    let mut end = node.end_byte();
    let line_start = p.source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = p.source[end..]
        .find('\n')
        .map_or(src.len(), |i| end + i + 1);
    if p.source[line_start..start].trim().is_empty() && p.source[end..line_end].trim().is_empty() {
        start = line_start;
        end = line_end;
        // The blank line that separated it from the member above goes with it.
        let before = &p.source[..start];
        if let Some(prev_start) = before.strip_suffix('\n').and_then(|b| {
            let s = b.rfind('\n').map_or(0, |i| i + 1);
            b[s..].trim().is_empty().then_some(s)
        }) {
            start = prev_start;
        }
    }
    start..end
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = p.source.as_str();
    let comment_escape = p
        .nodes()
        .into_iter()
        .any(|n| matches!(n.kind(), "line_comment" | "block_comment") && p.text(n).contains("\\u"));
    if !src.contains("static void main")
        || src.contains("import static")
        || REFLECTION.iter().any(|r| src.contains(r))
        || comment_escape
    {
        return edits;
    }
    let strings: Vec<&str> = p
        .nodes_of_kind("string_literal")
        .into_iter()
        .map(|s| p.text(s))
        .collect();
    let idents: Vec<Node<'_>> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "identifier" | "type_identifier"))
        .collect();
    let mut dead: Vec<Candidate<'_>> = candidates(p)
        .into_iter()
        .filter(|c| {
            c.names
                .iter()
                .all(|name| !strings.iter().any(|s| s.contains(name.as_str())))
        })
        .collect();
    // The greatest set whose names are spelled only inside its own members.
    loop {
        let ranges: Vec<Range<usize>> = dead.iter().map(|c| c.node.byte_range()).collect();
        let before = dead.len();
        dead.retain(|c| {
            idents
                .iter()
                .filter(|i| c.names.iter().any(|n| n == p.text(**i)))
                .all(|i| ranges.iter().any(|r| within(&i.byte_range(), r)))
        });
        if dead.len() == before {
            break;
        }
    }
    if dead.is_empty() {
        return edits;
    }
    let mut removed = vec![false; dead.len()];
    for i in rng.sites(dead.len(), 0.5) {
        if let Some(r) = removed.get_mut(i) {
            *r = true;
        }
    }
    // Close the choice: a kept member that spells a removed name goes too (the innermost kept
    // member around that spelling).
    loop {
        let mut grew = false;
        for c in 0..dead.len() {
            if !removed[c] {
                continue;
            }
            let spellings: Vec<Range<usize>> = idents
                .iter()
                .filter(|i| dead[c].names.iter().any(|n| n == p.text(**i)))
                .map(|i| i.byte_range())
                .collect();
            for at in spellings {
                let inside = |k: usize| within(&at, &dead[k].node.byte_range());
                if (0..dead.len()).any(|k| removed[k] && inside(k)) {
                    continue;
                }
                let holder = (0..dead.len())
                    .filter(|k| inside(*k))
                    .min_by_key(|k| dead[*k].node.byte_range().len());
                match holder {
                    Some(k) => {
                        removed[k] = true;
                        grew = true;
                    }
                    // Cannot happen for a closed set; decline rather than break the program.
                    None => return Edits::new(),
                }
            }
        }
        if !grew {
            break;
        }
    }
    let gone: Vec<Node<'_>> = dead
        .iter()
        .zip(&removed)
        .filter(|(_, r)| **r)
        .map(|(c, _)| c.node)
        .collect();
    for n in &gone {
        let r = n.byte_range();
        // A member inside another removed one goes with it.
        if gone
            .iter()
            .any(|o| o.id() != n.id() && within(&r, &o.byte_range()))
        {
            continue;
        }
        let range = removal_range(p, *n);
        if !edits.overlaps(&range) {
            edits.replace(range, String::new());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::{apply, apply_at_site};
    sdk::java_fixture_tests!(apply);

    #[test]
    fn unused_template_helpers_go_and_used_ones_stay() {
        let src = include_str!("../fixtures/template.java");
        let (_, offered) = apply_at_site(src, 0, 0);
        assert!(offered >= 5, "{offered}");
        let mut gone_gcd = false;
        for seed in 0..24 {
            let out = apply(src, seed).expect("parses").expect("applies");
            // Used members never go.
            for used in [
                "static int nextInt",
                "String next()",
                "static long prefix",
                "class Main",
            ] {
                assert!(out.contains(used), "{used} removed:\n{out}");
            }
            // lcm calls gcd: gcd never goes without lcm.
            if !out.contains("long gcd(") {
                gone_gcd = true;
                assert!(!out.contains("long lcm("), "{out}");
            }
            // The field whose initialiser prints stays.
            assert!(out.contains("LOUD"), "{out}");
        }
        assert!(gone_gcd);
    }

    #[test]
    fn reachable_without_a_name_or_by_reflection_is_kept() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Called implicitly by string concatenation.
                "class P { public String toString() { return \"p\"; } } public class Main { public static void main(String[] a) { System.out.println(\"\" + new P()); } }",
                // Overrides or implements through a superclass.
                "abstract class B { abstract int f(); } class C extends B { int f() { return 1; } } public class Main { public static void main(String[] a) { B b = new C(); System.out.println(b.f()); } }",
                // Reflection.
                "public class Main { static int f() { return 1; } public static void main(String[] a) throws Exception { System.out.println(Main.class.getDeclaredMethods().length); } }",
                // A library: callers are not in view.
                "public class Lib { static int f() { return 1; } }",
                // An initialiser that runs code.
                "public class Main { static int x = init(); static int init() { System.out.println(1); return 1; } public static void main(String[] a) { } }",
                // Division by a name could throw at initialisation.
                "public class Main { static int z = 0; static int x = 1 / z; public static void main(String[] a) { System.out.println(z); } }",
                // Named in a string.
                "public class Main { static int f() { return 1; } public static void main(String[] a) { System.out.println(\"f\"); } }",
            ],
            16,
        );
    }
}
