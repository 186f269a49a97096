//! Script transforms (Python files in the Auto-SPT format) run by the CPython runner
//! component: outcomes, seeds, determinism across processes, the command line, and hostile
//! scripts, each of which must end as a typed error (or a harmless output) within its limits
//! while the next call still works.

mod common;

use equimorph::transform::{ApplyError, Limits, LoadError, TransformKind, TransformRuntime};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One compiled-component cache for the whole test binary (and across runs): the runner
/// compiles once. A fixed directory, since a `TempDir` in a static would never be removed.
fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("components")
}

const SCRIPT_LIMITS: Limits = Limits {
    memory_bytes: 128 << 20,
    wall_time: Duration::from_millis(1500),
    output_bytes: 4 << 20,
};

fn runtime() -> TransformRuntime {
    TransformRuntime::new(Limits::default(), Some(cache_dir()))
        .expect("runtime")
        .with_script_limits(SCRIPT_LIMITS)
}

/// The tests of this binary run one at a time: the hostile ones measure the process's memory,
/// which tests running beside them would disturb.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn write_script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write script");
    p
}

fn apply_script(text: &str, source: &str, seed: u64) -> Result<Option<String>, ApplyError> {
    let _guard = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_script(dir.path(), "t.py", text);
    runtime()
        .load(&path)
        .expect("script loads")
        .apply(source, seed)
}

const PROGRAM: &str = "def total(xs):\n    s = 0\n    for x in xs:\n        if x > 2:\n            s += x\n        else:\n            s -= 1\n    return s\n\nprint(total([1, 2, 3, 4]))\n";

fn python_output(source: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", source])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_script_is_a_transform_with_header_metadata() {
    let _guard = serial();
    let rt = runtime();
    let t = rt
        .load(&common::root().join("fixtures/scripts/for-to-while/strong.py"))
        .expect("loads");
    assert_eq!(t.name, "for-to-while");
    assert_eq!(t.category, "control-flow");
    assert_eq!(t.kind, TransformKind::Script);
    assert!(t.description.starts_with("every for loop"));
    let out = t.apply(PROGRAM, 1).expect("applies").expect("changes it");
    assert!(out.contains("while True"), "{out}");
    assert!(equimorph::program::validate(&out).is_ok(), "{out}");
    assert_eq!(python_output(&out), python_output(PROGRAM));

    // Without a header the name comes from the file stem.
    let dir = tempfile::tempdir().unwrap();
    let p = write_script(
        dir.path(),
        "Add_Comment.py",
        "import sys\nprint(sys.stdin.read() + '# hi')\n",
    );
    let t = rt.load(&p).expect("loads");
    assert_eq!(
        (t.name.as_str(), t.category.as_str()),
        ("add-comment", "unspecified")
    );
}

#[test]
fn outcomes_map_to_results_and_typed_errors() {
    // Output identical to the input (up to trailing newlines): not applicable.
    assert_eq!(
        apply_script(
            "import sys\nsys.stdout.write(sys.stdin.read())\n",
            PROGRAM,
            0
        ),
        Ok(None)
    );
    assert_eq!(
        apply_script("import sys\nprint(sys.stdin.read())\n", PROGRAM, 0),
        Ok(None)
    );
    // sys.exit(0) after printing is a success; input(), iteration and sys.stdin.buffer work.
    assert_eq!(
        apply_script(
            "import sys\nfirst = input()\nrest = [l for l in sys.stdin]\nprint(first + '  # x')\nprint(''.join(rest), end='')\nsys.exit(0)\n",
            "a = 1\nb = 2\n",
            0
        ),
        Ok(Some("a = 1  # x\nb = 2\n".into()))
    );
    assert_eq!(
        apply_script(
            "import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read().upper())\n",
            "a = 1\n",
            0
        ),
        Ok(Some("A = 1\n".into()))
    );
    let err = |text: &str| match apply_script(text, PROGRAM, 0) {
        Err(ApplyError::Guest(m)) => m,
        other => panic!("expected a guest error for {text:?}, got {other:?}"),
    };
    assert_eq!(err("import sys\nsys.stdin.read()\n"), "printed nothing");
    assert_eq!(
        err("import sys\n\nsys.stdin.read()\nraise ValueError('no loops here')\n"),
        "ValueError: no loops here (script line 4)"
    );
    assert!(err("def broken(:\n").starts_with("the script does not compile: line 1: SyntaxError"));
    assert!(err("import sys\n\nsrc = sys.stdin.read(\nprint(src)\n")
        .starts_with("the script does not compile: line 3: SyntaxError"));
    assert_eq!(err("import sys\nsys.exit(3)\n"), "exited with status 3");
    assert_eq!(
        err("import sys\nprint('why', file=sys.stderr)\nsys.exit(2)\n"),
        "exited with status 2: why"
    );
    assert_eq!(
        err("raise SystemExit('gave up')\n"),
        "exited with status 1: gave up"
    );
    let m = err("import numpy\n");
    assert!(
        m.starts_with("ModuleNotFoundError: module 'numpy' is not available to transform scripts")
            && m.contains("ast, "),
        "{m}"
    );
    // Surrogates cannot be printed as UTF-8.
    assert!(err("print('\\udc80')\n").starts_with("UnicodeEncodeError"));
}

#[test]
fn the_standard_library_modules_transforms_use_are_there() {
    let modules = [
        "ast",
        "re",
        "tokenize",
        "token",
        "keyword",
        "random",
        "string",
        "textwrap",
        "io",
        "itertools",
        "collections",
        "functools",
        "operator",
        "math",
        "copy",
        "types",
        "typing",
        "dataclasses",
        "json",
        "hashlib",
        "builtins",
        "symtable",
        "enum",
        "heapq",
        "bisect",
        "difflib",
        "inspect",
        "contextlib",
        "fractions",
        "decimal",
        "statistics",
        "unicodedata",
        "base64",
        "struct",
        "pprint",
        "warnings",
        "argparse",
        "abc",
        "weakref",
    ];
    let script = format!(
        "import sys\nimport {}\nsrc = sys.stdin.read()\nprint(ast.unparse(ast.parse(src)))\n",
        modules.join(", ")
    );
    let out = apply_script(&script, "x=(1 +2)\n", 0).expect("all modules import");
    assert_eq!(out.as_deref(), Some("x = 1 + 2\n"));
}

#[test]
fn seeds_drive_random_and_argv() {
    let script = "import random, sys\nsrc = sys.stdin.read()\nprint(src + f'# {sys.argv[1]} {random.randint(0, 10**9)}')\n";
    let a = apply_script(script, "x = 1\n", 41).unwrap().unwrap();
    let b = apply_script(script, "x = 1\n", 41).unwrap().unwrap();
    let c = apply_script(script, "x = 1\n", 42).unwrap().unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.starts_with("x = 1\n# 41 "), "{a}");
    // random is seeded exactly as random.seed(seed) would seed it.
    let expected = Command::new("python3")
        .args([
            "-c",
            "import random; random.seed(41); print(random.randint(0, 10**9))",
        ])
        .output()
        .unwrap();
    assert_eq!(
        a.trim_end().rsplit(' ').next().unwrap(),
        String::from_utf8_lossy(&expected.stdout).trim()
    );
}

fn equimorph(args: &[&str], stdin: Option<&str>) -> Output {
    common::equimorph(args, stdin.map(str::as_bytes))
}

#[test]
fn same_bytes_in_two_processes_even_when_iterating_a_set_of_strings() {
    let _guard = serial();
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(
        dir.path(),
        "set-order.py",
        "import sys\nsrc = sys.stdin.read()\nwords = {'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'}\nprint(src + '# ' + ' '.join(words) + ' ' + str(hash('alpha')))\n",
    );
    let run = || {
        let out = equimorph(
            &[
                "apply",
                "--transform",
                script.to_str().unwrap(),
                "--seed",
                "5",
                "-",
            ],
            Some("x = 1\n"),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run();
    assert_eq!(first, run());
    // The runner's string-hash secret is pinned when it is built (see
    // tools/deterministic-random), so this order is the same in every build on every machine.
    assert_eq!(
        first,
        "x = 1\n# alpha theta kappa iota beta eta gamma zeta delta epsilon 2133953061\n"
    );
}

#[test]
fn cli_applies_scripts_and_components_in_one_sequence_and_lists_and_shows_them() {
    let _guard = serial();
    let strong = common::root().join("fixtures/scripts/if-else-swap/strong.py");
    let out = equimorph(
        &[
            "apply",
            "--transform",
            &format!("{},var-rename", strong.display()),
            "--seed",
            "3",
            "-",
        ],
        Some(PROGRAM),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("if not"), "{text}");
    assert_eq!(python_output(&text), python_output(PROGRAM));

    // A mixed set: a directory of components plus two script files.
    let spec = format!(
        "{},{},{}",
        common::transforms_dir().display(),
        common::root()
            .join("fixtures/scripts/rename-locals/strong.py")
            .display(),
        strong.display()
    );
    let out = equimorph(
        &["transforms", "list", "--json", "--transforms", &spec],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let components = std::fs::read_dir(common::transforms_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "wasm"))
        })
        .count();
    assert_eq!(rows.len(), components + 2);
    let kind = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .map(|r| r["kind"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(kind("rename-locals").as_deref(), Some("script"));
    assert_eq!(kind("var-rename").as_deref(), Some("component"));
    let table =
        String::from_utf8(equimorph(&["transforms", "list", "--transforms", &spec], None).stdout)
            .unwrap();
    assert!(table.lines().next().unwrap().contains("KIND"), "{table}");

    // Two transforms with one name are refused with both files named.
    let clash = format!(
        "{},{}",
        common::transforms_dir().display(),
        common::root()
            .join("fixtures/scripts/for-to-while/strong.py")
            .display()
    );
    let out = equimorph(&["transforms", "list", "--transforms", &clash], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("two transforms are named \"for-to-while\""),
        "{err}"
    );

    // `transforms show`: a script's header and docstring; a component's ruff-style doc.
    let out = equimorph(&["transforms", "show", strong.to_str().unwrap()], None);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && shown.contains("if-else-swap (script, python, control-flow)"),
        "{shown}"
    );
    assert!(shown.contains("`not c` evaluates `c` once"), "{shown}");
    let out = equimorph(&["transforms", "show", "for-to-while"], None);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("## What it does") && shown.contains("## Why it preserves semantics"),
        "{shown}"
    );
}

#[test]
fn bad_script_files_are_clear_load_errors() {
    let _guard = serial();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let p = dir.path().join("latin1.py");
    std::fs::write(&p, b"# caf\xe9\nprint(1)\n").unwrap();
    let e = rt.load(&p).unwrap_err();
    assert!(e.to_string().contains("not valid UTF-8"), "{e}");
    let p = write_script(dir.path(), "x.py", "# name: Not Kebab\nprint(1)\n");
    assert!(matches!(rt.load(&p), Err(LoadError::Invalid { .. })));
    let missing = TransformRuntime::new(Limits::default(), Some(cache_dir()))
        .unwrap()
        .with_script_runner(dir.path().join("no-runner.wasm"));
    let e = missing
        .load(&write_script(dir.path(), "y.py", "print(1)\n"))
        .unwrap_err();
    assert!(e.to_string().contains("make transforms"), "{e}");
}

// ---- hostile scripts: one test per case ----

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        * 4096
}

const MARKERS: [&str; 5] = [
    "/tmp/equimorph-hostile-os-system",
    "/tmp/equimorph-hostile-subprocess",
    "/tmp/equimorph-hostile-write",
    "/tmp/equimorph-hostile-ctypes",
    "/tmp/equimorph-hostile-pwned",
];

/// Applies the hostile script `file` twice, then checks what every hostile case must hold: it
/// ended within its deadline (plus slack), the host's memory is bounded (the pooled memory slot
/// may stay resident after the first call, by design, and nothing grows on the second), nothing
/// appeared outside the sandbox, and the next call works.
fn hostile(file: &str) -> Result<Option<String>, ApplyError> {
    let _guard = serial();
    let rt = runtime();
    let t = rt
        .load(&common::root().join("tests/hostile_scripts").join(file))
        .expect("hostile script loads");
    let benign = rt
        .load(&common::root().join("fixtures/scripts/if-else-swap/strong.py"))
        .expect("benign script loads");
    assert!(benign.apply(PROGRAM, 0).unwrap().is_some());
    let before = rss_bytes();
    let start = Instant::now();
    let result = t.apply(PROGRAM, 7);
    let took = start.elapsed();
    assert!(
        took < SCRIPT_LIMITS.wall_time * 4,
        "{file} ran {took:?}, past its {:?} limit",
        SCRIPT_LIMITS.wall_time
    );
    let once = rss_bytes();
    assert!(
        once < before + (64 << 20),
        "{file}: host RSS grew from {before} to {once} bytes"
    );
    assert_eq!(
        t.apply(PROGRAM, 7),
        result,
        "{file}: the same call, the same outcome"
    );
    let twice = rss_bytes();
    assert!(
        twice < once + (16 << 20),
        "{file}: host RSS grew again, from {once} to {twice} bytes"
    );
    for m in MARKERS {
        assert!(!Path::new(m).exists(), "{file} created {m}");
    }
    let next = benign.apply(PROGRAM, 0).expect("the next call works");
    assert!(next.is_some_and(|t| t.contains("if not")));
    result
}

fn guest_error(r: Result<Option<String>, ApplyError>) -> String {
    match r {
        Err(ApplyError::Guest(m)) => m,
        other => panic!("expected a guest error, got {other:?}"),
    }
}

#[test]
fn hostile_infinite_loop_times_out() {
    assert_eq!(
        hostile("infinite_loop.py"),
        Err(ApplyError::Timeout { millis: 1500 })
    );
}

#[test]
fn hostile_memory_bomb_stops_at_the_memory_limit() {
    match hostile("memory_bomb.py") {
        // CPython sees its allocation fail and raises MemoryError, or the guest traps when
        // growth is refused outside Python's allocator.
        Err(ApplyError::Guest(m)) => assert!(m.starts_with("MemoryError"), "{m}"),
        Err(ApplyError::OutOfMemory { limit_bytes }) => assert_eq!(limit_bytes, 128 << 20),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hostile_unbounded_recursion_is_stopped() {
    let r = hostile("deep_recursion.py");
    assert!(
        matches!(
            r,
            Err(ApplyError::OutOfMemory { .. }) | Err(ApplyError::Trap(_))
        ) || matches!(&r, Err(ApplyError::Guest(m)) if m.starts_with("RecursionError") || m.starts_with("MemoryError")),
        "{r:?}"
    );
}

#[test]
fn hostile_os_system_is_not_there() {
    let m = guest_error(hostile("os_system.py"));
    assert!(m.contains("has no attribute 'system'"), "{m}");
}

#[test]
fn hostile_subprocess_is_not_importable() {
    let m = guest_error(hostile("subprocess_run.py"));
    assert!(m.contains("module 'subprocess' is not available"), "{m}");
}

#[test]
fn hostile_fork_is_not_there() {
    let m = guest_error(hostile("fork.py"));
    assert!(m.contains("has no attribute 'fork'"), "{m}");
}

#[test]
fn hostile_file_writes_and_reads_fail() {
    let m = guest_error(hostile("write_file.py"));
    assert!(
        m.starts_with("FileNotFoundError") || m.starts_with("PermissionError"),
        "{m}"
    );
}

#[test]
fn hostile_sockets_are_not_importable() {
    let m = guest_error(hostile("socket_connect.py"));
    assert!(m.contains("module 'socket' is not available"), "{m}");
}

#[test]
fn hostile_200_mb_of_output_is_cut_off_inside_the_guest() {
    let m = guest_error(hostile("huge_output.py"));
    assert_eq!(m, format!("printed more than {} bytes", 16 << 20));
    // Swallowing the exception does not help: the limit is checked after the script ends.
    let m = guest_error(hostile("swallow_limit.py"));
    assert_eq!(m, format!("printed more than {} bytes", 16 << 20));
}

#[test]
fn hostile_output_over_the_host_limit_is_refused() {
    let _guard = serial();
    let dir = tempfile::tempdir().unwrap();
    // 6 MiB: under the runner's own cap, over this runtime's 4 MiB output limit.
    let p = write_script(
        dir.path(),
        "six.py",
        "import sys\nsys.stdout.write('#' * (6 << 20))\n",
    );
    assert_eq!(
        runtime().load(&p).unwrap().apply(PROGRAM, 0),
        Err(ApplyError::OutputTooLarge {
            bytes: 6 << 20,
            limit: 4 << 20
        })
    );
}

#[test]
fn hostile_exit_status_three_is_an_error() {
    assert_eq!(
        guest_error(hostile("exit_three.py")),
        "exited with status 3"
    );
}

#[test]
fn hostile_ctypes_is_not_importable() {
    let m = guest_error(hostile("ctypes_call.py"));
    assert!(m.contains("module 'ctypes' is not available"), "{m}");
}

#[test]
fn hostile_threads_cannot_be_started() {
    let m = guest_error(hostile("spin_threads.py"));
    assert!(m.contains("module 'threading' is not available"), "{m}");
}

#[test]
fn hostile_environment_reading_sees_nothing_of_the_host() {
    let out = hostile("read_env.py")
        .expect("a harmless output")
        .expect("it prints something");
    // An empty environment, the seed as the only argument, and no host path.
    assert!(out.starts_with("{} ['transform.py', '7']"), "{out}");
    if let Ok(home) = std::env::var("HOME") {
        assert!(!out.contains(&home) || home == "/", "{out}");
    }
}
