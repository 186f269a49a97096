//! ## What it does
//! Inserts code that compiles and never changes behaviour before a reachable statement of a
//! method body: an `if (false) { … }` block, a `for` loop that runs zero times, or an unused
//! local initialised with a literal — all with fresh names.
//!
//! ## Why it preserves semantics
//! The inserted code never runs (`if (false)`, a loop whose condition is false at once) or
//! only stores a literal in a fresh local nothing reads: it cannot throw, print, or assign
//! anything the program uses. It is written to pass javac's rules: javac's unreachable-code
//! check exempts `if (false)` bodies by design (conditional compilation), whereas a
//! `while (false)` body would be rejected, so none is made; code is only inserted before a
//! statement that is itself reachable (never after a `return`, `throw`, `break` or
//! `continue`), never into a constructor before `this(…)`/`super(…)`, and the names it
//! declares are new to the program, so no local is shadowed or redeclared.
//!
//! ## Example
//! ```java
//! int n = in.nextInt();
//! ```
//! becomes
//! ```java
//! if (false) { int probe = 0; System.out.println(probe); }
//! int n = in.nextInt();
//! ```
//!
//! ## Not applied when
//! The block is a constructor body or a `switch` group (where a declaration would leak into the
//! following groups), or the statement follows one that cannot complete normally.

use sdk::java::{fresh_names, reachable_statements, JavaParsed};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-dead-code",
    description: "Inserts Java code that compiles but never runs or never matters (if (false), empty loops, unused locals)",
    category: "structure",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for block in p.nodes_of_kind("block") {
        // Method, lambda and nested blocks; not constructor bodies (a different node kind).
        sites.extend(reachable_statements(block, &p.source));
    }
    let mut fresh = fresh_names(p);
    for i in rng.sites(sites.len(), 0.3) {
        let s = sites[i];
        let ind = p.indent_of(s).to_string();
        let a = fresh.fresh(rng, None);
        let code = match rng.below(4) {
            0 => format!("if (false) {{ int {a} = 0; System.out.println({a}); }}"),
            1 => format!("for (int {a} = 0; {a} < 0; {a}++) {{ }}"),
            2 => format!("long {a} = {}L;", rng.below(1000)),
            _ => {
                let b = fresh.fresh(rng, None);
                format!("boolean {a} = false;\n{ind}if ({a}) {{ String {b} = \"\"; System.out.print({b}); }}")
            }
        };
        edits.insert(s.start_byte(), format!("{code}\n{ind}"));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn never_after_a_jump_or_in_a_constructor() {
        for seed in 0..32 {
            let src = "class A { int v; A(int x) { this(x, 1); } A(int x, int y) { v = x + y; } int f() { return v; } }";
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(out.contains("{ this(x, 1); }"), "{out}");
                assert!(out.contains("A(int x, int y) { v = x + y; }"), "{out}");
                assert!(out.trim_end().ends_with("return v; } }"), "{out}");
            }
        }
    }
}
