//! New call-level tests for function tasks (HumanEval style): the entry point's calls in the
//! task's `test_code` whose arguments are all literals are read, their arguments mutated by
//! type (numbers stepped or drawn from the observed range, strings edited over the observed
//! alphabet, containers shortened, lengthened or reordered), and written back as a call whose
//! printed `repr` is compared (`print(repr(f(…)))`). The task's own text states calls too:
//! its docstring's examples (`>>> f(1)` then `2`, or `f(1) ==> 2`) are read as
//! [`StatedCall`]s, tests whose expected value the task gives. Where the entry point's
//! parameters are annotated, some new calls are drawn by type instead ([`super::annotations`]).

use super::annotations::{described_types, parameter_types, Palette, Type};
use crate::program::with_tree;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeSet;
use tree_sitter::Node;

/// A literal argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A plain string (no prefix, no escapes).
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `[…]`.
    List(Vec<Value>),
    /// `(…)`.
    Tuple(Vec<Value>),
    /// `{…}` with keys and values.
    Dict(Vec<(Value, Value)>),
    /// Anything else literal, kept as written and never changed.
    Raw(String),
}

impl Value {
    /// Equality with floats compared to a relative 1e-6, and an integer equal to a float of
    /// the same value (`2` and `2.0` compare equal in Python).
    pub fn approx_eq(&self, other: &Value) -> bool {
        let all = |a: &[Value], b: &[Value]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.approx_eq(y))
        };
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0);
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => close(*a, *b),
            (Value::Float(a), Value::Int(b)) | (Value::Int(b), Value::Float(a)) => {
                close(*a, *b as f64)
            }
            (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => all(a, b),
            (Value::Dict(a), Value::Dict(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k.approx_eq(k2) && v.approx_eq(v2)))
            }
            (a, b) => a == b,
        }
    }

    /// Python source for this value.
    pub fn render(&self) -> String {
        let join = |xs: &[Value]| xs.iter().map(Value::render).collect::<Vec<_>>().join(", ");
        match self {
            Value::Int(v) => v.to_string(),
            Value::Float(v) => {
                let s = format!("{v:?}");
                if s.contains(['.', 'e']) {
                    s
                } else {
                    format!("{s}.0")
                }
            }
            Value::Str(s) => {
                let mut out = String::from("'");
                for c in s.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\'' => out.push_str("\\'"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        '\r' => out.push_str("\\r"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
                out
            }
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::None => "None".into(),
            Value::List(xs) => format!("[{}]", join(xs)),
            Value::Tuple(xs) if xs.len() == 1 => format!("({},)", xs[0].render()),
            Value::Tuple(xs) => format!("({})", join(xs)),
            Value::Dict(kv) => format!(
                "{{{}}}",
                kv.iter()
                    .map(|(k, v)| format!("{}: {}", k.render(), v.render()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Raw(s) => s.clone(),
        }
    }
}

/// Reads a literal; `None` when the expression is not one.
fn literal(n: Node<'_>, src: &str) -> Option<Value> {
    let text = &src[n.byte_range()];
    let items = |n: Node<'_>| -> Option<Vec<Value>> {
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
        kids.into_iter()
            .filter(|k| k.kind() != "comment")
            .map(|k| literal(k, src))
            .collect()
    };
    Some(match n.kind() {
        "integer" => text
            .replace('_', "")
            .parse::<i64>()
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Raw(text.into())),
        "float" => text
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(Value::Float)
            .unwrap_or_else(|| Value::Raw(text.into())),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "none" => Value::None,
        "string" => plain_string(n, src).map_or_else(|| Value::Raw(text.into()), Value::Str),
        "concatenated_string" => Value::Raw(text.into()),
        "unary_operator" => match literal(n.child_by_field_name("argument")?, src)? {
            Value::Int(v) if text.trim_start().starts_with('-') => Value::Int(-v),
            Value::Float(v) if text.trim_start().starts_with('-') => Value::Float(-v),
            _ => Value::Raw(text.into()),
        },
        "list" => Value::List(items(n)?),
        "tuple" => Value::Tuple(items(n)?),
        "parenthesized_expression" => literal(n.named_child(0)?, src)?,
        "set" => Value::Raw(items(n).map(|_| text.to_string())?),
        "dictionary" => {
            let mut c = n.walk();
            let mut kv = Vec::new();
            for pair in n.named_children(&mut c) {
                if pair.kind() != "pair" {
                    return None;
                }
                kv.push((
                    literal(pair.child_by_field_name("key")?, src)?,
                    literal(pair.child_by_field_name("value")?, src)?,
                ));
            }
            Value::Dict(kv)
        }
        _ => return None,
    })
}

/// The content of a string literal without prefix, interpolation or escapes.
fn plain_string(n: Node<'_>, src: &str) -> Option<String> {
    let mut c = n.walk();
    let mut content = String::new();
    for k in n.children(&mut c) {
        match k.kind() {
            "string_start" => {
                let s = &src[k.byte_range()];
                if !(s == "'" || s == "\"") {
                    return None; // prefixed or triple-quoted
                }
            }
            "string_content" => {
                let mut cc = k.walk();
                if k.named_children(&mut cc).next().is_some() {
                    return None; // escape sequences
                }
                content.push_str(&src[k.byte_range()]);
            }
            "string_end" => {}
            _ => return None,
        }
    }
    Some(content)
}

/// A call of the entry point that the task's text states with its expected value: a doctest
/// example (`>>> f(1)` and `2` on the next line) or an example line (`f(1) ==> 2`, `f(1) ➞ 2`,
/// `f(1) -> 2`, `f(1) => 2`, `f(1) == 2`, `f(1) should return 2`).
#[derive(Debug, Clone, PartialEq)]
pub struct StatedCall {
    /// The literal arguments.
    pub args: Vec<Value>,
    /// The value the text says the call returns.
    pub expected: Value,
}

/// Separators between a call and its stated value on one line, longest first.
const STATED_SEPARATORS: [&str; 7] = [
    " should return ",
    "==>",
    "==",
    "=>",
    "->",
    "\u{279e}",
    "\u{2192}",
];

/// The calls of `entry` with literal arguments that `source`'s text states with a literal
/// expected value, in source order, without repeats: doctest prompts, example lines, and
/// `Input:`/`Output:` examples ([`examples`]). Lines that do not read as one are skipped.
pub fn stated_calls(source: &str, entry: &str) -> Vec<StatedCall> {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let mut out: Vec<StatedCall> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let inline = |line: &str| {
            STATED_SEPARATORS.iter().find_map(|sep| {
                let (call, value) = line.split_once(sep)?;
                let value = value.trim().trim_end_matches(['.', ',', ';']);
                stated(call, value, entry)
            })
        };
        let found = if let Some(call) = line.strip_prefix(">>> ") {
            // The expected value is the next line, unless that is another prompt or blank;
            // or the prompt states it itself (`>>> f([]) == 0`).
            lines
                .get(i + 1)
                .filter(|next| !next.is_empty() && !next.starts_with(">>>"))
                .and_then(|next| stated(call, next, entry))
                .or_else(|| inline(call))
        } else if line.contains(entry) {
            inline(line)
        } else {
            None
        };
        if let Some(s) = found.filter(|s| !out.contains(s)) {
            out.push(s);
        }
    }
    for (args, expected) in examples(source, entry) {
        if let Some(expected) = expected.filter(|e| !matches!(e, Value::Raw(_))) {
            let s = StatedCall { args, expected };
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// `call` as a call of `entry` with literal arguments and `value` as a literal.
fn stated(call: &str, value: &str, entry: &str) -> Option<StatedCall> {
    let call = call.trim();
    let start = call.find(entry)?;
    let call = call.get(start..)?;
    let args = expression(call, |n, src| literal_call(n, src, |f| f == entry))?;
    let expected = expression(value.trim(), literal)?;
    (!matches!(expected, Value::Raw(_))).then_some(StatedCall { args, expected })
}

/// Argument lists that `source`'s text gives ([`examples`]), without repeats. They seed new
/// calls; those whose value the text states are also [`stated_calls`].
pub fn named_arguments(source: &str, entry: &str) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    for (args, _) in examples(source, entry) {
        if !out.contains(&args) {
            out.push(args);
        }
    }
    out
}

/// The examples `source`'s text gives for `entry`, in order: argument lists, each with the
/// value an `Output:` line right after it states (`None` when there is none).
///
/// An argument list is a literal for every parameter named as `name = value` or
/// `name : value`, on one line (`For lst = [1, 2] the output should be 3`, `Input: arr = [1],
/// k = 1`) or over consecutive lines (`grid : [[0, 1]]` then `capacity : 1`); for a function
/// of one parameter also `Input: [1, 2, 3]`. A blank line or a parameter named again starts
/// a new list; `def` lines are skipped (a default value is no example).
fn examples(source: &str, entry: &str) -> Vec<(Vec<Value>, Option<Value>)> {
    let Some(params) = parameters(source, entry).filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let mut out: Vec<(Vec<Value>, Option<Value>)> = Vec::new();
    // The list the next `Output:` line completes, and the one being read.
    let mut pending: Option<Vec<Value>> = None;
    let mut current: Vec<Option<Value>> = vec![None; params.len()];
    let flush = |pending: &mut Option<Vec<Value>>, out: &mut Vec<_>| {
        if let Some(args) = pending.take() {
            out.push((args, None));
        }
    };
    for line in source.lines().map(str::trim) {
        if line.is_empty() {
            current.iter_mut().for_each(|c| *c = None);
            continue;
        }
        if line.starts_with("def ") {
            continue;
        }
        if let Some(value) = labelled(line, "output") {
            if let Some(args) = pending.take() {
                out.push((args, expression(value, literal)));
            }
            continue;
        }
        if let ([_], Some(value)) = (params.as_slice(), labelled(line, "input")) {
            if let Some(v) = expression(value, literal) {
                flush(&mut pending, &mut out);
                pending = Some(vec![v]);
                continue;
            }
        }
        for (slot, p) in current.iter_mut().zip(&params) {
            if let Some(v) = named_value(line, p) {
                *slot = Some(v);
            }
        }
        if current.iter().all(Option::is_some) {
            flush(&mut pending, &mut out);
            pending = Some(current.iter_mut().filter_map(Option::take).collect());
        }
    }
    flush(&mut pending, &mut out);
    out
}

/// What follows `label` and a colon at the start of `line` (`Output: [2, 1]`), any case.
fn labelled<'l>(line: &'l str, label: &str) -> Option<&'l str> {
    let head = line.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = line
        .get(label.len()..)?
        .trim_start()
        .strip_prefix(':')?
        .trim();
    (!rest.is_empty()).then_some(rest)
}

/// The positional parameter names of `entry`'s definition in `source`; `None` when it has
/// none that can be read, or takes `*args`/`**kwargs`.
pub(super) fn parameters(source: &str, entry: &str) -> Option<Vec<String>> {
    each_parameter(source, entry, |p| {
        let id = match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|i| i.kind() == "identifier"),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => None,
        };
        id.and_then(|i| source.get(i.byte_range()))
            .map(str::to_string)
    })
}

/// `read` applied to each parameter node of `entry`'s definition in `source`; `None` when
/// there is no such definition or `read` reads nothing of one of its parameters.
pub(super) fn each_parameter<T>(
    source: &str,
    entry: &str,
    read: impl Fn(Node<'_>) -> Option<T>,
) -> Option<Vec<T>> {
    with_tree(source, |tree| {
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
            let name = n
                .child_by_field_name("name")
                .map(|f| &source[f.byte_range()]);
            if n.kind() != "function_definition" || name != Some(entry) {
                continue;
            }
            let Some(list) = n.child_by_field_name("parameters") else {
                return Ok(None);
            };
            let mut c = list.walk();
            let read: Option<Vec<T>> = list.named_children(&mut c).map(&read).collect();
            return Ok(read);
        }
        Ok(None)
    })
    .ok()
    .flatten()
}

/// The literal written after `name =` or `name :` (or `prefix_name`) in `line` (the longest
/// prefix that reads as one).
fn named_value(line: &str, name: &str) -> Option<Value> {
    let mut from = 0;
    while let Some(at) = line.get(from..)?.find(name) {
        let start = from + at;
        from = start + name.len();
        // `bucket_capacity : 1` names `capacity` too: texts qualify a parameter's name (a
        // wrong reading only seeds a call, or states a value the original then disowns).
        let before = line[..start].chars().next_back();
        if before.is_some_and(char::is_alphanumeric) {
            continue;
        }
        let after = line[from..].trim_start();
        let Some(rest) = after.strip_prefix('=').or_else(|| after.strip_prefix(':')) else {
            continue;
        };
        if rest.starts_with('=') {
            continue;
        }
        let rest = rest.trim_start();
        // Longest first: `[1, 2], k = 3` reads as `[1, 2]`, not `[1`.
        let cuts = rest
            .char_indices()
            .map(|(i, _)| i)
            .chain([rest.len()])
            .filter(|&i| i > 0 && i <= 300)
            .collect::<Vec<_>>();
        for &cut in cuts.iter().rev() {
            let v = expression(rest[..cut].trim_end_matches(['.', ',', ' ']), literal);
            if let Some(v) = v.filter(|v| !matches!(v, Value::Raw(_))) {
                return Some(v);
            }
        }
    }
    None
}

/// The arguments of `n`, a call of a function whose name `accept`s, when there are some and
/// all are literal positional ones.
fn literal_call(n: Node<'_>, src: &str, accept: impl Fn(&str) -> bool) -> Option<Vec<Value>> {
    if n.kind() != "call" || !accept(src.get(n.child_by_field_name("function")?.byte_range())?) {
        return None;
    }
    let list = n.child_by_field_name("arguments")?;
    if list.kind() != "argument_list" {
        return None;
    }
    let mut c = list.walk();
    let args: Option<Vec<Value>> = list
        .named_children(&mut c)
        .filter(|a| a.kind() != "comment")
        .map(|a| literal(a, src))
        .collect();
    args.filter(|a| !a.is_empty())
}

/// Parses `text` as one Python expression and reads it with `read`.
fn expression<T>(text: &str, read: impl Fn(Node<'_>, &str) -> Option<T>) -> Option<T> {
    with_tree(text, |tree| {
        let root = tree.root_node();
        if root.has_error() || root.named_child_count() != 1 {
            return Ok(None);
        }
        let stmt = root
            .named_child(0)
            .filter(|s| s.kind() == "expression_statement");
        let expr = stmt
            .filter(|s| s.named_child_count() == 1)
            .and_then(|s| s.named_child(0));
        Ok(expr.and_then(|e| read(e, text)))
    })
    .ok()
    .flatten()
}

/// Whether `printed` (what `print(repr(…))` wrote) shows the value `expected`: equal literals,
/// floats within a relative 1e-6 (docstrings round).
pub fn shows(printed: &str, expected: &Value) -> bool {
    expression(printed.trim(), literal).is_some_and(|v| v.approx_eq(expected))
}

/// The literal argument lists of the calls of a function task's entry point in its test code,
/// and what they show (integer range, string alphabet).
#[derive(Debug, Clone)]
pub struct CallModel {
    entry: String,
    calls: Vec<Vec<Value>>,
    int_lo: i64,
    int_hi: i64,
    alphabet: Vec<char>,
    /// The container and string lengths the calls show.
    len_lo: usize,
    len_hi: usize,
    /// The entry point's parameter types, when its annotations give them all.
    types: Option<Vec<Type>>,
}

impl CallModel {
    /// The model of a task's test code; `None` when no call of `entry` (or of `candidate`, the
    /// name HumanEval's `check` gives it) has only literal positional arguments.
    pub fn of(test_code: &str, entry: &str) -> Option<CallModel> {
        let calls = with_tree(test_code, |tree| {
            let mut calls = Vec::new();
            let mut stack = vec![tree.root_node()];
            while let Some(n) = stack.pop() {
                let mut c = n.walk();
                stack.extend(n.children(&mut c));
                let accept = |f: &str| f == entry || f == "candidate";
                if let Some(v) = literal_call(n, test_code, accept) {
                    calls.push(v);
                }
            }
            Ok(calls)
        })
        .ok()?;
        Self::from_calls(entry, calls, None)
    }

    /// The model of a function task: the literal calls of its test code (when it has one), the
    /// calls its own text states ([`stated_calls`]), the arguments it names
    /// ([`named_arguments`]) and its entry point's annotated types ([`parameter_types`]);
    /// `None` when there is none of these.
    pub fn of_task(test_code: Option<&str>, source: &str, entry: &str) -> Option<CallModel> {
        let mut calls = test_code
            .and_then(|code| CallModel::of(code, entry))
            .map(|m| m.calls)
            .unwrap_or_default();
        let stated = stated_calls(source, entry).into_iter().map(|s| s.args);
        for args in stated.chain(named_arguments(source, entry)) {
            if !calls.contains(&args) {
                calls.push(args);
            }
        }
        let types = parameter_types(source, entry)
            .or_else(|| described_types(source, entry))
            .filter(|t| calls.iter().all(|args| args.len() == t.len()));
        Self::from_calls(entry, calls, types)
    }

    /// The model of these argument lists and parameter types; `None` when there are neither.
    fn from_calls(
        entry: &str,
        calls: Vec<Vec<Value>>,
        types: Option<Vec<Type>>,
    ) -> Option<CallModel> {
        if calls.is_empty() && types.is_none() {
            return None;
        }
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let (mut len_lo, mut len_hi) = (usize::MAX, 0);
        let mut chars = BTreeSet::new();
        let mut stack: Vec<&Value> = calls.iter().flatten().collect();
        while let Some(v) = stack.pop() {
            let mut length = |n: usize| {
                len_lo = len_lo.min(n);
                len_hi = len_hi.max(n);
            };
            match v {
                Value::Int(i) => {
                    lo = lo.min(*i);
                    hi = hi.max(*i);
                }
                Value::Str(s) => {
                    length(s.chars().count());
                    chars.extend(s.chars());
                }
                Value::List(xs) | Value::Tuple(xs) => {
                    length(xs.len());
                    stack.extend(xs);
                }
                Value::Dict(kv) => stack.extend(kv.iter().flat_map(|(k, v)| [k, v])),
                _ => {}
            }
        }
        if lo > hi {
            // None shown: small positive numbers (`1 <= n` is the commonest constraint).
            (lo, hi) = (1, 10);
        }
        if len_lo > len_hi {
            (len_lo, len_hi) = (1, 5);
        }
        Some(CallModel {
            entry: entry.to_string(),
            calls,
            int_lo: lo,
            int_hi: hi,
            alphabet: chars.into_iter().collect(),
            len_lo,
            len_hi,
            types,
        })
    }

    /// The calls found, rendered as call-level tests.
    pub fn existing(&self) -> Vec<String> {
        self.calls.iter().map(|a| self.render(a)).collect()
    }

    /// `print(repr(entry(args)))`.
    pub fn render(&self, args: &[Value]) -> String {
        let args: Vec<String> = args.iter().map(Value::render).collect();
        format!("print(repr({}({})))", self.entry, args.join(", "))
    }

    /// A new call made from a random existing one by changing one or two arguments.
    pub fn mutate(&self, rng: &mut impl Rng) -> String {
        self.render(&self.mutate_args(rng))
    }

    /// The arguments of a new call made as [`CallModel::mutate`] makes it, or drawn by type
    /// (a quarter of the time, and always when the task shows no call).
    pub fn mutate_args(&self, rng: &mut impl Rng) -> Vec<Value> {
        if let Some(types) = &self.types {
            if self.calls.is_empty() || rng.random_bool(0.25) {
                let palette = Palette {
                    int_lo: self.int_lo,
                    int_hi: self.int_hi,
                    alphabet: &self.alphabet,
                    len_lo: self.len_lo,
                    len_hi: self.len_hi,
                };
                return types.iter().map(|t| t.draw(&palette, rng, 0)).collect();
            }
        }
        let Some(base) = self.calls.get(rng.random_range(0..self.calls.len().max(1))) else {
            return Vec::new();
        };
        let mut args = base.clone();
        if args.is_empty() {
            return args;
        }
        for _ in 0..rng.random_range(1..=2) {
            let i = rng.random_range(0..args.len());
            self.mutate_value(&mut args[i], rng, 0);
        }
        args
    }

    /// Whether every integer in `args` lies in the range the existing calls show (widened down
    /// to 1 when they show only positive ones, as [`super::inputs::InputModel::within_observed`]):
    /// arguments a task's own calls make likely lie within its constraints.
    pub fn within_observed(&self, args: &[Value]) -> bool {
        let lo = if self.int_lo >= 1 { 1 } else { self.int_lo };
        let mut stack: Vec<&Value> = args.iter().collect();
        while let Some(v) = stack.pop() {
            match v {
                Value::Int(i) if *i < lo || *i > self.int_hi => return false,
                Value::List(xs) | Value::Tuple(xs) => stack.extend(xs),
                Value::Dict(kv) => stack.extend(kv.iter().flat_map(|(k, v)| [k, v])),
                _ => {}
            }
        }
        true
    }

    fn mutate_value(&self, v: &mut Value, rng: &mut impl Rng, depth: usize) {
        match v {
            Value::Int(i) => {
                let step = (i.unsigned_abs() / 2).clamp(1, 1 << 20) as i64;
                *i = match rng.random_range(0..7) {
                    0 => i.saturating_add(1),
                    1 => i.saturating_sub(1),
                    2 => i.saturating_add(rng.random_range(1..=step)),
                    3 => 0,
                    4 => i.saturating_neg(),
                    _ => rng.random_range(self.int_lo..=self.int_hi),
                };
            }
            Value::Float(f) => {
                *f = match rng.random_range(0..4) {
                    0 => *f + 1.0,
                    1 => *f - 1.0,
                    2 => 0.0,
                    _ => *f * rng.random_range(0.5..1.5),
                };
            }
            Value::Str(s) => {
                let mut chars: Vec<char> = s.chars().collect();
                let alphabet = if self.alphabet.is_empty() {
                    vec!['a']
                } else {
                    self.alphabet.clone()
                };
                let pick = alphabet[rng.random_range(0..alphabet.len())];
                match rng.random_range(0..5) {
                    0 if !chars.is_empty() => {
                        let i = rng.random_range(0..chars.len());
                        chars[i] = pick;
                    }
                    1 if !chars.is_empty() => {
                        chars.remove(rng.random_range(0..chars.len()));
                    }
                    2 if chars.len() >= 2 => chars.shuffle(rng),
                    3 => chars.clear(),
                    _ => {
                        let i = rng.random_range(0..=chars.len());
                        chars.insert(i, pick);
                    }
                }
                *s = chars.into_iter().collect();
            }
            Value::Bool(b) => *b = !*b,
            Value::List(xs) | Value::Tuple(xs) => {
                if xs.is_empty() || depth > 3 {
                    return;
                }
                match rng.random_range(0..6) {
                    0 => {
                        xs.remove(rng.random_range(0..xs.len()));
                    }
                    1 => {
                        let mut x = xs[rng.random_range(0..xs.len())].clone();
                        self.mutate_value(&mut x, rng, depth + 1);
                        let at = rng.random_range(0..=xs.len());
                        xs.insert(at, x);
                    }
                    2 => xs.reverse(),
                    3 => xs.shuffle(rng),
                    _ => {
                        let i = rng.random_range(0..xs.len());
                        self.mutate_value(&mut xs[i], rng, depth + 1);
                    }
                }
            }
            Value::Dict(kv) => {
                if kv.is_empty() || depth > 3 {
                    return;
                }
                let i = rng.random_range(0..kv.len());
                if rng.random_bool(0.3) {
                    kv.remove(i);
                } else {
                    self.mutate_value(&mut kv[i].1, rng, depth + 1);
                }
            }
            Value::None | Value::Raw(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const TEST: &str = "def check(candidate):\n    assert candidate([1, 2, 3], 2) == 5\n    assert candidate([], -1) == 0\n    assert candidate(list(range(3)), 1) == 2\n    assert abs(candidate([0.5, 'a b', (1,), {'k': None}], 0) - 1) < 1e-6\n\ncheck(f)\n";

    #[test]
    fn reads_only_literal_calls_and_renders_them_back() {
        let m = CallModel::of(TEST, "f").unwrap();
        let mut calls = m.existing();
        calls.sort();
        assert_eq!(
            calls,
            vec![
                "print(repr(f([0.5, 'a b', (1,), {'k': None}], 0)))",
                "print(repr(f([1, 2, 3], 2)))",
                "print(repr(f([], -1)))",
            ]
        );
        assert!(CallModel::of("assert g(1) == 2\n", "f").is_none());
    }

    #[test]
    fn mutated_calls_parse_and_are_seeded() {
        let m = CallModel::of(TEST, "f").unwrap();
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..50).map(|_| m.mutate(&mut rng)).collect::<Vec<_>>()
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        for c in &a {
            assert!(crate::program::validate(c).is_ok(), "{c}");
            assert!(c.starts_with("print(repr(f("), "{c}");
        }
    }

    #[test]
    fn docstring_examples_and_example_lines_are_stated_calls() {
        let src = "def f(xs, k):\n    \"\"\"Sum.\n    >>> f([1, 2], 3)\n    6\n    >>> f([], 0)\n\n    >>> f([1], 2)\n    [1, 2]\n    f([0.5], 1) ==> 1.5\n    f('a', 2) \u{279e} 'aa'.\n    For xs = [1] the output should be 1\n    >>> g(1)\n    2\n    \"\"\"\n";
        let got = stated_calls(src, "f");
        let shown: Vec<(String, String)> = got
            .iter()
            .map(|s| {
                let args: Vec<String> = s.args.iter().map(Value::render).collect();
                (args.join(", "), s.expected.render())
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                ("[1, 2], 3".to_string(), "6".to_string()),
                ("[1], 2".to_string(), "[1, 2]".to_string()),
                ("[0.5], 1".to_string(), "1.5".to_string()),
                ("'a', 2".to_string(), "'aa'".to_string()),
            ],
            "a prompt without a value, prose and other functions' examples are skipped"
        );
        assert!(stated_calls("def f(x) -> int:\n    return x\n", "f").is_empty());
    }

    #[test]
    fn arguments_named_in_the_text_seed_calls() {
        let src = "def f(lst, k: int = 2):\n    \"\"\"\n    For lst = [1,2,3], k = 4 the output should be 14\n    Input: lst = [5], k=-1\n    For lst = [1] alone\n    \"\"\"\n";
        let got: Vec<String> = named_arguments(src, "f")
            .iter()
            .map(|a| a.iter().map(Value::render).collect::<Vec<_>>().join(", "))
            .collect();
        assert_eq!(got, vec!["[1, 2, 3], 4", "[5], -1"]);
        assert!(named_arguments("def f(*xs):\n    \"x = 1\"\n", "f").is_empty());
    }

    #[test]
    fn input_and_output_examples_are_stated_calls() {
        // HumanEval/68's form: one parameter, `Input:` then `Output:` after a blank line.
        let one = "def pluck(arr):\n    \"\"\"\n    Example 1:\n        Input: [4,2,3]\n        Output: [2, 1]\n        Explanation: 2 is smallest.\n\n    Example 2:\n        Input: []\n        Output: []\n    \"\"\"\n";
        // One-argument stated calls as (argument, value), rendered.
        let rendered = |source: &str, entry: &str| -> Vec<(String, String)> {
            stated_calls(source, entry)
                .iter()
                .map(|s| (s.args[0].render(), s.expected.render()))
                .collect()
        };
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            rendered(one, "pluck"),
            vec![pair("[4, 2, 3]", "[2, 1]"), pair("[]", "[]")]
        );
        // HumanEval/115's form: parameters named with `:` over several lines.
        let two = "def max_fill(grid, capacity):\n    \"\"\"\n    Input: \n        grid : [[0,1], [1,1]]\n        bucket_capacity : 1\n    Output: 3\n\n    Input:\n        grid : [[0,0]]\n\n        capacity : 5\n    Output: 0\n    \"\"\"\n";
        let got = stated_calls(two, "max_fill");
        assert_eq!(
            got.len(),
            1,
            "a blank line splits the second example: {got:?}"
        );
        let args: Vec<String> = got[0].args.iter().map(Value::render).collect();
        assert_eq!(args, vec!["[[0, 1], [1, 1]]", "1"]);
        assert_eq!(got[0].expected, Value::Int(3));
        // HumanEval/108's form: the prompt states its value itself.
        let inline = "def f(arr):\n    \"\"\"\n    >>> f([]) == 0\n    >>> f([-1, 11]) == None\n    \"\"\"\n";
        assert_eq!(
            rendered(inline, "f"),
            vec![pair("[]", "0"), pair("[-1, 11]", "None")]
        );
    }

    #[test]
    fn printed_values_are_compared_as_values() {
        assert!(shows("1.0000000001\n", &Value::Float(1.0)));
        assert!(shows("2\n", &Value::Float(2.0)));
        assert!(shows("\"it\"\n", &Value::Str("it".into())));
        assert!(shows(
            "[1, (2, 3)]\n",
            &Value::List(vec![
                Value::Int(1),
                Value::Tuple(vec![Value::Int(2), Value::Int(3)])
            ])
        ));
        assert!(!shows(
            "[1, 2]\n",
            &Value::List(vec![Value::Int(2), Value::Int(1)])
        ));
        assert!(!shows("1.1\n", &Value::Float(1.0)));
        assert!(!shows("oops\n", &Value::Int(1)));
    }

    #[test]
    fn strings_are_escaped() {
        let v = Value::Str("it's\\\n".into());
        assert_eq!(v.render(), "'it\\'s\\\\\\n'");
    }
}
