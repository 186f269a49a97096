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
use std::collections::{BTreeMap, HashMap, HashSet};
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
        };
        info.resolutions = (0..info.occurrences.len())
            .map(|i| info.resolve(i))
            .collect();
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

    /// Whether scope `s` or any scope nested in it is dynamic.
    pub fn dynamic_within(&self, s: usize) -> bool {
        self.scopes
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

    /// Whether any scope of the program is dynamic.
    pub fn any_dynamic(&self) -> bool {
        self.scopes.iter().any(|s| s.dynamic)
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
