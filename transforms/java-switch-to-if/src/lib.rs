//! ## What it does
//! Rewrites a classic `switch` statement (`case …:` groups, each ending in `break`, `return`,
//! `throw` or `continue`) as an `if`/`else if` chain, `default` becoming the final `else`.
//!
//! ## Why it preserves semantics
//! The selector is evaluated once: a local variable is read directly, anything else is first
//! stored in a fresh `final var`. Labels compare with `==` (integers, characters) or with
//! `selector.equals("…")` for strings, so a `null` string selector still throws
//! `NullPointerException` on the first comparison, as `switch` does, and a boxed selector
//! unboxes (and throws on `null`) as `switch` does. Only groups that never fall through are
//! rewritten, and the group-ending `break` is dropped; a `break` anywhere else in a group would
//! leave the switch, so such switches are declined (a `break` inside a nested loop or switch is
//! theirs and stays). Locals declared at the top of one group are only in scope in later groups
//! of a switch: a switch that uses them there is declined. Definite assignment after the chain
//! matches the switch: with a `default`, a variable assigned in every group is assigned after.
//!
//! ## Example
//! ```java
//! switch (op) {
//!     case '+': r = a + b; break;
//!     case '-': r = a - b; break;
//!     default: r = 0;
//! }
//! ```
//! becomes
//! ```java
//! if (op == '+') {
//!     r = a + b;
//! } else if (op == '-') {
//!     r = a - b;
//! } else {
//!     r = 0;
//! }
//! ```
//!
//! ## Not applied when
//! - a group falls through into the next, or `default` is not in the last group;
//! - labels are not literals (enum constants, named constants, patterns), or the switch uses
//!   `->` rules or is an expression;
//! - a group holds a `break` other than its last statement (outside nested loops/switches), or a
//!   later group uses a local declared at the top level of an earlier one;
//! - the program holds a text block.

use sdk::java::{
    can_complete_normally, fresh_names, has_text_block, shift_lines, statements, JavaParsed,
};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-switch-to-if",
    description: "Rewrites a Java switch statement without fall-through as an if/else-if chain",
    category: "control-flow",
    rewrite: rewrite,
}

struct Group<'t> {
    labels: Vec<Node<'t>>,
    default: bool,
    body: Vec<Node<'t>>,
}

fn literal(kind: &str) -> bool {
    matches!(
        kind,
        "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal"
            | "character_literal"
            | "string_literal"
    )
}

/// The groups of a switch block, empty groups merged into the next; `None` when the switch is
/// not a plain statement switch this transform handles.
fn groups<'t>(p: &JavaParsed, block: Node<'t>) -> Option<Vec<Group<'t>>> {
    let mut out: Vec<Group<'t>> = Vec::new();
    let mut pending: Vec<Node<'t>> = Vec::new();
    let mut pending_default = false;
    for g in named_children(block) {
        if g.kind() != "switch_block_statement_group" {
            return None;
        }
        for label in named_children(g)
            .into_iter()
            .filter(|c| c.kind() == "switch_label")
        {
            let values = named_children(label);
            if values.is_empty() {
                if p.text(label).trim_start().starts_with("default") {
                    pending_default = true;
                } else {
                    return None;
                }
            }
            for v in values {
                if !literal(v.kind()) {
                    return None;
                }
                pending.push(v);
            }
        }
        let body = statements(g);
        if named_children(g)
            .iter()
            .any(|c| c.kind() != "switch_label" && !sdk::java::is_statement(c.kind()))
        {
            return None;
        }
        if !body.is_empty() {
            out.push(Group {
                labels: std::mem::take(&mut pending),
                default: std::mem::replace(&mut pending_default, false),
                body,
            });
        }
    }
    if !pending.is_empty() || pending_default {
        return None;
    }
    Some(out)
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if has_text_block(p) {
        return edits;
    }
    let mut fresh = fresh_names(p);
    let unit = p.indent_unit();
    let switches: Vec<_> = p
        .nodes_of_kind("switch_expression")
        .into_iter()
        .filter(|s| s.parent().is_some_and(|b| b.kind() == "block"))
        .collect();
    let mut sites = Vec::new();
    'each: for s in switches {
        let (Some(cond), Some(block)) = (
            s.child_by_field_name("condition"),
            s.child_by_field_name("body"),
        ) else {
            continue;
        };
        let Some(gs) = groups(p, block) else { continue };
        if gs.is_empty() || gs.iter().all(|g| g.labels.is_empty()) {
            continue;
        }
        let n = gs.len();
        let mut declared: Vec<&str> = Vec::new();
        for (i, g) in gs.iter().enumerate() {
            if g.default && i != n - 1 {
                continue 'each;
            }
            let last = g.body[g.body.len() - 1];
            let ends_in_break = last.kind() == "break_statement" && named_children(last).is_empty();
            if i != n - 1 && !ends_in_break && can_complete_normally(last, &p.source) {
                continue 'each; // falls through
            }
            let kept = if ends_in_break {
                &g.body[..g.body.len() - 1]
            } else {
                &g.body[..]
            };
            for st in kept {
                if st.kind() == "break_statement" && named_children(*st).is_empty() {
                    continue 'each;
                }
                if jumps_out_of_switch(*st) {
                    continue 'each;
                }
                let uses_earlier = descendants(*st)
                    .iter()
                    .any(|d| d.kind() == "identifier" && declared.contains(&p.text(*d)));
                if uses_earlier {
                    continue 'each;
                }
            }
            for st in &g.body {
                if st.kind() == "local_variable_declaration" {
                    for d in named_children(*st) {
                        if let Some(name) = d.child_by_field_name("name") {
                            declared.push(p.text(name));
                        }
                    }
                }
            }
        }
        sites.push((s, cond, gs));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (s, cond, gs) = &sites[i];
        let ind = p.indent_of(*s).to_string();
        let inner = p.text(cond.named_child(0).unwrap_or(*cond));
        let sel_node = cond.named_child(0).unwrap_or(*cond);
        let (prefix, sel, wrap) = if sel_node.kind() == "identifier" {
            (String::new(), inner.to_string(), false)
        } else {
            let t = fresh.fresh(rng, Some("key"));
            (format!("final var {t} = {inner};\n{ind}{unit}"), t, true)
        };
        let body_ind = if wrap {
            format!("{ind}{unit}")
        } else {
            ind.clone()
        };
        let mut out = String::new();
        if wrap {
            out.push_str("{\n");
            out.push_str(&format!("{ind}{unit}"));
        }
        out.push_str(&prefix);
        let mut first = true;
        for g in gs {
            let test = g
                .labels
                .iter()
                .map(|l| {
                    if l.kind() == "string_literal" {
                        format!("{sel}.equals({})", p.text(*l))
                    } else {
                        format!("{sel} == {}", p.text(*l))
                    }
                })
                .collect::<Vec<_>>()
                .join(" || ");
            let head = match (first, g.default) {
                (true, _) => format!("if ({test}) {{\n"),
                (false, false) => format!(" else if ({test}) {{\n"),
                (false, true) if g.labels.is_empty() => " else {\n".to_string(),
                // `default` sharing a group with cases: the group runs for them and for
                // everything else.
                (false, true) => " else {\n".to_string(),
            };
            if first && g.default {
                // A `default` in the first (and only) group: it runs whatever the selector is,
                // but the selector must still be evaluated (and unboxed) as before.
                out.push_str(&format!("if ({test} || true) {{\n"));
            } else {
                out.push_str(&head);
            }
            first = false;
            let last = g.body[g.body.len() - 1];
            let ends_in_break = last.kind() == "break_statement" && named_children(last).is_empty();
            let kept = if ends_in_break {
                &g.body[..g.body.len() - 1]
            } else {
                &g.body[..]
            };
            let from = p.indent_of(g.body[0]).to_string();
            for st in kept {
                let moved = shift_lines(p.text(*st), &from, &format!("{body_ind}{unit}"));
                out.push_str(&format!("{body_ind}{unit}{moved}\n"));
            }
            out.push_str(&format!("{body_ind}}}"));
        }
        if wrap {
            out.push_str(&format!("\n{ind}}}"));
        }
        edits.replace(s.byte_range(), out);
    }
    edits
}

/// Whether `st` holds an unlabelled `break` that would leave the switch it sits in (one inside
/// a nested loop or switch is theirs).
fn jumps_out_of_switch(st: Node<'_>) -> bool {
    descendants(st).into_iter().any(|d| {
        if d.kind() != "break_statement" || !named_children(d).is_empty() {
            return false;
        }
        let mut cur = Some(d);
        while let Some(c) = cur {
            if sdk::java::is_loop(c.kind()) || c.kind() == "switch_expression" {
                return false;
            }
            if c.id() == st.id() {
                break;
            }
            cur = c.parent();
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn fallthrough_and_inner_breaks_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "class A { void f(int k) { switch (k) { case 1: k++; case 2: k--; break; default: k = 0; } } }",
                "class A { void f(int k) { switch (k) { case 1: if (k > 0) break; k++; break; default: k = 0; } } }",
                "class A { void f(int k) { switch (k) { default: k = 3; break; case 1: k = 0; } } }",
            ],
            8,
        );
    }
}
