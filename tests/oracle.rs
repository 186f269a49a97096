//! The equivalence oracle on real Python: fixtures validate, equivalent rewrites pass, wrong
//! variants fail, the cache answers without a process, and both modes agree.

use crate::common;

use equimorph::oracle::{ExitClass, OracleMode, ValidationStatus};
use equimorph::task::{Task, TestCase};

fn validate_all(mode: OracleMode) {
    let oracle = common::oracle(mode);
    for task in &common::fixture_tasks().tasks {
        let v = oracle.validate(task);
        assert_eq!(
            v.status,
            ValidationStatus::Ok,
            "{} in {mode:?}: {:?}",
            task.id,
            v.reason
        );
    }
}

#[test]
fn every_fixture_validates_ok_with_the_fork_server() {
    validate_all(OracleMode::Fork);
}

#[test]
fn every_fixture_validates_ok_with_spawned_interpreters() {
    validate_all(OracleMode::Spawn);
}

fn verdict(mode: OracleMode, task: &Task, candidate: &str) -> bool {
    let oracle = common::oracle(mode);
    let v = oracle.validate(task);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    oracle
        .check(task, v.reference.as_ref().unwrap(), candidate)
        .expect("the sandbox works")
        .equivalent
}

#[test]
fn equivalent_rewrites_are_accepted_and_wrong_variants_rejected() {
    let task = common::fixture("fizzbuzz");
    let src = task.source.clone();
    for mode in [OracleMode::Fork, OracleMode::Spawn] {
        // Equivalent: renamed variable, reordered independent branches, trailing spaces.
        assert!(verdict(
            mode,
            &task,
            &src.replace("n = int(input())", "limit = int(input())")
                .replace("n + 1", "limit + 1")
        ));
        assert!(verdict(
            mode,
            &task,
            &src.replace("print(i)", "print(str(i) + '   ')")
        ));
        // Off by one.
        assert!(!verdict(mode, &task, &src.replace("n + 1", "n")));
        // Swapped branch.
        assert!(!verdict(
            mode,
            &task,
            &src.replace("print(\"Fizz\")", "print(\"TMP\")")
                .replace("print(\"Buzz\")", "print(\"Fizz\")")
                .replace("print(\"TMP\")", "print(\"Buzz\")")
        ));
        // Changed constant.
        assert!(!verdict(mode, &task, &src.replace("i % 15", "i % 30")));
        // An extra space inside a line.
        assert!(!verdict(
            mode,
            &task,
            &src.replace("print(i)", "print(' ' + str(i))")
        ));
    }
}

#[test]
fn test_code_tasks_need_exit_zero_and_exit_class_matters() {
    let task = common::fixture("early-return");
    assert!(verdict(
        OracleMode::Fork,
        &task,
        &task.source.replace("return -1", "return -2 + 1")
    ));
    assert!(!verdict(
        OracleMode::Fork,
        &task,
        &task.source.replace("return -1", "return None")
    ));
    // stdin/stdout task whose candidate crashes after printing the right output.
    let sum = common::fixture("sum-two");
    assert!(!verdict(
        OracleMode::Fork,
        &sum,
        &format!("{}raise SystemExit(3)\n", sum.source)
    ));
}

#[test]
fn the_first_failing_test_is_reported_with_its_input() {
    let task = common::fixture("sum-two");
    let oracle = common::oracle(OracleMode::Fork);
    let reference = oracle.reference(&task);
    let d = oracle
        .check(
            &task,
            &reference,
            "a, b = map(int, input().split())\nprint(a + b if a > 0 else -1)\n",
        )
        .expect("the sandbox works");
    let f = d.failure.expect("a failure");
    assert_eq!(
        (f.test, f.input.as_str(), f.expected.trim(), f.got.trim()),
        (1, "-5 5\n", "0", "-1")
    );
}

#[test]
fn cache_hits_give_the_same_decision_without_a_new_process() {
    let task = common::fixture("gcd-lcm");
    let oracle = common::oracle(OracleMode::Fork);
    let reference = oracle.reference(&task);
    let wrong = task.source.replace("x * y // g", "x * y");
    let first = oracle
        .check(&task, &reference, &wrong)
        .expect("the sandbox works");
    let runs = oracle.stats().runs;
    let second = oracle
        .check(&task, &reference, &wrong)
        .expect("the sandbox works");
    assert!(!first.cached && second.cached);
    assert_eq!(
        (first.equivalent, first.failure.clone()),
        (second.equivalent, second.failure.clone())
    );
    assert_eq!(
        oracle.stats().runs,
        runs,
        "a cache hit must not run anything"
    );
    assert_eq!(oracle.stats().cache_hits, 1);
}

#[test]
fn validate_classifies_failing_flaky_and_timeout_originals() {
    let oracle = common::oracle(OracleMode::Fork);
    let case = |input: &str, output: Option<&str>| TestCase::stdin(input, output.map(String::from));
    let failing = Task::new(
        "failing",
        "print(int(input()) + 1)\n",
        vec![case("1\n", Some("3\n"))],
    );
    assert_eq!(oracle.validate(&failing).status, ValidationStatus::Failing);
    let flaky = Task::new(
        "flaky",
        "import os\nprint(os.urandom(8).hex())\n",
        vec![case("", None)],
    );
    assert_eq!(oracle.validate(&flaky).status, ValidationStatus::Flaky);
    let slow = Task::new("slow", "while True:\n    pass\n", vec![case("", None)]);
    assert_eq!(oracle.validate(&slow).status, ValidationStatus::Timeout);
    let bad_test_code = Task {
        test_code: Some("assert f() == 2\n".into()),
        entry_point: Some("f".into()),
        ..Task::new("tc", "def f():\n    return 1\n", vec![])
    };
    let v = oracle.validate(&bad_test_code);
    assert_eq!(v.status, ValidationStatus::Failing);
    assert!(v.reason.unwrap().contains("AssertionError"));
}

#[test]
fn both_modes_see_the_same_program_behaviour() {
    let probe = "import sys\nprint(sys.argv[0].endswith('prog.py'), __name__, sorted(k for k in globals() if not k.startswith('__')))\nprint(input()[::-1])\nsys.exit(4)\n";
    let a = common::oracle(OracleMode::Fork).run(probe, "abc\n", std::time::Duration::from_secs(5));
    let b =
        common::oracle(OracleMode::Spawn).run(probe, "abc\n", std::time::Duration::from_secs(5));
    assert_eq!(
        (a.class, a.code, a.stdout.clone()),
        (b.class, b.code, b.stdout.clone())
    );
    assert_eq!(a.class, ExitClass::Error);
    assert_eq!(a.stdout, "True __main__ ['sys']\ncba\n");
}
