//! The C++ side of the SDK: tree-sitter-cpp parsing, statement helpers, and what a rewrite
//! must never touch (macros, preprocessor lines).
//!
//! Language-neutral pieces are shared with the Python and Java sides: [`crate::Edits`],
//! [`crate::Rng`], [`crate::names::FreshNames`] (through [`fresh_names`]) and the line helpers
//! of [`crate::text`].
//!
//! The trap of C++ for a rewriter is the preprocessor: a macro may expand to anything, so a
//! statement that uses one is not what its syntax tree shows. [`CppParsed::macro_names`] lists
//! the names `#define` gives, and [`CppParsed::uses_macro`] says whether a node's text names
//! one; transforms leave such nodes alone.

pub mod mask;

use crate::parse::{descendants, named_children, ParseError};
use crate::{Edits, Outcome, Rng};
use std::collections::BTreeSet;
use tree_sitter::{Node, Parser, Tree};

/// C++ keywords and the names a contest program commonly takes from `std` unqualified (with
/// `using namespace std`): a fresh name is never one of them.
pub const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "main",
    "std",
    "cin",
    "cout",
    "cerr",
    "endl",
    "string",
    "vector",
    "map",
    "set",
    "pair",
    "min",
    "max",
    "swap",
    "sort",
    "abs",
    "size",
    "begin",
    "end",
    "data",
    "count",
    "find",
    "move",
    "get",
    "list",
    "array",
    "queue",
    "stack",
    "deque",
    "greater",
    "less",
    "hash",
    "tuple",
    "function",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "printf",
    "scanf",
    "puts",
    "gets",
    "getchar",
    "putchar",
    "exit",
    "abort",
    "assert",
    "memset",
    "memcpy",
    "strlen",
    "strcmp",
    "sqrt",
    "pow",
    "gcd",
    "lcm",
    "ll",
    "ull",
    "ld",
    "pii",
    "vi",
];

/// A parsed C++ program: its text and syntax tree (without ERROR or MISSING nodes).
pub struct CppParsed {
    /// The source text.
    pub source: String,
    /// The tree-sitter-cpp syntax tree of `source` (of its [`mask`]ed copy when statement-header
    /// macros had to be masked to parse: same byte offsets).
    pub tree: Tree,
    macros: BTreeSet<String>,
    /// Invocations of statement-header macros that the tree shows as `if(1)`.
    masked: Vec<std::ops::Range<usize>>,
}

impl CppParsed {
    /// Parses `source`; a tree with an ERROR or MISSING node is a [`ParseError::CppSyntax`].
    /// A program that parses only once its statement-header macros are [`mask`]ed (`rep(i, n)
    /// stmt;`) is parsed so, and every node over a masked invocation [`uses_macro`].
    ///
    /// [`uses_macro`]: CppParsed::uses_macro
    pub fn new(source: &str) -> Result<Self, ParseError> {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_cpp::LANGUAGE.into())
            .map_err(|e| ParseError::Language(e.to_string()))?;
        let parse = |parser: &mut Parser, text: &str| {
            parser
                .parse(text, None)
                .ok_or_else(|| ParseError::Language("parser returned no tree".into()))
        };
        let mut tree = parse(&mut parser, source)?;
        let mut masked = Vec::new();
        if let Some(line) = crate::parse::first_error_line(tree.root_node()) {
            let (text, ranges) = mask::mask(source).ok_or(ParseError::CppSyntax { line })?;
            let masked_tree = parse(&mut parser, &text)?;
            if crate::parse::first_error_line(masked_tree.root_node()).is_some() {
                return Err(ParseError::CppSyntax { line });
            }
            tree = masked_tree;
            masked = ranges;
        }
        let mut macros = BTreeSet::new();
        for n in descendants(tree.root_node()) {
            if matches!(n.kind(), "preproc_def" | "preproc_function_def") {
                if let Some(name) = n.child_by_field_name("name") {
                    macros.insert(source[name.byte_range()].to_string());
                }
            }
        }
        Ok(CppParsed {
            source: source.to_string(),
            tree,
            macros,
            masked,
        })
    }

    /// The root (`translation_unit`) node.
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

    /// The names the program `#define`s (object-like and function-like macros).
    pub fn macro_names(&self) -> &BTreeSet<String> {
        &self.macros
    }

    /// Whether the text of `node` names a macro of the program (as a whole word), or `node`
    /// lies inside a preprocessor directive: what the tree shows there may not be what the
    /// compiler sees.
    pub fn uses_macro(&self, node: Node<'_>) -> bool {
        if in_directive(node) {
            return true;
        }
        let range = node.byte_range();
        if self
            .masked
            .iter()
            .any(|m| m.start < range.end && range.start < m.end)
        {
            return true;
        }
        if self.macros.is_empty() {
            return false;
        }
        descendants(node)
            .into_iter()
            .any(|n| n.kind() == "identifier" && self.macros.contains(&self.source[n.byte_range()]))
    }

    /// The words of every preprocessor directive (macro bodies are raw text, not parsed) and
    /// of every masked invocation (whose arguments the tree does not show): names a rewrite
    /// cannot follow to all their uses.
    pub fn blocked_words(&self) -> BTreeSet<String> {
        let mut texts: Vec<&str> = Vec::new();
        for n in self.nodes() {
            match n.kind() {
                // A conditional's code is code; only its condition or name is a directive.
                "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" => {
                    for field in ["condition", "name"] {
                        if let Some(c) = n.child_by_field_name(field) {
                            texts.push(self.text(c));
                        }
                    }
                }
                "preproc_else" => {}
                k if k.starts_with("preproc_") => texts.push(self.text(n)),
                _ => {}
            }
        }
        texts.extend(
            self.masked
                .iter()
                .filter_map(|r| self.source.get(r.clone())),
        );
        texts
            .into_iter()
            .flat_map(|t| t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            .filter(|w| !w.is_empty())
            .map(String::from)
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

/// Whether `node` lies inside a preprocessor directive (`#define`, `#if` conditions).
pub fn in_directive(node: Node<'_>) -> bool {
    let mut cur = Some(node);
    while let Some(n) = cur {
        let k = n.kind();
        if matches!(
            k,
            "preproc_def" | "preproc_function_def" | "preproc_call" | "preproc_include"
        ) {
            return true;
        }
        // The condition of `#if`/`#elif` is a directive; the code they guard is not.
        if let Some(p) = n.parent() {
            if matches!(p.kind(), "preproc_if" | "preproc_elif")
                && p.child_by_field_name("condition")
                    .is_some_and(|c| c.id() == n.id())
            {
                return true;
            }
        }
        cur = n.parent();
    }
    false
}

/// Whether `node` lies in code a preprocessor conditional may leave out (`#if`, `#ifdef`):
/// rewriting it is not checked by every build the program may have.
pub fn in_conditional(node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(
            n.kind(),
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
        ) {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// Parses `source` as C++, runs `rewrite` and applies its edits (see [`crate::run`]).
pub fn run(
    source: &str,
    seed: u64,
    rewrite: impl FnOnce(&CppParsed, &mut Rng) -> Edits,
) -> Outcome {
    run_with(source, Rng::new(seed), rewrite).0
}

/// Like [`run`], rewriting only the `site`-th candidate site; also returns how many sites
/// were offered.
pub fn run_at_site(
    source: &str,
    seed: u64,
    site: usize,
    rewrite: impl FnOnce(&CppParsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    run_with(source, Rng::forcing_site(seed, site), rewrite)
}

fn run_with(
    source: &str,
    rng: Rng,
    rewrite: impl FnOnce(&CppParsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    crate::run_parsed(source, rng, CppParsed::new, rewrite)
}

/// Words of the fresh-name vocabulary that libc or POSIX headers declare at file scope
/// (`round` in `<math.h>`, `alarm` in `<unistd.h>`, `leaf` in `<search.h>`): a new function of
/// that name would clash with the declaration, and a new local would hide it from code a header
/// macro expands to. SPTs that add names claim them first.
pub const LIBC_NAMES: &[&str] = &[
    "alarm", "clock", "floor", "index", "leaf", "round", "signal", "socket",
];

/// Fresh identifiers for a C++ program: none is a word of the program or in [`RESERVED`].
pub fn fresh_names(parsed: &CppParsed) -> crate::names::FreshNames {
    crate::names::FreshNames::avoiding(&parsed.source, RESERVED)
}

/// Whether a node kind is a statement.
pub fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "declaration"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "for_range_loop"
            | "do_statement"
            | "compound_statement"
            | "return_statement"
            | "break_statement"
            | "continue_statement"
            | "throw_statement"
            | "try_statement"
            | "switch_statement"
            | "labeled_statement"
            | "goto_statement"
            | "alias_declaration"
            | "type_definition"
            | "using_declaration"
            | "static_assert_declaration"
    )
}

/// The statements of a `compound_statement` (comments left out).
pub fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    named_children(block)
        .into_iter()
        .filter(|n| is_statement(n.kind()))
        .collect()
}

/// Whether a node kind is a loop.
pub fn is_loop(kind: &str) -> bool {
    matches!(
        kind,
        "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
    )
}

/// Whether `body` holds a `continue` that belongs to the loop `body` is the body of (not to a
/// nested loop); lambdas and local classes are not entered.
pub fn has_own_continue(body: Node<'_>) -> bool {
    fn walk(n: Node<'_>) -> bool {
        match n.kind() {
            "continue_statement" => true,
            k if is_loop(k) => false,
            "lambda_expression" | "class_specifier" | "struct_specifier" => false,
            _ => named_children(n).into_iter().any(walk),
        }
    }
    walk(body)
}

/// Whether `node` holds a node of one of `kinds` (itself included).
pub fn contains_kind(node: Node<'_>, kinds: &[&str]) -> bool {
    descendants(node).iter().any(|n| kinds.contains(&n.kind()))
}

/// The innermost enclosing node of `node` (exclusive) of one of `kinds`, not crossing a
/// lambda or a class body unless they are asked for.
pub fn enclosing<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        if matches!(n.kind(), "lambda_expression" | "field_declaration_list") {
            return None;
        }
        cur = n.parent();
    }
    None
}

/// Whether `expr` has no side effect and reads nothing a side effect elsewhere in the same
/// expression could change: names, literals, member and subscript reads, and arithmetic,
/// comparison and logic over them (no call, assignment, `++`/`--`, `new`, `delete`, comma).
pub fn is_pure(parsed: &CppParsed, expr: Node<'_>) -> bool {
    if parsed.uses_macro(expr) {
        return false;
    }
    descendants(expr).iter().all(|n| {
        !matches!(
            n.kind(),
            "call_expression"
                | "assignment_expression"
                | "update_expression"
                | "new_expression"
                | "delete_expression"
                | "comma_expression"
                | "lambda_expression"
                | "co_await_expression"
                | "throw_expression"
                | "user_defined_literal"
        )
    })
}
pub use crate::text::shift_lines;

/// Whether the program holds a raw string literal, whose lines must never be re-indented.
pub fn has_raw_string(parsed: &CppParsed) -> bool {
    !parsed.nodes_of_kind("raw_string_literal").is_empty()
}

/// Whether the program continues a line with a backslash (a multi-line macro or string):
/// transforms that move lines decline it.
pub fn has_continuation(parsed: &CppParsed) -> bool {
    parsed.source.contains("\\\n") || parsed.source.contains("\\\r\n")
}

/// The names whose every declaration in the program (variables, parameters, members) is a
/// plain variable of one arithmetic type (`int`, `long long`, `double`, `unsigned`, `char`…):
/// no pointer, array, reference, function, `auto` or `bool`. Maps each to its type's text.
/// What rewrites that depend on arithmetic conversions (`x += e` ↔ `x = x + (e)`) accept.
pub fn arithmetic_names(parsed: &CppParsed) -> std::collections::BTreeMap<String, String> {
    use std::collections::BTreeMap;
    let mut types: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut note = |name: String, ty: Option<String>| {
        let slot = types.entry(name).or_insert_with(|| ty.clone());
        if *slot != ty {
            *slot = None;
        }
    };
    for n in parsed.nodes() {
        let declares = matches!(
            n.kind(),
            "declaration"
                | "parameter_declaration"
                | "field_declaration"
                | "optional_parameter_declaration"
                // `for (long long x : v)` declares `x` like a declaration does.
                | "for_range_loop"
        );
        if !declares {
            // A function's or type's name is never a variable of arithmetic type.
            if matches!(n.kind(), "function_declarator") {
                if let Some(d) = n.child_by_field_name("declarator") {
                    note(parsed.text(d).to_string(), None);
                }
            }
            continue;
        }
        let ty = n.child_by_field_name("type").and_then(|t| {
            let text = parsed.text(t);
            let arithmetic = match t.kind() {
                "primitive_type" => !matches!(text, "bool" | "void" | "auto"),
                "sized_type_specifier" => true,
                _ => false,
            };
            arithmetic.then(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
        });
        let qualified = named_children(n)
            .iter()
            .any(|c| matches!(c.kind(), "type_qualifier" | "storage_class_specifier"));
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            let plain = match d.kind() {
                "identifier" | "field_identifier" => Some(d),
                "init_declarator" => d
                    .child_by_field_name("declarator")
                    .filter(|x| x.kind() == "identifier"),
                _ => None,
            };
            match plain {
                Some(id) => note(
                    parsed.text(id).to_string(),
                    ty.clone().filter(|_| !qualified),
                ),
                // `auto [a, b] = …` declares every name in the brackets.
                None if structured_binding(d).is_some() => {
                    for id in structured_binding(d)
                        .map(named_children)
                        .unwrap_or_default()
                    {
                        if id.kind() == "identifier" {
                            note(parsed.text(id).to_string(), None);
                        }
                    }
                }
                None => {
                    for id in descendants(d) {
                        if matches!(id.kind(), "identifier" | "field_identifier") {
                            note(parsed.text(id).to_string(), None);
                            break;
                        }
                    }
                }
            }
        }
    }
    types
        .into_iter()
        .filter_map(|(name, ty)| ty.map(|t| (name, t)))
        .filter(|(name, _)| !parsed.macro_names().contains(name))
        .collect()
}

/// The program's function-like macros that may see the spelling of their arguments: their
/// body stringifies (`#x`) or pastes (`a##x`), or calls such a macro. An argument of theirs
/// is printed or glued as written, so renaming, reordering or rewriting it is observable.
pub fn spelling_macros(parsed: &CppParsed) -> BTreeSet<String> {
    let defs: Vec<(String, &str)> = parsed
        .nodes_of_kind("preproc_function_def")
        .into_iter()
        .filter_map(|n| {
            let name = parsed.text(n.child_by_field_name("name")?).to_string();
            Some((
                name,
                n.child_by_field_name("value")
                    .map_or("", |v| parsed.text(v)),
            ))
        })
        .collect();
    let mut found = BTreeSet::new();
    loop {
        let before = found.len();
        for (name, body) in &defs {
            let calls_one = body
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| found.contains(w));
            if body.contains('#') || calls_one {
                found.insert(name.clone());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// Whether `node` lies in the arguments of a call to one of `macros` (as tree-sitter reads a
/// function-like macro's invocation: a call).
pub fn in_call_to(parsed: &CppParsed, macros: &BTreeSet<String>, node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(x) = cur {
        if x.kind() == "call_expression"
            && x.child_by_field_name("function")
                .is_some_and(|f| macros.contains(parsed.text(f)))
        {
            return true;
        }
        cur = x.parent();
    }
    false
}

/// The `[a, b]` of a declarator `[a, b]` or `[a, b] = e`.
fn structured_binding(d: Node<'_>) -> Option<Node<'_>> {
    std::iter::once(d)
        .chain(d.child_by_field_name("declarator"))
        .find(|x| x.kind() == "structured_binding_declarator")
}

/// Whether the program's text uses any of `words` as a whole word (outside nothing: comments
/// and strings count too, which only makes the answer more cautious).
pub fn mentions_any(parsed: &CppParsed, words: &[&str]) -> bool {
    let src = parsed.source.as_bytes();
    words.iter().any(|w| {
        parsed.source.match_indices(w).any(|(i, _)| {
            let before = i.checked_sub(1).and_then(|j| src.get(j));
            let after = src.get(i + w.len());
            let word = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
            !word(before) && !word(after)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_and_directives_are_seen() {
        let p = CppParsed::new(
            "#include <cstdio>\n#define N 10\n#define SQ(x) ((x)*(x))\nint main() { int a = N; int b = 2; printf(\"%d\\n\", SQ(a) + b); }\n",
        )
        .unwrap();
        assert_eq!(
            p.macro_names().iter().cloned().collect::<Vec<_>>(),
            ["N", "SQ"]
        );
        let decls = p.nodes_of_kind("declaration");
        assert!(p.uses_macro(decls[0]), "int a = N uses N");
        assert!(!p.uses_macro(decls[1]), "int b = 2 uses no macro");
        assert!(CppParsed::new("int main() { int x = ; }").is_err());
    }

    #[test]
    fn statement_header_macros_parse_masked_and_count_as_macro_uses() {
        let src = "#include <cstdio>\n#define rep(i, n) for (int i = 0; i < (n); i++)\nint main() { int a[4], total = 0;\n    rep(i, 4) a[i] = i;\n    rep(k, 4) total += a[k];\n    printf(\"%d\\n\", total); }\n";
        let p = CppParsed::new(src).expect("parses once masked");
        assert_eq!(p.source, src, "the text is the program's own");
        let statements = p.nodes_of_kind("expression_statement");
        let uses: Vec<bool> = statements.iter().map(|s| p.uses_macro(*s)).collect();
        assert_eq!(uses.len(), 3);
        assert!(!uses[0] && !uses[1], "the bodies themselves are plain code");
        assert!(!uses[2], "printf(...) is plain code");
        for loop_like in p.nodes_of_kind("if_statement") {
            assert!(p.uses_macro(loop_like), "{}", p.text(loop_like));
        }
        let blocked = p.blocked_words();
        for w in ["rep", "i", "n", "k"] {
            assert!(blocked.contains(w), "{w}");
        }
        assert!(!blocked.contains("total"));
        assert!(CppParsed::new(
            "#define rep(i, n) for (int i = 0; i < (n); i++)\nint main() { rep(i, 3) }\n"
        )
        .is_err());
    }

    #[test]
    fn arrays_of_pointers_made_by_new_parse_masked_and_are_left_alone() {
        let src = "#include <cstdio>\nint main() { int m = 2;\n    int **a = new int *[m];\n    for (int i = 0; i < m; i++) a[i] = new int[m];\n    printf(\"%d\\n\", m); }\n";
        let p = CppParsed::new(src).expect("parses once masked");
        let decls = p.nodes_of_kind("declaration");
        let with_new: Vec<bool> = decls
            .iter()
            .filter(|d| p.text(**d).contains("new"))
            .map(|d| p.uses_macro(*d))
            .collect();
        assert_eq!(with_new, [true], "{decls:?}");
        // The bound `[m]` lies outside the mask and is in the tree: a rename may edit it.
        assert!(!p.blocked_words().contains("m"));
        assert!(!p.uses_macro(p.nodes_of_kind("for_statement")[0]));
    }

    #[test]
    fn arithmetic_names_need_one_plain_type() {
        let p = CppParsed::new(
            "long long g;\nint f(int a, int *p) { int b = 1, c[3]; double d; string s; return a; }\nint main() { int a = 2; auto e = 3; const int k = 4; return f(a, &a); }\n",
        )
        .unwrap();
        let names = arithmetic_names(&p);
        assert_eq!(names.get("g").map(String::as_str), Some("long long"));
        assert_eq!(names.get("a").map(String::as_str), Some("int"));
        assert_eq!(names.get("b").map(String::as_str), Some("int"));
        assert_eq!(names.get("d").map(String::as_str), Some("double"));
        for other in ["p", "c", "s", "e", "k", "f", "main"] {
            assert!(!names.contains_key(other), "{other}");
        }
        assert!(mentions_any(&p, &["auto"]));
        let p = CppParsed::new(
            "int x, y, z;\nint main() { long long v[2] = {1, 2}; for (long long x : v) {} pair<int, long long> q; auto [y, z] = q; }\n",
        )
        .unwrap();
        let names = arithmetic_names(&p);
        for other in ["x", "y", "z"] {
            assert!(!names.contains_key(other), "{other} has two types");
        }
        assert!(!mentions_any(&p, &["uto"]));
    }

    #[test]
    fn purity_excludes_effects() {
        let p = CppParsed::new(
            "int f(); int main() { int a = 1, b; b = a + 2; b = f() + a; b = a++ + 1; }\n",
        )
        .unwrap();
        let rights: Vec<Node<'_>> = p
            .nodes_of_kind("assignment_expression")
            .into_iter()
            .filter_map(|a| a.child_by_field_name("right"))
            .collect();
        assert!(is_pure(&p, rights[0]));
        assert!(!is_pure(&p, rights[1]));
        assert!(!is_pure(&p, rights[2]));
    }
}
