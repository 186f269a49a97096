//! Host integration of the transform components: every component on every fixture program,
//! outputs valid and equivalent under the real oracle; cache, naming and selection errors.

use crate::common;

use equimorph::oracle::{OracleMode, ValidationStatus};
use equimorph::program::{classify, Classified, Language};
use equimorph::transform::{Limits, LoadError, TransformRuntime, TransformSet};
use rayon::prelude::*;

/// The Python transforms of the default set (the Java ones are tested in tests/java.rs).
const EXPECTED: &[&str] = &[
    "annotation-alias",
    "augmented-assign",
    "bool-restructure",
    "call-indirection",
    "callable-object",
    "comment-edit",
    "comp-to-loop",
    "compare-chain",
    "cond-expr",
    "constant-hoist",
    "constant-unfold",
    "dead-code-insert",
    "def-rename",
    "docstring-reencode",
    "elif-match",
    "for-to-while",
    "generator-chain",
    "guard-clause",
    "if-else-flip",
    "import-alias",
    "indent-width",
    "index-remap",
    "int-arith",
    "line-join",
    "loop-to-comp",
    "loop-unroll",
    "nested-function",
    "operand-swap",
    "param-alias",
    "redundant-parens",
    "state-machine",
    "state-pack",
    "stmt-swap",
    "string-reencode",
    "temp-var",
    "try-scaffold",
    "var-rename",
    "while-to-for",
    "while-true",
];

/// The Java transforms of the default set.
const EXPECTED_JAVA: &[&str] = &[
    "java-braces",
    "java-comment-edit",
    "java-compound-assign",
    "java-dead-code",
    "java-dead-member",
    "java-decl-merge",
    "java-extract-local",
    "java-extract-method",
    "java-for-to-while",
    "java-foreach-to-index",
    "java-if-else-flip",
    "java-import-edit",
    "java-int-arith",
    "java-literal-unfold",
    "java-local-rename",
    "java-loop-to-stream",
    "java-main-object",
    "java-member-rename",
    "java-member-reorder",
    "java-operand-swap",
    "java-stdin-wrap",
    "java-stmt-swap",
    "java-string-escape",
    "java-switch-to-if",
    "java-ternary-if",
    "java-try-wrap",
    "java-var-type",
    "java-while-to-for",
];

const EXPECTED_CPP: &[&str] = &[
    "cpp-auto-type",
    "cpp-block-extract",
    "cpp-braces",
    "cpp-comment-edit",
    "cpp-compound-assign",
    "cpp-const-define",
    "cpp-dead-code",
    "cpp-define-const",
    "cpp-endl",
    "cpp-for-to-while",
    "cpp-global-rename",
    "cpp-if-else-flip",
    "cpp-increment",
    "cpp-literal-unfold",
    "cpp-local-rename",
    "cpp-main-extract",
    "cpp-operand-swap",
    "cpp-std-qualify",
    "cpp-std-unqualify",
    "cpp-stdio",
    "cpp-stmt-swap",
    "cpp-switch-if",
    "cpp-ternary-if",
    "cpp-typedef-using",
    "cpp-unused-remove",
    "cpp-while-to-for",
];

#[test]
fn the_default_transforms_load_with_their_info() {
    let set = common::default_set();
    let python: Vec<String> = set
        .iter()
        .filter(|t| t.language == Language::Python)
        .map(|t| t.name.clone())
        .collect();
    let java: Vec<String> = set
        .iter()
        .filter(|t| t.language == Language::Java)
        .map(|t| t.name.clone())
        .collect();
    let cpp: Vec<String> = set
        .iter()
        .filter(|t| t.language == Language::Cpp)
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(python, EXPECTED);
    assert_eq!(java, EXPECTED_JAVA);
    assert_eq!(cpp, EXPECTED_CPP);
    assert_eq!(
        set.len(),
        EXPECTED.len() + EXPECTED_JAVA.len() + EXPECTED_CPP.len()
    );
    for t in set.iter() {
        assert!(
            [
                "naming",
                "control-flow",
                "data-flow",
                "expression",
                "structure",
                "layout"
            ]
            .contains(&t.category.as_str()),
            "{}: {}",
            t.name,
            t.category
        );
        assert!(!t.description.is_empty() && !t.description.contains('\n'));
    }
}

#[test]
fn every_output_on_every_fixture_is_valid_and_equivalent() {
    let set = common::default_set();
    let tasks = common::fixture_tasks();
    let oracle = common::oracle(OracleMode::Fork);
    let references: std::collections::HashMap<String, _> = tasks
        .tasks
        .par_iter()
        .map(|t| {
            let v = oracle.validate(t);
            assert_eq!(v.status, ValidationStatus::Ok, "{}: {:?}", t.id, v.reason);
            (t.id.clone(), v.reference.expect("reference"))
        })
        .collect();
    let mut applied = std::collections::HashMap::<String, usize>::new();
    let jobs: Vec<(usize, String, u64)> = (0..tasks.tasks.len())
        .flat_map(|i| {
            EXPECTED
                .iter()
                .flat_map(move |n| (0..3u64).map(move |s| (i, n.to_string(), s)))
        })
        .collect();
    let results: Vec<(String, String, Option<String>)> = jobs
        .par_iter()
        .map(|(i, name, seed)| {
            let task = &tasks.tasks[*i];
            let t = set.get(name).expect("present");
            let out = t
                .apply(&task.source, *seed)
                .unwrap_or_else(|e| panic!("{name} on {}: {e}", task.id));
            (task.id.clone(), name.clone(), out.map(|o| (o, *seed)))
        })
        .map(|(id, name, out)| {
            let Some((out, seed)) = out else {
                return (id, name, None);
            };
            let task = tasks.get(&id).expect("task");
            match classify(&task.source, out) {
                Classified::Valid(text) => {
                    let d = oracle
                        .check(task, &references[&id], &text)
                        .expect("the sandbox works");
                    assert!(
                        d.equivalent,
                        "{name} seed {seed} broke {id}:\n{text}\n{:?}",
                        d.failure
                    );
                    (id, name, Some(text))
                }
                Classified::Unchanged => {
                    panic!("{name} on {id}: unchanged output must be Ok(None)")
                }
                Classified::Invalid(e) => {
                    panic!("{name} seed {seed} on {id}: invalid output ({e})")
                }
            }
        })
        .collect();
    for (_, name, out) in &results {
        if out.is_some() {
            *applied.entry(name.clone()).or_default() += 1;
        }
    }
    for name in EXPECTED {
        assert!(
            applied.get(*name).copied().unwrap_or(0) >= 3,
            "{name} applied to too few fixtures: {applied:?}"
        );
    }
}

#[test]
fn same_seed_same_bytes_in_the_sandbox_and_threads_agree() {
    let set = common::default_set();
    let tasks = common::fixture_tasks();
    let work: Vec<(&str, &str, u64)> = tasks
        .tasks
        .iter()
        .take(12)
        .flat_map(|t| EXPECTED.iter().map(move |n| (t.source.as_str(), *n, 5u64)))
        .collect();
    let sequential: Vec<_> = work
        .iter()
        .map(|(s, n, seed)| set.get(n).unwrap().apply(s, *seed))
        .collect();
    let parallel: Vec<_> = work
        .par_iter()
        .map(|(s, n, seed)| set.get(n).unwrap().apply(s, *seed))
        .collect();
    assert_eq!(sequential, parallel);
    let src = &tasks.get("primes-sieve").unwrap().source;
    let vr = set.get("var-rename").unwrap();
    let outs: std::collections::HashSet<_> = (0..8).map(|s| vr.apply(src, s).unwrap()).collect();
    assert!(outs.len() > 1, "different seeds never differ");
}

#[test]
fn compiled_components_are_cached_on_disk_and_a_corrupt_cache_is_ignored() {
    let cache = tempfile::tempdir().unwrap();
    let file = common::transforms_dir().join("var-rename.wasm");
    let rt = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf())).unwrap();
    let first = rt.load(&file).unwrap();
    let cached: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1, "one artifact expected: {cached:?}");
    let name = cached[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(
        name.contains("wasmtime48.0.8"),
        "key names the wasmtime version: {name}"
    );
    // A second runtime loads from the cache and behaves identically.
    let rt2 = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf())).unwrap();
    let second = rt2.load(&file).unwrap();
    let src = "def f(a):\n    total = a + 1\n    return total\n";
    assert_eq!(first.apply(src, 3), second.apply(src, 3));
    // A corrupt artifact is recompiled, not trusted.
    std::fs::write(&cached[0], b"garbage").unwrap();
    let third = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf()))
        .unwrap()
        .load(&file)
        .unwrap();
    assert_eq!(first.apply(src, 3), third.apply(src, 3));
}

#[test]
fn duplicate_names_and_unknown_names_are_clear_errors() {
    let (rt, _cache) = common::runtime(Limits::default());
    let dir = tempfile::tempdir().unwrap();
    let src = common::transforms_dir().join("stmt-swap.wasm");
    std::fs::copy(&src, dir.path().join("a.wasm")).unwrap();
    std::fs::copy(&src, dir.path().join("b.wasm")).unwrap();
    match TransformSet::load_dir(&rt, dir.path()) {
        Err(LoadError::DuplicateName {
            name,
            first,
            second,
        }) => {
            assert_eq!(name, "stmt-swap");
            assert!(first.ends_with("a.wasm") && second.ends_with("b.wasm"));
        }
        other => panic!("expected a duplicate-name error, got {other:?}"),
    }
    let err = common::default_set()
        .select(&["nope".to_string()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("nope") && err.contains("var-rename"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(
        TransformSet::load_dir(&rt, empty.path()),
        Err(LoadError::Directory { .. })
    ));
    std::fs::write(empty.path().join("junk.wasm"), b"\0asm not really").unwrap();
    assert!(matches!(
        TransformSet::load_dir(&rt, empty.path()),
        Err(LoadError::Invalid { .. })
    ));
}

#[test]
fn guest_errors_on_unparsable_input_are_typed() {
    let t = common::default_set().get("var-rename").unwrap();
    match t.apply("def f(:\n", 0) {
        Err(equimorph::transform::ApplyError::Guest(msg)) => {
            assert!(msg.contains("parse"), "{msg}")
        }
        other => panic!("expected a guest error, got {other:?}"),
    }
}
