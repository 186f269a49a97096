//! Project CodeNet, as it ships.
//!
//! - The full dataset: `data/<problem>/Python/<submission>.py`, `metadata/problem_list.csv`
//!   (`id,name,dataset,time_limit,memory_limit,…`, time limit in ms), `metadata/<problem>.csv`
//!   (`submission_id,problem_id,user_id,date,language,original_language,filename_ext,status,…`),
//!   the sample test in `derived/input_output/data/<problem>/{input.txt,output.txt}` and the
//!   identical-problem clusters in `derived/duplicates/identical_problem_clusters` (one
//!   comma-separated line of problem ids per cluster).
//! - A benchmark subset (`Project_CodeNet_Python800` and its siblings): `<problem>/<submission>.py`
//!   with nothing else; tests, metadata and clusters come from a full root when one is given
//!   ([`LoadOptions::codenet_root`]), otherwise its tasks load without tests.
//!
//! One task per kept submission, id `<problem>/<submission>`; its `problem` is the first id of
//! the problem's identical-problem cluster, so copies of one problem share an identity. With
//! metadata, only `Accepted` Python 3 submissions are kept by default; rejected Python 3
//! submissions that gave a wrong answer or crashed are kept aside as known-broken programs.

use super::{BrokenProgram, LoadOptions, Task, TaskError, TaskSet, TestCase};
use crate::program::Language;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Statuses whose submissions behave differently from an accepted one on some judge test.
const BROKEN_STATUSES: [&str; 2] = ["Wrong Answer", "Runtime Error"];

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, TaskError> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| TaskError::Io {
            path: dir.to_path_buf(),
            error,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `p` followed by five digits.
fn is_problem_id(name: &str) -> bool {
    name.len() == 6 && name.starts_with('p') && name[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Where a load finds each part.
struct Layout {
    /// Problem directories, sorted.
    problems: Vec<PathBuf>,
    /// The full dataset (`data/<problem>/<Language>/`) rather than a benchmark subset
    /// (`<problem>/*.py` or `<problem>/*.java`).
    full_layout: bool,
    /// The full dataset's root, for metadata, tests and clusters.
    full: Option<PathBuf>,
}

impl Layout {
    fn of(root: &Path, options: &LoadOptions) -> Result<Self, TaskError> {
        let data = root.join("data");
        if data.is_dir() {
            return Ok(Layout {
                problems: sorted_entries(&data)?
                    .into_iter()
                    .filter(|p| p.is_dir())
                    .collect(),
                full_layout: true,
                full: Some(root.to_path_buf()),
            });
        }
        let problems: Vec<PathBuf> = sorted_entries(root)?
            .into_iter()
            .filter(|p| p.is_dir() && is_problem_id(&file_name(p)))
            .collect();
        if problems.is_empty() {
            return Err(TaskError::Layout {
                path: root.to_path_buf(),
                message: "not a CodeNet directory: expected data/<problem>/Python/*.py (the full \
                          dataset) or <problem>/*.py or <problem>/*.java (a benchmark subset \
                          such as Project_CodeNet_Python800 or Project_CodeNet_Java250)"
                    .into(),
            });
        }
        if let Some(full) = &options.codenet_root {
            if !full.join("data").is_dir() && !full.join("metadata").is_dir() {
                return Err(TaskError::Layout {
                    path: full.clone(),
                    message: "--codenet-root is not a full CodeNet directory (no data/ or \
                              metadata/)"
                        .into(),
                });
            }
        }
        Ok(Layout {
            problems,
            full_layout: false,
            full: options.codenet_root.clone(),
        })
    }
}

/// One row of `metadata/<problem>.csv`.
struct Submission {
    language: String,
    original_language: String,
    status: String,
}

/// Reads a CSV with a header into rows keyed by column name; `None` when the file is absent.
fn read_csv(path: &Path, set: &mut TaskSet) -> Option<Vec<HashMap<String, String>>> {
    let mut reader = match csv::ReaderBuilder::new().flexible(true).from_path(path) {
        Ok(r) => r,
        Err(e) => {
            if path.exists() {
                set.push_problem(path, None, format!("cannot read: {e}"));
            }
            return None;
        }
    };
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => {
            set.push_problem(path, None, format!("cannot read the header: {e}"));
            return None;
        }
    };
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        match rec {
            Ok(r) => rows.push(
                header
                    .iter()
                    .cloned()
                    .zip(r.iter().map(|s| s.trim().to_string()))
                    .collect(),
            ),
            Err(e) => set.push_problem(path, Some(i + 2), format!("malformed CSV row: {e}")),
        }
    }
    Some(rows)
}

/// Problem → its cluster's first problem.
fn read_clusters(full: &Path, set: &mut TaskSet) -> HashMap<String, String> {
    let path = full.join("derived/duplicates/identical_problem_clusters");
    let mut map = HashMap::new();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return map;
    };
    for line in text.lines() {
        let ids: Vec<&str> = line
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if ids.iter().any(|id| !is_problem_id(id)) {
            set.push_problem(&path, None, format!("not a list of problem ids: {line:?}"));
            continue;
        }
        if let Some(first) = ids.first() {
            for id in &ids {
                map.insert(id.to_string(), first.to_string());
            }
        }
    }
    map
}

/// Problem → time limit in ms, from `metadata/problem_list.csv`.
fn read_time_limits(full: &Path, set: &mut TaskSet) -> HashMap<String, u64> {
    let path = full.join("metadata/problem_list.csv");
    read_csv(&path, set)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|row| {
            let id = row.get("id")?.clone();
            let ms = row.get("time_limit")?.parse::<f64>().ok()?;
            (ms > 0.0).then_some((id, ms as u64))
        })
        .collect()
}

/// Which submissions a load keeps.
struct Filter {
    statuses: Vec<String>,
    languages: Vec<String>,
}

impl Filter {
    fn of(options: &LoadOptions) -> Self {
        let lower = |v: &[String]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        Filter {
            statuses: if options.statuses.is_empty() {
                vec!["accepted".into()]
            } else {
                lower(&options.statuses)
            },
            languages: lower(&options.languages),
        }
    }

    fn status_kept(&self, s: &Submission) -> bool {
        self.statuses.contains(&s.status.to_lowercase())
    }

    /// Whether the submission's language is kept; by default Python 3 (CPython or PyPy) from
    /// Python folders, Java from Java folders, C++ and C from theirs.
    fn language_kept(&self, s: &Submission, folder: Language) -> bool {
        let orig = s.original_language.to_lowercase();
        if self.languages.is_empty() {
            return match folder {
                Language::Python => is_python3(&orig),
                Language::Java => s.language.eq_ignore_ascii_case("java"),
                Language::Cpp => s.language.eq_ignore_ascii_case("c++"),
                Language::C => s.language.eq_ignore_ascii_case("c"),
            };
        }
        self.languages
            .iter()
            .any(|l| *l == s.language.to_lowercase() || orig.starts_with(l.as_str()))
    }
}

/// `Python (3.4.3)`, `Python3`, `PyPy3 (2.4.0)`, … (original_language, lower-cased).
fn is_python3(orig: &str) -> bool {
    orig.starts_with("python (3")
        || orig.starts_with("python3")
        || orig.starts_with("pypy3")
        || orig.starts_with("python 3")
}

fn is_python2(orig: &str) -> bool {
    orig.starts_with("python (2")
        || orig.starts_with("python2")
        || orig.starts_with("pypy2")
        || orig.starts_with("python 2")
        || orig.starts_with("pypy (2")
}

fn read_metadata(
    full: &Path,
    problem: &str,
    set: &mut TaskSet,
) -> Option<HashMap<String, Submission>> {
    let rows = read_csv(&full.join("metadata").join(format!("{problem}.csv")), set)?;
    Some(
        rows.into_iter()
            .filter_map(|mut row| {
                let id = row.remove("submission_id")?;
                Some((
                    id,
                    Submission {
                        language: row.remove("language").unwrap_or_default(),
                        original_language: row.remove("original_language").unwrap_or_default(),
                        status: row.remove("status").unwrap_or_default(),
                    },
                ))
            })
            .collect(),
    )
}

/// The problem's sample test, when the full dataset has one.
fn sample_test(full: &Path, problem: &str, set: &mut TaskSet) -> Option<TestCase> {
    let dir = full.join("derived/input_output/data").join(problem);
    let (Ok(input), Ok(output)) = (
        std::fs::read(dir.join("input.txt")),
        std::fs::read(dir.join("output.txt")),
    ) else {
        return None;
    };
    match (String::from_utf8(input), String::from_utf8(output)) {
        (Ok(input), Ok(output)) => Some(TestCase::stdin(input, Some(output))),
        _ => {
            set.push_problem(
                &dir,
                None,
                format!(
                    "{problem}: test files are not valid UTF-8; its submissions load without tests"
                ),
            );
            None
        }
    }
}

pub(super) fn load(root: &Path, options: &LoadOptions) -> Result<TaskSet, TaskError> {
    let layout = Layout::of(root, options)?;
    let filter = Filter::of(options);
    let mut set = TaskSet::default();
    let (clusters, time_limits) = match &layout.full {
        Some(full) => (
            read_clusters(full, &mut set),
            read_time_limits(full, &mut set),
        ),
        None => Default::default(),
    };
    let mut without_metadata = 0usize;
    let names_java = filter.languages.iter().any(|l| l == "java");
    let is_cpp = |l: &str| matches!(l, "c++" | "cpp" | "g++");
    let names_cpp = filter.languages.iter().any(|l| is_cpp(l));
    let names_c = filter.languages.iter().any(|l| l == "c");
    let names_python = filter.languages.is_empty()
        || filter
            .languages
            .iter()
            .any(|l| !l.starts_with("java") && !is_cpp(l) && l != "c");
    for problem_dir in &layout.problems {
        let problem = file_name(problem_dir);
        // Where the submissions are, and which extensions count: the full dataset keeps each
        // language in its own folder (Java only when `--language` names it); a benchmark
        // subset holds them side by side (Project_CodeNet_Java250: only `.java`, loaded as Java).
        let mut folders: Vec<(PathBuf, Language)> = Vec::new();
        if layout.full_layout {
            if names_python {
                folders.push((problem_dir.join("Python"), Language::Python));
            }
            if names_java {
                folders.push((problem_dir.join("Java"), Language::Java));
            }
            if names_cpp {
                folders.push((problem_dir.join("C++"), Language::Cpp));
            }
            if names_c {
                folders.push((problem_dir.join("C"), Language::C));
            }
        } else {
            let has = |ext: &str| {
                sorted_entries(problem_dir)
                    .is_ok_and(|v| v.iter().any(|p| p.extension().is_some_and(|e| e == ext)))
            };
            if names_python && has("py") {
                folders.push((problem_dir.clone(), Language::Python));
            }
            if names_java || (filter.languages.is_empty() && !has("py") && has("java")) {
                folders.push((problem_dir.clone(), Language::Java));
            }
            // Project_CodeNet_C++1000 / C++1400: only `.cpp`, loaded as C++.
            let alone = filter.languages.is_empty() && !has("py") && !has("java");
            if names_cpp || (alone && has("cpp")) {
                folders.push((problem_dir.clone(), Language::Cpp));
            }
            if names_c || (alone && !has("cpp") && has("c")) {
                folders.push((problem_dir.clone(), Language::C));
            }
        }
        for (dir, language) in folders {
            load_folder(
                &dir,
                language,
                &problem,
                &layout,
                &filter,
                &clusters,
                &time_limits,
                &mut without_metadata,
                &mut set,
            )?;
        }
    }
    finish_load(root, &layout, without_metadata, set)
}

/// Loads the submissions of one problem in one language from `dir`.
#[allow(clippy::too_many_arguments)]
fn load_folder(
    dir: &Path,
    language: Language,
    problem: &str,
    layout: &Layout,
    filter: &Filter,
    clusters: &HashMap<String, String>,
    time_limits: &HashMap<String, u64>,
    without_metadata: &mut usize,
    set: &mut TaskSet,
) -> Result<(), TaskError> {
    let problem = problem.to_string();
    let extension = match language {
        Language::Python => "py",
        Language::Java => "java",
        Language::Cpp => "cpp",
        Language::C => "c",
    };
    if !dir.is_dir() {
        return Ok(());
    }
    let full = layout.full.as_deref();
    let metadata = full.and_then(|f| read_metadata(f, &problem, set));
    let tests: Arc<[TestCase]> = full
        .and_then(|f| sample_test(f, &problem, set))
        .into_iter()
        .collect::<Vec<_>>()
        .into();
    let identity = clusters
        .get(&problem)
        .cloned()
        .unwrap_or_else(|| problem.clone());
    for file in sorted_entries(dir)?
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == extension))
    {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut broken_verdict = None;
        // Counted once the file is read: one that cannot be is not kept.
        let mut no_metadata = false;
        match metadata.as_ref().map(|m| m.get(&stem)) {
            None => no_metadata = true,
            Some(None) => {
                set.skip("submission(s) missing from the metadata", 1);
                continue;
            }
            Some(Some(s)) => {
                if !filter.language_kept(s, language) {
                    let orig = s.original_language.to_lowercase();
                    let reason = if is_python2(&orig) {
                        "Python 2 submission(s)".to_string()
                    } else {
                        format!("submission(s) in {}", s.original_language)
                    };
                    set.skip(&reason, 1);
                    continue;
                }
                if !filter.status_kept(s) {
                    set.skip(&format!("submission(s) with status {}", s.status), 1);
                    if !BROKEN_STATUSES.contains(&s.status.as_str()) {
                        continue;
                    }
                    broken_verdict = Some(s.status.clone());
                }
            }
        }
        let source = match std::fs::read(&file).map(String::from_utf8) {
            Ok(Ok(s)) => s,
            Ok(Err(_)) => {
                // A broken program's is already counted as skipped (by its status).
                if broken_verdict.is_none() {
                    set.skip("submission(s) not valid UTF-8", 1);
                }
                set.push_problem(&file, None, "submission is not valid UTF-8; skipped");
                continue;
            }
            Err(e) => {
                if broken_verdict.is_none() {
                    set.skip("submission(s) that cannot be read", 1);
                }
                set.push_problem(&file, None, format!("cannot read the submission: {e}"));
                continue;
            }
        };
        if no_metadata {
            *without_metadata += 1;
        }
        let id = format!("{problem}/{stem}");
        if let Some(verdict) = broken_verdict {
            set.broken.push(BrokenProgram {
                id,
                problem: identity.clone(),
                source,
                verdict,
            });
            continue;
        }
        let mut task = Task::new(id, source, Vec::new()).in_language(language);
        task.tests = tests.clone();
        task.problem = Some(identity.clone());
        task.time_limit_ms = time_limits.get(&problem).copied();
        if task.tests.is_empty() {
            set.untested.push(task);
        } else {
            set.tasks.push(task);
        }
    }
    Ok(())
}

/// Reports what the whole load could not know or test.
fn finish_load(
    root: &Path,
    layout: &Layout,
    without_metadata: usize,
    mut set: TaskSet,
) -> Result<TaskSet, TaskError> {
    if without_metadata > 0 {
        set.push_problem(
            root,
            None,
            format!(
                "{without_metadata} submission(s) have no metadata/<problem>.csv row to read: \
                 their status and language are unknown, so all were kept"
            ),
        );
    }
    if !set.untested.is_empty() {
        set.push_problem(
            root,
            None,
            format!(
                "{} submission(s) have no test (no derived/input_output sample{}): they load \
                 without tests, for `augment --unverified`, `calibrate` and `train`",
                set.untested.len(),
                if layout.full.is_none() {
                    "; pass --codenet-root with the full dataset to take its tests"
                } else {
                    ""
                }
            ),
        );
    }
    Ok(set)
}
