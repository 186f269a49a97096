//! Tasks: a program with its tests, and loaders for the supported dataset formats.
//!
//! Every loader reports bad input with its file and line and keeps going: one malformed line
//! costs that line, never the rest of the file.

mod codecontests;
mod codenet;
mod humaneval;
mod jsonl;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// One stdin → stdout test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCase {
    /// Standard input.
    pub input: String,
    /// Expected standard output; `None` = differential testing against the original only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// A program and its tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Unique id within a task file.
    pub id: String,
    /// The Python program.
    pub source: String,
    /// stdin/stdout tests.
    #[serde(default)]
    pub tests: Vec<TestCase>,
    /// Python appended after the program and run as one script (pass = exit 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_code: Option<String>,
    /// The function under test, for function-level tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<String>,
    /// The problem this program solves, when several tasks solve one problem (CodeContests and
    /// CodeNet: one task per solution). Programs of one problem are functional clones of each
    /// other, so they are never a negative pair and never cross a train/test split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl Task {
    /// Number of test executions one check of this task needs at most.
    pub fn test_count(&self) -> usize {
        self.tests.len() + usize::from(self.test_code.is_some())
    }
}

/// A dataset format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TaskFormat {
    /// equimorph's JSONL (one task per line).
    Jsonl,
    /// HumanEval JSONL or JSONL.gz (prompt + canonical_solution, test, entry_point).
    Humaneval,
    /// CodeContests JSON lines (one task per Python 3 solution).
    Codecontests,
    /// A Project CodeNet directory (data/<problem>/Python/*.py + derived/input_output).
    Codenet,
}

/// Where a problem was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, for line-oriented formats.
    pub line: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}", self.file.display()),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

/// A part of the input that could not be loaded (the rest still loads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadProblem {
    /// Where.
    pub location: Location,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// The tasks that loaded and the problems met on the way.
#[derive(Debug, Clone, Default)]
pub struct TaskSet {
    /// Loaded tasks, in file order.
    pub tasks: Vec<Task>,
    /// Problems, in file order.
    pub problems: Vec<LoadProblem>,
    /// Tasks without any test, in file order: no verdict is possible on them, so only jobs
    /// that do without verification (`augment --unverified`) use them.
    pub untested: Vec<Task>,
}

impl TaskSet {
    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    fn push_problem(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
        self.problems.push(LoadProblem {
            location: Location {
                file: file.to_path_buf(),
                line,
            },
            message: message.into(),
        });
    }

    /// Reports duplicate ids as problems, keeping the first task of each id.
    /// The tasks a run goes through, in its order: the tested ones, then (when `untested`)
    /// the untested ones whose id is not taken.
    pub fn run_order(&self, untested: bool) -> Vec<&Task> {
        let ids: std::collections::HashSet<&str> =
            self.tasks.iter().map(|t| t.id.as_str()).collect();
        let mut seen = std::collections::HashSet::new();
        let extra = self
            .untested
            .iter()
            .filter(|t| untested && !ids.contains(t.id.as_str()) && seen.insert(t.id.as_str()));
        self.tasks.iter().chain(extra).collect()
    }

    fn dedup_ids(&mut self, file: &Path) {
        let mut seen = std::collections::HashSet::new();
        let mut kept = Vec::with_capacity(self.tasks.len());
        for t in std::mem::take(&mut self.tasks) {
            if seen.insert(t.id.clone()) {
                kept.push(t);
            } else {
                self.push_problem(
                    file,
                    None,
                    format!("duplicate task id {:?}: keeping the first", t.id),
                );
            }
        }
        self.tasks = kept;
    }
}

/// Why nothing could be loaded at all.
#[derive(Debug, Error)]
pub enum TaskError {
    /// The path could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The format could not be recognised.
    #[error("cannot tell the format of {path}: {message}")]
    UnknownFormat {
        /// The path.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The path has the wrong shape for the format (e.g. a file for CodeNet).
    #[error("{path}: {message}")]
    Layout {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Loads tasks from `path` in `format`, or in the format guessed from the path.
pub fn load(path: &Path, format: Option<TaskFormat>) -> Result<TaskSet, TaskError> {
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let mut set = match format {
        TaskFormat::Jsonl => jsonl::load(path)?,
        TaskFormat::Humaneval => humaneval::load(path)?,
        TaskFormat::Codecontests => codecontests::load(path)?,
        TaskFormat::Codenet => codenet::load(path)?,
    };
    // Problems in file order (line-less ones, such as duplicates, last).
    set.problems.sort_by_key(|p| {
        (
            p.location.file.clone(),
            p.location.line.is_none(),
            p.location.line,
        )
    });
    set.dedup_ids(path);
    Ok(set)
}

/// Guesses the format: a directory is CodeNet; `.gz` is HumanEval; otherwise the keys of the
/// first JSON object decide.
pub fn detect_format(path: &Path) -> Result<TaskFormat, TaskError> {
    let meta = std::fs::metadata(path).map_err(|source| TaskError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        return Ok(TaskFormat::Codenet);
    }
    if path.extension().is_some_and(|e| e == "gz") {
        return Ok(TaskFormat::Humaneval);
    }
    let text = read_lines_lossy(path)?;
    for line in text.lines() {
        let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(line)
        else {
            continue;
        };
        if obj.contains_key("prompt") && obj.contains_key("canonical_solution") {
            return Ok(TaskFormat::Humaneval);
        }
        if obj.contains_key("solutions") || obj.contains_key("public_tests") {
            return Ok(TaskFormat::Codecontests);
        }
        if obj.contains_key("source") {
            return Ok(TaskFormat::Jsonl);
        }
        return Err(TaskError::UnknownFormat {
            path: path.to_path_buf(),
            message: "the first JSON object has none of the keys source / prompt / solutions"
                .into(),
        });
    }
    if path.extension().is_some_and(|e| e == "jsonl") {
        return Ok(TaskFormat::Jsonl);
    }
    Err(TaskError::UnknownFormat {
        path: path.to_path_buf(),
        message: "no JSON object found".into(),
    })
}

/// Reads a task file, naming it in the error.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, TaskError> {
    std::fs::read(path).map_err(|source| TaskError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn read_lines_lossy(path: &Path) -> Result<String, TaskError> {
    Ok(String::from_utf8_lossy(&read_bytes(path)?).into_owned())
}

/// The non-blank UTF-8 lines of `bytes` with their 1-based numbers; a line that is not UTF-8
/// is recorded as a problem of `set` and skipped.
pub(crate) fn text_lines<'b>(
    bytes: &'b [u8],
    path: &Path,
    set: &mut TaskSet,
) -> Vec<(usize, &'b str)> {
    let mut out = Vec::new();
    for (n, line) in utf8_lines(bytes) {
        match line {
            Ok(l) if l.trim().is_empty() => {}
            Ok(l) => out.push((n, l)),
            Err(msg) => set.push_problem(path, Some(n), msg),
        }
    }
    out
}

/// Splits raw bytes into lines, yielding (1-based line number, line or a UTF-8 error message).
pub(crate) fn utf8_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<&str, String>)> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, raw)| {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        (
            i + 1,
            std::str::from_utf8(raw).map_err(|e| {
                format!(
                    "line is not valid UTF-8 (invalid byte at column {})",
                    e.valid_up_to() + 1
                )
            }),
        )
    })
}
