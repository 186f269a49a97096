//! ## What it does
//! Turns an object-like macro whose value is a single number, `#define N 100005`, into a
//! typed constant, `const int N = 100005;` (or `constexpr auto N = …;`).
//!
//! ## Why it preserves semantics
//! The preprocessor replaces every later `N` by the literal, whose type the literal itself
//! fixes (`int` for a decimal that fits, `long long` for `1LL`, `double` for `1e18`); the
//! constant has exactly that type and value (`const int` only for a decimal literal that fits
//! an `int`, `constexpr auto` otherwise, which deduces the literal's own type), and it is a
//! constant expression wherever the literal was one (array bounds, `case` labels, template
//! arguments). A macro ignores scopes, so a program whose macro name could be declared again
//! would not compile with the macro either. Only a single literal is accepted: `#define N
//! 1e5+5` pastes text (`2 * N` is `2 * 1e5 + 5`), which a constant would change.
//!
//! ## Example
//! ```cpp
//! #define MOD 1000000007
//! ```
//! becomes
//! ```cpp
//! const int MOD = 1000000007;
//! ```
//!
//! ## Not applied when
//! - the macro's value is not a single number (an expression, a string, a type);
//! - the name occurs in another directive (`#if N > 5`, `#ifdef`, `#undef`, another macro's
//!   body) or anywhere before the `#define`;
//! - the `#define` is not at file scope, or lies in code a preprocessor conditional guards.

use sdk::cpp::{in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-define-const",
    description: "Turns C++ #define constants of one number into typed constants",
    category: "naming",
    rewrite: rewrite,
}

/// The declaration that replaces `#define name value`, or `None` when `value` is not one
/// number literal.
fn constant(name: &str, value: &str, constexpr: bool) -> Option<String> {
    let digits = value.strip_prefix('-').unwrap_or(value);
    let number = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '\'')
        && !digits.contains(['+', '-']);
    if !number {
        return None;
    }
    let plain_int = digits.chars().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && digits
            .parse::<i64>()
            .is_ok_and(|v| v <= i64::from(i32::MAX));
    Some(if plain_int && !constexpr {
        format!("const int {name} = {value};")
    } else {
        format!("constexpr auto {name} = {value};")
    })
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let words_in = |text: &str, name: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name)
    };
    let mut sites = Vec::new();
    for d in p.nodes_of_kind("preproc_def") {
        if d.parent().is_none_or(|x| x.kind() != "translation_unit") || in_conditional(d) {
            continue;
        }
        let (Some(name), Some(value)) = (
            d.child_by_field_name("name"),
            d.child_by_field_name("value"),
        ) else {
            continue;
        };
        let name = p.text(name);
        let value = p.text(value).trim();
        if value.contains("//") || value.contains("/*") {
            continue;
        }
        // Anywhere before the definition, or in any other directive: the name is not only
        // this constant.
        if words_in(&p.source[..d.start_byte()], name) {
            continue;
        }
        let elsewhere = p.nodes().into_iter().any(|n| {
            n.id() != d.id()
                && (n.kind().starts_with("preproc_")
                    && n.kind() != "preproc_if"
                    && n.kind() != "preproc_ifdef"
                    && n.kind() != "preproc_else"
                    && n.kind() != "preproc_elif"
                    && words_in(p.text(n), name)
                    || matches!(n.kind(), "preproc_if" | "preproc_ifdef" | "preproc_elif")
                        && ["condition", "name"].iter().any(|f| {
                            n.child_by_field_name(f)
                                .is_some_and(|c| words_in(p.text(c), name))
                        }))
        });
        if elsewhere || p.source.contains(&format!("#undef {name}")) {
            continue;
        }
        if constant(name, value, false).is_some() {
            sites.push((d, name.to_string(), value.to_string()));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (d, name, value) = &sites[i];
        let constexpr = rng.chance(0.3);
        let Some(text) = constant(name, value, constexpr) else {
            continue;
        };
        // The directive's node ends with its line break: keep one.
        edits.replace(d.byte_range(), format!("{text}\n"));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn expressions_and_names_used_by_directives_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#define N 1e5+5\nint main() { return 2 * N > 0; }\n",
                "#define M 10\n#if M > 5\nint big = 1;\n#endif\nint main() { return M; }\n",
                "#define K 3\n#define TWICE (K * 2)\nint main() { return TWICE; }\n",
                "int f() { return 1; }\n#define f 2\nint main() { return f; }\n",
            ],
            8,
        );
    }
}
