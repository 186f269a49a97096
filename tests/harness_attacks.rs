//! Candidates that attack their test harness (kill the fork server, its process group or every
//! process they can reach, abort, fork-bomb, close their descriptors, fill the temporary
//! directory, fake a sandbox error) are judged not equivalent, with a reason: the original,
//! run once more the same way, does not do that. None of them is a fault, none fails its task,
//! and an attack whose transform emits them still finishes every task with a result. In a test
//! binary of its own: these candidates kill processes.

use crate::common;

use equimorph::oracle::{Decision, ExitClass, Oracle, OracleMode, Reference};
use equimorph::task::Task;
use serde_json::Value;

/// Every hostile candidate of `fixtures/hostile/harness/`: a correct sum-two solution plus an
/// attack.
const ATTACKS: [&str; 10] = [
    "kill_parent",
    "kill_parent_group",
    "kill_everything",
    "abort",
    "fork_bomb",
    "fork_bomb_bounded",
    "quiet_child",
    "close_descriptors",
    "fill_tmp",
    "fake_sandbox_error",
];

/// The candidates that take the fork server down with them.
const HARNESS_KILLERS: [&str; 3] = ["kill_parent", "kill_parent_group", "kill_everything"];

fn candidate(name: &str) -> String {
    common::read(format!("fixtures/hostile/harness/{name}.py"))
}

/// The oracle's decision on hostile candidate `name`, which must be a verdict, never a fault.
fn verdict(oracle: &Oracle, task: &Task, reference: &Reference, name: &str) -> Decision {
    oracle
        .check(task, reference, &candidate(name))
        .unwrap_or_else(|f| panic!("{name}: a fault of the sandbox, not a verdict: {f}"))
}

/// An oracle that runs these candidates only where they cannot reach this test's processes,
/// with the task they attack (sum-two) and its reference behaviour.
fn contained_oracle(mode: OracleMode) -> (Oracle, Task, Reference) {
    let oracle = common::oracle(mode);
    assert!(
        oracle.isolation().pid_namespace,
        "these candidates signal every process they may: they need the sandbox's PID namespace \
         (install bubblewrap: make setup); isolation here: {:?}",
        oracle.isolation()
    );
    let task = common::fixture("sum-two");
    let reference = oracle.validate(&task).reference.expect("sum-two is ok");
    (oracle, task, reference)
}

#[test]
fn candidates_that_break_their_harness_are_not_equivalent_with_a_reason() {
    let (oracle, task, reference) = contained_oracle(OracleMode::Fork);
    for name in ATTACKS {
        let d = verdict(&oracle, &task, &reference, name);
        assert!(!d.equivalent, "{name} was accepted");
        let f = d.failure.as_ref().expect("a rejected candidate says why");
        if HARNESS_KILLERS.contains(&name) {
            assert!(d.broke_sandbox(), "{name}: {f:?}");
            let why = f.sandbox_failure.as_deref().unwrap_or_default();
            assert!(
                why.contains("killed its test harness")
                    && why.contains("the original, run again the same way, did not"),
                "{name}: {why}"
            );
            assert_eq!(f.got_class, ExitClass::Crash, "{name}");
        } else if name == "fork_bomb_bounded" {
            // Rejected for its output, its ending or the processes it leaves, as timing has it.
            assert!(!d.broke_sandbox(), "{name}: {f:?}");
        } else if name == "quiet_child" {
            // Same output, same exit: only the process it leaves running tells it apart.
            assert_eq!((f.got.as_str(), f.got_class), ("3\n", ExitClass::Success));
            assert_eq!(f.left_running, Some(1), "{name}: {f:?}");
        } else {
            // The others end in a way the original does not, inside an intact harness.
            assert!(!d.broke_sandbox(), "{name}: {f:?}");
            let expected = match name {
                "abort" => ExitClass::Signal,
                "fork_bomb" => ExitClass::Timeout,
                _ => ExitClass::Error,
            };
            assert_eq!(f.got_class, expected, "{name}: {f:?}");
        }
        if name == "fill_tmp" {
            assert!(
                f.stderr_tail.contains("No space left on device"),
                "the private /tmp is bounded: {}",
                f.stderr_tail
            );
        }
        // A verdict like any other: cached, with its reason.
        let again = oracle.check(&task, &reference, &candidate(name)).unwrap();
        assert!(again.cached && !again.equivalent, "{name}: {again:?}");
        assert_eq!(again.broke_sandbox(), d.broke_sandbox(), "{name}");
        // The oracle still works for everyone else.
        let healthy = format!("{}# after {name}\n", task.source);
        let h = oracle.check(&task, &reference, &healthy).unwrap();
        assert!(h.equivalent, "after {name}: {:?}", h.failure);
    }
    let stats = oracle.stats();
    assert_eq!(stats.faults, 0, "{stats:?}");
    assert_eq!(
        stats.sandbox_breakers,
        HARNESS_KILLERS.len() as u64,
        "{stats:?}"
    );
    assert!(!oracle.broken());
}

#[test]
fn children_that_are_waited_for_or_already_dead_are_not_left_running() {
    let (oracle, task, reference) = contained_oracle(OracleMode::Fork);
    let solution = "a, b = map(int, input().split())\nprint(a + b)\n";
    for (what, prefix) in [
        (
            "a subprocess it waits for",
            "import subprocess\nsubprocess.run(['true'], check=True)\n",
        ),
        (
            "a child that exited (a zombie, never waited for)",
            // WNOWAIT waits for the exit without reaping it: the child stays a zombie, and
            // the program does not end before it has exited however loaded the machine is.
            "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)\n",
        ),
    ] {
        let d = oracle
            .check(&task, &reference, &format!("{prefix}{solution}"))
            .unwrap();
        assert!(d.equivalent, "{what}: {:?}", d.failure);
    }
}

#[test]
fn spawned_sandboxes_judge_the_same_candidates_without_faults() {
    // Under `--oracle-mode spawn` the parent is the sandbox's init, which a signal from inside
    // cannot kill: those candidates then behave like the original, which is a verdict too. What
    // matters is that no candidate is a fault, and that a faked sandbox error (bubblewrap's
    // message on stderr) is the candidate's doing.
    let (oracle, task, reference) = contained_oracle(OracleMode::Spawn);
    for name in ATTACKS {
        let d = verdict(&oracle, &task, &reference, name);
        // Spawned sandboxes end with their program (the PID namespace goes), so processes it
        // leaves behind are killed, not counted: the quiet child passes there, and the bounded
        // fork bomb passes or fails by timing.
        if !HARNESS_KILLERS.contains(&name) && !["quiet_child", "fork_bomb_bounded"].contains(&name)
        {
            assert!(!d.equivalent, "{name} was accepted");
        }
        if name == "fake_sandbox_error" {
            let why = d.failure.as_ref().and_then(|f| f.sandbox_failure.clone());
            assert!(
                why.as_deref()
                    .is_some_and(|w| w.contains("made the sandbox fail")
                        && w.contains("the original, run again the same way, did not")),
                "{d:?}"
            );
        }
    }
    assert_eq!(oracle.stats().faults, 0, "{:?}", oracle.stats());
}

#[test]
fn check_exits_1_with_the_reason_for_a_candidate_that_kills_its_harness() {
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let path = common::root().join("fixtures/hostile/harness/kill_parent.py");
    let out = common::equimorph(
        &[
            "check",
            tasks.to_str().unwrap(),
            "--id",
            "sum-two",
            "--candidate",
            path.to_str().unwrap(),
        ],
        None,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("NOT equivalent") && stdout.contains("killed its test harness"),
        "{stdout}"
    );
}

#[test]
fn an_attack_whose_transform_breaks_harnesses_finishes_every_task() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let hostile = common::root().join("fixtures/hostile/transforms/break-harness.py");
    let transforms = format!("{},var-rename,for-to-while", hostile.display());
    // Every candidate goes through the oracle (`--oracle-order all`), so every task meets the
    // hostile transform's output.
    let o = common::attack_command(
        &tasks,
        &out,
        "jaccard",
        2,
        &[
            "--beam",
            "2",
            "--oracle-order",
            "all",
            "--transforms",
            &transforms,
        ],
    )
    .output()
    .expect("binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let lines: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), common::fixture_task_count());
    let validated: Vec<&Value> = lines.iter().filter(|l| l["status"] == "ok").collect();
    assert!(
        lines.iter().all(|l| l["status"] != "error"),
        "a hostile candidate failed its task: {:?}",
        lines
            .iter()
            .filter(|l| l["status"] == "error")
            .map(|l| (&l["id"], &l["reason"]))
            .collect::<Vec<_>>()
    );
    assert!(validated.len() >= common::fixture_task_count() - 2);
    let breakers: u64 = validated
        .iter()
        .map(|l| l["counts"]["sandbox_breakers"].as_u64().unwrap_or(0))
        .sum();
    // Three of the four attacks kill the harness; program lengths spread the tasks over all four.
    assert!(breakers >= 5, "{breakers} candidates broke their harness");
    for l in &validated {
        let best = l["best"].as_str().unwrap_or_default();
        assert!(
            !best.contains("os.kill") && !best.contains("os.abort"),
            "a hostile candidate won {}: {best}",
            l["id"]
        );
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["sandbox_breakers"].as_u64(), Some(breakers));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains(&format!(
            "| candidates the sandbox could not judge (they broke their test harness; not equivalent) | {breakers} |"
        )),
        "{report}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Candidates the sandbox could not judge")
            && html.contains(&format!("{breakers} candidate(s) broke their test harness")),
        "the HTML report says it too"
    );
}
