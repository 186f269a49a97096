//! Faults are never verdicts: a detector that returns NaN, too few rows or zero embeddings is an
//! error of that task (never a similarity), and an original that does not parse is skipped
//! with that reason (never attacked).

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::{Detector, DetectorError, Device};
use serde_json::Value;
use std::path::PathBuf;

fn model(name: &str) -> PathBuf {
    let p = equimorph::detector::model::models_dir().join(name);
    assert!(
        p.join("equimorph.toml").is_file(),
        "{} is missing: run scripts/setup-models.sh (or make test)",
        p.display()
    );
    p
}

fn open(name: &str, batch_size: usize) -> OnnxDetector {
    OnnxDetector::open(
        &model(name),
        OnnxOptions {
            devices: vec![Device::Cpu],
            threads: 1,
            batch_size,
            ..OnnxOptions::default()
        },
    )
    .expect("model loads")
}

#[test]
fn broken_models_give_typed_errors_never_scores() {
    let anchor = "x = 1\nprint(x)\n";
    let others = [
        "y = 2\nprint(y)\n",
        "for i in range(3):\n    print(i)\n",
        "z = [1]\n",
    ];
    for (name, expected) in [
        ("tiny-nan", "NaN or infinite"),
        ("tiny-short", "rows for a batch of"),
        ("tiny-zero", "all zeros"),
    ] {
        for batch in [1, 8] {
            match open(name, batch).score(anchor, &others) {
                Err(DetectorError::BadScores(m)) => {
                    assert!(m.contains(expected), "{name}, batch {batch}: {m}")
                }
                other => panic!("{name}, batch {batch}: expected BadScores, got {other:?}"),
            }
        }
    }
    // The healthy model of the same shape still scores.
    let ok = open("tiny-embedding", 8).score(anchor, &others).unwrap();
    assert_eq!(ok.len(), 3);
    assert!(ok.iter().all(|m| m.is_finite() && (0.0..=1.0).contains(m)));
}

#[test]
fn check_scores_refuses_wrong_lengths_and_values() {
    use equimorph::detector::check_scores;
    assert!(check_scores(&[0.5, 1.0, 0.0], 3).is_ok());
    assert!(check_scores(&[0.5], 2).is_err());
    assert!(check_scores(&[0.5, 0.5, 0.5], 2).is_err());
    assert!(check_scores(&[f32::NAN], 1).is_err());
    assert!(check_scores(&[f32::INFINITY], 1).is_err());
    assert!(check_scores(&[1.5], 1).is_err());
    assert!(check_scores(&[-0.1], 1).is_err());
}

fn results(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_attack_with_a_broken_detector_reports_errors_with_reasons_and_no_distance() {
    let (_dir, tasks) = common::fixture_subset(3);
    let out = tempfile::tempdir().unwrap();
    let spec = format!("onnx:{}", model("tiny-nan").display());
    let o = common::attack_command(&tasks, out.path(), &spec, 1, &[])
        .output()
        .unwrap();
    // Every task errored: the run finished but produced nothing usable (exit 1), and says so.
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no task was attacked (0 skipped, 3 errors)"),
        "{err}"
    );
    // No distance was measured, so none is printed (a mean of nothing is not L = 0).
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(
        printed.contains("no task attacked, 0 skipped, 3 errors") && !printed.contains("L = "),
        "{printed}"
    );
    // The auto threshold could not be calibrated either; the run says so and goes on.
    let run: serde_json::Value =
        serde_json::from_str(&common::read(out.path().join("run.json"))).unwrap();
    assert!(
        run["threshold_source"]
            .as_str()
            .unwrap()
            .contains("could not be calibrated"),
        "{run}"
    );
    for line in results(out.path()) {
        assert_eq!(line["status"], "error", "{line}");
        assert!(
            line["reason"].as_str().unwrap().contains("no usable score"),
            "{line}"
        );
        assert!(
            line["distance"].is_null() && line["similarity"].is_null(),
            "{line}"
        );
    }
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("| error | detector: the detector gave no usable score"),
        "{md}"
    );
}

#[test]
fn an_original_that_does_not_parse_is_skipped_with_that_reason() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(
        &tasks,
        concat!(
            r#"{"id": "broken", "source": "def f(:\n    return 1\nprint(f())\n", "tests": [{"input": ""}]}"#,
            "\n",
            r#"{"id": "fine", "source": "print(int(input()) * 2)\n", "tests": [{"input": "4\n", "output": "8\n"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let o = common::equimorph(&["validate", tasks.to_str().unwrap()], None);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        printed.contains(
            "unparseable broken: the original does not parse as Python: syntax error at line 1"
        ),
        "{printed}"
    );
    assert!(
        printed.contains("1 ok, 0 failing, 0 flaky, 0 timeout, 1 unparseable"),
        "{printed}"
    );
    let out = dir.path().join("out");
    let o = common::attack_command(&tasks, &out, "jaccard", 1, &[])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = results(&out);
    let broken = lines.iter().find(|l| l["id"] == "broken").unwrap();
    assert_eq!(broken["status"], "skipped");
    assert!(
        broken["reason"]
            .as_str()
            .unwrap()
            .contains("does not parse"),
        "{broken}"
    );
    assert!(broken["distance"].is_null());
    assert_eq!(
        lines.iter().find(|l| l["id"] == "fine").unwrap()["status"],
        "ok"
    );
}

#[test]
fn the_oracle_cache_is_bounded_and_keeps_only_excerpts_of_failures() {
    use equimorph::oracle::{Oracle, OracleConfig, OracleMode, EXCERPT_CHARS};
    let oracle = Oracle::new(OracleConfig {
        mode: OracleMode::Fork,
        cache_entries: 3,
        ..OracleConfig::default()
    })
    .expect("oracle starts");
    let task = common::fixture("sum-two");
    let reference = oracle.reference(&task);
    let candidate =
        |i: usize| format!("a, b = map(int, input().split())\nprint(a + b)\n# variant {i}\n");
    for i in 0..5 {
        assert!(
            oracle
                .check(&task, &reference, &candidate(i))
                .expect("the sandbox works")
                .equivalent
        );
    }
    assert_eq!(oracle.stats().cache_entries, 3);
    assert!(
        oracle
            .check(&task, &reference, &candidate(4))
            .expect("the sandbox works")
            .cached
    );
    assert!(
        !oracle
            .check(&task, &reference, &candidate(0))
            .expect("the sandbox works")
            .cached,
        "the least recently used decision was evicted"
    );
    // A failing candidate that prints a megabyte keeps an excerpt of it, not all of it.
    let loud = "import sys\nsys.stdout.write('x' * 1000000)\n";
    let d = oracle
        .check(&task, &reference, loud)
        .expect("the sandbox works");
    assert!(!d.equivalent);
    let got = d.failure.unwrap().got;
    assert!(got.len() < EXCERPT_CHARS + 100, "{} bytes kept", got.len());
    assert!(got.ends_with("more bytes]"), "{}", &got[got.len() - 40..]);
    assert!(oracle.stats().cache_bytes < 64 << 10);
}

const SET_ORDER: &str =
    "print(list({'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig', 'grape'}))\n";

fn set_task(id: &str, source: &str) -> equimorph::task::Task {
    let line = serde_json::json!({"id": id, "source": source, "tests": [{"input": ""}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    equimorph::task::load(&path, None).unwrap().tasks.remove(0)
}

#[test]
fn a_set_order_dependent_original_is_always_flaky() {
    use equimorph::oracle::{OracleMode, ValidationStatus};
    // Every time, in both modes: the two reference runs use different, chosen hash seeds.
    for mode in [OracleMode::Fork, OracleMode::Spawn] {
        let oracle = common::oracle(mode);
        for _ in 0..3 {
            let v = oracle.validate(&set_task("set-order", SET_ORDER));
            assert_eq!(v.status, ValidationStatus::Flaky, "{mode:?}: {v:?}");
            assert!(v.reason.unwrap().contains("two runs differ"));
        }
        let sorted = format!("print(sorted({}))\n", &SET_ORDER[11..SET_ORDER.len() - 3]);
        assert_eq!(
            oracle.validate(&set_task("sorted", &sorted)).status,
            ValidationStatus::Ok,
            "{sorted}"
        );
    }
}

#[test]
fn a_candidate_verdict_does_not_depend_on_the_worker() {
    use equimorph::oracle::OracleMode;
    // Reference and candidates both iterate a set of strings. Candidates always run under the
    // reference's hash seed, so a copy of the original is equivalent every time, on fresh
    // servers and on warm ones, in both modes (with a random seed per server or process, most
    // of these checks would fail).
    let task = set_task("set-order", SET_ORDER);
    for mode in [OracleMode::Fork, OracleMode::Spawn] {
        for round in 0..3 {
            let oracle = common::oracle(mode);
            let reference = oracle.reference(&task);
            for i in 0..4 {
                let candidate = format!("{SET_ORDER}# {round} {i}\n");
                let d = oracle
                    .check(&task, &reference, &candidate)
                    .expect("the sandbox works");
                assert!(d.equivalent, "{mode:?} round {round}, check {i}: {d:?}");
            }
        }
    }
}

#[test]
fn a_failing_sandbox_command_is_a_fault_never_a_verdict_and_never_cached() {
    use equimorph::oracle::{Oracle, OracleConfig, OracleMode, BROKEN_AFTER};
    let dir = tempfile::tempdir().unwrap();
    let python = common::removable_python(dir.path());
    let oracle = Oracle::new(OracleConfig {
        mode: OracleMode::Spawn,
        python: python.clone(),
        ..OracleConfig::default()
    })
    .expect("oracle starts");
    let task = common::fixture("sum-two");
    let reference = oracle.validate(&task).reference.expect("ok original");
    let copy = |i: usize| format!("{}# copy {i}\n", task.source);
    assert!(
        oracle
            .check(&task, &reference, &copy(0))
            .unwrap()
            .equivalent
    );

    std::fs::remove_file(&python).unwrap();
    let fault = oracle.check(&task, &reference, &copy(1)).unwrap_err();
    assert!(
        fault.to_string().starts_with("the sandbox failed"),
        "{fault}"
    );
    let stats = oracle.stats();
    assert_eq!((stats.faults, stats.retries), (1, 1), "{stats:?}");
    // The original cannot be validated either: an error, not "failing".
    let v = oracle.validate(&task);
    assert_eq!(
        v.status,
        equimorph::oracle::ValidationStatus::Error,
        "{v:?}"
    );
    assert!(!oracle.broken());
    for i in 2..2 + BROKEN_AFTER as usize {
        assert!(oracle.check(&task, &reference, &copy(i)).is_err());
    }
    assert!(oracle.broken(), "every check failed: the sandbox is broken");

    // Nothing was cached: with the interpreter back, the same candidate gets its verdict.
    std::os::unix::fs::symlink(
        std::fs::canonicalize(equimorph::oracle::default_python()).unwrap(),
        &python,
    )
    .unwrap();
    let d = oracle.check(&task, &reference, &copy(1)).unwrap();
    assert!(d.equivalent && !d.cached);
    assert!(!oracle.broken());
}
