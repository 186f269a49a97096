//! Expressions that read one way: redundant parentheses, double `not`, operand order.

use super::*;

/// Parentheses that only repeat what the slot or the precedence already says.
pub(super) fn redundant_parens(source: &str, n: Node<'_>, out: &mut Structure) {
    let (Some(parent), Some(inner)) = (n.parent(), n.named_child(0)) else {
        return;
    };
    if n.named_child_count() != 1
        || matches!(inner.kind(), "yield" | "generator_expression" | "comment")
        || (inner.kind() == "binary_operator"
            && constant(source, inner).is_some_and(|c| matches!(c, Constant::Int(_))))
    {
        // An integer expression's group is folded to its value instead.
        return;
    }
    let whole_slot = match parent.kind() {
        "return_statement" | "parenthesized_expression" | "assert_statement" => true,
        "for_statement" => parent
            .child_by_field_name("right")
            .is_some_and(|r| r.id() == n.id()),
        "expression_statement" => true,
        // A call argument, a keyword argument's or a dict entry's value.
        "argument_list" | "list" | "if_clause" => true,
        "keyword_argument" | "pair" => parent
            .child_by_field_name("value")
            .is_some_and(|v| v.id() == n.id()),
        "assignment" | "augmented_assignment" => parent
            .child_by_field_name("right")
            .is_some_and(|r| r.id() == n.id()),
        "if_statement" | "elif_clause" | "while_statement" => parent
            .child_by_field_name("condition")
            .is_some_and(|c| c.id() == n.id()),
        _ => false,
    };
    // Operands of `and`/`or`/`not` that bind more tightly than them.
    let tighter = matches!(parent.kind(), "boolean_operator" | "not_operator")
        && !matches!(
            inner.kind(),
            "boolean_operator" | "conditional_expression" | "lambda" | "named_expression"
        );
    if whole_slot || tighter {
        out.dropped.push(n.start_byte()..inner.start_byte());
        out.dropped.push(inner.end_byte()..n.end_byte());
    }
}

/// `not not c` reads as `c`.
pub(super) fn double_not(n: Node<'_>, out: &mut Structure) {
    let Some(inner) = n.child_by_field_name("argument") else {
        return;
    };
    if inner.kind() != "not_operator" || n.parent().is_some_and(|p| p.kind() == "not_operator") {
        return;
    }
    let Some(operand) = inner.child_by_field_name("argument") else {
        return;
    };
    out.dropped.push(n.start_byte()..operand.start_byte());
    // `if not not (a and b):` reads as `if a and b:`.
    let condition = n.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "if_statement" | "elif_clause" | "while_statement" | "assert_statement" | "if_clause"
        )
    });
    if let (true, "parenthesized_expression", Some(c)) =
        (condition, operand.kind(), operand.named_child(0))
    {
        out.dropped.push(operand.start_byte()..c.start_byte());
        out.dropped.push(c.end_byte()..operand.end_byte());
    }
}

/// Operands in one order: `a < b` for `b > a`, `x == 0` for `0 == x`, `n * 2` for `2 * n`.
pub(super) fn operand_order(source: &str, n: Node<'_>, out: &mut Structure) {
    let (left, right) = match n.kind() {
        "binary_operator" => (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ),
        _ => {
            let operands: Vec<Node<'_>> = n.named_children(&mut n.walk()).collect();
            match operands.as_slice() {
                [l, r] => (Some(*l), Some(*r)),
                _ => (None, None),
            }
        }
    };
    let (Some(left), Some(right)) = (left, right) else {
        return;
    };
    // Any two operands read with `<` (the canonical form never runs, so order of evaluation
    // does not matter); a literal moves right only past a plain operand, as the SPT moves it.
    let (l, r) = (plain(source, left), plain(source, right));
    let op = source
        .get(left.end_byte()..right.start_byte())
        .unwrap_or_default();
    let trimmed = op.trim();
    let Some(offset) = op.find(trimmed) else {
        return;
    };
    let operator = left.end_byte() + offset..left.end_byte() + offset + trimmed.len();
    let literal_first = l == Some(Plain::Literal) && r == Some(Plain::Name);
    let mirrored = match (n.kind(), trimmed) {
        ("comparison_operator", ">") => Some("<"),
        ("comparison_operator", ">=") => Some("<="),
        ("comparison_operator", "==" | "!=" | "is" | "is not") if literal_first => None,
        // Arithmetic commutes with a number, not with a string (`"a" + s`).
        ("binary_operator", "+" | "*" | "&" | "|" | "^")
            if literal_first && left.kind() != "string" =>
        {
            None
        }
        _ => return,
    };
    out.swaps.push(Swap {
        left: range(left),
        operator,
        mirrored,
        right: range(right),
    });
}

/// `getattr(obj, "name")` (two arguments, the second a plain string that is a name) reads as
/// `obj.name`: the same lookup.
pub(super) fn attribute_lookup(source: &str, call: Node<'_>, out: &mut Structure) {
    let Some(GetattrCall {
        object,
        comma,
        name,
        value,
        arguments,
    }) = constant_getattr(source, call, &out.named_strings)
    else {
        return;
    };
    // `getattr(` goes, the comma reads as a dot, the string as the name, `)` goes.
    out.dropped.push(call.start_byte()..object.start_byte());
    out.texts.insert(comma.start_byte(), ".".to_string());
    out.texts.insert(name.start_byte(), value);
    out.dropped.push(name.end_byte()..arguments.end_byte());
}

/// The parts of `getattr(object, "name")` with a constant identifier for a name.
pub(super) struct GetattrCall<'t> {
    /// The object looked into.
    pub object: Node<'t>,
    /// The comma after it.
    pub comma: Node<'t>,
    /// The string literal naming the attribute.
    pub name: Node<'t>,
    /// The name's value.
    pub value: String,
    /// The call's parenthesised arguments.
    pub arguments: Node<'t>,
}

/// `call` as a [`GetattrCall`], if it is one: the name a string literal, or a module constant
/// holding one (`named`).
pub(super) fn constant_getattr<'t>(
    source: &str,
    call: Node<'t>,
    named: &HashMap<String, String>,
) -> Option<GetattrCall<'t>> {
    let function = call.child_by_field_name("function")?;
    let arguments = call.child_by_field_name("arguments")?;
    if function.kind() != "identifier" || text(source, function) != "getattr" {
        return None;
    }
    let args: Vec<Node<'_>> = arguments
        .named_children(&mut arguments.walk())
        .filter(|a| a.kind() != "comment")
        .collect();
    let [object, name] = args.as_slice() else {
        return None;
    };
    let literal = (name.kind() == "string")
        .then(|| python_string(text(source, *name)))
        .flatten()
        .filter(|v| !v.formatted && !v.bytes && is_identifier(&v.value))
        .map(|v| v.value);
    let value = match literal {
        Some(v) => v,
        None if name.kind() == "identifier" => named.get(text(source, *name))?.clone(),
        None => return None,
    };
    let comma = arguments
        .children(&mut arguments.walk())
        .find(|c| c.kind() == "," && c.start_byte() >= object.end_byte())?;
    Some(GetattrCall {
        object: *object,
        comma,
        name: *name,
        value,
        arguments,
    })
}

/// An integer expression of literals and module constants reads as its value, where it is
/// not itself part of a larger one that does (what `constant-unfold` and `int-arith` undo).
/// Whether it folded: then its operands are not reordered.
pub(super) fn folded_arithmetic(source: &str, n: Node<'_>, out: &mut Structure) -> bool {
    let Some(Constant::Int(value)) = constant_in(source, n, &out.named_integers) else {
        return false;
    };
    let mut up = n.parent();
    while let Some(p) =
        up.filter(|p| matches!(p.kind(), "parenthesized_expression" | "unary_operator"))
    {
        up = p.parent();
    }
    let inside_folded = up.is_some_and(|p| {
        p.kind() == "binary_operator"
            && matches!(
                constant_in(source, p, &out.named_integers),
                Some(Constant::Int(_))
            )
    });
    if !inside_folded {
        // The value goes on the first token that is not a parenthesis (a rule that drops
        // redundant parentheses must not take it along); every other token goes.
        let mut anchor = n;
        while let Some(first) = anchor.child(0) {
            anchor = match first.kind() {
                "(" => match first.next_sibling() {
                    Some(next) => next,
                    None => break,
                },
                _ => first,
            };
        }
        out.texts.insert(anchor.start_byte(), value.to_string());
        out.dropped.push(n.start_byte()..anchor.start_byte());
        out.dropped.push(anchor.start_byte() + 1..n.end_byte());
    }
    true
}

/// `x = x OP E` reads as `x OP= E` (what `augmented-assign` makes of `x OP= E`), for a plain
/// name `x` and an arithmetic or bitwise `OP`.
pub(super) fn augmented(source: &str, statement: Node<'_>, out: &mut Structure) {
    let Some((target, value)) = assignment(statement) else {
        return;
    };
    let (Some(left), Some(operator), Some(right)) = (
        value.child_by_field_name("left"),
        value.child_by_field_name("operator"),
        value.child_by_field_name("right"),
    ) else {
        return;
    };
    let op = text(source, operator);
    let Some(equals) = value
        .prev_sibling()
        .filter(|e| e.kind() == "=" && value.kind() == "binary_operator")
    else {
        return;
    };
    if target.kind() != "identifier"
        || left.kind() != "identifier"
        || text(source, target) != text(source, left)
        || !matches!(
            op,
            "+" | "-" | "*" | "/" | "//" | "%" | "**" | "<<" | ">>" | "&" | "|" | "^" | "@"
        )
    {
        return;
    }
    out.texts.insert(equals.start_byte(), format!("{op}="));
    out.dropped.push(left.start_byte()..right.start_byte());
}
