//! CodeContests (deepmind/code_contests), as JSON lines or as the Hugging Face parquet files.
//!
//! A record is one `ContestProblem` (`contest_problem.proto`): `name`, `source` (an enum:
//! 1 CodeChef, 2 Codeforces, 3 HackerEarth, 4 Code Jam, 6 AtCoder, 7 Aizu), `public_tests` /
//! `private_tests` / `generated_tests` as parallel `input` / `output` lists, `solutions` and
//! `incorrect_solutions` as parallel `language` / `solution` lists (language 1 = Python 2,
//! 2 = C++, 3 = Python 3, 4 = Java), `time_limit` (`seconds`, `nanos`), `input_file` /
//! `output_file`.
//!
//! One task per kept solution, id `<problem>/<index of the solution>`, where the problem is
//! `<source>/<name>`: names alone can agree between sources. Python 3 solutions are kept by
//! default, Java ones (as Java tasks) when asked for (`--language java`, or `python,java` for
//! both). A name repeated within one source in the same load gets `#2`, `#3`… Other solutions
//! are counted and skipped; kept languages' `incorrect_solutions` are kept aside as known-broken
//! programs; problems that read or write files are skipped. Tasks validate with CodeContests' own checker ([`Checker::Tokens`]) and
//! the problem's time limit.
//!
//! The parquet reader streams record batches of a few rows through the columns it needs, so
//! memory follows what is kept, not the size of the file.

use super::{read_bytes, text_lines, BrokenProgram, Checker, Task, TaskError, TaskSet, TestCase};
use crate::program::Language;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::DataType;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `Solution.Language` values.
const PYTHON2: i64 = 1;
const PYTHON3: i64 = 3;
const JAVA: i64 = 4;
const CPP: i64 = 2;

/// The solution languages a load keeps, from `--language` (empty: Python 3).
pub(super) fn languages(requested: &[String]) -> Result<Vec<Language>, String> {
    let mut out = Vec::new();
    for r in requested {
        for part in r.split(',').map(|p| p.trim().to_ascii_lowercase()) {
            let lang = if part.starts_with("python") || part.starts_with("pypy") {
                Language::Python
            } else if part.starts_with("java") {
                Language::Java
            } else if matches!(part.as_str(), "cpp" | "c++" | "g++") {
                Language::Cpp
            } else if part.is_empty() {
                continue;
            } else {
                return Err(format!(
                    "CodeContests: language {part:?} is not one equimorph runs; \
                     use python (Python 3 solutions), java, cpp, or several"
                ));
            };
            if !out.contains(&lang) {
                out.push(lang);
            }
        }
    }
    if out.is_empty() {
        out.push(Language::Python);
    }
    Ok(out)
}

/// The `Solution.Language` value of a language equimorph runs.
fn code_of(language: Language) -> i64 {
    match language {
        Language::Python => PYTHON3,
        Language::Java => JAVA,
        Language::Cpp => CPP,
        // CodeContests has no C solutions.
        Language::C => -1,
    }
}

/// Rows per parquet record batch: a CodeContests row can carry megabytes of generated tests.
const ROWS_PER_BATCH: usize = 8;

/// The columns the loader reads; every other column is never decoded.
const COLUMNS: [&str; 10] = [
    "name",
    "source",
    "public_tests",
    "private_tests",
    "generated_tests",
    "solutions",
    "incorrect_solutions",
    "time_limit",
    "input_file",
    "output_file",
];

/// The name of a `ContestProblem.Source` value.
fn source_name(code: i64) -> String {
    match code {
        1 => "codechef".into(),
        2 => "codeforces".into(),
        3 => "hackerearth".into(),
        4 => "codejam".into(),
        6 => "atcoder".into(),
        7 => "aizu".into(),
        0 => "unknown".into(),
        n => format!("source{n}"),
    }
}

/// One problem as the loader needs it, from either format.
#[derive(Default)]
struct Problem {
    name: String,
    source: Option<String>,
    /// public, private, generated: (inputs, outputs).
    tests: [(Vec<String>, Vec<String>); 3],
    solutions: (Vec<i64>, Vec<String>),
    incorrect: (Vec<i64>, Vec<String>),
    time_limit_ms: Option<u64>,
    files: Option<String>,
}

/// Turns problems into tasks, keeping the identities unique within one load.
struct Collector {
    seen: HashMap<String, usize>,
    /// The solution languages kept.
    languages: Vec<Language>,
}

impl Collector {
    fn new(languages: &[Language]) -> Self {
        Collector {
            seen: HashMap::new(),
            languages: languages.to_vec(),
        }
    }
}

impl Collector {
    fn add(&mut self, set: &mut TaskSet, p: Problem, file: &Path, line: Option<usize>) {
        let base = match &p.source {
            Some(s) => format!("{s}/{}", p.name),
            None => p.name.clone(),
        };
        let n = self.seen.entry(base.clone()).or_default();
        *n += 1;
        let problem = if *n == 1 {
            base
        } else {
            set.push_problem(
                file,
                line,
                format!("problem {base:?} appears again; this copy is {base}#{n}"),
            );
            format!("{base}#{n}")
        };
        if p.files.is_some() {
            set.skip("problem(s) that read or write files", 1);
            return;
        }
        let mut tests = Vec::new();
        for (kind, (inputs, outputs)) in ["public", "private", "generated"].iter().zip(&p.tests) {
            if inputs.len() != outputs.len() {
                set.push_problem(
                    file,
                    line,
                    format!(
                        "{problem}: {kind}_tests has {} inputs but {} outputs; using the pairs",
                        inputs.len(),
                        outputs.len()
                    ),
                );
            }
            tests.extend(
                inputs
                    .iter()
                    .zip(outputs)
                    .map(|(i, o)| TestCase::stdin(i.clone(), Some(o.clone()))),
            );
        }
        if tests.is_empty() {
            set.skip("problem(s) without tests", 1);
            return;
        }
        let tests: Arc<[TestCase]> = tests.into();
        let (langs, sources) = &p.solutions;
        if langs.len() != sources.len() {
            set.push_problem(
                file,
                line,
                format!("{problem}: solutions.language and solutions.solution differ in length"),
            );
        }
        let mut kept = 0;
        for (i, (lang, src)) in langs.iter().zip(sources).enumerate() {
            match self.languages.iter().find(|l| code_of(**l) == *lang) {
                Some(language) => {
                    kept += 1;
                    set.tasks.push(Task {
                        id: format!("{problem}/{i}"),
                        source: src.clone(),
                        language: *language,
                        tests: tests.clone(),
                        test_code: None,
                        entry_point: None,
                        problem: Some(problem.clone()),
                        checker: Checker::Tokens,
                        time_limit_ms: p.time_limit_ms,
                        adequacy: None,
                    });
                }
                None if *lang == PYTHON2 => set.skip("Python 2 solution(s)", 1),
                None => set.skip("solution(s) in other languages", 1),
            }
        }
        if kept == 0 {
            set.skip(
                if self.languages == [Language::Python] {
                    "problem(s) without a Python 3 solution"
                } else {
                    "problem(s) without a solution in the languages asked for"
                },
                1,
            );
        }
        let (langs, sources) = &p.incorrect;
        for (i, (lang, src)) in langs.iter().zip(sources).enumerate() {
            if self.languages.iter().any(|l| code_of(*l) == *lang) {
                set.broken.push(BrokenProgram {
                    id: format!("{problem}/incorrect/{i}"),
                    problem: problem.clone(),
                    source: src.clone(),
                    verdict: "incorrect solution".into(),
                });
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON lines

#[derive(Deserialize, Default)]
struct JsonTests {
    #[serde(default)]
    input: Vec<String>,
    #[serde(default)]
    output: Vec<String>,
}

#[derive(Deserialize, Default)]
struct JsonSolutions {
    #[serde(default)]
    language: Vec<i64>,
    #[serde(default)]
    solution: Vec<String>,
}

#[derive(Deserialize)]
struct JsonDuration {
    #[serde(default)]
    seconds: i64,
    #[serde(default)]
    nanos: i64,
}

#[derive(Deserialize)]
struct JsonRecord {
    name: String,
    #[serde(default)]
    source: Option<serde_json::Value>,
    #[serde(default)]
    public_tests: JsonTests,
    #[serde(default)]
    private_tests: JsonTests,
    #[serde(default)]
    generated_tests: JsonTests,
    #[serde(default)]
    solutions: JsonSolutions,
    #[serde(default)]
    incorrect_solutions: JsonSolutions,
    #[serde(default)]
    time_limit: Option<JsonDuration>,
    #[serde(default)]
    input_file: Option<String>,
    #[serde(default)]
    output_file: Option<String>,
}

fn time_limit_ms(seconds: i64, nanos: i64) -> Option<u64> {
    let ms = seconds
        .saturating_mul(1000)
        .saturating_add(nanos / 1_000_000);
    (ms > 0).then_some(ms as u64)
}

fn files_of(input: Option<&str>, output: Option<&str>) -> Option<String> {
    let named: Vec<String> = [("input_file", input), ("output_file", output)]
        .into_iter()
        .filter_map(|(k, v)| {
            v.filter(|v| !v.trim().is_empty())
                .map(|v| format!("{k} {v}"))
        })
        .collect();
    (!named.is_empty()).then(|| named.join(", "))
}

impl From<JsonRecord> for Problem {
    fn from(r: JsonRecord) -> Self {
        let source = r.source.and_then(|v| match v {
            serde_json::Value::Number(n) => n.as_i64().map(source_name),
            serde_json::Value::String(s) => Some(s.to_ascii_lowercase()),
            _ => None,
        });
        Problem {
            files: files_of(r.input_file.as_deref(), r.output_file.as_deref()),
            name: r.name,
            source,
            tests: [
                (r.public_tests.input, r.public_tests.output),
                (r.private_tests.input, r.private_tests.output),
                (r.generated_tests.input, r.generated_tests.output),
            ],
            solutions: (r.solutions.language, r.solutions.solution),
            incorrect: (
                r.incorrect_solutions.language,
                r.incorrect_solutions.solution,
            ),
            time_limit_ms: r.time_limit.and_then(|d| time_limit_ms(d.seconds, d.nanos)),
        }
    }
}

pub(super) fn load_jsonl(path: &Path, languages: &[Language]) -> Result<TaskSet, TaskError> {
    let bytes = read_bytes(path)?;
    let mut set = TaskSet::default();
    let mut collector = Collector::new(languages);
    for (n, line) in text_lines(&bytes, path, &mut set) {
        match serde_json::from_str::<JsonRecord>(line) {
            Ok(r) => collector.add(&mut set, r.into(), path, Some(n)),
            Err(e) => {
                set.push_problem(path, Some(n), format!("malformed CodeContests record: {e}"))
            }
        }
    }
    Ok(set)
}

// ---------------------------------------------------------------------------------------------
// Parquet

/// The parquet files of `path`: the file itself, or a directory's `*.parquet` files (and those
/// of its `data/` folder, the Hugging Face repository's layout), sorted by name.
pub(super) fn parquet_files(path: &Path) -> Result<Vec<PathBuf>, TaskError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for dir in [path.to_path_buf(), path.join("data")] {
        if !dir.is_dir() {
            continue;
        }
        let entries = std::fs::read_dir(&dir).map_err(|error| TaskError::Io {
            path: dir.clone(),
            error,
        })?;
        files.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "parquet")),
        );
    }
    files.sort();
    Ok(files)
}

/// Why a parquet file cannot be read as CodeContests.
fn bad_file(path: &Path, message: impl Into<String>) -> TaskError {
    TaskError::Layout {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

pub(super) fn load_parquet(path: &Path, languages: &[Language]) -> Result<TaskSet, TaskError> {
    let mut tasks = Vec::new();
    let mut set = stream_parquet(path, languages, |t| tasks.push(t))?;
    set.tasks = tasks;
    Ok(set)
}

/// Streams the tasks of CodeContests parquet files (one file or a directory) to `visit`,
/// problem by problem, without holding them; the returned set has everything else (load
/// problems, skipped counts, known-broken programs) and no tasks. `languages`: the solutions
/// kept (Python 3 when empty).
pub fn stream_parquet(
    path: &Path,
    languages: &[Language],
    mut visit: impl FnMut(Task),
) -> Result<TaskSet, TaskError> {
    let files = parquet_files(path)?;
    if files.is_empty() {
        return Err(bad_file(path, "no .parquet file here"));
    }
    let mut set = TaskSet::default();
    let languages = if languages.is_empty() {
        &[Language::Python][..]
    } else {
        languages
    };
    let mut collector = Collector::new(languages);
    for file in &files {
        for_each_problem(file, |p| {
            match p {
                Ok((row, p)) => collector.add(&mut set, p, file, Some(row)),
                Err(message) => set.push_problem(file, None, message),
            }
            set.tasks.drain(..).for_each(&mut visit);
        })?;
    }
    Ok(set)
}

/// Streams the problems of one parquet file to `visit`, with their 1-based row numbers; a row
/// that cannot be read is passed as an error message and the rest still load.
fn for_each_problem(
    file: &Path,
    mut visit: impl FnMut(Result<(usize, Problem), String>),
) -> Result<(), TaskError> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ProjectionMask;
    let handle = std::fs::File::open(file).map_err(|error| TaskError::Io {
        path: file.to_path_buf(),
        error,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(handle)
        .map_err(|e| bad_file(file, format!("not a readable parquet file: {e}")))?;
    let fields = builder.parquet_schema().root_schema().get_fields();
    let roots: Vec<usize> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| COLUMNS.contains(&f.name()))
        .map(|(i, _)| i)
        .collect();
    if !fields.iter().any(|f| f.name() == "name") || !fields.iter().any(|f| f.name() == "solutions")
    {
        return Err(bad_file(
            file,
            "not CodeContests: the columns `name` and `solutions` are missing",
        ));
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(ROWS_PER_BATCH)
        .build()
        .map_err(|e| bad_file(file, format!("cannot read: {e}")))?;
    let mut row = 0usize;
    for batch in reader {
        let batch = batch
            .map_err(|e| bad_file(file, format!("cannot decode rows after row {row}: {e}")))?;
        let columns = Columns::of(&batch);
        for r in 0..batch.num_rows() {
            row += 1;
            visit(
                columns
                    .problem(r)
                    .map(|p| (row, p))
                    .map_err(|e| format!("row {row}: {e}")),
            );
        }
    }
    Ok(())
}

/// The columns of one record batch, by name.
struct Columns {
    name: Option<ArrayRef>,
    source: Option<ArrayRef>,
    tests: [Option<ArrayRef>; 3],
    solutions: Option<ArrayRef>,
    incorrect: Option<ArrayRef>,
    time_limit: Option<ArrayRef>,
    input_file: Option<ArrayRef>,
    output_file: Option<ArrayRef>,
}

impl Columns {
    fn of(batch: &RecordBatch) -> Self {
        let col = |n: &str| batch.column_by_name(n).cloned();
        Columns {
            name: col("name"),
            source: col("source"),
            tests: [
                col("public_tests"),
                col("private_tests"),
                col("generated_tests"),
            ],
            solutions: col("solutions"),
            incorrect: col("incorrect_solutions"),
            time_limit: col("time_limit"),
            input_file: col("input_file"),
            output_file: col("output_file"),
        }
    }

    fn problem(&self, r: usize) -> Result<Problem, String> {
        let name = self
            .name
            .as_ref()
            .and_then(|a| string_at(a, r))
            .ok_or("the problem has no name")?;
        let source = match &self.source {
            Some(a) if !a.is_null(r) => match integer_at(a, r) {
                Some(code) => Some(source_name(code)),
                None => string_at(a, r).map(|s| s.to_ascii_lowercase()),
            },
            _ => None,
        };
        let mut tests: [(Vec<String>, Vec<String>); 3] = Default::default();
        for (slot, col) in tests.iter_mut().zip(&self.tests) {
            // A null struct's children hold no meaning at that row.
            if let Some(a) = col.as_ref().filter(|a| !a.is_null(r)) {
                *slot = (
                    strings_in(field(a, "input")?.as_ref(), r)?,
                    strings_in(field(a, "output")?.as_ref(), r)?,
                );
            }
        }
        let pair = |col: &Option<ArrayRef>| -> Result<(Vec<i64>, Vec<String>), String> {
            match col {
                Some(a) if !a.is_null(r) => Ok((
                    integers_in(field(a, "language")?.as_ref(), r)?,
                    strings_in(field(a, "solution")?.as_ref(), r)?,
                )),
                _ => Ok(Default::default()),
            }
        };
        let time_limit_ms = match &self.time_limit {
            Some(a) if !a.is_null(r) => {
                let part = |n: &str| -> Result<i64, String> {
                    Ok(integer_at(&field(a, n)?, r).unwrap_or(0))
                };
                time_limit_ms(part("seconds")?, part("nanos")?)
            }
            _ => None,
        };
        let text = |c: &Option<ArrayRef>| c.as_ref().and_then(|a| string_at(a, r));
        Ok(Problem {
            name,
            source,
            tests,
            solutions: pair(&self.solutions)?,
            incorrect: pair(&self.incorrect)?,
            time_limit_ms,
            files: files_of(
                text(&self.input_file).as_deref(),
                text(&self.output_file).as_deref(),
            ),
        })
    }
}

/// A child of a struct column (`public_tests.input`, `solutions.language`, …).
fn field(a: &ArrayRef, name: &str) -> Result<ArrayRef, String> {
    let s: &StructArray = a
        .as_struct_opt()
        .ok_or_else(|| format!("expected a struct column, found {}", a.data_type()))?;
    s.column_by_name(name)
        .cloned()
        .ok_or_else(|| format!("the struct column has no field `{name}`"))
}

/// Row `r` of a string column (any of Arrow's string layouts).
fn string_at(a: &dyn Array, r: usize) -> Option<String> {
    if r >= a.len() || a.is_null(r) {
        return None;
    }
    match a.data_type() {
        DataType::Utf8 => Some(a.as_string::<i32>().value(r).to_string()),
        DataType::LargeUtf8 => Some(a.as_string::<i64>().value(r).to_string()),
        DataType::Utf8View => Some(a.as_string_view().value(r).to_string()),
        _ => None,
    }
}

/// Row `r` of an integer column (any width).
fn integer_at(a: &dyn Array, r: usize) -> Option<i64> {
    use arrow_array::types::*;
    if r >= a.len() || a.is_null(r) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Int8 => a.as_primitive::<Int8Type>().value(r).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(r).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(r).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(r),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(r).into(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(r).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(r).into(),
        DataType::UInt64 => i64::try_from(a.as_primitive::<UInt64Type>().value(r)).ok()?,
        _ => return None,
    })
}

/// The list in row `r` of a list column (`List` or `LargeList`); empty when null.
fn list_at(a: &dyn Array, r: usize) -> Result<Option<ArrayRef>, String> {
    if r >= a.len() || a.is_null(r) {
        return Ok(None);
    }
    match a.data_type() {
        DataType::List(_) => Ok(Some(a.as_list::<i32>().value(r))),
        DataType::LargeList(_) => Ok(Some(a.as_list::<i64>().value(r))),
        other => Err(format!("expected a list column, found {other}")),
    }
}

fn strings_in(a: &dyn Array, r: usize) -> Result<Vec<String>, String> {
    let Some(items) = list_at(a, r)? else {
        return Ok(Vec::new());
    };
    (0..items.len())
        .map(|i| {
            if items.is_null(i) {
                return Ok(String::new());
            }
            string_at(items.as_ref(), i)
                .ok_or_else(|| format!("expected strings, found {}", items.data_type()))
        })
        .collect()
}

fn integers_in(a: &dyn Array, r: usize) -> Result<Vec<i64>, String> {
    let Some(items) = list_at(a, r)? else {
        return Ok(Vec::new());
    };
    (0..items.len())
        .map(|i| {
            integer_at(items.as_ref(), i)
                .ok_or_else(|| format!("expected integers, found {}", items.data_type()))
        })
        .collect()
}
