//! Detector throughput: sequences per second of the default model on the fixture programs at
//! batch sizes 1, 8 and 32, fp32 and int8, 2 intra-op threads; session start-up time; drift of
//! int8 against fp32. Run with `cargo bench --bench detector`. Prints a table; no assertions.

use equimorph::detector::model::models_dir;
use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::{Detector, Device};
use std::path::Path;
use std::time::Instant;

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
    let mut fp32_scores = Vec::new();
    for (label, path, batches) in [
        ("fp32", dir.clone(), vec![1usize, 8, 32]),
        ("int8", dir.join("equimorph-int8.toml"), vec![1usize]),
    ] {
        for batch in batches {
            let t = Instant::now();
            let det = OnnxDetector::open(
                &path,
                OnnxOptions {
                    device: Device::Cpu,
                    threads: 2,
                    batch_size: batch,
                },
            )
            .expect("run `make setup` first");
            let startup = t.elapsed();
            det.score("warm = 1\n", &refs[..4]).expect("warm-up");
            let before = det.stats();
            let t = Instant::now();
            let mut last = Vec::new();
            for _ in 0..rounds {
                last = det.vectors(&refs).expect("inference");
            }
            let secs = t.elapsed().as_secs_f64();
            let seqs = det.stats().sequences - before.sequences;
            println!(
                "{label} batch {batch:>2}: {:>6.1} sequences/s ({} sequences, session start-up {:.0} ms)",
                seqs as f64 / secs,
                seqs,
                startup.as_secs_f64() * 1e3
            );
            if label == "fp32" && batch == 1 {
                fp32_scores = last;
            } else if label == "int8" {
                let cos: Vec<f32> = fp32_scores
                    .iter()
                    .zip(&last)
                    .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>())
                    .collect();
                let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
                println!(
                    "int8 vs fp32 embedding cosine: min {min:.4} over {} programs",
                    cos.len()
                );
            }
        }
    }
}
