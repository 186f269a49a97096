//! ## What it does
//! Writes the type of a local variable as `auto` where the deduced type is certainly the
//! declared one (`int x = 5;` → `auto x = 5;`, `long long s = 0;` → `auto s = 0LL;`,
//! `for (int v : a)` → `for (auto v : a)`), and `auto` as the type it certainly deduces,
//! the other way round.
//!
//! ## Why it preserves semantics
//! `auto` takes the type of its initialiser (with top-level `const` and references dropped;
//! `const`, `static`, `constexpr` and `&` written around it stay), so the variable keeps its
//! type, and with it every conversion, overload and output, exactly when the initialiser's
//! type is the declared one. Only initialisers whose type shows in their syntax count:
//! - a literal: an integer literal of at most `INT_MAX` is `int`, with `U`, `L`, `LL`, `UL`,
//!   `ULL` the type the suffix names; `1.5` is `double`, `1.5f` `float`; `'a'` is `char`;
//!   `true` is `bool`. Where the declared type is another integer type, the literal gets
//!   the suffix that gives it that type (`long long x = 5` → `auto x = 5LL`, since
//!   `auto x = 5` would make `x * 1000000000` overflow `int`); an integer for a `double`
//!   becomes `5.0`;
//! - a string literal for a `string`, which becomes `string("…")` (plain `auto s = "…"`
//!   would be a `const char*`); `vector<T> v(n, x)` becomes `auto v = vector<T>(n, x)` (C++17
//!   elides the copy: the same constructor runs on `v`);
//! - a name that every declaration in the program gives the same plain type (an arithmetic
//!   type, `bool`, `string` or `vector<…>`), declared before the use;
//! - in a range-`for`, the element of a name that every declaration gives one container
//!   type (`vector`, `deque`, `list`, `set`, `array`, `string`, a one-dimensional array).
//!
//! Type names are compared by their text, with builtin spellings (`unsigned` and `unsigned
//! int`) and `typedef`/`using` aliases of builtin types at namespace scope resolved.
//!
//! ## Example
//! ```cpp
//! long long total = 0;
//! for (int v : values) total += v;
//! ```
//! becomes
//! ```cpp
//! auto total = 0LL;
//! for (auto v : values) total += v;
//! ```
//!
//! ## Not applied when
//! - the declaration has several declarators, braces (`int x{5}`, `auto x = {5}`: an
//!   `initializer_list`), a pointer, array or `&&`, or is a global, member or parameter;
//! - the initialiser's type may differ: `char c = 65`, `float f = 1.5` (the double rounded),
//!   a `short` or `size_t` from a literal (no suffix makes one), a literal above `INT_MAX`,
//!   octal or binary literals, a name declared with two types or only after the use, an
//!   arithmetic name declared `const` or by reference;
//! - the loop ranges over a `vector<bool>` (its elements are proxies), a map, or a
//!   container whose declarations disagree; the element type holds a pointer;
//! - `string`, `vector` or a type named at the site is defined by the program (or defined
//!   twice), or the site uses a macro or lies in code a preprocessor conditional guards.

use sdk::cpp::{arithmetic_names, in_conditional, CppParsed};
use sdk::parse::{descendants, named_children};
use sdk::{Edits, Rng};
use std::collections::BTreeMap;
use std::ops::Range;
use tree_sitter::Node;

sdk::declare_cpp_transform! {
    name: "cpp-auto-type",
    description: "Swaps explicit C++ local types for auto where the deduced type is identical, and back",
    category: "naming",
    rewrite: rewrite,
}

/// The largest integer literal accepted: it is an `int`, and fits every suffixed type.
const INT_MAX: u64 = 2_147_483_647;

/// Containers whose range-`for` element is their (first) template argument, and whether
/// their elements are `const` (set iterators are constant).
const CONTAINERS: &[(&str, bool)] = &[
    ("vector", false),
    ("deque", false),
    ("list", false),
    ("array", false),
    ("set", true),
    ("multiset", true),
    ("unordered_set", true),
    ("unordered_multiset", true),
];

/// How a declarator declares its name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Plain,
    /// `&name` (an lvalue reference).
    Ref,
    /// `name[N]` (one dimension).
    Array,
    /// Anything else: pointers, functions, `&&`, several dimensions, names bound without a
    /// written type.
    Other,
}

/// The element a range-`for` over a name yields.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Element {
    /// The element type as written (whitespace collapsed).
    written: String,
    /// The element type as compared (see [`Facts::type_key`]).
    key: String,
    /// Whether the elements are `const` (a `const` container, a set).
    constant: bool,
    /// Whether the elements are `vector<bool>` proxies.
    proxy: bool,
}

/// One declaration of a name.
#[derive(Clone, Debug)]
struct Binding {
    shape: Shape,
    /// The declared type as compared; empty for [`Shape::Other`].
    key: String,
    /// The declared type as written (whitespace collapsed).
    written: String,
    /// `const`, `volatile`, `constexpr` or a storage class.
    qualified: bool,
    element: Option<Element>,
    /// Whether every type name in the declared type is defined at most once.
    resolves: bool,
    start: usize,
}

/// What the whole program says about names and types.
struct Facts<'p> {
    p: &'p CppParsed,
    arithmetic: BTreeMap<String, String>,
    bindings: BTreeMap<String, Vec<Binding>>,
    /// How often the program defines each type name (classes, enums, aliases, template
    /// parameters).
    type_defs: BTreeMap<String, usize>,
    /// Aliases of builtin types at namespace scope, defined once: name → canonical type.
    aliases: BTreeMap<String, String>,
}

/// Whitespace collapsed to single spaces, kept only between two word characters, so that
/// `vector<vector<int> >` and `vector<vector<int>>` compare equal.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for c in text.chars() {
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && out.chars().last().is_some_and(word) && word(c) {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out
}

/// Whitespace collapsed to single spaces: how a type is written back.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The canonical name of a builtin type spelled with keywords (`long unsigned int` →
/// `unsigned long`), or `None` for anything else.
fn builtin(text: &str) -> Option<String> {
    let (mut longs, mut unsigned, mut signed, mut short) = (0, false, false, false);
    let mut base: Option<&str> = None;
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in &words {
        match *w {
            "long" => longs += 1,
            "unsigned" => unsigned = true,
            "signed" => signed = true,
            "short" => short = true,
            "int" | "char" | "double" | "float" | "bool" => {
                if base.replace(w).is_some() {
                    return None;
                }
            }
            // Another single-word builtin (`size_t`, `int64_t`, `wchar_t`…) is itself.
            other
                if words.len() == 1
                    && other.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                return Some(other.to_string())
            }
            _ => return None,
        }
    }
    let sign = unsigned || signed;
    if (unsigned && signed) || longs > 2 || (short && longs > 0) {
        return None;
    }
    Some(match base {
        Some("char") if longs == 0 && !short => match (unsigned, signed) {
            (true, _) => "unsigned char",
            (_, true) => "signed char",
            _ => "char",
        }
        .to_string(),
        Some(b @ ("bool" | "float")) if longs == 0 && !short && !sign => b.to_string(),
        Some("double") if !short && !sign && longs <= 1 => {
            if longs == 1 { "long double" } else { "double" }.to_string()
        }
        Some("int") | None if base.is_some() || sign || short || longs > 0 => {
            let size = match (short, longs) {
                (true, _) => "short",
                (_, 1) => "long",
                (_, 2) => "long long",
                _ => "int",
            };
            if unsigned {
                format!("unsigned {size}")
            } else {
                size.to_string()
            }
        }
        _ => return None,
    })
}

/// How a canonical builtin type is written back (`unsigned int` as plain `unsigned`).
fn spelled(ty: &str) -> &str {
    if ty == "unsigned int" {
        "unsigned"
    } else {
        ty
    }
}

/// The type of an integer or floating literal (`-` allowed in front), when certain: see
/// the crate docs. Returns the type and whether the literal is a plain decimal integer.
fn number_type(text: &str) -> Option<(&'static str, bool)> {
    let body = text.strip_prefix('-').unwrap_or(text).trim_start();
    let digits = body.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = body[digits.len()..].to_ascii_lowercase();
    let lower = digits.to_ascii_lowercase();
    let value = if let Some(hex) = lower.strip_prefix("0x") {
        (!hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(hex, 16).ok())
            .flatten()
    } else if lower == "0" || (lower.chars().all(|c| c.is_ascii_digit()) && !lower.starts_with('0'))
    {
        lower.parse::<u64>().ok()
    } else {
        None
    };
    if let Some(v) = value {
        let ty = match suffix.as_str() {
            "" => "int",
            "u" => "unsigned int",
            "l" => "long",
            "ul" | "lu" => "unsigned long",
            "ll" => "long long",
            "ull" | "llu" => "unsigned long long",
            _ => return None,
        };
        return (v <= INT_MAX).then_some((ty, suffix.is_empty() && !lower.starts_with("0x")));
    }
    // A floating literal: decimal digits with a point or an exponent, one optional suffix.
    let (digits, ty) = match body.chars().last()? {
        'f' | 'F' => (&body[..body.len() - 1], "float"),
        'l' | 'L' => (&body[..body.len() - 1], "long double"),
        _ => (body, "double"),
    };
    let lower = digits.to_ascii_lowercase();
    if lower.starts_with("0x") || !lower.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut prev = ' ';
    for c in lower.chars() {
        let ok =
            c.is_ascii_digit() || c == '.' || c == 'e' || (matches!(c, '+' | '-') && prev == 'e');
        if !ok {
            return None;
        }
        prev = c;
    }
    (lower.contains('.') || lower.contains('e')).then_some((ty, false))
}

/// Whether a character literal is a plain one-byte `char`: one ASCII character or a simple,
/// octal or hexadecimal escape (`'ab'` is an `int`, `u8'a'` a `char8_t`…).
fn is_char_literal(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) else {
        return false;
    };
    let mut chars = inner.chars();
    match (chars.next(), chars.as_str()) {
        (Some(c), "") => c.is_ascii() && !c.is_ascii_control() && c != '\\' && c != '\'',
        (Some('\\'), rest) => {
            let mut r = rest.chars();
            match (r.next(), r.as_str()) {
                (Some(e), "") if "ntrvabf'\"\\?".contains(e) => true,
                (Some('x'), hex) => {
                    (1..=2).contains(&hex.len()) && hex.chars().all(|c| c.is_ascii_hexdigit())
                }
                _ => {
                    (1..=3).contains(&rest.len())
                        && rest.chars().all(|c| c.is_digit(8))
                        && u32::from_str_radix(rest, 8).is_ok_and(|v| v <= 0o377)
                }
            }
        }
        _ => false,
    }
}

/// The suffix that makes a small unsuffixed integer literal the integer type `ty`.
fn int_suffix(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "unsigned int" => "U",
        "long" => "L",
        "unsigned long" => "UL",
        "long long" => "LL",
        "unsigned long long" => "ULL",
        _ => return None,
    })
}

/// The declared name of a declarator and how it is declared.
fn declared_name(d: Node<'_>) -> Option<(Node<'_>, Shape)> {
    let mut n = d;
    let mut wrappers: Vec<Shape> = Vec::new();
    loop {
        match n.kind() {
            "identifier" | "field_identifier" => break,
            "init_declarator" => n = n.child_by_field_name("declarator")?,
            "reference_declarator" => {
                let amp = n.child(0).is_some_and(|c| c.kind() == "&");
                wrappers.push(if amp { Shape::Ref } else { Shape::Other });
                n = n.named_child(u32::try_from(n.named_child_count()).ok()?.checked_sub(1)?)?;
            }
            "array_declarator" => {
                wrappers.push(Shape::Array);
                n = n.child_by_field_name("declarator")?;
            }
            _ => {
                wrappers.push(Shape::Other);
                n = n.child_by_field_name("declarator")?;
            }
        }
    }
    let shape = match wrappers.as_slice() {
        [] => Shape::Plain,
        [only] => *only,
        _ => Shape::Other,
    };
    Some((n, shape))
}

/// Whether the declaration's specifiers besides its type are only `const`, `constexpr` and
/// `static` (`volatile`, `register`, attributes… are left alone).
fn plain_specifiers(p: &CppParsed, decl: Node<'_>) -> bool {
    named_children(decl).iter().all(|c| match c.kind() {
        "type_qualifier" | "storage_class_specifier" => {
            matches!(p.text(*c), "const" | "constexpr" | "static")
        }
        "attribute_declaration" | "attribute_specifier" | "ms_declspec_modifier" => false,
        _ => true,
    })
}

/// Whether `decl` has a `const` or `constexpr` (so a reference to it is to a constant).
fn is_const(p: &CppParsed, decl: Node<'_>) -> bool {
    named_children(decl)
        .iter()
        .any(|c| c.kind() == "type_qualifier" && matches!(p.text(*c), "const" | "constexpr"))
}

/// A template type's name and its template argument list, for `name<…>` or `std::name<…>`.
fn template_parts<'t>(p: &CppParsed, t: Node<'t>) -> Option<(String, Node<'t>)> {
    let t = if t.kind() == "qualified_identifier" {
        let scope = t.child_by_field_name("scope")?;
        if p.text(scope) != "std" {
            return None;
        }
        t.child_by_field_name("name")?
    } else {
        t
    };
    if !matches!(t.kind(), "template_type" | "template_function") {
        return None;
    }
    let name = t.child_by_field_name("name")?;
    let args = t.child_by_field_name("arguments")?;
    Some((p.text(name).to_string(), args))
}

impl<'p> Facts<'p> {
    fn new(p: &'p CppParsed) -> Self {
        let mut f = Facts {
            p,
            arithmetic: arithmetic_names(p),
            bindings: BTreeMap::new(),
            type_defs: BTreeMap::new(),
            aliases: BTreeMap::new(),
        };
        f.collect_type_defs();
        f.collect_aliases();
        f.collect_bindings();
        f
    }

    fn define_type(&mut self, name: &str) {
        *self.type_defs.entry(name.to_string()).or_default() += 1;
    }

    fn collect_type_defs(&mut self) {
        let p = self.p;
        for n in p.nodes() {
            match n.kind() {
                // A definition, not a forward declaration (`struct S;`).
                "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
                    if n.child_by_field_name("body").is_some() =>
                {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.define_type(p.text(name));
                    }
                }
                "type_definition" => {
                    let mut c = n.walk();
                    let ds: Vec<_> = n.children_by_field_name("declarator", &mut c).collect();
                    for d in ds {
                        if let Some(id) = descendants(d)
                            .into_iter()
                            .find(|x| x.kind() == "type_identifier")
                        {
                            self.define_type(p.text(id));
                        }
                    }
                }
                "alias_declaration" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.define_type(p.text(name));
                    }
                }
                "type_parameter_declaration"
                | "optional_type_parameter_declaration"
                | "variadic_type_parameter_declaration"
                | "template_template_parameter_declaration" => {
                    for id in named_children(n) {
                        if id.kind() == "type_identifier" {
                            self.define_type(p.text(id));
                        }
                    }
                    if let Some(name) = n.child_by_field_name("name") {
                        self.define_type(p.text(name));
                    }
                }
                _ => {}
            }
        }
    }

    /// `typedef long long ll;` and `using ll = long long;` at namespace scope.
    fn collect_aliases(&mut self) {
        let p = self.p;
        for n in named_children(p.root()) {
            let (name, ty) = match n.kind() {
                "type_definition" => {
                    let mut c = n.walk();
                    let ds: Vec<_> = n.children_by_field_name("declarator", &mut c).collect();
                    let [d] = ds.as_slice() else { continue };
                    if d.kind() != "type_identifier" {
                        continue;
                    }
                    (*d, n.child_by_field_name("type"))
                }
                "alias_declaration" => {
                    let (Some(name), Some(desc)) =
                        (n.child_by_field_name("name"), n.child_by_field_name("type"))
                    else {
                        continue;
                    };
                    if desc.child_by_field_name("declarator").is_some() {
                        continue;
                    }
                    (name, desc.child_by_field_name("type"))
                }
                _ => continue,
            };
            let Some(ty) = ty else { continue };
            // Qualified aliases (`typedef const int C;`) and macros are not builtin types.
            let qualified = descendants(n).iter().any(|c| c.kind() == "type_qualifier");
            if qualified
                || !matches!(ty.kind(), "primitive_type" | "sized_type_specifier")
                || self.touches_macro(n)
            {
                continue;
            }
            let Some(canonical) = builtin(p.text(ty)) else {
                continue;
            };
            let name = p.text(name).to_string();
            if self.type_defs.get(&name) == Some(&1) {
                self.aliases.insert(name, canonical);
            }
        }
    }

    fn note(&mut self, name: &str, b: Binding) {
        self.bindings.entry(name.to_string()).or_default().push(b);
    }

    fn other(start: usize) -> Binding {
        Binding {
            shape: Shape::Other,
            key: String::new(),
            written: String::new(),
            qualified: true,
            element: None,
            resolves: false,
            start,
        }
    }

    fn collect_bindings(&mut self) {
        let p = self.p;
        for n in p.nodes() {
            match n.kind() {
                "declaration"
                | "parameter_declaration"
                | "optional_parameter_declaration"
                | "field_declaration"
                | "for_range_loop" => {
                    let mut c = n.walk();
                    let ds: Vec<_> = n.children_by_field_name("declarator", &mut c).collect();
                    for d in ds {
                        let Some((id, shape)) = declared_name(d) else {
                            // A declarator without a plain name (`[a, b]`, `S::f()`…): every
                            // name in it is bound some other way.
                            for id in descendants(d) {
                                if id.kind() == "identifier" {
                                    self.note(p.text(id), Self::other(id.start_byte()));
                                }
                            }
                            continue;
                        };
                        let b = self.binding(n, shape, id.start_byte());
                        self.note(p.text(id), b);
                    }
                }
                "enumerator" | "lambda_capture_initializer" | "structured_binding_declarator" => {
                    let ids: Vec<Node<'_>> = match n.kind() {
                        "enumerator" => n.child_by_field_name("name").into_iter().collect(),
                        "lambda_capture_initializer" => {
                            n.child_by_field_name("left").into_iter().collect()
                        }
                        _ => named_children(n),
                    };
                    for id in ids {
                        self.note(p.text(id), Self::other(id.start_byte()));
                    }
                }
                _ => {}
            }
        }
    }

    /// The binding a declaration `decl` gives a name declared with `shape`.
    fn binding(&self, decl: Node<'_>, shape: Shape, start: usize) -> Binding {
        let p = self.p;
        let Some(ty) = decl.child_by_field_name("type") else {
            return Self::other(start);
        };
        if shape == Shape::Other
            || self.touches_macro(ty)
            || ty.kind() == "placeholder_type_specifier"
        {
            return Self::other(start);
        }
        let constant = is_const(p, decl);
        let element = match shape {
            Shape::Array => Some(Element {
                written: collapse(p.text(ty)),
                key: self.type_key(ty),
                constant,
                proxy: false,
            }),
            _ => self.container_element(ty, constant),
        };
        Binding {
            shape,
            key: self.type_key(ty),
            written: collapse(p.text(ty)),
            qualified: named_children(decl)
                .iter()
                .any(|c| matches!(c.kind(), "type_qualifier" | "storage_class_specifier")),
            element,
            resolves: self.types_resolve(ty),
            start,
        }
    }

    /// The element of a container type (`vector<int>`, `std::set<ll>`, `string`).
    fn container_element(&self, ty: Node<'_>, constant: bool) -> Option<Element> {
        let p = self.p;
        if self.is_string_type(ty) {
            return Some(Element {
                written: "char".into(),
                key: "char".into(),
                constant,
                proxy: false,
            });
        }
        let (name, args) = template_parts(p, ty)?;
        let &(_, const_elements) = CONTAINERS.iter().find(|(c, _)| *c == name)?;
        if !self.free_std_name(&name) {
            return None;
        }
        let first = args.named_child(0)?;
        let elem = first.child_by_field_name("type")?;
        // `vector<int*>`, `vector<const int>`: `const auto&` would put the `const` elsewhere.
        if first.kind() != "type_descriptor"
            || first.child_by_field_name("declarator").is_some()
            || named_children(first).len() != 1
            || (name != "array" && args.named_child_count() != 1)
        {
            return None;
        }
        let key = self.type_key(elem);
        Some(Element {
            written: collapse(p.text(first)),
            proxy: name == "vector" && key == "bool",
            key,
            constant: constant || const_elements,
        })
    }

    /// The type as compared: builtin types and aliases of them canonical, others their
    /// normalised text.
    fn type_key(&self, t: Node<'_>) -> String {
        let text = self.p.text(t);
        match t.kind() {
            "primitive_type" | "sized_type_specifier" => {
                builtin(text).unwrap_or_else(|| normalise(text))
            }
            "type_identifier" => self
                .aliases
                .get(text)
                .cloned()
                .unwrap_or_else(|| normalise(text)),
            _ => normalise(text),
        }
    }

    /// Whether a standard name (`string`, `vector`…) surely names the standard entity: the
    /// program neither defines nor declares it.
    fn free_std_name(&self, name: &str) -> bool {
        !self.type_defs.contains_key(name)
            && !self.bindings.contains_key(name)
            && !self.p.macro_names().contains(name)
    }

    /// `string` or `std::string`, the standard one.
    fn is_string_type(&self, t: Node<'_>) -> bool {
        matches!(
            t.kind(),
            "type_identifier" | "qualified_identifier" | "identifier"
        ) && matches!(self.p.text(t), "string" | "std::string")
            && self.free_std_name("string")
    }

    /// `vector<…>` or `std::vector<…>`, the standard one, with no `auto` inside.
    fn is_vector_type(&self, t: Node<'_>) -> bool {
        template_parts(self.p, t).is_some_and(|(name, _)| name == "vector")
            && self.free_std_name("vector")
            && !self.p.text(t).contains("auto")
            && self.types_resolve(t)
    }

    /// Whether every type name in `t` is defined at most once by the program, so that the
    /// same text names the same type wherever it is written.
    fn types_resolve(&self, t: Node<'_>) -> bool {
        descendants(t).iter().all(|n| {
            n.kind() != "type_identifier"
                || self.type_defs.get(self.p.text(*n)).is_none_or(|&c| c <= 1)
        })
    }

    /// Whether `node` names a macro anywhere (types too: `#define ll long long`) or lies in
    /// a directive.
    fn touches_macro(&self, node: Node<'_>) -> bool {
        self.p.uses_macro(node)
            || descendants(node).iter().any(|n| {
                (n.child_count() == 0 || n.kind() == "primitive_type")
                    && self.p.macro_names().contains(self.p.text(*n))
            })
    }

    /// Whether written text names no macro.
    fn text_free_of_macros(&self, text: &str) -> bool {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .all(|w| !self.p.macro_names().contains(w))
    }

    /// The type of a name used as a whole initialiser, when every declaration of it agrees
    /// and one precedes `at`: its key, its written type, and whether it may be `const`.
    fn name_type(&self, name: &str, at: usize) -> Option<(String, String, bool)> {
        let bs = self.bindings.get(name)?;
        let first = bs.first()?;
        if bs.iter().all(|b| b.start >= at)
            || bs
                .iter()
                .any(|b| b.key != first.key || b.shape == Shape::Other || !b.resolves)
        {
            return None;
        }
        if let Some(ty) = self.arithmetic.get(name) {
            // An arithmetic name: plain and unqualified everywhere, as `arithmetic_names`
            // and every other binding form (range-`for` variables…) say.
            let plain = bs.iter().all(|b| b.shape == Shape::Plain && !b.qualified);
            return (plain && builtin(ty).as_deref() == Some(first.key.as_str()))
                .then(|| (first.key.clone(), first.written.clone(), false));
        }
        let accepted = first.key == "bool"
            || matches!(first.key.as_str(), "string" | "std::string")
                && self.free_std_name("string")
            || first.key.starts_with("vector<") && self.free_std_name("vector")
            || first.key.starts_with("std::vector<") && self.free_std_name("vector");
        let shapes = bs
            .iter()
            .all(|b| matches!(b.shape, Shape::Plain | Shape::Ref));
        (accepted && shapes).then(|| {
            let constant = bs.iter().any(|b| b.qualified);
            (first.key.clone(), first.written.clone(), constant)
        })
    }

    /// The element of the container a name ranges over, when every declaration agrees.
    fn element(&self, name: &str) -> Option<Element> {
        let bs = self.bindings.get(name)?;
        let first = bs.first()?;
        let array = first.shape == Shape::Array;
        let mut out = first.element.clone()?;
        for b in bs {
            let e = b.element.as_ref()?;
            if (b.shape == Shape::Array) != array || b.shape == Shape::Other || e.key != out.key {
                return None;
            }
            out.constant |= e.constant;
        }
        Some(out)
    }

    /// Whether an argument of `T v(args)` is certainly an expression (not a parameter
    /// declaration, which would make the whole a function declaration).
    fn certainly_expression(&self, arg: Node<'_>) -> bool {
        match arg.kind() {
            "number_literal"
            | "char_literal"
            | "string_literal"
            | "true"
            | "false"
            | "binary_expression"
            | "field_expression"
            | "subscript_expression" => true,
            "identifier" => {
                let name = self.p.text(arg);
                self.bindings
                    .get(name)
                    .is_some_and(|bs| bs.iter().all(|b| b.shape != Shape::Other))
                    && !self.type_defs.contains_key(name)
            }
            _ => false,
        }
    }
}

/// The literal's type and text, for a number, character or boolean literal.
fn literal(p: &CppParsed, v: Node<'_>) -> Option<(&'static str, String, bool)> {
    let text = p.text(v);
    match v.kind() {
        "number_literal" => number_type(text).map(|(ty, dec)| (ty, text.to_string(), dec)),
        "unary_expression" => {
            let op = v.child_by_field_name("operator")?;
            let arg = v.child_by_field_name("argument")?;
            if p.text(op) != "-" || arg.kind() != "number_literal" || p.text(arg).starts_with('-') {
                return None;
            }
            number_type(p.text(arg)).map(|(ty, dec)| (ty, text.to_string(), dec))
        }
        "char_literal" if is_char_literal(text) => Some(("char", text.to_string(), false)),
        "true" | "false" => Some(("bool", text.to_string(), false)),
        _ => None,
    }
}

/// The literal written so that its type is `ty`, when it can be without changing its value.
fn literal_as(lit_ty: &str, text: &str, plain_decimal: bool, ty: &str) -> Option<String> {
    if lit_ty == ty {
        return Some(text.to_string());
    }
    if lit_ty != "int" {
        return None;
    }
    if let Some(suffix) = int_suffix(ty) {
        // A negative value would change for an unsigned type (and read oddly).
        if ty.starts_with("unsigned") && text.starts_with('-') {
            return None;
        }
        return Some(format!("{text}{suffix}"));
    }
    // A small integer is exactly a double; `5` → `5.0` (not hexadecimal literals). But
    // `-0` is the int 0, while `-0.0` is a negative zero that prints as `-0`.
    let zero = text
        .chars()
        .all(|c| c == '0' || c == '-' || c.is_whitespace());
    (ty == "double" && plain_decimal && !zero).then(|| format!("{text}.0"))
}

/// Whether `value` mentions `name` (an `auto` variable cannot appear in its initialiser).
fn mentions(p: &CppParsed, value: Node<'_>, name: &str) -> bool {
    descendants(value)
        .iter()
        .any(|n| n.kind() == "identifier" && p.text(*n) == name)
}

/// Whether a declaration lies where a local variable is declared: a block (only function
/// bodies have them), a `case`, or the initialiser of a `for`.
fn is_local(d: Node<'_>) -> bool {
    let Some(parent) = d.parent() else {
        return false;
    };
    match parent.kind() {
        "compound_statement" | "case_statement" => true,
        "for_statement" => parent
            .child_by_field_name("initializer")
            .is_some_and(|i| i.id() == d.id()),
        _ => false,
    }
}

type Site = Vec<(Range<usize>, String)>;

/// `T x = e;` ↔ `auto x = e;` (see the crate docs).
fn declaration_site(f: &Facts<'_>, d: Node<'_>) -> Option<Site> {
    let p = f.p;
    if !is_local(d) || in_conditional(d) || f.touches_macro(d) || !plain_specifiers(p, d) {
        return None;
    }
    let constant = is_const(p, d);
    let ty = d.child_by_field_name("type")?;
    let mut c = d.walk();
    let declarators: Vec<_> = d.children_by_field_name("declarator", &mut c).collect();
    let [decl] = declarators.as_slice() else {
        return None;
    };
    if decl.kind() != "init_declarator" {
        return None;
    }
    let (name, shape) = declared_name(*decl)?;
    let value = decl.child_by_field_name("value")?;
    let name_text = p.text(name);
    if !matches!(shape, Shape::Plain | Shape::Ref) || mentions(p, value, name_text) {
        return None;
    }
    let equals = (0..decl.child_count()).any(|i| decl.child(i).is_some_and(|c| c.kind() == "="));
    let is_auto = ty.kind() == "placeholder_type_specifier" && p.text(ty) == "auto";
    let mut site: Site = Vec::new();
    if is_auto {
        if !equals {
            return None;
        }
        // auto → explicit: the type the initialiser certainly has.
        let written = if let Some((lit_ty, _, _)) = literal(p, value) {
            // `auto& r = 5` does not compile; `const auto& r = 5` binds a temporary either way.
            if shape == Shape::Ref && !constant {
                return None;
            }
            spelled(lit_ty).to_string()
        } else if value.kind() == "identifier" {
            let (_, written, source_const) = f.name_type(p.text(value), value.start_byte())?;
            if shape == Shape::Ref && !constant && source_const {
                return None;
            }
            written
        } else if value.kind() == "call_expression" && shape == Shape::Plain {
            let func = value.child_by_field_name("function")?;
            let args = value.child_by_field_name("arguments")?;
            if f.is_string_type(func) {
                // `auto s = string("x")` → `string s = "x"`: copy-initialisation from the
                // literal runs the same constructor.
                let lits = named_children(args);
                if let [lit] = lits.as_slice() {
                    if lit.kind() == "string_literal" && p.text(*lit).starts_with('"') {
                        site.push((value.byte_range(), p.text(*lit).to_string()));
                    }
                }
            } else if !f.is_vector_type(func) {
                return None;
            }
            collapse(p.text(func))
        } else {
            return None;
        };
        if !f.text_free_of_macros(&written) {
            return None;
        }
        site.push((ty.byte_range(), written));
        return Some(site);
    }
    // explicit → auto.
    let key = f.type_key(ty);
    if !f.types_resolve(ty) {
        return None;
    }
    if !equals {
        // `vector<int> v(n, 0);` → `auto v = vector<int>(n, 0);`
        let class = f.is_vector_type(ty) || f.is_string_type(ty);
        if !class || shape != Shape::Plain || value.kind() != "argument_list" {
            return None;
        }
        if !named_children(value)
            .iter()
            .any(|a| f.certainly_expression(*a))
        {
            return None;
        }
        site.push((
            name.end_byte()..value.end_byte(),
            format!(" = {}{}", p.text(ty), p.text(value)),
        ));
    } else if let Some((lit_ty, text, plain_decimal)) = literal(p, value) {
        if shape == Shape::Ref && !constant {
            return None;
        }
        let new = literal_as(lit_ty, &text, plain_decimal, &key)?;
        if new != text {
            site.push((value.byte_range(), new));
        }
    } else if value.kind() == "string_literal" && p.text(value).starts_with('"') {
        if !f.is_string_type(ty) || (shape == Shape::Ref && !constant) {
            return None;
        }
        site.push((
            value.byte_range(),
            format!("{}({})", p.text(ty), p.text(value)),
        ));
    } else if value.kind() == "identifier" {
        let (name_key, _, source_const) = f.name_type(p.text(value), value.start_byte())?;
        if name_key != key || (shape == Shape::Ref && !constant && source_const) {
            return None;
        }
    } else if value.kind() == "call_expression" && shape == Shape::Plain {
        // `vector<int> v = vector<int>(n);` → `auto v = vector<int>(n);`
        let func = value.child_by_field_name("function")?;
        let class = f.is_vector_type(ty) || f.is_string_type(ty);
        if !class || normalise(p.text(func)) != normalise(p.text(ty)) {
            return None;
        }
    } else {
        return None;
    }
    if !f.text_free_of_macros("auto") {
        return None;
    }
    site.push((ty.byte_range(), "auto".to_string()));
    Some(site)
}

/// `for (T x : v)` ↔ `for (auto x : v)` (see the crate docs).
fn range_for_site(f: &Facts<'_>, l: Node<'_>) -> Option<Site> {
    let p = f.p;
    let (ty, decl, right) = (
        l.child_by_field_name("type")?,
        l.child_by_field_name("declarator")?,
        l.child_by_field_name("right")?,
    );
    if in_conditional(l) || [ty, decl, right].iter().any(|n| f.touches_macro(*n)) {
        return None;
    }
    // Only `const` around the type, and no C++20 init-statement.
    let body = l.child_by_field_name("body");
    let parts = [Some(ty), Some(decl), Some(right), body];
    let plain = named_children(l).iter().all(|c| {
        (c.kind() == "type_qualifier" && p.text(*c) == "const")
            || parts.iter().flatten().any(|x| x.id() == c.id())
    });
    if !plain {
        return None;
    }
    let constant = is_const(p, l);
    let (_, shape) = declared_name(decl)?;
    if !matches!(shape, Shape::Plain | Shape::Ref) || right.kind() != "identifier" {
        return None;
    }
    let element = f.element(p.text(right))?;
    // A non-const reference to a constant element would be `const T&`, not `T&`.
    if element.proxy || (shape == Shape::Ref && !constant && element.constant) {
        return None;
    }
    if ty.kind() == "placeholder_type_specifier" && p.text(ty) == "auto" {
        if !f.text_free_of_macros(&element.written) {
            return None;
        }
        return Some(vec![(ty.byte_range(), element.written)]);
    }
    (f.types_resolve(ty) && f.type_key(ty) == element.key)
        .then(|| vec![(ty.byte_range(), "auto".to_string())])
}

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let facts = Facts::new(p);
    let mut sites: Vec<Site> = Vec::new();
    for n in p.nodes() {
        let site = match n.kind() {
            "declaration" => declaration_site(&facts, n),
            "for_range_loop" => range_for_site(&facts, n),
            _ => None,
        };
        sites.extend(site);
    }
    for i in rng.sites(sites.len(), 0.5) {
        let site = &sites[i];
        if site.iter().any(|(r, _)| edits.overlaps(r)) {
            continue;
        }
        for (range, text) in site {
            edits.replace(range.clone(), text.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn uncertain_types_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                // Several declarators, braces, an initializer_list.
                "int main() { int a = 1, b = 2; int x{5}; auto y{6}; auto z = {7}; return a + b + x + y; }\n",
                // A char from an int, a float from a double, literals whose type is not int.
                "int main() { char c = 65; float f = 0.1; short s = 5; long long big = 3000000000; int o = 010; int h = 0x80000000; double z = -0; unsigned u = -1; auto w = 'ab'; auto v = u8'a'; return c + f + s + big + o + h + z + u + w + v; }\n",
                "#include <cstddef>\nint main() { std::size_t n = 5; size_t m = 6; long long x = 5u; double d = 0x10; return n + m + x + d; }\n",
                // vector<bool> elements are proxies; a set's elements are const.
                "#include <set>\n#include <vector>\nusing namespace std;\nint main() { vector<bool> vb{true, false}; set<int> s{1}; int t = s.size(); for (bool b : vb) t += b; for (auto& b : vb) b = !b; for (auto& e : s) t += e; for (long long e : s) t += e; return t; }\n",
                // A name with two types, and one declared only after its use.
                "long long f(long long x) { return x; }\nint main() { int x = f(2); int y = x; auto z = x; return y + z; }\n",
                "struct S { int get() { int v = w; return v; } int w; };\nint main() { S s{}; return s.get(); }\n",
                // Macro-typed declarations, and `int` itself a macro.
                "#define ll long long\nint main() { ll x = 5; for (ll i = 0; i < 3; i++) x += i; return x > 0; }\n",
                "#define int long long\nsigned main() { auto v = 5; auto w = v; return v + w; }\n",
                // Preprocessor conditionals, globals, pointers and arrays.
                "int g = 5;\nint main() {\n#ifdef LOCAL\n    int x = 1;\n    g += x;\n#endif\n    int* p = &g; int a[3] = {1, 2, 3}; return *p + a[0]; }\n",
                // A user `string`, a vexing parse, an `auto` that names itself.
                "struct string { string(const char*) {} };\nint main() { string s = \"x\"; auto t = string(\"y\"); return 0; }\n",
                "#include <vector>\ntypedef int n;\nint main() { std::vector<int> v(n); return 0; }\n",
                // Template parameters defined twice: `T` may name different types.
                "#include <vector>\ntemplate <class T> int f(std::vector<T> v) { for (T x : v) return 1; return 0; }\ntemplate <class T> T g(T v) { return v; }\nint main() { return f(std::vector<int>{1}); }\n",
            ],
            8,
        );
    }
}
