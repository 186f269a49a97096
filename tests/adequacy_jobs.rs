//! `tests score`, `tests grow` and `validate` as jobs (issue 38): a mutation score that cannot
//! be measured is `null` with the reason (never 1.0), Java programs get mutants, one task's
//! panic is that task's error (the run goes on), SIGINT/SIGTERM exit 130, and `validate` exits
//! 1 only when an original is not ok and shows the limits of the tasks' languages.

use crate::common;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A Java program whose one sample test misses most of its mutants.
const JAVA_EVENS: &str = "import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int n = in.nextInt();\n        int s = 0;\n        for (int i = 1; i <= n; i++) {\n            if (i % 2 == 0) {\n                s += i;\n            }\n        }\n        System.out.println(s);\n    }\n}\n";

/// A Java program no mutation operator applies to.
const JAVA_EMPTY: &str =
    "public class Main {\n    public static void main(String[] args) {\n    }\n}\n";

/// A Python program no mutation operator applies to.
const PYTHON_EMPTY: &str = "import sys\n";

/// A stdin task whose first line holds two linked counts: `3 4`, then 3 lines of 4 numbers.
fn linked_counts_task() -> Value {
    json!({
        "id": "grid",
        "source": "r, c = map(int, input().split())\ntotal = 0\nfor _ in range(r):\n    row = list(map(int, input().split()))\n    total += sum(row[:c])\nprint(total)\n",
        "tests": [{"input": "3 4\n1 2 3 4\n5 6 7 8\n9 10 11 12\n", "output": "78\n"}],
    })
}

fn java_task(id: &str, source: &str, tests: Value) -> Value {
    json!({"id": id, "language": "java", "source": source, "tests": tests})
}

fn python_task(id: &str, source: &str, tests: Value) -> Value {
    json!({"id": id, "source": source, "tests": tests})
}

/// Writes `tasks` as task JSONL in `dir`.
fn task_file(dir: &Path, name: &str, tasks: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(&path, text).expect("write tasks");
    path
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a whole JSON line"))
        .collect()
}

fn by_id<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line for {id}"))
}

fn text(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A recorded adequacy with no mutant never claims a score: `null` and the reason.
fn assert_null_with_reason(adequacy: &Value, why: &str) {
    assert!(adequacy["mutation_score"].is_null(), "{adequacy}");
    assert_eq!(adequacy["mutants"], 0, "{adequacy}");
    let missing = adequacy["mutation_score_missing"].as_str().unwrap_or("");
    assert!(missing.contains(why), "{adequacy}");
}

#[test]
fn tests_grow_records_a_null_score_with_the_reason_and_makes_java_mutants() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = task_file(
        dir.path(),
        "tasks.jsonl",
        &[
            java_task(
                "java/evens",
                JAVA_EVENS,
                json!([{"input": "4\n", "output": "6\n"}]),
            ),
            java_task(
                "java/empty",
                JAVA_EMPTY,
                json!([{"input": "", "output": ""}]),
            ),
            python_task(
                "py/empty",
                PYTHON_EMPTY,
                json!([{"input": "", "output": ""}]),
            ),
        ],
    );
    let out_path = dir.path().join("grown.jsonl");
    let report_path = dir.path().join("report.jsonl");
    let out = common::equimorph(
        &[
            "tests",
            "grow",
            tasks.to_str().unwrap(),
            "--out",
            out_path.to_str().unwrap(),
            "--report",
            report_path.to_str().unwrap(),
            "--mutants",
            "12",
            "--max-tests",
            "2",
            "--batch",
            "4",
            "--patience",
            "1",
            "--quiet",
        ],
        None,
    );
    let stdout = common::success_stdout(&out);
    let grown = lines(&out_path);
    assert_eq!(grown.len(), 3);
    // Java programs get mutants like Python ones: the score is measured.
    let evens = &by_id(&grown, "java/evens")["adequacy"];
    assert!(evens["mutants"].as_u64().unwrap() > 0, "{evens}");
    assert!(evens["mutation_score"].is_f64(), "{evens}");
    // No operator applies: no score, and why — never 1.0.
    for id in ["java/empty", "py/empty"] {
        assert_null_with_reason(
            &by_id(&grown, id)["adequacy"],
            "no mutation operator applies",
        );
    }
    let report = lines(&report_path);
    for id in ["java/empty", "py/empty"] {
        let r = by_id(&report, id);
        assert_null_with_reason(&r["before"], "no mutation operator applies");
        assert_null_with_reason(&r["after"], "no mutation operator applies");
    }
    assert!(
        stdout.contains("java/empty: mutation score not measured (no mutant: no mutation operator applies to this Java program)"),
        "{stdout}"
    );
    assert!(!stdout.contains("1.000 → 1.000"), "{stdout}");
}

#[test]
fn tests_score_measures_java_and_writes_null_where_nothing_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = task_file(
        dir.path(),
        "tasks.jsonl",
        &[
            java_task(
                "java/evens",
                JAVA_EVENS,
                json!([{"input": "4\n", "output": "6\n"}]),
            ),
            java_task(
                "java/empty",
                JAVA_EMPTY,
                json!([{"input": "", "output": ""}]),
            ),
        ],
    );
    let written = dir.path().join("scored.jsonl");
    let out = common::equimorph(
        &[
            "tests",
            "score",
            tasks.to_str().unwrap(),
            "--mutants",
            "12",
            "--json",
            "--write",
            written.to_str().unwrap(),
        ],
        None,
    );
    let stdout = common::success_stdout(&out);
    let v: Value = serde_json::from_str(&stdout).expect("JSON");
    let scored = v["tasks"].as_array().unwrap();
    let evens = by_id(scored, "java/evens");
    let a = &evens["adequacy"];
    assert!(a["mutants"].as_u64().unwrap() > 0, "{evens}");
    let score = a["mutation_score"].as_f64().unwrap();
    assert!(
        score > 0.0 && score < 1.0,
        "one sample misses some: {evens}"
    );
    assert!(!evens["by_operator"].as_object().unwrap().is_empty());
    assert_null_with_reason(
        &by_id(scored, "java/empty")["adequacy"],
        "no mutation operator applies",
    );
    assert_eq!(v["complete"], true);
    let file = lines(&written);
    assert_null_with_reason(
        &by_id(&file, "java/empty")["adequacy"],
        "no mutation operator applies",
    );
    assert!(by_id(&file, "java/evens")["adequacy"]["mutation_score"].is_f64());
}

#[test]
fn augment_says_a_score_was_not_measured_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = task_file(
        dir.path(),
        "tasks.jsonl",
        &[python_task(
            "py/empty",
            PYTHON_EMPTY,
            json!([{"input": "", "output": ""}]),
        )],
    );
    let out_dir = dir.path().join("aug");
    let out = common::equimorph(
        &[
            "augment",
            tasks.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--variants",
            "1",
            "--min-mutation-score",
            "0.5",
            "--quiet",
        ],
        None,
    );
    let (stdout, stderr) = text(&out);
    let done = lines(&out_dir.join("tasks.jsonl"));
    let line = by_id(&done, "py/empty");
    assert_eq!(line["status"], "skipped", "{stdout}{stderr}");
    let reason = line["reason"].as_str().unwrap();
    assert!(
        reason.contains("mutation score not measured (no mutant: no mutation operator applies"),
        "{reason}"
    );
    assert!(!reason.contains("not valid"), "{reason}");
}

#[test]
fn linked_counts_on_one_line_do_not_panic_tests_grow() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = task_file(dir.path(), "tasks.jsonl", &[linked_counts_task()]);
    let out_path = dir.path().join("grown.jsonl");
    // Several seeds: each draws other mutations of the input.
    for seed in ["0", "1", "2", "3"] {
        let out = common::equimorph(
            &[
                "tests",
                "grow",
                tasks.to_str().unwrap(),
                "--out",
                out_path.to_str().unwrap(),
                "--seed",
                seed,
                "--mutants",
                "20",
                "--quiet",
            ],
            None,
        );
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "seed {seed}: {stdout}{stderr}");
        assert!(!stderr.contains("panicked"), "seed {seed}: {stderr}");
        let grown = lines(&out_path);
        assert_eq!(grown.len(), 1);
        assert!(grown[0]["adequacy"]["mutation_score"].is_f64());
    }
}

#[test]
fn a_panic_in_one_task_is_that_tasks_error_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let good = python_task(
        "good",
        "n = int(input())\nprint(n * 2 if n > 3 else n)\n",
        json!([{"input": "5\n", "output": "10\n"}]),
    );
    let bad = python_task(
        "bad",
        "n = int(input())\nprint(n + 1)\n",
        json!([{"input": "5\n", "output": "6\n"}]),
    );
    let tasks = task_file(dir.path(), "tasks.jsonl", &[good, bad.clone()]);
    let hook = equimorph::adequacy::score::PANIC_TASK_VAR;

    let out_path = dir.path().join("grown.jsonl");
    let report_path = dir.path().join("report.jsonl");
    let out = common::equimorph_env(
        &[
            "tests",
            "grow",
            tasks.to_str().unwrap(),
            "--out",
            out_path.to_str().unwrap(),
            "--report",
            report_path.to_str().unwrap(),
            "--mutants",
            "10",
            "--quiet",
        ],
        &[(hook, "bad")],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let grown = lines(&out_path);
    assert_eq!(grown.len(), 2, "every task is written");
    // The task equimorph failed on is written unchanged.
    let written = by_id(&grown, "bad");
    assert_eq!(written["source"], bad["source"]);
    assert_eq!(written["tests"].as_array().unwrap().len(), 1);
    assert!(
        written.get("adequacy").is_none_or(Value::is_null),
        "{written}"
    );
    assert!(by_id(&grown, "good")["adequacy"]["mutation_score"].is_f64());
    let report = lines(&report_path);
    let r = by_id(&report, "bad");
    assert_eq!(r["status"], "error");
    assert!(
        r["error"].as_str().unwrap().contains("internal error"),
        "{r}"
    );
    assert!(stdout.contains("bad: error: "), "{stdout}");
    assert!(stdout.contains("failed with an internal error"), "{stdout}");

    let out = common::equimorph_env(
        &[
            "tests",
            "score",
            tasks.to_str().unwrap(),
            "--mutants",
            "10",
            "--json",
        ],
        &[(hook, "bad")],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let scored = v["tasks"].as_array().unwrap();
    assert_eq!(scored.len(), 2);
    assert_eq!(by_id(scored, "bad")["status"], "error");
    assert_eq!(v["errors"], json!(["bad"]));
    assert!(by_id(scored, "good")["adequacy"]["mutation_score"].is_f64());

    // validate: the task is not ok (an error, with the panic as its reason), the others are
    // validated, and the answer is no.
    let out = common::equimorph_env(
        &["validate", tasks.to_str().unwrap(), "--quiet"],
        &[(hook, "bad")],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("error       bad: equimorph panicked"),
        "{stdout}"
    );
    assert!(stdout.contains("1 ok, 0 failing"), "{stdout}");
}

/// Slow tasks: each run of the original sleeps, so a signal comes while tasks are in flight.
fn slow_tasks(dir: &Path, n: usize) -> PathBuf {
    let tasks: Vec<Value> = (0..n)
        .map(|i| {
            python_task(
                &format!("slow-{i}"),
                "import time\ntime.sleep(0.3)\nn = int(input())\nprint(n * 2 if n > 1 else n)\n",
                json!([{"input": "3\n", "output": "6\n"}]),
            )
        })
        .collect();
    task_file(dir, "slow.jsonl", &tasks)
}

/// Runs the binary with `args`, sends `sig` once it has loaded its tasks (its load report
/// on stderr), and returns its exit code and stderr.
fn signalled(args: &[&str], sig: i32) -> (Option<i32>, String, Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(args)
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the load report on stderr");
    // Into the tasks: the sandbox starts, then the first originals run.
    std::thread::sleep(Duration::from_millis(700));
    let sent = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
    let status = child.wait().expect("binary finishes");
    let waited = sent.elapsed();
    (status.code(), reader.join().unwrap_or_default(), waited)
}

#[test]
fn validate_and_tests_score_exit_130_on_sigint_and_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = slow_tasks(dir.path(), 12);
    let t = tasks.to_str().unwrap();
    let jobs: [&[&str]; 2] = [
        &["validate", t, "--quiet"],
        &["tests", "score", t, "--mutants", "4", "--quiet"],
    ];
    for args in jobs {
        for sig in [libc::SIGTERM, libc::SIGINT] {
            let (code, stderr, waited) = signalled(args, sig);
            assert_eq!(code, Some(130), "{args:?} signal {sig}: {stderr}");
            assert!(stderr.contains("interrupted"), "{args:?}: {stderr}");
            assert!(waited < Duration::from_secs(30), "{args:?}: {waited:?}");
        }
    }
}

#[test]
fn validate_exits_0_when_every_original_is_ok_though_a_task_has_no_test() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = task_file(
        dir.path(),
        "tasks.jsonl",
        &[
            python_task(
                "ok",
                "print(int(input()) + 1)\n",
                json!([{"input": "1\n", "output": "2\n"}]),
            ),
            python_task("untested", "print(1)\n", json!([])),
        ],
    );
    let out = common::equimorph(&["validate", tasks.to_str().unwrap(), "--quiet"], None);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("1 ok, 0 failing"), "{stdout}");
    assert!(stdout.contains("note: 1 load warning(s)"), "{stdout}");

    // A failing original is the negative answer.
    let failing = task_file(
        dir.path(),
        "failing.jsonl",
        &[python_task(
            "wrong",
            "print(int(input()) + 2)\n",
            json!([{"input": "1\n", "output": "2\n"}]),
        )],
    );
    let out = common::equimorph(&["validate", failing.to_str().unwrap(), "--quiet"], None);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
}

#[test]
fn validate_shows_the_limits_of_the_tasks_languages() {
    let dir = tempfile::tempdir().unwrap();
    let java = task_file(
        dir.path(),
        "java.jsonl",
        &[java_task(
            "java/evens",
            JAVA_EVENS,
            json!([{"input": "4\n", "output": "6\n"}]),
        )],
    );
    let out = common::equimorph(&["validate", java.to_str().unwrap(), "--quiet"], None);
    let stdout = common::success_stdout(&out);
    let sandbox = stdout
        .lines()
        .find(|l| l.starts_with("sandbox: "))
        .expect("a sandbox line");
    assert!(sandbox.contains("java: heap (-Xmx) "), "{sandbox}");
    assert!(sandbox.contains("processes (threads) 4096"), "{sandbox}");
    assert!(!sandbox.contains("python:"), "{sandbox}");
    assert!(!sandbox.contains("processes 512"), "{sandbox}");

    let out = common::equimorph(
        &["validate", java.to_str().unwrap(), "--quiet", "--json"],
        None,
    );
    let v: Value = serde_json::from_str(&common::success_stdout(&out)).unwrap();
    let limits = v["limits"].as_object().expect("limits by language");
    assert_eq!(limits.keys().collect::<Vec<_>>(), ["java"]);

    let mixed = common::root().join("fixtures/java/mixed.jsonl");
    let out = common::equimorph(
        &["validate", mixed.to_str().unwrap(), "--quiet", "--json"],
        None,
    );
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let limits = v["limits"].as_object().expect("limits by language");
    assert!(limits.contains_key("java") && limits.contains_key("python"));
    assert!(limits["python"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l.as_str().unwrap().starts_with("address space")));
}
