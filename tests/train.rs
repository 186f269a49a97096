//! `equimorph train --mode head`: a projection of a frozen embedding model trained on an
//! augment run's verified variants, split by problem, deterministic for a seed, written as a
//! model directory that `--detector onnx:DIR` loads.

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::{Detector, Device};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

fn tiny() -> String {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    format!("onnx:{}", p.display())
}

fn augment(tasks: &Path, out: &Path) {
    let o = common::equimorph(
        &[
            "augment",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--variants",
            "4",
            "--detector",
            "jaccard",
            "--quiet",
        ],
        None,
    );
    common::success_stdout(&o);
}

fn train(data: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let spec = tiny();
    let mut args = vec![
        "train",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--detector",
        &spec,
        "--quiet",
        "--epochs",
        "6",
        "--seed",
        "3",
    ];
    args.extend(extra);
    common::equimorph(&args, None)
}

fn open(dir: &Path) -> OnnxDetector {
    OnnxDetector::open(
        dir,
        OnnxOptions {
            devices: vec![Device::Cpu],
            threads: 2,
            batch_size: 8,
            ..OnnxOptions::default()
        },
    )
    .unwrap()
}

#[test]
fn head_training_is_split_by_problem_deterministic_and_loads_as_a_detector() {
    let (_d, tasks) = common::fixture_subset(20);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("aug");
    augment(&tasks, &data);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let out = common::success_stdout(&train(&data, &a, &[]));
    assert!(out.contains("validation: loss"), "{out}");
    common::success_stdout(&train(&data, &b, &[]));
    // The same seed gives the same weights and the same log.
    assert_eq!(
        std::fs::read(a.join("projection.onnx")).unwrap(),
        std::fs::read(b.join("projection.onnx")).unwrap()
    );
    let report: Value = serde_json::from_str(&common::read(a.join("train.json"))).unwrap();
    let other: Value = serde_json::from_str(&common::read(b.join("train.json"))).unwrap();
    assert_eq!(report["epochs"], other["epochs"]);
    // The split is by problem: disjoint, covering every augmented task.
    let set = |k: &str| -> HashSet<String> {
        report["split"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (tr, va) = (set("train"), set("valid"));
    assert!(tr.is_disjoint(&va));
    assert_eq!(va.len(), 4, "20 % of 20 problems");
    assert_eq!(tr.len() + va.len(), 20);
    // Early stopping keeps an epoch no worse than the base model on validation problems.
    let epochs = report["epochs"].as_array().unwrap();
    assert!(!epochs.is_empty() && epochs.len() <= 6);
    let best = report["best_epoch"].as_u64().unwrap() as usize;
    let base_loss = report["base_valid_loss"].as_f64().unwrap();
    let best_loss = if best == 0 {
        base_loss
    } else {
        epochs[best - 1]["valid_loss"].as_f64().unwrap()
    };
    assert!(best_loss <= base_loss, "{report}");
    assert!(epochs
        .iter()
        .all(|e| e["train_loss"].as_f64().unwrap().is_finite()));
    // The result is a model directory: the base graph, its tokenizer and the projection.
    let toml = common::read(a.join("equimorph.toml"));
    assert!(toml.contains("projection = \"projection.onnx\""), "{toml}");
    let trained = open(&a);
    let base = open(Path::new(&tiny()[5..]));
    let x = "def f(xs):\n    return sorted(xs)[0]\n";
    let y = "def g(values):\n    return min(values)\n";
    let m_trained = trained.score(x, &[y]).unwrap()[0];
    let m_base = base.score(x, &[y]).unwrap()[0];
    assert!(m_trained.is_finite() && (0.0..=1.0).contains(&m_trained));
    if best > 0 {
        assert!(
            (m_trained - m_base).abs() > 1e-6,
            "the projection is applied"
        );
    }
    // The pooled vectors are the base model's; the trained ones are a linear map of them.
    assert_eq!(
        trained.pooled_vectors(&[x]).unwrap(),
        base.pooled_vectors(&[x]).unwrap()
    );
    // A run into an existing model directory needs --force.
    let again = train(&data, &a, &[]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    // --canon-forms: trained on the canonical forms, so a variant the form undoes (a renaming,
    // a re-layout) is its original again and no longer a training program; the report says
    // so and the model is meant for canon:.
    let c = dir.path().join("c");
    let out = common::success_stdout(&train(&data, &c, &["--canon-forms"]));
    assert!(
        out.contains(&format!("canon:onnx:{}", c.display())),
        "{out}"
    );
    let forms: Value = serde_json::from_str(&common::read(c.join("train.json"))).unwrap();
    assert_eq!(forms["config"]["canon"], true);
    assert_eq!(report["config"]["canon"], false);
    let count = |r: &Value| {
        r["programs"]["train"].as_u64().unwrap() + r["programs"]["valid"].as_u64().unwrap()
    };
    assert!(
        count(&forms) < count(&report),
        "{} against {}",
        forms["programs"],
        report["programs"]
    );
}

#[test]
fn train_refuses_what_it_cannot_train() {
    let (_d, tasks) = common::fixture_subset(3);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("aug");
    augment(&tasks, &data);
    // Three problems cannot give two validation and two training problems.
    let o = train(&data, &dir.path().join("m"), &[]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("too few"),
        "{o:?}"
    );
    // A classic measure and a cross-encoder have no embedding to project.
    let o = common::equimorph(
        &[
            "train",
            data.to_str().unwrap(),
            "--out",
            "x",
            "--detector",
            "jaccard",
            "--valid",
            "0",
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a model"));
    let cross = equimorph::detector::model::models_dir().join("tiny-cross");
    let spec = format!("onnx:{}", cross.display());
    let o = common::equimorph(
        &[
            "train",
            data.to_str().unwrap(),
            "--out",
            "x",
            "--detector",
            &spec,
            "--valid",
            "0",
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("projection of pooled embeddings"));
    // Not an augment directory.
    let o = common::equimorph(
        &["train", "fixtures", "--out", "x", "--detector", &tiny()],
        None,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("tasks.jsonl"));
}

#[test]
fn full_fine_tuning_trains_the_encoder_on_cpu_deterministically_and_exports_it() {
    let (_d, tasks) = common::fixture_subset(20);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("aug");
    augment(&tasks, &data);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let args = ["--mode", "full", "--lr", "0.0005", "--backend", "candle"];
    let out = common::success_stdout(&train(&data, &a, &args));
    assert!(out.contains("kept epoch"), "{out}");
    common::success_stdout(&train(&data, &b, &args));
    // Same seed, same weights.
    assert_eq!(
        std::fs::read(a.join("src/model.safetensors")).unwrap(),
        std::fs::read(b.join("src/model.safetensors")).unwrap()
    );
    let report: Value = serde_json::from_str(&common::read(a.join("train.json"))).unwrap();
    assert_eq!(report["mode"], "full");
    let epochs = report["epochs"].as_array().unwrap();
    assert!(!epochs.is_empty() && epochs.len() <= 6);
    // The Rust encoder computes what the exported graph computes: the base weights' validation
    // loss equals the head mode's (which embeds with ONNX Runtime).
    let head = dir.path().join("h");
    common::success_stdout(&train(&data, &head, &[]));
    let head_report: Value = serde_json::from_str(&common::read(head.join("train.json"))).unwrap();
    let (x, y) = (
        report["base_valid_loss"].as_f64().unwrap(),
        head_report["base_valid_loss"].as_f64().unwrap(),
    );
    assert!((x - y).abs() < 1e-3, "{x} vs {y}");
    // So is the clone-vs-non-clone margin, which full mode now records per epoch too.
    let (mx, my) = (
        report["base_valid_margin"].as_f64().unwrap(),
        head_report["base_valid_margin"].as_f64().unwrap(),
    );
    assert!((mx - my).abs() < 1e-3, "{mx} vs {my}");
    assert!(
        epochs.iter().all(|e| e["valid_margin"].is_f64()),
        "{report}"
    );
    // Training moved the encoder: the validation loss of the kept epoch is below the base's.
    let best = report["best_epoch"].as_u64().unwrap() as usize;
    assert!(best >= 1, "{report}");
    assert!(
        epochs[best - 1]["valid_loss"].as_f64().unwrap() < x,
        "{report}"
    );
    // The export is a model directory the detector loads, and it scores differently.
    let tuned = open(&a);
    let base = open(Path::new(&tiny()[5..]));
    let p = "def f(xs):\n    return sorted(xs)[0]\n";
    let q = "def g(values):\n    return min(values)\n";
    let (mt, mb) = (
        tuned.score(p, &[q]).unwrap()[0],
        base.score(p, &[q]).unwrap()[0],
    );
    assert!((mt - mb).abs() > 1e-5, "{mt} vs {mb}");
}

#[test]
fn torch_backend_trains_on_the_same_batches_as_candle_deterministically() {
    let (_d, tasks) = common::fixture_subset(20);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("aug");
    augment(&tasks, &data);
    let (c, t, t2) = (
        dir.path().join("c"),
        dir.path().join("t"),
        dir.path().join("t2"),
    );
    let args = ["--mode", "full", "--lr", "0.0005"];
    let candle = [&args[..], &["--backend", "candle"]].concat();
    common::success_stdout(&train(&data, &c, &candle));
    // auto is torch where setup installed it (it does), and says so.
    let out = common::success_stdout(&train(&data, &t, &args));
    assert!(out.contains("trained with torch on cpu"), "{out}");
    let torch = [&args[..], &["--backend", "torch"]].concat();
    common::success_stdout(&train(&data, &t2, &torch));
    // Same seed, same weights.
    assert_eq!(
        std::fs::read(t.join("src/model.safetensors")).unwrap(),
        std::fs::read(t2.join("src/model.safetensors")).unwrap()
    );
    // Same batches, loss and optimiser: each epoch's losses match candle's to float noise.
    let report =
        |d: &Path| -> Value { serde_json::from_str(&common::read(d.join("train.json"))).unwrap() };
    let (rc, rt) = (report(&c), report(&t));
    assert_eq!(rt["config"]["backend"], "torch");
    assert_eq!(rt["device"], "cpu");
    assert_eq!(rc["config"]["backend"], "candle");
    let (ec, et) = (
        rc["epochs"].as_array().unwrap(),
        rt["epochs"].as_array().unwrap(),
    );
    assert_eq!(ec.len(), et.len(), "{rc} vs {rt}");
    for (a, b) in ec.iter().zip(et) {
        for k in ["train_loss", "valid_loss"] {
            let (x, y) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
            assert!((x - y).abs() < 2e-3, "{k}: candle {x} vs torch {y}");
        }
    }
    assert_eq!(rc["best_epoch"], rt["best_epoch"]);
    // The export loads and scores as candle's does.
    let p = "def f(xs):\n    return sorted(xs)[0]\n";
    let q = "def g(values):\n    return min(values)\n";
    let (sc, st) = (
        open(&c).score(p, &[q]).unwrap()[0],
        open(&t).score(p, &[q]).unwrap()[0],
    );
    assert!((sc - st).abs() < 1e-2, "{sc} vs {st}");
    // What the script refuses reaches the user: a source that is not a BERT.
    let src = equimorph::detector::model::models_dir().join("src/tiny-embedding");
    let bad = dir.path().join("roberta");
    std::fs::create_dir(&bad).unwrap();
    for f in ["model.safetensors", "tokenizer.json"] {
        std::fs::copy(src.join(f), bad.join(f)).unwrap();
    }
    let mut config: Value = serde_json::from_str(&common::read(src.join("config.json"))).unwrap();
    config["model_type"] = "roberta".into();
    std::fs::write(bad.join("config.json"), config.to_string()).unwrap();
    let with_bad = [&torch[..], &["--weights", bad.to_str().unwrap()]].concat();
    let o = train(&data, &dir.path().join("x"), &with_bad);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fine-tunes BERT encoders"), "{err}");
    assert!(!dir.path().join("x/src/torch-job.json").exists());
    // A Python without torch (EQUIMORPH_PYTHON): auto falls back on candle, torch says why not.
    let block = dir.path().join("block");
    std::fs::create_dir(&block).unwrap();
    std::fs::write(
        block.join("torch.py"),
        "raise ImportError('no torch here')\n",
    )
    .unwrap();
    let python = dir.path().join("python");
    std::fs::write(
        &python,
        format!(
            "#!/bin/sh\nPYTHONPATH={} exec {} \"$@\"\n",
            block.display(),
            equimorph::install::python().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let without = |out: &Path, extra: &[&str]| {
        let (spec, o) = (tiny(), out.to_str().unwrap());
        let mut a = vec![
            "train",
            data.to_str().unwrap(),
            "--out",
            o,
            "--detector",
            &spec,
        ];
        a.extend(["--quiet", "--epochs", "2", "--seed", "3"]);
        a.extend(extra);
        common::equimorph_env(&a, &[("EQUIMORPH_PYTHON", python.to_str().unwrap())])
    };
    let o = without(&dir.path().join("y"), &torch);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("needs PyTorch"), "{err}");
    let out = common::success_stdout(&without(&dir.path().join("z"), &args));
    assert!(out.contains("trained with candle on cpu"), "{out}");
}
