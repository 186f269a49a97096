//! `equimorph compare`: one table (Table 2) over several attack runs, written as compare.md,
//! compare.csv and compare.html. A run without a summary yet (an interrupted one) is
//! summarised from its results.

use super::exit::ExitStatus;
use super::{Notices, Printout};
use crate::report::compare::{compare, job_of, transform_set_label, with_article, Comparison};
use crate::report::results::{self, ResultsError};
use crate::report::Summary;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What names a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColumnBy {
    /// The run directory's name.
    Dir,
    /// The run's transform set.
    Transforms,
}

/// Why runs were not compared.
#[derive(Debug, Error)]
pub enum CompareError {
    /// Labels given, but not one per run.
    #[error("{labels} --label for {runs} runs: give one label per run, in the same order")]
    Labels {
        /// Labels given.
        labels: usize,
        /// Runs given.
        runs: usize,
    },
    /// A directory holds another job's run.
    #[error(
        "{} is {} run; compare takes attack runs (the --out of `equimorph attack`)",
        .dir.display(),
        with_article(.kind)
    )]
    NotAttack {
        /// The directory.
        dir: PathBuf,
        /// The job that made it.
        kind: String,
    },
    /// summary.json is not a summary.
    #[error("{} is not an equimorph summary", .path.display())]
    Summary {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// Neither a summary nor results.
    #[error(
        "{} has neither summary.json nor results.jsonl (is it an attack's --out?)",
        .0.display()
    )]
    NotARun(PathBuf),
    /// results.jsonl could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// No cell to show.
    #[error("no run to compare")]
    Empty,
    /// The output directory could not be made.
    #[error("cannot create {}", .path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A table could not be written.
    #[error("cannot write {}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Comparing attack runs.
#[derive(Debug, Clone)]
pub struct CompareJob {
    /// The runs' output directories.
    pub runs: Vec<PathBuf>,
    /// What labels a column when no label is given.
    pub by: ColumnBy,
    /// One label per run, in order (or none).
    pub labels: Vec<String>,
    /// Where the tables are written.
    pub out: PathBuf,
}

/// The comparison, written.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The table.
    pub comparison: Comparison,
    /// Where compare.md, compare.csv and compare.html are.
    pub out: PathBuf,
}

impl CompareJob {
    /// Loads every run's summary, labels its column, warns when runs cover different tasks or
    /// two runs fall in one cell, and writes the three tables.
    pub fn run(&self, notices: &dyn Notices) -> Result<CompareOutcome, CompareError> {
        if !self.labels.is_empty() && self.labels.len() != self.runs.len() {
            return Err(CompareError::Labels {
                labels: self.labels.len(),
                runs: self.runs.len(),
            });
        }
        let mut runs = Vec::new();
        let mut task_sets = Vec::new();
        for (i, dir) in self.runs.iter().enumerate() {
            let s = load(dir)?;
            let label = self.label(i, dir, &s);
            let ids: BTreeSet<String> = results::read(&dir.join("results.jsonl"))
                .map(|lines| lines.into_iter().map(|l| l.id).collect())
                .unwrap_or_default();
            task_sets.push((label.clone(), ids));
            runs.push((label, s));
        }
        if let Some(((first, ids), rest)) = task_sets.split_first() {
            for (label, other) in rest.iter().filter(|(_, other)| other != ids) {
                let common = ids.intersection(other).count();
                notices.warn(&format!(
                    "runs cover different task sets: {first} has {} tasks, {label} has {} \
                     ({common} in common); their cells are not comparable task for task",
                    ids.len(),
                    other.len()
                ));
            }
        }
        let c = compare(&runs);
        if c.cells.is_empty() {
            return Err(CompareError::Empty);
        }
        for d in &c.duplicates {
            notices.warn(&format!(
                "two runs share the cell {d}; the later one is shown (use --by dir)"
            ));
        }
        self.write(&c)?;
        Ok(CompareOutcome {
            comparison: c,
            out: self.out.clone(),
        })
    }

    /// Run `i`'s column label: the one given, else by [`ColumnBy`].
    fn label(&self, i: usize, dir: &Path, s: &Summary) -> String {
        match (self.labels.get(i), self.by) {
            (Some(l), _) => l.clone(),
            (None, ColumnBy::Dir) => {
                // Two directories of one name (x/run, y/run) are told apart by their paths.
                let name = name_of(dir);
                if self.runs.iter().filter(|d| name_of(d) == name).count() > 1 {
                    dir.display().to_string()
                } else {
                    name
                }
            }
            (None, ColumnBy::Transforms) => transform_set_label(&s.run.transforms),
        }
    }

    /// Writes compare.md, compare.csv and compare.html.
    fn write(&self, c: &Comparison) -> Result<(), CompareError> {
        std::fs::create_dir_all(&self.out).map_err(|source| CompareError::Create {
            path: self.out.clone(),
            source,
        })?;
        for (name, text) in [
            ("compare.md", c.markdown()),
            ("compare.csv", c.csv()),
            ("compare.html", c.html()),
        ] {
            let path = self.out.join(name);
            std::fs::write(&path, text).map_err(|source| CompareError::Write { path, source })?;
        }
        Ok(())
    }
}

impl CompareOutcome {
    /// Always 0: the tables were written.
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// The Markdown table and where the files are.
    pub fn printout(&self) -> Printout {
        let md = self.comparison.markdown();
        let mut p = Printout::new();
        // The table ends with a line break, which printing the line adds back.
        p.out(md.strip_suffix('\n').unwrap_or(&md)).out(format!(
            "wrote compare.md, compare.csv and compare.html in {}",
            self.out.display()
        ));
        p
    }
}

/// A directory's name (its path when it has none).
fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// An attack run's summary: summary.json, else (an interrupted run) one made from its results.
fn load(dir: &Path) -> Result<Summary, CompareError> {
    // Another job's run has a summary of another shape: say which job made it.
    if let Some(kind) = job_of(dir).filter(|k| k != "attack") {
        return Err(CompareError::NotAttack {
            dir: dir.to_path_buf(),
            kind,
        });
    }
    let path = dir.join("summary.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return serde_json::from_str(&text)
            .map_err(|source| CompareError::Summary { path, source });
    }
    // No summary yet (an interrupted run): summarise its results.
    let results_path = dir.join("results.jsonl");
    if !results_path.is_file() {
        return Err(CompareError::NotARun(dir.to_path_buf()));
    }
    let lines = results::read(&results_path)?;
    let run = std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    Ok(Summary::of(&lines, run))
}
