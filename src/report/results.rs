//! `results.jsonl`: one line per task, appended atomically; resumable.

use crate::search::{Counts, StageSeconds, Step, TransformErrors};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A task's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Attacked.
    Ok,
    /// Not attacked (its original is not ok), with a reason.
    Skipped,
    /// The attack failed, with a reason.
    Error,
}

/// One line of `results.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResultLine {
    /// Task id.
    pub id: String,
    /// The problem the task solves, when the task file groups solutions by problem (see
    /// `Task::problem`): a later `report --threshold auto` pairs only different problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// ok / skipped / error.
    pub status: Status,
    /// Why, when not ok.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The original program.
    pub original: String,
    /// The least similar equivalent program found.
    #[serde(default)]
    pub best: Option<String>,
    /// M(original, best).
    #[serde(default)]
    pub similarity: Option<f32>,
    /// L = 1 − M.
    #[serde(default)]
    pub distance: Option<f32>,
    /// Whether the attack succeeded: M is below the run's threshold (`run.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    /// The best program's tokens divided by the original's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth: Option<f64>,
    /// Candidates scored so far after each iteration (with `best_per_iteration`: the
    /// anytime curve).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scored_per_iteration: Vec<u64>,
    /// M of each transform applied once to the original.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub single_step: std::collections::BTreeMap<String, f32>,
    /// Whether the detector truncated the best program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// The window rule was on but waived: the original is longer than the detector's window.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub window_waived: bool,
    /// The transform sequence that produced `best`, in application order.
    #[serde(default)]
    pub transforms: Vec<Step>,
    /// Iterations run.
    #[serde(default)]
    pub iterations: usize,
    /// Counters.
    #[serde(default)]
    pub counts: Counts,
    /// Time per stage (the only fields that vary between identical runs).
    #[serde(default)]
    pub seconds: StageSeconds,
    /// NiCad-style clone type of best vs original.
    #[serde(default)]
    pub clone_type: Option<String>,
    /// Best M after each iteration.
    #[serde(default)]
    pub best_per_iteration: Vec<f32>,
    /// Why the search stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Failed transform applications: transform → kind of failure → count.
    #[serde(default, skip_serializing_if = "TransformErrors::is_empty")]
    pub transform_errors: TransformErrors,
    /// The task's tests: how many, how many grown, its mutation score when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<crate::adequacy::TestsRecord>,
    /// What the symbolic check did to the winner (`--verify symbolic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<crate::adequacy::symbolic::SymbolicRecord>,
}

impl ResultLine {
    /// The line of a task the search ran on; `threshold` decides success.
    pub fn attacked(
        task: &crate::task::Task,
        r: crate::search::SearchResult,
        threshold: f32,
    ) -> Self {
        let best = r.best;
        ResultLine {
            id: task.id.clone(),
            problem: task.problem.clone(),
            status: Status::Ok,
            reason: None,
            original: task.source.clone(),
            clone_type: Some(
                crate::detector::CloneType::of_as(task.language, &task.source, &best.text)
                    .label()
                    .to_string(),
            ),
            similarity: Some(best.similarity),
            distance: Some(best.distance()),
            success: Some(best.similarity < threshold),
            best: Some(best.text),
            growth: Some(r.growth),
            truncated: Some(r.truncated),
            window_waived: r.window_waived,
            scored_per_iteration: r.scored_per_iteration,
            single_step: r.single_step,
            transforms: best.steps,
            iterations: r.iterations,
            counts: r.counts,
            seconds: r.seconds,
            best_per_iteration: r.best_per_iteration,
            stopped: r.stopped,
            transform_errors: r.transform_errors,
            tests: Some(crate::adequacy::TestsRecord::of(task)),
            symbolic: r.symbolic,
        }
    }

    /// The line of a task that was not attacked (`Skipped` or `Error`), with why.
    pub fn not_attacked(task: &crate::task::Task, status: Status, reason: String) -> Self {
        ResultLine {
            id: task.id.clone(),
            problem: task.problem.clone(),
            status,
            reason: Some(reason),
            original: task.source.clone(),
            best: None,
            similarity: None,
            distance: None,
            success: None,
            growth: None,
            truncated: None,
            window_waived: false,
            scored_per_iteration: vec![],
            single_step: Default::default(),
            transforms: vec![],
            iterations: 0,
            counts: Default::default(),
            seconds: Default::default(),
            clone_type: None,
            best_per_iteration: vec![],
            stopped: None,
            transform_errors: Default::default(),
            tests: Some(crate::adequacy::TestsRecord::of(task)),
            symbolic: None,
        }
    }
}

/// One line of `verified.jsonl` (`attack --keep-verified`): a candidate the oracle accepted
/// during a search, best or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifiedLine {
    /// The task's id.
    pub task_id: String,
    /// The program.
    pub source: String,
    /// M(original, source).
    pub similarity: f32,
    /// L = 1 − M.
    pub distance: f32,
    /// The transforms that made it, with their seeds.
    pub transforms: Vec<Step>,
}

impl VerifiedLine {
    /// The line of candidate `c` of `task`.
    pub fn of(task: &crate::task::Task, c: &crate::program::Candidate) -> Self {
        VerifiedLine {
            task_id: task.id.clone(),
            source: c.text.clone(),
            similarity: c.similarity,
            distance: c.distance(),
            transforms: c.steps.clone(),
        }
    }
}

/// Problems with a results file.
#[derive(Debug, Error)]
pub enum ResultsError {
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A complete line does not parse.
    #[error("{path}:{line}: not a result line: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Why.
        message: String,
    },
}

/// Reads every complete line of `path`, a JSONL file of `T` (a missing file is empty).
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ResultsError> {
    Ok(read_numbered(path)?.into_iter().map(|(_, l)| l).collect())
}

/// Writes `lines` as the whole JSONL file `path`, through a temporary file (a reader or a
/// crash never sees half of it).
pub fn write_jsonl<T: Serialize>(path: &Path, lines: &[T]) -> Result<(), ResultsError> {
    let io = |source| ResultsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    for line in lines {
        serde_json::to_writer(&mut bytes, line).map_err(|e| io(std::io::Error::other(e)))?;
        bytes.push(b'\n');
    }
    let tmp = path.with_extension("jsonl.tmp");
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// A line of an append-only run log that belongs to one unit of work (a task, one variant of a
/// task…). A log holds at most one line per key: a resumed run keeps the first and drops the
/// others on load, so a line is never counted twice even in a log that a second process or an
/// older equimorph wrote twice.
pub trait LogKey {
    /// The unit of work this line records.
    fn log_key(&self) -> String;
}

impl LogKey for ResultLine {
    fn log_key(&self) -> String {
        self.id.clone()
    }
}

impl LogKey for VerifiedLine {
    fn log_key(&self) -> String {
        format!(
            "{}\u{0}{}",
            self.task_id,
            crate::program::ProgramHash::of(&self.source).to_hex()
        )
    }
}

/// A line a log held for a key it already had: dropped on load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedDuplicate {
    /// The key (a task id, for results).
    pub key: String,
    /// The 1-based line of the duplicate.
    pub line: usize,
    /// The 1-based line of the first line with this key (the one kept).
    pub first: usize,
}

/// Keeps the first line of each key; returns the kept lines and the dropped duplicates.
/// `numbers` are the lines' 1-based line numbers in the file.
fn dedup_keyed<T: LogKey>(lines: Vec<(usize, T)>) -> (Vec<T>, Vec<DroppedDuplicate>) {
    let mut first: std::collections::HashMap<String, usize> = Default::default();
    let mut kept = Vec::with_capacity(lines.len());
    let mut dropped = Vec::new();
    for (n, line) in lines {
        let key = line.log_key();
        match first.get(&key) {
            Some(&f) => dropped.push(DroppedDuplicate {
                key,
                line: n,
                first: f,
            }),
            None => {
                first.insert(key, n);
                kept.push(line);
            }
        }
    }
    (kept, dropped)
}

/// Reads every complete line of `path` with its 1-based line number.
fn read_numbered<T: DeserializeOwned>(path: &Path) -> Result<Vec<(usize, T)>, ResultsError> {
    let text = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ResultsError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let complete = match text.iter().rposition(|&b| b == b'\n') {
        Some(i) => &text[..=i],
        None => &text[..0],
    };
    let mut out = Vec::new();
    for (i, line) in complete.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let parsed: T = serde_json::from_slice(line).map_err(|e| ResultsError::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push((i + 1, parsed));
    }
    Ok(out)
}

/// Reads a keyed log: the first line of each key, and the duplicates left out.
pub fn read_keyed<T: DeserializeOwned + LogKey>(
    path: &Path,
) -> Result<(Vec<T>, Vec<DroppedDuplicate>), ResultsError> {
    Ok(dedup_keyed(read_numbered(path)?))
}

/// Reads every complete line of a results file, one per task id (the first, when a log holds
/// a task twice).
pub fn read(path: &Path) -> Result<Vec<ResultLine>, ResultsError> {
    Ok(read_keyed(path)?.0)
}

/// An append-only JSONL file of `T` that a killed run can resume: `results.jsonl`, and
/// augment's `tasks.jsonl` and `variants.jsonl`.
pub struct AppendLog<T> {
    path: PathBuf,
    file: std::fs::File,
    _lines: std::marker::PhantomData<fn(&T)>,
}

/// The append-only results file.
pub type ResultsWriter = AppendLog<ResultLine>;

impl<T: Serialize + DeserializeOwned> AppendLog<T> {
    /// Opens `path` for appending; a torn last line (from a killed run) is cut off first.
    /// Returns the writer and the ids already done.
    pub fn open(path: &Path) -> Result<(Self, Vec<T>), ResultsError> {
        let io = |source| ResultsError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Ok(bytes) = std::fs::read(path) {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            if keep < bytes.len() {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(io)?;
                f.set_len(keep as u64).map_err(io)?;
            }
        }
        let done = read_jsonl(path)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok((
            AppendLog {
                path: path.to_path_buf(),
                file,
                _lines: std::marker::PhantomData,
            },
            done,
        ))
    }

    /// [`AppendLog::open`] for a keyed log: a key that appears twice keeps its first line; the
    /// others are dropped from the file (rewritten whole, through a temporary file) and returned,
    /// so the caller can report them. The run directory's lock makes the rewrite safe.
    pub fn open_keyed(path: &Path) -> Result<(Self, Vec<T>, Vec<DroppedDuplicate>), ResultsError>
    where
        T: LogKey,
    {
        let (log, lines) = Self::open(path)?;
        let numbered: Vec<(usize, T)> = read_numbered(path)?;
        debug_assert_eq!(numbered.len(), lines.len());
        let (kept, dropped) = dedup_keyed(numbered);
        if dropped.is_empty() {
            return Ok((log, kept, dropped));
        }
        drop(log);
        write_jsonl(path, &kept)?;
        let (log, _) = Self::open(path)?;
        Ok((log, kept, dropped))
    }

    /// Appends one line with a single write (never interleaved or torn by another writer) and
    /// syncs it to disk.
    pub fn append(&mut self, line: &T) -> Result<(), ResultsError> {
        self.append_all(std::slice::from_ref(line))
    }

    /// Appends lines with a single write and syncs them. A crash can still leave a prefix of
    /// them (`open` cuts off a torn last line); callers that need all-or-none commit with a
    /// second log (augment's `tasks.jsonl`).
    pub fn append_all(&mut self, lines: &[T]) -> Result<(), ResultsError> {
        let io = |source| ResultsError::Io {
            path: self.path.clone(),
            source,
        };
        let mut bytes = Vec::new();
        for line in lines {
            serde_json::to_writer(&mut bytes, line).map_err(|e| io(std::io::Error::other(e)))?;
            bytes.push(b'\n');
        }
        self.file.write_all(&bytes).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// Ids present in `lines`.
pub fn ids(lines: &[ResultLine]) -> HashSet<String> {
    lines.iter().map(|l| l.id.clone()).collect()
}
