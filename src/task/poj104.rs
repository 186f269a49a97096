//! POJ-104 (CodeXGLUE's Clone-detection-POJ-104): C and C++ programs of 104 problems, with no
//! tests. Two layouts are read:
//!
//! - the tree of `programs.tar.gz` once unpacked: `ProgramData/<class>/<id>.txt`, one
//!   directory per problem (1…104), one file per program;
//! - the JSONL its `preprocess.py` writes (`train.jsonl`, `valid.jsonl`, `test.jsonl`): one
//!   object per program with `label` (the class), `index` and `code`.
//!
//! Every program becomes an untested task of its class's problem (`poj104/<class>`), in C or
//! C++ as its text shows (see [`language_of`]), so the
//! set serves `calibrate` (two programs of one class are clones), `augment --unverified` and
//! `train`; attacks need tests first: `tests grow` seeds them from inputs most programs of a
//! class agree on ([`crate::adequacy::seed`]).

use super::{Task, TaskError, TaskSet};
use crate::language::{error_count, Language};
use std::path::Path;

/// Words only C++ has (headers, streams, namespaces, classes, templates, `new`).
const CPP_MARKS: &[&str] = &[
    "iostream",
    "using namespace",
    "cout",
    "cin",
    "::",
    "template",
    "class ",
    "string",
    "vector",
    "new ",
    "delete ",
    "bool ",
    "#include<algorithm>",
    "#include <algorithm>",
];

/// The language a POJ-104 program is written in, since the dataset does not say: C when it
/// parses as C and uses nothing only C++ has (many old programs are C, `void main()`
/// included), C++ otherwise.
fn language_of(source: &str) -> Language {
    let c_clean = Language::C
        .parse(source)
        .is_ok_and(|t| error_count(t.root_node()) == 0);
    if c_clean && !CPP_MARKS.iter().any(|m| source.contains(m)) {
        Language::C
    } else {
        Language::Cpp
    }
}

/// Adds one program of class `class` to `set` (empty or blank programs are skipped and counted).
fn add(set: &mut TaskSet, class: &str, index: &str, source: String) {
    if source.trim().is_empty() {
        set.skip("empty program(s)", 1);
        return;
    }
    let language = language_of(&source);
    let mut task =
        Task::new(format!("poj104/{class}/{index}"), source, Vec::new()).in_language(language);
    task.problem = Some(format!("poj104/{class}"));
    set.untested.push(task);
}

/// Whether `dir` looks like POJ-104's unpacked tree: `ProgramData`, or a directory whose
/// subdirectories have numeric names and hold `.txt` files.
pub(super) fn is_tree(dir: &Path) -> bool {
    let root = if dir.join("ProgramData").is_dir() {
        dir.join("ProgramData")
    } else {
        dir.to_path_buf()
    };
    let Ok(entries) = std::fs::read_dir(&root) else {
        return false;
    };
    let classes: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    !classes.is_empty()
        && classes.iter().all(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        && classes.iter().any(|p| {
            std::fs::read_dir(p).is_ok_and(|mut it| {
                it.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "txt")))
            })
        })
}

/// Loads the unpacked tree (`ProgramData/<class>/<id>.txt`), classes in numeric order.
pub(super) fn load_tree(dir: &Path) -> Result<TaskSet, TaskError> {
    let root = if dir.join("ProgramData").is_dir() {
        dir.join("ProgramData")
    } else {
        dir.to_path_buf()
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| TaskError::Io { path, error }
    };
    let mut classes: Vec<(u64, std::path::PathBuf)> = std::fs::read_dir(&root)
        .map_err(io(&root))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let n = p.file_name()?.to_str()?.parse::<u64>().ok()?;
            Some((n, p))
        })
        .collect();
    classes.sort();
    let mut set = TaskSet::default();
    for (class, path) in classes {
        let mut files: Vec<_> = std::fs::read_dir(&path)
            .map_err(io(&path))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            let index = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match std::fs::read(&file) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(source) => add(&mut set, &class.to_string(), &index, source),
                    Err(e) => {
                        // Old POJ programs may be in a legacy encoding: their bytes are kept
                        // as Latin-1 would read them only in comments and strings, which
                        // cannot be told apart here, so the program is left out.
                        let _ = e;
                        set.skip("program(s) not valid UTF-8", 1);
                        set.push_problem(&file, None, "program is not valid UTF-8; skipped");
                    }
                },
                Err(e) => {
                    set.skip("program(s) that cannot be read", 1);
                    set.push_problem(&file, None, format!("cannot read the program: {e}"));
                }
            }
        }
    }
    Ok(set)
}

/// Loads the JSONL of CodeXGLUE's `preprocess.py` (`label`, `index`, `code` per line).
pub(super) fn load_jsonl(path: &Path) -> Result<TaskSet, TaskError> {
    let text = super::read_lines_lossy(path)?;
    let mut set = TaskSet::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                set.skip("malformed line(s)", 1);
                set.push_problem(path, Some(n + 1), format!("not JSON: {e}"));
                continue;
            }
        };
        let field = |k: &str| match value.get(k) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(x)) => Some(x.to_string()),
            _ => None,
        };
        match (field("label"), field("index"), field("code")) {
            (Some(label), Some(index), Some(code)) => add(&mut set, &label, &index, code),
            _ => {
                set.skip("malformed line(s)", 1);
                set.push_problem(
                    path,
                    Some(n + 1),
                    "a POJ-104 line needs label, index and code",
                );
            }
        }
    }
    Ok(set)
}
