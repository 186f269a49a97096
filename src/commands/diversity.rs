//! `equimorph diversity`: the k-step diameter D_k and the leave-one-out diversity Δ_k of a
//! transform set, per program and averaged; `--grow` adds transforms one at a time.

use super::common::{load_dataset, print, Bar, DetectorSettings, TransformOptions};
use anyhow::Result;
use clap::{Args, ValueEnum};
use equimorph::job::diversity::{DiversityJob, GrowOrder};
use equimorph::search::diversity::DiversityConfig;
use std::path::PathBuf;
use std::process::ExitCode;

/// How `--grow` orders the transforms.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GrowArg {
    /// The order of --transforms.
    Given,
    /// At each step the transform that raises the mean diameter most.
    Greedy,
}

/// Arguments of `diversity`.
#[derive(Args)]
pub struct DiversityArgs {
    /// Task file or directory (the originals are the programs P).
    tasks: PathBuf,
    /// Steps k.
    #[arg(short = 'k', long, default_value_t = 2)]
    k: usize,
    /// Programs kept per level of the bounded search.
    #[arg(long, default_value_t = 4)]
    beam: usize,
    /// Use a seeded sample of N tasks.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed of the sample and of every transform application.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also grow the set one transform at a time and report D_k and Δ_k at each size.
    #[arg(long, value_enum, value_name = "given|greedy")]
    grow: Option<GrowArg>,
    /// Where to write diversity.json, diversity.md and diversity.svg.
    #[arg(long, default_value = "out/diversity")]
    out: PathBuf,
    #[command(flatten)]
    detector: DetectorSettings,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Runs `diversity`.
pub fn run(args: DiversityArgs) -> Result<ExitCode> {
    let set = load_dataset(&args.tasks, None, "--format", &Default::default())?;
    let runtime = args.transforms.runtime()?;
    let loaded = args.transforms.load(&runtime)?;
    let detector = args.detector.open()?;
    let job = DiversityJob {
        programs: set
            .tasks
            .iter()
            .map(|t| (t.id.clone(), t.source.clone()))
            .collect(),
        sample: args.sample,
        transforms: loaded.iter().collect(),
        detector: detector.as_ref(),
        config: DiversityConfig {
            k: args.k,
            beam: args.beam,
            seed: args.seed,
        },
        grow: args.grow.map(|g| match g {
            GrowArg::Given => GrowOrder::Given,
            GrowArg::Greedy => GrowOrder::Greedy,
        }),
        out: args.out,
    };
    let outcome = job.run(&Bar::new(false))?;
    print(&outcome.printout());
    Ok(ExitCode::SUCCESS)
}
