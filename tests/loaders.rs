//! Every task loader on a small sample we wrote, with bad input reported by file and line.

mod common;

use equimorph::task::{detect_format, load, TaskFormat};
use std::io::Write;

#[test]
fn our_jsonl_keeps_good_lines_and_reports_bad_ones_with_line_numbers() {
    let path = common::root().join("fixtures/formats/mixed.jsonl");
    let set = load(&path, None).unwrap();
    let ids: Vec<_> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["good-1", "good-2"]);
    assert_eq!(set.tasks[1].tests[0].output, None, "output may be absent");
    let lines: Vec<_> = set.problems.iter().map(|p| p.location.line).collect();
    assert_eq!(
        lines,
        [Some(2), Some(3), Some(4), None],
        "{:?}",
        set.problems
    );
    assert!(set.problems[1].message.contains("UTF-8"));
    assert!(set.problems[2]
        .message
        .contains("neither tests nor test_code"));
    assert!(set.problems[3].message.contains("duplicate task id"));
    assert!(set.problems[0].to_string().contains("mixed.jsonl:2"));
}

#[test]
fn humaneval_plain_and_gzipped() {
    let path = common::root().join("fixtures/formats/humaneval.jsonl");
    assert_eq!(detect_format(&path).unwrap(), TaskFormat::Humaneval);
    let set = load(&path, None).unwrap();
    assert_eq!(set.tasks.len(), 2);
    let t = &set.tasks[0];
    assert_eq!(t.id, "Sample/0");
    assert_eq!(t.entry_point.as_deref(), Some("add"));
    assert!(t.source.starts_with("def add(a, b):") && t.source.contains("return a + b"));
    assert!(t
        .test_code
        .as_deref()
        .unwrap()
        .trim_end()
        .ends_with("check(add)"));
    assert_eq!(set.problems.len(), 1);
    assert_eq!(set.problems[0].location.line, Some(3));

    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("HumanEval.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(&std::fs::read(&path).unwrap()).unwrap();
    enc.finish().unwrap();
    let zipped = load(&gz, None).unwrap();
    assert_eq!(zipped.tasks, set.tasks);
    // The loaded tasks really pass their own tests.
    let oracle = common::oracle(equimorph::oracle::OracleMode::Fork);
    for t in &zipped.tasks {
        assert_eq!(
            oracle.validate(t).status,
            equimorph::oracle::ValidationStatus::Ok,
            "{}",
            t.id
        );
    }
}

#[test]
fn codecontests_one_task_per_python3_solution() {
    let path = common::root().join("fixtures/formats/codecontests.jsonl");
    assert_eq!(detect_format(&path).unwrap(), TaskFormat::Codecontests);
    let set = load(&path, None).unwrap();
    let ids: Vec<_> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["double-it/0", "double-it/2"]);
    assert_eq!(set.tasks[0].tests.len(), 3, "public + private + generated");
    assert!(set
        .problems
        .iter()
        .any(|p| p.message.contains("no-python: no Python 3 solution")));
}

#[test]
fn codenet_directory_with_a_non_utf8_submission() {
    let path = common::root().join("fixtures/formats/codenet");
    assert_eq!(detect_format(&path).unwrap(), TaskFormat::Codenet);
    let set = load(&path, Some(TaskFormat::Codenet)).unwrap();
    let ids: Vec<_> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["p00001/s001", "p00001/s002"]);
    assert_eq!(set.tasks[0].tests[0].output.as_deref(), Some("49\n"));
    assert_eq!(set.problems.len(), 1);
    assert!(set.problems[0].location.file.ends_with("s003.py"));
}

#[test]
fn unknown_and_missing_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.jsonl");
    std::fs::write(&odd, "{\"name\": 1}\n").unwrap();
    // The library names the problem; the command names its own option (tests/messages.rs).
    assert!(load(&odd, None)
        .unwrap_err()
        .to_string()
        .contains("cannot tell the format"));
    let missing = dir.path().join("missing.jsonl");
    assert!(load(&missing, None)
        .unwrap_err()
        .to_string()
        .contains("missing.jsonl"));
    assert!(load(dir.path(), None)
        .unwrap_err()
        .to_string()
        .contains("not a CodeNet directory"));
}
