//! The `equimorph` command line: parses arguments and calls one function per subcommand.

mod commands;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use equimorph::job::exit;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "equimorph",
    version,
    about = "Search for semantic-preserving rewrites of Python, Java and C++ programs that fool \
             code-clone detectors",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The environment variables equimorph reads (shown by `--help`, before the exit codes).
const ENVIRONMENT: &str = "\
Environment:
  EQUIMORPH_HOME        models, ONNX Runtime, virtualenvs (default: .equimorph in the sources;
                        ~/.cache/equimorph when installed with pip)
  EQUIMORPH_CACHE       compiled components, LLM replies (default: ~/.cache/equimorph)
  EQUIMORPH_TRANSFORMS  the default transform set (default: build/transforms in the sources;
                        PREFIX/share/equimorph/transforms when installed)
  EQUIMORPH_LOG         log filter: debug, equimorph=trace... (default: warn)
  EQUIMORPH_PYTHON      the Python of model export, training (torch) and CrossHair (default:
                        the virtualenv setup made)
  ORT_DYLIB_PATH        the ONNX Runtime library (default: the one `make setup` or
                        `equimorph setup` puts in EQUIMORPH_HOME)
  OPENAI_BASE_URL       chat-completions endpoint of design, implement, autospt
  OPENAI_API_KEY        its key
";

/// The command line with every command's exit-status section generated from the library's
/// one table ([`exit::help`]), so no `--help` can disagree with it.
fn command_line() -> clap::Command {
    let mut cmd = Cli::command().after_help(format!("{ENVIRONMENT}\n{}", exit::help(None)));
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |sub| {
            let inner: Vec<String> = sub
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let mut sub = sub.after_help(exit::help(Some(&name)));
            for i in inner {
                let full = format!("{name} {i}");
                sub = sub.mut_subcommand(&i, |c| c.after_help(exit::help(Some(&full))));
            }
            sub
        });
    }
    cmd
}

#[derive(Subcommand)]
enum Command {
    /// Put ONNX Runtime and the default model in place (after `pip install equimorph`), and say
    /// what the system lacks (bubblewrap, a JDK, g++) with the command that installs it.
    Setup(commands::setup::SetupArgs),
    /// List or inspect the available transforms.
    #[command(subcommand)]
    Transforms(commands::transforms::TransformsCommand),
    /// List the detectors available here (built-in specs and model directories).
    #[command(subcommand)]
    Models(commands::models::ModelsCommand),
    /// Apply transforms to a program and print the result on stdout.
    Apply(commands::apply::ApplyArgs),
    /// Run every original twice: ok / failing / flaky / timeout, with reasons.
    Validate(commands::validate::ValidateArgs),
    /// What a dataset holds once loaded (kept and skipped by reason, per problem), and its
    /// known-broken programs as labelled non-equivalent pairs.
    Dataset(Box<commands::dataset::DatasetCommandArgs>),
    /// Decide whether a candidate behaves like a task's original (exit 0 yes, 1 no, 2 error).
    Check(commands::check::CheckArgs),
    /// Sequences/s of a model detector by precision, batch layout and batch size, with the
    /// tokenize/run/copy split and agreement between configurations.
    BenchDetector(Box<commands::bench::BenchDetectorArgs>),
    /// Pairwise clone similarity M (and distance L = 1 - M) of files, with a detector.
    Score(commands::score::ScoreArgs),
    /// Search every task for the equivalent program the detector finds least similar.
    Attack(Box<commands::attack::AttackArgs>),
    /// K distinct verified variants of every task (training data; JSONL or CodeXGLUE layout).
    Augment(Box<commands::augment::AugmentArgs>),
    /// Re-render summary.json, report.md and report.html of an attack directory.
    Report(commands::report::ReportArgs),
    /// A detector's ROC AUC, F1-optimal threshold and threshold at a false-positive rate.
    Calibrate(Box<commands::calibrate::CalibrateArgs>),
    /// Train a detector to resist transformations, on an augment run's programs (the encoder
    /// frozen, a projection of its embedding trained contrastively).
    Train(Box<commands::train::TrainArgs>),
    /// Auto-SPT RQ3 end to end, per seed: split tasks by problem, train a detector per
    /// transform set on one part, attack base and trained detectors (and defences) with every
    /// set on the other, measure clean AUC and F1; one report (mean ± sd, train × attack matrix).
    Robustness(Box<commands::robustness::RobustnessArgs>),
    /// One table over attack runs: detectors × transform sets (or run labels).
    Compare(commands::compare::CompareArgs),
    /// Combine the directories of a sharded attack, augment or select (`--shard I/N`) into one run.
    Merge(commands::merge::MergeArgs),
    /// k-step diameter D_k and leave-one-out diversity Δ_k of a transform set.
    Diversity(Box<commands::diversity::DiversityArgs>),
    /// Best-of-N: judge candidate implementations of SPTs by R(T) and keep each group's winner.
    Select(Box<commands::select::SelectArgs>),
    /// Auto-SPT step 1: a language model designs new SPTs.
    Design(Box<commands::design::DesignArgs>),
    /// Auto-SPT step 2: a language model writes N candidate scripts per design.
    Implement(Box<commands::implement::ImplementArgs>),
    /// The whole Auto-SPT pipeline: design, implement, select, attack (resumable).
    Autospt(Box<commands::autospt::AutosptArgs>),
    /// How strong the tasks' tests are (mutation score), and more tests where they are thin.
    #[command(subcommand)]
    Tests(commands::tests::TestsCommand),
    /// Re-judge a finished attack's winners (or augment's variants) against stronger tests,
    /// e.g. those `equimorph tests grow` wrote.
    Verify(Box<commands::verify::VerifyRunArgs>),
    /// The JSON Schema of a file equimorph reads or writes (task lines, run.json, results.jsonl,
    /// summary.json, variants.jsonl).
    Schema(commands::schema::SchemaArgs),
}

/// Exit status when the reader of standard output went away (`equimorph … | head -1`): what a
/// shell reports for a process ended by SIGPIPE.
const BROKEN_PIPE: i32 = exit::BROKEN_PIPE as i32;

/// `println!` panics when standard output is a closed pipe; end quietly instead, as other
/// command-line tools do. (SIGPIPE itself stays ignored: a sandboxed program that closes its
/// stdin early must not kill equimorph.)
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("EQUIMORPH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    quiet_broken_pipe();
    let cli = match Cli::from_arg_matches(&command_line().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Transforms(c) => commands::transforms::run(c),
        Command::Models(c) => commands::models::run(c),
        Command::Apply(a) => commands::apply::run(a),
        Command::Validate(a) => commands::validate::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Setup(a) => commands::setup::run(a),
        Command::Schema(a) => commands::schema::run(a),
        Command::Dataset(a) => commands::dataset::run(*a),
        Command::Score(a) => commands::score::run(a),
        Command::BenchDetector(a) => commands::bench::run(*a),
        Command::Attack(a) => commands::attack::run(*a),
        Command::Augment(a) => commands::augment::run(*a),
        Command::Report(a) => commands::report::run(a),
        Command::Calibrate(a) => commands::calibrate::run(*a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Train(a) => commands::train::run(*a),
        Command::Robustness(a) => commands::robustness::run(*a),
        Command::Merge(a) => commands::merge::run(a),
        Command::Diversity(a) => commands::diversity::run(*a),
        Command::Select(a) => commands::select::run(*a),
        Command::Tests(c) => commands::tests::run(c),
        Command::Verify(a) => commands::verify::run(*a),
        Command::Design(a) => commands::design::run(*a),
        Command::Implement(a) => commands::implement::run(*a),
        Command::Autospt(a) => commands::autospt::run(*a),
    };
    match result {
        Ok(code) => code,
        Err(e) if interrupted_before_start(&e) => {
            eprintln!("{e}");
            ExitCode::from(exit::INTERRUPTED)
        }
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            exit::ExitStatus::Error.into()
        }
    }
}

/// An error and its causes on one line, `outer: cause: …`, leaving out a cause whose text the
/// line already holds (library errors often say their cause in their own message, and an OS
/// error said twice reads as two failures).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// Whether `e` is a run stopped by SIGINT/SIGTERM before its first task (exit 130, not 2),
/// whichever job's error carries it.
fn interrupted_before_start(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.is::<commands::common::InterruptedBeforeStart>())
        || matches!(
            e.downcast_ref::<equimorph::job::attack::AttackError>(),
            Some(equimorph::job::attack::AttackError::Interrupted(_))
        )
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Two flattened option groups with a field of one name share an argument id, and one of
    /// them then reads the other's value or reports it missing (release builds skip clap's own
    /// check): every command's ids are unique.
    #[test]
    fn every_commands_argument_ids_are_unique() {
        fn check(cmd: &clap::Command, path: &str) {
            let mut seen = std::collections::BTreeSet::new();
            for a in cmd.get_arguments() {
                assert!(
                    seen.insert(a.get_id().as_str().to_string()),
                    "{path}: argument id {:?} twice",
                    a.get_id()
                );
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        check(&Cli::command(), "equimorph");
    }
}
