//! Project CodeNet: `data/<problem>/Python/<submission>.py`, with the problem's sample test in
//! `derived/input_output/data/<problem>/{input.txt,output.txt}`. One task per submission, id
//! `<problem>/<submission>`.

use super::{Task, TaskError, TaskSet, TestCase};
use std::path::{Path, PathBuf};

fn sorted_entries(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    Ok(v)
}

pub(super) fn load(root: &Path) -> Result<TaskSet, TaskError> {
    let data = root.join("data");
    if !data.is_dir() {
        return Err(TaskError::Layout {
            path: root.to_path_buf(),
            message: "not a CodeNet directory: data/<problem>/Python/*.py is missing".into(),
        });
    }
    let io_root = root.join("derived/input_output/data");
    let mut set = TaskSet::default();
    let problems = sorted_entries(&data).map_err(|source| TaskError::Io {
        path: data.clone(),
        source,
    })?;
    for problem_dir in problems.into_iter().filter(|p| p.is_dir()) {
        let problem = problem_dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let py_dir = problem_dir.join("Python");
        if !py_dir.is_dir() {
            continue;
        }
        let io_dir = io_root.join(&problem);
        let input = std::fs::read(io_dir.join("input.txt"));
        let output = std::fs::read(io_dir.join("output.txt"));
        let (input, output) = match (input, output) {
            (Ok(i), Ok(o)) => (i, o),
            _ => {
                set.push_problem(
                    &io_dir,
                    None,
                    format!("{problem}: input.txt / output.txt missing; problem skipped"),
                );
                continue;
            }
        };
        let (Ok(input), Ok(output)) = (String::from_utf8(input), String::from_utf8(output)) else {
            set.push_problem(
                &io_dir,
                None,
                format!("{problem}: test files are not valid UTF-8; problem skipped"),
            );
            continue;
        };
        let files = match sorted_entries(&py_dir) {
            Ok(f) => f,
            Err(e) => {
                set.push_problem(&py_dir, None, e.to_string());
                continue;
            }
        };
        for file in files
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "py"))
        {
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match std::fs::read(&file).map(String::from_utf8) {
                Ok(Ok(source)) => set.tasks.push(Task {
                    id: format!("{problem}/{stem}"),
                    source,
                    tests: vec![TestCase {
                        input: input.clone(),
                        output: Some(output.clone()),
                    }],
                    test_code: None,
                    entry_point: None,
                    problem: Some(problem.clone()),
                }),
                Ok(Err(_)) => {
                    set.push_problem(&file, None, "submission is not valid UTF-8; skipped")
                }
                Err(e) => set.push_problem(&file, None, e.to_string()),
            }
        }
    }
    Ok(set)
}
