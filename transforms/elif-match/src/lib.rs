//! # elif-match
//!
//! ## What it does
//! Converts between an `if`/`elif` chain that compares one local variable with literals and a
//! `match` statement over that variable, both ways: `if x == 1:` / `elif x == 2 or x == 3:` /
//! `else:` ↔ `case 1:` / `case 2 | 3:` / `case _:`. Guards (`case 1 if g:`) and `None`,
//! `True`, `False` patterns are handled when going back from `match`.
//!
//! ## Why it preserves semantics
//! A literal pattern succeeds when `subject == literal` is true, the very comparison (same
//! operand order, same truth test) the `if` makes; `None`, `True` and `False` patterns compare
//! with `is`, so those become `is` tests. Alternatives `A | B` are tried left to right like
//! `x == A or x == B`, cases top to bottom like the chain, and a guard is tested only after its
//! pattern matched, like `and`. The subject is evaluated once by `match` and once per test by
//! the chain: it must be a plain local variable (never `global`/`nonlocal`, not read by
//! closures), which a comparison cannot rebind. Literal patterns bind nothing.
//!
//! ## Example
//! ```python
//! if op == "+":
//!     r = a + b
//! elif op == "-" or op == "~":
//!     r = a - b
//! else:
//!     r = None
//! ```
//! becomes
//! ```python
//! match op:
//!     case "+":
//!         r = a + b
//!     case "-" | "~":
//!         r = a - b
//!     case _:
//!         r = None
//! ```
//!
//! ## Not applied when
//! - a test is not `name == literal` (or an `or` of them) on the same variable, or compares
//!   with `True`, `False`, `None`, an f-string or an expression;
//! - the variable is not a plain local of a function;
//! - a comment sits between the clauses, a body sits on its header's line, or the chain has
//!   fewer than two tests;
//! - going back: a pattern captures, destructures or is a value other than a literal.

use sdk::parse::{alternatives, children, named_children, Parsed};
use sdk::scope::{ScopeInfo, ScopeKind};
use sdk::text::{block_text, indent_unit, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "elif-match",
    description: "Convert between if/elif chains over one variable and match statements",
    category: "control-flow",
    rewrite: rewrite,
);

fn is_literal(parsed: &Parsed, n: Node<'_>) -> bool {
    match n.kind() {
        "integer" | "float" => true,
        "string" => {
            let t = parsed.text(n);
            !t.starts_with(['f', 'F'])
                && !t[..t.find(['\'', '"']).unwrap_or(0)]
                    .to_ascii_lowercase()
                    .contains('f')
                && !children(n).iter().any(|c| c.kind() == "interpolation")
        }
        "unary_operator" => {
            parsed.text(n).starts_with('-')
                && n.child_by_field_name("argument")
                    .is_some_and(|a| matches!(a.kind(), "integer" | "float"))
        }
        _ => false,
    }
}

/// The literals of `x == A or x == B …` for subject text `x`.
fn tests<'t>(
    parsed: &Parsed,
    cond: Node<'t>,
    subject: &mut Option<String>,
) -> Option<Vec<Node<'t>>> {
    match cond.kind() {
        "boolean_operator" => {
            let op = cond.child_by_field_name("operator")?;
            if parsed.text(op) != "or" {
                return None;
            }
            let mut a = tests(parsed, cond.child_by_field_name("left")?, subject)?;
            a.extend(tests(parsed, cond.child_by_field_name("right")?, subject)?);
            Some(a)
        }
        "comparison_operator" => {
            let kids = named_children(cond);
            let [l, r] = kids.as_slice() else { return None };
            let between = &parsed.source[l.end_byte()..r.start_byte()];
            if between.trim() != "==" || l.kind() != "identifier" || !is_literal(parsed, *r) {
                return None;
            }
            let name = parsed.text(*l).to_string();
            match subject {
                Some(s) if *s != name => None,
                _ => {
                    *subject = Some(name);
                    Some(vec![*r])
                }
            }
        }
        _ => None,
    }
}

/// Whether `name`, read at `at`, is a plain local of a function.
fn plain_local(info: &ScopeInfo, at: Node<'_>) -> bool {
    let Some(i) = info.occurrence_at(&at.byte_range()) else {
        return false;
    };
    let Some((s, name)) = info.binding_of(i) else {
        return false;
    };
    let scope = &info.scopes[*s];
    scope.kind == ScopeKind::Function
        && info.occurrences[i].scope == *s
        && !scope.globals.contains(name)
        && !scope.nonlocals.contains(name)
        && !info.escapes(*s).contains(name)
        && !info.dynamic_within(*s)
}

fn to_match(parsed: &Parsed, info: &ScopeInfo, stmt: Node<'_>, unit: &str) -> Option<String> {
    let src = parsed.source.as_str();
    if children(stmt).iter().any(|c| c.kind() == "comment") {
        return None;
    }
    let indent = line_indent(src, stmt.start_byte()).to_string();
    let mut subject = None;
    let mut arms: Vec<(String, Node<'_>)> = Vec::new();
    let mut first_test = None;
    let mut branches = vec![(
        stmt.child_by_field_name("condition")?,
        stmt.child_by_field_name("consequence")?,
    )];
    let mut else_body = None;
    for c in alternatives(stmt) {
        if children(c).iter().any(|k| k.kind() == "comment") {
            return None;
        }
        match c.kind() {
            "elif_clause" => branches.push((
                c.child_by_field_name("condition")?,
                c.child_by_field_name("consequence")?,
            )),
            _ => else_body = Some(c.child_by_field_name("body")?),
        }
    }
    if branches.len() < 2 {
        return None;
    }
    for (cond, body) in &branches {
        let lits = tests(parsed, *cond, &mut subject)?;
        if first_test.is_none() {
            first_test = named_children(*cond)
                .into_iter()
                .find(|n| n.kind() == "identifier")
                .or_else(|| {
                    named_children(*cond).first().and_then(|l| {
                        named_children(*l)
                            .into_iter()
                            .find(|n| n.kind() == "identifier")
                    })
                });
        }
        let pattern: Vec<&str> = lits.iter().map(|l| parsed.text(*l)).collect();
        arms.push((pattern.join(" | "), *body));
    }
    let at = first_test?;
    if !plain_local(info, at) {
        return None;
    }
    let inner = format!("{indent}{unit}{unit}");
    let mut out = format!("match {}:", subject?);
    for (pattern, body) in arms
        .iter()
        .map(|(p, b)| (p.as_str(), Some(*b)))
        .chain(else_body.map(|b| ("_", Some(b))))
    {
        let body = body?;
        if !starts_line(src, body.start_byte()) {
            return None;
        }
        out.push_str(&format!(
            "\n{indent}{unit}case {pattern}:\n{}",
            block_text(parsed, body, &inner)
        ));
    }
    Some(out)
}

fn to_chain(parsed: &Parsed, info: &ScopeInfo, stmt: Node<'_>) -> Option<String> {
    let src = parsed.source.as_str();
    let subject = stmt.child_by_field_name("subject")?;
    if subject.kind() != "identifier" || !plain_local(info, subject) {
        return None;
    }
    let x = parsed.text(subject);
    let body = stmt.child_by_field_name("body")?;
    if children(body).iter().any(|c| c.kind() == "comment") {
        return None;
    }
    let cases = alternatives(body);
    let indent = line_indent(src, stmt.start_byte()).to_string();
    let inner = line_indent(src, cases.first()?.start_byte()).to_string();
    let body_indent = format!("{indent}{}", &inner[indent.len().min(inner.len())..]);
    let mut out = String::new();
    for (i, case) in cases.iter().enumerate() {
        let pats: Vec<Node<'_>> = named_children(*case)
            .into_iter()
            .filter(|n| n.kind() == "case_pattern")
            .collect();
        let [pat] = pats.as_slice() else { return None };
        let guard = case
            .child_by_field_name("guard")
            .and_then(|g| named_children(g).into_iter().next());
        let cons = case.child_by_field_name("consequence")?;
        if !starts_line(src, cons.start_byte()) {
            return None;
        }
        let alts: Vec<Node<'_>> = match named_children(*pat).as_slice() {
            [] if parsed.text(*pat) == "_" => Vec::new(),
            [u] if u.kind() == "union_pattern" => named_children(*u),
            [one] => vec![*one],
            _ => return None,
        };
        let mut test: Vec<String> = Vec::new();
        for a in &alts {
            test.push(match a.kind() {
                "none" | "true" | "false" => format!("{x} is {}", parsed.text(*a)),
                "integer" | "float" | "string"
                    if is_literal(parsed, *a) || a.kind() == "integer" =>
                {
                    format!("{x} == {}", parsed.text(*a))
                }
                _ => return None,
            });
        }
        let mut cond = test.join(" or ");
        if let Some(g) = guard {
            cond = if cond.is_empty() {
                parsed.text(g).to_string()
            } else {
                format!("({cond}) and ({})", parsed.text(g))
            };
        }
        let keyword = if i == 0 { "if" } else { "elif" };
        let header = if cond.is_empty() {
            if i == 0 || i + 1 != cases.len() {
                return None;
            }
            format!("{indent}else:")
        } else {
            format!("{indent}{keyword} {cond}:")
        };
        let text = block_text(parsed, cons, &body_indent);
        out.push_str(&format!("{header}\n{text}\n"));
    }
    Some(out.trim_start().trim_end().to_string())
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let unit = indent_unit(parsed);
    let mut sites: Vec<(Node<'_>, String)> = Vec::new();
    for n in parsed.nodes() {
        let text = match n.kind() {
            "if_statement" => to_match(parsed, &info, n, &unit),
            "match_statement" => to_chain(parsed, &info, n),
            _ => None,
        };
        if let Some(t) = text {
            sites.push((n, t));
        }
    }
    let Some(i) = rng.site(sites.len()) else {
        return edits;
    };
    let (node, text) = &sites[i];
    edits.replace(node.byte_range(), text.clone());
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_globals_mixed_subjects_and_identity_literals() {
        sdk::testing::assert_declines(
            apply,
            &[
                "mode = 1\nif mode == 1:\n    a = 1\nelif mode == 2:\n    a = 2\n",
                "def f(x, y):\n    if x == 1:\n        return 1\n    elif y == 2:\n        return 2\n",
                "def f(x):\n    if x == True:\n        return 1\n    elif x == 2:\n        return 2\n",
                "def f(x):\n    if 1 == x:\n        return 1\n    elif x == 2:\n        return 2\n",
                "def f(x):\n    if x == 1:\n        return 1\n",
                "def f(x):\n    match x:\n        case [a, b]:\n            return a\n        case _:\n            return 0\n",
                "def f(x):\n    if x == 1:\n        return 1\n    # note\n    elif x == 2:\n        return 2\n",
            ],
            8,
        );
    }
}
