//! ## What it does
//! Swaps iostream statements for C stdio ones and back: `cout << a << " " << b << "\n";`
//! becomes `printf("%d %lld\n", a, b);`, `cin >> n >> x;` becomes `scanf("%d%lf", &n, &x);`,
//! and the other way round. Where the program turns synchronisation off
//! (`ios::sync_with_stdio(false)`), the call is given `true` so that the two libraries share
//! one buffer.
//!
//! ## Why it preserves semantics
//! Each value is printed or read with the conversion of its exact type: a name only when every
//! declaration in the program gives it one plain arithmetic type, an expression only when its
//! type follows from such names and unsuffixed decimal literals. For a floating value, `cout`'s
//! default format is by definition `printf`'s `%g` (precision 6), and `%lf`/`%f` read what `>>`
//! reads; `>>` into a `char` skips white space like `" %c"`. Text is copied into the format
//! with `%` doubled. With the streams synchronised (the default), `cout` and `printf` write
//! through the same C buffer in program order, and `cin` and `scanf` read from the same one;
//! turning synchronisation back on only costs speed. `endl` flushes, so it is written as `\n`
//! only where a flush cannot be observed (no abnormal exit, no threads).
//!
//! ## Example
//! ```cpp
//! cin >> n >> k;
//! cout << n * k << " " << best << endl;
//! ```
//! becomes
//! ```cpp
//! scanf("%d %d", &n, &k);
//! printf("%d %g\n", n * k, best);
//! ```
//!
//! ## Not applied when
//! - the program sets any stream format state (`fixed`, `setprecision`, `setw`, `hex`,
//!   `boolalpha`, `.precision(…)`, …), since `printf` would not follow it;
//! - a value's type is not certain (array elements, strings, `bool`, calls, mixed types), or a
//!   string literal holds escapes other than `\n`, `\t`, `\\`, `\"` and `\'`;
//! - the program already mixes C stdio and iostreams with synchronisation off (its output order
//!   depends on buffering), or calls `sync_with_stdio` in a way that cannot be set to `true`;
//! - the statement's value is used (`while (cin >> x)`, `if (scanf(…) == 1)`), it reads a
//!   `char` with a `%c` that does not skip white space, or it prints a `char` with `%c` from an
//!   `int`;
//! - the statement uses a macro or lies in code a preprocessor conditional guards.
//!
//! Reading differs from `>>` only on malformed input (a failed `>>` stores 0, `scanf` leaves
//! the variable), which a task's tests do not give.

use sdk::cpp::{arithmetic_names, in_conditional, mentions_any, CppParsed};
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-stdio",
    description: "Swaps C++ cout/cin statements for printf/scanf and back, with each value's exact conversion",
    category: "expression",
    rewrite: rewrite,
}

/// Manipulators and members that set a stream's format state, which `printf` would ignore.
/// `setprecision` and the other calls are checked by the name of the function called.
const FORMAT_STATE: &[&str] = &[
    "fixed",
    "scientific",
    "hexfloat",
    "defaultfloat",
    "setprecision",
    "precision",
    "setw",
    "width",
    "setfill",
    "fill",
    "setbase",
    "setiosflags",
    "resetiosflags",
    "boolalpha",
    "noboolalpha",
    "hex",
    "oct",
    "dec",
    "showpos",
    "noshowpos",
    "showpoint",
    "noshowpoint",
    "showbase",
    "noshowbase",
    "uppercase",
    "nouppercase",
    "left",
    "right",
    "internal",
    "flags",
    "setf",
    "unsetf",
    "imbue",
    "unitbuf",
    "nounitbuf",
];

/// Whether the program sets a stream's format state: a manipulator in a `<<` chain (a name or
/// a call such as `setprecision(3)`) or a member such as `cout.precision(3)`.
fn sets_format_state(p: &CppParsed) -> bool {
    let listed = |text: &str| FORMAT_STATE.contains(&text.strip_prefix("std::").unwrap_or(text));
    p.nodes().into_iter().any(|n| match n.kind() {
        "binary_expression" => {
            let Some(right) = n.child_by_field_name("right") else {
                return false;
            };
            let named = match right.kind() {
                "call_expression" => right.child_by_field_name("function"),
                _ => Some(right),
            };
            n.child_by_field_name("operator")
                .is_some_and(|op| p.text(op) == "<<")
                && named.is_some_and(|f| listed(p.text(f)))
        }
        "call_expression" => n
            .child_by_field_name("function")
            .filter(|f| f.kind() == "field_expression")
            .and_then(|f| f.child_by_field_name("field"))
            .is_some_and(|field| listed(p.text(field))),
        _ => false,
    })
}

/// Words whose presence makes the flush of `endl` observable.
const FLUSH_OBSERVERS: &[&str] = &[
    "abort",
    "_Exit",
    "_exit",
    "quick_exit",
    "raise",
    "signal",
    "fork",
    "thread",
    "async",
    "assert",
    "write",
];

/// C stdio functions that read or write the standard streams.
const C_STDIO: &[&str] = &[
    "printf", "scanf", "puts", "putchar", "getchar", "gets", "fgets", "fputs", "fprintf", "fscanf",
    "putc", "getc", "fwrite", "fread", "fflush",
];

/// The `printf` and `scanf` conversions of a plain arithmetic type, by its text (x86-64 Linux
/// sizes for the fixed-width names).
fn conversions(ty: &str) -> Option<(&'static str, &'static str)> {
    Some(match ty {
        "int" | "signed" | "signed int" | "int32_t" => ("%d", "%d"),
        // Promoted to `int` when printed, and printed by `<<` as a number.
        "short" | "short int" | "signed short" | "int16_t" => ("%d", "%hd"),
        "long" | "long int" | "signed long" | "int64_t" | "ssize_t" => ("%ld", "%ld"),
        "long long" | "long long int" | "signed long long" => ("%lld", "%lld"),
        "unsigned" | "unsigned int" | "uint32_t" => ("%u", "%u"),
        "unsigned long" | "unsigned long int" | "uint64_t" => ("%lu", "%lu"),
        "unsigned long long" | "unsigned long long int" => ("%llu", "%llu"),
        "size_t" => ("%zu", "%zu"),
        "char" => ("%c", " %c"),
        "double" => ("%g", "%lf"),
        "float" => ("%g", "%f"),
        _ => return None,
    })
}

/// Whether arithmetic on values of `ty` keeps `ty` (no promotion to `int` first).
fn keeps_type(ty: &str) -> bool {
    conversions(ty).is_some()
        && !matches!(ty, "char" | "float")
        && !ty.starts_with("short")
        && !ty.contains(" short")
        && ty != "int16_t"
}

/// What the rewrites of one program share: the names' types and the spelling to use.
struct Context<'p> {
    p: &'p CppParsed,
    names: BTreeMap<String, String>,
    /// Whether `endl` may be written as `\n`.
    endl_free: bool,
    /// `cout`/`cin` or `std::cout`/`std::cin`.
    std_prefix: &'static str,
}

impl Context<'_> {
    /// The certain type of an expression printed or computed, by the rules in the crate docs.
    fn type_of(&self, n: Node<'_>) -> Option<String> {
        let text = self.p.text(n);
        match n.kind() {
            "identifier" => self.names.get(text).cloned(),
            "number_literal" => {
                let int = text.chars().all(|c| c.is_ascii_digit())
                    && (text == "0" || !text.starts_with('0'))
                    && text.parse::<i32>().is_ok();
                let float = text.chars().all(|c| c.is_ascii_digit() || c == '.')
                    && text.matches('.').count() == 1
                    && text.len() > 1;
                if int {
                    Some("int".into())
                } else if float {
                    Some("double".into())
                } else {
                    None
                }
            }
            "parenthesized_expression" => self.type_of(n.named_child(0)?),
            "unary_expression" => {
                let op = n.child_by_field_name("operator")?;
                let ty = self.type_of(n.child_by_field_name("argument")?)?;
                (matches!(self.p.text(op), "-" | "+") && keeps_type(&ty)).then_some(ty)
            }
            "binary_expression" => {
                let op = self.p.text(n.child_by_field_name("operator")?);
                if !matches!(op, "+" | "-" | "*" | "/" | "%") {
                    return None;
                }
                let left = n.child_by_field_name("left")?;
                let right = n.child_by_field_name("right")?;
                let (l, r) = (self.type_of(left)?, self.type_of(right)?);
                if !keeps_type(&l) || !keeps_type(&r) {
                    return None;
                }
                let literal = |x: Node<'_>| x.kind() == "number_literal";
                if l == r {
                    Some(l)
                } else if literal(left) && l == "int" {
                    // An `int` constant converts to the other operand's wider, unsigned or
                    // floating type.
                    Some(r)
                } else if literal(right) && r == "int" {
                    Some(l)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// `cout << a << b;` → `printf("…", a, b);` (or `puts`), or `None` where it is not certain.
    fn print_of(&self, statement: Node<'_>, rng_puts: bool) -> Option<String> {
        let items = chain(self.p, statement, "<<", "cout")?;
        let mut format = String::new();
        let mut args: Vec<&str> = Vec::new();
        for item in items {
            let text = self.p.text(item);
            match item.kind() {
                "string_literal" => {
                    format.push_str(&literal_body(self.p, item)?.replace('%', "%%"))
                }
                "char_literal" => format.push_str(&char_body(text)?.replace('%', "%%")),
                "identifier" | "qualified_identifier" if matches!(text, "endl" | "std::endl") => {
                    if !self.endl_free {
                        return None;
                    }
                    format.push_str("\\n");
                }
                _ => {
                    let ty = self.type_of(item)?;
                    let (conversion, _) = conversions(&ty)?;
                    // A `char` is printed as a character only when it is a `char` name.
                    if conversion == "%c" && item.kind() != "identifier" {
                        return None;
                    }
                    format.push_str(conversion);
                    args.push(text);
                }
            }
        }
        if args.is_empty() && rng_puts {
            if let Some(line) = format.strip_suffix("\\n") {
                return Some(format!("puts(\"{}\");", line.replace("%%", "%")));
            }
        }
        let mut call = format!("printf(\"{format}\"");
        for a in args {
            call.push_str(", ");
            call.push_str(a);
        }
        call.push_str(");");
        Some(call)
    }

    /// `cin >> a >> b;` → `scanf("%d%d", &a, &b);`, or `None`.
    fn scan_of(&self, statement: Node<'_>, spaced: bool) -> Option<String> {
        let items = chain(self.p, statement, ">>", "cin")?;
        let mut format = String::new();
        let mut args = Vec::new();
        for item in items {
            if item.kind() != "identifier" {
                return None;
            }
            let ty = self.names.get(self.p.text(item))?;
            let spec = conversions(ty)?.1;
            // `" %c"` brings its own space; the others skip white space by themselves.
            if spaced && !format.is_empty() && !spec.starts_with(' ') {
                format.push(' ');
            }
            format.push_str(spec);
            args.push(format!("&{}", self.p.text(item)));
        }
        Some(format!("scanf(\"{format}\", {});", args.join(", ")))
    }

    /// `printf("…", a, b);` or `puts("…");` → `cout << …;`, or `None`.
    fn cout_of(&self, statement: Node<'_>) -> Option<String> {
        let (name, args) = call_statement(self.p, statement)?;
        let first = *args.first()?;
        let body = literal_body(self.p, first)?;
        let mut items: Vec<String> = Vec::new();
        let quoted = |s: &str| format!("\"{s}\"");
        if name == "puts" {
            if args.len() != 1 {
                return None;
            }
            items.push(quoted(&format!("{body}\\n")));
        } else if name == "printf" {
            let mut rest = args.get(1..)?.iter();
            let mut text = String::new();
            let mut chars = body.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if c != '%' {
                    text.push(c);
                    continue;
                }
                let spec_len = [
                    "%%", "%lld", "%llu", "%ld", "%lu", "%zu", "%d", "%i", "%u", "%c", "%g", "%s",
                ]
                .into_iter()
                .find(|s| body.get(i..i + s.len()) == Some(s))?
                .len();
                for _ in 1..spec_len {
                    chars.next();
                }
                let spec = body.get(i..i + spec_len)?;
                if spec == "%%" {
                    text.push('%');
                    continue;
                }
                if !text.is_empty() {
                    items.push(quoted(&std::mem::take(&mut text)));
                }
                let arg = *rest.next()?;
                let arg_text = self.p.text(arg);
                match spec {
                    "%s" if arg.kind() == "string_literal" => {
                        items.push(quoted(&literal_body(self.p, arg)?));
                    }
                    "%c" if arg.kind() == "char_literal" => {
                        char_body(arg_text)?;
                        items.push(arg_text.to_string());
                    }
                    "%c" if arg.kind() == "identifier"
                        && self.names.get(arg_text).map(String::as_str) == Some("char") =>
                    {
                        items.push(arg_text.to_string());
                    }
                    "%s" | "%c" => return None,
                    _ => {
                        let ty = self.type_of(arg)?;
                        let spec = if spec == "%i" { "%d" } else { spec };
                        if conversions(&ty)?.0 != spec {
                            return None;
                        }
                        // Every operator `type_of` accepts binds tighter than `<<`.
                        items.push(arg_text.to_string());
                    }
                }
            }
            if rest.next().is_some() {
                return None;
            }
            if !text.is_empty() {
                items.push(quoted(&text));
            }
        } else {
            return None;
        }
        if items.is_empty() {
            return None;
        }
        Some(format!(
            "{}cout << {};",
            self.std_prefix,
            items.join(" << ")
        ))
    }

    /// `scanf("%d %d", &a, &b);` → `cin >> a >> b;`, or `None`.
    fn cin_of(&self, statement: Node<'_>) -> Option<String> {
        let (name, args) = call_statement(self.p, statement)?;
        if name != "scanf" {
            return None;
        }
        let body = literal_body(self.p, *args.first()?)?;
        let mut specs = Vec::new();
        let mut rest = body.as_str();
        loop {
            let trimmed = rest.trim_start_matches(' ');
            let spaced = trimmed.len() != rest.len();
            if trimmed.is_empty() {
                break;
            }
            let spec = [
                "%lld", "%llu", "%ld", "%lu", "%lf", "%hd", "%zu", "%d", "%u", "%f", "%c",
            ]
            .into_iter()
            .find(|s| trimmed.starts_with(s))?;
            // Only a `%c` after white space skips it, as `>>` does.
            if spec == "%c" && !spaced {
                return None;
            }
            specs.push(if spec == "%c" { " %c" } else { spec });
            rest = &trimmed[spec.len()..];
        }
        let targets = args.get(1..)?;
        if targets.len() != specs.len() || specs.is_empty() {
            return None;
        }
        let mut names = Vec::new();
        for (target, spec) in targets.iter().zip(&specs) {
            let text = self.p.text(*target).strip_prefix('&')?.trim();
            let ty = self.names.get(text)?;
            if conversions(ty)?.1 != *spec {
                return None;
            }
            names.push(text);
        }
        Some(format!("{}cin >> {};", self.std_prefix, names.join(" >> ")))
    }
}

/// The operands of `stream op a op b;` as an expression statement, when the stream is `cout`
/// (or `cin`), plain or `std::`-qualified.
fn chain<'t>(p: &CppParsed, statement: Node<'t>, op: &str, stream: &str) -> Option<Vec<Node<'t>>> {
    let mut items = Vec::new();
    let mut n = statement.named_child(0)?;
    while n.kind() == "binary_expression" {
        if p.text(n.child_by_field_name("operator")?) != op {
            return None;
        }
        items.push(n.child_by_field_name("right")?);
        n = n.child_by_field_name("left")?;
    }
    let base = p.text(n);
    if items.is_empty() || (base != stream && base.strip_prefix("std::") != Some(stream)) {
        return None;
    }
    items.reverse();
    Some(items)
}

/// `f(a, b);` as an expression statement, `f` a plain or `std::` name → (`f`, arguments).
fn call_statement<'t>(p: &CppParsed, statement: Node<'t>) -> Option<(&'static str, Vec<Node<'t>>)> {
    let call = statement.named_child(0)?;
    if call.kind() != "call_expression" {
        return None;
    }
    let f = p.text(call.child_by_field_name("function")?);
    let name = ["printf", "puts", "scanf"]
        .into_iter()
        .find(|n| f == *n || f.strip_prefix("std::") == Some(n))?;
    let list = call.child_by_field_name("arguments")?;
    let mut c = list.walk();
    let args: Vec<Node<'t>> = list.named_children(&mut c).collect();
    // A comment among the arguments would be lost.
    if args.iter().any(|a| a.kind() == "comment") {
        return None;
    }
    Some((name, args))
}

/// The text between the quotes of a plain string literal whose escapes are only `\n`, `\t`,
/// `\\`, `\"` and `\'` (so its pieces can be cut and joined anywhere without merging escapes).
fn literal_body(p: &CppParsed, n: Node<'_>) -> Option<String> {
    if n.kind() != "string_literal" {
        return None;
    }
    let body = p.text(n).strip_prefix('"')?.strip_suffix('"')?;
    simple_escapes(body).then(|| body.to_string())
}

/// The text of a character literal as it would be written inside a string literal.
fn char_body(text: &str) -> Option<String> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    match inner {
        "\"" => Some("\\\"".into()),
        "\\'" => Some("'".into()),
        _ if inner.chars().count() == 1 && inner != "\\" => Some(inner.to_string()),
        _ if inner.len() == 2 && simple_escapes(inner) => Some(inner.to_string()),
        _ => None,
    }
}

fn simple_escapes(body: &str) -> bool {
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && !matches!(chars.next(), Some('n' | 't' | '\\' | '"' | '\'')) {
            return false;
        }
        if !(c == '\\' || c == ' ' || c.is_ascii_graphic()) {
            return false;
        }
    }
    true
}

/// How `sync_with_stdio` is called: `Ok(edits)` that turn every call's argument into `true`
/// (empty when there is no call), or `Err(())` when a call cannot be rewritten.
fn resync(p: &CppParsed) -> Result<Vec<std::ops::Range<usize>>, ()> {
    let mut ranges = Vec::new();
    for call in p.nodes_of_kind("call_expression") {
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        if !p.text(f).ends_with("sync_with_stdio") {
            continue;
        }
        let list = call.child_by_field_name("arguments").ok_or(())?;
        let mut c = list.walk();
        let args: Vec<Node<'_>> = list.named_children(&mut c).collect();
        match args.as_slice() {
            [a] if matches!(p.text(*a), "false" | "0" | "true" | "1") && !p.uses_macro(call) => {
                if !matches!(p.text(*a), "true" | "1") {
                    ranges.push(a.byte_range());
                }
            }
            _ => return Err(()),
        }
    }
    // A mention that is not a call we saw (a macro's body, a pointer to it) cannot be fixed.
    let mentions = p.source.matches("sync_with_stdio").count();
    let calls = p
        .nodes_of_kind("call_expression")
        .into_iter()
        .filter(|c| {
            c.child_by_field_name("function")
                .is_some_and(|f| p.text(f).ends_with("sync_with_stdio"))
        })
        .count();
    if mentions != calls {
        return Err(());
    }
    Ok(ranges)
}

/// Where `#include <cstdio>` or `<iostream>` goes: after the last top-level `#include`.
fn include_point(p: &CppParsed) -> usize {
    let root = p.root();
    let mut c = root.walk();
    root.named_children(&mut c)
        .filter(|n| n.kind() == "preproc_include")
        .map(|n| n.end_byte())
        .last()
        .unwrap_or(0)
}

/// Whether the program includes one of `headers` (or `bits/stdc++.h`).
fn includes(p: &CppParsed, headers: &[&str]) -> bool {
    p.nodes_of_kind("preproc_include").into_iter().any(|n| {
        n.child_by_field_name("path").is_some_and(|path| {
            let t = p
                .text(path)
                .trim_matches(|c| c == '<' || c == '>' || c == '"');
            t == "bits/stdc++.h" || headers.contains(&t)
        })
    })
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let Ok(resync_ranges) = resync(p) else {
        return edits;
    };
    let uses_c = mentions_any(p, C_STDIO);
    let uses_streams = mentions_any(p, &["cin", "cout"]);
    // Synchronisation off with both libraries in use: the order is the buffers' business.
    if !resync_ranges.is_empty() && uses_c && uses_streams {
        return edits;
    }
    if sets_format_state(p) {
        return edits;
    }
    let using_std = p.nodes_of_kind("using_declaration").into_iter().any(|u| {
        u.parent()
            .is_some_and(|parent| parent.kind() == "translation_unit")
            && p.text(u).split_whitespace().collect::<String>() == "usingnamespacestd;"
    });
    let cx = Context {
        p,
        names: arithmetic_names(p),
        endl_free: !mentions_any(p, FLUSH_OBSERVERS),
        std_prefix: if using_std { "" } else { "std::" },
    };
    let puts = rng.chance(0.5);
    let spaced = rng.chance(0.5);
    // (statement range, replacement, whether it now needs <cstdio> rather than <iostream>)
    let mut sites: Vec<(std::ops::Range<usize>, String, bool)> = Vec::new();
    for s in p.nodes_of_kind("expression_statement") {
        if in_conditional(s) || p.uses_macro(s) || sdk::cpp::contains_kind(s, &["comment"]) {
            continue;
        }
        let to_c = cx.print_of(s, puts).or_else(|| cx.scan_of(s, spaced));
        let site = match to_c {
            Some(c) => Some((c, true)),
            None => cx
                .cout_of(s)
                .or_else(|| cx.cin_of(s))
                .map(|cpp| (cpp, false)),
        };
        if let Some((text, to_stdio)) = site {
            sites.push((s.byte_range(), text, to_stdio));
        }
    }
    let chosen = rng.sites(sites.len(), 0.5);
    if chosen.is_empty() {
        return edits;
    }
    let mut need_cstdio = false;
    let mut need_iostream = false;
    for i in chosen {
        let (range, text, to_stdio) = &sites[i];
        edits.replace(range.clone(), text.clone());
        need_cstdio |= *to_stdio;
        need_iostream |= !*to_stdio;
    }
    for r in resync_ranges {
        edits.replace(r, "true");
    }
    let mut headers = String::new();
    if need_cstdio && !includes(p, &["cstdio", "stdio.h"]) {
        headers.push_str("\n#include <cstdio>");
    }
    if need_iostream && !includes(p, &["iostream"]) {
        headers.push_str("\n#include <iostream>");
    }
    if !headers.is_empty() {
        let at = include_point(p);
        if at == 0 {
            edits.insert(0, format!("{}\n", headers.trim_start()));
        } else {
            edits.insert(at, headers);
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn uncertain_statements_and_programs_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Format state set somewhere.
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { double x = 1.5; cout << fixed << setprecision(3) << x << \"\\n\"; cout << x << \"\\n\"; }\n",
                // Mixed libraries with synchronisation off.
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { ios::sync_with_stdio(false); int a = 1; cout << a << \"\\n\"; printf(\"%d\\n\", a); }\n",
                // Types not certain: an array element, a string, a bool, a call.
                "#include <bits/stdc++.h>\nusing namespace std;\nint f() { return 1; }\nint main() { int a[3] = {1, 2, 3}; string s = \"x\"; bool b = true; cout << a[1] << s << b << f() << \"\\n\"; }\n",
                // The value of the read is used.
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { int x; long long s = 0; while (cin >> x) s += x; if (scanf(\"%d\", &x) == 1) s++; }\n",
                // A %c that does not skip white space, a mismatched conversion.
                "#include <cstdio>\nint main() { char c; int a; long long b = 0; scanf(\"%c\", &c); scanf(\"%d\", &b); printf(\"%d\\n\", b); }\n",
                // endl where a flush is observable.
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { int a = 1; cout << a << endl; abort(); }\n",
                // A hex escape that joining could merge.
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { cout << \"\\x41\" << \"1\\n\"; }\n",
            ],
            8,
        );
    }
}
