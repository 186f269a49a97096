//! Detectors on real models through ONNX Runtime (the default MiniLM export and tiny models
//! made by the same exporter) and the classic measures.

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions, Precision};
use equimorph::detector::{self, classic, CloneType, Detector, DetectorOptions, Device};
use std::path::PathBuf;

fn models() -> PathBuf {
    let d = detector::model::models_dir();
    assert!(
        d.join("minilm/model.onnx").is_file(),
        "models missing in {}: run `make setup`",
        d.display()
    );
    d
}

fn opts(batch_size: usize) -> OnnxOptions {
    common::cpu_options(batch_size)
}

fn programs() -> Vec<String> {
    common::fixture_tasks()
        .tasks
        .iter()
        .take(12)
        .map(|t| t.source.clone())
        .collect()
}

#[test]
fn default_model_reproduces_the_published_quickstart_similarities() {
    models();
    let m = detector::open("minilm", DetectorOptions::default()).unwrap();
    let s = m
        .score(
            "The weather is lovely today.",
            &["It's so sunny outside!", "He drove to the stadium."],
        )
        .unwrap();
    assert!((s[0] - 0.6660).abs() < 1e-3, "{s:?}");
    assert!((s[1] - 0.1046).abs() < 1e-3, "{s:?}");
    let t = m
        .score("It's so sunny outside!", &["He drove to the stadium."])
        .unwrap();
    assert!((t[0] - 0.1411).abs() < 1e-3, "{t:?}");
}

#[test]
fn identical_programs_score_one_for_every_detector() {
    let dir = models();
    let p = programs();
    for spec in ["minilm", "minilm-int8", "jaccard", "sourcerercc", "nicad"] {
        let d = detector::open(spec, DetectorOptions::default()).unwrap();
        for x in &p[..3] {
            // The raw model or measure, without the identical-text shortcut of `score`.
            let raw = d.similarities(x, &[x.as_str()]).unwrap()[0];
            assert!((raw - 1.0).abs() < 1e-5, "{spec}: M(x, x) = {raw}");
            assert_eq!(d.score(x, &[x.as_str()]).unwrap(), [1.0]);
        }
    }
    for name in ["tiny-cross", "tiny-siamese"] {
        let d = OnnxDetector::open(&dir.join(name), opts(8)).unwrap();
        assert_eq!(
            d.score(&p[0], &[p[0].as_str(), p[1].as_str()]).unwrap()[0],
            1.0,
            "{name}"
        );
    }
}

#[test]
fn symmetric_detectors_are_symmetric() {
    let dir = models();
    let p = programs();
    let mut dets: Vec<Box<dyn Detector>> = ["minilm", "jaccard", "sourcerercc", "nicad"]
        .iter()
        .map(|s| detector::open(s, DetectorOptions::default()).unwrap())
        .collect();
    dets.push(Box::new(
        OnnxDetector::open(&dir.join("tiny-embedding"), opts(8)).unwrap(),
    ));
    for d in &dets {
        assert!(d.symmetric());
        for i in 0..4 {
            for j in 0..4 {
                let a = d.score(&p[i], &[p[j].as_str()]).unwrap()[0];
                let b = d.score(&p[j], &[p[i].as_str()]).unwrap()[0];
                assert!(
                    (a - b).abs() < 1e-5,
                    "{}: M({i},{j}) = {a} but M({j},{i}) = {b}",
                    d.name()
                );
                assert!((0.0..=1.0).contains(&a));
            }
        }
    }
}

#[test]
fn batched_scores_equal_one_at_a_time_scores() {
    let dir = models();
    let p = programs();
    let cands: Vec<&str> = p[1..].iter().map(String::as_str).collect();
    for name in ["minilm", "tiny-embedding", "tiny-cross", "tiny-siamese"] {
        let batched = OnnxDetector::open(&dir.join(name), opts(32)).unwrap();
        let single = OnnxDetector::open(&dir.join(name), opts(1)).unwrap();
        let a = batched.score(&p[0], &cands).unwrap();
        let b: Vec<f32> = cands
            .iter()
            .map(|c| single.score(&p[0], &[c]).unwrap()[0])
            .collect();
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-5, "{name}: batched {x} vs single {y}");
        }
        assert!(
            batched.stats().batches < single.stats().batches,
            "{name} did batch"
        );
    }
}

#[test]
fn rewrites_lower_the_similarity_of_the_default_model() {
    models();
    let d = detector::open("minilm", DetectorOptions::default()).unwrap();
    let x = common::fixture("bracket-balance").source;
    let renamed = x
        .replace("stack", "pile_of_open_brackets")
        .replace("pairs", "closing_to_opening");
    let unrelated = common::fixture("grid-paths").source;
    let s = d
        .score(&x, &[renamed.as_str(), unrelated.as_str()])
        .unwrap();
    assert!(s[0] < 1.0 && s[0] > s[1], "{s:?}");
}

#[test]
fn long_inputs_are_truncated_and_counted() {
    let dir = models();
    let d = OnnxDetector::open(&dir.join("minilm"), opts(8)).unwrap();
    let long: String = (0..400).map(|i| format!("value_{i} = {i}\n")).collect();
    d.score("x = 1\n", &[long.as_str(), "y = 2\n"]).unwrap();
    assert_eq!(d.stats().truncated, 1);
}

#[test]
fn clone_type_tags_on_crafted_pairs() {
    let a = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n";
    let renamed =
        "def g(items):\n    acc = 0\n    for it in items:\n        acc += it\n    return acc\n";
    assert_eq!(
        CloneType::of(a, renamed),
        CloneType::Type12,
        "renaming only is Type-1/2"
    );
    let edited = "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 0:\n            total += x\n    print(total)\n    return total\n";
    assert_eq!(
        CloneType::of(a, edited),
        CloneType::Type3,
        "{}",
        classic::nicad(a, edited)
    );
    let rewritten = "def f(xs):\n    return sum(xs)\n";
    assert_eq!(CloneType::of(a, rewritten), CloneType::Type4);
    assert_eq!(CloneType::Type3.label(), "Type-3");
}

#[test]
fn model_errors_name_the_problem() {
    let dir = models();
    let tmp = tempfile::tempdir().unwrap();
    let copy = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["model.onnx", "tokenizer.json", "equimorph.toml"] {
            std::fs::copy(dir.join("tiny-embedding").join(f), d.join(f)).unwrap();
        }
        d
    };
    let mismatch = copy("mismatch");
    let toml = std::fs::read_to_string(mismatch.join("equimorph.toml")).unwrap();
    std::fs::write(
        mismatch.join("equimorph.toml"),
        toml.replace("\"token_type_ids\"", "\"segment_ids\""),
    )
    .unwrap();
    let err = OnnxDetector::open(&mismatch, opts(8))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("does not match")
            && err.contains("token_type_ids")
            && err.contains("sentence_embedding"),
        "{err}"
    );

    let bad_out = copy("bad-output");
    let toml = std::fs::read_to_string(bad_out.join("equimorph.toml")).unwrap();
    std::fs::write(
        bad_out.join("equimorph.toml"),
        toml.replace(
            "embedding_output = \"sentence_embedding\"",
            "embedding_output = \"pooled\"",
        ),
    )
    .unwrap();
    let err = OnnxDetector::open(&bad_out, opts(8))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("pooled") && err.contains("last_hidden_state"),
        "{err}"
    );

    let bad_tok = copy("bad-tokenizer");
    std::fs::write(bad_tok.join("tokenizer.json"), "{ not a tokenizer").unwrap();
    let err = OnnxDetector::open(&bad_tok, opts(8))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("tokenizer") && err.contains("does not load"),
        "{err}"
    );

    let no_model = copy("no-model");
    std::fs::remove_file(no_model.join("model.onnx")).unwrap();
    let err = OnnxDetector::open(&no_model, opts(8))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("model.onnx") && err.contains("missing"),
        "{err}"
    );

    let err = detector::open("bogus", DetectorOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("unknown detector") && err.contains("onnx:PATH"),
        "{err}"
    );
    let err = detector::open("onnx:/no/such/dir", DetectorOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("/no/such/dir") && err.contains("not found"),
        "{err}"
    );
}

fn gpu_present() -> bool {
    std::process::Command::new("nvidia-smi")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn cuda_runs_where_a_gpu_exists_and_fails_clearly_elsewhere() {
    let dir = models();
    let cuda = OnnxOptions {
        devices: vec![Device::Cuda(0)],
        threads: 2,
        batch_size: 8,
        ..OnnxOptions::default()
    };
    match OnnxDetector::open(&dir.join("minilm"), cuda) {
        Ok(d) => {
            assert!(gpu_present(), "CUDA opened without a GPU?");
            let s = d
                .score("The weather is lovely today.", &["It's so sunny outside!"])
                .unwrap();
            assert!((s[0] - 0.6660).abs() < 1e-3, "{s:?}");
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("CUDA"), "{msg}");
            if gpu_present() && std::env::var_os("ORT_DYLIB_PATH").is_some() {
                panic!("a GPU and a runtime are configured but CUDA failed: {msg}");
            }
            eprintln!("skipping the CUDA run (no GPU runtime here): {msg}");
        }
    }
}

/// Scores of every fixture program against the first few, through `options`.
fn matrix(model: &std::path::Path, options: OnnxOptions, texts: &[&str]) -> Vec<Vec<f32>> {
    let d = OnnxDetector::open(model, options).unwrap();
    texts
        .iter()
        .take(4)
        .map(|a| d.score(a, texts).unwrap())
        .collect()
}

#[test]
fn cuda_agrees_with_the_cpu_on_every_tiny_model_and_graph() {
    let dir = detector::model::models_dir();
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    for name in ["tiny-embedding", "tiny-cross", "tiny-siamese"] {
        let model = dir.join(name);
        let cpu = matrix(&model, opts(8), &texts);
        for precision in [Precision::Fp32, Precision::Fp16] {
            let cuda = OnnxOptions {
                devices: vec![Device::Cuda(0)],
                precision,
                ..opts(32)
            };
            let d = match OnnxDetector::open(&model, cuda.clone()) {
                Ok(d) => d,
                Err(e) if !gpu_present() => {
                    eprintln!("skipping the CUDA comparison: no GPU here ({e})");
                    return;
                }
                Err(e) => panic!("a GPU is present but CUDA failed: {e}"),
            };
            drop(d);
            let gpu = matrix(&model, cuda, &texts);
            let worst = cpu
                .iter()
                .flatten()
                .zip(gpu.iter().flatten())
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            eprintln!("{name} {precision:?} on CUDA vs CPU fp32: max |ΔM| {worst:.2e}");
            assert!(worst <= 1e-3, "{name} {precision:?}: max |ΔM| {worst}");
        }
    }
}
