//! The job layer's shared mechanisms seen from the command line: an error whose message
//! already says its cause does not say it twice, and jobs moved into the library keep their
//! outputs (diversity, report, models).

use crate::common;

use common::{equimorph, root};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn an_os_error_is_said_once() {
    let tasks = root().join("fixtures/tasks.jsonl");
    let o = equimorph(
        &[
            "diversity",
            tasks.to_str().unwrap(),
            "--sample",
            "1",
            "-k",
            "1",
            "--detector",
            "jaccard",
            "--transforms",
            "var-rename",
            "--out",
            "/dev/null/diversity",
        ],
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/null/diversity"), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
}

#[test]
fn a_malformed_run_record_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.jsonl"), "").unwrap();
    std::fs::write(dir.path().join("run.json"), "{ not json").unwrap();
    let o = equimorph(&["report", dir.path().to_str().unwrap()], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("run.json"), "{err}");
    assert_eq!(err.matches("key must be a string").count(), 1, "{err}");
}

#[test]
fn diversity_writes_its_three_files_and_prints_its_table() {
    let tasks = root().join("fixtures/tasks.jsonl");
    let out = tempfile::tempdir().unwrap();
    let o = equimorph(
        &[
            "diversity",
            tasks.to_str().unwrap(),
            "--sample",
            "2",
            "-k",
            "1",
            "--detector",
            "jaccard",
            "--transforms",
            "var-rename,if-else-flip",
            "--grow",
            "given",
            "--out",
            out.path().to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let md = std::fs::read_to_string(out.path().join("diversity.md")).unwrap();
    // What is printed is the report that was written, then where it is.
    assert!(stdout.starts_with(&md), "{stdout}");
    assert!(stdout.trim_end().ends_with(&format!(
        "wrote diversity.json, diversity.md and diversity.svg in {}",
        out.path().display()
    )));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("diversity.json")).unwrap())
            .unwrap();
    assert_eq!(json["programs"].as_array().unwrap().len(), 2);
    assert_eq!(json["grow"].as_array().unwrap().len(), 2);
    let mut added: Vec<&str> = json["grow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["added"].as_str().unwrap())
        .collect();
    added.sort_unstable();
    assert_eq!(added, ["if-else-flip", "var-rename"]);
    assert!(std::fs::read_to_string(out.path().join("diversity.svg"))
        .unwrap()
        .contains("<polyline"));
}

#[test]
fn calibrate_stops_on_sigint_with_exit_130_and_writes_nothing() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let programs: Vec<String> = common::fixture_tasks()
        .tasks
        .iter()
        .map(|t| t.source.clone())
        .collect();
    let mut text = String::new();
    for (i, a) in programs.iter().enumerate() {
        for (j, b) in programs.iter().enumerate().filter(|(j, _)| *j != i) {
            let pair = serde_json::json!({"a": a, "b": b, "label": i % 3 == j % 3});
            text.push_str(&pair.to_string());
            text.push('\n');
        }
    }
    let pairs = dir.path().join("pairs.jsonl");
    std::fs::write(&pairs, text).unwrap();
    let out = dir.path().join("out");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(["calibrate", pairs.to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The handler is installed before the pairs are read; scoring 1,640 pairs with the
    // default model takes far longer than this.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted while scoring the pairs"), "{err}");
    assert!(!out.join("calibration.json").exists());
}
