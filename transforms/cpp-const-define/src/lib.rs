//! ## What it does
//! Turns a file-scope constant of an arithmetic type, `const int N = 100005;`,
//! `constexpr long long MOD = 1000000007;`, `static const double EPS = 1e-9;`, into an
//! object-like macro with the same type and value: `#define N 100005`,
//! `#define MOD 1000000007LL`, `#define EPS 1e-9`. An initializer that is not one literal of
//! the declared type becomes a cast of the parenthesised initializer:
//! `const int M = 1e5 + 5;` becomes `#define M ((int)(1e5 + 5))`. It also rewrites C
//! programs. The reverse of `cpp-define-const`.
//!
//! ## Why it preserves semantics
//! The preprocessor pastes the macro's body at every later use. The body is a constant of
//! the declared type with the declared value: a literal whose suffix gives it that type
//! (`1000000007LL` is a `long long`, `100005` an `int` because it fits one, `1e-9` a
//! `double`), a negative one in parentheses (`(-5)`), or otherwise `((T)(e))`, the very
//! conversion the initialization made. The initializer holds only literals, operators, casts to
//! arithmetic types and parentheses, so evaluating it at each use gives the value the
//! constant was initialised with, and it is a constant expression wherever the constant was
//! one (array bounds, `case` labels, template arguments). The body is one parenthesised
//! token group, so `2 * M` multiplies the whole value. The integer zero is always written as a
//! cast, which is no null pointer constant, as the constant was not.
//!
//! What a macro cannot give is the object: every use must take the constant's value, not its
//! identity. So each use is followed through parentheses, the branches of `?:`, and
//! `std::max`, `std::min`, `std::clamp` (which return a reference to an argument) to what
//! consumes it, and that must read a value: an operator, an array bound, a subscript, a
//! template argument, a `case` label, `sizeof`, a cast, the initializer of a variable that is
//! no reference, a `return` from a function that returns no reference, or an argument of a
//! call whose parameter is no reference to an arithmetic type (for the program's own
//! functions and lambdas; of library functions, only those that keep no reference to their
//! argument). The name is declared nowhere else (no local, parameter, member or label that a
//! macro would also replace), occurs in no directive, and every later `#include` is declined,
//! so the macro reaches nothing but these uses.
//!
//! ## Example
//! ```cpp
//! const int N = 2e5 + 5;
//! constexpr long long MOD = 998244353;
//! long long a[N];
//! ```
//! becomes
//! ```cpp
//! #define N ((int)(2e5 + 5))
//! #define MOD 998244353LL
//! long long a[N];
//! ```
//!
//! ## Not applied when
//! - the declaration is not at file scope, lies in code a preprocessor conditional guards,
//!   declares more than one name, is `volatile`, `extern` or `thread_local`, or its type is not
//!   an arithmetic type spelled with keywords (or a file-scope `typedef`/`using` of one);
//! - the initializer names anything (another constant, a function, `sizeof x`) or is braced;
//! - the declaration shares its line with other code or a `/* */` comment, or continues a
//!   line;
//! - the name is declared again anywhere (a local, a parameter, a member, a function, a
//!   label), is used before the declaration, after `.`, `->` or `::`, or in code a
//!   preprocessor conditional guards;
//! - a use takes the constant's address, binds a reference to it (`const int& r = N;`,
//!   `const int& m = max(N, x);`, a parameter `const int&`, `T&&` or `auto&`, a function
//!   returning a reference, `std::ref`, `std::minmax`, `std::move`), or asks for its declared
//!   type (`decltype(N)`; a program that mentions `typeof` or `_Generic` is declined);
//! - a use is an argument of a function-like macro (which may take its address or spell
//!   it), or lies in a class body or an out-of-class member function of a program where some
//!   class has a base class (a base's member of the same name would win);
//! - the program defines an operator or a constructor with a reference parameter of an
//!   arithmetic or deduced type, or a class with a reference member;
//! - the name, a word of the declaration or of the macro's body is a macro name or occurs in
//!   a directive, or an `#include` follows the declaration.

use sdk::cpp::{in_call_to, in_conditional, mentions_any, CppParsed};
use sdk::parse::{children, descendants, named_children};
use sdk::{Edits, Rng};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-const-define",
    description: "Turns C++ file-scope arithmetic constants into #define macros of the same type and value",
    category: "naming",
    languages: "cpp c",
    rewrite: rewrite,
}

/// What an arithmetic type spelled with keywords lets a literal be written as.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// An integer type a suffixed literal can have: the suffix, and the largest value a
    /// literal of that suffix surely has that type for (`long` taken as 32 bits).
    Int { suffix: &'static str, max: u128 },
    /// A floating type: the suffix of its literals (`""`, `"f"`, `"l"`).
    Float { suffix: &'static str },
    /// `bool`, `char`, `short`: written as a cast.
    Other,
}

/// An arithmetic type: its spelling (keywords) and literal kind.
#[derive(Clone, Debug)]
struct Arith {
    spelling: String,
    kind: Kind,
}

/// The arithmetic type spelled by `words` (keywords only), if it is one.
fn arith(words: &[&str]) -> Option<Arith> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for w in words {
        if !matches!(
            *w,
            "long" | "unsigned" | "signed" | "short" | "int" | "char" | "double" | "float" | "bool"
        ) {
            return None;
        }
        *count.entry(*w).or_default() += 1;
    }
    let n = |w: &str| count.get(w).copied().unwrap_or(0);
    let others = |allowed: &[&str]| count.keys().all(|k| allowed.contains(k));
    if words.is_empty()
        || n("long") > 2
        || count.iter().any(|(k, c)| *k != "long" && *c > 1)
        || n("signed") + n("unsigned") > 1
    {
        return None;
    }
    let unsigned = n("unsigned") == 1;
    let kind = if n("bool") == 1 {
        others(&["bool"]).then_some(Kind::Other)?
    } else if n("char") == 1 {
        others(&["char", "signed", "unsigned"]).then_some(Kind::Other)?
    } else if n("float") == 1 {
        others(&["float"]).then_some(Kind::Float { suffix: "f" })?
    } else if n("double") == 1 {
        match (others(&["double", "long"]), n("long")) {
            (true, 0) => Kind::Float { suffix: "" },
            (true, 1) => Kind::Float { suffix: "l" },
            _ => return None,
        }
    } else if n("short") == 1 {
        others(&["short", "int", "signed", "unsigned"]).then_some(Kind::Other)?
    } else {
        let (suffix, max) = match (n("long"), unsigned) {
            (0, false) => ("", i32::MAX as u128),
            (0, true) => ("U", u32::MAX as u128),
            (1, false) => ("L", i32::MAX as u128),
            (1, true) => ("UL", u32::MAX as u128),
            (2, false) => ("LL", i64::MAX as u128),
            _ => ("ULL", u64::MAX as u128),
        };
        Kind::Int { suffix, max }
    };
    Some(Arith {
        spelling: words.join(" "),
        kind,
    })
}

/// The words (identifier-like runs) of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// A number literal: an integer (its digits without suffix, and value) or a floating one
/// (its suffix, lower case).
enum Number<'a> {
    Int { digits: &'a str, value: u128 },
    Float { suffix: &'static str },
}

fn number(text: &str) -> Option<Number<'_>> {
    let lower = text.to_ascii_lowercase();
    let hex = lower.starts_with("0x");
    let floating = !hex && (lower.contains('.') || lower.contains('e'))
        || hex && (lower.contains('.') || lower.contains('p'));
    if floating {
        let (body, suffix) = match lower.chars().last()? {
            'f' if !hex || lower.contains('p') => (&lower[..lower.len() - 1], "f"),
            'l' => (&lower[..lower.len() - 1], "l"),
            _ => (lower.as_str(), ""),
        };
        let ok = body.chars().all(|c| {
            c.is_ascii_digit()
                || matches!(c, '.' | 'e' | '+' | '-' | '\'')
                || hex && (c.is_ascii_hexdigit() || matches!(c, 'x' | 'p'))
        });
        return ok.then_some(Number::Float { suffix });
    }
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    let suffix = &lower[digits.len()..];
    if !matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu") {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '\'').collect();
    let (radix, body) = if let Some(b) = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        (16, b)
    } else if let Some(b) = clean
        .strip_prefix("0b")
        .or_else(|| clean.strip_prefix("0B"))
    {
        (2, b)
    } else if clean.len() > 1 && clean.starts_with('0') {
        (8, &clean[1..])
    } else {
        (10, clean.as_str())
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = u128::from_str_radix(body, radix).ok()?;
    Some(Number::Int { digits, value })
}

/// The literal that has type `kind` and the value of the literal `text` (negated when
/// `negative`), if a literal can: `100005`, `1000000007LL`, `(-5)`, `1e-9`.
fn literal_body(text: &str, negative: bool, kind: Kind) -> Option<String> {
    let body = match (number(text)?, kind) {
        // Zero stays a cast: a literal 0 is a null pointer constant, the constant was not.
        (Number::Int { digits, value }, Kind::Int { suffix, max })
            if value != 0 && value <= max && !(negative && suffix.contains('U')) =>
        {
            format!("{digits}{suffix}")
        }
        (Number::Float { suffix }, Kind::Float { suffix: wanted }) if suffix == wanted => {
            text.to_string()
        }
        _ => return None,
    };
    Some(if negative { format!("(-{body})") } else { body })
}

/// File-scope `typedef`s and `using` aliases declared once: each name's type node.
fn aliases<'t>(p: &'t CppParsed) -> BTreeMap<&'t str, Node<'t>> {
    let mut found: BTreeMap<&str, Vec<Node<'t>>> = BTreeMap::new();
    for n in p.nodes() {
        let (name, ty) = match n.kind() {
            "type_definition" => {
                let mut c = n.walk();
                let ds: Vec<Node<'t>> = n.children_by_field_name("declarator", &mut c).collect();
                match ds.as_slice() {
                    [d] => (Some(*d), n.child_by_field_name("type")),
                    _ => (None, None),
                }
            }
            "alias_declaration" => (n.child_by_field_name("name"), n.child_by_field_name("type")),
            _ => continue,
        };
        let Some(name) = name else { continue };
        let entry = found.entry(p.text(name)).or_default();
        // A second declaration, one not at file scope or a qualified typedef is unknown.
        let plain = n.parent().is_some_and(|x| x.kind() == "translation_unit")
            && !in_conditional(n)
            && name.kind() == "type_identifier"
            && !named_children(n)
                .iter()
                .any(|c| c.kind() == "type_qualifier");
        match ty {
            Some(ty) if plain => entry.push(ty),
            _ => {
                entry.push(name);
                entry.push(name);
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(k, v)| match v.as_slice() {
            [ty] => Some((k, *ty)),
            _ => None,
        })
        .collect()
}

/// What the program declares, for judging where a use of the constant goes.
struct Program<'t> {
    aliases: BTreeMap<&'t str, Node<'t>>,
    /// Parameter lists of the program's functions, methods, constructors and lambdas stored
    /// in variables, by name (`None` for a lambda without one).
    functions: BTreeMap<&'t str, Vec<Option<Node<'t>>>>,
    /// Names declared as variables, parameters or members that are not lambdas.
    variables: BTreeSet<&'t str>,
    classes: BTreeSet<&'t str>,
    template_params: BTreeSet<&'t str>,
    /// Whether some class has a base class.
    derived: bool,
    /// Macros whose body may make a reference or ask for a declared type (`&`, `decltype`,
    /// `auto`), directly or through another such macro.
    suspicious: BTreeSet<String>,
}

/// Macros whose body holds `&`, `decltype`, `typeof` or `auto`, or names such a macro.
fn suspicious_macros(p: &CppParsed) -> BTreeSet<String> {
    let defs: Vec<(&str, &str)> = p
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.kind(), "preproc_def" | "preproc_function_def"))
        .filter_map(|n| {
            Some((
                p.text(n.child_by_field_name("name")?),
                n.child_by_field_name("value").map_or("", |v| p.text(v)),
            ))
        })
        .collect();
    let mut found = BTreeSet::new();
    loop {
        let before = found.len();
        for (name, body) in &defs {
            let bad = body.contains('&')
                || words(body).any(|w| {
                    found.contains(w)
                        || matches!(
                            w,
                            "decltype" | "typeof" | "__typeof__" | "__typeof" | "auto"
                        )
                });
            if bad {
                found.insert(name.to_string());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// The name a declarator declares, looking through pointers, references, arrays and
/// initializers (not through function declarators).
fn declarator_name(d: Node<'_>) -> Option<Node<'_>> {
    match d.kind() {
        "identifier" | "field_identifier" => Some(d),
        "init_declarator" | "pointer_declarator" | "reference_declarator" | "array_declarator" => {
            let inner = d
                .child_by_field_name("declarator")
                .or_else(|| named_children(d).into_iter().last())?;
            declarator_name(inner)
        }
        _ => None,
    }
}

/// The last name of a callee or declarator name: `f`, `std::max`, `max<int>`, `a.f`, `p->f`,
/// `S::S`, `operator+`.
fn last_name<'t>(p: &'t CppParsed, n: Node<'t>) -> Option<&'t str> {
    match n.kind() {
        "identifier" | "field_identifier" | "operator_name" | "type_identifier"
        | "destructor_name" => Some(p.text(n)),
        "qualified_identifier" | "template_function" | "template_method" => {
            last_name(p, n.child_by_field_name("name")?)
        }
        "field_expression" => last_name(p, n.child_by_field_name("field")?),
        _ => None,
    }
}

impl<'t> Program<'t> {
    fn new(p: &'t CppParsed) -> Self {
        let mut functions: BTreeMap<&str, Vec<Option<Node<'t>>>> = BTreeMap::new();
        let mut variables = BTreeSet::new();
        let mut classes = BTreeSet::new();
        let mut template_params = BTreeSet::new();
        let lambda_params = |l: Node<'t>| {
            l.child_by_field_name("declarator")
                .and_then(|d| d.child_by_field_name("parameters"))
        };
        for n in p.nodes() {
            match n.kind() {
                "function_declarator" => {
                    if let Some(name) = n
                        .child_by_field_name("declarator")
                        .and_then(|d| last_name(p, d))
                    {
                        functions
                            .entry(name)
                            .or_default()
                            .push(n.child_by_field_name("parameters"));
                    }
                }
                "declaration"
                | "field_declaration"
                | "parameter_declaration"
                | "optional_parameter_declaration"
                | "for_range_loop" => {
                    let mut c = n.walk();
                    for d in n.children_by_field_name("declarator", &mut c) {
                        let lambda = d
                            .child_by_field_name("value")
                            .filter(|v| v.kind() == "lambda_expression");
                        let Some(name) = declarator_name(d) else {
                            continue;
                        };
                        match lambda {
                            Some(l) if d.kind() == "init_declarator" => functions
                                .entry(p.text(name))
                                .or_default()
                                .push(lambda_params(l)),
                            _ => {
                                variables.insert(p.text(name));
                            }
                        }
                    }
                }
                "assignment_expression" => {
                    if let (Some(left), Some(right)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    ) {
                        if right.kind() == "lambda_expression" {
                            if let Some(name) = last_name(p, left) {
                                functions
                                    .entry(name)
                                    .or_default()
                                    .push(lambda_params(right));
                            }
                        }
                    }
                }
                "struct_specifier" | "class_specifier" | "union_specifier" => {
                    if let (Some(name), Some(_)) =
                        (n.child_by_field_name("name"), n.child_by_field_name("body"))
                    {
                        classes.insert(p.text(name));
                    }
                }
                "type_parameter_declaration"
                | "optional_type_parameter_declaration"
                | "variadic_type_parameter_declaration" => {
                    for c in named_children(n) {
                        if c.kind() == "type_identifier" {
                            template_params.insert(p.text(c));
                        }
                    }
                }
                _ => {}
            }
        }
        Program {
            derived: !p.nodes_of_kind("base_class_clause").is_empty(),
            suspicious: suspicious_macros(p),
            aliases: aliases(p),
            functions,
            variables,
            classes,
            template_params,
        }
    }

    /// The arithmetic type a type node spells, through file-scope aliases.
    fn arith_of(&self, p: &CppParsed, ty: Node<'_>, depth: usize) -> Option<Arith> {
        match ty.kind() {
            "primitive_type" | "sized_type_specifier" => {
                arith(&words(p.text(ty)).collect::<Vec<_>>())
            }
            "type_identifier" if depth < 8 => {
                self.arith_of(p, *self.aliases.get(p.text(ty))?, depth + 1)
            }
            "type_descriptor" if depth < 8 => {
                // Only a bare type: no qualifier, no declarator.
                match named_children(ty).as_slice() {
                    [t] => self.arith_of(p, *t, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether a reference of type `ty` could bind to an arithmetic value: an arithmetic or
    /// deduced type, a template parameter, or a name that may alias one.
    fn may_be_arithmetic(&self, p: &CppParsed, ty: Node<'_>, depth: usize) -> bool {
        match ty.kind() {
            "template_type" => false,
            "type_identifier" => {
                let name = p.text(ty);
                if self.classes.contains(name) {
                    return false;
                }
                match self.aliases.get(name) {
                    Some(t) if depth < 8 => self.may_be_arithmetic(p, *t, depth + 1),
                    Some(_) => true,
                    None => self.template_params.contains(name) || name.ends_with("_t"),
                }
            }
            "type_descriptor" => ty
                .child_by_field_name("type")
                .is_none_or(|t| self.may_be_arithmetic(p, t, depth + 1)),
            "qualified_identifier" => ty
                .child_by_field_name("name")
                .is_none_or(|t| self.may_be_arithmetic(p, t, depth + 1)),
            _ => true,
        }
    }

    /// Whether a parameter is a reference that may bind to the constant itself.
    fn risky_param(&self, p: &CppParsed, param: Node<'_>) -> bool {
        if words(p.text(param)).any(|w| self.suspicious.contains(w)) {
            return true;
        }
        if param.kind() == "variadic_parameter_declaration" {
            return p.text(param).contains('&');
        }
        let reference = param.child_by_field_name("declarator").is_some_and(|d| {
            descendants(d).iter().any(|x| {
                matches!(
                    x.kind(),
                    "reference_declarator" | "abstract_reference_declarator"
                )
            })
        });
        reference
            && param
                .child_by_field_name("type")
                .is_none_or(|t| self.may_be_arithmetic(p, t, 0))
    }

    /// The parameters of a parameter list (no comments, no `...`).
    fn params(list: Node<'_>) -> Vec<Node<'_>> {
        named_children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect()
    }

    /// Whether the program defines an operator or a constructor with a parameter that may
    /// bind to the constant, or a class with a reference member: an operator or conversion
    /// anywhere could then keep a reference to it.
    fn risky(&self, p: &CppParsed) -> bool {
        let functions_risky = self.functions.iter().any(|(name, lists)| {
            (name.starts_with("operator") || self.classes.contains(name))
                && lists
                    .iter()
                    .flatten()
                    .any(|l| Self::params(*l).into_iter().any(|x| self.risky_param(p, x)))
        });
        let reference_member = p.nodes_of_kind("field_declaration").into_iter().any(|f| {
            let mut c = f.walk();
            let found = f.children_by_field_name("declarator", &mut c).any(|d| {
                descendants(d)
                    .iter()
                    .any(|x| x.kind() == "reference_declarator")
            });
            found
        });
        functions_risky || reference_member
    }
}

/// Node kinds that spell a name.
const NAME_KINDS: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "namespace_identifier",
    "statement_identifier",
];

/// Library functions that keep a reference to an argument or see its value category.
const REFERENCE_KEEPERS: &[&str] = &[
    "ref",
    "cref",
    "minmax",
    "forward_as_tuple",
    "tie",
    "addressof",
    "as_const",
    "move",
    "forward",
    "exchange",
    "swap",
    "iter_swap",
    "launder",
    "get",
    "bind",
    "bind_front",
    "invoke",
    "apply",
    "any_cast",
    "reference_wrapper",
    "typeid",
    "declval",
    "const_cast",
    "reinterpret_cast",
    "dynamic_cast",
];

/// Library functions that return a reference to one of their arguments.
const PASS_THROUGH: &[&str] = &["max", "min", "clamp"];

/// The field name under which `child` hangs from `parent`.
fn field_of<'t>(parent: Node<'t>, child: Node<'t>) -> Option<&'t str> {
    let mut c = parent.walk();
    for (i, x) in parent.children(&mut c).enumerate() {
        if x.id() == child.id() {
            return u32::try_from(i)
                .ok()
                .and_then(|i| parent.field_name_for_child(i));
        }
    }
    None
}

/// Whether a declaration `decl` with declarator `declarator` stores a copy of its
/// initializer: no reference, no type deduced with `decltype`, no macro that could hide one.
fn copies(p: &CppParsed, prog: &Program<'_>, decl: Node<'_>, declarator: Node<'_>) -> bool {
    let reference = descendants(declarator).iter().any(|x| {
        matches!(
            x.kind(),
            "reference_declarator" | "abstract_reference_declarator"
        )
    });
    let type_text = decl.child_by_field_name("type").map_or("", |t| p.text(t));
    !reference
        && !type_text.contains('&')
        && !words(type_text).chain(words(p.text(declarator))).any(|w| {
            prog.suspicious.contains(w)
                || matches!(
                    w,
                    "decltype" | "typeof" | "__typeof__" | "__typeof" | "reference_wrapper"
                )
        })
}

/// Whether a `return` at `node` returns a copy: its function returns no reference and does
/// not deduce its type with `decltype`.
fn returns_copy(p: &CppParsed, prog: &Program<'_>, node: Node<'_>) -> bool {
    let bad_return = |t: &str| {
        t.contains('&')
            || words(t).any(|w| {
                prog.suspicious.contains(w) || matches!(w, "decltype" | "typeof" | "__typeof__")
            })
    };
    let mut cur = node.parent();
    while let Some(n) = cur {
        match n.kind() {
            "function_definition" => {
                let Some(d) = n.child_by_field_name("declarator") else {
                    return false;
                };
                let type_text = n.child_by_field_name("type").map_or("", |t| p.text(t));
                return d.kind() == "function_declarator"
                    && !bad_return(type_text)
                    && !words(p.text(d)).any(|w| prog.suspicious.contains(w))
                    && !descendants(d)
                        .iter()
                        .any(|x| x.kind() == "trailing_return_type" && bad_return(p.text(*x)));
            }
            "lambda_expression" => {
                return !n.child_by_field_name("declarator").is_some_and(|d| {
                    named_children(d)
                        .iter()
                        .any(|x| x.kind() == "trailing_return_type" && bad_return(p.text(*x)))
                });
            }
            _ => cur = n.parent(),
        }
    }
    false
}

/// Whether the argument `arg` (a direct child of `list`, an `argument_list`) of a call to
/// `callee` is passed where the constant's identity does not matter. `Err(())` is returned
/// for a pass-through library call, whose result must be followed further.
fn argument_ok(
    p: &CppParsed,
    prog: &Program<'_>,
    callee: Node<'_>,
    list: Node<'_>,
    arg: Node<'_>,
) -> Result<bool, ()> {
    let Some(name) = last_name(p, callee) else {
        return Ok(false);
    };
    if callee.kind() == "template_function" || callee.kind() == "qualified_identifier" {
        // `static_cast<const int&>(N)` and `pair<const int&, int>(N, 1)` keep a reference.
        if p.text(callee).contains('&') || p.text(callee).contains("decltype") {
            return Ok(false);
        }
    }
    if let Some(lists) = prog.functions.get(name) {
        let index = Program::params(list)
            .iter()
            .position(|x| x.id() == arg.id());
        let Some(index) = index else {
            return Ok(false);
        };
        let ok = lists.iter().all(|l| {
            let Some(l) = l else { return true };
            let params = Program::params(*l);
            let at = params.get(index).copied().or_else(|| {
                params
                    .last()
                    .copied()
                    .filter(|x| x.kind() == "variadic_parameter_declaration")
            });
            let variadic = params
                .iter()
                .take(index + 1)
                .any(|x| x.kind() == "variadic_parameter_declaration");
            at.is_none_or(|x| !prog.risky_param(p, x))
                && !(variadic && params.iter().any(|x| prog.risky_param(p, *x)))
        });
        return Ok(ok && !prog.variables.contains(name));
    }
    if prog.variables.contains(name) || REFERENCE_KEEPERS.contains(&name) {
        return Ok(false);
    }
    if PASS_THROUGH.contains(&name) {
        return Err(());
    }
    Ok(true)
}

/// Whether the use `node` of the constant (an identifier, or the `type_descriptor` tree-sitter
/// reads a bare name in template arguments and `sizeof` as) only takes its value.
fn value_use(p: &CppParsed, prog: &Program<'_>, node: Node<'_>) -> bool {
    // No macro in the consuming expression that could hide a `&` or a `decltype`.
    let unhidden = |n: Node<'_>| !words(p.text(n)).any(|w| prog.suspicious.contains(w));
    let mut cur = node;
    loop {
        let Some(parent) = cur.parent() else {
            return false;
        };
        let field = field_of(parent, cur);
        match parent.kind() {
            "parenthesized_expression" | "initializer_list" => {}
            "conditional_expression" if field != Some("condition") => {}
            "comma_expression" if field == Some("right") => {}
            "initializer_pair" if field == Some("value") => {}
            "argument_list" => {
                let Some(owner) = parent.parent() else {
                    return false;
                };
                match owner.kind() {
                    "call_expression" => {
                        let Some(callee) = owner.child_by_field_name("function") else {
                            return false;
                        };
                        match argument_ok(p, prog, callee, parent, cur) {
                            Ok(ok) => return ok,
                            Err(()) => {
                                cur = owner;
                                continue;
                            }
                        }
                    }
                    "init_declarator" => {
                        return owner.parent().is_some_and(|d| copies(p, prog, d, owner));
                    }
                    "new_expression" => {
                        return owner
                            .child_by_field_name("type")
                            .is_some_and(|t| !p.text(t).contains('&'));
                    }
                    _ => return false,
                }
            }
            "init_declarator" => {
                return field == Some("value")
                    && parent.parent().is_some_and(|d| copies(p, prog, d, parent));
            }
            "field_declaration" | "optional_parameter_declaration" => {
                return field == Some("default_value")
                    && parent
                        .child_by_field_name("declarator")
                        .is_none_or(|d| copies(p, prog, parent, d));
            }
            "return_statement" => return returns_copy(p, prog, parent),
            "cast_expression" => {
                return field == Some("value")
                    && parent
                        .child_by_field_name("type")
                        .is_some_and(|t| !p.text(t).contains('&'));
            }
            "compound_literal_expression" => {
                return parent
                    .child_by_field_name("type")
                    .is_some_and(|t| !p.text(t).contains('&'));
            }
            "binary_expression"
            | "unary_expression"
            | "conditional_expression"
            | "comma_expression"
            | "subscript_argument_list"
            | "template_argument_list"
            | "sizeof_expression"
            | "alignof_expression"
            | "new_declarator"
            | "static_assert_declaration"
            | "bitfield_clause" => return unhidden(parent),
            "expression_statement" | "throw_statement" | "for_range_loop" => return unhidden(cur),
            "assignment_expression" => return field == Some("right") && unhidden(parent),
            "subscript_expression" => return field == Some("index") && unhidden(parent),
            "array_declarator" => return field == Some("size") && unhidden(parent),
            "case_statement" | "enumerator" | "condition_clause" => {
                return field == Some("value") && unhidden(cur)
            }
            "for_statement" => {
                return matches!(field, Some("condition" | "update")) && unhidden(cur)
            }
            "while_statement" | "do_statement" | "if_statement" | "switch_statement" => {
                return field == Some("condition") && unhidden(cur)
            }
            _ => return false,
        }
        cur = parent;
    }
}

/// Whether `node` lies in a class body or in a member function defined outside its class
/// (`void S::f() { … }`), where a member of a base class could be what the name means.
fn in_member_scope(node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        match n.kind() {
            "field_declaration_list" => return true,
            "function_definition"
                if n.child_by_field_name("declarator").is_some_and(|d| {
                    descendants(d)
                        .iter()
                        .any(|x| x.kind() == "qualified_identifier")
                }) =>
            {
                return true
            }
            _ => {}
        }
        cur = n.parent();
    }
    false
}

/// Whether the token `tok` (spelling the constant's name, not its declaration) is a use that
/// only takes the constant's value.
fn use_ok(p: &CppParsed, prog: &Program<'_>, tok: Node<'_>) -> bool {
    // A function-like macro may take its argument's address, bind it or spell it.
    if in_conditional(tok)
        || prog.derived && in_member_scope(tok)
        || in_call_to(p, p.macro_names(), tok)
    {
        return false;
    }
    match tok.kind() {
        "identifier" => value_use(p, prog, tok),
        "type_identifier" => {
            let Some(parent) = tok.parent() else {
                return false;
            };
            let Some(owner) = parent.parent() else {
                return false;
            };
            let bare = p.text(parent) == p.text(tok);
            match (parent.kind(), owner.kind()) {
                ("type_descriptor", "template_argument_list" | "sizeof_expression") if bare => {
                    value_use(p, prog, parent)
                }
                // `vector<int> v(N);` reads as a function declaration with a parameter of
                // type `N`; as `N` is no type, it is an object built from `N`.
                ("parameter_declaration", "parameter_list") if bare => {
                    let Some(f) = owner.parent() else {
                        return false;
                    };
                    let Some(decl) = f.parent() else {
                        return false;
                    };
                    f.kind() == "function_declarator"
                        && decl.kind() == "declaration"
                        && field_of(decl, f) == Some("declarator")
                        && copies(p, prog, decl, f)
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// A candidate: the range to replace (from the declaration's line start) and the directive.
struct Site {
    range: Range<usize>,
    text: String,
}

/// The `#define` a file-scope declaration `d` can become, before its uses are looked at:
/// its name node and the site.
fn candidate<'t>(p: &'t CppParsed, prog: &Program<'t>, d: Node<'t>) -> Option<(Node<'t>, Site)> {
    if d.parent()?.kind() != "translation_unit" || in_conditional(d) {
        return None;
    }
    let macros = p.macro_names();
    if words(p.text(d)).any(|w| macros.contains(w)) {
        return None;
    }
    let mut constant = false;
    let mut declarators = 0;
    let mut ty = None;
    for c in children(d) {
        match field_of(d, c) {
            Some("type") => ty = Some(c),
            Some("declarator") => declarators += 1,
            _ => match (c.kind(), p.text(c)) {
                ("type_qualifier", "const" | "constexpr") => constant = true,
                ("storage_class_specifier", "static" | "inline") | (";", _) => {}
                _ => return None,
            },
        }
    }
    let init = d.child_by_field_name("declarator")?;
    if !constant || declarators != 1 || init.kind() != "init_declarator" {
        return None;
    }
    let name = init.child_by_field_name("declarator")?;
    let value = init.child_by_field_name("value")?;
    if name.kind() != "identifier" || p.text(name).starts_with('_') {
        return None;
    }
    let ty = prog.arith_of(p, ty?, 0)?;
    // Only literals, operators, parentheses and casts to arithmetic types; alias names in a
    // cast are written out, so the body means the same wherever it is pasted.
    let mut replaced: Vec<(Range<usize>, String)> = Vec::new();
    for n in descendants(value) {
        match n.kind() {
            "number_literal"
            | "char_literal"
            | "character"
            | "escape_sequence"
            | "true"
            | "false"
            | "parenthesized_expression"
            | "binary_expression"
            | "unary_expression"
            | "conditional_expression"
            | "primitive_type"
            | "sized_type_specifier" => {}
            "cast_expression" => {
                let t = n.child_by_field_name("type")?;
                let a = prog.arith_of(p, t, 0)?;
                replaced.push((t.byte_range(), a.spelling));
            }
            "type_descriptor" | "type_identifier" => {
                // Only as a cast's type, replaced whole above.
                if !replaced
                    .iter()
                    .any(|(r, _)| r.start <= n.start_byte() && n.end_byte() <= r.end)
                {
                    return None;
                }
            }
            _ if !n.is_named() => {}
            _ => return None,
        }
    }
    let mut init_text = String::new();
    let mut at = value.start_byte();
    for (r, s) in &replaced {
        init_text.push_str(p.source.get(at..r.start)?);
        init_text.push_str(s);
        at = r.end;
    }
    init_text.push_str(p.source.get(at..value.end_byte())?);
    if init_text.contains(['\n', '\r', '\\']) {
        return None;
    }
    let literal = match value.kind() {
        // tree-sitter reads `-5` as one number literal.
        "number_literal" => match p.text(value).strip_prefix('-') {
            Some(magnitude) => literal_body(magnitude.trim_start(), true, ty.kind),
            None => literal_body(p.text(value), false, ty.kind),
        },
        "unary_expression"
            if value
                .child_by_field_name("operator")
                .is_some_and(|o| p.text(o) == "-") =>
        {
            value
                .child_by_field_name("argument")
                .filter(|a| a.kind() == "number_literal")
                .and_then(|a| literal_body(p.text(a), true, ty.kind))
        }
        _ => None,
    };
    let body = literal.unwrap_or_else(|| format!("(({})({init_text}))", ty.spelling));
    if words(&body).any(|w| macros.contains(w)) {
        return None;
    }
    // The directive takes the declaration's line(s) alone; a `//` comment may follow it.
    let src = p.source.as_str();
    let start = sdk::text::line_start(src, d.start_byte());
    let rest = src.get(d.end_byte()..sdk::text::line_end(src, d.end_byte()))?;
    let rest = rest.trim();
    if !sdk::text::starts_line(src, d.start_byte())
        || sdk::text::continues_previous_line(src, d.start_byte())
        || !(rest.is_empty() || rest.starts_with("//") && !rest.ends_with('\\'))
    {
        return None;
    }
    Some((
        name,
        Site {
            range: start..d.end_byte(),
            text: format!("#define {} {body}", p.text(name)),
        },
    ))
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if mentions_any(
        p,
        &[
            "typeof",
            "__typeof__",
            "__typeof",
            "_Generic",
            "__auto_type",
        ],
    ) {
        return edits;
    }
    let prog = Program::new(p);
    if prog.risky(p) {
        return edits;
    }
    let blocked = p.blocked_words();
    let mut tokens: BTreeMap<&str, Vec<Node<'_>>> = BTreeMap::new();
    for n in p.nodes() {
        if NAME_KINDS.contains(&n.kind()) {
            tokens.entry(p.text(n)).or_default().push(n);
        }
    }
    let last_include = p
        .nodes_of_kind("preproc_include")
        .last()
        .map_or(0, |n| n.start_byte());
    let mut sites = Vec::new();
    for d in p.nodes_of_kind("declaration") {
        let Some((name, site)) = candidate(p, &prog, d) else {
            continue;
        };
        let text = p.text(name);
        if blocked.contains(text) || p.macro_names().contains(text) || last_include > d.start_byte()
        {
            continue;
        }
        let uses = tokens.get(text).map_or(&[][..], Vec::as_slice);
        let all_values = uses
            .iter()
            .all(|u| u.id() == name.id() || u.start_byte() > d.end_byte() && use_ok(p, &prog, *u));
        if all_values {
            sites.push(site);
        }
    }
    for i in rng.sites(sites.len(), 0.5) {
        if let Some(site) = sites.get(i) {
            edits.replace(site.range.clone(), site.text.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);
    sdk::c_fixture_tests!(apply);

    #[test]
    fn values_keep_their_type_and_precedence() {
        let cases = [
            ("const int N = 100005;", "#define N 100005"),
            (
                "const long long MOD = 1000000007;",
                "#define MOD 1000000007LL",
            ),
            ("constexpr int K = 1 << 20;", "#define K ((int)(1 << 20))"),
            ("static const double EPS = 1e-9;", "#define EPS 1e-9"),
            ("const int M = 1e5 + 5;", "#define M ((int)(1e5 + 5))"),
            ("const int NEG = -5;", "#define NEG (-5)"),
            ("const unsigned U = 7;", "#define U 7U"),
            ("const float F = 0.1;", "#define F ((float)(0.1))"),
            (
                "const long double L = 0.1;",
                "#define L ((long double)(0.1))",
            ),
            ("const int Z = 0;", "#define Z ((int)(0))"),
            (
                "const int BIG = 3000000000;",
                "#define BIG ((int)(3000000000))",
            ),
            ("const char C = 'a';", "#define C ((char)('a'))"),
            (
                "typedef long long ll;\nconst ll INF = (ll)1e18;",
                "#define INF ((long long)((long long)1e18))",
            ),
        ];
        for (decl, define) in cases {
            let src = format!("{decl}\nint main() {{ return (int)(2 * {}); }}\n", {
                let name = define.split(' ').nth(1).unwrap_or("");
                name.to_string()
            });
            let out = super::apply(&src, 0);
            let Ok(Some(out)) = out else {
                panic!("not applied to {decl}: {out:?}");
            };
            assert!(out.contains(define), "{decl}:\n{out}");
        }
    }

    #[test]
    fn fixture_traps_are_kept_for_every_seed() {
        let src = include_str!("../fixtures/constants.cpp");
        let traps: Vec<&str> = src
            .lines()
            .skip_while(|l| !l.starts_with("// Traps"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(traps.len() > 10);
        for seed in 0..16 {
            let Ok(Some(out)) = apply(src, seed) else {
                panic!("seed {seed}: the fixture is rewritten");
            };
            for t in &traps {
                assert!(out.contains(t), "seed {seed}: {t} was rewritten:\n{out}");
            }
        }
    }

    #[test]
    fn traps_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                // A local, a parameter, a member, a template parameter or a label of the name.
                "const int N = 5;\nint main() { int N = 3; return N; }\n",
                "const int N = 5;\nint g(int N) { return N; }\nint main() { return g(N); }\n",
                "const int N = 5;\nstruct S { int N; };\nint main() { S s{N}; return s.N; }\n",
                "const int N = 5;\ntemplate <int N> int g() { return N; }\nint main() { return g<3>() + N; }\n",
                "const int N = 5;\nint main() { goto N; N: return N; }\n",
                // The constant's identity: its address, a reference to it, its declared type.
                "const int N = 5;\nint main() { const int* p = &N; return *p; }\n",
                "const int N = 5;\nint main() { const int& r = N; return r; }\n",
                "const int N = 5;\nint main() { auto&& r = (N); return r; }\n",
                "#include <algorithm>\nconst int N = 5;\nint main() { int x = 3; const int& m = std::max(N, x); return m; }\n",
                "#include <algorithm>\nconst int N = 5;\nint main() { int x = 3; const int* p = &std::min(N, x); return *p; }\n",
                "const int N = 5;\nint main() { decltype(N) t = 1; return t; }\n",
                "const int N = 5;\nint main() { return (int)sizeof(__typeof__(N)); }\n",
                "const int N = 5;\nint g(const int& v) { return v; }\nint main() { return g(N); }\n",
                "template <class T> int h(T&& x) { return x; }\nconst int N = 5;\nint main() { return h(N); }\n",
                "const int N = 5;\nint main() { auto g = [](const auto& v) { return v; }; return g(N); }\n",
                "const int N = 5;\nconst int& get() { return N; }\nint main() { return get(); }\n",
                "const int N = 5;\ndecltype(auto) get() { return (N); }\nint main() { return get(); }\n",
                "const int N = 5;\nint main() { auto f = [&r = N]() { return r; }; return f(); }\n",
                "#include <functional>\nconst int N = 5;\nint main() { auto r = std::cref(N); return r.get(); }\n",
                "#include <utility>\nconst int N = 5;\nint main() { int&& r = std::move(N) + 0; return r; }\n",
                "#define CREF const int&\nconst int N = 5;\nint main() { CREF r = N; return r; }\n",
                "struct M { int v; };\nM operator+(M a, const int& b) { return {a.v + b}; }\nconst int N = 5;\nint main() { M m{1}; return (m + N).v; }\n",
                "struct R { const int& r; };\nconst int N = 5;\nint main() { R x{N}; return x.r; }\n",
                // After `::`, in a derived class, in a directive or a macro's arguments.
                "const int N = 5;\nint main() { return ::N; }\n",
                "#include <vector>\nconst int N = 5;\nstruct V : std::vector<int> { int get() { return N; } };\nint main() { V v; return v.get(); }\n",
                "#include <vector>\nconst int N = 5;\nstruct V : std::vector<int> { int get(); };\nint V::get() { return N; }\nint main() { V v; return v.get(); }\n",
                "const int N = 5;\n#define TWICE (N * 2)\nint main() { return TWICE; }\n",
                "const int N = 5;\n#if N > 3\nint big = 1;\n#endif\nint main() { return N; }\n",
                "#define STR(x) #x\n#define XSTR(x) STR(x)\nconst int N = 5;\nint main() { return sizeof(XSTR(N)); }\n",
                "#define ID(x) x\nconst int N = 5;\nint main() { return ID(N); }\n",
                "const int N = 5;\n#include <cstdio>\nint main() { printf(\"%d\\n\", N); }\n",
                // Declarations that are not one plain constant.
                "const int A = 1, B = 2;\nint main() { return A + B; }\n",
                "int g() { return 3; }\nconst int N = g();\nint main() { return N; }\n",
                "const int K = 5;\nconst int N = K + 1;\nint main() { return N + K * 0 + (&K == nullptr); }\n",
                "const int N{5};\nint main() { return N; }\n",
                "const int N = 5; int x = N;\nint main() { return x; }\n",
                "const int N = 5; /* five\n */\nint main() { return N; }\n",
                "volatile const int N = 5;\nint main() { return N; }\n",
                "extern const int N = 5;\nint main() { return N; }\n",
                "int n = 5;\nint main() { return n; }\n",
                "const char* const S = \"x\";\nint main() { return S[0]; }\n",
                "namespace a { const int N = 5; }\nint main() { return a::N; }\n",
                "int main() { const int N = 5; return N; }\n",
                "#ifdef X\nconst int N = 5;\n#else\nconst int N = 6;\n#endif\nint main() { return N; }\n",
                "#define int long long\nconst int N = 5;\nsigned main() { return N; }\n",
                "#define ll long long\nconst ll N = 5;\nint main() { return N; }\n",
            ],
            8,
        );
    }
}
