//! Indentation helpers. Lines that begin inside a string literal are never touched: their
//! leading whitespace is part of the string's value.

use crate::parse::{descendants, Parsed};
use tree_sitter::Node;

/// Byte offset of the start of the line containing `byte`.
pub fn line_start(src: &str, byte: usize) -> usize {
    src[..byte].rfind('\n').map_or(0, |i| i + 1)
}

/// Byte offset just past the end of the line containing `byte` (after its `\n`, if any).
pub fn line_end(src: &str, byte: usize) -> usize {
    src[byte..].find('\n').map_or(src.len(), |i| byte + i + 1)
}

/// The leading whitespace of the line containing `byte`.
pub fn line_indent(src: &str, byte: usize) -> &str {
    let start = line_start(src, byte);
    let rest = &src[start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

/// Whether the line before `byte`'s line ends with a backslash, so that `byte`'s line
/// continues the same logical line (text inserted at its start would join that line).
pub fn continues_previous_line(src: &str, byte: usize) -> bool {
    let start = line_start(src, byte);
    start > 0 && src[..start - 1].trim_end_matches('\r').ends_with('\\')
}

/// Whether only spaces or tabs stand between the start of `byte`'s line and `byte`.
pub fn starts_line(src: &str, byte: usize) -> bool {
    src[line_start(src, byte)..byte]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// Whether only spaces, tabs or a comment stand between `byte` and the end of its line.
pub fn ends_line(src: &str, byte: usize) -> bool {
    let rest = &src[byte..line_end(src, byte)];
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.is_empty() || rest.starts_with('\n') || rest.starts_with('#') || rest.starts_with("\r\n")
}

/// The indentation unit of the program: the first extra indentation a block adds over its
/// parent statement, or four spaces when the program has no indented block.
pub fn indent_unit(parsed: &Parsed) -> String {
    let src = parsed.source.as_str();
    for block in parsed.nodes_of_kind("block") {
        let (Some(parent), true) = (block.parent(), starts_line(src, block.start_byte())) else {
            continue;
        };
        let outer = line_indent(src, parent.start_byte());
        let inner = line_indent(src, block.start_byte());
        if inner.len() > outer.len() && inner.starts_with(outer) {
            return inner[outer.len()..].to_string();
        }
    }
    "    ".to_string()
}

/// Offsets of line starts that lie strictly inside a string literal (continuation lines of
/// triple-quoted strings), sorted.
pub fn string_line_starts(parsed: &Parsed) -> Vec<usize> {
    let src = parsed.source.as_str();
    let mut out = Vec::new();
    for node in descendants(parsed.root()) {
        if node.kind() != "string" {
            continue;
        }
        let text = &src[node.byte_range()];
        for (i, _) in text.match_indices('\n') {
            out.push(node.start_byte() + i + 1);
        }
    }
    out.sort_unstable();
    out
}

/// The statements of `block` as text whose every line starts with `indent`: the block's own
/// indentation is replaced by `indent`; lines inside strings are left exactly as they are;
/// no trailing newline.
///
/// Works for blocks on their own lines and for a body on its header's line (`if x: y`).
pub fn block_text(parsed: &Parsed, block: Node<'_>, indent: &str) -> String {
    reindent_range(parsed, block.start_byte(), block.end_byte(), indent)
}

/// Text of the bytes `start..end` (where `start` is the first non-blank of a statement) with
/// that statement's line indentation replaced by `indent` on every line that carries it.
pub fn reindent_range(parsed: &Parsed, start: usize, end: usize, indent: &str) -> String {
    let src = parsed.source.as_str();
    let own_line = starts_line(src, start);
    let from = if own_line {
        line_indent(src, start).to_string()
    } else {
        String::new()
    };
    let in_string = parsed.string_line_starts();
    let text = src[start..end].trim_end();
    let mut out = String::with_capacity(text.len() + 32);
    out.push_str(indent);
    let mut offset = start;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if in_string.binary_search(&offset).is_ok() {
                out.push_str(line);
            } else if line.trim().is_empty() {
                // blank lines carry no indentation
            } else if own_line && line.starts_with(from.as_str()) {
                out.push_str(indent);
                out.push_str(&line[from.len()..]);
            } else {
                out.push_str(line);
            }
        } else {
            out.push_str(line);
        }
        offset += line.len() + 1;
    }
    out
}

/// Prefixes every non-empty line of generated `text` (which holds no multi-line string) with `indent`.
pub fn indent_lines(text: &str, indent: &str) -> String {
    text.split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` in parentheses when `needed` (it binds looser than where it goes) or when it spans
/// lines (its line breaks may rely on brackets around it).
pub fn paren_if(text: &str, needed: bool) -> String {
    if needed || text.contains('\n') {
        format!("({text})")
    } else {
        text.to_string()
    }
}

/// One level of indentation as a brace-language program writes it (a tab, or 2–8 spaces; 4
/// if unsure), read from the leading whitespace of its lines.
pub fn brace_indent_unit(source: &str) -> String {
    let mut best: Option<usize> = None;
    for line in source.lines() {
        if line.starts_with('\t') {
            return "\t".into();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 && !line.trim().is_empty() {
            best = Some(best.map_or(n, |b: usize| b.min(n)));
        }
    }
    " ".repeat(best.filter(|n| (2..=8).contains(n)).unwrap_or(4))
}

/// `text` with the prefix `from` of every line after the first (blank lines aside) replaced by
/// `to`: a statement's text moved from one indentation to another (its first line is placed by
/// the caller). Callers decline programs whose literals span lines (Java text blocks, C++ raw
/// strings), so no string content is touched.
pub fn shift_lines(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            match line.strip_prefix(from) {
                Some(rest) if !line.trim().is_empty() => {
                    out.push_str(to);
                    out.push_str(rest);
                }
                _ => out.push_str(line),
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Plausible comment text for brace languages' `comment-edit` SPTs (plain words: no
/// backslash, no unicode escape).
pub const COMMENT_PHRASES: &[&str] = &[
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

/// A place a comment may be inserted: before the byte `at` (which starts its line), as a
/// `//` line comment, or a `/* … */` block comment when `block`.
pub struct CommentAnchor {
    /// Where the commented statement or function starts.
    pub at: usize,
    /// A block comment rather than a line comment.
    pub block: bool,
}

/// The edits of a brace language's `comment-edit`: each of `comments` (byte ranges of comment
/// nodes the caller judged safe to remove) removed with probability 1/2, with its line when
/// it is alone there; and a comment from [`COMMENT_PHRASES`] inserted before one anchor in
/// five, at the anchor's indentation.
pub fn comment_edits(
    src: &str,
    comments: &[std::ops::Range<usize>],
    anchors: &[CommentAnchor],
    rng: &mut crate::Rng,
) -> crate::Edits {
    let mut edits = crate::Edits::new();
    for i in rng.sites(comments.len(), 0.5) {
        let c = &comments[i];
        let (ls, le) = (line_start(src, c.start), line_end(src, c.end));
        let before = &src[ls..c.start];
        let after = &src[c.end..le];
        if before.trim().is_empty() && after.trim().is_empty() {
            // A comment alone on its line(s): the lines go (`le` is past the newline).
            edits.replace(ls..le, "");
        } else {
            let start = c.start - (before.len() - before.trim_end().len());
            edits.replace(start..c.end, if after.trim().is_empty() { "" } else { " " });
        }
    }
    for i in rng.sites(anchors.len(), 0.2) {
        let a = &anchors[i];
        if edits.overlaps(&(a.at..a.at)) {
            continue;
        }
        let ind = line_indent(src, a.at);
        let phrase = COMMENT_PHRASES[rng.below(COMMENT_PHRASES.len())];
        let text = if a.block {
            format!("/* {phrase} */\n{ind}")
        } else {
            format!("// {phrase}\n{ind}")
        };
        edits.insert(a.at, text);
    }
    edits
}
