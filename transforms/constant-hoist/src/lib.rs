//! # constant-hoist
//!
//! ## What it does
//! Moves literals (integers, floats, strings, bytes) out of the code into named module-level
//! constants (CODA's constant-to-variable): the constant is defined just before the top-level
//! statement that uses it, and every chosen occurrence of the same literal reads it.
//!
//! ## Why it preserves semantics
//! These literals are immutable values: reading a name bound to one yields an equal object of
//! the same type (for strings and small numbers even the same object, since CPython shares a
//! module's constants). The name is new to the program (it collides with no identifier,
//! keyword, builtin or word in a string) and is bound before the statement that reads it
//! runs, so every read finds it, in functions called later as well. Identity tests on
//! literals (`x is 300`) are left alone.
//!
//! ## Example
//! ```python
//! def clamp(x):
//!     return min(x, 255)
//! ```
//! becomes
//! ```python
//! LIMIT = 255
//! def clamp(x):
//!     return min(x, LIMIT)
//! ```
//!
//! ## Not applied when
//! - the literal is in a `match` pattern, an annotation, an f-string format specification or
//!   self-documenting field, an `is` comparison, a docstring, an f-string or an implicitly
//!   concatenated string;
//! - it is `0`, `1` or an empty string (too trivial to name);
//! - the program lists or reaches module names dynamically (`globals()`, `dir()`, `vars()`,
//!   frames), where a new module name would show;
//! - its top-level statement shares a line with another statement or continues a line.

use sdk::effects::is_docstring;
use sdk::names::FreshNames;
use sdk::parse::Parsed;
use sdk::pyast::literal_must_stay;
use sdk::scope::ScopeInfo;
use sdk::text::{continues_previous_line, line_start, starts_line};
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "constant-hoist",
    description: "Move literals into named module-level constants",
    category: "data-flow",
    rewrite: rewrite,
);

/// Names a constant may get, by kind of literal.
const INT_NAMES: &[&str] = &[
    "LIMIT", "BASE", "SIZE", "STEP", "COUNT", "WIDTH", "FACTOR", "OFFSET", "BOUND",
];
const FLOAT_NAMES: &[&str] = &["RATE", "SCALE", "EPSILON", "RATIO", "WEIGHT"];
const STR_NAMES: &[&str] = &[
    "SEP", "TEXT", "LABEL", "KEY", "PREFIX", "TOKEN", "MESSAGE", "PATTERN",
];

/// Whether `node` is a literal worth naming and allowed to move.
fn hoistable(parsed: &Parsed, node: Node<'_>) -> bool {
    let text = parsed.text(node);
    let ok = match node.kind() {
        "integer" => sdk::pyast::int_literal(parsed, node).is_none_or(|v| v > 1),
        "float" => true,
        "string" => {
            let prefix: String = text
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<String>()
                .to_ascii_lowercase();
            let body = &text[prefix.len()..];
            !prefix.contains('f')
                && !matches!(body, "''" | "\"\"" | "''''''" | "\"\"\"\"\"\"")
                && node.parent().is_some_and(|p| {
                    p.kind() != "concatenated_string"
                        && !(p.kind() == "expression_statement" && is_docstring(p))
                })
        }
        _ => false,
    };
    ok && !literal_must_stay(parsed, node)
}

/// The top-level statement containing `node`.
fn top_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut cur = node;
    while let Some(p) = cur.parent() {
        if p.kind() == "module" {
            return Some(cur);
        }
        cur = p;
    }
    None
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    if sdk::pyast::may_list_module_names(parsed, &info) {
        return edits;
    }
    let src = parsed.source.as_str();
    let sites: Vec<Node<'_>> = parsed
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "integer" | "float" | "string"))
        .filter(|n| hoistable(parsed, *n))
        .filter(|n| {
            top_statement(*n).is_some_and(|t| {
                starts_line(src, t.start_byte()) && !continues_previous_line(src, t.start_byte())
            })
        })
        .collect();
    let mut names = FreshNames::new(parsed);
    // literal text → constant name; top statement start → definitions to insert there.
    let mut named: BTreeMap<String, String> = BTreeMap::new();
    let mut defs: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut defined_at: BTreeMap<String, usize> = BTreeMap::new();
    for i in rng.sites(sites.len(), 0.3) {
        let node = sites[i];
        let text = parsed.text(node).to_string();
        let Some(top) = top_statement(node) else {
            continue;
        };
        let at = line_start(src, top.start_byte());
        let name = match named.get(&text) {
            // Reuse a constant only when it is defined before this statement.
            Some(n) if defined_at[n] <= at => n.clone(),
            _ => {
                let pool = match node.kind() {
                    "integer" => INT_NAMES,
                    "float" => FLOAT_NAMES,
                    _ => STR_NAMES,
                };
                let base = pool[rng.below(pool.len())];
                let mut name = base.to_string();
                let mut k = 2;
                while names.is_taken(&name) || names.is_taken(&name.to_lowercase()) {
                    name = format!("{base}_{k}");
                    k += 1;
                }
                // Reserve it (and keep lower-case look-alikes distinct).
                let _ = names.fresh(rng, Some(&name));
                named.insert(text.clone(), name.clone());
                defined_at.insert(name.clone(), at);
                defs.entry(at)
                    .or_default()
                    .push(format!("{name} = {text}\n"));
                name
            }
        };
        edits.replace(node.byte_range(), name);
    }
    for (at, lines) in defs {
        edits.insert(at, lines.concat());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn a_function_reading_its_own_locals_still_gets_constants() {
        // `locals()` and `eval` inside a function see its locals, never a new module name.
        let src = "def f(expr, x):\n    y = x * 25\n    return eval(expr, {}, locals())\n\nprint(f('y + 1', 2))\n";
        let expected = sdk::testing::run_python(src).1;
        let hoisted: Vec<String> = (0..16)
            .filter_map(|s| apply(src, s).ok().flatten())
            .collect();
        assert!(!hoisted.is_empty(), "no seed hoisted 25");
        for out in hoisted {
            assert_eq!(sdk::testing::run_python(&out).1, expected, "{out}");
        }
    }

    #[test]
    fn declines_protected_literals_and_dynamic_modules() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(x):\n    \"\"\"Doc 42.\"\"\"\n    match x:\n        case 10:\n            return x is 300\n    return f\"{x:10d}\" + \"\" + f\"{x + 7=}\"\n",
                "def f(a: Literal[10]) -> Literal['s']:\n    return 0, 1\n",
                "def f():\n    return 42, 'ab'\nprint(globals().keys())\n",
                "def f():\n    return 42, sorted(globals())\n",
                "x = 1; y = 'abc'\n",
            ],
            8,
        );
    }
}
