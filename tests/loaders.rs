//! Every task loader on a small sample we wrote, with bad input reported by file and line.

#[path = "support/codecontests_parquet.rs"]
mod codecontests_parquet;
use crate::common;

use equimorph::oracle::{OracleMode, ValidationStatus};
use equimorph::task::{detect_format, load, load_with, Checker, LoadOptions, Task, TaskFormat};
use std::io::Write;

fn skipped(set: &equimorph::task::TaskSet, reason: &str) -> usize {
    set.skipped.get(reason).copied().unwrap_or(0)
}

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
        [Some(2), Some(3), Some(4), Some(6)],
        "{:?}",
        set.problems
    );
    assert!(set.problems[1].message.contains("UTF-8"));
    assert!(set.problems[2]
        .message
        .contains("neither tests nor test_code"));
    assert_eq!(
        set.problems[3].message,
        "duplicate id \"good-1\", first on line 1; kept the first"
    );
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
    assert_eq!(skipped(&set, "problem(s) without a Python 3 solution"), 1);
    assert_eq!(skipped(&set, "Python 2 solution(s)"), 1);
    assert_eq!(set.tasks[0].checker, Checker::Tokens);
}

#[test]
fn codecontests_parquet_as_shipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test-00000-of-00001.parquet");
    codecontests_parquet::write(&path, codecontests_parquet::sample_rows(), 3);
    assert_eq!(detect_format(&path).unwrap(), TaskFormat::Parquet);
    assert_eq!(detect_format(dir.path()).unwrap(), TaskFormat::Parquet);
    let set = load(&path, None).unwrap();
    let ids: Vec<_> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "codeforces/1_A. Double/0",
            "codeforces/1_A. Double/3",
            "codechef/1_A. Double/0",
            "codeforces/2_B. Yes or no/0",
            "codeforces/1_A. Double#2/0",
        ]
    );
    // Identity is source + name, and a repeat within one source is told apart.
    let problems: Vec<_> = set
        .tasks
        .iter()
        .map(|t| t.problem.clone().unwrap())
        .collect();
    assert_eq!(problems[0], problems[1]);
    assert_ne!(problems[0], problems[2]);
    assert_ne!(problems[0], problems[4]);
    assert!(set
        .problems
        .iter()
        .any(|p| p.message.contains("appears again")));
    assert_eq!(skipped(&set, "Python 2 solution(s)"), 1);
    assert_eq!(skipped(&set, "solution(s) in other languages"), 3);
    assert_eq!(skipped(&set, "problem(s) that read or write files"), 1);
    assert_eq!(skipped(&set, "problem(s) without tests"), 1);
    assert_eq!(skipped(&set, "problem(s) without a Python 3 solution"), 1);
    let report = set.report();
    assert_eq!((report.tasks, report.problems, report.broken), (5, 4, 2));
    // Python 3 incorrect solutions are kept aside, never tasks.
    let broken: Vec<_> = set.broken.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(
        broken,
        [
            "codeforces/1_A. Double/incorrect/0",
            "codeforces/1_A. Double/incorrect/2"
        ]
    );
    let t = &set.tasks[0];
    assert_eq!(t.tests.len(), 4, "public + private + generated");
    assert_eq!(t.checker, Checker::Tokens);
    assert_eq!(t.time_limit_ms, Some(2000));
    assert_eq!(set.tasks[2].time_limit_ms, Some(1500));
    assert_eq!(set.tasks[3].time_limit_ms, None, "a null time_limit");
    // All solutions of one problem share one copy of its tests.
    assert!(std::sync::Arc::ptr_eq(
        &set.tasks[0].tests,
        &set.tasks[1].tests
    ));

    // Every accepted Python 3 solution validates under the official checker (one prints
    // 6.0000000 for 6, another "yes" for YES); the known-broken ones do not.
    let oracle = common::oracle(OracleMode::Fork);
    for t in &set.tasks {
        let v = oracle.validate(t);
        assert_eq!(v.status, ValidationStatus::Ok, "{}: {:?}", t.id, v.reason);
    }
    for b in &set.broken {
        let as_task = Task {
            source: b.source.clone(),
            ..set.tasks[0].clone()
        };
        assert_eq!(
            oracle.validate(&as_task).status,
            ValidationStatus::Failing,
            "{}",
            b.id
        );
    }
    // A candidate is still compared with its original exactly: printing 6.0000000 where the
    // original printed 6 is a different program.
    let original = &set.tasks[0];
    let reference = oracle.reference(original);
    let d = oracle
        .check(
            original,
            &reference,
            "n = int(input())\nprint('%.7f' % (n + n))\n",
        )
        .unwrap();
    assert!(!d.equivalent);
    let d = oracle
        .check(original, &reference, "print(int(input()) * 2)\n")
        .unwrap();
    assert!(d.equivalent);

    // The fixture in the repository is this sample, written by the same script.
    let shipped = load(
        &common::root().join("fixtures/formats/codecontests/sample.parquet"),
        None,
    )
    .unwrap();
    assert_eq!(shipped.tasks, set.tasks);
    assert_eq!(shipped.broken, set.broken);
}

#[test]
fn codecontests_parquet_directory_streaming_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    codecontests_parquet::write(
        &data.join("train-00000-of-00002.parquet"),
        codecontests_parquet::synthetic_rows(3, 4),
        2,
    );
    codecontests_parquet::write(
        &data.join("train-00001-of-00002.parquet"),
        codecontests_parquet::synthetic_rows(5, 2).skip(3),
        2,
    );
    // The Hugging Face repository's layout: the split files under data/.
    let set = load(dir.path(), None).unwrap();
    assert_eq!(set.tasks.len(), 3 * 4 + 2 * 2);
    assert_eq!(skipped(&set, "Python 2 solution(s)"), 5);
    assert_eq!(set.broken.len(), 5);
    let mut streamed = Vec::new();
    let rest = equimorph::task::stream_parquet(dir.path(), &[], |t| streamed.push(t.id)).unwrap();
    assert!(rest.tasks.is_empty());
    assert_eq!(
        streamed,
        set.tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>()
    );

    // Riegeli is refused with a pointer to the parquet copy; a non-parquet file is an error
    // naming it; a parquet file of another dataset is refused by its columns.
    let riegeli = dir.path().join("code_contests_valid.riegeli");
    std::fs::write(&riegeli, b"\x83\xafriegeli").unwrap();
    let e = load(&riegeli, None).unwrap_err().to_string();
    assert!(e.contains("Riegeli") && e.contains("parquet"), "{e}");
    let fake = dir.path().join("fake.parquet");
    std::fs::write(&fake, b"not parquet at all").unwrap();
    let e = load(&fake, None).unwrap_err().to_string();
    assert!(e.contains("fake.parquet") && e.contains("parquet"), "{e}");
    let other = dir.path().join("other.parquet");
    {
        use arrow_array::{ArrayRef, Int64Array, RecordBatch};
        let col: ArrayRef = std::sync::Arc::new(Int64Array::from(vec![1i64, 2]));
        let batch = RecordBatch::try_from_iter([("x", col)]).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&other).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }
    let e = load(&other, None).unwrap_err().to_string();
    assert!(e.contains("not CodeContests"), "{e}");
}

fn ids(tasks: &[Task]) -> Vec<&str> {
    tasks.iter().map(|t| t.id.as_str()).collect()
}

#[test]
fn codenet_as_shipped_with_metadata_clusters_and_filters() {
    let path = common::root().join("fixtures/formats/codenet");
    assert_eq!(detect_format(&path).unwrap(), TaskFormat::Codenet);
    let set = load(&path, Some(TaskFormat::Codenet)).unwrap();
    // Accepted Python 3 (CPython or PyPy3) submissions only.
    assert_eq!(
        ids(&set.tasks),
        ["p00001/s001", "p00001/s002", "p00002/s101"]
    );
    // p00003 has no sample test: its submission loads without tests.
    assert_eq!(ids(&set.untested), ["p00003/s201"]);
    assert_eq!(set.tasks[0].tests[0].output.as_deref(), Some("49\n"));
    // p00002 is in p00001's identical-problem cluster: one problem id for both.
    assert_eq!(set.tasks[2].problem.as_deref(), Some("p00001"));
    assert_eq!(set.untested[0].problem.as_deref(), Some("p00003"));
    assert_eq!(set.tasks[0].time_limit_ms, Some(1000));
    assert_eq!(set.tasks[2].time_limit_ms, Some(2000));
    for (reason, n) in [
        ("submission(s) with status Wrong Answer", 1),
        ("submission(s) with status Runtime Error", 1),
        ("submission(s) with status Time Limit Exceeded", 1),
        ("submission(s) with status WA: Presentation Error", 1),
        ("Python 2 submission(s)", 1),
        ("submission(s) missing from the metadata", 1),
    ] {
        assert_eq!(skipped(&set, reason), n, "{reason}: {:?}", set.skipped);
    }
    // Wrong answers and crashes are kept aside as known-broken programs.
    let broken: Vec<_> = set
        .broken
        .iter()
        .map(|b| (b.id.as_str(), b.verdict.as_str()))
        .collect();
    assert_eq!(
        broken,
        [
            ("p00001/s004", "Wrong Answer"),
            ("p00001/s006", "Runtime Error")
        ]
    );
    // The non-UTF-8 submission is a warning naming its file.
    assert!(set
        .problems
        .iter()
        .any(|p| p.location.file.ends_with("s003.py") && p.message.contains("UTF-8")));
    let oracle = common::oracle(OracleMode::Fork);
    for t in &set.tasks {
        assert_eq!(oracle.validate(t).status, ValidationStatus::Ok, "{}", t.id);
    }
    for b in &set.broken {
        let as_task = Task {
            source: b.source.clone(),
            ..set.tasks[0].clone()
        };
        assert_ne!(
            oracle.validate(&as_task).status,
            ValidationStatus::Ok,
            "{}",
            b.id
        );
    }

    // --status and --language choose other submissions.
    let options = LoadOptions {
        statuses: vec!["Accepted".into(), "Wrong Answer".into()],
        ..LoadOptions::default()
    };
    let set = load_with(&path, None, &options).unwrap();
    assert_eq!(
        ids(&set.tasks),
        ["p00001/s001", "p00001/s002", "p00001/s004", "p00002/s101"]
    );
    let options = LoadOptions {
        languages: vec!["python (2".into()],
        ..LoadOptions::default()
    };
    let set = load_with(&path, None, &options).unwrap();
    assert_eq!(ids(&set.tasks), ["p00001/s005"]);
}

#[test]
fn codenet_benchmark_subset_with_and_without_the_full_root() {
    let subset =
        common::root().join("fixtures/formats/codenet_python800/Project_CodeNet_Python800");
    assert_eq!(detect_format(&subset).unwrap(), TaskFormat::Codenet);
    let set = load(&subset, None).unwrap();
    assert!(set.tasks.is_empty());
    assert_eq!(
        ids(&set.untested),
        ["p00001/s001", "p00001/s002", "p00002/s101", "p00003/s201"]
    );
    assert!(set
        .problems
        .iter()
        .any(|p| p.message.contains("--codenet-root")));
    let options = LoadOptions {
        codenet_root: Some(common::root().join("fixtures/formats/codenet")),
        ..LoadOptions::default()
    };
    let set = load_with(&subset, None, &options).unwrap();
    assert_eq!(
        ids(&set.tasks),
        ["p00001/s001", "p00001/s002", "p00002/s101"]
    );
    assert_eq!(ids(&set.untested), ["p00003/s201"]);
    assert_eq!(set.tasks[2].problem.as_deref(), Some("p00001"));
    let bad = LoadOptions {
        codenet_root: Some(subset.clone()),
        ..LoadOptions::default()
    };
    let e = load_with(&subset, None, &bad).unwrap_err().to_string();
    assert!(e.contains("not a full CodeNet directory"), "{e}");
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

#[test]
fn gptclonebench_standalone_pairs_from_the_folder_and_its_zip() {
    use equimorph::detector::CloneType;
    use equimorph::task::gptclonebench;
    let root = common::root().join("fixtures/formats/gptclonebench");
    assert!(gptclonebench::is_clone_bench(&root));
    let bench = gptclonebench::load(&root, 7).unwrap();
    let counts = bench.counts();
    assert_eq!(counts.get("Type-1/2"), Some(&2));
    assert_eq!(counts.get("Type-3"), Some(&2));
    // Clone_3 is tab-indented and loads like the others.
    assert_eq!(counts.get("Type-4"), Some(&3));
    assert_eq!(counts.get("non-clone"), Some(&7));
    assert_eq!(bench.skipped.get("Python 2 file(s)"), Some(&1));
    assert_eq!(bench.skipped.get("file(s) that do not parse"), Some(&1));
    assert_eq!(
        bench
            .skipped
            .get("java file(s) (not read until that language is supported)"),
        Some(&1)
    );
    let tab = bench
        .pairs
        .iter()
        .find(|p| p.id.ends_with("T4/Clone_3.py"))
        .unwrap();
    assert_eq!(tab.clone_type, Some(CloneType::Type4));
    assert!(tab.a.starts_with("def flatten(items):\n\tresult = []"));
    assert!(tab.b.starts_with("def flatten(items):\n\tstack"));
    let false_pair = bench
        .pairs
        .iter()
        .find(|p| p.id.ends_with("Gpt_false_pair_1.py"))
        .unwrap();
    assert!(
        false_pair.clone,
        "GPTCloneBench's false semantic clones are still clones"
    );
    assert_eq!(false_pair.clone_type, Some(CloneType::Type12));
    // Non-clones come from two different files whose seeds differ, reproducibly.
    for p in bench.pairs.iter().filter(|p| !p.clone) {
        let (x, y) = p.id.split_once(" + ").unwrap();
        assert_ne!(x, y);
        assert_ne!(p.a, p.b);
    }
    assert_eq!(gptclonebench::load(&root, 7).unwrap().pairs, bench.pairs);
    assert_ne!(gptclonebench::load(&root, 8).unwrap().pairs, bench.pairs);

    // The zip the benchmark ships as holds the same pairs.
    let dir = tempfile::tempdir().unwrap();
    let zip_path = dir.path().join("GPTCloneBench_standalone.zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let name = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if p.is_dir() {
                    zip.add_directory(format!("{name}/"), options).unwrap();
                    stack.push(p);
                } else {
                    zip.start_file(name, options).unwrap();
                    zip.write_all(&std::fs::read(&p).unwrap()).unwrap();
                }
            }
        }
        zip.finish().unwrap();
    }
    assert!(gptclonebench::is_clone_bench(&zip_path));
    let zipped = gptclonebench::load(&zip_path, 7).unwrap();
    assert_eq!(zipped.pairs, bench.pairs);
    assert_eq!(zipped.skipped, bench.skipped);
    // A folder without the benchmark's folders is refused by name.
    let e = gptclonebench::load(dir.path(), 7).unwrap_err().to_string();
    assert!(e.contains("true_semantic_clones"), "{e}");
}

#[test]
fn an_attack_on_the_parquet_sample_records_what_was_loaded_and_judges_by_the_task_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let sample = common::root().join("fixtures/formats/codecontests/sample.parquet");
    let o = common::equimorph(
        &[
            "attack",
            sample.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--threshold",
            "0.5",
            "--search",
            "beam",
            "--beam",
            "1",
            "--iterations",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    common::success_stdout(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("kept 5 task(s) of 4 problem(s)"),
        "{stderr}"
    );
    let run: serde_json::Value = serde_json::from_str(&common::read(out.join("run.json"))).unwrap();
    assert_eq!(run["dataset"]["tasks"], 5);
    assert_eq!(run["dataset"]["skipped"]["Python 2 solution(s)"], 1);
    assert!(common::read(out.join("report.md")).contains("Tasks loaded: kept 5 task(s)"));
    // Every task validated under the official checker and was attacked.
    let results = common::read(out.join("results.jsonl"));
    assert_eq!(results.lines().count(), 5);
    assert!(!results.contains("\"skipped\""), "{results}");
}
