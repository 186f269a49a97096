//! Statement-header macros: `#define rep(i, n) for (int i = 0; i < (n); i++)`, written before
//! a statement as in `rep(i, n) cin >> a[i];`. Contest programs use them everywhere, and a
//! parser that does not expand macros reads the invocation as a call missing its `;`.
//!
//! [`mask`] writes a copy of the source in which each invocation of such a macro is replaced
//! by `if(1)` padded with spaces (newlines kept) to the same length, which parses as the
//! header of the statement that follows. Byte offsets are unchanged, so a tree of the copy
//! locates every other node in the original; the masked ranges are what it cannot show.
//!
//! One other construct tree-sitter-cpp cannot read is masked the same way: an array `new` of
//! pointers, `new int *[n]` (the grammar takes `*[n]` for a multiplication). Its `*`s become
//! spaces, `new int  [n]`, which parses as the `new`-expression it is; the range from `new`
//! to the `[` is masked, so transforms leave the statement alone and rename none of its words.
//!
//! This file is compiled into both the guest SDK and the host (which includes it with
//! `#[path]`), so that both judge the same programs parseable. It uses only `std`.

use std::collections::BTreeSet;
use std::ops::Range;

/// What replaces an invocation (then spaces): the shortest statement header.
const HEADER: &str = "if(1)";

/// The function-like macros whose body starts with `for`, `while`, `if` or `switch`.
pub fn header_macros(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_len);
        // A function-like macro has its `(` right after the name.
        let Some(params) = after.strip_prefix('(') else {
            continue;
        };
        let Some(close) = params.find(')') else {
            continue;
        };
        let body = params[close + 1..].trim_start();
        let keyword_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        if !name.is_empty() && matches!(&body[..keyword_len], "for" | "while" | "if" | "switch") {
            names.insert(name.to_string());
        }
    }
    names
}

/// The source with every invocation of a [`header_macros`] macro in code (not in comments,
/// literals or directives) and every array `new` of pointers masked, and the masked ranges;
/// `None` when there is none.
pub fn mask(source: &str) -> Option<(String, Vec<Range<usize>>)> {
    let macros = header_macros(source);
    if macros.is_empty() && !source.contains("new") {
        return None;
    }
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let mut ranges = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                i = directive_end(bytes, i);
                continue;
            }
            _ => {}
        }
        line_start = false;
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = bytes[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |p| p + 2);
        } else if c == b'"' || c == b'\'' {
            i = literal_end(bytes, i);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let Ok(word) = std::str::from_utf8(&bytes[start..i]) else {
                continue;
            };
            if word == "new" {
                if let Some(open) = pointer_array_new(bytes, i) {
                    for b in &mut out[i..open] {
                        if *b == b'*' {
                            *b = b' ';
                        }
                    }
                    ranges.push(start..open);
                    i = open;
                }
                continue;
            }
            if !macros.contains(word) {
                continue;
            }
            let mut open = i;
            while open < bytes.len() && matches!(bytes[open], b' ' | b'\t') {
                open += 1;
            }
            if bytes.get(open) != Some(&b'(') {
                continue;
            }
            let Some(close) = matching_paren(bytes, open) else {
                continue;
            };
            let end = close + 1;
            if end - start < HEADER.len() {
                continue;
            }
            for (k, b) in out[start..end].iter_mut().enumerate() {
                *b = match HEADER.as_bytes().get(k) {
                    Some(h) => *h,
                    None if *b == b'\n' => b'\n',
                    None => b' ',
                };
            }
            ranges.push(start..end);
            i = end;
        } else {
            i += 1;
        }
    }
    if ranges.is_empty() {
        return None;
    }
    // Only ASCII bytes were written over whole invocations, which start and end on ASCII.
    String::from_utf8(out).ok().map(|s| (s, ranges))
}

/// For `new` ending at `i`: the index of the `[` when a type name (words, `::`, spaces) and
/// then one or more `*` follow, as in `new int *[n]` or `new std::string**[n]`.
fn pointer_array_new(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    let mut words = 0;
    while let Some(&b) = bytes.get(j) {
        if b.is_ascii_alphanumeric() || b == b'_' {
            if j == 0 || !(bytes[j - 1].is_ascii_alphanumeric() || bytes[j - 1] == b'_') {
                words += 1;
            }
            j += 1;
        } else if matches!(b, b' ' | b'\t' | b':') {
            j += 1;
        } else {
            break;
        }
    }
    let mut stars = 0;
    while let Some(&b) = bytes.get(j) {
        match b {
            b'*' => stars += 1,
            b' ' | b'\t' => {}
            _ => break,
        }
        j += 1;
    }
    (words > 0 && stars > 0 && bytes.get(j) == Some(&b'[')).then_some(j)
}

/// The index after a directive that starts at `i` (its lines joined by `\` included).
fn directive_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        if bytes[i] == b'\n' && !(i > 0 && bytes[i - 1] == b'\\') {
            return i;
        }
        i += 1;
    }
    i
}

/// The index after a string or character literal that starts at `i`.
fn literal_end(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            b if b == quote => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The index of the `)` matching the `(` at `open`, skipping literals.
fn matching_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = open;
    while j < bytes.len() {
        match bytes[j] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            b'"' | b'\'' => {
                j = literal_end(bytes, j);
                continue;
            }
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
        j += 1;
    }
    None
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations_in_code_are_masked_to_the_same_length() {
        let src = "#define rep(i, n) for (int i = 0; i < (n); i++)\n#define sq(x) ((x) * (x))\nint main() {\n    int a[3];\n    rep(i, 3) a[i] = sq(i);\n    // rep(j, 2) in a comment\n    const char* s = \"rep(k, 1)\";\n    rep(i,\n        3) a[i]++;\n    return a[2];\n}\n";
        assert_eq!(header_macros(src).into_iter().collect::<Vec<_>>(), ["rep"]);
        let (masked, ranges) = mask(src).expect("two invocations");
        assert_eq!(masked.len(), src.len());
        assert_eq!(ranges.len(), 2);
        assert_eq!(&src[ranges[0].clone()], "rep(i, 3)");
        assert!(masked.contains("    if(1)     a[i] = sq(i);"));
        assert!(masked.contains("// rep(j, 2) in a comment"));
        assert!(masked.contains("\"rep(k, 1)\""));
        assert_eq!(masked.lines().count(), src.lines().count(), "newlines kept");
        assert!(mask("int main() { return 0; }\n").is_none());
    }

    #[test]
    fn arrays_of_pointers_made_by_new_are_masked() {
        let src = "int main() {\n    int m = 3;\n    int **a = new int *[m];\n    std::string **s = new std::string**[2];\n    int *b = new int[m];\n    int c = m * m;\n    // new int *[m] in a comment\n}\n";
        let (masked, ranges) = mask(src).expect("two arrays of pointers");
        assert_eq!(masked.len(), src.len());
        assert_eq!(ranges.len(), 2, "{ranges:?}");
        assert_eq!(&src[ranges[0].clone()], "new int *");
        assert!(masked.contains("int **a = new int  [m];"));
        assert!(masked.contains("new std::string  [2]"));
        assert!(masked.contains("new int[m]") && masked.contains("m * m"));
        assert!(masked.contains("// new int *[m] in a comment"));
        assert!(mask("int main() { int renew = 2; return renew * 3; }\n").is_none());
    }
}
