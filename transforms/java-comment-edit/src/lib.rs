//! ## What it does
//! Removes comments, or adds plausible ones: a `//` line comment before a statement, or a
//! `/* … */` block comment before a method, at their indentation.
//!
//! ## Why it preserves semantics
//! javac discards comments. The one trap is that Java translates `\u` unicode escapes before it
//! finds comments, so `// \u000a code` hides live code after an escaped newline: a comment
//! holding `\u` is never removed, and inserted comments are plain ASCII words without
//! backslashes. Comments inside string literals or text blocks are not comment nodes and are
//! left alone; insertion happens only at the start of a statement's own line.
//!
//! ## Example
//! ```java
//! int total = 0; // running sum
//! for (int x : xs) total += x;
//! ```
//! becomes
//! ```java
//! int total = 0;
//! // walk through the items
//! for (int x : xs) total += x;
//! ```
//!
//! ## Not applied when
//! The comment holds a unicode escape (`\u…`), or the statement does not start its line.

use sdk::java::{statements, JavaParsed};
use sdk::text::{comment_edits, starts_line, CommentAnchor};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-comment-edit",
    description: "Removes Java comments or adds plausible ones",
    category: "layout",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let src = &p.source;
    // Removal sites: comments without unicode escapes.
    let comments: Vec<_> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "line_comment" | "block_comment"))
        .filter(|n| !p.text(*n).contains("\\u"))
        .collect();
    // Insertion sites: statements and methods that start their line.
    let mut anchors = Vec::new();
    for b in p.nodes_of_kind("block") {
        anchors.extend(
            statements(b)
                .into_iter()
                .filter(|s| starts_line(src, s.start_byte())),
        );
    }
    anchors.extend(
        p.nodes_of_kind("method_declaration")
            .into_iter()
            .filter(|m| starts_line(src, m.start_byte())),
    );
    let comments: Vec<_> = comments.iter().map(|c| c.byte_range()).collect();
    let anchors: Vec<CommentAnchor> = anchors
        .iter()
        .map(|a| CommentAnchor {
            at: a.start_byte(),
            block: a.kind() == "method_declaration",
        })
        .collect();
    comment_edits(src, &comments, &anchors, rng)
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn comments_hiding_unicode_escapes_stay() {
        let src = "public class Main {\n    public static void main(String[] a) {\n        // \\u000a System.out.println(\"live\");\n        System.out.println(\"x\");\n    }\n}\n";
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(
                    out.contains("\\u000a System.out.println(\"live\");"),
                    "{out}"
                );
            }
        }
    }
}
