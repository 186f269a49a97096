//! # docstring-reencode
//!
//! ## What it does
//! Re-spells a docstring or a triple-quoted string constant, the long texts a detector reads
//! that other SPTs leave alone, without changing its value:
//! - breaks two to eight of its words with a backslash-newline inside the word
//!   (`"""Return x plus one."""` → `"""Ret\` newline `urn x plus one."""`): the detector then reads
//!   two fragments where the word was, at a cost of about three tokens per word; or breaks
//!   every word of a long stretch (half the string or all of it) at once, the move that reaches
//!   a docstring longer than the detector's window;
//! - splits it at a word or line boundary into an implicit concatenation of two literals with
//!   the same prefix and quotes (`"""Add one.\n    Twice."""` → `"""Add one.""" """\n    Twice."""`);
//! - writes one ASCII letter or digit as a hexadecimal escape (`"""Add"""` → `"""A\x64d"""`);
//! - switches between `"""` and `'''` (or `"` and `'`) where the text holds neither quote.
//!
//! ## Why it preserves semantics
//! What a program can observe is the string's value (`__doc__`, what `inspect`, `doctest` and
//! `help` read), not its spelling. A backslash followed by a line break inside a (non-raw)
//! string literal is a line continuation: both characters are dropped from the value.
//! Adjacent literals are joined by the compiler into one constant, so a split docstring is
//! still the first statement's constant and `__doc__` is the same string, indentation and
//! trailing whitespace included; `\xHH` denotes exactly that character; the quote character
//! is not part of the value. Nothing is inserted or cut inside an escape sequence (`\n`,
//! `\x41`, `\N{…}`, a backslash-newline), so no escape changes meaning, and raw strings, which
//! keep every backslash, are only ever split.
//!
//! ## Example
//! ```python
//! def inc(x):
//!     """Return x plus one.
//!
//!     >>> inc(1)
//!     2
//!     """
//!     return x + 1
//! ```
//! becomes
//! ```python
//! def inc(x):
//!     """Ret\
//! urn x plus o\
//! ne.
//!
//!     >>> inc(1)
//!     2
//!     """
//!     return x + 1
//! ```
//! (`inc.__doc__` and the doctest are unchanged). Line numbers after the string move, as
//! with any SPT that adds lines.
//!
//! ## Not applied when
//! - the string is an f-string (an f-string is never a docstring, and its fields are code) or
//!   part of a concatenation with one;
//! - it is a `match` pattern, an annotation, or inside an f-string's field;
//! - it is neither a docstring nor triple-quoted (one-line strings are `string-reencode`'s);
//! - it holds fewer than two characters, or no boundary where a split keeps both quotes closed.

use sdk::effects::is_docstring;
use sdk::parse::Parsed;
use sdk::pyast::in_debug_fstring;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "docstring-reencode",
    description: "Re-spell docstrings and triple-quoted strings: break words, split, escape, switch quotes",
    category: "expression",
    rewrite: rewrite,
);

/// A string literal's parts.
struct Literal<'a> {
    /// `u`, `r`, `b` and their combinations (never `f`).
    prefix: &'a str,
    /// `"""`, `'''`, `"` or `'`.
    quote: &'a str,
    /// The text between the quotes, as written.
    body: &'a str,
}

impl Literal<'_> {
    fn raw(&self) -> bool {
        self.prefix.contains(['r', 'R'])
    }

    fn triple(&self) -> bool {
        self.quote.len() == 3
    }

    fn quote_char(&self) -> char {
        if self.quote.starts_with('"') {
            '"'
        } else {
            '\''
        }
    }
}

fn literal(text: &str) -> Option<Literal<'_>> {
    let q = text.find(['\'', '"'])?;
    let prefix = &text[..q];
    if !prefix
        .chars()
        .all(|c| matches!(c, 'u' | 'U' | 'r' | 'R' | 'b' | 'B'))
    {
        return None;
    }
    let rest = &text[q..];
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|qt| rest.starts_with(qt))?;
    if rest.len() < 2 * quote.len() || !rest.ends_with(quote) {
        return None;
    }
    Some(Literal {
        prefix,
        quote,
        body: &rest[quote.len()..rest.len() - quote.len()],
    })
}

/// The body cut into whole tokens: one character, or one complete escape sequence. A split
/// or a rewrite only ever happens between tokens.
fn tokens(body: &str, raw: bool) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = body.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(body.len(), |c| c.0);
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let start = chars[k].0;
        let mut next = k + 1;
        // A CRLF is one line break: a cut between CR and LF would leave a lone CR, which the
        // tokenizer reads as a second line break.
        if chars[k].1 == '\r' && chars.get(k + 1).is_some_and(|c| c.1 == '\n') {
            next = k + 2;
        }
        if chars[k].1 == '\\' && k + 1 < chars.len() {
            next = k + 2;
            if !raw {
                let extra = match chars[k + 1].1 {
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    'N' => chars[k + 2..]
                        .iter()
                        .position(|c| c.1 == '}')
                        .map_or(0, |p| p + 1),
                    '0'..='7' => chars[k + 2..]
                        .iter()
                        .take(2)
                        .take_while(|c| ('0'..='7').contains(&c.1))
                        .count(),
                    _ => 0,
                };
                next = (next + extra).min(chars.len());
            }
        }
        out.push((start, end_of(next)));
        k = next;
    }
    out
}

/// Whether `node` sits where re-spelling it could change what the program means.
fn protected(node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(n.kind(), "case_pattern" | "type" | "interpolation") {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// Whether the string node is (part of) a docstring.
fn in_docstring(node: Node<'_>) -> bool {
    let holder = match node.parent() {
        Some(p) if p.kind() == "concatenated_string" => p.parent(),
        p => p,
    };
    holder.is_some_and(|p| p.kind() == "expression_statement" && is_docstring(p))
}

/// Whether a concatenation the node is part of holds an f-string (whose pieces are code).
fn beside_fstring(parsed: &Parsed, node: Node<'_>) -> bool {
    node.parent()
        .filter(|p| p.kind() == "concatenated_string")
        .is_some_and(|p| {
            let mut cursor = p.walk();
            let parts: Vec<Node<'_>> = p.named_children(&mut cursor).collect();
            parts.iter().any(|s| literal(parsed.text(*s)).is_none())
        })
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<Node<'_>> = parsed
        .nodes_of_kind("string")
        .into_iter()
        .filter(|n| {
            literal(parsed.text(*n))
                .is_some_and(|l| (l.triple() || in_docstring(*n)) && l.body.chars().count() >= 2)
        })
        .filter(|n| !protected(*n) && !in_debug_fstring(parsed, *n) && !beside_fstring(parsed, *n))
        .collect();
    for i in rng.sites(sites.len(), 0.5) {
        let node = sites[i];
        let Some(lit) = literal(parsed.text(node)) else {
            continue;
        };
        // Word breaks move a detector most per token added (measured on five HumanEval
        // programs with MiniLM: four of them moved L by 0.05 to 0.08, ten by 0.08 to 0.15; a
        // quote switch by 0.004): they are the usual move, the others keep the spelling varied.
        // A sweep breaks every word of a long stretch at once: on a docstring longer than the
        // detector's window it is the move that reaches what the detector reads (every word of
        // HumanEval/153's docstring broken moved MiniLM's L by 0.58 in one step, the small
        // move by 0.01-0.05); where the window is tight the search's window rule drops it.
        let roll = rng.below(10);
        let text = match roll {
            0..=4 => break_words(&lit, Breaks::Few, rng).or_else(|| split(&lit, rng)),
            5..=6 => break_words(&lit, Breaks::Sweep, rng).or_else(|| split(&lit, rng)),
            7 => split(&lit, rng),
            8 => escape(&lit, rng).or_else(|| split(&lit, rng)),
            _ => switch_quotes(&lit).or_else(|| split(&lit, rng)),
        };
        if let Some(text) = text {
            edits.replace(node.byte_range(), text);
        }
    }
    edits
}

/// The most words one application breaks in a [`Breaks::Few`] move.
const MAX_WORD_BREAKS: usize = 8;

/// How many words a word-break move breaks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Breaks {
    /// Two to [`MAX_WORD_BREAKS`] words anywhere in the string.
    Few,
    /// Every word of a stretch: the whole string, or a run of consecutive words at least half
    /// of them long (and longer than a `Few` move).
    Sweep,
}

/// `lit` with some of its words (runs of four or more ASCII letters, see [`Breaks`]) broken by
/// a backslash-newline, a line continuation the value does not keep (never in a raw string,
/// where the backslash would stay).
fn break_words(lit: &Literal<'_>, breaks: Breaks, rng: &mut Rng) -> Option<String> {
    if lit.raw() {
        return None;
    }
    let body = lit.body;
    // Positions inside a word where a break may go: between two letters, at least two letters
    // from either end. Letters are single-character tokens, so no escape is ever cut.
    let mut words: Vec<Vec<usize>> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut close = |run: &mut Vec<usize>| {
        if run.len() >= 4 {
            words.push(run[2..run.len() - 1].to_vec());
        }
        run.clear();
    };
    for (s, e) in tokens(body, false) {
        if e == s + 1 && body.as_bytes()[s].is_ascii_alphabetic() {
            run.push(s);
        } else {
            close(&mut run);
        }
    }
    close(&mut run);
    if words.is_empty() {
        return None;
    }
    let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
    let mut cuts: Vec<usize> = Vec::new();
    match breaks {
        Breaks::Few => {
            // At least two breaks: one moves a detector by about 0.01, too little to pay for
            // a query.
            let count = (2 + rng.below(MAX_WORD_BREAKS - 1)).min(words.len());
            for _ in 0..count {
                let word = words.swap_remove(rng.below(words.len()));
                if let Some(&at) = rng.pick(&word) {
                    cuts.push(at);
                }
            }
        }
        Breaks::Sweep => {
            // Fewer words than a `Few` move could break: the sweep would only repeat it.
            if words.len() <= MAX_WORD_BREAKS {
                return None;
            }
            let n = words.len();
            let len = if rng.chance(0.5) {
                n
            } else {
                n.div_ceil(2) + rng.below(n / 2 + 1)
            }
            .clamp(MAX_WORD_BREAKS + 1, n);
            let start = rng.below(n - len + 1);
            for word in words.iter().skip(start).take(len) {
                if let Some(&at) = rng.pick(word) {
                    cuts.push(at);
                }
            }
        }
    }
    cuts.sort_unstable();
    let mut out = String::with_capacity(body.len() + 3 * cuts.len());
    let mut from = 0;
    for at in cuts {
        out.push_str(&body[from..at]);
        out.push('\\');
        out.push_str(newline);
        from = at;
    }
    out.push_str(&body[from..]);
    Some(format!("{}{}{out}{}", lit.prefix, lit.quote, lit.quote))
}

/// `lit` as two adjacent literals, cut after whitespace where there is some.
fn split(lit: &Literal<'_>, rng: &mut Rng) -> Option<String> {
    let toks = tokens(lit.body, lit.raw());
    let q = lit.quote_char();
    // A cut after token k: both pieces non-empty, and the first may not end with a bare quote
    // character (it would close the literal early).
    let cuts: Vec<usize> = (0..toks.len().saturating_sub(1))
        .filter(|&k| {
            let (s, e) = toks[k];
            !(e - s == q.len_utf8() && lit.body[s..e].starts_with(q))
        })
        .map(|k| toks[k].1)
        .collect();
    let spaced: Vec<usize> = cuts
        .iter()
        .copied()
        .filter(|&c| lit.body[..c].ends_with([' ', '\n', '\t']))
        .collect();
    let pool = if spaced.is_empty() { &cuts } else { &spaced };
    let &cut = rng.pick(pool)?;
    let (p, qt) = (lit.prefix, lit.quote);
    Some(format!(
        "{p}{qt}{}{qt} {p}{qt}{}{qt}",
        &lit.body[..cut],
        &lit.body[cut..]
    ))
}

/// `lit` with one ASCII letter or digit written as `\xHH` (never in a raw string).
fn escape(lit: &Literal<'_>, rng: &mut Rng) -> Option<String> {
    if lit.raw() {
        return None;
    }
    let plain: Vec<usize> = tokens(lit.body, false)
        .into_iter()
        .filter(|&(s, e)| e == s + 1 && lit.body.as_bytes()[s].is_ascii_alphanumeric())
        .map(|(s, _)| s)
        .collect();
    let &at = rng.pick(&plain)?;
    let (p, qt) = (lit.prefix, lit.quote);
    Some(format!(
        "{p}{qt}{}\\x{:02x}{}{qt}",
        &lit.body[..at],
        lit.body.as_bytes()[at],
        &lit.body[at + 1..]
    ))
}

/// `lit` with the other quote character, where its text holds neither.
fn switch_quotes(lit: &Literal<'_>) -> Option<String> {
    if lit.body.contains(['"', '\'']) {
        return None;
    }
    let other = match lit.quote {
        "\"\"\"" => "'''",
        "'''" => "\"\"\"",
        "\"" => "'",
        _ => "\"",
    };
    Some(format!("{}{other}{}{other}", lit.prefix, lit.body))
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn leaves_fstrings_patterns_annotations_and_plain_strings_alone() {
        sdk::testing::assert_declines(
            apply,
            &[
                "x = f\"\"\"ab{y}\"\"\"\n",
                "x = \"one line\"\n",
                "def f(a: \"\"\"int\"\"\"):\n    return a\n",
                "match x:\n    case \"\"\"ab\"\"\":\n        pass\n",
                "y = \"\"\"a\"\"\" f\"{x}\"\n",
            ],
            8,
        );
    }

    #[test]
    fn word_breaks_keep_the_value_with_crlf_line_ends() {
        let src = "def f():\r\n    \"\"\"Compute the average of numbers.\r\n    More words here.\"\"\"\r\n    return 1\r\n";
        let show = "print(repr(f.__doc__))\r\n";
        let expected = sdk::testing::run_python(&format!("{src}{show}")).1;
        let mut broken = 0;
        for seed in 0..24 {
            if let Ok(Some(out)) = apply(src, seed) {
                broken += usize::from(out.contains("\\\r\n"));
                assert_eq!(
                    sdk::testing::run_python(&format!("{out}{show}")).1,
                    expected,
                    "{out}"
                );
            }
        }
        assert!(broken > 0, "some seed breaks a word");
    }

    #[test]
    fn a_sweep_breaks_every_word_of_a_stretch_and_keeps_the_value() {
        let words = "Return the strongest extension of the class given here, \
            counting capital letters against lowercase letters in every name";
        let lit = super::Literal {
            prefix: "",
            quote: "\"\"\"",
            body: words,
        };
        let eligible = words
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| w.len() >= 4)
            .count();
        let mut whole = 0;
        for seed in 0..16 {
            let mut rng = sdk::Rng::new(seed);
            let out =
                super::break_words(&lit, super::Breaks::Sweep, &mut rng).expect("long enough");
            let breaks = out.matches("\\\n").count();
            assert!(
                breaks > super::MAX_WORD_BREAKS && breaks <= eligible,
                "{out}"
            );
            whole += usize::from(breaks == eligible);
            assert_eq!(out.replace("\\\n", ""), format!("\"\"\"{words}\"\"\""));
        }
        assert!(whole > 0, "some seed sweeps the whole string");
        // Too few words for a sweep: it declines rather than repeat a small move.
        let short = super::Literal {
            prefix: "",
            quote: "\"\"\"",
            body: "Return the value plus one.",
        };
        assert!(super::break_words(&short, super::Breaks::Sweep, &mut sdk::Rng::new(0)).is_none());
    }

    #[test]
    fn never_cuts_inside_an_escape() {
        let toks = super::tokens("a\\x41\\n\\N{DASH}\\101b", false);
        let texts: Vec<&str> = toks
            .iter()
            .map(|&(s, e)| &"a\\x41\\n\\N{DASH}\\101b"[s..e])
            .collect();
        assert_eq!(texts, ["a", "\\x41", "\\n", "\\N{DASH}", "\\101", "b"]);
        let raw = super::tokens("a\\\"b", true);
        assert_eq!(raw, [(0, 1), (1, 3), (3, 4)]);
        assert_eq!(super::tokens("a\r\nb", false), [(0, 1), (1, 3), (3, 4)]);
    }
}
