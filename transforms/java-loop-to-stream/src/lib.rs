//! ## What it does
//! Rewrites a counting `for` loop as a stream over the index range, and an enhanced `for` loop
//! over a local collection or array as its `forEach`:
//! `for (int i = a; i < b; i++) body` → `IntStream.range(a, b).forEachOrdered(i -> body)`,
//! `for (T x : list) body` → `list.forEach(x -> body)`,
//! `for (T x : array) body` → `Arrays.stream(array).forEachOrdered(x -> body)`.
//! The import the stream needs (`java.util.stream.IntStream`, `java.util.Arrays`) is added when
//! the program does not import it yet.
//!
//! ## Why it preserves semantics
//! `IntStream.range(a, b)` is sequential and yields `a, a + 1, …, b − 1`, and `forEachOrdered`
//! runs the action on them in that order, as the loop does; `a` and then `b` are evaluated once,
//! before the first iteration, and the loop evaluates them in the same order. The loop would
//! re-read `b` before every iteration, so `b` may only be made of locals, literals, array
//! lengths and arithmetic: the body of a lambda cannot assign a local of the enclosing method,
//! so none of them can change during the loop. The loop counter is only incremented by the
//! header (never assigned in the body) and `i < b` stops before `i` could overflow.
//! `Iterable.forEach` performs the action on the elements in iteration order, as the enhanced
//! `for` does; `Arrays.stream` reads the array's elements in index order. A loop variable keeps
//! its type because the lambda parameter gets the element type, which must be the type the loop
//! declared (no unboxing or widening hides in the loop header).
//!
//! A lambda body may only read locals of the enclosing method that are effectively final, may
//! not `break`, `continue` or `return` out of the loop, and may not throw checked exceptions:
//! the transform checks each of these on the loop body before it rewrites.
//!
//! ## Example
//! ```java
//! for (int i = 0; i < n; i++) xs[i] = in.next();
//! ```
//! becomes
//! ```java
//! IntStream.range(0, n).forEachOrdered(i -> xs[i] = in.next());
//! ```
//!
//! ## Not applied when
//! - the loop is labelled, or its body has `break`, `continue`, `return`, `yield`, a lambda or a
//!   class body;
//! - the body reads a local of the method that is assigned anywhere (its declaration aside) or
//!   declared without an initialiser (it would not be effectively final), or assigns one;
//! - the counter is not an `int` or `long` declared in the header and compared with `<`, the
//!   update is not `i++`, `++i` or `i += 1`, the body assigns the counter, or the bound is not
//!   built from locals, literals, array lengths and arithmetic;
//! - the iterated value is not a local collection of a known `java.util` type or a local array
//!   of `int`, `long`, `double` or a reference type, or the loop variable's declared type is not
//!   the element type;
//! - the body might throw a checked exception: the enclosing method declares `throws` or the loop
//!   sits in a `try` block, and the body calls something outside a short list of JDK methods that
//!   throw none (or a method the program declares with `throws`);
//! - the loop is not in a method, constructor or lambda body, or a type named `IntStream`,
//!   `LongStream` or `Arrays` other than the JDK's could be meant.
//!
//! The list of calls known to throw no checked exception goes by method name, so a call of a
//! same-named method that does throw one (`Future.get`) makes a rewrite that does not compile:
//! the oracle counts it as an invalid candidate, never as an equivalent or a broken one. A
//! program near its stack limit gets a few more frames per iteration; the oracle checks every
//! rewrite.

use sdk::java::{scope, JavaParsed};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_java_transform! {
    name: "java-loop-to-stream",
    description: "Rewrites a Java counting or enhanced for loop as a stream or forEach call with a lambda",
    category: "control-flow",
    rewrite: rewrite,
}

/// JDK methods that declare no checked exception (on the receivers programs here call them on:
/// collections, strings, `StringBuilder`, `Scanner`, `PrintStream`, `Math`, wrapper types).
/// `append`/`write` are left out: `Writer`'s throw `IOException`.
const UNCHECKED_CALLS: &[&str] = &[
    "add",
    "addAll",
    "put",
    "get",
    "getOrDefault",
    "set",
    "remove",
    "contains",
    "containsKey",
    "size",
    "isEmpty",
    "push",
    "pop",
    "peek",
    "offer",
    "poll",
    "addFirst",
    "addLast",
    "print",
    "println",
    "printf",
    "format",
    "next",
    "nextInt",
    "nextLong",
    "nextDouble",
    "nextLine",
    "hasNext",
    "hasNextInt",
    "parseInt",
    "parseLong",
    "parseDouble",
    "valueOf",
    "toString",
    "equals",
    "compareTo",
    "charAt",
    "length",
    "substring",
    "indexOf",
    "max",
    "min",
    "abs",
    "sqrt",
    "pow",
    "merge",
    "sort",
    "toCharArray",
    "isDigit",
    "isLetter",
    "toUpperCase",
    "toLowerCase",
    "split",
    "trim",
    "fill",
    "asList",
    "hashCode",
    "floorMod",
];

/// Types whose constructors declare no checked exception.
const UNCHECKED_NEW: &[&str] = &[
    "ArrayList",
    "LinkedList",
    "HashMap",
    "TreeMap",
    "HashSet",
    "TreeSet",
    "LinkedHashMap",
    "LinkedHashSet",
    "ArrayDeque",
    "PriorityQueue",
    "StringBuilder",
    "String",
    "Integer",
    "Long",
    "int",
    "long",
    "RuntimeException",
    "IllegalArgumentException",
    "IllegalStateException",
];

/// What a site becomes.
enum Site<'t> {
    /// `for (int|long i = a; i < b; i++) body`.
    Range {
        stream: &'static str,
        var: &'t str,
        from: Node<'t>,
        to: Node<'t>,
    },
    /// `for (T x : coll) body`.
    Collection { var: &'t str, value: &'t str },
    /// `for (T x : arr) body`.
    Array { var: &'t str, value: &'t str },
}

fn rewrite(p: &JavaParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let locals = scope::locals(p);
    let throwing = methods_with_throws(p);
    let sites: Vec<(Node<'_>, Site<'_>)> = p
        .nodes()
        .into_iter()
        .filter_map(|n| {
            let site = match n.kind() {
                "for_statement" => range_site(p, n, &locals)?,
                "enhanced_for_statement" => each_site(p, n, &locals)?,
                _ => return None,
            };
            let body = n.child_by_field_name("body")?;
            (body_is_liftable(p, n, body, &locals, &throwing) && imports_usable(p, &site))
                .then_some((n, site))
        })
        .collect();
    let mut needs: Vec<&str> = Vec::new();
    for i in rng.sites(sites.len(), 0.5) {
        let (f, site) = &sites[i];
        if edits.overlaps(&f.byte_range()) {
            continue;
        }
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        let (head, var) = match site {
            Site::Range {
                stream,
                var,
                from,
                to,
            } => {
                needs.push(stream);
                (
                    format!(
                        "{stream}.range({}, {}).forEachOrdered",
                        p.text(*from),
                        p.text(*to)
                    ),
                    *var,
                )
            }
            Site::Collection { var, value } => (format!("{value}.forEach"), *var),
            Site::Array { var, value } => {
                needs.push("Arrays");
                (format!("Arrays.stream({value}).forEachOrdered"), *var)
            }
        };
        let lambda_body = match body.kind() {
            "block" => p.text(body).to_string(),
            "expression_statement" => named_children(body)
                .first()
                .map_or_else(|| "{ }".to_string(), |e| p.text(*e).to_string()),
            _ => format!("{{ {} }}", p.text(body)),
        };
        edits.replace(f.byte_range(), format!("{head}({var} -> {lambda_body});"));
    }
    if !edits.is_empty() {
        needs.sort_unstable();
        needs.dedup();
        let missing: Vec<String> = needs
            .iter()
            .filter(|n| !imported(p, n))
            .map(|n| format!("import {};\n", qualified(n)))
            .collect();
        if !missing.is_empty() {
            let at = import_point(p);
            edits.insert(at, missing.concat());
        }
    }
    edits
}

/// The fully qualified name of a type the rewrite uses.
fn qualified(simple: &str) -> String {
    match simple {
        "Arrays" => "java.util.Arrays".to_string(),
        s => format!("java.util.stream.{s}"),
    }
}

/// Whether the program already imports `simple` from where the rewrite means it.
fn imported(p: &JavaParsed, simple: &str) -> bool {
    let q = qualified(simple);
    let package = q.rsplit_once('.').map_or("", |(pkg, _)| pkg).to_string();
    p.nodes_of_kind("import_declaration").into_iter().any(|d| {
        let t: String = p.text(d).split_whitespace().collect();
        t == format!("import{q};") || t == format!("import{package}.*;")
    })
}

/// Whether the simple names the site uses can only mean the JDK's types once imported: the
/// program never spells them, or imports them from the JDK already.
fn imports_usable(p: &JavaParsed, site: &Site<'_>) -> bool {
    let name = match site {
        Site::Range { stream, .. } => *stream,
        Site::Collection { .. } => return true,
        Site::Array { .. } => "Arrays",
    };
    if imported(p, name) {
        // An on-demand import is shadowed by a type of the same name declared here.
        return !p
            .nodes()
            .into_iter()
            .any(|n| sdk::java::is_class_like(n.kind()) && class_name(p, n) == Some(name));
    }
    !p.source
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|w| w == name)
}

fn class_name<'t>(p: &'t JavaParsed, n: Node<'_>) -> Option<&'t str> {
    n.parent()
        .and_then(|d| d.child_by_field_name("name"))
        .map(|x| p.text(x))
}

/// Where an import goes: after the last import, else after the package declaration, else at
/// the top.
fn import_point(p: &JavaParsed) -> usize {
    let line_end = |b: usize| {
        p.source[b..]
            .find('\n')
            .map_or(p.source.len(), |i| b + i + 1)
    };
    let root = p.root();
    let kids = named_children(root);
    if let Some(last) = kids.iter().rev().find(|n| n.kind() == "import_declaration") {
        return line_end(last.end_byte());
    }
    if let Some(pkg) = kids.iter().find(|n| n.kind() == "package_declaration") {
        return line_end(pkg.end_byte());
    }
    0
}

/// A counting loop `for (int|long i = a; i < b; i++ | ++i | i += 1)` with a stable bound.
fn range_site<'t>(p: &'t JavaParsed, f: Node<'t>, locals: &[scope::Local<'t>]) -> Option<Site<'t>> {
    if f.parent()?.kind() == "labeled_statement" {
        return None;
    }
    let init = f.child_by_field_name("init")?;
    if init.kind() != "local_variable_declaration"
        || f.children_by_field_name("init", &mut f.walk()).count() != 1
    {
        return None;
    }
    let ty = p.text(init.child_by_field_name("type")?);
    let stream = match ty {
        "int" => "IntStream",
        "long" => "LongStream",
        _ => return None,
    };
    // No modifiers (`final` would not compile with `i++`; annotations are left alone).
    if named_children(init).iter().any(|c| c.kind() == "modifiers") {
        return None;
    }
    let declarators: Vec<Node<'_>> = named_children(init)
        .into_iter()
        .filter(|c| c.kind() == "variable_declarator")
        .collect();
    let [decl] = declarators.as_slice() else {
        return None;
    };
    if decl.child_by_field_name("dimensions").is_some() {
        return None;
    }
    let var = p.text(decl.child_by_field_name("name")?);
    let from = decl.child_by_field_name("value")?;
    let cond = f.child_by_field_name("condition")?;
    if cond.kind() != "binary_expression"
        || p.text(cond.child_by_field_name("operator")?) != "<"
        || p.text(cond.child_by_field_name("left")?) != var
    {
        return None;
    }
    let to = cond.child_by_field_name("right")?;
    let updates: Vec<Node<'_>> = f.children_by_field_name("update", &mut f.walk()).collect();
    let [update] = updates.as_slice() else {
        return None;
    };
    let u: String = p.text(*update).split_whitespace().collect();
    if u != format!("{var}++") && u != format!("++{var}") && u != format!("{var}+=1") {
        return None;
    }
    if !stable_bound(p, to, f, locals, stream == "LongStream") {
        return None;
    }
    // The body never assigns the counter.
    let counter = locals.iter().find(|l| {
        l.decl.id()
            == decl
                .child_by_field_name("name")
                .map(|n| n.id())
                .unwrap_or(0)
    })?;
    let refs = scope::references(p, counter)?;
    let body = f.child_by_field_name("body")?;
    if refs.iter().any(|r| inside(*r, body) && is_assigned(*r)) {
        return None;
    }
    Some(Site::Range {
        stream,
        var,
        from,
        to,
    })
}

/// Whether `b` only reads locals (of an integral type that fits the stream), literals, array
/// lengths and arithmetic: nothing the loop body could change.
fn stable_bound(
    p: &JavaParsed,
    b: Node<'_>,
    at: Node<'_>,
    locals: &[scope::Local<'_>],
    long: bool,
) -> bool {
    let local_ty = |name: &str| {
        locals
            .iter()
            .rev()
            .find(|l| l.name == name && l.scope.contains(&at.start_byte()))
            .and_then(|l| l.ty.clone())
    };
    match b.kind() {
        "decimal_integer_literal" | "hex_integer_literal" => {
            long || !p.text(b).ends_with(['l', 'L'])
        }
        "identifier" => local_ty(p.text(b)).is_some_and(|t| match t.as_str() {
            "int" | "short" | "byte" | "char" => true,
            "long" => long,
            _ => false,
        }),
        "field_access" => {
            b.child_by_field_name("field")
                .is_some_and(|f| p.text(f) == "length")
                && b.child_by_field_name("object").is_some_and(|o| {
                    o.kind() == "identifier"
                        && local_ty(p.text(o)).is_some_and(|t| t.ends_with("[]"))
                })
        }
        "parenthesized_expression" => named_children(b)
            .into_iter()
            .all(|c| stable_bound(p, c, at, locals, long)),
        "binary_expression" => {
            matches!(
                b.child_by_field_name("operator").map(|o| p.text(o)),
                Some("+" | "-" | "*" | "/" | "%")
            ) && ["left", "right"].iter().all(|s| {
                b.child_by_field_name(s)
                    .is_some_and(|c| stable_bound(p, c, at, locals, long))
            })
        }
        _ => false,
    }
}

/// An enhanced `for` over a local collection or array whose element type is the loop's type.
fn each_site<'t>(p: &'t JavaParsed, f: Node<'t>, locals: &[scope::Local<'t>]) -> Option<Site<'t>> {
    if f.parent()?.kind() == "labeled_statement" || f.child_by_field_name("dimensions").is_some() {
        return None;
    }
    let value = f.child_by_field_name("value")?;
    if value.kind() != "identifier" {
        return None;
    }
    let name = p.text(value);
    let var_node = f.child_by_field_name("name")?;
    if var_node.kind() != "identifier" {
        return None;
    }
    let var = p.text(var_node);
    let declared: String = p
        .text(f.child_by_field_name("type")?)
        .split_whitespace()
        .collect();
    let local = locals
        .iter()
        .rev()
        .find(|l| l.name == name && l.scope.contains(&f.start_byte()))?;
    let ty: String = local.ty.as_deref()?.split_whitespace().collect();
    // The body must not touch the iterated variable (a modified collection fails differently).
    let body = f.child_by_field_name("body")?;
    if descendants(body)
        .iter()
        .any(|n| n.kind() == "identifier" && p.text(*n) == name)
    {
        return None;
    }
    if let Some(element) = ty.strip_suffix("[]") {
        let fits = match element {
            "int" | "long" | "double" => declared == element,
            e if scope::is_primitive_type(e) => false,
            e => declared == e || declared == "var",
        };
        return fits.then_some(Site::Array { var, value: name });
    }
    let (raw, args) = ty.split_once('<')?;
    let element = args.strip_suffix('>')?;
    if !sdk::java::COLLECTIONS.contains(&raw) || element.contains(['<', ',', '?']) {
        return None;
    }
    (declared == element || declared == "var").then_some(Site::Collection { var, value: name })
}

/// Whether the loop's body can become a lambda body in place.
fn body_is_liftable(
    p: &JavaParsed,
    f: Node<'_>,
    body: Node<'_>,
    locals: &[scope::Local<'_>],
    throwing: &[String],
) -> bool {
    const BLOCKING: &[&str] = &[
        "break_statement",
        "continue_statement",
        "return_statement",
        "yield_statement",
        "lambda_expression",
        "class_body",
        "labeled_statement",
        "local_class_declaration",
        "explicit_constructor_invocation",
    ];
    let inner = descendants(body);
    if inner.iter().any(|n| BLOCKING.contains(&n.kind())) {
        return false;
    }
    // Inside a method, constructor or lambda body (not a field initialiser or initialiser block).
    let Some(owner) = sdk::java::enclosing(
        f,
        &[
            "method_declaration",
            "constructor_declaration",
            "lambda_expression",
        ],
    ) else {
        return false;
    };
    if owner.kind() == "lambda_expression" {
        return false;
    }
    // Locals of the method read in the body must be effectively final, and none assigned.
    for l in locals {
        let declared_outside = !inside(l.decl, body);
        if !declared_outside || !l.scope.contains(&f.start_byte()) || l.decl.id() == counter_id(f) {
            continue;
        }
        let used = inner.iter().any(|n| {
            n.kind() == "identifier" && p.text(*n) == l.name && scope::is_variable_position(*n)
        });
        if !used {
            continue;
        }
        if !effectively_final(p, l) {
            return false;
        }
    }
    // Checked exceptions: none can come from the body when the method declares none and no
    // enclosing `try` catches one; otherwise only calls known to throw none are allowed.
    let declares = owner.child_by_field_name("throws").is_some()
        || named_children(owner).iter().any(|c| c.kind() == "throws");
    let in_try = {
        let mut cur = f.parent();
        let mut found = false;
        while let Some(n) = cur {
            if n.id() == owner.id() {
                break;
            }
            if n.kind() == "try_statement" || n.kind() == "try_with_resources_statement" {
                found = true;
            }
            cur = n.parent();
        }
        found
    };
    if declares || in_try {
        let safe = inner.iter().all(|n| match n.kind() {
            "method_invocation" => n.child_by_field_name("name").is_some_and(|m| {
                let m = p.text(m);
                UNCHECKED_CALLS.contains(&m) && !throwing.iter().any(|t| t == m)
            }),
            "object_creation_expression" => n.child_by_field_name("type").is_some_and(|t| {
                UNCHECKED_NEW.contains(&p.text(t).split('<').next().unwrap_or("").trim())
            }),
            "throw_statement" => false,
            _ => true,
        });
        if !safe {
            return false;
        }
    }
    true
}

/// The id of the counter declared in a `for` header (`usize::MAX` for an enhanced `for`, whose
/// variable is declared in its own header and needs no exemption).
fn counter_id(f: Node<'_>) -> usize {
    f.child_by_field_name("init")
        .and_then(|i| {
            named_children(i)
                .into_iter()
                .find(|c| c.kind() == "variable_declarator")
        })
        .and_then(|d| d.child_by_field_name("name"))
        .map_or(usize::MAX, |n| n.id())
}

/// Whether the local is effectively final by the simple rule: it has a value where it is
/// declared (an initialiser, or it is a parameter or loop variable the program gives a value)
/// and nothing assigns it afterwards.
fn effectively_final(p: &JavaParsed, l: &scope::Local<'_>) -> bool {
    let initialised = match l.kind {
        scope::LocalKind::Variable | scope::LocalKind::ForVariable => l
            .decl
            .parent()
            .is_some_and(|d| d.child_by_field_name("value").is_some()),
        _ => true,
    };
    initialised && scope::references(p, l).is_some_and(|refs| refs.iter().all(|r| !is_assigned(*r)))
}

/// Whether the identifier `r` is written: the left side of an assignment or the operand of
/// `++`/`--`.
fn is_assigned(r: Node<'_>) -> bool {
    let mut n = r;
    // `(x) = 1` and `(x)++` are legal Java.
    while let Some(parent) = n.parent() {
        if parent.kind() != "parenthesized_expression" {
            break;
        }
        n = parent;
    }
    let Some(parent) = n.parent() else {
        return false;
    };
    match parent.kind() {
        "assignment_expression" => parent
            .child_by_field_name("left")
            .is_some_and(|l| l.id() == n.id()),
        "update_expression" => true,
        _ => false,
    }
}

fn inside(n: Node<'_>, outer: Node<'_>) -> bool {
    n.start_byte() >= outer.start_byte() && n.end_byte() <= outer.end_byte()
}

/// Names of the program's methods and constructors that declare `throws`.
fn methods_with_throws(p: &JavaParsed) -> Vec<String> {
    p.nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "method_declaration" | "constructor_declaration"))
        .filter(|n| named_children(*n).iter().any(|c| c.kind() == "throws"))
        .filter_map(|n| n.child_by_field_name("name").map(|x| p.text(x).to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::java_fixture_tests!(apply);

    #[test]
    fn loops_a_lambda_could_not_hold_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                // The body assigns a local of the method.
                "class A { static void g(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; System.out.println(s); } }",
                // It reads a local assigned elsewhere (not effectively final).
                "class A { static void g(int n) { int k = 1; k++; for (int i = 0; i < n; i++) System.out.println(k); } }",
                // break, continue, return.
                "class A { static void g(int n) { for (int i = 0; i < n; i++) { if (i > 2) break; System.out.println(i); } } }",
                "class A { static int g(int n) { for (int i = 0; i < n; i++) { if (i > 2) return i; } return 0; } }",
                // The body moves the counter, the bound is a field or a call, `<=`.
                "class A { static void g(int n) { for (int i = 0; i < n; i++) { System.out.println(i); i++; } } }",
                "class A { static int n = 3; static void g() { for (int i = 0; i < n; i++) System.out.println(i); } }",
                "class A { static void g(java.util.List<Integer> xs) { for (int i = 0; i < xs.size(); i++) System.out.println(i); } }",
                "class A { static void g(int n) { for (int i = 0; i <= n; i++) System.out.println(i); } }",
                // A long bound for an int counter.
                "class A { static void g(long n) { for (int i = 0; i < n; i++) System.out.println(i); } }",
                // Unboxing in the header, a char array, the list used in the body.
                "import java.util.*; class A { static void g(List<Integer> xs) { for (int x : xs) System.out.println(x); } }",
                "class A { static void g(char[] cs) { for (char c : cs) System.out.println(c); } }",
                "import java.util.*; class A { static void g(List<Integer> xs) { for (Integer x : xs) System.out.println(xs.size()); } }",
                // A checked exception could escape the lambda.
                "import java.io.*; class A { static void g(BufferedReader r, int n) throws IOException { for (int i = 0; i < n; i++) System.out.println(r.readLine()); } }",
                // A type of the program's own is called IntStream.
                "class A { static void g(int n) { for (int i = 0; i < n; i++) System.out.println(i); } } class IntStream { }",
                // Labelled loop.
                "class A { static void g(int n) { outer: for (int i = 0; i < n; i++) System.out.println(i); } }",
            ],
            8,
        );
    }

    #[test]
    fn an_import_is_added_once_and_only_when_missing() {
        let src = "import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        for (int i = 0; i < 3; i++) System.out.println(i);\n        for (int j = 0; j < 2; j++) System.out.println(j);\n    }\n}\n";
        let mut seen = false;
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(src, seed) {
                assert_eq!(
                    out.matches("import java.util.stream.IntStream;").count(),
                    1,
                    "{out}"
                );
                assert!(
                    out.starts_with("import java.util.*;\nimport java.util.stream.IntStream;\n"),
                    "{out}"
                );
                seen = true;
            }
        }
        assert!(seen);
        let already = src.replace(
            "import java.util.*;",
            "import java.util.*;\nimport java.util.stream.*;",
        );
        for seed in 0..16 {
            if let Ok(Some(out)) = apply(&already, seed) {
                assert!(!out.contains("import java.util.stream.IntStream;"), "{out}");
            }
        }
    }
}
