//! `equimorph apply`: run a sequence of transforms on one program.

use super::common::{read_text, split_names, TransformOptions};
use anyhow::{bail, Result};
use clap::Args;
use equimorph::program::{validate_as, Classified, Language};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `apply`.
#[derive(Args)]
pub struct ApplyArgs {
    /// Transforms to apply, in order (comma-separated; a name may repeat): names from the
    /// transform set, or paths of `.py` scripts and `.wasm` components.
    #[arg(long, value_name = "NAME|FILE[,...]", required = true)]
    transform: String,
    /// Seed of every step, or one seed per step (comma-separated).
    #[arg(long, default_value = "0", value_name = "N[,N...]")]
    seed: String,
    /// The program (Python, or Java for a `.java` file), or `-` for standard input.
    file: PathBuf,
    /// The program's language, when its file name does not say (`-`, or another extension).
    #[arg(long, value_name = "python|java")]
    language: Option<Language>,
    #[command(flatten)]
    transforms: TransformOptions,
}

/// Runs `apply`.
pub fn run(args: ApplyArgs) -> Result<ExitCode> {
    let names = split_names(&args.transform);
    if names.is_empty() {
        bail!("--transform needs at least one name");
    }
    let seeds: Vec<u64> = args
        .seed
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| anyhow::anyhow!("--seed: {s:?} is not a non-negative integer"))
        })
        .collect::<Result<_>>()?;
    if seeds.len() != 1 && seeds.len() != names.len() {
        bail!(
            "--seed has {} values for {} transforms: give one seed, or one per transform",
            seeds.len(),
            names.len()
        );
    }
    let source = read_text(&args.file)?;
    let given = args.language.or_else(|| Language::of_path(&args.file));
    let language = given.unwrap_or_default();
    if let Err(e) = validate_as(language, &source) {
        // Nothing said which language it is: tell whether the other one fits.
        let hint = match given {
            Some(_) => String::new(),
            None if validate_as(Language::Java, &source).is_ok() => {
                " (it parses as Java: pass --language java)".into()
            }
            None => " (if this is Java, pass --language java)".into(),
        };
        bail!(
            "{} does not parse as {}: {e}{hint}",
            args.file.display(),
            language.title()
        );
    }
    let runtime = args.transforms.runtime()?;
    let steps = args.transforms.resolve_steps(&runtime, &names)?;
    if let Some(t) = steps.iter().find(|t| t.language != language) {
        bail!(
            "transform {} rewrites {} programs, and {} is {language} (use --language if the file \
             name misleads)",
            t.name,
            t.language,
            args.file.display()
        );
    }
    let mut current = source;
    for (i, t) in steps.iter().enumerate() {
        let seed = if seeds.len() == 1 { seeds[0] } else { seeds[i] };
        match t.apply(&current, seed) {
            Ok(Some(out)) => match equimorph::program::classify_as(language, &current, out) {
                Classified::Valid(text) => current = text,
                Classified::Unchanged => eprintln!(
                    "step {} ({}): not applicable (output unchanged)",
                    i + 1,
                    t.name
                ),
                Classified::Invalid(e) => {
                    bail!(
                        "step {} ({}) produced invalid {}: {e}",
                        i + 1,
                        t.name,
                        language.title()
                    )
                }
            },
            Ok(None) => eprintln!("step {} ({}): not applicable", i + 1, t.name),
            Err(e) => bail!("step {} ({}) failed: {e}", i + 1, t.name),
        }
    }
    print!("{current}");
    Ok(ExitCode::SUCCESS)
}
