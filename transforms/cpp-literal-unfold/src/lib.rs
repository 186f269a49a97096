//! ## What it does
//! Writes an integer literal as a small constant expression of the same value:
//! `100` → `(64 + 36)`, `12` → `(3 * 4)`. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! Both operands are `int` literals, as is the original (only decimal literals without
//! suffix between 2 and 2^30 are rewritten), so the sum or product is an `int` constant
//! expression of the same value that cannot overflow. A constant expression is accepted
//! wherever the literal was: array bounds, `case` labels, template arguments, bit-field
//! widths. The parentheses keep it one operand (`-100` → `-(64 + 36)`, `x % 100`).
//!
//! ## Example
//! ```cpp
//! int a[100];
//! ```
//! becomes
//! ```cpp
//! int a[(64 + 36)];
//! ```
//!
//! ## Not applied when
//! - the literal has a suffix, a digit separator, a base prefix or a leading zero, or lies
//!   outside 2..2^30;
//! - it lies in a directive, in code a preprocessor conditional guards, or in the arguments
//!   of a call to one of the program's macros that stringify or paste (`#define STR(x) #x`
//!   prints `STR(100)` as `100`).

use sdk::cpp::{in_conditional, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-literal-unfold",
    description: "Writes C++ integer literals as constant sums or products of the same value",
    category: "expression",
    languages: "cpp c",
    rewrite: rewrite,
}

fn unfolded(v: i64, rng: &mut Rng) -> String {
    // A product when `v` has a small divisor other than 1 and itself, half the time.
    let divisors: Vec<i64> = (2..=12).filter(|d| v % d == 0 && v / d > 1).collect();
    if !divisors.is_empty() && rng.chance(0.5) {
        let d = divisors[rng.below(divisors.len())];
        return format!("({} * {d})", v / d);
    }
    let a = 1 + rng.below(usize::try_from(v - 1).unwrap_or(1)) as i64;
    format!("({a} + {})", v - a)
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let spelling = sdk::cpp::spelling_macros(p);
    let mut edits = Edits::new();
    let sites: Vec<_> = p
        .nodes_of_kind("number_literal")
        .into_iter()
        .filter(|n| {
            !p.uses_macro(*n) && !in_conditional(*n) && !sdk::cpp::in_call_to(p, &spelling, *n)
        })
        .filter(|n| {
            n.parent()
                .is_none_or(|x| x.kind() != "user_defined_literal")
        })
        .filter_map(|n| {
            let t = p.text(n);
            let plain = t.chars().all(|c| c.is_ascii_digit()) && !t.starts_with('0');
            let v: i64 = t.parse().ok().filter(|_| plain)?;
            (2..=(1 << 30)).contains(&v).then_some((n, v))
        })
        .collect();
    for i in rng.sites(sites.len(), 0.5) {
        let (n, v) = sites[i];
        let text = unfolded(v, rng);
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
    fn suffixed_and_based_literals_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#define N 100\nint main() { long long a = 5000000000LL; int b = 0x10 + 010 + 1'000 + 1; return (a > b) + N; }\n",
                "#include <stdio.h>\n#define STR(x) #x\n#define CAT(a, b) a##b\nint main() { puts(STR(100)); return CAT(1, 2) == 1; }\n",
            ],
            8,
        );
    }
}
