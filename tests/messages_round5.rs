//! What a user reads, round 5: a pinned model directory keeps its keys, an invalid candidate
//! is an error and not a verdict, `robustness --force-new`, no Java worker directory left
//! behind, `calibrate --quiet` and why a threshold is missing, how many programs CrossHair
//! examined, truncated files counted once, augment runs named as such, a JSON array named as
//! such, the `--language` hint, a non-UTF-8 submission counted as skipped, an unreachable
//! endpoint, negative Δ_k explained, and an OS error said once.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run(args: &[&str]) -> Output {
    common::equimorph(args, None)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
}

/// A copy of the tiny embedding model (its equimorph.toml pins max_length 128, hidden_output
/// and gpu_model).
fn tiny_embedding_copy(dir: &Path) -> PathBuf {
    let from = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(
        from.is_dir(),
        "{} missing: run `make setup`",
        from.display()
    );
    let to = dir.join("tiny");
    std::fs::create_dir_all(&to).unwrap();
    for f in [
        "model.onnx",
        "model_gpu.onnx",
        "tokenizer.json",
        "equimorph.toml",
    ] {
        std::fs::copy(from.join(f), to.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    to
}

#[test]
fn models_inspect_keeps_the_keys_of_a_pinned_directory_and_says_what_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_embedding_copy(dir.path());
    let toml = model.join("equimorph.toml");
    let before = std::fs::read_to_string(&toml).unwrap();
    assert!(before.contains("max_length = 128") && before.contains("gpu_model"));
    // --dry-run shows the merge with the file, not a fresh inference (max_length 512).
    let dry = run(&["models", "inspect", s(&model), "--dry-run"]);
    let out = common::success_stdout(&dry);
    assert!(
        out.contains("max_length = 128") && !out.contains("max_length = 512"),
        "{out}"
    );
    assert!(
        out.contains("gpu_model = \"model_gpu.onnx\"")
            && out.contains("hidden_output = \"last_hidden_state\""),
        "{out}"
    );
    assert!(out.contains("kept max_length = 128"), "{out}");
    // --force with nothing to change leaves the file as it was.
    let forced = run(&["models", "inspect", s(&model), "--force"]);
    let out = common::success_stdout(&forced);
    assert!(out.contains("nothing to change"), "{out}");
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), before);
    // Reasons to change: a window the model's positions cannot hold, an output the graph lacks.
    write(
        &model.join("config.json"),
        r#"{"model_type": "bert", "max_position_embeddings": 512}"#,
    );
    write(
        &toml,
        &before
            .replace("max_length = 128", "max_length = 1024")
            .replace("\"last_hidden_state\"", "\"states\""),
    );
    let forced = run(&["models", "inspect", s(&model), "--force"]);
    let out = common::success_stdout(&forced);
    assert!(
        out.contains("changed max_length: 1024 -> 512 (config.json allows at most 512"),
        "{out}"
    );
    assert!(
        out.contains("changed hidden_output: \"states\" -> \"last_hidden_state\" (the graph has no output \"states\""),
        "{out}"
    );
    let after: toml::Table = toml::from_str(&std::fs::read_to_string(&toml).unwrap()).unwrap();
    assert_eq!(after["max_length"].as_integer(), Some(512));
    assert_eq!(after["gpu_model"].as_str(), Some("model_gpu.onnx"));
    assert_eq!(after["hidden_output"].as_str(), Some("last_hidden_state"));
    assert_eq!(after["name"].as_str(), Some("tiny-embedding"));
}

#[test]
fn an_invalid_candidate_is_an_error_with_its_reason_not_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    // Java: parses, but does not compile.
    let java_tasks = dir.path().join("java.jsonl");
    let first = common::read("fixtures/java/tasks.jsonl")
        .lines()
        .next()
        .unwrap()
        .to_string();
    write(&java_tasks, &(first + "\n"));
    let candidate = dir.path().join("Main.java");
    write(
        &candidate,
        "public class Main {\n    public static void main(String[] args) {\n        \
         System.out.println(undefinedName);\n    }\n}\n",
    );
    let o = run(&[
        "check",
        s(&java_tasks),
        "--id",
        "java/anagram",
        "--candidate",
        s(&candidate),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("does not compile") && err.contains("cannot find symbol"),
        "{err}"
    );
    assert!(!stdout(&o).contains("NOT equivalent"), "{}", stdout(&o));
    // Python: does not parse.
    let py_tasks = dir.path().join("py.jsonl");
    write(
        &py_tasks,
        "{\"id\": \"echo\", \"source\": \"print(input())\\n\", \"tests\": [{\"input\": \"a\\n\", \"output\": \"a\\n\"}]}\n",
    );
    let candidate = dir.path().join("bad.py");
    write(&candidate, "print(input()\n");
    let o = run(&[
        "check",
        s(&py_tasks),
        "--id",
        "echo",
        "--candidate",
        s(&candidate),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("is not a valid Python program"),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains("NOT equivalent"), "{}", stdout(&o));
}

#[test]
fn robustness_takes_the_force_new_it_tells_users_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (_tasks_dir, tasks) = common::fixture_subset(8);
    let out = dir.path().join("out");
    // Its augment directory (seed 0, training set c) holds another job's run.
    let augment = out.join("seed-0/augment-c");
    std::fs::create_dir_all(&augment).unwrap();
    write(
        &augment.join("run.json"),
        r#"{"kind": "attack", "settings": {}}"#,
    );
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let detector = format!("onnx:{}", model.display());
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "robustness",
            s(&tasks),
            "--out",
            s(&out),
            "--detector",
            &detector,
            "--threads",
            "2",
            "--quiet",
            "--variants",
            "1",
            "--epochs",
            "1",
            "--valid",
            "0",
            "--set",
            "c=var-rename",
            "--iterations",
            "1",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        v.extend(extra.iter().map(|a| a.to_string()));
        v
    };
    let refused = common::equimorph(
        &args(&[]).iter().map(String::as_str).collect::<Vec<_>>(),
        None,
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("--force-new"),
        "{}",
        stderr(&refused)
    );
    let help = stdout(&run(&["robustness", "--help"]));
    assert!(help.contains("--force-new"), "{help}");
    let forced = common::equimorph(
        &args(&["--force-new"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        None,
    );
    assert!(forced.status.success(), "{}", stderr(&forced));
    let run_json: Value =
        serde_json::from_str(&std::fs::read_to_string(augment.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["kind"], "augment", "{run_json}");
    assert!(out.join("robustness.json").is_file());
}

/// Entries of `dir` a Java worker pool leaves: its directory and its JVM log.
fn java_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("equimorph-java-") || n.starts_with(".tmp"))
        .collect()
}

#[test]
fn a_java_validate_ended_by_a_signal_leaves_no_worker_directory() {
    use std::os::unix::fs::PermissionsExt;
    for signal in [libc::SIGTERM, libc::SIGKILL] {
        let tmp = tempfile::tempdir().unwrap();
        // The sandbox's user must reach the worker's directory under it.
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
            .args(["validate"])
            .arg(common::root().join("fixtures/java/tasks.jsonl"))
            .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
            .env("TMPDIR", tmp.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while java_leftovers(tmp.path()).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no Java worker directory appeared"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // Let a worker start and compile.
        std::thread::sleep(Duration::from_millis(500));
        assert!(
            child.try_wait().unwrap().is_none(),
            "validate ended too soon"
        );
        // SAFETY: a plain kill(2) on our own child.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let status = child.wait().unwrap();
        assert!(!status.success(), "signal {signal}: {status:?}");
        let start = Instant::now();
        while !java_leftovers(tmp.path()).is_empty() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            java_leftovers(tmp.path()),
            Vec::<String>::new(),
            "signal {signal} left the Java worker's files"
        );
    }
}

#[test]
fn calibrate_is_quiet_on_request_and_says_why_a_type_has_no_threshold() {
    let dir = tempfile::tempdir().unwrap();
    // Three Type-4 files whose halves tie with the non-clone pairs drawn across them.
    let band = dir
        .path()
        .join("bench/true_semantic_clones/python/prompt_1/T4");
    std::fs::create_dir_all(&band).unwrap();
    for i in 1..=3 {
        write(
            &band.join(format!("Clone_{i}.py")),
            &format!("def f{i}(x):\n    return x + 1\n\n\ndef h{i}(x):\n    return x + 1\n"),
        );
    }
    let out = dir.path().join("out");
    let o = run(&[
        "calibrate",
        s(&dir.path().join("bench")),
        "--detector",
        "jaccard",
        "--fpr",
        "0",
        "--quiet",
        "--out",
        s(&out),
    ]);
    let text = common::success_stdout(&o);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("Type-4:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("at FPR <= 0: none (non-clone pairs score as high as any clone"),
        "{line}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration.json")).unwrap())
            .unwrap();
    let missing = &json["by_clone_type"]["Type-4"]["at_fpr_missing"];
    assert!(
        missing.as_str().is_some_and(|m| m.contains("3 of the 3")),
        "{json}"
    );
}

#[test]
fn verify_symbolic_says_how_many_programs_crosshair_examined() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    write(
        &tasks,
        concat!(
            r#"{"id": "add", "source": "def add(a: int, b: int) -> int:\n    total = a + b\n    if total > 10:\n        return total\n    return total\n", "entry_point": "add", "tests": [{"input": "", "call": "print(repr(add(1, 2)))", "output": "3\n"}, {"input": "", "call": "print(repr(add(20, 2)))", "output": "22\n"}]}"#,
            "\n",
            r#"{"id": "echo", "source": "s = input()\nfor i in range(2):\n    print(s)\n", "tests": [{"input": "ab\n", "output": "ab\nab\n"}]}"#,
            "\n"
        ),
    );
    let run_dir = dir.path().join("run");
    let o = common::attack_command(&tasks, &run_dir, "jaccard", 2, &["--threshold", "0.9"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[
        "verify",
        s(&run_dir),
        "--tasks",
        s(&tasks),
        "--verify",
        "symbolic",
        "--symbolic-budget",
        "2",
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("CrossHair examined 1 of 2 winner(s)"),
        "{text}\n{}",
        stderr(&o)
    );
    assert!(
        text.contains("1 it could not examine (1: the task has no entry point)"),
        "{text}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("verify.json")).unwrap())
            .unwrap();
    assert_eq!(json["tally"]["symbolic"]["examined"], 1, "{json}");
}

#[test]
fn score_counts_each_truncated_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.py");
    write(
        &long,
        &(0..60)
            .map(|i| format!("x{i} = {i} * {i} + {i}\n"))
            .collect::<String>(),
    );
    let (a, b) = (dir.path().join("a.py"), dir.path().join("b.py"));
    write(&a, "print(1)\n");
    write(&b, "print(2)\n");
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let detector = format!("onnx:{}", model.display());
    let args = [
        "score",
        "--detector",
        &detector,
        "--threads",
        "2",
        s(&long),
        s(&a),
        s(&b),
    ];
    let text = common::success_stdout(&run(&args));
    assert!(
        text.contains(
            "1 of 3 files are longer than the model's window of 128 tokens and were truncated: [0]"
        ),
        "{text}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let json: Value = serde_json::from_str(&common::success_stdout(&run(&json_args))).unwrap();
    assert_eq!(json["truncated"], 1, "{json}");
    assert_eq!(json["truncated_files"][0], s(&long), "{json}");
}

#[test]
fn compare_and_report_name_an_augment_run_and_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let (_tasks_dir, tasks) = common::fixture_subset(2);
    let aug = dir.path().join("aug");
    let o = run(&[
        "augment",
        s(&tasks),
        "--out",
        s(&aug),
        "--variants",
        "1",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["compare", s(&aug), "--out", s(&dir.path().join("cmp"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("is an augment run; compare takes attack runs"),
        "{err}"
    );
    assert!(!err.contains("invalid type"), "{err}");
    let o = run(&["report", s(&aug)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("is an augment run") && err.contains("rerun `equimorph augment`"),
        "{err}"
    );
    assert!(!err.contains("equimorph attack"), "{err}");
}

#[test]
fn a_json_array_is_one_clear_error_and_a_duplicate_id_names_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let task = |i: usize| {
        serde_json::json!({"id": format!("t{i}"), "source": "print(input())\n",
            "tests": [{"input": "a\n", "output": "a\n"}]})
    };
    let array = Value::Array((0..3).map(task).collect());
    for (name, text) in [
        ("one.jsonl", format!("{array}\n")),
        (
            "pretty.jsonl",
            serde_json::to_string_pretty(&array).unwrap(),
        ),
        ("pretty.json", serde_json::to_string_pretty(&array).unwrap()),
    ] {
        let path = dir.path().join(name);
        write(&path, &text);
        let o = run(&["dataset", s(&path)]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "{} is a JSON array, not JSON lines (one task per line)",
                path.display()
            )),
            "{name}: {err}"
        );
        assert!(!err.contains("warning"), "{name}: {err}");
    }
    let lines = [
        task(0).to_string(),
        task(1).to_string(),
        String::new(),
        task(0).to_string(),
        task(2).to_string(),
        task(1).to_string(),
    ];
    let dup = dir.path().join("dup.jsonl");
    write(&dup, &(lines.join("\n") + "\n"));
    let o = run(&["dataset", s(&dup)]);
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:4: duplicate id \"t0\", first on line 1; kept the first",
            dup.display()
        )) && err.contains(&format!(
            "{}:6: duplicate id \"t1\", first on line 2; kept the first",
            dup.display()
        )),
        "{err}"
    );
    assert!(err.contains("kept 3 task(s)"), "{err}");
}

#[test]
fn apply_on_java_text_says_to_pass_language_java() {
    let java = b"public class Main {\n    public static void main(String[] a) {\n        System.out.println(1);\n    }\n}\n";
    let o = common::equimorph(&["apply", "--transform", "var-rename", "-"], Some(java));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("does not parse as Python") && err.contains("pass --language java"),
        "{err}"
    );
}

#[test]
fn dataset_counts_a_submission_that_is_not_utf8_as_skipped_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("p00001");
    std::fs::create_dir_all(&problem).unwrap();
    write(&problem.join("s1.py"), "print(1)\n");
    std::fs::write(problem.join("s2.py"), b"print(\"\xff\xfe\")\n").unwrap();
    write(&problem.join("s3.py"), "print(3)\n");
    let o = run(&["dataset", s(dir.path()), "--json"]);
    let json: Value = serde_json::from_str(&common::success_stdout(&o)).unwrap();
    assert_eq!(json["report"]["untested"], 2, "{json}");
    assert_eq!(
        json["report"]["skipped"]["submission(s) not valid UTF-8"], 1,
        "{json}"
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("2 submission(s) have no metadata"),
        "kept ones only: {warnings}"
    );
}

#[test]
fn design_against_an_unreachable_endpoint_is_an_error_and_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // A port that refuses: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = dir.path().join("designs.jsonl");
    let url = format!("http://127.0.0.1:{port}/v1");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let o = common::equimorph_env(
        &[
            "design",
            "--tasks",
            s(&tasks),
            "--out",
            s(&out),
            "--llm-url",
            &url,
            "--llm-model",
            "m",
            "--llm-retries",
            "0",
            "--llm-cache",
            s(&dir.path().join("cache")),
            "--count",
            "2",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("network error"), "{}", stderr(&o));
    assert!(!out.exists(), "an empty designs file was left");
}

#[test]
fn diversity_explains_a_negative_delta() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let line = common::read("fixtures/tasks.jsonl")
        .lines()
        .find(|l| l.contains("\"id\": \"memoize-decorator\""))
        .expect("memoize-decorator fixture")
        .to_string();
    write(&tasks, &(line + "\n"));
    let o = run(&[
        "diversity",
        s(&tasks),
        "--detector",
        "jaccard",
        "-k",
        "2",
        "--beam",
        "2",
        "--transforms",
        "temp-var,var-rename,state-machine,while-to-for,for-to-while,generator-chain",
        "--out",
        s(&dir.path().join("out")),
    ]);
    let text = common::success_stdout(&o);
    assert!(
        text.lines().any(|l| l.starts_with("| temp-var | -0.")),
        "the case needs a negative Δ_k: {text}"
    );
    assert!(
        text.contains("Note: a negative Δ_k means that the set without that transform reached a larger diameter estimate"),
        "{text}"
    );
    assert!(text.contains("sampling noise"), "{text}");
}

#[test]
fn a_missing_file_is_said_once() {
    for args in [
        vec!["validate", "/no/such/tasks.jsonl"],
        vec!["dataset", "/no/such/tasks.jsonl"],
        vec!["transforms", "list", "--transforms", "/no/such/x.wasm"],
        vec!["calibrate", "/no/such/pairs.jsonl", "--detector", "jaccard"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(
            err.matches("No such file or directory").count(),
            1,
            "{args:?}: {err}"
        );
    }
}
