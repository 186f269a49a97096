//! # string-reencode
//!
//! ## What it does
//! Re-encodes a string literal without changing its value: splits it into an implicit
//! concatenation (`"hello world"` → `"hello " "world"`), or writes one ASCII letter or digit
//! as a hexadecimal escape (`"abc"` → `"a\x62c"`).
//!
//! ## Why it preserves semantics
//! Adjacent string literals are joined by the compiler into one constant, and `\xHH` denotes
//! exactly the character with that code, so the program holds the same `str` (or `bytes`)
//! object either way; the concatenation is a single atom, so attribute access, subscripts and
//! operators bind to the whole string as before.
//!
//! ## Example
//! ```python
//! print("hello world")
//! ```
//! becomes
//! ```python
//! print("hello " "world")
//! ```
//!
//! ## Not applied when
//! - the string is a docstring, an f-string, a raw string, a triple-quoted or multi-line string,
//!   or already contains a backslash (escapes are left as written);
//! - it is part of an implicit concatenation already, a `match` pattern, an annotation, or a
//!   self-documenting f-string field;
//! - it is shorter than two characters (nothing to split) or has no ASCII letter or digit to
//!   escape.

use sdk::effects::is_docstring;
use sdk::parse::Parsed;
use sdk::pyast::in_debug_fstring;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "string-reencode",
    description: "Split string literals into implicit concatenations or escape one character",
    category: "expression",
    rewrite: rewrite,
);

/// (prefix, quote, body) of a plain one-line string literal, or None.
fn plain(text: &str) -> Option<(&str, char, &str)> {
    let q = text.find(['\'', '"'])?;
    let prefix = &text[..q];
    if !prefix.chars().all(|c| matches!(c, 'u' | 'U' | 'b' | 'B')) {
        return None; // f, r and combinations
    }
    let quote = text[q..].chars().next()?;
    let rest = &text[q..];
    if rest.starts_with("\"\"\"")
        || rest.starts_with("'''")
        || rest.len() < 2
        || !rest.ends_with(quote)
    {
        return None;
    }
    let body = &rest[1..rest.len() - 1];
    if body.contains('\\') || body.contains('\n') {
        return None;
    }
    Some((prefix, quote, body))
}

fn protected(node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(
            n.kind(),
            "concatenated_string" | "case_pattern" | "type" | "interpolation"
        ) {
            return true;
        }
        cur = n.parent();
    }
    false
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let sites: Vec<Node<'_>> = parsed
        .nodes_of_kind("string")
        .into_iter()
        .filter(|n| plain(parsed.text(*n)).is_some_and(|(_, _, b)| b.chars().count() >= 2))
        .filter(|n| !protected(*n) && !in_debug_fstring(parsed, *n))
        .filter(|n| {
            !n.parent()
                .is_some_and(|p| p.kind() == "expression_statement" && is_docstring(p))
        })
        .collect();
    for i in rng.sites(sites.len(), 0.3) {
        let node = sites[i];
        let Some((prefix, q, body)) = plain(parsed.text(node)) else {
            continue;
        };
        let chars: Vec<(usize, char)> = body.char_indices().collect();
        let escapable: Vec<usize> = chars
            .iter()
            .filter(|(_, c)| c.is_ascii_alphanumeric())
            .map(|(i, _)| *i)
            .collect();
        let text = if rng.chance(0.5) || escapable.is_empty() {
            let cut = chars[1 + rng.below(chars.len() - 1)].0;
            format!(
                "{prefix}{q}{}{q} {prefix}{q}{}{q}",
                &body[..cut],
                &body[cut..]
            )
        } else {
            let at = escapable[rng.below(escapable.len())];
            let c = body.as_bytes()[at];
            format!("{prefix}{q}{}\\x{c:02x}{}{q}", &body[..at], &body[at + 1..])
        };
        edits.replace(node.byte_range(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn leaves_docstrings_fstrings_raw_and_escaped_strings_alone() {
        sdk::testing::assert_declines(
            apply,
            &[
                "def f():\n    \"\"\"Docstring.\"\"\"\n",
                "x = f\"ab{y}\"\ny = r\"a\\d\"\nz = \"a\\n\"\nw = \"\"\"abc\"\"\"\n",
                "v = \"ab\" \"cd\"\n",
                "match x:\n    case \"ab\":\n        pass\n",
            ],
            8,
        );
    }
}
