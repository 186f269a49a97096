//! ## What it does
//! Writes `endl` (or `std::endl`) in an output chain as `'\n'` or `"\n"`, and swaps `'\n'`
//! and `"\n"` in output chains.
//!
//! ## Why it preserves semantics
//! `os << endl` writes `'\n'` and then flushes the stream; `os << '\n'` and `os << "\n"`
//! write the same character. The flush is not observable in what a batch program prints: at
//! normal exit (a `return` from `main` or `exit`) every `std::cout` buffer is flushed in
//! order, and standard output is compared as a whole. What could tell them apart is output
//! interleaved with C stdio when the streams are not synchronised, or a process that ends
//! without flushing; programs that could do either are left alone.
//!
//! ## Example
//! ```cpp
//! cout << ans << endl;
//! ```
//! becomes
//! ```cpp
//! cout << ans << '\n';
//! ```
//!
//! ## Not applied when
//! - the program also writes through C stdio (`printf`, `puts`, `putchar`, `fwrite`, …) or
//!   flushes by hand (`fflush`, `flush`), since with `sync_with_stdio(false)` the order of
//!   the two outputs depends on the flushes;
//! - the program can end without flushing or races on output (`abort`, `_Exit`,
//!   `quick_exit`, `raise`, `signal`, `fork`, threads);
//! - the site uses a macro or lies in code a preprocessor conditional guards.

use sdk::cpp::{in_conditional, mentions_any, CppParsed};
use sdk::{Edits, Rng};

sdk::declare_cpp_transform! {
    name: "cpp-endl",
    description: "Writes C++ endl as a newline character where the flush cannot be observed",
    category: "expression",
    rewrite: rewrite,
}

/// Words whose presence makes a flush observable (see the crate docs).
const FLUSH_OBSERVERS: &[&str] = &[
    "printf",
    "puts",
    "putchar",
    "putc",
    "fputs",
    "fputc",
    "fwrite",
    "fprintf",
    "fflush",
    "flush",
    "write",
    "abort",
    "_Exit",
    "quick_exit",
    "raise",
    "signal",
    "fork",
    "thread",
    "async",
];

fn rewrite(p: &CppParsed, rng: &mut Rng) -> Edits {
    let mut edits = Edits::new();
    if mentions_any(p, FLUSH_OBSERVERS) {
        return edits;
    }
    let mut sites: Vec<(std::ops::Range<usize>, Vec<&str>)> = Vec::new();
    for b in p.nodes_of_kind("binary_expression") {
        let (Some(op), Some(right)) = (
            b.child_by_field_name("operator"),
            b.child_by_field_name("right"),
        ) else {
            continue;
        };
        if op.kind() != "<<" || in_conditional(b) || p.uses_macro(right) {
            continue;
        }
        let options: Vec<&str> = match p.text(right) {
            "endl" | "std::endl" => vec!["'\\n'", "\"\\n\""],
            "'\\n'" => vec!["\"\\n\""],
            "\"\\n\"" => vec!["'\\n'"],
            _ => continue,
        };
        sites.push((right.byte_range(), options));
    }
    for i in rng.sites(sites.len(), 0.5) {
        let (range, options) = &sites[i];
        let pick = rng.below(options.len());
        edits.replace(range.clone(), options[pick].to_string());
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::apply;
    sdk::cpp_fixture_tests!(apply);

    #[test]
    fn programs_that_could_observe_the_flush_are_declined() {
        sdk::testing::assert_declines(
            apply,
            &[
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { ios::sync_with_stdio(false); cout << 1 << endl; printf(\"2\\n\"); }\n",
                "#include <bits/stdc++.h>\nusing namespace std;\nint main() { cout << 1 << endl; abort(); }\n",
            ],
            8,
        );
    }
}
