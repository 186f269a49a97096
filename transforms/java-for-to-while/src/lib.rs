//! ## What it does
//! Turns a basic `for (init; cond; update) body` loop into a block holding the initialisation
//! and a `while` loop whose body runs the original body, then the update.
//!
//! ## Why it preserves semantics
//! The loop runs the same statements in the same order: init once, then cond, body, update.
//! The traps are `continue` and scope. A `continue` of this loop must still run the update:
//! the body is wrapped in a labelled block and each of its own `continue` statements becomes
//! `break label;`, which leaves the block and falls into the update (nested loops keep their
//! own `continue`). The initialisation's variables stay scoped to the new block, and the
//! original body stays a block of its own, so its locals never meet the update. A missing
//! condition becomes `true`, which javac treats exactly like an absent one for reachability
//! and definite assignment.
//!
//! ## Example
//! ```java
//! for (int i = 0; i < n; i++) {
//!     if (i % 2 == 0) continue;
//!     sum += i;
//! }
//! ```
//! becomes
//! ```java
//! {
//!     int i = 0;
//!     while (i < n) {
//!         step: {
//!             if (i % 2 == 0) break step;
//!             sum += i;
//!         }
//!         i++;
//!     }
//! }
//! ```
//!
//! ## Not applied when
//! - the loop is labelled (a labelled `continue` could target it from a nested loop);
//! - the body cannot complete normally and has no `continue` (the update would become an
//!   unreachable statement, which javac rejects);
//! - the program holds a text block (its lines must not be re-indented).

use sdk::java::{
    can_complete_normally, fresh_names, has_text_block, own_continues, shift_lines, JavaParsed,
};
use sdk::{Edits, Rng};

sdk::declare_java_transform! {
    name: "java-for-to-while",
    description: "Rewrites a Java for loop as a while loop, keeping continue and the update right",
    category: "control-flow",
    rewrite: rewrite,
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_text_block(p) {
        return edits;
    }
    let loops: Vec<_> = p
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter(|f| f.parent().is_none_or(|x| x.kind() != "labeled_statement"))
        .filter(|f| {
            f.child_by_field_name("body").is_some_and(|b| {
                !own_continues(b).is_empty() || can_complete_normally(b, &p.source)
            })
        })
        .collect();
    let mut fresh = fresh_names(p);
    let unit = p.indent_unit();
    for i in rng.sites(loops.len(), 0.5) {
        let f = loops[i];
        if edits.overlaps(&f.byte_range()) {
            continue;
        }
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        let ind = p.indent_of(f).to_string();
        let (in1, in2) = (format!("{ind}{unit}"), format!("{ind}{unit}{unit}"));
        let mut cursor = f.walk();
        let inits: Vec<_> = f.children_by_field_name("init", &mut cursor).collect();
        let mut cursor = f.walk();
        let updates: Vec<_> = f.children_by_field_name("update", &mut cursor).collect();
        let cond = f
            .child_by_field_name("condition")
            .map_or("true".to_string(), |c| p.text(c).to_string());
        let mut out = String::from("{\n");
        for init in &inits {
            let t = p.text(*init);
            out.push_str(&format!(
                "{in1}{t}{}\n",
                if t.ends_with(';') { "" } else { ";" }
            ));
        }
        out.push_str(&format!("{in1}while ({cond}) {{\n"));
        // The body, re-indented two levels deeper, with its own `continue`s as `break label`.
        let continues = own_continues(body);
        let label = (!continues.is_empty()).then(|| fresh.fresh(rng, Some("step")));
        let mut body_text = String::new();
        let mut last = body.start_byte();
        for c in &continues {
            body_text.push_str(&p.source[last..c.start_byte()]);
            body_text.push_str(&format!("break {};", label.as_deref().unwrap_or("step")));
            last = c.end_byte();
        }
        body_text.push_str(&p.source[last..body.end_byte()]);
        // Continuation lines move from the loop's indentation to two levels deeper.
        let shifted = shift_lines(&body_text, &ind, &in2);
        let shifted = if body.kind() == "block" {
            shifted
        } else {
            format!("{{\n{in2}{unit}{shifted}\n{in2}}}")
        };
        let head = label.map_or(String::new(), |l| format!("{l}: "));
        out.push_str(&format!("{in2}{head}{shifted}\n"));
        for u in &updates {
            out.push_str(&format!("{in2}{};\n", p.text(*u)));
        }
        out.push_str(&format!("{in1}}}\n{ind}}}"));
        edits.replace(f.byte_range(), out);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn labelled_loops_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &["class A { void f() { outer: for (int i = 0; i < 3; i++) { for (;;) { continue outer; } } } }"],
            8,
        );
    }
}
