//! Trivially equivalent mutants: a mutant whose compiled form is the original's behaves
//! exactly as the original, whatever the tests. CPython and javac fold constants and drop
//! unreachable code when they compile, so an edit there can vanish. Such mutants are left out
//! before the tests judge anything: no test could reject them, and counting them as survivors
//! would understate the tests (trivial compiler equivalence).
//!
//! Python: code objects compared in everything but line numbers and positions. Java: class
//! files compiled with `-g:none` (no line numbers, local names or source file) compared byte
//! for byte, by `CompareClasses.java` run through the warm Java worker. Both comparisons run in
//! the oracle's sandbox (compiling runs no program code, but the source is the user's). C and
//! C++: the binaries of the oracle's run build (`-O1`, no debug information), compiled in its
//! sandbox, compared byte for byte; they are the binaries the tests then run, taken from the
//! oracle's build cache, so the comparison costs no extra compile.

use super::mutants::Mutant;
use crate::oracle::native::Build;
use crate::oracle::{ExitClass, Oracle};
use crate::program::Language;
use rayon::prelude::*;
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

/// The Java comparison: reads the original and the mutants framed by their lengths in UTF-16
/// units and prints one character per mutant, as [`COMPARE`] does.
const COMPARE_JAVA: &str = include_str!("CompareClasses.java");

/// Longest the comparison may take (javac takes tens of milliseconds a mutant once warm).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The Java comparison's stdin: the mutant count, then each source (the original first) as a
/// line with its length in UTF-16 units (Java's `String` length) followed by its text.
fn java_frames(original: &str, mutants: &[Mutant]) -> String {
    let mut out = format!("{}\n", mutants.len());
    for s in std::iter::once(original).chain(mutants.iter().map(|m| m.source.as_str())) {
        out.push_str(&format!("{}\n", s.encode_utf16().count()));
        out.push_str(s);
    }
    out
}

/// `mutants` of `original` (a program of `language`) without the trivially equivalent ones, and
/// how many those were. When the comparison cannot be made (a sandbox failure, no JDK), all
/// are kept.
pub fn without_trivially_equivalent(
    oracle: &Oracle,
    language: Language,
    original: &str,
    mutants: Vec<Mutant>,
) -> (Vec<Mutant>, usize) {
    if mutants.is_empty() {
        return (mutants, 0);
    }
    let run = match language {
        Language::Cpp | Language::C => {
            return without_same_binary(oracle, language, original, mutants)
        }
        Language::Python => {
            let sources: Vec<&str> = mutants.iter().map(|m| m.source.as_str()).collect();
            let input = serde_json::json!({ "original": original, "mutants": sources });
            oracle.run(COMPARE, &input.to_string(), TIMEOUT)
        }
        Language::Java => oracle.run_in(
            Language::Java,
            COMPARE_JAVA,
            &java_frames(original, &mutants),
            TIMEOUT,
            crate::oracle::REFERENCE_HASH_SEED,
        ),
    };
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

/// [`without_trivially_equivalent`] for C and C++: mutants whose binary is the original's are
/// dropped. A mutant that does not compile is kept (it is then found invalid, never a verdict).
fn without_same_binary(
    oracle: &Oracle,
    language: Language,
    original: &str,
    mutants: Vec<Mutant>,
) -> (Vec<Mutant>, usize) {
    let Ok(runner) = oracle.native_runner() else {
        return (mutants, 0);
    };
    let Some(reference) = runner.binary_bytes(language, original, Build::Run) else {
        return (mutants, 0);
    };
    let same: Vec<bool> = mutants
        .par_iter()
        .map(|m| {
            runner
                .binary_bytes(language, &m.source, Build::Run)
                .is_some_and(|b| b == reference)
        })
        .collect();
    let dropped = same.iter().filter(|s| **s).count();
    let kept = mutants
        .into_iter()
        .zip(same)
        .filter(|(_, s)| !s)
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
