//! The detector's fast paths give the same answers as the plain ones: parallel tokenization,
//! the token cache, tokens assembled from lines, fetching only the pooled output, the fused fp16 graph, fixed-shape batches
//! shared by several callers, and attacks with several tasks in flight (also when interrupted
//! and resumed, and with tasks that never reach the search).

use crate::common;

use equimorph::detector::bench::{agreement, composition_independent, vectors_from_clients};
use equimorph::detector::engine::BatchShapes;
use equimorph::detector::model::{environment, models_dir};
use equimorph::detector::onnx::{OnnxDetector, OnnxOptions, Precision};
use equimorph::detector::{Detector, Device};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn model(name: &str) -> PathBuf {
    let p = models_dir().join(name);
    assert!(
        p.join("equimorph.toml").is_file(),
        "{} missing: run `make setup`",
        p.display()
    );
    p
}

fn cpu(batch_size: usize) -> OnnxOptions {
    common::cpu_options(batch_size)
}

fn programs() -> Vec<String> {
    common::fixture_tasks()
        .tasks
        .iter()
        .map(|t| t.source.clone())
        .collect()
}

#[test]
fn parallel_tokenization_and_the_token_cache_give_the_ids_of_one_by_one_tokenization() {
    let det = OnnxDetector::open(&model("minilm"), cpu(8)).unwrap();
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    let together = det.feeds(&texts).unwrap();
    det.clear_token_cache();
    let one_by_one: Vec<_> = texts
        .iter()
        .map(|t| det.feeds(&[t]).unwrap().pop().unwrap())
        .collect();
    assert_eq!(together.len(), texts.len());
    for (a, b) in together.iter().zip(&one_by_one) {
        assert_eq!(a.as_ref(), b.as_ref());
    }
    // Counting first (no truncation) leaves exactly what scoring would have tokenized.
    det.clear_token_cache();
    let counts = det.token_counts(&texts).unwrap();
    let cached = det.feeds(&texts).unwrap();
    for ((count, feed), fresh) in counts.iter().zip(&cached).zip(&together) {
        assert_eq!(feed.as_ref(), fresh.as_ref());
        if !fresh.truncated {
            assert_eq!(*count, Some(fresh.len()));
        }
    }
    // A text longer than the window counts all its tokens but is fed truncated.
    let long = "x = 1\n".repeat(400);
    let n = det.token_count(&long).unwrap().unwrap();
    let fed = det.feeds(&[&long]).unwrap().pop().unwrap();
    assert!(
        n > 256 && fed.len() == 256 && fed.truncated,
        "{n} {}",
        fed.len()
    );
}

/// Real programs in both languages, and candidates made from them the way a search makes
/// them: one line edited, lines swapped, a line duplicated, indentation changed, CRLF endings.
fn programs_and_candidates() -> Vec<String> {
    let mut texts = programs();
    let java = equimorph::task::load(&common::root().join("fixtures/java/tasks.jsonl"), None)
        .expect("java fixtures");
    texts.extend(java.tasks.iter().map(|t| t.source.clone()));
    let mut out = Vec::new();
    for t in &texts {
        let lines: Vec<&str> = t.lines().collect();
        let mut edited = lines.clone();
        let renamed = edited.get(1).map(|l| l.replace("=", "= 0 +"));
        if let (Some(slot), Some(r)) = (edited.get_mut(1), renamed.as_deref()) {
            *slot = r;
        }
        let mut swapped = lines.clone();
        if swapped.len() > 3 {
            swapped.swap(1, 2);
        }
        let mut doubled = lines.clone();
        doubled.extend(lines.iter().copied());
        out.push(t.clone());
        out.push(edited.join("\n"));
        out.push(swapped.join("\n") + "\n");
        out.push(doubled.join("\n"));
        out.push(t.replace("    ", "\t"));
        out.push(t.replace('\n', "\r\n"));
    }
    out
}

#[test]
fn tokens_assembled_from_lines_equal_whole_text_tokenization() {
    let texts = programs_and_candidates();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let whole = OnnxDetector::open(
        &model("minilm"),
        OnnxOptions {
            line_tokens: false,
            ..cpu(8)
        },
    )
    .unwrap();
    let lines = OnnxDetector::open(&model("minilm"), cpu(8)).unwrap();
    assert!(whole.line_counts().is_none());
    assert!(
        lines.line_counts().is_some(),
        "MiniLM's WordPiece allows line reuse"
    );
    // Counts (untruncated) first, then the fed inputs, as a search asks for them.
    assert_eq!(
        lines.token_counts(&refs).unwrap(),
        whole.token_counts(&refs).unwrap()
    );
    let (a, b) = (lines.feeds(&refs).unwrap(), whole.feeds(&refs).unwrap());
    assert_eq!(a.len(), refs.len());
    for ((x, y), t) in a.iter().zip(&b).zip(&refs) {
        assert_eq!(x.as_ref(), y.as_ref(), "{t}");
    }
    assert!(
        a.iter().any(|f| f.truncated),
        "some doubled programs pass the window"
    );
    let counts = lines.line_counts().unwrap();
    assert!(
        counts.reused > counts.tokenized,
        "candidates share most lines: {counts:?}"
    );
    // A cross-encoder tokenizes the pair (original, candidate) from lines too.
    let (pair_lines, pair_whole) = (
        OnnxDetector::open(&model("tiny-cross"), cpu(8)).unwrap(),
        OnnxDetector::open(
            &model("tiny-cross"),
            OnnxOptions {
                line_tokens: false,
                ..cpu(8)
            },
        )
        .unwrap(),
    );
    let (anchor, rest) = refs.split_first().unwrap();
    assert_eq!(
        pair_lines.similarities(anchor, rest).unwrap(),
        pair_whole.similarities(anchor, rest).unwrap()
    );
}

/// The pooled embedding of `text` from a session that computes and copies every output.
fn every_output(model_dir: &Path, file: &str, text: &str, det: &OnnxDetector) -> Vec<f32> {
    use ort::session::Session;
    let feed = det.feeds(&[text]).unwrap().pop().unwrap();
    let n = feed.len();
    let ids: Vec<i64> = feed.ids.iter().map(|&i| i as i64).collect();
    let types: Vec<i64> = feed.types.iter().map(|&i| i as i64).collect();
    let mut session = Session::builder(environment().unwrap())
        .unwrap()
        .with_intra_threads(2)
        .unwrap()
        .commit_from_file(model_dir.join(file))
        .unwrap();
    let tensor = |v: Vec<i64>| ort::value::Tensor::from_array(([1usize, n], v)).unwrap();
    let outputs = session
        .run(ort::inputs![
            "input_ids" => tensor(ids),
            "attention_mask" => tensor(vec![1; n]),
            "token_type_ids" => tensor(types),
        ])
        .unwrap();
    assert!(outputs.len() >= 2, "the graph computed every output");
    let (_, v) = outputs["sentence_embedding"]
        .try_extract_tensor::<f32>()
        .unwrap();
    v.to_vec()
}

#[test]
fn fetching_only_the_pooled_output_gives_the_same_vectors_bit_for_bit() {
    for name in ["minilm", "tiny-embedding"] {
        let dir = model(name);
        let det = OnnxDetector::open(&dir, cpu(1)).unwrap();
        for text in programs().iter().take(6) {
            let ours = det.vectors(&[text]).unwrap().pop().unwrap();
            assert_eq!(ours, every_output(&dir, "model.onnx", text, &det), "{name}");
        }
    }
}

#[test]
fn the_fused_fp16_graph_agrees_with_the_fp32_graph() {
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    for name in ["minilm", "tiny-embedding", "tiny-cross", "tiny-siamese"] {
        let dir = model(name);
        let fp32 = OnnxDetector::open(&dir, cpu(8)).unwrap();
        assert_eq!(fp32.graph(), "model.onnx", "auto is fp32 on the CPU");
        let half = OnnxOptions {
            precision: Precision::Fp16,
            ..cpu(8)
        };
        let fp16 = match OnnxDetector::open(&dir, half) {
            Ok(d) => d,
            Err(e) => {
                eprintln!(
                    "skipping {name}: ONNX Runtime's CPU provider cannot run its fp16 graph ({e})"
                );
                continue;
            }
        };
        assert_eq!(fp16.graph(), "model_gpu.onnx");
        let (a, b) = (fp32.vectors(&texts).unwrap(), fp16.vectors(&texts).unwrap());
        let agree = agreement(&a, &b);
        assert!(agree.min_cosine >= 0.999, "{name}: {agree:?}");
        // Scores through the detector agree too (pairs for the cross-encoder, a head for
        // the siamese model).
        let (ma, mb) = (
            fp32.score(texts[0], &texts).unwrap(),
            fp16.score(texts[0], &texts).unwrap(),
        );
        let worst = ma
            .iter()
            .zip(&mb)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(worst < 5e-3, "{name}: max |ΔM| {worst}");
    }
}

#[test]
fn a_model_without_a_fused_graph_refuses_fp16_and_runs_fp32_under_auto() {
    let int8 = models_dir().join("minilm/equimorph-int8.toml");
    let err = OnnxDetector::open(
        &int8,
        OnnxOptions {
            precision: Precision::Fp16,
            ..cpu(1)
        },
    )
    .err()
    .expect("no gpu_model: fp16 is refused")
    .to_string();
    assert!(err.contains("gpu_model") && err.contains("--gpu"), "{err}");
    let det = OnnxDetector::open(&int8, cpu(1)).unwrap();
    assert_eq!(det.graph(), "model_int8.onnx");
}

#[test]
fn a_named_but_missing_gpu_graph_is_reported_and_not_counted_as_there() {
    let dir = tempfile::tempdir().unwrap();
    let src = model("tiny-embedding");
    for f in ["equimorph.toml", "model.onnx", "tokenizer.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let spec = |p: &Path| format!("onnx:{}", p.display());
    assert!(equimorph::detector::has_gpu_graph(&spec(&src)));
    assert!(!equimorph::detector::has_gpu_graph(&spec(dir.path())));
    let err = OnnxDetector::open(
        dir.path(),
        OnnxOptions {
            precision: Precision::Fp16,
            ..cpu(1)
        },
    )
    .err()
    .expect("fp16 without its file")
    .to_string();
    assert!(
        err.contains("model_gpu.onnx") && err.contains("missing"),
        "{err}"
    );
    // The fp32 graph still runs.
    let det = OnnxDetector::open(dir.path(), cpu(1)).unwrap();
    assert_eq!(det.graph(), "model.onnx");
    assert_eq!(det.batch_shapes(), BatchShapes::Exact);
}

/// `name`'s detector on 2 CPU threads with fixed-shape batches of 8 rows.
fn fixed_shapes(name: &str) -> OnnxDetector {
    OnnxDetector::open(
        &model(name),
        OnnxOptions {
            shapes: Some(BatchShapes::Fixed),
            ..cpu(8)
        },
    )
    .unwrap()
}

#[test]
fn fixed_shapes_give_a_sequence_the_same_vector_in_any_company_and_from_any_caller() {
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    for name in ["minilm", "tiny-embedding"] {
        let det = fixed_shapes(name);
        assert!(det.shares_batches());
        assert!(composition_independent(&det, &texts).unwrap(), "{name}");
        let alone = det.vectors(&texts).unwrap();
        // Four callers at once, requests of 5: merged into shared batches by the dispatcher.
        let merged = vectors_from_clients(&det, &texts, 4, 5).unwrap();
        assert!(agreement(&alone, &merged).identical, "{name}");
        assert!(det.stats().filler_rows > 0, "fixed batches are filled");
    }
}

#[test]
fn row_counts_the_canaries_pass_give_real_programs_their_full_batch_rows() {
    use equimorph::detector::engine::{plan_fixed, Engine};
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    for name in ["minilm", "tiny-embedding"] {
        let det = fixed_shapes(name);
        let rows = det.fixed_rows().to_vec();
        assert_eq!(
            rows.last(),
            Some(&8),
            "{name}: the full batch is always allowed"
        );
        assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
        // The canary runs are not counted as work.
        assert_eq!(det.stats().sequences, 0, "{name}");
        eprintln!("{name} on this CPU: fixed-shape row counts {rows:?}");
        // Real programs, each batched in every allowed row count, get the full batch's vector.
        let feeds = det.feeds(&texts).unwrap();
        let refs: Vec<&equimorph::detector::engine::Feed> =
            feeds.iter().map(|f| f.as_ref()).collect();
        let lengths: Vec<usize> = refs.iter().map(|f| f.len()).collect();
        let engine: &Engine = det.engine();
        let window = det.window().unwrap();
        let full = engine
            .run(
                &refs,
                &plan_fixed(&lengths, &[8], window),
                "sentence_embedding",
            )
            .unwrap();
        for &r in &rows {
            let cut = engine
                .run(
                    &refs,
                    &plan_fixed(&lengths, &[r], window),
                    "sentence_embedding",
                )
                .unwrap();
            assert_eq!(cut, full, "{name}: rows {r}");
        }
    }
}

#[test]
fn two_sessions_share_the_batches_and_give_the_vectors_of_one() {
    let programs = programs();
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    for shapes in [BatchShapes::Exact, BatchShapes::Fixed] {
        let one = OnnxDetector::open(
            &model("minilm"),
            OnnxOptions {
                shapes: Some(shapes),
                threads: 1,
                ..cpu(4)
            },
        )
        .unwrap();
        let two = OnnxDetector::open(
            &model("minilm"),
            OnnxOptions {
                devices: vec![Device::Cpu, Device::Cpu],
                shapes: Some(shapes),
                threads: 1,
                ..cpu(4)
            },
        )
        .unwrap();
        let (a, b) = (one.vectors(&texts).unwrap(), two.vectors(&texts).unwrap());
        assert!(agreement(&a, &b).identical, "{shapes:?}");
        assert_eq!(two.stats().sequences, texts.len() as u64);
    }
    assert_eq!(
        equimorph::detector::parse_devices("cuda:0,1").unwrap(),
        vec![Device::Cuda(0), Device::Cuda(1)]
    );
    assert!(equimorph::detector::parse_devices("cuda:0,0").is_err());
    assert!(equimorph::detector::parse_devices("cuda:0,x").is_err());
    assert!(equimorph::detector::parse_devices("tpu").is_err());
}

/// The fixture tasks plus three that never reach the search: a failing original, an
/// unparseable one and one that never ends.
fn tasks_with_bad_ones(dir: &Path) -> PathBuf {
    let mut lines: Vec<String> = common::read("fixtures/tasks.jsonl")
        .lines()
        .take(14)
        .map(String::from)
        .collect();
    let bad = [
        serde_json::json!({"id": "wrong-answer", "source": "print(int(input()) + 2)\n",
                           "tests": [{"input": "1\n", "output": "2\n"}]}),
        serde_json::json!({"id": "unparseable", "source": "def f(:\n",
                           "tests": [{"input": "", "output": ""}]}),
        serde_json::json!({"id": "endless", "source": "while True:\n    pass\n",
                           "tests": [{"input": "", "output": ""}]}),
    ];
    for (k, b) in bad.iter().enumerate() {
        lines.insert(3 + 4 * k, b.to_string());
    }
    let path = dir.join("tasks.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn shared_attack(tasks: &Path, out: &Path, in_flight: usize) -> std::process::Command {
    let tiny = format!("onnx:{}", model("tiny-embedding").display());
    let n = in_flight.to_string();
    common::attack_command(
        tasks,
        out,
        &tiny,
        3,
        &[
            "--batch-shapes",
            "fixed",
            "--tasks-in-flight",
            &n,
            "--beam",
            "3",
            "--threshold",
            "0.5",
            "--timeout-cap",
            "3",
        ],
    )
}

#[test]
fn an_attack_with_four_tasks_in_flight_matches_one_in_flight_even_interrupted_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = tasks_with_bad_ones(dir.path());
    let one = dir.path().join("one");
    let o = shared_attack(&tasks, &one, 1).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sequential = common::timeless_lines(one.join("results.jsonl"));
    assert_eq!(sequential.len(), 17);
    let skipped: Vec<&str> = sequential
        .iter()
        .filter(|l| l["status"] != "ok")
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["wrong-answer", "unparseable", "endless"]);

    let four = dir.path().join("four");
    let o = shared_attack(&tasks, &four, 4).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        common::timeless_lines(four.join("results.jsonl")),
        sequential
    );

    // Interrupted after two results, then resumed: the same lines, in the same order.
    let cut = dir.path().join("cut");
    let results = cut.join("results.jsonl");
    let child = shared_attack(&tasks, &cut, 4)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !results.exists() || common::timeless_lines(&results).len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let partial = common::timeless_lines(&results);
    assert!(partial.len() < sequential.len(), "stopped early");
    assert_eq!(
        &sequential[..partial.len()],
        &partial[..],
        "an interrupted run keeps a prefix, in task order"
    );
    let o = shared_attack(&tasks, &cut, 4).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(common::timeless_lines(&results), sequential);
}
