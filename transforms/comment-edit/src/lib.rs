//! # comment-edit
//!
//! ## What it does
//! Removes comments, or adds plausible ones: a whole-line comment is deleted with its line, a
//! trailing comment with the spaces before it; or a comment line such as `# update the running
//! total` is inserted before a statement, at its indentation. Docstrings change too: their
//! quotes are restyled (`"""…"""` ↔ `'''…'''`, `"…"` → `"""…"""`), and where nothing in
//! the program can read them they are removed or turned into comment lines.
//!
//! ## Why it preserves semantics
//! Comments are discarded by the tokenizer: they have no value, no position in the AST and no
//! effect on line-independent behaviour. Text inside strings that looks like a comment is not a
//! comment node and is left alone. A docstring is a value (`__doc__`): restyling its quotes
//! keeps that value character for character (the new quotes never occur inside it). It is only
//! removed when the program never reads `__doc__` and uses neither `doctest`, `help`,
//! `inspect` nor `pydoc`, and the docstring holds no `>>>` example a doctest run could collect;
//! a body left empty gets `pass`.
//!
//! ## Example
//! ```python
//! total = 0  # running sum
//! for x in xs:
//!     total += x
//! ```
//! becomes
//! ```python
//! total = 0
//! # walk through the items
//! for x in xs:
//!     total += x
//! ```
//!
//! ## Not applied when
//! - the comment is a shebang or an encoding declaration on the first two lines (they
//!   configure the interpreter), or a `type:` comment;
//! - the insertion point continues a backslash-joined line or shares its line with another
//!   statement;
//! - a docstring is an f-string, bytes or implicitly concatenated, or (for removal) could be
//!   read as said above. Test code outside the program could still read `__doc__`; the
//!   equivalence oracle runs the task's tests on every rewrite.

use sdk::parse::Parsed;
use sdk::text::{continues_previous_line, line_end, line_indent, line_start, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "comment-edit",
    description: "Remove comments or add plausible ones",
    category: "layout",
    rewrite: rewrite,
);

const PHRASES: &[&str] = &[
    "compute the result",
    "update the running total",
    "walk through the items",
    "check the boundary case",
    "keep track of what we have seen",
    "prepare the output",
    "handle the remaining elements",
    "store the intermediate value",
    "early exit when done",
    "normalise the input",
    "build the answer step by step",
    "make sure the state is consistent",
];

/// A comment that configures the interpreter or tools.
fn special(parsed: &Parsed, c: Node<'_>) -> bool {
    let text = parsed.text(c);
    let line = c.start_position().row;
    (line < 2 && (text.starts_with("#!") || text.contains("coding:") || text.contains("coding=")))
        || text
            .trim_start_matches('#')
            .trim_start()
            .starts_with("type:")
}

enum Site<'t> {
    Remove(Node<'t>),
    Insert(Node<'t>),
    /// A docstring statement and its string.
    Docstring(Node<'t>, Node<'t>),
}

/// Whether the program could read docstrings: through `__doc__`, `doctest`, `help`,
/// `inspect` or `pydoc`.
fn reads_docstrings(parsed: &Parsed) -> bool {
    let src = parsed.source.as_str();
    ["__doc__", "doctest", "help", "inspect", "pydoc"]
        .iter()
        .any(|w| src.contains(w))
}

/// The docstring with other quotes and the same value, if there is such a spelling.
fn restyled(text: &str) -> Option<String> {
    let prefix: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    if prefix.to_ascii_lowercase().contains(['f', 'b']) {
        return None;
    }
    let body = &text[prefix.len()..];
    for (from, to) in [
        ("\"\"\"", "\'\'\'"),
        ("\'\'\'", "\"\"\""),
        ("\"", "\"\"\""),
        ("\'", "\'\'\'"),
    ] {
        if body.len() >= 2 * from.len() && body.starts_with(from) && body.ends_with(from) {
            let inner = &body[from.len()..body.len() - from.len()];
            let q = &to[..1];
            // The new closing quotes must not appear or be extended inside; a trailing
            // backslash would escape them.
            if inner.contains(to) || inner.ends_with(q) || inner.ends_with('\\') {
                return None;
            }
            return Some(format!("{prefix}{to}{inner}{to}"));
        }
    }
    None
}

/// The docstring's text as comment lines at `indent`.
fn as_comments(text: &str, indent: &str) -> String {
    let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let inner = body.trim_matches(|c| c == '"' || c == '\'');
    let lines: Vec<String> = inner
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("# {l}"))
        .collect();
    lines.join(&format!("\n{indent}"))
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let mut sites: Vec<Site<'_>> = Vec::new();
    for n in parsed.nodes() {
        if n.kind() == "expression_statement" && sdk::effects::is_docstring(n) {
            if let Some(string) = n.named_child(0).filter(|c| c.kind() == "string") {
                sites.push(Site::Docstring(n, string));
            }
        }
        if n.kind() == "comment" {
            if !special(parsed, n) {
                sites.push(Site::Remove(n));
            }
        } else if n
            .parent()
            .is_some_and(|p| matches!(p.kind(), "module" | "block"))
            && n.is_named()
            && starts_line(src, n.start_byte())
            && !continues_previous_line(src, n.start_byte())
        {
            sites.push(Site::Insert(n));
        }
    }
    let removable = !reads_docstrings(parsed);
    for i in rng.sites(sites.len(), 0.3) {
        match sites[i] {
            Site::Docstring(stmt, string) => {
                let text = parsed.text(string);
                let alone = stmt.next_named_sibling().is_none()
                    && stmt.parent().is_some_and(|p| p.kind() == "block");
                let own_lines = starts_line(src, stmt.start_byte())
                    && sdk::text::ends_line(src, stmt.end_byte());
                let range = stmt.byte_range();
                if edits.overlaps(&range) {
                    continue;
                }
                if removable && own_lines && !text.contains(">>>") && rng.chance(0.5) {
                    let indent = line_indent(src, stmt.start_byte());
                    let comments = as_comments(text, indent);
                    let replacement = match (rng.chance(0.5) && !comments.is_empty(), alone) {
                        (true, true) => format!("{comments}\n{indent}pass"),
                        (true, false) => comments,
                        (false, true) => "pass".to_string(),
                        (false, false) => {
                            // The statement's whole line goes.
                            let line =
                                line_start(src, stmt.start_byte())..line_end(src, stmt.end_byte());
                            if src[stmt.end_byte()..line.end].trim().is_empty() {
                                edits.replace(line, "");
                                continue;
                            }
                            "pass".to_string()
                        }
                    };
                    edits.replace(range, replacement);
                } else if let Some(new) = restyled(text) {
                    edits.replace(string.byte_range(), new);
                }
            }
            Site::Remove(c) => {
                let range = if starts_line(src, c.start_byte()) {
                    line_start(src, c.start_byte())..line_end(src, c.start_byte())
                } else {
                    let before = src[..c.start_byte()].trim_end_matches([' ', '\t']).len();
                    before..c.end_byte()
                };
                if !edits.overlaps(&range) {
                    edits.replace(range, "");
                }
            }
            Site::Insert(stmt) => {
                let at = line_start(src, stmt.start_byte());
                let indent = line_indent(src, stmt.start_byte());
                let phrase = PHRASES[rng.below(PHRASES.len())];
                if !edits.overlaps(&(at..at)) {
                    edits.insert(at, format!("{indent}# {phrase}\n"));
                }
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn keeps_shebang_encoding_and_strings() {
        for seed in 0..32 {
            let src = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nx = \"# not a comment\"  # a comment\n";
            let out = apply(src, seed).unwrap().unwrap();
            assert!(
                out.starts_with("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n"),
                "{out}"
            );
            assert!(out.contains("x = \"# not a comment\""), "{out}");
        }
    }
}
