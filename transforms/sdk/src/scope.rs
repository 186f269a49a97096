//! Python scopes and name resolution over a tree-sitter tree.
//!
//! Every identifier that denotes a variable is recorded as an [`Occurrence`] (a binding, a load
//! or a `global`/`nonlocal` declaration) in the scope where Python evaluates it, then resolved
//! with Python's rules: local unless declared `global`/`nonlocal`; free names look outward
//! skipping class bodies; module names, then builtins. Attribute names, keyword-argument names
//! and module paths in imports are not variables and never appear here.
//!
//! The evaluation scope follows the language, not the nesting of the text: default values,
//! annotations, decorators and base classes are evaluated in the enclosing scope, and so is the
//! first iterable of a comprehension; a walrus inside a comprehension binds in the enclosing
//! function.

use crate::parse::{children, named_children, Parsed};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use tree_sitter::Node;

/// What opens a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// The module.
    Module,
    /// A `def`.
    Function,
    /// A `lambda`.
    Lambda,
    /// A class body.
    Class,
    /// A list/set/dict comprehension or generator expression.
    Comprehension,
}

/// How an occurrence binds its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindKind {
    /// Assignment, augmented assignment, walrus, `for` target, `with … as`, `except … as`, `del`.
    Assign,
    /// A comprehension's iteration variable.
    Comprehension,
    /// A parameter; `keyword_visible` when callers can pass it by name.
    Param {
        /// Whether the parameter may be passed as `name=value`.
        keyword_visible: bool,
    },
    /// `import` / `from … import`.
    Import,
    /// The name of a `def`.
    Def,
    /// The name of a `class`.
    Class,
}

/// The role of one identifier occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The occurrence binds (assigns, defines, imports, deletes) the name.
    Bind(BindKind),
    /// The occurrence reads the name.
    Load,
    /// `global name`.
    DeclareGlobal,
    /// `nonlocal name`.
    DeclareNonlocal,
}

/// One scope.
#[derive(Debug, Clone)]
pub struct Scope {
    /// What opened it.
    pub kind: ScopeKind,
    /// The enclosing scope (none for the module).
    pub parent: Option<usize>,
    /// Byte range of the node that opened it.
    pub range: Range<usize>,
    /// Names declared `global` here.
    pub globals: HashSet<String>,
    /// Names declared `nonlocal` here.
    pub nonlocals: HashSet<String>,
    /// Names bound here (before removing global/nonlocal ones).
    pub bound: HashSet<String>,
    /// The scope calls `eval`, `exec`, `locals`, `vars`, `globals`, `dir` or touches frames:
    /// names may be used through strings.
    pub dynamic: bool,
}

/// A variable occurrence.
#[derive(Debug, Clone)]
pub struct Occurrence {
    /// Byte range of the identifier.
    pub range: Range<usize>,
    /// The identifier.
    pub name: String,
    /// The scope it is evaluated in.
    pub scope: usize,
    /// What it does.
    pub role: Role,
    /// Inside a self-documenting f-string field (`f"{x=}"`), whose output contains the name.
    pub in_debug_fstring: bool,
}

/// A binding: a name in the scope that owns it. Module-level names are scope 0.
pub type BindingKey = (usize, String);

/// What an occurrence refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A binding of the program.
    Binding(BindingKey),
    /// Not bound by the program: a builtin (or a `NameError` at run time).
    Builtin,
}

/// Scopes, occurrences and their resolutions for one program.
#[derive(Debug, Clone)]
pub struct ScopeInfo {
    /// All scopes; index 0 is the module.
    pub scopes: Vec<Scope>,
    /// All variable occurrences in document order.
    pub occurrences: Vec<Occurrence>,
    /// `resolutions[i]` is what `occurrences[i]` refers to.
    pub resolutions: Vec<Resolution>,
    /// The program has a `match` statement (capture patterns are not analysed).
    pub has_match: bool,
    /// The program has `from … import *`.
    pub has_star_import: bool,
    /// Names passed as keyword arguments anywhere (`f(name=…)`).
    pub keyword_argument_names: HashSet<String>,
    /// Some call unpacks a mapping into keyword arguments (`f(**d)`).
    pub has_kwargs_splat: bool,
    /// The program reaches frames, code objects, signatures or namespaces through attributes
    /// or the `inspect` module (`sys._getframe(1).f_locals`, `f.__code__`,
    /// `inspect.signature`…): any scope's names may be observed, so every scope counts as
    /// dynamic.
    pub introspected: bool,
    /// Bindings that some occurrence may or may not refer to depending on the order of
    /// execution (a class body reading a name before binding it reads the module's), so they
    /// must be left alone.
    pub ambiguous: HashSet<BindingKey>,
    /// Occurrence index by the start byte of its identifier.
    by_start: HashMap<usize, usize>,
    /// Occurrence indices sorted by position.
    in_order: Vec<usize>,
    /// Occurrence indices of every binding.
    by_binding: HashMap<BindingKey, Vec<usize>>,
    /// Names of each scope's bindings that escape it (see [`ScopeInfo::escapes`]).
    escaping: Vec<BTreeSet<String>>,
}

/// Calls that let code reach variables through strings or frames.
const DYNAMIC_NAMES: &[&str] = &[
    "eval",
    "exec",
    "locals",
    "vars",
    "globals",
    "dir",
    "_getframe",
    "currentframe",
    "f_locals",
    "f_globals",
    "__dict__",
];

/// Attribute names (and the module name `inspect`) that reach frames, code objects,
/// signatures or namespaces of *other* scopes.
const INTROSPECTION: &[&str] = &[
    "_getframe",
    "currentframe",
    "f_locals",
    "f_globals",
    "f_back",
    "f_code",
    "__code__",
    "co_varnames",
    "co_names",
    "co_cellvars",
    "co_freevars",
    "__closure__",
    "__globals__",
    "__defaults__",
    "__kwdefaults__",
    "signature",
    "getfullargspec",
    "getargvalues",
    "getcallargs",
    "getmembers",
    "getclosurevars",
    "settrace",
    "setprofile",
    "_current_frames",
    "inspect",
];

impl ScopeInfo {
    /// Analyses `parsed`.
    pub fn analyze(parsed: &Parsed) -> ScopeInfo {
        let root = parsed.root();
        let mut w = Walker {
            src: parsed.source.as_str(),
            scopes: vec![Scope {
                kind: ScopeKind::Module,
                parent: None,
                range: root.byte_range(),
                globals: HashSet::new(),
                nonlocals: HashSet::new(),
                bound: HashSet::new(),
                dynamic: false,
            }],
            occurrences: Vec::new(),
            has_match: false,
            has_star_import: false,
            keyword_argument_names: HashSet::new(),
            has_kwargs_splat: false,
            debug_fstring: 0,
            introspected: false,
        };
        w.walk_children(root, 0);
        let mut info = ScopeInfo {
            scopes: w.scopes,
            occurrences: w.occurrences,
            resolutions: Vec::new(),
            has_match: w.has_match,
            has_star_import: w.has_star_import,
            keyword_argument_names: w.keyword_argument_names,
            has_kwargs_splat: w.has_kwargs_splat,
            introspected: w.introspected,
            ambiguous: HashSet::new(),
            by_start: HashMap::new(),
            in_order: Vec::new(),
            by_binding: HashMap::new(),
            escaping: Vec::new(),
        };
        info.resolutions = (0..info.occurrences.len())
            .map(|i| info.resolve(i))
            .collect();
        info.by_start = info
            .occurrences
            .iter()
            .enumerate()
            .map(|(i, o)| (o.range.start, i))
            .collect();
        info.in_order = (0..info.occurrences.len()).collect();
        info.in_order
            .sort_by_key(|&i| info.occurrences[i].range.start);
        let mut escaping = vec![BTreeSet::new(); info.scopes.len()];
        for (i, occ) in info.occurrences.iter().enumerate() {
            if let Resolution::Binding(key) = &info.resolutions[i] {
                info.by_binding.entry(key.clone()).or_default().push(i);
                if key.0 == 0 || occ.scope != key.0 {
                    escaping[key.0].insert(key.1.clone());
                }
            }
        }
        info.escaping = escaping;
        // A class body that reads a name it also binds reads the module's binding whenever the
        // class's own has not happened yet (Python's class-body lookup skips enclosing
        // functions): either may be meant, so neither may change alone.
        for occ in &info.occurrences {
            let scope = &info.scopes[occ.scope];
            if occ.role == Role::Load
                && scope.kind == ScopeKind::Class
                && scope.bound.contains(&occ.name)
            {
                info.ambiguous.insert((occ.scope, occ.name.clone()));
                if info.scopes[0].bound.contains(&occ.name) {
                    info.ambiguous.insert((0, occ.name.clone()));
                }
            }
        }
        info
    }

    fn resolve(&self, i: usize) -> Resolution {
        let occ = &self.occurrences[i];
        let name = occ.name.as_str();
        match occ.role {
            Role::DeclareGlobal => Resolution::Binding((0, name.to_string())),
            Role::DeclareNonlocal => self.lookup_enclosing_function(occ.scope, name),
            _ => self.lookup(occ.scope, name),
        }
    }

    fn lookup(&self, s: usize, name: &str) -> Resolution {
        let scope = &self.scopes[s];
        if scope.globals.contains(name) {
            return Resolution::Binding((0, name.to_string()));
        }
        if scope.nonlocals.contains(name) {
            return self.lookup_enclosing_function(s, name);
        }
        if scope.bound.contains(name) {
            return Resolution::Binding((s, name.to_string()));
        }
        self.lookup_free(scope.parent, name)
    }

    /// Free-variable lookup starting at `s`, skipping class bodies.
    fn lookup_free(&self, mut s: Option<usize>, name: &str) -> Resolution {
        while let Some(i) = s {
            let scope = &self.scopes[i];
            if scope.kind == ScopeKind::Class {
                s = scope.parent;
                continue;
            }
            if scope.kind == ScopeKind::Module {
                return if scope.bound.contains(name) {
                    Resolution::Binding((0, name.to_string()))
                } else {
                    Resolution::Builtin
                };
            }
            if scope.globals.contains(name) {
                return Resolution::Binding((0, name.to_string()));
            }
            if scope.nonlocals.contains(name) {
                return self.lookup_enclosing_function(i, name);
            }
            if scope.bound.contains(name) {
                return Resolution::Binding((i, name.to_string()));
            }
            s = scope.parent;
        }
        Resolution::Builtin
    }

    fn lookup_enclosing_function(&self, s: usize, name: &str) -> Resolution {
        let mut cur = self.scopes[s].parent;
        while let Some(i) = cur {
            let scope = &self.scopes[i];
            match scope.kind {
                ScopeKind::Module => break,
                ScopeKind::Class => {}
                _ => {
                    if scope.nonlocals.contains(name) {
                        // keep walking: it is declared nonlocal here too
                    } else if scope.bound.contains(name) && !scope.globals.contains(name) {
                        return Resolution::Binding((i, name.to_string()));
                    }
                }
            }
            cur = scope.parent;
        }
        Resolution::Builtin
    }

    /// Every binding with the indices of the occurrences that refer to it, in a fixed order.
    pub fn bindings(&self) -> BTreeMap<BindingKey, Vec<usize>> {
        let mut out: BTreeMap<BindingKey, Vec<usize>> = BTreeMap::new();
        for (i, r) in self.resolutions.iter().enumerate() {
            if let Resolution::Binding(key) = r {
                out.entry(key.clone()).or_default().push(i);
            }
        }
        out
    }

    /// Whether scope `s` or any scope nested in it is dynamic, or the program introspects
    /// frames or signatures anywhere.
    pub fn dynamic_within(&self, s: usize) -> bool {
        self.introspected
            || self
                .scopes
                .iter()
                .enumerate()
                .any(|(i, _)| self.scopes[i].dynamic && self.is_within(i, s))
    }

    /// Whether scope `inner` is `outer` or nested in it.
    pub fn is_within(&self, inner: usize, outer: usize) -> bool {
        let mut cur = Some(inner);
        while let Some(i) = cur {
            if i == outer {
                return true;
            }
            cur = self.scopes[i].parent;
        }
        false
    }

    /// Whether any scope of the program is dynamic (or the program introspects frames).
    pub fn any_dynamic(&self) -> bool {
        self.introspected || self.scopes.iter().any(|s| s.dynamic)
    }

    /// The innermost scope whose opening node strictly contains `range` (for a statement of a
    /// body: the scope its code runs in).
    pub fn scope_containing(&self, range: &Range<usize>) -> usize {
        let mut best = 0;
        for (i, s) in self.scopes.iter().enumerate().skip(1) {
            let inside =
                s.range.start <= range.start && range.end <= s.range.end && s.range != *range;
            if inside && self.is_within(i, best) {
                best = i;
            }
        }
        best
    }

    /// Indices of the occurrences inside `range`, in document order.
    pub fn occurrences_in(&self, range: &Range<usize>) -> Vec<usize> {
        let from = self
            .in_order
            .partition_point(|&i| self.occurrences[i].range.start < range.start);
        self.in_order[from..]
            .iter()
            .copied()
            .take_while(|&i| self.occurrences[i].range.start < range.end)
            .filter(|&i| self.occurrences[i].range.end <= range.end)
            .collect()
    }

    /// The binding occurrence `i` refers to, if the program binds it.
    pub fn binding_of(&self, i: usize) -> Option<&BindingKey> {
        match &self.resolutions[i] {
            Resolution::Binding(k) => Some(k),
            Resolution::Builtin => None,
        }
    }

    /// Names of scope `s`'s own bindings that code inside `range` reads.
    pub fn reads_in(&self, s: usize, range: &Range<usize>) -> BTreeSet<String> {
        self.names_in(s, range, |r| r == Role::Load)
    }

    /// Names of scope `s`'s own bindings that code inside `range` binds, deletes or declares.
    pub fn writes_in(&self, s: usize, range: &Range<usize>) -> BTreeSet<String> {
        self.names_in(s, range, |r| r != Role::Load)
    }

    fn names_in(
        &self,
        s: usize,
        range: &Range<usize>,
        keep: impl Fn(Role) -> bool,
    ) -> BTreeSet<String> {
        self.occurrences_in(range)
            .into_iter()
            .filter(|&i| keep(self.occurrences[i].role))
            .filter_map(|i| match self.binding_of(i) {
                Some((scope, name)) if *scope == s => Some(name.clone()),
                _ => None,
            })
            .collect()
    }

    /// Names of scope `s`'s bindings that escape it: used from a nested scope (closures),
    /// declared `global`/`nonlocal` elsewhere, or module-level names (importers see them).
    pub fn escapes(&self, s: usize) -> &BTreeSet<String> {
        &self.escaping[s]
    }

    /// The occurrence whose identifier spans exactly `range`, if any.
    pub fn occurrence_at(&self, range: &Range<usize>) -> Option<usize> {
        self.by_start
            .get(&range.start)
            .copied()
            .filter(|&i| self.occurrences[i].range == *range)
    }

    /// The occurrences that refer to binding `key`, in document order.
    pub fn occurrences_of(&self, key: &BindingKey) -> &[usize] {
        self.by_binding.get(key).map_or(&[], |v| v.as_slice())
    }

    /// Whether occurrence `i` reads or binds a local of its own function (or lambda) that no
    /// other code can see or rebind: not `global`/`nonlocal`, not used by a nested scope, and
    /// the function is not dynamic. Reading such a name twice gives the same object, and no
    /// call made in between can change it.
    pub fn is_private_local(&self, i: usize) -> bool {
        let Some((s, name)) = self.binding_of(i) else {
            return false;
        };
        let scope = &self.scopes[*s];
        matches!(scope.kind, ScopeKind::Function | ScopeKind::Lambda)
            && self.occurrences[i].scope == *s
            && !scope.globals.contains(name)
            && !scope.nonlocals.contains(name)
            && !self.escapes(*s).contains(name)
            && !self.dynamic_within(*s)
    }

    /// Whether every binding of `key` is a parameter (so a read in its own scope never fails
    /// with `NameError` and never sees a rebinding).
    pub fn is_plain_parameter(&self, key: &BindingKey) -> bool {
        let mut any = false;
        for &i in self.occurrences_of(key) {
            match self.occurrences[i].role {
                Role::Bind(BindKind::Param { .. }) => any = true,
                Role::Load => {}
                _ => return false,
            }
        }
        any
    }
}

struct Walker<'a> {
    src: &'a str,
    scopes: Vec<Scope>,
    occurrences: Vec<Occurrence>,
    has_match: bool,
    has_star_import: bool,
    keyword_argument_names: HashSet<String>,
    has_kwargs_splat: bool,
    debug_fstring: usize,
    introspected: bool,
}

impl<'a> Walker<'a> {
    fn text(&self, n: Node<'_>) -> &'a str {
        &self.src[n.byte_range()]
    }

    fn new_scope(&mut self, kind: ScopeKind, parent: usize, node: Node<'_>) -> usize {
        self.scopes.push(Scope {
            kind,
            parent: Some(parent),
            range: node.byte_range(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            bound: HashSet::new(),
            dynamic: false,
        });
        self.scopes.len() - 1
    }

    fn record(&mut self, ident: Node<'_>, scope: usize, role: Role) {
        let name = self.text(ident).to_string();
        match role {
            Role::Bind(_) => {
                // A function that declares `global x` and binds it binds the module's `x`.
                if self.scopes[scope].globals.contains(&name) {
                    self.scopes[0].bound.insert(name.clone());
                }
                self.scopes[scope].bound.insert(name.clone());
            }
            Role::DeclareGlobal => {
                self.scopes[scope].globals.insert(name.clone());
            }
            Role::DeclareNonlocal => {
                self.scopes[scope].nonlocals.insert(name.clone());
            }
            Role::Load => {}
        }
        if DYNAMIC_NAMES.contains(&name.as_str()) {
            self.scopes[scope].dynamic = true;
        }
        if INTROSPECTION.contains(&name.as_str()) {
            self.introspected = true;
        }
        self.occurrences.push(Occurrence {
            range: ident.byte_range(),
            name,
            scope,
            role,
            in_debug_fstring: self.debug_fstring > 0,
        });
    }

    fn walk_children(&mut self, node: Node<'_>, scope: usize) {
        for c in children(node) {
            self.walk(c, scope);
        }
    }

    fn walk(&mut self, node: Node<'_>, scope: usize) {
        match node.kind() {
            "identifier" => self.record(node, scope, Role::Load),
            "function_definition" => self.walk_function(node, scope),
            "lambda" => self.walk_lambda(node, scope),
            "class_definition" => self.walk_class(node, scope),
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => self.walk_comprehension(node, scope),
            "assignment" => {
                if let Some(l) = node.child_by_field_name("left") {
                    self.bind_target(l, scope, BindKind::Assign);
                }
                for f in ["type", "right"] {
                    if let Some(n) = node.child_by_field_name(f) {
                        self.walk(n, scope);
                    }
                }
            }
            "augmented_assignment" => {
                if let Some(l) = node.child_by_field_name("left") {
                    self.bind_target(l, scope, BindKind::Assign);
                }
                if let Some(r) = node.child_by_field_name("right") {
                    self.walk(r, scope);
                }
            }
            "named_expression" => {
                let target_scope = self.walrus_scope(scope);
                if let Some(n) = node.child_by_field_name("name") {
                    self.record(n, target_scope, Role::Bind(BindKind::Assign));
                }
                if let Some(v) = node.child_by_field_name("value") {
                    self.walk(v, scope);
                }
            }
            "for_statement" => {
                if let Some(l) = node.child_by_field_name("left") {
                    self.bind_target(l, scope, BindKind::Assign);
                }
                for f in ["right", "body", "alternative"] {
                    if let Some(n) = node.child_by_field_name(f) {
                        self.walk(n, scope);
                    }
                }
            }
            "as_pattern" => {
                for c in children(node) {
                    if c.kind() == "as_pattern_target" {
                        self.bind_target(c, scope, BindKind::Assign);
                    } else {
                        self.walk(c, scope);
                    }
                }
            }
            "delete_statement" => {
                for c in named_children(node) {
                    self.bind_target(c, scope, BindKind::Assign);
                }
            }
            "global_statement" | "nonlocal_statement" => {
                let role = if node.kind() == "global_statement" {
                    Role::DeclareGlobal
                } else {
                    Role::DeclareNonlocal
                };
                for c in named_children(node) {
                    if c.kind() == "identifier" {
                        self.record(c, scope, role);
                    }
                }
            }
            "import_statement" | "import_from_statement" => self.walk_import(node, scope),
            "future_import_statement" => {}
            "attribute" => {
                if let Some(a) = node.child_by_field_name("attribute") {
                    match self.text(a) {
                        // Namespaces of objects, classes and modules: module names can be
                        // seen (`sys.modules[__name__].__dict__`), function locals cannot.
                        "__dict__" => self.scopes[0].dynamic = true,
                        a if INTROSPECTION.contains(&a) => self.introspected = true,
                        _ => {}
                    }
                }
                if let Some(o) = node.child_by_field_name("object") {
                    self.walk(o, scope);
                }
            }
            "keyword_argument" => {
                if let Some(n) = node.child_by_field_name("name") {
                    self.keyword_argument_names.insert(self.text(n).to_string());
                }
                if let Some(v) = node.child_by_field_name("value") {
                    self.walk(v, scope);
                }
            }
            "dictionary_splat" => {
                if node.parent().is_some_and(|p| p.kind() == "argument_list") {
                    self.has_kwargs_splat = true;
                }
                self.walk_children(node, scope);
            }
            "interpolation" => {
                let debug = self.is_debug_interpolation(node);
                if debug {
                    self.debug_fstring += 1;
                }
                self.walk_children(node, scope);
                if debug {
                    self.debug_fstring -= 1;
                }
            }
            "match_statement" => {
                self.has_match = true;
                self.walk_children(node, scope);
            }
            "dotted_name" => {
                // Only reached in patterns; its first part is a variable.
                if let Some(first) = named_children(node).into_iter().next() {
                    self.walk(first, scope);
                }
            }
            "keyword_pattern" => {
                for c in named_children(node).into_iter().skip(1) {
                    self.walk(c, scope);
                }
            }
            _ => self.walk_children(node, scope),
        }
    }

    fn is_debug_interpolation(&self, node: Node<'_>) -> bool {
        let Some(expr) = node.child_by_field_name("expression") else {
            return false;
        };
        let after = self.src[expr.end_byte()..node.end_byte()].trim_start();
        after.starts_with('=') && !after.starts_with("==")
    }

    fn walrus_scope(&self, mut scope: usize) -> usize {
        while self.scopes[scope].kind == ScopeKind::Comprehension {
            match self.scopes[scope].parent {
                Some(p) => scope = p,
                None => break,
            }
        }
        scope
    }

    fn bind_target(&mut self, node: Node<'_>, scope: usize, kind: BindKind) {
        match node.kind() {
            "identifier" => self.record(node, scope, Role::Bind(kind)),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "list_splat"
            | "as_pattern_target"
            | "expression_list" => {
                for c in named_children(node) {
                    self.bind_target(c, scope, kind);
                }
            }
            _ => self.walk(node, scope),
        }
    }

    fn walk_import(&mut self, node: Node<'_>, scope: usize) {
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for c in children(node) {
            if c.kind() == "wildcard_import" {
                self.has_star_import = true;
            }
        }
        if let Some(m) = node.child_by_field_name("module_name") {
            let module = self.text(m);
            if module == "inspect" || module == "sys" && self.text(node).contains("_getframe") {
                self.introspected = true;
            }
        }
        for n in names {
            let ident = match n.kind() {
                "aliased_import" => n.child_by_field_name("alias"),
                "dotted_name" => named_children(n).into_iter().next(),
                _ => None,
            };
            if let Some(i) = ident {
                self.record(i, scope, Role::Bind(BindKind::Import));
            }
        }
    }

    fn walk_parameters(&mut self, params: Node<'_>, outer: usize, inner: usize) {
        let mut positional_only_until_slash = children(params)
            .iter()
            .any(|c| c.kind() == "positional_separator");
        for p in named_children(params) {
            let visible = !positional_only_until_slash;
            match p.kind() {
                "positional_separator" => positional_only_until_slash = false,
                "identifier" => self.record(
                    p,
                    inner,
                    Role::Bind(BindKind::Param {
                        keyword_visible: visible,
                    }),
                ),
                "default_parameter" | "typed_default_parameter" | "typed_parameter" => {
                    for c in named_children(p) {
                        let is_name = p.child_by_field_name("name").map(|n| n.id()) == Some(c.id())
                            || (p.kind() == "typed_parameter" && c.kind() != "type");
                        if is_name {
                            self.param_name(c, inner, visible);
                        } else {
                            self.walk(c, outer);
                        }
                    }
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    self.param_name(p, inner, visible)
                }
                "tuple_pattern" => self.bind_target(
                    p,
                    inner,
                    BindKind::Param {
                        keyword_visible: false,
                    },
                ),
                _ => self.walk(p, outer),
            }
        }
    }

    fn param_name(&mut self, node: Node<'_>, inner: usize, visible: bool) {
        match node.kind() {
            "identifier" => self.record(
                node,
                inner,
                Role::Bind(BindKind::Param {
                    keyword_visible: visible,
                }),
            ),
            // *args and **kwargs are never passed by name.
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                for c in named_children(node) {
                    if c.kind() == "identifier" {
                        self.record(
                            c,
                            inner,
                            Role::Bind(BindKind::Param {
                                keyword_visible: false,
                            }),
                        );
                    }
                }
            }
            _ => self.bind_target(
                node,
                inner,
                BindKind::Param {
                    keyword_visible: false,
                },
            ),
        }
    }

    fn walk_function(&mut self, node: Node<'_>, scope: usize) {
        if let Some(n) = node.child_by_field_name("name") {
            self.record(n, scope, Role::Bind(BindKind::Def));
        }
        let inner = self.new_scope(ScopeKind::Function, scope, node);
        for c in children(node) {
            if node.child_by_field_name("name").map(|n| n.id()) == Some(c.id()) {
                continue;
            }
            match c.kind() {
                "parameters" => self.walk_parameters(c, scope, inner),
                "block" => self.walk(c, inner),
                _ => self.walk(c, scope), // return type, type parameters
            }
        }
    }

    fn walk_lambda(&mut self, node: Node<'_>, scope: usize) {
        let inner = self.new_scope(ScopeKind::Lambda, scope, node);
        if let Some(p) = node.child_by_field_name("parameters") {
            self.walk_parameters(p, scope, inner);
        }
        if let Some(b) = node.child_by_field_name("body") {
            self.walk(b, inner);
        }
    }

    fn walk_class(&mut self, node: Node<'_>, scope: usize) {
        if let Some(n) = node.child_by_field_name("name") {
            self.record(n, scope, Role::Bind(BindKind::Class));
        }
        let inner = self.new_scope(ScopeKind::Class, scope, node);
        for c in children(node) {
            if node.child_by_field_name("name").map(|n| n.id()) == Some(c.id()) {
                continue;
            }
            match c.kind() {
                "block" => self.walk(c, inner),
                _ => self.walk(c, scope),
            }
        }
    }

    fn walk_comprehension(&mut self, node: Node<'_>, scope: usize) {
        let inner = self.new_scope(ScopeKind::Comprehension, scope, node);
        let mut first_clause = true;
        for c in named_children(node) {
            if c.kind() == "for_in_clause" {
                if let Some(r) = c.child_by_field_name("right") {
                    self.walk(r, if first_clause { scope } else { inner });
                }
                if let Some(l) = c.child_by_field_name("left") {
                    self.bind_target(l, inner, BindKind::Comprehension);
                }
                first_clause = false;
            }
        }
        for c in named_children(node) {
            if c.kind() != "for_in_clause" {
                self.walk(c, inner);
            }
        }
    }
}

/// Names by binding, for tests and diagnostics: `scope-index:name -> [roles]`.
pub fn describe(info: &ScopeInfo) -> HashMap<String, Vec<Role>> {
    let mut out: HashMap<String, Vec<Role>> = HashMap::new();
    for (key, occ) in info.bindings() {
        out.insert(
            format!("{}:{}", key.0, key.1),
            occ.iter().map(|&i| info.occurrences[i].role).collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyzed(src: &str) -> ScopeInfo {
        ScopeInfo::analyze(&Parsed::new(src).unwrap())
    }

    /// Resolution of every occurrence of `name`, as (scope of the binding or None for builtin).
    fn resolved(info: &ScopeInfo, name: &str) -> Vec<Option<usize>> {
        info.occurrences
            .iter()
            .enumerate()
            .filter(|(_, o)| o.name == name)
            .map(|(i, _)| info.binding_of(i).map(|k| k.0))
            .collect()
    }

    #[test]
    fn a_name_bound_only_through_global_is_a_module_name() {
        let info =
            analyzed("def setup():\n    global total\n    total = 1\n\nsetup()\nprint(total)\n");
        assert_eq!(resolved(&info, "total"), vec![Some(0), Some(0), Some(0)]);
        // Declared global but only read: the module does not gain a binding.
        let info = analyzed("def f():\n    global print\n    print(1)\n");
        assert!(!info.scopes[0].bound.contains("print"));
    }

    #[test]
    fn class_body_read_before_binding_pins_both_bindings() {
        let info = analyzed("x = 1\nclass C:\n    y = x\n    x = 2\n");
        assert!(info.ambiguous.contains(&(0, "x".to_string())));
        let info = analyzed("x = 1\nclass C:\n    y = x\n");
        assert!(info.ambiguous.is_empty());
        assert_eq!(resolved(&info, "x"), vec![Some(0), Some(0)]);
    }

    #[test]
    fn comprehension_scopes_and_walrus() {
        let src = "def f(xs):\n    ys = [x for x in xs if (last := x)]\n    return last, ys\n";
        let info = analyzed(src);
        let comp = info
            .scopes
            .iter()
            .position(|s| s.kind == ScopeKind::Comprehension)
            .unwrap();
        // `xs` (first iterable) is read in the function; `x` lives in the comprehension;
        // the walrus binds `last` in the function.
        assert_eq!(resolved(&info, "xs"), vec![Some(1), Some(1)]);
        assert!(resolved(&info, "x").iter().all(|s| *s == Some(comp)));
        assert_eq!(resolved(&info, "last"), vec![Some(1), Some(1)]);
    }

    #[test]
    fn nonlocal_and_class_scopes_resolve_like_python() {
        let src = "def outer():\n    n = 0\n    class K:\n        n = 5\n        def m(self):\n            return n\n    def inc():\n        nonlocal n\n        n += 1\n    inc()\n    return n, K().m()\n";
        let info = analyzed(src);
        // Every `n` except the class attribute is the function's.
        let r = resolved(&info, "n");
        assert_eq!(r.iter().filter(|s| **s == Some(1)).count(), 5, "{r:?}");
        assert_eq!(r.iter().filter(|s| **s == Some(2)).count(), 1, "{r:?}");
    }

    #[test]
    fn introspection_through_attributes_makes_every_scope_dynamic() {
        for src in [
            "import sys\ndef f(a):\n    b = a\n    return sys._getframe().f_locals\n",
            "def f(a):\n    return a\nprint(f.__code__.co_varnames)\n",
            "import inspect\ndef f(a):\n    return a\n",
            "from inspect import signature\ndef f(a):\n    return a\n",
        ] {
            let info = analyzed(src);
            assert!(
                info.introspected && info.dynamic_within(1) && info.any_dynamic(),
                "{src}"
            );
        }
        let info = analyzed("def f(a):\n    return a.f_value\n");
        assert!(!info.any_dynamic());
        let info = analyzed("def f(a):\n    return locals()\ndef g(b):\n    return b\n");
        assert!(info.dynamic_within(1) && !info.dynamic_within(2));
    }

    #[test]
    fn reads_writes_escapes_and_parameters() {
        let src = "def f(a, b):\n    c = a\n    d = 1\n    del d\n    def g():\n        return c\n    return g\n";
        let p = Parsed::new(src).unwrap();
        let info = ScopeInfo::analyze(&p);
        let body = p.nodes_of_kind("block")[0];
        let range = body.byte_range();
        assert_eq!(info.scope_containing(&range), 1);
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(info.reads_in(1, &range), set(&["a", "c", "g"]));
        assert_eq!(info.writes_in(1, &range), set(&["c", "d", "g"]));
        assert_eq!(*info.escapes(1), set(&["c"]));
        let a = info.occurrences_of(&(1, "a".to_string()));
        assert_eq!(a.len(), 2);
        assert_eq!(
            info.occurrence_at(&info.occurrences[a[1]].range),
            Some(a[1])
        );
        assert!(info.is_plain_parameter(&(1, "a".to_string())));
        assert!(!info.is_plain_parameter(&(1, "c".to_string())));
    }
}
