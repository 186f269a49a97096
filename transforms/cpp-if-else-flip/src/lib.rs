//! ## What it does
//! Negates the condition of a C++ `if`/`else` and swaps its two branches. It also rewrites C
//! programs.
//!
//! ## Why it preserves semantics
//! `if (c) A else B` runs `A` exactly when `c` converts to `true`, and `!(c)` is `true`
//! exactly when `c` converts to `false`, so `if (!(c)) B else A` runs the same branch; `c` is
//! evaluated once either way. Both branches are put in braces: a branch that is an `if`
//! without `else` would otherwise capture the new `else` (the dangling-else trap), and braces
//! give a declaration-free branch no new meaning.
//!
//! ## Example
//! ```cpp
//! if (a > b) x = a; else x = b;
//! ```
//! becomes
//! ```cpp
//! if (!(a > b)) { x = b; } else { x = a; }
//! ```
//!
//! ## Not applied when
//! - the `if` is `if constexpr`, has an init-statement (`if (int k = f(); k > 0)`) or
//!   declares its condition (`if (auto p = find())`);
//! - the condition uses a macro, or the `if` lies in code a preprocessor conditional guards.

use sdk::cpp::{in_conditional, CppParsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-if-else-flip",
    description: "Negates a C++ if condition and swaps its then and else branches",
    category: "control-flow",
    languages: "cpp c",
    rewrite: rewrite,
}

/// A branch's text, in braces unless it is a block already.
fn braced(p: &CppParsed, n: Node<'_>) -> String {
    if n.kind() == "compound_statement" {
        p.text(n).to_string()
    } else {
        format!("{{ {} }}", p.text(n))
    }
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<_> = p
        .nodes_of_kind("if_statement")
        .into_iter()
        .filter(|n| !in_conditional(*n))
        .filter(|n| {
            let mut c = n.walk();
            let constexpr = n.children(&mut c).any(|k| k.kind() == "constexpr");
            !constexpr
        })
        .filter_map(|n| {
            let clause = n.child_by_field_name("condition")?;
            let value = clause.child_by_field_name("value")?;
            let simple = clause.child_by_field_name("initializer").is_none()
                && value.kind() != "declaration"
                && !p.uses_macro(clause);
            let then = n.child_by_field_name("consequence")?;
            let other = n.child_by_field_name("alternative")?;
            let other = other.named_child(0)?;
            simple.then_some((n, value, then, other))
        })
        .collect();
    for i in rng.sites(sites.len(), 0.5) {
        let (n, value, then, other) = sites[i];
        if edits.overlaps(&n.byte_range()) {
            continue;
        }
        let text = format!(
            "if (!({})) {} else {}",
            p.text(value),
            braced(p, other),
            braced(p, then)
        );
        edits.replace(n.byte_range(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn init_statements_and_constexpr_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "int f(); int main() { int x; if (int k = f(); k > 0) x = 1; else x = 2; return x; }\n",
                "int main() { int x; if constexpr (sizeof(int) == 4) x = 1; else x = 2; return x; }\n",
                "int f(); int main() { int x; if (int k = f()) x = k; else x = 2; return x; }\n",
            ],
            8,
        );
    }
}
