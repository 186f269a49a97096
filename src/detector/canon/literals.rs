//! Literals written by their value: strings decoded and quoted one way, integers in decimal.

use crate::language::Language;

/// A literal written by its value: strings decoded and quoted one way, integers in decimal.
pub(super) fn canonical_literal(language: Language, text: &str) -> String {
    match language {
        Language::Python => {
            if let Some(s) = python_string(text) {
                if s.formatted {
                    return text.to_string();
                }
                return quote(s.bytes, &s.value);
            }
        }
        Language::Java => {
            if let Some(s) = java_string(text) {
                return quote(false, &s);
            }
            if let Some(c) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                return format!("'{}'", unescape(c, Escapes::Java).replace('\\', "\\\\"));
            }
        }
        // C and C++ strings are read as written (their escapes and prefixes differ).
        Language::Cpp | Language::C => {}
    }
    integer_value(text).map_or_else(|| text.to_string(), |v| v.to_string())
}

/// Whether `text` is a name (`split`, or a builtin a constant aliases) rather than a literal
/// such as `r"…"`.
pub(super) fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The value of an integer literal in either language (`0x1F`, `0o17`, `0b101`, `1_000`,
/// Java's `10L`); `None` for anything else.
pub(super) fn integer_value(text: &str) -> Option<u128> {
    let t = text.replace('_', "");
    let t = t.strip_suffix(['l', 'L']).unwrap_or(&t);
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        u128::from_str_radix(o, 8).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.bytes().all(|b| b.is_ascii_digit())
    {
        // Java's octal `017` (Python forbids leading zeros but for 0 itself).
        u128::from_str_radix(&lower, 8).ok()
    } else if !lower.is_empty() && lower.bytes().all(|b| b.is_ascii_digit()) {
        lower.parse().ok()
    } else {
        None
    }
}

/// A string value written one way: double quotes, triple ones when it spans lines; quotes
/// and backslashes inside are escaped so the form reads as one literal.
pub(super) fn quote(bytes: bool, value: &str) -> String {
    let prefix = if bytes { "b" } else { "" };
    let escaped = value.replace('\\', "\\\\");
    if value.contains('\n') {
        let mut body = escaped.replace("\"\"\"", "\\\"\"\"");
        // A value that ends with a quote would run into the closing three (`"12""""`).
        if body.ends_with('"') {
            body.pop();
            body.push_str("\\\"");
        }
        format!("{prefix}\"\"\"{body}\"\"\"")
    } else {
        format!("{prefix}\"{}\"", escaped.replace('"', "\\\""))
    }
}

/// A Python string literal's value.
pub(super) struct PyString {
    pub(super) value: String,
    pub(super) bytes: bool,
    /// An f-string (its value is not a constant).
    pub(super) formatted: bool,
}

/// Reads a Python string literal (`r"…"`, `b'…'`, `"""…"""`, …); `None` for anything else.
pub(super) fn python_string(text: &str) -> Option<PyString> {
    let quote_at = text.find(['"', '\''])?;
    let prefix = text.get(..quote_at)?.to_ascii_lowercase();
    if prefix.len() > 2 || !prefix.chars().all(|c| "rbuf".contains(c)) {
        return None;
    }
    let body = text.get(quote_at..)?;
    let delimiter = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|d| body.starts_with(d) && body.len() >= 2 * d.len() && body.ends_with(d))?;
    let inner = body.get(delimiter.len()..body.len() - delimiter.len())?;
    let raw = prefix.contains('r');
    let formatted = prefix.contains('f');
    Some(PyString {
        value: if raw || formatted {
            inner.to_string()
        } else {
            unescape(inner, Escapes::Python)
        },
        bytes: prefix.contains('b'),
        formatted,
    })
}

/// Reads a Java string or text-block literal's value; `None` for anything else (character
/// literals are left as written).
pub(super) fn java_string(text: &str) -> Option<String> {
    if let Some(inner) = text
        .strip_prefix("\"\"\"")
        .and_then(|t| t.strip_suffix("\"\"\""))
    {
        // A text block: its content starts after the first line break.
        let inner = inner.split_once('\n').map_or(inner, |(_, rest)| rest);
        return Some(unescape(inner, Escapes::Java));
    }
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    Some(unescape(inner, Escapes::Java))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Python,
    Java,
}

/// Decodes backslash escapes; an escape the language does not define stays as written.
fn unescape(s: &str, escapes: Escapes) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let take_digits =
        |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize| {
            let mut digits = String::new();
            while digits.len() < max {
                match chars.peek() {
                    Some(c) if c.is_digit(radix) => {
                        digits.push(*c);
                        chars.next();
                    }
                    _ => break,
                }
            }
            digits
        };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            'a' if escapes == Escapes::Python => Some('\u{7}'),
            'v' if escapes == Escapes::Python => Some('\u{b}'),
            's' if escapes == Escapes::Java => Some(' '),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            continue;
        }
        match e {
            '\n' => {}
            '0'..='7' => {
                let mut digits = e.to_string();
                digits.push_str(&take_digits(&mut chars, 8, 2));
                match u32::from_str_radix(&digits, 8)
                    .ok()
                    .and_then(char::from_u32)
                {
                    Some(v) => out.push(v),
                    None => {
                        out.push('\\');
                        out.push_str(&digits);
                    }
                }
            }
            'x' | 'u' | 'U' => {
                if e == 'u' && escapes == Escapes::Java {
                    // Java allows `\uuuu0041`.
                    while chars.peek() == Some(&'u') {
                        chars.next();
                    }
                }
                let width = match (e, escapes) {
                    ('x', Escapes::Python) => 2,
                    ('u', _) => 4,
                    ('U', Escapes::Python) => 8,
                    _ => 0,
                };
                let digits = take_digits(&mut chars, 16, width);
                match u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                {
                    Some(v) if width > 0 && digits.len() == width => out.push(v),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&digits);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_read_back_as_themselves() {
        for value in [
            "plain",
            "say \"hi\"",
            "two\nlines",
            "ends\n\"12\"",
            "a \"\"\" b\nc\\",
        ] {
            let quoted = quote(false, value);
            let read = python_string(&quoted).map(|s| s.value);
            assert_eq!(read.as_deref(), Some(value), "{quoted}");
        }
    }

    #[test]
    fn unescape_reads_every_escape_form() {
        assert_eq!(
            unescape(r"a\x62\u0063\U00000064\145\n\q", Escapes::Python),
            "abcde\n\\q"
        );
        assert_eq!(unescape(r"\uuu0041\s\101", Escapes::Java), "A A");
    }
}
