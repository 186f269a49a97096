//! Detectors users bring: model directories exported by optimum or sentence-transformers'
//! ONNX backend, with no equimorph.toml (made by models/byo.py from the tiny test models).

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::{Detector, Device};
use std::path::PathBuf;

fn model(name: &str) -> PathBuf {
    let p = equimorph::detector::model::models_dir().join(name);
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    p
}

fn open(path: &std::path::Path) -> OnnxDetector {
    OnnxDetector::open(
        path,
        OnnxOptions {
            devices: vec![Device::Cpu],
            threads: 2,
            batch_size: 4,
            ..OnnxOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const ANCHOR: &str = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n";
const OTHERS: [&str; 4] = [
    "def total(values):\n    return sum(values)\n",
    "print('hello')\n",
    "import os\nfor name in os.listdir('.'):\n    print(name)\n",
    "x = [1, 2, 3]\n",
];

fn scores(d: &OnnxDetector) -> Vec<f32> {
    d.score(ANCHOR, &OTHERS).unwrap()
}

fn assert_close(a: &[f32], b: &[f32], what: &str) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-5, "{what}: {a:?} vs {b:?}");
    }
}

#[test]
fn optimum_feature_extraction_is_mean_pooled_here_like_the_graph_pools() {
    // Same weights: the pinned tiny model pools in its graph, the optimum export only
    // outputs last_hidden_state and equimorph pools it.
    let pinned = open(&model("tiny-embedding"));
    let byo = open(&model("byo-optimum"));
    assert_eq!(
        byo.window(),
        Some(128),
        "tokenizer_config.json model_max_length"
    );
    assert_close(&scores(&byo), &scores(&pinned), "optimum vs pinned");
}

#[test]
fn sentence_transformers_layout_reads_its_pooling_and_normalisation() {
    let pinned = scores(&open(&model("tiny-embedding")));
    let st = equimorph::detector::model::ModelDir::open(&model("byo-st")).unwrap();
    let notes = st.inferred.clone().unwrap();
    assert_eq!(st.config.model, "onnx/model.onnx");
    assert_eq!(st.config.pooling, "mean");
    assert!(st.config.normalize);
    assert!(
        notes.iter().any(|n| n.contains("1_Pooling/config.json")),
        "{notes:?}"
    );
    assert_close(
        &scores(&open(&model("byo-st"))),
        &pinned,
        "st mean vs pinned",
    );
    // CLS pooling reads the first token: not the mean, and no Normalize module.
    let cls = equimorph::detector::model::ModelDir::open(&model("byo-st-cls")).unwrap();
    assert_eq!(cls.config.pooling, "cls");
    assert!(!cls.config.normalize);
    let cls_scores = scores(&open(&model("byo-st-cls")));
    assert!(
        cls_scores
            .iter()
            .zip(&pinned)
            .any(|(a, b)| (a - b).abs() > 1e-3),
        "{cls_scores:?} vs {pinned:?}"
    );
}

#[test]
fn optimum_sequence_classification_is_a_cross_encoder() {
    let byo = equimorph::detector::model::ModelDir::open(&model("byo-classifier")).unwrap();
    assert_eq!(
        byo.config.kind,
        equimorph::detector::model::ModelKind::CrossEncoder
    );
    assert_eq!(byo.config.clone_label, 1, "id2label names CLONE 1");
    assert_close(
        &scores(&open(&model("byo-classifier"))),
        &scores(&open(&model("tiny-cross"))),
        "classifier vs pinned cross-encoder",
    );
}

#[test]
fn unusable_graphs_and_missing_files_are_clear_errors() {
    let e = OnnxDetector::open(&model("byo-unusable"), OnnxOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("\"features\"") && e.contains("last_hidden_state"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        model("byo-optimum").join("model.onnx"),
        dir.path().join("model.onnx"),
    )
    .unwrap();
    let e = OnnxDetector::open(dir.path(), OnnxOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("tokenizer.json"), "{e}");
    let empty = tempfile::tempdir().unwrap();
    let e = OnnxDetector::open(empty.path(), OnnxOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("no equimorph.toml") && e.contains("optimum"),
        "{e}"
    );
}

#[test]
fn models_inspect_writes_the_toml_that_pins_what_was_inferred() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("st");
    let src = model("byo-st");
    for rel in [
        "onnx/model.onnx",
        "tokenizer.json",
        "config.json",
        "modules.json",
        "sentence_bert_config.json",
        "1_Pooling/config.json",
    ] {
        let to = copy.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(rel), to).unwrap();
    }
    let before = scores(&open(&copy));
    let dry = common::equimorph(
        &["models", "inspect", copy.to_str().unwrap(), "--dry-run"],
        None,
    );
    let out = common::success_stdout(&dry);
    assert!(out.contains("pooling mean: 1_Pooling/config.json"), "{out}");
    assert!(!copy.join("equimorph.toml").exists());
    let o = common::equimorph(&["models", "inspect", copy.to_str().unwrap()], None);
    common::success_stdout(&o);
    let toml = common::read(copy.join("equimorph.toml"));
    assert!(
        toml.contains("hidden_output = \"last_hidden_state\""),
        "{toml}"
    );
    assert!(toml.contains("pooling = \"mean\""), "{toml}");
    // The pinned directory scores exactly as the inferred one did.
    assert_close(&scores(&open(&copy)), &before, "pinned vs inferred");
    // A pinned directory is not overwritten unless asked; --pooling pins another pooling.
    let again = common::equimorph(&["models", "inspect", copy.to_str().unwrap()], None);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let o = common::equimorph(
        &[
            "models",
            "inspect",
            copy.to_str().unwrap(),
            "--force",
            "--pooling",
            "max",
        ],
        None,
    );
    common::success_stdout(&o);
    assert!(common::read(copy.join("equimorph.toml")).contains("pooling = \"max\""));
    let max = scores(&open(&copy));
    assert!(max.iter().zip(&before).any(|(a, b)| (a - b).abs() > 1e-4));
    // And `--detector onnx:DIR` works in a command on a directory with no equimorph.toml.
    let (a, b) = (dir.path().join("a.py"), dir.path().join("b.py"));
    std::fs::write(&a, ANCHOR).unwrap();
    std::fs::write(&b, OTHERS[0]).unwrap();
    let spec = format!("onnx:{}", model("byo-optimum").display());
    let o = common::equimorph(
        &[
            "score",
            "--json",
            "--detector",
            &spec,
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&common::success_stdout(&o)).unwrap();
    let m = json["similarity"][0][1].as_f64().unwrap() as f32;
    let expected = scores(&open(&model("byo-optimum")))[0];
    assert!((m - expected).abs() < 1e-5, "{m} vs {expected}");
}
