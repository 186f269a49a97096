//! # comment-edit
//!
//! ## What it does
//! Removes comments, or adds plausible ones: a whole-line comment is deleted with its line, a
//! trailing comment with the spaces before it; or a comment line such as `# update the running
//! total` is inserted before a statement, at its indentation.
//!
//! ## Why it preserves semantics
//! Comments are discarded by the tokenizer: they have no value, no position in the AST and no
//! effect on line-independent behaviour. Docstrings, which are values (`__doc__`, `help`,
//! doctest), are strings and are never touched. Text inside strings that looks like a comment is
//! not a comment node and is left alone.
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
//!   statement.

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
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = parsed.source.as_str();
    let mut sites: Vec<Site<'_>> = Vec::new();
    for n in parsed.nodes() {
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
    for i in rng.sites(sites.len(), 0.3) {
        match sites[i] {
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
