//! `equimorph bench-detector`: sequences/s of a model detector as equimorph drives it, by
//! precision, batch layout and batch size, with the split of time between tokenization,
//! session runs and copies, and agreement between the configurations.

use super::common::{DetectorArgs, PrecisionArg, ShapesArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::detector::bench::{agreement, composition_independent, throughput, tokenizer_pace};
use equimorph::detector::onnx::OnnxDetector;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bench-detector`.
#[derive(Args)]
pub struct BenchDetectorArgs {
    /// Programs to score: a task file or directory, as `attack` reads (default: the fixtures).
    #[arg(long, value_name = "PATH")]
    input: Option<PathBuf>,
    /// Score the programs this many times over per round (a larger workload; each copy ends
    /// with a distinct comment, so it is tokenized like a new program).
    #[arg(long, default_value_t = 1, value_name = "N")]
    repeat: usize,
    /// minilm or onnx:PATH.
    #[arg(long, default_value = "minilm", value_name = "SPEC")]
    detector: String,
    /// cpu, cuda, cuda:N or cuda:N,M,….
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Batch sizes to measure.
    #[arg(
        long,
        default_value = "8,32,128",
        value_delimiter = ',',
        value_name = "N,…"
    )]
    batch_sizes: Vec<usize>,
    /// Precisions to measure (auto, fp32, fp16).
    #[arg(
        long,
        default_value = "auto",
        value_delimiter = ',',
        value_enum,
        value_name = "P,…"
    )]
    precisions: Vec<PrecisionArg>,
    /// Batch layouts to measure (exact, fixed; default: the device's default).
    #[arg(long, value_delimiter = ',', value_enum, value_name = "S,…")]
    shapes: Vec<ShapesArg>,
    /// Callers scoring at once (as tasks in flight do; 100 programs per request).
    #[arg(long, default_value_t = 1, value_name = "N")]
    clients: usize,
    /// Rounds per configuration (after one warm-up call).
    #[arg(long, default_value_t = 3, value_name = "N")]
    rounds: usize,
    /// ONNX Runtime intra-op threads (default: the core count).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Also run the fp32 graph on the CPU and compare every configuration with it.
    #[arg(long)]
    compare_cpu: bool,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `bench-detector`.
pub fn run(args: BenchDetectorArgs) -> Result<ExitCode> {
    if equimorph::detector::model_path(&args.detector).is_none() {
        bail!("--detector must name a model (minilm, onnx:PATH): the classic detectors have no batches");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let input = args
        .input
        .clone()
        .unwrap_or_else(|| root.join("fixtures/tasks.jsonl"));
    let set = equimorph::task::load(&input, None)
        .with_context(|| format!("cannot read programs from {}", input.display()))?;
    // Each copy is made distinct (a comment), so none comes from the token cache.
    let mut programs: Vec<String> = Vec::new();
    for k in 0..args.repeat.max(1) {
        programs.extend(set.tasks.iter().map(|t| {
            if k == 0 {
                t.source.clone()
            } else {
                format!("{}\n# copy {k}\n", t.source)
            }
        }));
    }
    if programs.is_empty() {
        bail!("{} holds no program", input.display());
    }
    let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
    let path = equimorph::detector::model_path(&args.detector).unwrap_or_default();
    let base = DetectorArgs {
        detector: args.detector.clone(),
        device: args.device.clone(),
        threads: args.threads,
        batch_size: None,
        precision: PrecisionArg::Auto,
        batch_shapes: None,
    };
    let reference = if args.compare_cpu {
        let cpu = DetectorArgs {
            device: "cpu".into(),
            precision: PrecisionArg::Fp32,
            ..base.clone()
        };
        let det = OnnxDetector::open(&path, cpu.options()?)?;
        Some(det.vectors(&texts)?)
    } else {
        None
    };
    let shapes: Vec<Option<ShapesArg>> = if args.shapes.is_empty() {
        vec![None]
    } else {
        args.shapes.iter().copied().map(Some).collect()
    };
    let mut first: Option<Vec<Vec<f32>>> = None;
    let mut tokenizer_done = false;
    for &precision in &args.precisions {
        for &shape in &shapes {
            for &batch in &args.batch_sizes {
                let this = DetectorArgs {
                    batch_size: Some(batch),
                    precision,
                    batch_shapes: shape,
                    ..base.clone()
                };
                let det = OnnxDetector::open(&path, this.options()?)?;
                det.vectors(&texts[..texts.len().min(batch.max(4))])?;
                if !tokenizer_done {
                    let (par, one) = tokenizer_pace(&det, &texts)?;
                    tokenizer_done = true;
                    if args.json {
                        println!(
                            "{}",
                            serde_json::json!({"tokenizer_texts_per_s": {"parallel": par, "one_by_one": one}})
                        );
                    } else {
                        println!("tokenizer alone: {par:.0} texts/s in parallel, {one:.0} texts/s one by one");
                    }
                }
                let (t, vectors) = throughput(&det, &texts, args.rounds, args.clients, 100)?;
                let independent = composition_independent(&det, &texts[..texts.len().min(64)])?;
                let vs_cpu = reference.as_ref().map(|r| agreement(r, &vectors));
                let vs_first = first.as_ref().map(|f| agreement(f, &vectors));
                if first.is_none() {
                    first = Some(vectors);
                }
                let label = serde_json::json!({
                    "detector": args.detector, "device": args.device, "graph": det.graph(),
                    "precision": format!("{precision:?}").to_lowercase(),
                    "shapes": format!("{:?}", det.batch_shapes()).to_lowercase(),
                    "batch": batch, "clients": args.clients,
                });
                if args.json {
                    println!(
                        "{}",
                        serde_json::json!({"config": label, "throughput": t, "composition_independent": independent,
                                           "vs_cpu_fp32": vs_cpu, "vs_first_config": vs_first})
                    );
                } else {
                    println!(
                        "{} {:>5} batch {:>4}: {:>8.1} sequences/s, {:>9.0} tokens/s; tokenize {:>4.1} %, run {:>5.1} %, copy {:>4.1} %; \
                         filler rows {:.2}/seq; same vector in any company: {}{}",
                        det.graph(),
                        format!("{:?}", det.batch_shapes()).to_lowercase(),
                        batch,
                        t.sequences_per_s,
                        t.tokens_per_s,
                        100.0 * t.tokenize_share,
                        100.0 * t.run_share,
                        100.0 * t.copy_share,
                        t.filler_per_sequence,
                        if independent { "yes" } else { "no" },
                        vs_cpu.map_or(String::new(), |a| format!(
                            "; vs CPU fp32: min cosine {:.6}, max |ΔM| {:.1e}",
                            a.min_cosine, a.max_abs_diff_m
                        )),
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
