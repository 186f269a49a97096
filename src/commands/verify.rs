//! `equimorph verify RUN_DIR --tasks TASKS2`: re-judges a finished run's winners or variants
//! against stronger tests.

use super::common::{load_dataset, DatasetArgs, OracleOptions, VerifyArgs};
use anyhow::{Context, Result};
use clap::Args;
use equimorph::task::TaskFormat;
use equimorph::verify::{rejudge, reported, Tally, Verdict};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyRunArgs {
    /// A finished `attack` or `augment` run directory.
    run: PathBuf,
    /// The tasks to judge against (typically `equimorph tests grow`'s output); ids must match
    /// the run's.
    #[arg(long, value_name = "TASKS")]
    tasks: PathBuf,
    /// Input format of --tasks (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    #[command(flatten)]
    dataset: DatasetArgs,
    #[command(flatten)]
    verify: VerifyArgs,
    /// Print the verdicts as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// Runs `verify`: exit 0 when every re-judged program still passes, 1 otherwise. Writes
/// `verify.json` in the run directory.
pub fn run(args: VerifyRunArgs) -> Result<ExitCode> {
    let (kind, programs) = reported(&args.run)?;
    let set = load_dataset(&args.tasks, args.format, "--format", &args.dataset)?;
    let oracle = args.oracle.oracle()?;
    let symbolic = args.verify.checker()?;
    let judged = rejudge(&oracle, &set, programs, symbolic.as_ref());
    let tally = Tally::with_symbolic(&judged, symbolic.is_some());
    let out = serde_json::json!({
        "run": args.run.display().to_string(),
        "kind": kind,
        "tasks": args.tasks.display().to_string(),
        "tally": tally,
        "programs": judged,
    });
    let path = args.run.join("verify.json");
    std::fs::write(&path, serde_json::to_string_pretty(&out)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for j in &judged {
            let what = match &j.verdict {
                Verdict::Passes => continue,
                Verdict::Rejected { test, grown, call } => format!(
                    "rejected by {} test {test}{}",
                    if *grown { "grown" } else { "original" },
                    call.as_deref()
                        .map(|c| format!(" ({c})"))
                        .unwrap_or_default()
                ),
                Verdict::RejectedSymbolically { call } => {
                    format!("rejected by a symbolic counterexample: {call}")
                }
                Verdict::NoTask => "no task with this id in --tasks".into(),
                Verdict::OriginalInvalid { reason } => {
                    format!("no verdict: the original fails the new tests ({reason})")
                }
                Verdict::Fault { reason } => format!("no verdict: {reason}"),
            };
            println!("{} ({}): {what}", j.program.task_id, j.program.label);
        }
        let noun = if kind == "attack" {
            "winner(s)"
        } else {
            "variant(s)"
        };
        println!(
            "{} of {} {noun} still pass the tests of {}; {} rejected ({} by a grown test), {} by a \
             symbolic counterexample, {} without a verdict",
            tally.passes,
            tally.programs,
            args.tasks.display(),
            tally.rejected,
            tally.rejected_by_grown,
            tally.rejected_symbolically,
            tally.no_verdict
        );
        if let Some(s) = &tally.symbolic {
            let mut line = format!(
                "symbolic check: CrossHair examined {} of {} {noun}: {} confirmed \
                 counterexample(s), {} unconfirmed, {} failed or out of time, {} with no \
                 difference found",
                s.examined,
                tally.programs,
                s.counterexamples,
                s.unconfirmed,
                s.failed,
                s.no_difference
            );
            let skipped: usize = s.not_applicable.values().sum();
            if skipped > 0 {
                let reasons: Vec<String> = s
                    .not_applicable
                    .iter()
                    .map(|(r, n)| format!("{n}: {r}"))
                    .collect();
                line.push_str(&format!(
                    "; {skipped} it could not examine ({})",
                    reasons.join("; ")
                ));
            }
            if s.not_run > 0 {
                line.push_str(&format!(
                    "; {} not given to it (rejected by a test, or without a verdict)",
                    s.not_run
                ));
            }
            println!("{line}");
        }
        println!("verdicts: {}", path.display());
    }
    Ok(
        if tally.rejected + tally.rejected_symbolically + tally.no_verdict == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}
