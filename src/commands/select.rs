//! `equimorph select`: best-of-N selection among candidate implementations of SPTs.

use super::common::{
    interrupt_flag, load_tasks, progress, DetectorArgs, OracleOptions, SandboxOptions, INTERRUPTED,
};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::oracle::ValidationStatus;
use equimorph::select::{
    aggregate, discover, done_keys, evaluate_task, write_selected, CandidateFile, Contender,
    Outcome, PairLog, SelectionInfo,
};
use equimorph::task::TaskFormat;
use equimorph::transform::LoadedTransform;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

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
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) detector: DetectorArgs,
    #[command(flatten)]
    pub(super) sandbox: SandboxOptions,
    #[command(flatten)]
    pub(super) oracle: OracleOptions,
}

/// Runs `select`.
pub fn run(args: SelectArgs) -> Result<ExitCode> {
    if args.max_broken.is_some_and(|m| !(0.0..=1.0).contains(&m)) {
        bail!("--max-broken must lie in [0, 1]");
    }
    let candidates = discover(&args.candidates)?;
    let mut set = load_tasks(&args.tasks, args.format)?;
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
    let detector = args.detector.open()?;
    let oracle = args.oracle.oracle()?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let (log, mut records) = PairLog::open(&args.out.join("pairs.jsonl"))?;
    let done = done_keys(&records);

    let pb = progress(set.tasks.len() as u64, args.quiet);
    pb.set_message("validating originals");
    let validations: Vec<_> = set.tasks.par_iter().map(|t| oracle.validate(t)).collect();
    pb.set_length((set.tasks.len() * candidates.len()) as u64);
    pb.set_message("evaluating candidates");
    let mut excluded = Vec::new();
    let mut work = Vec::new();
    for (task, v) in set.tasks.iter().zip(validations) {
        match (v.status, v.reference) {
            (ValidationStatus::Ok, Some(reference)) => work.push((task, reference)),
            (status, _) => {
                pb.inc(candidates.len() as u64);
                excluded.push((
                    task.id.clone(),
                    format!("original is {status:?}: {}", v.reason.unwrap_or_default())
                        .to_lowercase(),
                ));
            }
        }
    }
    if work.is_empty() {
        bail!("no validation task has a working original: {excluded:?}");
    }
    let stop = interrupt_flag()?;
    let interrupted = || stop.load(std::sync::atomic::Ordering::Relaxed);
    let log = Mutex::new(log);
    let new_records = Mutex::new(Vec::new());
    let failures = Mutex::new(Vec::new());
    work.par_iter().for_each(|(task, reference)| {
        if interrupted() || oracle.broken() {
            return;
        }
        let todo: Vec<Contender<'_>> = candidates
            .iter()
            .zip(&loaded)
            .filter(|(c, _)| !done.contains(&(c.group.clone(), c.file.clone(), task.id.clone())))
            .map(|(c, l)| Contender {
                candidate: c,
                transform: l.as_ref().map_err(Clone::clone),
            })
            .collect();
        pb.inc((candidates.len() - todo.len()) as u64);
        if todo.is_empty() {
            return;
        }
        match evaluate_task(
            task,
            reference,
            &todo,
            detector.as_ref(),
            &oracle,
            args.seed,
        ) {
            Ok(recs) => {
                // A candidate that did not load, or whose check the sandbox failed, is judged
                // again next run.
                let lasting: Vec<_> = recs.iter().filter(|r| !r.is_transient()).cloned().collect();
                let appended = log.lock().map(|mut l| l.append(&lasting));
                if let Ok(Err(e)) = appended {
                    lock(&failures).push((task.id.clone(), e.to_string()));
                }
                lock(&new_records).extend(recs);
            }
            Err(e) => lock(&failures).push((task.id.clone(), format!("detector: {e}"))),
        }
        pb.inc(todo.len() as u64);
    });
    pb.finish_and_clear();
    records.extend(new_records.into_inner().unwrap_or_default());
    let failures = failures.into_inner().unwrap_or_default();

    let task_ids: Vec<String> = work.iter().map(|(t, _)| t.id.clone()).collect();
    let scores = aggregate(&candidates, &names, &records, &task_ids, args.max_broken);
    let info = SelectionInfo {
        detector: detector.name().to_string(),
        tasks_path: args.tasks.display().to_string(),
        seed: args.seed,
        excluded,
        max_broken: args.max_broken,
    };
    let write = |name: &str, text: String| -> Result<()> {
        let p = args.out.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    write("selection.json", serde_json::to_string_pretty(&scores)?)?;
    write("selection.md", equimorph::select::markdown(&scores, &info))?;
    write("selection.html", equimorph::select::html(&scores, &info))?;
    let selected_dir = args.out.join("selected");
    let written = write_selected(&selected_dir, &candidates, &scores)?;

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
        selected_dir.display()
    );
    println!("report: {}", args.out.join("selection.md").display());
    println!("        {}", args.out.join("selection.html").display());
    if interrupted() {
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
    if oracle.broken() || faulted > 0 {
        eprintln!(
            "error: {faulted} evaluation(s) had no verdict because the sandbox failed{}; they \
             were not stored: rerun the same command to judge them",
            if oracle.broken() {
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
