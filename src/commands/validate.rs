//! `equimorph validate`: run every original twice and classify it.

use super::common::{load_dataset, progress, DatasetArgs, OracleOptions};
use anyhow::Result;
use clap::Args;
use equimorph::oracle::{Validation, ValidationStatus};
use equimorph::task::TaskFormat;
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Print {"ok": N, "failing": [...], "flaky": [...], "timeout": [...], "isolation": {...}}.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// Runs `validate`. Exit status 0 when every task is ok, 1 otherwise.
pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let oracle = args.oracle.oracle()?;
    let start = std::time::Instant::now();
    let pb = progress(set.tasks.len() as u64, args.quiet || args.json);
    let results: Vec<Validation> = set
        .tasks
        .par_iter()
        .map(|t| {
            let v = oracle.validate(t);
            pb.inc(1);
            v
        })
        .collect();
    pb.finish_and_clear();
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
            "seconds": start.elapsed().as_secs_f64(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let iso = oracle.isolation();
        println!(
            "sandbox: {} (uid {}, network isolated: {}, read-only filesystem: {}, pid namespace: {}; {})",
            iso.launcher,
            iso.uid.map_or("?".into(), |u| u.to_string()),
            iso.network_isolated,
            iso.filesystem_read_only,
            iso.pid_namespace,
            iso.rlimits.join(", ")
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
    Ok(if ok == results.len() && set.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
