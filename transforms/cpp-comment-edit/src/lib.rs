//! ## What it does
//! Removes comments, or adds plausible ones: a `//` line comment before a statement, or a
//! `/* … */` block comment before a function, at their indentation. It also rewrites C
//! programs.
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
use sdk::text::{comment_edits, starts_line, CommentAnchor};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-comment-edit",
    description: "Removes C++ comments or adds plausible ones",
    category: "layout",
    languages: "cpp c",
    rewrite: rewrite,
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
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
    let comments: Vec<_> = comments.iter().map(|c| c.byte_range()).collect();
    let anchors: Vec<CommentAnchor> = anchors
        .iter()
        .map(|a| CommentAnchor {
            at: a.start_byte(),
            block: a.kind() == "function_definition",
        })
        .collect();
    comment_edits(src, &comments, &anchors, rng)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

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
