//! Long runs stopped from outside: SIGINT or SIGTERM mid-run writes the summary and reports for
//! what is done and exits 130; a second signal exits at once; a rerun resumes. An output
//! directory that cannot be written, or a disk that fills up, is a clear error that loses no
//! result already written.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The tests of this binary run one at a time: each drives a whole attack or select run and
/// times signals against it, which a second run beside it would disturb.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn spawn_attack(tasks: &Path, out: &Path) -> Child {
    common::attack_command(tasks, out, "jaccard", 4, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs")
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is whole"))
        .collect()
}

fn wait_for_lines(path: &Path, n: usize) {
    let start = Instant::now();
    while common::whole_lines_so_far(path).len() < n {
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
}

fn all_tasks() -> PathBuf {
    common::root().join("fixtures/tasks.jsonl")
}

#[test]
fn the_first_signal_stops_the_run_with_reports_and_a_rerun_resumes() {
    let _serial = serial();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let out = tempfile::tempdir().unwrap();
        let results = out.path().join("results.jsonl");
        let child = spawn_attack(&all_tasks(), out.path());
        wait_for_lines(&results, 2);
        signal(&child, sig);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{err}");
        assert!(
            err.contains("interrupted: ") && err.contains("rerun the same command"),
            "{err}"
        );
        let done = lines(&results);
        assert!(
            done.len() >= 2 && done.len() < common::fixture_task_count(),
            "{} lines",
            done.len()
        );
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join("summary.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(summary["tasks"], done.len());
        assert!(out.path().join("report.md").is_file() && out.path().join("report.html").is_file());

        let rerun = common::attack_command(&all_tasks(), out.path(), "jaccard", 4, &[])
            .output()
            .unwrap();
        assert!(
            rerun.status.success(),
            "{}",
            String::from_utf8_lossy(&rerun.stderr)
        );
        let all = lines(&results);
        assert_eq!(all.len(), common::fixture_task_count());
        assert_eq!(&all[..done.len()], &done[..], "earlier results untouched");
        let ids: std::collections::BTreeSet<&str> =
            all.iter().map(|l| l["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), common::fixture_task_count());
    }
}

#[test]
fn a_second_signal_exits_at_once() {
    let _serial = serial();
    // One quick task, then slow ones: every test run sleeps 1.5 s, five times longer than the 300 ms
    // between signals, so whatever step of a slow task is in flight when the first signal comes
    // is still running when the second one does (with 0.4 s, a graceful stop under CI load could
    // finish between two signals and write the summary).
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let mut text = common::read("fixtures/tasks.jsonl")
        .lines()
        .next()
        .unwrap()
        .to_string()
        + "\n";
    for i in 0..3 {
        let line = serde_json::json!({
            "id": format!("slow-{i}"),
            "source": "import time\ntime.sleep(1.5)\nn = int(input())\nfor k in range(n):\n    print(k * 2)\n",
            "tests": [{"input": "3\n"}, {"input": "4\n"}],
        });
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&tasks, text).unwrap();
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("results.jsonl");
    let mut child = spawn_attack(&tasks, out.path());
    wait_for_lines(&results, 1);
    let start = Instant::now();
    // Signals sent while the process waits to be scheduled merge into one: repeat every
    // 300 ms until it exits, so a second one is delivered on its own well before the slow task
    // in flight could finish.
    let status = loop {
        signal(&child, libc::SIGINT);
        std::thread::sleep(Duration::from_millis(300));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "it did not exit");
    };
    assert_eq!(status.code(), Some(130));
    // It did not stay to finish the slow task or write the summary; its results are whole.
    assert!(
        !out.path().join("summary.json").exists(),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(lines(&results).len(), 1);
}

/// A tmpfs mounted for one test, unmounted when dropped. `None` where mounting is not allowed
/// (not root, no CAP_SYS_ADMIN): the test then says so and checks nothing else.
struct Mount(PathBuf);

impl Mount {
    fn new(dir: &Path, options: &str) -> Option<Mount> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs", dir.to_str().unwrap()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("this platform does not allow mounting a tmpfs: output-fault test not run");
        }
        ok.then(|| Mount(dir.to_path_buf()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn attack_output(tasks: &Path, out: &Path) -> std::process::Output {
    common::attack_command(tasks, out, "jaccard", 2, &[])
        .output()
        .expect("binary runs")
}

#[test]
fn a_read_only_output_directory_is_a_clear_error() {
    let _serial = serial();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("ro");
    let Some(_mount) = Mount::new(&dir, "ro,size=1m") else {
        return;
    };
    let o = attack_output(&all_tasks(), &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(dir.to_str().unwrap()) && err.contains("Read-only file system"),
        "{err}"
    );
}

#[test]
fn a_full_disk_is_a_clear_error_and_loses_no_written_result() {
    let _serial = serial();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("small");
    let Some(mount) = Mount::new(&dir, "size=24k") else {
        return;
    };
    let o = attack_output(&all_tasks(), &dir);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        err.contains("are intact") && err.contains("rerun the same command"),
        "{err}"
    );
    // Every complete line parses: a line cut by the full disk is dropped on the next open.
    let text = std::fs::read(dir.join("results.jsonl")).unwrap();
    let complete = &text[..text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)];
    let kept: Vec<Value> = complete
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a whole line"))
        .collect();
    assert!(
        !kept.is_empty() && kept.len() < common::fixture_task_count(),
        "{} lines",
        kept.len()
    );

    // Moved to a roomy place, the run resumes and keeps every earlier line as it was.
    let roomy = work.path().join("roomy");
    std::fs::create_dir_all(&roomy).unwrap();
    std::fs::write(roomy.join("results.jsonl"), &text).unwrap();
    drop(mount);
    let o = attack_output(&all_tasks(), &roomy);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = lines(&roomy.join("results.jsonl"));
    assert_eq!(all.len(), common::fixture_task_count());
    assert_eq!(&all[..kept.len()], &kept[..]);
}

#[test]
fn an_attack_stops_with_a_clear_message_when_the_sandbox_breaks_for_every_check() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let results = out.join("results.jsonl");
    let tasks = all_tasks();
    let attack = [
        "attack",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--iterations",
        "4",
    ];
    let o = break_the_sandbox_mid_run(dir.path(), &attack, &results);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stopped: the sandbox failed on the last 8 checks in a row"),
        "{err}"
    );
    let done = lines(&results);
    assert!(
        done.len() < common::fixture_task_count(),
        "it went on: {} lines",
        done.len()
    );
    let faulted: Vec<&Value> = done.iter().filter(|l| l["status"] == "error").collect();
    // A task's checks run in parallel, so 8 faulted checks can take fewer than 8 tasks.
    assert!(!faulted.is_empty(), "{done:?}");
    for l in faulted {
        assert!(
            l["reason"].as_str().unwrap().contains("the sandbox failed"),
            "{l}"
        );
        assert!(l["distance"].is_null(), "a fault is never a distance: {l}");
    }
    assert!(
        out.join("summary.json").is_file(),
        "the summary of what is done"
    );
}

#[test]
fn select_with_a_broken_sandbox_stores_no_verdict_and_fails_clearly() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sel");
    let pairs = out.join("pairs.jsonl");
    let candidates = common::root().join("fixtures/scripts");
    let tasks = all_tasks();
    let select = [
        "select",
        candidates.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "1",
    ];
    let o = break_the_sandbox_mid_run(dir.path(), &select, &pairs);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("had no verdict because the sandbox failed"),
        "{err}"
    );
    // Only judgements are stored: no record says "broken" or "error" for a faulted check.
    for l in lines(&pairs) {
        assert_ne!(l["kind"], "oracle", "{l}");
    }
}

/// Runs `args` (plus a Jaccard detector and spawned sandboxes using a removable interpreter),
/// takes the interpreter away once `progress` has a line, and returns the finished output.
fn break_the_sandbox_mid_run(dir: &Path, args: &[&str], progress: &Path) -> std::process::Output {
    let python = common::removable_python(dir);
    let child = Command::new(env!("CARGO_BIN_EXE_equimorph"))
        .args(args)
        .args(["--detector", "jaccard", "--oracle-mode", "spawn", "--quiet"])
        .arg("--python")
        .arg(&python)
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    wait_for_lines(progress, 1);
    // The interpreter disappears: every later check fails for the sandbox's own reasons.
    std::fs::remove_file(&python).expect("remove the interpreter");
    child.wait_with_output().expect("it finishes")
}

#[test]
fn a_signal_while_the_threshold_is_calibrated_exits_130_with_a_message_and_a_rerun_completes() {
    let _serial = serial();
    use std::io::BufRead;
    // MiniLM calibrates on the pairs of 12 originals (66 pairs): long enough to be caught in
    // the middle, and the signal is sent as soon as the calibration says it starts.
    let (_tasks_dir, tasks) = common::fixture_subset(12);
    let out = tempfile::tempdir().unwrap();
    let run = || {
        common::attack_command(
            &tasks,
            out.path(),
            "minilm",
            1,
            &["--beam", "1", "--transforms", "var-rename"],
        )
    };
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let mut child = run()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("binary runs");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "it ended before calibrating: {seen}"
            );
            seen.push_str(&line);
            if line.contains("calibrating the threshold") {
                break;
            }
        }
        signal(&child, sig);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{seen}{rest}");
        assert!(
            rest.contains("interrupted while calibrating the threshold")
                && rest.contains("no task was started")
                && rest.contains("rerun the same command"),
            "{rest}"
        );
        assert!(lines(&out.path().join("results.jsonl")).is_empty());
    }
    let o = run().output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(lines(&out.path().join("results.jsonl")).len(), 12);
}
