//! The Java side of the SDK: tree-sitter-java parsing, statement and expression helpers, and
//! ([`scope`]) local bindings with what may and may not be renamed.
//!
//! Language-neutral pieces are shared with the Python side: [`crate::Edits`], [`crate::Rng`],
//! [`crate::names::FreshNames`] (through [`fresh_names`]) and the line helpers of [`crate::text`].

pub mod scope;

use crate::parse::{descendants, named_children, ParseError};
use crate::{Edits, Outcome, Rng};
use tree_sitter::{Node, Parser, Tree};

/// Java's reserved words, literals and the names of `java.lang` types a program may use
/// unqualified: a fresh name is never one of them.
pub const RESERVED: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "yield",
    "record",
    "sealed",
    "permits",
    "when",
    "module",
    "open",
    "exports",
    "requires",
    "uses",
    "provides",
    "to",
    "with",
    "transitive",
    "opens",
    "String",
    "Object",
    "Integer",
    "Long",
    "Math",
    "System",
    "Character",
    "Double",
    "Boolean",
    "Byte",
    "Short",
    "Float",
    "StringBuilder",
    "Thread",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "Iterable",
    "Runnable",
    "Comparable",
    "Number",
    "Class",
    "Void",
    "Record",
    "Enum",
    "it",
    "main",
    "args",
];

/// A parsed Java program: its text and syntax tree (without ERROR or MISSING nodes).
pub struct JavaParsed {
    /// The source text.
    pub source: String,
    /// The tree-sitter-java syntax tree of `source`.
    pub tree: Tree,
}

impl JavaParsed {
    /// Parses `source`; a tree with an ERROR or MISSING node is a [`ParseError::Syntax`].
    pub fn new(source: &str) -> Result<Self, ParseError> {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_java::LANGUAGE.into())
            .map_err(|e| ParseError::Language(e.to_string()))?;
        let tree = parser
            .parse(source, None)
            .ok_or_else(|| ParseError::Language("parser returned no tree".into()))?;
        if let Some(line) = crate::parse::first_error_line(tree.root_node()) {
            return Err(ParseError::JavaSyntax { line });
        }
        Ok(JavaParsed {
            source: source.to_string(),
            tree,
        })
    }

    /// The root (`program`) node.
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of `node`.
    pub fn text(&self, node: Node<'_>) -> &str {
        &self.source[node.byte_range()]
    }

    /// Every node in document order.
    pub fn nodes(&self) -> Vec<Node<'_>> {
        descendants(self.root())
    }

    /// Nodes of one kind in document order.
    pub fn nodes_of_kind(&self, kind: &str) -> Vec<Node<'_>> {
        self.nodes()
            .into_iter()
            .filter(|n| n.kind() == kind)
            .collect()
    }

    /// The indentation of the line `node` starts on.
    pub fn indent_of(&self, node: Node<'_>) -> &str {
        crate::text::line_indent(&self.source, node.start_byte())
    }

    /// One level of indentation as the program writes it (a tab, or 2–8 spaces; 4 if unsure).
    pub fn indent_unit(&self) -> String {
        crate::text::brace_indent_unit(&self.source)
    }
}

/// Parses `source` as Java, runs `rewrite` and applies its edits (see [`crate::run`]).
pub fn run(
    source: &str,
    seed: u64,
    rewrite: impl FnOnce(&JavaParsed, &mut Rng) -> Edits,
) -> Outcome {
    run_with(source, Rng::new(seed), rewrite).0
}

/// Like [`run`], rewriting only the `site`-th candidate site; also returns how many sites
/// were offered.
pub fn run_at_site(
    source: &str,
    seed: u64,
    site: usize,
    rewrite: impl FnOnce(&JavaParsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    run_with(source, Rng::forcing_site(seed, site), rewrite)
}

fn run_with(
    source: &str,
    rng: Rng,
    rewrite: impl FnOnce(&JavaParsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    crate::run_parsed(source, rng, JavaParsed::new, rewrite)
}

/// `java.util` collection types (and `Iterable`) whose iteration is their iterator's, in the
/// order an enhanced `for` visits them: what loop rewrites accept as a declared local's type.
pub const COLLECTIONS: &[&str] = &[
    "List",
    "ArrayList",
    "LinkedList",
    "Set",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "SortedSet",
    "NavigableSet",
    "Collection",
    "Deque",
    "ArrayDeque",
    "Queue",
    "PriorityQueue",
    "Iterable",
    "Vector",
    "Stack",
];

/// Fresh identifiers for a Java program: none is a word of the program or in [`RESERVED`].
pub fn fresh_names(parsed: &JavaParsed) -> crate::names::FreshNames {
    crate::names::FreshNames::avoiding(&parsed.source, RESERVED)
}

/// The statements of a `block`, `constructor_body` or `switch_block_statement_group` (comments
/// and labels left out).
pub fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    named_children(block)
        .into_iter()
        .filter(|n| is_statement(n.kind()))
        .collect()
}

/// The statements of `block` that javac sees as reachable: those up to and including the first
/// that cannot complete normally (code may be inserted before any of them).
pub fn reachable_statements<'t>(block: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let stmts = statements(block);
    let end = stmts
        .iter()
        .position(|s| !can_complete_normally(*s, src))
        .map_or(stmts.len(), |i| i + 1);
    stmts[..end].to_vec()
}

/// Whether a node kind is a statement.
pub fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "local_variable_declaration"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "enhanced_for_statement"
            | "do_statement"
            | "block"
            | "return_statement"
            | "break_statement"
            | "continue_statement"
            | "throw_statement"
            | "try_statement"
            | "try_with_resources_statement"
            | "switch_expression"
            | "labeled_statement"
            | "synchronized_statement"
            | "assert_statement"
            | "yield_statement"
            | "local_class_declaration"
            | "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | ";"
    )
}

/// Whether a node kind starts a new class body (whose members may shadow outer names and
/// whose `this`, `return`, `break` and `continue` are its own).
pub fn is_class_like(kind: &str) -> bool {
    matches!(
        kind,
        "class_body"
            | "interface_body"
            | "enum_body"
            | "record_declaration"
            | "annotation_type_body"
    )
}

/// Whether a node kind is a loop.
pub fn is_loop(kind: &str) -> bool {
    matches!(
        kind,
        "for_statement" | "enhanced_for_statement" | "while_statement" | "do_statement"
    )
}

/// Whether `body` contains a `break` or `continue` (unlabelled or labelled) or a `yield` that
/// leaves it, looking inside nested loops and switches only for labelled jumps; lambdas and
/// class bodies are not entered. `return` is reported when `returns` is set.
pub fn jumps_out(body: Node<'_>, returns: bool) -> bool {
    fn walk(n: Node<'_>, in_loop: bool, in_switch: bool, returns: bool) -> bool {
        match n.kind() {
            "break_statement" => {
                let labelled = named_children(n).iter().any(|c| c.kind() == "identifier");
                return labelled || !(in_loop || in_switch);
            }
            "continue_statement" => {
                let labelled = named_children(n).iter().any(|c| c.kind() == "identifier");
                return labelled || !in_loop;
            }
            "yield_statement" => return !in_switch,
            "return_statement" => return returns,
            "lambda_expression" => return false,
            k if is_class_like(k) => return false,
            _ => {}
        }
        let (l, s) = (
            in_loop || is_loop(n.kind()),
            in_switch || n.kind() == "switch_expression",
        );
        named_children(n)
            .into_iter()
            .any(|c| walk(c, l, s, returns))
    }
    named_children(body)
        .into_iter()
        .any(|c| walk(c, false, false, returns))
}

/// `continue` statements without a label inside `body` that continue the loop whose body this
/// is (not a nested loop's; lambdas and class bodies not entered).
pub fn own_continues(body: Node<'_>) -> Vec<Node<'_>> {
    fn walk<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
        match n.kind() {
            "continue_statement" => {
                if !named_children(n).iter().any(|c| c.kind() == "identifier") {
                    out.push(n);
                }
                return;
            }
            k if is_loop(k) || k == "lambda_expression" || is_class_like(k) => return,
            _ => {}
        }
        for c in named_children(n) {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// Whether any node inside `node` (inclusive) has one of `kinds`.
pub fn contains_kind(node: Node<'_>, kinds: &[&str]) -> bool {
    descendants(node).iter().any(|n| kinds.contains(&n.kind()))
}

/// Whether the statement `stmt` can complete normally by javac's reachability rules, judged
/// conservatively: `false` for `return`, `throw`, `break`, `continue`, `yield`, `while (true)` and
/// `for (;;)` without a `break`, and blocks or `if`/`else` whose every path ends that way;
/// `true` otherwise.
pub fn can_complete_normally(stmt: Node<'_>, src: &str) -> bool {
    match stmt.kind() {
        "return_statement" | "throw_statement" | "break_statement" | "continue_statement"
        | "yield_statement" => false,
        "block" => statements(stmt)
            .last()
            .is_none_or(|s| can_complete_normally(*s, src)),
        "if_statement" => match stmt.child_by_field_name("alternative") {
            None => true,
            Some(alt) => {
                stmt.child_by_field_name("consequence")
                    .is_none_or(|c| can_complete_normally(c, src))
                    || can_complete_normally(alt, src)
            }
        },
        "while_statement" | "for_statement" => {
            let forever = match stmt.child_by_field_name("condition") {
                None => stmt.kind() == "for_statement",
                Some(c) => {
                    let t: String = src[c.byte_range()]
                        .chars()
                        .filter(|ch| !ch.is_whitespace() && *ch != '(' && *ch != ')')
                        .collect();
                    t == "true"
                }
            };
            !forever || stmt.child_by_field_name("body").is_some_and(has_break)
        }
        _ => true,
    }
}

/// Whether `node` holds a `break` (any) outside lambdas and class bodies.
fn has_break(node: Node<'_>) -> bool {
    descendants(node)
        .iter()
        .any(|n| n.kind() == "break_statement")
}

/// The node kinds of literals of primitive types (numbers, characters and booleans): evaluating
/// one can neither throw nor run code.
pub const PRIMITIVE_LITERALS: &[&str] = &[
    "decimal_integer_literal",
    "hex_integer_literal",
    "octal_integer_literal",
    "binary_integer_literal",
    "decimal_floating_point_literal",
    "hex_floating_point_literal",
    "character_literal",
    "true",
    "false",
];

/// Whether `expr` is free of side effects and of exceptions, judged from its syntax alone:
/// literals, `this`, names listed in `primitives` (locals of a primitive type, whose reads can
/// neither throw nor run code), and unary/binary/conditional operators over those, except
/// division and remainder (which throw on an integer zero) and `+` with a string literal
/// (which is still pure, but changes nothing here).
pub fn is_pure(parsed: &JavaParsed, expr: Node<'_>, primitives: &[&str]) -> bool {
    match expr.kind() {
        k if PRIMITIVE_LITERALS.contains(&k) => true,
        "string_literal" | "null_literal" | "this" => true,
        "identifier" => primitives.contains(&parsed.text(expr)),
        "parenthesized_expression" => named_children(expr)
            .into_iter()
            .all(|c| is_pure(parsed, c, primitives)),
        "unary_expression" => expr
            .child_by_field_name("operand")
            .is_some_and(|o| is_pure(parsed, o, primitives)),
        "binary_expression" => {
            let op = expr
                .child_by_field_name("operator")
                .map(|o| parsed.text(o))
                .unwrap_or("/");
            op != "/"
                && op != "%"
                && expr
                    .child_by_field_name("left")
                    .is_some_and(|o| is_pure(parsed, o, primitives))
                && expr
                    .child_by_field_name("right")
                    .is_some_and(|o| is_pure(parsed, o, primitives))
        }
        "ternary_expression" => ["condition", "consequence", "alternative"].iter().all(|f| {
            expr.child_by_field_name(f)
                .is_some_and(|o| is_pure(parsed, o, primitives))
        }),
        _ => false,
    }
}

/// The innermost enclosing node of `node` (exclusive) of one of `kinds`, not crossing a class
/// body or lambda unless they are asked for.
pub fn enclosing<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        if is_class_like(n.kind()) || n.kind() == "lambda_expression" {
            return None;
        }
        cur = n.parent();
    }
    None
}
pub use crate::text::shift_lines;

/// Whether the program holds a Java text block (`"""`), whose lines must never be re-indented.
pub fn has_text_block(parsed: &JavaParsed) -> bool {
    parsed.source.contains("\"\"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert!(JavaParsed::new("class A { void f() { int x = 1; } }").is_ok());
        let e = JavaParsed::new("class A { void f() { int x = ; } }").err();
        assert!(matches!(e, Some(ParseError::JavaSyntax { line: 1 })));
    }

    #[test]
    fn completion_and_jumps() {
        let src =
            "class A { void f(int n) { while (true) { if (n > 0) break; } for (;;) { return; } } }";
        let p = JavaParsed::new(src).unwrap();
        let loops: Vec<_> = p
            .nodes()
            .into_iter()
            .filter(|n| n.kind() == "while_statement" || n.kind() == "for_statement")
            .collect();
        assert!(can_complete_normally(loops[0], src));
        assert!(!can_complete_normally(loops[1], src));
        let body = loops[0].child_by_field_name("body").unwrap();
        // The `break` leaves the loop body it sits in.
        assert!(jumps_out(body, false));
        assert!(jumps_out(
            loops[1].child_by_field_name("body").unwrap(),
            true
        ));
    }

    #[test]
    fn purity() {
        let src =
            "class A { void f(int a, Integer b) { int x = a + 1; int y = a / 2; int z = b + 1; } }";
        let p = JavaParsed::new(src).unwrap();
        let values: Vec<_> = p
            .nodes_of_kind("variable_declarator")
            .into_iter()
            .map(|d| d.child_by_field_name("value").unwrap())
            .collect();
        assert!(is_pure(&p, values[0], &["a"]));
        assert!(!is_pure(&p, values[1], &["a"]));
        assert!(!is_pure(&p, values[2], &["a"]));
    }
}
