//! Java scopes and bindings: every local variable, parameter (of methods, constructors, lambdas
//! and catch clauses), loop variable and resource, with its declared type and scope, the
//! identifiers that refer to it, and whether it may be renamed; plus the class members (fields,
//! methods, classes) and whether they may be renamed.
//!
//! Java makes locals easier than Python: a local may not be redeclared inside the scope of
//! another local of the same name, so inside a local's scope every simple name in expression
//! position that spells it refers to it — except inside a class body (an anonymous or local
//! class), whose members (declared or inherited) may shadow it. Renaming therefore declines a
//! local whose scope holds a class body that spells its name, and a name that a pattern variable (`x instanceof T t`, whose scope follows flow)
//! also uses.

use super::{is_class_like, JavaParsed};
use crate::parse::{descendants, named_children};
use std::ops::Range;
use tree_sitter::Node;

/// What declares a local binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalKind {
    /// `T x = …;` in a block.
    Variable,
    /// A method or constructor parameter.
    Parameter,
    /// A lambda parameter.
    LambdaParameter,
    /// The parameter of a `catch` clause.
    CatchParameter,
    /// A variable declared in a `for` header.
    ForVariable,
    /// The variable of an enhanced `for`.
    EnhancedForVariable,
    /// A try-with-resources resource.
    Resource,
}

/// One local binding.
#[derive(Debug, Clone)]
pub struct Local<'t> {
    /// Its name.
    pub name: String,
    /// The identifier node that declares it.
    pub decl: Node<'t>,
    /// The declared type's text (`int`, `int[]`, `List<String>`, `var`), `None` for an
    /// implicitly typed lambda parameter.
    pub ty: Option<String>,
    /// Where it is in scope (bytes).
    pub scope: Range<usize>,
    /// What declares it.
    pub kind: LocalKind,
}

impl Local<'_> {
    /// Whether its declared type is a primitive (reads of it cannot throw or run code).
    pub fn is_primitive(&self) -> bool {
        self.ty.as_deref().is_some_and(is_primitive_type)
    }
}

/// Whether a type's text names a primitive type.
pub fn is_primitive_type(ty: &str) -> bool {
    matches!(
        ty.trim(),
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "double" | "float"
    )
}

/// Every local binding of the program, in document order.
pub fn locals(parsed: &JavaParsed) -> Vec<Local<'_>> {
    let mut out = Vec::new();
    for n in parsed.nodes() {
        match n.kind() {
            "local_variable_declaration" => {
                let Some(parent) = n.parent() else { continue };
                let ty = n
                    .child_by_field_name("type")
                    .map(|t| parsed.text(t).to_string());
                let (end, kind) = match parent.kind() {
                    "for_statement" => (parent.end_byte(), LocalKind::ForVariable),
                    // A declaration in a switch group is in scope to the end of the switch block.
                    "switch_block_statement_group" => (
                        parent.parent().map_or(parent.end_byte(), |b| b.end_byte()),
                        LocalKind::Variable,
                    ),
                    _ => (parent.end_byte(), LocalKind::Variable),
                };
                for d in named_children(n) {
                    if d.kind() != "variable_declarator" {
                        continue;
                    }
                    if let Some(name) = d.child_by_field_name("name") {
                        let dims = d.child_by_field_name("dimensions").map(|x| parsed.text(x));
                        out.push(Local {
                            name: parsed.text(name).to_string(),
                            decl: name,
                            ty: ty.clone().map(|t| format!("{t}{}", dims.unwrap_or(""))),
                            scope: d.start_byte()..end,
                            kind,
                        });
                    }
                }
            }
            "formal_parameter" | "spread_parameter" => {
                let Some(owner) = n.parent().and_then(|p| p.parent()) else {
                    continue;
                };
                let kind = if owner.kind() == "lambda_expression" {
                    LocalKind::LambdaParameter
                } else {
                    LocalKind::Parameter
                };
                let name = if n.kind() == "spread_parameter" {
                    named_children(n)
                        .into_iter()
                        .find(|c| c.kind() == "variable_declarator")
                        .and_then(|d| d.child_by_field_name("name"))
                } else {
                    n.child_by_field_name("name")
                };
                if let Some(name) = name.filter(|x| x.kind() == "identifier") {
                    // Inside the method a varargs parameter `T... xs` is a `T[]`.
                    let ty = if n.kind() == "spread_parameter" {
                        named_children(n)
                            .into_iter()
                            .find(|c| c.kind() != "modifiers" && c.kind() != "variable_declarator")
                            .map(|t| format!("{}[]", parsed.text(t)))
                    } else {
                        n.child_by_field_name("type")
                            .map(|t| parsed.text(t).to_string())
                    };
                    out.push(Local {
                        name: parsed.text(name).to_string(),
                        decl: name,
                        ty,
                        scope: owner.byte_range(),
                        kind,
                    });
                }
            }
            "lambda_expression" => {
                let Some(params) = n.child_by_field_name("parameters") else {
                    continue;
                };
                let names: Vec<Node<'_>> = match params.kind() {
                    "identifier" => vec![params],
                    "inferred_parameters" => named_children(params)
                        .into_iter()
                        .filter(|c| c.kind() == "identifier")
                        .collect(),
                    _ => Vec::new(),
                };
                for name in names {
                    out.push(Local {
                        name: parsed.text(name).to_string(),
                        decl: name,
                        ty: None,
                        scope: n.byte_range(),
                        kind: LocalKind::LambdaParameter,
                    });
                }
            }
            "catch_formal_parameter" => {
                let Some(clause) = n.parent() else { continue };
                if let Some(name) = n
                    .child_by_field_name("name")
                    .filter(|x| x.kind() == "identifier")
                {
                    let ty = named_children(n)
                        .into_iter()
                        .find(|c| c.kind() == "catch_type")
                        .map(|t| parsed.text(t).to_string());
                    out.push(Local {
                        name: parsed.text(name).to_string(),
                        decl: name,
                        ty,
                        scope: clause.byte_range(),
                        kind: LocalKind::CatchParameter,
                    });
                }
            }
            "enhanced_for_statement" => {
                if let Some(name) = n
                    .child_by_field_name("name")
                    .filter(|x| x.kind() == "identifier")
                {
                    out.push(Local {
                        name: parsed.text(name).to_string(),
                        decl: name,
                        ty: n
                            .child_by_field_name("type")
                            .map(|t| parsed.text(t).to_string()),
                        scope: name.start_byte()..n.end_byte(),
                        kind: LocalKind::EnhancedForVariable,
                    });
                }
            }
            "resource" => {
                let Some(tries) = n.parent().and_then(|p| p.parent()) else {
                    continue;
                };
                if let Some(name) = n
                    .child_by_field_name("name")
                    .filter(|x| x.kind() == "identifier")
                {
                    out.push(Local {
                        name: parsed.text(name).to_string(),
                        decl: name,
                        ty: n
                            .child_by_field_name("type")
                            .map(|t| parsed.text(t).to_string()),
                        scope: name.start_byte()..tries.end_byte(),
                        kind: LocalKind::Resource,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether the identifier `id` stands where a variable may be named: not a member name after
/// `.`, not a method's name, not a label, not a type, package or annotation, and not a
/// declaration.
pub fn is_variable_position(id: Node<'_>) -> bool {
    let Some(parent) = id.parent() else {
        return false;
    };
    let is_field = |f: &str| {
        parent
            .child_by_field_name(f)
            .is_some_and(|c| c.id() == id.id())
    };
    match parent.kind() {
        "field_access" => !is_field("field"),
        "method_invocation" => !is_field("name"),
        "method_reference" => parent.named_child(0).is_some_and(|c| c.id() == id.id()),
        "labeled_statement"
        | "break_statement"
        | "continue_statement"
        | "scoped_identifier"
        | "import_declaration"
        | "package_declaration"
        | "marker_annotation"
        | "annotation"
        | "element_value_pair"
        | "scoped_type_identifier"
        | "enum_constant" => false,
        // Declarations: only their `name` declares; other identifier children (an initialiser,
        // the iterated value of an enhanced `for`, the operand of `instanceof`, a resource that
        // names an existing variable) are references.
        "variable_declarator"
        | "formal_parameter"
        | "catch_formal_parameter"
        | "resource"
        | "enhanced_for_statement"
        | "method_declaration"
        | "constructor_declaration"
        | "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "instanceof_expression"
        | "record_pattern_component"
        | "type_parameter" => !is_field("name"),
        "inferred_parameters" => false,
        "lambda_expression" => !is_field("parameters"),
        _ => true,
    }
}

/// The identifiers that refer to `local` (its declaration included), or `None` when renaming it
/// is not safe: a class body inside its scope that spells the name (its members, declared or
/// inherited, could shadow it), another declaration of the same name inside its scope, or its
/// name inside a string (reflection).
pub fn references<'t>(parsed: &'t JavaParsed, local: &Local<'t>) -> Option<Vec<Node<'t>>> {
    let scope_node = parsed
        .root()
        .descendant_for_byte_range(local.scope.start, local.scope.end.saturating_sub(1))?;
    let mut out = vec![local.decl];
    for n in descendants(scope_node) {
        if n.start_byte() < local.scope.start || n.end_byte() > local.scope.end {
            continue;
        }
        // A class body may declare or inherit a member of the same name, which would shadow
        // the local inside it: only a class body that never spells the name is harmless.
        if is_class_like(n.kind())
            && descendants(n)
                .iter()
                .any(|d| d.kind() == "identifier" && parsed.text(*d) == local.name)
        {
            return None;
        }
        if n.kind() == "string_literal" && parsed.text(n).contains(local.name.as_str()) {
            return None;
        }
        if n.kind() != "identifier" || parsed.text(n) != local.name || n.id() == local.decl.id() {
            continue;
        }
        if let Some(p) = n.parent() {
            let declares = matches!(
                p.kind(),
                "variable_declarator"
                    | "formal_parameter"
                    | "catch_formal_parameter"
                    | "enhanced_for_statement"
                    | "inferred_parameters"
                    | "lambda_expression"
                    | "instanceof_expression"
                    | "record_pattern_component"
            ) && !is_variable_position(n);
            if declares {
                return None;
            }
        }
        if is_variable_position(n) {
            out.push(n);
        }
    }
    Some(out)
}

/// A class member that could be renamed.
#[derive(Debug, Clone)]
pub struct Member<'t> {
    /// Its name.
    pub name: String,
    /// The identifier node that declares it.
    pub decl: Node<'t>,
    /// `field`, `method` or `class`.
    pub kind: &'static str,
    /// Whether renaming it is safe (see [`members`]).
    pub renamable: bool,
}

/// The fields, methods and classes the program declares, each judged renamable or not. Never
/// renamable: `main`; anything whose name appears in a string literal (reflection,
/// `getMethod("x")`); methods with `@Override` or whose name is declared twice in the program
/// (overloads, overrides); methods of a class that extends or implements anything (they may
/// override an inherited method); members that are not `private` or `static`-and-package-local
/// when `library` is set (the program is an API whose callers are not in view); classes holding
/// `main`; every member of an `enum` or `record`, whose names reach `valueOf`, `toString` and
/// the accessors.
pub fn members<'t>(parsed: &'t JavaParsed, library: bool) -> Vec<Member<'t>> {
    let strings: Vec<&str> = parsed
        .nodes_of_kind("string_literal")
        .into_iter()
        .map(|s| parsed.text(s))
        .collect();
    let mut out: Vec<Member<'t>> = Vec::new();
    let mut counts = std::collections::HashMap::<String, usize>::new();
    for n in parsed.nodes() {
        let kind = match n.kind() {
            "field_declaration" => "field",
            "method_declaration" => "method",
            "class_declaration" => "class",
            _ => continue,
        };
        let names: Vec<Node<'t>> = if kind == "field" {
            named_children(n)
                .into_iter()
                .filter(|d| d.kind() == "variable_declarator")
                .filter_map(|d| d.child_by_field_name("name"))
                .collect()
        } else {
            n.child_by_field_name("name").into_iter().collect()
        };
        let modifiers = named_children(n)
            .into_iter()
            .find(|c| c.kind() == "modifiers")
            .map_or("", |m| parsed.text(m));
        let owner = n.parent().and_then(|b| b.parent());
        let owner_inherits = owner.is_some_and(|c| {
            c.child_by_field_name("superclass").is_some()
                || c.child_by_field_name("interfaces").is_some()
                || c.kind() != "class_declaration"
        });
        for name in names {
            let text = parsed.text(name).to_string();
            *counts.entry(text.clone()).or_default() += 1;
            let private = modifiers.split_whitespace().any(|w| w == "private");
            let in_string = strings.iter().any(|s| s.contains(text.as_str()));
            let holds_main = kind == "class"
                && n.child_by_field_name("body")
                    .is_some_and(|b| parsed.text(b).contains("void main"));
            let renamable = text != "main"
                && !in_string
                && !holds_main
                && !modifiers.contains("@Override")
                && (kind != "method" || !owner_inherits)
                && (!library || private);
            out.push(Member {
                name: text,
                decl: name,
                kind,
                renamable,
            });
        }
    }
    for m in &mut out {
        if counts.get(&m.name).copied().unwrap_or(0) > 1 {
            m.renamable = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"import java.util.*;
public class Main {
    static int total = 0;
    private static int twice(int v) { return v * 2; }
    public static void main(String[] args) {
        int n = 3;
        for (int i = 0; i < n; i++) { total += twice(i); }
        for (String s : args) { System.out.println(s.length()); }
        Runnable r = () -> System.out.println(n);
        Comparator<Integer> c = (a, b) -> a - b;
        try { r.run(); } catch (RuntimeException e) { System.out.println(e); }
        Object o = new Object() { int n = 4; public String toString() { return "" + n; } };
        System.out.println(total + " " + o);
    }
}
"#;

    #[test]
    fn finds_every_kind_of_local() {
        let p = JavaParsed::new(SRC).unwrap();
        let ls = locals(&p);
        let names: Vec<(&str, LocalKind)> = ls.iter().map(|l| (l.name.as_str(), l.kind)).collect();
        for want in [
            ("v", LocalKind::Parameter),
            ("args", LocalKind::Parameter),
            ("n", LocalKind::Variable),
            ("i", LocalKind::ForVariable),
            ("s", LocalKind::EnhancedForVariable),
            ("a", LocalKind::LambdaParameter),
            ("e", LocalKind::CatchParameter),
        ] {
            assert!(names.contains(&want), "{want:?} missing from {names:?}");
        }
        let i = ls.iter().find(|l| l.name == "i").unwrap();
        assert!(i.is_primitive());
    }

    #[test]
    fn initialisers_and_iterated_values_are_references() {
        let src = "class A { void f(int b, int[] xs, int... vs) { int a = b; for (int x : xs) { a += x; } Object o = vs; boolean t = o instanceof int[]; } }";
        let p = JavaParsed::new(src).unwrap();
        let ls = locals(&p);
        let get = |n: &str| ls.iter().find(|l| l.name == n).unwrap();
        assert_eq!(references(&p, get("b")).unwrap().len(), 2);
        assert_eq!(references(&p, get("xs")).unwrap().len(), 2);
        assert_eq!(references(&p, get("o")).unwrap().len(), 2);
        assert_eq!(get("vs").ty.as_deref(), Some("int[]"));
    }

    #[test]
    fn references_respect_positions_and_class_bodies() {
        let p = JavaParsed::new(SRC).unwrap();
        let ls = locals(&p);
        let i = ls.iter().find(|l| l.name == "i").unwrap();
        assert_eq!(references(&p, i).unwrap().len(), 4);
        // `n` is shadowed by the anonymous class's field inside its scope: not renamable.
        let n = ls.iter().find(|l| l.name == "n").unwrap();
        assert!(references(&p, n).is_none());
        // `s.length()`: `s` is a reference, `length` is not.
        let s = ls.iter().find(|l| l.name == "s").unwrap();
        assert_eq!(references(&p, s).unwrap().len(), 2);
    }

    #[test]
    fn members_judged() {
        let p = JavaParsed::new(SRC).unwrap();
        let ms = members(&p, false);
        let get = |n: &str| ms.iter().find(|m| m.name == n).unwrap();
        assert!(get("twice").renamable);
        assert!(!get("main").renamable);
        assert!(!get("Main").renamable);
        assert!(get("total").renamable);
        // The anonymous class's `toString` overrides Object's.
        assert!(!get("toString").renamable);
        // As a library, only private members may change name.
        let lib = members(&p, true);
        assert!(!lib.iter().any(|m| m.name == "total" && m.renamable));
        assert!(lib.iter().any(|m| m.name == "twice" && m.renamable));
    }
}
