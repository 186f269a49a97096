//! Java's mutation operators ([`super::Operator`]): the Python families where Java has the
//! construct, every site in source order. Where Python's edit needs a type Java checks (a
//! returned value, a variable mixed up with another), the declared types choose it, so most
//! such mutants compile; one that does not is left out of the score as for any Java mutant.

use super::{
    is_field, push, push_loop_exit, push_operator_swaps, push_swapped_arguments, text, Edit,
    LoopKinds, Operator,
};

/// Java's loops, switches and the bodies a jump never leaves.
const JAVA_LOOPS: LoopKinds = LoopKinds {
    loops: &[
        "for_statement",
        "enhanced_for_statement",
        "while_statement",
        "do_statement",
    ],
    switches: &["switch_block", "switch_expression"],
    stops: &[
        "method_declaration",
        "constructor_declaration",
        "lambda_expression",
        "class_body",
    ],
};
use tree_sitter::Node;

/// `if (c)` → `if (!(c))` and the like: the text of a negated condition. `cond` is a
/// parenthesized expression (`if`, `while`, `do`) or a bare one (`for`, `?:`).
fn java_negated(cond: Node<'_>, src: &str) -> String {
    let t = text(cond, src);
    if cond.kind() == "parenthesized_expression" {
        format!("(!{t})")
    } else {
        format!("!({t})")
    }
}

/// The Java counterparts of [`super::python::collect`]'s operators, in source order.
pub(super) fn collect_java(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    match n.kind() {
        "binary_expression" | "assignment_expression" | "update_expression" => {
            push_operator_swaps(n, edits, false);
        }
        "decimal_integer_literal" => {
            let t = text(n, src);
            let (digits, suffix) = match t.strip_suffix(['l', 'L']) {
                Some(d) => (d, t.get(d.len()..).unwrap_or("")),
                None => (t, ""),
            };
            if let Ok(v) = digits.replace('_', "").parse::<i64>() {
                push(
                    edits,
                    Operator::Constant,
                    n,
                    format!("{}{suffix}", v.saturating_add(1)),
                );
                if v > 0 {
                    push(edits, Operator::Constant, n, format!("{}{suffix}", v - 1));
                }
            }
        }
        "true" => push(edits, Operator::Truth, n, "false"),
        "false" => push(edits, Operator::Truth, n, "true"),
        "unary_expression" => {
            let is_not = n
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "!");
            if let (true, Some(arg)) = (is_not, n.child_by_field_name("operand")) {
                push(
                    edits,
                    Operator::NegateCondition,
                    n,
                    format!("({})", text(arg, src)),
                );
            }
        }
        "if_statement" | "while_statement" | "do_statement" | "for_statement"
        | "ternary_expression" => {
            if let Some(cond) = n.child_by_field_name("condition") {
                push(
                    edits,
                    Operator::NegateCondition,
                    cond,
                    java_negated(cond, src),
                );
            }
            if n.kind() == "if_statement" {
                java_swap_branches(n, src, edits);
                java_drop_else(n, edits);
            }
        }
        "expression_statement" | "return_statement" | "break_statement" | "continue_statement" => {
            let in_block = n
                .parent()
                .is_some_and(|p| matches!(p.kind(), "block" | "switch_block_statement_group"));
            if in_block {
                push(edits, Operator::DropStatement, n, ";");
            }
            match n.kind() {
                "return_statement" => java_return_value(n, src, edits),
                "break_statement" | "continue_statement" => push_loop_exit(n, edits, &JAVA_LOOPS),
                _ => {}
            }
        }
        "method_declaration" | "constructor_declaration" => java_wrong_variables(n, src, edits),
        "method_invocation" => {
            let on_math = n
                .child_by_field_name("object")
                .is_some_and(|o| text(o, src) == "Math");
            if let (true, Some(name)) = (on_math, n.child_by_field_name("name")) {
                match text(name, src) {
                    "min" => push(edits, Operator::MinMax, name, "max"),
                    "max" => push(edits, Operator::MinMax, name, "min"),
                    _ => {}
                }
            }
            push_swapped_arguments(n, src, edits);
        }
        _ => {}
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        collect_java(child, src, edits);
    }
}

/// `if (c) { A } else { B }` → `if (c) { B } else { A }`, when both branches are blocks.
fn java_swap_branches(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let (Some(then), Some(other)) = (
        n.child_by_field_name("consequence"),
        n.child_by_field_name("alternative"),
    ) else {
        return;
    };
    if then.kind() != "block" || other.kind() != "block" {
        return;
    }
    let between = src.get(then.end_byte()..other.start_byte()).unwrap_or("");
    edits.push(Edit {
        operator: Operator::SwapBranches,
        start: then.start_byte(),
        end: other.end_byte(),
        text: format!("{}{between}{}", text(other, src), text(then, src)),
        line: n.start_position().row + 1,
    });
}

/// `if (c) A else B` → `if (c) A`: the final `else` dropped (an `else if` keeps its chain; its
/// own `if` drops its own `else`).
fn java_drop_else(n: Node<'_>, edits: &mut Vec<Edit>) {
    let (Some(then), Some(other)) = (
        n.child_by_field_name("consequence"),
        n.child_by_field_name("alternative"),
    ) else {
        return;
    };
    if other.kind() == "if_statement" {
        return;
    }
    edits.push(Edit {
        operator: Operator::DropElse,
        start: then.end_byte(),
        end: other.end_byte(),
        text: String::new(),
        line: other.start_position().row + 1,
    });
}

/// The method or constructor `n` belongs to, or `None` inside a lambda, an initializer or a
/// nested class's field (where `return` and local names mean something else).
fn enclosing_method(n: Node<'_>) -> Option<Node<'_>> {
    let mut up = n.parent();
    while let Some(p) = up {
        match p.kind() {
            "method_declaration" | "constructor_declaration" => return Some(p),
            "lambda_expression" | "class_body" | "static_initializer" => return None,
            _ => up = p.parent(),
        }
    }
    None
}

/// `return e;` → a wrong value of the method's declared type: `0` for a number or `char`,
/// `!(e)` for a `boolean`, `null` for an object or array.
fn java_return_value(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let Some(value) = n.named_child(0) else {
        return;
    };
    let Some(ty) = enclosing_method(n).and_then(|m| m.child_by_field_name("type")) else {
        return;
    };
    let wrong = match ty.kind() {
        "integral_type" | "floating_point_type" => "0".to_string(),
        "boolean_type" => format!("!({})", text(value, src)),
        "void_type" => return,
        _ if value.kind() == "null_literal" => return,
        _ => "null".to_string(),
    };
    push(edits, Operator::ReturnValue, value, wrong);
}
/// The locals and parameters a method declares, with their declared type's text (`int`,
/// `long[]`, `List<Integer>`), not counting nested lambdas and classes.
fn java_typed_locals<'s>(method: Node<'_>, src: &'s str) -> Vec<(String, &'s str)> {
    let mut out = Vec::new();
    let mut stack = vec![method];
    while let Some(n) = stack.pop() {
        if n.id() != method.id()
            && matches!(
                n.kind(),
                "lambda_expression" | "class_body" | "method_declaration"
            )
        {
            continue;
        }
        let declared = |ty: Node<'_>, decl: Node<'_>| {
            // `int a[]` puts the brackets on the name: the type is then the text with them.
            let dims = decl
                .child_by_field_name("dimensions")
                .map_or("", |d| text(d, src));
            let name = decl.child_by_field_name("name").map(|x| text(x, src))?;
            Some((format!("{}{dims}", text(ty, src)), name))
        };
        match n.kind() {
            "formal_parameter" | "enhanced_for_statement" => {
                if let Some(ty) = n.child_by_field_name("type") {
                    out.extend(declared(ty, n));
                }
            }
            "local_variable_declaration" => {
                if let Some(ty) = n.child_by_field_name("type") {
                    let mut c = n.walk();
                    for d in n.children_by_field_name("declarator", &mut c) {
                        out.extend(declared(ty, d));
                    }
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether identifier `n` is read where it stands: not declared, assigned, incremented, called
/// or a field's name.
fn java_is_read(n: Node<'_>) -> bool {
    let Some(p) = n.parent() else {
        return false;
    };
    let is = |field: &str| is_field(p, field, n);
    match p.kind() {
        "assignment_expression" => !is("left"),
        "variable_declarator"
        | "formal_parameter"
        | "enhanced_for_statement"
        | "catch_formal_parameter" => !is("name"),
        "method_invocation" => !is("name"),
        "field_access" => !is("field"),
        "update_expression"
        | "inferred_parameters"
        | "lambda_expression"
        | "labeled_statement"
        | "break_statement"
        | "continue_statement"
        | "method_reference"
        | "scoped_identifier" => false,
        _ => true,
    }
}

/// Each read of a local or parameter replaced by the next one of the same declared type (in
/// sorted order, wrapping): a variable mixed up with another the compiler cannot tell from it.
fn java_wrong_variables(method: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let locals = java_typed_locals(method, src);
    let Some(body) = method.child_by_field_name("body") else {
        return;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "lambda_expression" | "class_body") {
            continue;
        }
        if n.kind() == "identifier" && java_is_read(n) {
            let name = text(n, src);
            let types: Vec<&String> = locals
                .iter()
                .filter(|(_, x)| *x == name)
                .map(|(t, _)| t)
                .collect();
            // A name declared with two types (two scopes) is left alone.
            if let [ty] = types.as_slice() {
                let same: Vec<&str> = locals
                    .iter()
                    .filter(|(t, _)| t == *ty)
                    .map(|(_, x)| *x)
                    .collect();
                if let Some(i) = same.iter().position(|x| *x == name) {
                    if same.len() >= 2 {
                        push(
                            edits,
                            Operator::WrongVariable,
                            n,
                            same[(i + 1) % same.len()],
                        );
                    }
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}
