//! `equimorph validate`: run every original twice and classify it.

use super::common::{
    interrupt_flag, load_dataset, progress, stop_point, DatasetArgs, OracleOptions, INTERRUPTED,
    NOTHING_USABLE,
};
use anyhow::Result;
use clap::Args;
use equimorph::oracle::{Oracle, ResourceLimits, Validation, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::TaskFormat;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

/// Arguments of `validate`.
#[derive(Args)]
pub struct ValidateArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    /// Print {"ok": N, "failing": [...], "flaky": [...], "timeout": [...], "isolation": {...},
    /// "limits": {"python": [...], "java": [...]}}.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// The process (thread) limit of a Java worker's user, at least: a JVM needs about fifteen
/// threads of its own (`JVM_PROCESSES` in `src/oracle/java.rs`).
const JVM_PROCESSES: u64 = 4096;

/// The limits a program of `language` runs under, in words. Python programs get the rlimits
/// as they are; a Java program runs in a warm JVM (`src/oracle/java.rs`): the address-space
/// limit becomes the heap (`-Xmx`, no `RLIMIT_AS`, since a JVM reserves far more than it
/// uses), CPU time is bounded by each run's wall-time limit (the worker is replaced when a run
/// overruns), and the process limit has headroom for the JVM's own threads.
fn limits_of(language: Language, limits: &ResourceLimits, python: &[String]) -> Vec<String> {
    match language {
        Language::Python => python.to_vec(),
        Language::Java => vec![
            format!(
                "heap (-Xmx) {} MiB, no address-space limit",
                (limits.address_space >> 20).max(64)
            ),
            "cpu: each run's wall-time limit (no cpu rlimit)".into(),
            format!("file size {} MiB", limits.file_size >> 20),
            "no core dumps".into(),
            format!(
                "processes (threads) {}",
                limits.processes.max(JVM_PROCESSES)
            ),
            format!("temporary directory {} MiB", limits.tmp_size >> 20),
        ],
    }
}

/// The limits of each language the tasks are written in (Python's when there is no task).
fn limits_by_language(
    oracle: &Oracle,
    languages: impl Iterator<Item = Language>,
) -> BTreeMap<&'static str, Vec<String>> {
    let mut out = BTreeMap::new();
    for language in languages {
        out.entry(language.name()).or_insert_with(|| {
            limits_of(
                language,
                &oracle.config().limits,
                &oracle.isolation().rlimits,
            )
        });
    }
    if out.is_empty() {
        out.insert(Language::Python.name(), oracle.isolation().rlimits.clone());
    }
    out
}

/// Runs `validate`. Exit status 0 when every task's original is ok, 1 when one is not (or
/// there is no task), 130 when interrupted. Load warnings (a problem with no sample test, a
/// malformed line) are notes, not a negative answer.
pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    // Before any work: SIGINT/SIGTERM stop the run cleanly (exit 130) from here on.
    let stop = interrupt_flag()?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    stop_point(&stop, "loading the tasks", "no task was validated")?;
    let oracle = args.oracle.oracle()?;
    stop_point(&stop, "starting the sandbox", "no task was validated")?;
    let start = std::time::Instant::now();
    let pb = progress(set.tasks.len() as u64, args.quiet || args.json);
    let results: Vec<Validation> = set
        .tasks
        .par_iter()
        .filter_map(|t| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let v = oracle.validate(t);
            pb.inc(1);
            Some(v)
        })
        .collect();
    pb.finish_and_clear();
    let pending = set.tasks.len() - results.len();
    let limits = limits_by_language(&oracle, set.tasks.iter().map(|t| t.language));
    let of = |s: ValidationStatus| -> Vec<&Validation> {
        results.iter().filter(|v| v.status == s).collect()
    };
    let ok = of(ValidationStatus::Ok).len();
    if args.json {
        let list = |s| -> Vec<serde_json::Value> {
            of(s)
                .iter()
                .map(|v| serde_json::json!({"id": v.id, "reason": v.reason}))
                .collect()
        };
        let out = serde_json::json!({
            "ok": ok,
            "failing": list(ValidationStatus::Failing),
            "flaky": list(ValidationStatus::Flaky),
            "timeout": list(ValidationStatus::Timeout),
            "unparseable": list(ValidationStatus::Unparseable),
            "load_problems": set.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            "dataset": set.report(),
            "adequacy": equimorph::adequacy::SetAdequacy::of(&set.tasks),
            "tests": set
                .tasks
                .iter()
                .map(|t| (t.id.clone(), equimorph::adequacy::TestsRecord::of(t)))
                .collect::<std::collections::BTreeMap<_, _>>(),
            "isolation": oracle.isolation(),
            "limits": limits,
            "complete": pending == 0,
            "pending": pending,
            "seconds": start.elapsed().as_secs_f64(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let iso = oracle.isolation();
        let limits: Vec<String> = limits
            .iter()
            .map(|(language, l)| format!("{language}: {}", l.join(", ")))
            .collect();
        println!(
            "sandbox: {} (uid {}, network isolated: {}, read-only filesystem: {}, pid namespace: {}; {})",
            iso.launcher,
            iso.uid.map_or("?".into(), |u| u.to_string()),
            iso.network_isolated,
            iso.filesystem_read_only,
            iso.pid_namespace,
            limits.join("; ")
        );
        for v in &results {
            if v.status != ValidationStatus::Ok {
                println!(
                    "{:<11} {}: {}",
                    format!("{:?}", v.status).to_lowercase(),
                    v.id,
                    v.reason.as_deref().unwrap_or("")
                );
            }
        }
        println!(
            "{}",
            equimorph::adequacy::SetAdequacy::of(&set.tasks).describe()
        );
        println!(
            "{ok} ok, {} failing, {} flaky, {} timeout, {} unparseable, {} load warning(s) ({} tasks in {:.1}s)",
            of(ValidationStatus::Failing).len(),
            of(ValidationStatus::Flaky).len(),
            of(ValidationStatus::Timeout).len(),
            of(ValidationStatus::Unparseable).len(),
            set.problems.len(),
            results.len(),
            start.elapsed().as_secs_f64()
        );
    }
    if !set.problems.is_empty() && !args.json {
        println!(
            "note: {} load warning(s) above (on stderr): notes on the input, not failures of \
             an original",
            set.problems.len()
        );
    }
    if pending > 0 {
        eprintln!(
            "interrupted: validated {} of {} task(s); rerun the same command to validate them all",
            results.len(),
            set.tasks.len()
        );
        return Ok(ExitCode::from(INTERRUPTED));
    }
    // 1 is a negative answer: some original is not ok (or there was none to check).
    Ok(if ok == results.len() && !results.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOTHING_USABLE)
    })
}
