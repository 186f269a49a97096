//! equimorph's task JSONL: `{"id", "source", "tests"?, "test_code"?, "entry_point"?}` per line.

use super::{read_bytes, text_lines, Task, TaskError, TaskSet};
use std::collections::HashMap;
use std::path::Path;

pub(super) fn load(path: &Path) -> Result<TaskSet, TaskError> {
    let bytes = read_bytes(path)?;
    if super::is_json_array(&bytes) {
        return Err(TaskError::JsonArray {
            path: path.to_path_buf(),
        });
    }
    let mut set = TaskSet::default();
    // The line each id was first seen on: a later task with the same id is reported there.
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (n, line) in text_lines(&bytes, path, &mut set) {
        match serde_json::from_str::<Task>(line) {
            Ok(task) if task.id.trim().is_empty() => {
                set.push_problem(path, Some(n), "task has an empty id")
            }
            Ok(task) if task.tests.is_empty() && task.test_code.is_none() => {
                set.push_problem(
                    path,
                    Some(n),
                    format!(
                        "task {:?} has neither tests nor test_code (only `augment --unverified` \
                         uses it)",
                        task.id
                    ),
                );
                set.untested.push(task);
            }
            Ok(task) => {
                if let Some(first) = first_line.get(&task.id) {
                    set.push_problem(
                        path,
                        Some(n),
                        format!(
                            "duplicate id {:?}, first on line {first}; kept the first",
                            task.id
                        ),
                    );
                } else {
                    first_line.insert(task.id.clone(), n);
                    set.tasks.push(task);
                }
            }
            Err(e) => set.push_problem(path, Some(n), format!("malformed task: {e}")),
        }
    }
    Ok(set)
}
