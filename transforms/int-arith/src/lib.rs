//! # int-arith
//!
//! ## What it does
//! Rewrites integer arithmetic on operands proved to be `int` (Auto-SPT's "modular arithmetic
//! distribution" and "state variable accumulation with bitwise memory"), both ways:
//! - `x * 8` ↔ `(x << 3)`, `x // 8` ↔ `(x >> 3)`, `x % 8` ↔ `(x & 7)`, and the augmented
//!   forms `x *= 8` ↔ `x <<= 3`, `x //= 8` ↔ `x >>= 3`, `x %= 8` ↔ `x &= 7`;
//! - `(a + b) % m` → `((a % m + b % m) % m)`, likewise for `-` and `*`.
//!
//! ## Why it preserves semantics
//! On Python's unbounded integers, `x << k == x * 2**k`, `x >> k == x // 2**k` (both round
//! towards negative infinity) and `x & (2**k - 1) == x % 2**k` (both in `0..2**k`), for negative
//! `x` too; modular reduction distributes over `+`, `-` and `*` for a positive modulus. The
//! operands are proved to be ints or bools by the SDK's type facts (literals, `len()`, `range`
//! loop variables, arithmetic on known ints…), so no user type's `__mul__`/`__lshift__` can
//! notice. Each operand is still evaluated once and in the same order; the modulus, evaluated
//! several times, is an integer literal.
//!
//! ## Example
//! ```python
//! n = len(xs)
//! half = n // 2
//! ```
//! becomes
//! ```python
//! n = len(xs)
//! half = (n >> 1)
//! ```
//!
//! ## Not applied when
//! - an operand's type is not proved to be `int`/`bool` (parameters, attributes, unknown calls,
//!   floats: `2.0 * 4` must stay a float, `x // 4` on floats is not a shift);
//! - the power of two is not a plain positive literal or is above `2**30`, or the modulus is not
//!   a positive integer literal;
//! - the expression is in a self-documenting f-string field (`f"{n * 4=}"`).

use sdk::parse::{named_children, Parsed};
use sdk::pyast::in_debug_fstring;
use sdk::scope::ScopeInfo;
use sdk::text::paren_if;
use sdk::types::{PyType, TypeFacts};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "int-arith",
    description: "Rewrite arithmetic on proven ints: multiply/divide/modulo by powers of two as shifts and masks, modulo distribution",
    category: "expression",
    rewrite: rewrite,
);

/// `k` when `v == 2**k` with `1 <= k <= 30`.
fn pow2_exponent(v: i64) -> Option<u32> {
    ((2..=1 << 30).contains(&v) && v.count_ones() == 1).then(|| v.trailing_zeros())
}

struct Ctx<'a> {
    parsed: &'a Parsed,
    info: ScopeInfo,
    facts: TypeFacts,
}

impl Ctx<'_> {
    fn is_int(&self, n: Node<'_>) -> bool {
        matches!(
            self.facts.of_expr(self.parsed, &self.info, n),
            Some(PyType::Int | PyType::Bool)
        )
    }

    /// `k` when `n` is a plain literal `2**k` with `1 <= k <= 30`.
    fn log2(&self, n: Node<'_>) -> Option<u32> {
        pow2_exponent(self.literal(n)?)
    }

    /// The value of a plain non-negative integer literal.
    fn literal(&self, n: Node<'_>) -> Option<i64> {
        if n.kind() != "integer" {
            return None;
        }
        sdk::pyast::int_literal(self.parsed, n)
    }

    fn text(&self, n: Node<'_>) -> String {
        self.parsed.text(n).to_string()
    }

    /// `n`'s text, parenthesised when it is a binary operation (its operator may bind looser
    /// than the one it moves under).
    fn operand(&self, n: Node<'_>) -> String {
        paren_if(
            self.parsed.text(n),
            matches!(n.kind(), "binary_operator" | "unary_operator"),
        )
    }

    /// The rewrite of a binary operation, if one applies.
    fn binary(&self, node: Node<'_>) -> Option<String> {
        let l = node.child_by_field_name("left")?;
        let r = node.child_by_field_name("right")?;
        let op = self.parsed.text(node.child_by_field_name("operator")?);
        match op {
            "*" if self.is_int(l) && self.log2(r).is_some() => {
                Some(format!("({} << {})", self.text(l), self.log2(r)?))
            }
            "*" if self.is_int(r) && self.log2(l).is_some() => {
                Some(format!("({} << {})", self.text(r), self.log2(l)?))
            }
            "//" if self.is_int(l) => Some(format!("({} >> {})", self.text(l), self.log2(r)?)),
            "%" if self.is_int(l) && self.log2(r).is_some() => {
                Some(format!("({} & {})", self.text(l), self.literal(r)? - 1))
            }
            "%" => self.distribute(l, r),
            "<<" | ">>" if self.is_int(l) => {
                let k = self.literal(r).filter(|k| (1..=30).contains(k))?;
                let sym = if op == "<<" { "*" } else { "//" };
                Some(format!("({} {sym} {})", self.operand(l), 1i64 << k))
            }
            "&" if self.is_int(l) => {
                let m = self.literal(r)?;
                let p = m.checked_add(1)?;
                pow2_exponent(p)?;
                Some(format!("({} % {p})", self.operand(l)))
            }
            _ => None,
        }
    }

    /// `(a + b) % m` → `((a % m + b % m) % m)`.
    fn distribute(&self, l: Node<'_>, m: Node<'_>) -> Option<String> {
        let modulus = self.literal(m).filter(|v| *v > 0)?;
        if l.kind() != "parenthesized_expression" {
            return None;
        }
        let inner = named_children(l);
        let [sum] = inner.as_slice() else {
            return None;
        };
        if sum.kind() != "binary_operator" {
            return None;
        }
        let op = self.parsed.text(sum.child_by_field_name("operator")?);
        let (a, b) = (
            sum.child_by_field_name("left")?,
            sum.child_by_field_name("right")?,
        );
        if !matches!(op, "+" | "-" | "*") || !self.is_int(a) || !self.is_int(b) {
            return None;
        }
        let m = modulus;
        Some(format!(
            "(({} % {m} {op} {} % {m}) % {m})",
            self.operand(a),
            self.operand(b)
        ))
    }

    /// The rewrite of an augmented assignment to a proven-int name, if one applies.
    fn augmented(&self, node: Node<'_>) -> Option<String> {
        let l = node.child_by_field_name("left")?;
        let r = node.child_by_field_name("right")?;
        let op = self.parsed.text(node.child_by_field_name("operator")?);
        if l.kind() != "identifier" || !self.is_int(l) {
            return None;
        }
        let target = self.text(l);
        let new = match op {
            "*=" => format!("<<= {}", self.log2(r)?),
            "//=" => format!(">>= {}", self.log2(r)?),
            "%=" => format!("&= {}", self.literal(r)? - 1).to_string(),
            "<<=" | ">>=" => {
                let k = self.literal(r).filter(|k| (1..=30).contains(k))?;
                let sym = if op == "<<=" { "*=" } else { "//=" };
                format!("{sym} {}", 1i64 << k)
            }
            "&=" => {
                let p = self.literal(r)?.checked_add(1)?;
                pow2_exponent(p)?;
                format!("%= {p}")
            }
            _ => return None,
        };
        if op == "%=" {
            self.log2(r)?;
        }
        Some(format!("{target} {new}"))
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let info = ScopeInfo::analyze(parsed);
    let facts = TypeFacts::analyze(parsed, &info);
    let ctx = Ctx {
        parsed,
        info,
        facts,
    };
    let sites: Vec<(Node<'_>, String)> = parsed
        .nodes()
        .into_iter()
        .filter(|n| !in_debug_fstring(parsed, *n))
        .filter_map(|n| {
            let text = match n.kind() {
                "binary_operator" => ctx.binary(n),
                "augmented_assignment" => ctx.augmented(n),
                _ => None,
            };
            text.map(|t| (n, t))
        })
        .collect();
    sdk::edit::replace_some(rng, &sites, 0.5)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_unproven_types_and_odd_constants() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f(x):\n    return x * 4, x // 2, x % 8\n",
                "def f():\n    x = 2.0\n    return x * 4, x // 2, x % 8\n",
                "def f():\n    x = 3\n    return x * 3, x // 6, x % 10, x << 40, x & 6\n",
                "def f(a):\n    b = 1\n    return (a + b) % 7, (b + 1) % -3\n",
                "def f():\n    x = 5\n    return f\"{x * 4=}\"\n",
                "x = 5\nprint(x * 4)\n",
            ],
            8,
        );
    }
}
