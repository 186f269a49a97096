//! `select` follows the job engine's rules: a run says whether it is complete (`state.json`,
//! and the first lines of its reports), an interrupted run exits 130 with what it finished
//! and a rerun finishes it without writing an evaluation twice, and a second process on the
//! same directory is refused with the holder's pid. Small inputs: one group of five
//! candidates, the Jaccard detector.

use crate::common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A candidates directory with one group (rename-locals: five candidates).
fn candidates(dir: &Path) -> PathBuf {
    let group = dir.join("candidates/rename-locals");
    std::fs::create_dir_all(&group).unwrap();
    let from = common::root().join("fixtures/scripts/rename-locals");
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, group.join(p.file_name().unwrap())).unwrap();
    }
    dir.join("candidates")
}

/// `select` of `candidates` on `tasks` into `out` (Jaccard, quiet), not started yet.
fn select(candidates: &Path, tasks: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_equimorph"));
    c.env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdin(Stdio::null())
        .args(["select", candidates.to_str().unwrap(), "--tasks"])
        .arg(tasks)
        .arg("--out")
        .arg(out)
        .args(["--detector", "jaccard", "--quiet"])
        .args(extra);
    c
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&common::read(path)).unwrap()
}

/// The complete lines of `pairs.jsonl` (a line being written is left out).
fn pairs(out: &Path) -> Vec<Value> {
    common::whole_lines_so_far(&out.join("pairs.jsonl"))
}

/// Asserts that no (group, file, task) key is in `pairs.jsonl` twice; returns the tasks.
fn assert_keyed(out: &Path) -> BTreeSet<String> {
    let records = pairs(out);
    let keys: BTreeSet<(String, String, String)> = records
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            (s("group"), s("file"), s("task"))
        })
        .collect();
    assert_eq!(keys.len(), records.len(), "a record was written twice");
    keys.into_iter().map(|(_, _, t)| t).collect()
}

/// Waits until `pairs.jsonl` holds a line (the first tasks are finished).
fn wait_for_pairs(out: &Path, child: &mut Child) {
    let start = Instant::now();
    while pairs(out).is_empty() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before its first record");
        }
        assert!(start.elapsed() < Duration::from_secs(180), "no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    let r = unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(r, 0, "kill {sig}");
}

#[test]
fn a_complete_run_says_so_and_shards_merge_their_plans() {
    let dir = tempfile::tempdir().unwrap();
    let cands = candidates(dir.path());
    let (_t, tasks) = common::fixture_subset(6);
    let out = dir.path().join("whole");
    let o = select(&cands, &tasks, &out, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let state = json(&out.join("state.json"));
    assert_eq!(state["complete"], true, "{state}");
    assert_eq!(state["pending"], 0, "{state}");
    assert_eq!(state["planned_tasks"], 6, "{state}");
    assert_eq!(json(&out.join("run.json"))["planned_tasks"], 6);
    assert!(json(&out.join("selection.json")).is_array());
    assert!(!common::read(out.join("selection.md")).contains("incomplete"));
    assert!(!common::read(out.join("selection.html")).contains("id=\"incomplete\""));
    assert!(!stderr(&o).contains("incomplete"), "{}", stderr(&o));
    assert_eq!(assert_keyed(&out).len(), 6);

    // A log written twice (by an older equimorph, say) keeps one record per key on resume.
    let log = out.join("pairs.jsonl");
    let text = common::read(&log);
    std::fs::write(&log, format!("{text}{text}")).unwrap();
    let selection = common::read(out.join("selection.json"));
    let o = select(&cands, &tasks, &out, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("line 31: candidate rename-locals/") && stderr(&o).contains("dropped"),
        "{}",
        stderr(&o)
    );
    assert_eq!(common::read(&log), text);
    assert_eq!(common::read(out.join("selection.json")), selection);

    // Each shard plans its own tasks; the merge sums them.
    let mut planned = 0;
    let mut shards = Vec::new();
    for i in 1..=2 {
        let shard_dir = dir.path().join(format!("shard{i}"));
        let shard = format!("{i}/2");
        let o = select(&cands, &tasks, &shard_dir, &["--shard", &shard])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let state = json(&shard_dir.join("state.json"));
        assert_eq!(state["complete"], true, "{state}");
        planned += state["planned_tasks"].as_u64().unwrap();
        shards.push(shard_dir);
    }
    assert_eq!(planned, 6);
    let merged = dir.path().join("merged");
    let o = common::equimorph(
        &[
            "merge",
            merged.to_str().unwrap(),
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let state = json(&merged.join("state.json"));
    assert_eq!(
        (
            &state["complete"],
            &state["pending"],
            &state["planned_tasks"]
        ),
        (&Value::from(true), &Value::from(0), &Value::from(6)),
        "{state}"
    );
    assert_eq!(json(&merged.join("run.json"))["planned_tasks"], 6);
    assert_eq!(common::read(merged.join("selection.json")), selection);
}

#[test]
fn an_interrupted_run_says_it_is_incomplete_until_a_rerun_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let cands = candidates(dir.path());
    // 41 tasks: the pipeline evaluates them in chunks of 16, so the first records come while
    // two chunks are still to go.
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let total = common::fixture_task_count();
    let out = dir.path().join("out");
    let mut child = select(&cands, &tasks, &out, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_pairs(&out, &mut child);
    signal(&child, libc::SIGINT);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let done = assert_keyed(&out).len();
    assert!(done > 0 && done < total, "{done} of {total} tasks done");
    // Every fixture original is ok: a task is finished once its five records are written.
    assert_eq!(pairs(&out).len(), 5 * done);
    let state = json(&out.join("state.json"));
    assert_eq!(state["complete"], false, "{state}");
    assert_eq!(state["pending"], total - done, "{state}");
    assert_eq!(state["planned_tasks"], total, "{state}");
    let notice = format!(
        "incomplete: {done} of {total} tasks finished, {} pending; rerun the same command to finish",
        total - done
    );
    assert!(err.contains(&notice), "{err}");
    assert!(err.contains("interrupted:"), "{err}");
    let report = common::read(out.join("selection.md"));
    let head: String = report.lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(head.contains(&notice), "{head}");
    let html = common::read(out.join("selection.html"));
    assert!(html.contains("id=\"incomplete\""), "{html}");
    assert_eq!(json(&out.join("selection.json"))[0]["tasks"], done);

    let o = select(&cands, &tasks, &out, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let state = json(&out.join("state.json"));
    assert_eq!(state["complete"], true, "{state}");
    assert_eq!(state["pending"], 0, "{state}");
    assert_eq!(assert_keyed(&out).len(), total);
    assert_eq!(pairs(&out).len(), 5 * total);
    assert!(!common::read(out.join("selection.md")).contains("incomplete"));
    assert_eq!(json(&out.join("selection.json"))[0]["tasks"], total);
}

#[test]
fn a_second_process_on_the_same_out_is_refused_with_the_holders_pid() {
    let dir = tempfile::tempdir().unwrap();
    let cands = candidates(dir.path());
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let out = dir.path().join("out");
    let mut first = select(&cands, &tasks, &out, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_pairs(&out, &mut first);
    // Stopped, the first process still holds the directory, however slow the second is.
    signal(&first, libc::SIGSTOP);
    let second = select(&cands, &tasks, &out, &[]).output();
    signal(&first, libc::SIGCONT);
    let second = second.unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(
        err.contains("in use by another equimorph process")
            && err.contains(&format!("pid {}", first.id())),
        "{err}"
    );
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(assert_keyed(&out).len(), common::fixture_task_count());
    assert_eq!(json(&out.join("state.json"))["complete"], true);
}
