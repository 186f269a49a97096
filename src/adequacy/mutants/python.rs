//! Python's mutation operators ([`super::Operator`]): every site in source order.

use super::{is_field, push, text, Edit, Operator};
use tree_sitter::Node;

/// The replacements of a comparison operator: the brace languages' ones and membership and
/// identity tests.
fn comparison_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "in" => &["not in"],
        "not in" => &["in"],
        "is" => &["is not"],
        "is not" => &["is"],
        _ => super::brace_comparison_swaps(op),
    }
}

/// The replacements of an arithmetic or bitwise operator.
fn arithmetic_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-"],
        "-" => &["+"],
        "*" => &["+"],
        "/" => &["*"],
        "//" => &["*"],
        "%" => &["//"],
        "**" => &["*"],
        "<<" => &[">>"],
        ">>" => &["<<"],
        "&" => &["|"],
        "|" => &["&"],
        "^" => &["&"],
        _ => &[],
    }
}

/// Every edit of Python's operators in the tree under `n`, in source order.
pub(super) fn collect(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    match n.kind() {
        "comparison_operator" => {
            let mut c = n.walk();
            for child in n.children(&mut c) {
                for s in comparison_swaps(child.kind()) {
                    push(edits, Operator::Comparison, child, *s);
                }
            }
        }
        "binary_operator" => {
            if let Some(op) = n.child_by_field_name("operator") {
                for s in arithmetic_swaps(op.kind()) {
                    push(edits, Operator::Arithmetic, op, *s);
                }
            }
        }
        "augmented_assignment" => {
            if let Some(op) = n.child_by_field_name("operator") {
                let base = op.kind().trim_end_matches('=');
                for s in arithmetic_swaps(base) {
                    push(edits, Operator::Arithmetic, op, format!("{s}="));
                }
            }
        }
        "boolean_operator" => {
            if let Some(op) = n.child_by_field_name("operator") {
                let other = if op.kind() == "and" { "or" } else { "and" };
                push(edits, Operator::Boolean, op, other);
            }
        }
        "integer" => {
            let t = text(n, src).replace('_', "");
            if let Ok(v) = t.parse::<i64>() {
                push(edits, Operator::Constant, n, (v + 1).to_string());
                if v > 0 {
                    push(edits, Operator::Constant, n, (v - 1).to_string());
                }
            }
        }
        "true" => push(edits, Operator::Truth, n, "False"),
        "false" => push(edits, Operator::Truth, n, "True"),
        "not_operator" => {
            if let Some(arg) = n.child_by_field_name("argument") {
                push(
                    edits,
                    Operator::NegateCondition,
                    n,
                    format!("({})", text(arg, src)),
                );
            }
        }
        "if_statement" | "elif_clause" | "while_statement" => {
            if let Some(cond) = n.child_by_field_name("condition") {
                push(
                    edits,
                    Operator::NegateCondition,
                    cond,
                    format!("not ({})", text(cond, src)),
                );
            }
            if n.kind() == "if_statement" {
                swap_branches(n, src, edits);
                drop_else(n, edits);
            }
        }
        "return_statement" => {
            if n.parent()
                .is_some_and(|p| matches!(p.kind(), "block" | "module"))
            {
                push(edits, Operator::DropStatement, n, "pass");
            }
            if let Some(value) = n.named_child(0).filter(|v| v.kind() != "none") {
                push(edits, Operator::ReturnValue, value, "None");
            }
        }
        "function_definition" | "module" => wrong_variables(n, src, edits),
        "expression_statement" | "break_statement" | "continue_statement" | "delete_statement" => {
            let docstring = n.kind() == "expression_statement"
                && n.named_child_count() == 1
                && n.named_child(0).is_some_and(|c| c.kind() == "string");
            let in_block = n
                .parent()
                .is_some_and(|p| matches!(p.kind(), "block" | "module"));
            if in_block && !docstring {
                push(edits, Operator::DropStatement, n, "pass");
            }
            loop_exit(n, edits);
        }
        "slice" => slice_bounds(n, src, edits),
        "call" => call_edits(n, src, edits),
        _ => {}
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        collect(child, src, edits);
    }
}

/// `if c: A else: B` → `if c: B else: A`, when both bodies are indented blocks at one column.
fn swap_branches(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let Some(then) = n.child_by_field_name("consequence") else {
        return;
    };
    let mut c = n.walk();
    let alternatives: Vec<Node<'_>> = n.children_by_field_name("alternative", &mut c).collect();
    let [alt] = alternatives.as_slice() else {
        return;
    };
    if alt.kind() != "else_clause" {
        return;
    }
    let Some(other) = alt.child_by_field_name("body") else {
        return;
    };
    let same_shape = then.start_position().column == other.start_position().column
        && then.start_position().row > n.start_position().row
        && other.start_position().row > alt.start_position().row;
    if !same_shape {
        return;
    }
    // One edit spanning from the first body to the end of the second.
    let between = src.get(then.end_byte()..other.start_byte()).unwrap_or("");
    edits.push(Edit {
        operator: Operator::SwapBranches,
        start: then.start_byte(),
        end: other.end_byte(),
        text: format!("{}{between}{}", text(other, src), text(then, src)),
        line: n.start_position().row + 1,
    });
}

/// `if c: A else: B` → `if c: A` (also after `elif`s): the else branch's work is skipped.
fn drop_else(n: Node<'_>, edits: &mut Vec<Edit>) {
    let mut c = n.walk();
    let alternatives: Vec<Node<'_>> = n.children_by_field_name("alternative", &mut c).collect();
    let Some(last) = alternatives.last().filter(|a| a.kind() == "else_clause") else {
        return;
    };
    let Some(before) = last.prev_sibling() else {
        return;
    };
    edits.push(Edit {
        operator: Operator::DropElse,
        start: before.end_byte(),
        end: last.end_byte(),
        text: String::new(),
        line: last.start_position().row + 1,
    });
}

/// `break` → `continue` (and `return` when the loop is in a function), `continue` → `break`:
/// a loop left early, or not left when it should be.
fn loop_exit(n: Node<'_>, edits: &mut Vec<Edit>) {
    match n.kind() {
        "break_statement" => {
            push(edits, Operator::LoopExit, n, "continue");
            let mut up = n.parent();
            while let Some(p) = up {
                if p.kind() == "function_definition" {
                    push(edits, Operator::LoopExit, n, "return");
                    break;
                }
                if p.kind() == "class_definition" {
                    break;
                }
                up = p.parent();
            }
        }
        "continue_statement" => push(edits, Operator::LoopExit, n, "break"),
        _ => {}
    }
}

/// The body of a scope: a function's block, or the module itself.
fn scope_body(scope: Node<'_>) -> Option<Node<'_>> {
    match scope.kind() {
        "module" => Some(scope),
        _ => scope.child_by_field_name("body"),
    }
}

/// The names a scope (a function or the module) binds directly: a function's parameters and
/// plain-name targets of assignments and `for` loops in its own body (not in nested functions
/// or classes).
fn bound_names<'s>(function: Node<'_>, src: &'s str) -> Vec<&'s str> {
    let mut names = Vec::new();
    if let Some(params) = function.child_by_field_name("parameters") {
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            let name = match p.kind() {
                "identifier" => Some(p),
                "typed_parameter" => p.named_child(0).filter(|x| x.kind() == "identifier"),
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                _ => None,
            };
            names.extend(name.map(|x| text(x, src)));
        }
    }
    let mut stack: Vec<Node<'_>> = scope_body(function).into_iter().collect();
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            continue;
        }
        if matches!(
            n.kind(),
            "assignment" | "augmented_assignment" | "for_statement"
        ) {
            if let Some(left) = n
                .child_by_field_name("left")
                .filter(|l| l.kind() == "identifier")
            {
                names.push(text(left, src));
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    names.sort_unstable();
    names.dedup();
    names
}

/// Whether identifier `n` is read where it stands (not bound, not an attribute's or a keyword
/// argument's name, not a called function).
fn is_read(n: Node<'_>) -> bool {
    let Some(p) = n.parent() else {
        return false;
    };
    let is = |field: &str| is_field(p, field, n);
    match p.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => !is("left"),
        "attribute" => !is("attribute"),
        "keyword_argument" => !is("name"),
        "call" => !is("function"),
        "parameters"
        | "typed_parameter"
        | "default_parameter"
        | "typed_default_parameter"
        | "function_definition"
        | "class_definition"
        | "global_statement"
        | "nonlocal_statement"
        | "dotted_name"
        | "aliased_import"
        | "lambda_parameters" => false,
        _ => true,
    }
}

/// Each read of a name the scope (a function or the module) binds, replaced by the next such
/// name (in sorted order, wrapping): a variable mixed up with another of the same scope.
fn wrong_variables(scope: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let names = bound_names(scope, src);
    if names.len() < 2 {
        return;
    }
    let Some(body) = scope_body(scope) else {
        return;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            continue;
        }
        if n.kind() == "identifier" && is_read(n) {
            let name = text(n, src);
            if let Some(i) = names.iter().position(|x| *x == name) {
                let other = names[(i + 1) % names.len()];
                push(edits, Operator::WrongVariable, n, other);
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

/// `a[i:j]` → `a[(i)+1:j]`, `a[i:(j)-1]`, …; `a[:j]` → `a[1:j]`.
fn slice_bounds(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let mut c = n.walk();
    let parts: Vec<Node<'_>> = n.children(&mut c).collect();
    // Children are expressions and `:` tokens; the bounds are the expressions before the
    // second colon.
    let mut colons = 0;
    let mut start_seen = false;
    for p in &parts {
        if p.kind() == ":" {
            colons += 1;
            continue;
        }
        if colons >= 2 {
            break;
        }
        if colons == 0 {
            start_seen = true;
        }
        let t = text(*p, src);
        push(edits, Operator::SliceBound, *p, format!("({t}) + 1"));
        push(edits, Operator::SliceBound, *p, format!("({t}) - 1"));
    }
    if !start_seen {
        if let Some(first_colon) = parts.iter().find(|p| p.kind() == ":") {
            edits.push(Edit {
                operator: Operator::SliceBound,
                start: first_colon.start_byte(),
                end: first_colon.start_byte(),
                text: "1".into(),
                line: first_colon.start_position().row + 1,
            });
        }
    }
}

/// `range(...)` arguments ± 1 and `min` ↔ `max`.
fn call_edits(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let Some(f) = n.child_by_field_name("function") else {
        return;
    };
    // Arguments swapped: except for `min` and `max`, whose two orders give the same value.
    if !matches!(text(f, src), "min" | "max") {
        swap_arguments(n, src, edits);
    }
    match text(f, src) {
        "min" => push(edits, Operator::MinMax, f, "max"),
        "max" => push(edits, Operator::MinMax, f, "min"),
        "range" => {
            let Some(args) = n.child_by_field_name("arguments") else {
                return;
            };
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                if a.kind() == "integer" || a.kind() == "keyword_argument" {
                    continue; // constants are the constant operator's
                }
                let t = text(a, src);
                push(edits, Operator::RangeBound, a, format!("({t}) + 1"));
                push(edits, Operator::RangeBound, a, format!("({t}) - 1"));
            }
        }
        _ => {}
    }
}

/// `f(a, b, …)` → `f(b, a, …)` when the first two arguments are positional and differ.
fn swap_arguments(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let Some(args) = n.child_by_field_name("arguments") else {
        return;
    };
    let mut c = args.walk();
    let named: Vec<Node<'_>> = args.named_children(&mut c).collect();
    if let [a, b, ..] = named.as_slice() {
        let positional = |x: &Node<'_>| {
            !matches!(
                x.kind(),
                "keyword_argument" | "list_splat" | "dictionary_splat" | "comment"
            )
        };
        if positional(a) && positional(b) && text(*a, src) != text(*b, src) {
            let between = src.get(a.end_byte()..b.start_byte()).unwrap_or(", ");
            edits.push(Edit {
                operator: Operator::SwapArguments,
                start: a.start_byte(),
                end: b.end_byte(),
                text: format!("{}{between}{}", text(*b, src), text(*a, src)),
                line: n.start_position().row + 1,
            });
        }
    }
}
