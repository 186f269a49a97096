//! One run-directory rule for every job: a directory resumes only the run that made it (same
//! job, same settings); anything else is refused with each differing setting named, unless
//! `--force-new`. Re-rendering uses the run's own detector.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn run_json(dir: &Path) -> Value {
    serde_json::from_str(&common::read(dir.join("run.json"))).unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn attack(tasks: &Path, out: &Path, detector: &str, extra: &[&str]) -> std::process::Output {
    common::attack_command(tasks, out, detector, 2, extra)
        .output()
        .expect("binary runs")
}

#[test]
fn an_attack_directory_resumes_only_its_own_run() {
    let (_d, tasks) = common::fixture_subset(3);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let o = attack(&tasks, &out, "jaccard", &["--beam", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = std::fs::read_to_string(out.join("results.jsonl")).unwrap();

    // Another detector, beam and iteration count: refused, each setting named with both values.
    let o = common::attack_command(&tasks, &out, "nicad", 5, &["--beam", "3"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for line in [
        "detector: jaccard (in the directory) ≠ nicad (now)",
        "beam: 2 (in the directory) ≠ 3 (now)",
        "iterations: 2 (in the directory) ≠ 5 (now)",
    ] {
        assert!(err.contains(line), "{line}\n{err}");
    }
    assert!(err.contains("--force-new"), "{err}");
    // Another seed too.
    let o = attack(&tasks, &out, "jaccard", &["--beam", "2", "--seed", "7"]);
    assert!(
        stderr(&o).contains("seed: 0 (in the directory) ≠ 7 (now)"),
        "{}",
        stderr(&o)
    );
    // Nothing was touched.
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl")).unwrap(),
        first
    );
    assert!(run_json(&out)["settings"]["detector"] == "jaccard");

    // The same command resumes.
    let o = attack(&tasks, &out, "jaccard", &["--beam", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resuming: 3 tasks already"),
        "{}",
        stderr(&o)
    );
    // It keeps the threshold it recorded: no validation or calibration again.
    assert!(
        !stderr(&o).contains("calibrating") && !stderr(&o).contains("validating"),
        "{}",
        stderr(&o)
    );
    // --force-new starts over with the new settings.
    let o = common::attack_command(&tasks, &out, "nicad", 1, &["--beam", "3", "--force-new"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("resuming"), "{}", stderr(&o));
    let run = run_json(&out);
    assert_eq!(run["kind"], "attack");
    assert_eq!(run["settings"]["detector"], "nicad");
    assert_eq!(run["beam"], 3);
    let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 3);
}

#[test]
fn every_job_refuses_a_directory_of_another_job() {
    let (_d, tasks) = common::fixture_subset(3);
    let dir = tempfile::tempdir().unwrap();
    let (attack_dir, augment_dir, select_dir) = (
        dir.path().join("attack"),
        dir.path().join("augment"),
        dir.path().join("select"),
    );
    let t = tasks.to_str().unwrap();
    let candidates = common::root().join("fixtures/scripts");
    let c = candidates.to_str().unwrap();
    assert!(attack(&tasks, &attack_dir, "jaccard", &["--beam", "1"])
        .status
        .success());
    let augment = |out: &Path| {
        common::equimorph(
            &[
                "augment",
                t,
                "--out",
                out.to_str().unwrap(),
                "--variants",
                "1",
            ],
            None,
        )
    };
    let select = |out: &Path| {
        common::equimorph(
            &[
                "select",
                c,
                "--tasks",
                t,
                "--out",
                out.to_str().unwrap(),
                "--detector",
                "jaccard",
            ],
            None,
        )
    };
    let o = augment(&augment_dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = select(&select_dir);
    assert!(o.status.success(), "{}", stderr(&o));

    let o = attack(&tasks, &augment_dir, "jaccard", &["--beam", "1"]);
    assert!(
        stderr(&o).contains("holds an augment run, not an attack run"),
        "{}",
        stderr(&o)
    );
    let o = augment(&attack_dir);
    assert!(
        stderr(&o).contains("holds an attack run, not an augment run"),
        "{}",
        stderr(&o)
    );
    let o = select(&attack_dir);
    assert!(
        stderr(&o).contains("holds an attack run, not a select run"),
        "{}",
        stderr(&o)
    );
    assert_eq!(o.status.code(), Some(2));
    // Resuming with nothing changed still works for augment and select.
    let o = augment(&augment_dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = select(&select_dir);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn report_recalibrates_with_the_runs_own_detector() {
    let (_d, tasks) = common::fixture_subset(8);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let o = common::attack_command(&tasks, &out, "jaccard", 1, &["--beam", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let calibrated = run_json(&out)["threshold"].as_f64().unwrap();
    // Fix it, then ask for auto again without naming a detector: jaccard's threshold comes back
    // (MiniLM, the default detector, would give another one).
    let d = out.to_str().unwrap();
    common::success_stdout(&common::equimorph(
        &["report", d, "--threshold", "0.9"],
        None,
    ));
    let fixed = run_json(&out)["threshold"].as_f64().unwrap();
    assert!((fixed - 0.9).abs() < 1e-6, "{fixed}");
    let o = common::equimorph(&["report", d, "--threshold", "auto"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let run = run_json(&out);
    assert_eq!(run["threshold"].as_f64(), Some(calibrated));
    assert_eq!(
        run["settings"]["detector"], "jaccard",
        "the settings survive"
    );
    let o = common::equimorph(
        &["report", d, "--threshold", "auto", "--detector", "minilm"],
        None,
    );
    assert!(stderr(&o).contains("but the attack used"), "{}", stderr(&o));
    assert_ne!(run_json(&out)["threshold"].as_f64(), Some(calibrated));
}
