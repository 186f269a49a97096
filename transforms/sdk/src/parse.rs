//! Parsing Python with tree-sitter-python, plus small node helpers used by every SPT.

use std::fmt;
use tree_sitter::{Node, Parser, Tree};

/// Why a source text could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The tree-sitter parser could not be set up (never expected).
    Language(String),
    /// The program has a syntax error at this 1-based line.
    Syntax { line: usize },
    /// The Java program has a syntax error at this 1-based line.
    JavaSyntax { line: usize },
    /// The C++ program has a syntax error at this 1-based line.
    CppSyntax { line: usize },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Language(e) => write!(f, "cannot load the Python grammar: {e}"),
            ParseError::Syntax { line } => {
                write!(f, "input does not parse as Python (line {line})")
            }
            ParseError::JavaSyntax { line } => {
                write!(f, "input does not parse as Java (line {line})")
            }
            ParseError::CppSyntax { line } => {
                write!(f, "input does not parse as C++ (line {line})")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// A parsed program: the source text and its syntax tree (without ERROR or MISSING nodes).
pub struct Parsed {
    /// The source text.
    pub source: String,
    /// The tree-sitter syntax tree of `source`.
    pub tree: Tree,
    /// Line starts inside string literals, computed once on first use.
    string_lines: std::cell::OnceCell<Vec<usize>>,
    /// Byte ranges of the outermost string literals, sorted (cached).
    strings: std::cell::OnceCell<Vec<std::ops::Range<usize>>>,
    /// Byte ranges of self-documenting f-string fields (`{x=}`), sorted (cached).
    debug_fields: std::cell::OnceCell<Vec<std::ops::Range<usize>>>,
}

impl Parsed {
    /// Parses `source`; a tree with an ERROR or MISSING node is a [`ParseError::Syntax`].
    pub fn new(source: &str) -> Result<Self, ParseError> {
        let tree = parse_tree(source)?;
        if let Some(line) = first_error_line(tree.root_node()) {
            return Err(ParseError::Syntax { line });
        }
        Ok(Parsed {
            source: source.to_string(),
            tree,
            string_lines: std::cell::OnceCell::new(),
            strings: std::cell::OnceCell::new(),
            debug_fields: std::cell::OnceCell::new(),
        })
    }

    /// The root (`module`) node.
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of `node`.
    pub fn text(&self, node: Node<'_>) -> &str {
        &self.source[node.byte_range()]
    }

    /// Offsets of line starts that lie strictly inside a string literal, sorted (cached).
    pub fn string_line_starts(&self) -> &[usize] {
        self.string_lines
            .get_or_init(|| crate::text::string_line_starts(self))
    }

    /// Whether `range` lies inside a string literal (f-string fields included), other than
    /// being exactly an outermost literal. Answered from
    /// ranges collected once, so it costs no walk up the tree (tree-sitter's `parent()` walks
    /// down from the root, which is quadratic on deep expressions).
    pub fn in_string(&self, range: &std::ops::Range<usize>) -> bool {
        let strings = self.strings.get_or_init(|| {
            let mut out: Vec<std::ops::Range<usize>> = Vec::new();
            for n in self.nodes() {
                if n.kind() == "string" && out.last().is_none_or(|l| n.start_byte() >= l.end) {
                    out.push(n.byte_range());
                }
            }
            out
        });
        contained(strings, range)
            && !strings
                .binary_search_by_key(&range.start, |r| r.start)
                .is_ok_and(|i| strings[i] == *range)
    }

    /// Whether `range` lies inside a self-documenting f-string field (`f"{a + b=}"`, whose
    /// output contains the field's text).
    pub fn in_debug_field(&self, range: &std::ops::Range<usize>) -> bool {
        let fields = self.debug_fields.get_or_init(|| {
            let mut out: Vec<std::ops::Range<usize>> = Vec::new();
            for n in self.nodes_of_kind("interpolation") {
                if let Some(e) = n.child_by_field_name("expression") {
                    let after = self.source[e.end_byte()..n.end_byte()].trim_start();
                    if after.starts_with('=')
                        && !after.starts_with("==")
                        && out.last().is_none_or(|l| n.start_byte() >= l.end)
                    {
                        out.push(n.byte_range());
                    }
                }
            }
            out
        });
        contained(fields, range)
    }

    /// Every node of the tree in document order (pre-order).
    pub fn nodes(&self) -> Vec<Node<'_>> {
        descendants(self.root())
    }

    /// Nodes of the given kind in document order.
    pub fn nodes_of_kind(&self, kind: &str) -> Vec<Node<'_>> {
        self.nodes()
            .into_iter()
            .filter(|n| n.kind() == kind)
            .collect()
    }
}

/// Whether `range` lies within one of the sorted, non-overlapping `ranges`.
fn contained(ranges: &[std::ops::Range<usize>], range: &std::ops::Range<usize>) -> bool {
    let i = ranges.partition_point(|r| r.start <= range.start);
    i > 0 && range.end <= ranges[i - 1].end && range.start < ranges[i - 1].end
}

/// Parses without checking for errors.
pub fn parse_tree(source: &str) -> Result<Tree, ParseError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| ParseError::Language(e.to_string()))?;
    parser
        .parse(source, None)
        .ok_or_else(|| ParseError::Language("parser returned no tree".into()))
}

/// The 1-based line of the first ERROR or MISSING node, if any.
pub fn first_error_line(root: Node<'_>) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    descendants(root)
        .into_iter()
        .find(|n| n.is_error() || n.is_missing())
        .map(|n| n.start_position().row + 1)
        .or(Some(root.start_position().row + 1))
}

/// All nodes below and including `node`, pre-order (one cursor walk, no per-node allocation).
pub fn descendants(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.depth() == 0 {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Named children of `node`.
pub fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// All children of `node`, named or not.
pub fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// Whether any node below `node` (inclusive) satisfies `pred`, without descending into nodes
/// for which `stop` holds (the stopping node itself is not tested).
pub fn any_within(
    node: Node<'_>,
    pred: &dyn Fn(Node<'_>) -> bool,
    stop: &dyn Fn(Node<'_>) -> bool,
) -> bool {
    if pred(node) {
        return true;
    }
    children(node)
        .into_iter()
        .any(|c| !stop(c) && any_within(c, pred, stop))
}

/// The `alternative` children of an `if` statement (its `elif`/`else` clauses) or of a `match`
/// body (its `case` clauses), in order.
pub fn alternatives(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children_by_field_name("alternative", &mut cursor)
        .collect()
}

/// Node kinds that open a new Python scope.
pub fn is_scope_node(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "class_definition"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

/// Whether `node` is a function or lambda (a boundary for `return`, `yield`, `break`…).
pub fn is_function_like(kind: &str) -> bool {
    matches!(kind, "function_definition" | "lambda" | "class_definition")
}

/// Whether `body` (a loop body) contains a `break` or `continue` that belongs to this loop,
/// i.e. not nested inside an inner loop or function.
pub fn has_own_break_or_continue(body: Node<'_>) -> bool {
    any_within(
        body,
        &|n| matches!(n.kind(), "break_statement" | "continue_statement"),
        &|n| matches!(n.kind(), "for_statement" | "while_statement") || is_function_like(n.kind()),
    )
}

/// Whether `node` contains, outside nested functions and classes, a node of one of `kinds`.
pub fn contains_in_same_function(node: Node<'_>, kinds: &[&str]) -> bool {
    any_within(node, &|n| kinds.contains(&n.kind()), &|n| {
        is_function_like(n.kind())
    })
}

/// The innermost enclosing node of `node` (exclusive) that is a scope node, if any.
pub fn enclosing_scope(node: Node<'_>) -> Option<Node<'_>> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if is_scope_node(n.kind()) {
            return Some(n);
        }
        cur = n.parent();
    }
    None
}

/// Whether `node` executes in a class body's scope (its innermost enclosing scope is a class).
///
/// New names bound there would become class attributes, so SPTs that add names decline it.
pub fn in_class_scope(node: Node<'_>) -> bool {
    enclosing_scope(node).is_some_and(|s| s.kind() == "class_definition")
}
