//! The language registry: one [`Spec`] per [`Language`], the single place where equimorph says
//! what a language is.
//!
//! An entry holds the language's names (for task files, messages and file extensions), its
//! tree-sitter grammar (which decides validity, see [`crate::program::validate_as`]), and what
//! the classic detectors ([`crate::detector::classic`]) read from its parse tree: which nodes
//! are comments (never tokens), which leaves are identifiers (blindly renamed) and literals,
//! which tokens are brackets, and how a text splits into NiCad-style pretty-printed lines.
//! [`Language::detect`] tells the language of a bare text by parsing it with every grammar.
//!
//! A new language is one more [`Language`] variant and one more entry in the registry; code
//! that matches on the language should read the entry instead. C and C++ are compiled
//! languages ([`Language::is_native`]): the oracle builds them once per program.

/// Statement-header macros of C and C++ (`rep(i, n) stmt;`) masked so that the program parses:
/// the guest SDK's own file, compiled here too so that the host and the transforms agree on
/// which programs parse.
#[path = "../transforms/sdk/src/cpp/mask.rs"]
pub mod mask;

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fmt;
use thiserror::Error;
use tree_sitter::{Node, Parser, Tree};

/// The programming language of a task, a transform or a program.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    PartialOrd,
    Ord,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Python 3 (the default: tasks and transforms that say nothing are Python).
    #[default]
    Python,
    /// Java (a class with `public static void main`, CodeNet style).
    Java,
    /// C++ (a program with `main`, compiled by g++).
    Cpp,
    /// C (a program with `main`, compiled by gcc).
    C,
}

/// How a text splits into NiCad-style pretty-printed lines, so that reformatting a program
/// (moving line breaks and indentation) does not change its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineSplit {
    /// Logical lines (Python): a token on a new physical row starts a line unless a bracket
    /// is open, so a call spread over rows is one line.
    Logical,
    /// Statement lines (Java): where the line breaks of the text are does not matter; a line
    /// ends after a terminator (`;`) when no bracket other than a block is open, after a
    /// block's opening brace, and around a block's closing brace.
    Statements {
        /// Tokens that end a line when the innermost open bracket is a block (or none is).
        terminators: &'static [&'static str],
        /// The token that opens a block (it ends its line).
        block_open: &'static str,
        /// The token that closes a block (on a line of its own, with `trailing` tokens).
        block_close: &'static str,
        /// Parent node kinds under which `block_open`/`block_close` are plain brackets
        /// (array initialisers `{1, 2}`), not blocks.
        inline_parents: &'static [&'static str],
        /// Tokens that stay on the line of a closing block brace just before them (`};`, `})`).
        trailing: &'static [&'static str],
        /// Node kinds that are a line of their own whatever their tokens (C preprocessor
        /// directives, which end at the end of their row, not at a terminator).
        own_line: &'static [&'static str],
    },
}

/// One entry of the language registry: everything equimorph needs to know about a language.
#[derive(Debug)]
pub struct Spec {
    /// The language this entry describes.
    pub language: Language,
    /// Lower-case name, as in task files and `info`.
    pub name: &'static str,
    /// Proper name, for messages.
    pub title: &'static str,
    /// Other spellings accepted on the command line and in task files (lower case).
    pub aliases: &'static [&'static str],
    /// File extensions, without the dot.
    pub extensions: &'static [&'static str],
    /// The tree-sitter grammar.
    pub grammar: fn() -> tree_sitter::Language,
    /// Node kinds that are comments: never tokens, never lines.
    pub comment_kinds: &'static [&'static str],
    /// Leaf kinds that are identifiers (blindly renamed by NiCad).
    pub identifier_kinds: &'static [&'static str],
    /// Node kinds that are literals.
    pub literal_kinds: &'static [&'static str],
    /// Node kinds read as one token although they have children (strings and numbers).
    pub atomic_kinds: &'static [&'static str],
    /// Opening brackets: while one is open, a new row does not start a line.
    pub open_brackets: &'static [&'static str],
    /// Closing brackets.
    pub close_brackets: &'static [&'static str],
    /// How pretty-printed lines are split.
    pub lines: LineSplit,
}

fn python_grammar() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

fn java_grammar() -> tree_sitter::Language {
    tree_sitter_java::LANGUAGE.into()
}

fn cpp_grammar() -> tree_sitter::Language {
    tree_sitter_cpp::LANGUAGE.into()
}

fn c_grammar() -> tree_sitter::Language {
    tree_sitter_c::LANGUAGE.into()
}

/// The registry, in the order of [`Language::ALL`] (a test checks it).
static REGISTRY: [Spec; 4] = [
    Spec {
        language: Language::Python,
        name: "python",
        title: "Python",
        aliases: &["python3", "py"],
        extensions: &["py"],
        grammar: python_grammar,
        comment_kinds: &["comment"],
        identifier_kinds: &["identifier"],
        literal_kinds: &["string", "integer", "float", "true", "false", "none"],
        atomic_kinds: &["string", "integer", "float"],
        open_brackets: &["(", "[", "{"],
        close_brackets: &[")", "]", "}"],
        lines: LineSplit::Logical,
    },
    Spec {
        language: Language::Java,
        name: "java",
        title: "Java",
        aliases: &[],
        extensions: &["java"],
        grammar: java_grammar,
        // A Javadoc comment (`/** … */`) is a block_comment in tree-sitter-java.
        comment_kinds: &["line_comment", "block_comment"],
        identifier_kinds: &["identifier", "type_identifier"],
        literal_kinds: &[
            "decimal_integer_literal",
            "hex_integer_literal",
            "octal_integer_literal",
            "binary_integer_literal",
            "decimal_floating_point_literal",
            "hex_floating_point_literal",
            "character_literal",
            "string_literal",
            "null_literal",
            "true",
            "false",
        ],
        atomic_kinds: &["string_literal", "character_literal"],
        open_brackets: &["(", "[", "{"],
        close_brackets: &[")", "]", "}"],
        lines: LineSplit::Statements {
            terminators: &[";"],
            block_open: "{",
            block_close: "}",
            inline_parents: &["array_initializer", "element_value_array_initializer"],
            trailing: &[";", ",", ")", "]", "."],
            own_line: &[],
        },
    },
    Spec {
        language: Language::Cpp,
        name: "cpp",
        title: "C++",
        aliases: &["c++", "cxx", "cc", "g++"],
        extensions: &["cpp", "cc", "cxx", "hpp", "hh"],
        grammar: cpp_grammar,
        comment_kinds: &["comment"],
        identifier_kinds: &[
            "identifier",
            "type_identifier",
            "field_identifier",
            "namespace_identifier",
            "statement_identifier",
        ],
        literal_kinds: C_LITERALS,
        atomic_kinds: C_ATOMS,
        open_brackets: &["(", "[", "{"],
        close_brackets: &[")", "]", "}"],
        lines: C_LINES,
    },
    Spec {
        language: Language::C,
        name: "c",
        title: "C",
        aliases: &["gcc", "c99", "c11"],
        extensions: &["c", "h"],
        grammar: c_grammar,
        comment_kinds: &["comment"],
        identifier_kinds: &[
            "identifier",
            "type_identifier",
            "field_identifier",
            "statement_identifier",
        ],
        literal_kinds: C_LITERALS,
        atomic_kinds: C_ATOMS,
        open_brackets: &["(", "[", "{"],
        close_brackets: &[")", "]", "}"],
        lines: C_LINES,
    },
];

/// Literal node kinds of the C family (tree-sitter-c and tree-sitter-cpp share them).
const C_LITERALS: &[&str] = &[
    "number_literal",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "concatenated_string",
    "system_lib_string",
    "true",
    "false",
    "null",
    "nullptr",
];

/// Node kinds of the C family read as one token: strings, characters, `<header>` names.
const C_ATOMS: &[&str] = &[
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "system_lib_string",
];

/// Statement lines of the C family: as Java's, and each preprocessor directive (which ends
/// at its row's end, with no terminator) a line of its own. Conditional directives hold
/// code: only their `#ifdef`, `#else`, `#endif` tokens break lines.
const C_LINES: LineSplit = LineSplit::Statements {
    terminators: &[";"],
    block_open: "{",
    block_close: "}",
    inline_parents: &["initializer_list"],
    trailing: &[";", ",", ")", "]", "."],
    own_line: &[
        "preproc_include",
        "preproc_def",
        "preproc_function_def",
        "preproc_call",
    ],
};

/// Why a text could not be parsed at all (a syntax error still gives a tree).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The grammar does not load into tree-sitter (a version mismatch).
    #[error("the {language} grammar does not load: {message}")]
    Grammar {
        /// The language.
        language: &'static str,
        /// tree-sitter's message.
        message: String,
    },
    /// The parser returned no tree.
    #[error("the {0} parser gave no tree")]
    NoTree(&'static str),
}

thread_local! {
    /// One parser per language and thread, made on first use.
    static PARSERS: RefCell<[Option<Parser>; Language::ALL.len()]> =
        const { RefCell::new([const { None }; Language::ALL.len()]) };
}

impl Language {
    /// Every language equimorph knows.
    pub const ALL: [Language; 4] = [Language::Python, Language::Java, Language::Cpp, Language::C];

    /// The language's entry in the registry.
    pub fn spec(self) -> &'static Spec {
        &REGISTRY[self as usize]
    }

    /// Every entry of the registry, in the order of [`Language::ALL`].
    pub fn registry() -> &'static [Spec] {
        &REGISTRY
    }

    /// Lower-case name, as in task files and `info`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The language's proper name, for messages (`Python`, `Java`).
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// Whether programs of this language are compiled to a native binary (C, C++) that the
    /// oracle builds once per program and runs per test.
    pub fn is_native(self) -> bool {
        matches!(self, Language::Cpp | Language::C)
    }

    /// Whether this is the default language (for `skip_serializing_if`).
    pub fn is_python(&self) -> bool {
        *self == Language::Python
    }

    /// The language of a source file, by its extension (`.py`, `.java`).
    pub fn of_path(path: &std::path::Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Self::ALL
            .into_iter()
            .find(|l| l.spec().extensions.contains(&ext))
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        (self.spec().grammar)()
    }

    /// Parses `source` with this language's grammar (one parser per thread and language).
    /// A text with syntax errors still gives a tree (with ERROR or MISSING nodes).
    pub fn parse(self, source: &str) -> Result<Tree, ParseError> {
        PARSERS.with(|cell| {
            let mut parsers = cell.borrow_mut();
            let slot = &mut parsers[self as usize];
            let parser = match slot {
                Some(p) => p,
                None => {
                    let mut p = Parser::new();
                    p.set_language(&self.grammar())
                        .map_err(|e| ParseError::Grammar {
                            language: self.title(),
                            message: e.to_string(),
                        })?;
                    slot.insert(p)
                }
            };
            parser
                .parse(source, None)
                .ok_or(ParseError::NoTree(self.title()))
        })
    }

    /// The language `text` is written in: the one whose grammar parses it with no ERROR or
    /// MISSING node, else the one with the fewest such nodes; ties go to the earlier language
    /// of [`Language::ALL`] (Python), and so does the empty text.
    pub fn detect(text: &str) -> Language {
        detect_with_tree(text).0
    }
}

/// [`Language::detect`], with the winner's parse tree (`None` only if no grammar gave one).
pub(crate) fn detect_with_tree(text: &str) -> (Language, Option<Tree>) {
    let mut best: Option<(usize, Language, Tree)> = None;
    for language in Language::ALL {
        let Ok(tree) = language.parse(text) else {
            continue;
        };
        let errors = error_count(tree.root_node());
        if errors == 0 {
            return (language, Some(tree));
        }
        if best.as_ref().is_none_or(|(e, _, _)| errors < *e) {
            best = Some((errors, language, tree));
        }
    }
    match best {
        Some((_, language, tree)) => (language, Some(tree)),
        None => (Language::default(), None),
    }
}

/// The number of ERROR and MISSING nodes under `root`.
pub(crate) fn error_count(root: Node<'_>) -> usize {
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            count += 1;
        }
        if n.has_error() {
            stack.extend(n.children(&mut cursor));
        }
    }
    count
}

/// The first ERROR or MISSING node under `root` in document order, if any.
pub(crate) fn first_error(root: Node<'_>) -> Option<Node<'_>> {
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            return Some(n);
        }
        if n.has_error() {
            let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    Some(root)
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Language {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let wanted = s.trim().to_ascii_lowercase();
        Language::ALL
            .into_iter()
            .find(|l| l.name() == wanted || l.spec().aliases.contains(&wanted.as_str()))
            .ok_or_else(|| {
                let names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                format!(
                    "unknown language '{wanted}' (expected one of {})",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_follows_all() {
        for (i, l) in Language::ALL.into_iter().enumerate() {
            assert_eq!(Language::registry()[i].language, l);
            assert_eq!(l.spec().language, l);
            assert!(l.parse("").is_ok(), "{l} grammar loads");
        }
    }

    #[test]
    fn names_round_trip() {
        for l in Language::ALL {
            assert_eq!(l.name().parse::<Language>(), Ok(l));
            let path = format!("a.{}", l.spec().extensions[0]);
            assert_eq!(Language::of_path(std::path::Path::new(&path)), Some(l));
        }
        assert_eq!("Python3".parse::<Language>(), Ok(Language::Python));
        assert_eq!(
            "cobol".parse::<Language>(),
            Err("unknown language 'cobol' (expected one of python, java, cpp, c)".to_string())
        );
        assert_eq!(Language::of_path(std::path::Path::new("a.rs")), None);
        assert_eq!("C++".parse::<Language>(), Ok(Language::Cpp));
    }

    #[test]
    fn detect_by_parse() {
        let java = "public class Main {\n    public static void main(String[] args) {\n        System.out.println(1);\n    }\n}\n";
        assert_eq!(Language::detect(java), Language::Java);
        assert_eq!(Language::detect("x = 1\nprint(x)\n"), Language::Python);
        assert_eq!(Language::detect(""), Language::Python);
        // Broken Java is still nearer Java than Python.
        assert_eq!(
            Language::detect("public class Main { void f() { int x = ; } }"),
            Language::Java
        );
    }
}
