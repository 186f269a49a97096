//! Validity of candidate programs: they must parse with their language's grammar (no ERROR or
//! MISSING node), and a content hash identifies them for deduplication and caching.

use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

pub use crate::language::Language;

/// Why a text is not a valid program of its language.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InvalidProgram {
    /// A syntax error near this 1-based line and column.
    #[error("syntax error at line {line}, column {column}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column (in bytes).
        column: usize,
    },
    /// The parser gave up (e.g. the grammar could not be loaded).
    #[error("the parser failed: {0}")]
    Parser(String),
}

/// A 256-bit content hash (BLAKE3) of a program's text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProgramHash(pub [u8; 32]);

impl ProgramHash {
    /// The hash of `source`.
    pub fn of(source: &str) -> Self {
        ProgramHash(*blake3::hash(source.as_bytes()).as_bytes())
    }

    /// Lower-case hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Debug for ProgramHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProgramHash({})", &self.to_hex()[..16])
    }
}

impl fmt::Display for ProgramHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Runs `f` on the parse tree of `source` with `language`'s grammar (one parser per thread and
/// language, see [`Language::parse`]).
pub(crate) fn with_tree_as<T>(
    language: Language,
    source: &str,
    f: impl FnOnce(&tree_sitter::Tree) -> Result<T, InvalidProgram>,
) -> Result<T, InvalidProgram> {
    let tree = language
        .parse(source)
        .map_err(|e| InvalidProgram::Parser(e.to_string()))?;
    f(&tree)
}

/// Runs `f` on the tree-sitter-python parse tree of `source`.
pub(crate) fn with_tree<T>(
    source: &str,
    f: impl FnOnce(&tree_sitter::Tree) -> Result<T, InvalidProgram>,
) -> Result<T, InvalidProgram> {
    with_tree_as(Language::Python, source, f)
}

/// Checks that `source` parses as a program of `language` (its grammar in the registry) with
/// no ERROR or MISSING node. A C or C++ program also parses when it does once its
/// statement-header macros (`rep(i, n) stmt;`) are masked, as the guest SDK parses it (the
/// same rule, [`crate::language::mask`]).
pub fn validate_as(language: Language, source: &str) -> Result<(), InvalidProgram> {
    let syntax = |tree: &tree_sitter::Tree| match crate::language::first_error(tree.root_node()) {
        None => Ok(()),
        Some(n) => {
            let p = n.start_position();
            Err(InvalidProgram::Syntax {
                line: p.row + 1,
                column: p.column + 1,
            })
        }
    };
    let first = with_tree_as(language, source, syntax);
    match (&first, language.is_native()) {
        (Err(InvalidProgram::Syntax { .. }), true) => match crate::language::mask::mask(source) {
            Some((masked, _)) => with_tree_as(language, &masked, syntax).or(first),
            None => first,
        },
        _ => first,
    }
}

/// Checks that `source` parses as Python with no ERROR or MISSING node.
pub fn validate(source: &str) -> Result<(), InvalidProgram> {
    validate_as(Language::Python, source)
}

/// Whether `source` uses a statement only Python 2 has (`print x`, `exec code`) or its `<>`
/// operator: the grammar accepts them, Python 3 does not.
pub fn uses_python2_syntax(source: &str) -> bool {
    with_tree(source, |tree| {
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if matches!(n.kind(), "print_statement" | "exec_statement" | "<>") {
                return Ok(true);
            }
            stack.extend(n.children(&mut cursor));
        }
        Ok(false)
    })
    .unwrap_or(false)
}

/// What a transform's output is: a new valid program, no change, or not Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classified {
    /// A new valid program.
    Valid(String),
    /// The output equals the input: the transform did not apply.
    Unchanged,
    /// The output does not parse.
    Invalid(InvalidProgram),
}

/// Classifies `output`, the result of transforming `input` (a Python program).
pub fn classify(input: &str, output: String) -> Classified {
    classify_as(Language::Python, input, output)
}

/// Classifies `output`, the result of transforming `input`, a program of `language`.
pub fn classify_as(language: Language, input: &str, output: String) -> Classified {
    if output == input {
        return Classified::Unchanged;
    }
    match validate_as(language, &output) {
        Ok(()) => Classified::Valid(output),
        Err(e) => Classified::Invalid(e),
    }
}

/// One step of a transform sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Step {
    /// Transform name.
    pub name: String,
    /// Seed it was applied with.
    pub seed: u64,
}

/// A program on its way through the pipeline: made by a sequence of transforms from a task's
/// original, then scored by the detector and checked by the oracle. Every job (attack, augment,
/// select) and every sink sees candidates of this one type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Its text.
    pub text: String,
    /// Its content hash.
    #[serde(skip)]
    pub hash: ProgramHash,
    /// M(original, text); NaN until the detector has scored it (1 for the original).
    pub similarity: f32,
    /// M by the search's cheap scorer, when one ranked it (`attack --scorer`): it only orders
    /// candidates; `similarity` alone decides winners and reports.
    #[serde(skip)]
    pub cheap: Option<f32>,
    /// How it was reached from the original (empty for the original).
    pub steps: Vec<Step>,
}

impl Candidate {
    /// A task's original program (similarity 1, no steps).
    pub fn original(source: &str) -> Self {
        Candidate {
            text: source.to_string(),
            hash: ProgramHash::of(source),
            similarity: 1.0,
            cheap: None,
            steps: Vec::new(),
        }
    }

    /// A new unscored program: `parent` followed by one more step.
    pub fn derived(parent: &Candidate, text: String, step: Step) -> Self {
        let mut steps = parent.steps.clone();
        steps.push(step);
        Candidate {
            hash: ProgramHash::of(&text),
            text,
            similarity: f32::NAN,
            cheap: None,
            steps,
        }
    }

    /// L = 1 − M.
    pub fn distance(&self) -> f32 {
        1.0 - self.similarity
    }

    /// The M a search orders it by: the cheap scorer's where one ranked it, else the
    /// detector's.
    pub fn rank_m(&self) -> f32 {
        self.cheap.unwrap_or(self.similarity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python2_statements_are_recognised() {
        assert!(uses_python2_syntax("print 'hi'\n"));
        assert!(uses_python2_syntax("exec 'x = 1'\n"));
        assert!(uses_python2_syntax("if 1 <> 2:\n    pass\n"));
        assert!(!uses_python2_syntax("print('hi')\nx = '<>'\n"));
    }

    #[test]
    fn valid_invalid_and_missing_nodes() {
        assert_eq!(validate("x = 1\nprint(x)\n"), Ok(()));
        assert!(matches!(
            validate("def f(:\n  pass\n"),
            Err(InvalidProgram::Syntax { line: 1, .. })
        ));
        // tree-sitter recovers `print(1` with a MISSING `)`: still invalid.
        assert!(validate("print(1\n").is_err());
        assert!(validate("x = = 1\n").is_err());
        // tree-sitter-python is lenient about some indentation errors (it accepts
        // "if x:\npass\n"); such programs are rejected later, by the oracle.
    }

    #[test]
    fn classify_unchanged_and_hash() {
        assert_eq!(classify("a = 1\n", "a = 1\n".into()), Classified::Unchanged);
        assert!(matches!(
            classify("a = 1\n", "a = (\n".into()),
            Classified::Invalid(_)
        ));
        assert_eq!(ProgramHash::of("a"), ProgramHash::of("a"));
        assert_ne!(ProgramHash::of("a"), ProgramHash::of("b"));
    }
}
