//! What a user reads when something is off: reasons keep their case and say how a failing
//! original ended, bad files and options get one clear line, a closed pipe ends quietly, and
//! an auto threshold is never calibrated on a handful of pairs.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn write_tasks(dir: &Path, tasks: &[Value]) -> std::path::PathBuf {
    let path = dir.join("tasks.jsonl");
    let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn failing_originals_keep_their_case_and_say_how_they_ended() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write_tasks(
        dir.path(),
        &[
            serde_json::json!({"id": "shouts", "source": "print('YES')\n",
                "tests": [{"input": "", "output": "yes\n"}]}),
            serde_json::json!({"id": "crashes", "source": "print(1 // 0)\n",
                "tests": [{"input": "", "output": "1\n"}]}),
            serde_json::json!({"id": "fine", "source": "print(input()[::-1])\n",
                "tests": [{"input": "abc\n", "output": "cba\n"}]}),
        ],
    );
    let out = dir.path().join("out");
    let o = common::attack_command(&tasks, &out, "jaccard", 1, &["--threshold", "0.5"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reason = |id: &str| -> String {
        let l = lines.iter().find(|l| l["id"] == id).expect(id);
        assert_eq!(l["status"], "skipped", "{l}");
        l["reason"].as_str().unwrap().to_string()
    };
    let shouts = reason("shouts");
    assert!(
        shouts.starts_with("original is failing: test 0: expected \"yes\\n\", got \"YES\\n\""),
        "the program's output keeps its case: {shouts}"
    );
    assert!(shouts.contains("exit status 0"), "{shouts}");
    let crashes = reason("crashes");
    assert!(
        crashes.contains("got \"\"")
            && crashes
                .contains("exit status 1: ZeroDivisionError: integer division or modulo by zero"),
        "a crash shows its exit status and the end of its stderr: {crashes}"
    );
    // `validate` says the same.
    let v = common::equimorph(&["validate", tasks.to_str().unwrap(), "--json"], None);
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("ZeroDivisionError"), "{text}");
}

#[test]
fn bad_files_and_options_get_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    // Not WebAssembly at all: one line, no byte dump.
    let garbage = dir.path().join("garbage.wasm");
    std::fs::write(&garbage, "garbage, not a component\n").unwrap();
    let o = common::equimorph(
        &[
            "transforms",
            "list",
            "--transforms",
            garbage.to_str().unwrap(),
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a WebAssembly file"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    // An empty .jsonl file is a task file with no task.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = dir.path().join("out");
    let o = common::attack_command(&empty, &out, "jaccard", 1, &[])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds no task") && !err.contains("cannot tell the format"),
        "{err}"
    );

    // A file of unknown format names the option of the command at hand.
    let odd = dir.path().join("odd.txt");
    std::fs::write(&odd, "{\"neither\": 1}\n").unwrap();
    let o = common::equimorph(
        &[
            "augment",
            odd.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    let err = stderr(&o);
    assert!(
        err.contains("cannot tell the format") && err.contains("--task-format"),
        "{err}"
    );
    let o = common::equimorph(&["validate", odd.to_str().unwrap()], None);
    let err = stderr(&o);
    assert!(
        err.contains("--format") && !err.contains("--task-format"),
        "{err}"
    );

    // A time budget of zero would stop every task before its first candidate.
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let o = common::attack_command(&tasks, &out, "jaccard", 1, &["--time-per-task", "0"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--time-per-task must be a positive"), "{err}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::process::{Command, Stdio};
    // The reader goes away before equimorph writes (as `| head -1` does on long output).
    let mut child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(["transforms", "show", "var-rename"])
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
}

#[test]
fn an_auto_threshold_needs_twenty_pairs_or_falls_back_loudly() {
    let (_d, tasks) = common::fixture_subset(4);
    let out = tempfile::tempdir().unwrap();
    let o = common::attack_command(&tasks, out.path(), "jaccard", 1, &["--beam", "1"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("cannot be calibrated: only 6 non-clone pairs"),
        "{err}"
    );
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("run.json")).unwrap())
            .unwrap();
    assert_eq!(run["threshold"].as_f64(), Some(0.5));
    let source = run["threshold_source"].as_str().unwrap();
    assert!(
        source.starts_with("fixed 0.5: auto:0.95 was not calibrated")
            && source.contains("fewer than the 20"),
        "{source}"
    );
    let summary = std::fs::read_to_string(out.path().join("summary.json")).unwrap();
    assert!(
        summary.contains("was not calibrated"),
        "the summary records it"
    );
}

#[test]
fn runs_that_produce_nothing_usable_exit_1_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    // Every original fails its own tests: nothing can be attacked, augmented or evaluated.
    let tasks = write_tasks(
        dir.path(),
        &[
            serde_json::json!({"id": "a", "source": "print(1)\n",
                "tests": [{"input": "", "output": "2\n"}]}),
            serde_json::json!({"id": "b", "source": "print(3)\n",
                "tests": [{"input": "", "output": "4\n"}]}),
        ],
    );
    let t = tasks.to_str().unwrap();
    let out = |name: &str| dir.path().join(name).display().to_string();
    let o = common::attack_command(&tasks, Path::new(&out("attack")), "jaccard", 1, &[])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no task was attacked (2 skipped, 0 errors)"),
        "{}",
        stderr(&o)
    );
    let o = common::equimorph(&["augment", t, "--out", &out("augment")], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no task was augmented"),
        "{}",
        stderr(&o)
    );
    let candidates = common::root().join("fixtures/scripts");
    let o = common::equimorph(
        &[
            "select",
            candidates.to_str().unwrap(),
            "--tasks",
            t,
            "--out",
            &out("select"),
            "--detector",
            "jaccard",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing was evaluated"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_transform_that_fails_on_most_calls_is_named_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("broken-syntax.py");
    std::fs::write(
        &script,
        "# name: broken-syntax\n# category: layout\n# description: never compiles\nimport sys\n\
         src = sys.stdin.read(\nprint(src)\n",
    )
    .unwrap();
    let (_d, tasks) = common::fixture_subset(2);
    let spec = format!("{},var-rename", script.display());
    let o = common::attack_command(
        &tasks,
        &dir.path().join("out"),
        "jaccard",
        1,
        // One iteration per task, none added: two calls of each transform.
        &["--transforms", &spec, "--threshold", "0.5", "--extend", "0"],
    )
    .output()
    .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: transform broken-syntax failed on 2 of its 2 calls"),
        "{err}"
    );
    assert!(!err.contains("transform var-rename failed"), "{err}");
}

#[test]
fn codexglue_splits_are_checked_before_the_run() {
    let (_d, tasks) = common::fixture_subset(12);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |split: &str| {
        common::equimorph(
            &[
                "augment",
                tasks.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--format",
                "codexglue",
                "--split",
                split,
            ],
            None,
        )
    };
    // 12 problems at 0.8/0.1/0.1 leave one problem each in valid and test: no negative there.
    let o = run("0.8,0.1,0.1");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("gives train / valid / test 10 / 1 / 1 problems"),
        "{err}"
    );
    assert!(
        !out.join("variants.jsonl").exists(),
        "refused before any work"
    );
    let o = run("0.8,0.8,0.8");
    assert!(stderr(&o).contains("must add up to 1"), "{}", stderr(&o));
}

#[test]
fn the_auto_threshold_is_calibrated_on_originals_that_pass_their_tests() {
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<String> = common::read("fixtures/tasks.jsonl")
        .lines()
        .take(8)
        .map(String::from)
        .collect();
    let broken = [
        serde_json::json!({"id": "fails", "source": "print('no')\n",
            "tests": [{"input": "", "output": "yes\n"}]}),
        serde_json::json!({"id": "unparseable", "source": "def (:\n",
            "tests": [{"input": "", "output": "1\n"}]}),
        serde_json::json!({"id": "crashes", "source": "import sys\nsys.exit(3)\n",
            "tests": [{"input": "", "output": "1\n"}]}),
    ];
    let clean = dir.path().join("clean.jsonl");
    std::fs::write(&clean, good.join("\n") + "\n").unwrap();
    // The same good tasks with broken ones in between.
    let mut mixed_lines = Vec::new();
    for (i, line) in good.iter().enumerate() {
        mixed_lines.push(line.clone());
        if let Some(b) = broken.get(i) {
            mixed_lines.push(b.to_string());
        }
    }
    let mixed = dir.path().join("mixed.jsonl");
    std::fs::write(&mixed, mixed_lines.join("\n") + "\n").unwrap();
    let threshold = |tasks: &Path, out: &str| -> (f64, String) {
        let out = dir.path().join(out);
        let o = common::attack_command(tasks, &out, "jaccard", 1, &["--beam", "1"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let run: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        (
            run["threshold"].as_f64().unwrap(),
            run["threshold_source"].as_str().unwrap().to_string(),
        )
    };
    let (a, source) = threshold(&clean, "clean");
    let (b, mixed_source) = threshold(&mixed, "mixed");
    assert_eq!(a, b, "the broken originals changed the calibration");
    assert!(source.contains("28 non-clone pairs"), "{source}");
    assert_eq!(source, mixed_source);
}

#[test]
fn models_list_names_every_detector_and_help_documents_the_environment() {
    let o = common::equimorph(&["models", "list", "--json"], None);
    let text = common::success_stdout(&o);
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let spec = |s: &str| entries.iter().find(|e| e["spec"] == s).cloned();
    let minilm = spec("minilm").expect("minilm listed");
    assert_eq!(minilm["kind"], "embedding");
    assert_eq!(minilm["window"], 256);
    assert_eq!(minilm["available"], true);
    for classic in ["jaccard", "sourcerercc", "nicad"] {
        assert_eq!(spec(classic).expect(classic)["kind"], "classic");
    }
    // The test models made by setup are found as onnx: specs, the cross-encoder among them.
    assert!(
        entries
            .iter()
            .any(|e| e["spec"].as_str().unwrap().ends_with("tiny-cross")
                && e["kind"] == "cross-encoder"),
        "{text}"
    );
    // Every listed spec opens as a detector (those available).
    for e in entries.iter().filter(|e| e["available"] == true) {
        let s = e["spec"].as_str().unwrap();
        if s.contains("tiny-nan") || s.contains("tiny-short") || s.contains("tiny-zero") {
            continue; // broken on purpose: they load, then score badly
        }
        let a = common::root().join("fixtures/bench/program100.py");
        let o = common::equimorph(
            &[
                "score",
                "--detector",
                s,
                a.to_str().unwrap(),
                a.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success(), "{s}: {}", stderr(&o));
    }
    let help = common::success_stdout(&common::equimorph(&["--help"], None));
    for var in [
        "EQUIMORPH_HOME",
        "EQUIMORPH_CACHE",
        "EQUIMORPH_LOG",
        "EQUIMORPH_TRANSFORMS",
        "ORT_DYLIB_PATH",
        "Exit codes",
    ] {
        assert!(help.contains(var), "{var} missing from --help");
    }
}
