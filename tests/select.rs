//! `equimorph select` on the fixture candidate groups: the counts and rewards it reports equal
//! an independent recomputation (apply, validity, oracle, detector), the winners form a
//! transform set that `attack` uses as is, a bad candidate never stops the run, and a rerun
//! resumes.

use crate::common;

use equimorph::detector::DetectorOptions;
use equimorph::oracle::OracleMode;
use equimorph::program::{classify, Classified};
use equimorph::select::task_seed;
use equimorph::transform::{Limits, TransformRuntime, TransformSet};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn stdout_of(out: &std::process::Output) -> String {
    common::success_stdout(out)
}

fn select(candidates: &Path, tasks: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    select_with(candidates, tasks, out, "jaccard", extra)
}

/// `select` scored by `detector`.
fn select_with(
    candidates: &Path,
    tasks: &Path,
    out: &Path,
    detector: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "select",
        candidates.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--detector",
        detector,
        "--quiet",
    ];
    args.extend_from_slice(extra);
    common::equimorph(&args, None)
}

fn selection(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("selection.json")).expect("selection.json");
    serde_json::from_str(&text).expect("a JSON array")
}

fn row<'a>(rows: &'a [Value], group: &str, file: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["group"] == group && r["file"] == file)
        .unwrap_or_else(|| panic!("no row for {group}/{file}"))
}

fn tasks_in_pairs(out: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(out.join("pairs.jsonl"))
        .expect("pairs.jsonl")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a record");
            v["task"].as_str().unwrap().to_string()
        })
        .collect()
}

const FIELDS: [&str; 13] = [
    "group",
    "file",
    "name",
    "tasks",
    "applicable",
    "correct",
    "broken",
    "invalid",
    "errors",
    "truncated",
    "mean_distance",
    "reward",
    "selected",
];

#[test]
fn select_on_the_fixture_groups_matches_an_independent_recomputation() {
    let out = tempfile::tempdir().unwrap();
    let candidates = common::root().join("fixtures/scripts");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let printed = stdout_of(&select(
        &candidates,
        &tasks,
        out.path(),
        &["--limit", "14", "--seed", "3"],
    ));
    assert!(
        printed.contains("15 candidates in 3 groups, 14 validation tasks"),
        "{printed}"
    );

    let rows = selection(out.path());
    assert_eq!(rows.len(), 15);
    for r in &rows {
        let keys: BTreeSet<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, FIELDS.into_iter().collect(), "{r}");
        assert_eq!(r["tasks"], 14);
    }
    for group in ["for-to-while", "if-else-swap", "rename-locals"] {
        let never = row(&rows, group, "never.py");
        assert_eq!(never["applicable"], 0, "{never}");
        assert_eq!(never["reward"], 0.0);
        assert_eq!(never["selected"], false);
        let crashy = row(&rows, group, "crashy.py");
        assert!(
            crashy["errors"]["guest-error"].as_u64().unwrap() > 0,
            "{crashy}"
        );
        let strong = row(&rows, group, "strong.py");
        assert_eq!(strong["broken"], 0, "{strong}");
        assert!(strong["reward"].as_f64().unwrap() > 0.0);
        assert!(
            strong["reward"].as_f64() >= row(&rows, group, "weak.py")["reward"].as_f64(),
            "{group}: the strong candidate should out-score the weak one"
        );
        let winners: Vec<&Value> = rows
            .iter()
            .filter(|r| r["group"] == group && r["selected"] == true)
            .collect();
        assert_eq!(winners.len(), 1, "{group}");
        let best = rows
            .iter()
            .filter(|r| r["group"] == group)
            .map(|r| r["reward"].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(winners[0]["reward"].as_f64().unwrap(), best);
    }
    // Each subtly wrong candidate breaks at least one of the programs it applies to. The
    // sample of 14 tasks is drawn with seed 3; the full corpus holds all of their traps.
    let full = tempfile::tempdir().unwrap();
    stdout_of(&select(&candidates, &tasks, full.path(), &[]));
    let all = selection(full.path());
    for group in ["for-to-while", "if-else-swap", "rename-locals"] {
        let wrong = row(&all, group, "wrong.py");
        assert!(wrong["broken"].as_u64().unwrap() > 0, "{wrong}");
    }

    // Recompute every count and reward from apply + validity + oracle + detector.
    let sample = tasks_in_pairs(out.path());
    assert_eq!(sample.len(), 14);
    let cache = tempfile::tempdir().unwrap();
    let rt = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf())).unwrap();
    let detector = equimorph::detector::open("jaccard", DetectorOptions::default()).unwrap();
    let oracle = common::oracle(OracleMode::Fork);
    let all_tasks = common::fixture_tasks();
    for r in &rows {
        let path = candidates
            .join(r["group"].as_str().unwrap())
            .join(r["file"].as_str().unwrap());
        let t = rt.load(&path).unwrap();
        let (mut applicable, mut correct, mut broken, mut invalid, mut sum) = (0, 0, 0, 0, 0.0f64);
        for id in &sample {
            let task = all_tasks.get(id).unwrap();
            let reference = oracle.reference(task);
            let Ok(Some(out)) = t.apply(&task.source, task_seed(3, task)) else {
                continue;
            };
            match classify(&task.source, out) {
                Classified::Unchanged => {}
                Classified::Invalid(_) => {
                    applicable += 1;
                    invalid += 1;
                }
                Classified::Valid(text) => {
                    applicable += 1;
                    if oracle
                        .check(task, &reference, &text)
                        .expect("the sandbox works")
                        .equivalent
                    {
                        correct += 1;
                        let m = detector.score(&task.source, &[&text]).unwrap()[0];
                        sum += f64::from(1.0 - m);
                    } else {
                        broken += 1;
                    }
                }
            }
        }
        let what = format!("{}/{}", r["group"], r["file"]);
        assert_eq!(r["applicable"], applicable, "{what}");
        assert_eq!(r["correct"], correct, "{what}");
        assert_eq!(r["broken"], broken, "{what}");
        assert_eq!(r["invalid"], invalid, "{what}");
        let reward = r["reward"].as_f64().unwrap();
        assert!(
            (reward - sum / 14.0).abs() < 1e-5,
            "{what}: {reward} vs {}",
            sum / 14.0
        );
    }

    // The winners are a transform set with one name per group.
    let selected = out.path().join("selected");
    let set = TransformSet::load_dir(&rt, &selected).expect("selected/ is a transform set");
    assert_eq!(
        set.names(),
        vec!["for-to-while", "if-else-swap", "rename-locals"]
    );
    // Reports: one table per group with the winner marked; self-contained HTML with charts.
    let md = std::fs::read_to_string(out.path().join("selection.md")).unwrap();
    assert_eq!(md.matches("**winner**").count(), 3, "{md}");
    assert!(md.contains("## rename-locals"));
    let html = std::fs::read_to_string(out.path().join("selection.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(
        !html.contains("src=") && !html.contains("<link"),
        "not self-contained"
    );
}

#[test]
fn max_broken_keeps_candidates_that_break_programs_from_winning() {
    let out = tempfile::tempdir().unwrap();
    let candidates = common::root().join("fixtures/scripts");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    stdout_of(&select(
        &candidates,
        &tasks,
        out.path(),
        &["--max-broken", "0"],
    ));
    let rows = selection(out.path());
    for r in rows.iter().filter(|r| r["selected"] == true) {
        assert_eq!(r["broken"], 0, "{r}");
        assert_eq!(r["invalid"], 0, "{r}");
    }
    assert_eq!(row(&rows, "rename-locals", "strong.py")["selected"], true);
    let md = std::fs::read_to_string(out.path().join("selection.md")).unwrap();
    assert!(md.contains("at most 0 % broken"), "{md}");
    let bad = select(&candidates, &tasks, out.path(), &["--max-broken", "2"]);
    assert_eq!(bad.status.code(), Some(2));
}

fn copy_group(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}

#[test]
fn a_bad_candidate_never_stops_the_run_and_a_rerun_resumes() {
    let work = tempfile::tempdir().unwrap();
    let cands = work.path().join("candidates");
    let group = cands.join("rename-locals");
    copy_group(
        &common::root().join("fixtures/scripts/rename-locals"),
        &group,
    );
    std::fs::write(group.join("latin1.py"), b"# caf\xe9\nimport sys\n").unwrap();
    std::fs::write(group.join("garbage.wasm"), b"\0asm but not really").unwrap();
    std::fs::copy(
        common::root().join("tests/hostile_scripts/infinite_loop.py"),
        group.join("spin.py"),
    )
    .unwrap();
    let (_tasks_dir, tasks) = common::fixture_subset(5);
    let out = work.path().join("out");
    let run = || select(&cands, &tasks, &out, &["--script-timeout-ms", "300"]);
    let first = run();
    let printed = stdout_of(&first);
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("latin1.py does not load"),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        printed.contains("8 candidates in 1 group, 5 validation tasks"),
        "{printed}"
    );
    let rows = selection(&out);
    for bad in ["latin1.py", "garbage.wasm"] {
        let r = row(&rows, "rename-locals", bad);
        assert_eq!(r["errors"]["load"], 5, "{r}");
        assert_eq!(r["selected"], false);
    }
    let spin = row(&rows, "rename-locals", "spin.py");
    assert_eq!(spin["errors"]["timeout"], 5, "{spin}");
    assert_eq!(rows.iter().filter(|r| r["selected"] == true).count(), 1);

    // Load failures are not remembered (a fixed file is judged next time); everything else is.
    let log = out.join("pairs.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 6 * 5);
    // Drop three records and tear the last line, as a crash mid-write would.
    let mut kept = lines[3..].join("\n");
    kept.push_str("\n{\"group\": \"rename-lo");
    std::fs::write(&log, kept).unwrap();
    let second = run();
    stdout_of(&second);
    assert_eq!(
        selection(&out),
        rows,
        "a resumed run gives the same selection"
    );
    let after = std::fs::read_to_string(&log).unwrap();
    assert_eq!(after.lines().count(), 6 * 5);
    assert!(after.ends_with('\n'));
}

/// `equimorph attack` with the Jaccard detector, 2 iterations and beam `beam`; its stdout.
fn attack(tasks: &Path, out: &Path, transforms: &str, beam: &str) -> String {
    stdout_of(
        &common::attack_command(
            tasks,
            out,
            "jaccard",
            2,
            &["--transforms", transforms, "--beam", beam],
        )
        .output()
        .expect("binary runs"),
    )
}

#[test]
fn attack_runs_with_the_selected_set_mixed_with_components_and_counts_errors() {
    let work = tempfile::tempdir().unwrap();
    let (_dir, tasks) = common::fixture_subset(8);
    let sel = work.path().join("sel");
    stdout_of(&select(
        &common::root().join("fixtures/scripts"),
        &tasks,
        &sel,
        &["--max-broken", "0"],
    ));
    let crashy = common::root().join("fixtures/scripts/rename-locals/crashy.py");
    let att = work.path().join("attack");
    let spec = format!(
        "{},operand-swap,{}",
        sel.join("selected/for-to-while.py").display(),
        crashy.display()
    );
    let printed = attack(&tasks, &att, &spec, "2");
    assert!(printed.contains("8 tasks attacked"), "{printed}");
    let lines: Vec<Value> = std::fs::read_to_string(att.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 8);
    let used: BTreeSet<String> = lines
        .iter()
        .flat_map(|l| l["transforms"].as_array().unwrap().clone())
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        used.contains("for-to-while"),
        "a script won somewhere: {used:?}"
    );
    // crashy.py raises on programs that do not start with an import: counted per kind.
    let errors: u64 = lines
        .iter()
        .filter_map(|l| l["transform_errors"]["rename-locals"]["guest-error"].as_u64())
        .sum();
    assert!(errors > 0, "{lines:?}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(att.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["transform_errors"]["rename-locals"]["guest-error"],
        errors
    );
    let md = std::fs::read_to_string(att.join("report.md")).unwrap();
    assert!(
        md.contains("## Transform failures") && md.contains("| rename-locals | guest-error"),
        "{md}"
    );

    // And the selected directory alone is a transform set for attack.
    let att2 = work.path().join("attack2");
    let printed = attack(&tasks, &att2, sel.join("selected").to_str().unwrap(), "1");
    assert!(printed.contains("8 tasks attacked"), "{printed}");
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(att2.join("run.json")).unwrap()).unwrap();
    let names: Vec<&str> = run["transforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["for-to-while", "if-else-swap", "rename-locals"]);
}

#[test]
fn select_reports_clear_errors_for_bad_arguments() {
    let work = tempfile::tempdir().unwrap();
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = select(&empty, &tasks, &work.path().join("o"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no candidate"));
    let o = select(
        &common::root().join("fixtures/scripts"),
        &tasks,
        &work.path().join("o"),
        &["--limit", "0"],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--limit must be at least 1"));
}

#[test]
fn select_shards_merged_equal_the_unsharded_selection() {
    let root = tempfile::tempdir().unwrap();
    let candidates = common::root().join("fixtures/scripts");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let args = ["--limit", "8", "--seed", "2"];
    let whole = root.path().join("whole");
    stdout_of(&select(&candidates, &tasks, &whole, &args));
    let shards: Vec<_> = (0..2).map(|i| root.path().join(format!("s{i}"))).collect();
    let mut used = 0;
    for (i, dir) in shards.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        stdout_of(&select(&candidates, &tasks, dir, &a));
        let state: Value = serde_json::from_str(&common::read(dir.join("state.json"))).unwrap();
        used += state["used"].as_array().unwrap().len();
    }
    assert_eq!(used, 8, "the --limit sample is split, not drawn per shard");
    let merged = root.path().join("merged");
    let o = common::equimorph(
        &[
            "merge",
            merged.to_str().unwrap(),
            shards[1].to_str().unwrap(),
            shards[0].to_str().unwrap(),
        ],
        None,
    );
    assert!(stdout_of(&o).contains("merged 2 shard(s)"));
    for f in ["selection.json", "selection.md", "pairs.jsonl", "run.json"] {
        assert_eq!(
            common::read(merged.join(f)),
            common::read(whole.join(f)),
            "{f}"
        );
    }
    let names = |d: &Path| -> BTreeSet<String> {
        std::fs::read_dir(d.join("selected"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(&merged), names(&whole));
}

#[test]
fn outputs_longer_than_the_window_are_not_scored_unless_no_window() {
    // The tiny model reads 128 tokens: the strong loop rewrites of the longer fixtures outgrow it.
    let tiny = equimorph::detector::model::models_dir().join("tiny-embedding");
    let spec = format!("onnx:{}", tiny.display());
    let candidates = common::root().join("fixtures/scripts");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let outcomes = |extra: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let mut args = vec!["--limit", "20", "--seed", "1"];
        args.extend_from_slice(extra);
        let o = select_with(&candidates, &tasks, out.path(), &spec, &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let pairs: Vec<Value> = std::fs::read_to_string(out.path().join("pairs.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (pairs, selection(out.path()))
    };
    let (pairs, rows) = outcomes(&[]);
    let truncated = pairs.iter().filter(|p| p["outcome"] == "truncated").count();
    assert!(truncated > 0, "no output outgrew the window");
    assert_eq!(
        rows.iter()
            .map(|r| r["truncated"].as_u64().unwrap())
            .sum::<u64>() as usize,
        truncated
    );
    let (free, _) = outcomes(&["--no-window"]);
    assert!(free.iter().all(|p| p["outcome"] != "truncated"));
    // What the window refused is scored without it: as many correct outputs either way.
    let correct = |ps: &[Value]| {
        ps.iter()
            .filter(|p| p["outcome"] == "correct" || p["outcome"] == "truncated")
            .count()
    };
    assert_eq!(correct(&pairs), correct(&free));
}
