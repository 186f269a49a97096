//! Guest SDK shared by every Rust SPT of equimorph.
//!
//! It compiles both natively (so each SPT's snapshot tests run without WebAssembly) and for
//! `wasm32-unknown-unknown` (where [`export_transform!`] binds a crate to the WIT world).
//!
//! - [`parse`]: tree-sitter-python parsing and node helpers;
//! - [`scope`]: Python scopes and name resolution (what may be renamed, what may not);
//! - [`names`]: fresh identifiers that collide with nothing, from a seeded vocabulary;
//! - [`effects`]: may-raise and has-effects judgements, statements of a block, docstrings;
//! - [`edit`]: non-overlapping byte-range replacements applied in one pass;
//! - [`text`]: indentation helpers that never touch the inside of string literals;
//! - [`types`]: builtin types of names and expressions proved from the program text;
//! - [`rng`]: the seeded RNG (ChaCha8, fixed) behind every random choice;
//! - [`java`]: the Java side: tree-sitter-java parsing, scopes and bindings, statement helpers
//!   (edits, fresh names, indentation and the RNG above are shared by both languages);
//! - [`cpp`]: the C++ side: tree-sitter-cpp parsing, local bindings, statement helpers.

pub mod cpp;
pub mod edit;
pub mod effects;
pub mod java;
pub mod names;
pub mod parse;
pub mod pyast;
pub mod rng;
pub mod scope;
pub mod text;
pub mod types;

pub use edit::Edits;
pub use parse::{ParseError, Parsed};
pub use rng::Rng;

/// What a transform says about itself (mirrors the WIT `info` record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// Unique kebab-case name.
    pub name: &'static str,
    /// One line.
    pub description: &'static str,
    /// naming | control-flow | data-flow | expression | structure | layout
    pub category: &'static str,
    /// The language of the programs it rewrites: `python`, `java` or `cpp`.
    pub language: &'static str,
}

/// The outcome of one application: `Ok(None)` = not applicable, `Err` = the input could not be handled.
pub type Outcome = Result<Option<String>, String>;

/// Parses `source`, runs `rewrite` on it and turns the edit list into the output program.
///
/// Returns `Ok(None)` when `rewrite` produced no edits or the edits leave the text unchanged.
pub fn run(source: &str, seed: u64, rewrite: impl FnOnce(&Parsed, &mut Rng) -> Edits) -> Outcome {
    run_with(source, Rng::new(seed), rewrite).0
}

/// Like [`run`], but rewrites only the `site`-th candidate site (see [`Rng::forcing_site`]);
/// also returns how many candidate sites the transform offered, so a test can visit them all.
pub fn run_at_site(
    source: &str,
    seed: u64,
    site: usize,
    rewrite: impl FnOnce(&Parsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    run_with(source, Rng::forcing_site(seed, site), rewrite)
}

fn run_with(
    source: &str,
    rng: Rng,
    rewrite: impl FnOnce(&Parsed, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    run_parsed(source, rng, Parsed::new, rewrite)
}

/// Parses `source` with `parse` (any language's), runs `rewrite` on it with `rng` and turns
/// the edits into the output program; also returns how many candidate sites were offered.
pub fn run_parsed<P>(
    source: &str,
    mut rng: Rng,
    parse: impl FnOnce(&str) -> Result<P, ParseError>,
    rewrite: impl FnOnce(&P, &mut Rng) -> Edits,
) -> (Outcome, usize) {
    let outcome = (|| {
        let parsed = parse(source).map_err(|e| e.to_string())?;
        let edits = rewrite(&parsed, &mut rng);
        finish(source, edits)
    })();
    (outcome, rng.sites_offered())
}

pub(crate) fn finish(source: &str, edits: Edits) -> Outcome {
    if edits.is_empty() {
        return Ok(None);
    }
    let out = edits.apply(source).map_err(|e| e.to_string())?;
    if out == source {
        Ok(None)
    } else {
        Ok(Some(out))
    }
}

/// Declares a transform crate built on [`run`]: its `INFO`, its `apply` function (parse, call
/// `$rewrite(&Parsed, &mut Rng) -> Edits`, apply the edits) and its WebAssembly export.
// `crate::` deliberately names the invoking crate, where INFO and apply are defined.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! declare_transform {
    (name: $name:expr, description: $description:expr, category: $category:expr, rewrite: $rewrite:path $(,)?) => {
        /// This transform's self-description.
        pub const INFO: $crate::Info = $crate::Info {
            name: $name,
            description: $description,
            category: $category,
            language: "python",
        };

        /// Applies the transform (see the crate docs).
        pub fn apply(source: &str, seed: u64) -> $crate::Outcome {
            $crate::run(source, seed, $rewrite)
        }

        /// Applies the transform at its `site`-th candidate site only; also returns how many
        /// candidate sites it offered (tests use it to visit every site).
        pub fn apply_at_site(source: &str, seed: u64, site: usize) -> ($crate::Outcome, usize) {
            $crate::run_at_site(source, seed, site, $rewrite)
        }

        $crate::export_transform!(crate::INFO, crate::apply);
    };
}

/// Declares a Java transform crate built on [`java::run`]: like [`declare_transform!`], with a
/// rewrite of type `fn(&java::JavaParsed, &mut Rng) -> Edits` and `language: "java"` in its info.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! declare_java_transform {
    (name: $name:expr, description: $description:expr, category: $category:expr, rewrite: $rewrite:path $(,)?) => {
        /// This transform's self-description.
        pub const INFO: $crate::Info = $crate::Info {
            name: $name,
            description: $description,
            category: $category,
            language: "java",
        };

        /// Applies the transform (see the crate docs).
        pub fn apply(source: &str, seed: u64) -> $crate::Outcome {
            $crate::java::run(source, seed, $rewrite)
        }

        /// Applies the transform at its `site`-th candidate site only; also returns how many
        /// candidate sites it offered (tests use it to visit every site).
        pub fn apply_at_site(source: &str, seed: u64, site: usize) -> ($crate::Outcome, usize) {
            $crate::java::run_at_site(source, seed, site, $rewrite)
        }

        $crate::export_transform!(crate::INFO, crate::apply);
    };
}

/// Declares a C++ transform crate built on [`cpp::run`]: like [`declare_transform!`], with a
/// rewrite of type `fn(&cpp::CppParsed, &mut Rng) -> Edits` and `language: "cpp"` in its info.
/// A crate whose every output of a C program is C (no C++-only syntax written) declares
/// `languages: "cpp c"` and is offered C programs too; its `c_fixture_tests!` check that.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! declare_cpp_transform {
    (name: $name:expr, description: $description:expr, category: $category:expr, rewrite: $rewrite:path $(,)?) => {
        $crate::declare_cpp_transform!(name: $name, description: $description, category: $category, languages: "cpp", rewrite: $rewrite);
    };
    (name: $name:expr, description: $description:expr, category: $category:expr, languages: $languages:expr, rewrite: $rewrite:path $(,)?) => {
        /// This transform's self-description.
        pub const INFO: $crate::Info = $crate::Info {
            name: $name,
            description: $description,
            category: $category,
            language: $languages,
        };

        /// Applies the transform (see the crate docs).
        pub fn apply(source: &str, seed: u64) -> $crate::Outcome {
            $crate::cpp::run(source, seed, $rewrite)
        }

        /// Applies the transform at its `site`-th candidate site only; also returns how many
        /// candidate sites it offered (tests use it to visit every site).
        pub fn apply_at_site(source: &str, seed: u64, site: usize) -> ($crate::Outcome, usize) {
            $crate::cpp::run_at_site(source, seed, site, $rewrite)
        }

        $crate::export_transform!(crate::INFO, crate::apply);
    };
}

/// Binds a transform crate to the WIT world `transform` when built for WebAssembly.
///
/// `$info` is an expression of type [`Info`], `$apply` a `fn(&str, u64) -> Outcome`.
/// The invoking crate must depend on `wit-bindgen` and sit one level below `transforms/`.
#[macro_export]
macro_rules! export_transform {
    ($info:expr, $apply:path) => {
        #[cfg(target_arch = "wasm32")]
        mod __equimorph_component {
            wit_bindgen::generate!({ world: "transform", path: "../wit" });

            struct Component;

            impl Guest for Component {
                fn info() -> Info {
                    let i: $crate::Info = $info;
                    Info {
                        name: i.name.to_string(),
                        description: i.description.to_string(),
                        category: i.category.to_string(),
                        language: i.language.to_string(),
                    }
                }

                fn apply(source: String, seed: u64) -> Result<Option<String>, String> {
                    $apply(&source, seed)
                }
            }

            export!(Component);
        }
    };
}

/// Binds a crate to version 0.1.0 of the WIT world (`transforms/wit-0.1`, whose `info` has no
/// `language`): what components built before 0.2.0 export. Only the test guest `hostile` uses it,
/// so that the host's loading of old components stays tested.
#[macro_export]
macro_rules! export_transform_v01 {
    ($info:expr, $apply:path) => {
        #[cfg(target_arch = "wasm32")]
        mod __equimorph_component {
            wit_bindgen::generate!({ world: "transform", path: "../wit-0.1" });

            struct Component;

            impl Guest for Component {
                fn info() -> Info {
                    let i: $crate::Info = $info;
                    Info {
                        name: i.name.to_string(),
                        description: i.description.to_string(),
                        category: i.category.to_string(),
                    }
                }

                fn apply(source: String, seed: u64) -> Result<Option<String>, String> {
                    $apply(&source, seed)
                }
            }

            export!(Component);
        }
    };
}

pub mod testing;
