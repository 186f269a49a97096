//! ## What it does
//! Turns a C++ `for (init; cond; update) body` loop into a block holding the initialisation
//! and a `while` loop whose body runs the original body, then the update. It also rewrites C
//! programs.
//!
//! ## Why it preserves semantics
//! The loop runs the same expressions in the same order: init once, then cond, body, update.
//! The traps are `continue` and scope. A `continue` of this loop must still run the update:
//! each of the body's own `continue` statements becomes `goto label;`, and the label stands
//! after the body, just before the update (nested loops keep their own `continue`). The body
//! stays a block of its own, so no jump crosses the initialisation of a variable still in
//! scope at the label, and the body's locals never meet the update. The initialisation's
//! variables stay scoped to the new block. A missing condition becomes `1` (C has
//! no `true` without `<stdbool.h>`).
//!
//! ## Example
//! ```cpp
//! for (int i = 0; i < n; i++) {
//!     if (i % 2 == 0) continue;
//!     sum += i;
//! }
//! ```
//! becomes
//! ```cpp
//! {
//!     int i = 0;
//!     while (i < n) {
//!         {
//!             if (i % 2 == 0) goto step;
//!             sum += i;
//!         }
//!         step:;
//!         i++;
//!     }
//! }
//! ```
//!
//! ## Not applied when
//! - the loop's head uses a macro, or its body a macro that may expand to `continue`, or
//!   it lies in code a preprocessor conditional guards;
//! - the condition declares a variable (`for (; int x = f(); )`);
//! - the program holds a raw string or a backslash continuation (lines are re-indented).

use sdk::cpp::{
    fresh_names, has_continuation, has_raw_string, in_conditional, is_loop, shift_lines, CppParsed,
};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-for-to-while",
    description: "Rewrites a C++ for loop as a while loop, keeping continue and the update right",
    category: "control-flow",
    languages: "cpp c",
    rewrite: rewrite,
}

/// The `continue` statements that belong to the loop whose body is `body`.
fn own_continues(body: Node<'_>) -> Vec<Node<'_>> {
    fn walk<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
        match n.kind() {
            "continue_statement" => out.push(n),
            k if is_loop(k) => {}
            "lambda_expression" | "class_specifier" | "struct_specifier" => {}
            _ => {
                let mut c = n.walk();
                for k in n.named_children(&mut c) {
                    walk(k, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// The macros whose expansion may hold a `continue` (their definition says `continue`, or
/// names such a macro): in a loop body, that `continue` is one the tree does not show, which
/// `goto label;` would not replace, and it would skip the update.
fn continue_macros(p: &CppParsed) -> BTreeSet<String> {
    let defs: Vec<(String, Vec<String>)> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "preproc_def" | "preproc_function_def"))
        .filter_map(|n| {
            let name = p.text(n.child_by_field_name("name")?).to_string();
            let words = n.child_by_field_name("value").map_or(Vec::new(), |v| {
                p.text(v)
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map(str::to_string)
                    .collect()
            });
            Some((name, words))
        })
        .collect();
    let mut found: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = found.len();
        for (name, words) in &defs {
            if words.iter().any(|w| w == "continue" || found.contains(w)) {
                found.insert(name.clone());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_raw_string(p) || has_continuation(p) {
        return edits;
    }
    let hidden_continue = continue_macros(p);
    let loops: Vec<_> = p
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter(|f| !in_conditional(*f))
        .filter(|f| {
            // The head (up to the body) must hold no macro: `for (int i = 0; i < N; i++)`
            // with `#define N 10` is fine to move only as text the tree shows.
            let head_macro = ["initializer", "condition", "update"]
                .iter()
                .filter_map(|field| f.child_by_field_name(field))
                .any(|n| p.uses_macro(n));
            let declares = f
                .child_by_field_name("condition")
                .is_some_and(|c| c.kind() == "condition_declaration" || c.kind() == "declaration");
            let body_continues = f.child_by_field_name("body").is_some_and(|b| {
                descendants(b)
                    .iter()
                    .any(|n| n.kind() == "identifier" && hidden_continue.contains(p.text(*n)))
            });
            !head_macro && !declares && !body_continues && f.child_by_field_name("body").is_some()
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
        let cond = f
            .child_by_field_name("condition")
            .map_or("1".to_string(), |c| p.text(c).to_string());
        let mut out = String::from("{\n");
        if let Some(init) = f.child_by_field_name("initializer") {
            let t = p.text(init);
            out.push_str(&format!(
                "{in1}{t}{}\n",
                if t.ends_with(';') { "" } else { ";" }
            ));
        }
        out.push_str(&format!("{in1}while ({cond}) {{\n"));
        // The body, re-indented two levels deeper, with its own `continue`s as `goto label`.
        let continues = own_continues(body);
        let label = (!continues.is_empty()).then(|| fresh.fresh(rng, Some("step")));
        let mut body_text = String::new();
        let mut last = body.start_byte();
        for c in &continues {
            body_text.push_str(&p.source[last..c.start_byte()]);
            body_text.push_str(&format!("goto {};", label.as_deref().unwrap_or("step")));
            last = c.end_byte();
        }
        body_text.push_str(&p.source[last..body.end_byte()]);
        let shifted = shift_lines(&body_text, &ind, &in2);
        let shifted = if body.kind() == "compound_statement" {
            shifted
        } else {
            format!("{{\n{in2}{unit}{shifted}\n{in2}}}")
        };
        out.push_str(&format!("{in2}{shifted}\n"));
        if let Some(l) = &label {
            out.push_str(&format!("{in2}{l}:;\n"));
        }
        if let Some(u) = f.child_by_field_name("update") {
            out.push_str(&format!("{in2}{};\n", p.text(u)));
        }
        out.push_str(&format!("{in1}}}\n{ind}}}"));
        edits.replace(f.byte_range(), out);
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn macro_heads_and_guarded_loops_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#define N 3\nint main() { int s = 0; for (int i = 0; i < N; i++) s += i; return s; }\n",
                "int main() { int s = 0;\n#ifdef LOCAL\n for (int i = 0; i < 3; i++) s += i;\n#endif\n return s; }\n",
                "#define SKIP(v) if (v) continue\n#define SKIP_ONE(v) SKIP((v) == 1)\nint main() { int s = 0; for (int i = 0; i < 3; i++) { SKIP_ONE(i); s += i; } return s; }\n",
            ],
            8,
        );
    }
}
