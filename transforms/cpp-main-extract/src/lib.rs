//! ## What it does
//! Moves the body of `main` into a new function, which `main` calls and whose value it
//! returns: `int main() { BODY }` becomes `int run() { BODY return 0; }` and
//! `int main() { return run(); }`.
//!
//! ## Why it preserves semantics
//! `main` runs the same statements in the same order, once; a `return v;` in the body returns
//! `v` from the new function and then from `main`, so the exit status is the same, and
//! `exit()` ends the program from any function. The trap is the end of the body: flowing off
//! the end of `main` returns 0, but flowing off the end of any other function that returns
//! `int` is undefined behaviour, so `return 0;` is appended to the moved body. Static locals
//! are initialised on the one call as before, and the new function's name is fresh.
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
//! - the body uses a macro that could name `main`'s own scope (`__func__`-style macros are
//!   not told apart, so any macro use declines).

use sdk::cpp::{fresh_names, in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-main-extract",
    description: "Moves the body of C++ main into a new function that main calls",
    category: "structure",
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
                && !p.text(*f).contains("__func__")
                && f.child_by_field_name("body")
                    .is_some_and(|b| !p.uses_macro(b))
        })
        .collect();
    let Some(i) = rng.site(mains.len()) else {
        return edits;
    };
    let f = mains[i];
    let Some(body) = f.child_by_field_name("body") else {
        return edits;
    };
    let name = fresh_names(p).foreign().fresh(rng, None);
    let unit = p.indent_unit();
    let ind = p.indent_of(f);
    let text = p.text(body);
    let Some(inner) = text.strip_suffix('}') else {
        return edits;
    };
    let moved = format!(
        "int {name}() {}\n{ind}{unit}return 0;\n{ind}}}\n\n{ind}int main() {{\n{ind}{unit}return {name}();\n{ind}}}",
        inner.trim_end()
    );
    edits.replace(f.byte_range(), moved);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn mains_with_arguments_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "int main(int argc, char** argv) { return argc > 5; }\n",
                "void helper() {}\n",
            ],
            8,
        );
    }
}
