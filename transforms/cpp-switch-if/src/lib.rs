//! ## What it does
//! Rewrites a C++ `switch` statement whose case groups never fall through as an `if`/`else if`
//! chain: each group's labels become `e == label` tests joined with `||`, and `default`
//! becomes the final `else`, wherever it stands in the switch.
//!
//! ## Why it preserves semantics
//! A switch evaluates its condition `e` once and runs the group whose label equals it. A pure
//! `e` (names, literals, member and subscript reads, arithmetic) gives the same value however
//! often it is read, and nothing runs between the tests, so the chain reads it again in each
//! test; any other `e` is evaluated once into a fresh `const auto` in a block of its own.
//!
//! The tests agree with the matching: the switch promotes `e` (type `P`) and converts each
//! label to `P`, while `==` applies the usual arithmetic conversions. For a label whose type
//! is no wider than `int` (an integer literal that fits in `int`, a character literal, an
//! enumerator of an enum whose values are small or whose type is at most `int`, a `const int`)
//! both end up comparing the same two values; an enum class compares with its own enumerators
//! in both forms. Wider labels are declined: with `-w`, GCC accepts `case -1LL:` for an
//! `unsigned` switch, which matches `UINT_MAX` where `u == -1LL` never holds. Programs with a
//! conversion function or their own `operator==` are declined, so `==` is the built-in one.
//!
//! Every group ends in `break` (dropped), `return`, `continue` or `throw`, except that the last
//! one may run off the end of the switch, so no group runs into the next and their order does
//! not matter. A `break` anywhere else would leave the switch early, so a group holding one
//! (outside a nested loop or switch, whose breaks are theirs) is declined; `continue`, `return`
//! and `throw` mean the same in a branch. Each branch is a block of its own where the switch
//! shares one scope among its groups: a group whose top-level declaration is named in another
//! group is declined (a group braced as a whole keeps its names to itself).
//!
//! ## Example
//! ```cpp
//! switch (op) {
//!     case '+': r = a + b; break;
//!     case '-': case '_': r = a - b; break;
//!     default: r = 0;
//! }
//! switch (next()) {
//!     case 1: n++; break;
//!     case 2: n--; break;
//! }
//! ```
//! becomes
//! ```cpp
//! if (op == '+') {
//!     r = a + b;
//! } else if (op == '-' || op == '_') {
//!     r = a - b;
//! } else {
//!     r = 0;
//! }
//! {
//!     const auto sw = next();
//!     if (sw == 1) {
//!         n++;
//!     } else if (sw == 2) {
//!         n--;
//!     }
//! }
//! ```
//!
//! ## Not applied when
//! - a group with statements falls through into the next one (`[[fallthrough]]` or none), or a
//!   group holds a `break` of the switch before its end (say, inside an `if`);
//! - a label is not a small literal, a character, an enumerator or a `const int` (see above);
//!   a GNU range (`case 1 ... 5:`) does not even parse, so its program is never rewritten;
//! - the switch holds a label or a `goto`, a `case` nested in a statement of a group, an
//!   attribute, a type declaration in a group, or a declaration another group names;
//! - the switch has no `case`, declares in its condition (`switch (int k = f())`,
//!   `switch (init; e)`), uses a macro or lies in code a preprocessor conditional guards;
//! - the program holds a raw string or a backslash continuation (lines are re-indented), a
//!   conversion function or an `operator==`, or mentions `volatile` or `atomic`.

use sdk::cpp::{
    contains_kind, fresh_names, has_continuation, has_raw_string, in_conditional, is_loop, is_pure,
    is_statement, mentions_any, shift_lines, CppParsed,
};
use sdk::parse::{descendants, named_children};
use sdk::text::starts_line;
use sdk::{Edits, Rng};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-switch-if",
    description: "Rewrites C++ switch statements as if/else-if chains",
    category: "control-flow",
    rewrite: rewrite,
}

/// Node kinds whose presence inside a switch makes it unsafe to restructure.
const FORBIDDEN: &[&str] = &[
    "labeled_statement",
    "goto_statement",
    "attributed_statement",
    "attribute_declaration",
    "attribute_specifier",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_def",
    "preproc_function_def",
    "preproc_call",
    "preproc_include",
];

/// One run of case labels and the statements they select.
struct Group<'t> {
    labels: Vec<Node<'t>>,
    default: bool,
    /// What the branch holds: the group's statements and comments, its ending `break` (and
    /// what follows) left out, a group braced as a whole unwrapped.
    items: Vec<Node<'t>>,
    /// The statements directly under the labels (for the scope check).
    top: Vec<Node<'t>>,
    /// The bytes of the group's case statements.
    span: Range<usize>,
}

/// A switch to rewrite.
struct Site<'t> {
    switch: Node<'t>,
    value: Node<'t>,
    pure: bool,
    /// Each tested branch: its labels and its items.
    branches: Vec<(Vec<Node<'t>>, Vec<Node<'t>>)>,
    /// The `default` group's items, when it does something.
    otherwise: Option<Vec<Node<'t>>>,
}

fn is_terminal(kind: &str) -> bool {
    matches!(
        kind,
        "break_statement" | "return_statement" | "continue_statement" | "throw_statement"
    )
}

/// The items a group keeps once its ending `break` is dropped; `None` when it may fall
/// through (`must_end`: it is not the last group of the switch).
fn strip_end<'t>(items: Vec<Node<'t>>, must_end: bool) -> Option<Vec<Node<'t>>> {
    let stmts: Vec<Node<'t>> = items
        .iter()
        .copied()
        .filter(|n| n.kind() != "comment")
        .collect();
    if let Some(last) = stmts.last() {
        if last.kind() == "break_statement" {
            let cut = items.iter().position(|n| n.id() == last.id())?;
            return Some(items[..cut].to_vec());
        }
        if is_terminal(last.kind()) {
            return Some(items);
        }
        // `case 1: { ...; break; }`: the break inside the braces ends the group.
        if last.kind() == "compound_statement" && items.len() == 1 {
            return strip_end(named_children(*last), must_end);
        }
    }
    (!must_end).then_some(items)
}

/// The groups of a switch body, empty labels merged into the next group; `None` when the body
/// is not a plain run of case statements without fall-through.
fn groups<'t>(body: Node<'t>) -> Option<Vec<Group<'t>>> {
    let cases: Vec<Node<'t>> = named_children(body)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    if cases.iter().any(|c| c.kind() != "case_statement") {
        return None;
    }
    let mut out = Vec::new();
    let (mut labels, mut default, mut start) = (Vec::new(), false, None);
    for (i, c) in cases.iter().enumerate() {
        let last_case = i + 1 == cases.len();
        start.get_or_insert(c.start_byte());
        let value = c.child_by_field_name("value");
        match value {
            Some(v) => labels.push(v),
            None if c.child(0).is_some_and(|k| k.kind() == "default") => default = true,
            None => return None,
        }
        let items: Vec<Node<'t>> = named_children(*c)
            .into_iter()
            .filter(|k| value.is_none_or(|v| v.id() != k.id()))
            .collect();
        if items
            .iter()
            .any(|k| k.kind() != "comment" && !is_statement(k.kind()))
        {
            return None;
        }
        let top: Vec<Node<'t>> = items
            .iter()
            .copied()
            .filter(|k| k.kind() != "comment")
            .collect();
        if top.is_empty() && !last_case {
            continue; // `case 2: case 3:` share the next group
        }
        let mut kept = if top.is_empty() {
            Vec::new()
        } else {
            strip_end(items, !last_case)?
        };
        // `case 2: { ... } break;`: the braces become the branch's own.
        if let [only] = kept.as_slice() {
            if only.kind() == "compound_statement" {
                kept = named_children(*only);
            }
        }
        out.push(Group {
            labels: std::mem::take(&mut labels),
            default: std::mem::replace(&mut default, false),
            items: kept,
            top,
            span: start.take().unwrap_or(c.start_byte())..c.end_byte(),
        });
    }
    Some(out)
}

/// Whether `brk` would leave `switch` (rather than a loop or switch nested in it).
fn targets(switch: Node<'_>, brk: Node<'_>) -> bool {
    let mut cur = brk.parent();
    while let Some(n) = cur {
        if n.id() == switch.id() {
            return true;
        }
        if is_loop(n.kind()) || matches!(n.kind(), "switch_statement" | "lambda_expression") {
            return false;
        }
        cur = n.parent();
    }
    false
}

/// The magnitude of an integer literal and whether it is `unsigned`; `None` for a floating
/// literal or a `long` one (`l`, `ll`, `z` suffixes). tree-sitter reads `-1` as one literal;
/// the sign leaves its type as the magnitude's (`-2147483648` is a `long`).
fn literal_value(text: &str) -> Option<(u64, bool)> {
    let t: String = text
        .trim_start_matches(['-', '+'])
        .trim_start()
        .chars()
        .filter(|c| *c != '\'')
        .collect::<String>()
        .to_ascii_lowercase();
    let body = t.trim_end_matches('u');
    let unsigned = body.len() != t.len();
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    u64::from_str_radix(digits, radix)
        .ok()
        .map(|v| (v, unsigned))
}

/// Whether an integer literal's type is `int` or `unsigned`.
fn int_sized_literal(text: &str) -> bool {
    literal_value(text)
        .is_some_and(|(v, unsigned)| v <= i32::MAX as u64 || (unsigned && v <= u64::from(u32::MAX)))
}

/// Whether a type, as written, is an integer type no wider than `int`.
fn int_rank_type(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            matches!(
                *w,
                "int"
                    | "unsigned"
                    | "signed"
                    | "short"
                    | "char"
                    | "bool"
                    | "wchar_t"
                    | "char8_t"
                    | "char16_t"
                    | "char32_t"
            )
        })
}

/// Whether the enumerators of `spec` have a type no wider than `int` (scoped enums compare
/// only with their own enumerators, so any base does).
fn enum_ok(p: &CppParsed, spec: Node<'_>) -> bool {
    let mut c = spec.walk();
    if spec
        .children(&mut c)
        .any(|k| matches!(k.kind(), "class" | "struct"))
    {
        return true;
    }
    if let Some(base) = spec.child_by_field_name("base") {
        return int_rank_type(p.text(base));
    }
    let Some(list) = spec.child_by_field_name("body") else {
        return false;
    };
    named_children(list)
        .into_iter()
        .filter(|e| e.kind() == "enumerator")
        .all(|e| match e.child_by_field_name("value") {
            None => true,
            Some(v) => {
                let v = match v.kind() {
                    "unary_expression" => v.child_by_field_name("argument").unwrap_or(v),
                    _ => v,
                };
                v.kind() == "char_literal"
                    || (v.kind() == "number_literal"
                        && literal_value(p.text(v)).is_some_and(|(n, _)| n <= 1 << 30))
            }
        })
}

/// For each name the program declares: whether every declaration makes it a constant fit to
/// be a label (an enumerator, see [`enum_ok`], or a `const`/`constexpr` integer no wider than
/// `int`).
fn label_names(p: &CppParsed) -> BTreeMap<String, bool> {
    let mut names: BTreeMap<String, bool> = BTreeMap::new();
    let mut note = |name: &str, ok: bool| {
        *names.entry(name.to_string()).or_insert(ok) &= ok;
    };
    for n in p.nodes() {
        match n.kind() {
            "enumerator" => {
                let spec = n.parent().and_then(|l| l.parent());
                if let Some(name) = n.child_by_field_name("name") {
                    note(p.text(name), spec.is_some_and(|s| enum_ok(p, s)));
                }
            }
            "declaration"
            | "field_declaration"
            | "parameter_declaration"
            | "optional_parameter_declaration"
            | "function_definition" => {
                let constant = n.kind() == "declaration"
                    && named_children(n).iter().any(|q| {
                        matches!(q.kind(), "type_qualifier" | "storage_class_specifier")
                            && matches!(p.text(*q), "const" | "constexpr")
                    })
                    && n.child_by_field_name("type")
                        .is_some_and(|t| int_rank_type(p.text(t)));
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    let plain = d.kind() == "init_declarator"
                        && d.child_by_field_name("declarator")
                            .is_some_and(|x| x.kind() == "identifier");
                    let mut cur = d;
                    while let Some(inner) = cur.child_by_field_name("declarator") {
                        cur = inner;
                    }
                    if matches!(cur.kind(), "identifier" | "field_identifier") {
                        note(p.text(cur), constant && plain);
                    }
                }
            }
            _ => {}
        }
    }
    names
}

/// Whether comparing with `label` by `==` agrees with switch matching (see the crate docs).
fn label_ok(p: &CppParsed, names: &BTreeMap<String, bool>, label: Node<'_>) -> bool {
    match label.kind() {
        "number_literal" => int_sized_literal(p.text(label)),
        "char_literal" => true,
        "unary_expression" => {
            let op = label.child_by_field_name("operator").map(|o| p.text(o));
            let arg = label.child_by_field_name("argument");
            matches!(op, Some("-" | "+"))
                && arg.is_some_and(|a| a.kind() == "number_literal" && int_sized_literal(p.text(a)))
        }
        "identifier" => names.get(p.text(label)) == Some(&true),
        "qualified_identifier" => {
            let mut cur = label;
            while let Some(name) = cur.child_by_field_name("name") {
                cur = name;
            }
            cur.kind() == "identifier" && names.get(p.text(cur)) == Some(&true)
        }
        "parenthesized_expression" => label
            .named_child(0)
            .is_some_and(|inner| label_ok(p, names, inner)),
        _ => false,
    }
}

/// The names a declaration declares (with any name in an array bound: more cautious).
fn declared<'s>(p: &'s CppParsed, decl: Node<'_>) -> BTreeSet<&'s str> {
    let mut out = BTreeSet::new();
    let mut c = decl.walk();
    for d in decl.children_by_field_name("declarator", &mut c) {
        let d = match d.kind() {
            "init_declarator" => d.child_by_field_name("declarator").unwrap_or(d),
            _ => d,
        };
        for id in descendants(d) {
            if id.kind() == "identifier" {
                out.insert(p.text(id));
            }
        }
    }
    out
}

/// The switch as a site, or `None` when it is not one (see "Not applied when").
fn site<'t>(p: &CppParsed, names: &BTreeMap<String, bool>, sw: Node<'t>) -> Option<Site<'t>> {
    if in_conditional(sw) || p.uses_macro(sw) || contains_kind(sw, FORBIDDEN) {
        return None;
    }
    let clause = sw.child_by_field_name("condition")?;
    let value = clause.child_by_field_name("value")?;
    if clause.child_by_field_name("initializer").is_some()
        || matches!(value.kind(), "declaration" | "comma_expression")
    {
        return None;
    }
    let body = sw.child_by_field_name("body")?;
    // Every `case` must sit directly in a switch body (no Duff's device).
    let in_switch_body = |c: Node<'_>| {
        c.parent()
            .and_then(|b| b.parent())
            .is_some_and(|s| s.kind() == "switch_statement")
    };
    let nested_case = descendants(body)
        .into_iter()
        .any(|d| d.kind() == "case_statement" && !in_switch_body(d));
    if nested_case {
        return None;
    }
    let gs = groups(body)?;
    if !gs.iter().any(|g| !g.default) {
        return None; // no `case`
    }
    for g in &gs {
        if !g.labels.iter().all(|l| label_ok(p, names, *l)) {
            return None;
        }
        let early_break = g
            .items
            .iter()
            .flat_map(|it| descendants(*it))
            .any(|d| d.kind() == "break_statement" && targets(sw, d));
        if early_break {
            return None;
        }
        for s in &g.top {
            match s.kind() {
                "declaration" => {
                    let types = [
                        "class_specifier",
                        "struct_specifier",
                        "union_specifier",
                        "enum_specifier",
                    ];
                    if contains_kind(*s, &types) {
                        return None;
                    }
                    let own = declared(p, *s);
                    let used_elsewhere = descendants(body).into_iter().any(|d| {
                        d.kind() == "identifier"
                            && !g.span.contains(&d.start_byte())
                            && own.contains(p.text(d))
                    });
                    if used_elsewhere {
                        return None;
                    }
                }
                k if !is_statement(k) || k.ends_with("declaration") || k == "type_definition" => {
                    return None;
                }
                _ => {}
            }
        }
    }
    let otherwise = gs
        .iter()
        .find(|g| g.default)
        .map(|g| g.items.clone())
        .filter(|items| !items.is_empty());
    // Without a `default` that does something, a group that does nothing needs no test.
    let branches: Vec<_> = gs
        .iter()
        .filter(|g| !g.default && (otherwise.is_some() || !g.items.is_empty()))
        .map(|g| (g.labels.clone(), g.items.clone()))
        .collect();
    if branches.is_empty() {
        return None;
    }
    Some(Site {
        switch: sw,
        value,
        pure: is_pure(p, value),
        branches,
        otherwise,
    })
}

/// `e` as the left operand of `==`: in parentheses unless it binds tighter.
fn operand(p: &CppParsed, e: Node<'_>) -> String {
    let tight = match e.kind() {
        "identifier"
        | "qualified_identifier"
        | "field_expression"
        | "subscript_expression"
        | "parenthesized_expression"
        | "pointer_expression"
        | "number_literal"
        | "char_literal" => true,
        "binary_expression" => e
            .child_by_field_name("operator")
            .is_some_and(|o| matches!(p.text(o), "*" | "/" | "%" | "+" | "-" | "<<" | ">>")),
        _ => false,
    };
    let t = p.text(e);
    if tight && !t.contains('\n') {
        t.to_string()
    } else {
        format!("({t})")
    }
}

/// Items as text whose lines after the first are moved to indentation `to`.
fn body_text(p: &CppParsed, items: &[Node<'_>], to: &str) -> String {
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return String::new();
    };
    let text = &p.source[first.start_byte()..last.end_byte()];
    let from = items
        .iter()
        .find(|n| starts_line(&p.source, n.start_byte()))
        .map_or("", |n| p.indent_of(*n));
    shift_lines(text, from, to)
}

/// How the chain is laid out.
struct Layout {
    braces: bool,
    /// The switch stood on one line: so does the chain.
    one_line: bool,
    unit: String,
}

impl Layout {
    /// What starts a new line at indentation `ind`.
    fn nl(&self, ind: &str) -> String {
        if self.one_line {
            " ".to_string()
        } else {
            format!("\n{ind}")
        }
    }
}

/// Whether a branch may go without braces: one simple statement on one line.
fn simple(p: &CppParsed, items: &[Node<'_>]) -> bool {
    match items {
        [only] => {
            matches!(
                only.kind(),
                "expression_statement"
                    | "return_statement"
                    | "continue_statement"
                    | "throw_statement"
            ) && only.named_child_count() > 0
                && !p.text(*only).contains('\n')
        }
        _ => false,
    }
}

/// The if chain of a site, its first line where the switch stood and the others at `b`.
fn chain(p: &CppParsed, s: &Site<'_>, sel: &str, b: &str, layout: &Layout) -> String {
    let bb = format!("{b}{}", layout.unit);
    let body = |items: &[Node<'_>]| format!("{}{}", layout.nl(&bb), body_text(p, items, &bb));
    let mut out = String::new();
    for (k, (labels, items)) in s.branches.iter().enumerate() {
        let test = labels
            .iter()
            .map(|l| format!("{sel} == {}", p.text(*l)))
            .collect::<Vec<_>>()
            .join(" || ");
        if k > 0 {
            out.push_str(&if layout.braces {
                " ".into()
            } else {
                layout.nl(b)
            });
            out.push_str("else ");
        }
        out.push_str(&format!("if ({test})"));
        if layout.braces {
            out.push_str(" {");
            if !items.is_empty() {
                out.push_str(&body(items));
            }
            out.push_str(&format!("{}}}", layout.nl(b)));
        } else {
            out.push_str(&body(items));
        }
    }
    if let Some(items) = &s.otherwise {
        if layout.braces {
            out.push_str(&format!(" else {{{}{}}}", body(items), layout.nl(b)));
        } else {
            out.push_str(&format!("{}else{}", layout.nl(b), body(items)));
        }
    }
    out
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    // Lines are re-indented; a user conversion or `operator==` could make `==` differ from
    // switch matching; volatile or atomic reads are not the same read twice.
    let own_equality = p.nodes().into_iter().any(|n| {
        n.kind() == "operator_cast"
            || (n.kind() == "operator_name"
                && p.text(n).split_whitespace().collect::<String>() == "operator==")
    });
    if has_raw_string(p)
        || has_continuation(p)
        || own_equality
        || mentions_any(p, &["volatile", "atomic"])
    {
        return edits;
    }
    let names = label_names(p);
    let sites: Vec<Site<'_>> = p
        .nodes_of_kind("switch_statement")
        .into_iter()
        .filter_map(|sw| site(p, &names, sw))
        .collect();
    let mut fresh = fresh_names(p);
    // Bindings never nest (rewritten switches do not overlap), so one fresh name serves all.
    let mut bound: Option<String> = None;
    let unit = p.indent_unit();
    for i in rng.sites(sites.len(), 0.5) {
        let s = &sites[i];
        if edits.overlaps(&s.switch.byte_range()) {
            continue;
        }
        let all_simple = s.branches.iter().all(|(_, items)| simple(p, items))
            && s.otherwise.as_ref().is_none_or(|items| simple(p, items));
        let layout = Layout {
            braces: !(all_simple && rng.chance(0.5)),
            one_line: !p.text(s.switch).contains('\n'),
            unit: unit.clone(),
        };
        let ind = p.indent_of(s.switch).to_string();
        // A chain without a final `else` must not capture an enclosing `if`'s `else`.
        let wrap = !s.pure
            || !s.switch.parent().is_some_and(|q| {
                matches!(
                    q.kind(),
                    "compound_statement" | "case_statement" | "else_clause"
                )
            });
        let out = if wrap {
            let inner = format!("{ind}{unit}");
            let (bind, sel) = if s.pure {
                (String::new(), operand(p, s.value))
            } else {
                let name = bound
                    .get_or_insert_with(|| fresh.fresh(rng, Some("sw")))
                    .clone();
                let bind = format!(
                    "const auto {name} = {};{}",
                    p.text(s.value),
                    layout.nl(&inner)
                );
                (bind, name)
            };
            let c = chain(p, s, &sel, &inner, &layout);
            format!("{{{}{bind}{c}{}}}", layout.nl(&inner), layout.nl(&ind))
        } else {
            chain(p, s, &operand(p, s.value), &ind, &layout)
        };
        edits.replace(s.switch.byte_range(), out);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn unsafe_switches_are_declined() {
        let wrap = |body: &str| {
            format!("#include <cstdio>\nint f() {{ return 2; }}\nint main() {{\n    int k = 1, r = 0;\n{body}\n    printf(\"%d\\n\", r);\n}}\n")
        };
        let sources = [
            // A group with statements falls through into the next.
            "    switch (k) {\n    case 1: r = 1;\n    case 2: r += 2; break;\n    }",
            // A break inside an `if` leaves the switch early.
            "    switch (k) {\n    case 1: if (r == 0) break; r = 1; break;\n    default: r = 2;\n    }",
            // `t` is declared in one group and used in another.
            "    switch (k) {\n    case 1: int t; t = 1; r = t; break;\n    case 2: t = 2; r = t; break;\n    }",
            // Explicit fall-through.
            "    switch (k) {\n    case 1: r = 1; [[fallthrough]];\n    case 2: r += 2; break;\n    }",
            // A label and a goto.
            "    switch (k) {\n    case 1: goto out;\n    case 2: r = 2; break;\n    }\n    out: r++;",
            // A label wider than `int`.
            "    switch (k) {\n    case 1LL: r = 1; break;\n    default: r = 2;\n    }",
            // A declaration in the condition; only a default.
            "    switch (int q = f()) {\n    case 2: r = q; break;\n    }\n    switch (k) {\n    default: r = 5;\n    }",
            // Duff's device: a case inside a loop of a group.
            "    switch (k) {\n    case 0: do { r++;\n    case 1: r += 2; } while (r < 5); break;\n    }",
        ];
        let programs: Vec<String> = sources.iter().map(|b| wrap(b)).collect();
        let mut all: Vec<&str> = programs.iter().map(String::as_str).collect();
        let with_macro = "#include <cstdio>\n#define ONE 1\nint main() { int k = 1, r = 0; switch (k) { case ONE: r = 1; break; default: r = 2; } printf(\"%d\\n\", r); }\n";
        let guarded = "#include <cstdio>\nint main() { int k = 1, r = 0;\n#ifdef LOCAL\n switch (k) { case 1: r = 1; break; }\n#endif\n printf(\"%d\\n\", r); }\n";
        let own_eq = "#include <cstdio>\nenum E { A, B };\nbool operator==(E, int) { return true; }\nint main() { E e = B; int r = 0; switch (e) { case A: r = 1; break; default: r = 2; } printf(\"%d\\n\", r); }\n";
        let wide_enum = "#include <cstdio>\nenum Big : long long { P = 1 };\nint main() { int k = 1, r = 0; switch (k) { case P: r = 1; break; case -2147483648: r = 3; break; } printf(\"%d\\n\", r); }\n";
        all.extend([with_macro, guarded, own_eq, wide_enum]);
        sdk::testing::assert_declines(apply, &all, 8);
    }
}
