//! # generator-chain
//!
//! ## What it does
//! Routes a `for` loop's iteration through a generator layer defined just before the loop:
//! `for x in xs:` becomes `for x in relay(xs):` with `def relay(source): for item in source:
//! yield item`. Variants thread a counter through the generator or chain two layers.
//!
//! ## Why it preserves semantics
//! The iterable is evaluated once, at the same point, as the argument of the call. A
//! generator runs only when the loop asks for the next item, and then asks its source for
//! exactly one item, so items arrive one at a time and in the same order: a body that
//! advances or mutates the same iterator sees the same effects. The layer re-yields with a
//! plain `for` (not `yield from`), so a loop left by `break` does not close the caller's
//! iterator when the generator is collected. A non-iterable raises the same `TypeError` when
//! the loop starts. `break`, `continue` and `else:` are untouched.
//!
//! ## Example
//! ```python
//! for word in words:
//!     print(word)
//! ```
//! becomes
//! ```python
//! def relay(source):
//!     for item in source:
//!         yield item
//! for word in relay(words):
//!     print(word)
//! ```
//!
//! ## Not applied when
//! - the loop is `async for`, runs in a class body, or does not start its own line;
//! - the program inspects its namespace or frames (the generator's name would show).

use sdk::names::FreshNames;
use sdk::parse::{in_class_scope, Parsed};
use sdk::pyast::is_async;
use sdk::scope::ScopeInfo;
use sdk::text::{indent_lines, indent_unit, line_indent, starts_line};
use sdk::{Edits, Rng};
use tree_sitter::Node;

sdk::declare_transform!(
    name: "generator-chain",
    description: "Route a for loop's iteration through a generator layer",
    category: "structure",
    rewrite: rewrite,
);

fn layer(name: &str, rng: &mut Rng, fresh: &mut FreshNames, unit: &str) -> String {
    let src = fresh.fresh(rng, Some("source"));
    let item = fresh.fresh(rng, Some("item"));
    if rng.chance(0.5) {
        format!("def {name}({src}):\n{unit}for {item} in {src}:\n{unit}{unit}yield {item}\n")
    } else {
        let count = fresh.fresh(rng, Some("produced"));
        format!(
            "def {name}({src}):\n{unit}{count} = 0\n{unit}for {item} in {src}:\n{unit}{unit}{count} += 1\n{unit}{unit}yield {item}\n"
        )
    }
}

fn rewrite(parsed: &Parsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    let info = ScopeInfo::analyze(parsed);
    let src = parsed.source.as_str();
    if info.any_dynamic() {
        return edits;
    }
    let loops: Vec<Node<'_>> = parsed
        .nodes_of_kind("for_statement")
        .into_iter()
        .filter(|n| {
            !is_async(parsed, *n) && !in_class_scope(*n) && starts_line(src, n.start_byte())
        })
        .filter(|n| n.child_by_field_name("right").is_some())
        .collect();
    let Some(i) = rng.site(loops.len()) else {
        return edits;
    };
    let node = loops[i];
    let Some(iterable) = node.child_by_field_name("right") else {
        return edits;
    };
    let unit = indent_unit(parsed);
    let indent = line_indent(src, node.start_byte()).to_string();
    let mut fresh = FreshNames::new(parsed);
    let mut defs = String::new();
    let mut call = if iterable.kind() == "expression_list" {
        format!("({})", parsed.text(iterable))
    } else {
        parsed.text(iterable).to_string()
    };
    let layers = if rng.chance(0.25) { 2 } else { 1 };
    for _ in 0..layers {
        let name = fresh.fresh(rng, Some("relay"));
        defs.push_str(&layer(&name, rng, &mut fresh, &unit));
        call = format!("{name}({call})");
    }
    edits.insert(
        node.start_byte(),
        format!(
            "{}\n{indent}",
            indent_lines(defs.trim_end(), &indent).trim_start()
        ),
    );
    edits.replace(iterable.byte_range(), call);
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::fixture_tests!(apply);

    #[test]
    fn declines_async_class_bodies_and_introspection() {
        sdk::testing::assert_declines(
            apply,
            &[
                "async def f(xs):\n    async for x in xs:\n        print(x)\n",
                "class K:\n    for v in (1, 2):\n        pass\n",
                "def f(xs):\n    for x in xs:\n        print(locals())\n",
            ],
            8,
        );
    }
}
