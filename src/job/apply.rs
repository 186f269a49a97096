//! `equimorph apply`: a sequence of transforms run on one program, each step's output checked
//! to be a valid program of the same language before the next step reads it.

use super::Notices;
use crate::language::Language;
use crate::program::{classify_as, validate_as, Classified, InvalidProgram};
use crate::transform::{ApplyError as TransformError, LoadedTransform};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why the transforms were not applied.
#[derive(Debug, Error)]
pub enum ApplyError {
    /// No transform named.
    #[error("--transform needs at least one name")]
    NoTransform,
    /// A seed that is not a number.
    #[error("--seed: {0:?} is not a non-negative integer")]
    BadSeed(String),
    /// Neither one seed nor one per transform.
    #[error(
        "--seed has {seeds} values for {transforms} transforms: give one seed, or one per \
         transform"
    )]
    SeedCount {
        /// Seeds given.
        seeds: usize,
        /// Transforms named.
        transforms: usize,
    },
    /// The program does not parse as its language.
    #[error("{} does not parse as {}: {error}{hint}", .path.display(), .language.title())]
    Unparseable {
        /// The program's file.
        path: PathBuf,
        /// The language it was read as.
        language: Language,
        /// The parser's complaint.
        error: InvalidProgram,
        /// Whether the other language fits, when nothing said which it is.
        hint: String,
    },
    /// A transform of another language.
    #[error(
        "transform {transform} rewrites {rewrites} programs, and {} is {language} (use \
         --language if the file name misleads)",
        .path.display()
    )]
    WrongLanguage {
        /// The transform.
        transform: String,
        /// The language it rewrites.
        rewrites: Language,
        /// The program's file.
        path: PathBuf,
        /// The program's language.
        language: Language,
    },
    /// A step's output is not a valid program.
    #[error("step {step} ({transform}) produced invalid {}: {error}", .language.title())]
    Invalid {
        /// The step, from 1.
        step: usize,
        /// Its transform.
        transform: String,
        /// The program's language.
        language: Language,
        /// The parser's complaint.
        error: InvalidProgram,
    },
    /// A step's transform failed.
    #[error("step {step} ({transform}) failed: {error}")]
    Failed {
        /// The step, from 1.
        step: usize,
        /// Its transform.
        transform: String,
        /// The failure.
        error: TransformError,
    },
}

/// The transforms to run, by name or file, with a seed for each step.
#[derive(Debug, Clone)]
pub struct Steps {
    /// Transform names or files, in order (a name may repeat).
    pub names: Vec<String>,
    /// One seed for every step, or one per step.
    seeds: Vec<u64>,
}

impl Steps {
    /// `names` with the seeds of `seeds` (comma-separated: one, or one per name).
    pub fn new(names: Vec<String>, seeds: &str) -> Result<Self, ApplyError> {
        if names.is_empty() {
            return Err(ApplyError::NoTransform);
        }
        let seeds: Vec<u64> = seeds
            .split(',')
            .map(|s| {
                s.trim()
                    .parse::<u64>()
                    .map_err(|_| ApplyError::BadSeed(s.to_string()))
            })
            .collect::<Result<_, _>>()?;
        if seeds.len() != 1 && seeds.len() != names.len() {
            return Err(ApplyError::SeedCount {
                seeds: seeds.len(),
                transforms: names.len(),
            });
        }
        Ok(Steps { names, seeds })
    }

    /// The seed of step `i` (from 0).
    fn seed(&self, i: usize) -> u64 {
        match self.seeds.as_slice() {
            [one] => *one,
            all => all.get(i).copied().unwrap_or_default(),
        }
    }
}

/// A program that parses as its language.
#[derive(Debug, Clone)]
pub struct Program {
    /// Where it was read from (`-` for standard input).
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its language.
    pub language: Language,
}

impl Program {
    /// `text`, read from `path`, in `language`, else the language its file name says, else
    /// Python; an error (saying whether Java fits, when nothing said) if it does not parse.
    pub fn new(path: &Path, text: String, language: Option<Language>) -> Result<Self, ApplyError> {
        let given = language.or_else(|| Language::of_path(path));
        let language = given.unwrap_or_default();
        if let Err(error) = validate_as(language, &text) {
            // Nothing said which language it is: tell whether the other one fits.
            let hint = match given {
                Some(_) => String::new(),
                None if validate_as(Language::Java, &text).is_ok() => {
                    " (it parses as Java: pass --language java)".into()
                }
                None => " (if this is Java, pass --language java)".into(),
            };
            return Err(ApplyError::Unparseable {
                path: path.to_path_buf(),
                language,
                error,
                hint,
            });
        }
        Ok(Program {
            path: path.to_path_buf(),
            text,
            language,
        })
    }
}

/// Transforms to run on a program, in order.
pub struct ApplyJob {
    /// The program.
    pub program: Program,
    /// The steps' seeds.
    pub steps: Steps,
    /// The steps' transforms (one per name of `steps`).
    pub transforms: Vec<LoadedTransform>,
}

impl ApplyJob {
    /// Runs every step on the previous one's output and returns the last program. A step that
    /// does not apply (or changes nothing) is a note, and the program goes on unchanged.
    pub fn run(self, notices: &dyn Notices) -> Result<String, ApplyError> {
        let language = self.program.language;
        if let Some(t) = self.transforms.iter().find(|t| !t.rewrites(language)) {
            return Err(ApplyError::WrongLanguage {
                transform: t.name.clone(),
                rewrites: t.language,
                path: self.program.path,
                language,
            });
        }
        let mut current = self.program.text;
        for (i, t) in self.transforms.iter().enumerate() {
            let step = i + 1;
            match t.apply(&current, self.steps.seed(i)) {
                Ok(Some(out)) => match classify_as(language, &current, out) {
                    Classified::Valid(text) => current = text,
                    Classified::Unchanged => notices.note(&format!(
                        "step {step} ({}): not applicable (output unchanged)",
                        t.name
                    )),
                    Classified::Invalid(error) => {
                        return Err(ApplyError::Invalid {
                            step,
                            transform: t.name.clone(),
                            language,
                            error,
                        })
                    }
                },
                Ok(None) => notices.note(&format!("step {step} ({}): not applicable", t.name)),
                Err(error) => {
                    return Err(ApplyError::Failed {
                        step,
                        transform: t.name.clone(),
                        error,
                    })
                }
            }
        }
        Ok(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_serves_every_step_and_a_list_must_match_the_steps() {
        let names = || vec!["a".to_string(), "b".to_string()];
        let one = Steps::new(names(), "7").unwrap();
        assert_eq!((one.seed(0), one.seed(1)), (7, 7));
        let each = Steps::new(names(), "1, 2").unwrap();
        assert_eq!((each.seed(0), each.seed(1)), (1, 2));
        let e = Steps::new(names(), "1,2,3").unwrap_err().to_string();
        assert!(e.starts_with("--seed has 3 values for 2 transforms"), "{e}");
        let e = Steps::new(names(), "x").unwrap_err().to_string();
        assert_eq!(e, "--seed: \"x\" is not a non-negative integer");
        assert!(matches!(
            Steps::new(Vec::new(), "0"),
            Err(ApplyError::NoTransform)
        ));
    }
}
