//! Trivially equivalent mutants: a Python mutant whose bytecode, once compiled, is the
//! original's (line numbers aside) behaves exactly as the original, whatever the tests. CPython
//! folds constants and drops unreachable code when it compiles, so an edit there can vanish.
//! Such mutants are left out before the tests judge anything: no test could reject them, and
//! counting them as survivors would understate the tests (trivial compiler equivalence).
//!
//! The comparison runs in the oracle's sandbox (compiling runs no program code, but the source
//! is the user's). Java mutants are not compared (no compiler round here); all are kept.

use super::mutants::Mutant;
use crate::oracle::{ExitClass, Oracle};
use crate::program::Language;
use std::time::Duration;

/// Reads `{"original": …, "mutants": […]}` on stdin and prints one character per mutant: `1`
/// when its code objects equal the original's in everything but line numbers and positions.
const COMPARE: &str = r#"import sys, json, types
def norm(c):
    consts = tuple(norm(k) if isinstance(k, types.CodeType) else (type(k).__name__, repr(k))
                   for k in c.co_consts)
    return (c.co_code, consts, c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars,
            c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount, c.co_flags, c.co_name)
def key(src):
    try:
        return norm(compile(src, "<mutant>", "exec", dont_inherit=True))
    except BaseException:
        return None
d = json.loads(sys.stdin.read())
o = key(d["original"])
print("".join("1" if o is not None and key(m) == o else "0" for m in d["mutants"]))
"#;

/// Longest the comparison may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// `mutants` of `original` (a program of `language`) without the trivially equivalent ones, and
/// how many those were. When the comparison cannot be made (Java, a sandbox failure), all are
/// kept.
pub fn without_trivially_equivalent(
    oracle: &Oracle,
    language: Language,
    original: &str,
    mutants: Vec<Mutant>,
) -> (Vec<Mutant>, usize) {
    if language != Language::Python || mutants.is_empty() {
        return (mutants, 0);
    }
    let sources: Vec<&str> = mutants.iter().map(|m| m.source.as_str()).collect();
    let input = serde_json::json!({ "original": original, "mutants": sources }).to_string();
    let run = oracle.run(COMPARE, &input, TIMEOUT);
    let flags: Vec<bool> = run.stdout.trim_end().chars().map(|c| c == '1').collect();
    if run.class != ExitClass::Success || flags.len() != mutants.len() {
        return (mutants, 0);
    }
    let dropped = flags.iter().filter(|f| **f).count();
    let kept = mutants
        .into_iter()
        .zip(flags)
        .filter(|(_, same)| !same)
        .map(|(m, _)| m)
        .collect();
    (kept, dropped)
}

/// At most `options.max_mutants` mutants of `source` (see [`super::mutants::mutants_of`]),
/// less the trivially equivalent ones, and how many those were.
pub fn mutants_to_judge(
    oracle: &Oracle,
    language: Language,
    source: &str,
    options: super::score::MutantOptions,
) -> (Vec<Mutant>, usize) {
    let ms = super::mutants::mutants_of(language, source, options.max_mutants, options.seed);
    without_trivially_equivalent(oracle, language, source, ms)
}
