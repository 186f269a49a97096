//! Tasks: a program with its tests, and loaders for the supported dataset formats.
//!
//! Every loader reports bad input with its file and line and keeps going: one malformed line
//! costs that line, never the rest of the file.

pub mod adequacy;
pub mod checker;
mod codecontests;
mod codenet;
pub mod compare;
pub mod gptclonebench;
mod humaneval;
mod jsonl;
mod poj104;

pub use checker::Checker;
pub use codecontests::stream_parquet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// One stdin → stdout test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestCase {
    /// Standard input.
    pub input: String,
    /// Expected standard output; `None` = differential testing against the original only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Python run after the program in the same script, for a call-level test of a function
    /// task (`print(repr(f(3, 'ab')))`): its standard output is what is compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Made by equimorph (`tests grow`, a symbolic counterexample), not by the dataset: its
    /// `output` is the original's own output on it, so it is differential.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub grown: bool,
}

impl TestCase {
    /// A dataset's stdin test with its expected output.
    pub fn stdin(input: impl Into<String>, output: Option<String>) -> Self {
        TestCase {
            input: input.into(),
            output,
            call: None,
            grown: false,
        }
    }

    /// The Python program this test runs for program text `source`: `source` with the call
    /// appended, for a call-level test; `source` itself otherwise.
    pub fn program<'s>(&self, source: &'s str) -> std::borrow::Cow<'s, str> {
        match &self.call {
            Some(call) => format!("{source}\n\n{call}\n").into(),
            None => source.into(),
        }
    }
}

/// A program and its tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Task {
    /// Unique id within a task file.
    pub id: String,
    /// The program (Python unless `language` says otherwise).
    pub source: String,
    /// The program's language (`python` when absent).
    #[serde(default, skip_serializing_if = "crate::program::Language::is_python")]
    pub language: crate::program::Language,
    /// stdin/stdout tests (shared: every solution of a problem holds the same tests).
    #[serde(default)]
    pub tests: Arc<[TestCase]>,
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
    /// How the original's output is held against a test's expected output when the task is
    /// validated (the dataset's own judge). A candidate is always compared with its original
    /// exactly, after the usual normalisation.
    #[serde(default, skip_serializing_if = "Checker::is_default")]
    pub checker: Checker,
    /// The dataset's per-test time limit in milliseconds, when it gives one; it replaces the
    /// oracle's `--timeout-cap` for this task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_ms: Option<u64>,
    /// How strong the tests are, when measured (`tests score`, `tests grow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adequacy: Option<adequacy::Adequacy>,
}

impl Task {
    /// A task with only an id, a program and tests; every other field at its default.
    pub fn new(id: impl Into<String>, source: impl Into<String>, tests: Vec<TestCase>) -> Self {
        Task {
            id: id.into(),
            source: source.into(),
            language: crate::program::Language::Python,
            tests: tests.into(),
            test_code: None,
            entry_point: None,
            problem: None,
            checker: Checker::default(),
            time_limit_ms: None,
            adequacy: None,
        }
    }

    /// The same task for a program of `language`.
    pub fn in_language(mut self, language: crate::program::Language) -> Self {
        self.language = language;
        self
    }

    /// The problem this program solves: [`Task::problem`], or its own id when the task file
    /// does not group solutions by problem. Programs with the same key are clones (never a
    /// non-clone pair, never on both sides of a split).
    pub fn problem_key(&self) -> &str {
        self.problem.as_deref().unwrap_or(&self.id)
    }

    /// Number of tests `tests grow` or a symbolic check added.
    pub fn grown_tests(&self) -> usize {
        self.tests.iter().filter(|t| t.grown).count()
    }

    /// The recorded mutation score, when it was measured on the tests the task has now.
    pub fn mutation_score(&self) -> Option<f64> {
        self.adequacy
            .as_ref()
            .filter(|a| a.tests == self.test_count() && a.mutants > 0)
            .and_then(|a| a.mutation_score)
    }

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
    /// CodeContests as shipped on Hugging Face: one `.parquet` file or a directory of them.
    Parquet,
    /// Project CodeNet: the full dataset (data/, metadata/, derived/) or a benchmark subset
    /// such as Project_CodeNet_Python800 (pNNNNN/sNNNNNNNNN.py).
    Codenet,
    /// POJ-104 (CodeXGLUE): `ProgramData/<class>/<id>.txt`, or the JSONL of its
    /// `preprocess.py` (`label`, `index`, `code`); C and C++ programs without tests.
    Poj104,
}

/// Choices that shape what a loader keeps (the command line's dataset options).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LoadOptions {
    /// CodeNet: submission statuses to keep, as in metadata/pNNNNN.csv (comma-separated or
    /// repeated; default Accepted).
    #[arg(long = "status", value_delimiter = ',', value_name = "STATUS")]
    pub statuses: Vec<String>,
    /// Languages to keep. CodeNet: the metadata's `language` (`Python`, `Java`, `C++`, `C`),
    /// or a prefix of its `original_language` such as "PyPy3" (default: Python 3 and PyPy3;
    /// a C++1000/C++1400 subset loads as C++). CodeContests: `python` (Python 3 solutions,
    /// the default), `java`, `cpp`, or several.
    #[arg(long = "language", value_delimiter = ',', value_name = "LANG")]
    pub languages: Vec<String>,
    /// CodeNet: the full dataset's root, to take tests, metadata and problem clusters from
    /// when the tasks are a benchmark subset such as Project_CodeNet_Python800.
    #[arg(long, value_name = "DIR")]
    pub codenet_root: Option<PathBuf>,
}

/// A program the dataset itself marks as wrong for its problem (CodeContests'
/// `incorrect_solutions`, CodeNet's rejected submissions): a known non-equivalent of the
/// problem's accepted solutions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenProgram {
    /// Unique id within the load (`<problem>/incorrect/<n>` or `<problem>/<submission>`).
    pub id: String,
    /// The problem it fails.
    pub problem: String,
    /// The program.
    pub source: String,
    /// Why the dataset rejects it ("incorrect solution", "Wrong Answer", …).
    pub verdict: String,
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
    /// Known-broken Python 3 programs of the loaded problems, kept aside (never tasks).
    pub broken: Vec<BrokenProgram>,
    /// Programs or problems left out on purpose, by reason (e.g. "Python 2 solution").
    pub skipped: BTreeMap<String, usize>,
}

impl TaskSet {
    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Counts `n` items left out for `reason`.
    pub(crate) fn skip(&mut self, reason: &str, n: usize) {
        if n > 0 {
            *self.skipped.entry(reason.to_string()).or_default() += n;
        }
    }

    /// What was kept and what was skipped, in numbers.
    pub fn report(&self) -> LoadReport {
        let problems: std::collections::BTreeSet<&str> = self
            .tasks
            .iter()
            .chain(&self.untested)
            .filter_map(|t| t.problem.as_deref())
            .collect();
        LoadReport {
            tasks: self.tasks.len(),
            untested: self.untested.len(),
            problems: problems.len(),
            broken: self.broken.len(),
            skipped: self.skipped.clone(),
            warnings: self.problems.len(),
        }
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

/// A known-broken program beside an accepted solution of its problem: a labelled
/// non-equivalent pair (`label` 0), one JSON line of `equimorph dataset --broken-pairs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenPair {
    /// The problem both programs are for.
    pub problem: String,
    /// The accepted solution's task id.
    pub a_id: String,
    /// The accepted solution.
    pub a: String,
    /// The broken program's id.
    pub b_id: String,
    /// The broken program.
    pub b: String,
    /// Why the dataset rejects it.
    pub verdict: String,
    /// Always 0: the two do not behave alike.
    pub label: u8,
}

/// Per problem: how many tasks, untested tasks and known-broken programs a load holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProblemCounts {
    /// Tasks with tests.
    pub tasks: usize,
    /// Tasks without tests.
    pub untested: usize,
    /// Known-broken programs.
    pub broken: usize,
}

impl TaskSet {
    /// Counts per problem (tasks without a problem are their own problem).
    pub fn per_problem(&self) -> BTreeMap<String, ProblemCounts> {
        let mut m: BTreeMap<String, ProblemCounts> = BTreeMap::new();
        let key = |t: &Task| t.problem.clone().unwrap_or_else(|| t.id.clone());
        for t in &self.tasks {
            m.entry(key(t)).or_default().tasks += 1;
        }
        for t in &self.untested {
            m.entry(key(t)).or_default().untested += 1;
        }
        for b in &self.broken {
            m.entry(b.problem.clone()).or_default().broken += 1;
        }
        m
    }

    /// Every known-broken program paired with the first accepted solution of its problem
    /// (tested tasks first, then untested ones); broken programs of a problem without an
    /// accepted solution here are left out.
    pub fn broken_pairs(&self) -> Vec<BrokenPair> {
        let mut first: BTreeMap<&str, &Task> = BTreeMap::new();
        for t in self.tasks.iter().chain(&self.untested) {
            if let Some(p) = t.problem.as_deref() {
                first.entry(p).or_insert(t);
            }
        }
        self.broken
            .iter()
            .filter_map(|b| {
                let a = first.get(b.problem.as_str())?;
                Some(BrokenPair {
                    problem: b.problem.clone(),
                    a_id: a.id.clone(),
                    a: a.source.clone(),
                    b_id: b.id.clone(),
                    b: b.source.clone(),
                    verdict: b.verdict.clone(),
                    label: 0,
                })
            })
            .collect()
    }
}

/// What a load kept and skipped: printed by every command that loads tasks and recorded in
/// its run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadReport {
    /// Tasks with tests.
    pub tasks: usize,
    /// Tasks without tests.
    pub untested: usize,
    /// Distinct problems among them (0 when the format has no problems).
    pub problems: usize,
    /// Known-broken programs kept aside.
    pub broken: usize,
    /// Left out on purpose, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Warnings: lines, rows or files that could not be read, and oddities worth a look.
    pub warnings: usize,
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kept {} task(s)", self.tasks)?;
        if self.untested > 0 {
            write!(f, " + {} without tests", self.untested)?;
        }
        if self.problems > 0 {
            write!(f, " of {} problem(s)", self.problems)?;
        }
        if self.broken > 0 {
            write!(f, "; {} known-broken program(s) kept aside", self.broken)?;
        }
        if !self.skipped.is_empty() {
            let parts: Vec<String> = self
                .skipped
                .iter()
                .map(|(r, n)| format!("{n} {r}"))
                .collect();
            write!(f, "; skipped: {}", parts.join(", "))?;
        }
        if self.warnings > 0 {
            write!(f, "; {} warning(s)", self.warnings)?;
        }
        Ok(())
    }
}

/// Why nothing could be loaded at all.
#[derive(Debug, Error)]
pub enum TaskError {
    /// The path could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error (in the message, not a source: a chain would repeat it).
        error: std::io::Error,
    },
    /// The format could not be recognised.
    #[error("cannot tell the format of {path}: {message}")]
    UnknownFormat {
        /// The path.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A JSON array where JSON lines were expected.
    #[error(
        "{path} is a JSON array, not JSON lines (one task per line): write one task object per \
         line (e.g. `jq -c '.[]' {path} > tasks.jsonl`)"
    )]
    JsonArray {
        /// The file.
        path: PathBuf,
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

/// Loads tasks from `path` in `format`, or in the format guessed from the path, with the
/// default [`LoadOptions`].
pub fn load(path: &Path, format: Option<TaskFormat>) -> Result<TaskSet, TaskError> {
    load_with(path, format, &LoadOptions::default())
}

/// Loads tasks from `path` in `format` (or the guessed one) with `options`.
pub fn load_with(
    path: &Path,
    format: Option<TaskFormat>,
    options: &LoadOptions,
) -> Result<TaskSet, TaskError> {
    refuse_riegeli(path)?;
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let mut set = match format {
        TaskFormat::Jsonl => jsonl::load(path)?,
        TaskFormat::Humaneval => humaneval::load(path)?,
        TaskFormat::Codecontests | TaskFormat::Parquet => {
            let languages = codecontests::languages(&options.languages).map_err(|message| {
                TaskError::Layout {
                    path: path.to_path_buf(),
                    message,
                }
            })?;
            if format == TaskFormat::Parquet {
                codecontests::load_parquet(path, &languages)?
            } else {
                codecontests::load_jsonl(path, &languages)?
            }
        }
        TaskFormat::Codenet => codenet::load(path, options)?,
        TaskFormat::Poj104 if path.is_dir() => poj104::load_tree(path)?,
        TaskFormat::Poj104 => poj104::load_jsonl(path)?,
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

/// CodeContests' GitHub release is Riegeli files of protos, which equimorph does not read:
/// the Hugging Face copy holds the same problems as parquet.
fn refuse_riegeli(path: &Path) -> Result<(), TaskError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.contains(".riegeli") {
        return Err(TaskError::Layout {
            path: path.to_path_buf(),
            message: "this is CodeContests' Riegeli release, which equimorph does not read; \
                      download the same dataset as parquet from Hugging Face \
                      (deepmind/code_contests, data/*.parquet) and pass that file or directory"
                .into(),
        });
    }
    Ok(())
}

/// Guesses the format: a directory of `.parquet` files or a `.parquet` file is CodeContests'
/// Hugging Face copy, any other directory CodeNet; `.gz` is HumanEval; otherwise the keys of
/// the first JSON object decide.
pub fn detect_format(path: &Path) -> Result<TaskFormat, TaskError> {
    let meta = std::fs::metadata(path).map_err(|error| TaskError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    if meta.is_dir() {
        if poj104::is_tree(path) {
            return Ok(TaskFormat::Poj104);
        }
        return Ok(if codecontests::parquet_files(path)?.is_empty() {
            TaskFormat::Codenet
        } else {
            TaskFormat::Parquet
        });
    }
    if path.extension().is_some_and(|e| e == "parquet") {
        return Ok(TaskFormat::Parquet);
    }
    if path.extension().is_some_and(|e| e == "gz") {
        return Ok(TaskFormat::Humaneval);
    }
    let text = read_lines_lossy(path)?;
    if is_json_array(text.as_bytes()) {
        return Err(TaskError::JsonArray {
            path: path.to_path_buf(),
        });
    }
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
        if obj.contains_key("code") && obj.contains_key("label") && obj.contains_key("index") {
            return Ok(TaskFormat::Poj104);
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

/// Whether `bytes` hold a JSON array (its first non-blank character is `[`): JSON lines
/// hold one object per line, never an array.
pub(crate) fn is_json_array(bytes: &[u8]) -> bool {
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// Reads a task file, naming it in the error.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, TaskError> {
    std::fs::read(path).map_err(|error| TaskError::Io {
        path: path.to_path_buf(),
        error,
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
