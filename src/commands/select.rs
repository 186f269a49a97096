//! `equimorph select`: best-of-N selection among candidate implementations of SPTs.

use super::common::{
    detector_settings, interrupt_flag, load_dataset, load_tasks, progress, stop_point,
    task_settings, DatasetArgs, DetectorArgs, OracleOptions, SandboxOptions, WindowArgs,
    INTERRUPTED, NOTHING_USABLE,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::pipeline::{Pipeline, Sink, TaskOutcome};
use equimorph::report::shard::Shard;
use equimorph::run::{digest_setting, JobKind, RunDir, RunSettings};
use equimorph::select::{
    aggregate, discover, done_keys, write_selected, CandidateFile, CandidateScore, Contender,
    Outcome, PairLog, SelectJob, SelectionInfo,
};
use equimorph::task::{Task, TaskFormat};
use equimorph::transform::LoadedTransform;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `select`.
#[derive(Args)]
pub struct SelectArgs {
    /// Directory with one subdirectory per SPT (a group), each holding candidate
    /// implementations of it: `.py` scripts or `.wasm` components.
    pub(super) candidates: PathBuf,
    /// Validation tasks (their originals are validated first; failing ones are not used).
    #[arg(long)]
    pub(super) tasks: PathBuf,
    /// Output directory: selection.json, selection.md, selection.html, selected/ (the winners,
    /// a transform set for `attack --transforms`), pairs.jsonl (finished evaluations; a rerun
    /// with the same directory skips them).
    #[arg(long)]
    pub(super) out: PathBuf,
    /// Input format of the tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    pub(super) format: Option<TaskFormat>,
    #[command(flatten)]
    pub(super) dataset: DatasetArgs,
    /// Use at most N validation tasks: a sample drawn with --seed, kept in file order.
    #[arg(long, value_name = "N")]
    pub(super) limit: Option<usize>,
    /// Run seed: every candidate is applied to a task with the same seed, derived from this.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Only candidates whose broken + invalid outputs are at most this share of their
    /// applicable outputs may win (default: no limit, the paper's rule: highest reward wins).
    #[arg(long, value_name = "RATE")]
    pub(super) max_broken: Option<f64>,
    /// Evaluate only shard I of N of the tasks (a stable split by task id, after --limit);
    /// `equimorph merge` combines the shard directories into one selection.
    #[arg(long, value_name = "I/N")]
    pub(super) shard: Option<Shard>,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Start over in --out even if it holds another run (its outputs are removed first).
    #[arg(long)]
    pub(super) force_new: bool,
    #[command(flatten)]
    pub(super) window: WindowArgs,
    #[command(flatten)]
    pub(super) detector: DetectorArgs,
    #[command(flatten)]
    pub(super) sandbox: SandboxOptions,
    #[command(flatten)]
    pub(super) oracle: OracleOptions,
}

/// Runs `select`.
pub fn run(args: SelectArgs) -> Result<ExitCode> {
    // Before any work: a signal while loading stops the run as cleanly as one during the tasks.
    let stop = interrupt_flag()?;
    if args.max_broken.is_some_and(|m| !(0.0..=1.0).contains(&m)) {
        bail!("--max-broken must lie in [0, 1]");
    }
    let candidates = discover(&args.candidates)?;
    let mut set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    if let Some(limit) = args.limit {
        if limit == 0 {
            bail!("--limit must be at least 1");
        }
        if set.tasks.len() > limit {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
            let indices: Vec<usize> = (0..set.tasks.len()).collect();
            let mut keep: Vec<usize> = indices.choose_multiple(&mut rng, limit).copied().collect();
            keep.sort_unstable();
            set.tasks = keep.into_iter().map(|i| set.tasks[i].clone()).collect();
        }
    }
    if set.tasks.is_empty() {
        bail!("{} holds no task", args.tasks.display());
    }
    let runtime = args.sandbox.runtime()?;
    let loaded: Vec<Result<LoadedTransform, String>> = candidates
        .par_iter()
        .map(|c| runtime.load(&c.path).map_err(|e| e.to_string()))
        .collect();
    for (c, l) in candidates.iter().zip(&loaded) {
        if let Err(e) = l {
            eprintln!(
                "warning: candidate {}/{} does not load: {e}",
                c.group, c.file
            );
        }
    }
    let names: BTreeMap<(String, String), String> = candidates
        .iter()
        .zip(&loaded)
        .filter_map(|(c, l)| {
            l.as_ref()
                .ok()
                .map(|t| ((c.group.clone(), c.file.clone()), t.name.clone()))
        })
        .collect();
    let mut settings = RunSettings::new();
    task_settings(&mut settings, &args.tasks);
    args.dataset.record(&mut settings);
    detector_settings(&mut settings, &args.detector.detector);
    args.detector.record(&mut settings)?;
    args.oracle.record(&mut settings);
    settings
        .set("candidates", args.candidates.display())
        .set("candidates digest", digest_setting(&args.candidates))
        .set("seed", args.seed)
        .set_opt("limit", args.limit)
        .set_opt("max broken", args.max_broken)
        .set("window", args.window.enabled())
        .set_opt("shard", args.shard);
    let (run_dir, _) = RunDir::open(&args.out, JobKind::Select, settings, args.force_new)?;
    let detector = args.detector.open()?;
    let oracle = args.oracle.oracle()?;
    let run_info = SelectRun {
        kind: "select".into(),
        candidates: args.candidates.display().to_string(),
        tasks: args.tasks.display().to_string(),
        seed: args.seed,
        limit: args.limit,
        max_broken: args.max_broken,
        detector: detector.name().to_string(),
        names: names
            .iter()
            .map(|((g, f), n)| (g.clone(), f.clone(), n.clone()))
            .collect(),
        shard: args.shard.map(|s| s.to_string()),
        dataset: Some(set.report()),
        adequacy: Some(equimorph::adequacy::SetAdequacy::of(&set.tasks)),
    };
    run_dir.write_run_json(&run_info)?;
    let (mut log, mut records) = PairLog::open(&run_dir.join("pairs.jsonl"))?;
    let todo: Vec<&Task> = set
        .tasks
        .iter()
        .filter(|t| args.shard.is_none_or(|s| s.owns(&t.id)))
        .collect();
    let pb = progress(todo.len() as u64, args.quiet);
    pb.set_message("evaluating candidates");
    let job = SelectJob {
        contenders: candidates
            .iter()
            .zip(&loaded)
            .map(|(c, l)| Contender {
                candidate: c,
                transform: l.as_ref().map_err(Clone::clone),
            })
            .collect(),
        done: done_keys(&records),
        detector: detector.as_ref(),
        oracle: &oracle,
        seed: args.seed,
        window: args.window.enabled(),
    };
    stop_point(&stop, "loading the candidates", "no task was evaluated")?;
    let mut sink = SelectSink {
        log: &mut log,
        records: Vec::new(),
        used: Vec::new(),
        excluded: Vec::new(),
        failures: Vec::new(),
        pb: &pb,
    };
    let end = Pipeline::new(&oracle, Some(&stop)).run(&todo, &job, &mut sink)?;
    pb.finish_and_clear();
    records.extend(std::mem::take(&mut sink.records));
    let SelectSink {
        used,
        excluded,
        failures,
        ..
    } = sink;
    if used.is_empty() && !end.interrupted {
        eprintln!(
            "error: nothing was evaluated: no validation task has a working original: {excluded:?}"
        );
        return Ok(ExitCode::from(NOTHING_USABLE));
    }
    let state = SelectState {
        used: used.clone(),
        excluded: excluded.clone(),
    };
    let state_json = args.out.join("state.json");
    std::fs::write(&state_json, serde_json::to_string_pretty(&state)?)
        .with_context(|| format!("cannot write {}", state_json.display()))?;
    let (scores, written, info) =
        write_outputs(&args.out, &run_info, &candidates, &records, state)?;
    let task_ids = used;
    print_summary(&candidates, &scores, task_ids.len());
    if !info.excluded.is_empty() {
        println!(
            "{} task(s) not used: their original is not ok (see selection.md)",
            info.excluded.len()
        );
    }
    println!(
        "selected: {} winner(s) in {}",
        written.len(),
        args.out.join("selected").display()
    );
    println!("report: {}", args.out.join("selection.md").display());
    println!("        {}", args.out.join("selection.html").display());
    if end.interrupted {
        eprintln!(
            "interrupted: the tables cover the evaluations finished so far; rerun the same \
             command to resume"
        );
        return Ok(ExitCode::from(INTERRUPTED));
    }
    // Checks the sandbox failed have no verdict: they are not stored, and the run is not done.
    let faulted = records
        .iter()
        .filter(|r| matches!(&r.outcome, Outcome::Error { kind, .. } if kind == "oracle"))
        .count();
    if end.broken.is_some() || faulted > 0 {
        eprintln!(
            "error: {faulted} evaluation(s) had no verdict because the sandbox failed{}; they \
             were not stored: rerun the same command to judge them",
            if end.broken.is_some() {
                " (it failed on every recent check, so the run stopped early)"
            } else {
                ""
            }
        );
        return Ok(ExitCode::from(2));
    }
    if !failures.is_empty() {
        for (id, why) in &failures {
            eprintln!("error: task {id}: {why}");
        }
        eprintln!(
            "{} task(s) could not be evaluated; rerun the same command to retry them",
            failures.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `run.json` of a select run: its settings (and the candidates' transform names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectRun {
    /// Always "select".
    kind: String,
    /// The candidates directory.
    candidates: String,
    /// The task file.
    tasks: String,
    /// Run seed.
    seed: u64,
    /// --limit.
    limit: Option<usize>,
    /// --max-broken.
    max_broken: Option<f64>,
    /// The detector.
    detector: String,
    /// (group, file, transform name) of every candidate that loads.
    names: Vec<(String, String, String)>,
    /// `I/N` of a shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    /// What the task loader kept and skipped, by reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dataset: Option<equimorph::task::LoadReport>,
    /// How strong the tasks' tests are: counts, and recorded mutation scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adequacy: Option<equimorph::adequacy::SetAdequacy>,
}

/// `state.json`: the tasks a select run used and those it left out (original not ok).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SelectState {
    used: Vec<String>,
    excluded: Vec<(String, String)>,
}

/// Aggregates `records` and writes selection.json, .md, .html and selected/.
fn write_outputs(
    out: &Path,
    run: &SelectRun,
    candidates: &[CandidateFile],
    records: &[equimorph::select::PairRecord],
    state: SelectState,
) -> Result<(Vec<CandidateScore>, Vec<PathBuf>, SelectionInfo)> {
    let names: BTreeMap<(String, String), String> = run
        .names
        .iter()
        .map(|(g, f, n)| ((g.clone(), f.clone()), n.clone()))
        .collect();
    let scores = aggregate(candidates, &names, records, &state.used, run.max_broken);
    let info = SelectionInfo {
        detector: run.detector.clone(),
        tasks_path: run.tasks.clone(),
        seed: run.seed,
        excluded: state.excluded,
        max_broken: run.max_broken,
        adequacy: run.adequacy.clone(),
    };
    let write = |name: &str, text: String| -> Result<()> {
        let p = out.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    write("selection.json", serde_json::to_string_pretty(&scores)?)?;
    write("selection.md", equimorph::select::markdown(&scores, &info))?;
    write("selection.html", equimorph::select::html(&scores, &info))?;
    let written = write_selected(&out.join("selected"), candidates, &scores)?;
    Ok((scores, written, info))
}

/// `merge` of select shard directories: one selection over all their tasks.
pub fn merge(
    out: &Path,
    dirs: &[&Path],
    run_json: &super::common::MergedRunJson<'_>,
) -> Result<()> {
    let mut run: Option<SelectRun> = None;
    let mut state = SelectState::default();
    let mut records = Vec::new();
    for dir in dirs {
        let read = |name: &str| -> Result<String> {
            let p = dir.join(name);
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))
        };
        let mut this: SelectRun = serde_json::from_str(&read("run.json")?)?;
        this.shard = None;
        match &run {
            Some(r) if *r != this => bail!(
                "not shards of one run: {} was run with other settings",
                dir.display()
            ),
            Some(_) => {}
            None => run = Some(this),
        }
        let s: SelectState = serde_json::from_str(&read("state.json")?)?;
        if let Some(id) = s.used.iter().find(|id| state.used.contains(id)) {
            bail!("not shards of one run: task {id} is in two of them");
        }
        state.used.extend(s.used);
        state.excluded.extend(s.excluded);
        records.extend(equimorph::report::results::read_jsonl::<
            equimorph::select::PairRecord,
        >(&dir.join("pairs.jsonl"))?);
    }
    let run = run.context("no shard directory given")?;
    let order: BTreeMap<String, usize> = load_tasks(Path::new(&run.tasks), None)
        .map(|set| {
            set.tasks
                .into_iter()
                .enumerate()
                .map(|(i, t)| (t.id, i))
                .collect()
        })
        .unwrap_or_default();
    let rank = |id: &str| order.get(id).copied().unwrap_or(usize::MAX);
    state.used.sort_by_key(|id| rank(id));
    state.excluded.sort_by_key(|(id, _)| rank(id));
    records.sort_by_key(|r| rank(&r.task));
    equimorph::report::results::write_jsonl(&out.join("pairs.jsonl"), &records)?;
    run_json.write(JobKind::Select, &run)?;
    std::fs::write(
        out.join("state.json"),
        serde_json::to_string_pretty(&state)?,
    )?;
    let candidates = discover(Path::new(&run.candidates))?;
    let n = state.used.len();
    let (scores, written, _) = write_outputs(out, &run, &candidates, &records, state)?;
    print_summary(&candidates, &scores, n);
    println!(
        "merged {} shard(s); selected: {} winner(s) in {}",
        dirs.len(),
        written.len(),
        out.join("selected").display()
    );
    Ok(())
}

/// Appends each task's lasting evaluations to the log and sorts tasks into used / left out.
struct SelectSink<'a> {
    log: &'a mut PairLog,
    records: Vec<equimorph::select::PairRecord>,
    used: Vec<String>,
    excluded: Vec<(String, String)>,
    failures: Vec<(String, String)>,
    pb: &'a indicatif::ProgressBar,
}

impl Sink<Vec<equimorph::select::PairRecord>> for SelectSink<'_> {
    type Error = anyhow::Error;

    fn finished(
        &mut self,
        task: &Task,
        outcome: TaskOutcome<Vec<equimorph::select::PairRecord>>,
    ) -> Result<()> {
        self.pb.inc(1);
        match outcome {
            TaskOutcome::Done(recs) => {
                self.used.push(task.id.clone());
                // A candidate that did not load, or whose check the sandbox failed, is judged
                // again next run.
                let lasting: Vec<_> = recs.iter().filter(|r| !r.is_transient()).cloned().collect();
                if let Err(e) = self.log.append(&lasting) {
                    self.failures.push((task.id.clone(), e.to_string()));
                }
                self.records.extend(recs);
            }
            TaskOutcome::Skipped(why) | TaskOutcome::Unverifiable(why) => {
                self.excluded.push((task.id.clone(), why))
            }
            TaskOutcome::Failed(why) => self.failures.push((task.id.clone(), why)),
        }
        Ok(())
    }
}

fn print_summary(
    candidates: &[CandidateFile],
    scores: &[equimorph::select::CandidateScore],
    n: usize,
) {
    let groups: std::collections::BTreeSet<&str> =
        candidates.iter().map(|c| c.group.as_str()).collect();
    println!(
        "{} candidates in {} groups, {n} validation tasks",
        candidates.len(),
        groups.len()
    );
    println!(
        "{:<24} {:<20} {:>8} {:>10} {:>7} {:>7} {:>7} {:>8}",
        "GROUP", "CANDIDATE", "CORRECT", "APPLICABLE", "BROKEN", "INVALID", "ERRORS", "REWARD"
    );
    for s in scores {
        println!(
            "{:<24} {:<20} {:>8} {:>10} {:>7} {:>7} {:>7} {:>8.4}{}",
            s.group,
            s.file,
            s.correct,
            s.applicable,
            s.broken,
            s.invalid,
            s.errors.values().sum::<usize>(),
            s.reward,
            if s.selected { "  <- selected" } else { "" }
        );
    }
}
