//! The LLM stages of Auto-SPT as jobs (`equimorph design`, `equimorph implement`, and steps 1
//! and 2 of `autospt`): from settings and an [`LlmClient`] to a typed outcome from which the
//! exit status follows.
//!
//! - [`DesignJob`]: the prompt template, the tasks to show the model, the designs already in
//!   the output (a rerun continues), the designs asked for one at a time, `designs.jsonl`
//!   and the refused replies kept whole (`designs.rejected.jsonl`);
//! - [`ImplementJob`]: the designs, N implementations of each written in the layout `select`
//!   reads, and `implement.jsonl` (one record per sample).
//!
//! A job reads its prompt and its input files itself, so that `autospt` reads each only when
//! the stage that needs it runs. What the user should see while a stage runs (each reply
//! retried, each failed request) goes to [`Notices`]; the closing line is the outcome's
//! [`Printout`].

use super::exit::ExitStatus;
use super::settings::{load_dataset, LoadDatasetError};
use super::{Notices, Printout};
use crate::llm::{
    Design, DesignRun, ImplementRecord, ImplementStatus, LlmClient, LlmError, LlmStats,
    DESIGN_PROMPT, IMPLEMENT_PROMPT,
};
use crate::task::{LoadOptions, TaskFormat};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why an LLM stage stopped with an error.
#[derive(Debug, Error)]
pub enum LlmJobError {
    /// `--count 0`.
    #[error("--count must be at least 1")]
    ZeroCount,
    /// `--samples 0`.
    #[error("--samples must be at least 1")]
    ZeroSamples,
    /// The task file holds no task.
    #[error("{} holds no task", .0.display())]
    NoTask(PathBuf),
    /// The designs file holds no design.
    #[error("{} holds no design", .0.display())]
    NoDesign(PathBuf),
    /// The tasks could not be loaded.
    #[error(transparent)]
    Tasks(#[from] LoadDatasetError),
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A prompt template could not be read (or is not UTF-8).
    #[error(transparent)]
    Template(#[from] super::settings::ReadTextError),
    /// A line of a designs file is not a design.
    #[error("{}:{line}: not a design line", path.display())]
    DesignLine {
        /// The file.
        path: PathBuf,
        /// Its line, from 1.
        line: usize,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A directory could not be created.
    #[error("cannot create {}", path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The directory of the designs file could not be created (said as the system says it,
    /// as it always was).
    #[error(transparent)]
    DesignsDir(std::io::Error),
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A candidate script could not be written.
    #[error("writing candidates to {}", path.display())]
    Candidates {
        /// The candidates directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The endpoint failed (after its retries) before every design was made: an error, not a
    /// short answer. The designs made are kept.
    #[error("{stopped}")]
    Endpoint {
        /// How far the stage came, and where its designs are kept.
        stopped: String,
        /// The endpoint's error.
        #[source]
        source: LlmError,
    },
}

/// `requests 12 (2 retries, 3 answers from the cache), tokens 1234 in / 567 out`.
pub fn cost(s: &LlmStats) -> String {
    format!(
        "requests {} ({} retries, {} answers from the cache), tokens {} in / {} out",
        s.requests, s.retries, s.cache_hits, s.usage.prompt_tokens, s.usage.completion_tokens
    )
}

/// A prompt template: the file `path` (`-`: standard input), or the built-in `default`.
fn template(path: Option<&Path>, default: &str) -> Result<String, LlmJobError> {
    match path {
        Some(path) => Ok(super::settings::read_text(path)?),
        None => Ok(default.to_string()),
    }
}

/// The designs of a `designs.jsonl` (none when it does not exist).
pub fn read_designs(path: &Path) -> Result<Vec<Design>, LlmJobError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(LlmJobError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| LlmJobError::DesignLine {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Writes `designs` to `path`, one per line.
fn write_designs(path: &Path, designs: &[Design]) -> Result<(), LlmJobError> {
    let mut text = String::new();
    for d in designs {
        text.push_str(&serde_json::to_string(d)?);
        text.push('\n');
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(LlmJobError::DesignsDir)?;
    }
    write(path, text)
}

/// Writes `text` to `path`.
fn write(path: &Path, text: String) -> Result<(), LlmJobError> {
    std::fs::write(path, text).map_err(|source| LlmJobError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// What step 1 is asked to do.
#[derive(Debug, Clone)]
pub struct DesignSettings {
    /// Programs to show the model (five are sampled for every request).
    pub tasks: PathBuf,
    /// Their format (default: guessed from the path).
    pub format: Option<TaskFormat>,
    /// How many transformations to design (counting those already in `out`).
    pub count: usize,
    /// `designs.jsonl`: designs already in it are kept and shown to the model.
    pub out: PathBuf,
    /// Sampling temperature.
    pub temperature: f32,
    /// Seed of the program samples.
    pub seed: u64,
    /// Prompt template (default: [`DESIGN_PROMPT`]).
    pub prompt: Option<PathBuf>,
}

/// Step 1: new SPTs designed by a language model.
pub struct DesignJob<'a> {
    /// What it is asked to do.
    pub settings: &'a DesignSettings,
    /// The model.
    pub client: &'a LlmClient,
}

/// How step 1 ended: with every design asked for, or short of them because the request
/// budget ran out or the model's replies kept being refused.
#[derive(Debug, Clone)]
pub struct DesignOutcome {
    /// The designs, earlier ones first.
    pub designs: Vec<Design>,
    /// Whether all `count` exist.
    pub complete: bool,
    /// Where they are.
    pub out: PathBuf,
    /// What the client has done so far.
    pub llm: LlmStats,
}

impl DesignOutcome {
    /// 0 with every design asked for, else 1.
    pub fn status(&self) -> ExitStatus {
        if self.complete {
            ExitStatus::Ok
        } else {
            ExitStatus::Negative
        }
    }

    /// How many designs there are, where, and what the model cost.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        p.out(format!(
            "{} designs in {} ({})",
            self.designs.len(),
            self.out.display(),
            cost(&self.llm)
        ));
        p
    }

    /// `N designs: a, b, c`.
    pub fn produced(&self) -> String {
        format!(
            "{} designs: {}",
            self.designs.len(),
            self.designs
                .iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl DesignJob<'_> {
    /// Designs into `settings.out` until there are `count`. Refused replies and why the run
    /// gave up are notices; an endpoint that fails (after its retries) is an error, and
    /// leaves no empty designs file behind; a spent budget is a short outcome.
    pub fn run(&self, notices: &dyn Notices) -> Result<DesignOutcome, LlmJobError> {
        let s = self.settings;
        if s.count == 0 {
            return Err(LlmJobError::ZeroCount);
        }
        let template = template(s.prompt.as_deref(), DESIGN_PROMPT)?;
        let set = load_dataset(
            &s.tasks,
            s.format,
            "--format",
            &LoadOptions::default(),
            notices,
        )?;
        if set.tasks.is_empty() {
            return Err(LlmJobError::NoTask(s.tasks.clone()));
        }
        let existing = read_designs(&s.out)?;
        let run = crate::llm::design(
            self.client,
            &template,
            &set.tasks,
            s.count,
            s.seed,
            s.temperature,
            existing,
        );
        // Nothing new and nothing before (the endpoint never answered): no empty file.
        if !run.designs.is_empty() || s.out.exists() {
            write_designs(&s.out, &run.designs)?;
        }
        refusals(&s.out, &run, notices)?;
        let outcome = |designs: Vec<Design>, complete| DesignOutcome {
            designs,
            complete,
            out: s.out.clone(),
            llm: self.client.stats(),
        };
        if let Some(e) = run.error {
            let stopped = format!(
                "design stopped with {} of {} designs",
                run.designs.len(),
                s.count
            );
            // The budget the user set ran out: a short answer (exit 1), not a failure.
            if matches!(e, LlmError::Budget { .. }) {
                notices.note(&format!("error: {stopped}: {e}"));
                return Ok(outcome(run.designs, false));
            }
            let kept = if run.designs.is_empty() {
                String::new()
            } else {
                format!(" (kept in {}; rerun to continue)", s.out.display())
            };
            return Err(LlmJobError::Endpoint {
                stopped: format!("{stopped}{kept}"),
                source: e,
            });
        }
        let complete = run.designs.len() >= s.count;
        Ok(outcome(run.designs, complete))
    }
}

/// Says each reply that was refused and why the run gave up, if it did, and keeps the
/// refused replies whole next to the designs (`designs.rejected.jsonl`), so that a user can
/// see why each was refused.
fn refusals(out: &Path, run: &DesignRun, notices: &dyn Notices) -> Result<(), LlmJobError> {
    // The lines carry their own prefix ("design:", "error:"), as they always read.
    for r in &run.rejected {
        let excerpt: String = r.reply.chars().take(200).collect();
        notices.note(&format!(
            "design: reply {} retried ({}): {:?}",
            r.attempt, r.reason, excerpt
        ));
    }
    if !run.rejected.is_empty() {
        // Whole replies, so a user can see why each was refused.
        let path = out.with_extension("rejected.jsonl");
        let lines: String = run
            .rejected
            .iter()
            .map(|r| {
                serde_json::json!({"attempt": r.attempt, "reason": r.reason, "reply": r.reply})
                    .to_string()
                    + "\n"
            })
            .collect();
        write(&path, lines)?;
        notices.note(&format!(
            "design: {} replies retried; their whole texts are in {}",
            run.rejected.len(),
            path.display()
        ));
    }
    if let Some(why) = &run.gave_up {
        notices.note(&format!("design: {why}"));
    }
    Ok(())
}

/// What step 2 is asked to do.
#[derive(Debug, Clone)]
pub struct ImplementSettings {
    /// The designs (step 1's output).
    pub designs: PathBuf,
    /// Implementations per design.
    pub samples: u32,
    /// Output directory: `<design>/<k>.py` and `implement.jsonl`.
    pub out: PathBuf,
    /// Sampling temperature.
    pub temperature: f32,
    /// Prompt template (default: [`IMPLEMENT_PROMPT`]).
    pub prompt: Option<PathBuf>,
}

/// Step 2: N candidate implementations of every design.
pub struct ImplementJob<'a> {
    /// What it is asked to do.
    pub settings: &'a ImplementSettings,
    /// The model.
    pub client: &'a LlmClient,
}

/// How step 2 ended: one record per sample.
#[derive(Debug, Clone)]
pub struct ImplementOutcome {
    /// One record per sample, designs in order.
    pub records: Vec<ImplementRecord>,
    /// The candidates directory.
    pub out: PathBuf,
    /// What the client has done so far.
    pub llm: LlmStats,
}

impl ImplementOutcome {
    /// Samples that ended as `status`.
    pub fn count(&self, status: ImplementStatus) -> usize {
        self.records.iter().filter(|r| r.status == status).count()
    }

    /// 0, or 1 when some request failed.
    pub fn status(&self) -> ExitStatus {
        if self.count(ImplementStatus::Error) > 0 {
            ExitStatus::Negative
        } else {
            ExitStatus::Ok
        }
    }

    /// What became of the samples, and what the model cost.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        p.out(format!(
            "{} candidates written to {}, {} replies not Python, {} failed requests ({})",
            self.count(ImplementStatus::Written),
            self.out.display(),
            self.count(ImplementStatus::NotPython),
            self.count(ImplementStatus::Error),
            cost(&self.llm)
        ));
        p
    }
}

impl ImplementJob<'_> {
    /// Implements every design into `settings.out`; each failed request is a notice (and a
    /// record), not an error.
    pub fn run(&self, notices: &dyn Notices) -> Result<ImplementOutcome, LlmJobError> {
        let s = self.settings;
        if s.samples == 0 {
            return Err(LlmJobError::ZeroSamples);
        }
        let designs = read_designs(&s.designs)?;
        if designs.is_empty() {
            return Err(LlmJobError::NoDesign(s.designs.clone()));
        }
        let template = template(s.prompt.as_deref(), IMPLEMENT_PROMPT)?;
        std::fs::create_dir_all(&s.out).map_err(|source| LlmJobError::Create {
            path: s.out.clone(),
            source,
        })?;
        let records = crate::llm::implement(
            self.client,
            &template,
            &designs,
            s.samples,
            s.temperature,
            &s.out,
        )
        .map_err(|source| LlmJobError::Candidates {
            path: s.out.clone(),
            source,
        })?;
        let mut log = String::new();
        for r in &records {
            log.push_str(&serde_json::to_string(r)?);
            log.push('\n');
            if r.status == ImplementStatus::Error {
                notices.note(&format!(
                    "error: {} sample {}: {}",
                    r.design,
                    r.sample,
                    r.message.as_deref().unwrap_or("")
                ));
            }
        }
        write(&s.out.join("implement.jsonl"), log)?;
        Ok(ImplementOutcome {
            records,
            out: s.out.clone(),
            llm: self.client.stats(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn designs_files_read_back_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("designs.jsonl");
        assert!(read_designs(&path).unwrap().is_empty());
        let d = Design {
            name: "loop-iterator".into(),
            description: "for loops become while loops over an explicit iterator".into(),
            category: None,
        };
        write_designs(&path, std::slice::from_ref(&d)).unwrap();
        assert_eq!(read_designs(&path).unwrap(), vec![d]);
        std::fs::write(&path, "\n{\"name\": 1}\n").unwrap();
        let e = read_designs(&path).unwrap_err().to_string();
        assert!(e.ends_with("designs.jsonl:2: not a design line"), "{e}");
    }

    #[test]
    fn a_template_is_the_default_or_a_utf8_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(template(None, "x").unwrap(), "x");
        let path = dir.path().join("p.md");
        std::fs::write(&path, b"ok\xff").unwrap();
        let e = template(Some(&path), "x").unwrap_err().to_string();
        assert!(
            e.ends_with("is not valid UTF-8 (invalid byte at offset 2)"),
            "{e}"
        );
        let e = template(Some(&dir.path().join("none")), "x").unwrap_err();
        assert!(e.to_string().starts_with("cannot read "), "{e}");
    }
}
