//! ## What it does
//! Rewrites the imports of `java.util` and `java.io`: several single-type imports of one of
//! them (`import java.util.Scanner; import java.util.List;`) become one on-demand import
//! (`import java.util.*;`), and an on-demand import becomes the single-type imports of the
//! names the program uses.
//!
//! ## Why it preserves semantics
//! Imports only decide which class a simple name means at compile time. The rewrite keeps every
//! name meaning the same class: it never adds an on-demand import next to another one (two
//! on-demand imports offering the same simple name would make it ambiguous), never imports a
//! simple name the program declares itself (a single-type import would clash with it), and
//! imports every name the program uses from the package — from a list of the package's public
//! classes, and only when every capitalised name the program uses is known (from these lists,
//! `java.lang`, its own declarations or its single-type imports), so no name can lose its
//! meaning when an on-demand import goes. Another on-demand import may stay beside the
//! expanded one: a name both offered would already be ambiguous, which the compiler rejects.
//! Class initialisation does not depend on imports.
//!
//! ## Example
//! ```java
//! import java.util.*;
//! ```
//! becomes
//! ```java
//! import java.util.List;
//! import java.util.Scanner;
//! ```
//!
//! ## Not applied when
//! The program has static imports; for collapsing, another on-demand import; for expanding,
//! a capitalised simple name this transform does not know.

use sdk::java::JavaParsed;
use sdk::{Edits, Rng};
use std::collections::BTreeSet;

sdk::declare_java_transform! {
    name: "java-import-edit",
    description: "Switches Java imports of java.util and java.io between on-demand and single-type",
    category: "layout",
    rewrite: rewrite,
}

const UTIL: &[&str] = &[
    "AbstractMap",
    "ArrayDeque",
    "ArrayList",
    "Arrays",
    "Base64",
    "BitSet",
    "Calendar",
    "Collection",
    "Collections",
    "Comparator",
    "ConcurrentModificationException",
    "Date",
    "Deque",
    "EnumMap",
    "EnumSet",
    "Formatter",
    "HashMap",
    "HashSet",
    "Hashtable",
    "IdentityHashMap",
    "InputMismatchException",
    "IntSummaryStatistics",
    "Iterator",
    "LinkedHashMap",
    "LinkedHashSet",
    "LinkedList",
    "List",
    "ListIterator",
    "Locale",
    "Map",
    "NavigableMap",
    "NavigableSet",
    "NoSuchElementException",
    "Objects",
    "Optional",
    "OptionalDouble",
    "OptionalInt",
    "OptionalLong",
    "PriorityQueue",
    "Properties",
    "Queue",
    "Random",
    "Scanner",
    "Set",
    "SortedMap",
    "SortedSet",
    "Spliterator",
    "Stack",
    "StringJoiner",
    "StringTokenizer",
    "Timer",
    "TreeMap",
    "TreeSet",
    "UUID",
    "Vector",
    "WeakHashMap",
];

const IO: &[&str] = &[
    "BufferedInputStream",
    "BufferedOutputStream",
    "BufferedReader",
    "BufferedWriter",
    "ByteArrayInputStream",
    "ByteArrayOutputStream",
    "Closeable",
    "DataInputStream",
    "DataOutputStream",
    "EOFException",
    "File",
    "FileReader",
    "FileWriter",
    "IOException",
    "InputStream",
    "InputStreamReader",
    "OutputStream",
    "OutputStreamWriter",
    "PrintStream",
    "PrintWriter",
    "Reader",
    "Serializable",
    "StreamTokenizer",
    "StringReader",
    "StringWriter",
    "UncheckedIOException",
    "Writer",
];

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let imports = p.nodes_of_kind("import_declaration");
    let text =
        |n: tree_sitter::Node<'_>| p.text(n).split_whitespace().collect::<Vec<_>>().join(" ");
    let on_demand: Vec<_> = imports
        .iter()
        .filter(|i| text(**i).ends_with(".*;"))
        .copied()
        .collect();
    if imports
        .iter()
        .any(|i| text(*i).starts_with("import static"))
    {
        return edits;
    }
    // Simple names the program declares or uses.
    let declared: BTreeSet<&str> = p
        .nodes()
        .into_iter()
        .filter(|n| {
            matches!(
                n.kind(),
                "class_declaration"
                    | "interface_declaration"
                    | "enum_declaration"
                    | "record_declaration"
            )
        })
        .filter_map(|n| n.child_by_field_name("name"))
        .map(|n| p.text(n))
        .collect();
    let used: BTreeSet<&str> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "type_identifier" | "identifier"))
        .filter(|n| {
            // In `Map.Entry` only `Map` is resolved through the imports; in `java.io.File`
            // nothing is.
            n.parent().is_none_or(|x| match x.kind() {
                "scoped_identifier" => false,
                "scoped_type_identifier" => x.named_child(0).is_some_and(|f| f.id() == n.id()),
                _ => true,
            })
        })
        .map(|n| p.text(n))
        .collect();
    let imported: BTreeSet<&str> = imports
        .iter()
        .filter(|i| !text(**i).ends_with(".*;"))
        .filter_map(|i| p.text(*i).trim_end_matches(';').rsplit('.').next())
        .map(str::trim)
        .collect();
    let mut sites: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (pkg, names) in [("java.util", UTIL), ("java.io", IO)] {
        let singles: Vec<_> = imports
            .iter()
            .filter(|i| {
                let t = text(**i);
                t.strip_prefix(&format!("import {pkg}."))
                    .is_some_and(|rest| !rest.contains('.') && rest != "*;")
            })
            .copied()
            .collect();
        let star = on_demand
            .iter()
            .find(|i| text(**i) == format!("import {pkg}.*;"));
        match star {
            // Collapse (the package's other single-type imports are removed with it, below):
            // no other on-demand import may compete for the simple names.
            None if singles.len() >= 2 && on_demand.is_empty() => {
                sites.push((singles[0].byte_range(), format!("import {pkg}.*;")));
            }
            // Expand: every used name of the package must be known, and none declared here.
            // Other on-demand imports may stay: a simple name they share with this package
            // would already be ambiguous, and every name the program uses must be known.
            Some(star) => {
                let wanted: Vec<&str> =
                    names.iter().copied().filter(|n| used.contains(n)).collect();
                let unknown_upper = used.iter().any(|u| {
                    u.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                        && !UTIL.contains(u)
                        && !IO.contains(u)
                        && !declared.contains(u)
                        && !imported.contains(u)
                        && !JAVA_LANG.contains(u)
                        && !u
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                });
                if wanted.is_empty() || unknown_upper || wanted.iter().any(|w| declared.contains(w))
                {
                    continue;
                }
                let lines: Vec<String> = wanted
                    .iter()
                    .map(|w| format!("import {pkg}.{w};"))
                    .collect();
                sites.push((star.byte_range(), lines.join("\n")));
            }
            _ => {}
        }
    }
    if let Some(k) = rng.site(sites.len()) {
        let (range, new) = &sites[k];
        edits.replace(range.clone(), new.clone());
        // Collapsing also removes the package's other single-type imports.
        if new.ends_with(".*;") {
            let pkg = new.trim_start_matches("import ").trim_end_matches(".*;");
            for i in &imports {
                let t = text(*i);
                if i.byte_range() != *range
                    && t.strip_prefix(&format!("import {pkg}."))
                        .is_some_and(|rest| !rest.contains('.') && rest != "*;")
                {
                    let start = sdk::text::line_start(&p.source, i.start_byte());
                    let end = sdk::text::line_end(&p.source, i.end_byte());
                    edits.replace(start..end, "");
                }
            }
        }
    }
    edits
}

/// `java.lang` names a program may use unqualified (they never come from the imports).
const JAVA_LANG: &[&str] = &[
    "String",
    "Integer",
    "Long",
    "Double",
    "Float",
    "Short",
    "Byte",
    "Character",
    "Boolean",
    "Math",
    "System",
    "Object",
    "StringBuilder",
    "StringBuffer",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "Thread",
    "Runnable",
    "Iterable",
    "Comparable",
    "Number",
    "Class",
    "Void",
    "IllegalArgumentException",
    "IllegalStateException",
    "NullPointerException",
    "ArithmeticException",
    "ArrayIndexOutOfBoundsException",
    "IndexOutOfBoundsException",
    "NumberFormatException",
    "UnsupportedOperationException",
    "ClassCastException",
    "StackOverflowError",
    "OutOfMemoryError",
    "AssertionError",
    "InterruptedException",
    "CloneNotSupportedException",
    "Override",
    "Deprecated",
    "SuppressWarnings",
    "FunctionalInterface",
    "SafeVarargs",
    "Enum",
    "Record",
    "Character",
    "CharSequence",
    "AutoCloseable",
    "Cloneable",
    "StrictMath",
    "SecurityException",
    "ReflectiveOperationException",
    "NoSuchMethodException",
    "ClassNotFoundException",
    "Process",
    "ProcessBuilder",
    "Runtime",
    "ThreadLocal",
];

#[cfg(test)]
mod tests {
    use super::{apply, apply_at_site};
    sdk::java_fixture_tests!(apply);

    #[test]
    fn both_stars_of_a_contest_header_expand_one_at_a_time() {
        let src = include_str!("../fixtures/two_stars.java");
        let (_, offered) = apply_at_site(src, 0, 0);
        let outs: Vec<String> = (0..offered)
            .filter_map(|site| apply_at_site(src, 0, site).0.ok().flatten())
            .collect();
        assert!(outs.iter().any(|o| o.contains("import java.io.*;")
            && o.contains("import java.util.StringTokenizer;")
            && o.contains("import java.util.Collections;")
            && !o.contains("import java.util.*;")));
        assert!(outs.iter().any(|o| o.contains("import java.util.*;")
            && o.contains("import java.io.PrintWriter;")
            && !o.contains("import java.io.*;")));
    }

    #[test]
    fn a_name_from_another_star_blocks_expansion() {
        sdk::testing::assert_declines(
            apply,
            &["import java.util.*;\nimport java.util.function.*;\nclass A { List<Integer> l; Function<Integer, Integer> f; }"],
            16,
        );
    }

    #[test]
    fn competing_on_demand_imports_and_unknown_names_block_it() {
        sdk::testing::assert_declines(
            apply,
            &[
                "import java.util.Scanner;\nimport java.util.List;\nimport java.awt.*;\nclass A { Scanner s; List<String> l; }",
                "import java.util.*;\nclass A { Scanner s; Spliterator.OfInt x; BigFancyThing y; }",
                "import java.util.*;\nclass Scanner { }\nclass A { Scanner s; List<String> l; }",
            ],
            16,
        );
    }
}
