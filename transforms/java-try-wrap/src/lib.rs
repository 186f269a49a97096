//! ## What it does
//! Wraps the statements of a block from one statement to its end in
//! `try { … } catch (RuntimeException | Error e) { throw e; }` (or in `try { … } finally { }`).
//!
//! ## Why it preserves semantics
//! The wrapped statements run exactly as before. A `catch` that rethrows the very object it
//! caught changes nothing observable: the exception keeps its type, message and stack trace
//! (filled in when it was created), and `RuntimeException | Error` are unchecked, so javac's
//! exception checking is unchanged; an empty `finally` does nothing. Wrapping the block's whole
//! tail keeps every local declared there in scope for every statement that uses it. For javac's
//! flow rules, a `catch` ending in `throw` cannot complete normally, so a variable assigned in
//! the `try` is still definitely assigned after it, and a tail ending in `return` still leaves
//! no missing `return`.
//!
//! ## Example
//! ```java
//! int n = in.nextInt();
//! System.out.println(n * 2);
//! ```
//! becomes
//! ```java
//! try {
//!     int n = in.nextInt();
//!     System.out.println(n * 2);
//! } catch (RuntimeException | Error e) {
//!     throw e;
//! }
//! ```
//!
//! ## Not applied when
//! The block is a constructor body (where `this(…)`/`super(…)` must come first), a `switch`
//! group, or the program holds a text block; the tail starts after a statement that cannot
//! complete normally.

use sdk::java::{fresh_names, has_text_block, reachable_statements, shift_lines, JavaParsed};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-try-wrap",
    description: "Wraps the tail of a Java block in a try that rethrows unchanged (or an empty finally)",
    category: "control-flow",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_text_block(p) {
        return edits;
    }
    let mut sites = Vec::new();
    for block in p.nodes_of_kind("block") {
        let stmts = sdk::java::statements(block);
        for s in reachable_statements(block, &p.source) {
            sites.push((s, *stmts.last().unwrap_or(&s)));
        }
    }
    let mut fresh = fresh_names(p);
    let unit = p.indent_unit();
    if let Some(k) = rng.site(sites.len()) {
        let (first, last) = sites[k];
        let ind = p.indent_of(first).to_string();
        let inner = format!("{ind}{unit}");
        let body = shift_lines(&p.source[first.start_byte()..last.end_byte()], &ind, &inner);
        let text = if rng.chance(0.7) {
            let e = fresh.fresh(rng, Some("err"));
            format!("try {{\n{inner}{body}\n{ind}}} catch (RuntimeException | Error {e}) {{\n{inner}throw {e};\n{ind}}}")
        } else {
            format!("try {{\n{inner}{body}\n{ind}}} finally {{\n{ind}}}")
        };
        edits.replace(first.start_byte()..last.end_byte(), text);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);
}
