//! Hostile programs run as candidates: each is rejected or contained in bounded time, no
//! stray process survives, nothing is written outside the sandbox, the host is unharmed.
//! One test per mode, run sequentially: a fork bomb must not starve other tests' forks.

mod common;

use equimorph::oracle::{ExitClass, Oracle, OracleMode, ValidationStatus};
use std::time::{Duration, Instant};

fn run_all(mode: OracleMode) {
    // A secret in our environment must not reach the programs.
    // SAFETY: set before the oracle starts any thread of its own in this test binary's test.
    unsafe { std::env::set_var("EQUIMORPH_SECRET_CANARY", "hunter2") };
    let oracle: Oracle = common::oracle(mode);
    let task = common::fixture("sum-two");
    let v = oracle.validate(&task);
    assert_eq!(v.status, ValidationStatus::Ok);
    let reference = v.reference.unwrap();
    let healthy = || {
        let d = oracle
            .check(
                &task,
                &reference,
                &format!("{}\n# still fine {:?}\n", task.source, Instant::now()),
            )
            .expect("the sandbox works");
        assert!(
            d.equivalent,
            "the oracle must keep working: {:?}",
            d.failure
        );
    };
    for name in [
        "fork_bomb",
        "infinite_loop",
        "sleep",
        "memory_hog",
        "huge_stdout",
        "network",
        "write_outside",
        "read_env",
        "kill_parent",
        "close_stdout",
        "daemon",
    ] {
        let src = common::read(format!("fixtures/hostile/{name}.py"));
        common::assert_rejected(
            &oracle,
            &task,
            &reference,
            name,
            &src,
            Duration::from_secs(15),
        );
        // Look at what it did, directly. The memory hog touches 1 GiB before its MemoryError,
        // which takes 0.6–1 s on an idle machine here and more on a busy one (first touches of
        // fresh memory are slow in a VM): it gets room, since only how it ends is asserted.
        let deadline = if name == "memory_hog" { 10 } else { 2 };
        let r = oracle.run(&src, "", Duration::from_secs(deadline));
        match name {
            "fork_bomb" | "infinite_loop" | "sleep" => {
                assert_eq!(r.class, ExitClass::Timeout, "{name}")
            }
            "memory_hog" => {
                assert_eq!(r.class, ExitClass::Error, "{name}");
                assert!(r.stderr_tail.contains("MemoryError"), "{}", r.stderr_tail);
            }
            "huge_stdout" => assert_eq!(r.class, ExitClass::OutputLimit),
            "network" => assert_eq!(r.stdout.trim(), "blocked blocked blocked"),
            "write_outside" => assert!(r.stdout.starts_with("wrote: "), "{}", r.stdout),
            "read_env" => assert!(
                !r.stdout.contains("hunter2"),
                "environment leaked: {}",
                r.stdout
            ),
            "kill_parent" => assert!(matches!(
                r.class,
                ExitClass::Crash | ExitClass::Signal | ExitClass::Success
            )),
            "close_stdout" => assert_ne!(r.class, ExitClass::Success),
            "daemon" => {
                assert_eq!(r.class, ExitClass::Success);
                assert!(r.seconds < 1.5, "waited for the daemon: {}", r.seconds);
            }
            _ => unreachable!(),
        }
        common::assert_nothing_left(name, Duration::from_millis(50));
        healthy();
    }
    assert!(
        oracle.isolation().warnings.is_empty(),
        "{:?}",
        oracle.isolation()
    );
}

#[test]
fn hostile_programs_are_contained_by_the_fork_server_and_by_spawned_sandboxes() {
    run_all(OracleMode::Fork);
    run_all(OracleMode::Spawn);
}
