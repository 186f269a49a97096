//! Detector throughput on the CPU through `OnnxDetector`, tokenization included: the default
//! model's fp32 graph at batch sizes 1, 8 and 32 with exact batch shapes, the fixed shapes that
//! shared batching uses, the fused fp16 graph, and int8; the tokenizer alone, in parallel and
//! one text at a time, and on a search's stream of candidates with and without line reuse;
//! drift of int8 and fp16 against fp32. Run with `cargo bench --bench detector`
//! (EQUIMORPH_BENCH_ROUNDS, default 3). Prints a table; no assertions. The GPU figures
//! come from `equimorph bench-detector --device cuda` (see scripts/gpu/).

use equimorph::detector::bench::{
    agreement, candidate_stream, stream_pace, throughput, tokenizer_pace,
};
use equimorph::detector::engine::BatchShapes;
use equimorph::detector::model::models_dir;
use equimorph::detector::onnx::{OnnxDetector, OnnxOptions, Precision};
use equimorph::detector::Device;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tasks = equimorph::task::load(&root.join("fixtures/tasks.jsonl"), None).expect("fixtures");
    let programs: Vec<String> = tasks.tasks.iter().map(|t| t.source.clone()).collect();
    let refs: Vec<&str> = programs.iter().map(String::as_str).collect();
    let rounds: usize = std::env::var("EQUIMORPH_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dir = models_dir().join("minilm");
    let open = |path: &Path, batch: usize, precision: Precision, shapes: BatchShapes| {
        OnnxDetector::open(
            path,
            OnnxOptions {
                devices: vec![Device::Cpu],
                threads: 2,
                batch_size: batch,
                precision,
                shapes: Some(shapes),
                ..OnnxOptions::default()
            },
        )
        .expect("run `make setup` first")
    };
    let det = open(&dir, 8, Precision::Fp32, BatchShapes::Exact);
    let (parallel, one) = tokenizer_pace(&det, &refs).expect("tokenizer");
    println!("tokenizer alone: {parallel:.0} texts/s in parallel, {one:.0} texts/s one by one");
    // A search's stream (each program, then 30 candidates editing one line each), 10 a call.
    let stream = candidate_stream(&refs, 30);
    let stream: Vec<&str> = stream.iter().map(String::as_str).collect();
    let whole = OnnxDetector::open(
        &dir,
        OnnxOptions {
            threads: 2,
            line_tokens: false,
            ..OnnxOptions::default()
        },
    )
    .expect("model");
    let (a, b) = (
        stream_pace(&whole, &stream, 10).expect("tokenizer"),
        stream_pace(&det, &stream, 10).expect("tokenizer"),
    );
    println!(
        "tokenizer on a search's stream ({} texts, 10 a call): {a:.0} texts/s whole, {b:.0} texts/s from lines ({:.2}x)",
        stream.len(),
        b / a
    );
    let mut reference: Option<Vec<Vec<f32>>> = None;
    let int8 = dir.join("equimorph-int8.toml");
    for (label, path, batch, precision, shapes) in [
        ("fp32 exact", &dir, 1, Precision::Fp32, BatchShapes::Exact),
        ("fp32 exact", &dir, 8, Precision::Fp32, BatchShapes::Exact),
        ("fp32 exact", &dir, 32, Precision::Fp32, BatchShapes::Exact),
        ("fp32 fixed", &dir, 8, Precision::Fp32, BatchShapes::Fixed),
        ("fp16 exact", &dir, 8, Precision::Fp16, BatchShapes::Exact),
        ("int8 exact", &int8, 1, Precision::Fp32, BatchShapes::Exact),
    ] {
        let det = open(path, batch, precision, shapes);
        det.vectors(&refs[..4]).expect("warm-up");
        let (t, vectors) = throughput(&det, &refs, rounds, 1, 100).expect("inference");
        let drift = reference
            .as_ref()
            .map(|r| {
                format!(
                    "; min cosine vs fp32 {:.4}",
                    agreement(r, &vectors).min_cosine
                )
            })
            .unwrap_or_default();
        println!(
            "{label} batch {batch:>2}: {:>6.1} sequences/s; tokenize {:.1} %, run {:.1} %, copy {:.1} %{drift}",
            t.sequences_per_s,
            100.0 * t.tokenize_share,
            100.0 * t.run_share,
            100.0 * t.copy_share
        );
        reference.get_or_insert(vectors);
    }
}
