//! The attack end to end: lazy = naive, determinism, verified answers, resume after SIGKILL,
//! skipped tasks, and clear errors for bad options.

use crate::common;

use equimorph::detector::onnx::{OnnxDetector, OnnxOptions};
use equimorph::detector::Device;
use equimorph::oracle::{OracleMode, ValidationStatus};
use equimorph::report::{results, Status};
use equimorph::search::{OracleOrder, SearchConfig, Searcher};
use equimorph::task::Task;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tiny_model() -> PathBuf {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    p
}

fn tiny_detector(batch_size: usize) -> OnnxDetector {
    let options = OnnxOptions {
        devices: vec![Device::Cpu],
        threads: 2,
        batch_size,
        ..OnnxOptions::default()
    };
    OnnxDetector::open(&tiny_model(), options).unwrap()
}

fn subset(n: usize) -> (tempfile::TempDir, PathBuf) {
    common::fixture_subset(n)
}

#[test]
fn lazy_oracle_selects_exactly_what_algorithm_1_selects_with_fewer_checks() {
    let set = common::default_set();
    let transforms: Vec<_> = set.iter().cloned().collect();
    let det = tiny_detector(16);
    let (mut lazy_checks, mut naive_checks) = (0, 0);
    for task in common::fixture_tasks().tasks.iter().take(10) {
        let mut results = Vec::new();
        for order in [OracleOrder::Lazy, OracleOrder::All] {
            // A fresh oracle each time, so neither run benefits from the other's cache.
            let oracle = common::oracle(OracleMode::Fork);
            let reference = oracle.validate(task).reference.expect("fixture ok");
            let config = SearchConfig {
                beam: 3,
                iterations: 3,
                seed: 11,
                oracle_order: order,
                ..SearchConfig::default()
            };
            results.push(
                Searcher::new(&transforms, &det, &oracle, config)
                    .run(task, &reference)
                    .unwrap(),
            );
        }
        let (lazy, naive) = (&results[0], &results[1]);
        assert_eq!(lazy.beams, naive.beams, "{}: beams differ", task.id);
        assert_eq!(lazy.best, naive.best, "{}: answers differ", task.id);
        assert!(lazy.counts.oracle_checked <= naive.counts.oracle_checked);
        lazy_checks += lazy.counts.oracle_checked;
        naive_checks += naive.counts.oracle_checked;
    }
    assert!(
        lazy_checks * 2 < naive_checks,
        "lazy {lazy_checks} vs naive {naive_checks} oracle checks"
    );
}

fn attack(tasks: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let spec = format!("onnx:{}", tiny_model().display());
    Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args([
            "attack",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--detector",
            &spec,
        ])
        .args(["--beam", "2", "--iterations", "2", "--seed", "5", "--quiet"])
        .args(extra)
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .output()
        .unwrap()
}

/// Result lines keyed by id, without the timing fields.
fn comparable(dir: &Path) -> std::collections::BTreeMap<String, serde_json::Value> {
    let lines = results::read(&dir.join("results.jsonl")).unwrap();
    let ids: std::collections::HashSet<_> = lines.iter().map(|l| l.id.clone()).collect();
    assert_eq!(ids.len(), lines.len(), "duplicate ids in {}", dir.display());
    lines
        .into_iter()
        .map(|l| {
            let mut v = serde_json::to_value(&l).unwrap();
            v.as_object_mut().unwrap().remove("seconds");
            (l.id, v)
        })
        .collect()
}

#[test]
fn same_seed_same_results_every_answer_verified_and_resume_after_sigkill() {
    let (_d, tasks) = subset(12);
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let out = attack(&tasks, a.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(attack(&tasks, b.path(), &[]).status.success());
    let first = comparable(a.path());
    assert_eq!(first.len(), 12);
    assert_eq!(
        first,
        comparable(b.path()),
        "same seed and inputs must give the same results"
    );
    for f in ["summary.json", "report.md", "report.html", "run.json"] {
        assert!(a.path().join(f).is_file(), "{f} missing");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["attacked"], 12);
    let html = std::fs::read_to_string(a.path().join("report.html")).unwrap();
    assert!(
        html.contains("<svg") && !html.contains("http://")
            || html.contains("xmlns=\"http://www.w3.org/2000/svg\"")
    );

    // Every answer passes the oracle and the task's own tests.
    let oracle = common::oracle(OracleMode::Fork);
    let fixtures = common::fixture_tasks();
    for line in results::read(&a.path().join("results.jsonl")).unwrap() {
        assert_eq!(line.status, Status::Ok);
        let task = fixtures.get(&line.id).unwrap();
        let best = line.best.clone().unwrap();
        let as_task = Task {
            source: best.clone(),
            ..task.clone()
        };
        assert_eq!(
            oracle.validate(&as_task).status,
            ValidationStatus::Ok,
            "{}: best fails its own tests",
            line.id
        );
        let reference = oracle.reference(task);
        assert!(
            oracle
                .check(task, &reference, &best)
                .expect("the sandbox works")
                .equivalent,
            "{}",
            line.id
        );
        assert!(
            line.similarity.unwrap() <= 1.0
                && (line.distance.unwrap() - (1.0 - line.similarity.unwrap())).abs() < 1e-6
        );
    }

    // Kill a run part-way (SIGKILL), tear its last line by hand, resume: same final results.
    let c = tempfile::tempdir().unwrap();
    let spec = format!("onnx:{}", tiny_model().display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args([
            "attack",
            tasks.to_str().unwrap(),
            "--out",
            c.path().to_str().unwrap(),
            "--detector",
            &spec,
        ])
        .args(["--beam", "2", "--iterations", "2", "--seed", "5", "--quiet"])
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let res = c.path().join("results.jsonl");
    let t = Instant::now();
    // Kill at the first result: searches with the tiny model take milliseconds, so waiting for
    // more lets a busy machine finish the run before the kill lands.
    while results::read(&res).map(|l| l.len()).unwrap_or(0) < 1
        && t.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = results::read(&res).unwrap().len();
    assert!((1..12).contains(&partial), "killed after {partial} tasks");
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&res)
        .unwrap()
        .write_all(b"{\"id\": \"torn")
        .unwrap();
    let resumed = attack(&tasks, c.path(), &[]);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("resuming"));
    assert_eq!(
        comparable(c.path()),
        first,
        "resumed run differs from an uninterrupted one"
    );
}

#[test]
fn failing_originals_are_skipped_with_a_reason_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let good = common::fixture("sum-two");
    let bad = Task {
        id: "broken".into(),
        source: "print(int(input()) + 1)\n".into(),
        ..good.clone()
    };
    let flaky = Task {
        id: "random".into(),
        source: "import os\nprint(os.urandom(4).hex())\n".into(),
        tests: vec![equimorph::task::TestCase::stdin("", None)].into(),
        ..good.clone()
    };
    let text = [&bad, &good, &flaky]
        .iter()
        .map(|t| serde_json::to_string(t).unwrap() + "\n")
        .collect::<String>()
        + "{oops\n";
    std::fs::write(&tasks, text).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = attack(&tasks, out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("tasks.jsonl:4"),
        "malformed line reported"
    );
    let lines = results::read(&out.path().join("results.jsonl")).unwrap();
    let by_id: std::collections::HashMap<_, _> = lines.iter().map(|l| (l.id.as_str(), l)).collect();
    assert_eq!(by_id["broken"].status, Status::Skipped);
    assert!(by_id["broken"]
        .reason
        .as_deref()
        .unwrap()
        .contains("failing"));
    assert_eq!(by_id["random"].status, Status::Skipped);
    assert!(by_id["random"].reason.as_deref().unwrap().contains("flaky"));
    assert_eq!(by_id["sum-two"].status, Status::Ok);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("| broken | skipped |"), "{md}");
}

#[test]
fn bad_options_give_clear_errors() {
    let (_d, tasks) = subset(2);
    let out = tempfile::tempdir().unwrap();
    let o = attack(
        &tasks,
        out.path(),
        &["--transforms", "var-rename,no-such-transform"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown transform \"no-such-transform\""));
    let o = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args([
            "attack",
            tasks.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
            "--detector",
            "gpt-judge",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown detector \"gpt-judge\""));
    let o = attack(&tasks, out.path(), &["--beam", "0"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--beam"));
    let o = attack(&tasks, out.path(), &["--transforms", "/no/such/dir"]);
    assert!(!o.status.success());
    let o = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(["report", out.path().join("nope").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("no results.jsonl"));
}

#[test]
fn greedy_random_and_budgets_behave_as_documented() {
    use equimorph::search::Strategy;
    let set = common::default_set();
    let transforms: Vec<_> = set.iter().cloned().collect();
    let det = tiny_detector(8);
    let oracle = common::oracle(OracleMode::Fork);
    for task in common::fixture_tasks().tasks.iter().take(4) {
        let reference = oracle.validate(task).reference.unwrap();
        let run = |config: SearchConfig| {
            Searcher::new(&transforms, &det, &oracle, config)
                .run(task, &reference)
                .unwrap()
        };
        for strategy in [Strategy::Greedy, Strategy::Random] {
            let config = SearchConfig {
                strategy,
                iterations: 4,
                seed: 3,
                ..SearchConfig::default()
            };
            let (a, b) = (run(config.clone()), run(config));
            assert_eq!(a.best, b.best, "{strategy:?} is deterministic");
            assert!(
                a.beams.iter().all(|beam| beam.len() <= 1),
                "{strategy:?} keeps one program"
            );
            assert!(a.best.similarity <= 1.0);
            assert!(
                oracle
                    .check(task, &reference, &a.best.text)
                    .expect("the sandbox works")
                    .equivalent,
                "{strategy:?} answer verified"
            );
            // Replaying the recorded steps from the original reproduces the answer.
            let mut text = task.source.clone();
            for step in &a.best.steps {
                text = set
                    .get(&step.name)
                    .unwrap()
                    .apply(&text, step.seed)
                    .unwrap()
                    .unwrap();
            }
            assert_eq!(
                text, a.best.text,
                "{strategy:?}: steps replay to the answer"
            );
        }
        let capped = run(SearchConfig {
            max_queries: Some(5),
            ..SearchConfig::default()
        });
        assert!(capped.counts.scored <= 5, "{:?}", capped.counts);
        let few_checks = run(SearchConfig {
            max_oracle: Some(2),
            ..SearchConfig::default()
        });
        assert!(
            few_checks.counts.oracle_checked <= 2,
            "{:?}",
            few_checks.counts
        );
        let early = run(SearchConfig {
            stop_below: Some(1.0),
            ..SearchConfig::default()
        });
        assert!(
            early.iterations <= 1 || early.best.similarity >= 1.0,
            "stops once below the threshold"
        );
        let timed = run(SearchConfig {
            time_per_task: Some(Duration::ZERO),
            ..SearchConfig::default()
        });
        assert_eq!(timed.iterations, 0);
        assert_eq!(timed.stopped.as_deref(), Some("time budget reached"));
    }
}

#[test]
fn keep_verified_writes_every_accepted_candidate_and_each_one_behaves_like_the_original() {
    let (_d, tasks) = subset(4);
    let out = tempfile::tempdir().unwrap();
    let o = attack(&tasks, out.path(), &["--keep-verified"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let set = equimorph::task::load(&tasks, None).unwrap();
    let lines: Vec<serde_json::Value> = common::read(out.path().join("verified.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results = comparable(out.path());
    assert!(!lines.is_empty(), "the searches accepted candidates");
    for (id, r) in &results {
        let mine: Vec<_> = lines.iter().filter(|l| l["task_id"] == **id).collect();
        // The sink sees every accepted candidate, so as many as the search counted.
        assert_eq!(
            mine.len() as u64,
            r["counts"]["accepted"].as_u64().unwrap(),
            "{id}"
        );
        // The best (when the search moved at all) is one of them, with the same M.
        if !r["transforms"].as_array().unwrap().is_empty() {
            assert!(
                mine.iter().any(|l| l["source"] == r["best"]
                    && l["similarity"].as_f64().unwrap() as f32
                        == r["similarity"].as_f64().unwrap() as f32),
                "{id}: the best is not among the verified"
            );
        }
        let task = set.get(id).unwrap();
        for l in mine {
            common::assert_behaves_like_original(task, l["source"].as_str().unwrap());
        }
    }
    // A killed run's candidates of an unfinished task are dropped on resume: simulate one.
    let path = out.path().join("verified.jsonl");
    let text = common::read(&path);
    let results_path = out.path().join("results.jsonl");
    let mut result_lines: Vec<String> = common::read(&results_path)
        .lines()
        .map(String::from)
        .collect();
    result_lines.pop();
    std::fs::write(&results_path, result_lines.join("\n") + "\n").unwrap();
    let o = attack(&tasks, out.path(), &["--keep-verified"]);
    assert!(o.status.success());
    assert_eq!(common::read(&path), text, "no loss, no duplicates");
}
