//! Local type facts: the builtin type a name or expression is proved to have from the program
//! text alone.
//!
//! A name of a function scope has a known type when every binding of it assigns a value of
//! that type (a literal, `int()`/`len()`/`str()`…, a `range` loop variable, arithmetic on known
//! ints…) and nothing else can rebind it: no `del`, no `with … as`/`except … as`/import/def
//! binding, no unpacking, no dynamic or introspected scope, and no ambiguous class-body read.
//! Names of the module and of class bodies are never known (importers and attribute writes
//! can rebind them). Unknown is the default; SPTs that need a type decline on unknown.
//!
//! The facts are the greatest fixpoint of the binding rules: all candidate names start with
//! the type their bindings suggest and lose it as soon as one binding does not prove it. This
//! is sound because every value ever stored in the name comes from one of those bindings, each
//! computed from names whose facts hold by the same argument (induction over execution).
//!
//! "Known `int`" means an instance of `int`'s own operations: a subclass of `int` returned by
//! a user's `__int__`/`__index__` is not considered (CPython deprecates returning one).

use crate::parse::{named_children, Parsed};
use crate::pyast::{int_literal, is_builtin_ref};
use crate::scope::{BindKind, BindingKey, Role, ScopeInfo, ScopeKind};
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

/// A builtin type a value is proved to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PyType {
    /// `int` (not `bool`).
    Int,
    /// `bool`.
    Bool,
    /// `str`.
    Str,
    /// `float`.
    Float,
    /// `list`.
    List,
    /// `dict`.
    Dict,
    /// `set`.
    Set,
    /// `tuple`.
    Tuple,
}

impl PyType {
    /// Whether values of this type never change in place (`x += y` rebinds `x`).
    pub fn is_immutable(self) -> bool {
        matches!(
            self,
            PyType::Int | PyType::Bool | PyType::Str | PyType::Float | PyType::Tuple
        )
    }

    /// `int` or `bool` (a `bool` behaves as the int 0 or 1 in arithmetic).
    fn is_integral(self) -> bool {
        matches!(self, PyType::Int | PyType::Bool)
    }
}

/// The type facts of one program.
#[derive(Debug, Clone, Default)]
pub struct TypeFacts {
    known: HashMap<BindingKey, PyType>,
}

impl TypeFacts {
    /// Proves what can be proved about the names of `parsed`'s function scopes.
    pub fn analyze(parsed: &Parsed, info: &ScopeInfo) -> TypeFacts {
        let mut facts = TypeFacts::default();
        if info.introspected {
            return facts;
        }
        // Candidates: bindings of function-like scopes whose every occurrence is a load or a
        // plain binding we can type.
        let mut binds: BTreeMap<BindingKey, Vec<Node<'_>>> = BTreeMap::new();
        let nodes: HashMap<usize, Node<'_>> = parsed
            .nodes_of_kind("identifier")
            .into_iter()
            .map(|n| (n.start_byte(), n))
            .collect();
        'keys: for (key, occs) in info.bindings() {
            let scope = &info.scopes[key.0];
            if !matches!(
                scope.kind,
                ScopeKind::Function | ScopeKind::Lambda | ScopeKind::Comprehension
            ) || info.dynamic_within(key.0)
                || info.ambiguous.contains(&key)
            {
                continue;
            }
            let mut sites = Vec::new();
            for i in occs {
                let occ = &info.occurrences[i];
                match occ.role {
                    Role::Load => {}
                    Role::Bind(BindKind::Assign | BindKind::Comprehension) => {
                        match nodes.get(&occ.range.start) {
                            Some(n) => sites.push(*n),
                            None => continue 'keys,
                        }
                    }
                    _ => continue 'keys,
                }
            }
            if !sites.is_empty() {
                binds.insert(key, sites);
            }
        }
        // Optimistic start: every candidate gets the type of a binding that does not read it,
        // repeated until no candidate gains one (a seed may rest on another name's seed).
        loop {
            let mut grew = false;
            for (key, sites) in &binds {
                if facts.known.contains_key(key) {
                    continue;
                }
                let seed = sites
                    .iter()
                    .find_map(|s| facts.binding_type(parsed, info, *s, key, true));
                if let Some(t) = seed {
                    facts.known.insert(key.clone(), t);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        // Shrink to the greatest fixpoint.
        loop {
            let mut changed = false;
            let mut keys: Vec<BindingKey> = facts.known.keys().cloned().collect();
            keys.sort();
            for key in keys {
                let want = facts.known[&key];
                let ok = binds[&key]
                    .iter()
                    .all(|s| facts.binding_type(parsed, info, *s, &key, false) == Some(want));
                if !ok {
                    facts.known.remove(&key);
                    changed = true;
                }
            }
            if !changed {
                return facts;
            }
        }
    }

    /// The proved type of binding `key`, if any.
    pub fn of_binding(&self, key: &BindingKey) -> Option<PyType> {
        self.known.get(key).copied()
    }

    /// The proved type of the identifier occurrence `node` (through its binding).
    pub fn of_name(&self, info: &ScopeInfo, node: Node<'_>) -> Option<PyType> {
        let i = info.occurrence_at(&node.byte_range())?;
        self.of_binding(info.binding_of(i)?)
    }

    /// The type of the value one binding occurrence (`ident`) stores; `seeding` ignores
    /// bindings that read the name itself (so `i = i + 1` can be proved together with `i = 0`).
    fn binding_type(
        &self,
        parsed: &Parsed,
        info: &ScopeInfo,
        ident: Node<'_>,
        key: &BindingKey,
        seeding: bool,
    ) -> Option<PyType> {
        let parent = ident.parent()?;
        let reads_self = |n: Node<'_>| {
            crate::parse::descendants(n).iter().any(|d| {
                d.kind() == "identifier"
                    && info
                        .occurrence_at(&d.byte_range())
                        .and_then(|i| info.binding_of(i))
                        == Some(key)
            })
        };
        match parent.kind() {
            "assignment" if parent.child_by_field_name("left") == Some(ident) => {
                let right = parent.child_by_field_name("right")?;
                if seeding && reads_self(right) {
                    return None;
                }
                self.of_expr(parsed, info, right)
            }
            "named_expression" if parent.child_by_field_name("name") == Some(ident) => {
                let value = parent.child_by_field_name("value")?;
                if seeding && reads_self(value) {
                    return None;
                }
                self.of_expr(parsed, info, value)
            }
            "augmented_assignment" if parent.child_by_field_name("left") == Some(ident) => {
                if seeding {
                    return None;
                }
                let right = parent.child_by_field_name("right")?;
                let op = parsed.text(parent.child_by_field_name("operator")?);
                let lt = self.of_binding(key)?;
                let rt = self.of_expr(parsed, info, right)?;
                binary_type(parsed, lt, op.trim_end_matches('='), rt, right)
            }
            "for_statement" | "for_in_clause"
                if parent.child_by_field_name("left") == Some(ident) =>
            {
                let right = parent.child_by_field_name("right")?;
                self.element_type(parsed, info, right)
            }
            "pattern_list" | "tuple_pattern" => {
                // `for i, x in enumerate(xs)`: the counter is an int.
                let holder = parent.parent()?;
                if !matches!(holder.kind(), "for_statement" | "for_in_clause")
                    || holder.child_by_field_name("left") != Some(parent)
                    || named_children(parent).first() != Some(&ident)
                    || named_children(parent).len() != 2
                {
                    return None;
                }
                let right = holder.child_by_field_name("right")?;
                let f = right.child_by_field_name("function")?;
                (right.kind() == "call"
                    && parsed.text(f) == "enumerate"
                    && is_builtin_ref(info, f)
                    && simple_args(right).is_some_and(|a| a.len() == 1))
                .then_some(PyType::Int)
            }
            _ => None,
        }
    }

    /// The type of the items iterating over `iterable` yields.
    fn element_type(
        &self,
        parsed: &Parsed,
        info: &ScopeInfo,
        iterable: Node<'_>,
    ) -> Option<PyType> {
        if iterable.kind() == "call" {
            let f = iterable.child_by_field_name("function")?;
            // `range` accepts only integers (through `__index__`) and yields exact ints.
            if parsed.text(f) == "range" && is_builtin_ref(info, f) {
                return Some(PyType::Int);
            }
        }
        (self.of_expr(parsed, info, iterable)? == PyType::Str).then_some(PyType::Str)
    }

    /// The proved type of expression `node`, if any.
    pub fn of_expr(&self, parsed: &Parsed, info: &ScopeInfo, node: Node<'_>) -> Option<PyType> {
        match node.kind() {
            "integer" => Some(PyType::Int),
            "float" => Some(PyType::Float),
            "true" | "false" => Some(PyType::Bool),
            "string" | "concatenated_string" => {
                let t = parsed.text(node);
                let prefix: String = t
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect::<String>()
                    .to_ascii_lowercase();
                (!prefix.contains('b')).then_some(PyType::Str)
            }
            "list" | "list_comprehension" => Some(PyType::List),
            "dictionary" | "dictionary_comprehension" => Some(PyType::Dict),
            "set" | "set_comprehension" => Some(PyType::Set),
            "tuple" => Some(PyType::Tuple),
            "parenthesized_expression" => {
                let inner = named_children(node);
                (inner.len() == 1)
                    .then(|| self.of_expr(parsed, info, inner[0]))
                    .flatten()
            }
            "identifier" => self.of_name(info, node),
            "not_operator" => Some(PyType::Bool),
            "unary_operator" => {
                let op = parsed.text(node.child_by_field_name("operator")?);
                let t = self.of_expr(parsed, info, node.child_by_field_name("argument")?)?;
                match (op, t) {
                    (_, t) if t.is_integral() => Some(PyType::Int),
                    ("-" | "+", PyType::Float) => Some(PyType::Float),
                    _ => None,
                }
            }
            "binary_operator" => {
                let l = node.child_by_field_name("left")?;
                let r = node.child_by_field_name("right")?;
                let op = parsed.text(node.child_by_field_name("operator")?);
                let lt = self.of_expr(parsed, info, l)?;
                let rt = self.of_expr(parsed, info, r)?;
                binary_type(parsed, lt, op, rt, r)
            }
            "comparison_operator" => {
                let src = parsed.source.as_str();
                let operands = named_children(node);
                let identity_or_membership = operands.windows(2).all(|w| {
                    let op = src[w[0].end_byte()..w[1].start_byte()].trim();
                    matches!(op, "in" | "is") || op.starts_with("not") || op.starts_with("is")
                });
                let all_known = operands
                    .iter()
                    .all(|o| self.of_expr(parsed, info, *o).is_some());
                (identity_or_membership || all_known).then_some(PyType::Bool)
            }
            "boolean_operator" => {
                let lt = self.of_expr(parsed, info, node.child_by_field_name("left")?)?;
                let rt = self.of_expr(parsed, info, node.child_by_field_name("right")?)?;
                (lt == rt).then_some(lt)
            }
            "conditional_expression" => {
                let parts = named_children(node);
                if parts.len() != 3 {
                    return None;
                }
                let a = self.of_expr(parsed, info, parts[0])?;
                (self.of_expr(parsed, info, parts[2])? == a).then_some(a)
            }
            "call" => self.call_type(parsed, info, node),
            "subscript" => {
                let value = self.of_expr(parsed, info, node.child_by_field_name("value")?)?;
                let slice = node.child_by_field_name("subscript")?;
                match value {
                    PyType::Str => Some(PyType::Str),
                    PyType::List | PyType::Tuple if slice.kind() == "slice" => Some(value),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn call_type(&self, parsed: &Parsed, info: &ScopeInfo, call: Node<'_>) -> Option<PyType> {
        let f = call.child_by_field_name("function")?;
        let args = simple_args(call)?;
        if f.kind() == "identifier" {
            if !is_builtin_ref(info, f) {
                return None;
            }
            return match parsed.text(f) {
                "int" | "len" | "ord" | "hash" | "id" => Some(PyType::Int),
                "str" | "repr" | "chr" | "hex" | "oct" | "bin" | "ascii" | "format" => {
                    Some(PyType::Str)
                }
                "float" => Some(PyType::Float),
                "bool" | "isinstance" | "callable" | "hasattr" | "any" | "all" => {
                    Some(PyType::Bool)
                }
                "list" | "sorted" => Some(PyType::List),
                "dict" => Some(PyType::Dict),
                "set" => Some(PyType::Set),
                "tuple" => Some(PyType::Tuple),
                "abs" if args.len() == 1 => {
                    let t = self.of_expr(parsed, info, args[0])?;
                    match t {
                        PyType::Float => Some(PyType::Float),
                        t if t.is_integral() => Some(PyType::Int),
                        _ => None,
                    }
                }
                _ => None,
            };
        }
        if f.kind() != "attribute" {
            return None;
        }
        let object = self.of_expr(parsed, info, f.child_by_field_name("object")?)?;
        let method = parsed.text(f.child_by_field_name("attribute")?);
        match (object, method) {
            (
                PyType::Str,
                "upper" | "lower" | "strip" | "lstrip" | "rstrip" | "replace" | "join"
                | "capitalize" | "title" | "swapcase" | "casefold" | "zfill" | "center" | "ljust"
                | "rjust" | "format",
            ) => Some(PyType::Str),
            (PyType::Str, "split" | "rsplit" | "splitlines") => Some(PyType::List),
            (PyType::Str, "find" | "rfind" | "index" | "rindex" | "count") => Some(PyType::Int),
            (
                PyType::Str,
                "startswith" | "endswith" | "isdigit" | "isalpha" | "isalnum" | "isspace"
                | "isupper" | "islower" | "isdecimal" | "isnumeric" | "isidentifier",
            ) => Some(PyType::Bool),
            (PyType::List | PyType::Tuple, "index" | "count") => Some(PyType::Int),
            (PyType::List | PyType::Dict | PyType::Set, "copy") => Some(object),
            _ => None,
        }
    }
}

/// The result type of `lt op rt` for builtin operands, when it is fixed; `right` is the right
/// operand's node (a `**` power is an int only for a non-negative literal exponent).
fn binary_type(
    parsed: &Parsed,
    lt: PyType,
    op: &str,
    rt: PyType,
    right: Node<'_>,
) -> Option<PyType> {
    use PyType::*;
    let integral = lt.is_integral() && rt.is_integral();
    let numeric = |t: PyType| t.is_integral() || t == Float;
    match op {
        "&" | "|" | "^" if lt == Bool && rt == Bool => Some(Bool),
        "+" | "-" | "*" | "//" | "%" | "&" | "|" | "^" | "<<" | ">>" if integral => Some(Int),
        "**" if integral => int_literal(parsed, right).filter(|v| *v >= 0).map(|_| Int),
        "/" if numeric(lt) && numeric(rt) => Some(Float),
        "+" | "-" | "*" | "//" | "%" if numeric(lt) && numeric(rt) => Some(Float),
        "+" if lt == rt && matches!(lt, Str | List | Tuple) => Some(lt),
        "*" if matches!(lt, Str | List | Tuple) && rt.is_integral() => Some(lt),
        "*" if matches!(rt, Str | List | Tuple) && lt.is_integral() => Some(rt),
        "%" if lt == Str => Some(Str),
        "|" | "&" | "-" | "^" if lt == Set && rt == Set => Some(Set),
        _ => None,
    }
}

/// The positional arguments of `call` when it has no keyword, `*` or `**` arguments.
fn simple_args(call: Node<'_>) -> Option<Vec<Node<'_>>> {
    let args = call.child_by_field_name("arguments")?;
    if args.kind() != "argument_list" {
        return None;
    }
    let list = named_children(args);
    list.iter()
        .all(|a| {
            !matches!(
                a.kind(),
                "keyword_argument" | "list_splat" | "dictionary_splat" | "comment"
            )
        })
        .then_some(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proved type of every binding named `name` in `src`'s function scopes.
    fn type_of(src: &str, name: &str) -> Option<PyType> {
        let parsed = Parsed::new(src).expect("parses");
        let info = ScopeInfo::analyze(&parsed);
        let facts = TypeFacts::analyze(&parsed, &info);
        let keys: Vec<BindingKey> = info
            .bindings()
            .into_keys()
            .filter(|(_, n)| n == name)
            .collect();
        assert_eq!(keys.len(), 1, "one binding named {name}");
        facts.of_binding(&keys[0])
    }

    #[test]
    fn literals_and_builtin_calls() {
        let src = "def f(xs, s):\n    a = 3\n    b = len(xs)\n    c = str(a)\n    d = 2.5\n    e = [1]\n    g = {}\n    h = {1}\n    k = (1, 2)\n    m = not xs\n    n = s.upper()\n    return a, b, c, d, e, g, h, k, m, n\n";
        use PyType::*;
        for (name, want) in [
            ("a", Int),
            ("b", Int),
            ("c", Str),
            ("d", Float),
            ("e", List),
            ("g", Dict),
            ("h", Set),
            ("k", Tuple),
            ("m", Bool),
        ] {
            assert_eq!(type_of(src, name), Some(want), "{name}");
        }
        // `s` is a parameter: anything can be passed, so `s.upper()` proves nothing.
        assert_eq!(type_of(src, "n"), None);
    }

    #[test]
    fn loops_accumulators_and_fixpoint() {
        let src = "def f(n, xs):\n    total = 0\n    for i in range(n):\n        total += i * 2\n    for j, x in enumerate(xs):\n        total = total + j\n    k = 1\n    while k < n:\n        k = k << 1\n    return total, k\n";
        assert_eq!(type_of(src, "total"), Some(PyType::Int));
        assert_eq!(type_of(src, "i"), Some(PyType::Int), "range yields ints");
        assert_eq!(type_of(src, "j"), Some(PyType::Int));
        assert_eq!(type_of(src, "x"), None);
        assert_eq!(type_of(src, "k"), Some(PyType::Int));
        let src = "def f():\n    t = 0\n    for i in range(10):\n        t += i\n    return t\n";
        assert_eq!(type_of(src, "i"), Some(PyType::Int));
        assert_eq!(type_of(src, "t"), Some(PyType::Int));
    }

    #[test]
    fn one_unknown_binding_or_escape_makes_the_type_unknown() {
        use PyType::*;
        let cases = [
            ("def f(g):\n    x = 0\n    x = g()\n    return x\n", None),
            ("def f():\n    x = 0\n    x /= 2\n    return x\n", None),
            ("def f():\n    x = 0\n    x **= -1\n    return x\n", None),
            ("def f():\n    x = 0\n    del x\n    x = 1\n    return x\n", None),
            ("def f():\n    x = 0\n    def g():\n        nonlocal x\n        x = 'a'\n    g()\n    return x\n", None),
            ("def f():\n    x = 0\n    print(locals())\n    return x\n", None),
            ("import inspect\ndef f():\n    x = 0\n    return x\n", None),
            ("def f(ys):\n    x = 0\n    x, y = ys\n    return x\n", None),
            ("def f():\n    x = 1.5\n    x += 1\n    return x\n", Some(Float)),
            ("def f():\n    x = 'a'\n    x *= 3\n    return x\n", Some(Str)),
            ("def f():\n    x = True\n    x += 1\n    return x\n", None),
            ("x = 0\ndef f():\n    return x\n", None),
        ];
        for (src, want) in cases {
            assert_eq!(type_of(src, "x"), want, "{src}");
        }
    }

    #[test]
    fn expressions() {
        let src = "def f(o):\n    a = 1\n    b = a if o else 2\n    c = a and 'x'\n    d = a < o\n    e = o in [a]\n    g = 'ab'[a:]\n    return b, c, d, e, g\n";
        assert_eq!(type_of(src, "b"), Some(PyType::Int));
        assert_eq!(type_of(src, "c"), None, "and/or of different types");
        assert_eq!(type_of(src, "d"), None, "o.__gt__ may return anything");
        assert_eq!(type_of(src, "e"), Some(PyType::Bool));
        assert_eq!(type_of(src, "g"), Some(PyType::Str));
    }
}
