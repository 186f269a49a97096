//! Classic clone detectors that need no model: token-multiset Jaccard, SourcererCC-style token
//! overlap, and NiCad-style line similarity after pretty-printing and blind renaming.
//!
//! Tokens come from tree-sitter's leaves with the program's own grammar (the language
//! registry, [`crate::language`]), so text that does not parse still has tokens and comments
//! never are tokens. Functions without a language tell it from their first text
//! ([`Language::detect`]); the `_as` variants take it from the caller.

use crate::language::{self, Language, LineSplit, Spec};
use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// A lexical token of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// The token's text as written.
    pub text: String,
    /// What the token is.
    pub kind: TokenKind,
    /// Index of the pretty-printed line the token belongs to.
    pub line: usize,
    /// Column (in bytes) where the token starts on its row.
    pub column: usize,
    /// Byte offset of the token in the source.
    pub start: usize,
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A name (renamed by NiCad).
    Identifier,
    /// A literal (strings and numbers as one token).
    Literal,
    /// A word that is not a name.
    Keyword,
    /// Anything else.
    Punctuation,
}

/// The tokens of `source` read as `language`.
fn tokens_as(language: Language, source: &str) -> Vec<Token> {
    match language.parse(source) {
        Ok(tree) => tokens_of_tree(language.spec(), source, &tree),
        Err(_) => Vec::new(),
    }
}

/// Where the line splitter stands while tokens are read in document order.
#[derive(Default)]
struct LineState {
    line: usize,
    last_row: Option<usize>,
    /// Open brackets, innermost last: `true` for a block (statement lines continue to split
    /// inside it), `false` for a plain bracket.
    open: Vec<bool>,
    /// The next token starts a new line.
    break_pending: bool,
    /// The previous token closed a block: `trailing` tokens stay on its line.
    after_block_close: bool,
    /// The previous row ended in a backslash continuation (Python).
    continued: bool,
    /// The directive (a node that is a line of its own) the previous token belonged to.
    directive: Option<usize>,
}

/// The tokens of `tree` (parsed from `source` with `spec`'s grammar) in document order, each
/// with its pretty-printed line.
pub(crate) fn tokens_of_tree(spec: &Spec, source: &str, tree: &Tree) -> Vec<Token> {
    let mut out = Vec::new();
    let mut state = LineState::default();
    let mut cursor = tree.root_node().walk();
    loop {
        let node = cursor.node();
        let kind = node.kind();
        if spec.comment_kinds.contains(&kind) {
            // A comment is never a token, whatever it contains.
        } else if node.child_count() == 0 || spec.atomic_kinds.contains(&kind) {
            push_leaf(spec, source, node, &mut out, &mut state);
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

fn push_leaf(spec: &Spec, src: &str, node: Node<'_>, out: &mut Vec<Token>, state: &mut LineState) {
    let kind = node.kind();
    let Some(text) = src.get(node.byte_range()) else {
        return;
    };
    if text.trim().is_empty() {
        return;
    }
    if spec.lines == LineSplit::Logical && text.trim_end() == "\\" {
        // A backslash continuation is not a token: the next row continues this line.
        state.continued = true;
        return;
    }
    let new_line = match spec.lines {
        LineSplit::Logical => logical_break(spec, node, text, state),
        LineSplit::Statements {
            terminators,
            block_open,
            block_close,
            inline_parents,
            trailing,
            own_line,
        } => {
            if let Some(d) = own_line_ancestor(node, own_line) {
                // A directive's tokens make one line, and the next token starts another.
                let new_line = state.directive != Some(d);
                state.directive = Some(d);
                state.break_pending = true;
                state.after_block_close = false;
                new_line
            } else if kind.starts_with('#') {
                // A conditional directive's keyword (`#ifdef`, `#endif`): a line break on
                // both sides.
                state.directive = None;
                state.break_pending = true;
                state.after_block_close = false;
                true
            } else {
                state.directive = None;
                let inline = || {
                    node.parent()
                        .is_some_and(|p| inline_parents.contains(&p.kind()))
                };
                let is_block_open = text == block_open && !inline();
                let is_block_close = text == block_close && !inline();
                let trails = state.after_block_close && trailing.contains(&text);
                let new_line = (state.break_pending && !trails) || is_block_close;
                state.break_pending = if is_block_open || is_block_close {
                    true
                } else if terminators.contains(&text) {
                    state.open.last().is_none_or(|&block| block)
                } else {
                    false
                };
                state.after_block_close = is_block_close || trails;
                if is_block_open {
                    state.open.push(true);
                } else if spec.open_brackets.contains(&text) {
                    state.open.push(false);
                } else if spec.close_brackets.contains(&text) {
                    state.open.pop();
                }
                new_line
            }
        }
    };
    if new_line && !out.is_empty() {
        state.line += 1;
    }
    let token_kind = if spec.identifier_kinds.contains(&kind) {
        TokenKind::Identifier
    } else if spec.literal_kinds.contains(&kind) {
        TokenKind::Literal
    } else if text.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
        TokenKind::Keyword
    } else {
        TokenKind::Punctuation
    };
    out.push(Token {
        text: text.to_string(),
        kind: token_kind,
        line: state.line,
        column: node.start_position().column,
        start: node.start_byte(),
    });
}

/// The id of the nearest ancestor of `node` (itself included) whose kind is in `kinds`.
fn own_line_ancestor(node: Node<'_>, kinds: &[&str]) -> Option<usize> {
    if kinds.is_empty() {
        return None;
    }
    let mut n = Some(node);
    while let Some(x) = n {
        if kinds.contains(&x.kind()) {
            return Some(x.id());
        }
        n = x.parent();
    }
    None
}

/// Logical lines: a new physical row outside brackets starts a new pretty-printed line.
fn logical_break(spec: &Spec, node: Node<'_>, text: &str, state: &mut LineState) -> bool {
    let row = node.start_position().row;
    // The token after a backslash continues its line, and the mark is spent on it even
    // inside brackets (where rows never break): kept, it would join the next statement on.
    let continued = std::mem::take(&mut state.continued);
    let new_line = state.last_row.is_some_and(|r| r != row) && state.open.is_empty() && !continued;
    // A token over several rows (a triple-quoted string) ends on the row the next one continues.
    state.last_row = Some(node.end_position().row);
    if spec.open_brackets.contains(&text) {
        state.open.push(false);
    } else if spec.close_brackets.contains(&text) {
        state.open.pop();
    }
    new_line
}

fn multiset<'a>(items: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut m = HashMap::new();
    for i in items {
        *m.entry(i).or_insert(0) += 1;
    }
    m
}

fn min_max_sums(a: &HashMap<&str, usize>, b: &HashMap<&str, usize>) -> (usize, usize) {
    let mut inter = 0;
    let mut union = 0;
    for (k, &x) in a {
        let y = b.get(k).copied().unwrap_or(0);
        inter += x.min(y);
        union += x.max(y);
    }
    for (k, &y) in b {
        if !a.contains_key(k) {
            union += y;
        }
    }
    (inter, union)
}

/// The number of tokens of `source` in its own language ([`Language::detect`]), comments
/// aside: what the classic measures compare.
pub fn token_count(source: &str) -> usize {
    Prepared::new(source).tokens.len()
}

/// The number of tokens of `source` read as `language`, comments aside.
pub fn token_count_as(language: Language, source: &str) -> usize {
    tokens_as(language, source).len()
}

/// A text prepared for the classic measures (tokenised once, compared many times).
#[derive(Debug, Clone)]
pub struct Prepared {
    language: Language,
    tokens: Vec<Token>,
}

impl Prepared {
    /// Tokenises `source` in the language it is written in ([`Language::detect`]).
    pub fn new(source: &str) -> Self {
        let (language, tree) = language::detect_with_tree(source);
        let tokens = match tree {
            Some(tree) => tokens_of_tree(language.spec(), source, &tree),
            None => Vec::new(),
        };
        Prepared { language, tokens }
    }

    /// Tokenises `source` as a program of `language`.
    pub fn new_as(language: Language, source: &str) -> Self {
        Prepared {
            language,
            tokens: tokens_as(language, source),
        }
    }

    /// The language the text was read as.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The number of tokens.
    pub fn token_count(&self) -> usize {
        self.tokens.len()
    }
}

/// Prepares `a` in its own language and `b` in the same one.
fn prepare_pair(a: &str, b: &str) -> (Prepared, Prepared) {
    let a = Prepared::new(a);
    let b = Prepared::new_as(a.language, b);
    (a, b)
}

/// Token-multiset Jaccard: Σ min / Σ max over token counts (1 for two empty texts). Both texts
/// are read in the language of `a` ([`Language::detect`]).
pub fn jaccard(a: &str, b: &str) -> f32 {
    let (a, b) = prepare_pair(a, b);
    jaccard_prepared(&a, &b)
}

/// [`jaccard`] of prepared texts.
pub fn jaccard_prepared(a: &Prepared, b: &Prepared) -> f32 {
    let (ta, tb) = (&a.tokens, &b.tokens);
    let (inter, union) = min_max_sums(
        &multiset(ta.iter().map(|t| t.text.as_str())),
        &multiset(tb.iter().map(|t| t.text.as_str())),
    );
    if union == 0 {
        1.0
    } else {
        inter as f32 / union as f32
    }
}

/// SourcererCC-style overlap: shared tokens (identifiers, keywords, literals; no punctuation) /
/// size of the larger bag. Both texts are read in the language of `a`.
pub fn sourcerercc(a: &str, b: &str) -> f32 {
    let (a, b) = prepare_pair(a, b);
    sourcerercc_prepared(&a, &b)
}

/// [`sourcerercc`] of prepared texts.
pub fn sourcerercc_prepared(a: &Prepared, b: &Prepared) -> f32 {
    let keep = |t: &&Token| t.kind != TokenKind::Punctuation;
    let (ta, tb) = (&a.tokens, &b.tokens);
    let ma = multiset(ta.iter().filter(keep).map(|t| t.text.as_str()));
    let mb = multiset(tb.iter().filter(keep).map(|t| t.text.as_str()));
    let (inter, _) = min_max_sums(&ma, &mb);
    let (na, nb): (usize, usize) = (ma.values().sum(), mb.values().sum());
    if na.max(nb) == 0 {
        1.0
    } else {
        inter as f32 / na.max(nb) as f32
    }
}

/// Pretty-printed lines with blind renaming (every identifier becomes `x`), in the language
/// `source` is written in.
pub fn nicad_lines(source: &str) -> Vec<String> {
    lines_of(&Prepared::new(source))
}

/// [`nicad_lines`] of `source` read as `language`.
pub fn nicad_lines_as(language: Language, source: &str) -> Vec<String> {
    lines_of(&Prepared::new_as(language, source))
}

fn lines_of(p: &Prepared) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for t in &p.tokens {
        let text = if t.kind == TokenKind::Identifier {
            "x"
        } else {
            t.text.as_str()
        };
        if lines.len() <= t.line {
            lines.resize(t.line + 1, String::new());
        }
        let l = &mut lines[t.line];
        if !l.is_empty() {
            l.push(' ');
        }
        l.push_str(text);
    }
    lines.retain(|l| !l.is_empty());
    lines
}

fn lcs_len(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// NiCad-style similarity: 1 − the larger unique-percentage-of-items, i.e.
/// min(LCS/|a|, LCS/|b|) over pretty-printed, blindly renamed lines. Both texts are read in
/// the language of `a`.
pub fn nicad(a: &str, b: &str) -> f32 {
    let (a, b) = prepare_pair(a, b);
    nicad_prepared(&a, &b)
}

/// [`nicad`] of two programs of `language`.
pub fn nicad_as(language: Language, a: &str, b: &str) -> f32 {
    nicad_prepared(
        &Prepared::new_as(language, a),
        &Prepared::new_as(language, b),
    )
}

/// [`nicad`] of prepared texts.
pub fn nicad_prepared(a: &Prepared, b: &Prepared) -> f32 {
    let (la, lb) = (lines_of(a), lines_of(b));
    if la.is_empty() && lb.is_empty() {
        return 1.0;
    }
    if la.is_empty() || lb.is_empty() {
        return 0.0;
    }
    let l = lcs_len(&la, &lb) as f32;
    (l / la.len() as f32).min(l / lb.len() as f32)
}

/// GPTCloneBench's clone types by NiCad-style similarity, in its bands: Type-1/2 above 75 %,
/// (moderately) Type-3 above 50 % up to 75 %, Type-4 at 50 % or less.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum CloneType {
    /// > 75 % similar.
    #[serde(rename = "Type-1/2")]
    Type12,
    /// Above 50 %, up to 75 % (GPTCloneBench's "MT3").
    #[serde(rename = "Type-3")]
    Type3,
    /// 50 % or less.
    #[serde(rename = "Type-4")]
    Type4,
}

impl CloneType {
    /// The tag of a similarity in [0, 1].
    pub fn of_similarity(s: f32) -> Self {
        if s > 0.75 {
            CloneType::Type12
        } else if s > 0.5 {
            CloneType::Type3
        } else {
            CloneType::Type4
        }
    }

    /// The tag of two programs, both read in the language of `a` ([`Language::detect`]).
    pub fn of(a: &str, b: &str) -> Self {
        Self::of_similarity(nicad(a, b))
    }

    /// The tag of two programs of `language`.
    pub fn of_as(language: Language, a: &str, b: &str) -> Self {
        Self::of_similarity(nicad_as(language, a, b))
    }

    /// "Type-1/2", "Type-3" or "Type-4".
    pub fn label(&self) -> &'static str {
        match self {
            CloneType::Type12 => "Type-1/2",
            CloneType::Type3 => "Type-3",
            CloneType::Type4 => "Type-4",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_by_hand() {
        // tokens: a = [x, =, 1], b = [x, =, 2]; Σmin = 2, Σmax = 4.
        assert!((jaccard("x = 1", "x = 2") - 0.5).abs() < 1e-6);
        // multiset: [a, +, a] vs [a, +, b]: Σmin = 2 (a:1, +:1), Σmax = 4 (a:2, +:1, b:1).
        assert!((jaccard("a + a", "a + b") - 0.5).abs() < 1e-6);
        assert_eq!(jaccard("", ""), 1.0);
    }

    #[test]
    fn sourcerercc_ignores_punctuation() {
        // Non-punctuation bags: [print, x] vs [print, x, y]: overlap 2 / max 3.
        assert!((sourcerercc("print(x)", "print(x, y)") - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(sourcerercc("f(a)", "f ( a )"), 1.0);
    }

    #[test]
    fn nicad_blind_renaming_and_lcs() {
        assert_eq!(
            nicad_lines("total = a + b\nprint(total)\n"),
            ["x = x + x", "x ( x )"]
        );
        // Renamed identifiers only: identical after blind renaming.
        assert_eq!(nicad("a = 1\nprint(a)\n", "zz = 1\nprint(zz)\n"), 1.0);
        // One of four lines changed: LCS 3 → min(3/4, 3/4).
        let a = "a = 1\nb = 2\nc = 3\nprint(a)\n";
        let b = "a = 1\nb = 2\nc = 3 + 4\nprint(a)\n";
        assert!((nicad(a, b) - 0.75).abs() < 1e-6);
        // Multi-line brackets are one pretty-printed line.
        assert_eq!(nicad_lines("f(1,\n  2)\n").len(), 1);
    }

    #[test]
    fn java_statement_lines() {
        let java = "class A { void f() { int x = 1; g(x); } }";
        assert_eq!(
            nicad_lines(java),
            [
                "class x {",
                "void x ( ) {",
                "int x = 1 ;",
                "x ( x ) ;",
                "}",
                "}"
            ]
        );
        assert_eq!(nicad_lines_as(Language::Java, java), nicad_lines(java));
        // A block inside parentheses (a lambda) still splits; what follows its brace stays.
        assert_eq!(
            nicad_lines("class A { void f() { run(() -> { g(); }); } }"),
            [
                "class x {",
                "void x ( ) {",
                "x ( ( ) -> {",
                "x ( ) ;",
                "} ) ;",
                "}",
                "}"
            ]
        );
    }

    #[test]
    fn comments_are_never_tokens() {
        let plain = "class A { int x = 1; }";
        let commented = "/** doc */ class A { // line\n int x = /* inline */ 1; }";
        assert_eq!(
            token_count_as(Language::Java, commented),
            token_count_as(Language::Java, plain)
        );
        assert_eq!(token_count(commented), token_count(plain));
        assert_eq!(nicad(plain, commented), 1.0);
        assert_eq!(token_count("x = 1  # one\n# two\n"), token_count("x = 1\n"));
        // Read as Python, the Java text is not what it is.
        assert_ne!(
            token_count_as(Language::Python, commented),
            token_count(commented)
        );
    }

    #[test]
    fn clone_type_thresholds() {
        assert_eq!(CloneType::of_similarity(0.9), CloneType::Type12);
        assert_eq!(CloneType::of_similarity(0.75), CloneType::Type3);
        assert_eq!(CloneType::of_similarity(0.51), CloneType::Type3);
        assert_eq!(CloneType::of_similarity(0.5), CloneType::Type4);
        assert_eq!(CloneType::of_similarity(0.49), CloneType::Type4);
    }
}
