//! Classic clone detectors that need no model: token-multiset Jaccard, SourcererCC-style token
//! overlap, and NiCad-style line similarity after pretty-printing and blind renaming.
//! Tokens come from tree-sitter's leaves, so text that does not parse still has tokens.

use std::collections::HashMap;
use tree_sitter::{Node, Parser};

/// A lexical token of a Python text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    kind: TokenKind,
    /// Index of the logical line (statement line) the token belongs to.
    line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    Identifier,
    Literal,
    Keyword,
    Punctuation,
}

fn tokens(source: &str) -> Vec<Token> {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return Vec::new();
    }
    let Some(tree) = parser.parse(source, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = tree.root_node().walk();
    let mut line = 0usize;
    let mut last_row = usize::MAX;
    let mut depth_brackets = 0i32;
    loop {
        let node = cursor.node();
        let leaf_like =
            node.child_count() == 0 || matches!(node.kind(), "string" | "integer" | "float");
        if leaf_like {
            push_leaf(
                source,
                node,
                &mut out,
                &mut line,
                &mut last_row,
                &mut depth_brackets,
            );
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

fn push_leaf(
    src: &str,
    node: Node<'_>,
    out: &mut Vec<Token>,
    line: &mut usize,
    last_row: &mut usize,
    brackets: &mut i32,
) {
    let kind = node.kind();
    if kind == "comment" || node.byte_range().is_empty() {
        return;
    }
    let text = &src[node.byte_range()];
    if text.trim().is_empty() {
        return;
    }
    // A new physical row outside brackets starts a new pretty-printed line.
    let row = node.start_position().row;
    if row != *last_row && *brackets <= 0 && !out.is_empty() {
        *line += 1;
    }
    *last_row = row;
    match text {
        "(" | "[" | "{" => *brackets += 1,
        ")" | "]" | "}" => *brackets -= 1,
        _ => {}
    }
    let token_kind = match kind {
        "identifier" => TokenKind::Identifier,
        "string" | "integer" | "float" | "true" | "false" | "none" => TokenKind::Literal,
        _ if text.chars().all(|c| c.is_ascii_alphabetic() || c == '_') => TokenKind::Keyword,
        _ => TokenKind::Punctuation,
    };
    out.push(Token {
        text: text.to_string(),
        kind: token_kind,
        line: *line,
    });
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

/// The number of Python tokens of `source` (what the classic measures compare).
pub fn token_count(source: &str) -> usize {
    tokens(source).len()
}

/// A text prepared for the classic measures (tokenised once, compared many times).
pub struct Prepared {
    tokens: Vec<Token>,
}

impl Prepared {
    /// Tokenises `source`.
    pub fn new(source: &str) -> Self {
        Prepared {
            tokens: tokens(source),
        }
    }
}

/// Token-multiset Jaccard: Σ min / Σ max over token counts (1 for two empty texts).
pub fn jaccard(a: &str, b: &str) -> f32 {
    jaccard_prepared(&Prepared::new(a), &Prepared::new(b))
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
/// size of the larger bag.
pub fn sourcerercc(a: &str, b: &str) -> f32 {
    sourcerercc_prepared(&Prepared::new(a), &Prepared::new(b))
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

/// Pretty-printed lines with blind renaming (every identifier becomes `x`).
pub fn nicad_lines(source: &str) -> Vec<String> {
    lines_of(&Prepared::new(source))
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
/// min(LCS/|a|, LCS/|b|) over pretty-printed, blindly renamed lines.
pub fn nicad(a: &str, b: &str) -> f32 {
    nicad_prepared(&Prepared::new(a), &Prepared::new(b))
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

    /// The tag of two programs.
    pub fn of(a: &str, b: &str) -> Self {
        Self::of_similarity(nicad(a, b))
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
    fn clone_type_thresholds() {
        assert_eq!(CloneType::of_similarity(0.9), CloneType::Type12);
        assert_eq!(CloneType::of_similarity(0.75), CloneType::Type3);
        assert_eq!(CloneType::of_similarity(0.51), CloneType::Type3);
        assert_eq!(CloneType::of_similarity(0.5), CloneType::Type4);
        assert_eq!(CloneType::of_similarity(0.49), CloneType::Type4);
    }
}
