//! CodeContests JSON lines: `name`, `public_tests` / `private_tests` / `generated_tests` as
//! parallel `input` / `output` lists, `solutions` as parallel `language` / `solution` lists.
//! One task per Python 3 solution (language 3), with id `<name>/<index of the solution>`.

use super::{read_bytes, text_lines, Task, TaskError, TaskSet, TestCase};
use serde::Deserialize;
use std::path::Path;

/// CodeContests' language code for Python 3.
const PYTHON3: i64 = 3;

#[derive(Deserialize, Default)]
struct Tests {
    #[serde(default)]
    input: Vec<String>,
    #[serde(default)]
    output: Vec<String>,
}

#[derive(Deserialize, Default)]
struct Solutions {
    #[serde(default)]
    language: Vec<i64>,
    #[serde(default)]
    solution: Vec<String>,
}

#[derive(Deserialize)]
struct Record {
    name: String,
    #[serde(default)]
    public_tests: Tests,
    #[serde(default)]
    private_tests: Tests,
    #[serde(default)]
    generated_tests: Tests,
    #[serde(default)]
    solutions: Solutions,
}

pub(super) fn load(path: &Path) -> Result<TaskSet, TaskError> {
    let bytes = read_bytes(path)?;
    let mut set = TaskSet::default();
    for (n, line) in text_lines(&bytes, path, &mut set) {
        let r: Record = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => {
                set.push_problem(path, Some(n), format!("malformed CodeContests record: {e}"));
                continue;
            }
        };
        let mut tests = Vec::new();
        for (kind, t) in [
            ("public", &r.public_tests),
            ("private", &r.private_tests),
            ("generated", &r.generated_tests),
        ] {
            if t.input.len() != t.output.len() {
                set.push_problem(
                    path,
                    Some(n),
                    format!(
                        "{}: {kind}_tests has {} inputs but {} outputs; using the pairs",
                        r.name,
                        t.input.len(),
                        t.output.len()
                    ),
                );
            }
            tests.extend(t.input.iter().zip(&t.output).map(|(i, o)| TestCase {
                input: i.clone(),
                output: Some(o.clone()),
            }));
        }
        if tests.is_empty() {
            set.push_problem(path, Some(n), format!("{}: no tests", r.name));
            continue;
        }
        if r.solutions.language.len() != r.solutions.solution.len() {
            set.push_problem(
                path,
                Some(n),
                format!(
                    "{}: solutions.language and solutions.solution differ in length",
                    r.name
                ),
            );
        }
        let mut found = false;
        for (i, (lang, src)) in r
            .solutions
            .language
            .iter()
            .zip(&r.solutions.solution)
            .enumerate()
        {
            if *lang == PYTHON3 {
                found = true;
                set.tasks.push(Task {
                    id: format!("{}/{i}", r.name),
                    source: src.clone(),
                    tests: tests.clone(),
                    test_code: None,
                    entry_point: None,
                    problem: Some(r.name.clone()),
                });
            }
        }
        if !found {
            set.push_problem(path, Some(n), format!("{}: no Python 3 solution", r.name));
        }
    }
    Ok(set)
}
