//! `equimorph check`: A(x, x') for one candidate, with the first differing test.

use super::common::{load_tasks, read_text, OracleOptions};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use equimorph::oracle::ValidationStatus;
use equimorph::program::validate_as;
use equimorph::task::TaskFormat;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Task file or directory.
    tasks: PathBuf,
    /// The task's id.
    #[arg(long)]
    id: String,
    /// The candidate program (`-` for stdin).
    #[arg(long)]
    candidate: PathBuf,
    /// Input format (default: guessed from the path).
    #[arg(long, value_enum)]
    format: Option<TaskFormat>,
    /// Print the decision as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    oracle: OracleOptions,
}

/// Runs `check`: exit 0 = equivalent, 1 = not equivalent, 2 = error (an invalid candidate
/// included: one that does not parse or compile gets no verdict).
pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let set = load_tasks(&args.tasks, args.format)?;
    let task = set
        .get(&args.id)
        .ok_or_else(|| anyhow!("no task with id {:?} in {}", args.id, args.tasks.display()))?;
    let candidate = read_text(&args.candidate)?;
    // An invalid candidate is never a verdict: it is an error of the input (exit 2).
    if let Err(e) = validate_as(task.language, &candidate) {
        bail!(
            "the candidate {} is not a valid {} program ({e}): no verdict",
            args.candidate.display(),
            task.language.title()
        );
    }
    let oracle = args.oracle.oracle()?;
    let validation = oracle.validate(task);
    let Some(reference) = validation
        .reference
        .as_ref()
        .filter(|_| validation.status == ValidationStatus::Ok)
    else {
        return Err(anyhow!(
            "the original of {:?} is {:?}: {}",
            task.id,
            validation.status,
            validation.reason.unwrap_or_default()
        ));
    };
    // A fault of the sandbox that the original shares is an error (exit 2), never "not
    // equivalent"; one only the candidate causes (it kills its harness) is a verdict (exit 1).
    let decision = oracle.check(task, reference, &candidate)?;
    if let Some(why) = &decision.invalid {
        bail!(
            "the candidate {} does not compile, so it is not a program: no verdict\n{}",
            args.candidate.display(),
            why.trim_end()
        );
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&decision)?);
    } else if decision.equivalent {
        println!(
            "equivalent: all {} tests behave like the original",
            reference.runs.len()
        );
    } else if let Some(f) = &decision.failure {
        match (&f.sandbox_failure, f.left_running) {
            (Some(why), _) => println!("NOT equivalent: test {}: {why}", f.test),
            (None, Some(n)) => println!(
                "NOT equivalent: test {}: the candidate left {n} process(es) running when it \
                 exited; the original left none",
                f.test
            ),
            (None, None) => println!(
                "NOT equivalent: test {}{} differs",
                f.test,
                if f.grown { " (grown)" } else { "" }
            ),
        }
        if let Some(call) = &f.call {
            println!("--- call ---\n{call}");
        }
        if !f.input.is_empty() {
            println!("--- input ---\n{}", f.input.trim_end());
        }
        println!(
            "--- expected ({:?}) ---\n{}",
            f.expected_class,
            f.expected.trim_end()
        );
        println!("--- got ({:?}) ---\n{}", f.got_class, f.got.trim_end());
        if !f.stderr_tail.trim().is_empty() {
            println!("--- stderr (tail) ---\n{}", f.stderr_tail.trim_end());
        }
    }
    Ok(if decision.equivalent {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
