//! ## What it does
//! Re-encodes letters and digits inside string and character literals as escapes:
//! `"YES"` → `"\u0059ES"` or `"\131ES"` (octal), `'a'` → `'\u0061'`; and decodes such escapes
//! of letters and digits back.
//!
//! ## Why it preserves semantics
//! An escape of a letter or digit denotes that very character, so the literal's value is
//! unchanged, a string literal stays a compile-time constant (interned: `==` identity is kept),
//! and `case` labels still match. The traps are the characters javac treats specially: a
//! unicode escape is translated before the lexer runs, so `\u0022` (a quote), `\u005c` (a
//! backslash) or `\u000a` (a line break) would break the literal — only letters and digits are
//! ever encoded or decoded; and an octal escape of fewer than three digits could absorb a digit
//! that follows it, so octal escapes are always written with three (javac never reads a fourth).
//! Text blocks are left alone.
//!
//! ## Example
//! ```java
//! System.out.println(ok ? "YES" : "NO");
//! ```
//! becomes
//! ```java
//! System.out.println(ok ? "\u0059ES" : "N\117");
//! ```
//!
//! ## Not applied when
//! The literal is a text block, or holds no letter or digit to re-encode.

use sdk::java::JavaParsed;
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-string-escape",
    description: "Re-encodes letters and digits in Java string and char literals as unicode or octal escapes, or back",
    category: "expression",
    rewrite: rewrite,
}

/// The literal's body split into units: plain characters and escape sequences (kept whole).
fn units(body: &str) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && i + 1 < chars.len() {
            let mut j = i + 1;
            if chars[j] == 'u' {
                while j < chars.len() && chars[j] == 'u' {
                    j += 1;
                }
                j = (j + 4).min(chars.len());
            } else if chars[j].is_digit(8) {
                let max = if chars[j] <= '3' { 3 } else { 2 };
                let mut k = 0;
                while j < chars.len() && k < max && chars[j].is_digit(8) {
                    j += 1;
                    k += 1;
                }
            } else {
                j += 1;
            }
            out.push(chars[i..j].iter().collect());
            i = j;
        } else {
            out.push(chars[i].to_string());
            i += 1;
        }
    }
    out
}

/// The letter or digit an escape unit denotes, if it is one.
fn decoded(unit: &str) -> Option<char> {
    let rest = unit.strip_prefix('\\')?;
    let c = if let Some(hex) = rest.strip_prefix('u') {
        char::from_u32(u32::from_str_radix(hex.trim_start_matches('u'), 16).ok()?)?
    } else if rest.chars().all(|c| c.is_digit(8)) && !rest.is_empty() {
        char::from_u32(u32::from_str_radix(rest, 8).ok()?)?
    } else {
        return None;
    };
    c.is_ascii_alphanumeric().then_some(c)
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let literals: Vec<_> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "string_literal" | "character_literal"))
        .filter(|n| !p.text(*n).starts_with("\"\"\""))
        .collect();
    let mut sites = Vec::new();
    for n in literals {
        let t = p.text(n);
        let body = &t[1..t.len() - 1];
        let us = units(body);
        let encodable: Vec<usize> = (0..us.len())
            .filter(|&i| {
                us[i].chars().count() == 1 && us[i].chars().all(|c| c.is_ascii_alphanumeric())
            })
            .collect();
        let decodable: Vec<usize> = (0..us.len())
            .filter(|&i| decoded(&us[i]).is_some())
            .collect();
        if !encodable.is_empty() || !decodable.is_empty() {
            sites.push((n, us, encodable, decodable));
        }
    }
    for i in rng.sites(sites.len(), 0.4) {
        let (n, us, enc, dec) = &sites[i];
        let t = p.text(*n);
        let quote = &t[..1];
        let mut us = us.clone();
        if !dec.is_empty() && (enc.is_empty() || rng.chance(0.3)) {
            for &k in dec {
                if let Some(c) = decoded(&us[k]) {
                    us[k] = c.to_string();
                }
            }
        } else {
            // At most three characters per literal: enough to change its tokens.
            for _ in 0..enc.len().min(3) {
                let k = enc[rng.below(enc.len())];
                let Some(c) = us[k].chars().next().filter(|c| c.is_ascii_alphanumeric()) else {
                    continue;
                };
                us[k] = if rng.chance(0.6) {
                    format!("\\u{:04X}", c as u32)
                } else {
                    format!("\\{:03o}", c as u32)
                };
            }
        }
        edits.replace(n.byte_range(), format!("{quote}{}{quote}", us.concat()));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn special_characters_are_never_produced() {
        let src = "class A { String s = \"a\\\"b\\\\c\\n1\"; char q = '\\''; }";
        for seed in 0..32 {
            if let Ok(Some(out)) = apply(src, seed) {
                for bad in ["\\u0022", "\\u005C", "\\u000A", "\\u0027"] {
                    assert!(!out.to_uppercase().contains(&bad.to_uppercase()), "{out}");
                }
            }
        }
    }
}
