//! ## What it does
//! Rewrites `while (cond) body` as `for (; cond; ) body`.
//!
//! ## Why it preserves semantics
//! A `for` with no initialisation and no update is defined by the Java Language Specification
//! as the `while` loop with the same condition and body: same evaluation order, same meaning of
//! `break` and `continue`, and the same reachability and definite-assignment rules (a constant
//! `true` condition stays a constant expression).
//!
//! ## Example
//! ```java
//! while (n > 0) { n /= 10; digits++; }
//! ```
//! becomes
//! ```java
//! for (; n > 0; ) { n /= 10; digits++; }
//! ```
//!
//! ## Not applied when
//! Never declined: every `while` loop has a `for` equivalent (a `do`-`while` is not a `while`).

use sdk::java::JavaParsed;
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-while-to-for",
    description: "Rewrites a Java while loop as a for loop with an empty header around the condition",
    category: "control-flow",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let loops = p.nodes_of_kind("while_statement");
    for i in rng.sites(loops.len(), 0.5) {
        let w = loops[i];
        let Some(cond) = w.child_by_field_name("condition") else {
            continue;
        };
        // `while` + the condition's parentheses → `for (; cond; )`.
        let inner = p.text(cond);
        let inner = inner
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(inner);
        edits.replace(
            w.start_byte()..cond.end_byte(),
            format!("for (; {}; )", inner.trim()),
        );
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);
}
