//! Small Python-specific queries used by several SPTs.

use crate::parse::{named_children, Parsed};
use crate::scope::{Resolution, ScopeInfo};
use tree_sitter::Node;

/// Whether the program may list or reach its module's names as a whole, so that a new
/// module-level name would show: `globals()`, `dir()` or `vars()` anywhere (with an argument
/// they can be handed the module), a namespace's `__dict__`, module-level `locals()`/`eval`/
/// `exec`, or frame and code introspection. A function's own `locals()` or `eval` does not: a
/// new module name is not among a function's locals.
pub fn may_list_module_names(parsed: &Parsed, info: &ScopeInfo) -> bool {
    info.scopes.first().is_some_and(|m| m.dynamic)
        || info.introspected
        || parsed.nodes_of_kind("identifier").into_iter().any(|n| {
            matches!(
                parsed.text(n),
                "globals" | "dir" | "vars" | "__dict__" | "__import__" | "modules"
            )
        })
}

/// The value of an integer literal (`3`, `-2`, `0x10`, `1_000`, `(4)`), if `node` is one.
pub fn int_literal(parsed: &Parsed, node: Node<'_>) -> Option<i64> {
    match node.kind() {
        "integer" => {
            let t = parsed.text(node).replace('_', "").to_ascii_lowercase();
            let (digits, radix) = match t.get(..2) {
                Some("0x") => (&t[2..], 16),
                Some("0o") => (&t[2..], 8),
                Some("0b") => (&t[2..], 2),
                _ => (t.as_str(), 10),
            };
            i64::from_str_radix(digits, radix)
                .ok()
                .filter(|v| v.abs() < (1 << 40))
        }
        "unary_operator" => {
            let arg = node.child_by_field_name("argument")?;
            let op = node
                .child_by_field_name("operator")
                .map(|o| parsed.text(o))?;
            let v = int_literal(parsed, arg)?;
            match op {
                "-" => Some(-v),
                "+" => Some(v),
                _ => None,
            }
        }
        "parenthesized_expression" => {
            let inner = named_children(node);
            if inner.len() == 1 {
                int_literal(parsed, inner[0])
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether the identifier `node` refers to the builtin of that name (not shadowed).
pub fn is_builtin_ref(info: &ScopeInfo, node: Node<'_>) -> bool {
    node.kind() == "identifier"
        && info
            .occurrence_at(&node.byte_range())
            .is_some_and(|i| info.resolutions[i] == Resolution::Builtin)
}

/// Whether the program binds `name` anywhere (so a generated use of the builtin could be
/// shadowed).
pub fn binds_anywhere(info: &ScopeInfo, name: &str) -> bool {
    info.scopes
        .iter()
        .any(|s| s.bound.contains(name) || s.globals.contains(name))
}

/// The positional arguments of a call to the builtin `range` with one to three arguments and
/// no keyword or unpacking arguments.
pub fn range_call_args<'t>(
    parsed: &Parsed,
    info: &ScopeInfo,
    node: Node<'t>,
) -> Option<Vec<Node<'t>>> {
    if node.kind() != "call" {
        return None;
    }
    let func = node.child_by_field_name("function")?;
    if parsed.text(func) != "range" || !is_builtin_ref(info, func) {
        return None;
    }
    let args = node.child_by_field_name("arguments")?;
    if args.kind() != "argument_list" {
        return None;
    }
    let list: Vec<Node<'t>> = named_children(args)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    let plain = list.iter().all(|a| {
        !matches!(
            a.kind(),
            "keyword_argument" | "list_splat" | "dictionary_splat" | "parenthesized_list_splat"
        )
    });
    (plain && (1..=3).contains(&list.len())).then_some(list)
}

/// `(start, stop, step)` of a `range(...)` whose arguments are all integer literals.
pub fn literal_range(parsed: &Parsed, args: &[Node<'_>]) -> Option<(i64, i64, i64)> {
    let vals: Option<Vec<i64>> = args.iter().map(|a| int_literal(parsed, *a)).collect();
    match vals?.as_slice() {
        [stop] => Some((0, *stop, 1)),
        [start, stop] => Some((*start, *stop, 1)),
        [start, stop, step] => Some((*start, *stop, *step)),
        _ => None,
    }
}

/// The unnamed `:` token that ends a compound statement's header (the first one after
/// `after_field`, or the first one at all).
pub fn header_colon<'t>(node: Node<'t>, after_field: Option<&str>) -> Option<Node<'t>> {
    let min = after_field
        .and_then(|f| node.child_by_field_name(f))
        .map_or(node.start_byte(), |n| n.end_byte());
    crate::parse::children(node)
        .into_iter()
        .find(|c| c.kind() == ":" && c.start_byte() >= min)
}

/// Whether `node` is an `async` statement (`async for`, `async with`).
pub fn is_async(parsed: &Parsed, node: Node<'_>) -> bool {
    parsed.text(node).starts_with("async")
}

/// Whether `node` lies in a self-documenting f-string field (`f"{a*b=}"`), whose output
/// contains the expression's text: any rewrite there changes what is printed.
pub fn in_debug_fstring(parsed: &Parsed, node: Node<'_>) -> bool {
    parsed.in_debug_field(&node.byte_range())
}

/// Whether the literal `node` must stay as written: it is in a `match` pattern (patterns take
/// literals only), an annotation (types may be read as text), an f-string format
/// specification, a self-documenting f-string field, or an operand of `is` / `is not`
/// (identity of literals is an implementation detail).
pub fn literal_must_stay(parsed: &Parsed, node: Node<'_>) -> bool {
    let src = parsed.source.as_str();
    let mut cur = node.parent();
    let mut child = node;
    while let Some(n) = cur {
        match n.kind() {
            "case_pattern" | "type" | "format_specifier" | "format_expression" => return true,
            "comparison_operator" => {
                // The operator next to this operand.
                let before = src[n.start_byte()..child.start_byte()].trim_end();
                let after = src[child.end_byte()..n.end_byte()].trim_start();
                if before.ends_with(" is") || before.ends_with(" not") || after.starts_with("is ") {
                    return true;
                }
            }
            _ => {}
        }
        child = n;
        cur = n.parent();
    }
    in_debug_fstring(parsed, node)
}

/// Whether the program reads standard input (the builtin `input`, `sys.stdin`, `stdin`): the
/// mark of a stdin/stdout script, whose module-level names no test or importer calls.
pub fn reads_stdin(parsed: &Parsed, info: &ScopeInfo) -> bool {
    let reads_input = info
        .occurrences
        .iter()
        .zip(&info.resolutions)
        .any(|(o, r)| o.name == "input" && *r == Resolution::Builtin);
    reads_input
        || parsed
            .nodes_of_kind("identifier")
            .iter()
            .any(|n| parsed.text(*n) == "stdin")
}

/// Whether `node` is an atom or primary (a name, literal, call, attribute, subscript or
/// bracketed display): it needs no parentheses wherever an expression may stand, as an
/// operand of any operator included.
pub fn is_atom(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "identifier"
            | "integer"
            | "float"
            | "string"
            | "concatenated_string"
            | "true"
            | "false"
            | "none"
            | "call"
            | "attribute"
            | "subscript"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}
