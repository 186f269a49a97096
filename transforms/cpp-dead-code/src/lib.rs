//! ## What it does
//! Inserts a statement that never runs, or runs without effect, before a statement of a
//! function body: `if (0) { … }`, a loop of zero iterations, or a block holding an unused
//! local, all over fresh names. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! `if (0)` never runs its block, and a `for` whose condition is false at once runs no
//! iteration; their blocks declare and touch only fresh names, so nothing else can read or
//! write them. A block that declares an `int` and discards it writes nothing visible. Every
//! inserted declaration lives inside its own block, so no `goto` or `case` label can jump
//! past its initialisation, and the insertion point is always a statement of a block (never
//! a `case` label's body position, a declaration's initialiser or a directive).
//!
//! ## Example
//! ```cpp
//! int s = 0;
//! for (int x : v) s += x;
//! ```
//! becomes
//! ```cpp
//! int s = 0;
//! if (0) { int harbor = 0; harbor++; }
//! for (int x : v) s += x;
//! ```
//!
//! ## Not applied when
//! - the statement lies in code a preprocessor conditional guards, or in a class body;
//! - the block is a `switch` body (its statements sit under `case` labels).

use sdk::cpp::{fresh_names, in_conditional, statements, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-dead-code",
    description: "Inserts C++ statements that never run or have no effect, over fresh names",
    category: "structure",
    languages: "cpp c",
    rewrite: rewrite,
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let mut sites = Vec::new();
    for block in p.nodes_of_kind("compound_statement") {
        let in_switch = block
            .parent()
            .is_some_and(|x| x.kind() == "switch_statement");
        if in_switch || in_conditional(block) {
            continue;
        }
        sites.extend(statements(block));
    }
    let mut fresh = fresh_names(p).foreign();
    for i in rng.sites(sites.len(), 0.3) {
        let s = sites[i];
        let name = fresh.fresh(rng, None);
        let dead = match rng.below(3) {
            0 => format!("if (0) {{ int {name} = 0; {name}++; }}"),
            1 => format!("for (int {name} = 0; {name} < 0; {name}++) {{ }}"),
            _ => format!("{{ int {name} = 1; (void){name}; }}"),
        };
        let indent = p.indent_of(s).to_string();
        edits.insert(s.start_byte(), format!("{dead}\n{indent}"));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn switch_bodies_get_nothing_between_their_labels() {
        let src = "int main() { int x = 2, y = 0; switch (x) { case 1: y = 1; break; case 2: y = 5; break; } return y; }\n";
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert!(
                    out.contains("switch (x) { case 1: y = 1; break; case 2: y = 5; break; }"),
                    "seed {seed}:\n{out}"
                );
            }
        }
    }
}
