//! How a dataset's judge holds a program's output against the expected output.
//!
//! Only the validation of an original against the dataset's expected outputs uses a dataset's
//! checker. A candidate is always compared with its original's recorded output exactly (after
//! [`crate::oracle::normalize`]): a rewrite that prints `1.0` where the original printed `1` is
//! a different program, even if a lenient judge would accept both.

use serde::{Deserialize, Serialize};

/// A judge's output rule.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Checker {
    /// Line by line after trailing whitespace and trailing blank lines are dropped (with the
    /// oracle's opt-in `--float-tolerance`).
    #[default]
    Lines,
    /// CodeContests' official rule (`OutputsMatch` in `execution/tester_sandboxer.cc`): both
    /// outputs are split on spaces, tabs, newlines, carriage returns and vertical tabs, empty
    /// pieces dropped, every token lower-cased. Equal token lists match; lists of different
    /// lengths do not; otherwise every pair must match: two tokens of which either is not a
    /// number must be equal, two 32-bit integers must be equal, and any other pair of numbers
    /// may differ by less than 1e-5 (absolute).
    Tokens,
}

/// The absolute tolerance of CodeContests' checker for numbers that are not both 32-bit
/// integers.
pub const CODECONTESTS_TOLERANCE: f64 = 1e-5;

impl Checker {
    /// Whether this is the default rule (not written into task files).
    pub fn is_default(&self) -> bool {
        *self == Checker::Lines
    }

    /// Whether `output` is accepted for `expected` under this rule; `float_tolerance` is the
    /// oracle's opt-in tolerance for [`Checker::Lines`].
    pub fn accepts(&self, expected: &str, output: &str, float_tolerance: Option<f64>) -> bool {
        match self {
            Checker::Lines => {
                crate::task::compare::outputs_equal(expected, output, float_tolerance)
            }
            Checker::Tokens => codecontests_outputs_match(output, expected),
        }
    }
}

fn tokens(s: &str) -> Vec<String> {
    s.split([' ', '\n', '\t', '\r', '\x0b'])
        .filter(|t| !t.is_empty())
        .map(|t| t.to_ascii_lowercase())
        .collect()
}

/// A token as CodeContests' checker reads it: a 32-bit integer, some other number, or text.
enum Value {
    Int(i32),
    Num(f64),
    Text,
}

fn value(token: &str) -> Value {
    // absl::SimpleAtoi takes an optional sign and decimal digits, and fails on overflow.
    if let Ok(i) = token.parse::<i32>() {
        return Value::Int(i);
    }
    // absl::SimpleAtod accepts what strtod does, including "inf" and "nan"; Rust's f64
    // parser accepts the same decimal and exponent forms and the same words.
    match token.parse::<f64>() {
        Ok(d) => Value::Num(d),
        Err(_) => Value::Text,
    }
}

fn values_match(a: &str, b: &str) -> bool {
    match (value(a), value(b)) {
        (Value::Text, _) | (_, Value::Text) => a == b,
        (Value::Int(x), Value::Int(y)) => x == y,
        (x, y) => {
            let f = |v: Value| match v {
                Value::Int(i) => f64::from(i),
                Value::Num(d) => d,
                Value::Text => f64::NAN,
            };
            (f(x) - f(y)).abs() < CODECONTESTS_TOLERANCE
        }
    }
}

/// CodeContests' `OutputsMatch(output, expected)`.
pub fn codecontests_outputs_match(output: &str, expected: &str) -> bool {
    let (o, e) = (tokens(output), tokens(expected));
    if o == e {
        return true;
    }
    o.len() == e.len() && o.iter().zip(&e).all(|(a, b)| values_match(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_case_and_layout_do_not_matter() {
        assert!(codecontests_outputs_match("YES\n", "yes"));
        assert!(codecontests_outputs_match("1 2\n3", "1\n2  3\n\n"));
        assert!(codecontests_outputs_match("a\tb\r\n", "a b"));
        assert!(!codecontests_outputs_match("1 2", "1 2 3"));
        assert!(!codecontests_outputs_match("ab", "a b"));
    }

    #[test]
    fn numbers_within_the_tolerance_match() {
        assert!(codecontests_outputs_match("1.0000000", "1"));
        assert!(codecontests_outputs_match("0.333333", "0.3333333333"));
        assert!(!codecontests_outputs_match("0.3333", "0.3333333333"));
        // Two 32-bit integers must be equal, whatever the tolerance.
        assert!(!codecontests_outputs_match("2", "3"));
        // Integers beyond 32 bits are read as doubles: 2^53 and 2^53 + 1 are one double.
        assert!(codecontests_outputs_match(
            "9007199254740993",
            "9007199254740992"
        ));
        assert!(!codecontests_outputs_match("1e5", "100001"));
        assert!(codecontests_outputs_match("1e5", "100000"));
        // Text against a number, and NaN against anything, never match unless identical.
        assert!(!codecontests_outputs_match("one", "1"));
        assert!(!codecontests_outputs_match("nan", "0"));
        assert!(codecontests_outputs_match("nan", "NaN"));
    }

    #[test]
    fn lines_rule_is_the_oracle_rule() {
        assert!(Checker::Lines.accepts("1 2\n", "1 2  \n\n", None));
        assert!(!Checker::Lines.accepts("1", "1.0", None));
        assert!(Checker::Tokens.accepts("1", "1.0", None));
    }
}
