//! Mutants of a Python, Java, C or C++ program: small semantic-changing edits (the classic mutation
//! operators) used to measure how much a task's tests can tell apart.
//!
//! Both languages get the same operator families where the language has the construct:
//! arithmetic and comparison swaps, `and`/`or` (`&&`/`||`), integer constants ± 1, `True`/`False`
//! (`true`/`false`), negated conditions, swapped `if`/`else` bodies, dropped statements,
//! `min`/`max` (`Math.min`/`Math.max`), a wrong returned value, a dropped `else`, the first two
//! arguments of a call swapped, a variable read replaced by another (in Java, one of the same
//! declared type) and `break` ↔ `continue`; slice and `range` bounds are Python's only
//! (`python.rs`, `java.rs`). A Java mutant that parses may still not compile (a dropped `return`
//! in a method that needs one): the oracle reports it as an invalid candidate, and the score
//! leaves it out (see [`super::score`]).
//!
//! Every site of every operator is enumerated in source order; each mutant is one edit. Mutants
//! that do not parse, equal the original, or repeat another mutant's text are dropped. When more
//! are asked for than exist, all are kept; otherwise a seeded sample is taken, so the same seed
//! gives the same mutants.

use crate::program::{validate_as, Language};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use tree_sitter::Node;

mod cfamily;
mod java;
mod python;

/// The mutation operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `<` → `<=`, `==` → `!=`, `in` → `not in`, …
    Comparison,
    /// `+` → `-`, `*` → `+`, `//` → `*`, … (also in `+=`).
    Arithmetic,
    /// `and` ↔ `or`.
    Boolean,
    /// An integer constant ± 1.
    Constant,
    /// `True` ↔ `False`.
    Truth,
    /// `if c:` → `if not (c):` (also `elif`, `while`), and `not c` → `c`.
    NegateCondition,
    /// The bodies of an `if`/`else` swapped.
    SwapBranches,
    /// A statement replaced by `pass`.
    DropStatement,
    /// A slice bound ± 1, or a missing start made 1.
    SliceBound,
    /// `range(a, b)`: an argument ± 1.
    RangeBound,
    /// `min` ↔ `max`.
    MinMax,
    /// `return e` → `return None` (Java: `0`, `!(e)` or `null` by the declared return type).
    ReturnValue,
    /// The `else` of an `if` dropped.
    DropElse,
    /// The first two positional arguments of a call swapped.
    SwapArguments,
    /// A variable read replaced by another variable of the same function (Java: of the same
    /// declared type).
    WrongVariable,
    /// `break` → `return` in a Python function, `break` ↔ `continue`.
    LoopExit,
}

impl Operator {
    /// The operator's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Operator::Comparison => "comparison",
            Operator::Arithmetic => "arithmetic",
            Operator::Boolean => "boolean",
            Operator::Constant => "constant",
            Operator::Truth => "truth",
            Operator::NegateCondition => "negate-condition",
            Operator::SwapBranches => "swap-branches",
            Operator::DropStatement => "drop-statement",
            Operator::SliceBound => "slice-bound",
            Operator::RangeBound => "range-bound",
            Operator::MinMax => "min-max",
            Operator::ReturnValue => "return-value",
            Operator::DropElse => "drop-else",
            Operator::SwapArguments => "swap-arguments",
            Operator::WrongVariable => "wrong-variable",
            Operator::LoopExit => "loop-exit",
        }
    }
}

/// One mutant of a program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Index in the enumeration of all sites (stable for a program).
    pub site: usize,
    /// The operator.
    pub operator: Operator,
    /// 1-based line of the edit.
    pub line: usize,
    /// The edit, in words (`` `<` → `<=` ``).
    pub edit: String,
    /// The mutated program.
    #[serde(skip)]
    pub source: String,
}

/// One edit: replace `start..end` of the source by `text`.
struct Edit {
    operator: Operator,
    start: usize,
    end: usize,
    text: String,
    line: usize,
}

/// Every mutant of the Python program `source` (parsing, distinct, different from `source`), in
/// site order.
pub fn all_mutants(source: &str) -> Vec<Mutant> {
    all_mutants_of(Language::Python, source)
}

/// Every mutant of `source`, a program of `language` (parsing, distinct, different from
/// `source`), in site order.
pub fn all_mutants_of(language: Language, source: &str) -> Vec<Mutant> {
    // A program that does not parse has no mutants (every mutant would be invalid too).
    if validate_as(language, source).is_err() {
        return Vec::new();
    }
    let Some(tree) = parse(language, source) else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    match language {
        Language::Python => python::collect(tree.root_node(), source, &mut edits),
        Language::Java => java::collect_java(tree.root_node(), source, &mut edits),
        Language::Cpp | Language::C => cfamily::collect(tree.root_node(), source, &mut edits),
    }
    let mut seen = HashSet::new();
    seen.insert(source.to_string());
    let mut out = Vec::new();
    for (site, e) in edits.into_iter().enumerate() {
        let (Some(head), Some(old), Some(tail)) = (
            source.get(..e.start),
            source.get(e.start..e.end),
            source.get(e.end..),
        ) else {
            continue;
        };
        let mutated = format!("{head}{}{tail}", e.text);
        if validate_as(language, &mutated).is_err() || !seen.insert(mutated.clone()) {
            continue;
        }
        let before = one_line(old);
        out.push(Mutant {
            site,
            operator: e.operator,
            line: e.line,
            edit: format!("`{before}` → `{}`", one_line(&e.text)),
            source: mutated,
        });
    }
    out
}

/// The parse tree of `source` with `language`'s grammar (`None` if the grammar does not load).
fn parse(language: Language, source: &str) -> Option<tree_sitter::Tree> {
    language.parse(source).ok()
}

/// At most `max` mutants of the Python program `source`, a sample drawn with `seed` when there
/// are more (kept in site order).
pub fn mutants(source: &str, max: usize, seed: u64) -> Vec<Mutant> {
    mutants_of(Language::Python, source, max, seed)
}

/// At most `max` mutants of `source`, a program of `language`, a sample drawn with `seed` when
/// there are more (kept in site order).
pub fn mutants_of(language: Language, source: &str, max: usize, seed: u64) -> Vec<Mutant> {
    let mut all = all_mutants_of(language, source);
    if all.len() > max {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        all.shuffle(&mut rng);
        all.truncate(max);
        all.sort_by_key(|m| m.site);
    }
    all
}

/// A short one-line rendering of a piece of code.
fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 40 {
        format!("{}…", flat.chars().take(40).collect::<String>())
    } else {
        flat
    }
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// Whether `n` is the child of `parent` named `field`.
fn is_field(parent: Node<'_>, field: &str, n: Node<'_>) -> bool {
    parent
        .child_by_field_name(field)
        .is_some_and(|c| c.id() == n.id())
}

fn push(edits: &mut Vec<Edit>, operator: Operator, n: Node<'_>, text: impl Into<String>) {
    edits.push(Edit {
        operator,
        start: n.start_byte(),
        end: n.end_byte(),
        text: text.into(),
        line: n.start_position().row + 1,
    });
}

/// The replacements of a comparison operator in a brace language (Java, C, C++).
fn brace_comparison_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "<" => &["<=", ">"],
        "<=" => &["<", ">="],
        ">" => &[">=", "<"],
        ">=" => &[">", "<="],
        "==" => &["!="],
        "!=" => &["=="],
        _ => &[],
    }
}

/// The replacements of an arithmetic or bitwise operator in a brace language (`/` → `*`:
/// there is no `//`; `>>>` is Java's).
fn brace_arithmetic_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-"],
        "-" => &["+"],
        "*" => &["+"],
        "/" => &["*"],
        "%" => &["/"],
        "<<" => &[">>"],
        ">>" => &["<<"],
        ">>>" => &["<<"],
        "&" => &["|"],
        "|" => &["&"],
        "^" => &["&"],
        _ => &[],
    }
}

/// The operator mutants of a brace language's binary expression, compound assignment or
/// `++`/`--` (`n`): comparison, arithmetic and boolean swaps. `stream`: `n` is a stream's
/// `<<`/`>>` (`cout << x`), which gets no arithmetic swap.
fn push_operator_swaps(n: Node<'_>, edits: &mut Vec<Edit>, stream: bool) {
    match n.kind() {
        "binary_expression" => {
            let Some(op) = n.child_by_field_name("operator") else {
                return;
            };
            let k = op.kind();
            for s in brace_comparison_swaps(k) {
                push(edits, Operator::Comparison, op, *s);
            }
            if !stream {
                for s in brace_arithmetic_swaps(k) {
                    push(edits, Operator::Arithmetic, op, *s);
                }
            }
            match k {
                "&&" => push(edits, Operator::Boolean, op, "||"),
                "||" => push(edits, Operator::Boolean, op, "&&"),
                _ => {}
            }
        }
        "assignment_expression" => {
            if let Some(op) = n.child_by_field_name("operator") {
                let k = op.kind();
                if k.len() > 1 {
                    for s in brace_arithmetic_swaps(k.trim_end_matches('=')) {
                        push(edits, Operator::Arithmetic, op, format!("{s}="));
                    }
                }
            }
        }
        "update_expression" => {
            let mut c = n.walk();
            for child in n.children(&mut c) {
                match child.kind() {
                    "++" => push(edits, Operator::Arithmetic, child, "--"),
                    "--" => push(edits, Operator::Arithmetic, child, "++"),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The node kinds that decide whether a `break` or `continue` belongs to a loop.
struct LoopKinds {
    /// Loops.
    loops: &'static [&'static str],
    /// Statements whose `break` is theirs, not a loop's (`switch`).
    switches: &'static [&'static str],
    /// Where the search stops: functions, lambdas, class bodies.
    stops: &'static [&'static str],
}

/// `break` ↔ `continue` for a jump `n` (without a label) inside a loop of `kinds`.
fn push_loop_exit(n: Node<'_>, edits: &mut Vec<Edit>, kinds: &LoopKinds) {
    if n.named_child_count() > 0 {
        return;
    }
    let mut up = n.parent();
    while let Some(p) = up {
        let k = p.kind();
        if kinds.loops.contains(&k) {
            break;
        }
        if (kinds.switches.contains(&k) && n.kind() == "break_statement")
            || kinds.stops.contains(&k)
        {
            return;
        }
        up = p.parent();
    }
    if up.is_none() {
        return;
    }
    let other = if n.kind() == "break_statement" {
        "continue;"
    } else {
        "break;"
    };
    push(edits, Operator::LoopExit, n, other);
}

/// `f(a, b, …)` → `f(b, a, …)` when the first two arguments differ (a swap of two values of
/// different types that does not compile is left out).
fn push_swapped_arguments(n: Node<'_>, src: &str, edits: &mut Vec<Edit>) {
    let Some(args) = n.child_by_field_name("arguments") else {
        return;
    };
    let mut c = args.walk();
    let list: Vec<Node<'_>> = args.named_children(&mut c).collect();
    let [a, b, ..] = list.as_slice() else {
        return;
    };
    let (ta, tb) = (text(*a, src), text(*b, src));
    if ta == tb {
        return;
    }
    let between = src.get(a.end_byte()..b.start_byte()).unwrap_or(", ");
    edits.push(Edit {
        operator: Operator::SwapArguments,
        start: a.start_byte(),
        end: b.end_byte(),
        text: format!("{tb}{between}{ta}"),
        line: n.start_position().row + 1,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::validate;

    const PROGRAM: &str = "n = int(input())\nxs = list(map(int, input().split()))\nbest = 0\nfor i in range(1, n):\n    if xs[i] > xs[i - 1] and xs[i] % 2 == 0:\n        best += xs[i]\n    else:\n        best -= 1\nprint(max(best, 0), xs[:n])\n";

    const FUNCTION: &str = "def f(xs, k):\n    best = 0\n    for x in xs:\n        if x > k:\n            break\n        elif x == k:\n            continue\n        else:\n            best = max(best, x)\n    return pow(best, 2)\nprint(f([1, 2, 3], 2))\n";

    fn edits_of(op: Operator) -> Vec<String> {
        all_mutants(FUNCTION)
            .into_iter()
            .filter(|m| m.operator == op)
            .map(|m| m.edit)
            .collect()
    }

    #[test]
    fn the_wider_operators_make_the_mutants_they_name() {
        assert_eq!(edits_of(Operator::ReturnValue), ["`pow(best, 2)` → `None`"]);
        let dropped = all_mutants(FUNCTION)
            .into_iter()
            .find(|m| m.operator == Operator::DropElse)
            .map(|m| m.source)
            .unwrap_or_default();
        assert!(
            !dropped.contains("else:") && dropped.contains("elif x == k:"),
            "{dropped}"
        );
        // `f([1, 2, 3], 2)` and `pow(best, 2)` swap; `max(best, x)` does not (same value).
        let swaps = edits_of(Operator::SwapArguments);
        assert!(
            swaps.contains(&"`best, 2` → `2, best`".to_string()),
            "{swaps:?}"
        );
        assert!(swaps.iter().all(|e| !e.contains("best, x")), "{swaps:?}");
        let exits = edits_of(Operator::LoopExit);
        for e in [
            "`break` → `continue`",
            "`break` → `return`",
            "`continue` → `break`",
        ] {
            assert!(exits.contains(&e.to_string()), "{exits:?}");
        }
        // Reads of xs, k, best and x become the next bound name; bindings stay.
        let wrong = edits_of(Operator::WrongVariable);
        assert!(wrong.contains(&"`k` → `x`".to_string()), "{wrong:?}");
        assert!(wrong.contains(&"`xs` → `best`".to_string()), "{wrong:?}");
        assert!(
            !wrong
                .iter()
                .any(|e| e.contains("`f`") || e.contains("`max`")),
            "{wrong:?}"
        );
        for m in all_mutants(FUNCTION) {
            assert!(validate(&m.source).is_ok(), "{}", m.edit);
        }
    }

    #[test]
    fn every_mutant_parses_differs_and_is_distinct() {
        let all = all_mutants(PROGRAM);
        assert!(all.len() > 20, "{}", all.len());
        let mut seen = HashSet::new();
        for m in &all {
            assert!(validate(&m.source).is_ok(), "{}", m.edit);
            assert_ne!(m.source, PROGRAM);
            assert!(seen.insert(m.source.clone()));
        }
        let ops: HashSet<Operator> = all.iter().map(|m| m.operator).collect();
        for op in [
            Operator::Comparison,
            Operator::Arithmetic,
            Operator::Boolean,
            Operator::Constant,
            Operator::NegateCondition,
            Operator::SwapBranches,
            Operator::DropStatement,
            Operator::SliceBound,
            Operator::RangeBound,
            Operator::MinMax,
        ] {
            assert!(ops.contains(&op), "{op:?} missing");
        }
    }

    #[test]
    fn sampling_is_deterministic_for_a_seed() {
        let a = mutants(PROGRAM, 10, 7);
        let b = mutants(PROGRAM, 10, 7);
        let c = mutants(PROGRAM, 10, 8);
        assert_eq!(a.len(), 10);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.windows(2).all(|w| w[0].site < w[1].site));
    }

    #[test]
    fn swapped_branches_keep_indentation() {
        let m = all_mutants(PROGRAM)
            .into_iter()
            .find(|m| m.operator == Operator::SwapBranches)
            .expect("a swap");
        assert!(m
            .source
            .contains("    if xs[i] > xs[i - 1] and xs[i] % 2 == 0:\n        best -= 1\n    else:\n        best += xs[i]\n"));
    }

    #[test]
    fn a_program_that_does_not_parse_has_no_mutants() {
        assert!(all_mutants("def f(:\n").is_empty());
        assert!(all_mutants_of(Language::Java, "class Main { void f( }").is_empty());
    }

    const JAVA: &str = "import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int n = in.nextInt();\n        long best = 0L;\n        boolean seen = false;\n        for (int i = 1; i < n; i++) {\n            int x = in.nextInt();\n            if (x > 2 && !seen) {\n                best += x % 3;\n            } else {\n                best = Math.max(best, x * 2);\n            }\n        }\n        // a comment: 7 < 8\n        System.out.println(best);\n    }\n}\n";

    const JAVA_WIDER: &str = "public class Main {\n    static int pick(int a, int b, boolean low) {\n        int lo = Math.min(a, b);\n        int hi = Math.max(a, b);\n        if (low) {\n            return lo;\n        } else {\n            hi = hi * 2;\n        }\n        return hi;\n    }\n    static boolean odd(int v) { return v % 2 == 1; }\n    static String name(int k) {\n        switch (k) {\n            case 1: return \"one\";\n            default: break;\n        }\n        return \"many\";\n    }\n    public static void main(String[] args) {\n        long total = 0L;\n        for (int i = 0; i < 10; i++) {\n            if (odd(i)) continue;\n            if (i > 6) break;\n            total += pick(i, 3, i < 4);\n        }\n        System.out.println(total + name(1));\n    }\n}\n";

    #[test]
    fn java_gets_the_wider_operators_with_types_from_its_declarations() {
        let all = all_mutants_of(Language::Java, JAVA_WIDER);
        let edits = |op: Operator| -> Vec<String> {
            all.iter()
                .filter(|m| m.operator == op)
                .map(|m| m.edit.clone())
                .collect()
        };
        // Returned values by declared type: 0 for int, a negation for boolean, null for String.
        let returns = edits(Operator::ReturnValue);
        for e in [
            "`lo` → `0`",
            "`hi` → `0`",
            "`v % 2 == 1` → `!(v % 2 == 1)`",
            "`\"many\"` → `null`",
        ] {
            assert!(
                returns.iter().any(|r| r == e),
                "{e} missing from {returns:?}"
            );
        }
        // The final else is dropped.
        let dropped = all
            .iter()
            .find(|m| m.operator == Operator::DropElse)
            .map(|m| m.source.clone())
            .unwrap_or_default();
        assert!(
            dropped.contains("return lo;\n        }\n        return hi;"),
            "{dropped}"
        );
        // Arguments swapped, in the program's own calls and the library's.
        let swaps = edits(Operator::SwapArguments);
        assert!(swaps.iter().any(|e| e == "`a, b` → `b, a`"), "{swaps:?}");
        assert!(swaps.iter().any(|e| e.starts_with("`i, 3")), "{swaps:?}");
        // Loop exits: continue ↔ break in the loop, never the switch's break.
        let exits: Vec<usize> = all
            .iter()
            .filter(|m| m.operator == Operator::LoopExit)
            .map(|m| m.line)
            .collect();
        assert_eq!(exits, [23, 24], "{:?}", edits(Operator::LoopExit));
        // Wrong variables only among locals of one declared type (a, b, lo, hi are ints; low
        // is the only boolean, total the only long).
        let wrong = edits(Operator::WrongVariable);
        assert!(wrong.iter().any(|e| e == "`lo` → `a`"), "{wrong:?}");
        assert!(wrong.iter().any(|e| e == "`b` → `hi`"), "{wrong:?}");
        assert!(
            !wrong
                .iter()
                .any(|e| e.contains("low") || e.contains("total")),
            "{wrong:?}"
        );
        for m in &all {
            assert!(validate_as(Language::Java, &m.source).is_ok(), "{}", m.edit);
        }
    }

    #[test]
    fn java_programs_get_every_operator_family_they_have() {
        let all = all_mutants_of(Language::Java, JAVA);
        let mut seen = HashSet::new();
        for m in &all {
            assert!(validate_as(Language::Java, &m.source).is_ok(), "{}", m.edit);
            assert_ne!(m.source, JAVA);
            assert!(seen.insert(m.source.clone()));
            // Comments are not code: nothing in them is mutated.
            assert!(m.source.contains("// a comment: 7 < 8"), "{}", m.edit);
        }
        let ops: HashSet<Operator> = all.iter().map(|m| m.operator).collect();
        for op in [
            Operator::Comparison,
            Operator::Arithmetic,
            Operator::Boolean,
            Operator::Constant,
            Operator::NegateCondition,
            Operator::SwapBranches,
            Operator::DropStatement,
            Operator::MinMax,
        ] {
            assert!(ops.contains(&op), "{op:?} missing");
        }
        let edits: Vec<&str> = all.iter().map(|m| m.edit.as_str()).collect();
        for e in [
            "`<` → `<=`",
            "`&&` → `||`",
            "`0L` → `1L`",
            "`++` → `--`",
            "`+=` → `-=`",
            "`!seen` → `(seen)`",
            "`max` → `min`",
        ] {
            assert!(edits.contains(&e), "{e} missing from {edits:?}");
        }
        assert!(all
            .iter()
            .any(|m| m.source.contains("if (!(x > 2 && !seen)) {")));
        assert_eq!(
            mutants_of(Language::Java, JAVA, 5, 1),
            mutants_of(Language::Java, JAVA, 5, 1)
        );
    }
}
