//! `equimorph bench-detector`: sequences/s of a model detector as equimorph drives it, by
//! precision, batch layout and batch size, with the split of time between tokenization,
//! session runs and copies, and agreement between the configurations.

use anyhow::Result;
use clap::Args;
use equimorph::detector::engine::BatchShapes;
use equimorph::detector::onnx::Precision;
use equimorph::job::bench::BenchJob;
use equimorph::job::settings::DetectorSettings;
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
    precisions: Vec<Precision>,
    /// Batch layouts to measure (exact, fixed; default: the device's default).
    #[arg(long, value_delimiter = ',', value_enum, value_name = "S,…")]
    shapes: Vec<BatchShapes>,
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
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut detector = DetectorSettings::on(args.detector, args.device);
    detector.threads = args.threads;
    let job = BenchJob {
        detector,
        input: args
            .input
            .unwrap_or_else(|| root.join("fixtures/tasks.jsonl")),
        repeat: args.repeat,
        batch_sizes: args.batch_sizes,
        precisions: args.precisions,
        shapes: args.shapes,
        clients: args.clients,
        rounds: args.rounds,
        compare_cpu: args.compare_cpu,
        json: args.json,
    };
    job.run(&mut |line| println!("{line}"))?;
    Ok(ExitCode::SUCCESS)
}
