//! # nested-function
//!
//! ## What it does
//! Moves statements of a function into an inner function that is defined and called on the
//! spot (Auto-SPT's "nested function encapsulation"): either the tail of the body (which may
//! return: `return inner()`), or a run of statements in the middle (called as `inner()`).
//! Names the moved code assigns and the rest of the function also uses are shared through
//! `nonlocal`.
//!
//! ## Why it preserves semantics
//! - The moved statements run once, at the same point, in the same order, with the same
//!   values: names they only read resolve through the closure to the same variables, and names
//!   they assign that the function also binds elsewhere are declared `nonlocal`, so the writes
//!   land in the function's variables. Names only the moved code uses become the inner
//!   function's own; they cannot be seen elsewhere because the moved code runs once per call
//!   (it is never inside a loop of the function).
//! - A tail's `return v` returns `v` from `inner()`, and `return inner()` passes it on; falling
//!   off the end returns `None` either way. A middle run contains no `return`.
//! - Exceptions propagate unchanged through the extra call.
//!
//! ## Example
//! ```python
//! def total(xs):
//!     s = 0
//!     for x in xs:
//!         s += x
//!     return s
//! ```
//! becomes
//! ```python
//! def total(xs):
//!     s = 0
//!     def body():
//!         nonlocal s
//!         for x in xs:
//!             s += x
//!     body()
//!     return s
//! ```
//!
//! ## Not applied when
//! - the function is recursive (the extra frame per call would halve the recursion depth it
//!   can reach), `async`, a generator, declares `global`/`nonlocal` itself, or inspects its
//!   namespace or frames;
//! - the moved code uses `super` or `__class__` (zero-argument `super()` needs the method's
//!   own frame), has an annotated assignment, or shares a line with other statements;
//! - for a middle run: it contains `return`, or assigns a name the rest of the function reads
//!   but that has no other binding in the function (`nonlocal` needs one).

use sdk::effects::{is_docstring, statements};
use sdk::names::FreshNames;
use sdk::parse::{contains_in_same_function, descendants, Parsed};
use sdk::scope::ScopeInfo;
use sdk::text::{ends_line, indent_unit, line_indent, reindent_range, starts_line};
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
use tree_sitter::Node;

sdk::declare_transform!(
    name: "nested-function",
    description: "Move statements of a function into an inner function called on the spot",
    category: "structure",
    rewrite: rewrite,
);

/// A run of statements `first..=last` of a function to move; `tail` when it runs to the end.
struct Site<'t> {
    first: Node<'t>,
    last: Node<'t>,
    tail: bool,
    shared: BTreeSet<String>,
}

fn function_ok(parsed: &Parsed, info: &ScopeInfo, func: Node<'_>, s: usize) -> bool {
    let Some(name) = func.child_by_field_name("name") else {
        return false;
    };
    let Some(body) = func.child_by_field_name("body") else {
        return false;
    };
    let name = parsed.text(name);
    let scope = &info.scopes[s];
    !parsed.text(func).starts_with("async")
        && scope.globals.is_empty()
        && scope.nonlocals.is_empty()
        && !info.dynamic_within(s)
        && !contains_in_same_function(body, &["yield", "await"])
        && !descendants(body)
            .iter()
            .any(|n| n.kind() == "identifier" && parsed.text(*n) == name)
}

/// Whether a statement must stay in its function: it names `super`/`__class__` (they need
/// the method's own cell) or is an annotated assignment (annotations of a body are scoped).
fn pinned(parsed: &Parsed, stmt: Node<'_>) -> bool {
    descendants(stmt).iter().any(|d| {
        (d.kind() == "identifier" && matches!(parsed.text(*d), "super" | "__class__"))
            || (d.kind() == "assignment" && d.child_by_field_name("type").is_some())
    })
}

/// Running counts over a body's statements: `counts[k]` statements among the first `k` match.
fn prefix_counts(stmts: &[Node<'_>], matches: impl Fn(Node<'_>) -> bool) -> Vec<usize> {
    let mut counts = vec![0];
    for s in stmts {
        counts.push(counts[counts.len() - 1] + usize::from(matches(*s)));
    }
    counts
}

fn sites<'t>(parsed: &'t Parsed, info: &ScopeInfo) -> Vec<Site<'t>> {
    let mut out = Vec::new();
    for func in parsed.nodes_of_kind("function_definition") {
        let Some(body) = func.child_by_field_name("body") else {
            continue;
        };
        let s = info.scope_containing(&body.byte_range());
        if !function_ok(parsed, info, func, s) {
            continue;
        }
        let stmts: Vec<Node<'_>> = statements(body)
            .into_iter()
            .filter(|n| !is_docstring(*n))
            .collect();
        let func_range = func.byte_range();
        // Computed once per body, so that trying every run stays linear in its size.
        let pinned_before = prefix_counts(&stmts, |n| pinned(parsed, n));
        let returns_before = prefix_counts(&stmts, |n| {
            contains_in_same_function(n, &["return_statement"])
        });
        let src = parsed.source.as_str();
        for i in 0..stmts.len() {
            let ends = if i + 1 == stmts.len() {
                vec![i]
            } else {
                vec![i, stmts.len() - 1]
            };
            for j in ends {
                let (first, last) = (stmts[i], stmts[j]);
                let tail = j + 1 == stmts.len();
                let run_ok = starts_line(src, first.start_byte())
                    && ends_line(src, last.end_byte())
                    && pinned_before[j + 1] == pinned_before[i];
                if !run_ok {
                    continue;
                }
                let range = first.start_byte()..last.end_byte();
                let has_return = returns_before[j + 1] > returns_before[i];
                if has_return && !tail {
                    continue;
                }
                // Names the run writes that the function uses outside it.
                let writes = info.writes_in(s, &range);
                let mut shared = BTreeSet::new();
                let mut ok = true;
                for w in writes {
                    let key = (s, w.clone());
                    let (mut used_outside, mut bound_outside) = (false, false);
                    for &k in info.occurrences_of(&key) {
                        let occ = &info.occurrences[k];
                        if !(func_range.start <= occ.range.start && occ.range.end <= func_range.end)
                        {
                            continue;
                        }
                        let inside = range.start <= occ.range.start && occ.range.end <= range.end;
                        if !inside {
                            used_outside = true;
                            // `nonlocal` needs a binding in the function's own scope, not
                            // one in a nested function that is itself `nonlocal`.
                            bound_outside |=
                                occ.scope == s && matches!(occ.role, sdk::scope::Role::Bind(_));
                        }
                    }
                    if used_outside {
                        if !bound_outside {
                            ok = false;
                            break;
                        }
                        shared.insert(w);
                    }
                }
                if ok {
                    out.push(Site {
                        first,
                        last,
                        tail,
                        shared,
                    });
                }
            }
        }
    }
    out
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let src = parsed.source.as_str();
    let all = sites(parsed, &info);
    let Some(i) = rng.site(all.len()) else {
        return edits;
    };
    let site = &all[i];
    let unit = indent_unit(parsed);
    let indent = line_indent(src, site.first.start_byte()).to_string();
    let mut fresh = FreshNames::new(parsed);
    let name = fresh.fresh(rng, Some("body"));
    let inner_indent = format!("{indent}{unit}");
    let moved = reindent_range(
        parsed,
        site.first.start_byte(),
        site.last.end_byte(),
        &inner_indent,
    );
    let mut text = format!("def {name}():\n");
    if !site.shared.is_empty() {
        let names: Vec<&str> = site.shared.iter().map(|s| s.as_str()).collect();
        text.push_str(&format!("{inner_indent}nonlocal {}\n", names.join(", ")));
    }
    text.push_str(&moved);
    text.push('\n');
    text.push_str(&indent);
    text.push_str(&if site.tail {
        format!("return {name}()")
    } else {
        format!("{name}()")
    });
    edits.replace(site.first.start_byte()..site.last.end_byte(), text);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_recursion_generators_super_and_unbound_nonlocals() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def fact(n):\n    if n < 2:\n        return 1\n    return n * fact(n - 1)\n",
                "def gen(n):\n    yield n\n",
                "class A(B):\n    def m(self):\n        return super().m()\n",
                "def f():\n    global g\n    g = 1\n",
                "def f(a):\n    x: int = a\n",
                "def f(a):\n    print(locals())\n",
            ],
            8,
        );
    }
}
