//! ## What it does
//! Removes comments, or adds plausible ones: a `//` line comment before a statement, or a
//! `/* … */` block comment before a function, at their indentation.
//!
//! ## Why it preserves semantics
//! The compiler replaces each comment by a space before anything else reads the program. The
//! one trap is line splicing, which happens before comments are found: a `//` comment whose
//! line ends with a backslash also swallows the next line, so a comment holding a backslash is
//! never removed, and inserted comments are plain words without backslashes. Comments inside
//! string literals are not comments and are left alone; comments are never inserted inside a
//! directive or in code a preprocessor conditional guards, and only at the start of a
//! statement's own line.
//!
//! ## Example
//! ```cpp
//! int total = 0; // running sum
//! for (int x : xs) total += x;
//! ```
//! becomes
//! ```cpp
//! int total = 0;
//! // walk through the items
//! for (int x : xs) total += x;
//! ```
//!
//! ## Not applied when
//! The comment holds a backslash, or the statement does not start its line.

use sdk::cpp::{in_conditional, in_directive, statements, CppParsed};
use sdk::text::{line_end, line_start, starts_line};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-comment-edit",
    description: "Removes C++ comments or adds plausible ones",
    category: "layout",
    rewrite: rewrite,
}

const PHRASES: &[&str] = &[
    "read the input",
    "compute the result",
    "update the running total",
    "walk through the items",
    "check the boundary case",
    "keep track of what we have seen",
    "prepare the output",
    "handle the remaining elements",
    "store the intermediate value",
    "print the answer",
    "advance to the next element",
    "nothing to do for empty input",
    "the main loop",
    "collect the values first",
    "compare with the best so far",
    "helper for the main routine",
    "parse the numbers on this line",
    "accumulate the counts",
];

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let src = &p.source;
    let comments: Vec<_> = p
        .nodes_of_kind("comment")
        .into_iter()
        .filter(|n| !p.text(*n).contains('\\'))
        .collect();
    let mut anchors = Vec::new();
    for b in p.nodes_of_kind("compound_statement") {
        if in_conditional(b) || in_directive(b) {
            continue;
        }
        anchors.extend(
            statements(b)
                .into_iter()
                .filter(|s| starts_line(src, s.start_byte())),
        );
    }
    anchors.extend(
        p.nodes_of_kind("function_definition")
            .into_iter()
            .filter(|f| !in_conditional(*f) && starts_line(src, f.start_byte())),
    );
    for i in rng.sites(comments.len(), 0.5) {
        let c = comments[i];
        let (ls, le) = (line_start(src, c.start_byte()), line_end(src, c.end_byte()));
        let before = &src[ls..c.start_byte()];
        let after = &src[c.end_byte()..le];
        if before.trim().is_empty() && after.trim().is_empty() {
            edits.replace(ls..le, "");
        } else {
            let start = c.start_byte() - (before.len() - before.trim_end().len());
            edits.replace(
                start..c.end_byte(),
                if after.trim().is_empty() { "" } else { " " },
            );
        }
    }
    for i in rng.sites(anchors.len(), 0.2) {
        let a = anchors[i];
        if edits.overlaps(&(a.start_byte()..a.start_byte())) {
            continue;
        }
        let ind = p.indent_of(a);
        let phrase = PHRASES[rng.below(PHRASES.len())];
        let text = if a.kind() == "function_definition" {
            format!("/* {phrase} */\n{ind}")
        } else {
            format!("// {phrase}\n{ind}")
        };
        edits.insert(a.start_byte(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn comments_that_splice_lines_stay() {
        let src = "#include <cstdio>\nint main() {\n    int x = 1; // keep \\\n    x = 2;\n    printf(\"%d\\n\", x);\n}\n";
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(
                    out.contains("// keep \\\n    x = 2;"),
                    "seed {seed}:\n{out}"
                );
            }
        }
    }
}
