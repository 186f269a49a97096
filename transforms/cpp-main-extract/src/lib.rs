//! ## What it does
//! Moves the body of `main` into a new function, which `main` calls and whose value it
//! returns: `int main() { BODY }` becomes `int run() { BODY return 0; }` and
//! `int main() { return run(); }` (both with `(void)` when `main` has it). It also rewrites C
//! programs.
//!
//! ## Why it preserves semantics
//! `main` runs the same statements in the same order, once; a `return v;` in the body returns
//! `v` from the new function and then from `main`, so the exit status is the same, and
//! `exit()` ends the program from any function. The trap is the end of the body: flowing off
//! the end of `main` returns 0, but flowing off the end of any other function that returns
//! `int` is undefined behaviour, so `return 0;` is appended to the moved body. Static locals
//! are initialised on the one call as before, and the new function's name is fresh and no
//! name a libc or POSIX header declares (`round`, `alarm`), which it would clash with.
//!
//! ## Example
//! ```cpp
//! int main() { int n; cin >> n; cout << n * n << endl; }
//! ```
//! becomes
//! ```cpp
//! int harbor() { int n; cin >> n; cout << n * n << endl;
//!     return 0;
//! }
//! int main() { return harbor(); }
//! ```
//!
//! ## Not applied when
//! - `main` takes parameters (`argc`, `argv`), is not declared `int main`, or lies in code a
//!   preprocessor conditional guards;
//! - `main` names `__func__`, `__FUNCTION__` or `__PRETTY_FUNCTION__` (they would print
//!   the new name);
//! - `main` calls itself (C allows it; the new function, defined first, would call a `main`
//!   not yet declared);
//! - the body uses a macro that could name `main`'s own scope (`__func__`-style macros are
//!   not told apart, so any macro use declines).

use sdk::cpp::{fresh_names, in_conditional, CppParsed, LIBC_NAMES};
use sdk::parse::descendants;
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-main-extract",
    description: "Moves the body of C++ main into a new function that main calls",
    category: "structure",
    languages: "cpp c",
    rewrite: rewrite,
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mains: Vec<_> = p
        .nodes_of_kind("function_definition")
        .into_iter()
        .filter(|f| f.parent().is_some_and(|x| x.kind() == "translation_unit"))
        .filter(|f| !in_conditional(*f))
        .filter(|f| {
            let ty = f.child_by_field_name("type").map(|t| p.text(t));
            let declarator = f.child_by_field_name("declarator");
            let name = declarator
                .and_then(|d| d.child_by_field_name("declarator"))
                .map(|n| p.text(n));
            let params = declarator
                .and_then(|d| d.child_by_field_name("parameters"))
                .map(|ps| p.text(ps).replace(char::is_whitespace, ""));
            ty == Some("int")
                && name == Some("main")
                && matches!(params.as_deref(), Some("()" | "(void)"))
                && !["__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"]
                    .iter()
                    .any(|w| p.text(*f).contains(w))
                && f.child_by_field_name("body").is_some_and(|b| {
                    !p.uses_macro(b)
                        && !descendants(b)
                            .iter()
                            .any(|n| n.kind() == "identifier" && p.text(*n) == "main")
                })
        })
        .collect();
    let Some(i) = rng.site(mains.len()) else {
        return edits;
    };
    let f = mains[i];
    let Some(body) = f.child_by_field_name("body") else {
        return edits;
    };
    let mut fresh = fresh_names(p).foreign();
    for taken in LIBC_NAMES {
        fresh.claim(taken);
    }
    let name = fresh.fresh(rng, None);
    // `()` or `(void)`, as `main` says (in C, `int f()` declares no prototype).
    let void = f
        .child_by_field_name("declarator")
        .and_then(|d| d.child_by_field_name("parameters"))
        .is_some_and(|ps| p.text(ps).contains("void"));
    let params = if void { "(void)" } else { "()" };
    let unit = p.indent_unit();
    let ind = p.indent_of(f);
    let text = p.text(body);
    let Some(inner) = text.strip_suffix('}') else {
        return edits;
    };
    let moved = format!(
        "int {name}{params} {}\n{ind}{unit}return 0;\n{ind}}}\n\n{ind}int main{params} {{\n{ind}{unit}return {name}();\n{ind}}}",
        inner.trim_end()
    );
    edits.replace(f.byte_range(), moved);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn new_names_are_no_libc_names_and_void_is_kept() {
        let src = "#include <math.h>\nint main(void) { return (int)sqrt(4.0) - 2; }\n";
        for seed in 0..64 {
            let out = apply(src, seed).unwrap().unwrap();
            assert!(out.contains("int main(void) {"), "seed {seed}:\n{out}");
            for libc in super::LIBC_NAMES {
                assert!(
                    !out.contains(&format!("int {libc}(")),
                    "seed {seed}:\n{out}"
                );
            }
        }
    }

    #[test]
    fn mains_with_arguments_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "int main(int argc, char** argv) { return argc > 5; }\n",
                "void helper() {}\n",
                "#include <stdio.h>\nint main(void) { printf(\"%s\\n\", __FUNCTION__); return 0; }\n",
                "static int depth;\nint main(void) { if (depth++ < 2) return main(); return depth; }\n",
            ],
            8,
        );
    }
}
