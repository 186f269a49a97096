//! The job engine's rules hold in every job: one process per run directory, one line per task
//! id (even when a log already holds duplicates), reports that say when a run is incomplete,
//! one non-clone rule for calibrated thresholds, a task's panic as that task's error, and exit
//! codes from the one table. The matrix covers {attack, augment, select} × {Python, Java,
//! mixed} × {JSONL, CodeContests parquet, CodeNet tree} × {complete, interrupted then resumed,
//! a second process} pairwise, on small task files and a classic detector.

use crate::common;

use equimorph::pipeline::{Job, Pipeline, Sink, TaskOutcome};
use equimorph::program::Candidate;
use equimorph::task::Task;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_equimorph"));
    c.env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdin(Stdio::null());
    c
}

/// The jobs of the matrix.
#[derive(Debug, Clone, Copy)]
enum JobName {
    Attack,
    Augment,
    Select,
}

/// The command line of `job` on `tasks` into `out` (jaccard, small budgets).
fn job_command(job: JobName, tasks: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    let (t, o) = (tasks.to_str().unwrap(), out.to_str().unwrap());
    match job {
        JobName::Attack => {
            c.args([
                "attack",
                t,
                "--out",
                o,
                "--detector",
                "jaccard",
                "--iterations",
                "1",
                "--beam",
                "1",
                "--quiet",
            ]);
            if !extra.contains(&"--threshold") {
                c.args(["--threshold", "0.5"]);
            }
            &mut c
        }
        JobName::Augment => c.args([
            "augment",
            t,
            "--out",
            o,
            "--variants",
            "1",
            "--steps",
            "1..1",
            "--quiet",
        ]),
        JobName::Select => {
            let candidates = common::root().join("fixtures/scripts");
            c.args([
                "select",
                candidates.to_str().unwrap(),
                "--tasks",
                t,
                "--out",
                o,
                "--detector",
                "jaccard",
                "--quiet",
            ])
        }
    };
    c.args(extra);
    c
}

/// The log that holds one line per finished task, and the field naming the task.
fn task_log(job: JobName) -> (&'static str, &'static str) {
    match job {
        JobName::Attack => ("results.jsonl", "id"),
        JobName::Augment => ("tasks.jsonl", "id"),
        JobName::Select => ("pairs.jsonl", "task"),
    }
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("every line is whole"))
        .collect()
}

/// Task ids of a task log, with how many lines each has.
fn id_counts(job: JobName, out: &Path) -> BTreeMap<String, usize> {
    let (file, field) = task_log(job);
    let mut m = BTreeMap::new();
    for l in lines(&out.join(file)) {
        *m.entry(l[field].as_str().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    m
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&common::read(path)).unwrap()
}

/// Language mixes × dataset layouts, as task inputs.
fn input(kind: &str, dir: &Path) -> PathBuf {
    let root = common::root();
    match kind {
        "python-jsonl" => {
            let lines: Vec<String> = common::read(root.join("fixtures/tasks.jsonl"))
                .lines()
                .take(4)
                .map(String::from)
                .collect();
            let to = dir.join("python.jsonl");
            std::fs::write(&to, lines.join("\n") + "\n").unwrap();
            to
        }
        "java-jsonl" => {
            let lines: Vec<String> = common::read(root.join("fixtures/java/tasks.jsonl"))
                .lines()
                .take(3)
                .map(String::from)
                .collect();
            let to = dir.join("java.jsonl");
            std::fs::write(&to, lines.join("\n") + "\n").unwrap();
            to
        }
        "mixed-jsonl" => root.join("fixtures/java/mixed.jsonl"),
        "python-parquet" => root.join("fixtures/formats/codecontests/sample.parquet"),
        "python-codenet" => root.join("fixtures/formats/codenet"),
        other => panic!("unknown input {other}"),
    }
}

/// Asserts one task-log line per task id and that the summary counts what the log holds.
fn assert_one_line_per_task(job: JobName, out: &Path) -> usize {
    let counts = id_counts(job, out);
    assert!(
        !counts.is_empty(),
        "{job:?}: nothing written in {}",
        out.display()
    );
    match job {
        // select writes one line per (candidate, task): every task the same number of times.
        JobName::Select => {
            let per: std::collections::BTreeSet<usize> = counts.values().copied().collect();
            assert_eq!(per.len(), 1, "{job:?}: uneven lines per task {counts:?}");
        }
        _ => {
            assert!(counts.values().all(|&n| n == 1), "{job:?}: {counts:?}");
            let summary = json(&out.join("summary.json"));
            assert_eq!(summary["tasks"], counts.len(), "{job:?}: {summary}");
        }
    }
    counts.len()
}

#[test]
fn every_job_on_every_language_and_layout_writes_one_line_per_task() {
    // Pairwise: each job meets each language and each layout at least once.
    let cases = [
        (JobName::Attack, "python-jsonl"),
        (JobName::Attack, "java-jsonl"),
        (JobName::Attack, "python-parquet"),
        (JobName::Attack, "python-codenet"),
        (JobName::Augment, "mixed-jsonl"),
        (JobName::Augment, "python-codenet"),
        (JobName::Augment, "java-jsonl"),
        (JobName::Augment, "python-parquet"),
        (JobName::Select, "python-jsonl"),
        (JobName::Select, "python-codenet"),
        (JobName::Select, "mixed-jsonl"),
        (JobName::Select, "python-parquet"),
    ];
    for (job, kind) in cases {
        let dir = tempfile::tempdir().unwrap();
        let tasks = input(kind, dir.path());
        let out = dir.path().join("out");
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{job:?} on {kind}: {}",
            stderr(&o)
        );
        assert_one_line_per_task(job, &out);
        // Select says it in state.json, the others in summary.json.
        let record = match job {
            JobName::Select => "state.json",
            _ => "summary.json",
        };
        let summary = json(&out.join(record));
        assert_eq!(summary["complete"], true, "{job:?} on {kind}: {summary}");
        assert_eq!(summary["pending"], 0, "{job:?} on {kind}");
        // A rerun resumes: nothing is done twice.
        let again = job_command(job, &tasks, &out, &[]).output().unwrap();
        assert_eq!(
            again.status.code(),
            Some(0),
            "{job:?} on {kind}: {}",
            stderr(&again)
        );
        assert_one_line_per_task(job, &out);
    }
}

#[test]
fn a_second_process_on_a_run_directory_is_refused_with_the_holders_pid() {
    for (job, kind) in [
        (JobName::Attack, "mixed-jsonl"),
        (JobName::Augment, "python-jsonl"),
        (JobName::Select, "python-jsonl"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let tasks = input(kind, dir.path());
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        // This process holds the directory as a running job would (the same OS lock).
        let held = equimorph::run::lock(&out).unwrap();
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{job:?}: {err}");
        assert!(
            err.contains("in use by another equimorph process")
                && err.contains(&format!("pid {}", std::process::id())),
            "{job:?}: {err}"
        );
        assert!(!out.join("results.jsonl").exists() && !out.join("tasks.jsonl").exists());
        drop(held);
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{job:?}: {}", stderr(&o));
        assert_one_line_per_task(job, &out);
    }
}

fn wait_for_lines(path: &Path, n: usize, child: &mut Child) {
    let start = Instant::now();
    while common::whole_lines_so_far(path).len() < n {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before {n} lines");
        }
        assert!(start.elapsed() < Duration::from_secs(180), "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_real_processes_started_together_never_write_a_task_twice() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let out = dir.path().join("out");
    let mut first = job_command(JobName::Attack, &tasks, &out, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&out.join("results.jsonl"), 1, &mut first);
    let second = job_command(JobName::Attack, &tasks, &out, &[])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!("pid {}", first.id())),
        "{}",
        stderr(&second)
    );
    let o = first.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let n = assert_one_line_per_task(JobName::Attack, &out);
    assert_eq!(n, common::fixture_task_count());
}

#[test]
fn duplicated_log_lines_are_dropped_on_resume_and_never_counted() {
    for job in [JobName::Attack, JobName::Augment] {
        let dir = tempfile::tempdir().unwrap();
        let tasks = input("python-jsonl", dir.path());
        let out = dir.path().join("out");
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        // What a second process used to append: every line again.
        let (file, _) = task_log(job);
        let log = out.join(file);
        let text = common::read(&log);
        std::fs::write(&log, format!("{text}{text}")).unwrap();
        if let JobName::Augment = job {
            let v = out.join("variants.jsonl");
            let text = common::read(&v);
            std::fs::write(&v, format!("{text}{text}")).unwrap();
        }
        // `report` (attack) reads one line per task even before a rerun cleans the log.
        if let JobName::Attack = job {
            let o = bin()
                .args(["report", out.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(json(&out.join("summary.json"))["tasks"], 4);
        }
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{job:?}: {err}");
        assert!(
            err.contains("line 5: task") && err.contains("(line 1)") && err.contains("dropped"),
            "{job:?}: {err}"
        );
        assert_eq!(assert_one_line_per_task(job, &out), 4);
        if let JobName::Augment = job {
            let variants = lines(&out.join("variants.jsonl"));
            let summary = json(&out.join("summary.json"));
            assert_eq!(summary["variants"], variants.len(), "{summary}");
        }
    }
}

#[test]
fn an_interrupted_run_says_it_is_incomplete_until_a_rerun_finishes_it() {
    for job in [JobName::Attack, JobName::Augment] {
        let dir = tempfile::tempdir().unwrap();
        let tasks = common::root().join("fixtures/tasks.jsonl");
        let out = dir.path().join("out");
        let (file, _) = task_log(job);
        let mut child = job_command(job, &tasks, &out, &[])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_lines(&out.join(file), 2, &mut child);
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(130), "{job:?}: {err}");
        let done = id_counts(job, &out).len();
        let total = common::fixture_task_count();
        assert!(done < total, "{job:?}: the run finished before the signal");
        let summary = json(&out.join("summary.json"));
        assert_eq!(summary["complete"], false, "{job:?}: {summary}");
        assert_eq!(summary["pending"], total - done, "{job:?}");
        let notice = format!("incomplete: {done} of {total} tasks finished");
        assert!(err.contains(&notice), "{job:?}: {err}");
        let report = common::read(out.join("report.md"));
        let head: String = report.lines().take(4).collect::<Vec<_>>().join("\n");
        assert!(head.contains(&notice), "{job:?}: {head}");
        assert!(
            common::read(out.join("report.html")).contains("id=\"incomplete\""),
            "{job:?}"
        );
        let o = job_command(job, &tasks, &out, &[]).output().unwrap();
        assert!(o.status.success(), "{job:?}: {}", stderr(&o));
        let summary = json(&out.join("summary.json"));
        assert_eq!(summary["complete"], true, "{job:?}: {summary}");
        assert!(!common::read(out.join("report.md")).contains("incomplete:"));
    }
}

#[test]
fn the_auto_threshold_never_pairs_solutions_of_one_problem() {
    // 3 problems × 3 solutions, each solution a different program (36 pairs, 9 within a problem).
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    let bodies = [
        (
            "sum",
            [
                "print(sum(map(int, input().split())))",
                "a, b = map(int, input().split())\nprint(a + b)",
                "x = input().split()\nprint(int(x[0]) + int(x[1]))",
            ],
        ),
        (
            "max",
            [
                "print(max(map(int, input().split())))",
                "a, b = map(int, input().split())\nprint(a if a > b else b)",
                "x = sorted(map(int, input().split()))\nprint(x[-1])",
            ],
        ),
        (
            "neg",
            [
                "print(-int(input().split()[0]))",
                "a = int(input().split()[0])\nprint(0 - a)",
                "v = input().split()\nprint(-1 * int(v[0]))",
            ],
        ),
    ];
    for (problem, sources) in bodies {
        for (i, s) in sources.iter().enumerate() {
            rows.push(
                serde_json::json!({
                    "id": format!("{problem}-{i}"), "problem": problem, "source": format!("{s}\n"),
                    "tests": [{"input": "3 4\n"}]
                })
                .to_string(),
            );
        }
    }
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, rows.join("\n") + "\n").unwrap();
    let out = dir.path().join("out");
    let o = job_command(JobName::Attack, &tasks, &out, &["--threshold", "auto"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let run = json(&out.join("run.json"));
    let source = run["threshold_source"].as_str().unwrap();
    assert!(
        source.contains("of 27 non-clone pairs")
            && source.contains("3 problems")
            && source.contains("9 same-problem pairs left out"),
        "{source}"
    );
    assert!(err.contains("originals of different problems"), "{err}");
    // report --threshold auto follows the same rule (the results record each task's problem).
    let o = bin()
        .args([
            "report",
            out.to_str().unwrap(),
            "--threshold",
            "auto",
            "--detector",
            "jaccard",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let source = json(&out.join("run.json"))["threshold_source"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(source.contains("of 27 non-clone pairs"), "{source}");
}

/// A job that panics on one task: the pipeline must record it as that task's error.
struct PanicsOn(&'static str);

impl Job for PanicsOn {
    type Output = usize;

    fn run(
        &self,
        task: &Task,
        _reference: Option<&equimorph::oracle::Reference>,
        _verified: &mut dyn FnMut(&Candidate),
    ) -> Result<usize, String> {
        let lengths: Vec<usize> = vec![task.source.len()];
        let index = if task.id == self.0 { 5 } else { 0 };
        Ok(lengths[index])
    }
}

#[derive(Default)]
struct Outcomes(Vec<(String, Result<usize, String>)>);

impl Sink<usize> for Outcomes {
    type Error = std::convert::Infallible;

    fn finished(&mut self, task: &Task, outcome: TaskOutcome<usize>) -> Result<(), Self::Error> {
        let o = match outcome {
            TaskOutcome::Done(n) => Ok(n),
            TaskOutcome::Failed(w) | TaskOutcome::Skipped(w) | TaskOutcome::Unverifiable(w) => {
                Err(w)
            }
        };
        self.0.push((task.id.clone(), o));
        Ok(())
    }
}

#[test]
fn a_task_that_panics_is_that_tasks_error_and_the_run_goes_on() {
    let set = common::fixture_tasks();
    let tasks: Vec<&Task> = set.tasks.iter().take(3).collect();
    let victim: &'static str = Box::leak(tasks[1].id.clone().into_boxed_str());
    let oracle = common::oracle(equimorph::oracle::OracleMode::Fork);
    for in_flight in [1, 3] {
        let mut sink = Outcomes::default();
        let end = Pipeline::new(&oracle, None)
            .with_in_flight(in_flight)
            .run(&tasks, &PanicsOn(victim), &mut sink)
            .unwrap();
        assert_eq!(end.finished, 3, "in flight {in_flight}");
        assert!(!end.interrupted);
        let ids: Vec<&str> = sink.0.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>());
        for (id, o) in &sink.0 {
            if id == victim {
                let why = o.as_ref().unwrap_err();
                assert!(
                    why.contains("panicked") && why.contains("index out of bounds"),
                    "{why}"
                );
            } else {
                assert!(o.is_ok(), "{id}: {o:?}");
            }
        }
    }
}

#[test]
fn every_commands_help_states_the_exit_table() {
    let commands: &[&[&str]] = &[
        &["attack"],
        &["augment"],
        &["select"],
        &["check"],
        &["validate"],
        &["verify"],
        &["tests", "score"],
        &["tests", "grow"],
        &["score"],
        &["report"],
        &["robustness"],
        &["calibrate"],
    ];
    for c in commands {
        let o = bin().args(*c).arg("--help").output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{c:?}");
        let name = c.join(" ");
        // Word for word (clap may wrap long lines).
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&help).ends_with(&words(&equimorph::job::exit::help(Some(&name)))),
            "{name}: {help}"
        );
        assert!(
            help.contains("130  interrupted by SIGINT or SIGTERM"),
            "{name}"
        );
    }
    let o = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("Python, Java and C++"), "{help}");
    assert!(help.contains("141  standard output was closed"), "{help}");
    // The behaviour follows the table: usage errors are 2.
    let o = bin().args(["attack", "--no-such-flag"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}
