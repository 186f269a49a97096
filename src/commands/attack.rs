//! `equimorph attack`: search every task for the least similar equivalent program.

use super::common::{
    detector_settings, interrupt_flag, load_dataset, progress, stop_point, task_settings,
    transform_settings, DatasetArgs, DetectorArgs, OracleOptions, TransformOptions, VerifyArgs,
    WindowArgs, INTERRUPTED, NOTHING_USABLE,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::adequacy::symbolic::{Gated, SymbolicGate};
use equimorph::oracle::ValidationStatus;
use equimorph::pipeline::{Pipeline, Sink, TaskOutcome};
use equimorph::program::Candidate;
use equimorph::report::calibration::ThresholdSpec;
use equimorph::report::calibration::{CalibrationProgram, Threshold};
use equimorph::report::results::{read_jsonl, write_jsonl, AppendLog, VerifiedLine};
use equimorph::report::shard::Shard;
use equimorph::report::{reference, write_reports, ResultLine, ResultsWriter, RunInfo, Status};
use equimorph::run::{JobKind, Opened, RunDir, RunSettings};
use equimorph::search::{Constraints, OracleOrder, SearchConfig, SearchResult, Searcher, Strategy};
use equimorph::task::Task;
use equimorph::task::TaskFormat;
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `attack`.
#[derive(Args)]
pub struct AttackArgs {
    /// Task file or directory.
    pub(super) tasks: PathBuf,
    /// Output directory (results.jsonl, summary.json, report.md, report.html). Rerunning with
    /// the same directory resumes: tasks already there are skipped.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) format: Option<TaskFormat>,
    #[command(flatten)]
    pub(super) dataset: DatasetArgs,
    /// guided (the default: a beam that scores only the candidates a bandit over transforms
    /// predicts to pay), beam (Algorithm 1: every candidate scored), greedy (beam 1) or random
    /// (a random walk).
    #[arg(long = "search", value_enum, default_value = "guided")]
    pub(super) strategy: Strategy,
    /// Beam width B (default: 3 for guided, 5 for beam).
    #[arg(long)]
    pub(super) beam: Option<usize>,
    /// Iterations N (default: 10 for beam, greedy and random; 30 for guided, which usually
    /// stops earlier, see --patience). Guided scores at most (transforms + (N − 1) × K)
    /// candidates per task.
    #[arg(long)]
    pub(super) iterations: Option<usize>,
    /// Guided search: candidates the detector scores per iteration after the first, which
    /// scores every transform once (default 10).
    #[arg(long, value_name = "K")]
    pub(super) queries_per_iteration: Option<usize>,
    /// Stop a task once its best M has not improved for this many iterations (default: 4 for
    /// guided, never for the others).
    #[arg(long, value_name = "ITERATIONS")]
    pub(super) patience: Option<usize>,
    /// Run seed (every transform seed derives from it).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// lazy: oracle in distance order until B pass; all: oracle on every candidate (Algorithm 1 as written).
    #[arg(long, value_enum, default_value = "lazy")]
    pub(super) oracle_order: OracleOrder,
    /// A hard ceiling on detector queries per task: the search never scores more candidates
    /// than this for one task (it stops, or scores only part of an iteration, when it reaches
    /// it).
    #[arg(long, alias = "max-scored", value_name = "N")]
    pub(super) max_queries: Option<usize>,
    /// Stop a task after this many oracle checks.
    #[arg(long)]
    pub(super) max_oracle: Option<usize>,
    /// Stop a task after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub(super) time_per_task: Option<f64>,
    /// Stop a task once its best M falls below this.
    #[arg(long, value_name = "M")]
    pub(super) stop_below: Option<f32>,
    /// An attack succeeds when the best M is below this: a number in [0, 1], or auto[:RATE]
    /// (default auto = auto:0.95): the similarity below which a fraction RATE of seeded pairs
    /// of different tasks' originals (non-clones) fall, measured with the run's detector.
    #[arg(long, default_value = "auto", value_name = "M|auto[:RATE]")]
    pub(super) threshold: ThresholdSpec,
    /// Reject (before scoring) candidates with more than F times the original's tokens.
    #[arg(long, value_name = "F")]
    pub(super) max_growth: Option<f64>,
    #[command(flatten)]
    pub(super) window: WindowArgs,
    /// GPTCloneBench's stand-alone clones (folder or zip): the report says where the winners
    /// fall against its real clones, scored by the same detector ("the median winner scores
    /// below N % of its Type-4 clones").
    #[arg(long, value_name = "DIR|ZIP")]
    pub(super) reference_clones: Option<PathBuf>,
    /// With --verify symbolic, how many times a task's search is redone when its winner is
    /// rejected (each time with the counterexamples found so far as tests).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub(super) symbolic_rounds: usize,
    #[command(flatten)]
    pub(super) verify: VerifyArgs,
    /// Attack only shard I of N (1 ≤ I ≤ N: 1/4 is the first of four; a stable split by task
    /// id); `equimorph merge` combines the shard directories into one run.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<Shard>,
    /// Also write verified.jsonl: every candidate the oracle accepted during the search (not
    /// only the best), with its M and transforms: equivalent programs, hardest first per
    /// iteration, for training data.
    #[arg(long)]
    pub(super) keep_verified: bool,
    /// Start over in --out even if it holds another run (its outputs are removed first).
    #[arg(long)]
    pub(super) force_new: bool,
    /// Tasks searched at once, sharing the detector (with fixed batch shapes their scoring
    /// requests are merged into full batches) while their transforms and oracle runs overlap.
    /// Default: 8 with fixed batch shapes (the CUDA default for fused fp16 graphs; on an H100
    /// 8 scored 3,155 candidates/s against 2,639 with 4), else 1 (on CPU the detector already
    /// uses every core). Results do not depend on it; per-task
    /// seconds then include waiting for the others.
    #[arg(long, value_name = "N")]
    pub(super) tasks_in_flight: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) detector: DetectorArgs,
    #[command(flatten)]
    pub(super) transforms: TransformOptions,
    #[command(flatten)]
    pub(super) oracle: OracleOptions,
}

/// What an attack stopped before its first task has done.
const NOTHING_ATTACKED: &str = "no task was attacked";

/// Runs `attack`.
pub fn run(args: AttackArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading or calibrating stops the run as cleanly as one
    // during the tasks.
    let stop = interrupt_flag()?;
    let iterations = args.iterations.unwrap_or(match args.strategy {
        Strategy::Guided => 30,
        _ => 10,
    });
    let beam = match (args.beam, args.strategy) {
        (_, Strategy::Greedy) => 1,
        (Some(b), _) => b,
        (None, Strategy::Guided) => 3,
        (None, _) => 5,
    };
    if beam == 0 || iterations == 0 {
        bail!("--beam and --iterations must be at least 1");
    }
    if args.queries_per_iteration == Some(0) || args.patience == Some(0) {
        bail!("--queries-per-iteration and --patience must be at least 1");
    }
    if args.max_queries == Some(0) {
        bail!("--max-queries must be at least 1");
    }
    let patience = args
        .patience
        .or((args.strategy == Strategy::Guided).then_some(4));
    let window = args.window.enabled();
    if args
        .time_per_task
        .is_some_and(|t| !(t > 0.0 && t.is_finite()))
    {
        bail!("--time-per-task must be a positive number of seconds");
    }
    if args.max_growth.is_some_and(|g| !(g > 0.0 && g.is_finite())) {
        bail!("--max-growth must be a positive number (1.5 = at most 50 % more tokens)");
    }
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    if set.tasks.is_empty() {
        if set.untested.is_empty() {
            bail!("{} holds no task with tests", args.tasks.display());
        }
        bail!(
            "{} holds no task with tests ({} without: a CodeNet benchmark subset takes its tests \
             from --codenet-root; `augment --unverified` uses tasks without tests)",
            args.tasks.display(),
            set.untested.len()
        );
    }
    let runtime = args.transforms.runtime()?;
    let transforms = args.transforms.load(&runtime)?;
    if transforms.is_empty() {
        bail!("no transforms selected");
    }
    stop_point(&stop, "loading the transforms", NOTHING_ATTACKED)?;
    let list: Vec<_> = transforms.iter().cloned().collect();
    let mut settings = RunSettings::new();
    task_settings(&mut settings, &args.tasks);
    args.dataset.record(&mut settings);
    detector_settings(&mut settings, &args.detector.detector);
    args.detector.record(&mut settings)?;
    transform_settings(&mut settings, &list);
    args.oracle.record(&mut settings);
    settings
        .set("search", format!("{:?}", args.strategy).to_lowercase())
        .set("beam", beam)
        .set("iterations", iterations)
        .set("seed", args.seed)
        .set(
            "oracle order",
            format!("{:?}", args.oracle_order).to_lowercase(),
        )
        .set_opt("max queries", args.max_queries)
        .set_opt("queries per iteration", args.queries_per_iteration)
        .set_opt("patience", patience)
        .set_opt("max oracle", args.max_oracle)
        .set_opt("time per task", args.time_per_task)
        .set_opt("stop below", args.stop_below)
        .set("threshold", args.threshold)
        .set_opt("max growth", args.max_growth)
        .set("window", window)
        .set("keep verified", args.keep_verified)
        .set_opt("shard", args.shard);
    args.verify.record(&mut settings);
    if args.verify.verify.is_some() {
        settings.set("symbolic rounds", args.symbolic_rounds);
    }
    let (run_dir, opened) = RunDir::open(&args.out, JobKind::Attack, settings, args.force_new)?;
    let detector = args.detector.open()?;
    let oracle = args.oracle.oracle()?;
    stop_point(&stop, "starting the sandbox", NOTHING_ATTACKED)?;
    // A resumed run keeps the threshold it recorded (its settings, so its calibration, are the
    // same; a `report --threshold` since then is kept too): no validation or calibration again.
    let recorded: Option<RunInfo> = (opened == Opened::Resumed)
        .then(|| std::fs::read_to_string(run_dir.join("run.json")).ok())
        .flatten()
        .and_then(|t| serde_json::from_str(&t).ok());
    let threshold = match recorded {
        Some(r) => Threshold {
            value: r.threshold,
            source: r.threshold_source,
        },
        None => calibrate(&args, &set, detector.as_ref(), &oracle, &stop)?,
    };
    if let Some(path) = &args.reference_clones {
        write_reference_scores(
            path,
            args.seed,
            detector.as_ref(),
            &run_dir.join(reference::FILE),
        )?;
    }
    let (mut writer, done, dropped) = ResultsWriter::open_keyed(&run_dir.join("results.jsonl"))?;
    for d in &dropped {
        eprintln!(
            "warning: results.jsonl line {}: task {} already has a result (line {}); the \
             duplicate is dropped",
            d.line, d.key, d.first
        );
    }
    let done_ids = equimorph::report::results::ids(&done);
    let mut verified_log = if args.keep_verified {
        // Lines of tasks without a result line come from a killed run: that task is redone.
        let path = args.out.join("verified.jsonl");
        let mut kept: Vec<VerifiedLine> = read_jsonl(&path)?;
        let before = kept.len();
        kept.retain(|l| done_ids.contains(&l.task_id));
        if kept.len() != before {
            write_jsonl(&path, &kept)?;
        }
        Some(AppendLog::<VerifiedLine>::open_keyed(&path)?.0)
    } else {
        None
    };
    let constraints = Constraints {
        max_growth: args.max_growth,
        window,
    };
    let run_info = RunInfo {
        detector: detector.name().to_string(),
        threshold: threshold.value,
        threshold_source: threshold.source.clone(),
        strategy: format!("{:?}", args.strategy).to_lowercase(),
        beam,
        iterations,
        seed: args.seed,
        constraints: equimorph::report::constraints_label(&constraints, detector.window()),
        transforms: transforms.names(),
        tasks: args.tasks.display().to_string(),
        shard: args.shard.map(|s| s.to_string()),
        dataset: Some(set.report()),
        adequacy: Some(equimorph::adequacy::SetAdequacy::of(&set.tasks)),
        planned_tasks: Some(planned_tasks(&set.tasks, args.shard)),
    };
    run_dir.write_run_json(&run_info)?;
    let todo: Vec<_> = set
        .tasks
        .iter()
        .filter(|t| !done_ids.contains(&t.id))
        .filter(|t| args.shard.is_none_or(|s| s.owns(&t.id)))
        .collect();
    if !done.is_empty() {
        eprintln!(
            "resuming: {} tasks already in {}, {} to go",
            done.len(),
            args.out.display(),
            todo.len()
        );
    }

    let quiet = args.quiet;
    let pb = progress(todo.len() as u64, quiet);
    let config = SearchConfig {
        strategy: args.strategy,
        beam,
        iterations,
        seed: args.seed,
        oracle_order: args.oracle_order,
        max_queries: args.max_queries,
        max_oracle: args.max_oracle,
        time_per_task: args.time_per_task.map(Duration::from_secs_f64),
        stop_below: args.stop_below,
        constraints,
        per_iteration: args.queries_per_iteration,
        patience,
    };
    let searcher = Searcher::new(&list, detector.as_ref(), &oracle, config);
    let symbolic = args.verify.checker()?;
    let gate = symbolic.as_ref().map(|c| SymbolicGate::new(c, &oracle));
    let job = Gated::new(&searcher, gate.as_ref(), args.symbolic_rounds);
    let start = Instant::now();
    let mut sink = AttackSink {
        writer: &mut writer,
        verified: verified_log.as_mut(),
        pending: Vec::new(),
        threshold: threshold.value,
        pb: &pb,
        start,
        already: done.len(),
        written: 0,
        scored: 0,
        attacked: 0,
        distance_sum: 0.0,
        calls: Default::default(),
        errors: Default::default(),
    };
    let in_flight = args
        .tasks_in_flight
        .unwrap_or(if detector.shares_batches() { 8 } else { 1 });
    let end = Pipeline::new(&oracle, Some(&stop))
        .with_in_flight(in_flight)
        .run(&todo, &job, &mut sink)?;
    let done_now = sink.written;
    let failing = equimorph::search::mostly_failing(&sink.calls, &sink.errors);
    let interrupted = || end.interrupted;
    let broken = end.broken.clone();
    pb.finish_and_clear();
    let (o, d) = (oracle.stats(), detector.stats());
    let stats = serde_json::json!({
        "note": "counters of the last attack invocation on this directory",
        "oracle": o,
        "detector": d,
        "seconds": start.elapsed().as_secs_f64(),
    });
    run_dir.write_stats(&stats)?;
    let summary = write_reports(&args.out, run_info)?;
    if summary.attacked == 0 {
        // No distance was measured: a mean of nothing is not 0.
        println!(
            "no task attacked, {} skipped, {} errors; threshold M < {:.4} ({})",
            summary.skipped.len(),
            summary.errors.len(),
            threshold.value,
            threshold.source
        );
    } else {
        println!(
            "{} tasks attacked, {} skipped, {} errors; worst-case distance L = {:.4} ± {:.4}; success rate {:.1} % (M < {:.4}, {}); \
             detector time {:.0} %",
            summary.attacked,
            summary.skipped.len(),
            summary.errors.len(),
            summary.mean_distance,
            summary.std_distance,
            summary.success_rate * 100.0,
            threshold.value,
            threshold.source,
            summary.detector_share * 100.0
        );
    }
    if let Some(notice) = summary.progress().incomplete_notice() {
        eprintln!("{notice}");
    }
    println!(
        "oracle: {} program runs, {} checks, {} cache hits; detector: {} sequences, {} truncated to the model's maximum",
        o.runs, o.checks, o.cache_hits, d.sequences, d.truncated
    );
    println!("report: {}", args.out.join("report.md").display());
    println!("        {}", args.out.join("report.html").display());
    if interrupted() {
        eprintln!(
            "interrupted: {done_now} of {} tasks done in this run; the summary and reports cover \
             every finished task; rerun the same command to resume",
            todo.len()
        );
        return Ok(ExitCode::from(INTERRUPTED));
    }
    if let Some(reason) = broken {
        eprintln!(
            "error: stopped: the sandbox failed on the last {} checks in a row, so no task can \
             be judged ({reason}); results so far are saved, and a rerun resumes",
            equimorph::oracle::BROKEN_AFTER
        );
        return Ok(ExitCode::from(2));
    }
    for (name, failed, calls) in failing {
        eprintln!(
            "warning: transform {name} failed on {failed} of its {calls} calls in this run (see \
             \"Transform failures\" in the report)"
        );
    }
    if summary.attacked == 0 {
        eprintln!(
            "error: no task was attacked ({} skipped, {} errors): see the reasons in {}",
            summary.skipped.len(),
            summary.errors.len(),
            run_dir.join("report.md").display()
        );
        return Ok(ExitCode::from(NOTHING_USABLE));
    }
    Ok(ExitCode::SUCCESS)
}

/// The run's threshold: fixed, or calibrated on the originals that pass their own tests (a
/// failing or unparseable one is never attacked, so it says nothing about this run's pairs).
fn calibrate(
    args: &AttackArgs,
    set: &equimorph::task::TaskSet,
    detector: &dyn equimorph::detector::Detector,
    oracle: &equimorph::oracle::Oracle,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Threshold> {
    let calibration_programs: Vec<CalibrationProgram<'_>> = match args.threshold {
        ThresholdSpec::Fixed(_) => Vec::new(),
        ThresholdSpec::Auto { .. } => {
            eprintln!(
                "validating {} originals for the threshold calibration…",
                set.tasks.len()
            );
            let ok: Vec<bool> = set
                .tasks
                .par_iter()
                .map(|t| {
                    !stop.load(std::sync::atomic::Ordering::Relaxed)
                        && oracle.validate(t).status == ValidationStatus::Ok
                })
                .collect();
            stop_point(
                stop,
                "validating the originals for the threshold",
                NOTHING_ATTACKED,
            )?;
            set.tasks
                .iter()
                .zip(ok)
                .filter(|(_, ok)| *ok)
                .map(|(t, _)| CalibrationProgram {
                    text: &t.source,
                    problem: t.problem_key(),
                })
                .collect()
        }
    };
    super::common::resolve_threshold(
        args.threshold,
        detector,
        &calibration_programs,
        args.seed,
        Some(stop),
    )
}

/// Appends each task's verified candidates (with --keep-verified) and result line, and keeps the progress bar's running figures.
struct AttackSink<'a> {
    writer: &'a mut ResultsWriter,
    verified: Option<&'a mut AppendLog<VerifiedLine>>,
    pending: Vec<VerifiedLine>,
    threshold: f32,
    pb: &'a ProgressBar,
    start: Instant,
    already: usize,
    written: usize,
    scored: u64,
    attacked: usize,
    distance_sum: f64,
    /// Transform applications and failures of this invocation.
    calls: std::collections::BTreeMap<String, u64>,
    errors: equimorph::search::TransformErrors,
}

impl Sink<SearchResult> for AttackSink<'_> {
    type Error = anyhow::Error;

    fn verified(&mut self, task: &Task, candidate: &Candidate) {
        if self.verified.is_some() {
            self.pending.push(VerifiedLine::of(task, candidate));
        }
    }

    fn finished(&mut self, task: &Task, outcome: TaskOutcome<SearchResult>) -> Result<()> {
        // The task's verified candidates first: its result line commits them.
        if let Some(log) = self.verified.as_mut() {
            log.append_all(&self.pending)?;
        }
        self.pending.clear();
        let line = match outcome {
            TaskOutcome::Done(r) => {
                for (name, n) in &r.calls {
                    *self.calls.entry(name.clone()).or_default() += n;
                }
                equimorph::search::add_errors(&mut self.errors, r.transform_errors.clone());
                self.scored += r.counts.scored;
                self.attacked += 1;
                self.distance_sum += f64::from(r.best.distance());
                ResultLine::attacked(task, r, self.threshold)
            }
            TaskOutcome::Skipped(why) => ResultLine::not_attacked(task, Status::Skipped, why),
            TaskOutcome::Failed(why) | TaskOutcome::Unverifiable(why) => {
                ResultLine::not_attacked(task, Status::Error, why)
            }
        };
        self.writer.append(&line).map_err(|e| {
            anyhow::anyhow!(
                "{e}\nthe {} result(s) written before this one are intact; make room (or choose \
                 another --out) and rerun the same command to resume",
                self.already + self.written
            )
        })?;
        self.written += 1;
        self.pb.inc(1);
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        self.pb.set_message(format!(
            "mean best L {:.3}, {:.0} candidates/s",
            if self.attacked > 0 {
                self.distance_sum / self.attacked as f64
            } else {
                0.0
            },
            self.scored as f64 / secs
        ));
        Ok(())
    }
}

/// Scores the reference benchmark's clone pairs with the run's detector into `out`, unless a
/// resumed run already holds this benchmark's scores by this detector.
fn write_reference_scores(
    path: &Path,
    seed: u64,
    detector: &dyn equimorph::detector::Detector,
    out: &Path,
) -> Result<()> {
    let source = path.display().to_string();
    if let Some(dir) = out.parent() {
        if let Some(r) = reference::read(dir) {
            if r.source == source && r.detector == detector.name() {
                return Ok(());
            }
        }
    }
    let bench = equimorph::task::gptclonebench::load(path, seed)
        .with_context(|| format!("--reference-clones {}", path.display()))?;
    let counts: Vec<String> = bench
        .counts()
        .iter()
        .filter(|(k, _)| k.as_str() != "non-clone")
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    eprintln!("scoring the reference clones ({})", counts.join(", "));
    let scores = reference::score(&bench, detector, &source)?;
    std::fs::write(out, serde_json::to_string(&scores)?)
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}

/// Distinct task ids of `tasks` that the run must finish (those of its shard).
fn planned_tasks(tasks: &[Task], shard: Option<Shard>) -> usize {
    tasks
        .iter()
        .filter(|t| shard.is_none_or(|s| s.owns(&t.id)))
        .map(|t| t.id.as_str())
        .collect::<std::collections::HashSet<_>>()
        .len()
}
