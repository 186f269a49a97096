//! HumanEval (`HumanEval.jsonl` or `.jsonl.gz`): `task_id`, `prompt`, `canonical_solution`,
//! `test` (defines `check(candidate)`), `entry_point`.

use super::{read_bytes, text_lines, Task, TaskError, TaskSet};
use serde::Deserialize;
use std::io::Read;
use std::path::Path;

#[derive(Deserialize)]
struct Record {
    task_id: String,
    prompt: String,
    canonical_solution: String,
    test: String,
    entry_point: String,
}

pub(super) fn load(path: &Path) -> Result<TaskSet, TaskError> {
    let raw = read_bytes(path)?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| TaskError::Layout {
                path: path.to_path_buf(),
                message: format!("not a valid gzip file: {e}"),
            })?;
        out
    } else {
        raw
    };
    let mut set = TaskSet::default();
    for (n, line) in text_lines(&bytes, path, &mut set) {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => {
                let mut task = Task::new(
                    r.task_id,
                    format!("{}{}", r.prompt, r.canonical_solution),
                    Vec::new(),
                );
                task.test_code = Some(format!(
                    "{}\n\ncheck({})\n",
                    r.test.trim_end(),
                    r.entry_point
                ));
                task.entry_point = Some(r.entry_point);
                set.tasks.push(task);
            }
            Err(e) => set.push_problem(path, Some(n), format!("malformed HumanEval record: {e}")),
        }
    }
    Ok(set)
}
