//! `equimorph dataset`: what a dataset holds once loaded (per problem: tasks, untested tasks,
//! known-broken programs), and its known-broken programs as labelled non-equivalent pairs.

use super::exit::ExitStatus;
use super::{Notices, Printout};
use crate::task::{LoadReport, ProblemCounts, TaskSet};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use thiserror::Error;

/// Why the pairs file was not written.
#[derive(Debug, Error)]
pub enum DatasetError {
    /// The file could not be created.
    #[error("cannot create {}", .path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A pair could not be written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A line's end could not be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file could not be finished.
    #[error("cannot write {}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Describing a loaded dataset.
pub struct DatasetJob<'a> {
    /// The loaded tasks.
    pub set: &'a TaskSet,
    /// The task file or directory, as the user named it.
    pub tasks: String,
    /// Where to write the known-broken programs as pairs, one JSON line each.
    pub broken_pairs: Option<PathBuf>,
}

/// What the dataset holds.
#[derive(Debug, Clone)]
pub struct DatasetOutcome {
    /// The task file or directory.
    pub tasks: String,
    /// What the load kept and skipped.
    pub report: LoadReport,
    /// Counts per problem.
    pub per_problem: BTreeMap<String, ProblemCounts>,
    /// Every load problem, in words.
    pub warnings: Vec<String>,
}

impl DatasetJob<'_> {
    /// Counts the dataset and writes the pairs file when asked for (what it wrote is a note).
    pub fn run(&self, notices: &dyn Notices) -> Result<DatasetOutcome, DatasetError> {
        let set = self.set;
        if let Some(path) = &self.broken_pairs {
            let pairs = set.broken_pairs();
            let file = std::fs::File::create(path).map_err(|source| DatasetError::Create {
                path: path.clone(),
                source,
            })?;
            let mut out = std::io::BufWriter::new(file);
            for p in &pairs {
                serde_json::to_writer(&mut out, p)?;
                out.write_all(b"\n")?;
            }
            out.flush().map_err(|source| DatasetError::Write {
                path: path.clone(),
                source,
            })?;
            notices.note(&format!(
                "wrote {} labelled non-equivalent pair(s) to {} ({} broken program(s) had no \
                 accepted solution of their problem here)",
                pairs.len(),
                path.display(),
                set.broken.len().saturating_sub(pairs.len())
            ));
        }
        Ok(DatasetOutcome {
            tasks: self.tasks.clone(),
            report: set.report(),
            per_problem: set.per_problem(),
            warnings: set.problems.iter().map(|p| p.to_string()).collect(),
        })
    }
}

impl DatasetOutcome {
    /// Always 0.
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// The load report and the `top` largest problems as a table, or every count as JSON.
    pub fn printout(&self, json: bool, top: usize) -> Printout {
        let mut p = Printout::new();
        if json {
            let json = serde_json::json!({
                "tasks": self.tasks,
                "report": self.report,
                "problems": self.per_problem,
                "warnings": self.warnings,
            });
            p.out(serde_json::to_string_pretty(&json).unwrap_or_default());
            return p;
        }
        p.out(self.report.to_string());
        let mut rows: Vec<_> = self.per_problem.iter().collect();
        rows.sort_by(|a, b| {
            (b.1.tasks + b.1.untested)
                .cmp(&(a.1.tasks + a.1.untested))
                .then(a.0.cmp(b.0))
        });
        if rows.is_empty() {
            return p;
        }
        p.out(format!(
            "{:<40} {:>7} {:>9} {:>7}",
            "problem", "tasks", "untested", "broken"
        ));
        for (name, c) in rows.iter().take(top) {
            p.out(format!(
                "{:<40} {:>7} {:>9} {:>7}",
                name, c.tasks, c.untested, c.broken
            ));
        }
        if rows.len() > top {
            p.out(format!(
                "… and {} more problems (--top N, or --json for all)",
                rows.len() - top
            ));
        }
        p
    }
}
