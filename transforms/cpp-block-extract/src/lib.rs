//! ## What it does
//! Moves a run of consecutive statements inside a C++ function body (any function, at any
//! depth of nested blocks) into a lambda that captures everything by reference and is called
//! where the statements were: either immediately, `[&]() { STMTS }();`, or through a fresh
//! name, `auto step = [&]() { STMTS }; step();`. One run, or two apart in the same block, is
//! extracted per rewrite; runs of two statements or more are preferred.
//!
//! ## Why it preserves semantics
//! A `[&]` lambda names the very same objects as the statements did: locals and parameters
//! through references to them, globals and statics directly, members through the captured
//! `this`; it runs the same statements once, in the same order, at the same point, and an
//! exception leaves it as it left the statements. What a lambda body cannot do is leave the
//! enclosing function or loop, so a run with `return`, `goto`, a label, or a `break` or
//! `continue` whose loop or `switch` lies outside the run is never extracted. The other trap
//! is scope and lifetime: a name the run declares at its top level ends with the lambda, so
//! it must not be used after the run in its block; and an object declared there is destroyed
//! when the lambda returns instead of at the end of the block, so when statements follow the
//! run those objects must be plain scalars whose address is not taken (an early destructor,
//! or a pointer still used after the run, would be observable). A named lambda is only
//! declared where no `case` label or `goto` label after it could jump past its declaration.
//! The lambda is called once, where it is defined, so GCC normally inlines it (from `-O1`
//! on): a recursive function does not need a deeper stack.
//!
//! ## Example
//! ```cpp
//! int main() {
//!     int n, total = 0;
//!     cin >> n;
//!     for (int i = 1; i <= n; i++) total += i;
//!     cout << total << endl;
//! }
//! ```
//! becomes
//! ```cpp
//! int main() {
//!     int n, total = 0;
//!     auto tally = [&]() {
//!         cin >> n;
//!         for (int i = 1; i <= n; i++) total += i;
//!     };
//!     tally();
//!     cout << total << endl;
//! }
//! ```
//!
//! ## Not applied when
//! - the run holds `return` (outside a lambda of its own), `goto`, a label, a `break` or
//!   `continue` of a loop or `switch` outside the run, `co_await`, `co_yield` or `co_return`;
//! - the run names `__func__`, `__FUNCTION__` or `__PRETTY_FUNCTION__` (they would name the
//!   lambda's `operator()`), declares a `static` or `thread_local` local, or uses `asm`,
//!   `alloca`, `setjmp` or the `va_` macros; or the program uses `__LINE__` anywhere (the
//!   statements move to other lines);
//! - a name the run declares at its top level (a variable, type, enumerator, `using`) is used
//!   after the run in its block, or occurs in a macro body; or statements follow the run and
//!   it declares at its top level an object that is not a plain scalar, or takes the address
//!   of (or captures by reference) one it declares;
//! - the run uses a structured binding or a `register` variable declared outside it (C++17
//!   cannot capture them), or the function has a parameter pack or C variadic parameters;
//! - the run uses a macro, holds a preprocessor directive, or lies in code a preprocessor
//!   conditional guards;
//! - the function is `constexpr` or `consteval`, or is a coroutine; statements of a lambda
//!   body, of a `switch` body's `case`s, or of a GNU statement expression are not candidates;
//! - the run is a single declaration or holds only declarations.

use sdk::cpp::{
    fresh_names, has_continuation, has_raw_string, in_conditional, CppParsed, LIBC_NAMES,
};
use sdk::parse::{children, descendants, named_children};
use sdk::text::{line_end, shift_lines, starts_line};
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-block-extract",
    description: "Moves a run of statements of a C++ function into a lambda capturing by reference, called in its place",
    category: "structure",
    rewrite: rewrite,
}

/// Words a run must not contain (as code, not in strings or comments): they name the
/// enclosing function, declare locals whose storage a lambda would change, jump, or depend on
/// the stack frame being the function's own.
const FORBIDDEN_WORDS: &[&str] = &[
    "__func__",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
    "__builtin_FUNCTION",
    "source_location",
    "static",
    "thread_local",
    "goto",
    "co_await",
    "co_yield",
    "co_return",
    "asm",
    "__asm",
    "__asm__",
    "alloca",
    "__builtin_alloca",
    "va_start",
    "va_arg",
    "va_end",
    "va_copy",
    "__builtin_va_start",
    "__builtin_va_arg",
    "setjmp",
    "_setjmp",
    "sigsetjmp",
    "__builtin_setjmp",
    "__label__",
    "__builtin_return_address",
    "__builtin_frame_address",
];

/// Statement kinds (besides [`sdk::cpp::is_statement`]) a block may hold: local types and
/// namespace aliases, and attributed statements.
const EXTRA_STATEMENTS: &[&str] = &[
    "struct_specifier",
    "class_specifier",
    "union_specifier",
    "enum_specifier",
    "namespace_alias_definition",
    "attributed_statement",
];

/// Statement kinds that only declare: a run of nothing else is not worth a lambda.
const DECLARATIONS: &[&str] = &[
    "declaration",
    "type_definition",
    "alias_declaration",
    "using_declaration",
    "namespace_alias_definition",
    "static_assert_declaration",
    "struct_specifier",
    "class_specifier",
    "union_specifier",
    "enum_specifier",
];

/// Parents of a block whose statements may be extracted: statement positions, not a GNU
/// statement expression (whose last statement is its value) or a `switch` body.
const BLOCK_PARENTS: &[&str] = &[
    "function_definition",
    "compound_statement",
    "if_statement",
    "else_clause",
    "while_statement",
    "for_statement",
    "for_range_loop",
    "do_statement",
    "try_statement",
    "catch_clause",
    "case_statement",
    "labeled_statement",
];

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier-like words of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
}

/// The words of `node`'s code: its leaf tokens outside comments and literals.
fn code_words<'a>(p: &'a CppParsed, node: Node<'_>) -> BTreeSet<&'a str> {
    let mut out = BTreeSet::new();
    for n in descendants(node) {
        if n.child_count() > 0
            || matches!(
                n.kind(),
                "comment"
                    | "string_content"
                    | "raw_string_content"
                    | "raw_string_delimiter"
                    | "escape_sequence"
                    | "character"
                    | "number_literal"
            )
        {
            continue;
        }
        out.extend(words(p.text(n)));
    }
    out
}

/// Whether `n` is a lambda or a function (a local class's member): a boundary for `return`,
/// `break` and `continue`.
fn is_function_like(kind: &str) -> bool {
    matches!(kind, "lambda_expression" | "function_definition")
}

/// Whether the jump statement `jump` (a `break` when `switch_ok`, else a `continue`) finds its
/// loop (or `switch`) inside `stmt`, or lies in a nested function.
fn jump_stays_inside(jump: Node<'_>, stmt: Node<'_>, switch_ok: bool) -> bool {
    if jump.id() == stmt.id() {
        return false;
    }
    let mut cur = jump.parent();
    while let Some(n) = cur {
        let k = n.kind();
        if sdk::cpp::is_loop(k) || (switch_ok && k == "switch_statement") || is_function_like(k) {
            return true;
        }
        if n.id() == stmt.id() {
            return false;
        }
        cur = n.parent();
    }
    false
}

/// Whether `n` lies in a lambda or local function nested in `stmt`.
fn in_nested_function(n: Node<'_>, stmt: Node<'_>) -> bool {
    if n.id() == stmt.id() {
        return false;
    }
    let mut cur = n.parent();
    while let Some(x) = cur {
        if x.id() == stmt.id() {
            return false;
        }
        if is_function_like(x.kind()) {
            return true;
        }
        cur = x.parent();
    }
    false
}

/// The identifier-like leaves of a declarator, leaving out what it does not declare (an
/// initializer, an array size, a function's parameters).
fn declarator_names<'a>(p: &'a CppParsed, d: Node<'_>, out: &mut BTreeSet<&'a str>) {
    if matches!(
        d.kind(),
        "identifier" | "type_identifier" | "field_identifier" | "namespace_identifier"
    ) {
        out.insert(p.text(d));
        return;
    }
    let mut cursor = d.walk();
    for (i, c) in d.children(&mut cursor).enumerate() {
        let field = u32::try_from(i)
            .ok()
            .and_then(|i| d.field_name_for_child(i));
        if matches!(
            field,
            Some("value" | "size" | "parameters" | "arguments" | "default_value")
        ) || matches!(
            c.kind(),
            "argument_list"
                | "initializer_list"
                | "parameter_list"
                | "template_argument_list"
                | "trailing_return_type"
        ) {
            continue;
        }
        declarator_names(p, c, out);
    }
}

/// The names a type specifier declares: a class or enum tag and an enum's enumerators.
fn specifier_names<'a>(p: &'a CppParsed, t: Node<'_>, out: &mut BTreeSet<&'a str>) {
    if !matches!(
        t.kind(),
        "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
    ) {
        return;
    }
    if let Some(name) = t.child_by_field_name("name") {
        declarator_names(p, name, out);
    }
    if let Some(body) = t.child_by_field_name("body") {
        if body.kind() == "enumerator_list" {
            for e in named_children(body) {
                if let Some(name) = e.child_by_field_name("name") {
                    out.insert(p.text(name));
                }
            }
        }
    }
}

/// What a statement at the top level of a run declares in the enclosing block.
#[derive(Default)]
struct Declared<'a> {
    /// The names it declares.
    names: BTreeSet<&'a str>,
    /// The variables it declares.
    objects: BTreeSet<&'a str>,
    /// Whether every object it declares is a plain scalar (trivially destroyed, no sub-object
    /// whose address could be kept).
    plain: bool,
    /// Whether it is a using-directive (`using namespace std;`), which changes lookup for the
    /// rest of the block.
    directive: bool,
}

/// The names `stmt` (a direct child of a block) declares there.
fn declared<'a>(p: &'a CppParsed, stmt: Node<'_>, scalar_types: &BTreeSet<&str>) -> Declared<'a> {
    let mut d = Declared {
        plain: true,
        ..Declared::default()
    };
    match stmt.kind() {
        "declaration" => {
            let ty = stmt.child_by_field_name("type");
            if let Some(t) = ty {
                specifier_names(p, t, &mut d.names);
            }
            let scalar = ty.is_some_and(|t| match t.kind() {
                "primitive_type" => !matches!(p.text(t), "void" | "auto"),
                "sized_type_specifier" => true,
                "type_identifier" => scalar_types.contains(p.text(t)),
                _ => false,
            });
            let mut cursor = stmt.walk();
            for decl in stmt.children_by_field_name("declarator", &mut cursor) {
                let mut names = BTreeSet::new();
                declarator_names(p, decl, &mut names);
                let inner = if decl.kind() == "init_declarator" {
                    decl.child_by_field_name("declarator")
                } else {
                    Some(decl)
                };
                let plain = inner.is_some_and(|x| match x.kind() {
                    "identifier" => scalar,
                    "pointer_declarator" => x
                        .child_by_field_name("declarator")
                        .is_some_and(|y| y.kind() == "identifier"),
                    _ => false,
                });
                d.plain &= plain;
                d.objects.extend(names.iter().copied());
                d.names.extend(names);
            }
        }
        "type_definition" => {
            if let Some(t) = stmt.child_by_field_name("type") {
                specifier_names(p, t, &mut d.names);
            }
            let mut cursor = stmt.walk();
            for decl in stmt.children_by_field_name("declarator", &mut cursor) {
                declarator_names(p, decl, &mut d.names);
            }
        }
        "alias_declaration" | "namespace_alias_definition" => {
            if let Some(n) = stmt.child_by_field_name("name") {
                d.names.insert(p.text(n));
            }
        }
        "using_declaration" => {
            d.directive = children(stmt).iter().any(|c| c.kind() == "namespace");
            for n in descendants(stmt) {
                if matches!(
                    n.kind(),
                    "identifier" | "type_identifier" | "namespace_identifier"
                ) {
                    d.names.insert(p.text(n));
                }
            }
        }
        "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
            specifier_names(p, stmt, &mut d.names);
        }
        "attributed_statement" => {
            if let Some(inner) = named_children(stmt)
                .into_iter()
                .rfind(|c| c.kind() != "attribute_declaration")
            {
                return declared(p, inner, scalar_types);
            }
        }
        _ => {}
    }
    d
}

/// Whether the statement kind may stand in a run.
fn is_stmt(kind: &str) -> bool {
    sdk::cpp::is_statement(kind) || EXTRA_STATEMENTS.contains(&kind)
}

/// What the candidate statements of one function share.
struct FunctionFacts<'a> {
    /// Structured bindings, `register` variables and variables of variably modified type
    /// of the function (names, declarator ranges).
    uncapturable: Vec<(&'a str, std::ops::Range<usize>)>,
    /// Whether the function defines a type of runtime size (`typedef int row[m];`).
    vm_types: bool,
}

/// Whether `f` is a function whose body may hold extracted runs.
fn function_allowed(p: &CppParsed, f: Node<'_>, body: Node<'_>) -> bool {
    if in_conditional(f) {
        return false;
    }
    let head = p
        .source
        .get(f.start_byte()..body.start_byte())
        .unwrap_or("");
    if head.contains("...") || words(head).any(|w| matches!(w, "constexpr" | "consteval")) {
        return false;
    }
    // A template's parameter pack may be named in the body.
    let mut cur = f.parent();
    while let Some(n) = cur {
        if n.kind() == "template_declaration"
            && n.child_by_field_name("parameters")
                .is_some_and(|ps| p.text(ps).contains("..."))
        {
            return false;
        }
        cur = n.parent();
    }
    // A coroutine: its suspension points must stay in its own body.
    !code_words(p, body)
        .iter()
        .any(|w| matches!(*w, "co_await" | "co_yield" | "co_return"))
}

/// The names a size may use and stay a constant: file-scope `const`/`constexpr` variables
/// and enumerators of file-scope enums.
fn file_constants(p: &CppParsed) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    for n in named_children(p.root()) {
        match n.kind() {
            "declaration" => {
                let constant = named_children(n).iter().any(|c| {
                    c.kind() == "type_qualifier" && matches!(p.text(*c), "const" | "constexpr")
                });
                if let Some(t) = n.child_by_field_name("type") {
                    if t.kind() == "enum_specifier" {
                        let mut names = BTreeSet::new();
                        specifier_names(p, t, &mut names);
                        out.extend(names);
                    }
                }
                if constant {
                    let mut cursor = n.walk();
                    for d in n.children_by_field_name("declarator", &mut cursor) {
                        if let Some(id) = d.child_by_field_name("declarator") {
                            if id.kind() == "identifier" {
                                out.insert(p.text(id));
                            }
                        }
                    }
                }
            }
            "enum_specifier" => {
                let mut names = BTreeSet::new();
                specifier_names(p, n, &mut names);
                out.extend(names);
            }
            _ => {}
        }
    }
    out
}

/// Whether an array bound is not a constant: it names something other than a file constant.
fn variable_bound(p: &CppParsed, size: Node<'_>, constants: &BTreeSet<&str>) -> bool {
    descendants(size)
        .into_iter()
        .any(|n| n.kind() == "identifier" && !constants.contains(p.text(n)))
}

/// Whether the declarator `d` gives a variably modified type that is not a plain array of
/// runtime bound (`int a[n][m]`, `int (*p)[m]`): GCC cannot capture such a variable.
fn variably_modified(p: &CppParsed, d: Node<'_>, constants: &BTreeSet<&str>) -> bool {
    descendants(d).into_iter().any(|a| {
        a.kind() == "array_declarator"
            && a.child_by_field_name("declarator")
                .is_some_and(|x| x.kind() != "identifier")
            && a.child_by_field_name("size")
                .is_some_and(|s| variable_bound(p, s, constants))
    })
}

fn function_facts<'a>(
    p: &'a CppParsed,
    f: Node<'_>,
    constants: &BTreeSet<&str>,
) -> FunctionFacts<'a> {
    let mut uncapturable = Vec::new();
    for n in descendants(f) {
        match n.kind() {
            "type_definition" | "alias_declaration"
                if descendants(n).into_iter().any(|a| {
                    a.kind() == "array_declarator"
                        && a.child_by_field_name("size")
                            .is_some_and(|s| variable_bound(p, s, constants))
                }) =>
            {
                // A local type of runtime size: everything it declares is variably modified.
                return FunctionFacts {
                    uncapturable,
                    vm_types: true,
                };
            }
            "declaration" => {
                let mut cursor = n.walk();
                for d in n.children_by_field_name("declarator", &mut cursor) {
                    if variably_modified(p, d, constants) {
                        let mut names = BTreeSet::new();
                        declarator_names(p, d, &mut names);
                        for name in names {
                            uncapturable.push((name, d.byte_range()));
                        }
                    }
                }
            }
            _ => {}
        }
        match n.kind() {
            "structured_binding_declarator" => {
                for id in named_children(n) {
                    if id.kind() == "identifier" {
                        uncapturable.push((p.text(id), n.byte_range()));
                    }
                }
            }
            "declaration" | "parameter_declaration" => {
                let register = named_children(n)
                    .iter()
                    .any(|c| c.kind() == "storage_class_specifier" && p.text(*c) == "register");
                if register {
                    let mut cursor = n.walk();
                    for d in n.children_by_field_name("declarator", &mut cursor) {
                        let mut names = BTreeSet::new();
                        declarator_names(p, d, &mut names);
                        for name in names {
                            uncapturable.push((name, d.byte_range()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    FunctionFacts {
        uncapturable,
        vm_types: false,
    }
}

/// Whether `stmt` (a direct child of a block of the function) may stand in a run by itself.
fn statement_ok(p: &CppParsed, stmt: Node<'_>, facts: &FunctionFacts<'_>) -> bool {
    if p.uses_macro(stmt) || in_conditional(stmt) {
        return false;
    }
    let ws = code_words(p, stmt);
    if FORBIDDEN_WORDS.iter().any(|w| ws.contains(w)) {
        return false;
    }
    let inside =
        |r: &std::ops::Range<usize>| stmt.start_byte() <= r.start && r.end <= stmt.end_byte();
    if facts
        .uncapturable
        .iter()
        .any(|(name, range)| !inside(range) && ws.contains(name))
    {
        return false;
    }
    descendants(stmt).into_iter().all(|n| match n.kind() {
        k if k.starts_with("preproc_") => false,
        "labeled_statement" | "goto_statement" | "gnu_asm_expression" => false,
        "co_return_statement" | "co_yield_statement" | "co_await_expression" => false,
        "return_statement" => in_nested_function(n, stmt),
        "break_statement" => jump_stays_inside(n, stmt, true),
        "continue_statement" => jump_stays_inside(n, stmt, false),
        "case_statement" => {
            let mut cur = n.parent();
            let mut found = false;
            while let Some(x) = cur {
                if x.kind() == "switch_statement" {
                    found = true;
                    break;
                }
                if x.id() == stmt.id() {
                    break;
                }
                cur = x.parent();
            }
            found
        }
        "ERROR" => false,
        _ => true,
    })
}

/// A run that may be extracted: its bytes, how many statements it has, and whether a named
/// lambda may be declared in its place.
struct Run {
    range: std::ops::Range<usize>,
    len: usize,
    named_ok: bool,
}

/// Whether only spaces, tabs or a `//` comment stand between `byte` and the end of its line.
fn ends_line(src: &str, byte: usize) -> bool {
    let rest = src.get(byte..line_end(src, byte)).unwrap_or("").trim();
    rest.is_empty() || rest.starts_with("//")
}

/// Calls that use a pointer argument only while they run (`scanf("%d", &x)`).
const POINTER_BORROWERS: &[&str] = &["scanf", "sscanf", "fscanf", "memset", "memcpy"];

/// How the statement `stmt` could keep the address of a local beyond itself: the words under
/// its `&x` expressions (outside calls that only borrow the pointer), and whether it has a
/// lambda capturing by reference or names `ref`, `cref` or `addressof`.
fn address_uses<'a>(p: &'a CppParsed, stmt: Node<'_>) -> (BTreeSet<&'a str>, bool) {
    let mut words = BTreeSet::new();
    let mut any = false;
    for n in descendants(stmt) {
        match n.kind() {
            "pointer_expression"
                if n.child_by_field_name("operator")
                    .is_some_and(|o| p.text(o) == "&") =>
            {
                let borrowed = n
                    .parent()
                    .filter(|a| a.kind() == "argument_list")
                    .and_then(|a| a.parent())
                    .and_then(|c| c.child_by_field_name("function"))
                    .is_some_and(|f| POINTER_BORROWERS.contains(&p.text(f)));
                if !borrowed {
                    words.extend(code_words(p, n));
                }
            }
            "lambda_expression" => {
                any |= n
                    .child_by_field_name("captures")
                    .is_some_and(|c| p.text(c).contains('&'));
            }
            "identifier" => any |= matches!(p.text(n), "ref" | "cref" | "addressof"),
            _ => {}
        }
    }
    (words, any)
}

/// The runs of `block` that may be extracted.
fn block_runs(
    p: &CppParsed,
    block: Node<'_>,
    facts: &FunctionFacts<'_>,
    scalar_types: &BTreeSet<&str>,
    macro_words: &BTreeSet<&str>,
) -> Vec<Run> {
    // Segments of consecutive extractable statements (comments may stand between them).
    let kids = named_children(block);
    let mut segments: Vec<Vec<Node<'_>>> = vec![Vec::new()];
    for c in &kids {
        if c.kind() == "comment" {
            continue;
        }
        if is_stmt(c.kind()) && statement_ok(p, *c, facts) {
            if let Some(seg) = segments.last_mut() {
                seg.push(*c);
            }
        } else {
            segments.push(Vec::new());
        }
    }
    let body_end = block.end_byte().saturating_sub(1).max(block.start_byte());
    // Jump targets inside the block: a named lambda must not be declared before one.
    // A label is a target from anywhere; a `case` label only from its `switch`, which jumps
    // across a declaration only when it starts before it: (label, switch start).
    let targets: Vec<(usize, usize)> = descendants(block)
        .into_iter()
        .filter_map(|n| match n.kind() {
            "labeled_statement" => Some((n.start_byte(), 0)),
            "case_statement" => {
                let switch = std::iter::successors(n.parent(), |x| x.parent())
                    .find(|x| x.kind() == "switch_statement");
                Some((n.start_byte(), switch.map_or(0, |x| x.start_byte())))
            }
            _ => None,
        })
        .collect();
    let mut runs = Vec::new();
    for seg in segments.iter().filter(|s| !s.is_empty()) {
        let decls: Vec<Declared<'_>> = seg.iter().map(|s| declared(p, *s, scalar_types)).collect();
        let addresses: Vec<(BTreeSet<&str>, bool)> =
            seg.iter().map(|s| address_uses(p, *s)).collect();
        // For each possible last statement: the words after it in the block, and whether any
        // code follows it there.
        let tails: Vec<(BTreeSet<&str>, bool)> = seg
            .iter()
            .map(|last| {
                let end = last.end_byte();
                let after = p.source.get(end..body_end).unwrap_or("");
                let followed = kids
                    .iter()
                    .any(|c| c.start_byte() >= end && c.kind() != "comment");
                (words(after).collect(), followed)
            })
            .collect();
        for i in 0..seg.len() {
            let mut names: BTreeSet<&str> = BTreeSet::new();
            let mut objects: BTreeSet<&str> = BTreeSet::new();
            let mut plain = true;
            let mut directive = false;
            let mut only_declarations = true;
            for j in i..seg.len() {
                let (Some(first), Some(last), Some(d), Some((after_words, followed))) =
                    (seg.get(i), seg.get(j), decls.get(j), tails.get(j))
                else {
                    break;
                };
                names.extend(d.names.iter().copied());
                objects.extend(d.objects.iter().copied());
                plain &= d.plain;
                directive |= d.directive;
                let empty = last.kind() == "expression_statement" && last.named_child_count() == 0;
                only_declarations &= DECLARATIONS.contains(&last.kind()) || empty;
                if only_declarations {
                    continue;
                }
                if names
                    .iter()
                    .any(|n| after_words.contains(n) || macro_words.contains(*n))
                {
                    continue;
                }
                if *followed && directive {
                    continue;
                }
                if *followed && !objects.is_empty() {
                    let escaping = addresses
                        .get(i..=j)
                        .unwrap_or(&[])
                        .iter()
                        .any(|(ws, any)| *any || ws.iter().any(|w| objects.contains(w)));
                    if !plain || escaping {
                        continue;
                    }
                }
                let end = last.end_byte();
                runs.push(Run {
                    range: first.start_byte()..end,
                    len: j - i + 1,
                    named_ok: !targets.iter().any(|(t, from)| *t >= end && *from < end),
                });
            }
        }
    }
    runs
}

/// Type names the program defines as a plain arithmetic type (`typedef long long ll;`,
/// `using ld = long double;`).
fn scalar_aliases(p: &CppParsed) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    for n in p.nodes() {
        let (ty, names): (Option<Node<'_>>, Vec<Node<'_>>) = match n.kind() {
            "type_definition" => {
                let mut cursor = n.walk();
                let ds = n
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                (n.child_by_field_name("type"), ds)
            }
            "alias_declaration" => (
                n.child_by_field_name("type")
                    .and_then(|t| t.child_by_field_name("type").or(Some(t))),
                n.child_by_field_name("name").into_iter().collect(),
            ),
            _ => continue,
        };
        let scalar = ty.is_some_and(|t| {
            t.kind() == "sized_type_specifier"
                || t.kind() == "primitive_type" && !matches!(p.text(t), "void" | "auto")
        });
        if scalar && n.kind() == "alias_declaration" {
            // `using T = const int*;`: only a bare type counts.
            let plain = n
                .child_by_field_name("type")
                .is_some_and(|t| t.child_by_field_name("declarator").is_none());
            if !plain {
                continue;
            }
        }
        for d in names {
            if scalar && d.kind() == "type_identifier" {
                out.insert(p.text(d));
            }
        }
    }
    // A name that is also a class, a variable or a macro is not reliably the alias.
    let classes: BTreeSet<&str> = p
        .nodes()
        .into_iter()
        .filter(|n| {
            matches!(
                n.kind(),
                "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
            )
        })
        .filter_map(|n| n.child_by_field_name("name"))
        .map(|n| p.text(n))
        .collect();
    out.retain(|t| !classes.contains(t) && !p.macro_names().contains(*t));
    out
}

/// Whether a preprocessor node kind is a conditional (whose code is code) or an `#include`.
fn is_conditional_or_include(kind: &str) -> bool {
    matches!(
        kind,
        "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "preproc_include"
    )
}

/// The function whose body holds `block` directly (not through a lambda or local class).
fn owning_function<'t>(block: Node<'t>) -> Option<Node<'t>> {
    let mut cur = block.parent();
    while let Some(n) = cur {
        match n.kind() {
            "function_definition" => return Some(n),
            "lambda_expression" | "field_declaration_list" => return None,
            _ => {}
        }
        cur = n.parent();
    }
    None
}

/// The blocks that offer runs, with their runs (in document order).
fn sites(p: &CppParsed) -> Vec<Vec<Run>> {
    // The lines move: `__LINE__` anywhere would tell.
    if code_words(p, p.root())
        .iter()
        .any(|w| matches!(*w, "__LINE__" | "__builtin_LINE"))
    {
        return Vec::new();
    }
    let scalar_types = scalar_aliases(p);
    let constants = file_constants(p);
    // The words of macro bodies (and `#undef`s, `#pragma`s): a macro used after a run may
    // name what the run declares.
    let macro_words: BTreeSet<&str> = p
        .nodes()
        .into_iter()
        .filter(|n| n.kind().starts_with("preproc_") && !is_conditional_or_include(n.kind()))
        .flat_map(|n| words(p.text(n)))
        .collect();
    let mut out = Vec::new();
    for f in p.nodes_of_kind("function_definition") {
        let Some(body) = f
            .child_by_field_name("body")
            .filter(|b| b.kind() == "compound_statement")
        else {
            continue;
        };
        if !function_allowed(p, f, body) {
            continue;
        }
        let facts = function_facts(p, f, &constants);
        if facts.vm_types {
            continue;
        }
        for block in descendants(body) {
            if block.kind() != "compound_statement"
                || owning_function(block).is_none_or(|o| o.id() != f.id())
                || block
                    .parent()
                    .is_none_or(|x| !BLOCK_PARENTS.contains(&x.kind()))
                || in_conditional(block)
            {
                continue;
            }
            let runs = block_runs(p, block, &facts, &scalar_types, &macro_words);
            if !runs.is_empty() {
                out.push(runs);
            }
        }
    }
    out
}

/// One run of `runs`, preferring runs of two statements or more.
fn pick_run<'r>(runs: &[&'r Run], rng: &mut Rng) -> Option<&'r Run> {
    let long: Vec<&Run> = runs.iter().copied().filter(|r| r.len >= 2).collect();
    if !long.is_empty() && (long.len() == runs.len() || rng.chance(0.8)) {
        long.get(rng.below(long.len())).copied()
    } else {
        runs.get(rng.below(runs.len())).copied()
    }
}

/// The text that replaces `run`: the lambda and its call.
fn extraction(p: &CppParsed, run: &Run, name: Option<&str>, reindent: bool) -> Option<String> {
    let text = p.source.get(run.range.clone())?;
    let ind = sdk::text::line_indent(&p.source, run.range.start);
    let multiline = text.contains('\n')
        && starts_line(&p.source, run.range.start)
        && ends_line(&p.source, run.range.end);
    let (open, close) = match name {
        Some(name) if multiline => (
            format!("auto {name} = [&]() {{"),
            format!("}};\n{ind}{name}();"),
        ),
        Some(name) => (format!("auto {name} = [&]() {{"), format!("}}; {name}();")),
        None => ("[&]() {".to_string(), "}();".to_string()),
    };
    Some(if multiline {
        let inner = format!("{ind}{}", p.indent_unit());
        let body = if reindent {
            shift_lines(text, ind, &inner)
        } else {
            text.to_string()
        };
        format!("{open}\n{inner}{body}\n{ind}{close}")
    } else {
        format!("{open} {text} {close}")
    })
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites = sites(p);
    // Blocks with more runs are likelier, but not overwhelmingly so.
    let weights: Vec<u64> = sites
        .iter()
        .map(|runs| 1 + (runs.len() as f64).sqrt() as u64)
        .collect();
    let Some(site) = rng.weighted_site(&weights).and_then(|i| sites.get(i)) else {
        return edits;
    };
    let mut fresh = fresh_names(p);
    for taken in LIBC_NAMES {
        fresh.claim(taken);
    }
    let reindent = !has_raw_string(p) && !has_continuation(p);
    let all: Vec<&Run> = site.iter().collect();
    let Some(first) = pick_run(&all, rng) else {
        return edits;
    };
    let mut picked = vec![first];
    // Sometimes a second run of the same block, apart from the first.
    if rng.chance(0.3) {
        let apart: Vec<&Run> = all
            .iter()
            .copied()
            .filter(|r| r.range.end <= first.range.start || first.range.end <= r.range.start)
            .collect();
        if let Some(second) = pick_run(&apart, rng) {
            picked.push(second);
        }
    }
    for run in picked {
        let name = (run.named_ok && rng.chance(0.5)).then(|| fresh.fresh(rng, None));
        if let Some(text) = extraction(p, run, name.as_deref(), reindent) {
            edits.replace(run.range.clone(), text);
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    /// Every output of `src` (seeds 0..64) keeps `kept` as it is: that text never moves.
    fn assert_keeps(src: &str, kept: &str) {
        let mut applied = 0;
        for seed in 0..64 {
            if let Ok(Some(out)) = apply(src, seed) {
                applied += 1;
                assert!(out.contains(kept), "seed {seed} moved `{kept}`:\n{out}");
            }
        }
        assert!(applied > 0, "nothing else was extracted from:\n{src}");
    }

    #[test]
    fn returns_jumps_and_labels_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "int main() { int x = 1; if (x) return 2; return 0; }\n",
                "int main() { int i = 0; top: i++; if (i < 3) goto top; return i; }\n",
                // `break` and `continue` of a loop outside the run.
                "int f(int n) { for (int i = 0; i < n; i++) { if (i == 3) break; if (i == 5) return i; } return 0; }\nint main() { return f(4); }\n",
                "int f(int n) { while (n--) { if (n == 3) continue; if (n == 5) return n; } return 0; }\nint main() { return f(4); }\n",
                "struct task {}; task f() { int x = 1; x++; co_return; }\nint main() { return 0; }\n",
            ],
            8,
        );
    }

    #[test]
    fn function_names_statics_and_frame_tricks_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <cstdio>\nint main() { printf(\"%s\\n\", __func__); puts(__PRETTY_FUNCTION__); return 0; }\n",
                "int main() { for (int i = 0; i < 3; i++) { static int seen = i; } return 0; }\n",
                "int main() { for (int i = 0; i < 3; i++) { thread_local int seen = i; } return 0; }\n",
                "#include <alloca.h>\nint main() { char *p; p = (char *)alloca(8); return 0; }\n",
                "int sum(int n, ...) { int s = n; s += 1; s *= 2; return s; }\nint main() { return sum(1, 5); }\n",
                "#include <cstdarg>\nint f(va_list ap) { va_end(ap); return 0; }\n",
            ],
            8,
        );
    }

    #[test]
    fn uncapturable_names_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <utility>\nint main() { std::pair<int, int> p(1, 2); auto [a, b] = p; a += b; return a; }\n",
                "int main() { register int r = 3; r += 2; return r; }\n",
                "int main() { int n = 3, m = 4; int a[n][m]; a[1][2] = 5; return a[1][2]; }\n",
                "int main() { int m = 4; typedef int row[m]; row r; r[0] = 1; return r[0]; }\n",
                "template <typename... T> int f(T... xs) { int n = 0; n += sizeof...(xs); return n; }\nint main() { return f(1, 2); }\n",
            ],
            8,
        );
    }

    #[test]
    fn macros_conditional_code_and_other_contexts_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#define ADD(x) x += 1\nint main() { int a = 0; ADD(a); ADD(a); return a; }\n",
                "int main() { int a = 0;\n#ifdef X\n    a++;\n    a--;\n#endif\n    return a; }\n",
                "constexpr int f(int x) { x += 1; x *= 2; return x; }\nint main() { return f(1); }\n",
                "int main() { auto g = [](int x) { x += 1; x *= 2; return x; }; return g(1); }\n",
                "int main() { int v = ({ int t = 1; t += 2; t; }); return v; }\n",
                // A `switch` body's statements before its first `case`.
                "int main() { int x = 1; switch (x) { x++; x--; case 1: return 0; } return 1; }\n",
                "#include <cstdio>\nint main() { int a = 1; a++; printf(\"%d\\n\", __LINE__); return a; }\n",
                // A single declaration (or only declarations) is not worth a lambda.
                "int main() { int a = 1; int b = a; return b; }\n",
            ],
            8,
        );
    }

    #[test]
    fn declarations_used_after_the_run_stay() {
        // `a += 2;` alone may move; `int a = 1;` may not (`return a` needs it).
        assert_keeps(
            "int main() { int a = 1; a += 2; return a - 3; }\n",
            "int main() { int a = 1;",
        );
        // A local type and a typedef used after the run.
        assert_keeps(
            "int main() { struct P { int v; }; typedef int T; int x = 2; x++; P p{x}; T t = p.v; return t - 3; }\n",
            "int main() { struct P { int v; }; typedef int T;",
        );
        // A macro body naming the run's variable.
        assert_keeps(
            "#define SHOW total\nint main() { int total = 4; total--; return SHOW - 3; }\n",
            "int main() { int total = 4;",
        );
    }

    #[test]
    fn early_destruction_and_escaping_addresses_are_declined() {
        // Statements follow: a class object (its destructor prints) must not die early.
        assert_keeps(
            "#include <cstdio>\nstruct L { ~L() { puts(\"bye\"); } };\nint main() { L l; puts(\"hi\"); puts(\"after\"); return 0; }\n",
            "int main() { L l;",
        );
        // A pointer to the run's local is used after it.
        assert_keeps(
            "int main() { int *p = 0; int v = 5; p = &v; v++; return *p - 6; }\n",
            "int main() { int *p = 0; int v = 5;",
        );
        // A by-reference lambda kept beyond the run.
        assert_keeps(
            "#include <functional>\nint main() { std::function<int()> g; int k = 5; g = [&] { return k; }; k++; return g() - 6; }\n",
            "std::function<int()> g; int k = 5;",
        );
    }

    #[test]
    fn no_named_lambda_before_a_jump_target() {
        let src = "int main() { int n = 3, acc = 0;\n    switch (n % 2) {\n    case 1:\n        do {\n            acc += 1;\n            acc *= 2;\n        case 0:\n            acc += 3;\n        } while (--n > 0);\n    }\n    if (acc > 0) goto out;\n    acc = 1;\n    acc++;\nout:\n    return acc;\n}\n";
        let mut applied = 0;
        for seed in 0..64 {
            let (out, _) = super::apply_at_site(src, seed, 1);
            if let Ok(Some(out)) = out {
                applied += 1;
                assert!(!out.contains("auto "), "seed {seed}:\n{out}");
            }
        }
        assert!(applied > 0);
        for seed in 0..64 {
            if let Ok(Some(out)) = apply(src, seed) {
                let named_before_label = out
                    .find("auto ")
                    .is_some_and(|i| out.get(i..).is_some_and(|rest| rest.contains("out:")));
                assert!(!named_before_label, "seed {seed}:\n{out}");
            }
        }
    }

    #[test]
    fn lambdas_are_named_freshly_or_called_at_once() {
        let src = "#include <cstdio>\nint main() {\n    int a = 1, b = 2;\n    a += b;\n    b *= a;\n    printf(\"%d %d\\n\", a, b);\n    return 0;\n}\n";
        let mut styles = std::collections::BTreeSet::new();
        for seed in 0..32 {
            let out = apply(src, seed).unwrap().unwrap();
            if out.contains("}();") {
                styles.insert("immediate");
            }
            if out.contains("auto ") {
                styles.insert("named");
                for taken in ["main", "printf", "a", "b", "round", "index"] {
                    assert!(!out.contains(&format!("auto {taken} =")), "{out}");
                }
            }
        }
        assert_eq!(styles.len(), 2, "{styles:?}");
    }
}
