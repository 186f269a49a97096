//! `equimorph robustness`: split by problem, augment and train on one part, attack both
//! detectors on the other, clean AUC on independent solutions, one report; resumable.

mod common;

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
fn robustness_end_to_end_with_clean_auc_and_resume() {
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
        "--test",
        "0.3",
        "--variants",
        "3",
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
    let report: Value = serde_json::from_str(&common::read(out.join("robustness.json"))).unwrap();
    // Split by problem: three held-out problems, every solution of a problem on one side.
    let ids = |k: &str| -> HashSet<String> {
        report["split"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (train, test) = (ids("train"), ids("test"));
    assert_eq!(test.len(), 9);
    assert_eq!(train.len(), 21);
    let problem = |id: &String| id.split('-').next().unwrap().to_string();
    let test_problems: HashSet<String> = test.iter().map(problem).collect();
    assert!(train.iter().all(|id| !test_problems.contains(&problem(id))));
    // Both detectors attacked with the set, each at its own threshold.
    let results = report["results"].as_array().unwrap();
    let keys: Vec<(String, String)> = results
        .iter()
        .map(|r| {
            (
                r["detector"].as_str().unwrap().to_string(),
                r["transform_set"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = ["base", "robust", "base+canon", "robust+canon"]
        .iter()
        .map(|d| (d.to_string(), "classic".to_string()))
        .collect();
    assert_eq!(keys, expected);
    for r in results {
        assert_eq!(r["tasks"], 9);
        let run = std::path::Path::new(r["run"].as_str().unwrap());
        assert!(run.join("summary.json").is_file());
        for k in ["mean_distance", "std_distance", "success_rate", "threshold"] {
            assert!(r[k].as_f64().unwrap().is_finite(), "{k}: {r}");
        }
    }
    // Clean AUC on independent solutions (3 × 3 clone pairs, as many non-clones).
    assert_eq!(report["clean_pairs"], serde_json::json!([9, 9]));
    for d in ["base", "robust", "base+canon", "robust+canon"] {
        let auc = report["clean_auc"][d].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&auc), "{d}: {auc}");
    }
    // And on GPTCloneBench's labelled pairs.
    for d in ["base", "robust"] {
        let auc = report["clean_auc_gptclonebench"][d].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&auc), "{d}: {auc}");
    }
    // The trained model is a model directory the attacks loaded.
    assert!(out.join("model/equimorph.toml").is_file());
    assert!(out.join("model/train.json").is_file());
    let md = common::read(out.join("robustness.md"));
    assert!(md.contains("| robust | classic |"), "{md}");
    assert!(md.contains("| robust+canon | classic |"), "{md}");
    assert_eq!(report["defences"], serde_json::json!(["canon"]));
    assert!(out
        .join("attacks/base+canon-classic/summary.json")
        .is_file());
    assert!(common::read(out.join("robustness.html")).contains("id=\"clean\""));
    // A rerun resumes every step and reports the same figures.
    common::success_stdout(&common::equimorph(&args, None));
    let again: Value = serde_json::from_str(&common::read(out.join("robustness.json"))).unwrap();
    assert_eq!(again["results"], report["results"]);
    assert_eq!(again["clean_auc"], report["clean_auc"]);
    assert_eq!(again["split"], report["split"]);
    // Other training settings do not silently reuse the model.
    let mut other: Vec<&str> = args.to_vec();
    let at = other.iter().position(|a| *a == "4").unwrap();
    other[at] = "5";
    let o = common::equimorph(&other, None);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("trained with other settings"));
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
    let err = refusal(&spec, &["--defence", "vote:3"]);
    assert!(err.contains("--defence") && err.contains("canon"), "{err}");
}
