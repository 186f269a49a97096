//! ## What it does
//! Writes a C++ `while (cond) body` loop as `for (; cond;) body`. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! A `for` loop with no initialisation and no update is defined as the `while` loop with the
//! same condition and body: the condition is evaluated before every iteration, and `break`
//! and `continue` mean the same (a `continue` goes to the condition, as there is no update).
//!
//! ## Example
//! ```cpp
//! while (n > 0) { s += n % 10; n /= 10; }
//! ```
//! becomes
//! ```cpp
//! for (; n > 0;) { s += n % 10; n /= 10; }
//! ```
//!
//! ## Not applied when
//! - the condition declares a variable (`while (int c = getchar())`);
//! - the loop lies in code a preprocessor conditional guards, or its condition uses a macro.

use sdk::cpp::{in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-while-to-for",
    description: "Writes a C++ while loop as a for loop with no initialisation or update",
    category: "control-flow",
    languages: "cpp c",
    rewrite: rewrite,
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<_> = p
        .nodes_of_kind("while_statement")
        .into_iter()
        .filter(|w| !in_conditional(*w))
        .filter_map(|w| {
            let clause = w.child_by_field_name("condition")?;
            let value = clause.child_by_field_name("value")?;
            let declares = value.kind() == "declaration" || value.kind().ends_with("declarator");
            (!declares && !p.uses_macro(clause)).then_some((w, clause, value))
        })
        .collect();
    for i in rng.sites(sites.len(), 0.5) {
        let (w, clause, value) = sites[i];
        // `while (c)` → `for (; c;)`: only the keyword and the clause change.
        let head = w.start_byte()..clause.end_byte();
        edits.replace(head, format!("for (; {};)", p.text(value)));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn declaring_conditions_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &["int f(); int main() { int s = 0; while (int c = f()) s += c; return s; }\n"],
            8,
        );
    }
}
