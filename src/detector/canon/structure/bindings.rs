//! Bindings an SPT adds: callable objects, packed state, hoisted constants and builtin
//! aliases, import aliases and module-qualified reads, and docstrings read by value.

use super::control::through_scaffold;
use super::*;
use crate::detector::canon::names::is_member_position;
use std::collections::HashSet;

/// `class C:` holding only `def __call__(self, /, …)` (after a docstring, which the SPT
/// moves from the function to the class), followed by `f = C()`, reads as `def f(…)` with
/// that docstring.
pub(super) fn callable_object(source: &str, class: Node<'_>, out: &mut Structure) {
    let (Some(name), Some(body)) = (
        class.child_by_field_name("name"),
        class.child_by_field_name("body"),
    ) else {
        return;
    };
    let members = statements(body);
    let (doc, method) = match members.as_slice() {
        [method] => (None, method),
        [doc, method] if is_docstring_statement(*doc) => (Some(*doc), method),
        _ => return,
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
    let header_end = doc.map_or(method.start_byte(), |d| d.start_byte());
    out.dropped.push(class.start_byte()..header_end);
    out.dropped.push(range(binding));
    out.read_at(method, class);
    // The docstring reads after the function's header, where it was.
    if let (Some(doc), Some(block)) = (doc, method.child_by_field_name("body")) {
        out.reorders.push(Reorder {
            span: doc.start_byte()..method.end_byte(),
            pieces: vec![
                method.start_byte()..block.start_byte(),
                range(doc),
                range(block),
            ],
        });
    }
    out.aliases.insert(call.start_byte(), target.start_byte());
}

/// A function whose locals `state-pack` moved into slots of containers made first thing
/// (`s = [None, None]` or `s = {}` among its top-level statements, a slot itself possibly a
/// container, and every other mention of a container a constant slot): each `s[k]` reads as
/// a variable of its own, and the containers' creation goes.
pub(super) fn packed_state(source: &str, function: Node<'_>, out: &mut Structure) {
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

/// Module-level `NAME = literal` (or `NAME = builtin`) statements whose name nothing else
/// binds: the statement goes and the name reads as the value (what `constant-hoist` and
/// `call-indirection` undo).
pub(super) fn hoisted_constants(source: &str, module: Node<'_>, out: &mut Structure) {
    let mut bindings: HashMap<&str, usize> = HashMap::new();
    let mut stack = vec![module];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        if n.kind() == "identifier" && binds(n) {
            *bindings.entry(text(source, n)).or_default() += 1;
        }
    }
    // Constants read so far, by name: a constant bound to one of them reads as its literal.
    let mut hoisted: HashMap<&str, (String, Option<i128>)> = HashMap::new();
    // A constant may sit in a no-op `try` scaffold (`try-scaffold` after `constant-hoist`) and
    // its value in parentheses (`redundant-parens`): both read as they were.
    for statement in statements(module).into_iter().map(through_scaffold) {
        let Some((target, value)) = assignment(statement) else {
            continue;
        };
        let value = within_parentheses(value);
        let named = text(source, value);
        let literal = match value.kind() {
            "integer" | "float" | "string" if plain(source, value).is_some() => {
                let integer = match constant(source, value) {
                    Some(Constant::Int(v)) => Some(v),
                    _ => None,
                };
                Some((named.to_string(), integer))
            }
            "identifier" => match hoisted.get(named) {
                Some(earlier) => Some(earlier.clone()),
                // An alias of a name the program never binds: a builtin.
                None => (!bindings.contains_key(named)).then(|| (named.to_string(), None)),
            },
            // Integer arithmetic over literals and earlier constants (`constant-unfold`).
            _ => match constant_in(source, value, &out.named_integers) {
                Some(Constant::Int(v)) => Some((v.to_string(), Some(v))),
                _ => None,
            },
        };
        let Some((literal, integer)) = literal else {
            continue;
        };
        if target.kind() == "identifier" && bindings.get(text(source, target)) == Some(&1) {
            out.dropped.push(range(statement));
            out.constants.insert(target.start_byte(), literal.clone());
            if let Some(v) = integer {
                out.named_integers
                    .insert(text(source, target).to_string(), v);
            }
            if let Some(s) = (value.kind() == "string")
                .then(|| python_string(text(source, value)))
                .flatten()
                .filter(|v| !v.formatted && !v.bytes && is_identifier(&v.value))
            {
                out.named_strings
                    .insert(text(source, target).to_string(), s.value);
            }
            hoisted.insert(text(source, target), (literal, integer));
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

/// Whether `statement` is a string on its own (a docstring where it comes first).
pub(in crate::detector::canon) fn is_docstring_statement(statement: Node<'_>) -> bool {
    statement.kind() == "expression_statement"
        && statement.named_child_count() == 1
        && statement.named_child(0).and_then(unparenthesized).is_some()
}

/// The string (or implicit concatenation) `n` is, inside any parentheses.
fn unparenthesized(n: Node<'_>) -> Option<Node<'_>> {
    Some(within_parentheses(n)).filter(|n| matches!(n.kind(), "string" | "concatenated_string"))
}

/// A function's or class's docstring, read by its value: the statement's range, where its
/// string starts, and the value's trimmed non-blank lines quoted as a canonical literal.
fn docstring_of(source: &str, n: Node<'_>) -> Option<Docstring> {
    let body = n.child_by_field_name("body")?;
    let statement = statements(body)
        .first()
        .copied()
        .filter(|s| is_docstring_statement(*s))?;
    string_statement(source, statement)
}

/// A statement that is only a string, read by its value as a docstring is.
fn string_statement(source: &str, statement: Node<'_>) -> Option<Docstring> {
    let string = statement.named_child(0).and_then(unparenthesized)?;
    // Implicitly concatenated pieces (`docstring-reencode`) make one value.
    let pieces: Vec<Node<'_>> = match string.kind() {
        "concatenated_string" => string.named_children(&mut string.walk()).collect(),
        _ => vec![string],
    };
    let first = range(*pieces.first()?);
    let mut bytes = None;
    let mut joined = String::new();
    for piece in pieces {
        let value = python_string(text(source, piece)).filter(|v| !v.formatted)?;
        if *bytes.get_or_insert(value.bytes) != value.bytes {
            return None;
        }
        joined.push_str(&value.value);
    }
    // By lines, trimmed, blank ones left out: re-indenting or re-wrapping the quotes
    // (`docstring-reencode`, `comment-edit`) keeps a docstring's reading.
    let lines = joined
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    Some(Docstring {
        statement: range(statement),
        string: first.start,
        rest: vec![
            statement.start_byte()..first.start,
            first.end..statement.end_byte(),
        ],
        value: quote(bytes.unwrap_or(false), &lines),
    })
}

/// Records a function's or class's docstring. In a function, so are the other statements that
/// are only a string, at any depth of its own blocks: each is a no-op that `nested-function`
/// can make an inner function's docstring (moving the statements that follow it) and
/// `try-scaffold` can wrap, so all of them read alike and pair alike.
pub(super) fn docstring(source: &str, n: Node<'_>, out: &mut Structure) {
    out.docstrings.extend(docstring_of(source, n));
    if n.kind() != "function_definition" {
        return;
    }
    let Some(body) = n.child_by_field_name("body") else {
        return;
    };
    let first = statements(body).first().map(|s| s.id());
    let mut stack = vec![body];
    while let Some(m) = stack.pop() {
        for c in m.named_children(&mut m.walk()) {
            match c.kind() {
                // Inner definitions hold their own docstrings.
                "function_definition" | "class_definition" | "decorated_definition" => {}
                "expression_statement" => {
                    if Some(c.id()) != first && is_docstring_statement(c) {
                        out.docstrings.extend(string_statement(source, c));
                    }
                }
                _ => stack.push(c),
            }
        }
    }
}

/// Import aliases (`import-alias`): `import m as a` and `from m import x as a` read as
/// `import m` and `from m import x`, every plain `a` reads as `m` (or `x`), and a statement
/// `x = a` that keeps the imported name bound at module level goes. Imported names are not
/// program names in the canonical form (they read as written), so both spellings meet.
pub(super) fn import_aliases(source: &str, module: Node<'_>, out: &mut Structure) {
    let mut imported: HashMap<&str, &str> = HashMap::new();
    let mut bindings: Vec<usize> = Vec::new();
    let mut stack = vec![module];
    let mut identifiers = Vec::new();
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        match n.kind() {
            "aliased_import" => {
                let (Some(name), Some(alias)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("alias"),
                ) else {
                    continue;
                };
                let from = n
                    .parent()
                    .is_some_and(|p| p.kind() == "import_from_statement");
                let path = text(source, name);
                // `from m import x as a` binds the object `x`; `import a.b as c` the module `a.b`.
                let read = if from {
                    path.rsplit('.').next().unwrap_or(path)
                } else {
                    path
                };
                imported.insert(text(source, alias), read);
                bindings.push(alias.start_byte());
                // The path reads as written, as an unaliased import's does, even where the
                // keep line below binds the same name in the module.
                for part in name.named_children(&mut name.walk()) {
                    out.texts
                        .insert(part.start_byte(), text(source, part).to_string());
                }
                out.dropped.push(name.end_byte()..alias.end_byte());
            }
            "identifier" => identifiers.push(n),
            _ => {}
        }
    }
    if imported.is_empty() {
        return;
    }
    for n in identifiers {
        let Some(read) = imported.get(text(source, n)) else {
            continue;
        };
        let member = is_member_position(crate::language::Language::Python, n);
        if !member && !bindings.contains(&n.start_byte()) {
            out.texts.insert(n.start_byte(), (*read).to_string());
        }
    }
    // `x = a` right where `a` is imported as `x`: the module keeps its name bound.
    for statement in statements(module) {
        if let Some((target, value)) = assignment(statement) {
            let keeps = target.kind() == "identifier"
                && value.kind() == "identifier"
                && imported.get(text(source, value)) == Some(&text(source, target));
            if keeps {
                out.dropped.push(range(statement));
            }
        }
    }
}

/// Module-qualified reads (`import-alias`'s qualify move): `from m import x` reads as
/// `import m`, `m.x` reads as `x` wherever `m` is a module the program imports under one plain
/// name (`import m`, `import m as a`), and a statement `x = m.x` — the module keeping the
/// imported name bound — goes. `from math import floor` … `floor(v)` and `import math as a`,
/// `floor = a.floor` … `a.floor(v)` then read alike.
pub(super) fn qualified_imports(source: &str, module: Node<'_>, out: &mut Structure) {
    let mut modules: HashSet<&str> = HashSet::new();
    let mut attributes = Vec::new();
    let mut lookups = Vec::new();
    let mut stack = vec![module];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        match n.kind() {
            "import_statement" => {
                for child in n.named_children(&mut n.walk()) {
                    let bound = match child.kind() {
                        "dotted_name" if child.named_child_count() == 1 => Some(child),
                        "aliased_import" => child
                            .child_by_field_name("name")
                            .filter(|m| m.named_child_count() == 1)
                            .and(child.child_by_field_name("alias")),
                        _ => None,
                    };
                    modules.extend(bound.map(|b| text(source, b)));
                }
            }
            "import_from_statement" => {
                let Some(name) = n.child_by_field_name("module_name") else {
                    continue;
                };
                if name.kind() != "dotted_name" || text(source, name) == "__future__" {
                    continue;
                }
                let keyword = n
                    .children(&mut n.walk())
                    .find(|c| c.kind() == "import" && c.start_byte() > name.start_byte());
                if let Some(keyword) = keyword {
                    out.texts.insert(n.start_byte(), "import".to_string());
                    out.dropped.push(keyword.start_byte()..n.end_byte());
                }
            }
            "attribute" => attributes.push(n),
            "call" => lookups.extend(super::expressions::constant_getattr(
                source,
                n,
                &out.named_strings,
            )),
            _ => {}
        }
    }
    if modules.is_empty() {
        return;
    }
    let qualified = |n: Node<'_>| {
        n.kind() == "attribute"
            && n.child_by_field_name("object")
                .is_some_and(|o| o.kind() == "identifier" && modules.contains(text(source, o)))
    };
    for n in attributes.into_iter().filter(|n| qualified(*n)) {
        if let (Some(object), Some(name)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("attribute"),
        ) {
            out.dropped.push(object.start_byte()..name.start_byte());
        }
    }
    // `getattr(m, "x")` (read as `m.x` by `attribute_lookup`) reads as `x` too.
    for lookup in lookups {
        if lookup.object.kind() == "identifier" && modules.contains(text(source, lookup.object)) {
            out.dropped
                .push(lookup.object.start_byte()..lookup.name.start_byte());
        }
    }
    for statement in statements(module) {
        if let Some((target, value)) = assignment(statement) {
            let keeps = target.kind() == "identifier"
                && qualified(value)
                && value
                    .child_by_field_name("attribute")
                    .is_some_and(|a| text(source, a) == text(source, target));
            if keeps {
                out.dropped.push(range(statement));
            }
        }
    }
}

/// A temporary that `temp-var` could have made: the statement `t = E`, the next statement,
/// the one read of `t` in it, and `E`.
pub(super) struct Temporary {
    statement: Range<usize>,
    next: Range<usize>,
    read: Range<usize>,
    value: Range<usize>,
}

/// `statement` as a temporary: `t = E` where `t` is written twice in the whole program (here
/// and once in the next statement, not inside a function, lambda or comprehension there,
/// which could run it later or many times), `E` holds no `yield`, `await` or `:=`, and `E`
/// reads the same without parentheses where `t` is read (it is atomic, or `t` is a whole
/// value: a statement's, a return's, a condition's, a lone argument's).
pub(super) fn temporary(source: &str, root: Node<'_>, statement: Node<'_>) -> Option<Temporary> {
    let (target, value) = assignment(statement)?;
    if target.kind() != "identifier" || statement.named_child_count() != 1 {
        return None;
    }
    let name = text(source, target);
    let next = next_statement(statement)?;
    if !alone_on_its_lines(statement) || !alone_on_its_lines(next) {
        return None;
    }
    // A copy outside loops is the copy rule's, whose conditions are stricter (a module
    // name, a name bound later); in a loop it leaves copies, and they read here.
    if within_parentheses(value).kind() == "identifier" && !in_a_loop(statement) {
        return None;
    }
    if identifier_count(source, root, name) != 2 {
        return None;
    }
    let mut read = None;
    let mut stack = vec![next];
    while let Some(n) = stack.pop() {
        stack.extend(n.named_children(&mut n.walk()));
        if n.kind() == "identifier" && text(source, n) == name {
            read = Some(n);
        }
    }
    let read = read?;
    let mut forbidden = vec![value];
    while let Some(n) = forbidden.pop() {
        if matches!(n.kind(), "yield" | "await" | "named_expression") {
            return None;
        }
        forbidden.extend(n.named_children(&mut n.walk()));
    }
    // Read once, when the next statement starts: not in a block of it, a loop, or code that
    // runs later.
    let mut at = read.parent();
    while let Some(p) = at {
        if matches!(
            p.kind(),
            "block"
                | "for_statement"
                | "while_statement"
                | "lambda"
                | "function_definition"
                | "class_definition"
                | "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression"
                | "keyword_argument"
                | "default_parameter"
                | "typed_default_parameter"
        ) {
            return None;
        }
        if p.id() == next.id() {
            break;
        }
        at = p.parent();
    }
    let inner = within_parentheses(value);
    // A name, a literal, a call, a subscript, a display: it needs parentheses nowhere.
    let atomic = binding(source, inner) == ATOMIC;
    let whole = read.parent().is_some_and(|p| {
        let slot = |field: &str| {
            p.child_by_field_name(field)
                .is_some_and(|c| c.id() == read.id())
        };
        match p.kind() {
            "assignment" | "augmented_assignment" => slot("right"),
            "return_statement" | "expression_statement" => true,
            "if_statement" | "elif_clause" | "while_statement" => slot("condition"),
            "argument_list" => p.named_child_count() == 1,
            _ => false,
        }
    });
    // Inside an operator that binds more loosely than the value's own, no parentheses either.
    let looser = read
        .parent()
        .is_some_and(|p| binding(source, inner) > binding(source, p));
    (atomic || whole || looser).then(|| Temporary {
        statement: range(statement),
        next: range(next),
        read: range(read),
        value: range(value),
    })
}

/// Each temporary read back where it is read, except one whose own statement takes another's
/// value in this pass (the next pass reads it), so no two moves overlap.
///
/// Run after every other rule: a temporary in what another rule reorders, leaves out or
/// moves stays as written.
pub(super) fn inlined_temporaries(
    mut temporaries: Vec<Temporary>,
    named_out: &[Range<usize>],
    out: &mut Structure,
) {
    temporaries.sort_by_key(|t| t.statement.start);
    let meets = |a: &Range<usize>, b: &Range<usize>| a.start < b.end && b.start < a.end;
    let mut dropped = out.dropped.clone();
    dropped.extend(named_out.iter().cloned());
    let dropped = merged(&dropped);
    let mut taken: Vec<&Temporary> = Vec::new();
    for t in &temporaries {
        let busy = [&t.statement, &t.next].into_iter().any(|r| {
            out.reorders.iter().any(|o| meets(&o.span, r))
                || out
                    .moves
                    .iter()
                    .any(|m| meets(&m.from, r) || r.contains(&m.to))
                || dropped.iter().any(|d| meets(d, r))
        });
        // A value read at another depth (a scaffold's body reads one level up) would take
        // the wrong one where it starts its line.
        let shifted = out
            .shifts
            .iter()
            .any(|(s, _)| s.contains(&t.value.start) != s.contains(&t.read.start));
        let overlaps = taken
            .iter()
            .any(|o| o.next == t.statement || o.statement == t.next);
        if !busy && !shifted && !overlaps {
            taken.push(t);
        }
    }
    for t in taken {
        out.dropped.push(t.statement.start..t.value.start);
        out.dropped.push(t.value.end..t.statement.end);
        out.moves.push(Move {
            from: t.value.clone(),
            to: t.read.start,
            replacing: true,
        });
    }
}

/// How tightly an atom binds: names, literals, calls, subscripts, attributes, displays.
const ATOMIC: u8 = 14;

/// How tightly an expression binds in Python (higher: tighter); an operator's by its operator.
fn binding(source: &str, n: Node<'_>) -> u8 {
    let operator = || {
        n.child_by_field_name("operator")
            .map(|o| text(source, o))
            .unwrap_or_default()
    };
    match n.kind() {
        "lambda" => 0,
        "conditional_expression" => 1,
        "boolean_operator" if operator() == "or" => 2,
        "boolean_operator" => 3,
        "not_operator" => 4,
        "comparison_operator" => 5,
        "binary_operator" => match operator() {
            "|" => 6,
            "^" => 7,
            "&" => 8,
            "<<" | ">>" => 9,
            "+" | "-" => 10,
            "**" => 13,
            _ => 11,
        },
        "unary_operator" => 12,
        "named_expression" | "expression_list" | "yield" | "await" | "list_splat"
        | "dictionary_splat" | "keyword_argument" | "pair" | "slice" => 0,
        _ => ATOMIC,
    }
}

/// Whether `n` runs in a loop of its function (or of the module, outside functions).
fn in_a_loop(n: Node<'_>) -> bool {
    let mut at = n.parent();
    while let Some(p) = at {
        match p.kind() {
            "for_statement" | "while_statement" => return true,
            "function_definition" | "lambda" | "class_definition" => return false,
            _ => at = p.parent(),
        }
    }
    false
}
