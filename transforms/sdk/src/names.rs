//! Fresh identifiers: plausible names (not `VAR_0`) drawn from a seeded vocabulary, guaranteed
//! to collide with no identifier of the program, no keyword and no builtin.

use crate::parse::Parsed;
use crate::rng::Rng;
use std::collections::HashSet;

/// Python keywords and soft keywords.
pub const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type", "_", "print", "exec",
];

/// Names of Python 3 builtins (functions, types, exceptions, constants).
pub const BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "vars",
    "zip",
    "__import__",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__name__",
    "__package__",
    "__spec__",
    "__loader__",
    "__file__",
    "__builtins__",
    "__dict__",
    "__class__",
    "NotImplemented",
    "Ellipsis",
    "BaseException",
    "BaseExceptionGroup",
    "Exception",
    "ExceptionGroup",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "EncodingWarning",
    "EnvironmentError",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "self",
    "cls",
];

/// Words fresh names are made of: what a person would name a variable.
const VOCABULARY: &[&str] = &[
    "total", "count", "value", "item", "result", "index", "acc", "temp", "buf", "cur", "node",
    "data", "elem", "key", "val", "num", "size", "left", "right", "flag", "step", "pos", "offset",
    "limit", "score", "entry", "part", "chunk", "token", "record", "state", "level", "width",
    "height", "depth", "base", "delta", "head", "tail", "first", "last", "prev", "nxt", "mid",
    "lo", "hi", "span", "cache", "seen", "queue", "stack", "table", "row", "col", "cell", "pair",
    "word", "line", "text", "digit", "mark", "weight", "cost", "amount", "ratio", "factor",
    "bound", "origin", "target", "label", "tag", "slot", "bucket", "counter", "cursor", "anchor",
    "pivot", "accum", "tmp", "aux", "runner", "probe", "holder", "current", "answer", "output",
    "res",
];

/// Issues identifiers that are new to one program.
pub struct FreshNames {
    taken: HashSet<String>,
}

impl FreshNames {
    /// A generator that avoids every identifier in `parsed`, every keyword and every builtin.
    pub fn new(parsed: &Parsed) -> Self {
        let mut taken: HashSet<String> = KEYWORDS
            .iter()
            .chain(BUILTINS)
            .map(|s| s.to_string())
            .collect();
        for node in parsed.nodes() {
            if node.kind() == "identifier" {
                taken.insert(parsed.text(node).to_string());
            }
        }
        // Identifiers can also hide inside strings handed to eval/exec or getattr: keep every
        // word-like token of the source out of reach as well.
        for word in parsed
            .source
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        {
            if !word.is_empty() {
                taken.insert(word.to_string());
            }
        }
        FreshNames { taken }
    }

    /// A generator that avoids every word-like token of `source` and every name in `reserved`
    /// (a language's keywords and well-known names). Used for languages other than Python.
    pub fn avoiding(source: &str, reserved: &[&str]) -> Self {
        let mut taken: HashSet<String> = reserved.iter().map(|s| s.to_string()).collect();
        for word in source.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
            if !word.is_empty() {
                taken.insert(word.to_string());
            }
        }
        FreshNames { taken }
    }

    /// Whether `name` is already used (by the program or an earlier fresh name).
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// A new identifier; `hint`, when given, is tried first (with suffixes) so that helper
    /// variables read naturally (`stop`, `it`…).
    pub fn fresh(&mut self, rng: &mut Rng, hint: Option<&str>) -> String {
        let mut candidates: Vec<String> = Vec::new();
        if let Some(h) = hint {
            candidates.push(h.to_string());
        }
        for _ in 0..6 {
            candidates.push(VOCABULARY[rng.below(VOCABULARY.len())].to_string());
        }
        for _ in 0..6 {
            let a = VOCABULARY[rng.below(VOCABULARY.len())];
            let b = VOCABULARY[rng.below(VOCABULARY.len())];
            candidates.push(format!("{a}_{b}"));
        }
        for c in candidates {
            if !self.taken.contains(&c) && !c.starts_with("__") {
                self.taken.insert(c.clone());
                return c;
            }
        }
        let base = hint.unwrap_or(VOCABULARY[rng.below(VOCABULARY.len())]);
        let mut n = 2usize;
        loop {
            let c = format!("{base}{n}");
            if !self.taken.contains(&c) {
                self.taken.insert(c.clone());
                return c;
            }
            n += 1;
        }
    }
}
