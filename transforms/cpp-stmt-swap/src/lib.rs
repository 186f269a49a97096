//! ## What it does
//! Swaps two adjacent statements of a block that do not depend on each other: declarations
//! of arithmetic variables with side-effect-free initialisers, and assignments or increments
//! of arithmetic variables from side-effect-free expressions. It also rewrites C programs.
//!
//! ## Why it preserves semantics
//! Two statements may run in either order when neither writes a variable the other reads or
//! writes. Every name either statement reads or writes must be a plain variable that every
//! declaration in the program gives an arithmetic type, so no reference or pointer can make
//! two names one object, and no call, `*p`, `p->f` or subscript reads memory behind a name.
//! A declaration writes the name it declares: a statement that reads a name another declares
//! (even a global of the same name, which the declaration would then hide) is never moved
//! across it. No statement with output, input or any other call is moved.
//!
//! ## Example
//! ```cpp
//! int lo = 0;
//! int hi = n - 1;
//! ```
//! becomes
//! ```cpp
//! int hi = n - 1;
//! int lo = 0;
//! ```
//!
//! ## Not applied when
//! - either statement calls a function, reads through a pointer, reference or subscript,
//!   uses a macro, or is not a declaration, assignment or increment;
//! - one writes what the other reads or writes;
//! - the block lies in code a preprocessor conditional guards.

use sdk::cpp::{arithmetic_names, in_conditional, is_pure, statements, CppParsed};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use std::collections::{BTreeMap, BTreeSet};
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-stmt-swap",
    description: "Swaps adjacent independent C++ statements over arithmetic variables",
    category: "structure",
    languages: "cpp c",
    rewrite: rewrite,
}

/// What a statement reads and writes, or `None` if it is not one that may move.
struct Access {
    reads: BTreeSet<String>,
    writes: BTreeSet<String>,
}

/// Node kinds that read memory behind a name.
const INDIRECT: &[&str] = &[
    "pointer_expression",
    "subscript_expression",
    "field_expression",
    "qualified_identifier",
    "this",
];

fn names_in(p: &CppParsed, n: Node<'_>) -> Option<BTreeSet<String>> {
    if !is_pure(p, n) || descendants(n).iter().any(|d| INDIRECT.contains(&d.kind())) {
        return None;
    }
    Some(
        descendants(n)
            .into_iter()
            .filter(|d| d.kind() == "identifier")
            .map(|d| p.text(d).to_string())
            .collect(),
    )
}

fn access(p: &CppParsed, arithmetic: &BTreeMap<String, String>, s: Node<'_>) -> Option<Access> {
    let mut reads = BTreeSet::new();
    let mut writes = BTreeSet::new();
    match s.kind() {
        "declaration" => {
            let ty = s.child_by_field_name("type")?;
            if !matches!(ty.kind(), "primitive_type" | "sized_type_specifier") {
                return None;
            }
            let mut c = s.walk();
            for d in s.children_by_field_name("declarator", &mut c) {
                match d.kind() {
                    "identifier" => {
                        writes.insert(p.text(d).to_string());
                    }
                    "init_declarator" => {
                        let id = d.child_by_field_name("declarator")?;
                        let value = d.child_by_field_name("value")?;
                        if id.kind() != "identifier" {
                            return None;
                        }
                        writes.insert(p.text(id).to_string());
                        reads.extend(names_in(p, value)?);
                    }
                    _ => return None,
                }
            }
        }
        "expression_statement" => {
            let e = s.named_child(0)?;
            match e.kind() {
                "assignment_expression" => {
                    let left = e.child_by_field_name("left")?;
                    let op = e.child_by_field_name("operator")?;
                    let right = e.child_by_field_name("right")?;
                    if left.kind() != "identifier" {
                        return None;
                    }
                    let x = p.text(left).to_string();
                    if p.text(op) != "=" {
                        reads.insert(x.clone());
                    }
                    writes.insert(x);
                    reads.extend(names_in(p, right)?);
                }
                "update_expression" => {
                    let arg = e.child_by_field_name("argument")?;
                    if arg.kind() != "identifier" {
                        return None;
                    }
                    reads.insert(p.text(arg).to_string());
                    writes.insert(p.text(arg).to_string());
                }
                _ => return None,
            }
        }
        _ => return None,
    }
    let plain = reads
        .iter()
        .chain(writes.iter())
        .all(|n| arithmetic.contains_key(n));
    (plain && !p.uses_macro(s)).then_some(Access { reads, writes })
}

fn independent(a: &Access, b: &Access) -> bool {
    a.writes.is_disjoint(&b.reads)
        && a.writes.is_disjoint(&b.writes)
        && b.writes.is_disjoint(&a.reads)
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let arithmetic = arithmetic_names(p);
    let mut pairs = Vec::new();
    for block in p.nodes_of_kind("compound_statement") {
        if in_conditional(block)
            || block
                .parent()
                .is_some_and(|x| x.kind() == "switch_statement")
        {
            continue;
        }
        let stmts = statements(block);
        for w in stmts.windows(2) {
            let [a, b] = w else { continue };
            // Only neighbours with nothing (but blank space) between them.
            let between = &p.source[a.end_byte()..b.start_byte()];
            if !between.trim().is_empty() {
                continue;
            }
            if let (Some(x), Some(y)) = (access(p, &arithmetic, *a), access(p, &arithmetic, *b)) {
                if independent(&x, &y) {
                    pairs.push((*a, *b));
                }
            }
        }
    }
    for i in rng.sites(pairs.len(), 0.5) {
        let (a, b) = pairs[i];
        if edits.overlaps(&a.byte_range()) || edits.overlaps(&b.byte_range()) {
            continue;
        }
        edits.replace(a.byte_range(), p.text(b).to_string());
        edits.replace(b.byte_range(), p.text(a).to_string());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    sdk::c_fixture_tests!(apply);

    #[test]
    fn dependent_aliased_and_effectful_statements_stay() {
        sdk::testing::assert_declines(
            apply,
            &[
                "int main() { int a = 1; int b = a + 1; int &r = a; a = 5; b = r; return b; }\n",
                "#include <cstdio>\nint main() { int a = 1, b = 2; a = b; b = 3; printf(\"%d\\n\", a); int *p = &a; *p = 4; b = a; return b; }\n",
                "int g = 1;\nint main() { int x = g; int g = 2; return x + g; }\n",
            ],
            8,
        );
    }
}
