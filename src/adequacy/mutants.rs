//! Mutants of a Python or Java program: small semantic-changing edits (the classic mutation
//! operators) used to measure how much a task's tests can tell apart.
//!
//! Both languages get the same operator families where the language has the construct:
//! arithmetic and comparison swaps, `and`/`or` (`&&`/`||`), integer constants ± 1, `True`/`False`
//! (`true`/`false`), negated conditions, swapped `if`/`else` bodies, dropped statements and
//! `min`/`max` (`Math.min`/`Math.max`); slice and `range` bounds are Python's only. A Java mutant
//! that parses may still not compile (a dropped `return` in a method that needs one): the oracle
//! reports it as an invalid candidate, and the score leaves it out (see [`super::score`]).
//!
//! Every site of every operator is enumerated in source order; each mutant is one edit. Mutants
//! that do not parse, equal the original, or repeat another mutant's text are dropped. When more
//! are asked for than exist, all are kept; otherwise a seeded sample is taken, so the same seed
//! gives the same mutants.

use crate::program::{validate_as, Language};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use tree_sitter::Node;

/// The mutation operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `<` → `<=`, `==` → `!=`, `in` → `not in`, …
    Comparison,
    /// `+` → `-`, `*` → `+`, `//` → `*`, … (also in `+=`).
    Arithmetic,
    /// `and` ↔ `or`.
    Boolean,
    /// An integer constant ± 1.
    Constant,
    /// `True` ↔ `False`.
    Truth,
    /// `if c:` → `if not (c):` (also `elif`, `while`), and `not c` → `c`.
    NegateCondition,
    /// The bodies of an `if`/`else` swapped.
    SwapBranches,
    /// A statement replaced by `pass`.
    DropStatement,
    /// A slice bound ± 1, or a missing start made 1.
    SliceBound,
    /// `range(a, b)`: an argument ± 1.
    RangeBound,
    /// `min` ↔ `max`.
    MinMax,
    /// `return e` → `return None`.
    ReturnValue,
    /// The `else` of an `if` dropped.
    DropElse,
    /// The first two positional arguments of a call swapped.
    SwapArguments,
    /// A variable read replaced by another variable of the same function.
    WrongVariable,
    /// `break` → `return` in a function, `break` ↔ `continue`.
    LoopExit,
}

impl Operator {
    /// The operator's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Operator::Comparison => "comparison",
            Operator::Arithmetic => "arithmetic",
            Operator::Boolean => "boolean",
            Operator::Constant => "constant",
            Operator::Truth => "truth",
            Operator::NegateCondition => "negate-condition",
            Operator::SwapBranches => "swap-branches",
            Operator::DropStatement => "drop-statement",
            Operator::SliceBound => "slice-bound",
            Operator::RangeBound => "range-bound",
            Operator::MinMax => "min-max",
            Operator::ReturnValue => "return-value",
            Operator::DropElse => "drop-else",
            Operator::SwapArguments => "swap-arguments",
            Operator::WrongVariable => "wrong-variable",
            Operator::LoopExit => "loop-exit",
        }
    }
}

/// One mutant of a program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Index in the enumeration of all sites (stable for a program).
    pub site: usize,
    /// The operator.
    pub operator: Operator,
    /// 1-based line of the edit.
    pub line: usize,
    /// The edit, in words (`` `<` → `<=` ``).
    pub edit: String,
    /// The mutated program.
    #[serde(skip)]
    pub source: String,
}

/// One edit: replace `start..end` of the source by `text`.
struct Edit {
    operator: Operator,
    start: usize,
    end: usize,
    text: String,
    line: usize,
}

/// Every mutant of the Python program `source` (parsing, distinct, different from `source`), in
/// site order.
pub fn all_mutants(source: &str) -> Vec<Mutant> {
    all_mutants_of(Language::Python, source)
}

/// Every mutant of `source`, a program of `language` (parsing, distinct, different from
/// `source`), in site order.
pub fn all_mutants_of(language: Language, source: &str) -> Vec<Mutant> {
    // A program that does not parse has no mutants (every mutant would be invalid too).
    if validate_as(language, source).is_err() {
        return Vec::new();
    }
    let Some(tree) = parse(language, source) else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    match language {
        Language::Python => collect(tree.root_node(), source, &mut edits),
        Language::Java => collect_java(tree.root_node(), source, &mut edits),
    }
    let mut seen = HashSet::new();
    seen.insert(source.to_string());
    let mut out = Vec::new();
    for (site, e) in edits.into_iter().enumerate() {
        let (Some(head), Some(old), Some(tail)) = (
            source.get(..e.start),
            source.get(e.start..e.end),
            source.get(e.end..),
        ) else {
            continue;
        };
        let mutated = format!("{head}{}{tail}", e.text);
        if validate_as(language, &mutated).is_err() || !seen.insert(mutated.clone()) {
            continue;
        }
        let before = one_line(old);
        out.push(Mutant {
            site,
            operator: e.operator,
            line: e.line,
            edit: format!("`{before}` → `{}`", one_line(&e.text)),
            source: mutated,
        });
    }
    out
}

/// The parse tree of `source` with `language`'s grammar (`None` if the grammar does not load).
fn parse(language: Language, source: &str) -> Option<tree_sitter::Tree> {
    let grammar: tree_sitter::Language = match language {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
    };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar).ok()?;
    parser.parse(source, None)
}

/// At most `max` mutants of the Python program `source`, a sample drawn with `seed` when there
/// are more (kept in site order).
pub fn mutants(source: &str, max: usize, seed: u64) -> Vec<Mutant> {
    mutants_of(Language::Python, source, max, seed)
}

/// At most `max` mutants of `source`, a program of `language`, a sample drawn with `seed` when
/// there are more (kept in site order).
pub fn mutants_of(language: Language, source: &str, max: usize, seed: u64) -> Vec<Mutant> {
    let mut all = all_mutants_of(language, source);
    if all.len() > max {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        all.shuffle(&mut rng);
        all.truncate(max);
        all.sort_by_key(|m| m.site);
    }
    all
}

/// A short one-line rendering of a piece of code.
fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 40 {
        format!("{}…", flat.chars().take(40).collect::<String>())
    } else {
        flat
    }
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

fn push(edits: &mut Vec<Edit>, operator: Operator, n: Node<'_>, text: impl Into<String>) {
    edits.push(Edit {
        operator,
        start: n.start_byte(),
        end: n.end_byte(),
        text: text.into(),
        line: n.start_position().row + 1,
    });
}

/// The replacements of a comparison operator.
fn comparison_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "<" => &["<=", ">"],
        "<=" => &["<", ">="],
        ">" => &[">=", "<"],
        ">=" => &[">", "<="],
        "==" => &["!="],
        "!=" => &["=="],
        "in" => &["not in"],
        "not in" => &["in"],
        "is" => &["is not"],
        "is not" => &["is"],
        _ => &[],
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

fn collect(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
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
    let is = |field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == n.id())
    };
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

/// The replacements of a Java comparison operator.
fn java_comparison_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "<" => &["<=", ">"],
        "<=" => &["<", ">="],
        ">" => &[">=", "<"],
        ">=" => &[">", "<="],
        "==" => &["!="],
        "!=" => &["=="],
        _ => &[],
    }
}

/// The replacements of a Java arithmetic or bitwise operator (`/` → `*`: Java has no `//`).
fn java_arithmetic_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-"],
        "-" => &["+"],
        "*" => &["+"],
        "/" => &["*"],
        "%" => &["/"],
        "<<" => &[">>"],
        ">>" => &["<<"],
        ">>>" => &["<<"],
        "&" => &["|"],
        "|" => &["&"],
        "^" => &["&"],
        _ => &[],
    }
}

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

/// The Java counterparts of [`collect`]'s operators.
fn collect_java(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    match n.kind() {
        "binary_expression" => {
            if let Some(op) = n.child_by_field_name("operator") {
                let k = op.kind();
                for s in java_comparison_swaps(k) {
                    push(edits, Operator::Comparison, op, *s);
                }
                for s in java_arithmetic_swaps(k) {
                    push(edits, Operator::Arithmetic, op, *s);
                }
                match k {
                    "&&" => push(edits, Operator::Boolean, op, "||"),
                    "||" => push(edits, Operator::Boolean, op, "&&"),
                    _ => {}
                }
            }
        }
        "assignment_expression" => {
            if let Some(op) = n.child_by_field_name("operator") {
                let k = op.kind();
                if k.len() > 1 {
                    for s in java_arithmetic_swaps(k.trim_end_matches('=')) {
                        push(edits, Operator::Arithmetic, op, format!("{s}="));
                    }
                }
            }
        }
        "update_expression" => {
            let mut c = n.walk();
            for child in n.children(&mut c) {
                match child.kind() {
                    "++" => push(edits, Operator::Arithmetic, child, "--"),
                    "--" => push(edits, Operator::Arithmetic, child, "++"),
                    _ => {}
                }
            }
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
            }
        }
        "expression_statement" | "return_statement" | "break_statement" | "continue_statement" => {
            let in_block = n
                .parent()
                .is_some_and(|p| matches!(p.kind(), "block" | "switch_block_statement_group"));
            if in_block {
                push(edits, Operator::DropStatement, n, ";");
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::validate;

    const PROGRAM: &str = "n = int(input())\nxs = list(map(int, input().split()))\nbest = 0\nfor i in range(1, n):\n    if xs[i] > xs[i - 1] and xs[i] % 2 == 0:\n        best += xs[i]\n    else:\n        best -= 1\nprint(max(best, 0), xs[:n])\n";

    const FUNCTION: &str = "def f(xs, k):\n    best = 0\n    for x in xs:\n        if x > k:\n            break\n        elif x == k:\n            continue\n        else:\n            best = max(best, x)\n    return pow(best, 2)\nprint(f([1, 2, 3], 2))\n";

    fn edits_of(op: Operator) -> Vec<String> {
        all_mutants(FUNCTION)
            .into_iter()
            .filter(|m| m.operator == op)
            .map(|m| m.edit)
            .collect()
    }

    #[test]
    fn the_wider_operators_make_the_mutants_they_name() {
        assert_eq!(edits_of(Operator::ReturnValue), ["`pow(best, 2)` → `None`"]);
        let dropped = all_mutants(FUNCTION)
            .into_iter()
            .find(|m| m.operator == Operator::DropElse)
            .map(|m| m.source)
            .unwrap_or_default();
        assert!(
            !dropped.contains("else:") && dropped.contains("elif x == k:"),
            "{dropped}"
        );
        // `f([1, 2, 3], 2)` and `pow(best, 2)` swap; `max(best, x)` does not (same value).
        let swaps = edits_of(Operator::SwapArguments);
        assert!(
            swaps.contains(&"`best, 2` → `2, best`".to_string()),
            "{swaps:?}"
        );
        assert!(swaps.iter().all(|e| !e.contains("best, x")), "{swaps:?}");
        let exits = edits_of(Operator::LoopExit);
        for e in [
            "`break` → `continue`",
            "`break` → `return`",
            "`continue` → `break`",
        ] {
            assert!(exits.contains(&e.to_string()), "{exits:?}");
        }
        // Reads of xs, k, best and x become the next bound name; bindings stay.
        let wrong = edits_of(Operator::WrongVariable);
        assert!(wrong.contains(&"`k` → `x`".to_string()), "{wrong:?}");
        assert!(wrong.contains(&"`xs` → `best`".to_string()), "{wrong:?}");
        assert!(
            !wrong
                .iter()
                .any(|e| e.contains("`f`") || e.contains("`max`")),
            "{wrong:?}"
        );
        for m in all_mutants(FUNCTION) {
            assert!(validate(&m.source).is_ok(), "{}", m.edit);
        }
    }

    #[test]
    fn every_mutant_parses_differs_and_is_distinct() {
        let all = all_mutants(PROGRAM);
        assert!(all.len() > 20, "{}", all.len());
        let mut seen = HashSet::new();
        for m in &all {
            assert!(validate(&m.source).is_ok(), "{}", m.edit);
            assert_ne!(m.source, PROGRAM);
            assert!(seen.insert(m.source.clone()));
        }
        let ops: HashSet<Operator> = all.iter().map(|m| m.operator).collect();
        for op in [
            Operator::Comparison,
            Operator::Arithmetic,
            Operator::Boolean,
            Operator::Constant,
            Operator::NegateCondition,
            Operator::SwapBranches,
            Operator::DropStatement,
            Operator::SliceBound,
            Operator::RangeBound,
            Operator::MinMax,
        ] {
            assert!(ops.contains(&op), "{op:?} missing");
        }
    }

    #[test]
    fn sampling_is_deterministic_for_a_seed() {
        let a = mutants(PROGRAM, 10, 7);
        let b = mutants(PROGRAM, 10, 7);
        let c = mutants(PROGRAM, 10, 8);
        assert_eq!(a.len(), 10);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.windows(2).all(|w| w[0].site < w[1].site));
    }

    #[test]
    fn swapped_branches_keep_indentation() {
        let m = all_mutants(PROGRAM)
            .into_iter()
            .find(|m| m.operator == Operator::SwapBranches)
            .expect("a swap");
        assert!(m
            .source
            .contains("    if xs[i] > xs[i - 1] and xs[i] % 2 == 0:\n        best -= 1\n    else:\n        best += xs[i]\n"));
    }

    #[test]
    fn a_program_that_does_not_parse_has_no_mutants() {
        assert!(all_mutants("def f(:\n").is_empty());
        assert!(all_mutants_of(Language::Java, "class Main { void f( }").is_empty());
    }

    const JAVA: &str = "import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int n = in.nextInt();\n        long best = 0L;\n        boolean seen = false;\n        for (int i = 1; i < n; i++) {\n            int x = in.nextInt();\n            if (x > 2 && !seen) {\n                best += x % 3;\n            } else {\n                best = Math.max(best, x * 2);\n            }\n        }\n        // a comment: 7 < 8\n        System.out.println(best);\n    }\n}\n";

    #[test]
    fn java_programs_get_every_operator_family_they_have() {
        let all = all_mutants_of(Language::Java, JAVA);
        let mut seen = HashSet::new();
        for m in &all {
            assert!(validate_as(Language::Java, &m.source).is_ok(), "{}", m.edit);
            assert_ne!(m.source, JAVA);
            assert!(seen.insert(m.source.clone()));
            // Comments are not code: nothing in them is mutated.
            assert!(m.source.contains("// a comment: 7 < 8"), "{}", m.edit);
        }
        let ops: HashSet<Operator> = all.iter().map(|m| m.operator).collect();
        for op in [
            Operator::Comparison,
            Operator::Arithmetic,
            Operator::Boolean,
            Operator::Constant,
            Operator::NegateCondition,
            Operator::SwapBranches,
            Operator::DropStatement,
            Operator::MinMax,
        ] {
            assert!(ops.contains(&op), "{op:?} missing");
        }
        let edits: Vec<&str> = all.iter().map(|m| m.edit.as_str()).collect();
        for e in [
            "`<` → `<=`",
            "`&&` → `||`",
            "`0L` → `1L`",
            "`++` → `--`",
            "`+=` → `-=`",
            "`!seen` → `(seen)`",
            "`max` → `min`",
        ] {
            assert!(edits.contains(&e), "{e} missing from {edits:?}");
        }
        assert!(all
            .iter()
            .any(|m| m.source.contains("if (!(x > 2 && !seen)) {")));
        assert_eq!(
            mutants_of(Language::Java, JAVA, 5, 1),
            mutants_of(Language::Java, JAVA, 5, 1)
        );
    }
}
