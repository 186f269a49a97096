//! ## What it does
//! Rewrites an increment or decrement whose value is unused: `i++` ↔ `++i`, and for a
//! variable of arithmetic type `i++` → `i += 1` (`i--` → `i -= 1`). Sites are statements
//! (`i++;`) and the updates of `for` loops (`for (…; …; i++, j--)`). It also rewrites C
//! programs.
//!
//! ## Why it preserves semantics
//! Postfix and prefix forms differ only in the value of the expression; where that value is
//! discarded they have the same effect: the variable (or iterator) is advanced by one. For an
//! arithmetic variable, `++i` is defined as `i += 1`. Iterators and other class types only
//! get the prefix/postfix swap, never `+= 1` (a `std::map` iterator has no `+=`).
//!
//! ## Example
//! ```cpp
//! for (int i = 0; i < n; i++) cnt++;
//! ```
//! becomes
//! ```cpp
//! for (int i = 0; i < n; ++i) cnt += 1;
//! ```
//!
//! ## Not applied when
//! - the value is used (`a[i++] = x`, `return n--;`);
//! - the operand uses a macro, or the site lies in code a preprocessor conditional guards.

use sdk::cpp::{arithmetic_names, in_conditional, CppParsed};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-increment",
    description: "Swaps C++ i++ and ++i where the value is unused, and writes i += 1 for arithmetic i",
    category: "expression",
    languages: "cpp c",
    rewrite: rewrite,
}

/// Whether the value of `n` is discarded: a statement of its own, or (through comma
/// expressions) a `for` loop's update.
fn value_unused(n: Node<'_>) -> bool {
    let mut cur = n;
    loop {
        let Some(parent) = cur.parent() else {
            return false;
        };
        match parent.kind() {
            "expression_statement" => return true,
            "for_statement" => {
                return parent
                    .child_by_field_name("update")
                    .is_some_and(|u| u.id() == cur.id());
            }
            // Either side of a comma whose own value is discarded.
            "comma_expression" => {
                let right = parent.child_by_field_name("right");
                if right.is_some_and(|r| r.id() == cur.id())
                    || parent
                        .child_by_field_name("left")
                        .is_some_and(|l| l.id() == cur.id())
                {
                    cur = parent;
                } else {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let arithmetic = arithmetic_names(p);
    let mut sites: Vec<(std::ops::Range<usize>, Vec<String>)> = Vec::new();
    for n in p.nodes_of_kind("update_expression") {
        if !value_unused(n) || in_conditional(n) || p.uses_macro(n) {
            continue;
        }
        let (Some(arg), Some(op)) = (
            n.child_by_field_name("argument"),
            n.child_by_field_name("operator"),
        ) else {
            continue;
        };
        let (a, o) = (p.text(arg), p.text(op));
        let postfix = op.start_byte() > arg.start_byte();
        let mut options = vec![if postfix {
            format!("{o}{a}")
        } else {
            format!("{a}{o}")
        }];
        if arg.kind() == "identifier" && arithmetic.contains_key(a) {
            let sign = if o == "++" { "+" } else { "-" };
            options.push(format!("{a} {sign}= 1"));
        }
        sites.push((n.byte_range(), options));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, options) = &sites[i];
        let pick = rng.below(options.len());
        edits.replace(range.clone(), options[pick].clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn used_values_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &["int main() { int a[3] = {0}; int i = 0; a[i++] = 2; int j = i--; return a[0] + j; }\n"],
            8,
        );
    }
}
