//! Helpers shared by the integration tests.
#![allow(dead_code)]

use equimorph::oracle::{Oracle, OracleConfig, OracleMode};
use equimorph::task::{Task, TaskSet};
use equimorph::transform::{Limits, TransformRuntime, TransformSet};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built default transforms (fails with a hint when they are missing).
pub fn transforms_dir() -> PathBuf {
    let d = root().join("build/transforms");
    assert!(
        d.is_dir(),
        "{} is missing: run `make transforms` (or `make test`)",
        d.display()
    );
    d
}

/// The built test-only guests.
pub fn test_transforms_dir() -> PathBuf {
    let d = root().join("build/test-transforms");
    assert!(
        d.is_dir(),
        "{} is missing: run `make transforms` (or `make test`)",
        d.display()
    );
    d
}

/// A runtime with a private cache directory.
pub fn runtime(limits: Limits) -> (TransformRuntime, tempfile::TempDir) {
    let cache = tempfile::tempdir().expect("temp dir");
    let rt = TransformRuntime::new(limits, Some(cache.path().to_path_buf())).expect("runtime");
    (rt, cache)
}

/// The compiled-component cache that test-binary-wide state uses: a fixed directory under
/// target/tmp, because a `TempDir` held in a static is never dropped (and so never removed).
pub fn shared_cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("components")
}

/// The default transform set, loaded once per test binary.
pub fn default_set() -> &'static TransformSet {
    static SET: OnceLock<TransformSet> = OnceLock::new();
    SET.get_or_init(|| {
        let rt =
            TransformRuntime::new(Limits::default(), Some(shared_cache_dir())).expect("runtime");
        TransformSet::load_dir(&rt, &transforms_dir()).expect("default transforms load")
    })
}

/// The fixture tasks.
pub fn fixture_tasks() -> TaskSet {
    let set =
        equimorph::task::load(&root().join("fixtures/tasks.jsonl"), None).expect("fixtures load");
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    set
}

/// How many tasks `fixtures/tasks.jsonl` holds.
#[allow(dead_code)]
pub fn fixture_task_count() -> usize {
    std::fs::read_to_string(root().join("fixtures/tasks.jsonl"))
        .expect("fixtures/tasks.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// One fixture task.
pub fn fixture(id: &str) -> Task {
    fixture_tasks()
        .get(id)
        .cloned()
        .unwrap_or_else(|| panic!("no fixture {id}"))
}

/// An oracle for tests: short timeouts.
pub fn oracle(mode: OracleMode) -> Oracle {
    Oracle::new(OracleConfig {
        mode,
        timeout_floor: Duration::from_secs(1),
        timeout_cap: Duration::from_secs(5),
        ..OracleConfig::default()
    })
    .expect("oracle starts")
}

/// Reads a fixture file.
pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(root().join(path)).expect("fixture readable")
}

/// Runs the equimorph binary with the built transforms as the default set.
pub fn equimorph(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(args)
        .env("EQUIMORPH_TRANSFORMS", transforms_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    if let Some(input) = stdin {
        // A command that fails before it reads its input (a bad argument) closes the pipe:
        // that is its answer, not a failure of the test.
        match child.stdin.take().expect("stdin").write_all(input) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.expect("write stdin"),
        }
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("binary finishes")
}

/// Writes the first `n` fixture tasks to a JSONL file in a fresh directory.
pub fn fixture_subset(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines: Vec<String> = read("fixtures/tasks.jsonl")
        .lines()
        .take(n)
        .map(String::from)
        .collect();
    let path = dir.path().join("tasks.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write tasks");
    (dir, path)
}

/// Runs the equimorph binary with extra environment variables (and OPENAI_* cleared first).
pub fn equimorph_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_equimorph"));
    cmd.args(args)
        .env("EQUIMORPH_TRANSFORMS", transforms_dir())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("binary runs")
}

/// The stdout of a command that must have succeeded (the whole output otherwise).
pub fn success_stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A symlink to python3 in `dir`, to hand to an oracle and take away while it works.
pub fn removable_python(dir: &Path) -> PathBuf {
    let link = dir.join("python3");
    let real = std::fs::canonicalize(equimorph::oracle::default_python()).expect("python3");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    link
}

/// `equimorph attack TASKS --out OUT --detector DETECTOR --iterations N --quiet EXTRA…`, with the
/// built transforms as the default set, ready to run or spawn.
pub fn attack_command(
    tasks: &Path,
    out: &Path,
    detector: &str,
    iterations: u32,
    extra: &[&str],
) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_equimorph"));
    cmd.arg("attack")
        .arg(tasks)
        .arg("--out")
        .arg(out)
        .args([
            "--detector",
            detector,
            "--iterations",
            &iterations.to_string(),
            "--quiet",
        ])
        .args(extra)
        .env("EQUIMORPH_TRANSFORMS", transforms_dir())
        .stdin(std::process::Stdio::null());
    cmd
}

/// Runs `program` on every test of `task` with plain python3 (no sandbox, no oracle):
/// stdout per stdin test (trailing spaces aside, as the oracle compares), or the exit status of
/// the program followed by `test_code`.
pub fn plain_run(task: &Task, program: &str) -> Vec<(String, bool)> {
    let dir = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    let run = |source: &str, stdin: &str| {
        let file = dir.path().join("prog.py");
        std::fs::write(&file, source).unwrap();
        let mut child = std::process::Command::new("python3")
            .arg(&file)
            .current_dir(dir.path())
            .env("PYTHONHASHSEED", "0")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        let o = child.wait_with_output().unwrap();
        (
            equimorph::oracle::normalize(&String::from_utf8_lossy(&o.stdout)),
            o.status.success(),
        )
    };
    for t in task.tests.iter() {
        out.push(run(program, &t.input));
    }
    if let Some(code) = &task.test_code {
        let (_, ok) = run(&format!("{program}\n{code}\n"), "");
        out.push((String::new(), ok));
    }
    out
}

/// The original's [`plain_run`], once per test binary for each task (tests check many variants
/// of one task against it).
fn original_run(task: &Task) -> Vec<(String, bool)> {
    /// A task's id, source, and test inputs (and test code).
    type Key = (String, String, Vec<String>);
    type Runs = std::sync::Mutex<HashMap<Key, Vec<(String, bool)>>>;
    static RUNS: std::sync::LazyLock<Runs> = std::sync::LazyLock::new(Default::default);
    let inputs = task.tests.iter().map(|t| t.input.clone());
    let key = (
        task.id.clone(),
        task.source.clone(),
        inputs.chain(task.test_code.clone()).collect(),
    );
    if let Some(run) = RUNS.lock().unwrap().get(&key) {
        return run.clone();
    }
    let run = plain_run(task, &task.source);
    RUNS.lock().unwrap().insert(key, run.clone());
    run
}

pub fn assert_behaves_like_original(task: &Task, variant: &str) {
    let want = original_run(task);
    let got = plain_run(task, variant);
    assert_eq!(got, want, "task {}: variant differs:\n{variant}", task.id);
    for (t, (stdout, _)) in task.tests.iter().zip(&got) {
        if let Some(expected) = &t.output {
            assert_eq!(
                stdout,
                &equimorph::oracle::normalize(expected),
                "{}",
                task.id
            );
        }
    }
    if task.test_code.is_some() {
        assert!(got.last().unwrap().1, "task {}: test_code fails", task.id);
    }
}

/// The JSON lines of `path` without their `seconds` field (the only one that varies between
/// identical runs).
pub fn timeless_lines(path: impl AsRef<Path>) -> Vec<serde_json::Value> {
    read(path)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("whole JSON lines");
            if let Some(o) = v.as_object_mut() {
                o.remove("seconds");
            }
            v
        })
        .collect()
}

/// Options for an ONNX detector on the CPU with 2 threads (this machine's cores) and
/// `batch_size` sequences per call; everything else as by default.
pub fn cpu_options(batch_size: usize) -> equimorph::detector::onnx::OnnxOptions {
    equimorph::detector::onnx::OnnxOptions {
        devices: vec![equimorph::detector::Device::Cpu],
        threads: 2,
        batch_size,
        ..Default::default()
    }
}

/// Processes whose command line carries the hostile fixtures' marker (`sleep 31.4159`): any
/// that outlives its run escaped the sandbox's clean-up.
pub fn stray_sleepers() -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() {
            if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
                if cmd.windows(7).any(|w| w == b"31.4159") {
                    out.push(pid);
                }
            }
        }
    }
    out
}

/// The hostile fixtures' canary files found on the host: each is a write that left the sandbox.
pub fn canaries() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for d in ["/root", "/var/tmp", "/etc", "/tmp", "/work", "/dev/shm"] {
        let p = Path::new(d).join("equimorph-hostile-write-canary");
        if p.exists() {
            found.push(p);
        }
    }
    found
}

/// Checks a hostile program as a candidate for `task`: it must never be accepted (not
/// equivalent, or a fault of the check when it takes its worker down twice) and must be judged
/// within `limit`.
pub fn assert_rejected(
    oracle: &Oracle,
    task: &Task,
    reference: &equimorph::oracle::Reference,
    name: &str,
    src: &str,
    limit: Duration,
) {
    let start = std::time::Instant::now();
    let verdict = oracle.check(task, reference, src).map(|d| d.equivalent);
    let took = start.elapsed();
    assert_ne!(verdict, Ok(true), "{name} must be rejected");
    assert!(took < limit, "{name} took {took:?}");
}

/// After a hostile program (given `settle` to be cleaned up): no marked process survives and no
/// canary file appeared on the host.
pub fn assert_nothing_left(name: &str, settle: Duration) {
    std::thread::sleep(settle);
    assert_eq!(
        stray_sleepers(),
        Vec::<u32>::new(),
        "{name} left a process behind"
    );
    assert_eq!(
        canaries(),
        Vec::<PathBuf>::new(),
        "{name} wrote outside its sandbox"
    );
}

/// Held while a failing decision is judged again, so that rechecks run one at a time.
static CALM: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Applies every built-in transform of `language` to every task of `tasks`, at the first
/// `per_pair` of the seeds `0..seeds` that rewrite each (task, transform) pair (counted from a
/// seed that moves across pairs, so every seed is used), and checks each output with the real
/// oracle: it parses, compiles and behaves like the original on the task's tests (a failing decision is judged once more, alone, so that a
/// time limit hit on a busy machine is not taken for a change). Each transform must apply to
/// `min_tasks` tasks or more.
pub fn assert_every_transform_equivalent(
    language: equimorph::program::Language,
    tasks: &equimorph::task::TaskSet,
    seeds: u64,
    per_pair: u64,
    min_transforms: usize,
    min_tasks: usize,
) {
    use equimorph::program::{classify_as, Classified};
    use rayon::prelude::*;
    let set = default_set();
    let chosen: Vec<_> = set.iter().filter(|t| t.rewrites(language)).collect();
    assert!(
        chosen.len() >= min_transforms,
        "{} {language} transforms",
        chosen.len()
    );
    let oracle = oracle(OracleMode::Fork);
    let references: Vec<_> = tasks
        .tasks
        .par_iter()
        .map(|t| oracle.validate(t).reference.expect("reference"))
        .collect();
    let (oracle, references) = (&oracle, &references);
    let pairs: Vec<(usize, usize)> = (0..tasks.tasks.len())
        .flat_map(|i| (0..chosen.len()).map(move |t| (i, t)))
        .collect();
    let outcomes: Vec<(String, usize, Option<String>)> = pairs
        .par_iter()
        .flat_map_iter(|&(i, t)| {
            let task = &tasks.tasks[i];
            let tr = chosen[t];
            // The seeds in turn from one that moves across pairs, until `per_pair` apply.
            let outputs: Vec<(u64, String)> = (0..seeds)
                .map(|k| (i as u64 + t as u64 + k) % seeds)
                .filter_map(|seed| {
                    let out = tr
                        .apply(&task.source, seed)
                        .unwrap_or_else(|e| panic!("{} on {}: {e}", tr.name, task.id))?;
                    match classify_as(language, &task.source, out) {
                        Classified::Valid(text) => Some((seed, text)),
                        other => panic!("{} seed {seed} on {}: {other:?}", tr.name, task.id),
                    }
                })
                .take(per_pair as usize)
                .collect();
            outputs.into_iter().map(move |(seed, text)| {
                let mut d = oracle
                    .check(task, &references[i], &text)
                    .expect("sandbox works");
                if !d.equivalent {
                    // Judged once more, alone and uncached: a run or compile that only ran out
                    // of time because the machine was busy does not fail twice; a real change
                    // does.
                    let calm = CALM.lock().unwrap_or_else(|p| p.into_inner());
                    let fresh = self::oracle(OracleMode::Fork);
                    d = fresh
                        .check(task, &references[i], &text)
                        .expect("sandbox works");
                    drop(calm);
                }
                let problem = if let Some(why) = d.invalid {
                    Some(format!(
                        "{} seed {seed} on {}: does not compile: {why}\n{text}",
                        tr.name, task.id
                    ))
                } else if !d.equivalent {
                    Some(format!(
                        "{} seed {seed} broke {}: {:?}\n{text}",
                        tr.name, task.id, d.failure
                    ))
                } else {
                    None
                };
                (tr.name.clone(), i, problem)
            })
        })
        .collect();
    let problems: Vec<&String> = outcomes.iter().filter_map(|(_, _, p)| p.as_ref()).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems
            .iter()
            .take(3)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let rare: Vec<String> = chosen
        .iter()
        .map(|t| {
            let applied = outcomes
                .iter()
                .filter(|(name, _, _)| *name == t.name)
                .map(|(_, i, _)| i)
                .collect::<std::collections::BTreeSet<_>>();
            (t.name.as_str(), applied.len())
        })
        .filter(|&(_, n)| n < min_tasks)
        .map(|(name, n)| format!("{name}: {n}"))
        .collect();
    assert!(
        rare.is_empty(),
        "applied to fewer than {min_tasks} {language} tasks: {rare:?}"
    );
}

/// The whole JSON lines of a file another process may still be appending to. A reader can catch
/// a write half-copied (CI once read a line cut at its 93rd byte), so a last line without its
/// newline is not a line yet. Polls of a running job use this; files read after a run ends are
/// read strictly.
pub fn whole_lines_so_far(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let whole = text.rfind('\n').map_or("", |i| &text[..=i]);
    whole
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("every newline-ended line is whole"))
        .collect()
}
