//! ## What it does
//! Expands a compound assignment to a variable of arithmetic type, `x op= e;`, into
//! `x = x op (e);`, and contracts `x = x op e;` into `x op= e;`. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! For a variable of arithmetic type, the standard defines `x op= e` as `x = x op e` with `x`
//! evaluated once: for a plain name there is nothing to evaluate twice, the usual arithmetic
//! conversions of `x op (e)` are the same, and the result is converted back to `x`'s type by
//! the assignment in both forms (so `char c; c += 1` and `int i; i *= 1.5` behave alike). The
//! parentheses keep `e` one operand (`x *= a + b` is `x = x * (a + b)`). The contraction only
//! applies when `op` is the outermost operator of the right side with `x` as its left operand
//! (`x = x - a - b` is `(x - a) - b`, which is `x -= a` then `- b`, not `x -= a - b`).
//!
//! ## Example
//! ```cpp
//! total += a[i] * 2;
//! ```
//! becomes
//! ```cpp
//! total = total + (a[i] * 2);
//! ```
//!
//! ## Not applied when
//! - the target is not a plain variable that every declaration of its name in the program
//!   gives one arithmetic type (arrays, pointers, `std::string`, whose `s = s + t` copies, and
//!   class types whose `+=` and `+` may differ, are left alone);
//! - the statement uses a macro or lies in code a preprocessor conditional guards.

use sdk::cpp::{arithmetic_names, in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-compound-assign",
    description: "Expands C++ compound assignments to arithmetic variables, and contracts x = x op e",
    category: "expression",
    languages: "cpp c",
    rewrite: rewrite,
}

const OPERATORS: &[&str] = &["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"];

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let arithmetic = arithmetic_names(p);
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for st in p.nodes_of_kind("expression_statement") {
        let Some(e) = st.named_child(0) else { continue };
        if e.kind() != "assignment_expression" || in_conditional(st) || p.uses_macro(st) {
            continue;
        }
        let (Some(left), Some(op), Some(right)) = (
            e.child_by_field_name("left"),
            e.child_by_field_name("operator"),
            e.child_by_field_name("right"),
        ) else {
            continue;
        };
        let x = p.text(left);
        if left.kind() != "identifier" || !arithmetic.contains_key(x) {
            continue;
        }
        let op = p.text(op);
        if op == "=" {
            if right.kind() != "binary_expression" {
                continue;
            }
            let (Some(rl), Some(rop), Some(rr)) = (
                right.child_by_field_name("left"),
                right.child_by_field_name("operator"),
                right.child_by_field_name("right"),
            ) else {
                continue;
            };
            let rop = p.text(rop);
            if rl.kind() == "identifier" && p.text(rl) == x && OPERATORS.contains(&rop) {
                sites.push((e.byte_range(), format!("{x} {rop}= {}", p.text(rr))));
            }
        } else if let Some(bin) = op.strip_suffix('=').filter(|b| OPERATORS.contains(b)) {
            sites.push((
                e.byte_range(),
                format!("{x} = {x} {bin} ({})", p.text(right)),
            ));
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, text) = &sites[i];
        edits.replace(range.clone(), text.clone());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn strings_arrays_and_mixed_names_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <string>\nint main() { std::string s = \"a\"; s += \"b\"; return s.size(); }\n",
                "int main() { int a[3] = {0}; a[1] += 2; int *p = a; p += 1; return *p; }\n",
                "int f(double x) { x += 1; return x; } int main() { int x = 1; x += 2; return f(x); }\n",
                "#define STEP 2\nint main() { int x = 1; x += STEP; return x; }\n",
            ],
            8,
        );
    }
}
