//! ## What it does
//! Removes `using namespace std;` and writes every standard-library name the program uses
//! with its namespace (or, keeping the directive, some of them): `vector<int> v; sort(v.begin(), v.end()); cout << v[0] << endl;`
//! becomes `std::vector<int> v; std::sort(…); std::cout << v[0] << std::endl;`.
//!
//! ## Why it preserves semantics
//! A using-directive makes the names of `std` visible as if they were declared in the global
//! namespace; qualifying each use names the same entity explicitly. Overload sets stay the
//! same: the C library functions a program may call unqualified (`printf`, `memset`) are
//! left as they are (they are declared in the global namespace too), and the `std` overloads
//! of `abs`, `sqrt`, `max` and the like are what unqualified lookup found through the
//! directive. Argument-dependent lookup, which `std::` turns off for a call, finds nothing
//! more for a program that declares no function of the same name. So the rewrite is only made
//! when every name the program uses unqualified is either declared by the program itself, a
//! known C library name, or a known `std` name that the program never declares (a local
//! variable called `count` or a function called `max` blocks the rewrite), and when no macro
//! body names a `std` name (a macro expands where the directive no longer applies).
//!
//! ## Example
//! ```cpp
//! using namespace std;
//! int main() { string s; cin >> s; cout << s.size() << endl; }
//! ```
//! becomes
//! ```cpp
//! int main() { std::string s; std::cin >> s; std::cout << s.size() << std::endl; }
//! ```
//!
//! ## Not applied when
//! - the program has no `using namespace std;` at file scope, or more than one;
//! - it uses a name this transform does not know (it could come from `std` or elsewhere);
//! - it declares a name that `std` also has and the program uses, or a macro body uses one;
//! - the directive or a use lies in code a preprocessor conditional guards.

use sdk::cpp::{in_conditional, in_directive, CppParsed};
use sdk::parse::descendants;
use sdk::{Edits, Rng};
use std::collections::BTreeSet;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-std-qualify",
    description: "Removes using namespace std and qualifies the standard names a C++ program uses",
    category: "naming",
    rewrite: rewrite,
}

/// Names of `std` this transform qualifies.
const STD_NAMES: &[&str] = &[
    "cin",
    "cout",
    "cerr",
    "clog",
    "endl",
    "flush",
    "string",
    "wstring",
    "vector",
    "map",
    "multimap",
    "set",
    "multiset",
    "unordered_map",
    "unordered_set",
    "pair",
    "make_pair",
    "tuple",
    "make_tuple",
    "tie",
    "get",
    "sort",
    "stable_sort",
    "reverse",
    "max",
    "min",
    "minmax",
    "swap",
    "abs",
    "fabs",
    "sqrt",
    "cbrt",
    "pow",
    "floor",
    "ceil",
    "round",
    "log",
    "log2",
    "log10",
    "exp",
    "hypot",
    "max_element",
    "min_element",
    "accumulate",
    "fill",
    "fill_n",
    "iota",
    "unique",
    "lower_bound",
    "upper_bound",
    "binary_search",
    "equal_range",
    "next_permutation",
    "prev_permutation",
    "count",
    "count_if",
    "find",
    "find_if",
    "all_of",
    "any_of",
    "none_of",
    "transform",
    "copy",
    "queue",
    "priority_queue",
    "stack",
    "deque",
    "list",
    "bitset",
    "greater",
    "less",
    "array",
    "to_string",
    "stoi",
    "stol",
    "stoll",
    "stoul",
    "stoull",
    "stod",
    "getline",
    "istringstream",
    "ostringstream",
    "stringstream",
    "setprecision",
    "fixed",
    "setw",
    "setfill",
    "gcd",
    "lcm",
    "numeric_limits",
    "ios",
    "ios_base",
    "move",
    "begin",
    "end",
    "distance",
    "advance",
    "prev",
    "next",
    "iter_swap",
    "partial_sum",
    "nth_element",
    "partition",
    "rotate",
    "isdigit",
    "isalpha",
    "isspace",
    "isupper",
    "islower",
    "isalnum",
    "toupper",
    "tolower",
    "memset",
    "exit",
    "function",
    "optional",
    "nullopt",
    "string_view",
    "hash",
    "make_shared",
    "make_unique",
    "shared_ptr",
    "unique_ptr",
    "back_inserter",
    "inserter",
    "istream",
    "ostream",
    "noskipws",
    "boolalpha",
    "scientific",
    "size",
    "empty",
    "swap_ranges",
    "merge",
    "includes",
    "set_union",
    "set_intersection",
    "set_difference",
    "remove",
    "remove_if",
    "replace",
    "shuffle",
    "mt19937",
    "mt19937_64",
    "uniform_int_distribution",
    "random_device",
    "chrono",
    "priority_queue",
    "complex",
    "valarray",
    "atan2",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "fmod",
    "trunc",
    "llround",
    "lround",
];

/// Names a program may use unqualified that are not (only) in `std`: the C library's
/// functions, objects and macros, left as written.
const C_NAMES: &[&str] = &[
    "printf",
    "scanf",
    "puts",
    "gets",
    "getchar",
    "putchar",
    "fgets",
    "fputs",
    "fprintf",
    "fscanf",
    "sprintf",
    "snprintf",
    "sscanf",
    "stdin",
    "stdout",
    "stderr",
    "EOF",
    "NULL",
    "memcpy",
    "memmove",
    "memcmp",
    "strlen",
    "strcmp",
    "strncmp",
    "strcpy",
    "strncpy",
    "strcat",
    "strchr",
    "strstr",
    "atoi",
    "atol",
    "atoll",
    "atof",
    "malloc",
    "calloc",
    "free",
    "qsort",
    "rand",
    "srand",
    "time",
    "clock",
    "INT_MAX",
    "INT_MIN",
    "LLONG_MAX",
    "LLONG_MIN",
    "ULLONG_MAX",
    "UINT_MAX",
    "LONG_MAX",
    "LONG_MIN",
    "SHRT_MAX",
    "CHAR_MAX",
    "DBL_MAX",
    "FLT_MAX",
    "M_PI",
    "RAND_MAX",
    "CLOCKS_PER_SEC",
    "assert",
    "errno",
    "freopen",
    "fflush",
    "main",
    "std",
    "__builtin_popcount",
    "__builtin_popcountll",
    "__builtin_clz",
    "__builtin_ctz",
    "__gcd",
    "__lg",
];

/// Whether `n` is already the name of a qualified name: `std::cout`, and through a template's
/// name `std::vector<int>` (whose `vector` names a template type that is the qualified
/// identifier's name).
fn is_qualified(n: Node<'_>) -> bool {
    let is_name_of = |child: Node<'_>, parent: Node<'_>| {
        parent
            .child_by_field_name("name")
            .is_some_and(|x| x.id() == child.id())
    };
    let mut cur = n;
    if let Some(t) = cur.parent().filter(|t| {
        matches!(
            t.kind(),
            "template_type" | "template_function" | "template_method"
        )
    }) {
        if is_name_of(cur, t) {
            cur = t;
        }
    }
    cur.parent()
        .is_some_and(|q| q.kind() == "qualified_identifier" && is_name_of(cur, q))
}

/// The name a declarator declares (`x` in `x`, `x = 1`, `*x`, `&x`, `x[3]`, `f(int)`).
fn declared_name(d: Node<'_>) -> Option<Node<'_>> {
    match d.kind() {
        "identifier" | "type_identifier" | "field_identifier" => Some(d),
        "init_declarator"
        | "pointer_declarator"
        | "reference_declarator"
        | "array_declarator"
        | "function_declarator" => d
            .child_by_field_name("declarator")
            .or_else(|| {
                let last = d.named_child_count().saturating_sub(1);
                u32::try_from(last).ok().and_then(|i| d.named_child(i))
            })
            .and_then(declared_name),
        _ => None,
    }
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let directives: Vec<_> = p
        .nodes_of_kind("using_declaration")
        .into_iter()
        .filter(|u| p.text(*u).split_whitespace().collect::<String>() == "usingnamespacestd;")
        .collect();
    let [directive] = directives.as_slice() else {
        return edits;
    };
    if directive
        .parent()
        .is_none_or(|x| x.kind() != "translation_unit")
        || in_conditional(*directive)
    {
        return edits;
    }
    // Every name the program declares, in any role.
    let mut declared: BTreeSet<&str> = p.macro_names().iter().map(String::as_str).collect();
    for n in p.nodes() {
        let role = match n.kind() {
            "function_declarator"
            | "init_declarator"
            | "array_declarator"
            | "pointer_declarator"
            | "reference_declarator" => n.child_by_field_name("declarator"),
            "declaration" | "parameter_declaration" | "field_declaration" | "type_definition" => {
                n.child_by_field_name("declarator")
            }
            "struct_specifier"
            | "class_specifier"
            | "enum_specifier"
            | "union_specifier"
            | "alias_declaration"
            | "namespace_definition" => n.child_by_field_name("name"),
            "enumerator" | "type_parameter_declaration" | "labeled_statement" => n.named_child(0),
            "for_range_loop" => n.child_by_field_name("declarator"),
            _ => None,
        };
        if let Some(id) = role.and_then(declared_name) {
            declared.insert(p.text(id));
        }
        if n.kind() == "structured_binding_declarator" || n.kind() == "lambda_capture_specifier" {
            for id in descendants(n)
                .into_iter()
                .filter(|d| d.kind() == "identifier")
            {
                declared.insert(p.text(id));
            }
        }
    }
    let std_names: BTreeSet<&str> = STD_NAMES.iter().copied().collect();
    // A program that declares a name `std` has (a function `max`, a variable `count`) sees
    // another overload set once the directive is gone.
    if declared.iter().any(|d| std_names.contains(d)) {
        return edits;
    }
    // A macro body that names a std name would expand where the directive is gone.
    for d in p
        .nodes()
        .into_iter()
        .filter(|n| n.kind().starts_with("preproc_"))
    {
        let words = p
            .text(d)
            .split(|c: char| !(c.is_alphanumeric() || c == '_'));
        if words.into_iter().any(|w| std_names.contains(w)) && d.kind() != "preproc_include" {
            return edits;
        }
    }
    let mut sites = Vec::new();
    for n in p.nodes() {
        if !matches!(
            n.kind(),
            "identifier" | "type_identifier" | "namespace_identifier"
        ) || n.start_byte() < directive.end_byte()
            || in_directive(n)
        {
            continue;
        }
        let name = p.text(n);
        if is_qualified(n) || declared.contains(name) || C_NAMES.contains(&name) {
            continue;
        }
        if !std_names.contains(name) || in_conditional(n) {
            // A name of unknown origin: leave the program as it is.
            return edits;
        }
        sites.push(n);
    }
    // One `std::` per place, whatever nodes tree-sitter gives one name.
    sites.sort_by_key(|n| n.start_byte());
    sites.dedup_by_key(|n| n.start_byte());
    if sites.is_empty() {
        return edits;
    }
    // Either the directive goes and every use is qualified (qualifying only some would not
    // compile), or it stays and some uses are qualified (both spellings then name the same).
    if rng.chance(0.5) {
        let line_end = p.source[directive.end_byte()..]
            .find('\n')
            .map_or(directive.end_byte(), |k| directive.end_byte() + k + 1);
        let rest = &p.source[directive.end_byte()..line_end];
        let end = if rest.trim().is_empty() {
            line_end
        } else {
            directive.end_byte()
        };
        edits.replace(directive.start_byte()..end, "");
        for n in sites {
            edits.insert(n.start_byte(), "std::");
        }
    } else {
        for i in rng.sites(sites.len(), 0.5) {
            edits.insert(sites[i].start_byte(), "std::");
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn programs_with_names_of_unknown_origin_or_shadowing_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { vector<int> v{1}; cout << accumulate_all(v) << endl; }\n",
                "#include <bits/stdc++.h>\nusing namespace std;\nint count = 3;\nint main() { cout << count << endl; }\n",
                "#include <bits/stdc++.h>\nusing namespace std;\n#define vi vector<int>\nint main() { vi v{1}; cout << v[0] << endl; }\n",
            ],
            8,
        );
    }
}
