//! Hostile C++ programs run as candidates: each is rejected or contained in bounded time (the
//! compile included), no stray process survives, nothing is written outside the sandbox, the
//! host's environment and network stay out of reach, and the oracle keeps judging correctly.
//! One test, run in its own process: a fork bomb must not starve other tests' sandboxes.

mod common;

use equimorph::oracle::{ExitClass, OracleMode, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::{Task, TestCase};
use std::time::Duration;

const SUM: &str = "#include <iostream>\nint main() {\n    long long a, b;\n    std::cin >> a >> b;\n    std::cout << a + b << std::endl;\n    return 0;\n}\n";

#[test]
fn hostile_cpp_programs_are_contained_and_leave_the_oracle_healthy() {
    // SAFETY: set before the oracle starts any thread of its own in this test.
    unsafe { std::env::set_var("EQUIMORPH_SECRET_CANARY", "hunter2") };
    let oracle = common::oracle(OracleMode::Fork);
    let task = Task::new(
        "sum",
        SUM,
        vec![
            TestCase::stdin("1 2\n", Some("3\n".to_string())),
            TestCase::stdin("40 2\n", None),
        ],
    )
    .in_language(Language::Cpp);
    let v = oracle.validate(&task);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    let reference = v.reference.unwrap();
    let healthy = |after: &str| {
        let variant = SUM.replace("a + b", "b + a");
        let d = oracle
            .check(&task, &reference, &variant)
            .unwrap_or_else(|e| panic!("the oracle must keep working after {after}: {e}"));
        assert!(d.equivalent, "after {after}: {:?}", d.failure);
    };
    let sandboxed = oracle.isolation().launcher == "bubblewrap";
    for name in [
        "fork_bomb",
        "memory_hog",
        "huge_stdout",
        "infinite_loop",
        "daemon",
        "write_outside",
        "read_env",
        "kill_parent",
        "stack_overflow",
        "network",
        "template_bomb",
        "device_include",
    ] {
        let src = common::read(format!("fixtures/hostile/cpp/{name}.cpp"));
        common::assert_rejected(
            &oracle,
            &task,
            &reference,
            name,
            &src,
            Duration::from_secs(60),
        );
        // The memory limit, not the clock, is to stop the hog: its compile and first-touch of
        // each block can take seconds on a loaded machine.
        let limit = Duration::from_secs(if name == "memory_hog" { 30 } else { 3 });
        let r = oracle.run_in(Language::Cpp, &src, "", limit, 0);
        match name {
            "memory_hog" => assert!(
                matches!(r.class, ExitClass::Error | ExitClass::Signal),
                "{name}: {:?} {}",
                r.class,
                r.stderr_tail
            ),
            "huge_stdout" => assert_eq!(r.class, ExitClass::OutputLimit),
            "infinite_loop" => assert_eq!(r.class, ExitClass::Timeout),
            // Killed by SIGSEGV (under bubblewrap, which reports it as exit status 139).
            "stack_overflow" => assert!(
                r.class == ExitClass::Signal || r.code == Some(139),
                "{:?} {:?} {}",
                r.class,
                r.code,
                r.stderr_tail
            ),
            "template_bomb" | "device_include" => {
                assert_eq!(r.class, ExitClass::CompileError, "{}", r.stderr_tail)
            }
            "read_env" => assert_eq!(r.stdout, "3\n", "the host's environment leaked"),
            "network" if sandboxed => assert_eq!(r.stdout, "3\n", "the network was reachable"),
            _ => {}
        }
        common::assert_nothing_left(name, Duration::from_millis(300));
        healthy(name);
    }
}
