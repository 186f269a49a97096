//! Structure an SPT adds that changes nothing: the canonical form reads the program as it was
//! before. Python only; each rule is the inverse of one SPT's rewrite, in the direction that
//! both the original and the rewrite reach.
//!
//! Docstrings stay, although `comment-edit` may turn one into comments (which the form
//! leaves out): on HumanEval, leaving them out too raised the 5 %-false-positive threshold
//! from 0.62 to 0.81 (programs of different problems look alike without them) and attack
//! success from 40 % to 95 %.
//!
//! - **no-op scaffolding** (`try-scaffold`): a `try:` whose every handler is a no-op
//!   (`except E: raise` without `as`, `else: pass`, `finally: pass`) reads as its body;
//! - **dead code** (`dead-code-insert`): `if`/`while` without `else` on a constant false test
//!   (`False`, `3 > 7`, `5 == 8`), `for x in ()`, and `a = 5` followed by `while a < 5:` are
//!   left out;
//! - **redundant parentheses** (`redundant-parens`, `bool-restructure`): parentheses around
//!   the whole value of a statement slot (return, assignment, condition, a lone call
//!   argument), nested ones, and those around an operand of `and`/`or`/`not` that binds more
//!   tightly anyway are left out, as is a double `not`;
//! - **operand order** (`operand-swap`): a comparison of two plain operands reads with `<`/`<=`
//!   rather than `>`/`>=`, and with a literal on the right of `==`, `!=`, `is`; commutative
//!   arithmetic with a number reads with the number on the right;
//! - **callable objects** (`callable-object`): `class C: def __call__(self, /, …)` followed by
//!   `f = C()` reads as `def f(…)`;
//! - **state machines** (`state-machine`): `s = K` followed by `while s:` dispatching on
//!   `s == K` to pieces that each end by naming the next reads as the pieces in the order they
//!   run;
//! - **negated conditions** (`if-else-flip`): `if not c: B else: A` reads as `if c: A else:
//!   B`, and an `else: pass` goes;
//! - **hoisted constants and aliases** (`constant-hoist`, `call-indirection`): a
//!   module-level `NAME = literal` or `NAME = builtin` that nothing else binds reads as the
//!   literal or the builtin wherever the name is read;
//! - **docstrings as comments** (`comment-edit`): a docstring reads by its lines, trimmed and
//!   without blank ones; a function or class without one whose body starts with two or more
//!   comment lines reads them as its docstring, which is how `comment-edit` writes a
//!   docstring it removes;
//! - **inner functions** (`nested-function`): `def g():` (no parameters) called once on the
//!   spot (`return g()` or `g()`) reads as its body, one level up, without its `nonlocal`s;
//! - **packed state** (`state-pack`): `state = [None, None]` (or `{}`) made first thing in a
//!   function, whose constant slots `state[1]` stand for variables, reads as those variables.

use super::literals::{integer_value, python_string, quote};
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::Node;

/// How the canonical form reads a Python program's structure.
#[derive(Debug, Default)]
pub(super) struct Structure {
    /// Tokens starting in these ranges are left out.
    pub dropped: Vec<Range<usize>>,
    /// Tokens starting in a range read this many columns to the left.
    pub shifts: Vec<(Range<usize>, usize)>,
    /// A token starting at the key reads as the name of the token starting at the value.
    pub aliases: HashMap<usize, usize>,
    /// Operands to exchange: the tokens of the first range and of the last trade places,
    /// and the operator between them reads as the text given (mirrored or the same).
    pub swaps: Vec<Swap>,
    /// Spans whose pieces read in another order (a state machine's pieces in the order
    /// they run).
    pub reorders: Vec<Reorder>,
    /// A container slot standing for a variable, by the start of its first token: the
    /// container (the start of the statement that made it) and the key.
    pub slots: HashMap<usize, (usize, i128)>,
    /// Module constants read as their literal: the start of the name where it is bound →
    /// the literal as written.
    pub constants: HashMap<usize, String>,
    /// The integer values of those constants, by name (a packed slot's key may be one).
    named_integers: HashMap<String, i128>,
    /// Docstrings by value (a literal token starting at the key reads as the value given):
    /// each line trimmed, blank lines left out, as `comment-edit` writes them as comments.
    pub docstrings: HashMap<usize, String>,
    /// Docstrings `comment-edit` turned into comments, read back: at the first comment's
    /// start and column, a docstring with their text.
    pub restored: Vec<(usize, usize, String)>,
}

/// A span whose tokens read piece by piece in the order given.
#[derive(Debug, Clone)]
pub(super) struct Reorder {
    /// The whole span.
    pub span: Range<usize>,
    /// Its pieces, in the order they read.
    pub pieces: Vec<Range<usize>>,
}

/// Two operands that trade places around their operator.
#[derive(Debug, Clone)]
pub(super) struct Swap {
    /// The left operand.
    pub left: Range<usize>,
    /// The operator (one or two tokens: `is not`).
    pub operator: Range<usize>,
    /// The operator's text once the operands are exchanged.
    pub mirrored: Option<&'static str>,
    /// The right operand.
    pub right: Range<usize>,
}

/// The structure of a Python tree the canonical form reads differently.
pub(super) fn python_structure(source: &str, root: Node<'_>) -> Structure {
    let mut out = Structure::default();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut cursor));
        match n.kind() {
            "try_statement" => scaffold(n, &mut out),
            "if_statement" | "while_statement" | "for_statement" => {
                dead_code(source, n, &mut out);
                flipped_if(n, &mut out);
            }
            "parenthesized_expression" => redundant_parens(source, n, &mut out),
            "not_operator" => double_not(n, &mut out),
            "comparison_operator" | "binary_operator" => operand_order(source, n, &mut out),
            "class_definition" => {
                callable_object(source, n, &mut out);
                docstring(source, n, &mut out);
            }
            "expression_statement" => state_machine(source, n, &mut out),
            "function_definition" => {
                docstring(source, n, &mut out);
                packed_state(source, n, &mut out);
                inner_function(source, n, &mut out);
            }
            "module" => hoisted_constants(source, n, &mut out),
            _ => {}
        }
    }
    out
}

/// The statements of a block, comments left out.
fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    block
        .named_children(&mut block.walk())
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The next statement after `n`, comments skipped.
fn next_statement(n: Node<'_>) -> Option<Node<'_>> {
    let mut at = n.next_named_sibling();
    while let Some(s) = at.filter(|s| s.kind() == "comment") {
        at = s.next_named_sibling();
    }
    at
}

/// The statement before `n`, comments skipped.
fn previous_statement(n: Node<'_>) -> Option<Node<'_>> {
    let mut at = n.prev_named_sibling();
    while let Some(s) = at.filter(|s| s.kind() == "comment") {
        at = s.prev_named_sibling();
    }
    at
}

/// A statement that is one plain assignment `target = value`: its target and value.
fn assignment(statement: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let a = statement
        .named_child(0)
        .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")?;
    Some((
        a.child_by_field_name("left")?,
        a.child_by_field_name("right")?,
    ))
}

fn range(n: Node<'_>) -> Range<usize> {
    n.start_byte()..n.end_byte()
}

fn text<'s>(source: &'s str, n: Node<'_>) -> &'s str {
    source.get(n.byte_range()).unwrap_or_default()
}

/// A `try` whose handlers are all no-ops reads as its body, one level up.
fn scaffold(n: Node<'_>, out: &mut Structure) {
    let Some(body) = n.child_by_field_name("body") else {
        return;
    };
    let handlers: Vec<Node<'_>> = n
        .named_children(&mut n.walk())
        .filter(|c| c.id() != body.id())
        .collect();
    if handlers.is_empty() || !handlers.iter().all(|h| is_no_op(*h)) {
        return;
    }
    let shift = body
        .start_position()
        .column
        .saturating_sub(n.start_position().column);
    if shift == 0 {
        // A body on the header's line: nothing to read one level up.
        return;
    }
    out.dropped.push(n.start_byte()..body.start_byte());
    out.dropped.extend(handlers.iter().map(|h| range(*h)));
    out.shifts.push((range(body), shift));
}

/// The only statement of a no-op `try` scaffold (which reads as its body), or `n`.
fn through_scaffold(n: Node<'_>) -> Node<'_> {
    let Some(body) = n
        .child_by_field_name("body")
        .filter(|_| n.kind() == "try_statement")
    else {
        return n;
    };
    let handlers: Vec<Node<'_>> = n
        .named_children(&mut n.walk())
        .filter(|c| c.id() != body.id())
        .collect();
    match statements(body).as_slice() {
        [only] if !handlers.is_empty() && handlers.iter().all(|h| is_no_op(*h)) => *only,
        _ => n,
    }
}

/// Whether a handler of a `try` can never change what happens.
fn is_no_op(h: Node<'_>) -> bool {
    let only = |kind: &str| {
        h.named_children(&mut h.walk())
            .find(|c| c.kind() == "block")
            .is_some_and(|b| {
                b.named_child_count() == 1
                    && b.named_child(0)
                        .is_some_and(|s| s.kind() == kind && s.named_child_count() == 0)
            })
    };
    match h.kind() {
        "finally_clause" | "else_clause" => only("pass_statement"),
        "except_clause" => {
            !h.named_children(&mut h.walk())
                .any(|c| c.kind() == "as_pattern")
                && only("raise_statement")
        }
        _ => false,
    }
}

/// A constant the tree spells out: an integer or a truth value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Constant {
    Int(i128),
    Bool(bool),
}

impl Constant {
    fn truthy(self) -> bool {
        match self {
            Constant::Int(v) => v != 0,
            Constant::Bool(b) => b,
        }
    }
}

/// The value of an expression of integer literals, `True`/`False`/`None`, `+ - *`, unary `-`,
/// parentheses and one comparison; `None` for anything else.
fn constant(source: &str, n: Node<'_>) -> Option<Constant> {
    let child = |field: &str| n.child_by_field_name(field);
    match n.kind() {
        "integer" => integer_value(text(source, n))
            .and_then(|v| i128::try_from(v).ok())
            .map(Constant::Int),
        "true" => Some(Constant::Bool(true)),
        "false" | "none" => Some(Constant::Bool(false)),
        "parenthesized_expression" => constant(source, n.named_child(0)?),
        "unary_operator" => match (
            text(source, child("operator")?),
            constant(source, child("argument")?)?,
        ) {
            ("-", Constant::Int(v)) => v.checked_neg().map(Constant::Int),
            ("+", Constant::Int(v)) => Some(Constant::Int(v)),
            _ => None,
        },
        "binary_operator" => {
            let (Constant::Int(a), Constant::Int(b)) = (
                constant(source, child("left")?)?,
                constant(source, child("right")?)?,
            ) else {
                return None;
            };
            match text(source, child("operator")?) {
                "+" => a.checked_add(b),
                "-" => a.checked_sub(b),
                "*" => a.checked_mul(b),
                _ => None,
            }
            .map(Constant::Int)
        }
        "comparison_operator" => {
            let operands: Vec<Node<'_>> = n.named_children(&mut n.walk()).collect();
            let [l, r] = operands.as_slice() else {
                return None;
            };
            let (Constant::Int(a), Constant::Int(b)) =
                (constant(source, *l)?, constant(source, *r)?)
            else {
                return None;
            };
            let op = source.get(l.end_byte()..r.start_byte())?.trim();
            Some(Constant::Bool(match op {
                "<" => a < b,
                ">" => a > b,
                "<=" => a <= b,
                ">=" => a >= b,
                "==" => a == b,
                "!=" => a != b,
                _ => return None,
            }))
        }
        _ => None,
    }
}

/// Whether the statement has an `else`/`elif` (then the test decides which branch runs).
fn has_alternative(n: Node<'_>) -> bool {
    n.named_children(&mut n.walk())
        .any(|c| matches!(c.kind(), "else_clause" | "elif_clause"))
}

/// A statement that can never run its body, and has nothing else to run, is left out; so is
/// `a = N` followed by `while a < N:` (a counter loop that runs zero times).
fn dead_code(source: &str, n: Node<'_>, out: &mut Structure) {
    if has_alternative(n) {
        return;
    }
    let never = match n.kind() {
        "for_statement" => n
            .child_by_field_name("right")
            .is_some_and(|r| matches!(r.kind(), "tuple" | "list") && r.named_child_count() == 0),
        _ => n
            .child_by_field_name("condition")
            .and_then(|c| constant(source, c))
            .is_some_and(|c| !c.truthy()),
    };
    if never {
        out.dropped.push(range(n));
        return;
    }
    if n.kind() != "while_statement" {
        return;
    }
    // `a = N` then `while a < N:`: the loop runs zero times; both go.
    let Some(test) = n.child_by_field_name("condition") else {
        return;
    };
    let operands: Vec<Node<'_>> = test.named_children(&mut test.walk()).collect();
    let ([name, bound], "comparison_operator") = (operands.as_slice(), test.kind()) else {
        return;
    };
    let op = source
        .get(name.end_byte()..bound.start_byte())
        .unwrap_or_default()
        .trim();
    let Some(previous) = previous_statement(n) else {
        return;
    };
    let (Some((target, value)), Some(Constant::Int(bound))) =
        (assignment(previous), constant(source, *bound))
    else {
        return;
    };
    let Some(Constant::Int(start)) = constant(source, value) else {
        return;
    };
    let zero_times = match op {
        "<" => start >= bound,
        "<=" => start > bound,
        _ => false,
    };
    if zero_times && name.kind() == "identifier" && text(source, target) == text(source, *name) {
        out.dropped.push(previous.start_byte()..n.end_byte());
    }
}

/// Parentheses that only repeat what the slot or the precedence already says.
fn redundant_parens(source: &str, n: Node<'_>, out: &mut Structure) {
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
fn double_not(n: Node<'_>, out: &mut Structure) {
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

/// Whether a node is a plain operand: a name or a literal (without interpolation).
fn plain(source: &str, n: Node<'_>) -> Option<Plain> {
    match n.kind() {
        "identifier" => Some(Plain::Name),
        "integer" | "float" | "true" | "false" | "none" => Some(Plain::Literal),
        "string" => {
            let t = text(source, n);
            let prefix = &t[..t.find(['"', '\'']).unwrap_or(0)];
            (!prefix.contains(['f', 'F'])).then_some(Plain::Literal)
        }
        "unary_operator" => n
            .child_by_field_name("argument")
            .filter(|a| matches!(a.kind(), "integer" | "float"))
            .map(|_| Plain::Literal),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Plain {
    Name,
    Literal,
}

/// Operands in one order: `a < b` for `b > a`, `x == 0` for `0 == x`, `n * 2` for `2 * n`.
fn operand_order(source: &str, n: Node<'_>, out: &mut Structure) {
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

/// `class C:` holding only `def __call__(self, /, …)`, followed by `f = C()`, reads as
/// `def f(…)`.
fn callable_object(source: &str, class: Node<'_>, out: &mut Structure) {
    let (Some(name), Some(body)) = (
        class.child_by_field_name("name"),
        class.child_by_field_name("body"),
    ) else {
        return;
    };
    let members = statements(body);
    let [method] = members.as_slice() else {
        return;
    };
    if class.child_by_field_name("superclasses").is_some() || method.kind() != "function_definition"
    {
        return;
    }
    let method = *method;
    let (Some(call), Some(parameters)) = (
        method.child_by_field_name("name"),
        method.child_by_field_name("parameters"),
    ) else {
        return;
    };
    if text(source, call) != "__call__" {
        return;
    }
    // The next statement binds the function's name to the only instance: `f = C()`.
    let Some(binding) = next_statement(class).map(through_scaffold) else {
        return;
    };
    let Some((target, value)) = assignment(binding) else {
        return;
    };
    let instance = value.kind() == "call"
        && value
            .child_by_field_name("function")
            .is_some_and(|f| text(source, f) == text(source, name))
        && value
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
    if target.kind() != "identifier" || !instance {
        return;
    }
    // `self` and the `/` after it (when it directly follows) go, with their commas.
    let params: Vec<Node<'_>> = parameters.named_children(&mut parameters.walk()).collect();
    let Some(this) = params.first().filter(|p| p.kind() == "identifier") else {
        return;
    };
    let mut end = match params.get(1) {
        Some(p) if p.kind() == "positional_separator" => match params.get(2) {
            Some(next) => next.start_byte(),
            None => p.end_byte(),
        },
        Some(next) => next.start_byte(),
        None => this.end_byte(),
    };
    end = end.max(this.end_byte());
    out.dropped.push(this.start_byte()..end);
    out.dropped.push(class.start_byte()..method.start_byte());
    out.dropped.push(range(binding));
    let shift = method
        .start_position()
        .column
        .saturating_sub(class.start_position().column);
    out.shifts.push((range(method), shift));
    out.aliases.insert(call.start_byte(), target.start_byte());
}

/// `s = K0` then `while s:` over `if s == K: … s = NEXT` / `elif s == K: …` reads as the
/// pieces in the order the states chain them, one level up.
fn state_machine(source: &str, init: Node<'_>, out: &mut Structure) {
    let Some((state, first)) = assigned_constant(source, init) else {
        return;
    };
    let Some(machine) =
        next_statement(init).filter(|w| w.kind() == "while_statement" && !has_alternative(*w))
    else {
        return;
    };
    let tests_state = machine
        .child_by_field_name("condition")
        .is_some_and(|c| text(source, c) == state);
    let Some(dispatch) = machine
        .child_by_field_name("body")
        .map(statements)
        .and_then(|s| match s.as_slice() {
            [only] => Some(*only),
            _ => None,
        })
        .filter(|d| d.kind() == "if_statement")
    else {
        return;
    };
    if !tests_state {
        return;
    }
    // Each branch: its state, its block, the block's last statement (`s = NEXT`) and NEXT.
    let mut branches: Vec<(i128, Node<'_>, Node<'_>, i128)> = Vec::new();
    let mut arms = vec![dispatch];
    arms.extend(
        dispatch
            .named_children(&mut dispatch.walk())
            .filter(|c| matches!(c.kind(), "elif_clause" | "else_clause")),
    );
    for arm in arms {
        if arm.kind() == "else_clause" {
            return;
        }
        let Some(key) = arm
            .child_by_field_name("condition")
            .and_then(|c| state_test(source, c, state))
        else {
            return;
        };
        let Some(block) = arm.child_by_field_name("consequence").or_else(|| {
            arm.named_children(&mut arm.walk())
                .find(|c| c.kind() == "block")
        }) else {
            return;
        };
        let Some(last) = statements(block).last().copied() else {
            return;
        };
        let Some((name, next)) = assigned_constant(source, last) else {
            return;
        };
        if name != state {
            return;
        }
        branches.push((key, block, last, next));
    }
    // Follow the chain from the first state to 0, each piece once.
    let mut order = Vec::with_capacity(branches.len());
    let mut at = first;
    while at != 0 {
        let Some(&(_, block, _, next)) = branches.iter().find(|b| b.0 == at) else {
            return;
        };
        if order.len() == branches.len() {
            return;
        }
        order.push(block);
        at = next;
    }
    if order.len() != branches.len() {
        return;
    }
    out.dropped.push(range(init));
    out.dropped
        .push(machine.start_byte()..dispatch.start_byte());
    for (_, block, last, _) in &branches {
        out.dropped.push(range(*last));
        // The arm's header (`if s == K:` / `elif s == K:`) up to its block.
        if let Some(arm) = block.parent() {
            out.dropped.push(arm.start_byte()..block.start_byte());
        }
        let shift = block
            .start_position()
            .column
            .saturating_sub(init.start_position().column);
        out.shifts.push((range(*block), shift));
    }
    out.reorders.push(Reorder {
        span: range(machine),
        pieces: order.iter().map(|b| range(*b)).collect(),
    });
}

/// `target = INT` as a statement: the target as written (a name, or a slot such as `mem[0]`
/// when `state-pack` keeps the state in a list) and the value.
fn assigned_constant<'s>(source: &'s str, statement: Node<'_>) -> Option<(&'s str, i128)> {
    let (target, value) = assignment(statement)?;
    if !matches!(target.kind(), "identifier" | "subscript" | "attribute") {
        return None;
    }
    match constant(source, value)? {
        Constant::Int(v) => Some((text(source, target), v)),
        Constant::Bool(_) => None,
    }
}

/// `state == K`: K.
fn state_test(source: &str, test: Node<'_>, state: &str) -> Option<i128> {
    let operands: Vec<Node<'_>> = test.named_children(&mut test.walk()).collect();
    let [name, key] = operands.as_slice() else {
        return None;
    };
    let op = source.get(name.end_byte()..key.start_byte())?.trim();
    if test.kind() != "comparison_operator" || op != "==" || text(source, *name) != state {
        return None;
    }
    match constant(source, *key)? {
        Constant::Int(v) => Some(v),
        Constant::Bool(_) => None,
    }
}

/// A function whose locals `state-pack` moved into slots of containers made first thing
/// (`s = [None, None]` or `s = {}` among its top-level statements, a slot itself possibly a
/// container, and every other mention of a container a constant slot): each `s[k]` reads as
/// a variable of its own, and the containers' creation goes.
fn packed_state(source: &str, function: Node<'_>, out: &mut Structure) {
    let Some(body) = function.child_by_field_name("body") else {
        return;
    };
    // Container (as written) → the statement that made it.
    let mut containers: HashMap<&str, Node<'_>> = HashMap::new();
    for statement in statements(body) {
        let Some((target, value)) = assignment(statement) else {
            continue;
        };
        let empty = match value.kind() {
            "dictionary" => value.named_child_count() == 0,
            "list" => {
                value.named_child_count() > 0
                    && value
                        .named_children(&mut value.walk())
                        .all(|e| e.kind() == "none")
            }
            _ => false,
        };
        let known = target.kind() == "identifier"
            || (target.kind() == "subscript"
                && slot(source, target, &containers, &out.named_integers).is_some());
        if empty && known && !containers.contains_key(text(source, target)) {
            containers.insert(text(source, target), statement);
        }
    }
    let mut nodes = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        nodes.push(n);
    }
    // A container mentioned other than by its creation or a constant slot is data: it goes,
    // and so do the containers made in its slots.
    loop {
        let data: Vec<&str> = containers
            .iter()
            .filter(|(name, made)| {
                nodes.iter().any(|n| {
                    matches!(n.kind(), "identifier" | "subscript")
                        && text(source, *n) == **name
                        && !is_target_of(*n, **made)
                        && !n.parent().is_some_and(|p| {
                            p.kind() == "subscript"
                                && p.child_by_field_name("value")
                                    .is_some_and(|v| v.id() == n.id())
                                && slot(source, p, &containers, &out.named_integers).is_some()
                        })
                })
            })
            .map(|(name, _)| *name)
            .collect();
        if data.is_empty() {
            break;
        }
        for name in data {
            containers.remove(name);
        }
        let known: Vec<&str> = containers.keys().copied().collect();
        containers.retain(|_, made| {
            assignment(*made).is_some_and(|(t, _)| {
                t.kind() == "identifier"
                    || t.child_by_field_name("value")
                        .is_some_and(|v| known.contains(&text(source, v)))
            })
        });
    }
    if containers.is_empty() {
        return;
    }
    out.dropped
        .extend(containers.values().map(|made| range(*made)));
    for n in nodes.into_iter().filter(|n| n.kind() == "subscript") {
        let Some(key) = slot(source, n, &containers, &out.named_integers) else {
            continue;
        };
        // A slot that is itself a container is read through its own slots.
        let outer = n.parent().filter(|p| {
            p.kind() == "subscript"
                && p.child_by_field_name("value")
                    .is_some_and(|v| v.id() == n.id())
                && slot(source, *p, &containers, &out.named_integers).is_some()
        });
        if outer.is_some() {
            continue;
        }
        // The chain's root name keeps its token; the brackets and keys go.
        let mut root = n;
        while let Some(v) = root.child_by_field_name("value") {
            root = v;
        }
        out.dropped.push(root.end_byte()..n.end_byte());
        out.slots.insert(root.start_byte(), key);
    }
}

/// Whether `n` is the target of the assignment statement `made`.
fn is_target_of(n: Node<'_>, made: Node<'_>) -> bool {
    assignment(made).is_some_and(|(t, _)| t.id() == n.id())
}

/// `c[k]` where `c` is a known container and `k` an integer: the container and the key.
fn slot(
    source: &str,
    n: Node<'_>,
    containers: &HashMap<&str, Node<'_>>,
    integers: &HashMap<String, i128>,
) -> Option<(usize, i128)> {
    let value = n.child_by_field_name("value")?;
    let container = containers.get(text(source, value))?.start_byte();
    let index = n.child_by_field_name("subscript")?;
    // A key hoisted into a module constant (`s[BOUND]`) is that constant's value.
    if let Some(&k) = integers.get(text(source, index)) {
        return Some((container, k));
    }
    match constant(source, index)? {
        Constant::Int(k) => Some((container, k)),
        Constant::Bool(_) => None,
    }
}

/// `if not c: B else: A` reads as `if c: A else: B` (what `if-else-flip` makes of `if c: A
/// else: B`); `if not c: pass else: A` as `if c: A`; `else: pass` goes.
fn flipped_if(n: Node<'_>, out: &mut Structure) {
    if n.kind() != "if_statement" {
        return;
    }
    let arms: Vec<Node<'_>> = n
        .named_children(&mut n.walk())
        .filter(|c| matches!(c.kind(), "elif_clause" | "else_clause"))
        .collect();
    let [alternative] = arms.as_slice() else {
        return;
    };
    if alternative.kind() != "else_clause" {
        return;
    }
    let alternative = *alternative;
    if is_no_op(alternative) {
        out.dropped.push(range(alternative));
        return;
    }
    let (Some(test), Some(then), Some(otherwise)) = (
        n.child_by_field_name("condition"),
        n.child_by_field_name("consequence"),
        alternative.child_by_field_name("body").or_else(|| {
            alternative
                .named_children(&mut alternative.walk())
                .find(|c| c.kind() == "block")
        }),
    ) else {
        return;
    };
    let Some(positive) = test
        .child_by_field_name("argument")
        .filter(|_| test.kind() == "not_operator")
    else {
        return;
    };
    // The `not`, and the parentheses it needed.
    match positive
        .named_child(0)
        .filter(|_| positive.kind() == "parenthesized_expression")
    {
        Some(inner) => {
            out.dropped.push(test.start_byte()..inner.start_byte());
            out.dropped.push(inner.end_byte()..positive.end_byte());
        }
        None => out.dropped.push(test.start_byte()..positive.start_byte()),
    }
    let header = n.start_byte()..then.start_byte();
    let pass_only = statements(then).len() == 1
        && statements(then)
            .first()
            .is_some_and(|s| s.kind() == "pass_statement");
    let pieces = if pass_only {
        out.dropped.push(then.start_byte()..otherwise.start_byte());
        vec![header, range(otherwise)]
    } else {
        vec![
            header,
            range(otherwise),
            alternative.start_byte()..otherwise.start_byte(),
            range(then),
        ]
    };
    out.reorders.push(Reorder {
        span: range(n),
        pieces,
    });
}

/// Module-level `NAME = literal` (or `NAME = builtin`) statements whose name nothing else
/// binds: the statement goes and the name reads as the value (what `constant-hoist` and
/// `call-indirection` undo).
fn hoisted_constants(source: &str, module: Node<'_>, out: &mut Structure) {
    let mut bindings: HashMap<&str, usize> = HashMap::new();
    let mut stack = vec![module];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        if n.kind() == "identifier" && binds(n) {
            *bindings.entry(text(source, n)).or_default() += 1;
        }
    }
    for statement in statements(module) {
        let Some((target, value)) = assignment(statement) else {
            continue;
        };
        let literal = match value.kind() {
            "integer" | "float" => true,
            "string" => plain(source, value).is_some(),
            // An alias of a name the program never binds: a builtin.
            "identifier" => !bindings.contains_key(text(source, value)),
            _ => false,
        };
        if target.kind() == "identifier"
            && literal
            && bindings.get(text(source, target)) == Some(&1)
        {
            out.dropped.push(range(statement));
            out.constants
                .insert(target.start_byte(), text(source, value).to_string());
            if let Some(Constant::Int(v)) = constant(source, value) {
                out.named_integers
                    .insert(text(source, target).to_string(), v);
            }
        }
    }
}

/// Whether an identifier is bound where it stands (assigned, a loop or `with` target, a
/// parameter, a definition's name, imported, declared `global`/`nonlocal`).
fn binds(n: Node<'_>) -> bool {
    let mut child = n;
    let mut parent = n.parent();
    // Up through unpacking patterns to the statement or clause that binds.
    while let Some(p) = parent.filter(|p| {
        matches!(
            p.kind(),
            "pattern_list" | "tuple_pattern" | "list_pattern" | "list_splat_pattern"
        )
    }) {
        child = p;
        parent = p.parent();
    }
    let Some(p) = parent else {
        return false;
    };
    let is = |field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|f| f.id() == child.id())
    };
    match p.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => is("left"),
        "named_expression" | "function_definition" | "class_definition" => is("name"),
        "default_parameter" | "typed_default_parameter" => is("name"),
        "parameters"
        | "lambda_parameters"
        | "typed_parameter"
        | "global_statement"
        | "nonlocal_statement"
        | "as_pattern_target"
        | "aliased_import"
        | "dotted_name"
        | "list_splat_pattern"
        | "dictionary_splat_pattern"
        | "keyword_pattern" => true,
        _ => false,
    }
}

/// `def g():` without parameters, decorators or other mentions, called once right after it
/// (`return g()` or `g()`), reads as its body one level up, without its `nonlocal`
/// declarations (what `nested-function` undoes).
fn inner_function(source: &str, def: Node<'_>, out: &mut Structure) {
    let (Some(name), Some(parameters), Some(body)) = (
        def.child_by_field_name("name"),
        def.child_by_field_name("parameters"),
        def.child_by_field_name("body"),
    ) else {
        return;
    };
    let inside_function = def
        .parent()
        .and_then(|b| b.parent())
        .is_some_and(|f| f.kind() == "function_definition");
    if parameters.named_child_count() != 0 || !inside_function {
        return;
    }
    let Some(call) = next_statement(def) else {
        return;
    };
    let called = match call.kind() {
        "return_statement" | "expression_statement" => call.named_child(0),
        _ => None,
    };
    let once = called.is_some_and(|c| {
        c.kind() == "call"
            && c.child_by_field_name("function")
                .is_some_and(|f| f.kind() == "identifier" && text(source, f) == text(source, name))
            && c.child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0)
    });
    // No other mention of the name in the enclosing function.
    let Some(scope) = def.parent() else {
        return;
    };
    let mentions = {
        let mut count = 0;
        let mut stack = vec![scope];
        while let Some(n) = stack.pop() {
            stack.extend(n.named_children(&mut n.walk()));
            if n.kind() == "identifier" && text(source, n) == text(source, name) {
                count += 1;
            }
        }
        count
    };
    if !once || mentions != 2 {
        return;
    }
    out.dropped.push(def.start_byte()..body.start_byte());
    out.dropped.extend(
        statements(body)
            .into_iter()
            .filter(|s| s.kind() == "nonlocal_statement")
            .map(range),
    );
    out.dropped.push(range(call));
    let shift = body
        .start_position()
        .column
        .saturating_sub(def.start_position().column);
    out.shifts.push((range(body), shift));
}

/// A function's or class's docstring, by its trimmed non-blank lines; or, where there is
/// none, the comments its body starts with, read as one.
fn docstring(source: &str, n: Node<'_>, out: &mut Structure) {
    let (Some(body), Some(header_end)) = (
        n.child_by_field_name("body"),
        n.child_by_field_name("parameters")
            .or_else(|| n.child_by_field_name("name"))
            .map(|p| p.end_byte()),
    ) else {
        return;
    };
    let first = statements(body).first().copied();
    let string = first
        .filter(|s| s.kind() == "expression_statement")
        .and_then(|s| s.named_child(0))
        .filter(|s| s.kind() == "string");
    let by_lines = |text: &str| -> String {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Some(string) = string {
        if let Some(value) = python_string(text(source, string)).filter(|v| !v.formatted) {
            out.docstrings.insert(
                string.start_byte(),
                quote(value.bytes, &by_lines(&value.value)),
            );
        }
        return;
    }
    // Comments between the header and the first statement (tree-sitter puts them in the
    // definition or in its block).
    let before = first.map_or(body.end_byte(), |f| f.start_byte());
    let mut comments: Vec<Node<'_>> = n
        .named_children(&mut n.walk())
        .chain(body.named_children(&mut body.walk()))
        .filter(|c| c.kind() == "comment" && c.start_byte() > header_end && c.start_byte() < before)
        .collect();
    comments.sort_by_key(|c| c.start_byte());
    let Some(head) = comments.first() else {
        return;
    };
    let lines: Vec<&str> = comments
        .iter()
        .map(|c| text(source, *c).trim_start_matches('#').trim())
        .filter(|l| !l.is_empty())
        .collect();
    // One comment line is more often a remark (`comment-edit` inserts single ones) than a
    // docstring; reading it as one would make a remark look like documentation.
    if lines.len() >= 2 {
        let text_of = lines.join("\n");
        out.restored.push((
            head.start_byte(),
            head.start_position().column,
            quote(false, &text_of),
        ));
    }
}
