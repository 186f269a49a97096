//! # callable-object
//!
//! ## What it does
//! Replaces a function with an instance of a new class whose `__call__` method holds the
//! function's parameters and body, bound to the same name:
//! `def f(a, b): …` becomes `class Fn: def __call__(self, /, a, b): …` followed by `f = Fn()`.
//!
//! ## Why it preserves semantics
//! Calling the instance calls `__call__` with the same arguments: `self` is positional-only, so
//! it can never collide with a keyword argument or a `**kwargs` key, and the original
//! parameter list (defaults, `*args`, keyword-only, `/`) follows unchanged. The body runs in
//! a method, where free names resolve exactly as in the function (class scopes are skipped),
//! so globals, builtins and closures are the same; defaults are evaluated once, when the class
//! body runs, at the point where `def` ran. The program only ever calls the name, so nothing
//! it does can tell a function from a callable object.
//!
//! ## Example
//! ```python
//! def area(w, h=1):
//!     return w * h
//! ```
//! becomes
//! ```python
//! class Shape:
//!     def __call__(self, /, w, h=1):
//!         return w * h
//! area = Shape()
//! ```
//!
//! ## Not applied when
//! - the function is a method or runs in a class body, is decorated, is recursive, or uses
//!   `super`, `__class__` or a private `__name` (name mangling would change);
//! - some `except` clause could catch a `TypeError` (bare, `Exception`, `BaseException`,
//!   `TypeError` or a name that may alias them): the message of a wrong call names `__call__()`
//!   instead of the function, and the program could print it;
//! - the program mentions `doctest` (doctest collects examples from functions and classes, not
//!   from instances; otherwise a docstring moves to the class, where `f.__doc__` and `help(f)`
//!   still find it);
//! - the program uses its name other than by calling it (`f.__name__`, `map(f, …)`,
//!   `Cls.attr = f`, where the descriptor protocol or introspection would see the difference),
//!   or inspects frames or namespaces.
//!
//! Outside the program (in a traceback on stderr, or in tests that print a caught `TypeError`),
//! an error message for a wrong call names `__call__()` rather than the function; the oracle
//! checks every candidate against the task's tests.

use sdk::effects::{is_docstring, statements};
use sdk::names::FreshNames;
use sdk::parse::{descendants, in_class_scope, Parsed};
use sdk::scope::{Role, ScopeInfo};
use sdk::text::{indent_unit, line_indent, reindent_range, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "callable-object",
    description: "Replace a function with an instance of a class whose __call__ holds its body",
    category: "structure",
    rewrite: rewrite,
);

/// Whether some `except` clause could catch a `TypeError`: a wrong call's message names
/// `__call__()` instead of the function, and a program that catches it could print it.
fn may_catch_type_errors(parsed: &Parsed) -> bool {
    parsed.nodes_of_kind("except_clause").iter().any(|clause| {
        let Some(first) = sdk::parse::named_children(*clause).into_iter().next() else {
            return true;
        };
        if first.kind() == "block" {
            return true; // bare `except:`
        }
        // The names of the handler's type expression (not the `as` target): each must be a
        // specific exception other than TypeError and its bases.
        let names: Vec<&str> = descendants(first)
            .into_iter()
            .filter(|n| n.kind() == "identifier")
            .filter(|n| n.parent().is_none_or(|p| p.kind() != "as_pattern_target"))
            .map(|n| parsed.text(n))
            .collect();
        names.iter().any(|t| {
            matches!(*t, "TypeError" | "Exception" | "BaseException")
                || !(t.ends_with("Error")
                    || t.ends_with("Exception")
                    || t.ends_with("Warning")
                    || matches!(
                        *t,
                        "StopIteration" | "KeyboardInterrupt" | "SystemExit" | "GeneratorExit"
                    ))
        })
    })
}

fn eligible(parsed: &Parsed, info: &ScopeInfo, func: Node<'_>) -> bool {
    let src = parsed.source.as_str();
    let (Some(name), Some(body)) = (
        func.child_by_field_name("name"),
        func.child_by_field_name("body"),
    ) else {
        return false;
    };
    if in_class_scope(func)
        || func
            .parent()
            .is_some_and(|p| p.kind() == "decorated_definition")
        || !starts_line(src, func.start_byte())
        || !starts_line(src, body.start_byte())
    {
        return false;
    }
    let fname = parsed.text(name);
    let bad_identifier = descendants(func).iter().any(|n| {
        if n.kind() != "identifier" || n.id() == name.id() {
            return false;
        }
        let t = parsed.text(*n);
        t == fname
            || t == "super"
            || t == "__class__"
            || (t.starts_with("__") && !t.ends_with("__"))
    });
    if bad_identifier {
        return false;
    }
    // Every use of the name's binding is a call.
    let Some(def_occ) = info.occurrence_at(&name.byte_range()) else {
        return false;
    };
    let Some(key) = info.binding_of(def_occ) else {
        return false;
    };
    info.occurrences_of(key).iter().all(|&i| {
        let occ = &info.occurrences[i];
        if occ.role != Role::Load {
            return true;
        }
        let node = parsed
            .root()
            .descendant_for_byte_range(occ.range.start, occ.range.end);
        node.and_then(|n| n.parent()).is_some_and(|p| {
            p.kind() == "call"
                && p.child_by_field_name("function")
                    .is_some_and(|f| f.byte_range() == occ.range)
        })
    })
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let src = parsed.source.as_str();
    // Program-wide reasons to decline, checked once.
    if parsed.source.contains("doctest") || info.any_dynamic() || may_catch_type_errors(parsed) {
        return edits;
    }
    let funcs: Vec<Node<'_>> = parsed
        .nodes_of_kind("function_definition")
        .into_iter()
        .filter(|f| eligible(parsed, &info, *f))
        .collect();
    let Some(i) = rng.site(funcs.len()) else {
        return edits;
    };
    let func = funcs[i];
    let (Some(name), Some(params), Some(body)) = (
        func.child_by_field_name("name"),
        func.child_by_field_name("parameters"),
        func.child_by_field_name("body"),
    ) else {
        return edits;
    };
    let unit = indent_unit(parsed);
    let indent = line_indent(src, func.start_byte()).to_string();
    let mut fresh = FreshNames::new(parsed);
    let class_name = {
        let base = fresh.fresh(rng, None);
        let mut c = base.split('_').map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        });
        let camel: String = c.by_ref().collect();
        if fresh.is_taken(&camel) {
            format!("{camel}Call")
        } else {
            camel
        }
    };
    let me = fresh.fresh(rng, Some("this"));
    let p = parsed.text(params);
    let inside = p[1..p.len() - 1].trim();
    let has_slash = descendants(params)
        .iter()
        .any(|n| n.kind() == "positional_separator");
    let new_params = match (inside.is_empty(), has_slash) {
        (true, _) => format!("({me}, /)"),
        (false, true) => format!("({me}, {inside})"),
        (false, false) => format!("({me}, /, {inside})"),
    };
    // Rebuilt by byte ranges: the name may also occur in `def`, `async` or an annotation.
    let header = format!(
        "{}__call__{}{new_params}{}",
        &src[func.start_byte()..name.start_byte()],
        &src[name.end_byte()..params.start_byte()],
        &src[params.end_byte()..body.start_byte()]
    );
    let header = header.trim_end();
    // A docstring becomes the class's, which is what the instance's `__doc__` (and `help`)
    // then show.
    let stmts = statements(body);
    let (doc, rest) = match stmts.as_slice() {
        [d, first, ..] if is_docstring(*d) => (
            format!(
                "{indent}{unit}{}\n",
                reindent_range(parsed, d.start_byte(), d.end_byte(), "").trim_start()
            ),
            first.start_byte(),
        ),
        [d] if is_docstring(*d) => (
            format!(
                "{indent}{unit}{}\n",
                reindent_range(parsed, d.start_byte(), d.end_byte(), "").trim_start()
            ),
            body.start_byte(),
        ),
        _ => (String::new(), body.start_byte()),
    };
    let method_body = reindent_range(
        parsed,
        rest,
        body.end_byte(),
        &format!("{indent}{unit}{unit}"),
    );
    let text = format!(
        "class {class_name}:\n{doc}{indent}{unit}{header}\n{method_body}\n{indent}{} = {class_name}()",
        parsed.text(name)
    );
    edits.replace(func.start_byte()..body.end_byte(), text);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_observed_recursive_documented_and_mangled_functions() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(a):\n    return a\nprint(f.__name__)\n",
                "def f(a):\n    return a\nprint(list(map(f, [1])))\n",
                "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\n",
                "def f(a):\n    '''Doc.\n\n    >>> f(1)\n    1\n    '''\n    return a\nimport doctest\n",
                "class K:\n    def m(self):\n        return 1\n",
                "import functools\n@functools.cache\ndef f(a):\n    return a\n",
                "def f(a):\n    return a.__secret\n",
                "def f(a):\n    return a\ntry:\n    f(1, 2)\nexcept TypeError as e:\n    print(e)\n",
                "def f(a):\n    return a\ntry:\n    f()\nexcept:\n    print('no')\n",
            ],
            8,
        );
    }
}
