//! `equimorph robustness`: split by problem, augment and train on one part, attack both
//! detectors on the other, clean AUC on independent solutions, one report; resumable.

use crate::common;

use serde_json::Value;
use std::collections::HashSet;

/// Tasks in JSONL: `problems` problems with three independent solutions each.
fn tasks(dir: &std::path::Path, problems: usize) -> std::path::PathBuf {
    let mut text = String::new();
    for p in 0..problems {
        let sources = [
            format!("n = int(input())\nprint(n * {k} + {p})\n", k = p + 2),
            format!("def f(x):\n    return x * {k} + {p}\n\n\nprint(f(int(input())))\n", k = p + 2),
            format!("value = int(input())\ntotal = {p}\nfor _ in range({k}):\n    total += value\nprint(total)\n", k = p + 2),
        ];
        for (s, source) in sources.iter().enumerate() {
            let task = serde_json::json!({
                "id": format!("p{p}-s{s}"),
                "problem": format!("p{p}"),
                "source": source,
                "tests": [{"input": "3\n"}, {"input": "-4\n"}],
            });
            text += &format!("{task}\n");
        }
    }
    let path = dir.join("tasks.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn robustness_over_two_seeds_writes_the_matrix_clean_metrics_and_spread_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let file = tasks(dir.path(), 10);
    let out = dir.path().join("rq3");
    let bench = common::root().join("fixtures/formats/gptclonebench");
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let spec = format!("onnx:{}", model.display());
    let args = [
        "robustness",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--detector",
        &spec,
        "--set",
        "classic=var-rename,for-to-while,if-else-flip,dead-code-insert",
        "--set",
        "loops=for-to-while,while-to-for,loop-unroll",
        "--train-set",
        "classic",
        "--seeds",
        "2",
        "--test",
        "0.3",
        "--variants",
        "3",
        "--hard",
        "--steps",
        "2..3",
        "--epochs",
        "4",
        "--valid",
        "0.3",
        "--search",
        "beam",
        "--beam",
        "2",
        "--iterations",
        "2",
        "--quiet",
        "--clean-pairs",
        bench.to_str().unwrap(),
        "--defence",
        "canon",
    ];
    let stdout = common::success_stdout(&common::equimorph(&args, None));
    assert!(stdout.contains("clean ROC AUC base"), "{stdout}");
    assert!(stdout.contains("clean F1 robust-classic"), "{stdout}");
    let report: Value = serde_json::from_str(&common::read(out.join("robustness.json"))).unwrap();
    assert_eq!(report["seeds"], serde_json::json!([0, 1]));
    assert_eq!(report["training_sets"], serde_json::json!(["classic"]));
    // Each seed splits by problem: three held-out problems, every solution on one side.
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let mut splits = Vec::new();
    for run in runs {
        let ids = |k: &str| -> HashSet<String> {
            run["split"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let (train, test) = (ids("train"), ids("test"));
        assert_eq!((train.len(), test.len()), (21, 9));
        let problem = |id: &String| id.split('-').next().unwrap().to_string();
        let test_problems: HashSet<String> = test.iter().map(problem).collect();
        assert!(train.iter().all(|id| !test_problems.contains(&problem(id))));
        splits.push(test);
        // Each seed's own report and model.
        let seed = run["seed"].as_u64().unwrap();
        let seed_dir = out.join(format!("seed-{seed}"));
        assert!(seed_dir.join("robustness.json").is_file());
        assert!(seed_dir.join("model-classic/equimorph.toml").is_file());
        assert!(seed_dir.join("model-classic/train.json").is_file());
        assert!(seed_dir
            .join("attacks/robust-classic+canon-loops/summary.json")
            .is_file());
        assert_eq!(run["clean_pairs"], serde_json::json!([9, 9]));
        // --hard: the base detector chose the training variants.
        let augment: Value =
            serde_json::from_str(&common::read(seed_dir.join("augment-classic/run.json"))).unwrap();
        let recorded = augment.to_string();
        assert!(recorded.contains("\"hard\":true"), "{recorded}");
        assert!(recorded.contains("tiny-embedding"), "{recorded}");
        // The hard search is the attacks' own (--search beam --beam 2) over --steps 2..3.
        assert_eq!(augment["config"]["beam"], 2, "{recorded}");
        assert_eq!(augment["config"]["strategy"], "beam", "{recorded}");
        assert_eq!(augment["settings"]["steps"], "2..3", "{recorded}");
        let variants = common::read(seed_dir.join("augment-classic/variants.jsonl"));
        for line in variants.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let steps = v["transforms"].as_array().map_or(0, Vec::len);
            assert!(
                (2..=3).contains(&steps),
                "a variant of {steps} steps: {line}"
            );
        }
    }
    assert_ne!(splits[0], splits[1], "each seed splits anew");
    // The matrix: every detector (base, trained on classic, both behind canon) × both sets.
    let results = report["results"].as_array().unwrap();
    let detectors = [
        "base",
        "robust-classic",
        "base+canon",
        "robust-classic+canon",
    ];
    assert_eq!(results.len(), detectors.len() * 2);
    for d in detectors {
        for set in ["classic", "loops"] {
            let r = results
                .iter()
                .find(|r| r["detector"] == d && r["transform_set"] == set)
                .unwrap_or_else(|| panic!("no row {d} × {set}"));
            assert_eq!(r["tasks"], serde_json::json!([9, 9]));
            assert_eq!(
                r["held_out_set"],
                d.starts_with("robust") && set == "loops",
                "{r}"
            );
            for k in [
                "success_rate",
                "mean_distance",
                "threshold",
                "median_queries",
            ] {
                let values = r[k]["values"].as_array().unwrap();
                assert_eq!(values.len(), 2, "{k}: {r}");
                let (a, b) = (values[0].as_f64().unwrap(), values[1].as_f64().unwrap());
                let mean = r[k]["mean"].as_f64().unwrap();
                assert!((mean - (a + b) / 2.0).abs() < 1e-9, "{k}: {r}");
                let sd = r[k]["sd"].as_f64().unwrap();
                assert!((sd - (a - b).abs() / 2f64.sqrt()).abs() < 1e-9, "{k}: {r}");
            }
        }
    }
    // Clean AUC and F1 at each detector's own threshold, over the seeds.
    for d in detectors {
        for k in ["auc", "f1"] {
            let m = &report["clean"][d][k];
            assert_eq!(m["values"].as_array().unwrap().len(), 2, "{d} {k}: {m}");
            let mean = m["mean"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&mean), "{d} {k}: {m}");
        }
    }
    for d in ["base", "robust-classic"] {
        let auc = report["clean"][d]["auc_gptclonebench"]["mean"]
            .as_f64()
            .unwrap();
        assert!((0.0..=1.0).contains(&auc), "{d}: {auc}");
    }
    let md = common::read(out.join("robustness.md"));
    assert!(md.contains("| detector | classic | loops |"), "{md}");
    assert!(md.contains("| robust-classic+canon | "), "{md}");
    assert!(
        md.contains(" % * |"),
        "a cell attacked with a set not trained on: {md}"
    );
    assert!(md.contains("| clean ROC AUC | F1 |"), "{md}");
    assert!(common::read(out.join("robustness.html")).contains("id=\"matrix\""));
    // A rerun resumes every step and reports the same figures.
    common::success_stdout(&common::equimorph(&args, None));
    let again: Value = serde_json::from_str(&common::read(out.join("robustness.json"))).unwrap();
    assert_eq!(again["results"], report["results"]);
    assert_eq!(again["clean"], report["clean"]);
    assert_eq!(again["runs"], report["runs"]);
    // Other training settings do not silently reuse the model.
    let mut other: Vec<&str> = args.to_vec();
    let at = other.iter().position(|a| *a == "4").unwrap();
    other[at] = "5";
    let o = common::equimorph(&other, None);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("trained with other settings"));
    // The same seed from scratch, elsewhere: byte-identical split, training data and model.
    let elsewhere = dir.path().join("rq3-again");
    let mut once: Vec<&str> = args.to_vec();
    let at = once.iter().position(|a| *a == "--seeds").unwrap() + 1;
    once[at] = "1";
    let at = once.iter().position(|a| *a == "--out").unwrap() + 1;
    once[at] = elsewhere.to_str().unwrap();
    common::success_stdout(&common::equimorph(&once, None));
    for file in [
        "split.json",
        "augment-classic/variants.jsonl",
        "model-classic/projection.onnx",
    ] {
        let (a, b) = (
            out.join("seed-0").join(file),
            elsewhere.join("seed-0").join(file),
        );
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{file} differs between two runs of seed 0"
        );
    }
}

#[test]
fn robustness_refuses_what_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = tasks(dir.path(), 1);
    let out = dir.path().join("x");
    // Stderr of `robustness TASKS --out OUT --detector DETECTOR EXTRA…`.
    let refusal = |detector: &str, extra: &[&str]| -> String {
        let mut args = vec![
            "robustness",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--detector",
            detector,
        ];
        args.extend_from_slice(extra);
        let o = common::equimorph(&args, None);
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(refusal("jaccard", &[]).contains("cannot be trained"));
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let spec = format!("onnx:{}", model.display());
    assert!(refusal(&spec, &[]).contains("fewer than two problems"));
    assert!(refusal(&spec, &["--set", "nameless"]).contains("NAME=SPEC"));
    let err = refusal(&spec, &["--train-set", "nope"]);
    assert!(
        err.contains("--train-set") && err.contains("all, classic"),
        "{err}"
    );
    assert!(refusal(&spec, &["--seeds", "0"]).contains("--seeds"));
    let err = refusal(&spec, &["--defence", "vote:3"]);
    assert!(err.contains("--defence") && err.contains("canon"), "{err}");
}
