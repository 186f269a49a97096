//! Control structure that changes nothing: no-op `try` scaffolds, dead code, negated
//! conditions, state machines and inner functions called on the spot.

use super::*;
use std::collections::HashSet;

/// A `try` whose handlers are all no-ops reads as its body, one level up.
pub(super) fn scaffold(n: Node<'_>, out: &mut Structure) {
    let Some((body, handlers)) = no_op_try(n) else {
        return;
    };
    if column_shift(body, n) == 0 {
        // A body on the header's line: nothing to read one level up.
        return;
    }
    out.dropped.push(n.start_byte()..body.start_byte());
    out.dropped.extend(handlers.iter().map(|h| range(*h)));
    out.read_at(body, n);
}

/// The only statement of a no-op `try` scaffold (which reads as its body), or `n`.
pub(super) fn through_scaffold(n: Node<'_>) -> Node<'_> {
    match no_op_try(n).map(|(body, _)| statements(body)).as_deref() {
        Some([only]) => *only,
        _ => n,
    }
}

/// A `try` statement whose handlers (at least one) are all no-ops: its body and handlers.
fn no_op_try(n: Node<'_>) -> Option<(Node<'_>, Vec<Node<'_>>)> {
    let body = n
        .child_by_field_name("body")
        .filter(|_| n.kind() == "try_statement")?;
    // A comment between the header and the body is the statement's child too: not a handler.
    let handlers: Vec<Node<'_>> = n
        .named_children(&mut n.walk())
        .filter(|c| c.id() != body.id() && c.kind() != "comment")
        .collect();
    (!handlers.is_empty() && handlers.iter().all(|h| is_no_op(*h))).then_some((body, handlers))
}

/// Whether a handler of a `try` can never change what happens.
pub(super) fn is_no_op(h: Node<'_>) -> bool {
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

/// A statement that can never run its body, and has nothing else to run, is left out; so is
/// `a = N` followed by `while a < N:` (a counter loop that runs zero times).
pub(super) fn dead_code(source: &str, n: Node<'_>, out: &mut Structure) {
    if has_alternative(n) {
        return;
    }
    let never = match n.kind() {
        "for_statement" => n
            .child_by_field_name("right")
            .is_some_and(|r| matches!(r.kind(), "tuple" | "list") && r.named_child_count() == 0),
        _ => n
            .child_by_field_name("condition")
            .and_then(|c| constant_in(source, c, &out.named_integers))
            .is_some_and(|c| !c.truthy()),
    };
    // A block cannot be empty: dead code that is all of its block stays (a form that does
    // not parse is read no further).
    let rest_of_block = |gone: usize| {
        n.parent()
            .filter(|b| b.kind() == "block")
            .is_none_or(|b| statements(b).len() > gone)
    };
    if never {
        if rest_of_block(1) {
            out.dropped.push(range(n));
        }
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
    let (Some((target, value)), Some(Constant::Int(bound))) = (
        assignment(previous),
        constant_in(source, *bound, &out.named_integers),
    ) else {
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
    if zero_times
        && name.kind() == "identifier"
        && text(source, target) == text(source, *name)
        && rest_of_block(2)
    {
        out.dropped.push(previous.start_byte()..n.end_byte());
    }
}

/// `s = K0` then `while s:` over `if s == K: … s = NEXT` / `elif s == K: …` (or `match s:`
/// over `case K: … s = NEXT`, what `elif-match` makes of the chain) reads as the pieces in the
/// order the states chain them, one level up. Parentheses around the state read as they were.
pub(super) fn state_machine(source: &str, init: Node<'_>, out: &mut Structure) {
    let named = out.named_integers.clone();
    let Some((state, first)) = assigned_constant(source, init, &named) else {
        return;
    };
    let Some(machine) =
        next_statement(init).filter(|w| w.kind() == "while_statement" && !has_alternative(*w))
    else {
        return;
    };
    let tests_state = machine
        .child_by_field_name("condition")
        .is_some_and(|c| text(source, within_parentheses(c)) == state);
    // The dispatch, after the temporaries its tests may be held in (`temp-var`).
    let mut temps: HashMap<&str, Node<'_>> = HashMap::new();
    let mut used: HashSet<&str> = HashSet::new();
    let Some(dispatch) = machine
        .child_by_field_name("body")
        .and_then(|b| after_temporaries(source, b, &mut temps))
        .filter(|d| matches!(d.kind(), "if_statement" | "match_statement"))
    else {
        return;
    };
    if !tests_state {
        return;
    }
    // `else:` and what follows it up to a nested `if`, left out once the machine reads.
    let mut else_headers: Vec<Range<usize>> = Vec::new();
    // Each branch: its state, its block, the block's transition (its first and last
    // statement: `s = NEXT`, or `t = NEXT` and `s = t`) and NEXT.
    type Transition<'t> = (Node<'t>, Node<'t>);
    let mut branches: Vec<(i128, Node<'_>, Transition<'_>, i128)> = Vec::new();
    let arms: Vec<Node<'_>> = if dispatch.kind() == "match_statement" {
        let subject = dispatch
            .child_by_field_name("subject")
            .map(|s| text(source, within_parentheses(s)));
        if subject != Some(state) {
            return;
        }
        dispatch
            .child_by_field_name("body")
            .map(|b| {
                b.named_children(&mut b.walk())
                    .filter(|c| c.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default()
    } else {
        // An `else` holding only another test's `if` (with its temporaries) goes on the
        // chain: `if-else-flip` and `temp-var` leave `else: t = s == K; if t: …`.
        let mut arms = Vec::new();
        let mut at = dispatch;
        loop {
            arms.push(at);
            let mut next = None;
            for c in at.named_children(&mut at.walk()) {
                match c.kind() {
                    "elif_clause" => arms.push(c),
                    "else_clause" => {
                        let nested = clause_block(c)
                            .and_then(|b| after_temporaries(source, b, &mut temps))
                            .filter(|i| i.kind() == "if_statement");
                        match nested {
                            Some(i) => {
                                else_headers.push(c.start_byte()..i.start_byte());
                                next = Some(i);
                            }
                            None => arms.push(c),
                        }
                    }
                    _ => {}
                }
            }
            match next {
                Some(i) => at = i,
                None => break,
            }
        }
        arms
    };
    // Where the pieces start: the `while` header, and a `match` header, go.
    let Some(first_arm) = arms.first().copied() else {
        return;
    };
    for arm in arms {
        let key = match arm.kind() {
            "case_clause" => case_key(source, arm, &named),
            "else_clause" => None,
            _ => arm
                .child_by_field_name("condition")
                .map(|c| held_in(source, c, &temps, &mut used))
                .and_then(|c| state_test(source, c, state, &named)),
        };
        let Some(key) = key else {
            return;
        };
        let Some(block) = clause_block(arm) else {
            return;
        };
        let pieces = statements(block);
        let Some(last) = pieces.last().copied() else {
            return;
        };
        // `s = NEXT`, or `t = NEXT` then `s = t` (`temp-var` on the transition): both go.
        let (name, next, from) = match assigned_constant(source, last, &named) {
            Some((name, next)) => (name, next, last),
            None => {
                let Some((held, (name, next))) = pieces
                    .len()
                    .checked_sub(2)
                    .and_then(|i| pieces.get(i))
                    .and_then(|t| Some((*t, assigned_constant(source, *t, &named)?)))
                else {
                    return;
                };
                let copies = assignment(last).is_some_and(|(target, value)| {
                    let value = within_parentheses(value);
                    value.kind() == "identifier"
                        && text(source, value) == name
                        && text(source, target) == state
                });
                if !copies {
                    return;
                }
                (state, next, held)
            }
        };
        if name != state {
            return;
        }
        branches.push((key, block, (from, last), next));
    }
    // A temporary no test reads is code of its own, not a test's.
    if temps.keys().any(|t| !used.contains(t)) {
        return;
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
    out.dropped.extend(else_headers);
    let headers_end = if dispatch.kind() == "match_statement" {
        first_arm.start_byte()
    } else {
        dispatch.start_byte()
    };
    out.dropped.push(machine.start_byte()..headers_end);
    for (_, block, (from, last), _) in &branches {
        out.dropped.push(from.start_byte()..last.end_byte());
        // The arm's header (`if s == K:` / `elif s == K:`) up to its block.
        if let Some(arm) = block.parent() {
            out.dropped.push(arm.start_byte()..block.start_byte());
        }
        // At the loop's column: it starts its line, where the state's first value may
        // follow another statement and a `;`.
        out.read_at(*block, machine);
    }
    out.reorders.push(Reorder {
        span: range(machine),
        pieces: order.iter().map(|b| range(*b)).collect(),
    });
}

/// The block of an `if`/`elif`/`else`/`case` clause (its `consequence` or `body`, or the
/// block it holds).
fn clause_block(clause: Node<'_>) -> Option<Node<'_>> {
    clause
        .child_by_field_name("consequence")
        .or_else(|| clause.child_by_field_name("body"))
        .or_else(|| {
            clause
                .named_children(&mut clause.walk())
                .find(|c| c.kind() == "block")
        })
}

/// The last statement of `block` when every one before it binds a plain name (`t = e`), each
/// then recorded in `temps`; `None` (and nothing recorded) when another statement comes first.
fn after_temporaries<'t>(
    source: &'t str,
    block: Node<'t>,
    temps: &mut HashMap<&'t str, Node<'t>>,
) -> Option<Node<'t>> {
    let statements = statements(block);
    let (last, before) = statements.split_last()?;
    let held: Vec<(&str, Node<'_>)> = before
        .iter()
        .map(|s| {
            let (target, value) = assignment(*s).filter(|(t, _)| t.kind() == "identifier")?;
            Some((text(source, target), value))
        })
        .collect::<Option<_>>()?;
    temps.extend(held);
    Some(*last)
}

/// What the test `c` holds: through parentheses and the temporaries (and their copies) it
/// names.
fn held_in<'t>(
    source: &'t str,
    c: Node<'t>,
    temps: &HashMap<&'t str, Node<'t>>,
    used: &mut HashSet<&'t str>,
) -> Node<'t> {
    let mut at = within_parentheses(c);
    for _ in 0..=temps.len() {
        let name = text(source, at);
        match temps.get(name).filter(|_| at.kind() == "identifier") {
            Some(value) => {
                used.insert(name);
                at = within_parentheses(*value);
            }
            None => break,
        }
    }
    at
}

/// `target = INT` as a statement: the target as written (a name, or a slot such as `mem[0]`
/// when `state-pack` keeps the state in a list) and the value.
fn assigned_constant<'s>(
    source: &'s str,
    statement: Node<'_>,
    named: &HashMap<String, i128>,
) -> Option<(&'s str, i128)> {
    let (target, value) = assignment(statement)?;
    if !matches!(target.kind(), "identifier" | "subscript" | "attribute") {
        return None;
    }
    match constant_in(source, value, named)? {
        Constant::Int(v) => Some((text(source, target), v)),
        Constant::Bool(_) => None,
    }
}

/// `case K:` (one integer literal, no guard): K. A bare name there is a capture pattern that
/// matches anything, not a test of a constant's value.
fn case_key(source: &str, case: Node<'_>, named: &HashMap<String, i128>) -> Option<i128> {
    if case.child_by_field_name("guard").is_some() {
        return None;
    }
    let patterns: Vec<Node<'_>> = case
        .named_children(&mut case.walk())
        .filter(|c| c.kind() == "case_pattern")
        .collect();
    let [pattern] = patterns.as_slice() else {
        return None;
    };
    let value = pattern
        .named_child(0)
        .filter(|v| pattern.named_child_count() == 1 && v.kind() == "integer")?;
    match constant_in(source, value, named)? {
        Constant::Int(v) => Some(v),
        Constant::Bool(_) => None,
    }
}

/// `state == K`: K.
fn state_test(
    source: &str,
    test: Node<'_>,
    state: &str,
    named: &HashMap<String, i128>,
) -> Option<i128> {
    let test = within_parentheses(test);
    let operands: Vec<Node<'_>> = test.named_children(&mut test.walk()).collect();
    let [name, key] = operands.as_slice() else {
        return None;
    };
    let op = source.get(name.end_byte()..key.start_byte())?.trim();
    if test.kind() != "comparison_operator" || op != "==" || text(source, *name) != state {
        return None;
    }
    match constant_in(source, *key, named)? {
        Constant::Int(v) => Some(v),
        Constant::Bool(_) => None,
    }
}

/// `if not c: B else: A` reads as `if c: A else: B` (what `if-else-flip` makes of `if c: A
/// else: B`); `if not c: pass else: A` as `if c: A`; `else: pass` goes.
pub(super) fn flipped_if(n: Node<'_>, out: &mut Structure) {
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
        clause_block(alternative),
    ) else {
        return;
    };
    let header = n.start_byte()..then.start_byte();
    let pass_only = statements(then).len() == 1
        && statements(then)
            .first()
            .is_some_and(|s| s.kind() == "pass_statement");
    let Some(positive) = test
        .child_by_field_name("argument")
        .filter(|_| test.kind() == "not_operator")
    else {
        // `if c: pass` `else: B` (what `if-else-flip` makes of `if not c: B`) reads as
        // `if not c: B`, where `not c` needs no parentheses.
        let loose = matches!(
            test.kind(),
            "boolean_operator" | "conditional_expression" | "lambda" | "named_expression"
        );
        if pass_only && !loose {
            out.texts.insert(n.start_byte(), "if not".to_string());
            out.dropped.push(then.start_byte()..otherwise.start_byte());
            out.reorders.push(Reorder {
                span: range(n),
                pieces: vec![header, range(otherwise)],
            });
        }
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

/// `def g():` without parameters, decorators or other mentions, called once right after it
/// (`return g()` or `g()`), reads as its body one level up, without its `nonlocal`
/// declarations (what `nested-function` undoes).
pub(super) fn inner_function(source: &str, def: Node<'_>, out: &mut Structure) {
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
    let once = called
        .is_some_and(|c| is_call_of(source, c, text(source, name)) && arguments_of(c).is_empty());
    // No other mention of the name in the enclosing function.
    let Some(scope) = def.parent() else {
        return;
    };
    let mentions = identifier_count(source, scope, text(source, name));
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
    out.read_at(body, def);
}

/// Whether `def` is a layer that re-yields its one argument (what `generator-chain` adds):
/// `def r(s): for i in s: yield i`, or the same counting what it yields (`c = 0` first,
/// `c += 1` before the `yield`). Its name, if so.
pub(super) fn relay_generator<'s>(source: &'s str, def: Node<'_>) -> Option<&'s str> {
    let name = def.child_by_field_name("name")?;
    let parameters = def.child_by_field_name("parameters")?;
    let body = def.child_by_field_name("body")?;
    let parameter = parameters
        .named_child(0)
        .filter(|p| parameters.named_child_count() == 1 && p.kind() == "identifier")?;
    let steps = statements(body);
    let (counter, for_loop) = match steps.as_slice() {
        [l] => (None, *l),
        [init, l] => {
            let (target, value) = assignment(*init)?;
            (value.kind() == "integer").then_some(())?;
            (Some(text(source, target)), *l)
        }
        _ => return None,
    };
    let item = for_loop.child_by_field_name("left")?;
    let iterated = for_loop.child_by_field_name("right")?;
    let loop_body = for_loop.child_by_field_name("body")?;
    if for_loop.kind() != "for_statement"
        || for_loop.child_by_field_name("alternative").is_some()
        || item.kind() != "identifier"
        || text(source, iterated) != text(source, parameter)
    {
        return None;
    }
    let inner = statements(loop_body);
    let yielded = match (counter, inner.as_slice()) {
        (None, [y]) => *y,
        (Some(c), [step, y]) => {
            let increment = step.named_child(0)?;
            let counted = increment.kind() == "augmented_assignment"
                && increment
                    .child_by_field_name("left")
                    .is_some_and(|l| text(source, l) == c);
            counted.then_some(*y)?
        }
        _ => return None,
    };
    let value = yielded
        .named_child(0)
        .filter(|y| yielded.kind() == "expression_statement" && y.kind() == "yield")?
        .named_child(0)?;
    (text(source, value) == text(source, item)).then(|| text(source, name))
}

/// Whether `c` calls the plain name `function`.
fn is_call_of(source: &str, c: Node<'_>, function: &str) -> bool {
    c.kind() == "call"
        && c.child_by_field_name("function")
            .is_some_and(|f| f.kind() == "identifier" && text(source, f) == function)
}

/// The named arguments of a call.
fn arguments_of(c: Node<'_>) -> Vec<Node<'_>> {
    c.child_by_field_name("arguments")
        .map(|a| a.named_children(&mut a.walk()).collect())
        .unwrap_or_default()
}

/// `for k in iter(lambda: bool(c), False):` reads as `while c:`, and `for k in iter(int, 1):`
/// as `while True:`, where the body never reads `k` (what `while-to-for` undoes).
pub(super) fn while_from_for(source: &str, n: Node<'_>, out: &mut Structure) {
    let (Some(tick), Some(iterable), Some(body)) = (
        n.child_by_field_name("left"),
        n.child_by_field_name("right"),
        n.child_by_field_name("body"),
    ) else {
        return;
    };
    if tick.kind() != "identifier" || !is_call_of(source, iterable, "iter") {
        return;
    }
    if identifier_count(source, body, text(source, tick)) > 0 {
        return;
    }
    let condition = match arguments_of(iterable).as_slice() {
        [f, one] if text(source, *f) == "int" && text(source, *one) == "1" => None,
        [lambda, sentinel] if lambda.kind() == "lambda" && text(source, *sentinel) == "False" => {
            let Some(inner) = lambda
                .child_by_field_name("body")
                .filter(|b| is_call_of(source, *b, "bool"))
            else {
                return;
            };
            match arguments_of(inner).as_slice() {
                [c] if c.kind() != "keyword_argument" => Some(*c),
                _ => return,
            }
        }
        _ => return,
    };
    let never = condition
        .and_then(|c| constant_in(source, c, &out.named_integers))
        .is_some_and(|c| !c.truthy());
    if never && !has_alternative(n) {
        // Dead code behind a `while` made a `for` (`dead-code-insert`, then `while-to-for`).
        out.dropped.push(range(n));
        return;
    }
    match condition {
        Some(c) => {
            out.texts.insert(n.start_byte(), "while".to_string());
            out.dropped.push(tick.start_byte()..c.start_byte());
            out.dropped.push(c.end_byte()..iterable.end_byte());
        }
        None => {
            out.texts.insert(n.start_byte(), "while True".to_string());
            out.dropped.push(tick.start_byte()..iterable.end_byte());
        }
    }
}

/// `h = iter(E)` and `s = object()` (or a copy of it), each bound once and read only by the
/// loop, then `while (t := next(h, s)) is not s:` read as `for t in E:`, and as `for x in E:`
/// where the body starts with `x = t` and nothing else reads `t` (what `for-to-while` makes of
/// a loop over an iterable). The statements that made `h` and `s` go, wherever they are.
pub(super) fn for_from_while(source: &str, root: Node<'_>, n: Node<'_>, out: &mut Structure) {
    let (Some(test), Some(body)) = (
        n.child_by_field_name("condition"),
        n.child_by_field_name("body"),
    ) else {
        return;
    };
    if for_from_range_walk(source, root, n, test, body, out) {
        return;
    }
    let operands: Vec<Node<'_>> = test.named_children(&mut test.walk()).collect();
    let ([walrus, sentinel], "comparison_operator") = (operands.as_slice(), test.kind()) else {
        return;
    };
    let operator: Vec<&str> = source
        .get(walrus.end_byte()..sentinel.start_byte())
        .unwrap_or_default()
        .split_whitespace()
        .filter(|w| *w != ")")
        .collect();
    let walrus = within_parentheses(*walrus);
    let (Some(item), Some(step), true) = (
        walrus.child_by_field_name("name"),
        walrus.child_by_field_name("value"),
        operator == ["is", "not"] && walrus.kind() == "named_expression",
    ) else {
        return;
    };
    let step_arguments = arguments_of(step);
    let [iterator, passed] = step_arguments.as_slice() else {
        return;
    };
    if !is_call_of(source, step, "next")
        || [item, *iterator, *passed, *sentinel]
            .iter()
            .any(|x| x.kind() != "identifier")
        || text(source, *passed) != text(source, *sentinel)
    {
        return;
    }
    // The iterator: made once by `iter(E)`, read only here.
    let Some((made, call)) = bound_once(source, root, text(source, *iterator), 2) else {
        return;
    };
    let call_arguments = arguments_of(call);
    let [iterable] = call_arguments.as_slice() else {
        return;
    };
    if !is_call_of(source, call, "iter")
        || matches!(
            iterable.kind(),
            "keyword_argument" | "list_splat" | "dictionary_splat"
        )
    {
        return;
    }
    // The sentinel: a fresh `object()`, perhaps through one copy.
    let Some((sentinel_made, value)) = bound_once(source, root, text(source, *sentinel), 3) else {
        return;
    };
    let mut gone = vec![range(sentinel_made)];
    let fresh = |v: Node<'_>| is_call_of(source, v, "object") && arguments_of(v).is_empty();
    if !fresh(value) {
        let copied = (value.kind() == "identifier")
            .then(|| bound_once(source, root, text(source, value), 2))
            .flatten();
        match copied {
            Some((original, v)) if fresh(v) && alone_on_its_lines(original) => {
                gone.push(range(original));
            }
            _ => return,
        }
    }
    let Some(colon) = n
        .children(&mut n.walk())
        .find(|c| c.kind() == ":")
        .map(|c| c.start_byte())
    else {
        return;
    };
    if ![made, sentinel_made].into_iter().all(alone_on_its_lines) {
        return;
    }
    // `x = t` first in the body, `t` read nowhere else: `x` is the loop's variable.
    let first = statements(body);
    let copy = first.first().and_then(|s| assignment(*s)).filter(|(x, t)| {
        x.kind() == "identifier"
            && t.kind() == "identifier"
            && text(source, *t) == text(source, item)
            && identifier_count(source, root, text(source, item)) == 2
            && first.len() > 1
    });
    let copy = copy.filter(|_| first.first().is_some_and(|s| alone_on_its_lines(*s)));
    if let (Some((x, _)), Some(statement)) = (copy, first.first()) {
        out.aliases.insert(item.start_byte(), x.start_byte());
        gone.push(range(*statement));
    }
    out.texts.insert(n.start_byte(), "for".to_string());
    out.dropped.push(test.start_byte()..item.start_byte());
    if let Some(assign) = walrus
        .children(&mut walrus.walk())
        .find(|c| c.kind() == ":=")
    {
        out.texts.insert(assign.start_byte(), "in".to_string());
    }
    out.dropped.push(step.start_byte()..test.end_byte());
    // `h = iter(E)` goes but for `E`, which moves into the header.
    out.dropped.push(made.start_byte()..iterable.start_byte());
    out.dropped.push(iterable.end_byte()..made.end_byte());
    out.dropped.extend(gone);
    out.moves.push(Move {
        from: range(*iterable),
        to: colon,
        replacing: false,
    });
}

/// The one statement `name = value` that binds `name`, where `name` is written `uses` times
/// in all (that binding included): the statement and the value.
pub(super) fn bound_once<'t>(
    source: &str,
    root: Node<'t>,
    name: &str,
    uses: usize,
) -> Option<(Node<'t>, Node<'t>)> {
    if identifier_count(source, root, name) != uses {
        return None;
    }
    let mut found = None;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        if let Some((target, value)) = assignment(n) {
            if target.kind() == "identifier" && text(source, target) == name {
                if found.is_some() {
                    return None;
                }
                found = Some((n, value));
            }
        }
    }
    found
}

/// `r = range(A)` and `c = r.start` then `while c < r.stop:` (or, for a step known only at
/// run time, `while (c < r.stop) if r.step > 0 else (c > r.stop):`) whose body starts with
/// `x = c` and `c += r.step`, where nothing else reads `r` or `c`, read as `for x in
/// range(A):` (what `for-to-while` makes of a loop over a range that is not all literals).
fn for_from_range_walk(
    source: &str,
    root: Node<'_>,
    n: Node<'_>,
    test: Node<'_>,
    body: Node<'_>,
    out: &mut Structure,
) -> bool {
    // The counter: the first name the test compares.
    let mut first = test;
    while let Some(c) = first
        .named_child(0)
        .filter(|_| first.kind() != "identifier")
    {
        first = c;
    }
    let counter = text(source, first);
    let conditional = test.kind() == "conditional_expression";
    let pieces = statements(body);
    let ([copy, advance, _, ..], "identifier") = (pieces.as_slice(), first.kind()) else {
        return false;
    };
    // `x = c`, then `c += r.step`.
    let Some((x, read)) = assignment(*copy) else {
        return false;
    };
    let Some(step) = advance
        .named_child(0)
        .filter(|a| a.kind() == "augmented_assignment")
    else {
        return false;
    };
    let (Some(advanced), Some(by)) = (
        step.child_by_field_name("left"),
        step.child_by_field_name("right"),
    ) else {
        return false;
    };
    let walked = |attribute: Node<'_>, field: &str| -> Option<String> {
        let object = attribute.child_by_field_name("object")?;
        (attribute.kind() == "attribute"
            && object.kind() == "identifier"
            && attribute
                .child_by_field_name("attribute")
                .is_some_and(|a| text(source, a) == field))
        .then(|| text(source, object).to_string())
    };
    let Some(walk) = walked(by, "step") else {
        return false;
    };
    if x.kind() != "identifier"
        || text(source, read) != counter
        || text(source, advanced) != counter
        || step
            .child_by_field_name("operator")
            .is_none_or(|o| text(source, o) != "+=")
    {
        return false;
    }
    // Each name read where the rewrite reads it and nowhere else.
    let (walk_uses, counter_uses) = if conditional { (6, 5) } else { (4, 4) };
    let (Some((made, call)), Some((started, start))) = (
        bound_once(source, root, &walk, walk_uses),
        bound_once(source, root, counter, counter_uses),
    ) else {
        return false;
    };
    let tested = |c: Node<'_>, op: &str| {
        let c = within_parentheses(c);
        let operands: Vec<Node<'_>> = c.named_children(&mut c.walk()).collect();
        matches!(operands.as_slice(), [l, r]
            if c.kind() == "comparison_operator"
                && text(source, *l) == counter
                && walked(*r, "stop").as_deref() == Some(walk.as_str())
                && source.get(l.end_byte()..r.start_byte()).is_some_and(|o| o.trim() == op))
    };
    let test_holds = if conditional {
        let parts: Vec<Node<'_>> = test.named_children(&mut test.walk()).collect();
        match parts.as_slice() {
            [up, sign, down] => {
                let positive = within_parentheses(*sign);
                let signs: Vec<Node<'_>> = positive.named_children(&mut positive.walk()).collect();
                tested(*up, "<")
                    && tested(*down, ">")
                    && matches!(signs.as_slice(), [s, z]
                        if walked(*s, "step").as_deref() == Some(walk.as_str())
                            && text(source, *z) == "0"
                            && source.get(s.end_byte()..z.start_byte()).is_some_and(|o| o.trim() == ">"))
            }
            _ => false,
        }
    } else {
        tested(test, "<")
    };
    if !test_holds
        || ![made, started, *copy, *advance]
            .into_iter()
            .all(alone_on_its_lines)
        || !is_call_of(source, call, "range")
        || walked(start, "start").as_deref() != Some(walk.as_str())
    {
        return false;
    }
    let (Some(colon), Some(operator)) = (
        n.children(&mut n.walk()).find(|c| c.kind() == ":"),
        first.next_sibling(),
    ) else {
        return false;
    };
    out.texts.insert(n.start_byte(), "for".to_string());
    out.aliases.insert(first.start_byte(), x.start_byte());
    out.texts.insert(operator.start_byte(), "in".to_string());
    out.dropped.push(test.start_byte()..first.start_byte());
    out.dropped.push(operator.end_byte()..test.end_byte());
    // `r = range(A)` goes but for `range(A)`, which moves into the header.
    out.dropped.push(made.start_byte()..call.start_byte());
    out.dropped.push(call.end_byte()..made.end_byte());
    out.dropped.push(range(started));
    out.dropped.push(copy.start_byte()..advance.end_byte());
    out.moves.push(Move {
        from: range(call),
        to: colon.start_byte(),
        replacing: false,
    });
    true
}
