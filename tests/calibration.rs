//! Calibrated success thresholds: `--threshold auto` (reproducible, between the non-clone and
//! identity scores, recorded with every row's success flag), `report --threshold`, and
//! `calibrate` on labelled pairs whose ROC AUC we compute by hand.

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::{Detector, Device};
use equimorph::report::calibration::{auto_threshold, CalibrationProgram};
use equimorph::report::{results, Status};
use std::path::Path;

fn tiny_detector() -> OnnxDetector {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    let options = OnnxOptions {
        devices: vec![Device::Cpu],
        threads: 2,
        batch_size: 8,
        ..OnnxOptions::default()
    };
    OnnxDetector::open(&p, options).unwrap()
}

#[test]
fn auto_threshold_is_reproducible_and_lies_between_non_clones_and_identity() {
    let tasks = common::fixture_tasks();
    let originals: Vec<CalibrationProgram<'_>> = tasks
        .tasks
        .iter()
        .map(|t| CalibrationProgram {
            text: &t.source,
            problem: t.problem_key(),
        })
        .collect();
    let d = tiny_detector();
    let a = auto_threshold(&d, &originals, 0.95, 60, 3).unwrap();
    let b = auto_threshold(&d, &originals, 0.95, 60, 3).unwrap();
    assert_eq!(a, b, "same seed, same calibration");
    assert_eq!(a.pairs, 60);
    assert!(a.min <= a.threshold && a.threshold <= a.max, "{a:?}");
    // The identity score (a program against itself) is above every non-clone threshold.
    let identity = d.score(originals[0].text, &[originals[0].text]).unwrap()[0];
    assert!(a.threshold < identity, "{a:?} vs identity {identity}");
    // A lower rate gives a threshold no higher.
    let low = auto_threshold(&d, &originals, 0.5, 60, 3).unwrap();
    assert!(low.threshold <= a.threshold);
    // Too few distinct programs is a clear error.
    let err = auto_threshold(&d, &[originals[0], originals[0]], 0.95, 60, 3).unwrap_err();
    assert!(err.to_string().contains("at least two"), "{err}");
    // So are distinct programs that all solve one problem: they are clones, not non-clones.
    let one_problem: Vec<CalibrationProgram<'_>> = originals
        .iter()
        .map(|p| CalibrationProgram {
            problem: "same",
            ..*p
        })
        .collect();
    let err = auto_threshold(&d, &one_problem, 0.95, 60, 3).unwrap_err();
    assert!(err.to_string().contains("two different problems"), "{err}");
}

fn tiny_spec() -> String {
    format!(
        "onnx:{}",
        equimorph::detector::model::models_dir()
            .join("tiny-embedding")
            .display()
    )
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&common::read(p)).unwrap()
}

#[test]
fn attack_records_the_threshold_and_a_success_flag_per_row_and_report_recomputes_them() {
    let (_d, tasks) = common::fixture_subset(7);
    let out = tempfile::tempdir().unwrap();
    let spec = tiny_spec();
    let o = common::attack_command(&tasks, out.path(), &spec, 1, &["--beam", "2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = read_json(&out.path().join("run.json"));
    let t = run["threshold"].as_f64().unwrap() as f32;
    let source = run["threshold_source"].as_str().unwrap();
    assert!(source.starts_with("auto:0.95"), "{source}");
    let summary = read_json(&out.path().join("summary.json"));
    assert_eq!(summary["run"]["threshold"], run["threshold"]);
    assert!(!summary["run"]["detector"].as_str().unwrap().is_empty());
    let report = common::read(out.path().join("report.md"));
    assert!(report.contains("threshold set by | auto:0.95"), "{report}");

    let check = |threshold: f32| {
        let lines = results::read(&out.path().join("results.jsonl")).unwrap();
        let ok: Vec<_> = lines.iter().filter(|l| l.status == Status::Ok).collect();
        assert!(!ok.is_empty());
        for l in &ok {
            assert_eq!(
                l.success,
                Some(l.similarity.unwrap() < threshold),
                "{}",
                l.id
            );
        }
        let rate = ok.iter().filter(|l| l.success == Some(true)).count() as f64 / ok.len() as f64;
        let s = read_json(&out.path().join("summary.json"));
        assert!((s["success_rate"].as_f64().unwrap() - rate).abs() < 1e-9);
    };
    check(t);
    // The same auto calibration again (same seed, same detector): the same threshold.
    let dir = out.path().to_str().unwrap();
    common::success_stdout(&common::equimorph(
        &["report", dir, "--threshold", "auto", "--detector", &spec],
        None,
    ));
    assert_eq!(
        read_json(&out.path().join("run.json"))["threshold"],
        run["threshold"]
    );
    // Fixed thresholds at both ends: everything fails, then everything (M < 1) succeeds.
    common::success_stdout(&common::equimorph(
        &["report", dir, "--threshold", "0"],
        None,
    ));
    check(0.0);
    common::success_stdout(&common::equimorph(
        &["report", dir, "--threshold", "1"],
        None,
    ));
    check(1.0);
    let bad = common::equimorph(&["report", dir, "--threshold", "auto:2"], None);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("RATE must lie in (0, 1)"));
}

/// `equimorph calibrate INPUT --detector jaccard --out OUT`.
fn calibrate_with_jaccard(input: &Path, out: &Path) -> std::process::Output {
    common::equimorph(
        &[
            "calibrate",
            input.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    )
}

#[test]
fn calibrate_gives_the_hand_computed_auc_in_both_layouts() {
    let dir = tempfile::tempdir().unwrap();
    // Jaccard scores: identical texts 1.0; `x = 1` vs `y = 2` share `=`: 0.2; the rest 0.
    // Clones score {1.0, 0.2}, non-clones {0.0, 1.0}: of the four (clone, non-clone) pairs
    // the clone wins 1.0 > 0.0 and 0.2 > 0.0, ties 1.0 = 1.0 (one half) and loses 0.2 < 1.0,
    // so AUC = (1 + 1 + 0.5 + 0) / 4 = 0.625.
    let pairs = [
        ("x = 1\n", "x = 1\n", 1),
        ("x = 1\n", "y = 2\n", 1),
        ("import os\n", "while True:\n    pass\n", 0),
        ("pass\n", "pass\n", 0),
    ];
    let mut jsonl = String::new();
    for (a, b, l) in pairs {
        jsonl += &serde_json::json!({"a": a, "b": b, "label": l}).to_string();
        jsonl += "\n";
    }
    jsonl += "{not json\n";
    let path = dir.path().join("pairs.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    let out = dir.path().join("out");
    let o = calibrate_with_jaccard(&path, &out);
    let stdout = common::success_stdout(&o);
    assert!(stdout.contains("ROC AUC 0.6250"), "{stdout}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("pairs.jsonl:5"));
    let c = read_json(&out.join("calibration.json"));
    assert_eq!(c["auc"], 0.625);
    assert_eq!(c["skipped_lines"], 1);
    assert!(common::read(out.join("roc.svg")).starts_with("<svg"));

    // The same pairs in CodeXGLUE's layout.
    let programs = [
        "x = 1\n",
        "y = 2\n",
        "import os\n",
        "while True:\n    pass\n",
        "pass\n",
    ];
    let data: String = programs
        .iter()
        .enumerate()
        .map(|(i, f)| serde_json::json!({"idx": i.to_string(), "func": f}).to_string() + "\n")
        .collect();
    std::fs::write(dir.path().join("data.jsonl"), data).unwrap();
    std::fs::write(
        dir.path().join("pairs.txt"),
        "0\t0\t1\n0\t1\t1\n2\t3\t0\n4\t4\t0\n",
    )
    .unwrap();
    let out2 = dir.path().join("out2");
    let o = common::equimorph(
        &[
            "calibrate",
            dir.path().join("data.jsonl").to_str().unwrap(),
            "--pairs",
            dir.path().join("pairs.txt").to_str().unwrap(),
            "--detector",
            "jaccard",
            "--out",
            out2.to_str().unwrap(),
        ],
        None,
    );
    common::success_stdout(&o);
    assert_eq!(read_json(&out2.join("calibration.json"))["auc"], 0.625);
    // Nothing usable: a clear error.
    std::fs::write(dir.path().join("bad.jsonl"), "\u{ff}\u{fe}nonsense\n").unwrap();
    let o = common::equimorph(
        &[
            "calibrate",
            dir.path().join("bad.jsonl").to_str().unwrap(),
            "--detector",
            "jaccard",
        ],
        None,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no usable labelled pair"));
}

/// A doctested corpus whose directories each hold solutions of one problem, made into tasks by
/// `scripts/doctest-tasks.py --problem-per-directory` and calibrated on as a task set: the two
/// solutions of `sum` are the one clone pair, one seeded pair across problems the non-clone.
#[test]
fn calibrate_reads_a_task_set_with_several_solutions_per_problem() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let doc =
        "    \"\"\"\n    Add the numbers up.\n\n    >>> total([1, 2, 3])\n    6\n    \"\"\"\n";
    let files = [
        ("sum/sol1.py", format!("def total(xs):\n{doc}    return sum(xs)\n")),
        (
            "sum/sol2.py",
            format!("def total(xs):\n{doc}    s = 0\n    for x in xs:\n        s += x\n    return s\n"),
        ),
        (
            "shout/sol1.py",
            "def shout(word):\n    '''\n    >>> shout('hey')\n    'HEY!'\n    '''\n    return word.upper() + '!'\n".into(),
        ),
        (
            "halve/sol1.py",
            "def halve(n):\n    '''\n    >>> halve(9)\n    4\n    '''\n    return n // 2\n".into(),
        ),
    ];
    for (rel, text) in &files {
        let path = corpus.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let tasks = dir.path().join("tasks.jsonl");
    let made = std::process::Command::new("python3")
        .arg(common::root().join("scripts/doctest-tasks.py"))
        .arg(&corpus)
        .arg("--problem-per-directory")
        .arg("--out")
        .arg(&tasks)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let problems: Vec<(String, String)> = common::read(&tasks)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().into(),
                v["problem"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(problems.len(), 4);
    assert!(problems
        .iter()
        .all(|(id, problem)| id.starts_with(&format!("{problem}/"))));

    let out = dir.path().join("out");
    let o = calibrate_with_jaccard(&tasks, &out);
    let stdout = common::success_stdout(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("4 tasks of 3 problems: 1 clone pairs"),
        "{stderr}"
    );
    let c = read_json(&out.join("calibration.json"));
    assert_eq!(
        (c["positives"].as_u64(), c["negatives"].as_u64()),
        (Some(1), Some(1))
    );
    // The two `total`s share their docstring and most tokens; no other problem's does.
    assert_eq!(c["auc"], 1.0, "{stdout}");
}

#[test]
fn calibrate_reads_gptclonebench_and_reports_auc_per_clone_type() {
    let dir = tempfile::tempdir().unwrap();
    let bench = common::root().join("fixtures/formats/gptclonebench");
    for detector in ["jaccard", "nicad"] {
        let out = dir.path().join(detector);
        let o = common::equimorph(
            &[
                "calibrate",
                bench.to_str().unwrap(),
                "--detector",
                detector,
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        let stdout = common::success_stdout(&o);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains("1 Python 2 file(s)"), "{stderr}");
        let c = read_json(&out.join("calibration.json"));
        assert_eq!(c["positives"], 7);
        assert_eq!(c["negatives"], 7);
        for (t, clones) in [("Type-1/2", 2), ("Type-3", 2), ("Type-4", 3)] {
            let row = &c["by_clone_type"][t];
            assert_eq!(row["positives"], clones, "{detector} {t}");
            assert_eq!(row["negatives"], 7);
            let auc = row["auc"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&auc));
            assert!(
                stdout.contains(&format!("{t}: {clones} clones")),
                "{stdout}"
            );
        }
        // Renamed-only pairs (Type-1/2) are what a token or line matcher finds easiest.
        let auc = |t: &str| c["by_clone_type"][t]["auc"].as_f64().unwrap();
        assert!(auc("Type-1/2") >= auc("Type-4"), "{detector}: {c}");
    }
}
