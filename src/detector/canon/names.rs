//! Which name each identifier of a program is, scope by scope, so the canonical form can number
//! names: two variables spelled alike in two functions (or a comprehension and its function)
//! are two names, as they are to Python and javac, and renaming one of them moves nothing else.
//!
//! Resolution follows the languages' rules closely enough for a detector's input (the form
//! never runs): Python scopes are modules, functions, lambdas and comprehensions (class bodies
//! bind members, which methods reach only through an object; `global` and `nonlocal` send a
//! name outwards); Java scopes are methods, constructors, lambdas, blocks and `for`
//! statements (as javac scopes locals), with fields, methods and types as members. A name no
//! scope binds (a builtin, a library's method) is not a program name and keeps its spelling.

use crate::language::Language;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What an identifier names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Name<'s> {
    /// A variable (or parameter, function, class) of one scope.
    Local(usize, &'s str),
    /// A member: an attribute set on an object, a class-body binding, a Java field, method
    /// or type; one per spelling.
    Member(&'s str),
    /// A variable kept in a container's slot by `state-pack`: the container (the start of
    /// the statement that made it) and the slot's key.
    Slot(usize, i128),
    /// A name that is part of a Python program's interface, which no SPT renames, so the form
    /// keeps its spelling: an attribute, or a parameter that callers may pass by keyword to a
    /// function defined at module level or in a module-level class (`f(n=3)`).
    Interface(&'s str),
}

/// The program names of `root`: each identifier's start byte → what it names (identifiers
/// that name nothing of the program are absent), and the byte ranges of statements the
/// canonical form leaves out (parameter aliases, which then read as their parameter).
pub(super) fn program_names<'s>(
    language: Language,
    source: &'s str,
    root: Node<'_>,
) -> (HashMap<usize, Name<'s>>, Vec<std::ops::Range<usize>>) {
    let mut scopes = Scopes {
        source,
        language,
        parent: vec![None],
        is_class: vec![false],
        bound: HashSet::new(),
        outward: HashSet::new(),
        members: HashSet::new(),
        uses: Vec::new(),
        aliases: HashMap::new(),
        interface: HashSet::new(),
        dropped: Vec::new(),
    };
    scopes.walk(root, 0);
    let mut names = HashMap::new();
    for &(start, scope, role, text) in &scopes.uses {
        let name = match scopes.resolve(scope, role, text) {
            // A Python attribute is reached by its spelling from anywhere (`obj.count`,
            // `getattr`, `vars`): part of the program's interface, which no SPT renames.
            Some(Name::Member(x)) if language == Language::Python => Some(Name::Interface(x)),
            other => other,
        };
        if let Some(name) = name {
            names.insert(start, name);
        }
    }
    (names, scopes.dropped)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A name read or bound in its scope.
    Plain,
    /// An attribute, field or method reached through an object, or a keyword argument.
    Member,
}

struct Scopes<'s> {
    source: &'s str,
    language: Language,
    /// Each scope's enclosing scope (the module, 0, has none).
    parent: Vec<Option<usize>>,
    /// Class bodies: they bind members, and inner functions skip them.
    is_class: Vec<bool>,
    bound: HashSet<(usize, &'s str)>,
    /// Names a scope declares `global` or `nonlocal`.
    outward: HashSet<(usize, &'s str)>,
    members: HashSet<&'s str>,
    /// (start byte, scope, role, text) of every identifier.
    uses: Vec<(usize, usize, Role, &'s str)>,
    /// (function scope, alias) → the parameter it stands for.
    aliases: HashMap<(usize, &'s str), &'s str>,
    /// (function scope, parameter) of the parameters that are [`Name::Interface`].
    interface: HashSet<(usize, &'s str)>,
    dropped: Vec<std::ops::Range<usize>>,
}

impl<'s> Scopes<'s> {
    fn text(&self, n: Node<'_>) -> Option<&'s str> {
        self.source.get(n.byte_range())
    }

    fn open(&mut self, parent: usize, class: bool) -> usize {
        self.parent.push(Some(parent));
        self.is_class.push(class);
        self.parent.len() - 1
    }

    /// Records that `n` (an identifier) is bound in `scope` (a member in a class body).
    fn bind(&mut self, scope: usize, n: Node<'_>) {
        if let Some(t) = self.text(n) {
            if self.is_class.get(scope).copied().unwrap_or(false) {
                self.members.insert(t);
            } else {
                self.bound.insert((scope, t));
            }
        }
    }

    /// Whether a function defined in `scope` is reachable from outside the program: `scope`
    /// is the module or a class body nested only in class bodies up to it.
    fn reached_from_outside(&self, scope: usize) -> bool {
        let mut at = Some(scope);
        while let Some(s) = at {
            if s == 0 {
                return true;
            }
            if !self.is_class.get(s).copied().unwrap_or(false) {
                return false;
            }
            at = self.parent.get(s).copied().flatten();
        }
        false
    }

    fn member(&mut self, n: Node<'_>) {
        if let Some(t) = self.text(n) {
            self.members.insert(t);
        }
    }

    fn walk(&mut self, n: Node<'_>, scope: usize) {
        let inner = match self.language {
            Language::Python => self.python_site(n, scope),
            Language::Java => self.java_site(n, scope),
            // C and C++ names are not scoped here yet: each spelling is one name.
            Language::Cpp | Language::C => scope,
        };
        if matches!(n.kind(), "identifier" | "type_identifier") {
            if let Some(t) = self.text(n) {
                let role = if is_member_position(self.language, n) {
                    Role::Member
                } else {
                    Role::Plain
                };
                self.uses.push((n.start_byte(), scope, role, t));
            }
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        for c in children {
            self.walk(c, inner);
        }
    }

    /// Records what a Python node binds; returns the scope its children live in.
    fn python_site(&mut self, n: Node<'_>, scope: usize) -> usize {
        match n.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = n.child_by_field_name("name") {
                    self.bind(scope, name);
                }
                let class = n.kind() == "class_definition";
                let inner = self.open(scope, class);
                if !class {
                    let mut params = Vec::new();
                    if let Some(ps) = n.child_by_field_name("parameters") {
                        for p in ps.named_children(&mut ps.walk()) {
                            python_parameter(p, &mut |x| params.push(x));
                        }
                    }
                    for p in &params {
                        self.bind(inner, *p);
                    }
                    if self.reached_from_outside(scope) {
                        if let Some(ps) = n.child_by_field_name("parameters") {
                            for p in keyword_parameters(ps) {
                                if let Some(t) = self.text(p) {
                                    self.interface.insert((inner, t));
                                }
                            }
                        }
                    }
                    let params: HashSet<&str> =
                        params.iter().filter_map(|p| self.text(*p)).collect();
                    self.python_aliases(n, inner, &params);
                    self.python_copies(n, inner, &params);
                }
                inner
            }
            "lambda" => {
                let inner = self.open(scope, false);
                if let Some(ps) = n.child_by_field_name("parameters") {
                    for p in ps.named_children(&mut ps.walk()) {
                        python_parameter(p, &mut |x| self.bind(inner, x));
                    }
                }
                inner
            }
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => self.open(scope, false),
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = n.child_by_field_name("left") {
                    python_targets(left, &mut |x, member| {
                        if member {
                            self.member(x)
                        } else {
                            self.bind(scope, x)
                        }
                    });
                }
                scope
            }
            "named_expression" => {
                if let Some(name) = n.child_by_field_name("name") {
                    self.bind(scope, name);
                }
                scope
            }
            "as_pattern" => {
                if let Some(alias) = n.child_by_field_name("alias") {
                    python_targets(alias, &mut |x, _| self.bind(scope, x));
                }
                scope
            }
            "global_statement" | "nonlocal_statement" => {
                for c in n.named_children(&mut n.walk()) {
                    if let Some(t) = self.text(c) {
                        self.outward.insert((scope, t));
                        if n.kind() == "global_statement" {
                            self.bound.insert((0, t));
                        }
                    }
                }
                scope
            }
            _ => scope,
        }
    }

    /// Parameter aliases (what `param-alias` adds): a function's first statements after its
    /// docstring that only bind new names to its parameters (`ledger = numbers`,
    /// `a, b = x, y`).
    fn python_aliases(&mut self, function: Node<'_>, scope: usize, params: &HashSet<&str>) {
        let Some(body) = function.child_by_field_name("body") else {
            return;
        };
        // Comments (which `comment-edit` inserts anywhere) are not statements.
        let statements: Vec<Node<'_>> = body
            .named_children(&mut body.walk())
            .filter(|s| s.kind() != "comment")
            .collect();
        let skip = usize::from(
            statements
                .first()
                .is_some_and(|s| super::structure::is_docstring_statement(*s)),
        );
        for statement in statements.iter().skip(skip) {
            let Some(assign) = statement
                .named_child(0)
                .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")
            else {
                return;
            };
            let side = |field: &str| -> Vec<Node<'_>> {
                match assign.child_by_field_name(field) {
                    Some(x) if x.kind() == "identifier" => vec![x],
                    Some(x) if matches!(x.kind(), "pattern_list" | "expression_list") => {
                        x.named_children(&mut x.walk()).collect()
                    }
                    _ => Vec::new(),
                }
            };
            let (left, right) = (side("left"), side("right"));
            if left.is_empty() || left.len() != right.len() {
                return;
            }
            // An alias of an alias (`acc = bridge` after `bridge = start`) is the parameter
            // too: an original's `acc = start` and its aliased rewrite then read alike.
            let root = |r: &'s str| -> Option<&'s str> {
                if params.contains(r) {
                    Some(r)
                } else {
                    self.aliases.get(&(scope, r)).copied()
                }
            };
            let pairs: Option<Vec<(&'s str, &'s str)>> = left
                .iter()
                .zip(&right)
                .map(|(l, r)| {
                    let (l, r) = (self.text(*l)?, self.text(*r)?);
                    let param = root(r)?;
                    (l != r && !params.contains(l) && !self.aliases.contains_key(&(scope, l)))
                        .then_some((l, param))
                })
                .collect();
            let Some(pairs) = pairs else {
                return;
            };
            for (alias, param) in pairs {
                self.aliases.insert((scope, alias), param);
            }
            self.dropped.push(statement.byte_range());
        }
    }

    /// Copies (what stacked `temp-var` and `redundant-parens` leave: `mass = portion`,
    /// `stock = (mass)`): a statement `t = u` where `t` and `u` are the function's own names,
    /// each bound once in it (`u` may be a parameter), reads as nothing and `t` as `u`. Only
    /// where that cannot change a value: `u` is bound before the copy in the text, neither
    /// binding runs in a loop of the function, and the copy is not the only statement of its
    /// block. A name bound twice, in a loop header, by `with`/`except … as`, `:=`, a `case`
    /// pattern, `del`, an import, or `global`/`nonlocal` (here or in an inner function) is a
    /// variable, so its copies stay.
    fn python_copies(&mut self, function: Node<'_>, scope: usize, params: &HashSet<&'s str>) {
        let Some(body) = function.child_by_field_name("body") else {
            return;
        };
        const MANY: usize = 2;
        // Whether `n` runs in a loop of this function (up to its body).
        let in_loop = |n: Node<'_>| {
            let mut at = n.parent();
            while let Some(p) = at.filter(|p| p.id() != body.id()) {
                if matches!(p.kind(), "for_statement" | "while_statement") {
                    return true;
                }
                at = p.parent();
            }
            false
        };
        let mut counts: HashMap<&'s str, usize> = HashMap::new();
        // A name's (single) binding by assignment: where it starts, and whether in a loop.
        let mut bound_at: HashMap<&'s str, (usize, bool)> = HashMap::new();
        let mut copies: Vec<(Node<'_>, &'s str, &'s str)> = Vec::new();
        let every_name = |n: Node<'_>, counts: &mut HashMap<&'s str, usize>| {
            let mut inner = vec![n];
            while let Some(m) = inner.pop() {
                if m.kind() == "identifier" {
                    if let Some(t) = self.source.get(m.byte_range()) {
                        *counts.entry(t).or_default() += MANY;
                    }
                }
                inner.extend(m.named_children(&mut m.walk()));
            }
        };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            let text = |x: Node<'_>| self.source.get(x.byte_range());
            match n.kind() {
                // Inner scopes bind their own names (a definition binds its name here), but
                // their `nonlocal` rebinds this function's.
                "function_definition" | "class_definition" | "lambda" => {
                    if let Some(t) = n.child_by_field_name("name").and_then(text) {
                        *counts.entry(t).or_default() += 1;
                    }
                    let mut inner = vec![n];
                    while let Some(m) = inner.pop() {
                        if m.kind() == "nonlocal_statement" {
                            every_name(m, &mut counts);
                        }
                        inner.extend(m.named_children(&mut m.walk()));
                    }
                    continue;
                }
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => continue,
                "assignment" => {
                    let looped = in_loop(n);
                    if let Some(left) = n.child_by_field_name("left") {
                        python_targets(left, &mut |x, member| {
                            if let Some(t) = text(x).filter(|_| !member) {
                                *counts.entry(t).or_default() += 1;
                                bound_at.insert(t, (x.start_byte(), looped));
                            }
                        });
                    }
                    let right = n
                        .child_by_field_name("right")
                        .map(super::structure::within_parentheses);
                    match (n.child_by_field_name("left"), right, n.parent()) {
                        (Some(l), Some(r), Some(s))
                            if l.kind() == "identifier"
                                && r.kind() == "identifier"
                                && s.kind() == "expression_statement"
                                && s.named_child_count() == 1
                                && !looped =>
                        {
                            if let (Some(t), Some(u)) = (text(l), text(r)) {
                                copies.push((s, t, u));
                            }
                        }
                        _ => {}
                    }
                }
                "augmented_assignment" | "for_statement" => {
                    if let Some(left) = n.child_by_field_name("left") {
                        every_name(left, &mut counts);
                    }
                }
                "named_expression" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        every_name(name, &mut counts);
                    }
                }
                "as_pattern" => {
                    if let Some(alias) = n.child_by_field_name("alias") {
                        every_name(alias, &mut counts);
                    }
                }
                "case_pattern"
                | "delete_statement"
                | "global_statement"
                | "nonlocal_statement"
                | "import_statement"
                | "import_from_statement" => {
                    every_name(n, &mut counts);
                    continue;
                }
                _ => {}
            }
            stack.extend(n.named_children(&mut n.walk()));
        }
        copies.sort_by_key(|(s, _, _)| s.start_byte());
        for (statement, t, u) in copies {
            let once = |x: &str| counts.get(x) == Some(&1);
            // `u` holds its one value by the time the copy runs, and keeps it.
            let settled_before = if params.contains(u) {
                !counts.contains_key(u)
            } else {
                once(u)
                    && bound_at
                        .get(u)
                        .is_some_and(|&(at, looped)| at < statement.start_byte() && !looped)
            };
            // The only statement of a block cannot go (the block would be empty).
            let alone = statement.parent().is_none_or(|b| {
                b.named_children(&mut b.walk())
                    .filter(|c| c.kind() != "comment")
                    .count()
                    < 2
            });
            // The first of a `;`-joined line waits for the pass that reads the line apart:
            // left out, it would leave the next statement at its column after the `;`.
            if t == u
                || !super::structure::alone_on_its_lines(statement)
                || params.contains(t)
                || !once(t)
                || !settled_before
                || alone
                || self.aliases.contains_key(&(scope, t))
            {
                continue;
            }
            let root = self.aliases.get(&(scope, u)).copied().unwrap_or(u);
            if root == t {
                continue;
            }
            self.aliases.insert((scope, t), root);
            self.dropped.push(statement.byte_range());
        }
    }

    /// Records what a Java node declares; returns the scope its children live in.
    fn java_site(&mut self, n: Node<'_>, scope: usize) -> usize {
        let name = n.child_by_field_name("name");
        match n.kind() {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "enum_constant" => {
                if let Some(name) = name {
                    self.member(name);
                }
                scope
            }
            "method_declaration" | "constructor_declaration" => {
                if let Some(name) = name {
                    self.member(name);
                }
                self.open(scope, false)
            }
            "lambda_expression" => {
                let inner = self.open(scope, false);
                if let Some(p) = n.child_by_field_name("parameters") {
                    if p.kind() == "identifier" {
                        self.bind(inner, p);
                    } else if p.kind() == "inferred_parameters" {
                        for c in p.named_children(&mut p.walk()) {
                            self.bind(inner, c);
                        }
                    }
                }
                inner
            }
            "variable_declarator" => {
                if let Some(name) = name {
                    let field = n.parent().is_some_and(|p| {
                        matches!(p.kind(), "field_declaration" | "constant_declaration")
                    });
                    if field || scope == 0 {
                        self.member(name);
                    } else {
                        self.bind(scope, name);
                    }
                }
                scope
            }
            // Java locals are block-scoped: two loops' `i` are two names.
            "block" | "for_statement" | "switch_block" | "catch_clause" => self.open(scope, false),
            "enhanced_for_statement" => {
                let inner = self.open(scope, false);
                if let Some(name) = name {
                    self.bind(inner, name);
                }
                inner
            }
            "formal_parameter" | "catch_formal_parameter" | "resource" => {
                if let Some(name) = name {
                    self.bind(scope, name);
                }
                scope
            }
            "spread_parameter" => {
                for c in n.named_children(&mut n.walk()) {
                    if c.kind() == "variable_declarator" {
                        if let Some(x) = c.child_by_field_name("name") {
                            self.bind(scope, x);
                        }
                    }
                }
                scope
            }
            _ => scope,
        }
    }

    fn resolve(&self, scope: usize, role: Role, text: &'s str) -> Option<Name<'s>> {
        if role == Role::Member {
            return self.members.contains(text).then_some(Name::Member(text));
        }
        let mut at = Some(scope);
        let mut first = true;
        while let Some(s) = at {
            let class = self.is_class.get(s).copied().unwrap_or(false);
            // Methods do not see their class body's names (they are members there).
            if (!class || first) && !self.outward.contains(&(s, text)) {
                if class && self.members.contains(text) {
                    return Some(Name::Member(text));
                }
                if self.bound.contains(&(s, text)) {
                    // An alias of a copy made later in the text reads as what that copies.
                    let mut text = text;
                    for _ in 0..self.aliases.len() {
                        match self.aliases.get(&(s, text)) {
                            Some(next) if *next != text => text = next,
                            _ => break,
                        }
                    }
                    if self.interface.contains(&(s, text)) {
                        return Some(Name::Interface(text));
                    }
                    return Some(Name::Local(s, text));
                }
            }
            first = false;
            at = self.parent.get(s).copied().flatten();
        }
        self.members.contains(text).then_some(Name::Member(text))
    }
}

/// Whether the identifier `n` is reached through an object (an attribute, a field access, a
/// method call's name) or names a keyword argument.
pub(super) fn is_member_position(language: Language, n: Node<'_>) -> bool {
    let Some(p) = n.parent() else {
        return false;
    };
    let is = |field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == n.id())
    };
    match (language, p.kind()) {
        (Language::Python, "attribute") => is("attribute"),
        (Language::Python, "keyword_argument") => is("name"),
        (Language::Java, "field_access") => is("field"),
        (Language::Java, "method_invocation") => is("name"),
        (Language::Java, "method_reference") => p.named_child(0).is_none_or(|c| c.id() != n.id()),
        (Language::Java, _) => n.kind() == "type_identifier",
        _ => false,
    }
}

/// The parameters of a Python parameter list that a caller may pass by keyword: not those
/// before a `/` (positional-only), nor `*args` and `**kwargs`.
fn keyword_parameters<'t>(ps: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for p in ps.named_children(&mut ps.walk()) {
        let splat =
            |x: Node<'_>| matches!(x.kind(), "list_splat_pattern" | "dictionary_splat_pattern");
        match p.kind() {
            "positional_separator" => out.clear(),
            _ if splat(p)
                || (p.kind() == "typed_parameter" && p.named_child(0).is_some_and(splat)) => {}
            _ => python_parameter(p, &mut |x| out.push(x)),
        }
    }
    out
}

/// The names a Python parameter binds.
fn python_parameter<'t>(p: Node<'t>, add: &mut dyn FnMut(Node<'t>)) {
    match p.kind() {
        "identifier" => add(p),
        "default_parameter" | "typed_default_parameter" => {
            if let Some(name) = p.child_by_field_name("name") {
                python_parameter(name, add);
            }
        }
        "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
            if let Some(first) = p.named_child(0) {
                python_parameter(first, add);
            }
        }
        "tuple_pattern" => {
            for c in p.named_children(&mut p.walk()) {
                python_parameter(c, add);
            }
        }
        _ => {}
    }
}

/// The names an assignment target binds: plain names, and (as members) the attribute an
/// `obj.attr = …` sets; subscripts bind nothing.
fn python_targets<'t>(t: Node<'t>, add: &mut dyn FnMut(Node<'t>, bool)) {
    match t.kind() {
        "identifier" => add(t, false),
        "attribute" => {
            if let Some(a) = t.child_by_field_name("attribute") {
                add(a, true);
            }
        }
        "subscript" => {}
        _ => {
            for c in t.named_children(&mut t.walk()) {
                python_targets(c, add);
            }
        }
    }
}
