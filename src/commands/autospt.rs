//! `equimorph autospt`: the whole Auto-SPT pipeline in one resumable command: design →
//! implement → select → attack with the selected set, and one report of what each stage
//! produced and cost.

use super::attack::AttackArgs;
use super::common::{
    llm_cost, DatasetArgs, DetectorArgs, LlmArgs, OracleOptions, SandboxOptions, TransformOptions,
};
use super::design::DesignArgs;
use super::implement::ImplementArgs;
use super::select::SelectArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::llm::{ImplementStatus, LlmClient, LlmStats};
use equimorph::report::calibration::ThresholdSpec;
use equimorph::search::{OracleOrder, Strategy};
use equimorph::task::TaskFormat;
use equimorph::transform::default_transforms_dir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `autospt`.
#[derive(Args)]
pub struct AutosptArgs {
    /// Programs to attack (and to show the model in step 1).
    #[arg(long)]
    tasks: PathBuf,
    /// Validation programs for best-of-N selection (step 2's reward).
    #[arg(long)]
    validation: PathBuf,
    /// Input format of both task files (default: guessed from each path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    /// K: transformations to design.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// N: implementations per transformation.
    #[arg(long, default_value_t = 10)]
    samples: u32,
    /// Output directory: designs.jsonl, candidates/, selection/, attack/, autospt.md. A rerun
    /// skips the stages already done and resumes the one in progress.
    #[arg(long)]
    out: PathBuf,
    /// Attack with the selected transforms plus the built-in library.
    #[arg(long)]
    with_builtin: bool,
    /// Step 1 temperature.
    #[arg(long, default_value_t = 0.1)]
    design_temperature: f32,
    /// Step 2 temperature.
    #[arg(long, default_value_t = 0.8)]
    implement_temperature: f32,
    /// Step 1 prompt template (default: prompts/design.md).
    #[arg(long, value_name = "FILE")]
    design_prompt: Option<PathBuf>,
    /// Step 2 prompt template (default: prompts/implement.md).
    #[arg(long, value_name = "FILE")]
    implement_prompt: Option<PathBuf>,
    /// Use at most N validation tasks in selection (a seeded sample).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Only candidates with at most this share of broken or invalid outputs may win.
    #[arg(long, value_name = "RATE")]
    max_broken: Option<f64>,
    /// Beam width of the attack.
    #[arg(long, default_value_t = 5)]
    beam: usize,
    /// Iterations of the attack.
    #[arg(long, default_value_t = 10)]
    iterations: usize,
    /// Run seed (program samples, selection and attack).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    detector: DetectorArgs,
    #[command(flatten)]
    sandbox: SandboxOptions,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// What one stage produced and cost: a line of the final report.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct StageRecord {
    done: bool,
    produced: String,
    seconds: f64,
    llm: LlmStats,
}

/// `autospt.json`: the stages done so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    stages: BTreeMap<String, StageRecord>,
}

const STAGES: [&str; 4] = ["1-design", "2-implement", "3-select", "4-attack"];

impl State {
    fn load(path: &Path) -> Result<State> {
        match std::fs::read_to_string(path) {
            Ok(t) => serde_json::from_str(&t)
                .with_context(|| format!("{} is not an autospt state file", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, serde_json::to_string_pretty(self)?)
            .with_context(|| format!("cannot write {}", path.display()))
    }

    fn done(&self, stage: &str) -> bool {
        self.stages.get(stage).is_some_and(|s| s.done)
    }
}

fn delta(after: LlmStats, before: LlmStats) -> LlmStats {
    let mut d = after;
    d.requests -= before.requests;
    d.retries -= before.retries;
    d.cache_hits -= before.cache_hits;
    d.failures -= before.failures;
    d.usage.prompt_tokens -= before.usage.prompt_tokens;
    d.usage.completion_tokens -= before.usage.completion_tokens;
    d.usage.total_tokens -= before.usage.total_tokens;
    d
}

/// Runs `autospt`.
pub fn run(args: AutosptArgs) -> Result<ExitCode> {
    if args.count == 0 || args.samples == 0 {
        bail!("--count and --samples must be at least 1");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let state_path = args.out.join("autospt.json");
    let mut state = State::load(&state_path)?;
    let client = args.llm.client()?;
    let designs = args.out.join("designs.jsonl");
    let candidates = args.out.join("candidates");
    let selection = args.out.join("selection");
    let attack = args.out.join("attack");

    for stage in STAGES {
        if state.done(stage) {
            println!("autospt: stage {stage} already done, skipped");
            continue;
        }
        println!("autospt: stage {stage}");
        let (before, start) = (client.stats(), Instant::now());
        let produced = match stage {
            "1-design" => design_stage(&args, &client, &designs)?,
            "2-implement" => implement_stage(&args, &client, &designs, &candidates)?,
            "3-select" => select_stage(&args, &candidates, &selection)?,
            _ => attack_stage(&args, &selection, &attack)?,
        };
        let record = StageRecord {
            done: true,
            produced,
            seconds: start.elapsed().as_secs_f64(),
            llm: delta(client.stats(), before),
        };
        println!(
            "autospt: {stage}: {} ({})",
            record.produced,
            llm_cost(&record.llm)
        );
        state.stages.insert(stage.to_string(), record);
        state.save(&state_path)?;
    }
    let report = args.out.join("autospt.md");
    std::fs::write(&report, render(&state, &args.out))
        .with_context(|| format!("cannot write {}", report.display()))?;
    println!("report: {}", report.display());
    Ok(ExitCode::SUCCESS)
}

fn design_stage(args: &AutosptArgs, client: &LlmClient, designs: &Path) -> Result<String> {
    let design_args = DesignArgs {
        tasks: args.tasks.clone(),
        format: args.format,
        count: args.count,
        out: designs.to_path_buf(),
        temperature: args.design_temperature,
        seed: args.seed,
        prompt: args.design_prompt.clone(),
        llm: args.llm.clone(),
    };
    let (list, complete) = super::design::run_with(&design_args, client)?;
    if !complete {
        bail!(
            "step 1 stopped with {} of {} designs (see above); rerun to continue",
            list.len(),
            args.count
        );
    }
    Ok(format!(
        "{} designs: {}",
        list.len(),
        list.iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn implement_stage(
    args: &AutosptArgs,
    client: &LlmClient,
    designs: &Path,
    candidates: &Path,
) -> Result<String> {
    let implement_args = ImplementArgs {
        designs: designs.to_path_buf(),
        samples: args.samples,
        out: candidates.to_path_buf(),
        temperature: args.implement_temperature,
        prompt: args.implement_prompt.clone(),
        llm: args.llm.clone(),
    };
    let records = super::implement::run_with(&implement_args, client)?;
    let count = |s| records.iter().filter(|r| r.status == s).count();
    if count(ImplementStatus::Error) > 0 {
        bail!(
            "step 2: {} requests failed (see above); rerun to retry them",
            count(ImplementStatus::Error)
        );
    }
    if count(ImplementStatus::Written) == 0 {
        bail!("step 2: no reply held a Python program");
    }
    Ok(format!(
        "{} candidate scripts, {} replies not Python",
        count(ImplementStatus::Written),
        count(ImplementStatus::NotPython)
    ))
}

fn select_stage(args: &AutosptArgs, candidates: &Path, selection: &Path) -> Result<String> {
    let select_args = SelectArgs {
        dataset: DatasetArgs::default(),
        candidates: candidates.to_path_buf(),
        tasks: args.validation.clone(),
        out: selection.to_path_buf(),
        format: args.format,
        limit: args.limit,
        seed: args.seed,
        max_broken: args.max_broken,
        shard: None,
        quiet: args.quiet,
        force_new: false,
        window: Default::default(),
        detector: args.detector.clone(),
        sandbox: args.sandbox.clone(),
        oracle: args.oracle.clone(),
    };
    if super::select::run(select_args)? != ExitCode::SUCCESS {
        bail!("step 3 (select) did not finish; rerun to resume it");
    }
    let rows: Vec<equimorph::select::CandidateScore> = serde_json::from_str(
        &std::fs::read_to_string(selection.join("selection.json"))
            .context("reading selection.json")?,
    )?;
    let winners: Vec<String> = rows
        .iter()
        .filter(|r| r.selected)
        .map(|r| format!("{}/{} (R = {:.4})", r.group, r.file, r.reward))
        .collect();
    Ok(format!(
        "{} candidates judged, {} selected: {}",
        rows.len(),
        winners.len(),
        winners.join(", ")
    ))
}

fn attack_stage(args: &AutosptArgs, selection: &Path, attack: &Path) -> Result<String> {
    let selected = selection.join("selected");
    let has_winner = std::fs::read_dir(&selected)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    let mut spec = Vec::new();
    if has_winner {
        spec.push(selected.display().to_string());
    }
    if args.with_builtin {
        spec.push(default_transforms_dir().display().to_string());
    }
    if spec.is_empty() {
        bail!("no candidate was selected, so there is nothing to attack with (try --with-builtin)");
    }
    let attack_args = AttackArgs {
        dataset: DatasetArgs::default(),
        reference_clones: None,
        symbolic_rounds: 2,
        verify: Default::default(),
        tasks_in_flight: None,
        tasks: args.tasks.clone(),
        out: attack.to_path_buf(),
        format: args.format,
        strategy: Strategy::Beam,
        beam: Some(args.beam),
        iterations: Some(args.iterations),
        queries_per_iteration: None,
        patience: None,
        seed: args.seed,
        oracle_order: OracleOrder::Lazy,
        max_queries: None,
        max_oracle: None,
        time_per_task: None,
        stop_below: None,
        max_growth: None,
        window: Default::default(),
        shard: None,
        keep_verified: false,
        threshold: ThresholdSpec::Auto { rate: 0.95 },
        quiet: args.quiet,
        force_new: false,
        detector: args.detector.clone(),
        transforms: TransformOptions {
            transforms: Some(spec.join(",")),
            sandbox: args.sandbox.clone(),
        },
        oracle: args.oracle.clone(),
    };
    if super::attack::run(attack_args)? != ExitCode::SUCCESS {
        bail!("step 4 (attack) failed");
    }
    let summary: equimorph::report::Summary = serde_json::from_str(
        &std::fs::read_to_string(attack.join("summary.json")).context("reading summary.json")?,
    )?;
    Ok(format!(
        "{} tasks attacked with {} transforms: worst-case distance L = {:.4} ± {:.4}",
        summary.attacked,
        summary.run.transforms.len(),
        summary.mean_distance,
        summary.std_distance
    ))
}

fn render(state: &State, out: &Path) -> String {
    let mut o = String::from("# equimorph Auto-SPT run\n\n");
    o.push_str(
        "| stage | produced | LLM requests (retries, cache hits) | tokens in / out | time |\n",
    );
    o.push_str("|---|---|---|---|---|\n");
    let mut total = LlmStats::default();
    let mut seconds = 0.0;
    for stage in STAGES {
        let Some(s) = state.stages.get(stage) else {
            continue;
        };
        o.push_str(&format!(
            "| {stage} | {} | {} ({}, {}) | {} / {} | {:.1} s |\n",
            s.produced.replace('|', "\\|"),
            s.llm.requests,
            s.llm.retries,
            s.llm.cache_hits,
            s.llm.usage.prompt_tokens,
            s.llm.usage.completion_tokens,
            s.seconds
        ));
        total.requests += s.llm.requests;
        total.cache_hits += s.llm.cache_hits;
        total.usage.prompt_tokens += s.llm.usage.prompt_tokens;
        total.usage.completion_tokens += s.llm.usage.completion_tokens;
        seconds += s.seconds;
    }
    o.push_str(&format!(
        "\nIn all: {} LLM requests ({} answers from the cache), {} / {} tokens, {:.1} s \
         (times are those of the run that did each stage).\n\n",
        total.requests,
        total.cache_hits,
        total.usage.prompt_tokens,
        total.usage.completion_tokens,
        seconds
    ));
    o.push_str(&format!(
        "Files: `{0}/designs.jsonl`, `{0}/candidates/`, `{0}/selection/selection.md`, \
         `{0}/attack/report.md`.\n",
        out.display()
    ));
    o
}
