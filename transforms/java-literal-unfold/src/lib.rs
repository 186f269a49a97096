//! ## What it does
//! Rewrites literals as constant expressions with the same type and value: `100` → `(64 + 36)`
//! or `0x64`, `123L` → `(100L + 23L)`, and `"hello"` → `("he" + "llo")`.
//!
//! ## Why it preserves semantics
//! Each replacement is a constant expression (JLS 15.29) of the literal's own type, folded by
//! javac to the same value, so it is still accepted wherever a constant is required (`case`
//! labels, `final` constants, the implicit narrowing in `byte b = 100;`). String constants
//! built by `+` are interned exactly like the literal, so `==` identity is unchanged (the trap
//! a runtime concatenation would fall into). Parentheses keep precedence (`"x" + 1 + 2` is not
//! `"x" + 3`). `2147483648` and `9223372036854775808L`, legal only after a unary minus, are
//! never touched, nor are strings with escapes (a split could cut one in two) or text blocks.
//!
//! ## Example
//! ```java
//! if (n % 1000000007 == 0) System.out.println("none");
//! ```
//! becomes
//! ```java
//! if (n % (611482114 + 388517893) == 0) System.out.println(("no" + "ne"));
//! ```
//!
//! ## Not applied when
//! Octal, binary, floating-point and character literals; integers with underscores or beyond
//! the positive range; strings shorter than two characters or holding a backslash.

use sdk::java::JavaParsed;
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-literal-unfold",
    description: "Rewrites Java int, long and string literals as equal constant expressions",
    category: "expression",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<_> = p
        .nodes()
        .into_iter()
        .filter(|n| match n.kind() {
            "decimal_integer_literal" => {
                let t = p.text(*n);
                let digits = t.trim_end_matches(['l', 'L']);
                !t.contains('_')
                    && digits.parse::<u64>().is_ok_and(|v| {
                        if digits.len() < t.len() {
                            v < i64::MAX as u64
                        } else {
                            v < i32::MAX as u64
                        }
                    })
            }
            "string_literal" => {
                let t = p.text(*n);
                !t.starts_with("\"\"\"") && !t.contains('\\') && t.chars().count() >= 4
            }
            _ => false,
        })
        .collect();
    for i in rng.sites(sites.len(), 0.4) {
        let n = sites[i];
        let t = p.text(n);
        let text = if n.kind() == "string_literal" {
            let inner: Vec<char> = t[1..t.len() - 1].chars().collect();
            let at = 1 + rng.below(inner.len() - 1);
            let (a, b): (String, String) =
                (inner[..at].iter().collect(), inner[at..].iter().collect());
            format!("(\"{a}\" + \"{b}\")")
        } else {
            let long = t.ends_with(['l', 'L']);
            let v: u64 = t.trim_end_matches(['l', 'L']).parse().unwrap_or(0);
            let suffix = if long { "L" } else { "" };
            if v < 2 || rng.chance(0.3) {
                format!("0x{v:X}{suffix}")
            } else {
                let a = 1 + rng.below((v - 1).min(1 << 30) as usize) as u64;
                format!("({a}{suffix} + {}{suffix})", v - a)
            }
        };
        edits.replace(n.byte_range(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn limits_and_escapes_are_left_alone() {
        sdk::testing::assert_declines(
            apply,
            &["class A { int f() { return -2147483648; } long g() { return -9223372036854775808L; } String s = \"a\\nb\"; int o = 017; double d = 1.5; char c = 'x'; }"],
            16,
        );
    }
}
