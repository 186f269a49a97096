//! Branch coverage of a Java program, read from probes written into its source: Java has no
//! tracer the sandbox's warm worker could switch on per run, so the program itself reports
//! each branch the first time it runs it.
//!
//! A probe is a call `__EquimorphProbe.p(K);` (a class appended to the compilation unit) that
//! prints `@@equimorph-probe@@ K` to standard error the first time probe K runs. Probes go
//! at the start of every block (method and lambda bodies, both arms of an `if`, loop bodies,
//! `try`/`catch`/`finally`), after every `switch` group's labels, into an `else` added to an
//! `if` that has none (the branch not taken), and into braces put around an unbraced body.
//! None of these changes what the program prints, what it computes, or whether it compiles:
//! a probe is a statement where a statement already may stand. Constructor bodies are left
//! as they are (their first statement may have to be `this(…)` or `super(…)`); their inner
//! blocks still get probes.

use crate::program::Language;
use std::collections::BTreeSet;
use tree_sitter::Node;

/// What a probe prints before its number.
pub(super) const PROBE_MARKER: &str = "@@equimorph-probe@@";

/// The class the probes call, appended to the program (never public: the program's own public
/// class stays the unit's one).
const PROBE_CLASS: &str = "__EquimorphProbe";

/// One text inserted into the source at a byte offset. Inserts at one offset are applied in
/// `rank` order: closing braces of deeper bodies first, so nested wraps close inside out.
struct Insert {
    at: usize,
    rank: (u8, i64),
    text: String,
}

/// The probes written so far and the inserts that place them.
#[derive(Default)]
struct Probes {
    inserts: Vec<Insert>,
    count: usize,
}

impl Probes {
    /// A new probe's call statement.
    fn next(&mut self) -> String {
        let k = self.count;
        self.count += 1;
        format!("{PROBE_CLASS}.p({k});")
    }

    /// A probe at the start of `block` (after its `{`).
    fn block(&mut self, block: Node<'_>) {
        let probe = self.next();
        self.inserts.push(Insert {
            at: block.start_byte() + 1,
            rank: (1, 0),
            text: probe,
        });
    }

    /// `stmt` (an unbraced body at nesting `depth`) put in braces with a probe first.
    fn wrap(&mut self, stmt: Node<'_>, depth: i64) {
        let probe = self.next();
        self.inserts.push(Insert {
            at: stmt.start_byte(),
            rank: (1, depth),
            text: format!("{{ {probe} "),
        });
        self.inserts.push(Insert {
            at: stmt.end_byte(),
            rank: (0, -2 * depth),
            text: " }".into(),
        });
    }

    /// An `else` with a probe after `consequence`, the end of an `if` at nesting `depth`.
    fn add_else(&mut self, consequence: Node<'_>, depth: i64) {
        let probe = self.next();
        self.inserts.push(Insert {
            at: consequence.end_byte(),
            rank: (0, -2 * depth + 1),
            text: format!(" else {{ {probe} }}"),
        });
    }

    /// A probe after the last label of a `switch` group.
    fn after(&mut self, label: Node<'_>) {
        let probe = self.next();
        self.inserts.push(Insert {
            at: label.end_byte(),
            rank: (1, 0),
            text: format!(" {probe}"),
        });
    }
}

/// Places probes in `n` and below (`depth`: how many statements enclose `n`).
fn place(n: Node<'_>, depth: i64, probes: &mut Probes) {
    let body = |field: &str| n.child_by_field_name(field);
    match n.kind() {
        "block" => probes.block(n),
        "if_statement" => {
            if let Some(c) = body("consequence") {
                if c.kind() != "block" {
                    probes.wrap(c, depth);
                }
                match body("alternative") {
                    None => probes.add_else(c, depth),
                    Some(a) if !matches!(a.kind(), "block" | "if_statement") => {
                        probes.wrap(a, depth)
                    }
                    Some(_) => {}
                }
            }
        }
        "while_statement" | "for_statement" | "enhanced_for_statement" | "do_statement" => {
            if let Some(b) = body("body") {
                if b.kind() != "block" {
                    probes.wrap(b, depth);
                }
            }
        }
        "switch_block_statement_group" => {
            let mut cursor = n.walk();
            let last_label = n
                .children(&mut cursor)
                .take_while(|c| matches!(c.kind(), "switch_label" | ":"))
                .last();
            if let Some(l) = last_label {
                probes.after(l);
            }
        }
        _ => {}
    }
    let mut cursor = n.walk();
    for child in n.children(&mut cursor) {
        place(child, depth + 1, probes);
    }
}

/// `source` with probes in every branch, and the class they call appended; `None` when it
/// does not parse cleanly (a probe could land inside broken code) or has no branch.
pub(super) fn with_probes(source: &str) -> Option<String> {
    let tree = Language::Java.parse(source).ok()?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut probes = Probes::default();
    place(root, 0, &mut probes);
    if probes.count == 0 {
        return None;
    }
    probes.inserts.sort_by_key(|i| (i.at, i.rank));
    let mut out = String::with_capacity(source.len() + probes.inserts.len() * 32 + 400);
    let mut from = 0;
    for insert in &probes.inserts {
        out.push_str(source.get(from..insert.at)?);
        out.push_str(&insert.text);
        from = insert.at;
    }
    out.push_str(source.get(from..)?);
    out.push_str(&format!(
        "\n\nfinal class {PROBE_CLASS} {{\n    private static final boolean[] SEEN = new boolean[{n}];\n    static void p(int k) {{\n        if (!SEEN[k]) {{\n            SEEN[k] = true;\n            System.err.print(\"\\n{PROBE_MARKER} \" + k + \"\\n\");\n        }}\n    }}\n}}\n",
        n = probes.count
    ));
    Some(out)
}

/// The probes a run reached, from its standard error (every marker line; `None` without one).
pub(super) fn parse_probes(stderr: &str) -> Option<BTreeSet<String>> {
    let hits: BTreeSet<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(PROBE_MARKER))
        .map(|k| format!("j{}", k.trim()))
        .collect();
    (!hits.is_empty()).then_some(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "public class Main {\n    public static void main(String[] args) {\n        int n = args.length;\n        if (n > 0) if (n > 1) n++; else n--;\n        for (int i = 0; i < 3; i++) n += i;\n        switch (n) {\n            case 1: case 2: n = 0; break;\n            default: n = 1;\n        }\n        System.out.println(n);\n    }\n    Main() { this(1); }\n    Main(int x) { if (x > 0) { x--; } }\n}\n";

    #[test]
    fn probes_go_into_every_branch_and_the_program_still_parses() {
        let probed = with_probes(PROGRAM).unwrap_or_default();
        let tree = Language::Java.parse(&probed).ok();
        assert!(tree.is_some_and(|t| !t.root_node().has_error()), "{probed}");
        // The nested unbraced `if`s close inside out, each with its own `else`.
        assert!(
            probed.contains(
                "if (n > 0) { __EquimorphProbe.p(1); if (n > 1) { __EquimorphProbe.p(3); n++; } else { __EquimorphProbe.p(4); n--; } } else { __EquimorphProbe.p(2); }"
            ),
            "{probed}"
        );
        assert!(probed.contains("n += i; }"), "{probed}");
        // Fall-through keeps its meaning: an empty group's probe runs on into the next.
        assert!(
            probed.contains("case 1: __EquimorphProbe.p(6); case 2: __EquimorphProbe.p(7); n = 0;"),
            "{probed}"
        );
        // A constructor's body keeps `this(1)` first; its inner block gets a probe.
        assert!(probed.contains("Main() { this(1); }"), "{probed}");
        assert!(
            probed.contains("if (x > 0) {__EquimorphProbe.p(10); x--; }"),
            "{probed}"
        );
        assert!(probed.contains("new boolean[11]"), "{probed}");
    }

    #[test]
    fn broken_or_branchless_sources_get_no_probes() {
        assert!(with_probes("public class Main { void f( { }").is_none());
        assert!(with_probes("interface I {}").is_none());
    }

    #[test]
    fn probes_are_read_from_every_marker_line() {
        let err = format!("x\n{PROBE_MARKER} 3\nnoise\n{PROBE_MARKER} 0\n");
        let hits = parse_probes(&err).unwrap_or_default();
        assert_eq!(hits.into_iter().collect::<Vec<_>>(), vec!["j0", "j3"]);
        assert!(parse_probes("nothing").is_none());
    }
}
