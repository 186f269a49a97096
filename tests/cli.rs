//! The command line as a user meets it: help, listing, apply, and clear errors.

use crate::common;

use std::process::{Command, Output};

fn equimorph(args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::equimorph(args, stdin)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["transforms", "list", "--help"],
        vec!["apply", "--help"],
        vec!["validate", "--help"],
        vec!["check", "--help"],
        vec!["augment", "--help"],
        vec!["merge", "--help"],
    ] {
        let out = equimorph(&args, None);
        assert!(out.status.success(), "{args:?}");
        assert!(text(&out.stdout).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn transforms_list_as_table_and_json() {
    let out = equimorph(&["transforms", "list", "--json"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    // 39 Python SPTs, 28 Java ones and 26 C++ ones, 17 of which rewrite C too.
    assert_eq!(rows.len(), 93);
    assert_eq!(rows.iter().filter(|r| r["language"] == "java").count(), 28);
    assert_eq!(rows.iter().filter(|r| r["language"] == "cpp").count(), 26);
    let also_c = rows
        .iter()
        .filter(|r| r["languages"] == serde_json::json!(["cpp", "c"]))
        .count();
    assert_eq!(also_c, 17);
    for r in &rows {
        for k in ["name", "category", "description", "file", "language"] {
            assert!(r[k].is_string(), "{k} in {r}");
        }
        assert_eq!(
            r["languages"][0], r["language"],
            "the main language first: {r}"
        );
    }
    let table = text(&equimorph(&["transforms", "list"], None).stdout);
    assert!(table.starts_with("NAME") && table.contains("for-to-while"));
    assert!(table.contains("cpp,c"), "{table}");
}

#[test]
fn apply_prints_the_program_and_reports_steps_that_did_not_apply() {
    let src = b"for i in range(3):\n    print(i)\n";
    let out = equimorph(
        &[
            "apply",
            "--transform",
            "for-to-while,stmt-swap",
            "--seed",
            "1",
            "-",
        ],
        Some(src),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("while "),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("step 2 (stmt-swap): not applicable"),
        "{}",
        text(&out.stderr)
    );
    let seeds = equimorph(
        &[
            "apply",
            "--transform",
            "var-rename,var-rename",
            "--seed",
            "1,2",
            "-",
        ],
        Some(src),
    );
    assert!(seeds.status.success());
}

#[test]
fn apply_errors_are_clear_and_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let bad_utf8 = dir.path().join("latin1.py");
    std::fs::write(&bad_utf8, b"print('caf\xe9')\n").unwrap();
    type Case<'a> = (Vec<String>, Option<&'a [u8]>, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![
                "apply".into(),
                "--transform".into(),
                "nope".into(),
                "-".into(),
            ],
            Some(b"x = 1\n"),
            "unknown transform \"nope\"",
        ),
        (
            vec![
                "apply".into(),
                "--transform".into(),
                "var-rename".into(),
                "/no/such/file.py".into(),
            ],
            None,
            "cannot read /no/such/file.py",
        ),
        (
            vec![
                "apply".into(),
                "--transform".into(),
                "var-rename".into(),
                bad_utf8.display().to_string(),
            ],
            None,
            "not valid UTF-8",
        ),
        (
            vec![
                "apply".into(),
                "--transform".into(),
                "var-rename".into(),
                "-".into(),
            ],
            Some(b"def f(:\n"),
            "does not parse as Python",
        ),
        (
            vec![
                "apply".into(),
                "--transform".into(),
                "var-rename".into(),
                "--seed".into(),
                "x".into(),
                "-".into(),
            ],
            Some(b"x = 1\n"),
            "not a non-negative integer",
        ),
    ];
    for (args, stdin, needle) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = equimorph(&a, stdin);
        assert!(!out.status.success(), "{a:?} should fail");
        assert!(
            text(&out.stderr).contains(needle),
            "{a:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn validate_json_and_check_exit_codes() {
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let tasks = tasks.to_str().unwrap();
    let out = equimorph(&["validate", tasks, "--json"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["ok"].as_u64(),
        Some(common::fixture_tasks().tasks.len() as u64)
    );
    assert_eq!(v["failing"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["isolation"]["launcher"], "bubblewrap");

    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.py");
    std::fs::write(&good, "x, y = map(int, input().split())\nprint(y + x)\n").unwrap();
    let bad = dir.path().join("bad.py");
    std::fs::write(&bad, "x, y = map(int, input().split())\nprint(y - x)\n").unwrap();
    let code = |cand: &str, id: &str| {
        equimorph(&["check", tasks, "--id", id, "--candidate", cand], None)
            .status
            .code()
    };
    assert_eq!(code(good.to_str().unwrap(), "sum-two"), Some(0));
    assert_eq!(code(bad.to_str().unwrap(), "sum-two"), Some(1));
    assert_eq!(code(bad.to_str().unwrap(), "no-such-id"), Some(2));
    assert_eq!(code("/no/such.py", "sum-two"), Some(2));
    let shown = text(
        &equimorph(
            &[
                "check",
                tasks,
                "--id",
                "sum-two",
                "--candidate",
                bad.to_str().unwrap(),
            ],
            None,
        )
        .stdout,
    );
    assert!(
        shown.contains("NOT equivalent: test 0") && shown.contains("--- input ---"),
        "{shown}"
    );
}

#[test]
fn score_prints_a_matrix_and_names_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.py");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "x = 1\nprint(x)\n").unwrap();
    std::fs::write(&b, "not python at all {{{").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = equimorph(&["score", "--json", "--detector", "jaccard", a, b], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["similarity"][0][0], 1.0);
    assert_eq!(v["similarity"][0][1], v["similarity"][1][0]);
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    let table = text(&equimorph(&["score", a, b], None).stdout);
    assert!(
        table.contains("detector: minilm") && table.contains("[1]"),
        "{table}"
    );

    let missing = equimorph(&["score", a, "/no/such.py"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/no/such.py"));
    let bogus = equimorph(&["score", "--detector", "bogus", a, b], None);
    assert!(text(&bogus.stderr).contains("unknown detector \"bogus\""));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_equimorph"));
    let no_runtime = cmd
        .args(["score", a, b])
        .env("ORT_DYLIB_PATH", "/no/libonnxruntime.so")
        .output()
        .unwrap();
    assert_eq!(no_runtime.status.code(), Some(2));
    assert!(
        text(&no_runtime.stderr).contains("make setup"),
        "{}",
        text(&no_runtime.stderr)
    );
    let device = equimorph(&["score", "--device", "tpu", a, b], None);
    assert!(text(&device.stderr).contains("expected cpu, cuda, cuda:N or cuda:N,M"));
}

/// `setup` in a source tree finds what `make setup` installed and changes nothing; a Python
/// without the packages is named with the command that installs them.
#[test]
fn setup_finds_what_is_installed_and_names_what_is_missing() {
    let out = equimorph(&["setup"], None);
    let stdout = common::success_stdout(&out);
    assert!(stdout.contains("ONNX Runtime   present: "), "{stdout}");
    assert!(stdout.contains("default model  present: "), "{stdout}");
    let out = equimorph(&["setup", "--python", "/nonexistent/python3"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run /nonexistent/python3"));
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("python3");
    std::os::unix::fs::symlink(equimorph::oracle::default_python(), &bare).unwrap();
    // A bare interpreter outside any virtualenv: the system's, without onnx or onnxruntime.
    let out = equimorph(&["setup", "--python", bare.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        // The system Python happens to have every package: nothing to name.
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lacks the Python packages"), "{stderr}");
    assert!(
        stderr.contains("pip install onnxruntime==1.31.1"),
        "{stderr}"
    );
}
