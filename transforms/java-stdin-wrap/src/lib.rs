//! ## What it does
//! Changes how the program's one `Scanner` reaches standard input: wraps `System.in` in a
//! buffered stream or a reader, or unwraps such a wrapper again.
//! `new Scanner(System.in)` ↔ `new Scanner(new java.io.BufferedInputStream(System.in))`,
//! `new Scanner(new java.io.InputStreamReader(System.in))` or
//! `new Scanner(new java.io.BufferedReader(new java.io.InputStreamReader(System.in)))`.
//!
//! ## Why it preserves semantics
//! A `Scanner` built on an `InputStream` decodes it with the default charset, exactly as an
//! `InputStreamReader` without a charset does, so all three sources give the scanner the same
//! characters; buffering below the scanner only changes how many bytes each read takes. That
//! can only be observed by a second reader of `System.in` (which would find different input
//! left) or by a scanner created again and again (each one swallows a buffer's worth): the
//! transform requires `System.in` to be named exactly once in the program, in a scanner created
//! once — directly in `main`'s body (outside any loop or lambda, with nothing calling `main`) or in
//! a static field's initialiser. The wrappers are written with their full names, so no import
//! is needed and none can clash.
//!
//! ## Example
//! ```java
//! Scanner in = new Scanner(System.in);
//! ```
//! becomes
//! ```java
//! Scanner in = new Scanner(new java.io.BufferedInputStream(System.in));
//! ```
//!
//! ## Not applied when
//! - `System.in` is named more than once (or never), `System` or `java` names something of the
//!   program's own;
//! - the scanner could be created more than once: inside a loop, a lambda or a method other than
//!   `main`, or `main` is called by the program;
//! - the scanner is given a charset or anything other than `System.in` or one of the wrappers
//!   above.

use sdk::java::JavaParsed;
use sdk::parse::named_children;
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-stdin-wrap",
    description: "Wraps or unwraps System.in under the program's one Scanner (buffered stream, reader)",
    category: "data-flow",
    rewrite: rewrite,
}

/// The sources a scanner may read `System.in` through (all equivalent, see the module docs).
const FORMS: &[&str] = &[
    "System.in",
    "new java.io.BufferedInputStream(System.in)",
    "new java.io.InputStreamReader(System.in)",
    "new java.io.BufferedReader(new java.io.InputStreamReader(System.in))",
];

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let Some((arg, current)) = site(p) else {
        return edits;
    };
    if rng.sites(1, 1.0).is_empty() {
        return edits;
    }
    let others: Vec<&str> = FORMS
        .iter()
        .copied()
        .filter(|f| *f != FORMS[current])
        .collect();
    // Unwrapping (back to the plain stream) is one choice among the others.
    if let Some(form) = rng.pick(&others) {
        edits.replace(arg.byte_range(), form.to_string());
    }
    edits
}

/// The scanner's argument and which of [`FORMS`] it is, when the program qualifies.
fn site(p: &JavaParsed) -> Option<(Node<'_>, usize)> {
    let words: Vec<&str> = p
        .source
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .collect();
    // `System.in` named once (a comment or string spelling it counts too: declined).
    let mentions = p
        .source
        .match_indices("System.in")
        .filter(|(i, m)| {
            !p.source[i + m.len()..]
                .starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
        })
        .count();
    if mentions != 1 {
        return None;
    }
    let declared = |name: &str| {
        p.nodes().into_iter().any(|n| {
            matches!(
                n.kind(),
                "variable_declarator"
                    | "formal_parameter"
                    | "class_declaration"
                    | "interface_declaration"
                    | "enum_declaration"
                    | "record_declaration"
                    | "method_declaration"
            ) && n
                .child_by_field_name("name")
                .is_some_and(|x| p.text(x) == name)
        })
    };
    if declared("System") || declared("java") {
        return None;
    }
    // `main` is never called by the program (only declared).
    let calls_main = p.nodes_of_kind("method_invocation").into_iter().any(|m| {
        m.child_by_field_name("name")
            .is_some_and(|n| p.text(n) == "main")
    });
    if calls_main || !words.contains(&"Scanner") {
        return None;
    }
    let scanner = p
        .nodes_of_kind("object_creation_expression")
        .into_iter()
        .find(|n| {
            n.child_by_field_name("type")
                .is_some_and(|t| matches!(p.text(t), "Scanner" | "java.util.Scanner"))
                && p.text(*n).contains("System.in")
        })?;
    let args = named_children(scanner.child_by_field_name("arguments")?);
    let [arg] = args.as_slice() else {
        return None;
    };
    let mut text: String = p.text(*arg).split_whitespace().collect();
    if !text.contains("java.io.") && text != "System.in" {
        // Unqualified wrappers are java.io's when the program imports nothing else that
        // could supply those names and declares none of them itself.
        if !io_names_are_jdk(p) || IO_TYPES.iter().any(|t| declared(t)) {
            return None;
        }
        for t in IO_TYPES {
            text = text.replace(&format!("new{t}("), &format!("newjava.io.{t}("));
        }
    }
    let current = FORMS.iter().position(|f| {
        let f: String = f.split_whitespace().collect();
        f == text
    })?;
    created_once(p, scanner).then_some((*arg, current))
}

/// The `java.io` types a scanner's source may be wrapped in.
const IO_TYPES: [&str; 3] = ["BufferedInputStream", "InputStreamReader", "BufferedReader"];

/// Whether every import that could supply an [`IO_TYPES`] name is the JDK's: on-demand imports
/// only of `java.*` packages, single-type imports of those names only from `java.io`.
fn io_names_are_jdk(p: &JavaParsed) -> bool {
    p.nodes_of_kind("import_declaration").into_iter().all(|d| {
        let t: String = p.text(d).split_whitespace().collect();
        let t = t.trim_start_matches("import").trim_end_matches(';');
        if t.starts_with("static") {
            return true;
        }
        if let Some(pkg) = t.strip_suffix(".*") {
            return pkg.starts_with("java.");
        }
        let simple = t.rsplit('.').next().unwrap_or("");
        !IO_TYPES.contains(&simple) || t == format!("java.io.{simple}")
    })
}

/// Whether `n` runs once: directly in `main`'s body (no loop, lambda or class body between) or
/// in a static field's initialiser.
fn created_once(p: &JavaParsed, n: Node<'_>) -> bool {
    let mut cur = n.parent();
    while let Some(a) = cur {
        match a.kind() {
            "for_statement"
            | "enhanced_for_statement"
            | "while_statement"
            | "do_statement"
            | "lambda_expression"
            | "class_body"
            | "switch_expression" => return false,
            "method_declaration" => {
                let is_main = a
                    .child_by_field_name("name")
                    .is_some_and(|x| p.text(x) == "main");
                let is_static = named_children(a)
                    .iter()
                    .any(|c| c.kind() == "modifiers" && p.text(*c).contains("static"));
                return is_main && is_static;
            }
            "field_declaration" => {
                return named_children(a)
                    .iter()
                    .any(|c| c.kind() == "modifiers" && p.text(*c).contains("static"));
            }
            "constructor_declaration" | "static_initializer" => return false,
            _ => {}
        }
        cur = a.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn second_readers_and_repeated_scanners_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Two readers of System.in.
                "import java.util.*; public class Main { public static void main(String[] a) throws Exception { Scanner s = new Scanner(System.in); int b = System.in.read(); } }",
                // A scanner per iteration.
                "import java.util.*; public class Main { public static void main(String[] a) { for (int i = 0; i < 2; i++) { Scanner s = new Scanner(System.in); } } }",
                // A scanner per call of a helper.
                "import java.util.*; public class Main { static int read() { return new Scanner(System.in).nextInt(); } public static void main(String[] a) { read(); } }",
                // main called again.
                "import java.util.*; public class Main { static int n = 0; public static void main(String[] a) { Scanner s = new Scanner(System.in); if (n++ < 1) main(a); } }",
                // A charset argument.
                "import java.util.*; public class Main { public static void main(String[] a) { Scanner s = new Scanner(System.in, \"UTF-8\"); } }",
                // A field called java would capture the qualified names.
                "import java.util.*; public class Main { static int java = 1; public static void main(String[] a) { Scanner s = new Scanner(System.in); } }",
                // No scanner at all.
                "import java.io.*; public class Main { public static void main(String[] a) throws IOException { BufferedReader r = new BufferedReader(new InputStreamReader(System.in)); } }",
            ],
            8,
        );
    }
}
