//! C and C++ mutation operators ([`super::Operator`]), read from tree-sitter-c and
//! tree-sitter-cpp trees (whose node kinds agree where these operators look). A mutant that
//! does not compile is left out of the score, as for Java.

use super::{
    push, push_loop_exit, push_operator_swaps, push_swapped_arguments, text, Edit, LoopKinds,
    Operator,
};

/// C and C++ loops, switches and the bodies a jump never leaves.
const C_LOOPS: LoopKinds = LoopKinds {
    loops: &[
        "for_statement",
        "for_range_loop",
        "while_statement",
        "do_statement",
    ],
    switches: &["switch_statement"],
    stops: &["function_definition", "lambda_expression"],
};
use tree_sitter::Node;

/// Whether `n` is an operator token inside a template argument list or a stream chain
/// (`cin >> x`, `cout << x`): swapping those makes no behavioural mutant, only noise.
fn is_stream(n: Node<'_>, src: &str) -> bool {
    let mut left = Some(n);
    while let Some(l) = left {
        if l.kind() != "binary_expression" {
            let t = text(l, src);
            return matches!(
                t,
                "cin" | "cout" | "cerr" | "std::cin" | "std::cout" | "std::cerr"
            );
        }
        left = l.child_by_field_name("left");
    }
    false
}

/// An integer literal's value and suffix (`10`, `5LL`, `7u`); `None` for other numbers
/// (floats, hexadecimal, octal).
fn decimal(t: &str) -> Option<(i64, &str)> {
    let digits = t.trim_end_matches(['l', 'L', 'u', 'U']);
    let suffix = t.get(digits.len()..).unwrap_or("");
    if digits.is_empty()
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '\'')
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    digits
        .replace('\'', "")
        .parse::<i64>()
        .ok()
        .map(|v| (v, suffix))
}

/// The C-family counterparts of the Python and Java operators, in source order.
pub(super) fn collect(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    match n.kind() {
        // Directives and templates hold no behaviour the operators target.
        "preproc_include" | "preproc_def" | "preproc_function_def" | "template_argument_list" => {
            return;
        }
        "binary_expression" | "assignment_expression" | "update_expression" => {
            let stream = n
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(o.kind(), "<<" | ">>"))
                && is_stream(n, src);
            push_operator_swaps(n, edits, stream);
        }
        "number_literal" => {
            if let Some((v, suffix)) = decimal(text(n, src)) {
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
            if let (true, Some(arg)) = (is_not, n.child_by_field_name("argument")) {
                push(
                    edits,
                    Operator::NegateCondition,
                    n,
                    format!("({})", text(arg, src)),
                );
            }
        }
        "if_statement"
        | "while_statement"
        | "do_statement"
        | "for_statement"
        | "conditional_expression" => {
            if let Some(cond) = n.child_by_field_name("condition") {
                let t = text(cond, src);
                // `if (c)` (C: parenthesized_expression, C++: condition_clause) keeps its
                // parentheses; a `for` condition and `?:`'s are bare.
                let negated = if t.starts_with('(') && t.ends_with(')') {
                    format!("(!{t})")
                } else {
                    format!("!({t})")
                };
                push(edits, Operator::NegateCondition, cond, negated);
            }
            if n.kind() == "if_statement" {
                drop_else(n, edits);
            }
        }
        "expression_statement" | "return_statement" | "break_statement" | "continue_statement" => {
            let in_block = n.parent().is_some_and(|p| p.kind() == "compound_statement");
            if in_block && text(n, src) != ";" {
                push(edits, Operator::DropStatement, n, ";");
            }
            if matches!(n.kind(), "break_statement" | "continue_statement") {
                push_loop_exit(n, edits, &C_LOOPS);
            }
        }
        "call_expression" => {
            if let Some(f) = n.child_by_field_name("function") {
                let name = text(f, src);
                let (prefix, base) = match name.strip_prefix("std::") {
                    Some(b) => ("std::", b),
                    None => ("", name),
                };
                match base {
                    "min" => push(edits, Operator::MinMax, f, format!("{prefix}max")),
                    "max" => push(edits, Operator::MinMax, f, format!("{prefix}min")),
                    _ => {}
                }
            }
            push_swapped_arguments(n, src, edits);
        }
        _ => {}
    }
    let mut c = n.walk();
    for child in n.children(&mut c) {
        collect(child, src, edits);
    }
}

/// `if (c) a else b` → `if (c) a`.
fn drop_else(n: Node<'_>, edits: &mut Vec<Edit>) {
    let Some(other) = n.child_by_field_name("alternative") else {
        return;
    };
    edits.push(Edit {
        operator: Operator::DropElse,
        start: other.start_byte(),
        end: other.end_byte(),
        text: String::new(),
        line: other.start_position().row + 1,
    });
}
